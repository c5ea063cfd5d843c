# `fit maybe` is not a fit mode. [line 4]
T(p) = c1 + c2/p
param c1, c2
fit maybe
