# Two weight statements. [line 5]
T(p) = c1 + c2/p
param c1, c2
weight p
weight p^2
