//! The grouped bar chart ([`BarChart`]).

use super::legend::{legend, Entry, Occupancy, Swatch};
use super::render::{
    axis_ticks, dims, finish_ids, left_margin, resolve, text_w, thin_labels, tick_budget, Extent, Frame, Map,
    ID_SLOT, INK, SLACK, TICK_FONT, TICK_LEN,
};
use super::series::series_colors;
use super::svg::{esc, num, pt, Rect};
use super::{BarChart, Scale};

/// Category labels longer than this many characters are cut with "…".
pub(super) const MAX_CATEGORY_CHARS: usize = 28;

pub(super) fn short(s: &str) -> String {
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
