//! Identical output bytes across runs and thread counts: every command that
//! works in parallel (cylinder cells, pruning candidates, energy regions,
//! master/slave processor counts) is run on one thread and on several, twice
//! each, and the outputs compared byte for byte.

#[path = "common/cli.rs"]
mod cli;
use cli::*;

/// stdout of `errband args` with `threads` rayon threads (global pool).
fn with_threads(args: &[&str], threads: usize) -> String {
    let out =
        errband().args(args).env("RAYON_NUM_THREADS", threads.to_string()).output().expect("errband runs");
    assert!(out.status.success(), "errband {args:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

#[track_caller]
fn same_bytes(args: &[&str]) {
    let one = with_threads(args, 1);
    assert!(!one.is_empty(), "errband {args:?} printed nothing");
    for threads in [1, 2, 4] {
        let other = with_threads(args, threads);
        assert!(other == one, "errband {args:?}: output with {threads} threads differs from one thread");
    }
}

#[test]
fn outputs_do_not_depend_on_threads_or_runs() {
    same_bytes(&["models/hpl.tm", "data/hpl.csv", "--format", "json", "--envelope"]);
    same_bytes(&["models/pn.tm", "data/pn.csv", "--format", "json"]);
    same_bytes(&["qe", "models/hpl_eq5.qe", "--format", "json"]);
    same_bytes(&["energy", "data/energy_mg.csv", "--format", "json"]);
    same_bytes(&[
        "barrier",
        "--nodes",
        "2..64",
        "--mpi-model",
        "models/mpi_barrier.tm",
        "--mpi-data",
        "data/mpi_barrier.csv",
        "--format",
        "json",
    ]);
    same_bytes(&[
        "ms",
        "predict",
        "data/mandelbrot_32x32.csv",
        "--grid",
        "1024x1024",
        "--procs",
        "8..64:8",
        "--format",
        "json",
    ]);
}

#[test]
fn searches_do_not_depend_on_jobs() {
    let prune =
        ["prune", "models/hpl.tm", "data/hpl.csv", "--target", "p=1000", "--max-drop=2", "--format", "json"];
    let plan = [
        "plan",
        "models/hpl.tm",
        "data/hpl.csv",
        "--target",
        "p=1000",
        "--candidates",
        "p=130..300:10",
        "--format",
        "json",
    ];
    for args in [&prune[..], &plan[..]] {
        let one = ok(&[args, &["-j", "1"]].concat());
        for j in ["2", "4", "1"] {
            assert!(ok(&[args, &["-j", j]].concat()) == one, "errband {args:?}: -j {j} differs from -j 1");
        }
    }
}
