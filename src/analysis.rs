//! The core method (Orii and Anai; docs/methods.md \[OA\]) end to end: fit, residuals, e_max
//! with the Δc attaining it, the Δc region for each threshold, bands at the
//! prediction points and the re-optimisation hint.
//!
//! e_max and the regions are QE problems solved by [`crate::qe::solve`],
//! the engine behind `errband qe` (paper eq. (6): `∃Δc: ∧ −e ≤ T(C+Δc, x_i) − d_i ≤ e`
//! projected onto `e`; eq. (5)/(7): the same system at a fixed threshold, in
//! cylindrical form). [`Analysis::problem`] returns these problems so they
//! can be printed and re-solved with `errband qe`.

pub use crate::band::Band;
use crate::data::Measurement;
use crate::fit::{Design, FitError, Residuals};
use crate::limits::Limits;
use crate::linear::{Constraint, Kind, LinExpr, VarTable};
use crate::model::{FitMode, Model};
use crate::num::{Point, Rat};
use crate::qe::{self, Atom, Formula, Problem, QeError, QeResult, Rel};
use num_traits::{One, Signed, Zero};

pub use crate::threshold::{Bound, Scale, Threshold, ThresholdError};

/// What to analyse. Built from [`Options::default`] and the setters
/// below (`Options::default().at(points).noise(r)`), or by assigning its
/// public fields; new options may be added in a minor version.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Options {
    /// Thresholds (empty: `max` and `emax`).
    pub thresholds: Vec<Threshold>,
    /// Prediction points besides the model's `predict` ones.
    pub at: Vec<Vec<Rat>>,
    /// A whole experiment starts no series from this instant on
    /// (`--timeout`): its report then covers the series analysed.
    pub deadline: Option<std::time::Instant>,
    /// Cylindrical order of the Δ variables (names like `dc2`), outermost first.
    pub order: Vec<String>,
    /// Skip the cylindrical form of the regions (vertices and constraints
    /// are still exact); pruning and planning searches only need bands.
    pub no_cells: bool,
    /// Limits on the elimination (digits, pieces, vertices).
    pub limits: Limits,
    /// Leave remax out (`None`) unless a threshold needs it: searches that
    /// run many analyses and never report it (prune, plan).
    pub skip_remax: bool,
    /// Leave the next-measurement bands out (every prediction's
    /// `measurement` is then `None`): the barrier predictor reads only the
    /// model bands, at 10^4 node counts.
    pub skip_measurement: bool,
    /// Leave the e_max region out unless a threshold equals e_max: then
    /// `emax_dc` is zero, `emax_unique` and `emax_listed` are false and
    /// there is no `hint`. For searches that run many analyses and never
    /// report them (prune, plan): a third of each re-analysis' regions.
    pub skip_emax_region: bool,
    /// The run-to-run variability the trusted band assumes at least
    /// (`--noise`; `None`: 5 %), for the recommended band
    /// ([`crate::trust`]).
    pub noise: Option<Rat>,
}

/// The fit and its minimax bounds ([`Analysis::statistics`]).
#[derive(Debug, Clone)]
pub struct Statistics {
    /// The basis at the distinct points.
    pub design: Design,
    /// The fitted (or given) parameters C.
    pub params: Vec<Rat>,
    /// Residuals at C.
    pub residuals: Residuals,
    /// The smallest absolute bound any parameters meet.
    pub emax: Rat,
    /// Max |e_i|/d_i at C (None unless every measurement is positive).
    pub rmax: Option<Rat>,
    /// The smallest relative bound any parameters meet (None when not
    /// computed or not every measurement is positive).
    pub remax: Option<Rat>,
}

impl Options {
    /// With `thresholds` (replacing any set before; empty: `max` and `emax`).
    pub fn thresholds(mut self, thresholds: Vec<Threshold>) -> Options {
        self.thresholds = thresholds;
        self
    }

    /// With prediction points `at` besides the model's own.
    pub fn at(mut self, at: Vec<Vec<Rat>>) -> Options {
        self.at = at;
        self
    }

    /// With the run-to-run variability the trusted band assumes at least
    /// (a fraction: 1/20 for 5 %).
    pub fn noise(mut self, noise: Rat) -> Options {
        self.noise = Some(noise);
        self
    }

    /// With `limits` on the elimination and the inputs.
    pub fn limits(mut self, limits: Limits) -> Options {
        self.limits = limits;
        self
    }

    /// With the cylindrical order of the Δ variables (`dc2`, …), outermost
    /// first.
    pub fn order(mut self, order: Vec<String>) -> Options {
        self.order = order;
        self
    }

    /// Starting no series of a whole experiment after `deadline`.
    pub fn deadline(mut self, deadline: std::time::Instant) -> Options {
        self.deadline = Some(deadline);
        self
    }

    /// These options for the re-analyses of a search (prune, plan): bands
    /// at `targets` only, without what a search never reports (remax, the
    /// cylindrical cells, the e_max region).
    pub fn for_search(&self, targets: &[Vec<Rat>]) -> Options {
        Options {
            at: targets.to_vec(),
            no_cells: true,
            skip_remax: true,
            skip_emax_region: true,
            ..self.clone()
        }
    }

    /// The QE engine's options for these.
    fn qe(&self) -> qe::Options {
        qe::Options { order: self.order.clone(), no_cells: self.no_cells, limits: self.limits }
    }
}

/// Why the analysis could not be done.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum AnalysisError {
    /// Fitting failed (see [`FitError`]).
    #[error(transparent)]
    Fit(#[from] FitError),
    /// The QE engine refused (a resource limit).
    #[error("the QE engine stopped: {0}")]
    Qe(#[from] QeError),
    /// A threshold that cannot apply to these data (negative, or relative
    /// on measurements that are not all positive).
    #[error(transparent)]
    Threshold(Box<ThresholdError>),
    /// No measurements.
    #[error("no measurements in {file}")]
    NoData {
        /// The data, as named in messages.
        file: String,
    },
    /// A measurement with another number of variable values than the
    /// model has variables (data read for another model).
    #[error("{file} line {line}: the measurement has {got} variable value(s), and the model has {expected} variable(s) ({names}); read the data with this model's variables")]
    Variables {
        /// The data, as named in messages.
        file: String,
        /// The measurement's line.
        line: usize,
        /// Its number of variable values.
        got: usize,
        /// The model's number of variables.
        expected: usize,
        /// The model's variables, comma-separated.
        names: String,
    },
}

impl AnalysisError {
    /// A short reason, for a table cell or a document's `error` key: why a
    /// pruned or extended data set could not be analysed.
    pub fn short_reason(&self) -> String {
        match self {
            AnalysisError::Fit(FitError::TooFewPoints { points, params, .. }) => {
                format!("too few points left ({points} for {params} parameters)")
            }
            AnalysisError::Fit(FitError::RankDeficient { .. }) => "the parameters cannot be separated".into(),
            AnalysisError::Fit(FitError::Eval(d)) => d.message.clone(),
            AnalysisError::Qe(q) => format!("QE engine stopped: {q}"),
            AnalysisError::Threshold(t) => t.to_string(),
            AnalysisError::NoData { .. } => "no measurements left".into(),
            e @ AnalysisError::Variables { .. } => e.to_string(),
        }
    }
}

/// Every measurement of `data` has a value for each of `model`'s variables
/// (a library caller may pass data read for another model).
pub fn check_variables(model: &Model, data: &[Measurement], file: &str) -> Result<(), AnalysisError> {
    match data.iter().find(|m| m.x.len() != model.vars.len()) {
        None => Ok(()),
        Some(m) => Err(AnalysisError::Variables {
            file: file.to_string(),
            line: m.line,
            got: m.x.len(),
            expected: model.vars.len(),
            names: model.vars.join(", "),
        }),
    }
}

impl crate::error::Classified for AnalysisError {
    fn kind(&self) -> crate::error::ErrorKind {
        use crate::error::ErrorKind;
        match self {
            AnalysisError::Fit(f) => crate::error::Classified::kind(f),
            AnalysisError::Qe(_) => ErrorKind::Analysis,
            AnalysisError::Threshold(_) | AnalysisError::NoData { .. } | AnalysisError::Variables { .. } => {
                ErrorKind::Input
            }
        }
    }
}

/// The shape of a region.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Shape {
    /// No Δc meets the threshold (it is below e_max).
    Empty,
    /// Exactly one Δc.
    Point,
    /// A bounded polytope.
    Bounded,
    /// Unbounded: the data leave these directions (over the Δ variables in
    /// parameter order) free; rays first, then lines (free both ways).
    Unbounded {
        /// One-way directions.
        rays: Vec<Vec<Rat>>,
        /// Two-way directions.
        lines: Vec<Vec<Rat>>,
    },
    /// Not computed: the threshold's relative bound reached its limit
    /// ([`Threshold::limit`]; `trusted` at 50 %): the model misses its own
    /// data by so much that no band from it is worth betting on, or the
    /// measurements are not all positive (`not_positive`), so a relative
    /// bound does not apply.
    Untrusted {
        /// True when some measurement is zero or negative.
        not_positive: bool,
    },
    /// Not enumerated: listing its vertices passed `limit` (`--max-vertices`;
    /// the enumeration had reached `found`), or (`work`) listing it would
    /// take more work than `limit` allows ([`Limits::listing_work`]: in many
    /// dimensions the vertices and cells can be exponentially many). The
    /// region is still exactly its residual system; bands come from two
    /// exact LPs per point.
    Unlisted {
        /// The vertex count the enumeration had reached when it stopped
        /// (0 when the work budget stopped it).
        found: usize,
        /// The limit in force.
        limit: usize,
        /// True when the work budget, not the vertex count, stopped it.
        work: bool,
    },
}

/// The Δc region at one threshold.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Region {
    /// The threshold.
    pub threshold: Threshold,
    /// Its bound on the residuals, `|T(c, x_i) − d_i| ≤ a + r·d_i`.
    pub bound: Bound,
    /// The absolute part of the bound, `a` (the whole threshold when it is
    /// absolute, as the paper's are).
    pub value: Rat,
    /// The QE result (over the Δ variables in the cylindrical order).
    pub result: QeResult,
    /// Vertices, over the Δ variables in parameter order.
    pub vertices: Vec<Vec<Rat>>,
    /// The same vertices as parameter values `C + Δc` (parameter order).
    pub params_at: Vec<Vec<Rat>>,
    /// Empty, a point, bounded, unbounded, or not enumerated.
    pub shape: Shape,
    /// For an [`Shape::Unlisted`] region: its rows in the absolute
    /// parameters, prepared for the band LPs (the engine's own state).
    pub(crate) lp: Option<crate::lp::Prepared>,
}

/// `width / width(base)`: how much of the base band a new width keeps.
/// None when either is infinite, or the base band is a single value.
pub fn width_ratio(width: Option<&Rat>, base: &Option<Band>) -> Option<Rat> {
    let w0 = base.as_ref()?.width()?;
    let w = width?;
    (!w0.is_zero()).then(|| w / w0)
}

/// Why a prediction has no band under a threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum NoBand {
    /// No parameters meet the threshold: its region is empty.
    Empty,
    /// The threshold's relative bound reaches its limit: no band is trusted.
    Untrusted,
    /// Every prediction of the region is below zero at the point, where
    /// every measurement is positive.
    BelowZero,
}

impl NoBand {
    /// Why a region of shape `shape` gives no band at a point where it has
    /// none: a region that is neither empty nor untrusted has a band at
    /// every point unless all of it lies below zero there.
    pub fn of(shape: &Shape) -> NoBand {
        match shape {
            Shape::Untrusted { .. } => NoBand::Untrusted,
            Shape::Empty => NoBand::Empty,
            _ => NoBand::BelowZero,
        }
    }

    /// Its status as the JSON and CSV outputs name it.
    pub fn key(self) -> &'static str {
        match self {
            NoBand::Empty => "empty",
            NoBand::Untrusted => "untrusted",
            NoBand::BelowZero => "below_zero",
        }
    }

    /// Why, in a few words.
    pub fn reason(self) -> &'static str {
        match self {
            NoBand::Empty => "no parameters satisfy the threshold",
            NoBand::Untrusted => "the relative bound reaches the threshold's limit: no trustworthy band",
            NoBand::BelowZero => {
                "every prediction of the region is below zero here, where every measurement is positive"
            }
        }
    }
}

/// The bands of prediction `p` under region `r` (its `i`-th), or why there
/// are none: the one place that tells an empty region from an untrusted
/// threshold and from predictions below zero.
pub fn bands_of<'a>(r: &Region, p: &'a Prediction, i: usize) -> Result<(&'a Band, &'a Band), NoBand> {
    match (&p.bands[i], &p.measurement[i]) {
        (Some(b), Some(m)) => Ok((b, m)),
        _ => Err(NoBand::of(&r.shape)),
    }
}

/// `width_pruned / width_full`, when both are finite and the full one is non-zero.
pub fn shrink_ratio(full: &Option<Band>, pruned: &Option<Band>) -> Option<Rat> {
    width_ratio(pruned.as_ref()?.width().as_ref(), full)
}

/// The prediction and its band at one point.
#[derive(Debug, Clone)]
pub struct Prediction {
    /// The point.
    pub x: Vec<Rat>,
    /// `T(C, x)`.
    pub model: Rat,
    /// Per variable: true when the coordinate lies outside the data's range.
    pub outside: Vec<bool>,
    /// One band per region (None when the region is empty).
    pub bands: Vec<Option<Band>>,
    /// Per region, the band a new measurement at the point falls in when it
    /// scatters about the model as the data did (within the threshold's
    /// bound): [`Bound::measurement_band`] of the model band.
    pub measurement: Vec<Option<Band>>,
}

impl Prediction {
    /// True when some coordinate lies outside the range of the data.
    pub fn extrapolated(&self) -> bool {
        self.outside.iter().any(|&o| o)
    }

    /// The coordinates as text, `*` marking those outside the data's range.
    pub fn coords_marked(&self) -> Vec<String> {
        self.x
            .iter()
            .zip(&self.outside)
            .map(|(v, &o)| format!("{}{}", crate::model::show_value(v), if o { "*" } else { "" }))
            .collect()
    }
}

/// Everything the core method says about a model and its data.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The model's parameters C (fitted or given).
    pub params: Vec<Rat>,
    /// Fitted or given.
    pub fit: FitMode,
    /// The model on the data.
    pub design: Design,
    /// Residuals of C.
    pub residuals: Residuals,
    /// The smallest threshold with a non-empty region.
    pub emax: Rat,
    /// Max|e_i|/d_i of the fit (`None` unless every measurement is positive).
    pub rmax: Option<Rat>,
    /// The smallest relative threshold with a non-empty region: the
    /// minimax optimum of |T(c, x_i) − d_i|/d_i (`None` unless every
    /// measurement is positive).
    pub remax: Option<Rat>,
    /// A Δc attaining e_max (the unique one, or the mean of the e_max region's vertices).
    pub emax_dc: Vec<Rat>,
    /// True when e_max is attained at exactly one Δc.
    pub emax_unique: bool,
    /// False when the e_max region was too large to list: `emax_dc` is then
    /// one point of it (from an exact LP), not its vertex mean.
    pub emax_listed: bool,
    /// Names of the Δ variables, parameter order (`dc1`, `dc2`).
    pub dnames: Vec<String>,
    /// One region per threshold, in the requested order.
    pub regions: Vec<Region>,
    /// Predictions, model points first, then `--at` points.
    pub predictions: Vec<Prediction>,
    /// Present when RMS > e_max: the refitted parameters C + Δc* and their mean square residual.
    pub hint: Option<(Vec<Rat>, Rat)>,
}

/// Names of the Δ variables: `d` + parameter name (`dc1`), avoiding clashes.
pub fn delta_names(model: &Model) -> Vec<String> {
    let taken: Vec<&str> =
        model.params.iter().map(|p| p.name.as_str()).chain(model.vars.iter().map(String::as_str)).collect();
    model
        .params
        .iter()
        .map(|p| {
            let mut n = format!("d{}", p.name);
            while taken.contains(&n.as_str()) || n == "e" {
                n = format!("d{n}");
            }
            n
        })
        .collect()
}

/// Which residual system to build.
#[derive(Debug, Clone, Copy)]
enum Rows<'a> {
    /// `−e ≤ T(c, x) − d ≤ e` with `e` a variable (last): e_max.
    Absolute,
    /// `−r·d ≤ T(c, x) − d ≤ r·d` with `r` a variable (last): remax.
    Relative,
    /// `|T(c, x) − d| ≤ a + r·d` for a given bound.
    Fixed(&'a Bound),
}

/// The residual system over the parameters `c` (and `e` or `r`, last):
/// for every distinct point its binding rows, the smallest and largest
/// measurement there (a relative bound `(1 − r)·d` is largest at the
/// largest `d` when `r < 1` and at the smallest when `r > 1`, so with `r`
/// a variable both are kept).
///
/// It is posed in the absolute parameters `c = C + Δc` rather than in Δc:
/// the constants are then the measurements themselves, not `T(C, x) − d`,
/// whose exact values carry the (possibly huge) denominators of the fit;
/// results are translated to Δc afterwards ([`QeResult::shifted`]).
fn residual_atoms(design: &Design, k: usize, rows: Rows<'_>) -> Vec<Formula> {
    residual_constraints(design, k, rows)
        .into_iter()
        .map(|c| Formula::Atom(Atom { expr: LinExpr { coeffs: c.a, constant: -c.b }, rel: Rel::Le }))
        .collect()
}

/// The rows of [`residual_atoms`] as LP constraints (`a·x <= b`): each
/// coefficient cloned once into its row and each right-hand side formed
/// with its sign (these rows are rebuilt for every LP of a family).
fn residual_constraints(design: &Design, k: usize, rows: Rows<'_>) -> Vec<Constraint> {
    let n = if matches!(rows, Rows::Fixed(_)) { k } else { k + 1 };
    let one = Rat::one();
    let per_group = if matches!(rows, Rows::Relative) { 3 } else { 2 };
    let mut out = Vec::with_capacity(per_group * design.groups.len());
    // The rows' coefficients: f (upper) or −f (lower), then the bound's
    // coefficient when it is a variable.
    let row = |g: &crate::fit::Group, upper: bool, bound: Option<Rat>| -> Vec<Rat> {
        let mut a = Vec::with_capacity(n);
        a.extend(g.basis[1..=k].iter().map(|f| if upper { f.clone() } else { -f.clone() }));
        a.extend(bound);
        a
    };
    let mut fixed: Option<(Rat, Rat, Rat)> = None;
    for g in &design.groups {
        let f0 = &g.basis[0];
        // Upper rows: f0 + f·c − d ≤ bound(d), so f·c − bound ≤ d − f0;
        // lower rows: d − f0 − f·c ≤ bound(d), so −f·c − bound ≤ f0 − d.
        // num's subtraction for values in lowest terms: num-rational's
        // reduces with binary gcds (seconds on 4 000-digit measurements).
        let upper_b = |d: &Rat| crate::num::sub_lowest(d, f0);
        let lower_b = |d: &Rat| crate::num::sub_lowest(f0, d);
        match rows {
            Rows::Absolute => {
                out.push(Constraint::new(row(g, true, Some(-one.clone())), Kind::Le, upper_b(&g.ymin)));
                out.push(Constraint::new(row(g, false, Some(-one.clone())), Kind::Le, lower_b(&g.ymax)));
            }
            Rows::Relative => {
                out.push(Constraint::new(row(g, true, Some(-g.ymin.clone())), Kind::Le, upper_b(&g.ymin)));
                out.push(Constraint::new(row(g, false, Some(-g.ymax.clone())), Kind::Le, lower_b(&g.ymax)));
                if !crate::num::eq_lowest(&g.ymin, &g.ymax) {
                    out.push(Constraint::new(
                        row(g, false, Some(-g.ymin.clone())),
                        Kind::Le,
                        lower_b(&g.ymin),
                    ));
                }
            }
            Rows::Fixed(b) => {
                // f·c ≤ d·(1 + r) − f0 + a and −f·c ≤ d·(r − 1) + f0 + a:
                // each formed over one denominator and reduced once (r, a
                // multiple of remax, is often a long fraction: three
                // reductions per row were most of a family's band LPs).
                let (plus, minus, a) = fixed.get_or_insert_with(|| {
                    // r ± 1 over r's own denominator, in lowest terms
                    // without a gcd: (n ± d)/d.
                    let (n, d) = (b.relative.numer(), b.relative.denom());
                    (Rat::new_raw(n + d, d.clone()), Rat::new_raw(n - d, d.clone()), b.absolute.clone())
                });
                let neg_f0 = -f0.clone();
                out.push(Constraint::new(row(g, true, None), Kind::Le, mul_add2(&g.ymin, plus, &neg_f0, a)));
                let d = if b.relative > one { &g.ymin } else { &g.ymax };
                out.push(Constraint::new(row(g, false, None), Kind::Le, mul_add2(d, minus, f0, a)));
            }
        }
    }
    out
}

impl Analysis {
    /// The widest band at the first threshold over the prediction points,
    /// as a half-width relative to the prediction (`None`: no band there,
    /// an open one, or no points). An experiment lists its series by it.
    pub fn widest_relative_half_width(&self) -> Option<Rat> {
        self.predictions
            .iter()
            .filter_map(|p| {
                p.bands.first().and_then(|b| b.as_ref()).and_then(|b| b.relative_half_width(&p.model))
            })
            .max()
    }

    /// The QE problem the analysis solves, over the parameters named
    /// `names`: e_max (paper eq. (6): `∃c: ∧ −e ≤ T(c, x_i) − d_i ≤ e`, free
    /// variable `e`) or, with a threshold's bound, the region (eq. (5)/(7))
    /// in the absolute parameters `c = C + Δc`.
    /// Every number is in lowest terms (the rows the analysis itself
    /// solves may carry long unreduced constants: they only enter the LP
    /// and QE engines, which bring each row to integers themselves).
    pub fn problem(design: &Design, names: &[String], threshold: Option<&Bound>) -> Problem {
        let mut p = Self::problem_of(design, names, threshold.map_or(Rows::Absolute, Rows::Fixed));
        if let Formula::And(atoms) = &mut p.formula {
            for f in atoms {
                if let Formula::Atom(a) = f {
                    let c = std::mem::take(&mut a.expr.constant);
                    let (n, d) = c.into_raw();
                    a.expr.constant = crate::num::reduced(n, d);
                }
            }
        }
        p
    }

    /// remax as a QE problem: `∃c: ∧ −r·d_i ≤ T(c, x_i) − d_i ≤ r·d_i`,
    /// free variable `r`.
    pub fn relative_problem(design: &Design, names: &[String]) -> Problem {
        Self::problem_of(design, names, Rows::Relative)
    }

    fn problem_of(design: &Design, names: &[String], rows: Rows<'_>) -> Problem {
        let mut names: Vec<String> = names.to_vec();
        let k = names.len();
        let atoms = residual_atoms(design, k, rows);
        match rows {
            Rows::Fixed(_) => Problem { vars: VarTable::from_names(names), formula: Formula::And(atoms) },
            Rows::Absolute | Rows::Relative => {
                names.push(if matches!(rows, Rows::Relative) { "r" } else { "e" }.to_string());
                Problem {
                    vars: VarTable::from_names(names),
                    formula: Formula::Exists((0..k).collect(), Box::new(Formula::And(atoms))),
                }
            }
        }
    }

    /// The fit and its minimax bounds, the part of [`Analysis::run`] before
    /// any region: what a family of forms is ranked by. remax is left out
    /// unless `need_remax` (and always when a measurement is not positive).
    pub fn statistics(
        model: &Model,
        data: &[Measurement],
        file: &str,
        opts: &Options,
        need_remax: bool,
    ) -> Result<Statistics, AnalysisError> {
        Analysis::statistics_tallied(model, data, &crate::fit::Tally::new(data), file, opts, need_remax)
    }

    /// [`Analysis::statistics`] with the data's tally made once by the
    /// caller (every form of a family, and the trusted band, share it).
    pub fn statistics_tallied(
        model: &Model,
        data: &[Measurement],
        tally: &crate::fit::Tally,
        file: &str,
        opts: &Options,
        need_remax: bool,
    ) -> Result<Statistics, AnalysisError> {
        if data.is_empty() {
            return Err(AnalysisError::NoData { file: file.to_string() });
        }
        let design = Design::from_tally(model, tally, file)?;
        let params = design.params(model)?;
        let residuals = Residuals::new(&design, data, &params);
        let k = model.k();
        let qopts = opts.qe();
        let emax = minimax(&design, k, Rows::Absolute, &qopts)?;
        // Relative thresholds need positive measurements; remax is found
        // as e_max is, by eliminating the parameters.
        let positive = design.groups.iter().all(|g| g.ymin.is_positive());
        // |t − y|/y formed unreduced (t carries the fit's long denominator);
        // only the largest is reduced.
        let rel = |t: &Rat, y: &Rat| {
            Rat::new_raw((t.numer() * y.denom() - y.numer() * t.denom()).abs(), t.denom() * y.numer())
        };
        let rmax = positive.then(|| {
            let (mut m, mut mf) = (Rat::zero(), 0.0);
            for (i, g) in design.groups.iter().enumerate() {
                let t = residuals.value_unreduced(i);
                let tf = crate::num::to_f64(t);
                for y in [&g.ymin, &g.ymax] {
                    // Floats rule out most points before the exact quotient.
                    let yf = crate::num::to_f64(y);
                    let rf = (tf - yf).abs() / yf;
                    if crate::num::surely_below(rf, 1e-12 * (tf.abs() + yf.abs()) / yf, mf) {
                        continue;
                    }
                    let r = rel(t, y);
                    if crate::num::cmp_unreduced(&r, &m).is_gt() {
                        mf = crate::num::to_f64(&r);
                        m = r;
                    }
                }
            }
            let (n, d) = m.into_raw();
            crate::num::reduced(n, d)
        });
        let remax =
            if positive && need_remax { Some(minimax(&design, k, Rows::Relative, &qopts)?) } else { None };
        Ok(Statistics { design, params, residuals, emax, rmax, remax })
    }

    /// remax when every measurement is positive, else e_max: the smallest
    /// bound any parameters meet, without a fit (what ranks a family's
    /// single-variable terms).
    pub fn smallest_bound(
        model: &Model,
        data: &[Measurement],
        file: &str,
        opts: &Options,
    ) -> Result<Rat, AnalysisError> {
        if data.is_empty() {
            return Err(AnalysisError::NoData { file: file.to_string() });
        }
        let design = Design::new(model, data, file)?;
        let qopts = opts.qe();
        let positive = design.groups.iter().all(|g| g.ymin.is_positive());
        minimax(&design, model.k(), if positive { Rows::Relative } else { Rows::Absolute }, &qopts)
    }

    /// remax of `design` (the smallest relative residual bound any
    /// parameters reach), `None` unless every measurement is positive;
    /// nothing else of [`Analysis::statistics`] is computed.
    pub fn remax_on(design: &Design, k: usize, opts: &Options) -> Result<Option<Rat>, AnalysisError> {
        if !design.all_positive() {
            return Ok(None);
        }
        minimax(design, k, Rows::Relative, &opts.qe()).map(Some)
    }

    /// The model band and the new-measurement band of each basis in
    /// `bases` (`[f0, f1, .., fk]` at a point) over the parameters that meet
    /// `bound` on `design`'s rows, each side from one exact LP; `None` when
    /// no parameters meet it. No vertex is enumerated: this is how a family
    /// of many forms gets its bands. `feasible`: the caller knows that some
    /// parameters meet the bound (it is at least e_max or remax), which
    /// spares the LP that checks it. When every measurement is positive
    /// (run times), positivity is a constraint at each point
    /// ([`Band::positive`]): a point whose whole band is below zero gets
    /// `None`.
    pub fn lp_bands(
        design: &Design,
        k: usize,
        bound: &Bound,
        bases: &[Vec<Rat>],
        feasible: bool,
    ) -> Option<Vec<Option<(Band, Band)>>> {
        Analysis::lp_bands_with(design, k, bound, bases, feasible, true)
    }

    /// [`Analysis::lp_bands`], by the LPs alone unless `closed_form` lets
    /// a [`square`] design take its closed form.
    fn lp_bands_with(
        design: &Design,
        k: usize,
        bound: &Bound,
        bases: &[Vec<Rat>],
        feasible: bool,
        closed_form: bool,
    ) -> Option<Vec<Option<(Band, Band)>>> {
        // No point to band and parameters known to exist: nothing to solve
        // (a family without prediction points built every form's rows).
        if bases.is_empty() && feasible {
            return Some(Vec::new());
        }
        let positive = design.all_positive();
        let finish = |m: Option<Band>| {
            let m = m?;
            if !positive {
                let n = bound.new_measurement(&m);
                return Some((m, n));
            }
            // Clipped first, so that the new-measurement band carries
            // the mark (a relative bound would clamp it silently).
            let m = m.positive()?;
            bound.new_measurement(&m).positive().map(|n| (m, n))
        };
        if let Some(inv) = square(design, k).filter(|_| closed_form) {
            return match square_bands(design, &inv, bound, bases) {
                Some(bands) => Some(bands.into_iter().map(|m| finish(Some(m))).collect()),
                // An empty box: the LP would find no parameters either.
                None if feasible => Some(vec![None; bases.len()]),
                None => None,
            };
        }
        let prepared =
            crate::lp::Prepared::new(k, residual_constraints(design, k, Rows::Fixed(bound))).ok()?;
        let lp = &prepared;
        if !feasible && !matches!(lp.feasible(), Ok(true)) {
            return None;
        }
        // Many points (a fine `--at` range): the region's few vertices
        // once, then each band is the extremes of its values there, the
        // LPs' optima exactly; the LPs when the vertices are too many.
        let listed = (bases.len() > MANY_POINTS).then(|| listed_generators(lp, k)).flatten();
        Some(
            bases
                .iter()
                .map(|b| {
                    finish(match &listed {
                        Some(g) => vertex_band(g, b),
                        None => lp_band(lp, b),
                    })
                })
                .collect(),
        )
    }

    /// Runs the method on `data` (its rows, its file name in messages).
    pub fn run(
        model: &Model,
        data: &crate::data::Dataset,
        opts: &Options,
    ) -> Result<Analysis, AnalysisError> {
        Analysis::run_rows(model, &data.rows, &data.file, opts)
    }

    /// The prediction at the point `x` (one value per model variable), if
    /// `x` is among the model's `predict` points or [`Options::at`].
    pub fn prediction(&self, x: &[Rat]) -> Option<&Prediction> {
        self.predictions.iter().find(|p| p.x == x)
    }

    /// The index and region of the threshold written `threshold`, as in
    /// [`Options::thresholds`] (`max`, `trusted`, `2*remax`, a number; the
    /// defaults are `max` and `trusted`).
    pub fn region(&self, threshold: &str) -> Option<(usize, &Region)> {
        let t = threshold.trim();
        self.regions.iter().enumerate().find(|(_, r)| r.threshold.text == t)
    }

    /// The model's band and the band of a new measurement at the
    /// prediction point `x` for `threshold`, or why there is none (empty,
    /// untrusted, below zero); `None` when `x` is not a prediction point or
    /// the threshold was not asked for.
    pub fn bands_at(&self, x: &[Rat], threshold: &str) -> Option<Result<(&Band, &Band), NoBand>> {
        let (i, r) = self.region(threshold)?;
        Some(bands_of(r, self.prediction(x)?, i))
    }

    /// The model's band at the prediction point `x` for `threshold` (see
    /// [`Analysis::region`]): `None` when `x` is not a prediction point or
    /// the threshold was not asked for, `Some(None)` when there is no band
    /// ([`Analysis::bands_at`] says why).
    pub fn band(&self, x: &[Rat], threshold: &str) -> Option<Option<&Band>> {
        let (i, _) = self.region(threshold)?;
        Some(self.prediction(x)?.bands[i].as_ref())
    }

    /// The band a new measurement at `x` falls in for `threshold`, when it
    /// scatters about the model as the data did (the model band widened by
    /// the threshold's bound); `None` and `Some(None)` as for
    /// [`Analysis::band`].
    pub fn measurement_band(&self, x: &[Rat], threshold: &str) -> Option<Option<&Band>> {
        let (i, _) = self.region(threshold)?;
        Some(self.prediction(x)?.measurement[i].as_ref())
    }

    /// The fitted (or given) value of the parameter named `name` of
    /// `model`, the model this analysis ran (`None` for a name that is not
    /// a `param`, such as a `const`).
    pub fn param(&self, model: &Model, name: &str) -> Option<&Rat> {
        let i = model.params.iter().position(|p| p.name == name)?;
        self.params.get(i)
    }

    /// [`Analysis::run`] on measurements given as rows; `file` names the
    /// data in messages.
    pub fn run_rows(
        model: &Model,
        data: &[Measurement],
        file: &str,
        opts: &Options,
    ) -> Result<Analysis, AnalysisError> {
        Analysis::run_tallied(model, data, &crate::fit::Tally::new(data), file, opts)
    }

    /// [`Analysis::run_rows`] with the data's tally made once by the caller.
    pub fn run_tallied(
        model: &Model,
        data: &[Measurement],
        tally: &crate::fit::Tally,
        file: &str,
        opts: &Options,
    ) -> Result<Analysis, AnalysisError> {
        check_variables(model, data, file)?;
        let thresholds =
            if opts.thresholds.is_empty() { Threshold::defaults() } else { opts.thresholds.clone() };
        let need_remax = !opts.skip_remax || thresholds.iter().any(Threshold::uses_remax);
        let Statistics { design, params, residuals, emax, rmax, remax } =
            Analysis::statistics_tallied(model, data, tally, file, opts, need_remax)?;
        let dnames = delta_names(model);
        let k = model.k();
        let qopts = opts.qe();
        let scale = Scale {
            max: residuals.max_abs.clone(),
            emax: emax.clone(),
            rmax: rmax.clone(),
            remax: remax.clone(),
        };

        // The e_max region (eq. 7) gives the Δc attaining it.
        let at_emax = match opts.skip_emax_region {
            true => None,
            false => Some(region(&design, &params, &dnames, &Bound::absolute(emax.clone()), &qopts)?),
        };
        let emax_unique = at_emax.as_ref().is_some_and(|r| r.shape == Shape::Point);
        let emax_listed = at_emax.as_ref().is_some_and(|r| !matches!(r.shape, Shape::Unlisted { .. }));
        let emax_dc = match at_emax.as_ref().map_or(0, |r| r.vertices.len()) {
            // Not computed.
            _ if at_emax.is_none() => vec![Rat::zero(); k],
            // Not listed: a point of the region, from an exact LP.
            0 if !emax_listed => at_emax
                .as_ref()
                .and_then(|r| r.lp.as_ref())
                .and_then(|lp| match lp.optimize(&vec![Rat::zero(); k], crate::lp::Sense::Minimize) {
                    Ok(crate::lp::LpOutcome::Optimal(o)) => Some(o.point),
                    _ => None,
                })
                .map_or_else(
                    || vec![Rat::zero(); k],
                    |x| x.iter().zip(&params).map(|(x, c)| x - c).collect(),
                ),
            0 => vec![Rat::zero(); k],
            n => {
                let nr = Rat::from_integer(n.into());
                (0..k)
                    .map(|j| {
                        let vs = at_emax.as_ref().map_or(&[][..], |r| &r.vertices[..]);
                        let mut sum = crate::num::Sum::default();
                        for v in vs {
                            sum.add(&v[j]);
                        }
                        crate::num::div(&sum.value(), &nr)
                    })
                    .collect()
            }
        };

        let mut regions = Vec::new();
        for t in thresholds {
            let bound = match t.bound(&scale) {
                // A threshold with a limit (`trusted`) says "no band" rather
                // than failing the run on data it cannot apply to.
                Err(ThresholdError::NotPositive { .. }) if t.limit.is_some() => {
                    let mut r = untrusted(&Bound::default(), k, &dnames, true);
                    r.threshold = t;
                    regions.push(r);
                    continue;
                }
                b => b.map_err(|e| AnalysisError::Threshold(Box::new(e)))?,
            };
            let mut r = if t.limit.as_ref().is_some_and(|l| crate::num::cmp_fast(&bound.relative, l).is_ge())
            {
                untrusted(&bound, k, &dnames, false)
            } else if let Some(r) = at_emax.as_ref().filter(|r| r.bound == bound) {
                r.clone()
            } else {
                region(&design, &params, &dnames, &bound, &qopts)?
            };
            r.threshold = t;
            regions.push(r);
        }

        let points = prediction_points(model, &opts.at);
        let hint = if at_emax.is_some() && crate::fit::rms_exceeds(&residuals.mean_square, &emax) {
            let refit: Vec<Rat> = params.iter().zip(&emax_dc).map(|(c, d)| c + d).collect();
            let ms = Residuals::new(&design, data, &refit).mean_square;
            Some((refit, ms))
        } else {
            None
        };
        let mut analysis = Analysis {
            params,
            fit: model.fit,
            design,
            residuals,
            emax,
            rmax,
            remax,
            emax_dc,
            emax_unique,
            emax_listed,
            dnames,
            regions,
            predictions: Vec::new(),
            hint,
        };
        let (predictions, log) = analysis.predictor(model, data, opts).predict_all(&points)?;
        analysis.predictions = predictions;
        analysis.design.log.inexact.extend(log.inexact);
        Ok(analysis)
    }

    /// What computes this analysis' prediction at further points, one at a
    /// time or in parallel batches: `--at p=1..1000000` is streamed
    /// through it rather than held in [`Analysis::predictions`]. `data` and
    /// `opts` are the analysis' own.
    pub fn predictor<'a>(&'a self, model: &'a Model, data: &[Measurement], opts: &Options) -> Predictor<'a> {
        let (lo, hi) = data_range(data, model.vars.len());
        Predictor {
            analysis: self,
            model,
            lo,
            hi,
            // Run times: a band never reaches below zero (Band::positive).
            positive: self.design.all_positive(),
            skip_measurement: opts.skip_measurement,
            views: self.regions.iter().map(|r| Vertices::of(&r.params_at)).collect(),
            params: crate::num::small::Common::of(&self.params),
        }
    }
}

/// The model cannot be evaluated at prediction point `x`.
fn point_error(model: &Model, e: &crate::model::EvalError, x: &[Rat]) -> AnalysisError {
    AnalysisError::Fit(FitError::Eval(Box::new(model.eval_diagnostic(e, x, "prediction point"))))
}

/// Predictions of an [`Analysis`] at points: [`Analysis::predictor`].
pub struct Predictor<'a> {
    analysis: &'a Analysis,
    model: &'a Model,
    lo: Vec<Rat>,
    hi: Vec<Rat>,
    positive: bool,
    skip_measurement: bool,
    /// Each region's vertices as the prediction loop reads them.
    views: Vec<Vertices>,
    /// The parameters over one denominator, when they fit in 128 bits.
    params: Option<crate::num::small::Common>,
}

/// A region's vertices as [`band`] reads them at many points: their float
/// views, which propose the extreme vertices ([`extreme_candidates`]), and
/// each over one 128-bit common denominator where it fits, which gives
/// the proposed vertex' exact value without big integers.
struct Vertices {
    view: Vec<Vec<f64>>,
    common: Vec<Option<crate::num::small::Common>>,
}

impl Vertices {
    fn of(vertices: &[Vec<Rat>]) -> Vertices {
        Vertices {
            view: vertices.iter().map(|v| v.iter().map(filter_view).collect()).collect(),
            common: vertices.iter().map(|v| crate::num::small::Common::of(v)).collect(),
        }
    }

    /// The least and the greatest `b0 + f·v` over `vertices` (the ones these
    /// views were made of), for the basis `b = [b0, f..]` with float view
    /// `bf` ([`filter_view`]); `None` without vertices. The floats only
    /// propose the candidates ([`extreme_candidates`]); a single candidate
    /// (their usual answer) is evaluated in 128-bit integers when its parts
    /// fit, several are compared unreduced and the extreme reduced once.
    fn extremes(&self, vertices: &[Vec<Rat>], at: &BasisAt<'_>) -> (Option<Rat>, Option<Rat>) {
        let (b, f) = (at.b, &at.b[1..]);
        let (for_min, for_max) = extreme_candidates(&at.view, &self.view);
        let cmp = crate::num::cmp_unreduced;
        let value = |i: &usize| crate::num::affine_unreduced(&b[0], f, &vertices[*i]);
        let extreme = |candidates: &[usize], max: bool| -> Option<Rat> {
            if let [i] = candidates {
                return Some(affine_at(self.common[*i].as_ref(), at, &vertices[*i]));
            }
            let values = candidates.iter().map(value);
            let (n, d) = if max { values.max_by(cmp) } else { values.min_by(cmp) }?.into_raw();
            Some(crate::num::reduced(n, d))
        };
        (extreme(&for_min, false), extreme(&for_max, true))
    }
}

/// A basis `b = [b0, f..]` at one prediction point, with the views every
/// band there reads: its floats ([`filter_view`]), which propose extreme
/// vertices, and its parts over one 128-bit denominator where they fit,
/// made once for the model's value and every region's extremes.
struct BasisAt<'a> {
    b: &'a [Rat],
    view: Vec<f64>,
    words: Option<crate::num::small::Basis>,
}

impl BasisAt<'_> {
    fn of(b: &[Rat]) -> BasisAt<'_> {
        BasisAt {
            b,
            view: b.iter().map(filter_view).collect(),
            words: crate::num::small::Basis::of(&b[0], &b[1..]),
        }
    }
}

/// `b0 + f·v` in lowest terms for the basis `b = [b0, f..]` at `at`: in
/// 128-bit integers through `common` (`v` over one denominator) when it is
/// given and everything fits, else over big integers with one reduction.
fn affine_at(common: Option<&crate::num::small::Common>, at: &BasisAt<'_>, v: &[Rat]) -> Rat {
    let b = at.b;
    common
        .zip(at.words.as_ref())
        .and_then(|(c, w)| c.affine_over(w))
        .unwrap_or_else(|| crate::num::affine(&b[0], &b[1..], v))
}

/// Whether `f·c` stays bounded below and above (in that order) along the
/// `rays` and `lines` of a region: a ray on which it grows unbounds the
/// upper side, one on which it falls the lower, a line on which it changes
/// both.
fn bounded_sides(f: &[Rat], rays: &[Vec<Rat>], lines: &[Vec<Rat>]) -> (bool, bool) {
    let dir = |r: &Vec<Rat>| crate::num::affine_unreduced(&Rat::zero(), f, r);
    let (mut down, mut up) = (true, true);
    for r in rays {
        let d = dir(r);
        up &= !d.is_positive();
        down &= !d.is_negative();
    }
    if lines.iter().any(|l| !dir(l).is_zero()) {
        (down, up) = (false, false);
    }
    (down, up)
}

impl Predictor<'_> {
    /// The prediction at `x`; inexact values met are noted in `log`.
    pub fn predict(&self, x: Vec<Rat>, log: &mut crate::model::EvalLog) -> Result<Prediction, AnalysisError> {
        let model = self.model;
        let b = model.basis_at(&x, log).map_err(|e| point_error(model, &e, &x))?;
        let at = BasisAt::of(&b);
        let value = affine_at(self.params.as_ref(), &at, &self.analysis.params);
        let regions = &self.analysis.regions;
        let bands: Vec<Option<Band>> = regions
            .iter()
            .zip(&self.views)
            .map(|(r, v)| {
                let b = band(r, v, &at);
                if self.positive {
                    b.and_then(Band::positive)
                } else {
                    b
                }
            })
            .collect();
        let measurement = regions
            .iter()
            .zip(&bands)
            .map(|(r, b)| {
                let n = b.as_ref().filter(|_| !self.skip_measurement).map(|b| r.bound.new_measurement(b));
                if self.positive {
                    n.and_then(Band::positive)
                } else {
                    n
                }
            })
            .collect();
        let outside = x.iter().enumerate().map(|(i, v)| *v < self.lo[i] || *v > self.hi[i]).collect();
        Ok(Prediction { x, model: value, outside, bands, measurement })
    }

    /// An evaluation log for [`Predictor::predict`]: the fit's settings,
    /// no inexact value met yet.
    pub fn new_log(&self) -> crate::model::EvalLog {
        let mut log = self.analysis.design.log.clone();
        log.inexact.clear();
        log
    }

    /// The predictions at `points`, in order, computed in parallel chunks;
    /// the first failing point in order is the error. Also returns the
    /// inexact values met (a union over the chunks, in point order).
    pub fn predict_all(
        &self,
        points: &[Vec<Rat>],
    ) -> Result<(Vec<Prediction>, crate::model::EvalLog), AnalysisError> {
        use rayon::prelude::*;
        let done: Vec<(Result<Vec<Prediction>, AnalysisError>, crate::model::EvalLog)> = points
            .par_chunks(PREDICTION_CHUNK)
            .map(|chunk| {
                let mut log = self.new_log();
                let r = chunk.iter().map(|x| self.predict(x.clone(), &mut log)).collect();
                (r, log)
            })
            .collect();
        let mut log = self.new_log();
        let mut predictions = Vec::with_capacity(points.len());
        for (r, chunk_log) in done {
            predictions.extend(r?);
            log.inexact.extend(chunk_log.inexact);
        }
        Ok((predictions, log))
    }

    /// [`Predictor::check`] of a set of points as written (`--at
    /// p=1..1000000`): when the model is shown to be evaluable over the box
    /// the points span (exact interval arithmetic, once), no point is
    /// evaluated; otherwise each is, in order.
    pub fn check_set(&self, points: &crate::model::PointSet) -> Result<(), AnalysisError> {
        let limits = &self.analysis.design.log.limits;
        if points.bounds().is_some_and(|b| self.model.evaluable_within(&b, limits)) {
            return Ok(());
        }
        self.check(points.iter())
    }

    /// Checks that the model can be evaluated at every point, before a
    /// streamed output begins (a point where it cannot fails the run with
    /// nothing written). The error is that of the first failing point in
    /// order.
    pub fn check<I: Iterator<Item = Vec<Rat>>>(&self, mut points: I) -> Result<(), AnalysisError> {
        use rayon::prelude::*;
        let model = self.model;
        // Runs of points checked in parallel (not a bridge from the
        // iterator, whose lock every point would take).
        loop {
            let run: Vec<Vec<Rat>> = points.by_ref().take(CHECK_RUN).collect();
            if run.is_empty() {
                return Ok(());
            }
            let failed = run.par_chunks(PREDICTION_CHUNK).find_map_first(|chunk| {
                let mut log = self.analysis.design.log.clone();
                chunk
                    .iter()
                    .find_map(|x| model.evaluable_at(x, &mut log).err().map(|e| point_error(model, &e, x)))
            });
            if let Some(e) = failed {
                return Err(e);
            }
        }
    }
}

/// The prediction points of an analysis of `model` with the extra points
/// `at`: the model's `predict` points, then those of `at` not already
/// there, in order (a set of seen points: `--at p=1..100000` was
/// quadratic with `contains`).
pub fn prediction_points(model: &Model, at: &[Vec<Rat>]) -> Vec<Vec<Rat>> {
    let mut points: Vec<Vec<Rat>> = model.predict.clone();
    let mut seen: std::collections::HashSet<Point<&[Rat]>> =
        model.predict.iter().map(|p| Point(p.as_slice())).collect();
    for p in at {
        if seen.insert(Point(p)) {
            points.push(p.clone());
        }
    }
    points
}

fn data_range(data: &[Measurement], nv: usize) -> (Vec<Rat>, Vec<Rat>) {
    let mut lo: Vec<Rat> = data.first().map_or_else(|| vec![Rat::zero(); nv], |m| m.x.clone());
    let mut hi = lo.clone();
    for m in data {
        for (i, v) in m.x.iter().enumerate() {
            if *v < lo[i] {
                lo[i] = v.clone();
            }
            if *v > hi[i] {
                hi[i] = v.clone();
            }
        }
    }
    (lo, hi)
}

/// `x·m + p + q`, formed over one denominator and reduced once. A prime
/// dividing the result's numerator and `q`'s denominator (`q` is in lowest
/// terms) divides one of the other denominators, so the reduction needs
/// gcds with those only: `q` is the threshold, whose denominator can be
/// thousands of digits long when it is the fit's Max|e_i| on distinct points.
///
/// Past [`UNREDUCED_BITS`] the value is left as formed: a row constant
/// only enters the LP and the QE engine, which bring each row to primitive
/// integers themselves, so reducing here was a second gcd of the same long
/// numbers per row (half the run of a fit on 800 measurements of 4 000
/// digits), which almost always found 1. Shown problems are reduced where
/// they are printed.
fn mul_add2(x: &Rat, m: &Rat, p: &Rat, q: &Rat) -> Rat {
    let (xd, md, pd, qd) = (x.denom(), m.denom(), p.denom(), q.denom());
    let xm = xd * md;
    let pq = pd * qd;
    let n = x.numer() * m.numer() * &pq + p.numer() * &xm * qd + q.numer() * &xm * pd;
    let d = &xm * pq;
    if d.bits() > UNREDUCED_BITS {
        return if n.is_zero() { Rat::zero() } else { Rat::new_raw(n, d) };
    }
    crate::num::reduced_dividing(n, d, &(xm * pd))
}

/// Row constants ([`mul_add2`]) with a denominator longer than this many
/// bits are left unreduced.
const UNREDUCED_BITS: u64 = 4096;

/// e_max (or remax) by eliminating the parameters from the residual
/// system with the threshold a variable (paper eq. (6)).
///
/// It is one exact LP, `min e` over the residual rows (certified by the
/// simplex in [`crate::lp`], linear in the number of points); the QE
/// projection of the paper, the same number, is the fallback when the LP
/// gives no optimum (it always has one: the rows are feasible for large e).
fn minimax(design: &Design, k: usize, rows: Rows<'_>, qopts: &qe::Options) -> Result<Rat, AnalysisError> {
    // (Relative rows are only asked of positive data; the closed form
    // divides by ymax + ymin, so it requires that too.)
    let closed = match rows {
        Rows::Absolute => true,
        Rows::Relative => design.all_positive(),
        Rows::Fixed(_) => false,
    };
    if closed && square(design, k).is_some() {
        // Each point's value moves freely: the smallest bound is the
        // largest any one point needs on its own, half its spread
        // (absolute) or (ymax − ymin)/(ymax + ymin) (relative, from
        // (1 − r)·ymax ≤ v ≤ (1 + r)·ymin), as the LP finds it.
        let two = Rat::from_integer(2.into());
        let need = |g: &crate::fit::Group| match rows {
            Rows::Relative => {
                crate::num::div(&crate::num::sub_lowest(&g.ymax, &g.ymin), &crate::num::add(&g.ymax, &g.ymin))
            }
            _ => crate::num::div(&crate::num::sub_lowest(&g.ymax, &g.ymin), &two),
        };
        return Ok(design
            .groups
            .iter()
            .map(need)
            .reduce(|a, b| crate::num::max_fast(&a, &b).clone())
            .unwrap_or_else(Rat::zero));
    }
    minimax_general(design, k, rows, qopts)
}

/// [`minimax`] by elimination (an LP, or QE when the LP cannot be set up).
fn minimax_general(
    design: &Design,
    k: usize,
    rows: Rows<'_>,
    qopts: &qe::Options,
) -> Result<Rat, AnalysisError> {
    let mut objective = vec![Rat::zero(); k + 1];
    objective[k] = Rat::one();
    // The LP over the residual rows (most are certified at the float
    // proposal's vertex); QE when it gives no optimum.
    if let Ok(lp) = crate::lp::Prepared::new(k + 1, residual_constraints(design, k, rows)) {
        if let Ok(crate::lp::Value::Optimal(v)) = lp.value(&objective, crate::lp::Sense::Minimize) {
            return Ok(v.max(Rat::zero()));
        }
    }
    let names: Vec<String> = (0..k).map(|j| format!("c{j}")).collect();
    let p = Analysis::problem_of(design, &names, rows);
    // The result is an interval of the one variable e: a few generators
    // at most, whatever --max-vertices says about regions.
    let limits = Limits { vertices: qopts.limits.vertices.max(4), ..qopts.limits };
    let r = qe::solve(&p, &qe::Options { limits, ..Default::default() })?;
    // The result is `e >= e_max` (the residual system is feasible for
    // large e; for r, it is feasible from r = 1 on at the latest, with
    // c = 0 when f0 = 0, and in general for r large).
    let mut best: Option<Rat> = None;
    for piece in &r.pieces {
        for con in piece.minimal.constraints() {
            if con.a[0].is_negative() {
                let v = &con.b / &con.a[0];
                if best.as_ref().is_none_or(|b| v > *b) {
                    best = Some(v);
                }
            }
        }
    }
    Ok(best.unwrap_or_else(Rat::zero).max(Rat::zero()))
}

/// The Δc region at threshold `t` (paper eq. (5)/(7)): solved in the
/// absolute parameters, then shifted by `c` and named with `dnames`.
fn region(
    design: &Design,
    c: &[Rat],
    dnames: &[String],
    t: &Bound,
    qopts: &qe::Options,
) -> Result<Region, AnalysisError> {
    match square_region(design, c, dnames, t, qopts) {
        Some(r) => Ok(r),
        None => region_listed(design, c, dnames, t, qopts),
    }
}

/// [`region`] by elimination, whatever the design.
fn region_listed(
    design: &Design,
    c: &[Rat],
    dnames: &[String],
    t: &Bound,
    qopts: &qe::Options,
) -> Result<Region, AnalysisError> {
    let k = c.len();
    let p = Analysis::problem_of(design, dnames, Rows::Fixed(t));
    let absolute = match qe::solve(&p, qopts) {
        Err(qe::QeError::Elim(qe::ElimError::TooManyVertices { found, limit })) => {
            return Ok(unlisted(&p, c, t, Shape::Unlisted { found, limit, work: false }));
        }
        Err(qe::QeError::Elim(qe::ElimError::TooMuchWork { limit })) => {
            return Ok(unlisted(&p, c, t, Shape::Unlisted { found: 0, limit, work: true }));
        }
        r => r?,
    };
    let shift: Vec<Rat> = absolute.origin.iter().map(|&j| c[j].clone()).collect();
    let result = absolute.shifted(&shift);
    let to_param_order = |v: &Vec<Rat>| {
        let mut out = vec![Rat::zero(); k];
        for (j, x) in v.iter().enumerate() {
            out[result.origin[j]] = x.clone();
        }
        out
    };
    let (vertices, params_at, shape) = match (result.pieces.first(), absolute.pieces.first()) {
        (Some(piece), Some(abs)) => {
            let g = &piece.minimal.generators;
            let vertices: Vec<Vec<Rat>> = g.vertices.iter().map(to_param_order).collect();
            let params_at: Vec<Vec<Rat>> =
                abs.minimal.generators.vertices.iter().map(to_param_order).collect();
            let shape = if !g.rays.is_empty() || !g.lines.is_empty() {
                Shape::Unbounded {
                    rays: g.rays.iter().map(to_param_order).collect(),
                    lines: g.lines.iter().map(to_param_order).collect(),
                }
            } else if vertices.len() == 1 {
                Shape::Point
            } else {
                Shape::Bounded
            };
            (vertices, params_at, shape)
        }
        _ => (vec![], vec![], Shape::Empty),
    };
    Ok(listed(t, result, vertices, params_at, shape))
}

/// The region of the bound `t` whose generators were listed (by
/// elimination or in closed form).
fn listed(
    t: &Bound,
    result: QeResult,
    vertices: Vec<Vec<Rat>>,
    params_at: Vec<Vec<Rat>>,
    shape: Shape,
) -> Region {
    Region {
        threshold: unnamed(t),
        bound: t.clone(),
        value: t.absolute.clone(),
        result,
        vertices,
        params_at,
        shape,
        lp: None,
    }
}

/// The region of a threshold that gives no band ([`Shape::Untrusted`]).
fn untrusted(t: &Bound, k: usize, dnames: &[String], not_positive: bool) -> Region {
    Region {
        threshold: unnamed(t),
        bound: t.clone(),
        value: t.absolute.clone(),
        result: QeResult {
            vars: VarTable::from_names(dnames.to_vec()),
            origin: (0..k).collect(),
            pieces: vec![],
        },
        vertices: vec![],
        params_at: vec![],
        shape: Shape::Untrusted { not_positive },
        lp: None,
    }
}

/// A threshold for the bound `t`, before the caller names it.
fn unnamed(t: &Bound) -> Threshold {
    Threshold::of_bound(t)
}

/// A region whose vertices are too many to list (module docs of
/// [`Shape::Unlisted`]): its residual rows, prepared for exact LPs. Its QE
/// result holds no pieces; it is never shown as a formula.
fn unlisted(p: &Problem, c: &[Rat], t: &Bound, shape: Shape) -> Region {
    let k = c.len();
    // The limit may stop the listing before the region is known to be
    // empty (a threshold below e_max): one LP decides, so that an empty
    // region is never taken for one whose bands lie below zero.
    let (shape, lp) = match rows_lp(p, k) {
        Some(lp) if matches!(lp.feasible(), Ok(false)) => (Shape::Empty, None),
        lp => (shape, lp),
    };
    Region {
        threshold: unnamed(t),
        bound: t.clone(),
        value: t.absolute.clone(),
        result: QeResult { vars: p.vars.clone(), origin: (0..k).collect(), pieces: vec![] },
        vertices: vec![],
        params_at: vec![],
        shape,
        lp,
    }
}

/// A region's residual rows (a conjunction over `k` parameters), prepared
/// for exact LPs.
fn rows_lp(p: &Problem, k: usize) -> Option<crate::lp::Prepared> {
    let atoms: &[Formula] = match &p.formula {
        Formula::And(atoms) => atoms,
        _ => &[],
    };
    let rows: Vec<Constraint> = atoms
        .iter()
        .filter_map(|f| match f {
            Formula::Atom(a) => a.to_constraint(),
            _ => None,
        })
        .collect();
    crate::lp::Prepared::new(k, rows).ok()
}

/// The band of `T(c, x) = b0 + f·c` over the region, for the basis
/// `b = [b0, f..]` at `x` (extremes at vertices, taken in the absolute
/// parameters where the numbers are smallest; a ray or line along which
/// `f·c` changes makes that side unbounded). `vertices` holds the views
/// of the region's `params_at` and `at` those of `b` ([`BasisAt`]).
fn band(r: &Region, vertices: &Vertices, at: &BasisAt<'_>) -> Option<Band> {
    let b = at.b;
    if matches!(r.shape, Shape::Empty | Shape::Untrusted { .. }) {
        return None;
    }
    if let Shape::Unlisted { .. } = r.shape {
        return lp_band(r.lp.as_ref()?, b);
    }
    let (mut lower, mut upper) = vertices.extremes(&r.params_at, at);
    if let Shape::Unbounded { rays, lines } = &r.shape {
        let (down, up) = bounded_sides(&b[1..], rays, lines);
        lower = lower.filter(|_| down);
        upper = upper.filter(|_| up);
    }
    Some(Band::new(lower, upper))
}

/// The float view of an exact value for [`extreme_candidates`]: NaN (so
/// that every vertex stays a candidate) when the value is not zero but its
/// float is, or is subnormal: the filter's relative margin would not cover
/// a product that lost its magnitude.
fn filter_view(x: &Rat) -> f64 {
    let f = crate::num::to_f64(x);
    if !x.is_zero() && f.abs() < f64::MIN_POSITIVE {
        f64::NAN
    } else {
        f
    }
}

/// Points per parallel task in the prediction loop: large enough that a
/// task outweighs its log's clone, small enough to spread 10^5 points.
const PREDICTION_CHUNK: usize = 256;

/// Points held at once by [`Predictor::check`].
const CHECK_RUN: usize = 1 << 14;

/// The vertices that may attain the minimum and the maximum of
/// `b0 + f·v` over `view` (float views of the vertices): a float proposal
/// with a rigorous margin (1e-12 relative, far above the rounding of the
/// conversions and the sum), so a vertex is dropped only when it is surely
/// beaten. Every vertex is a candidate when a float is not finite.
fn extreme_candidates(bf: &[f64], view: &[Vec<f64>]) -> (Vec<usize>, Vec<usize>) {
    let all = || (0..view.len()).collect::<Vec<_>>();
    let mut vals = Vec::with_capacity(view.len());
    for v in view {
        let (mut s, mut mag) = (bf[0], bf[0].abs());
        for (x, y) in bf[1..].iter().zip(v) {
            s += x * y;
            mag += (x * y).abs();
        }
        if !(s.is_finite() && mag.is_finite()) {
            return (all(), all());
        }
        vals.push((s, mag * 1e-12 + 1e-300));
    }
    let min_hi = vals.iter().map(|(s, e)| s + e).fold(f64::INFINITY, f64::min);
    let max_lo = vals.iter().map(|(s, e)| s - e).fold(f64::NEG_INFINITY, f64::max);
    let for_min = (0..vals.len()).filter(|&i| vals[i].0 - vals[i].1 <= min_hi).collect();
    let for_max = (0..vals.len()).filter(|&i| vals[i].0 + vals[i].1 >= max_lo).collect();
    (for_min, for_max)
}

/// The band of `b0 + f·c` over a region given by its rows: the exact
/// minimum and maximum of `f·c` (two LPs; each side `None` when unbounded,
/// the band `None` when the rows are infeasible).
/// Past this many points, [`Analysis::lp_bands`] lists the region's
/// vertices instead of solving two LPs per point.
const MANY_POINTS: usize = 64;

/// Most vertices and rays [`listed_generators`] lists before it gives up.
const LISTED_VERTICES: usize = 256;

/// The vertices, rays and lines of the rows of `lp` (`None`: empty, strict
/// rows, or more than [`LISTED_VERTICES`]).
fn listed_generators(lp: &crate::lp::Prepared, k: usize) -> Option<Listed> {
    let rows = lp.constraints();
    if rows.iter().any(|r| r.kind == Kind::Lt) {
        return None;
    }
    let m = crate::poly::Polyhedron::new(k, rows.to_vec()).minimize_capped(LISTED_VERTICES).ok()?;
    let g = m.generators;
    let vertices = Vertices::of(&g.vertices);
    (!m.empty && !g.vertices.is_empty()).then_some(Listed { g, vertices })
}

/// Generators listed by [`listed_generators`], and their vertices as
/// [`Vertices::extremes`] reads them.
struct Listed {
    g: crate::poly::Generators,
    vertices: Vertices,
}

/// [`lp_band`] from the generators of the same rows: the extremes of
/// `b0 + f·v` over the vertices, a side unbounded along a ray or line on
/// which `f` changes. Values compared unreduced; the two extremes reduced.
fn vertex_band(listed: &Listed, b: &[Rat]) -> Option<Band> {
    let g = &listed.g;
    let (down, up) = bounded_sides(&b[1..], &g.rays, &g.lines);
    let (lower, upper) = listed.vertices.extremes(&g.vertices, &BasisAt::of(b));
    // Listed generators have vertices, so both extremes exist.
    Some(Band::new(if down { Some(lower?) } else { None }, if up { Some(upper?) } else { None }))
}

/// `A⁻¹` for a design with exactly `k` distinct points whose `k × k`
/// basis matrix `A` (row g: `f1..fk` at point g) is invertible; `None`
/// otherwise. Then `c ↦ v = F0 + A·c` maps the parameters one to one onto
/// the model's values at the points, each of which a residual bound
/// confines to an interval of its own: the region is a box in `v`, so
/// the smallest bound and the extremes of a prediction over the region
/// have closed forms (exact, as the LPs' optima they replace). Common with
/// few scales per series (two points and a line, a form checked on the
/// scales below the largest).
fn square(design: &Design, k: usize) -> Option<std::borrow::Cow<'_, [Vec<Rat>]>> {
    if k > crate::fit::SQUARE_MAX {
        return None;
    }
    design.square_inverse(k)
}

/// [`Analysis::lp_bands`]' model bands on a [`square`] design: the box
/// `L_g ≤ v_g ≤ U_g` the bound's rows give each point, and at each basis
/// `b` the extremes of `b0 + w·(v − F0)` with `w = f·A⁻¹` over it; `None`
/// when the box is empty (some `L_g > U_g`).
fn square_bands(design: &Design, inv: &[Vec<Rat>], bound: &Bound, bases: &[Vec<Rat>]) -> Option<Vec<Band>> {
    let (lo, hi) = square_box(design, bound)?;
    let bands = bases
        .iter()
        .map(|b| {
            let f = &b[1..];
            let (mut lower, mut upper) = (b[0].clone(), b[0].clone());
            for (g, grp) in design.groups.iter().enumerate() {
                let w = f.iter().zip(inv).fold(Rat::zero(), |s, (fj, row)| {
                    if fj.is_zero() || row[g].is_zero() {
                        s
                    } else {
                        crate::num::add(&s, &crate::num::mul(fj, &row[g]))
                    }
                });
                if w.is_zero() {
                    continue;
                }
                let (small, large) = if w.is_positive() { (&lo[g], &hi[g]) } else { (&hi[g], &lo[g]) };
                lower = crate::num::add(
                    &lower,
                    &crate::num::mul(&w, &crate::num::sub_lowest(small, &grp.basis[0])),
                );
                upper = crate::num::add(
                    &upper,
                    &crate::num::mul(&w, &crate::num::sub_lowest(large, &grp.basis[0])),
                );
            }
            Band::new(Some(lower), Some(upper))
        })
        .collect();
    Some(bands)
}

/// The box of a [`square`] design under `bound`: each point's model value
/// `v_g` lies in `[L_g, U_g]`, from `|v_g − d| ≤ a + r·d` for every
/// measurement `d` there (its tightest rows: `d·(1 − r) − a` is largest at
/// `ymax` for `r ≤ 1`, at `ymin` beyond; `d·(1 + r) + a` smallest at `ymin`);
/// `None` when the box is empty (some `L_g > U_g`).
fn square_box(design: &Design, bound: &Bound) -> Option<(Vec<Rat>, Vec<Rat>)> {
    let one = Rat::one();
    let (a, r) = (&bound.absolute, &bound.relative);
    let (up, down) = (crate::num::add(&one, r), crate::num::sub_lowest(&one, r));
    let mut lo = Vec::with_capacity(design.groups.len());
    let mut hi = Vec::with_capacity(design.groups.len());
    for g in &design.groups {
        let d = if *r > one { &g.ymin } else { &g.ymax };
        let (l, u) = (
            crate::num::sub_lowest(&crate::num::mul(d, &down), a),
            crate::num::add(&crate::num::mul(&g.ymin, &up), a),
        );
        if crate::num::cmp_fast(&l, &u).is_gt() {
            return None;
        }
        lo.push(l);
        hi.push(u);
    }
    Some((lo, hi))
}

/// [`region`] on a [`square`] design whose box has interior, without the
/// cylindrical form: the region is the box's image under the inverse
/// basis, `c = A⁻¹·(v − F0)`, so its vertices are the `2^k` corners'
/// images and its facets the box's `2k` faces, exactly what the general
/// elimination lists (vertices sorted the same way, facets normalised the
/// same way). `None` (the general path decides) when the design is not
/// square, the box is empty or flat in more than one direction, a variable
/// order is asked for, the cells are, or the corners exceed the vertex
/// limit.
fn square_region(
    design: &Design,
    c: &[Rat],
    dnames: &[String],
    t: &Bound,
    qopts: &qe::Options,
) -> Option<Region> {
    let k = c.len();
    if !qopts.no_cells || !qopts.order.is_empty() {
        return None;
    }
    // (k is at most fit::SQUARE_MAX here, so the corners' count fits.)
    let inv = square(design, k)?;
    if (1usize << k) > qopts.limits.vertices {
        return None;
    }
    let (lo, hi) = square_box(design, t)?;
    // A box flat in one direction (the e_max region: the point of the
    // widest spread pins its value) is a facet of itself, with that
    // point's row as the one equation; flatter boxes take the general path,
    // whose basis of several equations is its own choice.
    let flat: Vec<bool> = lo.iter().zip(&hi).map(|(l, u)| crate::num::cmp_fast(l, u).is_eq()).collect();
    if flat.iter().filter(|&&f| f).count() > 1 {
        return None;
    }
    // Each point's value relative to the basis' constant part, at either end.
    let ends: Vec<[Rat; 2]> = design
        .groups
        .iter()
        .zip(lo.iter().zip(&hi))
        .map(|(g, (l, u))| [crate::num::sub_lowest(l, &g.basis[0]), crate::num::sub_lowest(u, &g.basis[0])])
        .collect();
    let mut params_at: Vec<Vec<Rat>> = (0..1usize << k)
        .map(|corner| {
            (0..k)
                .map(|j| {
                    let mut s = crate::num::Sum::default();
                    for (g, e) in ends.iter().enumerate() {
                        s.add_product(&inv[j][g], &e[(corner >> g) & 1]);
                    }
                    s.value()
                })
                .collect()
        })
        .collect();
    // (Exact comparisons without num-rational's dividing one.)
    params_at.sort_by(|a, b| {
        a.iter()
            .zip(b)
            .map(|(x, y)| crate::num::cmp_fast(x, y))
            .find(|o| o.is_ne())
            .unwrap_or(a.len().cmp(&b.len()))
    });
    params_at.dedup_by(|a, b| {
        a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| crate::num::cmp_fast(x, y).is_eq())
    });
    // The result is posed in Δc = c − C (as `QeResult::shifted` moves an
    // elimination's): each vertex less C, each facet's right-hand side
    // less its row at C. Normalising a row scales it by a factor of its
    // coefficients alone, and moving a facet changes only its right-hand
    // side, by the same amount for equal rows, so the facets normalised
    // and sorted here are the listing's, moved.
    let zero = Rat::zero();
    let mut inequalities = Vec::with_capacity(2 * k);
    let mut equalities = Vec::new();
    for ((g, [l, u]), &f) in design.groups.iter().zip(&ends).zip(&flat) {
        let row = &g.basis[1..=k];
        if f {
            let e = crate::poly::canonical_equality(Constraint::new(row.to_vec(), Kind::Eq, l.clone()));
            let at = crate::num::affine_unreduced(&zero, &e.a, c);
            equalities.push(Constraint::new(e.a, Kind::Eq, crate::num::sub(&e.b, &at)));
            continue;
        }
        // f·c ≤ U − F0 and −f·c ≤ −(L − F0), each scaled by `scale` to the
        // primitive integer row ±a.
        let (a, scale) = primitive_row(row)?;
        let at = crate::num::affine_unreduced(&zero, &a, c);
        let upper = crate::num::sub(&crate::num::mul(u, &scale), &at);
        let lower = crate::num::sub(&crate::num::mul(&-l, &scale), &-at);
        let neg: Vec<Rat> = a.iter().map(|x| -x).collect();
        inequalities.push(Constraint::new(a, Kind::Le, upper));
        inequalities.push(Constraint::new(neg, Kind::Le, lower));
    }
    crate::poly::in_listing_order(&mut inequalities);
    let vertices: Vec<Vec<Rat>> =
        params_at.iter().map(|v| v.iter().zip(c).map(|(x, t)| crate::num::sub(x, t)).collect()).collect();
    let shape = if params_at.len() == 1 { Shape::Point } else { Shape::Bounded };
    let minimal = crate::poly::Minimal {
        empty: false,
        equalities,
        inequalities,
        generators: crate::poly::Generators { vertices: vertices.clone(), rays: vec![], lines: vec![] },
    };
    let result = QeResult {
        vars: VarTable::from_names(dnames.to_vec()),
        origin: (0..k).collect(),
        pieces: vec![qe::Piece { minimal, cells: vec![] }],
    };
    Some(listed(t, result, vertices, params_at, shape))
}

/// The primitive integer row `a = s·f` (coefficients coprime, `s > 0`) and
/// the scale `s`, as [`Constraint::normalized`] scales a row `f` and its
/// right-hand side; `None` for a zero row.
fn primitive_row(f: &[Rat]) -> Option<(Vec<Rat>, Rat)> {
    let den = crate::num::lcm_denoms(f);
    let (a, g) = crate::linear::primitive_over(f, &den)?;
    Some((a, crate::num::reduced(den, g)))
}

fn lp_band(lp: &crate::lp::Prepared, b: &[Rat]) -> Option<Band> {
    use crate::lp::{Sense, Value};
    let f = &b[1..];
    let side = |sense| match lp.value(f, sense) {
        Ok(Value::Optimal(v)) => Some(Some(crate::num::add(&b[0], &v))),
        Ok(Value::Unbounded) => Some(None),
        _ => None,
    };
    Some(Band::new(side(Sense::Minimize)?, side(Sense::Maximize)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::{frac, int, parse_rat};

    fn hpl(params: &str) -> (Model, Vec<Measurement>) {
        crate::testdata::hpl(&format!("param {params}\nfit none\npredict p = 1000"))
    }

    #[test]
    fn the_quick_value_answers_the_usual_fits() {
        // HPL's measurements: e_max and remax are certified at the float
        // proposal's vertex and equal the simplex's optima (the property
        // test below checks values; this, that the quick path is taken).
        let (model, data) = crate::testdata::hpl("param c1, c2\npredict p = 1000");
        let design = Design::new(&model, &data, "hpl.csv").unwrap();
        let k = model.k();
        let mut e = vec![Rat::zero(); k + 1];
        e[k] = Rat::one();
        for rows in [Rows::Absolute, Rows::Relative] {
            let cons = residual_constraints(&design, k, rows);
            let lp = crate::lp::Prepared::new(k + 1, cons).unwrap();
            let quick = lp.quick_value(&e, crate::lp::Sense::Minimize);
            let full = match lp.optimize(&e, crate::lp::Sense::Minimize) {
                Ok(crate::lp::LpOutcome::Optimal(o)) => o.value,
                other => panic!("{other:?}"),
            };
            assert_eq!(quick, Some(full));
        }
    }

    proptest::proptest! {
        /// The value-only LPs (certified at the float proposal's vertex)
        /// give the full simplex's optima: e_max, remax and band ends of
        /// forms with long rational bases (rounded logarithms and roots),
        /// on designs with more points than parameters and repetitions.
        #[test]
        fn value_only_lps_are_the_full_lps(
            reps in proptest::collection::vec(proptest::collection::vec(1i64..4000, 1..4), 3..7),
            form in 0usize..3,
            r in 1i64..60,
            at in 70i64..400,
        ) {
            use crate::lp::{LpOutcome, Prepared, Sense};
            let src = [
                "T(p) = c0 + c1*log2(p)\nparam c0, c1",
                "T(p) = c0 + c1*p^(1/3)\nparam c0, c1",
                "T(p) = c0 + c1/p + c2*p\nparam c0, c1, c2",
            ][form];
            let model = Model::parse(src, "t.tm", 40).unwrap();
            let k = model.k();
            let data: Vec<Measurement> = reps
                .iter()
                .enumerate()
                .flat_map(|(i, ys)| ys.iter().map(move |&y| Measurement { x: vec![int(3 * i as i64 + 2)], y: frac(y, 10), line: 1 }))
                .collect();
            let design = Design::new(&model, &data, "t.csv").unwrap();
            let full = |cons: Vec<Constraint>, n: usize, c: &[Rat], sense| match Prepared::new(n, cons).unwrap().optimize(c, sense) {
                Ok(LpOutcome::Optimal(o)) => Some(o.value),
                _ => None,
            };
            let mut e = vec![Rat::zero(); k + 1];
            e[k] = Rat::one();
            for rows in [Rows::Absolute, Rows::Relative] {
                let cons = residual_constraints(&design, k, rows);
                if let Some(v) = Prepared::new(k + 1, cons.clone()).unwrap().quick_value(&e, Sense::Minimize) {
                    proptest::prop_assert_eq!(Some(v), full(cons, k + 1, &e, Sense::Minimize));
                }
            }
            let bound = Bound { absolute: Rat::zero(), relative: frac(r, 100) };
            let cons = residual_constraints(&design, k, Rows::Fixed(&bound));
            let lp = Prepared::new(k, cons.clone()).unwrap();
            let mut log = model.new_log();
            let b = model.basis_at(&[int(at)], &mut log).unwrap();
            for sense in [Sense::Minimize, Sense::Maximize] {
                if let Some(v) = lp.quick_value(&b[1..], sense) {
                    proptest::prop_assert_eq!(Some(v), full(cons.clone(), k, &b[1..], sense));
                }
            }
        }

        /// On a design with as many points as parameters the closed forms
        /// (smallest bounds, bands over the box) are the LPs' optima: any
        /// repetitions, a line or a reciprocal, bounds from empty to wide,
        /// run times or signed values.
        #[test]
        fn square_designs_agree_with_the_lps(
            reps in proptest::collection::vec(proptest::collection::vec(-40i64..400, 1..5), 2),
            xs in (1i64..20, 1i64..20),
            form in 0usize..2,
            a in 0i64..60,
            r in 0i64..130,
            at in proptest::collection::vec(-30i64..3000, 1..4),
        ) {
            proptest::prop_assume!(xs.0 != xs.1);
            let src = ["T(p) = c0 + c1*p\nparam c0, c1", "T(p) = c0 + c1/p\nparam c0, c1"][form];
            let model = Model::parse(src, "t.tm", 40).unwrap();
            let data: Vec<Measurement> = [xs.0, xs.1]
                .iter()
                .zip(&reps)
                .flat_map(|(&x, ys)| ys.iter().map(move |&y| Measurement { x: vec![int(x)], y: frac(y, 10), line: 1 }))
                .collect();
            let design = Design::new(&model, &data, "t.csv").unwrap();
            proptest::prop_assert!(square(&design, 2).is_some());
            let q = qe::Options::default();
            proptest::prop_assert_eq!(minimax(&design, 2, Rows::Absolute, &q).unwrap(), minimax_general(&design, 2, Rows::Absolute, &q).unwrap());
            if design.all_positive() {
                proptest::prop_assert_eq!(minimax(&design, 2, Rows::Relative, &q).unwrap(), minimax_general(&design, 2, Rows::Relative, &q).unwrap());
            }
            let bound = Bound { absolute: frac(a, 10), relative: frac(r, 100) };
            let mut log = model.new_log();
            let bases: Vec<Vec<Rat>> = at.iter().filter(|&&x| x != 0).map(|&x| model.basis_at(&[frac(x, 10)], &mut log).unwrap()).collect();
            for feasible in [false, true] {
                proptest::prop_assert_eq!(
                    Analysis::lp_bands_with(&design, 2, &bound, &bases, feasible, true),
                    Analysis::lp_bands_with(&design, 2, &bound, &bases, feasible, false)
                );
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
        /// A square design's region in closed form is the one elimination
        /// lists: the same vertices in the same order, the same shape, the
        /// same facets and equation, for lines, reciprocals and parabolas,
        /// at bounds from e_max (a box flat at the widest point) to wide.
        #[test]
        fn square_regions_are_the_listed_ones(
            reps in proptest::collection::vec(proptest::collection::vec(1i64..400, 1..5), 3),
            xs in (1i64..20, 1i64..20, 1i64..20),
            form in 0usize..3,
            a in 0i64..60,
            r in 0i64..130,
            at_emax in proptest::bool::ANY,
        ) {
            let src = ["T(p) = c0 + c1*p\nparam c0, c1", "T(p) = c0 + c1/p\nparam c0, c1", "T(p) = c0 + c1*p + c2*p^2\nparam c0, c1, c2"][form];
            let k = if form == 2 { 3 } else { 2 };
            let xs = [xs.0, xs.1, xs.2];
            proptest::prop_assume!(xs[..k].iter().enumerate().all(|(i, x)| !xs[..i].contains(x)));
            let model = Model::parse(src, "t.tm", 40).unwrap();
            let data: Vec<Measurement> = xs[..k]
                .iter()
                .zip(&reps)
                .flat_map(|(&x, ys)| ys.iter().map(move |&y| Measurement { x: vec![int(x)], y: frac(y, 10), line: 1 }))
                .collect();
            let design = Design::new(&model, &data, "t.csv").unwrap();
            proptest::prop_assume!(square(&design, k).is_some());
            let c = design.params(&model).unwrap();
            let names: Vec<String> = (0..k).map(|j| format!("dc{j}")).collect();
            let q = qe::Options::default().no_cells(true);
            let bound = if at_emax {
                Bound::absolute(minimax(&design, k, Rows::Absolute, &q).unwrap())
            } else {
                Bound { absolute: frac(a, 10), relative: frac(r, 100) }
            };
            let listed = region_listed(&design, &c, &names, &bound, &q).unwrap();
            if let Some(closed) = square_region(&design, &c, &names, &bound, &q) {
                proptest::prop_assert_eq!(&closed.vertices, &listed.vertices);
                proptest::prop_assert_eq!(&closed.params_at, &listed.params_at);
                proptest::prop_assert_eq!(&closed.shape, &listed.shape);
                proptest::prop_assert_eq!(closed.result.origin.clone(), listed.result.origin.clone());
                proptest::prop_assert_eq!(closed.result.pieces.len(), 1);
                proptest::prop_assert_eq!(listed.result.pieces.len(), 1);
                let (m1, m2) = (&closed.result.pieces[0].minimal, &listed.result.pieces[0].minimal);
                proptest::prop_assert_eq!(&m1.equalities, &m2.equalities);
                proptest::prop_assert_eq!(&m1.inequalities, &m2.inequalities);
                proptest::prop_assert_eq!(&m1.generators.vertices, &m2.generators.vertices);
            } else {
                // Only an empty box or one flat in several directions is left to elimination.
                let flat_or_empty = square_box(&design, &bound).is_none_or(|(lo, hi)| lo.iter().zip(&hi).filter(|(l, u)| l == u).count() > 1);
                proptest::prop_assert!(flat_or_empty);
            }
        }
    }

    #[test]
    fn square_regions_take_the_closed_form_without_cells_only() {
        let model = Model::parse("T(p) = c0 + c1*p\nparam c0, c1", "t.tm", 40).unwrap();
        let m = |x: i64, y: i64| Measurement { x: vec![int(x)], y: int(y), line: 1 };
        let design = Design::new(&model, &[m(1, 5), m(1, 6), m(2, 7), m(2, 9)], "t.csv").unwrap();
        let c = design.params(&model).unwrap();
        let names = vec!["dc0".to_string(), "dc1".to_string()];
        let bound = Bound::absolute(int(2));
        let no_cells = qe::Options::default().no_cells(true);
        let r = square_region(&design, &c, &names, &bound, &no_cells)
            .expect("a square design with a box of interior");
        assert_eq!((r.shape.clone(), r.vertices.len()), (Shape::Bounded, 4));
        assert!(
            square_region(&design, &c, &names, &bound, &qe::Options::default()).is_none(),
            "cells asked for"
        );
        // At e_max the box is flat at p = 2 (spread 2, the widest): a segment.
        let flat = square_region(&design, &c, &names, &Bound::absolute(int(1)), &no_cells).unwrap();
        assert_eq!(flat.vertices.len(), 2);
        assert_eq!(flat.result.pieces[0].minimal.equalities.len(), 1);
    }

    #[test]
    fn square_needs_as_many_points_as_parameters_and_an_invertible_basis() {
        let model = Model::parse("T(p) = c0 + c1*p\nparam c0, c1", "t.tm", 40).unwrap();
        let m = |x: i64, y: i64| Measurement { x: vec![int(x)], y: int(y), line: 1 };
        let two = Design::new(&model, &[m(1, 5), m(2, 7), m(2, 8)], "t.csv").unwrap();
        let inv = square(&two, 2).unwrap();
        // A = [[1, 1], [1, 2]], A⁻¹ = [[2, -1], [-1, 1]].
        assert_eq!(inv, vec![vec![int(2), int(-1)], vec![int(-1), int(1)]]);
        let three = Design::new(&model, &[m(1, 5), m(2, 7), m(3, 8)], "t.csv").unwrap();
        assert!(square(&three, 2).is_none());
        let one = Model::parse("T(p) = c0*p + c1*2*p\nparam c0, c1", "t.tm", 40).unwrap();
        let singular = Design::new(&one, &[m(1, 5), m(2, 7)], "t.csv").unwrap();
        assert!(square(&singular, 2).is_none());
    }

    #[test]
    fn extreme_candidates_keep_ties_and_fall_back_when_floats_fail() {
        // b0 + f·v with f = (1, 0): vertices 1 and 2 tie for the maximum.
        let b: Vec<f64> = [int(1), int(1), int(0)].iter().map(filter_view).collect();
        let view = vec![vec![0.0, 0.0], vec![1.0, 5.0], vec![1.0, -5.0], vec![-2.0, 0.0]];
        assert_eq!(extreme_candidates(&b, &view), (vec![3], vec![1, 2]));
        let view = vec![vec![f64::INFINITY, 0.0], vec![1.0, 0.0]];
        assert_eq!(extreme_candidates(&b, &view), (vec![0, 1], vec![0, 1]));
        // A value too small for a normal float is no proposal either.
        let tiny = filter_view(&Rat::new(1.into(), num_bigint::BigInt::from(10).pow(400)));
        assert!(tiny.is_nan());
        let view = vec![vec![tiny, 0.0], vec![1.0, 0.0]];
        assert_eq!(extreme_candidates(&b, &view), (vec![0, 1], vec![0, 1]));
        assert_eq!(filter_view(&Rat::zero()), 0.0);
    }

    #[test]
    fn bands_at_many_points_from_vertices_equal_the_lps() {
        // Relative and mixed bounds, two parameters and one; the model's
        // own basis at 80 points, past the switch to listed vertices.
        for (params, bound) in [
            ("c1, c2", Bound { absolute: int(0), relative: frac(3, 100) }),
            ("c1, c2", Bound { absolute: int(40), relative: frac(1, 100) }),
            ("c1\nconst c2 = 0", Bound::absolute(int(150))),
        ] {
            let (m, data) = crate::testdata::hpl(&format!("param {params}"));
            let design = Design::new(&m, &data, "hpl.csv").unwrap();
            let mut log = m.new_log();
            let bases: Vec<Vec<Rat>> =
                (1..=80).map(|p| m.basis_at(&[int(p * 25)], &mut log).unwrap()).collect();
            assert!(bases.len() > MANY_POINTS);
            let many = Analysis::lp_bands(&design, m.k(), &bound, &bases, false).unwrap();
            let one_by_one: Vec<_> = bases
                .iter()
                .flat_map(|b| {
                    Analysis::lp_bands(&design, m.k(), &bound, std::slice::from_ref(b), false).unwrap()
                })
                .collect();
            assert_eq!(many, one_by_one, "{params}");
        }
    }

    #[test]
    fn skipping_the_emax_region_changes_nothing_else() {
        let (m, data) = crate::testdata::hpl("param c1, c2\npredict p = 1000, 4000");
        let run = |thresholds: &[&str], skip: bool| {
            let opts = Options {
                thresholds: thresholds.iter().map(|t| Threshold::parse(t).unwrap()).collect(),
                skip_emax_region: skip,
                ..Options::default()
            };
            Analysis::run_rows(&m, &data, "hpl.csv", &opts).unwrap()
        };
        // No thresholds: the defaults, max and trusted.
        for thresholds in [&[][..], &["emax", "1.5*emax"][..]] {
            let (full, skipped) = (run(thresholds, false), run(thresholds, true));
            assert_eq!(full.emax, skipped.emax);
            for (a, b) in full.regions.iter().zip(&skipped.regions) {
                assert_eq!((&a.vertices, &a.shape), (&b.vertices, &b.shape));
            }
            for (a, b) in full.predictions.iter().zip(&skipped.predictions) {
                assert_eq!((&a.bands, &a.measurement), (&b.bands, &b.measurement));
            }
            assert!(full.emax_unique && full.emax_dc.iter().any(|d| !d.is_zero()));
            assert!(!skipped.emax_unique && !skipped.emax_listed && skipped.hint.is_none());
            assert!(skipped.emax_dc.iter().all(Zero::is_zero));
        }
        // A threshold at e_max still gets its region (a single point here).
        assert_eq!(run(&["emax"], true).regions[0].shape, Shape::Point);
    }

    #[test]
    fn paper_given_values_reproduce_emax_and_the_six_vertices() {
        let opts = Options {
            thresholds: vec![Threshold::parse("17.9745").unwrap()],
            at: vec![],
            order: vec!["dc2".into(), "dc1".into()],
            ..Options::default()
        };
        // The paper's printed values: Max|e_i| = 17.9747; the breakpoints agree with Fig. 2(b) to 5 digits.
        let (m, data) = hpl("c1 = 0.0088823, c2 = 1.9312e-7");
        let a = Analysis::run_rows(&m, &data, "hpl.csv", &opts).unwrap();
        assert_eq!(a.emax, frac(1101248, 81125));
        assert_eq!(crate::num::fmt_sig(&a.residuals.max_abs, 6), "17.9747");
        let paper = ["-7.96273e-8", "-6.84759e-8", "-4.87413e-8", "9.49981e-9", "3.51625e-8", "4.14635e-8"]
            .map(|s| parse_rat(s).unwrap());
        let mut dc2: Vec<Rat> = a.regions[0].vertices.iter().map(|v| v[1].clone()).collect();
        dc2.sort();
        for (v, p) in dc2.iter().zip(&paper) {
            assert!(
                ((v - p) / p).abs() < frac(3, 100000),
                "{} vs {}",
                crate::num::fmt_sig(v, 6),
                crate::num::fmt_sig(p, 6)
            );
        }
        // As the paper's program (rationalised constants): every digit of Fig. 2(b).
        let (m, data) = hpl("c1 = rationalize(0.0088823, 1e-8), c2 = rationalize(1.9312e-7, 1e-12)");
        let a = Analysis::run_rows(&m, &data, "hpl.csv", &opts).unwrap();
        assert_eq!(a.emax, frac(1101248, 81125));
        assert_eq!(crate::num::fmt_sig(&a.residuals.max_abs, 6), "17.9745");
        let mut dc2: Vec<String> =
            a.regions[0].vertices.iter().map(|v| crate::num::fmt_sig(&v[1], 6)).collect();
        dc2.sort();
        assert_eq!(
            dc2,
            ["-4.87413e-8", "-6.84759e-8", "-7.96273e-8", "3.51625e-8", "4.14635e-8", "9.49981e-9"]
        );
        assert_eq!(a.regions[0].vertices.len(), 6);
        assert_eq!(a.regions[0].shape, Shape::Bounded);
        assert!(a.emax_unique);
        assert_eq!(crate::num::fmt_sig(&a.emax_dc[1], 6), "9.49981e-9");
        assert_eq!(crate::num::fmt_sig(&a.emax_dc[0], 6), "0.0000562125");
    }
}
