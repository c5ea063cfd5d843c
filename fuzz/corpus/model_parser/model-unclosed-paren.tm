# A parenthesis is opened and never closed. [line 4]
const a = 26022
param c1, c2
T(p) = a * (1/p + c1 + c2*(p - 1)^2
