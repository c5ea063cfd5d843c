//! Exact linear programming with certificates.
//!
//! `max`/`min c·x` subject to `<=`, `<`, `=` constraints (`>=`/`>` are stored
//! negated in [`Constraint`]), variables free. Every answer carries a
//! certificate that [`LpOutcome::verify`] checks in exact arithmetic:
//! an optimum comes with its point and dual multipliers, infeasibility with
//! Farkas (Motzkin, when strict rows are involved) multipliers, unboundedness
//! with a feasible point and an improving ray.
//!
//! How it stays fast for many rows and few variables: constraint generation.
//! A working set of rows is solved exactly (a float simplex proposes the
//! starting basis, the exact simplex certifies or repairs it); all rows are
//! then checked at the exact optimum with a certified floating-point filter
//! (exact arithmetic where the filter cannot decide) and the most violated are
//! added. The working set stays small, so the cost is a few passes over the
//! rows: linear in their number.

mod dense;
mod filter;
mod float;
#[doc(hidden)]
pub(crate) mod simplex;

use crate::linear::{Constraint, Kind};
use crate::num::{to_f64, Rat};
use filter::{slack_sign, FloatRows};
use num_traits::{One, Signed, Zero};
use simplex::{Row, Solved};

/// Optimisation direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sense {
    /// Minimise the objective.
    Minimize,
    /// Maximise the objective.
    Maximize,
}

/// Constraints prepared once (exact rows and their float copies) so several
/// objectives can be optimised over the same set, as bands do.
#[derive(Clone)]
pub struct Prepared {
    n: usize,
    /// The constraints as given; the simplex reads strict rows as their closure.
    rows: Vec<Row>,
    float: std::sync::Arc<FloatRows>,
    /// The last optimal basis: a feasible vertex of these rows, so the next
    /// objective starts there without phase 1 (bands ask for many objectives).
    warm: std::sync::Arc<std::sync::Mutex<Option<Vec<usize>>>>,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Prepared({} rows, {} vars)", self.rows.len(), self.n)
    }
}

/// The answer to an LP, with its certificate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LpOutcome {
    /// A finite optimum (supremum/infimum when a strict row keeps it from being attained).
    Optimal(Optimum),
    /// No point satisfies the constraints.
    Infeasible(Infeasibility),
    /// The objective improves without bound.
    Unbounded(Unboundedness),
}

/// A finite optimal value with its certificate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Optimum {
    /// The optimal value (the supremum/infimum when `attained` is false).
    pub value: Rat,
    /// Whether some feasible point attains `value` (false only with strict rows).
    pub attained: bool,
    /// An optimal point; when not attained, an optimal point of the closure.
    pub point: Vec<Rat>,
    /// Multipliers `y`, one per constraint, `y_i >= 0` except on equalities,
    /// with `Σ y_i a_i = c` (maximise) or `= -c` (minimise) and
    /// `Σ y_i b_i = ±value`: an exact proof that no point does better.
    pub duals: Vec<Rat>,
    /// Indices of linearly independent constraints tight at `point` that
    /// define it (the final simplex basis). Empty when the problem has strict
    /// rows: its optimal point then need not be a vertex.
    pub basis: Vec<usize>,
}

/// An LP's optimal value alone ([`Prepared::value`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Value {
    /// The optimum (the supremum or infimum with strict rows).
    Optimal(Rat),
    /// The objective improves without bound.
    Unbounded,
    /// No point satisfies the constraints.
    Infeasible,
}

/// Proof of infeasibility: `y >= 0` (free on equalities) with `Σ y_i a_i = 0`
/// and either `Σ y_i b_i < 0`, or `Σ y_i b_i = 0` with some strict row `y_i > 0`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Infeasibility {
    /// One multiplier per constraint.
    pub multipliers: Vec<Rat>,
}

/// Proof of unboundedness: a feasible point and a ray along which every
/// constraint stays satisfied and the objective strictly improves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unboundedness {
    /// A feasible point.
    pub point: Vec<Rat>,
    /// The improving direction.
    pub ray: Vec<Rat>,
}

/// Why an LP could not be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LpError {
    /// A constraint or the objective has the wrong number of coefficients.
    #[error("constraint {index} has {got} coefficients, expected {expected}")]
    Dimension {
        /// Offending constraint (usize::MAX for the objective).
        index: usize,
        /// Its length.
        got: usize,
        /// The problem's variable count.
        expected: usize,
    },
}

impl Prepared {
    /// Prepares `constraints` over `n` variables.
    pub fn new(n: usize, constraints: Vec<Constraint>) -> Result<Self, LpError> {
        for (i, c) in constraints.iter().enumerate() {
            if c.a.len() != n {
                return Err(LpError::Dimension { index: i, got: c.a.len(), expected: n });
            }
        }
        let float = std::sync::Arc::new(FloatRows::new(&constraints));
        Ok(Prepared { n, rows: constraints, float, warm: Default::default() })
    }

    /// The constraints as given.
    pub fn constraints(&self) -> &[Constraint] {
        &self.rows
    }

    /// Number of variables.
    pub fn dim(&self) -> usize {
        self.n
    }

    /// Optimises `objective` in direction `sense`.
    pub fn optimize(&self, objective: &[Rat], sense: Sense) -> Result<LpOutcome, LpError> {
        if objective.len() != self.n {
            return Err(LpError::Dimension { index: usize::MAX, got: objective.len(), expected: self.n });
        }
        let c = as_maximum(objective, sense);
        let signed = |v: Rat| if sense == Sense::Maximize { v } else { -v };
        let any_strict = self.rows.iter().any(|r| r.kind == Kind::Lt);
        // With strict rows, first decide (NNC) feasibility and get a strictly feasible point.
        let mut interior: Option<Vec<Rat>> = None;
        if any_strict {
            match self.strict_feasible(None) {
                Ok(x) => interior = Some(x),
                Err(y) => return Ok(LpOutcome::Infeasible(Infeasibility { multipliers: y })),
            }
        }
        let warm = self.warm.lock().ok().and_then(|w| w.clone());
        match solve_rows(&self.rows, &self.float, &c, warm.as_deref()) {
            Solved::Infeasible { y } => Ok(LpOutcome::Infeasible(Infeasibility { multipliers: y })),
            Solved::Unbounded { x, d } => {
                Ok(LpOutcome::Unbounded(Unboundedness { point: interior.unwrap_or(x), ray: d }))
            }
            Solved::Optimal { x, y, basis } => {
                if let Ok(mut w) = self.warm.lock() {
                    *w = Some(basis.clone());
                }
                let v = dot(&c, &x);
                let mut attained = true;
                let mut point = x;
                if any_strict {
                    match self.strict_feasible(Some((&c, &v))) {
                        Ok(p) => point = p,
                        Err(_) => attained = false,
                    }
                }
                let basis = if any_strict { Vec::new() } else { basis };
                Ok(LpOutcome::Optimal(Optimum { value: signed(v), attained, point, duals: y, basis }))
            }
        }
    }

    /// Whether some point meets every row: an LP with a zero objective
    /// (optimal when feasible, never unbounded).
    pub(crate) fn feasible(&self) -> Result<bool, LpError> {
        Ok(!matches!(self.optimize(&vec![Rat::zero(); self.n], Sense::Minimize)?, LpOutcome::Infeasible(_)))
    }

    /// The optimal value alone, for the many small LPs that want only a
    /// number (a family's e_max, remax and bands): certified at the float
    /// proposal's vertex when it can be ([`Self::quick_value`]), with one
    /// reduction and no point or multipliers; by [`Self::optimize`]
    /// otherwise.
    pub(crate) fn value(&self, objective: &[Rat], sense: Sense) -> Result<Value, LpError> {
        if let Some(v) = self.quick_value(objective, sense) {
            return Ok(Value::Optimal(v));
        }
        Ok(match self.optimize(objective, sense)? {
            LpOutcome::Optimal(o) => Value::Optimal(o.value),
            LpOutcome::Unbounded(_) => Value::Unbounded,
            LpOutcome::Infeasible(_) => Value::Infeasible,
        })
    }

    /// The optimal value when the vertex of the float proposal's tightest
    /// rows certifies it ([`simplex::value_at_hint`]: feasible, its rows'
    /// multipliers nonnegative); `None` when it does not, which says
    /// nothing about the LP.
    pub(crate) fn quick_value(&self, objective: &[Rat], sense: Sense) -> Option<Rat> {
        if objective.len() != self.n || self.rows.len() > DIRECT_LIMIT {
            return None;
        }
        let hint = self.propose_tight(objective, sense)?;
        let v = simplex::value_at_hint(&self.rows, &self.float, &as_maximum(objective, sense), &hint)?;
        Some(if sense == Sense::Minimize { -v } else { v })
    }

    /// The rows a float LP solver finds tight at the optimum of `objective`,
    /// tightest first: a proposal only, never certified (`None` when the
    /// float solver fails or floats cannot represent the rows). For callers
    /// that merely order their work by it, such as the double description's
    /// seed rows.
    pub(crate) fn propose_tight(&self, objective: &[Rat], sense: Sense) -> Option<Vec<usize>> {
        let c = as_maximum(objective, sense);
        let all: Vec<usize> = (0..self.rows.len()).collect();
        float::propose_tight_rows(&self.float, &self.rows, &all, &c)
    }

    /// A float solver's optimum of `max objective·x`: a proposal only,
    /// for callers that check what they use of it exactly.
    pub(crate) fn propose_point(&self, objective: &[Rat]) -> Option<Vec<f64>> {
        float::propose_point(&self.float, &self.rows, objective)
    }

    /// Feasibility of the system with its strict rows (and optionally the
    /// extra row `c·x >= v`): maximise `s` with `a·x + s <= b` on strict rows,
    /// `s <= 1`. Returns a point satisfying all rows, or Motzkin multipliers.
    fn strict_feasible(&self, at_least: Option<(&[Rat], &Rat)>) -> Result<Vec<Rat>, Vec<Rat>> {
        let n = self.n;
        let mut rows: Vec<Row> = Vec::with_capacity(self.rows.len() + 2);
        for r in &self.rows {
            let mut a = r.a.clone();
            a.push(if r.kind == Kind::Lt { Rat::one() } else { Rat::zero() });
            rows.push(simplex::row_of(a, r.b.clone(), r.is_eq()));
        }
        if let Some((c, v)) = at_least {
            let mut a: Vec<Rat> = c.iter().map(|q| -q).collect();
            a.push(Rat::zero());
            rows.push(simplex::row_of(a, -v.clone(), false));
        }
        let mut a = vec![Rat::zero(); n];
        a.push(Rat::one());
        rows.push(simplex::row_of(a, Rat::one(), false));
        let mut obj = vec![Rat::zero(); n];
        obj.push(Rat::one());
        let fr = FloatRows::new(&rows);
        match solve_rows(&rows, &fr, &obj, None) {
            Solved::Optimal { x, y, .. } => {
                if x[n].is_positive() {
                    Ok(x[..n].to_vec())
                } else {
                    Err(y[..self.rows.len()].to_vec())
                }
            }
            Solved::Infeasible { y } => Err(y[..self.rows.len()].to_vec()),
            // s <= 1 bounds the objective.
            Solved::Unbounded { x, .. } => Ok(x[..n].to_vec()),
        }
    }
}

impl Prepared {
    /// Whether `x` satisfies every row (strict rows as `<=` when `closure`),
    /// decided row by row with the certified filter.
    fn all_hold(&self, x: &[Rat], closure: bool) -> bool {
        let xf: Vec<f64> = x.iter().map(to_f64).collect();
        self.rows.iter().enumerate().all(|(i, row)| {
            let (ord, _) = slack_sign(row, &self.float, i, x, &xf, true);
            match ord {
                std::cmp::Ordering::Less => false,
                std::cmp::Ordering::Equal => closure || row.kind != Kind::Lt,
                std::cmp::Ordering::Greater => !row.is_eq(),
            }
        })
    }
}

/// The objective to maximise for `sense`.
fn as_maximum(objective: &[Rat], sense: Sense) -> Vec<Rat> {
    match sense {
        Sense::Maximize => objective.to_vec(),
        Sense::Minimize => objective.iter().map(|v| -v).collect(),
    }
}

/// Convenience: optimise once over `constraints`.
pub fn optimize(
    n: usize,
    constraints: Vec<Constraint>,
    objective: &[Rat],
    sense: Sense,
) -> Result<LpOutcome, LpError> {
    Prepared::new(n, constraints)?.optimize(objective, sense)
}

/// `a·x` in lowest terms, summed unreduced and reduced once: the optimum's
/// coordinates are long fractions over (mostly) one denominator, where
/// num-rational's `+=` took a gcd of long numbers per term.
fn dot(a: &[Rat], x: &[Rat]) -> Rat {
    crate::num::affine(&Rat::zero(), a, x)
}

/// Rows up to this count are solved in one exact simplex run.
const DIRECT_LIMIT: usize = 300;

/// Rows violated at the point `v` (`point = true`: `a·v <= b` fails) or
/// blocking the direction `v` (`point = false`: `a·v > 0`), worst first
/// (relative to row size); equalities count whenever they are not met.
fn screen(rows: &[Row], fr: &FloatRows, v: &[Rat], skip: &[bool], point: bool) -> Vec<(f64, usize)> {
    use std::cmp::Ordering;
    let vf: Vec<f64> = v.iter().map(to_f64).collect();
    let mut out = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        if skip[i] {
            continue;
        }
        let (ord, s) = slack_sign(row, fr, i, v, &vf, point);
        let bad = match (row.is_eq(), point) {
            (true, _) => ord != Ordering::Equal,
            (false, true) => ord == Ordering::Less,
            (false, false) => ord == Ordering::Greater,
        };
        if bad {
            out.push((s.abs() / fr.scale[i].max(1e-300), i));
        }
    }
    out.sort_by(|p, q| q.0.total_cmp(&p.0).then(p.1.cmp(&q.1)));
    out
}

fn violated(rows: &[Row], fr: &FloatRows, x: &[Rat], skip: &[bool]) -> Vec<(f64, usize)> {
    screen(rows, fr, x, skip, true)
}

fn blocking(rows: &[Row], fr: &FloatRows, d: &[Rat], skip: &[bool]) -> Vec<(f64, usize)> {
    screen(rows, fr, d, skip, false)
}

/// The rows of the constraint-generation subproblem, with their float copy
/// and their indices in the full problem. It only grows.
struct WorkingSet {
    member: Vec<bool>,
    index: Vec<usize>,
    rows: Vec<Row>,
    fr: FloatRows,
}

impl WorkingSet {
    fn add(&mut self, i: usize, rows: &[Row], fr: &FloatRows) {
        if !self.member[i] {
            self.member[i] = true;
            self.index.push(i);
            self.rows.push(rows[i].clone());
            self.fr.push_from(fr, i);
        }
    }
}

/// Solves `max c·x` over all rows: directly when few, by constraint
/// generation when many. Multipliers are indexed like `rows`.
fn solve_rows(rows: &[Row], fr: &FloatRows, c: &[Rat], warm: Option<&[usize]>) -> Solved {
    let m = rows.len();
    let n = c.len();
    if m <= DIRECT_LIMIT {
        let all: Vec<usize> = (0..m).collect();
        // The float proposal usually lands on (or next to) the optimum; the
        // previous optimum of the same rows is a feasible fallback that spares
        // phase 1 when the proposal's vertex is infeasible.
        return match float::propose_tight_rows(fr, rows, &all, c) {
            Some(hint) => simplex::solve_with(rows, fr, c, &hint, warm),
            None => simplex::solve(rows, fr, c, warm.unwrap_or(&[])),
        };
    }
    // Initial working set: equalities and evenly spread rows. The set (with
    // its float copy) only grows, so rows are copied in once.
    let mut w =
        WorkingSet { member: vec![false; m], index: Vec::new(), rows: Vec::new(), fr: FloatRows::default() };
    for (i, r) in rows.iter().enumerate() {
        if r.is_eq() {
            w.add(i, rows, fr);
        }
    }
    let want = (8 * n + 16).min(m);
    for s in 0..want {
        w.add(s * m / want, rows, fr);
    }
    let per_round = (2 * n + 4).max(8);
    loop {
        let all_sub: Vec<usize> = (0..w.rows.len()).collect();
        let hint = float::propose_tight_rows(&w.fr, &w.rows, &all_sub, c).unwrap_or_default();
        let lift = |y: Vec<Rat>| {
            let mut full = vec![Rat::zero(); m];
            for (k, v) in y.into_iter().enumerate() {
                full[w.index[k]] = v;
            }
            full
        };
        match simplex::solve(&w.rows, &w.fr, c, &hint) {
            Solved::Infeasible { y } => return Solved::Infeasible { y: lift(y) },
            Solved::Optimal { x, y, basis } => {
                let viol = violated(rows, fr, &x, &w.member);
                if viol.is_empty() {
                    let basis = basis.into_iter().map(|k| w.index[k]).collect();
                    return Solved::Optimal { x, y: lift(y), basis };
                }
                for &(_, i) in viol.iter().take(per_round) {
                    w.add(i, rows, fr);
                }
            }
            Solved::Unbounded { x, d } => {
                let block = blocking(rows, fr, &d, &w.member);
                if block.is_empty() {
                    // No row stops d: unbounded if the full system is feasible.
                    if violated(rows, fr, &x, &w.member).is_empty() {
                        return Solved::Unbounded { x, d };
                    }
                    let zero = vec![Rat::zero(); n];
                    return match solve_rows(rows, fr, &zero, None) {
                        Solved::Optimal { x, .. } => Solved::Unbounded { x, d },
                        other => other,
                    };
                }
                let more: Vec<usize> = block
                    .iter()
                    .take(per_round)
                    .chain(violated(rows, fr, &x, &w.member).iter().take(per_round))
                    .map(|&(_, i)| i)
                    .collect();
                for i in more {
                    w.add(i, rows, fr);
                }
            }
        }
    }
}

impl LpOutcome {
    /// Checks the certificate exactly against the problem it answers.
    pub fn verify(&self, p: &Prepared, objective: &[Rat], sense: Sense) -> Result<(), String> {
        let cons = &p.rows;
        let n = p.n;
        let c = as_maximum(objective, sense);
        let combo = |y: &[Rat]| -> Result<(Vec<Rat>, Rat), String> {
            if y.len() != cons.len() {
                return Err("wrong number of multipliers".into());
            }
            let mut s = vec![Rat::zero(); n];
            let mut b = Rat::zero();
            for (yi, k) in y.iter().zip(cons) {
                if k.kind != Kind::Eq && yi.is_negative() {
                    return Err("negative multiplier on an inequality".into());
                }
                if yi.is_zero() {
                    continue;
                }
                for (sj, aj) in s.iter_mut().zip(&k.a) {
                    *sj += yi * aj;
                }
                b += yi * &k.b;
            }
            Ok((s, b))
        };
        match self {
            LpOutcome::Optimal(o) => {
                if !p.all_hold(&o.point, true) {
                    return Err("optimal point violates a constraint".into());
                }
                if o.attained && !p.all_hold(&o.point, false) {
                    return Err("attained optimum violates a strict constraint".into());
                }
                let v = dot(&c, &o.point);
                let expected = if sense == Sense::Maximize { o.value.clone() } else { -o.value.clone() };
                if v != expected {
                    return Err("objective at the point differs from the value".into());
                }
                let (s, b) = combo(&o.duals)?;
                if s != c {
                    return Err("multipliers do not reproduce the objective".into());
                }
                if b != expected {
                    return Err("dual bound differs from the value".into());
                }
                Ok(())
            }
            LpOutcome::Infeasible(inf) => {
                let (s, b) = combo(&inf.multipliers)?;
                if s.iter().any(|v| !v.is_zero()) {
                    return Err("multipliers do not cancel the coefficients".into());
                }
                let strict_weight =
                    inf.multipliers.iter().zip(cons).any(|(y, k)| k.kind == Kind::Lt && y.is_positive());
                if b.is_negative() || (b.is_zero() && strict_weight) {
                    Ok(())
                } else {
                    Err("multipliers do not prove infeasibility".into())
                }
            }
            LpOutcome::Unbounded(u) => {
                if !p.all_hold(&u.point, false) {
                    return Err("unbounded certificate point is infeasible".into());
                }
                let df: Vec<f64> = u.ray.iter().map(to_f64).collect();
                for (i, row) in p.rows.iter().enumerate() {
                    let (ord, _) = slack_sign(row, &p.float, i, &u.ray, &df, false);
                    let ok = if row.is_eq() {
                        ord == std::cmp::Ordering::Equal
                    } else {
                        ord != std::cmp::Ordering::Greater
                    };
                    if !ok {
                        return Err("ray leaves the feasible set".into());
                    }
                }
                if !dot(&c, &u.ray).is_positive() {
                    return Err("ray does not improve the objective".into());
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::{frac, int};

    fn le(a: &[i64], b: i64) -> Constraint {
        Constraint::new(a.iter().map(|&v| int(v)).collect(), Kind::Le, int(b))
    }
    fn lt(a: &[i64], b: i64) -> Constraint {
        Constraint::new(a.iter().map(|&v| int(v)).collect(), Kind::Lt, int(b))
    }

    fn check(n: usize, cons: Vec<Constraint>, c: &[i64], sense: Sense) -> LpOutcome {
        let p = Prepared::new(n, cons).unwrap();
        let c: Vec<Rat> = c.iter().map(|&v| int(v)).collect();
        let out = p.optimize(&c, sense).unwrap();
        out.verify(&p, &c, sense).unwrap();
        out
    }

    #[test]
    fn strict_rows_give_unattained_suprema() {
        // max x st x < 1
        match check(1, vec![lt(&[1], 1)], &[1], Sense::Maximize) {
            LpOutcome::Optimal(o) => {
                assert_eq!(o.value, int(1));
                assert!(!o.attained);
            }
            other => panic!("{other:?}"),
        }
        // max x st x < 1, x <= 0: attained at 0.
        match check(1, vec![lt(&[1], 1), le(&[1], 0)], &[1], Sense::Maximize) {
            LpOutcome::Optimal(o) => assert!(o.attained && o.value.is_zero()),
            other => panic!("{other:?}"),
        }
        // x < 0 and x >= 0: infeasible only because of strictness.
        assert!(matches!(
            check(1, vec![lt(&[1], 0), le(&[-1], 0)], &[1], Sense::Minimize),
            LpOutcome::Infeasible(_)
        ));
    }

    #[test]
    fn equalities_and_minimisation() {
        // min x + y st x + y = 3, x - y <= 1, x >= 0, y >= 0
        let cons = vec![
            Constraint::new(vec![int(1), int(1)], Kind::Eq, int(3)),
            le(&[1, -1], 1),
            le(&[-1, 0], 0),
            le(&[0, -1], 0),
        ];
        match check(2, cons, &[1, 2], Sense::Minimize) {
            LpOutcome::Optimal(o) => assert_eq!(o.value, int(4)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn many_rows_use_constraint_generation() {
        // Chebyshev fit of y = x^2 on 2000 points by a line: min e.
        let m = 2001; // odd, so the midpoint alternation point is on the grid
        let mut cons = Vec::new();
        for i in 0..m {
            let x = frac(i, m);
            let y = &x * &x;
            // |c0 + c1 x - y| <= e, variables (c0, c1, e)
            cons.push(Constraint::new(vec![int(1), x.clone(), int(-1)], Kind::Le, y.clone()));
            cons.push(Constraint::new(vec![int(-1), -x.clone(), int(-1)], Kind::Le, -y.clone()));
        }
        let p = Prepared::new(3, cons).unwrap();
        let c = vec![int(0), int(0), int(1)];
        let out = p.optimize(&c, Sense::Minimize).unwrap();
        out.verify(&p, &c, Sense::Minimize).unwrap();
        match out {
            // Best line for x^2 on [0, 1 - 1/m]: e = (max x)^2 / 8.
            LpOutcome::Optimal(o) => assert_eq!(o.value, frac((m - 1) * (m - 1), 8 * m * m)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn unbounded_with_many_rows() {
        let mut cons = Vec::new();
        for i in 0..1000 {
            cons.push(le(&[-1, -i], 5));
        }
        match check(2, cons, &[1, 1], Sense::Maximize) {
            LpOutcome::Unbounded(_) => {}
            other => panic!("{other:?}"),
        }
    }
}
