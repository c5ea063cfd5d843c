# A constant may not depend on a parameter. [line 3]
T(p) = a*c1 + c2/p
const a = c1 + 1
param c1, c2
