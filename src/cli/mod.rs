//! The command line: clap arguments, validated into library calls, results
//! rendered, errors mapped to exit codes (0 ok, 1 analysis impossible,
//! 2 usage or input error). No analysis happens here.

mod analyze;
mod barrier_cmd;
mod check_cmd;
mod energy_cmd;
mod files;
mod input;
mod measure_cmd;
mod ms_cmd;
mod qe_cmd;
mod search_cmd;
mod timings;
mod whole;

use clap::{Parser, Subcommand};
use std::ffi::OsString;
use std::io::Write;

/// Exit code: success.
pub const EXIT_OK: i32 = 0;
/// Exit code: the input is fine but the analysis cannot be done (a limit was hit).
pub const EXIT_ANALYSIS: i32 = 1;
/// Exit code: usage or input error.
pub const EXIT_INPUT: i32 = 2;

/// The exit code of a failure of `kind`: the only place a kind becomes a
/// code (the library knows kinds, not exit codes).
pub fn exit_code(kind: crate::error::ErrorKind) -> i32 {
    match kind {
        crate::error::ErrorKind::Input => EXIT_INPUT,
        crate::error::ErrorKind::Analysis => EXIT_ANALYSIS,
    }
}

#[derive(Parser, Debug)]
#[command(
    name = "errband",
    version,
    about = "Symbolic prediction-error analyser for parallel-performance models",
    long_about = "errband fits run-time models exactly, computes the smallest residual bound e_max, the region of parameter \
perturbations allowed by a residual threshold, and the error band of extrapolated predictions. All numbers are exact \
rationals; decimals shown are correctly rounded views.\n\nUsage: errband MODEL DATA [OPTIONS] runs the analysis; errband prune MODEL DATA --target p=1000 compares \
data-pruning choices; errband plan MODEL DATA --target p=1000 --candidate p=130..300:10 ranks new measurement \
points; errband energy PROFILE predicts DVFS energy savings with bands; errband barrier --nodes 2..120 --mpi 120us compares a chassis barrier network with MPI_Barrier; errband ms predict TASKS --grid 1024x1024 predicts a master/slave program's run time per processor count; errband qe FILE solves a formula; errband measure --var p=1..64:*2 -o scaling.csv -- CMD {p} measures a benchmark; errband check MODEL DATA --new NEW.csv checks new measurements against the recommended band.\n\nExit codes: 0 ok, 1 analysis impossible (for check: a measurement failed), 2 usage or input error.",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Stop with exit code 1 when the run takes longer than this wall-clock time (`30s`, `2min`, `500ms`; bare numbers are seconds); a whole experiment then reports the series it analysed and says it stopped.
    #[arg(long, global = true, value_name = "TIME", allow_hyphen_values = true)]
    timeout: Option<String>,
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    analyze: analyze::AnalyzeArgs,
}

/// Flags raising the resource limits of [`crate::limits::Limits`]; every
/// limit error names its flag. Global: they go anywhere after the command
/// name (before it, the main command would read the name as its MODEL).
#[derive(clap::Args, Debug)]
#[command(next_help_heading = "Limits (raise them for genuinely large inputs)")]
struct LimitArgs {
    /// Largest |n| in a power `b^n` and in a literal's exponent `1eN` [default: 10000].
    #[arg(long, global = true, value_name = "N")]
    max_exponent: Option<u64>,
    /// Most significant digits in one literal [default: 4000].
    #[arg(long, global = true, value_name = "N")]
    max_digits: Option<usize>,
    /// Most digits of a number formed by powers or by quantifier elimination [default: 60000].
    #[arg(long, global = true, value_name = "N")]
    max_number_digits: Option<usize>,
    /// Most measurement rows in one file (each takes about 400 bytes in memory) [default: 2000000].
    #[arg(long, global = true, value_name = "N")]
    max_rows: Option<usize>,
    /// Most values in one range or list of points (`--at`, `predict`, `--nodes`) [default: 100000].
    #[arg(long, global = true, value_name = "N")]
    max_points: Option<usize>,
    /// Most vertices (and rays) held while enumerating one region or one piece of a `qe` result, and the work listing it may take (it grows with N); a region past either is not listed, its bands come from exact LPs [default: 2000].
    #[arg(long, global = true, value_name = "N")]
    max_vertices: Option<usize>,
    /// Most convex pieces in a formula's disjunctive normal form, counted before they are built [default: 2000].
    #[arg(long, global = true, value_name = "N")]
    max_pieces: Option<usize>,
    /// Most candidates one `prune` or `plan` run analyses (each is a whole re-analysis), checked before the first [default: 10000].
    #[arg(long, global = true, value_name = "N")]
    max_candidates: Option<usize>,
    /// Most comparisons in one `qe` formula, counted while parsing (each takes about 2 kB while eliminating) [default: 250000].
    #[arg(long, global = true, value_name = "N")]
    max_atoms: Option<usize>,
    /// Most MiB of metadata unpacked from an archive (a CUBE profile's anchor.xml), counted while it is unpacked and parsed [default: 64].
    #[arg(long, global = true, value_name = "N")]
    max_metadata_mib: Option<u64>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Eliminate quantifiers from a formula of linear real arithmetic.
    Qe(qe_cmd::QeArgs),
    /// Compare data-pruning choices: drop points, refit, rank by the band at the targets.
    Prune(search_cmd::PruneArgs),
    /// Rank candidate points for the next measurement by the band they would leave at the targets.
    Plan(search_cmd::PlanArgs),
    /// Predict DVFS energy savings ΔE(n), EE_opt(n) and per-region shares with exact bands (Kimura, Imada & Sato).
    Energy(energy_cmd::EnergyArgs),
    /// Predict cluster barrier latency of a chassis network against MPI_Barrier, with bands and the crossover T_SR (Hayakawa).
    Barrier(barrier_cmd::BarrierArgs),
    /// Predict a master/slave program's run time per processor count from a sub-grid of measured tasks (Mizutani, Ino & Hagihara).
    #[command(long_about = MS_ABOUT)]
    Ms(ms_cmd::MsArgs),
    /// Run a command at every point of a grid of variable values, several times each, and write the CSV file errband reads.
    Measure(measure_cmd::MeasureArgs),
    /// Check new measurements against the recommended next-measurement band at their scale; exit 1 on a regression.
    Check(check_cmd::CheckArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) to stdout.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) to stdout: `errband man > errband.1`.
    Man,
    /// Print the JSON Schema (draft 2020-12) of a command's `--format json` output.
    Schema {
        /// The command: `analysis` (the main command), `experiment` (the main command on several series), or a subcommand's name.
        command: crate::schema::Output,
    },
}

const MS_ABOUT: &str = "Predict a master/slave program's run time for many processor counts from the measured times of a \
sub-grid of its tasks (Mizutani, Ino & Hagihara): the other tasks' times are interpolated multilinearly, then the master loop is simulated \
with LogGP costs and a priority queue of result events, exactly in integer ticks. P counts processors including the \
master (P - 1 slaves).\n\nThe master loop: O1 = 2o + k_in*G is the master's work per dispatched task, O2 = 2L + T*r_s + 2o + \
k_out*G the time from dispatch to the result's arrival; (P1) take the earliest result, t = max(t, e) + o; (P2) take the next \
task; (P3) dispatch it to that slave, t += O1.\n\nThe paper's step P1 says the master's clock advances by 'the receive \
overhead of e', while its O1 already charges 2o per task, one o for the send and one that can be read as the receive. \
Both readings are in the text: the default charges o in P1 too; --no-p1-recv takes O1 as covering the receive.\n\n\
errband ms mandelbrot --out tasks.csv writes the paper's workload; errband ms predict tasks.csv --grid 1024x1024 \
--compare-subsets 1/16,1/1024,1/65536 reports each subset's error against the full prediction; errband ms sample \
--grid 64x64 --every 8 -- CMD {i1} {i2} measures tasks by running a command.";

/// An error that ends the run: message and exit code.
#[derive(Debug)]
pub struct Failure {
    /// Text for stderr (may span several lines, e.g. a rendered diagnostic).
    pub message: String,
    /// Process exit code.
    pub code: i32,
}

impl Failure {
    fn input(message: impl Into<String>) -> Failure {
        Failure { message: message.into(), code: EXIT_INPUT }
    }
    fn analysis(message: impl Into<String>) -> Failure {
        Failure { message: message.into(), code: EXIT_ANALYSIS }
    }
    /// A library error: its message, and the exit code of its kind (never
    /// read from the text).
    fn of(e: &impl crate::error::Classified) -> Failure {
        Failure { message: e.to_string(), code: exit_code(e.kind()) }
    }
}

/// `--plot [KIND=]FILE`, the one spelling of every command that plots:
/// `kinds` are the command's plot kinds, the first the default.
pub(crate) fn plot_kind<K: Copy>(s: &str, kinds: &[(&str, K)]) -> Result<(K, String), String> {
    let names: Vec<&str> = kinds.iter().map(|k| k.0).collect();
    let expected = || format!("expected [KIND=]FILE with KIND one of {}", names.join(", "));
    let (kind, file) = match s.split_once('=') {
        None => (kinds.first().ok_or_else(expected)?.1, s),
        Some((k, f)) => (kinds.iter().find(|(n, _)| *n == k.trim()).ok_or_else(expected)?.1, f.trim()),
    };
    if file.is_empty() {
        return Err(format!("no file name; {}", expected()));
    }
    Ok((kind, file.to_string()))
}

/// [`plot_kind`] on a command that draws one kind of plot (a clap value parser).
pub(crate) fn one_plot(s: &str, kind: &str) -> Result<String, String> {
    plot_kind(s, &[(kind, ())]).map(|(_, file)| file)
}

/// The command-line definition (every subcommand and flag), for
/// documentation tools and the vocabulary test.
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

/// Runs errband with these arguments, writing results to `out`; returns the exit code.
pub fn run<I, T>(args: I, out: &mut dyn Write, err: &mut dyn Write) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    if let Some(message) = mistyped_subcommand(&args) {
        let _ = writeln!(err, "{message}");
        return EXIT_INPUT;
    }
    let parsed = <Cli as clap::CommandFactory>::command().try_get_matches_from(args).and_then(|m| {
        <Cli as clap::FromArgMatches>::from_arg_matches(&m)
            .map(|c| (c, global_arg::<String>(&m, "timeout"), limits_arg(&m)))
    });
    let (cli, timeout, limits) = match parsed {
        Ok(c) => c,
        Err(e) => {
            let text = e.render().to_string();
            if e.use_stderr() {
                let _ = write!(err, "{}", files::escape_controls(&text));
                return EXIT_INPUT;
            }
            // --help and --version: their text is the output, and a
            // failure to write it is a failure of the run.
            let mut io = files::Io::new(out, err, files::Gate::default());
            return match io.stdout(&text).and_then(|()| io.flush()) {
                Ok(()) => EXIT_OK,
                Err(f) => report_failure(f, err),
            };
        }
    };
    let (gate, _watchdog) = match timeout.as_deref().map(start_watchdog).transpose() {
        Ok(Some((gate, w))) => (gate, Some(w)),
        Ok(None) => (files::Gate::default(), None),
        Err(f) => return report_failure(f, err),
    };
    let result = {
        let mut io = files::Io::new(out, err, gate);
        let r = match cli.command {
            Some(Command::Qe(a)) => qe_cmd::run(a, &limits, &mut io).map(|()| EXIT_OK),
            Some(Command::Prune(a)) => search_cmd::run_prune(a, &limits, &mut io),
            Some(Command::Plan(a)) => search_cmd::run_plan(a, &limits, &mut io),
            Some(Command::Energy(a)) => energy_cmd::run(a, &limits, &mut io),
            Some(Command::Barrier(a)) => barrier_cmd::run(a, &limits, &mut io),
            Some(Command::Ms(a)) => ms_cmd::run(a, &limits, &mut io),
            Some(Command::Measure(a)) => measure_cmd::run(a, &limits, &mut io),
            Some(Command::Check(a)) => check_cmd::run(a, &limits, &mut io),
            Some(Command::Completions { shell }) => {
                let mut cmd = <Cli as clap::CommandFactory>::command();
                let mut buf = Vec::new();
                clap_complete::generate(shell, &mut cmd, "errband", &mut buf);
                io.stdout(&String::from_utf8_lossy(&buf)).map(|()| EXIT_OK)
            }
            Some(Command::Man) => {
                let mut buf = Vec::new();
                match clap_mangen::Man::new(<Cli as clap::CommandFactory>::command()).render(&mut buf) {
                    Ok(()) => io.stdout(&String::from_utf8_lossy(&buf)).map(|()| EXIT_OK),
                    Err(e) => Err(Failure::analysis(format!("the manual page could not be rendered: {e}"))),
                }
            }
            Some(Command::Schema { command }) => io.stdout(command.schema()).map(|()| EXIT_OK),
            None => analyze::run(cli.analyze, &limits, &mut io),
        };
        r.and_then(|code| io.flush().map(|()| code))
    };
    match result {
        Ok(code) => code,
        Err(f) => report_failure(f, err),
    }
}

/// `errband prnue …`: the first argument is neither a subcommand nor an
/// existing file, but close to a subcommand's name. clap would take it for
/// the model file and complain about the next word; this says what went
/// wrong. `None` when the argument may well be a file name.
fn mistyped_subcommand(args: &[OsString]) -> Option<String> {
    let first = args.get(1)?.to_str()?;
    if first.starts_with('-') || std::path::Path::new(first).exists() {
        return None;
    }
    // The names from the clap definition itself, so a new subcommand is
    // suggested without a list to keep in step.
    let cmd = command();
    let names: Vec<&str> = cmd.get_subcommands().map(clap::Command::get_name).collect();
    // `help` is clap's own subcommand, added when the parser is built.
    if names.contains(&first) || first == "help" {
        return None;
    }
    let nearest = names.iter().map(|s| (strsim::damerau_levenshtein(first, s), *s)).min();
    let shown = files::escape_controls(first);
    match nearest {
        Some((d, best)) if d <= 2 && d < best.len() => Some(format!(
            "error: unrecognized subcommand `{shown}` (and no file of that name)\n  = help: did you mean `{best}`? Subcommands: {}; without one, errband MODEL DATA analyses a model",
            names.join(", ")
        )),
        // A bare word (no directory, no extension) that names no file is
        // more likely a command than a model: say both, not "cannot read".
        Some((_, best)) if !first.contains(['/', '.', '\\']) => Some(format!(
            "error: `{shown}` is neither a command nor a file\n  = help: the nearest command is `{best}`; commands: {}; without one, errband MODEL DATA analyses a model",
            names.join(", ")
        )),
        _ => None,
    }
}

/// Writes a failure's message to stderr (control characters from inputs
/// escaped) and returns its exit code. An empty message is a quiet end
/// (a closed pipe, or a run the watchdog is stopping).
fn report_failure(f: Failure, err: &mut dyn Write) -> i32 {
    let msg = files::escape_controls(f.message.trim_end());
    if !msg.is_empty() {
        let prefix = if msg.starts_with("error") { "" } else { "errband: " };
        let _ = writeln!(err, "{prefix}{msg}");
    }
    f.code
}

/// A global flag wherever it was given: clap records it in the matches of
/// the (sub)command it followed.
fn global_arg<T: Clone + Send + Sync + 'static>(m: &clap::ArgMatches, id: &str) -> Option<T> {
    let here = m.try_get_one::<T>(id).ok().flatten().cloned();
    here.or_else(|| m.subcommand().and_then(|(_, sub)| global_arg(sub, id)))
}

/// The limits in force: the defaults, raised (or lowered) by `--max-*`.
fn limits_arg(m: &clap::ArgMatches) -> crate::limits::Limits {
    let mut l = crate::limits::Limits::default();
    let size = |id: &str, v: &mut usize| {
        if let Some(n) = global_arg::<usize>(m, id) {
            *v = n;
        }
    };
    if let Some(n) = global_arg::<u64>(m, "max_exponent") {
        l.exponent = n;
    }
    size("max_digits", &mut l.digits);
    size("max_number_digits", &mut l.number_digits);
    size("max_rows", &mut l.rows);
    size("max_points", &mut l.points);
    size("max_vertices", &mut l.vertices);
    size("max_pieces", &mut l.pieces);
    size("max_candidates", &mut l.candidates);
    size("max_atoms", &mut l.atoms);
    if let Some(n) = global_arg::<u64>(m, "max_metadata_mib") {
        l.metadata = n.saturating_mul(1 << 20);
    }
    l
}

/// Ends the process with exit code 1 if it is still running after `text`
/// (a time) and has not begun writing its output (the returned gate, which
/// also refuses to begin the output once the time is up): a run writes its
/// whole output or none of it. Dropping the returned sender (when `run`
/// returns) cancels the watchdog, so an in-process caller of [`run`] is
/// never stopped later.
fn start_watchdog(text: &str) -> Result<(files::Gate, std::sync::mpsc::Sender<()>), Failure> {
    let secs = crate::units::parse_quantity(text, crate::units::Dim::Time, "s", "--timeout")
        .map_err(Failure::input)?;
    let nanos = (secs * crate::num::int(1_000_000_000)).to_integer();
    let nanos = num_traits::ToPrimitive::to_u64(&nanos).filter(|&n| n > 0).ok_or_else(|| {
        Failure::input(format!("--timeout {text}: expected a positive time up to about 584 years"))
    })?;
    let limit = std::time::Duration::from_nanos(nanos);
    let message = format!(
        "--timeout {} reached; stopped before finishing (raise --timeout, or reduce the input)",
        files::escape_controls(text)
    );
    let deadline = std::time::Instant::now().checked_add(limit);
    let gate = match deadline {
        Some(d) => files::Gate::with_deadline(d, message),
        None => files::Gate::default(), // beyond the clock's range: never
    };
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let watched = gate.clone();
    std::thread::spawn(move || {
        if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(limit) {
            if !watched.stop() {
                return; // the output is being written, or the run was stopped
            }
            eprintln!("errband: {}", watched.message().unwrap_or("--timeout reached"));
            std::process::exit(EXIT_ANALYSIS);
        }
    });
    Ok((gate, tx))
}

/// Pretty JSON with a final newline, for every command's `--format json`.
/// `v` as one line of JSON Lines.
fn json_line(v: &serde_json::Value) -> Result<String, Failure> {
    serde_json::to_string(v)
        .map(|s| s + "\n")
        .map_err(|e| Failure::analysis(format!("cannot write JSON: {e}")))
}

fn json_text(v: &serde_json::Value) -> Result<String, Failure> {
    serde_json::to_string_pretty(v)
        .map(|s| s + "\n")
        .map_err(|e| Failure::analysis(format!("cannot write JSON: {e}")))
}

/// Reads a file, or standard input for `-`, as text: UTF-8 (a leading
/// byte-order mark dropped), with old Mac line ends (a CR alone) read as
/// line ends. Invalid UTF-8 is an error at the line and column of its first
/// bad byte.
fn read_input(path: &str) -> Result<String, Failure> {
    decode(read_bytes(path)?, if path == "-" { "<stdin>" } else { path })
}

/// The bytes of an input file, or of standard input for `-`.
fn read_bytes(path: &str) -> Result<Vec<u8>, Failure> {
    if path == "-" {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut b)
            .map_err(|e| Failure::input(format!("cannot read standard input: {e}")))?;
        return Ok(b);
    }
    std::fs::read(path).map_err(|e| {
        let why =
            if std::path::Path::new(path).is_dir() { "is a directory".to_string() } else { e.to_string() };
        let hint =
            if e.kind() == std::io::ErrorKind::NotFound { missing_file_hint(path) } else { String::new() };
        Failure::input(format!("cannot read `{}`: {why}{hint}", files::escape_controls(path)))
    })
}

/// For a path that does not exist: the file of the most similar name in
/// its folder (a typo), or where relative paths start.
fn missing_file_hint(path: &str) -> String {
    let p = std::path::Path::new(path);
    let dir = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let best = std::fs::read_dir(&dir).ok().and_then(|entries| {
        entries
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .map(|n| (strsim::damerau_levenshtein(name, &n), n))
            .filter(|(d, n)| *d <= 2.max(name.len() / 4) && *d < n.len())
            .min()
    });
    match best {
        Some((_, n)) => {
            let shown = if p.parent().is_some_and(|d| !d.as_os_str().is_empty()) {
                dir.join(&n).display().to_string()
            } else {
                n
            };
            format!("\n  = help: did you mean `{}`?", files::escape_controls(&shown))
        }
        None if p.is_relative() => match std::env::current_dir() {
            Ok(cwd) => format!(
                "\n  = help: a relative path starts in the current directory, `{}`",
                files::escape_controls(&cwd.display().to_string())
            ),
            Err(_) => String::new(),
        },
        None => String::new(),
    }
}

/// The text of an input file's bytes ([`crate::data::decode`]).
fn decode(bytes: Vec<u8>, name: &str) -> Result<String, Failure> {
    crate::data::decode(bytes, name).map_err(Failure::input)
}

/// Frees a command's results on a background thread once its output is
/// written: 10^4 rows of long fractions take tens of milliseconds to free
/// one by one, and the process exits without waiting (a caller that keeps
/// running gets the memory back all the same).
pub(crate) fn free_later<T: Send + 'static>(value: T) {
    // When no thread can be spawned, the error drops the value here.
    let _ = std::thread::Builder::new().spawn(move || drop(value));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undecodable_input_is_an_input_error() {
        let e = decode(b"p,T [\xB5s]\n1,2\n".to_vec(), "d.csv").unwrap_err();
        assert_eq!(e.code, EXIT_INPUT);
        assert!(e.message.starts_with("d.csv:1:6: not valid UTF-8 (byte 0xB5"), "{}", e.message);
    }

    #[test]
    fn plot_kinds_share_one_spelling() {
        let kinds = [("band", 1), ("region", 2)];
        assert_eq!(plot_kind("a.svg", &kinds), Ok((1, "a.svg".to_string())));
        assert_eq!(plot_kind(" region = r.svg", &kinds), Ok((2, "r.svg".to_string())));
        assert!(plot_kind("pie=p.svg", &kinds).unwrap_err().contains("one of band, region"));
        assert!(plot_kind("band=", &kinds).unwrap_err().starts_with("no file name"));
        assert_eq!(one_plot("chart=c.svg", "chart"), Ok("c.svg".to_string()));
        assert!(one_plot("teb=c.svg", "chart").is_err());
    }

    use crate::limits::{Limit, Limits};

    /// The defaults the help states are the library's, and each flag sets its limit.
    #[test]
    fn limit_flags_state_the_library_defaults_and_set_their_limit() {
        let help = <Cli as clap::CommandFactory>::command().render_long_help().to_string();
        let l = Limits::default();
        let all = [
            Limit::Exponent,
            Limit::Digits,
            Limit::NumberDigits,
            Limit::Rows,
            Limit::Points,
            Limit::Vertices,
            Limit::Pieces,
            Limit::Candidates,
            Limit::Atoms,
            Limit::Metadata,
        ];
        for which in all {
            let flag = which.flag();
            let at =
                help.find(&format!("{flag} <N>")).unwrap_or_else(|| panic!("{flag} missing from the help"));
            let text = &help[at..];
            let end = text.find("\n\n").unwrap_or(text.len());
            assert!(
                text[..end].contains(&format!("[default: {}]", l.get(which))),
                "{flag}: {}",
                &text[..end]
            );
            let m = <Cli as clap::CommandFactory>::command()
                .try_get_matches_from(["errband", "qe", "f.qe", flag, "7"])
                .unwrap();
            assert_eq!(limits_arg(&m).get(which), 7, "{flag}");
        }
    }
}
