# Exponents must be integers (use sqrt). [line 2]
T(p) = c1*p^0.5 + c2
param c1, c2
