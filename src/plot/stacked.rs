//! Stacked bar charts: per category one or more stacks side by side, each the
//! sum of its layers' segments, with optional error bars on the stack totals
//! and the legend outside the plot on the right.
//!
//! Segment edges are rounded to the 0.01 px grid the coordinates are written
//! on before heights are taken, so the written heights of a stack add up
//! exactly to its written total (no seams or overlaps from rounding).

use super::legend;
use super::render::{self, Extent, Frame, Map, ID_SLOT, INK, LABEL_FONT, SMALL_FONT, TICK_FONT, TICK_LEN};
use super::svg::{esc, num, pt, tidy, Rect};
use super::ticks;
use super::{Axis, Scale, PALETTE};

/// Stacked vertical bars: each category holds one or more stacks side by side
/// (for example "std" and "opt" energy at each node count); each stack is the
/// sum of its segments, one segment per layer (for example per program region).
///
/// Layer 0 sits at the bottom of every stack. The legend, at the right of the
/// plot, lists the layers top-down in the order they are stacked, so layer 0
/// is its last entry.
#[derive(Debug, Clone, PartialEq)]
pub struct StackedBarChart {
    /// Title above the plot; empty for none.
    pub title: String,
    /// Category names along the x axis (e.g. "16", "1024"); an axis label under them.
    pub categories: Vec<String>,
    /// Label of the x axis (e.g. "nodes n").
    pub x_label: String,
    /// Names of the stacks in each category, written under each bar (e.g. ["std", "opt"]).
    /// An empty list draws one unnamed stack per category.
    pub stacks: Vec<String>,
    /// Legend names, one per layer; layer i takes PALETTE[i % len] (lighter
    /// from the second round of the palette on, so up to 24 layers stay apart).
    pub layers: Vec<String>,
    /// `values[category][stack][layer]`; negative or non-finite segments are drawn as zero height,
    /// missing entries count as zero, entries beyond the names are ignored.
    pub values: Vec<Vec<Vec<f64>>>,
    /// Optional error bars on the stack totals: `whiskers[category][stack] = (low, high)`;
    /// pairs with a non-finite end are skipped.
    pub whiskers: Option<Vec<Vec<(f64, f64)>>>,
    /// Value axis (linear whatever its scale, as heights of a stack add up;
    /// its label e.g. "energy / E_std(n)"). It starts at 0 unless `min` is given.
    pub y: Axis,
    /// A dashed horizontal reference line with its label (e.g. y = 1).
    pub hline: Option<(f64, String)>,
    /// Width in px (default 640).
    pub width: f64,
    /// Height in px (default 400).
    pub height: f64,
}

impl StackedBarChart {
    /// A 640 × 400 chart without whiskers or reference line.
    pub fn new(
        title: impl Into<String>,
        categories: Vec<String>,
        x_label: impl Into<String>,
        stacks: Vec<String>,
        layers: Vec<String>,
        values: Vec<Vec<Vec<f64>>>,
        y: Axis,
    ) -> StackedBarChart {
        StackedBarChart {
            title: title.into(),
            categories,
            x_label: x_label.into(),
            stacks,
            layers,
            values,
            whiskers: None,
            y,
            hline: None,
            width: 640.0,
            height: 400.0,
        }
    }

    /// The chart as a standalone `<svg>` element.
    pub fn svg(&self) -> String {
        render::standalone(self.width, self.height, |dx, dy| self.svg_fragment(dx, dy))
    }

    /// The `<g>` body without the outer `<svg>`, drawn at an offset.
    pub fn svg_fragment(&self, dx: f64, dy: f64) -> String {
        draw(self, dx, dy)
    }

    /// Stack names as drawn: one unnamed stack when none are given.
    fn stack_names(&self) -> Vec<&str> {
        if self.stacks.is_empty() {
            vec![""]
        } else {
            self.stacks.iter().map(String::as_str).collect()
        }
    }

    /// The given value of a segment, if any.
    fn raw(&self, cat: usize, stack: usize, layer: usize) -> Option<f64> {
        self.values.get(cat)?.get(stack)?.get(layer).copied()
    }

    /// The drawn height (in data units) of a segment.
    fn segment(&self, cat: usize, stack: usize, layer: usize) -> f64 {
        match self.raw(cat, stack, layer) {
            Some(v) if v.is_finite() && v > 0.0 => v,
            _ => 0.0,
        }
    }

    /// Sum of the drawn segments of a stack.
    fn total(&self, cat: usize, stack: usize) -> f64 {
        (0..self.layers.len()).map(|k| self.segment(cat, stack, k)).sum()
    }

    /// A whisker with finite ends, low end first.
    fn whisker(&self, cat: usize, stack: usize) -> Option<(f64, f64)> {
        let &(a, b) = self.whiskers.as_ref()?.get(cat)?.get(stack)?;
        (a.is_finite() && b.is_finite()).then(|| (a.min(b), a.max(b)))
    }
}

/// Round-to-grid of pixel positions: coordinates are written with two
/// decimals, so edges snapped to that grid give heights that add up exactly.
fn snap(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// A value for a tooltip: four significant digits, short.
fn value_text(v: f64) -> String {
    if v.is_nan() {
        return "NaN".to_string();
    }
    if v.is_infinite() {
        return if v > 0.0 { "∞" } else { "-∞" }.to_string();
    }
    if v == 0.0 {
        return "0".to_string();
    }
    let e = v.abs().log10().floor();
    if (-3.0..6.0).contains(&e) {
        let d = (3.0 - e).clamp(0.0, 20.0) as usize;
        tidy(format!("{v:.d$}"))
    } else {
        let s = format!("{v:.3e}");
        match s.split_once('e') {
            Some((m, x)) => format!("{}e{x}", tidy(m.to_string())),
            None => s,
        }
    }
}

/// `s` in at most `room` px: the font shrinks down to 8 px, then the text is
/// cut with "…". Returns the font, the text and whether it was cut.
fn fit_text(s: &str, base: f64, room: f64) -> (f64, String, bool) {
    let font = render::fit_font(s, base, room);
    if render::text_w(s, font) <= room {
        return (font, s.to_string(), false);
    }
    let keep = (room / render::text_w("x", font)).floor().max(2.0) as usize - 1;
    let mut t: String = s.chars().take(keep).collect();
    t.push('…');
    (font, t, true)
}

/// `<text>` content with the full text as a tooltip when it was cut.
fn text_body(shown: &str, full: &str, cut: bool) -> String {
    if cut {
        format!("<title>{}</title>{}", esc(full), esc(shown))
    } else {
        esc(shown)
    }
}

/// Fill of layer `k`: the palette colour, lighter on later rounds of the palette.
fn layer_fill(k: usize) -> (&'static str, &'static str) {
    let opacity = match (k / PALETTE.len()) % 3 {
        0 => "1",
        1 => "0.55",
        _ => "0.3",
    };
    (PALETTE[k % PALETTE.len()], opacity)
}

const LEGEND_PAD: f64 = 6.0;
const LEGEND_SWATCH: f64 = 14.0;
const LEGEND_GAP: f64 = 6.0;
/// Space between the plot and the legend box.
const LEGEND_MARGIN: f64 = 10.0;

/// What one legend row shows.
#[derive(Debug)]
enum Row {
    /// The dashed reference line (with its full label).
    Hline(String),
    /// Layer `k`.
    Layer(usize),
    /// The count of layers that did not fit.
    More,
}

/// The legend's rows and size: the reference line first, then the layers
/// top-down as they are stacked (last layer first).
#[derive(Debug)]
struct Legend {
    font: f64,
    row: f64,
    /// Each row with its shown text and whether that was cut.
    rows: Vec<(Row, String, bool)>,
    w: f64,
    h: f64,
}

/// Lays out the legend in at most `max_w` × `max_h` px: rows and font shrink
/// for many layers (down to 8 px), long names are cut, and layers beyond what
/// fits are summed up in a last "… n more" row. `hline` is the label of a
/// visible reference line, listed first.
fn legend_layout(layers: &[String], hline: Option<&str>, max_w: f64, max_h: f64) -> Option<Legend> {
    let n = layers.len();
    if n == 0 {
        return None;
    }
    let extra = usize::from(hline.is_some());
    let inner_h = (max_h - 2.0 * LEGEND_PAD + 3.0).max(11.0);
    let row = (inner_h / (n + extra) as f64).clamp(11.0, TICK_FONT + 6.0);
    let font = (row - 6.0).clamp(8.0, TICK_FONT);
    let fit_rows = ((inner_h / row).floor() as usize).max(2 + extra);
    let shown = if n + extra > fit_rows { fit_rows - 1 - extra } else { n };
    let room = (max_w - 2.0 * LEGEND_PAD - LEGEND_SWATCH - LEGEND_GAP).max(render::text_w("ab", font));
    let cut = |name: &str| -> (String, bool) {
        if render::text_w(name, font) <= room {
            (name.to_string(), false)
        } else {
            let keep = (room / render::text_w("x", font)).floor().max(2.0) as usize - 1;
            let mut t: String = name.chars().take(keep).collect();
            t.push('…');
            (t, true)
        }
    };
    let mut rows: Vec<(Row, String, bool)> = Vec::new();
    if let Some(label) = hline {
        let (t, c) = cut(label);
        rows.push((Row::Hline(label.to_string()), t, c));
    }
    for k in (0..n).rev().take(shown) {
        let (t, c) = cut(&layers[k]);
        rows.push((Row::Layer(k), t, c));
    }
    if shown < n {
        rows.push((Row::More, format!("… {} more", n - shown), false));
    }
    let text = rows.iter().map(|r| render::text_w(&r.1, font)).fold(0.0, f64::max);
    let w = 2.0 * LEGEND_PAD + LEGEND_SWATCH + LEGEND_GAP + text;
    let h = 2.0 * LEGEND_PAD + rows.len() as f64 * row - 3.0;
    Some(Legend { font, row, rows, w, h })
}

/// Draws the legend with its top-left corner at (`x`, `y`).
fn legend_svg(c: &StackedBarChart, lg: &Legend, x: f64, y: f64) -> String {
    let mut out = legend::legend_open(x, y, lg.w, lg.h);
    let sh = (lg.row - 6.0).clamp(6.0, 10.0);
    for (i, (what, text, cut)) in lg.rows.iter().enumerate() {
        let cy = y + LEGEND_PAD + i as f64 * lg.row + (lg.row - 3.0) / 2.0;
        let sx = x + LEGEND_PAD;
        let tx = sx + LEGEND_SWATCH + LEGEND_GAP;
        let label = |full: &str| {
            format!(
                "<text x=\"{}\" y=\"{}\" dy=\"0.35em\" font-size=\"{}\" fill=\"#222\">{}</text>\n",
                num(tx),
                num(cy),
                num(lg.font),
                text_body(text, full, *cut)
            )
        };
        out += &match what {
            Row::Hline(full) => format!(
                "<g class=\"legend-entry hline-entry\">\n<line class=\"swatch\" x1=\"{}\" y1=\"{}\" x2=\"{}\" \
                 y2=\"{}\" stroke=\"#444\" stroke-width=\"1\" stroke-dasharray=\"4 3\"/>\n{}</g>\n",
                num(sx),
                num(cy),
                num(sx + LEGEND_SWATCH),
                num(cy),
                label(full)
            ),
            Row::Layer(k) => {
                let full = c.layers.get(*k).map_or("", String::as_str);
                let (col, op) = layer_fill(*k);
                format!(
                    "<g class=\"legend-entry\" data-layer=\"{}\">\n<rect class=\"swatch\" x=\"{}\" y=\"{}\" \
                     width=\"{}\" height=\"{}\" fill=\"{col}\" fill-opacity=\"{op}\" stroke=\"{col}\" \
                     stroke-width=\"0.8\"/>\n{}</g>\n",
                    esc(full),
                    num(sx),
                    num(cy - sh / 2.0),
                    num(LEGEND_SWATCH),
                    num(sh),
                    label(full)
                )
            }
            Row::More => format!(
                "<text class=\"legend-more\" x=\"{}\" y=\"{}\" dy=\"0.35em\" font-size=\"{}\" \
                 fill=\"#666\">{}</text>\n",
                num(tx),
                num(cy),
                num(lg.font),
                esc(text)
            ),
        };
    }
    out += "</g>\n";
    out
}

/// Where everything goes.
struct Layout<'a> {
    frame: Frame<'a>,
    legend: Option<Legend>,
    /// Rows under the plot, as offsets of their baselines below it.
    stack_row: Option<f64>,
    cat_row: Option<f64>,
    xlabel_row: Option<f64>,
}

fn layout(c: &StackedBarChart) -> Layout<'_> {
    let (w, h) = render::dims(c.width, c.height, 640.0, 400.0);
    let stacks = c.stack_names();
    let (n, ns) = (c.categories.len(), stacks.len());
    let has_data = n > 0 && !c.layers.is_empty();

    let mut ey = Extent::default();
    if has_data {
        for i in 0..n {
            for j in 0..ns {
                let t = c.total(i, j);
                if t > 0.0 {
                    ey.add(t, false);
                }
                if let Some((_, hi)) = c.whisker(i, j) {
                    ey.add(hi, false);
                }
            }
        }
    }
    if let Some((v, _)) = &c.hline {
        ey.add(*v, false);
    }
    let axis = Axis {
        label: c.y.label.clone(),
        scale: Scale::Linear,
        min: Some(c.y.min.filter(|v| v.is_finite()).unwrap_or(0.0)),
        max: c.y.max,
    };
    let (ylo, yhi) = render::resolve(&axis, ey, true);

    let top = if c.title.trim().is_empty() { 14.0 } else { 34.0 };
    let mut below = TICK_LEN;
    let stack_row = (has_data && stacks.iter().any(|s| !s.trim().is_empty())).then(|| {
        below += SMALL_FONT + 1.0;
        let at = below;
        below += 3.0;
        at
    });
    let cat_row = (n > 0).then(|| {
        below += TICK_FONT;
        let at = below;
        below += 4.0;
        at
    });
    let xlabel_row = (!c.x_label.trim().is_empty()).then(|| {
        below += LABEL_FONT + 6.0;
        below
    });
    let bottom = (below + 8.0).max(28.0);

    let yt = ticks::linear_ticks(ylo, yhi, render::tick_budget(h - top - bottom, 36.0));
    let left = render::left_margin(&yt, &c.y.label).min(w * 0.45);
    // The reference line's label goes to the legend, where it hides no bar or whisker.
    let tol = 1e-9 * (yhi - ylo);
    let hline = c
        .hline
        .as_ref()
        .filter(|(v, label)| v.is_finite() && *v >= ylo - tol && *v <= yhi + tol && !label.trim().is_empty())
        .map(|(_, label)| label.as_str());
    let legend = legend_layout(&c.layers, hline, (w * 0.3).max(60.0) - LEGEND_MARGIN - 6.0, h - top - 8.0);
    let right = legend.as_ref().map_or(16.0, |lg| lg.w + LEGEND_MARGIN + 6.0);
    let plot = Rect { x0: left, y0: top, x1: (w - right).max(left + 20.0), y1: (h - bottom).max(top + 20.0) };
    let xm = Map { lo: 0.0, hi: n.max(1) as f64, log: false, p0: plot.x0, p1: plot.x1 };
    let ym = Map { lo: ylo, hi: yhi, log: false, p0: plot.y1, p1: plot.y0 };
    let mut frame =
        Frame { w, h, plot, title: &c.title, xm, ym, xt: Vec::new(), yt, xlabel: "", ylabel: &c.y.label };
    render::thin_labels(&mut frame.yt, |v| ym.px(v), |_| TICK_FONT + 2.0);
    Layout { frame, legend, stack_row, cat_row, xlabel_row }
}

/// Left edge and width of stack `j` of category `i`.
fn bar_x(plot: Rect, n: usize, ns: usize, i: usize, j: usize) -> (f64, f64) {
    let slot = plot.w() / n.max(1) as f64;
    let pitch = slot * 0.8 / ns.max(1) as f64;
    let bw = if ns > 1 { pitch * 0.88 } else { pitch };
    (plot.x0 + slot * (i as f64 + 0.1) + pitch * j as f64 + (pitch - bw) / 2.0, bw)
}

/// Pixel row of value `v`, inside the plot and on the coordinate grid.
fn row_px(ym: Map, plot: Rect, v: f64) -> f64 {
    snap(ym.px(v).clamp(plot.y0, plot.y1))
}

fn draw(c: &StackedBarChart, dx: f64, dy: f64) -> String {
    let lay = layout(c);
    let f = &lay.frame;
    let (plot, ym) = (f.plot, f.ym);
    let stacks = c.stack_names();
    let (n, ns, nl) = (c.categories.len(), stacks.len(), c.layers.len());
    let has_data = n > 0 && nl > 0;

    let mut bars = String::new();
    let mut whiskers = String::new();
    if has_data {
        for (i, cat) in c.categories.iter().enumerate() {
            for (j, stack) in stacks.iter().enumerate() {
                let (x, bw) = bar_x(plot, n, ns, i, j);
                bars += &format!(
                    "<g class=\"stack\" data-category=\"{}\" data-stack=\"{}\">\n",
                    esc(cat),
                    esc(stack)
                );
                let mut cum = 0.0;
                let mut below = row_px(ym, plot, 0.0);
                for (k, layer) in c.layers.iter().enumerate() {
                    cum += c.segment(i, j, k);
                    let above = row_px(ym, plot, cum);
                    let value = c.raw(i, j, k).map_or_else(|| "missing".to_string(), value_text);
                    let tip: Vec<&str> =
                        [cat.as_str(), stack, layer.as_str()].into_iter().filter(|s| !s.is_empty()).collect();
                    let (col, op) = layer_fill(k);
                    bars += &format!(
                        "<rect class=\"segment\" data-layer=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" \
                         fill=\"{col}\" fill-opacity=\"{op}\" stroke=\"#fff\" stroke-width=\"0.5\">\
                         <title>{}: {}</title></rect>\n",
                        esc(layer),
                        num(x),
                        num(above),
                        num(bw),
                        num(below - above),
                        esc(&tip.join(" ")),
                        esc(&value)
                    );
                    below = above;
                }
                bars += "</g>\n";
                if let Some((lo, hi)) = c.whisker(i, j) {
                    let cx = x + bw / 2.0;
                    let cap = (bw * 0.2).clamp(2.0, 6.0);
                    let (y0, y1) = (row_px(ym, plot, lo), row_px(ym, plot, hi));
                    let tip: Vec<&str> =
                        [cat.as_str(), stack].into_iter().filter(|s| !s.is_empty()).collect();
                    whiskers += &format!(
                        "<path class=\"whisker\" d=\"M{}V{}M{}h{}M{}h{}\" fill=\"none\" stroke=\"{INK}\" \
                         stroke-width=\"1.2\"><title>{}: total {}, range {} to {}</title></path>\n",
                        pt((cx, y0)),
                        num(y1),
                        pt((cx - cap, y0)),
                        num(2.0 * cap),
                        pt((cx - cap, y1)),
                        num(2.0 * cap),
                        esc(&tip.join(" ")),
                        esc(&value_text(c.total(i, j))),
                        esc(&value_text(lo)),
                        esc(&value_text(hi))
                    );
                }
            }
        }
    }

    let mut out = f.open(dx, dy, "chart stacked-bar-chart");
    out += &f.grid_lines();
    out += &format!("<g class=\"plot-area\" clip-path=\"url(#{ID_SLOT})\">\n");
    let (hl_line, hl_text, _) = f.hline(&c.hline);
    out += &bars;
    out += &hl_line;
    out += &whiskers;
    out += "</g>\n";
    out += &f.axes(false);

    // Stack names under each bar, category names under each group.
    let slot = plot.w() / n.max(1) as f64;
    let mut ticks = String::new();
    let mut stack_labels = String::new();
    let mut cat_labels = String::new();
    // Stack names too wide for their bars (std/opt under 13 node counts)
    // are not cut to "s…": the x label names the bars once instead.
    let stack_room = slot * 0.8 / ns as f64 - 3.0;
    let named = stacks.iter().filter(|s| !s.trim().is_empty()).collect::<Vec<_>>();
    let stacks_fit = named.iter().all(|s| !fit_text(s, SMALL_FONT, stack_room).2);
    let x_label = if stacks_fit || named.is_empty() || c.x_label.trim().is_empty() {
        c.x_label.clone()
    } else {
        format!(
            "{} (bars left to right: {})",
            c.x_label,
            named.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", ")
        )
    };
    for (i, cat) in c.categories.iter().enumerate() {
        if let Some(at) = lay.stack_row {
            for (j, stack) in stacks.iter().enumerate() {
                let (x, bw) = bar_x(plot, n, ns, i, j);
                let cx = x + bw / 2.0;
                ticks += &format!("M{}v{}", pt((cx, plot.y1)), num(TICK_LEN));
                if stack.trim().is_empty() || !stacks_fit {
                    continue;
                }
                let (fs, shown, cut) = fit_text(stack, SMALL_FONT, stack_room);
                stack_labels += &format!(
                    "<text x=\"{}\" y=\"{}\"{}>{}</text>\n",
                    num(cx),
                    num(plot.y1 + at),
                    if fs < SMALL_FONT { format!(" font-size=\"{}\"", num(fs)) } else { String::new() },
                    text_body(&shown, stack, cut)
                );
            }
        }
        if let Some(at) = lay.cat_row {
            let cx = plot.x0 + slot * (i as f64 + 0.5);
            if lay.stack_row.is_none() {
                ticks += &format!("M{}v{}", pt((cx, plot.y1)), num(TICK_LEN));
            }
            let (fs, shown, cut) = fit_text(cat, TICK_FONT, slot - 4.0);
            cat_labels += &format!(
                "<text x=\"{}\" y=\"{}\"{}>{}</text>\n",
                num(cx),
                num(plot.y1 + at),
                if fs < TICK_FONT { format!(" font-size=\"{}\"", num(fs)) } else { String::new() },
                text_body(&shown, cat, cut)
            );
        }
    }
    if !ticks.is_empty() {
        out += &format!(
            "<path class=\"ticks x\" d=\"{ticks}\" fill=\"none\" stroke=\"{INK}\" stroke-width=\"0.8\"/>\n"
        );
    }
    if !stack_labels.is_empty() {
        out += &format!(
            "<g class=\"stack-labels\" font-size=\"{SMALL_FONT}\" fill=\"#555\" text-anchor=\"middle\">\n\
             {stack_labels}</g>\n"
        );
    }
    if !cat_labels.is_empty() {
        out += &format!(
            "<g class=\"tick-labels x\" font-size=\"{TICK_FONT}\" fill=\"{INK}\" text-anchor=\"middle\">\n\
             {cat_labels}</g>\n"
        );
    }
    if let Some(at) = lay.xlabel_row {
        let fs = render::fit_font(&x_label, LABEL_FONT, plot.w());
        out += &format!(
            "<text class=\"axis-label x\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"{}\" fill=\"#222\">{}</text>\n",
            num((plot.x0 + plot.x1) / 2.0),
            num(plot.y1 + at),
            num(fs),
            esc(&x_label)
        );
    }
    let in_legend =
        lay.legend.as_ref().is_some_and(|lg| lg.rows.iter().any(|r| matches!(r.0, Row::Hline(_))));
    if !in_legend {
        out += &hl_text;
    }
    if let Some(lg) = &lay.legend {
        out += &legend_svg(c, lg, plot.x1 + LEGEND_MARGIN, plot.y0);
    }
    if !has_data {
        out += &f.note("no data");
    }
    out += "</g>\n";
    render::finish_ids(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// 4 categories × 2 stacks × 5 layers, like the energy-per-region plot.
    fn energy() -> StackedBarChart {
        let layers = ["rprj3", "psinv coarse", "interp", "resid", "psinv smooth"];
        let values: Vec<Vec<Vec<f64>>> = (0..4)
            .map(|i| {
                let g = 1.0 + 0.15 * f64::from(i);
                vec![vec![0.08, 0.12, 0.2, 0.25, 0.35], vec![0.07 * g, 0.05 * g, 0.17, 0.2, 0.22 / g]]
            })
            .collect();
        let mut c = StackedBarChart::new(
            "Energy per region, std vs opt",
            strings(&["2", "16", "256", "4096"]),
            "nodes n",
            strings(&["std", "opt"]),
            strings(&layers),
            values,
            Axis::linear("energy / E_std(n)"),
        );
        c.whiskers = Some(
            (0..4)
                .map(|i| {
                    let t = (0..5).map(|k| c.segment(i, 1, k)).sum::<f64>();
                    vec![(0.97, 1.03), (t * 0.93, t * 1.06)]
                })
                .collect(),
        );
        c.hline = Some((1.0, "E_std(n) = 1".into()));
        c
    }

    fn count(s: &str, pat: &str) -> usize {
        s.matches(pat).count()
    }

    /// The value of attribute `name` in the tag starting `tag`.
    fn attr(tag: &str, name: &str) -> f64 {
        tag.split(&format!(" {name}=\""))
            .nth(1)
            .and_then(|r| r.split('"').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(f64::NAN)
    }

    #[test]
    fn one_segment_per_category_stack_and_layer() {
        let c = energy();
        let svg = c.svg();
        assert_eq!(count(&svg, "<rect class=\"segment\""), 4 * 2 * 5);
        assert_eq!(count(&svg, "<g class=\"stack\""), 4 * 2);
        assert_eq!(count(&svg, "<rect class=\"swatch\""), 5);
        assert!(svg.contains("<title>16 opt psinv coarse: 0.0575</title>"), "tooltip");
        // The reference line is labelled in the legend, not over the bars.
        assert!(svg.contains("class=\"hline\""));
        assert_eq!(count(&svg, ">E_std(n) = 1</text>"), 1);
        assert_eq!(count(&svg, "<g class=\"legend-entry hline-entry\">\n<line class=\"swatch\""), 1);
        assert!(!svg.contains("class=\"hline-label\""));
        let mut bare = c.clone();
        bare.layers.clear();
        assert!(bare.svg().contains("class=\"hline-label\""), "without a legend the label is in the plot");
        bare.hline = Some((f64::NAN, "gone".into()));
        assert!(!bare.svg().contains("gone"));
        assert!(svg.contains(">nodes n</text>"));
        assert_eq!(count(&svg, ">std</text>"), 4);
        assert!(svg.contains(">4096</text>"));
        assert!(svg.ends_with("</svg>\n"));
        assert!(!svg.contains("NaN") && !svg.contains("inf"));
    }

    #[test]
    fn segment_heights_add_up_to_the_stack_total() {
        let c = energy();
        let svg = c.svg();
        let lay = layout(&c);
        let (plot, ym) = (lay.frame.plot, lay.frame.ym);
        for (s, stack) in svg.split("<g class=\"stack\"").skip(1).enumerate() {
            let (i, j) = (s / 2, s % 2);
            let stack = stack.split("</g>").next().unwrap_or("");
            let rects: Vec<&str> = stack.split("<rect class=\"segment\"").skip(1).collect();
            assert_eq!(rects.len(), 5);
            let sum: f64 = rects.iter().map(|r| attr(r, "height")).sum();
            let total = c.total(i, j);
            let want = row_px(ym, plot, 0.0) - row_px(ym, plot, total);
            assert!((sum - want).abs() < 1e-6, "stack {i}/{j}: {sum} vs {want}");
            assert!((sum - (ym.px(0.0) - ym.px(total))).abs() <= 0.0100001);
            // Layer 0 at the bottom on the axis, each next one right above.
            assert!((attr(rects[0], "y") + attr(rects[0], "height") - snap(plot.y1)).abs() < 1e-6);
            for w in rects.windows(2) {
                assert!((attr(w[1], "y") + attr(w[1], "height") - attr(w[0], "y")).abs() < 1e-6);
            }
        }
        assert_eq!(ym.lo, 0.0, "the axis starts at 0");
        let top = (0..4)
            .flat_map(|i| (0..2).map(move |j| (i, j)))
            .fold(0.0f64, |m, (i, j)| m.max(c.total(i, j)).max(c.whisker(i, j).map_or(0.0, |w| w.1)));
        assert!(ym.hi >= top && ym.hi >= 1.0);
    }

    /// Bar names that do not fit under 13 groups are not cut to `s…`: the
    /// x label names the bars once.
    #[test]
    fn bar_names_that_do_not_fit_move_to_the_axis_label() {
        let svg = energy().svg();
        assert_eq!(count(&svg, ">std</text>"), 4, "four groups leave room for the names");
        assert!(svg.contains(">nodes n</text>"));
        let cats: Vec<String> = (1..=13).map(|k| (1u64 << k).to_string()).collect();
        let values = vec![vec![vec![0.5, 0.5], vec![0.4, 0.4]]; 13];
        let c = StackedBarChart::new(
            "many",
            cats,
            "nodes n",
            strings(&["std", "opt"]),
            strings(&["a", "b"]),
            values,
            Axis::linear("y"),
        );
        let svg = c.svg();
        assert_eq!(count(&svg, ">s…"), 0, "{svg}");
        assert_eq!(count(&svg, ">std</text>"), 0);
        assert!(svg.contains(">nodes n (bars left to right: std, opt)</text>"), "{svg}");
    }

    #[test]
    fn names_are_escaped() {
        let mut c = energy();
        c.layers[2] = "<script>&\"x\"".into();
        c.categories[0] = "a<b".into();
        c.stacks[1] = "'o'".into();
        c.title = "<t>".into();
        let svg = c.svg();
        assert!(!svg.contains("<script>") && !svg.contains("<t>"));
        assert_eq!(count(&svg, "data-layer=\"&lt;script&gt;&amp;&quot;x&quot;\""), 4 * 2 + 1);
        assert!(svg.contains("<title>a&lt;b &#39;o&#39; &lt;script&gt;&amp;&quot;x&quot;: "));
        assert!(svg.contains(">&lt;t&gt;</text>"));
        assert!(!svg.contains("<script") && !svg.contains("href"));
    }

    #[test]
    fn whiskers_are_drawn_where_given_and_finite() {
        let mut c = energy();
        assert_eq!(count(&c.svg(), "<path class=\"whisker\""), 8);
        c.whiskers =
            Some(vec![vec![(0.9, 1.1), (f64::NAN, 1.0)], vec![(1.2, 0.8)], vec![], vec![(0.5, 0.6); 5]]);
        let svg = c.svg();
        assert_eq!(count(&svg, "<path class=\"whisker\""), 1 + 1 + 2);
        c.whiskers = None;
        assert_eq!(count(&c.svg(), "class=\"whisker\""), 0);
    }

    #[test]
    fn empty_and_ragged_input_does_not_panic() {
        let empty = StackedBarChart::new("nothing", vec![], "x", vec![], vec![], vec![], Axis::linear("y"));
        let svg = empty.svg();
        assert!(svg.starts_with("<svg ") && svg.ends_with("</svg>\n"));
        assert!(svg.contains(">nothing</text>") && svg.contains(">no data</text>"));
        assert!(!svg.contains("class=\"segment\"") && !svg.contains("class=\"legend\""));
        let mut no_layers = energy();
        no_layers.layers.clear();
        let svg = no_layers.svg();
        assert!(svg.contains(">no data</text>"));
        assert_eq!(count(&svg, "class=\"segment\""), 0);
        assert_eq!(count(&svg, "class=\"whisker\""), 0);
        let mut no_cats = energy();
        no_cats.categories.clear();
        assert!(no_cats.svg().contains(">no data</text>"));

        // Missing, negative and non-finite entries are zero-height segments.
        let mut ragged = energy();
        ragged.values = vec![vec![vec![1.0, -2.0, f64::NAN]], vec![], vec![vec![f64::INFINITY; 9]; 7]];
        ragged.whiskers = Some(vec![vec![(f64::NEG_INFINITY, 1.0)]]);
        ragged.y = Axis::log("log is ignored").range(Some(f64::NAN), Some(-3.0));
        ragged.width = f64::NAN;
        ragged.height = 1e9;
        let svg = ragged.svg();
        assert_eq!(count(&svg, "<rect class=\"segment\""), 4 * 2 * 5);
        assert!(svg.contains(": missing</title>") && svg.contains(": NaN</title>"));
        assert!(svg.contains(": -2</title>") && svg.contains(": ∞</title>"));
        assert!(!svg.contains("no data"));
        assert!(!svg.contains("\"NaN") && !svg.contains("inf"), "coordinates stay finite");
        let mut anon = energy();
        anon.stacks.clear();
        assert_eq!(count(&anon.svg(), "<rect class=\"segment\""), 4 * 5);
    }

    #[test]
    fn legend_lists_layers_top_down_and_cuts_long_names() {
        let mut c = energy();
        let svg = c.svg();
        let legend = svg.split("<g class=\"legend\">").nth(1).unwrap_or("");
        let order: Vec<&str> =
            legend.split("data-layer=\"").skip(1).filter_map(|r| r.split('"').next()).collect();
        assert_eq!(order, ["psinv smooth", "resid", "interp", "psinv coarse", "rprj3"]);
        // Legend right of the plot, not on it.
        let frame_right = {
            let f = svg.split("<rect class=\"frame\"").nth(1).unwrap_or("");
            attr(f, "x") + attr(f, "width")
        };
        assert!(attr(legend, "x") > frame_right);

        c.layers = (0..12).map(|k| format!("region {k} with a rather long descriptive name")).collect();
        c.values = vec![vec![vec![0.1; 12]; 2]; 4];
        let svg = c.svg();
        let legend = svg.split("<g class=\"legend\">").nth(1).unwrap_or("");
        assert_eq!(count(legend, "<rect class=\"swatch\""), 12);
        assert_eq!(count(legend, "…</text>"), 12);
        assert!(legend.contains("<title>region 0 with a rather long descriptive name</title>"));
        let box_h = attr(legend, "height");
        assert!(attr(legend, "y") + box_h <= 400.0 && attr(legend, "width") <= 640.0 * 0.3);
        assert!(!legend.contains("legend-more"));

        c.layers = (0..60).map(|k| format!("r{k}")).collect();
        let svg = c.svg();
        let legend = svg.split("<g class=\"legend\">").nth(1).unwrap_or("");
        assert!(legend.contains("more</text>"));
        assert!(attr(legend, "y") + attr(legend, "height") <= 400.0);
    }

    #[test]
    fn output_is_deterministic() {
        let c = energy();
        assert_eq!(c.svg(), c.svg());
        assert_eq!(c.svg(), energy().svg());
        assert_ne!(c.svg_fragment(0.0, 0.0), c.svg_fragment(10.0, 0.0));
        let id =
            |s: &str| s.split("clipPath id=\"").nth(1).and_then(|r| r.split('"').next()).map(str::to_string);
        assert_ne!(id(&c.svg_fragment(0.0, 0.0)), id(&c.svg_fragment(10.0, 0.0)));
        assert!(id(&c.svg()).is_some_and(|i| c.svg().contains(&format!("url(#{i})"))));
    }

    #[test]
    fn tooltip_values_are_short() {
        assert_eq!(value_text(0.0575), "0.0575");
        assert_eq!(value_text(1.0), "1");
        assert_eq!(value_text(1234.5678), "1235");
        assert_eq!(value_text(0.1 + 0.2), "0.3");
        assert_eq!(value_text(-2.0), "-2");
        assert_eq!(value_text(1.5e-8), "1.5e-8");
        assert_eq!(value_text(2.5e9), "2.5e9");
    }
}
