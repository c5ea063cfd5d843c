# `q` in predict is not a variable of the model. [line 4]
T(p) = c1 + c2/p
param c1, c2
predict q = 5
