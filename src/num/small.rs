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
        if g <= 1 {
            return Some(Small { n, d });
        }
        // A 64-bit division where the parts allow (128-bit division is a
        // library call, several times slower).
        if let (Ok(n64), Ok(d64), Ok(g64)) = (i64::try_from(n), i64::try_from(d), i64::try_from(g)) {
            return Some(Small { n: i128::from(n64 / g64), d: i128::from(d64 / g64) });
        }
        Some(Small { n: n / g, d: d / g })
    }

    /// `−self`.
    pub(crate) fn neg(self) -> Option<Small> {
        Some(Small { n: self.n.checked_neg()?, d: self.d })
    }

    /// `self + o` (`o` negated first for a difference).
    pub(crate) fn add(self, o: Small) -> Option<Small> {
        // Adding zero (a relative threshold's absolute part) keeps lowest terms.
        if o.n == 0 {
            return Some(self);
        }
        if self.n == 0 {
            return Some(o);
        }
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

    /// `self − o` in lowest terms for operands that need not be in lowest
    /// terms themselves (as [`crate::num::sub`] takes them): the cross
    /// difference over the product of the denominators, reduced once.
    pub(crate) fn sub_reduced(self, o: Small) -> Option<Small> {
        let n = self.n.checked_mul(o.d)?.checked_sub(o.n.checked_mul(self.d)?)?;
        Small::reduced(n, self.d.checked_mul(o.d)?)
    }

    /// `self · o`, cross-cancelled before multiplying (so already in lowest terms).
    pub(crate) fn mul(self, o: Small) -> Option<Small> {
        if self.n == 0 || o.n == 0 {
            return Some(Small::int(0));
        }
        if o == Small::int(1) {
            return Some(self);
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

/// A vector of rationals over one common denominator, `v_j = n_j/d`, in
/// 128-bit integers: a region's vertex, at which a band end is evaluated
/// at 10^6 prediction points. Its value under a short basis is one dot
/// product of integers and one word-sized gcd ([`Common::affine_over`]), where
/// the big-integer path multiplies each term over its own denominator and
/// takes a gcd of numbers past 128 bits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Common {
    n: Vec<i128>,
    d: i128,
}

impl Common {
    /// `v` over the least common multiple of its denominators, when every
    /// part fits.
    pub(crate) fn of(v: &[Rat]) -> Option<Common> {
        let mut d: i128 = 1;
        for x in v {
            let xd = x.denom().to_i128()?;
            d = (d / gcd(d, xd)).checked_mul(xd)?;
        }
        let n = v
            .iter()
            .map(|x| x.numer().to_i128()?.checked_mul(d / x.denom().to_i128()?))
            .collect::<Option<_>>()?;
        Some(Common { n, d })
    }

    /// `c + f·v` in lowest terms for the basis `b = [c, f..]`, when every
    /// intermediate fits in 128 bits (`None`: the caller takes the
    /// big-integer path, which gives the same value). The basis is put
    /// over one denominator once per prediction point ([`Basis::of`]) and
    /// read for the model's value and each region's extreme vertices.
    pub(crate) fn affine_over(&self, b: &Basis) -> Option<Rat> {
        let mut s: i128 = 0;
        for (x, nj) in b.f.iter().zip(&self.n) {
            if *nj != 0 && *x != 0 {
                s = s.checked_add(x.checked_mul(*nj)?)?;
            }
        }
        // c + s/(l·d): over cd·l·d with one reduction where that fits,
        // else over lcm(cd, l·d) first.
        let ld = b.l.checked_mul(self.d)?;
        if let Some(d) = b.cd.checked_mul(ld) {
            if let Some(n) = b.cn.checked_mul(ld).and_then(|x| x.checked_add(s.checked_mul(b.cd)?)) {
                return Small::reduced(n, d).map(Small::to_rat);
            }
        }
        let g = gcd(b.cd, ld);
        let n = b.cn.checked_mul(ld / g)?.checked_add(s.checked_mul(b.cd / g)?)?;
        let d = b.cd.checked_mul(ld / g)?;
        Small::reduced(n, d).map(Small::to_rat)
    }
}

/// A basis `[c, f..]` at one point in 128-bit integers: `c = cn/cd` and
/// `f_j = f[j]/l` over the least common multiple `l` of their denominators.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Basis {
    cn: i128,
    cd: i128,
    f: Vec<i128>,
    l: i128,
}

impl Basis {
    /// The basis `[c, f..]`, when every part fits.
    pub(crate) fn of(c: &Rat, f: &[Rat]) -> Option<Basis> {
        let mut l: i128 = 1;
        for x in f {
            let xd = x.denom().to_i128()?;
            if xd != 1 {
                l = (l / gcd(l, xd)).checked_mul(xd)?;
            }
        }
        let f = f
            .iter()
            .map(|x| {
                let n = x.numer().to_i128()?;
                if n == 0 {
                    return Some(0);
                }
                n.checked_mul(l / x.denom().to_i128()?)
            })
            .collect::<Option<_>>()?;
        Some(Basis { cn: c.numer().to_i128()?, cd: c.denom().to_i128()?, f, l })
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

    #[test]
    fn common_affine_answers_hpl_vertices_at_a_million() {
        // A vertex of HPL's region at threshold max and the basis at
        // p = 10^6: the 128-bit path answers, with the exact value.
        let v = [rat("-1129839537968951/9987128750862120000"), rat("95096333471/9987128750862120000")];
        let (c, f) = (rat("26022/1000000"), [rat("26022"), rat("26022") * rat("999999") * rat("999999")]);
        let got = Common::of(&v)
            .zip(Basis::of(&c, &f))
            .and_then(|(x, b)| x.affine_over(&b))
            .expect("fits in 128 bits");
        assert_eq!(got, &c + &f[0] * &v[0] + &f[1] * &v[1]);
    }

    proptest::proptest! {
        /// A vertex over one denominator gives the value the big-integer
        /// path gives, in lowest terms, or nothing; near the 128-bit edge
        /// (HPL's vertices at p = 10^6) as well as with short parts.
        #[test]
        fn common_affine_is_the_exact_value(
            parts in proptest::collection::vec((-(1i64 << 40)..(1i64 << 40), 1i64..(1i64 << 30), 0u32..30), 1..4),
            basis in proptest::collection::vec((-(1i64 << 40)..(1i64 << 40), 1i64..1_000_000), 2..5),
        ) {
            let big = |n: i64, d: i64, shift: u32| Rat::new(BigInt::from(n) << shift, BigInt::from(d));
            let v: Vec<Rat> = parts.iter().map(|&(n, d, sh)| big(n, d, sh)).collect();
            let b: Vec<Rat> = basis.iter().map(|&(n, d)| big(n, d, 0)).collect();
            let k = v.len().min(b.len() - 1);
            let (c, f, v) = (&b[0], &b[1..=k], &v[..k]);
            let want = f.iter().zip(v).fold(c.clone(), |a, (x, y)| a + x * y);
            if let Some(common) = Common::of(v) {
                if let Some(got) = Basis::of(c, f).and_then(|b| common.affine_over(&b)) {
                    proptest::prop_assert_eq!(got.numer(), want.numer());
                    proptest::prop_assert_eq!(got.denom(), want.denom());
                }
            } else {
                // Only parts past 128 bits are refused.
                let lcm = v.iter().fold(BigInt::from(1), |l, x| num_integer::Integer::lcm(&l, x.denom()));
                let fits = v.iter().all(|x| (x.numer() * (&lcm / x.denom())).to_i128().is_some());
                proptest::prop_assert!(lcm.to_i128().is_none() || !fits);
            }
        }
    }
}
