//! Measurements: reading the data a model is fitted to.
//!
//! Two text formats are read, both into a [`Dataset`] of exact
//! [`Measurement`]s (every number is parsed from its text into a [`Rat`],
//! never through `f64`):
//!
//! * **CSV** ([`read_csv`]): a header line naming the columns (a header cell
//!   may carry a unit, `T [s]` or `T (s)`), then one measurement per line.
//!   Lines starting with `#` are comments, blank lines are skipped, extra
//!   columns are ignored, CRLF line ends and a UTF-8 byte-order mark are
//!   accepted.
//! * **Extra-P text** ([`read_extrap`]): `PARAMETER`, `POINTS`, `REGION`,
//!   `METRIC` and `DATA` lines, one `DATA` line per point whose numbers are
//!   repetitions.
//!
//! [`read`] picks the format from the content. Every input error is a
//! [`DataError`] that points at the offending line and, where it can, the
//! offending cell or token.

pub mod archive;
mod csv;
pub mod cube;
pub mod detect;
pub mod dialect;
pub mod experiment;
mod extrap;
pub mod json;
pub mod table;
pub mod tasks;

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;

use num_bigint::BigInt;

use crate::lang::diag::Diagnostic;
use crate::limits::Limits;
use crate::num::{parse_rat_with, NumError, Rat};

pub use self::csv::{column_names, read_csv, read_csv_groups, text_columns};
pub use self::experiment::{
    Aggregate, Experiment, Format, Selection, Series, SeriesPoint, StoredModel, Summary,
};
pub use self::extrap::{read_extrap, read_extrap_experiment};

/// One measurement: the values of the model's variables, the measured value,
/// where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Measurement {
    /// The values of the model's variables, in the model's order.
    pub x: Vec<Rat>,
    /// The measured value.
    pub y: Rat,
    /// The 1-based line of the file the measurement was read from.
    pub line: usize,
}

/// Measurements for a model with variables `vars` (in the model's order) and
/// response `y_name`.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    /// The file name, as shown in messages.
    pub file: String,
    /// The model's variable names, in the model's order.
    pub vars: Vec<String>,
    /// The source column (CSV) or parameter (Extra-P) read for each variable.
    pub columns: Vec<String>,
    /// The source column read for the response; `REGION/METRIC` for Extra-P.
    pub y_column: String,
    /// Model variable or response name -> unit, where the header gave one.
    pub units: BTreeMap<String, String>,
    /// The measurements, in file order.
    pub rows: Vec<Measurement>,
    /// Notes that are not errors, e.g. lines that repeat an earlier line
    /// exactly (such lines are kept as repeated measurements).
    pub warnings: Vec<String>,
}

/// Which columns (or Extra-P parameters and block) to read.
#[derive(Debug, Clone)]
pub struct ColumnSpec {
    /// The model's variable names, in order.
    pub vars: Vec<String>,
    /// The model's function name (e.g. `T`): the response column unless
    /// [`ColumnSpec::y_column`] names another one.
    pub y: String,
    /// Model variable -> column (or Extra-P parameter) name, from `--x p=procs`.
    pub rename: BTreeMap<String, String>,
    /// The response column, from `--y COLUMN`.
    pub y_column: Option<String>,
    /// The Extra-P region to read (needed when the file holds several).
    pub region: Option<String>,
    /// The Extra-P metric to read (needed when the file holds several).
    pub metric: Option<String>,
    /// Limits on the numbers read and on the rows ([`Limits::rows`]).
    pub limits: Limits,
    /// CSV columns whose values split the rows into groups, one analysis
    /// each (`--by mpi,collective`).
    pub by: Vec<String>,
    /// The field separator of CSV-like text; `None` detects it from the
    /// header line ([`dialect::detect`]).
    pub delimiter: Option<dialect::Delimiter>,
}

impl Default for ColumnSpec {
    /// No variables, empty response name, default [`Limits`].
    fn default() -> Self {
        ColumnSpec {
            vars: Vec::new(),
            y: String::new(),
            rename: BTreeMap::new(),
            y_column: None,
            region: None,
            metric: None,
            limits: Limits::default(),
            by: Vec::new(),
            delimiter: None,
        }
    }
}

impl ColumnSpec {
    /// The column (or parameter) that holds model variable `var`.
    fn column_of<'a>(&'a self, var: &'a str) -> &'a str {
        self.rename.get(var).map_or(var, String::as_str)
    }

    /// The column that holds the response.
    fn y_column_name(&self) -> &str {
        self.y_column.as_deref().unwrap_or(&self.y)
    }
}

/// An input error with a location (file and byte span into the source text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataError {
    /// The located message.
    pub diagnostic: Diagnostic,
    /// The text the span points into when it is not the input file's own
    /// text: a member of an archive (`exp.extra-p:experiment.json`), whose
    /// name is then the diagnostic's file. Boxed: errors stay small.
    pub source: Option<Box<Member>>,
}

/// The text of an archive member an error points into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The member's text.
    pub text: String,
}

impl DataError {
    /// The rustc-style report: `file:line:col`, the source line and carets
    /// under the offending text (see [`Diagnostic::render`]). `source` is
    /// the input file's text; an error inside an archive member renders
    /// against the member's text instead.
    pub fn render(&self, source: &str) -> String {
        self.diagnostic.render(self.source.as_ref().map_or(source, |m| m.text.as_str()))
    }

    /// The error located in `text`, the content of archive member `name`.
    pub fn in_member(mut self, name: String, text: String) -> Self {
        self.diagnostic.file = name;
        self.source = Some(Box::new(Member { text }));
        self
    }
}

impl From<Diagnostic> for DataError {
    fn from(diagnostic: Diagnostic) -> Self {
        DataError { diagnostic, source: None }
    }
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.diagnostic, f)
    }
}

impl std::error::Error for DataError {}

/// The keywords that start the lines of an Extra-P text file.
const EXTRAP_KEYWORDS: [&str; 5] = ["PARAMETER", "POINTS", "REGION", "METRIC", "DATA"];

/// The indices of `n` rows left after leaving out `dropped` (`--drop`),
/// in order.
pub fn kept_rows(n: usize, dropped: &[usize]) -> Vec<usize> {
    (0..n).filter(|i| !dropped.contains(i)).collect()
}

/// The next scale of each variable of `rows` (`vars` variables), one point
/// per variable that has two scales or more: that variable one step past
/// its largest scale, the others at theirs. The step is the last one the
/// data take: `b + (b − a)` when the last three scales are evenly spaced
/// (100, 200, 300 → 400), else `b·(b/a)` when `a` is positive (64, 128,
/// 256 → 512), else `b + (b − a)` (`a`, `b`: the two largest scales).
/// What a user who gives no point most likely asks about: the run after
/// the largest one measured. Exact; empty without rows.
pub fn next_scales(rows: &[Measurement], vars: usize) -> Vec<Vec<Rat>> {
    use num_traits::Signed;
    // Distinct scales of each variable in order: hashed first (a few,
    // however many repetitions; comparing 10^6 rationals took a second).
    let scales: Vec<Vec<&Rat>> = (0..vars)
        .map(|i| {
            let set: std::collections::HashSet<&Rat> = rows.iter().filter_map(|m| m.x.get(i)).collect();
            let mut v: Vec<&Rat> = set.into_iter().collect();
            v.sort_by(|a, b| crate::num::cmp_fast(a, b));
            v
        })
        .collect();
    let largest: Option<Vec<Rat>> = scales.iter().map(|s| s.last().map(|&b| b.clone())).collect();
    let Some(largest) = largest else { return Vec::new() };
    scales
        .iter()
        .enumerate()
        .filter_map(|(i, scales)| {
            let n = scales.len();
            let (a, b) = (*scales.get(n.checked_sub(2)?)?, scales[n - 1]);
            let step = b - a;
            let even = n >= 3 && step == a - scales[n - 3];
            let next = if even || !a.is_positive() { b + step } else { b * b / a };
            let mut point = largest.clone();
            point[i] = next;
            Some(point)
        })
        .collect()
}

/// Reads CSV or Extra-P text, detected by content: Extra-P when the first
/// non-blank, non-comment line starts with an Extra-P keyword (`PARAMETER`,
/// `POINTS`, `REGION`, `METRIC` or `DATA`), CSV otherwise.
pub fn read(text: &str, file: &str, spec: &ColumnSpec) -> Result<Dataset, DataError> {
    read_inner(text, file, spec)
}

fn read_inner(text: &str, file: &str, spec: &ColumnSpec) -> Result<Dataset, DataError> {
    if looks_like_extrap(text) {
        read_extrap(text, file, spec)
    } else {
        read_csv(text, file, spec)
    }
}

/// The text of an input's bytes: UTF-8, a leading byte-order mark dropped,
/// old Mac line ends (a CR alone) read as line ends. Invalid UTF-8 is an
/// error at the line and column of its first bad byte (`name` names the
/// input), with a hint when the file looks like Latin-1.
pub fn decode(mut bytes: Vec<u8>, name: &str) -> Result<String, String> {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    // A CR not followed by LF ends a line; the replacement keeps every
    // byte offset, so located errors still point at the right place.
    for i in 0..bytes.len() {
        if bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n') {
            bytes[i] = b'\n';
        }
    }
    String::from_utf8(bytes).map_err(|e| {
        let bad = e.utf8_error().valid_up_to();
        let bytes = e.into_bytes();
        let line = 1 + bytes[..bad].iter().filter(|&&b| b == b'\n').count();
        let line_start = bytes[..bad].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        let column = 1 + String::from_utf8_lossy(&bytes[line_start..bad]).chars().count();
        let hint = if bytes[bad] >= 0xA0 {
            // Bytes from 0xA0 up are letters and signs in Latin-1 (µ is 0xB5).
            format!(
                " (byte 0x{:02X}, `{}` in Latin-1: the file seems to be Latin-1 or Windows-1252; save it as UTF-8, e.g. `iconv -f latin1 -t utf-8`)",
                bytes[bad],
                char::from(bytes[bad])
            )
        } else {
            format!(" (byte 0x{:02X})", bytes[bad])
        };
        format!("{name}:{line}:{column}: not valid UTF-8{hint}")
    })
}

/// A data input's kind ([`detect::sniff`], from the content, then the
/// name) and, for the text kinds (CSV, Extra-P text, the JSON family), its
/// text ([`decode`]); other kinds keep their bytes.
pub fn decode_input(bytes: Vec<u8>, name: &str) -> Result<(detect::Kind, String, Vec<u8>), String> {
    use detect::Kind;
    let kind = detect::sniff(&bytes, name);
    Ok(match kind {
        Kind::Text | Kind::Json | Kind::JsonLines | Kind::Talpas => (kind, decode(bytes, name)?, Vec::new()),
        _ => (kind, String::new(), bytes),
    })
}

/// Reads a data input of a kind other than text (`Kind::Text` is read by
/// [`Source::text`]): `bytes` are the file's, `text` its text when it is of
/// the JSON family (for located messages). Errors are the full messages,
/// located errors rendered; kinds errband does not read say what to do.
pub fn read_experiment(
    bytes: &[u8],
    text: &str,
    kind: detect::Kind,
    path: &str,
    limits: Limits,
) -> Result<Experiment, String> {
    use detect::Kind;
    let refused = |why: &str| Err(format!("{path}: this is {}{why}", kind.describe()));
    let r = match kind {
        Kind::ExtrapArchive => archive::read_extrap_archive(bytes, path, limits),
        Kind::Json => json::read_json(text, path, limits),
        Kind::JsonLines => json::read_jsonl(text, path, limits),
        Kind::Talpas => json::read_talpas(text, path, limits),
        // Text is read by `Source::text`; a caller that gets here is wrong.
        Kind::Text => return Err(format!("{path}: internal: text data read as an experiment")),
        Kind::Extrap3 => return refused(", a format Extra-P 4 no longer writes; errband does not read it. Open it in Extra-P 4 and save it as an experiment (.extra-p), which errband reads"),
        Kind::Gzip => return refused("; unpack it first (gunzip)"),
        Kind::CubeProfile => return refused(": one run, so one point. Give the directory that holds one subdirectory per run (e.g. `mm.x1000y1z1.r1/profile.cubex`), whose names carry the parameter values"),
    };
    r.map_err(|e| e.render(text))
}

/// One series to analyse: where it comes from, and its measurements.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// The callpath (Extra-P region), or the group (`mpi=Allreduce`) with
    /// `--by`; empty for a plain CSV file.
    pub callpath: String,
    /// The metric (the measured column for CSV).
    pub metric: String,
    /// The measurements, repetitions aggregated as asked.
    pub dataset: Dataset,
}

impl Part {
    /// `callpath / metric` (the callpath alone when the metric is the only
    /// one), as tables show it.
    pub fn name(&self) -> String {
        Part::name_of(&self.callpath, &self.metric)
    }

    fn name_of(callpath: &str, metric: &str) -> String {
        match (callpath.is_empty(), metric.is_empty()) {
            (true, _) => metric.to_string(),
            (false, true) => callpath.to_string(),
            (false, false) => format!("{callpath} / {metric}"),
        }
    }
}

/// What [`read_parts`] found: the format and the series selected.
///
/// The series of an experiment are not all held as measurements: each is
/// built from the experiment when it is asked for ([`Parts::get`]), so that
/// an experiment of 10^5 series is analysed with one series per thread in
/// memory, not every series twice (as read and as measurements). Every
/// series is checked when the parts are made: a series that cannot be
/// built is an input error before anything is analysed.
#[derive(Debug, Clone)]
pub struct Parts {
    /// The format the file was read as.
    pub format: Format,
    /// How many series the file holds in all (before the selection).
    pub total: usize,
    store: Store,
}

/// Where [`Parts`] keep their series.
#[derive(Debug, Clone)]
enum Store {
    /// Built (CSV tables, parts made by a caller).
    Held(Vec<Part>),
    /// An experiment's series, built on demand (the first one kept).
    Lazy(Box<Lazy>),
}

/// An experiment and how its series become parts.
#[derive(Debug, Clone)]
struct Lazy {
    experiment: Experiment,
    chosen: Vec<usize>,
    spec: ColumnSpec,
    aggregate: Aggregate,
    first: Part,
    /// Warnings about the whole input ([`Parts::warn`]), given to every
    /// series as it is built.
    notes: Vec<String>,
}

impl Lazy {
    fn part(&self, i: usize) -> Result<Part, DataError> {
        let s = &self.experiment.series[self.chosen[i]];
        let mut dataset = self.experiment.dataset(self.chosen[i], &self.spec, self.aggregate)?;
        dataset.warnings.extend(self.notes.iter().cloned());
        Ok(Part { callpath: s.callpath.clone(), metric: s.metric.clone(), dataset })
    }
}

impl Parts {
    /// Parts already built, at least one.
    pub fn held(format: Format, parts: Vec<Part>, total: usize) -> Parts {
        Parts { format, total, store: Store::Held(parts) }
    }

    /// Adds a warning about the whole input to every series' data (shown
    /// where each report lists the data's warnings).
    pub fn warn(&mut self, warning: String) {
        match &mut self.store {
            Store::Held(parts) => parts.iter_mut().for_each(|p| p.dataset.warnings.push(warning.clone())),
            Store::Lazy(l) => {
                l.first.dataset.warnings.push(warning.clone());
                l.notes.push(warning);
            }
        }
    }

    /// The series selected (at least one).
    pub fn len(&self) -> usize {
        match &self.store {
            Store::Held(p) => p.len(),
            Store::Lazy(l) => l.chosen.len(),
        }
    }

    /// Never true: there is always a series (kept for the convention).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first series (often the only one).
    pub fn first(&self) -> &Part {
        match &self.store {
            Store::Held(p) => &p[0],
            Store::Lazy(l) => &l.first,
        }
    }

    /// The series `i` (`None` past the end), built from the experiment
    /// unless it is held.
    pub fn get(&self, i: usize) -> Option<std::borrow::Cow<'_, Part>> {
        use std::borrow::Cow;
        match &self.store {
            Store::Held(p) => p.get(i).map(Cow::Borrowed),
            Store::Lazy(l) if i == 0 => Some(Cow::Borrowed(&l.first)),
            // Every series was checked when the parts were made (built
            // where the quick check could not tell), so this cannot fail.
            Store::Lazy(l) => l.chosen.get(i).and_then(|_| l.part(i).ok()).map(Cow::Owned),
        }
    }

    /// Every series, in order (built one at a time).
    pub fn iter(&self) -> impl Iterator<Item = std::borrow::Cow<'_, Part>> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// The callpath and metric of series `i`, without building it.
    pub fn names(&self, i: usize) -> Option<(&str, &str)> {
        match &self.store {
            Store::Held(p) => p.get(i).map(|p| (p.callpath.as_str(), p.metric.as_str())),
            Store::Lazy(l) => l
                .chosen
                .get(i)
                .map(|&j| &l.experiment.series[j])
                .map(|s| (s.callpath.as_str(), s.metric.as_str())),
        }
    }

    /// `callpath / metric` of series `i`, as [`Part::name`] gives it.
    pub fn name(&self, i: usize) -> Option<String> {
        self.names(i).map(|(c, m)| Part::name_of(c, m))
    }

    /// Every series, built.
    pub fn into_vec(self) -> Vec<Part> {
        match self.store {
            Store::Held(p) => p,
            Store::Lazy(l) => {
                let rest: Vec<Part> = (1..l.chosen.len()).filter_map(|i| l.part(i).ok()).collect();
                std::iter::once(l.first).chain(rest).collect()
            }
        }
    }
}

/// A data input, read but not yet mapped onto a model's variables: the
/// model may depend on it (Extra-P's models take the data's parameters as
/// their variables).
#[derive(Debug, Clone)]
pub enum Source<'a> {
    /// CSV text (any dialect), read once the columns are known.
    Csv(&'a str),
    /// A multi-series input (Extra-P text or JSON, JSON Lines, TaLPas,
    /// `.extra-p`, CUBE).
    Experiment {
        /// The series read.
        experiment: Experiment,
        /// How many series the file holds in all.
        total: usize,
        /// Whether only the selected series were read (Extra-P text reads
        /// only the numbers of the blocks it is asked for).
        selected: bool,
    },
}

impl<'a> Source<'a> {
    /// Reads a data input as the command line does: the CUBE profiles
    /// under `dir` (one subdirectory per run), or an input of `kind` with
    /// its `text` (text kinds) or its `bytes` (others), from
    /// [`decode_input`]. Errors are whole messages, located ones rendered.
    pub fn read(
        dir: Option<&std::path::Path>,
        kind: detect::Kind,
        text: &'a str,
        bytes: &[u8],
        file: &str,
        limits: Limits,
        sel: &Selection,
    ) -> Result<Self, String> {
        if let Some(d) = dir {
            return Ok(Source::experiment(cube::read_cube_set(d, file, limits).map_err(|e| e.render(""))?));
        }
        if kind == detect::Kind::Text {
            return Source::text(text, file, limits, sel).map_err(|e| e.render(text));
        }
        Ok(Source::experiment(read_experiment(bytes, text, kind, file, limits)?))
    }

    /// Opens the text of a CSV or Extra-P text file; of an Extra-P text
    /// file only the series `sel` names are read.
    pub fn text(text: &'a str, file: &str, limits: Limits, sel: &Selection) -> Result<Self, DataError> {
        if looks_like_extrap(text) {
            let (experiment, total) = extrap::read_extrap_selected(text, file, limits, sel)?;
            Ok(Source::Experiment { experiment, total, selected: true })
        } else {
            Ok(Source::Csv(text))
        }
    }

    /// An experiment read by one of the other readers.
    pub fn experiment(experiment: Experiment) -> Self {
        let total = experiment.series.len();
        Source::Experiment { experiment, total, selected: false }
    }

    /// The parameters of an experiment (`None` for CSV, whose columns are
    /// not known to be parameters).
    pub fn params(&self) -> Option<&[String]> {
        match self {
            Source::Csv(_) => None,
            Source::Experiment { experiment, .. } => Some(&experiment.params),
        }
    }

    /// Every series `sel` selects, each as the dataset of a model with
    /// `spec`'s variables, repetitions aggregated by `aggregate`. A plain
    /// CSV file is one series; `spec.by` splits it into groups. An
    /// experiment's series are built when they are asked for ([`Parts`]).
    pub fn into_parts(
        self,
        file: &str,
        spec: &ColumnSpec,
        sel: &Selection,
        aggregate: Aggregate,
    ) -> Result<Parts, DataError> {
        match self {
            Source::Csv(text) => csv_parts(text, file, spec, sel, aggregate),
            Source::Experiment { experiment, total, selected } => {
                let all = Selection::default();
                let parts = experiment_parts(experiment, spec, if selected { &all } else { sel }, aggregate)?;
                Ok(Parts { total, ..parts })
            }
        }
    }
}

/// Reads every series of `text` that `sel` selects (see [`Source::into_parts`]).
pub fn read_parts(
    text: &str,
    file: &str,
    spec: &ColumnSpec,
    sel: &Selection,
    aggregate: Aggregate,
) -> Result<Parts, DataError> {
    Source::text(text, file, spec.limits, sel)?.into_parts(file, spec, sel, aggregate)
}

fn csv_parts(
    text: &str,
    file: &str,
    spec: &ColumnSpec,
    sel: &Selection,
    aggregate: Aggregate,
) -> Result<Parts, DataError> {
    if spec.by.is_empty() {
        let mut d = read_csv(text, file, spec)?;
        if aggregate != Aggregate::All {
            d.rows = experiment::aggregate_rows(std::mem::take(&mut d.rows), aggregate);
            d.warnings.retain(|w| !w.contains("repeat"));
        }
        let metric = d.y_column.clone();
        return Ok(Parts::held(Format::Csv, vec![Part { callpath: String::new(), metric, dataset: d }], 1));
    }
    let groups = read_csv_groups(text, file, spec)?;
    let total = groups.len();
    let mut parts = Vec::new();
    for (name, mut d) in groups {
        let chosen = sel
            .callpath
            .as_ref()
            .is_none_or(|p| glob::Pattern::new(p).is_ok_and(|g| g.matches(&name)) || *p == name);
        if !chosen {
            continue;
        }
        if aggregate != Aggregate::All {
            d.rows = experiment::aggregate_rows(std::mem::take(&mut d.rows), aggregate);
        }
        let metric = d.y_column.clone();
        parts.push(Part { callpath: name, metric, dataset: d });
    }
    if parts.is_empty() {
        return Err(error(
            file,
            0..0,
            format!(
                "no group `{}` in {file} (--by {})",
                sel.callpath.as_deref().unwrap_or(""),
                spec.by.join(",")
            ),
            "",
            Some("name groups as `column=value`, e.g. --region 'mpi=Allreduce*'".to_string()),
        ));
    }
    Ok(Parts::held(Format::Csv, parts, total))
}

/// The selected series of an experiment as parts.
pub fn experiment_parts(
    experiment: Experiment,
    spec: &ColumnSpec,
    sel: &Selection,
    aggregate: Aggregate,
) -> Result<Parts, DataError> {
    let chosen = experiment.select(sel)?;
    let total = experiment.series.len();
    let format = experiment.format;
    let first = {
        let s = &experiment.series[chosen[0]];
        Part {
            callpath: s.callpath.clone(),
            metric: s.metric.clone(),
            dataset: experiment.dataset(chosen[0], spec, aggregate)?,
        }
    };
    // The first series met every check that is the same for all (the
    // parameters); each other one is checked without being built, unless
    // the quick check cannot tell, when it is built for its error.
    for &i in &chosen[1..] {
        if !experiment.surely_builds(i, aggregate, spec.limits.rows) {
            experiment.dataset(i, spec, aggregate)?;
        }
    }
    if chosen.len() == 1 {
        return Ok(Parts::held(format, vec![first], total));
    }
    let lazy = Lazy { experiment, chosen, spec: spec.clone(), aggregate, first, notes: Vec::new() };
    Ok(Parts { format, total, store: Store::Lazy(Box::new(lazy)) })
}

fn looks_like_extrap(text: &str) -> bool {
    let (body, _) = strip_bom(text);
    for line in body.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let first = t.split_ascii_whitespace().next().unwrap_or("");
        return EXTRAP_KEYWORDS.contains(&first);
    }
    false
}

/// The text without a leading UTF-8 byte-order mark, and the mark's length.
fn strip_bom(text: &str) -> (&str, usize) {
    match text.strip_prefix('\u{feff}') {
        Some(rest) => (rest, text.len() - rest.len()),
        None => (text, 0),
    }
}

/// Names shown in a list before it is cut short.
const LIST_SHOWN: usize = 12;

/// `a`, `b` and `c` as "`a`, `b`, `c`"; a long list shows its first names
/// and how many more there are (100 000 region names are not a message).
pub(crate) fn quoted_list<S: AsRef<str>>(items: &[S]) -> String {
    let shown: Vec<String> = items.iter().take(LIST_SHOWN).map(|s| format!("`{}`", s.as_ref())).collect();
    match items.len().saturating_sub(LIST_SHOWN) {
        0 => shown.join(", "),
        more => format!("{}, … ({more} more, {} in all)", shown.join(", "), items.len()),
    }
}

/// Parses one measured number (a cell or token), with a fast path for plain
/// decimals that yields exactly what [`parse_rat_with`] yields.
fn parse_number(text: &str, limits: Limits) -> Result<Rat, NumError> {
    if text.contains('_') {
        return Err(NumError::Separator(crate::num::shorten(text)));
    }
    match parse_small_decimal(text.as_bytes(), limits) {
        Some(r) => Ok(r),
        None => parse_rat_with(text, limits),
    }
}

/// A plain decimal literal taken apart: `±mantissa · 10^(exp − frac_len)`.
struct DecimalParts {
    negative: bool,
    mantissa: u128,
    /// Digits from the first nonzero one.
    significant: usize,
    /// The exponent as written (`e-7`: −7).
    exp: i64,
    /// Digits after the point.
    frac_len: i64,
}

/// `[+-]digits[.digits][e[+-]digits]` taken apart; `None` for anything
/// else, a mantissa beyond 128 bits or an exponent of more than four digits
/// (the callers fall back to the general parser).
fn decimal_parts(s: &[u8]) -> Option<DecimalParts> {
    let (negative, s) = match s.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, s),
    };
    let mut mantissa: u128 = 0;
    let mut significant: usize = 0;
    let mut frac_len: i64 = 0;
    let mut seen_point = false;
    let mut seen_digit = false;
    let mut i = 0;
    while let Some(&c) = s.get(i) {
        match c {
            b'0'..=b'9' => {
                seen_digit = true;
                if mantissa != 0 || c != b'0' {
                    significant += 1;
                }
                mantissa = mantissa.checked_mul(10)?.checked_add(u128::from(c - b'0'))?;
                if seen_point {
                    frac_len += 1;
                }
            }
            b'.' if !seen_point => seen_point = true,
            b'e' | b'E' => break,
            _ => return None,
        }
        i += 1;
    }
    if !seen_digit {
        return None;
    }
    let mut exp: i64 = 0;
    if i < s.len() {
        // s[i] is 'e' or 'E'
        let rest = s.get(i + 1..)?;
        let (eneg, digits) = match rest.split_first() {
            Some((b'-', d)) => (true, d),
            Some((b'+', d)) => (false, d),
            _ => (false, rest),
        };
        if digits.is_empty() || digits.len() > 4 {
            return None;
        }
        for &c in digits {
            if !c.is_ascii_digit() {
                return None;
            }
            exp = exp * 10 + i64::from(c - b'0');
        }
        if eneg {
            exp = -exp;
        }
    }
    Some(DecimalParts { negative, mantissa, significant, exp, frac_len })
}

/// [`decimal_parts`] whose value is `m * 10^k` with `m` and the power of
/// ten fitting in a `u64`, as a rational; `None` for anything else.
fn parse_small_decimal(s: &[u8], limits: Limits) -> Option<Rat> {
    let DecimalParts { negative, mantissa, significant, exp, frac_len } = decimal_parts(s)?;
    if significant > 18 || significant > limits.digits {
        return None;
    }
    let mantissa = u64::try_from(mantissa).ok()?;
    let total = exp - frac_len;
    let max_exp = i64::try_from(limits.exponent).unwrap_or(i64::MAX);
    if exp.abs() > max_exp || total.abs() > max_exp {
        return None;
    }
    let (num, den) = if mantissa == 0 {
        (0, 1)
    } else if total >= 0 {
        (mantissa.checked_mul(10u64.checked_pow(u32::try_from(total).ok()?)?)?, 1u64)
    } else {
        // m / 10^k in lowest terms: cancel the common factors 2 and 5
        // (cheaper than a general gcd).
        let k = u32::try_from(-total).ok()?;
        10u64.checked_pow(k)?;
        let mut m = mantissa;
        let twos = m.trailing_zeros().min(k);
        m >>= twos;
        let mut fives = k;
        while fives > 0 && m % 5 == 0 {
            m /= 5;
            fives -= 1;
        }
        (m, (1u64 << (k - twos)) * 5u64.pow(fives))
    };
    let num = if negative { -BigInt::from(num) } else { BigInt::from(num) };
    Some(Rat::new_raw(num, BigInt::from(den)))
}

/// The message and help for a number that did not parse. `what` names the
/// place ("line 4, column `T`"), `noun` the kind of number ("measurement").
fn number_error(what: &str, noun: &str, text: &str, err: &NumError) -> (String, Option<String>) {
    match err {
        NumError::Empty => (
            format!("{what}: empty cell; a {noun} must be a number"),
            Some("every line needs a value in each column the model uses".to_string()),
        ),
        NumError::NotFinite(t) => {
            (format!("{what}: `{t}` is not a finite number; a {noun} must be a finite decimal"), None)
        }
        NumError::Syntax(_) if text.contains(',') => (
            format!("{what}: {err}"),
            Some("use a point as the decimal separator (1.5, not 1,5)".to_string()),
        ),
        _ => (format!("{what}: {err}"), None),
    }
}

/// Builds a [`DataError`].
pub(crate) fn error(
    file: &str,
    span: Range<usize>,
    message: String,
    label: &str,
    help: Option<String>,
) -> DataError {
    let mut d = Diagnostic::new(file, span, message).with_label(label);
    if let Some(h) = help {
        d = d.with_help(h);
    }
    DataError { diagnostic: d, source: None }
}

/// Hash key over a measurement's values that hashes the (always normalized)
/// numerators and denominators directly; `Ratio`'s own `Hash` expands a
/// continued fraction, which is far slower.
struct RowKey<'a>(&'a Measurement);

impl std::hash::Hash for RowKey<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        for v in self.0.x.iter().chain(std::iter::once(&self.0.y)) {
            v.numer().hash(state);
            v.denom().hash(state);
        }
    }
}

impl PartialEq for RowKey<'_> {
    fn eq(&self, other: &Self) -> bool {
        let same = crate::num::eq_lowest;
        self.0.x.len() == other.0.x.len()
            && self.0.x.iter().zip(&other.0.x).all(|(a, b)| same(a, b))
            && same(&self.0.y, &other.0.y)
    }
}

impl Eq for RowKey<'_> {}

/// A small multiplicative hasher (the "Fx" hash of rustc) for the repeat
/// check: hashing 100 000 rows with the default SipHash costs more than
/// reading them. Row values come from the user's own file, so resistance to
/// crafted collisions is not needed.
#[derive(Default)]
struct FxHasher(u64);

impl std::hash::Hasher for FxHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(w));
        }
        for &b in chunks.remainder() {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.write_u64(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.write_u64(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
}

/// At most this many "repeats line N exactly" warnings are listed one by one.
const MAX_REPEAT_WARNINGS: usize = 20;

/// A row's values as machine integers (numerator and denominator of each)
/// when every one fits and the row has `N − 1` variables: an exact key that
/// is hashed and compared without following pointers. Comparing rows
/// through their big integers was most of reading 10^6 rows.
fn small_key<const N: usize>(row: &Measurement) -> Option<[(i64, u64); N]> {
    use num_traits::ToPrimitive;
    if row.x.len() + 1 != N {
        return None;
    }
    let mut key = [(0i64, 0u64); N];
    for (slot, v) in key.iter_mut().zip(row.x.iter().chain(std::iter::once(&row.y))) {
        *slot = (v.numer().to_i64()?, v.denom().to_u64()?);
    }
    Some(key)
}

/// Warnings for rows identical in all values to an earlier row.
fn repeat_warnings(rows: &[Measurement]) -> Vec<String> {
    let small = match rows.first().map_or(0, |r| r.x.len()) {
        0 => repeats_by(rows, small_key::<1>),
        1 => repeats_by(rows, small_key::<2>),
        2 => repeats_by(rows, small_key::<3>),
        3 => repeats_by(rows, small_key::<4>),
        _ => None,
    };
    small.or_else(|| repeats_by(rows, |r| Some(RowKey(r)))).unwrap_or_default()
}

/// [`repeat_warnings`] with rows compared by `key`; `None` as soon as a
/// row has none.
fn repeats_by<'a, K: std::hash::Hash + Eq>(
    rows: &'a [Measurement],
    key: impl Fn(&'a Measurement) -> Option<K>,
) -> Option<Vec<String>> {
    // Grown as needed: repetitions make the distinct rows far fewer.
    let mut seen: std::collections::HashMap<K, usize, std::hash::BuildHasherDefault<FxHasher>> =
        std::collections::HashMap::default();
    let mut out = Vec::new();
    let mut more = 0usize;
    for row in rows {
        match seen.entry(key(row)?) {
            std::collections::hash_map::Entry::Occupied(first) => {
                if out.len() < MAX_REPEAT_WARNINGS {
                    out.push(format!(
                        "line {} repeats line {} exactly (kept as a repeated measurement)",
                        row.line,
                        first.get()
                    ));
                } else {
                    more += 1;
                }
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(row.line);
            }
        }
    }
    if more > 0 {
        out.push(format!("{more} more lines repeat an earlier line exactly (kept as repeated measurements)"));
    }
    Some(out)
}

/// A spec reading `vars` and `y` with default limits (for tests).
#[cfg(test)]
pub(crate) fn test_spec(vars: &[&str], y: &str) -> ColumnSpec {
    ColumnSpec {
        vars: vars.iter().map(|s| s.to_string()).collect(),
        y: y.to_string(),
        ..ColumnSpec::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_scale_steps_as_the_last_scales_do() {
        use crate::num::{frac, int};
        let rows = |xs: &[&[i64]]| -> Vec<Measurement> {
            xs.iter()
                .enumerate()
                .map(|(i, x)| Measurement { x: x.iter().map(|&v| int(v)).collect(), y: int(1), line: i + 1 })
                .collect()
        };
        let next = |xs: &[&[i64]], vars| next_scales(&rows(xs), vars);
        // Doubling, repeated and out of order: the last ratio.
        assert_eq!(next(&[&[64], &[256], &[128], &[256], &[32]], 1), vec![vec![int(512)]]);
        // Evenly spaced: the last step.
        assert_eq!(next(&[&[100], &[200], &[300]], 1), vec![vec![int(400)]]);
        // Two scales: the ratio; a ratio that is not whole stays exact.
        assert_eq!(next(&[&[2], &[3]], 1), vec![vec![frac(9, 2)]]);
        // The last three evenly spaced, though the first are not.
        assert_eq!(next(&[&[24], &[48], &[96], &[144]], 1), vec![vec![int(192)]]);
        // Neither: the last ratio (96, 160 → 160·160/96).
        assert_eq!(next(&[&[24], &[48], &[96], &[160]], 1), vec![vec![frac(800, 3)]]);
        // From zero or below a ratio means nothing: the step.
        assert_eq!(next(&[&[-4], &[0]], 1), vec![vec![int(4)]]);
        // One scale: no next one.
        assert!(next(&[&[8], &[8]], 1).is_empty());
        assert!(next(&[], 1).is_empty());
        // Two variables: each one step on, the other at its largest; a
        // variable with one scale gives no point.
        let grid: &[&[i64]] = &[&[32, 5000], &[64, 5000], &[32, 6000], &[64, 6000], &[128, 7000]];
        assert_eq!(next(grid, 2), vec![vec![int(256), int(7000)], vec![int(128), int(8000)]]);
        assert_eq!(next(&[&[1, 10], &[2, 10]], 2), vec![vec![int(4), int(10)]]);
    }

    #[test]
    fn input_text_is_decoded_with_a_location_for_bad_bytes() {
        assert_eq!(decode(b"\xEF\xBB\xBFT(p) = a\n".to_vec(), "m.tm").unwrap(), "T(p) = a\n");
        assert_eq!(decode(b"p,T\r1,2\r".to_vec(), "d.csv").unwrap(), "p,T\n1,2\n");
        assert_eq!(decode(b"p,T\r\n1,2\r\n".to_vec(), "d.csv").unwrap(), "p,T\r\n1,2\r\n");
        let e = decode(b"p,T [\xB5s]\n1,2\n".to_vec(), "d.csv").unwrap_err();
        assert!(e.starts_with("d.csv:1:6: not valid UTF-8 (byte 0xB5, `\u{b5}` in Latin-1"), "{e}");
        let e = decode(b"a\nb\n\xC3\xA9\xFF".to_vec(), "x.qe").unwrap_err();
        assert!(e.starts_with("x.qe:3:2: not valid UTF-8 (byte 0xFF"), "{e}");
        // The kind comes first; only text kinds are decoded.
        let (kind, text, bytes) = decode_input(b"\xEF\xBB\xBFp,T\r1,2\r".to_vec(), "d.csv").unwrap();
        assert_eq!((kind, text.as_str(), bytes.len()), (detect::Kind::Text, "p,T\n1,2\n", 0));
        let gz = b"\x1f\x8b\x08\x00\xff\xfe".to_vec();
        let (kind, text, bytes) = decode_input(gz.clone(), "d.csv.gz").unwrap();
        assert_eq!((kind, text.as_str(), bytes), (detect::Kind::Gzip, "", gz));
    }
    use crate::num::parse_rat;

    use crate::data::test_spec as spec;

    #[test]
    fn fast_path_agrees_with_parse_rat() {
        let cases = [
            "0",
            "-0",
            "+0",
            "1",
            "12",
            "-7",
            "897.09",
            "0.5",
            ".5",
            "5.",
            "-0.0088823",
            "1.9312e-7",
            "2E+3",
            "1e0",
            "123456789012345678",
            "1234567890123456789",
            "0.000000000000000001",
            "1e18",
            "1e19",
            "9.9e-18",
            "00012.3400",
            "-00.00",
            "1_000",
            "1e",
            "e5",
            "abc",
            "1.2.3",
            "--1",
            "1e-20",
            "12345678.123456789",
        ];
        for c in cases {
            let limits = Limits::default();
            let fast = parse_small_decimal(c.as_bytes(), limits);
            let slow = parse_rat_with(c, limits);
            if let Some(f) = &fast {
                assert_eq!(Ok(f.clone()), slow, "{c}");
            }
            if c.contains('_') {
                assert!(matches!(parse_number(c, limits), Err(NumError::Separator(_))), "{c}");
            } else {
                assert_eq!(parse_number(c, limits), slow, "{c}");
            }
        }
        // tight limits: the fast path must not accept what the limits refuse
        let tight = Limits { exponent: 3, digits: 4, ..Limits::default() };
        for c in ["12345", "1.2345", "0.0001", "1e4", "1e-4", "1234", "0.001"] {
            assert_eq!(parse_number(c, tight), parse_rat_with(c, tight), "{c}");
        }
    }

    proptest::proptest! {
        #[test]
        fn fast_path_matches_on_random_decimals(
            neg in proptest::bool::ANY,
            int in 0u64..10_000_000_000,
            frac in proptest::option::of(0u64..1_000_000_000),
            zeros in 0usize..6,
            exp in proptest::option::of(-30i32..30),
        ) {
            let mut s = String::new();
            if neg { s.push('-'); }
            s.push_str(&int.to_string());
            if let Some(f) = frac { s.push('.'); s.push_str(&"0".repeat(zeros)); s.push_str(&f.to_string()); }
            if let Some(e) = exp { s.push_str(&format!("e{e}")); }
            proptest::prop_assert_eq!(parse_number(&s, Limits::default()), parse_rat(&s));
        }
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_text_never_panics(text in "[ -~\t\r\n\u{feff}é]{0,200}", extrap in proptest::bool::ANY) {
            let prefix = if extrap { "PARAMETER p\nPOINTS 1 2\n" } else { "p,T\n" };
            let text = format!("{prefix}{text}");
            if let Err(e) = read(&text, "f", &spec(&["p"], "T")) {
                let _ = e.render(&text);
                let _ = e.to_string();
            }
        }
    }

    #[test]
    fn detects_the_format_by_content() {
        assert!(looks_like_extrap("# synthetic\n\nPARAMETER p\nPOINTS 1 2\n"));
        assert!(looks_like_extrap("\u{feff}REGION main\n"));
        assert!(!looks_like_extrap("p,T\n1,2\n"));
        assert!(!looks_like_extrap("PARAMETER,T\n1,2\n"));
        assert!(!looks_like_extrap(""));
        let s = spec(&["p"], "T");
        let d = read("PARAMETER p\nPOINTS 1 2\nREGION r\nMETRIC m\nDATA 3\nDATA 4\n", "a.txt", &s).unwrap();
        assert_eq!(d.y_column, "r/m");
        let d = read("p,T\n1,3\n", "a.csv", &s).unwrap();
        assert_eq!(d.y_column, "T");
    }

    #[test]
    fn repeat_warnings_are_capped() {
        let rows: Vec<Measurement> = (0..30)
            .map(|i| Measurement {
                x: vec![Rat::from_integer(1.into())],
                y: Rat::from_integer(2.into()),
                line: i + 2,
            })
            .collect();
        let w = repeat_warnings(&rows);
        assert_eq!(w.len(), MAX_REPEAT_WARNINGS + 1);
        assert_eq!(w[0], "line 3 repeats line 2 exactly (kept as a repeated measurement)");
        assert_eq!(
            w[MAX_REPEAT_WARNINGS],
            "9 more lines repeat an earlier line exactly (kept as repeated measurements)"
        );
    }

    #[test]
    fn error_display_and_render() {
        let e = error("f.csv", 2..3, "bad".to_string(), "here", Some("fix it".to_string()));
        assert_eq!(e.to_string(), "f.csv: bad");
        assert_eq!(
            e.render("p,T\n"),
            "error: bad\n --> f.csv:1:3\n  |\n1 | p,T\n  |   ^ here\n  = help: fix it"
        );
    }
}
