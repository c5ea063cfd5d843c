//! One series analysed as the main command does it: the model (or, without
//! one, the best form of a family), the analysis or a backtest against
//! held-out measurements, and the family's band. The command line (one
//! series or each series of an experiment) and the Python package call
//! [`analyse_series`]; only their outputs differ.

use crate::analysis::{Analysis, AnalysisError, Options};
use crate::backtest::{self, Backtest, BacktestError, Holdout};
use crate::data::{Measurement, Part};
use crate::error::{Classified, ErrorKind};
use crate::family::{self, FamilyAnalysis, FamilyError};
use crate::model::Model;
use crate::num::Rat;
use crate::report::experiment::Entry;
use std::borrow::Cow;

/// Which forms make the family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FamilyChoice {
    /// The given model is a member (and the analysed model). False without
    /// a model file: the family's best form is then the model.
    pub own: bool,
    /// Extra-P's performance-model normal forms are members
    /// (`--family pmnf`).
    pub pmnf: bool,
}

impl FamilyChoice {
    /// The choice of the main command: the model's own form, and Extra-P's
    /// forms when `pmnf`.
    pub fn own(pmnf: bool) -> FamilyChoice {
        FamilyChoice { own: true, pmnf }
    }
}

/// What [`analyse_series`] found.
#[derive(Debug, Clone)]
pub struct Series {
    /// Without a model of its own ([`FamilyChoice::own`] false): the
    /// family's best form, the model analysed.
    pub best: Option<Model>,
    /// The analysis (of the training measurements, with a holdout).
    pub analysis: Analysis,
    /// With a holdout: the backtest.
    pub backtest: Option<Backtest>,
    /// The family, when the model has `family` lines, or Extra-P's forms
    /// were asked for, or the model was chosen from them.
    pub family: Option<FamilyAnalysis>,
}

/// Why a series could not be analysed.
#[derive(Debug, Clone)]
pub enum SeriesError {
    /// The analysis failed.
    Analysis(AnalysisError),
    /// The family could not be analysed.
    Family(FamilyError),
    /// The backtest could not be done.
    Backtest(BacktestError),
}

impl std::fmt::Display for SeriesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        fn family(e: &FamilyError, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            match e {
                FamilyError::NoForm(e) => write!(f, "no form of the family could be fitted: {e}"),
                FamilyError::Form(d) => write!(f, "{}", d.message),
                e @ FamilyError::TooMany { .. } => write!(f, "--family: {e}"),
            }
        }
        match self {
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
            SeriesError::Backtest(BacktestError::Split(_)) => ErrorKind::Input,
        }
    }
}

/// Analyses the measurements `rows` of `file` with `given` (or the best
/// form of its family, see [`FamilyChoice::own`]); with `holdout` (parsed,
/// and as written), backtests against the held-out measurements instead.
pub fn analyse_series(
    given: &Model,
    rows: &[Measurement],
    file: &str,
    opts: &Options,
    choice: FamilyChoice,
    holdout: Option<(&Holdout, &str)>,
) -> Result<Series, SeriesError> {
    let wants_family = choice.pmnf || !given.family.is_empty();
    let forms = |train: &[Measurement]| family::forms_of(given, choice.own, choice.pmnf, train, opts);
    // Without a model of its own, the family's best form on the data it is
    // fitted to (the training measurements of a backtest) is the model.
    let mut family_all: Option<FamilyAnalysis> = None;
    let best = if choice.own {
        None
    } else {
        let fit_rows = match holdout {
            Some((h, _)) => h.train(rows),
            None => rows.to_vec(),
        };
        let points = crate::analysis::prediction_points(given, &opts.at);
        let f = forms(&fit_rows)
            .and_then(|fs| family::analyse(fs, &fit_rows, file, opts, &points))
            .map_err(SeriesError::Family)?;
        let m = f.members[0].model.clone();
        if holdout.is_none() {
            family_all = Some(f);
        }
        Some(m)
    };
    let model = best.as_ref().unwrap_or(given);
    if let Some((h, text)) = holdout {
        let family: Option<&backtest::FamilyForms<'_>> = if wants_family { Some(&forms) } else { None };
        let mut b = backtest::run(model, rows, file, opts, h, text, family).map_err(SeriesError::Backtest)?;
        return Ok(Series { best, analysis: b.analysis.clone(), family: b.family.take(), backtest: Some(b) });
    }
    let analysis = Analysis::run_rows(model, rows, file, opts).map_err(SeriesError::Analysis)?;
    if wants_family && family_all.is_none() {
        let points: Vec<Vec<Rat>> = analysis.predictions.iter().map(|p| p.x.clone()).collect();
        let f = forms(rows)
            .and_then(|fs| family::analyse(fs, rows, file, opts, &points))
            .map_err(SeriesError::Family)?;
        family_all = Some(f);
    }
    Ok(Series { best, analysis, backtest: None, family: family_all })
}

/// Every series of an experiment analysed as [`analyse_series`] analyses
/// one, in parallel, as the experiment report's entries in series order.
/// `model` is every series' model, unless `per_series` gives one per
/// series (Extra-P's models), each or why it could not be built (message,
/// exit code). The regions' cylindrical forms are left out: they are most
/// of a whole experiment's run and little of its report (vertices and
/// bands are exact without them; a single series shows them).
pub fn analyse_experiment<'a>(
    parts: &'a [Part],
    model: &'a Model,
    per_series: &'a [Result<Model, (String, i32)>],
    file: &str,
    opts: &Options,
    choice: FamilyChoice,
    holdout: Option<(&Holdout, &str)>,
) -> Vec<Entry<'a>> {
    use rayon::prelude::*;
    let opts = &Options { no_cells: true, ..opts.clone() };
    parts
        .par_iter()
        .enumerate()
        .map(|(i, part)| {
            let given = match per_series.get(i) {
                None => model,
                Some(Ok(m)) => m,
                Some(Err(e)) => {
                    let outcome = Err(e.clone());
                    return Entry {
                        part,
                        model: Cow::Borrowed(model),
                        outcome,
                        backtest: None,
                        family: None,
                    };
                }
            };
            match analyse_series(given, &part.dataset.rows, file, opts, choice, holdout) {
                Ok(s) => Entry {
                    part,
                    model: s.best.map_or(Cow::Borrowed(given), Cow::Owned),
                    outcome: Ok(s.analysis),
                    backtest: s.backtest,
                    family: s.family,
                },
                Err(e) => Entry {
                    part,
                    model: Cow::Borrowed(given),
                    outcome: Err((e.to_string(), e.kind().exit_code())),
                    backtest: None,
                    family: None,
                },
            }
        })
        .collect()
}
