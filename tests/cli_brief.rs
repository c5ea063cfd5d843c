//! `--brief`: the answer alone, in a few lines, on the user's own data.

#[path = "common/cli.rs"]
mod cli;
use cli::*;

/// A strong-scaling series (time falls as p grows), two runs per scale.
const STRONG: &str = "p,time\n1,100.2\n1,99.1\n2,52.3\n2,51.0\n4,27.9\n4,28.4\n8,15.1\n8,15.6\n16,9.2\n16,9.0\n32,6.1\n32,6.3\n";

#[test]
fn brief_answers_in_at_most_five_lines() {
    let data = tmp_file("strong.csv", STRONG);
    let out = ok(&[&data, "--y", "time", "--at", "p=256", "--brief"]);
    assert!(out.lines().count() <= 5, "{out}");
    // The value and the recommended band, as the full report's answer says them.
    has(
        &out,
        &["p = 256*: T(p) = 3.74935; next measurement in [2.90703, 4.25871]", "assumes:", "self-check:"],
    );
    let full = ok(&[&data, "--y", "time", "--at", "p=256"]);
    assert!(full.contains(out.trim_end()), "the brief answer is the report's first section\n{full}");
    insta::assert_snapshot!("brief_strong_scaling", out);
}

#[test]
fn brief_needs_a_point_and_text() {
    let data = tmp_file("strong.csv", STRONG);
    let r = fails(&[&data, "--brief"], 2);
    has(&r.stderr, &["--brief", "--at p=1024"]);
    let r = fails(&[&data, "--at", "p=64", "--brief", "--format", "json"], 2);
    has(&r.stderr, &["--brief", "recommendation"]);
    // A model's own prediction points are points.
    let out = ok(&["models/hpl.tm", "data/hpl.csv", "--brief"]);
    has(&out, &["p = 1000*: T(p) = 5271.91 s; next measurement in [135.59, 10246.6] s", "[0†, 40339.5] s"]);
}

#[test]
fn brief_on_an_experiment_gives_a_line_per_series_and_point() {
    let out = ok(&["data/extrap_experiment.txt", "--brief", "--at", "p=64"]);
    let full = ok(&["data/extrap_experiment.txt", "--format", "json", "--at", "p=64"]);
    let doc: serde_json::Value = serde_json::from_str(&full).unwrap();
    let n = doc["analyses"].as_array().map_or(0, Vec::len);
    assert!(n > 1, "{full}");
    assert_eq!(out.lines().count(), n, "{out}");
    for l in out.lines() {
        assert!(l.contains("p = 64") && (l.contains("next measurement in") || l.contains("no band")), "{l}");
    }
}
