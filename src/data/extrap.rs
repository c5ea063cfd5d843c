//! The reader for Extra-P's text input format.
//!
//! ```text
//! # comment
//! PARAMETER p
//! PARAMETER n
//! POINTS ( 2 100 ) ( 4 100 )
//! POINTS ( 8 200 )
//! REGION compute
//! METRIC time
//! DATA 1.1 1.2 1.3
//! DATA 2.0 2.1
//! DATA 3.5
//! ```
//!
//! `PARAMETER` lines name the parameters (several per line or several lines);
//! `POINTS` lines list the measurement points, as tuples in `PARAMETER`
//! order (`( 2 100 )`, coordinates may also be wrapped: `((2) (100))`) or,
//! with one parameter, as bare numbers. `REGION` and `METRIC` (in either
//! order) start a block; a block has one `DATA` line per point, in `POINTS`
//! order, and the numbers on a `DATA` line are repetitions. A metric applies
//! until the next `METRIC` line, a region until the next `REGION` line.
//! `#` starts a comment at the start of a line, and after whitespace on
//! lines other than `REGION` and `METRIC`, whose names may contain `#`
//! (Extra-P reads comments only at the start of a line). Runs of
//! whitespace in a name count as one space, as in Extra-P.

use crate::limits::{Limit, Limits};
use std::ops::Range;

use super::experiment::{Aggregate, Experiment, Format, Selection, Series, SeriesPoint};

use super::{error, number_error, parse_number, quoted_list, strip_bom};
use super::{ColumnSpec, DataError, Dataset, Rat};

/// Reads measurements from Extra-P's text format.
///
/// The block read is the one matching [`ColumnSpec::region`] and
/// [`ColumnSpec::metric`]; when the file holds several blocks, the selection
/// must single one out. Model variables are matched to `PARAMETER` names
/// (through [`ColumnSpec::rename`]); each number on the block's `i`-th `DATA`
/// line becomes a [`Measurement`](super::Measurement) at the `i`-th point, with that line's
/// number. Only the selected block's values are parsed as numbers; the
/// structure of the whole file (keywords, points, the number of `DATA` lines
/// of every block) is checked. The text format has no units.
pub fn read_extrap(text: &str, file: &str, spec: &ColumnSpec) -> Result<Dataset, DataError> {
    let sel = Selection { callpath: spec.region.clone(), metric: spec.metric.clone() };
    let (exp, _) = read_extrap_selected(text, file, spec.limits, &sel)?;
    if exp.series.len() > 1 {
        let names: Vec<String> = exp.series.iter().map(|b| format!("{}/{}", b.callpath, b.metric)).collect();
        let b = &exp.series[0];
        return Err(error(
            file,
            b.span.clone(),
            format!("{file} holds several region/metric pairs: {}; choose one", quoted_list(&names)),
            "",
            Some(format!(
                "select one with a region and a metric (e.g. `--region {} --metric {}`)",
                shell_word(&b.callpath),
                shell_word(&b.metric)
            )),
        ));
    }
    exp.dataset(0, spec, Aggregate::All)
}

/// Reads every region/metric block of an Extra-P text file into an
/// [`Experiment`], each `DATA` line's numbers the repetitions at its point.
/// `limits` caps the numbers' size and their total count.
pub fn read_extrap_experiment(text: &str, file: &str, limits: Limits) -> Result<Experiment, DataError> {
    read_extrap_selected(text, file, limits, &Selection::default()).map(|(e, _)| e)
}

/// [`read_extrap_experiment`] keeping only the blocks `sel` selects, whose
/// numbers alone are parsed (the whole file's structure is checked), and
/// the number of blocks in the file.
pub fn read_extrap_selected(
    text: &str,
    file: &str,
    limits: Limits,
    sel: &Selection,
) -> Result<(Experiment, usize), DataError> {
    let (body, base) = strip_bom(text);
    let spec = ColumnSpec { limits, ..ColumnSpec::default() };
    let s = Structure::parse(body, base, file, &spec)?;
    if s.blocks.is_empty() {
        return Err(no_measurements(text, file));
    }
    let names: Vec<(&str, &str)> = s.blocks.iter().map(|b| (b.region.as_str(), b.metric.as_str())).collect();
    let chosen = sel.choose(&names, file, s.blocks[0].head.clone())?;
    let mut count = 0usize;
    let mut series = Vec::with_capacity(chosen.len());
    for b in chosen.iter().map(|&i| &s.blocks[i]) {
        let mut points = Vec::with_capacity(b.data.len());
        for (data, point) in b.data.iter().zip(&s.points) {
            let values = data_values(data, &mut count, &spec, file)?;
            points.push(SeriesPoint {
                coords: point.coords.clone(),
                values: values.into(),
                summary: None,
                line: data.line,
            });
        }
        series.push(Series {
            callpath: b.region.clone(),
            metric: b.metric.clone(),
            unit: None,
            points,
            span: b.head.clone(),
        });
    }
    let total = s.blocks.len();
    let e = Experiment {
        file: file.to_string(),
        format: Format::ExtrapText,
        params: s.params,
        params_span: s.params_span,
        series,
        models: Vec::new(),
        warnings: Vec::new(),
    };
    Ok((e, total))
}

fn no_measurements(text: &str, file: &str) -> DataError {
    error(
        file,
        text.len()..text.len(),
        format!("no measurements in {file}"),
        "",
        Some("an Extra-P text file needs PARAMETER, POINTS, REGION, METRIC and DATA lines".to_string()),
    )
}

/// The numbers of a `DATA` line, counted against [`Limits::rows`].
fn data_values(
    data: &DataLine<'_>,
    count: &mut usize,
    spec: &ColumnSpec,
    file: &str,
) -> Result<Vec<Rat>, DataError> {
    let mut out = Vec::new();
    for (tok, span) in words(data.text, data.start) {
        if *count >= spec.limits.rows {
            return Err(error(
                file,
                span,
                format!("{file} has too many measurements {}", Limit::Rows.note(&spec.limits)),
                "first measurement over the limit",
                None,
            ));
        }
        *count += 1;
        out.push(parse_number(tok, spec.limits).map_err(|e| {
            let (message, help) = number_error(&format!("line {}", data.line), "measurement", tok, &e);
            error(file, span.clone(), message, "", help)
        })?);
    }
    if out.is_empty() {
        return Err(error(
            file,
            data.keyword.clone(),
            format!("line {}: DATA line without values", data.line),
            "",
            Some("a DATA line lists the repeated measurements at its point".to_string()),
        ));
    }
    Ok(out)
}

/// A measurement point.
struct Point {
    coords: Vec<Rat>,
}

/// A `DATA` line: its number, the span of the keyword and the text after it.
struct DataLine<'a> {
    line: usize,
    keyword: Range<usize>,
    /// Absolute offset of `text`.
    start: usize,
    text: &'a str,
}

/// The `DATA` lines of one region/metric pair.
struct Block<'a> {
    region: String,
    metric: String,
    /// The line that opened the block (its REGION or METRIC line, or its
    /// first DATA line), as a span.
    head: Range<usize>,
    head_line: usize,
    data: Vec<DataLine<'a>>,
}

/// The checked structure of a file.
struct Structure<'a> {
    params: Vec<String>,
    /// The first PARAMETER line.
    params_span: Range<usize>,
    points: Vec<Point>,
    blocks: Vec<Block<'a>>,
}

impl<'a> Structure<'a> {
    fn parse(body: &'a str, base: usize, file: &str, spec: &ColumnSpec) -> Result<Self, DataError> {
        // One block per REGION line at most (a file of 10^5 regions grows
        // no list by doubling).
        let regions = body.matches("\nREGION").count() + usize::from(body.starts_with("REGION"));
        let mut s = Structure {
            params: Vec::new(),
            params_span: base..base,
            points: Vec::new(),
            blocks: Vec::with_capacity(regions),
        };
        let mut region: Option<String> = None;
        let mut metric: Option<String> = None;
        let mut seen = Seen::with_capacity(regions);
        // The span and number of the latest REGION/METRIC line.
        let mut head: Option<(Range<usize>, usize)> = None;
        // Whether DATA lines now go to the last block.
        let mut open = false;
        let mut offset = 0usize;
        for (k, raw) in body.split('\n').enumerate() {
            let line_no = k + 1;
            let start = base + offset;
            offset += raw.len() + 1;
            let raw = raw.strip_suffix('\r').unwrap_or(raw);
            // A `#` starts a comment at the start of a line (as Extra-P
            // reads it); after a number it ends the line too, but in a
            // REGION or METRIC name it is part of the name
            // ("Update #synaptic elements delta").
            let content = if raw.trim_start().starts_with('#') {
                ""
            } else if is_name_line(raw) {
                raw
            } else {
                strip_comment(raw)
            };
            let line_span = start..start + content.trim_end().len();
            let mut toks = words(content, start);
            let Some((keyword, kw_span)) = toks.next() else {
                continue;
            };
            let rest_start = kw_span.end - start;
            let rest = content.get(rest_start..).unwrap_or("");
            let at = |msg: String| format!("line {line_no}: {msg}");
            match keyword {
                "PARAMETER" => {
                    if !s.points.is_empty() {
                        return Err(error(
                            file,
                            kw_span,
                            at("PARAMETER after POINTS".to_string()),
                            "",
                            Some("declare all parameters before the points".to_string()),
                        ));
                    }
                    let mut any = false;
                    for (name, span) in toks {
                        any = true;
                        if s.params.iter().any(|p| p == name) {
                            return Err(error(
                                file,
                                span,
                                at(format!("parameter `{name}` is declared twice")),
                                "",
                                None,
                            ));
                        }
                        s.params.push(name.to_string());
                    }
                    if !any {
                        return Err(error(file, kw_span, at("PARAMETER needs a name".to_string()), "", None));
                    }
                    if s.params_span.is_empty() {
                        s.params_span = line_span;
                    }
                }
                "POINTS" => {
                    if s.params.is_empty() {
                        return Err(error(
                            file,
                            kw_span,
                            at("POINTS before any PARAMETER line".to_string()),
                            "",
                            Some("name the parameters first, e.g. `PARAMETER p`".to_string()),
                        ));
                    }
                    if !s.blocks.is_empty() || region.is_some() || metric.is_some() {
                        return Err(error(
                            file,
                            kw_span,
                            at("POINTS after the measurements began".to_string()),
                            "",
                            Some("list all points before the first REGION, METRIC or DATA line".to_string()),
                        ));
                    }
                    let before = s.points.len();
                    parse_points(rest, start + rest_start, line_no, &s.params, spec, file, &mut s.points)?;
                    if s.points.len() == before {
                        return Err(error(file, kw_span, at("POINTS lists no points".to_string()), "", None));
                    }
                }
                "REGION" | "METRIC" => {
                    // Runs of whitespace in a name are one space, as in Extra-P.
                    let name = rest.split_ascii_whitespace().collect::<Vec<_>>().join(" ");
                    if name.is_empty() {
                        return Err(error(file, kw_span, at(format!("{keyword} needs a name")), "", None));
                    }
                    if open {
                        check_complete(&s, file)?;
                    }
                    open = false;
                    if keyword == "REGION" {
                        region = Some(name);
                    } else {
                        metric = Some(name);
                    }
                    head = Some((line_span, line_no));
                }
                "DATA" => {
                    if s.points.is_empty() {
                        return Err(error(
                            file,
                            kw_span,
                            at("DATA before POINTS".to_string()),
                            "",
                            Some("list the points (POINTS ...) before the measurements".to_string()),
                        ));
                    }
                    if !open {
                        let r = region.clone().unwrap_or_default();
                        let m = metric.clone().unwrap_or_default();
                        let k = seen.key(&r, &m);
                        if let Some(b) = seen.repeat(k, &s.blocks, &r, &m).map(|i| &s.blocks[i]) {
                            let (span, hl) = head.clone().unwrap_or((line_span.clone(), line_no));
                            return Err(error(
                                file,
                                span,
                                format!(
                                    "line {hl}: region `{r}`, metric `{m}` appears again (first at line {})",
                                    b.head_line
                                ),
                                "",
                                Some("each region/metric pair has one block of DATA lines".to_string()),
                            ));
                        }
                        let (span, hl) = head.clone().unwrap_or((line_span.clone(), line_no));
                        seen.add(k, s.blocks.len());
                        s.blocks.push(Block {
                            region: r,
                            metric: m,
                            head: span,
                            head_line: hl,
                            data: Vec::with_capacity(s.points.len()),
                        });
                        open = true;
                    }
                    let npoints = s.points.len();
                    if let Some(b) = s.blocks.last_mut() {
                        if b.data.len() >= npoints {
                            return Err(error(
                                file,
                                line_span,
                                at(format!(
                                    "more DATA lines than points ({npoints}) for region `{}`, metric `{}`",
                                    b.region, b.metric
                                )),
                                "",
                                Some("a block has one DATA line per point, in POINTS order".to_string()),
                            ));
                        }
                        b.data.push(DataLine {
                            line: line_no,
                            keyword: kw_span,
                            start: start + rest_start,
                            text: rest,
                        });
                    }
                }
                other => {
                    let upper = other.to_ascii_uppercase();
                    let help = if super::EXTRAP_KEYWORDS.contains(&upper.as_str()) {
                        format!("keywords are written in upper case: `{upper}`")
                    } else {
                        "the lines of an Extra-P text file start with PARAMETER, POINTS, REGION, METRIC or DATA \
                         (`#` starts a comment)"
                            .to_string()
                    };
                    return Err(error(
                        file,
                        kw_span,
                        at(format!("unknown keyword `{other}`")),
                        "",
                        Some(help),
                    ));
                }
            }
        }
        if open {
            check_complete(&s, file)?;
        }
        Ok(s)
    }
}

/// The first block of each hash of (region, metric): a file of 100 000
/// regions is checked for repeats in one pass, without a copy of each
/// name as a key.
struct Seen {
    first: std::collections::HashMap<u64, usize>,
    hasher: std::collections::hash_map::RandomState,
}

impl Seen {
    fn with_capacity(n: usize) -> Seen {
        Seen { first: std::collections::HashMap::with_capacity(n), hasher: Default::default() }
    }

    fn key(&self, region: &str, metric: &str) -> u64 {
        std::hash::BuildHasher::hash_one(&self.hasher, (region, metric))
    }

    /// Block `index` has hash `key` (the first one with it is kept).
    fn add(&mut self, key: u64, index: usize) {
        self.first.entry(key).or_insert(index);
    }

    /// The block of `blocks` that `region`, `metric` (hash `key`) repeats:
    /// a first block with other names (two pairs whose 64-bit hashes
    /// collide) is settled by reading every block's names.
    fn repeat(&self, key: u64, blocks: &[Block<'_>], region: &str, metric: &str) -> Option<usize> {
        let same = |b: &Block<'_>| b.region == region && b.metric == metric;
        match self.first.get(&key) {
            None => None,
            Some(&i) if same(&blocks[i]) => Some(i),
            Some(_) => blocks.iter().position(same),
        }
    }
}

/// The last block must have one DATA line per point.
fn check_complete(s: &Structure<'_>, file: &str) -> Result<(), DataError> {
    let Some(b) = s.blocks.last() else {
        return Ok(());
    };
    let n = b.data.len();
    if n == s.points.len() {
        return Ok(());
    }
    let (span, line) = b.data.last().map_or((b.head.clone(), b.head_line), |d| (d.keyword.clone(), d.line));
    Err(error(
        file,
        span,
        format!(
            "line {line}: region `{}`, metric `{}` has {n} DATA line{}, but there are {} points",
            b.region,
            b.metric,
            if n == 1 { "" } else { "s" },
            s.points.len()
        ),
        "last DATA line of the block",
        Some("a block has one DATA line per point, in POINTS order".to_string()),
    ))
}

fn shell_word(s: &str) -> String {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-./:>".contains(&b)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Whether the line starts with `REGION` or `METRIC`, whose rest is a name.
fn is_name_line(line: &str) -> bool {
    let first = line.split_ascii_whitespace().next().unwrap_or("");
    first == "REGION" || first == "METRIC"
}

/// The line without a `#` comment (a `#` at its start or after whitespace).
fn strip_comment(line: &str) -> &str {
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'#' && (i == 0 || bytes.get(i - 1).is_some_and(u8::is_ascii_whitespace)) {
            return line.get(..i).unwrap_or(line);
        }
    }
    line
}

/// The whitespace-separated words of `text` with their absolute spans
/// (`start` is the absolute offset of `text`).
fn words(text: &str, start: usize) -> impl Iterator<Item = (&str, Range<usize>)> {
    let bytes = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        if i >= bytes.len() {
            return None;
        }
        let from = i;
        while bytes.get(i).is_some_and(|b| !b.is_ascii_whitespace()) {
            i += 1;
        }
        Some((text.get(from..i).unwrap_or(""), start + from..start + i))
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok<'a> {
    Open,
    Close,
    Num(&'a str),
}

/// `words`, with `(` and `)` as tokens of their own.
fn point_tokens(text: &str, start: usize) -> Vec<(Tok<'_>, Range<usize>)> {
    let mut out = Vec::new();
    for (w, span) in words(text, start) {
        let mut from = 0;
        for (i, c) in w.char_indices() {
            if c == '(' || c == ')' {
                if i > from {
                    out.push((Tok::Num(w.get(from..i).unwrap_or("")), span.start + from..span.start + i));
                }
                out.push((if c == '(' { Tok::Open } else { Tok::Close }, span.start + i..span.start + i + 1));
                from = i + 1;
            }
        }
        if from < w.len() {
            out.push((Tok::Num(w.get(from..).unwrap_or("")), span.start + from..span.end));
        }
    }
    out
}

/// Parses the points of one POINTS line into `points`.
fn parse_points(
    text: &str,
    start: usize,
    line: usize,
    params: &[String],
    spec: &ColumnSpec,
    file: &str,
    points: &mut Vec<Point>,
) -> Result<(), DataError> {
    let n = params.len();
    let num = |s: &str, span: &Range<usize>| -> Result<Rat, DataError> {
        parse_number(s, spec.limits).map_err(|e| {
            let (message, help) = number_error(&format!("line {line}"), "point coordinate", s, &e);
            error(file, span.clone(), message, "", help)
        })
    };
    let toks = point_tokens(text, start);
    let mut it = toks.iter();
    while let Some((tok, span)) = it.next() {
        match tok {
            Tok::Num(s) => {
                if n != 1 {
                    return Err(error(
                        file,
                        span.clone(),
                        format!("line {line}: with {n} parameters each point is written in parentheses"),
                        "",
                        Some(format!(
                            "write the coordinates in PARAMETER order ({}), e.g. `( 2 100 )`",
                            params.join(" ")
                        )),
                    ));
                }
                points.push(Point { coords: vec![num(s, span)?] });
            }
            Tok::Close => {
                return Err(error(file, span.clone(), format!("line {line}: unmatched `)`"), "", None));
            }
            Tok::Open => {
                let open = span.clone();
                let mut coords = Vec::new();
                let close = loop {
                    match it.next() {
                        None => {
                            return Err(error(
                                file,
                                open,
                                format!("line {line}: unclosed `(`"),
                                "",
                                Some("a point is written on one line, e.g. `( 2 100 )`".to_string()),
                            ))
                        }
                        Some((Tok::Close, s)) => break s.clone(),
                        Some((Tok::Num(s), sp)) => coords.push(num(s, sp)?),
                        Some((Tok::Open, inner)) => {
                            // A wrapped coordinate: `(` NUMBER `)`.
                            match (it.next(), it.next()) {
                                (Some((Tok::Num(s), sp)), Some((Tok::Close, _))) => coords.push(num(s, sp)?),
                                _ => {
                                    return Err(error(
                                        file,
                                        inner.clone(),
                                        format!("line {line}: expected `( NUMBER )` inside a point"),
                                        "",
                                        None,
                                    ))
                                }
                            }
                        }
                    }
                };
                if coords.len() != n {
                    let k = coords.len();
                    return Err(error(
                        file,
                        open.start..close.end,
                        format!(
                            "line {line}: point {} has {k} coordinate{}, but there {} {n} parameter{} ({})",
                            points.len() + 1,
                            if k == 1 { "" } else { "s" },
                            if n == 1 { "is" } else { "are" },
                            if n == 1 { "" } else { "s" },
                            quoted_list(params)
                        ),
                        "",
                        None,
                    ));
                }
                points.push(Point { coords });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::{frac, int};

    use crate::data::test_spec as spec;
    use crate::data::Measurement;

    #[test]
    fn repeated_blocks_are_found_through_colliding_hashes_too() {
        let block = |region: &str, metric: &str| Block {
            region: region.into(),
            metric: metric.into(),
            head: 0..0,
            head_line: 1,
            data: Vec::new(),
        };
        let blocks = [block("a", "time"), block("b", "time"), block("c", "visits")];
        // All three blocks under one hash (7), as colliding pairs would be.
        let mut seen = Seen::with_capacity(2);
        for i in 0..3 {
            seen.add(7, i);
        }
        assert_eq!(seen.repeat(7, &blocks, "a", "time"), Some(0));
        assert_eq!(seen.repeat(7, &blocks, "b", "time"), Some(1));
        assert_eq!(seen.repeat(7, &blocks, "c", "visits"), Some(2));
        assert_eq!(seen.repeat(7, &blocks, "c", "time"), None);
        assert_eq!(seen.repeat(8, &blocks, "a", "time"), None);
        assert_eq!(seen.key("a", "time"), seen.key("a", "time"));
        assert_ne!(seen.key("a", "time"), seen.key("atime", ""));
    }

    fn err(text: &str, s: &ColumnSpec) -> (String, String) {
        let e = read_extrap(text, "e.txt", s).expect_err("should fail");
        (e.diagnostic.headline(text), e.render(text))
    }

    const ONE: &str = "\
# synthetic
PARAMETER p

POINTS 2 4 8
REGION compute
METRIC time
DATA 1.1 1.2 1.3   # three repetitions
DATA 2.0 2.1
DATA 3/4
";

    #[test]
    fn single_parameter() {
        let d = read_extrap(ONE, "e.txt", &spec(&["p"], "T")).unwrap();
        assert_eq!(d.y_column, "compute/time");
        assert_eq!(d.columns, vec!["p".to_string()]);
        assert!(d.units.is_empty() && d.warnings.is_empty());
        assert_eq!(d.rows.len(), 6);
        assert_eq!(d.rows[0], Measurement { x: vec![int(2)], y: frac(11, 10), line: 7 });
        assert_eq!(d.rows[2], Measurement { x: vec![int(2)], y: frac(13, 10), line: 7 });
        assert_eq!(d.rows[4], Measurement { x: vec![int(4)], y: frac(21, 10), line: 8 });
        assert_eq!(d.rows[5], Measurement { x: vec![int(8)], y: frac(3, 4), line: 9 });
        // parenthesised single coordinates, CRLF, BOM, a renamed parameter
        let text = "\u{feff}PARAMETER procs\r\nPOINTS (2) ( 4 )\r\nPOINTS ((8))\r\nREGION r\r\nDATA 1\r\nDATA 2\r\nDATA 3\r\n";
        let mut s = spec(&["p"], "T");
        s.rename.insert("p".into(), "procs".into());
        let d = read_extrap(text, "e.txt", &s).unwrap();
        assert_eq!(d.columns, vec!["procs".to_string()]);
        assert_eq!(d.y_column, "r/");
        let xs: Vec<Rat> = d.rows.iter().map(|r| r.x[0].clone()).collect();
        assert_eq!(xs, vec![int(2), int(4), int(8)]);
        assert_eq!(d.rows[2].line, 7);
    }

    #[test]
    fn multi_parameter_and_block_selection() {
        let text = "\
PARAMETER p
PARAMETER n
POINTS ( 2 100 ) ( 4 100 )
POINTS ( 2 200 )
METRIC time
REGION main
DATA 1 2
DATA 3
DATA 5 6
REGION init
DATA 7
DATA 8
DATA 9
METRIC visits
REGION main
DATA 10
DATA 11
DATA 12
";
        // the model uses n first, then p: coordinates come in model order
        let mut s = spec(&["n", "p"], "T");
        s.region = Some("main".into());
        s.metric = Some("time".into());
        let d = read_extrap(text, "e.txt", &s).unwrap();
        assert_eq!(d.columns, vec!["n".to_string(), "p".to_string()]);
        assert_eq!(d.rows.len(), 5);
        assert_eq!(d.rows[1], Measurement { x: vec![int(100), int(2)], y: int(2), line: 7 });
        assert_eq!(d.rows[4], Measurement { x: vec![int(200), int(2)], y: int(6), line: 9 });
        s.region = Some("init".into());
        s.metric = None; // init has one metric only
        let d = read_extrap(text, "e.txt", &s).unwrap();
        assert_eq!(d.y_column, "init/time");
        assert_eq!(d.rows.iter().map(|r| r.line).collect::<Vec<_>>(), vec![11, 12, 13]);
        s.region = None;
        s.metric = Some("visits".into());
        let d = read_extrap(text, "e.txt", &s).unwrap();
        assert_eq!(d.y_column, "main/visits");
        assert_eq!(d.rows[2].y, int(12));

        // selection errors
        let mut s = spec(&["n", "p"], "T");
        let (head, full) = err(text, &s);
        assert_eq!(
            head,
            "e.txt:6:1: e.txt holds several region/metric pairs: `main/time`, `init/time`, `main/visits`; choose one"
        );
        assert!(full
            .ends_with("= help: select one with a region and a metric (e.g. `--region main --metric time`)"));
        s.region = Some("main".into());
        let (head, _) = err(text, &s);
        assert_eq!(
            head,
            "e.txt:6:1: e.txt holds several region/metric pairs: `main/time`, `main/visits`; choose one"
        );
        s.region = Some("solve".into());
        let (head, _) = err(text, &s);
        assert_eq!(
            head,
            "e.txt:6:1: no callpath matches --region `solve` in e.txt (available: `main`, `init`)"
        );
        s.region = Some("init".into());
        s.metric = Some("visits".into());
        let (head, _) = err(text, &s);
        assert_eq!(head, "e.txt:6:1: no metric matches --metric `visits` in e.txt (available: `time`)");

        // a model variable that is not a parameter; a parameter the model does not use
        let mut s = spec(&["p", "q"], "T");
        s.region = Some("init".into());
        let (head, full) = err(text, &s);
        assert_eq!(head, "e.txt:1:1: missing parameter `q` in e.txt (available: `p`, `n`)");
        assert!(
            full.ends_with("= help: map a model variable to a parameter with `--x q=PARAMETER`"),
            "{full}"
        );
        let mut s = spec(&["p"], "T");
        s.region = Some("init".into());
        let d = read_extrap(text, "e.txt", &s).unwrap();
        assert_eq!(
            d.warnings,
            vec!["parameter `n` is not a model variable; points that differ only in `n` are read as repetitions"
                .to_string()]
        );
    }

    #[test]
    fn region_then_metric_order() {
        let text = "PARAMETER x\nPOINTS 1 2\nREGION a\nMETRIC t\nDATA 1\nDATA 2\nMETRIC f\nDATA 3\nDATA 4\n";
        let mut s = spec(&["x"], "T");
        s.metric = Some("f".into());
        let d = read_extrap(text, "e.txt", &s).unwrap();
        assert_eq!(d.y_column, "a/f");
        assert_eq!(d.rows.iter().map(|r| r.line).collect::<Vec<_>>(), vec![8, 9]);
    }

    #[test]
    fn structure_errors() {
        let s = spec(&["p"], "T");
        let cases: &[(&str, &str)] = &[
            ("PARAMETER p\nPOINTS 1 2\nREGION r\nDATA 1\nDATA 2\nDATA 3\n", "e.txt:6:1: line 6: more DATA lines than points (2) for region `r`, metric ``"),
            ("PARAMETER p\nPOINTS 1 2\nREGION r\nDATA 1\nREGION s\nDATA 1\nDATA 2\n", "e.txt:4:1: line 4: region `r`, metric `` has 1 DATA line, but there are 2 points"),
            ("PARAMETER p\nPOINTS 1 2 3\nREGION r\nDATA 1\nDATA 2\n", "e.txt:5:1: line 5: region `r`, metric `` has 2 DATA lines, but there are 3 points"),
            ("PARAMETER p n\nPOINTS ( 1 2 ) ( 3 )\n", "e.txt:2:16: line 2: point 2 has 1 coordinate, but there are 2 parameters (`p`, `n`)"),
            ("PARAMETER p\nPOINTS ( 1 2 )\n", "e.txt:2:8: line 2: point 1 has 2 coordinates, but there is 1 parameter (`p`)"),
            ("PARAMETER p\nPARAMETER n\nPOINTS 1 2\n", "e.txt:3:8: line 3: with 2 parameters each point is written in parentheses"),
            ("PARAMETER p\nPOINTS ( 1\n", "e.txt:2:8: line 2: unclosed `(`"),
            ("PARAMETER p\nPOINTS 1 )\n", "e.txt:2:10: line 2: unmatched `)`"),
            ("PARAMETER p\nPOINTS ( (1 2) )\n", "e.txt:2:10: line 2: expected `( NUMBER )` inside a point"),
            ("PARAMETER p\nPOINTS 1 x\n", "e.txt:2:10: line 2: `x` is not a number (expected e.g. 12, -0.0088823, 1.9312e-7 or 14244/5)"),
            ("PARAMETER p\nPOINTS 1 nan\n", "e.txt:2:10: line 2: `nan` is not a finite number; a point coordinate must be a finite decimal"),
            ("PARAMETER p\nPOINTS\n", "e.txt:2:1: line 2: POINTS lists no points"),
            ("POINTS 1 2\n", "e.txt:1:1: line 1: POINTS before any PARAMETER line"),
            ("PARAMETER p\nPOINTS 1\nPARAMETER n\n", "e.txt:3:1: line 3: PARAMETER after POINTS"),
            ("PARAMETER p\nPOINTS 1\nREGION r\nDATA 1\nPOINTS 2\n", "e.txt:5:1: line 5: POINTS after the measurements began"),
            ("PARAMETER\n", "e.txt:1:1: line 1: PARAMETER needs a name"),
            ("PARAMETER p q p\n", "e.txt:1:15: line 1: parameter `p` is declared twice"),
            ("PARAMETER p\nPOINTS 1\nREGION   \n", "e.txt:3:1: line 3: REGION needs a name"),
            ("PARAMETER p\nDATA 1\n", "e.txt:2:1: line 2: DATA before POINTS"),
            ("PARAMETER p\nPOINTS 1\nREGION r\nDATA 1\nREGION r\nDATA 2\n", "e.txt:5:1: line 5: region `r`, metric `` appears again (first at line 3)"),
            ("PARAMETER p\nPOINTS 1\nRegion r\n", "e.txt:3:1: line 3: unknown keyword `Region`"),
            ("PARAMETER p\nPOINTS 1\nEXPERIMENT x\n", "e.txt:3:1: line 3: unknown keyword `EXPERIMENT`"),
            ("# nothing\nPARAMETER p\nPOINTS 1\n", "e.txt:3:9: no measurements in e.txt"),
        ];
        for (text, want) in cases {
            let (head, _) = err(text, &s);
            assert_eq!(head, *want, "{text}");
        }
        let (_, full) = err("PARAMETER p\nPOINTS 1\nRegion r\n", &s);
        assert!(full.ends_with("= help: keywords are written in upper case: `REGION`"), "{full}");
        let (_, full) = err("PARAMETER p n\nPOINTS ( 1 2 ) ( 3 )\n", &s);
        assert!(full.contains("2 | POINTS ( 1 2 ) ( 3 )\n  |                ^^^^^"), "{full}");
    }

    /// Extra-P reads `#` as a comment only at the start of a line: region
    /// names may hold it (RELeARN's "Update #synaptic elements delta"), and
    /// runs of spaces in a name are one space. After a number it still
    /// ends the line.
    #[test]
    fn hashes_in_names_and_collapsed_spaces() {
        let text = "# c\nPARAMETER p\nPOINTS 1 2\n  # indented comment\nMETRIC time\nREGION Update #synaptic   elements\nDATA 1 2 # two\nDATA 3\nREGION Update #synaptic\nDATA 4\nDATA 5\n";
        let e = read_extrap_experiment(text, "r.txt", Limits::default()).unwrap();
        let names: Vec<&str> = e.series.iter().map(|s| s.callpath.as_str()).collect();
        assert_eq!(names, ["Update #synaptic elements", "Update #synaptic"]);
        assert_eq!(e.series[0].points[0].values, vec![int(1), int(2)]);
        assert_eq!(e.series[0].points[1].line, 8);
        assert_eq!(e.series[1].metric, "time");
    }

    #[test]
    fn data_value_errors_are_located() {
        let mut s = spec(&["p"], "T");
        let text = "PARAMETER p\nPOINTS 1 2\nREGION r\nDATA 1 2\nDATA 3 abc 5\n";
        let (head, full) = err(text, &s);
        assert_eq!(
            head,
            "e.txt:5:8: line 5: `abc` is not a number (expected e.g. 12, -0.0088823, 1.9312e-7 or 14244/5)"
        );
        assert!(full.contains("5 | DATA 3 abc 5\n  |        ^^^"), "{full}");
        let (head, _) = err("PARAMETER p\nPOINTS 1\nREGION r\nDATA -inf\n", &s);
        assert_eq!(
            head,
            "e.txt:4:6: line 4: `-inf` is not a finite number; a measurement must be a finite decimal"
        );
        let (head, _) = err("PARAMETER p\nPOINTS 1\nREGION r\nDATA\n", &s);
        assert_eq!(head, "e.txt:4:1: line 4: DATA line without values");
        // values of blocks that are not selected are not parsed
        s.region = Some("r".into());
        let d = read_extrap("PARAMETER p\nPOINTS 1\nREGION r\nDATA 1\nREGION q\nDATA NaN\n", "e.txt", &s)
            .unwrap();
        assert_eq!(d.rows.len(), 1);
        // row limit
        s.limits.rows = 3;
        let (head, _) = err("PARAMETER p\nPOINTS 1 2\nREGION r\nDATA 1 2\nDATA 3 4\n", &s);
        assert_eq!(head, "e.txt:5:8: e.txt has too many measurements (limit 3; raise it with --max-rows)");
    }

    #[test]
    fn comments_and_region_names() {
        assert_eq!(strip_comment("DATA 1 # c"), "DATA 1 ");
        assert_eq!(strip_comment("# c"), "");
        assert_eq!(strip_comment("REGION main#1"), "REGION main#1");
        let text = "PARAMETER p\nPOINTS 1\nREGION main -> solve  \nMETRIC time (s)\nDATA 4\n";
        let d = read_extrap(text, "e.txt", &spec(&["p"], "T")).unwrap();
        assert_eq!(d.y_column, "main -> solve/time (s)");
    }

    #[test]
    fn reads_the_sample_file() {
        let text = include_str!("../../data/extrap_amdahl.txt");
        let mut s = spec(&["p"], "T");
        s.region = Some("main".into());
        s.metric = Some("time".into());
        let d = super::super::read(text, "extrap_amdahl.txt", &s).unwrap();
        assert_eq!(d.rows.len(), 18);
        assert_eq!(d.y_column, "main/time");
        let ps: Vec<Rat> = d.rows.iter().step_by(3).map(|r| r.x[0].clone()).collect();
        assert_eq!(ps, [1, 2, 4, 8, 16, 32].map(int).to_vec());
        for r in &d.rows {
            let model = int(10) + int(90) / &r.x[0];
            let dev = &r.y - &model;
            assert!(dev < frac(1, 2) && dev > frac(-1, 2), "line {}: {} vs {}", r.line, r.y, model);
        }
    }
}
