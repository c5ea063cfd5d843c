//! `errband plan --format json`: candidate points for the next
//! measurement, ranked by the bands they would leave at the targets.

use super::{point, Band, BandStatus, DataInfo, Exact, Header, ModelInfo, Point, TargetBand, Threshold};
use crate::model::Model;
use crate::plan::Plan;
use schemars::JsonSchema;
use serde::Serialize;

/// The ranked candidates of a measurement plan.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PlanDocument {
    /// Version, command and shape.
    #[serde(flatten)]
    pub header: Header,
    /// The one-line answer: where to measure next.
    pub verdict: String,
    /// The model.
    pub model: ModelInfo,
    /// The current data.
    pub data: DataInfo,
    /// The prediction points the bands are compared at.
    pub targets: Vec<Point>,
    /// The bands of the current data, per threshold and target.
    pub current: Vec<TargetBand>,
    /// Every candidate point, best first (smallest expected width ratio at
    /// the first threshold over the targets).
    pub candidates: Vec<PlanCandidate>,
}

/// One candidate point for the next measurement.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PlanCandidate {
    /// Its rank (1: best).
    pub rank: usize,
    /// The point.
    pub point: Point,
    /// The measurement assumed in the expected case: the model's
    /// prediction there, `T(C, x_new)`.
    pub d_new: Exact,
    /// What it is ranked by: the largest expected width ratio over the
    /// targets at the first threshold.
    pub rank_key: Option<Exact>,
    /// Its bands per threshold and target.
    pub bands: Vec<PlannedBand>,
}

/// What one candidate leaves at one target under one threshold.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PlannedBand {
    /// The threshold, resolved on the current data and held there.
    pub threshold: Threshold,
    /// The target.
    pub target: Point,
    /// Expected case: the band after adding the measurement `d_new`,
    /// re-analysed exactly (`status: failed` with the reason when the
    /// extended data cannot be analysed).
    pub expected: Band,
    /// Expected case: the band of a new measurement at the target.
    pub expected_measurement: Band,
    /// The expected width over the current width (`null`: infinite or
    /// undefined).
    pub expected_ratio: Option<Exact>,
    /// Worst case: the widest band over every new measurement in the band
    /// of a new measurement at the candidate, the threshold's bound held
    /// at its current value (an exact LP).
    pub worst: Worst,
}

/// The worst case of a candidate at one target.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Worst {
    /// The largest band width (`null`: unbounded, or the current region is
    /// empty).
    pub width: Option<Exact>,
    /// That width over the current width.
    pub ratio: Option<Exact>,
}

impl PlanDocument {
    /// The document of `plan` for `model` on the data in `data_file`, with
    /// `verdict` as its answer.
    pub fn new(model: &Model, data_file: &str, plan: &Plan, verdict: String, digits: usize) -> PlanDocument {
        let a = &plan.base;
        let current = TargetBand::all_of(model, a, digits);
        let candidates = plan
            .rows
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let bands = a
                    .regions
                    .iter()
                    .enumerate()
                    .flat_map(|(t, r)| plan.targets.iter().enumerate().map(move |(j, x)| (t, r, j, x)))
                    .map(|(t, r, j, x)| {
                        let (expected, expected_measurement) = match &p.expected {
                            Ok(b) => (
                                Band::of(b[t][j].as_ref(), None, digits),
                                Band::of(
                                    p.expected_measurement.get(t).and_then(|r| r[j].as_ref()),
                                    None,
                                    digits,
                                ),
                            ),
                            Err(e) => {
                                let failed = Band::none(BandStatus::Failed, e.short_reason());
                                (failed.clone(), failed)
                            }
                        };
                        PlannedBand {
                            threshold: Threshold::of(r, digits),
                            target: point(model, x),
                            expected,
                            expected_measurement,
                            expected_ratio: Exact::opt(p.expected_ratio[t][j].as_ref(), digits),
                            worst: Worst {
                                width: Exact::opt(p.worst[t][j].as_ref(), digits),
                                ratio: Exact::opt(p.worst_ratio[t][j].as_ref(), digits),
                            },
                        }
                    })
                    .collect();
                PlanCandidate {
                    rank: i + 1,
                    point: point(model, &p.x),
                    d_new: Exact::new(&p.d_new, digits),
                    rank_key: Exact::opt(p.key().as_ref(), digits),
                    bands,
                }
            })
            .collect();
        PlanDocument {
            header: Header::new(super::Command::Plan),
            verdict,
            model: ModelInfo::of(model, &a.design.log),
            data: DataInfo::of(data_file, &a.design),
            targets: plan.targets.iter().map(|t| point(model, t)).collect(),
            current,
            candidates,
        }
    }
}
