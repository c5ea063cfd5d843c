# Synthetic benchmark model (benches/pipeline/gen.py writes this file).
# k = 3 parameters; log2 of a power of two is exact.
T(p, n) = c0 + c1*n^3/p + c2*n^2*log2(p)
param c0, c1, c2
predict p = 2048..32768:*2, n = 2000, 4000, 8000, 16000
unit T = s, p = processors
