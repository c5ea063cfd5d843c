//! Score-P CUBE profiles (`profile.cubex`), and sets of them in a
//! directory, one subdirectory per run, as Extra-P reads them.
//!
//! A `.cubex` file is a tar archive (read with the `tar` crate) of
//! `anchor.xml` (the metrics, the call tree and the system tree; read with
//! `quick-xml`, gunzipped with `flate2` when compressed) and, per metric
//! with data, `N.index` (which call-tree nodes have values, and the byte
//! order) and `N.data` (the values, one per node and location, raw or as
//! zlib blocks behind `ZCUBEX.DATA`). Rows are not in cnode-id order but
//! in Cube's enumeration for the metric's type (breadth-first by families
//! for inclusive metrics, depth-first for exclusive ones); a sparse index
//! lists positions in that enumeration, a dense one has every node.
//! A node without a row has the value 0 at every location (Extra-P instead
//! leaves it out at that point and merges it into its parent).
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

use super::experiment::{Experiment, Format, Series, SeriesPoint};
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

impl CubeMetric {
    /// Per callpath, the sum over locations (Extra-P's strong scaling; its
    /// default, weak scaling, keeps each location's value as a repetition,
    /// as [`read_cube_set`] does).
    pub fn totals(&self) -> Vec<Rat> {
        self.values.iter().map(|v| v.iter().fold(Rat::zero(), |a, b| a + b)).collect()
    }
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

/// How a metric's values relate along the call tree, and so in which order
/// CUBE stores its rows (`type` in `anchor.xml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MetricKind {
    /// A node's value includes its callees': rows in breadth-first order.
    Inclusive,
    /// A node's own value: rows in depth-first (document) order.
    Exclusive,
    /// Inclusive = exclusive: rows in cnode-id order.
    Simple,
}

struct MetricDef {
    id: usize,
    name: String,
    unit: String,
    dtype: String,
    kind: MetricKind,
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

/// A reader that fails once more than `left` bytes came through: the
/// anchor is unpacked as it is parsed, and a small gzip that inflates to
/// gigabytes is refused at the cap, never held.
struct Capped<R> {
    inner: R,
    left: u64,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.left = self.left.checked_sub(n as u64).ok_or_else(|| std::io::Error::other(OVER_CAP))?;
        Ok(n)
    }
}

/// The error text of [`Capped`], recognised to say which limit it was.
const OVER_CAP: &str = "anchor.xml passes the metadata limit";

/// Reads `anchor.xml` as a stream of XML events from `xml` (unpacked as it
/// goes), held to `limits.metadata` bytes.
fn parse_anchor(xml: impl Read, file: &str, limits: &Limits) -> Result<Anchor, DataError> {
    let fail = |m: String| error(file, 0..0, m, "", None);
    let cap = limits.metadata;
    let mut r = quick_xml::Reader::from_reader(std::io::BufReader::new(Capped { inner: xml, left: cap }));
    let mut buf = Vec::new();
    let mut a = Anchor { metrics: Vec::new(), regions: HashMap::new(), cnodes: Vec::new(), locations: 0 };
    let mut stack: Vec<String> = Vec::new();
    let mut cnode_stack: Vec<usize> = Vec::new();
    let mut cnode_ids = std::collections::HashSet::new();
    // Metrics nest (`time` > `execution` > `mpi`): one open metric per level.
    let mut metric_stack: Vec<MetricDef> = Vec::new();
    let mut region: Option<(usize, String)> = None;
    let mut text = String::new();
    let num = |s: Option<String>, what: &str| -> Result<usize, DataError> {
        s.as_deref()
            .and_then(|v| v.trim().parse().ok())
            .ok_or_else(|| fail(format!("anchor.xml: {what} without a valid id")))
    };
    loop {
        buf.clear();
        let ev = r.read_event_into(&mut buf).map_err(|e| match &e {
            quick_xml::Error::Io(io) if io.to_string() == OVER_CAP => fail(format!(
                "anchor.xml unpacks to more than {} MiB of metadata {}",
                cap >> 20,
                Limit::Metadata.note(limits)
            )),
            // A damaged gzip stream (or a read error) is not bad XML.
            quick_xml::Error::Io(io) => fail(format!("anchor.xml: cannot unpack it ({io})")),
            _ => fail(format!("anchor.xml: not well-formed XML at byte {} ({e})", r.buffer_position())),
        })?;
        match ev {
            Event::Eof => break,
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(ev, Event::Empty(_));
                let name = e.name().as_ref().to_string();
                text.clear();
                match name.as_str() {
                    "metric" => {
                        let kind = match attr(e, "type").as_deref().map(str::trim) {
                            Some("EXCLUSIVE") => MetricKind::Exclusive,
                            Some("SIMPLE") => MetricKind::Simple,
                            _ => MetricKind::Inclusive,
                        };
                        let m = MetricDef {
                            id: num(attr(e, "id"), "a metric")?,
                            name: String::new(),
                            unit: String::new(),
                            dtype: String::new(),
                            kind,
                        };
                        if empty {
                            a.metrics.push(m);
                        } else {
                            metric_stack.push(m);
                        }
                    }
                    "region" => region = Some((num(attr(e, "id"), "a region")?, String::new())),
                    "cnode" => {
                        let id = num(attr(e, "id"), "a call-tree node")?;
                        let callee = num(attr(e, "calleeId"), "a call-tree node's callee")?;
                        if !cnode_ids.insert(id) {
                            return Err(fail(format!("anchor.xml: two call-tree nodes have the id {id}")));
                        }
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
                        if let Some(m) = metric_stack.last_mut() {
                            m.name = t;
                        }
                    }
                    ("uom", Some("metric")) => {
                        if let Some(m) = metric_stack.last_mut() {
                            m.unit = t;
                        }
                    }
                    ("dtype", Some("metric")) => {
                        if let Some(m) = metric_stack.last_mut() {
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
                        if let Some(m) = metric_stack.pop() {
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

/// The bytes of one value of a CUBE data type (`None`: a type errband does
/// not read, such as histograms or TAU atomics).
fn width_of(dtype: &str) -> Option<usize> {
    Some(match dtype.trim() {
        "DOUBLE" | "MINDOUBLE" | "MAXDOUBLE" | "FLOAT" | "UINT64" | "INT64" | "INTEGER"
        | "UNSIGNED INTEGER" | "SIGNED INTEGER" => 8,
        "UINT32" | "INT32" | "INT" | "UNSIGNED INT" | "SIGNED INT" => 4,
        "UINT16" | "INT16" | "SHORT INT" | "SIGNED SHORT INT" | "UNSIGNED SHORT INT" => 2,
        "UINT8" | "INT8" | "CHAR" => 1,
        _ => return None,
    })
}

/// The values of a `.data` member as exact rationals (`None`: a type
/// errband does not read).
fn decode_values(raw: &[u8], dtype: &str, little: bool) -> Option<Result<Vec<Rat>, String>> {
    let width = width_of(dtype)?;
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
        let v = match dtype.trim() {
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

/// Which rows a `.data` member holds, as the `.index` member says.
#[derive(Debug, PartialEq, Eq)]
enum Rows {
    /// One row per call-tree node, in the metric's enumeration order.
    Dense,
    /// Rows for these positions of the metric's enumeration only.
    Sparse(Vec<usize>),
}

/// The `.index` member: byte order and the rows present. Its layout:
/// `CUBEX.INDEX`, a 4-byte 1 (its byte order is the file's), a 2-byte
/// version, a 1-byte format (1 sparse, 3 dense); a sparse index then has a
/// 4-byte count and that many 4-byte row positions.
fn parse_index(b: &[u8], max_rows: usize) -> Result<(bool, Rows), String> {
    let rest = b.strip_prefix(b"CUBEX.INDEX").ok_or("no CUBEX.INDEX header")?;
    let head: [u8; 7] = rest.get(..7).and_then(|h| h.try_into().ok()).ok_or("truncated header")?;
    let little = match [head[0], head[1], head[2], head[3]] {
        [1, 0, 0, 0] => true,
        [0, 0, 0, 1] => false,
        other => return Err(format!("byte-order mark {other:?} is not a 1 in either order")),
    };
    let u32_at = |s: &[u8]| {
        let a = [s[0], s[1], s[2], s[3]];
        if little {
            u32::from_le_bytes(a)
        } else {
            u32::from_be_bytes(a)
        }
    };
    let rest = &rest[7..];
    match head[6] {
        3 => {
            if !rest.is_empty() {
                return Err(format!("a dense index followed by {} more bytes", rest.len()));
            }
            Ok((little, Rows::Dense))
        }
        1 => {
            let count = rest.get(..4).map(u32_at).ok_or("truncated header (no row count)")? as usize;
            let body = &rest[4..];
            if body.len() as u64 != 4 * count as u64 {
                return Err(format!("{} bytes for {count} row positions", body.len()));
            }
            if count > max_rows {
                return Err(format!("{count} rows for a call tree of {max_rows} nodes"));
            }
            Ok((little, Rows::Sparse(body.chunks_exact(4).map(|c| u32_at(c) as usize).collect())))
        }
        f => Err(format!("index format {f} is neither sparse (1) nor dense (3)")),
    }
}

/// The order in which CUBE stores a metric's rows, as positions into
/// `cnodes` (document order, which is depth-first): depth-first for
/// exclusive metrics; for inclusive ones each root, then breadth by
/// families (a node's children, then each child's family in turn); cnode
/// id order for simple ones. This is Cube's "optimal enumeration" (cubew
/// writes rows so, and pycubexr maps them back the same way).
fn enumeration(cnodes: &[CNode], kind: MetricKind) -> Vec<usize> {
    let n = cnodes.len();
    match kind {
        MetricKind::Exclusive => (0..n).collect(),
        MetricKind::Simple => {
            let mut v: Vec<usize> = (0..n).collect();
            v.sort_by_key(|&i| cnodes[i].id);
            v
        }
        MetricKind::Inclusive => {
            let pos: HashMap<usize, usize> = cnodes.iter().enumerate().map(|(i, c)| (c.id, i)).collect();
            let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
            let mut roots = Vec::new();
            for (i, c) in cnodes.iter().enumerate() {
                match c.parent.and_then(|p| pos.get(&p)) {
                    Some(&p) => children[p].push(i),
                    None => roots.push(i),
                }
            }
            let mut out = Vec::with_capacity(n);
            for r in roots {
                out.push(r);
                // An explicit stack: deep trees must not overflow ours.
                let mut stack = vec![r];
                while let Some(node) = stack.pop() {
                    out.extend(&children[node]);
                    stack.extend(children[node].iter().rev());
                }
            }
            out
        }
    }
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
    let table_end = n.checked_mul(24).and_then(|t| t.checked_add(8)).ok_or("block count overflows")?;
    let headers = z.get(8..table_end).ok_or("truncated block table")?;
    let mut pos = table_end;
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
            return Err(format!(
                "unpacks to more than {cap} bytes, more than its index and locations call for"
            ));
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
    // Metadata, held to its own (much smaller) cap while it is unpacked
    // and parsed: never inflated whole.
    let shown = format!("{file}:anchor.xml");
    let a = if anchor.starts_with(&[0x1f, 0x8b]) {
        parse_anchor(flate2::read::GzDecoder::new(anchor.as_slice()), &shown, &limits)
    } else {
        parse_anchor(anchor.as_slice(), &shown, &limits)
    }?;
    // Callpath names and the tree, in call-tree order.
    let pos: HashMap<usize, usize> = a.cnodes.iter().enumerate().map(|(i, c)| (c.id, i)).collect();
    let locations = a.locations.max(1);
    // Every metric read holds a value per node and location: bound that
    // before anything of that size is allocated.
    if a.cnodes.len().saturating_mul(locations) > limits.rows {
        return Err(fail(format!(
            "{file} has {} call-tree nodes at {locations} locations, too many values {}",
            a.cnodes.len(),
            Limit::Rows.note(&limits)
        )));
    }
    // A full callpath repeats its ancestors' names, so a deep tree's names
    // grow with the square of its depth: they are bounded too.
    let mut name_bytes = 0u64;
    let mut names: Vec<String> = Vec::with_capacity(a.cnodes.len());
    for c in &a.cnodes {
        let region = a.regions.get(&c.callee).cloned().unwrap_or_else(|| format!("region {}", c.callee));
        let name = match c.parent.and_then(|p| pos.get(&p)).and_then(|&p| names.get(p)) {
            Some(parent) => {
                name_bytes += (parent.len() + 2 + region.len()) as u64;
                if name_bytes > MAX_MEMBER_BYTES / 4 {
                    return Err(fail(format!(
                        "{file}: the call tree's full callpath names pass {} bytes (a call tree {} nodes deep or more)",
                        MAX_MEMBER_BYTES / 4,
                        parent.matches("->").count() + 1
                    )));
                }
                format!("{parent}->{region}")
            }
            None => region,
        };
        names.push(name);
    }
    let mut metrics = Vec::new();
    let mut warnings = Vec::new();
    for m in &a.metrics {
        let (index, data) =
            match (members.get(&format!("{}.index", m.id)), members.get(&format!("{}.data", m.id))) {
                (Some(i), Some(d)) => (i, d),
                (None, None) => continue, // no data: Extra-P skips such metrics too
                (Some(_), None) | (None, Some(_)) => {
                    let (has, lacks) = if members.contains_key(&format!("{}.index", m.id)) {
                        ("index", "data")
                    } else {
                        ("data", "index")
                    };
                    return Err(fail(format!(
                    "{file}: metric `{}` has {}.{has} but no {}.{lacks} (a truncated or damaged profile?)",
                    m.name, m.id, m.id
                )));
                }
            };
        let member = |what: &str, why: String| fail(format!("{file}:{}.{what}: {why}", m.id));
        let (little, rows) = parse_index(index, a.cnodes.len()).map_err(|e| member("index", e))?;
        let order = enumeration(&a.cnodes, m.kind);
        let ids: Vec<usize> = match rows {
            Rows::Dense => order,
            Rows::Sparse(positions) => positions
                .into_iter()
                .map(|r| {
                    order.get(r).copied().ok_or_else(|| {
                        member("index", format!("row {r} is past the call tree's {} nodes", order.len()))
                    })
                })
                .collect::<Result<_, _>>()?,
        };
        let Some(width) = width_of(&m.dtype) else {
            warnings.push(format!(
                "metric `{}` has values of type {}, which errband does not read",
                m.name, m.dtype
            ));
            continue;
        };
        // The data hold exactly this many bytes: unpacking stops just past it.
        let expected = (ids.len() * locations * width) as u64;
        let raw = data_bytes(data, little, expected.min(cap)).map_err(|e| member("data", e))?;
        let values = decode_values(&raw, &m.dtype, little)
            .unwrap_or_else(|| Err(format!("values of type {}", m.dtype)))
            .map_err(|e| member("data", e))?;
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
        for (k, &i) in ids.iter().enumerate() {
            per[i] = values[k * locations..(k + 1) * locations].to_vec();
        }
        if m.kind == MetricKind::Inclusive {
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
                        values: m.values[c].iter().cloned().collect(),
                        summary: None,
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
            s.points
                .iter()
                .find(|p| p.coords == vec![Rat::from_integer(1000.into())])
                .unwrap()
                .values
                .get(0)
                .unwrap()
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

    /// A profile built here: `anchor.xml` and `(name, bytes)` members.
    fn cubex(anchor: &str, members: &[(&str, Vec<u8>)]) -> Vec<u8> {
        let mut b = tar::Builder::new(Vec::new());
        let mut add = |name: &str, data: &[u8]| {
            let mut h = tar::Header::new_gnu();
            h.set_size(data.len() as u64);
            h.set_mode(0o644);
            h.set_cksum();
            b.append_data(&mut h, name, data).unwrap();
        };
        add("anchor.xml", anchor.as_bytes());
        for (n, d) in members {
            add(n, d);
        }
        b.into_inner().unwrap()
    }

    /// A big-endian index: dense, or sparse with these row positions.
    fn index_be(sparse: Option<&[u32]>) -> Vec<u8> {
        let mut v = b"CUBEX.INDEX".to_vec();
        v.extend_from_slice(&1u32.to_be_bytes());
        v.extend_from_slice(&0u16.to_be_bytes());
        match sparse {
            None => v.push(3),
            Some(rows) => {
                v.push(1);
                v.extend_from_slice(&(rows.len() as u32).to_be_bytes());
                for r in rows {
                    v.extend_from_slice(&r.to_be_bytes());
                }
            }
        }
        v
    }

    #[test]
    fn rows_follow_cubes_enumeration_not_the_cnode_ids() {
        // a(10) -> { b(11) -> c(12), d(13) }: depth-first a b c d, and the
        // inclusive enumeration a, b d, c. Metrics nest (excl inside time).
        let anchor = r#"<?xml version="1.0"?><cube version="4.3"><metrics>
          <metric id="0" type="INCLUSIVE"><uniq_name>time</uniq_name><dtype>UINT64</dtype><uom>sec</uom>
            <metric id="1" type="EXCLUSIVE"><uniq_name>excl</uniq_name><dtype>INT32</dtype><uom>#</uom></metric>
          </metric></metrics><program>
          <region id="0"><name>a</name></region><region id="1"><name>b</name></region>
          <region id="2"><name>c&lt;int&gt;</name></region><region id="3"><name>d</name></region>
          <cnode id="10" calleeId="0"><cnode id="11" calleeId="1"><cnode id="12" calleeId="2"/></cnode>
          <cnode id="13" calleeId="3"/></cnode></program>
          <system><location Id="0"/></system></cube>"#;
        // Inclusive a=10, b=6, c=4, d=3, stored densely in a, b, d, c order.
        let mut time = b"CUBEX.DATA".to_vec();
        for v in [10u64, 6, 3, 4] {
            time.extend_from_slice(&v.to_be_bytes());
        }
        // Exclusive: only d (depth-first row 3) has a value, -7.
        let mut excl = b"CUBEX.DATA".to_vec();
        excl.extend_from_slice(&(-7i32).to_be_bytes());
        let bytes = cubex(
            anchor,
            &[
                ("0.index", index_be(None)),
                ("0.data", time),
                ("1.index", index_be(Some(&[3]))),
                ("1.data", excl),
            ],
        );
        let p = read_cube_profile(&bytes, "p", Limits::default()).unwrap();
        assert_eq!(p.callpaths, ["a", "a->b", "a->b->c<int>", "a->d"]);
        let int = |v: i64| Rat::from_integer(v.into());
        let names: Vec<&str> = p.metrics.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["excl", "time"], "a nested metric is its own metric");
        let time = p.metrics.iter().find(|m| m.name == "time").unwrap();
        assert_eq!(time.totals(), [int(1), int(2), int(4), int(3)]);
        let excl = p.metrics.iter().find(|m| m.name == "excl").unwrap();
        assert_eq!(excl.totals(), [int(0), int(0), int(0), int(-7)]);
        // A row past the tree, and an unknown index format, are refused.
        let bad =
            cubex(anchor, &[("1.index", index_be(Some(&[4]))), ("1.data", b"CUBEX.DATA\0\0\0\0".to_vec())]);
        let e = read_cube_profile(&bad, "p", Limits::default()).unwrap_err();
        assert!(e.diagnostic.message.contains("1.index"), "{}", e.diagnostic.message);
        let mut odd = index_be(None);
        odd[17] = 2;
        let bad = cubex(anchor, &[("0.index", odd), ("0.data", b"CUBEX.DATA".to_vec())]);
        assert!(read_cube_profile(&bad, "p", Limits::default()).is_err());
        // Two nodes with one id (a node its own parent) are refused.
        let twice = anchor.replace(r#"<cnode id="12""#, r#"<cnode id="11""#);
        let e = read_cube_profile(&cubex(&twice, &[]), "p", Limits::default()).unwrap_err();
        assert!(e.diagnostic.message.contains("two call-tree nodes"), "{}", e.diagnostic.message);
        // More values than the index and locations call for.
        let mut long = b"CUBEX.DATA".to_vec();
        long.extend_from_slice(&[0; 40]);
        let bad = cubex(anchor, &[("0.index", index_be(None)), ("0.data", long)]);
        let e = read_cube_profile(&bad, "p", Limits::default()).unwrap_err();
        assert!(e.diagnostic.message.contains("0.data"), "{}", e.diagnostic.message);
    }

    #[test]
    fn a_value_checked_with_python() {
        // python3: tarfile + struct + zlib on mm.x2000y1z1.r1/profile.cubex,
        // metric 1 (time, INCLUSIVE DOUBLE, ZCUBEX.DATA, sparse rows 0..3):
        // Fraction(main) - Fraction(init_mat) - Fraction(zero_mat) - Fraction(mat_mul).
        let e = read_cube_set(Path::new(SET), "single_parameter", Limits::default()).unwrap();
        assert_eq!(e.series.iter().map(|s| s.points.len()).collect::<Vec<_>>(), vec![9; e.series.len()]);
        let at = |cp: &str, metric: &str| {
            let s = e.series.iter().find(|s| s.callpath == cp && s.metric == metric).unwrap();
            let p = s.points.iter().find(|p| p.coords == vec![Rat::from_integer(2000.into())]).unwrap();
            p.values.to_vec()
        };
        let r = |n: u64, d: &str| Rat::new(n.into(), d.parse::<BigInt>().unwrap());
        assert_eq!(at("main", "time"), [r(30872470881760307, "2361183241434822606848")]);
        assert_eq!(at("main->mat_mul", "time"), [r(3864076374608087, "590295810358705651712")]);
        assert_eq!(at("main", "PAPI_FP_OPS"), [Rat::from_integer(6.into())], "7800 - 3766 - 0 - 4028");
    }

    #[test]
    fn damaged_profiles_are_refused_not_panicked_on() {
        let bytes = std::fs::read(format!("{SET}/mm.x10y1z1.r1/profile.cubex")).unwrap();
        let ok = read_cube_profile(&bytes, "p", Limits::default()).unwrap();
        assert_eq!(ok.callpaths, ["main", "main->init_mat", "main->zero_mat", "main->mat_mul"]);
        let mut ok_cuts = Vec::new();
        for cut in (0..bytes.len()).step_by(37).chain([512, 1024, 1536, bytes.len() - 1024]) {
            if let Ok(p) = read_cube_profile(&bytes[..cut], "p", Limits::default()) {
                ok_cuts.push((cut, p.metrics.len()));
            }
        }
        // Only the end-of-archive blocks after the last member may go.
        assert!(ok_cuts.iter().all(|&(cut, n)| cut >= 16384 && n == 7), "{ok_cuts:?}");
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
