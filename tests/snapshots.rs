//! Snapshot tests (insta) of every output format: the main report of the
//! HPL example (text, JSON, CSV, Markdown, LaTeX) and the pruning
//! comparison (the same five), plan, energy, qe, and the barrier and
//! master/slave predictors. Every JSON snapshot is also validated against
//! its schema (`tests/schemas.rs`). A change to any output shows up as
//! a reviewable diff (`cargo insta review`, or INSTA_UPDATE=always).

#[path = "common/cli.rs"]
mod cli;
use cli::ok;

const MAIN: [&str; 2] = ["models/hpl.tm", "data/hpl.csv"];
const PRUNE: [&str; 11] = [
    "prune",
    "models/hpl.tm",
    "data/hpl.csv",
    "--unweighted",
    "-t",
    "max",
    "--target",
    "p=1000",
    "--show",
    "5",
    "--max-drop=1",
];

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
    let plan = [
        "plan",
        "models/hpl.tm",
        "data/hpl.csv",
        "-t",
        "max",
        "--target",
        "p=1000",
        "--candidate",
        "p=150..300:50",
    ];
    insta::assert_snapshot!("plan_text", with(&plan, &[]));
    insta::assert_snapshot!("plan_json", with(&plan, &["--format", "json"]));
    insta::assert_snapshot!("plan_csv", with(&plan, &["--format", "csv"]));
    insta::assert_snapshot!("plan_md", with(&plan, &["--format", "md"]));
}

#[test]
fn energy_formats() {
    let e = ["energy", "data/energy_mg.csv", "--nodes", "2,16,inf"];
    insta::assert_snapshot!("energy_text", with(&e, &[]));
    insta::assert_snapshot!("energy_json", with(&e, &["--format", "json"]));
    insta::assert_snapshot!("energy_csv", with(&e, &["--format", "csv"]));
    insta::assert_snapshot!("energy_md", with(&e, &["--format", "md"]));
}

#[test]
fn qe_formats() {
    let q = ["qe", "models/hpl_eq5.qe", "--order", "dc2,dc1", "--vertices"];
    insta::assert_snapshot!("qe_text", with(&q, &[]));
    insta::assert_snapshot!("qe_json", with(&q, &["--format", "json"]));
    insta::assert_snapshot!("qe_smtlib", with(&q, &["--format", "smtlib"]));
    insta::assert_snapshot!("qe_mathematica", with(&q, &["--format", "mathematica"]));
}

#[test]
fn barrier_formats() {
    let b = [
        "barrier",
        "--nodes",
        "2,3,4,12,13,30,31,64",
        "--mpi-model",
        "models/mpi_barrier.tm",
        "--mpi-data",
        "data/mpi_barrier.csv",
        "-t",
        "max",
        "--at",
        "30",
    ];
    insta::assert_snapshot!("barrier_text", with(&b, &[]));
    insta::assert_snapshot!("barrier_json", with(&b, &["--format", "json"]));
    insta::assert_snapshot!("barrier_csv", with(&b, &["--format", "csv"]));
    insta::assert_snapshot!("barrier_md", with(&b, &["--format", "md"]));
    let c = [
        "barrier",
        "--nodes",
        "2..13",
        "--t-ib",
        "2.7us..3.86us",
        "--t-sr",
        "20us..60us:20us,40us..120us",
        "--mpi",
        "120us",
        "--exact",
    ];
    insta::assert_snapshot!("barrier_intervals_text", with(&c, &[]));
}

#[test]
fn ms_formats() {
    let m = ["ms", "predict", "data/mandelbrot_32x32.csv", "--grid", "1024x1024", "--procs", "8..32:8"];
    insta::assert_snapshot!("ms_text", with(&m, &["--per-slave"]));
    insta::assert_snapshot!("ms_json", with(&m, &["--format", "json"]));
    insta::assert_snapshot!("ms_csv", with(&m, &["--format", "csv"]));
    insta::assert_snapshot!("ms_md", with(&m, &["--format", "md"]));
    let hand = [
        "ms",
        "predict",
        "tests/data/ms_hand.csv",
        "--grid",
        "3",
        "--procs",
        "2..4",
        "--loggp",
        "L=5000ns,o=1000ns+10ns*P,G=10ns/B",
        "--exact",
    ];
    insta::assert_snapshot!("ms_hand_exact_text", with(&hand, &[]));
}

/// A whole experiment: the summary table and every series' report.
#[test]
fn experiment_formats() {
    let exp = ["models/amdahl.tm", "data/extrap_experiment.txt", "--metric", "time"];
    insta::assert_snapshot!("experiment_text", with(&exp, &[]));
    insta::assert_snapshot!("experiment_json", with(&exp, &["--format", "json", "--aggregate", "median"]));
    insta::assert_snapshot!("experiment_csv", with(&exp, &["--format", "csv"]));
    insta::assert_snapshot!("experiment_md", with(&exp, &["--format", "md"]));
}
