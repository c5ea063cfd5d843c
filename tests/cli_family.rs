//! Families of forms from the command line (`--family pmnf`, `family`
//! lines in a model): every form fitted exactly and ranked, the consistent
//! set at each threshold, the family band, discovery without a model file,
//! a family per callpath of an experiment, and the family band in
//! backtests.

#[path = "common/cli.rs"]
mod cli;
use cli::*;
use serde_json::Value;

const EXAMPLE: &str = "data/extrap/example.txt";
const RELEARN: &str = "../shared/extrap-data/tests/data/text/mpa/relearn_data.txt";

fn form<'a>(doc: &'a Value, f: &str) -> &'a Value {
    doc["family"]["forms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["form"] == f)
        .unwrap_or_else(|| panic!("no form {f}"))
}

/// The acceptance: on Extra-P's documentation example, the form
/// Extra-P chooses, c0 + c1*p^(5/4)*log2(p), is among the consistent ones.
#[test]
fn pmnf_on_extrap_example_keeps_extraps_choice_consistent() {
    let doc = json(&[EXAMPLE, "--family", "pmnf", "--at", "p=128"]);
    let forms = doc["family"]["forms"].as_array().unwrap();
    // The constant and Extra-P's 42 one-term forms.
    assert_eq!(forms.len(), 43);
    let extrap = form(&doc, "c0 + c1*p^(5/4)*log2(p)");
    let at_trusted =
        extrap["consistent"].as_array().unwrap().iter().find(|c| c["label"] == "trusted").unwrap();
    assert_eq!(at_trusted["consistent"], true);
    assert!(extrap["rank"].as_u64().unwrap() <= 3, "{extrap}");
    // Without a model file the best form is the model of the report.
    assert_eq!(doc["model"]["body"], forms[0]["form"]);
    // Exact statistics: e_max is half the spread of the repetitions at p = 64.
    assert_eq!(forms[0]["emax"]["exact"], "467/100");
    // The family band holds every consistent form's band, and the best form's.
    let bands = doc["family"]["bands"].as_array().unwrap();
    let trusted = bands.iter().find(|b| b["threshold"]["label"] == "trusted").unwrap();
    assert!(trusted["forms"].as_u64().unwrap() >= 2);
    let f = |v: &Value| {
        let t = v["exact"].as_str().unwrap();
        let (n, d) = t.split_once('/').unwrap_or((t, "1"));
        n.parse::<f64>().unwrap() / d.parse::<f64>().unwrap()
    };
    let (lo, hi) = (f(&trusted["measurement_band"]["lower"]), f(&trusted["measurement_band"]["upper"]));
    let best = &trusted["best_form"]["measurement_band"];
    assert!(lo <= f(&best["lower"]) && f(&best["upper"]) <= hi);
    // The text report ranks and says what the family band assumes.
    let out = ok(&[EXAMPLE, "--family", "pmnf", "--at", "p=128"]);
    has(
        &out,
        &["Family: 43 forms (43 pmnf)", "c0 + c1*p^(5/4)*log2(p)", "Family band", "one of the forms holds"],
    );
}

/// `family` lines in a model file: the model itself and its alternatives;
/// a wrong line is located.
#[test]
fn family_lines_in_a_model_file() {
    let m = tmp_file(
        "fam.tm",
        "T(p) = a + b*p\nparam a, b\nfamily T(p) = a + b*p*log2(p)\nfamily T(p) = a + b*p^2 + c*p\n",
    );
    let doc = json(&[&m as &str, EXAMPLE, "--at", "p=128"]);
    let forms = doc["family"]["forms"].as_array().unwrap();
    assert_eq!(forms.len(), 3);
    assert_eq!(form(&doc, "a + b*p")["from"], "model");
    assert_eq!(form(&doc, "a + b*p^2 + c*p")["from"], "family line");
    assert_eq!(form(&doc, "a + b*p^2 + c*p")["params"].as_array().unwrap().len(), 3);
    // With --family pmnf the normal forms join them; a + b*p and
    // a + b*p*log2(p) are c0 + c1*p and c0 + c1*p*log2(p), listed once.
    let doc = json(&[&m as &str, EXAMPLE, "--family", "pmnf"]);
    assert_eq!(doc["family"]["forms"].as_array().unwrap().len(), 3 + 43 - 2);
    let bad = tmp_file("bad.tm", "T(p) = a + b*p\nparam a, b\nfamily U(p) = a*p\n");
    let r = run(&[&bad as &str, EXAMPLE]);
    assert_eq!(r.code, Some(2));
    has(&r.stderr, &["bad.tm:3:8", "a `family` line gives another form of it"]);
    // Bands of forms × points are bounded before any LP is solved.
    let r = run(&[&m as &str, EXAMPLE, "--at", "p=100..200", "--max-candidates", "100"]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    has(&r.stderr, &["3 forms × 101 points, more than 100", "--max-candidates"]);
    let bad = tmp_file("bad2.tm", "T(p) = a + b*p\nparam a, b\nfamily T(p) = 2*p\n");
    let r = run(&[&bad as &str, EXAMPLE]);
    assert_eq!(r.code, Some(2));
    has(&r.stderr, &["the alternative form has no parameters"]);
}

/// Discovery from a CSV file without a model: the variables are the columns
/// but the measured one; every output format carries the family.
#[test]
fn discovery_from_csv_in_every_format() {
    let csv = tmp_file("scan.csv", "p,time\n2,7\n4,11\n8,19\n16,35\n32,67\n");
    let doc = json(&[&csv as &str, "--family", "pmnf", "--at", "p=64"]);
    assert_eq!(doc["model"]["body"], "c0 + c1*p");
    assert_eq!(doc["params"][0]["exact"], "3");
    assert_eq!(doc["params"][1]["exact"], "2");
    let out = ok(&[&csv as &str, "--family", "pmnf", "--at", "p=64", "--format", "csv"]);
    has(&out, &["family_forms", "family_measurement_upper_exact"]);
    let out = ok(&[&csv as &str, "--family", "pmnf", "--at", "p=64", "--format", "md"]);
    has(&out, &["## Family", "### Family band"]);
    // Without --family a data file alone discovers the model from the
    // default family (`scaling`), which holds pmnf's forms.
    let doc = json(&[&csv as &str, "--at", "p=64"]);
    assert_eq!(doc["model"]["body"], "c0 + c1*p");
    let rec = &doc["recommendation"]["points"][0];
    assert_eq!(rec["value"]["exact"], "131");
    // A model file alone is a usage error that says so.
    let m = tmp_file("only.tm", "T(p) = a + b*p\nparam a, b\n");
    let r = run(&[&m as &str]);
    assert_eq!(r.code, Some(2));
    has(&r.stderr, &["is a model file; give the measurements after it"]);
}

/// A wide table without a model file (Extra-P's MPI benchmark table:
/// implementation, collective, ranks and a dozen statistics) is not taken
/// as twenty variables silently: the message names the flags that choose
/// the columns, with the table's own numeric and text columns as examples,
/// and the command it suggests runs.
#[test]
fn a_wide_table_without_a_model_file_asks_which_columns_to_use() {
    let data = "../shared/extrap-data/tests/data/mpi_data.csv";
    let r = run(&[data]);
    assert_eq!(r.code, Some(2), "{}", r.show());
    has(&r.stderr, &["`min` is a reserved word", "--x p=Ranks", "--y COLUMN", "--by mpi,variable"]);
    let doc = json(&[
        data,
        "--x",
        "p=Ranks",
        "--y",
        "median",
        "--by",
        "mpi,variable",
        "--region",
        "mpi=OpenMPI, variable=MPI_Reduce",
    ]);
    assert_eq!(doc["model"]["variables"][0], "p", "{doc}");
    // A table of valid names is read, and says which columns it took
    // for variables: here statistics that are not.
    let wide = tmp_file("wide.csv", "p,mean,sd,median\n32,10,1,9\n64,12,1,11\n128,15,2,14\n256,19,2,18\n");
    let doc = json(&[&wide as &str]);
    let warned = doc["data"]["warnings"].to_string();
    assert!(warned.contains("`p`, `mean`, `sd` (measured: median)"), "{warned}");
    // The answer, first in the report, points at the warning below it.
    let out = ok(&[&wide as &str, "--format", "text"]);
    has(&out, &["warning: without a model file the variables are every column but the measured one"]);
    let answer = out.split("\n\n").find(|s| s.starts_with("Answer")).unwrap_or_default();
    has(answer, &["data: read with 1 warning, listed with the data", "(the only form fitted to the data)"]);
    let out = ok(&[&wide as &str, "--format", "md"]);
    has(&out, &["> warning: without a model file the variables are every column but the measured one"]);
    has(&out, &["- data: read with 1 warning, listed with the data"]);
    // A table for a paper keeps the warning as a comment, out of the page.
    let out = ok(&[&wide as &str, "--format", "latex"]);
    has(&out, &["\n% warning: without a model file the variables are every column but the measured one"]);
    // Named with --x, or a model file, the columns are the user's choice.
    let doc = json(&[&wide as &str, "--x", "p=p", "--y", "median"]);
    assert_eq!(doc["data"]["warnings"].as_array().map(Vec::len), Some(0), "{doc}");
    let m = tmp_file("wide.tm", "T(p) = a + b*p\nparam a, b\n");
    let doc = json(&[&m as &str, &wide, "--y", "median"]);
    assert_eq!(doc["data"]["warnings"].as_array().map(Vec::len), Some(0), "{doc}");
    // A narrow table keeps the short advice.
    let csv = tmp_file("reserved.csv", "min,time\n2,7\n4,11\n8,19\n");
    let r = run(&[&csv as &str]);
    assert_eq!(r.code, Some(2), "{}", r.show());
    has(&r.stderr, &["name them with --x, e.g. --x 's=min'"]);
}

/// Backtests check the family band of a new measurement, on forms ranked
/// without the held-out measurements.
#[test]
fn backtest_checks_the_family_band() {
    let doc = json(&[EXAMPLE, "--family", "pmnf", "--holdout", "largest"]);
    let cov = doc["holdout"]["coverage"].as_array().unwrap();
    let fam = cov.iter().find(|c| c["kind"] == "family" && c["label"] == "trusted").unwrap();
    assert_eq!(fam["measurements"], 3);
    assert_eq!(fam["inside"], 3);
    // The report's family is the one fitted on the training points.
    assert_eq!(doc["family"]["forms"][0]["emax"]["exact"], "13/5");
}

/// A whole experiment gets a family per callpath.
#[test]
fn experiment_family_per_callpath() {
    let doc = json(&[RELEARN, "--family", "pmnf", "--region", "I*", "--at", "p=512,n=9000"]);
    assert_eq!(doc["summary"].as_array().unwrap().len(), 2);
    let s = doc["summary"].as_array().unwrap().iter().find(|s| s["callpath"] == "Initialization").unwrap();
    assert!(s["family"]["forms"].as_u64().unwrap() >= 4, "{s}");
    let rep = &doc["analyses"][1]["report"];
    assert!(rep["family"]["forms"].as_array().unwrap().len() >= 4);
    let out = ok(&[RELEARN, "--family", "pmnf", "--region", "I*", "--at", "p=512,n=9000"]);
    has(&out, &["best form of its family", "family band at p=512,n=9000 (t=trusted, new measurement)"]);
}

/// The band plot draws the family band (light) behind the others.
#[test]
fn band_plot_shows_the_family_band() {
    let dir = tmp_dir();
    let svg = dir.join("fam.svg");
    let r = run(&[EXAMPLE, "--family", "pmnf", "--at", "p=128", "--plot", svg.to_str().unwrap()]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let s = std::fs::read_to_string(&svg).unwrap();
    has(&s, &["family band, new measurement (2 forms, threshold trusted)"]);
    // Drawn first: behind the model bands.
    let fam = s.find("data-series=\"family band").unwrap();
    let band = s.find("data-series=\"band, threshold").unwrap();
    assert!(fam < band);
}

/// Extra-P's own set of 43 forms ranks as Extra-P does on its
/// documentation example: the cross-validated error decides between the
/// two consistent two-coefficient forms, and Extra-P 4.2.5 chooses
/// `c0 + c1*p^(5/4)*log2(p)` there (with the repetitions and with their means).
#[test]
fn pmnf_gives_extrap_choice_on_its_documentation_example() {
    let data = "../shared/extrap-data/docs/examples/input.txt";
    for extra in [&[][..], &["--aggregate", "mean"][..]] {
        let mut args = vec![data, "--family", "pmnf"];
        args.extend_from_slice(extra);
        let doc = json(&args);
        assert_eq!(doc["model"]["body"], "c0 + c1*p^(5/4)*log2(p)", "{extra:?}");
        assert_eq!(doc["family"]["forms"].as_array().unwrap().len(), 43);
    }
}

/// Strong scaling (time falls as p grows): `scaling` has decreasing forms,
/// no band is ever printed below zero or with its ends crossed, and a form
/// that predicts a negative time is ranked after every form that does not.
#[test]
fn strong_scaling_gets_decreasing_forms_and_no_negative_time() {
    let data = "../shared/extrap-data/tests/data/text/strong_scaling/one_parameter_1.txt";
    let doc = json(&[data, "--at", "x=100", "--at", "x=70"]);
    let forms = doc["family"]["forms"].as_array().unwrap();
    assert!(forms.iter().any(|f| f["from"] == "scaling" && f["form"].as_str().unwrap().contains("x^(-")));
    let first_negative = forms.iter().position(|f| f["positive"] == false);
    if let Some(i) = first_negative {
        let consistent = |f: &Value| {
            f["consistent"].as_array().unwrap().iter().filter(|c| c["consistent"] == true).count()
        };
        assert!(forms[i..].iter().all(|f| f["positive"] == false || consistent(f) < consistent(&forms[i])));
    }
    for p in doc["recommendation"]["points"].as_array().unwrap() {
        let b = &p["band"];
        if b["status"] == "ok" {
            let lo: f64 = b["lower"]["decimal"].as_str().unwrap().parse().unwrap();
            let hi: f64 = b["upper"]["decimal"].as_str().unwrap().parse().unwrap();
            assert!(0.0 <= lo && lo <= hi, "{p}");
        } else {
            assert!(b["reason"].is_string() && b["lower"].is_null() && b["upper"].is_null(), "{p}");
        }
    }
    let text = ok(&[data, "--at", "x=100"]);
    assert!(!text.contains("[0, -"), "no band printed upside down:\n{text}");
}

/// The exact text of a JSON `{exact, decimal}` value.
fn exact_of(v: &Value) -> String {
    v["exact"].as_str().unwrap_or_else(|| panic!("no exact value in {v}")).to_string()
}

/// `--family pmnf` (Extra-P's growing forms only) on falling data says so
/// and points to `scaling`, in the answer, the family section and JSON; the
/// default family (which has decreasing forms) and a model file's own
/// family do not.
#[test]
fn growing_forms_on_falling_data_point_to_scaling() {
    let data = "../shared/extrap-data/tests/data/text/strong_scaling/one_parameter_1.txt";
    let hint = "every form of `--family pmnf` grows";
    let brief = ok(&[data, "--family", "pmnf", "--at", "x=100", "--brief"]);
    has(&brief, &["hint: the data fall as x grows", hint, "`--family scaling`", "c0 + c1/x."]);
    let text = ok(&[data, "--family", "pmnf", "--at", "x=100"]);
    has(&text, &["note: the data fall as x grows"]);
    let md = ok(&[data, "--family", "pmnf", "--at", "x=100", "--format", "md"]);
    has(&md, &["- hint: the data fall as x grows", "Note: the data fall as x grows"]);
    let doc = json(&[data, "--family", "pmnf", "--at", "x=100"]);
    assert_eq!(doc["family"]["falls_without_decreasing_form"], true);
    let best = &doc["family"]["forms"][0];
    assert_eq!(best["from"], "pmnf");
    assert!(exact_of(&best["params"][1]).starts_with('-'), "{best}");
    // The default family has decreasing forms: no hint.
    let doc = json(&[data, "--at", "x=100"]);
    assert_eq!(doc["family"]["falls_without_decreasing_form"], false);
    assert!(!ok(&[data, "--at", "x=100", "--brief"]).contains(hint));
    // Growing data: no hint either.
    let grows = tmp_file("grows.csv", "p,t\n2,1.1\n4,2.05\n8,2.9\n16,4.2\n32,4.9\n");
    let doc = json(&[&grows as &str, "--family", "pmnf", "--at", "p=64"]);
    assert_eq!(doc["family"]["falls_without_decreasing_form"], false);
}

/// Data that grow faster than every form of the family (LULESH by problem
/// size on 64 ranks, n^3 elements times n time steps, from the public
/// held-out suite) say so and point to a model file, in the answer, the
/// family section and JSON; the steeper form the hint names, as a model
/// file, gives no hint (the family then holds a form of the model file).
#[test]
fn data_steeper_than_every_form_point_to_a_model_file() {
    let data = tmp_file(
        "lulesh.csv",
        "n,T\n10,3.369266\n10,3.346252\n10,3.340089\n20,34.830354\n20,34.795095\n20,35.003067\n30,178.114804\n30,178.561613\n30,178.416575\n40,561.178645\n40,562.448798\n40,562.900102\n",
    );
    let hint = "the data grow faster than n^3*log2(n), the steepest term of the family, from n = 20 to n = 40: no form of the family follows them";
    let at = ["--at", "n=50"];
    let brief = answer_says(&[&data as &str, at[0], at[1]], &format!("hint: {hint}"));
    has(&brief, &["T(n) = c0 + c1*n^4"]);
    has(&ok(&[&data as &str, at[0], at[1]]), &[&format!("note: {hint}")]);
    // The family section's note too; Markdown escapes the form's `*` and
    // parentheses.
    let md_hint = hint.replace('*', "\\*").replace('(', "\\(").replace(')', "\\)");
    has(&ok(&[&data as &str, at[0], at[1], "--format", "md"]), &[&format!("Note: {md_hint}")]);
    let doc = json(&[&data as &str, at[0], at[1]]);
    let st = &doc["family"]["steeper_than_family"];
    assert_eq!(st["term"], "n^3*log2(n)", "{st}");
    assert_eq!(
        (exact_of(&st["between"]["from"]), exact_of(&st["between"]["to"])),
        ("20".into(), "40".into())
    );
    // The hint's form as a model file, alone or with the family: no hint.
    let model = tmp_file("steep.tm", "T(n) = c0 + c1*n^4\nparam c0, c1\n");
    for extra in [&[][..], &["--family", "scaling"][..]] {
        let mut args = vec![&model as &str, &data, at[0], at[1], "--format", "json"];
        args.extend_from_slice(extra);
        let doc: Value = serde_json::from_str(&ok(&args)).unwrap();
        assert!(doc["family"].is_null() || doc["family"]["steeper_than_family"].is_null(), "{extra:?}");
    }
    // Data the family follows: none.
    let doc =
        json(&["../shared/extrap-data/tests/data/text/strong_scaling/one_parameter_1.txt", "--at", "x=100"]);
    assert!(doc["family"]["steeper_than_family"].is_null());
}

/// A change of trend (Extra-P's segmented test data): the early scales are
/// set aside, said so, and the band comes from the last segment.
#[test]
fn a_change_of_trend_sets_the_early_scales_aside() {
    let data = "../shared/extrap-data/tests/data/text/one_parameter_segmented_1.txt";
    let doc = json(&[data, "--at", "p=20"]);
    let regime = &doc["recommendation"]["regime"];
    assert_eq!(regime["used"], true, "{regime}");
    assert!(!doc["set_aside"].as_array().unwrap().is_empty());
    let text = ok(&[data, "--at", "p=20"]);
    has(&text, &["regime: the trend changes between p = ", "set aside"]);
}
