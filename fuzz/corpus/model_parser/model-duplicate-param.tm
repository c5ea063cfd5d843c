# c1 is declared twice. [line 3]
T(p) = c1 + c2/p
param c1, c2, c1
