//! `errband check`: new measurements against the recommended band at their
//! scale; exit 1 when one fails (`--fail-on`). The logic is
//! [`crate::check`]; this reads the files, renders, and appends what
//! passed (`--accept`).

use super::analyze::FamilyKind;
use super::files::{escape_controls, Io};
use super::input::{load, CommonArgs, Loaded};
use super::{read_bytes, Failure};
use crate::check::{self, CheckError, Expected, FailOn, NewSeries};
use crate::data::{self, Selection};
use crate::limits::Limits;
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
    /// Print the time spent in each phase to standard error.
    #[arg(long)]
    pub timings: bool,
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
    std::fs::read(path).is_ok_and(|bytes| check::is_saved_result(&String::from_utf8_lossy(&bytes)))
}

/// Runs `errband check`.
pub fn run(a: CheckArgs, limits: &Limits, io: &mut Io) -> Result<i32, Failure> {
    let mut clock = super::timings::Timings::start();
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
    let layout = match &baseline {
        Baseline::Analysed(l, _) => check::Layout::of_data(&l.model, l.dataset()),
        Baseline::Saved(e, _) => {
            let x: Vec<(String, String)> = a
                .common
                .x
                .iter()
                .filter_map(|x| x.split_once('=').map(|(n, c)| (n.trim().to_string(), c.trim().to_string())))
                .collect();
            check::Layout::of_saved(e, &x)
        }
    };
    let y_column = match &baseline {
        Baseline::Analysed(l, _) if l.parts.format == data::Format::Csv => Some(l.dataset().y_column.clone()),
        _ => a.common.y.clone(),
    };
    let sel = Selection { callpath: a.common.region.clone(), metric: a.common.metric.clone() };
    let spec = layout.spec(y_column, &sel, &a.common.by, a.common.delimiter, *limits);
    let mut new: Vec<NewSeries> = Vec::new();
    for path in &a.new {
        let bytes = read_bytes(path)?;
        let (kind, text, bytes) =
            data::decode_input(bytes, if path == "-" { "<stdin>" } else { path }).map_err(Failure::input)?;
        new.extend(check::read_new(kind, &text, &bytes, path, &spec, layout.unit.as_deref()).map_err(fail)?);
    }
    clock.lap("parse");
    // The bands, at the new measurements' scales.
    let expected = match &baseline {
        Baseline::Saved(e, _) => e.clone(),
        Baseline::Analysed(l, choice) => {
            let opts = l.options();
            let b = check::Baseline {
                model: &l.model,
                per_series: &l.models,
                parts: &l.parts,
                file: &l.data_path,
                opts: &opts,
                choice: *choice,
            };
            check::expected_for(&b, &new).map_err(fail)?
        }
    };
    let report = check::check(expected, &new, a.fail_on).map_err(fail)?;
    clock.lap_covering("check", "fit, bands at the new measurements' scales");
    let digits = a.common.decimal as usize;
    // `--exact`: fractions wherever a value is shown for reading (JSON
    // always carries both).
    let shown = if a.common.exact { 0 } else { digits };
    let text = match a.format {
        CheckFormat::Text => crate::report::check::text(&report, shown),
        CheckFormat::Json => super::json_text(
            &serde_json::to_value(crate::document::check::CheckDocument::new(&report, digits))
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
            accept(&report, l, d, &layout.func, io)?;
        } else if let Baseline::Analysed(l, _) = &baseline {
            accept(&report, l, &a.model, &layout.func, io)?;
        }
    }
    clock.lap("output");
    if a.timings {
        io.note(&clock.line());
    }
    Ok(if report.failed() { super::EXIT_ANALYSIS } else { super::EXIT_OK })
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
    if l.parts.len() > 1 || !l.parts.first().callpath.is_empty() {
        return Err(refuse(
            "appends to a file of one series; with --by groups, append the rows yourself".into(),
        ));
    }
    let text = super::read_input(data_path)?;
    let delimiter = data::dialect::detect(&text);
    let cols = data::column_names(&text, Some(delimiter));
    let ds = l.dataset();
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
