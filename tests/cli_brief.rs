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

/// Without `--at` (nor a model's own prediction points) the answer is at
/// the next scale, and says so: the run after the largest one measured,
/// one step on as the last scales step. It is the answer `--at` at that
/// point gives. Data with one scale have no next one: the error asks for
/// a point.
#[test]
fn brief_answers_at_the_next_scale_without_a_point() {
    let data = tmp_file("strong.csv", STRONG);
    let out = ok(&[&data, "--brief"]);
    has(
        &out,
        &["  at: no --at given: p = 64: one step past the largest scale measured, as the last scales step; give --at for other points\n"],
    );
    let at = ok(&[&data, "--brief", "--at", "p=64"]);
    assert_eq!(
        out.lines().filter(|l| !l.starts_with("  at:")).collect::<Vec<_>>(),
        at.lines().collect::<Vec<_>>()
    );
    // Evenly spaced scales step evenly.
    let even = tmp_file("even.csv", "n,t\n100,1.0\n200,2.1\n300,2.9\n400,4.2\n500,5.0\n");
    has(&ok(&[&even, "--brief"]), &["n = 600*: T(n) = ", "at: no --at given: n = 600: one step"]);
    // An experiment: each series at that scale, and the note once.
    let out = ok(&["data/extrap_experiment.txt", "--brief"]);
    let at = ok(&["data/extrap_experiment.txt", "--brief", "--at", "p=256"]);
    assert_eq!(out, format!("{at}  at: no --at given: p = 256: one step past the largest scale measured, as the last scales step; give --at for other points\n"));
    let one = tmp_file("one.csv", "p,time\n8,1.0\n8,1.1\n");
    let model = tmp_file("const.tm", "T(p) = c0\nparam c0\n");
    let r = fails(&[&model, &one, "--y", "time", "--brief"], 2);
    has(&r.stderr, &["--brief", "--at p=1024"]);
}

#[test]
fn brief_needs_text() {
    let data = tmp_file("strong.csv", STRONG);
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
