//! The token cursor and the Pratt parser shared by every errband input
//! language: expressions with located errors, nesting and operator-chain
//! limits, and numbers held to [`Limits`].

use super::diag::Diagnostic;
use super::expr::{BinOp, Expr, ExprKind, MAX_EXPR_DEPTH, MAX_NESTING, PREFIX_BP};
use super::lexer::{Lexer, Tok, Token};
use crate::limits::Limits;
use crate::num::parse_rat_with;
use std::collections::VecDeque;
use std::ops::Range;

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

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut p = ok(Parser::new("2 * (3 − 1)", "t"));
        let e = p.parse_expr().unwrap_err();
        assert_eq!(e.span, 7..10);
        assert!(e.help.unwrap().contains("ASCII minus"));
    }
}
