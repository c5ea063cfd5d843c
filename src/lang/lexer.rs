//! The shared lexer: turns source text into tokens that carry byte spans, so
//! every later error can point at the exact text. It knows no keywords (the
//! parsers compare identifier text), which lets the QE formula language and
//! the model language share it.

use super::diag::Diagnostic;
use std::fmt;
use std::ops::Range;

/// A token kind (with its text for identifiers and numbers).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Tok {
    /// An identifier `[A-Za-z_][A-Za-z0-9_]*` with optional trailing `'`s.
    /// Keywords are identifiers too.
    Ident(String),
    /// A number literal's text: digits, an optional `.`, an optional
    /// exponent (`1.5e-7`, `2.`, `.5`). Fractions are not literals: `/` is
    /// an operator.
    Num(String),
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `^`
    Caret,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `;`
    Semi,
    /// `=`
    Assign,
    /// `==`
    EqEq,
    /// `!=`, `<>` or `≠`
    Ne,
    /// `<`
    Lt,
    /// `<=` or `≤`
    Le,
    /// `>`
    Gt,
    /// `>=` or `≥`
    Ge,
    /// `&&` or `∧`
    AndAnd,
    /// `||` or `∨`
    OrOr,
    /// `!` or `¬`
    Bang,
    /// `=>` or `⇒`
    Arrow,
    /// `..`
    DotDot,
    /// End of input (always the last token).
    Eof,
    /// A character no token starts with, met by a parser's on-demand lexing
    /// (see [`Lexer`]); the parser reports the lexer's diagnostic there.
    /// [`lex`] never returns it: it fails instead.
    Invalid,
}

impl Tok {
    /// How the token is named in an error message: `` `<=` ``, `` `x` ``,
    /// `number `2.5``, `end of input`.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Num(s) => format!("number `{s}`"),
            Tok::Eof => "end of input".to_string(),
            Tok::Invalid => "an unexpected character".to_string(),
            other => format!("`{}`", other.symbol()),
        }
    }

    /// The canonical text of an operator or punctuation token (the text
    /// itself for identifiers and numbers, empty for [`Tok::Eof`]).
    pub fn symbol(&self) -> &str {
        match self {
            Tok::Ident(s) | Tok::Num(s) => s,
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::Caret => "^",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::Comma => ",",
            Tok::Colon => ":",
            Tok::Semi => ";",
            Tok::Assign => "=",
            Tok::EqEq => "==",
            Tok::Ne => "!=",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::Gt => ">",
            Tok::Ge => ">=",
            Tok::AndAnd => "&&",
            Tok::OrOr => "||",
            Tok::Bang => "!",
            Tok::Arrow => "=>",
            Tok::DotDot => "..",
            Tok::Eof | Tok::Invalid => "",
        }
    }
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

/// A token and the byte range of its text in the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// What the token is.
    pub tok: Tok,
    /// Byte offsets of its text.
    pub span: Range<usize>,
}

/// Splits `source` into tokens, ending with [`Tok::Eof`] (whose span is the
/// empty range at the end). `#` starts a comment that runs to the end of the
/// line. An unexpected character gives a [`Diagnostic`] pointing at it.
pub fn lex(source: &str, file: &str) -> Result<Vec<Token>, Diagnostic> {
    let mut lexer = Lexer::new(source, file);
    let mut out = Vec::new();
    loop {
        let t = lexer.next_token()?;
        let end = t.tok == Tok::Eof;
        out.push(t);
        if end {
            return Ok(out);
        }
    }
}

/// A cursor that lexes one token at a time, so a parser holds only the
/// tokens it looks at (a 20 MB formula would be five million tokens, about
/// 400 MB, if lexed up front). Lexing is context-free from any token
/// start, so [`Lexer::seek`] back to one re-lexes the same tokens.
#[derive(Debug, Clone)]
pub struct Lexer<'a> {
    source: &'a str,
    file: &'a str,
    i: usize,
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `source`.
    pub fn new(source: &'a str, file: &'a str) -> Self {
        Lexer { source, file, i: 0 }
    }

    /// Continues from byte `offset`, which must be where a token (or
    /// whitespace or a comment) starts.
    pub fn seek(&mut self, offset: usize) {
        self.i = offset.min(self.source.len());
    }

    /// The next token; [`Tok::Eof`] (again and again) at the end.
    pub fn next_token(&mut self) -> Result<Token, Diagnostic> {
        let (source, bytes) = (self.source, self.source.as_bytes());
        let mut i = self.i;
        while i < bytes.len() {
            let b = bytes[i];
            let start = i;
            // Whitespace (any Unicode whitespace) and comments.
            if b == b'#' {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            if b.is_ascii_whitespace() {
                i += 1;
                continue;
            }
            if b.is_ascii_alphabetic() || b == b'_' {
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                while i < bytes.len() && bytes[i] == b'\'' {
                    i += 1;
                }
                return Ok(self.token(Tok::Ident(source[start..i].to_string()), start, i));
            }
            let digit_at = |k: usize| k < bytes.len() && bytes[k].is_ascii_digit();
            if b.is_ascii_digit() || (b == b'.' && digit_at(i + 1)) {
                i = scan_number(bytes, i);
                return Ok(self.token(Tok::Num(source[start..i].to_string()), start, i));
            }
            let next = bytes.get(i + 1).copied();
            let two = |t: Tok| (t, 2);
            let one = |t: Tok| (t, 1);
            let (tok, len) = match (b, next) {
                (b'+', _) => one(Tok::Plus),
                (b'-', _) => one(Tok::Minus),
                (b'*', _) => one(Tok::Star),
                (b'/', _) => one(Tok::Slash),
                (b'^', _) => one(Tok::Caret),
                (b'(', _) => one(Tok::LParen),
                (b')', _) => one(Tok::RParen),
                (b',', _) => one(Tok::Comma),
                (b':', _) => one(Tok::Colon),
                (b';', _) => one(Tok::Semi),
                (b'=', Some(b'=')) => two(Tok::EqEq),
                (b'=', Some(b'>')) => two(Tok::Arrow),
                (b'=', _) => one(Tok::Assign),
                (b'!', Some(b'=')) => two(Tok::Ne),
                (b'!', _) => one(Tok::Bang),
                (b'<', Some(b'=')) => two(Tok::Le),
                (b'<', Some(b'>')) => two(Tok::Ne),
                (b'<', _) => one(Tok::Lt),
                (b'>', Some(b'=')) => two(Tok::Ge),
                (b'>', _) => one(Tok::Gt),
                (b'&', Some(b'&')) => two(Tok::AndAnd),
                (b'|', Some(b'|')) => two(Tok::OrOr),
                (b'.', Some(b'.')) => two(Tok::DotDot),
                _ => {
                    // Non-ASCII: Unicode operators, Unicode whitespace, or an error.
                    let c = source[i..].chars().next().unwrap_or('\u{FFFD}');
                    let len = c.len_utf8();
                    let tok = match c {
                        '≤' => Some(Tok::Le),
                        '≥' => Some(Tok::Ge),
                        '≠' => Some(Tok::Ne),
                        '∧' => Some(Tok::AndAnd),
                        '∨' => Some(Tok::OrOr),
                        '¬' => Some(Tok::Bang),
                        '⇒' => Some(Tok::Arrow),
                        c if c.is_whitespace() => None,
                        c => {
                            self.i = i;
                            return Err(bad_char(self.file, i..i + len, c));
                        }
                    };
                    match tok {
                        Some(t) => (t, len),
                        None => {
                            i += len;
                            continue;
                        }
                    }
                }
            };
            return Ok(self.token(tok, start, i + len));
        }
        self.i = bytes.len();
        Ok(Token { tok: Tok::Eof, span: bytes.len()..bytes.len() })
    }

    fn token(&mut self, tok: Tok, start: usize, end: usize) -> Token {
        self.i = end;
        Token { tok, span: start..end }
    }
}

/// End of the number literal starting at `i` (a digit, or `.` then a digit).
fn scan_number(bytes: &[u8], mut i: usize) -> usize {
    let digit_at = |k: usize| k < bytes.len() && bytes[k].is_ascii_digit();
    let digits = |mut k: usize| {
        // digits with `_` separators between them (as `num::parse_rat` allows)
        while k < bytes.len() && (bytes[k].is_ascii_digit() || (bytes[k] == b'_' && digit_at(k + 1))) {
            k += 1;
        }
        k
    };
    i = digits(i);
    // A '.' belongs to the number unless it starts a `..`.
    if i < bytes.len() && bytes[i] == b'.' && bytes.get(i + 1) != Some(&b'.') {
        i = digits(i + 1);
    }
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        let mut k = i + 1;
        if k < bytes.len() && (bytes[k] == b'+' || bytes[k] == b'-') {
            k += 1;
        }
        if digit_at(k) {
            while digit_at(k) {
                k += 1;
            }
            i = k;
        }
    }
    i
}

fn bad_char(file: &str, span: Range<usize>, c: char) -> Diagnostic {
    let shown: String = if c.is_control() { c.escape_debug().collect() } else { c.to_string() };
    let d = Diagnostic::new(file, span, format!("unexpected character `{shown}`"));
    match c {
        '&' => d.with_help("write `&&` or `and` for conjunction"),
        '|' => d.with_help("write `||` or `or` for disjunction"),
        '.' => d.with_help("a number needs a digit next to its point: `0.5`, `5.`"),
        '−' | '–' | '—' => d.with_help("use the ASCII minus sign `-`"),
        '×' | '·' => d.with_help("use `*` for multiplication"),
        '÷' => d.with_help("use `/` for division"),
        _ => d,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s, "t").unwrap().into_iter().map(|t| t.tok).collect()
    }
    fn num(s: &str) -> Tok {
        Tok::Num(s.to_string())
    }
    fn id(s: &str) -> Tok {
        Tok::Ident(s.to_string())
    }

    #[test]
    fn numbers_and_ranges() {
        assert_eq!(toks("1..5"), vec![num("1"), Tok::DotDot, num("5"), Tok::Eof]);
        assert_eq!(toks("1.5e-7"), vec![num("1.5e-7"), Tok::Eof]);
        assert_eq!(toks("2. .5 3E+2 4e5"), vec![num("2."), num(".5"), num("3E+2"), num("4e5"), Tok::Eof]);
        assert_eq!(toks("14244/5"), vec![num("14244"), Tok::Slash, num("5"), Tok::Eof]);
        assert_eq!(toks("1_000"), vec![num("1_000"), Tok::Eof]);
        // an `e` without exponent digits is not part of the number
        assert_eq!(toks("2e"), vec![num("2"), id("e"), Tok::Eof]);
        assert_eq!(toks("2ex"), vec![num("2"), id("ex"), Tok::Eof]);
        assert_eq!(toks("2e-x"), vec![num("2"), id("e"), Tok::Minus, id("x"), Tok::Eof]);
        assert_eq!(toks("a..b"), vec![id("a"), Tok::DotDot, id("b"), Tok::Eof]);
        assert_eq!(toks("1...5"), vec![num("1"), Tok::DotDot, num(".5"), Tok::Eof]);
    }

    #[test]
    fn spans_are_byte_offsets() {
        let ts = lex("ab ≤ 12.5", "t").unwrap();
        let spans: Vec<_> = ts.iter().map(|t| t.span.clone()).collect();
        assert_eq!(spans, vec![0..2, 3..6, 7..11, 11..11]);
    }

    #[test]
    fn operators_ascii_and_unicode() {
        use Tok::*;
        assert_eq!(
            toks("+-*/^(),:;= == != <> < <= > >= && || ! => .."),
            vec![
                Plus, Minus, Star, Slash, Caret, LParen, RParen, Comma, Colon, Semi, Assign, EqEq, Ne, Ne,
                Lt, Le, Gt, Ge, AndAnd, OrOr, Bang, Arrow, DotDot, Eof
            ]
        );
        assert_eq!(toks("≤≥∧∨¬⇒≠"), vec![Le, Ge, AndAnd, OrOr, Bang, Arrow, Ne, Eof]);
        assert_eq!(toks("x<-1"), vec![id("x"), Lt, Minus, num("1"), Eof]);
        assert_eq!(toks("x'' _y1"), vec![id("x''"), id("_y1"), Eof]);
    }

    #[test]
    fn comments_and_whitespace() {
        assert_eq!(toks("# only a comment"), vec![Tok::Eof]);
        assert_eq!(toks("x # c <= ¤\n\ty\u{a0}z"), vec![id("x"), id("y"), id("z"), Tok::Eof]);
        let ts = lex("", "t").unwrap();
        assert_eq!(ts, vec![Token { tok: Tok::Eof, span: 0..0 }]);
    }

    #[test]
    fn bad_characters_are_located() {
        let e = lex("x <= 3 $ y", "f.qe").unwrap_err();
        assert_eq!(e.span, 7..8);
        assert_eq!(e.message, "unexpected character `$`");
        assert_eq!(e.headline("x <= 3 $ y"), "f.qe:1:8: unexpected character `$`");
        let e = lex("a & b", "f").unwrap_err();
        assert_eq!(e.span, 2..3);
        assert!(e.help.unwrap().contains("&&"));
        let e = lex("x − 1", "f").unwrap_err();
        assert_eq!(e.span, 2..5);
        let e = lex("x . y", "f").unwrap_err();
        assert_eq!(e.span, 2..3);
        let e = lex("\u{7}", "f").unwrap_err();
        assert_eq!(e.message, "unexpected character `\\u{7}`");
    }
}
