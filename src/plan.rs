//! Where to measure next: rank candidate measurement points by the band
//! they would leave at the target points.
//!
//! Two exact answers per candidate `x_new`:
//!
//! * **expected**: the new measurement equals the model's prediction,
//!   `d_new = T(C, x_new)`. Its residual is zero, so the least-squares C
//!   does not move; the data with the new point are re-analysed in full
//!   (thresholds such as `emax` are recomputed).
//! * **worst case** over every `d_new` inside the current band at `x_new`,
//!   with the threshold value held at its current value e'. The region in
//!   the absolute parameters does not depend on the fit, so the widest band
//!   at a target `x*` is one LP in two copies of the parameters:
//!   `max f*·(c₁ − c₂)` subject to `c₁, c₂` in the current region and
//!   `|f_new·(c₁ − c₂)| <= 2e'` (a `d_new` within e' of both predictions
//!   exists, and lies inside the current band, exactly when the two
//!   predictions at `x_new` differ by at most 2e').

use crate::analysis::{width_ratio, Analysis, AnalysisError, Band, Options};
use crate::data::Measurement;
use crate::fit::{Design, FitError};
use crate::linear::{Constraint, Kind};
use crate::lp::{self, LpOutcome, Sense};
use crate::model::Model;
use crate::num::Rat;
use num_traits::Zero;
use rayon::prelude::*;

/// One candidate point and the bands it would leave.
#[derive(Debug, Clone)]
pub struct Planned {
    /// The candidate point.
    pub x: Vec<Rat>,
    /// `T(C, x_new)`: the measurement assumed in the expected case.
    pub d_new: Rat,
    /// Expected case: `bands[t][j]` at target `j` for threshold `t` (None: empty region).
    pub expected: Result<Vec<Vec<Option<Band>>>, AnalysisError>,
    /// Expected width over the current width, `[t][j]` (None: infinite or undefined).
    pub expected_ratio: Vec<Vec<Option<Rat>>>,
    /// Worst case: the largest band width `[t][j]` over `d_new` in the
    /// current band at `x_new` (None: unbounded, or the current region is empty).
    pub worst: Vec<Vec<Option<Rat>>>,
    /// Worst width over the current width.
    pub worst_ratio: Vec<Vec<Option<Rat>>>,
}

impl Planned {
    /// Ranking key: the largest expected ratio over the targets at the first threshold.
    pub fn key(&self) -> Option<Rat> {
        crate::prune::worst_ratio(self.expected_ratio.first()?)
    }
}

/// The ranked plan.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The analysis of the current data at the targets.
    pub base: Analysis,
    /// Target points.
    pub targets: Vec<Vec<Rat>>,
    /// Candidates, best first (ties keep the order given).
    pub rows: Vec<Planned>,
}

/// `(c₁ − c₂)` form of a basis row over the doubled variables.
fn diff(f: &[Rat]) -> Vec<Rat> {
    f.iter().cloned().chain(f.iter().map(|v| -v)).collect()
}

/// The residual rows `|T(c, x_i) − d_i| <= e` for one copy of the parameters
/// (`copy` 0 or 1) over the doubled variables.
fn region_rows(design: &Design, k: usize, e: &Rat, copy: usize, out: &mut Vec<Constraint>) {
    for g in &design.groups {
        let mut a = vec![Rat::zero(); 2 * k];
        for j in 0..k {
            a[copy * k + j] = g.basis[j + 1].clone();
        }
        let neg: Vec<Rat> = a.iter().map(|v| -v).collect();
        out.push(Constraint::new(a, Kind::Le, &g.ymin - &g.basis[0] + e));
        out.push(Constraint::new(neg, Kind::Le, e - &g.ymax + &g.basis[0]));
    }
}

/// The widest band at each target over every `d_new` in the current band
/// at the point with basis `fnew` (module docs), threshold value `e`.
fn worst_widths(design: &Design, k: usize, e: &Rat, fnew: &[Rat], targets: &[Vec<Rat>]) -> Vec<Option<Rat>> {
    let mut rows = Vec::with_capacity(4 * design.groups.len() + 2);
    region_rows(design, k, e, 0, &mut rows);
    region_rows(design, k, e, 1, &mut rows);
    let two_e = e * Rat::from_integer(2.into());
    let d = diff(&fnew[1..]);
    rows.push(Constraint::new(d.clone(), Kind::Le, two_e.clone()));
    rows.push(Constraint::new(d.iter().map(|v| -v).collect(), Kind::Le, two_e));
    let Ok(prep) = lp::Prepared::new(2 * k, rows) else { return vec![None; targets.len()] };
    targets
        .iter()
        .map(|b| match prep.optimize(&diff(&b[1..]), Sense::Maximize) {
            Ok(LpOutcome::Optimal(o)) => Some(o.value),
            _ => None,
        })
        .collect()
}

/// Ranks the candidate points (module docs). `tick` is called with the
/// number of candidates first, then once per finished candidate.
pub fn plan(
    model: &Model,
    data: &[Measurement],
    file: &str,
    opts: &Options,
    targets: &[Vec<Rat>],
    candidates: &[Vec<Rat>],
    tick: &(dyn Fn(usize) + Sync),
) -> Result<Plan, AnalysisError> {
    let mut model = model.clone();
    model.predict.clear();
    let opts = Options { at: targets.to_vec(), no_cells: true, skip_remax: true, ..opts.clone() };
    let base = Analysis::run(&model, data, file, &opts)?;
    let k = model.k();
    let eval = |x: &Vec<Rat>, what: &str| -> Result<Vec<Rat>, AnalysisError> {
        let mut log = model.new_log();
        model
            .basis_at(x, &mut log)
            .map_err(|e| AnalysisError::Fit(FitError::Eval(model.eval_diagnostic(&e, x, what))))
    };
    let target_basis: Vec<Vec<Rat>> = targets.iter().map(|t| eval(t, "target")).collect::<Result<_, _>>()?;
    let cand_basis: Vec<Vec<Rat>> =
        candidates.iter().map(|x| eval(x, "candidate point")).collect::<Result<_, _>>()?;
    tick(candidates.len());
    let mut rows: Vec<(usize, Planned)> = candidates
        .par_iter()
        .zip(cand_basis.par_iter())
        .enumerate()
        .map(|(i, (x, b))| {
            let d_new = &b[0] + b[1..].iter().zip(&base.params).fold(Rat::zero(), |a, (f, c)| a + f * c);
            let mut more = data.to_vec();
            more.push(Measurement { x: x.clone(), y: d_new.clone(), line: 0 });
            let expected = Analysis::run(&model, &more, file, &opts).map(|a| -> Vec<Vec<Option<Band>>> {
                (0..a.regions.len())
                    .map(|t| a.predictions.iter().map(|p| p.bands[t].clone()).collect())
                    .collect()
            });
            let expected_ratio = match &expected {
                Ok(bands) => base
                    .regions
                    .iter()
                    .enumerate()
                    .map(|(t, _)| {
                        base.predictions
                            .iter()
                            .enumerate()
                            .map(|(j, p)| {
                                let nb: &Option<Band> = &bands[t][j];
                                width_ratio(nb.as_ref().and_then(Band::width).as_ref(), &p.bands[t])
                            })
                            .collect()
                    })
                    .collect(),
                Err(_) => vec![],
            };
            let worst: Vec<Vec<Option<Rat>>> = base
                .regions
                .iter()
                .map(|r| {
                    // The worst case of a new measurement is posed for an
                    // absolute threshold; a relative one has no such bound here.
                    if r.vertices.is_empty() || r.bound.is_relative() {
                        vec![None; targets.len()]
                    } else {
                        worst_widths(&base.design, k, &r.value, b, &target_basis)
                    }
                })
                .collect();
            let worst_ratio = worst
                .iter()
                .enumerate()
                .map(|(t, row)| {
                    row.iter()
                        .zip(&base.predictions)
                        .map(|(w, p)| width_ratio(w.as_ref(), &p.bands[t]))
                        .collect()
                })
                .collect();
            tick(0);
            (i, Planned { x: x.clone(), d_new, expected, expected_ratio, worst, worst_ratio })
        })
        .collect();
    rows.sort_by(|(ia, a), (ib, b)| crate::prune::by_key(&a.key(), &b.key()).then(ia.cmp(ib)));
    Ok(Plan { base, targets: targets.to_vec(), rows: rows.into_iter().map(|(_, p)| p).collect() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Threshold;
    use crate::num::int;

    #[test]
    fn farther_candidates_narrow_the_band_more_and_worst_case_bounds_expected() {
        let (m, data) = crate::testdata::hpl("param c1, c2");
        let opts = Options { thresholds: vec![Threshold::parse("max").unwrap()], ..Options::default() };
        let cands: Vec<Vec<Rat>> = [130, 200, 300].iter().map(|&p| vec![int(p)]).collect();
        let p = plan(&m, &data, "hpl.csv", &opts, &[vec![int(1000)]], &cands, &|_| {}).unwrap();
        assert_eq!(p.rows[0].x, vec![int(300)]);
        for r in &p.rows {
            let e = r.expected.as_ref().unwrap()[0][0].as_ref().unwrap().width().unwrap();
            let w = r.worst[0][0].clone().unwrap();
            let w0 = p.base.predictions[0].bands[0].as_ref().unwrap().width().unwrap();
            // Same threshold value (max is unchanged by a zero residual): expected <= worst <= current.
            assert!(e <= w && w <= w0, "{e} {w} {w0}");
        }
    }
}
