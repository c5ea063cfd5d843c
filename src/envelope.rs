//! The band as a function: its envelopes over a prediction range, and its
//! width as a function of the threshold.
//!
//! * Over `x` (one-variable models): the upper envelope is
//!   `max_v T(C + Δc_v, x)` over the region's vertices `v`, the lower one the
//!   min; both are piecewise, each piece the model with one vertex's
//!   parameters. The vertex attaining the extreme is computed exactly at
//!   sample points; between two samples with different winners the switch
//!   point is enclosed by exact bisection, so every breakpoint is reported
//!   as a rational interval certified to contain it. Two switches between
//!   neighbouring samples (a vertex winning only inside one sample gap)
//!   would be missed; the sampling is dense (512 points by default) for
//!   that reason.
//! * Over the threshold e′: the set `{(e′, T(c, x*)) : c in the region at e′}`
//!   is a convex polygon, the exact projection of the residual system with
//!   `e` free onto `(e, t)`. Its upper and lower chains are the band's ends,
//!   so the width is piecewise linear with exact breakpoints.

use crate::analysis::{Analysis, Region, Shape};
use crate::fit::Design;
use crate::linear::{Constraint, Kind};
use crate::model::Model;
use crate::num::Rat;
use crate::poly::Polyhedron;
use num_traits::{One, Signed, Zero};

/// Default number of sample points of an envelope.
pub const DEFAULT_SAMPLES: usize = 512;
/// Bisection steps that enclose one breakpoint (width = sample gap / 2^steps).
const BISECT_STEPS: u32 = 48;

/// One piece of an envelope: on `[from, to]` the extreme is the model with
/// the parameters of one vertex.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// Start of the piece (the range start, or the upper end of the enclosure of the breakpoint before it).
    pub from: Rat,
    /// End of the piece (the range end, or the lower end of the enclosure of the breakpoint after it).
    pub to: Rat,
    /// True when `from` is exact (the range start, or a breakpoint verified exactly).
    pub from_exact: bool,
    /// True when `to` is exact.
    pub to_exact: bool,
    /// Index of the vertex (into the region's vertices).
    pub vertex: usize,
    /// Its parameters `C + Δc`.
    pub params: Vec<Rat>,
}

/// Upper and lower envelopes of one region's band over a range of the model's only variable.
#[derive(Debug, Clone)]
pub struct Envelope {
    /// Range start.
    pub lo: Rat,
    /// Range end.
    pub hi: Rat,
    /// Pieces of the upper envelope, in order of `x`.
    pub upper: Vec<Piece>,
    /// Pieces of the lower envelope.
    pub lower: Vec<Piece>,
}

/// Why an envelope was not computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvelopeSkip {
    /// The model has more than one variable.
    NotOneVariable,
    /// The region is empty.
    Empty,
    /// The region is unbounded (some side of the band is infinite).
    Unbounded,
    /// The region's vertices were not listed (`--max-vertices`).
    Unlisted,
    /// The threshold gives no band (see [`Shape::Untrusted`]).
    Untrusted,
    /// The model cannot be evaluated somewhere in the range (e.g. `1/p` at 0).
    Undefined(String),
}

impl EnvelopeSkip {
    /// Why there is no envelope, in a few words.
    pub fn reason(&self) -> String {
        match self {
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
}

/// Sample points from `lo` to `hi`: geometric when the range spans more
/// than a decade of positive values (as a log axis would show it), linear
/// otherwise; rounded to 8 significant digits (exact decimals), ends exact.
pub fn samples(lo: &Rat, hi: &Rat, n: usize) -> Vec<Rat> {
    let n = n.max(2);
    let (a, b) = (crate::num::to_f64(lo), crate::num::to_f64(hi));
    let geometric = a > 0.0 && b / a > 10.0;
    let mut out = vec![lo.clone()];
    for i in 1..n - 1 {
        let f = i as f64 / (n - 1) as f64;
        let v = if geometric { a * (b / a).powf(f) } else { a + (b - a) * f };
        if let Some(r) = round_sig(v, 8) {
            if r > *out.last().unwrap_or(lo) && r < *hi {
                out.push(r);
            }
        }
    }
    if hi > lo {
        out.push(hi.clone());
    }
    out
}

fn round_sig(v: f64, digits: i32) -> Option<Rat> {
    if !v.is_finite() {
        return None;
    }
    crate::num::parse_rat(&format!("{:.*e}", (digits - 1) as usize, v)).ok()
}

/// Index of the vertex with the largest (`upper`) or smallest value at basis `b`; ties: the first.
///
/// A float evaluation proposes the winner; it is accepted when it leads the
/// runner-up by far more than the evaluation's rounding error could be
/// (relative 1e-9 of the terms' magnitude, against errors near 1e-15).
/// Otherwise the values are compared exactly.
fn winner(params: &[Vec<Rat>], b: &[Rat], upper: bool) -> usize {
    let sign = if upper { 1.0 } else { -1.0 };
    let bf: Vec<f64> = b.iter().map(crate::num::to_f64).collect();
    let mut best: Option<(usize, f64)> = None;
    let mut second = f64::NEG_INFINITY;
    let mut scale = 0.0f64;
    for (i, v) in params.iter().enumerate() {
        let mut x = bf[0];
        let mut mag = bf[0].abs();
        for (f, c) in bf[1..].iter().zip(v) {
            let t = f * crate::num::to_f64(c);
            x += t;
            mag += t.abs();
        }
        scale = scale.max(mag);
        let x = sign * x;
        match best {
            Some((_, bx)) if x <= bx => second = second.max(x),
            _ => {
                if let Some((_, bx)) = best {
                    second = second.max(bx);
                }
                best = Some((i, x));
            }
        }
    }
    if let Some((i, bx)) = best {
        if scale.is_finite() && (params.len() == 1 || bx - second > 1e-9 * scale) {
            return i;
        }
    }
    let val = |v: &Vec<Rat>| b[1..].iter().zip(v).fold(b[0].clone(), |a, (f, c)| a + f * c);
    let mut best = 0;
    let mut best_v: Option<Rat> = None;
    for (i, v) in params.iter().enumerate() {
        let x = val(v);
        let better = match &best_v {
            None => true,
            Some(bv) => (upper && x > *bv) || (!upper && x < *bv),
        };
        if better {
            best = i;
            best_v = Some(x);
        }
    }
    best
}

/// The envelopes of `region`'s band for `x` in `[lo, hi]` (module docs).
pub fn envelope(
    model: &Model,
    region: &Region,
    lo: &Rat,
    hi: &Rat,
    n: usize,
) -> Result<Envelope, EnvelopeSkip> {
    if model.vars.len() != 1 {
        return Err(EnvelopeSkip::NotOneVariable);
    }
    match region.shape {
        Shape::Empty => return Err(EnvelopeSkip::Empty),
        Shape::Unbounded { .. } => return Err(EnvelopeSkip::Unbounded),
        Shape::Unlisted { .. } => return Err(EnvelopeSkip::Unlisted),
        Shape::Untrusted { .. } => return Err(EnvelopeSkip::Untrusted),
        _ => {}
    }
    let params = &region.params_at;
    let mut log = model.new_log();
    let mut basis = |x: &Rat| {
        model.basis_at(std::slice::from_ref(x), &mut log).map_err(|e| {
            EnvelopeSkip::Undefined(model.eval_diagnostic(&e, std::slice::from_ref(x), "envelope").message)
        })
    };
    let xs = samples(lo, hi, n);
    let mut bs = Vec::with_capacity(xs.len());
    for x in &xs {
        bs.push(basis(x)?);
    }
    let mut chains = Vec::new();
    for upper in [true, false] {
        // (switch enclosure lo, hi, new winner)
        let mut switches: Vec<(Rat, Rat, usize)> = Vec::new();
        let first = winner(params, &bs[0], upper);
        let mut prev = first;
        for i in 1..xs.len() {
            let w = winner(params, &bs[i], upper);
            if w != prev {
                refine(
                    &mut basis,
                    params,
                    upper,
                    (xs[i - 1].clone(), prev),
                    (xs[i].clone(), w),
                    0,
                    &mut switches,
                )?;
                prev = w;
            }
        }
        let mut pieces = Vec::new();
        let mut from = lo.clone();
        let mut from_exact = true;
        let mut cur = first;
        for (a, b, w) in switches {
            if w == cur {
                continue;
            }
            let exact = a == b;
            // A tie at the range start or at the previous breakpoint
            // leaves a piece of zero length: the new winner takes over.
            if exact && from_exact && a == from {
                cur = w;
                continue;
            }
            pieces.push(Piece {
                from,
                to: a,
                from_exact,
                to_exact: exact,
                vertex: cur,
                params: params[cur].clone(),
            });
            from = b;
            from_exact = exact;
            cur = w;
        }
        pieces.push(Piece {
            from,
            to: hi.clone(),
            from_exact,
            to_exact: true,
            vertex: cur,
            params: params[cur].clone(),
        });
        chains.push(pieces);
    }
    let lower = chains.pop().unwrap_or_default();
    let upper = chains.pop().unwrap_or_default();
    Ok(Envelope { lo: lo.clone(), hi: hi.clone(), upper, lower })
}

/// The rational with the smallest denominator (then numerator) in `[lo, hi]`.
pub fn simplest_between(lo: &Rat, hi: &Rat) -> Rat {
    let (lo, hi) = if lo <= hi { (lo.clone(), hi.clone()) } else { (hi.clone(), lo.clone()) };
    if lo <= Rat::zero() && hi >= Rat::zero() {
        return Rat::zero();
    }
    if hi < Rat::zero() {
        return -simplest_between(&-hi, &-lo);
    }
    let c = lo.ceil();
    if c <= hi {
        return c;
    }
    // lo, hi in (n, n + 1): n + 1 / simplest(1 / (hi − n), 1 / (lo − n)).
    let n = lo.floor();
    let inner = simplest_between(&(Rat::one() / (&hi - &n)), &(Rat::one() / (&lo - &n)));
    n + Rat::one() / inner
}

type Basis<'a> = dyn FnMut(&Rat) -> Result<Vec<Rat>, EnvelopeSkip> + 'a;

/// Encloses the switches between `a` (winner `wa`) and `b` (winner `wb`) by bisection.
fn refine(
    basis: &mut Basis<'_>,
    params: &[Vec<Rat>],
    upper: bool,
    (a, wa): (Rat, usize),
    (b, wb): (Rat, usize),
    depth: u32,
    out: &mut Vec<(Rat, Rat, usize)>,
) -> Result<(), EnvelopeSkip> {
    // The simplest rational in the enclosure is often the switch point
    // itself (vertices sharing a facet meet at that data point): when the
    // two pieces agree there exactly, it is the breakpoint.
    let x = simplest_between(&a, &b);
    if x > a && x < b || depth >= BISECT_STEPS {
        let bx = basis(&x)?;
        let val = |v: &Vec<Rat>| bx[1..].iter().zip(v).fold(bx[0].clone(), |s, (f, c)| s + f * c);
        let top = val(&params[winner(params, &bx, upper)]);
        if val(&params[wa]) == top && val(&params[wb]) == top {
            out.push((x.clone(), x, wb));
            return Ok(());
        }
    }
    if depth >= BISECT_STEPS {
        out.push((a, b, wb));
        return Ok(());
    }
    let m = (&a + &b) / Rat::from_integer(2.into());
    let wm = winner(params, &basis(&m)?, upper);
    if wm == wa {
        refine(basis, params, upper, (m, wm), (b, wb), depth + 1, out)
    } else if wm == wb {
        refine(basis, params, upper, (a, wa), (m, wm), depth + 1, out)
    } else {
        refine(basis, params, upper, (a, wa), (m.clone(), wm), depth + 1, out)?;
        refine(basis, params, upper, (m, wm), (b, wb), depth + 1, out)
    }
}

/// The band at one point as a function of the threshold: exact values at
/// the breakpoints, linear in between.
#[derive(Debug, Clone)]
pub struct WidthCurve {
    /// `(e′, lower, upper)` at each breakpoint, increasing e′ (None: unbounded side).
    pub points: Vec<(Rat, Option<Rat>, Option<Rat>)>,
}

/// The band at the point with basis `b` for every threshold in `[lo, hi]`
/// (module docs). Empty when `hi < e_max`.
pub fn width_curve(design: &Design, b: &[Rat], lo: &Rat, hi: &Rat) -> WidthCurve {
    let k = b.len() - 1;
    let (ie, it) = (k, k + 1);
    let n = k + 2;
    let mut rows = Vec::with_capacity(2 * design.groups.len() + 3);
    for g in &design.groups {
        let mut up = vec![Rat::zero(); n];
        let mut down = vec![Rat::zero(); n];
        for j in 0..k {
            up[j] = g.basis[j + 1].clone();
            down[j] = -&g.basis[j + 1];
        }
        up[ie] = -Rat::one();
        down[ie] = -Rat::one();
        rows.push(Constraint::new(up, Kind::Le, &g.ymin - &g.basis[0]));
        rows.push(Constraint::new(down, Kind::Le, &g.basis[0] - &g.ymax));
    }
    let mut t = vec![Rat::zero(); n];
    for j in 0..k {
        t[j] = -&b[j + 1];
    }
    t[it] = Rat::one();
    rows.push(Constraint::new(t, Kind::Eq, b[0].clone()));
    let mut e = vec![Rat::zero(); n];
    e[ie] = Rat::one();
    rows.push(Constraint::new(e.clone(), Kind::Le, hi.clone()));
    rows.push(Constraint::new(e.iter().map(|v| -v).collect(), Kind::Le, -lo));
    let poly = Polyhedron::new(n, rows).project(&[ie, it]).minimize();
    if poly.empty {
        return WidthCurve { points: vec![] };
    }
    let cons = poly.constraints();
    let mut es: Vec<Rat> = poly.generators.vertices.iter().map(|v| v[0].clone()).collect();
    es.push(lo.clone());
    es.push(hi.clone());
    es.retain(|x| x >= lo && x <= hi);
    es.sort();
    es.dedup();
    let points = es
        .into_iter()
        .filter_map(|e| {
            let mut upper: Option<Rat> = None;
            let mut lower: Option<Rat> = None;
            let mut bounded_up = false;
            let mut bounded_down = false;
            for c in &cons {
                let (ae, at) = (&c.a[0], &c.a[1]);
                if at.is_zero() {
                    continue;
                }
                let v = (&c.b - ae * &e) / at;
                if c.kind == Kind::Eq {
                    upper = Some(upper.map_or(v.clone(), |u: Rat| u.min(v.clone())));
                    lower = Some(lower.map_or(v.clone(), |l: Rat| l.max(v)));
                    bounded_up = true;
                    bounded_down = true;
                } else if at.is_positive() {
                    upper = Some(upper.map_or(v.clone(), |u: Rat| u.min(v)));
                    bounded_up = true;
                } else {
                    lower = Some(lower.map_or(v.clone(), |l: Rat| l.max(v)));
                    bounded_down = true;
                }
            }
            // A slice at e below e_max is empty: skip it.
            if let (Some(l), Some(u)) = (&lower, &upper) {
                if l > u {
                    return None;
                }
            }
            Some((e, lower.filter(|_| bounded_down), upper.filter(|_| bounded_up)))
        })
        .collect();
    WidthCurve { points }
}

/// Width-vs-threshold curves at every prediction point of `a`, from e_max to Max|e_i|.
pub fn width_curves(a: &Analysis, model: &Model) -> Vec<WidthCurve> {
    let mut log = model.new_log();
    let hi = a.residuals.max_abs.clone().max(a.emax.clone());
    a.predictions
        .iter()
        .map(|p| match model.basis_at(&p.x, &mut log) {
            Ok(b) => width_curve(&a.design, &b, &a.emax, &hi),
            Err(_) => WidthCurve { points: vec![] },
        })
        .collect()
}

/// The band as a function for a whole analysis: envelopes per region over
/// the plotted range, and the width-vs-threshold curve per prediction point.
#[derive(Debug, Clone)]
pub struct BandFunction {
    /// Range start: the smallest measured value of the variable.
    pub lo: Rat,
    /// Range end: the largest prediction point (or measured value).
    pub hi: Rat,
    /// One per region: the envelopes, or why there are none.
    pub envelopes: Vec<Result<Envelope, EnvelopeSkip>>,
    /// One per prediction point, from e_max to Max|e_i|.
    pub curves: Vec<WidthCurve>,
}

impl BandFunction {
    /// Computes both for `a` (envelopes only for one-variable models).
    pub fn compute(model: &Model, a: &Analysis, data: &[crate::data::Measurement]) -> BandFunction {
        let xs =
            data.iter().filter_map(|m| m.x.first()).chain(a.predictions.iter().filter_map(|p| p.x.first()));
        let lo = xs.clone().min().cloned().unwrap_or_else(Rat::zero);
        let hi = xs.max().cloned().unwrap_or_else(Rat::zero);
        let envelopes = a.regions.iter().map(|r| envelope(model, r, &lo, &hi, DEFAULT_SAMPLES)).collect();
        BandFunction { lo, hi, envelopes, curves: width_curves(a, model) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Options, Threshold};
    use crate::num::int;

    fn analysis() -> (Model, Analysis) {
        let (m, d) = crate::testdata::hpl("param c1, c2\nweight p\npredict p = 1000");
        let o = Options { thresholds: vec![Threshold::parse("max").unwrap()], ..Options::default() };
        let a = Analysis::run_rows(&m, &d, "hpl.csv", &o).unwrap();
        (m, a)
    }

    #[test]
    fn envelope_pieces_agree_with_the_band_at_sample_points() {
        let (m, a) = analysis();
        let r = &a.regions[0];
        let env = envelope(&m, r, &int(10), &int(10000), 256).unwrap();
        assert!(env.upper.len() >= 2, "{:?}", env.upper.len());
        for x in [int(10), int(55), int(1000), int(7777)] {
            let mut log = m.new_log();
            let b = m.basis_at(std::slice::from_ref(&x), &mut log).unwrap();
            let val = |c: &[Rat]| b[1..].iter().zip(c).fold(b[0].clone(), |s, (f, c)| s + f * c);
            let best = r.params_at.iter().map(|v| val(v)).max().unwrap();
            let piece = env.upper.iter().find(|p| p.from <= x && x <= p.to).unwrap();
            assert_eq!(val(&piece.params), best);
        }
        // Pieces cover the range in order. Here every switch is at a data
        // point (neighbouring vertices share the facet of that measurement),
        // found exactly.
        for w in env.upper.windows(2) {
            assert!(w[0].to_exact && w[0].to == w[1].from, "{} {}", w[0].to, w[1].from);
            assert_eq!(w[0].to.denom(), &1.into());
        }
    }

    #[test]
    fn simplest_rational_between() {
        let r = |a: i64, b: i64| Rat::new(a.into(), b.into());
        assert_eq!(simplest_between(&r(49, 1), &r(51, 1)), r(49, 1));
        assert_eq!(simplest_between(&r(1, 3), &r(1, 2)), r(1, 2));
        assert_eq!(simplest_between(&r(3, 10), &r(4, 10)), r(1, 3));
        assert_eq!(simplest_between(&r(-4, 10), &r(-3, 10)), r(-1, 3));
        assert_eq!(simplest_between(&r(-1, 10), &r(3, 10)), r(0, 1));
    }

    #[test]
    fn width_curve_is_zero_at_emax_and_matches_the_band_at_max() {
        let (m, a) = analysis();
        let curves = width_curves(&a, &m);
        let c = &curves[0];
        let (e0, l0, u0) = &c.points[0];
        assert_eq!(*e0, a.emax);
        assert_eq!(l0, u0);
        let (e1, l1, u1) = c.points.last().unwrap();
        assert_eq!(*e1, a.residuals.max_abs);
        let band = a.predictions[0].bands[0].as_ref().unwrap();
        assert_eq!(l1.as_ref(), band.lower.as_ref());
        assert_eq!(u1.as_ref(), band.upper.as_ref());
    }
}
