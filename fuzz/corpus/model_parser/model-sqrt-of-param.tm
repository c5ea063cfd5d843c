# sqrt of a parameter is not affine. [line 2]
T(p) = sqrt(c1) + c2/p
param c1, c2
