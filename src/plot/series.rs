//! Series in three layers (fills, lines, markers), clipped to the plot
//! area before they are written, in the palette's colours.

use super::legend::Occupancy;
use super::render::{Map, MARK_R, SLACK};
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
    c: &str,
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
pub(super) fn series_points(kind: &SeriesKind) -> Box<dyn Iterator<Item = &(f64, f64)> + '_> {
    match kind {
        SeriesKind::Points { pts, .. }
        | SeriesKind::Line { pts, .. }
        | SeriesKind::Polygon { pts, .. }
        | SeriesKind::Stems { pts } => Box::new(pts.iter()),
        SeriesKind::Band { lower, upper, .. } => Box::new(lower.iter().chain(upper.iter())),
    }
}
