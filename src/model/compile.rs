//! The model body compiled for evaluation: names resolved (constants folded
//! in), affinity in the parameters checked once on the tree, so that the
//! evaluation at each data point cannot fail for structural reasons — only
//! for the point's values (division by zero, log2 of a negative number).

use crate::lang::diag::Diagnostic;
use crate::lang::expr::{BinOp, Expr, ExprKind};
use crate::limits::Limits;
use crate::num::small::Small;
use crate::num::transcendental::{self, Func, RootError};
use crate::num::{arith_checked, fmt_fraction, pow_checked, Arith, PowError, Rat};
use num_traits::{One, Signed, Zero};
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

/// What a name means in a model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Binding {
    /// The i-th variable (`p` in `T(p)`).
    Var(usize),
    /// A constant's exact value.
    Const(Rat),
    /// The j-th parameter (0-based).
    Param(usize),
}

/// A function callable in models.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Call {
    /// log2, ln, sqrt, exp: exact when the value is rational, else rounded.
    Trans(Func),
    Abs,
    Min,
    Max,
    Rationalize,
}

impl Call {
    fn lookup(name: &str) -> Option<(Call, usize)> {
        if let Some(f) = Func::from_name(name) {
            return Some((Call::Trans(f), 1));
        }
        Some(match name {
            "abs" => (Call::Abs, 1),
            "min" => (Call::Min, 2),
            "max" => (Call::Max, 2),
            "rationalize" => (Call::Rationalize, 2),
            _ => return None,
        })
    }
}

/// The functions a model may call, for help texts.
pub(crate) const FUNCTIONS: &str =
    "log2(x), ln(x), sqrt(x), exp(x), abs(x), min(x, y), max(x, y), rationalize(x, tol)";

#[derive(Debug, Clone)]
pub(crate) enum NodeKind {
    Num(Rat),
    Var(usize),
    Param(usize),
    Neg(Box<Node>),
    Bin(BinOp, Box<Node>, Box<Node>),
    Call(Call, Vec<Node>),
}

/// A compiled expression node; `params` is true when a parameter occurs in it.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub kind: NodeKind,
    pub span: Range<usize>,
    pub params: bool,
}

/// Why evaluation at a point failed: the sub-expression and what went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalError {
    /// Byte span of the failing sub-expression in the model source.
    pub span: Range<usize>,
    /// What went wrong, e.g. "division by zero".
    pub message: String,
}

/// A value that could not be exact: a function of an argument or a
/// rational power.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Inexact {
    /// `f(x)`: the function and its argument.
    Call(Func, Rat),
    /// `x^k` for a non-integer `k`: the base and the exponent.
    Pow(Rat, Rat),
}

/// Values of functions and powers that could not be exact, recorded while
/// evaluating (so the report can say which numbers are rounded and to what
/// precision).
#[derive(Debug, Clone, Default)]
pub struct EvalLog {
    /// Significant decimal digits for inexact values.
    pub digits: u32,
    /// What was evaluated `-> rounded value`.
    pub inexact: BTreeMap<Inexact, Rat>,
    /// Limits on powers (exponent, digits of the result) and on points.
    pub limits: Limits,
}

impl EvalLog {
    /// A log rounding inexact values to `digits` significant digits.
    pub fn new(digits: u32) -> EvalLog {
        EvalLog { digits, inexact: BTreeMap::new(), limits: Limits::default() }
    }

    /// A log with these settings and nothing recorded.
    pub(crate) fn clone_settings(&self) -> EvalLog {
        EvalLog { digits: self.digits, inexact: BTreeMap::new(), limits: self.limits }
    }
}

/// Compiles `e` with `env` resolving names; `nparams` is the number of
/// parameters. Errors name the sub-expression that makes the model
/// non-affine in its parameters.
pub(crate) fn compile(
    e: &Expr,
    env: &dyn Fn(&str) -> Option<Binding>,
    file: &str,
    source: &str,
    log: &mut EvalLog,
) -> Result<Node, Diagnostic> {
    let err = |span: Range<usize>, msg: String| Diagnostic::new(file, span, msg);
    let text = |e: &Expr| source.get(e.span.clone()).unwrap_or("").to_string();
    let node = |kind: NodeKind, params: bool| Node { kind, span: e.span.clone(), params };
    Ok(match &e.kind {
        ExprKind::Num(r) => node(NodeKind::Num(r.clone()), false),
        ExprKind::Name(n) => match env(n) {
            Some(Binding::Var(i)) => node(NodeKind::Var(i), false),
            Some(Binding::Const(c)) => node(NodeKind::Num(c), false),
            Some(Binding::Param(j)) => node(NodeKind::Param(j), true),
            None => return Err(err(e.span.clone(), format!("unknown name `{n}`"))),
        },
        ExprKind::Neg(x) => {
            let x = compile(x, env, file, source, log)?;
            let p = x.params;
            node(NodeKind::Neg(Box::new(x)), p)
        }
        ExprKind::Call(name, args) => {
            let (call, arity) = Call::lookup(name).ok_or_else(|| {
                err(e.span.clone(), format!("unknown function `{name}`"))
                    .with_label(format!("call of `{name}`"))
                    .with_help(format!("known functions: {FUNCTIONS}; to multiply, write `{name}*(...)`"))
            })?;
            if args.len() != arity {
                return Err(err(
                    e.span.clone(),
                    format!("`{name}` takes {arity} argument{}", if arity == 1 { "" } else { "s" }),
                ));
            }
            let mut cargs = Vec::with_capacity(arity);
            for a in args {
                let c = compile(a, env, file, source, log)?;
                if c.params {
                    return Err(err(
                        a.span.clone(),
                        format!("`{name}` of a parameter is not affine in the parameters"),
                    )
                    .with_label(format!("`{}` contains a parameter", text(a)))
                    .with_help(
                        "a model must be affine in its parameters: T = f0(x) + c1*f1(x) + ... + ck*fk(x)",
                    ));
                }
                cargs.push(c);
            }
            fold(node(NodeKind::Call(call, cargs), false), log)?
        }
        ExprKind::Bin(op, l, r) => {
            let cl = compile(l, env, file, source, log)?;
            let cr = compile(r, env, file, source, log)?;
            let affine_help =
                "a model must be affine in its parameters: T = f0(x) + c1*f1(x) + ... + ck*fk(x)";
            match op {
                BinOp::Mul if cl.params && cr.params => {
                    return Err(err(
                        e.span.clone(),
                        "a product of two parameter terms is not affine in the parameters".into(),
                    )
                    .with_label(format!("`{}` and `{}` both contain parameters", text(l), text(r)))
                    .with_help(affine_help));
                }
                BinOp::Div if cr.params => {
                    return Err(err(
                        r.span.clone(),
                        "a parameter in a divisor is not affine in the parameters".into(),
                    )
                    .with_label(format!("`{}` contains a parameter", text(r)))
                    .with_help(affine_help));
                }
                BinOp::Pow if cr.params => {
                    return Err(err(
                        r.span.clone(),
                        "a parameter in an exponent is not affine in the parameters".into(),
                    )
                    .with_label(format!("`{}` contains a parameter", text(r)))
                    .with_help(affine_help));
                }
                BinOp::Pow if cl.params => {
                    // Only the powers 0 and 1 of a parameter term are affine;
                    // the exponent must then be known without any data.
                    let k = match const_value(&cr, log) {
                        Some(k) => k,
                        None => {
                            return Err(err(
                                r.span.clone(),
                                "the exponent of a parameter term must be a constant".into(),
                            )
                            .with_label("this exponent depends on a variable"))
                        }
                    };
                    return if k.is_zero() {
                        Ok(node(NodeKind::Num(Rat::one()), false))
                    } else if k.is_one() {
                        Ok(Node { span: e.span.clone(), ..cl })
                    } else {
                        Err(err(
                            e.span.clone(),
                            "a power of a parameter term is not affine in the parameters".into(),
                        )
                        .with_label(format!(
                            "`{}` contains a parameter; the exponent is {}",
                            text(l),
                            fmt_fraction(&k)
                        ))
                        .with_help(affine_help))
                    };
                }
                // A constant non-integer exponent is held to --max-exponent
                // when the model is read, not at the first data point.
                BinOp::Pow => match &cr.kind {
                    NodeKind::Num(k) if !k.is_integer() => {
                        transcendental::check_rational_exponent(k, &log.limits)
                            .map_err(|e| err(r.span.clone(), e.to_string()))?;
                    }
                    _ => {}
                },
                _ => {}
            }
            let p = cl.params || cr.params;
            fold(node(NodeKind::Bin(*op, Box::new(cl), Box::new(cr)), p), log)?
        }
    })
}

/// Folds a parameter- and variable-free node into a number (so constant
/// sub-expressions are computed once, and their errors surface at compile time).
fn fold(n: Node, log: &mut EvalLog) -> Result<Node, Diagnostic> {
    if n.params || has_var(&n) {
        return Ok(n);
    }
    // Children are folded first: a constant child that is not a number
    // failed to fold, and so would this node (a chain of 900 huge factors
    // would otherwise be re-evaluated from the start at every link).
    let num = |c: &Node| matches!(c.kind, NodeKind::Num(_));
    let children_folded = match &n.kind {
        NodeKind::Bin(_, l, r) => num(l) && num(r),
        NodeKind::Neg(x) => num(x),
        NodeKind::Call(_, a) => a.iter().all(num),
        _ => true,
    };
    if !children_folded {
        return Ok(n);
    }
    match scalar(&n, &[], log) {
        Ok(v) => Ok(Node { kind: NodeKind::Num(v), span: n.span, params: false }),
        // Leave errors to be reported with the caller's file context.
        Err(_) => Ok(n),
    }
}

fn has_var(n: &Node) -> bool {
    match &n.kind {
        NodeKind::Num(_) => false,
        NodeKind::Var(_) => true,
        NodeKind::Param(_) => false,
        NodeKind::Neg(x) => has_var(x),
        NodeKind::Bin(_, l, r) => has_var(l) || has_var(r),
        NodeKind::Call(_, a) => a.iter().any(has_var),
    }
}

/// The value of a node without variables or parameters, if it has one.
pub(crate) fn const_value(n: &Node, log: &mut EvalLog) -> Option<Rat> {
    if n.params || has_var(n) {
        return None;
    }
    scalar(n, &[], log).ok()
}

fn fail(span: &Range<usize>, message: impl Into<String>) -> EvalError {
    EvalError { span: span.clone(), message: message.into() }
}

/// Value of a parameter-free node at the variable values `x`.
pub(crate) fn scalar(n: &Node, x: &[Rat], log: &mut EvalLog) -> Result<Rat, EvalError> {
    tracked(n, x, log).map(|(v, _)| v)
}

/// [`scalar`] with whether the value depends on a rounded one. A product,
/// quotient or integer power of a rounded value is rounded again to
/// `log.digits` significant digits: its exact value carries no more
/// information than its operands, and keeping it exact multiplies their
/// digits (`log2(p)^7` would have seven times the digits of `log2(p)`, and
/// every exact LP over such rows pays for that length in each pivot).
/// Sums are kept exact: they do not lengthen the operands' denominators.
fn tracked(n: &Node, x: &[Rat], log: &mut EvalLog) -> Result<(Rat, bool), EvalError> {
    Ok(match &n.kind {
        NodeKind::Num(r) => (r.clone(), false),
        NodeKind::Var(i) => {
            (x.get(*i).cloned().ok_or_else(|| fail(&n.span, "internal error: variable has no value"))?, false)
        }
        NodeKind::Param(_) => return Err(fail(&n.span, "internal error: parameter in a scalar expression")),
        NodeKind::Neg(a) => {
            let (v, inexact) = tracked(a, x, log)?;
            (-v, inexact)
        }
        NodeKind::Bin(op, l, r) => {
            let (a, ia) = tracked(l, x, log)?;
            let (b, ib) = tracked(r, x, log)?;
            let op = match op {
                BinOp::Add => Arith::Add,
                BinOp::Sub => Arith::Sub,
                BinOp::Mul => Arith::Mul,
                BinOp::Div if b.is_zero() => return Err(fail(&r.span, "division by zero")),
                BinOp::Div => Arith::Div,
                BinOp::Pow => {
                    let (v, inexact) = power(&a, &b, r, &n.span, log)?;
                    return Ok(rounded_if(v, ia || ib, inexact, log.digits));
                }
            };
            let v = arith_checked(op, &a, &b, &log.limits).map_err(|e| fail(&n.span, e.to_string()))?;
            match op {
                Arith::Add | Arith::Sub => (v, ia || ib),
                _ => rounded_if(v, ia || ib, false, log.digits),
            }
        }
        NodeKind::Call(c, args) => {
            let mut v = Vec::with_capacity(args.len());
            let mut inexact = false;
            for a in args {
                let (value, i) = tracked(a, x, log)?;
                inexact |= i;
                v.push(value);
            }
            let (value, i) = call(*c, &v, n, log)?;
            (value, inexact || i)
        }
    })
}

/// `v` computed from rounded operands (`from_rounded`) is rounded to
/// `digits` significant digits; `rounded` says it already is.
fn rounded_if(v: Rat, from_rounded: bool, rounded: bool, digits: u32) -> (Rat, bool) {
    if from_rounded && !rounded {
        (crate::num::round_sig(&v, digits), true)
    } else {
        (v, from_rounded || rounded)
    }
}

/// Values of functions and rational powers computed so far in this
/// process, by digits: model discovery evaluates the same `p^(5/4)` or
/// `log2(p)` for every form, subset and check, and correctly rounding one
/// costs more than the rest of an evaluation. A value depends only on the
/// function, the argument and the digits, so sharing it changes nothing;
/// whether it was exact is kept, for the log. Bounded: past
/// [`ROUNDED_CAP`] entries new values are not kept.
static ROUNDED: std::sync::LazyLock<std::sync::RwLock<Remembered>> =
    std::sync::LazyLock::new(Default::default);

/// [`ROUNDED`]'s map: (digits, what) → (value, exact).
type Remembered = HashMap<(u32, Inexact), (Rat, bool)>;

/// Most values [`ROUNDED`] keeps (each a few hundred bytes).
const ROUNDED_CAP: usize = 1 << 16;

/// A value computed before (and whether it was exact).
fn recalled(digits: u32, key: &Inexact) -> Option<(Rat, bool)> {
    ROUNDED.read().ok()?.get(&(digits, key.clone())).cloned()
}

/// Keeps a computed value for [`recalled`].
fn keep(digits: u32, key: Inexact, value: &Rat, exact: bool) {
    if let Ok(mut m) = ROUNDED.write() {
        if m.len() < ROUNDED_CAP {
            m.insert((digits, key), (value.clone(), exact));
        }
    }
}

/// `a^b`: exact for an integer `b` ([`pow_checked`]); for a constant
/// rational `b`, exact when the root is rational, else correctly rounded
/// to `log.digits` digits and recorded as inexact (like `sqrt`).
fn power(
    a: &Rat,
    b: &Rat,
    exp: &Node,
    span: &Range<usize>,
    log: &mut EvalLog,
) -> Result<(Rat, bool), EvalError> {
    let pow_error = |e: PowError| match e {
        PowError::ZeroToNegative => fail(span, "zero raised to a negative power"),
        other => fail(span, other.to_string()),
    };
    if b.is_integer() {
        return pow_checked(a, b.numer(), &log.limits).map(|v| (v, false)).map_err(pow_error);
    }
    if has_var(exp) {
        return Err(fail(
            &exp.span,
            format!(
                "the exponent depends on a variable and is {} here; a non-integer exponent must be a constant",
                fmt_fraction(b)
            ),
        ));
    }
    let key = Inexact::Pow(a.clone(), b.clone());
    if let Some(v) = log.inexact.get(&key) {
        return Ok((v.clone(), true));
    }
    if let Some((v, exact)) = recalled(log.digits, &key) {
        if !exact {
            log.inexact.insert(key, v.clone());
        }
        return Ok((v, !exact));
    }
    let r = transcendental::pow_rational(a, b, log.digits, &log.limits).map_err(|e| match e {
        RootError::Pow(p) => pow_error(p),
        RootError::Denominator { .. } => fail(&exp.span, e.to_string()),
        other => fail(span, other.to_string()),
    })?;
    keep(log.digits, key.clone(), &r.value, r.exact);
    if !r.exact {
        log.inexact.insert(key, r.value.clone());
    }
    Ok((r.value, !r.exact))
}

/// `c(v)` and whether its value is rounded.
fn call(c: Call, v: &[Rat], n: &Node, log: &mut EvalLog) -> Result<(Rat, bool), EvalError> {
    let arg = |i: usize| v.get(i).cloned().ok_or_else(|| fail(&n.span, "internal error: missing argument"));
    Ok(match c {
        Call::Abs => (arg(0)?.abs(), false),
        Call::Min => (arg(0)?.min(arg(1)?), false),
        Call::Max => (arg(0)?.max(arg(1)?), false),
        Call::Rationalize => {
            let tol = arg(1)?;
            if tol.is_negative() {
                return Err(fail(&n.span, "the tolerance of `rationalize` must not be negative"));
            }
            (crate::num::rationalize(&arg(0)?, &tol), false)
        }
        Call::Trans(f) => {
            let a = arg(0)?;
            let key = Inexact::Call(f, a.clone());
            if let Some(v) = log.inexact.get(&key) {
                return Ok((v.clone(), true));
            }
            if let Some((v, exact)) = recalled(log.digits, &key) {
                if !exact {
                    log.inexact.insert(key, v.clone());
                }
                return Ok((v, !exact));
            }
            let r = transcendental::apply(f, &a, log.digits).map_err(|e| fail(&n.span, e.to_string()))?;
            keep(log.digits, key.clone(), &r.value, r.exact);
            if !r.exact {
                log.inexact.insert(key, r.value.clone());
            }
            (r.value, !r.exact)
        }
    })
}

/// Value of any node at `x` as the affine form `[f0, f1, .., fk]`
/// (`f0 + Σ c_j f_j`), for `k` parameters.
pub(crate) fn affine(n: &Node, x: &[Rat], k: usize, log: &mut EvalLog) -> Result<Vec<Rat>, EvalError> {
    if let Some(v) = affine_fast(n, x, k, &log.limits) {
        return Ok(v);
    }
    affine_tracked(n, x, k, log).map(|(v, _)| v)
}

/// [`affine`] in 128-bit rationals ([`Small`]), when the point's values
/// are short and the body has no function and no fractional power (HPL's
/// `a*(1/p + c1 + c2*(p-1)^2)` at 10^6 integer points): the same exact
/// values, without a big-integer operation. `None` sends the caller to the
/// general path, which also reports every error (a division by zero, a
/// limit). Under limits of fewer than 512 bits per number a value this
/// path can form might pass the limit, so the general path decides.
fn affine_fast(n: &Node, x: &[Rat], k: usize, limits: &Limits) -> Option<Vec<Rat>> {
    Some(affine_words(n, x, k, limits)?.into_iter().map(Small::to_rat).collect())
}

/// Whether [`affine_fast`] evaluates `n` at `x` (then [`affine`] succeeds
/// there with those values), without forming the values as big rationals:
/// the check of 10^6 streamed points before anything is written.
pub(crate) fn evaluates_fast(n: &Node, x: &[Rat], k: usize, limits: &Limits) -> bool {
    affine_words(n, x, k, limits).is_some()
}

/// Whether [`affine`] succeeds at every point whose variables lie in
/// `within` (per variable: least and greatest value, and a bound on any
/// value's size in bits), decided once for the whole box with exact
/// interval arithmetic: no divisor's interval holds zero, no power's
/// exponent is past the limit, and no sum, product or power can pass the
/// number limit. `false` means "not shown" (a function, a fractional power,
/// an interval that holds zero), and the caller checks point by point. A
/// million streamed points of a model like HPL's are then checked in one
/// step instead of a million evaluations.
pub(crate) fn evaluates_within(n: &Node, within: &[VarBox], limits: &Limits) -> bool {
    if !n.params {
        return span_within(n, within, limits).is_some();
    }
    match &n.kind {
        NodeKind::Param(_) => true,
        NodeKind::Neg(a) => evaluates_within(a, within, limits),
        NodeKind::Bin(BinOp::Add | BinOp::Sub, l, r) => {
            evaluates_within(l, within, limits) && evaluates_within(r, within, limits)
        }
        NodeKind::Bin(BinOp::Mul, l, r) => {
            let (s, v) = if l.params { (r, l) } else { (l, r) };
            span_within(s, within, limits).is_some() && evaluates_within(v, within, limits)
        }
        NodeKind::Bin(BinOp::Div, l, r) => {
            span_within(r, within, limits).is_some_and(|s| s.excludes_zero())
                && evaluates_within(l, within, limits)
        }
        _ => false,
    }
}

/// One variable's values over a set of points: `lo ≤ x ≤ hi`, and
/// `bits_of(x) ≤ bits` ([`crate::num::bits_of`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct VarBox {
    /// The least value.
    pub lo: Rat,
    /// The greatest value.
    pub hi: Rat,
    /// A bound on any value's numerator and denominator bits together.
    pub bits: u64,
}

impl VarBox {
    /// The smallest box holding both.
    pub(crate) fn hull(self, o: VarBox) -> VarBox {
        VarBox { lo: self.lo.min(o.lo), hi: self.hi.max(o.hi), bits: self.bits.max(o.bits) }
    }
}

/// A parameter-free node's values over a box: within `[lo, hi]` (every
/// variable's box is bounded, so every node's is), each of at most `bits`
/// bits.
struct Span {
    lo: Rat,
    hi: Rat,
    bits: u64,
}

impl Span {
    fn excludes_zero(&self) -> bool {
        self.lo.is_positive() || self.hi.is_negative()
    }

    /// The least and greatest products of the two spans' ends.
    fn product(a: &Span, b: (&Rat, &Rat)) -> (Rat, Rat) {
        let ps = [&a.lo * b.0, &a.lo * b.1, &a.hi * b.0, &a.hi * b.1];
        (ps.iter().min().cloned().unwrap_or_default(), ps.iter().max().cloned().unwrap_or_default())
    }
}

/// What [`tracked`] gives over the box, when it succeeds at every point
/// of it without a rounded value; `None` when that is not shown.
fn span_within(n: &Node, within: &[VarBox], limits: &Limits) -> Option<Span> {
    let limit = limits.number_bits();
    Some(match &n.kind {
        NodeKind::Num(r) => Span { lo: r.clone(), hi: r.clone(), bits: crate::num::bits_of(r) },
        NodeKind::Var(i) => {
            let v = within.get(*i)?;
            Span { lo: v.lo.clone(), hi: v.hi.clone(), bits: v.bits }
        }
        NodeKind::Neg(a) => {
            let a = span_within(a, within, limits)?;
            Span { lo: -a.hi, hi: -a.lo, bits: a.bits }
        }
        NodeKind::Bin(BinOp::Pow, l, r) => {
            // An integer constant exponent only (a fractional one rounds).
            if has_var(r) {
                return None;
            }
            let e = span_within(r, within, limits)?;
            let e = Some(e.lo).filter(|lo| *lo == e.hi && lo.is_integer())?.to_integer();
            let m = num_traits::ToPrimitive::to_u64(&num_traits::Signed::abs(&e))
                .filter(|&m| m <= limits.exponent)?;
            let b = span_within(l, within, limits)?;
            // Each part of x^m has at most m times the bits of x's (x^0 = 1: 2 bits).
            let bits = b.bits.checked_mul(m)?.max(2);
            if bits > limit || (e.is_negative() && !b.excludes_zero()) {
                return None;
            }
            let m = u32::try_from(m).ok()?;
            // x ↦ x^m over [lo, hi] (of 1/x for a negative exponent, where
            // the interval holds no zero).
            let (lo, hi) = if e.is_negative() { (b.hi.recip(), b.lo.recip()) } else { (b.lo, b.hi) };
            let pow = |x: &Rat| num_traits::Pow::pow(x, m);
            let (lo, hi) = if m == 0 {
                (Rat::one(), Rat::one())
            } else if !lo.is_negative() || m % 2 == 1 {
                // Increasing: from zero on, or an odd power.
                (pow(&lo), pow(&hi))
            } else if !hi.is_positive() {
                (pow(&hi), pow(&lo))
            } else {
                (Rat::zero(), pow(&lo).max(pow(&hi)))
            };
            Span { lo, hi, bits }
        }
        NodeKind::Bin(op, l, r) => {
            let (a, b) = (span_within(l, within, limits)?, span_within(r, within, limits)?);
            // arith_checked refuses nothing whose operands' bits, plus one,
            // stay within the limit.
            if a.bits.checked_add(b.bits)?.checked_add(1)? > limit {
                return None;
            }
            // A product or quotient has at most its operands' bits. A sum
            // n1/d1 + n2/d2 = (n1·d2 + n2·d1)/(d1·d2) has at most
            // max(|n1|+|d2|, |n2|+|d1|) + 1 + |d1| + |d2| bits, below
            // A + B + max(A, B) + 1 for operands of A and B bits.
            let bits = match op {
                BinOp::Add | BinOp::Sub => a.bits + b.bits + a.bits.max(b.bits) + 1,
                _ => a.bits + b.bits,
            };
            let (lo, hi) = match op {
                BinOp::Add => (&a.lo + &b.lo, &a.hi + &b.hi),
                BinOp::Sub => (&a.lo - &b.hi, &a.hi - &b.lo),
                BinOp::Mul => Span::product(&a, (&b.lo, &b.hi)),
                // 1/x over [lo, hi] without zero is [1/hi, 1/lo].
                BinOp::Div if b.excludes_zero() => Span::product(&a, (&b.hi.recip(), &b.lo.recip())),
                BinOp::Div | BinOp::Pow => return None,
            };
            Span { lo, hi, bits }
        }
        NodeKind::Param(_) | NodeKind::Call(..) => return None,
    })
}

/// [`affine_fast`]'s values, in [`Small`]s.
fn affine_words(n: &Node, x: &[Rat], k: usize, limits: &Limits) -> Option<Vec<Small>> {
    if limits.number_bits() < 512 {
        return None;
    }
    let x: Vec<Small> = x.iter().map(Small::of).collect::<Option<_>>()?;
    let max_exp = limits.exponent.min(127) as u32;
    affine_small(n, &x, k, max_exp)
}

fn affine_small(n: &Node, x: &[Small], k: usize, max_exp: u32) -> Option<Vec<Small>> {
    let mut v = vec![Small::int(0); k + 1];
    if !n.params {
        v[0] = scalar_small(n, x, max_exp)?;
        return Some(v);
    }
    match &n.kind {
        NodeKind::Param(j) => {
            if let Some(s) = v.get_mut(j + 1) {
                *s = Small::int(1);
            }
            Some(v)
        }
        NodeKind::Neg(a) => affine_small(a, x, k, max_exp)?.into_iter().map(Small::neg).collect(),
        NodeKind::Bin(op @ (BinOp::Add | BinOp::Sub), l, r) => {
            let (a, b) = (affine_small(l, x, k, max_exp)?, affine_small(r, x, k, max_exp)?);
            a.into_iter().zip(b).map(|(p, q)| if *op == BinOp::Sub { p.sub(q) } else { p.add(q) }).collect()
        }
        NodeKind::Bin(BinOp::Mul, l, r) => {
            let (s, v) = if l.params {
                (scalar_small(r, x, max_exp)?, affine_small(l, x, k, max_exp)?)
            } else {
                (scalar_small(l, x, max_exp)?, affine_small(r, x, k, max_exp)?)
            };
            v.into_iter().map(|t| t.mul(s)).collect()
        }
        NodeKind::Bin(BinOp::Div, l, r) => {
            let s = scalar_small(r, x, max_exp)?;
            affine_small(l, x, k, max_exp)?.into_iter().map(|t| t.div(s)).collect()
        }
        _ => None,
    }
}

/// [`scalar`] in [`Small`]s, as [`affine_small`] (no functions, integer
/// powers only).
fn scalar_small(n: &Node, x: &[Small], max_exp: u32) -> Option<Small> {
    match &n.kind {
        NodeKind::Num(r) => Small::of(r),
        NodeKind::Var(i) => x.get(*i).copied(),
        NodeKind::Neg(a) => scalar_small(a, x, max_exp)?.neg(),
        NodeKind::Bin(op, l, r) => {
            let (a, b) = (scalar_small(l, x, max_exp)?, scalar_small(r, x, max_exp)?);
            match op {
                BinOp::Add => a.add(b),
                BinOp::Sub => a.sub(b),
                BinOp::Mul => a.mul(b),
                BinOp::Div => a.div(b),
                BinOp::Pow => a.pow(b.integer()?, max_exp),
            }
        }
        NodeKind::Param(_) | NodeKind::Call(..) => None,
    }
}

/// [`affine`] with whether any coefficient depends on a rounded value;
/// products and quotients with rounded values are rounded as in [`tracked`],
/// so a term's coefficient is the same whichever way the product associates.
fn affine_tracked(n: &Node, x: &[Rat], k: usize, log: &mut EvalLog) -> Result<(Vec<Rat>, bool), EvalError> {
    if !n.params {
        let mut v = vec![Rat::zero(); k + 1];
        let (s, inexact) = tracked(n, x, log)?;
        v[0] = s;
        return Ok((v, inexact));
    }
    let digits = log.digits;
    let scaled = |v: Vec<Rat>, s: &Rat, inexact: bool, div: bool| -> Vec<Rat> {
        v.iter()
            .map(|t| {
                let p = if div { crate::num::div(t, s) } else { crate::num::mul(t, s) };
                if inexact {
                    crate::num::round_sig(&p, digits)
                } else {
                    p
                }
            })
            .collect()
    };
    Ok(match &n.kind {
        NodeKind::Param(j) => {
            let mut v = vec![Rat::zero(); k + 1];
            if let Some(s) = v.get_mut(j + 1) {
                *s = Rat::one();
            }
            (v, false)
        }
        NodeKind::Neg(a) => {
            let (v, inexact) = affine_tracked(a, x, k, log)?;
            (v.into_iter().map(|t| -t).collect(), inexact)
        }
        NodeKind::Bin(op, l, r) => match op {
            BinOp::Add | BinOp::Sub => {
                let (a, ia) = affine_tracked(l, x, k, log)?;
                let (b, ib) = affine_tracked(r, x, k, log)?;
                let sub = *op == BinOp::Sub;
                let v = a
                    .iter()
                    .zip(&b)
                    .map(|(p, q)| if sub { crate::num::sub_lowest(p, q) } else { crate::num::add(p, q) })
                    .collect();
                (v, ia || ib)
            }
            BinOp::Mul => {
                let ((s, is), (v, iv)) = if l.params {
                    (tracked(r, x, log)?, affine_tracked(l, x, k, log)?)
                } else {
                    (tracked(l, x, log)?, affine_tracked(r, x, k, log)?)
                };
                (scaled(v, &s, is || iv, false), is || iv)
            }
            BinOp::Div => {
                let (s, is) = tracked(r, x, log)?;
                if s.is_zero() {
                    return Err(fail(&r.span, "division by zero"));
                }
                let (v, iv) = affine_tracked(l, x, k, log)?;
                (scaled(v, &s, is || iv, true), is || iv)
            }
            // compile() removed powers of parameter terms.
            BinOp::Pow => return Err(fail(&n.span, "internal error: power of a parameter term")),
        },
        _ => return Err(fail(&n.span, "internal error: unexpected parameter term")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Model;
    use proptest::prelude::*;

    /// Bodies the 128-bit path takes whole, and ones it must leave to the
    /// general path (a function, a fractional power).
    const FAST: [&str; 6] = [
        "T(p) = a * (1/p + c1 + c2*(p - 1)^2)\nconst a = 26022\nparam c1, c2",
        "T(p) = c0 + c1*p + c2*p^2 - c3/p^3\nparam c0, c1, c2, c3",
        "T(p, q) = (c0 + c1*p*q) / (q - 3/7) - c2*(p/q)^-2\nparam c0, c1, c2",
        "T(x) = -(c0 - c1*x)*x^0 + 2^x*c2\nparam c0, c1, c2",
        "T(p) = c0*(p - 1)^127\nparam c0",
        "T(p) = c0 + c1/(p - 5)\nparam c0, c1",
    ];
    const SLOW: [&str; 2] = ["T(p) = c0 + c1*log2(p)\nparam c0, c1", "T(p) = c0 + c1*p^(1/2)\nparam c0, c1"];

    fn body(src: &str) -> (Node, usize) {
        let m = Model::parse(src, "t.tm", 40).unwrap();
        let k = m.k();
        (m.body, k)
    }

    proptest! {
        /// Where the 128-bit path answers it gives the general path's exact
        /// values; where the general path fails (a division by zero, an
        /// overflow into long numbers) it does not answer.
        #[test]
        fn fast_basis_is_the_general_one(
            which in 0..FAST.len(),
            xs in proptest::collection::vec((-2_000_000i64..2_000_000, 1i64..50), 2),
        ) {
            let (n, k) = body(FAST[which]);
            let x: Vec<Rat> = xs.iter().map(|&(a, b)| Rat::new(a.into(), b.into())).collect();
            let mut log = EvalLog::new(40);
            let slow = affine_tracked(&n, &x, k, &mut log).map(|(v, _)| v);
            match affine_fast(&n, &x, k, &log.limits) {
                Some(v) => prop_assert_eq!(Ok(v), slow),
                None => prop_assert!(slow.is_err() || xs.iter().any(|&(a, _)| a.unsigned_abs() > 1000) || which == 4),
            }
        }
    }

    /// Models for the box certificate: the fast ones, the slow ones, a
    /// zero divisor inside the box or not, powers that reach a limit.
    const BOXED: [&str; 5] = [
        "T(p, q) = c0 + c1/((p - 3)*(q + 2))\nparam c0, c1",
        "T(p, q) = c0*p^20 + c1*q^-3\nparam c0, c1",
        "T(p, q) = c0 + c1/(p^2 - q^2 + 1/3)\nparam c0, c1",
        "T(p, q) = (c0 - c1*p/q)*(p - q)^2 + 7/(p + 1/2)\nparam c0, c1",
        "T(p, q) = c0 + c1*(1/p - 1/q)^5\nparam c0, c1",
    ];

    proptest! {
        /// Where the box certificate says yes, the general path succeeds
        /// at every point in the box (tight limits included, so that the
        /// bits bound is what decides).
        #[test]
        fn the_box_certificate_is_never_wrong(
            which in 0..(FAST.len() + SLOW.len() + BOXED.len()),
            pts in proptest::collection::vec(((-60i64..60, 1i64..6), (-60i64..60, 1i64..6)), 1..12),
            digits in prop_oneof![Just(4000usize), 10usize..120],
            positive in proptest::bool::ANY,
        ) {
            // Half the boxes away from zero, where most models are shown.
            let pts: Vec<((i64, i64), (i64, i64))> = if positive {
                pts.iter().map(|&((a, b), (c, d))| ((a.abs() + 1, b), (c.abs() + 1, d))).collect()
            } else {
                pts
            };
            let src = [&FAST[..], &SLOW[..], &BOXED[..]].concat()[which];
            let m = Model::parse(src, "t.tm", 40).unwrap();
            let k = m.k();
            let nv = m.vars.len();
            let q = |(n, d): (i64, i64)| Rat::new(n.into(), d.into());
            let points: Vec<Vec<Rat>> = pts.iter().map(|&(a, b)| [q(a), q(b)][..nv].to_vec()).collect();
            let within: Vec<VarBox> = (0..nv)
                .map(|j| VarBox {
                    lo: points.iter().map(|x| x[j].clone()).min().unwrap(),
                    hi: points.iter().map(|x| x[j].clone()).max().unwrap(),
                    bits: points.iter().map(|x| crate::num::bits_of(&x[j])).max().unwrap(),
                })
                .collect();
            let limits = Limits { number_digits: digits, ..Limits::default() };
            if evaluates_within(&m.body, &within, &limits) {
                // Every point of the box, not only the sampled ones: its
                // corners and the sampled points.
                let mut log = EvalLog::new(40);
                log.limits = limits;
                let corners: Vec<Vec<Rat>> = (0..1usize << nv)
                    .map(|c| (0..nv).map(|j| if c >> j & 1 == 1 { within[j].hi.clone() } else { within[j].lo.clone() }).collect())
                    .collect();
                for x in points.iter().chain(&corners) {
                    let r = affine_tracked(&m.body, x, k, &mut log);
                    prop_assert!(r.is_ok(), "{src} at {x:?}: {r:?}");
                }
            }
        }
    }

    #[test]
    fn the_box_certificate_decides_what_it_can() {
        let int = |n: i64| Rat::from_integer(n.into());
        let boxed = |lo: i64, hi: i64| VarBox { lo: int(lo), hi: int(hi), bits: 64 };
        let yes = |src: &str, b: &[VarBox]| evaluates_within(&body(src).0, b, &Limits::default());
        // HPL over 1..10^6: shown at once.
        assert!(yes(FAST[0], &[boxed(1, 1_000_000)]));
        // 1/p with p = 0 in the box, 1/(p - 5) with 5 in it: not shown.
        assert!(!yes(FAST[0], &[boxed(0, 10)]));
        assert!(yes(FAST[5], &[boxed(6, 10)]) && !yes(FAST[5], &[boxed(1, 10)]));
        // A function or a fractional power: not shown.
        for src in SLOW {
            assert!(!yes(src, &[boxed(1, 10)]), "{src}");
        }
        // Past the number limit: p^127 of 64-bit values is shown under the
        // default limit, not under 100 digits; an exponent past the limit
        // is not shown.
        assert!(yes(FAST[4], &[boxed(1, 10)]));
        let (n, _) = body(FAST[4]);
        assert!(!evaluates_within(&n, &[boxed(1, 10)], &Limits { number_digits: 100, ..Limits::default() }));
        assert!(!evaluates_within(&n, &[boxed(1, 10)], &Limits { exponent: 100, ..Limits::default() }));
    }

    #[test]
    fn the_fast_path_is_taken_and_left_where_it_must_be() {
        let x = [Rat::from_integer(2.into()), Rat::from_integer(7.into())];
        for src in FAST {
            let (n, k) = body(src);
            assert!(affine_fast(&n, &x, k, &Limits::default()).is_some(), "{src}");
            // A limit under two words per number: the general path decides.
            let tight = Limits { number_digits: 100, ..Limits::default() };
            assert!(affine_fast(&n, &x, k, &tight).is_none(), "{src}");
        }
        for src in SLOW {
            let (n, k) = body(src);
            assert!(affine_fast(&n, &x, k, &Limits::default()).is_none(), "{src}");
        }
        // A zero divisor, a zero to a negative power, a power past the
        // limit, a value past two words: left to the general path, which
        // reports them.
        let (n, k) = body(FAST[5]);
        assert!(affine_fast(&n, &[Rat::from_integer(5.into())], k, &Limits::default()).is_none());
        let (n, k) = body(FAST[2]);
        let zero = [Rat::from_integer(0.into()), Rat::from_integer(7.into())];
        assert!(affine_fast(&n, &zero, k, &Limits::default()).is_none());
        let (n, k) = body(FAST[4]);
        assert!(affine_fast(&n, &[Rat::from_integer(3.into())], k, &Limits::default()).is_none());
        let few = Limits { exponent: 100, ..Limits::default() };
        assert!(affine_fast(&n, &[Rat::from_integer(2.into())], k, &few).is_none());
        assert!(affine_fast(&n, &[Rat::from_integer(2.into())], k, &Limits::default()).is_some());
    }
}
