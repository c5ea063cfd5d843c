# The predict range expands to more points than allowed. [line 4]
T(p) = c1 + c2/p
param c1, c2
predict p = 1..100000000
