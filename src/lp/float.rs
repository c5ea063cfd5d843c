//! The one adapter between the exact core and floating point LP: a dense
//! float simplex ([`super::dense`]) *proposes* an optimum on scaled rows;
//! the exact simplex then starts from the rows that proposal makes tight.
//! Nothing computed here is trusted.

use super::filter::FloatRows;
use super::simplex::Row;
use crate::num::{to_f64, Rat};

/// Asks the float simplex for `max c·x` over the rows in `subset`; returns the subset
/// rows ordered by how tight they are at the float optimum (tightest first),
/// or `None` when the float solver fails or reports the problem unbounded or
/// infeasible (the exact solver decides those cases on its own).
pub(crate) fn propose_tight_rows(
    fr: &FloatRows,
    rows: &[Row],
    subset: &[usize],
    c: &[Rat],
) -> Option<Vec<usize>> {
    let (p, x) = float_optimum(fr, rows, subset, c)?;
    let mut order: Vec<(f64, usize)> = subset
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            let s: f64 = p.b[k] - p.a[k].iter().zip(&x).map(|(p, q)| p * q).sum::<f64>();
            let scale = p.a[k].iter().map(|v| v.abs()).sum::<f64>() + p.b[k].abs();
            (s.abs() / scale.max(1e-300), i)
        })
        .collect();
    order.sort_by(|p, q| p.0.total_cmp(&q.0).then(p.1.cmp(&q.1)));
    Some(order.into_iter().map(|(_, i)| i).collect())
}

/// The float optimum of `max c·x` over all `rows`, in the rows' own
/// variables: a proposal for callers that check it exactly (`None` as for
/// [`propose_tight_rows`]).
pub(crate) fn propose_point(fr: &FloatRows, rows: &[Row], c: &[Rat]) -> Option<Vec<f64>> {
    let all: Vec<usize> = (0..rows.len()).collect();
    let (p, x) = float_optimum(fr, rows, &all, c)?;
    Some(x.iter().zip(&p.col).map(|(v, s)| v / s).collect())
}

/// The scaled problem and the float optimum in its scaled variables.
fn float_optimum(fr: &FloatRows, rows: &[Row], subset: &[usize], c: &[Rat]) -> Option<(Scaled, Vec<f64>)> {
    let p = Scaled::new(fr, subset, c)?;
    // The proposal is made inside a box far larger than the data's scale,
    // so that it always has an optimum. The box never reaches the exact
    // solver: a proposal cut by it is just a worse starting basis. Rows are
    // scaled to a largest |a_ij| of 1, so the largest |b| is the data's
    // typical magnitude.
    let bmax = p.b.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let big = (1e4 * bmax.max(1.0)).min(1e30);
    let eq: Vec<bool> = subset.iter().map(|&i| rows[i].is_eq()).collect();
    let x = super::dense::maximize(&p.a, &p.b, &eq, &p.c, big)?;
    x.iter().all(|v| v.is_finite()).then_some((p, x))
}

/// Scaled magnitudes must stay within `[1/RANGE, RANGE]`: squares and
/// products of a few of them (the float simplex's pivots) then stay finite.
const RANGE: f64 = 1e30;

/// The subset's rows over variables scaled by powers of two (each column's
/// largest |a_ij| brought to about 1; the objective scaled alike), each row
/// then divided by its largest |a_ij| (a power of two, so the division is
/// exact), and the objective divided by its largest |c_j|. None of this
/// changes which rows are tight at the optimum.
struct Scaled {
    a: Vec<Vec<f64>>,
    b: Vec<f64>,
    c: Vec<f64>,
    /// Column scales: the scaled variable j is `x_j · col[j]`.
    col: Vec<f64>,
}

impl Scaled {
    /// `None` when floats cannot represent the problem: a value that is not
    /// finite (a basis value past 1e308), or scaled magnitudes outside
    /// `[1/RANGE, RANGE]`. There is then no proposal.
    fn new(fr: &FloatRows, subset: &[usize], c: &[Rat]) -> Option<Scaled> {
        let in_range = |v: f64| v == 0.0 || (v.abs() >= 1.0 / RANGE && v.abs() <= RANGE);
        let n = c.len();
        // Columns first: a basis whose columns differ by many orders of
        // magnitude (1 beside n^(11/4) in a family of forms) leaves the small
        // ones below the float simplex's tolerances once rows are scaled, and its
        // vertex is then often infeasible, costing an exact phase 1.
        let mut col = vec![0.0f64; n];
        for &i in subset {
            for (j, v) in fr.a[i].iter().enumerate().take(n) {
                col[j] = col[j].max(v.abs());
            }
        }
        if !col.iter().all(|v| v.is_finite()) {
            return None;
        }
        let col: Vec<f64> = col.iter().map(|&m| if m > 0.0 { pow2_at_most(m) } else { 1.0 }).collect();
        let mut a = Vec::with_capacity(subset.len());
        let mut b = Vec::with_capacity(subset.len());
        for &i in subset {
            let row: Vec<f64> = fr.a[i].iter().zip(&col).map(|(v, s)| v / s).collect();
            let m = row.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            if !m.is_finite() || !fr.b[i].is_finite() {
                return None;
            }
            let f = if m > 0.0 { pow2_at_most(m) } else { 1.0 };
            let scaled: Vec<f64> = row.iter().map(|v| v / f).collect();
            let bi = fr.b[i] / f;
            if !scaled.iter().all(|&v| in_range(v)) || !in_range(bi) {
                return None;
            }
            a.push(scaled);
            b.push(bi);
        }
        let c: Vec<f64> = c.iter().zip(&col).map(|(v, s)| to_f64(v) / s).collect();
        let m = c.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        if !m.is_finite() {
            return None;
        }
        let f = if m > 0.0 { pow2_at_most(m) } else { 1.0 };
        let c: Vec<f64> = c.iter().map(|v| v / f).collect();
        c.iter().all(|&v| in_range(v)).then_some(Scaled { a, b, c, col })
    }
}

/// The largest power of two not above `m` (positive, finite).
fn pow2_at_most(m: f64) -> f64 {
    let e = m.log2().floor();
    2f64.powi(e as i32)
}
