# The model ends with a dangling `+`. [line 3]
param c1, c2
T(p) = c1 + c2/p +
