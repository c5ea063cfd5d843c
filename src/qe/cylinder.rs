//! Cylindrical form of a convex piece, for a variable order: the outer
//! variable's range split at its critical values, and in each cell the bounds
//! of every inner variable as linear expressions in the outer ones (the
//! shape of Mathematica's `Reduce` output, paper Fig. 2(b), without
//! redundant constraints).
//!
//! Critical values of the outer variable are the outer coordinates of the
//! vertices of the projection onto the two outermost variables; between them
//! the second variable has one lower and one upper bounding expression.
//! Deeper variables get the bounds that are not redundant within the cell
//! (several may remain: `max(..) <= y3 <= min(..)`). Adjacent cells whose
//! descriptions agree are merged.

use crate::linear::{Constraint, Kind, LinExpr};
use crate::num::Rat;
use crate::poly::Polyhedron;
use num_traits::{Signed, Zero};
use rayon::prelude::*;

/// One side of a variable's range: `expr` (in the outer variables), strict or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side {
    /// The bounding expression.
    pub expr: LinExpr,
    /// True for `<`, false for `<=`.
    pub strict: bool,
}

/// The range of one variable in a cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LevelBound {
    /// The variable equals this expression.
    Point(LinExpr),
    /// `max(lower) REL var REL min(upper)`; an empty side is unbounded.
    Range {
        /// Lower bounds (all must hold).
        lower: Vec<Side>,
        /// Upper bounds (all must hold).
        upper: Vec<Side>,
    },
}

/// One cell: a bound for each variable, outermost first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    /// `levels[j]` bounds the j-th variable of the order in terms of the earlier ones.
    pub levels: Vec<LevelBound>,
}

impl Cell {
    /// The constraints the cell stands for.
    pub fn constraints(&self, d: usize) -> Vec<Constraint> {
        let mut out = Vec::new();
        for (j, lb) in self.levels.iter().enumerate() {
            let v = LinExpr::var(d, j);
            match lb {
                LevelBound::Point(e) => out.push(Constraint::from_forms(&v, Kind::Eq, e)),
                LevelBound::Range { lower, upper } => {
                    for s in lower {
                        out.push(Constraint::from_forms(
                            &s.expr,
                            if s.strict { Kind::Lt } else { Kind::Le },
                            &v,
                        ));
                    }
                    for s in upper {
                        out.push(Constraint::from_forms(
                            &v,
                            if s.strict { Kind::Lt } else { Kind::Le },
                            &s.expr,
                        ));
                    }
                }
            }
        }
        out
    }
}

/// Bounds of variable `j` from the minimal form of `q` (constraints with a
/// non-zero coefficient on `j`, solved for it).
fn level_bound(q: &Polyhedron, j: usize, d: usize) -> Option<(LevelBound, Vec<Constraint>)> {
    let m = q.minimize();
    if m.empty {
        return None;
    }
    let solve_for = |c: &Constraint| -> LinExpr {
        // a_j y_j + Σ_{i != j} a_i y_i REL b  ->  y_j REL (b - Σ a_i y_i) / a_j
        let mut e = LinExpr::constant(d, c.b.clone());
        for (i, a) in c.a.iter().enumerate() {
            if i != j && !a.is_zero() {
                e.coeffs[i] = -a.clone();
            }
        }
        e.scale(&(Rat::from_integer(1.into()) / &c.a[j]))
    };
    if let Some(eq) = m.equalities.iter().find(|c| !c.a[j].is_zero()) {
        return Some((LevelBound::Point(solve_for(eq)), vec![eq.clone()]));
    }
    let mut lower = Vec::new();
    let mut upper = Vec::new();
    let mut used = Vec::new();
    for c in &m.inequalities {
        if c.a[j].is_zero() {
            continue;
        }
        let side = Side { expr: solve_for(c), strict: c.kind == Kind::Lt };
        if c.a[j].is_positive() {
            upper.push(side);
        } else {
            lower.push(side);
        }
        used.push(c.clone());
    }
    Some((LevelBound::Range { lower, upper }, used))
}

/// The one cell of a minimal set whose every row bounds a single variable
/// (a box, an orthant): each level is that variable's own rows, and no
/// projection is needed. `None` when a row couples two variables. A box in
/// ten variables has 1024 vertices; this never enumerates them.
fn separable(p: &Polyhedron, d: usize) -> Option<Cell> {
    let mut levels: Vec<LevelBound> =
        (0..d).map(|_| LevelBound::Range { lower: vec![], upper: vec![] }).collect();
    for c in p.constraints() {
        let mut vars = c.a.iter().enumerate().filter(|(_, a)| !a.is_zero());
        let (j, a) = vars.next()?;
        if vars.next().is_some() {
            return None;
        }
        let value = LinExpr::constant(d, &c.b / a);
        match (&mut levels[j], c.kind) {
            (level, Kind::Eq) => *level = LevelBound::Point(value),
            (LevelBound::Range { lower, upper }, kind) => {
                let side = Side { expr: value, strict: kind == Kind::Lt };
                if a.is_positive() {
                    upper.push(side);
                } else {
                    lower.push(side);
                }
            }
            (LevelBound::Point(_), _) => {}
        }
    }
    Some(Cell { levels })
}

fn lift(p: &Polyhedron, d: usize) -> Vec<Constraint> {
    p.constraints()
        .iter()
        .map(|c| {
            let mut a = c.a.clone();
            a.resize(d, Rat::zero());
            Constraint::new(a, c.kind, c.b.clone())
        })
        .collect()
}

/// Endpoint of an outer interval: value and strictness.
type End = Option<(Rat, bool)>;

struct OuterCell {
    lo: End,
    hi: End,
    chain: Vec<LevelBound>,
}

fn outer_constraints(lo: &End, hi: &End, d: usize) -> Vec<Constraint> {
    let v = LinExpr::var(d, 0);
    let mut out = Vec::new();
    if let Some((l, s)) = lo {
        out.push(Constraint::from_forms(
            &LinExpr::constant(d, l.clone()),
            if *s { Kind::Lt } else { Kind::Le },
            &v,
        ));
    }
    if let Some((h, s)) = hi {
        out.push(Constraint::from_forms(
            &v,
            if *s { Kind::Lt } else { Kind::Le },
            &LinExpr::constant(d, h.clone()),
        ));
    }
    out
}

/// Levels `start..d` of a cell whose outer levels are given by `outer`.
fn chain_from(
    projections: &[Polyhedron],
    outer: Vec<Constraint>,
    d: usize,
    start: usize,
) -> Option<Vec<LevelBound>> {
    // The closed cell has the same facets as the open one (a constraint that
    // only touches an end point is redundant in both), and keeps the work
    // free of strict rows, whose emptiness tests need extra LPs.
    let mut cell: Vec<Constraint> = outer
        .into_iter()
        .map(|c| if c.kind == Kind::Lt { Constraint { kind: Kind::Le, ..c } } else { c })
        .collect();
    let mut levels = Vec::new();
    for (j, proj) in projections.iter().enumerate().take(d).skip(start) {
        let mut cons = lift(proj, d);
        cons.extend(cell.iter().cloned());
        let (lb, used) = level_bound(&Polyhedron::new(d, cons), j, d)?;
        cell.extend(used);
        levels.push(lb);
    }
    Some(levels)
}

/// A closed interval `(low, high)` (empty when low > high).
type Span = (Rat, Rat);

/// Per constraint of a projection, its face's spans in the two outermost
/// variables (`None` when the projection is not a bounded set with many rows).
type Spans = Option<Vec<[Span; 2]>>;

/// For a bounded set: each constraint's ranges of the two outermost
/// variables over the vertices it is tight at (its face's bounding box there).
fn outer_spans(q: &Polyhedron) -> Spans {
    if q.dim() < 2 || q.constraints().len() <= 8 {
        return None;
    }
    let g = q.generators();
    if !g.rays.is_empty() || !g.lines.is_empty() || g.vertices.is_empty() {
        return None;
    }
    // Tightness tests in integers: homogeneous vertices (v, 1) and rows (a, -b).
    let homog = |xs: Vec<Rat>| crate::num::common_denominator_ints(&xs);
    let verts: Vec<Vec<num_bigint::BigInt>> = g
        .vertices
        .iter()
        .map(|v| homog(v.iter().cloned().chain(std::iter::once(Rat::from_integer(1.into()))).collect()))
        .collect();
    // The budget of the caller counts the work on rayon's threads too.
    let budget = crate::poly::budget::current();
    let vw = verts.iter().flatten().map(|x| crate::poly::budget::words(x.bits())).max().unwrap_or(1);
    // The waiting thread runs with no budget: a job rayon steals into the
    // wait (another analysis' work) must not count against this one.
    let spans = crate::poly::budget::within(None, || {
        q.constraints()
            .par_iter()
            .map(|c| {
                crate::poly::budget::within(budget.clone(), || {
                    let h = homog(c.a.iter().cloned().chain(std::iter::once(-c.b.clone())).collect());
                    crate::poly::budget::charge((verts.len() * h.len()) as u64 * vw);
                    let widen = |r: Option<Span>, x: &Rat| match r {
                        None => Some((x.clone(), x.clone())),
                        Some((l, u)) => {
                            Some((if *x < l { x.clone() } else { l }, if *x > u { x.clone() } else { u }))
                        }
                    };
                    let (mut r0, mut r1): (Option<Span>, Option<Span>) = (None, None);
                    for (v, vi) in g.vertices.iter().zip(&verts) {
                        let dot: num_bigint::BigInt = h.iter().zip(vi).map(|(x, y)| x * y).sum();
                        if dot.is_zero() {
                            r0 = widen(r0, &v[0]);
                            r1 = widen(r1, &v[1]);
                        }
                    }
                    // A constraint tight at no vertex is redundant: an empty span.
                    let empty = || (Rat::from_integer(1.into()), Rat::from_integer(0.into()));
                    [r0.unwrap_or_else(empty), r1.unwrap_or_else(empty)]
                })
            })
            .collect()
    });
    Some(spans)
}

/// The projections restricted to the constraints whose faces reach the
/// outer slab `[lo, hi]`: within the slab the others are redundant (a point
/// of the slab outside the set violates a facet through a boundary point of
/// the set inside the slab), so each cell's minimisation sees a few rows.
fn narrowed(projections: &[Polyhedron], spans: &[Spans], bbox: &[Span; 2]) -> Vec<Polyhedron> {
    let overlaps = |(l, h): &Span, (a, b): &Span| l <= b && h >= a;
    projections
        .iter()
        .zip(spans)
        .map(|(q, sp)| match sp {
            Some(sp) => Polyhedron::new(
                q.dim(),
                q.constraints()
                    .iter()
                    .zip(sp)
                    .filter(|(_, s)| overlaps(&s[0], &bbox[0]) && overlaps(&s[1], &bbox[1]))
                    .map(|(c, _)| c.clone())
                    .collect(),
            ),
            None => q.clone(),
        })
        .collect()
}

/// Bounding box of a polygon cell in the two outer variables: the outer
/// interval and the extremes of its (linear) lower and upper edges there.
fn cell_box(c: &OuterCell) -> Option<[Span; 2]> {
    let (a, b) = (c.lo.as_ref()?.0.clone(), c.hi.as_ref()?.0.clone());
    let LevelBound::Range { lower, upper } = c.chain.first()? else { return None };
    let (lo, up) = (&lower.first()?.expr, &upper.first()?.expr);
    let at = |e: &LinExpr, x: &Rat| {
        let mut pt = vec![Rat::zero(); e.dim()];
        pt[0] = x.clone();
        e.eval(&pt)
    };
    let (l1, l2, u1, u2) = (at(lo, &a), at(lo, &b), at(up, &a), at(up, &b));
    Some([(a, b), (l1.min(l2), u1.max(u2))])
}

/// Cylindrical cells of the non-empty convex set `p` (variables already in
/// the wanted order, outermost = variable 0).
pub(crate) fn cylinder(p: &Polyhedron) -> Vec<Cell> {
    let d = p.dim();
    if d == 0 {
        return vec![Cell { levels: vec![] }];
    }
    if let Some(cell) = separable(p, d) {
        return vec![cell];
    }
    // projections[j] = projection onto variables 0..=j (over j+1 variables);
    // the one onto the outermost variable alone is only needed off the
    // polygon path, so it is computed last.
    let mut projections = vec![p.clone()];
    for j in (1..d - 1).rev() {
        let keep: Vec<usize> = (0..=j).collect();
        let next = projections[projections.len() - 1].project(&keep);
        projections.push(next);
    }
    if d >= 2 {
        projections.push(Polyhedron::universe(1)); // level 0, computed below when needed
    }
    projections.reverse();
    // Bounded closed sets: the two outer levels come straight from the
    // polygon of the projection onto them (its lower and upper chains).
    if d >= 2 {
        if let Some(cells) = polygon_cells(&projections[1], d) {
            let closed = p.constraints().iter().all(|c| c.kind != Kind::Lt);
            if d == 2 {
                return finish(cells, p, d, closed);
            }
            // Deeper levels: each cell is independent work (in parallel; the
            // results keep the cells' order, so the output is deterministic).
            let spans: Vec<Spans> = projections.iter().map(outer_spans).collect();
            let budget = crate::poly::budget::current();
            // No budget on the waiting thread (see outer_spans).
            let full: Vec<OuterCell> = crate::poly::budget::within(None, || {
                cells
                    .into_par_iter()
                    .filter_map(|mut c| {
                        crate::poly::budget::within(budget.clone(), || {
                            // A spent budget: the caller drops the cells anyway.
                            if crate::poly::budget::spent() {
                                return None;
                            }
                            let mut outer = outer_constraints(&c.lo, &c.hi, d);
                            let level1 = Cell {
                                levels: vec![
                                    LevelBound::Range { lower: vec![], upper: vec![] },
                                    c.chain[0].clone(),
                                ],
                            };
                            outer.extend(level1.constraints(d));
                            let projs = match cell_box(&c) {
                                Some(bbox) => narrowed(&projections, &spans, &bbox),
                                None => projections.clone(),
                            };
                            let rest = chain_from(&projs, outer, d, 2)?;
                            c.chain.extend(rest);
                            Some(c)
                        })
                    })
                    .collect()
            });
            return finish(full, p, d, closed);
        }
    }
    // Outer variable: its range and critical values.
    if d >= 2 {
        projections[0] = projections[1].project(&[0]);
    }
    let (outer_bound, _) = match level_bound(&projections[0], 0, 1) {
        Some(x) => x,
        None => return vec![],
    };
    let (lo, hi): (End, End) = match &outer_bound {
        LevelBound::Point(e) => {
            let v = e.constant.clone();
            let outer = outer_constraints(&Some((v.clone(), false)), &Some((v.clone(), false)), d);
            return match chain_from(&projections, outer, d, 1) {
                Some(mut levels) => {
                    levels.insert(0, LevelBound::Point(LinExpr::constant(d, v)));
                    vec![substitute_points(Cell { levels })]
                }
                None => vec![],
            };
        }
        LevelBound::Range { lower, upper } => (
            lower
                .iter()
                .map(|s| (s.expr.constant.clone(), s.strict))
                .max_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1))),
            upper
                .iter()
                .map(|s| (s.expr.constant.clone(), s.strict))
                .min_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1))),
        ),
    };
    let mut crit: Vec<Rat> = Vec::new();
    if d >= 2 {
        for v in projections[1].generators().vertices {
            let x = v[0].clone();
            let inside_lo = lo.as_ref().is_none_or(|(l, _)| x > *l);
            let inside_hi = hi.as_ref().is_none_or(|(h, _)| x < *h);
            if inside_lo && inside_hi {
                crit.push(x);
            }
        }
    }
    crit.sort();
    crit.dedup();
    // Cells in order: [lo point], (lo, c1), c1, (c1, c2), ..., (ck, hi), [hi point].
    let mut pieces: Vec<(End, End)> = Vec::new();
    if let Some((l, false)) = &lo {
        pieces.push((Some((l.clone(), false)), Some((l.clone(), false))));
    }
    let mut prev = lo.clone().map(|(l, _)| (l, true));
    for c in &crit {
        pieces.push((prev.clone(), Some((c.clone(), true))));
        pieces.push((Some((c.clone(), false)), Some((c.clone(), false))));
        prev = Some((c.clone(), true));
    }
    pieces.push((prev, hi.clone().map(|(h, _)| (h, true))));
    if let Some((h, false)) = &hi {
        pieces.push((Some((h.clone(), false)), Some((h.clone(), false))));
    }
    let mut cells: Vec<OuterCell> = Vec::new();
    for (clo, chi) in pieces {
        if crate::poly::budget::spent() {
            break;
        }
        let outer = outer_constraints(&clo, &chi, d);
        let Some(ch) = chain_from(&projections, outer, d, 1) else { continue };
        cells.push(OuterCell { lo: clo, hi: chi, chain: ch });
    }
    // Merge neighbours that describe the same set. Cells alternate between
    // open intervals and points, so a neighbour shares exactly one end value.
    let closed = p.constraints().iter().all(|c| c.kind != Kind::Lt);
    finish(cells, p, d, closed)
}

/// Merges neighbouring cells that describe the same set and turns them into
/// [`Cell`]s.
fn finish(cells: Vec<OuterCell>, p: &Polyhedron, d: usize, closed: bool) -> Vec<Cell> {
    // For a closed set the slice at a critical value is the limit of the
    // neighbouring slices (the bounds are continuous), so point cells always
    // merge; with strict rows this is checked.
    let slice_ok = |chain: &[LevelBound], x: &Rat| closed || describes_slice(p, chain, x, d);
    let mut merged: Vec<OuterCell> = Vec::new();
    for c in cells {
        if let Some(last) = merged.last_mut() {
            if let (Some((h, _)), Some((l, _))) = (&last.hi, &c.lo) {
                if h == l {
                    let x = l.clone();
                    if is_point(&c) {
                        // (a, x) + {x}  ->  (a, x]  when the left description holds at x.
                        if slice_ok(&last.chain, &x) {
                            last.hi = Some((x, false));
                            continue;
                        }
                    } else if is_point(last) {
                        // {x} + (x, b)  ->  [x, b)
                        if slice_ok(&c.chain, &x) {
                            *last = OuterCell { lo: Some((x, false)), hi: c.hi, chain: c.chain };
                            continue;
                        }
                    } else if last.chain == c.chain {
                        // (a, x] + (x, b)  ->  (a, b)
                        last.hi = c.hi;
                        continue;
                    }
                }
            }
        }
        merged.push(c);
    }
    merged
        .into_iter()
        .map(|c| {
            let first = match (&c.lo, &c.hi) {
                (Some((a, false)), Some((b, false))) if a == b => {
                    LevelBound::Point(LinExpr::constant(d, a.clone()))
                }
                _ => LevelBound::Range {
                    lower: c
                        .lo
                        .iter()
                        .map(|(v, s)| Side { expr: LinExpr::constant(d, v.clone()), strict: *s })
                        .collect(),
                    upper: c
                        .hi
                        .iter()
                        .map(|(v, s)| Side { expr: LinExpr::constant(d, v.clone()), strict: *s })
                        .collect(),
                },
            };
            let mut levels = vec![first];
            levels.extend(c.chain);
            substitute_points(Cell { levels })
        })
        .collect()
}

/// Cells of the two outer levels of a bounded, closed polygon `q` (over two
/// variables), from its lower and upper chains; expressions over `d`
/// variables. `None` when `q` is not such a polygon.
fn polygon_cells(q: &Polyhedron, d: usize) -> Option<Vec<OuterCell>> {
    if q.dim() != 2 || q.constraints().iter().any(|c| c.kind != Kind::Le) {
        return None;
    }
    let g = q.generators();
    if !g.rays.is_empty() || !g.lines.is_empty() || g.vertices.len() < 3 {
        return None;
    }
    let mut v = g.vertices;
    v.sort();
    v.dedup();
    // Both chains run from the leftmost to the rightmost x; a vertical edge
    // at either end belongs to the slice there, not to a chain.
    let (mut lower, mut upper) = crate::poly::monotone_chains(&v);
    if lower.len() >= 2 && lower[lower.len() - 1][0] == lower[lower.len() - 2][0] {
        lower.pop();
    }
    if upper.len() >= 2 && upper[0][0] == upper[1][0] {
        upper.remove(0);
    }
    if lower.len() < 2 || upper.len() < 2 {
        return None;
    }
    let mut crit: Vec<Rat> = v.iter().map(|p| p[0].clone()).collect();
    crit.dedup();
    if crit.len() < 2 {
        return None;
    }
    // Walk both chains once, left to right: segment k of a chain covers
    // [chain[k].x, chain[k+1].x].
    // The line through two adjacent vertices is a row's, tight at both:
    // its slope and offset come from the row's short coefficients, where
    // the vertices' differences and quotient took gcds of their long
    // coordinates (most of a region's cells on long data). Same values.
    let rows = q.constraints();
    let tight_at = |c: &Constraint, u: &[Rat]| {
        crate::num::cmp_unreduced(&crate::num::affine_unreduced(&Rat::zero(), &c.a, u), &c.b).is_eq()
    };
    let edge = |u: &[Rat], w: &[Rat]| -> LinExpr {
        if let Some(c) = rows.iter().find(|c| !c.a[1].is_zero() && tight_at(c, u) && tight_at(c, w)) {
            let over_a1 = |x: &Rat| {
                let a1 = &c.a[1];
                crate::num::reduced(x.numer() * a1.denom(), x.denom() * a1.numer())
            };
            let mut e = LinExpr::constant(d, over_a1(&c.b));
            e.coeffs[0] = -over_a1(&c.a[0]);
            return e;
        }
        let slope = (&w[1] - &u[1]) / (&w[0] - &u[0]);
        let mut e = LinExpr::constant(d, &u[1] - &slope * &u[0]);
        e.coeffs[0] = slope;
        e
    };
    let range = |lo: LinExpr, hi: LinExpr| LevelBound::Range {
        lower: vec![Side { expr: lo, strict: false }],
        upper: vec![Side { expr: hi, strict: false }],
    };
    // Value of a strictly x-monotone chain at x, with the segment index k
    // (chain[k].x <= x < chain[k+1].x, or the last segment at the right end).
    let at = |chain: &[Vec<Rat>], k: usize, x: &Rat| -> Rat {
        if chain[k][0] == *x {
            chain[k][1].clone()
        } else if chain[k + 1][0] == *x {
            chain[k + 1][1].clone()
        } else {
            edge(&chain[k], &chain[k + 1]).eval(std::slice::from_ref(x))
        }
    };
    let (mut kl, mut ku) = (0usize, 0usize);
    let mut cells = Vec::new();
    for (k, x) in crit.iter().enumerate() {
        while kl + 2 < lower.len() && lower[kl + 1][0] <= *x {
            kl += 1;
        }
        while ku + 2 < upper.len() && upper[ku + 1][0] <= *x {
            ku += 1;
        }
        let (lo_v, hi_v) = (at(&lower, kl, x), at(&upper, ku, x));
        cells.push(OuterCell {
            lo: Some((x.clone(), false)),
            hi: Some((x.clone(), false)),
            chain: vec![range(LinExpr::constant(d, lo_v), LinExpr::constant(d, hi_v))],
        });
        if let Some(next) = crit.get(k + 1) {
            cells.push(OuterCell {
                lo: Some((x.clone(), true)),
                hi: Some((next.clone(), true)),
                chain: vec![range(edge(&lower[kl], &lower[kl + 1]), edge(&upper[ku], &upper[ku + 1]))],
            });
        }
    }
    Some(cells)
}

/// Replaces outer variables fixed to a value by that value in the inner
/// bounds, so a point prints as numbers (`dc2 = 9.5e-9 and dc1 = 5.6e-5`).
fn substitute_points(mut cell: Cell) -> Cell {
    let d = cell.levels.len();
    for j in 0..d {
        let LevelBound::Point(e) = &cell.levels[j] else { continue };
        if !e.is_constant() {
            continue;
        }
        let value = LinExpr::constant(e.dim(), e.constant.clone());
        for later in cell.levels.iter_mut().skip(j + 1) {
            match later {
                LevelBound::Point(f) => *f = f.substitute(j, &value),
                LevelBound::Range { lower, upper } => {
                    for s in lower.iter_mut().chain(upper.iter_mut()) {
                        s.expr = s.expr.substitute(j, &value);
                    }
                }
            }
        }
    }
    cell
}

fn is_point(c: &OuterCell) -> bool {
    matches!((&c.lo, &c.hi), (Some((a, false)), Some((b, false))) if a == b)
}

/// Whether `chain` (inner levels) at outer value `x` describes `p`'s slice there.
fn describes_slice(p: &Polyhedron, chain: &[LevelBound], x: &Rat, d: usize) -> bool {
    let mut at = outer_constraints(&Some((x.clone(), false)), &Some((x.clone(), false)), d);
    let mut full = vec![LevelBound::Point(LinExpr::constant(d, x.clone()))];
    full.extend(chain.iter().cloned());
    let from_chain = Polyhedron::new(d, Cell { levels: full }.constraints(d));
    at.extend(p.constraints().iter().cloned());
    {
        let slice = Polyhedron::new(d, at);
        from_chain.is_subset_of(&slice) && slice.is_subset_of(&from_chain)
    }
}
