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
    pub secs: f64,
}

impl Run {
    pub fn show(&self) -> String {
        format!(
            "exit {:?} after {:.2} s\n--- stdout:\n{}\n--- stderr:\n{}",
            self.code, self.secs, self.stdout, self.stderr
        )
    }
}

pub fn run(args: &[&str]) -> Run {
    run_stdin(args, None)
}

pub fn run_stdin(args: &[&str], stdin: Option<&str>) -> Run {
    let mut cmd = errband();
    cmd.args(args);
    if let Some(s) = stdin {
        cmd.write_stdin(s);
    }
    let t = Instant::now();
    let out = cmd.output().expect("errband runs");
    let r = Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        secs: t.elapsed().as_secs_f64(),
    };
    assert!(!r.stderr.contains("panicked"), "errband {args:?} panicked\n{}", r.show());
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
