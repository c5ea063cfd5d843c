# A stray token after a complete statement. [line 2]
T(p) = c1 + c2/p )
param c1, c2
