# log2(p - 100) is undefined at the data points p < 100. [line 2]
T(p) = c1*log2(p - 100) + c2
param c1, c2
