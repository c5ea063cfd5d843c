# The model has no parameters to fit or analyse. [line 2]
T(p) = 1/p + 3
