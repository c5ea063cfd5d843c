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

/// Fuzzing found that long ranges were built before their length was
/// checked (`1..100000000`: half a second to refuse) and that a factor
/// barely above 1 built a million ever longer fractions (a hang).
#[test]
fn long_ranges_are_refused_before_they_are_built() {
    for at in ["p=1..100000000", "p=1..2:*1.0000001", "p=0..1:1/100000000"] {
        let r = fails(&["models/amdahl.tm", "data/amdahl.csv", "--at", at], 2);
        has(&r.stderr, &["more than 1000000 values"]);
        assert!(r.secs < 1.0, "--at {at} took {:.2} s", r.secs);
    }
    let slow = tmp_file("slow.tm", "T(p) = c1 + c2/p\nparam c1, c2\npredict p = 1..100000000\n");
    let r = fails(&[&slow, "data/amdahl.csv"], 2);
    has(&r.stderr, &["slow.tm:3:"]);
    assert!(r.secs < 1.0, "took {:.2} s", r.secs);
    // Huge ends with a huge factor are still a short range.
    let out = ok(&["models/amdahl.tm", "data/amdahl.csv", "--at", "p=1..1e400:*1e300", "--format", "json"]);
    assert!(out.contains("\"p\""), "{out}");
}
