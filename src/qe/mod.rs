//! Quantifier elimination for linear real arithmetic.
//!
//! [`parse_problem`] reads a formula file; [`solve`] eliminates its
//! quantifiers exactly and returns a [`QeResult`]: a union of convex pieces
//! in the free variables, simplified (no redundant constraints, subsumed
//! pieces dropped, complementary pieces merged, `true`/`false` recognised),
//! each also in cylindrical form for the chosen variable order.
//!
//! ```
//! use errband::qe;
//! use errband::num::NumFormat;
//! let p = qe::parse_problem("exists y: x <= y and y <= 3", "example.qe").unwrap();
//! let r = qe::solve(&p, &qe::Options::default()).unwrap();
//! assert_eq!(r.to_text(NumFormat::Exact), "x <= 3");
//! ```

mod cylinder;
mod eliminate;
pub mod formula;
pub mod output;
pub mod syntax;

/// A result piece's irredundant description (the polyhedra engine's own
/// types, part of what `qe` returns).
pub use crate::poly::{Generators, Minimal};
pub use cylinder::{Cell, LevelBound, Side};
pub use eliminate::ElimError;
pub use formula::{Atom, Formula, Problem, Rel};
pub use syntax::parse_problem;

use crate::limits::Limits;
use crate::linear::{Constraint, Kind, LinExpr, VarId, VarTable};
use crate::num::{self, NumFormat, Rat};
use crate::poly::Polyhedron;
use num_traits::Zero;
use rayon::prelude::*;

/// Options for [`solve`]: [`Options::default`] and the setters below, or
/// its public fields; new options may be added in a minor version.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Options {
    /// Variable order for the cylindrical form, outermost first; free
    /// variables not listed follow in order of first appearance.
    pub order: Vec<String>,
    /// Skip the cylindrical form (cells stay empty): callers that only need
    /// constraints and vertices, such as pruning searches, save its cost.
    pub no_cells: bool,
    /// Limits on digits of the numbers formed, pieces and vertices.
    pub limits: Limits,
}

impl Options {
    /// With the cylindrical order, outermost first.
    pub fn order(mut self, order: Vec<String>) -> Options {
        self.order = order;
        self
    }

    /// With `limits` on digits, pieces and vertices.
    pub fn limits(mut self, limits: Limits) -> Options {
        self.limits = limits;
        self
    }

    /// Without the cylindrical form (constraints and vertices only).
    pub fn no_cells(mut self, no_cells: bool) -> Options {
        self.no_cells = no_cells;
        self
    }
}

/// Why a QE problem could not be solved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QeError {
    /// `--order` names a variable the formula does not have.
    #[error("--order names `{0}`, which does not occur in the formula")]
    UnknownVariable(String),
    /// `--order` names a variable that is bound by a quantifier.
    #[error(
        "--order names `{0}`, which is bound by a quantifier (only free variables remain in the result)"
    )]
    NotFree(String),
    /// `--order` names a variable twice.
    #[error("--order names `{0}` twice; give each variable once")]
    Repeated(String),
    /// Elimination hit a resource limit.
    #[error(transparent)]
    Elim(#[from] ElimError),
}

impl crate::error::Classified for QeError {
    fn kind(&self) -> crate::error::ErrorKind {
        match self {
            QeError::Elim(_) => crate::error::ErrorKind::Analysis,
            _ => crate::error::ErrorKind::Input,
        }
    }
}

/// One convex piece of the result.
#[derive(Debug, Clone)]
pub struct Piece {
    /// Irredundant constraints and generators, over the result variables.
    pub minimal: Minimal,
    /// Cylindrical cells for the result's variable order.
    pub cells: Vec<Cell>,
}

/// A quantifier-free equivalent of the input, over its free variables.
#[derive(Debug, Clone)]
pub struct QeResult {
    /// The free variables, in the cylindrical order (outermost first).
    pub vars: VarTable,
    /// Index of each result variable in the problem's variable table.
    pub origin: Vec<VarId>,
    /// The convex pieces (their union is the result; none means `false`).
    pub pieces: Vec<Piece>,
}

impl QeResult {
    /// Whether the result carries its cylindrical cells (a whole
    /// experiment's regions skip them: `Options::no_cells`). A piece
    /// without constraints (the whole space) has none either way.
    pub fn has_cells(&self) -> bool {
        self.pieces.iter().any(|p| !p.cells.is_empty() || p.minimal.is_unconstrained())
    }

    /// True when the result is `true` (one piece without constraints).
    pub fn is_true(&self) -> bool {
        self.pieces.iter().any(|p| p.minimal.is_unconstrained())
    }
    /// True when the result is `false`.
    pub fn is_false(&self) -> bool {
        self.pieces.is_empty()
    }
    /// Truth value at a point giving one value per result variable.
    pub fn holds_at(&self, x: &[Rat]) -> bool {
        self.pieces.iter().any(|p| p.minimal.each_constraint().all(|c| c.holds_at(x)))
    }
    /// The result as a formula over [`QeResult::vars`].
    pub fn to_formula(&self) -> Formula {
        output::as_formula(self)
    }
    /// Plain text in cylindrical form, one cell per line.
    pub fn to_text(&self, fmt: NumFormat) -> String {
        output::text(self, fmt)
    }

    /// The same set in the variables `y = x − shift` (`shift` in result
    /// order): constraints, generators and cells are translated exactly,
    /// nothing is recomputed. The model pipeline solves its problems in the
    /// absolute parameters, whose numbers stay small, and reports them
    /// relative to the fit.
    pub fn shifted(&self, shift: &[Rat]) -> QeResult {
        // Every moved number is formed unreduced and reduced once (the
        // shift is the fit, whose denominators run to thousands of digits
        // on distinct points: a gcd per product and sum dominated).
        let zero = Rat::zero();
        let move_con = |c: &Constraint| {
            let at = num::affine_unreduced(&zero, &c.a, shift);
            Constraint::new(c.a.clone(), c.kind, num::sub(&c.b, &at))
        };
        let move_point = |v: &Vec<Rat>| v.iter().zip(shift).map(|(x, t)| num::sub(x, t)).collect::<Vec<_>>();
        // A bound `x_j REL L(x)` becomes `y_j REL L(y + shift) − shift_j`.
        let move_expr = |e: &LinExpr, j: usize| {
            let mut out = e.clone();
            out.constant = num::sub(&num::affine_unreduced(&e.constant, &e.coeffs, shift), &shift[j]);
            out
        };
        let pieces = self
            .pieces
            .iter()
            .map(|p| {
                let m = &p.minimal;
                let minimal = Minimal {
                    empty: m.empty,
                    equalities: m.equalities.iter().map(move_con).collect(),
                    inequalities: m.inequalities.iter().map(move_con).collect(),
                    generators: crate::poly::Generators {
                        vertices: m.generators.vertices.iter().map(move_point).collect(),
                        rays: m.generators.rays.clone(),
                        lines: m.generators.lines.clone(),
                    },
                };
                let cells = p
                    .cells
                    .iter()
                    .map(|c| Cell {
                        levels: c
                            .levels
                            .iter()
                            .enumerate()
                            .map(|(j, lb)| match lb {
                                LevelBound::Point(e) => LevelBound::Point(move_expr(e, j)),
                                LevelBound::Range { lower, upper } => {
                                    let side =
                                        |s: &Side| Side { expr: move_expr(&s.expr, j), strict: s.strict };
                                    LevelBound::Range {
                                        lower: lower.iter().map(side).collect(),
                                        upper: upper.iter().map(side).collect(),
                                    }
                                }
                            })
                            .collect(),
                    })
                    .collect();
                Piece { minimal, cells }
            })
            .collect();
        QeResult { vars: self.vars.clone(), origin: self.origin.clone(), pieces }
    }
}

/// Cylindrical cells of a convex set, its variables taken in index order
/// (outermost first); empty for an empty set. Library entry point for
/// regions built directly as polyhedra (e.g. a fit's Δc region); takes
/// the engine's own polyhedron, so it is for the crate's benchmarks.
#[doc(hidden)]
pub fn cylindrical_form(p: &Polyhedron) -> Vec<Cell> {
    let m = p.minimize();
    if m.empty {
        return vec![];
    }
    cylinder::cylinder(&Polyhedron::from_minimal(p.dim(), &m))
}

/// Eliminates the quantifiers of `p`.
pub fn solve(p: &Problem, opts: &Options) -> Result<QeResult, QeError> {
    let n = p.vars.len();
    let free = p.formula.free_vars(n);
    // Result variable order.
    let mut order: Vec<VarId> = Vec::new();
    for name in &opts.order {
        let v = p.vars.lookup(name).ok_or_else(|| QeError::UnknownVariable(name.clone()))?;
        if !free.contains(&v) {
            return Err(QeError::NotFree(name.clone()));
        }
        if order.contains(&v) {
            return Err(QeError::Repeated(name.clone()));
        }
        order.push(v);
    }
    for &v in &free {
        if !order.contains(&v) {
            order.push(v);
        }
    }
    let vars = VarTable::from_names(order.iter().map(|&v| p.vars.name(v).to_string()));
    let d = order.len();
    let dnf = eliminate::eliminate(&p.formula, n, &opts.limits)?;
    // Listing the result (vertices, minimal forms, cylindrical form) runs
    // on a budget fixed here, before any enumeration: the same verdict on
    // every machine and at every load, and bounded work however many
    // dimensions the result has. (Elimination has its own limits: pieces
    // and digits.)
    let budget = crate::poly::budget::Budget::new(opts.limits.listing_work());
    let r = crate::poly::budget::within(Some(budget.clone()), || list(dnf, opts, &order, &vars, d));
    if budget.is_spent() {
        // What was built after the budget ran out is not the result.
        return Err(ElimError::TooMuchWork { limit: opts.limits.vertices }.into());
    }
    r
}

/// The pieces of `dnf` minimised, simplified and (unless `no_cells`) in
/// cylindrical form, over the free variables in `order`.
fn list(
    dnf: eliminate::Dnf,
    opts: &Options,
    order: &[VarId],
    vars: &VarTable,
    d: usize,
) -> Result<QeResult, QeError> {
    // Re-index every piece onto the ordered free variables.
    let polys: Vec<Polyhedron> = dnf
        .into_iter()
        .map(|piece| {
            let cons = piece
                .into_iter()
                .map(|c| Constraint::new(order.iter().map(|&v| c.a[v].clone()).collect(), c.kind, c.b))
                .collect();
            Polyhedron::new(d, cons)
        })
        .collect();
    let max = opts.limits.vertices;
    let minimal = simplify(polys, d, max).map_err(|found| {
        if crate::poly::budget::spent() {
            ElimError::TooMuchWork { limit: max }
        } else {
            ElimError::TooManyVertices { found, limit: max }
        }
    })?;
    // The polygon path (two variables, many rows) is not capped while it runs.
    if let Some(m) = minimal.iter().find(|m| m.generators.vertices.len() > max) {
        return Err(ElimError::TooManyVertices { found: m.generators.vertices.len(), limit: max }.into());
    }
    // Pieces are independent: their cells are found in parallel, in order,
    // on the one budget.
    let budget = crate::poly::budget::current();
    // No budget on the waiting thread: a job rayon steals into the wait
    // (another analysis' work) must not count against this one.
    let pieces = crate::poly::budget::within(None, || {
        minimal
            .into_par_iter()
            .map(|minimal| {
                crate::poly::budget::within(budget.clone(), || {
                    let cells = if opts.no_cells || minimal.is_unconstrained() {
                        vec![]
                    } else {
                        cylinder::cylinder(&Polyhedron::from_minimal(d, &minimal))
                    };
                    Piece { minimal, cells }
                })
            })
            .collect()
    });
    Ok(QeResult { vars: vars.clone(), origin: order.to_vec(), pieces })
}

/// Minimises every piece, drops empty and subsumed ones, merges pieces that
/// differ in one complementary constraint, and collapses to `true` when a
/// piece is the whole space. `Err(count)` when enumerating a piece's
/// vertices passes `max_vertices`.
fn simplify(polys: Vec<Polyhedron>, d: usize, max_vertices: usize) -> Result<Vec<Minimal>, usize> {
    // Each piece is minimised once; the polyhedron kept beside it is its
    // minimal form (with generators) for the containment tests.
    let minimal = |p: &Polyhedron| -> Result<Option<(Polyhedron, Minimal)>, usize> {
        let m = p.minimize_capped(max_vertices)?;
        Ok((!m.empty).then(|| (Polyhedron::from_minimal(d, &m), m)))
    };
    let mut ps: Vec<(Polyhedron, Minimal)> = Vec::new();
    for p in &polys {
        let Some(q) = minimal(p)? else { continue };
        if q.0.constraints().is_empty() {
            return Ok(vec![q.1]);
        }
        ps.push(q);
    }
    loop {
        // One piece: nothing to subsume or merge (and no rows to number).
        if ps.len() < 2 {
            return Ok(ps.into_iter().map(|(_, m)| m).collect());
        }
        let mut changed = false;
        let rows = Rows::new(&ps);
        // Subsumption. Pieces that a `!=` or an `or` split apart (`x < 3`,
        // `x > 3`) are disjoint by two of their rows, and a non-empty piece
        // is then not inside the other: no LP needed.
        let mut alive = vec![true; ps.len()];
        for i in 0..ps.len() {
            let sub = (0..ps.len()).any(|j| {
                j != i
                    && alive[j]
                    && !rows.disjoint(i, j)
                    && ps[i].0.is_subset_of(&ps[j].0)
                    && (j < i || !ps[j].0.is_subset_of(&ps[i].0))
            });
            if sub {
                alive[i] = false;
                changed = true;
            }
        }
        // Complementary merge: S ∪ {c} and S ∪ {not c} become S. Every
        // pair is looked at once per pass; a merged piece waits for the next.
        let mut merged: Vec<(Polyhedron, Minimal)> = Vec::new();
        for i in 0..ps.len() {
            if !alive[i] {
                continue;
            }
            for j in i + 1..ps.len() {
                if !alive[j] {
                    continue;
                }
                if let Some(common) = rows.complementary(i, j) {
                    let Some(q) = minimal(&Polyhedron::new(d, common))? else { continue };
                    if q.0.constraints().is_empty() {
                        return Ok(vec![q.1]);
                    }
                    alive[i] = false;
                    alive[j] = false;
                    changed = true;
                    merged.push(q);
                    break;
                }
            }
        }
        let mut next: Vec<(Polyhedron, Minimal)> =
            ps.into_iter().zip(alive).filter(|(_, a)| *a).map(|(p, _)| p).collect();
        next.extend(merged);
        ps = next;
        if !changed {
            return Ok(ps.into_iter().map(|(_, m)| m).collect());
        }
    }
}

/// The pieces' rows, normalised and numbered once per simplification pass,
/// so that pairs of pieces are compared by integers: a thousand pieces are
/// half a million pairs.
struct Rows {
    /// Every distinct normalised row.
    table: Vec<Constraint>,
    /// Per piece: its row numbers, sorted.
    piece: Vec<Vec<usize>>,
    /// Per piece: (direction number, row number), sorted.
    by_dir: Vec<Vec<(usize, usize)>>,
    /// Per row: the number of its direction `a`, and of `−a`.
    dir: Vec<(usize, usize)>,
    /// Per row: the number of its complement (`a·x ≤ b` ↔ `−a·x < −b`),
    /// when that is one row.
    complement: Vec<Option<usize>>,
}

impl Rows {
    fn new(ps: &[(Polyhedron, Minimal)]) -> Rows {
        use std::collections::HashMap;
        let mut ids: HashMap<Constraint, usize> = HashMap::new();
        let mut dirs: HashMap<Vec<Rat>, usize> = HashMap::new();
        let mut table: Vec<Constraint> = Vec::new();
        let mut intern = |c: Constraint, table: &mut Vec<Constraint>| -> usize {
            let n = ids.len();
            *ids.entry(c.clone()).or_insert_with(|| {
                table.push(c);
                n
            })
        };
        let mut piece = Vec::with_capacity(ps.len());
        for (p, _) in ps {
            let mut r: Vec<usize> =
                p.constraints().iter().map(|c| intern(c.normalized(), &mut table)).collect();
            r.sort_unstable();
            r.dedup();
            piece.push(r);
        }
        // Complements of the rows seen (interned too, so that equal rows
        // get equal numbers), then directions.
        let seen = table.len();
        let mut complement = Vec::with_capacity(seen);
        for k in 0..seen {
            let neg = table[k].negated();
            complement.push(match <[Constraint; 1]>::try_from(neg) {
                Ok([c]) => Some(intern(c.normalized(), &mut table)),
                Err(_) => None,
            });
        }
        let mut dir_of = |a: &[Rat]| {
            let n = dirs.len();
            *dirs.entry(a.to_vec()).or_insert(n)
        };
        let dir: Vec<(usize, usize)> = table[..seen]
            .iter()
            .map(|c| {
                let neg: Vec<Rat> = c.a.iter().map(|v| -v).collect();
                (dir_of(&c.a), dir_of(&neg))
            })
            .collect();
        let by_dir = piece
            .iter()
            .map(|r| {
                let mut v: Vec<(usize, usize)> = r.iter().map(|&k| (dir[k].0, k)).collect();
                v.sort_unstable();
                v
            })
            .collect();
        Rows { table, piece, by_dir, dir, complement }
    }

    /// True when pieces `i` and `j` hold a pair of rows that no point meets:
    /// `a·x ≤ b₁` (or `<`) and `−a·x ≤ b₂` with `−b₂ > b₁`, or `−b₂ = b₁`
    /// and one of them strict.
    fn disjoint(&self, i: usize, j: usize) -> bool {
        let q = &self.by_dir[j];
        self.piece[i].iter().any(|&k| {
            let c = &self.table[k];
            if c.kind == Kind::Eq || c.is_trivial() {
                return false;
            }
            let want = self.dir[k].1;
            let from = q.partition_point(|&(d, _)| d < want);
            q[from..].iter().take_while(|&&(d, _)| d == want).any(|&(_, m)| {
                let e = &self.table[m];
                if e.kind == Kind::Eq {
                    return false;
                }
                let lo = -e.b.clone();
                lo > c.b || (lo == c.b && (c.kind == Kind::Lt || e.kind == Kind::Lt))
            })
        })
    }

    /// The common rows of pieces `i` and `j` when they differ in exactly one
    /// row each and those two rows are complements.
    fn complementary(&self, i: usize, j: usize) -> Option<Vec<Constraint>> {
        let (a, b) = (&self.piece[i], &self.piece[j]);
        if a.len() != b.len() {
            return None;
        }
        let (mut x, mut y) = (0, 0);
        let (mut only_a, mut only_b) = (None, None);
        while x < a.len() || y < b.len() {
            match (a.get(x), b.get(y)) {
                (Some(p), Some(q)) if p == q => {
                    x += 1;
                    y += 1;
                }
                (Some(p), q) if q.is_none_or(|q| p < q) => {
                    if only_a.replace(*p).is_some() {
                        return None;
                    }
                    x += 1;
                }
                (_, Some(q)) => {
                    if only_b.replace(*q).is_some() {
                        return None;
                    }
                    y += 1;
                }
                _ => return None,
            }
        }
        let (p, q) = (only_a?, only_b?);
        (self.complement[p] == Some(q))
            .then(|| a.iter().filter(|&&k| k != p).map(|&k| self.table[k].clone()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::{frac, int};

    /// Points in a cell: all of its level constraints hold.
    fn in_cells(cells: &[Cell], d: usize, x: &[Rat]) -> bool {
        cells.iter().any(|c| c.constraints(d).iter().all(|k| k.holds_at(x)))
    }

    #[test]
    fn three_variable_cylinder_describes_the_set_exactly() {
        // |c0 + c1 x + c2 x^2 - y_i| <= 1/20 for 120 noisy points: a 3-D
        // polytope with many facets (the narrowed, parallel path).
        let cons = crate::testdata::residual_rows(120, 3, frac(1, 20), Some((99, 100_000)));
        let p = Polyhedron::new(3, cons);
        let cells = cylindrical_form(&p);
        assert!(cells.len() > 3);
        let verts = p.generators().vertices;
        assert!(verts.len() > 8);
        // Vertices, midpoints of vertex pairs (on faces or inside), and points
        // pushed slightly outside along each coordinate.
        let mut pts: Vec<Vec<Rat>> = verts.clone();
        for (i, a) in verts.iter().enumerate().step_by(3) {
            for b in verts.iter().skip(i + 1).step_by(5) {
                pts.push(a.iter().zip(b).map(|(u, v)| (u + v) / int(2)).collect());
            }
        }
        for v in verts.iter().step_by(4) {
            for j in 0..3 {
                for s in [frac(1, 1_000_000_000), frac(-1, 1_000_000_000)] {
                    let mut q = v.clone();
                    q[j] += &s;
                    pts.push(q);
                }
            }
        }
        for x in &pts {
            assert_eq!(in_cells(&cells, 3, x), p.contains(x), "disagree at {x:?}");
        }
    }

    #[test]
    fn shifting_a_result_moves_constraints_generators_and_cells_together() {
        let src = "exists e: e <= 1/2 and -e <= x + 2*y - 3 <= e and -1 <= x - y <= 4 and y >= -2";
        let p = parse_problem(src, "t.qe").unwrap();
        let r = solve(&p, &Options { order: vec!["y".into(), "x".into()], ..Default::default() }).unwrap();
        let shift = [frac(7, 3), int(-5)];
        let s = r.shifted(&shift);
        let d = r.vars.len();
        for a in -8..8 {
            for b in -8..8 {
                let y = [frac(a, 2), frac(b, 3)];
                let x: Vec<Rat> = y.iter().zip(&shift).map(|(u, t)| u + t).collect();
                assert_eq!(s.holds_at(&y), r.holds_at(&x));
                let cells = &s.pieces[0].cells;
                assert_eq!(in_cells(cells, d, &y), r.holds_at(&x), "cells at {y:?}");
            }
        }
        for (v, w) in
            s.pieces[0].minimal.generators.vertices.iter().zip(&r.pieces[0].minimal.generators.vertices)
        {
            assert_eq!(&(&v[0] + &shift[0]), &w[0]);
        }
    }
}
