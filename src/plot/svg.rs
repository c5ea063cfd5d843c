//! Low-level SVG text: escaping, fixed-decimal coordinates, markers, clipping
//! of geometry to a box (so absurd values never reach the output as huge
//! numbers) and a content hash for ids that stay unique in one HTML page.

use super::Mark;

/// A point in pixel space.
pub(crate) type Pt = (f64, f64);

/// An axis-aligned pixel box; y grows downwards as in SVG.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rect {
    pub(crate) x0: f64,
    pub(crate) y0: f64,
    pub(crate) x1: f64,
    pub(crate) y1: f64,
}

impl Rect {
    pub(crate) fn w(&self) -> f64 {
        self.x1 - self.x0
    }

    pub(crate) fn h(&self) -> f64 {
        self.y1 - self.y0
    }

    pub(crate) fn contains(&self, p: Pt) -> bool {
        p.0 >= self.x0 && p.0 <= self.x1 && p.1 >= self.y0 && p.1 <= self.y1
    }

    pub(crate) fn expand(&self, m: f64) -> Rect {
        Rect { x0: self.x0 - m, y0: self.y0 - m, x1: self.x1 + m, y1: self.y1 + m }
    }

    pub(crate) fn intersects(&self, o: &Rect) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }
}

/// Escapes for both text content and attribute values, and drops characters
/// XML 1.0 forbids, so a stray control character cannot break the document.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(' '),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {}
            c => out.push(c),
        }
    }
    out
}

/// Two fixed decimals with trailing zeros trimmed: byte-identical across
/// runs, short, and never `-0`.
pub(crate) fn num(v: f64) -> String {
    if !v.is_finite() {
        return "0".to_string();
    }
    tidy(format!("{v:.2}"))
}

/// Trims trailing zeros of a fixed-point decimal and turns `-0` into `0`.
pub(crate) fn tidy(mut s: String) -> String {
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
    if s == "-0" {
        s = "0".to_string();
    }
    s
}

/// `x,y` for `points` attributes and path data.
pub(crate) fn pt(p: Pt) -> String {
    format!("{},{}", num(p.0), num(p.1))
}

/// A `points` attribute value: one pair per point, space separated.
pub(crate) fn points_attr(ps: &[Pt]) -> String {
    ps.iter().map(|&p| pt(p)).collect::<Vec<_>>().join(" ")
}

/// Liang–Barsky: the part of segment `a`–`b` inside `r`, returning the
/// original endpoints bit-for-bit when they are inside so runs can be joined
/// by exact comparison.
pub(crate) fn clip_segment(a: Pt, b: Pt, r: Rect) -> Option<(Pt, Pt)> {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [(-dx, a.0 - r.x0), (dx, r.x1 - a.0), (-dy, a.1 - r.y0), (dy, r.y1 - a.1)] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                if t > t1 {
                    return None;
                }
                t0 = t0.max(t);
            } else {
                if t < t0 {
                    return None;
                }
                t1 = t1.min(t);
            }
        }
    }
    let s = if t0 > 0.0 { (a.0 + t0 * dx, a.1 + t0 * dy) } else { a };
    let e = if t1 < 1.0 { (a.0 + t1 * dx, a.1 + t1 * dy) } else { b };
    Some((s, e))
}

/// Splits a polyline (with `None` gaps for skipped points) into the runs that
/// are visible inside `r`, each with at least two points.
pub(crate) fn runs(ps: &[Option<Pt>], r: Rect) -> Vec<Vec<Pt>> {
    let mut out: Vec<Vec<Pt>> = Vec::new();
    let mut cur: Vec<Pt> = Vec::new();
    for w in ps.windows(2) {
        let seg = match (w[0], w[1]) {
            (Some(a), Some(b)) => clip_segment(a, b, r),
            _ => None,
        };
        match seg {
            Some((s, e)) => {
                if cur.last() != Some(&s) {
                    if cur.len() >= 2 {
                        out.push(std::mem::take(&mut cur));
                    }
                    cur.clear();
                    cur.push(s);
                }
                cur.push(e);
            }
            None => {
                if cur.len() >= 2 {
                    out.push(std::mem::take(&mut cur));
                }
                cur.clear();
            }
        }
    }
    if cur.len() >= 2 {
        out.push(cur);
    }
    out
}

/// Sutherland–Hodgman clipping of a polygon to `r` (bands and regions with
/// vertices far outside the plot).
pub(crate) fn clip_polygon(ps: &[Pt], r: Rect) -> Vec<Pt> {
    let mut poly = ps.to_vec();
    for edge in 0..4 {
        if poly.is_empty() {
            break;
        }
        let inside = |p: Pt| match edge {
            0 => p.0 >= r.x0,
            1 => p.0 <= r.x1,
            2 => p.1 >= r.y0,
            _ => p.1 <= r.y1,
        };
        // Only called with one endpoint on each side, so the divisor is non-zero.
        let cross = |a: Pt, b: Pt| -> Pt {
            match edge {
                0 | 1 => {
                    let x = if edge == 0 { r.x0 } else { r.x1 };
                    (x, a.1 + (x - a.0) / (b.0 - a.0) * (b.1 - a.1))
                }
                _ => {
                    let y = if edge == 2 { r.y0 } else { r.y1 };
                    (a.0 + (y - a.1) / (b.1 - a.1) * (b.0 - a.0), y)
                }
            }
        };
        let mut out = Vec::with_capacity(poly.len() + 4);
        let mut prev = poly[poly.len() - 1];
        for &cur in &poly {
            match (inside(prev), inside(cur)) {
                (true, true) => out.push(cur),
                (true, false) => out.push(cross(prev, cur)),
                (false, true) => {
                    out.push(cross(prev, cur));
                    out.push(cur);
                }
                (false, false) => {}
            }
            prev = cur;
        }
        poly = out;
    }
    poly
}

/// Even-odd point-in-polygon test (legend placement only, so edges may go
/// either way).
pub(crate) fn in_polygon(p: Pt, poly: &[Pt]) -> bool {
    let Some(&last) = poly.last() else { return false };
    let mut inside = false;
    let mut b = last;
    for &a in poly {
        if (a.1 > p.1) != (b.1 > p.1) {
            let x = a.0 + (p.1 - a.1) * (b.0 - a.0) / (b.1 - a.1);
            if p.0 < x {
                inside = !inside;
            }
        }
        b = a;
    }
    inside
}

/// FNV-1a: a stable hash (std's `DefaultHasher` may change between
/// releases) for deterministic ids.
pub(crate) fn fnv1a(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// One marker of radius about `r` centred at `p`.
pub(crate) fn marker(mark: Mark, p: Pt, r: f64, color: &str, class: &str) -> String {
    let (x, y) = p;
    match mark {
        Mark::Circle => format!(
            "<circle class=\"{class}\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{color}\"/>",
            num(x),
            num(y),
            num(r)
        ),
        Mark::Square => {
            let s = r * 0.9;
            format!(
                "<rect class=\"{class}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{color}\"/>",
                num(x - s),
                num(y - s),
                num(2.0 * s),
                num(2.0 * s)
            )
        }
        Mark::Triangle => format!(
            "<path class=\"{class}\" d=\"M{}L{}L{}Z\" fill=\"{color}\"/>",
            pt((x, y - r * 1.2)),
            pt((x + r * 1.1, y + r * 0.7)),
            pt((x - r * 1.1, y + r * 0.7))
        ),
        Mark::Diamond => format!(
            "<path class=\"{class}\" d=\"M{}L{}L{}L{}Z\" fill=\"{color}\"/>",
            pt((x, y - r * 1.25)),
            pt((x + r, y)),
            pt((x, y + r * 1.25)),
            pt((x - r, y))
        ),
        Mark::Cross => format!(
            "<path class=\"{class}\" d=\"M{}L{}M{}L{}\" fill=\"none\" stroke=\"{color}\" \
             stroke-width=\"1.6\"/>",
            pt((x - r, y - r)),
            pt((x + r, y + r)),
            pt((x - r, y + r)),
            pt((x + r, y - r))
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short_and_never_negative_zero() {
        assert_eq!(num(12.0), "12");
        assert_eq!(num(12.5), "12.5");
        assert_eq!(num(-0.001), "0");
        assert_eq!(num(1.005), "1");
        assert_eq!(num(f64::NAN), "0");
        assert_eq!(num(-1.23456), "-1.23");
    }

    #[test]
    fn escaping_covers_markup_and_quotes() {
        assert_eq!(esc("a<b>&\"c'\u{1}"), "a&lt;b&gt;&amp;&quot;c&#39;");
    }

    #[test]
    fn segments_clip_to_the_box() {
        let r = Rect { x0: 0.0, y0: 0.0, x1: 10.0, y1: 10.0 };
        assert_eq!(clip_segment((1.0, 1.0), (2.0, 2.0), r), Some(((1.0, 1.0), (2.0, 2.0))));
        assert_eq!(clip_segment((-10.0, 5.0), (20.0, 5.0), r), Some(((0.0, 5.0), (10.0, 5.0))));
        assert_eq!(clip_segment((-10.0, -5.0), (-1.0, 50.0), r), None);
        let rs = runs(&[Some((1.0, 1.0)), Some((2.0, 2.0)), None, Some((3.0, 3.0)), Some((4.0, 4.0))], r);
        assert_eq!(rs.len(), 2);
        let sq = clip_polygon(&[(-5.0, -5.0), (15.0, -5.0), (15.0, 15.0), (-5.0, 15.0)], r);
        assert_eq!(sq.len(), 4);
        assert!(sq.iter().all(|&p| r.contains(p)));
        assert!(in_polygon((5.0, 5.0), &sq));
        assert!(!in_polygon((11.0, 5.0), &sq));
    }
}
