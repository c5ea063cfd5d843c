//! Exact extremes of separable sums and ratios over one *corner* per
//! region.
//!
//! Every energy prediction is built from per-region terms, and each region's
//! terms depend only on that region's fitted values. Those values range over
//! the product of the region's fit regions (polytopes), and every term is
//! multilinear in them, so each region contributes a finite list of corners
//! (the products of its fits' vertices) at which all its extremes are
//! attained. What remains is a choice of one corner per region:
//!
//! * a **sum** `Σ_r t_r(c_r)` is extreme when every region is: `Σ min`, `Σ max`;
//! * a **ratio** `Σ_r n_r(c_r) / Σ_r d_r(c_r)` (positive denominators) is
//!   maximised by Dinkelbach's method: for the current value `λ`, each region
//!   independently picks the corner maximising `n_r − λ·d_r`; if the best
//!   total is `0`, `λ` is the maximum, otherwise the new choice has a strictly
//!   larger ratio. There are finitely many choices, so this ends, and each
//!   step costs one pass over all corners, not the product of their counts.
//!   Floats propose the starting choice; the exact passes certify it. (For a
//!   multilinear ratio over a product of polytopes the maximum is attained at
//!   a vertex tuple: at the optimal `λ*`, `max Σ(n − λ*·d) = 0` is a
//!   multilinear maximum, hence at vertices.)
//! * a **share** `n_r(c_r) / (d_r(c_r) + Σ_{s≠r} d_s(c_s))`: for a fixed
//!   corner of `r` it is monotone in the others' sum, so only the others'
//!   smallest and largest sums matter.

use crate::num::{lcm_denoms, ratio_to_f64, reduced, to_f64, Interval, Rat};
use num_bigint::BigInt;
use num_traits::{Signed, Zero};
use std::cmp::Ordering;

/// Smallest and largest value in a non-empty list.
pub fn range<'a>(xs: impl IntoIterator<Item = &'a Rat>) -> Option<Interval> {
    let mut it = xs.into_iter();
    let first = it.next()?;
    let (mut lo, mut hi) = (first, first);
    for x in it {
        if x < lo {
            lo = x;
        }
        if x > hi {
            hi = x;
        }
    }
    Some(Interval { lo: lo.clone(), hi: hi.clone() })
}

/// Integer bounds `[lo, hi]` of values that share one positive denominator
/// (kept implicit: sums of such values need no gcd).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntInterval {
    /// Lower end.
    pub lo: BigInt,
    /// Upper end.
    pub hi: BigInt,
}

impl IntInterval {
    /// The rational interval `[lo/den, hi/den]` (`den > 0`).
    pub fn over(&self, den: &BigInt) -> Interval {
        Interval { lo: reduced(self.lo.clone(), den.clone()), hi: reduced(self.hi.clone(), den.clone()) }
    }
}

/// `n/d` (`d > 0`) compared by cross-multiplication, never reduced: the
/// candidates' order is all argbest needs.
#[derive(Debug, Clone)]
struct Frac(BigInt, BigInt);

impl PartialEq for Frac {
    fn eq(&self, o: &Frac) -> bool {
        self.cmp(o).is_eq()
    }
}
impl Eq for Frac {}
impl PartialOrd for Frac {
    fn partial_cmp(&self, o: &Frac) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Frac {
    fn cmp(&self, o: &Frac) -> Ordering {
        (&self.0 * &o.1).cmp(&(&o.0 * &self.1))
    }
}

/// Relative error allowed for a float view of an exact value (generous: the
/// views are correctly rounded inputs combined in a few operations).
const REL: f64 = 1e-12;

/// Index of the largest (`max`) or smallest value among `n` candidates.
/// Floats (`approx(i)` = value and error bound) decide; candidates within
/// the error of the best are compared exactly (`exact(i)`). Ties go to the
/// lowest index among the exactly compared.
fn argbest<T: Ord>(
    n: usize,
    approx: impl Fn(usize) -> (f64, f64),
    exact: impl Fn(usize) -> T,
    max: bool,
) -> usize {
    let sign = if max { 1.0 } else { -1.0 };
    let vals: Vec<(f64, f64)> = (0..n)
        .map(|i| {
            let (v, e) = approx(i);
            (sign * v, e)
        })
        .collect();
    let finite = vals.iter().all(|(v, e)| v.is_finite() && e.is_finite());
    let close: Vec<usize> = if finite {
        let mut best = 0;
        for (i, v) in vals.iter().enumerate() {
            if v.0 > vals[best].0 {
                best = i;
            }
        }
        let floor = vals[best].0 - vals[best].1;
        (0..n).filter(|&j| vals[j].0 + vals[j].1 >= floor).collect()
    } else {
        (0..n).collect()
    };
    if close.len() <= 1 {
        return close.first().copied().unwrap_or(0);
    }
    let mut bi = close[0];
    let mut bv = exact(bi);
    for &j in &close[1..] {
        let v = exact(j);
        if (max && v > bv) || (!max && v < bv) {
            bi = j;
            bv = v;
        }
    }
    bi
}

fn err(v: f64) -> f64 {
    REL * v.abs() + f64::MIN_POSITIVE
}

/// Extremes of `Σ_r t_r(c_r)` given float views `approx[r][c]` and the exact
/// values `exact(r, c)` (integers over one common denominator); also each
/// region's own extremes. `None` when some region has no corner.
pub fn sum_range_f(
    approx: &[Vec<f64>],
    exact: &dyn Fn(usize, usize) -> BigInt,
) -> Option<(IntInterval, Vec<IntInterval>)> {
    let mut per = Vec::with_capacity(approx.len());
    let (mut lo, mut hi) = (BigInt::zero(), BigInt::zero());
    for (r, a) in approx.iter().enumerate() {
        if a.is_empty() {
            return None;
        }
        let f = |c: usize| (a[c], err(a[c]));
        let i = argbest(a.len(), f, |c| exact(r, c), false);
        let j = argbest(a.len(), f, |c| exact(r, c), true);
        let it = IntInterval { lo: exact(r, i), hi: exact(r, j) };
        lo += &it.lo;
        hi += &it.hi;
        per.push(it);
    }
    Some((IntInterval { lo, hi }, per))
}

/// Extremes of `Σ n / Σ d` over one corner per region, from float views
/// `approx[r][c] = (n, d)` and exact values `exact(r, c)` (integers over one
/// common denominator, which cancels). `None` when some region has no
/// corner or some choice has `Σ d ≤ 0`.
pub fn ratio_range_f(
    approx: &[Vec<(f64, f64)>],
    exact: &dyn Fn(usize, usize) -> (BigInt, BigInt),
) -> Option<Interval> {
    let dens: Vec<Vec<f64>> = approx.iter().map(|t| t.iter().map(|p| p.1).collect()).collect();
    let (d, _) = sum_range_f(&dens, &|r, c| exact(r, c).1)?;
    if !d.lo.is_positive() {
        return None;
    }
    let (n, d) = max_ratio_f(approx, exact, false);
    let hi = reduced(n, d);
    let (n, d) = max_ratio_f(approx, exact, true);
    let lo = reduced(-n, d);
    Some(Interval { lo, hi })
}

/// Dinkelbach's method (see the module doc) on `±n / d`, denominators
/// positive: the largest ratio as `(Σ n, Σ d)` of the best choice.
fn max_ratio_f(
    approx: &[Vec<(f64, f64)>],
    exact: &dyn Fn(usize, usize) -> (BigInt, BigInt),
    negate: bool,
) -> (BigInt, BigInt) {
    let sg = if negate { -1.0 } else { 1.0 };
    let ex = |r: usize, c: usize| {
        let (n, d) = exact(r, c);
        (if negate { -n } else { n }, d)
    };
    let fl: Vec<Vec<(f64, f64)>> =
        approx.iter().map(|t| t.iter().map(|&(n, d)| (sg * n, d)).collect()).collect();
    let sums = |choice: &[usize]| {
        let mut n = BigInt::zero();
        let mut d = BigInt::zero();
        for (r, &c) in choice.iter().enumerate() {
            let (a, b) = ex(r, c);
            n += a;
            d += b;
        }
        (n, d)
    };
    let mut choice = float_dinkelbach(&fl);
    let (mut n, mut d) = sums(&choice);
    loop {
        // λ = n/d; a corner's score a − λ·b has the sign of a·d − n·b (d > 0).
        let lf = ratio_to_f64(&n, &d);
        let next: Vec<usize> = fl
            .iter()
            .enumerate()
            .map(|(r, t)| {
                argbest(
                    t.len(),
                    |c| {
                        let (a, b) = t[c];
                        (a - lf * b, REL * (a.abs() + (lf * b).abs()) + f64::MIN_POSITIVE)
                    },
                    |c| {
                        let (a, b) = ex(r, c);
                        a * &d - &n * b
                    },
                    true,
                )
            })
            .collect();
        if next == choice {
            return (n, d);
        }
        let (n2, d2) = sums(&next);
        // The current choice scores 0; a better one scores > 0 and has a larger ratio.
        if !(&n2 * &d - &n * &d2).is_positive() {
            return (n, d);
        }
        choice = next;
        n = n2;
        d = d2;
    }
}
/// Dinkelbach in floats: a choice that is usually already optimal.
fn float_dinkelbach(f: &[Vec<(f64, f64)>]) -> Vec<usize> {
    let ratio = |choice: &[usize]| {
        let (n, d) = f
            .iter()
            .zip(choice)
            .filter_map(|(t, &i)| t.get(i))
            .fold((0.0, 0.0), |(a, b), (n, d)| (a + n, b + d));
        n / d
    };
    let mut choice = vec![0; f.len()];
    let mut lambda = ratio(&choice);
    for _ in 0..64 {
        let next: Vec<usize> = f
            .iter()
            .map(|t| {
                let mut best = (0, f64::NEG_INFINITY);
                for (i, (n, d)) in t.iter().enumerate() {
                    let v = n - lambda * d;
                    if v > best.1 {
                        best = (i, v);
                    }
                }
                best.0
            })
            .collect();
        let l = ratio(&next);
        if l.partial_cmp(&lambda) != Some(std::cmp::Ordering::Greater) {
            break;
        }
        choice = next;
        lambda = l;
    }
    choice
}

/// Extremes of the share `n / (d + S)` of one region over its corners
/// (float views `approx[c] = (n, d)`, exact `exact(c)`), the others' sum
/// `S` ranging over `others`; all integers over the common denominator
/// `den` (which cancels; the floats are in real units). `None` when a denominator can be `≤ 0`.
pub fn share_range_f(
    approx: &[(f64, f64)],
    others: &IntInterval,
    den: &BigInt,
    exact: &dyn Fn(usize) -> (BigInt, BigInt),
) -> Option<Interval> {
    if approx.is_empty() {
        return None;
    }
    let imin = argbest(approx.len(), |c| (approx[c].1, err(approx[c].1)), |c| exact(c).1, false);
    if !(exact(imin).1 + &others.lo).is_positive() {
        return None;
    }
    let (slo, shi) = (ratio_to_f64(&others.lo, den), ratio_to_f64(&others.hi, den));
    // For a fixed corner the share is monotone in S: its extremes are at S's ends.
    let both = |c: usize| -> (f64, f64) {
        let (n, d) = approx[c];
        let (a, b) = (n / (d + slo), n / (d + shi));
        (a.min(b), a.max(b))
    };
    // n ≥ 0: smallest with the largest S; n < 0: the reverse.
    let exact_end = |c: usize, top: bool| -> Frac {
        let (n, d) = exact(c);
        let s = if n.is_negative() == top { &others.hi } else { &others.lo };
        Frac(n, d + s)
    };
    // The float quotients lose relative accuracy when d + S nearly cancels; widen.
    let e = |v: f64, c: usize| {
        err(v)
            * (1.0
                + (approx[c].1.abs() + slo.abs().max(shi.abs()))
                    / (approx[c].1 + slo).abs().max(f64::MIN_POSITIVE))
    };
    let lo = argbest(
        approx.len(),
        |c| {
            let v = both(c).0;
            (v, e(v, c))
        },
        |c| exact_end(c, false),
        false,
    );
    let hi = argbest(
        approx.len(),
        |c| {
            let v = both(c).1;
            (v, e(v, c))
        },
        |c| exact_end(c, true),
        true,
    );
    let (Frac(ln, ld), Frac(hn, hd)) = (exact_end(lo, false), exact_end(hi, true));
    Some(Interval { lo: reduced(ln, ld), hi: reduced(hn, hd) })
}

/// `xs` as integers over their least common denominator.
fn scaled<'a>(xs: impl IntoIterator<Item = &'a Rat>) -> (BigInt, impl Fn(&Rat) -> BigInt) {
    let den = lcm_denoms(xs);
    let d2 = den.clone();
    (den, move |x: &Rat| x.numer() * (&d2 / x.denom()))
}

/// Extremes of `Σ_r terms[r][c_r]`; `None` when some region has no corner.
pub fn sum_range(terms: &[Vec<Rat>]) -> Option<Interval> {
    let (den, int) = scaled(terms.iter().flatten());
    let f: Vec<Vec<f64>> = terms.iter().map(|t| t.iter().map(to_f64).collect()).collect();
    sum_range_f(&f, &|r, c| int(&terms[r][c])).map(|x| x.0.over(&den))
}

/// Extremes of `Σ n / Σ d` over one `(n, d)` pair per region. `None` when
/// some region has no corner or some choice has `Σ d ≤ 0` (the ratio is then
/// undefined or unbounded).
pub fn ratio_range(terms: &[Vec<(Rat, Rat)>]) -> Option<Interval> {
    let (_, int) = scaled(terms.iter().flatten().flat_map(|(n, d)| [n, d]));
    let f: Vec<Vec<(f64, f64)>> =
        terms.iter().map(|t| t.iter().map(|(n, d)| (to_f64(n), to_f64(d))).collect()).collect();
    ratio_range_f(&f, &|r, c| (int(&terms[r][c].0), int(&terms[r][c].1)))
}

/// Extremes of the share `n_r / (d_r + Σ_{s≠r} d_s)` of region `r`, where
/// `pairs[c] = (n_r(c), d_r(c))` and the others' sum ranges over `others`.
/// `None` when a denominator can be `≤ 0`.
pub fn share_range(pairs: &[(Rat, Rat)], others: &Interval) -> Option<Interval> {
    let (den, int) = scaled(pairs.iter().flat_map(|(n, d)| [n, d]).chain([&others.lo, &others.hi]));
    let f: Vec<(f64, f64)> = pairs.iter().map(|(n, d)| (to_f64(n), to_f64(d))).collect();
    let o = IntInterval { lo: int(&others.lo), hi: int(&others.hi) };
    share_range_f(&f, &o, &den, &|c| (int(&pairs[c].0), int(&pairs[c].1)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::frac;
    use proptest::prelude::*;

    fn ratio_of(terms: &[Vec<(Rat, Rat)>], choice: &[usize]) -> Rat {
        let mut n = Rat::zero();
        let mut d = Rat::zero();
        for (t, &i) in terms.iter().zip(choice) {
            n += &t[i].0;
            d += &t[i].1;
        }
        n / d
    }

    fn brute(terms: &[Vec<(Rat, Rat)>]) -> (Rat, Rat) {
        let mut best: Option<(Rat, Rat)> = None;
        let mut idx = vec![0usize; terms.len()];
        loop {
            let r = ratio_of(terms, &idx);
            best = Some(match best {
                None => (r.clone(), r),
                Some((lo, hi)) => (if r < lo { r.clone() } else { lo }, if r > hi { r } else { hi }),
            });
            let mut k = 0;
            loop {
                if k == terms.len() {
                    return best.unwrap_or_default();
                }
                idx[k] += 1;
                if idx[k] < terms[k].len() {
                    break;
                }
                idx[k] = 0;
                k += 1;
            }
        }
    }

    #[test]
    fn ratio_of_two_regions_by_hand() {
        // Region 1: (1, 2) or (3, 2); region 2: (1, 1) or (0, 4).
        let t = vec![
            vec![(frac(1, 1), frac(2, 1)), (frac(3, 1), frac(2, 1))],
            vec![(frac(1, 1), frac(1, 1)), (frac(0, 1), frac(4, 1))],
        ];
        let r = ratio_range(&t).unwrap();
        assert_eq!(r.hi, frac(4, 3));
        assert_eq!(r.lo, frac(1, 6));
        assert!(ratio_range(&[vec![(frac(1, 1), frac(-1, 1))]]).is_none());
    }

    #[test]
    fn shares_by_hand() {
        let s = share_range(
            &[(frac(1, 1), frac(1, 1)), (frac(2, 1), frac(2, 1))],
            &Interval { lo: frac(1, 1), hi: frac(3, 1) },
        )
        .unwrap();
        assert_eq!(s, Interval { lo: frac(1, 4), hi: frac(2, 3) });
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// Dinkelbach agrees with enumerating every corner choice, exactly.
        #[test]
        fn dinkelbach_matches_brute_force(
            raw in prop::collection::vec(
                prop::collection::vec((-50i64..50, 1i64..40, 1i64..30), 1..5), 1..5)
        ) {
            let terms: Vec<Vec<(Rat, Rat)>> = raw
                .iter()
                .map(|t| t.iter().map(|&(n, d, q)| (frac(n, q), frac(d, q))).collect())
                .collect();
            let r = ratio_range(&terms).unwrap();
            let (lo, hi) = brute(&terms);
            prop_assert_eq!(r.lo, lo);
            prop_assert_eq!(r.hi, hi);
        }

        /// Shares agree with enumerating every corner choice of every region.
        #[test]
        fn shares_match_brute_force(
            raw in prop::collection::vec(
                prop::collection::vec((-20i64..50, 1i64..40), 1..4), 2..4)
        ) {
            let terms: Vec<Vec<(Rat, Rat)>> = raw
                .iter()
                .map(|t| t.iter().map(|&(n, d)| (frac(n, 1), frac(d, 1))).collect())
                .collect();
            // Share of region 0: its n over the sum of all d (others' numerators zero).
            let mut brute_terms = terms.clone();
            for t in brute_terms.iter_mut().skip(1) {
                for p in t.iter_mut() {
                    p.0 = Rat::zero();
                }
            }
            let (lo, hi) = brute(&brute_terms);
            let others: Vec<Vec<Rat>> = terms[1..].iter().map(|t| t.iter().map(|p| p.1.clone()).collect()).collect();
            let s = share_range(&terms[0], &sum_range(&others).unwrap()).unwrap();
            prop_assert_eq!(s.lo, lo);
            prop_assert_eq!(s.hi, hi);
        }
    }
}
