//! The band table as CSV and the analysis as Markdown, and the table
//! helpers every report shares (aligned text, RFC 4180 CSV inert in
//! spreadsheets, Markdown that cannot carry HTML).

use super::*;
use crate::document::analysis::PointBands;
use crate::document::{BandStatus, Exact, Threshold};

/// Prediction points rendered per batch by [`Report::write_csv`]: enough
/// for both cores, few enough that the batch's text stays small.
const CSV_CHUNK: usize = 4096;

/// Points per buffer within a batch: one allocation per run of lines
/// rather than several per cell.
const CSV_RUN: usize = 128;

impl Report<'_> {
    /// The band table as CSV: one row per prediction point and threshold
    /// (exact and decimal columns; with `--drop`, the pruned band and the shrink ratio).
    pub fn csv(&self) -> String {
        let mut out = Vec::new();
        // Writing to a Vec cannot fail, and every piece is UTF-8.
        let _ = self.write_csv(&mut out);
        String::from_utf8(out).unwrap_or_default()
    }

    /// Writes [`Report::csv`] to `w` as it is rendered: the lines of
    /// 4 096 prediction points at a time, in parallel, so that the
    /// table (50 MB at 10^5 points) is never held whole.
    pub fn write_csv(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        self.write_csv_with(w, None)
    }

    /// [`Report::write_csv`], followed by the rows of further points that
    /// are computed as they are written: `more` gives the analysis'
    /// [`Predictor`](crate::analysis::Predictor) and the points (the same
    /// rows as if they were among the analysis' predictions; nothing per
    /// point is held). A point where the model cannot be evaluated is an
    /// I/O error of kind `Other`; check the points first
    /// ([`Predictor::check`](crate::analysis::Predictor::check)) so that a
    /// run fails before it writes.
    pub fn write_csv_with(
        &self,
        w: &mut dyn std::io::Write,
        more: Option<(&crate::analysis::Predictor<'_>, &crate::model::PointSet)>,
    ) -> std::io::Result<()> {
        let m = self.model;
        let mut head: Vec<String> = m.vars.clone();
        head.extend(
            [
                "extrapolated",
                "threshold",
                "threshold_value",
                "threshold_relative",
                "model",
                "lower",
                "upper",
                "relative_half_width",
                "measurement_lower",
                "measurement_upper",
                "model_exact",
                "lower_exact",
                "upper_exact",
                "measurement_lower_exact",
                "measurement_upper_exact",
            ]
            .map(String::from),
        );
        if self.pruned.is_some() {
            head.extend(
                [
                    "pruned_model",
                    "pruned_lower",
                    "pruned_upper",
                    "shrink_ratio",
                    "pruned_lower_exact",
                    "pruned_upper_exact",
                ]
                .map(String::from),
            );
        }
        if self.family.is_some() {
            head.extend(
                [
                    "family_forms",
                    "family_lower",
                    "family_upper",
                    "family_measurement_lower",
                    "family_measurement_upper",
                    "family_lower_exact",
                    "family_upper_exact",
                    "family_measurement_lower_exact",
                    "family_measurement_upper_exact",
                ]
                .map(String::from),
            );
        }
        let out = csv_line(&head);
        // Every cell is read from the typed document: a point's bands
        // ([`PointBands`], made a run of points at a time), the pruned
        // analysis and the family (made once: those runs hold every point).
        let digits = self.digits();
        let thresholds: Vec<Threshold> =
            self.analysis.regions.iter().map(|r| Threshold::of(r, digits)).collect();
        let pruned = self.pruned.map(|p| {
            crate::document::analysis::pruned_document(
                m,
                self.analysis,
                self.data,
                &p.dropped,
                &p.analysis,
                0,
                digits,
            )
        });
        let family = self.family.map(|f| crate::document::analysis::family(m, f, digits));
        // The family's bands by point: the first of the point's run of
        // thresholds (a search per point was quadratic).
        let per_point = thresholds.len().max(1);
        let family_at: std::collections::HashMap<&crate::document::Point, usize> = family
            .as_ref()
            .map(|f| {
                f.bands.iter().enumerate().step_by(per_point).rev().map(|(k, b)| (&b.point, k)).collect()
            })
            .unwrap_or_default();
        // A band end written into its row in place (no string per cell):
        // the exact fraction or the correctly rounded decimal, `±inf` when
        // unbounded.
        let end_cell = |row: &mut CsvRow<'_>, v: &Option<Exact>, neg: bool, exact: bool| match v {
            Some(x) if exact => row.number(|o| x.write_exact(o)),
            Some(x) => row.number(|o| x.write_decimal(o)),
            None => row.cell(if neg { "-inf" } else { "+inf" }),
        };
        // A band's two ends; a band that is none writes its status twice
        // (`none` for the family's and the pruned analysis' own words).
        let ends = |row: &mut CsvRow<'_>, b: &crate::document::Band, none: Option<&str>, exact: bool| {
            if b.status == BandStatus::Ok {
                end_cell(row, &b.lower, true, exact);
                end_cell(row, &b.upper, false, exact);
            } else {
                let key = none.unwrap_or_else(|| b.status.key());
                row.cell(key);
                row.cell(key);
            }
        };
        // What every row of a threshold repeats, rendered once.
        let dec = |e: &Option<Exact>| e.as_ref().map_or_else(String::new, Exact::decimal);
        let regions: Vec<[String; 3]> =
            thresholds.iter().map(|t| [t.label.clone(), dec(&t.absolute), dec(&t.relative)]).collect();
        // One point's lines, appended to `out` (the model's value rendered
        // once for all its thresholds).
        let lines = |out: &mut String, pi: usize, p: &PointBands| {
            let coords: Vec<&str> =
                m.vars.iter().map(|v| p.point.get(v).map_or("", String::as_str)).collect();
            let extrapolated = if p.extrapolated { "true" } else { "false" };
            let (model_dec, model_exact) = (p.model.decimal(), p.model.exact());
            for (ri, t) in p.bands.iter().enumerate() {
                let mut row = CsvRow::new(out);
                for c in &coords {
                    row.cell(c);
                }
                row.cell(extrapolated);
                for c in &regions[ri] {
                    row.cell(c);
                }
                row.cell(&model_dec);
                ends(&mut row, &t.band, None, false);
                match &t.band.relative_half_width {
                    Some(r) => row.number(|o| r.write_decimal(o)),
                    None => row.cell(""),
                }
                ends(&mut row, &t.measurement_band, None, false);
                row.cell(&model_exact);
                ends(&mut row, &t.band, None, true);
                ends(&mut row, &t.measurement_band, None, true);
                // A point the pruned analysis lacks reads "none".
                if let Some(pr) = &pruned {
                    let (q, shrink) = super::view::pruned_at(pr, pi, &p.point);
                    match q {
                        None => {
                            for _ in 0..6 {
                                row.cell("none");
                            }
                        }
                        Some(q) => {
                            row.cell(&q.model.decimal());
                            let qb = &q.bands[ri].band;
                            ends(&mut row, qb, Some("empty"), false);
                            let ratio = shrink.and_then(|s| s.ratios.get(ri)?.ratio.as_ref());
                            row.cell(&ratio.map_or_else(String::new, Exact::decimal));
                            ends(&mut row, qb, Some("empty"), true);
                        }
                    }
                }
                if let Some(f) = &family {
                    // The family's thresholds are the analysis' (same order);
                    // its points are the analysis' prediction points.
                    let h = family_at.get(&p.point).and_then(|&k| f.bands.get(k + ri));
                    match h.filter(|h| h.band.status == BandStatus::Ok) {
                        None => {
                            let untrusted = h.is_some_and(|h| h.band.status == BandStatus::Untrusted);
                            row.cell("0");
                            for _ in 0..8 {
                                row.cell(if untrusted { "untrusted" } else { "none" });
                            }
                        }
                        Some(h) => {
                            row.cell(&h.forms.to_string());
                            for exact in [false, true] {
                                ends(&mut row, &h.band, None, exact);
                                ends(&mut row, &h.measurement_band, None, exact);
                            }
                        }
                    }
                }
                row.end();
            }
        };
        w.write_all(out.as_bytes())?;
        // Batches of points in order; within a batch, runs of points are
        // rendered in parallel, each run into one buffer.
        use rayon::prelude::*;
        let batch = |w: &mut dyn std::io::Write, start: usize, batch: &[crate::analysis::Prediction]| {
            let parts: Vec<String> = batch
                .par_chunks(CSV_RUN)
                .enumerate()
                .map(|(r, run)| {
                    let mut out = String::new();
                    for (i, p) in run.iter().enumerate() {
                        let p = PointBands::new(m, self.analysis, &thresholds, p, digits);
                        lines(&mut out, start + r * CSV_RUN + i, &p);
                    }
                    out
                })
                .collect();
            parts.iter().try_for_each(|part| w.write_all(part.as_bytes()))
        };
        let predictions = &self.analysis.predictions;
        for (k, chunk) in predictions.chunks(CSV_CHUNK).enumerate() {
            batch(w, k * CSV_CHUNK, chunk)?;
        }
        if let Some((predictor, points)) = more {
            // Each run of points is predicted, rendered and dropped by one
            // task: no batch of predictions waits for a second pass, and
            // none is freed by the writing thread. The next batch of
            // points is formed, and the last one written, while one is
            // computed.
            let mut points = points.iter();
            let mut start = predictions.len();
            crate::pipeline::pipelined(
                || {
                    let xs: Vec<Vec<Rat>> = points.by_ref().take(CSV_CHUNK).collect();
                    let first = start;
                    start += xs.len();
                    (!xs.is_empty()).then_some((first, xs))
                },
                |(start, xs): (usize, Vec<Vec<Rat>>)| {
                    xs.into_par_iter()
                        .chunks(CSV_RUN)
                        .enumerate()
                        .map(|(r, run)| {
                            let mut log = predictor.new_log();
                            let mut out = String::new();
                            for (i, x) in run.into_iter().enumerate() {
                                let p = predictor.predict(x, &mut log).map_err(std::io::Error::other)?;
                                let p = PointBands::new(m, self.analysis, &thresholds, &p, digits);
                                lines(&mut out, start + r * CSV_RUN + i, &p);
                            }
                            Ok(out)
                        })
                        .collect::<std::io::Result<Vec<String>>>()
                },
                |parts| parts?.iter().try_for_each(|part| w.write_all(part.as_bytes())),
            )?;
        }
        Ok(())
    }
}

/// `items` joined by `sep`; a long list shows its first three and last
/// two with the count between (a set-aside range of 789 scales is one
/// line, not a screenful).
pub(crate) fn abbreviated(items: &[String], sep: &str) -> String {
    const HEAD: usize = 3;
    const TAIL: usize = 2;
    if items.len() <= HEAD + TAIL + 3 {
        return items.join(sep);
    }
    let hidden = items.len() - HEAD - TAIL;
    format!("{}{sep}… {hidden} more …{sep}{}", items[..HEAD].join(sep), items[items.len() - TAIL..].join(sep))
}

pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Right-aligned columns, two spaces apart.
pub(crate) fn table(rows: &[Vec<String>], indent: usize) -> String {
    table_left(rows, indent, &[])
}

/// Like [`table`], with the columns in `left` left-aligned (labels).
pub(crate) fn table_left(rows: &[Vec<String>], indent: usize, left: &[usize]) -> String {
    let ncol = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut w = vec![0; ncol];
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    // Written in place, padding included (a 10 000-row table made two
    // strings per cell before).
    let mut out = String::with_capacity(rows.len() * (indent + w.iter().map(|x| x + 2).sum::<usize>() + 1));
    let pad = |out: &mut String, n: usize| out.extend(std::iter::repeat_n(' ', n));
    for r in rows {
        let start = out.len();
        pad(&mut out, indent);
        for (i, c) in r.iter().enumerate() {
            let n = w[i] - c.chars().count();
            if i > 0 {
                out.push_str("  ");
            }
            if left.contains(&i) {
                out.push_str(c);
                pad(&mut out, n);
            } else {
                pad(&mut out, n);
                out.push_str(c);
            }
        }
        let kept = start + out[start..].trim_end().len();
        out.truncate(kept);
        out.push('\n');
    }
    out
}

/// One CSV record (RFC 4180 quoting).
pub(crate) fn csv_line(cells: &[String]) -> String {
    let mut line = String::with_capacity(cells.iter().map(|c| c.len() + 1).sum::<usize>() + 1);
    let mut row = CsvRow::new(&mut line);
    for c in cells {
        row.cell(c);
    }
    row.end();
    line
}

/// A CSV line written cell by cell into a buffer ([`csv_cell`] each), so
/// that long tables are not built as a `String` per cell.
pub(crate) struct CsvRow<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> CsvRow<'a> {
    pub(crate) fn new(out: &'a mut String) -> Self {
        CsvRow { out, first: true }
    }

    pub(crate) fn cell(&mut self, c: &str) {
        if !std::mem::take(&mut self.first) {
            self.out.push(',');
        }
        self.out.push_str(&csv_cell(c));
    }

    /// A cell that is a number (a decimal or a fraction as errband writes
    /// them), written by `f` in place: such text never needs quoting.
    pub(crate) fn number(&mut self, f: impl FnOnce(&mut String)) {
        if !std::mem::take(&mut self.first) {
            self.out.push(',');
        }
        let at = self.out.len();
        f(self.out);
        debug_assert!(numeric(&self.out[at..]), "{}", &self.out[at..]);
    }

    pub(crate) fn end(self) {
        self.out.push('\n');
    }
}

/// One CSV cell, quoted when needed and inert in spreadsheets: text that
/// starts like a formula (`=`, `+`, `-`, `@`) and is not a number gets a
/// leading `'` (OWASP's advice against formula injection), and control
/// characters are written as `\u{..}`.
fn csv_cell(c: &str) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    let control = |ch: char| ch.is_control() && ch != '\n';
    let formula = |c: &str| c.starts_with(['=', '+', '-', '@']) && c != "-" && !numeric(c);
    // Printable ASCII without a comma or quote, in one pass over the bytes:
    // every number, most text.
    let plain = c.bytes().all(|b| (0x20..0x7f).contains(&b) && b != b',' && b != b'"');
    if (plain || !c.contains(control) && !c.contains([',', '"', '\n'])) && !formula(c) {
        return Cow::Borrowed(c);
    }
    let mut c: String = if c.contains(control) {
        c.chars()
            .map(|ch| if control(ch) { format!("\\u{{{:x}}}", u32::from(ch)) } else { ch.to_string() })
            .collect()
    } else {
        c.to_string()
    };
    if formula(&c) {
        c.insert(0, '\'');
    }
    if c.contains([',', '"', '\n']) {
        Cow::Owned(format!("\"{}\"", c.replace('"', "\"\"")))
    } else {
        Cow::Owned(c)
    }
}

/// A number as errband writes them (`-12`, `-0.5`, `-1.5e-7`, `-3/4`): safe
/// at the start of a spreadsheet cell. Checked by its characters, not
/// parsed: long exact fractions fill whole band tables.
fn numeric(c: &str) -> bool {
    let body = c.strip_prefix(['-', '+']).unwrap_or(c);
    let (mantissa, denominator) = match body.split_once('/') {
        Some((m, d)) => (m, Some(d)),
        None => (body, None),
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let (base, exp) = match mantissa.split_once(['e', 'E']) {
        Some((b, e)) => (b, Some(e.strip_prefix(['-', '+']).unwrap_or(e))),
        None => (mantissa, None),
    };
    let base_ok = match base.split_once('.') {
        Some((i, f)) => digits(i) && digits(f),
        None => digits(base),
    };
    base_ok && exp.is_none_or(digits) && denominator.is_none_or(digits)
}

/// Text from inputs made inert in Markdown: markup characters are
/// backslash-escaped, and `<`, `>` and `&` become entities, which no
/// renderer turns into HTML (backslash escapes of `<` are not honoured
/// everywhere raw HTML is allowed).
pub(crate) fn md_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '&' => o.push_str("&amp;"),
            c if c.is_control() => o.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => {
                if "\\`*_{}[]()#+!|".contains(c) {
                    o.push('\\');
                }
                o.push(c);
            }
        }
    }
    o
}

pub(crate) fn md_table_head(head: &[String]) -> String {
    let mut s = md_row(head);
    s.push_str(&format!("|{}\n", "---|".repeat(head.len())));
    s
}

/// A Markdown table row. Cells are made safe for a table and for renderers
/// that allow raw HTML: `<` and `>` become entities, and a `|` not already
/// escaped is escaped.
pub(crate) fn md_row(cells: &[String]) -> String {
    let cell = |c: &String| {
        let mut o = String::with_capacity(c.len());
        let mut escaped = false;
        for ch in c.chars() {
            match ch {
                '<' => o.push_str("&lt;"),
                '>' => o.push_str("&gt;"),
                '|' if !escaped => o.push_str("\\|"),
                c if c.is_control() => o.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
                c => o.push(c),
            }
            escaped = ch == '\\' && !escaped;
        }
        o
    };
    format!("| {} |\n", cells.iter().map(cell).collect::<Vec<_>>().join(" | "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lists_are_abbreviated_with_their_count() {
        let list = |n: usize| (1..=n).map(|i| i.to_string()).collect::<Vec<_>>();
        assert_eq!(abbreviated(&list(8), ", "), "1, 2, 3, 4, 5, 6, 7, 8");
        assert_eq!(abbreviated(&list(9), ", "), "1, 2, 3, … 4 more …, 8, 9");
        assert_eq!(abbreviated(&list(789), "; "), "1; 2; 3; … 784 more …; 788; 789");
        assert_eq!(abbreviated(&[], ", "), "");
    }

    #[test]
    fn csv_cells_are_quoted_and_inert_in_spreadsheets() {
        let line = |cells: &[&str]| csv_line(&cells.iter().map(|c| c.to_string()).collect::<Vec<_>>());
        assert_eq!(line(&["-3.5", "+2", "-13/4", "1e-7", "-"]), "-3.5,+2,-13/4,1e-7,-\n");
        assert_eq!(
            line(&["=1+2", "@SUM(A1)", "-cmd|' /C calc'!A0"]),
            "'=1+2,'@SUM(A1),'-cmd|' /C calc'!A0\n"
        );
        assert_eq!(line(&["a,b", "say \"hi\"", "bell\u{7}"]), "\"a,b\",\"say \"\"hi\"\"\",bell\\u{7}\n");
        assert_eq!(line(&["=a,b"]), "\"'=a,b\"\n");
        // Numbers are recognised by their characters, as errband writes them.
        assert_eq!(line(&["-1.5e-7", "-0.25E+3", "-12/7", "-inf"]), "-1.5e-7,-0.25E+3,-12/7,'-inf\n");
        assert_eq!(
            line(&["-1.", "-.5", "-1e", "-1/", "-1/2/3", "--1"]),
            "'-1.,'-.5,'-1e,'-1/,'-1/2/3,'--1\n"
        );
    }

    #[test]
    fn markdown_text_and_cells_cannot_carry_html() {
        assert_eq!(md_escape("<b>a_b & c</b>"), "&lt;b&gt;a\\_b &amp; c&lt;/b&gt;");
        assert_eq!(md_row(&["<i>".into(), "a|b".into(), "c\\|d".into()]), "| &lt;i&gt; | a\\|b | c\\|d |\n");
    }
}
