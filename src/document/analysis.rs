//! `errband MODEL DATA --format json`: the analysis of one series: the
//! fit, e_max, the regions of parameter perturbations, the bands at the
//! prediction points, and what was asked besides (a pruned refit, the band
//! as a function, a family of forms, a backtest, the recommended band).

use super::qe::QeResultDoc;
use super::{
    params, point, Band, BandStatus, DataInfo, Exact, Header, LongArray, ModelInfo, Param, Point, Rms,
    Threshold,
};
use crate::analysis::{Analysis, Prediction, Region, Shape};
use crate::backtest::{Backtest, Coverage};
use crate::data::Measurement;
use crate::envelope::{BandFunction, Piece};
use crate::family::{FamilyAnalysis, Hull};
use crate::model::{FitMode, Model};
use crate::num::NumFormat;
use crate::trust::{Outcome, Recommendation, Refusal};
use crate::Rat;
use num_traits::{Signed, Zero};
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::BTreeMap;

/// The analysis of one series.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AnalysisDocument {
    /// Version, command and shape.
    #[serde(flatten)]
    pub header: Header,
    /// The model.
    pub model: ModelInfo,
    /// The data.
    pub data: AnalysisData,
    /// The analysis of all the data.
    #[serde(flatten)]
    pub analysis: FitDocument,
    /// With `--drop`: the analysis without the dropped measurements.
    pub pruned: Option<PrunedDocument>,
    /// With `--envelope`: each band as a function of the point, and its
    /// width as a function of the threshold.
    pub band_function: Option<BandFunctionDocument>,
    /// With a family of forms: every form, ranked, and the family band.
    pub family: Option<FamilyDocument>,
    /// With `--holdout`: the held-out measurements against the bands.
    pub holdout: Option<HoldoutDocument>,
    /// The band errband recommends for the next measurement at each
    /// prediction point (`null`: none could be given).
    pub recommendation: Option<RecommendationDocument>,
    /// Why there is no recommended band (`null` when there is one, or when
    /// none was asked for).
    pub recommendation_error: Option<String>,
    /// The measurements set aside before a change of trend (empty: none).
    pub set_aside: Vec<SetAside>,
    /// The model is the family's best form, found from the data without a
    /// model file.
    pub discovered: bool,
}

/// The data of an analysis.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AnalysisData {
    /// File, measurements and points.
    #[serde(flatten)]
    pub info: DataInfo,
    /// Warnings about the data (duplicate lines, …).
    pub warnings: Vec<String>,
}

/// How the parameters were found.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FitKind {
    /// Least squares, solved exactly.
    Lsq,
    /// Given in the model (`--no-fit`).
    None,
}

/// One analysis: the fit, e_max, the regions and the bands.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FitDocument {
    /// How the parameters were found.
    pub fit: FitKind,
    /// The parameters.
    pub params: Vec<Param>,
    /// One row per measurement, in the order of the data.
    pub residuals: LongArray<ResidualRow>,
    /// The largest absolute residual and its row.
    pub max_residual: MaxResidual,
    /// The root mean square of the residuals.
    pub rms: Rms,
    /// e_max: the smallest largest absolute residual any parameters reach.
    pub emax: Emax,
    /// The fit's largest relative residual `max |e_i|/d_i` (`null` when a
    /// measurement is not positive).
    pub rmax: Option<Exact>,
    /// The smallest largest relative residual any parameters reach (`null`
    /// when a measurement is not positive).
    pub remax: Option<Exact>,
    /// The region of parameter perturbations per threshold.
    pub regions: Vec<RegionDocument>,
    /// The bands at each prediction point.
    pub bands: Vec<PointBands>,
    /// The minimax refit, when its parameters differ from the fit's
    /// (`null` otherwise).
    pub hint: Option<Hint>,
}

/// One measurement and its residual.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ResidualRow {
    /// Its number among the measurements (from 1).
    pub row: usize,
    /// Its line in the data file.
    pub line: usize,
    /// Its point.
    pub point: Point,
    /// The measured value.
    pub measured: Exact,
    /// The model's value there.
    pub model: Exact,
    /// model − measured.
    pub residual: Exact,
}

impl ResidualRow {
    /// Measurement `i` of `data`, row `row` of the file's measurements
    /// (from 1), against `a`'s fit.
    pub fn new(
        m: &Model,
        a: &Analysis,
        data: &[Measurement],
        i: usize,
        row: usize,
        digits: usize,
    ) -> ResidualRow {
        let d = &data[i];
        ResidualRow {
            row,
            line: d.line,
            point: point(m, &d.x),
            measured: Exact::new(&d.y, digits),
            model: Exact::new(&a.residuals.model(i), digits),
            residual: Exact::new(&a.residuals.e(data, i), digits),
        }
    }
}

/// The largest absolute residual.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MaxResidual {
    /// Its value.
    #[serde(flatten)]
    pub value: Exact,
    /// The row (from 1) where the fit reaches it.
    pub row: usize,
    /// That row's point.
    pub point: Point,
}

/// e_max.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Emax {
    /// Its value.
    #[serde(flatten)]
    pub value: Exact,
    /// The parameter perturbation Δc that reaches it.
    pub dc: BTreeMap<String, Exact>,
    /// That perturbation is the only one.
    pub unique: bool,
    /// The vertices of the region at e_max were listed (when they were not
    /// and `unique` is false, `dc` is one perturbation that reaches it;
    /// when they were, the mean of the vertices).
    pub listed: bool,
    /// The point whose repeated measurements lie 2·e_max apart, when that
    /// is what sets e_max: no model can do better (`null`: none does).
    pub spread_at: Option<Point>,
}

/// The shape of a region.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RegionShape {
    /// No parameters meet the threshold.
    Empty,
    /// One point.
    Point,
    /// A bounded polytope.
    Bounded,
    /// Unbounded: it has rays or lines.
    Unbounded,
    /// The threshold cannot be trusted: no region is given.
    Untrusted,
    /// Its vertices were not listed (a limit); its bands are exact LPs.
    Unlisted,
}

/// The region of parameter perturbations under one threshold.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RegionDocument {
    /// The threshold, resolved on the data.
    pub threshold: Threshold,
    /// What the threshold stands for, where it is a name (`trusted`).
    pub definition: Option<String>,
    /// Its shape.
    pub shape: RegionShape,
    /// Why there is no region (`null` unless `untrusted`).
    pub reason: Option<String>,
    /// Its vertices, over the Δ variables.
    pub vertices: Vec<BTreeMap<String, Exact>>,
    /// Its rays.
    pub rays: Vec<BTreeMap<String, Exact>>,
    /// Its lines.
    pub lines: Vec<BTreeMap<String, Exact>>,
    /// Why the vertices were not listed (`null` unless `unlisted`).
    pub unlisted: Option<Unlisted>,
    /// The region in cylindrical form (`null` when it has no cells).
    pub cylindrical: Option<Cylindrical>,
}

/// A region whose vertices were not listed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Unlisted {
    /// Vertices found before the limit.
    pub vertices_reached: usize,
    /// The limit (`--max-vertices`).
    pub max_vertices: usize,
    /// Which limit stopped it: `work` or `vertices`.
    pub limit: String,
}

/// A region in cylindrical form.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Cylindrical {
    /// The variables' order.
    pub order: Vec<String>,
    /// The cells as text, with exact numbers.
    pub text: String,
    /// The same cells with correctly rounded decimals.
    pub text_decimal: String,
    /// The QE result.
    pub result: QeResultDoc,
}

/// The bands at one prediction point.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PointBands {
    /// The point.
    pub point: Point,
    /// The model's prediction there.
    pub model: Exact,
    /// Beyond the measured range.
    pub extrapolated: bool,
    /// The variables whose value here lies outside the range they were
    /// measured over, in the model's order (empty: none).
    pub beyond: Vec<String>,
    /// One per threshold.
    pub bands: Vec<ThresholdBand>,
}

/// The bands at one point under one threshold.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ThresholdBand {
    /// The threshold.
    pub threshold: Threshold,
    /// The band of the model's prediction.
    pub band: Band,
    /// The band of a new measurement (the prediction's band widened by the
    /// threshold's bound).
    pub measurement_band: Band,
}

/// The minimax refit.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Hint {
    /// Its parameters.
    pub params: Vec<Param>,
    /// Its largest absolute residual: e_max.
    pub max_residual: Exact,
    /// Its RMS.
    pub rms: Rms,
}

/// The analysis without the dropped measurements.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PrunedDocument {
    /// The analysis of the rest.
    #[serde(flatten)]
    pub analysis: FitDocument,
    /// The measurements dropped.
    pub dropped: Vec<Dropped>,
    /// Per prediction point, how much of the full band's width each
    /// threshold's pruned band keeps.
    pub shrink: Vec<Shrink>,
}

/// A dropped measurement.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Dropped {
    /// Its number among the measurements (from 1).
    pub row: usize,
    /// Its line.
    pub line: usize,
    /// Its point.
    pub point: Point,
}

/// How much narrower the pruned bands are at one point.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Shrink {
    /// The point.
    pub point: Point,
    /// Per threshold.
    pub ratios: Vec<ShrinkRatio>,
}

/// The pruned width over the full width under one threshold.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ShrinkRatio {
    /// The threshold's label.
    pub label: String,
    /// The ratio (`null` when either width is infinite or the full one 0).
    pub ratio: Option<Exact>,
}

/// The band as a function of a one-variable model's point.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BandFunctionDocument {
    /// The range of the variable it covers.
    pub range: Range,
    /// The envelopes per threshold.
    pub envelopes: Vec<EnvelopeDocument>,
    /// Per prediction point, the band at every threshold from e_max up.
    pub width_vs_threshold: Vec<WidthCurve>,
}

/// A range `[from, to]`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Range {
    /// The lower end.
    pub from: Exact,
    /// The upper end.
    pub to: Exact,
}

/// The upper and lower envelopes of the band under one threshold.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EnvelopeDocument {
    /// The threshold's label.
    pub label: String,
    /// Why there is no envelope (`null`: there is one).
    pub skipped: Option<String>,
    /// The upper envelope, piece by piece.
    pub upper: Vec<EnvelopePiece>,
    /// The lower envelope.
    pub lower: Vec<EnvelopePiece>,
}

/// One piece of an envelope: where one vertex of the region gives it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EnvelopePiece {
    /// Where it starts: exact when `from_exact`, else the lower end of an
    /// exact enclosure of the switch point.
    pub from: Exact,
    /// Where it ends (likewise with `to_exact`).
    pub to: Exact,
    /// `from` is the exact switch point.
    pub from_exact: bool,
    /// `to` is the exact switch point.
    pub to_exact: bool,
    /// The vertex (from 1).
    pub vertex: usize,
    /// The parameters at that vertex.
    pub params: Vec<Exact>,
}

/// The band at one point as a function of the threshold.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct WidthCurve {
    /// The point.
    pub point: Point,
    /// At each breakpoint of the threshold.
    pub breakpoints: Vec<Breakpoint>,
}

/// The band at one threshold value.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Breakpoint {
    /// The threshold's value.
    pub value: Exact,
    /// The band there.
    pub band: Band,
}

/// The family of forms.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FamilyDocument {
    /// The thresholds the forms are judged at.
    pub thresholds: Vec<Threshold>,
    /// Every form, best first: consistent at more thresholds, positive
    /// predictions, a passed self-check, fewer parameters, the
    /// cross-validated prediction error, remax, the mean square.
    pub forms: Vec<FormDocument>,
    /// Forms not fitted, and why.
    pub skipped: Vec<SkippedForm>,
    /// The family band per prediction point and threshold.
    pub bands: Vec<FamilyBand>,
    /// The data fall as the variable grows, but every form grows: the best
    /// follows the fall with a negative coefficient (`--family pmnf` on
    /// falling data; `--family scaling` adds decreasing forms).
    pub falls_without_decreasing_form: bool,
    /// The data grow faster than the family's steepest term over the three
    /// largest scales (`null`: they do not, or the family holds forms of a
    /// model file): no form of the family follows them, and a model file
    /// can hold a steeper one.
    pub steeper_than_family: Option<SteeperDocument>,
}

/// Where the data grow faster than every form of the family.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SteeperDocument {
    /// The family's steepest growing term (`p^3*log2(p)`).
    pub term: String,
    /// The first and the last of the three largest scales.
    pub between: Range,
}

/// One form of the family.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FormDocument {
    /// Its rank (1: best).
    pub rank: usize,
    /// The form.
    pub form: String,
    /// Where it comes from: `model`, `family line`, `pmnf`, …
    pub from: String,
    /// Its fitted parameters.
    pub params: Vec<Param>,
    /// remax (`null` when a measurement is not positive).
    pub remax: Option<Exact>,
    /// rmax (`null` likewise).
    pub rmax: Option<Exact>,
    /// e_max.
    pub emax: Exact,
    /// Its largest absolute residual.
    pub max_residual: Exact,
    /// Its RMS.
    pub rms: Rms,
    /// Whether it is consistent with the data at each threshold.
    pub consistent: Vec<Consistent>,
    /// It predicts a positive time at every prediction point.
    pub positive: bool,
    /// Its self-check (`null`: not made).
    pub self_check: Option<FormCheck>,
    /// Whether the family's thresholds are named from its statistics (as
    /// from every form with at least two distinct points more than
    /// coefficients; every form when none has).
    pub sets_threshold: bool,
}

/// A form's consistency at one threshold.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Consistent {
    /// The threshold's label.
    pub label: String,
    /// Some parameters of the form meet it.
    pub consistent: bool,
}

/// A form's self-check: fitted without the largest scale, does its band
/// there hold every measurement?
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FormCheck {
    /// The scale left out.
    pub at: Option<Exact>,
    /// `passed`, `missed`, `refused` or `not_checked`.
    pub outcome: CheckOutcome,
    /// Measurements there outside the band.
    pub missed: usize,
    /// Measurements there.
    pub of: usize,
    /// The smaller fit's band there: its largest half-width relative to
    /// the mean of the measurements at its point (`null`: not checked,
    /// refused, or unbounded).
    pub half_width: Option<Exact>,
}

/// What a self-check found.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CheckOutcome {
    /// Every measurement at the scale left out lies in the band.
    Passed,
    /// Some do not.
    Missed,
    /// The smaller fit gives no trusted band there.
    Refused,
    /// Not made (too few scales, or the fit failed).
    NotChecked,
}

impl CheckOutcome {
    fn of(o: &Outcome) -> CheckOutcome {
        match o {
            Outcome::Passed => CheckOutcome::Passed,
            Outcome::Missed { .. } => CheckOutcome::Missed,
            Outcome::Refused => CheckOutcome::Refused,
            Outcome::NotChecked(_) => CheckOutcome::NotChecked,
        }
    }
}

/// A form not fitted.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SkippedForm {
    /// The form.
    pub form: String,
    /// Why.
    pub why: String,
}

/// The family band at one point under one threshold.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FamilyBand {
    /// The point.
    pub point: Point,
    /// The threshold.
    pub threshold: Threshold,
    /// How many forms the hull covers.
    pub forms: usize,
    /// The hull of the consistent forms' bands.
    pub band: Band,
    /// The hull of their bands of a new measurement.
    pub measurement_band: Band,
    /// The best form's bands (`null`: it has none here).
    pub best_form: Option<FormBands>,
}

/// One form's bands at one point.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FormBands {
    /// The band of the prediction.
    pub band: Band,
    /// The band of a new measurement.
    pub measurement_band: Band,
}

/// A backtest on held-out measurements.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HoldoutDocument {
    /// The `--holdout` condition.
    pub condition: String,
    /// Measurements fitted on.
    pub fitted_on: usize,
    /// Measurements held out.
    pub held_out: usize,
    /// Each held-out measurement against each band.
    pub measurements: Vec<HeldOut>,
    /// The coverage per threshold and band.
    pub coverage: Vec<CoverageDocument>,
}

/// One held-out measurement.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HeldOut {
    /// Its number among the measurements (from 1).
    pub row: usize,
    /// Its line.
    pub line: usize,
    /// Its point.
    pub point: Point,
    /// Its value.
    pub measured: Exact,
    /// Against each band.
    pub bands: Vec<HeldOutBand>,
}

/// A held-out measurement against one band.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HeldOutBand {
    /// The threshold's label.
    pub label: String,
    /// Which band: `model`, `measurement`, `family` or `recommended`.
    pub kind: String,
    /// The band.
    pub band: Band,
    /// The measurement lies in it (`null`: no band).
    pub inside: Option<bool>,
    /// How far outside, relative to the measurement (0 inside).
    pub outside_by: Option<Exact>,
}

/// The coverage of one band kind under one threshold.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CoverageDocument {
    /// The threshold's label.
    pub label: String,
    /// Which band.
    pub kind: String,
    /// Measurements judged.
    pub measurements: usize,
    /// Inside their band.
    pub inside: usize,
    /// Points judged.
    pub points: usize,
    /// Measurements without a band.
    pub refused: usize,
    /// The median relative half-width of the bands.
    pub median_relative_half_width: Option<Exact>,
}

impl CoverageDocument {
    /// The document of coverage `c`.
    pub fn new(c: &Coverage, digits: usize) -> CoverageDocument {
        CoverageDocument {
            label: c.threshold.clone(),
            kind: c.kind.name().into(),
            measurements: c.measurements,
            inside: c.inside,
            points: c.points,
            refused: c.refused,
            median_relative_half_width: Exact::opt(c.median_half_width().as_ref(), digits),
        }
    }
}

/// The recommended band of the next measurement.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RecommendationDocument {
    /// The form it comes from.
    pub form: String,
    /// The noise it assumes on a measurement, relative.
    pub noise: Exact,
    /// The relative bound on every residual, with every repetition a
    /// constraint (`null`: none trusted). With
    /// `repetitions.band_from_medians` the band rests on the medians'
    /// bound (`repetitions.median_relative`) instead.
    pub relative: Option<Exact>,
    /// With repetitions: the bound on the repetitions' centres, and their
    /// spread.
    pub repetitions: Option<Repetitions>,
    /// The form's self-check.
    pub self_check: SelfCheck,
    /// A change of trend in the data (`null`: none found).
    pub regime: Option<RegimeDocument>,
    /// The band at each prediction point.
    pub points: Vec<RecommendedPoint>,
}

/// The spread of repetitions around their centres.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Repetitions {
    /// The relative bound the centres (medians) meet.
    pub median_relative: Option<Exact>,
    /// The largest relative spread below a centre.
    pub below: Exact,
    /// The largest relative spread above.
    pub above: Exact,
    /// Points with repetitions.
    pub points: usize,
    /// Most repetitions at one point.
    pub most: usize,
    /// Free deviations about the medians: the repetitions less one per
    /// point.
    pub free: usize,
    /// The band rests on the medians widened by the scatter alone: with 19
    /// free deviations or more, their range holds a new run that scatters
    /// as they did with probability (free − 1)/(free + 1), at least 90 %
    /// (false: it is also the hull with the band of every repetition a
    /// constraint).
    pub band_from_medians: bool,
    /// The point whose repetitions scatter most about its median (empty
    /// when no repetitions differ).
    pub widest_at: Point,
    /// There, the slowest repetition over the fastest (absent when the
    /// fastest is not positive).
    pub widest_ratio: Option<Exact>,
}

/// The recommended form's self-check.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SelfCheck {
    /// The scale left out.
    pub at: Option<Exact>,
    /// What it found.
    pub outcome: CheckOutcome,
    /// Measurements there above the band.
    pub above: usize,
    /// Below it.
    pub below: usize,
    /// Of how many.
    pub of: usize,
    /// The smaller fit's band there: its largest half-width relative to
    /// the mean of the measurements at its point (`null`: not checked,
    /// refused, or unbounded). A check passed by a very wide band says
    /// little.
    pub half_width: Option<Exact>,
    /// Why it was not made (`null` when it was).
    pub reason: Option<String>,
}

/// A change of trend.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RegimeDocument {
    /// The scales it lies between.
    pub between: Range,
    /// The scales set aside before it.
    pub set_aside: Vec<Exact>,
    /// Scales in the last segment.
    pub last_scales: usize,
    /// The tolerance the trend change exceeds.
    pub tolerance: Exact,
    /// The last segment was used for the recommendation.
    pub used: bool,
}

/// The recommended band at one point.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RecommendedPoint {
    /// The point.
    pub point: Point,
    /// The form's prediction (`null`: it cannot be evaluated there).
    pub value: Option<Exact>,
    /// The band of the next measurement.
    pub band: Band,
    /// Each end of the band relative to the prediction, `(end − value)/value`
    /// (`null`: no band, or the prediction is not positive).
    pub deviation: Option<Deviation>,
    /// Widened by the self-check.
    pub widened: bool,
    /// Widened to the family band at `trusted` because the form could not
    /// be self-checked (too few scales): how many forms that band spans
    /// (`null`: not widened so).
    pub family_forms: Option<usize>,
    /// Widened to the bands of the forms ranked alike with the chosen one
    /// (as many coefficients, consistent at the trusted threshold, a
    /// positive time at every point, the same self-check outcome and, with
    /// repetitions, fitting their medians within the chosen form's trusted
    /// bound on them): how many forms the band spans (`null`: not widened
    /// so).
    pub alike_forms: Option<usize>,
    /// The prediction of the same form fitted without the largest training
    /// scale, the fit of the self-check (`null`: not checked, or undefined
    /// there).
    pub without_largest: Option<Exact>,
    /// The band does not hold `without_largest`: the forecast rests on the
    /// measurements at the largest scale alone (a lasting change of trend
    /// or a one-off run; another run there tells them apart).
    pub hinges: bool,
    /// The band does not hold `value`: the least-squares fit strays from
    /// some measurement by more than the bound the band holds (it weighs
    /// absolute errors, which the largest measurements dominate): the form
    /// does not follow the data at both ends.
    pub value_outside: bool,
}

/// The ends of a band relative to the prediction.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Deviation {
    /// `(lower − value)/value` (`null`: unbounded below).
    pub lower: Option<Exact>,
    /// `(upper − value)/value` (`null`: unbounded above).
    pub upper: Option<Exact>,
}

/// A measurement set aside before a change of trend.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SetAside {
    /// Its line.
    pub line: usize,
    /// Its point.
    pub point: Point,
    /// Its value.
    pub measured: Exact,
}

/// The stand-in of the `n`-th long array of an analysis document,
/// replaced by the array while the document is written (`report::stream`).
pub(crate) fn placeholder(n: usize) -> String {
    format!("\u{0}errband-stream-{n}")
}

/// What an analysis document is made from.
pub struct AnalysisInputs<'a> {
    /// The model.
    pub model: &'a Model,
    /// The data file, as named.
    pub data_file: &'a str,
    /// The measurements.
    pub data: &'a [Measurement],
    /// Warnings about the data.
    pub warnings: &'a [String],
    /// The analysis.
    pub analysis: &'a Analysis,
    /// With `--drop`: the measurements dropped and the analysis without.
    pub pruned: Option<(&'a [usize], &'a Analysis)>,
    /// With `--envelope`.
    pub function: Option<&'a BandFunction>,
    /// With a family.
    pub family: Option<&'a FamilyAnalysis>,
    /// With `--holdout`.
    pub backtest: Option<&'a Backtest>,
    /// The recommended band.
    pub recommendation: Option<&'a Recommendation>,
    /// Why there is none.
    pub recommendation_error: Option<&'a str>,
    /// Measurements set aside before a change of trend.
    pub set_aside: &'a [Measurement],
    /// The model is the family's best form (no model file).
    pub discovered: bool,
    /// Significant digits of decimals.
    pub digits: usize,
}

fn dc_map(names: &[String], v: &[Rat], digits: usize) -> BTreeMap<String, Exact> {
    names.iter().zip(v).map(|(n, x)| (n.clone(), Exact::new(x, digits))).collect()
}

/// The fit of `a` (its residual table in long array `slot`; `max_row`,
/// from 1, is the row where the fit reaches its largest residual).
pub fn fit_document(m: &Model, a: &Analysis, max_row: usize, slot: usize, digits: usize) -> FitDocument {
    let ex = |x: &Rat| Exact::new(x, digits);
    let regions = a.regions.iter().map(|r| region(a, r, digits)).collect();
    let bands = prediction_bands(m, a, digits);
    FitDocument {
        fit: if a.fit == FitMode::Given { FitKind::None } else { FitKind::Lsq },
        params: params(m, &a.params, digits),
        residuals: LongArray::new(placeholder(slot)),
        max_residual: MaxResidual {
            value: ex(&a.residuals.max_abs),
            row: max_row,
            // Every analysis has a row per measurement; an empty point only
            // if a caller built one without (no panic on library input).
            point: a
                .design
                .group_of
                .get(a.residuals.argmax)
                .and_then(|&g| a.design.groups.get(g))
                .map_or_else(Point::default, |g| point(m, &g.x)),
        },
        rms: Rms::new(&a.residuals.mean_square, digits),
        emax: Emax {
            value: ex(&a.emax),
            dc: dc_map(&a.dnames, &a.emax_dc, digits),
            unique: a.emax_unique,
            listed: a.emax_listed,
            spread_at: spread_at(m, a),
        },
        rmax: Exact::opt(a.rmax.as_ref(), digits),
        remax: Exact::opt(a.remax.as_ref(), digits),
        regions,
        bands,
        hint: a.hint.as_ref().map(|(refit, ms)| Hint {
            params: params(m, refit, digits),
            max_residual: ex(&a.emax),
            rms: Rms::new(ms, digits),
        }),
    }
}

/// The point whose repeated measurements set e_max: half their spread is
/// e_max, which no model can undercut.
fn spread_at(m: &Model, a: &Analysis) -> Option<Point> {
    if a.emax.is_zero() {
        return None;
    }
    // Spread = 2·e_max, compared without a division per point.
    let spread = crate::num::add(&a.emax, &a.emax);
    a.design
        .groups
        .iter()
        .find(|g| crate::num::sub_lowest(&g.ymax, &g.ymin) == spread)
        .map(|g| point(m, &g.x))
}

/// The residuals at one distinct point.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PointResiduals {
    /// The point.
    pub point: Point,
    /// Measurements there.
    pub count: usize,
    /// The smallest measured value.
    pub measured_min: Exact,
    /// The largest.
    pub measured_max: Exact,
    /// The model's value there.
    pub model: Exact,
    /// The smallest residual (model − largest measured value).
    pub residual_min: Exact,
    /// The largest residual (model − smallest measured value).
    pub residual_max: Exact,
}

/// The residuals of `a` by distinct point, at most `most` points: every
/// point in order of first appearance when they are that few, otherwise
/// the `most` points with the largest |e_i|, largest first; and whether
/// every point is listed.
pub fn residuals_by_point(
    m: &Model,
    a: &Analysis,
    most: usize,
    digits: usize,
) -> (Vec<PointResiduals>, bool) {
    let groups = &a.design.groups;
    let mut order: Vec<usize> = (0..groups.len()).collect();
    let listed = groups.len() <= most;
    if !listed {
        // Largest |e_i| of a point, unreduced: it only ranks, no gcd per point.
        let w: Vec<Rat> =
            (0..groups.len()).map(|g| groups[g].worst_gap(a.residuals.value_unreduced(g))).collect();
        order.sort_by(|&x, &y| crate::num::cmp_unreduced(&w[y], &w[x]).then(x.cmp(&y)));
        order.truncate(most);
    }
    let ex = |x: &Rat| Exact::new(x, digits);
    let rows = order
        .iter()
        .map(|&g| {
            let gr = &groups[g];
            let t = &a.residuals.value(g);
            PointResiduals {
                point: point(m, &gr.x),
                count: gr.rows.len(),
                measured_min: ex(&gr.ymin),
                measured_max: ex(&gr.ymax),
                model: ex(t),
                residual_min: ex(&crate::num::sub(t, &gr.ymax)),
                residual_max: ex(&crate::num::sub(t, &gr.ymin)),
            }
        })
        .collect();
    (rows, listed)
}

fn region(a: &Analysis, r: &Region, digits: usize) -> RegionDocument {
    let vert = |v: &Vec<Rat>| dc_map(&a.dnames, v, digits);
    let mut doc = RegionDocument {
        threshold: Threshold::of(r, digits),
        definition: r.threshold.definition(),
        shape: RegionShape::Bounded,
        reason: None,
        vertices: Vec::new(),
        rays: Vec::new(),
        lines: Vec::new(),
        unlisted: None,
        cylindrical: None,
    };
    match &r.shape {
        Shape::Untrusted { .. } => {
            doc.shape = RegionShape::Untrusted;
            doc.reason = Some(crate::analysis::NoBand::Untrusted.reason().into());
            return doc;
        }
        Shape::Unlisted { found, limit, work } => {
            doc.shape = RegionShape::Unlisted;
            doc.unlisted = Some(Unlisted {
                vertices_reached: *found,
                max_vertices: *limit,
                limit: if *work { "work" } else { "vertices" }.into(),
            });
            return doc;
        }
        Shape::Empty => doc.shape = RegionShape::Empty,
        Shape::Point => doc.shape = RegionShape::Point,
        Shape::Bounded => doc.shape = RegionShape::Bounded,
        Shape::Unbounded { rays, lines } => {
            doc.shape = RegionShape::Unbounded;
            doc.rays = rays.iter().map(vert).collect();
            doc.lines = lines.iter().map(vert).collect();
        }
    }
    doc.vertices = r.vertices.iter().map(vert).collect();
    if r.result.has_cells() || r.result.pieces.is_empty() {
        doc.cylindrical = Some(Cylindrical {
            order: (0..r.result.vars.len()).map(|j| r.result.vars.name(j).to_string()).collect(),
            text: crate::qe::output::text(&r.result, NumFormat::Exact),
            text_decimal: crate::qe::output::text(&r.result, NumFormat::Decimal(digits)),
            result: QeResultDoc::new(&r.result, NumFormat::Exact, false),
        });
    }
    doc
}

/// The bands of `a` at each of its prediction points, one per threshold
/// (the document's `bands`; the experiment's CSV rows read them too).
pub fn prediction_bands(m: &Model, a: &Analysis, digits: usize) -> Vec<PointBands> {
    // Each threshold rendered once, not once per point.
    let thresholds: Vec<Threshold> = a.regions.iter().map(|r| Threshold::of(r, digits)).collect();
    a.predictions.iter().map(|p| PointBands::new(m, a, &thresholds, p, digits)).collect()
}

impl PointBands {
    /// The bands of `a` at its prediction `p` (one of its predictions, or
    /// one its [`Predictor`](crate::analysis::Predictor) made), under
    /// `thresholds`: its regions' thresholds ([`Threshold::of`]), given
    /// rendered once for every point.
    pub fn new(
        m: &Model,
        a: &Analysis,
        thresholds: &[Threshold],
        p: &Prediction,
        digits: usize,
    ) -> PointBands {
        let bands = a
            .regions
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let (band, measurement_band) = match crate::analysis::bands_of(r, p, i) {
                    Ok((b, mb)) => (
                        Band::of(Some(b), Some(&p.model), digits),
                        Band::of(Some(mb), Some(&p.model), digits),
                    ),
                    Err(why) => {
                        let none = Band::no(why);
                        (none.clone(), none)
                    }
                };
                ThresholdBand { threshold: thresholds[i].clone(), band, measurement_band }
            })
            .collect();
        PointBands {
            point: point(m, &p.x),
            model: Exact::new(&p.model, digits),
            extrapolated: p.extrapolated(),
            beyond: m.vars.iter().zip(&p.outside).filter(|(_, &o)| o).map(|(v, _)| v.clone()).collect(),
            bands,
        }
    }
}

/// The pruned analysis `p` of `data` without rows `dropped`, beside the
/// full analysis `full` (its residual table in long array `slot`).
pub fn pruned_document(
    m: &Model,
    full: &Analysis,
    data: &[Measurement],
    dropped: &[usize],
    p: &Analysis,
    slot: usize,
    digits: usize,
) -> PrunedDocument {
    let kept = crate::data::kept_rows(data.len(), dropped);
    let shrink = full
        .predictions
        .iter()
        .zip(&p.predictions)
        .map(|(a, b)| Shrink {
            point: point(m, &a.x),
            ratios: full
                .regions
                .iter()
                .enumerate()
                .map(|(i, r)| ShrinkRatio {
                    label: r.threshold.text.clone(),
                    ratio: Exact::opt(
                        crate::analysis::shrink_ratio(&a.bands[i], &b.bands[i]).as_ref(),
                        digits,
                    ),
                })
                .collect(),
        })
        .collect();
    PrunedDocument {
        analysis: fit_document(m, p, kept[p.residuals.argmax] + 1, slot, digits),
        dropped: dropped
            .iter()
            .map(|&i| Dropped { row: i + 1, line: data[i].line, point: point(m, &data[i].x) })
            .collect(),
        shrink,
    }
}

/// The band function `f` of analysis `a`.
pub fn band_function(m: &Model, a: &Analysis, f: &BandFunction, digits: usize) -> BandFunctionDocument {
    let ex = |x: &Rat| Exact::new(x, digits);
    let piece = |p: &Piece| EnvelopePiece {
        from: ex(&p.from),
        to: ex(&p.to),
        from_exact: p.from_exact,
        to_exact: p.to_exact,
        vertex: p.vertex + 1,
        params: p.params.iter().map(ex).collect(),
    };
    BandFunctionDocument {
        range: Range { from: ex(&f.lo), to: ex(&f.hi) },
        envelopes: a
            .regions
            .iter()
            .zip(&f.envelopes)
            .map(|(r, e)| match e {
                Ok(env) => EnvelopeDocument {
                    label: r.threshold.text.clone(),
                    skipped: None,
                    upper: env.upper.iter().map(piece).collect(),
                    lower: env.lower.iter().map(piece).collect(),
                },
                Err(skip) => EnvelopeDocument {
                    label: r.threshold.text.clone(),
                    skipped: Some(skip.reason()),
                    upper: Vec::new(),
                    lower: Vec::new(),
                },
            })
            .collect(),
        width_vs_threshold: a
            .predictions
            .iter()
            .zip(&f.curves)
            .map(|(p, c)| WidthCurve {
                point: point(m, &p.x),
                breakpoints: c
                    .points
                    .iter()
                    .map(|(e, l, u)| Breakpoint {
                        value: ex(e),
                        band: Band::of(Some(&crate::band::Band::new(l.clone(), u.clone())), None, digits),
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// The family `f`.
pub fn family(m: &Model, f: &FamilyAnalysis, digits: usize) -> FamilyDocument {
    let ex = |x: &Rat| Exact::new(x, digits);
    let untrusted = || {
        Band::none(
            BandStatus::Untrusted,
            "the relative bound reaches the threshold's limit: no trustworthy band",
        )
    };
    let mut bands = Vec::new();
    for (pi, x) in f.points.iter().enumerate() {
        for (t, l) in f.levels.iter().enumerate() {
            let hull: &Option<Hull> = &f.hull[t][pi];
            let (forms, band, measurement_band) = match hull {
                Some(h) => (
                    h.forms,
                    Band::of(Some(&h.model), None, digits),
                    Band::of(Some(&h.measurement), None, digits),
                ),
                None if l.bound.is_none() => (0, untrusted(), untrusted()),
                None => {
                    let none = Band::none(BandStatus::Empty, "no form is consistent at this threshold");
                    (0, none.clone(), none)
                }
            };
            let best = f.members.first().and_then(|m| m.bands[t][pi].as_ref());
            bands.push(FamilyBand {
                point: point(m, x),
                threshold: Threshold::bound(&l.threshold.text, l.bound.as_ref(), digits),
                forms,
                band,
                measurement_band,
                best_form: best.map(|(b, mb)| FormBands {
                    band: Band::of(Some(b), None, digits),
                    measurement_band: Band::of(Some(mb), None, digits),
                }),
            });
        }
    }
    FamilyDocument {
        thresholds: f
            .levels
            .iter()
            .map(|l| Threshold::bound(&l.threshold.text, l.bound.as_ref(), digits))
            .collect(),
        forms: f
            .members
            .iter()
            .enumerate()
            .map(|(i, mm)| FormDocument {
                rank: i + 1,
                form: mm.form.clone(),
                from: mm.origin.label().to_string(),
                params: params(&mm.model, &mm.stats.params, digits),
                remax: Exact::opt(mm.stats.remax.as_ref(), digits),
                rmax: Exact::opt(mm.stats.rmax.as_ref(), digits),
                emax: ex(&mm.stats.emax),
                max_residual: ex(&mm.stats.residuals.max_abs),
                rms: Rms::new(&mm.stats.residuals.mean_square, digits),
                consistent: f
                    .levels
                    .iter()
                    .zip(&mm.consistent)
                    .map(|(l, c)| Consistent { label: l.threshold.text.clone(), consistent: *c })
                    .collect(),
                positive: mm.positive.iter().all(|p| *p),
                self_check: mm.check.as_ref().map(|c| FormCheck {
                    at: Exact::opt(c.at.as_ref(), digits),
                    outcome: CheckOutcome::of(&c.outcome),
                    missed: match &c.outcome {
                        Outcome::Missed { above, below, .. } => above + below,
                        _ => 0,
                    },
                    of: match &c.outcome {
                        Outcome::Missed { of, .. } => *of,
                        _ => 0,
                    },
                    half_width: Exact::opt(c.half_width.as_ref(), digits),
                }),
                sets_threshold: mm.sets_scale,
            })
            .collect(),
        skipped: f.skipped.iter().map(|s| SkippedForm { form: s.form.clone(), why: s.why.clone() }).collect(),
        bands,
        falls_without_decreasing_form: f.falls_without_decreasing_form(),
        steeper_than_family: steeper(m, f, digits),
    }
}

/// Where the data grow faster than every form of `f`
/// ([`FamilyAnalysis::steeper_than_family`]).
pub fn steeper(m: &Model, f: &FamilyAnalysis, digits: usize) -> Option<SteeperDocument> {
    f.steeper_than_family().map(|st| SteeperDocument {
        term: crate::family::term_text(m.vars.first().map_or("x", String::as_str), st.term),
        between: Range { from: Exact::new(&st.from, digits), to: Exact::new(&st.to, digits) },
    })
}

/// The backtest `b`.
pub fn holdout(m: &Model, b: &Backtest, digits: usize) -> HoldoutDocument {
    HoldoutDocument {
        condition: b.holdout.clone(),
        fitted_on: b.train.len(),
        held_out: b.held.len(),
        measurements: b
            .checks
            .iter()
            .map(|c| HeldOut {
                row: c.row + 1,
                line: c.measurement.line,
                point: point(m, &c.measurement.x),
                measured: Exact::new(&c.measurement.y, digits),
                bands: c
                    .verdicts
                    .iter()
                    .map(|v| HeldOutBand {
                        label: v.threshold.clone(),
                        kind: v.kind.name().into(),
                        band: match &v.band {
                            Some(b) => Band::of(Some(b), None, digits),
                            None => Band::none(
                                BandStatus::Refused,
                                "no band: the region is empty, or the threshold is not trusted here",
                            ),
                        },
                        inside: v.inside,
                        outside_by: Exact::opt(v.outside_by.as_ref(), digits),
                    })
                    .collect(),
            })
            .collect(),
        coverage: b.coverage.iter().map(|c| CoverageDocument::new(c, digits)).collect(),
    }
}

/// The recommendation `r`.
pub fn recommendation(m: &Model, r: &Recommendation, digits: usize) -> RecommendationDocument {
    let ex = |x: &Rat| Exact::new(x, digits);
    let t = &r.trusted;
    let check = &r.check;
    let (above, below, of, reason) = match &check.outcome {
        Outcome::Missed { above, below, of } => (*above, *below, *of, None),
        Outcome::NotChecked(why) => (0, 0, 0, Some(why.clone())),
        Outcome::Passed | Outcome::Refused => (0, 0, 0, None),
    };
    RecommendationDocument {
        form: r.form.clone(),
        noise: ex(&r.noise),
        relative: t.bound.as_ref().map(|b| ex(&b.relative)),
        repetitions: t.centres.as_ref().map(|(cb, s)| Repetitions {
            median_relative: cb.as_ref().map(|b| ex(&b.relative)),
            below: ex(&s.below),
            above: ex(&s.above),
            points: s.points,
            most: s.most,
            free: s.free,
            band_from_medians: t.from_medians().is_some(),
            widest_at: super::point(m, &s.widest_at),
            widest_ratio: Exact::opt(s.widest_ratio.as_ref(), digits),
        }),
        self_check: SelfCheck {
            at: Exact::opt(check.at.as_ref(), digits),
            outcome: CheckOutcome::of(&check.outcome),
            above,
            below,
            of,
            half_width: Exact::opt(check.half_width.as_ref(), digits),
            reason,
        },
        regime: r.regime.as_ref().map(|g| RegimeDocument {
            between: Range { from: ex(&g.between.0), to: ex(&g.between.1) },
            set_aside: g.set_aside.iter().map(ex).collect(),
            last_scales: g.last_scales,
            tolerance: ex(&g.tolerance),
            used: g.used(),
        }),
        points: r
            .points
            .iter()
            .enumerate()
            .map(|(i, p)| RecommendedPoint {
                point: point(m, &p.x),
                value: Exact::opt(p.value.as_ref(), digits),
                band: match (&p.band, p.refusal) {
                    (Some(b), _) => Band::of(Some(b), p.value.as_ref(), digits),
                    (None, Some(why)) => Band::none(
                        match why {
                            Refusal::Untrusted => BandStatus::Untrusted,
                            Refusal::BelowZero => BandStatus::BelowZero,
                            Refusal::Gate | Refusal::Undefined => BandStatus::Refused,
                        },
                        why.text(),
                    ),
                    (None, None) => Band::none(BandStatus::Refused, "no band"),
                },
                deviation: match (&p.band, &p.value) {
                    (Some(b), Some(v)) if v.is_positive() => {
                        // (e − v)/v over one denominator, reduced once.
                        let dev = |end: &Option<Rat>| {
                            end.as_ref().map(|e| {
                                let n = e.numer() * v.denom() - v.numer() * e.denom();
                                ex(&crate::num::reduced(n, e.denom() * v.numer()))
                            })
                        };
                        Some(Deviation { lower: dev(&b.lower), upper: dev(&b.upper) })
                    }
                    _ => None,
                },
                widened: p.widened,
                family_forms: p.family_forms,
                alike_forms: p.alike_forms,
                without_largest: r.without_largest(i).map(ex),
                hinges: r.hinges(i),
                value_outside: r.value_outside(i),
            })
            .collect(),
    }
}

impl AnalysisDocument {
    /// The document of `i`, its residual tables as long arrays 0 (all the
    /// data) and 1 (the pruned data, with `--drop`).
    pub fn new(i: &AnalysisInputs<'_>) -> AnalysisDocument {
        let (m, a, digits) = (i.model, i.analysis, i.digits);
        AnalysisDocument {
            header: Header::new(super::Command::Analysis),
            model: ModelInfo::of(m, &a.design.log),
            data: AnalysisData {
                info: DataInfo {
                    file: i.data_file.into(),
                    measurements: i.data.len(),
                    points: a.design.groups.len(),
                },
                warnings: i.warnings.to_vec(),
            },
            analysis: fit_document(m, a, a.residuals.argmax + 1, 0, digits),
            pruned: i.pruned.map(|(dropped, p)| pruned_document(m, a, i.data, dropped, p, 1, digits)),
            band_function: i.function.map(|f| band_function(m, a, f, digits)),
            family: i.family.map(|f| family(m, f, digits)),
            holdout: i.backtest.map(|b| holdout(m, b, digits)),
            recommendation: i.recommendation.map(|r| recommendation(m, r, digits)),
            recommendation_error: i.recommendation_error.map(String::from),
            set_aside: i
                .set_aside
                .iter()
                .map(|s| SetAside { line: s.line, point: point(m, &s.x), measured: Exact::new(&s.y, digits) })
                .collect(),
            discovered: i.discovered,
        }
    }
}
