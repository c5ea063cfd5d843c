//! Arithmetic expressions: the syntax tree shared by every errband input
//! language ([`Expr`]), its operators and precedence, and its canonical
//! printing. [`super::parser`] builds trees; [`super::linearize`] turns
//! them into exact affine forms.

use super::lexer::Tok;
use crate::num::Rat;
use num_traits::Signed;
use std::fmt;
use std::ops::Range;

/// Deepest nesting (parentheses, prefix signs, `^` chains, call arguments)
/// the parser accepts, so that hostile input cannot overflow the stack.
pub const MAX_NESTING: usize = 64;

/// Deepest expression tree the parser builds (a sum of `n` terms is `n`
/// deep), so that recursive consumers of [`Expr`] (drop, clone, printing)
/// stay within the stack.
pub const MAX_EXPR_DEPTH: usize = 1000;

/// A binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `^` (right-associative)
    Pow,
}

impl BinOp {
    /// The operator text.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Pow => "^",
        }
    }

    /// Left and right binding power (higher binds tighter).
    pub(crate) fn binding_power(self) -> (u8, u8) {
        match self {
            BinOp::Add | BinOp::Sub => (1, 2),
            BinOp::Mul | BinOp::Div => (3, 4),
            BinOp::Pow => (8, 7),
        }
    }

    pub(crate) fn from_tok(t: &Tok) -> Option<BinOp> {
        Some(match t {
            Tok::Plus => BinOp::Add,
            Tok::Minus => BinOp::Sub,
            Tok::Star => BinOp::Mul,
            Tok::Slash => BinOp::Div,
            Tok::Caret => BinOp::Pow,
            _ => return None,
        })
    }
}

/// Binding power of the operand of a prefix `-` (or `+`): below `^`, above
/// `*`, so `-x^2` is `-(x^2)` and `-x*y` is `(-x)*y`.
pub(crate) const PREFIX_BP: u8 = 5;

/// The shape of an expression node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExprKind {
    /// An exact number literal.
    Num(Rat),
    /// A name (constant, variable or parameter, depending on the language).
    Name(String),
    /// `-e`
    Neg(Box<Expr>),
    /// `l op r`
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// `f(args)`
    Call(String, Vec<Expr>),
}

/// An expression with the byte span of its source text (parentheses around
/// it included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expr {
    /// The node.
    pub kind: ExprKind,
    /// Byte offsets of its text.
    pub span: Range<usize>,
}

impl Expr {
    /// A node with its span.
    pub fn new(kind: ExprKind, span: Range<usize>) -> Self {
        Expr { kind, span }
    }

    /// Every name used as a value (not as a function name), in source order,
    /// with its span; repeated names appear repeatedly.
    pub fn names(&self) -> Vec<(&str, Range<usize>)> {
        let mut out = Vec::new();
        self.collect_names(&mut out);
        out
    }

    fn collect_names<'e>(&'e self, out: &mut Vec<(&'e str, Range<usize>)>) {
        match &self.kind {
            ExprKind::Num(_) => {}
            ExprKind::Name(n) => out.push((n, self.span.clone())),
            ExprKind::Neg(e) => e.collect_names(out),
            ExprKind::Bin(_, l, r) => {
                l.collect_names(out);
                r.collect_names(out);
            }
            ExprKind::Call(_, args) => args.iter().for_each(|a| a.collect_names(out)),
        }
    }

    pub(crate) fn prec(&self) -> u8 {
        match &self.kind {
            ExprKind::Bin(op, ..) => op.binding_power().0,
            ExprKind::Neg(_) => PREFIX_BP,
            ExprKind::Num(r) if !r.is_integer() => 3, // printed as p/q
            ExprKind::Num(r) if r.is_negative() => PREFIX_BP,
            _ => 10,
        }
    }
}

/// Infix text with the parentheses precedence needs (numbers as exact
/// fractions), e.g. `a*(1/10 + dc1)`.
impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn sub(f: &mut fmt::Formatter<'_>, e: &Expr, need_parens: bool) -> fmt::Result {
            if need_parens {
                write!(f, "({e})")
            } else {
                write!(f, "{e}")
            }
        }
        match &self.kind {
            ExprKind::Num(r) => write!(f, "{}", crate::num::fmt_fraction(r)),
            ExprKind::Name(n) => f.write_str(n),
            ExprKind::Neg(e) => {
                f.write_str("-")?;
                sub(f, e, e.prec() <= PREFIX_BP)
            }
            ExprKind::Bin(op, l, r) => {
                let (lbp, rbp) = op.binding_power();
                // Left operand: needs parens when it binds looser than `op`
                // (or equally, for the right-associative `^`).
                let lp = if *op == BinOp::Pow { l.prec() <= lbp } else { l.prec() < lbp };
                sub(f, l, lp)?;
                let sep = if matches!(op, BinOp::Add | BinOp::Sub) { " " } else { "" };
                write!(f, "{sep}{}{sep}", op.symbol())?;
                let rp =
                    if *op == BinOp::Pow { r.prec() < lbp && r.prec() != PREFIX_BP } else { r.prec() < rbp };
                sub(f, r, rp)
            }
            ExprKind::Call(name, args) => {
                write!(f, "{name}(")?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{a}")?;
                }
                f.write_str(")")
            }
        }
    }
}
