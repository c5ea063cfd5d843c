//! Convex polyhedra given by linear constraints (possibly strict, i.e. not
//! necessarily closed): emptiness, generators (vertices, rays, lines),
//! a minimal constraint form without redundancy, and projection.
//!
//! Bounded, unbounded, empty and lower-dimensional sets are all handled:
//! lower-dimensional sets come back with explicit equalities, unbounded ones
//! with rays and lines.

pub(crate) mod budget;
mod dd;
mod polygon;

use crate::linear::{Constraint, Kind, VarId};
use crate::lp::{LpOutcome, Prepared, Sense};
use crate::num::Rat;
use dd::{Cone, IVec};
use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};

/// A conjunction of linear constraints over `n` variables.
#[derive(Debug, Clone)]
pub struct Polyhedron {
    n: usize,
    constraints: Vec<Constraint>,
    /// Generators, computed once on first use (they are asked for by
    /// minimisation, projection and the cylindrical form alike).
    gens: std::sync::OnceLock<Generators>,
}

impl PartialEq for Polyhedron {
    fn eq(&self, other: &Self) -> bool {
        self.n == other.n && self.constraints == other.constraints
    }
}

impl Eq for Polyhedron {}

/// The generators of a polyhedron's closure: it equals
/// `conv(vertices) + cone(rays) + span(lines)`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Generators {
    /// Vertices (when `lines` is non-empty, these are vertices of the
    /// intersection with the orthogonal complement of the lines). Sorted
    /// lexicographically, except for bounded polygons with many rows, whose
    /// vertices come in counter-clockwise order.
    pub vertices: Vec<Vec<Rat>>,
    /// Extreme rays (directions in which the set is unbounded).
    pub rays: Vec<Vec<Rat>>,
    /// A basis of the lineality space.
    pub lines: Vec<Vec<Rat>>,
}

/// A polyhedron without redundant constraints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Minimal {
    /// True when the set is empty (then the other fields are empty).
    pub empty: bool,
    /// Independent equalities describing the affine hull.
    pub equalities: Vec<Constraint>,
    /// Irredundant inequalities (`<=` or `<`), one per facet, plus strict
    /// constraints that cut away a lower-dimensional face.
    pub inequalities: Vec<Constraint>,
    /// Generators of the closure.
    pub generators: Generators,
}

impl Minimal {
    /// All constraints: equalities first.
    pub fn constraints(&self) -> Vec<Constraint> {
        self.each_constraint().cloned().collect()
    }

    /// [`Minimal::constraints`] borrowed, for a caller that only reads them.
    pub fn each_constraint(&self) -> impl Iterator<Item = &Constraint> {
        self.equalities.iter().chain(&self.inequalities)
    }

    /// True when no constraint bounds the set (the whole space).
    pub fn is_unconstrained(&self) -> bool {
        self.equalities.is_empty() && self.inequalities.is_empty()
    }
}

fn to_ints(xs: &[Rat]) -> Vec<BigInt> {
    crate::num::common_denominator_ints(xs)
}

/// Homogeneous row `(a, -b)` of `a·x <= b`, primitive integer.
fn homog(a: &[Rat], b: &Rat) -> IVec {
    let mut v: Vec<Rat> = a.to_vec();
    v.push(-b.clone());
    IVec::new(to_ints(&v))
}

fn rat_vec(v: &[BigInt]) -> Vec<Rat> {
    v.iter().map(|x| Rat::from_integer(x.clone())).collect()
}

impl Polyhedron {
    /// The set of points satisfying all `constraints` (each over `n` variables).
    pub fn new(n: usize, constraints: Vec<Constraint>) -> Polyhedron {
        Polyhedron { n, constraints, gens: std::sync::OnceLock::new() }
    }

    /// The whole space.
    pub fn universe(n: usize) -> Polyhedron {
        Polyhedron::new(n, Vec::new())
    }

    /// Number of variables.
    pub fn dim(&self) -> usize {
        self.n
    }

    /// The constraints as given.
    pub fn constraints(&self) -> &[Constraint] {
        &self.constraints
    }

    #[allow(clippy::panic)] // an invariant of the type, not of the input
    fn prepared(&self) -> Prepared {
        // An exact LP over these rows follows: a few pivots, each a pass of
        // products over the rows (the result is not used once spent).
        let w = self
            .constraints
            .iter()
            .flat_map(|c| c.a.iter().chain(std::iter::once(&c.b)))
            .map(|x| budget::words(x.numer().bits() + x.denom().bits()))
            .max()
            .unwrap_or(1);
        let n1 = (self.n + 1) as u64;
        budget::charge(self.constraints.len() as u64 * n1 * n1 * w * w);
        match Prepared::new(self.n, self.constraints.clone()) {
            Ok(p) => p,
            // Every constraint is built over self.n variables.
            Err(e) => panic!("internal error: {e}"),
        }
    }

    /// Whether no point satisfies the constraints (strict ones included).
    pub fn is_empty(&self) -> bool {
        if self.constraints.iter().any(|c| c.is_trivial() && !c.trivial_truth()) {
            return true;
        }
        let zero = vec![Rat::zero(); self.n];
        matches!(self.prepared().optimize(&zero, Sense::Maximize), Ok(LpOutcome::Infeasible(_)))
    }

    /// Whether every point of `self` lies in `other` (both over the same
    /// variables): each of `other`'s constraints is implied, i.e. `self` and
    /// its negation have no common point (exact LPs, strict rows included).
    pub fn is_subset_of(&self, other: &Polyhedron) -> bool {
        other.constraints.iter().all(|c| {
            c.negated().into_iter().all(|nc| {
                let mut cons = self.constraints.clone();
                cons.push(nc);
                Polyhedron::new(self.n, cons).is_empty()
            })
        })
    }

    /// Whether the point satisfies every constraint.
    pub fn contains(&self, x: &[Rat]) -> bool {
        self.constraints.iter().all(|c| c.holds_at(x))
    }

    /// Exact double description of the closure. Rows are fed the starting rows first
    /// (those defining LP optima along each axis), then the rest, most
    /// violated first, so few rows ever enter the cone. The cone records
    /// which constraints it kept by their index in `self.constraints`.
    fn cone(&self, prepared: Option<&Prepared>) -> Cone {
        match self.cone_with(prepared, &|_| Ok::<(), std::convert::Infallible>(())) {
            Ok(c) => c,
            Err(never) => match never {},
        }
    }

    /// [`Polyhedron::cone`] with `check` run on the number of generators
    /// after every row added, so an enumeration that grows too large stops
    /// while it grows.
    fn cone_with<E>(
        &self,
        prepared: Option<&Prepared>,
        check: &impl Fn(usize) -> Result<(), E>,
    ) -> Result<Cone, E> {
        let n = self.n;
        // Homogeneous rows with their constraint's index (an equality gives two);
        // `first[ci]` is the first row of constraint `ci`.
        let mut rows: Vec<(IVec, usize)> = Vec::with_capacity(self.constraints.len() * 2);
        let mut first: Vec<usize> = Vec::with_capacity(self.constraints.len());
        for (ci, c) in self.constraints.iter().enumerate() {
            first.push(rows.len());
            rows.push((homog(&c.a, &c.b), ci));
            if c.kind == Kind::Eq {
                let neg: Vec<Rat> = c.a.iter().map(|v| -v).collect();
                rows.push((homog(&neg, &-c.b.clone()), ci));
            }
        }
        let mut cone = Cone::universe(n + 1);
        let mut t = vec![BigInt::zero(); n + 1];
        t[n] = BigInt::from(-1);
        cone.add(&IVec::new(t), usize::MAX);
        let mut done = vec![false; rows.len()];
        // Seeds: the rows tight at the optima along each axis (when many
        // rows), as a float LP proposes them. They only order the work, so
        // an uncertified (even wrong) proposal costs time, never exactness;
        // exact LPs here cost more than the enumeration they speed up.
        if let Some(p) = prepared.filter(|_| rows.len() > 64) {
            for j in 0..n {
                let mut e = vec![Rat::zero(); n];
                e[j] = Rat::one();
                for sense in [Sense::Maximize, Sense::Minimize] {
                    let Some(tight) = p.propose_tight(&e, sense) else { continue };
                    for &ci in tight.iter().take(n) {
                        let end = first.get(ci + 1).copied().unwrap_or(rows.len());
                        for k in first[ci]..end {
                            if !done[k] {
                                done[k] = true;
                                cone.add(&rows[k].0, rows[k].1);
                                check(cone.rays.len())?;
                            }
                        }
                    }
                }
            }
        }
        loop {
            // A sign pass over the generators per row left (floats); with
            // the budget spent the cone is not used, so stop here.
            let left = done.iter().filter(|d| !**d).count();
            if !budget::charge((left * (cone.rays.len() + 1) * (n + 1)) as u64) {
                return Ok(cone);
            }
            let mut cand: Vec<(f64, usize)> = Vec::new();
            for (k, (h, _)) in rows.iter().enumerate() {
                if done[k] {
                    continue;
                }
                if cone.implies(h) {
                    done[k] = true;
                    continue;
                }
                cand.push((cone.violation(h), k));
            }
            if cand.is_empty() {
                break;
            }
            // Most violated first; later candidates are often implied by the
            // time their turn comes, and `add` then skips them cheaply.
            cand.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            for &(_, k) in &cand {
                done[k] = true;
                cone.add(&rows[k].0, rows[k].1);
                check(cone.rays.len())?;
            }
        }
        Ok(cone)
    }

    fn generators_of(&self, cone: &Cone) -> Generators {
        let n = self.n;
        let mut g = Generators::default();
        // A division (a gcd) per entry; nothing when the budget is spent.
        let w = cone.rays.iter().flat_map(|r| &r.v).map(|x| budget::words(x.bits())).max().unwrap_or(1);
        if !budget::charge((cone.rays.len() * (n + 1)) as u64 * w * w) {
            return g;
        }
        for r in &cone.rays {
            let t = &r.v[n];
            if t.is_positive() {
                g.vertices.push(r.v[..n].iter().map(|x| crate::num::reduced(x.clone(), t.clone())).collect());
            } else {
                g.rays.push(rat_vec(&r.v[..n]));
            }
        }
        for l in &cone.lines {
            g.lines.push(rat_vec(&l.v[..n]));
        }
        if g.vertices.is_empty() {
            return Generators::default();
        }
        if !g.lines.is_empty() {
            // Each minimal face is a translate of the lineality space and
            // meets its orthogonal complement in exactly one point: report
            // that point, and rays orthogonal to the lines too.
            let basis = orthogonal_basis(&g.lines);
            g.vertices = g.vertices.iter().map(|v| reject(v, &basis)).collect();
            g.rays = g
                .rays
                .iter()
                .map(|r| reject(r, &basis))
                .filter(|r| r.iter().any(|x| !x.is_zero()))
                .map(|r| rat_vec(&IVec::new(to_ints(&r)).v))
                .collect();
            g.vertices.sort();
            g.vertices.dedup();
            g.rays.sort();
            g.rays.dedup();
        }
        g.vertices.sort();
        g.rays.sort();
        g
    }

    /// Vertices, extreme rays and lines of the closure (all empty when the
    /// closure is empty).
    pub fn generators(&self) -> Generators {
        self.gens
            .get_or_init(|| match self.fast_polygon() {
                Some(m) => m.generators,
                None => self.generators_dd(),
            })
            .clone()
    }

    /// The minimal form as a polyhedron that already knows its generators.
    pub fn from_minimal(n: usize, m: &Minimal) -> Polyhedron {
        let p = Polyhedron::new(n, m.constraints());
        if !m.empty {
            let _ = p.gens.set(m.generators.clone());
        }
        p
    }

    /// Generators by double description only (the general path).
    pub(crate) fn generators_dd(&self) -> Generators {
        let p = self.prepared();
        let cone = self.cone(Some(&p));
        self.generators_of(&cone)
    }

    /// Many rows in two variables, bounded and full-dimensional: the
    /// O(m log m) polygon path.
    fn fast_polygon(&self) -> Option<Minimal> {
        if self.n == 2 && self.constraints.len() > 64 {
            polygon::minimal_polygon(&self.constraints)
        } else {
            None
        }
    }

    /// The same set without redundant constraints, with its generators.
    pub fn minimize(&self) -> Minimal {
        match self.minimize_with(&|_| Ok::<(), std::convert::Infallible>(())) {
            Ok(m) => m,
            Err(never) => match never {},
        }
    }

    /// [`Polyhedron::minimize`] that stops with `Err(count)` as soon as the
    /// double description holds more than `max` vertices and rays.
    ///
    /// It stops too when the installed work budget (`poly::budget`, see
    /// `qe::solve`) is spent; the caller asks the budget which it was.
    pub fn minimize_capped(&self, max: usize) -> Result<Minimal, usize> {
        self.minimize_with(&|k| if k > max || budget::spent() { Err(k) } else { Ok(()) })
    }

    fn minimize_with<E>(&self, check: &impl Fn(usize) -> Result<(), E>) -> Result<Minimal, E> {
        let n = self.n;
        let empty = Minimal {
            empty: true,
            equalities: vec![],
            inequalities: vec![],
            generators: Generators::default(),
        };
        if self.constraints.iter().any(|c| c.is_trivial() && !c.trivial_truth()) {
            return Ok(empty);
        }
        if let Some(m) = self.fast_polygon() {
            return Ok(m);
        }
        let big = self.constraints.len() > 64;
        let prepared = big.then(|| self.prepared());
        let cone = self.cone_with(prepared.as_ref(), check)?;
        let gens = self.generators_of(&cone);
        // The closure is empty exactly when the cone has no generator with t > 0;
        // a non-empty closure can still be emptied by strict rows.
        if gens.vertices.is_empty()
            || (self.constraints.iter().any(|c| c.kind == Kind::Lt) && self.is_empty())
        {
            return Ok(empty);
        }
        // Affine hull: equations (a, -b) orthogonal to every homogeneous generator.
        // Fraction-free elimination first keeps only independent rows (none
        // of the generators' long entries meets a gcd); a full-dimensional
        // cone, the common case, then has no equation at all.
        let equalities = hull_equalities(cone.rays.iter().chain(&cone.lines).map(|g| g.v.as_slice()), n);
        // Facets, combinatorially: a row's face is the set of generators it
        // makes tight; the facets are the maximal proper faces. Only rows the
        // cone kept can define facets of the closure (the others were implied
        // by kept rows when their turn came); strict rows are all examined,
        // since one implied in the closure may still cut a lower face.
        let mut candidate = vec![false; self.constraints.len()];
        for &ci in &cone.kept {
            if let Some(flag) = candidate.get_mut(ci) {
                *flag = true;
            }
        }
        let is_point: Vec<bool> = cone.rays.iter().map(|r| r.v[n].is_positive()).collect();
        let gen_words =
            cone.rays.iter().flat_map(|r| &r.v).map(|x| budget::words(x.bits())).max().unwrap_or(1);
        let mut faces: Vec<(Vec<bool>, usize)> = Vec::new();
        for (ci, c) in self.constraints.iter().enumerate() {
            if c.kind == Kind::Eq || !(candidate[ci] || c.kind == Kind::Lt) {
                continue;
            }
            let h = homog(&c.a, &c.b);
            let hw = h.v.iter().map(|x| budget::words(x.bits())).max().unwrap_or(1);
            // An exact product per generator entry (the rest is dropped
            // with the result when the budget is spent).
            if !budget::charge((cone.rays.len() * (n + 1)) as u64 * hw * gen_words) {
                break;
            }
            let tight: Vec<bool> = cone.rays.iter().map(|g| int_dot(&h.v, &g.v).is_zero()).collect();
            if tight.iter().all(|&t| t) || !tight.iter().zip(&is_point).any(|(&t, &p)| t && p) {
                continue; // an implicit equality (carried by the hull), or misses the closure
            }
            faces.push((tight, ci));
        }
        // Face against face: counted as one unit per pair of generator flags.
        budget::charge((faces.len() * faces.len() * cone.rays.len()) as u64 / 8);
        let strictly_inside = |a: &[bool], b: &[bool]| a != b && a.iter().zip(b).all(|(&x, &y)| !x || y);
        let mut facets: Vec<(Vec<bool>, Constraint)> = Vec::new();
        let mut strict_faces: Vec<usize> = Vec::new();
        for (tight, ci) in &faces {
            let c = &self.constraints[*ci];
            if faces.iter().any(|(other, _)| strictly_inside(tight, other)) {
                if c.kind == Kind::Lt {
                    strict_faces.push(*ci);
                }
                continue;
            }
            match facets.iter_mut().find(|(t, _)| t == tight) {
                Some((_, kept)) => {
                    if c.kind == Kind::Lt && kept.kind == Kind::Le {
                        *kept = c.clone();
                    }
                }
                None => facets.push((tight.clone(), c.clone())),
            }
        }
        let mut inequalities: Vec<Constraint> = facets.into_iter().map(|(_, c)| c.normalized()).collect();
        // Strict constraints touching a lower-dimensional face: keep those the
        // rest does not already imply (exact LP on `rest and not c`).
        for ci in strict_faces {
            let c = &self.constraints[ci];
            let mut rest: Vec<Constraint> = equalities.clone();
            rest.extend(inequalities.iter().cloned());
            rest.extend(
                self.constraints
                    .iter()
                    .enumerate()
                    .filter(|(j, d)| *j != ci && d.kind == Kind::Lt)
                    .map(|(_, d)| d.clone()),
            );
            let neg: Vec<Rat> = c.a.iter().map(|v| -v).collect();
            rest.push(Constraint::new(neg, Kind::Le, -c.b.clone()));
            if !Polyhedron::new(n, rest).is_empty() {
                inequalities.push(c.normalized());
            }
        }
        in_listing_order(&mut inequalities);
        Ok(Minimal { empty: false, equalities, inequalities, generators: gens })
    }

    /// The projection onto the variables `keep` (in that order): the set of
    /// their values for which the other variables can be chosen. Exact,
    /// strict constraints kept strict. Fourier–Motzkin, one variable at a
    /// time, with redundancy removed after each step.
    pub fn project(&self, keep: &[VarId]) -> Polyhedron {
        match self.project_with(keep, |_| Ok::<(), std::convert::Infallible>(())) {
            Ok(p) => p,
            Err(never) => match never {},
        }
    }

    /// [`Polyhedron::project`] that stops with `Err(bits)` as soon as a
    /// Fourier–Motzkin step forms a coefficient of more than `max_bits`
    /// bits (numerator plus denominator), so growth inside one projection
    /// of many variables is caught step by step.
    pub fn project_checked(&self, keep: &[VarId], max_bits: u64) -> Result<Polyhedron, u64> {
        self.project_with(keep, |cons| {
            let size = |r: &Rat| r.numer().bits() + r.denom().bits();
            let worst = cons
                .iter()
                .flat_map(|c| c.a.iter().chain(std::iter::once(&c.b)))
                .map(size)
                .max()
                .unwrap_or(0);
            if worst > max_bits {
                Err(worst)
            } else {
                Ok(())
            }
        })
    }

    /// The projection, with `check` run on the rows after every
    /// Fourier–Motzkin step.
    fn project_with<E>(
        &self,
        keep: &[VarId],
        check: impl Fn(&[Constraint]) -> Result<(), E>,
    ) -> Result<Polyhedron, E> {
        let n = self.n;
        let reindex = |cons: Vec<Constraint>| -> Polyhedron {
            let cons = cons
                .into_iter()
                .map(|c| Constraint::new(keep.iter().map(|&k| c.a[k].clone()).collect(), c.kind, c.b))
                .collect();
            Polyhedron::new(keep.len(), cons)
        };
        // Eliminated variables that occur in an equality are substituted away
        // first: exact, cheap, and no new rows.
        let mut eliminate: Vec<VarId> = (0..n).filter(|v| !keep.contains(v)).collect();
        let mut cons = self.constraints.clone();
        while let Some(pos) =
            eliminate.iter().position(|&v| cons.iter().any(|c| c.kind == Kind::Eq && !c.a[v].is_zero()))
        {
            cons = fm_step(cons, eliminate[pos], n);
            check(&cons)?;
            eliminate.remove(pos);
        }
        let occurs = |cons: &[Constraint], v: VarId| cons.iter().any(|c| !c.a[v].is_zero());
        eliminate.retain(|&v| occurs(&cons, v));
        if eliminate.is_empty() {
            return Ok(reindex(cons));
        }
        let rest = Polyhedron::new(n, cons);
        if keep.len() == 1 {
            return Ok(rest.project_onto_one(keep[0]));
        }
        if let Some(p) = rest.project_bounded(keep) {
            return Ok(p);
        }
        let mut cons: Vec<Constraint> = rest.minimize_or_empty();
        for &v in &eliminate {
            cons = fm_step(cons, v, n);
            check(&cons)?;
            let p = Polyhedron::new(n, cons);
            cons = p.minimize_or_empty();
        }
        Ok(reindex(cons))
    }

    /// Projection onto one variable: its exact minimum and maximum (two LPs),
    /// strict where not attained.
    fn project_onto_one(&self, v: VarId) -> Polyhedron {
        let mut e = vec![Rat::zero(); self.n];
        e[v] = Rat::one();
        let p = self.prepared();
        let mut cons = Vec::new();
        for (sense, sign) in [(Sense::Minimize, -Rat::one()), (Sense::Maximize, Rat::one())] {
            match p.optimize(&e, sense) {
                Ok(LpOutcome::Infeasible(_)) => {
                    return Polyhedron::new(
                        1,
                        vec![Constraint::new(vec![Rat::zero()], Kind::Le, -Rat::one())],
                    );
                }
                Ok(LpOutcome::Optimal(o)) => {
                    let kind = if o.attained { Kind::Le } else { Kind::Lt };
                    cons.push(Constraint::new(vec![sign.clone()], kind, &sign * &o.value));
                }
                // Unbounded in this direction (the set has no bound here).
                _ => {}
            }
        }
        if let [lo, hi] = cons.as_slice() {
            if lo.kind == Kind::Le && hi.kind == Kind::Le && -lo.b.clone() == hi.b {
                return Polyhedron::new(1, vec![Constraint::new(vec![Rat::one()], Kind::Eq, hi.b.clone())]);
            }
        }
        Polyhedron::new(1, cons)
    }

    /// Projection of a bounded closed set with many rows onto one or two
    /// variables through its vertices (no Fourier–Motzkin blow-up); `None`
    /// when the set is not of that kind or the image is degenerate.
    fn project_bounded(&self, keep: &[VarId]) -> Option<Polyhedron> {
        if keep.is_empty()
            || keep.len() > 2
            || self.constraints.len() <= 16
            || self.constraints.iter().any(|c| c.kind == Kind::Lt)
        {
            return None;
        }
        let g = self.generators();
        if !g.rays.is_empty() || !g.lines.is_empty() || g.vertices.is_empty() {
            return None;
        }
        let mut pts: Vec<Vec<Rat>> =
            g.vertices.iter().map(|v| keep.iter().map(|&k| v[k].clone()).collect()).collect();
        pts.sort();
        pts.dedup();
        if keep.len() == 1 {
            let (lo, hi) = (pts.first()?[0].clone(), pts.last()?[0].clone());
            return Some(Polyhedron::new(
                1,
                vec![
                    Constraint::new(vec![-Rat::one()], Kind::Le, -lo),
                    Constraint::new(vec![Rat::one()], Kind::Le, hi),
                ],
            ));
        }
        // Counter-clockwise hull: the lower chain, then the upper one back.
        let (lower, upper) = monotone_chains(&pts);
        let mut h: Vec<Vec<Rat>> = lower;
        h.pop();
        h.extend(upper.into_iter().rev());
        h.pop();
        if h.len() < 3 {
            return None;
        }
        let cons = (0..h.len())
            .map(|k| {
                let (u, v) = (&h[k], &h[(k + 1) % h.len()]);
                // Interior on the left of u -> v.
                let (dx, dy) = (&v[0] - &u[0], &v[1] - &u[1]);
                Constraint::new(vec![dy.clone(), -dx.clone()], Kind::Le, &dy * &u[0] - &dx * &u[1])
                    .normalized()
            })
            .collect();
        Some(Polyhedron::new(2, cons))
    }

    /// Minimal constraints, or the single `0 <= -1` when empty.
    fn minimize_or_empty(&self) -> Vec<Constraint> {
        let m = self.minimize();
        if m.empty {
            vec![Constraint::new(vec![Rat::zero(); self.n], Kind::Le, -Rat::one())]
        } else {
            m.constraints()
        }
    }
}

/// One Fourier–Motzkin step eliminating `v` (equalities are substituted first).
fn fm_step(cons: Vec<Constraint>, v: VarId, n: usize) -> Vec<Constraint> {
    if let Some(e) = cons.iter().find(|c| c.kind == Kind::Eq && !c.a[v].is_zero()).cloned() {
        // x_v = (b - Σ_{j≠v} a_j x_j) / a_v
        return cons
            .into_iter()
            .filter(|c| *c != e)
            .map(|c| {
                if c.a[v].is_zero() {
                    return c;
                }
                let f = &c.a[v] / &e.a[v];
                let a: Vec<Rat> = c.a.iter().zip(&e.a).map(|(x, y)| x - &f * y).collect();
                Constraint::new(a, c.kind, &c.b - &f * &e.b)
            })
            .collect();
    }
    let (mut lower, mut upper, mut rest) = (Vec::new(), Vec::new(), Vec::new());
    for c in cons {
        if c.a[v].is_positive() {
            upper.push(c);
        } else if c.a[v].is_negative() {
            lower.push(c);
        } else {
            rest.push(c);
        }
    }
    // Each pair is a row of products: counted before it is formed. With
    // the budget spent the combined rows are left out (the result is then
    // discarded by whoever installed the budget).
    let bits = |c: &Constraint| {
        c.a.iter()
            .chain(std::iter::once(&c.b))
            .map(|x| x.numer().bits() + x.denom().bits())
            .max()
            .unwrap_or(0)
    };
    let (wu, wl) = (
        upper.iter().map(bits).max().map_or(1, budget::words),
        lower.iter().map(bits).max().map_or(1, budget::words),
    );
    if !budget::charge((upper.len() * lower.len() * (n + 1)) as u64 * 4 * wu * wl) {
        return rest;
    }
    for u in &upper {
        for l in &lower {
            // u: a_v x_v + ... <= b_u (a_v > 0);  l: a'_v x_v + ... <= b_l (a'_v < 0)
            let fu = -l.a[v].clone();
            let fl = u.a[v].clone();
            let a: Vec<Rat> =
                (0..n).map(|j| if j == v { Rat::zero() } else { &fu * &u.a[j] + &fl * &l.a[j] }).collect();
            let b = &fu * &u.b + &fl * &l.b;
            let kind = if u.kind == Kind::Lt || l.kind == Kind::Lt { Kind::Lt } else { Kind::Le };
            rest.push(Constraint::new(a, kind, b).normalized());
        }
    }
    rest
}

fn int_dot(a: &[BigInt], b: &[BigInt]) -> BigInt {
    let mut s = BigInt::zero();
    for (x, y) in a.iter().zip(b) {
        if !x.is_zero() && !y.is_zero() {
            s += x * y;
        }
    }
    s
}

/// Lower and upper convex chains of sorted, distinct 2-D points (Andrew's
/// monotone chain, exact; collinear points dropped). Both run left to right
/// from the first point to the last.
pub(crate) fn monotone_chains(pts: &[Vec<Rat>]) -> (Vec<Vec<Rat>>, Vec<Vec<Rat>>) {
    // Sign of the cross product in integers: no gcd per turn test.
    let cross = |o: &[Rat], a: &[Rat], b: &[Rat]| {
        use crate::num::sub_unreduced as diff;
        let (u0, u1, v0, v1) =
            (diff(&a[0], &o[0]), diff(&a[1], &o[1]), diff(&b[0], &o[0]), diff(&b[1], &o[1]));
        // u0·v1 − u1·v0 times the positive u0.d·v1.d·u1.d·v0.d
        u0.numer() * v1.numer() * u1.denom() * v0.denom() - u1.numer() * v0.numer() * u0.denom() * v1.denom()
    };
    let chain = |it: &mut dyn Iterator<Item = &Vec<Rat>>| {
        let mut h: Vec<Vec<Rat>> = Vec::new();
        for p in it {
            while h.len() >= 2 && !cross(&h[h.len() - 2], &h[h.len() - 1], p).is_positive() {
                h.pop();
            }
            h.push(p.clone());
        }
        h
    };
    let lower = chain(&mut pts.iter());
    let mut upper = chain(&mut pts.iter().rev());
    upper.reverse();
    (lower, upper)
}

/// Gram–Schmidt, exactly.
fn orthogonal_basis(vs: &[Vec<Rat>]) -> Vec<Vec<Rat>> {
    let mut out: Vec<Vec<Rat>> = Vec::new();
    for v in vs {
        let w = reject(v, &out);
        if w.iter().any(|x| !x.is_zero()) {
            out.push(w);
        }
    }
    out
}

/// `v` minus its projection onto the span of the orthogonal vectors `basis`.
fn reject(v: &[Rat], basis: &[Vec<Rat>]) -> Vec<Rat> {
    let dot = |a: &[Rat], b: &[Rat]| -> Rat { a.iter().zip(b).map(|(x, y)| x * y).sum() };
    let mut w = v.to_vec();
    for u in basis {
        let f = dot(&w, u) / dot(u, u);
        for (wi, ui) in w.iter_mut().zip(u) {
            *wi -= &f * ui;
        }
    }
    w
}

/// Equalities with the first non-zero coefficient positive, for stable output.
/// The equations of the affine hull of the homogeneous generators `gens`
/// (each `(x, t)` of length `n + 1`), normalized: none when they span the
/// space.
fn hull_equalities<'a>(gens: impl Iterator<Item = &'a [BigInt]>, n: usize) -> Vec<Constraint> {
    let basis = dd::echelon(gens, n + 1);
    let eqs = if basis.len() == n + 1 {
        Vec::new()
    } else {
        let hull_rows: Vec<crate::lp::simplex::Row> =
            basis.iter().map(|v| crate::lp::simplex::row_of(rat_vec(v), Rat::zero(), true)).collect();
        crate::lp::simplex::null_space(&hull_rows, n + 1)
    };
    eqs.iter()
        .filter(|v| v[..n].iter().any(|x| !x.is_zero()))
        .map(|v| canonical_equality(Constraint::new(v[..n].to_vec(), Kind::Eq, -v[n].clone())))
        .collect()
}

fn canonical_sign(c: Constraint) -> Constraint {
    match c.a.iter().find(|x| !x.is_zero()) {
        Some(f) if f.is_negative() => Constraint::new(c.a.iter().map(|x| -x).collect(), c.kind, -c.b),
        _ => c,
    }
}

/// An equation of the affine hull as [`Polyhedron::minimize`] lists it:
/// normalised, its first nonzero coefficient positive.
pub(crate) fn canonical_equality(c: Constraint) -> Constraint {
    canonical_sign(c.normalized())
}

/// Normalised inequalities sorted and without repeats, the order every
/// minimal description lists them in (also for a caller that knows the
/// facets in closed form).
pub(crate) fn in_listing_order(cons: &mut Vec<Constraint>) {
    cons.sort_by(cmp_constraints);
    cons.dedup();
}

fn cmp_constraints(a: &Constraint, b: &Constraint) -> std::cmp::Ordering {
    a.a.cmp(&b.a).then_with(|| a.b.cmp(&b.b)).then_with(|| a.kind.cmp(&b.kind))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::{frac, int};

    fn le(a: &[i64], b: i64) -> Constraint {
        Constraint::new(a.iter().map(|&v| int(v)).collect(), Kind::Le, int(b))
    }

    #[test]
    fn triangle_with_redundant_rows() {
        let p = Polyhedron::new(
            2,
            vec![le(&[-1, 0], 0), le(&[0, -1], 0), le(&[1, 1], 1), le(&[1, 0], 5), le(&[2, 2], 3)],
        );
        let m = p.minimize();
        assert!(!m.empty);
        assert_eq!(m.inequalities.len(), 3);
        assert_eq!(
            m.generators.vertices,
            vec![vec![int(0), int(0)], vec![int(0), int(1)], vec![int(1), int(0)]]
        );
    }

    #[test]
    fn unbounded_lower_dimensional_and_empty() {
        // x >= 0, x <= 0 (implicit equality), y free: a line.
        let p = Polyhedron::new(2, vec![le(&[-1, 0], 0), le(&[1, 0], 0)]);
        let m = p.minimize();
        assert_eq!(m.equalities.len(), 1);
        assert!(m.inequalities.is_empty());
        assert_eq!(m.generators.lines.len(), 1);
        // A quadrant: two rays.
        let q = Polyhedron::new(2, vec![le(&[-1, 0], 0), le(&[0, -1], 0)]).minimize();
        assert_eq!(q.generators.rays.len(), 2);
        assert_eq!(q.generators.vertices, vec![vec![int(0), int(0)]]);
        assert!(Polyhedron::new(1, vec![le(&[1], 0), le(&[-1], -1)]).minimize().empty);
    }

    #[test]
    fn strict_constraints_survive_when_they_cut_a_face() {
        // x >= 0, y >= 0, x + y > 0: the quadrant minus the origin.
        let c = Constraint::new(vec![int(-1), int(-1)], Kind::Lt, int(0));
        let m = Polyhedron::new(2, vec![le(&[-1, 0], 0), le(&[0, -1], 0), c.clone()]).minimize();
        assert_eq!(m.inequalities.len(), 3);
        // x < 1 and x <= 1: one strict facet.
        let m = Polyhedron::new(
            1,
            vec![Constraint::new(vec![int(1)], Kind::Lt, int(1)), le(&[1], 1), le(&[-1], 0)],
        )
        .minimize();
        assert_eq!(m.inequalities.iter().filter(|c| c.kind == Kind::Lt).count(), 1);
        assert_eq!(m.inequalities.len(), 2);
    }

    #[test]
    fn projection_of_a_square_pyramid() {
        // |x| + |y| <= z, z <= 1 projected to (x, y): the diamond |x| + |y| <= 1.
        let mut cons = vec![];
        for (sx, sy) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
            cons.push(le(&[sx, sy, -1], 0));
        }
        cons.push(le(&[0, 0, 1], 1));
        let p = Polyhedron::new(3, cons).project(&[0, 1]);
        let m = p.minimize();
        assert_eq!(m.inequalities.len(), 4);
        assert!(p.contains(&[frac(1, 2), frac(1, 2)]));
        assert!(!p.contains(&[frac(1, 2), frac(2, 3)]));
    }

    #[test]
    fn checked_projection_stops_when_a_step_forms_long_coefficients() {
        // x <= z, y <= z, z <= 10^30 / 7: eliminating z forms x <= 10^30/7 (about 103 bits).
        let big = Rat::new(BigInt::from(10).pow(30u32), BigInt::from(7));
        let cons = vec![
            le(&[1, 0, -1], 0),
            le(&[0, 1, -1], 0),
            Constraint::new(vec![Rat::zero(), Rat::zero(), Rat::one()], Kind::Le, big.clone()),
            Constraint::new(vec![-Rat::one(), -Rat::one(), Rat::zero()], Kind::Le, big),
        ];
        let p = Polyhedron::new(3, cons);
        assert!(matches!(p.project_checked(&[0, 1], 50), Err(bits) if bits > 50));
        assert_eq!(p.project_checked(&[0, 1], 200).ok(), Some(p.project(&[0, 1])));
    }

    #[test]
    fn polygon_path_agrees_with_double_description() {
        // Noisy residual rows |c0 + c1 x_i - y_i| <= 1/5 with y_i = x_i^2 + noise.
        let cons = crate::testdata::residual_rows(300, 2, frac(1, 5), Some((12345, 10_000)));
        let p = Polyhedron::new(2, cons);
        let mut fast = p.generators().vertices;
        let slow = p.generators_dd().vertices;
        fast.sort();
        assert_eq!(fast, slow);
        assert!(fast.len() >= 3);
        let m = p.minimize();
        assert_eq!(m.inequalities.len(), fast.len());
    }

    #[test]
    fn rows_meeting_in_one_point_give_the_point_as_double_description_does() {
        // Rows through P = (1/3, -2/7) with normals all around the circle,
        // and loose ones: the set is {P}. More than 64 rows take the
        // polygon path; the 24 with |k| <= 1 take double description.
        let p = [frac(1, 3), frac(-2, 7)];
        let rows = |ks: std::ops::RangeInclusive<i64>| {
            let mut rows = Vec::new();
            for k in ks {
                for a in
                    [vec![int(1), int(k)], vec![int(-1), int(k)], vec![int(k), int(1)], vec![int(k), int(-1)]]
                {
                    let b = &a[0] * &p[0] + &a[1] * &p[1];
                    rows.push(Constraint::new(a.clone(), Kind::Le, b.clone()));
                    rows.push(Constraint::new(a, Kind::Le, b + int(k.abs() + 1)));
                }
            }
            rows
        };
        let many = Polyhedron::new(2, rows(-20..=20)).minimize();
        let few = Polyhedron::new(2, rows(-1..=1)).minimize();
        assert!(!many.empty);
        assert_eq!(many.generators.vertices, vec![p.to_vec()]);
        assert_eq!(many, few);
        // The polygon path itself answered (not double description behind it).
        assert_eq!(polygon::minimal_polygon(&rows(-20..=20)).as_ref(), Some(&many));
        // Normals in a half-plane: a ray from P, which the polygon path
        // leaves to double description (same answer).
        let seg: Vec<Constraint> = (0..80i64)
            .map(|k| {
                let a = if k % 2 == 0 { vec![int(1), int(k)] } else { vec![int(-1), int(k)] };
                let b = &a[0] * &p[0] + &a[1] * &p[1];
                Constraint::new(a, Kind::Le, b)
            })
            .chain([Constraint::new(vec![int(0), int(1)], Kind::Le, int(5))])
            .collect();
        let m = Polyhedron::new(2, seg.clone()).minimize();
        let g = Polyhedron::new(2, seg).generators_dd();
        let mut v = m.generators.vertices.clone();
        v.sort();
        let mut w = g.vertices.clone();
        w.sort();
        assert_eq!(v, w);
    }

    #[test]
    fn many_rows_enumerate_fast_and_exactly() {
        // |c0 + c1*x_i - x_i^2| <= 1/4 for 400 points: a polygon.
        let cons = crate::testdata::residual_rows(400, 2, frac(1, 4), None);
        let p = Polyhedron::new(2, cons);
        let g = p.generators();
        assert!(g.rays.is_empty() && g.lines.is_empty());
        assert!(g.vertices.len() >= 3);
        for v in &g.vertices {
            assert!(p.contains(v));
        }
    }
}
