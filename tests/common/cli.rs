//! Running the `errband` binary from integration tests: exit code, output
//! and timing of a run, JSON output, scratch files. Shared by the CLI test
//! files (each includes it with `#[path = "common/cli.rs"] mod cli;`).
#![allow(dead_code)]

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub fn errband() -> Command {
    let mut c = assert_cmd::cargo::cargo_bin_cmd!("errband");
    c.current_dir(root()).timeout(Duration::from_secs(120));
    c
}

/// What a run produced.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// The CPU time of the run (user plus system, all its threads), in
    /// seconds: what time limits in the tests compare against, because a
    /// busy machine stretches the wall clock, not the work.
    pub secs: f64,
    /// The wall-clock time, for messages.
    pub wall: f64,
}

impl Run {
    pub fn show(&self) -> String {
        format!(
            "exit {:?} after {:.2} s of CPU time ({:.2} s wall)\n--- stdout:\n{}\n--- stderr:\n{}",
            self.code, self.secs, self.wall, self.stdout, self.stderr
        )
    }
}

pub fn run(args: &[&str]) -> Run {
    run_stdin(args, None)
}

pub fn run_stdin(args: &[&str], stdin: Option<&str>) -> Run {
    let r = run_timed(args, stdin);
    assert!(!r.stderr.contains("panicked"), "errband {args:?} panicked\n{}", r.show());
    r
}

/// Runs the binary in the crate root and reaps it with `wait4`, which
/// gives its CPU time; a run still going after 120 s is killed.
fn run_timed(args: &[&str], stdin: Option<&str>) -> Run {
    use std::io::{Read, Write};
    use std::process::Stdio;
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin!("errband"));
    cmd.current_dir(root())
        .args(args)
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let t = Instant::now();
    let mut child = cmd.spawn().expect("errband runs");
    let pid = child.id() as libc::pid_t;
    let feed = stdin.map(|s| {
        let mut w = child.stdin.take().expect("piped stdin");
        let s = s.to_string();
        // A run that stops reading early closes the pipe: not an error here.
        std::thread::spawn(move || drop(w.write_all(s.as_bytes())))
    });
    let drain = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut b = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut b);
            }
            b
        })
    };
    let out = drain(child.stdout.take().map(|r| Box::new(r) as Box<dyn Read + Send>));
    let err = drain(child.stderr.take().map(|r| Box::new(r) as Box<dyn Read + Send>));
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let killer = std::thread::spawn(move || {
        if done_rx.recv_timeout(Duration::from_secs(120)).is_err() {
            // SAFETY: signalling our own child, not yet reaped (the reaper
            // below sends `done` only after wait4 returned).
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    });
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let _ = done_tx.send(());
    let _ = killer.join();
    assert_eq!(reaped, pid, "wait4 for errband {args:?}");
    let wall = t.elapsed().as_secs_f64();
    if let Some(f) = feed {
        let _ = f.join();
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    let code = if libc::WIFEXITED(status) { Some(libc::WEXITSTATUS(status)) } else { None };
    // The child is reaped: dropping the handle must not wait again.
    std::mem::forget(child);
    let r = Run {
        code,
        stdout: String::from_utf8_lossy(&out.join().unwrap_or_default()).into_owned(),
        stderr: String::from_utf8_lossy(&err.join().unwrap_or_default()).into_owned(),
        secs: tv(usage.ru_utime) + tv(usage.ru_stime),
        wall,
    };
    // ERRBAND_TEST_TIMES=FILE: every run's CPU and wall time, to check the
    // margins of the time limits against a quiet run.
    if let Some(path) = std::env::var_os("ERRBAND_TEST_TIMES") {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
            let _ = writeln!(
                f,
                "{:.3}\t{:.3}\t{}",
                r.secs,
                r.wall,
                args.join(" ").chars().take(200).collect::<String>()
            );
        }
    }
    r
}

/// Runs and asserts exit 0; returns stdout.
pub fn ok(args: &[&str]) -> String {
    let r = run(args);
    assert_eq!(r.code, Some(0), "errband {args:?} should succeed\n{}", r.show());
    r.stdout
}

/// Runs with `--format json` appended, asserts exit 0, parses stdout.
pub fn json(args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.extend(["--format", "json"]);
    let out = ok(&a);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("errband {a:?}: stdout is not JSON ({e}):\n{out}"))
}

/// Runs and asserts the exit code; returns the run.
pub fn fails(args: &[&str], code: i32) -> Run {
    let r = run(args);
    assert_eq!(r.code, Some(code), "errband {args:?} should exit {code}\n{}", r.show());
    r
}

/// Asserts that `hay` contains every needle.
#[track_caller]
pub fn has(hay: &str, needles: &[&str]) {
    for n in needles {
        assert!(hay.contains(n), "expected {n:?} in:\n{hay}");
    }
}

/// A fresh scratch directory, new on every call (under cargo's target
/// dir): tests run in parallel and never share one. Kept after the run, for
/// looking at a failure.
pub fn tmp_dir() -> PathBuf {
    let base = Path::new(env!("CARGO_TARGET_TMPDIR"));
    std::fs::create_dir_all(base).expect("create the scratch base dir");
    tempfile::Builder::new()
        .prefix(concat!(env!("CARGO_CRATE_NAME"), "-"))
        .tempdir_in(base)
        .expect("create scratch dir")
        .keep()
}

/// Writes `content` to a file named `name` in a fresh scratch directory and
/// returns its path as a string.
pub fn tmp_file(name: &str, content: &str) -> String {
    let p = tmp_dir().join(name);
    std::fs::write(&p, content).expect("write scratch file");
    p.to_str().expect("UTF-8 path").to_string()
}

/// Asserts that the answer's `sentence` appears in every output that
/// carries the answer for `args`: `--brief`, Markdown (escaped as Markdown
/// reports escape text) and the HTML report (escaped as it escapes text).
/// Returns the brief output.
#[track_caller]
pub fn answer_says(args: &[&str], sentence: &str) -> String {
    let with = |extra: &[&str]| ok(&[args, extra].concat());
    let brief = with(&["--brief"]);
    has(&brief, &[sentence]);
    let md: String = sentence
        .chars()
        .flat_map(|c| if "\\`*_{}[]()#+!|".contains(c) { vec!['\\', c] } else { vec![c] })
        .collect();
    has(&with(&["--format", "md"]), &[&md]);
    let html = tmp_dir().join("report.html");
    with(&["--report", html.to_str().expect("UTF-8 path")]);
    // Escaped as the report escapes text.
    let escaped: String = sentence
        .chars()
        .map(|c| match c {
            '&' => "&amp;".to_string(),
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            '"' => "&quot;".to_string(),
            '\'' => "&#39;".to_string(),
            c => c.to_string(),
        })
        .collect();
    has(&std::fs::read_to_string(&html).expect("the report"), &[&escaped]);
    brief
}
