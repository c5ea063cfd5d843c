//! What a run writes, and the promise that it loses nothing.
//!
//! * Every output path (`--plot`, `--report` and the figures beside a
//!   Markdown report, `--out`) is checked before any work: its extension
//!   must match what is written, its directory must exist, and it must not
//!   name an input of the run or another output. Two paths name the same
//!   file when their device and inode agree (hard links, symlinks) or their
//!   canonical paths do (`./d/../data.csv`).
//! * A regular file (or a new path) is written atomically: a temporary file
//!   in the target's own directory, renamed over the target when complete.
//!   A failed, stopped or killed run leaves the old file as it was.
//! * A FIFO, a character device or a socket is not a file to replace: it is
//!   opened and written in place (a rename would put a regular file where
//!   the node was: run as root, `-o /dev/full` deleted the device). Any
//!   write error there (no space on `/dev/full`, a FIFO whose reader left)
//!   is exit 1. Opening a FIFO waits for its reader, as a shell's `>` does;
//!   `--timeout` still ends the run while it waits.
//! * A symlink is followed: the file it names is written (replaced or
//!   written in place by the rules above). A directory or a block device is
//!   refused before any work (exit 2).
//! * Standard output and the files are written only after the analysis, and
//!   only once [`Gate`] says `--timeout` has not fired: a run either writes
//!   everything and exits 0, or writes nothing and exits 1.
//! * A closed pipe on standard output ends the run quietly with exit 0
//!   (`errband … | head`), as ripgrep does; any other write error is exit 1.

use super::{Failure, EXIT_ANALYSIS, EXIT_OK};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// The shared state of a run and its `--timeout` watchdog.
///
/// The watchdog thread ends a run that is still computing when the time is
/// up; the deadline is also checked when the output begins, so that a run
/// which finishes before the watchdog thread is even scheduled (`--timeout
/// 1ns`) is stopped all the same: whether a run is stopped depends on the
/// clock, never on the scheduler.
#[derive(Clone, Default)]
pub struct Gate {
    state: Arc<AtomicU8>,
    /// When the time is up, and the message that says so.
    deadline: Option<(Instant, Arc<str>)>,
}

const RUNNING: u8 = 0;
const WRITING: u8 = 1;
const STOPPED: u8 = 2;

impl Gate {
    /// A gate that stops the run at `deadline`, saying `message`.
    pub fn with_deadline(deadline: Instant, message: String) -> Gate {
        Gate { state: Arc::default(), deadline: Some((deadline, message.into())) }
    }

    /// Called before the first byte of output: from here on the watchdog
    /// lets the run finish. Fails when the time is up (the message is
    /// then said here, or by the watchdog, which is ending the process).
    fn open(&self) -> Result<(), Failure> {
        if let Some((deadline, message)) = &self.deadline {
            if Instant::now() >= *deadline && self.stop() {
                return Err(Failure { message: message.to_string(), code: EXIT_ANALYSIS });
            }
        }
        match self.state.compare_exchange(RUNNING, WRITING, Ordering::SeqCst, Ordering::SeqCst) {
            Ok(_) => Ok(()),
            Err(WRITING) => Ok(()),
            Err(_) => Err(Failure { message: String::new(), code: EXIT_ANALYSIS }),
        }
    }

    /// For a run that stops itself at the deadline and writes what it has
    /// (a whole experiment): the watchdog lets it run from here on, as
    /// when its output has begun. The deadline and its message, if any;
    /// fails as [`Gate::open`] does when the time is already up.
    fn take_over(&self) -> Result<Option<(Instant, &str)>, Failure> {
        self.open()?;
        Ok(self.deadline.as_ref().map(|(d, m)| (*d, &**m)))
    }

    /// Called when the time is up: true when the run has not begun its
    /// output, so that it may be ended (once: later calls are false).
    pub fn stop(&self) -> bool {
        self.state.compare_exchange(RUNNING, STOPPED, Ordering::SeqCst, Ordering::SeqCst).is_ok()
    }

    /// The message of the deadline, if any.
    pub fn message(&self) -> Option<&str> {
        self.deadline.as_ref().map(|(_, m)| &**m)
    }
}

/// Standard output, standard error and the output files of one run.
pub struct Io<'a> {
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
    gate: Gate,
}

impl<'a> Io<'a> {
    /// The run's streams and its `--timeout` gate.
    pub fn new(out: &'a mut dyn Write, err: &'a mut dyn Write, gate: Gate) -> Io<'a> {
        Io { out, err, gate }
    }

    /// Writes the report on standard output.
    pub fn stdout(&mut self, text: &str) -> Result<(), Failure> {
        self.gate.open()?;
        self.out.write_all(text.as_bytes()).map_err(stdout_failure)
    }

    /// Streams a large output to standard output.
    pub fn stdout_with(
        &mut self,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), Failure> {
        self.gate.open()?;
        // Standard output is line-buffered: a table of 10^5 lines would be
        // as many system calls.
        let mut w = io::BufWriter::with_capacity(1 << 16, &mut *self.out);
        write(&mut w).and_then(|()| w.flush()).map_err(stdout_failure)
    }

    /// Flushes standard output (errors as in [`Io::stdout`]).
    pub fn flush(&mut self) -> Result<(), Failure> {
        self.out.flush().map_err(stdout_failure)
    }

    /// For a run that stops itself at `--timeout` and writes what it has
    /// (a whole experiment): the deadline and its message, with the
    /// watchdog told to let the run finish ([`Gate`]).
    pub fn take_deadline(&mut self) -> Result<Option<(Instant, String)>, Failure> {
        Ok(self.gate.take_over()?.map(|(d, m)| (d, m.to_string())))
    }

    /// A line on standard error (a note, a warning, timings); control
    /// characters from inputs are escaped. Errors writing it are ignored:
    /// there is nowhere left to report them.
    pub fn note(&mut self, text: &str) {
        let _ = writeln!(self.err, "{}", escape_controls(text));
    }

    /// Writes `text` to the output file `path` atomically and says so on
    /// standard error.
    pub fn file(&mut self, path: &str, text: &str) -> Result<(), Failure> {
        self.file_with(path, |w| w.write_all(text.as_bytes()))
    }

    /// [`Io::file`], the note on stderr saying what the file holds:
    /// `wrote tasks.csv (9 measured tasks)`.
    pub fn file_described(&mut self, path: &str, text: &str, what: &str) -> Result<(), Failure> {
        self.write_atomic(path, |w| w.write_all(text.as_bytes()))?;
        self.note(&format!("wrote {path} ({what})"));
        Ok(())
    }

    /// Streams an output file: `write` fills a temporary file beside
    /// `path`, which replaces `path` only when `write` succeeded.
    pub fn file_with(
        &mut self,
        path: &str,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), Failure> {
        self.write_atomic(path, write)?;
        self.note(&format!("wrote {path}"));
        Ok(())
    }

    /// Writes `path` by the output policy (module docs): in place when it
    /// is a FIFO, a character device or a socket, else atomically.
    fn write_atomic(
        &mut self,
        path: &str,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), Failure> {
        // The kind of the node the path names, through any symlink; a
        // special node is opened by the path as given (the kernel follows
        // the links: `/dev/stdout` names a pipe that has no path).
        match Node::of(Path::new(path)) {
            Node::Regular => {}
            Node::Refused(what) => {
                return Err(Failure::input(format!("cannot write `{}`: {what}", escape_controls(path))))
            }
            Node::InPlace(kind) => return self.write_in_place(path, kind, write),
        }
        let target = write_target(Path::new(path))
            .map_err(|e| Failure::analysis(format!("cannot write `{path}`: {e}")))?;
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".errband-").suffix(".tmp");
        // Keep the mode of a file being replaced; a new file gets the
        // usual 0666 less the umask, as `File::create` would.
        #[cfg(unix)]
        let mode = {
            use std::os::unix::fs::PermissionsExt;
            let m = std::fs::metadata(&target).map(|m| m.permissions().mode() & 0o7777).unwrap_or(0o666);
            std::fs::Permissions::from_mode(m)
        };
        #[cfg(unix)]
        builder.permissions(mode);
        let cannot = |e: &dyn std::fmt::Display| Failure::analysis(format!("cannot write `{path}`: {e}"));
        let tmp = builder.tempfile_in(&dir).map_err(|e| cannot(&e))?;
        {
            let mut w = io::BufWriter::new(tmp.as_file());
            write(&mut w).map_err(|e| cannot(&e))?;
            w.flush().map_err(|e| cannot(&e))?;
        }
        // Only now may the watchdog no longer stop the run: the rename is
        // the one step that changes what the user sees.
        self.gate.open()?;
        tmp.persist(&target).map_err(|e| cannot(&e.error))?;
        Ok(())
    }

    /// Writes a FIFO, character device or socket where it is. The open
    /// comes before the gate, so `--timeout` can still stop a run whose
    /// FIFO has no reader yet; once opened, the bytes go out as they are
    /// made, and any error (ENOSPC, EPIPE) is exit 1, never a quiet end.
    fn write_in_place(
        &mut self,
        path: &str,
        kind: Special,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), Failure> {
        let cannot = |e: &dyn std::fmt::Display| {
            Failure::analysis(format!("cannot write `{}`: {e}", escape_controls(path)))
        };
        let sink = open_special(Path::new(path), kind).map_err(|e| cannot(&e))?;
        self.gate.open()?;
        let mut w = io::BufWriter::new(sink);
        write(&mut w).map_err(|e| cannot(&e))?;
        w.flush().map_err(|e| cannot(&e))?;
        Ok(())
    }
}

/// What kind of node an output path is, for the output policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Node {
    /// A regular file, or nothing yet: written atomically.
    Regular,
    /// Written in place.
    InPlace(Special),
    /// Never written: why (a directory, a block device).
    Refused(&'static str),
}

/// The nodes written in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Special {
    Fifo,
    CharDevice,
    Socket,
}

impl Node {
    /// The node at `path`, symlinks followed (a dangling one is a new path).
    fn of(path: &Path) -> Node {
        let Ok(m) = std::fs::metadata(path) else { return Node::Regular };
        let t = m.file_type();
        if t.is_dir() {
            return Node::Refused("is a directory; give a file name");
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if t.is_fifo() {
                return Node::InPlace(Special::Fifo);
            }
            if t.is_char_device() {
                return Node::InPlace(Special::CharDevice);
            }
            if t.is_socket() {
                return Node::InPlace(Special::Socket);
            }
            if t.is_block_device() {
                return Node::Refused(
                    "is a block device; errband writes regular files, FIFOs, character devices and sockets",
                );
            }
        }
        Node::Regular
    }
}

/// Opens a special node for writing, without truncating or replacing it.
fn open_special(path: &Path, kind: Special) -> io::Result<Box<dyn Write>> {
    match kind {
        #[cfg(unix)]
        Special::Socket => Ok(Box::new(std::os::unix::net::UnixStream::connect(path)?)),
        // A FIFO's open waits for a reader; a device is opened as it is.
        _ => Ok(Box::new(std::fs::OpenOptions::new().write(true).open(path)?)),
    }
}

/// A write error on standard output: a closed pipe ends the run quietly
/// with success (the reader has what it wanted); anything else is exit 1.
fn stdout_failure(e: io::Error) -> Failure {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Failure { message: String::new(), code: EXIT_OK }
    } else {
        Failure::analysis(format!("cannot write standard output: {e}"))
    }
}

/// Where the bytes for `path` go: through a symlink to its target, so that
/// the rename replaces the file the link points at, not the link.
fn write_target(path: &Path) -> io::Result<PathBuf> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path),
        _ => Ok(path.to_path_buf()),
    }
}

/// `text` with every control character but newline and tab written as
/// `\u{..}`, so that bytes from an input cannot drive the terminal.
pub fn escape_controls(text: &str) -> String {
    if !text.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        return text.to_string();
    }
    let mut s = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            s.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            s.push(c);
        }
    }
    s
}

/// What an output flag may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An SVG plot: `.svg`.
    Svg,
    /// A whole report: `.html`, `.htm` or `.md`.
    Report,
    /// A data file (CSV text): any name but those of the other kinds.
    Csv,
    /// A JSON document: `.json`.
    Json,
    /// Python source: `.py`.
    Python,
}

impl Kind {
    fn allows(self, path: &str) -> Result<(), String> {
        let ext = Path::new(path).extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
        let ext = ext.as_deref().unwrap_or("");
        match self {
            Kind::Svg if ext == "svg" => Ok(()),
            Kind::Svg => Err("errband writes plots as SVG: the file name must end in .svg".into()),
            Kind::Report if matches!(ext, "html" | "htm" | "md") => Ok(()),
            Kind::Report => {
                Err("the file name must end in .html or .md (HTML is self-contained; Markdown gets SVG figures beside it)".into())
            }
            Kind::Csv if matches!(ext, "svg" | "html" | "htm" | "md" | "png" | "pdf" | "json") => {
                Err(format!("this writes CSV text, not .{ext}"))
            }
            Kind::Csv => Ok(()),
            Kind::Json if ext == "json" => Ok(()),
            Kind::Json => Err("this writes JSON: the file name must end in .json".into()),
            Kind::Python if ext == "py" => Ok(()),
            Kind::Python => Err("this writes Python: the file name must end in .py".into()),
        }
    }
}

/// One output a run will write, named by a flag.
#[derive(Debug, Clone)]
pub struct Output {
    /// The flag as the user wrote it (`--plot`, `--report`, `--out`).
    pub flag: String,
    /// The path to write.
    pub path: String,
    /// What is written there.
    pub kind: Kind,
}

impl Output {
    /// An output `path` named by `flag`.
    pub fn new(flag: &str, path: &str, kind: Kind) -> Output {
        Output { flag: flag.to_string(), path: path.to_string(), kind }
    }
}

/// A file's identity: device and inode where it exists (Unix), and its
/// canonical path (of the file, or of its directory joined with its name).
#[derive(Debug, PartialEq, Eq)]
struct Identity {
    node: Option<(u64, u64)>,
    canonical: Option<PathBuf>,
}

impl Identity {
    fn of(path: &Path) -> Identity {
        let node = std::fs::metadata(path).ok().and_then(|m| node_of(&m));
        let canonical = std::fs::canonicalize(path).ok().or_else(|| {
            let name = path.file_name()?;
            let dir = match path.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => Path::new("."),
            };
            Some(std::fs::canonicalize(dir).ok()?.join(name))
        });
        Identity { node, canonical }
    }

    fn same(&self, other: &Identity) -> bool {
        (self.node.is_some() && self.node == other.node)
            || (self.canonical.is_some() && self.canonical == other.canonical)
    }
}

#[cfg(unix)]
fn node_of(m: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn node_of(_: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// Checks, before any work, every output of a run against its inputs
/// (`-` is standard input and names no file) and against each other: the
/// extension fits, the directory exists, the path is not a directory, and
/// no output is an input or another output. Errors name the flag (exit 2).
pub fn check_outputs(inputs: &[&str], outputs: &[Output]) -> Result<(), Failure> {
    let ins: Vec<(&str, Identity)> =
        inputs.iter().filter(|p| **p != "-").map(|p| (*p, Identity::of(Path::new(p)))).collect();
    let mut outs: Vec<(&Output, Identity)> = Vec::new();
    for o in outputs {
        let shown = escape_controls(&o.path);
        if o.path.is_empty() {
            return Err(Failure::input(format!("{}: no file name", o.flag)));
        }
        let path = Path::new(&o.path);
        if let Node::Refused(why) = Node::of(path) {
            return Err(Failure::input(format!("{} {shown}: {why}", o.flag)));
        }
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        if !dir.is_dir() {
            return Err(Failure::input(format!(
                "{} {shown}: the directory `{}` does not exist",
                o.flag,
                escape_controls(&dir.display().to_string())
            )));
        }
        let id = Identity::of(path);
        if let Some((input, _)) = ins.iter().find(|(_, i)| i.same(&id)) {
            return Err(Failure::input(format!(
                "{} {shown}: this is the input file `{}`; errband never writes over its inputs (choose another name)",
                o.flag,
                escape_controls(input)
            )));
        }
        if let Some((first, _)) = outs.iter().find(|(_, i)| i.same(&id)) {
            return Err(Failure::input(format!(
                "{} {shown}: {} {} writes the same file",
                o.flag,
                first.flag,
                escape_controls(&first.path)
            )));
        }
        // A FIFO or a device has no file format to match its name
        // (`--plot /dev/stdout`).
        if !matches!(Node::of(path), Node::InPlace(_)) {
            o.kind.allows(&o.path).map_err(|why| Failure::input(format!("{} {shown}: {why}", o.flag)))?;
        }
        outs.push((o, id));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    #[test]
    fn an_output_naming_an_input_is_refused_by_any_path() {
        let d = scratch();
        let data = d.path().join("data.csv");
        std::fs::write(&data, "p,T\n1,2\n").unwrap();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        let data_s = data.to_str().unwrap();
        let via_dots = d.path().join("sub/../data.csv");
        let link = d.path().join("link.svg");
        let hard = d.path().join("hard.svg");
        #[cfg(unix)]
        std::os::unix::fs::symlink(&data, &link).unwrap();
        std::fs::hard_link(&data, &hard).unwrap();
        for (path, kind) in [(data_s.to_string(), Kind::Csv), (via_dots.to_str().unwrap().into(), Kind::Csv)]
            .into_iter()
            .chain([link, hard].iter().map(|p| (p.to_str().unwrap().to_string(), Kind::Svg)))
        {
            let e = check_outputs(&["m.tm", data_s], &[Output::new("--plot", &path, kind)]).unwrap_err();
            assert_eq!(e.code, super::super::EXIT_INPUT, "{path}");
            assert!(e.message.contains("never writes over its inputs"), "{path}: {}", e.message);
        }
        let fresh = d.path().join("band.svg");
        check_outputs(&[data_s], &[Output::new("--plot", fresh.to_str().unwrap(), Kind::Svg)]).unwrap();
    }

    #[test]
    fn extensions_directories_and_duplicate_outputs_are_checked() {
        let d = scratch();
        let p = |n: &str| d.path().join(n).to_str().unwrap().to_string();
        let e = check_outputs(&[], &[Output::new("--plot", &p("x.png"), Kind::Svg)]).unwrap_err();
        assert!(e.message.contains("must end in .svg"), "{}", e.message);
        let e = check_outputs(&[], &[Output::new("--report", &p("x.txt"), Kind::Report)]).unwrap_err();
        assert!(e.message.contains(".html"), "{}", e.message);
        let e = check_outputs(&[], &[Output::new("--plot", &p("no/such/x.svg"), Kind::Svg)]).unwrap_err();
        assert!(e.message.contains("does not exist"), "{}", e.message);
        let e =
            check_outputs(&[], &[Output::new("--out", d.path().to_str().unwrap(), Kind::Csv)]).unwrap_err();
        assert!(e.message.contains("directory"), "{}", e.message);
        let two =
            [Output::new("--plot", &p("a.svg"), Kind::Svg), Output::new("--plot", &p("a.svg"), Kind::Svg)];
        assert!(check_outputs(&[], &two).unwrap_err().message.contains("writes the same file"));
        check_outputs(&["-"], &[Output::new("--out", &p("tasks.csv"), Kind::Csv)]).unwrap();
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let d = scratch();
        let target = d.path().join("band.svg");
        std::fs::write(&target, "old").unwrap();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let mut io = Io::new(&mut out, &mut err, Gate::default());
        let t = target.to_str().unwrap();
        let e = io
            .file_with(t, |w| {
                w.write_all(b"half")?;
                Err(io::Error::other("disk gone"))
            })
            .unwrap_err();
        assert!(e.message.contains("disk gone"));
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1, "a temporary file was left");
        io.file(t, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(String::from_utf8(err).unwrap(), format!("wrote {t}\n"));
    }

    #[test]
    fn a_stopped_run_writes_nothing_and_a_writing_run_is_not_stopped() {
        let g = Gate::default();
        assert!(g.stop());
        assert!(g.open().is_err());
        let g = Gate::default();
        g.open().unwrap();
        assert!(!g.stop());
        g.open().unwrap();
    }

    #[test]
    fn a_closed_pipe_is_quiet_success_and_a_full_disk_an_error() {
        let f = stdout_failure(io::Error::from(io::ErrorKind::BrokenPipe));
        assert_eq!((f.code, f.message.as_str()), (EXIT_OK, ""));
        let f = stdout_failure(io::Error::other("No space left on device"));
        assert_eq!(f.code, EXIT_ANALYSIS);
    }

    #[test]
    fn control_characters_are_escaped_but_lines_kept() {
        assert_eq!(escape_controls("a\u{1b}[31mb\nc\td\r"), "a\\u{1b}[31mb\nc\td\\u{d}");
        assert_eq!(escape_controls("plain"), "plain");
    }
}
