//! Exact simplex for the inequality form `max c·x  s.t.  a_i·x <= b_i`,
//! `a_i·x = b_i`, with few variables and (after constraint generation) a
//! moderate number of rows.
//!
//! A basis is a set of `n` linearly independent rows; its vertex is where they
//! are tight and its dual multipliers solve `A_B^T y = c`. Primal simplex on
//! this form moves from vertex to vertex. Dantzig's rule is used until the
//! first degenerate pivot and Bland's smallest-index rule from then on, so the
//! method never cycles (degenerate vertices are the normal case for residual
//! systems). All arithmetic is exact.

use super::filter::{all_satisfied, FloatRows};
use crate::linear::{Constraint, Kind};
use crate::num::int_dot as idot;
use crate::num::Rat;
use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};

/// One row `a·x <= b` (or `= b` for an equality). Rows are the crate's
/// [`Constraint`]s; a strict row is treated as its closure here.
pub(crate) type Row = Constraint;

/// A row `a·x <= b`, or `a·x = b` when `eq`.
pub(crate) fn row_of(a: Vec<Rat>, b: Rat, eq: bool) -> Row {
    Constraint::new(a, if eq { Kind::Eq } else { Kind::Le }, b)
}

/// Result of the exact solve on a row set.
#[derive(Debug, Clone)]
pub(crate) enum Solved {
    /// Optimal vertex `x` with multipliers `y` (one per row; zero off basis).
    Optimal { x: Vec<Rat>, y: Vec<Rat>, basis: Vec<usize> },
    /// Feasible point `x` and ray `d` with `a_i·d <= 0` (`= 0` on equalities) and `c·d > 0`.
    Unbounded { x: Vec<Rat>, d: Vec<Rat> },
    /// Farkas multipliers: `y >= 0` on inequalities, `Σ y_i a_i = 0`, `Σ y_i b_i < 0`.
    Infeasible { y: Vec<Rat> },
}

fn dot(a: &[Rat], x: &[Rat]) -> Rat {
    let mut s = Rat::zero();
    for (p, q) in a.iter().zip(x) {
        if !p.is_zero() && !q.is_zero() {
            s += p * q;
        }
    }
    s
}

/// A basis kept fraction-free: over the integer rows `a'_i = s_i a_i`
/// ([`IntRow`]), `cols` are the columns of the adjugate of `A'_B` and `det`
/// its determinant (made positive), so `A'_B^{-1} = cols / det`. Every entry
/// is a minor of the basis rows: pivots update them with one exact division
/// (Bareiss), and no gcd is taken until a value leaves the simplex. The
/// rational version reduced every entry at every pivot, which dominated
/// LPs over long rows (a degree-14 fit spent 80 % of its run there).
struct Basis {
    rows: Vec<usize>,
    cols: Vec<Vec<BigInt>>,
    det: BigInt,
}

impl Basis {
    /// The adjugate and determinant of the given rows' matrix by
    /// fraction-free Gauss–Jordan on `[A | I]`: after eliminating column
    /// `c`, every diagonal entry so far equals that step's pivot, so the end
    /// is `[δ I | δ A^{-1}]` with every division exact. `None` if singular.
    fn new(rows: Vec<usize>, all: &[Row], fr: &FloatRows, n: usize) -> Option<Basis> {
        if n == 2 || n == 3 {
            return Basis::by_cofactors(rows, all, fr, n);
        }
        Basis::by_elimination(rows, all, fr, n)
    }

    /// [`Basis::new`] by elimination, for any size.
    fn by_elimination(rows: Vec<usize>, all: &[Row], fr: &FloatRows, n: usize) -> Option<Basis> {
        let mut m: Vec<Vec<BigInt>> = rows
            .iter()
            .enumerate()
            .map(|(i, &r)| {
                let mut v = fr.int(r, &all[r]).a.clone();
                v.extend((0..n).map(|j| BigInt::from(u8::from(i == j))));
                v
            })
            .collect();
        let mut prev = BigInt::one();
        for col in 0..n {
            let piv = (col..n).find(|&r| !m[r][col].is_zero())?;
            m.swap(col, piv);
            let (p, pivot_row) = (m[col][col].clone(), m[col].clone());
            for (r, row) in m.iter_mut().enumerate() {
                if r == col {
                    continue;
                }
                let f = std::mem::take(&mut row[col]);
                for (j, (v, w)) in row.iter_mut().zip(&pivot_row).enumerate() {
                    if j == col {
                        continue;
                    }
                    let t = if f.is_zero() { &p * &*v } else { &p * &*v - &f * w };
                    *v = if prev.is_one() { t } else { t / &prev };
                }
            }
            prev = p;
        }
        let sign = if prev.is_negative() { -BigInt::one() } else { BigInt::one() };
        let cols = (0..n).map(|j| (0..n).map(|i| &m[i][n + j] * &sign).collect()).collect();
        Some(Basis { rows, cols, det: prev * sign })
    }

    /// [`Basis::new`] for two or three rows, by the adjugate's cofactor
    /// formulas: products of entries and no division (half of a family's
    /// small LPs went to the elimination's divisions and its copies).
    fn by_cofactors(rows: Vec<usize>, all: &[Row], fr: &FloatRows, n: usize) -> Option<Basis> {
        let a: Vec<&[BigInt]> = rows.iter().map(|&r| fr.int(r, &all[r]).a.as_slice()).collect();
        // adj[i][j] = (−1)^(i+j) · minor(j, i); cols[j][i] = adj[i][j].
        let (mut cols, det) = if n == 2 {
            let cols = vec![vec![a[1][1].clone(), -&a[1][0]], vec![-&a[0][1], a[0][0].clone()]];
            let det = &a[0][0] * &a[1][1] - &a[0][1] * &a[1][0];
            (cols, det)
        } else {
            // The 2×2 minor of rows r0 < r1 and columns c0 < c1.
            let m = |r0: usize, r1: usize, c0: usize, c1: usize| {
                &a[r0][c0] * &a[r1][c1] - &a[r0][c1] * &a[r1][c0]
            };
            // Cofactor C[j][i] (row j, column i deleted), signed.
            let other = |x: usize| match x {
                0 => (1, 2),
                1 => (0, 2),
                _ => (0, 1),
            };
            let cof = |j: usize, i: usize| {
                let ((r0, r1), (c0, c1)) = (other(j), other(i));
                let v = m(r0, r1, c0, c1);
                if (i + j) % 2 == 1 {
                    -v
                } else {
                    v
                }
            };
            let cols: Vec<Vec<BigInt>> = (0..3).map(|j| (0..3).map(|i| cof(j, i)).collect()).collect();
            // det = Σ_i a[0][i]·C[0][i], and C[0][i] = cols[0][i].
            let det = (0..3).map(|i| &a[0][i] * &cols[0][i]).sum::<BigInt>();
            (cols, det)
        };
        if det.is_zero() {
            return None;
        }
        let det = if det.is_negative() {
            for v in cols.iter_mut().flatten() {
                *v = -std::mem::take(v);
            }
            -det
        } else {
            det
        };
        Some(Basis { rows, cols, det })
    }

    /// The numerators `X` of the vertex `x = X / det` over the integer rows.
    fn vertex_numer(&self, all: &[Row], fr: &FloatRows, n: usize) -> Vec<BigInt> {
        let mut x = vec![BigInt::zero(); n];
        for (k, &r) in self.rows.iter().enumerate() {
            let b = &fr.int(r, &all[r]).b;
            if b.is_zero() {
                continue;
            }
            for (xi, ci) in x.iter_mut().zip(&self.cols[k]) {
                if !ci.is_zero() {
                    *xi += ci * b;
                }
            }
        }
        x
    }

    /// The vertex, each coordinate reduced once.
    fn vertex(&self, all: &[Row], fr: &FloatRows, n: usize) -> Vec<Rat> {
        self.vertex_numer(all, fr, n).into_iter().map(|x| crate::num::reduced(x, self.det.clone())).collect()
    }

    /// The vertex over the common denominator `det`, unreduced: for a
    /// feasibility check only (the exact signs take any form), where the
    /// reductions were gcds of long numbers that nothing used.
    fn vertex_unreduced(&self, all: &[Row], fr: &FloatRows, n: usize) -> Vec<Rat> {
        self.vertex_numer(all, fr, n).into_iter().map(|x| Rat::new_raw(x, self.det.clone())).collect()
    }

    /// The multipliers of the *given* rows, `A_B^T y_B = c`: over the
    /// integer rows they are `c·cols_k / det`, and row `k`'s own multiplier
    /// is `s_k` times that.
    fn duals(&self, c: &Objective, all: &[Row], fr: &FloatRows) -> Vec<Rat> {
        self.dual_keys(c, all, fr)
            .into_iter()
            .map(|key| crate::num::reduced(key, &c.scale * &self.det))
            .collect()
    }

    /// `y_k · det · L` as integers (`L > 0` is the objective's scale): the
    /// multipliers' signs and order without a division.
    fn dual_keys(&self, c: &Objective, all: &[Row], fr: &FloatRows) -> Vec<BigInt> {
        self.cols.iter().zip(&self.rows).map(|(col, &r)| idot(&c.int, col) * &fr.int(r, &all[r]).s).collect()
    }

    /// `a'·cols[k]` for the integer row `a'`, whose sign is that of `a·A_B^{-1} e_k`.
    fn along(&self, a: &[BigInt], k: usize) -> BigInt {
        idot(a, &self.cols[k])
    }

    /// Replaces basis position `k` by row `i` (whose `a_i·cols[k]` is
    /// nonzero): `cols_j ← (α cols_j − (a·cols_j) cols_k) / det` with
    /// `α = a·cols_k`, the new determinant (Bareiss's exact division).
    fn pivot(&mut self, k: usize, i: usize, a: &[BigInt]) {
        let alpha = idot(a, &self.cols[k]);
        let ck = self.cols[k].clone();
        for (j, col) in self.cols.iter_mut().enumerate() {
            if j == k {
                continue;
            }
            let f = idot(a, col);
            for (v, w) in col.iter_mut().zip(&ck) {
                let t = if f.is_zero() || w.is_zero() { &alpha * &*v } else { &alpha * &*v - &f * w };
                *v = t / &self.det;
            }
        }
        self.det = alpha;
        if self.det.is_negative() {
            self.det = -std::mem::take(&mut self.det);
            for v in self.cols.iter_mut().flatten() {
                *v = -std::mem::take(v);
            }
        }
        self.rows[k] = i;
    }
}

/// An objective `c` with its integer multiple `int = L c`, `L > 0`.
struct Objective {
    int: Vec<BigInt>,
    scale: BigInt,
}

impl Objective {
    fn new(c: &[Rat]) -> Objective {
        let scale = crate::num::lcm_denoms(c.iter());
        let int = c.iter().map(|x| x.numer() * (&scale / x.denom())).collect();
        Objective { int, scale }
    }
}

/// Picks a basis: rows in `prefer` order (equalities must come first), keeping
/// each that is independent of those already kept. Returns fewer than `n`
/// rows when the row set does not have full column rank. Fraction-free on
/// the integer rows ([`crate::num::echelon::Echelon`]): the rational
/// elimination it replaces reduced every entry, and with the rank test
/// before it took half of an LP's time over a thousand long rows.
pub(crate) fn independent_rows(all: &[Row], fr: &FloatRows, prefer: &[usize], n: usize) -> Vec<usize> {
    let mut echelon = crate::num::echelon::Echelon::default();
    let mut chosen = Vec::with_capacity(n);
    for &r in prefer {
        if chosen.len() == n {
            break;
        }
        if echelon.insert(&fr.int(r, &all[r]).a) {
            chosen.push(r);
        }
    }
    chosen
}

/// A basis of the null space of the rows (vectors `v` with `a_i·v = 0` for all i).
pub(crate) fn null_space(all: &[Row], n: usize) -> Vec<Vec<Rat>> {
    // Full rank, the usual answer (every fit asks), is found fraction-free
    // on the rows brought to integers; the rational echelon form below,
    // a gcd per operation on the basis' long fractions, is only built for
    // the directions of a rank-deficient system.
    let mut ech = crate::num::echelon::Echelon::default();
    for row in all {
        ech.insert(&crate::num::common_denominator_ints(&row.a));
        if ech.rank() == n {
            return Vec::new();
        }
    }
    // Reduced row echelon form of the stacked rows, with cross-cancelled
    // products and quotients (num-rational's operators reduce by binary
    // gcds of the whole operands) and zeros skipped.
    use crate::num::{div, mul, sub_lowest};
    let eliminate = |x: &mut Rat, f: &Rat, y: &Rat| {
        if !y.is_zero() {
            *x = sub_lowest(x, &mul(f, y));
        }
    };
    let mut rref: Vec<Vec<Rat>> = Vec::new();
    let mut pivots: Vec<usize> = Vec::new();
    for row in all {
        let mut v = row.a.clone();
        for (e, &pc) in rref.iter().zip(&pivots) {
            if !v[pc].is_zero() {
                let f = v[pc].clone();
                for (x, y) in v.iter_mut().zip(e) {
                    eliminate(x, &f, y);
                }
            }
        }
        if let Some(pc) = v.iter().position(|x| !x.is_zero()) {
            let p = v[pc].clone();
            for x in v.iter_mut() {
                *x = div(x, &p);
            }
            for e in rref.iter_mut() {
                if !e[pc].is_zero() {
                    let f = e[pc].clone();
                    for (x, y) in e.iter_mut().zip(&v) {
                        eliminate(x, &f, y);
                    }
                }
            }
            rref.push(v);
            pivots.push(pc);
            if pivots.len() == n {
                return Vec::new();
            }
        }
    }
    let free: Vec<usize> = (0..n).filter(|c| !pivots.contains(c)).collect();
    free.iter()
        .map(|&fc| {
            let mut v = vec![Rat::zero(); n];
            v[fc] = Rat::from_integer(1.into());
            for (e, &pc) in rref.iter().zip(&pivots) {
                v[pc] = -e[fc].clone();
            }
            v
        })
        .collect()
}

enum Phase2 {
    Optimal(Basis),
    Unbounded(Vec<Rat>, Vec<Rat>),
}

/// Primal simplex from a feasible basis, on the integer rows: the vertex
/// is `X / det` and the direction leaving basis position `k` is `−cols_k`
/// (a positive multiple of the rational one), so every ratio is a quotient
/// of two integers and the ratio test compares by cross-multiplication.
/// The pivot sequence is the rational method's: the same multipliers' order
/// (Dantzig's rule compares `s_k c·cols_k`, proportional to `y_k`), the
/// same step lengths up to one positive factor, the same ties.
fn phase2(all: &[Row], fl: &FloatRows, c: &Objective, mut basis: Basis, n: usize) -> Phase2 {
    let mut bland = false;
    let mut in_basis = vec![false; all.len()];
    for &r in &basis.rows {
        in_basis[r] = true;
    }
    loop {
        let x = basis.vertex_numer(all, fl, n);
        let y = basis.dual_keys(c, all, fl);
        // Leaving position: an inequality row with a negative multiplier.
        let mut leave: Option<usize> = None;
        for k in 0..n {
            let r = basis.rows[k];
            if all[r].is_eq() || !y[k].is_negative() {
                continue;
            }
            leave = match leave {
                None => Some(k),
                Some(l) if bland && r < basis.rows[l] => Some(k),
                Some(l) if !bland && y[k] < y[l] => Some(k),
                keep => keep,
            };
        }
        let Some(k) = leave else { return Phase2::Optimal(basis) };
        let d: Vec<BigInt> = basis.cols[k].iter().map(|v| -v).collect();
        // Ratio test over non-basic rows, float-filtered: every row gets an
        // interval [t_lo, t_hi] that surely contains its exact step; only rows
        // whose interval reaches below the smallest t_hi are computed exactly.
        // Steps are in units of `1/det` here; one positive factor for all rows.
        let dshift = (d.iter().map(|v| v.bits()).max().unwrap_or(0) as i64 - 480).max(0);
        let df: Vec<f64> = d.iter().map(|v| crate::num::scaled_f64(v, dshift)).collect();
        let xf: Vec<f64> = x.iter().map(|v| crate::num::ratio_to_f64(v, &basis.det)).collect();
        let mut cands: Vec<(f64, usize)> = Vec::new();
        let mut best_hi = f64::INFINITY;
        for (i, row) in all.iter().enumerate() {
            if in_basis[i] {
                continue;
            }
            let fa = &fl.a[i];
            let (mut alpha, mut amag, mut ax, mut xmag) = (0.0f64, 0.0f64, 0.0f64, fl.b[i].abs());
            for ((a, dv), xv) in fa.iter().zip(&df).zip(&xf) {
                alpha += a * dv;
                amag += (a * dv).abs();
                ax += a * xv;
                xmag += (a * xv).abs();
            }
            let (ea, es) = (amag * 1e-12 + 1e-300, xmag * 1e-12 + 1e-300);
            if !(alpha.is_finite() && ax.is_finite() && amag.is_finite() && xmag.is_finite())
                || alpha.abs() <= ea
            {
                // The filter cannot decide the sign of a·d: exact.
                if idot(&fl.int(i, row).a, &d).is_positive() {
                    cands.push((0.0, i));
                }
                continue;
            }
            if alpha < 0.0 {
                continue;
            }
            let slack = fl.b[i] - ax;
            let t_lo = ((slack - es) / (alpha + ea)).max(0.0);
            let t_hi = (slack + es).max(0.0) / (alpha - ea);
            best_hi = best_hi.min(t_hi);
            cands.push((t_lo, i));
        }
        // The exact step of row i is (b'_i det − a'_i·X) / (a'_i·d) / det.
        let mut best: Option<(BigInt, BigInt, usize)> = None;
        for &(t_lo, i) in &cands {
            if t_lo > best_hi {
                continue;
            }
            let row = fl.int(i, &all[i]);
            let alpha = idot(&row.a, &d);
            if !alpha.is_positive() {
                continue;
            }
            let num = &row.b * &basis.det - idot(&row.a, &x);
            let better = match &best {
                None => true,
                Some((bn, ba, bi)) => match (&num * ba).cmp(&(bn * &alpha)) {
                    std::cmp::Ordering::Less => true,
                    std::cmp::Ordering::Equal => i < *bi,
                    std::cmp::Ordering::Greater => false,
                },
            };
            if better {
                best = Some((num, alpha, i));
            }
        }
        let Some((t, _, i)) = best else {
            // The rational direction is −A_B^{-1} e_k = −s_k cols_k / det.
            let s = &fl.int(basis.rows[k], &all[basis.rows[k]]).s;
            let dir = d.iter().map(|v| crate::num::reduced(v * s, basis.det.clone())).collect();
            return Phase2::Unbounded(basis.vertex(all, fl, n), dir);
        };
        if t.is_zero() {
            bland = true;
        }
        in_basis[basis.rows[k]] = false;
        in_basis[i] = true;
        basis.pivot(k, i, &fl.int(i, &all[i]).a);
    }
}

/// Solves `max c·x` over `all` exactly, starting from a basis built from the
/// rows in `hint` (e.g. rows a float solver found tight).
pub(crate) fn solve(all: &[Row], fr: &FloatRows, c: &[Rat], hint: &[usize]) -> Solved {
    solve_with(all, fr, c, hint, None)
}

/// [`solve`], with a known feasible basis to fall back on when the hint's
/// vertex is infeasible (instead of phase 1). `fr` is the float copy of `all`.
pub(crate) fn solve_with(
    all: &[Row],
    fr: &FloatRows,
    c: &[Rat],
    hint: &[usize],
    feasible: Option<&[usize]>,
) -> Solved {
    let n = c.len();
    let m = all.len();
    // Preferred basis order: equalities (real then artificial), then the
    // hint, then the rest.
    let preferred = |rows: &[Row]| {
        let mut prefer: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].is_eq()).collect();
        let mut seen = vec![false; rows.len()];
        for &p in &prefer {
            seen[p] = true;
        }
        for &h in hint {
            if h < m && !seen[h] {
                seen[h] = true;
                prefer.push(h);
            }
        }
        prefer.extend((0..rows.len()).filter(|&i| !seen[i]));
        prefer
    };
    let b0 = independent_rows(all, fr, &preferred(all), n);
    // A vertex needs n independent rows: without full column rank, the null
    // space joins as artificial equalities (rows are copied only then).
    let null = if b0.len() == n { Vec::new() } else { null_space(all, n) };
    let mut lineal_dir: Option<Vec<Rat>> = None;
    let extended: Option<(Vec<Row>, FloatRows)> = (!null.is_empty()).then(|| {
        let mut rows = all.to_vec();
        let mut fr = fr.clone();
        for v in &null {
            let r = row_of(v.clone(), Rat::zero(), true);
            fr.push(&r);
            rows.push(r);
        }
        (rows, fr)
    });
    for v in &null {
        let s = dot(c, v);
        if !s.is_zero() {
            lineal_dir = Some(if s.is_positive() { v.clone() } else { v.iter().map(|q| -q).collect() });
            break;
        }
    }
    let (rows, fr, b0): (&[Row], &FloatRows, Vec<usize>) = match &extended {
        Some((r, f)) => (r, f, independent_rows(r, f, &preferred(r), n)),
        None => (all, fr, b0),
    };
    // Equalities not in b0 are linear combinations of the kept ones; check
    // their consistency through phase 1 like any other row.
    let Some(basis) = Basis::new(b0.clone(), rows, fr, n) else { unreachable_basis() };
    let x0 = basis.vertex_unreduced(rows, fr, n);
    let feasible_start = all_satisfied(rows, fr, &x0, &b0);
    let fallback = || -> Option<Basis> {
        let f = feasible?;
        if f.len() != n || f.iter().any(|&r| r >= m) {
            return None;
        }
        let b = Basis::new(f.to_vec(), rows, fr, n)?;
        let x = b.vertex_unreduced(rows, fr, n);
        all_satisfied(rows, fr, &x, &[]).then_some(b)
    };
    let basis = if feasible_start {
        basis
    } else if let Some(b) = fallback() {
        b
    } else {
        match phase1(rows, fr, &b0, n) {
            Ok(b) => b,
            Err(y) => {
                let mut y = y;
                y.truncate(m);
                return Solved::Infeasible { y };
            }
        }
    };
    if let Some(d) = lineal_dir {
        return Solved::Unbounded { x: basis.vertex(rows, fr, n), d };
    }
    let c = Objective::new(c);
    match phase2(rows, fr, &c, basis, n) {
        Phase2::Optimal(b) => {
            let x = b.vertex(rows, fr, n);
            let yb = b.duals(&c, rows, fr);
            let mut y = vec![Rat::zero(); m];
            for (k, &r) in b.rows.iter().enumerate() {
                if r < m {
                    y[r] = yb[k].clone();
                }
            }
            let basis = b.rows.iter().copied().filter(|&r| r < m).collect();
            Solved::Optimal { x, y, basis }
        }
        Phase2::Unbounded(x, d) => Solved::Unbounded { x, d },
    }
}

/// The optimal value of `max c·x`, certified at the vertex of the first `n`
/// rows of `hint` (a float proposal, tightest rows first) and at no other:
/// that vertex satisfies every row and the multipliers of its rows are
/// nonnegative, which is an exact proof of optimality (weak duality). Only
/// the value is formed, with one reduction; `None` whenever this quick
/// certificate fails (a singular or infeasible or non-optimal basis, an
/// equality or strict row), and the caller then runs the simplex. For the
/// many small LPs that want a number only (a family's minimax fits), where
/// the full answer's point, multipliers and their reductions cost most.
pub(crate) fn value_at_hint(all: &[Row], fr: &FloatRows, c: &[Rat], hint: &[usize]) -> Option<Rat> {
    let n = c.len();
    if hint.len() < n || all.iter().any(|r| r.kind != Kind::Le) {
        return None;
    }
    let basis = Basis::new(hint[..n].to_vec(), all, fr, n)?;
    // The vertex's numerators once: over `det` for the feasibility check,
    // then for the value.
    let numer = basis.vertex_numer(all, fr, n);
    let x: Vec<Rat> = numer.iter().map(|v| Rat::new_raw(v.clone(), basis.det.clone())).collect();
    if !all_satisfied(all, fr, &x, &basis.rows) {
        return None;
    }
    let c = Objective::new(c);
    if basis.dual_keys(&c, all, fr).iter().any(Signed::is_negative) {
        return None;
    }
    // c·x = (L c)·X / (L det), X the vertex's numerators.
    let numer = idot(&c.int, &numer);
    Some(crate::num::reduced(numer, &c.scale * &basis.det))
}

#[cold]
#[allow(clippy::panic)] // an invariant of the algorithm, not of the input
fn unreachable_basis() -> ! {
    // independent_rows returns n independent rows once the null space is
    // completed, so the matrix is invertible by construction.
    panic!("internal error: basis of independent rows is singular")
}

/// Phase 1: finds a feasible basis, or Farkas multipliers (indexed like `rows`).
///
/// Rows of `b0` stay hard; every other inequality gets the slack variable
/// `t >= 0` (`a_i·x - t <= b_i`); equalities outside `b0` become two such
/// inequalities. Minimising `t` from the vertex of `b0` with `t` at the worst
/// violation either reaches `t = 0` or proves infeasibility.
fn phase1(rows: &[Row], fr: &FloatRows, b0: &[usize], n: usize) -> Result<Basis, Vec<Rat>> {
    let m = rows.len();
    let zero = Rat::zero();
    let one = Rat::from_integer(1.into());
    // Augmented rows over (x, t); remember the original row and its sign.
    let mut aug: Vec<Row> = Vec::new();
    let mut origin: Vec<(usize, bool)> = Vec::new(); // (row, negated)
    for (i, row) in rows.iter().enumerate() {
        let hard = b0.contains(&i);
        let mut a = row.a.clone();
        if hard {
            a.push(zero.clone());
            aug.push(row_of(a, row.b.clone(), row.is_eq()));
            origin.push((i, false));
        } else {
            a.push(-one.clone());
            aug.push(row_of(a, row.b.clone(), false));
            origin.push((i, false));
            if row.is_eq() {
                let mut na: Vec<Rat> = row.a.iter().map(|v| -v).collect();
                na.push(-one.clone());
                aug.push(row_of(na, -row.b.clone(), false));
                origin.push((i, true));
            }
        }
    }
    let t_row = aug.len();
    let mut ta = vec![zero.clone(); n];
    ta.push(-one.clone());
    aug.push(row_of(ta, zero.clone(), false));
    origin.push((usize::MAX, false));

    // Start: the vertex of b0 with t at the worst violation.
    let tmp_b = match Basis::new(b0.to_vec(), rows, fr, n) {
        Some(b) => b,
        None => unreachable_basis(),
    };
    // Violations compared unreduced: only the worst row is wanted.
    let x0 = tmp_b.vertex_unreduced(rows, fr, n);
    let mut worst: Option<(Rat, usize)> = None;
    for (j, row) in aug.iter().enumerate() {
        if j == t_row || b0.contains(&origin[j].0) {
            continue;
        }
        let v = crate::num::affine_unreduced(&-&row.b, &row.a[..n], &x0);
        if worst.as_ref().is_none_or(|(w, _)| crate::num::cmp_unreduced(&v, w).is_gt()) {
            worst = Some((v, j));
        }
    }
    let Some((_, wj)) = worst else { return Ok(tmp_b) };
    let mut start: Vec<usize> =
        b0.iter().map(|&i| origin.iter().position(|o| o.0 == i && !o.1).unwrap_or(0)).collect();
    start.push(wj);
    let afr = FloatRows::new(&aug);
    let basis = match Basis::new(start, &aug, &afr, n + 1) {
        Some(b) => b,
        None => unreachable_basis(),
    };
    let mut c = vec![zero.clone(); n + 1];
    c[n] = -one.clone();
    let c = Objective::new(&c);
    let Phase2::Optimal(opt) = phase2(&aug, &afr, &c, basis, n + 1) else {
        // t >= 0 bounds the objective: phase 1 is never unbounded.
        unreachable_basis()
    };
    let xt = opt.vertex_numer(&aug, &afr, n + 1);
    if xt[n].is_positive() {
        // Farkas multipliers from the phase-1 duals.
        let yb = opt.duals(&c, &aug, &afr);
        let mut y = vec![Rat::zero(); m];
        for (k, &j) in opt.rows.iter().enumerate() {
            let (i, neg) = origin[j];
            if i == usize::MAX {
                continue;
            }
            if neg {
                y[i] -= &yb[k];
            } else {
                y[i] += &yb[k];
            }
        }
        return Err(y);
    }
    // t = 0: drop the t row from the basis (pivoting it in first if needed).
    let mut b = opt;
    if !b.rows.contains(&t_row) {
        let ta = &afr.int(t_row, &aug[t_row]).a;
        let k = (0..=n)
            .find(|&k| {
                !b.along(ta, k).is_zero()
                    && origin[b.rows[k]].0 != usize::MAX
                    && !b0.contains(&origin[b.rows[k]].0)
            })
            .or_else(|| (0..=n).find(|&k| !b.along(ta, k).is_zero()));
        match k {
            Some(k) => b.pivot(k, t_row, ta),
            None => unreachable_basis(),
        }
    }
    let mut rows_x: Vec<usize> = Vec::new();
    for &j in &b.rows {
        if j != t_row {
            rows_x.push(origin[j].0);
        }
    }
    match Basis::new(rows_x, rows, fr, n) {
        Some(bx) => Ok(bx),
        None => unreachable_basis(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::{frac, int};

    fn row(a: &[i64], b: i64) -> Row {
        row_of(a.iter().map(|&v| int(v)).collect(), int(b), false)
    }

    /// `A'_B · cols = det · I` over the integer rows, `det > 0`.
    fn check_adjugate(b: &Basis, rows: &[Row], fr: &FloatRows, n: usize) -> Result<(), String> {
        if !b.det.is_positive() {
            return Err(format!("det {}", b.det));
        }
        for (l, &r) in b.rows.iter().enumerate() {
            for (j, col) in b.cols.iter().enumerate() {
                let want = if l == j { b.det.clone() } else { BigInt::zero() };
                if idot(&fr.int(r, &rows[r]).a, col) != want {
                    return Err(format!("row {l} col {j} of {n}"));
                }
            }
        }
        Ok(())
    }

    proptest::proptest! {
        /// The fraction-free adjugate (Gauss–Jordan with exact division, then
        /// Bareiss pivot updates) stays the exact adjugate of the basis rows,
        /// rows with fractions included, through a sequence of pivots.
        #[test]
        fn adjugate_stays_exact_through_pivots(
            entries in proptest::collection::vec((-9i64..10, 1i64..7), 30),
            big in 0u32..80,
            swaps in proptest::collection::vec((0usize..3, 3usize..6), 0..4),
        ) {
            let n = 3;
            let scale = BigInt::from(3).pow(big) + 1;
            let rows: Vec<Row> = entries
                .chunks(n + 1)
                .take(6)
                .map(|c| {
                    let a = c[..n].iter().map(|&(p, q)| Rat::new(BigInt::from(p) * &scale, BigInt::from(q))).collect();
                    row_of(a, frac(c[n].0, c[n].1), false)
                })
                .collect();
            let fr = FloatRows::new(&rows);
            let Some(mut b) = Basis::new(vec![0, 1, 2], &rows, &fr, n) else {
                // Singular: the rational rank agrees.
                proptest::prop_assert!(independent_rows(&rows, &fr, &[0, 1, 2], n).len() < n);
                return Ok(());
            };
            proptest::prop_assert_eq!(independent_rows(&rows, &fr, &[0, 1, 2], n).len(), n);
            check_adjugate(&b, &rows, &fr, n).map_err(proptest::test_runner::TestCaseError::fail)?;
            for (k, i) in swaps {
                if b.rows.contains(&i) || b.along(&fr.int(i, &rows[i]).a, k).is_zero() {
                    continue;
                }
                b.pivot(k, i, &fr.int(i, &rows[i]).a.clone());
                check_adjugate(&b, &rows, &fr, n).map_err(proptest::test_runner::TestCaseError::fail)?;
                // The vertex solves the basis rows exactly, in the given rows' terms.
                let x = b.vertex(&rows, &fr, n);
                for &r in &b.rows {
                    proptest::prop_assert_eq!(dot(&rows[r].a, &x), rows[r].b.clone());
                }
            }
        }
    }

    proptest::proptest! {
        /// The cofactor adjugate of two or three rows is the elimination's,
        /// entry for entry (both normalised to a positive determinant), and
        /// both call the same matrices singular.
        #[test]
        fn cofactors_are_the_elimination(
            entries in proptest::collection::vec((-6i64..7, 1i64..5), 9),
            big in 0u32..60,
            n in 2usize..4,
        ) {
            let scale = BigInt::from(7).pow(big) + 1;
            let rows: Vec<Row> = entries
                .chunks(3)
                .map(|c| {
                    let a = c[..n].iter().map(|&(p, q)| Rat::new(BigInt::from(p) * &scale, BigInt::from(q))).collect();
                    row_of(a, int(1), false)
                })
                .collect();
            let fr = FloatRows::new(&rows);
            let idx: Vec<usize> = (0..n).collect();
            let quick = Basis::by_cofactors(idx.clone(), &rows, &fr, n);
            let slow = Basis::by_elimination(idx, &rows, &fr, n);
            proptest::prop_assert_eq!(quick.is_some(), slow.is_some());
            if let (Some(q), Some(s)) = (quick, slow) {
                proptest::prop_assert_eq!(&q.det, &s.det);
                proptest::prop_assert_eq!(&q.cols, &s.cols);
            }
        }

        /// A value certified at the float proposal's vertex is the simplex's
        /// optimum (a Chebyshev fit of a line to noisy points, the LP a
        /// family solves most).
        #[test]
        fn quick_values_are_the_optimum(
            ys in proptest::collection::vec((-50i64..50, 0i64..20), 2..7),
            slope in -5i64..5,
        ) {
            // min e st |c0 + c1·x − y| <= e over points x = 1, 2, ..., with
            // each y an interval [y, y + w]: max −e.
            let mut rows = Vec::new();
            for (x, &(y, w)) in ys.iter().enumerate() {
                let x = int(x as i64 + 1);
                rows.push(row_of(vec![int(1), x.clone(), int(-1)], int(y + slope * 3), false));
                rows.push(row_of(vec![int(-1), -x, int(-1)], int(-(y + w + slope * 3)), false));
            }
            let fr = FloatRows::new(&rows);
            let c = vec![int(0), int(0), int(-1)];
            let all: Vec<usize> = (0..rows.len()).collect();
            let Solved::Optimal { x, .. } = solve(&rows, &fr, &c, &[]) else {
                return Err(proptest::test_runner::TestCaseError::fail("a Chebyshev fit has an optimum"));
            };
            let hint = super::super::float::propose_tight_rows(&fr, &rows, &all, &c).unwrap();
            if let Some(v) = value_at_hint(&rows, &fr, &c, &hint) {
                proptest::prop_assert_eq!(v, dot(&c, &x));
            }
            // A basis that is not optimal is never certified.
            let worst: Vec<usize> = hint.iter().rev().copied().collect();
            if let Some(v) = value_at_hint(&rows, &fr, &c, &worst) {
                proptest::prop_assert_eq!(v, dot(&c, &x));
            }
        }
    }

    #[test]
    fn small_lp_optimum_and_duals() {
        // max x + y st x <= 2, y <= 3, x + y <= 4, -x <= 0, -y <= 0
        let rows =
            vec![row(&[1, 0], 2), row(&[0, 1], 3), row(&[1, 1], 4), row(&[-1, 0], 0), row(&[0, -1], 0)];
        let c = vec![int(1), int(1)];
        match solve(&rows, &FloatRows::new(&rows), &c, &[]) {
            Solved::Optimal { x, y, .. } => {
                assert_eq!(dot(&c, &x), int(4));
                let mut s = [int(0), int(0)];
                for (r, yi) in rows.iter().zip(&y) {
                    assert!(!yi.is_negative());
                    s[0] += yi * &r.a[0];
                    s[1] += yi * &r.a[1];
                }
                assert_eq!(s.to_vec(), c);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn detects_infeasible_with_farkas() {
        let rows = vec![row(&[1], 1), row(&[-1], -2)];
        match solve(&rows, &FloatRows::new(&rows), &[int(1)], &[]) {
            Solved::Infeasible { y } => {
                let sa: Rat = rows.iter().zip(&y).map(|(r, yi)| yi * &r.a[0]).sum();
                let sb: Rat = rows.iter().zip(&y).map(|(r, yi)| yi * &r.b).sum();
                assert!(sa.is_zero() && sb.is_negative());
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn detects_unbounded_and_lineality() {
        let rows = vec![row(&[-1, 0], 0)];
        match solve(&rows, &FloatRows::new(&rows), &[int(1), int(0)], &[]) {
            Solved::Unbounded { d, .. } => assert!(d[0].is_positive()),
            other => panic!("{other:?}"),
        }
        // y free and in the objective.
        match solve(&rows, &FloatRows::new(&rows), &[int(0), frac(-1, 2)], &[]) {
            Solved::Unbounded { d, .. } => assert!(d[1].is_negative()),
            other => panic!("{other:?}"),
        }
        // y free but not in the objective: optimum exists.
        match solve(&rows, &FloatRows::new(&rows), &[int(-1), int(0)], &[]) {
            Solved::Optimal { x, .. } => assert_eq!(x[0], int(0)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn degenerate_cube_corner_does_not_cycle() {
        // Many constraints tight at the origin.
        let mut rows = vec![];
        for i in 1..20 {
            rows.push(row(&[i, 20 - i, 1], 0));
        }
        rows.push(row(&[1, 1, 1], 1));
        rows.push(row(&[-1, 0, 0], 0));
        rows.push(row(&[0, -1, 0], 0));
        rows.push(row(&[0, 0, -1], 0));
        match solve(&rows, &FloatRows::new(&rows), &[int(0), int(0), int(1)], &[]) {
            Solved::Optimal { x, .. } => assert_eq!(x[2], int(0)),
            other => panic!("{other:?}"),
        }
    }
}
