//! The typed JSON documents the commands write: one shape for an exact
//! value, a band, a resolved threshold, a model and a data file, whichever
//! command writes them.
//!
//! A command's JSON is a struct of these types, serialised with serde; its
//! JSON Schema (`schemas/`, `errband schema COMMAND`) is derived from the
//! same struct with schemars, so the schema and the output cannot drift
//! apart (`tests/schemas.rs` regenerates the schemas and fails on any
//! difference).
//!
//! Conventions, on every document:
//! - `errband` (the version that wrote it), `command` and `schema_version`
//!   open it ([`Header`]).
//! - Every key the schema names is present; a value that does not apply is
//!   `null`, never a missing key.
//! - An exact value is `{"exact": "p/q", "decimal": "…"}` ([`Exact`]), the
//!   decimal correctly rounded from the fraction.
//! - Units are not in key names: a document with quantities carries a
//!   `units` map from quantity to unit.
//! - A band is always a [`Band`]: its `status` says whether it is a band
//!   at all, and `reason` why not.

pub mod analysis;
pub mod barrier;
pub mod check;
pub mod energy;
pub mod experiment;
pub mod ms;
pub mod plan;
pub mod prune;
pub mod qe;

use crate::model::Model;
use crate::num::{show_value, Rat};
use num_traits::ToPrimitive;
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::BTreeMap;

/// The version of the documents' shape: raised whenever a key is renamed,
/// moved or removed (an added key keeps it).
pub const SCHEMA_VERSION: u32 = 2;

/// The command that wrote a document (`errband schema COMMAND` names the
/// same commands: [`crate::schema::Output`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Command {
    /// `errband MODEL DATA --format json`: one series.
    Analysis,
    /// `errband MODEL DATA --format json` on data of several series (an
    /// Extra-P experiment, a CUBE profile, a call tree).
    Experiment,
    /// `errband prune … --format json`.
    Prune,
    /// `errband plan … --format json`.
    Plan,
    /// `errband energy … --format json`.
    Energy,
    /// `errband barrier … --format json`.
    Barrier,
    /// `errband ms predict … --format json`.
    Ms,
    /// `errband qe … --format json`.
    Qe,
    /// `errband check … --format json`.
    Check,
}

/// The keys that open every document.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Header {
    /// The errband version that wrote the document.
    pub errband: String,
    /// The command that wrote it.
    pub command: Command,
    /// The version of the document's shape ([`SCHEMA_VERSION`]).
    pub schema_version: u32,
}

impl Header {
    /// The header of a document written by `command` with this build.
    pub fn new(command: Command) -> Header {
        Header { errband: env!("CARGO_PKG_VERSION").into(), command, schema_version: SCHEMA_VERSION }
    }
}

/// An exact rational and its decimal view.
///
/// It holds the value and the digits of its view, and writes the fraction
/// and the decimal only when it is rendered: a text report shows only
/// decimals, a CSV row writes both in place, and a document of 10^5 series
/// formatted every value twice before. It serialises as
/// `{"exact": "p/q", "decimal": "…"}` (its JSON Schema says the same).
#[derive(Debug, Clone)]
pub struct Exact {
    value: Value,
    digits: usize,
}

/// An [`Exact`]'s value. Not always in lowest terms: a value only a
/// decimal may show (a band's width and relative half-width in a CSV row)
/// is reduced when its fraction is written, not before.
#[derive(Debug, Clone)]
enum Value {
    /// `n/d` with `d > 0` in 128-bit integers (most values of a table of
    /// prediction points): held without an allocation, and written with
    /// word-sized arithmetic.
    Word { n: i128, d: i128, lowest: bool },
    /// Any other value, `d > 0`.
    Big { value: Rat, lowest: bool },
    /// The product `(a.0/a.1)·(b.0/b.1)` of two 128-bit fractions
    /// (`a.1, b.1 > 0`) whose products would not fit: a band's relative
    /// half-width far out, which a table shows only as a decimal. Its
    /// decimal is proposed in floats and certified ([`crate::num`]); the
    /// big integers are formed only where that fails or the fraction is
    /// written.
    Product { a: (i128, i128), b: (i128, i128) },
}

impl PartialEq for Exact {
    fn eq(&self, other: &Exact) -> bool {
        // Ratio's equality compares values, reduced or not.
        self.digits == other.digits && self.value() == other.value()
    }
}

impl Eq for Exact {}

// The shape of an [`Exact`] in a document: its JSON Schema, whose
// description is this struct's first doc line.
/// An exact rational and its decimal view.
#[derive(JsonSchema)]
#[schemars(rename = "Exact")]
#[allow(dead_code)] // only its schema is used
struct ExactShape {
    /// The exact value: an integer or a reduced fraction `p/q`.
    #[schemars(regex(pattern = r"^-?[0-9]+(/[0-9]+)?$"))]
    exact: String,
    /// The value correctly rounded to the document's significant digits.
    decimal: String,
}

impl JsonSchema for Exact {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        ExactShape::schema_name()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        ExactShape::schema_id()
    }

    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        ExactShape::json_schema(g)
    }
}

impl Serialize for Exact {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Exact", 2)?;
        st.serialize_field("exact", &self.exact())?;
        st.serialize_field("decimal", &self.decimal())?;
        st.end()
    }
}

impl Exact {
    /// `x` exactly, and rounded to `digits` significant digits.
    pub fn new(x: &Rat, digits: usize) -> Exact {
        let value = match (x.numer().to_i128(), x.denom().to_i128()) {
            (Some(n), Some(d)) => Value::Word { n, d, lowest: true },
            _ => Value::Big { value: x.clone(), lowest: true },
        };
        Exact { value, digits }
    }

    /// `n/d` (`d > 0`), not yet in lowest terms: reduced only if its
    /// fraction is written.
    pub fn unreduced(n: num_bigint::BigInt, d: num_bigint::BigInt, digits: usize) -> Exact {
        let value = match (n.to_i128(), d.to_i128()) {
            (Some(n), Some(d)) => Value::Word { n, d, lowest: false },
            _ => Value::Big { value: Rat::new_raw(n, d), lowest: false },
        };
        Exact { value, digits }
    }

    /// [`Exact::unreduced`] of a value formed in 128-bit integers (`d > 0`).
    pub(crate) fn unreduced_i128(n: i128, d: i128, digits: usize) -> Exact {
        Exact { value: Value::Word { n, d, lowest: false }, digits }
    }

    /// The product `(a.0/a.1)·(b.0/b.1)` (`a.1, b.1 > 0`), formed only if
    /// its fraction is written or its decimal cannot be certified in
    /// floats.
    pub(crate) fn product_i128(a: (i128, i128), b: (i128, i128), digits: usize) -> Exact {
        Exact { value: Value::Product { a, b }, digits }
    }

    /// [`Exact::new`] of a value that may be absent.
    pub fn opt(x: Option<&Rat>, digits: usize) -> Option<Exact> {
        x.map(|x| Exact::new(x, digits))
    }

    /// The value, in lowest terms.
    pub fn value(&self) -> std::borrow::Cow<'_, Rat> {
        use std::borrow::Cow;
        match &self.value {
            Value::Big { value, lowest: true } => Cow::Borrowed(value),
            Value::Big { value, lowest: false } => {
                Cow::Owned(crate::num::reduced(value.numer().clone(), value.denom().clone()))
            }
            &Value::Word { n, d, lowest } => {
                let (n, d) = word_lowest(n, d, lowest);
                Cow::Owned(Rat::new_raw(n.into(), d.into()))
            }
            &Value::Product { a, b } => {
                let big = num_bigint::BigInt::from;
                Cow::Owned(crate::num::reduced(big(a.0) * big(b.0), big(a.1) * big(b.1)))
            }
        }
    }

    /// The exact value: an integer or a reduced fraction `p/q`.
    pub fn exact(&self) -> String {
        let mut out = String::new();
        self.write_exact(&mut out);
        out
    }

    /// The value correctly rounded to the document's significant digits.
    pub fn decimal(&self) -> String {
        let mut out = String::new();
        self.write_decimal(&mut out);
        out
    }

    /// Appends [`Exact::exact`] to `out`.
    pub fn write_exact(&self, out: &mut String) {
        match self.value {
            Value::Word { n, d, lowest } => {
                let (n, d) = word_lowest(n, d, lowest);
                crate::num::write_fraction_i128(out, n, d)
            }
            Value::Big { .. } | Value::Product { .. } => crate::num::write_fraction(out, &self.value()),
        }
    }

    /// Appends [`Exact::decimal`] to `out`.
    pub fn write_decimal(&self, out: &mut String) {
        match &self.value {
            Value::Word { n, d, .. } => crate::num::write_sig_i128(out, *n, *d, self.digits),
            Value::Big { value, .. } => {
                crate::num::write_sig_parts(out, value.numer(), value.denom(), self.digits)
            }
            &Value::Product { a, b } => crate::num::write_sig_product_i128(out, a, b, self.digits),
        }
    }
}

/// `n/d` (`d > 0`) in lowest terms, reduced unless it is (`lowest`).
fn word_lowest(n: i128, d: i128, lowest: bool) -> (i128, i128) {
    if lowest {
        return (n, d);
    }
    // The gcd divides d > 0, so both quotients fit.
    let g = crate::num::gcd_i128(n, d);
    (n / g, d / g)
}

/// A point of the model's variables: each variable's exact value as
/// written (`{"p": "1000"}`, `{"p": "1/3"}`).
pub type Point = BTreeMap<String, String>;

/// The point `x` named by the model's variables.
pub fn point(model: &Model, x: &[Rat]) -> Point {
    model.vars.iter().zip(x).map(|(v, val)| (v.clone(), show_value(val))).collect()
}

/// A parameter's value.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Param {
    /// Its name in the model.
    pub name: String,
    /// Its value.
    #[serde(flatten)]
    pub value: Exact,
}

/// Every parameter of `model` with its value.
pub fn params(model: &Model, values: &[Rat], digits: usize) -> Vec<Param> {
    model
        .params
        .iter()
        .zip(values)
        .map(|(p, v)| Param { name: p.name.clone(), value: Exact::new(v, digits) })
        .collect()
}

/// The root mean square of residuals. The root is irrational in general,
/// so only its square is exact.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Rms {
    /// The root, rounded once from the exact square.
    pub decimal: String,
    /// The mean of the squared residuals.
    pub mean_square: Exact,
}

impl Rms {
    /// The RMS of mean square `ms`.
    pub fn new(ms: &Rat, digits: usize) -> Rms {
        Rms { decimal: crate::fit::rms_display(ms, digits), mean_square: Exact::new(ms, digits) }
    }
}

/// Whether a band is a band.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum BandStatus {
    /// A band: `lower` and `upper` (either `null` when unbounded).
    Ok,
    /// No parameters satisfy the threshold: there is no band.
    Empty,
    /// The threshold cannot be trusted here (its relative bound reaches
    /// its limit): no band is given.
    Untrusted,
    /// Every prediction of the region is below zero at the point, where
    /// every measurement is positive: no run time is possible.
    BelowZero,
    /// No band is given here (`reason` says why: the form failed its
    /// self-check and the smaller fit refuses, or it cannot be evaluated).
    Refused,
    /// The band could not be computed (the analysis it needs failed).
    Failed,
}

impl BandStatus {
    /// Its name in a document (`ok`, `empty`, `below_zero`…), as a CSV
    /// cell writes it where a band has no ends.
    pub fn key(self) -> &'static str {
        match self {
            BandStatus::Ok => "ok",
            BandStatus::Empty => "empty",
            BandStatus::Untrusted => "untrusted",
            BandStatus::BelowZero => "below_zero",
            BandStatus::Refused => "refused",
            BandStatus::Failed => "failed",
        }
    }
}

/// A band of predictions at one point: the one shape of a band in every
/// document.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Band {
    /// Whether this is a band; when it is not, the ends are `null`.
    pub status: BandStatus,
    /// Why there is no band (`null` when `status` is `ok`).
    pub reason: Option<String>,
    /// The smallest prediction (`null`: unbounded below, or no band).
    pub lower: Option<Exact>,
    /// The largest prediction (`null`: unbounded above, or no band).
    pub upper: Option<Exact>,
    /// `upper − lower` (`null` when either end is unbounded).
    pub width: Option<Exact>,
    /// `(upper − lower) / (2·|T|)` around the model's prediction `T`
    /// (`null` when unbounded, when `T` is 0, or where the document has no
    /// prediction to compare with).
    pub relative_half_width: Option<Exact>,
    /// The lower end reached below zero and is bounded by zero: a run time
    /// is never negative.
    pub clipped: bool,
}

impl Band {
    /// A band that is not one, with its reason.
    pub fn none(status: BandStatus, reason: impl Into<String>) -> Band {
        Band {
            status,
            reason: Some(reason.into()),
            lower: None,
            upper: None,
            width: None,
            relative_half_width: None,
            clipped: false,
        }
    }

    /// No band: the region is empty.
    pub fn empty() -> Band {
        Band::no(crate::analysis::NoBand::Empty)
    }

    /// No band, for the library's reason `why`.
    pub fn no(why: crate::analysis::NoBand) -> Band {
        use crate::analysis::NoBand;
        let status = match why {
            NoBand::Empty => BandStatus::Empty,
            NoBand::Untrusted => BandStatus::Untrusted,
            NoBand::BelowZero => BandStatus::BelowZero,
        };
        Band::none(status, why.reason())
    }

    /// The band `b` (or [`Band::empty`]), with its half-width relative to
    /// the prediction `model` when one is given.
    pub fn of(b: Option<&crate::band::Band>, model: Option<&Rat>, digits: usize) -> Band {
        let Some(b) = b else { return Band::empty() };
        // Width and relative half-width unreduced: a table that shows only
        // their decimals never pays their gcds. In machine words where
        // they fit (a table of 10^6 points), else in big integers.
        use crate::band::Band as B;
        let (width, rel) = match b.width_parts_i128() {
            Some(w) => {
                let rel = model.and_then(|t| match B::half_width_factor_i128(t) {
                    Some(f) => Some(match (w.0.checked_mul(f.0), w.1.checked_mul(f.1)) {
                        (Some(n), Some(d)) => Exact::unreduced_i128(n, d, digits),
                        // Far out, the products pass 128 bits: kept as factors.
                        _ => Exact::product_i128(w, f, digits),
                    }),
                    None => B::relative_of_width(&(w.0.into(), w.1.into()), t)
                        .map(|(n, d)| Exact::unreduced(n, d, digits)),
                });
                (Some(Exact::unreduced_i128(w.0, w.1, digits)), rel)
            }
            None => {
                let parts = b.width_parts();
                let rel = model
                    .zip(parts.as_ref())
                    .and_then(|(t, w)| B::relative_of_width(w, t))
                    .map(|(n, d)| Exact::unreduced(n, d, digits));
                (parts.map(|(n, d)| Exact::unreduced(n, d, digits)), rel)
            }
        };
        Band {
            status: BandStatus::Ok,
            reason: None,
            lower: Exact::opt(b.lower.as_ref(), digits),
            upper: Exact::opt(b.upper.as_ref(), digits),
            width,
            relative_half_width: rel,
            clipped: b.clipped,
        }
    }

    /// The ends of an interval of times, both known.
    pub fn interval(lower: &Rat, upper: &Rat, digits: usize) -> Band {
        Band::of(Some(&crate::band::Band::new(Some(lower.clone()), Some(upper.clone()))), None, digits)
    }
}

/// A threshold as resolved on the data: its label and its bound on every
/// residual, `|T(c, x_i) − d_i| ≤ absolute + relative·d_i`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Threshold {
    /// As asked: `max`, `trusted`, `5%`, a number.
    pub label: String,
    /// The absolute part of the bound (`null`: the threshold could not be
    /// resolved, as a relative threshold at its limit is not).
    pub absolute: Option<Exact>,
    /// The relative part of the bound, 0 for an absolute threshold (`null`
    /// when `absolute` is).
    pub relative: Option<Exact>,
}

impl Threshold {
    /// The threshold `label` with bound `absolute + relative·d`.
    pub fn new(label: &str, absolute: &Rat, relative: &Rat, digits: usize) -> Threshold {
        Threshold {
            label: label.into(),
            absolute: Some(Exact::new(absolute, digits)),
            relative: Some(Exact::new(relative, digits)),
        }
    }

    /// The threshold `label` with its bound, if it has one.
    pub fn bound(label: &str, bound: Option<&crate::analysis::Bound>, digits: usize) -> Threshold {
        match bound {
            Some(b) => Threshold::new(label, &b.absolute, &b.relative, digits),
            None => Threshold { label: label.into(), absolute: None, relative: None },
        }
    }

    /// A region's threshold.
    pub fn of(r: &crate::analysis::Region, digits: usize) -> Threshold {
        Threshold::new(&r.threshold.text, &r.bound.absolute, &r.bound.relative, digits)
    }
}

/// The model a document is about.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ModelInfo {
    /// The model file as named on the command line.
    pub file: String,
    /// The function's name.
    pub function: String,
    /// Its variables, in order.
    pub variables: Vec<String>,
    /// Its parameters, in order.
    pub params: Vec<String>,
    /// The names of the parameter perturbations Δc, in the parameters'
    /// order: the keys of a region's vertices and of e_max's `dc`.
    pub perturbations: Vec<String>,
    /// Its constants (`const` lines), in order.
    pub constants: Vec<Constant>,
    /// Its body as written.
    pub body: String,
    /// The weight of the residuals, as written (`null`: none).
    pub weight: Option<String>,
    /// Units declared for variables and the result.
    pub units: BTreeMap<String, String>,
    /// Significant digits the model's functions are evaluated to where
    /// their values are irrational.
    pub digits: u32,
    /// The function values that were rounded to `digits` (empty: every
    /// value is exact).
    pub inexact: Vec<String>,
}

impl ModelInfo {
    /// What a document says about `m` as declared, before it meets data
    /// (nothing rounded yet).
    pub fn declared(m: &Model) -> ModelInfo {
        ModelInfo::of(m, &crate::model::EvalLog::default())
    }

    /// What a document says about `m`, whose evaluation on the data logged
    /// `log`.
    pub fn of(m: &Model, log: &crate::model::EvalLog) -> ModelInfo {
        ModelInfo {
            file: m.file.clone(),
            function: m.func.clone(),
            variables: m.vars.clone(),
            params: m.params.iter().map(|p| p.name.clone()).collect(),
            perturbations: crate::analysis::delta_names(m),
            constants: m
                .consts
                .iter()
                .map(|(n, v)| Constant { name: n.clone(), value: show_value(v) })
                .collect(),
            body: m.body_text.clone(),
            weight: m.weight_text.clone(),
            units: m.units.clone(),
            digits: m.digits(),
            inexact: crate::model::inexact_notes(log, usize::MAX),
        }
    }
}

/// A constant of a model.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Constant {
    /// Its name.
    pub name: String,
    /// Its exact value as written (`1024`, `0.5`, `1/3`).
    pub value: String,
}

/// A data file a document is about.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DataInfo {
    /// The file as named on the command line.
    pub file: String,
    /// Measurements read.
    pub measurements: usize,
    /// Distinct points among them.
    pub points: usize,
}

impl DataInfo {
    /// The data of `design`, read from `file`.
    pub fn of(file: &str, design: &crate::fit::Design) -> DataInfo {
        DataInfo { file: file.into(), measurements: design.group_of.len(), points: design.groups.len() }
    }
}

/// The band at one target under one threshold.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TargetBand {
    /// The threshold, resolved on the data analysed.
    pub threshold: Threshold,
    /// The target.
    pub target: Point,
    /// The band of the model's prediction.
    pub band: Band,
    /// The band of a new measurement there (the prediction's band widened
    /// by the threshold's bound).
    pub measurement_band: Band,
    /// The band's width over the current band's width (`null` for the
    /// current analysis itself, or when either width is infinite).
    pub ratio: Option<Exact>,
}

impl TargetBand {
    /// The bands of analysis `a` at its prediction points, threshold by
    /// threshold (the ratio left `null`).
    pub fn all_of(model: &Model, a: &crate::analysis::Analysis, digits: usize) -> Vec<TargetBand> {
        a.regions
            .iter()
            .enumerate()
            .flat_map(|(t, r)| a.predictions.iter().map(move |p| (t, r, p)))
            .map(|(t, r, p)| TargetBand {
                threshold: Threshold::of(r, digits),
                target: point(model, &p.x),
                band: Band::of(p.bands[t].as_ref(), Some(&p.model), digits),
                measurement_band: Band::of(p.measurement[t].as_ref(), Some(&p.model), digits),
                ratio: None,
            })
            .collect()
    }
}

/// A measurement of the data, by its place in the file.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Row {
    /// Its number among the measurements (from 1).
    pub row: usize,
    /// Its line in the data file.
    pub line: usize,
}

/// An array too long to hold: a document holds a marker in its place, and
/// the writer copies the array in where the marker stands, row by row (a
/// million residuals, the series of an experiment). Its schema is the
/// array's.
#[derive(Debug, Clone)]
pub struct LongArray<T> {
    marker: String,
    rows: std::marker::PhantomData<fn() -> T>,
}

impl<T> LongArray<T> {
    /// The array whose marker is `marker`.
    pub(crate) fn new(marker: String) -> LongArray<T> {
        LongArray { marker, rows: std::marker::PhantomData }
    }
}

impl<T> Serialize for LongArray<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.marker)
    }
}

impl<T: JsonSchema> JsonSchema for LongArray<T> {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("Array_of_{}", T::schema_name()).into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let items = generator.subschema_for::<T>();
        schemars::json_schema!({ "type": "array", "items": items })
    }
}

/// `doc` as a JSON value. Object keys come out sorted, as every document's
/// always have.
pub fn to_value<T: Serialize>(doc: &T) -> serde_json::Value {
    // Serialising these types cannot fail: no maps with non-string keys,
    // no fallible Serialize impls (the schema test would catch a null).
    serde_json::to_value(doc).unwrap_or(serde_json::Value::Null)
}

/// The JSON Schema (draft 2020-12) of document type `T`, written by
/// `command`, as pretty JSON
/// with a final newline. Every property is required (a document writes
/// `null` for what does not apply, never leaves a key out) and no other
/// key is allowed.
pub fn schema_of<T: JsonSchema>(command: Command, id: &str, title: &str, description: &str) -> String {
    let mut schema = serde_json::to_value(schemars::schema_for!(T)).unwrap_or_default();
    require_all(&mut schema);
    // The document's own command, not any command; so for the analyses an
    // experiment embeds.
    let own = |c: Command| {
        let name = serde_json::to_value(c).unwrap_or_default();
        schemars::json_schema!({ "const": name, "description": "The command that wrote the document." })
            .to_value()
    };
    if let Some(p) = schema.get_mut("properties").and_then(|p| p.as_object_mut()) {
        p.insert("command".into(), own(command));
    }
    let embedded = schema.pointer_mut("/$defs/AnalysisDocument/properties").and_then(|p| p.as_object_mut());
    if let Some(p) = embedded {
        p.insert("command".into(), own(Command::Analysis));
    }
    if let Some(o) = schema.as_object_mut() {
        o.insert("$id".into(), id.into());
        o.insert("title".into(), title.into());
        o.insert("description".into(), description.into());
    }
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

/// Marks every property of every object schema in `v` as required, and
/// every other key as an error (a misspelt key fails validation).
fn require_all(v: &mut serde_json::Value) {
    if let Some(o) = v.as_object_mut() {
        let names: Option<Vec<serde_json::Value>> = o
            .get("properties")
            .and_then(|p| p.as_object())
            .map(|p| p.keys().map(|k| k.clone().into()).collect());
        if let Some(names) = names {
            o.insert("required".into(), names.into());
            o.insert("additionalProperties".into(), false.into());
        }
        o.values_mut().for_each(require_all);
    } else if let Some(a) = v.as_array_mut() {
        a.iter_mut().for_each(require_all);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::{frac, int};

    #[test]
    fn exact_is_the_reduced_fraction_and_its_rounded_decimal() {
        let e = Exact::new(&frac(2, 3), 4);
        assert_eq!((e.exact().as_str(), e.decimal().as_str()), ("2/3", "0.6667"));
        assert_eq!(Exact::new(&int(-5), 3).exact(), "-5");
        // Written in place as it is shown, and serialised as both views
        // (flattened into a parameter too).
        let mut out = String::from("x=");
        e.write_decimal(&mut out);
        out.push(' ');
        e.write_exact(&mut out);
        assert_eq!(out, "x=0.6667 2/3");
        assert_eq!(serde_json::to_string(&e).unwrap(), r#"{"exact":"2/3","decimal":"0.6667"}"#);
        let p = Param { name: "c".into(), value: Exact::new(&frac(-7, 2), 2) };
        assert_eq!(serde_json::to_string(&p).unwrap(), r#"{"name":"c","exact":"-7/2","decimal":"-3.5"}"#);
        assert_eq!(*e.value(), frac(2, 3));
    }

    #[test]
    fn a_band_has_every_key_whatever_its_status() {
        let ok = to_value(&Band::of(
            Some(&crate::band::Band::new(Some(int(90)), Some(int(110)))),
            Some(&int(100)),
            6,
        ));
        let empty = to_value(&Band::empty());
        let keys = |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(&ok), keys(&empty));
        assert_eq!(ok["status"], "ok");
        assert_eq!(ok["width"]["exact"], "20");
        assert_eq!(ok["relative_half_width"]["exact"], "1/10");
        assert_eq!(empty["status"], "empty");
        assert!(empty["lower"].is_null() && empty["reason"].is_string());
    }

    proptest::proptest! {
        /// A band's ends, width and relative half-width read the same
        /// whether their parts fit in machine words or not: the same band
        /// scaled past 128 bits (each value times 2^200/2^200, which
        /// `Exact::unreduced` keeps) writes the same fractions and decimals.
        #[test]
        fn word_and_big_band_documents_agree(
            ln in -(1i64 << 40)..(1i64 << 40),
            ld in 1i64..(1 << 20),
            w in 0i64..(1i64 << 40),
            wd in 1i64..(1 << 20),
            tn in -(1i64 << 40)..(1i64 << 40),
            td in 1i64..(1 << 20),
            digits in 1usize..14,
            long in 0u32..3,
        ) {
            // Short parts (the word path), or parts whose products pass
            // 128 bits (the big-integer path of the same function).
            let k = Rat::from_integer(num_bigint::BigInt::from(1) << (45 * long));
            let (l, t) = (frac(ln, ld) * &k, frac(tn, td) / &k);
            let u = &l + frac(w, wd) * &k;
            let word = Band::of(Some(&crate::band::Band::new(Some(l.clone()), Some(u.clone()))), Some(&t), digits);
            let views = |e: &Option<Exact>| e.as_ref().map(|e| (e.exact(), e.decimal(), e.value().into_owned()));
            // The same values from big integers only.
            let big = |x: &Rat| {
                let k = num_bigint::BigInt::from(1) << 200u32;
                Exact::unreduced(x.numer() * &k, x.denom() * &k, digits)
            };
            let width = &u - &l;
            proptest::prop_assert_eq!(views(&word.width), views(&Some(big(&width))));
            let rel = (!num_traits::Zero::is_zero(&t)).then(|| &width / (Rat::from_integer(2.into()) * num_traits::Signed::abs(&t)));
            proptest::prop_assert_eq!(views(&word.relative_half_width), views(&rel.as_ref().map(big)));
            proptest::prop_assert_eq!(views(&word.lower), views(&Some(big(&l))));
            proptest::prop_assert_eq!(views(&word.upper), views(&Some(big(&u))));
        }
    }

    #[test]
    fn a_width_and_relative_half_width_are_written_in_lowest_terms() {
        // Formed unreduced (3/4 − 1/4 over 4·4, then over 2·|−1/3|), they
        // still read as reduced fractions, equal their reduced values, and
        // round as those do.
        let b = Band::of(
            Some(&crate::band::Band::new(Some(frac(1, 4)), Some(frac(3, 4)))),
            Some(&frac(-1, 3)),
            4,
        );
        let (w, r) = (b.width.unwrap(), b.relative_half_width.unwrap());
        assert_eq!((w.exact(), w.decimal()), ("1/2".to_string(), "0.5".to_string()));
        assert_eq!((r.exact(), r.decimal()), ("3/4".to_string(), "0.75".to_string()));
        assert_eq!(r, Exact::new(&frac(3, 4), 4));
        assert_eq!(*r.value(), frac(3, 4));
        assert_eq!(r.value().denom(), &num_bigint::BigInt::from(4));
        assert_ne!(r, Exact::new(&frac(3, 4), 5));
        let mut out = String::new();
        w.write_exact(&mut out);
        assert_eq!(out, "1/2");
        assert_eq!(serde_json::to_string(&r).unwrap(), r#"{"exact":"3/4","decimal":"0.75"}"#);
    }

    #[test]
    fn band_statuses_are_written_by_their_document_names() {
        for s in [
            BandStatus::Ok,
            BandStatus::Empty,
            BandStatus::Untrusted,
            BandStatus::BelowZero,
            BandStatus::Refused,
            BandStatus::Failed,
        ] {
            assert_eq!(to_value(&s), s.key());
        }
    }

    #[test]
    fn an_unbounded_band_has_no_width() {
        let b = to_value(&Band::of(Some(&crate::band::Band::new(Some(int(1)), None)), Some(&int(2)), 6));
        assert!(b["upper"].is_null() && b["width"].is_null() && b["relative_half_width"].is_null());
        assert_eq!(b["lower"]["exact"], "1");
    }

    #[test]
    fn schemas_require_every_property() {
        let s: serde_json::Value = serde_json::from_str(&schema_of::<Band>(
            Command::Prune,
            "https://errband.dev/band",
            "band",
            "one band",
        ))
        .unwrap();
        let req: Vec<&str> = s["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        for k in ["status", "reason", "lower", "upper", "width", "relative_half_width", "clipped"] {
            assert!(req.contains(&k), "{k} not required");
        }
        assert_eq!(s["title"], "band");
    }
}
