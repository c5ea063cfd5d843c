//! `errband MODEL DATA`: the core method on a model file and measurements.

use super::files::{check_outputs, Io, Kind, Output};
use super::input::{load, CommonArgs};
use super::timings::Timings;
pub use super::whole::Format;
use super::Failure;
use crate::analysis::{Options, Shape};
use crate::backtest::Holdout;
use crate::envelope::BandFunction;
use crate::limits::Limits;
use crate::model::{syntax, Model};
use crate::num::{fmt_fraction, fmt_sig};
use crate::report::{figures, Report};
use crate::session::{self, FamilyChoice};
use clap::{Args, ValueEnum};

/// An axis scale choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AxisScale {
    /// Log when every value is positive and they span more than a factor of 20.
    Auto,
    /// Linear.
    Linear,
    /// Logarithmic (non-positive values are left out).
    Log,
}

impl AxisScale {
    fn scale(self) -> Option<crate::plot::Scale> {
        match self {
            AxisScale::Auto => None,
            AxisScale::Linear => Some(crate::plot::Scale::Linear),
            AxisScale::Log => Some(crate::plot::Scale::Log),
        }
    }
}

/// A family of forms (`--family`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FamilyKind {
    /// Extra-P's performance-model normal form: c0 + c1·x^(a/b)·log2(x)^c over its 42 building blocks (growing terms), and products and sums of them for several variables.
    Pmnf,
    /// pmnf and its negated exponents (decreasing terms for strong scaling: c1/x, c1·x^(-1/2)·log2(x)^(-1), …), and the two-term forms c0 + c1/x + c2·x, c0 + c1/x + c2·log2(x), c0 + c1·x^(-1/2) + c2·log2(x): the default without a model file.
    Scaling,
}

impl FamilyKind {
    /// The library's set.
    pub fn set(self) -> crate::family::FamilySet {
        match self {
            FamilyKind::Pmnf => crate::family::FamilySet::Pmnf,
            FamilyKind::Scaling => crate::family::FamilySet::Scaling,
        }
    }
}

/// Which QE problem `--emit-qe` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EmitQe {
    /// Paper eq. (6): ∃Δc over the residual system; solving it gives `e_max <= e`.
    Emax,
    /// Paper eq. (5)/(7): the region at the first threshold.
    Region,
}

/// Arguments of the main command.
#[derive(Args, Debug)]
#[command(next_help_heading = "Analysis")]
pub struct AnalyzeArgs {
    /// Model file (`.tm`).
    #[arg(value_name = "MODEL")]
    pub model: Option<String>,
    /// Measurements: CSV with a header, or Extra-P text (`-` for standard input).
    #[arg(value_name = "DATA")]
    pub data: Option<String>,
    #[command(flatten)]
    pub common: CommonArgs,
    /// Prediction points, e.g. `p=1000`, `p=2000..10000:2000`, `p=1024,n=100..300:100`; repeatable.
    #[arg(long, value_name = "POINTS")]
    pub at: Vec<String>,
    /// Backtest: fit without the measurements this names (`largest`, `largest n`, or conditions such as `p>=512`, `p=512 and n>100`), then check each against every band at its point.
    #[arg(long, value_name = "COND")]
    pub holdout: Option<String>,
    /// Also analyse a family of forms: fit each, rank them, and give the family band (the hull over the forms consistent at each threshold). Without a model file (`errband DATA`) the best form of the family is the model (`scaling` by default). A model's `family` lines are analysed even without this flag.
    #[arg(long, value_enum, value_name = "FAMILY")]
    pub family: Option<FamilyKind>,
    /// Drop the measurements at these points (e.g. `p=110`), refit and compare; repeatable.
    #[arg(long, value_name = "POINTS")]
    pub drop: Vec<String>,
    /// Drop the N-th measurement (the `row` column of the residual table); repeatable.
    #[arg(long = "drop-row", value_name = "N")]
    pub drop_row: Vec<usize>,
    /// Report format on standard output.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Print only the answer: per prediction point the predicted value and the band errband recommends for the next measurement, what that assumes and the self-check (for an experiment, a line per series and point). Without --at or a model's own points, at the next scale: one step past the largest measured, as the last scales step.
    #[arg(long)]
    pub brief: bool,
    /// Order of the Δ variables in the cylindrical form, outermost first (e.g. `dc2,dc1`).
    #[arg(long, value_delimiter = ',')]
    pub order: Vec<String>,
    /// Also compute the band as a function: envelope pieces over the prediction range and width against threshold.
    #[arg(long)]
    pub envelope: bool,
    /// Write a plot: `[KIND=]FILE.svg`, KIND one of band (default), region, residuals, width; repeatable.
    #[arg(long, value_name = "[KIND=]FILE")]
    pub plot: Vec<String>,
    /// The slice the band plot shows for a model of several variables: all but one fixed, e.g. `n=16000` (the free one is the axis; default: the first varying variable, the others at the first prediction point).
    #[arg(long, value_name = "POINT")]
    pub plot_at: Option<String>,
    /// x axis of the band plot: auto (log when the values span more than a factor of 20), linear or log.
    #[arg(long, value_enum, value_name = "SCALE", default_value_t = AxisScale::Auto)]
    pub xscale: AxisScale,
    /// y axis of the band plot: auto, linear or log.
    #[arg(long, value_enum, value_name = "SCALE", default_value_t = AxisScale::Auto)]
    pub yscale: AxisScale,
    /// Write a whole report: `out.html` (self-contained) or `out.md` (Markdown plus SVG files beside it).
    #[arg(long, value_name = "FILE")]
    pub report: Option<String>,
    /// Write references for other tools: `reframe=FILE.py`, a Python dict of ReFrame `reference` tuples (value, lower and upper as fractions of it, unit) per `--at` point, from the recommended band; repeatable.
    #[arg(long, value_name = "KIND=FILE")]
    pub export: Vec<String>,
    /// Print a QE problem of the analysis in `errband qe` syntax instead of the report.
    #[arg(long, value_enum, value_name = "WHICH")]
    pub emit_qe: Option<EmitQe>,
    /// Print the time spent in each phase to standard error.
    #[arg(long)]
    pub timings: bool,
}

/// What `--plot` draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlotKind {
    /// Data, fitted model and bands against the variable (paper Fig. 4, 9).
    Band,
    /// The Δc regions (paper Fig. 3); pairwise projections for k > 2.
    Region,
    /// Residuals per measurement (paper Fig. 8).
    Residuals,
    /// Band width against the threshold, from e_max to Max|e_i|.
    Width,
}

/// Parses `--plot [KIND=]FILE`.
fn plot_arg(s: &str) -> Result<(PlotKind, String), Failure> {
    let kinds = [
        ("band", PlotKind::Band),
        ("region", PlotKind::Region),
        ("residuals", PlotKind::Residuals),
        ("width", PlotKind::Width),
    ];
    super::plot_kind(s, &kinds).map_err(|e| Failure::input(format!("--plot {s}: {e}")))
}

/// Runs the main command.
pub fn run(a: AnalyzeArgs, limits: &Limits, io: &mut Io) -> Result<i32, Failure> {
    let mut clock = Timings::start();
    if a.brief && a.format != Format::Text {
        return Err(Failure::input(
            "--brief prints the answer as text; with --format json the same answer is the document's `recommendation`",
        ));
    }
    // Without a model file the family's best form is the model:
    // `errband DATA` discovers it.
    let usage = "usage: errband MODEL DATA [OPTIONS]  (e.g. errband models/hpl.tm data/hpl.csv), or errband DATA to find the model from the data; see errband --help";
    let (model_path, data_path): (Option<String>, String) = match (&a.model, &a.data) {
        (Some(m), Some(d)) => (Some(m.clone()), d.clone()),
        (Some(d), None) if d.to_ascii_lowercase().ends_with(".tm") => {
            return Err(Failure::input(format!(
                "{d} is a model file; give the measurements after it. {usage}"
            )))
        }
        (Some(d), None) => (None, d.clone()),
        _ => return Err(Failure::input(usage)),
    };
    let plots: Vec<(PlotKind, String)> = a.plot.iter().map(|s| plot_arg(s)).collect::<Result<_, _>>()?;
    let mut outputs: Vec<Output> = plots.iter().map(|(_, f)| Output::new("--plot", f, Kind::Svg)).collect();
    let report_kind = match &a.report {
        None => None,
        Some(f) => {
            outputs.push(Output::new("--report", f, Kind::Report));
            if f.to_ascii_lowercase().ends_with(".md") {
                outputs.extend(
                    crate::report::html::figure_paths(f)
                        .into_iter()
                        .map(|(_, p)| Output::new("--report (a figure beside it)", &p, Kind::Svg)),
                );
                Some(ReportKind::Markdown)
            } else {
                Some(ReportKind::Html)
            }
        }
    };
    let exports: Vec<String> = a
        .export
        .iter()
        .map(|s| super::plot_kind(s, &[("reframe", ())]).map(|(_, f)| f))
        .collect::<Result<_, _>>()
        .map_err(|e| Failure::input(format!("--export: {e}")))?;
    outputs.extend(exports.iter().map(|f| Output::new("--export", f, Kind::Python)));
    let inputs: Vec<&str> = model_path.iter().map(String::as_str).chain([data_path.as_str()]).collect();
    check_outputs(&inputs, &outputs)?;
    let input = load(model_path.as_deref(), &data_path, &a.common, limits)?;
    let dataset = input.dataset();
    clock.lap("parse");

    let at_set = input.point_set(&a.at, "--at")?;
    // A CSV band table with nothing else that needs every point (no plot,
    // report, export, --drop, family, backtest or band function) is
    // streamed: the `--at` points are computed and written a batch at a
    // time (10^6 points held took 3 GB).
    let stream_at = a.format == Format::Csv
        && !a.brief
        && plots.is_empty()
        && report_kind.is_none()
        && exports.is_empty()
        && a.drop.is_empty()
        && a.drop_row.is_empty()
        && a.family.is_none()
        && a.data.is_some()
        && a.holdout.is_none()
        && !a.envelope
        && a.emit_qe.is_none()
        && input.parts.len() == 1;
    // `--brief` with no point anywhere answers at the next scale: the run
    // after the largest one measured, which a newcomer most likely asks
    // about (the answer says so).
    let next = if a.brief && at_set.is_empty() && input.model.predict.is_empty() {
        crate::data::next_scales(&dataset.rows, input.model.vars.len())
    } else {
        Vec::new()
    };
    // The line that says so, under the answer.
    let next_line = (!next.is_empty()).then(|| next_note(&next, &input.model.vars));
    let at = if stream_at {
        Vec::new()
    } else if next.is_empty() {
        at_set.to_vec()
    } else {
        next
    };
    let plot_at = a
        .plot_at
        .as_ref()
        .map(|s| {
            syntax::parse_assignments_arg(s, "--plot-at", limits)
                .and_then(|assigns| input.model.slice(&assigns, "--plot-at", s))
                .map_err(|d| Failure::input(d.render(s)))
        })
        .transpose()?;
    let dnames = crate::analysis::delta_names(&input.model);
    for (i, o) in a.order.iter().enumerate() {
        if !dnames.contains(o) {
            return Err(Failure::input(format!("--order {o}: the Δ variables are {}", dnames.join(", "))));
        }
        if a.order[..i].contains(o) {
            return Err(Failure::input(format!("--order names `{o}` twice; give each Δ variable once")));
        }
    }
    let opts = Options { at, order: a.order.clone(), ..input.options() };
    let set = a.family.map(FamilyKind::set);
    let fam = match a.data {
        Some(_) => FamilyChoice::own(set),
        None => FamilyChoice::discover(set.unwrap_or(crate::family::FamilySet::Scaling)),
    };
    if input.parts.len() > 1 {
        let outputs = (plots.as_slice(), plot_at.as_ref(), next_line.as_deref());
        return run_experiment(&a, &input, &opts, fam, outputs, report_kind, (io, clock));
    }
    let rows = &dataset.rows;
    let hold = match &a.holdout {
        Some(h) => Some(Holdout::parse(h, &input.model.vars).map_err(|d| Failure::input(d.render(h)))?),
        None => None,
    };
    let holdout = hold.as_ref().zip(a.holdout.as_deref());
    if holdout.is_some() && (!a.drop.is_empty() || !a.drop_row.is_empty()) {
        return Err(Failure::input("--holdout and --drop both leave measurements out; give one"));
    }
    let request = session::Request::new(&data_path, &opts).family(fam).holdout(holdout);

    if let Some(which) = a.emit_qe {
        let which = match which {
            EmitQe::Emax => session::QeProblem::Emax,
            EmitQe::Region => session::QeProblem::Region,
        };
        let text = session::qe_problem(&input.model, rows, &request, which).map_err(|e| Failure::of(&e))?;
        clock.lap_covering("analysis", ANALYSIS);
        io.stdout(&text)?;
        clock.lap("output");
        if a.timings {
            io.note(&clock.line());
        }
        return Ok(super::EXIT_OK);
    }

    let series = session::analyse_series(&input.model, rows, &request).map_err(|e| Failure::of(&e))?;
    let model: &Model = series.best.as_ref().unwrap_or(&input.model);
    let backtest = series.backtest.as_ref();
    // With a backtest, the analysis and its report are of the training
    // measurements.
    let rows = series.rows(rows);
    let analysis = &series.analysis;
    let family = series.family.as_ref();
    let pruned = if a.drop.is_empty() && a.drop_row.is_empty() {
        None
    } else {
        let d = session::dropped(model, rows, &a.drop, &a.drop_row, session::Spelling::Cli)
            .map_err(|e| Failure::of(&e))?;
        Some(session::without(model, rows, &data_path, &opts, analysis, d).map_err(|e| Failure::of(&e))?)
    };
    // The band as a function: asked for, or part of a whole report.
    let function = (a.envelope || report_kind.is_some() || plots.iter().any(|(k, _)| *k == PlotKind::Width))
        .then(|| BandFunction::compute(model, analysis, rows));
    // The streamed points, checked before anything is written.
    let streamed =
        stream_at.then(|| (analysis.predictor(model, rows, &opts), at_set.excluding(&model.predict)));
    if let Some((predictor, points)) = &streamed {
        predictor.check_set(points).map_err(|e| Failure::of(&e))?;
    }
    clock.lap_covering("analysis", ANALYSIS);
    // A series chosen from an experiment is named beside the file.
    let data_label = match input.parts.len() {
        1 if input.parts.total > 1 => format!("{data_path} ({})", input.parts.first().name()),
        _ => data_path.clone(),
    };
    let report = Report {
        model,
        data_file: &data_label,
        data: rows,
        analysis,
        pruned: pruned.as_ref(),
        function: function.as_ref(),
        scales: [a.xscale.scale(), a.yscale.scale()],
        digits: a.common.decimal as usize,
        exact: a.common.exact,
        warnings: &dataset.warnings,
        backtest,
        family,
        plot_at: plot_at.as_ref(),
        recommendation: series.recommendation.as_ref(),
        recommendation_error: series.recommendation_error.as_deref(),
        discovered: !fam.own,
        set_aside: &series.set_aside,
    };
    // JSON and CSV are streamed once the output has begun: a residual per
    // measurement, or a CSV table of 10^5 points (50 MB), is too long to
    // hold. Rendering them cannot fail.
    let text: String = match a.format {
        _ if a.brief => {
            if report.answer_points().is_empty() {
                return Err(Failure::input(format!(
                    "--brief answers at prediction points and there are none: give one, e.g. --at {}=1024",
                    model.vars.first().map_or("p", String::as_str)
                )));
            }
            format!("{}\n{}", report.answer_section().trim_end(), next_line.as_deref().unwrap_or_default())
        }
        Format::Json | Format::Jsonl | Format::Csv => String::new(),
        Format::Text => report.text(),
        Format::Md => report.markdown(),
        Format::Latex => report.latex(),
    };
    // Everything else is rendered before the first byte is written.
    let mut files: Vec<(String, String)> = Vec::new();
    for (kind, file) in &plots {
        let svg = match kind {
            PlotKind::Band => figures::band(&report),
            PlotKind::Region => figures::region(&report),
            PlotKind::Residuals => figures::residuals(&report),
            PlotKind::Width => figures::width(&report),
        };
        files.push((file.clone(), svg));
    }
    if let (Some(kind), Some(file)) = (report_kind, &a.report) {
        match kind {
            ReportKind::Html => files.push((file.clone(), report.html())),
            ReportKind::Markdown => {
                let (md, svgs) = report.markdown_with_figures(file);
                files.extend(svgs);
                files.push((file.clone(), md));
            }
        }
    }
    if !exports.is_empty() {
        let r = series.recommendation.as_ref().ok_or_else(|| {
            Failure::analysis(format!(
                "--export reframe: no recommended band ({})",
                series.recommendation_error.as_deref().unwrap_or("none was made")
            ))
        })?;
        // The `--at` scales, or every prediction point without them.
        let chosen: Vec<&crate::trust::Recommended> =
            r.points.iter().filter(|p| opts.at.is_empty() || opts.at.contains(&p.x)).collect();
        let text = crate::report::check::reframe(model, &data_label, r, &chosen);
        for f in &exports {
            files.push((f.clone(), text.clone()));
        }
    }
    for (path, content) in &files {
        io.file(path, content)?;
    }
    match a.format {
        _ if a.brief => io.stdout(&text)?,
        Format::Json => io.stdout_with(|w| report.write_json(w))?,
        Format::Jsonl => io.stdout_with(|w| report.write_json_line(w))?,
        Format::Csv => {
            io.stdout_with(|w| report.write_csv_with(w, streamed.as_ref().map(|(p, s)| (p, s))))?
        }
        _ => io.stdout(&text)?,
    }
    clock.lap("output");
    if a.timings {
        io.note(&clock.line());
    }
    // A requested threshold below e_max leaves nothing to analyse for it:
    // the report says so, and the exit code tells scripts.
    let empty: Vec<&str> = analysis
        .regions
        .iter()
        .filter(|r| r.shape == Shape::Empty)
        .map(|r| r.threshold.text.as_str())
        .collect();
    let code = if empty.is_empty() {
        super::EXIT_OK
    } else {
        io.note(&format!(
            "errband: threshold {} is below e_max = {} (exact {}): the region is empty",
            empty.join(", "),
            fmt_sig(&analysis.emax, a.common.decimal as usize),
            fmt_fraction(&analysis.emax)
        ));
        super::EXIT_ANALYSIS
    };
    super::free_later((series, text, pruned, function));
    Ok(code)
}

/// What the analysis phase of `--timings` covers for one series.
const ANALYSIS: &str = "fit, e_max, regions, bands";

/// The line that says where a `--brief` answer without `--at` was given:
/// `at: no --at given: p = 512: one step past the largest scale measured
/// …`, ending in a newline.
fn next_note(points: &[Vec<crate::num::Rat>], vars: &[String]) -> String {
    let shown: Vec<String> = points
        .iter()
        .map(|x| {
            vars.iter()
                .zip(x)
                .map(|(v, c)| format!("{v} = {}", crate::num::show_value(c)))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect();
    let how = match vars.len() {
        1 => "one step past the largest scale measured, as the last scales step",
        _ => "each variable one step past its largest scale as its last scales step, the others at their largest",
    };
    format!("  at: no --at given: {}: {how}; give --at for other points\n", shown.join("; "))
}

/// A whole experiment (several series): one analysis per series, in
/// parallel, led by the summary table.
fn run_experiment(
    a: &AnalyzeArgs,
    input: &super::input::Loaded,
    opts: &Options,
    fam: FamilyChoice,
    (plots, plot_at, next_line): (&[(PlotKind, String)], Option<&crate::model::Slice>, Option<&str>),
    report_kind: Option<ReportKind>,
    (io, mut clock): (&mut Io, Timings),
) -> Result<i32, Failure> {
    let n = input.parts.len();
    let refuse = |what: &str| {
        Failure::input(format!(
            "{what} shows one series, and {} holds {n} here; choose one with --region and --metric, or use --report out.html for a band plot per series",
            input.data_path
        ))
    };
    if !plots.is_empty() {
        return Err(refuse("--plot"));
    }
    if a.emit_qe.is_some()
        || !a.drop.is_empty()
        || !a.drop_row.is_empty()
        || a.envelope
        || !a.export.is_empty()
    {
        return Err(refuse("--emit-qe, --drop, --drop-row, --envelope and --export each"));
    }
    if a.format == Format::Latex {
        return Err(refuse("--format latex"));
    }
    let hold = match &a.holdout {
        Some(h) => Some(Holdout::parse(h, &input.model.vars).map_err(|d| Failure::input(d.render(h)))?),
        None => None,
    };
    let holdout = hold.as_ref().zip(a.holdout.as_deref());
    let parts = &input.parts;
    use crate::report::experiment::Section;
    let main = match a.format {
        _ if a.brief => Section::Brief,
        Format::Text => Section::Text,
        Format::Json => Section::Json,
        Format::Jsonl => Section::JsonLine,
        Format::Csv => Section::Csv,
        Format::Md | Format::Latex => Section::Markdown,
    };
    let mut sections = vec![main];
    match report_kind {
        Some(ReportKind::Html) => sections.push(Section::Html),
        Some(ReportKind::Markdown) if main != Section::Markdown => sections.push(Section::Markdown),
        _ => {}
    }
    let mut report = crate::report::experiment::ExperimentReport::new(
        &input.model,
        !fam.own,
        &input.data_path,
        input.parts.format,
        input.parts.total,
        input.aggregate,
        a.common.decimal as usize,
        a.common.exact,
        plot_at,
        &sections,
    );
    // Each series is rendered on the thread that analysed it and its
    // analysis dropped; the report keeps its summary row and spools its
    // sections (module docs of `report::experiment`).
    let spool_failure =
        |e: std::io::Error| Failure::analysis(format!("cannot spool the report to a temporary file: {e}"));
    let renderer = report.renderer();
    // Progress on a terminal only (series done / total and the rate),
    // cleared at the end; nothing in a pipe or a file.
    let bar = {
        use std::io::IsTerminal;
        std::io::stderr().is_terminal().then(|| {
            let b = indicatif::ProgressBar::new(n as u64);
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:40} {pos}/{len} series, {per_sec}, {elapsed} elapsed, {eta} left",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            b
        })
    };
    let render = |e| {
        let r = renderer.render(e);
        if let Some(b) = &bar {
            b.inc(1);
        }
        r
    };
    // With --timeout, no series is started after the deadline, and the
    // report covers those analysed (the watchdog lets the run finish).
    let deadline = io.take_deadline()?;
    let opts = &Options { deadline: deadline.as_ref().map(|(d, _)| *d), ..opts.clone() };
    let request = session::Request::new(&input.data_path, opts).family(fam).holdout(holdout);
    let each = |report: &mut crate::report::experiment::ExperimentReport,
                w: Option<&mut dyn std::io::Write>| {
        let mut w = w;
        session::analyse_experiment_each(parts, &input.model, &input.models, &request, render, |r| {
            report.push_streaming(r, w.as_deref_mut().map(|w| (Section::JsonLine, w)))
        })
    };
    // JSON Lines go out as the series are analysed, in file order: a
    // consumer reading line by line need not wait for the last series.
    let streamed = main == Section::JsonLine;
    let finished = if streamed {
        let mut finished = session::Finished::All;
        io.stdout_with(|w| {
            finished = each(&mut report, Some(w))?;
            Ok(())
        })?;
        finished
    } else {
        each(&mut report, None).map_err(spool_failure)?
    };
    let stopped = match (finished, deadline) {
        (session::Finished::Stopped { analysed }, Some((_, why))) => {
            let why = format!("{why}; {analysed} of {n} series were analysed, and only they are reported");
            report.stop(why.clone());
            Some(why)
        }
        _ => None,
    };
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    clock.lap_covering("analysis", format!("{} series: fit, e_max, regions, bands, rendering", report.len()));
    if let (Some(kind), Some(file)) = (report_kind, &a.report) {
        match kind {
            ReportKind::Html => io.file_with(file, |w| report.write_html(w))?,
            ReportKind::Markdown => io.file_with(file, |w| report.write_markdown(w))?,
        }
    }
    match main {
        Section::Brief => io.stdout_with(|w| {
            report.write_brief(w)?;
            w.write_all(next_line.unwrap_or_default().as_bytes())
        })?,
        Section::Text => io.stdout_with(|w| report.write_text(w))?,
        Section::Json => io.stdout_with(|w| report.write_json(w))?,
        // Written while the series were analysed.
        Section::JsonLine => {}
        Section::Csv => io.stdout_with(|w| report.write_csv(w))?,
        Section::Markdown | Section::Html => io.stdout_with(|w| report.write_markdown(w))?,
    }
    clock.lap("output");
    if a.timings {
        io.note(&clock.line());
    }
    let code = report.worst_failure().map_or(super::EXIT_OK, super::exit_code);
    if code != super::EXIT_OK {
        io.note(&format!("errband: {} of {n} analyses failed (see the table)", report.failed()));
    }
    if let Some(why) = stopped {
        io.note(&format!("errband: {why}"));
        return Ok(super::EXIT_ANALYSIS);
    }
    Ok(code)
}

/// Which whole report `--report` writes.
#[derive(Debug, Clone, Copy)]
enum ReportKind {
    Html,
    Markdown,
}
