# An absurd exponent must be refused, not computed. [line 2]
T(p) = c1*p^1000000000
param c1
