//! Delimited text dialects: comma-, semicolon-, tab- and
//! whitespace-separated values, detected from the header line or given
//! with `--delimiter`.
//!
//! Whitespace-separated files (OSU micro-benchmarks, gnuplot data, many
//! hand-made tables) are turned into tab-separated text *of the same
//! length*: each run of blanks between two fields becomes one tab padded
//! with spaces, which the CSV reader's trimming removes. Every byte keeps
//! its offset and line, so errors point into the file as the user sees it.
//! OSU's header is a comment (`# Size          Latency (us)`): when the
//! first line after the comments is all numbers and the comment just above
//! it has as many fields (split at runs of two or more blanks when single
//! blanks split names such as `Latency (us)`), that comment is the header.

use std::borrow::Cow;

/// How the fields of a line are separated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Delimiter {
    /// `,`
    Comma,
    /// `;` (spreadsheets in locales with a decimal comma)
    Semicolon,
    /// A tab.
    Tab,
    /// Runs of spaces and tabs.
    Whitespace,
}

impl Delimiter {
    /// Parses a `--delimiter` value: `,` `;` `tab` (or `\t`), `space` or
    /// `whitespace`.
    pub fn parse(s: &str) -> Result<Delimiter, String> {
        match s {
            "," | "comma" => Ok(Delimiter::Comma),
            ";" | "semicolon" => Ok(Delimiter::Semicolon),
            "tab" | "\\t" | "\t" => Ok(Delimiter::Tab),
            "space" | "whitespace" | " " => Ok(Delimiter::Whitespace),
            _ => Err(format!("--delimiter {s}: expected `,`, `;`, `tab` or `space` (runs of blanks)")),
        }
    }

    /// The name used in messages.
    pub fn name(self) -> &'static str {
        match self {
            Delimiter::Comma => "comma",
            Delimiter::Semicolon => "semicolon",
            Delimiter::Tab => "tab",
            Delimiter::Whitespace => "whitespace",
        }
    }

    /// The byte the CSV reader splits at.
    pub fn byte(self) -> u8 {
        match self {
            Delimiter::Comma => b',',
            Delimiter::Semicolon => b';',
            Delimiter::Tab | Delimiter::Whitespace => b'\t',
        }
    }
}

fn is_comment(line: &str) -> bool {
    line.trim_start().starts_with('#')
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// The delimiter of `body`, from its first line that is neither blank nor
/// a comment: comma, else semicolon, else tab, else whitespace when it has
/// blanks between fields, else comma (a single column).
pub fn detect(body: &str) -> Delimiter {
    let Some(line) = body.lines().find(|l| !is_blank(l) && !is_comment(l)) else {
        return Delimiter::Comma;
    };
    if line.contains(',') {
        Delimiter::Comma
    } else if line.contains(';') {
        Delimiter::Semicolon
    } else if line.contains('\t') {
        Delimiter::Tab
    } else if line.trim().contains(' ') {
        Delimiter::Whitespace
    } else {
        Delimiter::Comma
    }
}

/// Fields of a line split at runs of blanks; with `wide`, only at runs of
/// two or more blanks or at a tab.
fn fields(line: &str, wide: bool) -> usize {
    let mut n = 0;
    let b = line.trim().as_bytes();
    let mut i = 0;
    while i < b.len() {
        n += 1;
        // Scan the field.
        loop {
            while i < b.len() && b[i] != b' ' && b[i] != b'\t' {
                i += 1;
            }
            let start = i;
            while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
                i += 1;
            }
            let run = &b[start..i];
            let separates = !run.is_empty() && (!wide || run.len() >= 2 || run.contains(&b'\t'));
            if separates || i >= b.len() {
                break;
            }
        }
    }
    n
}

/// Rewrites one line's separating blank runs as a tab and spaces, in place
/// (same length); with `wide`, single spaces stay inside fields.
fn retab(line: &mut [u8], wide: bool) {
    let end =
        line.iter().rposition(|&c| c != b' ' && c != b'\t' && c != b'\r' && c != b'\n').map_or(0, |e| e + 1);
    let start = line.iter().position(|&c| c != b' ' && c != b'\t').unwrap_or(end);
    let mut i = start;
    while i < end {
        if line[i] == b' ' || line[i] == b'\t' {
            let from = i;
            while i < end && (line[i] == b' ' || line[i] == b'\t') {
                i += 1;
            }
            let run = &line[from..i];
            if !wide || run.len() >= 2 || run.contains(&b'\t') {
                line[from] = b'\t';
                for c in &mut line[from + 1..i] {
                    *c = b' ';
                }
            }
        } else {
            i += 1;
        }
    }
    // Blanks before the first field and after the last are plain spaces.
    let (head, rest) = line.split_at_mut(start);
    let tail_from = end.saturating_sub(start);
    for c in head.iter_mut().chain(rest[tail_from..].iter_mut()) {
        if *c == b'\t' {
            *c = b' ';
        }
    }
}

fn numeric(field: &str) -> bool {
    let f = field.trim();
    !f.is_empty() && f.parse::<f64>().is_ok()
}

/// The text the CSV reader reads for `delimiter`: `body` itself, or for
/// whitespace-separated values the same text with tabs between fields
/// (and a header promoted from the comment above the data, as OSU writes
/// it). Offsets and lines are unchanged.
pub fn prepare(body: &str, delimiter: Delimiter) -> Cow<'_, str> {
    if delimiter != Delimiter::Whitespace {
        return Cow::Borrowed(body);
    }
    let mut bytes = body.as_bytes().to_vec();
    // Line start offsets.
    let mut starts = vec![0usize];
    starts.extend(body.match_indices('\n').map(|(i, _)| i + 1).filter(|&i| i < body.len()));
    let line_at = |k: usize| {
        let s = starts[k];
        let e = starts.get(k + 1).copied().unwrap_or(body.len());
        s..e
    };
    let first = (0..starts.len()).find(|&k| {
        let l = &body[line_at(k)];
        !is_blank(l) && !is_comment(l)
    });
    let Some(first) = first else { return Cow::Borrowed(body) };
    let first_line = &body[line_at(first)];
    let data_fields = fields(first_line, false);
    // OSU: the data start at once and the header is the comment above.
    let mut header = first;
    let mut header_wide = fields(first_line, false) != data_fields;
    if first_line.split_whitespace().all(numeric) {
        if let Some(k) = (0..first).rev().find(|&k| !is_blank(&body[line_at(k)])) {
            let c = &body[line_at(k)];
            let text = c.trim_start().trim_start_matches('#');
            if is_comment(c) && (fields(text, false) == data_fields || fields(text, true) == data_fields) {
                let r = line_at(k);
                if let Some(h) = bytes[r.clone()].iter().position(|&b| b == b'#') {
                    bytes[r.start + h] = b' ';
                }
                header = k;
                header_wide = fields(text, false) != data_fields;
            }
        }
    } else {
        // A header with spaces inside names, over data with more blanks.
        let next = (first + 1..starts.len()).find(|&k| {
            let l = &body[line_at(k)];
            !is_blank(l) && !is_comment(l)
        });
        if let Some(n) = next {
            let data = fields(&body[line_at(n)], false);
            header_wide = fields(first_line, false) != data && fields(first_line, true) == data;
        }
    }
    for k in header..starts.len() {
        let r = line_at(k);
        let l = &body[r.clone()];
        if is_blank(l) || (k != header && is_comment(l)) {
            continue;
        }
        retab(&mut bytes[r], k == header && header_wide);
    }
    // Only ASCII blanks and `#` were replaced by ASCII: still UTF-8.
    Cow::Owned(String::from_utf8(bytes).unwrap_or_else(|_| body.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection_by_the_header_line() {
        assert_eq!(detect("# c\np,T\n1,2\n"), Delimiter::Comma);
        assert_eq!(detect("p;T\n1;2,5\n"), Delimiter::Semicolon);
        assert_eq!(detect("p\tT\n1\t2\n"), Delimiter::Tab);
        assert_eq!(detect("  p   T\n 1  2\n"), Delimiter::Whitespace);
        assert_eq!(detect("T\n1\n"), Delimiter::Comma);
        assert_eq!(Delimiter::parse("tab"), Ok(Delimiter::Tab));
        assert!(Delimiter::parse("|").is_err());
    }

    #[test]
    fn whitespace_becomes_tabs_at_the_same_offsets() {
        let body = "  p    T\n 1  2.5 \n10\t3\n";
        let out = prepare(body, Delimiter::Whitespace);
        assert_eq!(out.len(), body.len());
        assert_eq!(out, "  p\t   T\n 1\t 2.5 \n10\t3\n");
    }

    #[test]
    fn osu_headers_come_from_the_comment_above_the_data() {
        let body = "# OSU MPI Latency Test v5.6.2\n# Size          Latency (us)\n0                       1.52\n1                       1.53\n";
        let out = prepare(body, Delimiter::Whitespace);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "# OSU MPI Latency Test v5.6.2");
        assert_eq!(lines[1], "  Size\t         Latency (us)");
        assert_eq!(lines[2].split('\t').map(str::trim).collect::<Vec<_>>(), ["0", "1.52"]);
        assert_eq!(out.len(), body.len());
    }
}
