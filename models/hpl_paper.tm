# HPL (Orii and Anai [OA], eq. 4) with the paper's own parameter values, analysed as
# given (`fit none`): the method applies to a model from anywhere.
# The paper's Mathematica program rationalised its constants
# (Rationalize[0.0088823, 10^-8] = 12/1351, Rationalize[1.9312*10^-7, 10^-12]
# = 1/5178127); rationalize() does the same, so
#   errband models/hpl_paper.tm data/hpl.csv -t 17.9745 --order dc2,dc1
# reproduces every number of its Fig. 2(b).
T(p) = a * (1/p + c1 + c2*(p - 1)^2)
const a = 26022
param c1 = rationalize(0.0088823, 1e-8), c2 = rationalize(1.9312e-7, 1e-12)
fit none
predict p = 200, 500, 1000, 2000..10000:2000
unit T = s, p = processors
