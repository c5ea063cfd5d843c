//! Snapshot tests (insta) of every output format: the main report of the
//! HPL example (text, JSON, CSV, Markdown, LaTeX) and the pruning
//! comparison (the same five) and plan. A change to any output shows up as
//! a reviewable diff (`cargo insta review`, or INSTA_UPDATE=always).

#[path = "common/cli.rs"]
mod cli;
use cli::ok;

const MAIN: [&str; 2] = ["models/hpl.tm", "data/hpl.csv"];
const PRUNE: [&str; 11] =
    ["prune", "models/hpl.tm", "data/hpl.csv", "--unweighted", "-t", "max", "--target", "p=1000", "--show", "5", "--max-drop=1"];

fn with(base: &[&str], extra: &[&str]) -> String {
    let mut a = base.to_vec();
    a.extend(extra);
    ok(&a)
}

#[test]
fn main_report_formats() {
    insta::assert_snapshot!("main_text", with(&MAIN, &[]));
    insta::assert_snapshot!("main_json", with(&MAIN, &["--format", "json", "--envelope"]));
    insta::assert_snapshot!("main_csv", with(&MAIN, &["--format", "csv"]));
    insta::assert_snapshot!("main_md", with(&MAIN, &["--format", "md"]));
    insta::assert_snapshot!("main_latex", with(&MAIN, &["--format", "latex"]));
    insta::assert_snapshot!("main_envelope_text", with(&MAIN, &["-t", "max", "--envelope", "--at", "p=300"]));
}

#[test]
fn prune_formats() {
    insta::assert_snapshot!("prune_text", with(&PRUNE, &[]));
    insta::assert_snapshot!("prune_json", with(&PRUNE, &["--format", "json", "--greedy", "1"]));
    insta::assert_snapshot!("prune_csv", with(&PRUNE, &["--format", "csv"]));
    insta::assert_snapshot!("prune_md", with(&PRUNE, &["--format", "md"]));
    insta::assert_snapshot!("prune_latex", with(&PRUNE, &["--format", "latex"]));
}

#[test]
fn plan_formats() {
    let plan = ["plan", "models/hpl.tm", "data/hpl.csv", "-t", "max", "--target", "p=1000", "--candidates", "p=150..300:50"];
    insta::assert_snapshot!("plan_text", with(&plan, &[]));
    insta::assert_snapshot!("plan_csv", with(&plan, &["--format", "csv"]));
}
