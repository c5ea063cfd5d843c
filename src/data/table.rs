//! A located CSV table of text cells, for inputs that are not a model's
//! measurements (energy profiles, task times): the header's names and units,
//! every cell's text and where it is, so typed readers can point at the
//! cell that is wrong. Same dialect as [`super::read_csv`]: `#` comments,
//! blank lines, CRLF, a byte-order mark, units in header cells (`time [s]`).

use std::ops::Range;

use ::csv::ByteRecord;

use super::csv::{
    bytes_str, cell_span, check_duplicates, header_names, is_blank, line_span, next_record, open_reader,
    read_header, HeaderCell,
};
use super::{error, number_error, parse_number, quoted_list, strip_bom, DataError};
use crate::limits::Limits;
use crate::num::Rat;

/// A header column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// Its name, without the unit.
    pub name: String,
    /// The unit written in the header cell (`time [ms]`), if any.
    pub unit: Option<String>,
}

/// A data line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Its 1-based line number.
    pub line: usize,
    /// The cells, trimmed (one per header column).
    pub cells: Vec<String>,
    span: Range<usize>,
    cell_spans: Vec<Option<Range<usize>>>,
}

impl Row {
    /// Cell `col` as text (empty when missing).
    pub fn cell(&self, col: usize) -> &str {
        self.cells.get(col).map_or("", String::as_str)
    }
}

/// A CSV file read into located text cells.
#[derive(Debug, Clone)]
pub struct Table {
    /// The file name, as shown in messages.
    pub file: String,
    /// The header.
    pub columns: Vec<Column>,
    /// The data lines, in file order.
    pub rows: Vec<Row>,
    header_line: usize,
    header_span: Range<usize>,
    end: usize,
}

impl Table {
    /// Reads `text`; every data line must have as many cells as the header.
    /// More than `max_rows` data lines is an error.
    pub fn read(text: &str, file: &str, max_rows: usize) -> Result<Table, DataError> {
        let (body, base) = strip_bom(text);
        let (mut reader, mut locator) = open_reader(body, base);
        let mut record = ByteRecord::new();
        let (header_start, header_line) = read_header(
            &mut reader,
            &mut record,
            &mut locator,
            (file, text.len()),
            format!("{file} is empty"),
            "expected a header line naming the columns, then one line per row",
        )?;
        let header: Vec<HeaderCell<'_>> = record.iter().map(|c| HeaderCell::parse(bytes_str(c))).collect();
        check_duplicates(&header, body, header_start, base, file, ',')?;
        let names = quoted_list(&header_names(&header));
        let columns: Vec<Column> = header
            .iter()
            .map(|h| Column { name: h.name.to_string(), unit: h.unit.map(str::to_string) })
            .collect();
        let header_span = line_span(body, header_start, base);

        let mut rows = Vec::new();
        while next_record(&mut reader, &mut record, &locator, file)? {
            let (start, line) = locator.locate(&record);
            if is_blank(&record) {
                continue;
            }
            let span = line_span(body, start, base);
            if record.len() != columns.len() {
                return Err(error(
                    file,
                    span,
                    format!("line {line} has {} fields, the header has {}", record.len(), columns.len()),
                    "",
                    Some(format!("the header is line {header_line}: {names}")),
                ));
            }
            if rows.len() >= max_rows {
                return Err(error(
                    file,
                    span,
                    format!(
                        "{file} has too many lines (limit {max_rows}; raise it with {})",
                        crate::limits::Limit::Rows.flag()
                    ),
                    "first line over the limit",
                    None,
                ));
            }
            let cells = record.iter().map(|c| bytes_str(c).to_string()).collect();
            let cell_spans = (0..columns.len()).map(|i| cell_span(body, start, i, base)).collect();
            rows.push(Row { line, cells, span, cell_spans });
        }
        Ok(Table { file: file.to_string(), columns, rows, header_line, header_span, end: text.len() })
    }

    /// The column called `name`.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    /// The columns called `names`, or an error at the header naming the
    /// missing ones; `example` is a header line to suggest.
    pub fn require(&self, names: &[&str], example: &str) -> Result<Vec<usize>, DataError> {
        let missing: Vec<&str> = names.iter().copied().filter(|n| self.find(n).is_none()).collect();
        if missing.is_empty() {
            return Ok(names.iter().filter_map(|n| self.find(n)).collect());
        }
        let have: Vec<&str> = self.columns.iter().map(|c| c.name.as_str()).collect();
        Err(self.header_error(
            format!(
                "{} has no column {} (its columns are {})",
                self.file,
                quoted_list(&missing),
                quoted_list(&have)
            ),
            Some(format!("expected a header such as `{example}`")),
        ))
    }

    /// An error pointing at the header line.
    pub fn header_error(&self, message: String, help: Option<String>) -> DataError {
        error(&self.file, self.header_span.clone(), message, "", help)
    }

    /// An error pointing at a whole line.
    pub fn row_error(&self, row: &Row, message: String, help: Option<String>) -> DataError {
        error(&self.file, row.span.clone(), message, "", help)
    }

    /// An error pointing at one cell (the line when the cell cannot be located).
    pub fn cell_error(&self, row: &Row, col: usize, message: String, help: Option<String>) -> DataError {
        let span = row.cell_spans.get(col).cloned().flatten().unwrap_or_else(|| row.span.clone());
        error(&self.file, span, message, "", help)
    }

    /// An error at the end of the file (for something missing).
    pub fn end_error(&self, message: String, help: Option<String>) -> DataError {
        error(&self.file, self.end..self.end, message, "", help)
    }

    /// Cell `col` of `row` as an exact number; `noun` names it in messages.
    pub fn number(&self, row: &Row, col: usize, noun: &str, limits: Limits) -> Result<Rat, DataError> {
        let text = row.cell(col);
        parse_number(text, limits).map_err(|e| {
            let name = self.columns.get(col).map_or("", |c| c.name.as_str());
            let (message, help) =
                number_error(&format!("line {}, column `{name}`", row.line), noun, text, &e);
            self.cell_error(row, col, message, help)
        })
    }

    /// Cell `col` of `row` as a number, `None` when the cell is empty.
    pub fn optional_number(
        &self,
        row: &Row,
        col: usize,
        noun: &str,
        limits: Limits,
    ) -> Result<Option<Rat>, DataError> {
        if row.cell(col).is_empty() {
            Ok(None)
        } else {
            self.number(row, col, noun, limits).map(Some)
        }
    }

    /// The 1-based line of the header.
    pub fn header_line(&self) -> usize {
        self.header_line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_cells_units_and_locates_errors() {
        let text = "# comment\nregion, time [ms],power\n\nmain,1.5,100\nio, x ,\n";
        let t = Table::read(text, "p.csv", 10).unwrap();
        assert_eq!(t.header_line(), 2);
        assert_eq!(t.columns[1], Column { name: "time".into(), unit: Some("ms".into()) });
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.rows[1].line, 5);
        assert_eq!(t.rows[1].cell(0), "io");
        let r = &t.rows[1];
        let e = t.number(r, 1, "time", Limits::default()).unwrap_err();
        let shown = e.render(text);
        assert!(shown.contains("p.csv:5:5"), "{shown}");
        assert!(t.optional_number(r, 2, "power", Limits::default()).unwrap().is_none());
        let e = t.require(&["region", "nodes"], "region,nodes").unwrap_err();
        assert!(e.diagnostic.message.contains("`nodes`"), "{}", e.diagnostic.message);
    }

    #[test]
    fn ragged_lines_empty_files_and_row_limits_are_errors() {
        assert!(Table::read("", "e.csv", 10).is_err());
        let e = Table::read("a,b\n1\n", "r.csv", 10).unwrap_err();
        assert!(e.diagnostic.message.contains("line 2 has 1 fields"), "{}", e.diagnostic.message);
        assert!(Table::read("a\n1\n2\n3\n", "m.csv", 2).is_err());
    }
}
