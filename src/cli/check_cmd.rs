//! `errband check`: new measurements against the recommended band at their
//! scale; exit 1 when one fails (`--fail-on`). The logic is
//! [`crate::check`]; this reads the files, renders, and appends what
//! passed (`--accept`).

use super::analyze::FamilyKind;
use super::files::{escape_controls, Io};
use super::input::{load, CommonArgs, Loaded};
use super::{read_bytes, Failure};
use crate::check::{self, CheckError, Expected, FailOn, NewMeasurement, NewSeries};
use crate::data::{self, Aggregate, ColumnSpec, Selection, Source};
use crate::error::Classified;
use crate::limits::Limits;
use crate::num::Rat;
use crate::session::FamilyChoice;
use clap::{Args, ValueEnum};
use std::path::Path;

/// Output formats of `errband check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    /// A line per measurement and a summary.
    Text,
    /// A JSON document: the counts, each series' form, and per measurement its point, file, line, value, band, verdict and deviation (exact, and as decimals).
    Json,
    /// JUnit XML: a test suite per series, a test case per point.
    Junit,
    /// GitHub workflow annotations at each failing measurement's file and line; with $GITHUB_STEP_SUMMARY set, a Markdown summary is appended to it.
    Github,
    /// A Markdown table.
    Md,
}

/// `errband check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Model file (`.tm`); or a saved `--format json` result of the main command; or, alone, the measurements (the model found from them, as `errband DATA` does).
    #[arg(value_name = "MODEL")]
    pub model: String,
    /// Measurements the model is fitted to.
    #[arg(value_name = "DATA")]
    pub data: Option<String>,
    /// New measurements: CSV (the columns of DATA), any measurement format errband reads, or hyperfine's --export-json; repeatable.
    #[arg(long, value_name = "FILE", required = true)]
    pub new: Vec<String>,
    #[command(flatten)]
    pub common: CommonArgs,
    /// Also analyse a family of forms, as the main command does (without a model file the best form of `scaling` is the model).
    #[arg(long, value_enum, value_name = "FAMILY")]
    pub family: Option<FamilyKind>,
    /// When the check fails (exit 1): a measurement above its band (a regression), outside it, or never.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = FailOn::Above)]
    pub fail_on: FailOn,
    /// Report format on standard output.
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
    /// Append the new measurements that fell inside their band to DATA (whole rows, after the last; earlier rows are never rewritten).
    #[arg(long)]
    pub accept: bool,
}

/// The baseline: a loaded model and data, or a saved result.
enum Baseline {
    Analysed(Box<Loaded>, FamilyChoice),
    Saved(Vec<Expected>, String),
}

fn fail(e: CheckError) -> Failure {
    Failure::of(&e)
}

/// True when `path` holds a saved errband JSON result.
fn is_saved_result(path: &str) -> bool {
    let Ok(bytes) = std::fs::read(path) else { return false };
    let t = String::from_utf8_lossy(&bytes);
    t.trim_start().starts_with('{')
        && serde_json::from_str::<serde_json::Value>(&t).ok().is_some_and(|v| v.get("errband").is_some())
}

/// Runs `errband check`.
pub fn run(a: CheckArgs, limits: &Limits, io: &mut Io) -> Result<i32, Failure> {
    let set = a.family.map(FamilyKind::set);
    let baseline = match &a.data {
        Some(d) => {
            Baseline::Analysed(Box::new(load(Some(&a.model), d, &a.common, limits)?), FamilyChoice::own(set))
        }
        None if is_saved_result(&a.model) => {
            let text = super::read_input(&a.model)?;
            Baseline::Saved(check::expected_from_json(&text, &a.model).map_err(fail)?, a.model.clone())
        }
        None => Baseline::Analysed(
            Box::new(load(None, &a.model, &a.common, limits)?),
            FamilyChoice::discover(set.unwrap_or(crate::family::FamilySet::Scaling)),
        ),
    };
    if a.accept {
        if let Baseline::Saved(_, f) = &baseline {
            return Err(Failure::input(format!(
                "--accept appends to the data a model is fitted to, and {f} is a saved result; check against MODEL DATA to accept"
            )));
        }
    }
    // How the new files' columns map onto the variables.
    let (vars, columns, func, unit) = match &baseline {
        Baseline::Analysed(l, _) => {
            let unit = l
                .model
                .units
                .get(&l.model.func)
                .cloned()
                .or_else(|| l.dataset.units.get(&l.model.func).cloned());
            (l.dataset.vars.clone(), l.dataset.columns.clone(), l.model.func.clone(), unit)
        }
        Baseline::Saved(e, _) => {
            let e0 = &e[0];
            let columns = e0
                .vars
                .iter()
                .map(|v| {
                    a.common
                        .x
                        .iter()
                        .find_map(|x| {
                            x.split_once('=')
                                .filter(|(n, _)| n.trim() == v)
                                .map(|(_, c)| c.trim().to_string())
                        })
                        .unwrap_or_else(|| v.clone())
                })
                .collect();
            (e0.vars.clone(), columns, e0.func.clone(), e0.unit.clone())
        }
    };
    let y_column = match &baseline {
        Baseline::Analysed(l, _) if l.parts.format == data::Format::Csv => Some(l.dataset.y_column.clone()),
        _ => a.common.y.clone(),
    };
    let spec = ColumnSpec {
        vars: vars.clone(),
        y: func.clone(),
        rename: vars.iter().cloned().zip(columns.iter().cloned()).filter(|(v, c)| v != c).collect(),
        y_column,
        region: a.common.region.clone(),
        metric: a.common.metric.clone(),
        limits: *limits,
        by: a.common.by.clone(),
        delimiter: a.common.delimiter,
    };
    let mut new: Vec<NewSeries> = Vec::new();
    for path in &a.new {
        new.extend(read_new(path, &spec, &vars, &columns, unit.as_deref(), &a.common, limits)?);
    }
    // The bands, at the new measurements' scales.
    let expected = match &baseline {
        Baseline::Saved(e, _) => e.clone(),
        Baseline::Analysed(l, choice) => expected_of(l, *choice, &new)?,
    };
    let report = check::check(expected, &new, a.fail_on).map_err(fail)?;
    let digits = a.common.decimal as usize;
    // `--exact`: fractions wherever a value is shown for reading (JSON
    // always carries both).
    let shown = if a.common.exact { 0 } else { digits };
    let text = match a.format {
        CheckFormat::Text => crate::report::check::text(&report, shown),
        CheckFormat::Json => super::json_text(
            &serde_json::to_value(crate::report::check::json(&report, digits))
                .map_err(|e| Failure::analysis(format!("cannot write JSON: {e}")))?,
        )?,
        CheckFormat::Junit => crate::report::check::junit(&report, shown),
        CheckFormat::Github => crate::report::check::github(&report, shown),
        CheckFormat::Md => crate::report::check::markdown(&report, shown),
    };
    io.stdout(&text)?;
    if a.format == CheckFormat::Github {
        if let Some(summary) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|s| !s.is_empty()) {
            let md = crate::report::check::markdown(&report, shown) + "\n";
            crate::measure::append_lines(Path::new(&summary), &md).map_err(|e| {
                Failure::analysis(format!(
                    "cannot append to $GITHUB_STEP_SUMMARY ({}): {e}",
                    Path::new(&summary).display()
                ))
            })?;
        }
    }
    if a.accept {
        if let (Baseline::Analysed(l, _), Some(d)) = (&baseline, &a.data) {
            accept(&report, l, d, &func, io)?;
        } else if let Baseline::Analysed(l, _) = &baseline {
            accept(&report, l, &a.model, &func, io)?;
        }
    }
    Ok(if report.failed() { super::EXIT_ANALYSIS } else { super::EXIT_OK })
}

/// Reads one `--new` file: hyperfine's JSON, or any data input errband
/// reads (each measurement kept, repetitions not aggregated).
fn read_new(
    path: &str,
    spec: &ColumnSpec,
    vars: &[String],
    columns: &[String],
    unit: Option<&str>,
    common: &CommonArgs,
    limits: &Limits,
) -> Result<Vec<NewSeries>, Failure> {
    let bytes = read_bytes(path)?;
    let (kind, text, bytes) =
        data::decode_input(bytes, if path == "-" { "<stdin>" } else { path }).map_err(Failure::input)?;
    if check::is_hyperfine(&text) {
        return Ok(vec![check::read_hyperfine(&text, path, vars, columns, unit).map_err(fail)?]);
    }
    let sel = Selection { callpath: common.region.clone(), metric: common.metric.clone() };
    let source = Source::read(None, kind, &text, &bytes, path, *limits, &sel).map_err(Failure::input)?;
    let parts =
        source.parts(path, spec, &sel, Aggregate::All).map_err(|e| Failure::input(e.render(&text)))?;
    let mut out = Vec::new();
    for p in parts.parts {
        if let (Some(want), Some(got)) = (unit, p.dataset.units.get(&spec.y)) {
            if want != got {
                return Err(Failure::input(format!(
                    "{path}: the measured values are in {got}, and the baseline's in {want}; write them in {want}"
                )));
            }
        }
        out.push(NewSeries {
            callpath: p.callpath,
            metric: p.metric,
            file: path.to_string(),
            rows: p
                .dataset
                .rows
                .into_iter()
                .map(|m| NewMeasurement { x: m.x, y: m.y, line: m.line, note: None, mean: None })
                .collect(),
        });
    }
    Ok(out)
}

/// The recommended bands of each baseline series that has new
/// measurements, at their scales (series in parallel). A series of an
/// experiment that cannot be analysed has no band at its points (the
/// reason kept); a single series' failure ends the run.
fn expected_of(l: &Loaded, choice: FamilyChoice, new: &[NewSeries]) -> Result<Vec<Expected>, Failure> {
    use rayon::prelude::*;
    let parts = &l.parts.parts;
    // One baseline series takes every new measurement, whatever the new
    // files call their series.
    let single = parts.len() == 1;
    let opts = l.options();
    let wanted: Vec<(usize, Vec<Vec<Rat>>)> = parts
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let mut pts: Vec<Vec<Rat>> = Vec::new();
            for s in new.iter().filter(|s| single || (s.callpath == p.callpath && s.metric == p.metric)) {
                for x in s.points() {
                    if !pts.contains(&x) {
                        pts.push(x);
                    }
                }
            }
            (!pts.is_empty()).then_some((i, pts))
        })
        .collect();
    let results: Vec<Result<Expected, Failure>> = wanted
        .par_iter()
        .map(|(i, pts)| {
            let p = &parts[*i];
            let model = match l.models.get(*i) {
                None => &l.model,
                Some(Ok(m)) => m,
                Some(Err(why)) => {
                    return Err(Failure {
                        message: format!("{}: {why}", p.name()),
                        code: why.kind().exit_code(),
                    });
                }
            };
            let names = if single { ("", "") } else { (p.callpath.as_str(), p.metric.as_str()) };
            check::expected_at(model, &p.dataset.rows, &l.data_path, &opts, choice, pts, names).map_err(|e| {
                let f = Failure::of(&e);
                let name = p.name();
                Failure {
                    message: if single || name.is_empty() {
                        f.message
                    } else {
                        format!("{name}: {}", f.message)
                    },
                    code: f.code,
                }
            })
        })
        .collect();
    let mut out = Vec::new();
    for (r, (i, pts)) in results.into_iter().zip(&wanted) {
        match r {
            Ok(e) => out.push(e),
            Err(f) if single => return Err(f),
            Err(f) => {
                let p = &parts[*i];
                out.push(Expected {
                    callpath: p.callpath.clone(),
                    metric: p.metric.clone(),
                    func: l.model.func.clone(),
                    vars: l.model.vars.clone(),
                    unit: None,
                    form: String::new(),
                    points: pts
                        .iter()
                        .map(|x| check::ExpectedPoint {
                            x: x.clone(),
                            value: None,
                            band: None,
                            refusal: Some(f.message.clone()),
                        })
                        .collect(),
                });
            }
        }
    }
    Ok(out)
}

/// `--accept`: appends the measurements that passed to the CSV file
/// `data`, as whole rows in its own columns and separator
/// ([`crate::measure::append_atomic`]: the file is unchanged or holds every
/// row, even if the process is killed).
fn accept(
    report: &check::CheckReport,
    l: &Loaded,
    data_path: &str,
    func: &str,
    io: &mut Io,
) -> Result<(), Failure> {
    let refuse = |why: String| Failure::input(format!("--accept: {why}"));
    if l.parts.format != data::Format::Csv || data_path == "-" {
        return Err(refuse(format!(
            "appends rows to a CSV data file, and {} is {}",
            escape_controls(data_path),
            if data_path == "-" {
                "standard input".to_string()
            } else {
                format!("{} input", l.parts.format.name())
            }
        )));
    }
    if l.parts.parts.len() > 1 || !l.parts.parts[0].callpath.is_empty() {
        return Err(refuse(
            "appends to a file of one series; with --by groups, append the rows yourself".into(),
        ));
    }
    let text = super::read_input(data_path)?;
    let delimiter = data::dialect::detect(&text);
    let cols = data::column_names(&text, Some(delimiter));
    let ds = &l.dataset;
    // Every column of the file must be a variable or the measured value:
    // a row errband writes has nothing to put in any other.
    let mut cells_of: Vec<Option<usize>> = Vec::new();
    for c in &cols {
        if *c == ds.y_column {
            cells_of.push(None);
        } else if let Some(i) = ds.columns.iter().position(|v| v == c) {
            cells_of.push(Some(i));
        } else {
            return Err(refuse(format!(
                "{} has a column `{c}` that is neither a variable nor the measured value ({}); append the rows yourself",
                escape_controls(data_path),
                func
            )));
        }
    }
    let sep = match delimiter {
        data::dialect::Delimiter::Whitespace => " ".to_string(),
        d => (d.byte() as char).to_string(),
    };
    let mut rows = String::new();
    let mut n = 0usize;
    for j in report.passed() {
        let cells: Vec<String> = cells_of
            .iter()
            .map(|c| crate::model::show_value(c.map_or(&j.measurement.y, |i| &j.measurement.x[i])))
            .collect();
        rows.push_str(&cells.join(&sep));
        rows.push('\n');
        n += 1;
    }
    if n == 0 {
        io.note("--accept: no new measurement fell inside its band; nothing appended");
        return Ok(());
    }
    crate::measure::append_atomic(Path::new(data_path), &rows).map_err(|e| {
        Failure::analysis(format!("--accept: cannot append to `{}`: {e}", escape_controls(data_path)))
    })?;
    io.note(&format!(
        "--accept: appended {n} measurement{} to {}",
        if n == 1 { "" } else { "s" },
        escape_controls(data_path)
    ));
    Ok(())
}
