//! Checking new measurements against the band errband recommends for the
//! next measurement (`errband check`): for each new measurement, whether it
//! falls inside the recommended band at its scale ([`crate::trust`], the
//! band of the main command's answer), above it (slower: a regression) or
//! below it (faster), and by how much relative to the band's edge.
//!
//! The bands come from a model and its data (analysed as the main command
//! analyses them, [`expected_at`]), or from a saved `--format json` result
//! ([`expected_from_json`]). New measurements come from any data file
//! errband reads, or from hyperfine's `--export-json` ([`read_hyperfine`]).
//! Every comparison is exact; the renderings are in
//! [`crate::report::check`].

use crate::analysis::{Band, Options};
use crate::data::detect::Kind;
use crate::data::dialect::Delimiter;
use crate::data::{Aggregate, ColumnSpec, Dataset, Parts, Selection, Source};
use crate::error::{Classified, ErrorKind};
use crate::limits::Limits;
use crate::model::Model;
use crate::num::{parse_rat, Rat};
use crate::session::{self, FamilyChoice, SeriesError};
use num_traits::Zero;
use serde::Serialize;

/// When the check fails (`--fail-on`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum FailOn {
    /// A measurement above its band (slower than recommended: a regression).
    #[default]
    Above,
    /// A measurement above or below its band.
    Outside,
    /// Never: report only.
    Never,
}

impl FailOn {
    /// The flag value.
    pub fn name(self) -> &'static str {
        match self {
            FailOn::Above => "above",
            FailOn::Outside => "outside",
            FailOn::Never => "never",
        }
    }
}

/// Where a new measurement lies against its band.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Inside the band (edges included).
    Inside,
    /// Above its upper edge.
    Above,
    /// Below its lower edge.
    Below,
    /// No band is recommended at that scale (the reason is kept).
    NoBand,
}

impl Verdict {
    /// The word reports use.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Inside => "inside",
            Verdict::Above => "above",
            Verdict::Below => "below",
            Verdict::NoBand => "no band",
        }
    }
}

/// The recommended band at one scale.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectedPoint {
    /// The point (values of the variables, in order).
    pub x: Vec<Rat>,
    /// The form's prediction there.
    pub value: Option<Rat>,
    /// The band of a new measurement (`None`: refused, see `refusal`).
    pub band: Option<Band>,
    /// Why there is no band.
    pub refusal: Option<String>,
}

/// What one series was expected to do: its recommended bands at the
/// scales of the new measurements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// The callpath (empty for a plain data file).
    pub callpath: String,
    /// The metric (the measured column of a CSV file).
    pub metric: String,
    /// The function's name (`T`).
    pub func: String,
    /// The variables.
    pub vars: Vec<String>,
    /// The unit of the function, when known.
    pub unit: Option<String>,
    /// The form whose band it is.
    pub form: String,
    /// The bands, per point.
    pub points: Vec<ExpectedPoint>,
}

impl Expected {
    /// `callpath / metric`, or either alone, as the experiment report names
    /// a series; empty for a single series.
    pub fn name(&self) -> String {
        series_name(&self.callpath, &self.metric)
    }

    /// A point as `p = 110, n = 4`.
    pub fn show_point(&self, x: &[Rat]) -> String {
        self.vars
            .iter()
            .zip(x)
            .map(|(v, val)| format!("{v} = {}", crate::model::show_value(val)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn series_name(callpath: &str, metric: &str) -> String {
    match (callpath.is_empty(), metric.is_empty()) {
        (true, _) => metric.to_string(),
        (false, true) => callpath.to_string(),
        (false, false) => format!("{callpath} / {metric}"),
    }
}

/// One new measurement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewMeasurement {
    /// Its point.
    pub x: Vec<Rat>,
    /// The measured value, in the unit of the function.
    pub y: Rat,
    /// The 1-based line of its file (for annotations).
    pub line: usize,
    /// Where it came from within the line, when that says more (`run 2 of
    /// 3 of hyperfine's result`).
    pub note: Option<String>,
    /// The mean of the runs it belongs to, when the file gives one
    /// (hyperfine).
    pub mean: Option<Rat>,
}

/// The new measurements of one series.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSeries {
    /// The callpath (empty for a plain data file).
    pub callpath: String,
    /// The metric.
    pub metric: String,
    /// The file they were read from.
    pub file: String,
    /// The measurements, in file order.
    pub rows: Vec<NewMeasurement>,
}

impl NewSeries {
    /// The distinct points, in order of first appearance.
    pub fn points(&self) -> Vec<Vec<Rat>> {
        let mut out: Vec<Vec<Rat>> = Vec::new();
        for m in &self.rows {
            if !out.contains(&m.x) {
                out.push(m.x.clone());
            }
        }
        out
    }
}

/// One new measurement judged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judged {
    /// Index into [`CheckReport::expected`].
    pub series: usize,
    /// The file the measurement was read from.
    pub file: String,
    /// The measurement.
    pub measurement: NewMeasurement,
    /// Inside, above, below, or no band.
    pub verdict: Verdict,
    /// The form's prediction at its point.
    pub value: Option<Rat>,
    /// The band it was judged against.
    pub band: Option<Band>,
    /// Above: `(y − upper)/upper`; below: `(y − lower)/lower` (negative);
    /// `None` inside, without a band, or when the edge is zero.
    pub deviation: Option<Rat>,
    /// Why there is no band.
    pub refusal: Option<String>,
}

/// The whole check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckReport {
    /// The series' bands.
    pub expected: Vec<Expected>,
    /// Every new measurement, series by series, in file order.
    pub results: Vec<Judged>,
    /// When it fails.
    pub fail_on: FailOn,
}

/// How many measurements were judged each way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, schemars::JsonSchema)]
pub struct Counts {
    /// Measurements judged.
    pub measurements: usize,
    /// Inside their band.
    pub inside: usize,
    /// Above it.
    pub above: usize,
    /// Below it.
    pub below: usize,
    /// Without a band.
    pub no_band: usize,
}

impl CheckReport {
    /// The counts.
    pub fn counts(&self) -> Counts {
        let mut c = Counts { measurements: self.results.len(), ..Counts::default() };
        for r in &self.results {
            match r.verdict {
                Verdict::Inside => c.inside += 1,
                Verdict::Above => c.above += 1,
                Verdict::Below => c.below += 1,
                Verdict::NoBand => c.no_band += 1,
            }
        }
        c
    }

    /// True when this measurement fails the check.
    pub fn fails(&self, r: &Judged) -> bool {
        match self.fail_on {
            FailOn::Above => r.verdict == Verdict::Above,
            FailOn::Outside => matches!(r.verdict, Verdict::Above | Verdict::Below),
            FailOn::Never => false,
        }
    }

    /// True when any measurement fails the check (exit code 1).
    pub fn failed(&self) -> bool {
        self.results.iter().any(|r| self.fails(r))
    }

    /// The measurements that passed (inside their band), by file, for
    /// `--accept`.
    pub fn passed(&self) -> impl Iterator<Item = &Judged> {
        self.results.iter().filter(|r| r.verdict == Verdict::Inside)
    }
}

/// Why a check cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CheckError {
    /// A file could not be read as what it should be (file, line when
    /// known, why).
    #[error("{file}{line}: {why}", file = .0, line = .1.map(|l| format!(":{l}")).unwrap_or_default(), why = .2)]
    Input(String, Option<usize>, String),
    /// A file of new measurements the data readers refused: their message,
    /// located and rendered.
    #[error("{0}")]
    Data(String),
    /// New measurements of a series the baseline does not have (its name,
    /// the baseline's series).
    #[error(
        "--new holds measurements of `{name}`, which the baseline does not have (it has {have})",
        name = .0,
        have = .1.iter().map(|h| format!("`{h}`")).collect::<Vec<_>>().join(", ")
    )]
    UnknownSeries(String, Vec<String>),
    /// A new measurement at a scale a saved result has no band for (the
    /// file and line, the point, the scales it has).
    #[error(
        "{file}:{line}: the saved result has no recommended band at {at} (it has one at {have}); analyse again with --at, or check against the model and its data",
        file = .0, line = .1, at = .2, have = .3.join("; ")
    )]
    NoPoint(String, usize, String, Vec<String>),
    /// The series could not be analysed (its name, empty for a single
    /// series; why; and whether the failure is of the input).
    #[error("{name}{why}", name = if .0.is_empty() { String::new() } else { format!("{}: ", .0) }, why = .1)]
    Series(String, String, ErrorKind),
    /// No new measurements.
    #[error("{0}: no new measurements")]
    Empty(String),
}

impl Classified for CheckError {
    fn kind(&self) -> ErrorKind {
        match self {
            CheckError::Series(_, _, k) => *k,
            _ => ErrorKind::Input,
        }
    }
}

/// The recommended bands of `model` fitted to `rows` (as the main command
/// fits them, [`session::analyse_series`]) at `points`, and nowhere else:
/// the model's own `predict` points are left out.
pub fn expected_at(
    model: &Model,
    rows: &[crate::data::Measurement],
    file: &str,
    opts: &Options,
    choice: FamilyChoice,
    points: &[Vec<Rat>],
    (callpath, metric): (&str, &str),
) -> Result<Expected, SeriesError> {
    let mut m = model.clone();
    m.predict.clear();
    let opts = Options { at: points.to_vec(), no_cells: true, ..opts.clone() };
    let s = session::analyse_series(&m, rows, &session::Request::new(file, &opts).family(choice))?;
    let used = s.best.as_ref().unwrap_or(&m);
    let unit = used.units.get(&used.func).cloned();
    let (form, pts) = match &s.recommendation {
        Some(r) => (
            r.form.clone(),
            r.points
                .iter()
                .map(|p| ExpectedPoint {
                    x: p.x.clone(),
                    value: p.value.clone(),
                    band: p.band.clone(),
                    refusal: p.refusal.map(|w| w.text().to_string()),
                })
                .collect(),
        ),
        None => {
            let why = s.recommendation_error.clone().unwrap_or_else(|| "no recommended band".into());
            let pts = points
                .iter()
                .map(|x| ExpectedPoint { x: x.clone(), value: None, band: None, refusal: Some(why.clone()) })
                .collect();
            (used.body_text.clone(), pts)
        }
    };
    Ok(Expected {
        callpath: callpath.to_string(),
        metric: metric.to_string(),
        func: used.func.clone(),
        vars: used.vars.clone(),
        unit,
        form,
        points: pts,
    })
}

/// Judges one measurement against its band, exactly.
pub fn judge(point: &ExpectedPoint, y: &Rat) -> (Verdict, Option<Rat>) {
    let Some(b) = &point.band else { return (Verdict::NoBand, None) };
    let rel = |edge: &Rat| (!edge.is_zero()).then(|| (y - edge) / edge);
    if let Some(u) = b.upper.as_ref().filter(|u| y > *u) {
        return (Verdict::Above, rel(u));
    }
    if let Some(l) = b.lower.as_ref().filter(|l| y < *l) {
        return (Verdict::Below, rel(l));
    }
    (Verdict::Inside, None)
}

/// Judges every new measurement against the band of its series at its
/// scale. A single baseline series takes every new series whatever their
/// names; otherwise series are matched by callpath and metric.
pub fn check(expected: Vec<Expected>, new: &[NewSeries], fail_on: FailOn) -> Result<CheckReport, CheckError> {
    let mut results = Vec::new();
    for s in new {
        let i = if expected.len() == 1 {
            0
        } else {
            expected.iter().position(|e| e.callpath == s.callpath && e.metric == s.metric).ok_or_else(
                || {
                    CheckError::UnknownSeries(
                        series_name(&s.callpath, &s.metric),
                        expected.iter().map(Expected::name).collect(),
                    )
                },
            )?
        };
        let e = &expected[i];
        for m in &s.rows {
            let Some(p) = e.points.iter().find(|p| p.x == m.x) else {
                return Err(CheckError::NoPoint(
                    s.file.clone(),
                    m.line,
                    e.show_point(&m.x),
                    e.points.iter().map(|p| e.show_point(&p.x)).collect(),
                ));
            };
            let (verdict, deviation) = judge(p, &m.y);
            results.push(Judged {
                series: i,
                file: s.file.clone(),
                measurement: m.clone(),
                verdict,
                value: p.value.clone(),
                band: p.band.clone(),
                deviation,
                refusal: p.refusal.clone(),
            });
        }
    }
    if results.is_empty() {
        return Err(CheckError::Empty(new.first().map_or_else(String::new, |s| s.file.clone())));
    }
    Ok(CheckReport { expected, results, fail_on })
}

/// How files of new measurements name the baseline's variables and its
/// measured value: the variables, the column (or parameter) each is read
/// from, the function and its unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The variables, in the model's order.
    pub vars: Vec<String>,
    /// The column of each variable.
    pub columns: Vec<String>,
    /// The function (`T`).
    pub func: String,
    /// The function's unit, when known: new values must be in it.
    pub unit: Option<String>,
}

impl Layout {
    /// The layout of a baseline fitted to `dataset`: its columns, and the
    /// model's unit of the function (else the data header's).
    pub fn of_data(model: &Model, dataset: &Dataset) -> Layout {
        let unit = model.units.get(&model.func).cloned().or_else(|| dataset.units.get(&model.func).cloned());
        Layout {
            vars: dataset.vars.clone(),
            columns: dataset.columns.clone(),
            func: model.func.clone(),
            unit,
        }
    }

    /// The layout of a saved result (its first series): each variable read
    /// from the column `x` gives it (variable, column), else from the
    /// column of its own name.
    pub fn of_saved(expected: &[Expected], x: &[(String, String)]) -> Layout {
        let Some(e) = expected.first() else {
            return Layout { vars: Vec::new(), columns: Vec::new(), func: "T".into(), unit: None };
        };
        let columns = e
            .vars
            .iter()
            .map(|v| x.iter().find(|(n, _)| n == v).map_or_else(|| v.clone(), |(_, c)| c.clone()))
            .collect();
        Layout { vars: e.vars.clone(), columns, func: e.func.clone(), unit: e.unit.clone() }
    }

    /// The column spec new files are read with: these columns, the
    /// measured value in `y_column` (`None`: the function's name), the
    /// series `sel` chooses, CSV rows split by `by`.
    pub fn spec(
        &self,
        y_column: Option<String>,
        sel: &Selection,
        by: &[String],
        delimiter: Option<Delimiter>,
        limits: Limits,
    ) -> ColumnSpec {
        ColumnSpec {
            vars: self.vars.clone(),
            y: self.func.clone(),
            rename: self
                .vars
                .iter()
                .cloned()
                .zip(self.columns.iter().cloned())
                .filter(|(v, c)| v != c)
                .collect(),
            y_column,
            region: sel.callpath.clone(),
            metric: sel.metric.clone(),
            limits,
            by: by.to_vec(),
            delimiter,
        }
    }
}

/// Reads one file of new measurements, already read and decoded
/// ([`crate::data::decode_input`]: its `kind`, `text` and `bytes`), named
/// `file`: hyperfine's `--export-json`, or any data input errband reads,
/// with the columns of `spec` (each measurement kept, repetitions not
/// aggregated). Values must be in `unit`, the baseline's unit of the
/// function, when both are known.
pub fn read_new(
    kind: Kind,
    text: &str,
    bytes: &[u8],
    file: &str,
    spec: &ColumnSpec,
    unit: Option<&str>,
) -> Result<Vec<NewSeries>, CheckError> {
    if is_hyperfine(text) {
        let columns: Vec<String> =
            spec.vars.iter().map(|v| spec.rename.get(v).cloned().unwrap_or_else(|| v.clone())).collect();
        return Ok(vec![read_hyperfine(text, file, &spec.vars, &columns, unit)?]);
    }
    let sel = Selection { callpath: spec.region.clone(), metric: spec.metric.clone() };
    let source = Source::read(None, kind, text, bytes, file, spec.limits, &sel).map_err(CheckError::Data)?;
    let parts =
        source.into_parts(file, spec, &sel, Aggregate::All).map_err(|e| CheckError::Data(e.render(text)))?;
    let mut out = Vec::new();
    for p in parts.into_vec() {
        if let (Some(want), Some(got)) = (unit, p.dataset.units.get(&spec.y)) {
            if want != got {
                return Err(CheckError::Input(
                    file.to_string(),
                    None,
                    format!("the measured values are in {got}, and the baseline's in {want}; write them in {want}"),
                ));
            }
        }
        out.push(NewSeries {
            callpath: p.callpath,
            metric: p.metric,
            file: file.to_string(),
            rows: p
                .dataset
                .rows
                .into_iter()
                .map(|m| NewMeasurement { x: m.x, y: m.y, line: m.line, note: None, mean: None })
                .collect(),
        });
    }
    Ok(out)
}

/// A baseline to analyse: a model (or one per series) and the series it
/// is fitted to, analysed as the main command analyses them.
#[derive(Debug, Clone, Copy)]
pub struct Baseline<'a> {
    /// The model of every series, unless `per_series` gives one.
    pub model: &'a Model,
    /// One model per series of `parts` (Extra-P's models), each or why it
    /// could not be built; empty when `model` serves every series.
    pub per_series: &'a [Result<Model, SeriesError>],
    /// The series.
    pub parts: &'a Parts,
    /// The data's file name.
    pub file: &'a str,
    /// The thresholds, noise and limits of the analysis.
    pub opts: &'a Options,
    /// The model's family, or the family the model is found in.
    pub choice: FamilyChoice,
}

/// The recommended bands of each baseline series that has new
/// measurements, at their scales ([`expected_at`], series in parallel). A
/// single baseline series takes every new measurement, whatever the new
/// files call their series, and its failure is the error; a series of an
/// experiment that cannot be analysed has no band at its points (the
/// reason kept).
pub fn expected_for(b: &Baseline<'_>, new: &[NewSeries]) -> Result<Vec<Expected>, CheckError> {
    use rayon::prelude::*;
    let parts = b.parts;
    let single = parts.len() == 1;
    let wanted: Vec<(usize, Vec<Vec<Rat>>)> = (0..parts.len())
        .filter_map(|i| {
            let (callpath, metric) = parts.names(i)?;
            let mut pts: Vec<Vec<Rat>> = Vec::new();
            for s in new.iter().filter(|s| single || (s.callpath == callpath && s.metric == metric)) {
                for x in s.points() {
                    if !pts.contains(&x) {
                        pts.push(x);
                    }
                }
            }
            (!pts.is_empty()).then_some((i, pts))
        })
        .collect();
    let results: Vec<Result<Expected, CheckError>> = wanted
        .par_iter()
        .map(|(i, pts)| {
            let Some(p) = parts.get(*i) else {
                return Err(CheckError::Series(
                    parts.name(*i).unwrap_or_default(),
                    "cannot be read".into(),
                    ErrorKind::Input,
                ));
            };
            let model = match b.per_series.get(*i) {
                None => b.model,
                Some(Ok(m)) => m,
                Some(Err(why)) => return Err(CheckError::Series(p.name(), why.to_string(), why.kind())),
            };
            let names = if single { ("", "") } else { (p.callpath.as_str(), p.metric.as_str()) };
            expected_at(model, &p.dataset.rows, b.file, b.opts, b.choice, pts, names).map_err(|e| {
                CheckError::Series(if single { String::new() } else { p.name() }, e.to_string(), e.kind())
            })
        })
        .collect();
    let mut out = Vec::new();
    for (r, (i, pts)) in results.into_iter().zip(&wanted) {
        match r {
            Ok(e) => out.push(e),
            Err(e) if single => return Err(e),
            Err(e) => {
                let (callpath, metric) = parts.names(*i).unwrap_or_default();
                let why = e.to_string();
                out.push(Expected {
                    callpath: callpath.to_string(),
                    metric: metric.to_string(),
                    func: b.model.func.clone(),
                    vars: b.model.vars.clone(),
                    unit: None,
                    form: String::new(),
                    points: pts
                        .iter()
                        .map(|x| ExpectedPoint {
                            x: x.clone(),
                            value: None,
                            band: None,
                            refusal: Some(why.clone()),
                        })
                        .collect(),
                });
            }
        }
    }
    Ok(out)
}

/// True when `text` is a saved errband JSON result (an object with an
/// `errband` key), which a check can take as its baseline.
pub fn is_saved_result(text: &str) -> bool {
    text.trim_start().starts_with('{')
        && serde_json::from_str::<serde_json::Value>(text).ok().is_some_and(|v| v.get("errband").is_some())
}

/// An exact number from a JSON value: a `{"exact": "p/q"}` pair as every
/// errband JSON document writes it, a string, or a number (read from its
/// text, never through a float).
fn json_rat(v: &serde_json::Value) -> Option<Rat> {
    match v {
        serde_json::Value::Object(o) => o.get("exact").and_then(json_rat),
        serde_json::Value::String(s) => parse_rat(s).ok(),
        serde_json::Value::Number(n) => parse_rat(&n.to_string()).ok(),
        _ => None,
    }
}

/// The recommended bands a saved `--format json` result of the main
/// command holds (one series, or each series of an experiment). New
/// measurements can be checked only at its prediction points.
pub fn expected_from_json(text: &str, file: &str) -> Result<Vec<Expected>, CheckError> {
    let bad = |why: String| CheckError::Input(file.to_string(), None, why);
    let doc: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| CheckError::Input(file.to_string(), Some(e.line()), format!("not JSON: {e}")))?;
    if doc.get("errband").is_none() {
        return Err(bad("not a saved errband result (no `errband` key); save one with --format json".into()));
    }
    let one = |report: &serde_json::Value, model: &serde_json::Value, callpath: &str, metric: &str| {
        let vars: Vec<String> = model["variables"]
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_str().map(String::from)).collect())
            .unwrap_or_default();
        let func = model["function"].as_str().unwrap_or("T").to_string();
        let unit = model["units"].get(&func).and_then(|u| u.as_str()).map(String::from);
        let r = &report["recommendation"];
        let name = series_name(callpath, metric);
        if r.is_null() {
            return Err(bad(format!(
                "{}the saved result has no recommended band{}",
                if name.is_empty() { String::new() } else { format!("{name}: ") },
                report["recommendation_error"].as_str().map(|w| format!(" ({w})")).unwrap_or_default()
            )));
        }
        let mut points = Vec::new();
        for p in r["points"].as_array().into_iter().flatten() {
            let x: Option<Vec<Rat>> = vars.iter().map(|v| json_rat(&p["point"][v])).collect();
            let x =
                x.ok_or_else(|| bad(format!("a recommended point lacks a value of {}", vars.join(", "))))?;
            // A band has a `status` (schema 2); a result saved by an older
            // errband has the band or null, and `refused`.
            let b = &p["band"];
            let is_band = match b["status"].as_str() {
                Some(status) => status == "ok",
                None => !b.is_null(),
            };
            let band = is_band.then(|| Band {
                lower: json_rat(&b["lower"]),
                upper: json_rat(&b["upper"]),
                clipped: b["clipped"] == true,
            });
            let refusal = match b["reason"].as_str() {
                Some(why) if !is_band => Some(why.to_string()),
                _ => p["refused"].as_str().map(|w| w.replace('_', " ")),
            };
            points.push(ExpectedPoint { x, value: json_rat(&p["value"]), band, refusal });
        }
        Ok(Expected {
            callpath: callpath.to_string(),
            metric: metric.to_string(),
            func,
            vars,
            unit,
            form: r["form"].as_str().unwrap_or_default().to_string(),
            points,
        })
    };
    match doc.get("analyses").and_then(|a| a.as_array()) {
        Some(list) => {
            let model = &doc["experiment"]["model"];
            let mut out = Vec::new();
            for a in list {
                let callpath = a["callpath"].as_str().unwrap_or_default();
                let metric = a["metric"].as_str().unwrap_or_default();
                // A series whose analysis failed has no report: nothing to check it against.
                if a["report"].is_object() {
                    let m = if a["report"]["model"].is_object() { &a["report"]["model"] } else { model };
                    out.push(one(&a["report"], m, callpath, metric)?);
                }
            }
            if out.is_empty() {
                return Err(bad("no series of the saved experiment has a report to check against".into()));
            }
            Ok(out)
        }
        None => Ok(vec![one(&doc, &doc["model"], "", "")?]),
    }
}

/// True when `text` looks like hyperfine's `--export-json` (an object with
/// a `results` array of commands), which errband's own export shares.
pub fn is_hyperfine(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with('{')
        && serde_json::from_str::<serde_json::Value>(t).ok().is_some_and(|v| {
            v["results"].as_array().is_some_and(|r| r.iter().all(|x| x.get("command").is_some()))
        })
}

/// The 1-based line of byte `pos` of `text`.
fn line_at(text: &str, pos: usize) -> usize {
    text[..pos.min(text.len())].bytes().filter(|&b| b == b'\n').count() + 1
}

/// Reads hyperfine's `--export-json` (or `errband measure --export-json`):
/// each result's per-run `times` are new measurements (its `mean` alone
/// when it has no times), at the point its `parameters` give
/// (`columns[i]` is the parameter of variable `vars[i]`). hyperfine's times
/// are seconds; `unit` is the function's unit, to which they are converted
/// exactly (none: seconds).
pub fn read_hyperfine(
    text: &str,
    file: &str,
    vars: &[String],
    columns: &[String],
    unit: Option<&str>,
) -> Result<NewSeries, CheckError> {
    let err = |line: Option<usize>, why: String| CheckError::Input(file.to_string(), line, why);
    let doc: serde_json::Value =
        serde_json::from_str(text).map_err(|e| err(Some(e.line()), format!("not JSON: {e}")))?;
    let per_second = match unit {
        None => Rat::from_integer(1.into()),
        Some(u) => {
            let f = crate::units::factor(crate::units::Dim::Time, u).ok_or_else(|| {
                err(
                    None,
                    format!("hyperfine measures seconds, and the measured value's unit is `{u}`, not a time"),
                )
            })?;
            Rat::from_integer(1.into()) / f
        }
    };
    // Where each result starts, for annotations: its `"command"` keys
    // after `"results"`, in order.
    let start = text.find("\"results\"").unwrap_or(0);
    let commands: Vec<usize> = text[start..].match_indices("\"command\"").map(|(i, _)| start + i).collect();
    let mut rows = Vec::new();
    for (k, r) in doc["results"].as_array().into_iter().flatten().enumerate() {
        let at = commands.get(k).copied().unwrap_or(start);
        let line = line_at(text, at);
        let what = format!("result {} (`{}`)", k + 1, r["command"].as_str().unwrap_or(""));
        let mut x = Vec::with_capacity(vars.len());
        for (v, c) in vars.iter().zip(columns) {
            // The data's column for the variable, else the variable's name.
            let val = r["parameters"].get(c).or_else(|| r["parameters"].get(v)).ok_or_else(|| {
                err(
                    Some(line),
                    format!(
                        "{what} has no parameter `{c}` (the variable {v}); name it so in hyperfine: --parameter-scan {c} … or --parameter-list {c} …"
                    ),
                )
            })?;
            x.push(
                json_rat(val)
                    .ok_or_else(|| err(Some(line), format!("{what}: parameter `{c}` is not a number")))?,
            );
        }
        let mean = json_rat(&r["mean"]).map(|m| &m * &per_second);
        let times: Vec<Rat> = match r["times"].as_array() {
            Some(ts) => ts
                .iter()
                .map(|t| json_rat(t).map(|v| v * &per_second))
                .collect::<Option<_>>()
                .ok_or_else(|| err(Some(line), format!("{what}: a time is not a number")))?,
            None => Vec::new(),
        };
        if times.is_empty() {
            let m = mean
                .clone()
                .ok_or_else(|| err(Some(line), format!("{what} has neither times nor a mean")))?;
            rows.push(NewMeasurement { x, y: m, line, note: Some("mean of the runs".into()), mean: None });
            continue;
        }
        // A pretty-printed array has one time per line after `"times": [`.
        let times_at = text[at..].find("\"times\"").map(|i| at + i);
        let multiline = times_at.is_some_and(|i| {
            text[i..]
                .find('[')
                .is_some_and(|b| text[i + b + 1..].trim_start_matches([' ', '\t', '\r']).starts_with('\n'))
        });
        let n = times.len();
        for (i, y) in times.into_iter().enumerate() {
            let l = match times_at {
                Some(t) if multiline => line_at(text, t) + 1 + i,
                Some(t) => line_at(text, t),
                None => line,
            };
            rows.push(NewMeasurement {
                x: x.clone(),
                y,
                line: l,
                note: Some(format!("run {} of {n}", i + 1)),
                mean: mean.clone(),
            });
        }
    }
    Ok(NewSeries { callpath: String::new(), metric: String::new(), file: file.to_string(), rows })
}

/// A ReFrame performance reference: the value and the band's edges as
/// fractions of it (`lower = (lo − v)/v`, `upper = (hi − v)/v`), exact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// The point.
    pub x: Vec<Rat>,
    /// The form's prediction.
    pub value: Rat,
    /// The lower edge as a fraction of the value (`None`: unbounded).
    pub lower: Option<Rat>,
    /// The upper edge as a fraction of the value.
    pub upper: Option<Rat>,
}

/// The ReFrame reference of a recommended band at a point; `None` without
/// a band or a positive value (ReFrame's fractions are of the value).
pub fn reference(p: &crate::trust::Recommended) -> Option<Reference> {
    let v = p.value.clone().filter(|v| *v > Rat::zero())?;
    let b = p.band.as_ref()?;
    let frac = |e: &Rat| (e - &v) / &v;
    Some(Reference {
        x: p.x.clone(),
        lower: b.lower.as_ref().map(frac),
        upper: b.upper.as_ref().map(frac),
        value: v,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Part;
    use crate::num::int;

    fn point(lo: i64, hi: i64) -> ExpectedPoint {
        ExpectedPoint {
            x: vec![int(1)],
            value: Some(int((lo + hi) / 2)),
            band: Some(Band { lower: Some(int(lo)), upper: Some(int(hi)), clipped: false }),
            refusal: None,
        }
    }

    #[test]
    fn judging_is_exact_and_edges_are_inside() {
        let p = point(100, 200);
        assert_eq!(judge(&p, &int(200)), (Verdict::Inside, None));
        assert_eq!(judge(&p, &int(100)), (Verdict::Inside, None));
        assert_eq!(judge(&p, &int(260)), (Verdict::Above, Some(Rat::new(3.into(), 10.into()))));
        assert_eq!(judge(&p, &int(90)), (Verdict::Below, Some(Rat::new((-1).into(), 10.into()))));
        let none = ExpectedPoint { band: None, ..p };
        assert_eq!(judge(&none, &int(1)).0, Verdict::NoBand);
    }

    /// The HPL baseline of `tests/cli_check.rs`: the model fitted to p = 10..100.
    fn hpl_baseline() -> (Model, Part, Options) {
        let model = Model::from_source(include_str!("../models/hpl.tm"), "hpl.tm").unwrap();
        let train = include_str!("../tests/data/check/hpl_train.csv");
        let dataset = model.read_data(train, "hpl_train.csv").unwrap();
        let noise = crate::threshold::parse_noise("5%").unwrap();
        let opts = Options {
            thresholds: crate::threshold::Threshold::parse_list(&[], &noise).unwrap(),
            noise: Some(noise),
            ..Options::default()
        };
        (model, Part { callpath: String::new(), metric: "T".into(), dataset }, opts)
    }

    fn read_csv(
        text: &str,
        file: &str,
        spec: &ColumnSpec,
        unit: Option<&str>,
    ) -> Result<Vec<NewSeries>, CheckError> {
        let (kind, text, bytes) = crate::data::decode_input(text.as_bytes().to_vec(), file).unwrap();
        read_new(kind, &text, &bytes, file, spec, unit)
    }

    #[test]
    fn layout_of_a_saved_result_reads_the_columns_x_names() {
        let e = Expected {
            callpath: String::new(),
            metric: String::new(),
            func: "T".into(),
            vars: vec!["p".into(), "n".into()],
            unit: Some("s".into()),
            form: "c0".into(),
            points: Vec::new(),
        };
        let l = Layout::of_saved(&[e], &[("p".into(), "procs".into())]);
        assert_eq!(l.columns, ["procs", "n"]);
        assert_eq!((l.func.as_str(), l.unit.as_deref()), ("T", Some("s")));
        let spec = l.spec(None, &Selection::default(), &[], None, Limits::default());
        assert_eq!(spec.rename.len(), 1, "only renamed variables: {:?}", spec.rename);
        assert_eq!(spec.rename["p"], "procs");
        let s = read_csv("procs,n,T\n4,2,1.5\n4,2,1.25\n", "new.csv", &spec, None).unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].rows.len(), 2, "repetitions are kept, not aggregated");
        assert_eq!((s[0].rows[1].x.clone(), s[0].rows[1].line), (vec![int(4), int(2)], 3));
        assert_eq!(s[0].points().len(), 1);
    }

    #[test]
    fn new_measurements_in_another_unit_or_unreadable_are_typed_errors() {
        let (model, part, _) = hpl_baseline();
        let l = Layout::of_data(&model, &part.dataset);
        assert_eq!((l.vars.clone(), l.unit.as_deref()), (vec!["p".to_string()], Some("s")));
        let spec = l.spec(Some("T".into()), &Selection::default(), &[], None, Limits::default());
        let e = read_csv("p,T (ms)\n110,545380\n", "ms.csv", &spec, l.unit.as_deref()).unwrap_err();
        assert!(matches!(e, CheckError::Input(..)), "{e:?}");
        assert_eq!(
            e.to_string(),
            "ms.csv: the measured values are in ms, and the baseline's in s; write them in s"
        );
        let e = read_csv("p,T\n110,fast\n", "bad.csv", &spec, None).unwrap_err();
        assert!(matches!(e, CheckError::Data(_)), "{e:?}");
        assert!(e.to_string().contains("bad.csv:2"), "{e}");
        assert_eq!(e.kind(), ErrorKind::Input);
    }

    #[test]
    fn hpl_held_out_measurements_pass_and_thirty_percent_above_fails() {
        let (model, part, opts) = hpl_baseline();
        let l = Layout::of_data(&model, &part.dataset);
        let spec = l.spec(Some("T".into()), &Selection::default(), &[], None, Limits::default());
        let new = read_csv(include_str!("../tests/data/check/hpl_new.csv"), "new.csv", &spec, None).unwrap();
        let parts = Parts::held(crate::data::Format::Csv, vec![part], 1);
        let b = Baseline {
            model: &model,
            per_series: &[],
            parts: &parts,
            file: "hpl_train.csv",
            opts: &opts,
            choice: FamilyChoice::own(None),
        };
        let expected = expected_for(&b, &new).unwrap();
        assert_eq!(expected.len(), 1);
        let xs: Vec<Vec<Rat>> = expected[0].points.iter().map(|p| p.x.clone()).collect();
        assert_eq!(xs, [vec![int(110)], vec![int(120)]], "the new scales, not the model's predict points");
        let r = check(expected.clone(), &new, FailOn::Above).unwrap();
        assert_eq!((r.counts().inside, r.failed()), (2, false));
        // 30 % above the upper edge at p = 120.
        let upper = expected[0].points[1].band.as_ref().and_then(|b| b.upper.clone()).unwrap();
        let slow = &upper * Rat::new(13.into(), 10.into());
        let mut bad = new.clone();
        bad[0].rows[1].y = slow;
        let r = check(expected, &bad, FailOn::Above).unwrap();
        assert!(r.failed());
        assert_eq!(r.results[1].verdict, Verdict::Above);
        assert_eq!(r.results[1].deviation, Some(Rat::new(3.into(), 10.into())));
    }

    #[test]
    fn a_single_series_that_cannot_be_analysed_is_the_error() {
        let (model, mut part, opts) = hpl_baseline();
        part.dataset.rows.truncate(1);
        let new = vec![NewSeries {
            callpath: String::new(),
            metric: String::new(),
            file: "new.csv".into(),
            rows: vec![NewMeasurement { x: vec![int(110)], y: int(545), line: 2, note: None, mean: None }],
        }];
        let parts = Parts::held(crate::data::Format::Csv, vec![part], 1);
        let b = Baseline {
            model: &model,
            per_series: &[],
            parts: &parts,
            file: "hpl_train.csv",
            opts: &opts,
            choice: FamilyChoice::own(None),
        };
        let e = expected_for(&b, &new).unwrap_err();
        assert!(matches!(&e, CheckError::Series(name, _, _) if name.is_empty()), "{e:?}");
    }

    #[test]
    fn saved_results_are_recognised_by_their_version_key() {
        assert!(is_saved_result("  {\"errband\": \"0.1.0\", \"model\": {}}"));
        assert!(!is_saved_result("{\"results\": []}"));
        assert!(!is_saved_result("p,T\n1,2\n"));
    }

    #[test]
    fn hyperfine_times_means_and_lines() {
        let text = "{\n  \"results\": [\n    {\n      \"command\": \"app 4\",\n      \"mean\": 0.5,\n      \"times\": [\n        0.25,\n        0.75\n      ],\n      \"parameters\": {\"procs\": \"4\"}\n    }\n  ]\n}\n";
        assert!(is_hyperfine(text));
        let s = read_hyperfine(text, "h.json", &["p".into()], &["procs".into()], Some("ms")).unwrap();
        assert_eq!(s.rows.len(), 2);
        assert_eq!(s.rows[0].y, int(250));
        assert_eq!(s.rows[1].y, int(750));
        assert_eq!(s.rows[0].mean, Some(int(500)));
        assert_eq!((s.rows[0].line, s.rows[1].line), (7, 8));
        let e = read_hyperfine(text, "h.json", &["p".into()], &["p".into()], None).unwrap_err();
        assert!(e.to_string().starts_with("h.json:4: result 1 (`app 4`) has no parameter `p`"), "{e}");
        assert!(!is_hyperfine("p,T\n1,2\n"));
    }
}
