//! What every analysing subcommand writes, in one place: the chosen
//! `--format` on standard output, `--plot` files and the whole report of
//! `--report` (HTML with the charts inline, or Markdown with each chart as
//! an SVG file beside it), all rendered before the first byte is written.
//! The main command has its own writer (its report has figures of several
//! kinds and a streamed JSON), with the same flags and the same `Format`.

use super::files::{Io, Kind, Output};
use super::Failure;
use crate::report::{html, CommandReport};
use clap::ValueEnum;

/// `--format`: one set of values for every command that analyses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The terminal report, read top to bottom.
    Text,
    /// JSON with exact values as {exact, decimal} (schema: `errband schema COMMAND`).
    Json,
    /// JSON Lines: the JSON on one line; for a whole experiment, one line
    /// per series in file order (`{callpath, metric, report}` or `error`),
    /// each written as soon as its series is analysed.
    Jsonl,
    /// The main table as CSV, one record per row.
    Csv,
    /// Markdown tables.
    Md,
    /// A LaTeX (booktabs) table, for papers (the main command and prune).
    Latex,
}

/// Whether a `--report` path asks for Markdown (else HTML).
pub(crate) fn is_markdown(path: &str) -> bool {
    path.to_ascii_lowercase().ends_with(".md")
}

/// The chart of kind `kind` beside a Markdown report `out.md`: `out-KIND.svg`.
pub(crate) fn chart_path(md_path: &str, kind: &str) -> String {
    let stem = md_path.strip_suffix(".md").unwrap_or(md_path);
    format!("{stem}-{kind}.svg")
}

/// The files `--report FILE` writes, for the checks made before any work:
/// the report, and beside a Markdown one a chart per kind.
pub(crate) fn report_outputs(report: Option<&String>, kinds: &[&str]) -> Vec<Output> {
    let Some(f) = report else { return Vec::new() };
    let mut out = vec![Output::new("--report", f, Kind::Report)];
    if is_markdown(f) {
        out.extend(
            kinds.iter().map(|k| Output::new("--report (a chart beside it)", &chart_path(f, k), Kind::Svg)),
        );
    }
    out
}

/// The whole report of `r` at `path`, with its chart files: `(path, content)`.
fn report_files(
    r: &dyn CommandReport,
    path: &str,
    charts: Vec<(&'static str, String)>,
) -> Vec<(String, String)> {
    if is_markdown(path) {
        let mut md = r.markdown();
        let mut files = Vec::new();
        for (kind, svg) in charts {
            let file = chart_path(path, kind);
            let name =
                std::path::Path::new(&file).file_name().map_or(file.clone(), |n| n.to_string_lossy().into());
            md.push_str(&format!("\n![{kind}]({name})\n"));
            files.push((file, svg));
        }
        files.push((path.to_string(), md));
        files
    } else {
        let figures: Vec<String> = charts.into_iter().map(|(_, svg)| svg).collect();
        vec![(path.to_string(), html::command_page(&r.title(), &r.headline(), &figures, &r.text()))]
    }
}

/// Writes the `--plot` files (`(kind, file)`), the whole report and `r` in
/// `format` on standard output. The charts are rendered once, and only when
/// a plot or a report asks for them.
pub(crate) fn finish(
    r: &dyn CommandReport,
    format: Format,
    plots: &[(&'static str, String)],
    report: Option<&String>,
    io: &mut Io,
) -> Result<i32, Failure> {
    let charts = if plots.is_empty() && report.is_none() { Vec::new() } else { r.charts() };
    let svg =
        |kind: &str| charts.iter().find(|(k, _)| *k == kind).map(|(_, s)| s.clone()).unwrap_or_default();
    let mut files: Vec<(String, String)> =
        plots.iter().map(|(kind, file)| (file.clone(), svg(kind))).collect();
    if let Some(path) = report {
        files.extend(report_files(r, path, charts));
    }
    let text = match format {
        Format::Text => r.text(),
        Format::Json => super::json_text(&r.json())?,
        Format::Jsonl => super::json_line(&r.json())?,
        Format::Csv => r.csv(),
        Format::Md => r.markdown(),
        Format::Latex => r.latex().ok_or_else(|| {
            Failure::input("--format latex: this command has no LaTeX output; use --format md, csv or json")
        })?,
    };
    for (path, content) in &files {
        io.file(path, content)?;
    }
    io.stdout(&text)?;
    Ok(super::EXIT_OK)
}
