# The weight p - 10 is zero at the data point p = 10. [line 4]
T(p) = c1 + c2/p
param c1, c2
weight p - 10
