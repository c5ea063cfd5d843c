//! The energy predictor (Kimura, Imada and Sato; docs/methods.md \[K1\], \[K2\]): per-region fits of the
//! parallel fraction α_p and the frequency sensitivity β_on (and, for
//! overhead regions, the overhead energy of \[K2\] eq. 17), each an exact
//! time model analysed by the core method, then ΔE(n), EE_opt(n), the
//! energies E^{n,f_opt} and E^{n,f_std}, run times, the four task fractions
//! and per-region energy shares, each with exact bounds over the fits'
//! threshold regions.
//!
//! # The model, in one formula
//!
//! Region `r` at `n` nodes and frequency `f` (P per node, `g_r(f) = 1 +
//! β_on(f_std/f − 1)` from eq. 3, `T_r(n) = A_r + B_r/n` the run time at
//! f_std from eq. 2) uses the energy, summed over the nodes,
//!
//! `E_r(n, f) = n·P_r(f)·g_r(f)·T_r(n) + (α^f_r·log2 n + β^f_r)`,
//!
//! the last term only for overhead regions. This is \[K2\] eq. 7–9
//! (`ω^{p,ON}/ω = α_p·β_on` etc., eq. 13–16, give the same sum) and, without
//! overhead, \[K1\] eq. 4: `ΔE(n) = 1 − Σ_r E_r(n, f_opt,r) / Σ_r E_r(n,
//! f_std) = 1 − EE_opt(n)`.
//!
//! * **α_p**: with node counts starting at 1, the through-origin least
//!   squares of eq. 5, as the model `T(n) = T1·(1 + α_p·(1/n − 1))` with `T1`
//!   the measured `T(1, r, f_std)`; otherwise `T(n) = A + B/n` and `α_p =
//!   B/(A + B)`.
//! * **β_on**: eq. 6 as `T(f) = Tstd·(1 + β_on·(f_std/f − 1))` on the base
//!   node count, `Tstd` measured.
//! * **Overhead regions** (`--overhead-region`): the papers do not say how
//!   α^f and β^f are learned. errband takes the region's work as perfectly
//!   parallel (its base-count energy `n0·P·T(n0)` at every n, scaled by the
//!   frequency model as for other regions) and fits eq. 17's total overhead
//!   `α^f·log2 n + β^f` to the measured energy beyond it,
//!   `n·P(n)·T(n) − n0·P(n0)·T(n0)` at f_std; the overhead does not depend on
//!   the frequency (eq. 8 and 9 carry the same term).
//! * **f_opt** per region minimises the measured `P·T` (or `P·T²` for EDP) on
//!   the base node count; ties go to the higher frequency.
//!
//! # Bounds
//!
//! Each fit's Δ-region at the threshold gives its vertices (in absolute
//! parameters). A region's *corners* are the products of its fits' vertices;
//! every prediction is multilinear in one region's values, so its extremes
//! over the region are at corners, and [`bounds`] combines regions exactly
//! (sums region by region, ratios by Dinkelbach's method, shares by
//! monotonicity), at a cost linear in the number of regions.

pub mod args;
pub mod bounds;
mod fit;
pub mod input;

use crate::analysis::{Analysis, AnalysisError, Threshold};
use crate::data::Measurement;
use crate::limits::Limits;
use crate::model::Model;
use crate::num::transcendental::{apply, Func};
use crate::num::Interval;
use crate::num::{self, fmt_fraction, fmt_sig, to_f64, Rat};
use input::{GivenRegion, Input, RegionSamples};
use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};
use rayon::prelude::*;
use std::cell::OnceCell;
use std::collections::HashMap;

/// What `f_opt` minimises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Objective {
    /// Energy `P·T`.
    #[default]
    Energy,
    /// Energy-delay product `P·T²`.
    Edp,
}

/// A node count to predict at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Nodes {
    /// `n` nodes.
    Count(Rat),
    /// The limit `n → ∞` (ratios only).
    Infinity,
}

/// The options of a prediction.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// The standard (highest) frequency, MHz; default: the highest measured.
    pub fstd: Option<Rat>,
    /// The base node count; default: the smallest measured at f_std.
    pub base_nodes: Option<Rat>,
    /// Regions whose extra energy is fitted by \[K2\] eq. 17.
    pub overhead: Vec<String>,
    /// What f_opt minimises.
    pub objective: Objective,
    /// Frequencies forced per region, MHz.
    pub fopt: Vec<(String, Rat)>,
    /// Thresholds, relative to each fit's own Max|e_i| and e_max (default `max`).
    pub thresholds: Vec<Threshold>,
    /// Regions to use (empty: all), in the file's order.
    pub regions: Vec<String>,
    /// Where to predict.
    pub nodes: Vec<Nodes>,
    /// Significant digits of `log2 n` when n is not a power of two.
    pub digits: u32,
    /// Limits for the fits' analyses.
    pub limits: Limits,
}

/// Which quantity a fit estimates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FitKind {
    /// α_p: `T(n)` at f_std.
    Alpha,
    /// β_on: `T(f)` on the base node count.
    Beta,
    /// Overhead energy `α^f·log2 n + β^f` (Kimura et al., eq. 17).
    Overhead,
}

impl FitKind {
    /// Short name.
    pub fn name(self) -> &'static str {
        match self {
            FitKind::Alpha => "alpha_p",
            FitKind::Beta => "beta_on",
            FitKind::Overhead => "overhead",
        }
    }
}

/// One fit: the generated model, its data and the core analysis.
#[derive(Debug, Clone)]
pub struct FitRun {
    /// What it estimates.
    pub kind: FitKind,
    /// The time (or energy) model, built from a [`crate::model::Spec`]; its
    /// canonical `.tm` text is [`Model::source`].
    pub model: Model,
    /// Its measurements.
    pub data: Vec<Measurement>,
    /// The analysis at the thresholds.
    pub analysis: Analysis,
}

/// Means at one frequency on the base node count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FreqPoint {
    /// Frequency, MHz.
    pub freq: Rat,
    /// Mean time, s.
    pub time: Rat,
    /// Mean power per node, W (None: not measured).
    pub power: Option<Rat>,
    /// Number of measurements.
    pub samples: usize,
}

/// One region's fitted values at one point of its fits' regions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Corner {
    /// `T_r(n) = a + b/n` at f_std, s.
    pub a: Rat,
    /// See `a`.
    pub b: Rat,
    /// β_on.
    pub beta: Rat,
    /// α^f (J).
    pub af: Rat,
    /// β^f (J).
    pub bf: Rat,
}

impl Corner {
    /// α_p = b/(a + b) (None when the predicted T(1) is not positive).
    pub fn alpha_p(&self) -> Option<Rat> {
        let t1 = &self.a + &self.b;
        t1.is_positive().then(|| &self.b / t1)
    }
}

/// Everything about one region.
#[derive(Debug, Clone)]
pub struct RegionFit {
    /// Its name.
    pub name: String,
    /// Line of its first measurement (or its line in the fitted-values form).
    pub line: usize,
    /// An overhead region (Kimura et al., eq. 17).
    pub overhead: bool,
    /// The chosen frequency, MHz.
    pub f_opt: Rat,
    /// True when `--fopt` chose it.
    pub f_opt_forced: bool,
    /// Power per node at f_std and at f_opt, W.
    pub p_std: Rat,
    /// See `p_std`.
    pub p_opt: Rat,
    /// Measured mean at the base node count and f_std, s.
    pub t_base: Rat,
    /// Means per frequency on the base node count (empty for fitted values).
    pub freqs: Vec<FreqPoint>,
    /// The fits (empty for fitted values).
    pub fits: Vec<FitRun>,
    /// The fitted values.
    pub point: Corner,
    /// Corners per threshold.
    pub corners: Vec<Vec<Corner>>,
}

/// A predicted value and its bounds per threshold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Value {
    /// At the fitted values.
    pub point: Rat,
    /// Per threshold; `None` when undefined at some corner (a denominator ≤ 0).
    pub bands: Vec<Option<Interval>>,
}

/// Per-region fitted values with bounds.
#[derive(Debug, Clone)]
pub struct RegionValues {
    /// α_p.
    pub alpha_p: Option<Value>,
    /// β_on.
    pub beta_on: Value,
    /// ω^{s,ON}/ω, ω^{s,OFF}/ω, ω^{p,ON}/ω, ω^{p,OFF}/ω (Kimura et al., eq. 13–16).
    pub fractions: Option<[Value; 4]>,
}

/// Names of the four task fractions, in [`RegionValues::fractions`] order.
pub const FRACTIONS: [&str; 4] = ["w_s_on", "w_s_off", "w_p_on", "w_p_off"];

/// The predictions at one node count.
#[derive(Debug, Clone)]
pub struct AtNodes {
    /// Where.
    pub nodes: Nodes,
    /// EE_opt(n) = E^{n,f_opt}/E^{n,f_std}.
    pub ee_opt: Option<Value>,
    /// ΔE(n) = 1 − EE_opt(n).
    pub delta_e: Option<Value>,
    /// E^{n,f_std}, J (finite n only).
    pub e_std: Option<Value>,
    /// E^{n,f_opt}, J.
    pub e_opt: Option<Value>,
    /// Run time at f_std, s.
    pub t_std: Option<Value>,
    /// Run time at the chosen frequencies, s.
    pub t_opt: Option<Value>,
    /// Per region: E_r(n, f_std)/E^{n,f_std}.
    pub share_std: Vec<Option<Value>>,
    /// Per region: E_r(n, f_opt)/E^{n,f_std} (they add up to EE_opt).
    pub share_opt: Vec<Option<Value>>,
}

/// Where the fitted values came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// Fitted here from a profile.
    Profile,
    /// Given in the fitted-values form.
    Given,
}

/// The result of `errband energy`.
#[derive(Debug, Clone)]
pub struct Prediction {
    /// Input form.
    pub form: Form,
    /// f_std, MHz.
    pub f_std: Rat,
    /// Base node count (profile form).
    pub base_nodes: Option<Rat>,
    /// What f_opt minimises.
    pub objective: Objective,
    /// Thresholds.
    pub thresholds: Vec<Threshold>,
    /// The regions.
    pub regions: Vec<RegionFit>,
    /// Their fitted values with bounds (same order).
    pub values: Vec<RegionValues>,
    /// Predictions per node count.
    pub at: Vec<AtNodes>,
    /// Notes: negative α_p, unused lines, inexact log2, …
    pub warnings: Vec<String>,
}

/// Why there is no prediction.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum EnergyError {
    /// A threshold that does not parse.
    #[error("{0}")]
    BadThreshold(String),
    /// A threshold with an absolute part: the fits have different units.
    #[error("threshold `{0}` has an absolute part; the fits have different units, so energy thresholds are multiples of the fits' own residuals or relative: `max`, `emax`, `1.5*emax`, `max + emax`, `5%`, `2*remax`, …")]
    AbsoluteThreshold(String),
    /// log2 of a node count could not be enclosed.
    #[error("log2({}): {reason}", fmt_fraction(.n))]
    Log2 {
        /// The node count.
        n: Box<Rat>,
        /// Why.
        reason: String,
    },
    /// A predicted run time that is not positive (α_p > 1; exit code 1).
    #[error("the predicted run time at n = {} is not positive ({} s): α_p > 1 extrapolates to negative times", fmt_fraction(&.values.0), fmt_sig(&.values.1, 6))]
    NonPositiveTime {
        /// The node count and the predicted time, s.
        values: Box<(Rat, Rat)>,
    },
    /// An option names a region the input does not have.
    #[error("no region `{region}` in the input; its regions are {}", .known.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "))]
    NoSuchRegion {
        /// The name given.
        region: String,
        /// The input's regions.
        known: Vec<String>,
    },
    /// `--fopt` with fitted values instead of a profile.
    #[error("--fopt needs a profile: the fitted-values form gives P(f_opt) only for its own f_opt")]
    FoptNeedsProfile,
    /// `--overhead-region` with fitted values instead of a profile.
    #[error(
        "--overhead-region needs a profile; give `alpha_f,beta_f` columns in the fitted-values form instead"
    )]
    OverheadNeedsProfile,
    /// A region of the fitted-values form with another f_std.
    #[error("{file}:{line}: region `{region}` has f_std = {}, not {}", mhz(&.f.0), mhz(&.f.1))]
    FstdMismatch {
        /// The input file.
        file: String,
        /// The region's line.
        line: usize,
        /// The region.
        region: String,
        /// Its f_std and the common one, MHz.
        f: Box<(Rat, Rat)>,
    },
    /// `--fstd` at a frequency that was not measured.
    #[error("{file} has no measurement at f_std = {}: --fstd must be a measured frequency", mhz(.f_std))]
    FstdNotMeasured {
        /// The input file.
        file: String,
        /// The frequency, MHz.
        f_std: Box<Rat>,
    },
    /// No measurement at f_std on the base node count.
    #[error("{at} has no measurement at f_std = {} on the base node count {} (it has frequencies [{}] MHz on {} nodes and node counts [{}] at f_std)\n  = help: measure it, or choose --fstd / --base-nodes among the measured values", mhz(&.at.f_std), fmt_fraction(&.at.base), list(.freqs), fmt_fraction(&.at.base), list(.nodes))]
    NoBaseMeasurement {
        /// The region.
        at: Box<Place>,
        /// Frequencies measured on the base node count, MHz.
        freqs: Vec<Rat>,
        /// Node counts measured at f_std.
        nodes: Vec<Rat>,
    },
    /// No power at f_std on the base node count.
    #[error("{at} has no power at f_std = {} on {} nodes (lines {})\n  = help: the `power` column is empty there; energy needs the average power per node", mhz(&.at.f_std), fmt_fraction(&.at.base), .lines.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "))]
    NoPowerAtFstd {
        /// The region.
        at: Box<Place>,
        /// The lines without power.
        lines: Vec<usize>,
    },
    /// One frequency only on the base node count: β_on needs two.
    #[error("{at} is measured at one frequency only ({}) on {} nodes; β_on needs two or more", mhz(&.at.f_std), fmt_fraction(&.at.base))]
    OneFrequency {
        /// The region.
        at: Box<Place>,
    },
    /// `--fopt REGION=F` at a frequency without power.
    #[error("--fopt {region}={}: region `{region}` has no power measured at that frequency on {} nodes (measured: [{}] MHz)", fmt_fraction(&.values.0), fmt_fraction(&.values.1), list(.measured))]
    NoPowerAtFopt {
        /// The region.
        region: String,
        /// The frequency (MHz) and the base node count.
        values: Box<(Rat, Rat)>,
        /// Frequencies with power, MHz.
        measured: Vec<Rat>,
    },
    /// One node count only at f_std: α_p (or the overhead energy) needs two.
    #[error("{at} is measured at f_std = {} on one node count only ({}); {} needs two or more", mhz(&.at.f_std), list(.counts), if *.overhead { "the overhead energy" } else { "α_p" })]
    OneNodeCount {
        /// The region.
        at: Box<Place>,
        /// The node count(s).
        counts: Vec<Rat>,
        /// Whether the region's overhead energy is fitted.
        overhead: bool,
    },
    /// A generated model that does not parse (an internal error, reported).
    #[error("internal model for {file} does not parse: {message}")]
    InternalModel {
        /// The fit's label.
        file: String,
        /// The parser's message.
        message: String,
    },
    /// An overhead region without power at some node count.
    #[error("{file}:{line}: overhead region `{region}` needs the power at every node count at f_std (Kimura et al. [K2], eq. 17, fits the energy)")]
    OverheadNeedsPower {
        /// The input file.
        file: String,
        /// The line without power.
        line: usize,
        /// The region.
        region: String,
    },
    /// A fit could not be analysed (exit code 1 or 2 by the inner error).
    #[error("region `{region}`, {} fit: {error}", kind.name())]
    Fit {
        /// Region.
        region: String,
        /// Which fit.
        kind: FitKind,
        /// The generated model.
        model: Box<Model>,
        /// Its data label.
        file: String,
        /// The failure.
        error: Box<AnalysisError>,
    },
    /// A threshold below a fit's e_max (exit code 1).
    #[error("threshold `{threshold}` = {} is below e_max = {} of the {fit} fit of region `{region}`: no parameter values fit that well\n  = help: use a threshold of at least `emax`", fmt_sig(&.values.0, 6), fmt_sig(&.values.1, 6))]
    BelowEmax {
        /// The threshold as written.
        threshold: String,
        /// Its value and the fit's e_max.
        values: Box<(Rat, Rat)>,
        /// Which fit.
        fit: &'static str,
        /// The region.
        region: String,
    },
    /// A fit whose region is unbounded at a threshold (exit code 1).
    #[error("the {fit} fit of region `{region}` leaves a parameter unbounded at threshold `{threshold}`")]
    Unbounded {
        /// Which fit.
        fit: &'static str,
        /// The region.
        region: String,
        /// The threshold as written.
        threshold: String,
    },
    /// A fit whose region has more vertices than `--max-vertices` (exit code 1).
    #[error("the {fit} fit of region `{region}` has more than {limit} vertices at threshold `{threshold}`; energy bounds need them all (raise --max-vertices)")]
    TooManyVertices {
        /// Which fit.
        fit: &'static str,
        /// The region.
        region: String,
        /// The vertex limit.
        limit: usize,
        /// The threshold as written.
        threshold: String,
    },
    /// A fit that misses its own data at a limited threshold (exit code 1).
    #[error("the {fit} fit of region `{region}` misses its own data by {bound} at threshold `{threshold}`: no trustworthy band")]
    Untrusted {
        /// Which fit.
        fit: &'static str,
        /// The region.
        region: String,
        /// The bound it needs, described.
        bound: String,
        /// The threshold as written.
        threshold: String,
    },
}

/// Where in a profile a region's problem is: `profile.csv:12: region `mem``,
/// with the frequency and node count the fits are anchored at.
#[derive(Debug, Clone)]
pub struct Place {
    /// The input file.
    pub file: String,
    /// The region's first line.
    pub line: usize,
    /// The region.
    pub region: String,
    /// f_std, MHz.
    pub f_std: Rat,
    /// The base node count.
    pub base: Rat,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: region `{}`", self.file, self.line, self.region)
    }
}

impl crate::error::Classified for EnergyError {
    fn kind(&self) -> crate::error::ErrorKind {
        use crate::error::ErrorKind;
        match self {
            EnergyError::Fit { error, .. } => crate::error::Classified::kind(&**error),
            EnergyError::NonPositiveTime { .. }
            | EnergyError::BelowEmax { .. }
            | EnergyError::Unbounded { .. }
            | EnergyError::TooManyVertices { .. }
            | EnergyError::Untrusted { .. } => ErrorKind::Analysis,
            _ => ErrorKind::Input,
        }
    }
}

fn int(n: i64) -> Rat {
    Rat::from_integer(n.into())
}

fn mean<'a>(xs: impl IntoIterator<Item = &'a Rat>) -> Option<Rat> {
    let mut s = Rat::zero();
    let mut k = 0i64;
    for x in xs {
        s += x;
        k += 1;
    }
    (k > 0).then(|| s / int(k))
}

fn mhz(f: &Rat) -> String {
    format!("{} MHz", fmt_sig(f, 6))
}

/// Runs the predictor on a parsed input. `file` names it in messages.
pub fn predict(input: &Input, file: &str, s: &Settings) -> Result<Prediction, EnergyError> {
    let thresholds = if s.thresholds.is_empty() {
        vec![Threshold::parse("max").map_err(|d| EnergyError::BadThreshold(d.message))?]
    } else {
        s.thresholds.clone()
    };
    for t in &thresholds {
        if t.has_absolute_constant() {
            return Err(EnergyError::AbsoluteThreshold(t.text.clone()));
        }
    }
    let mut warnings = Vec::new();
    let (form, f_std, base, regions) = match input {
        Input::Profile(p) => {
            let (f_std, base, regions) = fit_profile(p, file, s, &thresholds, &mut warnings)?;
            (Form::Profile, f_std, Some(base), regions)
        }
        Input::Given(g) => {
            let (f_std, regions) = from_given(g, file, s, thresholds.len(), &mut warnings)?;
            (Form::Given, f_std, None, regions)
        }
    };
    for r in &regions {
        if let Some(a) = r.point.alpha_p() {
            if a.is_negative() {
                warnings.push(format!(
                    "region `{}`: α_p = {} is negative (its time grows with n); kept, as Kimura et al. [K1] keep CG's MPI region (−4.52)",
                    r.name,
                    fmt_sig(&a, 4)
                ));
            } else if a > Rat::one() {
                warnings.push(format!(
                    "region `{}`: α_p = {} exceeds 1 (superlinear speed-up)",
                    r.name,
                    fmt_sig(&a, 4)
                ));
            }
        }
        if r.point.beta.is_negative() || r.point.beta > Rat::one() {
            warnings.push(format!(
                "region `{}`: β_on = {} lies outside [0, 1]",
                r.name,
                fmt_sig(&r.point.beta, 4)
            ));
        }
    }
    let values = regions.iter().map(|r| region_values(r, thresholds.len())).collect();
    let point_set = CornerSet::new(regions.iter().map(|r| vec![coeffs(&r.point, r, &f_std)]).collect());
    let band_sets: Vec<CornerSet> = (0..thresholds.len())
        .map(|t| {
            CornerSet::new(
                regions.iter().map(|r| r.corners[t].iter().map(|c| coeffs(c, r, &f_std)).collect()).collect(),
            )
        })
        .collect();
    let mut inexact = Vec::new();
    let has_overhead = regions.iter().any(|r| r.overhead || !r.point.af.is_zero());
    let mut modes = Vec::with_capacity(s.nodes.len());
    for n in &s.nodes {
        modes.push(match n {
            Nodes::Infinity => Mode::Limit,
            Nodes::Count(n) => {
                let l = if has_overhead {
                    let v = apply(Func::Log2, n, s.digits)
                        .map_err(|e| EnergyError::Log2 { n: Box::new(n.clone()), reason: e.to_string() })?;
                    if !v.exact {
                        inexact.push(fmt_fraction(n));
                    }
                    v.value
                } else {
                    Rat::zero()
                };
                Mode::At(n.clone(), l)
            }
        });
    }
    // Node counts are independent: one task each (the order of results is kept).
    let at: Vec<AtNodes> = modes.par_iter().map(|m| at_nodes(&point_set, &band_sets, m)).collect();
    for (n, a) in s.nodes.iter().zip(&at) {
        if let (Nodes::Count(nv), Some(t)) = (n, a.t_std.as_ref()) {
            if !t.point.is_positive() {
                return Err(EnergyError::NonPositiveTime { values: Box::new((nv.clone(), t.point.clone())) });
            }
        }
        if a.ee_opt.is_none() {
            warnings.push(format!(
                "{}: EE_opt is undefined (the predicted energy at f_std is not positive)",
                show_nodes(n)
            ));
        }
    }
    if !inexact.is_empty() {
        warnings.push(format!(
            "log2 n is irrational for n = {}; its {}-digit correctly rounded value is used",
            inexact.join(", "),
            s.digits
        ));
    }
    Ok(Prediction {
        form,
        f_std,
        base_nodes: base,
        objective: s.objective,
        thresholds,
        regions,
        values,
        at,
        warnings,
    })
}

/// `n = 16` or `n → ∞`.
pub fn show_nodes(n: &Nodes) -> String {
    match n {
        Nodes::Count(v) => format!("n = {}", fmt_fraction(v)),
        Nodes::Infinity => "n → ∞".into(),
    }
}

fn selected<'a, T>(
    items: &'a [T],
    name: impl Fn(&T) -> &str,
    s: &Settings,
) -> Result<Vec<&'a T>, EnergyError> {
    let names: Vec<&str> = items.iter().map(&name).collect();
    for w in s.regions.iter().chain(&s.overhead).chain(s.fopt.iter().map(|(r, _)| r)) {
        if !names.contains(&w.as_str()) {
            return Err(EnergyError::NoSuchRegion {
                region: w.clone(),
                known: names.iter().map(|n| n.to_string()).collect(),
            });
        }
    }
    Ok(items.iter().filter(|r| s.regions.is_empty() || s.regions.iter().any(|w| w == name(r))).collect())
}

fn from_given(
    g: &[GivenRegion],
    file: &str,
    s: &Settings,
    nt: usize,
    warnings: &mut Vec<String>,
) -> Result<(Rat, Vec<RegionFit>), EnergyError> {
    let chosen = selected(g, |r| r.name.as_str(), s)?;
    if !s.fopt.is_empty() {
        return Err(EnergyError::FoptNeedsProfile);
    }
    if !s.overhead.is_empty() {
        return Err(EnergyError::OverheadNeedsProfile);
    }
    let f_std = match (&s.fstd, chosen.iter().find_map(|r| r.f_std.clone())) {
        (Some(f), _) => f.clone(),
        (None, Some(f)) => f,
        (None, None) => {
            let f = chosen.iter().map(|r| r.f_opt.clone()).max().unwrap_or_else(Rat::one);
            warnings.push(format!(
                "f_std not given (--fstd or an `f_std` column): using the highest f_opt, {}",
                mhz(&f)
            ));
            f
        }
    };
    let mut out = Vec::new();
    for r in chosen {
        if let Some(f) = &r.f_std {
            if *f != f_std {
                return Err(EnergyError::FstdMismatch {
                    file: file.to_string(),
                    line: r.line,
                    region: r.name.clone(),
                    f: Box::new((f.clone(), f_std.clone())),
                });
            }
        }
        let (af, bf) = r.overhead.clone().unwrap_or_default();
        let point = Corner {
            a: &r.t_std * (Rat::one() - &r.alpha_p),
            b: &r.t_std * &r.alpha_p,
            beta: r.beta_on.clone(),
            af,
            bf,
        };
        out.push(RegionFit {
            name: r.name.clone(),
            line: r.line,
            overhead: r.overhead.is_some(),
            f_opt: r.f_opt.clone(),
            f_opt_forced: false,
            p_std: r.p_std.clone(),
            p_opt: r.p_opt.clone(),
            t_base: r.t_std.clone(),
            freqs: Vec::new(),
            fits: Vec::new(),
            corners: vec![vec![point.clone()]; nt],
            point,
        });
    }
    Ok((f_std, out))
}

fn fit_profile(
    p: &[RegionSamples],
    file: &str,
    s: &Settings,
    thresholds: &[Threshold],
    warnings: &mut Vec<String>,
) -> Result<(Rat, Rat, Vec<RegionFit>), EnergyError> {
    let chosen = selected(p, |r| r.name.as_str(), s)?;
    let all = || chosen.iter().flat_map(|r| r.samples.iter());
    let f_std = match &s.fstd {
        Some(f) => f.clone(),
        None => all().map(|x| x.freq.clone()).max().unwrap_or_else(Rat::one),
    };
    let base = match &s.base_nodes {
        Some(b) => b.clone(),
        None => all().filter(|x| x.freq == f_std).map(|x| x.nodes.clone()).min().ok_or_else(|| {
            EnergyError::FstdNotMeasured { file: file.to_string(), f_std: Box::new(f_std.clone()) }
        })?,
    };
    let unused = all().filter(|x| x.freq != f_std && x.nodes != base).count();
    if unused > 0 {
        warnings.push(format!(
            "{unused} line(s) at other frequencies on other node counts are not used: α_p uses f_std at every node count, β_on and P every frequency on {} nodes",
            fmt_fraction(&base)
        ));
    }
    let ctx = fit::Ctx { file, f_std: &f_std, base: &base, s, thresholds };
    let fitted: Vec<Result<RegionFit, EnergyError>> =
        chosen.par_iter().map(|r| fit::fit_region(r, &ctx)).collect();
    let regions = fitted.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok((f_std, base, regions))
}

fn distinct(xs: impl Iterator<Item = Rat>) -> Vec<Rat> {
    let mut v: Vec<Rat> = xs.collect();
    v.sort();
    v.dedup();
    v
}

fn list(xs: &[Rat]) -> String {
    xs.iter().map(fmt_fraction).collect::<Vec<_>>().join(", ")
}

fn value_over(point: Rat, bands: Vec<Option<Interval>>) -> Value {
    Value { point, bands }
}

fn region_values(r: &RegionFit, nt: usize) -> RegionValues {
    let range_of = |f: &dyn Fn(&Corner) -> Option<Rat>| -> Value {
        let bands = (0..nt)
            .map(|t| {
                let vals: Option<Vec<Rat>> = r.corners[t].iter().map(f).collect();
                vals.and_then(|v| bounds::range(&v))
            })
            .collect();
        value_over(f(&r.point).unwrap_or_default(), bands)
    };
    let alpha_p = r.point.alpha_p().map(|_| range_of(&|c: &Corner| c.alpha_p()));
    let beta_on = range_of(&|c: &Corner| Some(c.beta.clone()));
    let one = Rat::one();
    let fractions = r.point.alpha_p().map(|_| {
        let frac = |serial: bool, on: bool| {
            let one = one.clone();
            move |c: &Corner| -> Option<Rat> {
                let a = c.alpha_p()?;
                let s = if serial { &one - a } else { a };
                let b = if on { c.beta.clone() } else { &one - &c.beta };
                Some(s * b)
            }
        };
        [
            range_of(&frac(true, true)),
            range_of(&frac(true, false)),
            range_of(&frac(false, true)),
            range_of(&frac(false, false)),
        ]
    });
    RegionValues { alpha_p, beta_on, fractions }
}

/// Per-corner coefficients: energies (summed over nodes) `n·x + l·log2 n + z`
/// at f_std and at f_opt, run times `a + b/n` at f_std and `ag + bg/n` at
/// the chosen frequencies.
#[derive(Debug, Clone)]
struct Coeffs<T> {
    x_std: T,
    z_std: T,
    x_opt: T,
    z_opt: T,
    l: T,
    a: T,
    b: T,
    ag: T,
    bg: T,
}

impl<T> Coeffs<T> {
    fn all(&self) -> [&T; 9] {
        [&self.x_std, &self.z_std, &self.x_opt, &self.z_opt, &self.l, &self.a, &self.b, &self.ag, &self.bg]
    }
    fn map<U>(&self, mut f: impl FnMut(&T) -> U) -> Coeffs<U> {
        Coeffs {
            x_std: f(&self.x_std),
            z_std: f(&self.z_std),
            x_opt: f(&self.x_opt),
            z_opt: f(&self.z_opt),
            l: f(&self.l),
            a: f(&self.a),
            b: f(&self.b),
            ag: f(&self.ag),
            bg: f(&self.bg),
        }
    }
}

fn coeffs(c: &Corner, r: &RegionFit, f_std: &Rat) -> Coeffs<Rat> {
    let g = Rat::one() + &c.beta * (f_std / &r.f_opt - Rat::one());
    let pg = &r.p_opt * &g;
    Coeffs {
        x_std: &r.p_std * &c.a,
        z_std: &r.p_std * &c.b + &c.bf,
        x_opt: &pg * &c.a,
        z_opt: &pg * &c.b + &c.bf,
        l: c.af.clone(),
        a: c.a.clone(),
        b: c.b.clone(),
        ag: &c.a * &g,
        bg: &c.b * g,
    }
}

/// Corners per region (the fitted values, one each; or one threshold's
/// corners) with every coefficient an integer over one positive common
/// denominator, so sums across regions need no gcd; float views propose
/// the choices that the integers certify.
struct CornerSet {
    den: BigInt,
    ints: PerCorner<Coeffs<BigInt>>,
    floats: PerCorner<Coeffs<f64>>,
}

impl CornerSet {
    fn new(sets: PerCorner<Coeffs<Rat>>) -> CornerSet {
        let den = num::lcm_denoms(sets.iter().flatten().flat_map(|c| c.all()));
        let mut scale: HashMap<BigInt, BigInt> = HashMap::new();
        let mut int = |x: &Rat| -> BigInt {
            let m = scale.entry(x.denom().clone()).or_insert_with(|| &den / x.denom());
            x.numer() * &*m
        };
        let ints = sets.iter().map(|cs| cs.iter().map(|c| c.map(&mut int)).collect()).collect();
        let floats = sets.iter().map(|cs| cs.iter().map(|c| c.map(to_f64)).collect()).collect();
        CornerSet { den, ints, floats }
    }
}

/// How energies are read: at `n` (with `log2 n`), or by one growth order as n → ∞.
enum Mode {
    At(Rat, Rat),
    Limit,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Order {
    N,
    Log,
    Const,
}

/// How one [`CornerSet`]'s integers are read at one node count:
/// energies `mx·x + ml·l + mz·z` over `eden`, times `a·tn + b·td` over `tden`
/// (`n = tn/td`), and the float weights of the same in real units.
struct Reading {
    m: [BigInt; 3],
    mf: [f64; 3],
    eden: BigInt,
    time: Option<(BigInt, BigInt, f64, BigInt)>,
}

impl Reading {
    /// `None` when the limit's growth order depends on the corners.
    fn new(set: &CornerSet, mode: &Mode) -> Option<Reading> {
        let (one, zero) = (BigInt::one(), BigInt::zero());
        match mode {
            Mode::At(n, l) => {
                // E·(den·nd·ld) = nn·ld·x + ln·nd·l + nd·ld·z for n = nn/nd, log2 n = ln/ld.
                let (nn, nd, ln, ld) = (n.numer(), n.denom(), l.numer(), l.denom());
                let mz = nd * ld;
                Some(Reading {
                    m: [nn * ld, ln * nd, mz.clone()],
                    mf: [to_f64(n), to_f64(l), 1.0],
                    eden: &set.den * mz,
                    time: Some((nn.clone(), nd.clone(), to_f64(n), &set.den * nn)),
                })
            }
            Mode::Limit => {
                let (m, mf) = match limit_order(set)? {
                    Order::N => ([one, zero.clone(), zero], [1.0, 0.0, 0.0]),
                    Order::Log => ([zero.clone(), one, zero], [0.0, 1.0, 0.0]),
                    Order::Const => ([zero.clone(), zero, one], [0.0, 0.0, 1.0]),
                };
                Some(Reading { m, mf, eden: set.den.clone(), time: None })
            }
        }
    }

    /// `(opt, std)` energies, integers over `eden`.
    fn energies(&self, c: &Coeffs<BigInt>) -> (BigInt, BigInt) {
        let lin = |x: &BigInt, z: &BigInt| {
            let mut e = &self.m[0] * x + &self.m[2] * z;
            if !self.m[1].is_zero() {
                e += &self.m[1] * &c.l;
            }
            e
        };
        (lin(&c.x_opt, &c.z_opt), lin(&c.x_std, &c.z_std))
    }

    /// Float view of [`Reading::energies`] in real units.
    fn energies_f(&self, c: &Coeffs<f64>) -> (f64, f64) {
        let [x, l, z] = self.mf;
        (x * c.x_opt + l * c.l + z * c.z_opt, x * c.x_std + l * c.l + z * c.z_std)
    }
}

/// The growth order that decides every limit: the highest order whose
/// f_std coefficient is positive for every choice of corners, when all higher
/// orders vanish for every choice; `None` when the order depends on the choice.
fn limit_order(set: &CornerSet) -> Option<Order> {
    let zero =
        |f: &dyn Fn(&Coeffs<BigInt>) -> &BigInt| set.ints.iter().all(|cs| cs.iter().all(|c| f(c).is_zero()));
    let positive_sum = |f: &dyn Fn(&Coeffs<BigInt>) -> &BigInt| {
        let mut s = BigInt::zero();
        for cs in &set.ints {
            match cs.iter().map(f).min() {
                Some(m) => s += m,
                None => return false,
            }
        }
        s.is_positive()
    };
    if positive_sum(&|c| &c.x_std) {
        return Some(Order::N);
    }
    if !zero(&|c| &c.x_std) || !zero(&|c| &c.x_opt) {
        return None;
    }
    if positive_sum(&|c| &c.l) {
        return Some(Order::Log);
    }
    if !zero(&|c| &c.l) {
        return None;
    }
    positive_sum(&|c| &c.z_std).then_some(Order::Const)
}

/// Values per region and corner.
type PerCorner<T> = Vec<Vec<T>>;

/// The predictions at one node count: `point` holds the fitted values (one
/// corner per region), `sets[t]` the corners at threshold `t`.
fn at_nodes(point: &CornerSet, sets: &[CornerSet], mode: &Mode) -> AtNodes {
    let nreg = point.ints.len();
    let point_rd = Reading::new(point, mode);
    let rds: Vec<Option<Reading>> = sets.iter().map(|s| Reading::new(s, mode)).collect();

    // Energies per region: exact at the point; per threshold, float views
    // of every corner with exact values computed on demand (bounds.rs).
    let point_e: Option<Vec<(BigInt, BigInt)>> =
        point_rd.as_ref().map(|rd| point.ints.iter().map(|cs| rd.energies(&cs[0])).collect());
    let band_f: Vec<Option<PerCorner<(f64, f64)>>> = sets
        .iter()
        .zip(&rds)
        .map(|(s, rd)| {
            rd.as_ref()
                .map(|rd| s.floats.iter().map(|cs| cs.iter().map(|c| rd.energies_f(c)).collect()).collect())
        })
        .collect();
    let cache: Vec<PerCorner<OnceCell<(BigInt, BigInt)>>> = sets
        .iter()
        .map(|s| s.ints.iter().map(|cs| cs.iter().map(|_| OnceCell::new()).collect()).collect())
        .collect();
    let exact = |t: usize, r: usize, c: usize| -> (BigInt, BigInt) {
        cache[t][r][c]
            .get_or_init(|| match &rds[t] {
                Some(rd) => rd.energies(&sets[t].ints[r][c]),
                None => (BigInt::zero(), BigInt::zero()),
            })
            .clone()
    };

    // Totals at the fitted values, (E_opt, E_std) over the point's `eden`.
    let point_sum: Option<(BigInt, BigInt)> = point_e
        .as_ref()
        .map(|pe| pe.iter().fold((BigInt::zero(), BigInt::zero()), |(a, b), (o, s)| (a + o, b + s)));
    // The common denominator cancels in every ratio of energies.
    let ratio_point =
        point_sum.as_ref().and_then(|(o, s)| s.is_positive().then(|| num::reduced(o.clone(), s.clone())));
    let ee_opt = ratio_point.map(|p| {
        let bands = band_f
            .iter()
            .enumerate()
            .map(|(t, f)| f.as_ref().and_then(|f| bounds::ratio_range_f(f, &|r, c| exact(t, r, c))))
            .collect();
        value_over(p, bands)
    });
    let delta_e = ee_opt.as_ref().map(|v| Value {
        point: num::one_minus(&v.point),
        bands: v.bands.iter().map(|b| b.as_ref().map(Interval::one_minus)).collect(),
    });

    let finite = matches!(mode, Mode::At(..));
    // Per threshold: the f_std energies' total range and each region's own.
    let std_ranges: Vec<Option<(bounds::IntInterval, Vec<bounds::IntInterval>)>> = band_f
        .iter()
        .enumerate()
        .map(|(t, f)| {
            let f = f.as_ref()?;
            let v: Vec<Vec<f64>> = f.iter().map(|cs| cs.iter().map(|p| p.1).collect()).collect();
            bounds::sum_range_f(&v, &|r, c| exact(t, r, c).1)
        })
        .collect();
    let sum_value = |opt: bool| -> Option<Value> {
        if !finite {
            return None;
        }
        let (o, st) = point_sum.as_ref()?;
        let eden = &point_rd.as_ref()?.eden;
        let point = num::reduced(if opt { o.clone() } else { st.clone() }, eden.clone());
        let bands = (0..sets.len())
            .map(|t| {
                let eden = &rds[t].as_ref()?.eden;
                if opt {
                    let f = band_f[t].as_ref()?;
                    let v: Vec<Vec<f64>> = f.iter().map(|cs| cs.iter().map(|p| p.0).collect()).collect();
                    bounds::sum_range_f(&v, &|r, c| exact(t, r, c).0).map(|x| x.0.over(eden))
                } else {
                    std_ranges[t].as_ref().map(|x| x.0.over(eden))
                }
            })
            .collect();
        Some(value_over(point, bands))
    };
    let e_opt = sum_value(true);
    let e_std = sum_value(false);
    let times = |opt: bool| -> Option<Value> {
        let tv = |rd: &Reading, c: &Coeffs<BigInt>| {
            let (tn, td, ..) = rd.time.as_ref()?;
            let (a, b) = if opt { (&c.ag, &c.bg) } else { (&c.a, &c.b) };
            Some(a * tn + b * td)
        };
        let tf = |rd: &Reading, c: &Coeffs<f64>| {
            let nf = rd.time.as_ref().map_or(1.0, |t| t.2);
            if opt {
                c.ag + c.bg / nf
            } else {
                c.a + c.b / nf
            }
        };
        let prd = point_rd.as_ref()?;
        let mut sum = BigInt::zero();
        for cs in &point.ints {
            sum += tv(prd, &cs[0])?;
        }
        let point_v = num::reduced(sum, prd.time.as_ref()?.3.clone());
        let bands = sets
            .iter()
            .zip(&rds)
            .map(|(s, rd)| {
                let rd = rd.as_ref()?;
                let v: Vec<Vec<f64>> =
                    s.floats.iter().map(|cs| cs.iter().map(|c| tf(rd, c)).collect()).collect();
                let r = bounds::sum_range_f(&v, &|r, c| tv(rd, &s.ints[r][c]).unwrap_or_default())?;
                Some(r.0.over(&rd.time.as_ref()?.3))
            })
            .collect();
        Some(value_over(point_v, bands))
    };
    let (t_std, t_opt) = (times(false), times(true));

    // Shares of E^{n,f_std}: the others' sum for region r is the total
    // range less r's own (sums are extreme region by region).
    let share = |r: usize, opt: bool| -> Option<Value> {
        let (pe, total) = (point_e.as_ref()?, &point_sum.as_ref()?.1);
        if !total.is_positive() {
            return None;
        }
        let num = |p: &(BigInt, BigInt)| if opt { p.0.clone() } else { p.1.clone() };
        let point = num::reduced(num(&pe[r]), total.clone());
        let bands = (0..sets.len())
            .map(|t| {
                let (f, (total, per), rd) = (band_f[t].as_ref()?, std_ranges[t].as_ref()?, rds[t].as_ref()?);
                let others = bounds::IntInterval { lo: &total.lo - &per[r].lo, hi: &total.hi - &per[r].hi };
                let pairs: Vec<(f64, f64)> =
                    f[r].iter().map(|p| (if opt { p.0 } else { p.1 }, p.1)).collect();
                bounds::share_range_f(&pairs, &others, &rd.eden, &|c| {
                    let e = exact(t, r, c);
                    (num(&e), e.1)
                })
            })
            .collect();
        Some(value_over(point, bands))
    };
    let share_std = (0..nreg).map(|r| share(r, false)).collect();
    let share_opt = (0..nreg).map(|r| share(r, true)).collect();
    let nodes = match mode {
        Mode::At(n, _) => Nodes::Count(n.clone()),
        Mode::Limit => Nodes::Infinity,
    };
    AtNodes { nodes, ee_opt, delta_e, e_std, e_opt, t_std, t_opt, share_std, share_opt }
}

#[cfg(test)]
mod tests;
