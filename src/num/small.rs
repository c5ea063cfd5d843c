//! Rationals whose numerator and denominator fit in 128-bit integers, for
//! the hot loops where every operand is short (a model's basis at an
//! integer point: `26022/p`, `(p − 1)^2`). Each operation is exact and
//! gives lowest terms, as [`Rat`]'s do, or `None` when a part would not
//! fit; the caller then takes the big-integer path, which gives the same
//! value. No allocation, no big-integer gcd.

use super::{gcd_i128 as gcd, Rat};
use num_bigint::BigInt;
use num_traits::ToPrimitive;

/// `n/d` in lowest terms with `d > 0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Small {
    n: i128,
    d: i128,
}

impl Small {
    /// The integer `n`.
    pub(crate) const fn int(n: i128) -> Small {
        Small { n, d: 1 }
    }

    /// `x` when both its parts fit.
    pub(crate) fn of(x: &Rat) -> Option<Small> {
        Some(Small { n: x.numer().to_i128()?, d: x.denom().to_i128()? })
    }

    /// The exact [`Rat`] (already in lowest terms: no gcd).
    pub(crate) fn to_rat(self) -> Rat {
        Rat::new_raw(BigInt::from(self.n), BigInt::from(self.d))
    }

    /// `n/d` reduced, for any `d ≠ 0`.
    fn reduced(n: i128, d: i128) -> Option<Small> {
        let (n, d) = if d < 0 { (n.checked_neg()?, d.checked_neg()?) } else { (n, d) };
        let g = gcd(n, d);
        Some(if g > 1 { Small { n: n / g, d: d / g } } else { Small { n, d } })
    }

    /// `−self`.
    pub(crate) fn neg(self) -> Option<Small> {
        Some(Small { n: self.n.checked_neg()?, d: self.d })
    }

    /// `self + o` (`o` negated first for a difference).
    pub(crate) fn add(self, o: Small) -> Option<Small> {
        // Integers (most of a basis at an integer point) need no gcd.
        if self.d == 1 && o.d == 1 {
            return Some(Small::int(self.n.checked_add(o.n)?));
        }
        // Over lcm(d1, d2): the intermediate stays as short as it can.
        let g = gcd(self.d, o.d);
        let (a, b) = (self.d / g, o.d / g);
        let n = self.n.checked_mul(b)?.checked_add(o.n.checked_mul(a)?)?;
        Small::reduced(n, self.d.checked_mul(b)?)
    }

    /// `self − o`.
    pub(crate) fn sub(self, o: Small) -> Option<Small> {
        self.add(o.neg()?)
    }

    /// `self · o`, cross-cancelled before multiplying (so already in lowest terms).
    pub(crate) fn mul(self, o: Small) -> Option<Small> {
        if self.n == 0 || o.n == 0 {
            return Some(Small::int(0));
        }
        if self.d == 1 && o.d == 1 {
            return Some(Small::int(self.n.checked_mul(o.n)?));
        }
        let g1 = gcd(self.n, o.d);
        let g2 = gcd(o.n, self.d);
        Some(Small { n: (self.n / g1).checked_mul(o.n / g2)?, d: (self.d / g2).checked_mul(o.d / g1)? })
    }

    /// `self / o`; `None` when `o` is zero (the caller reports it).
    pub(crate) fn div(self, o: Small) -> Option<Small> {
        if o.n == 0 {
            return None;
        }
        let recip = if o.n < 0 {
            Small { n: o.d.checked_neg()?, d: o.n.checked_neg()? }
        } else {
            Small { n: o.d, d: o.n }
        };
        self.mul(recip)
    }

    /// The integer this is, if it is one.
    pub(crate) fn integer(self) -> Option<i128> {
        (self.d == 1).then_some(self.n)
    }

    /// `self^e` for an integer `e` with `|e| ≤ max_exp`; `None` for a zero
    /// base with a negative exponent (the caller reports it).
    pub(crate) fn pow(self, e: i128, max_exp: u32) -> Option<Small> {
        let m = u32::try_from(e.unsigned_abs()).ok().filter(|&m| m <= max_exp)?;
        // Lowest terms are kept by powers: no gcd.
        let (n, d) = (self.n.checked_pow(m)?, self.d.checked_pow(m)?);
        if e < 0 {
            if n == 0 {
                return None;
            }
            Small::reduced(d, n)
        } else {
            Some(Small { n, d })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rat(x: &str) -> Rat {
        crate::num::parse_rat(x).unwrap()
    }

    fn s(x: &str) -> Small {
        Small::of(&rat(x)).unwrap()
    }

    #[test]
    fn agrees_with_big_rationals() {
        let xs = [
            "0",
            "1",
            "-1",
            "3/4",
            "-22/7",
            "26022",
            "1/1000000",
            "-170141183460469231731687303715884105727",
        ];
        for a in xs {
            for b in xs {
                let (ra, rb) = (rat(a), rat(b));
                let (sa, sb) = (s(a), s(b));
                if let Some(v) = sa.add(sb) {
                    assert_eq!(v.to_rat(), &ra + &rb, "{a} + {b}");
                }
                if let Some(v) = sa.sub(sb) {
                    assert_eq!(v.to_rat(), &ra - &rb, "{a} - {b}");
                }
                if let Some(v) = sa.mul(sb) {
                    assert_eq!(v.to_rat(), &ra * &rb, "{a} * {b}");
                }
                match sa.div(sb) {
                    Some(v) => assert_eq!(v.to_rat(), &ra / &rb, "{a} / {b}"),
                    None => assert!(rb == rat("0") || Small::of(&(&ra / &rb)).is_none(), "{a} / {b}"),
                }
            }
            for e in [0, 1, 2, -2, 5, -3] {
                if let Some(v) = s(a).pow(e, 127) {
                    assert_eq!(v.to_rat(), num_traits::Pow::pow(&rat(a), e as i32), "{a}^{e}");
                }
            }
        }
    }

    #[test]
    fn overflow_and_zero_division_give_none() {
        let big = Small::int(i128::MAX);
        assert_eq!(big.add(Small::int(1)), None);
        assert_eq!(big.mul(Small::int(2)), None);
        assert_eq!(Small::int(i128::MIN).neg(), None);
        assert_eq!(Small::int(1).div(Small::int(0)), None);
        assert_eq!(Small::int(0).pow(-1, 127), None);
        assert_eq!(Small::int(2).pow(128, 127), None);
        assert_eq!(Small::int(2).pow(3, 2), None);
        assert_eq!(Small::int(2).pow(126, 127).unwrap().to_rat(), num_traits::Pow::pow(&rat("2"), 126u32));
    }
}
