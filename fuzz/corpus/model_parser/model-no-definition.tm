# There is no `T(p) = ...` line. [line 3]
param c1, c2
weight p
