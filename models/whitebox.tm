# White-box model of Orii and Anai [OA], section 4.2 (eq. 9): the hot-spot kernel of an MD
# code on an SP2, with the model parameters of the paper's reference [7] and
# n = 96800 particles substituted. Given values, analysed as they are.
T(p) = a * (1/p + c1 + c2*p)
const a = 54642
param c1 = 0.05922, c2 = 0.0007528
fit none
predict p = 128, 256, 512, 1024
unit T = s, p = processors
