//! The legend: its entries and swatches, and the corner of the plot where
//! it hides the least data (markers, lines and fills counted in pixels).

use super::render::{text_w, MARK_R, TICK_FONT};
use super::svg::{self, esc, num, Pt, Rect};
use super::Mark;

/// What lies where in the plot, in pixels, for choosing the legend corner.
#[derive(Debug, Default)]
pub(super) struct Occupancy {
    /// Marker centres.
    pub(super) marks: Vec<Pt>,
    /// Points sampled along drawn lines.
    pub(super) strokes: Vec<Pt>,
    /// Filled polygons (bands, regions, bars).
    pub(super) areas: Vec<Vec<Pt>>,
    /// Text that must stay readable (span and reference-line labels).
    pub(super) labels: Vec<Rect>,
}

impl Occupancy {
    pub(super) fn stroke(&mut self, run: &[Pt]) {
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
    pub(super) fn score(&self, r: &Rect) -> f64 {
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

pub(super) fn bbox(ps: &[Pt]) -> Option<Rect> {
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
pub(super) enum Swatch {
    Marker(Mark),
    Line {
        dashed: bool,
    },
    /// A line with a marker in its middle.
    MarkedLine(Mark),
    Fill,
    /// A light fill with a dashed edge (a wider band behind).
    LightFill,
    /// Opaque fill, as bars are drawn.
    Solid,
    Region,
    Stem,
}

#[derive(Debug)]
pub(super) struct Entry<'a> {
    pub(super) name: &'a str,
    pub(super) color: &'static str,
    pub(super) swatch: Swatch,
}

/// Padding, row height, swatch width, swatch–text gap and inset from the
/// plot frame of a legend box, in px.
const PAD: f64 = 6.0;
const ROW: f64 = TICK_FONT + 6.0;
const SWATCH_W: f64 = 22.0;
const GAP: f64 = 6.0;
const INSET: f64 = 8.0;

/// Width and height of the legend box for `entries`.
pub(super) fn size(entries: &[Entry]) -> (f64, f64) {
    let text = entries.iter().map(|e| text_w(e.name, TICK_FONT)).fold(0.0, f64::max);
    (PAD + SWATCH_W + GAP + text + PAD, 2.0 * PAD + entries.len() as f64 * ROW - 3.0)
}

/// The four inner corners of the plot for a `w` × `h` box, top-right first.
fn corners(plot: Rect, w: f64, h: f64) -> [(f64, f64); 4] {
    [
        (plot.x1 - INSET - w, plot.y0 + INSET),
        (plot.x0 + INSET, plot.y0 + INSET),
        (plot.x1 - INSET - w, plot.y1 - INSET - h),
        (plot.x0 + INSET, plot.y1 - INSET - h),
    ]
}

/// An inner corner where a `w` × `h` box covers nothing drawn: no marker
/// (with its radius), no line or band edge, no fill, no label, and fits
/// inside the plot. `None` when every corner covers something: the legend
/// then goes outside the plot.
pub(super) fn clean_corner(plot: Rect, occ: &Occupancy, w: f64, h: f64) -> Option<(f64, f64)> {
    corners(plot, w, h).into_iter().find(|&(x, y)| {
        let r = Rect { x0: x, y0: y, x1: x + w, y1: y + h };
        r.x0 >= plot.x0 && r.y0 >= plot.y0 && occ.score(&r.expand(MARK_R + 1.0)) == 0.0
    })
}

/// The legend box in the best of the four inner corners (top-right first),
/// where it hides the least: for charts whose legend stays inside.
pub(super) fn legend(entries: &[Entry], plot: Rect, occ: &Occupancy) -> String {
    if entries.is_empty() {
        return String::new();
    }
    let (bw, bh) = size(entries);
    let mut best = (f64::INFINITY, (0.0, 0.0));
    for c in corners(plot, bw, bh) {
        let s = occ.score(&Rect { x0: c.0, y0: c.1, x1: c.0 + bw, y1: c.1 + bh });
        if s < best.0 {
            best = (s, c);
        }
    }
    legend_at(entries, best.1 .0, best.1 .1)
}

/// The legend box with its top-left corner at (`x`, `y`).
pub(super) fn legend_at(entries: &[Entry], x: f64, y: f64) -> String {
    if entries.is_empty() {
        return String::new();
    }
    let (bw, bh) = size(entries);
    let (pad, row, sw, gap) = (PAD, ROW, SWATCH_W, GAP);
    let mut out = legend_open(x, y, bw, bh);
    for (i, e) in entries.iter().enumerate() {
        let cy = y + pad + i as f64 * row + (row - 3.0) / 2.0;
        let (sx0, sx1) = (x + pad, x + pad + sw);
        let c = e.color;
        out += &match e.swatch {
            Swatch::Marker(m) => svg::marker(m, ((sx0 + sx1) / 2.0, cy), MARK_R, c, "swatch"),
            Swatch::Line { .. } | Swatch::MarkedLine(_) => {
                let line = format!(
                    "<line class=\"swatch\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{c}\" \
                     stroke-width=\"1.8\"{}/>",
                    num(sx0),
                    num(cy),
                    num(sx1),
                    num(cy),
                    if matches!(e.swatch, Swatch::Line { dashed: true }) {
                        " stroke-dasharray=\"5 3\""
                    } else {
                        ""
                    }
                );
                match e.swatch {
                    Swatch::MarkedLine(m) => {
                        line + &svg::marker(m, ((sx0 + sx1) / 2.0, cy), MARK_R, c, "swatch")
                    }
                    _ => line,
                }
            }
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
