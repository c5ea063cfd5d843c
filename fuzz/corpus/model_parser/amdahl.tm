# Amdahl's law: a serial part s and parallel work w shared by p processors.
T(p) = s + w/p
param s, w
predict p = 64..1024:*2
unit T = s, p = processors
