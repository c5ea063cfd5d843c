//! `errband check --format json`: new measurements judged against the
//! bands of a baseline.

use super::{Exact, Header, Point};
use crate::check::{CheckReport, Counts, Verdict};
use crate::num::Rat;
use num_traits::Signed;
use schemars::JsonSchema;
use serde::Serialize;

/// `errband check --format json`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CheckDocument {
    /// Version, command and shape.
    #[serde(flatten)]
    pub header: Header,
    /// `above`, `outside` or `never`.
    pub fail_on: String,
    /// True when the check failed (exit code 1).
    pub failed: bool,
    /// How many measurements were judged each way.
    pub counts: Counts,
    /// The series checked, with the form whose band they were checked against.
    pub series: Vec<CheckedSeries>,
    /// One entry per new measurement.
    pub results: Vec<Judgement>,
}

/// A series of the baseline.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CheckedSeries {
    /// `callpath / metric`; empty for a single series.
    pub name: String,
    /// The callpath.
    pub callpath: String,
    /// The metric.
    pub metric: String,
    /// The function's name.
    pub function: String,
    /// The variables.
    pub variables: Vec<String>,
    /// The function's unit.
    pub unit: Option<String>,
    /// The form whose band it is.
    pub form: String,
}

/// One new measurement judged.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Judgement {
    /// The series' name (empty for a single series).
    pub series: String,
    /// The point, variable by variable.
    pub point: Point,
    /// The file of the measurement.
    pub file: String,
    /// Its line.
    pub line: usize,
    /// Where within the line (`run 2 of 3`).
    pub note: Option<String>,
    /// The measured value.
    pub measured: Exact,
    /// The mean of the runs it belongs to (hyperfine).
    pub mean: Option<Exact>,
    /// `inside`, `above`, `below` or `no_band`.
    pub verdict: Verdict,
    /// True when this measurement fails the check.
    pub fails: bool,
    /// The form's prediction.
    pub value: Option<Exact>,
    /// The band's lower edge (null: none).
    pub lower: Option<Exact>,
    /// The band's upper edge (null: none).
    pub upper: Option<Exact>,
    /// The lower edge is bounded by zero.
    pub clipped: bool,
    /// Relative to the edge crossed: `(measured − edge)/edge`.
    pub deviation: Option<Exact>,
    /// The deviation in percent, 3 significant digits, signed.
    pub deviation_percent: Option<String>,
    /// Why there is no band.
    pub refused: Option<String>,
}

impl CheckDocument {
    /// The JSON document.
    pub fn new(r: &CheckReport, digits: usize) -> CheckDocument {
        CheckDocument {
            header: Header::new(super::Command::Check),
            fail_on: r.fail_on.name().into(),
            failed: r.failed(),
            counts: r.counts(),
            series: r
                .expected
                .iter()
                .map(|e| CheckedSeries {
                    name: e.name(),
                    callpath: e.callpath.clone(),
                    metric: e.metric.clone(),
                    function: e.func.clone(),
                    variables: e.vars.clone(),
                    unit: e.unit.clone(),
                    form: e.form.clone(),
                })
                .collect(),
            results: r
                .results
                .iter()
                .map(|j| {
                    let e = &r.expected[j.series];
                    Judgement {
                        series: e.name(),
                        point: e
                            .vars
                            .iter()
                            .zip(&j.measurement.x)
                            .map(|(v, x)| (v.clone(), crate::model::show_value(x)))
                            .collect(),
                        file: j.file.clone(),
                        line: j.measurement.line,
                        note: j.measurement.note.clone(),
                        measured: Exact::new(&j.measurement.y, digits),
                        mean: j.measurement.mean.as_ref().map(|m| Exact::new(m, digits)),
                        verdict: j.verdict,
                        fails: r.fails(j),
                        value: j.value.as_ref().map(|v| Exact::new(v, digits)),
                        lower: j.band.as_ref().and_then(|b| b.lower.as_ref()).map(|v| Exact::new(v, digits)),
                        upper: j.band.as_ref().and_then(|b| b.upper.as_ref()).map(|v| Exact::new(v, digits)),
                        clipped: j.band.as_ref().is_some_and(|b| b.clipped),
                        deviation: j.deviation.as_ref().map(|d| Exact::new(d, digits)),
                        deviation_percent: j.deviation.as_ref().map(percent),
                        refused: j.refusal.clone(),
                    }
                })
                .collect(),
        }
    }
}

/// `+12.3 %`, `-4.1 %`.
pub(crate) fn percent(x: &Rat) -> String {
    let p = crate::num::fmt_pct_sig(x, 3);
    if x.is_negative() {
        format!("{p} %")
    } else {
        format!("+{p} %")
    }
}
