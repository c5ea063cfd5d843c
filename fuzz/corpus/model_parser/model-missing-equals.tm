# The definition lacks its `=`. [line 3]
param c1, c2
T(p) c1 + c2/p
