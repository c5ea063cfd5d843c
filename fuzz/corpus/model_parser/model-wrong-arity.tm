# log2 takes one argument. [line 2]
T(p) = c1*log2(p, 2) + c2
param c1, c2
