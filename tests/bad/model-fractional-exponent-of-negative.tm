# A negative base needs an integer exponent: (p - 200)^0.5 at p = 10 (data/hpl.csv line 5). [line 2]
T(p) = c1*(p - 200)^0.5 + c2
param c1, c2
