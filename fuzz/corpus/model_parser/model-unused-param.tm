# c3 is declared but does not occur in the model. [line 3]
T(p) = c1 + c2/p
param c1, c2, c3
