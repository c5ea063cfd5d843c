//! The certified floating-point filter: float copies of the rows and sign
//! tests whose float verdict is trusted only outside a rigorous error bound;
//! inside it the sign is computed exactly. The answers are exact, only
//! faster (as in CGAL's filtered kernels).

/// One row, as the simplex names it.
type Row = crate::linear::Constraint;
use crate::num::{to_f64, Rat};
use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};
use std::cmp::Ordering;
use std::sync::OnceLock;

/// Float copies of a row set, converted once per problem, and its integer
/// copies ([`IntRow`]), converted when the exact simplex first touches a row.
#[derive(Debug, Clone, Default)]
pub(crate) struct FloatRows {
    pub a: Vec<Vec<f64>>,
    pub b: Vec<f64>,
    /// Σ|a_ij| + |b_i|, for relative tolerances.
    pub scale: Vec<f64>,
    /// Lazily: the simplex reads few of many rows, and every LP over the
    /// same prepared rows shares the conversions.
    int: Vec<OnceLock<IntRow>>,
}

/// A row `a·x <= b` scaled by the positive integer `s` (the lcm of its
/// denominators) to integers: the fraction-free simplex pivots on these.
#[derive(Debug, Clone)]
pub(crate) struct IntRow {
    pub a: Vec<BigInt>,
    pub b: BigInt,
    pub s: BigInt,
}

impl IntRow {
    pub fn of(row: &Row) -> IntRow {
        let s = crate::num::lcm_denoms(row.a.iter().chain(std::iter::once(&row.b)));
        let int = |x: &Rat| if x.denom().is_one() { x.numer() * &s } else { x.numer() * (&s / x.denom()) };
        IntRow { a: row.a.iter().map(int).collect(), b: int(&row.b), s }
    }
}

impl FloatRows {
    pub fn new(rows: &[Row]) -> Self {
        let mut fr = FloatRows::default();
        for r in rows {
            fr.push(r);
        }
        fr
    }

    /// Appends the float copy of one row.
    pub fn push(&mut self, r: &Row) {
        let a: Vec<f64> = r.a.iter().map(to_f64).collect();
        let b = to_f64(&r.b);
        self.scale.push(a.iter().map(|v| v.abs()).sum::<f64>() + b.abs());
        self.a.push(a);
        self.b.push(b);
        self.int.push(OnceLock::new());
    }

    /// Appends row `i` of `other` (already converted).
    pub fn push_from(&mut self, other: &FloatRows, i: usize) {
        self.a.push(other.a[i].clone());
        self.b.push(other.b[i]);
        self.scale.push(other.scale[i]);
        self.int.push(other.int[i].clone());
    }

    /// The integer copy of row `i` (which is `row`).
    pub fn int(&self, i: usize, row: &Row) -> &IntRow {
        self.int[i].get_or_init(|| IntRow::of(row))
    }
}

/// Sign of `b_i - a_i·x` (`rhs`), or of `a_i·x` (not `rhs`, for directions),
/// with the float value used for ranking. `xf` is the float view of `x`.
pub(crate) fn slack_sign(
    row: &Row,
    fr: &FloatRows,
    i: usize,
    x: &[Rat],
    xf: &[f64],
    rhs: bool,
) -> (Ordering, f64) {
    let fb = if rhs { fr.b[i] } else { 0.0 };
    let mut s = fb;
    let mut mag = fb.abs();
    for (a, v) in fr.a[i].iter().zip(xf) {
        let t = a * v;
        s -= t;
        mag += t.abs();
    }
    if !rhs {
        s = -s;
    }
    // Conversions are within 2 ulps and the sum adds at most n+1 roundings:
    // 1e-12 relative is orders of magnitude above the worst case. A NaN or
    // infinite value fails both tests and goes to the exact branch.
    let bound = mag * 1e-12 + 1e-300;
    if s > bound {
        return (Ordering::Greater, s);
    }
    if s < -bound {
        return (Ordering::Less, s);
    }
    (exact_sign(row, x, rhs), s)
}

/// The sign of `b − a·x` (`rhs`) or `a·x`, in integers over one growing
/// denominator: no gcd at all, where num-rational's operators reduce every
/// product and sum with binary gcds (the most of an LP over 4 000-digit
/// measurements).
fn exact_sign(row: &Row, x: &[Rat], rhs: bool) -> Ordering {
    use num_bigint::BigInt;
    let (mut n, mut d) =
        if rhs { (row.b.numer().clone(), row.b.denom().clone()) } else { (BigInt::zero(), BigInt::one()) };
    for (p, q) in row.a.iter().zip(x) {
        if p.is_zero() || q.is_zero() {
            continue;
        }
        let (tn, td) = (p.numer() * q.numer(), p.denom() * q.denom());
        n = if rhs { &n * &td - tn * &d } else { &n * &td + tn * &d };
        d *= td;
    }
    n.sign().cmp(&num_bigint::Sign::NoSign)
}

/// Whether `x` satisfies every row (strict rows as their closure) outside
/// `skip` (rows tight by construction).
pub(crate) fn all_satisfied(rows: &[Row], fr: &FloatRows, x: &[Rat], skip: &[usize]) -> bool {
    let xf: Vec<f64> = x.iter().map(to_f64).collect();
    rows.iter().enumerate().all(|(i, row)| {
        if skip.contains(&i) {
            return true;
        }
        match slack_sign(row, fr, i, x, &xf, true).0 {
            Ordering::Less => false,
            Ordering::Equal => true,
            Ordering::Greater => !row.is_eq(),
        }
    })
}
