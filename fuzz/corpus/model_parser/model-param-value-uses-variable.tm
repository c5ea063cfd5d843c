# A given parameter value must be a constant, not depend on p. [line 3]
T(p) = c1 + c2/p
param c1 = p, c2 = 1
fit none
