//! Double description (Motzkin's method) for homogeneous cones
//! `{z : h_i·z <= 0}`, exact over primitive integer vectors.
//!
//! Constraints are added one at a time. A constraint that every current
//! generator already satisfies is implied by the ones before it and is
//! skipped; the test uses a float filter with a rigorous error bound and
//! falls back to exact arithmetic when the filter cannot decide, so the
//! common case costs a few float multiplications per generator. Adjacency
//! uses the combinatorial test on zero sets.

use crate::num::int_dot as dot;
use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};
use std::cmp::Ordering;

/// Bits kept above the binary point of a vector's largest float entry:
/// products of two entries stay below 2^1000, far from overflow.
const SCALE_BITS: i64 = 480;

/// A primitive integer vector with its float view (scaled, see
/// [`IVec::new`]).
#[derive(Debug, Clone)]
pub(crate) struct IVec {
    pub v: Vec<BigInt>,
    pub f: Vec<f64>,
}

impl IVec {
    pub fn new(mut v: Vec<BigInt>) -> IVec {
        // Smallest entries first: the running gcd then starts short and
        // usually reaches 1 after a few entries, where the loop stops.
        // Long entries go through dashu's Lehmer gcd (`num::gcd`), which
        // is several times faster than num-bigint's binary one.
        let mut order: Vec<usize> = (0..v.len()).filter(|&i| !v[i].is_zero()).collect();
        order.sort_by_key(|&i| v[i].bits());
        let mut g = BigInt::zero();
        for &i in &order {
            g = crate::num::gcd(&g, &v[i]);
            if g.is_one() {
                break;
            }
        }
        if !g.is_zero() && !g.is_one() {
            for x in v.iter_mut() {
                *x = &*x / &g;
            }
        }
        // The float view is scaled by one power of two per vector, so no
        // entry overflows (fits of a thousand distinct points give rows of
        // thousands of bits); signs of dot products are unchanged.
        let bits = v.iter().map(|x| x.bits()).max().unwrap_or(0) as i64;
        let shift = (bits - SCALE_BITS).max(0);
        let f = v.iter().map(|x| crate::num::scaled_f64(x, shift)).collect();
        IVec { v, f }
    }
    pub fn is_zero(&self) -> bool {
        self.v.iter().all(Zero::is_zero)
    }
}

/// Independent integer rows spanning the same space as `vs` (each of
/// length `n`), fraction-free ([`crate::num::echelon::Echelon`]). Stops as
/// soon as `n` rows are found.
pub(crate) fn echelon<'a>(vs: impl IntoIterator<Item = &'a [BigInt]>, n: usize) -> Vec<Vec<BigInt>> {
    let mut e = crate::num::echelon::Echelon::default();
    for v in vs {
        e.insert(v);
        if e.rank() == n {
            break;
        }
    }
    e.into_rows()
}

/// Sign of `h·g`, filtered.
fn sign(h: &IVec, g: &IVec) -> Ordering {
    let mut s = 0.0f64;
    let mut mag = 0.0f64;
    for (a, b) in h.f.iter().zip(&g.f) {
        let t = a * b;
        s += t;
        mag += t.abs();
    }
    if mag.is_finite() {
        // Relative rounding of the products and the sum, plus the absolute
        // error of entries that underflowed (each at most 2^-1074 times a
        // factor of at most 2^SCALE_BITS).
        let bound = mag * 1e-12 + 1e-200;
        if s > bound {
            return Ordering::Greater;
        }
        if s < -bound {
            return Ordering::Less;
        }
    }
    dot(&h.v, &g.v).cmp(&BigInt::zero())
}

/// Cone generators: extreme rays, each with the set of kept constraints it
/// makes tight, and a basis of the lineality space.
#[derive(Debug, Clone)]
pub(crate) struct Cone {
    pub dim: usize,
    pub rays: Vec<IVec>,
    pub zero: Vec<ZeroSet>,
    pub lines: Vec<IVec>,
    /// Indices (caller's numbering) of the constraints that were kept.
    pub kept: Vec<usize>,
}

/// The set of kept constraints a generator makes tight, as a bitset over
/// kept-constraint positions. The adjacency test intersects two sets and
/// asks whether any third generator's set contains the result, for every
/// pair of generators on opposite sides: with a few hundred kept
/// constraints that is a handful of word operations per test, where sorted
/// lists spent their time in branchy merges (90 % of a degree-8 fit's run).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ZeroSet(Vec<u64>);

impl ZeroSet {
    /// `{0, .., n-1}`.
    fn first(n: usize) -> ZeroSet {
        let mut z = ZeroSet(vec![u64::MAX; n / 64]);
        if n % 64 != 0 {
            z.0.push((1u64 << (n % 64)) - 1);
        }
        z
    }
    fn insert(&mut self, i: usize) {
        let w = i / 64;
        if self.0.len() <= w {
            self.0.resize(w + 1, 0);
        }
        self.0[w] |= 1 << (i % 64);
    }
    fn and(&self, other: &ZeroSet) -> ZeroSet {
        ZeroSet(self.0.iter().zip(&other.0).map(|(a, b)| a & b).collect())
    }
    fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }
    fn is_subset(&self, of: &ZeroSet) -> bool {
        self.0.iter().enumerate().all(|(i, a)| a & !of.0.get(i).copied().unwrap_or(0) == 0)
    }
    /// The positions in the set, ascending.
    #[cfg(test)]
    fn positions(&self) -> Vec<usize> {
        (0..self.0.len() * 64).filter(|&i| self.0[i / 64] >> (i % 64) & 1 == 1).collect()
    }
}

impl Cone {
    /// The whole space `R^dim`.
    pub fn universe(dim: usize) -> Cone {
        let lines =
            (0..dim).map(|i| IVec::new((0..dim).map(|j| BigInt::from(u8::from(i == j))).collect())).collect();
        Cone { dim, rays: Vec::new(), zero: Vec::new(), lines, kept: Vec::new() }
    }

    /// Whether every generator satisfies `h·z <= 0` (so adding `h` changes nothing).
    pub fn implies(&self, h: &IVec) -> bool {
        self.lines.iter().all(|l| sign(h, l) == Ordering::Equal)
            && self.rays.iter().all(|r| sign(h, r) != Ordering::Greater)
    }

    /// Largest float violation `h·r / |h|` over the rays (0 when implied).
    pub fn violation(&self, h: &IVec) -> f64 {
        let hn: f64 = h.f.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-300);
        let mut worst = 0.0f64;
        for l in &self.lines {
            let s: f64 = h.f.iter().zip(&l.f).map(|(a, b)| a * b).sum();
            if s != 0.0 {
                return f64::INFINITY;
            }
        }
        for r in &self.rays {
            let rn: f64 = r.f.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-300);
            let s: f64 = h.f.iter().zip(&r.f).map(|(a, b)| a * b).sum::<f64>() / (hn * rn);
            worst = worst.max(s);
        }
        worst
    }

    /// Intersects with `h·z <= 0`; `id` is the caller's index of `h`.
    /// Returns false (and changes nothing) when `h` is implied.
    ///
    /// The work is counted against the installed [`super::budget`]; with
    /// the budget spent, `add` changes nothing and returns false.
    pub fn add(&mut self, h: &IVec, id: usize) -> bool {
        if h.is_zero() || super::budget::spent() {
            return false;
        }
        let k = self.kept.len();
        // A line not orthogonal to h: pivot it out, it becomes a ray.
        if let Some(li) = self.lines.iter().position(|l| sign(h, l) != Ordering::Equal) {
            let l = self.lines.swap_remove(li);
            let hl = dot(&h.v, &l.v);
            let fix = |g: &IVec| -> IVec {
                let hg = dot(&h.v, &g.v);
                if hg.is_zero() {
                    return g.clone();
                }
                // g' = hl*g - hg*l  (h·g' = 0); keep orientation of g when hl > 0.
                let s = if hl.is_positive() { BigInt::from(1) } else { BigInt::from(-1) };
                IVec::new(g.v.iter().zip(&l.v).map(|(a, b)| &s * (&hl * a - &hg * b)).collect())
            };
            self.lines = self.lines.iter().map(fix).collect();
            self.rays = self.rays.iter().map(fix).collect();
            for z in self.zero.iter_mut() {
                z.insert(k);
            }
            let newray = if hl.is_positive() { IVec::new(l.v.iter().map(|x| -x).collect()) } else { l };
            // The old line was tight at every kept constraint, so is the new ray.
            let z = ZeroSet::first(k);
            self.rays.push(newray);
            self.zero.push(z);
            self.kept.push(id);
            return true;
        }
        // A sign test per generator; then a zero-set intersection per pair
        // of opposite generators; the budget sees each before it is done.
        let zwords = (self.kept.len() / 64 + 1) as u64;
        if !super::budget::charge((self.rays.len() * self.dim) as u64) {
            return false;
        }
        let signs: Vec<Ordering> = self.rays.iter().map(|r| sign(h, r)).collect();
        if !signs.contains(&Ordering::Greater) {
            return false;
        }
        let d = self.dim - self.lines.len();
        let mut new_rays = Vec::new();
        let mut new_zero = Vec::new();
        let pos: Vec<usize> = (0..self.rays.len()).filter(|&i| signs[i] == Ordering::Greater).collect();
        let neg: Vec<usize> = (0..self.rays.len()).filter(|&i| signs[i] == Ordering::Less).collect();
        if !super::budget::charge((pos.len() * neg.len()) as u64 * zwords) {
            return false;
        }
        let hw = h.v.iter().map(|x| super::budget::words(x.bits())).max().unwrap_or(1);
        for &p in &pos {
            // The adjacency scans and new rays of this generator, counted
            // before they are made: a spent budget leaves the cone as it was.
            let mut work = 0u64;
            for &q in &neg {
                let common = self.zero[p].and(&self.zero[q]);
                if common.len() + 2 < d {
                    continue;
                }
                work += self.rays.len() as u64 * zwords;
                let adjacent =
                    (0..self.rays.len()).all(|r| r == p || r == q || !common.is_subset(&self.zero[r]));
                if !adjacent {
                    continue;
                }
                let rw = super::budget::words(
                    self.rays[p].v.iter().chain(&self.rays[q].v).map(|x| x.bits()).max().unwrap_or(0),
                );
                // Two products per entry, and the gcd that makes the new
                // ray primitive (quadratic in its length).
                work += self.dim as u64 * (2 * hw * rw + (hw + rw) * (hw + rw));
                let hp = dot(&h.v, &self.rays[p].v);
                let hq = dot(&h.v, &self.rays[q].v);
                let v: Vec<BigInt> =
                    self.rays[q].v.iter().zip(&self.rays[p].v).map(|(a, b)| &hp * a - &hq * b).collect();
                let mut z = common;
                z.insert(k);
                new_rays.push(IVec::new(v));
                new_zero.push(z);
            }
            if !super::budget::charge(work) {
                return false;
            }
        }
        let mut rays = Vec::new();
        let mut zero = Vec::new();
        for (i, sign) in signs.iter().enumerate() {
            match sign {
                Ordering::Greater => {}
                Ordering::Equal => {
                    let mut z = self.zero[i].clone();
                    z.insert(k);
                    rays.push(self.rays[i].clone());
                    zero.push(z);
                }
                Ordering::Less => {
                    rays.push(self.rays[i].clone());
                    zero.push(self.zero[i].clone());
                }
            }
        }
        rays.extend(new_rays);
        zero.extend(new_zero);
        self.rays = rays;
        self.zero = zero;
        self.kept.push(id);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::Rat;

    fn iv(v: &[i64]) -> IVec {
        IVec::new(v.iter().map(|&x| BigInt::from(x)).collect())
    }

    proptest::proptest! {
        /// The fraction-free rank test agrees with exact rational
        /// elimination (`simplex::null_space`), on rows with repeated and
        /// dependent vectors and long entries.
        #[test]
        fn echelon_agrees_with_rational_rank(
            rows in proptest::collection::vec(proptest::collection::vec(-4i64..5, 4), 0..7),
            scale in 0u32..120,
            dependent in proptest::bool::ANY,
        ) {
            let big = BigInt::from(7).pow(scale) + 1;
            let mut vs: Vec<Vec<BigInt>> =
                rows.iter().map(|r| r.iter().map(|&x| BigInt::from(x) * &big + x).collect()).collect();
            if dependent && vs.len() >= 2 {
                let sum: Vec<BigInt> = vs[0].iter().zip(&vs[1]).map(|(a, b)| a * 3 - b * 2).collect();
                vs.push(sum);
            }
            let rat_rows: Vec<crate::lp::simplex::Row> = vs
                .iter()
                .map(|v| crate::lp::simplex::row_of(v.iter().map(|x| Rat::from_integer(x.clone())).collect(), Rat::zero(), true))
                .collect();
            let full = crate::lp::simplex::null_space(&rat_rows, 4).is_empty();
            let basis = echelon(vs.iter().map(|v| v.as_slice()), 4);
            proptest::prop_assert_eq!(basis.len() == 4, full);
            // The echelon rows span the same space: adding them to the input changes no rank.
            let both: Vec<crate::lp::simplex::Row> = rat_rows
                .iter()
                .cloned()
                .chain(basis.iter().map(|v| crate::lp::simplex::row_of(v.iter().map(|x| Rat::from_integer(x.clone())).collect(), Rat::zero(), true)))
                .collect();
            let just: Vec<crate::lp::simplex::Row> = basis.iter().map(|v| crate::lp::simplex::row_of(v.iter().map(|x| Rat::from_integer(x.clone())).collect(), Rat::zero(), true)).collect();
            proptest::prop_assert_eq!(crate::lp::simplex::null_space(&both, 4).len(), crate::lp::simplex::null_space(&rat_rows, 4).len());
            proptest::prop_assert_eq!(crate::lp::simplex::null_space(&just, 4).len(), crate::lp::simplex::null_space(&rat_rows, 4).len());
        }
    }

    #[test]
    fn zero_sets_across_words() {
        let mut a = ZeroSet::first(70);
        assert_eq!(a.len(), 70);
        assert_eq!(a.positions(), (0..70).collect::<Vec<_>>());
        a.insert(130);
        let mut b = ZeroSet::default();
        for i in [3, 64, 69, 130, 200] {
            b.insert(i);
        }
        let c = a.and(&b);
        assert_eq!(c.positions(), vec![3, 64, 69, 130]);
        assert!(c.is_subset(&a) && c.is_subset(&b));
        assert!(!b.is_subset(&a));
        assert!(ZeroSet::default().is_subset(&ZeroSet::default()));
        assert!(!ZeroSet::first(1).is_subset(&ZeroSet::default()));
    }

    #[test]
    fn square_has_four_vertices() {
        // x <= 1, -x <= 1, y <= 1, -y <= 1, t >= 0 in homogeneous form (x, y, t).
        let mut c = Cone::universe(3);
        c.add(&iv(&[0, 0, -1]), 0);
        for (i, h) in [[1, 0, -1], [-1, 0, -1], [0, 1, -1], [0, -1, -1]].iter().enumerate() {
            assert!(c.add(&iv(h), i + 1));
        }
        assert!(c.lines.is_empty());
        assert_eq!(c.rays.len(), 4);
        assert!(c.rays.iter().all(|r| r.v[2] == BigInt::from(1)));
        // An implied constraint is skipped.
        assert!(!c.add(&iv(&[1, 1, -3]), 9));
    }
}
