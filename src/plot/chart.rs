//! The x–y chart ([`Chart`]) and a grid of charts in one SVG.

use super::legend::{self, legend_at, Entry, Occupancy, Swatch};
use super::render::{
    axis_ticks, dims, finish_ids, fit_font, left_margin, resolve, text_w, thin_labels, tick_budget, wrap,
    Extent, Frame, Map, HALO, ID_SLOT, SMALL_FONT, TICK_FONT,
};
use super::series::{draw_series, series_colors, series_points, Layers};
use super::svg::{esc, num, Rect};
use super::{Chart, Scale, SeriesKind};

/// Room an outside legend adds to the chart: on the right or below.
#[derive(Debug, Clone, Copy, Default)]
struct Reserve {
    right: f64,
    bottom: f64,
}

/// Space between the chart's own area and an outside legend.
const OUTSIDE_GAP: f64 = 10.0;

/// The chart and its size, its legend in an inner corner of the plot where
/// the box covers nothing drawn, else outside the plot: on the right when
/// the box is narrow (at most 30 % of the width), below the x-axis label
/// otherwise. An outside legend makes the chart that much wider or taller,
/// so the plot keeps its size and the legend never hides a measurement, a
/// line or a band.
pub(super) fn chart(c: &Chart, dx: f64, dy: f64) -> (String, (f64, f64)) {
    let colors = series_colors(c.series.iter().map(|s| s.color));
    let entries = legend_entries(c, &colors);
    let d = draw(c, dx, dy, &colors);
    if entries.is_empty() {
        return d.finish(String::new(), Reserve::default());
    }
    let (bw, bh) = legend::size(&entries);
    if let Some((x, y)) = legend::clean_corner(d.plot, &d.occ, bw, bh) {
        return d.finish(legend_at(&entries, x, y), Reserve::default());
    }
    let (w, h) = (d.w, d.h);
    if bw <= 0.3 * w {
        let y = d.plot.y0;
        d.finish(legend_at(&entries, w, y), Reserve { right: bw + OUTSIDE_GAP, bottom: 0.0 })
    } else {
        let x = ((d.plot.x0 + d.plot.x1 - bw) / 2.0).min(w - bw - 4.0).max(4.0);
        d.finish(legend_at(&entries, x, h), Reserve { right: 0.0, bottom: bh + OUTSIDE_GAP })
    }
}

/// The legend entries of the named series.
fn legend_entries<'a>(c: &'a Chart, colors: &[&'static str]) -> Vec<Entry<'a>> {
    c.series
        .iter()
        .zip(colors)
        .filter(|(s, _)| !s.name.trim().is_empty())
        .map(|(s, &col)| Entry {
            name: &s.name,
            color: col,
            swatch: match &s.kind {
                SeriesKind::Points { mark, .. } => Swatch::Marker(*mark),
                SeriesKind::Line { dashed, .. } => Swatch::Line { dashed: *dashed },
                SeriesKind::MarkedLine { mark, .. } => Swatch::MarkedLine(*mark),
                SeriesKind::Band { light: false, .. } => Swatch::Fill,
                SeriesKind::Band { light: true, .. } => Swatch::LightFill,
                SeriesKind::Polygon { .. } => Swatch::Region,
                SeriesKind::Stems { .. } => Swatch::Stem,
            },
        })
        .collect()
}

/// A chart drawn up to its legend.
struct Drawn {
    /// The SVG so far, its group still open.
    out: String,
    /// Drawn after the legend: the "no data" note.
    tail: String,
    plot: Rect,
    occ: Occupancy,
    /// The chart's own size, without the room of an outside legend.
    w: f64,
    h: f64,
}

impl Drawn {
    /// Closes the chart with its legend; `reserve` is the room an outside
    /// legend adds (the plot itself does not move).
    fn finish(mut self, legend: String, reserve: Reserve) -> (String, (f64, f64)) {
        let (w, h) = (self.w, self.h);
        if reserve.right > 0.0 || reserve.bottom > 0.0 {
            // The outside legend's room, white like the rest of the chart.
            let (x, y, rw, rh) =
                if reserve.right > 0.0 { (w, 0.0, reserve.right, h) } else { (0.0, h, w, reserve.bottom) };
            self.out += &format!(
                "<rect class=\"background legend-room\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fff\"/>\n",
                num(x),
                num(y),
                num(rw),
                num(rh)
            );
        }
        self.out += &legend;
        self.out += &self.tail;
        self.out += "</g>\n";
        (finish_ids(self.out), (w + reserve.right, h + reserve.bottom))
    }
}

fn draw(c: &Chart, dx: f64, dy: f64, colors: &[&'static str]) -> Drawn {
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

    let mut l = Layers::default();
    for (s, col) in c.series.iter().zip(colors) {
        if matches!(s.kind, SeriesKind::Band { .. } | SeriesKind::Polygon { .. }) {
            draw_series(&mut l, &s.kind, &s.name, col, xm, ym, plot);
        }
    }
    for (s, col) in c.series.iter().zip(colors) {
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
    out += &l.clip_marks(plot);
    out += &shade_text;
    out += &hl_text;
    let tail = if l.drawn == 0 { f.note("no data") } else { String::new() };
    Drawn { out, tail, plot, occ: l.occ, w, h }
}

pub(super) fn grid(charts: &[Chart], cols: usize, title: &str) -> String {
    let cols = cols.clamp(1, charts.len().max(1));
    let sizes: Vec<(f64, f64)> = charts.iter().map(|c| chart(c, 0.0, 0.0).1).collect();
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
        body += &chart(c, cw * k as f64 + (cw - s.0) / 2.0, top + ch * r as f64 + (ch - s.1) / 2.0).0;
    }
    body += "</g>\n";
    wrap(w, h, &body)
}
