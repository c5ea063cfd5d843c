//! Rational exponents in models (`p^(5/4)`, Extra-P's normal form), through
//! the binary: inexact powers are correctly rounded, listed as inexact and
//! lie within their certified bounds; exact roots stay exact; every
//! reported vertex meets every residual constraint exactly; the error cases
//! are located; `qe` folds exact rational powers and refuses irrational ones.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, Zero};
use serde_json::Value;
use std::collections::BTreeMap;

#[path = "common/cli.rs"]
mod cli;
use cli::*;

const HPL_DATA: &str = "data/hpl.csv";

/// An exact fraction `n/d` or a decimal (`17.78`, `1.5e-7`) as a rational.
fn rat(s: &str) -> BigRational {
    if let Some((n, d)) = s.split_once('/') {
        return BigRational::new(n.parse().unwrap(), d.parse().unwrap());
    }
    let (mant, exp) = match s.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().unwrap()),
        None => (s, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let digits: BigInt = format!("{int}{frac}").parse().unwrap_or_else(|e| panic!("{s:?}: {e}"));
    let ten = BigRational::from_integer(BigInt::from(10));
    BigRational::from_integer(digits) * ten.pow(exp - frac.len() as i32)
}

fn exact(v: &Value) -> BigRational {
    rat(v["exact"].as_str().unwrap_or_else(|| panic!("no exact value in {v}")))
}

/// The inexact notes of a JSON report, `"10^(5/4) ≈ 17.78…"`, as
/// `text before ≈ -> value`.
fn inexact(doc: &Value) -> BTreeMap<String, BigRational> {
    doc["model"]["inexact"]
        .as_array()
        .expect("model.inexact")
        .iter()
        .map(|n| {
            let (what, v) = n.as_str().unwrap().split_once(" ≈ ").expect("`x ≈ v`");
            (what.to_string(), rat(v))
        })
        .collect()
}

#[test]
fn rational_power_model_marks_inexact_values_and_reports_the_fit() {
    let m = tmp_file("ep.tm", "T(p) = c0 + c1*p^(5/4)*log2(p)\nparam c0, c1\n");
    let d = tmp_file("ep.csv", "p,T\n1,1\n2,3.4\n3,7.2\n16,129\n81,1541\n");
    let text = ok(&[&m, &d]);
    has(
        &text,
        &[
            "Model   T(p) = c0 + c1*p^(5/4)*log2(p)",
            "note: 3^(5/4) ≈ 3.94822203885747738245765670539099716548 (not exact: rounded to 40 significant digits)",
            "note: 2^(5/4) ≈ 2.378414230005442133434999941120951830586 (not exact",
            "note: log2(81) ≈ 6.339850002884624725814955775791266035039 (not exact",
            "Fit",
            "c0 = ",
            "c1 = ",
            "e_max = ",
        ],
    );
    // 1^(5/4) = 1, 16^(5/4) = 32 and 81^(5/4) = 243 are exact: not listed.
    for exact_power in ["1^(5/4)", "16^(5/4)", "81^(5/4)"] {
        assert!(!text.contains(exact_power), "{exact_power} listed as inexact:\n{text}");
    }
    let text = ok(&[&m, &d, "--digits", "12"]);
    has(&text, &["3^(5/4) ≈ 3.94822203886", "rounded to 12 significant digits"]);
    let doc = json(&[&m, &d]);
    assert_eq!(doc["model"]["body"], "c0 + c1*p^(5/4)*log2(p)");
    let notes = inexact(&doc);
    assert_eq!(notes.keys().collect::<Vec<_>>(), ["2^(5/4)", "3^(5/4)", "log2(3)", "log2(81)"]);
    assert_eq!(doc["params"].as_array().map(Vec::len), Some(2));
    // Other spellings of the exponent are the same power.
    for body in ["p^1.25", "p^(10/8)"] {
        let m2 = tmp_file("ep2.tm", &format!("T(p) = c0 + c1*{body}*log2(p)\nparam c0, c1\n"));
        let doc2 = json(&[&m2, &d]);
        assert_eq!(doc2["params"], doc["params"], "{body}");
        assert_eq!(inexact(&doc2), notes, "{body}");
    }
}

#[test]
fn square_roots_of_perfect_squares_are_exact() {
    let m = tmp_file("sq.tm", "T(p) = c*p^(1/2)\nparam c\n");
    let d = tmp_file("sq.csv", "p,T\n1,2\n4,4\n9,6\n16,8.1\n");
    let text = ok(&[&m, &d]);
    assert!(!text.contains("note:") && !text.contains('≈'), "nothing inexact:\n{text}");
    let doc = json(&[&m, &d]);
    assert_eq!(doc["model"]["inexact"].as_array().map(Vec::len), Some(0));
    // Least squares with f = 1, 2, 3, 4: c = (2 + 8 + 18 + 32.4)/30.
    assert_eq!(doc["params"][0]["exact"], "151/75");
}

/// The HPL measurements with a `p^(5/4)` term (no p in 10..120 is a fourth
/// power, so all twelve values are inexact). Each reported value lies within
/// one unit of its 40th digit of the true power, checked exactly
/// (`(v·(1 − 10^-39))^4 < p^5 < (v·(1 + 10^-39))^4`); every vertex of every
/// region, and e_max's Δc, meet the residual constraints exactly with those
/// values, and within the threshold plus the enclosure's width for any value
/// in the bounds.
#[test]
fn hpl_with_p_to_five_quarters_vertices_meet_the_constraints() {
    let m = tmp_file("hpl54.tm", "T(p) = c0 + c1/p + c2*p^(5/4)\nparam c0, c1, c2\n");
    let doc = json(&[&m, HPL_DATA, "-t", "max", "-t", "emax"]);
    let notes = inexact(&doc);
    assert_eq!(notes.len(), 12, "{notes:?}");
    let eps = BigRational::new(BigInt::one(), BigInt::from(10).pow(39u32));
    let one = BigRational::one();
    let mut basis = Vec::new(); // (p, v, measured)
    for r in doc["residuals"].as_array().expect("residuals") {
        let p = rat(r["point"]["p"].as_str().unwrap());
        let key = format!("{}^(5/4)", r["point"]["p"].as_str().unwrap());
        let v = notes.get(&key).unwrap_or_else(|| panic!("{key} not among {notes:?}")).clone();
        let lo = &v * (&one - &eps);
        let hi = &v * (&one + &eps);
        let p5 = p.pow(5);
        assert!(lo.pow(4) < p5 && p5 < hi.pow(4), "{key} ≈ {v} is off");
        basis.push((p, v, exact(&r["measured"])));
    }
    assert_eq!(basis.len(), 12);
    let names = ["c0", "c1", "c2"];
    let params: Vec<BigRational> = names
        .iter()
        .map(|n| exact(doc["params"].as_array().unwrap().iter().find(|x| x["name"] == *n).unwrap()))
        .collect();
    // Max |e_i| for the parameters c + Δc, with p^(5/4) taken as v·(1 + t).
    let max_residual = |dc: &[BigRational], t: &BigRational| {
        let c: Vec<BigRational> = params.iter().zip(dc).map(|(a, b)| a + b).collect();
        basis.iter().map(|(p, v, y)| (&c[0] + &c[1] / p + &c[2] * v * (&one + t) - y).abs()).max().unwrap()
    };
    let dc_of = |vertex: &Value| -> Vec<BigRational> {
        names.iter().map(|n| exact(&vertex[format!("d{n}")])).collect()
    };
    let zero = BigRational::zero();
    let mut vertices = 0;
    for r in doc["regions"].as_array().expect("regions") {
        let bound = exact(&r["threshold"]["absolute"]);
        for vertex in r["vertices"].as_array().expect("vertices") {
            let dc = dc_of(vertex);
            assert!(
                max_residual(&dc, &zero) <= bound,
                "vertex {vertex} outside threshold {}",
                r["threshold"]
            );
            let c2 = (&params[2] + &dc[2]).abs();
            let vmax = basis.iter().map(|(_, v, _)| v.clone()).max().unwrap();
            for t in [-eps.clone(), eps.clone()] {
                assert!(
                    max_residual(&dc, &t) <= &bound + &c2 * &vmax * &eps,
                    "vertex {vertex} at the bounds"
                );
            }
            vertices += 1;
        }
    }
    assert!(vertices >= 4, "{vertices} vertices");
    let emax = exact(&doc["emax"]);
    assert_eq!(max_residual(&dc_of(&doc["emax"]["dc"]), &zero), emax);
}

#[test]
fn rational_exponent_errors_are_located() {
    // A parameter in the exponent: refused when the model is read.
    let m = tmp_file("pe.tm", "T(p) = c0 + p^c\nparam c0, c\n");
    let r = fails(&[&m, HPL_DATA], 2);
    has(&r.stderr, &["a parameter in an exponent is not affine in the parameters", &format!("{m}:1:15")]);
    // A negative base at a data point (p = 10 is the first row, line 5).
    for (body, msg) in [
        ("(p - 30)^(1/3)", "(-20)^(1/3) is refused: a negative base needs an integer exponent"),
        ("(p - 30)^(1/2)", "(-20)^(1/2) is undefined: an even root of a negative number"),
        ("(p - 10)^(-1/2)", "zero raised to a negative power"),
    ] {
        let m = tmp_file("neg.tm", &format!("T(p) = c*{body} + d\nparam c, d\n"));
        let r = fails(&[&m, HPL_DATA], 2);
        has(&r.stderr, &[msg, "at p = 10", "data/hpl.csv line 5", &format!("{m}:1:10")]);
    }
    // The exponent 1/0.
    let m = tmp_file("zero.tm", "T(p) = c*p^(1/0) + d\nparam c, d\n");
    let r = fails(&[&m, HPL_DATA], 2);
    has(&r.stderr, &["division by zero at p = 10", &format!("{m}:1:15")]);
    // A huge denominator: refused at once, and accepted when the limit is raised.
    let m = tmp_file("huge.tm", "T(p) = c*p^(1/100000) + d\nparam c, d\n");
    let r = fails(&[&m, HPL_DATA], 2);
    has(
        &r.stderr,
        &[
            "the exponent's denominator 100000 is too large (limit 10000; raise it with --max-exponent)",
            &format!("{m}:1:12"),
        ],
    );
    assert!(!r.stderr.contains("at p ="), "refused when the model is read:\n{}", r.show());
    assert!(r.secs < 10.0, "{}", r.show());
    let m = tmp_file("big.tm", "T(p) = c*p^(1/12000) + d\nparam c, d\n");
    has(&fails(&[&m, HPL_DATA], 2).stderr, &["denominator 12000 is too large"]);
    has(&ok(&[&m, HPL_DATA, "--max-exponent", "12000"]), &["10^(1/12000) ≈ 1.000191"]);
}

#[test]
fn qe_folds_exact_rational_powers_and_refuses_irrational_ones() {
    let r = run_stdin(&["qe", "-"], Some("x = 4^(1/2) + (8/27)^(-2/3)\n"));
    assert_eq!((r.code, r.stdout.as_str()), (Some(0), "x = 17/4\n"), "{}", r.show());
    let r = run_stdin(&["qe", "-"], Some("x = 2^(1/2)\n"));
    assert_eq!(r.code, Some(2), "{}", r.show());
    has(&r.stderr, &["2^(1/2) is irrational; qe needs exact rational constants", "<stdin>:1:5"]);
}
