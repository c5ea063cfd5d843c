//! Renderings of QE inputs and results: errband's own text (cylindrical
//! form), JSON, SMT-LIB2 and Mathematica, so that any SMT solver or
//! Mathematica's `Reduce` can check `input <=> output`.

use super::cylinder::{Cell, LevelBound, Side};
use super::formula::{Atom, Formula, Problem, Rel};
use super::QeResult;
use crate::linear::{Constraint, Kind, LinExpr, VarTable};
use crate::num::{fmt_fraction, NumFormat, Rat};
use num_traits::{One, Signed, Zero};

/// The result as a formula: a disjunction of the pieces' minimal constraints.
pub fn as_formula(r: &QeResult) -> Formula {
    if r.is_true() {
        return Formula::True;
    }
    Formula::Or(
        r.pieces
            .iter()
            .map(|p| {
                Formula::And(
                    p.minimal.constraints().iter().map(|c| Formula::Atom(constraint_atom(c))).collect(),
                )
            })
            .collect(),
    )
}

fn constraint_atom(c: &Constraint) -> Atom {
    let lhs = LinExpr { coeffs: c.a.clone(), constant: -c.b.clone() };
    let rel = match c.kind {
        Kind::Le => Rel::Le,
        Kind::Lt => Rel::Lt,
        Kind::Eq => Rel::Eq,
    };
    Atom { expr: lhs, rel }
}

fn side_text(var: &str, s: &Side, lower: bool, vars: &VarTable, fmt: NumFormat) -> String {
    let op = if s.strict { "<" } else { "<=" };
    let e = s.expr.show(vars, fmt);
    if lower {
        format!("{e} {op} {var}")
    } else {
        format!("{var} {op} {e}")
    }
}

fn level_text(var: &str, lb: &LevelBound, vars: &VarTable, fmt: NumFormat) -> Option<String> {
    match lb {
        LevelBound::Point(e) => Some(format!("{var} = {}", e.show(vars, fmt))),
        LevelBound::Range { lower, upper } => {
            if lower.len() == 1 && upper.len() == 1 {
                let lo = side_text(var, &lower[0], true, vars, fmt);
                let op = if upper[0].strict { "<" } else { "<=" };
                return Some(format!("{lo} {op} {}", upper[0].expr.show(vars, fmt)));
            }
            let parts: Vec<String> = lower
                .iter()
                .map(|s| side_text(var, s, true, vars, fmt))
                .chain(upper.iter().map(|s| side_text(var, s, false, vars, fmt)))
                .collect();
            if parts.is_empty() {
                None
            } else {
                Some(parts.join(" and "))
            }
        }
    }
}

/// One cell as text: `a < x <= b and L(x) <= y <= U(x)`.
pub fn cell_text(cell: &Cell, vars: &VarTable, fmt: NumFormat) -> String {
    let parts: Vec<String> = cell
        .levels
        .iter()
        .enumerate()
        .filter_map(|(j, lb)| level_text(vars.name(j), lb, vars, fmt))
        .collect();
    if parts.is_empty() {
        "true".into()
    } else {
        parts.join(" and ")
    }
}

/// The result in cylindrical form, one cell per line joined by `or`.
pub fn text(r: &QeResult, fmt: NumFormat) -> String {
    if r.is_false() {
        return "false".into();
    }
    if r.is_true() {
        return "true".into();
    }
    let mut lines = Vec::new();
    for p in &r.pieces {
        for c in &p.cells {
            lines.push(cell_text(c, &r.vars, fmt));
        }
    }
    lines.join("\nor ")
}

// ---------------------------------------------------------------- SMT-LIB2

fn smt_rat(x: &Rat) -> String {
    let mag = x.abs();
    let body = if mag.denom().is_one() {
        format!("{}.0", mag.numer())
    } else {
        format!("(/ {}.0 {}.0)", mag.numer(), mag.denom())
    };
    if x.is_negative() {
        format!("(- {body})")
    } else {
        body
    }
}

fn smt_name(s: &str) -> String {
    if s.chars().all(|c| c.is_ascii_alphanumeric() || "_.'".contains(c))
        && !s.starts_with(|c: char| c.is_ascii_digit())
    {
        s.to_string()
    } else {
        format!("|{}|", s.replace('|', ""))
    }
}

fn smt_lin(coeffs: &[Rat], vars: &VarTable) -> String {
    let terms: Vec<String> = coeffs
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.is_zero())
        .map(|(j, c)| {
            if c.is_one() {
                smt_name(vars.name(j))
            } else {
                format!("(* {} {})", smt_rat(c), smt_name(vars.name(j)))
            }
        })
        .collect();
    match terms.len() {
        0 => "0.0".into(),
        1 => terms[0].clone(),
        _ => format!("(+ {})", terms.join(" ")),
    }
}

fn smt_atom(a: &Atom, vars: &VarTable) -> String {
    let lhs = smt_lin(&a.expr.coeffs, vars);
    let rhs = smt_rat(&-a.expr.constant.clone());
    match a.rel {
        Rel::Ne => format!("(not (= {lhs} {rhs}))"),
        Rel::Eq => format!("(= {lhs} {rhs})"),
        r => format!("({} {lhs} {rhs})", r.symbol()),
    }
}

/// A formula as one SMT-LIB2 term.
pub fn smt_formula(f: &Formula, vars: &VarTable) -> String {
    match f {
        Formula::True => "true".into(),
        Formula::False => "false".into(),
        Formula::Atom(a) => smt_atom(a, vars),
        Formula::And(fs) if fs.is_empty() => "true".into(),
        Formula::Or(fs) if fs.is_empty() => "false".into(),
        Formula::And(fs) if fs.len() == 1 => smt_formula(&fs[0], vars),
        Formula::Or(fs) if fs.len() == 1 => smt_formula(&fs[0], vars),
        Formula::And(fs) => {
            format!("(and {})", fs.iter().map(|g| smt_formula(g, vars)).collect::<Vec<_>>().join(" "))
        }
        Formula::Or(fs) => {
            format!("(or {})", fs.iter().map(|g| smt_formula(g, vars)).collect::<Vec<_>>().join(" "))
        }
        Formula::Not(g) => format!("(not {})", smt_formula(g, vars)),
        Formula::Implies(a, b) => format!("(=> {} {})", smt_formula(a, vars), smt_formula(b, vars)),
        Formula::Exists(vs, g) | Formula::Forall(vs, g) => {
            let q = if matches!(f, Formula::Exists(..)) { "exists" } else { "forall" };
            let binds: Vec<String> =
                vs.iter().map(|&v| format!("({} Real)", smt_name(vars.name(v)))).collect();
            format!("({q} ({}) {})", binds.join(" "), smt_formula(g, vars))
        }
    }
}

/// The input problem as an SMT-LIB2 script (free variables declared, one assertion).
pub fn smt_problem(p: &Problem, file: &str) -> String {
    let free = p.formula.free_vars(p.vars.len());
    let mut s = format!("; {file}, written by errband for cross-checking\n(set-logic LRA)\n");
    for v in free {
        s.push_str(&format!("(declare-fun {} () Real)\n", smt_name(p.vars.name(v))));
    }
    s.push_str(&format!("(assert {})\n(check-sat)\n", smt_formula(&p.formula, &p.vars)));
    s
}

// ------------------------------------------------------------- Mathematica

fn mma_rat(x: &Rat) -> String {
    if x.is_negative() {
        format!("(-{})", fmt_fraction(&x.abs()))
    } else {
        fmt_fraction(x)
    }
}

fn mma_lin(coeffs: &[Rat], constant: Option<&Rat>, vars: &VarTable) -> String {
    let mut terms: Vec<String> =
        coeffs
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.is_zero())
            .map(|(j, c)| {
                if c.is_one() {
                    vars.name(j).to_string()
                } else {
                    format!("{}*{}", mma_rat(c), vars.name(j))
                }
            })
            .collect();
    if let Some(k) = constant {
        if !k.is_zero() {
            terms.push(mma_rat(k));
        }
    }
    if terms.is_empty() {
        "0".into()
    } else {
        terms.join(" + ")
    }
}

fn mma_atom(a: &Atom, vars: &VarTable) -> String {
    let op = match a.rel {
        Rel::Eq => "==",
        Rel::Ne => "!=",
        r => r.symbol(),
    };
    format!("{} {op} {}", mma_lin(&a.expr.coeffs, None, vars), mma_rat(&-a.expr.constant.clone()))
}

/// A formula in Mathematica syntax.
pub fn mma_formula(f: &Formula, vars: &VarTable) -> String {
    let join = |fs: &[Formula], op: &str| {
        fs.iter().map(|g| format!("({})", mma_formula(g, vars))).collect::<Vec<_>>().join(op)
    };
    match f {
        Formula::True => "True".into(),
        Formula::False => "False".into(),
        Formula::Atom(a) => mma_atom(a, vars),
        Formula::And(fs) if fs.is_empty() => "True".into(),
        Formula::Or(fs) if fs.is_empty() => "False".into(),
        Formula::And(fs) => join(fs, " && "),
        Formula::Or(fs) => join(fs, " || "),
        Formula::Not(g) => format!("!({})", mma_formula(g, vars)),
        Formula::Implies(a, b) => format!("Implies[{}, {}]", mma_formula(a, vars), mma_formula(b, vars)),
        Formula::Exists(vs, g) | Formula::Forall(vs, g) => {
            let q = if matches!(f, Formula::Exists(..)) { "Exists" } else { "ForAll" };
            let names: Vec<&str> = vs.iter().map(|&v| vars.name(v)).collect();
            format!("{q}[{{{}}}, {}]", names.join(", "), mma_formula(g, vars))
        }
    }
}

/// The input as a Mathematica `Reduce` call over the free variables.
pub fn mma_problem(p: &Problem, order: &[String]) -> String {
    let free = p.formula.free_vars(p.vars.len());
    let mut names: Vec<String> = order.to_vec();
    for v in free {
        let nm = p.vars.name(v).to_string();
        if !names.contains(&nm) {
            names.push(nm);
        }
    }
    format!("Reduce[{}, {{{}}}, Reals]\n", mma_formula(&p.formula, &p.vars), names.join(", "))
}

/// The result in Mathematica syntax (`&&`, `||`, `==`, exact fractions).
pub fn mma_result(r: &QeResult) -> String {
    mma_formula(&as_formula(r), &r.vars)
}

/// The result as one SMT-LIB2 term.
pub fn smt_result(r: &QeResult) -> String {
    smt_formula(&as_formula(r), &r.vars)
}

/// A problem in `errband qe` syntax (exact numbers), a conjunction written
/// one conjunct per line so that large generated problems stay readable.
pub fn qe_problem(p: &Problem) -> String {
    let fmt = NumFormat::Exact;
    let lines = |fs: &[Formula]| fs.iter().map(|f| f.show(&p.vars, fmt)).collect::<Vec<_>>().join("\nand ");
    match &p.formula {
        Formula::Exists(vs, body) => {
            let names: Vec<&str> = vs.iter().map(|&v| p.vars.name(v)).collect();
            match &**body {
                Formula::And(fs) if !fs.is_empty() => {
                    format!("exists {}:\n    {};", names.join(", "), lines(fs))
                }
                f => format!("exists {}: {};", names.join(", "), f.show(&p.vars, fmt)),
            }
        }
        Formula::And(fs) if !fs.is_empty() => format!("    {};", lines(fs)),
        f => format!("{};", f.show(&p.vars, fmt)),
    }
}
