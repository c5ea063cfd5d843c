# A parenthesis is opened and never closed; the error points at it. [line 2]
T(p) = a * (1/p + c1 + c2*(p - 1)^2
const a = 26022
param c1, c2
