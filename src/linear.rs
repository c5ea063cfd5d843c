//! The one linear-form type shared by the LP solver, the polyhedra code, the
//! QE engine and (later) fitting and bands.
//!
//! Variables are dense indices `0..n` into a [`VarTable`]; the problems errband
//! meets have a handful of variables and many constraints, so dense
//! coefficient vectors are both the simplest and the fastest choice.

use crate::num::{NumFormat, Rat};
use num_traits::{One, Signed, Zero};
use serde::Serialize;

/// Index of a variable in a [`VarTable`].
pub type VarId = usize;

/// Names of the variables of a problem, in index order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct VarTable {
    names: Vec<String>,
}

impl VarTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }
    /// A table holding these names in this order.
    pub fn from_names<S: Into<String>>(names: impl IntoIterator<Item = S>) -> Self {
        VarTable { names: names.into_iter().map(Into::into).collect() }
    }
    /// Index of `name`, adding it when new.
    pub fn intern(&mut self, name: &str) -> VarId {
        match self.lookup(name) {
            Some(i) => i,
            None => {
                self.names.push(name.to_string());
                self.names.len() - 1
            }
        }
    }
    /// Index of `name`, if present.
    pub fn lookup(&self, name: &str) -> Option<VarId> {
        self.names.iter().position(|n| n == name)
    }
    /// Name of variable `v`.
    pub fn name(&self, v: VarId) -> &str {
        &self.names[v]
    }
    /// Number of variables.
    pub fn len(&self) -> usize {
        self.names.len()
    }
    /// True when there are no variables.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
    /// All names in index order.
    pub fn names(&self) -> &[String] {
        &self.names
    }
}

/// An affine form `Σ coeffs[j]·x_j + constant` over `coeffs.len()` variables.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LinExpr {
    /// Coefficient of each variable (dense).
    pub coeffs: Vec<Rat>,
    /// The constant term.
    pub constant: Rat,
}

impl LinExpr {
    /// The zero form over `n` variables.
    pub fn zero(n: usize) -> Self {
        LinExpr { coeffs: vec![Rat::zero(); n], constant: Rat::zero() }
    }
    /// The constant `c` over `n` variables.
    pub fn constant(n: usize, c: Rat) -> Self {
        LinExpr { coeffs: vec![Rat::zero(); n], constant: c }
    }
    /// The variable `v` over `n` variables.
    pub fn var(n: usize, v: VarId) -> Self {
        let mut e = Self::zero(n);
        e.coeffs[v] = Rat::one();
        e
    }
    /// Number of variables the form is defined over.
    pub fn dim(&self) -> usize {
        self.coeffs.len()
    }
    /// True when no variable has a non-zero coefficient.
    pub fn is_constant(&self) -> bool {
        self.coeffs.iter().all(Zero::is_zero)
    }
    /// Extends the form to `n >= dim()` variables.
    pub fn resized(mut self, n: usize) -> Self {
        self.coeffs.resize(n, Rat::zero());
        self
    }
    /// `self + other`.
    pub fn add(&self, other: &LinExpr) -> LinExpr {
        let n = self.dim().max(other.dim());
        let mut out = self.clone().resized(n);
        for (o, c) in out.coeffs.iter_mut().zip(&other.coeffs) {
            *o += c;
        }
        out.constant += &other.constant;
        out
    }
    /// `self - other`.
    pub fn sub(&self, other: &LinExpr) -> LinExpr {
        self.add(&other.negated())
    }
    /// `−self` (negation needs no reduction).
    pub fn negated(&self) -> LinExpr {
        LinExpr { coeffs: self.coeffs.iter().map(|c| -c).collect(), constant: -&self.constant }
    }
    /// `k·self`.
    pub fn scale(&self, k: &Rat) -> LinExpr {
        LinExpr { coeffs: self.coeffs.iter().map(|c| c * k).collect(), constant: &self.constant * k }
    }
    /// Value at the point `x` (one value per variable).
    pub fn eval(&self, x: &[Rat]) -> Rat {
        let mut s = self.constant.clone();
        for (c, v) in self.coeffs.iter().zip(x) {
            if !c.is_zero() {
                s += c * v;
            }
        }
        s
    }
    /// Replaces variable `v` by the form `by` (which must not contain `v`).
    pub fn substitute(&self, v: VarId, by: &LinExpr) -> LinExpr {
        let k = self.coeffs[v].clone();
        if k.is_zero() {
            return self.clone();
        }
        let mut out = self.clone();
        out.coeffs[v] = Rat::zero();
        out.add(&by.scale(&k))
    }
    /// Human-readable text: `dc1 + 2401*dc2 - 0.000754866`.
    pub fn show(&self, vars: &VarTable, fmt: NumFormat) -> String {
        show_terms(&self.coeffs, Some(&self.constant), vars, fmt)
    }
}

/// Writes `Σ c_j x_j (+ constant)` with signs folded into the operators.
pub fn show_terms(coeffs: &[Rat], constant: Option<&Rat>, vars: &VarTable, fmt: NumFormat) -> String {
    let mut out = String::new();
    for (j, c) in coeffs.iter().enumerate() {
        if c.is_zero() {
            continue;
        }
        let neg = c.is_negative();
        let mag = c.abs();
        if out.is_empty() {
            if neg {
                out.push('-');
            }
        } else {
            out.push_str(if neg { " - " } else { " + " });
        }
        if !mag.is_one() {
            out.push_str(&fmt.show(&mag));
            out.push('*');
        }
        out.push_str(vars.name(j));
    }
    if let Some(k) = constant {
        if !k.is_zero() || out.is_empty() {
            if out.is_empty() {
                out.push_str(&fmt.show(k));
            } else {
                out.push_str(if k.is_negative() { " - " } else { " + " });
                out.push_str(&fmt.show(&k.abs()));
            }
        }
    }
    out
}

/// The relation of a normalised constraint `a·x REL b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Kind {
    /// `a·x <= b`
    Le,
    /// `a·x < b`
    Lt,
    /// `a·x = b`
    Eq,
}

impl Kind {
    /// The operator text.
    pub fn symbol(self) -> &'static str {
        match self {
            Kind::Le => "<=",
            Kind::Lt => "<",
            Kind::Eq => "=",
        }
    }
}

/// A linear constraint `a·x REL b` with `REL` one of `<=`, `<`, `=`.
/// `>=` and `>` are stored negated, so every consumer sees three kinds only.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Constraint {
    /// Coefficients (dense, one per variable).
    pub a: Vec<Rat>,
    /// Right-hand side.
    pub b: Rat,
    /// Relation.
    pub kind: Kind,
}

impl Constraint {
    /// `a·x REL b`.
    pub fn new(a: Vec<Rat>, kind: Kind, b: Rat) -> Self {
        Constraint { a, b, kind }
    }
    /// `lhs REL rhs` for two affine forms.
    pub fn from_forms(lhs: &LinExpr, kind: Kind, rhs: &LinExpr) -> Self {
        let d = lhs.sub(rhs);
        Constraint { a: d.coeffs, b: -d.constant, kind }
    }
    /// `lhs >= rhs`, stored as `rhs - lhs <= 0`.
    pub fn ge(lhs: &LinExpr, rhs: &LinExpr) -> Self {
        Self::from_forms(rhs, Kind::Le, lhs)
    }
    /// Number of variables.
    pub fn dim(&self) -> usize {
        self.a.len()
    }
    /// True for an equality.
    pub fn is_eq(&self) -> bool {
        self.kind == Kind::Eq
    }
    /// The constraints whose disjunction is the negation of this one:
    /// `not (a·x <= b)` is `-a·x < -b`; `not (a·x = b)` is `a·x < b` or `-a·x < -b`.
    pub fn negated(&self) -> Vec<Constraint> {
        let neg: Vec<Rat> = self.a.iter().map(|v| -v).collect();
        match self.kind {
            Kind::Le => vec![Constraint::new(neg, Kind::Lt, -self.b.clone())],
            Kind::Lt => vec![Constraint::new(neg, Kind::Le, -self.b.clone())],
            Kind::Eq => vec![
                Constraint::new(self.a.clone(), Kind::Lt, self.b.clone()),
                Constraint::new(neg, Kind::Lt, -self.b.clone()),
            ],
        }
    }
    /// True when every coefficient is zero: the constraint is `0 REL b`.
    pub fn is_trivial(&self) -> bool {
        self.a.iter().all(Zero::is_zero)
    }
    /// Truth value of a constraint with no variables (`0 REL b`).
    pub fn trivial_truth(&self) -> bool {
        match self.kind {
            Kind::Le => !self.b.is_negative(),
            Kind::Lt => self.b.is_positive(),
            Kind::Eq => self.b.is_zero(),
        }
    }
    /// `a·x`.
    pub fn lhs(&self, x: &[Rat]) -> Rat {
        let mut s = Rat::zero();
        for (c, v) in self.a.iter().zip(x) {
            if !c.is_zero() {
                s += c * v;
            }
        }
        s
    }
    /// Whether the point `x` satisfies the constraint, exactly.
    pub fn holds_at(&self, x: &[Rat]) -> bool {
        let l = self.lhs(x);
        match self.kind {
            Kind::Le => l <= self.b,
            Kind::Lt => l < self.b,
            Kind::Eq => l == self.b,
        }
    }
    /// Divides by the positive factor that makes the coefficients coprime
    /// integers, so equal half-spaces compare equal.
    pub fn normalized(&self) -> Constraint {
        // Scaled by den/g: the coefficients become the integers ints/g and
        // only the right-hand side needs a reduction.
        let den = crate::num::lcm_denoms(self.a.iter().chain(std::iter::once(&self.b)));
        let Some((a, g)) = primitive_over(&self.a, &den) else {
            return self.clone();
        };
        let b = crate::num::reduced(self.b.numer() * (&den / self.b.denom()), g);
        Constraint { a, b, kind: self.kind }
    }
    /// Text form `dc1 + 2401*dc2 <= 0.000754866`.
    pub fn show(&self, vars: &VarTable, fmt: NumFormat) -> String {
        let lhs = show_terms(&self.a, None, vars, fmt);
        let lhs = if lhs.is_empty() { "0".to_string() } else { lhs };
        format!("{} {} {}", lhs, self.kind.symbol(), fmt.show(&self.b))
    }
    /// Exact text form, for debugging and tests.
    pub fn show_exact(&self, vars: &VarTable) -> String {
        self.show(vars, NumFormat::Exact)
    }
}

/// The coprime integers `a·den/g` and their scale's divisor `g` (the gcd
/// of `a·den`), for `den` a common multiple of `a`'s denominators: the
/// primitive row of `a` is `a·(den/g)`, whatever `den` is. `None` for a
/// zero row. [`Constraint::normalized`] and the closed-form facets of a
/// square design's region share it.
pub(crate) fn primitive_over(a: &[Rat], den: &num_bigint::BigInt) -> Option<(Vec<Rat>, num_bigint::BigInt)> {
    let ints: Vec<num_bigint::BigInt> = a.iter().map(|c| c.numer() * (den / c.denom())).collect();
    let mut g = num_bigint::BigInt::zero();
    for i in &ints {
        g = crate::num::gcd(&g, i);
        if g.is_one() {
            break;
        }
    }
    if g.is_zero() {
        return None;
    }
    let row = ints.into_iter().map(|i| Rat::from_integer(i / &g)).collect();
    Some((row, g))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::{frac, int};

    #[test]
    fn forms_combine_and_print() {
        let vars = VarTable::from_names(["x", "y"]);
        let x = LinExpr::var(2, 0);
        let y = LinExpr::var(2, 1);
        let e = x.scale(&int(2)).sub(&y).add(&LinExpr::constant(2, frac(-1, 2)));
        assert_eq!(e.show(&vars, NumFormat::Exact), "2*x - y - 1/2");
        assert_eq!(e.eval(&[int(1), int(1)]), frac(1, 2));
        let c = Constraint::ge(&x, &y);
        assert_eq!(c.show_exact(&vars), "-x + y <= 0");
        assert!(c.holds_at(&[int(2), int(1)]));
        let s = e.substitute(0, &y);
        assert_eq!(s.show(&vars, NumFormat::Exact), "y - 1/2");
    }

    #[test]
    fn normalisation_makes_equal_halfspaces_equal() {
        let c1 = Constraint::new(vec![frac(1, 2), frac(3, 4)], Kind::Le, int(1));
        let c2 = Constraint::new(vec![int(2), int(3)], Kind::Le, int(4));
        assert_eq!(c1.normalized(), c2.normalized());
        assert_eq!(c2.normalized(), c2);
    }
}
