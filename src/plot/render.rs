//! Layout shared by every chart: sizes and fonts, value-to-pixel maps, axis
//! ranges and ticks, margins sized from the tick labels, and the [`Frame`]
//! (background, clip path, grid, axes, labels) that [`super::chart`],
//! [`super::bars`] and [`super::stacked`] draw into.

use super::svg::{self, esc, num, pt, Rect};
use super::ticks::{self, Tick};
use super::{Axis, Scale};

/// Stands in for the clip-path id until the fragment is hashed; `<` cannot
/// survive escaping, so no user text can contain it.
pub(super) const ID_SLOT: &str = "<clip-id>";
pub(super) const TICK_FONT: f64 = 13.0;
pub(super) const LABEL_FONT: f64 = 14.0;
pub(super) const TITLE_FONT: f64 = 16.0;
pub(super) const SMALL_FONT: f64 = 12.0;
/// Average advance of a sans-serif character, in ems (~7 px at 12 px).
pub(super) const CHAR_EM: f64 = 0.6;
pub(super) const TICK_LEN: f64 = 4.0;
pub(super) const MARK_R: f64 = 3.5;
pub(super) const INK: &str = "#333";
pub(super) const GRID_INK: &str = "#e3e3e3";
/// Geometry this far outside the plot is clipped before it is written.
pub(super) const SLACK: f64 = 20.0;
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
    pub(super) fn ok(&self, v: f64) -> bool {
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

    pub(super) fn contains(&self, v: f64) -> bool {
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
pub(super) fn axis_ticks(lo: f64, hi: f64, log: bool, max_n: usize) -> Vec<Tick> {
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

/// Left margin for the y axis: outer pad, rotated label, widest tick label,
/// gap and tick.
pub(super) fn left_margin(yt: &[Tick], ylabel: &str) -> f64 {
    let widest = yt.iter().filter(|t| t.major).map(|t| text_w(&t.label, TICK_FONT)).fold(0.0, f64::max);
    let label = if ylabel.trim().is_empty() { 0.0 } else { LABEL_FONT + 10.0 };
    8.0 + label + widest + 3.0 + TICK_LEN
}
