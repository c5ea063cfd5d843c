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
//! Stored models are turned into Extra-P's model string and read by
//! [`crate::model::extrap`], so one grammar serves printed and stored models.

use std::io::Read;

use serde::Deserialize;
use serde_json::{Number, Value};

use super::experiment::{Experiment, Format, Series, SeriesPoint, Summary};
use super::{error, DataError};
use crate::limits::{Limit, Limits};

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
                    values,
                    summary: Summary {
                        mean: opt(&p.mean, &format!("{path}.mean"))?,
                        median: opt(&p.median, &format!("{path}.median"))?,
                        minimum: opt(&p.minimum, &format!("{path}.minimum"))?,
                        maximum: opt(&p.maximum, &format!("{path}.maximum"))?,
                        repetitions: p.repetitions,
                    },
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
                match model_string(model, &doc.parameters) {
                    Ok(original) => match crate::model::extrap::parse(&original, limits) {
                        Ok(h) => models.push(h.stored(callpath, metric)),
                        Err(e) => warnings.push(format!(
                            "the model of `{callpath} / {metric}` ({original}) is not read: {}",
                            e.message
                        )),
                    },
                    Err(why) => {
                        warnings.push(format!("the model of `{callpath} / {metric}` is not read: {why}"))
                    }
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

/// The text of a JSON number or string (an exponent such as `"3/2"`).
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// `var^(e)` or `log2(var)^(e)` from Extra-P's simple term.
fn simple_term(t: &Value, var: &str) -> Result<String, String> {
    let e = t.get("exponent").and_then(scalar).ok_or("a term without an exponent")?;
    match t.get("term_type").and_then(Value::as_str) {
        Some("polynomial") => Ok(format!("{var}^({e})")),
        Some("logarithm") => Ok(format!("log2({var})^({e})")),
        other => Err(format!("the term type {other:?} is not one errband reads")),
    }
}

/// Extra-P's model string (its default format) for a stored model.
fn model_string(model: &Value, params: &[String]) -> Result<String, String> {
    let f = model.get("hypothesis").and_then(|h| h.get("function")).ok_or("no hypothesis")?;
    let kind = f.get("$type").and_then(Value::as_str).unwrap_or("");
    if kind.contains("Segmented") {
        return Err("Extra-P's segmented models are not read".into());
    }
    let mut terms = vec![f.get("constant_coefficient").and_then(scalar).unwrap_or_else(|| "0".into())];
    for ct in f.get("compound_terms").and_then(Value::as_array).into_iter().flatten() {
        let mut factors =
            vec![ct.get("coefficient").and_then(scalar).ok_or("a term without a coefficient")?];
        if let Some(pairs) = ct.get("parameter_term_pairs").and_then(Value::as_object) {
            // Multi-parameter: parameter index -> compound term of that parameter.
            for (k, sub) in pairs {
                let var =
                    k.parse::<usize>().ok().and_then(|i| params.get(i)).ok_or(format!("no parameter {k}"))?;
                if let Some(c) = sub.get("coefficient").and_then(scalar) {
                    factors.push(c);
                }
                for t in sub.get("simple_terms").and_then(Value::as_array).into_iter().flatten() {
                    factors.push(simple_term(t, var)?);
                }
            }
        } else {
            let var = params.first().ok_or("no parameter")?;
            for t in ct.get("simple_terms").and_then(Value::as_array).into_iter().flatten() {
                factors.push(simple_term(t, var)?);
            }
        }
        terms.push(factors.join(" * "));
    }
    Ok(terms.join(" + "))
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
        assert_eq!(p.summary.median, Some(parse_rat("1.0003031166379763").unwrap()));
        assert_eq!(p.summary.repetitions, Some(5));
        assert!(p.values.is_empty());
        let m = &e.models[0];
        assert_eq!((m.callpath.as_str(), m.metric.as_str()), ("merge", "time"));
        assert_eq!(m.form, "c0 + c1*log2(y) + c2*x^(3/2)*log2(x)^2*log2(y)");
        assert_eq!(m.coefficients[1].1, parse_rat("6.698080399955742").unwrap());
        let e = read(&format!("{DATA}/input/exp_only_mean_median.extra-p")).unwrap();
        assert!(e.series[0].points[0].summary.mean.is_some());
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
        assert_eq!(p.summary.mean, r("0.998632604831951"));
        assert_eq!(p.summary.median, r("1.0003031166379763"));
        assert_eq!(p.summary.minimum, r("0.9814784961141532"));
        assert_eq!(p.summary.maximum, r("1.0146314163801136"));
        assert_eq!(p.summary.repetitions, None);
        assert!(p.values.is_empty());
        assert_eq!(e.models.len(), 4);
        for name in ["experiment_3", "experiment_3_mp", "experiment_3_sparse"] {
            let e = read(&format!("{DATA}/input/{name}")).unwrap_err();
            assert!(e.diagnostic.message.contains("Extra-P 3 binary"), "{}", e.diagnostic.message);
            assert!(e.diagnostic.help.as_deref().unwrap_or("").contains("Extra-P 4"), "{name}");
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
