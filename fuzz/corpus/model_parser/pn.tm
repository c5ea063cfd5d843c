# Two variables: processors p and problem size n (a dense O(n^3) kernel with
# a log2(p) communication term). log2 of a power of two is exact.
T(p, n) = c0 + c1*n^3/p + c2*n^2*log2(p)
param c0, c1, c2
predict p = 128..1024:*2, n = 4000, 8000
unit T = s, p = processors
