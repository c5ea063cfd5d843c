//! The declarations of a `.tm` model: every statement read into one place,
//! each name declared once (as a constant, the function, a variable or a
//! parameter, never a reserved word), constants and given parameter values
//! evaluated exactly; then the body and weight compiled against them.

use super::compile::{self, Binding, Node};
use super::syntax::{self, Assignment, Name, Stmt};
use super::{uses_param, EvalLog, FitMode, Param};
use crate::lang::diag::Diagnostic;
use crate::lang::expr::Expr;
use crate::num::transcendental::Func;
use crate::num::Rat;
use std::collections::BTreeMap;
use std::ops::Range;

/// A model's statements, checked for duplicates and sorted by kind.
pub(super) struct Declarations {
    /// `F(vars) = body` and the statement's span.
    pub define: (String, Vec<String>, Expr, Range<usize>),
    /// Constants and their exact values, in declaration order.
    pub consts: Vec<(String, Rat)>,
    /// Parameters, with their given values evaluated.
    pub params: Vec<Param>,
    /// The weight expression and its statement's span.
    pub weight: Option<(Expr, Range<usize>)>,
    /// Each `predict` statement's assignments.
    pub predict_groups: Vec<Vec<Assignment>>,
    /// `fit none` / `fit lsq` and the span of its word.
    pub fit: Option<(FitMode, Range<usize>)>,
    /// Units by name.
    pub units: BTreeMap<String, String>,
    /// Where each unit's name was written.
    unit_spans: Vec<(String, Range<usize>)>,
    /// `family` lines: name, variables and body.
    pub family: Vec<(Name, Vec<Name>, Expr)>,
}

/// Fails when `name` is already declared or is a reserved word.
fn already(
    d: &BTreeMap<String, (&'static str, Range<usize>)>,
    name: &str,
    span: &Range<usize>,
    file: &str,
    source: &str,
) -> Result<(), Diagnostic> {
    if let Some((what, first)) = d.get(name) {
        let (line, _) = crate::lang::diag::line_col(source, first.start);
        return Err(Diagnostic::new(
            file,
            span.clone(),
            format!("`{name}` is already declared as a {what} (line {line})"),
        ));
    }
    if syntax::KEYWORDS.contains(&name)
        || Func::from_name(name).is_some()
        || ["abs", "min", "max", "rationalize"].contains(&name)
    {
        return Err(Diagnostic::new(file, span.clone(), format!("`{name}` is a reserved word")));
    }
    Ok(())
}

/// The exact value of a constant expression over `consts`; `help` explains
/// an unknown name.
fn constant_value(
    e: &Expr,
    consts: &[(String, Rat)],
    help: &str,
    file: &str,
    source: &str,
    log: &mut EvalLog,
) -> Result<Rat, Diagnostic> {
    let env = |n: &str| consts.iter().find(|(c, _)| c == n).map(|(_, v)| Binding::Const(v.clone()));
    let node = compile::compile(e, &env, file, source, log).map_err(|d| {
        if d.message.starts_with("unknown name") {
            d.with_help(help)
        } else {
            d
        }
    })?;
    compile::scalar(&node, &[], log).map_err(|e| Diagnostic::new(file, e.span, e.message))
}

impl Declarations {
    /// Reads `stmts`: constants first (in order), so that every other
    /// statement may use them; then the rest in order.
    pub fn collect(
        stmts: Vec<(Stmt, Range<usize>)>,
        file: &str,
        source: &str,
        log: &mut EvalLog,
    ) -> Result<Declarations, Diagnostic> {
        let err = |span: Range<usize>, m: String| Diagnostic::new(file, span, m);
        let line_of = |span: &Range<usize>| crate::lang::diag::line_col(source, span.start).0;
        let mut declared: BTreeMap<String, (&'static str, Range<usize>)> = BTreeMap::new();
        let mut consts: Vec<(String, Rat)> = Vec::new();
        for (s, _) in &stmts {
            if let Stmt::Const(list) = s {
                for ((name, span), e) in list {
                    already(&declared, name, span, file, source)?;
                    let help = "a constant may use only constants declared before it";
                    let v = constant_value(e, &consts, help, file, source, log)?;
                    consts.push((name.clone(), v));
                    declared.insert(name.clone(), ("const", span.clone()));
                }
            }
        }
        let mut define: Option<(String, Vec<String>, Expr, Range<usize>)> = None;
        let mut param_decls: Vec<(Name, Option<Expr>)> = Vec::new();
        let mut weight: Option<(Expr, Range<usize>)> = None;
        let mut predict_groups: Vec<Vec<Assignment>> = Vec::new();
        let mut fit: Option<(FitMode, Range<usize>)> = None;
        let mut units = BTreeMap::new();
        let mut unit_spans: Vec<(String, Range<usize>)> = Vec::new();
        let mut family = Vec::new();
        for (s, span) in stmts {
            match s {
                Stmt::Const(_) => {}
                Stmt::Define { name, vars, body } => {
                    if let Some((_, _, _, first)) = &define {
                        return Err(err(
                            span,
                            format!("the model is already defined (line {})", line_of(first)),
                        ));
                    }
                    already(&declared, &name.0, &name.1, file, source)?;
                    declared.insert(name.0.clone(), ("function name", name.1.clone()));
                    for (v, vs) in &vars {
                        already(&declared, v, vs, file, source)?;
                        declared.insert(v.clone(), ("variable", vs.clone()));
                    }
                    define = Some((name.0, vars.into_iter().map(|v| v.0).collect(), body, span));
                }
                Stmt::Param(list) => {
                    for ((name, nspan), v) in list {
                        already(&declared, &name, &nspan, file, source)?;
                        declared.insert(name.clone(), ("param", nspan.clone()));
                        param_decls.push(((name, nspan), v));
                    }
                }
                Stmt::Weight(e) => {
                    if let Some((_, first)) = &weight {
                        return Err(err(
                            span,
                            format!("the weight is already given (line {})", line_of(first)),
                        ));
                    }
                    weight = Some((e, span));
                }
                Stmt::Predict(a) => predict_groups.push(a),
                Stmt::Fit((word, wspan)) => {
                    let mode = match word.as_str() {
                        "none" => FitMode::Given,
                        "lsq" | "ls" | "least_squares" => FitMode::LeastSquares,
                        _ => {
                            return Err(err(wspan, format!("unknown fit `{word}`"))
                                .with_help("use `fit lsq` (the default) or `fit none`"))
                        }
                    };
                    if fit.is_some() {
                        return Err(err(span, "`fit` is given twice".into()));
                    }
                    fit = Some((mode, wspan));
                }
                Stmt::Unit(list) => {
                    for ((name, nspan), u) in list {
                        unit_spans.push((name.clone(), nspan));
                        units.insert(name, u);
                    }
                }
                Stmt::Family { name, vars, body } => family.push((name, vars, body)),
            }
        }
        let define = define.ok_or_else(|| {
            err(source.len()..source.len(), "the model has no definition".into()).with_help(
                "write the model as `T(p) = ...` (name, variables, and an expression affine in the params)",
            )
        })?;
        if param_decls.is_empty() {
            return Err(err(define.2.span.clone(), "the model has no parameters".into())
                .with_help("declare the coefficients to fit or analyse with `param c1, c2`"));
        }
        // Parameter values given in the model (constants only).
        let mut params = Vec::with_capacity(param_decls.len());
        for ((name, nspan), v) in param_decls {
            let help = "a parameter's given value must be a constant: numbers and `const` names";
            let given = v.map(|e| constant_value(&e, &consts, help, file, source, log)).transpose()?;
            params.push(Param { name, given, span: nspan });
        }
        Ok(Declarations { define, consts, params, weight, predict_groups, fit, units, unit_spans, family })
    }

    /// The compiled body (every parameter used) and weight (no parameter
    /// used).
    pub fn compile(
        &self,
        file: &str,
        source: &str,
        log: &mut EvalLog,
    ) -> Result<(Node, Option<Node>), Diagnostic> {
        let (_, vars, body, _) = &self.define;
        let env = |n: &str| -> Option<Binding> {
            if let Some(i) = vars.iter().position(|v| v == n) {
                return Some(Binding::Var(i));
            }
            if let Some(j) = self.params.iter().position(|p| p.name == n) {
                return Some(Binding::Param(j));
            }
            self.consts.iter().find(|(c, _)| c == n).map(|(_, v)| Binding::Const(v.clone()))
        };
        let body_node = compile::compile(body, &env, file, source, log).map_err(|d| {
            if d.message.starts_with("unknown name") {
                d.with_help("declare it with `param NAME` (fitted), `const NAME = VALUE`, or list it as a variable in `T(...)`")
            } else {
                d
            }
        })?;
        for (j, p) in self.params.iter().enumerate() {
            if !uses_param(&body_node, j) {
                return Err(Diagnostic::new(
                    file,
                    p.span.clone(),
                    format!("parameter `{}` does not occur in the model", p.name),
                )
                .with_help("remove it, or use it in the model's expression"));
            }
        }
        let weight_node = match &self.weight {
            None => None,
            Some((e, _)) => {
                let no_params = |n: &str| match env(n) {
                    Some(Binding::Param(_)) => None,
                    b => b,
                };
                let node = compile::compile(e, &no_params, file, source, log).map_err(|d| {
                    if d.message.starts_with("unknown name") {
                        d.with_help(
                            "a weight may use the model's variables and constants, not its parameters",
                        )
                    } else {
                        d
                    }
                })?;
                Some(node)
            }
        };
        Ok((body_node, weight_node))
    }

    /// Every `unit` statement names the function or one of its variables.
    pub fn check_units(&self, file: &str) -> Result<(), Diagnostic> {
        let (func, vars, _, _) = &self.define;
        for (name, nspan) in &self.unit_spans {
            if name != func && !vars.contains(name) {
                return Err(Diagnostic::new(
                    file,
                    nspan.clone(),
                    format!(
                        "`unit {name} = ...` names neither the model `{func}` nor one of its variables ({})",
                        vars.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }
}
