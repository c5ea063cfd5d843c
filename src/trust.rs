//! The band errband recommends for the next measurement at a prediction
//! point, and the checks that earn it trust.
//!
//! The paper's bands answer "which parameters fit the data within a
//! threshold?". A user extrapolating wants something else: "where will the
//! next run at p = 1024 land, and how far can I trust that?". Four things
//! decide that on real data, and each is a rule here, the same for every
//! data set:
//!
//! 1. **Noise that is not model error.** A point's repetitions scatter
//!    about their median; that scatter is run-to-run noise, not misfit.
//!    The trusted band is computed twice: with every repetition as a
//!    constraint (the paper's reading: misfit and noise together, doubled),
//!    and with one median per point (the model's misfit alone, doubled)
//!    widened by the relative scatter the repetitions showed about their
//!    medians. With few repetitions the recommended band is the hull of
//!    the two: their range says little of the next run, and nothing the
//!    paper's reading covers is lost. With enough of them
//!    ([`FREE_DEVIATIONS`]: the range of 19 free deviations holds a new
//!    run 9 times in 10) the band is the second alone: heavy tails no
//!    longer double through the fit, and the scatter counts once. With one
//!    measurement per point both are the same.
//! 2. **The self-check** ([`check`]): the same band, fitted without the
//!    largest training scale, must hold every repetition at that scale.
//!    When it does not, the form failed its own backtest, and the band at
//!    each prediction point widens to the hull with that smaller fit's band
//!    (or is refused when that one is). Choosing a threshold from the
//!    missed point would be void (no such threshold exceeds remax of all
//!    the data), so the check acts as a gate.
//!    A form with too few scales for the check (a three-coefficient form
//!    on four scales) cannot earn that trust: its band widens to the
//!    family band at `trusted`, the hull over every form the data allow
//!    ([`widen_unchecked`]).
//!    The same smaller fit also predicts at each point ([`Check::values`]).
//!    Where the final band does not hold that prediction, the forecast
//!    rests on the measurements at the largest scale alone, and the answer
//!    says so ([`Recommendation::hinges`]); no band changes. Widening every
//!    band to hold the smaller fit's band instead bought coverage only with
//!    bands wider than ±100 % on the held-out suites.
//!    Where the final band does not hold the form's own least-squares
//!    value, the answer says so too ([`Recommendation::value_outside`]):
//!    that fit weighs absolute errors and strays from some measurement by
//!    more than the relative bound the band holds, so the form does not
//!    follow the data at both ends. Fitting relative errors
//!    instead would keep the value inside but changes the fit's residuals,
//!    and with them the `max` threshold every form is ranked by: on the
//!    held-out suites it moved no point error's median by more than a
//!    point and cost coverage.
//! 3. **Forms alike** ([`widen_to_alike`]): without a model file the form
//!    is the family's best, and the cross-validated error chose it among
//!    forms with the same evidence: as many coefficients, consistent at
//!    the trusted threshold (the band's own), a positive time at every
//!    point, the same self-check outcome. That error chooses a prediction
//!    but refutes none of the others (a square root and a logarithm
//!    through four points both pass), nor does a tighter threshold such
//!    as `max`, which only the best-fitting forms meet: only the band's
//!    threshold refutes a form. So the band spans the bands of them all.
//!    With repetitions a form alike must also fit their medians within
//!    the chosen form's trusted bound on them ([`fits_medians`]); when the
//!    chosen band rests on the medians alone, so does each alike form's,
//!    at that bound ([`median_bands`]).
//! 4. **Regime changes** ([`regime`]): when the earlier scales do not follow
//!    the trend of the last ones within the last ones' own tolerance, the
//!    trend changed inside the data. With enough scales after the change
//!    the band is extrapolated from them alone and the points set aside
//!    are named; otherwise the report says that the band spans both.
//!
//! Every value is exact; the bands are exact LPs over each fit's residual
//! rows ([`Analysis::lp_bands`]), bounded by zero for run times.

use crate::analysis::{Analysis, AnalysisError, Band, Bound, Options, Scale, Shape, Threshold};
use crate::data::Measurement;
use crate::fit::{Design, Tally};
use crate::model::Model;
use crate::num::Rat;
use num_traits::{One, Signed, Zero};

/// Scales after a change of trend needed to extrapolate from them alone,
/// and the scales that set the tolerance a trend is judged by: a
/// two-coefficient form fitted on all but the largest of them still has a
/// scale to spare, so it can be checked ([`check`]).
pub const MIN_LAST_SEGMENT: usize = 4;

/// The fewest free deviations of repetitions about their point's median
/// ([`Spread::free`]) whose range alone bounds a new run 9 times in 10.
/// Of `N + 1` runs that scatter alike, the new one is the lowest or the
/// highest with probability `2/(N + 1)`, so it falls within the range of
/// the other `N` with probability `(N − 1)/(N + 1)`: 90 % from `N = 19` on.
/// The number follows from the band's aim, not from any data set.
pub const FREE_DEVIATIONS: usize = 19;

/// How the repetitions at each point scatter about the point's median,
/// relative to it: `d = m·(1 + e)` with `below ≤ e ≤ above`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spread {
    /// The largest relative shortfall below a median (zero or negative).
    pub below: Rat,
    /// The largest relative excess above a median (zero or positive).
    pub above: Rat,
    /// Points with two or more repetitions.
    pub points: usize,
    /// The most repetitions at one point.
    pub most: usize,
    /// Free deviations about the medians: `Σ (n_i − 1)` over the points
    /// (each point's median takes one of its `n_i` repetitions' freedom).
    pub free: usize,
    /// The point whose repetitions scatter most about its median (the
    /// largest `(max − min)/median`; the first such point in order), where
    /// one more run tells an outlier from the trend; empty when no
    /// repetitions differ.
    pub widest_at: Vec<Rat>,
    /// There, the slowest repetition over the fastest (`None` when the
    /// fastest is not positive).
    pub widest_ratio: Option<Rat>,
}

impl Spread {
    /// Whether the scatter holds enough free deviations
    /// ([`FREE_DEVIATIONS`]) for its range alone to bound a new run: then
    /// the trusted band rests on the medians widened by that range
    /// (module docs, rule 1).
    pub fn bounds_new_runs(&self) -> bool {
        self.free >= FREE_DEVIATIONS
    }

    /// `band` (of a new median) widened by the scatter: its lower end
    /// times `1 + below`, its upper end times `1 + above`.
    fn widen(&self, band: Band) -> Band {
        let one = Rat::one();
        // Cross-cancelled products (num-rational's reduce by binary gcds
        // of the bands' long fractions).
        let (below, above) = (crate::num::add(&one, &self.below), crate::num::add(&one, &self.above));
        Band {
            lower: band.lower.map(|l| crate::num::mul(&l, &below)),
            upper: band.upper.map(|u| crate::num::mul(&u, &above)),
            clipped: band.clipped,
        }
    }
}

/// The median of each point's measurements (one row per distinct point, at
/// the line of its first measurement), and the scatter about them; `None`
/// when no point has two measurements or a median is not positive.
pub fn centres(rows: &[Measurement]) -> Option<(Vec<Measurement>, Spread)> {
    centres_of(&Tally::new(rows))
}

/// [`centres`] of a tally (its medians are computed once per series).
pub fn centres_of(tally: &Tally) -> Option<(Vec<Measurement>, Spread)> {
    let groups = tally.groups();
    if groups.iter().all(|g| g.rows.len() < 2) {
        return None;
    }
    let mut spread = Spread {
        below: Rat::zero(),
        above: Rat::zero(),
        points: 0,
        most: 1,
        free: 0,
        widest_at: vec![],
        widest_ratio: None,
    };
    // The widest (max − min)/median so far, and its point's index.
    let mut widest: Option<(Rat, usize)> = None;
    let mut out = Vec::with_capacity(groups.len());
    for (i, ((g, median), line)) in groups.iter().zip(tally.medians()).zip(tally.lines()).enumerate() {
        if !median.is_positive() {
            return None;
        }
        let n = g.rows.len();
        if n > 1 {
            spread.points += 1;
            spread.most = spread.most.max(n);
            spread.free += n - 1;
            // (y − m)/m over one denominator, reduced once.
            let dev = |y: &Rat| crate::num::div(&crate::num::sub_lowest(y, median), median);
            let (below, above) = (dev(&g.ymin), dev(&g.ymax));
            let range = crate::num::sub_lowest(&above, &below);
            if range.is_positive()
                && widest.as_ref().is_none_or(|(w, _)| crate::num::cmp_fast(&range, w).is_gt())
            {
                widest = Some((range, i));
            }
            spread.below = crate::num::min_fast(&spread.below, &below).clone();
            spread.above = crate::num::max_fast(&spread.above, &above).clone();
        }
        out.push(Measurement { x: g.x.clone(), y: median.clone(), line: *line });
    }
    if let Some(g) = widest.and_then(|(_, i)| groups.get(i)) {
        spread.widest_at = g.x.clone();
        spread.widest_ratio = g.ymin.is_positive().then(|| crate::num::div(&g.ymax, &g.ymin));
    }
    Some((out, spread))
}

/// The run-to-run variability the trusted band assumes at least.
fn noise(opts: &Options) -> Rat {
    opts.noise.clone().unwrap_or_else(crate::threshold::default_noise)
}

/// The trusted bound of a fit: `max(2·remax, noise)`, `None` from 50 % on
/// or when the measurements are not all positive.
fn trusted_bound(remax: &Option<Rat>, opts: &Options) -> Option<Bound> {
    let remax = remax.as_ref()?;
    let t = Threshold::trusted(&noise(opts));
    let scale =
        Scale { max: Rat::zero(), emax: Rat::zero(), rmax: Some(remax.clone()), remax: Some(remax.clone()) };
    let b = t.bound(&scale).ok()?;
    t.limit.as_ref().is_none_or(|l| crate::num::cmp_fast(&b.relative, l).is_lt()).then_some(b)
}

/// The trusted new-measurement bands of one model at some points, with
/// what they rest on.
#[derive(Debug, Clone)]
pub struct Trusted {
    /// The bound with every repetition a constraint (`None`: refused).
    pub bound: Option<Bound>,
    /// With repetitions: the bound on the medians, and their scatter.
    pub centres: Option<(Option<Bound>, Spread)>,
    /// Per point: the band of a new measurement (`None`: refused, or the
    /// model cannot be evaluated there, or the band is wholly below zero).
    pub bands: Vec<Option<Band>>,
}

impl Trusted {
    /// The bound on the medians when the bands rest on them and the
    /// repetitions' scatter alone ([`Spread::bounds_new_runs`]), with that
    /// scatter; `None` when every repetition is also a constraint.
    pub fn from_medians(&self) -> Option<(&Bound, &Spread)> {
        let (b, s) = self.centres.as_ref()?;
        rests_on_medians(b.as_ref(), s).then_some((b.as_ref()?, s))
    }
}

/// Whether bands with the medians' bound `cb` and the scatter `spread`
/// rest on them alone (module docs, rule 1): the medians have a trusted
/// bound and the scatter enough free deviations.
fn rests_on_medians(cb: Option<&Bound>, spread: &Spread) -> bool {
    cb.is_some() && spread.bounds_new_runs()
}

/// The bases of `model` at `points` (`None` where it cannot be evaluated).
fn bases(model: &Model, points: &[Vec<Rat>]) -> Vec<Option<Vec<Rat>>> {
    let mut log = model.new_log();
    points.iter().map(|x| model.basis_at(x, &mut log).ok()).collect()
}

/// New-measurement bands of `design` at `bound`, per point.
fn bands_at(design: &Design, k: usize, bound: &Bound, at: &[Option<Vec<Rat>>]) -> Vec<Option<Band>> {
    let all: Vec<Vec<Rat>> = at.iter().flatten().cloned().collect();
    let Some(got) = Analysis::lp_bands(design, k, bound, &all, true) else {
        return vec![None; at.len()];
    };
    let mut it = got.into_iter();
    at.iter().map(|b| b.as_ref().and_then(|_| it.next().flatten()).map(|(_, n)| n)).collect()
}

/// The new-measurement bands at `bound` that the analysis `an` already
/// holds at each of its prediction points: those of its region with that
/// bound (`None` when it has none, or left them out). Its vertices give
/// the exact extremes the LPs of [`bands_at`] would find, clipped at zero
/// the same way.
fn analysed_bands(an: &Analysis, bound: &Bound) -> Option<Vec<Option<Band>>> {
    let ri = an
        .regions
        .iter()
        .position(|r| r.bound == *bound && !matches!(r.shape, Shape::Empty | Shape::Untrusted { .. }))?;
    an.predictions
        .iter()
        .map(|p| match (p.bands.get(ri)?, p.measurement.get(ri)?) {
            (Some(_), None) => None,
            (_, m) => Some(m.clone()),
        })
        .collect()
}

/// The trusted bound of `model` on `rows` and its bands at the bases `at`
/// (one design: the basis is evaluated once per distinct point).
/// `known_remax`: the design's remax when the caller has it. `analysed`:
/// the analysis of `model` on `design` with these options, predicting at
/// the points of `at`, when the caller has it: its bands are taken when it
/// has the trusted bound's.
fn trusted_on(
    model: &Model,
    design: &Design,
    known_remax: Option<&Rat>,
    analysed: Option<&Analysis>,
    file: &str,
    opts: &Options,
    at: &[Option<Vec<Rat>>],
) -> Result<(Option<Bound>, Vec<Option<Band>>), AnalysisError> {
    if design.groups.is_empty() {
        return Err(AnalysisError::NoData { file: file.to_string() });
    }
    // The fit's own failures (too few points, parameters the data cannot
    // separate) are this band's too; the fitted values are not needed.
    design.fittable(model)?;
    let remax = match known_remax {
        Some(r) => Some(r.clone()),
        None => Analysis::remax_on(design, model.k(), opts)?,
    };
    let bound = trusted_bound(&remax, opts);
    let bands = match &bound {
        Some(b) => analysed
            .and_then(|an| analysed_bands(an, b))
            .unwrap_or_else(|| bands_at(design, model.k(), b, at)),
        None => vec![None; at.len()],
    };
    Ok((bound, bands))
}

/// The trusted bands of `model` fitted to `rows` at `points`: the hull of
/// the bands with every repetition a constraint and with one median per
/// point widened by the repetitions' scatter (module docs, rule 1).
pub fn trusted(
    model: &Model,
    rows: &[Measurement],
    file: &str,
    opts: &Options,
    points: &[Vec<Rat>],
) -> Result<Trusted, AnalysisError> {
    let tally = Tally::new(rows);
    let design = Design::from_tally(model, &tally, file)?;
    trusted_at(model, &design, None, None, &tally, file, opts, &bases(model, points))
}

/// [`trusted`] at points given by the model's basis values there (`None`
/// where the model is undefined): evaluated once by a caller that needs
/// them for several things (10^5 points were evaluated four times).
/// `known_remax` and `analysed`: as [`trusted_on`] takes them.
#[allow(clippy::too_many_arguments)]
fn trusted_at(
    model: &Model,
    design: &Design,
    known_remax: Option<&Rat>,
    analysed: Option<&Analysis>,
    tally: &Tally,
    file: &str,
    opts: &Options,
    at: &[Option<Vec<Rat>>],
) -> Result<Trusted, AnalysisError> {
    let (bound, mut bands) = trusted_on(model, design, known_remax, analysed, file, opts, at)?;
    let mut centre_part = None;
    if let Some((mid, spread)) = centres_of(tally) {
        let mid = design.for_tally(model, &Tally::new(&mid), file)?;
        let (cb, scaled) = trusted_on(model, &mid, None, None, file, opts, at)?;
        // Enough free deviations: their range bounds a new run, and the
        // band with every repetition a constraint would count the scatter
        // twice (doubled through the fit's remax, then again as noise).
        let alone = rests_on_medians(cb.as_ref(), &spread);
        for (band, c) in bands.iter_mut().zip(scaled) {
            let Some(c) = c else { continue };
            let c = spread.widen(c);
            *band = Some(match band.take() {
                Some(a) if !alone => a.hull(&c),
                _ => c,
            });
        }
        centre_part = Some((cb, spread));
    }
    Ok(Trusted { bound, centres: centre_part, bands })
}

/// The bands of a new measurement of `model` fitted to the medians
/// `medians` at `bound`, widened by `spread`, at `points` (`None` where
/// the model cannot be evaluated, or the band is wholly below zero): the
/// band of a form ranked alike with one whose band rests on its medians
/// ([`Trusted::from_medians`]), at that form's bound on them (the one
/// [`fits_medians`] asks a form alike to meet).
pub fn median_bands(
    model: &Model,
    medians: &[Measurement],
    bound: &Bound,
    spread: &Spread,
    file: &str,
    points: &[Vec<Rat>],
) -> Vec<Option<Band>> {
    let Some(design) =
        Design::from_tally(model, &Tally::new(medians), file).ok().filter(|d| d.fittable(model).is_ok())
    else {
        return vec![None; points.len()];
    };
    bands_at(&design, model.k(), bound, &bases(model, points))
        .into_iter()
        .map(|b| b.map(|b| spread.widen(b)))
        .collect()
}

/// What the self-check found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// Every repetition at the largest scale lies in the band.
    Passed,
    /// Some lie outside: how many above, how many below, of how many.
    Missed {
        /// Above the band.
        above: usize,
        /// Below it.
        below: usize,
        /// Measurements at the largest scale.
        of: usize,
    },
    /// The fit without the largest scale gives no trusted band there.
    Refused,
    /// Not checked: why (too few scales, or the fit failed).
    NotChecked(String),
}

impl Outcome {
    /// True when the check was made and the band failed it.
    pub fn failed(&self) -> bool {
        matches!(self, Outcome::Missed { .. } | Outcome::Refused)
    }
}

/// The self-check of one form (module docs, rule 2).
#[derive(Debug, Clone)]
pub struct Check {
    /// The largest training scale (of the first variable), left out.
    pub at: Option<Rat>,
    /// What it found.
    pub outcome: Outcome,
    /// The bands of the fit without that scale at the prediction points
    /// (empty when not checked).
    pub bands: Vec<Option<Band>>,
    /// How wide that fit's band was at the scale left out: its largest
    /// half-width there relative to the mean of the measurements at its
    /// point (`None` when not checked, refused, or a band end is
    /// unbounded). A check passed by a band of ±300 % says little, and the
    /// answer shows it.
    pub half_width: Option<Rat>,
    /// That fit's prediction `T(C, x)` at each prediction point (`None`
    /// where it cannot be evaluated; empty when not checked). Where the
    /// recommended band does not hold it, the forecast rests on the scale
    /// left out ([`Recommendation::hinges`]).
    pub values: Vec<Option<Rat>>,
}

/// Fits `model` without the measurements at the largest value of its first
/// variable and checks that its trusted band there holds every one of them;
/// also gives that fit's bands at `points` (for the gate).
pub fn check(model: &Model, rows: &[Measurement], file: &str, opts: &Options, points: &[Vec<Rat>]) -> Check {
    check_with(model, rows, &Tally::new(rows), None, file, opts, &bases(model, points))
}

/// [`check`] of the rows' tally, at points given by the model's basis
/// values there (`None` where it is undefined); `design`, the model on the
/// whole tally when the caller has it, lends its basis values to the fit
/// without the largest scale.
pub fn check_with(
    model: &Model,
    rows: &[Measurement],
    tally: &Tally,
    design: Option<&Design>,
    file: &str,
    opts: &Options,
    at: &[Option<Vec<Rat>>],
) -> Check {
    let not = |at: Option<Rat>, why: String| Check {
        at,
        outcome: Outcome::NotChecked(why),
        bands: Vec::new(),
        half_width: None,
        values: Vec::new(),
    };
    // Over the distinct points: comparing 10^6 repetitions with
    // num-rational's comparison took seconds.
    let groups = tally.groups();
    let Some(top) =
        groups.iter().filter_map(|g| g.x.first()).max_by(|a, b| crate::num::cmp_fast(a, b)).cloned()
    else {
        return not(None, "no measurements".into());
    };
    let kept = tally.keep(|g| g.x.first() != Some(&top));
    let k = model.k();
    let distinct = kept.groups().len();
    if distinct <= k {
        return not(
            Some(top),
            format!(
                "{k} coefficient{} need{} {} scales besides the largest; the data have {}",
                if k == 1 { "" } else { "s" },
                if k == 1 { "s" } else { "" },
                k + 1,
                distinct
            ),
        );
    }
    let mut held: Vec<&crate::fit::Group> = groups.iter().filter(|g| g.x.first() == Some(&top)).collect();
    held.sort_by(|a, b| a.x.cmp(&b.x));
    let held_points: Vec<Vec<Rat>> = held.iter().map(|g| g.x.clone()).collect();
    let mut all = bases(model, &held_points);
    all.extend(at.iter().cloned());
    let kept_design = match design {
        Some(d) => d.for_tally(model, &kept, file),
        None => Design::from_tally(model, &kept, file),
    };
    let fitted = kept_design.map_err(AnalysisError::from).and_then(|d| {
        let t = trusted_at(model, &d, None, None, &kept, file, opts, &all)?;
        // The same fit's prediction at each point (no solve without points).
        if at.is_empty() {
            return Ok((t, Vec::new()));
        }
        let params = d.params(model).map_err(AnalysisError::from)?;
        let values = at
            .iter()
            .map(|b| b.as_ref().map(|b| crate::num::affine(&b[0], &b[1..], &params)))
            .collect::<Vec<_>>();
        Ok((t, values))
    });
    let (t, values) = match fitted {
        Ok(t) => t,
        Err(e) => return not(Some(top), format!("the fit without the largest scale failed: {e}")),
    };
    let (at_held, at_points) = t.bands.split_at(held_points.len());
    let mut above = 0;
    let mut below = 0;
    let mut of = 0;
    // Per point: the band's half-width over the mean there (`None`:
    // unbounded, or no positive mean).
    let mut widths: Vec<Option<Rat>> = Vec::with_capacity(held.len());
    for (g, band) in held.iter().zip(at_held) {
        let Some(b) = band else {
            return Check {
                at: Some(top),
                outcome: Outcome::Refused,
                bands: at_points.to_vec(),
                half_width: None,
                values,
            };
        };
        of += g.rows.len();
        let mean = crate::num::div(&g.ysum, &Rat::from_integer(g.rows.len().into()));
        widths.push(Some(mean).filter(Rat::is_positive).and_then(|m| b.relative_half_width(&m)));
        // The extremes decide: nothing is outside when they are inside.
        if b.contains(&g.ymin) && b.contains(&g.ymax) {
            continue;
        }
        for &i in g.rows.iter() {
            let y = &rows[i].y;
            if !b.contains(y) {
                if b.upper.as_ref().is_some_and(|u| crate::num::cmp_fast(y, u).is_gt()) {
                    above += 1;
                } else {
                    below += 1;
                }
            }
        }
    }
    let outcome = if above + below == 0 { Outcome::Passed } else { Outcome::Missed { above, below, of } };
    // The widest over the points; unknown when any one is.
    let half_width = widths.into_iter().collect::<Option<Vec<Rat>>>().and_then(|w| w.into_iter().max());
    Check { at: Some(top), outcome, bands: at_points.to_vec(), half_width, values }
}

/// A change of trend inside the training data (module docs, rule 4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Regime {
    /// The last scale before the change and the first after it.
    pub between: (Rat, Rat),
    /// The scales before the change, set aside (empty when the last segment
    /// has too few scales to extrapolate from alone).
    pub set_aside: Vec<Rat>,
    /// Scales from the change on.
    pub last_scales: usize,
    /// The tolerance the last three scales set: max(2·their smallest
    /// remax, noise), which the whole data does not meet.
    pub tolerance: Rat,
}

impl Regime {
    /// True when the band is extrapolated from the last segment alone.
    pub fn used(&self) -> bool {
        !self.set_aside.is_empty()
    }
}

/// Looks for a change of trend along the single variable of `forms`: the
/// smallest remax any form reaches on the last [`MIN_LAST_SEGMENT`] scales
/// sets a tolerance (as `trusted` does: twice it, at least the noise); when
/// no form meets it on all the scales, the trend changed, and the first
/// scale from which some form meets it starts the last segment (found by
/// bisection: dropping early scales only lowers the best remax). A change
/// among the last scales themselves is the self-check's to find.
pub fn regime(forms: &[&Model], rows: &[Measurement], file: &str, opts: &Options) -> Option<Regime> {
    regime_tallied(forms, rows, &Tally::new(rows), file, opts, None)
}

/// remax of forms on the medians of one series' measurements (one per
/// point; every one positive), each form's found once: the regime check
/// and the forms ranked alike with the best ([`fits_medians`]) both ask
/// it of the same medians. Keyed by the form's text.
#[derive(Debug, Default)]
pub struct MedianRemax {
    known: std::sync::Mutex<std::collections::HashMap<String, Option<Rat>>>,
}

impl MedianRemax {
    /// The remax of `model` recorded, or `find`'s (then recorded).
    fn get_or(&self, model: &Model, find: impl FnOnce() -> Option<Rat>) -> Option<Rat> {
        if let Some(r) = self.known.lock().ok().and_then(|k| k.get(&model.body_text).cloned()) {
            return r;
        }
        let r = find();
        if let Ok(mut k) = self.known.lock() {
            k.insert(model.body_text.clone(), r.clone());
        }
        r
    }
}

/// [`regime`] with the rows' tally made once by the caller; `known`
/// records each form's remax on the medians of all the scales (when the
/// measurements repeat), for [`fits_medians`] on the same medians.
pub fn regime_tallied(
    forms: &[&Model],
    rows: &[Measurement],
    tally: &Tally,
    file: &str,
    opts: &Options,
    known: Option<&MedianRemax>,
) -> Option<Regime> {
    // One variable: a tally's groups are its distinct scales.
    if forms.is_empty() || forms.iter().any(|m| m.vars.len() != 1) || tally.groups().len() <= MIN_LAST_SEGMENT
    {
        return None;
    }
    let data: std::borrow::Cow<'_, [Measurement]> =
        centres_of(tally).map_or(std::borrow::Cow::Borrowed(rows), |(c, _)| std::borrow::Cow::Owned(c));
    if data.iter().any(|m| !m.y.is_positive()) {
        return None;
    }
    let mut scales: Vec<Rat> = data.iter().map(|m| m.x[0].clone()).collect();
    scales.sort();
    scales.dedup();
    let n = scales.len();
    if n <= MIN_LAST_SEGMENT {
        return None;
    }
    // Each form evaluated once at every scale; a suffix's design takes its
    // basis from there (each form was evaluated anew for every suffix).
    let whole = match &data {
        std::borrow::Cow::Borrowed(_) => std::borrow::Cow::Borrowed(tally),
        std::borrow::Cow::Owned(c) => std::borrow::Cow::Owned(Tally::new(c)),
    };
    // Evaluated when a form is first asked (the search often stops at one).
    let designs: Vec<std::sync::OnceLock<Option<Design>>> =
        forms.iter().map(|_| Default::default()).collect();
    let suffix = |j: usize| -> Tally { whole.keep(|g| g.x[0] >= scales[j]) };
    // Each form's remax on every scale is found once: recorded in `known`
    // when these are the medians it is kept for, else here.
    let local = MedianRemax::default();
    let at_all = known.filter(|_| matches!(data, std::borrow::Cow::Owned(_))).unwrap_or(&local);
    // remax on a suffix (every measurement is positive): what
    // `Analysis::smallest_bound` gives, from the form's shared basis.
    let remax = |i: usize, t: &Tally| -> Option<Rat> {
        let m = forms[i];
        let find = || {
            let d = match designs[i].get_or_init(|| Design::from_tally(m, &whole, file).ok()) {
                Some(d) => d.for_tally(m, t, file),
                None => Design::from_tally(m, t, file),
            };
            Analysis::remax_on(&d.ok()?, m.k(), opts).ok().flatten()
        };
        if t.groups().len() == n {
            at_all.get_or(m, find)
        } else {
            find()
        }
    };
    // The tolerance is at least the noise: a form within it on every
    // scale means no change, whatever the best on the last scales is.
    let floor = noise(opts);
    let within_noise = {
        use rayon::prelude::*;
        (0..forms.len())
            .into_par_iter()
            .filter(|&i| forms[i].k() < n)
            .any(|i| remax(i, &whole).is_some_and(|r| crate::num::cmp_fast(&r, &floor).is_le()))
    };
    if within_noise {
        return None;
    }
    // Each form's remax on the last scales (among the forms they can fit:
    // more distinct scales than coefficients); then whether some form
    // meets `tol` on a longer suffix, the forms tried in the order of
    // those (the best on the last scales is likeliest to meet it on more,
    // and the search stops there).
    let w = MIN_LAST_SEGMENT;
    let last_w = suffix(n - w);
    let on_last: Vec<(Rat, usize)> = {
        use rayon::prelude::*;
        let mut v: Vec<(Rat, usize)> = (0..forms.len())
            .into_par_iter()
            .filter(|&i| forms[i].k() < w)
            .filter_map(|i| remax(i, &last_w).map(|r| (r, i)))
            .collect();
        // (Exact, without num-rational's dividing comparison.)
        v.sort_by(|a, b| crate::num::cmp_fast(&a.0, &b.0).then(a.1.cmp(&b.1)));
        v
    };
    let order: Vec<usize> = {
        let mut first = vec![false; forms.len()];
        for (_, i) in &on_last {
            first[*i] = true;
        }
        on_last.iter().map(|(_, i)| *i).chain((0..forms.len()).filter(|&i| !first[i])).collect()
    };
    let meets = |j: usize, tol: &Rat| -> bool {
        use rayon::prelude::*;
        let t = suffix(j);
        order
            .par_iter()
            .filter(|&&i| forms[i].k() < n - j)
            .any(|&i| remax(i, &t).is_some_and(|r| crate::num::cmp_fast(&r, tol).is_le()))
    };
    let last = on_last.first()?.0.clone();
    let tolerance =
        crate::num::max_fast(&crate::num::mul(&Rat::from_integer(2.into()), &last), &floor).clone();
    if meets(0, &tolerance) {
        return None;
    }
    // The first j whose suffix some form meets; j = n − w always does.
    let (mut lo, mut hi) = (1, n - w);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if meets(mid, &tolerance) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let last_scales = n - lo;
    let set_aside = if last_scales >= MIN_LAST_SEGMENT { scales[..lo].to_vec() } else { Vec::new() };
    Some(Regime { between: (scales[lo - 1].clone(), scales[lo].clone()), set_aside, last_scales, tolerance })
}

/// The measurements from the last segment of a regime on (all of them
/// without one, or when it has too few scales).
pub fn segment<'a>(rows: &'a [Measurement], regime: Option<&Regime>) -> std::borrow::Cow<'a, [Measurement]> {
    match regime.filter(|r| r.used()) {
        Some(r) => rows.iter().filter(|m| in_segment(m, r)).cloned().collect(),
        None => std::borrow::Cow::Borrowed(rows),
    }
}

/// The measurements [`segment`] leaves out: those before the last segment.
pub fn set_aside(rows: &[Measurement], regime: Option<&Regime>) -> Vec<Measurement> {
    match regime.filter(|r| r.used()) {
        Some(r) => rows.iter().filter(|m| !in_segment(m, r)).cloned().collect(),
        None => Vec::new(),
    }
}

/// True when `m` lies in the last segment of `r`.
fn in_segment(m: &Measurement, r: &Regime) -> bool {
    m.x.first().is_some_and(|x| *x >= r.between.1)
}

/// The recommended band at one prediction point.
#[derive(Debug, Clone)]
pub struct Recommended {
    /// The point.
    pub x: Vec<Rat>,
    /// The form's prediction `T(C, x)` (`None`: it cannot be evaluated).
    pub value: Option<Rat>,
    /// The band of the next measurement (`None`: refused; see `refusal`).
    pub band: Option<Band>,
    /// Widened by the gate (the form failed its self-check).
    pub widened: bool,
    /// Widened to the family band because the form could not be checked:
    /// how many forms that band spans ([`widen_unchecked`]).
    pub family_forms: Option<usize>,
    /// Widened to the bands of the forms ranked alike with it: how many
    /// forms the band spans ([`widen_to_alike`]).
    pub alike_forms: Option<usize>,
    /// Why there is no band.
    pub refusal: Option<Refusal>,
}

/// The rule for a form that cannot be checked (too few scales besides the
/// largest for its coefficients): nothing then tells its extrapolation
/// from that of any other form the data allow, so each recommended band
/// widens to the hull with the family band at `trusted` (the band of a new
/// measurement over every form consistent with the data there, and how
/// many forms that is), given per point in the recommendation's order.
/// Changes nothing when the form was checked, where there is no family
/// band, or where the hull is the band itself.
pub fn widen_unchecked(r: &mut Recommendation, family_bands: &[Option<(Band, usize)>]) {
    if matches!(r.check.outcome, Outcome::NotChecked(_)) {
        widen_each(r, family_bands, |p, forms| p.family_forms = Some(forms));
    }
}

/// Widens each point's band to its hull with `hulls` (per point, with how
/// many forms each spans) and lets `mark` record that where it changed the
/// band; a point without a band (refused) or without a hull is left alone.
fn widen_each(r: &mut Recommendation, hulls: &[Option<(Band, usize)>], mark: fn(&mut Recommended, usize)) {
    for (p, h) in r.points.iter_mut().zip(hulls) {
        let (Some(b), Some((h, forms))) = (&p.band, h) else { continue };
        let wide = b.hull(h);
        if wide != *b {
            p.band = Some(wide);
            mark(p, *forms);
        }
    }
}

/// The rule for the forms the data cannot tell from the chosen one (module
/// docs, rule 3): each recommended band widens to the hull with the bands
/// of a new measurement of every form ranked alike with it, given per point
/// in the recommendation's order with how many forms that hull spans
/// ([`crate::family::FamilyAnalysis::alike`]). Changes nothing where there
/// is no band (a refusal stands), no such hull, or where the hull is the
/// band itself.
pub fn widen_to_alike(r: &mut Recommendation, alike: &[Option<(Band, usize)>]) {
    widen_each(r, alike, |p, forms| p.alike_forms = Some(forms));
}

/// Whether `model` fits the medians `rows` of repeated measurements
/// within `bound` (its relative part: remax of the medians at most that),
/// the trusted bound of the chosen form's medians ([`Trusted::centres`]).
/// Heavy-tailed repetitions make every form consistent at a wide threshold
/// and the same e_max; the medians still tell the forms apart. A form that
/// cannot be fitted to them does not fit.
/// `known`: the remax of forms on these medians found so far.
pub fn fits_medians(
    model: &Model,
    rows: &[Measurement],
    bound: &Bound,
    file: &str,
    opts: &Options,
    known: Option<&MedianRemax>,
) -> bool {
    // Medians are positive ([`centres`]): the smallest bound is remax, one
    // LP with no fit and no e_max.
    let find = || Analysis::smallest_bound(model, rows, file, opts).ok();
    known
        .map_or_else(find, |k| k.get_or(model, find))
        .is_some_and(|r| crate::num::cmp_fast(&r, &bound.relative).is_le())
}

/// Why no band is recommended at a point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// The form misses its own data by 50 % or more (trusted's limit), or
    /// the measurements are not all positive.
    Untrusted,
    /// The form predicts no positive time there.
    BelowZero,
    /// The form failed its self-check and the fit without the largest
    /// scale gives no band there.
    Gate,
    /// The form cannot be evaluated there.
    Undefined,
}

impl Refusal {
    /// A short reason, for reports.
    pub fn text(self) -> &'static str {
        match self {
            Refusal::Untrusted => "the form misses its own data by 50 % or more",
            Refusal::BelowZero => "the form predicts no positive time here",
            Refusal::Gate => {
                "the form failed its self-check and the fit without the largest scale refuses here"
            }
            Refusal::Undefined => "the form cannot be evaluated here",
        }
    }
}

/// The band errband recommends, per prediction point, with what it rests
/// on (module docs).
#[derive(Debug, Clone)]
pub struct Recommendation {
    /// The form (the model, or the family's best form), its right-hand side.
    pub form: String,
    /// The function's name and variables (`T`, `p`), for sentences.
    pub func: String,
    /// The variables.
    pub vars: Vec<String>,
    /// A change of trend found in the data.
    pub regime: Option<Regime>,
    /// The trusted bands before the gate, and what they rest on.
    pub trusted: Trusted,
    /// The self-check.
    pub check: Check,
    /// Per prediction point.
    pub points: Vec<Recommended>,
    /// The run-to-run variability assumed at least.
    pub noise: Rat,
}

impl Recommendation {
    /// The prediction at point `i` of the same form fitted without the
    /// largest scale ([`Check::values`]; `None`: not checked, or undefined
    /// there).
    pub fn without_largest(&self, i: usize) -> Option<&Rat> {
        self.check.values.get(i)?.as_ref()
    }

    /// True when the band at point `i` does not hold
    /// [`Recommendation::without_largest`]: the forecast rests on the
    /// measurements at that one scale (a lasting change of trend or a
    /// one-off run; one more run there tells them apart). Judged on the
    /// final band, after every widening; never true without a band, nor
    /// where the band does not hold the form's own value either
    /// ([`Recommendation::value_outside`]): two least-squares values then
    /// fall outside a band of relative bounds for the same reason, and the
    /// largest scale is not what sets them apart.
    pub fn hinges(&self, i: usize) -> bool {
        match (self.points.get(i).and_then(|p| p.band.as_ref()), self.without_largest(i)) {
            (Some(b), Some(v)) => !b.contains(v) && !self.value_outside(i),
            _ => false,
        }
    }

    /// True when the band at point `i` does not hold the form's own
    /// least-squares value there ([`Recommended::value`]). The band holds
    /// every parameter within the trusted bound of the data, so the fit
    /// then strays from some measurement by more than that bound: least
    /// squares weighs absolute errors, which the largest measurements
    /// dominate (a strong-scaling series from one thread spans orders of
    /// magnitude), while the bound is relative: the form does not follow
    /// the data at both ends. Judged on the final band; never true without
    /// one.
    pub fn value_outside(&self, i: usize) -> bool {
        match self.points.get(i) {
            Some(Recommended { band: Some(b), value: Some(v), .. }) => !b.contains(v),
            _ => false,
        }
    }
}

/// The recommendation for `model` fitted to `rows` (the last segment, when
/// a regime was found) at `points`; `check` when already made (a family
/// checks each consistent form).
pub fn recommend(
    model: &Model,
    rows: &[Measurement],
    file: &str,
    opts: &Options,
    points: &[Vec<Rat>],
    regime: Option<Regime>,
    check_done: Option<Check>,
) -> Result<Recommendation, AnalysisError> {
    recommend_tallied(model, rows, &Tally::new(rows), None, file, opts, points, regime, check_done)
}

/// [`recommend`] with the rows' tally made once by the caller, and
/// `fitted`, the analysis of `model` on those rows with the same options
/// when the caller has it: its design, parameters and remax are used
/// instead of being computed again.
#[allow(clippy::too_many_arguments)]
pub fn recommend_tallied(
    model: &Model,
    rows: &[Measurement],
    tally: &Tally,
    fitted: Option<&Analysis>,
    file: &str,
    opts: &Options,
    points: &[Vec<Rat>],
    regime: Option<Regime>,
    check_done: Option<Check>,
) -> Result<Recommendation, AnalysisError> {
    let at = bases(model, points);
    let own;
    let design = match fitted {
        Some(an) => &an.design,
        None => {
            own = Design::from_tally(model, tally, file)?;
            &own
        }
    };
    // Its bands serve when it predicted at exactly these points.
    let same_points = |an: &&Analysis| {
        an.predictions.len() == points.len() && an.predictions.iter().zip(points).all(|(p, x)| p.x == *x)
    };
    let known_remax = fitted.and_then(|an| an.remax.as_ref());
    let trusted = trusted_at(model, design, known_remax, fitted.filter(same_points), tally, file, opts, &at)?;
    let c = check_done.unwrap_or_else(|| check_with(model, rows, tally, Some(design), file, opts, &at));
    let params = match fitted {
        Some(an) => an.params.clone(),
        None => design.params(model)?,
    };
    let positive = tally.groups().iter().all(|g| g.ymin.is_positive());
    let out = points
        .iter()
        .zip(&trusted.bands)
        .zip(&at)
        .enumerate()
        .map(|(i, ((x, band), basis))| {
            let value = basis.as_ref().map(|b| crate::num::affine(&b[0], &b[1..], &params));
            let mut r = Recommended {
                x: x.clone(),
                value: value.clone(),
                band: None,
                widened: false,
                family_forms: None,
                alike_forms: None,
                refusal: None,
            };
            let Some(v) = value else {
                r.refusal = Some(Refusal::Undefined);
                return r;
            };
            if positive && !v.is_positive() {
                r.refusal = Some(Refusal::BelowZero);
                return r;
            }
            let Some(b) = band.clone() else {
                r.refusal = Some(
                    if trusted.bound.is_none() && trusted.centres.as_ref().is_none_or(|c| c.0.is_none()) {
                        Refusal::Untrusted
                    } else {
                        Refusal::BelowZero
                    },
                );
                return r;
            };
            if c.outcome.failed() {
                match c.bands.get(i).cloned().flatten() {
                    Some(g) => {
                        let h = b.hull(&g);
                        r.widened = h != b;
                        r.band = Some(h);
                    }
                    None => r.refusal = Some(Refusal::Gate),
                }
            } else {
                r.band = Some(b);
            }
            r
        })
        .collect();
    Ok(Recommendation {
        form: model.body_text.clone(),
        func: model.func.clone(),
        vars: model.vars.clone(),
        regime,
        trusted,
        check: c,
        points: out,
        noise: noise(opts),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::{frac, int};

    fn rows(points: &[(i64, &[i64])]) -> Vec<Measurement> {
        points
            .iter()
            .flat_map(|&(x, ys)| ys.iter().map(move |&y| Measurement { x: vec![int(x)], y: int(y), line: 1 }))
            .collect()
    }

    #[test]
    fn the_widest_scatter_is_named_with_its_ratio() {
        // Ranges about the medians: 2/10, 9/15 (the widest), 0.
        let (_, s) = centres(&rows(&[(1, &[9, 11]), (2, &[12, 21]), (4, &[7, 7]), (8, &[5])])).unwrap();
        assert_eq!(s.widest_at, vec![int(2)]);
        assert_eq!(s.widest_ratio, Some(frac(21, 12)));
        assert_eq!((s.points, s.most), (3, 2));
        // The first of equal ones; none where no repetitions differ.
        let (_, s) = centres(&rows(&[(1, &[9, 11]), (2, &[18, 22])])).unwrap();
        assert_eq!(s.widest_at, vec![int(1)]);
        let (_, s) = centres(&rows(&[(1, &[3, 3]), (2, &[5, 5])])).unwrap();
        assert!(s.widest_at.is_empty() && s.widest_ratio.is_none());
    }

    /// The regime by its definition, every form asked on every suffix: the
    /// tolerance from the best remax on the last scales, and the first
    /// suffix some form meets.
    fn regime_by_definition(forms: &[&Model], medians: &[Measurement], opts: &Options) -> Option<(Rat, Rat)> {
        let mut scales: Vec<Rat> = medians.iter().map(|m| m.x[0].clone()).collect();
        scales.sort();
        scales.dedup();
        let n = scales.len();
        let suffix = |j: usize| -> Vec<Measurement> {
            medians.iter().filter(|m| m.x[0] >= scales[j]).cloned().collect()
        };
        let bound = |m: &Model, j: usize| Analysis::smallest_bound(m, &suffix(j), "t", opts).ok();
        let w = MIN_LAST_SEGMENT;
        let last = forms.iter().filter(|m| m.k() < w).filter_map(|m| bound(m, n - w)).min()?;
        let tol = (int(2) * last).max(noise(opts));
        let first = (0..=n - w)
            .find(|&j| forms.iter().any(|m| m.k() < n - j && bound(m, j).is_some_and(|r| r <= tol)))?;
        (first > 0).then(|| (scales[first - 1].clone(), scales[first].clone()))
    }

    #[test]
    fn the_regime_search_agrees_with_its_definition_and_records_what_it_found() {
        let model = |body: &str| Model::parse(&format!("T(p) = {body}\nparam c0, c1\n"), "m", 30).unwrap();
        let forms = [model("c0 + c1*p"), model("c0 + c1*log2(p)"), model("c0 + c1*p^2"), model("c0 + c1/p")];
        let refs: Vec<&Model> = forms.iter().collect();
        let opts = Options::default();
        // Flat up to p = 8, then linear; and a series with no change.
        let changed = rows(&[
            (1, &[100, 104, 98]),
            (2, &[101, 99, 103]),
            (4, &[100, 102, 97]),
            (8, &[99, 101, 100]),
            (16, &[160, 158, 163]),
            (32, &[320, 330, 316]),
            (64, &[640, 651, 633]),
            (128, &[1280, 1270, 1291]),
        ]);
        let steady = rows(&[
            (1, &[10, 11, 10]),
            (2, &[20, 21, 19]),
            (4, &[40, 41, 40]),
            (8, &[80, 79, 81]),
            (16, &[160, 158, 161]),
        ]);
        for data in [&changed, &steady] {
            let tally = Tally::new(data);
            let known = MedianRemax::default();
            let got = regime_tallied(&refs, data, &tally, "t", &opts, Some(&known));
            let (medians, _) = centres_of(&tally).unwrap();
            assert_eq!(got.map(|r| r.between), regime_by_definition(&refs, &medians, &opts));
            // What was recorded is each form's remax on all the medians.
            let recorded = known.known.lock().unwrap().clone();
            assert!(!recorded.is_empty());
            for m in &forms {
                if let Some(r) = recorded.get(&m.body_text) {
                    assert_eq!(*r, Analysis::smallest_bound(m, &medians, "t", &opts).ok(), "{}", m.body_text);
                }
            }
        }
        assert!(regime(&refs, &changed, "t", &opts).is_some_and(|r| r.between == (int(8), int(16))));
        assert!(regime(&refs, &steady, "t", &opts).is_none());
    }

    /// From 19 free deviations on, the band is the medians' band widened
    /// by the repetitions' scatter alone; with 18 it is also the hull with
    /// the band of every repetition a constraint, which the one slow run
    /// per point widens.
    #[test]
    fn enough_free_deviations_rest_the_band_on_the_medians() {
        let amdahl = Model::parse("T(p) = c0 + c1/p\nparam c0, c1\n", "m", 30).unwrap();
        let opts = Options::default();
        let at = [vec![int(128)], vec![int(256)]];
        // Four runs per point, one 20 % slow: 3 free deviations each.
        let point = |p: i64, devs: &[i64]| -> Vec<i64> {
            devs.iter().map(|d| (1000 + 64000 / p) * (100 + d)).collect()
        };
        let four: Vec<(i64, Vec<i64>)> =
            [1, 2, 4, 8, 16, 32].iter().map(|&p| (p, point(p, &[0, 2, -2, 20]))).collect();
        let mut more = four.clone();
        more.push((64, point(64, &[1, -1])));
        for (data, free) in [(&four, 18), (&more, 19)] {
            let data: Vec<(i64, &[i64])> = data.iter().map(|(p, ys)| (*p, ys.as_slice())).collect();
            let data = rows(&data);
            let t = trusted(&amdahl, &data, "t", &opts, &at).unwrap();
            let (cb, spread) = t.centres.clone().unwrap();
            assert_eq!(spread.free, free);
            assert_eq!(t.from_medians().is_some(), free >= FREE_DEVIATIONS);
            // Independently: the band of one median per point, its ends
            // times 1 + the largest deviations below and above.
            let (medians, _) = centres(&data).unwrap();
            let on_medians = trusted(&amdahl, &medians, "t", &opts, &at).unwrap();
            assert!(on_medians.centres.is_none());
            assert_eq!(on_medians.bound, cb);
            let (below, above) = (Rat::one() + &spread.below, Rat::one() + &spread.above);
            for (band, m) in t.bands.iter().zip(&on_medians.bands) {
                let (band, m) = (band.as_ref().unwrap(), m.as_ref().unwrap());
                let widened = Band {
                    lower: m.lower.as_ref().map(|l| l * &below),
                    upper: m.upper.as_ref().map(|u| u * &above),
                    clipped: m.clipped,
                };
                if free >= FREE_DEVIATIONS {
                    assert_eq!(*band, widened);
                } else {
                    assert_eq!(band.hull(&widened), *band);
                    assert_ne!(*band, widened, "every repetition a constraint widens it");
                }
            }
            // A form ranked alike gets the same at the medians' bound.
            if free >= FREE_DEVIATIONS {
                let alike = median_bands(&amdahl, &medians, cb.as_ref().unwrap(), &spread, "t", &at);
                assert_eq!(alike, t.bands);
            }
        }
    }

    #[test]
    fn a_least_squares_value_outside_the_band_strays_beyond_its_bound() {
        let amdahl = Model::parse("T(p) = c0 + c1/p\nparam c0, c1\n", "m", 30).unwrap();
        let opts = Options::default();
        let at = [vec![int(128)], vec![int(256)]];
        // A strong-scaling series from one thread to 64 (ppscan on the
        // Friendster graph, eps = 0.5, in ms): least squares follows the
        // seconds at one and two threads and misses 64 threads by 38 %.
        let strong = rows(&[
            (1, &[1883807]),
            (2, &[850437]),
            (4, &[451093]),
            (8, &[226166]),
            (16, &[124456]),
            (24, &[87187]),
            (32, &[74225]),
            (40, &[59526]),
            (64, &[53116]),
        ]);
        // A series the form follows closely.
        let close = rows(&[(1, &[1010]), (2, &[560]), (4, &[330]), (8, &[222]), (16, &[161]), (32, &[131])]);
        for (data, outside) in [(&strong, true), (&close, false)] {
            let r = recommend(&amdahl, data, "t", &opts, &at, None, None).unwrap();
            for i in 0..at.len() {
                assert_eq!(r.value_outside(i), outside, "point {i}");
                let (b, v) = (r.points[i].band.as_ref().unwrap(), r.points[i].value.as_ref().unwrap());
                assert_eq!(!b.contains(v), outside);
            }
            // What the answer says follows: the fit misses some measurement
            // by more than the bound the band holds.
            let design = Design::new(&amdahl, data, "t").unwrap();
            let c = design.params(&amdahl).unwrap();
            let bound = r.trusted.bound.clone().unwrap();
            let strays = data.iter().any(|m| {
                let t = &c[0] + &c[1] / &m.x[0];
                (t - &m.y).abs() > &bound.absolute + &bound.relative * &m.y
            });
            assert_eq!(strays, outside);
        }
        // The smaller fit's value is outside too, for the same reason:
        // that is no hinge on the largest scale.
        let r = recommend(&amdahl, &strong, "t", &opts, &at, None, None).unwrap();
        assert!(r.points[0].band.as_ref().is_some_and(|b| !b.contains(r.without_largest(0).unwrap())));
        assert!(!r.hinges(0) && !r.hinges(1));
        // No band, no claim.
        let mut r = r;
        r.points[0].band = None;
        assert!(!r.value_outside(0) && !r.value_outside(5));
    }
}
