# `q` is neither a variable, a constant nor a parameter. [line 2]
T(p) = c1*q + c2/p
param c1, c2
