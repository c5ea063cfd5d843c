//! `errband._native`: the Python package's bridge to the errband library.
//!
//! Every function takes text (a model, a CSV table, a QE problem) and
//! returns the command line's JSON document, so that Python sees exactly
//! the values, and the shape, that `errband … --format json` writes
//! (`schemas/*.schema.json`). The pure-Python layer (`errband/__init__.py`)
//! turns it into `fractions.Fraction` columns and pandas DataFrames. The
//! exact work runs without the GIL.

use errband::analysis::Options;
use errband::backtest::Holdout;
use errband::data::detect::{self, Kind};
use errband::data::experiment::{Aggregate, Selection};
use errband::data::{ColumnSpec, Parts, Source};
use errband::limits::Limits;
use errband::model::{syntax, Model};
use errband::num::{parse_rat, Rat};
use errband::report::experiment::{Entry, ExperimentReport};
use errband::report::{figures, Report};
use errband::session::{self, FamilyChoice};
use errband::threshold::Threshold;
use errband::{Classified, ErrorKind};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    _native,
    ErrbandError,
    PyException,
    "An input errband cannot read (a located message, with carets where it has a place), or an analysis that is impossible."
);

/// An error for Python: the message the command line prints, and whether
/// it is an input error (`"input"`) or an impossible analysis
/// (`"analysis"`), as the second argument.
fn fail(message: String, kind: ErrorKind) -> PyErr {
    let kind = match kind {
        ErrorKind::Input => "input",
        ErrorKind::Analysis => "analysis",
    };
    ErrbandError::new_err((message, kind))
}

/// The data argument: text (CSV, Extra-P text or JSON) with a name, or a
/// path (any format errband reads, CUBE directories included).
enum DataArg {
    Text(String, String),
    Path(String),
}

/// Reads the data as the command line does, for `model`'s variables.
fn read_parts(
    model: &Model,
    data: &DataArg,
    sel: &Selection,
    limits: &Limits,
) -> Result<(String, Parts), PyErr> {
    let spec =
        ColumnSpec { vars: model.vars.clone(), y: model.func.clone(), limits: *limits, ..Default::default() };
    let input = |e: errband::data::DataError, text: &str| fail(e.render(text), ErrorKind::Input);
    let (name, text, bytes) = match data {
        DataArg::Text(text, name) => (name.clone(), text.clone(), Vec::new()),
        DataArg::Path(path) => {
            if std::path::Path::new(path).is_dir() {
                let exp = errband::data::cube::read_cube_set(std::path::Path::new(path), path, *limits)
                    .map_err(|e| input(e, ""))?;
                let parts = Source::experiment(exp)
                    .parts(path, &spec, sel, Aggregate::All)
                    .map_err(|e| input(e, ""))?;
                return Ok((path.clone(), parts));
            }
            let bytes = std::fs::read(path).map_err(|e| fail(format!("{path}: {e}"), ErrorKind::Input))?;
            match detect::sniff(&bytes, path) {
                Kind::ExtrapArchive => (path.clone(), String::new(), bytes),
                _ => {
                    let text = String::from_utf8(bytes)
                        .map_err(|_| fail(format!("{path}: not UTF-8 text"), ErrorKind::Input))?;
                    (path.clone(), text, Vec::new())
                }
            }
        }
    };
    let kind = if bytes.is_empty() { detect::sniff(text.as_bytes(), &name) } else { Kind::ExtrapArchive };
    let exp = match kind {
        Kind::Text => {
            let src = Source::text(&text, &name, *limits, sel).map_err(|e| input(e, &text))?;
            let parts = src.parts(&name, &spec, sel, Aggregate::All).map_err(|e| input(e, &text))?;
            return Ok((name, parts));
        }
        Kind::ExtrapArchive => errband::data::archive::read_extrap_archive(&bytes, &name, *limits),
        Kind::Json => errband::data::json::read_json(&text, &name, *limits),
        Kind::JsonLines => errband::data::json::read_jsonl(&text, &name, *limits),
        Kind::Talpas => errband::data::json::read_talpas(&text, &name, *limits),
        other => {
            return Err(fail(
                format!("{name}: this is {}; errband reads it only as the command line explains (run `errband MODEL {name}`)", other.describe()),
                ErrorKind::Input,
            ))
        }
    }
    .map_err(|e| input(e, &text))?;
    let parts =
        Source::experiment(exp).parts(&name, &spec, sel, Aggregate::All).map_err(|e| input(e, &text))?;
    Ok((name, parts))
}

/// The settings of an analysis from Python.
struct Request {
    model_text: String,
    model_name: String,
    data: DataArg,
    thresholds: Vec<String>,
    at: Vec<String>,
    noise: String,
    decimal: usize,
    pmnf: bool,
    holdout: Option<String>,
    sel: Selection,
}

/// The analysis as the command line's JSON: `("analysis", json, band svg)`
/// for one series, `("experiment", json, "")` for several.
fn analyse_inner(r: &Request) -> Result<(String, String, String), PyErr> {
    let limits = Limits::default();
    let digits = errband::num::transcendental::DEFAULT_DIGITS;
    let mut model = Model::parse_with(&r.model_text, &r.model_name, digits, &limits)
        .map_err(|d| fail(d.render(&r.model_text), ErrorKind::Input))?;
    let (data_name, parts) = read_parts(&model, &r.data, &r.sel, &limits)?;
    model.complete_units(&parts.parts[0].dataset.units);
    let noise: Rat = parse_rat(&r.noise)
        .map_err(|_| fail(format!("noise {}: expected a number", r.noise), ErrorKind::Input))?;
    let mut ts = Vec::with_capacity(r.thresholds.len());
    for t in &r.thresholds {
        ts.push(Threshold::parse_with_noise(t, &noise).map_err(|d| fail(d.render(t), ErrorKind::Input))?);
    }
    if ts.is_empty() {
        ts = vec![
            Threshold::parse("max").map_err(|d| fail(d.message, ErrorKind::Input))?,
            Threshold::trusted(&noise),
        ];
    }
    let mut points: Vec<Vec<Rat>> = Vec::new();
    for s in &r.at {
        let assigns = syntax::parse_assignments_arg(s, "at", &limits)
            .map_err(|d| fail(d.render(s), ErrorKind::Input))?;
        for p in model.points(&assigns, "at", s).map_err(|d| fail(d.render(s), ErrorKind::Input))? {
            if !points.contains(&p) {
                points.push(p);
            }
        }
    }
    let hold = match &r.holdout {
        Some(h) => Some(Holdout::parse(h, &model.vars).map_err(|d| fail(d.render(h), ErrorKind::Input))?),
        None => None,
    };
    let holdout = hold.as_ref().zip(r.holdout.as_deref());
    let choice = FamilyChoice::own(r.pmnf);
    let mut opts = Options { thresholds: ts, at: points, limits, ..Options::default() };
    if parts.parts.len() > 1 {
        // As the command line: the cylindrical forms of every series are
        // left out (vertices and bands are exact without them).
        opts.no_cells = true;
        let entries = parts
            .parts
            .iter()
            .map(|part| {
                let s =
                    session::analyse_series(&model, &part.dataset.rows, &data_name, &opts, choice, holdout);
                let (outcome, backtest, family) = match s {
                    Ok(s) => (Ok(s.analysis), s.backtest, s.family),
                    Err(e) => {
                        (Err((e.to_string(), if e.kind() == ErrorKind::Input { 2 } else { 1 })), None, None)
                    }
                };
                Entry { part, model: std::borrow::Cow::Borrowed(&model), outcome, backtest, family }
            })
            .collect();
        let report = ExperimentReport {
            model: &model,
            discovered: false,
            data_file: &data_name,
            format: parts.format,
            total: parts.total,
            aggregate: Aggregate::All,
            entries,
            digits: r.decimal,
            exact: false,
            plot_at: None,
        };
        let json = serde_json::to_string(&report.json())
            .map_err(|e| fail(format!("cannot write JSON: {e}"), ErrorKind::Analysis))?;
        return Ok(("experiment".into(), json, String::new()));
    }
    let rows = &parts.parts[0].dataset.rows;
    let series = session::analyse_series(&model, rows, &data_name, &opts, choice, holdout)
        .map_err(|e| fail(e.to_string(), e.kind()))?;
    let report = Report {
        model: &model,
        data_file: &data_name,
        data: series.backtest.as_ref().map_or(rows, |b| &b.train),
        analysis: &series.analysis,
        pruned: None,
        function: None,
        scales: [None, None],
        digits: r.decimal,
        exact: false,
        warnings: &parts.parts[0].dataset.warnings,
        backtest: series.backtest.as_ref(),
        family: series.family.as_ref(),
        plot_at: None,
    };
    let mut json = Vec::new();
    report.write_json(&mut json).map_err(|e| fail(format!("cannot write JSON: {e}"), ErrorKind::Analysis))?;
    let json = String::from_utf8(json).map_err(|e| fail(e.to_string(), ErrorKind::Analysis))?;
    Ok(("analysis".into(), json, figures::band(&report)))
}

/// Analyses `model` (`.tm` text) on the data: the data is `data_text`
/// (named `data_name`) or, when `data_path` is given, that file or CUBE
/// directory. Returns `(kind, json, svg)`: `kind` is `"analysis"` (the JSON
/// of `errband MODEL DATA --format json`, and the band plot) or
/// `"experiment"` (the JSON of a whole experiment, one entry per series).
#[pyfunction]
#[pyo3(signature = (model, model_name, data_text, data_name, data_path, thresholds, at, noise, decimal, pmnf, holdout, callpath, metric))]
#[allow(clippy::too_many_arguments)]
fn analyse(
    py: Python<'_>,
    model: String,
    model_name: String,
    data_text: String,
    data_name: String,
    data_path: Option<String>,
    thresholds: Vec<String>,
    at: Vec<String>,
    noise: String,
    decimal: usize,
    pmnf: bool,
    holdout: Option<String>,
    callpath: Option<String>,
    metric: Option<String>,
) -> PyResult<(String, String, String)> {
    let r = Request {
        model_text: model,
        model_name,
        data: match data_path {
            Some(p) => DataArg::Path(p),
            None => DataArg::Text(data_text, data_name),
        },
        thresholds,
        at,
        noise,
        decimal,
        pmnf,
        holdout,
        sel: Selection { callpath, metric },
    };
    py.detach(|| analyse_inner(&r))
}

/// Solves a QE problem (`errband qe` syntax): the JSON document of
/// `errband qe FILE --format json`, with vertices.
#[pyfunction]
#[pyo3(signature = (problem, name))]
fn qe(py: Python<'_>, problem: String, name: String) -> PyResult<String> {
    py.detach(|| {
        let limits = Limits::default();
        let p = errband::qe::syntax::parse_problem_with(&problem, &name, &limits)
            .map_err(|d| fail(d.render(&problem), ErrorKind::Input))?;
        let opts = errband::qe::Options { limits, ..Default::default() };
        let result = errband::qe::solve(&p, &opts).map_err(|e| fail(e.to_string(), e.kind()))?;
        let mut v = errband::qe::output::json(&result, errband::num::NumFormat::Exact, true);
        v["errband"] = serde_json::Value::String(errband::VERSION.into());
        serde_json::to_string(&v).map_err(|e| fail(format!("cannot write JSON: {e}"), ErrorKind::Analysis))
    })
}

/// The Python module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(analyse, m)?)?;
    m.add_function(wrap_pyfunction!(qe, m)?)?;
    m.add("ErrbandError", m.py().get_type::<ErrbandError>())?;
    m.add("__version__", errband::VERSION)?;
    Ok(())
}
