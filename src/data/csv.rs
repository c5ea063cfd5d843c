//! The CSV reader.

use crate::limits::Limit;
use std::collections::BTreeMap;
use std::ops::Range;

use ::csv::{ByteRecord, ReaderBuilder};

use super::{dialect, error, number_error, parse_number, quoted_list, repeat_warnings, strip_bom};
use super::{ColumnSpec, DataError, Dataset, Measurement};

/// Reads measurements from CSV text.
///
/// The first non-comment line is the header; a header cell may carry a unit
/// (`T [s]` or `T (s)`: column `T`, unit `s`). Column names match exactly
/// (after trimming). Each model variable is read from its column (or the
/// column [`ColumnSpec::rename`] names) and the response from
/// [`ColumnSpec::y_column`] or else the column named [`ColumnSpec::y`];
/// other columns are ignored. Every used cell must be an exact finite number.
/// Lines starting with `#` are comments and blank lines are skipped; CRLF
/// line ends and a UTF-8 byte-order mark are accepted. A line whose used
/// values all equal an earlier line's is kept and noted in
/// [`Dataset::warnings`].
pub fn read_csv(text: &str, file: &str, spec: &ColumnSpec) -> Result<Dataset, DataError> {
    let spec = ColumnSpec { by: Vec::new(), ..spec.clone() };
    read_csv_inner(text, file, &spec).map(|(d, _, _)| d)
}

/// The column names of CSV text's header (units removed), for a command
/// that takes its variables from the data (`errband DATA --family pmnf`);
/// empty when the header cannot be read (the full read reports why).
pub fn column_names(text: &str, delimiter: Option<dialect::Delimiter>) -> Vec<String> {
    head_and_first_row(text, delimiter, false)
        .map(|(names, _)| names.into_iter().filter(|n| !n.is_empty()).collect())
        .unwrap_or_default()
}

/// The columns of CSV text whose first data row holds something other
/// than a number (`IntelMPI`, `MPI_Bcast`): in a wide table these name a
/// series rather than measure one, so a message can suggest `--by` for
/// them. Empty when the header or that row cannot be read.
pub fn text_columns(text: &str, delimiter: Option<dialect::Delimiter>) -> Vec<String> {
    let Some((names, Some(row))) = head_and_first_row(text, delimiter, true) else { return Vec::new() };
    names
        .into_iter()
        .zip(row)
        .filter(|(n, v)| !n.is_empty() && crate::num::parse_rat(v.trim()).is_err())
        .map(|(n, _)| n)
        .collect()
}

/// The header's column names (units removed; empty for a nameless
/// column) and, when `row` is asked for, the cells of the first line that
/// is neither blank nor a comment (`None` when there is none). `None` when
/// the header cannot be read.
fn head_and_first_row(
    text: &str,
    delimiter: Option<dialect::Delimiter>,
    row: bool,
) -> Option<(Vec<String>, Option<Vec<String>>)> {
    let (original, base) = strip_bom(text);
    let delimiter = delimiter.unwrap_or_else(|| dialect::detect(original));
    let prepared = dialect::prepare(original, delimiter);
    let (mut reader, mut locator) = open_reader_with(&prepared, base, delimiter.byte());
    let mut head = ByteRecord::new();
    read_header(&mut reader, &mut head, &mut locator, ("", text.len()), String::new(), "").ok()?;
    let names = head.iter().map(|cell| HeaderCell::parse(bytes_str(cell)).name.to_string()).collect();
    if !row {
        return Some((names, None));
    }
    let mut record = ByteRecord::new();
    while let Ok(true) = reader.read_byte_record(&mut record) {
        let first = record.get(0).map(|c| bytes_str(c).trim()).unwrap_or("");
        if !(first.starts_with('#') || (record.len() == 1 && first.is_empty())) {
            return Some((names, Some(record.iter().map(|c| bytes_str(c).to_string()).collect())));
        }
    }
    Some((names, None))
}

/// Reads CSV text as [`read_csv`] does and splits the rows into groups by
/// the values of the columns [`ColumnSpec::by`] names: one dataset per
/// group, named `col=value, col2=value2`, in order of first appearance.
/// The group cells are compared as text (trimmed).
pub fn read_csv_groups(
    text: &str,
    file: &str,
    spec: &ColumnSpec,
) -> Result<Vec<(String, Dataset)>, DataError> {
    let (all, names, group_of) = read_csv_inner(text, file, spec)?;
    let Dataset { file, vars, columns, y_column, units, rows: all_rows, .. } = all;
    let mut rows: Vec<Vec<Measurement>> = vec![Vec::new(); names.len()];
    for (r, g) in all_rows.into_iter().zip(group_of) {
        rows[g].push(r);
    }
    Ok(names
        .into_iter()
        .zip(rows)
        .map(|(name, rows)| {
            let warnings = repeat_warnings(&rows);
            let d = Dataset {
                file: file.clone(),
                vars: vars.clone(),
                columns: columns.clone(),
                y_column: y_column.clone(),
                units: units.clone(),
                rows,
                warnings,
            };
            (name, d)
        })
        .collect())
}

/// The dataset, the group names and each row's group.
type Grouped = (Dataset, Vec<String>, Vec<usize>);

fn read_csv_inner(text: &str, file: &str, spec: &ColumnSpec) -> Result<Grouped, DataError> {
    let (original, base) = strip_bom(text);
    let delimiter = spec.delimiter.unwrap_or_else(|| dialect::detect(original));
    // The same text with tabs between whitespace-separated fields (same
    // offsets, so every span still points into the user's file).
    let prepared = dialect::prepare(original, delimiter);
    let body: &str = &prepared;
    let sep = delimiter.byte();
    let (mut reader, mut locator) = open_reader_with(body, base, sep);
    let mut head_record = ByteRecord::new();

    // The header.
    let (header_start, header_line) = read_header(
        &mut reader,
        &mut head_record,
        &mut locator,
        (file, text.len()),
        format!("no measurements in {file}"),
        "the file is empty; expected a header line such as `p,T` and one line per measurement",
    )?;
    let header: Vec<HeaderCell<'_>> =
        head_record.iter().map(|cell| HeaderCell::parse(bytes_str(cell))).collect();
    check_duplicates(&header, body, header_start, base, file, sep as char)?;

    // Which column each model variable and the response come from.
    let mut wanted: Vec<(&str, &str, bool)> =
        spec.vars.iter().map(|v| (v.as_str(), spec.column_of(v), false)).collect();
    wanted.push((spec.y.as_str(), spec.y_column_name(), true));
    let mut index = Vec::with_capacity(wanted.len());
    let mut missing = Vec::new();
    for &(model, column, is_y) in &wanted {
        match find_column(&header, column) {
            Some(i) => index.push(i),
            None => missing.push((model, column, is_y)),
        }
    }
    if !missing.is_empty() {
        return Err(missing_columns(&missing, &header, spec, body, header_start, base, file));
    }
    let (var_index, y_index) = match index.split_last() {
        Some((&y, vars)) => (vars.to_vec(), y),
        None => (Vec::new(), 0),
    };
    // The grouping columns (`--by`).
    let mut by_index = Vec::with_capacity(spec.by.len());
    for name in &spec.by {
        match find_column(&header, name) {
            Some(i) if var_index.contains(&i) || i == y_index => {
                return Err(error(
                    file,
                    line_span(body, header_start, base),
                    format!("--by {name}: the column `{name}` is read by the model; group by another column"),
                    "",
                    None,
                ))
            }
            Some(i) => by_index.push(i),
            None => {
                return Err(error(
                    file,
                    line_span(body, header_start, base),
                    format!(
                        "--by {name}: no column `{name}` in {file} (available: {})",
                        quoted_list(&header_names(&header))
                    ),
                    "header",
                    None,
                ))
            }
        }
    }
    let mut group_names: Vec<String> = Vec::new();
    let mut group_index: std::collections::HashMap<Vec<u8>, usize> = std::collections::HashMap::new();
    let mut group_of: Vec<usize> = Vec::new();
    let mut units = BTreeMap::new();
    for (&(model, _, _), &i) in wanted.iter().zip(&index) {
        if let Some(unit) = header.get(i).and_then(|h| h.unit) {
            units.insert(model.to_string(), unit.to_string());
        }
    }
    let columns: Vec<String> =
        var_index.iter().map(|&i| header.get(i).map_or(String::new(), |h| h.name.to_string())).collect();
    let y_column = header.get(y_index).map_or(String::new(), |h| h.name.to_string());

    // The measurements.
    let mut record = ByteRecord::new();
    // At most one row per line: one allocation instead of a doubling
    // series, each of whose fresh pages the kernel zeroes (a fifth of
    // reading 10^6 rows).
    let lines = body.bytes().filter(|&b| b == b'\n').count() + 1;
    let mut rows: Vec<Measurement> = Vec::with_capacity(lines.min(spec.limits.rows));
    while next_record(&mut reader, &mut record, &locator, file)? {
        let (start, line) = locator.locate(&record);
        if is_blank(&record) {
            continue;
        }
        if record.len() != header.len() {
            let fields = |n: usize| {
                if n == 1 {
                    "1 field".to_string()
                } else {
                    format!("{n} fields")
                }
            };
            return Err(error(
                file,
                line_span(body, start, base),
                format!("line {line} has {}, the header has {}", fields(record.len()), header.len()),
                "",
                Some(format!("the header is line {header_line}: {}", quoted_list(&header_names(&header)))),
            ));
        }
        if rows.len() >= spec.limits.rows {
            return Err(error(
                file,
                line_span(body, start, base),
                format!("{file} has too many measurements {}", Limit::Rows.note(&spec.limits)),
                "first measurement over the limit",
                None,
            ));
        }
        let cell = |i: usize| -> Result<super::Rat, DataError> {
            let raw = record.get(i).unwrap_or(b"");
            let text = bytes_str(raw);
            // With semicolons between fields a comma is the decimal
            // separator (`2,5`), as spreadsheets in such locales write it.
            let comma_decimal;
            let text = if delimiter == dialect::Delimiter::Semicolon
                && text.matches(',').count() == 1
                && !text.contains('.')
            {
                comma_decimal = text.replace(',', ".");
                comma_decimal.as_str()
            } else {
                text
            };
            parse_number(text, spec.limits).map_err(|e| {
                let name = header.get(i).map_or("", |h| h.name);
                let (message, help) =
                    number_error(&format!("line {line}, column `{name}`"), "measurement", text, &e);
                let span = cell_span_sep(body, start, i, base, sep as char)
                    .unwrap_or_else(|| line_span(body, start, base));
                error(file, span, message, "", help)
            })
        };
        let mut x = Vec::with_capacity(var_index.len());
        for &i in &var_index {
            x.push(cell(i)?);
        }
        let y = cell(y_index)?;
        rows.push(Measurement { x, y, line });
        if !by_index.is_empty() {
            let mut key = Vec::new();
            for &i in &by_index {
                key.extend_from_slice(bytes_str(record.get(i).unwrap_or(b"")).trim().as_bytes());
                key.push(0);
            }
            let next = group_names.len();
            let g = *group_index.entry(key).or_insert_with(|| {
                let name = by_index
                    .iter()
                    .map(|&i| {
                        let col = header.get(i).map_or("", |h| h.name);
                        format!("{col}={}", bytes_str(record.get(i).unwrap_or(b"")).trim())
                    })
                    .collect::<Vec<_>>()
                    .join(", ");
                group_names.push(name);
                next
            });
            group_of.push(g);
        }
    }
    if rows.is_empty() {
        return Err(error(
            file,
            text.len()..text.len(),
            format!("no measurements in {file}"),
            "",
            Some(format!("the header is line {header_line}; add one line per measurement below it")),
        ));
    }
    let warnings = if by_index.is_empty() { repeat_warnings(&rows) } else { Vec::new() };
    if by_index.is_empty() {
        group_names.push(String::new());
        group_of = vec![0; rows.len()];
    }
    let d =
        Dataset { file: file.to_string(), vars: spec.vars.clone(), columns, y_column, units, rows, warnings };
    Ok((d, group_names, group_of))
}

/// Reads the next record; the reader is flexible and reads from memory, so
/// errors are not expected, but any is reported at the current position.
pub(super) fn next_record(
    reader: &mut ::csv::Reader<&[u8]>,
    record: &mut ByteRecord,
    locator: &Locator<'_>,
    file: &str,
) -> Result<bool, DataError> {
    reader.read_byte_record(record).map_err(|e| {
        let at = locator.base + locator.byte;
        error(file, at..at, format!("cannot read {file} as CSV: {e}"), "", None)
    })
}

/// A reader of `body` in errband's CSV dialect (no header handling,
/// flexible field counts, `#` comments) and a locator for its records.
pub(super) fn open_reader(body: &str, base: usize) -> (::csv::Reader<&[u8]>, Locator<'_>) {
    open_reader_with(body, base, b',')
}

/// [`open_reader`] for fields separated by `sep`.
pub(super) fn open_reader_with(body: &str, base: usize, sep: u8) -> (::csv::Reader<&[u8]>, Locator<'_>) {
    let reader = ReaderBuilder::new()
        .delimiter(sep)
        .has_headers(false)
        .flexible(true)
        .comment(Some(b'#'))
        .from_reader(body.as_bytes());
    (reader, Locator { body: body.as_bytes(), base, byte: 0, line: 1 })
}

/// Reads the header (the first non-blank record) into `record`: its byte
/// offset in the body and its line. A file without one is an error at its
/// end with `message` and `help`.
pub(super) fn read_header(
    reader: &mut ::csv::Reader<&[u8]>,
    record: &mut ByteRecord,
    locator: &mut Locator<'_>,
    (file, end): (&str, usize),
    message: String,
    help: &str,
) -> Result<(usize, usize), DataError> {
    loop {
        if !next_record(reader, record, locator, file)? {
            return Err(error(file, end..end, message, "", Some(help.to_string())));
        }
        let at = locator.locate(record);
        if !is_blank(record) {
            return Ok(at);
        }
    }
}

/// A record of one empty field: a blank or whitespace-only line.
pub(super) fn is_blank(record: &ByteRecord) -> bool {
    record.len() == 1 && record.get(0).is_some_and(|f| f.trim_ascii().is_empty())
}

/// A field as trimmed text (trimming here is much cheaper than the CSV
/// reader's own), without a pair of quotes that whitespace kept the CSV
/// reader from seeing (` "100" ` is read as the literal ` "100" `). The
/// fields of valid UTF-8 text split at ASCII bytes are valid UTF-8.
pub(super) fn bytes_str(b: &[u8]) -> &str {
    let b = b.trim_ascii();
    let b = match b {
        [b'"', inner @ .., b'"'] if !inner.contains(&b'"') => inner.trim_ascii(),
        _ => b,
    };
    std::str::from_utf8(b).unwrap_or("\u{fffd}")
}

/// Finds where records really start: the CSV reader reports the position
/// just after the previous record, before any blank or comment lines.
pub(super) struct Locator<'a> {
    pub(super) body: &'a [u8],
    pub(super) base: usize,
    /// A byte offset into `body` (at a line start or a line terminator) ...
    pub(super) byte: usize,
    /// ... and its 1-based line.
    pub(super) line: usize,
}

impl Locator<'_> {
    /// The byte offset in `body` and the 1-based line where `record` starts.
    pub(super) fn locate(&mut self, record: &ByteRecord) -> (usize, usize) {
        let p = record.position().map_or(self.byte, |p| usize::try_from(p.byte()).unwrap_or(usize::MAX));
        let p = p.clamp(self.byte, self.body.len());
        self.line += self.body.get(self.byte..p).map_or(0, |s| s.iter().filter(|&&b| b == b'\n').count());
        self.byte = p;
        loop {
            match self.body.get(self.byte) {
                Some(b'\n') => {
                    self.byte += 1;
                    self.line += 1;
                }
                Some(b'\r') => self.byte += 1,
                Some(b'#') => {
                    match self.body.get(self.byte..).and_then(|s| s.iter().position(|&b| b == b'\n')) {
                        Some(n) => {
                            self.byte += n + 1;
                            self.line += 1;
                        }
                        None => self.byte = self.body.len(),
                    }
                }
                _ => break,
            }
        }
        (self.byte, self.line)
    }
}

/// The line starting at `start` (a byte offset in `body`), without its
/// terminator, as an absolute span.
pub(super) fn line_span(body: &str, start: usize, base: usize) -> Range<usize> {
    let rest = body.get(start..).unwrap_or("");
    let len = rest.find('\n').unwrap_or(rest.len());
    let line = rest.get(..len).unwrap_or("");
    let len = line.strip_suffix('\r').map_or(len, str::len);
    base + start..base + start + len
}

/// The absolute span of field `index` of the line starting at `start`,
/// trimmed; `None` when the line has quotes (fields are not simply split).
pub(super) fn cell_span(body: &str, start: usize, index: usize, base: usize) -> Option<Range<usize>> {
    cell_span_sep(body, start, index, base, ',')
}

/// [`cell_span`] for fields separated by `sep`.
pub(super) fn cell_span_sep(
    body: &str,
    start: usize,
    index: usize,
    base: usize,
    sep: char,
) -> Option<Range<usize>> {
    let span = line_span(body, start, base);
    let line = body.get(span.start - base..span.end - base)?;
    if line.contains('"') {
        return None;
    }
    let mut offset = 0;
    for (k, field) in line.split(sep).enumerate() {
        if k == index {
            let lead = field.len() - field.trim_start().len();
            let trimmed = field.trim();
            let from = span.start + offset + lead.min(field.len());
            return Some(from..from + trimmed.len());
        }
        offset += field.len() + 1;
    }
    None
}

/// A header cell: the column name and the unit, if any.
pub(super) struct HeaderCell<'a> {
    /// The whole cell, trimmed.
    pub(super) full: &'a str,
    /// The column name (the cell without its unit).
    pub(super) name: &'a str,
    /// The unit, if the cell has one.
    pub(super) unit: Option<&'a str>,
}

impl<'a> HeaderCell<'a> {
    /// `T [s]` and `T (s)` are column `T` with unit `s`; anything else is a
    /// plain name.
    pub(super) fn parse(cell: &'a str) -> Self {
        let full = cell.trim();
        for (open, close) in [('[', ']'), ('(', ')')] {
            if let Some(inner) = full.strip_suffix(close) {
                if let Some(i) = inner.rfind(open) {
                    let name = inner.get(..i).unwrap_or("").trim();
                    let unit = inner.get(i + open.len_utf8()..).unwrap_or("").trim();
                    if !name.is_empty() {
                        return HeaderCell { full, name, unit: (!unit.is_empty()).then_some(unit) };
                    }
                }
            }
        }
        HeaderCell { full, name: full, unit: None }
    }
}

pub(super) fn header_names<'a>(header: &[HeaderCell<'a>]) -> Vec<&'a str> {
    header.iter().map(|h| h.name).filter(|n| !n.is_empty()).collect()
}

/// The column called `name`; a header cell written exactly as `name` (unit
/// included) also matches, so `--y "T (s)"` finds `T (s)`.
fn find_column(header: &[HeaderCell<'_>], name: &str) -> Option<usize> {
    if name.is_empty() {
        return None;
    }
    header.iter().position(|h| h.name == name).or_else(|| header.iter().position(|h| h.full == name))
}

pub(super) fn check_duplicates(
    header: &[HeaderCell<'_>],
    body: &str,
    start: usize,
    base: usize,
    file: &str,
    sep: char,
) -> Result<(), DataError> {
    let mut first_of: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, h) in header.iter().enumerate() {
        if h.name.is_empty() {
            continue;
        }
        if let Some(&first) = first_of.get(h.name) {
            let span =
                cell_span_sep(body, start, i, base, sep).unwrap_or_else(|| line_span(body, start, base));
            return Err(error(
                file,
                span,
                format!("duplicate column name `{}` (columns {} and {})", h.name, first + 1, i + 1),
                "second column with this name",
                Some("column names must be unique; rename one of them".to_string()),
            ));
        }
        first_of.insert(h.name, i);
    }
    Ok(())
}

fn missing_columns(
    missing: &[(&str, &str, bool)],
    header: &[HeaderCell<'_>],
    spec: &ColumnSpec,
    body: &str,
    start: usize,
    base: usize,
    file: &str,
) -> DataError {
    let described: Vec<String> = missing
        .iter()
        .map(
            |&(model, column, _)| {
                if model == column {
                    format!("`{column}`")
                } else {
                    format!("`{column}` (for `{model}`)")
                }
            },
        )
        .collect();
    let noun = if missing.len() == 1 { "column" } else { "columns" };
    let available = header_names(header);
    let available = if available.is_empty() { "none".to_string() } else { quoted_list(&available) };
    let mut help = Vec::new();
    if let Some(&(model, _, _)) = missing.iter().find(|m| !m.2) {
        help.push(format!("map a model variable to a column with `--x {model}=COLUMN`"));
    }
    if missing.iter().any(|m| m.2) {
        help.push(format!("choose the column of the measured `{}` with `--y COLUMN`", spec.y));
    }
    error(
        file,
        line_span(body, start, base),
        format!("missing {noun} {} in {file} (available: {available})", described.join(", ")),
        "header",
        Some(help.join("; ")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::Limits;
    use crate::num::{frac, int};

    use crate::data::test_spec as spec;

    fn err(text: &str, s: &ColumnSpec) -> (String, String) {
        let e = read_csv(text, "m.csv", s).expect_err("should fail");
        (e.diagnostic.headline(text), e.render(text))
    }

    #[test]
    fn reads_a_commented_file_with_fractions() {
        let text = "\
# HPL run time T (s) for p processors; values as exact decimals and fractions
# (14244/5 = 2848.8).
p,T
10,14244/5
20,1547.7
30,1112.6
40,897.09
";
        let d = read_csv(text, "hpl.csv", &spec(&["p"], "T")).unwrap();
        assert_eq!(d.rows.len(), 4);
        assert_eq!(d.rows[0], Measurement { x: vec![int(10)], y: frac(14244, 5), line: 4 });
        assert_eq!(d.rows[3], Measurement { x: vec![int(40)], y: frac(89709, 100), line: 7 });
        assert!(d.warnings.is_empty());
        assert!(d.units.is_empty());
        assert_eq!((d.columns.clone(), d.y_column.clone()), (vec!["p".to_string()], "T".to_string()));
        assert_eq!((d.file.as_str(), d.vars.clone()), ("hpl.csv", vec!["p".to_string()]));
    }

    #[test]
    fn renamed_columns_units_and_extra_columns() {
        let text = "run,procs [1],time (s),host\n1,2,10.5,a\n2,4,5.25,b\n";
        let mut s = spec(&["p"], "T");
        s.rename.insert("p".into(), "procs".into());
        s.y_column = Some("time".into());
        let d = read_csv(text, "m.csv", &s).unwrap();
        assert_eq!(d.columns, vec!["procs".to_string()]);
        assert_eq!(d.y_column, "time");
        assert_eq!(d.units.get("p").map(String::as_str), Some("1"));
        assert_eq!(d.units.get("T").map(String::as_str), Some("s"));
        assert_eq!(d.rows[1], Measurement { x: vec![int(4)], y: frac(21, 4), line: 3 });
        // the full header text matches too
        s.y_column = Some("time (s)".into());
        assert_eq!(read_csv(text, "m.csv", &s).unwrap().rows.len(), 2);
    }

    #[test]
    fn repetitions_comments_blank_lines_crlf_and_bom() {
        let text = "\u{feff}# synthetic\r\n\r\np , n , T\r\n# first\r\n1,10,5\r\n1,10,6\r\n\r\n   \r\n1,10,5\r\n# c\r\n2,10,1e1\r\n";
        let d = read_csv(text, "m.csv", &spec(&["p", "n"], "T")).unwrap();
        let lines: Vec<usize> = d.rows.iter().map(|r| r.line).collect();
        assert_eq!(lines, vec![5, 6, 9, 11]);
        assert_eq!(d.rows[3], Measurement { x: vec![int(2), int(10)], y: int(10), line: 11 });
        assert_eq!(
            d.warnings,
            vec!["line 9 repeats line 5 exactly (kept as a repeated measurement)".to_string()]
        );
        // same x with a different y is a plain repetition; equal values written differently are the same
        let d = read_csv("p,T\n1,5\n1,6\n1.0,5.00\n", "m.csv", &spec(&["p"], "T")).unwrap();
        assert_eq!(
            d.warnings,
            vec!["line 4 repeats line 2 exactly (kept as a repeated measurement)".to_string()]
        );
    }

    #[test]
    fn quoted_fields_and_two_variables() {
        let text = "\"p\",\"n, size\",T\n\"2\", \"100\" ,\"1.5\"\n4,200,\"3/4\"\n";
        let mut s = spec(&["p", "n"], "T");
        s.rename.insert("n".into(), "n, size".into());
        let d = read_csv(text, "m.csv", &s).unwrap();
        assert_eq!(d.rows[0], Measurement { x: vec![int(2), int(100)], y: frac(3, 2), line: 2 });
        assert_eq!(d.rows[1], Measurement { x: vec![int(4), int(200)], y: frac(3, 4), line: 3 });
    }

    #[test]
    fn no_trailing_newline_and_line_numbers_after_comments() {
        let d = read_csv("# a\n# b\np,T\n\n# c\n3,4", "m.csv", &spec(&["p"], "T")).unwrap();
        assert_eq!(d.rows, vec![Measurement { x: vec![int(3)], y: int(4), line: 6 }]);
    }

    #[test]
    fn multi_line_quoted_field_keeps_line_numbers() {
        let d = read_csv("p,note,T\n1,\"a\nb\",2\n3,x,4\n", "m.csv", &spec(&["p"], "T")).unwrap();
        assert_eq!(d.rows.iter().map(|r| r.line).collect::<Vec<_>>(), vec![2, 4]);
    }

    #[test]
    fn missing_columns() {
        let (head, full) = err("p,time\n1,2\n", &spec(&["p"], "T"));
        assert_eq!(head, "m.csv:1:1: missing column `T` in m.csv (available: `p`, `time`)");
        assert!(full.ends_with("= help: choose the column of the measured `T` with `--y COLUMN`"), "{full}");
        let mut s = spec(&["p", "n"], "T");
        s.rename.insert("p".into(), "procs".into());
        let (head, full) = err("# c\nx,T\n1,2\n", &s);
        assert_eq!(head, "m.csv:2:1: missing columns `procs` (for `p`), `n` in m.csv (available: `x`, `T`)");
        assert!(full.contains("2 | x,T\n  | ^^^ header"), "{full}");
        assert!(full.ends_with("= help: map a model variable to a column with `--x p=COLUMN`"), "{full}");
        let mut s = spec(&["p"], "T");
        s.y_column = Some("t".into());
        let (head, full) = err("q,T\n1,2\n", &s);
        assert_eq!(head, "m.csv:1:1: missing columns `p`, `t` (for `T`) in m.csv (available: `q`, `T`)");
        assert!(
            full.contains("`--x p=COLUMN`; choose the column of the measured `T` with `--y COLUMN`"),
            "{full}"
        );
    }

    #[test]
    fn duplicate_column_names() {
        let (head, full) = err("p,T [s],T [ms]\n1,2,3\n", &spec(&["p"], "T"));
        assert_eq!(head, "m.csv:1:9: duplicate column name `T` (columns 2 and 3)");
        assert!(
            full.contains("1 | p,T [s],T [ms]\n  |         ^^^^^^ second column with this name"),
            "{full}"
        );
    }

    #[test]
    fn text_columns_are_those_whose_first_row_is_not_a_number() {
        let t = "# a comment\nmpi;coll;p [ranks];t\n\n# another\nIntel;Bcast;32;1.5e-3\nOpen;Reduce;64;x\n";
        assert_eq!(text_columns(t, None), ["mpi", "coll"]);
        assert_eq!(text_columns("p,t\n1,2\n", None), Vec::<String>::new());
        // No data row, or no header: nothing to say.
        assert_eq!(text_columns("p,t\n", None), Vec::<String>::new());
        assert_eq!(text_columns("", None), Vec::<String>::new());
    }

    #[test]
    fn bad_cells_are_located() {
        let s = spec(&["p"], "T");
        let (head, full) = err("p,T\n1,2\n2, abc\n", &s);
        assert_eq!(
            head,
            "m.csv:3:4: line 3, column `T`: `abc` is not a number (expected e.g. 12, -0.0088823, 1.9312e-7 or 14244/5)"
        );
        assert!(full.contains("3 | 2, abc\n  |    ^^^"), "{full}");
        let (head, full) = err("p,T\n1,\"1,5\"\n", &s);
        assert!(head.starts_with("m.csv:2:1: line 2, column `T`: `1,5` is not a number"), "{head}");
        assert!(full.ends_with("= help: use a point as the decimal separator (1.5, not 1,5)"), "{full}");
        let (head, _) = err("p,T\n1,\n", &s);
        assert_eq!(head, "m.csv:2:3: line 2, column `T`: empty cell; a measurement must be a number");
        let (head, _) = err("p,T\n,1\n", &s);
        assert_eq!(head, "m.csv:2:1: line 2, column `p`: empty cell; a measurement must be a number");
        for bad in ["NaN", "inf", "-inf"] {
            let (head, _) = err(&format!("p,T\n1,2\n4,{bad}\n"), &s);
            assert_eq!(
                head,
                format!("m.csv:3:3: line 3, column `T`: `{bad}` is not a finite number; a measurement must be a finite decimal")
            );
        }
        let (head, _) = err("p,T\n1,1/0\n", &s);
        assert_eq!(head, "m.csv:2:3: line 2, column `T`: `1/0` divides by zero");
        let mut tight = spec(&["p"], "T");
        tight.limits = Limits { exponent: 10, digits: 5, ..Limits::default() };
        let (head, _) = err("p,T\n1,123456\n", &tight);
        assert_eq!(head, "m.csv:2:3: line 2, column `T`: `123456` exceeds the digit count limit (limit 5; raise it with --max-digits)");
        let (head, _) = err("p,T\n1,1e11\n", &tight);
        assert_eq!(head, "m.csv:2:3: line 2, column `T`: `1e11` exceeds the exponent limit (limit 10; raise it with --max-exponent)");
    }

    #[test]
    fn wrong_field_counts() {
        let s = spec(&["p"], "T");
        let text = "# c\np,T\n1,2\n\n# c\n\n7,8,9\n";
        let (head, full) = err(text, &s);
        assert_eq!(head, "m.csv:7:1: line 7 has 3 fields, the header has 2");
        assert!(full.contains("7 | 7,8,9\n  | ^^^^^"), "{full}");
        assert!(full.ends_with("= help: the header is line 2: `p`, `T`"), "{full}");
        let (head, _) = err("p,,T\n1,2,3\n", &spec(&["p"], ""));
        assert_eq!(head, "m.csv:1:1: missing column `` in m.csv (available: `p`, `T`)");
        let (head, _) = err("p,T\r\n5\r\n", &s);
        assert_eq!(head, "m.csv:2:1: line 2 has 1 field, the header has 2");
    }

    #[test]
    fn no_measurements() {
        let s = spec(&["p"], "T");
        let (head, full) = err("# only a header\np,T\n", &s);
        assert_eq!(head, "m.csv:2:4: no measurements in m.csv");
        assert!(
            full.ends_with("= help: the header is line 2; add one line per measurement below it"),
            "{full}"
        );
        let (head, _) = err("", &s);
        assert_eq!(head, "m.csv:1:1: no measurements in m.csv");
        let (head, _) = err("# nothing\n\n", &s);
        assert_eq!(head, "m.csv:1:10: no measurements in m.csv");
    }

    #[test]
    fn row_limit() {
        let mut s = spec(&["p"], "T");
        s.limits.rows = 2;
        assert_eq!(read_csv("p,T\n1,2\n3,4\n", "m.csv", &s).unwrap().rows.len(), 2);
        let (head, _) = err("p,T\n1,2\n3,4\n5,6\n", &s);
        assert_eq!(head, "m.csv:4:1: m.csv has too many measurements (limit 2; raise it with --max-rows)");
    }

    #[test]
    fn spans_with_a_bom_point_at_the_right_bytes() {
        let text = "\u{feff}p,T\n1,x\n";
        let e = read_csv(text, "m.csv", &spec(&["p"], "T")).unwrap_err();
        assert_eq!(&text[e.diagnostic.span.clone()], "x");
    }
}
