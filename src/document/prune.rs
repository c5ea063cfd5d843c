//! `errband prune --format json`: the unpruned analysis and every
//! candidate pruning, ranked.

use super::{
    params, point, Band, DataInfo, Exact, Header, ModelInfo, Param, Point, Rms, Row, TargetBand, Threshold,
};
use crate::data::Measurement;
use crate::model::Model;
use crate::prune::{Comparison, Origin};
use crate::Rat;
use schemars::JsonSchema;
use serde::Serialize;

/// The comparison of candidate prunings of one data set.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PruneDocument {
    /// Version, command and shape.
    #[serde(flatten)]
    pub header: Header,
    /// The one-line answer: the best candidate, or why none helps.
    pub verdict: String,
    /// The model.
    pub model: ModelInfo,
    /// The data.
    pub data: DataInfo,
    /// The prediction points the bands are compared at.
    pub targets: Vec<Point>,
    /// The analysis of all the data.
    pub unpruned: PruneFit,
    /// Every candidate, best first: those whose band at the first
    /// threshold stays inside the unpruned band at every target, then by
    /// the largest width ratio over the targets, smaller first.
    pub candidates: Vec<PruneCandidate>,
}

/// One analysis: the fit, e_max and the bands at the targets.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PruneFit {
    /// The fitted parameters.
    pub params: Vec<Param>,
    /// The largest absolute residual of the fit.
    pub max_residual: Exact,
    /// The smallest achievable largest absolute residual (e_max).
    pub emax: Exact,
    /// The root mean square of the fit's residuals.
    pub rms: Rms,
    /// A band per threshold and target.
    pub bands: Vec<TargetBand>,
}

/// One candidate pruning.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PruneCandidate {
    /// Its rank (1: best).
    pub rank: usize,
    /// The points whose measurements it drops.
    pub drop: Vec<Point>,
    /// The measurements it drops.
    pub rows: Vec<Row>,
    /// The searches that proposed it (`leave-one-out`, `greedy 1`, a
    /// user's `candidate N`).
    pub sources: Vec<String>,
    /// Why the pruned data could not be analysed (`null`: it could).
    pub error: Option<String>,
    /// The analysis of the pruned data (`null` when it failed).
    pub fit: Option<PruneFit>,
    /// Its band at the first threshold leaves the unpruned band at some
    /// target (`null` when it failed).
    pub leaves_unpruned_band: Option<bool>,
    /// What it is ranked by: the largest width ratio over the targets.
    pub rank_key: Option<Exact>,
}

impl PruneDocument {
    /// The document of comparison `c` of `model` on `data` (read from
    /// `data_file`), with `verdict` as its answer.
    pub fn new(
        model: &Model,
        data_file: &str,
        data: &[Measurement],
        c: &Comparison,
        verdict: String,
        digits: usize,
    ) -> PruneDocument {
        let a = &c.base;
        let ex = |x: &Rat| Exact::new(x, digits);
        let unpruned_bands = TargetBand::all_of(model, a, digits);
        let candidates = c
            .outcomes
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let (error, fit, leaves) = match &o.result {
                    Err(e) => (Some(e.short_reason()), None, None),
                    Ok(s) => {
                        let bands = s
                            .bands
                            .iter()
                            .enumerate()
                            .flat_map(|(t, row)| row.iter().enumerate().map(move |(j, b)| (t, j, b)))
                            .map(|(t, j, b)| TargetBand {
                                threshold: Threshold::bound(
                                    &a.regions[t].threshold.text,
                                    Some(&s.bounds[t]),
                                    digits,
                                ),
                                target: point(model, &c.targets[j]),
                                band: Band::of(b.as_ref(), None, digits),
                                measurement_band: Band::of(s.measurement[t][j].as_ref(), None, digits),
                                ratio: Exact::opt(s.ratios[t][j].as_ref(), digits),
                            })
                            .collect();
                        let fit = PruneFit {
                            params: params(model, &s.params, digits),
                            max_residual: ex(&s.max_abs),
                            emax: ex(&s.emax),
                            rms: Rms::new(&s.mean_square, digits),
                            bands,
                        };
                        (None, Some(fit), Some(s.leaves))
                    }
                };
                PruneCandidate {
                    rank: i + 1,
                    drop: o.candidate.points.iter().map(|&g| point(model, &a.design.groups[g].x)).collect(),
                    rows: o.candidate.rows.iter().map(|&r| Row { row: r + 1, line: data[r].line }).collect(),
                    sources: o
                        .candidate
                        .origins
                        .iter()
                        .map(|g| match g {
                            Origin::User(t) => format!("candidate {t}"),
                            other => other.label(),
                        })
                        .collect(),
                    error,
                    fit,
                    leaves_unpruned_band: leaves,
                    rank_key: Exact::opt(o.key().as_ref(), digits),
                }
            })
            .collect();
        PruneDocument {
            header: Header::new(super::Command::Prune),
            verdict,
            model: ModelInfo::of(model, &a.design.log),
            data: DataInfo::of(data_file, &a.design),
            targets: c.targets.iter().map(|t| point(model, t)).collect(),
            unpruned: PruneFit {
                params: params(model, &a.params, digits),
                max_residual: ex(&a.residuals.max_abs),
                emax: ex(&a.emax),
                rms: Rms::new(&a.residuals.mean_square, digits),
                bands: unpruned_bands,
            },
            candidates,
        }
    }
}
