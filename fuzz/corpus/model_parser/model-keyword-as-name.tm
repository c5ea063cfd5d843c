# `fit` is a keyword and cannot name a constant. [line 3]
T(p) = c1 + c2/p
const fit = 3
param c1, c2
