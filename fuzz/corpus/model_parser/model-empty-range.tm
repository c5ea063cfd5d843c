# The predict range runs backwards. [line 4]
T(p) = c1 + c2/p
param c1, c2
predict p = 1000..200
