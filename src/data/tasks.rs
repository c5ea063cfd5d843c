//! Task files of a master/slave program (Mizutani, Ino and Hagihara): the measured times of a
//! sampled sub-grid of tasks (`i1,…,iN,time`, optionally `k_in,k_out`), an
//! explicit allocation order (`i1,…,iN`, one line per task) and per-slave
//! time ratios (`slave,ratio`).
//!
//! Task files run to millions of lines, so they are streamed: no cell is
//! kept as text, numbers go straight to 128-bit numerators over one common
//! denominator per column (exact: a decimal `12.5` is 125/10), and only the
//! byte offset of each line is kept so that a later check (a duplicate task,
//! a hole in the sub-grid) can still point at the line. Same CSV dialect as
//! [`super::read_csv`]: `#` comments, blank lines, CRLF, a byte-order mark,
//! units in header cells (`time [us]`).

use std::collections::HashSet;
use std::ops::Range;

use ::csv::ByteRecord;
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{Signed, ToPrimitive};

use super::csv::{
    bytes_str, cell_span, check_duplicates, is_blank, line_span, next_record, open_reader, read_header,
    HeaderCell, Locator,
};
use super::table::Table;
use super::{error, number_error, parse_number, quoted_list, strip_bom, DataError};
use crate::limits::Limits;
use crate::num::Rat;
use crate::units::{factor, Dim};

/// Index names `i1`, …, `iN` of an N-dimensional grid.
pub fn index_names(dims: usize) -> Vec<String> {
    (1..=dims).map(|k| format!("i{k}")).collect()
}

/// Nonnegative exact values as 128-bit numerators over one denominator:
/// value `i` is `num[i] / den × unit` in the column's base unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExactColumn {
    /// The column's name.
    pub name: String,
    /// Numerators, one per value.
    pub num: Vec<u128>,
    /// The common denominator (≥ 1).
    pub den: u128,
    /// Base units (seconds, bytes) per unit of the column.
    pub unit: Rat,
}

impl ExactColumn {
    /// Value `i` in the base unit.
    pub fn value(&self, i: usize) -> Option<Rat> {
        let n = self.num.get(i)?;
        Some(Rat::new(BigInt::from(*n), BigInt::from(self.den)) * &self.unit)
    }
}

/// The measured tasks of a sub-grid `I_s = I_s1 × … × I_sN` (\[M\]
/// section 3.1): every combination of the sampled indices has exactly one line.
#[derive(Debug, Clone)]
pub struct SampledGrid {
    /// The file name, as shown in messages.
    pub file: String,
    /// The full grid's extent per dimension (`c_k`; indices are `0..c_k`).
    pub grid: Vec<u32>,
    /// The sampled indices per dimension, ascending; each holds `0` and `c_k − 1`.
    pub axes: Vec<Vec<u32>>,
    /// Task times over the sub-grid, row-major (the last index fastest).
    pub time: ExactColumn,
    /// Bytes sent to each task, when the file has a `k_in` column.
    pub k_in: Option<ExactColumn>,
    /// Bytes of each task's result, when the file has a `k_out` column.
    pub k_out: Option<ExactColumn>,
}

impl SampledGrid {
    /// The number of sampled tasks.
    pub fn len(&self) -> usize {
        self.time.num.len()
    }

    /// True when no task is sampled (never, for a grid that was read).
    pub fn is_empty(&self) -> bool {
        self.time.num.is_empty()
    }

    /// True when every task of the grid was measured.
    pub fn is_full(&self) -> bool {
        self.axes.iter().zip(&self.grid).all(|(a, &c)| a.len() == c as usize)
    }
}

/// Most tasks a grid may have unless raised (`--max-tasks`): 2^24. Every
/// task holds a 128-bit time, and 128-bit byte counts when the task file has
/// `k_in`/`k_out`: 16 bytes a column, 800 MB for three columns at this limit.
pub const DEFAULT_MAX_TASKS: u64 = 1 << 24;

/// The number of tasks of a grid, if within `max`.
pub fn grid_size(grid: &[u32], max: u64) -> Result<u64, String> {
    let mut n: u64 = 1;
    for &c in grid {
        n = n.checked_mul(u64::from(c)).filter(|&n| n <= max).ok_or_else(|| {
            format!(
                "the grid {} has more than {max} tasks (raise the limit with --max-tasks)",
                grid_text(grid)
            )
        })?;
    }
    Ok(n)
}

/// `1024x1024`.
pub fn grid_text(grid: &[u32]) -> String {
    grid.iter().map(u32::to_string).collect::<Vec<_>>().join("x")
}

/// A number cell as `mantissa · 10^exp` when it is a plain nonnegative
/// decimal that fits; `None` sends the cell to the general parser.
fn nonnegative_decimal(s: &[u8]) -> Option<(u128, i32)> {
    let d = super::decimal_parts(s)?;
    let exp = d.exp - d.frac_len;
    if d.negative || d.mantissa > 10u128.pow(30) || !(-40..=30).contains(&exp) {
        return None;
    }
    Some((d.mantissa, i32::try_from(exp).ok()?))
}

/// An exact nonnegative number as parsed, before the column's common
/// denominator is known.
#[derive(Clone, Copy)]
enum Parsed {
    /// `mantissa · 10^exp`.
    Decimal(u128, i32),
    /// `num / den` in lowest terms.
    Fraction(u128, u128),
}

/// Collects a numeric column while streaming.
struct ColumnBuilder {
    name: String,
    noun: &'static str,
    values: Vec<Parsed>,
    min_exp: i32,
    dens: Vec<u128>,
}

impl ColumnBuilder {
    fn new(name: &str, noun: &'static str) -> Self {
        ColumnBuilder { name: name.to_string(), noun, values: Vec::new(), min_exp: 0, dens: Vec::new() }
    }

    /// Parses a cell; the error is (message, help).
    fn push(&mut self, cell: &[u8], line: usize, limits: Limits) -> Result<(), (String, Option<String>)> {
        let what = || format!("line {line}, column `{}`", self.name);
        if let Some((m, e)) = nonnegative_decimal(cell.trim_ascii()) {
            let e = if m == 0 { 0 } else { e };
            self.min_exp = self.min_exp.min(e);
            self.values.push(Parsed::Decimal(m, e));
            return Ok(());
        }
        let text = bytes_str(cell);
        let v = parse_number(text, limits).map_err(|e| number_error(&what(), self.noun, text, &e))?;
        if v.is_negative() {
            return Err((format!("{}: {text}: a {} cannot be negative", what(), self.noun), None));
        }
        let (n, d) = (v.numer().to_u128(), v.denom().to_u128());
        let (Some(n), Some(d)) = (n, d) else {
            return Err((
                format!("{}: {text} has too many digits for exact simulation (numerator and denominator must fit 128 bits)", what()),
                Some("round the value to fewer significant digits".into()),
            ));
        };
        if !self.dens.contains(&d) {
            self.dens.push(d);
        }
        self.values.push(Parsed::Fraction(n, d));
        Ok(())
    }

    /// The values over one common denominator, or a message when they do not fit 128 bits.
    fn finish(self, unit: Rat) -> Result<ExactColumn, String> {
        let too_big = || {
            format!(
                "the `{}` values need a common denominator too large for exact 128-bit simulation; use fewer decimals",
                self.name
            )
        };
        let scale = 10u128.checked_pow(self.min_exp.unsigned_abs()).ok_or_else(too_big)?;
        let mut den = scale;
        for d in &self.dens {
            den = den.checked_div(den.gcd(d)).and_then(|q| q.checked_mul(*d)).ok_or_else(too_big)?;
        }
        let mut num = Vec::with_capacity(self.values.len());
        for v in &self.values {
            let n = match *v {
                Parsed::Decimal(m, e) => {
                    let up = 10u128.checked_pow((e - self.min_exp).unsigned_abs()).ok_or_else(too_big)?;
                    m.checked_mul(up).and_then(|x| x.checked_mul(den / scale))
                }
                Parsed::Fraction(n, d) => n.checked_mul(den / d),
            };
            num.push(n.ok_or_else(too_big)?);
        }
        Ok(ExactColumn { name: self.name, num, den, unit })
    }
}

/// A header column: name and unit, if any.
struct Head {
    name: String,
    unit: Option<String>,
}

/// A CSV file read one line at a time, with its header.
struct Stream<'t> {
    reader: ::csv::Reader<&'t [u8]>,
    locator: Locator<'t>,
    record: ByteRecord,
    header: Vec<Head>,
    header_start: usize,
    header_line: usize,
    spots: Spots<'t>,
}

impl<'t> Stream<'t> {
    /// Opens `text` and reads its header.
    fn open(text: &'t str, file: &'t str) -> Result<Stream<'t>, DataError> {
        let (body, base) = strip_bom(text);
        let (mut reader, mut locator) = open_reader(body, base);
        let mut record = ByteRecord::new();
        let (header_start, header_line) = read_header(
            &mut reader,
            &mut record,
            &mut locator,
            (file, text.len()),
            format!("{file} is empty"),
            "expected a header line naming the columns, then one line per task",
        )?;
        let cells: Vec<HeaderCell<'_>> = record.iter().map(|c| HeaderCell::parse(bytes_str(c))).collect();
        check_duplicates(&cells, body, header_start, base, file, ',')?;
        let header = cells
            .iter()
            .map(|h| Head { name: h.name.to_string(), unit: h.unit.map(str::to_string) })
            .collect();
        Ok(Stream {
            reader,
            locator,
            record,
            header,
            header_start,
            header_line,
            spots: Spots { file, body, base },
        })
    }

    /// The column called `name`.
    fn find(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h.name == name)
    }

    /// An error at the header line.
    fn header_error(&self, message: String, help: Option<String>) -> DataError {
        self.spots.line_error(self.header_start, message, "", help)
    }

    /// Reads the next data line into `self.record`; its byte offset and line number.
    fn next(&mut self) -> Result<Option<(usize, usize)>, DataError> {
        let file = self.spots.file;
        while next_record(&mut self.reader, &mut self.record, &self.locator, file)? {
            let (start, line) = self.locator.locate(&self.record);
            if is_blank(&self.record) {
                continue;
            }
            if self.record.len() != self.header.len() {
                let names = quoted_list(&self.header.iter().map(|h| h.name.as_str()).collect::<Vec<_>>());
                return Err(self.spots.line_error(
                    start,
                    format!(
                        "line {line} has {} fields, the header has {}",
                        self.record.len(),
                        self.header.len()
                    ),
                    "",
                    Some(format!("the header is line {}: {names}", self.header_line)),
                ));
            }
            return Ok(Some((start, line)));
        }
        Ok(None)
    }

    /// The columns `i1..iN`, or an error at the header.
    fn index_columns(&self, dims: usize, example: &str) -> Result<Vec<usize>, DataError> {
        let names = index_names(dims);
        let missing: Vec<&String> = names.iter().filter(|n| self.find(n).is_none()).collect();
        if missing.is_empty() {
            return Ok(names.iter().filter_map(|n| self.find(n)).collect());
        }
        let have: Vec<&str> = self.header.iter().map(|h| h.name.as_str()).collect();
        Err(self.header_error(
            format!(
                "{} has no column {} (its columns are {})",
                self.spots.file,
                quoted_list(&missing),
                quoted_list(&have)
            ),
            Some(format!(
                "a {dims}-dimensional grid needs index columns {}; expected a header such as `{example}`",
                quoted_list(&names)
            )),
        ))
    }

    /// The current line's task: its indices appended to `out`, and its
    /// row-major number on `grid`.
    fn task(
        &self,
        cols: &[usize],
        grid: &[u32],
        start: usize,
        line: usize,
        out: &mut Vec<u32>,
    ) -> Result<u64, DataError> {
        let mut flat: u64 = 0;
        for (k, (&col, &c)) in cols.iter().zip(grid).enumerate() {
            let cell = self.record.get(col).unwrap_or_default();
            let i = index_cell(cell, c).ok_or_else(|| {
                self.spots.cell_error(start, col, index_message(cell, line, &format!("i{}", k + 1), c), None)
            })?;
            out.push(i);
            flat = flat * u64::from(c) + u64::from(i);
        }
        Ok(flat)
    }

    /// The unit factor of column `col` from its header (`time [us]`), else `default`.
    fn unit(&self, col: usize, dim: Dim, default: &str) -> Result<Rat, DataError> {
        let Some(h) = self.header.get(col) else { return Ok(Rat::from_integer(1.into())) };
        let unit = h.unit.as_deref().unwrap_or(default);
        factor(dim, unit).ok_or_else(|| {
            self.spots.cell_error(
                self.header_start,
                col,
                format!("column `{}`: unknown unit `{unit}`", h.name),
                Some(format!("accepted: {}", dim.accepted())),
            )
        })
    }

    /// An error at the end of the file.
    fn end_error(&self, message: String, help: Option<String>) -> DataError {
        let end = self.spots.body.len() + self.spots.base;
        error(self.spots.file, end..end, message, "", help)
    }
}

/// Where errors in a streamed file point.
struct Spots<'t> {
    file: &'t str,
    body: &'t str,
    base: usize,
}

impl Spots<'_> {
    fn cell(&self, start: usize, col: usize) -> Range<usize> {
        cell_span(self.body, start, col, self.base).unwrap_or_else(|| line_span(self.body, start, self.base))
    }
    fn cell_error(&self, start: usize, col: usize, message: String, help: Option<String>) -> DataError {
        error(self.file, self.cell(start, col), message, "", help)
    }
    fn line_error(&self, start: usize, message: String, label: &str, help: Option<String>) -> DataError {
        error(self.file, line_span(self.body, start, self.base), message, label, help)
    }
}

/// Parses a grid index cell: an integer in `0..c`.
fn index_cell(cell: &[u8], c: u32) -> Option<u32> {
    let s = cell.trim_ascii();
    if s.is_empty() || s.len() > 10 {
        return None;
    }
    let mut v: u64 = 0;
    for &b in s {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v * 10 + u64::from(b - b'0');
    }
    u32::try_from(v).ok().filter(|&i| i < c)
}

fn index_message(cell: &[u8], line: usize, name: &str, c: u32) -> String {
    let text = bytes_str(cell);
    if text.parse::<u64>().is_ok() {
        format!("line {line}, column `{name}`: index {text} is outside the grid (0..{})", c - 1)
    } else {
        format!("line {line}, column `{name}`: `{text}` is not a task index (an integer 0..{})", c - 1)
    }
}

/// Reads the measured tasks of `grid` from a task CSV. Bare times are in
/// `time_unit`; bytes without a unit in their header are bytes.
/// Literals are held to `limits` (digits, exponent).
pub fn read_tasks(
    text: &str,
    file: &str,
    grid: &[u32],
    time_unit: &str,
    limits: &Limits,
) -> Result<SampledGrid, DataError> {
    let dims = grid.len();
    let limits = *limits;
    let mut s = Stream::open(text, file)?;
    let example = format!("{},time [us]", index_names(dims).join(","));
    let idx = s.index_columns(dims, &example)?;
    let time_col = s.find("time").ok_or_else(|| {
        s.header_error(
            format!("{file} has no column `time`"),
            Some(format!("expected a header such as `{example}`")),
        )
    })?;
    let mut columns =
        vec![(time_col, ColumnBuilder::new("time", "task time"), s.unit(time_col, Dim::Time, time_unit)?)];
    for name in ["k_in", "k_out"] {
        if let Some(c) = s.find(name) {
            columns.push((c, ColumnBuilder::new(name, "byte count"), s.unit(c, Dim::Bytes, "B")?));
        }
    }
    let mut index: Vec<u32> = Vec::new();
    let mut starts: Vec<usize> = Vec::new();
    while let Some((start, line)) = s.next()? {
        s.task(&idx, grid, start, line, &mut index)?;
        for (col, b, _) in &mut columns {
            b.push(s.record.get(*col).unwrap_or_default(), line, limits)
                .map_err(|(m, help)| s.spots.cell_error(start, *col, m, help))?;
        }
        starts.push(start);
    }
    if starts.is_empty() {
        return Err(s.end_error(
            format!("no tasks in {file}"),
            Some(format!("add one line per measured task below the header, such as `{example}`")),
        ));
    }
    let mut exact = Vec::new();
    for (_, b, unit) in columns {
        let name = b.name.clone();
        exact.push((name, b.finish(unit).map_err(|m| s.header_error(format!("{file}: {m}"), None))?));
    }
    let take = |name: &str, exact: &mut Vec<(String, ExactColumn)>| {
        exact.iter().position(|(n, _)| n == name).map(|i| exact.remove(i).1)
    };
    let k_out = take("k_out", &mut exact);
    let k_in = take("k_in", &mut exact);
    let Some(time) = take("time", &mut exact) else {
        return Err(s.header_error(format!("{file} has no column `time`"), None));
    };
    arrange(&s, grid, &index, &starts, time, k_in, k_out)
}

/// Places the read lines on their sub-grid: checks that the sampled indices
/// form a product set holding each grid's corners, with every task once.
fn arrange(
    s: &Stream<'_>,
    grid: &[u32],
    index: &[u32],
    starts: &[usize],
    time: ExactColumn,
    k_in: Option<ExactColumn>,
    k_out: Option<ExactColumn>,
) -> Result<SampledGrid, DataError> {
    let (file, spots) = (s.spots.file, &s.spots);
    let dims = grid.len();
    let rows = starts.len();
    // Sampled indices per dimension and each index's position on its axis.
    let mut axes: Vec<Vec<u32>> = Vec::with_capacity(dims);
    let mut position: Vec<Vec<u32>> = Vec::with_capacity(dims);
    for (k, &c) in grid.iter().enumerate() {
        let mut seen = vec![false; c as usize];
        for row in index.chunks_exact(dims) {
            if let Some(s) = row.get(k).and_then(|&i| seen.get_mut(i as usize)) {
                *s = true;
            }
        }
        let axis: Vec<u32> = (0..c).filter(|&i| seen[i as usize]).collect();
        let mut pos = vec![u32::MAX; c as usize];
        for (p, &i) in axis.iter().enumerate() {
            pos[i as usize] = p as u32;
        }
        for corner in [0, c - 1] {
            if !seen[corner as usize] {
                let lo = axis.first().copied().unwrap_or(0);
                let hi = axis.last().copied().unwrap_or(0);
                return Err(s.header_error(
                    format!(
                        "{file}: the sampled tasks do not cover the grid's corners: dimension {} (`i{}`) has no task at index {corner} (its sampled indices run {lo}..{hi} of 0..{})",
                        k + 1,
                        k + 1,
                        c - 1
                    ),
                    Some("interpolation needs a sampled task on both sides of every task: sample index 0 and the last index of every dimension".into()),
                ));
            }
        }
        axes.push(axis);
        position.push(pos);
    }
    let counts: Vec<usize> = axes.iter().map(Vec::len).collect();
    let flat = |row: &[u32]| -> usize {
        row.iter()
            .zip(&position)
            .zip(&counts)
            .fold(0usize, |acc, ((&i, pos), &m)| acc * m + pos[i as usize] as usize)
    };
    let product = counts.iter().try_fold(1usize, |a, &m| a.checked_mul(m));
    let shape = counts.iter().map(usize::to_string).collect::<Vec<_>>().join("x");
    if product.is_none_or(|p| p > rows) {
        // Some combination is missing; name one without allocating the product.
        let present: HashSet<usize> = index.chunks_exact(dims).map(flat).collect();
        let missing = (0..).find(|f| !present.contains(f)).unwrap_or(0);
        let mut coords = vec![0u32; dims];
        let mut rest = missing;
        for k in (0..dims).rev() {
            let m = counts[k].max(1);
            coords[k] = axes[k].get(rest % m).copied().unwrap_or(0);
            rest /= m;
        }
        let total = product.map_or_else(|| "more than 2^64".to_string(), |p| p.to_string());
        // Point at the first line sharing the missing task's first index.
        let near = index.chunks_exact(dims).position(|row| row.first() == coords.first()).unwrap_or(0);
        let task = coords.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
        return Err(spots.line_error(
            starts.get(near).copied().unwrap_or(0),
            format!(
                "{file}: the sampled tasks are not a sub-grid: their indices span {shape} = {total} combinations but the file has {rows} line{}; task ({task}) is missing",
                if rows == 1 { "" } else { "s" },
            ),
            &format!("i1 = {} is sampled here, but task ({task}) has no line", coords.first().copied().unwrap_or(0)),
            Some("partial execution samples a product set I_s1 × … × I_sN (Mizutani et al. [M], section 3.1): measure every combination of the sampled indices".into()),
        ));
    }
    let n = product.unwrap_or(0);
    let mut slot = vec![u32::MAX; n];
    for (r, row) in index.chunks_exact(dims).enumerate() {
        let f = flat(row);
        if slot[f] != u32::MAX {
            let first = slot[f] as usize;
            let first_line = crate::lang::diag::line_col(spots.body, starts[first]).0;
            return Err(spots.line_error(
                starts[r],
                format!(
                    "{file}: task ({}) appears twice (first on line {first_line})",
                    row.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
                ),
                "second line for this task",
                Some("keep one time per task (average repeated runs before writing the file)".into()),
            ));
        }
        slot[f] = r as u32;
    }
    let permute =
        |c: ExactColumn| ExactColumn { num: slot.iter().map(|&r| c.num[r as usize]).collect(), ..c };
    Ok(SampledGrid {
        file: file.to_string(),
        grid: grid.to_vec(),
        axes,
        time: permute(time),
        k_in: k_in.map(permute),
        k_out: k_out.map(permute),
    })
}

/// Reads an allocation order: columns `i1..iN`, one line per task of the
/// grid, each task exactly once. Returns the row-major task numbers in
/// allocation order.
pub fn read_order(text: &str, file: &str, grid: &[u32], tasks: usize) -> Result<Vec<u32>, DataError> {
    let dims = grid.len();
    let mut s = Stream::open(text, file)?;
    let cols = s.index_columns(dims, &index_names(dims).join(","))?;
    let mut order: Vec<u32> = Vec::with_capacity(tasks);
    let mut first_line: Vec<u32> = vec![0; tasks];
    let mut scratch = Vec::with_capacity(dims);
    while let Some((start, line)) = s.next()? {
        scratch.clear();
        let f = s.task(&cols, grid, start, line, &mut scratch)? as usize;
        if first_line[f] != 0 {
            return Err(s.spots.line_error(
                start,
                format!(
                    "{file}: task appears twice in the allocation order (first on line {})",
                    first_line[f]
                ),
                "second line for this task",
                Some("an allocation order lists every task of the grid exactly once".into()),
            ));
        }
        first_line[f] = u32::try_from(line).unwrap_or(u32::MAX);
        order.push(f as u32);
    }
    if order.len() < tasks {
        let mut rest = first_line.iter().position(|&l| l == 0).unwrap_or(0);
        let mut coords = vec![0u32; dims];
        for k in (0..dims).rev() {
            coords[k] = (rest % grid[k] as usize) as u32;
            rest /= grid[k] as usize;
        }
        return Err(s.end_error(
            format!(
                "{file}: the allocation order lists {} of the grid's {tasks} tasks; task ({}) is missing",
                order.len(),
                coords.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
            ),
            Some("an allocation order lists every task of the grid exactly once".into()),
        ));
    }
    Ok(order)
}

/// Reads per-slave time ratios: columns `slave,ratio`, slaves numbered
/// `1..n`, each once; `ratio` multiplies a task's measured time on that
/// slave (2 = twice as slow as the machine that measured the tasks).
pub fn read_speeds(text: &str, file: &str, limits: &Limits) -> Result<Vec<Rat>, DataError> {
    let t = Table::read(text, file, 1 << 24)?;
    let cols = t.require(&["slave", "ratio"], "slave,ratio")?;
    let mut ratios: Vec<Option<Rat>> = Vec::new();
    for row in &t.rows {
        let s = t.number(row, cols[0], "slave number", *limits)?;
        let slave =
            s.to_integer().to_usize().filter(|n| s.is_integer() && (1..=1 << 24).contains(n)).ok_or_else(
                || {
                    t.cell_error(
                        row,
                        cols[0],
                        format!("line {}: slave `{}` is not a number 1, 2, …", row.line, row.cell(cols[0])),
                        None,
                    )
                },
            )?;
        let r = t.number(row, cols[1], "ratio", *limits)?;
        if !r.is_positive() {
            return Err(t.cell_error(
                row,
                cols[1],
                format!(
                    "line {}: ratio {} must be positive (it multiplies task times on slave {slave})",
                    row.line,
                    row.cell(cols[1])
                ),
                None,
            ));
        }
        if ratios.len() < slave {
            ratios.resize(slave, None);
        }
        if ratios[slave - 1].is_some() {
            return Err(t.row_error(row, format!("line {}: slave {slave} appears twice", row.line), None));
        }
        ratios[slave - 1] = Some(r);
    }
    if ratios.is_empty() {
        return Err(t.end_error(
            format!("no slaves in {file}"),
            Some("add lines `slave,ratio` such as `1,1.25`".into()),
        ));
    }
    if let Some(gap) = ratios.iter().position(Option::is_none) {
        return Err(t.end_error(
            format!("{file} lists slaves up to {} but not slave {}", ratios.len(), gap + 1),
            Some("number the slaves 1, 2, … without gaps".into()),
        ));
    }
    Ok(ratios.into_iter().flatten().collect())
}
