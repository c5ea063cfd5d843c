//! The one adapter between the exact core and floating point LP: good_lp with
//! the microlp backend *proposes* an optimum; the exact simplex then starts
//! from the rows that proposal makes tight. Nothing computed here is trusted.

use super::filter::FloatRows;
use super::simplex::Row;
use crate::num::{to_f64, Rat};
use good_lp::{microlp, variable, Expression, ProblemVariables, Solution, SolverModel};

/// Asks microlp for `max c·x` over the rows in `subset`; returns the subset
/// rows ordered by how tight they are at the float optimum (tightest first),
/// or `None` when the float solver fails or reports the problem unbounded or
/// infeasible (the exact solver decides those cases on its own).
pub(crate) fn propose_tight_rows(
    fr: &FloatRows,
    rows: &[Row],
    subset: &[usize],
    c: &[Rat],
) -> Option<Vec<usize>> {
    let n = c.len();
    // microlp can loop forever on free variables whose optimal face is
    // unbounded (seen with 2 variables and 32 rows), so the proposal is made
    // inside a box far larger than the data's scale. The box never reaches
    // the exact solver: a proposal cut by it is just a worse starting basis.
    // The box is scaled by the data's typical magnitudes (largest |b| over
    // largest |a|): a box scaled by the smallest coefficient can be so large
    // that microlp's answer is meaningless.
    let (mut bmax, mut amax) = (0.0f64, 0.0f64);
    for &i in subset {
        bmax = bmax.max(fr.b[i].abs());
        amax = fr.a[i].iter().fold(amax, |m, v| m.max(v.abs()));
    }
    let big = if amax > 0.0 { (1e4 * (bmax / amax).max(1.0)).min(1e30) } else { 1e4 };
    let mut vars = ProblemVariables::new();
    let xs: Vec<_> = (0..n).map(|_| vars.add(variable().min(-big).max(big))).collect();
    let objective: Expression = xs.iter().zip(c).map(|(x, cj)| to_f64(cj) * *x).sum();
    let mut model = vars.maximise(objective).using(microlp);
    for &i in subset {
        let lhs: Expression = xs.iter().zip(&fr.a[i]).filter(|(_, v)| **v != 0.0).map(|(x, v)| *v * *x).sum();
        model = if rows[i].is_eq() { model.with(lhs.eq(fr.b[i])) } else { model.with(lhs.leq(fr.b[i])) };
    }
    let sol = model.solve().ok()?;
    let x: Vec<f64> = xs.iter().map(|v| sol.value(*v)).collect();
    if x.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let mut order: Vec<(f64, usize)> = subset
        .iter()
        .map(|&i| {
            let s: f64 = fr.b[i] - fr.a[i].iter().zip(&x).map(|(p, q)| p * q).sum::<f64>();
            (s.abs() / fr.scale[i].max(1e-300), i)
        })
        .collect();
    order.sort_by(|p, q| p.0.total_cmp(&q.0).then(p.1.cmp(&q.1)));
    Some(order.into_iter().map(|(_, i)| i).collect())
}
