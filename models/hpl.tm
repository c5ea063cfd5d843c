# HPL on Fujitsu HPC2500, black-box approach (Orii & Anai, eq. 4).
# a = 26022 as in the paper's Mathematica program (its text's 26002 is a typo).
T(p) = a * (1/p + c1 + c2*(p - 1)^2)
const a = 26022
param c1, c2
weight p          # fit minimises sum (p_i * (d_i - T_i))^2  (the paper's eq. 10)
predict p = 200, 500, 1000, 2000..10000:2000
unit T = s, p = processors
