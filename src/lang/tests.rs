//! Tests of the expression front end: the parser and linearisation.

use super::diag::Diagnostic;
use super::expr::*;
use super::lexer::Tok;
use super::linearize::*;
use super::parser::*;
use crate::limits::Limits;
use crate::linear::LinExpr;
use crate::num::{frac, int, pow10, Rat};
use num_bigint::BigInt;
use num_traits::Zero;

/// The value, or a panic showing the diagnostic (tests only).
fn ok<T>(r: Result<T, Diagnostic>) -> T {
    match r {
        Ok(v) => v,
        Err(d) => panic!("unexpected error: {} ({:?})", d.message, d.span),
    }
}

fn parse(s: &str) -> Result<Expr, Diagnostic> {
    let mut p = Parser::new(s, "t")?;
    let e = p.parse_expr()?;
    p.expect(&Tok::Eof)?;
    Ok(e)
}

fn sexpr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Num(r) => crate::num::fmt_fraction(r),
        ExprKind::Name(n) => n.clone(),
        ExprKind::Neg(x) => format!("(neg {})", sexpr(x)),
        ExprKind::Bin(op, l, r) => format!("({} {} {})", op.symbol(), sexpr(l), sexpr(r)),
        ExprKind::Call(f, args) => {
            let a: Vec<String> = args.iter().map(sexpr).collect();
            format!("(call {} {})", f, a.join(" "))
        }
    }
}

fn sx(s: &str) -> String {
    sexpr(&ok(parse(s)))
}

#[test]
fn precedence_and_associativity() {
    assert_eq!(sx("1+2*3^2"), "(+ 1 (* 2 (^ 3 2)))");
    assert_eq!(sx("-x^2"), "(neg (^ x 2))");
    assert_eq!(sx("-x*y"), "(* (neg x) y)");
    assert_eq!(sx("2^3^2"), "(^ 2 (^ 3 2))");
    assert_eq!(sx("2^-1"), "(^ 2 (neg 1))");
    assert_eq!(sx("2^-x*3"), "(* (^ 2 (neg x)) 3)");
    assert_eq!(sx("a-b-c"), "(- (- a b) c)");
    assert_eq!(sx("a/b/c"), "(/ (/ a b) c)");
    assert_eq!(sx("a-b*c+d"), "(+ (- a (* b c)) d)");
    assert_eq!(sx("(a-b)*c"), "(* (- a b) c)");
    assert_eq!(sx("--x"), "(neg (neg x))");
    assert_eq!(sx("+x"), "x");
    assert_eq!(sx("f(x, 2*y) + g()"), "(+ (call f x (* 2 y)) (call g ))");
    assert_eq!(sx("1.9312e-7"), "1207/6250000000");
    assert_eq!(sx("14244/5"), "(/ 14244 5)");
}

#[test]
fn spans_cover_parentheses() {
    let e = ok(parse(" (a + b) * c"));
    assert_eq!(e.span, 1..12);
    match &e.kind {
        ExprKind::Bin(BinOp::Mul, l, _) => assert_eq!(l.span, 1..8),
        _ => panic!("not a product"),
    }
}

#[test]
fn display_round_trips() {
    for s in [
        "1 + 2*3^2",
        "-x^2",
        "(-x)^2",
        "2^3^2",
        "(2^3)^2",
        "a - (b - c)",
        "a/(b*c)",
        "-(a + b)",
        "2^-1",
        "f(x, y)",
    ] {
        let e = ok(parse(s));
        let printed = e.to_string();
        let back = ok(parse(&printed));
        assert_eq!(sexpr(&back), sexpr(&e), "{s} -> {printed}");
    }
    assert_eq!(ok(parse("a*(1/10 + b)")).to_string(), "a*(1/10 + b)");
}

#[test]
fn implicit_multiplication_is_an_error() {
    let e = parse("3 + 2x").unwrap_err();
    assert_eq!(e.span, 5..6);
    assert_eq!(e.message, "missing `*` between `2` and `x`");
    assert_eq!(e.help.as_deref(), Some("to multiply, write `2*x`"));
    let e = parse("(a+1)(b)").unwrap_err();
    assert_eq!(e.span, 5..6);
    assert!(e.help.unwrap().contains("(a+1)*(...)"));
    let e = parse("2 x").unwrap_err();
    assert_eq!(e.message, "expected an operator before `x`");
    assert!(e.help.unwrap().contains("2*x"));
    // a keyword ends the expression instead
    let mut p = ok(Parser::new("x + 1 and y", "t")).with_keywords(&["and"]);
    let e = ok(p.parse_expr());
    assert_eq!(sexpr(&e), "(+ x 1)");
    assert!(p.at_ident("and"));
}

#[test]
fn syntax_errors_are_located() {
    let e = parse("1 + ").unwrap_err();
    assert_eq!((e.span, e.message.as_str()), (4..4, "expected an expression, found end of input"));
    let e = parse("(1 + 2").unwrap_err();
    assert_eq!(e.message, "expected `)`, found end of input");
    let e = parse("1 + 1e99999").unwrap_err();
    assert_eq!(e.span, 4..11);
    assert_eq!(e.message, "invalid number");
    let mut p = ok(Parser::new("x + and", "t")).with_keywords(&["and"]);
    let e = p.parse_expr().unwrap_err();
    assert_eq!(e.message, "expected an expression, found keyword `and`");
}

#[test]
fn deep_nesting_is_rejected_not_overflowed() {
    let deep = format!("{}x{}", "(".repeat(100_000), ")".repeat(100_000));
    assert!(parse(&deep).unwrap_err().message.contains("nested too deeply"));
    let long = vec!["x"; 100_000].join("+");
    assert!(parse(&long).unwrap_err().message.contains("nested too deeply"));
    let minus = format!("{}x", "-".repeat(100_000));
    assert!(parse(&minus).is_err());
    let pow = vec!["2"; 100_000].join("^");
    assert!(parse(&pow).is_err());
    // within the limit everything works, including dropping the tree
    let at_limit = vec!["x"; MAX_EXPR_DEPTH].join("+");
    let e = ok(parse(&at_limit));
    let r = ok(linearize(&e, &env, 3, "t"));
    assert_eq!(r.coeffs[0], int(MAX_EXPR_DEPTH as i64));
    assert!(sexpr(&ok(parse(&e.to_string()))) == sexpr(&e.clone()));
    assert_eq!(e.names().len(), MAX_EXPR_DEPTH);
    let nested = format!("{}x{}", "(-".repeat(MAX_NESTING / 2 - 1), ")".repeat(MAX_NESTING / 2 - 1));
    assert!(linearize(&ok(parse(&nested)), &env, 3, "t").is_ok());
}

fn env(n: &str) -> Option<NameValue> {
    Some(match n {
        "x" => NameValue::Var(0),
        "y" => NameValue::Var(1),
        "z" => NameValue::Var(2),
        "dc1" => NameValue::Var(0),
        "dc2" => NameValue::Var(1),
        "a" => NameValue::Const(int(26022)),
        "C1" => NameValue::Const(crate::num::parse_rat("0.0088823").ok()?),
        "C2" => NameValue::Const(crate::num::parse_rat("1.9312e-7").ok()?),
        _ => return None,
    })
}

fn lin(s: &str) -> Result<LinExpr, Diagnostic> {
    let e = parse(s)?;
    linearize_in(&e, &env, 3, "t", s, &Limits::default())
}

#[test]
fn linearises_exactly() {
    let l = ok(lin("2*x - (y - 3)/4 + 2^-2 + x*3^2"));
    assert_eq!(l.coeffs, vec![int(11), frac(-1, 4), int(0)]);
    assert_eq!(l.constant, int(1));
    let l = ok(lin("(x + 1)^1 + y^0 + 0^0 + (-2/3)^3"));
    assert_eq!(l.coeffs, vec![int(1), int(0), int(0)]);
    assert_eq!(l.constant, int(3) + frac(-8, 27));
    assert_eq!(lin("-x^2 - x^1").unwrap_err().message, "a power of a variable is not linear");
    assert_eq!(ok(lin("(1/2)^-3")).constant, int(8));
    assert_eq!(ok(lin("(-2)^-1")).constant, frac(-1, 2));
}

#[test]
fn eq6_line_has_exact_coefficients() {
    let s = "14244/5 - a*(1/10 + C1 + dc1 + (C2 + dc2)*(10 - 1)^2)";
    let l = ok(lin(s));
    let a = int(26022);
    let c1 = frac(88823, 10_000_000);
    let c2 = Rat::new(BigInt::from(19312), pow10(11));
    assert_eq!(l.coeffs, vec![-a.clone(), -a.clone() * int(81), int(0)]);
    let k = frac(14244, 5) - &a * (frac(1, 10) + &c1 + &c2 * int(81));
    assert_eq!(l.constant, k);
    // a*C2*(10-1)^2 = 26022*19312/10^11*81
    let term = ok(lin("a*(C2)*(10-1)^2")).constant;
    assert_eq!(term, Rat::new(BigInt::from(26022i64 * 19312 * 81), pow10(11)));
}

#[test]
fn product_of_variables_is_rejected_with_carets_on_it() {
    let src = "    -emax <= a*dc1*dc2 <= emax";
    let start = src.find("a*dc1").unwrap();
    let e = ok(parse(&src[start..start + 9]));
    // shift spans so they index into `src`
    let e = shift(e, start);
    let d = linearize_in(&e, &env, 3, "eq6.qe", src, &Limits::default()).unwrap_err();
    assert_eq!(
        d.render(src),
        "error: a product of two variables is not linear\n \
         --> eq6.qe:1:16\n  \
         |\n\
         1 |     -emax <= a*dc1*dc2 <= emax\n  \
         |                ^^^^^^^ dc1 * dc2\n  \
         = help: each term may contain at most one variable, multiplied by constants"
    );
    // parenthesised factors are quoted whole; without a source the tree is printed
    let d = lin("2*(x + 1)*(3*y)").unwrap_err();
    assert_eq!(&*d.label, "(x + 1) * (3*y)");
    assert_eq!(d.span, 2..15);
    let e = ok(parse("(x + 1)*(y/2)"));
    assert_eq!(&*linearize(&e, &env, 3, "t").unwrap_err().label, "(x + 1) * y/2");
    // a product that cancels is fine: (x - x)*y = 0
    assert!(ok(lin("(x - x)*y")).coeffs.iter().all(Zero::is_zero));
}

/// Fuzzing (`qe_parser`, a SIGSEGV with no input saved) found that a
/// product of two variables in parentheses, `(x*y)`, recursed without end:
/// the error looked for the product's factors, took the parenthesised
/// product whole as its only factor and evaluated it again. Its factors
/// are now the operands inside the parentheses.
#[test]
fn parenthesised_product_of_variables_is_an_error_not_a_recursion() {
    for (s, span) in [
        ("(x*y)", 1..4),
        ("2*(x*y)", 3..6),
        ("(x*y)*2", 1..4),
        ("((x*2)*(y))", 1..10),
        ("x + (a*x*y)", 7..10),
    ] {
        let d = lin(s).unwrap_err();
        assert_eq!(
            (d.message.as_str(), d.span.clone()),
            ("a product of two variables is not linear", span),
            "{s}"
        );
    }
    assert_eq!(&*lin("2*(x*y)").unwrap_err().label, "x * y");
    assert_eq!(&*linearize(&ok(parse("((x + 1)*y)")), &env, 3, "t").unwrap_err().label, "(x + 1) * y");
}

fn shift(e: Expr, by: usize) -> Expr {
    let span = e.span.start + by..e.span.end + by;
    let kind = match e.kind {
        ExprKind::Neg(x) => ExprKind::Neg(Box::new(shift(*x, by))),
        ExprKind::Bin(op, l, r) => ExprKind::Bin(op, Box::new(shift(*l, by)), Box::new(shift(*r, by))),
        ExprKind::Call(f, args) => ExprKind::Call(f, args.into_iter().map(|a| shift(a, by)).collect()),
        k => k,
    };
    Expr::new(kind, span)
}

#[test]
fn division_errors() {
    let d = lin("1 + 2/(x+1)").unwrap_err();
    assert_eq!(
        (d.message.as_str(), d.span.clone()),
        ("division by an expression containing a variable", 6..11)
    );
    let d = lin("x/(2-2)").unwrap_err();
    assert_eq!((d.message.as_str(), d.span.clone()), ("division by zero", 2..7));
    assert_eq!(ok(lin("x/(1/3)")).coeffs[0], int(3));
}

#[test]
fn power_errors_and_limits() {
    let t = std::time::Instant::now();
    let d = lin("2^100000000").unwrap_err();
    assert!(d.message.starts_with("exponent too large (limit"), "{}", d.message);
    let d = lin("3^(10^4000)").unwrap_err();
    assert!(d.message.starts_with("exponent too large"));
    let d = lin("(2^10000)^10000").unwrap_err();
    assert!(d.message.starts_with("exponent too large"));
    let d = lin("(2^30)^10000").unwrap_err();
    assert!(d.message.starts_with("exponent too large"), "{}", d.message);
    assert_eq!(ok(lin("(1/3)^-10000")).constant.numer().bits(), 15850);
    assert!(t.elapsed() < std::time::Duration::from_secs(2));
    assert_eq!(ok(lin("2^10000")).constant.numer().bits(), 10001);
    let d = lin("0^-1").unwrap_err();
    assert_eq!((d.message.as_str(), d.span.clone()), ("zero raised to a negative power", 0..4));
    assert_eq!(lin("2^x").unwrap_err().message, "the exponent must be a constant");
    assert_eq!(
        lin("2^(1/2)").unwrap_err().message,
        "2^(1/2) is irrational; qe needs exact rational constants"
    );
}

#[test]
fn rational_powers_of_constants_fold_only_when_exact() {
    assert_eq!(ok(lin("4^(1/2)")).constant, int(2));
    assert_eq!(ok(lin("16^(5/4) + 4^-0.5")).constant, int(32) + frac(1, 2));
    assert_eq!(ok(lin("(8/27)^(-2/3)*x")).coeffs[0], frac(9, 4));
    assert_eq!(ok(lin("0^(1/3)")).constant, int(0));
    let d = lin("1 + 2^(1/2)").unwrap_err();
    assert_eq!(d.message, "2^(1/2) is irrational; qe needs exact rational constants");
    assert_eq!(d.span, 4..11);
    let d = lin("3^1.25").unwrap_err();
    assert_eq!(d.message, "3^1.25 is irrational; qe needs exact rational constants");
    assert_eq!(&*d.label, "the exponent is 5/4");
    assert_eq!(lin("x^(1/2)").unwrap_err().message, "a power of a variable is not linear");
    let d = lin("(-8)^(1/3)").unwrap_err();
    assert!(d.message.contains("a negative base needs an integer exponent"), "{}", d.message);
    let d = lin("(-4)^(1/2)").unwrap_err();
    assert!(d.message.contains("undefined: an even root of a negative number"), "{}", d.message);
    let d = lin("2^(1/100000)").unwrap_err();
    assert!(d.message.contains("denominator 100000 is too large (limit 10000"), "{}", d.message);
    assert_eq!(d.span, 2..12);
    let d = lin("0^(-1/2)").unwrap_err();
    assert_eq!(d.message, "zero raised to a negative power");
}

#[test]
fn calls_and_unknown_names() {
    assert_eq!(ok(lin("rationalize(0.0088823, 1e-8)")).constant, crate::num::frac(12, 1351));
    assert_eq!(ok(lin("abs(-2) + max(1, 3) - min(1, 3)")).constant, crate::num::int(4));
    assert!(lin("abs(x)").is_err());
    let d = lin("1 + f(x)").unwrap_err();
    assert_eq!((d.message.as_str(), d.span.clone()), ("functions are not allowed here", 4..8));
    let d = lin("x + w").unwrap_err();
    assert_eq!((d.message.as_str(), d.span.clone()), ("unknown name `w`", 4..5));
    let d = ok(lin("x"));
    assert_eq!(d.dim(), 3);
}

#[test]
fn names_in_source_order() {
    let e = ok(parse("b*f(c, a) - b"));
    let names: Vec<&str> = e.names().into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, vec!["b", "c", "a", "b"]);
}
