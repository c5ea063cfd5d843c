//! Whole experiments: one analysis per series (callpath × metric, or `--by`
//! group), led by one table with a row per series, the widest relative
//! band first.
//!
//! Streamed: each series is rendered as soon as its analysis completes (in
//! file order) and the analysis is dropped. The report keeps a few cells
//! per series (its summary row, its place in the order, its backtest
//! counts) and spools the per-series sections to an unnamed temporary
//! file, which is copied out in the table's order at the end. Memory is
//! the analyses in flight and the summary, not the whole experiment (a
//! JSON report of 10⁴ callpaths is more than a gigabyte of text).

use std::borrow::Cow;
use std::io::{self, Write};

use serde_json::Value;

use super::html::{esc, html_table, page_parts};
use super::tables::plural;
use super::view::num;
use super::{figures, stream, table_left, Report, Views};
use crate::analysis::Analysis;
use crate::data::{Aggregate, Format};
use crate::document::analysis::{AnalysisDocument, CoverageDocument};
use crate::document::experiment::{
    ConsistentForms, ExperimentDocument, ExperimentHoldout, ExperimentInfo, SeriesAnalysis, SummaryFamily,
    SummaryRow,
};
use crate::document::{Band, BandStatus, Command, Exact, Header, ModelInfo};
use crate::error::{Classified, ErrorKind};
use crate::model::{show_value, Model};
use crate::num::Rat;
use crate::session::Entry;

/// Spooled bytes gathered before one write to the spool file.
const SPOOL_RUN: usize = 1 << 20;

/// Fills `buf` from `f` at `offset`: one positioned read where the
/// platform has it (a series section per call when the report is copied
/// out in its own order).
fn read_at(f: &std::fs::File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(f, buf, offset)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Read, Seek, SeekFrom};
        let mut f = f;
        f.seek(SeekFrom::Start(offset))?;
        f.read_exact(buf)
    }
}

/// A per-series section an experiment report spools: one for the output
/// chosen, and one more for a `--report` file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// The terminal report's section (`=== series ===` and its report).
    Text,
    /// `--brief`: a line per prediction point.
    Brief,
    /// Markdown (`## series` and its report).
    Markdown,
    /// The series' entry of the JSON `analyses` array (in file order).
    Json,
    /// The same entry as one line of JSON Lines.
    JsonLine,
    /// The series' CSV records.
    Csv,
    /// The HTML page's section: its band plot and text report.
    Html,
}

impl Section {
    /// Whether the section renders a series' document (the CSV rows and
    /// the brief answer do not).
    fn renders_document(self) -> bool {
        !matches!(self, Section::Csv | Section::Brief)
    }
}

/// Every analysis of an experiment, as its summary and spooled sections.
pub struct ExperimentReport<'a> {
    /// The model of the first series; its variables are every series'.
    pub model: &'a Model,
    /// No model file was given: each series' model is its family's best
    /// form (`errband DATA --family pmnf`).
    pub discovered: bool,
    /// The data file.
    pub data_file: &'a str,
    /// Its format.
    pub format: Format,
    /// Series in the file before selection.
    pub total: usize,
    /// How repetitions were aggregated.
    pub aggregate: Aggregate,
    /// Significant digits.
    pub digits: usize,
    /// Exact fractions in tables.
    pub exact: bool,
    /// With `--plot-at`: the slice every series' band plot shows.
    pub plot_at: Option<&'a crate::model::Slice>,
    /// The sections spooled per series.
    sections: Vec<Section>,
    /// One kept summary per series, in file order.
    kept: Vec<Kept>,
    /// The spooled sections (created when the first buffer is full).
    spool: Option<std::fs::File>,
    /// Bytes spooled so far, in the file and in `pending`.
    spooled: u64,
    /// Sections not yet in the file: they go out in runs of
    /// [`SPOOL_RUN`] bytes, not a system call per series. The sections
    /// past `flushed` are read from here.
    pending: Vec<u8>,
    /// Bytes in the file.
    flushed: u64,
    /// From the first analysed series: the points predicted and the first
    /// threshold's name (the table's band columns).
    first: Option<(Vec<Vec<Rat>>, String)>,
    /// From the first series with a family: its last threshold's name.
    family_level: Option<Option<String>>,
    /// The backtest coverage over every series so far.
    coverage: Option<(String, Vec<crate::backtest::Coverage>)>,
    /// Why the run stopped before every series was analysed.
    stopped: Option<String>,
}

super::views!(ExperimentReport);

/// What the report keeps of one series once it is rendered.
struct Kept {
    name: String,
    /// The error message, for a failed series.
    failed: Option<String>,
    /// Who has to act on its failure (`None` when analysed).
    kind: Option<ErrorKind>,
    /// The widest relative half-width (the order's key).
    widest: Option<Rat>,
    /// The model's body when it is not the report's model's (the table
    /// names it when models differ); kept once, not per series.
    body: Option<String>,
    /// Summary cells: points, parameters, fitted text, e_max, one band per
    /// point, the family cells, the widest half-width.
    points: String,
    params: Vec<String>,
    fitted: String,
    emax: String,
    bands: Vec<String>,
    family: Vec<String>,
    widest_cell: String,
    /// Where each section lies in the spool (offset, length); after the
    /// sections, the JSON summary entry when the JSON document is written.
    at: Vec<(u64, usize)>,
}

/// A series' brief section: its answer `points`, a line each.
fn brief(name: &str, points: Vec<String>) -> String {
    if points.is_empty() {
        format!("{name}: no recommended band\n")
    } else {
        points.iter().map(|p| format!("{name}: {p}\n")).collect()
    }
}

/// One series rendered, before it joins the report ([`ExperimentReport::push`]).
pub struct Rendered {
    kept: Kept,
    backtest: Option<crate::backtest::Backtest>,
    first: Option<(Vec<Vec<Rat>>, String)>,
    family_level: Option<Option<String>>,
    sections: Vec<String>,
}

/// The JSON pretty-printed as part of a document, `depth` levels deep:
/// every line padded, as `serde_json::to_string_pretty` of the whole
/// document would print it there, in one pass.
fn indented(v: &Value, depth: usize) -> String {
    let mut out = "  ".repeat(depth).into_bytes();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Nested { depth, has_value: false });
    let _ = serde::Serialize::serialize(v, &mut ser);
    String::from_utf8(out).unwrap_or_default()
}

/// serde_json's pretty formatter (two spaces per level) starting `depth`
/// levels deep.
struct Nested {
    depth: usize,
    has_value: bool,
}

impl Nested {
    fn indent<W: ?Sized + std::io::Write>(&self, w: &mut W) -> std::io::Result<()> {
        for _ in 0..self.depth {
            w.write_all(b"  ")?;
        }
        Ok(())
    }

    fn begin<W: ?Sized + std::io::Write>(&mut self, w: &mut W, open: &[u8]) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(open)
    }

    fn end<W: ?Sized + std::io::Write>(&mut self, w: &mut W, close: &[u8]) -> std::io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            w.write_all(b"\n")?;
            self.indent(w)?;
        }
        w.write_all(close)
    }

    fn item<W: ?Sized + std::io::Write>(&self, w: &mut W, first: bool) -> std::io::Result<()> {
        w.write_all(if first { b"\n" } else { b",\n" })?;
        self.indent(w)
    }
}

impl serde_json::ser::Formatter for Nested {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.begin(w, b"[")
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.end(w, b"]")
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(w, first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _w: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.begin(w, b"{")
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.end(w, b"}")
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(w, first)
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _w: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// Stands for the `analyses` array in the pretty-printed document until it
/// is copied in from the spool.
const ANALYSES: &str = "@@errband-experiment-analyses@@";

/// Stands for the `summary` array likewise.
const SUMMARY: &str = "@@errband-experiment-summary@@";

impl<'a> ExperimentReport<'a> {
    /// An empty report, which spools `sections` of each series pushed.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        model: &'a Model,
        discovered: bool,
        data_file: &'a str,
        format: Format,
        total: usize,
        aggregate: Aggregate,
        digits: usize,
        exact: bool,
        plot_at: Option<&'a crate::model::Slice>,
        sections: &[Section],
    ) -> ExperimentReport<'a> {
        ExperimentReport {
            model,
            discovered,
            data_file,
            format,
            total,
            aggregate,
            digits,
            exact,
            plot_at,
            sections: sections.to_vec(),
            kept: Vec::new(),
            spool: None,
            spooled: 0,
            pending: Vec::new(),
            flushed: 0,
            first: None,
            family_level: None,
            coverage: None,
            stopped: None,
        }
    }

    /// Marks the report as stopped before every series was analysed
    /// (`--timeout`): the text says so first, and the JSON document has
    /// `stopped` with `why` (`null` after a complete run).
    pub fn stop(&mut self, why: String) {
        self.stopped = Some(why);
    }

    /// The same settings without any series: renders series in parallel
    /// ([`ExperimentReport::render`]) while this report takes them in.
    pub fn renderer(&self) -> ExperimentReport<'a> {
        ExperimentReport::new(
            self.model,
            self.discovered,
            self.data_file,
            self.format,
            self.total,
            self.aggregate,
            self.digits,
            self.exact,
            self.plot_at,
            &self.sections,
        )
    }

    /// The report of one entry's analysis, for the per-series sections.
    fn report<'b>(&'b self, e: &'b Entry<'_>, an: &'b Analysis) -> Report<'b> {
        Report {
            plot_at: self.plot_at,
            model: &e.model,
            data_file: self.data_file,
            data: e.rows(),
            analysis: an,
            pruned: None,
            function: None,
            scales: [None, None],
            digits: self.digits,
            exact: self.exact,
            warnings: &e.part.dataset.warnings,
            backtest: e.backtest.as_ref(),
            family: e.family.as_ref(),
            recommendation: e.recommendation.as_ref(),
            recommendation_error: None,
            discovered: self.discovered,
            set_aside: &e.set_aside,
        }
    }

    /// Renders one series: its summary cells and its sections. Needs only
    /// the report's settings, so series render in parallel; the entry (and
    /// its analysis) is dropped on return.
    pub fn render(&self, e: Entry<'_>) -> Rendered {
        let name = e.part.name();
        let (callpath, metric) = (&e.part.callpath, &e.part.metric);
        let failed = e.outcome.as_ref().err().map(ToString::to_string);
        let kind = e.outcome.as_ref().err().map(Classified::kind);
        let mut kept = Kept {
            name: name.clone(),
            failed: failed.clone(),
            kind,
            widest: None,
            body: (e.model.body_text != self.model.body_text).then(|| e.model.body_text.clone()),
            points: String::new(),
            params: Vec::new(),
            fitted: String::new(),
            emax: String::new(),
            bands: Vec::new(),
            family: Vec::new(),
            widest_cell: String::new(),
            at: Vec::new(),
        };
        let mut first = None;
        // The series' document, made once for its cells, its summary row
        // and every section that renders one (a CSV and the brief answer
        // render none).
        let doc: Option<AnalysisDocument> = match &e.outcome {
            Ok(an) if self.sections.iter().any(|s| s.renders_document()) => {
                Some(self.report(&e, an).document())
            }
            _ => None,
        };
        // The JSON summary entry, built only for the JSON document.
        let wants_summary = self.sections.contains(&Section::Json);
        let mut summary: Option<SummaryRow> = None;
        let family_level = e.family.as_ref().map(|f| f.levels.last().map(|l| l.threshold.text.clone()));
        match &e.outcome {
            Ok(an) => {
                kept.widest = an.widest_relative_half_width();
                first = Some((
                    an.predictions.iter().map(|p| p.x.clone()).collect(),
                    an.regions.first().map_or(String::new(), |r| r.threshold.text.clone()),
                ));
                if let Some(d) = &doc {
                    // The summary table's cells, where one is written.
                    if self
                        .sections
                        .iter()
                        .any(|s| matches!(s, Section::Text | Section::Markdown | Section::Html))
                    {
                        self.cells(&mut kept, d);
                    }
                    summary = wants_summary.then(|| SummaryRow {
                        callpath: callpath.to_string(),
                        metric: metric.to_string(),
                        error: None,
                        points: Some(d.data.info.points),
                        measurements: Some(e.part.dataset.rows.len()),
                        model: Some(d.model.body.clone()),
                        params: Some(d.analysis.params.clone()),
                        emax: Some(d.analysis.emax.value.clone()),
                        widest_relative_half_width: Exact::opt(kept.widest.as_ref(), self.digits),
                        family: d.family.as_ref().map(|f| SummaryFamily {
                            forms: f.forms.len(),
                            consistent: f
                                .thresholds
                                .iter()
                                .enumerate()
                                .map(|(t, l)| ConsistentForms {
                                    label: l.label.clone(),
                                    forms: f.forms.iter().filter(|m| m.consistent[t].consistent).count(),
                                })
                                .collect(),
                        }),
                    });
                }
            }
            Err(msg) => {
                summary = wants_summary.then(|| SummaryRow {
                    callpath: callpath.to_string(),
                    metric: metric.to_string(),
                    error: Some(msg.to_string()),
                    points: None,
                    measurements: None,
                    model: None,
                    params: None,
                    emax: None,
                    widest_relative_half_width: None,
                    family: None,
                });
            }
        }
        let mut sections: Vec<String> =
            self.sections.iter().map(|&s| self.section(s, &e, &name, doc.as_ref())).collect();
        // The summary entry is spooled too (a tree of values per series was
        // most of the memory of 10^5 series), pretty-printed at its depth.
        if let Some(row) = summary {
            sections.push(indented(&crate::document::to_value(&row), 2));
        }
        Rendered { kept, backtest: e.backtest, first, family_level, sections }
    }

    /// A series' entry of the `analyses` array, its document `doc`, handed
    /// to `f` with its residual tables as long arrays.
    fn with_series_document<R>(
        &self,
        e: &Entry<'_>,
        outcome: Result<(&Analysis, &AnalysisDocument), String>,
        f: impl for<'l> FnOnce(Value, &[stream::LongArray<'l>]) -> R,
    ) -> R {
        let (callpath, metric) = (e.part.callpath.clone(), e.part.metric.clone());
        match outcome {
            Ok((an, doc)) => {
                let r = self.report(e, an);
                let doc = SeriesAnalysis { callpath, metric, error: None, report: Some(Cow::Borrowed(doc)) };
                let arrays = r.residual_arrays();
                f(crate::document::to_value(&doc), &arrays)
            }
            Err(msg) => {
                let doc = SeriesAnalysis { callpath, metric, error: Some(msg), report: None };
                f(crate::document::to_value(&doc), &[])
            }
        }
    }

    /// One section of a series whose document is `doc` (made here when the
    /// caller has none and the section renders one).
    fn section(&self, s: Section, e: &Entry<'_>, name: &str, doc: Option<&AnalysisDocument>) -> String {
        match (s, &e.outcome, doc) {
            (Section::Csv, _, _) => return self.csv_records(e),
            // Without a document the answer's lines need only the
            // recommendation's.
            (Section::Brief, Ok(an), None) => return brief(name, self.report(e, an).answer_points()),
            _ => {}
        }
        let own;
        let outcome: Result<(&Analysis, &AnalysisDocument), String> = match (&e.outcome, doc) {
            (Ok(an), Some(d)) => Ok((an, d)),
            (Ok(an), None) => {
                own = self.report(e, an).document();
                Ok((an, &own))
            }
            (Err(err), _) => Err(err.to_string()),
        };
        match s {
            Section::Text => match outcome {
                Ok((an, d)) => format!("\n=== {name} ===\n{}", self.report(e, an).text_with(d)),
                Err(msg) => format!("\n=== {name} ===\nfailed: {msg}\n"),
            },
            Section::Markdown => match outcome {
                Ok((an, d)) => format!("\n## {name}\n\n{}", self.report(e, an).markdown_of(d)),
                Err(msg) => format!("\n## {name}\n\nfailed: {msg}\n"),
            },
            Section::Brief => match outcome {
                Ok((_, d)) => {
                    brief(name, super::answer::Answer::of_document(d).map(|a| a.points).unwrap_or_default())
                }
                Err(msg) => format!("{name}: failed: {}\n", msg.lines().next().unwrap_or("")),
            },
            Section::Json => self.with_series_document(e, outcome, |mut v, arrays| {
                stream::fill(&mut v, arrays);
                indented(&v, 2)
            }),
            Section::JsonLine => self.with_series_document(e, outcome, |v, arrays| {
                let mut out = Vec::new();
                let _ = stream::write_line(&v, arrays, &mut out);
                String::from_utf8(out).unwrap_or_default()
            }),
            Section::Csv => self.csv_records(e),
            Section::Html => match outcome {
                Ok((an, d)) => {
                    let r = self.report(e, an);
                    format!(
                        "<h2>{}</h2>\n<figure>{}</figure>\n<pre>{}</pre>\n",
                        esc(name),
                        figures::band(&r),
                        esc(&r.text_with(d))
                    )
                }
                Err(msg) => format!("<h2>{}</h2>\n<p>failed: {}</p>\n", esc(name), esc(&msg)),
            },
        }
    }

    /// Adds a rendered series (in file order) and spools its sections.
    pub fn push(&mut self, r: Rendered) -> io::Result<()> {
        self.push_streaming(r, None)
    }

    /// [`ExperimentReport::push`], with section `stream.0` written to
    /// `stream.1` at once instead of spooled: JSON Lines, one object per
    /// series in file order, reach a consumer as the series are analysed
    /// rather than after the last one (that section is then not copied
    /// out again).
    pub fn push_streaming(
        &mut self,
        r: Rendered,
        stream: Option<(Section, &mut (dyn Write + '_))>,
    ) -> io::Result<()> {
        let Rendered { mut kept, backtest, first, family_level, mut sections } = r;
        if let Some((s, w)) = stream {
            let k = self.slot(s)?;
            if let Some(text) = sections.get_mut(k) {
                w.write_all(text.as_bytes())?;
                text.clear();
            }
        }
        if self.first.is_none() {
            self.first = first;
        }
        if self.family_level.is_none() {
            self.family_level = family_level;
        }
        if let Some(b) = &backtest {
            let (_, all) = self.coverage.get_or_insert_with(|| (b.holdout.clone(), Vec::new()));
            for c in &b.coverage {
                match all.iter_mut().find(|a| a.threshold == c.threshold && a.kind == c.kind) {
                    Some(a) => a.add(c),
                    None => all.push(c.clone()),
                }
            }
        }
        // (JSON Lines alone, streamed, need no spool file.)
        if sections.iter().any(|s| !s.is_empty()) {
            for s in &sections {
                self.pending.extend_from_slice(s.as_bytes());
                kept.at.push((self.spooled, s.len()));
                self.spooled += s.len() as u64;
            }
        }
        if self.pending.len() >= SPOOL_RUN {
            let spool = match &mut self.spool {
                Some(f) => f,
                None => self.spool.insert(tempfile::tempfile()?),
            };
            spool.write_all(&self.pending)?;
            self.flushed += self.pending.len() as u64;
            self.pending.clear();
        }
        self.kept.push(kept);
        Ok(())
    }

    /// Copies section `k` of each series in `order` from the spool to `w`,
    /// each followed by `sep` but the last.
    fn copy(&self, w: &mut dyn Write, k: usize, order: &[usize], sep: &str) -> io::Result<()> {
        let mut buf = Vec::new();
        for (n, &i) in order.iter().enumerate() {
            let Some(&(at, len)) = self.kept[i].at.get(k) else { continue };
            // A section lies wholly in the file or wholly in `pending`.
            if let Some(from) = at.checked_sub(self.flushed) {
                let from = usize::try_from(from).map_err(io::Error::other)?;
                let text =
                    self.pending.get(from..from + len).ok_or_else(|| io::Error::other("spool overrun"))?;
                w.write_all(text)?;
            } else {
                let f = self.spool.as_ref().ok_or_else(|| io::Error::other("spool missing"))?;
                buf.resize(len, 0);
                read_at(f, &mut buf, at)?;
                w.write_all(&buf)?;
            }
            if n + 1 < order.len() {
                w.write_all(sep.as_bytes())?;
            }
        }
        Ok(())
    }

    /// Section `s`'s index among the spooled ones.
    fn slot(&self, s: Section) -> io::Result<usize> {
        self.sections.iter().position(|&x| x == s).ok_or_else(|| io::Error::other("section not spooled"))
    }

    /// The number of series.
    pub fn len(&self) -> usize {
        self.kept.len()
    }

    /// No series at all.
    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// The number of series whose analysis failed.
    pub fn failed(&self) -> usize {
        self.kept.iter().filter(|k| k.failed.is_some()).count()
    }

    /// Series indices, the widest relative band first; failures last, in
    /// file order. A writer sorts once, for its table and its sections.
    pub fn order(&self) -> Vec<usize> {
        let keys: Vec<(bool, Option<&Rat>)> =
            self.kept.iter().map(|k| (k.failed.is_some(), k.widest.as_ref())).collect();
        widest_first(&keys)
    }

    fn point_label(&self, x: &[Rat]) -> String {
        self.model
            .vars
            .iter()
            .zip(x)
            .map(|(v, x)| format!("{v}={}", show_value(x)))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Whether every series has the same model (else each row names its own).
    fn same_model(&self) -> bool {
        self.kept.iter().all(|k| k.body.is_none())
    }

    /// A series' summary cells, read from its document `d`: points,
    /// parameters (and as `c0 = 79.3, c1 = 0.0049`), e_max, the band at the
    /// first threshold per point, the family's band of a new measurement at
    /// its last threshold per point, and the widest relative half-width.
    fn cells(&self, kept: &mut Kept, d: &AnalysisDocument) {
        let n = |e: &Exact| num(e, self.exact).to_string();
        kept.points = d.data.info.points.to_string();
        kept.params = d.analysis.params.iter().map(|p| n(&p.value)).collect();
        kept.fitted = d
            .analysis
            .params
            .iter()
            .map(|p| format!("{} = {}", p.name, n(&p.value)))
            .collect::<Vec<_>>()
            .join(", ");
        kept.emax = n(&d.analysis.emax.value);
        let ends = |b: &Band| match b.status {
            BandStatus::Ok => format!(
                "{} .. {}",
                b.lower.as_ref().map_or("-inf".into(), n),
                b.upper.as_ref().map_or("+inf".into(), n)
            ),
            BandStatus::Empty => "empty".into(),
            BandStatus::BelowZero => "below 0".into(),
            _ => "no band".into(),
        };
        kept.bands = d
            .analysis
            .bands
            .iter()
            .map(|p| p.bands.first().map_or("empty".into(), |t| ends(&t.band)))
            .collect();
        if let Some(f) = &d.family {
            // Per point, one band per threshold, in the thresholds' order.
            let levels = f.thresholds.len();
            kept.family = f
                .bands
                .chunks(levels.max(1))
                .filter_map(|per_point| per_point.last())
                .map(|b| match b.measurement_band.status {
                    BandStatus::Ok => {
                        format!("{} ({} form{})", ends(&b.measurement_band), b.forms, plural(b.forms))
                    }
                    _ => super::family::no_family_band(&b.measurement_band).into(),
                })
                .collect();
        }
        kept.widest_cell = kept.widest.as_ref().map_or("-".into(), |w| crate::num::fmt_pct_sig(w, 3));
    }

    /// The summary table, its rows in `order` ([`ExperimentReport::order`]):
    /// header and rows of text.
    pub fn table(&self, order: &[usize]) -> (Vec<String>, Vec<Vec<String>>) {
        let (points, thr_text) = self.first.clone().unwrap_or_default();
        let same = self.same_model();
        let mut head = vec!["series".to_string(), "points".into()];
        if same {
            head.extend(self.model.params.iter().map(|p| p.name.clone()));
        } else {
            head.extend(["model".to_string(), "fit".to_string()]);
        }
        head.push("e_max".into());
        for x in &points {
            head.push(format!("band at {} (t={thr_text})", self.point_label(x)));
        }
        // With families: the family band of a new measurement at the last
        // threshold (the trusted one by default) per point.
        let fam_level = self.family_level.clone().flatten();
        if let Some(t) = &fam_level {
            for x in &points {
                head.push(format!("family band at {} (t={t}, new measurement)", self.point_label(x)));
            }
        }
        head.push("widest ±%".into());
        let mut rows = Vec::new();
        for &i in order {
            let k = &self.kept[i];
            let mut row = vec![k.name.clone()];
            match &k.failed {
                None => {
                    row.push(k.points.clone());
                    if same {
                        row.extend(k.params.iter().cloned());
                    } else {
                        row.push(k.body.clone().unwrap_or_else(|| self.model.body_text.clone()));
                        row.push(k.fitted.clone());
                    }
                    row.push(k.emax.clone());
                    row.extend(k.bands.iter().cloned());
                    if fam_level.is_some() {
                        if k.family.is_empty() {
                            row.extend(std::iter::repeat_n("-".to_string(), points.len()));
                        } else {
                            row.extend(k.family.iter().cloned());
                        }
                    }
                    row.push(k.widest_cell.clone());
                }
                Some(msg) => {
                    row.push("-".into());
                    row.push(format!("failed: {}", msg.lines().next().unwrap_or("")));
                    while row.len() < head.len() {
                        row.push(String::new());
                    }
                }
            }
            rows.push(row);
        }
        (head, rows)
    }

    fn title(&self) -> String {
        // Extra-P's models are named `FILE (series)`; the title names the file.
        let file = if self.same_model() {
            self.model.file.as_str()
        } else {
            self.model.file.split(" (").next().unwrap_or("")
        };
        format!("errband: {file} on {} ({} series)", self.data_file, self.kept.len())
    }

    fn assumptions(&self) -> Vec<String> {
        let model = if self.discovered {
            "each series with the best form of its family (errband DATA --family pmnf: Extra-P's normal forms, fitted exactly and ranked; the family band is beside it)".to_string()
        } else if self.same_model() {
            format!(
                "the same model for each: {}({}) = {}",
                self.model.func,
                self.model.vars.join(", "),
                self.model.body_text
            )
        } else {
            let file = self.model.file.split(" (").next().unwrap_or("");
            if self.model.fit == crate::model::FitMode::Given {
                format!("each series with the model Extra-P chose for it and Extra-P's coefficients (from {file}, --no-fit)")
            } else {
                format!("each series with the form Extra-P chose for it (from {file}), its coefficients refitted exactly")
            }
        };
        vec![
            format!(
                "{}: {} format, {} of its {} series selected; {model}",
                self.data_file,
                self.format.name(),
                self.kept.len(),
                self.total,
            ),
            format!("repetitions: {} (--aggregate {})", self.aggregate.describe(), self.aggregate.name()),
            "bands bound the model's value for parameters whose residuals stay within the threshold; rows are ordered by the widest relative half-width first".to_string(),
        ]
    }

    /// The terminal report: the table, then each series' own report.
    pub fn write_text(&self, w: &mut dyn Write) -> io::Result<()> {
        let mut o = format!("{}\n", self.title());
        if let Some(why) = &self.stopped {
            o.push_str(&format!("  stopped: {why}\n"));
        }
        for a in self.assumptions() {
            o.push_str(&format!("  {a}\n"));
        }
        o.push('\n');
        let order = self.order();
        let (head, rows) = self.table(&order);
        let mut all = vec![head];
        all.extend(rows);
        o.push_str(&table_left(&all, 0, &[0]));
        if let Some((cond, cov)) = &self.coverage {
            o.push_str(&format!(
                "\nBacktest over all series (--holdout {cond}): held-out measurements inside each band\n"
            ));
            let mut rows = vec![super::backtest::coverage_head()];
            rows.extend(
                cov.iter().map(|c| super::backtest::coverage_row(&CoverageDocument::new(c, self.digits))),
            );
            o.push_str(&super::table(&rows, 2));
        }
        w.write_all(o.as_bytes())?;
        self.copy(w, self.slot(Section::Text)?, &order, "")
    }

    /// `--brief`: per series (in the table's order) a line per prediction
    /// point with the predicted value and the recommended band, or why
    /// there is none.
    pub fn write_brief(&self, w: &mut dyn Write) -> io::Result<()> {
        self.copy(w, self.slot(Section::Brief)?, &self.order(), "")
    }

    /// Markdown: the table, then each series' report.
    pub fn write_markdown(&self, w: &mut dyn Write) -> io::Result<()> {
        let mut o = format!("# {}\n\n", self.title());
        for a in self.assumptions() {
            o.push_str(&format!("- {a}\n"));
        }
        let order = self.order();
        let (head, rows) = self.table(&order);
        if let Some((cond, cov)) = &self.coverage {
            o.push_str(&format!(
                "\n**Backtest over all series** (`--holdout {}`):\n\n",
                super::md_escape(cond)
            ));
            o.push_str(&super::md_table_head(&super::backtest::coverage_head()));
            for c in cov {
                o.push_str(&super::md_row(&super::backtest::coverage_row(&CoverageDocument::new(
                    c,
                    self.digits,
                ))));
            }
        }
        o.push_str(&format!("\n| {} |\n|{}\n", head.join(" | "), "---|".repeat(head.len())));
        for r in &rows {
            o.push_str(&format!(
                "| {} |\n",
                r.iter().map(|c| c.replace('|', "\\|")).collect::<Vec<_>>().join(" | ")
            ));
        }
        w.write_all(o.as_bytes())?;
        self.copy(w, self.slot(Section::Markdown)?, &order, "")
    }

    /// The CSV header: one record per series, prediction point and
    /// threshold, exact and decimal columns (a failed series has one
    /// record with its error).
    fn csv_head(&self) -> Vec<String> {
        let mut head = vec!["callpath".to_string(), "metric".into()];
        head.extend(self.model.vars.iter().cloned());
        for c in ["threshold", "model", "lower", "upper", "relative_half_width", "emax"] {
            head.push(c.into());
        }
        for c in ["model", "lower", "upper", "emax"] {
            head.push(format!("{c}_exact"));
        }
        head.push("error".into());
        head
    }

    /// One series' CSV records, read from its bands as the document
    /// gives them (no document is made for the rest).
    fn csv_records(&self, e: &Entry<'_>) -> String {
        let width = self.csv_head().len();
        let mut w = csv::Writer::from_writer(Vec::new());
        let name = [e.part.callpath.clone(), e.part.metric.clone()];
        match e.outcome.as_ref().map_err(ToString::to_string) {
            Err(msg) => {
                let mut r = name.to_vec();
                r.resize(width - 1, String::new());
                r.push(msg.lines().next().unwrap_or("").to_string());
                let _ = w.write_record(&r);
            }
            Ok(an) => {
                let digits = self.digits();
                let emax = Exact::new(&an.emax, digits);
                // A band end as its decimal or exact cell, empty when absent.
                let cell = |x: &Option<Exact>, exact: bool| {
                    x.as_ref().map_or_else(|| "".to_string(), |x| num(x, exact))
                };
                for p in crate::document::analysis::prediction_bands(self.model, an, digits) {
                    for t in &p.bands {
                        let b = &t.band;
                        let mut r = name.to_vec();
                        r.extend(self.model.vars.iter().map(|v| p.point.get(v).cloned().unwrap_or_default()));
                        r.push(t.threshold.label.clone());
                        r.push(p.model.decimal());
                        r.extend([
                            cell(&b.lower, false),
                            cell(&b.upper, false),
                            cell(&b.relative_half_width, false),
                        ]);
                        r.push(emax.decimal());
                        r.push(p.model.exact());
                        r.extend([cell(&b.lower, true), cell(&b.upper, true)]);
                        r.push(emax.exact());
                        r.push(String::new());
                        let _ = w.write_record(&r);
                    }
                }
            }
        }
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }

    /// CSV for machines, in the table's order.
    pub fn write_csv(&self, w: &mut dyn Write) -> io::Result<()> {
        let mut head = csv::Writer::from_writer(Vec::new());
        let _ = head.write_record(self.csv_head());
        w.write_all(&head.into_inner().unwrap_or_default())?;
        self.copy(w, self.slot(Section::Csv)?, &self.order(), "")
    }

    /// JSON: the experiment, the summary rows, and every analysis in the
    /// main command's schema (failures with their message), in file order.
    pub fn write_json(&self, w: &mut dyn Write) -> io::Result<()> {
        let (summary, analyses) = ExperimentDocument::markers(SUMMARY, ANALYSES);
        let doc = ExperimentDocument {
            header: Header::new(Command::Experiment),
            experiment: ExperimentInfo {
                file: self.data_file.to_string(),
                format: self.format.name().into(),
                series: self.total,
                selected: self.kept.len(),
                aggregate: self.aggregate.name().into(),
                model: ModelInfo::declared(self.model),
            },
            summary,
            analyses,
            holdout: self.coverage.as_ref().map(|(cond, cov)| ExperimentHoldout {
                condition: cond.clone(),
                coverage: cov.iter().map(|c| CoverageDocument::new(c, self.digits)).collect(),
            }),
            stopped: self.stopped.clone(),
        };
        let doc = crate::document::to_value(&doc);
        let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        // Both arrays are copied in from the spool where their markers
        // stand (keys are in alphabetical order: the analyses come first),
        // the summary in the table's order, the analyses in file order.
        let file_order: Vec<usize> = (0..self.kept.len()).collect();
        let mut arrays = [
            (format!("\"{ANALYSES}\""), self.slot(Section::Json)?, file_order),
            (format!("\"{SUMMARY}\""), self.sections.len(), self.order()),
        ];
        arrays.sort_by_key(|(marker, _, _)| text.find(marker.as_str()));
        let mut tail = text.as_str();
        for (marker, slot, order) in &arrays {
            let (before, after) = tail.split_once(marker.as_str()).unwrap_or((tail, ""));
            w.write_all(before.as_bytes())?;
            if self.kept.is_empty() {
                w.write_all(b"[]")?;
            } else {
                w.write_all(b"[\n")?;
                self.copy(w, *slot, order, ",\n")?;
                w.write_all(b"\n  ]")?;
            }
            tail = after;
        }
        w.write_all(tail.as_bytes())?;
        w.write_all(b"\n")
    }

    /// A self-contained HTML page: the table, then a band plot and the
    /// text report per series.
    pub fn write_html(&self, w: &mut dyn Write) -> io::Result<()> {
        let mut body = format!("<h1>{}</h1>\n<ul>\n", esc(&self.title()));
        for a in self.assumptions() {
            body.push_str(&format!("<li>{}</li>\n", esc(&a)));
        }
        body.push_str("</ul>\n");
        let order = self.order();
        let (head, rows) = self.table(&order);
        body.push_str(&html_table(&head, &rows));
        let (top, bottom) = page_parts(&self.title());
        w.write_all(top.as_bytes())?;
        w.write_all(body.as_bytes())?;
        self.copy(w, self.slot(Section::Html)?, &order, "")?;
        w.write_all(bottom.as_bytes())
    }

    /// The worst failure among the series (`None`: every analysis
    /// succeeded): an input fault before an impossible analysis.
    pub fn worst_failure(&self) -> Option<ErrorKind> {
        let kinds = || self.kept.iter().filter_map(|k| k.kind);
        kinds().find(|k| *k == ErrorKind::Input).or_else(|| kinds().next())
    }
}

/// Indices of `keys` (failed, widest relative half-width) in the table's
/// order: the widest first, a missing width after the widths, failures
/// last; stable (file order among equals).
fn widest_first(keys: &[(bool, Option<&Rat>)]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..keys.len()).collect();
    // Floats propose the order of two widths (`num::surely_below`, each
    // float within a few units in the last place of its width); exact
    // comparison decides when they are too close to call. Exact
    // comparisons of long fractions for every pair took seconds for
    // 150 000 series.
    let approx: Vec<f64> = keys.iter().map(|(_, w)| w.map_or(f64::NAN, crate::num::to_f64)).collect();
    let below = |a: f64, b: f64| crate::num::surely_below(a, 1e-12 * a.abs(), b);
    idx.sort_by(|&a, &b| {
        let ((fa, wa), (fb, wb)) = (keys[a], keys[b]);
        fa.cmp(&fb).then_with(|| match (wa, wb) {
            (Some(x), Some(y)) => {
                let (fx, fy) = (approx[a], approx[b]);
                if below(fy, fx) {
                    std::cmp::Ordering::Less
                } else if below(fx, fy) {
                    std::cmp::Ordering::Greater
                } else {
                    crate::num::cmp_fast(y, x)
                }
            }
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        })
    });
    idx
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The table's order is the exact one: widths a float cannot tell
        /// apart (one part in 10^15 and 10^30), equal ones, missing ones
        /// and failures included.
        #[test]
        fn the_widest_first_order_is_exact(
            cells in proptest::collection::vec((0u8..5, 1u64..1000, 0u32..3), 1..40),
        ) {
            let ten = |e: u32| num_bigint::BigInt::from(10u32).pow(e);
            let widths: Vec<Option<Rat>> = cells
                .iter()
                .map(|&(kind, n, near)| match kind {
                    0 => None,
                    // n/1000, nudged by one part in 10^15 or 10^30.
                    _ => {
                        let base = Rat::new(n.into(), 1000.into());
                        Some(match near {
                            0 => base,
                            1 => &base + Rat::new(1.into(), ten(15)),
                            _ => &base - Rat::new(1.into(), ten(30)),
                        })
                    }
                })
                .collect();
            let keys: Vec<(bool, Option<&Rat>)> =
                cells.iter().zip(&widths).map(|(&(kind, _, _), w)| (kind == 4, w.as_ref())).collect();
            let mut exact: Vec<usize> = (0..keys.len()).collect();
            exact.sort_by(|&a, &b| {
                keys[a].0.cmp(&keys[b].0).then_with(|| match (keys[a].1, keys[b].1) {
                    (Some(x), Some(y)) => y.cmp(x),
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    (None, None) => std::cmp::Ordering::Equal,
                })
            });
            proptest::prop_assert_eq!(widest_first(&keys), exact);
        }
    }
}
