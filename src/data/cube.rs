//! Score-P CUBE profiles (`profile.cubex`), and sets of them in a
//! directory, one subdirectory per run, as Extra-P reads them.
//!
//! A `.cubex` file is a tar archive (read with the `tar` crate) of
//! `anchor.xml` (the metrics, the call tree and the system tree; read with
//! `quick-xml`, gunzipped with `flate2` when compressed) and, per metric
//! with data, `N.index` (which call-tree nodes have values, and the byte
//! order) and `N.data` (the values, one per node and location, raw or as
//! zlib blocks behind `ZCUBEX.DATA`).
//!
//! Values become exact rationals: integers as they are, doubles as the
//! binary fractions they are (no decimal round trip). Like Extra-P, a
//! callpath is named by its regions joined with `->`, values are exclusive
//! (an inclusive metric's children are subtracted), every location's value
//! is a repetition (Extra-P's default, weak scaling), and the parameters
//! are read from the run directories' names (`mm.x1000y1z1.r1`: x = 1000,
//! y = 1, z = 1, repetition 1), dropping those that never change.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use num_bigint::BigInt;
use num_traits::Zero;
use quick_xml::events::{BytesStart, Event};

use super::experiment::{Experiment, Format, Series, SeriesPoint, Summary};
use super::{error, DataError, Rat};
use crate::limits::{Limit, Limits};

/// The largest member of a profile read (declared and actual size).
pub const MAX_MEMBER_BYTES: u64 = 1 << 30;

/// A metric of a profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CubeMetric {
    /// Its unique name (`time`, `visits`).
    pub name: String,
    /// Its unit (`sec`, `occ`).
    pub unit: String,
    /// Values per callpath (in [`CubeProfile::callpaths`] order), one per location.
    pub values: Vec<Vec<Rat>>,
}

/// One profile: callpaths, and the exclusive values of each metric with data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CubeProfile {
    /// Callpaths (`main->mat_mul`), in call-tree order.
    pub callpaths: Vec<String>,
    /// Locations (threads or processes) the values are per.
    pub locations: usize,
    /// Metrics with data of a type errband reads.
    pub metrics: Vec<CubeMetric>,
    /// What was skipped and why.
    pub warnings: Vec<String>,
}

struct MetricDef {
    id: usize,
    name: String,
    unit: String,
    dtype: String,
    inclusive: bool,
}

struct CNode {
    id: usize,
    callee: usize,
    parent: Option<usize>,
}

/// Everything `anchor.xml` says that errband uses.
struct Anchor {
    metrics: Vec<MetricDef>,
    regions: HashMap<usize, String>,
    cnodes: Vec<CNode>,
    locations: usize,
}

fn attr(e: &BytesStart<'_>, key: &str) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| a.key.as_ref() == key)
        .and_then(|a| a.normalized_value(quick_xml::XmlVersion::default()).ok().map(|v| v.into_owned()))
}

fn parse_anchor(xml: &str, file: &str) -> Result<Anchor, DataError> {
    let fail = |m: String| error(file, 0..0, m, "", None);
    let mut r = quick_xml::Reader::from_str(xml);
    let mut a = Anchor { metrics: Vec::new(), regions: HashMap::new(), cnodes: Vec::new(), locations: 0 };
    let mut stack: Vec<String> = Vec::new();
    let mut cnode_stack: Vec<usize> = Vec::new();
    let mut metric: Option<MetricDef> = None;
    let mut region: Option<(usize, String)> = None;
    let mut text = String::new();
    let num = |s: Option<String>, what: &str| -> Result<usize, DataError> {
        s.as_deref()
            .and_then(|v| v.trim().parse().ok())
            .ok_or_else(|| fail(format!("anchor.xml: {what} without a valid id")))
    };
    loop {
        let ev = r.read_event().map_err(|e| {
            fail(format!("anchor.xml: not well-formed XML at byte {} ({e})", r.buffer_position()))
        })?;
        match ev {
            Event::Eof => break,
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(ev, Event::Empty(_));
                let name = e.name().as_ref().to_string();
                text.clear();
                match name.as_str() {
                    "metric" => {
                        metric = Some(MetricDef {
                            id: num(attr(e, "id"), "a metric")?,
                            name: String::new(),
                            unit: String::new(),
                            dtype: String::new(),
                            inclusive: attr(e, "type").is_none_or(|t| t != "EXCLUSIVE"),
                        })
                    }
                    "region" => region = Some((num(attr(e, "id"), "a region")?, String::new())),
                    "cnode" => {
                        let id = num(attr(e, "id"), "a call-tree node")?;
                        let callee = num(attr(e, "calleeId"), "a call-tree node's callee")?;
                        a.cnodes.push(CNode { id, callee, parent: cnode_stack.last().copied() });
                        if !empty {
                            cnode_stack.push(id);
                        }
                    }
                    "location" => a.locations += 1,
                    _ => {}
                }
                if !empty {
                    stack.push(name);
                }
            }
            Event::Text(t) => text.push_str(&t.xml10_content()),
            Event::GeneralRef(r) => {
                // `&lt;` in C++ names (`std::vector&lt;int&gt;`), or `&#38;`.
                if let Ok(Some(c)) = r.resolve_char_ref() {
                    text.push(c);
                } else if let Some(v) = quick_xml::escape::resolve_predefined_entity(&r.xml10_content()) {
                    text.push_str(v);
                }
            }
            Event::End(e) => {
                let parent = stack.iter().rev().nth(1).map(String::as_str);
                let t = text.trim().to_string();
                match (e.name().as_ref(), parent) {
                    ("uniq_name", Some("metric")) => {
                        if let Some(m) = metric.as_mut() {
                            m.name = t;
                        }
                    }
                    ("uom", Some("metric")) => {
                        if let Some(m) = metric.as_mut() {
                            m.unit = t;
                        }
                    }
                    ("dtype", Some("metric")) => {
                        if let Some(m) = metric.as_mut() {
                            m.dtype = t;
                        }
                    }
                    ("name", Some("region")) => {
                        if let Some(g) = region.as_mut() {
                            g.1 = t;
                        }
                    }
                    _ => {}
                }
                text.clear();
                match e.name().as_ref() {
                    "metric" => {
                        if let Some(m) = metric.take() {
                            a.metrics.push(m);
                        }
                    }
                    "region" => {
                        if let Some((id, name)) = region.take() {
                            a.regions.insert(id, name);
                        }
                    }
                    "cnode" => {
                        cnode_stack.pop();
                    }
                    _ => {}
                }
                stack.pop();
            }
            _ => {}
        }
    }
    if a.cnodes.is_empty() {
        return Err(fail("anchor.xml: no call tree (no cnode)".into()));
    }
    Ok(a)
}

/// An IEEE double as the exact binary fraction it is.
fn exact_f64(x: f64) -> Option<Rat> {
    if !x.is_finite() {
        return None;
    }
    let bits = x.to_bits();
    let sign = if bits >> 63 == 1 { -1 } else { 1 };
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1u64 << 52) - 1);
    let (m, e) = if exp == 0 { (frac, -1074) } else { (frac | (1u64 << 52), exp - 1075) };
    let m = Rat::from_integer(BigInt::from(m) * sign);
    let two = BigInt::from(2);
    Some(if e >= 0 {
        m * Rat::from_integer(two.pow(e as u32))
    } else {
        m / Rat::from_integer(two.pow((-e) as u32))
    })
}

/// The values of a `.data` member as exact rationals (`None`: a type
/// errband does not read).
fn decode_values(raw: &[u8], dtype: &str, little: bool) -> Option<Result<Vec<Rat>, String>> {
    let width = match dtype {
        "DOUBLE" | "MINDOUBLE" | "MAXDOUBLE" | "FLOAT" | "UINT64" | "INT64" | "INTEGER"
        | "UNSIGNED INTEGER" | "SIGNED INTEGER" => 8,
        "UINT32" | "INT32" | "INT" | "UNSIGNED INT" | "SIGNED INT" => 4,
        "UINT16" | "INT16" | "SHORT INT" | "SIGNED SHORT INT" | "UNSIGNED SHORT INT" => 2,
        "UINT8" | "INT8" | "CHAR" => 1,
        _ => return None,
    };
    if raw.len() % width != 0 {
        return Some(Err(format!("{} bytes are not a whole number of {width}-byte values", raw.len())));
    }
    let mut out = Vec::with_capacity(raw.len() / width);
    for c in raw.chunks_exact(width) {
        let mut b = [0u8; 8];
        if little {
            b[..width].copy_from_slice(c);
        } else {
            for (i, x) in c.iter().rev().enumerate() {
                b[i] = *x;
            }
        }
        let u = u64::from_le_bytes(b);
        let signed = |bits: u32| -> i64 { ((u << (64 - bits)) as i64) >> (64 - bits) };
        let v = match dtype {
            "DOUBLE" | "MINDOUBLE" | "MAXDOUBLE" | "FLOAT" => match exact_f64(f64::from_bits(u)) {
                Some(v) => v,
                None => return Some(Err("a value is not a finite number".into())),
            },
            "INT64" | "INTEGER" | "SIGNED INTEGER" | "INT32" | "INT" | "SIGNED INT" | "INT16"
            | "SHORT INT" | "SIGNED SHORT INT" | "INT8" => {
                Rat::from_integer(BigInt::from(signed(8 * width as u32)))
            }
            _ => Rat::from_integer(BigInt::from(u)),
        };
        out.push(v);
    }
    Some(Ok(out))
}

/// The `.index` member: byte order and the call-tree nodes with values.
fn parse_index(b: &[u8]) -> Result<(bool, Vec<usize>), String> {
    let rest = b.strip_prefix(b"CUBEX.INDEX").ok_or("no CUBEX.INDEX header")?;
    if rest.len() < 11 {
        return Err("truncated header".into());
    }
    let one = [rest[0], rest[1], rest[2], rest[3]];
    let little = u32::from_le_bytes(one) == 1;
    let u32_at = |s: &[u8]| {
        let a = [s[0], s[1], s[2], s[3]];
        if little {
            u32::from_le_bytes(a)
        } else {
            u32::from_be_bytes(a)
        }
    };
    // 4 bytes of byte order, 2 of version, 1 of index type, 4 of count.
    let n = u32_at(&rest[7..11]) as usize;
    let body = &rest[11..];
    if body.len() != 4 * n {
        return Err(format!("{} bytes for {n} node ids", body.len()));
    }
    Ok((little, body.chunks_exact(4).map(|c| u32_at(c) as usize).collect()))
}

/// The bytes of a `.data` member after its header, unpacked when compressed.
fn data_bytes(b: &[u8], little: bool, cap: u64) -> Result<Vec<u8>, String> {
    if let Some(raw) = b.strip_prefix(b"CUBEX.DATA") {
        return Ok(raw.to_vec());
    }
    let z = b.strip_prefix(b"ZCUBEX.DATA").ok_or("no CUBEX.DATA header")?;
    let i64_at = |s: &[u8]| -> Option<u64> {
        let a: [u8; 8] = s.get(..8)?.try_into().ok()?;
        Some(if little { u64::from_le_bytes(a) } else { u64::from_be_bytes(a) })
    };
    let n = i64_at(z).ok_or("truncated block count")? as usize;
    let headers =
        z.get(8..8 + n.checked_mul(24).ok_or("block count overflows")?).ok_or("truncated block table")?;
    let mut pos = 8 + 24 * n;
    let mut out = Vec::new();
    for h in headers.chunks_exact(24) {
        let size = i64_at(&h[16..]).ok_or("truncated block table")? as usize;
        if size == 0 {
            continue;
        }
        let block =
            z.get(pos..pos.checked_add(size).ok_or("block size overflows")?).ok_or("truncated block")?;
        pos += size;
        let mut d = flate2::read::ZlibDecoder::new(block).take(cap.saturating_sub(out.len() as u64) + 1);
        d.read_to_end(&mut out).map_err(|e| format!("a compressed block does not unpack ({e})"))?;
        if out.len() as u64 > cap {
            return Err(format!("more than {cap} bytes unpacked"));
        }
    }
    Ok(out)
}

/// Reads one profile (`file` names it in messages).
pub fn read_cube_profile(bytes: &[u8], file: &str, limits: Limits) -> Result<CubeProfile, DataError> {
    read_profile_capped(bytes, file, limits, MAX_MEMBER_BYTES)
}

fn read_profile_capped(bytes: &[u8], file: &str, limits: Limits, cap: u64) -> Result<CubeProfile, DataError> {
    let fail = |m: String| error(file, 0..0, m, "", None);
    let mut members: HashMap<String, Vec<u8>> = HashMap::new();
    let mut archive = tar::Archive::new(bytes);
    let entries = archive.entries().map_err(|e| fail(format!("{file}: not a readable tar archive ({e})")))?;
    let mut total: u64 = 0;
    for entry in entries {
        let mut entry = entry.map_err(|e| fail(format!("{file}: a damaged tar entry ({e})")))?;
        let name = entry.path().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
        let size = entry.header().size().unwrap_or(u64::MAX);
        total = total.saturating_add(size);
        if size > cap || total > cap {
            return Err(fail(format!("{file}:{name}: {size} bytes, more than errband reads ({cap} in all)")));
        }
        let mut buf = Vec::with_capacity(size as usize);
        (&mut entry)
            .take(cap + 1)
            .read_to_end(&mut buf)
            .map_err(|e| fail(format!("{file}:{name}: cannot read it ({e})")))?;
        members.insert(name, buf);
    }
    let anchor = members.get("anchor.xml").ok_or_else(|| {
        fail(format!("{file}: no anchor.xml in the archive; a CUBE profile is Score-P's profile.cubex"))
    })?;
    let xml = if anchor.starts_with(&[0x1f, 0x8b]) {
        let mut s = String::new();
        flate2::read::GzDecoder::new(anchor.as_slice())
            .take(cap + 1)
            .read_to_string(&mut s)
            .map_err(|e| fail(format!("{file}:anchor.xml: cannot unpack it ({e})")))?;
        s
    } else {
        String::from_utf8(anchor.clone()).map_err(|e| fail(format!("{file}:anchor.xml: not UTF-8 ({e})")))?
    };
    let a = parse_anchor(&xml, &format!("{file}:anchor.xml"))?;
    // Callpath names and the tree, in call-tree order.
    let pos: HashMap<usize, usize> = a.cnodes.iter().enumerate().map(|(i, c)| (c.id, i)).collect();
    let mut names: Vec<String> = Vec::with_capacity(a.cnodes.len());
    for c in &a.cnodes {
        let region = a.regions.get(&c.callee).cloned().unwrap_or_else(|| format!("region {}", c.callee));
        let name = match c.parent.and_then(|p| pos.get(&p)) {
            Some(&p) => format!("{}->{region}", names[p]),
            None => region,
        };
        names.push(name);
    }
    let locations = a.locations.max(1);
    let mut metrics = Vec::new();
    let mut warnings = Vec::new();
    for m in &a.metrics {
        let (Some(index), Some(data)) =
            (members.get(&format!("{}.index", m.id)), members.get(&format!("{}.data", m.id)))
        else {
            continue; // no data: Extra-P skips such metrics too
        };
        let member = |what: &str, why: String| fail(format!("{file}:{}.{what}: {why}", m.id));
        let (little, ids) = parse_index(index).map_err(|e| member("index", e))?;
        let raw = data_bytes(data, little, cap).map_err(|e| member("data", e))?;
        let Some(values) = decode_values(&raw, &m.dtype, little) else {
            warnings.push(format!(
                "metric `{}` has values of type {}, which errband does not read",
                m.name, m.dtype
            ));
            continue;
        };
        let values = values.map_err(|e| member("data", e))?;
        if values.len() != ids.len() * locations {
            return Err(member(
                "data",
                format!("{} values for {} call-tree nodes at {locations} locations", values.len(), ids.len()),
            ));
        }
        if values.len() > limits.rows {
            return Err(fail(format!("{file} has too many values {}", Limit::Rows.note(&limits))));
        }
        let mut per: Vec<Vec<Rat>> = vec![vec![Rat::zero(); locations]; a.cnodes.len()];
        for (k, id) in ids.iter().enumerate() {
            let Some(&i) = pos.get(id) else {
                return Err(member("index", format!("node {id} is not in the call tree")));
            };
            per[i] = values[k * locations..(k + 1) * locations].to_vec();
        }
        if m.inclusive {
            // Exclusive = inclusive minus the children's inclusive values.
            let incl = per.clone();
            for (c, node) in a.cnodes.iter().enumerate() {
                if let Some(&p) = node.parent.and_then(|p| pos.get(&p)) {
                    for (l, v) in incl[c].iter().enumerate() {
                        per[p][l] -= v;
                    }
                }
            }
        }
        metrics.push(CubeMetric { name: m.name.clone(), unit: m.unit.clone(), values: per });
    }
    Ok(CubeProfile { callpaths: names, locations, metrics, warnings })
}

/// Parameter names and values from a run directory's name, as Extra-P
/// reads them: after the first `.`, up to `.r` (the repetition), letters
/// name and numbers give the values (`x1000y1z1`).
fn params_of(dir: &str) -> Option<Vec<(String, String)>> {
    let start = dir.find('.').map_or(0, |i| i + 1);
    let end = dir.find(".r").filter(|&e| e >= start).unwrap_or(dir.len());
    let s = &dir[start..end];
    let mut out = Vec::new();
    let mut name = String::new();
    let mut value = String::new();
    for c in s.chars() {
        if c.is_ascii_digit() || c == '.' || c == ',' {
            value.push(c);
        } else {
            if !value.is_empty() {
                out.push((std::mem::take(&mut name), std::mem::take(&mut value)));
            }
            name.push(c);
        }
    }
    if !value.is_empty() {
        out.push((name, value));
    }
    (!out.is_empty()).then_some(out)
}

/// Reads every `*/profile.cubex` (any `.cubex`) under `dir`, one
/// subdirectory per run.
pub fn read_cube_set(dir: &Path, file: &str, limits: Limits) -> Result<Experiment, DataError> {
    let fail = |m: String, help: Option<String>| error(file, 0..0, m, "", help);
    let mut runs: Vec<(String, PathBuf)> = Vec::new();
    let list =
        std::fs::read_dir(dir).map_err(|e| fail(format!("cannot read the directory {file} ({e})"), None))?;
    for sub in list.flatten() {
        let p = sub.path();
        if !p.is_dir() {
            continue;
        }
        let Ok(inner) = std::fs::read_dir(&p) else { continue };
        for f in inner.flatten() {
            let fp = f.path();
            let name = f.file_name().to_string_lossy().into_owned();
            if fp.extension().is_some_and(|x| x == "cubex") && !name.starts_with('.') {
                runs.push((sub.file_name().to_string_lossy().into_owned(), fp));
            }
        }
    }
    if runs.is_empty() {
        return Err(fail(
            format!("{file}: no CUBE profiles (`RUN/profile.cubex`) in its subdirectories"),
            Some("give the directory that holds one subdirectory per run, named with the parameters: `mm.x1000y1z1.r1/profile.cubex`".into()),
        ));
    }
    runs.sort();
    // Parameters from the names; those that never change are dropped.
    let mut parsed = Vec::with_capacity(runs.len());
    let mut names: Option<Vec<String>> = None;
    for (d, _) in &runs {
        let ps = params_of(d).ok_or_else(|| {
            fail(
                format!("{file}/{d}: no parameters in the directory's name"),
                Some("name each run's directory with its parameters: `NAME.x1000y16.r1` (x = 1000, y = 16, repetition 1)".into()),
            )
        })?;
        let these: Vec<String> = ps.iter().map(|p| p.0.clone()).collect();
        match &names {
            None => names = Some(these),
            Some(n) if *n != these => {
                return Err(fail(
                    format!(
                        "{file}/{d}: parameters {} differ from the first run's {}",
                        these.join(", "),
                        n.join(", ")
                    ),
                    None,
                ))
            }
            _ => {}
        }
        let mut vals = Vec::with_capacity(ps.len());
        for (n, v) in &ps {
            let t = v.replace(',', ".");
            let t = t.trim_end_matches('.');
            vals.push(
                super::parse_number(t, limits)
                    .map_err(|e| fail(format!("{file}/{d}: parameter {n} = `{v}`: {e}"), None))?,
            );
        }
        parsed.push(vals);
    }
    let names = names.unwrap_or_default();
    let varying: Vec<usize> =
        (0..names.len()).filter(|&j| parsed.iter().any(|v| v[j] != parsed[0][j])).collect();
    if varying.is_empty() {
        return Err(fail(
            format!("{file}: every run has the same parameter values; nothing varies to model"),
            None,
        ));
    }
    let params: Vec<String> = varying.iter().map(|&j| names[j].clone()).collect();
    let mut series: Vec<Series> = Vec::new();
    let mut index: HashMap<(String, String), usize> = HashMap::new();
    let mut warnings = Vec::new();
    let mut rows = 0usize;
    for ((d, path), vals) in runs.iter().zip(&parsed) {
        let coords: Vec<Rat> = varying.iter().map(|&j| vals[j].clone()).collect();
        let shown = format!(
            "{file}/{d}/{}",
            path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default()
        );
        let bytes = std::fs::read(path).map_err(|e| fail(format!("cannot read {shown} ({e})"), None))?;
        let prof = read_cube_profile(&bytes, &shown, limits)?;
        for w in prof.warnings {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
        for m in &prof.metrics {
            for (c, cp) in prof.callpaths.iter().enumerate() {
                let key = (cp.clone(), m.name.clone());
                let s = *index.entry(key).or_insert_with(|| {
                    series.push(Series {
                        callpath: cp.clone(),
                        metric: m.name.clone(),
                        unit: (!m.unit.is_empty()).then(|| m.unit.clone()),
                        points: Vec::new(),
                        span: 0..0,
                    });
                    series.len() - 1
                });
                rows += m.values[c].len();
                if rows > limits.rows {
                    return Err(fail(
                        format!("{file} has too many values {}", Limit::Rows.note(&limits)),
                        None,
                    ));
                }
                let pts = &mut series[s].points;
                match pts.iter_mut().find(|p| p.coords == coords) {
                    // Another repetition of the same point.
                    Some(p) => p.values.extend(m.values[c].iter().cloned()),
                    None => pts.push(SeriesPoint {
                        coords: coords.clone(),
                        values: m.values[c].clone(),
                        summary: Summary::default(),
                        line: 0,
                    }),
                }
            }
        }
    }
    let dropped: Vec<&String> =
        (0..names.len()).filter(|j| !varying.contains(j)).map(|j| &names[j]).collect();
    if !dropped.is_empty() {
        warnings.push(format!(
            "parameters {} are the same in every run; like Extra-P, errband leaves them out",
            dropped.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
        ));
    }
    Ok(Experiment {
        file: file.to_string(),
        format: Format::Cube,
        params,
        params_span: 0..0,
        series,
        models: Vec::new(),
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SET: &str =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/extrap-data/tests/data/cubeset/single_parameter");

    #[test]
    fn doubles_are_exact_binary_fractions() {
        assert_eq!(exact_f64(0.5), Some(Rat::new(1.into(), 2.into())));
        assert_eq!(exact_f64(-3.0), Some(Rat::from_integer((-3).into())));
        assert_eq!(exact_f64(0.1), Some(Rat::new(3602879701896397u64.into(), (1u64 << 55).into())));
        assert_eq!(exact_f64(f64::NAN), None);
        assert_eq!(exact_f64(5e-324), Some(Rat::new(1.into(), BigInt::from(2).pow(1074))));
    }

    #[test]
    fn directory_names_give_parameters() {
        assert_eq!(
            params_of("mm.x1000y1z1.r1"),
            Some(vec![("x".into(), "1000".into()), ("y".into(), "1".into()), ("z".into(), "1".into())])
        );
        assert_eq!(
            params_of("app.p16n2,5.r3"),
            Some(vec![("p".into(), "16".into()), ("n".into(), "2,5".into())])
        );
        assert_eq!(params_of("scorep-run"), None);
    }

    #[test]
    fn the_matrix_multiply_set() {
        let e = read_cube_set(Path::new(SET), "single_parameter", Limits::default()).unwrap();
        assert_eq!(e.params, ["x"]);
        assert!(e.warnings.iter().any(|w| w.contains("`y`, `z`")), "{:?}", e.warnings);
        let names: Vec<String> = e.series.iter().map(|s| s.name()).collect();
        assert!(names.contains(&"main->mat_mul / time".to_string()), "{names:?}");
        let s = e.series.iter().find(|s| s.name() == "main->mat_mul / visits").unwrap();
        assert_eq!(s.points.len(), 9);
        assert_eq!(s.unit.as_deref(), Some("occ"));
        // Each run has one location: one value per point; mat_mul is visited once.
        assert!(s.points.iter().all(|p| p.values == vec![Rat::from_integer(1.into())]), "{:?}", s.points);
        // Values checked against pycubexr 2.x (Extra-P's CUBE library) on
        // mm.x1000y1z1.r1: exclusive time of the leaves = their inclusive
        // doubles exactly; main's = its inclusive time minus its callees'.
        let at = |cp: &str, metric: &str| {
            let s = e.series.iter().find(|s| s.callpath == cp && s.metric == metric).unwrap();
            s.points.iter().find(|p| p.coords == vec![Rat::from_integer(1000.into())]).unwrap().values[0]
                .clone()
        };
        let d = |x: f64| exact_f64(x).unwrap();
        assert_eq!(at("main->mat_mul", "time"), d(3.829e-06));
        assert_eq!(at("main->init_mat", "time"), d(1.2865e-05));
        assert_eq!(at("main", "time"), d(3.141e-05) - d(1.2865e-05) - d(2.228e-06) - d(3.829e-06));
        assert!((crate::num::to_f64(&at("main", "time")) - 1.2488e-05).abs() < 1e-18);
        assert_eq!(at("main", "PAPI_FP_OPS"), Rat::from_integer(6.into()), "3925 - 1864 - 0 - 2055");
        assert_eq!(at("main->init_mat", "visits"), Rat::from_integer(2.into()));
        assert!(!names.iter().any(|n| n.contains("bytes_put")), "metrics without data are skipped");
    }

    #[test]
    fn damaged_profiles_are_refused_not_panicked_on() {
        let bytes = std::fs::read(format!("{SET}/mm.x10y1z1.r1/profile.cubex")).unwrap();
        let ok = read_cube_profile(&bytes, "p", Limits::default()).unwrap();
        assert_eq!(ok.callpaths, ["main", "main->init_mat", "main->zero_mat", "main->mat_mul"]);
        for cut in [0, 100, 512, bytes.len() / 2, bytes.len() - 600] {
            let _ = read_cube_profile(&bytes[..cut], "p", Limits::default());
        }
        for i in (0..bytes.len()).step_by(61) {
            let mut b = bytes.clone();
            b[i] ^= 0xa5;
            let _ = read_cube_profile(&b, "p", Limits::default());
        }
        assert!(read_cube_profile(b"not a tar archive at all", "p", Limits::default()).is_err());
        assert!(read_profile_capped(&bytes, "p", Limits::default(), 100).is_err());
        assert!(read_cube_set(
            Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src")),
            "src",
            Limits::default()
        )
        .is_err());
    }
}
