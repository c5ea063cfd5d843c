//! Bands a user can bet on, from the command line: relative thresholds,
//! the band of a new measurement, the trusted default, and backtests on
//! the user's own data (`--holdout`).

#[path = "common/cli.rs"]
mod cli;
use cli::*;
use errband::num::{parse_rat, Rat};

const HPL: &str = "models/hpl.tm";
const HPL_DATA: &str = "data/hpl.csv";

/// A family form's tier as JSON gives it: coefficients, consistent at the
/// trusted threshold, positive everywhere, its self-check outcome.
fn tier(m: &serde_json::Value) -> (usize, bool, bool, Option<String>) {
    (
        m["params"].as_array().unwrap().len(),
        m["consistent"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["label"] == "trusted" && c["consistent"] == true),
        m["positive"].as_bool().unwrap(),
        m["self_check"]["outcome"].as_str().map(String::from),
    )
}

fn exact(v: &serde_json::Value) -> Rat {
    parse_rat(v["exact"].as_str().unwrap_or_else(|| panic!("no exact value in {v}"))).unwrap()
}

fn frac(v: &serde_json::Value) -> f64 {
    let t = v["exact"].as_str().unwrap_or_else(|| panic!("no exact value in {v}"));
    let (n, d) = t.split_once('/').unwrap_or((t, "1"));
    n.parse::<f64>().unwrap() / d.parse::<f64>().unwrap()
}

/// `-t 5%`, `-t 2*remax`, `-t 'max(2*remax, 5%)'`: exact regions, bounds
/// in JSON, remax beside e_max; the paper's thresholds are unchanged.
#[test]
fn relative_thresholds_from_the_command_line() {
    let doc = json(&[HPL, HPL_DATA, "-t", "5%", "-t", "2*remax", "-t", "max(2*remax, 5%)", "-t", "emax"]);
    assert_eq!(doc["remax"]["exact"], "1544336/64024543");
    assert_eq!(doc["emax"]["exact"], "1101248/81125", "the paper's e_max stands");
    let regions = doc["regions"].as_array().unwrap();
    assert_eq!(regions[0]["threshold"]["relative"]["exact"], "1/20");
    assert_eq!(regions[0]["threshold"]["absolute"]["exact"], "0");
    assert_eq!(regions[1]["threshold"]["relative"]["exact"], "3088672/64024543");
    // max(2*remax, 5%) picks 5 % here (2*remax = 4.82 %).
    assert_eq!(regions[2]["threshold"]["absolute"], regions[0]["threshold"]["absolute"]);
    assert_eq!(regions[2]["threshold"]["relative"], regions[0]["threshold"]["relative"]);
    assert_eq!(regions[3]["shape"], "point");
    // The text report says what each relative threshold is.
    let out = ok(&[HPL, HPL_DATA, "-t", "2*remax"]);
    has(&out, &["remax = 2.4121 %", "threshold 2*remax: r = 4.8242 %"]);
    // A malformed threshold is located; a relative one on non-positive data is refused.
    let r = run(&[HPL, HPL_DATA, "-t", "max(max, 5%)"]);
    assert_eq!(r.code, Some(2));
    has(&r.stderr, &["one kind"]);
    let neg = tmp_file("neg.csv", "p,T\n1,5\n2,-1\n4,3\n");
    let m = tmp_file("lin.tm", "T(p) = a + b*p\nparam a, b\n");
    let r = run(&[&m as &str, &neg, "-t", "5%"]);
    assert_eq!(r.code, Some(2));
    has(&r.stderr, &["not every measurement is positive"]);
    // The default trusted threshold says "no band" instead, and exits 0.
    let r = run(&[&m as &str, &neg, "--at", "p=8"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    has(
        &r.stdout,
        &["threshold trusted", "no trustworthy band: a relative bound needs positive measurements"],
    );
}

/// The band of a new measurement: [L − e', U + e'] for an absolute
/// threshold, [L/(1+r), U/(1−r)] for a relative one, in every format.
#[test]
fn measurement_bands_widen_the_model_band() {
    let doc = json(&[HPL, HPL_DATA, "-t", "max", "-t", "5%", "--at", "p=3000"]);
    let max = frac(&doc["max_residual"]);
    let p = doc["bands"].as_array().unwrap().iter().find(|b| b["point"]["p"] == "3000").unwrap();
    let (b0, b1) = (&p["bands"][0], &p["bands"][1]);
    let (m0, m1) = (&b0["measurement_band"], &b1["measurement_band"]);
    let (b0, b1) = (&b0["band"], &b1["band"]);
    assert!((frac(&m0["lower"]) - (frac(&b0["lower"]) - max)).abs() < 1e-9);
    assert!((frac(&m0["upper"]) - (frac(&b0["upper"]) + max)).abs() < 1e-9);
    assert!((frac(&m1["lower"]) - (frac(&b1["lower"]) / 1.05).max(0.0)).abs() < 1e-9);
    assert!((frac(&m1["upper"]) - frac(&b1["upper"]) / 0.95).abs() < 1e-6);
    let csv = ok(&[HPL, HPL_DATA, "-t", "5%", "--format", "csv"]);
    has(csv.lines().next().unwrap(), &["measurement_lower", "measurement_upper_exact", "threshold_relative"]);
    let md = ok(&[HPL, HPL_DATA, "--format", "md"]);
    has(&md, &["trusted new measurement lower", "remax = 2.4121 %"]);
}

/// With no -t: the paper's max band and the trusted band, with a line on
/// what the trusted band assumes; --noise sets its floor; a model that
/// misses its own data by half gets "no trustworthy band" and exit 0.
#[test]
fn the_default_is_max_and_trusted() {
    let doc = json(&[HPL, HPL_DATA]);
    let names: Vec<&str> = doc["regions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["threshold"]["label"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["max", "trusted"]);
    assert_eq!(doc["regions"][1]["definition"], "max(2*remax, 5 %), none from r = 50 % on");
    let out = ok(&[HPL, HPL_DATA]);
    has(
        &out,
        &["trusted = max(2*remax, 5 %)", "assumes the model form", "new measurements scattering about it"],
    );
    let doc = json(&[HPL, HPL_DATA, "--noise", "20%"]);
    assert_eq!(doc["regions"][1]["threshold"]["relative"]["exact"], "1/5");
    let r = run(&[HPL, HPL_DATA, "--noise", "150%"]);
    assert_eq!(r.code, Some(2));
    has(&r.stderr, &["below 100 %"]);
    // A straight line through a curve: remax > 25 %, so r > 50 %.
    let m = tmp_file("lin.tm", "T(p) = a + b*p\nparam a, b\n");
    let d = tmp_file("curve.csv", "p,T\n1,1\n2,8\n3,27\n4,64\n5,125\n");
    let r = run(&[&m as &str, &d, "--at", "p=10"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    has(&r.stdout, &["no trustworthy band: the model misses its own data by remax", "no band"]);
    let doc = json(&[&m as &str, &d, "--at", "p=10"]);
    assert_eq!(doc["regions"][1]["shape"], "untrusted");
    assert_eq!(doc["bands"][0]["bands"][1]["band"]["status"], "untrusted");
}

/// `--holdout`: fit without the named measurements, check each against
/// every band, and summarise the coverage; the same over an experiment.
#[test]
fn holdout_backtests_the_bands() {
    let doc = json(&[HPL, HPL_DATA, "--holdout", "p>=110"]);
    let h = &doc["holdout"];
    assert_eq!(h["fitted_on"], 10);
    assert_eq!(h["held_out"], 2);
    let ms = h["measurements"].as_array().unwrap();
    assert_eq!(ms.len(), 2);
    assert_eq!(ms[0]["point"]["p"], "110");
    assert_eq!(ms[0]["measured"]["exact"], "27269/50");
    let band = &ms[0]["bands"][0];
    assert_eq!((band["label"].as_str(), band["kind"].as_str()), (Some("max"), Some("model")));
    let (lo, hi, d) = (frac(&band["band"]["lower"]), frac(&band["band"]["upper"]), 545.38);
    assert_eq!(band["inside"], lo <= d && d <= hi);
    let cov = h["coverage"].as_array().unwrap();
    assert_eq!(cov.len(), 5, "max and trusted, model and measurement bands, the recommended band");
    assert_eq!(cov[3]["kind"], "measurement");
    assert_eq!(cov[3]["inside"], 2);
    assert_eq!(
        (cov[4]["kind"].as_str(), cov[4]["label"].as_str()),
        (Some("recommended"), Some("recommended"))
    );
    assert_eq!(cov[4]["inside"], 2);
    // The held-out runs are written row by row, as the residuals are:
    // JSON Lines gives the same document.
    let line: serde_json::Value =
        serde_json::from_str(&ok(&[HPL, HPL_DATA, "--holdout", "p>=110", "--format", "jsonl"])).unwrap();
    assert_eq!(line, doc);
    // The analysis itself is of the 10 training measurements.
    assert_eq!(doc["data"]["measurements"], 10);
    let out = ok(&[HPL, HPL_DATA, "--holdout", "largest"]);
    has(&out, &["Backtest (--holdout largest): fitted on 11 measurements, 1 held out", "coverage"]);
    // Faults: a condition on no variable, holding out nothing or everything.
    for (cond, want) in [
        ("q>3", "`q` is not a variable"),
        ("p>9999", "holds out no measurement"),
        ("p>0", "nothing is left to fit"),
    ] {
        let r = run(&[HPL, HPL_DATA, "--holdout", cond]);
        assert_eq!(r.code, Some(2), "{cond}");
        has(&r.stderr, &[want]);
    }
    // A whole experiment: one backtest per series, and the coverage over all.
    let data = "../shared/extrap-data/tests/data/text/mpa/relearn_data.txt";
    let doc = json(&["data/extrap/relearn_print_all.txt", data, "--holdout", "p>=512"]);
    let cov = doc["holdout"]["coverage"].as_array().unwrap();
    assert_eq!(cov[0]["points"], 70, "14 series x 5 values of n at p = 512");
    assert_eq!(cov[0]["measurements"], 140);
    assert!(doc["analyses"][0]["report"]["holdout"]["measurements"]
        .as_array()
        .is_some_and(|m| m.len() == 10));
}

/// The band plot: the band of a new measurement at the last threshold
/// (light, dashed edges), e_max's single-point region as a visible curve,
/// and with `--drop` the pruned fit and bands (the paper's Fig. 9).
#[test]
fn band_plot_shows_new_measurement_emax_and_pruned_bands() {
    let dir = tmp_dir();
    let svg = dir.join("band.svg");
    let svg_s = svg.to_str().unwrap();
    let r = run(&[HPL, HPL_DATA, "-t", "emax", "-t", "trusted", "--drop", "p=110", "--plot", svg_s]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let s = std::fs::read_to_string(&svg).unwrap();
    has(
        &s,
        &[
            "data-series=\"new measurement, threshold trusted: r = 5 %\"",
            "stroke-dasharray=\"4 3\"",
            "fill-opacity=\"0.1\"",
            "class=\"line\" data-series=\"band, threshold emax = 13.57\"",
            "data-series=\"pruned band (without p = 110), threshold trusted: r = 5 %\"",
            "data-series=\"pruned fit (without p = 110)\"",
        ],
    );
    // Without --drop there is no pruned series.
    let r = run(&[HPL, HPL_DATA, "--plot", svg_s]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(!std::fs::read_to_string(&svg).unwrap().contains("pruned"));
}

/// A form with too few scales for its self-check (three coefficients on
/// four scales) cannot earn trust: its band widens to the family band at
/// `trusted`, and every output says so. The series is LULESH's
/// `TimeIncrement` region on four cube counts (benches/holdout/public: the
/// LULESH OPAL runs, provenance there).
#[test]
fn an_unchecked_form_widens_to_the_family_band() {
    let data = tmp_file(
        "lulesh_time_increment.csv",
        "p,t\n27,7.865013\n64,11.415305\n125,13.522663\n216,8.877513\n",
    );
    let out = ok(&[&data as &str, "--y", "t", "--at", "p=343"]);
    has(
        &out,
        &[
            "widened to the 88 forms the data allow (this one could not be self-checked)",
            "self-check: not made (3 coefficients need 4 scales besides the largest; the data have 3): nothing tells this form's extrapolation from another's",
        ],
    );
    let doc = json(&[&data as &str, "--y", "t", "--at", "p=343"]);
    let rec = &doc["recommendation"]["points"][0];
    assert_eq!(rec["family_forms"], 88);
    assert_eq!(rec["widened"], false);
    assert_eq!(doc["recommendation"]["self_check"]["outcome"], "not_checked");
    // The band is the hull of the form's own trusted band and the family's.
    let fam = doc["family"]["bands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["threshold"]["label"] == "trusted" && b["point"]["p"] == "343")
        .unwrap();
    let (lo, hi) = (frac(&rec["band"]["lower"]), frac(&rec["band"]["upper"]));
    assert!(lo <= frac(&fam["measurement_band"]["lower"]) && hi >= frac(&fam["measurement_band"]["upper"]));
    assert!(lo == frac(&fam["measurement_band"]["lower"]) || hi == frac(&fam["measurement_band"]["upper"]));
    // A form that could be checked keeps its own band.
    let doc = json(&[HPL, HPL_DATA, "--family", "pmnf"]);
    assert!(doc["recommendation"]["points"].as_array().unwrap().iter().all(|p| p["family_forms"].is_null()));
}

/// The family's threshold is named from the forms with two distinct points
/// more than coefficients: on four single measurements a form of three
/// coefficients bends to any trend, and its small remax would set a
/// threshold that only such forms meet. LULESH's `main` region on four
/// cube counts (benches/holdout/public: the LULESH OPAL runs).
#[test]
fn forms_with_one_spare_point_do_not_set_the_family_threshold() {
    let data = tmp_file("lulesh_main.csv", "p,t\n27,47.238297\n64,55.112951\n125,56.238243\n216,42.838467\n");
    let doc = json(&[&data as &str, "--y", "t", "--at", "p=343"]);
    let forms = doc["family"]["forms"].as_array().unwrap();
    for f in forms {
        let k = f["params"].as_array().unwrap().len();
        assert_eq!(f["sets_threshold"], k <= 2, "{}", f["form"]);
    }
    // trusted = max(2 x the smallest remax among the setters, 5 %), exactly.
    let remax = |sets: bool| {
        forms.iter().filter(|f| f["sets_threshold"] == sets).map(|f| exact(&f["remax"])).min().unwrap()
    };
    let smallest = remax(true);
    assert!(remax(false) < smallest, "a three-coefficient form fits closer, yet does not set the threshold");
    let trusted =
        doc["family"]["thresholds"].as_array().unwrap().iter().find(|t| t["label"] == "trusted").unwrap();
    assert_eq!(exact(&trusted["relative"]), smallest * Rat::from_integer(2.into()));
    // The best form can be checked, and its check is reported.
    assert_eq!(doc["recommendation"]["self_check"]["outcome"], "passed");
    assert_eq!(forms[0]["params"].as_array().unwrap().len(), 2);
    let out = ok(&[&data as &str, "--y", "t", "--at", "p=343"]);
    has(
        &out,
        &["remax is the smallest remax of a form with at least two distinct points more than coefficients"],
    );
}

/// A self-check passed by a wide band is shown as one: the answer and the
/// JSON give the half-width of the smaller fit's band at the scale left
/// out. RELeARN's "Update local trees" at n = 7000 (Extra-P's test data,
/// `relearn_data.txt`) is flat, then doubles at p = 256: fitted without
/// p = 256 a steep form bends through the three flat scales, and its band
/// there is wider than ±100 %. HPL's check is made by a band of ±11.7 %.
#[test]
fn a_self_check_says_how_wide_the_band_that_passed_it_was() {
    let csv = tmp_file(
        "local_trees.csv",
        "p,t\n32,0.00122921\n32,0.00133041\n64,0.00120582\n64,0.0010727\n128,0.00121853\n128,0.00119473\n256,0.00221994\n256,0.00223276\n",
    );
    let doc = json(&[&csv as &str, "--at", "p=512"]);
    let check = &doc["recommendation"]["self_check"];
    assert_eq!(check["outcome"], "passed", "{check}");
    let wide = exact(&check["half_width"]);
    assert!(wide > Rat::from_integer(1.into()), "{check}");
    let out = ok(&[&csv as &str, "--at", "p=512", "--brief"]);
    let shown = out
        .split("the band there (±")
        .nth(1)
        .and_then(|s| s.split(" %) holds every measurement: passed").next());
    let shown = shown.and_then(|p| parse_rat(p).ok()).unwrap_or_else(|| panic!("{out}"));
    assert!(shown > Rat::from_integer(100.into()), "{out}");
    let doc = json(&["models/hpl.tm", "data/hpl.csv"]);
    let check = &doc["recommendation"]["self_check"];
    assert_eq!(check["outcome"], "passed");
    let hw = exact(&check["half_width"]);
    assert!(hw > parse_rat("0.116").unwrap() && hw < parse_rat("0.118").unwrap(), "{check}");
    // Not checked: no width.
    let few = tmp_file("few.csv", "p,t\n1,10\n2,6\n4,4\n");
    let doc = json(&[&few as &str, "--at", "p=8"]);
    assert_eq!(doc["recommendation"]["self_check"]["half_width"], serde_json::Value::Null, "{doc}");
}

/// A forecast that rests on the largest scale alone says so: RELeARN's
/// "Update local trees" (n = 7000, Extra-P's test data) is flat from p = 32
/// to 128 and doubles at 256, in both runs. The form that bends up through
/// 256, fitted without it, predicts far below the band at 512; the
/// held-out runs there (0.00153) fell back near the flat level. JSON gives
/// that fit's exact prediction (the same as fitting the form to the data
/// without p = 256 as a model file) and `hinges`; text, Markdown and HTML
/// give the sentence. HPL's forecast does not hinge.
#[test]
fn a_forecast_that_rests_on_the_largest_scale_says_so() {
    let rows = "32,0.00122921\n32,0.00133041\n64,0.00120582\n64,0.0010727\n128,0.00121853\n128,0.00119473\n";
    let csv = tmp_file("local_trees.csv", &format!("p,t\n{rows}256,0.00221994\n256,0.00223276\n"));
    let doc = json(&[&csv as &str, "--at", "p=512"]);
    let rec = &doc["recommendation"];
    let point = &rec["points"][0];
    assert_eq!(point["hinges"], true, "{point}");
    let without = exact(&point["without_largest"]);
    let (lo, hi) = (exact(&point["band"]["lower"]), exact(&point["band"]["upper"]));
    assert!(without < lo || without > hi, "{point}");
    // The same form fitted to the data without p = 256, as a model file.
    let form = rec["form"].as_str().unwrap();
    let model = tmp_file("form.tm", &format!("T(p) = {form}\nparam c0, c1\n"));
    let short = tmp_file("short.csv", &format!("p,T\n{rows}"));
    let alone = json(&[&model as &str, &short, "--at", "p=512"]);
    assert_eq!(without, exact(&alone["bands"][0]["model"]), "{form}");
    answer_says(
        &[&csv as &str, "--at", "p=512"],
        "hinge: fitted without p = 256, the form predicts 0.0000286004 at p = 512, outside the band there: the forecast rests on the measurements at p = 256 alone",
    );
    // A forecast the largest scale does not carry: no sentence, no flag.
    let doc = json(&[HPL, HPL_DATA]);
    let points = doc["recommendation"]["points"].as_array().unwrap();
    assert!(points.iter().all(|p| p["hinges"] == false && !p["without_largest"].is_null()), "{points:?}");
    assert!(!ok(&[HPL, HPL_DATA, "--brief"]).contains("hinge:"));
}

/// A least-squares value outside its own band says so: ppscan's Friendster
/// run (eps = 0.5, from the public held-out suite) falls from 1884 s on one
/// thread to 53 s on 64. Least squares follows the seconds at one and two
/// threads and predicts 18 s at 128, below the band the relative bound
/// gives. JSON flags it (`value_outside`), the text says why in every
/// output, and the hinge note, which compares another least-squares value
/// with the same band, stays silent. HPL's values are inside.
#[test]
fn a_least_squares_value_outside_its_band_says_so() {
    let csv = tmp_file(
        "friendster.csv",
        "threads,time\n1,1883.807\n2,850.437\n4,451.093\n8,226.166\n16,124.456\n24,87.187\n32,74.225\n40,59.526\n64,53.116\n",
    );
    let at = ["--at", "threads=128,256"];
    let doc = json(&[&csv as &str, at[0], at[1]]);
    let points = doc["recommendation"]["points"].as_array().unwrap();
    for p in points {
        assert_eq!(p["value_outside"], true, "{p}");
        assert_eq!(p["hinges"], false, "{p}");
        assert!(exact(&p["value"]) < exact(&p["band"]["lower"]), "{p}");
    }
    let brief = answer_says(
        &[&csv as &str, at[0], at[1]],
        "fit: at threads = 128, threads = 256 the least-squares value lies below the band: that fit, which the largest measurements dominate, strays from some measurement by more than the trusted bound",
    );
    assert!(!brief.contains("hinge:"), "{brief}");
    // Four runs per point (27 free deviations): the band rests on the
    // medians, and the fit strays from a median.
    let mut four = String::from("threads,time\n");
    for line in std::fs::read_to_string(&csv).unwrap().lines().skip(1) {
        let (p, t) = line.split_once(',').unwrap();
        for d in ["1", "1.01", "0.99", "1.005"] {
            four.push_str(&format!("{p},{}\n", parse_rat(t).unwrap() * parse_rat(d).unwrap()));
        }
    }
    let four = tmp_file("friendster4.csv", &four);
    let doc = json(&[&four as &str, "--at", "threads=128"]);
    assert_eq!(doc["recommendation"]["repetitions"]["band_from_medians"], true);
    answer_says(
        &[&four as &str, "--at", "threads=128"],
        "fit: at threads = 128 the least-squares value lies below the band: that fit, which the largest measurements dominate, strays from some point's median by more than the trusted bound",
    );
    let doc = json(&[HPL, HPL_DATA]);
    let points = doc["recommendation"]["points"].as_array().unwrap();
    assert!(points.iter().all(|p| p["value_outside"] == false), "{points:?}");
    assert!(!ok(&[HPL, HPL_DATA, "--brief"]).contains("fit: at"));
}

/// Forms ranked alike with the family's best (as many coefficients,
/// consistent at the trusted threshold, a positive time everywhere, the
/// same self-check outcome) are as likely: the cross-validated error chose one
/// of them, the data refute none, so the recommended band spans their
/// bands, and every output says so. The series is MPIBenchmarks.jl's
/// `julia_imb_allreduce` on Fugaku, its four largest message sizes
/// (benches/holdout/public: mpibench-jl, provenance there).
#[test]
fn the_band_spans_the_forms_ranked_alike() {
    let data = tmp_file(
        "allreduce.csv",
        "size,t\n131072,0.0003577801585156933\n262144,0.0004525932214289874\n524288,0.0005613472990832294\n1048576,0.0007502344568234657\n",
    );
    let args = [&data as &str, "--y", "t", "--at", "size=2097152"];
    let doc = json(&args);
    let forms = doc["family"]["forms"].as_array().unwrap();
    let alike = forms.iter().filter(|m| tier(m) == tier(&forms[0])).count();
    assert_eq!(alike, 20, "{forms:?}");
    let rec = &doc["recommendation"]["points"][0];
    assert_eq!(rec["alike_forms"], 20);
    assert_eq!(rec["family_forms"], serde_json::Value::Null);
    // Wider than the best form's own band, inside the family band.
    let fam = doc["family"]["bands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["threshold"]["label"] == "trusted")
        .unwrap();
    let own = &fam["best_form"]["measurement_band"];
    let (lo, hi) = (exact(&rec["band"]["lower"]), exact(&rec["band"]["upper"]));
    assert!(lo <= exact(&own["lower"]) && hi >= exact(&own["upper"]));
    assert!(lo < exact(&own["lower"]) || hi > exact(&own["upper"]));
    assert!(lo >= exact(&fam["measurement_band"]["lower"]) && hi <= exact(&fam["measurement_band"]["upper"]));
    let out = ok(&args);
    has(
        &out,
        &[
            "spanning the 20 forms ranked alike",
            "or one of the forms ranked alike with it holds up to these scales",
            "alike: 20 forms have what this one has (as many coefficients, consistent at the trusted threshold",
        ],
    );
    // A given model is the user's choice: nothing widens it so.
    let model = tmp_file("sqrt.tm", "T(size) = c0 + c1*size^(1/2)\nparam c0, c1\n");
    let doc = json(&[&model as &str, &data, "--y", "t", "--at", "size=2097152", "--family", "pmnf"]);
    assert_eq!(doc["recommendation"]["points"][0]["alike_forms"], serde_json::Value::Null);
}

/// T(p) = 4 + 100/p at p = 1..16, eight runs each, one of them 25 % slow,
/// as a CSV file (columns p, t).
fn heavy_tailed() -> String {
    let devs = [0i64, 10, -10, 20, -20, 5, -5, 250];
    let mut csv = String::from("p,t\n");
    for p in 1..=16i64 {
        for j in 0..devs.len() {
            let d = devs[(j + p as usize) % devs.len()];
            csv.push_str(&format!("{p},{}/{}\n", (4 * p + 100) * (1000 + d), 1000 * p));
        }
    }
    tmp_file("heavy.csv", &csv)
}

/// With heavy-tailed repetitions every form meets a wide threshold and has
/// the same e_max, so many forms rank alike; their medians still tell them
/// apart, and a form alike must also fit the medians within the chosen
/// form's trusted bound on them. T(p) = 4 + 100/p at p = 1..16, eight runs
/// each, one of them 25 % slow.
#[test]
fn medians_refute_forms_heavy_tails_leave_alike() {
    let data = heavy_tailed();
    let doc = json(&[&data as &str, "--y", "t", "--at", "p=64"]);
    let forms = doc["family"]["forms"].as_array().unwrap();
    assert_eq!(forms[0]["form"], "c0 + c1*p^(-1)");
    assert!(forms.iter().filter(|m| tier(m) == tier(&forms[0])).count() > 1, "the tier has several forms");
    assert_eq!(doc["recommendation"]["points"][0]["alike_forms"], serde_json::Value::Null);
    assert!(!ok(&[&data as &str, "--y", "t", "--at", "p=64"]).contains("ranked alike"));
}

/// With 19 free deviations or more (repetitions less one per point) the
/// band is the medians' band widened by the repetitions' scatter alone:
/// the one slow run per point no longer doubles through the fit. The
/// heavy-tailed series above (112 free deviations): the band at p = 64 is
/// narrower than the best form's band with every repetition a constraint
/// and holds every value the series' runs would take there
/// (T(64) = 5.5625 times 0.98 to 1.25). Two runs at four points (four free
/// deviations) keep the hull.
#[test]
fn enough_repetitions_set_the_band_by_their_scatter() {
    let data = heavy_tailed();
    let args = [&data as &str, "--y", "t", "--at", "p=64"];
    answer_says(
        &args,
        "(medians: trusted r = 5 % = max(2*remax, 5 %)); repetitions scatter -2.24 % to +24.7 % about their point's median, most at p = 1, where the slowest repetition took 1.28 times as long as the fastest; of these 112 free deviations a new run that scatters as they did falls within the range with probability 111/113 = 98.2 %, so the band is the medians' band widened by that range (every repetition a constraint would ask r = 24.2 %)",
    );
    let doc = json(&args);
    let reps = &doc["recommendation"]["repetitions"];
    assert_eq!(reps["free"], 112);
    assert_eq!(reps["band_from_medians"], true);
    let band = &doc["recommendation"]["points"][0]["band"];
    let (lo, hi) = (exact(&band["lower"]), exact(&band["upper"]));
    let all = doc["bands"][0]["bands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["threshold"]["label"] == "trusted")
        .map(|b| &b["measurement_band"])
        .expect("the best form's trusted band");
    assert!(
        lo > exact(&all["lower"]) && hi < exact(&all["upper"]),
        "narrower than every repetition a constraint"
    );
    let t64 = Rat::new(89.into(), 16.into());
    let (slow, fast) = (&t64 * Rat::new(5.into(), 4.into()), &t64 * Rat::new(49.into(), 50.into()));
    assert!(lo <= fast && slow <= hi, "[{lo}, {hi}] holds the runs at p = 64");

    let few = tmp_file(
        "few.csv",
        "p,t\n32,0.000814297\n32,0.000897314\n64,0.000752606\n64,0.000779212\n\
         128,0.000847228\n128,0.000840412\n256,0.00177413\n256,0.000875752\n",
    );
    let doc = json(&[&few, "--at", "p=512"]);
    assert_eq!(doc["recommendation"]["repetitions"]["free"], 4);
    assert_eq!(doc["recommendation"]["repetitions"]["band_from_medians"], false);
    assert!(!ok(&[&few, "--at", "p=512"]).contains("free deviations"));
}

/// The answer names the point whose repetitions scatter most, with the
/// slowest run over the fastest there: RELeARN's "Update local trees" at
/// n = 5000, whose two runs at p = 256 are 0.000876 and 0.00177 s. The
/// same point and ratio are in the JSON; repetitions that never differ
/// name no point.
#[test]
fn the_answer_names_where_repetitions_scatter_most() {
    let data = tmp_file(
        "trees.csv",
        "p,t\n32,0.000814297\n32,0.000897314\n64,0.000752606\n64,0.000779212\n\
         128,0.000847228\n128,0.000840412\n256,0.00177413\n256,0.000875752\n",
    );
    let out = ok(&[&data, "--at", "p=512"]);
    has(&out, &["most at p = 256, where the slowest repetition took 2.03 times as long as the fastest"]);
    let doc = json(&[&data, "--at", "p=512"]);
    let reps = &doc["recommendation"]["repetitions"];
    assert_eq!(reps["widest_at"]["p"], "256");
    assert_eq!(
        exact(&reps["widest_ratio"]),
        parse_rat("0.00177413").unwrap() / parse_rat("0.000875752").unwrap()
    );
    let flat = tmp_file("flat.csv", "p,t\n1,10\n1,10\n2,6\n2,6\n4,4\n4,4\n8,3\n8,3\n");
    let out = ok(&[&flat, "--at", "p=16"]);
    assert!(!out.contains("most at"), "no point named where no repetitions differ:\n{out}");
    let doc = json(&[&flat, "--at", "p=16"]);
    assert_eq!(doc["recommendation"]["repetitions"]["widest_at"], serde_json::json!({}));
    assert!(doc["recommendation"]["repetitions"]["widest_ratio"].is_null());
}
