# `$` is not part of the language. [line 2]
T(p) = c1 $ p + c2
param c1, c2
