//! Running a benchmark at several scales and writing the data file errband
//! reads (`errband measure`): the grid of variable values, the shuffled
//! schedule of runs, the command line of one run, the number a run
//! measured, and appending a finished run's row so that an interrupted
//! session keeps every run it finished.
//!
//! The command line layer (`errband measure`) runs the processes and shows
//! progress; everything that decides what is run and what is written is
//! here, so that it can be tested without running anything.

use crate::error::{Classified, ErrorKind};
use crate::num::Rat;
use std::io::Write;
use std::path::Path;

/// Why a measurement session cannot go on.
#[derive(Debug)]
#[non_exhaustive]
pub enum MeasureError {
    /// A flag's value is wrong (the flag, then why).
    Usage(String, String),
    /// The command could not be started.
    Spawn(String, std::io::Error),
    /// The command failed (its command line, its exit status, the last
    /// lines it wrote on standard error).
    Failed(String, String, String),
    /// The metric was not found in the command's output (where it was looked
    /// for, and the regular expression).
    NoMetric(String, String),
    /// The metric was found but is not an exact number (the text, why).
    BadNumber(String, String),
    /// A file could not be read or written (the file, the error).
    Io(String, std::io::Error),
    /// The existing data file does not fit this session (the file, why).
    Resume(String, String),
}

impl std::fmt::Display for MeasureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MeasureError::Usage(flag, why) => write!(f, "{flag}: {why}"),
            MeasureError::Spawn(cmd, e) => write!(f, "cannot run `{cmd}`: {e}"),
            MeasureError::Failed(cmd, status, tail) => {
                write!(f, "`{cmd}` failed ({status})")?;
                if !tail.is_empty() {
                    write!(f, "; its last error output:\n  {}", tail.replace('\n', "\n  "))?;
                }
                Ok(())
            }
            MeasureError::NoMetric(place, re) => {
                write!(f, "--metric-from {re}: no match in {place}")
            }
            MeasureError::BadNumber(text, why) => {
                write!(f, "--metric-from: the match `{text}` is not an exact number: {why}")
            }
            MeasureError::Io(file, e) => write!(f, "cannot write `{file}`: {e}"),
            MeasureError::Resume(file, why) => write!(f, "--resume {file}: {why}"),
        }
    }
}

impl std::error::Error for MeasureError {}

impl Classified for MeasureError {
    fn kind(&self) -> ErrorKind {
        match self {
            MeasureError::Usage(..) | MeasureError::Resume(..) | MeasureError::Spawn(..) => ErrorKind::Input,
            // The benchmark itself misbehaved: the session cannot be completed.
            _ => ErrorKind::Analysis,
        }
    }
}

/// A small, fixed pseudo-random generator (SplitMix64): `--seed` must give
/// the same order of runs on every platform and in every later version, so
/// the generator is written down here rather than taken from a crate whose
/// algorithm may change.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator started at `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..n` (`n > 0`), without modulo bias.
    pub fn below(&mut self, n: u64) -> u64 {
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let r = self.next_u64();
            if r < zone {
                return r % n;
            }
        }
    }
}

/// One run of the schedule: the index of its point and its run number
/// (1-based, per point).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    /// Index into the grid of points.
    pub point: usize,
    /// The run number at that point, from 1.
    pub run: u32,
}

/// Every (point, run) of `points` × `1..=runs` that `done` does not name
/// (`done[i]` runs are already recorded at point `i`), in an order shuffled
/// by `seed` (Fisher–Yates): drift of the machine over the session (thermal
/// state, other jobs) then does not correlate with the scale.
pub fn schedule(points: usize, runs: u32, done: &[u32], seed: u64) -> Vec<Slot> {
    let mut slots: Vec<Slot> = (0..points)
        .flat_map(|point| {
            let from = done.get(point).copied().unwrap_or(0);
            (from.saturating_add(1)..=runs).map(move |run| Slot { point, run })
        })
        .collect();
    let mut rng = SplitMix64::new(seed);
    for i in (1..slots.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        slots.swap(i, j);
    }
    slots
}

/// The command line of one run: every `{VAR}` in every argument replaced by
/// the run's value of that variable. Nothing else is interpreted (no shell:
/// the user writes `sh -c '…'` for one), so braces of other kinds (`awk
/// '{print $1}'`) pass through.
pub fn substitute(template: &[String], vars: &[String], values: &[String]) -> Vec<String> {
    template
        .iter()
        .map(|arg| {
            let mut s = arg.clone();
            for (v, x) in vars.iter().zip(values) {
                s = s.replace(&format!("{{{v}}}"), x);
            }
            s
        })
        .collect()
}

/// An argument as a POSIX shell would need it quoted, for showing commands.
pub fn shell_word(arg: &str) -> String {
    let plain =
        !arg.is_empty() && arg.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%{}".contains(c));
    if plain {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}

/// A command line as one shell-quoted string.
pub fn shell_line(argv: &[String]) -> String {
    argv.iter().map(|a| shell_word(a)).collect::<Vec<_>>().join(" ")
}

/// The metric of a run read from text the program wrote: the regular
/// expression's group `value`, else its first group, else the whole match;
/// its optional group `unit` a time unit, the value then converted exactly
/// to seconds. The first match counts.
#[derive(Debug, Clone)]
pub struct MetricPattern {
    re: regex::Regex,
    text: String,
}

impl MetricPattern {
    /// Compiles `pattern` (the `--metric-from` text).
    pub fn new(pattern: &str) -> Result<MetricPattern, MeasureError> {
        let re = regex::Regex::new(pattern).map_err(|e| {
            MeasureError::Usage("--metric-from".into(), format!("not a regular expression: {e}"))
        })?;
        Ok(MetricPattern { re, text: pattern.to_string() })
    }

    /// True when the pattern has a `unit` group: the metric is then a time,
    /// recorded in seconds.
    pub fn has_unit(&self) -> bool {
        self.re.capture_names().any(|n| n == Some("unit"))
    }

    /// The metric in `text` (`place` names where it was read, for errors).
    pub fn extract(&self, text: &str, place: &str) -> Result<Rat, MeasureError> {
        let caps =
            self.re.captures(text).ok_or_else(|| MeasureError::NoMetric(place.into(), self.text.clone()))?;
        let value = caps
            .name("value")
            .or_else(|| caps.get(1))
            .or_else(|| caps.get(0))
            .map(|m| m.as_str().trim())
            .unwrap_or_default();
        let v =
            crate::num::parse_rat(value).map_err(|e| MeasureError::BadNumber(value.into(), e.to_string()))?;
        match caps.name("unit").map(|u| u.as_str().trim()).filter(|u| !u.is_empty()) {
            None if self.has_unit() => Err(MeasureError::BadNumber(
                value.into(),
                "the pattern's `unit` group matched nothing; make it match the unit the program prints".into(),
            )),
            None => Ok(v),
            Some(unit) => crate::units::factor(crate::units::Dim::Time, unit).map(|f| v * f).ok_or_else(|| {
                MeasureError::BadNumber(
                    format!("{value} {unit}"),
                    format!(
                        "`{unit}` is not a time unit ({}); leave the `unit` group out to record the number as printed",
                        crate::units::Dim::Time.accepted()
                    ),
                )
            }),
        }
    }
}

/// Nanoseconds as exact seconds.
pub fn seconds_of_nanos(ns: u128) -> Rat {
    Rat::new(ns.into(), 1_000_000_000u64.into())
}

/// A measured value as the data file writes it: an exact decimal when it
/// has one of at most 30 digits, else a fraction (both read back exactly).
pub fn value_text(v: &Rat) -> String {
    crate::model::show_value(v)
}

/// The median of some values (none: `None`).
pub fn median(values: &[Rat]) -> Option<Rat> {
    crate::num::median(values.iter().collect())
}

/// Appends `text` (whole lines) to the file at `path` with one `write` on a
/// file opened for appending, then `fsync`; a short write (a full disk) is
/// undone by truncating back to the old length. A file that does not end
/// in a newline gets one first, in the same write, so a row never joins
/// the last line.
///
/// For a session's own rows, a few dozen bytes each: the kernel copies a
/// write page by page and a process being killed stops between pages, so
/// a kill can cut a row only where it crosses a page boundary of the
/// file, and then leaves an incomplete last line without its newline,
/// which [`drop_incomplete_line`] removes before a session resumes. A
/// user's data file is appended to by [`append_atomic`] instead.
pub fn append_lines(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::OpenOptions::new().read(true).append(true).open(path)?;
    let len = f.metadata()?.len();
    let mut block = String::new();
    if len > 0 {
        let mut last = [0u8; 1];
        f.seek(SeekFrom::Start(len - 1))?;
        f.read_exact(&mut last)?;
        if last[0] != b'\n' {
            block.push('\n');
        }
    }
    block.push_str(text);
    if block.is_empty() {
        return Ok(());
    }
    let n = match f.write(block.as_bytes()) {
        Ok(n) => n,
        Err(e) => {
            let _ = f.set_len(len);
            return Err(e);
        }
    };
    if n != block.len() {
        let _ = f.set_len(len);
        return Err(std::io::Error::new(
            std::io::ErrorKind::WriteZero,
            format!("only {n} of {} bytes could be written; the file was left as it was", block.len()),
        ));
    }
    f.sync_data()
}

/// Appends `text` (whole lines) to the file at `path` so that the file is
/// either unchanged or holds every line, even if the process is killed at
/// any moment: a copy of the file with the lines added is written beside
/// it, flushed to disk, and renamed over it (through a symlink, the file
/// it names). Earlier bytes are copied unchanged, never rewritten; the
/// mode is kept. A file changed by another writer meanwhile is left alone
/// (an error), so that no concurrent append is lost.
pub fn append_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let target = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path)?,
        _ => path.to_path_buf(),
    };
    let before = std::fs::metadata(&target)?;
    let mut bytes = std::fs::read(&target)?;
    if bytes.last().is_some_and(|&b| b != b'\n') {
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(text.as_bytes());
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".errband-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(before.permissions().mode() & 0o7777));
    }
    let mut tmp = builder.tempfile_in(&dir)?;
    tmp.write_all(&bytes)?;
    tmp.as_file().sync_all()?;
    let now = std::fs::metadata(&target)?;
    if now.len() != before.len() || now.modified().ok() != before.modified().ok() {
        return Err(std::io::Error::other(
            "the file changed while the rows were being added; it was left as it was",
        ));
    }
    tmp.persist(&target).map_err(|e| e.error)?;
    // The rename itself on disk.
    if let Ok(d) = std::fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Removes an incomplete last line (one without its newline, left by a
/// session killed while a row was being written; see [`append_lines`])
/// from a session's own file before it resumes; returns the bytes removed.
pub fn drop_incomplete_line(path: &Path) -> std::io::Result<usize> {
    let bytes = std::fs::read(path)?;
    if bytes.is_empty() || bytes.last() == Some(&b'\n') {
        return Ok(0);
    }
    let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let f = std::fs::OpenOptions::new().write(true).open(path)?;
    f.set_len(keep as u64)?;
    f.sync_data()?;
    Ok(bytes.len() - keep)
}

/// Creates `path` holding `text` (the header) atomically: a temporary file
/// beside it, renamed to `path` only if `path` does not exist yet, so a
/// session never replaces a data file (`--resume` continues one).
pub fn create_new(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let mut tmp = tempfile::Builder::new().prefix(".errband-").suffix(".tmp").tempfile_in(dir)?;
    tmp.write_all(text.as_bytes())?;
    tmp.as_file().sync_data()?;
    tmp.persist_noclobber(path).map(|_| ()).map_err(|e| e.error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_is_a_seeded_permutation_that_skips_recorded_runs() {
        let a = schedule(4, 3, &[], 7);
        let b = schedule(4, 3, &[], 7);
        assert_eq!(a, b);
        assert_eq!(a.len(), 12);
        let mut sorted: Vec<(usize, u32)> = a.iter().map(|s| (s.point, s.run)).collect();
        sorted.sort_unstable();
        let all: Vec<(usize, u32)> = (0..4).flat_map(|p| (1..=3).map(move |r| (p, r))).collect();
        assert_eq!(sorted, all);
        assert_ne!(a, schedule(4, 3, &[], 8), "another seed, another order");
        let rest = schedule(4, 3, &[3, 1, 0, 5], 7);
        let mut got: Vec<(usize, u32)> = rest.iter().map(|s| (s.point, s.run)).collect();
        got.sort_unstable();
        assert_eq!(got, vec![(1, 2), (1, 3), (2, 1), (2, 2), (2, 3)]);
    }

    #[test]
    fn substitution_replaces_only_the_variables() {
        let t: Vec<String> =
            ["mpirun", "-np", "{p}", "awk", "{print $1}", "n={n}x{p}"].map(String::from).into();
        let got = substitute(&t, &["p".into(), "n".into()], &["8".into(), "100".into()]);
        assert_eq!(got, ["mpirun", "-np", "8", "awk", "{print $1}", "n=100x8"]);
    }

    #[test]
    fn metric_patterns_read_exact_values_and_time_units() {
        let p = MetricPattern::new(r"took (?<value>[0-9.e+-]+) ?(?<unit>ms|s)").unwrap();
        assert!(p.has_unit());
        assert_eq!(p.extract("x\ntook 12.5 ms\n", "out").unwrap(), Rat::new(1.into(), 80.into()));
        let p = MetricPattern::new(r"GFLOPS: (\S+)").unwrap();
        assert_eq!(p.extract("GFLOPS: 1.25", "out").unwrap(), Rat::new(5.into(), 4.into()));
        assert!(matches!(p.extract("nothing", "out"), Err(MeasureError::NoMetric(..))));
        assert!(matches!(p.extract("GFLOPS: nan", "out"), Err(MeasureError::BadNumber(..))));
        let p = MetricPattern::new(r"(?<value>\d+) (?<unit>\w+)").unwrap();
        assert!(p.extract("3 bytes", "out").unwrap_err().to_string().contains("not a time unit"));
        assert!(MetricPattern::new("(").is_err());
    }

    #[test]
    fn appending_completes_the_last_line_first() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("d.csv");
        create_new(&f, "p,time\n1,2").unwrap();
        assert!(create_new(&f, "x\n").is_err(), "never replaces a file");
        append_lines(&f, "3,4\n").unwrap();
        append_lines(&f, "5,6\n").unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "p,time\n1,2\n3,4\n5,6\n");
        append_atomic(&f, "7,8\n").unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "p,time\n1,2\n3,4\n5,6\n7,8\n");
        std::fs::write(&f, "p,time\n1,2\n3,").unwrap();
        assert_eq!(drop_incomplete_line(&f).unwrap(), 2);
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "p,time\n1,2\n");
        assert_eq!(drop_incomplete_line(&f).unwrap(), 0);
    }

    #[test]
    fn nanoseconds_are_exact_seconds() {
        assert_eq!(value_text(&seconds_of_nanos(1_234_567_890)), "1.23456789");
        assert_eq!(median(&[crate::num::int(3), crate::num::int(1)]), Some(crate::num::int(2)));
    }
}
