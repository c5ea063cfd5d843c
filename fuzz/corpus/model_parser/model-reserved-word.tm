# `log2` is a function name and cannot be a parameter. [line 3]
T(p) = log2 + c2/p
param log2, c2
