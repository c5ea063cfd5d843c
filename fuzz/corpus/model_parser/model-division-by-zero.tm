# 1/(p - 10) divides by zero at the data point p = 10. [line 2]
T(p) = c1/(p - 10) + c2
param c1, c2
