# invalid UTF-8 inside a comment of the model [line 3]
T(p) = a * (1/p + c1 + c2*(p - 1)^2)
# café
const a = 26022
param c1, c2
