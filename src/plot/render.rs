//! Layout and drawing: ranges, margins sized from the tick labels, series in
//! three layers (fills, lines, markers) clipped to the plot area, and a
//! legend placed in the corner that hides the least data.

use super::svg::{self, esc, num, pt, Pt, Rect};
use super::ticks::{self, Tick};
use super::{Axis, BarChart, Chart, Mark, Scale, SeriesKind, PALETTE};

/// Stands in for the clip-path id until the fragment is hashed; `<` cannot
/// survive escaping, so no user text can contain it.
pub(super) const ID_SLOT: &str = "<clip-id>";
pub(super) const TICK_FONT: f64 = 11.0;
pub(super) const LABEL_FONT: f64 = 12.0;
const TITLE_FONT: f64 = 14.0;
pub(super) const SMALL_FONT: f64 = 10.0;
/// Average advance of a sans-serif character, in ems (~7 px at 12 px).
const CHAR_EM: f64 = 0.6;
pub(super) const TICK_LEN: f64 = 4.0;
const MARK_R: f64 = 3.5;
pub(super) const INK: &str = "#333";
const GRID_INK: &str = "#e3e3e3";
/// Geometry this far outside the plot is clipped before it is written.
const SLACK: f64 = 20.0;
/// A white outline under text drawn over data keeps it readable.
pub(super) const HALO: &str =
    "stroke=\"#fff\" stroke-width=\"3\" stroke-opacity=\"0.85\" paint-order=\"stroke\"";

/// Estimated rendered width of `s` at font size `font`.
pub(super) fn text_w(s: &str, font: f64) -> f64 {
    s.chars().count() as f64 * font * CHAR_EM
}

/// Usable chart dimensions: non-finite sizes take the default, tiny or huge
/// ones are clamped.
pub(super) fn dims(w: f64, h: f64, dw: f64, dh: f64) -> (f64, f64) {
    let fix = |v: f64, d: f64| if v.is_finite() { v.clamp(120.0, 20000.0) } else { d };
    (fix(w, dw), fix(h, dh))
}

/// A chart of `width × height` (defaults for bad sizes) as a standalone
/// `<svg>` element, its body drawn at the origin by `fragment`.
pub(super) fn standalone(width: f64, height: f64, fragment: impl Fn(f64, f64) -> String) -> String {
    let (w, h) = dims(width, height, 640.0, 400.0);
    wrap(w, h, &fragment(0.0, 0.0))
}

/// Wraps a fragment drawn at the origin in a standalone `<svg>` element.
pub(super) fn wrap(w: f64, h: f64, body: &str) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" \
         font-family=\"sans-serif\" font-size=\"12\">\n{body}</svg>\n",
        num(w),
        num(h)
    )
}

/// Replaces the id slot with a hash of the finished fragment, which includes
/// its offset, so equal charts at different grid positions differ.
pub(super) fn finish_ids(body: String) -> String {
    let id = format!("errband-clip-{:016x}", svg::fnv1a(&body));
    body.replace(ID_SLOT, &id)
}

/// A font size at most `base` at which `s` fits in `room` px.
pub(super) fn fit_font(s: &str, base: f64, room: f64) -> f64 {
    let w = text_w(s, base);
    if w > room && w > 0.0 {
        (base * room / w).max(8.0)
    } else {
        base
    }
}

/// Value ↔ pixel mapping of one axis.
#[derive(Debug, Clone, Copy)]
pub(super) struct Map {
    pub(super) lo: f64,
    pub(super) hi: f64,
    pub(super) log: bool,
    pub(super) p0: f64,
    pub(super) p1: f64,
}

impl Map {
    fn ok(&self, v: f64) -> bool {
        v.is_finite() && (!self.log || v > 0.0)
    }

    pub(super) fn px(&self, v: f64) -> f64 {
        let t = if self.log {
            (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        // Far-away values only need to land far away; this keeps them finite.
        let t = if t.is_nan() { 0.0 } else { t.clamp(-1e6, 1e6) };
        self.p0 + t * (self.p1 - self.p0)
    }

    fn contains(&self, v: f64) -> bool {
        let tol = if self.log { 1e-9 * self.lo } else { 1e-9 * (self.hi - self.lo) };
        v >= self.lo - tol && v <= self.hi + tol
    }
}

/// Running min/max of the values an axis must show.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Extent(Option<(f64, f64)>);

impl Extent {
    pub(super) fn add(&mut self, v: f64, log: bool) {
        if !v.is_finite() || (log && v <= 0.0) {
            return;
        }
        // Keeps spans and paddings finite however large the data.
        let v = if log { v.clamp(1e-300, 1e300) } else { v.clamp(-1e300, 1e300) };
        self.0 = Some(match self.0 {
            None => (v, v),
            Some((a, b)) => (a.min(v), b.max(v)),
        });
    }
}

/// The shown range of an axis: the data extent (or a default), user limits,
/// widening of a single value, 5 % padding on free linear ends (3 % of the
/// decades on log ones). With `sticky_zero` a free end at 0 is not padded
/// (bars start at the axis).
pub(super) fn resolve(axis: &Axis, ext: Extent, sticky_zero: bool) -> (f64, f64) {
    let log = axis.scale == Scale::Log;
    // Work in log10 space for log axes so widening and padding are in decades.
    let to_w = |v: f64| if log { v.log10() } else { v };
    let from_w = |w: f64| if log { 10f64.powf(w) } else { w };
    let ok = |v: &f64| v.is_finite() && (!log || *v > 0.0);
    let clampv = |v: f64| if log { v.clamp(1e-300, 1e300) } else { v.clamp(-1e300, 1e300) };
    let user_lo = axis.min.filter(ok).map(clampv).map(to_w);
    let user_hi = axis.max.filter(ok).map(clampv).map(to_w);
    let (dlo, dhi) = ext.0.unwrap_or(if log { (1.0, 10.0) } else { (0.0, 1.0) });
    let (dlo, dhi) = (to_w(dlo), to_w(dhi));
    let mut lo = user_lo.unwrap_or(dlo);
    let mut hi = user_hi.unwrap_or(dhi);
    match (user_lo, user_hi) {
        (Some(_), Some(_)) if lo > hi => std::mem::swap(&mut lo, &mut hi),
        (Some(_), None) if hi < lo => hi = lo,
        (None, Some(_)) if lo > hi => lo = hi,
        _ => {}
    }
    if hi <= lo {
        let d = if log {
            0.3
        } else if lo == 0.0 {
            1.0
        } else {
            lo.abs() * 0.1
        };
        match (user_lo.is_some(), user_hi.is_some()) {
            (true, false) => hi = lo + 2.0 * d,
            (false, true) => lo = hi - 2.0 * d,
            _ => {
                lo -= d;
                hi += d;
            }
        }
    }
    let pad = (hi - lo) * if log { 0.03 } else { 0.05 };
    if user_lo.is_none() && !(sticky_zero && !log && lo == 0.0) {
        lo -= pad;
    }
    if user_hi.is_none() && !(sticky_zero && !log && hi == 0.0) {
        hi += pad;
    }
    let (lo, hi) = (from_w(lo), from_w(hi));
    if lo.is_finite() && hi.is_finite() && lo < hi && (!log || lo > 0.0) {
        (lo, hi)
    } else if log {
        (1.0, 10.0)
    } else {
        (0.0, 1.0)
    }
}

/// Ticks for a resolved range.
fn axis_ticks(lo: f64, hi: f64, log: bool, max_n: usize) -> Vec<Tick> {
    if log {
        ticks::log_ticks(lo, hi, max_n)
    } else {
        ticks::linear_ticks(lo, hi, max_n)
    }
}

/// At most this many ticks for an axis `len` px long, one per `per` px,
/// 5–8 (a budget of 5 still yields at least 3, of 8 at least 4).
pub(super) fn tick_budget(len: f64, per: f64) -> usize {
    let n = (len / per).floor();
    if n.is_finite() {
        (n.max(0.0) as usize).clamp(5, 8)
    } else {
        8
    }
}

/// Blanks labels (keeping every n-th) until neighbours no longer overlap.
pub(super) fn thin_labels(ts: &mut [Tick], pos: impl Fn(f64) -> f64, size: impl Fn(&str) -> f64) {
    let idx: Vec<usize> = (0..ts.len()).filter(|&i| ts[i].major && !ts[i].label.is_empty()).collect();
    for every in 1..=idx.len().max(1) {
        let kept: Vec<usize> = idx.iter().copied().step_by(every).collect();
        let fits = kept.windows(2).all(|w| {
            let (a, b) = (&ts[w[0]], &ts[w[1]]);
            (pos(b.value) - pos(a.value)).abs() >= (size(&a.label) + size(&b.label)) / 2.0 + 6.0
        });
        if fits {
            for (j, &i) in idx.iter().enumerate() {
                if j % every != 0 {
                    ts[i].label.clear();
                }
            }
            return;
        }
    }
}

/// What lies where in the plot, in pixels, for choosing the legend corner.
#[derive(Debug, Default)]
struct Occupancy {
    /// Marker centres.
    marks: Vec<Pt>,
    /// Points sampled along drawn lines.
    strokes: Vec<Pt>,
    /// Filled polygons (bands, regions, bars).
    areas: Vec<Vec<Pt>>,
    /// Text that must stay readable (span and reference-line labels).
    labels: Vec<Rect>,
}

impl Occupancy {
    fn stroke(&mut self, run: &[Pt]) {
        for w in run.windows(2) {
            let (a, b) = (w[0], w[1]);
            let n = ((b.0 - a.0).hypot(b.1 - a.1) / 3.0).ceil().clamp(1.0, 10000.0) as usize;
            for i in 0..=n {
                let t = i as f64 / n as f64;
                self.strokes.push((a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1)));
            }
        }
    }

    /// Higher is worse: markers count most, line samples next, area under
    /// the box least; covering a label is never chosen if avoidable.
    fn score(&self, r: &Rect) -> f64 {
        let marks = self.marks.iter().filter(|&&p| r.contains(p)).count() as f64;
        let strokes = self.strokes.iter().filter(|&&p| r.contains(p)).count() as f64;
        let mut area = 0.0;
        let areas: Vec<&Vec<Pt>> = self
            .areas
            .iter()
            .filter(|poly| {
                let b = bbox(poly);
                b.is_some_and(|b| b.intersects(r))
            })
            .collect();
        if !areas.is_empty() {
            let (nx, ny) = ((r.w() / 8.0).ceil().max(1.0) as usize, (r.h() / 8.0).ceil().max(1.0) as usize);
            for i in 0..nx {
                for j in 0..ny {
                    let p = (
                        r.x0 + (i as f64 + 0.5) * r.w() / nx as f64,
                        r.y0 + (j as f64 + 0.5) * r.h() / ny as f64,
                    );
                    if areas.iter().any(|poly| svg::in_polygon(p, poly)) {
                        area += 1.0;
                    }
                }
            }
        }
        let labels = self.labels.iter().filter(|l| l.intersects(r)).count() as f64;
        4.0 * marks + strokes + 0.15 * area + 1000.0 * labels
    }
}

fn bbox(ps: &[Pt]) -> Option<Rect> {
    let first = ps.first()?;
    let mut r = Rect { x0: first.0, y0: first.1, x1: first.0, y1: first.1 };
    for p in ps {
        r.x0 = r.x0.min(p.0);
        r.y0 = r.y0.min(p.1);
        r.x1 = r.x1.max(p.0);
        r.y1 = r.y1.max(p.1);
    }
    Some(r)
}

/// How a legend entry shows its series.
#[derive(Debug, Clone, Copy)]
enum Swatch {
    Marker(Mark),
    Line {
        dashed: bool,
    },
    Fill,
    /// A light fill with a dashed edge (a wider band behind).
    LightFill,
    /// Opaque fill, as bars are drawn.
    Solid,
    Region,
    Stem,
}

#[derive(Debug)]
struct Entry<'a> {
    name: &'a str,
    color: &'static str,
    swatch: Swatch,
}

/// The legend box in the best of the four inner corners (top-right first).
fn legend(entries: &[Entry], plot: Rect, occ: &Occupancy) -> String {
    if entries.is_empty() {
        return String::new();
    }
    let (pad, row, sw, gap, inset) = (6.0, 17.0, 22.0, 6.0, 8.0);
    let text = entries.iter().map(|e| text_w(e.name, TICK_FONT)).fold(0.0, f64::max);
    let bw = pad + sw + gap + text + pad;
    let bh = 2.0 * pad + entries.len() as f64 * row - 3.0;
    let corners = [
        (plot.x1 - inset - bw, plot.y0 + inset),
        (plot.x0 + inset, plot.y0 + inset),
        (plot.x1 - inset - bw, plot.y1 - inset - bh),
        (plot.x0 + inset, plot.y1 - inset - bh),
    ];
    let mut best = (f64::INFINITY, corners[0]);
    for c in corners {
        let s = occ.score(&Rect { x0: c.0, y0: c.1, x1: c.0 + bw, y1: c.1 + bh });
        if s < best.0 {
            best = (s, c);
        }
    }
    let (x, y) = best.1;
    let mut out = legend_open(x, y, bw, bh);
    for (i, e) in entries.iter().enumerate() {
        let cy = y + pad + i as f64 * row + 7.0;
        let (sx0, sx1) = (x + pad, x + pad + sw);
        let c = e.color;
        out += &match e.swatch {
            Swatch::Marker(m) => svg::marker(m, ((sx0 + sx1) / 2.0, cy), MARK_R, c, "swatch"),
            Swatch::Line { dashed } => format!(
                "<line class=\"swatch\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{c}\" \
                 stroke-width=\"1.8\"{}/>",
                num(sx0),
                num(cy),
                num(sx1),
                num(cy),
                if dashed { " stroke-dasharray=\"5 3\"" } else { "" }
            ),
            Swatch::Fill | Swatch::LightFill | Swatch::Solid | Swatch::Region => {
                let (fop, sop, swd) = match e.swatch {
                    Swatch::Fill => ("0.25", "0.6", "0.8"),
                    Swatch::LightFill => ("0.1", "0.6", "0.8"),
                    Swatch::Solid => ("1", "1", "0"),
                    _ => ("0.25", "1", "1.2"),
                };
                format!(
                    "<rect class=\"swatch\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"10\" fill=\"{c}\" \
                     fill-opacity=\"{fop}\" stroke=\"{c}\" stroke-opacity=\"{sop}\" stroke-width=\"{swd}\"/>",
                    num(sx0),
                    num(cy - 5.0),
                    num(sw)
                )
            }
            Swatch::Stem => {
                let mx = (sx0 + sx1) / 2.0;
                format!(
                    "<line class=\"swatch\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{c}\" \
                     stroke-width=\"1.5\"/>{3}",
                    num(mx),
                    num(cy + 6.0),
                    num(cy - 3.0),
                    svg::marker(Mark::Circle, (mx, cy - 3.0), 2.8, c, "swatch")
                )
            }
        };
        out += &format!(
            "\n<text x=\"{}\" y=\"{}\" dy=\"0.35em\" font-size=\"{TICK_FONT}\" fill=\"#222\">{}</text>\n",
            num(sx1 + gap),
            num(cy),
            esc(e.name)
        );
    }
    out += "</g>\n";
    out
}

/// The parts every chart type shares: frame, ticks, labels, title.
pub(super) struct Frame<'a> {
    pub(super) w: f64,
    pub(super) h: f64,
    pub(super) plot: Rect,
    pub(super) title: &'a str,
    pub(super) xm: Map,
    pub(super) ym: Map,
    pub(super) xt: Vec<Tick>,
    pub(super) yt: Vec<Tick>,
    pub(super) xlabel: &'a str,
    pub(super) ylabel: &'a str,
}

impl Frame<'_> {
    /// Opening `<g>`, background, clip path and title.
    pub(super) fn open(&self, dx: f64, dy: f64, class: &str) -> String {
        let p = self.plot;
        let mut out = format!(
            "<g class=\"{class}\" transform=\"translate({},{})\">\n\
             <rect class=\"background\" x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#fff\"/>\n\
             <defs><clipPath id=\"{ID_SLOT}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/></clipPath></defs>\n",
            num(dx),
            num(dy),
            num(self.w),
            num(self.h),
            num(p.x0),
            num(p.y0),
            num(p.w()),
            num(p.h())
        );
        if !self.title.trim().is_empty() {
            let fs = fit_font(self.title, TITLE_FONT, self.w - 16.0);
            out += &format!(
                "<text class=\"title\" x=\"{}\" y=\"21\" text-anchor=\"middle\" font-size=\"{}\" fill=\"#222\">{}</text>\n",
                num(self.w / 2.0),
                num(fs),
                esc(self.title)
            );
        }
        out
    }

    /// Light grid lines at the major ticks (drawn beneath the data).
    pub(super) fn grid_lines(&self) -> String {
        let p = self.plot;
        let mut d = String::new();
        for t in self.xt.iter().filter(|t| t.major && self.xm.contains(t.value)) {
            d += &format!("M{}V{}", pt((self.xm.px(t.value), p.y0)), num(p.y1));
        }
        for t in self.yt.iter().filter(|t| t.major && self.ym.contains(t.value)) {
            d += &format!("M{}H{}", pt((p.x0, self.ym.px(t.value))), num(p.x1));
        }
        if d.is_empty() {
            return String::new();
        }
        format!("<path class=\"grid\" d=\"{d}\" fill=\"none\" stroke=\"{GRID_INK}\" stroke-width=\"0.8\"/>\n")
    }

    /// Frame, tick marks, tick labels and axis labels (x ticks only when
    /// `x_ticks`: bar charts label categories themselves).
    pub(super) fn axes(&self, x_ticks: bool) -> String {
        let p = self.plot;
        let mut out = format!(
            "<rect class=\"frame\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"{INK}\" \
             stroke-width=\"0.8\"/>\n",
            num(p.x0),
            num(p.y0),
            num(p.w()),
            num(p.h())
        );
        let mut d = String::new();
        let mut xl = String::new();
        let mut yl = String::new();
        if x_ticks {
            for t in self.xt.iter().filter(|t| self.xm.contains(t.value)) {
                let x = self.xm.px(t.value);
                let len = if t.major { TICK_LEN } else { TICK_LEN * 0.6 };
                d += &format!("M{}v{}", pt((x, p.y1)), num(len));
                if t.major && !t.label.is_empty() {
                    xl += &format!(
                        "<text x=\"{}\" y=\"{}\">{}</text>\n",
                        num(x),
                        num(p.y1 + TICK_LEN + 3.0 + TICK_FONT * 0.8),
                        esc(&t.label)
                    );
                }
            }
        }
        for t in self.yt.iter().filter(|t| self.ym.contains(t.value)) {
            let y = self.ym.px(t.value);
            let len = if t.major { TICK_LEN } else { TICK_LEN * 0.6 };
            d += &format!("M{}h{}", pt((p.x0, y)), num(-len));
            if t.major && !t.label.is_empty() {
                yl += &format!(
                    "<text x=\"{}\" y=\"{}\" dy=\"0.35em\">{}</text>\n",
                    num(p.x0 - TICK_LEN - 3.0),
                    num(y),
                    esc(&t.label)
                );
            }
        }
        if !d.is_empty() {
            out += &format!(
                "<path class=\"ticks\" d=\"{d}\" fill=\"none\" stroke=\"{INK}\" stroke-width=\"0.8\"/>\n"
            );
        }
        if !xl.is_empty() {
            out += &format!(
                "<g class=\"tick-labels x\" font-size=\"{TICK_FONT}\" fill=\"{INK}\" text-anchor=\"middle\">\n{xl}</g>\n"
            );
        }
        if !yl.is_empty() {
            out += &format!(
                "<g class=\"tick-labels y\" font-size=\"{TICK_FONT}\" fill=\"{INK}\" text-anchor=\"end\">\n{yl}</g>\n"
            );
        }
        if !self.xlabel.trim().is_empty() {
            let fs = fit_font(self.xlabel, LABEL_FONT, p.w());
            out += &format!(
                "<text class=\"axis-label x\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"{}\" fill=\"#222\">{}</text>\n",
                num((p.x0 + p.x1) / 2.0),
                num(p.y1 + TICK_LEN + 3.0 + TICK_FONT + 18.0),
                num(fs),
                esc(self.xlabel)
            );
        }
        if !self.ylabel.trim().is_empty() {
            let fs = fit_font(self.ylabel, LABEL_FONT, p.h());
            let (x, y) = (8.0 + fs, (p.y0 + p.y1) / 2.0);
            out += &format!(
                "<text class=\"axis-label y\" x=\"{0}\" y=\"{1}\" text-anchor=\"middle\" font-size=\"{2}\" fill=\"#222\" \
                 transform=\"rotate(-90 {0} {1})\">{3}</text>\n",
                num(x),
                num(y),
                num(fs),
                esc(self.ylabel)
            );
        }
        out
    }

    /// A dashed reference line (inside the clip) and its label's text and box.
    pub(super) fn hline(&self, hl: &Option<(f64, String)>) -> (String, String, Option<Rect>) {
        let Some((v, label)) = hl else { return Default::default() };
        if !(self.ym.ok(*v) && self.ym.contains(*v)) {
            return Default::default();
        }
        let p = self.plot;
        let y = self.ym.px(*v);
        let line = format!(
            "<line class=\"hline\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#444\" stroke-width=\"1\" \
             stroke-dasharray=\"4 3\"/>\n",
            num(p.x0),
            num(y),
            num(p.x1),
            num(y)
        );
        if label.trim().is_empty() {
            return (line, String::new(), None);
        }
        let ty = if y - p.y0 < 16.0 { y + 13.0 } else { y - 4.0 };
        let tw = text_w(label, SMALL_FONT);
        let text = format!(
            "<text class=\"hline-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"{SMALL_FONT}\" fill=\"#444\" {HALO}>{}</text>\n",
            num(p.x1 - 4.0),
            num(ty),
            esc(label)
        );
        (line, text, Some(Rect { x0: p.x1 - 4.0 - tw, y0: ty - 9.0, x1: p.x1 - 4.0, y1: ty + 2.0 }))
    }

    pub(super) fn note(&self, text: &str) -> String {
        format!(
            "<text class=\"note\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" dy=\"0.35em\" fill=\"#888\">{}</text>\n",
            num((self.plot.x0 + self.plot.x1) / 2.0),
            num((self.plot.y0 + self.plot.y1) / 2.0),
            esc(text)
        )
    }
}

/// Palette colour of each series: explicit indices as given, the others
/// taking the cycle in order.
fn series_colors(explicit: impl Iterator<Item = Option<usize>>) -> Vec<&'static str> {
    let mut next = 0;
    explicit
        .map(|c| {
            let i = c.unwrap_or_else(|| {
                next += 1;
                next - 1
            });
            PALETTE[i % PALETTE.len()]
        })
        .collect()
}

/// The drawn layers of an x–y chart.
#[derive(Default)]
struct Layers {
    fills: String,
    lines: String,
    marks: String,
    occ: Occupancy,
    drawn: usize,
}

impl Layers {
    fn polyline(&mut self, runs: &[Vec<Pt>], class: &str, name: &str, style: &str) {
        for run in runs {
            self.lines += &format!(
                "<polyline class=\"{class}\" data-series=\"{}\" points=\"{}\" fill=\"none\" {style}/>\n",
                esc(name),
                svg::points_attr(run)
            );
            self.occ.stroke(run);
        }
    }
}

/// Draws one series into the layers.
fn draw_series(l: &mut Layers, kind: &SeriesKind, name: &str, c: &str, xm: Map, ym: Map, plot: Rect) {
    let px = |p: &(f64, f64)| -> Option<Pt> { (xm.ok(p.0) && ym.ok(p.1)).then(|| (xm.px(p.0), ym.px(p.1))) };
    let near = plot.expand(SLACK);
    let nm = esc(name);
    match kind {
        SeriesKind::Points { pts, mark } => {
            let mut s = String::new();
            for p in pts.iter().filter_map(px) {
                l.drawn += 1;
                if near.contains(p) {
                    s += &svg::marker(*mark, p, MARK_R, c, "point");
                    s.push('\n');
                    l.occ.marks.push(p);
                }
            }
            if !s.is_empty() {
                l.marks += &format!("<g class=\"points\" data-series=\"{nm}\">\n{s}</g>\n");
            }
        }
        SeriesKind::Line { pts, dashed } => {
            let ps: Vec<Option<Pt>> = pts.iter().map(px).collect();
            l.drawn += ps.iter().flatten().count();
            let style = format!(
                "stroke=\"{c}\" stroke-width=\"1.8\" stroke-linejoin=\"round\" stroke-linecap=\"round\"{}",
                if *dashed { " stroke-dasharray=\"6 4\"" } else { "" }
            );
            l.polyline(&svg::runs(&ps, near), "line", name, &style);
        }
        SeriesKind::Band { lower, upper, light } => {
            // On a log axis a lower side at or below zero runs off the
            // bottom: it is drawn there, not dropped with its upper side.
            let floor = |p: &(f64, f64)| -> Option<Pt> {
                px(p).or_else(|| {
                    (ym.log && xm.ok(p.0) && p.1 <= 0.0).then(|| (xm.px(p.0), plot.y1 + SLACK / 2.0))
                })
            };
            let pairs: Vec<Option<(Pt, Pt)>> =
                lower.iter().zip(upper).map(|(a, b)| Some((floor(a)?, px(b)?))).collect();
            l.drawn += pairs.iter().flatten().count();
            let mut d = String::new();
            for seg in pairs.split(Option::is_none) {
                let seg: Vec<(Pt, Pt)> = seg.iter().flatten().copied().collect();
                if seg.len() < 2 {
                    continue;
                }
                let poly: Vec<Pt> = seg.iter().map(|s| s.0).chain(seg.iter().rev().map(|s| s.1)).collect();
                let poly = svg::clip_polygon(&poly, near);
                if poly.len() >= 3 {
                    d += &format!("M{}Z", svg::points_attr(&poly).replace(' ', "L"));
                    l.occ.areas.push(poly);
                }
            }
            if !d.is_empty() {
                l.fills += &format!(
                    "<path class=\"band\" data-series=\"{nm}\" d=\"{d}\" fill=\"{c}\" fill-opacity=\"{}\" \
                     stroke=\"none\"/>\n",
                    if *light { "0.1" } else { "0.25" }
                );
            }
            let style = if *light {
                format!("stroke=\"{c}\" stroke-width=\"0.9\" stroke-opacity=\"0.7\" stroke-dasharray=\"4 3\"")
            } else {
                format!("stroke=\"{c}\" stroke-width=\"0.9\" stroke-opacity=\"0.7\"")
            };
            let lo: Vec<Option<Pt>> = pairs.iter().map(|p| p.map(|p| p.0)).collect();
            let hi: Vec<Option<Pt>> = pairs.iter().map(|p| p.map(|p| p.1)).collect();
            l.polyline(&svg::runs(&lo, near), "band-edge", name, &style);
            l.polyline(&svg::runs(&hi, near), "band-edge", name, &style);
        }
        SeriesKind::Polygon { pts, marked } => {
            let ps: Vec<Pt> = pts.iter().filter_map(px).collect();
            l.drawn += ps.len();
            if ps.is_empty() {
                return;
            }
            // Keep one pair per vertex unless a vertex is absurdly far out.
            let safe = plot.expand(4000.0);
            let poly =
                if ps.iter().all(|&p| safe.contains(p)) { ps.clone() } else { svg::clip_polygon(&ps, near) };
            l.fills += &format!(
                "<polygon class=\"region\" data-series=\"{nm}\" points=\"{}\" fill=\"{c}\" fill-opacity=\"0.25\" \
                 stroke=\"{c}\" stroke-width=\"1.5\" stroke-linejoin=\"round\"/>\n",
                svg::points_attr(&poly)
            );
            let mut closed = poly.clone();
            closed.extend(poly.first().copied());
            l.occ.stroke(&closed);
            l.occ.areas.push(poly);
            if *marked {
                let mut s = String::new();
                for &p in ps.iter().filter(|&&p| near.contains(p)) {
                    s += &svg::marker(Mark::Circle, p, 3.0, c, "vertex");
                    s.push('\n');
                    l.occ.marks.push(p);
                }
                if !s.is_empty() {
                    l.marks += &format!("<g class=\"vertices\" data-series=\"{nm}\">\n{s}</g>\n");
                }
            }
        }
        SeriesKind::Stems { pts } => {
            let base = if ym.log { ym.lo } else { 0.0f64.clamp(ym.lo, ym.hi) };
            let by = ym.px(base);
            let mut s = String::new();
            for p in pts.iter().filter_map(px) {
                l.drawn += 1;
                if p.0 < near.x0 || p.0 > near.x1 {
                    continue;
                }
                let top = (p.0, p.1.clamp(near.y0, near.y1));
                s += &format!(
                    "<line class=\"stem\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{c}\" stroke-width=\"1.5\"/>\n",
                    num(p.0),
                    num(by),
                    num(top.0),
                    num(top.1)
                );
                l.occ.stroke(&[(p.0, by), top]);
                if near.contains(p) {
                    s += &svg::marker(Mark::Circle, p, 3.0, c, "stem-head");
                    s.push('\n');
                    l.occ.marks.push(p);
                }
            }
            if !s.is_empty() {
                l.marks += &format!("<g class=\"stems\" data-series=\"{nm}\">\n{s}</g>\n");
            }
        }
    }
}

/// Every (x, y) a series would place (validity is checked by the caller).
fn series_points(kind: &SeriesKind) -> Box<dyn Iterator<Item = &(f64, f64)> + '_> {
    match kind {
        SeriesKind::Points { pts, .. }
        | SeriesKind::Line { pts, .. }
        | SeriesKind::Polygon { pts, .. }
        | SeriesKind::Stems { pts } => Box::new(pts.iter()),
        SeriesKind::Band { lower, upper, .. } => Box::new(lower.iter().chain(upper.iter())),
    }
}

/// Left margin for the y axis: outer pad, rotated label, widest tick label,
/// gap and tick.
pub(super) fn left_margin(yt: &[Tick], ylabel: &str) -> f64 {
    let widest = yt.iter().filter(|t| t.major).map(|t| text_w(&t.label, TICK_FONT)).fold(0.0, f64::max);
    let label = if ylabel.trim().is_empty() { 0.0 } else { LABEL_FONT + 10.0 };
    8.0 + label + widest + 3.0 + TICK_LEN
}

pub(super) fn chart(c: &Chart, dx: f64, dy: f64) -> String {
    let (w, h) = dims(c.width, c.height, 640.0, 400.0);
    let (xlog, ylog) = (c.x.scale == Scale::Log, c.y.scale == Scale::Log);
    let okx = |v: f64| v.is_finite() && (!xlog || v > 0.0);
    let oky = |v: f64| v.is_finite() && (!ylog || v > 0.0);
    let (mut ex, mut ey) = (Extent::default(), Extent::default());
    for s in &c.series {
        let mut any = false;
        for &(x, y) in series_points(&s.kind).filter(|p| okx(p.0) && oky(p.1)) {
            ex.add(x, xlog);
            ey.add(y, ylog);
            any = true;
        }
        if any && matches!(s.kind, SeriesKind::Stems { .. }) {
            ey.add(0.0, ylog);
        }
    }
    if let Some((v, _)) = &c.hline {
        ey.add(*v, ylog);
    }
    let (xlo, xhi) = resolve(&c.x, ex, false);
    let (ylo, yhi) = resolve(&c.y, ey, false);

    let top = if c.title.trim().is_empty() { 14.0 } else { 34.0 };
    let bottom = if c.x.label.trim().is_empty() { 28.0 } else { 48.0 };
    let yt = axis_ticks(ylo, yhi, ylog, tick_budget(h - top - bottom, 36.0));
    let left0 = left_margin(&yt, &c.y.label);
    let xt = axis_ticks(xlo, xhi, xlog, tick_budget(w - left0 - 16.0, 70.0));
    let xw = xt.iter().filter(|t| t.major).map(|t| text_w(&t.label, TICK_FONT)).fold(0.0, f64::max);
    let left = left0.max(xw / 2.0 + 4.0).min(w * 0.45);
    let right = (xw / 2.0 + 4.0).max(16.0);
    let plot = Rect { x0: left, y0: top, x1: (w - right).max(left + 20.0), y1: (h - bottom).max(top + 20.0) };
    let xm = Map { lo: xlo, hi: xhi, log: xlog, p0: plot.x0, p1: plot.x1 };
    let ym = Map { lo: ylo, hi: yhi, log: ylog, p0: plot.y1, p1: plot.y0 };
    let mut f = Frame { w, h, plot, title: &c.title, xm, ym, xt, yt, xlabel: &c.x.label, ylabel: &c.y.label };
    thin_labels(&mut f.xt, |v| xm.px(v), |s| text_w(s, TICK_FONT));
    thin_labels(&mut f.yt, |v| ym.px(v), |_| TICK_FONT + 2.0);

    let colors = series_colors(c.series.iter().map(|s| s.color));
    let mut l = Layers::default();
    for (s, col) in c.series.iter().zip(&colors) {
        if matches!(s.kind, SeriesKind::Band { .. } | SeriesKind::Polygon { .. }) {
            draw_series(&mut l, &s.kind, &s.name, col, xm, ym, plot);
        }
    }
    for (s, col) in c.series.iter().zip(&colors) {
        if !matches!(s.kind, SeriesKind::Band { .. } | SeriesKind::Polygon { .. }) {
            draw_series(&mut l, &s.kind, &s.name, col, xm, ym, plot);
        }
    }

    let mut out = f.open(dx, dy, "chart");
    out += &f.grid_lines();
    out += &format!("<g class=\"plot-area\" clip-path=\"url(#{ID_SLOT})\">\n");
    let mut shade_text = String::new();
    if let Some((a, b)) = c.shade_x {
        // An open end (±inf, or ≤ 0 on a log axis) runs to the edge of the plot.
        let end = |v: f64, edge: f64| {
            if xm.ok(v) {
                Some(xm.px(v).clamp(plot.x0, plot.x1))
            } else if v.is_nan() {
                None
            } else {
                Some(edge)
            }
        };
        let lo_edge = |v: f64| if v > 0.0 { plot.x1 } else { plot.x0 };
        if let (Some(x0), Some(x1)) = (end(a, lo_edge(a)), end(b, lo_edge(b))) {
            let (x0, x1) = (x0.min(x1), x0.max(x1));
            if x1 > x0 {
                out += &format!(
                    "<rect class=\"extrapolation\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#000\" \
                     fill-opacity=\"0.06\"/>\n",
                    num(x0),
                    num(plot.y0),
                    num(x1 - x0),
                    num(plot.h())
                );
                if !c.shade_label.trim().is_empty() {
                    let tw = text_w(&c.shade_label, SMALL_FONT);
                    // At the span's far end when it fits: the near end is
                    // where the data stop, the natural place for the legend.
                    let (tx, anchor) = if x1 - x0 >= tw + 8.0 || x0 - tw - 4.0 < plot.x0 {
                        (x1 - 4.0, "end")
                    } else {
                        (x0 + 4.0, "start")
                    };
                    let bx = if anchor == "start" { tx } else { tx - tw };
                    l.occ.labels.push(Rect {
                        x0: bx - 2.0,
                        y0: plot.y0 + 3.0,
                        x1: bx + tw + 2.0,
                        y1: plot.y0 + 16.0,
                    });
                    shade_text = format!(
                        "<text class=\"extrapolation-label\" x=\"{}\" y=\"{}\" text-anchor=\"{anchor}\" \
                         font-size=\"{SMALL_FONT}\" fill=\"#555\" {HALO}>{}</text>\n",
                        num(tx),
                        num(plot.y0 + 13.0),
                        esc(&c.shade_label)
                    );
                }
            }
        }
    }
    let (hl_line, hl_text, hl_box) = f.hline(&c.hline);
    l.occ.labels.extend(hl_box);
    out += &l.fills;
    out += &hl_line;
    out += &l.lines;
    out += &l.marks;
    out += "</g>\n";
    out += &f.axes(true);
    out += &shade_text;
    out += &hl_text;
    let entries: Vec<Entry> = c
        .series
        .iter()
        .zip(&colors)
        .filter(|(s, _)| !s.name.trim().is_empty())
        .map(|(s, col)| Entry {
            name: &s.name,
            color: col,
            swatch: match &s.kind {
                SeriesKind::Points { mark, .. } => Swatch::Marker(*mark),
                SeriesKind::Line { dashed, .. } => Swatch::Line { dashed: *dashed },
                SeriesKind::Band { light: false, .. } => Swatch::Fill,
                SeriesKind::Band { light: true, .. } => Swatch::LightFill,
                SeriesKind::Polygon { .. } => Swatch::Region,
                SeriesKind::Stems { .. } => Swatch::Stem,
            },
        })
        .collect();
    out += &legend(&entries, plot, &l.occ);
    if l.drawn == 0 {
        out += &f.note("no data");
    }
    out += "</g>\n";
    finish_ids(out)
}

/// Category labels longer than this many characters are cut with "…".
const MAX_CATEGORY_CHARS: usize = 28;

fn short(s: &str) -> String {
    if s.chars().count() > MAX_CATEGORY_CHARS {
        let mut t: String = s.chars().take(MAX_CATEGORY_CHARS - 1).collect();
        t.push('…');
        t
    } else {
        s.to_string()
    }
}

pub(super) fn bars(b: &BarChart, dx: f64, dy: f64) -> String {
    let (w, h) = dims(b.width, b.height, 640.0, 400.0);
    let ylog = b.y.scale == Scale::Log;
    let n = b.categories.len();
    let mut ey = Extent::default();
    let mut any = false;
    for (_, vals) in &b.groups {
        for v in vals.iter().take(n).flatten() {
            if v.is_finite() && (!ylog || *v > 0.0) {
                ey.add(*v, ylog);
                any = true;
            }
        }
    }
    if any && !ylog {
        ey.add(0.0, false);
    }
    if let Some((v, _)) = &b.hline {
        ey.add(*v, ylog);
    }
    let (ylo, yhi) = resolve(&b.y, ey, true);

    let cats: Vec<String> = b.categories.iter().map(|s| short(s)).collect();
    let top = if b.title.trim().is_empty() { 14.0 } else { 34.0 };
    let yt = axis_ticks(ylo, yhi, ylog, tick_budget(h - top - 60.0, 36.0));
    let left0 = left_margin(&yt, &b.y.label);
    let slot_est = (w - left0 - 16.0) / n.max(1) as f64;
    let cat_w: Vec<f64> = cats.iter().map(|s| text_w(s, TICK_FONT)).collect();
    let widest = cat_w.iter().copied().fold(0.0, f64::max);
    let rotate = widest > slot_est - 6.0;
    let (sin, cos) = (35f64.to_radians().sin(), 35f64.to_radians().cos());
    let (left, bottom) = if rotate {
        let first = cat_w.first().copied().unwrap_or(0.0);
        let need = cos * first - slot_est / 2.0 + 6.0;
        (left0.max(need), (12.0 + sin * widest + TICK_FONT + 8.0).min(h * 0.45))
    } else {
        (left0, 28.0)
    };
    let left = left.min(w * 0.45);
    let plot = Rect { x0: left, y0: top, x1: (w - 16.0).max(left + 20.0), y1: (h - bottom).max(top + 20.0) };
    let slot = plot.w() / n.max(1) as f64;
    let xm = Map { lo: 0.0, hi: n.max(1) as f64, log: false, p0: plot.x0, p1: plot.x1 };
    let ym = Map { lo: ylo, hi: yhi, log: ylog, p0: plot.y1, p1: plot.y0 };
    let mut f =
        Frame { w, h, plot, title: &b.title, xm, ym, xt: Vec::new(), yt, xlabel: "", ylabel: &b.y.label };
    thin_labels(&mut f.yt, |v| ym.px(v), |_| TICK_FONT + 2.0);

    let colors = series_colors(b.groups.iter().map(|_| None));
    let g = b.groups.len().max(1);
    let bw = slot * 0.8 / g as f64;
    let base = ym.px(if ylog { ylo } else { 0.0f64.clamp(ylo, yhi) });
    let near = plot.expand(SLACK);
    let mut occ = Occupancy::default();
    let mut body = String::new();
    let mut missing = String::new();
    for (j, ((name, vals), col)) in b.groups.iter().zip(&colors).enumerate() {
        let mut s = String::new();
        for (i, v) in vals.iter().take(n).enumerate() {
            let x = plot.x0 + slot * (i as f64 + 0.1) + bw * j as f64;
            let mark = match v {
                Some(v) if ym.ok(*v) => {
                    let y = ym.px(*v).clamp(near.y0, near.y1);
                    let (y0, y1) = (y.min(base), y.max(base));
                    s += &format!(
                        "<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{col}\"/>\n",
                        num(x),
                        num(y0),
                        num(bw),
                        num(y1 - y0)
                    );
                    occ.areas.push(vec![(x, y0), (x + bw, y0), (x + bw, y1), (x, y1)]);
                    None
                }
                Some(v) if *v == f64::INFINITY => Some("∞"),
                Some(v) if v.is_finite() => None,
                _ => Some(b.missing_label.as_str()),
            };
            if let Some(m) = mark.filter(|m| !m.trim().is_empty()) {
                let cx = x + bw / 2.0;
                let tw = text_w(m, TICK_FONT);
                if tw > bw + 4.0 {
                    let (ax, ay) = (cx + 3.0, plot.y0 + 4.0);
                    missing += &format!(
                        "<text class=\"missing\" x=\"{0}\" y=\"{1}\" text-anchor=\"end\" font-size=\"{TICK_FONT}\" fill=\"{col}\" \
                         transform=\"rotate(-90 {0} {1})\">{2}</text>\n",
                        num(ax),
                        num(ay),
                        esc(m)
                    );
                    occ.labels.push(Rect { x0: cx - 5.0, y0: ay, x1: cx + 5.0, y1: ay + tw });
                } else {
                    missing += &format!(
                        "<text class=\"missing\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"{TICK_FONT}\" fill=\"{col}\">{}</text>\n",
                        num(cx),
                        num(plot.y0 + 12.0),
                        esc(m)
                    );
                    occ.labels.push(Rect {
                        x0: cx - tw / 2.0,
                        y0: plot.y0 + 3.0,
                        x1: cx + tw / 2.0,
                        y1: plot.y0 + 14.0,
                    });
                }
            }
        }
        if !s.is_empty() {
            body += &format!("<g class=\"bars\" data-series=\"{}\">\n{s}</g>\n", esc(name));
        }
    }

    let mut out = f.open(dx, dy, "chart bar-chart");
    out += &f.grid_lines();
    out += &format!("<g class=\"plot-area\" clip-path=\"url(#{ID_SLOT})\">\n");
    let (hl_line, hl_text, hl_box) = f.hline(&b.hline);
    occ.labels.extend(hl_box);
    out += &body;
    out += &hl_line;
    out += "</g>\n";
    out += &f.axes(false);
    let mut d = String::new();
    let mut labels = String::new();
    for (i, cat) in cats.iter().enumerate() {
        let cx = plot.x0 + slot * (i as f64 + 0.5);
        d += &format!("M{}v{}", pt((cx, plot.y1)), num(TICK_LEN));
        if rotate {
            let (ax, ay) = (cx, plot.y1 + TICK_LEN + 8.0);
            labels += &format!(
                "<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\" transform=\"rotate(-35 {0} {1})\">{2}</text>\n",
                num(ax),
                num(ay),
                esc(cat)
            );
        } else {
            labels += &format!(
                "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                num(cx),
                num(plot.y1 + TICK_LEN + 3.0 + TICK_FONT * 0.8),
                esc(cat)
            );
        }
    }
    if !d.is_empty() {
        out += &format!(
            "<path class=\"ticks x\" d=\"{d}\" fill=\"none\" stroke=\"{INK}\" stroke-width=\"0.8\"/>\n"
        );
        out +=
            &format!("<g class=\"tick-labels x\" font-size=\"{TICK_FONT}\" fill=\"{INK}\">\n{labels}</g>\n");
    }
    out += &missing;
    out += &hl_text;
    let entries: Vec<Entry> = b
        .groups
        .iter()
        .zip(&colors)
        .filter(|((name, _), _)| !name.trim().is_empty())
        .map(|((name, _), col)| Entry { name, color: col, swatch: Swatch::Solid })
        .collect();
    out += &legend(&entries, plot, &occ);
    let has_any = b.groups.iter().any(|(_, v)| !v.is_empty());
    if n == 0 || !has_any {
        out += &f.note("no data");
    }
    out += "</g>\n";
    finish_ids(out)
}

pub(super) fn grid(charts: &[Chart], cols: usize, title: &str) -> String {
    let cols = cols.clamp(1, charts.len().max(1));
    let sizes: Vec<(f64, f64)> = charts.iter().map(|c| dims(c.width, c.height, 640.0, 400.0)).collect();
    let cw = sizes.iter().map(|s| s.0).fold(0.0, f64::max);
    let ch = sizes.iter().map(|s| s.1).fold(0.0, f64::max);
    let rows = charts.len().div_ceil(cols);
    let top = if title.trim().is_empty() { 0.0 } else { 36.0 };
    let (w, h) =
        if charts.is_empty() { (640.0, top + 120.0) } else { (cw * cols as f64, top + ch * rows as f64) };
    let mut body = String::from("<g class=\"grid-chart\">\n");
    body += &format!(
        "<rect class=\"background\" x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#fff\"/>\n",
        num(w),
        num(h)
    );
    if top > 0.0 {
        body += &format!(
            "<text class=\"title\" x=\"{}\" y=\"24\" text-anchor=\"middle\" font-size=\"{}\" fill=\"#222\">{}</text>\n",
            num(w / 2.0),
            num(fit_font(title, 16.0, w - 16.0)),
            esc(title)
        );
    }
    if charts.is_empty() {
        body += &format!(
            "<text class=\"note\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#888\">no charts</text>\n",
            num(w / 2.0),
            num(top + 60.0)
        );
    }
    for (i, (c, s)) in charts.iter().zip(&sizes).enumerate() {
        let (r, k) = (i / cols, i % cols);
        body += &c.svg_fragment(cw * k as f64 + (cw - s.0) / 2.0, top + ch * r as f64 + (ch - s.1) / 2.0);
    }
    body += "</g>\n";
    wrap(w, h, &body)
}

/// Opens a legend group with its white box at (`x`, `y`), `w` × `h`.
pub(super) fn legend_open(x: f64, y: f64, w: f64, h: f64) -> String {
    format!(
        "<g class=\"legend\">\n<rect class=\"legend-box\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"3\" fill=\"#fff\" \
         fill-opacity=\"0.85\" stroke=\"#ccc\"/>\n",
        num(x),
        num(y),
        num(w),
        num(h)
    )
}
