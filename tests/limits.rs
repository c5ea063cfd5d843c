//! Resource limits: `--timeout` stops any command with exit code 1 and a
//! clear message, and absurd inputs end quickly with a limit error.

#[path = "common/cli.rs"]
mod cli;
use cli::*;

#[test]
fn timeout_stops_long_runs_and_leaves_short_ones_alone() {
    // The 32x32 Mandelbrot sub-grid interpolated to a million tasks and
    // simulated 16 times takes well over a millisecond.
    for args in [
        vec!["ms", "predict", "data/mandelbrot_32x32.csv", "--grid", "1024x1024", "--timeout", "1ms"],
        vec!["ms", "--timeout", "1ms", "predict", "data/mandelbrot_32x32.csv", "--grid", "1024x1024"],
        vec!["barrier", "--nodes", "2..3000", "--mpi-model", "models/mpi_barrier.tm", "--mpi-data", "data/mpi_barrier.csv", "--timeout", "2ms"],
    ] {
        let r = fails(&args, 1);
        has(&r.stderr, &["--timeout", "reached"]);
    }
    // A generous timeout changes nothing.
    let plain = ok(&["models/hpl.tm", "data/hpl.csv", "--format", "json"]);
    assert_eq!(ok(&["models/hpl.tm", "data/hpl.csv", "--format", "json", "--timeout", "10min"]), plain);
    for bad in ["0s", "-1s", "soon", "3 fortnights"] {
        let r = fails(&["models/hpl.tm", "data/hpl.csv", "--timeout", bad], 2);
        has(&r.stderr, &["--timeout"]);
    }
}

#[test]
fn absurd_exponents_and_literals_end_at_once_with_a_limit_error() {
    let model = tmp_file("big.tm", "T(p) = c0 + c1*p^1000000000\nparam c0, c1\n");
    let r = fails(&[&model, "data/amdahl.csv"], 2);
    has(&r.stderr, &["exponent too large", "big.tm:1:"]);
    assert!(r.secs < 1.0, "took {:.2} s", r.secs);
    let digits = format!("p,T\n1,{}\n2,3\n4,5\n", "9".repeat(100_000));
    let data = tmp_file("big.csv", &digits);
    let r = fails(&["models/amdahl.tm", &data], 2);
    has(&r.stderr, &["digit count limit", "big.csv:2:"]);
    assert!(r.secs < 1.0, "took {:.2} s", r.secs);
}
