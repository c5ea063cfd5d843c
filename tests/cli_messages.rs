//! Messages that say what to do: a mistyped path, a statement keyword, a
//! missing comma, `--at` without its variable, MODEL and DATA swapped.

#[path = "common/cli.rs"]
mod cli;
use cli::*;

#[test]
fn a_mistyped_path_gets_the_nearest_file() {
    let r = fails(&["models/hpl.tm", "data/hpl.cvs"], 2);
    has(&r.stderr, &["cannot read `data/hpl.cvs`", "help: did you mean `data/hpl.csv`?"]);
    // Nothing alike: where relative paths start.
    let r = fails(&["models/hpl.tm", "no-such-measurements.csv"], 2);
    has(
        &r.stderr,
        &["cannot read `no-such-measurements.csv`", "help: a relative path starts in the current directory"],
    );
}

#[test]
fn a_mistyped_keyword_gets_did_you_mean() {
    let m = tmp_file("parm.tm", "T(p) = a + b*p\nparm a, b\n");
    let r = fails(&[&m, "data/amdahl.csv"], 2);
    has(&r.stderr, &["found `parm`", "parm.tm:2:1", "did you mean `param`?"]);
}

#[test]
fn a_missing_comma_in_a_parameter_list_is_named() {
    let m = tmp_file("pm.tm", "T(p) = s + w/p\nparam s w\n");
    let r = fails(&[&m, "data/amdahl.csv"], 2);
    has(&r.stderr, &["pm.tm:2:9", "separate the names with commas"]);
}

#[test]
fn at_without_a_variable_shows_how() {
    let r = fails(&["models/hpl.tm", "data/hpl.csv", "--at", "256"], 2);
    has(&r.stderr, &["--at", "name the variable before its values, e.g. `p=256`"]);
}

#[test]
fn model_and_data_swapped_says_which_comes_first() {
    let r = fails(&["data/hpl.csv", "models/hpl.tm"], 2);
    has(&r.stderr, &["data/hpl.csv:4:1", "the model comes first: errband models/hpl.tm data/hpl.csv"]);
}
