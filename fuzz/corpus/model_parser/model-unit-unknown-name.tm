# `unit q = s` names neither the model nor a variable. [line 4]
T(p) = c1 + c2/p
param c1, c2
unit q = s
