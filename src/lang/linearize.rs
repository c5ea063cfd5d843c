//! Exact linearisation of an expression into an affine form ([`LinExpr`]),
//! with located errors for anything non-linear and powers of constants held
//! to [`Limits`].

use super::diag::Diagnostic;
use super::expr::{BinOp, Expr, ExprKind};
use crate::limits::Limits;
use crate::linear::{LinExpr, VarId};
use crate::num::{arith_bound, Arith, DigitsError, Rat};
use num_traits::{One, Signed, Zero};
use std::ops::Range;

/// What a name stands for during linearisation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameValue {
    /// An exact constant.
    Const(Rat),
    /// A variable of the affine form.
    Var(VarId),
}

/// Evaluates `e` exactly as an affine form over `nvars` variables.
///
/// `+ -` always; `*` needs a constant factor; `/` needs a non-zero constant
/// divisor; `^` needs a constant exponent (a constant base is raised
/// exactly within the default [`Limits`], to a non-integer exponent only
/// when the power is rational, such as `4^(1/2)`; a non-constant base only
/// to the powers 0 and 1). Calls and unknown names
/// (`env` returns `None`) are errors. Error labels quote sub-expressions
/// re-printed from the tree; [`linearize_in`] quotes the source instead.
pub fn linearize(
    e: &Expr,
    env: &dyn Fn(&str) -> Option<NameValue>,
    nvars: usize,
    file: &str,
) -> Result<LinExpr, Diagnostic> {
    Lin { env, nvars, file, source: None, limits: Limits::default() }.go(e)
}

/// [`linearize`], quoting the text of `source` (the text `e` was parsed
/// from) in error labels, with powers of constants held to `limits`.
pub fn linearize_in(
    e: &Expr,
    env: &dyn Fn(&str) -> Option<NameValue>,
    nvars: usize,
    file: &str,
    source: &str,
    limits: &Limits,
) -> Result<LinExpr, Diagnostic> {
    Lin { env, nvars, file, source: Some(source), limits: *limits }.go(e)
}

struct Lin<'a> {
    env: &'a dyn Fn(&str) -> Option<NameValue>,
    nvars: usize,
    file: &'a str,
    source: Option<&'a str>,
    limits: Limits,
}

impl Lin<'_> {
    fn err(&self, span: Range<usize>, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(self.file, span, message)
    }

    fn text(&self, e: &Expr) -> String {
        match self.source.and_then(|s| s.get(e.span.clone())) {
            Some(t) => t.to_string(),
            None if e.prec() < 3 => format!("({e})"),
            None => e.to_string(),
        }
    }

    /// Post-order evaluation with an explicit stack (no recursion, so long
    /// sums cannot overflow the call stack).
    fn go(&self, root: &Expr) -> Result<LinExpr, Diagnostic> {
        enum Step<'e> {
            Visit(&'e Expr),
            Apply(&'e Expr),
        }
        let mut work = vec![Step::Visit(root)];
        let mut vals: Vec<LinExpr> = Vec::new();
        while let Some(step) = work.pop() {
            match step {
                Step::Visit(e) => match &e.kind {
                    ExprKind::Num(r) => vals.push(LinExpr::constant(self.nvars, r.clone())),
                    ExprKind::Name(n) => vals.push(self.name(n, e)?),
                    ExprKind::Call(name, args) => {
                        if exact_function_arity(name) != Some(args.len()) {
                            return Err(self.call(name, e));
                        }
                        work.push(Step::Apply(e));
                        for a in args.iter().rev() {
                            work.push(Step::Visit(a));
                        }
                    }
                    ExprKind::Neg(x) => {
                        work.push(Step::Apply(e));
                        work.push(Step::Visit(x));
                    }
                    ExprKind::Bin(_, l, r) => {
                        work.push(Step::Apply(e));
                        work.push(Step::Visit(r));
                        work.push(Step::Visit(l));
                    }
                },
                Step::Apply(e) => {
                    let v = match &e.kind {
                        ExprKind::Call(name, args) => {
                            let mut vs = Vec::with_capacity(args.len());
                            for _ in args {
                                vs.push(vals.pop().ok_or_else(|| self.internal(e))?);
                            }
                            vs.reverse();
                            self.exact_call(e, name, args, vs)?
                        }
                        ExprKind::Neg(_) => {
                            let a = vals.pop().ok_or_else(|| self.internal(e))?;
                            a.scale(&-Rat::one())
                        }
                        ExprKind::Bin(op, l, r) => {
                            let b = vals.pop().ok_or_else(|| self.internal(e))?;
                            let a = vals.pop().ok_or_else(|| self.internal(e))?;
                            self.binary(e, *op, l, r, a, b)?
                        }
                        _ => return Err(self.internal(e)),
                    };
                    vals.push(v);
                }
            }
        }
        match (vals.pop(), vals.is_empty()) {
            (Some(v), true) => Ok(v.resized(self.nvars)),
            _ => Err(self.internal(root)),
        }
    }

    fn internal(&self, e: &Expr) -> Diagnostic {
        self.err(e.span.clone(), "internal error: unbalanced expression evaluation")
    }

    fn name(&self, n: &str, e: &Expr) -> Result<LinExpr, Diagnostic> {
        match (self.env)(n) {
            Some(NameValue::Const(c)) => Ok(LinExpr::constant(self.nvars, c)),
            Some(NameValue::Var(v)) if v < self.nvars => Ok(LinExpr::var(self.nvars, v)),
            Some(NameValue::Var(_)) => {
                Err(self.err(e.span.clone(), format!("internal error: variable `{n}` has no slot")))
            }
            None => Err(self.err(e.span.clone(), format!("unknown name `{n}`"))),
        }
    }

    /// Exact functions of constants: `rationalize(x, tol)` (Mathematica's
    /// `Rationalize`, so papers' programs can be reproduced), `abs`, `min`, `max`.
    fn exact_call(
        &self,
        e: &Expr,
        name: &str,
        args: &[Expr],
        vs: Vec<LinExpr>,
    ) -> Result<LinExpr, Diagnostic> {
        for (a, v) in args.iter().zip(&vs) {
            if !v.is_constant() {
                return Err(self
                    .err(a.span.clone(), format!("`{name}` needs a constant argument"))
                    .with_label("contains a variable"));
            }
        }
        let c: Vec<Rat> = vs.into_iter().map(|v| v.constant).collect();
        let value = match name {
            "rationalize" => {
                if c[1].is_negative() {
                    return Err(
                        self.err(args[1].span.clone(), "the tolerance of `rationalize` must not be negative")
                    );
                }
                crate::num::rationalize(&c[0], &c[1])
            }
            "abs" => c[0].abs(),
            "min" => c[0].clone().min(c[1].clone()),
            "max" => c[0].clone().max(c[1].clone()),
            _ => return Err(self.call(name, e)),
        };
        Ok(LinExpr::constant(self.nvars, value))
    }

    fn call(&self, name: &str, e: &Expr) -> Diagnostic {
        match exact_function_arity(name) {
            Some(k) => self
                .err(e.span.clone(), format!("`{name}` takes {k} argument{}", if k == 1 { "" } else { "s" }))
                .with_label(format!("call of `{name}`")),
            None => self
                .err(e.span.clone(), "functions are not allowed here")
                .with_label(format!("call of `{name}`"))
                .with_help(format!("known functions: rationalize(x, tol), abs(x), min(x, y), max(x, y); to multiply, write `{name}*(...)`")),
        }
    }

    fn binary(
        &self,
        e: &Expr,
        op: BinOp,
        l: &Expr,
        r: &Expr,
        a: LinExpr,
        b: LinExpr,
    ) -> Result<LinExpr, Diagnostic> {
        match op {
            BinOp::Add => {
                self.held(e, pairs(&a, &b).map(|(x, y)| arith_bound(Arith::Add, x, y)).max())?;
                Ok(a.add(&b))
            }
            BinOp::Sub => {
                self.held(e, pairs(&a, &b).map(|(x, y)| arith_bound(Arith::Sub, x, y)).max())?;
                Ok(a.sub(&b))
            }
            BinOp::Mul => {
                let (form, c) = if a.is_constant() {
                    (&b, &a.constant)
                } else if b.is_constant() {
                    (&a, &b.constant)
                } else {
                    return Err(self.nonlinear_product(e));
                };
                self.held(e, terms(form).map(|x| arith_bound(Arith::Mul, x, c)).max())?;
                Ok(form.scale(c))
            }
            BinOp::Div => {
                if !b.is_constant() {
                    Err(self
                        .err(r.span.clone(), "division by an expression containing a variable")
                        .with_label("this divisor is not a constant")
                        .with_help("only division by a non-zero constant is linear"))
                } else if b.constant.is_zero() {
                    Err(self.err(r.span.clone(), "division by zero").with_label("this divisor is zero"))
                } else {
                    let r = b.constant.recip();
                    self.held(e, terms(&a).map(|x| arith_bound(Arith::Mul, x, &r)).max())?;
                    Ok(a.scale(&r))
                }
            }
            BinOp::Pow => self.power(e, l, r, a, b),
        }
    }

    /// Refuses, before it is computed, a form whose numbers could pass
    /// `--max-number-digits` (`bound`: an upper bound on their bits).
    fn held(&self, e: &Expr, bound: Option<u64>) -> Result<(), Diagnostic> {
        match bound {
            Some(b) if b > self.limits.number_bits() => {
                let d = DigitsError { digits: Limits::digits_of_bits(b), limit: self.limits.number_digits };
                Err(self
                    .err(e.span.clone(), d.to_string())
                    .with_label(format!("the value of {}", self.text(e))))
            }
            _ => Ok(()),
        }
    }

    /// Error for a product of two non-constant factors, pointing at the
    /// first two non-constant factors of the (unparenthesised) product chain.
    ///
    /// `e` is split into its operands even when it is parenthesised itself:
    /// the factors are then strictly inside `e`, and were all evaluated
    /// without error before `e` was, so evaluating them again here cannot
    /// come back to this product. (Taking `(x*y)` whole as its own only
    /// factor re-evaluated it, recursing without end: fuzzing found this
    /// as a stack overflow.)
    fn nonlinear_product(&self, e: &Expr) -> Diagnostic {
        let mut factors = Vec::new();
        if let ExprKind::Bin(BinOp::Mul, l, r) = &e.kind {
            flatten_product(l, &mut factors);
            flatten_product(r, &mut factors);
        }
        let var_factors: Vec<&Expr> =
            factors.into_iter().filter(|f| self.go(f).map(|v| !v.is_constant()).unwrap_or(true)).collect();
        let (f1, f2) = match (var_factors.first(), var_factors.get(1)) {
            (Some(f1), Some(f2)) => (*f1, *f2),
            _ => match &e.kind {
                ExprKind::Bin(_, l, r) => (&**l, &**r),
                _ => (e, e),
            },
        };
        self.err(f1.span.start..f2.span.end, "a product of two variables is not linear")
            .with_label(format!("{} * {}", self.text(f1), self.text(f2)))
            .with_help("each term may contain at most one variable, multiplied by constants")
    }

    fn power(&self, e: &Expr, l: &Expr, r: &Expr, base: LinExpr, ex: LinExpr) -> Result<LinExpr, Diagnostic> {
        use crate::num::transcendental::{pow_rational_exact, RootError};
        use crate::num::PowError;
        if !ex.is_constant() {
            return Err(self
                .err(r.span.clone(), "the exponent must be a constant")
                .with_label("this exponent contains a variable"));
        }
        let k = &ex.constant;
        if !base.is_constant() {
            return if k.is_zero() {
                Ok(LinExpr::constant(self.nvars, Rat::one()))
            } else if k.is_one() {
                Ok(base)
            } else {
                Err(self
                    .err(e.span.clone(), "a power of a variable is not linear")
                    .with_label(format!("{} is not a constant", self.text(l)))
                    .with_help("only the powers 0 and 1 of a variable are linear"))
            };
        }
        let power = || format!("{}^{}", self.text(l), self.text(r));
        match pow_rational_exact(&base.constant, k, &self.limits) {
            Ok(Some(p)) => Ok(LinExpr::constant(self.nvars, p)),
            Ok(None) => Err(self
                .err(e.span.clone(), format!("{} is irrational; qe needs exact rational constants", power()))
                .with_label(format!("the exponent is {}", crate::num::fmt_fraction(k)))
                .with_help(IRRATIONAL_HELP)),
            Err(RootError::Pow(PowError::ZeroToNegative)) => Err(self
                .err(e.span.clone(), "zero raised to a negative power")
                .with_label("the base is zero")),
            Err(err @ RootError::Denominator { .. }) => {
                let label = format!("this is {}", crate::num::fmt_fraction(k));
                Err(self.err(r.span.clone(), err.to_string()).with_label(label))
            }
            Err(err) => Err(self.err(e.span.clone(), err.to_string()).with_label(format!(
                "{} ^ {}",
                self.text(l),
                self.text(r)
            ))),
        }
    }
}

/// Help for an irrational constant power in an exact language.
const IRRATIONAL_HELP: &str =
    "a rational power such as 4^(1/2) or (8/27)^(2/3) is exact; otherwise write a rational approximation";

/// The numbers of a linear form: its coefficients and its constant.
fn terms(l: &LinExpr) -> impl Iterator<Item = &Rat> {
    l.coeffs.iter().chain(std::iter::once(&l.constant))
}

/// The numbers of two forms, side by side (a missing coefficient is zero).
fn pairs<'a>(a: &'a LinExpr, b: &'a LinExpr) -> impl Iterator<Item = (&'a Rat, &'a Rat)> {
    static ZERO: std::sync::OnceLock<Rat> = std::sync::OnceLock::new();
    let zero = ZERO.get_or_init(Rat::zero);
    let n = a.coeffs.len().max(b.coeffs.len());
    (0..n)
        .map(move |i| (a.coeffs.get(i).unwrap_or(zero), b.coeffs.get(i).unwrap_or(zero)))
        .chain(std::iter::once((&a.constant, &b.constant)))
}

/// The factors of a chain of `*` (not looking inside parentheses, which
/// show as a span wider than the operands').
fn flatten_product<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match &e.kind {
        ExprKind::Bin(BinOp::Mul, l, r) if e.span == (l.span.start..r.span.end) => {
            flatten_product(l, out);
            flatten_product(r, out);
        }
        _ => out.push(e),
    }
}

/// Number of arguments of the exact functions allowed on constants.
fn exact_function_arity(name: &str) -> Option<usize> {
    match name {
        "rationalize" | "min" | "max" => Some(2),
        "abs" => Some(1),
        _ => None,
    }
}
