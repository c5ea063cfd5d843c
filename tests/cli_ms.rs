//! End-to-end tests of `errband ms`: the issue's hand check, the Mandelbrot
//! workload and its subsets against Mizutani, Ino & Hagihara eq. 2–3, partial execution by
//! `ms sample`, orders and speeds files, outputs, and bad options.

#[path = "common/cli.rs"]
mod cli;
use cli::*;
use serde_json::Value;
use std::sync::OnceLock;

/// `{exact: "a/b", decimal}` as f64 (JSON exact values).
fn f(v: &Value) -> f64 {
    let s = v["exact"].as_str().unwrap_or_else(|| panic!("not an exact value: {v}"));
    match s.split_once('/') {
        Some((a, b)) => a.parse::<f64>().unwrap() / b.parse::<f64>().unwrap(),
        None => s.parse().unwrap(),
    }
}

const HAND: &str = "i1,time [ns]\n0,1000\n1,1000\n2,1000\n";
const HAND_LOGGP: &str = "L=5000ns,o=1000ns+10ns*P,G=10ns/B";

#[test]
fn the_issues_hand_check_from_the_command_line() {
    let file = tmp_file("hand.csv", HAND);
    let j = json(&["ms", "predict", &file, "--grid", "3", "--procs", "3", "--loggp", HAND_LOGGP]);
    assert_eq!(j["errband"], env!("CARGO_PKG_VERSION"));
    assert_eq!(j["runs"][0]["time"]["exact"], "1639/50000000"); // 32 780 ns
    assert_eq!(j["runs"][0]["time"]["decimal"], "0.00003278");
    assert_eq!(j["runs"][0]["slave_tasks"], serde_json::json!([2, 1]));
    let j =
        json(&["ms", "predict", &file, "--grid", "3", "--procs", "3", "--loggp", HAND_LOGGP, "--no-p1-recv"]);
    assert_eq!(j["runs"][0]["time"]["exact"], "12/390625"); // 30 720 ns
    let text = ok(&["ms", "predict", &file, "--grid", "3", "--procs", "2..4", "--loggp", HAND_LOGGP]);
    has(&text, &["32.78 us", "all 3 tasks of grid 3 measured", "L=5us, o=1us+10ns*P, g=1us, G=10ns/B"]);
}

/// The paper-style Mandelbrot workload, written once per test binary.
fn mandelbrot() -> &'static str {
    static FILE: OnceLock<String> = OnceLock::new();
    FILE.get_or_init(|| {
        let p = tmp_dir().join("mandelbrot.csv").to_str().unwrap().to_string();
        ok(&["ms", "mandelbrot", "--out", &p]);
        p
    })
}

#[test]
fn mandelbrot_workload_is_the_papers_definition() {
    let text = std::fs::read_to_string(mandelbrot()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2 + 1024 * 1024);
    assert_eq!(lines[1], "i1,i2,time [us]");
    // Corner (0, 0) is c = -2 - 1.5i: escapes at once. Row 511/512 straddle y = 0.
    assert_eq!(lines[2], "0,0,1");
    // x_j = 0 is never hit exactly; the point nearest the origin, inside the set, runs 1000 iterations.
    let at = |i: usize, j: usize| lines[2 + i * 1024 + j];
    assert_eq!(at(511, 682), "511,682,1000");
    let total: u64 = lines[2..].iter().map(|l| l.rsplit(',').next().unwrap().parse::<u64>().unwrap()).sum();
    // A = the sum of iterations × 1 us; pinned so a change to the definition is seen.
    assert_eq!(total, 180_663_639, "total iterations");
}

#[test]
fn full_mandelbrot_prediction_meets_the_papers_checkable_facts() {
    let j = json(&["ms", "predict", mandelbrot(), "--grid", "1024x1024"]);
    let runs = j["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 16);
    assert_eq!(j["tasks"]["sampled"], 1_048_576);
    assert_eq!(j["events"], 16 * 1_048_576);
    // With the full workload as the subset the interpolation is the identity:
    // A is the sum of the raw times.
    assert_eq!(j["tasks"]["total_time"]["exact"], "180663639/1000000");
    let t: Vec<f64> = runs.iter().map(|r| f(&r["time"])).collect();
    // At P = 8, slaves are the bottleneck: run time ≥ A/7 and within 15 % of it.
    let a = 180.663639;
    assert!(t[0] >= a / 7.0 && t[0] < a / 7.0 * 1.15, "{t:?}");
    // The master saturates: the run time stops falling inside the listed range.
    let flat = j["flat_from_procs"].as_u64().unwrap();
    assert!((40..=128).contains(&flat), "{flat}");
    assert!(f(&runs[15]["master_busy"]) > 0.95);
}

#[test]
fn subset_errors_are_explained_by_the_task_time_deficit() {
    let j = json(&[
        "ms",
        "predict",
        mandelbrot(),
        "--grid",
        "1024x1024",
        "--compare-subsets",
        "1/16,1/1024,1/65536",
    ]);
    let c = &j["comparison"];
    let a0 = f(&c["full"]["total_time"]);
    let subsets = c["subsets"].as_array().unwrap();
    assert_eq!(subsets.len(), 3);
    let sampled: Vec<u64> = subsets.iter().map(|s| s["sampled"].as_u64().unwrap()).collect();
    assert_eq!(sampled, vec![65_536, 1024, 16]); // Table 1: 1/16, 1/1024, 1/65536
    let mut max_errors = Vec::new();
    for s in subsets {
        let label = s["label"].as_str().unwrap();
        let x = f(&s["eq3_error"]); // eq. 3: X = (A0 - A)/A0
        assert!((x - (a0 - f(&s["total_time"])) / a0).abs() < 1e-12);
        let r8 = &s["runs"][0];
        assert_eq!(r8["procs"], 8);
        // At P = 8 slaves are the bottleneck (the master is busy 12 % of the
        // time), so E(S0) - E(S) follows D = (A0 - A)/7 (eq. 2, Table 4) and
        // the error follows |D|/E(S0) = |X|·u, u the slaves' compute share.
        // Tolerance: eq. 2 assumes slaves never wait for the master; at P = 8
        // results do queue behind it, and the queueing differs between
        // workloads by up to a quarter of the deficit's effect here (26.0 %
        // observed against 26.9 % explained for 1/65536), plus a floor of
        // 0.1 percentage points for scheduling noise when the deficit is
        // tiny (1/16: 0.03 % observed against 0.05 %). Both are small
        // against the errors being explained (up to 26 %).
        let (err, explained) = (f(&r8["error"]), f(&r8["deficit_error"]));
        assert!(
            (err - explained).abs() <= 0.25 * explained + 0.001,
            "{label}: error {err} vs |D|/E(S0) {explained}"
        );
        let (diff, d) = (f(&r8["diff"]), f(&r8["deficit_per_slave"]));
        if d.abs() > 0.1 {
            assert_eq!(diff.signum(), d.signum(), "{label}: E(S0) - E(S) = {diff} against D = {d}");
        }
        max_errors.push((x.abs(), f(&s["max_error"])));
    }
    // Table 3 against eq. 3: the largest error over P lies between 0.8·|X|
    // and |X| + 0.3 points when the deficit matters (|X| ≥ 1 %): eq. 3
    // ignores communication, which makes E(S0) 10 % longer than A0/(P - 1)
    // at P = 8 and so scales the observed error down by about 0.9.
    for &(x, m) in &max_errors {
        if x >= 0.01 {
            assert!(m >= 0.8 * x && m <= x + 0.003, "max error {m} against eq. 3's {x}");
        } else {
            assert!(m < 0.01, "max error {m} with a deficit of {x}");
        }
    }
    // Coarser subsets lose more (1/16 < 1/1024 < 1/65536).
    assert!(max_errors[0].1 < max_errors[1].1 && max_errors[1].1 < max_errors[2].1, "{max_errors:?}");
}

#[test]
fn sample_runs_a_command_per_task_and_feeds_predict() {
    let out = tmp_dir().join("sampled.csv");
    let out = out.to_str().unwrap();
    let r =
        run(&["ms", "sample", "--grid", "5x4", "--every", "2", "--out", out, "--", "true", "{i1}", "{i2}"]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    has(&r.stderr, &[&format!("wrote {out} (9 measured tasks)")]);
    let text = std::fs::read_to_string(out).unwrap();
    has(&text, &["# command: true {i1} {i2}", "i1,i2,time [us]", "\n0,0,", "\n0,3,", "\n4,2,", "\n4,3,"]);
    assert_eq!(text.lines().filter(|l| !l.starts_with('#')).count(), 1 + 9); // axes {0,2,4} x {0,2,3}
    let j = json(&["ms", "predict", out, "--grid", "5x4", "--procs", "2,3"]);
    assert_eq!(j["tasks"]["sampled"], 9);
    assert_eq!(j["tasks"]["tasks"], 20);
    // Dry run prints the commands with the indices substituted.
    let dry = ok(&["ms", "sample", "--grid", "3", "--every", "2", "--dry-run", "--", "./task", "--x={i1}"]);
    assert_eq!(dry, "./task --x=0\n./task --x=2\n");
    // A failing command stops the run with exit 1 and names the task.
    let r = fails(&["ms", "sample", "--grid", "2", "--", "sh", "-c", "echo boom >&2; exit 3", "{i1}"], 1);
    has(&r.stderr, &["task (0)", "boom"]);
    let r = fails(&["ms", "sample", "--grid", "2", "--", "/no/such/program"], 2);
    has(&r.stderr, &["cannot run `/no/such/program`"]);
    let r = fails(&["ms", "sample", "--grid", "4x4", "--", "echo", "{i3}"], 2);
    has(&r.stderr, &["{i3}", "2 dimensions"]);
}

#[test]
fn order_and_speeds_files_change_the_schedule() {
    let tasks = tmp_file("t.csv", "i1,time [us]\n0,100\n1,1\n2,1\n3,1\n");
    let base = json(&["ms", "predict", &tasks, "--grid", "4", "--procs", "3"]);
    // Longest task last: it lands at the end of the schedule, so the run is longer.
    let order = tmp_file("order.csv", "i1\n1\n2\n3\n0\n");
    let late = json(&["ms", "predict", &tasks, "--grid", "4", "--procs", "3", "--order", &order]);
    assert!(f(&late["runs"][0]["time"]) > f(&base["runs"][0]["time"]));
    // Slaves listed as twice as slow equal --ratio 2.
    let speeds = tmp_file("speeds.csv", "slave,ratio\n1,2\n2,2\n");
    let a = json(&["ms", "predict", &tasks, "--grid", "4", "--procs", "3", "--speeds", &speeds]);
    let b = json(&["ms", "predict", &tasks, "--grid", "4", "--procs", "3", "--ratio", "2"]);
    assert_eq!(a["runs"][0]["time"], b["runs"][0]["time"]);
    let r = fails(&["ms", "predict", &tasks, "--grid", "4", "--procs", "8", "--speeds", &speeds], 2);
    has(&r.stderr, &["lists 2 slaves but P = 8 needs 7"]);
    let bad_order = tmp_file("order.csv", "i1\n1\n2\n1\n0\n");
    let r = fails(&["ms", "predict", &tasks, "--grid", "4", "--procs", "3", "--order", &bad_order], 2);
    has(&r.stderr, &["appears twice in the allocation order (first on line 2)", ":4:"]);
    let short_order = tmp_file("order.csv", "i1\n1\n2\n0\n");
    let r = fails(&["ms", "predict", &tasks, "--grid", "4", "--procs", "3", "--order", &short_order], 2);
    has(&r.stderr, &["lists 3 of the grid's 4 tasks; task (3) is missing"]);
    let bad_speeds = tmp_file("speeds.csv", "slave,ratio\n1,2\n3,0\n");
    let r = fails(&["ms", "predict", &tasks, "--grid", "4", "--procs", "3", "--speeds", &bad_speeds], 2);
    has(&r.stderr, &["ratio 0 must be positive", ":3:"]);
}

#[test]
fn outputs_and_plot() {
    let file = tmp_dir().join("mb64.csv");
    let file = file.to_str().unwrap();
    ok(&["ms", "mandelbrot", "--grid", "64x64", "--out", file]);
    let plot = tmp_dir().join("ms.svg");
    let plot = plot.to_str().unwrap();
    let args =
        ["ms", "predict", file, "--grid", "64x64", "--procs", "2..16:2", "--compare-subsets", "1/16,4x4"];
    let text = ok(&[&args[..], &["--plot", plot]].concat());
    has(
        &text,
        &["Subsets of the fully measured workload", "1/16", "4x4", "|D|/E(S0)", "the master saturates"],
    );
    let svg = std::fs::read_to_string(plot).unwrap();
    has(
        &svg,
        &["<svg", "predicted run time", "subset 1/16 (256 tasks run)", "all tasks (S0, 4096 tasks run)"],
    );
    let csv = ok(&[&args[..], &["--format", "csv"]].concat());
    assert_eq!(csv.lines().count(), 1 + 3 * 8);
    has(&csv, &["subset,procs,slaves,run_time_s", "\nfull,2,1,", "\n4x4,16,15,"]);
    let md = ok(&[&args[..], &["--format", "md"]].concat());
    has(&md, &["# Master/slave run-time prediction", "| P |", "### 4x4"]);
    let per = ok(&["ms", "predict", file, "--grid", "64x64", "--procs", "4", "--per-slave"]);
    has(&per, &["P = 4: busy fraction (tasks) per slave", "   1: ", "   3: "]);
    let r = run(&["ms", "predict", file, "--grid", "64x64", "--procs", "2..8", "--timings"]);
    has(&r.stderr, &["timings: read", "events/s", "total"]);
}

#[test]
fn bad_options_get_clear_errors() {
    let file = tmp_file("hand.csv", HAND);
    for (args, needle) in [
        (vec!["--procs", "1"], "must be at least 2"),
        (vec!["--procs", "2.5"], "not a processor count"),
        (vec!["--loggp", "Q=1us"], "unknown parameter `Q`"),
        (vec!["--loggp", "L=-1us"], "negative"),
        (vec!["--k-in", "-3B"], "cannot be negative"),
        (vec!["--ratio", "0"], "positive number"),
        (vec!["--compare-subsets", "1/3"], "does not split"),
        (vec!["--unit", "parsecs"], "unknown unit"),
    ] {
        let mut a = vec!["ms", "predict", file.as_str(), "--grid", "3"];
        a.extend(args.iter().copied());
        let r = fails(&a, 2);
        has(&r.stderr, &[needle]);
    }
    // A sub-grid cannot be compared with its own subsets.
    let part = tmp_file("part.csv", "i1,time\n0,1\n2,3\n");
    let r = fails(&["ms", "predict", &part, "--grid", "3", "--compare-subsets", "2"], 2);
    has(&r.stderr, &["needs every task's time", "has 2 of the grid's 3 tasks"]);
    let r = fails(&["ms", "predict", &file, "--grid", "3x0"], 2);
    has(&r.stderr, &["not an extent"]);
    let r = fails(&["ms", "predict", &file, "--grid", "100000x100000x100000"], 2);
    has(&r.stderr, &["--max-tasks"]);
    let r = fails(&["ms", "predict", &file, "--grid", "4"], 2);
    has(&r.stderr, &["has no task at index 3"]);
    // Times whose common denominator exceeds 128 bits are refused where they are read.
    let huge = tmp_file("huge.csv", "i1,time [s]\n0,1e30\n1,0.000000000000000000000000000001\n");
    let r = fails(&["ms", "predict", &huge, "--grid", "2", "--procs", "2"], 2);
    has(&r.stderr, &["too large for exact 128-bit simulation", ":1:"]);
    // A run time beyond 2^128 ticks (10^12 s in ticks of 10^-27 s) is impossible: exit 1 with a reason.
    let long = tmp_file("long.csv", "i1,time [s]\n0,1000000000000\n1,1\n");
    let r = fails(&["ms", "predict", &long, "--grid", "2", "--procs", "2", "--loggp", "L=1e-27s"], 1);
    has(&r.stderr, &["does not fit 128 bits"]);
    let r = fails(&["ms", "mandelbrot", "--grid", "4x4x4"], 2);
    has(&r.stderr, &["two-dimensional"]);
}
