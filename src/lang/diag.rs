//! Located diagnostics: an error message tied to a byte span of a source
//! file, rendered in the familiar rustc shape (file:line:col, the offending
//! line, carets under the span, an optional help note).
//!
//! Rendering is hand-written and colourless so that the output is stable in
//! tests and in logs; a [`Diagnostic`] stores only byte offsets, and the
//! source text is passed back in when it is shown.

use std::fmt;
use std::ops::Range;

/// Longest source line shown whole in a diagnostic (chars).
const MAX_SHOWN: usize = 160;
/// Chars of context kept before the span in a clipped line.
const CONTEXT: usize = 40;

/// An error located in a source file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Name of the file the error is in (as shown to the user).
    pub file: String,
    /// Byte offsets of the offending text in the source.
    pub span: Range<usize>,
    /// The headline, e.g. "a product of two variables is not linear".
    pub message: String,
    /// Short text printed after the carets; may be empty.
    pub label: Box<str>,
    /// An optional hint printed as `= help: ...`.
    pub help: Option<Box<str>>,
    /// The source text, when the diagnostic carries it (errors returned
    /// by the library: `Display` then shows the full located report).
    pub source: Option<std::sync::Arc<str>>,
}

impl Diagnostic {
    /// An error in `file` at the byte range `span`.
    pub fn new(file: impl Into<String>, span: Range<usize>, message: impl Into<String>) -> Self {
        Diagnostic {
            file: file.into(),
            span,
            message: message.into(),
            label: Box::default(),
            help: None,
            source: None,
        }
    }

    /// Attaches the source text, so that `Display` renders the full report.
    pub fn with_source(mut self, source: std::sync::Arc<str>) -> Self {
        self.source = Some(source);
        self
    }

    /// Sets the text printed after the carets.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into().into_boxed_str();
        self
    }

    /// Sets the `= help:` note.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into().into_boxed_str());
        self
    }

    /// `file:line:col: message`, with the position taken from `source`.
    pub fn headline(&self, source: &str) -> String {
        let (line, col) = line_col(source, display_offset(source, self.span.start));
        format!("{}:{}:{}: {}", self.file, line, col, self.message)
    }

    /// The full rustc-style report (no colour, no trailing newline):
    ///
    /// ```text
    /// error: a product of two variables is not linear
    ///  --> eq6.qe:5:16
    ///   |
    /// 5 |     -emax <= a*dc1*dc2 <= emax
    ///   |                ^^^^^^^ dc1 * dc2
    ///   = help: each term may contain at most one variable
    /// ```
    pub fn render(&self, source: &str) -> String {
        let start = display_offset(source, self.span.start);
        let (line_no, col) = line_col(source, start);
        let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = source[line_start..].find('\n').map_or(source.len(), |i| line_start + i);
        let mut line = &source[line_start..line_end];
        if let Some(stripped) = line.strip_suffix('\r') {
            line = stripped;
        }
        // Part of the span on its first line, in chars (at least one caret).
        let end = floor_boundary(source, self.span.end.max(start)).min(line_start + line.len());
        let mut width = if end > start { source[start..end].chars().count() } else { 0 }.max(1);
        let mut before: &str = &source[line_start..start];
        // Very long lines (a 100 000-digit number) are shown as a window
        // around the span, so the message stays readable.
        let (mut head, mut tail) = ("", "");
        if line.chars().count() > MAX_SHOWN {
            let keep_before = before.char_indices().rev().nth(CONTEXT).map_or(0, |(i, _)| i);
            if keep_before > 0 {
                before = &before[keep_before..];
                head = "…";
            }
            let from = start - before.len();
            let rest = &line[from - line_start..];
            let cut = rest.char_indices().nth(MAX_SHOWN - 2 * CONTEXT).map(|(i, _)| i);
            if let Some(c) = cut {
                line = &rest[..c];
                tail = "…";
            } else {
                line = rest;
            }
            width = width.min(line.chars().count().saturating_sub(before.chars().count()).max(1));
        }
        let prefix: String =
            head.chars().chain(before.chars()).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
        let shown = format!("{head}{line}{tail}");
        let line = shown.as_str();

        let gutter = line_no.to_string();
        let pad = " ".repeat(gutter.len());
        let mut out = String::new();
        out.push_str(&format!("error: {}\n", self.message));
        out.push_str(&format!("{pad}--> {}:{}:{}\n", self.file, line_no, col));
        out.push_str(&format!("{pad} |\n"));
        out.push_str(&format!("{gutter} | {line}\n"));
        out.push_str(&format!("{pad} | {prefix}{}", "^".repeat(width)));
        if !self.label.is_empty() {
            out.push(' ');
            out.push_str(&self.label);
        }
        if let Some(help) = &self.help {
            out.push_str(&format!("\n{pad} = help: {help}"));
        }
        out
    }
}

/// The full report ([`Diagnostic::render`]) when the source is attached,
/// else `file: message`.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.source {
            Some(s) => f.write_str(&self.render(s)),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for Diagnostic {}

/// 1-based line and column of byte `offset` in `source`; the column counts
/// chars, not bytes. Offsets past the end (or inside a multi-byte char) are
/// moved back to the nearest valid position.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let offset = floor_boundary(source, offset);
    let before = &source[..offset];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1;
    (line, col)
}

/// The largest char boundary `<= offset` (and `<= source.len()`).
fn floor_boundary(source: &str, offset: usize) -> usize {
    let mut o = offset.min(source.len());
    while o > 0 && !source.is_char_boundary(o) {
        o -= 1;
    }
    o
}

/// Where to show an error starting at `offset`: a span at the very end of a
/// file that ends with a newline is shown just past the last visible char
/// rather than on an empty line after it.
fn display_offset(source: &str, offset: usize) -> usize {
    let o = floor_boundary(source, offset);
    if o == source.len() {
        let trimmed = source.trim_end_matches(['\n', '\r']);
        if trimmed.len() < source.len() {
            return trimmed.len();
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_in_rustc_shape() {
        let src = "# c\n\n\n\n    -emax <= a*dc1*dc2 <= emax\n";
        let start = src.find("dc1*").unwrap();
        let d = Diagnostic::new("eq6.qe", start..start + 7, "a product of two variables is not linear")
            .with_label("dc1 * dc2")
            .with_help("each term may contain at most one variable");
        let want = "error: a product of two variables is not linear\n \
                    --> eq6.qe:5:16\n  \
                    |\n\
                    5 |     -emax <= a*dc1*dc2 <= emax\n  \
                    |                ^^^^^^^ dc1 * dc2\n  \
                    = help: each term may contain at most one variable";
        assert_eq!(d.render(src), want);
        assert_eq!(d.headline(src), "eq6.qe:5:16: a product of two variables is not linear");
        assert_eq!(d.to_string(), "eq6.qe: a product of two variables is not linear");
    }

    #[test]
    fn gutter_grows_and_label_may_be_empty() {
        let src = format!("{}x $ y", "\n".repeat(11));
        let at = src.find('$').unwrap();
        let d = Diagnostic::new("f", at..at + 1, "bad");
        assert_eq!(d.render(&src), "error: bad\n  --> f:12:3\n   |\n12 | x $ y\n   |   ^");
    }

    #[test]
    fn tabs_are_kept_so_carets_align() {
        let src = "\tx\t<= y";
        let at = src.find("<=").unwrap();
        let d = Diagnostic::new("f", at..at + 2, "m").with_label("here");
        assert!(d.render(src).ends_with("1 | \tx\t<= y\n  | \t \t^^ here"), "{}", d.render(src));
    }

    #[test]
    fn multi_line_span_is_cut_at_its_first_line() {
        let src = "ab\ncd";
        let d = Diagnostic::new("f", 1..5, "m");
        assert!(d.render(src).ends_with("1 | ab\n  |  ^"));
    }

    #[test]
    fn eof_span_points_past_the_last_char() {
        let src = "x <=\n";
        let d = Diagnostic::new("f", src.len()..src.len(), "expected an expression");
        assert_eq!(d.headline(src), "f:1:5: expected an expression");
        assert!(d.render(src).ends_with("1 | x <=\n  |     ^"));
        let src2 = "x <=";
        assert_eq!(Diagnostic::new("f", 4..4, "m").headline(src2), "f:1:5: m");
        assert_eq!(Diagnostic::new("f", 0..0, "m").render(""), "error: m\n --> f:1:1\n  |\n1 | \n  | ^");
    }

    #[test]
    fn columns_count_chars() {
        assert_eq!(line_col("a≤b", 4), (1, 3));
        assert_eq!(line_col("a≤b", 2), (1, 2)); // inside '≤': moved back
        assert_eq!(line_col("a\nbc", 3), (2, 2));
        assert_eq!(line_col("a", 99), (1, 2));
    }
}
