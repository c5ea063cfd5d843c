# `foo` is not a known function. [line 2]
T(p) = c1*foo(p)
param c1
