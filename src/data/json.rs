//! Extra-P's JSON family: JSON (its legacy id-based schema and its newer
//! nested one), JSON Lines, and TaLPas (JSON objects whose fields are
//! separated by `;`).
//!
//! Parsing is serde_json's; numbers keep their text (the crate's
//! `arbitrary_precision` feature), so every value is read exactly from its
//! decimal, never through a float. Syntax and type errors carry serde's
//! line and column; errors about meaning (an id that names nothing, a
//! missing parameter) name the JSON path, and for JSON Lines and TaLPas the
//! line.
//!
//! Where Extra-P's readers are odd, these follow the format's intent:
//! legacy ids are looked up by value (Extra-P uses `id − 1` as a list index,
//! so ids must be 1..n in its reader); TaLPas' `;` is a field separator only
//! outside strings (Extra-P replaces every `;`, also inside names).
//! As in Extra-P, every series must be measured at every point of the
//! experiment (its negative test `talpas_10_neg.txt` lacks points).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Range;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Number;

use super::experiment::{Experiment, Format, Series, SeriesPoint};
use super::{error, number_error, parse_number, quoted_list, DataError, Rat};
use crate::limits::{Limit, Limits};

/// A JSON object's entries in file order (serde_json's own map sorts them).
pub(crate) struct OrderedMap<T>(pub(crate) Vec<(String, T)>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for OrderedMap<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = OrderedMap<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
                let mut v = Vec::new();
                let mut seen = std::collections::HashSet::new();
                while let Some(k) = m.next_key::<Cow<'de, str>>()? {
                    // Checked before the value is read: serde_json then
                    // locates the error at the key's line and column.
                    if !seen.insert(k.clone()) {
                        return Err(de::Error::custom(format_args!(
                            "the key {:?} appears twice in one object (JSON readers differ on which one counts)",
                            k
                        )));
                    }
                    let x = m.next_value::<T>()?;
                    v.push((k.into_owned(), x));
                }
                Ok(OrderedMap(v))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// A value or a list of values (Extra-P accepts both in JSON Lines).
struct OneOrMany(Vec<Number>);

impl<'de> Deserialize<'de> for OneOrMany {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OneOrMany;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number or a list of numbers")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(OneOrMany(vec![Number::from(v)]))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(OneOrMany(vec![Number::from(v)]))
            }
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<Self::Value, A::Error> {
                // serde_json hands other arbitrary-precision numbers over as a map.
                Number::deserialize(de::value::MapAccessDeserializer::new(m)).map(|n| OneOrMany(vec![n]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
                let mut v = Vec::new();
                while let Some(n) = s.next_element::<Number>()? {
                    v.push(n);
                }
                Ok(OneOrMany(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// Coordinates as a hash key: hashes numerators and denominators (always
/// normalized), not `Ratio`'s slow continued-fraction hash.
#[derive(PartialEq, Eq)]
struct Coords(Vec<Rat>);

impl Hash for Coords {
    fn hash<H: Hasher>(&self, h: &mut H) {
        for v in &self.0 {
            v.numer().hash(h);
            v.denom().hash(h);
        }
    }
}

/// Builds an experiment from measurements in any order.
struct Collector<'a> {
    file: &'a str,
    limits: Limits,
    params: Vec<String>,
    series: Vec<Series>,
    by_name: HashMap<String, HashMap<String, usize>>,
    points: Vec<HashMap<Coords, usize>>,
    all_points: HashMap<Coords, usize>,
    rows: usize,
}

impl<'a> Collector<'a> {
    fn new(file: &'a str, limits: Limits) -> Self {
        Collector {
            file,
            limits,
            params: Vec::new(),
            series: Vec::new(),
            by_name: HashMap::new(),
            points: Vec::new(),
            all_points: HashMap::new(),
            rows: 0,
        }
    }

    /// Adds the values measured at `coords` to the series `callpath / metric`.
    fn add(
        &mut self,
        callpath: &str,
        metric: &str,
        coords: Vec<Rat>,
        values: Vec<Rat>,
        line: usize,
        span: Range<usize>,
    ) -> Result<(), DataError> {
        self.rows += values.len();
        if self.rows > self.limits.rows {
            return Err(error(
                self.file,
                span,
                format!("{} has too many measurements {}", self.file, Limit::Rows.note(&self.limits)),
                "",
                None,
            ));
        }
        let s = match self.by_name.get(callpath).and_then(|m| m.get(metric)) {
            Some(&s) => s,
            None => {
                let s = self.series.len();
                self.by_name.entry(callpath.to_string()).or_default().insert(metric.to_string(), s);
                self.series.push(Series {
                    callpath: callpath.to_string(),
                    metric: metric.to_string(),
                    unit: None,
                    points: Vec::new(),
                    span: span.clone(),
                });
                self.points.push(HashMap::new());
                s
            }
        };
        let n = self.all_points.len();
        let key = Coords(coords);
        match self.points[s].get(&key) {
            Some(&p) => self.series[s].points[p].values.extend(values),
            None => {
                let p = self.series[s].points.len();
                self.series[s].points.push(SeriesPoint {
                    coords: key.0.clone(),
                    values: values.into(),
                    summary: None,
                    line,
                });
                if !self.all_points.contains_key(&key) {
                    self.all_points.insert(Coords(key.0.clone()), n);
                }
                self.points[s].insert(key, p);
            }
        }
        Ok(())
    }

    /// The experiment; like Extra-P, refuses a series that lacks some of
    /// the experiment's points.
    fn finish(self, format: Format) -> Result<Experiment, DataError> {
        if self.series.is_empty() {
            return Err(error(self.file, 0..0, format!("{} holds no measurements", self.file), "", None));
        }
        let total = self.all_points.len();
        for (s, pts) in self.series.iter().zip(&self.points) {
            if pts.len() < total {
                let mut missing: Vec<(&usize, String)> = self
                    .all_points
                    .iter()
                    .filter(|(k, _)| !pts.contains_key(k))
                    .map(|(k, i)| {
                        let text = self
                            .params
                            .iter()
                            .zip(&k.0)
                            .map(|(p, v)| format!("{p}={}", crate::num::fmt_fraction(v)))
                            .collect::<Vec<_>>()
                            .join(",");
                        (i, text)
                    })
                    .collect();
                missing.sort();
                let names: Vec<String> = missing.into_iter().map(|(_, t)| t).collect();
                return Err(error(
                    self.file,
                    s.span.clone(),
                    format!(
                        "series `{}` has {} of the experiment's {total} points; it lacks {}",
                        s.name(),
                        pts.len(),
                        quoted_list(&names)
                    ),
                    "first measurement of the series",
                    Some("every series of an Extra-P experiment is measured at every point (Extra-P refuses this file too); measure the missing points or remove the series".into()),
                ));
            }
        }
        Ok(Experiment {
            file: self.file.to_string(),
            format,
            params: self.params,
            params_span: 0..0,
            series: self.series,
            models: Vec::new(),
            warnings: Vec::new(),
        })
    }
}

/// The byte offset of serde's 1-based line and column in `text`.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum();
    (start + column.saturating_sub(1)).min(text.len())
}

/// A serde_json error located in `text` (which starts at `base` in the file).
pub(crate) fn syntax(file: &str, text: &str, base: usize, e: &serde_json::Error, what: &str) -> DataError {
    let at = base + offset_of(text, e.line(), e.column());
    // serde's message ends with " at line L column C"; the span says it.
    let msg = e.to_string();
    let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
    error(file, at..at + 1, format!("{what}: {msg}"), "here", None)
}

/// A number's exact value; `path` names it in messages.
pub(crate) fn number(
    n: &Number,
    file: &str,
    span: Range<usize>,
    path: &str,
    limits: Limits,
) -> Result<Rat, DataError> {
    let text = n.to_string();
    parse_number(&text, limits).map_err(|e| {
        let (m, help) = number_error(path, "value", &text, &e);
        error(file, span, m, "", help)
    })
}

/// Reads Extra-P's JSON input (either schema).
pub fn read_json(text: &str, file: &str, limits: Limits) -> Result<Experiment, DataError> {
    let doc: serde_json::Value =
        serde_json::from_str(text).map_err(|e| syntax(file, text, 0, &e, "not valid JSON"))?;
    let Some(top) = doc.as_object() else {
        return Err(error(
            file,
            0..text.len().min(1),
            format!("{file}: Extra-P's JSON input is an object, with `parameters` and `measurements`"),
            "",
            None,
        ));
    };
    if top.contains_key("callpaths") {
        read_legacy(text, file, limits)
    } else {
        read_nested(text, file, limits)
    }
}

#[derive(Deserialize)]
struct Named {
    #[serde(deserialize_with = "unique_id")]
    id: Number,
    name: String,
}

#[derive(Deserialize)]
struct Pair {
    parameter_id: Number,
    parameter_value: Number,
}

#[derive(Deserialize)]
struct Coordinate {
    #[serde(deserialize_with = "unique_id")]
    id: Number,
    parameter_value_pairs: Vec<Pair>,
}

#[derive(Deserialize)]
struct LegacyMeasurement {
    coordinate_id: Number,
    callpath_id: Number,
    metric_id: Number,
    value: Number,
}

#[derive(Deserialize)]
struct Legacy {
    parameters: Unique<Named>,
    callpaths: Unique<Named>,
    metrics: Unique<Named>,
    coordinates: Unique<Coordinate>,
    measurements: Vec<LegacyMeasurement>,
}

thread_local! {
    /// The ids seen so far in each [`Unique`] list being read (innermost last).
    static SEEN_IDS: std::cell::RefCell<Vec<std::collections::HashSet<String>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// An item's id, refused when an earlier item of the same [`Unique`] list
/// has it: the error is raised while the id is read, so serde_json locates
/// it at the id itself (Extra-P's reader silently kept one of the two).
/// Ids compare by value (`1` and `1.0` are one id), as they are looked up;
/// a value past the default limits compares by its text.
fn unique_id<'de, D: Deserializer<'de>>(d: D) -> Result<Number, D::Error> {
    let n = Number::deserialize(d)?;
    let t = n.to_string();
    let key = parse_number(&t, Limits::default()).map_or(t, |r| crate::num::fmt_fraction(&r));
    let fresh = SEEN_IDS.with(|s| s.borrow_mut().last_mut().is_none_or(|set| set.insert(key)));
    if fresh {
        Ok(n)
    } else {
        Err(de::Error::custom(format_args!("a second item with the id {n} in this list; ids must differ")))
    }
}

/// A list whose items' ids ([`unique_id`]) are all different.
struct Unique<T>(Vec<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Unique<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Unique<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
                // A fresh set of ids for this list, dropped however it ends.
                struct Pop;
                impl Drop for Pop {
                    fn drop(&mut self) {
                        SEEN_IDS.with(|s| s.borrow_mut().pop());
                    }
                }
                SEEN_IDS.with(|s| s.borrow_mut().push(std::collections::HashSet::new()));
                let _pop = Pop;
                let mut v: Vec<T> = Vec::new();
                while let Some(x) = s.next_element::<T>()? {
                    v.push(x);
                }
                Ok(Unique(v))
            }
        }
        d.deserialize_seq(V(std::marker::PhantomData))
    }
}

/// The legacy schema: parameters, callpaths, metrics and coordinates with
/// ids, and a flat list of measurements naming them.
fn read_legacy(text: &str, file: &str, limits: Limits) -> Result<Experiment, DataError> {
    let doc: Legacy =
        serde_json::from_str(text).map_err(|e| syntax(file, text, 0, &e, "Extra-P JSON (legacy schema)"))?;
    let none = 0..0;
    let id = |n: &Number, path: &str| number(n, file, none.clone(), path, limits);
    // Parameters and coordinates are listed by id, as Extra-P sorts them.
    let mut params: Vec<(Rat, String)> = Vec::with_capacity(doc.parameters.0.len());
    for (i, p) in doc.parameters.0.iter().enumerate() {
        params.push((id(&p.id, &format!("parameters[{i}].id"))?, p.name.clone()));
    }
    params.sort_by(|a, b| a.0.cmp(&b.0));
    let param_pos: HashMap<Coords, usize> =
        params.iter().enumerate().map(|(i, (id, _))| (Coords(vec![id.clone()]), i)).collect();
    let names = |list: &[Named], what: &str| -> Result<HashMap<Coords, String>, DataError> {
        let mut m = HashMap::new();
        for (i, x) in list.iter().enumerate() {
            m.insert(Coords(vec![id(&x.id, &format!("{what}[{i}].id"))?]), x.name.clone());
        }
        Ok(m)
    };
    let callpaths = names(&doc.callpaths.0, "callpaths")?;
    let metrics = names(&doc.metrics.0, "metrics")?;
    let mut coords: HashMap<Coords, Vec<Rat>> = HashMap::new();
    for (i, c) in doc.coordinates.0.iter().enumerate() {
        let mut v: Vec<Option<Rat>> = vec![None; params.len()];
        for (j, pv) in c.parameter_value_pairs.iter().enumerate() {
            let path = format!("coordinates[{i}].parameter_value_pairs[{j}]");
            let pid = id(&pv.parameter_id, &format!("{path}.parameter_id"))?;
            let Some(&k) = param_pos.get(&Coords(vec![pid.clone()])) else {
                return Err(error(
                    file,
                    none,
                    format!("{path}: parameter_id {} names no parameter", pv.parameter_id),
                    "",
                    None,
                ));
            };
            v[k] = Some(id(&pv.parameter_value, &format!("{path}.parameter_value"))?);
        }
        let Some(v) = v.into_iter().collect::<Option<Vec<Rat>>>() else {
            return Err(error(
                file,
                none,
                format!(
                    "coordinates[{i}]: not every parameter has a value (parameters: {})",
                    quoted_list(&params.iter().map(|p| &p.1).collect::<Vec<_>>())
                ),
                "",
                None,
            ));
        };
        coords.insert(Coords(vec![id(&c.id, &format!("coordinates[{i}].id"))?]), v);
    }
    let mut out = Collector::new(file, limits);
    out.params = params.into_iter().map(|p| p.1).collect();
    for (i, m) in doc.measurements.iter().enumerate() {
        let path = format!("measurements[{i}]");
        let look = |map: &HashMap<Coords, String>, n: &Number, what: &str| -> Result<String, DataError> {
            let k = Coords(vec![id(n, &format!("{path}.{what}_id"))?]);
            map.get(&k).cloned().ok_or_else(|| {
                error(file, none.clone(), format!("{path}: {what}_id {n} names no {what}"), "", None)
            })
        };
        let callpath = look(&callpaths, &m.callpath_id, "callpath")?;
        let metric = look(&metrics, &m.metric_id, "metric")?;
        let cid = Coords(vec![id(&m.coordinate_id, &format!("{path}.coordinate_id"))?]);
        let Some(x) = coords.get(&cid) else {
            return Err(error(
                file,
                none,
                format!("{path}: coordinate_id {} names no coordinate", m.coordinate_id),
                "",
                None,
            ));
        };
        let v = number(&m.value, file, none.clone(), &format!("{path}.value"), limits)?;
        out.add(&callpath, &metric, x.clone(), vec![v], 0, none.clone())?;
    }
    out.finish(Format::ExtrapJson)
}

#[derive(Deserialize)]
struct NestedPoint {
    point: Vec<Number>,
    values: OneOrMany,
}

#[derive(Deserialize)]
struct Nested {
    parameters: Vec<String>,
    measurements: OrderedMap<OrderedMap<Vec<NestedPoint>>>,
}

/// The newer schema: `parameters` (names) and `measurements` nested by
/// callpath, then metric, each a list of `{point, values}`.
fn read_nested(text: &str, file: &str, limits: Limits) -> Result<Experiment, DataError> {
    let doc: Nested = serde_json::from_str(text).map_err(|e| syntax(file, text, 0, &e, "Extra-P JSON"))?;
    let mut out = Collector::new(file, limits);
    out.params = doc.parameters;
    let n = out.params.len();
    for (callpath, metrics) in doc.measurements.0 {
        for (metric, points) in metrics.0 {
            for (i, p) in points.iter().enumerate() {
                let path = format!("measurements.{callpath:?}.{metric:?}[{i}]");
                if p.point.len() != n {
                    return Err(error(
                        file,
                        0..0,
                        format!(
                            "{path}.point has {} coordinates; the experiment has {n} parameters ({})",
                            p.point.len(),
                            quoted_list(&out.params)
                        ),
                        "",
                        None,
                    ));
                }
                let x = p
                    .point
                    .iter()
                    .enumerate()
                    .map(|(j, c)| number(c, file, 0..0, &format!("{path}.point[{j}]"), limits))
                    .collect::<Result<Vec<_>, _>>()?;
                let v = p
                    .values
                    .0
                    .iter()
                    .enumerate()
                    .map(|(j, c)| number(c, file, 0..0, &format!("{path}.values[{j}]"), limits))
                    .collect::<Result<Vec<_>, _>>()?;
                out.add(&callpath, &metric, x, v, 0, 0..0)?;
            }
        }
    }
    out.finish(Format::ExtrapJson)
}

#[derive(Deserialize)]
struct JsonLine<'a> {
    params: OrderedMap<Number>,
    #[serde(borrow, default)]
    callpath: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    metric: Option<Cow<'a, str>>,
    value: OneOrMany,
}

#[derive(Deserialize)]
struct TalpasLine<'a> {
    parameters: OrderedMap<Number>,
    #[serde(borrow)]
    callpath: Cow<'a, str>,
    #[serde(borrow)]
    metric: Cow<'a, str>,
    value: OneOrMany,
}

/// One line's measurement, format-neutral.
struct Line<'a> {
    params: OrderedMap<Number>,
    callpath: Cow<'a, str>,
    metric: Cow<'a, str>,
    value: OneOrMany,
}

/// Reads lines of measurements (JSON Lines or TaLPas), each parsed by `parse`.
fn read_lines<'t>(
    text: &'t str,
    file: &str,
    limits: Limits,
    format: Format,
    parse: impl Fn(&'t str) -> Result<Line<'t>, serde_json::Error>,
) -> Result<Experiment, DataError> {
    let mut out = Collector::new(file, limits);
    let mut offset = 0;
    let mut first_params: Option<Vec<String>> = None;
    for (ln, raw) in text.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += raw.len();
        let body = raw.trim_end_matches(['\n', '\r']);
        if body.trim().is_empty() {
            continue;
        }
        let span = start..start + body.len();
        let line = parse(body).map_err(|e| syntax(file, body, start, &e, &format!("line {}", ln + 1)))?;
        let names: Vec<&str> = line.params.0.iter().map(|(k, _)| k.as_str()).collect();
        let order = first_params.get_or_insert_with(|| names.iter().map(|s| s.to_string()).collect());
        // Coordinates in the first line's parameter order, as Extra-P keeps them.
        let mut x: Vec<Option<Rat>> = vec![None; order.len()];
        for (k, v) in &line.params.0 {
            let Some(j) = order.iter().position(|p| p == k) else {
                return Err(error(
                    file,
                    span,
                    format!(
                        "line {}: parameter `{k}` is not among the first line's ({})",
                        ln + 1,
                        quoted_list(order)
                    ),
                    "",
                    Some("every line names the same parameters".into()),
                ));
            };
            x[j] = Some(number(v, file, span.clone(), &format!("line {}: parameter `{k}`", ln + 1), limits)?);
        }
        let Some(x) = x.into_iter().collect::<Option<Vec<Rat>>>() else {
            let missing: Vec<&String> = order.iter().filter(|p| !names.contains(&p.as_str())).collect();
            return Err(error(
                file,
                span,
                format!("line {}: no value for parameter {}", ln + 1, quoted_list(&missing)),
                "",
                Some("every line names the same parameters".into()),
            ));
        };
        let values = line
            .value
            .0
            .iter()
            .map(|v| number(v, file, span.clone(), &format!("line {}: value", ln + 1), limits))
            .collect::<Result<Vec<_>, _>>()?;
        out.add(&line.callpath, &line.metric, x, values, ln + 1, span)?;
    }
    out.params = first_params.unwrap_or_default();
    out.finish(format)
}

/// Reads Extra-P's JSON Lines input: one object per line with `params`,
/// `value` (a number or a list), and optionally `callpath` and `metric`
/// (Extra-P's defaults `<root>` and `<default>` when absent).
pub fn read_jsonl(text: &str, file: &str, limits: Limits) -> Result<Experiment, DataError> {
    read_lines(text, file, limits, Format::JsonLines, |line| {
        let l: JsonLine<'_> = serde_json::from_str(line)?;
        Ok(Line {
            params: l.params,
            callpath: l.callpath.unwrap_or(Cow::Borrowed("<root>")),
            metric: l.metric.unwrap_or(Cow::Borrowed("<default>")),
            value: l.value,
        })
    })
}

/// `;` outside strings as `,`: TaLPas' lines as JSON, same length, so
/// columns stay where they were.
fn talpas_to_json(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in line.chars() {
        out.push(match c {
            ';' if !in_string => ',',
            _ => c,
        });
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        }
    }
    out
}

/// Reads TaLPas' format: one object per line with `parameters`,
/// `callpath`, `metric` and `value`, fields separated by `;`.
pub fn read_talpas(text: &str, file: &str, limits: Limits) -> Result<Experiment, DataError> {
    read_lines(text, file, limits, Format::Talpas, |line| {
        let json = talpas_to_json(line);
        let l: TalpasLine<'_> = serde_json::from_str(&json)?;
        Ok(Line {
            params: l.parameters,
            callpath: Cow::Owned(l.callpath.into_owned()),
            metric: Cow::Owned(l.metric.into_owned()),
            value: l.value,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::parse_rat;

    const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/extrap-data/tests/data");

    fn rat(s: &str) -> Rat {
        parse_rat(s).unwrap()
    }

    #[test]
    fn legacy_schema_by_id_with_exact_values() {
        let text = r#"{"parameters": [{"id": 2, "name": "y"}, {"id": 1, "name": "x"}],
            "callpaths": [{"id": 7, "name": "main"}], "metrics": [{"id": 1, "name": "time"}],
            "coordinates": [{"id": 1, "parameter_value_pairs": [{"parameter_id": 1, "parameter_value": 4}, {"parameter_id": 2, "parameter_value": 0.5}]},
                            {"id": 2, "parameter_value_pairs": [{"parameter_id": 2, "parameter_value": 1}, {"parameter_id": 1, "parameter_value": 8}]}],
            "measurements": [{"callpath_id": 7, "coordinate_id": 1, "metric_id": 1, "value": 0.1},
                             {"callpath_id": 7, "coordinate_id": 1, "metric_id": 1, "value": 0.30000000000000004},
                             {"callpath_id": 7, "coordinate_id": 2, "metric_id": 1, "value": 1e-3}]}"#;
        let e = read_json(text, "t.json", Limits::default()).unwrap();
        assert_eq!(e.params, ["x", "y"]);
        assert_eq!(e.series.len(), 1);
        let p = &e.series[0].points;
        assert_eq!(p[0].coords, vec![rat("4"), rat("0.5")]);
        assert_eq!(p[0].values, vec![rat("0.1"), rat("0.30000000000000004")]);
        assert_eq!(p[1].values, vec![rat("0.001")]);
        let bad = text.replace("\"coordinate_id\": 2", "\"coordinate_id\": 9");
        let err = read_json(&bad, "t.json", Limits::default()).unwrap_err();
        assert!(
            err.diagnostic.message.contains("measurements[2]: coordinate_id 9 names no coordinate"),
            "{}",
            err.diagnostic.message
        );
    }

    #[test]
    fn nested_schema_and_located_faults() {
        let text = "{\"parameters\": [\"x\"],\n \"measurements\": {\"b\": {\"time\": [{\"point\": [4], \"values\": [1.5, 2]}, {\"point\": [8], \"values\": 3}]},\n \"a\": {\"time\": [{\"point\": [4], \"values\": [1]}, {\"point\": [8], \"values\": [2]}]}}}";
        let e = read_json(text, "n.json", Limits::default()).unwrap();
        let names: Vec<String> = e.series.iter().map(|s| s.name()).collect();
        assert_eq!(names, ["b / time", "a / time"], "file order, not sorted");
        assert_eq!(e.series[0].points[1].values, vec![rat("3")]);
        // A syntax error: serde's line and column as a span.
        let err =
            read_json("{\"parameters\": [\"x\"],\n \"measurements\": {,}}", "n.json", Limits::default())
                .unwrap_err();
        assert_eq!(err.diagnostic.span.start, 40, "{}", err.diagnostic.message);
        // A string where a number belongs.
        let err = read_json(&text.replace("[1.5, 2]", "[\"1.5\"]"), "n.json", Limits::default()).unwrap_err();
        assert!(err.diagnostic.message.contains("Extra-P JSON"), "{}", err.diagnostic.message);
        let err = read_json(
            &text.replace("[4], \"values\": [1]", "[4, 1], \"values\": [1]"),
            "n.json",
            Limits::default(),
        )
        .unwrap_err();
        assert!(err.diagnostic.message.contains("has 2 coordinates"), "{}", err.diagnostic.message);
        // A key twice in one object: refused at the second, by line and column.
        let dup = text.replace("\n \"a\":", "\n \"b\":");
        let err = read_json(&dup, "n.json", Limits::default()).unwrap_err();
        assert!(err.diagnostic.message.contains("the key \"b\" appears twice"), "{}", err.diagnostic.message);
        let at = err.diagnostic.span.start;
        assert_eq!(dup[..at].matches('\n').count(), 2, "on the second key's line: {at}");
        let err = read_jsonl("{\"params\":{\"x\":4,\"x\":5},\"value\":1}\n", "l.jsonl", Limits::default())
            .unwrap_err();
        assert!(err.diagnostic.message.contains("\"x\" appears twice"), "{}", err.diagnostic.message);
    }

    #[test]
    fn legacy_ids_listed_twice_are_refused_where_they_are() {
        let text = "{\"parameters\": [{\"id\": 1, \"name\": \"p\"}], \"callpaths\": [{\"id\": 1, \"name\": \"main\"}],\n \"metrics\": [{\"id\": 1, \"name\": \"time\"}],\n \"coordinates\": [\n  {\"id\": 1, \"parameter_value_pairs\": [{\"parameter_id\": 1, \"parameter_value\": 2}]},\n  {\"id\": 1.0, \"parameter_value_pairs\": [{\"parameter_id\": 1, \"parameter_value\": 4}]}\n ],\n \"measurements\": [{\"coordinate_id\": 1, \"callpath_id\": 1, \"metric_id\": 1, \"value\": 3}]}\n";
        let err = read_json(text, "l.json", Limits::default()).unwrap_err();
        assert!(
            err.diagnostic.message.contains("a second item with the id 1.0"),
            "{}",
            err.diagnostic.message
        );
        let at = err.diagnostic.span.start;
        assert_eq!(text[..at].matches('\n').count(), 4, "on the duplicate's line: {at}");
        let ok = text.replace("\"id\": 1.0", "\"id\": 2");
        assert_eq!(read_json(&ok, "l.json", Limits::default()).unwrap().series.len(), 1);
    }

    #[test]
    fn json_lines_and_talpas() {
        let text = "{\"params\":{\"x\":4,\"y\":1},\"callpath\":\"c\",\"value\":1.25}\n\n{\"params\":{\"y\":1,\"x\":4},\"callpath\":\"c\",\"value\":[2,3]}\n{\"params\":{\"x\":8,\"y\":1},\"callpath\":\"c\",\"value\":5}\n";
        let e = read_jsonl(text, "l.jsonl", Limits::default()).unwrap();
        assert_eq!(e.params, ["x", "y"]);
        assert_eq!(e.series[0].metric, "<default>");
        assert_eq!(e.series[0].points[0].values, vec![rat("1.25"), rat("2"), rat("3")]);
        assert_eq!(e.series[0].points[1].line, 4);
        let err = read_jsonl(&text.replace("\"y\":1,\"x\":4", "\"x\":4"), "l.jsonl", Limits::default())
            .unwrap_err();
        assert!(
            err.diagnostic.message.contains("line 3: no value for parameter `y`"),
            "{}",
            err.diagnostic.message
        );
        let err =
            read_jsonl("{\"params\":{\"x\":4},\"value\":}\n", "l.jsonl", Limits::default()).unwrap_err();
        assert_eq!(err.diagnostic.span.start, 26, "at the closing brace where a value belongs");
        let t = "{\"parameters\":{\"x\":20};\"metric\":\"time\";\"callpath\":\"a;b\";\"value\":82.5}\n";
        let e = read_talpas(t, "t.txt", Limits::default()).unwrap();
        assert_eq!(e.series[0].callpath, "a;b", "a `;` inside a name stays");
        assert_eq!(e.series[0].points[0].values, vec![rat("82.5")]);
        let few = Limits { rows: 2, ..Limits::default() };
        assert!(read_jsonl(text, "l.jsonl", few).unwrap_err().diagnostic.message.contains("too many"));
    }

    fn files(dir: &str, ext: &str) -> Vec<std::path::PathBuf> {
        let mut v: Vec<_> = std::fs::read_dir(format!("{DATA}/{dir}"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case(ext)))
            .collect();
        v.sort();
        v
    }

    /// Every file of Extra-P's tests in these formats: read, or (its
    /// negative tests) refused with a located message.
    #[test]
    fn extrap_test_inputs() {
        let mut counts = HashMap::new();
        type Reader = fn(&str, &str, Limits) -> Result<Experiment, DataError>;
        let sets: [(&str, &str, Reader); 5] = [
            ("json", "JSON", read_json),
            ("json/new", "json", read_json),
            ("jsonlines", "jsonl", read_jsonl),
            ("input", "jsonl", read_jsonl),
            ("talpas", "txt", read_talpas),
        ];
        for (dir, ext, read) in sets {
            for p in files(dir, ext) {
                let text = std::fs::read_to_string(&p).unwrap();
                let name = p.file_name().unwrap().to_string_lossy().to_string();
                let r = read(&text, &name, Limits::default());
                if name.contains("neg") {
                    let e = r.expect_err(&name);
                    assert!(!e.diagnostic.span.is_empty(), "{name}: {}", e.diagnostic.message);
                    *counts.entry(format!("{dir} refused")).or_insert(0) += 1;
                } else {
                    let e = r.unwrap_or_else(|e| panic!("{name}: {}", e.diagnostic.message));
                    assert!(!e.series.is_empty() && !e.params.is_empty(), "{name}");
                    *counts.entry(format!("{dir} read")).or_insert(0) += 1;
                }
            }
        }
        let want: HashMap<String, i32> = [
            ("json read", 12),
            ("json/new read", 2),
            ("jsonlines read", 15),
            ("input read", 6),
            ("talpas read", 9),
            ("talpas refused", 1),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), *v))
        .collect();
        assert_eq!(counts, want);
        // One value per format checked against the file's text.
        let e = read_json(
            &std::fs::read_to_string(format!("{DATA}/json/input_1.JSON")).unwrap(),
            "i",
            Limits::default(),
        )
        .unwrap();
        assert_eq!(e.series[0].points[0].values, vec![rat("3.5"); 5]);
        let t = std::fs::read_to_string(format!("{DATA}/talpas/talpas_1.txt")).unwrap();
        let e = read_talpas(&t, "t", Limits::default()).unwrap();
        assert_eq!(e.series[0].points[0].values.get(0).unwrap(), rat("82.00848518948744"));
        let l = std::fs::read_to_string(format!("{DATA}/jsonlines/input_1.jsonl")).unwrap();
        let e = read_jsonl(&l, "l", Limits::default()).unwrap();
        assert_eq!(e.series[0].points[0].values.get(0).unwrap(), rat("48663.50675180765"));
    }
}
