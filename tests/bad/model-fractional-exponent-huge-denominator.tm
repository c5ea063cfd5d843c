# A rational exponent's denominator is held to --max-exponent (10000). [line 2]
T(p) = c1*p^(1/100000) + c2
param c1, c2
