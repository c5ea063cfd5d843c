//! Quantifier elimination by disjunctive normal form and exact projection.
//!
//! A quantifier-free formula becomes a union of convex pieces (conjunctions
//! of `<=`, `<`, `=` constraints; `!=` splits into `<` or `>`). `exists`
//! projects every piece (Fourier–Motzkin with exact redundancy removal in
//! [`crate::poly`]); `forall x: F` is `not exists x: not F`. Empty pieces are
//! dropped as soon as they appear, so conjunctions of disjunctions stay small.

use super::formula::{Atom, Formula, Rel};
use crate::limits::Limits;
use crate::linear::{Constraint, Kind, VarId};
use crate::num::Rat;
use crate::poly::Polyhedron;
use num_traits::{Signed, Zero};

/// Why elimination stopped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ElimError {
    /// The disjunctive normal form grew past [`Limits::pieces`].
    #[error(
        "the formula's disjunctive normal form has more than {0} convex pieces (a conjunction of disjunctions has up to the product of their sizes; raise the limit with --max-pieces)"
    )]
    TooManyPieces(usize),
    /// A coefficient grew past [`Limits::number_digits`].
    #[error("a coefficient formed during elimination has about {digits} digits (limit {limit}; raise it with --max-number-digits)")]
    TooManyDigits {
        /// Its size in decimal digits (numerator plus denominator, rounded up).
        digits: u64,
        /// The limit in force.
        limit: usize,
    },
    /// Enumerating a piece's vertices passed [`Limits::vertices`].
    #[error("enumerating the vertices of a piece of the result reached {found} (limit {limit}; raise it with --max-vertices)")]
    TooManyVertices {
        /// How many were enumerated when it stopped.
        found: usize,
        /// The limit in force.
        limit: usize,
    },
    /// Listing the result (its pieces' vertices and cylindrical form)
    /// needed more work than [`Limits::vertices`] allows
    /// ([`Limits::listing_work`]), as in many dimensions, where the number
    /// of vertices and cells can grow exponentially.
    #[error("listing the result (vertices and cylindrical form) needs more work than --max-vertices {limit} allows (in many variables this work grows exponentially; raise it with --max-vertices)")]
    TooMuchWork {
        /// The limit in force.
        limit: usize,
    },
}

/// Fails when a coefficient or constant of `cons` is larger than
/// `limits` allows: run on the atoms and on every projection's result (and
/// within a projection after each Fourier–Motzkin step), so growth is
/// stopped before it compounds.
pub(crate) fn check_digits(cons: &[Constraint], limits: &Limits) -> Result<(), ElimError> {
    let max = limits.number_bits();
    let size = |r: &Rat| r.numer().bits() + r.denom().bits();
    let worst =
        cons.iter().flat_map(|c| c.a.iter().chain(std::iter::once(&c.b))).map(size).max().unwrap_or(0);
    if worst > max {
        return Err(too_many_digits(worst, limits));
    }
    Ok(())
}

fn too_many_digits(bits: u64, limits: &Limits) -> ElimError {
    ElimError::TooManyDigits { digits: Limits::digits_of_bits(bits), limit: limits.number_digits }
}

/// A union of convex pieces over `n` variables.
pub(crate) type Dnf = Vec<Vec<Constraint>>;

fn atom_pieces(a: &Atom) -> Dnf {
    match a.to_constraint() {
        Some(c) => {
            if c.is_trivial() {
                return if c.trivial_truth() { vec![vec![]] } else { vec![] };
            }
            vec![vec![c]]
        }
        None => {
            let lt = Atom { expr: a.expr.clone(), rel: Rel::Lt }.to_constraint();
            let gt = Atom { expr: a.expr.clone(), rel: Rel::Gt }.to_constraint();
            [lt, gt].into_iter().flatten().map(|c| vec![c]).filter(|p| !trivially_false(p)).collect()
        }
    }
}

fn trivially_false(p: &[Constraint]) -> bool {
    p.iter().any(|c| c.is_trivial() && !c.trivial_truth())
}

/// Pieces up to which [`prune`] decides emptiness exactly (one LP each);
/// above it only rows that contradict each other are looked for, and the
/// remaining empty pieces go when the result is minimised. Thousands of LPs
/// between two steps of a long conjunction cost more than they save.
const PRUNE_BY_LP: usize = 4000;

/// Drops empty pieces and constraints without variables that hold.
fn prune(d: Dnf, n: usize) -> Dnf {
    let by_lp = d.len() <= PRUNE_BY_LP;
    d.into_iter()
        .filter_map(|p| {
            if trivially_false(&p) {
                return None;
            }
            let p: Vec<Constraint> = p.into_iter().filter(|c| !c.is_trivial()).collect();
            let empty =
                if by_lp { p.len() > 1 && Polyhedron::new(n, p.clone()).is_empty() } else { opposed(&p) };
            (!empty).then_some(p)
        })
        .collect()
}

/// Two rows of one piece that no point meets: `a·x ≤ b₁` and `a·x ≥ b₂`
/// (written `−a·x ≤ −b₂`) with `b₂ > b₁`, or equal and one strict. Rows
/// are compared after scaling by the first non-zero coefficient.
fn opposed(p: &[Constraint]) -> bool {
    let lead = |c: &Constraint| c.a.iter().find(|v| !v.is_zero()).cloned();
    p.iter().enumerate().any(|(i, c)| {
        let Some(lc) = lead(c) else { return false };
        p[i + 1..].iter().any(|e| {
            let Some(le) = lead(e) else { return false };
            if c.kind == Kind::Eq || e.kind == Kind::Eq || lc.is_positive() == le.is_positive() {
                return false;
            }
            // e scaled to c's direction: k = −lc / le > 0.
            let k = -(&lc / &le);
            if !c.a.iter().zip(&e.a).all(|(x, y)| *x == -(y * &k)) {
                return false;
            }
            let lo = -(&e.b * &k);
            lo > c.b || (lo == c.b && (c.kind == Kind::Lt || e.kind == Kind::Lt))
        })
    })
}

/// Canonical pieces (normalised, sorted, duplicates removed) without the
/// pieces whose constraints include all of another piece's (they are
/// contained in it).
fn tidy(d: Dnf) -> Dnf {
    let mut ps: Vec<Vec<Constraint>> = d
        .into_iter()
        .map(|p| {
            let mut q: Vec<Constraint> = p.iter().map(Constraint::normalized).collect();
            q.sort_by(|a, b| a.a.cmp(&b.a).then_with(|| a.b.cmp(&b.b)).then_with(|| a.kind.cmp(&b.kind)));
            q.dedup();
            q
        })
        .collect();
    ps.sort_by_key(Vec::len);
    ps.dedup();
    if ps.len() > 4000 {
        return ps;
    }
    let mut kept: Vec<Vec<Constraint>> = Vec::with_capacity(ps.len());
    for p in ps {
        if !kept.iter().any(|k| k.iter().all(|c| p.contains(c))) {
            kept.push(p);
        }
    }
    kept
}

fn and(a: Dnf, b: Dnf, n: usize, lim: &Limits) -> Result<Dnf, ElimError> {
    // Counted before it is built: the product of two unions has up to
    // |a|·|b| pieces.
    if a.len().saturating_mul(b.len()) > lim.pieces {
        return Err(ElimError::TooManyPieces(lim.pieces));
    }
    // The common case, a long conjunction of atoms, extends one piece in
    // place: no piece is copied, so `and` of m atoms costs O(m), not O(m²).
    if a.len() == 1 && b.len() == 1 {
        let mut a = a;
        if let (Some(p), Some(q)) = (a.first_mut(), b.into_iter().next()) {
            p.extend(q);
        }
        return Ok(a);
    }
    let mut out = Vec::new();
    for p in &a {
        for q in &b {
            let mut r = p.clone();
            r.extend(q.iter().cloned());
            out.push(r);
        }
    }
    // A conjunction of single pieces stays one piece; its emptiness is
    // decided once, when it is projected or simplified.
    let out = if out.len() > 1 { tidy(prune(out, n)) } else { out };
    if out.len() > lim.pieces {
        return Err(ElimError::TooManyPieces(lim.pieces));
    }
    Ok(out)
}

/// `not (P_1 or ... or P_k)` = `and_j (or_{c in P_j} not c)`.
fn complement(d: Dnf, n: usize, lim: &Limits) -> Result<Dnf, ElimError> {
    let mut acc: Dnf = vec![vec![]];
    for p in d {
        let mut alt: Dnf = Vec::new();
        for c in &p {
            alt.extend(c.negated().into_iter().map(|k| vec![k]));
        }
        acc = and(acc, alt, n, lim)?;
        if acc.is_empty() {
            break;
        }
    }
    Ok(acc)
}

/// Removes `vars` from every piece by exact projection (result still over `n` variables).
fn project_out(d: Dnf, vars: &[VarId], n: usize, lim: &Limits) -> Result<Dnf, ElimError> {
    let keep: Vec<VarId> = (0..n).filter(|v| !vars.contains(v)).collect();
    let mut out = Vec::new();
    for p in d {
        if p.iter().all(|c| vars.iter().all(|&v| c.a[v] == Rat::from_integer(0.into()))) {
            out.push(p);
            continue;
        }
        let proj = Polyhedron::new(n, p)
            .project_checked(&keep, lim.number_bits())
            .map_err(|bits| too_many_digits(bits, lim))?;
        check_digits(proj.constraints(), lim)?;
        let lifted: Vec<Constraint> = proj
            .constraints()
            .iter()
            .map(|c| {
                let mut a = vec![Rat::from_integer(0.into()); n];
                for (k, &v) in keep.iter().enumerate() {
                    a[v] = c.a[k].clone();
                }
                Constraint::new(a, c.kind, c.b.clone())
            })
            .collect();
        out.push(lifted);
    }
    // A single piece's emptiness is decided later, when it is minimised.
    Ok(if out.len() > 1 { tidy(prune(out, n)) } else { out })
}

/// Negation normal form: `not` pushed down to the atoms (whose relation it
/// flips), `implies` rewritten, `not exists` turned into `forall not` and
/// back. Negating a formula is then free; negating an expanded DNF (a
/// product over all its pieces) is left for the one place it cannot be
/// avoided: after projection under `forall`.
pub(crate) fn nnf(f: &Formula, negate: bool) -> Formula {
    match (f, negate) {
        (Formula::True, false) | (Formula::False, true) => Formula::True,
        (Formula::True, true) | (Formula::False, false) => Formula::False,
        (Formula::Atom(a), false) => Formula::Atom(a.clone()),
        (Formula::Atom(a), true) => Formula::Atom(Atom { expr: a.expr.clone(), rel: a.rel.negate() }),
        (Formula::And(fs), false) | (Formula::Or(fs), true) => {
            Formula::And(fs.iter().map(|g| nnf(g, negate)).collect())
        }
        (Formula::Or(fs), false) | (Formula::And(fs), true) => {
            Formula::Or(fs.iter().map(|g| nnf(g, negate)).collect())
        }
        (Formula::Not(g), _) => nnf(g, !negate),
        (Formula::Implies(a, b), false) => Formula::Or(vec![nnf(a, true), nnf(b, false)]),
        (Formula::Implies(a, b), true) => Formula::And(vec![nnf(a, false), nnf(b, true)]),
        (Formula::Exists(vs, g), false) | (Formula::Forall(vs, g), true) => {
            Formula::Exists(vs.clone(), Box::new(nnf(g, negate)))
        }
        (Formula::Forall(vs, g), false) | (Formula::Exists(vs, g), true) => {
            Formula::Forall(vs.clone(), Box::new(nnf(g, negate)))
        }
    }
}

/// Eliminates all quantifiers; the result is a union of convex pieces in the
/// free variables (still indexed over all `n` variables).
pub(crate) fn eliminate(f: &Formula, n: usize, lim: &Limits) -> Result<Dnf, ElimError> {
    eliminate_nnf(&nnf(f, false), n, lim)
}

fn eliminate_nnf(f: &Formula, n: usize, lim: &Limits) -> Result<Dnf, ElimError> {
    let eliminate = |g: &Formula, n: usize| eliminate_nnf(g, n, lim);
    Ok(match f {
        Formula::True => vec![vec![]],
        Formula::False => vec![],
        Formula::Atom(a) => {
            let pieces = atom_pieces(a);
            for p in &pieces {
                check_digits(p, lim)?;
            }
            pieces
        }
        Formula::And(fs) => {
            // Counted before anything is built: a conjunction of unions has
            // up to the product of their sizes in pieces (ten `(x_i <= 0 or
            // x_i >= 1)` make 1024; twenty, a million).
            let mut parts = Vec::with_capacity(fs.len());
            let mut bound: usize = 1;
            for g in fs {
                let part = eliminate(g, n)?;
                if part.is_empty() {
                    return Ok(vec![]);
                }
                bound = bound.saturating_mul(part.len());
                if bound > lim.pieces {
                    return Err(ElimError::TooManyPieces(lim.pieces));
                }
                parts.push(part);
            }
            let mut acc: Dnf = vec![vec![]];
            for part in parts {
                acc = and(acc, part, n, lim)?;
                if acc.is_empty() {
                    break;
                }
            }
            acc
        }
        Formula::Or(fs) => {
            let mut acc = Vec::new();
            for g in fs {
                acc.extend(eliminate(g, n)?);
                if acc.len() > lim.pieces {
                    return Err(ElimError::TooManyPieces(lim.pieces));
                }
            }
            acc
        }
        Formula::Not(g) => complement(eliminate(g, n)?, n, lim)?,
        Formula::Implies(a, b) => {
            let mut na = complement(eliminate(a, n)?, n, lim)?;
            na.extend(eliminate(b, n)?);
            na
        }
        Formula::Exists(vs, g) => project_out(eliminate(g, n)?, vs, n, lim)?,
        Formula::Forall(vs, g) => {
            // forall v: g  =  not exists v: not g, with `not g` in NNF.
            let not_g = eliminate(&nnf(g, true), n)?;
            complement(project_out(not_g, vs, n, lim)?, n, lim)?
        }
    })
}
