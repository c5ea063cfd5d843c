//! Bounded full-dimensional polygons with many rows, in O(m log m).
//!
//! With an interior point `z` (found by an exact LP), the row `a·x <= b`
//! maps to the dual point `a / (b - a·z)`; the polygon's facets are exactly
//! the vertices of the dual points' convex hull, in cyclic order, and the
//! polygon is bounded exactly when `z`'s dual (the origin) lies strictly
//! inside that hull. Sorting uses float keys with exact tie-breaking and the
//! hull uses a filtered exact orientation test, so the result is exact.

use super::{Generators, Minimal};
use crate::linear::{Constraint, Kind};
use crate::lp::{LpOutcome, Prepared, Sense};
use crate::num::{to_f64, Rat};
use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};
use std::cmp::Ordering;

/// A dual point `(x/w, y/w)` kept homogeneous with `w > 0`: integer
/// arithmetic only, no gcd per row. (All points may be scaled by the same
/// positive factor without changing the hull, so the interior point's common
/// denominator is dropped.)
struct DualPoint {
    x: BigInt,
    y: BigInt,
    w: BigInt,
    fx: f64,
    fy: f64,
    row: usize,
}

/// A strictly interior point with short coordinates near `z` (whose every
/// row has slack about `slack`, from an exact LP or a float proposal): `z` rounded to a multiple
/// of 2^-k fine enough not to lose the slack, kept only if an exact check
/// finds every row strictly satisfied. `z` itself comes from an LP over the
/// rows and carries their combined denominators (thousands of digits on
/// distinct points), which every dual point below would multiply.
fn short_interior(cons: &[Constraint], z: &[Rat], slack: f64) -> Option<Vec<Rat>> {
    let widest = cons.iter().map(|c| c.a.iter().map(|v| to_f64(v).abs()).sum::<f64>()).fold(0.0f64, f64::max);
    let tol = slack / (4.0 * widest);
    if !(tol.is_finite() && tol > 0.0) {
        return None;
    }
    let k = (-tol.log2()).ceil().clamp(0.0, 4000.0) as usize;
    let scale = BigInt::one() << k;
    let z: Vec<Rat> = z
        .iter()
        .map(|v| {
            crate::num::reduced((v * Rat::from_integer(scale.clone())).round().to_integer(), scale.clone())
        })
        .collect();
    let inside = cons.iter().all(|c| {
        let at = crate::num::affine_unreduced(&Rat::zero(), &c.a, &z);
        c.is_trivial() || crate::num::cmp_unreduced(&at, &c.b).is_lt()
    });
    inside.then_some(z)
}

/// Compares `a/wa` with `b/wb` (`wa, wb > 0`), float first.
fn cmp_coord(a: &BigInt, wa: &BigInt, fa: f64, b: &BigInt, wb: &BigInt, fb: f64) -> Ordering {
    let scale = fa.abs().max(fb.abs());
    if (fa - fb).abs() > scale * 1e-12 {
        return fa.total_cmp(&fb);
    }
    (a * wb).cmp(&(b * wa))
}

/// Sign of the cross product (b - a) × (c - a): positive for a left turn.
fn orientation(a: &DualPoint, b: &DualPoint, c: &DualPoint) -> Ordering {
    let (ux, uy, vx, vy) = (b.fx - a.fx, b.fy - a.fy, c.fx - a.fx, c.fy - a.fy);
    let det = ux * vy - uy * vx;
    let mag = (ux * vy).abs() + (uy * vx).abs();
    let bound = mag * 1e-10
        + (a.fx.abs() + a.fy.abs() + b.fx.abs() + b.fy.abs() + c.fx.abs() + c.fy.abs()).powi(2) * 1e-14;
    if det > bound {
        return Ordering::Greater;
    }
    if det < -bound {
        return Ordering::Less;
    }
    // det [[ax ay aw] [bx by bw] [cx cy cw]] has the sign of the cross
    // product times aw·bw·cw > 0.
    let d = &a.x * (&b.y * &c.w - &b.w * &c.y) - &a.y * (&b.x * &c.w - &b.w * &c.x)
        + &a.w * (&b.x * &c.y - &b.y * &c.x);
    d.cmp(&BigInt::zero())
}

/// The minimal form of a bounded, full-dimensional polygon given by `<=`
/// rows, or `None` when the set is not of that kind (the caller falls back
/// to double description).
pub(crate) fn minimal_polygon(cons: &[Constraint]) -> Option<Minimal> {
    if cons.iter().any(|c| c.kind != Kind::Le || c.a.len() != 2) {
        return None;
    }
    // Interior point: max s with a·x + s <= b, s <= 1 (first, so the LP's
    // initial working set bounds the objective).
    let mut rows: Vec<Constraint> = Vec::with_capacity(cons.len() + 1);
    rows.push(Constraint::new(vec![Rat::zero(), Rat::zero(), Rat::one()], Kind::Le, Rat::one()));
    rows.extend(
        cons.iter().map(|c| {
            Constraint::new(vec![c.a[0].clone(), c.a[1].clone(), Rat::one()], Kind::Le, c.b.clone())
        }),
    );
    let lp = Prepared::new(3, rows).ok()?;
    let objective = [Rat::zero(), Rat::zero(), Rat::one()];
    // A float solver's interior point, rounded short and checked exactly,
    // spares the exact LP in the common case.
    let proposed = lp.propose_point(&objective).and_then(|x| {
        let z = [Rat::from_float(x[0])?, Rat::from_float(x[1])?];
        short_interior(cons, &z, x[2])
    });
    let z = match proposed {
        Some(z) => z,
        None => match lp.optimize(&objective, Sense::Maximize).ok()? {
            LpOutcome::Optimal(o) if o.value.is_positive() => {
                let s = to_f64(&o.value);
                short_interior(cons, &o.point[..2], s).unwrap_or(o.point)
            }
            // No interior: the rows meet in a point or a segment (the
            // region at e_max, where the minimax fit is usually unique).
            LpOutcome::Optimal(o) if o.value.is_zero() => return single_point(cons, &o.point[..2]),
            _ => return None,
        },
    };
    let zi = crate::num::common_denominator_ints(&z[..2]);
    let zd = crate::num::lcm_denoms(&z[..2]);
    let mut pts: Vec<DualPoint> = Vec::with_capacity(cons.len());
    for (i, c) in cons.iter().enumerate() {
        if c.is_trivial() {
            continue;
        }
        let r = crate::num::common_denominator_ints(&[c.a[0].clone(), c.a[1].clone(), c.b.clone()]);
        // Slack at z times the positive factor zd · (row's denominator).
        let w = &r[2] * &zd - &r[0] * &zi[0] - &r[1] * &zi[1];
        if !w.is_positive() {
            return None; // z is interior, so this cannot happen
        }
        // Float views for the filter only (no reduction); the exact
        // predicates below never use them.
        let (fx, fy) = (crate::num::ratio_to_f64(&r[0], &w), crate::num::ratio_to_f64(&r[1], &w));
        let [x, y, _] = <[BigInt; 3]>::try_from(r).ok()?;
        pts.push(DualPoint { x, y, w, fx, fy, row: i });
    }
    pts.sort_by(|p, q| {
        cmp_coord(&p.x, &p.w, p.fx, &q.x, &q.w, q.fx)
            .then_with(|| cmp_coord(&p.y, &p.w, p.fy, &q.y, &q.w, q.fy))
            .then(p.row.cmp(&q.row))
    });
    // Equal points have equal float views; only those are compared exactly.
    pts.dedup_by(|q, p| {
        p.fx == q.fx && p.fy == q.fy && &p.x * &q.w == &q.x * &p.w && &p.y * &q.w == &q.y * &p.w
    });
    if pts.len() < 3 {
        return None;
    }
    // Andrew's monotone chain, counter-clockwise, collinear points dropped.
    let mut hull: Vec<usize> = Vec::new();
    for pass in 0..2 {
        let start = hull.len();
        let order: Box<dyn Iterator<Item = usize>> =
            if pass == 0 { Box::new(0..pts.len()) } else { Box::new((0..pts.len()).rev()) };
        for i in order {
            while hull.len() >= start + 2
                && orientation(&pts[hull[hull.len() - 2]], &pts[hull[hull.len() - 1]], &pts[i])
                    != Ordering::Greater
            {
                hull.pop();
            }
            hull.push(i);
        }
        hull.pop();
    }
    if hull.len() < 3 {
        return None;
    }
    // Bounded iff the origin is strictly inside the dual hull.
    let origin = DualPoint {
        x: BigInt::zero(),
        y: BigInt::zero(),
        w: BigInt::one(),
        fx: 0.0,
        fy: 0.0,
        row: usize::MAX,
    };
    for k in 0..hull.len() {
        let (a, b) = (&pts[hull[k]], &pts[hull[(k + 1) % hull.len()]]);
        if orientation(a, b, &origin) != Ordering::Greater {
            return None;
        }
    }
    // Adjacent facets meet at the polygon's vertices.
    let facets: Vec<&Constraint> = hull.iter().map(|&h| &cons[pts[h].row]).collect();
    let mut vertices = Vec::with_capacity(facets.len());
    for k in 0..facets.len() {
        let (p, q) = (facets[k], facets[(k + 1) % facets.len()]);
        let det = &p.a[0] * &q.a[1] - &p.a[1] * &q.a[0];
        if det.is_zero() {
            return None;
        }
        // Cramer's rule over one denominator, reduced once (the rows'
        // constants are long and may be unreduced; num-rational's
        // operators took binary gcds of them at each step).
        let cross = |u: &Rat, v: &Rat, w: &Rat, z: &Rat| {
            let uv = Rat::new_raw(u.numer() * v.numer(), u.denom() * v.denom());
            let wz = Rat::new_raw(w.numer() * z.numer(), w.denom() * z.denom());
            let (n, d) = crate::num::sub_unreduced(&uv, &wz).into_raw();
            crate::num::reduced(n * det.denom(), d * det.numer())
        };
        let x = cross(&p.b, &q.a[1], &p.a[1], &q.b);
        let y = cross(&p.a[0], &q.b, &p.b, &q.a[0]);
        vertices.push(vec![x, y]);
    }
    // Counter-clockwise order, which plots need, from the lexicographically
    // smallest vertex: the hull starts at the smallest dual point, which
    // depends on the interior point chosen, and the listing must not.
    if let Some(first) = (0..vertices.len()).min_by(|&i, &j| vertices[i].cmp(&vertices[j])) {
        vertices.rotate_left(first);
    }
    let mut inequalities: Vec<Constraint> = facets.iter().map(|c| c.normalized()).collect();
    inequalities.sort_by(super::cmp_constraints);
    Some(Minimal {
        empty: false,
        equalities: vec![],
        inequalities,
        generators: Generators { vertices, rays: vec![], lines: vec![] },
    })
}

/// The minimal form of the rows `cons` when they allow the point `x` and
/// no other, or `None` (a segment or more: the caller falls back to double
/// description). `x` is the only point exactly when no direction `d ≠ 0`
/// keeps every row tight at `x` satisfied (`a·d <= 0`); in the plane such a
/// cone, when not `{0}`, has an edge along a tight row's line, so the
/// candidates are `±(−a₁, a₀)` for each tight row. The answer is the one
/// double description gives for the same set: the point, and the equations
/// of its affine hull.
fn single_point(cons: &[Constraint], x: &[Rat]) -> Option<Minimal> {
    // Float slacks rule out the rows clearly loose at x (conversions within
    // a few ulps: 1e-9 relative is far above their error); the rest are
    // decided exactly.
    let xf = [to_f64(&x[0]), to_f64(&x[1])];
    let loose = |c: &Constraint| {
        let t = [to_f64(&c.a[0]) * xf[0], to_f64(&c.a[1]) * xf[1]];
        let b = to_f64(&c.b);
        let s = b - t[0] - t[1];
        s.is_finite() && s.abs() > 1e-9 * (b.abs() + t[0].abs() + t[1].abs()) + 1e-300
    };
    let tight: Vec<&Constraint> = cons
        .iter()
        .filter(|c| !c.is_trivial() && !loose(c))
        .filter(|c| {
            crate::num::cmp_unreduced(&crate::num::affine_unreduced(&Rat::zero(), &c.a, x), &c.b).is_eq()
        })
        .collect();
    for c in &tight {
        for sign in [1, -1] {
            let d = [-&c.a[1] * Rat::from_integer(sign.into()), &c.a[0] * Rat::from_integer(sign.into())];
            if tight.iter().all(|t| !(&t.a[0] * &d[0] + &t.a[1] * &d[1]).is_positive()) {
                return None;
            }
        }
    }
    if tight.is_empty() {
        return None;
    }
    let mut h = crate::num::common_denominator_ints(&[x[0].clone(), x[1].clone(), Rat::one()]);
    let g = h.iter().fold(BigInt::zero(), |g, v| crate::num::gcd(&g, v));
    if !g.is_one() && !g.is_zero() {
        h.iter_mut().for_each(|v| *v = &*v / &g);
    }
    Some(Minimal {
        empty: false,
        equalities: super::hull_equalities(std::iter::once(h.as_slice()), 2),
        inequalities: vec![],
        generators: Generators { vertices: vec![x.to_vec()], rays: vec![], lines: vec![] },
    })
}
