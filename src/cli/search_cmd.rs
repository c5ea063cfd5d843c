//! `errband prune` and `errband plan`: searches over candidate data sets,
//! run in parallel (rayon) with a progress bar on a terminal.

use super::files::{check_outputs, Io, Kind, Output};
use super::input::{load, CommonArgs, Loaded};
use super::timings::Timings;
use super::whole::{self, Format};
use super::Failure;
use crate::limits::Limits;
use crate::num::Rat;
use crate::plan;
use crate::prune::{self, PruneError, Search};
use crate::report::plan::PlanReport;
use crate::report::prune::PruneReport;
use crate::report::CommandReport;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// Options shared by `prune` and `plan`.
#[derive(Args, Debug)]
pub struct SearchArgs {
    /// Model file (`.tm`).
    #[arg(value_name = "MODEL")]
    pub model: String,
    /// Measurements (CSV or Extra-P text).
    #[arg(value_name = "DATA")]
    pub data: String,
    #[command(flatten)]
    pub common: CommonArgs,
    /// Points where the band matters, e.g. `p=1000`; repeatable (default: the model's `predict` points).
    #[arg(long, value_name = "POINTS")]
    pub target: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Rows shown in the ranked table (0: all).
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub show: usize,
    /// Write the comparison chart: `[chart=]FILE.svg`.
    #[arg(long, value_name = "[KIND=]FILE", value_parser = |s: &str| super::one_plot(s, "chart"))]
    pub plot: Option<String>,
    /// Write a whole report: `out.html` (self-contained) or `out.md` (Markdown plus SVG files beside it).
    #[arg(long, value_name = "FILE")]
    pub report: Option<String>,
    /// Worker threads (default: one per core); results do not depend on it.
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub jobs: Option<u32>,
    /// Print the time spent in each phase to standard error.
    #[arg(long)]
    pub timings: bool,
}

/// `errband prune`.
#[derive(Args, Debug)]
pub struct PruneArgs {
    #[command(flatten)]
    pub search: SearchArgs,
    /// Largest number of points a generated candidate drops (1: leave-one-out; 2: also every pair; 0: none).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub max_drop: usize,
    /// A pruning choice to compare, e.g. `p=110` or `p=10,p=20`; repeatable.
    #[arg(long, value_name = "POINTS")]
    pub candidate: Vec<String>,
    /// Steps of the greedy sequence that drops the largest weighted residual (0: none).
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub greedy: usize,
    /// Generate candidates only from the N points with the largest weighted residuals.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
}

/// `errband plan`.
#[derive(Args, Debug)]
pub struct PlanArgs {
    #[command(flatten)]
    pub search: SearchArgs,
    /// Candidate points for the next measurement, e.g. `p=130..300:10` (also `p=130..300 step 10`); repeatable.
    #[arg(long = "candidate", alias = "candidates", value_name = "POINTS", required = true, num_args = 1..)]
    pub candidates: Vec<String>,
}

/// A progress bar on stderr when it is a terminal and the search is long.
fn progress() -> impl Fn(usize) + Sync {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    let on_terminal = std::io::stderr().is_terminal();
    move |n: usize| {
        if n > 0 {
            if on_terminal && n >= 8 {
                bar.set_draw_target(ProgressDrawTarget::stderr());
                bar.set_style(
                    ProgressStyle::with_template("{prefix} {wide_bar} {pos}/{len} candidates, {eta} left")
                        .unwrap_or_else(|_| ProgressStyle::default_bar()),
                );
                bar.set_prefix("errband");
            }
            bar.set_length(n as u64);
        } else {
            bar.inc(1);
            if bar.length() == Some(bar.position()) {
                bar.finish_and_clear();
            }
        }
    }
}

fn pool(jobs: Option<u32>) -> Result<rayon::ThreadPool, Failure> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(j) = jobs {
        b = b.num_threads(j as usize);
    }
    b.build().map_err(|e| Failure::analysis(format!("cannot start worker threads: {e}")))
}

fn targets(input: &Loaded, a: &SearchArgs) -> Result<Vec<Vec<Rat>>, Failure> {
    let t = input.points(&a.target, "--target")?;
    if !t.is_empty() {
        return Ok(t);
    }
    if input.model.predict.is_empty() {
        return Err(Failure::input(format!(
            "no target: give --target (e.g. --target {}=1000) or a `predict` statement in {}",
            input.model.vars.first().map_or("p", String::as_str),
            input.model.file
        )));
    }
    Ok(input.model.predict.clone())
}

/// Checks the output paths (`--plot`, `--report` and the chart beside a
/// Markdown report) against the inputs and each other, before any work.
fn check_search_outputs(s: &SearchArgs) -> Result<(), Failure> {
    let mut outputs: Vec<Output> = s.plot.iter().map(|f| Output::new("--plot", f, Kind::Svg)).collect();
    outputs.extend(whole::report_outputs(s.report.as_ref(), &["chart"]));
    check_outputs(&[&s.model, &s.data], &outputs)
}

/// Writes the chart (`--plot`), the whole report and the chosen format
/// ([`whole::finish`]).
fn finish(r: &dyn CommandReport, s: &SearchArgs, io: &mut Io, mut clock: Timings) -> Result<i32, Failure> {
    let plots: Vec<_> = s.plot.iter().map(|f| ("chart", f.clone())).collect();
    let code = whole::finish(r, s.format, &plots, s.report.as_ref(), io)?;
    clock.lap("output");
    if s.timings {
        io.note(&clock.line());
    }
    Ok(code)
}

/// Runs `errband prune`.
pub fn run_prune(a: PruneArgs, limits: &Limits, io: &mut Io) -> Result<i32, Failure> {
    let s = &a.search;
    let mut clock = Timings::start();
    check_search_outputs(s)?;
    let input = load(Some(&s.model), &s.data, &s.common, limits)?;
    clock.lap("parse");
    let targets = targets(&input, s)?;
    let mut user = Vec::new();
    for c in &a.candidate {
        user.push((c.clone(), input.model.dropped_points(c, "--candidate").map_err(Failure::input)?));
    }
    let search = Search { max_drop: a.max_drop, top: a.top, greedy: a.greedy, user };
    let rows = &input.single("prune")?.rows;
    let tick = progress();
    let cmp = pool(s.jobs)?
        .install(|| prune::compare(&input.model, rows, &input.data_path, &input.options(), &targets, &search, &tick))
        .map_err(|e| match e {
            PruneError::Analysis(e) => Failure::of(&e),
            PruneError::NoSuchPoint(p) => Failure::input(format!("--candidate {p}: no measurement is at that point")),
            PruneError::TooMany(n, limit) => Failure::input(format!(
                "--max-drop {} generates {n} candidates (limit {limit}): add --top N to draw them from the N largest residuals, or raise the limit with --max-candidates",
                a.max_drop
            )),
            PruneError::Nothing => Failure::input(
                "nothing to compare: --max-drop 0, --greedy 0 and no --candidate".to_string(),
            ),
        })?;
    clock.lap_covering("search", format!("{} pruning choices, each a whole re-analysis", cmp.outcomes.len()));
    let r = PruneReport {
        model: &input.model,
        data_file: &input.data_path,
        data: rows,
        cmp: &cmp,
        digits: s.common.decimal as usize,
        exact: s.common.exact,
        show: s.show,
    };
    finish(&r, s, io, clock)
}

/// Runs `errband plan`.
pub fn run_plan(a: PlanArgs, limits: &Limits, io: &mut Io) -> Result<i32, Failure> {
    let s = &a.search;
    let mut clock = Timings::start();
    check_search_outputs(s)?;
    let input = load(Some(&s.model), &s.data, &s.common, limits)?;
    clock.lap("parse");
    let targets = targets(&input, s)?;
    let cands = input.model.candidate_points(&a.candidates, "--candidate").map_err(Failure::input)?;
    // Each candidate is a whole re-analysis: the count is checked before
    // the first one starts, not found out by waiting.
    if cands.len() > limits.candidates {
        return Err(Failure::input(format!(
            "--candidate: {} candidate points, each a whole re-analysis {}; give fewer (a coarser step), or raise the limit",
            cands.len(),
            crate::limits::Limit::Candidates.note(limits)
        )));
    }
    let tick = progress();
    let rows = &input.single("plan")?.rows;
    let p = pool(s.jobs)?
        .install(|| {
            plan::plan(&input.model, rows, &input.data_path, &input.options(), &targets, &cands, &tick)
        })
        .map_err(|e| Failure::of(&e))?;
    clock.lap_covering("search", format!("{} candidate points, each a whole re-analysis", cands.len()));
    let r = PlanReport {
        model: &input.model,
        data_file: &input.data_path,
        plan: &p,
        digits: s.common.decimal as usize,
        exact: s.common.exact,
        show: s.show,
    };
    finish(&r, s, io, clock)
}
