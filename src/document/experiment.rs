//! `errband MODEL DATA --format json` on data of several series (an
//! Extra-P experiment, a CUBE profile, `--by` groups): the summary table
//! and every series' analysis. Both arrays are written as the series are
//! analysed ([`LongArray`]), so the document is never held whole.

use super::analysis::{AnalysisDocument, CoverageDocument};
use super::{Exact, Header, LongArray, ModelInfo, Param};
use schemars::JsonSchema;
use serde::Serialize;

/// The analysis of every series of an experiment.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ExperimentDocument {
    /// Version, command and shape.
    #[serde(flatten)]
    pub header: Header,
    /// The experiment.
    pub experiment: ExperimentInfo,
    /// One row per series, the widest relative band first.
    pub summary: LongArray<SummaryRow>,
    /// Every series' analysis, in file order.
    pub analyses: LongArray<SeriesAnalysis<'static>>,
    /// With `--holdout`: the coverage over every series.
    pub holdout: Option<ExperimentHoldout>,
    /// Why the run stopped before every series was analysed (`null`: it
    /// did not).
    pub stopped: Option<String>,
}

/// The experiment read.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ExperimentInfo {
    /// The file, as named.
    pub file: String,
    /// Its format.
    pub format: String,
    /// Series in the file.
    pub series: usize,
    /// Series selected for analysis.
    pub selected: usize,
    /// How repetitions were aggregated: `all`, `mean`, `median`, `min`,
    /// `max`.
    pub aggregate: String,
    /// The model every series is analysed with (as declared; each series'
    /// analysis says which values were rounded).
    pub model: ModelInfo,
}

/// One series in the summary table.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SummaryRow {
    /// Its callpath.
    pub callpath: String,
    /// Its metric.
    pub metric: String,
    /// Why it could not be analysed (`null`: it was; the other keys are
    /// `null` when it was not).
    pub error: Option<String>,
    /// Distinct points.
    pub points: Option<usize>,
    /// Measurements.
    pub measurements: Option<usize>,
    /// The model's body (the form found, without a model file).
    pub model: Option<String>,
    /// Its parameters.
    pub params: Option<Vec<Param>>,
    /// e_max.
    pub emax: Option<Exact>,
    /// The widest relative half-width of its bands at the first threshold.
    pub widest_relative_half_width: Option<Exact>,
    /// With a family: how many forms, and how many are consistent at each
    /// threshold.
    pub family: Option<SummaryFamily>,
}

/// A series' family in the summary.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SummaryFamily {
    /// Forms fitted.
    pub forms: usize,
    /// Per threshold.
    pub consistent: Vec<ConsistentForms>,
}

/// How many forms are consistent at one threshold.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ConsistentForms {
    /// The threshold's label.
    pub label: String,
    /// Forms consistent there.
    pub forms: usize,
}

/// One series' analysis.
// Its document is borrowed while the experiment's renderers also read it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SeriesAnalysis<'a> {
    /// Its callpath.
    pub callpath: String,
    /// Its metric.
    pub metric: String,
    /// Why it could not be analysed (`null`: it was).
    pub error: Option<String>,
    /// Its analysis (`null` when it failed).
    pub report: Option<std::borrow::Cow<'a, AnalysisDocument>>,
}

/// The coverage over every series of an experiment.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ExperimentHoldout {
    /// The `--holdout` condition.
    pub condition: String,
    /// Per threshold and band.
    pub coverage: Vec<CoverageDocument>,
}

impl ExperimentDocument {
    /// A document whose summary and analyses stand as `summary` and
    /// `analyses`, the markers the writer replaces.
    pub(crate) fn markers(
        summary: &str,
        analyses: &str,
    ) -> (LongArray<SummaryRow>, LongArray<SeriesAnalysis<'static>>) {
        (LongArray::new(summary.into()), LongArray::new(analyses.into()))
    }
}
