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
use errband::data::experiment::{Aggregate, Selection};
use errband::data::{ColumnSpec, Parts, Source};
use errband::limits::Limits;
use errband::model::Model;
use errband::num::Rat;
use errband::report::experiment::{ExperimentReport, Section};
use errband::report::plan::PlanReport;
use errband::report::prune::PruneReport;
use errband::report::{figures, CommandReport, Report};
use errband::session::{self, FamilyChoice};
use errband::threshold::Threshold;
use errband::{Classified, ErrorKind};
use num_bigint::BigInt;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    _native,
    ErrbandError,
    PyException,
    "An input errband cannot read (a located message, with carets where it has a place), or an analysis that is impossible."
);
create_exception!(
    _native,
    InputError,
    ErrbandError,
    "An input errband cannot read: a model, data, a point or an option (kind \"input\")."
);
create_exception!(
    _native,
    AnalysisError,
    ErrbandError,
    "An analysis that is impossible on readable input, or one over a limit (kind \"analysis\")."
);

/// An error for Python: [`InputError`] or [`AnalysisError`] with the
/// message the command line prints (options named as Python names them,
/// [`python_names`]) and the kind (`"input"` or `"analysis"`) as its two
/// arguments.
fn fail(message: String, kind: ErrorKind) -> PyErr {
    let message = python_names(&message);
    match kind {
        ErrorKind::Input => InputError::new_err((message, "input")),
        // A kind added later is the analysis' until this module names it.
        _ => AnalysisError::new_err((message, "analysis")),
    }
}

/// A library message with the command line's option names (`--y COLUMN`,
/// `--x p=COLUMN`, `--region and --metric`) in Python's (`y="COLUMN"`,
/// `x={"p": "COLUMN"}`, `callpath= and metric=`). Only the options of
/// `analyse`, `prune` and `plan` are renamed; the other commands' options
/// keep the command line's spelling, which their Python functions take as
/// text.
fn python_names(message: &str) -> String {
    // (flag, keyword, how its value is written: quoted token, x's mapping, or left as is)
    const FLAGS: [(&str, &str, u8); 12] = [
        ("--max-candidates", "max_candidates", 0),
        ("--candidate", "candidates", 0),
        ("--aggregate", "aggregate", 1),
        ("--drop-row", "drop_rows", 0),
        ("--holdout", "holdout", 0),
        ("--family", "family", 0),
        ("--region", "callpath", 0),
        ("--metric", "metric", 0),
        ("--drop", "drop", 0),
        ("--by", "by", 1),
        ("--x", "x", 2),
        ("--y", "y", 1),
    ];
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    'scan: while let Some(i) = rest.find("--") {
        out.push_str(&rest[..i]);
        let at = &rest[i..];
        for (flag, py, how) in FLAGS {
            let Some(after) = at.strip_prefix(flag) else { continue };
            // A whole flag: not the start of a longer one.
            if after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
                continue;
            }
            let token_end = |t: &str| {
                t.find(|c: char| c.is_whitespace() || matches!(c, '`' | ':' | ',' | ')' | ';'))
                    .unwrap_or(t.len())
            };
            match (how, after.strip_prefix(' ')) {
                (1, Some(t)) if !t.is_empty() && !t.starts_with(['(', '-']) => {
                    let n = token_end(t);
                    out.push_str(&format!("{py}={:?}", &t[..n]));
                    rest = &t[n..];
                }
                (2, Some(t)) if t[..token_end(t)].contains('=') => {
                    let n = token_end(t);
                    let (v, c) = t[..n].split_once('=').unwrap_or((&t[..n], ""));
                    out.push_str(&format!("{py}={{{v:?}: {c:?}}}"));
                    rest = &t[n..];
                }
                _ => {
                    out.push_str(py);
                    if !after.starts_with(':') {
                        out.push('=');
                    }
                    // `--region `main``: `callpath=`main``.
                    rest = after.strip_prefix(" `").map_or(after, |_| &after[1..]);
                }
            }
            continue 'scan;
        }
        out.push_str("--");
        rest = &at[2..];
    }
    out.push_str(rest);
    out
}

/// A text file read as the command line reads its inputs
/// ([`errband::data::decode`]: a byte-order mark dropped, lone CRs read as
/// line ends, a bad byte located).
fn read_text(path: &str) -> Result<String, PyErr> {
    let bytes = std::fs::read(path).map_err(|e| fail(format!("{path}: {e}"), ErrorKind::Input))?;
    errband::data::decode(bytes, path).map_err(|m| fail(m, ErrorKind::Input))
}

/// A model or QE file's text, read as the command line reads it
/// ([`read_text`]).
#[pyfunction]
fn read_file(path: String) -> PyResult<String> {
    read_text(&path)
}

/// A model's function name and its parameters in declaration order, read
/// by errband's own parser (`errband.dask` names its columns after them).
#[pyfunction]
fn model_names(text: String, name: String) -> PyResult<(String, Vec<String>)> {
    let m = Model::from_source(&text, &name).map_err(|d| fail(d.render(&text), ErrorKind::Input))?;
    Ok((m.func, m.params.into_iter().map(|p| p.name).collect()))
}

/// The data argument: text (CSV, Extra-P text or JSON) with a name, or a
/// path (any format errband reads, CUBE directories included).
enum DataArg {
    Text(String, String),
    Path(String),
}

/// How the data's columns become the model's variables and measured
/// value, and its rows series: `x=`, `y=`, `by=`, `aggregate=` (the
/// command line's `--x`, `--y`, `--by`, `--aggregate`).
#[derive(Default, Clone)]
struct Columns {
    /// Model variable and the column (or Extra-P parameter) it reads.
    x: Vec<(String, String)>,
    /// The column of the measured value.
    y: Option<String>,
    /// Columns whose values split a CSV table into series.
    by: Vec<String>,
    /// How the repetitions at a point enter the fit.
    aggregate: Aggregate,
}

/// The aggregate's name (`aggregate="mean"`) as the library's choice.
fn aggregate_of(name: &str) -> Result<Aggregate, PyErr> {
    [Aggregate::All, Aggregate::Mean, Aggregate::Median, Aggregate::Min, Aggregate::Max]
        .into_iter()
        .find(|a| a.name() == name)
        .ok_or_else(|| {
            fail(
                format!("aggregate={name:?}: expected \"all\", \"mean\", \"median\", \"min\" or \"max\""),
                ErrorKind::Input,
            )
        })
}

/// The model a family is built on when no model is given
/// (`session::discovery_base` with the columns `x=`, `y=` and `by=` name).
fn base_model(
    source: &Source<'_>,
    cols: &Columns,
    digits: u32,
    limits: &Limits,
) -> Result<(Model, Option<String>), PyErr> {
    let x: Vec<String> = cols.x.iter().map(|(v, _)| v.clone()).collect();
    let named = session::DiscoveryColumns { x: &x, y: cols.y.as_deref(), by: &cols.by, delimiter: None };
    session::discovery_base(source, &named, digits, limits, session::Spelling::Python)
        .map_err(|e| fail(e.to_string(), ErrorKind::Input))
}

/// Reads the model (or, without one, builds the base model of model
/// discovery) and the data, as the command line's `input::load` does, with
/// the columns chosen by `cols`.
fn read_parts(
    model: Option<(&str, &str)>,
    data: &DataArg,
    sel: &Selection,
    cols: &Columns,
    limits: &Limits,
) -> Result<(Model, String, Parts), PyErr> {
    let digits = errband::num::transcendental::DEFAULT_DIGITS;
    let input = |m: String| fail(m, ErrorKind::Input);
    let (name, dir, bytes) = match data {
        DataArg::Text(text, name) => (name.as_str(), None, text.clone().into_bytes()),
        DataArg::Path(path) => match std::path::Path::new(path) {
            d if d.is_dir() => (path.as_str(), Some(d), Vec::new()),
            _ => (path.as_str(), None, std::fs::read(path).map_err(|e| input(format!("{path}: {e}")))?),
        },
    };
    // As the command line reads its data: the kind from the content, text
    // decoded (a byte-order mark dropped, lone CRs read as line ends).
    let (kind, text, bytes) = errband::data::decode_input(bytes, name).map_err(input)?;
    let source = Source::read(dir, kind, &text, &bytes, name, *limits, sel).map_err(input)?;
    if let (Source::Experiment { experiment, .. }, false) = (&source, cols.by.is_empty()) {
        return Err(input(format!(
            "by={:?}: applies to CSV tables, and {name} is {} input; its series are chosen with callpath= and metric=",
            cols.by.join(","),
            experiment.format.name()
        )));
    }
    let (model, y_default) = match model {
        Some((text, file)) => {
            let m = Model::parse_with(text, file, digits, limits).map_err(|d| input(d.render(text)))?;
            (m, None)
        }
        None => base_model(&source, cols, digits, limits)?,
    };
    let mut rename = std::collections::BTreeMap::new();
    for (v, c) in &cols.x {
        if !model.vars.contains(v) {
            return Err(input(format!(
                "x={{{v:?}: {c:?}}}: `{v}` is not a variable of the model ({})",
                model.vars.join(", ")
            )));
        }
        rename.insert(v.clone(), c.clone());
    }
    // (Only a CSV table read without a model has a default column.)
    let y_default_taken = y_default.is_some();
    // The measured value and each variable need a column of their own.
    let y_column = cols.y.clone().or_else(|| y_default.clone()).unwrap_or_else(|| model.func.clone());
    let mut owner: std::collections::BTreeMap<String, &String> = std::collections::BTreeMap::new();
    for v in &model.vars {
        let c = rename.get(v).cloned().unwrap_or_else(|| v.clone());
        if c == y_column {
            let arg =
                if cols.y.is_some() { format!("y={y_column:?}") } else { format!("x={{{v:?}: {c:?}}}") };
            return Err(input(format!(
                "{arg}: the column `{c}` would be both the variable `{v}` and the measured value; name another column"
            )));
        }
        if let Some(other) = owner.insert(c.clone(), v) {
            return Err(input(format!(
                "x: the variables `{other}` and `{v}` would both read the column `{c}`; give each its own column"
            )));
        }
    }
    let spec = ColumnSpec {
        vars: model.vars.clone(),
        y: model.func.clone(),
        rename,
        y_column: cols.y.clone().or(y_default),
        region: sel.callpath.clone(),
        metric: sel.metric.clone(),
        limits: *limits,
        by: cols.by.clone(),
        delimiter: None,
    };
    let mut parts =
        source.into_parts(name, &spec, sel, cols.aggregate).map_err(|e| input(e.render(&text)))?;
    // Variables taken by default from a table: say which (as the command
    // line does).
    if let (Some(y), true) = (&spec.y_column, y_default_taken && cols.x.is_empty()) {
        if let Some(w) = session::default_variables_warning(&model.vars, y, session::Spelling::Python) {
            parts.warn(w);
        }
    }
    Ok((model, name.to_string(), parts))
}

/// The settings of an analysis from Python.
struct Request {
    /// The model's text and name; `None`: model discovery.
    model: Option<(String, String)>,
    data: DataArg,
    thresholds: Vec<String>,
    at: Vec<String>,
    noise: String,
    decimal: usize,
    /// `family=`: a set of generated forms.
    family: Option<errband::family::FamilySet>,
    holdout: Option<String>,
    sel: Selection,
    cols: Columns,
    /// `drop=` points and `drop_rows=` numbers.
    drop: Vec<String>,
    drop_rows: Vec<usize>,
    /// What the caller takes: one series, an experiment, or either.
    shape: Shape,
    /// `max_candidates=` (`--max-candidates`): the most candidates of a
    /// search, and form × point bands of a family.
    max_candidates: usize,
}

/// The result the caller asked for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// One series: an experiment's data is refused.
    Series,
    /// An experiment's JSON, even of one series.
    Experiment,
    /// One series when the data holds one, else an experiment.
    Either,
}

/// The model, the data's series and the options every command shares.
struct Prepared {
    model: Model,
    data_name: String,
    parts: Parts,
    opts: Options,
}

/// Parses the model, reads the data and the thresholds and `--at` points,
/// as the command line's `input::load` does.
fn prepare(r: &Request) -> Result<Prepared, PyErr> {
    let mut limits = Limits::default();
    limits.candidates = r.max_candidates;
    let model = r.model.as_ref().map(|(t, n)| (t.as_str(), n.as_str()));
    let (mut model, data_name, parts) = read_parts(model, &r.data, &r.sel, &r.cols, &limits)?;
    model.complete_units(&parts.first().dataset.units);
    let input = |m: String| fail(m, ErrorKind::Input);
    let noise = errband::threshold::parse_noise(&r.noise).map_err(|m| input(format!("noise {m}")))?;
    let ts = Threshold::parse_list(&r.thresholds, &noise).map_err(input)?;
    let at = points(&model, &r.at, "at")?;
    Ok(Prepared {
        model,
        data_name,
        parts,
        opts: Options::default().thresholds(ts).at(at).limits(limits).noise(noise),
    })
}

/// Points written as the command line's `--at` takes them (`p=1000`,
/// `p=100..800:100`), expanded, each once.
fn points(model: &Model, texts: &[String], what: &str) -> Result<Vec<Vec<Rat>>, PyErr> {
    model.points_args(texts, what).map_err(|m| fail(m, ErrorKind::Input))
}

/// The one series a command that takes a single series reads.
fn single(p: &Prepared, command: &str) -> Result<(), PyErr> {
    match p.parts.len() {
        1 => Ok(()),
        n => Err(fail(
            format!(
                "{command} takes one series, and {} holds {n}: choose one with callpath= and metric=",
                p.data_name
            ),
            ErrorKind::Input,
        )),
    }
}

/// The targets of prune and plan: the given points, else the model's
/// `predict` points.
fn targets(p: &Prepared, given: &[String]) -> Result<Vec<Vec<Rat>>, PyErr> {
    let t = points(&p.model, given, "target")?;
    if !t.is_empty() {
        return Ok(t);
    }
    if p.model.predict.is_empty() {
        return Err(fail(
            format!("no target: give target= (e.g. \"p=1000\") or a `predict` statement in {}", p.model.file),
            ErrorKind::Input,
        ));
    }
    Ok(p.model.predict.clone())
}

/// `holdout=` as the library reads it: the command line's `--holdout`
/// (`largest`, `largest n`, `p>=512`, `p=512 and n>100`), or `last=N`
/// (also `last N`): the measurements at the N largest values of the first
/// variable among `parts`' measurements (`last=1` is `largest`).
fn holdout_of(text: &str, model: &Model, parts: &Parts) -> Result<Holdout, PyErr> {
    let t = text.trim();
    if let Some(n) = t.strip_prefix("last").filter(|r| r.starts_with(['=', ' '])) {
        let bad = || {
            fail(
                format!("holdout={text:?}: expected last=N with N a whole number from 1, e.g. last=1"),
                ErrorKind::Input,
            )
        };
        let n: usize = n.trim_start_matches([' ', '=']).trim().parse().map_err(|_| bad())?;
        if n == 0 {
            return Err(bad());
        }
        let mut values: Vec<Rat> = parts
            .iter()
            .flat_map(|p| p.dataset.rows.iter().filter_map(|m| m.x.first().cloned()).collect::<Vec<_>>())
            .collect();
        values.sort_unstable();
        values.dedup();
        let Some(from) = values.len().checked_sub(n).map(|i| values[i].clone()) else {
            return Err(fail(
                format!(
                    "holdout={text:?}: the data have {} values of `{}`, so nothing would be left to fit",
                    values.len(),
                    model.vars[0]
                ),
                ErrorKind::Input,
            ));
        };
        return Ok(Holdout::Where(vec![(0, errband::backtest::Op::Ge, from)]));
    }
    Holdout::parse(text, &model.vars).map_err(|d| fail(d.render(text), ErrorKind::Input))
}

/// The analysis: one series kept for its views, or a whole experiment's
/// JSON.
fn analyse_inner(r: &Request) -> Result<Analysed, PyErr> {
    let Prepared { model, data_name, parts, opts } = prepare(r)?;
    let hold = r.holdout.as_deref().map(|h| holdout_of(h, &model, &parts)).transpose()?;
    let holdout = hold.as_ref().zip(r.holdout.as_deref());
    let choice = match (&r.model, r.family) {
        (Some(_), set) => FamilyChoice::own(set),
        (None, set) => FamilyChoice::discover(set.unwrap_or(errband::family::FamilySet::Scaling)),
    };
    let n = parts.len();
    let dropping = !r.drop.is_empty() || !r.drop_rows.is_empty();
    if holdout.is_some() && dropping {
        return Err(fail(
            "holdout= and drop= both leave measurements out; give one".into(),
            ErrorKind::Input,
        ));
    }
    if n > 1 && r.shape == Shape::Series {
        return Err(fail(
            format!("analyse_series takes one series, and {data_name} holds {n}: choose one with callpath= and metric=, or call analyse_experiment"),
            ErrorKind::Input,
        ));
    }
    if n > 1 || r.shape == Shape::Experiment {
        if dropping {
            return Err(fail(
                format!("drop= and drop_rows= apply to one series, and {data_name} is analysed as an experiment ({n} series); choose one with callpath= and metric=, and call analyse_series"),
                ErrorKind::Input,
            ));
        }
        // Streamed as the command line does: each series rendered and
        // dropped, the document assembled from the spooled sections.
        let mut report = ExperimentReport::new(
            &model,
            !choice.own,
            &data_name,
            parts.format,
            parts.total,
            r.cols.aggregate,
            r.decimal,
            false,
            None,
            &[Section::Json],
        );
        let renderer = report.renderer();
        let io_fail = |e: std::io::Error| fail(format!("cannot write JSON: {e}"), ErrorKind::Analysis);
        let request = session::Request::new(&data_name, &opts).family(choice).holdout(holdout);
        session::analyse_experiment_each(
            &parts,
            &model,
            &[],
            &request,
            |e| renderer.render(e),
            |x| report.push(x),
        )
        .map_err(io_fail)?;
        let mut out = Vec::new();
        report.write_json(&mut out).map_err(io_fail)?;
        let json = String::from_utf8(out)
            .map_err(|e| fail(format!("cannot write JSON: {e}"), ErrorKind::Analysis))?;
        return Ok(Analysed::Experiment(json));
    }
    let part =
        parts.into_vec().into_iter().next().ok_or_else(|| fail("no series".into(), ErrorKind::Input))?;
    let series = session::analyse_series(
        &model,
        &part.dataset.rows,
        &session::Request::new(&data_name, &opts).family(choice).holdout(holdout),
    )
    .map_err(|e| {
        // The backtest names the holdout as the command line writes it.
        let mut m = e.to_string();
        if let Some(h) = &r.holdout {
            m = m.replace(&format!("--holdout {h}"), &format!("holdout={h:?}"));
        }
        fail(m, e.kind())
    })?;
    let pruned = if dropping {
        let m = series.best.as_ref().unwrap_or(&model);
        let rows = series.rows(&part.dataset.rows);
        let err = |e: session::DropError| fail(e.to_string(), e.kind());
        let d = session::dropped(m, rows, &r.drop, &r.drop_rows, session::Spelling::Python).map_err(err)?;
        Some(session::without(m, rows, &data_name, &opts, &series.analysis, d).map_err(err)?)
    } else {
        None
    };
    Ok(Analysed::One(Box::new(Outcome {
        model,
        data_name,
        dataset: part.dataset,
        series,
        pruned,
        decimal: r.decimal,
    })))
}

/// What an analysis gave: one series (kept, for views built on demand), or
/// an experiment's JSON.
enum Analysed {
    One(Box<Outcome>),
    Experiment(String),
}

/// One series' analysis, kept on the Rust side: Python asks for the JSON,
/// the band plot or a table's columns when it needs them.
#[pyclass(frozen, module = "errband._native")]
struct Outcome {
    model: Model,
    data_name: String,
    dataset: errband::data::Dataset,
    series: session::Series,
    /// With `drop=`: the analysis without the dropped measurements.
    pruned: Option<errband::report::Pruned>,
    decimal: usize,
}

impl Outcome {
    fn report(&self) -> Report<'_> {
        Report {
            model: self.series.best.as_ref().unwrap_or(&self.model),
            data_file: &self.data_name,
            data: self.rows(),
            analysis: &self.series.analysis,
            pruned: self.pruned.as_ref(),
            function: None,
            scales: [None, None],
            digits: self.decimal,
            exact: false,
            warnings: &self.dataset.warnings,
            backtest: self.series.backtest.as_ref(),
            family: self.series.family.as_ref(),
            plot_at: None,
            recommendation: self.series.recommendation.as_ref(),
            recommendation_error: self.series.recommendation_error.as_deref(),
            discovered: self.series.best.is_some(),
            set_aside: &self.series.set_aside,
        }
    }

    /// The measurements analysed (the training ones of a backtest).
    fn rows(&self) -> &[errband::data::Measurement] {
        self.series.rows(&self.dataset.rows)
    }
}

/// An exact value for Python: numerator and denominator as ints (in lowest
/// terms, denominator positive; no digit limit on the way, unlike `int(str)`).
fn parts_of(x: &Rat) -> (BigInt, BigInt) {
    (x.numer().clone(), x.denom().clone())
}

/// One exact column for Python: numerators, denominators (ints) and floats
/// (correctly rounded views).
type Column = (Vec<Py<PyAny>>, Vec<Py<PyAny>>, Vec<f64>);

/// An integer as a Python int: one- and two-word values directly (a big
/// integer's conversion goes through bytes, 1.5 µs each under abi3).
fn py_int(py: Python<'_>, n: &BigInt) -> PyResult<Py<PyAny>> {
    use num_traits::ToPrimitive;
    if let Some(v) = n.to_i64() {
        return Ok(v.into_pyobject(py)?.into_any().unbind());
    }
    if let Some(v) = n.to_i128() {
        return Ok(v.into_pyobject(py)?.into_any().unbind());
    }
    Ok(n.into_pyobject(py)?.into_any().unbind())
}

fn column(py: Python<'_>, values: &[Rat]) -> PyResult<Column> {
    let mut c: Column = (Vec::with_capacity(values.len()), Vec::with_capacity(values.len()), Vec::new());
    c.2 = py.detach(|| values.iter().map(errband::num::to_f64).collect());
    for v in values {
        c.0.push(py_int(py, v.numer())?);
        c.1.push(py_int(py, v.denom())?);
    }
    Ok(c)
}

#[pymethods]
impl Outcome {
    /// The JSON document of `errband MODEL DATA --format json`.
    fn json(&self, py: Python<'_>) -> PyResult<String> {
        py.detach(|| {
            let mut out = Vec::new();
            self.report()
                .write_json(&mut out)
                .map_err(|e| fail(format!("cannot write JSON: {e}"), ErrorKind::Analysis))?;
            String::from_utf8(out).map_err(|e| fail(e.to_string(), ErrorKind::Analysis))
        })
    }

    /// The band plot (`--plot band=FILE`) as SVG.
    fn svg(&self, py: Python<'_>) -> String {
        py.detach(|| figures::band(&self.report()))
    }

    /// The answer section of the command line's text report (`Answer (* =
    /// extrapolated)`, a line per prediction point and the notes), or why
    /// there is no recommended band.
    fn answer(&self, py: Python<'_>) -> String {
        py.detach(|| self.report().answer_section())
    }

    /// Why there is no recommended band (`None` when there is one).
    fn recommendation_error(&self) -> Option<String> {
        self.series.recommendation_error.clone()
    }

    /// The answer's notes (what the bands assume, the self-check, a change
    /// of trend), one sentence each.
    fn answer_notes(&self, py: Python<'_>) -> Vec<String> {
        py.detach(|| self.report().answer_notes())
    }

    /// Per form of the family, in rank order: its number of coefficients
    /// and its cross-validated prediction error (`None`: not made), which
    /// the JSON does not carry.
    fn family_extra(&self) -> Vec<(usize, Option<(BigInt, BigInt)>)> {
        self.series.family.as_ref().map_or_else(Vec::new, |f| {
            f.members.iter().map(|m| (m.model.params.len(), m.loo.as_ref().map(parts_of))).collect()
        })
    }

    /// e_max as (numerator, denominator).
    fn emax(&self) -> (BigInt, BigInt) {
        parts_of(&self.series.analysis.emax)
    }

    /// The parameters: names and (numerator, denominator) values.
    fn params(&self) -> Vec<(String, (BigInt, BigInt))> {
        let m = self.series.best.as_ref().unwrap_or(&self.model);
        m.params
            .iter()
            .zip(&self.series.analysis.params)
            .map(|(p, v)| (p.name.clone(), parts_of(v)))
            .collect()
    }

    /// The residual table as columns: `row`, `line`, each variable,
    /// `measured`, `model`, `residual` (exact columns as (nums, dens,
    /// floats)); `model − measured` is the residual.
    #[allow(clippy::type_complexity)]
    fn residual_columns(&self, py: Python<'_>) -> PyResult<(Vec<usize>, Vec<usize>, Vec<(String, Column)>)> {
        let rows = self.rows();
        let model = self.series.best.as_ref().unwrap_or(&self.model);
        let exact: Vec<(String, Vec<Rat>)> = py.detach(|| {
            let a = &self.series.analysis;
            // One reduction per distinct point, not per measurement.
            let mut cache: std::collections::HashMap<usize, Rat> = std::collections::HashMap::new();
            let t: Vec<Rat> = (0..rows.len())
                .map(|i| {
                    let g = a.design.group_of[i];
                    cache.entry(g).or_insert_with(|| a.residuals.value(g)).clone()
                })
                .collect();
            let mut cols: Vec<(String, Vec<Rat>)> = model
                .vars
                .iter()
                .enumerate()
                .map(|(j, v)| (v.clone(), rows.iter().map(|m| m.x[j].clone()).collect()))
                .collect();
            cols.push(("measured".into(), rows.iter().map(|m| m.y.clone()).collect()));
            let residual = rows.iter().zip(&t).map(|(m, t)| errband::num::sub_lowest(t, &m.y)).collect();
            cols.push(("residual".into(), residual));
            cols.push(("model".into(), t));
            cols
        });
        let mut cols = Vec::with_capacity(exact.len());
        for (name, values) in &exact {
            cols.push((name.clone(), column(py, values)?));
        }
        Ok(((1..=rows.len()).collect(), rows.iter().map(|m| m.line).collect(), cols))
    }
}

/// `family=` as the library's set of forms.
fn family_of(family: Option<&str>) -> Result<Option<errband::family::FamilySet>, PyErr> {
    use errband::family::FamilySet;
    match family {
        None => Ok(None),
        Some("pmnf") => Ok(Some(FamilySet::Pmnf)),
        Some("scaling") => Ok(Some(FamilySet::Scaling)),
        Some(f) => {
            Err(fail(format!("family={f:?}: expected None, \"pmnf\" or \"scaling\""), ErrorKind::Input))
        }
    }
}

/// `x=` (variable, column pairs), `y=`, `by=` and `aggregate=`, as Python
/// passes them.
type ColumnArgs = (Vec<(String, String)>, Option<String>, Vec<String>, String);

/// Analyses `model` (`.tm` text; `None`: the best form of `family`, found
/// from the data) on the data: the data is `data_text` (named `data_name`)
/// or, when `data_path` is given, that file or CUBE directory; `columns`
/// and `drop` are the command line's `--x`, `--y`, `--by`, `--aggregate`,
/// `--drop` and `--drop-row`. Returns an [`Outcome`] for one series, or the
/// JSON of a whole experiment (one entry per series) as a string; `shape`
/// (`"series"`, `"experiment"`, or `"either"`) says which the caller takes.
#[pyfunction]
#[pyo3(signature = (model, model_name, data_text, data_name, data_path, thresholds, at, noise, decimal, family, holdout, callpath, metric, columns, drop, shape, max_candidates))]
#[allow(clippy::too_many_arguments)]
fn analyse(
    py: Python<'_>,
    model: Option<String>,
    model_name: String,
    data_text: String,
    data_name: String,
    data_path: Option<String>,
    thresholds: Vec<String>,
    at: Vec<String>,
    noise: String,
    decimal: usize,
    family: Option<String>,
    holdout: Option<String>,
    callpath: Option<String>,
    metric: Option<String>,
    columns: ColumnArgs,
    drop: (Vec<String>, Vec<usize>),
    shape: String,
    max_candidates: usize,
) -> PyResult<Py<PyAny>> {
    let family = family_of(family.as_deref())?;
    let (x, y, by, aggregate) = columns;
    let r = Request {
        model: model.map(|m| (m, model_name)),
        data: match data_path {
            Some(p) => DataArg::Path(p),
            None => DataArg::Text(data_text, data_name),
        },
        thresholds,
        at,
        noise,
        decimal,
        family,
        holdout,
        sel: Selection { callpath, metric },
        cols: Columns { x, y, by, aggregate: aggregate_of(&aggregate)? },
        drop: drop.0,
        drop_rows: drop.1,
        shape: match shape.as_str() {
            "series" => Shape::Series,
            "experiment" => Shape::Experiment,
            _ => Shape::Either,
        },
        max_candidates,
    };
    match py.detach(|| analyse_inner(&r))? {
        Analysed::One(o) => Ok(Py::new(py, *o)?.into_any()),
        Analysed::Experiment(json) => Ok(json.into_pyobject(py)?.into_any().unbind()),
    }
}

/// The model, data and threshold arguments of prune, plan and barrier's
/// MPI_Barrier model, as Python passes them: model text and name, data
/// text and name, data path, thresholds, noise, callpath, metric.
type SourceArgs =
    (String, String, String, String, Option<String>, Vec<String>, String, Option<String>, Option<String>);

/// The request of [`SourceArgs`].
fn request(source: SourceArgs) -> Request {
    let (model, model_name, data_text, data_name, data_path, thresholds, noise, callpath, metric) = source;
    Request {
        model: Some((model, model_name)),
        data: match data_path {
            Some(p) => DataArg::Path(p),
            None => DataArg::Text(data_text, data_name),
        },
        thresholds,
        at: Vec::new(),
        noise,
        decimal: 6,
        family: None,
        holdout: None,
        sel: Selection { callpath, metric },
        cols: Columns::default(),
        drop: Vec::new(),
        drop_rows: Vec::new(),
        shape: Shape::Either,
        max_candidates: Limits::default().candidates,
    }
}

/// A command's report as its JSON text.
fn command_json(r: &dyn CommandReport) -> Result<String, PyErr> {
    serde_json::to_string(&r.json()).map_err(|e| fail(format!("cannot write JSON: {e}"), ErrorKind::Analysis))
}

/// `errband prune`: which measurements to leave out. `candidates` are the
/// user's candidates (`"p=10,p=20"`: the points one candidate drops).
/// Returns the JSON of `errband prune ... --format json`.
#[pyfunction]
#[pyo3(signature = (source, target, max_drop, top, greedy, candidates, decimal, show, max_candidates))]
#[allow(clippy::too_many_arguments)]
fn prune(
    py: Python<'_>,
    source: SourceArgs,
    target: Vec<String>,
    max_drop: usize,
    top: Option<usize>,
    greedy: usize,
    candidates: Vec<Vec<String>>,
    decimal: usize,
    show: usize,
    max_candidates: usize,
) -> PyResult<String> {
    let r = Request { max_candidates, ..request(source) };
    py.detach(|| {
        let p = prepare(&r)?;
        single(&p, "prune")?;
        let targets = targets(&p, &target)?;
        let mut user = Vec::new();
        for c in &candidates {
            let mut drop = Vec::new();
            for part in c {
                drop.extend(
                    p.model.dropped_points(part, "candidate").map_err(|m| fail(m, ErrorKind::Input))?,
                );
            }
            user.push((c.join(","), drop));
        }
        let search = errband::prune::Search { max_drop, top, greedy, user };
        let rows = &p.parts.first().dataset.rows;
        let cmp = errband::prune::compare(&p.model, rows, &p.data_name, &p.opts, &targets, &search, &|_| {})
            .map_err(|e| match e {
                errband::prune::PruneError::TooMany(n, limit) => fail(
                    format!("max_drop={max_drop} generates {n} candidates (limit {limit}): give top=N to draw them from the N largest residuals, or raise the limit with max_candidates="),
                    ErrorKind::Input,
                ),
                e => fail(e.to_string(), e.kind()),
            })?;
        command_json(&PruneReport {
            model: &p.model,
            data_file: &p.data_name,
            data: rows,
            cmp: &cmp,
            digits: decimal,
            exact: false,
            show,
        })
    })
}

/// `errband plan`: where to measure next. Returns the JSON of `errband
/// plan ... --format json`.
#[pyfunction]
#[pyo3(signature = (source, target, candidates, decimal, show, max_candidates))]
#[allow(clippy::too_many_arguments)]
fn plan(
    py: Python<'_>,
    source: SourceArgs,
    target: Vec<String>,
    candidates: Vec<String>,
    decimal: usize,
    show: usize,
    max_candidates: usize,
) -> PyResult<String> {
    let r = Request { max_candidates, ..request(source) };
    py.detach(|| {
        let p = prepare(&r)?;
        single(&p, "plan")?;
        let targets = targets(&p, &target)?;
        let cands =
            p.model.candidate_points(&candidates, "candidate").map_err(|m| fail(m, ErrorKind::Input))?;
        // Each candidate is a whole re-analysis: the count is checked before
        // the first one starts, as the command line does.
        if cands.len() > max_candidates {
            return Err(fail(
                format!(
                    "candidates: {} candidate points, each a whole re-analysis (limit {max_candidates}; raise it with max_candidates=); give fewer (a coarser step), or raise the limit",
                    cands.len()
                ),
                ErrorKind::Input,
            ));
        }
        let rows = &p.parts.first().dataset.rows;
        let plan = errband::plan::plan(&p.model, rows, &p.data_name, &p.opts, &targets, &cands, &|_| {})
            .map_err(|e| fail(e.to_string(), e.kind()))?;
        command_json(&PlanReport {
            model: &p.model,
            data_file: &p.data_name,
            plan: &plan,
            digits: decimal,
            exact: false,
            show,
        })
    })
}

/// The baseline of a check: a model fitted to data, or a saved result's
/// bands.
enum CheckBase {
    Analysed(Box<Prepared>, FamilyChoice),
    Saved(Vec<errband::check::Expected>),
}

/// `errband check`: new measurements against the recommended band at
/// their scales. The baseline is a saved result (`saved`: the JSON text of
/// `errband MODEL DATA --format json` and its name), or `model` (`.tm` text
/// and name; `None`: the best form of `family`, found from the data) fitted
/// to `data` (text, name, path), read as `analyse` reads them. Each of
/// `new` is (text, name, path): a file of new measurements read from
/// `path`, else `text` (CSV, any data errband reads, or hyperfine's
/// `--export-json`), with the baseline's columns. `fail_on` is `"above"`,
/// `"outside"` or `"never"`. Returns the JSON of `errband check --format
/// json` and the command line's text report.
#[pyfunction]
#[pyo3(signature = (model, data, saved, new, fail_on, family, thresholds, noise, callpath, metric, columns, decimal))]
#[allow(clippy::too_many_arguments)]
fn check(
    py: Python<'_>,
    model: Option<(String, String)>,
    data: Option<(String, String, Option<String>)>,
    saved: Option<(String, String)>,
    new: Vec<(String, String, Option<String>)>,
    fail_on: String,
    family: Option<String>,
    thresholds: Vec<String>,
    noise: String,
    callpath: Option<String>,
    metric: Option<String>,
    columns: ColumnArgs,
    decimal: usize,
) -> PyResult<(String, String)> {
    use errband::check::{self, FailOn, Layout};
    let input = |m: String| fail(m, ErrorKind::Input);
    let checked = |e: check::CheckError| fail(e.to_string(), e.kind());
    let fail_on = match fail_on.as_str() {
        "above" => FailOn::Above,
        "outside" => FailOn::Outside,
        "never" => FailOn::Never,
        f => return Err(input(format!("fail_on={f:?}: expected \"above\", \"outside\" or \"never\""))),
    };
    let family = family_of(family.as_deref())?;
    let (x, y, by, aggregate) = columns;
    let cols = Columns { x, y, by, aggregate: aggregate_of(&aggregate)? };
    let sel = Selection { callpath, metric };
    py.detach(|| {
        // The baseline: a saved result, or a model and data read as the
        // analyse functions read them.
        let base = match (saved, data) {
            (Some((text, name)), _) => {
                CheckBase::Saved(check::expected_from_json(&text, &name).map_err(checked)?)
            }
            (None, Some((data_text, data_name, data_path))) => {
                let choice = match (&model, family) {
                    (Some(_), set) => FamilyChoice::own(set),
                    (None, set) => FamilyChoice::discover(set.unwrap_or(errband::family::FamilySet::Scaling)),
                };
                let r = Request {
                    model,
                    data: match data_path {
                        Some(p) => DataArg::Path(p),
                        None => DataArg::Text(data_text, data_name),
                    },
                    thresholds,
                    at: Vec::new(),
                    noise,
                    decimal,
                    family,
                    holdout: None,
                    sel: sel.clone(),
                    cols: cols.clone(),
                    drop: Vec::new(),
                    drop_rows: Vec::new(),
                    shape: Shape::Either,
                    max_candidates: Limits::default().candidates,
                };
                CheckBase::Analysed(Box::new(prepare(&r)?), choice)
            }
            (None, None) => {
                return Err(input(
                    "give the baseline: a model and its data, the data, or a saved result".into(),
                ))
            }
        };
        // How the new measurements' columns map onto the variables.
        let (layout, y_column, limits) = match &base {
            CheckBase::Analysed(p, _) => {
                let first = &p.parts.first().dataset;
                let y_column = if p.parts.format == errband::data::Format::Csv {
                    Some(first.y_column.clone())
                } else {
                    cols.y.clone()
                };
                (Layout::of_data(&p.model, first), y_column, p.opts.limits)
            }
            CheckBase::Saved(e) => (Layout::of_saved(e, &cols.x), cols.y.clone(), Limits::default()),
        };
        let spec = layout.spec(y_column, &sel, &cols.by, None, limits);
        let mut series = Vec::new();
        for (text, name, path) in new {
            let (bytes, name) = match path {
                Some(p) => (std::fs::read(&p).map_err(|e| input(format!("{p}: {e}")))?, p),
                None => (text.into_bytes(), name),
            };
            let (kind, text, bytes) = errband::data::decode_input(bytes, &name).map_err(input)?;
            series.extend(
                check::read_new(kind, &text, &bytes, &name, &spec, layout.unit.as_deref())
                    .map_err(checked)?,
            );
        }
        // The bands, at the new measurements' scales.
        let expected = match base {
            CheckBase::Saved(e) => e,
            CheckBase::Analysed(p, choice) => {
                let b = check::Baseline {
                    model: &p.model,
                    per_series: &[],
                    parts: &p.parts,
                    file: &p.data_name,
                    opts: &p.opts,
                    choice,
                };
                check::expected_for(&b, &series).map_err(checked)?
            }
        };
        let report = check::check(expected, &series, fail_on).map_err(checked)?;
        let json = serde_json::to_string(&errband::document::check::CheckDocument::new(&report, decimal))
            .map_err(|e| fail(format!("cannot write JSON: {e}"), ErrorKind::Analysis))?;
        Ok((json, errband::report::check::text(&report, decimal)))
    })
}

/// `errband energy`: the DVFS energy predictor on a profile (`profile_text`
/// named `profile_name`, or the file `profile_path`). Options are written as
/// the command line writes them. Returns the command's JSON and its charts
/// (name, SVG).
#[pyfunction]
#[pyo3(signature = (profile_text, profile_name, profile_path, nodes, fstd, base_nodes, overhead, edp, fopt, regions, thresholds, power_total, time_unit, freq_unit, power_unit, precision, decimal))]
#[allow(clippy::too_many_arguments)]
fn energy(
    py: Python<'_>,
    profile_text: String,
    profile_name: String,
    profile_path: Option<String>,
    nodes: Vec<String>,
    fstd: Option<String>,
    base_nodes: Option<String>,
    overhead: Vec<String>,
    edp: bool,
    fopt: Vec<String>,
    regions: Vec<String>,
    thresholds: Vec<String>,
    power_total: bool,
    time_unit: String,
    freq_unit: String,
    power_unit: String,
    precision: u32,
    decimal: usize,
) -> PyResult<(String, Vec<(String, String)>)> {
    use errband::energy::args::TextOptions;
    use errband::energy::input::{DefaultUnits, PowerIs};
    use errband::report::energy::EnergyReport;
    py.detach(|| {
        let limits = Limits::default();
        let o = TextOptions {
            nodes: if nodes.is_empty() { TextOptions::default().nodes } else { nodes },
            fstd,
            base_nodes,
            overhead,
            objective: if edp { errband::energy::Objective::Edp } else { errband::energy::Objective::Energy },
            fopt,
            regions,
            thresholds,
            power: if power_total { PowerIs::Total } else { PowerIs::PerNode },
            units: DefaultUnits { time: time_unit, freq: freq_unit, power: power_unit },
            digits: precision,
        };
        let input = |m: String| fail(m, ErrorKind::Input);
        let settings = o.settings(&limits).map_err(input)?;
        let (text, name) = match profile_path {
            Some(p) => (read_text(&p)?, p),
            None => (profile_text, profile_name),
        };
        let parsed = o.read_profile(&text, &name, &limits).map_err(input)?;
        let pred =
            errband::energy::predict(&parsed, &name, &settings).map_err(|e| fail(e.to_string(), e.kind()))?;
        let report =
            EnergyReport { file: &name, pred: &pred, digits: decimal, exact: false, show_fits: false };
        let charts = report.charts().into_iter().map(|(n, svg)| (n.to_string(), svg)).collect();
        Ok((command_json(&report)?, charts))
    })
}

/// `errband barrier`: chassis barrier network against MPI_Barrier. Times
/// as the command line writes them; the MPI_Barrier reference is `mpi` (a
/// time), or the model `mpi_model` fitted to the data (text or path, as
/// `analyse` takes them), or none. Returns the JSON and the chart's SVG.
#[pyfunction]
#[pyo3(signature = (nodes, per_chassis, root_fanout, inter_fanout, t_ib, t_sr, mpi, conclude_at, unit, mpi_model, decimal))]
#[allow(clippy::too_many_arguments)]
fn barrier(
    py: Python<'_>,
    nodes: Vec<String>,
    per_chassis: u64,
    root_fanout: Option<u64>,
    inter_fanout: Option<u64>,
    t_ib: String,
    t_sr: Vec<String>,
    mpi: Option<String>,
    conclude_at: Vec<u64>,
    unit: String,
    mpi_model: Option<SourceArgs>,
    decimal: usize,
) -> PyResult<(String, String)> {
    use errband::barrier::args::TextOptions;
    use errband::barrier::{MpiModel, Reference};
    use errband::report::barrier::BarrierReport;
    py.detach(|| {
        let limits = Limits::default();
        let o =
            TextOptions { nodes, per_chassis, root_fanout, inter_fanout, t_ib, t_sr, mpi, conclude_at, unit };
        let input = |m: String| fail(m, ErrorKind::Input);
        let unit_factor = o.unit_factor().map_err(input)?;
        let mut settings = o.settings(&limits).map_err(input)?;
        let reference_text = match (&o.mpi, mpi_model) {
            (Some(m), None) => format!("given, {m}"),
            (Some(_), Some(_)) => {
                return Err(input("give mpi (a time) or mpi_model with its data, not both".into()))
            }
            (None, Some(source)) => {
                let p = prepare(&request(source))?;
                single(&p, "barrier")?;
                let rows = p.parts.first().dataset.rows.clone();
                let what = format!("model {} fitted to {}", p.model.file, p.data_name);
                let m =
                    MpiModel::new(p.model, rows, &p.data_name, p.opts.thresholds, false).map_err(input)?;
                settings.reference = Some(Reference::Model(Box::new(m)));
                what
            }
            (None, None) => "none given (--mpi TIME, or --mpi-model MODEL --mpi-data DATA)".into(),
        };
        let pred = errband::barrier::predict(&settings).map_err(|e| fail(e.to_string(), e.kind()))?;
        let report = BarrierReport {
            pred: &pred,
            unit: &o.unit,
            unit_factor: &unit_factor,
            reference_text,
            digits: decimal,
            exact: false,
            preface: String::new(),
        };
        let chart = report.charts().into_iter().next().map(|(_, svg)| svg).unwrap_or_default();
        Ok((command_json(&report)?, chart))
    })
}

/// A file argument from Python: its text and name, from `text` (named
/// `name`) or read from `path`.
fn text_of(
    text: Option<String>,
    name: &str,
    path: Option<String>,
) -> Result<Option<(String, String)>, PyErr> {
    match (text, path) {
        (_, Some(p)) => {
            let t = read_text(&p)?;
            Ok(Some((t, p)))
        }
        (Some(t), None) => Ok(Some((t, name.to_string()))),
        (None, None) => Ok(None),
    }
}

/// `errband ms predict`: master/slave run time from a task file (text or
/// path), options written as the command line writes them; `speeds` and
/// `order` are optional files (text or path). Returns the JSON and the
/// chart's SVG.
#[pyfunction]
#[pyo3(signature = (tasks_text, tasks_path, grid, procs, loggp, k_in, k_out, ratio, no_p1_recv, compare_subsets, unit, max_tasks, speeds_text, speeds_path, order_text, order_path, decimal))]
#[allow(clippy::too_many_arguments)]
fn ms(
    py: Python<'_>,
    tasks_text: Option<String>,
    tasks_path: Option<String>,
    grid: String,
    procs: Vec<String>,
    loggp: String,
    k_in: String,
    k_out: String,
    ratio: String,
    no_p1_recv: bool,
    compare_subsets: Vec<String>,
    unit: String,
    max_tasks: Option<u64>,
    speeds_text: Option<String>,
    speeds_path: Option<String>,
    order_text: Option<String>,
    order_path: Option<String>,
    decimal: usize,
) -> PyResult<(String, String)> {
    use errband::data::tasks::{read_order, read_speeds, read_tasks};
    use errband::ms::args::{Parsed, TextOptions};
    use errband::ms::MsError;
    use errband::report::ms::MsReport;
    let ms_err = |e: MsError| match e {
        MsError::Input(m) => fail(m, ErrorKind::Input),
        MsError::Limit(m) => fail(m, ErrorKind::Analysis),
        e => fail(e.to_string(), ErrorKind::Analysis),
    };
    py.detach(|| {
        let limits = Limits::default();
        let o = TextOptions {
            grid,
            procs,
            loggp,
            k_in,
            k_out,
            ratio,
            no_p1_recv,
            compare_subsets,
            unit,
            max_tasks: max_tasks.unwrap_or(errband::data::tasks::DEFAULT_MAX_TASKS),
        };
        let Parsed { grid, tasks: n_tasks, procs, mut machine, subsets } =
            o.parse(&limits).map_err(ms_err)?;
        let located = |e: errband::data::DataError, text: &str| fail(e.render(text), ErrorKind::Input);
        let speeds = text_of(speeds_text, "<speeds>", speeds_path)?;
        if let Some((text, name)) = &speeds {
            machine.ratios = read_speeds(text, name, &limits).map_err(|e| located(e, text))?;
        }
        let (text, name) = text_of(tasks_text, "<tasks>", tasks_path)?
            .ok_or_else(|| fail("no task file".into(), ErrorKind::Input))?;
        let sampled = read_tasks(&text, &name, &grid, &o.unit, &limits).map_err(|e| located(e, &text))?;
        let order_file = text_of(order_text, "<order>", order_path)?;
        let order = match &order_file {
            Some((t, n)) => Some(read_order(t, n, &grid, n_tasks).map_err(|e| located(e, t))?),
            None => None,
        };
        let (pred, comparison) = if subsets.is_empty() {
            let tasks = errband::ms::Tasks::interpolate(&sampled).map_err(ms_err)?;
            (errband::ms::predict(&tasks, order.as_deref(), &machine, &procs).map_err(ms_err)?, None)
        } else {
            let c = errband::ms::compare_subsets(&sampled, &subsets, order.as_deref(), &machine, &procs)
                .map_err(ms_err)?;
            (c.full.clone(), Some(c))
        };
        let report = MsReport {
            file: &name,
            grid: &grid,
            sub_grid: sampled.axes.iter().map(Vec::len).collect(),
            machine: &machine,
            speeds_file: speeds.as_ref().map(|s| s.1.as_str()),
            order_file: order_file.as_ref().map(|s| s.1.as_str()),
            pred: &pred,
            comparison: comparison.as_ref(),
            digits: decimal.clamp(1, 40),
            exact: false,
            per_slave: false,
        };
        let chart = report.charts().into_iter().next().map(|(_, svg)| svg).unwrap_or_default();
        Ok((command_json(&report)?, chart))
    })
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
        let opts = errband::qe::Options::default().limits(limits);
        let result = errband::qe::solve(&p, &opts).map_err(|e| fail(e.to_string(), e.kind()))?;
        let doc = errband::document::qe::QeDocument {
            header: errband::document::Header::new(errband::document::Command::Qe),
            result: errband::document::qe::QeResultDoc::new(&result, errband::num::NumFormat::Exact, true),
        };
        serde_json::to_string(&errband::document::to_value(&doc))
            .map_err(|e| fail(format!("cannot write JSON: {e}"), ErrorKind::Analysis))
    })
}

/// The Python module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(analyse, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(read_file, m)?)?;
    m.add_function(wrap_pyfunction!(model_names, m)?)?;
    m.add_function(wrap_pyfunction!(qe, m)?)?;
    m.add_function(wrap_pyfunction!(prune, m)?)?;
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    m.add_function(wrap_pyfunction!(energy, m)?)?;
    m.add_function(wrap_pyfunction!(barrier, m)?)?;
    m.add_function(wrap_pyfunction!(ms, m)?)?;
    m.add_class::<Outcome>()?;
    m.add("ErrbandError", m.py().get_type::<ErrbandError>())?;
    m.add("InputError", m.py().get_type::<InputError>())?;
    m.add("AnalysisError", m.py().get_type::<AnalysisError>())?;
    m.add("__version__", errband::VERSION)?;
    Ok(())
}
