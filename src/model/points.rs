//! Sets of prediction points (`--at p=1..1000000`, `p=64,128 n=1000`) kept
//! as the ranges and lists they were written as, and enumerated on demand.
//!
//! A million points as values would take about 130 bytes each before any
//! band is computed; a range is three numbers. Points come out in the order
//! the arguments give them (for several variables the last varies
//! fastest), each at its first occurrence only: a point repeated within an
//! argument, given by an earlier argument, or excluded (the model's own
//! `predict` points) is skipped. Membership is arithmetic for a range and a
//! hash lookup for a list, so skipping repeats holds nothing per point.

use super::compile::VarBox;
use crate::num::Rat;
use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};
use std::collections::{HashMap, HashSet};

/// One piece of a variable's values: an arithmetic range or a list.
#[derive(Debug, Clone)]
enum Piece {
    /// `start + i·step` for `i < count` (`step > 0`).
    Range { start: Rat, step: Rat, count: usize, ints: Option<(BigInt, BigInt)> },
    /// Values as given (single values, geometric ranges).
    List(Vec<Rat>),
}

impl Piece {
    fn len(&self) -> usize {
        match self {
            Piece::Range { count, .. } => *count,
            Piece::List(v) => v.len(),
        }
    }

    fn get(&self, i: usize) -> Rat {
        match self {
            Piece::Range { ints: Some((s, d)), .. } => Rat::from_integer(s + d * BigInt::from(i)),
            Piece::Range { start, step, .. } => start + step * Rat::from_integer(BigInt::from(i)),
            Piece::List(v) => v[i].clone(),
        }
    }

    /// The least and greatest value, and a bound on any value's bits.
    fn bounds(&self) -> Option<VarBox> {
        match self {
            Piece::Range { start, step, count, ints } => {
                let last = start + step * Rat::from_integer(BigInt::from(count.checked_sub(1)?));
                let bits = match ints {
                    // An integer has its own bits and a denominator of one bit.
                    Some(_) => start.numer().bits().max(last.numer().bits()) + 1,
                    // start + i·step = (a·d + i·c·b)/(b·d) for start = a/b and
                    // step = c/d: a denominator dividing b·d and a numerator
                    // of at most |value|·b·d.
                    None => {
                        let bd = start.denom() * step.denom();
                        let top = start.abs().max(last.abs()).ceil().to_integer();
                        (top * &bd).bits() + bd.bits()
                    }
                };
                Some(VarBox { lo: start.clone(), hi: last, bits })
            }
            Piece::List(v) => Some(VarBox {
                lo: v.iter().min()?.clone(),
                hi: v.iter().max()?.clone(),
                bits: v.iter().map(crate::num::bits_of).max()?,
            }),
        }
    }

    /// The position of `v` in a range (ranges hold each value once).
    fn range_index(&self, v: &Rat) -> Option<usize> {
        match self {
            Piece::Range { start, step, count, .. } => {
                let q = (v - start) / step;
                if !q.is_integer() || q < Rat::zero() {
                    return None;
                }
                q.to_integer().to_usize().filter(|&i| i < *count)
            }
            Piece::List(_) => None,
        }
    }
}

/// The values one variable takes in one argument, in order (repeats kept,
/// as the user wrote them).
#[derive(Debug, Clone, Default)]
pub struct Values {
    pieces: Vec<Piece>,
    /// Start of each piece in the whole sequence.
    offsets: Vec<usize>,
    len: usize,
    /// First position of each value that lists give.
    listed: HashMap<Rat, usize>,
    /// True when no value repeats (one range, or one list without repeats).
    distinct: bool,
}

impl Values {
    /// An empty sequence, extended piece by piece.
    pub(crate) fn new() -> Values {
        Values { distinct: true, ..Values::default() }
    }

    /// Appends `count` values `start + i·step` (`step > 0`).
    pub(crate) fn push_range(&mut self, start: Rat, step: Rat, count: usize) {
        if count == 0 {
            return;
        }
        let ints = (start.is_integer() && step.is_integer()).then(|| (start.to_integer(), step.to_integer()));
        self.distinct = self.pieces.is_empty();
        self.push(Piece::Range { start, step, count, ints });
    }

    /// Appends one value.
    pub(crate) fn push_value(&mut self, v: Rat) {
        let at = self.len;
        let fresh = self.index_of(&v).is_none();
        self.distinct &= fresh && !self.pieces.iter().any(|p| matches!(p, Piece::Range { .. }));
        self.listed.entry(v.clone()).or_insert(at);
        match self.pieces.last_mut() {
            Some(Piece::List(l)) => {
                l.push(v);
                self.len += 1;
            }
            _ => self.push(Piece::List(vec![v])),
        }
    }

    fn push(&mut self, p: Piece) {
        self.offsets.push(self.len);
        self.len += p.len();
        self.pieces.push(p);
    }

    /// How many values (repeats counted).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The value at position `i < len()`.
    pub fn get(&self, i: usize) -> Rat {
        let k = self.offsets.partition_point(|&o| o <= i) - 1;
        self.pieces[k].get(i - self.offsets[k])
    }

    /// The first position of `v`, if it is one of the values.
    pub fn index_of(&self, v: &Rat) -> Option<usize> {
        let ranged = self.pieces.iter().zip(&self.offsets).find_map(|(p, o)| Some(o + p.range_index(v)?));
        match (ranged, self.listed.get(v).copied()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The box of the values (`None` when there are none).
    fn bounds(&self) -> Option<VarBox> {
        self.pieces.iter().map(Piece::bounds).reduce(|a, b| Some(a?.hull(b?)))?
    }

    /// Every value, in order.
    pub fn to_vec(&self) -> Vec<Rat> {
        (0..self.len).map(|i| self.get(i)).collect()
    }
}

/// The points of one argument: the product of its variables' values.
#[derive(Debug, Clone)]
pub struct Product {
    values: Vec<Values>,
    len: usize,
}

impl Product {
    /// The product of `values` (one per variable, in the model's order);
    /// `len` is the product of their lengths, checked by the caller.
    pub(crate) fn new(values: Vec<Values>, len: usize) -> Product {
        Product { values, len }
    }

    /// How many points (repeats counted).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The per-variable positions of point `k` (the last variable fastest).
    fn indices(&self, mut k: usize) -> Vec<usize> {
        let mut idx = vec![0; self.values.len()];
        for (j, v) in self.values.iter().enumerate().rev() {
            idx[j] = k % v.len();
            k /= v.len();
        }
        idx
    }

    fn contains(&self, x: &[Rat]) -> bool {
        self.values.iter().zip(x).all(|(v, x)| v.index_of(x).is_some())
    }

    /// True when point `idx` is the first occurrence of its values here.
    fn first(&self, idx: &[usize], x: &[Rat]) -> bool {
        self.values.iter().zip(idx).zip(x).all(|((v, &i), x)| v.distinct || v.index_of(x) == Some(i))
    }
}

/// Prediction points as written: products of ranges and lists, enumerated
/// in order with repeats (and excluded points) skipped.
#[derive(Debug, Clone, Default)]
pub struct PointSet {
    products: Vec<Product>,
    exclude: HashSet<crate::num::Point<Vec<Rat>>>,
}

impl PointSet {
    /// The points of `products`, in order.
    pub(crate) fn new(products: Vec<Product>) -> PointSet {
        PointSet { products, exclude: HashSet::new() }
    }

    /// The same set without `points` (a model's own prediction points,
    /// which an analysis lists first).
    pub fn excluding(mut self, points: &[Vec<Rat>]) -> PointSet {
        self.exclude.extend(points.iter().cloned().map(crate::num::Point));
        self
    }

    /// An upper bound on the number of points (repeats counted).
    pub fn len_bound(&self) -> usize {
        self.products.iter().map(Product::len).sum()
    }

    /// True when no argument gives a point.
    pub fn is_empty(&self) -> bool {
        self.len_bound() == 0
    }

    /// The points, each once, in order.
    pub fn iter(&self) -> impl Iterator<Item = Vec<Rat>> + '_ {
        self.products.iter().enumerate().flat_map(move |(a, prod)| {
            (0..prod.len).filter_map(move |k| {
                let idx = prod.indices(k);
                let x: Vec<Rat> = prod.values.iter().zip(&idx).map(|(v, &i)| v.get(i)).collect();
                if !prod.first(&idx, &x) || self.products[..a].iter().any(|p| p.contains(&x)) {
                    return None;
                }
                let key = crate::num::Point(x);
                (!self.exclude.contains(&key)).then_some(key.0)
            })
        })
    }

    /// Per variable, the box every point lies in (`None` when there are no
    /// points): what [`crate::model::Model::evaluable_within`] decides on.
    pub(crate) fn bounds(&self) -> Option<Vec<VarBox>> {
        let mut out: Option<Vec<VarBox>> = None;
        for prod in self.products.iter().filter(|p| p.len > 0) {
            let b: Vec<VarBox> = prod.values.iter().map(Values::bounds).collect::<Option<_>>()?;
            out = Some(match out {
                None => b,
                Some(o) => o.into_iter().zip(b).map(|(x, y)| x.hull(y)).collect(),
            });
        }
        out
    }

    /// The points, each once, in order, as a list.
    pub fn to_vec(&self) -> Vec<Vec<Rat>> {
        self.iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(n: i64) -> Rat {
        Rat::from_integer(n.into())
    }

    fn range(a: i64, step: i64, count: usize) -> Values {
        let mut v = Values::new();
        v.push_range(r(a), r(step), count);
        v
    }

    fn list(xs: &[i64]) -> Values {
        let mut v = Values::new();
        for &x in xs {
            v.push_value(r(x));
        }
        v
    }

    fn product(vs: Vec<Values>) -> Product {
        let n = vs.iter().map(Values::len).product();
        Product::new(vs, n)
    }

    /// The reference: every point in order, then first occurrences.
    fn naive(set: &[Vec<Vec<Rat>>], exclude: &[Vec<Rat>]) -> Vec<Vec<Rat>> {
        let mut out: Vec<Vec<Rat>> = Vec::new();
        for arg in set {
            let mut pts: Vec<Vec<Rat>> = vec![vec![]];
            for l in arg {
                pts = pts
                    .iter()
                    .flat_map(|p| l.iter().map(move |v| [p.clone(), vec![v.clone()]].concat()))
                    .collect();
            }
            for p in pts {
                if !out.contains(&p) && !exclude.contains(&p) {
                    out.push(p);
                }
            }
        }
        out
    }

    proptest::proptest! {
        /// Every point of a set lies in its box, within its bits: ranges of
        /// integers and of fractions, lists, several arguments.
        #[test]
        fn every_point_lies_in_the_box(
            pieces in proptest::collection::vec(((-500i64..500, 1i64..9), (1i64..40, 1i64..9), 1usize..30, proptest::bool::ANY), 1..4),
            listed in proptest::collection::vec((-10_000i64..10_000, 1i64..1000), 0..5),
        ) {
            let q = |(n, d): (i64, i64)| Rat::new(n.into(), d.into());
            let mut x = Values::new();
            for &(start, step, count, as_list) in &pieces {
                if as_list {
                    for i in 0..count as i64 {
                        x.push_value(q(start) + q(step) * r(i));
                    }
                } else {
                    x.push_range(q(start), q(step), count);
                }
            }
            let mut y = Values::new();
            for &v in &listed {
                y.push_value(q(v));
            }
            let mut args = vec![product(vec![x.clone(), list(&[1])])];
            if !y.is_empty() {
                args.push(product(vec![list(&[0]), y]));
            }
            let set = PointSet::new(args);
            let b = set.bounds().unwrap();
            for p in set.iter() {
                for (v, b) in p.iter().zip(&b) {
                    proptest::prop_assert!(&b.lo <= v && v <= &b.hi, "{v} outside [{}, {}]", b.lo, b.hi);
                    proptest::prop_assert!(crate::num::bits_of(v) <= b.bits, "{v}: more than {} bits", b.bits);
                }
            }
        }
    }

    #[test]
    fn an_empty_set_has_no_box() {
        assert!(PointSet::new(vec![]).bounds().is_none());
        assert!(PointSet::new(vec![product(vec![Values::new()])]).bounds().is_none());
        let b = PointSet::new(vec![product(vec![range(1, 1, 1_000_000)])]).bounds().unwrap();
        assert_eq!((b[0].lo.clone(), b[0].hi.clone(), b[0].bits), (r(1), r(1_000_000), 21));
    }

    #[test]
    fn points_come_in_order_once_each_as_the_naive_product_gives_them() {
        let a = vec![range(1, 2, 5), list(&[7, 3, 7])];
        let b = vec![list(&[3, 4]), range(3, 4, 3)];
        let mut mixed = range(1, 1, 4);
        mixed.push_value(r(2));
        mixed.push_range(r(3), r(1), 3);
        let c = vec![mixed.clone(), list(&[3])];
        let exclude = vec![vec![r(5), r(3)]];
        let set = PointSet::new(vec![product(a.clone()), product(b.clone()), product(c.clone())])
            .excluding(&exclude);
        let reference = naive(&[a, b, c].map(|p| p.iter().map(Values::to_vec).collect::<Vec<_>>()), &exclude);
        assert_eq!(set.to_vec(), reference);
        assert_eq!(mixed.to_vec(), [1, 2, 3, 4, 2, 3, 4, 5].map(r));
        assert_eq!(mixed.index_of(&r(5)), Some(7));
        assert_eq!(mixed.index_of(&r(2)), Some(1));
        assert_eq!(mixed.index_of(&r(6)), None);
    }

    #[test]
    fn fractional_ranges_hold_exact_steps() {
        let mut v = Values::new();
        v.push_range(Rat::new(1.into(), 3.into()), Rat::new(1.into(), 6.into()), 4);
        assert_eq!(v.get(3), Rat::new(5.into(), 6.into()));
        assert_eq!(v.index_of(&Rat::new(2.into(), 3.into())), Some(2));
        assert_eq!(v.index_of(&Rat::new(1.into(), 4.into())), None);
    }
}
