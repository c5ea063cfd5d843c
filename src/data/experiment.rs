//! Experiments: many series of measurements over the same parameters, one
//! per callpath and metric, as Extra-P and Score-P keep them.
//!
//! Every reader of a multi-series format (Extra-P text, JSON, JSON Lines,
//! TaLPas, `.extra-p` archives, CUBE profiles, and CSV with grouping
//! columns) produces an [`Experiment`]. The analysis takes one series at a
//! time: [`Experiment::dataset`] turns a series into the [`Dataset`] of
//! exact measurements one model is fitted to, with the repetitions at each
//! point kept or aggregated as [`Aggregate`] says.

use crate::num::Point;
use std::collections::HashMap;
use std::ops::Range;

use super::{error, quoted_list, ColumnSpec, DataError, Dataset, Measurement, Rat};

/// The formats errband reads, named in reports and messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// CSV (or semicolon-, tab- or whitespace-separated values) with a header.
    Csv,
    /// Extra-P's text input format (`PARAMETER`, `POINTS`, `REGION`, `METRIC`, `DATA`).
    ExtrapText,
    /// Extra-P's JSON input format (either schema).
    ExtrapJson,
    /// Extra-P's JSON Lines input format (one measurement per line).
    JsonLines,
    /// TaLPas' text format (one measurement per line).
    Talpas,
    /// An Extra-P experiment file (`.extra-p`, a zip archive).
    ExtrapArchive,
    /// A set of Score-P CUBE profiles (`profile.cubex`, one per run).
    Cube,
}

impl Format {
    /// The name shown to users.
    pub fn name(self) -> &'static str {
        match self {
            Format::Csv => "CSV",
            Format::ExtrapText => "Extra-P text",
            Format::ExtrapJson => "Extra-P JSON",
            Format::JsonLines => "Extra-P JSON Lines",
            Format::Talpas => "TaLPas",
            Format::ExtrapArchive => "Extra-P experiment (.extra-p)",
            Format::Cube => "CUBE profiles",
        }
    }
}

/// Summary statistics a file stores at a point in place of (or beside) its
/// repetitions; Extra-P's experiment files may hold only these.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// The mean of the repetitions.
    pub mean: Option<Rat>,
    /// Their median.
    pub median: Option<Rat>,
    /// The smallest.
    pub minimum: Option<Rat>,
    /// The largest.
    pub maximum: Option<Rat>,
    /// How many there were.
    pub repetitions: Option<u64>,
}

impl Summary {
    /// The summary boxed, `None` when it holds nothing (most points).
    pub fn boxed(self) -> Option<Box<Summary>> {
        (self != Summary::default()).then(|| Box::new(self))
    }
}

/// The measurements of one series at one point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeriesPoint {
    /// The parameter values, in [`Experiment::params`] order.
    pub coords: Vec<Rat>,
    /// The repeated measurements (may be empty when only `summary` is known).
    pub values: Values,
    /// Statistics stored by the file (not computed from `values`), when it
    /// stores any ([`SeriesPoint::summary`] reads them).
    pub summary: Option<Box<Summary>>,
    /// The 1-based line the point was read from (0 when the format has no lines).
    pub line: usize,
}

impl SeriesPoint {
    /// The statistics the file stores at the point (all `None` when none).
    pub fn summary(&self) -> &Summary {
        static NONE: Summary =
            Summary { mean: None, median: None, minimum: None, maximum: None, repetitions: None };
        self.summary.as_deref().unwrap_or(&NONE)
    }
}

/// Repeated measurements, held compactly: an experiment of 10^5 series
/// holds millions of them until each series is analysed. A value whose
/// numerator fits 64 bits and denominator 32 (every short decimal a
/// profiler writes) takes 16 bytes, where an exact rational takes about 100
/// with its two heap blocks; any other value is kept as it is. Values are
/// exact either way and come back as the same rationals, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Values(Vec<Value>);

/// One of [`Values`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum Value {
    /// `n / d` in lowest terms, `d > 0`.
    Small(i64, u32),
    /// Any other rational.
    Big(Box<Rat>),
}

impl Value {
    fn of(x: Rat) -> Value {
        use num_traits::ToPrimitive;
        match (x.numer().to_i64(), x.denom().to_u32()) {
            (Some(n), Some(d)) => Value::Small(n, d),
            _ => Value::Big(Box::new(x)),
        }
    }

    fn get(&self) -> Rat {
        match self {
            // Already in lowest terms: no gcd.
            Value::Small(n, d) => Rat::new_raw((*n).into(), (*d).into()),
            Value::Big(x) => (**x).clone(),
        }
    }
}

impl Values {
    /// No values.
    pub fn new() -> Values {
        Values(Vec::new())
    }

    /// How many values.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Adds a value at the end.
    pub fn push(&mut self, x: Rat) {
        self.0.push(Value::of(x));
    }

    /// The value at `i`.
    pub fn get(&self, i: usize) -> Option<Rat> {
        self.0.get(i).map(Value::get)
    }

    /// The values, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Rat> + '_ {
        self.0.iter().map(Value::get)
    }

    /// The values as rationals.
    pub fn to_vec(&self) -> Vec<Rat> {
        self.iter().collect()
    }

    /// Appends other values.
    pub fn append(&mut self, other: &Values) {
        self.0.extend(other.0.iter().cloned());
    }
}

impl Extend<Rat> for Values {
    fn extend<I: IntoIterator<Item = Rat>>(&mut self, iter: I) {
        self.0.extend(iter.into_iter().map(Value::of));
    }
}

impl FromIterator<Rat> for Values {
    fn from_iter<I: IntoIterator<Item = Rat>>(iter: I) -> Values {
        let mut v: Vec<Value> = iter.into_iter().map(Value::of).collect();
        // Collected from a `Vec<Rat>`, the values reuse its allocation in
        // place: four times the bytes they need, kept for the whole run
        // (a quarter of a gigabyte for 10^5 callpaths of 25 values).
        v.shrink_to_fit();
        Values(v)
    }
}

impl From<Vec<Rat>> for Values {
    fn from(v: Vec<Rat>) -> Values {
        v.into_iter().collect()
    }
}

impl PartialEq<Vec<Rat>> for Values {
    fn eq(&self, other: &Vec<Rat>) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a == *b)
    }
}

/// One callpath × metric: the measurements one model is fitted to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Series {
    /// The callpath (Extra-P's region; a group's values for `--by`).
    pub callpath: String,
    /// The metric (the measured column for CSV).
    pub metric: String,
    /// Unit of the metric, when the file states it.
    pub unit: Option<String>,
    /// The points, in file order.
    pub points: Vec<SeriesPoint>,
    /// Where the series starts in the file's text (a byte span, empty when
    /// the format has no such place), for messages about it.
    pub span: std::ops::Range<usize>,
}

impl Series {
    /// `callpath / metric`, as shown in tables.
    pub fn name(&self) -> String {
        if self.metric.is_empty() {
            self.callpath.clone()
        } else {
            format!("{} / {}", self.callpath, self.metric)
        }
    }
}

/// A model Extra-P fitted and stored with the measurements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredModel {
    /// The series it was fitted to.
    pub callpath: String,
    /// See `callpath`.
    pub metric: String,
    /// The hypothesis in errband's model syntax with coefficients named
    /// `c0, c1, …` (e.g. `c0 + c1*p^(7/3)`).
    pub form: String,
    /// Extra-P's values of the coefficients, exact from the file's text.
    pub coefficients: Vec<(String, Rat)>,
    /// The source of the hypothesis as the file writes it (for reports).
    pub original: String,
}

/// Many series over the same parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Experiment {
    /// The file (or directory) name, as shown in messages.
    pub file: String,
    /// The format it was read as.
    pub format: Format,
    /// The parameter names.
    pub params: Vec<String>,
    /// Where the parameters are declared in the file's text (a byte span,
    /// empty when the format has no such place): errors about them point here.
    pub params_span: std::ops::Range<usize>,
    /// The series, in file order.
    pub series: Vec<Series>,
    /// Models stored in the file (Extra-P experiments).
    pub models: Vec<StoredModel>,
    /// Notes that are not errors.
    pub warnings: Vec<String>,
}

/// How the repetitions at a point become the constraints of the fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Aggregate {
    /// Every repetition is a measurement of its own (the paper's method).
    #[default]
    All,
    /// The mean of the repetitions (what Extra-P fits).
    Mean,
    /// Their median.
    Median,
    /// The smallest (the least disturbed run).
    Min,
    /// The largest.
    Max,
}

impl Aggregate {
    /// The choice as a sentence for reports.
    pub fn describe(self) -> &'static str {
        match self {
            Aggregate::All => "every repetition is a measurement (a constraint of its own)",
            Aggregate::Mean => "the mean of the repetitions at each point",
            Aggregate::Median => "the median of the repetitions at each point",
            Aggregate::Min => "the smallest repetition at each point",
            Aggregate::Max => "the largest repetition at each point",
        }
    }

    /// The flag value.
    pub fn name(self) -> &'static str {
        match self {
            Aggregate::All => "all",
            Aggregate::Mean => "mean",
            Aggregate::Median => "median",
            Aggregate::Min => "min",
            Aggregate::Max => "max",
        }
    }

    /// The value(s) at a point: computed exactly from the repetitions, or
    /// taken from the file's summary when it has no repetitions. `None` when
    /// neither is there.
    pub fn apply(self, p: &SeriesPoint) -> Option<Vec<Rat>> {
        if !p.values.is_empty() {
            // The exact median, sum and comparisons of `num` (machine words
            // for short decimals); num-rational's comparison divides.
            let v = p.values.to_vec();
            let cmp = |a: &&Rat, b: &&Rat| crate::num::cmp_fast(a, b);
            return Some(match self {
                Aggregate::All => v,
                Aggregate::Mean => {
                    let mut sum = crate::num::Sum::default();
                    v.iter().for_each(|x| sum.add(x));
                    vec![sum.value() / Rat::from_integer(v.len().into())]
                }
                Aggregate::Median => vec![crate::num::median(v.iter().collect())?],
                Aggregate::Min => vec![v.iter().min_by(cmp)?.clone()],
                Aggregate::Max => vec![v.iter().max_by(cmp)?.clone()],
            });
        }
        let s = p.summary();
        let one = match self {
            // Without repetitions, `all` reads what there is: the mean.
            Aggregate::All | Aggregate::Mean => s.mean.clone().or_else(|| s.median.clone()),
            Aggregate::Median => s.median.clone(),
            Aggregate::Min => s.minimum.clone(),
            Aggregate::Max => s.maximum.clone(),
        };
        one.map(|v| vec![v])
    }
}

/// The measurements with the repetitions at each point (rows with equal
/// `x`) aggregated; points keep the order of their first row and its line.
pub fn aggregate_rows(rows: Vec<Measurement>, aggregate: Aggregate) -> Vec<Measurement> {
    if aggregate == Aggregate::All {
        return rows;
    }
    let mut index: HashMap<Point<Vec<Rat>>, usize> = HashMap::new();
    let mut points: Vec<SeriesPoint> = Vec::new();
    for r in rows {
        use std::collections::hash_map::Entry;
        match index.entry(Point(r.x)) {
            Entry::Occupied(k) => points[*k.get()].values.push(r.y),
            Entry::Vacant(slot) => {
                let coords = slot.key().0.clone();
                slot.insert(points.len());
                points.push(SeriesPoint {
                    coords,
                    values: std::iter::once(r.y).collect(),
                    summary: None,
                    line: r.line,
                });
            }
        }
    }
    let mut out = Vec::with_capacity(points.len());
    for p in points {
        for y in aggregate.apply(&p).unwrap_or_default() {
            out.push(Measurement { x: p.coords.clone(), y, line: p.line });
        }
    }
    out
}

/// Which series of an experiment to analyse: glob patterns (`*`, `?`,
/// `[…]`) on the callpath and the metric; `None` selects every one.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Pattern for the callpath (`--region`).
    pub callpath: Option<String>,
    /// Pattern for the metric (`--metric`).
    pub metric: Option<String>,
}

/// A compiled `--region`/`--metric` pattern: `None` matches everything; a
/// name matches itself even when it holds glob characters (`f[1]`).
struct Matcher<'a> {
    text: Option<&'a str>,
    glob: Option<glob::Pattern>,
}

impl<'a> Matcher<'a> {
    /// A pattern that is not a valid glob (`[x`) still matches literally.
    fn new(pattern: &'a Option<String>) -> Self {
        let text = pattern.as_deref();
        Matcher { text, glob: text.and_then(|p| glob::Pattern::new(p).ok()) }
    }

    fn matches(&self, name: &str) -> bool {
        match self.text {
            None => true,
            Some(t) => t == name || self.glob.as_ref().is_some_and(|g| g.matches(name)),
        }
    }
}

impl Selection {
    /// The indices of the `(callpath, metric)` pairs the selection names;
    /// when nothing matches, an error names what is available.
    /// Errors point at `at` (the first series, or an empty span).
    pub fn choose(
        &self,
        names: &[(&str, &str)],
        file: &str,
        at: Range<usize>,
    ) -> Result<Vec<usize>, DataError> {
        let fail = |message: String| error(file, at.clone(), message, "", None);
        let (callpath, metric) = (Matcher::new(&self.callpath), Matcher::new(&self.metric));
        let by_callpath: Vec<usize> = (0..names.len()).filter(|&i| callpath.matches(names[i].0)).collect();
        if by_callpath.is_empty() {
            let mut seen = std::collections::HashSet::new();
            let all: Vec<&str> = names.iter().map(|n| n.0).filter(|c| seen.insert(*c)).collect();
            return Err(fail(format!(
                "no callpath matches --region `{}` in {file} (available: {})",
                self.callpath.as_deref().unwrap_or(""),
                quoted_list(&all)
            )));
        }
        let chosen: Vec<usize> =
            by_callpath.iter().copied().filter(|&i| metric.matches(names[i].1)).collect();
        if chosen.is_empty() {
            let mut seen = std::collections::HashSet::new();
            let all: Vec<&str> =
                by_callpath.iter().map(|&i| names[i].1).filter(|m| seen.insert(*m)).collect();
            return Err(fail(format!(
                "no metric matches --metric `{}` in {file} (available: {})",
                self.metric.as_deref().unwrap_or(""),
                quoted_list(&all)
            )));
        }
        Ok(chosen)
    }
}

impl Experiment {
    /// The indices of the series the selection names; an error names what
    /// is available when nothing matches.
    pub fn select(&self, sel: &Selection) -> Result<Vec<usize>, DataError> {
        let names: Vec<(&str, &str)> =
            self.series.iter().map(|s| (s.callpath.as_str(), s.metric.as_str())).collect();
        sel.choose(&names, &self.file, self.series.first().map_or(0..0, |s| s.span.clone()))
    }

    /// True when [`Experiment::dataset`] surely succeeds for series `index`,
    /// given that it succeeded for another series with the same model
    /// variables (the parameters are the experiment's): every point has
    /// repetitions, so every aggregate has a value, and there are no more
    /// rows than `max_rows` however points are merged. `false` means only
    /// that this check cannot tell.
    pub fn surely_builds(&self, index: usize, aggregate: Aggregate, max_rows: usize) -> bool {
        let points = &self.series[index].points;
        if points.iter().any(|p| p.values.is_empty()) {
            return false;
        }
        let rows = match aggregate {
            Aggregate::All => points.iter().map(|p| p.values.len()).sum(),
            // Merged points give one row each, at most one per point.
            _ => points.len(),
        };
        rows <= max_rows
    }

    /// The measurements of series `index` for a model whose variables are
    /// `spec.vars` (matched to parameters through `spec.rename`), with the
    /// repetitions aggregated. Parameters that are not model variables
    /// must be constant over the series; points that differ only in them
    /// are read as repetitions, with a warning.
    pub fn dataset(
        &self,
        index: usize,
        spec: &ColumnSpec,
        aggregate: Aggregate,
    ) -> Result<Dataset, DataError> {
        let series = &self.series[index];
        let mut param_of_var = Vec::with_capacity(spec.vars.len());
        let mut missing = Vec::new();
        for v in &spec.vars {
            let name = spec.column_of(v);
            match self.params.iter().position(|p| p == name) {
                Some(j) => param_of_var.push(j),
                None => missing.push(if name == v {
                    format!("`{name}`")
                } else {
                    format!("`{name}` (for `{v}`)")
                }),
            }
        }
        if !missing.is_empty() {
            let noun = if missing.len() == 1 { "parameter" } else { "parameters" };
            let first = spec.vars.iter().find(|v| !self.params.iter().any(|p| p == spec.column_of(v)));
            return Err(error(
                &self.file,
                self.params_span.clone(),
                format!(
                    "missing {noun} {} in {} (available: {})",
                    missing.join(", "),
                    self.file,
                    quoted_list(&self.params)
                ),
                "",
                first.map(|v| format!("map a model variable to a parameter with `--x {v}=PARAMETER`")),
            ));
        }
        let mut warnings = self.warnings.clone();
        for (j, name) in self.params.iter().enumerate() {
            if param_of_var.contains(&j) {
                continue;
            }
            let mut values = series.points.iter().filter_map(|p| p.coords.get(j));
            let first = values.next();
            if values.any(|v| Some(v) != first) {
                warnings.push(format!(
                    "parameter `{name}` is not a model variable; points that differ only in `{name}` are read as repetitions"
                ));
            }
        }
        // With `all`, every repetition keeps its own line, in file order;
        // otherwise points that coincide on the model's variables pool
        // their repetitions before they are aggregated.
        let mut merged: Vec<(Vec<Rat>, std::borrow::Cow<'_, SeriesPoint>)> = Vec::new();
        let mut by_point: HashMap<Point<Vec<Rat>>, usize> = HashMap::new();
        for p in &series.points {
            let x: Vec<Rat> = param_of_var.iter().filter_map(|&j| p.coords.get(j).cloned()).collect();
            if aggregate == Aggregate::All {
                merged.push((x, std::borrow::Cow::Borrowed(p)));
                continue;
            }
            use std::collections::hash_map::Entry;
            match by_point.entry(Point(x)) {
                Entry::Occupied(k) => merged[*k.get()].1.to_mut().values.append(&p.values),
                Entry::Vacant(slot) => {
                    let x = slot.key().0.clone();
                    slot.insert(merged.len());
                    merged.push((x, std::borrow::Cow::Borrowed(p)));
                }
            }
        }
        let mut rows = Vec::new();
        for (x, p) in merged {
            let values = aggregate.apply(&p).ok_or_else(|| {
                error(
                    &self.file,
                    0..0,
                    format!(
                        "{}: the point ({}) has no {} value",
                        series.name(),
                        p.coords.iter().map(crate::num::fmt_fraction).collect::<Vec<_>>().join(", "),
                        aggregate.name()
                    ),
                    "",
                    Some("choose another --aggregate (the file stores only some statistics)".to_string()),
                )
            })?;
            for y in values {
                if rows.len() >= spec.limits.rows {
                    return Err(error(
                        &self.file,
                        0..0,
                        format!(
                            "{} has too many measurements {}",
                            self.file,
                            crate::limits::Limit::Rows.note(&spec.limits)
                        ),
                        "",
                        None,
                    ));
                }
                rows.push(Measurement { x: x.clone(), y, line: p.line });
            }
        }
        let mut units = std::collections::BTreeMap::new();
        if let Some(u) = &series.unit {
            units.insert(spec.y.clone(), u.clone());
        }
        Ok(Dataset {
            file: self.file.clone(),
            vars: spec.vars.clone(),
            columns: param_of_var.iter().filter_map(|&j| self.params.get(j).cloned()).collect(),
            y_column: format!("{}/{}", series.callpath, series.metric),
            units,
            rows,
            warnings,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::{frac, int};
    use num_bigint::BigInt;

    fn point(x: i64, values: &[i64]) -> SeriesPoint {
        SeriesPoint {
            coords: vec![int(x)],
            values: values.iter().map(|&v| int(v)).collect(),
            summary: None,
            line: 0,
        }
    }

    fn experiment() -> Experiment {
        let s = |c: &str, m: &str| Series {
            callpath: c.to_string(),
            metric: m.to_string(),
            unit: None,
            points: vec![point(2, &[4, 1, 3]), point(4, &[6, 8])],
            span: 0..0,
        };
        Experiment {
            file: "e".into(),
            format: Format::ExtrapText,
            params: vec!["p".into()],
            params_span: 0..0,
            series: vec![s("main", "time"), s("main->MPI_Send", "time"), s("main", "visits")],
            models: vec![],
            warnings: vec![],
        }
    }

    #[test]
    fn aggregates_are_exact() {
        let p = point(2, &[4, 1, 3, 2]);
        assert_eq!(Aggregate::Mean.apply(&p), Some(vec![frac(5, 2)]));
        assert_eq!(Aggregate::Median.apply(&p), Some(vec![frac(5, 2)]));
        assert_eq!(Aggregate::Median.apply(&point(2, &[4, 1, 3])), Some(vec![int(3)]));
        assert_eq!(Aggregate::Min.apply(&p), Some(vec![int(1)]));
        assert_eq!(Aggregate::Max.apply(&p), Some(vec![int(4)]));
        assert_eq!(Aggregate::All.apply(&p).map(|v| v.len()), Some(4));
        // Only a summary: `all` and `mean` read the mean; a missing statistic is None.
        let s = SeriesPoint {
            coords: vec![int(2)],
            values: Values::new(),
            summary: Some(Box::new(Summary {
                mean: Some(int(7)),
                median: None,
                minimum: Some(int(5)),
                maximum: None,
                repetitions: Some(5),
            })),
            line: 0,
        };
        assert_eq!(Aggregate::All.apply(&s), Some(vec![int(7)]));
        assert_eq!(Aggregate::Min.apply(&s), Some(vec![int(5)]));
        assert_eq!(Aggregate::Max.apply(&s), None);
    }

    #[test]
    fn selection_by_name_and_glob() {
        let e = experiment();
        assert_eq!(e.select(&Selection::default()).unwrap(), vec![0, 1, 2]);
        let sel = |c: Option<&str>, m: Option<&str>| Selection {
            callpath: c.map(Into::into),
            metric: m.map(Into::into),
        };
        assert_eq!(e.select(&sel(Some("main"), None)).unwrap(), vec![0, 2]);
        assert_eq!(e.select(&sel(Some("main*"), Some("time"))).unwrap(), vec![0, 1]);
        assert_eq!(e.select(&sel(Some("*MPI_*"), None)).unwrap(), vec![1]);
        let err = e.select(&sel(Some("solve"), None)).unwrap_err();
        assert!(
            err.to_string()
                .contains("no callpath matches --region `solve` in e (available: `main`, `main->MPI_Send`)"),
            "{err}"
        );
        let err = e.select(&sel(Some("main"), Some("bytes"))).unwrap_err();
        assert!(err.to_string().contains("(available: `time`, `visits`)"), "{err}");
    }

    #[test]
    fn values_are_held_compactly_and_come_back_exact() {
        let big = Rat::new(BigInt::from(10).pow(30) + 1, BigInt::from(3));
        let xs = vec![frac(-1, 3), int(i64::MAX), frac(1, i64::from(u32::MAX) + 1), big.clone(), frac(7, 20)];
        let v: Values = xs.clone().into();
        assert_eq!(v, xs);
        assert_eq!((v.len(), v.get(3), v.get(5)), (5, Some(big), None));
        assert!(matches!(v.0[0], Value::Small(-1, 3)));
        assert!(matches!(v.0[2], Value::Big(_)), "the denominator needs 33 bits");
        // A line's values as read (a vector of rationals, grown by pushes)
        // do not leave their allocation to the compact ones.
        let mut read = Vec::new();
        for x in &xs {
            read.push(x.clone());
        }
        let held: Values = read.into();
        assert_eq!(held.0.capacity(), 5);
        let mut w = Values::new();
        w.push(int(2));
        w.append(&v);
        assert_eq!(w.to_vec()[1..], xs[..]);
    }

    #[test]
    fn an_experiments_series_are_built_on_demand_and_checked_up_front() {
        let spec = ColumnSpec { vars: vec!["p".into()], y: "T".into(), ..Default::default() };
        let parts = crate::data::experiment_parts(experiment(), &spec, &Selection::default(), Aggregate::All)
            .unwrap();
        let e = experiment();
        assert_eq!((parts.len(), parts.total), (3, 3));
        assert_eq!(parts.names(1), Some(("main->MPI_Send", "time")));
        assert_eq!(parts.name(2).as_deref(), Some("main / visits"));
        for i in 0..3 {
            assert_eq!(parts.get(i).unwrap().dataset, e.dataset(i, &spec, Aggregate::All).unwrap());
        }
        assert!(parts.get(3).is_none());
        let built: Vec<Dataset> = parts.into_vec().into_iter().map(|p| p.dataset).collect();
        assert_eq!(built.len(), 3);
        // A later series that cannot be built is an input error before any
        // is analysed: a point with no median stored and no repetitions.
        let mut bad = experiment();
        bad.series[2].points[1] = SeriesPoint { values: Values::new(), ..point(4, &[]) };
        let err =
            crate::data::experiment_parts(bad, &spec, &Selection::default(), Aggregate::Median).unwrap_err();
        assert!(err.to_string().contains("has no median value"), "{err}");
        // So is one with too many rows.
        let few =
            ColumnSpec { limits: crate::limits::Limits { rows: 4, ..Default::default() }, ..spec.clone() };
        let mut long = experiment();
        long.series[0].points[0].values = vec![int(1); 2].into();
        long.series[1].points[0].values = vec![int(1); 9].into();
        assert!(crate::data::experiment_parts(long, &few, &Selection::default(), Aggregate::All).is_err());
    }

    #[test]
    fn datasets_keep_or_aggregate_repetitions() {
        let e = experiment();
        let spec = ColumnSpec { vars: vec!["p".into()], y: "T".into(), ..Default::default() };
        let all = e.dataset(0, &spec, Aggregate::All).unwrap();
        assert_eq!(all.rows.len(), 5);
        assert_eq!(all.y_column, "main/time");
        let mean = e.dataset(0, &spec, Aggregate::Mean).unwrap();
        let ys: Vec<Rat> = mean.rows.iter().map(|r| r.y.clone()).collect();
        assert_eq!(ys, vec![frac(8, 3), int(7)]);
        let spec = ColumnSpec { vars: vec!["n".into()], y: "T".into(), ..Default::default() };
        let err = e.dataset(0, &spec, Aggregate::All).unwrap_err();
        assert!(err.to_string().contains("missing parameter `n` in e (available: `p`)"), "{err}");
    }
}
