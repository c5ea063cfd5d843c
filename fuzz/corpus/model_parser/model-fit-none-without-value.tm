# `fit none` but c2 has no given value. [line 3]
T(p) = c1 + c2/p
param c1 = 1, c2
fit none
