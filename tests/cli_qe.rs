//! End-to-end tests of `errband qe`: the paper's numbers (Orii & Anai,
//! Orii & Anai, eqs. (5)-(7) and Fig. 2(b)), every output format, standard
//! input, error reporting and exit codes, and small semantic cases.

#[path = "common/cli.rs"]
mod cli;

use assert_cmd::Command;
use errband::num::Rat;
use errband::qe;
use predicates::prelude::*;
use std::path::PathBuf;

fn errband() -> Command {
    assert_cmd::cargo::cargo_bin_cmd!("errband")
}

fn model(name: &str) -> String {
    format!("{}/models/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Runs `errband qe ARGS...` and returns stdout, asserting exit 0.
fn qe_ok(args: &[&str]) -> String {
    let out = errband().arg("qe").args(args).output().expect("errband runs");
    assert!(
        out.status.success(),
        "errband qe {args:?} failed with {:?}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("stdout is UTF-8")
}

/// Runs `errband qe -` with `input` on standard input; returns stdout, asserting exit 0.
fn qe_stdin(input: &str, extra: &[&str]) -> String {
    let out = errband().args(["qe", "-"]).args(extra).write_stdin(input).output().expect("errband runs");
    assert!(
        out.status.success(),
        "errband qe - on {input:?} failed with {:?}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("stdout is UTF-8")
}

/// Runs `errband qe -` on `input`; returns stdout, asserting exit 0 within
/// `secs` seconds of CPU time (a busy machine stretches the wall clock, not
/// the work).
fn qe_stdin_within(input: &str, secs: f64) -> String {
    let r = cli::run_stdin(&["qe", "-"], Some(input));
    assert!(
        r.code == Some(0) && r.secs < secs,
        "errband qe - on {input:?} did not finish with exit 0 within {secs} s of CPU time\n{}",
        r.show()
    );
    r.stdout
}

/// Truth of printed QE output at (x, y), by parsing it back.
fn printed_truth(text: &str, x: &Rat, y: &Rat) -> bool {
    let p = qe::parse_problem(text, "out.qe").unwrap_or_else(|d| panic!("{}", d.render(text)));
    let env: Vec<Rat> = p
        .vars
        .names()
        .iter()
        .map(|n| match n.as_str() {
            "x" => x.clone(),
            "y" => y.clone(),
            other => panic!("unexpected variable {other} in {text}"),
        })
        .collect();
    p.formula.eval_qf(&env).expect("printed output is quantifier-free")
}

/// Runs `errband qe ARGS...` (stdin given), expecting exit 2; returns stderr.
fn qe_fails_with_2(args: &[&str], stdin: Option<&str>) -> String {
    let mut cmd = errband();
    cmd.arg("qe").args(args);
    if let Some(s) = stdin {
        cmd.write_stdin(s);
    }
    let out = cmd.output().expect("errband runs");
    assert_eq!(
        out.status.code(),
        Some(2),
        "errband qe {args:?} should exit 2\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stdout.is_empty(),
        "nothing on stdout on error, got {:?}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8(out.stderr).expect("stderr is UTF-8")
}

// ------------------------------------------------------------ number scanning

/// A token of errband's text output: a number (with a unary minus folded
/// in), a word, or an operator/punctuation character run.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(f64),
    Word(String),
    Op(String),
}

fn tokens(s: &str) -> Vec<Tok> {
    let cs: Vec<char> = s.chars().collect();
    let mut out: Vec<Tok> = Vec::new();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_alphabetic() || c == '_' {
            let st = i;
            while i < cs.len() && (cs[i].is_alphanumeric() || cs[i] == '_') {
                i += 1;
            }
            out.push(Tok::Word(cs[st..i].iter().collect()));
        } else if c.is_ascii_digit() || (c == '.' && cs.get(i + 1).is_some_and(char::is_ascii_digit)) {
            let st = i;
            while i < cs.len() && (cs[i].is_ascii_digit() || cs[i] == '.') {
                i += 1;
            }
            if i < cs.len() && (cs[i] == 'e' || cs[i] == 'E') {
                let mut j = i + 1;
                if j < cs.len() && (cs[j] == '+' || cs[j] == '-') {
                    j += 1;
                }
                if j < cs.len() && cs[j].is_ascii_digit() {
                    i = j;
                    while i < cs.len() && cs[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let text: String = cs[st..i].iter().collect();
            let mut v: f64 = text.parse().unwrap_or_else(|_| panic!("bad number {text:?}"));
            // A `-` is unary when it does not follow an operand.
            if let Some(Tok::Op(op)) = out.last() {
                if op == "-" {
                    let before = out.len().checked_sub(2).map(|k| &out[k]);
                    let unary = match before {
                        None => true,
                        Some(Tok::Num(_)) => false,
                        Some(Tok::Word(w)) => w == "and" || w == "or",
                        Some(Tok::Op(o)) => o != ")",
                    };
                    if unary {
                        out.pop();
                        v = -v;
                    }
                }
            }
            out.push(Tok::Num(v));
        } else {
            // Operators: runs of <, =, > ; everything else one character.
            let st = i;
            if "<=>!".contains(c) {
                while i < cs.len() && "<=>".contains(cs[i]) || (i == st && cs[i] == '!') {
                    i += 1;
                }
            } else {
                i += 1;
            }
            out.push(Tok::Op(cs[st..i].iter().collect()));
        }
    }
    out
}

fn numbers(s: &str) -> Vec<f64> {
    tokens(s)
        .into_iter()
        .filter_map(|t| match t {
            Tok::Num(v) => Some(v),
            _ => None,
        })
        .collect()
}

/// `a` and `b` agree to 5 significant digits (of `b`).
fn same5(a: f64, b: f64) -> bool {
    if b == 0.0 {
        return a == 0.0;
    }
    let e = b.abs().log10().floor();
    (a - b).abs() <= 0.501 * 10f64.powf(e - 4.0)
}

fn assert_has5(haystack: &[f64], want: f64, what: &str, text: &str) {
    assert!(
        haystack.iter().any(|&v| same5(v, want)),
        "{what} {want:e} (to 5 significant digits) not found among {haystack:?}\nin output:\n{text}"
    );
}

// ------------------------------------------------------------- paper numbers

#[test]
fn eq6_gives_the_papers_emax_exactly() {
    errband()
        .args(["qe", &model("hpl_eq6.qe")])
        .assert()
        .success()
        .code(0)
        .stdout(predicate::eq("1101248/81125 <= emax\n"))
        .stderr(predicate::str::is_empty());
}

const FIG2B_CRITICAL_DC2: [f64; 6] =
    [-7.96273e-8, -6.84759e-8, -4.87413e-8, 9.49981e-9, 3.51625e-8, 4.14635e-8];
const FIG2B_CONSTANTS: [f64; 6] =
    [0.000754866, 0.000491919, 0.0003184, 0.000471708, 1.22436e-10, 0.000112098];

#[test]
fn eq5_cells_split_dc2_at_the_six_critical_values_of_fig_2b() {
    let out = qe_ok(&[&model("hpl_eq5.qe"), "--order", "dc2,dc1", "--decimal", "6"]);
    let cells: Vec<&str> = out.trim_end().split('\n').collect();
    assert!(cells.len() >= 5, "expected the five cells of Fig. 2(b), got:\n{out}");
    // The outer range of each cell `lo <(=) dc2 <(=) hi`: its two numbers are critical values.
    let mut critical: Vec<f64> = Vec::new();
    for cell in &cells {
        let toks = tokens(cell);
        let pos =
            toks.iter().position(|t| *t == Tok::Word("dc2".into())).expect("each cell bounds dc2 first");
        match (&toks[pos - 2], &toks[pos + 2]) {
            (Tok::Num(lo), Tok::Num(hi)) => {
                assert!(lo < hi, "empty dc2 range in {cell}");
                critical.push(*lo);
                critical.push(*hi);
            }
            other => panic!("dc2 is not bounded by two numbers in {cell:?}: {other:?}"),
        }
    }
    for want in FIG2B_CRITICAL_DC2 {
        assert_has5(&critical, want, "critical value of dc2", &out);
    }
    for got in &critical {
        assert!(
            FIG2B_CRITICAL_DC2.iter().any(|&w| same5(*got, w)),
            "unexpected critical value {got:e} in\n{out}"
        );
    }
}

#[test]
fn eq5_bounds_use_the_constants_printed_in_fig_2b() {
    let out = qe_ok(&[&model("hpl_eq5.qe"), "--order", "dc2,dc1", "--decimal", "6"]);
    let magnitudes: Vec<f64> = numbers(&out).into_iter().map(f64::abs).collect();
    for want in FIG2B_CONSTANTS {
        assert_has5(&magnitudes, want, "bounding constant", &out);
    }
    // The slopes of Fig. 2(b): (p - 1)^2 for p = 10, 50, 80, 100, 120 and the p = 110 row.
    for slope in [81.0, 2401.0, 6241.0, 9801.0, 11881.0, 14161.0] {
        assert!(magnitudes.contains(&slope), "slope {slope} missing in\n{out}");
    }
}

#[test]
fn eq5_vertices_include_the_isolated_points_of_fig_2b() {
    let out = qe_ok(&[&model("hpl_eq5.qe"), "--order", "dc2,dc1", "--decimal", "6", "--vertices"]);
    let vertices: Vec<(f64, f64)> = out
        .lines()
        .filter(|l| l.starts_with("vertex"))
        .map(|l| match numbers(l).as_slice() {
            [a, b] => (*a, *b),
            other => panic!("a vertex of (dc2, dc1) has two coordinates: {l:?} -> {other:?}"),
        })
        .collect();
    assert!(out.contains("vertices of (dc2, dc1)"), "vertex header names the order:\n{out}");
    assert_eq!(vertices.len(), 6, "the region of Fig. 2(b) is a hexagon:\n{out}");
    for (dc2, dc1) in [(-7.96273e-8, 0.000946051), (4.14635e-8, -0.000115456)] {
        assert!(
            vertices.iter().any(|&(a, b)| same5(a, dc2) && same5(b, dc1)),
            "vertex ({dc2:e}, {dc1:e}) missing among {vertices:?}"
        );
    }
    // Every vertex sits at one of the critical values of dc2.
    for (a, _) in &vertices {
        assert!(FIG2B_CRITICAL_DC2.iter().any(|&w| same5(*a, w)), "vertex dc2 = {a:e} is not critical");
    }
}

#[test]
fn eq7_gives_a_single_point_at_the_papers_values() {
    // The paper reports dc1 = 0.000056212, dc2 = 9.4998e-9 (5 significant digits).
    let out = qe_ok(&[&model("hpl_eq7.qe"), "--order", "dc2,dc1", "--decimal", "5"]);
    assert_eq!(out.lines().count(), 1, "one cell:\n{out}");
    let line = out.trim_end();
    assert!(line.starts_with("dc2 = "), "point form starts with `dc2 = `: {line:?}");
    let (first, second) = line.split_once(" and ").expect("two levels joined by `and`");
    let rhs = second.strip_prefix("dc1 = ").unwrap_or_else(|| panic!("point form has `dc1 = ...`: {line:?}"));
    assert!(!rhs.contains("dc2"), "a point's dc1 is a constant, got `{second}`");
    match numbers(first).as_slice() {
        [dc2] => assert!(same5(*dc2, 9.4998e-9), "dc2 = {dc2:e}, the paper has 9.4998e-9"),
        other => panic!("dc2 is one number: {other:?}"),
    }
    match numbers(rhs).as_slice() {
        [dc1] => assert!(same5(*dc1, 0.000056212), "dc1 = {dc1:e}, the paper has 0.000056212"),
        other => panic!("dc1 is one number: {other:?}"),
    }
    // With --vertices the one vertex is the point.
    let out = qe_ok(&[&model("hpl_eq7.qe"), "--order", "dc2,dc1", "--decimal", "5", "--vertices"]);
    assert!(out.contains("1 vertices of (dc2, dc1)"), "{out}");
    let v: Vec<f64> = out.lines().filter(|l| l.starts_with("vertex")).flat_map(numbers).collect();
    assert!(v.len() == 2 && same5(v[0], 9.4998e-9) && same5(v[1], 0.000056212), "{out}");
}

#[test]
fn eq7_in_the_default_order_is_the_same_point() {
    let out = qe_ok(&[&model("hpl_eq7.qe"), "--decimal", "5"]);
    let toks = tokens(out.trim_end());
    let value = |name: &str| -> f64 {
        let k = toks
            .iter()
            .position(|t| *t == Tok::Word(name.into()))
            .unwrap_or_else(|| panic!("{name} in {out}"));
        assert_eq!(toks[k + 1], Tok::Op("=".into()), "{out}");
        match &toks[k + 2] {
            Tok::Num(v) => *v,
            other => panic!("{name} = {other:?} is not a number in {out}"),
        }
    };
    assert!(same5(value("dc1"), 0.000056212), "{out}");
    assert!(same5(value("dc2"), 9.4998e-9), "{out}");
}

#[test]
fn a_point_is_printed_with_constant_coordinates() {
    assert_eq!(qe_stdin("x = 1 and y = 2", &[]), "x = 1 and y = 2\n");
    assert_eq!(qe_stdin("x + y = 3 and x - y = 1", &[]), "x = 2 and y = 1\n");
}

// ------------------------------------------------------------------ formats

#[test]
fn json_output_has_variables_result_constraints_cells_and_vertices() {
    let out = qe_ok(&[&model("hpl_eq5.qe"), "--order", "dc2,dc1", "--format", "json", "--vertices"]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    assert_eq!(v["variables"], serde_json::json!(["dc2", "dc1"]));
    assert_eq!(v["result"], "formula");
    assert_eq!(v["errband"], env!("CARGO_PKG_VERSION"), "the version key of every command's JSON");
    let pieces = v["pieces"].as_array().expect("pieces is an array");
    assert_eq!(pieces.len(), 1);
    let p = &pieces[0];
    let cons = p["constraints"].as_array().expect("constraints");
    assert_eq!(cons.len(), 6, "a hexagon has six facets");
    for c in cons {
        // Numbers in every command's shape: {exact, decimal}.
        assert!(
            c["relation"].is_string() && c["rhs"]["exact"].is_string() && c["rhs"]["decimal"].is_string(),
            "{c}"
        );
        let coefficients = c["coefficients"].as_object().expect("coefficients by variable");
        assert!(coefficients.values().all(|a| a["exact"].is_string() && a["decimal"].is_string()), "{c}");
    }
    assert_eq!(p["cells"].as_array().expect("cells").len(), 5);
    for cell in p["cells"].as_array().unwrap() {
        assert!(cell["text"].as_str().unwrap().contains("dc2"));
        assert_eq!(cell["levels"].as_array().unwrap().len(), 2);
    }
    let vs = p["vertices"].as_array().expect("vertices with --vertices");
    assert_eq!(vs.len(), 6);
    for vx in vs {
        assert!(vx["dc1"]["exact"].is_string() && vx["dc2"]["decimal"].is_string(), "{vx}");
    }

    let plain = qe_ok(&[&model("hpl_eq5.qe"), "--order", "dc2,dc1", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&plain).expect("valid JSON");
    assert!(v["pieces"][0]["vertices"].is_null(), "no vertices without --vertices");
}

#[test]
fn json_output_of_true_and_false() {
    let t: serde_json::Value =
        serde_json::from_str(&qe_stdin("exists y: y >= x", &["--format", "json"])).unwrap();
    assert_eq!(t["result"], "true");
    let f: serde_json::Value =
        serde_json::from_str(&qe_stdin("exists x: x < 0 and x > 0", &["--format", "json"])).unwrap();
    assert_eq!(f["result"], "false");
    assert_eq!(f["pieces"], serde_json::json!([]));
}

#[test]
fn smtlib_output_is_one_term() {
    let out = qe_ok(&[&model("hpl_eq5.qe"), "--format", "smtlib"]);
    let t = out.trim_end();
    assert!(t.starts_with('('), "{t}");
    assert_eq!(out.lines().count(), 1, "one line:\n{out}");
    // Balanced parentheses, closing only at the very end.
    let mut depth = 0i64;
    for (i, c) in t.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        assert!(depth >= 0);
        if depth == 0 {
            assert_eq!(i, t.len() - 1, "more than one term: {t}");
        }
    }
    assert_eq!(depth, 0);
}

#[test]
fn mathematica_output_uses_double_ampersand_and_double_equals() {
    let out = qe_ok(&[&model("hpl_eq7.qe"), "--format", "mathematica"]);
    assert!(out.contains("&&") && out.contains("=="), "{out}");
    assert!(!out.contains(" and "), "{out}");
    let out = qe_stdin("x != 1", &["--format", "mathematica"]);
    assert!(out.contains("||"), "{out}");
}

#[test]
fn emit_problem_smtlib_declares_the_free_variable_and_asserts_the_formula() {
    let out = qe_ok(&[&model("hpl_eq6.qe"), "--emit-problem", "smtlib"]);
    assert!(out.contains("(set-logic LRA)"), "{out}");
    assert!(out.contains("(declare-fun emax () Real)"), "{out}");
    assert!(!out.contains("(declare-fun dc1"), "bound variables are not declared:\n{out}");
    assert!(out.contains("(assert (exists ((dc1 Real) (dc2 Real))"), "{out}");
}

#[test]
fn emit_problem_mathematica_is_a_reduce_call() {
    let out = qe_ok(&[&model("hpl_eq6.qe"), "--emit-problem", "mathematica"]);
    assert!(out.starts_with("Reduce[Exists[{dc1, dc2}"), "{out}");
    assert!(out.trim_end().ends_with("{emax}, Reals]"), "{out}");
}

// --------------------------------------------------------------------- stdin

#[test]
fn standard_input_is_read_for_a_dash() {
    errband()
        .args(["qe", "-"])
        .write_stdin("exists y: x <= y and y <= 3")
        .assert()
        .success()
        .stdout(predicate::eq("x <= 3\n"));
}

// -------------------------------------------------------------------- errors

#[test]
fn a_product_of_variables_on_stdin_is_located_with_a_caret() {
    let err = qe_fails_with_2(&["-"], Some("x*y <= 1"));
    assert!(err.contains("<stdin>:1:"), "{err}");
    assert!(err.contains("x*y <= 1"), "the source line is shown:\n{err}");
    assert!(err.lines().any(|l| l.contains('^')), "a caret points at the product:\n{err}");
}

/// The fuzzer's SIGSEGV: a product of two variables in parentheses sent
/// the error's search for the factors into an endless recursion (the
/// command died of a stack overflow). Now it is the same located error.
#[test]
fn a_parenthesised_product_of_variables_is_located_not_a_stack_overflow() {
    for (input, shown) in
        [("x <= (x*y)", "x <= (x*y)"), ("exists y: 0 <= 2*(x*y) + y", "2*(x*y)"), ("(x*y) < 1", "(x*y) < 1")]
    {
        let err = qe_fails_with_2(&["-"], Some(input));
        assert!(err.contains("a product of two variables is not linear"), "{err}");
        assert!(err.contains("<stdin>:1:"), "{err}");
        assert!(err.contains(shown), "the source line is shown:\n{err}");
        assert!(err.contains("x * y"), "the factors are named:\n{err}");
    }
}

#[test]
fn a_product_of_variables_in_a_file_is_located_by_file_line_and_column() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join("cli_qe_product.qe");
    std::fs::write(&path, "# a comment\nexists y:\n  y <= 2*x*y\n").unwrap();
    let p = path.to_str().unwrap();
    let err = qe_fails_with_2(&[p], None);
    assert!(err.contains(&format!("{p}:3:")), "file:line:col expected:\n{err}");
    assert!(err.contains("y <= 2*x*y"), "the source line is shown:\n{err}");
    let caret = err.lines().find(|l| l.contains('^')).expect("a caret line");
    // The caret line is aligned under the source line: the first `^` sits
    // within `2*x*y` (columns 8..12 of `  y <= 2*x*y`).
    let src = err.lines().find(|l| l.contains("y <= 2*x*y")).unwrap();
    let src_col = src.find("y <= 2*x*y").unwrap() - 2;
    let col = caret.find('^').unwrap() - src_col;
    assert!((7..12).contains(&col), "caret at column {col}:\n{err}");
}

#[test]
fn a_missing_file_exits_2_and_names_the_file() {
    let err = qe_fails_with_2(&["no/such/file-xyz.qe"], None);
    assert!(err.contains("no/such/file-xyz.qe"), "{err}");
}

#[test]
fn an_unknown_order_variable_exits_2_and_names_it() {
    let err = qe_fails_with_2(&[&model("hpl_eq6.qe"), "--order", "nosuch"], None);
    assert!(err.contains("nosuch"), "{err}");
}

#[test]
fn ordering_by_a_bound_variable_exits_2() {
    let err = qe_fails_with_2(&[&model("hpl_eq6.qe"), "--order", "dc1"], None);
    assert!(err.contains("dc1"), "{err}");
    assert!(err.contains("bound"), "{err}");
}

#[test]
fn an_unknown_flag_exits_2() {
    let err = qe_fails_with_2(&[&model("hpl_eq6.qe"), "--no-such-flag"], None);
    assert!(err.contains("--no-such-flag"), "{err}");
}

#[test]
fn zero_decimal_digits_exit_2() {
    let err = qe_fails_with_2(&[&model("hpl_eq6.qe"), "--decimal", "0"], None);
    assert!(err.contains("--decimal"), "{err}");
}

#[test]
fn an_unknown_format_exits_2() {
    qe_fails_with_2(&[&model("hpl_eq6.qe"), "--format", "latex"], None);
}

#[test]
fn a_syntax_error_exits_2_with_a_location() {
    let err = qe_fails_with_2(&["-"], Some("exists y x <= y"));
    assert!(err.contains("<stdin>:1:"), "{err}");
}

// ----------------------------------------------------------------- semantics

#[test]
fn forall_x_exists_larger_y_is_true() {
    assert_eq!(qe_stdin("forall x: exists y: x < y", &[]), "true\n");
}

#[test]
fn contradictory_strict_bounds_are_false() {
    assert_eq!(qe_stdin("exists x: x < 0 and x > 0", &[]), "false\n");
}

#[test]
fn a_pinned_bound_variable_is_substituted() {
    assert_eq!(qe_stdin("exists x: x >= 0 and x <= 0 and y = x + 1", &[]), "y = 1\n");
}

#[test]
fn disequality_gives_two_cells() {
    let out = qe_stdin("x != 1", &[]);
    let cells: Vec<&str> = out.trim_end().split("\nor ").collect();
    assert_eq!(cells.len(), 2, "{out}");
    let mut norm: Vec<String> = cells.iter().map(|c| c.replace("1 < x", "x > 1")).collect();
    norm.sort();
    assert_eq!(norm, vec!["x < 1".to_string(), "x > 1".to_string()], "{out}");
}

#[test]
fn an_unbounded_witness_makes_the_formula_true() {
    assert_eq!(qe_stdin("exists y: y >= x", &[]), "true\n");
}

#[test]
fn a_lower_dimensional_result_is_a_line() {
    let out = qe_stdin("exists z: x = z and z = y", &[]);
    let t = out.trim_end();
    assert!(["x = y", "y = x", "x - y = 0", "y - x = 0", "-x + y = 0"].contains(&t), "{t}");
    let json: serde_json::Value =
        serde_json::from_str(&qe_stdin("exists z: x = z and z = y", &["--format", "json", "--vertices"]))
            .unwrap();
    let p = &json["pieces"][0];
    assert_eq!(p["constraints"].as_array().unwrap().len(), 1, "{p}");
    assert_eq!(p["constraints"][0]["relation"], "=");
    assert_eq!(p["lines"].as_array().unwrap().len(), 1, "a line has one lineality direction: {p}");
}

#[test]
fn strict_inequalities_stay_strict() {
    assert_eq!(qe_stdin("exists y: x < y and y < 1", &[]), "x < 1\n");
    assert_eq!(qe_stdin("exists y: x < y and y <= 1", &[]), "x < 1\n");
    assert_eq!(qe_stdin("exists y: x <= y and y <= 1", &[]), "x <= 1\n");
}

fn grid() -> Vec<Rat> {
    (-12..=12)
        .map(|k| Rat::new(k.into(), 4.into()))
        .chain([Rat::new((-11).into(), 5.into()), Rat::new(3.into(), 5.into())])
        .collect()
}

#[test]
fn forall_avoiding_four_values_is_false_and_quick() {
    // Some u differs from x, y, 1 and 2, so the formula is false everywhere.
    assert_eq!(qe_stdin_within("forall u: (u != x and u != y and u != 1 and u != 2)", 5.0), "false\n");
    assert_eq!(qe_stdin_within("forall u: not (u = x or u = y or u = 1 or u = 2)", 5.0), "false\n");
}

#[test]
fn forall_over_a_conjunction_with_a_disequality_is_eliminated_quickly() {
    // not exists u: 3u < -x + 2y - 3, 2u >= 5 - 2x - y, 3u != 2x + 3y - 4.
    // The first two leave a half-open interval for u exactly when 4x + 7y > 21,
    // and the disequality removes one point of it, so the answer is 4x + 7y <= 21.
    let f = "forall u: (not ((-x + 2*y - 3*u > 3) and (2*x + y + 2*u >= 5) and (-2*x - 3*y + 3*u != -4)))";
    let out = qe_stdin_within(f, 5.0);
    for x in grid() {
        for y in grid() {
            let want = Rat::new(4.into(), 1.into()) * &x + Rat::new(7.into(), 1.into()) * &y
                <= Rat::new(21.into(), 1.into());
            assert_eq!(printed_truth(&out, &x, &y), want, "at ({x}, {y}): {out}");
        }
    }
}

#[test]
fn forall_over_an_implication_between_disequalities_is_eliminated_quickly() {
    // Only u0 = (3 + 3x + y)/2 can falsify the conclusion; the premise fails
    // there exactly when x + 2y = -1 and 2x - y = -5: the point (-11/5, 3/5).
    let f = "forall u: (((x - 3*y - 2*u != -1) or (-2*x - 3*y + 2*u = 5) or (x + 2*y - 2*u != 2)) implies (-3*x - y + 2*u != 3))";
    let out = qe_stdin_within(f, 5.0);
    let (px, py) = (Rat::new((-11).into(), 5.into()), Rat::new(3.into(), 5.into()));
    for x in grid() {
        for y in grid() {
            let want = x == px && y == py;
            assert_eq!(printed_truth(&out, &x, &y), want, "at ({x}, {y}): {out}");
        }
    }
}

#[test]
fn the_order_flag_decides_the_outer_variable() {
    let xy = qe_stdin("0 <= x and 0 <= y and x + y <= 1", &["--order", "x,y"]);
    let yx = qe_stdin("0 <= x and 0 <= y and x + y <= 1", &["--order", "y,x"]);
    assert!(xy.starts_with("0 <= x <= 1"), "{xy}");
    assert!(yx.starts_with("0 <= y <= 1"), "{yx}");
}

#[test]
fn decimal_output_rounds_correctly() {
    // 1101248/81125 = 13.57470...
    assert_eq!(qe_ok(&[&model("hpl_eq6.qe"), "--decimal", "6"]), "13.5747 <= emax\n");
    assert_eq!(qe_ok(&[&model("hpl_eq6.qe"), "--decimal", "2"]), "14 <= emax\n");
}

#[test]
fn help_and_version_exit_0() {
    errband().arg("--help").assert().success().stdout(predicate::str::contains("qe"));
    errband().args(["qe", "--help"]).assert().success().stdout(predicate::str::contains("--order"));
    errband().arg("--version").assert().success().stdout(predicate::str::contains("errband"));
}
