//! `errband measure`: the grid, the shuffled and seeded order, the CSV it
//! writes (read back by errband), resuming, interruption, the metric read
//! from a program's output, and the JSON export. Every test writes in its
//! own scratch directory.

#[path = "common/cli.rs"]
mod cli;
use cli::*;

/// The data rows of a CSV file errband wrote (no comments, no header).
fn rows(text: &str) -> Vec<String> {
    text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).skip(1).map(String::from).collect()
}

/// A command whose run time is known: `sleep p milliseconds`, at four
/// values, three runs each; the fitted slope of `T(p) = a + b*p` is 1 ms
/// per p within 20 %.
#[test]
fn measured_sleeps_give_the_known_slope() {
    let dir = tmp_dir();
    let out = dir.join("scaling.csv");
    let out_s = out.to_str().unwrap();
    let json_s = dir.join("runs.json");
    let json_s = json_s.to_str().unwrap();
    let r = run(&[
        "measure",
        "--var",
        "p=25,50,100,200",
        "--runs",
        "3",
        "--warmup",
        "1",
        "--seed",
        "11",
        "-o",
        out_s,
        "--export-json",
        json_s,
        "--",
        "sleep",
        "{p}e-3",
    ]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    eprintln!("measure: {:.2} s wall, {:.3} s CPU", r.wall, r.secs);
    let text = std::fs::read_to_string(&out).unwrap();
    has(
        &text,
        &[
            "# command: sleep {p}e-3",
            "# seed: 11",
            "# host: ",
            "# date: ",
            "(errband measure)",
            "\np,time [s]\n",
        ],
    );
    assert_eq!(text.matches("\np,time [s]\n").count(), 1, "one header");
    let rs = rows(&text);
    assert_eq!(rs.len(), 12, "{text}");
    for p in ["25", "50", "100", "200"] {
        assert_eq!(rs.iter().filter(|r| r.split(',').next() == Some(p)).count(), 3, "{text}");
    }
    // Shuffled: the rows are not in grid order.
    let order: Vec<&str> = rs.iter().map(|r| r.split(',').next().unwrap()).collect();
    assert_ne!(order, ["25", "25", "25", "50", "50", "50", "100", "100", "100", "200", "200", "200"]);
    let model = tmp_file("lin.tm", "T(p) = a + b*p\nparam a, b\n");
    let j = json(&[&model, out_s, "--y", "time"]);
    let b = &j["params"][1];
    assert_eq!(b["name"], "b");
    let (n, d) = b["exact"].as_str().unwrap().split_once('/').unwrap_or((b["exact"].as_str().unwrap(), "1"));
    let slope = n.parse::<f64>().unwrap() / d.parse::<f64>().unwrap();
    assert!((slope - 1e-3).abs() <= 0.2e-3, "slope {slope} s per p, expected 0.001 within 20 %");
    // The export: hyperfine's layout, the times of the CSV.
    let e: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(json_s).unwrap()).unwrap();
    assert_eq!(e["results"].as_array().unwrap().len(), 4);
    assert_eq!(e["results"][0]["parameters"]["p"], "25");
    assert_eq!(e["results"][0]["times"].as_array().unwrap().len(), 3);
    assert_eq!(e["results"][0]["command"], "sleep 25e-3");
    assert_eq!(e["seed"], 11);
    assert_eq!(e["unit"], "s");
}

/// The same seed gives the same order; the order is a permutation of
/// every (point, run); several variables run every combination.
#[test]
fn the_order_is_seeded_and_covers_the_grid() {
    let args = |seed: &str| {
        ok(&[
            "measure",
            "--var",
            "p=1..4",
            "--var",
            "n=10,20",
            "--runs",
            "2",
            "--seed",
            seed,
            "--dry-run",
            "--",
            "app",
            "-np",
            "{p}",
            "--size={n}",
        ])
    };
    let a = args("5");
    assert_eq!(a, args("5"));
    assert_ne!(a, args("6"));
    let mut lines: Vec<&str> = a.lines().collect();
    assert_eq!(lines.len(), 16);
    lines.sort_unstable();
    lines.dedup();
    assert_eq!(lines.len(), 8, "each of 4 x 2 points twice");
    assert!(lines.contains(&"app -np 3 --size=20"), "{a}");
}

/// `--resume` keeps every row and runs only the missing runs; an existing
/// file is never replaced without it.
#[test]
fn resume_completes_a_file_and_never_replaces_one() {
    let dir = tmp_dir();
    let out = dir.join("d.csv");
    let out_s = out.to_str().unwrap();
    ok(&["measure", "--var", "p=1,2", "--runs", "1", "-o", out_s, "--", "true"]);
    let first = std::fs::read_to_string(&out).unwrap();
    assert_eq!(rows(&first).len(), 2);
    let r = fails(&["measure", "--var", "p=1,2", "--runs", "3", "-o", out_s, "--", "true"], 2);
    has(&r.stderr, &["exists", "--resume"]);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), first, "untouched");
    ok(&["measure", "--var", "p=1,2", "--runs", "3", "--resume", "-o", out_s, "--", "true"]);
    let second = std::fs::read_to_string(&out).unwrap();
    assert!(second.starts_with(&first), "earlier rows are kept as they were");
    assert_eq!(rows(&second).len(), 6, "{second}");
    has(&second, &["# resumed by errband"]);
    // A row cut short by a kill (no newline) is dropped before resuming.
    std::fs::write(&out, format!("{second}2,0.00")).unwrap();
    let r = run(&["measure", "--var", "p=1,2", "--runs", "3", "--resume", "-o", out_s, "--", "true"]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    has(&r.stderr, &["dropped the incomplete last line"]);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), second);
    // Nothing left: a third resume runs nothing.
    let r = run(&["measure", "--var", "p=1,2", "--runs", "3", "--resume", "-o", out_s, "--", "false"]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    // Another grid does not fit the file.
    let r = fails(&["measure", "--var", "p=1", "--runs", "3", "--resume", "-o", out_s, "--", "true"], 2);
    has(&r.stderr, &["--resume", "does not name"]);
}

/// A number the program prints, with its unit, is recorded exactly in
/// seconds; without a unit group, as printed.
#[test]
fn the_metric_from_the_output_is_exact() {
    let out = ok(&[
        "measure",
        "--var",
        "p=1,2",
        "--runs",
        "1",
        "--seed",
        "1",
        "--metric-from",
        r"took (?<value>[0-9.]+) (?<unit>ms)",
        "--",
        "sh",
        "-c",
        "echo took {p}.5 ms",
    ]);
    let mut rs = rows(&out);
    rs.sort();
    assert_eq!(rs, ["1,0.0015", "2,0.0025"], "{out}");
    has(&out, &["p,time [s]"]);
    let out = ok(&[
        "measure",
        "--var",
        "p=3",
        "--runs",
        "1",
        "--y",
        "gflops",
        "--metric-from",
        r"GFLOPS=(\S+)",
        "--",
        "echo",
        "GFLOPS=1.{p}",
    ]);
    assert_eq!(rows(&out), ["3,1.3"]);
    has(&out, &["\np,gflops\n"]);
    let r = fails(
        &[
            "measure",
            "--var",
            "p=3",
            "--runs",
            "1",
            "--metric-from",
            r"GFLOPS=(\S+)",
            "--",
            "echo",
            "nothing",
        ],
        1,
    );
    has(&r.stderr, &["--metric-from", "no match"]);
    let r = fails(&["measure", "--var", "p=3", "--runs", "1", "--", "false"], 1);
    has(&r.stderr, &["`false` failed"]);
    // A metric in a file the command writes, named by the point and the run.
    let dir = tmp_dir();
    let out = errband()
        .current_dir(&dir)
        .args([
            "measure",
            "--var",
            "p=1,2",
            "--runs",
            "2",
            "--metric-file",
            "m-{p}-{run}.txt",
            "--",
            "sh",
            "-c",
            "echo 0.{p}{run} > m-{p}-{run}.txt",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let mut rs = rows(&String::from_utf8(out.stdout).unwrap());
    rs.sort();
    assert_eq!(rs, ["1,0.11", "1,0.12", "2,0.21", "2,0.22"]);
    let r = fails(&["measure", "--var", "p", "--", "true"], 2);
    has(&r.stderr, &["--var p: expected VAR=VALUES"]);
}

/// Killing a session keeps every finished run: the file holds the header
/// once and whole rows only, and `--resume` completes it.
#[test]
fn an_interrupted_session_keeps_its_finished_runs() {
    use std::time::{Duration, Instant};
    let dir = tmp_dir();
    let out = dir.join("k.csv");
    let out_s = out.to_str().unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin!("errband"))
        .args(["measure", "--var", "p=1..6", "--runs", "3", "-o", out_s, "--", "sleep", "0.0{p}"])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while rows(&std::fs::read_to_string(&out).unwrap_or_default()).len() < 3
        && t.elapsed() < Duration::from_secs(60)
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let text = std::fs::read_to_string(&out).unwrap();
    let rs = rows(&text);
    assert!(rs.len() >= 3 && rs.len() < 18, "{text}");
    for r in &rs {
        let (p, t) = r.split_once(',').unwrap();
        assert!(p.parse::<u32>().is_ok() && t.parse::<f64>().is_ok(), "whole rows only: {r:?}");
    }
    assert!(text.ends_with('\n'));
    ok(&["measure", "--var", "p=1..6", "--runs", "3", "--resume", "-o", out_s, "--", "true"]);
    let done = std::fs::read_to_string(&out).unwrap();
    assert!(done.starts_with(&text));
    assert_eq!(rows(&done).len(), 18);
}
