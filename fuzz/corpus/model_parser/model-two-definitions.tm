# The model is defined twice. [line 3]
T(p) = c1 + c2/p
T(p) = c1 + c2*p
param c1, c2
