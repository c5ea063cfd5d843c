//! Arithmetic expressions: the AST, a token cursor with a Pratt parser shared
//! by every errband input language, and exact linearisation of an
//! expression into an affine form ([`LinExpr`]) with located errors for
//! anything non-linear.

use super::diag::Diagnostic;
use super::lexer::{Lexer, Tok, Token};
use crate::limits::Limits;
use crate::linear::{LinExpr, VarId};
use crate::num::{arith_bound, parse_rat_with, Arith, DigitsError, Rat};
use num_traits::{One, Signed, Zero};
use std::collections::VecDeque;
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
    fn binding_power(self) -> (u8, u8) {
        match self {
            BinOp::Add | BinOp::Sub => (1, 2),
            BinOp::Mul | BinOp::Div => (3, 4),
            BinOp::Pow => (8, 7),
        }
    }

    fn from_tok(t: &Tok) -> Option<BinOp> {
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
const PREFIX_BP: u8 = 5;

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

    fn prec(&self) -> u8 {
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

/// A cursor over a token list, with the shared expression parser.
///
/// The token list always ends with [`Tok::Eof`]; reading past it keeps
/// returning `Eof`. Identifiers registered as keywords (see
/// [`Parser::with_keywords`]) are never parsed as names inside expressions.
#[derive(Debug, Clone)]
pub struct Parser<'a> {
    tokens: Tokens<'a>,
    file: &'a str,
    source: &'a str,
    keywords: &'a [&'a str],
    depth: usize,
    limits: Limits,
}

/// Where a parser's tokens come from.
#[derive(Debug, Clone)]
enum Tokens<'a> {
    /// Lexed up front (a model statement's tokens); `pos` is the current one.
    Lexed { tokens: Vec<Token>, pos: usize },
    /// Lexed on demand, so memory holds a few tokens, not the file's:
    /// `ahead[0]` is the current token, followed by up to [`LOOKAHEAD`]
    /// more (fewer only at `Eof` or at a lexing error, kept in `error`).
    Lazy { lexer: Lexer<'a>, ahead: VecDeque<Token>, error: Option<Diagnostic> },
}

/// Tokens a parser may look past the current one ([`Parser::peek_nth`]).
const LOOKAHEAD: usize = 2;

const EOF: Token = Token { tok: Tok::Eof, span: 0..0 };

impl Tokens<'_> {
    /// Lexes ahead until `LOOKAHEAD` tokens follow the current one, or the
    /// last is `Eof` or an error.
    fn fill(&mut self) {
        if let Tokens::Lazy { lexer, ahead, error } = self {
            while ahead.len() <= LOOKAHEAD
                && !matches!(ahead.back(), Some(t) if matches!(t.tok, Tok::Eof | Tok::Invalid))
            {
                match lexer.next_token() {
                    Ok(t) => ahead.push_back(t),
                    Err(d) => {
                        ahead.push_back(Token { tok: Tok::Invalid, span: d.span.clone() });
                        *error = Some(d);
                    }
                }
            }
        }
    }

    fn nth(&self, n: usize) -> &Token {
        match self {
            Tokens::Lexed { tokens, pos } => tokens.get(pos + n).or(tokens.last()).unwrap_or(&EOF),
            Tokens::Lazy { ahead, .. } => ahead.get(n).or(ahead.back()).unwrap_or(&EOF),
        }
    }
}

impl<'a> Parser<'a> {
    /// A cursor at the first token of `source`, lexing on demand; fails
    /// when the first token cannot be lexed.
    pub fn new(source: &'a str, file: &'a str) -> Result<Self, Diagnostic> {
        let mut tokens =
            Tokens::Lazy { lexer: Lexer::new(source, file), ahead: VecDeque::new(), error: None };
        tokens.fill();
        if let Tokens::Lazy { ahead, error: Some(d), .. } = &tokens {
            if ahead.len() == 1 {
                return Err(d.clone());
            }
        }
        Ok(Self::with_tokens(tokens, source, file))
    }

    /// A cursor over already-lexed tokens of `source` (an `Eof` token is
    /// appended when missing).
    pub fn from_tokens(mut tokens: Vec<Token>, source: &'a str, file: &'a str) -> Self {
        if tokens.last().map(|t| &t.tok) != Some(&Tok::Eof) {
            tokens.push(Token { tok: Tok::Eof, span: source.len()..source.len() });
        }
        Self::with_tokens(Tokens::Lexed { tokens, pos: 0 }, source, file)
    }

    fn with_tokens(tokens: Tokens<'a>, source: &'a str, file: &'a str) -> Self {
        Parser { tokens, file, source, keywords: &[], depth: 0, limits: Limits::default() }
    }

    /// Declares reserved words: they end an expression instead of being read
    /// as names (`x < 1 and y < 2`).
    pub fn with_keywords(mut self, keywords: &'a [&'a str]) -> Self {
        self.keywords = keywords;
        self
    }

    /// Sets the limits on literals (digits, exponent); the default is
    /// [`Limits::default`].
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// True when `word` is a declared keyword.
    pub fn is_keyword(&self, word: &str) -> bool {
        self.keywords.contains(&word)
    }

    /// The file name used in diagnostics.
    pub fn file(&self) -> &'a str {
        self.file
    }

    /// The source text.
    pub fn source(&self) -> &'a str {
        self.source
    }

    /// The source text of `span` (empty if the span is not valid).
    pub fn text(&self, span: &Range<usize>) -> &'a str {
        self.source.get(span.clone()).unwrap_or("")
    }

    /// Current position, for backtracking with [`Parser::restore`].
    pub fn position(&self) -> usize {
        match &self.tokens {
            Tokens::Lexed { pos, .. } => *pos,
            // The current token's start: lexing resumes there.
            Tokens::Lazy { .. } => self.peek_token().span.start,
        }
    }

    /// Goes back to a position returned by [`Parser::position`].
    pub fn restore(&mut self, position: usize) {
        match &mut self.tokens {
            Tokens::Lexed { tokens, pos } => *pos = position.min(tokens.len() - 1),
            Tokens::Lazy { lexer, ahead, error } => {
                if ahead.front().is_some_and(|t| t.span.start == position) {
                    return;
                }
                lexer.seek(position);
                ahead.clear();
                *error = None;
                self.tokens.fill();
            }
        }
    }

    /// The current token.
    pub fn peek_token(&self) -> &Token {
        self.tokens.nth(0)
    }

    /// The current token's kind.
    pub fn peek(&self) -> &Tok {
        &self.peek_token().tok
    }

    /// The kind of the token `n` places ahead (`Eof` past the end); `n` is
    /// at most 2.
    pub fn peek_nth(&self, n: usize) -> &Tok {
        debug_assert!(n <= LOOKAHEAD);
        &self.tokens.nth(n).tok
    }

    /// Returns the current token and advances (never past `Eof` or an
    /// unlexable character).
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Token {
        match &mut self.tokens {
            Tokens::Lexed { tokens, pos } => {
                let t = tokens.get(*pos).or(tokens.last()).cloned().unwrap_or(EOF);
                if *pos + 1 < tokens.len() {
                    *pos += 1;
                }
                t
            }
            Tokens::Lazy { ahead, .. } => {
                let t = match ahead.front() {
                    Some(t) if matches!(t.tok, Tok::Eof | Tok::Invalid) => t.clone(),
                    _ => ahead.pop_front().unwrap_or(EOF),
                };
                self.tokens.fill();
                t
            }
        }
    }

    /// True at the end of input.
    pub fn at_eof(&self) -> bool {
        *self.peek() == Tok::Eof
    }

    /// Advances past the current token when it is `tok`.
    pub fn eat(&mut self, tok: &Tok) -> bool {
        if self.peek() == tok {
            self.next();
            true
        } else {
            false
        }
    }

    /// Consumes `tok` or fails with "expected `tok`, found ...".
    pub fn expect(&mut self, tok: &Tok) -> Result<Token, Diagnostic> {
        if self.peek() == tok {
            Ok(self.next())
        } else {
            Err(self.unexpected(&tok.describe()))
        }
    }

    /// True when the current token is the identifier `word`.
    pub fn at_ident(&self, word: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == word)
    }

    /// Advances past the identifier `word` when it is current.
    pub fn eat_ident(&mut self, word: &str) -> bool {
        if self.at_ident(word) {
            self.next();
            true
        } else {
            false
        }
    }

    /// Consumes an identifier (which may be a keyword) and returns its text
    /// and span, or fails with "expected {what}, found ...".
    pub fn expect_ident(&mut self, what: &str) -> Result<(String, Range<usize>), Diagnostic> {
        match self.peek_token().clone() {
            Token { tok: Tok::Ident(s), span } => {
                self.next();
                Ok((s, span))
            }
            _ => Err(self.unexpected(what)),
        }
    }

    /// A diagnostic at `span` in this file.
    pub fn error(&self, span: Range<usize>, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(self.file, span, message)
    }

    /// "expected {what}, found {current token}" at the current token.
    pub fn unexpected(&self, what: &str) -> Diagnostic {
        let t = self.peek_token();
        if let (Tok::Invalid, Tokens::Lazy { error: Some(d), .. }) = (&t.tok, &self.tokens) {
            return d.clone();
        }
        let found = match &t.tok {
            Tok::Ident(s) if self.is_keyword(s) => format!("keyword `{s}`"),
            other => other.describe(),
        };
        self.error(t.span.clone(), format!("expected {what}, found {found}"))
    }

    /// Parses one arithmetic expression: `+ -` (left), `* /` (left), prefix
    /// `-` and `+`, `^` (right-associative, binding tighter than prefix
    /// minus), numbers, names, calls `f(a, b)` and parentheses. Implicit
    /// multiplication (`2x`) is an error.
    pub fn parse_expr(&mut self) -> Result<Expr, Diagnostic> {
        self.expr_bp(0).map(|(e, _)| e)
    }

    // The functions on the recursive path below are kept small (errors are
    // built in separate functions) so that each nesting level costs little
    // stack, also in debug builds.

    /// Pratt loop; returns the expression and its tree depth.
    fn expr_bp(&mut self, min_bp: u8) -> Result<(Expr, usize), Diagnostic> {
        if self.depth >= MAX_NESTING {
            return Err(self.too_deep(self.peek_token().span.clone(), MAX_NESTING, "nested levels"));
        }
        self.depth += 1;
        let r = self.expr_bp_inner(min_bp);
        self.depth -= 1;
        r
    }

    #[inline(never)]
    fn too_deep(&self, span: Range<usize>, limit: usize, what: &str) -> Diagnostic {
        self.error(span, "expression is nested too deeply").with_help(format!("the limit is {limit} {what}"))
    }

    fn expr_bp_inner(&mut self, min_bp: u8) -> Result<(Expr, usize), Diagnostic> {
        let (mut lhs, mut depth) = self.prefix()?;
        loop {
            let op = match BinOp::from_tok(self.peek()) {
                Some(op) => op,
                None => {
                    self.check_implicit_mul(&lhs)?;
                    break;
                }
            };
            let (lbp, rbp) = op.binding_power();
            if lbp < min_bp {
                break;
            }
            let op_span = self.next().span;
            let (rhs, rdepth) = self.expr_bp(rbp)?;
            depth = depth.max(rdepth) + 1;
            if depth > MAX_EXPR_DEPTH {
                return Err(self.too_deep(op_span, MAX_EXPR_DEPTH, "operators in a row"));
            }
            let span = lhs.span.start..rhs.span.end;
            lhs = Expr::new(ExprKind::Bin(op, Box::new(lhs), Box::new(rhs)), span);
        }
        Ok((lhs, depth))
    }

    /// Operands: prefix sign, number, name, call or parenthesised expression.
    fn prefix(&mut self) -> Result<(Expr, usize), Diagnostic> {
        match self.peek() {
            Tok::Minus | Tok::Plus => self.signed(),
            Tok::Num(_) => self.number(),
            Tok::Ident(name) if !self.is_keyword(name) => self.name_or_call(),
            Tok::LParen => self.parenthesised(),
            _ => Err(self.unexpected("an expression")),
        }
    }

    fn signed(&mut self) -> Result<(Expr, usize), Diagnostic> {
        let sign = self.next();
        let (e, d) = self.expr_bp(PREFIX_BP)?;
        let span = sign.span.start..e.span.end;
        if sign.tok == Tok::Plus {
            return Ok((Expr::new(e.kind, span), d));
        }
        Ok((Expr::new(ExprKind::Neg(Box::new(e)), span), d + 1))
    }

    fn parenthesised(&mut self) -> Result<(Expr, usize), Diagnostic> {
        let open = self.next().span;
        let (e, d) = self.expr_bp(0)?;
        let close = self.expect_close("`)`")?;
        Ok((Expr::new(e.kind, open.start..close.end), d))
    }

    #[inline(never)]
    fn number(&mut self) -> Result<(Expr, usize), Diagnostic> {
        let t = self.next();
        let text = t.tok.symbol();
        match parse_rat_with(text, self.limits) {
            Ok(r) => Ok((Expr::new(ExprKind::Num(r), t.span), 1)),
            Err(e) => Err(self.error(t.span.clone(), "invalid number").with_label(e.to_string())),
        }
    }

    fn name_or_call(&mut self) -> Result<(Expr, usize), Diagnostic> {
        let t = self.next();
        let name = match t.tok {
            Tok::Ident(name) => name,
            _ => return Err(self.error(t.span, "expected a name")),
        };
        if *self.peek() != Tok::LParen {
            return Ok((Expr::new(ExprKind::Name(name), t.span), 1));
        }
        self.next();
        let mut args = Vec::new();
        let mut depth = 1;
        if *self.peek() != Tok::RParen {
            loop {
                let (a, d) = self.expr_bp(0)?;
                depth = depth.max(d + 1);
                args.push(a);
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
        }
        let close = self.expect_close("`,` or `)`")?;
        Ok((Expr::new(ExprKind::Call(name, args), t.span.start..close.end), depth))
    }

    #[inline(never)]
    fn expect_close(&mut self, what: &str) -> Result<Range<usize>, Diagnostic> {
        if *self.peek() == Tok::RParen {
            Ok(self.next().span)
        } else {
            Err(self.unexpected(what))
        }
    }

    /// After a complete operand, a number, a name or `(` means a missing
    /// operator, most likely an intended multiplication.
    fn check_implicit_mul(&self, lhs: &Expr) -> Result<(), Diagnostic> {
        match self.peek() {
            Tok::Num(_) | Tok::LParen => Err(self.implicit_mul(lhs)),
            Tok::Ident(s) if !self.is_keyword(s) => Err(self.implicit_mul(lhs)),
            _ => Ok(()),
        }
    }

    #[inline(never)]
    fn implicit_mul(&self, lhs: &Expr) -> Diagnostic {
        let t = self.peek_token();
        let right = match &t.tok {
            Tok::LParen => "(...)".to_string(),
            other => other.symbol().to_string(),
        };
        let left = self.text(&lhs.span);
        let short = left.chars().count() <= 30 && !left.contains('\n');
        let help = if short {
            format!("to multiply, write `{left}*{right}`")
        } else {
            "to multiply, write `*` between the factors".to_string()
        };
        let (message, label) = if lhs.span.end == t.span.start && short {
            (format!("missing `*` between `{left}` and `{right}`"), "implicit multiplication is not allowed")
        } else {
            (format!("expected an operator before {}", t.tok.describe()), "expected an operator here")
        };
        self.error(t.span.clone(), message).with_label(label).with_help(help)
    }
}

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
    fn nonlinear_product(&self, e: &Expr) -> Diagnostic {
        let mut factors = Vec::new();
        flatten_product(e, &mut factors);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::{frac, int, pow10};
    use num_bigint::BigInt;

    /// The value, or a panic showing the diagnostic (tests only).
    fn ok<T>(r: Result<T, Diagnostic>) -> T {
        match r {
            Ok(v) => v,
            Err(d) => panic!("unexpected error: {} ({:?})", d.message, d.span),
        }
    }

    /// The on-demand parser sees the same tokens as one over `lex`'s list,
    /// after any number of backtracks, and holds only a few at a time.
    #[test]
    fn lazy_tokens_match_lexed_tokens_and_survive_backtracking() {
        let src = "a1 + (b <= 2.5e3) # c\n ≤ f(x, y) .. 7";
        let lexed = crate::lang::lexer::lex(src, "t").unwrap();
        let mut eager = Parser::from_tokens(lexed.clone(), src, "t");
        let mut lazy = ok(Parser::new(src, "t"));
        for (i, want) in lexed.iter().enumerate() {
            assert_eq!(lazy.peek_token(), want, "token {i}");
            assert_eq!(lazy.peek_nth(1), eager.peek_nth(1));
            assert_eq!(lazy.peek_nth(2), eager.peek_nth(2));
            if let Tokens::Lazy { ahead, .. } = &lazy.tokens {
                assert!(ahead.len() <= LOOKAHEAD + 1);
            }
            // Go back to the start and forward again: the same token.
            let here = lazy.position();
            lazy.restore(0);
            assert_eq!(lazy.peek_token(), &lexed[0]);
            lazy.restore(here);
            assert_eq!(lazy.next(), eager.next());
        }
        // Reading past the end keeps giving `Eof`.
        assert_eq!(lazy.next().tok, Tok::Eof);
        assert!(lazy.at_eof());
    }

    /// A character no token starts with is reported where the parser
    /// reaches it, with the lexer's message, and the cursor stops there.
    #[test]
    fn lazy_lexing_errors_are_located_when_reached() {
        let e = Parser::new("$ x", "f").unwrap_err();
        assert_eq!((e.message.as_str(), e.span.clone()), ("unexpected character `$`", 0..1));
        let mut p = ok(Parser::new("x + 1 $ y", "f"));
        let e = p.parse_expr().map(|_| p.unexpected("end of input")).unwrap_or_else(|e| e);
        assert_eq!((e.message.as_str(), e.span.clone()), ("unexpected character `$`", 6..7));
        assert_eq!(p.next().tok, Tok::Invalid);
        assert_eq!(p.peek(), &Tok::Invalid);
        assert!(!p.at_eof());
        let e = parse("2 * (3 − 1)").unwrap_err();
        assert_eq!(e.span, 7..10);
        assert!(e.help.unwrap().contains("ASCII minus"));
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
}
