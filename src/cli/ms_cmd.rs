//! `errband ms`: the master/slave run-time predictor (Mizutani et al.):
//! `predict` from a task file, `sample` to measure a sub-grid of tasks by
//! running a command, `mandelbrot` to write the paper's example workload.

use super::files::{check_outputs, Io, Kind, Output};
use super::whole::{self, Format};
use super::{read_input, Failure};
use crate::data::tasks::{grid_size, grid_text, read_order, read_speeds, read_tasks, DEFAULT_MAX_TASKS};
use crate::limits::Limits;
use crate::ms::{self, compare_subsets, mandelbrot, MsError, Tasks};
use crate::report::ms::{rate, MsReport};
use clap::{Args, Subcommand};
use std::io::{IsTerminal, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `errband ms`.
#[derive(Args, Debug)]
pub struct MsArgs {
    #[command(subcommand)]
    command: MsCommand,
}

#[derive(Subcommand, Debug)]
enum MsCommand {
    /// Predict the run time for each processor count from measured task times.
    Predict(Box<PredictArgs>),
    /// Measure a regular sub-grid of tasks by running a command per task; writes the task CSV.
    Sample(SampleArgs),
    /// Write the paper's example workload (Mandelbrot, 1024x1024, time = iterations x 1 us) as a task CSV.
    Mandelbrot(MandelbrotArgs),
}

/// `errband ms predict`.
#[derive(Args, Debug)]
pub struct PredictArgs {
    /// Task CSV: columns i1..iN (0-based grid indices), time, and optionally k_in, k_out (bytes); `-` reads standard input.
    pub tasks: String,
    /// The full grid's extent per dimension (`1024x1024`).
    #[arg(long, value_name = "C1xC2...")]
    pub grid: String,
    /// Processor counts P, the master included (P − 1 slaves): lists and ranges (`8..128:8`, `2,4,8`, `2..1024:*2`).
    #[arg(long, value_name = "LIST", default_value = "8..128:8")]
    pub procs: Vec<String>,
    /// LogGP parameters, any subset (the rest keep these defaults): `L=5us,o=1us+0.01us*P,g=1us,G=0.01us/B`.
    #[arg(long, value_name = "PARAMS", default_value = "", allow_hyphen_values = true)]
    pub loggp: String,
    /// Bytes sent with each task, when the task file has no k_in column.
    #[arg(long, value_name = "BYTES", default_value = "16B", allow_hyphen_values = true)]
    pub k_in: String,
    /// Bytes of each task's result, when the task file has no k_out column.
    #[arg(long, value_name = "BYTES", default_value = "8B", allow_hyphen_values = true)]
    pub k_out: String,
    /// Per-slave time ratios (CSV `slave,ratio`; a task's time on the slave over its measured time).
    #[arg(long, value_name = "FILE", conflicts_with = "ratio")]
    pub speeds: Option<String>,
    /// One time ratio for every slave (2 = every slave twice as slow as the measuring machine).
    #[arg(long, value_name = "R", default_value = "1", allow_hyphen_values = true)]
    pub ratio: String,
    /// Allocation order (CSV with columns i1..iN listing every task once); default row-major.
    #[arg(long = "task-order", alias = "order", value_name = "FILE")]
    pub order: Option<String>,
    /// Leave the receive overhead o out of P1 (see `errband ms --help`).
    #[arg(long)]
    pub no_p1_recv: bool,
    /// Compare regular subsets of a fully measured task file: fractions `1/16` or shapes `32x32`, comma-separated.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub compare_subsets: Vec<String>,
    /// Unit of bare numbers in the time column (when its header has none) and in --loggp.
    #[arg(long = "time-unit", alias = "unit", value_name = "UNIT", default_value = "us")]
    pub unit: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Write the plot of predicted run time against P, one line per subset: `[time=]FILE.svg`.
    #[arg(long, value_name = "[KIND=]FILE", value_parser = |s: &str| super::one_plot(s, "time"))]
    pub plot: Option<String>,
    /// Write a whole report: `out.html` (self-contained) or `out.md` (Markdown plus SVG files beside it).
    #[arg(long, value_name = "FILE")]
    pub report: Option<String>,
    /// Show each slave's busy fraction and task count (text).
    #[arg(long)]
    pub per_slave: bool,
    /// Show exact fractions (seconds) instead of decimals.
    #[arg(long)]
    pub exact: bool,
    /// Significant digits of decimals.
    #[arg(long = "decimal", alias = "digits", value_name = "N", default_value_t = 6)]
    pub digits: usize,
    /// Largest grid accepted, in tasks (each takes 16 bytes per column: time, and k_in, k_out when given).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_TASKS)]
    pub max_tasks: u64,
    /// Print where the time went (reading, interpolation, simulation; events per second) to standard error.
    #[arg(long)]
    pub timings: bool,
}

/// `errband ms sample`.
#[derive(Args, Debug)]
pub struct SampleArgs {
    /// The full grid's extent per dimension (`64x64`).
    #[arg(long, value_name = "C1xC2...")]
    pub grid: String,
    /// Sample every N-th index of each dimension (`8`, or per dimension `8x4`); the last index is always sampled.
    #[arg(long, value_name = "N", default_value = "1")]
    pub every: String,
    /// Runs per task; the shortest time is kept.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub repeat: u32,
    /// Write the task CSV here (default: standard output).
    #[arg(long, short, value_name = "FILE")]
    pub out: Option<String>,
    /// Print the commands instead of running them.
    #[arg(long)]
    pub dry_run: bool,
    /// The command and its arguments; `{i1}`, `{i2}`, … are replaced by the task's indices.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// `errband ms mandelbrot`.
#[derive(Args, Debug)]
pub struct MandelbrotArgs {
    /// Grid rows x columns (y x x).
    #[arg(long, value_name = "C1xC2...", default_value = "1024x1024")]
    pub grid: String,
    /// Iteration limit.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub max_iter: u32,
    /// Microseconds per iteration.
    #[arg(long, value_name = "US", default_value_t = 1)]
    pub us_per_iter: u32,
    /// Write the task CSV here (default: standard output).
    #[arg(long, short, value_name = "FILE")]
    pub out: Option<String>,
}

/// Runs `errband ms`.
pub fn run(a: MsArgs, limits: &Limits, io: &mut Io) -> Result<i32, Failure> {
    match a.command {
        MsCommand::Predict(p) => predict(*p, limits, io),
        MsCommand::Sample(s) => sample(s, io),
        MsCommand::Mandelbrot(m) => write_mandelbrot(m, io),
    }
}

fn ms_failure(e: MsError) -> Failure {
    match e {
        MsError::Input(m) => Failure::input(m),
        MsError::Limit(m) => Failure::analysis(m),
    }
}

/// Reads a file for a task-file reader, rendering its errors against the text.
fn read_located<T>(
    path: &str,
    read: impl FnOnce(&str, &str) -> Result<T, crate::data::DataError>,
) -> Result<T, Failure> {
    let text = read_input(path)?;
    let name = if path == "-" { "<stdin>" } else { path };
    read(&text, name).map_err(|e| Failure::input(e.render(&text)))
}

fn predict(a: PredictArgs, limits: &Limits, io: &mut Io) -> Result<i32, Failure> {
    let t0 = Instant::now();
    let inputs: Vec<&str> =
        std::iter::once(&a.tasks).chain(&a.speeds).chain(&a.order).map(String::as_str).collect();
    let mut outputs: Vec<Output> = a.plot.iter().map(|f| Output::new("--plot", f, Kind::Svg)).collect();
    outputs.extend(whole::report_outputs(a.report.as_ref(), &["time"]));
    check_outputs(&inputs, &outputs)?;
    let options = ms::args::TextOptions {
        grid: a.grid.clone(),
        procs: a.procs.clone(),
        loggp: a.loggp.clone(),
        k_in: a.k_in.clone(),
        k_out: a.k_out.clone(),
        ratio: a.ratio.clone(),
        no_p1_recv: a.no_p1_recv,
        compare_subsets: a.compare_subsets.clone(),
        unit: a.unit.clone(),
        max_tasks: a.max_tasks,
    };
    let ms::args::Parsed { grid, tasks: n_tasks, procs, mut machine, subsets: specs } =
        options.parse(limits).map_err(ms_failure)?;
    if let Some(f) = &a.speeds {
        machine.ratios = read_located(f, |text, name| read_speeds(text, name, limits))?;
    }
    let sampled = read_located(&a.tasks, |text, name| read_tasks(text, name, &grid, &a.unit, limits))?;
    let order = match &a.order {
        Some(f) => Some(read_located(f, |text, name| read_order(text, name, &grid, n_tasks))?),
        None => None,
    };
    let t_read = t0.elapsed();
    // With subsets, the comparison's full prediction is the file's prediction.
    let (pred, comparison, t_interp) = if specs.is_empty() {
        let tasks = Tasks::interpolate(&sampled).map_err(ms_failure)?;
        let t_interp = t0.elapsed();
        (ms::predict(&tasks, order.as_deref(), &machine, &procs).map_err(ms_failure)?, None, t_interp)
    } else {
        let c = compare_subsets(&sampled, &specs, order.as_deref(), &machine, &procs).map_err(ms_failure)?;
        (c.full.clone(), Some(c), t_read)
    };
    let t_sim = t0.elapsed();
    let file = if a.tasks == "-" { "<stdin>" } else { a.tasks.as_str() };
    let report = MsReport {
        file,
        grid: &grid,
        sub_grid: sampled.axes.iter().map(Vec::len).collect(),
        machine: &machine,
        speeds_file: a.speeds.as_deref(),
        order_file: a.order.as_deref(),
        pred: &pred,
        comparison: comparison.as_ref(),
        digits: a.digits.clamp(1, 40),
        exact: a.exact,
        per_slave: a.per_slave,
    };
    let plots: Vec<_> = a.plot.iter().map(|f| ("time", f.clone())).collect();
    whole::finish(&report, a.format, &plots, a.report.as_ref(), io)?;
    if a.timings {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let runs = pred.points.len() * (1 + comparison.as_ref().map_or(0, |c| c.subsets.len()));
        let events = pred.events()
            + comparison.as_ref().map_or(0, |c| c.subsets.iter().map(|r| r.prediction.events()).sum());
        let work = if comparison.is_some() { "interpolate and simulate" } else { "simulate" };
        let interp = if comparison.is_some() {
            String::new()
        } else {
            format!("interpolate {:.1} ms, ", ms(t_interp - t_read))
        };
        io.note(&format!(
            "timings: read {:.1} ms, {interp}{work} {:.1} ms ({runs} run{}, {events} events, {} on {} threads), total {:.1} ms",
            ms(t_read),
            ms(t_sim - t_interp),
            if runs == 1 { "" } else { "s" },
            rate(events, (t_sim - t_interp).as_secs_f64()),
            rayon::current_num_threads(),
            ms(t0.elapsed())
        ));
    }
    Ok(super::EXIT_OK)
}

/// The sampled indices of each dimension: every `step`-th, and the last.
fn every_axes(grid: &[u32], every: &str) -> Result<Vec<Vec<u32>>, Failure> {
    let steps: Vec<u32> = every
        .split(['x', 'X'])
        .map(|s| s.trim().parse::<u32>().ok().filter(|&n| n >= 1))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| {
            Failure::input(format!("--every {every}: expected a step ≥ 1 (`8`) or one per dimension (`8x4`)"))
        })?;
    let steps = match steps.len() {
        1 => vec![steps[0]; grid.len()],
        n if n == grid.len() => steps,
        n => {
            return Err(Failure::input(format!(
                "--every {every}: {n} steps for a {}-dimensional grid",
                grid.len()
            )))
        }
    };
    Ok(grid
        .iter()
        .zip(&steps)
        .map(|(&c, &s)| {
            let mut axis: Vec<u32> = (0..c).step_by(s as usize).collect();
            if axis.last() != Some(&(c - 1)) {
                axis.push(c - 1);
            }
            axis
        })
        .collect())
}

/// The command line of one task: `{iK}` replaced by its K-th index.
fn task_command(template: &[String], idx: &[u32]) -> Vec<String> {
    template
        .iter()
        .map(|arg| {
            let mut s = arg.clone();
            for (k, i) in idx.iter().enumerate().rev() {
                s = s.replace(&format!("{{i{}}}", k + 1), &i.to_string());
            }
            s
        })
        .collect()
}

use crate::measure::shell_word;

fn shell_line(argv: &[String]) -> String {
    argv.iter().map(|a| shell_word(a)).collect::<Vec<_>>().join(" ")
}

/// Nanoseconds as microseconds with three decimals, exactly.
fn us_text(ns: u128) -> String {
    format!("{}.{:03}", ns / 1000, ns % 1000)
}

fn sample(a: SampleArgs, io: &mut Io) -> Result<i32, Failure> {
    // The command's program and any argument naming an existing file are
    // inputs: `--out` may not replace them.
    let inputs: Vec<&str> =
        a.command.iter().map(String::as_str).filter(|c| std::path::Path::new(c).is_file()).collect();
    let outputs: Vec<Output> = a.out.iter().map(|f| Output::new("--out", f, Kind::Csv)).collect();
    check_outputs(&inputs, &outputs)?;
    let grid = ms::args::grid(&a.grid, "--grid").map_err(Failure::input)?;
    grid_size(&grid, DEFAULT_MAX_TASKS).map_err(Failure::input)?;
    let axes = every_axes(&grid, &a.every)?;
    if a.repeat == 0 {
        return Err(Failure::input("--repeat 0: each task must run at least once"));
    }
    let dims = grid.len();
    if let Some(bad) = a.command.iter().flat_map(|s| placeholders(s)).find(|&k| k == 0 || k > dims) {
        return Err(Failure::input(format!(
            "the command uses {{i{bad}}} but the grid has {dims} dimension{} ({{i1}}..{{i{dims}}})",
            if dims == 1 { "" } else { "s" }
        )));
    }
    // Every combination of the sampled indices, row-major.
    let mut tasks: Vec<Vec<u32>> = vec![Vec::new()];
    for axis in &axes {
        tasks = tasks.iter().flat_map(|t| axis.iter().map(move |&i| [t.as_slice(), &[i]].concat())).collect();
    }
    let program = &a.command[0];
    let header = format!(
        "# measured by errband ms sample: {} tasks of the {} grid (every {}), shortest of {} run{} each\n# command: {}\n{},time [us]\n",
        tasks.len(),
        grid_text(&grid),
        a.every,
        a.repeat,
        if a.repeat == 1 { "" } else { "s" },
        shell_line(&a.command),
        crate::data::tasks::index_names(dims).join(",")
    );
    if a.dry_run {
        let mut s = String::new();
        for t in &tasks {
            s += &shell_line(&task_command(&a.command, t));
            s.push('\n');
        }
        io.stdout(&s)?;
        return Ok(super::EXIT_OK);
    }
    let bar = if std::io::stderr().is_terminal() {
        let b = indicatif::ProgressBar::new(tasks.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} tasks, {elapsed} elapsed, {eta} left",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        Some(b)
    } else {
        None
    };
    let mut csv = header;
    for t in &tasks {
        let argv = task_command(&a.command, t);
        let mut best: Option<u128> = None;
        for _ in 0..a.repeat {
            let start = Instant::now();
            let output = Command::new(program)
                .args(&argv[1..])
                .env("ERRBAND_TASK", t.iter().map(u32::to_string).collect::<Vec<_>>().join(","))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .output();
            let ns = start.elapsed().as_nanos();
            let output = output.map_err(|e| Failure::input(format!("cannot run `{program}`: {e}")))?;
            if !output.status.success() {
                let stderr = String::from_utf8_lossy(&output.stderr);
                let tail: Vec<&str> =
                    stderr.lines().rev().take(5).collect::<Vec<_>>().into_iter().rev().collect();
                return Err(Failure::analysis(format!(
                    "task ({}): `{}` failed ({}){}{}",
                    t.iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
                    shell_line(&argv),
                    output.status,
                    if tail.is_empty() { "" } else { "; its last error output:\n  " },
                    tail.join("\n  ")
                )));
            }
            best = Some(best.map_or(ns, |b| b.min(ns)));
        }
        csv += &format!(
            "{},{}\n",
            t.iter().map(u32::to_string).collect::<Vec<_>>().join(","),
            us_text(best.unwrap_or(0))
        );
        if let Some(b) = &bar {
            b.inc(1);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    match &a.out {
        Some(f) => {
            io.file_described(f, &csv, &format!("{} measured tasks", tasks.len()))?;
        }
        None => io.stdout(&csv)?,
    }
    Ok(super::EXIT_OK)
}

/// The K of every `{iK}` in `s`.
fn placeholders(s: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(p) = rest.find("{i") {
        let tail = &rest[p + 2..];
        let digits: String = tail.chars().take_while(char::is_ascii_digit).collect();
        if !digits.is_empty() && tail[digits.len()..].starts_with('}') {
            out.push(digits.parse().unwrap_or(0));
        }
        rest = tail;
    }
    out
}

fn write_mandelbrot(a: MandelbrotArgs, io: &mut Io) -> Result<i32, Failure> {
    let outputs: Vec<Output> = a.out.iter().map(|f| Output::new("--out", f, Kind::Csv)).collect();
    check_outputs(&[], &outputs)?;
    let grid = ms::args::grid(&a.grid, "--grid").map_err(Failure::input)?;
    let [rows, cols] = grid[..] else {
        return Err(Failure::input(format!(
            "--grid {}: the Mandelbrot workload is two-dimensional (ROWSxCOLS)",
            a.grid
        )));
    };
    grid_size(&grid, DEFAULT_MAX_TASKS).map_err(Failure::input)?;
    if a.max_iter == 0 {
        return Err(Failure::input("--max-iter 0: at least one iteration"));
    }
    let write = |w: &mut dyn Write| mandelbrot::write_csv(w, rows, cols, a.max_iter, a.us_per_iter);
    match &a.out {
        Some(f) => io.file_with(f, write)?,
        None => io.stdout_with(write)?,
    }
    Ok(super::EXIT_OK)
}
