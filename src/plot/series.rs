//! Series in three layers (fills, lines, markers), clipped to the plot
//! area before they are written, in the palette's colours.

use super::legend::Occupancy;
use super::render::{text_w, Map, HALO, MARK_R, SLACK, SMALL_FONT};
use super::svg::{self, esc, num, Pt, Rect};
use super::{Mark, SeriesKind, PALETTE};

/// Palette colour of each series: explicit indices as given, the others
/// taking the cycle in order.
pub(super) fn series_colors(explicit: impl Iterator<Item = Option<usize>>) -> Vec<&'static str> {
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
pub(super) struct Layers {
    pub(super) fills: String,
    pub(super) lines: String,
    pub(super) marks: String,
    pub(super) occ: Occupancy,
    pub(super) drawn: usize,
    /// Where bands leave the plot area, to be marked at its edge.
    pub(super) clips: Vec<Clip>,
}

/// Which edge of the plot a band leaves through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Edge {
    /// Below the bottom of the axis.
    Below,
    /// At or below zero on a log axis, which cannot show it.
    Zero,
    /// Above the top of the axis.
    Above,
}

/// A band leaving the plot area between two x positions (px).
#[derive(Debug, Clone, Copy)]
pub(super) struct Clip {
    pub(super) edge: Edge,
    pub(super) x0: f64,
    pub(super) x1: f64,
    pub(super) color: &'static str,
}

/// Half-width and height of a clip mark's triangle, px.
const CLIP_MARK: (f64, f64) = (4.5, 7.0);

impl Layers {
    /// The clip marks (a triangle pointing out of the plot where a band
    /// leaves it and where it returns) and one label per edge, placed beside
    /// a mark where it covers no other, and kept in the occupancy so the
    /// legend stays off them.
    pub(super) fn clip_marks(&mut self, plot: Rect) -> String {
        let (hw, th) = CLIP_MARK;
        let mut out = String::new();
        let mut placed: Vec<(Edge, f64)> = Vec::new();
        for c in std::mem::take(&mut self.clips) {
            let bottom = c.edge != Edge::Above;
            let (base, tip) = if bottom {
                (plot.y1 - th - 1.0, plot.y1 - 1.0)
            } else {
                (plot.y0 + th + 1.0, plot.y0 + 1.0)
            };
            for x in [c.x0, c.x1] {
                let x = x.clamp(plot.x0 + hw, plot.x1 - hw);
                let same_side = |e: Edge| (e == Edge::Above) != bottom;
                if placed.iter().any(|&(e, px)| same_side(e) && (px - x).abs() < 2.0 * hw + 2.0) {
                    continue;
                }
                placed.push((c.edge, x));
                out += &format!(
                    "<path class=\"clip-mark\" d=\"M{},{}L{},{}L{},{}Z\" fill=\"{}\" stroke=\"#fff\" \
                     stroke-width=\"0.8\"/>\n",
                    num(x - hw),
                    num(base),
                    num(x + hw),
                    num(base),
                    num(x),
                    num(tip),
                    c.color
                );
                self.occ.marks.push((x, (base + tip) / 2.0));
            }
        }
        for edge in [Edge::Zero, Edge::Below, Edge::Above] {
            let xs: Vec<f64> = placed.iter().filter(|m| m.0 == edge).map(|m| m.1).collect();
            let Some(&first) = xs.first() else { continue };
            let text = match edge {
                Edge::Zero => "band reaches 0 (off the log axis)",
                Edge::Below => "band continues below the axis",
                Edge::Above => "band continues above the axis",
            };
            let tw = text_w(text, SMALL_FONT);
            let ty = if edge == Edge::Above { plot.y0 + 12.0 } else { plot.y1 - 4.0 };
            let boxed = |bx: f64| Rect { x0: bx - 2.0, y0: ty - SMALL_FONT, x1: bx + tw + 2.0, y1: ty + 3.0 };
            // Beside a mark of this edge, right or left, covering no mark.
            let fits = |bx: f64| {
                let r = boxed(bx);
                r.x0 >= plot.x0
                    && r.x1 <= plot.x1
                    && !placed.iter().any(|&(e, x)| {
                        (e == Edge::Above) == (edge == Edge::Above) && x + hw > r.x0 && x - hw < r.x1
                    })
            };
            let bx = xs
                .iter()
                .flat_map(|&x| [x + hw + 3.0, x - hw - 3.0 - tw])
                .find(|&bx| fits(bx))
                .unwrap_or_else(|| (first + hw + 3.0).min(plot.x1 - tw - 2.0).max(plot.x0 + 2.0));
            out += &format!(
                "<text class=\"clip-label\" x=\"{}\" y=\"{}\" font-size=\"{SMALL_FONT}\" fill=\"#333\" {HALO}>{}</text>\n",
                num(bx),
                num(ty),
                esc(text)
            );
            self.occ.labels.push(boxed(bx));
        }
        out
    }
}

impl Layers {
    pub(super) fn polyline(&mut self, runs: &[Vec<Pt>], class: &str, name: &str, style: &str) {
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
pub(super) fn draw_series(
    l: &mut Layers,
    kind: &SeriesKind,
    name: &str,
    c: &'static str,
    xm: Map,
    ym: Map,
    plot: Rect,
) {
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
        SeriesKind::MarkedLine { pts, mark } => {
            draw_series(l, &SeriesKind::Line { pts: pts.clone(), dashed: false }, name, c, xm, ym, plot);
            draw_series(l, &SeriesKind::Points { pts: pts.clone(), mark: *mark }, name, c, xm, ym, plot);
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
            let leaves = |i: usize| -> [Option<Edge>; 2] {
                let Some((lo, hi)) = pairs[i] else { return [None, None] };
                let below = (lo.1 > plot.y1 + 0.5).then(|| {
                    if ym.log && lower[i].1 <= 0.0 {
                        Edge::Zero
                    } else {
                        Edge::Below
                    }
                });
                [below, (hi.1 < plot.y0 - 0.5).then_some(Edge::Above)]
            };
            for side in 0..2 {
                let mut run: Option<Clip> = None;
                for (i, pair) in pairs.iter().enumerate() {
                    let x = pair.map(|p| p.0 .0);
                    match (leaves(i)[side], x, run.as_mut()) {
                        (Some(e), Some(x), Some(r)) if r.edge == e => r.x1 = x,
                        (Some(e), Some(x), _) => {
                            l.clips.extend(run.take());
                            run = Some(Clip { edge: e, x0: x, x1: x, color: c });
                        }
                        _ => l.clips.extend(run.take()),
                    }
                }
                l.clips.extend(run);
            }
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
pub(super) fn series_points(kind: &SeriesKind) -> Box<dyn Iterator<Item = &(f64, f64)> + '_> {
    match kind {
        SeriesKind::Points { pts, .. }
        | SeriesKind::Line { pts, .. }
        | SeriesKind::MarkedLine { pts, .. }
        | SeriesKind::Polygon { pts, .. }
        | SeriesKind::Stems { pts } => Box::new(pts.iter()),
        SeriesKind::Band { lower, upper, .. } => Box::new(lower.iter().chain(upper.iter())),
    }
}
