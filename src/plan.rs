//! Where to measure next: rank candidate measurement points by the band
//! they would leave at the target points.
//!
//! Two exact answers per candidate `x_new`:
//!
//! * **expected**: the new measurement equals the model's prediction,
//!   `d_new = T(C, x_new)`. Its residual is zero, so the least-squares C
//!   does not move; the data with the new point are re-analysed in full
//!   (thresholds such as `emax` are recomputed).
//! * **worst case** over every `d_new` that some parameters of the current
//!   region meet (the band of a new measurement at `x_new`), with the
//!   threshold's bound `|T − d| <= a + r·d` held. The region in the
//!   absolute parameters does not depend on the fit, so the widest band at
//!   a target `x*` is one LP in two copies of the parameters:
//!   `max f*·(c₁ − c₂)` subject to `c₁, c₂` in the current region and a
//!   `d_new` within the bound of both predictions `T₁, T₂` at `x_new`, which
//!   exists exactly when `(1 − r)T₁ − (1 + r)T₂ <= 2a` both ways round (for
//!   an absolute bound, `|T₁ − T₂| <= 2a`).

use crate::analysis::{width_ratio, Analysis, AnalysisError, Band, Bound, Options};
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
    /// Expected case: the band of a new measurement `[t][j]` (empty when
    /// the re-analysis failed).
    pub expected_measurement: Vec<Vec<Option<Band>>>,
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

/// The residual rows `|T(c, x_i) − d_i| <= a + r·d_i` for one copy of the
/// parameters (`copy` 0 or 1) over the doubled variables (both extreme
/// measurements of each point on both sides: with `r` the tightest one
/// depends on its sign).
fn region_rows(design: &Design, k: usize, bound: &Bound, copy: usize, out: &mut Vec<Constraint>) {
    let one = Rat::from_integer(1.into());
    let (a, r) = (&bound.absolute, &bound.relative);
    for g in &design.groups {
        let mut up = vec![Rat::zero(); 2 * k];
        for j in 0..k {
            up[copy * k + j] = g.basis[j + 1].clone();
        }
        let down: Vec<Rat> = up.iter().map(|v| -v).collect();
        for y in [&g.ymin, &g.ymax] {
            // f·c <= y(1 + r) + a − f0 and −f·c <= a − y(1 − r) + f0.
            out.push(Constraint::new(up.clone(), Kind::Le, y * (&one + r) + a - &g.basis[0]));
            out.push(Constraint::new(down.clone(), Kind::Le, a - y * (&one - r) + &g.basis[0]));
        }
    }
}

/// The widest band at each target over every new measurement at the
/// point with basis `fnew` that some parameters of the current region meet
/// (module docs), the bound `|T − d| <= a + r·d` held.
fn worst_widths(
    design: &Design,
    k: usize,
    bound: &Bound,
    fnew: &[Rat],
    targets: &[Vec<Rat>],
) -> Vec<Option<Rat>> {
    let mut rows = Vec::with_capacity(8 * design.groups.len() + 2);
    region_rows(design, k, bound, 0, &mut rows);
    region_rows(design, k, bound, 1, &mut rows);
    // A d_new within the bound of both predictions T1, T2 exists exactly
    // when (1 − r)·T1 − (1 + r)·T2 <= 2a and the same with T1, T2 swapped
    // (for r = 0: |T1 − T2| <= 2a); with T = f0 + f·c that is linear.
    let one = Rat::from_integer(1.into());
    let two = Rat::from_integer(2.into());
    let (a, r) = (&bound.absolute, &bound.relative);
    let (p, m) = (&one - r, &one + r);
    let f = &fnew[1..];
    let rhs = &two * a + &two * r * &fnew[0];
    let first: Vec<Rat> = f.iter().map(|v| v * &p).chain(f.iter().map(|v| -(v * &m))).collect();
    let second: Vec<Rat> = f.iter().map(|v| -(v * &m)).chain(f.iter().map(|v| v * &p)).collect();
    rows.push(Constraint::new(first, Kind::Le, rhs.clone()));
    rows.push(Constraint::new(second, Kind::Le, rhs));
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
    let opts = opts.for_search(targets);
    let base = Analysis::run_rows(&model, data, file, &opts)?;
    let k = model.k();
    let eval = |x: &Vec<Rat>, what: &str| -> Result<Vec<Rat>, AnalysisError> {
        let mut log = model.new_log();
        model
            .basis_at(x, &mut log)
            .map_err(|e| AnalysisError::Fit(FitError::Eval(Box::new(model.eval_diagnostic(&e, x, what)))))
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
            let run = Analysis::run_rows(&model, &more, file, &opts);
            let per = |a: &Analysis, f: &dyn Fn(&crate::analysis::Prediction, usize) -> Option<Band>| {
                (0..a.regions.len()).map(|t| a.predictions.iter().map(|p| f(p, t)).collect()).collect()
            };
            let expected_measurement: Vec<Vec<Option<Band>>> =
                run.as_ref().map_or_else(|_| vec![], |a| per(a, &|p, t| p.measurement[t].clone()));
            let expected = run.map(|a| -> Vec<Vec<Option<Band>>> { per(&a, &|p, t| p.bands[t].clone()) });
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
                    if r.vertices.is_empty() {
                        vec![None; targets.len()]
                    } else {
                        worst_widths(&base.design, k, &r.bound, b, &target_basis)
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
            (
                i,
                Planned {
                    x: x.clone(),
                    d_new,
                    expected,
                    expected_measurement,
                    expected_ratio,
                    worst,
                    worst_ratio,
                },
            )
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

    #[test]
    fn relative_bounds_have_a_worst_case_too() {
        let (m, data) = crate::testdata::hpl("param c1, c2");
        let opts = Options { thresholds: vec![Threshold::parse("5%").unwrap()], ..Options::default() };
        let cands: Vec<Vec<Rat>> = [130, 200, 300].iter().map(|&p| vec![int(p)]).collect();
        let p = plan(&m, &data, "hpl.csv", &opts, &[vec![int(1000)]], &cands, &|_| {}).unwrap();
        let w0 = p.base.predictions[0].bands[0].as_ref().unwrap().width().unwrap();
        for r in &p.rows {
            // A fixed relative bound: the expected new point (zero residual)
            // is one of the d_new the worst case ranges over.
            let e = r.expected.as_ref().unwrap()[0][0].as_ref().unwrap().width().unwrap();
            let w = r.worst[0][0].clone().expect("a finite worst case");
            assert!(e <= w && w <= w0, "{e} {w} {w0}");
            assert!(r.expected_measurement[0][0].is_some());
        }
    }
}
