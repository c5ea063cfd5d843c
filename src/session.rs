//! One series analysed as the main command does it: the model (or, without
//! one, the best form of a family), the analysis or a backtest against
//! held-out measurements, and the family's band. The command line (one
//! series or each series of an experiment) and the Python package call
//! [`analyse_series`]; only their outputs differ.

use crate::analysis::{Analysis, AnalysisError, Band, Options};
use crate::backtest::{self, Backtest, BacktestError, Holdout};
use crate::data::{Measurement, Part, Parts};
use crate::error::{Classified, ErrorKind};
use crate::family::{self, FamilyAnalysis, FamilyError, FamilySet};
use crate::model::Model;
use crate::num::{fmt_fraction, Rat};
use crate::trust::{self, Recommendation};
use std::borrow::Cow;

/// Which forms make the family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FamilyChoice {
    /// The given model is a member (and the analysed model). False without
    /// a model file: the family's best form is then the model.
    pub own: bool,
    /// A set of generated forms that are members (`--family pmnf`,
    /// `--family scaling`).
    pub set: Option<FamilySet>,
}

impl FamilyChoice {
    /// The choice of the main command with a model file: the model's own
    /// form, and `set`'s forms.
    pub fn own(set: Option<FamilySet>) -> FamilyChoice {
        FamilyChoice { own: true, set }
    }

    /// Model discovery (no model file): the best form of `set`.
    pub fn discover(set: FamilySet) -> FamilyChoice {
        FamilyChoice { own: false, set: Some(set) }
    }
}

/// How the main command analyses a series: the options of the analysis,
/// the family of forms, a holdout, and the data's name for messages. One
/// struct for [`analyse_series`], [`analyse_experiment`] and
/// [`analyse_experiment_each`].
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Request<'a> {
    /// The data's name in messages (its file).
    pub file: &'a str,
    /// The analysis' options (thresholds, prediction points, limits).
    pub options: &'a Options,
    /// Which forms make the family.
    pub family: FamilyChoice,
    /// Measurements held out for a backtest, with the condition as the
    /// user wrote it.
    pub holdout: Option<(&'a Holdout, &'a str)>,
}

impl<'a> Request<'a> {
    /// The analysis of the data in `file` with `options`: the given model
    /// alone, nothing held out.
    pub fn new(file: &'a str, options: &'a Options) -> Request<'a> {
        Request { file, options, family: FamilyChoice::own(None), holdout: None }
    }

    /// The same, with the family `family`.
    pub fn family(self, family: FamilyChoice) -> Request<'a> {
        Request { family, ..self }
    }

    /// The same, with `holdout` held out (its condition as written).
    pub fn holdout(self, holdout: Option<(&'a Holdout, &'a str)>) -> Request<'a> {
        Request { holdout, ..self }
    }
}

/// What [`analyse_series`] found.
#[derive(Debug, Clone)]
pub struct Series {
    /// Without a model of its own ([`FamilyChoice::own`] false): the
    /// family's best form, the model analysed.
    pub best: Option<Model>,
    /// The analysis (of the training measurements, with a holdout; of the
    /// last segment, when a change of trend set earlier scales aside).
    pub analysis: Analysis,
    /// With a holdout: the backtest.
    pub backtest: Option<Backtest>,
    /// The family, when the model has `family` lines, or a set of forms
    /// was asked for, or the model was chosen from them.
    pub family: Option<FamilyAnalysis>,
    /// The band errband recommends for the next measurement at each
    /// prediction point, and what it rests on; `None` when it could not be
    /// made (the reason in `recommendation_error`).
    pub recommendation: Option<Recommendation>,
    /// Why there is no recommendation.
    pub recommendation_error: Option<String>,
    /// The measurements set aside before a change of trend.
    pub set_aside: Vec<Measurement>,
    /// When measurements were set aside (and there is no backtest, whose
    /// `train` holds them): the measurements analysed.
    pub segment: Option<Vec<Measurement>>,
}

impl Series {
    /// The measurements the analysis was fitted to: the training ones of a
    /// backtest, the last segment after a change of trend, or `rows`.
    pub fn rows<'a>(&'a self, rows: &'a [Measurement]) -> &'a [Measurement] {
        match (&self.backtest, &self.segment) {
            (Some(b), _) => &b.train,
            (None, Some(s)) => s,
            (None, None) => rows,
        }
    }
}

/// Why a series could not be analysed.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum SeriesError {
    /// The analysis failed.
    Analysis(AnalysisError),
    /// The family could not be analysed.
    Family(FamilyError),
    /// The backtest could not be done.
    Backtest(BacktestError),
    /// The series' own model (Extra-P's, stored per series) could not be
    /// built: the message says why.
    Model(String),
}

impl std::fmt::Display for SeriesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        fn family(e: &FamilyError, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            match e {
                FamilyError::NoForm(e) => write!(f, "no form of the family could be fitted: {e}"),
                FamilyError::Form(d) => write!(f, "{}", d.message),
                e @ FamilyError::TooFewPoints { .. } => write!(f, "{e}"),
                e @ FamilyError::TooMany { .. } => write!(f, "--family: {e}"),
            }
        }
        match self {
            SeriesError::Model(m) => write!(f, "{m}"),
            SeriesError::Analysis(e) => write!(f, "{e}"),
            SeriesError::Family(e) => family(e, f),
            SeriesError::Backtest(BacktestError::Split(m)) => write!(f, "{m}"),
            SeriesError::Backtest(BacktestError::Analysis(e)) => {
                write!(f, "fitting without the held-out measurements: {e}")
            }
            SeriesError::Backtest(BacktestError::Family(e)) => {
                write!(f, "without the held-out measurements: ")?;
                family(e, f)
            }
        }
    }
}

impl std::error::Error for SeriesError {}

impl Classified for SeriesError {
    fn kind(&self) -> ErrorKind {
        let family = |e: &FamilyError| match e {
            FamilyError::NoForm(e) => e.kind(),
            _ => ErrorKind::Input,
        };
        match self {
            SeriesError::Analysis(e) | SeriesError::Backtest(BacktestError::Analysis(e)) => e.kind(),
            SeriesError::Family(e) | SeriesError::Backtest(BacktestError::Family(e)) => family(e),
            SeriesError::Backtest(BacktestError::Split(_)) | SeriesError::Model(_) => ErrorKind::Input,
        }
    }
}

/// Analyses the measurements `rows` of `file` with `given` (or the best
/// form of its family, see [`FamilyChoice::own`]); with `holdout` (parsed,
/// and as written), backtests against the held-out measurements instead.
///
/// Before anything is fitted, the training measurements are searched for a
/// change of trend ([`trust::regime`]). The recommendation is always of the
/// last segment; without a model file (the family's best form is the
/// model) so are the family and the analysis, and the earlier measurements
/// are returned as set aside. A given model's analysis keeps every
/// measurement: it is the paper's method on the user's data.
pub fn analyse_series(given: &Model, rows: &[Measurement], req: &Request<'_>) -> Result<Series, SeriesError> {
    let Request { file, options: opts, family: choice, holdout } = *req;
    crate::analysis::check_variables(given, rows, file).map_err(SeriesError::Analysis)?;
    let wants_family = choice.set.is_some() || !given.family.is_empty();
    let forms = |train: &[Measurement]| family::forms_of(given, choice.own, choice.set, train, opts);
    // Borrowed where nothing is left out: 10^6 measurements were copied
    // four times here.
    let train: Cow<'_, [Measurement]> = match holdout {
        Some((h, _)) => Cow::Owned(h.train(rows)),
        None => Cow::Borrowed(rows),
    };
    let points = crate::analysis::prediction_points(given, &opts.at);
    // The measurements grouped by point once: every fit below reads the
    // groups (10^6 repetitions were hashed and summed six times).
    let train_tally = crate::fit::Tally::new(&train);
    // A change of trend: judged by the forms that may become the model.
    // Their remax on the training medians serves the forms alike below.
    let medians_remax = trust::MedianRemax::default();
    let regime = if choice.own {
        trust::regime_tallied(&[given], &train, &train_tally, file, opts, Some(&medians_remax))
    } else {
        let fs = forms(&train).map_err(SeriesError::Family)?;
        let models: Vec<&Model> = fs.iter().map(|(m, _)| m).collect();
        trust::regime_tallied(&models, &train, &train_tally, file, opts, Some(&medians_remax))
    };
    let segment = trust::segment(&train, regime.as_ref());
    let segment_tally = match &segment {
        Cow::Borrowed(_) => Cow::Borrowed(&train_tally),
        Cow::Owned(s) => Cow::Owned(crate::fit::Tally::new(s)),
    };
    // What the family and the analysis fit: a discovered model the segment,
    // a given one every training measurement.
    let (fitted, fitted_tally): (&[Measurement], &crate::fit::Tally) =
        if choice.own { (&train, &train_tally) } else { (&segment, &segment_tally) };
    let set_aside: Vec<Measurement> =
        if choice.own { Vec::new() } else { trust::set_aside(&train, regime.as_ref()) };
    // Held-out points are predicted too (the backtest checks them).
    let mut all_points = points.clone();
    if let Some((h, _)) = holdout {
        for i in h.held(rows) {
            if !all_points.contains(&rows[i].x) {
                all_points.push(rows[i].x.clone());
            }
        }
    }
    // Without a model of its own, the family's best form on the data it is
    // fitted to (the training measurements of a backtest) is the model.
    let mut family_fit: Option<FamilyAnalysis> = None;
    let best = if choice.own {
        None
    } else {
        let f = forms(&segment)
            .and_then(|fs| family::analyse(fs, &segment, file, opts, &all_points))
            .map_err(SeriesError::Family)?;
        let m = f.members[0].model.clone();
        family_fit = Some(f);
        Some(m)
    };
    let model = best.as_ref().unwrap_or(given);
    // The rows the analysis sees, and the held-out ones.
    let fit_rows: Cow<'_, [Measurement]> = match holdout {
        Some((h, _)) => {
            let held = h.held(rows);
            fitted.iter().cloned().chain(held.iter().map(|&i| rows[i].clone())).collect()
        }
        None => Cow::Borrowed(fitted),
    };
    let (analysis, mut backtest) = match holdout {
        Some((h, text)) => {
            // A discovered model's family is already fitted to the training
            // measurements, at every point the backtest checks.
            let build = wants_family && family_fit.is_none();
            let family: Option<&backtest::FamilyForms<'_>> = if build { Some(&forms) } else { None };
            let mut b = backtest::run(model, &fit_rows, file, opts, h, text, family)
                .map_err(SeriesError::Backtest)?;
            match &family_fit {
                None => family_fit = b.family.take(),
                Some(f) => {
                    for (l, hull) in f.levels.iter().zip(&f.hull) {
                        let bands: Vec<Option<Band>> =
                            hull.iter().map(|h| h.as_ref().map(|h| h.measurement.clone())).collect();
                        b.add(&fit_rows, &f.points, &l.threshold.text, backtest::Kind::Family, &bands);
                    }
                }
            }
            (b.analysis.clone(), Some(b))
        }
        None => (
            Analysis::run_tallied(model, fitted, fitted_tally, file, opts).map_err(SeriesError::Analysis)?,
            None,
        ),
    };
    if wants_family && family_fit.is_none() {
        let pts: Vec<Vec<Rat>> = analysis.predictions.iter().map(|p| p.x.clone()).collect();
        let f = forms(fitted)
            .and_then(|fs| family::analyse(fs, fitted, file, opts, &pts))
            .map_err(SeriesError::Family)?;
        family_fit = Some(f);
    }
    // The recommendation at the analysis' points; a family already checked
    // its best form at the same points.
    let pts: Vec<Vec<Rat>> = analysis.predictions.iter().map(|p| p.x.clone()).collect();
    let done = family_fit
        .as_ref()
        .filter(|f| f.points == pts && !choice.own)
        .and_then(|f| f.members[0].check.clone());
    // The analysis was of the same model on the same rows (no backtest,
    // nothing set aside): its fit and remax serve the recommendation.
    let same = backtest.is_none() && std::ptr::eq(fitted_tally, &*segment_tally);
    let (recommendation, recommendation_error) = match trust::recommend_tallied(
        model,
        &segment,
        &segment_tally,
        same.then_some(&analysis),
        file,
        opts,
        &pts,
        regime,
        done,
    ) {
        Ok(mut r) => {
            // The family band at `trusted`, for a form too short for its
            // self-check.
            let trusted: Option<Vec<_>> = family_fit.as_ref().filter(|f| f.points == pts).and_then(|f| {
                let t = f.levels.iter().position(|l| l.threshold.is_trusted())?;
                Some(
                    f.hull
                        .get(t)?
                        .iter()
                        .map(|h| h.as_ref().map(|h| (h.measurement.clone(), h.forms)))
                        .collect(),
                )
            });
            if let Some(bands) = trusted {
                trust::widen_unchecked(&mut r, &bands);
            }
            // The form is the family's best: the forms ranked alike with it
            // are as likely.
            if let Some(f) = family_fit.as_ref().filter(|f| f.points == pts && !choice.own) {
                if let Some(t) = f.levels.iter().position(|l| l.threshold.is_trusted()) {
                    // With repetitions, a form alike must also fit the
                    // medians as the chosen one's trusted bound on them asks.
                    // The medians are made for the first form of the tier
                    // besides the best, if any.
                    let bound = r.trusted.centres.as_ref().and_then(|(b, _)| b.as_ref());
                    let medians = std::cell::OnceCell::new();
                    let median_rows =
                        || medians.get_or_init(|| trust::centres_of(&segment_tally).map(|(rows, _)| rows));
                    let fits = |m: &crate::family::Member| {
                        bound.is_none_or(|b| {
                            median_rows().as_ref().is_none_or(|rows| {
                                // The training medians unless a regime set
                                // scales aside.
                                let known = matches!(segment, Cow::Borrowed(_)).then_some(&medians_remax);
                                trust::fits_medians(&m.model, rows, b, file, opts, known)
                            })
                        })
                    };
                    // When the chosen band rests on the medians alone, so
                    // does each alike form's, at the same bound on them.
                    let on_medians = r
                        .trusted
                        .from_medians()
                        .and_then(|(b, spread)| Some((b, spread, median_rows().as_ref()?)));
                    let alike = match on_medians {
                        Some((b, spread, rows)) => f.alike_by(t, fits, |m| {
                            trust::median_bands(&m.model, rows, b, spread, file, &pts)
                        }),
                        None => f.alike(t, fits),
                    };
                    trust::widen_to_alike(&mut r, &alike);
                }
            }
            (Some(r), None)
        }
        Err(e) => (None, Some(e.to_string())),
    };
    if let (Some(b), Some(r)) = (backtest.as_mut(), &recommendation) {
        let bands: Vec<Option<Band>> = r.points.iter().map(|p| p.band.clone()).collect();
        b.add(&fit_rows, &pts, "recommended", backtest::Kind::Recommended, &bands);
    }
    let segment = (backtest.is_none() && !set_aside.is_empty()).then(|| segment.into_owned());
    Ok(Series {
        best,
        analysis,
        backtest,
        family: family_fit,
        recommendation,
        recommendation_error,
        set_aside,
        segment,
    })
}

/// One series and what its analysis gave.
pub struct Entry<'a> {
    /// The series (built for the analysis when the parts are an
    /// experiment's, and dropped with the entry).
    pub part: Cow<'a, Part>,
    /// Its model (Extra-P's models differ per series; without a model
    /// file, the family's best form for the series).
    pub model: std::borrow::Cow<'a, Model>,
    /// The analysis, or why it failed.
    pub outcome: Result<Analysis, SeriesError>,
    /// With `--holdout`: the backtest the analysis belongs to.
    pub backtest: Option<crate::backtest::Backtest>,
    /// With a family (`--family`, `family` lines): the family on the series.
    pub family: Option<crate::family::FamilyAnalysis>,
    /// The recommended band of the next measurement.
    pub recommendation: Option<crate::trust::Recommendation>,
    /// Measurements set aside before a change of trend.
    pub set_aside: Vec<crate::data::Measurement>,
    /// The measurements analysed, when they are not the series' own (set
    /// aside before a change of trend).
    pub segment: Option<Vec<crate::data::Measurement>>,
}

impl Entry<'_> {
    /// The measurements the analysis was fitted to.
    pub fn rows(&self) -> &[crate::data::Measurement] {
        match (&self.backtest, &self.segment) {
            (Some(b), _) => &b.train,
            (None, Some(s)) => s,
            (None, None) => &self.part.dataset.rows,
        }
    }
}

/// A pruned re-analysis shown next to the full one.
#[derive(Debug, Clone)]
pub struct Pruned {
    /// Indices (into the full data) of the dropped measurements.
    pub dropped: Vec<usize>,
    /// The analysis without them.
    pub analysis: Analysis,
}

/// Which QE problem [`qe_problem`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QeProblem {
    /// e_max (Orii & Anai's eq. 6): ∃c over the residual system with the
    /// threshold `e` free; solving it gives `e_max <= e`.
    Emax,
    /// The region at the first threshold (eq. 5/7).
    Region,
}

/// The QE problem behind an analysis as `.qe` text that `errband qe`
/// solves, with a comment header naming the model's file and `file`: over the
/// parameters themselves (`c = C + Δc`), for the model (or, without one,
/// the family's best form: see [`analyse_series`]) on `rows`.
pub fn qe_problem(
    given: &Model,
    rows: &[Measurement],
    req: &Request<'_>,
    which: QeProblem,
) -> Result<String, SeriesError> {
    let Request { file, options: opts, family: choice, .. } = *req;
    let best = if choice.own { None } else { analyse_series(given, rows, req)?.best };
    let model = best.as_ref().unwrap_or(given);
    let design = crate::fit::Design::new(model, rows, file)
        .map_err(|e| SeriesError::Analysis(AnalysisError::Fit(e)))?;
    let threshold = match which {
        QeProblem::Emax => None,
        QeProblem::Region => {
            let an = Analysis::run_rows(model, rows, file, opts).map_err(SeriesError::Analysis)?;
            Some(an.regions.first().map(|r| r.bound.clone()).unwrap_or_default())
        }
    };
    let names: Vec<String> = model.params.iter().map(|p| p.name.clone()).collect();
    let p = Analysis::problem(&design, &names, threshold.as_ref());
    let model_name = &given.file;
    let header = match (which, &threshold) {
        (QeProblem::Region, Some(b)) => {
            let at = if b.is_relative() {
                format!("|T - d| <= {} + {}*d", fmt_fraction(&b.absolute), fmt_fraction(&b.relative))
            } else {
                fmt_fraction(&b.absolute)
            };
            format!(
                "# region of {model_name} on {file} at threshold {at} (paper eq. 5/7), over the\n# parameters themselves (c = C + Δc: subtract the fitted C for the Δc region)\n"
            )
        }
        _ => format!(
            "# e_max of {model_name} on {file} (paper eq. 6), over the parameters themselves\n# (c = C + Δc); `errband qe` gives `e_max <= e`\n"
        ),
    };
    Ok(format!("{header}{}\n", crate::qe::output::qe_problem(&p)))
}

/// Every series of an experiment analysed as [`analyse_series`] analyses
/// one, in parallel, as the experiment report's entries in series order.
/// `model` is every series' model, unless `per_series` gives one per
/// series (Extra-P's models), each or why it could not be built. The
/// regions' cylindrical forms are left out: they are most of a whole
/// experiment's run and little of its report (vertices and bands are exact
/// without them; a single series shows them).
///
/// Every analysis is held at once; [`analyse_experiment_each`] streams.
pub fn analyse_experiment<'a>(
    parts: &'a Parts,
    model: &'a Model,
    per_series: &'a [Result<Model, SeriesError>],
    req: &Request<'_>,
) -> Vec<Entry<'a>> {
    let mut all = Vec::with_capacity(parts.len());
    let _ = analyse_experiment_each(
        parts,
        model,
        per_series,
        req,
        |e| e,
        |e| {
            all.push(e);
            Ok::<(), std::convert::Infallible>(())
        },
    );
    all
}

/// Series analysed at once by [`analyse_experiment_each`] per thread: enough
/// to keep every thread busy past a slow series (each run ends when its
/// slowest series does: 64 instead of 16 took 0.96x the wall time on
/// 15 000 two-point series), few enough that the rendered series in
/// flight stay a small part of memory (an analysis is dropped as soon as
/// it is rendered).
const IN_FLIGHT_PER_THREAD: usize = 64;

/// [`IN_FLIGHT_PER_THREAD`] under a deadline (`--timeout`): a run started
/// before it is finished, so shorter runs stop closer to it.
const IN_FLIGHT_PER_THREAD_TIMED: usize = 16;

/// [`analyse_experiment`], streamed: the series are analysed in parallel a
/// few at a time, each entry is passed to `map` on the thread that analysed
/// it (to render it, say) and the results to `each` in series order, and
/// nothing is kept. Memory is the analyses in flight, not the experiment.
/// The first error `each` returns stops the run. With a deadline
/// ([`Options::deadline`]) no series is started once it has passed (those in
/// flight finish): the result says how many were analysed.
pub fn analyse_experiment_each<'a, T: Send, E>(
    parts: &'a Parts,
    model: &'a Model,
    per_series: &'a [Result<Model, SeriesError>],
    req: &Request<'_>,
    map: impl Fn(Entry<'a>) -> T + Sync,
    mut each: impl FnMut(T) -> Result<(), E>,
) -> Result<Finished, E> {
    use rayon::prelude::*;
    let opts = &Options { no_cells: true, ..req.options.clone() };
    let req = &Request { options: opts, ..*req };
    let per_thread = if opts.deadline.is_some() { IN_FLIGHT_PER_THREAD_TIMED } else { IN_FLIGHT_PER_THREAD };
    let chunk = per_thread * rayon::current_num_threads().max(1);
    let analyse = |i: usize| -> Option<Entry<'a>> {
        let part = parts.get(i)?;
        let given = match per_series.get(i) {
            None => model,
            Some(Ok(m)) => m,
            Some(Err(e)) => {
                let outcome = Err(e.clone());
                return Some(Entry {
                    part,
                    model: Cow::Borrowed(model),
                    outcome,
                    backtest: None,
                    family: None,
                    recommendation: None,
                    set_aside: Vec::new(),
                    segment: None,
                });
            }
        };
        let outcome = analyse_series(given, &part.dataset.rows, req);
        Some(match outcome {
            Ok(s) => Entry {
                part,
                model: s.best.map_or(Cow::Borrowed(given), Cow::Owned),
                outcome: Ok(s.analysis),
                backtest: s.backtest,
                family: s.family,
                recommendation: s.recommendation,
                set_aside: s.set_aside,
                segment: s.segment,
            },
            Err(e) => Entry {
                part,
                model: Cow::Borrowed(given),
                outcome: Err(e),
                backtest: None,
                family: None,
                recommendation: None,
                set_aside: Vec::new(),
                segment: None,
            },
        })
    };
    let n = parts.len();
    let mut starts = (0..n).step_by(chunk);
    // The next run of series is analysed while `each` takes the last one.
    let run = crate::pipeline::pipelined(
        || starts.next(),
        |start: usize| {
            let started = opts.deadline.is_none_or(|d| std::time::Instant::now() < d);
            let done = started.then(|| {
                (start..n.min(start + chunk))
                    .into_par_iter()
                    .filter_map(|i| analyse(i).map(&map))
                    .collect::<Vec<T>>()
            });
            (start, done)
        },
        |(start, done)| match done {
            None => Err(Halt::Deadline(start)),
            Some(done) => done.into_iter().try_for_each(|t| each(t).map_err(Halt::Each)),
        },
    );
    match run {
        Ok(()) => Ok(Finished::All),
        Err(Halt::Deadline(analysed)) => Ok(Finished::Stopped { analysed }),
        Err(Halt::Each(e)) => Err(e),
    }
}

/// Why [`analyse_experiment_each`]'s pipeline stopped early.
enum Halt<E> {
    /// The deadline had passed before this series' run was started.
    Deadline(usize),
    /// `each` failed.
    Each(E),
}

/// How far [`analyse_experiment_each`] went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finished {
    /// Every series was analysed.
    All,
    /// The deadline ([`Options::deadline`]) came first: the first
    /// `analysed` series were analysed and handed on, the rest not started.
    Stopped {
        /// How many series were analysed.
        analysed: usize,
    },
}

/// How a message names an option: the command line's flag (`--drop p=7`)
/// or the Python keyword (`drop="p=7"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    /// `--drop`, `--drop-row`.
    Cli,
    /// `drop=`, `drop_rows=`.
    Python,
}

impl Spelling {
    /// The option named `cli` on the command line and `py` in Python, with
    /// its text value, as a message begins with it.
    fn arg(self, cli: &str, py: &str, value: &str) -> String {
        match self {
            Spelling::Cli => format!("{cli} {value}"),
            Spelling::Python => format!("{py}={value:?}"),
        }
    }
}

/// The columns model discovery reads from a CSV table, as the user named
/// them (`--x`, `--y`, `--by`, `--delimiter`; Python's `x=`, `y=`, `by=`).
#[derive(Debug, Clone, Copy, Default)]
pub struct DiscoveryColumns<'a> {
    /// The variables named (`--x VAR=COLUMN`): their names. Empty: every
    /// column but the measured one and the `by` ones.
    pub x: &'a [String],
    /// The measured column; `None`: the last.
    pub y: Option<&'a str>,
    /// The columns that split the rows into series.
    pub by: &'a [String],
    /// The field delimiter; `None`: detected.
    pub delimiter: Option<crate::data::dialect::Delimiter>,
}

/// Why model discovery has no model to start from (its message is spelled
/// for the command line or for Python).
#[derive(Debug, Clone)]
pub struct DiscoveryError(pub String);

impl std::fmt::Display for DiscoveryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DiscoveryError {}

impl Classified for DiscoveryError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Input
    }
}

/// The model a family is built on when no model is given (model
/// discovery, `errband DATA`): `T(vars) = c0` over an experiment's
/// parameters, or a CSV table's columns but the measured one and the `by`
/// ones (the named variables instead, when given). Returns the model and
/// the measured column of a CSV table. Both front ends call this, so the
/// command line and Python read a table alike and explain alike why its
/// columns cannot be variables.
pub fn discovery_base(
    source: &crate::data::Source<'_>,
    cols: &DiscoveryColumns<'_>,
    digits: u32,
    limits: &crate::limits::Limits,
    spelling: Spelling,
) -> Result<(Model, Option<String>), DiscoveryError> {
    use crate::data::Source;
    let (vars, y): (Vec<String>, Option<String>) = match source {
        Source::Experiment { experiment, .. } => (experiment.params.clone(), None),
        Source::Csv(text) => {
            let names = crate::data::column_names(text, cols.delimiter);
            let y =
                cols.y.map(str::to_string).or_else(|| names.last().cloned()).unwrap_or_else(|| "T".into());
            let vars = if cols.x.is_empty() {
                names.into_iter().filter(|c| *c != y && !cols.by.contains(c)).collect()
            } else {
                cols.x.to_vec()
            };
            (vars, Some(y))
        }
    };
    if vars.is_empty() {
        return Err(DiscoveryError(match spelling {
            Spelling::Cli => "without a model file: the data name no variable (a CSV file needs a column besides the measured one)",
            Spelling::Python => "without a model: the data name no variable (a CSV table needs a column besides the measured one)",
        }.into()));
    }
    let func = if vars.iter().any(|v| v == "T") { "T_" } else { "T" };
    let names: Vec<&str> = vars.iter().map(String::as_str).collect();
    let m = crate::model::Spec::new(func, &names, "c0")
        .params(&["c0"])
        .build("(no model file)", digits, limits)
        .map_err(|d| {
            // Every column but the measured one taken: the table's own
            // columns show how to choose.
            let text_columns = match source {
                Source::Csv(text) if cols.x.is_empty() && vars.len() > 1 => {
                    Some(crate::data::text_columns(text, cols.delimiter))
                }
                _ => None,
            };
            DiscoveryError(unnamed_variables_message(&vars, &d.message, text_columns.as_deref(), spelling))
        })?;
    Ok((m, y))
}

/// The warning model discovery attaches to a CSV table whose variables it
/// took by default (every column but the measured one, `y`) when it took
/// more than one, so that a statistic read as a variable
/// (`p,mean,sd,median`) is seen; `None` for a single variable.
pub fn default_variables_warning(vars: &[String], y: &str, spelling: Spelling) -> Option<String> {
    (vars.len() > 1).then(|| {
        let (without, x, y_arg) = match spelling {
            Spelling::Cli => ("without a model file", "--x VAR=COLUMN", "--y"),
            Spelling::Python => ("without a model", "x={VAR: COLUMN}", "y="),
        };
        format!(
            "{without} the variables are every column but the measured one: {} (measured: {y}); if some are not variables, choose them with {x} and the measured column with {y_arg}",
            crate::data::quoted_list(vars)
        )
    })
}

/// The message when the variables model discovery took from the data
/// cannot all be names in the model language (`why`, the model's own
/// complaint: "`min` is a reserved word"). `text_columns`, given when the
/// variables were every column of a CSV table but the measured one, are
/// its columns whose first row is not a number ([`crate::data::text_columns`]):
/// the message then says how to choose the columns, with the table's own
/// as examples (a numeric one for a variable; the text columns that lead
/// the table, its keys, for groups).
fn unnamed_variables_message(
    vars: &[String],
    why: &str,
    text_columns: Option<&[String]>,
    spelling: Spelling,
) -> String {
    let listed = crate::data::quoted_list(vars);
    let first = vars.first().map_or("", String::as_str);
    let Some(text) = text_columns else {
        return match spelling {
            Spelling::Cli => format!(
                "without a model file: the variables {listed} cannot all be names in errband's model language ({why}); name them with --x, e.g. --x 's={first}', or give a model file"
            ),
            Spelling::Python => format!(
                "without a model: the variables {listed} cannot all be names in errband's model language ({why}); name them with x=, e.g. x={{\"s\": {first:?}}}, or give a model"
            ),
        };
    };
    let scale = vars.iter().find(|v| !text.contains(v)).map_or(first, String::as_str);
    // The text columns before the first number: a table's keys lead it
    // (`mpi,variable,Ranks,...`); later text columns label statistics.
    let keys: Vec<&str> = vars.iter().take_while(|v| text.contains(v)).map(String::as_str).collect();
    match spelling {
        Spelling::Cli => {
            let by = if keys.is_empty() {
                String::new()
            } else {
                format!(" (here perhaps --by {})", keys.join(","))
            };
            format!(
                "without a model file every column but the measured one (--y, else the last) is a variable, and {listed} cannot all be names in errband's model language ({why}); say which columns to use: --x VAR=COLUMN for each variable (e.g. --x p={scale}), --y COLUMN for the measured one, --by COLUMNS to split the rows into series{by}; or give a model file"
            )
        }
        Spelling::Python => {
            let by = if keys.is_empty() { String::new() } else { format!(" (here perhaps by={keys:?})") };
            format!(
                "without a model every column but the measured one (y=, else the last) is a variable, and {listed} cannot all be names in errband's model language ({why}); say which columns to use: x={{VAR: COLUMN}} for the variables (e.g. x={{\"p\": {scale:?}}}), y=COLUMN for the measured one, by=[COLUMNS] to split the rows into series{by}; or give a model"
            )
        }
    }
}

/// Why measurements could not be dropped, or the data without them not
/// analysed.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum DropError {
    /// A point or row that names no measurement (the whole message).
    Input(String),
    /// The analysis without the dropped measurements failed.
    Refit(AnalysisError),
}

impl std::fmt::Display for DropError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DropError::Input(m) => write!(f, "{m}"),
            DropError::Refit(e) => write!(f, "after dropping: {e}"),
        }
    }
}

impl std::error::Error for DropError {}

impl Classified for DropError {
    fn kind(&self) -> ErrorKind {
        match self {
            DropError::Input(_) => ErrorKind::Input,
            DropError::Refit(e) => e.kind(),
        }
    }
}

/// Indices of the measurements of `rows` at any of the points `drop`
/// (`p=110`, `p=10..30:10`) or numbered `drop_rows` (1 is the first).
/// Each point must hold a measurement and each number name one.
pub fn dropped(
    model: &Model,
    rows: &[Measurement],
    drop: &[String],
    drop_rows: &[usize],
    spelling: Spelling,
) -> Result<Vec<usize>, DropError> {
    let what = match spelling {
        Spelling::Cli => "--drop",
        Spelling::Python => "drop",
    };
    let mut out = Vec::new();
    for d in drop {
        let assigns = crate::model::syntax::parse_assignments_arg(d, what, model.limits())
            .map_err(|e| DropError::Input(e.render(d)))?;
        let points = model.points(&assigns, what, d).map_err(|e| DropError::Input(e.render(d)))?;
        let hit: Vec<usize> = (0..rows.len()).filter(|&i| points.contains(&rows[i].x)).collect();
        if hit.is_empty() {
            return Err(DropError::Input(format!(
                "{}: no measurement is at that point",
                spelling.arg("--drop", "drop", d)
            )));
        }
        out.extend(hit);
    }
    for &r in drop_rows {
        if r == 0 || r > rows.len() {
            let arg = match spelling {
                Spelling::Cli => format!("--drop-row {r}"),
                Spelling::Python => format!("drop_rows={r}"),
            };
            return Err(DropError::Input(format!(
                "{arg}: there are {} measurements (rows 1..{})",
                rows.len(),
                rows.len()
            )));
        }
        out.push(r - 1);
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// `model` analysed again on `rows` without the measurements `dropped`
/// (indices, from [`dropped`]), at the prediction points of `analysis`
/// (the analysis of every row): what `--drop` compares.
pub fn without(
    model: &Model,
    rows: &[Measurement],
    file: &str,
    opts: &Options,
    analysis: &Analysis,
    dropped: Vec<usize>,
) -> Result<Pruned, DropError> {
    let kept: Vec<Measurement> =
        crate::data::kept_rows(rows.len(), &dropped).into_iter().map(|i| rows[i].clone()).collect();
    let mut popts = opts.clone();
    popts.at = analysis.predictions.iter().map(|p| p.x.clone()).collect();
    let mut pmodel = model.clone();
    pmodel.predict.clear();
    let pa = Analysis::run_rows(&pmodel, &kept, file, &popts).map_err(DropError::Refit)?;
    Ok(Pruned { dropped, analysis: pa })
}
