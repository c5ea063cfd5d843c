//! Extra-P experiment files (`.extra-p`): a zip archive holding
//! `experiment.json`, Extra-P's own serialisation of an experiment: its
//! parameters, per callpath and metric the statistics at each point (and
//! the repetitions when it kept them), and the models its modelers fitted.
//!
//! The archive is read with the `zip` crate, the member with serde_json
//! (numbers keep their text, so values and coefficients are exact). The
//! member's declared size is checked before it is read, and the read itself
//! stops at the cap, so a zip bomb cannot take the memory.
//!
//! Stored models are read as data: each coefficient and exponent must be a
//! JSON number (an exponent may be a string holding a fraction, `"3/2"`),
//! and the hypothesis is built from those values, never from text pasted
//! together from the file (an exponent `"-1) + 5*p^(2"` once became a
//! different model). A model that is not such data is "not read", with its
//! JSON path, and its series is still analysed from its measurements.

use std::io::Read;

use serde::Deserialize;
use serde_json::{Number, Value};

use super::experiment::{Experiment, Format, Series, SeriesPoint, Summary};
use super::{error, DataError};
use crate::hypothesis::{Factor, Hypothesis, Term};
use crate::limits::{Limit, Limits};
use crate::num::Rat;
use num_traits::Zero;

/// The largest `experiment.json` read (its declared and its actual size).
pub const MAX_MEMBER_BYTES: u64 = 1 << 30;

#[derive(Deserialize)]
struct Point {
    coordinate: Vec<Number>,
    #[serde(default)]
    mean: Option<Number>,
    #[serde(default)]
    median: Option<Number>,
    #[serde(default)]
    minimum: Option<Number>,
    #[serde(default)]
    maximum: Option<Number>,
    #[serde(default)]
    repetitions: Option<u64>,
    #[serde(default)]
    values: Option<Vec<Number>>,
}

#[derive(Deserialize)]
struct Modeler {
    #[serde(default)]
    name: Option<String>,
    models: super::json::OrderedMap<super::json::OrderedMap<Value>>,
}

#[derive(Deserialize)]
struct Document {
    parameters: Vec<String>,
    measurements: super::json::OrderedMap<super::json::OrderedMap<Vec<Point>>>,
    #[serde(default)]
    modelers: Vec<Modeler>,
}

/// Reads an Extra-P experiment file.
pub fn read_extrap_archive(bytes: &[u8], file: &str, limits: Limits) -> Result<Experiment, DataError> {
    read_capped(bytes, file, limits, MAX_MEMBER_BYTES)
}

fn read_capped(bytes: &[u8], file: &str, limits: Limits, cap: u64) -> Result<Experiment, DataError> {
    let fail = |m: String, help: Option<String>| error(file, 0..0, m, "", help);
    // Extra-P 3 wrote a binary format of its own (a length-prefixed
    // `EXTRAP_EXPERIMENT` tag first), not a zip archive.
    if bytes.get(6..23) == Some(b"EXTRAP_EXPERIMENT".as_slice()) {
        return Err(fail(
            format!("{file}: this is an Extra-P 3 binary experiment, a format errband does not read"),
            Some("Extra-P 4 converts it: `extrap --extra-p-3 FILE --save-experiment out.extra-p` (or open it in the GUI and save the experiment), then give errband the .extra-p file".into()),
        ));
    }
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| fail(format!("{file}: not a readable zip archive ({e})"), None))?;
    let names: Vec<String> = zip.file_names().filter_map(|n| n.ok().map(|n| n.into_owned())).collect();
    let member_name = format!("{file}:experiment.json");
    let text = {
        let mut member = zip.by_name("experiment.json").map_err(|e| {
            fail(
                format!(
                    "{file}: no `experiment.json` in the archive ({e}; it holds {})",
                    super::quoted_list(&names)
                ),
                Some("an Extra-P experiment file is saved by Extra-P 4 (File > Save experiment, or --save-experiment)".into()),
            )
        })?;
        if member.size() > cap {
            return Err(fail(
                format!("{member_name}: {} bytes unpacked, more than errband reads ({cap})", member.size()),
                None,
            ));
        }
        let mut buf = Vec::with_capacity(member.size().min(cap) as usize);
        // The declared size may lie: the cap holds while reading.
        (&mut member)
            .take(cap + 1)
            .read_to_end(&mut buf)
            .map_err(|e| fail(format!("{member_name}: cannot unpack it ({e})"), None))?;
        if buf.len() as u64 > cap {
            return Err(fail(format!("{member_name}: more than {cap} bytes unpacked"), None));
        }
        String::from_utf8(buf).map_err(|e| fail(format!("{member_name}: not UTF-8 text ({e})"), None))?
    };
    read_document(&text, file, &member_name, limits)
        .map_err(|e| e.in_member(member_name.clone(), text.clone()))
}

/// Reads `experiment.json` (`member` names it in messages).
fn read_document(text: &str, file: &str, member: &str, limits: Limits) -> Result<Experiment, DataError> {
    let doc: Document = serde_json::from_str(text)
        .map_err(|e| super::json::syntax(member, text, 0, &e, "Extra-P experiment"))?;
    let num = |n: &Number, path: &str| super::json::number(n, member, 0..0, path, limits);
    let opt = |n: &Option<Number>, path: &str| n.as_ref().map(|n| num(n, path)).transpose();
    let np = doc.parameters.len();
    let mut series = Vec::new();
    let mut rows = 0usize;
    let mut summaries_only = false;
    for (callpath, metrics) in &doc.measurements.0 {
        for (metric, points) in &metrics.0 {
            let mut out = Vec::with_capacity(points.len());
            for (i, p) in points.iter().enumerate() {
                let path = format!("measurements.{callpath:?}.{metric:?}[{i}]");
                if p.coordinate.len() != np {
                    return Err(error(
                        member,
                        0..0,
                        format!(
                            "{path}.coordinate has {} values; the experiment has {np} parameters",
                            p.coordinate.len()
                        ),
                        "",
                        None,
                    ));
                }
                let coords = p
                    .coordinate
                    .iter()
                    .enumerate()
                    .map(|(j, c)| num(c, &format!("{path}.coordinate[{j}]")))
                    .collect::<Result<Vec<_>, _>>()?;
                let values = match &p.values {
                    Some(v) => v
                        .iter()
                        .enumerate()
                        .map(|(j, c)| num(c, &format!("{path}.values[{j}]")))
                        .collect::<Result<Vec<_>, _>>()?,
                    None => {
                        summaries_only = true;
                        Vec::new()
                    }
                };
                rows += values.len().max(1);
                if rows > limits.rows {
                    return Err(error(
                        member,
                        0..0,
                        format!("{file} has too many measurements {}", Limit::Rows.note(&limits)),
                        "",
                        None,
                    ));
                }
                out.push(SeriesPoint {
                    coords,
                    values: values.into(),
                    summary: Summary {
                        mean: opt(&p.mean, &format!("{path}.mean"))?,
                        median: opt(&p.median, &format!("{path}.median"))?,
                        minimum: opt(&p.minimum, &format!("{path}.minimum"))?,
                        maximum: opt(&p.maximum, &format!("{path}.maximum"))?,
                        repetitions: p.repetitions,
                    }
                    .boxed(),
                    line: 0,
                });
            }
            series.push(Series {
                callpath: callpath.clone(),
                metric: metric.clone(),
                unit: None,
                points: out,
                span: 0..0,
            });
        }
    }
    let mut warnings = Vec::new();
    if summaries_only {
        warnings.push(format!(
            "{file} stores statistics per point (mean, median, minimum, maximum), not the repetitions: --aggregate all reads the mean"
        ));
    }
    let mut models = Vec::new();
    if let Some(m) = doc.modelers.first() {
        if doc.modelers.len() > 1 {
            warnings.push(format!(
                "{file} holds {} model sets; the models are those of the first, `{}`",
                doc.modelers.len(),
                m.name.as_deref().unwrap_or("")
            ));
        }
        for (callpath, metrics) in &m.models.0 {
            for (metric, model) in &metrics.0 {
                let path = format!("modelers[0].models.{callpath:?}.{metric:?}");
                match stored_hypothesis(model, &doc.parameters, &path, limits) {
                    Ok(h) => models.push(h.stored(callpath, metric)),
                    // The series is still analysed from its measurements.
                    Err((at, why)) => warnings.push(format!(
                        "{member}: the stored model of `{callpath} / {metric}` is not read: {at}: {why}"
                    )),
                }
            }
        }
    }
    Ok(Experiment {
        file: file.to_string(),
        format: Format::ExtrapArchive,
        params: doc.parameters,
        params_span: 0..0,
        series,
        models,
        warnings,
    })
}

/// Why a stored model is not read: its JSON path and what is wrong there.
type NotRead = (String, String);

/// A JSON number's exact value; `path` names it.
fn json_number(v: Option<&Value>, path: &str, limits: Limits) -> Result<Rat, NotRead> {
    match v {
        Some(Value::Number(n)) => crate::num::parse_rat_with(&n.to_string(), limits)
            .map_err(|e| (path.to_string(), format!("the number {n} is not read ({e})"))),
        Some(other) => Err((path.to_string(), format!("expected a number, found {}", kind_of(other)))),
        None => Err((path.to_string(), "missing".into())),
    }
}

/// An exponent: a JSON number, or a string holding a fraction or a decimal
/// (`"3/2"`, `"-1"`, `"0.5"`) and nothing else; its numerator and
/// denominator are held to `--max-exponent`.
fn exponent(v: Option<&Value>, path: &str, limits: Limits) -> Result<Rat, NotRead> {
    let e = match v {
        Some(Value::String(t)) => {
            let t = t.trim();
            let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            let body = t.strip_prefix('-').unwrap_or(t);
            let plain = match body.split_once('/') {
                Some((n, d)) => digits(n) && digits(d),
                None => match body.split_once('.') {
                    Some((i, f)) => digits(i) && digits(f),
                    None => digits(body),
                },
            };
            if !plain {
                return Err((path.to_string(), format!("the exponent {t:?} is not a number or a fraction")));
            }
            crate::num::parse_rat_with(t, limits)
                .map_err(|e| (path.to_string(), format!("the exponent {t:?} is not read ({e})")))?
        }
        other => json_number(other, path, limits)?,
    };
    let too_big = |x: &num_bigint::BigInt| {
        x.bits() > 64 || num_traits::Signed::abs(x) > num_bigint::BigInt::from(limits.exponent)
    };
    if too_big(e.numer()) || too_big(e.denom()) {
        return Err((
            path.to_string(),
            format!(
                "the exponent {} is larger than --max-exponent {} allows",
                crate::num::fmt_fraction(&e),
                limits.exponent
            ),
        ));
    }
    Ok(e)
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// The factors of Extra-P's simple terms of `var` at `path`.
fn simple_terms(v: Option<&Value>, var: &str, path: &str, limits: Limits) -> Result<Vec<Factor>, NotRead> {
    let Some(v) = v else { return Ok(Vec::new()) };
    let list =
        v.as_array().ok_or_else(|| (path.to_string(), format!("expected a list, found {}", kind_of(v))))?;
    list.iter()
        .enumerate()
        .map(|(i, t)| {
            let at = format!("{path}[{i}]");
            let e = exponent(t.get("exponent"), &format!("{at}.exponent"), limits)?;
            match t.get("term_type").and_then(Value::as_str) {
                // A zero power is 1, as Extra-P's printed models read.
                _ if e.is_zero() => Ok(None),
                Some("polynomial") => Ok(Some(Factor::Power(var.to_string(), e))),
                Some("logarithm") => Ok(Some(Factor::Log(var.to_string(), e))),
                other => Err((
                    format!("{at}.term_type"),
                    format!("the term type {other:?} is not one errband reads"),
                )),
            }
        })
        .filter_map(Result::transpose)
        .collect()
}

/// Extra-P's stored model at `path` as a hypothesis, read as data: every
/// coefficient and exponent a number (or a fraction), every parameter one
/// of the experiment's. Nothing of the file becomes model text: the model
/// is built from these values by the model layer, and
/// its shown form is printed from them.
fn stored_hypothesis(
    model: &Value,
    params: &[String],
    path: &str,
    limits: Limits,
) -> Result<Hypothesis, NotRead> {
    let fpath = format!("{path}.hypothesis.function");
    let f = model
        .get("hypothesis")
        .and_then(|h| h.get("function"))
        .ok_or_else(|| (fpath.clone(), "missing".to_string()))?;
    let kind = f.get("$type").and_then(Value::as_str).unwrap_or("");
    if kind.contains("Segmented") {
        return Err((fpath, "Extra-P's segmented models are not read".into()));
    }
    let mut terms = Vec::new();
    // A missing constant is Extra-P's zero constant (it omits it).
    let constant = match f.get("constant_coefficient") {
        None => Rat::zero(),
        c => json_number(c, &format!("{fpath}.constant_coefficient"), limits)?,
    };
    terms.push(Term { coefficient: constant, factors: vec![] });
    let cts = match f.get("compound_terms") {
        None => Vec::new(),
        Some(Value::Array(a)) => a.clone(),
        Some(other) => {
            return Err((
                format!("{fpath}.compound_terms"),
                format!("expected a list, found {}", kind_of(other)),
            ))
        }
    };
    for (i, ct) in cts.iter().enumerate() {
        let at = format!("{fpath}.compound_terms[{i}]");
        let mut coefficient = json_number(ct.get("coefficient"), &format!("{at}.coefficient"), limits)?;
        let mut factors = Vec::new();
        match ct.get("parameter_term_pairs") {
            Some(Value::Object(pairs)) => {
                // Multi-parameter: parameter index -> compound term of that parameter.
                for (k, sub) in pairs {
                    let sp = format!("{at}.parameter_term_pairs.{k:?}");
                    let var = k
                        .parse::<usize>()
                        .ok()
                        .and_then(|i| params.get(i))
                        .ok_or_else(|| (sp.clone(), format!("no parameter {k:?} in the experiment")))?;
                    if let Some(c) = sub.get("coefficient") {
                        coefficient *= json_number(Some(c), &format!("{sp}.coefficient"), limits)?;
                    }
                    factors.extend(simple_terms(
                        sub.get("simple_terms"),
                        var,
                        &format!("{sp}.simple_terms"),
                        limits,
                    )?);
                }
            }
            Some(other) => {
                return Err((
                    format!("{at}.parameter_term_pairs"),
                    format!("expected an object, found {}", kind_of(other)),
                ))
            }
            None => {
                let var = params
                    .first()
                    .ok_or_else(|| (at.clone(), "the experiment has no parameter".to_string()))?;
                factors.extend(simple_terms(
                    ct.get("simple_terms"),
                    var,
                    &format!("{at}.simple_terms"),
                    limits,
                )?);
            }
        }
        terms.push(Term { coefficient, factors });
    }
    let original = extrap_text(&terms);
    Ok(Hypothesis { terms, original })
}

/// A hypothesis in Extra-P's default format, printed from its exact values.
fn extrap_text(terms: &[Term]) -> String {
    let power = |base: String, e: &Rat| format!("{base}^({})", crate::num::fmt_fraction(e));
    terms
        .iter()
        .map(|t| {
            let mut parts = vec![crate::num::show_value(&t.coefficient)];
            for f in &t.factors {
                parts.push(match f {
                    Factor::Power(v, e) => power(v.clone(), e),
                    Factor::Log(v, e) => power(format!("log2({v})"), e),
                });
            }
            parts.join(" * ")
        })
        .collect::<Vec<_>>()
        .join(" + ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::parse_rat;
    use std::io::Write;

    const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/extrap-data/tests/data");

    fn read(path: &str) -> Result<Experiment, DataError> {
        read_extrap_archive(&std::fs::read(path).unwrap(), "e.extra-p", Limits::default())
    }

    #[test]
    fn extrap_experiment_files_read_with_their_models() {
        let e = read(&format!("{DATA}/experiments/two_parameter3.txt.extra-p")).unwrap();
        assert_eq!(e.params, ["x", "y"]);
        assert_eq!(e.series.len(), 4);
        let p = &e.series[0].points[0];
        assert_eq!(p.summary().median, Some(parse_rat("1.0003031166379763").unwrap()));
        assert_eq!(p.summary().repetitions, Some(5));
        assert!(p.values.is_empty());
        let m = &e.models[0];
        assert_eq!((m.callpath.as_str(), m.metric.as_str()), ("merge", "time"));
        assert_eq!(m.form, "c0 + c1*log2(y) + c2*x^(3/2)*log2(x)^2*log2(y)");
        assert_eq!(m.coefficients[1].1, parse_rat("6.698080399955742").unwrap());
        let e = read(&format!("{DATA}/input/exp_only_mean_median.extra-p")).unwrap();
        assert!(e.series[0].points[0].summary().mean.is_some());
        assert!(e.warnings.iter().any(|w| w.contains("statistics per point")), "{:?}", e.warnings);
        let rl = read(concat!(env!("CARGO_MANIFEST_DIR"), "/data/extrap/relearn.extra-p")).unwrap();
        assert_eq!((rl.series.len(), rl.models.len()), (14, 14));
    }

    #[test]
    fn summaries_are_read_exactly_and_extrap3_binaries_refused() {
        let e = read(&format!("{DATA}/input/exp_only_mean_median.extra-p")).unwrap();
        assert_eq!(e.params, ["x", "y"]);
        assert_eq!(e.series.len(), 4);
        let s = &e.series[0];
        assert_eq!((s.callpath.as_str(), s.metric.as_str()), ("merge", "time"));
        let p = &s.points[0];
        let r = |t: &str| Some(parse_rat(t).unwrap());
        assert_eq!(p.coords, [parse_rat("20").unwrap(), parse_rat("1").unwrap()]);
        assert_eq!(p.summary().mean, r("0.998632604831951"));
        assert_eq!(p.summary().median, r("1.0003031166379763"));
        assert_eq!(p.summary().minimum, r("0.9814784961141532"));
        assert_eq!(p.summary().maximum, r("1.0146314163801136"));
        assert_eq!(p.summary().repetitions, None);
        assert!(p.values.is_empty());
        assert_eq!(e.models.len(), 4);
        for name in ["experiment_3", "experiment_3_mp", "experiment_3_sparse"] {
            let e = read(&format!("{DATA}/input/{name}")).unwrap_err();
            assert!(e.diagnostic.message.contains("Extra-P 3 binary"), "{}", e.diagnostic.message);
            assert!(e.diagnostic.help.as_deref().unwrap_or("").contains("Extra-P 4"), "{name}");
        }
    }

    /// An `.extra-p` archive of one series over `p` whose stored model has
    /// this exponent.
    fn with_exponent(exponent: &str) -> Vec<u8> {
        let doc = format!(
            r#"{{"parameters": ["p"], "measurements": {{"main": {{"time": [{{"coordinate": [2], "values": [1.5]}}, {{"coordinate": [4], "values": [2]}}, {{"coordinate": [8], "values": [3]}}]}}}},
 "modelers": [{{"name": "d", "models": {{"main": {{"time": {{"hypothesis": {{"function": {{"constant_coefficient": 1.5, "$type": "SingleParameterFunction",
   "compound_terms": [{{"coefficient": 2.0, "simple_terms": [{{"term_type": "polynomial", "exponent": {exponent}}}]}}]}}}}}}}}}}}}]}}"#
        );
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        w.start_file("experiment.json", zip::write::SimpleFileOptions::default()).unwrap();
        w.write_all(doc.as_bytes()).unwrap();
        w.finish().unwrap().into_inner()
    }

    #[test]
    fn stored_models_are_data_and_text_in_them_is_not_read() {
        let read = |e: &str| read_extrap_archive(&with_exponent(e), "x.extra-p", Limits::default()).unwrap();
        for (exponent, form) in
            [("\"3/2\"", "c0 + c1*p^(3/2)"), ("-1", "c0 + c1*p^(-1)"), ("\"0.5\"", "c0 + c1*p^(1/2)")]
        {
            let e = read(exponent);
            assert_eq!(e.models[0].form, form, "{exponent}");
        }
        // Model text pasted into an exponent: not read, the path named, the
        // series still there to be analysed from its measurements.
        for bad in ["\"-1) + 5*p^(2\"", "\"2 * q\"", "\"1e400\"", "[2]", "\"99999999/1\""] {
            let e = read(bad);
            assert!(e.models.is_empty(), "{bad}: {:?}", e.models);
            assert_eq!(e.series.len(), 1);
            let w = e
                .warnings
                .iter()
                .find(|w| w.contains("not read"))
                .unwrap_or_else(|| panic!("{bad}: {:?}", e.warnings));
            assert!(w.contains("compound_terms[0].simple_terms[0].exponent"), "{w}");
        }
    }

    #[test]
    fn broken_archives_are_refused_not_panicked_on() {
        let bytes = std::fs::read(format!("{DATA}/experiments/two_parameter3.txt.extra-p")).unwrap();
        for cut in [0, 4, 30, bytes.len() / 2, bytes.len() - 1] {
            assert!(
                read_extrap_archive(&bytes[..cut], "e.extra-p", Limits::default()).is_err(),
                "cut at {cut}"
            );
        }
        for i in (0..bytes.len()).step_by(97) {
            let mut b = bytes.clone();
            b[i] ^= 0x5a;
            let _ = read_extrap_archive(&b, "e.extra-p", Limits::default());
        }
        // A zip without experiment.json, and one whose member is not JSON.
        let zip_of = |name: &str, content: &[u8]| {
            let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
            w.start_file(name, zip::write::SimpleFileOptions::default()).unwrap();
            w.write_all(content).unwrap();
            w.finish().unwrap().into_inner()
        };
        // A member whose header claims 4 GiB is refused before reading.
        let mut z = zip_of("experiment.json", b"{}");
        let cd = z.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
        z[22..26].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
        z[cd + 24..cd + 28].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
        let e = read_capped(&z, "e.extra-p", Limits::default(), 1 << 20).unwrap_err();
        assert!(e.diagnostic.message.contains("more than errband reads"), "{}", e.diagnostic.message);
        let e = read_extrap_archive(&zip_of("other.txt", b"x"), "e.extra-p", Limits::default()).unwrap_err();
        assert!(e.diagnostic.message.contains("no `experiment.json`"), "{}", e.diagnostic.message);
        let e = read_extrap_archive(
            &zip_of("experiment.json", b"{\"parameters\": [\"x\"],\n \"measurements\": 3}"),
            "e.extra-p",
            Limits::default(),
        )
        .unwrap_err();
        assert_eq!(e.diagnostic.file, "e.extra-p:experiment.json");
        assert!(e.source.is_some(), "rendered against the member's text");
        // A member that unpacks beyond the cap is refused while reading.
        let big = vec![b' '; 2 << 20];
        let z = zip_of("experiment.json", &big);
        assert!(z.len() < 64 << 10, "compresses well");
        let e = read_capped(&z, "e.extra-p", Limits::default(), 1 << 20).unwrap_err();
        assert!(e.diagnostic.message.contains("bytes unpacked"), "{}", e.diagnostic.message);
    }
}
