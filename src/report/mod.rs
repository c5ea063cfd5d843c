//! Renders an [`Analysis`] (and an optional pruned one beside it) as a
//! terminal report, JSON, CSV band tables, Markdown, LaTeX, SVG figures and
//! whole HTML/Markdown reports. Every number shown is
//! an exact value printed as a fraction or a correctly rounded decimal.

/// SVG figures of an analysis.
mod backtest;
pub mod barrier;
pub mod energy;
pub mod experiment;
mod family;
pub mod figures;
pub(crate) mod html;
mod latex;
pub mod ms;
/// Rendering of `errband plan`.
pub mod plan;
/// Rendering of `errband prune`.
pub mod prune;
mod stream;

use crate::analysis::{Analysis, Band, Prediction, Region, Shape};
use crate::data::Measurement;
use crate::envelope::{BandFunction, EnvelopeSkip, Piece};
use crate::model::{inexact_notes, show_value, FitMode, Model};
use crate::num::{fmt_fraction, fmt_sig, NumFormat, Rat};
use crate::qe::output;
use num_bigint::BigInt;
use num_traits::{Signed, Zero};
use serde_json::{json, Value};

/// Up to this many measurements, the text report lists every residual.
const MAX_ROW_TABLE: usize = 100;
/// Most distinct points listed in the per-point residual table.
const MAX_POINT_TABLE: usize = 60;

/// A pruned re-analysis shown next to the full one.
#[derive(Debug, Clone)]
pub struct Pruned {
    /// Indices (into the full data) of the dropped measurements.
    pub dropped: Vec<usize>,
    /// The analysis without them.
    pub analysis: Analysis,
}

/// What to render.
pub struct Report<'a> {
    /// The model.
    pub model: &'a Model,
    /// Data file name.
    pub data_file: &'a str,
    /// All measurements.
    pub data: &'a [Measurement],
    /// The analysis of all of them.
    pub analysis: &'a Analysis,
    /// With `--drop`: the analysis without the dropped ones.
    pub pruned: Option<&'a Pruned>,
    /// With `--envelope` (and in whole reports): the band as a function.
    pub function: Option<&'a BandFunction>,
    /// Axis scales of the band plot (None: log when the values span more than a factor of 20).
    pub scales: [Option<crate::plot::Scale>; 2],
    /// Significant digits of decimals.
    pub digits: usize,
    /// Show exact fractions in the text report.
    pub exact: bool,
    /// Warnings from reading the data.
    pub warnings: &'a [String],
    /// With `--holdout`: the backtest (`data` and `analysis` are then its
    /// training measurements and their analysis).
    pub backtest: Option<&'a crate::backtest::Backtest>,
    /// With a family: the family on the same measurements (`data`).
    pub family: Option<&'a crate::family::FamilyAnalysis>,
    /// With `--plot-at`: the slice the band plot shows (default: the first
    /// varying variable, the others at the first prediction point).
    pub plot_at: Option<&'a crate::model::Slice>,
}

/// Whether a region's QE result carries its cylindrical cells (a whole
/// experiment skips them: `Options::no_cells`). A piece without
/// constraints (the whole space) has none either way.
fn has_cells(r: &crate::qe::QeResult) -> bool {
    r.pieces.iter().any(|p| !p.cells.is_empty() || p.minimal.constraints().is_empty())
}

/// `width_pruned / width_full`, when both are finite and the full one is non-zero.
pub fn shrink_ratio(full: &Option<Band>, pruned: &Option<Band>) -> Option<Rat> {
    crate::analysis::width_ratio(pruned.as_ref()?.width().as_ref(), full)
}

fn rel_half_width(b: &Band, model: &Rat) -> Option<Rat> {
    rel_half_width_parts(b, model).map(|(n, d)| crate::num::reduced(n, d))
}

/// (u − l)/(2|T|) as an unreduced numerator and denominator (`d > 0`), one
/// product each: a table that only shows its decimals never reduces it.
fn rel_half_width_parts(b: &Band, model: &Rat) -> Option<(BigInt, BigInt)> {
    let (l, u) = (b.lower.as_ref()?, b.upper.as_ref()?);
    if model.is_zero() {
        return None;
    }
    let w = u.numer() * l.denom() - l.numer() * u.denom();
    let two_t = BigInt::from(2) * model.numer().abs();
    Some((w * model.denom(), u.denom() * l.denom() * two_t))
}

/// The correctly rounded decimal of [`rel_half_width`] at `digits`
/// significant digits, scaled by `scale` (100 for a percentage); empty when
/// there is no finite band or the model value is zero.
fn rel_half_width_dec(b: Option<&Band>, model: &Rat, scale: u32, digits: usize) -> String {
    b.and_then(|b| rel_half_width_parts(b, model))
        .map_or(String::new(), |(n, d)| crate::num::fmt_sig_parts(&(n * scale), &d, digits))
}

/// The one JSON shape of an exact value on every command:
/// `{"exact": "p/q", "decimal": "…"}`, the decimal correctly rounded to
/// `digits` significant digits.
pub(crate) fn exact_json(x: &Rat, digits: usize) -> Value {
    json!({ "exact": fmt_fraction(x), "decimal": fmt_sig(x, digits) })
}

/// Number views shared by every renderer: correctly rounded decimals,
/// JSON pairs of exact and decimal, points as JSON, the RMS.
pub(crate) trait Views {
    /// The model whose variables name the points.
    fn model(&self) -> &Model;
    /// Significant digits of decimals.
    fn digits(&self) -> usize;
    /// Exact fractions instead of decimals in tables meant for reading (`--exact`).
    fn exact(&self) -> bool;
    /// As the reader asked: exact fraction or correctly rounded decimal.
    fn num(&self, x: &Rat) -> String {
        if self.exact() {
            fmt_fraction(x)
        } else {
            self.dec(x)
        }
    }
    /// Correctly rounded decimal.
    fn dec(&self, x: &Rat) -> String {
        fmt_sig(x, self.digits())
    }
    /// `{"exact": "p/q", "decimal": "…"}` ([`exact_json`]).
    fn both(&self, x: &Rat) -> Value {
        exact_json(x, self.digits())
    }
    /// [`Views::both`], or null.
    fn opt_both(&self, x: &Option<Rat>) -> Value {
        x.as_ref().map_or(Value::Null, |v| self.both(v))
    }
    /// `{"p": "1000"}`.
    fn point_json(&self, x: &[Rat]) -> Value {
        let mut m = serde_json::Map::new();
        for (v, val) in self.model().vars.iter().zip(x) {
            m.insert(v.clone(), Value::String(show_value(val)));
        }
        Value::Object(m)
    }
    /// A threshold as written with its bound: `max = 17.9772`,
    /// `trusted: r = 5 %`, or a number alone.
    fn bound_label(&self, text: &str, b: &crate::analysis::Bound) -> String {
        if crate::num::parse_rat(text).is_ok() {
            text.to_string()
        } else if b.is_relative() {
            format!("{text}: {}", b.describe(self.digits()))
        } else {
            format!("{text} = {}", self.num(&b.absolute))
        }
    }
    /// The RMS from the mean square, rounded once from the exact square root.
    /// A fitted parameter: `{"name": "a", "exact": "p/q", "decimal": "…"}`,
    /// the one shape of parameters in every command's JSON.
    fn param_json(&self, name: &str, v: &Rat) -> Value {
        json!({ "name": name, "exact": fmt_fraction(v), "decimal": fmt_sig(v, self.digits()) })
    }
    /// The RMS of residuals, `{"decimal": "…", "mean_square": {exact,
    /// decimal}}`: the RMS itself is irrational in general, so only its
    /// square is exact.
    fn rms_json(&self, ms: &Rat) -> Value {
        json!({ "decimal": self.rms_text(ms), "mean_square": self.both(ms) })
    }
    fn rms_text(&self, ms: &Rat) -> String {
        if ms.is_zero() {
            "0".into()
        } else {
            fmt_sig(&crate::fit::sqrt_display(ms, self.digits() as u32), self.digits())
        }
    }
}

/// `Views` for a renderer struct with `model`, `digits` and `exact` fields.
macro_rules! views {
    ($t:ident) => {
        impl $crate::report::Views for $t<'_> {
            fn model(&self) -> &$crate::model::Model {
                self.model
            }
            fn digits(&self) -> usize {
                self.digits
            }
            fn exact(&self) -> bool {
                self.exact
            }
        }
    };
}
pub(crate) use views;

views!(Report);

/// One command's report in each of its outputs: the one renderer behind
/// `prune`, `plan`, `energy`, `barrier` and `ms predict`, so that the CLI
/// writes `--format`, `--plot` and `--report` for all of them in one place
/// (`cli::whole`).
pub trait CommandReport {
    /// `errband prune: MODEL with DATA`.
    fn title(&self) -> String;
    /// The one sentence a reader needs first (the best choice, the
    /// conclusion), empty when the command has none.
    fn headline(&self) -> String;
    /// The terminal report.
    fn text(&self) -> String;
    /// Markdown.
    fn markdown(&self) -> String;
    /// JSON with exact values (`errband schema COMMAND`).
    fn json(&self) -> Value;
    /// CSV: the command's main table, one record per row.
    fn csv(&self) -> String;
    /// A LaTeX booktabs table, where the command has one.
    fn latex(&self) -> Option<String> {
        None
    }
    /// The charts (SVG), each with its `--plot` kind, which also names its
    /// file beside a Markdown report (`out-KIND.svg`).
    fn charts(&self) -> Vec<(&'static str, String)>;
}

/// Rows a ranked table shows: `show` of `n`, all when `show` is 0.
pub(crate) fn rows_shown(show: usize, n: usize) -> usize {
    if show == 0 {
        n
    } else {
        show.min(n)
    }
}

impl Report<'_> {
    fn fmt(&self) -> NumFormat {
        if self.exact {
            NumFormat::Exact
        } else {
            NumFormat::Decimal(self.digits)
        }
    }
    /// The RMS, correctly rounded to the report's digits (one rounding of
    /// the exact square root, never a rounding of a rounded value).
    fn band_text(&self, r: &Region, b: &Option<Band>) -> (String, String, String) {
        match b {
            None if matches!(r.shape, Shape::Untrusted { .. }) => ("no band".into(), "-".into(), "".into()),
            None => ("empty".into(), "empty".into(), "".into()),
            Some(b) => (
                b.lower.as_ref().map_or("-inf".into(), |v| self.num(v)),
                b.upper.as_ref().map_or("+inf".into(), |v| self.num(v)),
                String::new(),
            ),
        }
    }
    /// Lower end, upper end and relative half-width (around `model`) of a
    /// band, as table cells.
    fn band_cells(&self, r: &Region, b: &Option<Band>, model: &Rat) -> [String; 3] {
        let (l, u, _) = self.band_text(r, b);
        let rel = match rel_half_width_dec(b.as_ref(), model, 100, 3) {
            r if r.is_empty() => r,
            r => format!("{r}%"),
        };
        [l, u, rel]
    }

    fn threshold_label(&self, r: &Region) -> String {
        self.bound_label(&r.threshold.text, &r.bound)
    }
    fn dropped_text(&self, p: &Pruned) -> String {
        p.dropped
            .iter()
            .map(|&i| {
                format!(
                    "{} (row {}, line {})",
                    self.model.show_point(&self.data[i].x),
                    i + 1,
                    self.data[i].line
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// The terminal report, read top to bottom.
    pub fn text(&self) -> String {
        let m = self.model;
        let a = self.analysis;
        let mut o = String::new();
        let line = |o: &mut String, s: String| {
            o.push_str(&s);
            o.push('\n');
        };
        line(&mut o, format!("errband {} — {} with {}", env!("CARGO_PKG_VERSION"), m.file, self.data_file));
        line(&mut o, String::new());
        line(&mut o, format!("Model   {}({}) = {}", m.func, m.vars.join(", "), m.body_text));
        for (c, v) in &m.consts {
            line(&mut o, format!("        const {c} = {}", show_value(v)));
        }
        if !m.units.is_empty() {
            let u: Vec<String> = m.units.iter().map(|(k, v)| format!("{k} in {v}")).collect();
            line(&mut o, format!("        units: {}", u.join(", ")));
        }
        let names: Vec<&str> = m.params.iter().map(|p| p.name.as_str()).collect();
        let how = match (a.fit, &m.weight_text) {
            (FitMode::Given, _) => "given values (fit none)".to_string(),
            (FitMode::LeastSquares, None) => "exact least squares".to_string(),
            (FitMode::LeastSquares, Some(w)) => {
                format!("exact weighted least squares, weight {w} (minimises Σ (w·(d_i − T_i))²)")
            }
        };
        line(&mut o, format!("        params {}: {how}", names.join(", ")));
        for n in inexact_notes(&a.design.log, 8) {
            line(
                &mut o,
                format!("        note: {n} (not exact: rounded to {} significant digits)", m.digits()),
            );
        }
        if a.design.log.inexact.len() > 8 {
            line(&mut o, format!("        note: {} more inexact values", a.design.log.inexact.len() - 8));
        }
        let (n, g) = (self.data.len(), a.design.groups.len());
        line(
            &mut o,
            format!(
                "Data    {n} measurement{} at {g} distinct point{} ({})",
                plural(n),
                plural(g),
                self.data_file
            ),
        );
        for w in self.warnings {
            line(&mut o, format!("        warning: {w}"));
        }
        line(&mut o, String::new());

        line(&mut o, (if a.fit == FitMode::Given { "Parameters (given)" } else { "Fit" }).to_string());
        for (p, c) in m.params.iter().zip(&a.params) {
            let f = fmt_fraction(c);
            let exact = if self.exact || f.len() > 70 || f == self.num(c) {
                String::new()
            } else {
                format!("   = {f}")
            };
            line(&mut o, format!("  {} = {}{}", p.name, self.num(c), exact));
        }
        line(&mut o, String::new());

        self.residual_table(&mut o);
        line(&mut o, String::new());
        self.emax_text(&mut o, a);
        line(&mut o, String::new());
        self.regions_text(&mut o, a);
        self.bands_text(&mut o);
        if let Some((refit, ms)) = &a.hint {
            line(&mut o, String::new());
            line(&mut o, format!(
                "Hint: RMS = {} > e_max = {}: the model improves by moving to the minimax point C + Δc* (paper §4.3):",
                self.rms_text(&a.residuals.mean_square),
                self.dec(&a.emax)
            ));
            let vals: Vec<String> =
                m.params.iter().zip(refit).map(|(p, v)| format!("{} = {}", p.name, self.num(v))).collect();
            line(&mut o, format!("  param {}", vals.join(", ")));
            line(
                &mut o,
                format!(
                    "  (with `fit none`: Max|e_i| = e_max = {}, RMS = {})",
                    self.dec(&a.emax),
                    self.rms_text(ms)
                ),
            );
        }
        if let Some(p) = self.pruned {
            line(&mut o, String::new());
            self.pruned_text(&mut o, p);
        }
        if let Some(f) = self.function {
            line(&mut o, String::new());
            self.function_text(&mut o, f);
        }
        if let Some(f) = self.family {
            self.family_text(&mut o, f);
        }
        if let Some(b) = self.backtest {
            self.backtest_text(&mut o, b);
        }
        o
    }

    /// `lo ≤ x ≤ hi` with the breakpoint ends shown as decimals (`≈` where
    /// the end is an enclosure of an irrational or unresolved switch point).
    fn piece_range(&self, p: &Piece, f: &BandFunction) -> String {
        let end = |x: &Rat, exact: bool| {
            if exact {
                self.dec(x)
            } else {
                format!("≈{}", self.dec(x))
            }
        };
        let _ = f;
        format!("[{}, {}]", end(&p.from, p.from_exact), end(&p.to, p.to_exact))
    }

    fn function_text(&self, o: &mut String, f: &BandFunction) {
        let m = self.model;
        let a = self.analysis;
        if let Some(var) = m.vars.first().filter(|_| m.vars.len() == 1) {
            o.push_str(&format!(
                "Band as a function of {var} over [{}, {}]: each envelope piece is the model at one region vertex\n",
                self.dec(&f.lo),
                self.dec(&f.hi)
            ));
            for (r, e) in a.regions.iter().zip(&f.envelopes) {
                o.push_str(&format!("  threshold {}:", self.threshold_label(r)));
                match e {
                    Err(skip) => o.push_str(&format!(" {}\n", skip_text(skip))),
                    Ok(env) => {
                        o.push('\n');
                        for (name, chain) in [("upper", &env.upper), ("lower", &env.lower)] {
                            for (i, p) in chain.iter().enumerate() {
                                let params: Vec<String> = m
                                    .params
                                    .iter()
                                    .zip(&p.params)
                                    .map(|(n, v)| format!("{} = {}", n.name, self.num(v)))
                                    .collect();
                                o.push_str(&format!(
                                    "    {:5}  {var} in {}  vertex {}: {}\n",
                                    if i == 0 { name } else { "" },
                                    self.piece_range(p, f),
                                    p.vertex + 1,
                                    params.join(", ")
                                ));
                            }
                        }
                    }
                }
            }
            o.push_str("  (breakpoints are exact unless marked ≈: then enclosed exactly to 2^-48 of the sampling step, enclosure in JSON)\n\n");
        }
        o.push_str("Band against the threshold e' from e_max to Max|e_i| (linear between the rows)\n");
        for (p, c) in a.predictions.iter().zip(&f.curves) {
            o.push_str(&format!("  at {}:\n", m.show_point(&p.x)));
            let mut rows = vec![vec!["e'".to_string(), "lower".into(), "upper".into(), "width".into()]];
            for (e, l, u) in &c.points {
                let w = match (l, u) {
                    (Some(l), Some(u)) => self.num(&(u - l)),
                    _ => "inf".into(),
                };
                rows.push(vec![
                    self.num(e),
                    l.as_ref().map_or("-inf".into(), |v| self.num(v)),
                    u.as_ref().map_or("+inf".into(), |v| self.num(v)),
                    w,
                ]);
            }
            o.push_str(&table(&rows, 4));
        }
    }

    fn function_json(&self, f: &BandFunction) -> Value {
        let piece = |p: &Piece| {
            json!({
                "from": self.both(&p.from), "to": self.both(&p.to), "vertex": p.vertex + 1,
                "from_exact": p.from_exact, "to_exact": p.to_exact,
                "params": p.params.iter().map(|v| self.both(v)).collect::<Vec<_>>(),
            })
        };
        let envelopes: Vec<Value> = self
            .analysis
            .regions
            .iter()
            .zip(&f.envelopes)
            .map(|(r, e)| match e {
                Ok(env) => json!({
                    "threshold": r.threshold.text,
                    "upper": env.upper.iter().map(piece).collect::<Vec<_>>(),
                    "lower": env.lower.iter().map(piece).collect::<Vec<_>>(),
                }),
                Err(skip) => json!({ "threshold": r.threshold.text, "skipped": skip_text(skip) }),
            })
            .collect();
        let curves: Vec<Value> = self
            .analysis
            .predictions
            .iter()
            .zip(&f.curves)
            .map(|(p, c)| {
                json!({
                    "point": self.point_json(&p.x),
                    "breakpoints": c.points.iter().map(|(e, l, u)| json!({
                        "threshold": self.both(e), "lower": self.opt_both(l), "upper": self.opt_both(u),
                        "width": match (l, u) { (Some(l), Some(u)) => self.both(&(u - l)), _ => Value::Null },
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        json!({
            "range": { "from": self.both(&f.lo), "to": self.both(&f.hi) },
            "note": "from/to are exact breakpoints when from_exact/to_exact; otherwise they are the ends of an exact enclosure of the switch point",
            "envelopes": envelopes,
            "width_vs_threshold": curves,
        })
    }

    fn residual_table(&self, o: &mut String) {
        if self.data.len() > MAX_ROW_TABLE {
            return self.residual_point_table(o);
        }
        let m = self.model;
        let a = self.analysis;
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut head = vec!["row".to_string(), "line".to_string()];
        head.extend(m.vars.iter().cloned());
        head.extend(["d_i".to_string(), format!("{}(C,x_i)", m.func), "e_i".to_string()]);
        rows.push(head);
        for (i, d) in self.data.iter().enumerate() {
            let mut r = vec![(i + 1).to_string(), d.line.to_string()];
            r.extend(d.x.iter().map(show_value));
            r.push(self.num(&d.y));
            r.push(self.num(&a.residuals.model(i)));
            r.push(self.num(&a.residuals.e(self.data, i)));
            rows.push(r);
        }
        o.push_str("Residuals e_i = T(C, x_i) − d_i\n");
        o.push_str(&table(&rows, 2));
        self.max_rms_line(o);
    }

    /// Many measurements: one line per distinct point (count, range of the
    /// measurements, model value, range of the residuals), the points with
    /// the largest residuals first when there are too many to list.
    fn residual_point_table(&self, o: &mut String) {
        let m = self.model;
        let a = self.analysis;
        let groups = &a.design.groups;
        let mut order: Vec<usize> = (0..groups.len()).collect();
        // Largest |e_i| of a point, unreduced: it only ranks, no gcd per point.
        let worst = |g: usize| groups[g].worst_gap(a.residuals.value_unreduced(g));
        let listed = if groups.len() > MAX_POINT_TABLE {
            let w: Vec<Rat> = (0..groups.len()).map(worst).collect();
            order.sort_by(|&x, &y| crate::num::cmp_unreduced(&w[y], &w[x]).then(x.cmp(&y)));
            order.truncate(MAX_POINT_TABLE);
            false
        } else {
            true
        };
        let mut head: Vec<String> = m.vars.clone();
        head.extend([
            "count".into(),
            "d min".into(),
            "d max".into(),
            format!("{}(C,x)", m.func),
            "e min".into(),
            "e max".into(),
        ]);
        let mut rows = vec![head];
        for &g in &order {
            let gr = &groups[g];
            let t = &a.residuals.value(g);
            let mut r: Vec<String> = gr.x.iter().map(show_value).collect();
            r.push(gr.rows.len().to_string());
            r.extend([
                self.num(&gr.ymin),
                self.num(&gr.ymax),
                self.num(t),
                self.num(&crate::num::sub(t, &gr.ymax)),
                self.num(&crate::num::sub(t, &gr.ymin)),
            ]);
            rows.push(r);
        }
        o.push_str(&format!(
            "Residuals e_i = T(C, x_i) − d_i, by point ({} measurements at {} points{})\n",
            self.data.len(),
            groups.len(),
            if listed {
                String::new()
            } else {
                format!("; the {MAX_POINT_TABLE} points with the largest |e_i|")
            }
        ));
        o.push_str(&table(&rows, 2));
        if !listed {
            o.push_str(&format!(
                "  ... {} more points; --format json lists every residual\n",
                groups.len() - MAX_POINT_TABLE
            ));
        }
        self.max_rms_line(o);
    }

    fn max_rms_line(&self, o: &mut String) {
        let a = self.analysis;
        let am = a.residuals.argmax;
        o.push_str(&format!(
            "  Max|e_i| = {} (row {}, {})   RMS = {}\n",
            self.num(&a.residuals.max_abs),
            am + 1,
            self.model.show_point(&self.data[am].x),
            self.rms_text(&a.residuals.mean_square)
        ));
    }

    fn emax_text(&self, o: &mut String, a: &Analysis) {
        o.push_str(&format!(
            "e_max = {}   (exact {}): the smallest threshold any Δc meets on every measurement (paper eq. 6)\n",
            self.dec(&a.emax),
            fmt_fraction(&a.emax)
        ));
        let dc: Vec<String> =
            a.dnames.iter().zip(&a.emax_dc).map(|(n, v)| format!("{n} = {}", self.num(v))).collect();
        let how = if a.emax_unique {
            "attained only at"
        } else if !a.emax_listed {
            "attained (its region's vertices were not listed) for one at"
        } else {
            "attained on a face of the e_max region; its vertex mean is"
        };
        o.push_str(&format!("  {how} {}\n", dc.join(", ")));
        // Repeated measurements that disagree bound e_max from below for any
        // model: say so when that is what sets it.
        let two = Rat::from_integer(2.into());
        if let Some(g) =
            a.design.groups.iter().find(|g| !a.emax.is_zero() && (&g.ymax - &g.ymin) / &two == a.emax)
        {
            o.push_str(&format!(
                "  (= half the spread of the repeated measurements at {}: no model can do better)\n",
                self.model.show_point(&g.x)
            ));
        }
        match &a.remax {
            Some(r) => o.push_str(&format!(
                "remax = {} %   (exact {}): the smallest relative threshold, |T − d_i| ≤ r·d_i on every measurement; the fit's Max|e_i|/d_i is {} %\n",
                self.dec(&(r * Rat::from_integer(100.into()))),
                fmt_fraction(r),
                a.rmax.as_ref().map_or(String::new(), |v| self.dec(&(v * Rat::from_integer(100.into()))))
            )),
            None => o.push_str("remax: none (relative thresholds need every measurement positive)\n"),
        }
    }

    fn regions_text(&self, o: &mut String, a: &Analysis) {
        let order: Vec<&str> = a
            .regions
            .first()
            .map_or(vec![], |r| (0..r.result.vars.len()).map(|j| r.result.vars.name(j)).collect());
        o.push_str(&format!(
            "Regions of Δc = ({}) allowed by each threshold (paper eq. 5, 7)\n",
            a.dnames.join(", ")
        ));
        for r in &a.regions {
            let label = self.threshold_label(r);
            match &r.shape {
                Shape::Empty => {
                    o.push_str(&format!("  threshold {label}: empty: e_max = {} (exact {}); no Δc fits every measurement within {}\n", self.dec(&a.emax), fmt_fraction(&a.emax), self.num(&r.value)));
                    continue;
                }
                Shape::Untrusted { not_positive: true } => {
                    o.push_str(&format!("  threshold {label}: no trustworthy band: a relative bound needs positive measurements, and some are zero or negative\n"));
                    continue;
                }
                Shape::Untrusted { .. } => {
                    o.push_str(&format!(
                        "  threshold {label}: no trustworthy band: the model misses its own data by remax = {} %, so r reaches {} %; a band from this model form would not be worth betting on (try another form, or give -t explicitly)\n",
                        a.remax.as_ref().map_or("?".into(), |r| fmt_sig(&(r * Rat::from_integer(100.into())), 3)),
                        fmt_sig(&(&r.bound.relative * Rat::from_integer(100.into())), 3)
                    ));
                    continue;
                }
                Shape::Point => o.push_str(&format!("  threshold {label}: a single point\n")),
                Shape::Bounded => {
                    o.push_str(&format!("  threshold {label}: bounded, {} vertices\n", r.vertices.len()))
                }
                Shape::Unlisted { found, limit } => {
                    o.push_str(&format!(
                        "  threshold {label}: not listed: enumerating its vertices passed --max-vertices {limit} (reached {found}); it is the residual system at this threshold, and its bands come from exact LPs\n"
                    ));
                    continue;
                }
                Shape::Unbounded { rays, lines } => {
                    let dirs: Vec<String> = rays
                        .iter()
                        .map(|d| format!("+({})", self.vec_text(d)))
                        .chain(lines.iter().map(|d| format!("±({})", self.vec_text(d))))
                        .collect();
                    o.push_str(&format!(
                        "  threshold {label}: unbounded: the data leave Δc free along {} (over ({}))\n",
                        dirs.join(", "),
                        a.dnames.join(", ")
                    ));
                }
            }
            for v in &r.vertices {
                o.push_str(&format!("    vertex ({})\n", self.vec_text(v)));
            }
            if r.shape != Shape::Point && !has_cells(&r.result) {
                // A whole experiment skips the cylindrical forms (the cost of
                // its run); the vertices above are the region, exactly.
                o.push_str("    (cylindrical form not computed for a whole experiment: choose the series with --region and --metric to see it)\n");
            } else if r.shape != Shape::Point {
                o.push_str(&format!(
                    "    cylindrical ({} outermost):\n",
                    order.first().copied().unwrap_or("")
                ));
                let text = output::text(&r.result, self.fmt());
                for l in text.lines() {
                    o.push_str(&format!("      {l}\n"));
                }
            }
        }
    }

    fn vec_text(&self, v: &[Rat]) -> String {
        v.iter().map(|x| self.num(x)).collect::<Vec<_>>().join(", ")
    }

    fn bands_text(&self, o: &mut String) {
        let a = self.analysis;
        if a.predictions.is_empty() {
            o.push_str("\nNo prediction points (add `predict p = ...` to the model or `--at p=...`).\n");
            return;
        }
        o.push_str(&format!(
            "\nBands of {}(C+Δc, x) over each region (* = extrapolated beyond the data)\n",
            self.model.func
        ));
        let mut head: Vec<String> = self.model.vars.clone();
        head.push(format!("{}(C,x)", self.model.func));
        for r in &a.regions {
            let t = &r.threshold.text;
            head.extend([format!("{t}: lower"), "upper".into(), "±rel".into()]);
        }
        let mut rows = vec![head];
        for p in &a.predictions {
            let mut row: Vec<String> = p.coords_marked();
            row.push(self.num(&p.model));
            for (r, b) in a.regions.iter().zip(&p.bands) {
                row.extend(self.band_cells(r, b, &p.model));
            }
            rows.push(row);
        }
        o.push_str(&table(&rows, 2));
        o.push_str(&format!(
            "\nBands of a new measurement at x: it scatters about {}(c, x) as the data did within each threshold ([L − a, U + a] for an absolute threshold a, [L/(1+r), U/(1−r)] for a relative one r)\n",
            self.model.func
        ));
        if let Some(def) = a.regions.iter().find_map(|r| r.threshold.definition()) {
            o.push_str(&format!(
                "  trusted = {def}: assumes the model form {}({}) = {} and new measurements scattering about it as the old ones did; no band covers a change of regime (a protocol switch, a cache cliff)\n",
                self.model.func,
                self.model.vars.join(", "),
                self.model.body_text
            ));
        }
        let mut head: Vec<String> = self.model.vars.clone();
        for r in &a.regions {
            let t = &r.threshold.text;
            head.extend([format!("{t}: lower"), "upper".into(), "±rel".into()]);
        }
        let mut rows = vec![head];
        for p in &a.predictions {
            let mut row: Vec<String> = p.coords_marked();
            for (r, b) in a.regions.iter().zip(&p.measurement) {
                row.extend(self.band_cells(r, b, &p.model));
            }
            rows.push(row);
        }
        o.push_str(&table(&rows, 2));
    }

    fn pruned_text(&self, o: &mut String, p: &Pruned) {
        let a = self.analysis;
        let b = &p.analysis;
        o.push_str(&format!("Pruned: without {}\n", self.dropped_text(p)));
        for (par, c) in self.model.params.iter().zip(&b.params) {
            o.push_str(&format!("  {} = {}\n", par.name, self.num(c)));
        }
        o.push_str(&format!(
            "  Max|e_i| = {} (was {})   RMS = {} (was {})   e_max = {} (was {})\n",
            self.num(&b.residuals.max_abs),
            self.num(&a.residuals.max_abs),
            self.rms_text(&b.residuals.mean_square),
            self.rms_text(&a.residuals.mean_square),
            self.dec(&b.emax),
            self.dec(&a.emax)
        ));
        let mut head: Vec<String> = self.model.vars.clone();
        head.extend(["threshold".into(), "band (all data)".into(), "band (pruned)".into(), "shrink".into()]);
        let mut rows = vec![head];
        for (pa, pb) in a.predictions.iter().zip(&b.predictions) {
            for (i, r) in a.regions.iter().enumerate() {
                let mut row: Vec<String> = pa.x.iter().map(show_value).collect();
                row.push(r.threshold.text.clone());
                let show = |bd: &Option<Band>| {
                    let (l, u, _) = self.band_text(r, bd);
                    if bd.is_none() {
                        l
                    } else {
                        format!("[{l}, {u}]")
                    }
                };
                row.push(show(&pa.bands[i]));
                row.push(show(&pb.bands[i]));
                row.push(
                    shrink_ratio(&pa.bands[i], &pb.bands[i])
                        .map_or("-".into(), |s| format!("×{}", fmt_sig(&s, 3))),
                );
                rows.push(row);
            }
        }
        o.push_str(&table(&rows, 2));
    }

    /// One measurement's row of the residual table.
    fn residual_json(&self, a: &Analysis, data: &[Measurement], rows: &[usize], i: usize) -> Value {
        let d = &data[i];
        json!({
            "row": rows[i] + 1, "line": d.line, "point": self.point_json(&d.x),
            "measured": self.both(&d.y), "model": self.both(&a.residuals.model(i)), "residual": self.both(&a.residuals.e(data, i)),
        })
    }

    /// `residuals` is the residual table or its placeholder ([`stream`]).
    fn analysis_json(&self, a: &Analysis, rows: &[usize], residuals: Value) -> Value {
        let fmt = NumFormat::Exact;
        let params: Vec<Value> =
            self.model.params.iter().zip(&a.params).map(|(p, c)| self.param_json(&p.name, c)).collect();
        let regions: Vec<Value> = a
            .regions
            .iter()
            .map(|r| {
                let vert = |v: &Vec<Rat>| {
                    let mut m = serde_json::Map::new();
                    for (n, x) in a.dnames.iter().zip(v) {
                        m.insert(n.clone(), self.both(x));
                    }
                    Value::Object(m)
                };
                let (shape, rays, lines) = match &r.shape {
                    Shape::Empty => ("empty", vec![], vec![]),
                    Shape::Untrusted { .. } => {
                        return json!({
                            "threshold": r.threshold.text, "value": self.both(&r.value), "bound": self.bound_json(&r.bound), "shape": "untrusted",
                            "untrusted": "the relative bound reaches the threshold's limit: no trustworthy band",
                        });
                    }
                    Shape::Point => ("point", vec![], vec![]),
                    Shape::Bounded => ("bounded", vec![], vec![]),
                    Shape::Unbounded { rays, lines } => ("unbounded", rays.iter().map(vert).collect(), lines.iter().map(vert).collect()),
                    Shape::Unlisted { found, limit } => {
                        return json!({
                            "threshold": r.threshold.text, "value": self.both(&r.value), "bound": self.bound_json(&r.bound), "shape": "unlisted",
                            "unlisted": { "vertices_reached": found, "max_vertices": limit, "bands": "exact LPs over the residual system" },
                        });
                    }
                };
                let cells = output::json(&r.result, fmt, false);
                json!({
                    "threshold": r.threshold.text, "definition": r.threshold.definition(), "value": self.both(&r.value), "bound": self.bound_json(&r.bound), "shape": shape,
                    "vertices": r.vertices.iter().map(vert).collect::<Vec<_>>(), "rays": rays, "lines": lines,
                    "cylindrical": if has_cells(&r.result) || r.result.pieces.is_empty() { json!({ "order": (0..r.result.vars.len()).map(|j| r.result.vars.name(j).to_string()).collect::<Vec<_>>(), "text": output::text(&r.result, fmt), "result": cells }) } else { Value::Null },
                })
            })
            .collect();
        let bands: Vec<Value> = a.predictions.iter().map(|p| self.prediction_json(a, p)).collect();
        let dc = {
            let mut m = serde_json::Map::new();
            for (n, x) in a.dnames.iter().zip(&a.emax_dc) {
                m.insert(n.clone(), self.both(x));
            }
            Value::Object(m)
        };
        json!({
            "fit": if a.fit == FitMode::Given { "none" } else { "lsq" },
            "params": params,
            "residuals": residuals,
            "max_residual": { "exact": fmt_fraction(&a.residuals.max_abs), "decimal": self.dec(&a.residuals.max_abs), "row": rows[a.residuals.argmax] + 1 },
            "rms": self.rms_json(&a.residuals.mean_square),
            "emax": { "exact": fmt_fraction(&a.emax), "decimal": self.dec(&a.emax), "dc": dc, "unique": a.emax_unique },
            "rmax": a.rmax.as_ref().map_or(Value::Null, |v| self.both(v)),
            "remax": a.remax.as_ref().map_or(Value::Null, |v| self.both(v)),
            "regions": regions,
            "bands": bands,
            "hint": a.hint.as_ref().map(|(refit, ms)| json!({
                "params": self.model.params.iter().zip(refit).map(|(p, c)| self.param_json(&p.name, c)).collect::<Vec<_>>(),
                "max_residual": self.both(&a.emax),
                "rms": self.rms_json(ms),
            })),
        })
    }

    /// A residual bound `a + r·d` as `{absolute, relative}`.
    fn bound_json(&self, b: &crate::analysis::Bound) -> Value {
        json!({ "absolute": self.both(&b.absolute), "relative": self.both(&b.relative) })
    }

    fn prediction_json(&self, a: &Analysis, p: &Prediction) -> Value {
        let bands: Vec<Value> = a
            .regions
            .iter()
            .zip(p.bands.iter().zip(&p.measurement))
            .map(|(r, (b, m))| match (b, m) {
                (Some(b), Some(m)) => json!({
                    "threshold": r.threshold.text,
                    "lower": self.opt_both(&b.lower), "upper": self.opt_both(&b.upper),
                    "relative_half_width": rel_half_width(b, &p.model).map_or(Value::Null, |v| self.both(&v)),
                    "measurement_band": {
                        "lower": self.opt_both(&m.lower), "upper": self.opt_both(&m.upper),
                        "relative_half_width": rel_half_width(m, &p.model).map_or(Value::Null, |v| self.both(&v)),
                    },
                }),
                _ if matches!(r.shape, Shape::Untrusted { .. }) => json!({ "threshold": r.threshold.text, "untrusted": true }),
                _ => json!({ "threshold": r.threshold.text, "empty": true }),
            })
            .collect();
        json!({ "point": self.point_json(&p.x), "model": self.both(&p.model), "extrapolated": p.extrapolated(), "bands": bands })
    }

    /// The JSON document (schema in the README).
    pub fn json(&self) -> Value {
        let (mut doc, arrays) = self.json_parts();
        stream::fill(&mut doc, &arrays);
        doc
    }

    /// Writes [`Report::json`] as pretty JSON (with a final newline) without
    /// holding it: the residual tables are produced row by row as they are
    /// written, so a million measurements need no gigabytes.
    pub fn write_json(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let (doc, arrays) = self.json_parts();
        stream::write_pretty(&doc, &arrays, w)
    }

    /// The JSON document with its residual tables as placeholders, and the tables.
    fn json_parts(&self) -> (Value, Vec<stream::LongArray<'_>>) {
        let m = self.model;
        let all: Vec<usize> = (0..self.data.len()).collect();
        let mut arrays: Vec<stream::LongArray<'_>> = Vec::new();
        let mut doc = json!({
            "errband": env!("CARGO_PKG_VERSION"),
            "model": {
                "file": m.file, "function": m.func, "variables": m.vars, "body": m.body_text,
                "params": m.params.iter().map(|p| p.name.clone()).collect::<Vec<_>>(),
                "weight": m.weight_text, "digits": m.digits(), "units": m.units,
                "inexact": inexact_notes(&self.analysis.design.log, usize::MAX),
            },
            "data": { "file": self.data_file, "measurements": self.data.len(), "points": self.analysis.design.groups.len(), "warnings": self.warnings },
        });
        let main = self.analysis_json(self.analysis, &all, stream::placeholder(arrays.len()));
        arrays.push(stream::LongArray {
            len: self.data.len(),
            row: Box::new(move |i| self.residual_json(self.analysis, self.data, &all, i)),
        });
        if let (Value::Object(d), Value::Object(a)) = (&mut doc, main) {
            d.extend(a);
        }
        if let Some(p) = self.pruned {
            let kept: Vec<usize> = (0..self.data.len()).filter(|i| !p.dropped.contains(i)).collect();
            let kept_data: Vec<Measurement> = kept.iter().map(|&i| self.data[i].clone()).collect();
            let mut pj = self.analysis_json(&p.analysis, &kept, stream::placeholder(arrays.len()));
            arrays.push(stream::LongArray {
                len: kept_data.len(),
                row: Box::new(move |i| self.residual_json(&p.analysis, &kept_data, &kept, i)),
            });
            let shrink: Vec<Value> = self
                .analysis
                .predictions
                .iter()
                .zip(&p.analysis.predictions)
                .map(|(a, b)| {
                    let ratios: Vec<Value> = self
                        .analysis
                        .regions
                        .iter()
                        .enumerate()
                        .map(|(i, r)| json!({ "threshold": r.threshold.text, "ratio": shrink_ratio(&a.bands[i], &b.bands[i]).map_or(Value::Null, |v| self.both(&v)) }))
                        .collect();
                    json!({ "point": self.point_json(&a.x), "shrink": ratios })
                })
                .collect();
            if let Value::Object(o) = &mut pj {
                o.insert("dropped".into(), json!(p.dropped.iter().map(|&i| json!({"row": i + 1, "line": self.data[i].line, "point": self.point_json(&self.data[i].x)})).collect::<Vec<_>>()));
                o.insert("shrink".into(), Value::Array(shrink));
            }
            if let Value::Object(d) = &mut doc {
                d.insert("pruned".into(), pj);
            }
        }
        if let (Some(f), Value::Object(d)) = (self.function, &mut doc) {
            d.insert("band_function".into(), self.function_json(f));
        }
        if let (Some(f), Value::Object(d)) = (self.family, &mut doc) {
            d.insert("family".into(), self.family_json(f));
        }
        if let (Some(b), Value::Object(d)) = (self.backtest, &mut doc) {
            d.insert("holdout".into(), self.backtest_json(b));
        }
        (doc, arrays)
    }

    /// The band table as CSV: one row per prediction point and threshold
    /// (exact and decimal columns; with `--drop`, the pruned band and the shrink ratio).
    pub fn csv(&self) -> String {
        self.csv_parts().concat()
    }

    /// [`Report::csv`] in pieces, the header first and then the lines of
    /// each prediction point, for writing without joining them (a table of
    /// 10^5 points is 50 MB).
    pub fn csv_parts(&self) -> Vec<String> {
        let m = self.model;
        let mut head: Vec<String> = m.vars.clone();
        head.extend(
            [
                "extrapolated",
                "threshold",
                "threshold_value",
                "threshold_relative",
                "model",
                "lower",
                "upper",
                "relative_half_width",
                "measurement_lower",
                "measurement_upper",
                "model_exact",
                "lower_exact",
                "upper_exact",
                "measurement_lower_exact",
                "measurement_upper_exact",
            ]
            .map(String::from),
        );
        if self.pruned.is_some() {
            head.extend(
                [
                    "pruned_model",
                    "pruned_lower",
                    "pruned_upper",
                    "shrink_ratio",
                    "pruned_lower_exact",
                    "pruned_upper_exact",
                ]
                .map(String::from),
            );
        }
        if self.family.is_some() {
            head.extend(
                [
                    "family_forms",
                    "family_lower",
                    "family_upper",
                    "family_measurement_lower",
                    "family_measurement_upper",
                    "family_lower_exact",
                    "family_upper_exact",
                    "family_measurement_lower_exact",
                    "family_measurement_upper_exact",
                ]
                .map(String::from),
            );
        }
        let out = csv_line(&head);
        let inf = |v: &Option<Rat>, neg: bool, exact: bool| match v {
            Some(x) => {
                if exact {
                    fmt_fraction(x)
                } else {
                    self.dec(x)
                }
            }
            None => (if neg { "-inf" } else { "+inf" }).to_string(),
        };
        // The family's points by position (a search per point was quadratic).
        let family_at: std::collections::HashMap<&[Rat], usize> = self
            .family
            .map(|f| f.points.iter().enumerate().rev().map(|(k, x)| (x.as_slice(), k)).collect())
            .unwrap_or_default();
        // Each prediction's lines in parallel (correctly rounded decimals
        // and exact fractions of long values), joined in order.
        use rayon::prelude::*;
        let lines = |(pi, p): (usize, &crate::analysis::Prediction)| -> String {
            let mut out = String::new();
            for (ri, r) in self.analysis.regions.iter().enumerate() {
                let mut row: Vec<String> = p.x.iter().map(show_value).collect();
                row.push(p.extrapolated().to_string());
                row.push(r.threshold.text.clone());
                row.push(self.dec(&r.value));
                row.push(self.dec(&r.bound.relative));
                row.push(self.dec(&p.model));
                let (b, mb) = (&p.bands[ri], &p.measurement[ri]);
                let none = if matches!(r.shape, Shape::Untrusted { .. }) { "untrusted" } else { "empty" };
                let ends = |band: &Option<Band>, exact: bool| match band {
                    None => [none.to_string(), none.to_string()],
                    Some(b) => [inf(&b.lower, true, exact), inf(&b.upper, false, exact)],
                };
                row.extend(ends(b, false));
                row.push(rel_half_width_dec(b.as_ref(), &p.model, 1, self.digits()));
                row.extend(ends(mb, false));
                row.push(fmt_fraction(&p.model));
                row.extend(ends(b, true));
                row.extend(ends(mb, true));
                if let Some(pr) = self.pruned {
                    let q = &pr.analysis.predictions[pi];
                    row.push(self.dec(&q.model));
                    match &q.bands[ri] {
                        None => row.extend(["empty", "empty"].map(String::from)),
                        Some(qb) => {
                            row.push(inf(&qb.lower, true, false));
                            row.push(inf(&qb.upper, false, false));
                        }
                    }
                    row.push(shrink_ratio(b, &q.bands[ri]).map_or(String::new(), |v| self.dec(&v)));
                    match &q.bands[ri] {
                        None => row.extend(["empty", "empty"].map(String::from)),
                        Some(qb) => {
                            row.push(inf(&qb.lower, true, true));
                            row.push(inf(&qb.upper, false, true));
                        }
                    }
                }
                if let Some(f) = self.family {
                    // The family's thresholds are the analysis' (same order);
                    // its points are the analysis' prediction points.
                    let h = family_at.get(p.x.as_slice()).and_then(|&k| f.hull.get(ri)?.get(k)?.as_ref());
                    match h {
                        None => {
                            let why = if f.levels.get(ri).is_some_and(|l| l.bound.is_none()) {
                                "untrusted"
                            } else {
                                "none"
                            };
                            row.push("0".into());
                            row.extend(std::iter::repeat_n(why.to_string(), 8));
                        }
                        Some(h) => {
                            row.push(h.forms.to_string());
                            for exact in [false, true] {
                                row.push(inf(&h.model.lower, true, exact));
                                row.push(inf(&h.model.upper, false, exact));
                                row.push(inf(&h.measurement.lower, true, exact));
                                row.push(inf(&h.measurement.upper, false, exact));
                            }
                        }
                    }
                }
                out.push_str(&csv_line(&row));
            }
            out
        };
        let mut parts = Vec::with_capacity(self.analysis.predictions.len() + 1);
        parts.push(out);
        parts.par_extend(self.analysis.predictions.par_iter().enumerate().map(lines));
        parts
    }

    /// Markdown: the same sections as the text report, as tables.
    pub fn markdown(&self) -> String {
        let m = self.model;
        let a = self.analysis;
        let mut o = String::new();
        o.push_str(&format!("# errband: {} with {}\n\n", md_escape(&m.file), md_escape(self.data_file)));
        o.push_str(&format!(
            "Model: `{}({}) = {}`",
            m.func,
            m.vars.join(", "),
            m.body_text.replace('`', "'")
        ));
        o.push_str(&format!(
            " — {} measurements at {} distinct points.\n\n",
            self.data.len(),
            a.design.groups.len()
        ));
        o.push_str("## Parameters\n\n| parameter | value | exact |\n|---|---|---|\n");
        for (p, c) in m.params.iter().zip(&a.params) {
            o.push_str(&format!("| {} | {} | {} |\n", md_escape(&p.name), self.dec(c), fmt_fraction(c)));
        }
        o.push_str(&format!(
            "\nMax|e_i| = {}, RMS = {}, e_max = {} (exact {}){}.\n\n",
            self.dec(&a.residuals.max_abs),
            self.rms_text(&a.residuals.mean_square),
            self.dec(&a.emax),
            fmt_fraction(&a.emax),
            a.remax.as_ref().map_or(String::new(), |r| format!(
                ", remax = {} % (exact {})",
                self.dec(&(r * Rat::from_integer(100.into()))),
                fmt_fraction(r)
            ))
        ));
        o.push_str("## Residuals\n\n");
        let mut head = vec!["row".to_string()];
        head.extend(m.vars.iter().cloned());
        head.extend(["d_i".into(), "T(C,x_i)".into(), "e_i".into()]);
        o.push_str(&md_table_head(&head));
        for (i, d) in self.data.iter().enumerate() {
            let mut r = vec![(i + 1).to_string()];
            r.extend(d.x.iter().map(show_value));
            r.extend([
                self.dec(&d.y),
                self.dec(&a.residuals.model(i)),
                self.dec(&a.residuals.e(self.data, i)),
            ]);
            o.push_str(&md_row(&r));
        }
        o.push_str("\n## Regions\n\n");
        for r in &a.regions {
            o.push_str(&format!("- threshold `{}`: ", md_escape(&self.threshold_label(r))));
            match &r.shape {
                Shape::Empty => o.push_str(&format!("empty (e_max = {})\n", self.dec(&a.emax))),
                Shape::Untrusted { .. } => o.push_str("no trustworthy band: the model misses its own data by too much\n"),
                Shape::Unlisted { found, limit } => o.push_str(&format!(
                    "not listed (its vertex enumeration passed --max-vertices {limit}, reaching {found}); bands from exact LPs\n"
                )),
                _ => {
                    let v: Vec<String> = r
                        .vertices
                        .iter()
                        .map(|v| {
                            format!("({})", v.iter().map(|x| self.dec(x)).collect::<Vec<_>>().join(", "))
                        })
                        .collect();
                    let unb = if matches!(r.shape, Shape::Unbounded { .. }) { " (unbounded)" } else { "" };
                    let n = r.vertices.len();
                    o.push_str(&format!(
                        "{n} vert{}{unb}: {}\n",
                        if n == 1 { "ex" } else { "ices" },
                        v.join(", ")
                    ));
                }
            }
        }
        o.push_str("\n## Bands\n\n`*` marks coordinates outside the range of the data (extrapolation).\n\n");
        let mut head: Vec<String> = m.vars.clone();
        head.push("T(C,x)".into());
        for r in &a.regions {
            let t = &r.threshold.text;
            head.extend([
                format!("{t} lower"),
                format!("{t} upper"),
                format!("{t} new measurement lower"),
                format!("{t} new measurement upper"),
            ]);
        }
        o.push_str(&md_table_head(&head));
        for p in &a.predictions {
            let mut row: Vec<String> = p.coords_marked();
            row.push(self.dec(&p.model));
            for (r, b) in a
                .regions
                .iter()
                .flat_map(|r| [r, r])
                .zip(p.bands.iter().zip(&p.measurement).flat_map(|(b, m)| [b, m]))
            {
                let (l, u, _) = self.band_text(r, b);
                row.extend([l, u]);
            }
            o.push_str(&md_row(&row));
        }
        if let Some(p) = self.pruned {
            o.push_str(&format!("\n## Pruned: without {}\n\n", md_escape(&self.dropped_text(p))));
            let mut head: Vec<String> = m.vars.clone();
            head.extend(["threshold".into(), "width (all)".into(), "width (pruned)".into(), "shrink".into()]);
            o.push_str(&md_table_head(&head));
            for (pa, pb) in a.predictions.iter().zip(&p.analysis.predictions) {
                for (i, r) in a.regions.iter().enumerate() {
                    let mut row: Vec<String> = pa.x.iter().map(show_value).collect();
                    let w = |b: &Option<Band>| {
                        b.as_ref().and_then(|b| b.width()).map_or("-".into(), |w| self.dec(&w))
                    };
                    row.extend([
                        r.threshold.text.clone(),
                        w(&pa.bands[i]),
                        w(&pb.bands[i]),
                        shrink_ratio(&pa.bands[i], &pb.bands[i])
                            .map_or("-".into(), |s| format!("×{}", fmt_sig(&s, 3))),
                    ]);
                    o.push_str(&md_row(&row));
                }
            }
        }
        if let Some((refit, _)) = &a.hint {
            let vals: Vec<String> =
                m.params.iter().zip(refit).map(|(p, v)| format!("{} = {}", p.name, self.dec(v))).collect();
            o.push_str(&format!(
                "\n**Hint:** RMS > e_max; the minimax point {} has Max|e_i| = e_max.\n",
                vals.join(", ")
            ));
        }
        if let Some(f) = self.family {
            self.family_markdown(&mut o, f);
        }
        if let Some(b) = self.backtest {
            self.backtest_markdown(&mut o, b);
        }
        o
    }
}

fn skip_text(s: &EnvelopeSkip) -> String {
    match s {
        EnvelopeSkip::NotOneVariable => "no envelope: the model has several variables".into(),
        EnvelopeSkip::Empty => "empty region".into(),
        EnvelopeSkip::Untrusted => "no trustworthy band at this threshold".into(),
        EnvelopeSkip::Unbounded => "unbounded region: a side of the band is infinite".into(),
        EnvelopeSkip::Unlisted => {
            "no envelope: the region's vertices were not listed (--max-vertices)".into()
        }
        EnvelopeSkip::Undefined(m) => format!("no envelope: {m}"),
    }
}

pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Right-aligned columns, two spaces apart.
pub(crate) fn table(rows: &[Vec<String>], indent: usize) -> String {
    table_left(rows, indent, &[])
}

/// Like [`table`], with the columns in `left` left-aligned (labels).
pub(crate) fn table_left(rows: &[Vec<String>], indent: usize, left: &[usize]) -> String {
    let ncol = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut w = vec![0; ncol];
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    // Written in place, padding included (a 10 000-row table made two
    // strings per cell before).
    let mut out = String::with_capacity(rows.len() * (indent + w.iter().map(|x| x + 2).sum::<usize>() + 1));
    let pad = |out: &mut String, n: usize| out.extend(std::iter::repeat_n(' ', n));
    for r in rows {
        let start = out.len();
        pad(&mut out, indent);
        for (i, c) in r.iter().enumerate() {
            let n = w[i] - c.chars().count();
            if i > 0 {
                out.push_str("  ");
            }
            if left.contains(&i) {
                out.push_str(c);
                pad(&mut out, n);
            } else {
                pad(&mut out, n);
                out.push_str(c);
            }
        }
        let kept = start + out[start..].trim_end().len();
        out.truncate(kept);
        out.push('\n');
    }
    out
}

/// One CSV record (RFC 4180 quoting).
pub(crate) fn csv_line(cells: &[String]) -> String {
    let mut line = String::with_capacity(cells.iter().map(|c| c.len() + 1).sum::<usize>() + 1);
    for (i, c) in cells.iter().enumerate() {
        if i > 0 {
            line.push(',');
        }
        line.push_str(&csv_cell(c));
    }
    line.push('\n');
    line
}

/// One CSV cell, quoted when needed and inert in spreadsheets: text that
/// starts like a formula (`=`, `+`, `-`, `@`) and is not a number gets a
/// leading `'` (OWASP's advice against formula injection), and control
/// characters are written as `\u{..}`.
fn csv_cell(c: &str) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    let control = |ch: char| ch.is_control() && ch != '\n';
    let formula = |c: &str| c.starts_with(['=', '+', '-', '@']) && c != "-" && !numeric(c);
    if !c.contains(control) && !formula(c) && !c.contains([',', '"', '\n']) {
        return Cow::Borrowed(c); // every number, most text
    }
    let mut c: String = if c.contains(control) {
        c.chars()
            .map(|ch| if control(ch) { format!("\\u{{{:x}}}", u32::from(ch)) } else { ch.to_string() })
            .collect()
    } else {
        c.to_string()
    };
    if formula(&c) {
        c.insert(0, '\'');
    }
    if c.contains([',', '"', '\n']) {
        Cow::Owned(format!("\"{}\"", c.replace('"', "\"\"")))
    } else {
        Cow::Owned(c)
    }
}

/// A number as errband writes them (`-12`, `-0.5`, `-1.5e-7`, `-3/4`): safe
/// at the start of a spreadsheet cell. Checked by its characters, not
/// parsed: long exact fractions fill whole band tables.
fn numeric(c: &str) -> bool {
    let body = c.strip_prefix(['-', '+']).unwrap_or(c);
    let (mantissa, denominator) = match body.split_once('/') {
        Some((m, d)) => (m, Some(d)),
        None => (body, None),
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let (base, exp) = match mantissa.split_once(['e', 'E']) {
        Some((b, e)) => (b, Some(e.strip_prefix(['-', '+']).unwrap_or(e))),
        None => (mantissa, None),
    };
    let base_ok = match base.split_once('.') {
        Some((i, f)) => digits(i) && digits(f),
        None => digits(base),
    };
    base_ok && exp.is_none_or(digits) && denominator.is_none_or(digits)
}

/// Text from inputs made inert in Markdown: markup characters are
/// backslash-escaped, and `<`, `>` and `&` become entities, which no
/// renderer turns into HTML (backslash escapes of `<` are not honoured
/// everywhere raw HTML is allowed).
pub(crate) fn md_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '&' => o.push_str("&amp;"),
            c if c.is_control() => o.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => {
                if "\\`*_{}[]()#+!|".contains(c) {
                    o.push('\\');
                }
                o.push(c);
            }
        }
    }
    o
}

pub(crate) fn md_table_head(head: &[String]) -> String {
    let mut s = md_row(head);
    s.push_str(&format!("|{}\n", "---|".repeat(head.len())));
    s
}

/// A Markdown table row. Cells are made safe for a table and for renderers
/// that allow raw HTML: `<` and `>` become entities, and a `|` not already
/// escaped is escaped.
pub(crate) fn md_row(cells: &[String]) -> String {
    let cell = |c: &String| {
        let mut o = String::with_capacity(c.len());
        let mut escaped = false;
        for ch in c.chars() {
            match ch {
                '<' => o.push_str("&lt;"),
                '>' => o.push_str("&gt;"),
                '|' if !escaped => o.push_str("\\|"),
                c if c.is_control() => o.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
                c => o.push(c),
            }
            escaped = ch == '\\' && !escaped;
        }
        o
    };
    format!("| {} |\n", cells.iter().map(cell).collect::<Vec<_>>().join(" | "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_cells_are_quoted_and_inert_in_spreadsheets() {
        let line = |cells: &[&str]| csv_line(&cells.iter().map(|c| c.to_string()).collect::<Vec<_>>());
        assert_eq!(line(&["-3.5", "+2", "-13/4", "1e-7", "-"]), "-3.5,+2,-13/4,1e-7,-\n");
        assert_eq!(
            line(&["=1+2", "@SUM(A1)", "-cmd|' /C calc'!A0"]),
            "'=1+2,'@SUM(A1),'-cmd|' /C calc'!A0\n"
        );
        assert_eq!(line(&["a,b", "say \"hi\"", "bell\u{7}"]), "\"a,b\",\"say \"\"hi\"\"\",bell\\u{7}\n");
        assert_eq!(line(&["=a,b"]), "\"'=a,b\"\n");
        // Numbers are recognised by their characters, as errband writes them.
        assert_eq!(line(&["-1.5e-7", "-0.25E+3", "-12/7", "-inf"]), "-1.5e-7,-0.25E+3,-12/7,'-inf\n");
        assert_eq!(
            line(&["-1.", "-.5", "-1e", "-1/", "-1/2/3", "--1"]),
            "'-1.,'-.5,'-1e,'-1/,'-1/2/3,'--1\n"
        );
    }

    #[test]
    fn markdown_text_and_cells_cannot_carry_html() {
        assert_eq!(md_escape("<b>a_b & c</b>"), "&lt;b&gt;a\\_b &amp; c&lt;/b&gt;");
        assert_eq!(md_row(&["<i>".into(), "a|b".into(), "c\\|d".into()]), "| &lt;i&gt; | a\\|b | c\\|d |\n");
    }
}
