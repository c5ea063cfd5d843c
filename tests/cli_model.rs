//! End-to-end tests of the main command `errband MODEL DATA`: the paper's
//! numbers (Orii & Anai: eq. 4 fitted and as given, Fig. 2(b),
//! the pruned refit without p = 110), every bundled model in every output
//! format, exact recovery of exactly generated data, and the error cases
//! (exit code and message, with file, line and column), including the
//! malformed inputs of `tests/bad/` (see `tests/bad/README.md`).

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{Signed, Zero};
use serde_json::Value;

/// Exact e_max of HPL (Orii & Anai, eq. 6 solved): independent of the weight
/// and of the parameter values analysed.
const HPL_EMAX: &str = "1101248/81125";

// ------------------------------------------------------------------ helpers

#[path = "common/cli.rs"]
mod cli;
use cli::*;

/// The texts underlined by `^` lines in a rendered diagnostic:
/// for each source line `N | text` followed by `  |    ^^^`, the part of
/// `text` above the carets.
fn underlined(stderr: &str) -> Vec<String> {
    let lines: Vec<&str> = stderr.lines().collect();
    let mut out = Vec::new();
    for w in lines.windows(2) {
        let (src, car) = (w[0], w[1]);
        let (Some(ps), Some(pc)) = (src.find(" | "), car.find(" |")) else { continue };
        if ps != pc || !car[pc + 2..].contains('^') || !src[..ps].trim().chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let text: Vec<char> = src[ps + 3..].chars().collect();
        let marks: Vec<char> = car[pc + 2..].chars().skip(1).collect();
        let Some(start) = marks.iter().position(|&c| c == '^') else { continue };
        let width = marks[start..].iter().take_while(|&&c| c == '^').count();
        out.push(text.iter().skip(start).take(width).collect());
    }
    out
}

fn big(s: &str) -> BigInt {
    s.parse().unwrap_or_else(|e| panic!("{s:?} is not an integer: {e}"))
}

/// `n/d` (or `n`) as a pair of integers.
fn frac(s: &str) -> (BigInt, BigInt) {
    match s.split_once('/') {
        Some((n, d)) => (big(n), big(d)),
        None => (big(s), BigInt::from(1)),
    }
}

fn s<'a>(v: &'a Value, what: &str) -> &'a str {
    v.as_str().unwrap_or_else(|| panic!("{what} is not a string: {v}"))
}

fn param<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["params"]
        .as_array()
        .expect("params array")
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no parameter {name} in {}", doc["params"]))
}

/// The entry of `bands` at `p = value`.
fn band_at<'a>(doc: &'a Value, value: &str) -> &'a Value {
    doc["bands"]
        .as_array()
        .expect("bands array")
        .iter()
        .find(|b| b["point"]["p"] == value)
        .unwrap_or_else(|| panic!("no prediction at p = {value} in {}", doc["bands"]))
}

const HPL_MODEL_BODY: &str = "T(p) = a * (1/p + c1 + c2*(p - 1)^2)\nconst a = 26022\n";
const HPL: &str = "models/hpl.tm";
const HPL_DATA: &str = "data/hpl.csv";

// ------------------------------------------------ paper acceptance (Orii & Anai)

#[test]
fn hpl_fit_matches_the_paper() {
    let doc = json(&[HPL, HPL_DATA, "--decimal", "5"]);
    let c1 = param(&doc, "c1");
    let c2 = param(&doc, "c2");
    assert_eq!(c1["exact"], "100237688326177/11284891243912000");
    assert_eq!(c2["exact"], "6537267749/33854673731736000");
    assert!(s(&c1["decimal"], "c1").starts_with("0.0088825"), "{c1}");
    assert!(s(&c2["decimal"], "c2").starts_with("1.931"), "{c2}");
    assert_eq!(doc["emax"]["exact"], HPL_EMAX);
    assert_eq!(doc["fit"], "lsq");
    // The largest residual is the outlier p = 110 (row 11).
    assert_eq!(doc["max_residual"]["row"], 11);
    assert_eq!(doc["data"]["measurements"], 12);
}

fn rat(s: &str) -> BigRational {
    let (n, d) = frac(s);
    BigRational::new(n, d)
}

fn exact_of(v: &Value, what: &str) -> BigRational {
    rat(s(&v["exact"], what))
}

/// Checks the printed exact numbers of the HPL fit against each other,
/// without trusting the engine: residual = model − measured, the model value
/// is T(C, p), the weighted normal equations hold (weight p), and the
/// e_max point Δc* of eq. 6 attains e_max on the data.
#[test]
fn hpl_exact_numbers_check_out_independently() {
    let doc = json(&[HPL, HPL_DATA]);
    let a = BigRational::from_integer(BigInt::from(26022));
    let c1 = exact_of(param(&doc, "c1"), "c1");
    let c2 = exact_of(param(&doc, "c2"), "c2");
    let one = BigRational::from_integer(BigInt::from(1));
    let t = |p: &BigRational, c1: &BigRational, c2: &BigRational| {
        &a * (&one / p + c1 + c2 * (p - &one) * (p - &one))
    };
    let mut normal = (BigRational::zero(), BigRational::zero());
    let mut max_abs = BigRational::zero();
    let rows = doc["residuals"].as_array().unwrap();
    assert_eq!(rows.len(), 12);
    let mut pts = Vec::new();
    for r in rows {
        let p = rat(s(&r["point"]["p"], "p"));
        let d = exact_of(&r["measured"], "measured");
        let m = exact_of(&r["model"], "model");
        let e = exact_of(&r["residual"], "residual");
        assert_eq!(m, t(&p, &c1, &c2), "T(C, p) at {r}");
        assert_eq!(e, &m - &d, "residual at {r}");
        let w2 = &p * &p;
        normal.0 += &w2 * &e * &a;
        normal.1 += &w2 * &e * &a * (&p - &one) * (&p - &one);
        if e.abs() > max_abs {
            max_abs = e.abs();
        }
        pts.push((p, d));
    }
    assert!(normal.0.is_zero() && normal.1.is_zero(), "weighted normal equations: {normal:?}");
    assert_eq!(exact_of(&doc["max_residual"], "max_residual"), max_abs);
    // Δc* from the report: Max|e_i(C + Δc*)| = e_max, attained at least 3 times.
    let emax = rat(HPL_EMAX);
    let dc1 = exact_of(&doc["emax"]["dc"]["dc1"], "dc1");
    let dc2 = exact_of(&doc["emax"]["dc"]["dc2"], "dc2");
    let (s1, s2) = (&c1 + &dc1, &c2 + &dc2);
    let shifted: Vec<BigRational> = pts.iter().map(|(p, d)| (t(p, &s1, &s2) - d).abs()).collect();
    assert_eq!(shifted.iter().max().unwrap(), &emax);
    assert!(
        shifted.iter().filter(|e| **e == emax).count() >= 3,
        "a minimax point attains e_max at 3 points (2 parameters)"
    );
    assert_eq!(doc["emax"]["unique"], true);
}

#[test]
fn hpl_default_decimals_and_exact_flag() {
    let text = ok(&[HPL, HPL_DATA]);
    has(
        &text,
        &[
            "c1 = 0.00888247",
            "= 100237688326177/11284891243912000",
            "e_max = 13.5747",
            "(exact 1101248/81125)",
            "Max|e_i| = 17.9772",
        ],
    );
    let exact = ok(&[HPL, HPL_DATA, "--exact"]);
    has(
        &exact,
        &[
            "c1 = 100237688326177/11284891243912000",
            "c2 = 6537267749/33854673731736000",
            "(exact 1101248/81125)",
        ],
    );
    assert!(!exact.contains("c1 = 0.00888247"), "--exact shows fractions, not decimals:\n{exact}");
}

#[test]
fn hpl_pruned_without_p110() {
    let doc = json(&[HPL, HPL_DATA, "--drop", "p=110", "--decimal", "5"]);
    let pr = &doc["pruned"];
    assert!(pr.is_object(), "no pruned section: {doc}");
    assert_eq!(param(pr, "c1")["decimal"], "0.0089813");
    assert_eq!(param(pr, "c2")["decimal"], "1.6298e-7");
    let dropped = pr["dropped"].as_array().expect("dropped");
    assert_eq!(dropped.len(), 1);
    assert_eq!(dropped[0]["row"], 11);
    assert_eq!(dropped[0]["line"], 15);
    assert_eq!(dropped[0]["point"]["p"], "110");
    // 11 residuals remain, none at p = 110.
    let res = pr["residuals"].as_array().expect("residuals");
    assert_eq!(res.len(), 11);
    assert!(res.iter().all(|r| r["point"]["p"] != "110"));
    // The band at p = 1000 for threshold `max` shrinks: a finite ratio in (0, 1).
    let at = pr["shrink"]
        .as_array()
        .expect("shrink array")
        .iter()
        .find(|x| x["point"]["p"] == "1000")
        .unwrap_or_else(|| panic!("no shrink at p = 1000: {}", pr["shrink"]));
    let r = at["ratios"].as_array().unwrap().iter().find(|x| x["label"] == "max").expect("threshold max");
    let (n, d) = frac(s(&r["ratio"]["exact"], "ratio"));
    assert!(n > BigInt::from(0) && n < d, "shrink ratio {} is not in (0, 1)", r["ratio"]["exact"]);
    // The text report shows the same section.
    let text = ok(&[HPL, HPL_DATA, "--drop", "p=110"]);
    has(&text, &["Pruned: without p = 110 (row 11, line 15)", "shrink"]);
    // --drop-row 11 is the same measurement.
    let doc2 = json(&[HPL, HPL_DATA, "--drop-row", "11", "--decimal", "5"]);
    assert_eq!(doc2["pruned"]["params"], pr["params"]);
}

#[test]
fn emax_does_not_depend_on_weight_or_parameter_values() {
    let cases = [
        ("noweight.tm", format!("{HPL_MODEL_BODY}param c1, c2\n")),
        ("weight-p.tm", format!("{HPL_MODEL_BODY}param c1, c2\nweight p\n")),
        ("weight-p2.tm", format!("{HPL_MODEL_BODY}param c1, c2\nweight p^2\n")),
        ("given.tm", format!("{HPL_MODEL_BODY}param c1 = 0.0088823, c2 = 1.9312e-7\nfit none\n")),
    ];
    let mut fits = Vec::new();
    for (name, src) in &cases {
        let m = tmp_file(name, src);
        let doc = json(&[&m, HPL_DATA]);
        assert_eq!(doc["emax"]["exact"], HPL_EMAX, "{name}:\n{src}");
        fits.push(doc["params"].clone());
    }
    // ...although the fitted parameters differ with the weight.
    assert_ne!(fits[0], fits[1]);
    assert_ne!(fits[1], fits[2]);
    // `--no-fit` on a model with given values is `fit none`.
    let m = tmp_file("given-lsq.tm", &format!("{HPL_MODEL_BODY}param c1 = 0.0088823, c2 = 1.9312e-7\n"));
    let doc = json(&[&m, HPL_DATA, "--no-fit"]);
    assert_eq!(doc["fit"], "none");
    assert_eq!(param(&doc, "c1")["exact"], "88823/10000000");
    assert_eq!(doc["emax"]["exact"], HPL_EMAX);
}

#[test]
fn fig2b_breakpoints_with_the_papers_rationalised_values() {
    let text = ok(&["models/hpl_paper.tm", HPL_DATA, "-t", "17.9745", "--order", "dc2,dc1"]);
    has(
        &text,
        &[
            "-7.96273e-8",
            "-6.84759e-8",
            "-4.87413e-8",
            "9.49981e-9",
            "3.51625e-8",
            "4.14635e-8",
            "Max|e_i| = 17.9745",
            "cylindrical (dc2 outermost)",
        ],
    );
    has(&text, &["c1 = 0.00888231   = 12/1351", "c2 = 1.9312e-7   = 1/5178127", "(exact 1101248/81125)"]);
}

#[test]
fn fig2b_max_residual_with_plain_given_values() {
    let m =
        tmp_file("plain.tm", &format!("{HPL_MODEL_BODY}param c1 = 0.0088823, c2 = 1.9312e-7\nfit none\n"));
    let text = ok(&[&m, HPL_DATA]);
    has(&text, &["Max|e_i| = 17.9747", "given values (fit none)", "(exact 1101248/81125)"]);
    assert!(!text.contains("Max|e_i| = 17.9745"), "{text}");
}

#[test]
fn emit_qe_emax_round_trips_through_errband_qe() {
    let problem = ok(&[HPL, HPL_DATA, "--emit-qe", "emax"]);
    assert!(problem.starts_with('#'), "the problem starts with a comment:\n{problem}");
    has(&problem, &["exists c1, c2"]);
    let f = tmp_file("eq6.qe", &problem);
    let solved = ok(&["qe", &f]);
    assert!(solved.contains("1101248/81125 <= e"), "{solved}");
    // Also through standard input.
    let r = run_stdin(&["qe", "-"], Some(&problem));
    assert_eq!(r.code, Some(0), "{}", r.show());
    assert!(r.stdout.contains("1101248/81125 <= e"), "{}", r.show());
}

#[test]
fn emit_qe_region_is_a_quantifier_free_problem_at_the_threshold() {
    let problem = ok(&[HPL, HPL_DATA, "--emit-qe", "region", "-t", "20"]);
    has(&problem, &["threshold 20", "c1", "c2"]);
    assert!(!problem.contains("exists"), "{problem}");
    let f = tmp_file("eq7.qe", &problem);
    let r = run(&["qe", &f, "--vertices"]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    // The same region as the report's, which is this one shifted by the fit.
    let report = json(&[HPL, HPL_DATA, "-t", "20"]);
    let n = report["regions"][0]["vertices"].as_array().map(Vec::len).unwrap_or(0);
    assert!(n >= 3);
    assert_eq!(r.stdout.matches("vertex (").count(), n, "{}", r.show());
}

// ------------------------------------------------- bundled models, formats

fn bundled() -> Vec<(&'static str, &'static str)> {
    vec![
        ("models/hpl.tm", "data/hpl.csv"),
        ("models/hpl_paper.tm", "data/hpl.csv"),
        ("models/amdahl.tm", "data/amdahl.csv"),
        ("models/pn.tm", "data/pn.csv"),
        ("models/whitebox.tm", "data/whitebox.csv"),
        ("models/amdahl.tm", "data/extrap_amdahl.txt"),
    ]
}

#[test]
fn every_bundled_model_runs_in_every_format() {
    for (m, d) in bundled() {
        if !root().join(d).exists() {
            eprintln!("skipping {m} with {d}: {d} does not exist (yet)");
            continue;
        }
        for f in ["text", "json", "csv", "md"] {
            let out = ok(&[m, d, "--format", f]);
            assert!(!out.trim().is_empty(), "{m} {d} --format {f}: empty output");
            match f {
                "json" => {
                    let doc: Value = serde_json::from_str(&out)
                        .unwrap_or_else(|e| panic!("{m} {d}: invalid JSON ({e})\n{out}"));
                    for k in ["params", "residuals", "max_residual", "rms", "emax", "regions", "bands"] {
                        assert!(doc.get(k).is_some(), "{m} {d}: JSON lacks `{k}`:\n{out}");
                    }
                    assert!(!doc["params"].as_array().unwrap().is_empty());
                    assert!(!doc["bands"].as_array().unwrap().is_empty(), "{m} {d}: the model predicts");
                }
                "csv" => {
                    let mut rd = csv::Reader::from_reader(out.as_bytes());
                    let n = rd.headers().expect("CSV header").len();
                    for rec in rd.records() {
                        let rec = rec.unwrap_or_else(|e| panic!("{m} {d}: bad CSV ({e})\n{out}"));
                        assert_eq!(rec.len(), n, "{m} {d}: ragged CSV\n{out}");
                    }
                }
                "text" => has(&out, &["Residuals", "e_max =", "Regions", "Bands"]),
                "md" => has(&out, &["# errband", "## Parameters", "## Residuals", "## Regions", "## Bands"]),
                _ => unreachable!(),
            }
        }
    }
}

#[test]
fn extrap_data_and_stdin_give_the_same_fit() {
    let d = "data/extrap_amdahl.txt";
    if !root().join(d).exists() {
        eprintln!("skipping: {d} does not exist (yet)");
        return;
    }
    let doc = json(&["models/amdahl.tm", d]);
    assert_eq!(doc["data"]["measurements"], 18, "6 points x 3 repetitions");
    assert_eq!(doc["data"]["points"], 6);
    // The same data through standard input.
    let text = std::fs::read_to_string(root().join(d)).unwrap();
    let r = run_stdin(&["models/amdahl.tm", "-", "--format", "json"], Some(&text));
    assert_eq!(r.code, Some(0), "{}", r.show());
    let doc2: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doc2["params"], doc["params"]);
}

// ------------------------------------------------------ exact recovery

/// T(p) = 3 + 120/p at p = 1, 2, 3, 4, 6, written in several exact notations.
const EXACT_CSV: &str = "p,T\n1,123\n2,126/2\n3,43.000\n4,330e-1\n6,46/2\n";
const EXACT_MODEL: &str = "T(p) = s + w/p\nparam s, w\n";

#[test]
fn exact_data_is_recovered_exactly() {
    let m = tmp_file("exact.tm", EXACT_MODEL);
    let d = tmp_file("exact.csv", EXACT_CSV);
    let doc = json(&[&m, &d, "--at", "p=100", "-t", "max", "-t", "emax"]);
    assert_eq!(param(&doc, "s")["exact"], "3");
    assert_eq!(param(&doc, "w")["exact"], "120");
    assert_eq!(doc["emax"]["exact"], "0");
    assert_eq!(doc["max_residual"]["exact"], "0");
    for r in doc["residuals"].as_array().unwrap() {
        assert_eq!(r["residual"]["exact"], "0", "{r}");
    }
    let b = band_at(&doc, "100");
    assert_eq!(b["model"]["exact"], "21/5");
    assert_eq!(b["extrapolated"], true);
    let bands = b["bands"].as_array().unwrap();
    assert_eq!(bands.len(), 2, "thresholds max and emax");
    for band in bands {
        assert_eq!(band["band"]["lower"]["exact"], b["model"]["exact"], "{band}");
        assert_eq!(band["band"]["upper"]["exact"], b["model"]["exact"], "{band}");
    }
    // Both regions are the single point Δc = 0.
    for r in doc["regions"].as_array().unwrap() {
        assert_eq!(r["shape"], "point", "{r}");
    }
    // By default: the paper's max band and the trusted one, here at the
    // noise floor (remax = 0, so r = 5 %): a new measurement lies in the
    // model band widened to [L/1.05, U/0.95].
    let frac = |v: &serde_json::Value| {
        let t = v["exact"].as_str().unwrap();
        let (n, d) = t.split_once('/').unwrap_or((t, "1"));
        n.parse::<f64>().unwrap() / d.parse::<f64>().unwrap()
    };
    for (noise, r) in [("5%", 0.05), ("0.1", 0.1)] {
        let doc = json(&[&m, &d, "--at", "p=100", "--noise", noise]);
        assert_eq!(doc["remax"]["exact"], "0");
        let trusted = &band_at(&doc, "100")["bands"][1];
        assert_eq!(trusted["threshold"]["label"], "trusted");
        let (l, u) = (frac(&trusted["band"]["lower"]), frac(&trusted["band"]["upper"]));
        assert!(l < 4.2 && 4.2 < u, "{trusted}");
        // A relative bound presumes positive measurements: the band starts at 0 at the lowest.
        assert!(
            (frac(&trusted["measurement_band"]["lower"]) - (l / (1.0 + r)).max(0.0)).abs() < 1e-12,
            "{trusted}"
        );
        assert!((frac(&trusted["measurement_band"]["upper"]) - u / (1.0 - r)).abs() < 1e-12, "{trusted}");
    }
}

#[test]
fn exact_data_with_a_positive_threshold_gives_a_bounded_region() {
    let m = tmp_file("exact.tm", EXACT_MODEL);
    let d = tmp_file("exact.csv", EXACT_CSV);
    let doc = json(&[&m, &d, "--at", "p=100", "-t", "1"]);
    let r = &doc["regions"][0];
    assert_eq!(r["shape"], "bounded", "{r}");
    let band = &band_at(&doc, "100")["bands"][0]["band"];
    let (ln, ld) = frac(s(&band["lower"]["exact"], "lower"));
    let (un, ud) = frac(s(&band["upper"]["exact"], "upper"));
    // lower < 21/5 < upper
    assert!(ln * BigInt::from(5) < BigInt::from(21) * &ld, "{band}");
    assert!(un * BigInt::from(5) > BigInt::from(21) * &ud, "{band}");
    // By hand: |Δs + Δw·t| <= 1 on t in [1/6, 1]; at t = 1/100 the line is
    // -47/250·f(1) + 297/250·f(1/6), so the half-width is 344/250 = 172/125.
    assert_eq!(band["lower"]["exact"], "353/125");
    assert_eq!(band["upper"]["exact"], "697/125");
}

// ------------------------------------------------------ options and formats

const CSV_HEAD: &str = "p,extrapolated,threshold,threshold_value,threshold_relative,model,lower,upper,relative_half_width,measurement_lower,measurement_upper,model_exact,lower_exact,upper_exact,measurement_lower_exact,measurement_upper_exact";

#[test]
fn csv_format_has_one_row_per_point_and_threshold() {
    let out =
        ok(&[HPL, HPL_DATA, "--format", "csv", "--at", "p=3000", "-t", "max", "-t", "emax", "-t", "2*emax"]);
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some(CSV_HEAD));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    // 8 `predict` points + 1 `--at` point, times 3 thresholds.
    assert_eq!(rows.len(), 9 * 3, "{out}");
    let thresholds = ["max", "emax", "2*emax"];
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r.len(), 16, "{out}");
        assert_eq!(r[2], thresholds[i % 3], "row {i}:\n{out}");
        assert_eq!(r[1], "true", "all points are extrapolated");
    }
    let ps: Vec<&str> = rows.iter().step_by(3).map(|r| r[0]).collect();
    assert_eq!(ps, ["200", "500", "1000", "2000", "4000", "6000", "8000", "10000", "3000"]);
    let emax_row = &rows[1];
    assert_eq!(emax_row[6], emax_row[7], "the e_max band of HPL is a single value");
    // A new measurement lies within e_max of that value: [L − e', U + e'].
    let f = |s: &str| s.parse::<f64>().unwrap();
    assert!((f(emax_row[9]) - (f(emax_row[6]) - 13.5747)).abs() < 1e-3, "{out}");
    assert!((f(emax_row[10]) - (f(emax_row[7]) + 13.5747)).abs() < 1e-3, "{out}");
    assert_eq!(rows[2][3], "27.1494", "2*e_max = 2202496/81125 ≈ 27.1494");
    // With --drop the pruned columns follow.
    let out = ok(&[HPL, HPL_DATA, "--format", "csv", "--drop", "p=110"]);
    let head = out.lines().next().unwrap();
    assert_eq!(head, format!("{CSV_HEAD},pruned_model,pruned_lower,pruned_upper,shrink_ratio,pruned_lower_exact,pruned_upper_exact"));
    assert_eq!(out.lines().count(), 1 + 8 * 2);
}

#[test]
fn at_adds_a_prediction_row() {
    let base = json(&["models/amdahl.tm", "data/amdahl.csv"]);
    let more = json(&["models/amdahl.tm", "data/amdahl.csv", "--at", "p=1000"]);
    let n = base["bands"].as_array().unwrap().len();
    assert_eq!(more["bands"].as_array().unwrap().len(), n + 1);
    let b = band_at(&more, "1000");
    assert_eq!(b["extrapolated"], true);
    assert_eq!(b["bands"].as_array().unwrap().len(), 2);
    let text = ok(&["models/amdahl.tm", "data/amdahl.csv", "--at", "p=1000"]);
    assert!(text.lines().any(|l| l.trim_start().starts_with("1000*")), "{text}");
    // A point inside the data range is not extrapolated.
    let doc = json(&["models/amdahl.tm", "data/amdahl.csv", "--at", "p=3"]);
    assert_eq!(band_at(&doc, "3")["extrapolated"], false);
    // Ranges and several --at.
    let doc = json(&["models/amdahl.tm", "data/amdahl.csv", "--at", "p=2000..4000:1000", "--at", "p=5000"]);
    for p in ["2000", "3000", "4000", "5000"] {
        band_at(&doc, p);
    }
}

#[test]
fn threshold_multiples_and_numbers() {
    let doc = json(&[HPL, HPL_DATA, "--threshold", "2*emax", "-t", "20", "-t", "1.5*max"]);
    let regions = doc["regions"].as_array().unwrap();
    assert_eq!(regions.len(), 3);
    assert_eq!(regions[0]["threshold"]["label"], "2*emax");
    assert_eq!(regions[0]["threshold"]["absolute"]["exact"], "2202496/81125");
    assert_eq!(regions[0]["shape"], "bounded");
    assert_eq!(regions[1]["threshold"]["label"], "20");
    assert_eq!(regions[1]["threshold"]["absolute"]["exact"], "20");
    assert_eq!(regions[2]["threshold"]["label"], "1.5*max");
    // Thresholds equal to e_max give the single point of eq. 6.
    let doc = json(&[HPL, HPL_DATA, "-t", "1101248/81125"]);
    assert_eq!(doc["regions"][0]["shape"], "point");
}

#[test]
fn data_from_standard_input() {
    let csv = std::fs::read_to_string(root().join(HPL_DATA)).unwrap();
    let r = run_stdin(&[HPL, "-", "--format", "json"], Some(&csv));
    assert_eq!(r.code, Some(0), "{}", r.show());
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doc["emax"]["exact"], HPL_EMAX);
    // BOM and CRLF are accepted.
    let crlf = format!("\u{feff}{}", csv.replace('\n', "\r\n"));
    let r = run_stdin(&[HPL, "-", "--format", "json"], Some(&crlf));
    assert_eq!(r.code, Some(0), "{}", r.show());
    let doc2: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doc2["params"], doc["params"]);
}

// ------------------------------------------------------------ error cases

#[test]
fn model_parse_error_is_located_with_a_caret() {
    let m = tmp_file("parse.tm", "# HPL, cut short\nparam a\nT(p) = a * (1/p +\n");
    let r = fails(&[&m, HPL_DATA], 2);
    assert!(r.stdout.is_empty(), "{}", r.show());
    has(&r.stderr, &["error: expected an expression", &format!("{m}:3:18")]);
    assert!(
        r.stderr.lines().any(|l| l.trim_start().starts_with('|') && l.trim_end().ends_with('^')),
        "caret line:\n{}",
        r.stderr
    );
    // A statement keyword on the next line ends the broken statement: the
    // error stays on its line.
    let m = tmp_file("parse2.tm", "T(p) = a * (1/p +\nparam a\n");
    let r = fails(&[&m, HPL_DATA], 2);
    has(&r.stderr, &[&format!("{m}:1:18"), "expected an expression"]);
}

#[test]
fn non_affine_parameter_product() {
    let m = tmp_file("product.tm", "T(p) = c1*c2*p\nparam c1, c2\n");
    let r = fails(&[&m, HPL_DATA], 2);
    has(&r.stderr, &["not affine", &format!("{m}:1:8")]);
    assert_eq!(underlined(&r.stderr), ["c1*c2"], "{}", r.stderr);
}

#[test]
fn absurd_exponent_is_refused_fast() {
    let m = tmp_file("exp.tm", "T(p) = c1*p^1000000000\nparam c1\n");
    let r = fails(&[&m, HPL_DATA], 2);
    has(&r.stderr, &["exponent too large", &format!("{m}:1:11"), "p = 10", "hpl.csv line 5"]);
    assert_eq!(underlined(&r.stderr), ["p^1000000000"]);
    assert!(r.secs < 2.0, "took {:.2} s", r.secs);
    // Also in a prediction point and in a constant.
    let m = tmp_file("exp2.tm", "T(p) = c1*p + c2\nconst k = 10^1000000000\nparam c1, c2\n");
    let r = fails(&[&m, HPL_DATA], 2);
    assert!(r.secs < 2.0, "took {:.2} s", r.secs);
    has(&r.stderr, &[&format!("{m}:2:")]);
}

#[test]
fn hundred_thousand_digit_number_is_refused_fast() {
    let d = tmp_file("digits.csv", &format!("p,T\n10,{}\n20,5\n30,6\n", "7".repeat(100_000)));
    let r = fails(&[HPL, &d], 2);
    has(&r.stderr, &["limit", "digits", &format!("{d}:2:4"), "line 2, column `T`"]);
    assert!(r.secs < 2.0, "took {:.2} s", r.secs);
    // A huge exponent in a cell, too.
    let d = tmp_file("exp.csv", "p,T\n10,1e100000000000\n20,5\n30,6\n");
    let r = fails(&[HPL, &d], 2);
    has(&r.stderr, &["limit", &format!("{d}:2:4")]);
    assert!(r.secs < 2.0, "took {:.2} s", r.secs);
}

#[test]
fn missing_column_names_it_and_suggests_x() {
    let d = tmp_file("procs.csv", "procs,T\n10,2848.8\n20,1547.7\n30,1112.6\n40,897.09\n");
    let r = fails(&[HPL, &d], 2);
    has(&r.stderr, &["missing column `p`", "`procs`", "--x p=", &format!("{d}:1:1")]);
    let out = ok(&[HPL, &d, "--x", "p=procs"]);
    has(&out, &["4 measurements at 4 distinct points"]);
    // --x for a name that is not a variable of the model.
    let r = fails(&[HPL, &d, "--x", "q=procs"], 2);
    has(&r.stderr, &["`q` is not a variable of the model"]);
    // --y selects the measured column.
    let d = tmp_file("time.csv", "p,time\n10,2848.8\n20,1547.7\n30,1112.6\n");
    let r = fails(&[HPL, &d], 2);
    has(&r.stderr, &["missing column `T`", "--y"]);
    ok(&[HPL, &d, "--y", "time"]);
}

#[test]
fn non_number_cell_is_located() {
    let d = tmp_file("abc.csv", "p,T\n10,2848.8\n20,abc\n30,1112.6\n");
    let r = fails(&[HPL, &d], 2);
    has(&r.stderr, &["`abc` is not a number", &format!("{d}:3:4"), "line 3, column `T`"]);
    assert_eq!(underlined(&r.stderr), ["abc"]);
}

#[test]
fn nan_and_inf_are_not_finite() {
    for (bad, col) in [("NaN", 4), ("inf", 4), ("-inf", 4), ("Infinity", 4)] {
        let d = tmp_file("nonfinite.csv", &format!("p,T\n10,2848.8\n20,{bad}\n30,1112.6\n"));
        let r = fails(&[HPL, &d], 2);
        has(&r.stderr, &["not a finite number", &format!("{d}:3:{col}")]);
    }
    // In a variable column too.
    let d = tmp_file("nonfinite-p.csv", "p,T\n10,2848.8\nnan,1547.7\n30,1112.6\n");
    let r = fails(&[HPL, &d], 2);
    has(&r.stderr, &["not a finite number", &format!("{d}:3:1")]);
}

#[test]
fn duplicate_rows_are_kept_with_a_warning() {
    let d = tmp_file("dup.csv", "p,T\n10,2848.8\n20,1547.7\n10,2848.8\n30,1112.6\n");
    let out = ok(&[HPL, &d]);
    has(&out, &["warning:", "line 4 repeats line 2", "4 measurements at 3 distinct points"]);
    let doc = json(&[HPL, &d]);
    let w = doc["data"]["warnings"].as_array().unwrap();
    assert!(w.iter().any(|w| w.as_str().unwrap().contains("line 4 repeats line 2")), "{w:?}");
}

#[test]
fn division_by_zero_at_a_data_point() {
    let m = tmp_file("div.tm", "T(p) = c1/(p - 10) + c2\nparam c1, c2\n");
    let r = fails(&[&m, HPL_DATA], 2);
    has(&r.stderr, &["division by zero at p = 10", "data/hpl.csv line 5", &format!("{m}:1:11")]);
    assert_eq!(underlined(&r.stderr), ["(p - 10)"]);
    // At a prediction point instead.
    let r = fails(&[HPL, HPL_DATA, "--at", "p=0"], 2);
    has(&r.stderr, &["division by zero at p = 0", "prediction point", "models/hpl.tm:3:"]);
}

#[test]
fn too_few_points() {
    let m = tmp_file("three.tm", "T(p) = c1 + c2/p + c3*p\nparam c1, c2, c3\n");
    let d = tmp_file("two.csv", "p,T\n1,5\n2,4\n1,5.5\n2,4.1\n");
    let r = fails(&[&m, &d], 1);
    has(&r.stderr, &["too few points", "3 parameters", "has 2"]);
    assert!(r.stdout.is_empty(), "{}", r.show());
}

#[test]
fn rank_deficiency_names_both_parameters() {
    let m = tmp_file("rank.tm", "T(p) = a*p + b*2*p\nparam a, b\n");
    let r = fails(&[&m, HPL_DATA], 1);
    has(&r.stderr, &["cannot separate", "parameters a, b", "-2·a, 1·b"]);
}

#[test]
fn threshold_below_emax_reports_then_exits_1() {
    let r = fails(&[HPL, HPL_DATA, "-t", "10"], 1);
    // stdout still has the full report...
    has(&r.stdout, &["Fit", "Residuals", "e_max = 13.5747", "threshold 10: empty", "Bands", "empty"]);
    // ...and stderr says why the exit code is 1.
    has(&r.stderr, &["below e_max", HPL_EMAX]);
    // Only the empty threshold makes it fail; the JSON is still complete.
    let r = fails(&[HPL, HPL_DATA, "-t", "10", "-t", "max", "--format", "json"], 1);
    let doc: Value = serde_json::from_str(&r.stdout).expect("JSON on stdout");
    assert_eq!(doc["regions"][0]["shape"], "empty");
    assert_eq!(doc["regions"][1]["shape"], "bounded");
    assert_eq!(doc["bands"][0]["bands"][0]["band"]["status"], "empty");
}

#[test]
fn unbounded_region_with_data_at_one_point() {
    let m = tmp_file("unb.tm", "T(p) = c1 + c2*p\nparam c1 = 1, c2 = 2\nfit none\n");
    let d = tmp_file("one.csv", "p,T\n4,9\n4,9.5\n4,8.7\n");
    let text = ok(&[&m, &d, "--at", "p=100"]);
    has(&text, &["unbounded", "free along"]);
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("100*"))
        .unwrap_or_else(|| panic!("no row at p = 100:\n{text}"));
    // Unbounded both ways; the measurements are run times, so the lower
    // end is bounded by zero, marked.
    has(row, &["0†", "+inf"]);
    let doc = json(&[&m, &d, "--at", "p=100"]);
    assert_eq!(doc["regions"][0]["shape"], "unbounded");
    let b = &band_at(&doc, "100")["bands"][0]["band"];
    assert!(b["lower"]["exact"] == "0" && b["clipped"] == true && b["upper"].is_null(), "{b}");
    // At the data point itself the band stays finite.
    let doc = json(&[&m, &d, "--at", "p=4"]);
    let b = &band_at(&doc, "4")["bands"][0]["band"];
    assert!(b["lower"].is_object() && b["upper"].is_object(), "{b}");
}

#[test]
fn zero_weight_at_a_data_point() {
    let m = tmp_file("zw.tm", &format!("{HPL_MODEL_BODY}param c1, c2\nweight p - 10\n"));
    let r = fails(&[&m, HPL_DATA], 2);
    has(&r.stderr, &["the weight is zero at p = 10 (data/hpl.csv line 5)", "p - 10", "^^^^^^"]);
}

#[test]
fn bad_thresholds() {
    let r = fails(&[HPL, HPL_DATA, "-t", "-1"], 2);
    has(&r.stderr, &["threshold `-1` is negative"]);
    let r = fails(&[HPL, HPL_DATA, "--threshold=-1"], 2);
    has(&r.stderr, &["threshold `-1` is negative"]);
    let r = fails(&[HPL, HPL_DATA, "-t", "-2*emax"], 2);
    assert!(r.stdout.is_empty());
    let r = fails(&[HPL, HPL_DATA, "-t", "emx"], 2);
    has(&r.stderr, &["unknown name `emx`", "--threshold", "emax"]);
    let r = fails(&[HPL, HPL_DATA, "-t", "1e999999"], 2);
    has(&r.stderr, &["limit"]);
}

#[test]
fn bad_drop_and_at() {
    let r = fails(&[HPL, HPL_DATA, "--drop", "p=999"], 2);
    has(&r.stderr, &["--drop p=999", "no measurement"]);
    let r = fails(&[HPL, HPL_DATA, "--drop-row", "99"], 2);
    has(&r.stderr, &["--drop-row 99", "12 measurements"]);
    let r = fails(&[HPL, HPL_DATA, "--drop-row", "0"], 2);
    has(&r.stderr, &["--drop-row 0"]);
    let r = fails(&[HPL, HPL_DATA, "--at", "q=5"], 2);
    has(&r.stderr, &["`q` is not a variable of the model", "--at:1:1"]);
    let r = fails(&[HPL, HPL_DATA, "--at", "p=1..10000000"], 2);
    has(&r.stderr, &["more than 100000"]);
    let r = fails(&[HPL, HPL_DATA, "--order", "dc3"], 2);
    has(&r.stderr, &["dc1, dc2"]);
    // Dropping everything leaves nothing to fit.
    let r = fails(&[HPL, HPL_DATA, "--drop", "p=10..120:10"], 2);
    has(&r.stderr, &["after dropping", "no measurements"]);
}

#[test]
fn streamed_prediction_points_match_held_ones_and_fail_before_writing() {
    // A CSV band table streams its `--at` points; with --envelope the same
    // table comes from points held in the analysis.
    let args = [HPL, HPL_DATA, "--at", "p=1..3000", "--at", "p=5/2,1000,7", "--format", "csv"];
    let streamed = ok(&args);
    let held = ok(&[&args[..], &["--envelope"]].concat());
    assert_eq!(streamed, held);
    assert_eq!(streamed.lines().count(), 1 + 2 * (8 + 3000 - 4 + 1));
    // p = 0 divides by zero: refused before the first line is written.
    let r = fails(&[HPL, HPL_DATA, "--at", "p=1..5000", "--at", "p=0", "--format", "csv"], 2);
    assert!(r.stdout.is_empty());
    has(&r.stderr, &["division by zero at p = 0 (prediction point)"]);
    // Of several points that cannot be evaluated, the first in order is
    // named, whichever thread meets which first.
    let m = tmp_file("two_poles.tm", "T(p) = c0 + c1/((p - 3000)*(p - 9000))\nparam c0, c1\n");
    for _ in 0..3 {
        let r = fails(&[&m, HPL_DATA, "--at", "p=1..20000", "--format", "csv"], 2);
        assert!(r.stdout.is_empty());
        has(&r.stderr, &["division by zero at p = 3000 (prediction point)"]);
    }
}

#[test]
fn empty_data() {
    let d = tmp_file("empty.csv", "p,T\n");
    let r = fails(&[HPL, &d], 2);
    has(&r.stderr, &["no measurements", &format!("{d}:1:")]);
    let d = tmp_file("blank.csv", "");
    let r = fails(&[HPL, &d], 2);
    has(&r.stderr, &["no measurements"]);
}

#[test]
fn missing_arguments_show_usage() {
    let r = fails(&[HPL], 2);
    has(&r.stderr, &["usage", "errband MODEL DATA"]);
    assert!(r.stdout.is_empty());
    let r = fails(&[], 2);
    has(&r.stderr, &["usage"]);
    let r = fails(&[HPL, "no/such/file.csv"], 2);
    has(&r.stderr, &["no/such/file.csv"]);
    let r = fails(&["no/such/model.tm", HPL_DATA], 2);
    has(&r.stderr, &["no/such/model.tm"]);
    let r = fails(&[HPL, HPL_DATA, "--format", "xml"], 2);
    has(&r.stderr, &["xml"]);
}

#[test]
fn unknown_function() {
    let m = tmp_file("foo.tm", "T(p) = c1*foo(p)\nparam c1\n");
    let r = fails(&[&m, HPL_DATA], 2);
    has(&r.stderr, &["unknown function `foo`", &format!("{m}:1:11"), "log2"]);
}

#[test]
fn fit_none_needs_every_value() {
    let m = tmp_file("fitnone.tm", "T(p) = c1 + c2/p\nparam c1 = 1, c2\nfit none\n");
    let r = fails(&[&m, HPL_DATA], 2);
    has(&r.stderr, &["`c2` has none", &format!("{m}:2:15")]);
    assert_eq!(underlined(&r.stderr), ["c2"]);
    // The same through --no-fit.
    let m = tmp_file("nofit.tm", "T(p) = c1 + c2/p\nparam c1 = 1, c2\n");
    let r = fails(&[&m, HPL_DATA, "--no-fit"], 2);
    has(&r.stderr, &["--no-fit", "`c2`"]);
}

#[test]
fn extrap_with_several_regions_analyses_each_or_the_chosen_ones() {
    let text = "PARAMETER p\nPOINTS 1 2 4 8\nREGION main\nMETRIC time\nDATA 100 99 101\nDATA 55 54 56\nDATA 32 33 31\nDATA 21 20 22\n\
                REGION solve\nMETRIC time\nDATA 10 11 9\nDATA 6 5 7\nDATA 3 4 2\nDATA 2 1 3\n";
    let d = tmp_file("multi.txt", text);
    // Both series, the widest relative band first.
    let out = ok(&["models/amdahl.tm", &d]);
    has(
        &out,
        &[
            "(2 series)",
            "Extra-P text format, 2 of its 2 series selected",
            "=== main / time ===",
            "=== solve / time ===",
        ],
    );
    let solve = out.find("\nsolve / time").unwrap();
    let main = out.find("\nmain / time").unwrap();
    assert!(solve < main, "solve has the wider relative band:\n{out}");
    let doc = json(&["models/amdahl.tm", &d]);
    assert_eq!(doc["experiment"]["selected"], 2);
    assert_eq!(doc["analyses"][0]["callpath"], "main");
    assert_eq!(doc["analyses"][1]["report"]["data"]["measurements"], 12);
    // One chosen by name is the usual single report; globs choose several.
    let doc = json(&["models/amdahl.tm", &d, "--region", "solve"]);
    assert_eq!(doc["data"]["measurements"], 12);
    let doc = json(&["models/amdahl.tm", &d, "--region", "*", "--metric", "t?me"]);
    assert_eq!(doc["experiment"]["selected"], 2);
    let r = fails(&["models/amdahl.tm", &d, "--region", "nope"], 2);
    has(&r.stderr, &["no callpath matches --region `nope`", "`main`", "`solve`"]);
    // --aggregate mean fits one value per point.
    let doc = json(&["models/amdahl.tm", &d, "--region", "main", "--aggregate", "mean"]);
    assert_eq!(doc["data"]["measurements"], 4);
    // Commands that analyse one series say so.
    let r = fails(&["prune", "models/amdahl.tm", &d, "--target", "p=16"], 2);
    has(&r.stderr, &["prune analyses one series", "holds 2", "`main / time`", "--region"]);
    let r = fails(&["models/amdahl.tm", &d, "--plot", &tmp_dir().join("b.svg").to_string_lossy()], 2);
    has(&r.stderr, &["--plot shows one series", "--report out.html"]);
}

#[test]
fn invalid_utf8_data_is_an_input_error() {
    let p = tmp_dir().join(format!("{}-latin1.csv", std::process::id()));
    std::fs::write(&p, b"p,T\n10,2848.8\n20,1547.7\n# caf\xe9\n30,1112.6\n").unwrap();
    let p = p.to_str().unwrap();
    let r = fails(&[HPL, p], 2);
    has(&r.stderr, &[p, "UTF-8"]);
}

// ------------------------------------------------------ tests/bad/

/// The command line for a file of `tests/bad/` (naming convention in its README).
fn bad_command(name: &str, path: &str) -> Vec<String> {
    let (model, data) = if name.starts_with("model-") && name.ends_with(".tm") {
        (path, HPL_DATA)
    } else if name.starts_with("csv-") && name.ends_with(".csv") {
        (HPL, path)
    } else if name.starts_with("pn-") && name.ends_with(".csv") {
        ("models/pn.tm", path)
    } else if name.starts_with("extrap-") && name.ends_with(".txt") {
        ("models/amdahl.tm", path)
    } else if name.starts_with("ms-") && name.ends_with(".csv") {
        return ["ms", "predict", path, "--grid", "4x4", "--procs", "2..4"].map(String::from).to_vec();
    } else {
        panic!("tests/bad/{name} fits no naming convention of tests/bad/README.md");
    };
    vec![model.to_string(), data.to_string()]
}

/// The `[line N]` of a bad file's first line.
fn expected_line(name: &str, text: &str) -> usize {
    let first = text.lines().next().unwrap_or("");
    assert!(
        first.starts_with('#'),
        "tests/bad/{name}: the first line must be a comment saying what is wrong"
    );
    let at = first
        .rfind("[line ")
        .unwrap_or_else(|| panic!("tests/bad/{name}: the first line must end with `[line N]`"));
    let n = first[at + 6..].trim_end().trim_end_matches(']');
    let n: usize = n.parse().unwrap_or_else(|_| panic!("tests/bad/{name}: bad `[line N]` in {first:?}"));
    assert!(n >= 2, "tests/bad/{name}: line 1 is the comment");
    n
}

fn run_bad(name: &str) -> (Run, String, usize) {
    let path = format!("tests/bad/{name}");
    let text = String::from_utf8_lossy(&std::fs::read(root().join(&path)).unwrap()).into_owned();
    let line = expected_line(name, &text);
    let args = bad_command(name, &path);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    (run(&args), path, line)
}

#[test]
fn bad_inputs_are_refused_with_a_location() {
    let mut names: Vec<String> = std::fs::read_dir(root().join("tests/bad"))
        .expect("tests/bad exists")
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n != "README.md")
        .collect();
    names.sort();
    assert!(names.len() >= 25, "only {} files in tests/bad", names.len());
    let (mut models, mut data) = (0, 0);
    let mut failures = Vec::new();
    for name in &names {
        if name.starts_with("model-") {
            models += 1;
        } else {
            data += 1;
        }
        let (r, path, line) = run_bad(name);
        let mut why = Vec::new();
        if r.code != Some(2) {
            why.push(format!("exit {:?}, expected 2", r.code));
        }
        if !r.stdout.is_empty() {
            why.push("output on stdout".to_string());
        }
        if r.secs > 5.0 {
            why.push(format!("took {:.1} s", r.secs));
        }
        if !r.stderr.contains(&format!("{path}:{line}:")) {
            why.push(format!("stderr does not point at {path}:{line}:"));
        }
        if !why.is_empty() {
            failures.push(format!("== {name}: {}\n{}", why.join("; "), r.show()));
        }
    }
    assert!(models >= 10 && data >= 10, "{models} bad models and {data} bad data files");
    assert!(
        failures.is_empty(),
        "{} of {} bad inputs misbehave:\n{}",
        failures.len(),
        names.len(),
        failures.join("\n")
    );
}

#[test]
fn bad_unit_statement_is_located_at_its_line() {
    let (r, path, line) = run_bad("model-unit-unknown-name.tm");
    assert_eq!(r.code, Some(2), "{}", r.show());
    assert!(r.stderr.contains(&format!("{path}:{line}:")), "{}", r.show());
    assert_eq!(underlined(&r.stderr), ["q"], "{}", r.show());
}

#[test]
fn zero_weight_points_at_the_weight_statement() {
    let (r, path, line) = run_bad("model-zero-weight.tm");
    assert_eq!(r.code, Some(2), "{}", r.show());
    assert!(
        r.stderr.contains("data/hpl.csv") && r.stderr.contains(&format!("{path}:{line}:")),
        "{}",
        r.show()
    );
}

#[test]
fn many_repetitions_are_summarised_per_point_and_json_keeps_every_residual() {
    let mut csv = String::from("p,T\n");
    for i in 0..150 {
        let p = [1, 2, 4][i % 3];
        csv.push_str(&format!("{p},{}.{:02}\n", 10 + 90 / p, i % 7));
    }
    let d = tmp_file("reps.csv", &csv);
    let text = ok(&["models/amdahl.tm", &d]);
    has(&text, &["by point (150 measurements at 3 points)", "count", "d min", "e max"]);
    assert!(!text.contains("\n  150 "), "per-row table printed:\n{text}");
    let doc = json(&["models/amdahl.tm", &d]);
    assert_eq!(doc["residuals"].as_array().map(Vec::len), Some(150));
}

#[test]
fn inexact_function_values_are_reported_with_their_precision() {
    let m = tmp_file("log.tm", "T(p) = c0 + c1*log2(p)\nparam c0, c1\n");
    let d = tmp_file("log.csv", "p,T\n2,1\n3,1.6\n4,2\n");
    let text = ok(&[&m, &d]);
    has(
        &text,
        &[
            "note: log2(3) ≈ 1.58496250072115618145373894394781650876 (not exact",
            "rounded to 40 significant digits",
        ],
    );
    let text = ok(&[&m, &d, "--precision", "12"]);
    has(&text, &["log2(3) ≈ 1.58496250072", "rounded to 12 significant digits"]);
    let doc = json(&[&m, &d]);
    assert_eq!(doc["model"]["inexact"].as_array().map(Vec::len), Some(1));
    // Powers of two are exact: no note.
    let d = tmp_file("log2.csv", "p,T\n2,1\n4,2\n8,3.1\n");
    assert!(!ok(&[&m, &d]).contains("note:"));
}

#[test]
fn emax_set_by_repetition_spread_is_explained() {
    let text = ok(&["models/amdahl.tm", "data/extrap_amdahl.txt"]);
    has(&text, &["e_max = 0.17", "exact 17/100", "half the spread of the repeated measurements at p = 1"]);
    assert!(!ok(&[HPL, HPL_DATA]).contains("half the spread"));
}

#[test]
fn a_mistyped_subcommand_is_named_with_a_suggestion() {
    let r = fails(&["prnue", "models/hpl.tm", "data/hpl.csv"], 2);
    has(&r.stderr, &["unrecognized subcommand `prnue`", "did you mean `prune`?"]);
    let r = fails(&["enrgy", "x.csv"], 2);
    has(&r.stderr, &["did you mean `energy`?"]);
    // A model file that happens to be named like a subcommand is still a file.
    let dir = tmp_dir();
    std::fs::copy(root().join("models/hpl.tm"), dir.join("plna")).unwrap();
    let out = errband().current_dir(&dir).arg("plna").arg(root().join("data/hpl.csv")).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn completions_and_the_manual_page() {
    for shell in ["bash", "zsh", "fish"] {
        let out = ok(&["completions", shell]);
        has(&out, &["errband", "prune", "decimal"]);
    }
    fails(&["completions", "tcsh"], 2);
    let man = ok(&["man"]);
    assert!(man.starts_with(".ie") || man.contains(".TH errband 1"), "{man}");
    has(&man, &[".TH errband 1", "\\-\\-threshold"]);
}

#[test]
fn timings_are_reported_whatever_else_is_asked() {
    let cases: [&[&str]; 9] = [
        &[HPL, HPL_DATA],
        &[HPL, HPL_DATA, "--format", "json"],
        &[HPL, HPL_DATA, "--format", "csv", "--at", "p=1..50"],
        &[HPL, HPL_DATA, "--brief", "--at", "p=1000"],
        &[HPL, HPL_DATA, "--emit-qe", "emax"],
        &[HPL, HPL_DATA, "--holdout", "largest"],
        &[HPL, HPL_DATA, "--drop", "p=110"],
        &["data/amdahl.csv", "--family", "pmnf"],
        &[HPL, HPL_DATA, "--envelope", "--format", "md"],
    ];
    for args in cases {
        let r = run(&[args, &["--timings"]].concat());
        assert!(r.stderr.contains("timings: parse "), "{:?}: {}", args, r.show());
    }
}

/// `--timings` reads the same on every command that takes it: its phases,
/// then the total, on standard error, and standard output is what it is
/// without the flag.
#[test]
fn timings_read_the_same_on_every_command_that_takes_them() {
    let cases: [(&[&str], &[&str]); 5] = [
        (
            &["prune", HPL, HPL_DATA, "--target", "p=1000"],
            &["parse ", "search ", "pruning choices", "output "],
        ),
        (
            &["plan", HPL, HPL_DATA, "--target", "p=1000", "--candidate", "p=130..300:50"],
            &["parse ", "search ", "candidate points"],
        ),
        (&["check", HPL, HPL_DATA, "--new", HPL_DATA], &["parse ", "check ", "output "]),
        (&["data/extrap_experiment.txt"], &["parse ", "analysis ", "series: ", "output "]),
        (&[HPL, HPL_DATA, "--emit-qe", "region"], &["parse ", "analysis ", "output "]),
    ];
    for (args, phases) in cases {
        let plain = run(args);
        let timed = run(&[args, &["--timings"]].concat());
        assert_eq!(timed.code, plain.code, "{:?}: {}", args, timed.show());
        assert_eq!(timed.stdout, plain.stdout, "{args:?}");
        let line = timed
            .stderr
            .lines()
            .find(|l| l.starts_with("timings: "))
            .unwrap_or_else(|| panic!("{args:?}: {}", timed.show()));
        let mut at = 0;
        for p in phases.iter().chain(&["total "]) {
            let i =
                line[at..].find(p).unwrap_or_else(|| panic!("{args:?}: `{p}` after column {at} in {line}"));
            at += i + p.len();
        }
        assert!(line.ends_with(" ms"), "{line}");
        assert!(!plain.stderr.contains("timings: "), "{args:?}: {}", plain.show());
    }
}

#[test]
fn latex_and_json_mark_each_coordinate_beyond_the_data() {
    // Two variables: at (2048, 4000) only p lies beyond the measured range,
    // at (16, 16000) only n; the LaTeX table stars that coordinate alone and
    // the JSON names it.
    let at = ["models/pn.tm", "data/pn.csv", "--at", "p=2048,n=4000", "--at", "p=16,n=16000"];
    let tex = ok(&[&at[..], &["--format", "latex"]].concat());
    assert!(tex.contains("    $2048^{*}$ & $4000$ & "), "{tex}");
    assert!(tex.contains("    $16$ & $16000^{*}$ & "), "{tex}");
    let doc = json(&at);
    let beyond = |p: &str, n: &str| {
        let b =
            doc["bands"].as_array().unwrap().iter().find(|b| b["point"]["p"] == p && b["point"]["n"] == n);
        b.unwrap_or_else(|| panic!("no band at p = {p}, n = {n}"))["beyond"].clone()
    };
    assert_eq!(beyond("2048", "4000"), serde_json::json!(["p"]));
    assert_eq!(beyond("16", "16000"), serde_json::json!(["n"]));
    assert_eq!(beyond("128", "8000"), serde_json::json!(["p", "n"]));
}

#[test]
fn a_band_wholly_below_zero_says_so_in_every_output() {
    // A falling line extrapolated far: every parameter of each region
    // predicts a negative time at p = 100, where the data are positive.
    let model = tmp_file("lin.tm", "T(p) = a + b*p\nparam a, b\n");
    let data = tmp_file("lin.csv", "p,T\n1,10.1\n2,7.9\n3,6.05\n4,4\n");
    let args = [model.as_str(), data.as_str(), "--at", "p=100"];
    let csv = ok(&[&args[..], &["--format", "csv"]].concat());
    let row = csv.lines().find(|l| l.starts_with("100,true,max,")).unwrap_or_else(|| panic!("{csv}"));
    assert_eq!(row.matches(",below_zero").count(), 8, "{row}");
    assert!(!csv.contains("empty"), "{csv}");
    let text = ok(&args);
    assert!(text.contains("  100*  -189.45     below 0      -"), "{text}");
    let md = ok(&[&args[..], &["--format", "md"]].concat());
    assert!(md.contains("| 100* | -189.45 | below 0 | - |"), "{md}");
    let doc = json(&args);
    for t in doc["bands"][0]["bands"].as_array().unwrap() {
        assert_eq!(t["band"]["status"], "below_zero", "{t}");
        assert_eq!(t["measurement_band"]["status"], "below_zero", "{t}");
    }
}
