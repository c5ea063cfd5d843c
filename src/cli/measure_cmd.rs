//! `errband measure`: runs a command at every point of a grid of variable
//! values, several times each in a shuffled order, and writes the CSV file
//! errband reads, one row per run, each row appended as it finishes.

use super::files::{check_outputs, Io, Kind, Output};
use super::Failure;
use crate::limits::Limits;
use crate::measure::{self, MeasureError, MetricPattern, Slot};
use crate::num::Rat;
use clap::Args;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::io::IsTerminal;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// `errband measure`.
#[derive(Args, Debug)]
pub struct MeasureArgs {
    /// Values of a variable, in the `--at` syntax: `p=1,2,4..64:*2`, `n=100..300:100`; repeatable (every combination is run).
    #[arg(long, value_name = "VAR=VALUES", required = true)]
    pub var: Vec<String>,
    /// Measured runs at each point.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub runs: u32,
    /// Runs at each point before its first measured run, not recorded.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub warmup: u32,
    /// Write the CSV here, one row appended per finished run (default: standard output).
    #[arg(long, short, value_name = "FILE")]
    pub out: Option<String>,
    /// Continue the file `--out` names: the runs it holds at each point are not run again.
    #[arg(long)]
    pub resume: bool,
    /// Seed of the shuffled order of the runs (default: from the clock); the file records it.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Take the metric from the program's output instead of the wall-clock time: REGEX's group `value` (else its first group) is the number; with a group `unit` (ns, us, ms, s, min, h) it is a time, recorded in seconds.
    #[arg(long, value_name = "REGEX")]
    pub metric_from: Option<String>,
    /// Take the metric from a file the command writes (`{VAR}` and `{run}` replaced): the whole file is the number, or `--metric-from`'s match in it.
    #[arg(long, value_name = "FILE")]
    pub metric_file: Option<String>,
    /// Column holding the measured value [default: time].
    #[arg(long, value_name = "COLUMN")]
    pub y: Option<String>,
    /// Also write every recorded run as JSON, as hyperfine's --export-json does (one result per point, with its times); `errband check --new` reads it.
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<String>,
    /// Print the commands in the order they would run instead of running them.
    #[arg(long)]
    pub dry_run: bool,
    /// The command and its arguments; `{VAR}` is replaced by the run's value of VAR, `{run}` by the run's number at its point (0 for a warm-up run); no shell: write `sh -c '…'` for one.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// What is measured.
enum Metric {
    /// The wall-clock time of the command.
    Wall,
    /// A number the program prints (standard output, then standard error).
    Printed(MetricPattern),
    /// A number in a file the command writes (a template), maybe found by a pattern.
    File(String, Option<MetricPattern>),
}

/// One recorded run.
struct Recorded {
    point: usize,
    value: Rat,
}

/// `--export-json`: hyperfine's layout (`results[].parameters`, `times`,
/// `mean`…), so tools that read hyperfine's exports read this one.
#[derive(Serialize)]
struct Export {
    errband: &'static str,
    command: String,
    seed: u64,
    variables: Vec<String>,
    metric: String,
    unit: Option<&'static str>,
    results: Vec<ExportResult>,
}

#[derive(Serialize)]
struct ExportResult {
    command: String,
    parameters: BTreeMap<String, String>,
    /// Correctly rounded views (17 significant digits) of exact values.
    mean: serde_json::Number,
    median: serde_json::Number,
    min: serde_json::Number,
    max: serde_json::Number,
    /// Exact, as recorded in the CSV.
    times: Vec<serde_json::Number>,
}

fn number(text: &str) -> serde_json::Number {
    // A decimal errband wrote itself always parses; zero is never shown.
    text.parse().unwrap_or_else(|_| serde_json::Number::from(0))
}

fn failure(e: MeasureError) -> Failure {
    Failure::of(&e)
}

/// The local date and time in UTC as ISO 8601 (`2026-11-27T02:10:00Z`),
/// without a date crate: the civil calendar from days since 1970.
fn utc_now() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem / 60 % 60, rem % 60)
}

/// The machine's name, for the record (`unknown` when it cannot be read).
fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .unwrap_or_else(|| "unknown".into())
}

/// The `# seed: N` a file records.
fn recorded_seed(text: &str) -> Option<u64> {
    text.lines().find_map(|l| l.strip_prefix("# seed: ").and_then(|s| s.trim().parse().ok()))
}

/// Runs `errband measure`.
pub fn run(a: MeasureArgs, limits: &Limits, io: &mut Io) -> Result<i32, Failure> {
    // The variables and their grid, read by the `--at` parser: a model
    // `T(vars) = c0` gives the same ranges, lists and limits.
    let mut vars: Vec<String> = Vec::new();
    for v in &a.var {
        let Some((name, _)) = v.split_once('=') else {
            return Err(Failure::input(format!("--var {v}: expected VAR=VALUES, e.g. p=1,2,4..64:*2")));
        };
        vars.push(name.trim().to_string());
    }
    let ycol = a.y.clone().unwrap_or_else(|| "time".into());
    if vars.iter().any(|v| v == "run") {
        return Err(Failure::input("--var run=…: `{run}` is the run's number; name the variable otherwise"));
    }
    if let Some(v) = vars.iter().find(|v| **v == ycol) {
        return Err(Failure::input(format!(
            "--var {v}: the variable has the name of the measured column; name the column with --y"
        )));
    }
    let func = if vars.iter().any(|v| v == "T") { "T_" } else { "T" };
    let names: Vec<&str> = vars.iter().map(String::as_str).collect();
    let grid_model = crate::model::Spec::new(func, &names, "c0")
        .params(&["c0"])
        .build("--var", crate::num::transcendental::DEFAULT_DIGITS, limits)
        .map_err(|d| Failure::input(format!("--var: {}", d.message)))?;
    let points = grid_model.points_args(&[a.var.join(",")], "--var").map_err(Failure::input)?;
    if a.runs == 0 {
        return Err(Failure::input("--runs 0: each point must be measured at least once"));
    }
    if a.resume && a.out.is_none() {
        return Err(Failure::input("--resume continues the file --out names; give --out"));
    }
    let pattern = a.metric_from.as_deref().map(MetricPattern::new).transpose().map_err(failure)?;
    let metric = match (&a.metric_file, pattern) {
        (Some(f), p) => Metric::File(f.clone(), p),
        (None, Some(p)) => Metric::Printed(p),
        (None, None) => Metric::Wall,
    };
    let timed = match &metric {
        Metric::Wall => true,
        Metric::Printed(p) | Metric::File(_, Some(p)) => p.has_unit(),
        Metric::File(_, None) => false,
    };
    // The command's program and any argument naming an existing file are
    // inputs: no output may replace them.
    let inputs: Vec<&str> = a.command.iter().map(String::as_str).filter(|c| Path::new(c).is_file()).collect();
    let mut outputs: Vec<Output> = Vec::new();
    if let Some(f) = &a.out {
        if !a.resume && Path::new(f).exists() {
            return Err(Failure::input(format!(
                "--out {}: the file exists; --resume continues it (the runs it holds are not run again), or name a new file",
                super::files::escape_controls(f)
            )));
        }
        outputs.push(Output::new("--out", f, Kind::Csv));
    }
    if let Some(f) = &a.export_json {
        outputs.push(Output::new("--export-json", f, Kind::Json));
    }
    check_outputs(&inputs, &outputs)?;

    let values: Vec<Vec<String>> =
        points.iter().map(|p| p.iter().map(crate::model::show_value).collect()).collect();
    let index: HashMap<Vec<Rat>, usize> = points.iter().cloned().enumerate().map(|(i, p)| (p, i)).collect();
    let header_cell = if timed { format!("{ycol} [s]") } else { ycol.clone() };
    // What the file already holds (--resume).
    let mut recorded: Vec<Recorded> = Vec::new();
    let mut done = vec![0u32; points.len()];
    let mut seed = a.seed;
    let existing = match &a.out {
        Some(f) if a.resume && Path::new(f).exists() => {
            // A row cut short by a killed session is not a measurement.
            let cut = measure::drop_incomplete_line(Path::new(f))
                .map_err(|e| failure(MeasureError::Io(f.clone(), e)))?;
            if cut > 0 {
                io.note(&format!("--resume: dropped the incomplete last line of {f} ({cut} bytes)"));
            }
            Some(super::read_input(f)?)
        }
        _ => None,
    };
    if let (Some(text), Some(f)) = (&existing, &a.out) {
        let mut cols = crate::data::column_names(text, None);
        let want: Vec<String> = vars.iter().cloned().chain([ycol.clone()]).collect();
        cols.iter_mut().for_each(|c| *c = c.trim().to_string());
        if cols != want {
            return Err(failure(MeasureError::Resume(
                f.clone(),
                format!("its columns are {}, and this session writes {}", cols.join(","), want.join(",")),
            )));
        }
        let spec = crate::data::ColumnSpec {
            vars: vars.clone(),
            y: ycol.clone(),
            limits: *limits,
            ..Default::default()
        };
        let ds = crate::data::read(text, f, &spec).map_err(|e| Failure::input(e.render(text)))?;
        for m in ds.rows {
            match index.get(&m.x) {
                Some(&i) => {
                    done[i] += 1;
                    recorded.push(Recorded { point: i, value: m.y });
                }
                None => {
                    return Err(failure(MeasureError::Resume(
                        f.clone(),
                        format!(
                            "line {} is at {}, which --var does not name; resume with the same --var",
                            m.line,
                            grid_model.show_point(&m.x)
                        ),
                    )))
                }
            }
        }
        seed = seed.or_else(|| recorded_seed(text));
    }
    let seed = seed.unwrap_or_else(|| {
        let t =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        (t as u64) ^ u64::from(std::process::id()).rotate_left(32)
    });
    let slots = measure::schedule(points.len(), a.runs, &done, seed);
    // `{run}` too: a command that writes its metric to a file names the file by it.
    let with_run: Vec<String> = vars.iter().cloned().chain(["run".to_string()]).collect();
    let argv_of = |s: &Slot, run: u32| {
        let vals: Vec<String> = values[s.point].iter().cloned().chain([run.to_string()]).collect();
        measure::substitute(&a.command, &with_run, &vals)
    };
    if a.dry_run {
        let mut s = String::new();
        for slot in &slots {
            s += &measure::shell_line(&argv_of(slot, slot.run));
            s.push('\n');
        }
        io.stdout(&s)?;
        return Ok(super::EXIT_OK);
    }

    let command_text = measure::shell_line(&a.command);
    let what = match &metric {
        Metric::Wall => "the wall-clock time of the command".to_string(),
        Metric::Printed(_) => {
            format!("the number the program prints matching {}", a.metric_from.as_deref().unwrap_or(""))
        }
        Metric::File(f, _) => format!("the number in the file {f} the command writes"),
    };
    let now = utc_now();
    let record = |s: &mut String| {
        s.push_str(&format!(
            "# date: {now}\n# host: {}; {} {}\n",
            host(),
            std::env::consts::OS,
            std::env::consts::ARCH
        ));
    };
    match (&existing, &a.out) {
        (None, Some(f)) => {
            let mut head = format!(
                "# measured by errband {} (errband measure)\n# command: {command_text}\n",
                crate::VERSION
            );
            record(&mut head);
            head.push_str(&format!(
                "# runs: {} per point{}, in shuffled order\n# seed: {seed}\n# metric: {what}\n{},{header_cell}\n",
                a.runs,
                match a.warmup {
                    0 => String::new(),
                    w => format!(" after {w} warm-up run{} (not recorded)", if w == 1 { "" } else { "s" }),
                },
                vars.join(",")
            ));
            measure::create_new(Path::new(f), &head).map_err(|e| failure(MeasureError::Io(f.clone(), e)))?;
        }
        (Some(_), Some(_)) if slots.is_empty() => {}
        (Some(_), Some(f)) => {
            let mut note = format!("# resumed by errband {}: {} runs left\n", crate::VERSION, slots.len());
            record(&mut note);
            measure::append_lines(Path::new(f), &note)
                .map_err(|e| failure(MeasureError::Io(f.clone(), e)))?;
        }
        (_, None) => {
            let mut head = format!(
                "# measured by errband {} (errband measure)\n# command: {command_text}\n",
                crate::VERSION
            );
            record(&mut head);
            head.push_str(&format!("# seed: {seed}\n{},{header_cell}\n", vars.join(",")));
            io.stdout(&head)?;
            io.flush()?;
        }
    }

    let bar = (std::io::stderr().is_terminal() && !slots.is_empty()).then(|| {
        let b = indicatif::ProgressBar::new(slots.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} runs, {elapsed} elapsed, {eta} left",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    });
    let mut warmed = vec![false; points.len()];
    let total = slots.len();
    for (k, slot) in slots.iter().enumerate() {
        let argv = argv_of(slot, slot.run);
        if !warmed[slot.point] {
            warmed[slot.point] = true;
            for _ in 0..a.warmup {
                run_once(&argv_of(slot, 0), &metric, &vars, &values[slot.point], 0)?;
            }
        }
        let value = run_once(&argv, &metric, &vars, &values[slot.point], slot.run)?;
        let row = format!("{},{}\n", values[slot.point].join(","), measure::value_text(&value));
        match &a.out {
            Some(f) => measure::append_lines(Path::new(f), &row)
                .map_err(|e| failure(MeasureError::Io(f.clone(), e)))?,
            None => {
                io.stdout(&row)?;
                io.flush()?;
            }
        }
        match &bar {
            Some(b) => b.inc(1),
            None => io.note(&format!(
                "measure: {}/{total} {} run {}: {}{}",
                k + 1,
                grid_model.show_point(&points[slot.point]),
                slot.run,
                crate::num::fmt_sig(&value, 4),
                if timed { " s" } else { "" }
            )),
        }
        recorded.push(Recorded { point: slot.point, value });
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if let Some(f) = &a.out {
        io.note(&format!("wrote {f} ({total} runs at {} points)", points.len()));
    }
    if let Some(f) = &a.export_json {
        let mut results = Vec::new();
        for (i, vals) in values.iter().enumerate() {
            let times: Vec<Rat> = recorded.iter().filter(|r| r.point == i).map(|r| r.value.clone()).collect();
            if times.is_empty() {
                continue;
            }
            let n = Rat::from_integer((times.len() as i64).into());
            let mean = times.iter().fold(Rat::default(), |s, t| s + t) / n;
            let view = |x: &Rat| number(&crate::num::fmt_sig(x, 17));
            let median = measure::median(&times).unwrap_or_default();
            let min = times.iter().min().cloned().unwrap_or_default();
            let max = times.iter().max().cloned().unwrap_or_default();
            results.push(ExportResult {
                command: measure::shell_line(&measure::substitute(&a.command, &vars, vals)),
                parameters: vars.iter().cloned().zip(vals.iter().cloned()).collect(),
                mean: view(&mean),
                median: view(&median),
                min: view(&min),
                max: view(&max),
                times: times.iter().map(|t| number(&measure::value_text(t))).collect(),
            });
        }
        let export = Export {
            errband: crate::VERSION,
            command: command_text.clone(),
            seed,
            variables: vars.clone(),
            metric: ycol.clone(),
            unit: timed.then_some("s"),
            results,
        };
        let text = serde_json::to_string_pretty(&export)
            .map(|s| s + "\n")
            .map_err(|e| Failure::analysis(format!("cannot write JSON: {e}")))?;
        io.file(f, &text)?;
    }
    Ok(super::EXIT_OK)
}

/// Runs the command once and returns its metric (`run` 0: a warm-up).
fn run_once(
    argv: &[String],
    metric: &Metric,
    vars: &[String],
    values: &[String],
    run: u32,
) -> Result<Rat, Failure> {
    let line = measure::shell_line(argv);
    let (program, args) = argv.split_first().ok_or_else(|| Failure::input("no command given after --"))?;
    let capture = matches!(metric, Metric::Printed(_));
    let start = Instant::now();
    let output = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(if capture { Stdio::piped() } else { Stdio::null() })
        .stderr(Stdio::piped())
        .output();
    let ns = start.elapsed().as_nanos();
    let output = output.map_err(|e| failure(MeasureError::Spawn(program.clone(), e)))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(5).collect::<Vec<_>>().into_iter().rev().collect();
        return Err(failure(MeasureError::Failed(line, output.status.to_string(), tail.join("\n"))));
    }
    match metric {
        Metric::Wall => Ok(measure::seconds_of_nanos(ns)),
        Metric::Printed(p) => {
            let out = String::from_utf8_lossy(&output.stdout);
            let err = String::from_utf8_lossy(&output.stderr);
            p.extract(&out, &format!("the standard output of `{line}`"))
                .or_else(|_| p.extract(&err, &format!("the output of `{line}`")))
                .map_err(failure)
        }
        Metric::File(template, p) => {
            let mut names = vars.to_vec();
            names.push("run".into());
            let mut vals = values.to_vec();
            vals.push(run.to_string());
            let path = measure::substitute(std::slice::from_ref(template), &names, &vals).remove(0);
            let text = std::fs::read_to_string(&path).map_err(|e| {
                Failure::analysis(format!("--metric-file: cannot read `{path}` after `{line}`: {e}"))
            })?;
            match p {
                Some(p) => p.extract(&text, &format!("`{path}`")).map_err(failure),
                None => crate::num::parse_rat(text.trim()).map_err(|e| {
                    failure(MeasureError::BadNumber(text.trim().chars().take(60).collect(), e.to_string()))
                }),
            }
        }
    }
}
