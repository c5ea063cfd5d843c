# c1*c2 is not affine in the parameters. [line 2]
T(p) = c1*c2*p
param c1, c2
