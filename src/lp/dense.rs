//! A small dense floating-point simplex for the LPs errband proposes
//! answers to: few variables (the parameters, plus one), many rows. It only
//! *proposes* (a vertex whose tight rows seed the exact simplex, or a point
//! that exact arithmetic then checks); nothing it returns is trusted, and
//! every way it can fail ends in `None`.
//!
//! Why not a general solver: microlp builds a slack variable per row and an
//! LU factorisation of a sparse basis of that size; for 2 000 rows over 3
//! variables that was a fifth of `prune`'s time. Here the basis is `n + 1`
//! rows of an `(n + 1)`-column matrix, inverted afresh at each pivot
//! (a few hundred flops), and an iteration costs one pass over the rows.
//!
//! The method is the exact simplex's ([`super::simplex`]): vertex-following
//! primal simplex on the inequality form `max c·x, a_i·x <= b_i`, Dantzig's
//! rule, Bland's after a degenerate step. Feasibility comes from one extra
//! variable `t >= 0` subtracted from every row with a penalty `M·t` in the
//! objective (big-M), starting from a corner of a box `|x_j| <= B` far
//! beyond the data's scale, at which `t` is the largest violation. The box
//! keeps every LP bounded, as it did for microlp.

/// `max c·x` subject to `a_i·x <= b_i` (`eq[i]`: `=`) and `|x_j| <= bound`,
/// for rows already scaled to entries of magnitude at most about 1. `None`
/// when the float iteration breaks down (a singular basis, a value that is
/// not finite, the iteration cap) or the rows look infeasible.
pub(crate) fn maximize(a: &[Vec<f64>], b: &[f64], eq: &[bool], c: &[f64], bound: f64) -> Option<Vec<f64>> {
    let n = c.len();
    let dim = n + 1; // x and t
                     // The working rows over (x, t), flat with stride `dim`: an LP here is
                     // small and solved by the hundred thousand (a family's minimax fits),
                     // so nothing is allocated per iteration.
    let cap = 2 * a.len() + 2 * n + 1;
    let mut rows: Vec<f64> = Vec::with_capacity(cap * dim);
    let mut rhs: Vec<f64> = Vec::with_capacity(cap);
    for (i, ai) in a.iter().enumerate() {
        rows.extend_from_slice(ai);
        rows.push(-1.0);
        rhs.push(b[i]);
        if eq[i] {
            rows.extend(ai.iter().map(|v| -v));
            rows.push(-1.0);
            rhs.push(-b[i]);
        }
    }
    let first_box = rhs.len();
    for j in 0..n {
        for s in [1.0, -1.0] {
            let at = rows.len();
            rows.resize(at + dim, 0.0);
            rows[at + j] = s;
            rhs.push(bound);
        }
    }
    let t_row = rhs.len();
    let at = rows.len();
    rows.resize(at + dim, 0.0);
    rows[at + n] = -1.0;
    rhs.push(0.0);
    let m = rhs.len();
    let row = |i: usize| &rows[i * dim..(i + 1) * dim];
    // Objective: c·x − M t, with M far above any multiplier of scaled rows.
    let cmax = c.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let mut obj = c.to_vec();
    obj.push(-1e6 * cmax.max(1.0));
    // Start: x at the upper corner of the box, t tight at the worst row
    // (or t = 0 when the corner is feasible).
    let violation = |i: usize| row(i)[..n].iter().map(|p| p * bound).sum::<f64>() - rhs[i];
    let worst = (0..first_box).max_by(|&i, &j| violation(i).total_cmp(&violation(j)));
    let t_start = match worst {
        Some(w) if violation(w) > 0.0 => w,
        _ => t_row,
    };
    let mut basis: Vec<usize> = (0..n).map(|j| first_box + 2 * j).collect();
    basis.push(t_start);
    let mut in_basis = vec![false; m];
    for &r in &basis {
        in_basis[r] = true;
    }
    let mut bland = false;
    let cap = 50 * (m + dim) + 100;
    let mut work = Inverse::new(dim);
    let (mut z, mut y, mut d) = (vec![0.0; dim], vec![0.0; dim], vec![0.0; dim]);
    for _ in 0..cap {
        if !work.invert(basis.iter().map(|&r| row(r))) {
            return None;
        }
        let inv = |p: usize, k: usize| work.inv[p * dim + k];
        // Vertex z = A_B^{-1} b_B; multipliers y with y·A_B = obj.
        for (p, zp) in z.iter_mut().enumerate() {
            *zp = (0..dim).map(|k| inv(p, k) * rhs[basis[k]]).sum();
        }
        for (k, yk) in y.iter_mut().enumerate() {
            *yk = (0..dim).map(|p| obj[p] * inv(p, k)).sum();
        }
        if !z.iter().chain(&y).all(|v| v.is_finite()) {
            return None;
        }
        let tol = 1e-12 * y.iter().fold(1.0f64, |m, v| m.max(v.abs()));
        let mut leave: Option<usize> = None;
        for k in 0..dim {
            if y[k] >= -tol {
                continue;
            }
            leave = match leave {
                None => Some(k),
                Some(l) if bland && basis[k] < basis[l] => Some(k),
                Some(l) if !bland && y[k] < y[l] => Some(k),
                keep => keep,
            };
        }
        let Some(k) = leave else {
            // Optimal. A positive t means the rows are (nearly) infeasible.
            let scale = rhs.iter().fold(1.0f64, |m, v| m.max(v.abs()));
            return (z[n] <= 1e-9 * scale).then(|| z[..n].to_vec());
        };
        // Moving off row k: A_B d = −e_k.
        for (p, dp) in d.iter_mut().enumerate() {
            *dp = -inv(p, k);
        }
        let mut best: Option<(f64, usize)> = None;
        for i in 0..m {
            if in_basis[i] {
                continue;
            }
            let r = row(i);
            let (mut alpha, mut mag) = (0.0f64, 0.0f64);
            for (p, q) in r.iter().zip(&d) {
                alpha += p * q;
                mag += (p * q).abs();
            }
            if alpha <= 1e-12 * mag.max(1e-300) {
                continue;
            }
            let slack = rhs[i] - r.iter().zip(&z).map(|(p, q)| p * q).sum::<f64>();
            let step = slack.max(0.0) / alpha;
            if best.is_none_or(|(s, _)| step < s) {
                best = Some((step, i));
            }
        }
        let (step, i) = best?; // unbounded cannot happen inside the box
        if !step.is_finite() {
            return None;
        }
        if step == 0.0 {
            bland = true;
        }
        in_basis[basis[k]] = false;
        in_basis[i] = true;
        basis[k] = i;
    }
    None
}

/// Buffers for inverting a small square matrix, reused across pivots.
struct Inverse {
    n: usize,
    a: Vec<f64>,
    inv: Vec<f64>,
}

impl Inverse {
    fn new(n: usize) -> Inverse {
        Inverse { n, a: vec![0.0; n * n], inv: vec![0.0; n * n] }
    }

    /// Gauss–Jordan elimination with partial pivoting of the matrix with
    /// these rows into `inv` (row-major); false when it is (numerically)
    /// singular.
    fn invert<'r>(&mut self, rows: impl Iterator<Item = &'r [f64]>) -> bool {
        let n = self.n;
        let (a, inv) = (&mut self.a, &mut self.inv);
        for (i, r) in rows.enumerate() {
            a[i * n..(i + 1) * n].copy_from_slice(r);
        }
        for (i, v) in inv.iter_mut().enumerate() {
            *v = if i / n == i % n { 1.0 } else { 0.0 };
        }
        let scale = a.iter().fold(0.0f64, |s, v| s.max(v.abs()));
        for col in 0..n {
            let Some(p) = (col..n).max_by(|&i, &j| a[i * n + col].abs().total_cmp(&a[j * n + col].abs()))
            else {
                return false;
            };
            let pivot = a[p * n + col].abs();
            if pivot.is_nan() || pivot <= 1e-13 * scale {
                return false;
            }
            if p != col {
                for j in 0..n {
                    a.swap(col * n + j, p * n + j);
                    inv.swap(col * n + j, p * n + j);
                }
            }
            let piv = a[col * n + col];
            for j in 0..n {
                a[col * n + j] /= piv;
                inv[col * n + j] /= piv;
            }
            for r in 0..n {
                let f = a[r * n + col];
                if r != col && f != 0.0 {
                    for j in 0..n {
                        a[r * n + j] -= f * a[col * n + j];
                        inv[r * n + j] -= f * inv[col * n + j];
                    }
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(x: &[f64], want: &[f64]) -> bool {
        x.iter().zip(want).all(|(p, q)| (p - q).abs() < 1e-9)
    }

    #[test]
    fn small_lps() {
        // max x + y, x <= 1, y <= 2, x + y <= 2.5 (x, y free)
        let a = vec![vec![1.0, 0.0], vec![0.0, 1.0], vec![1.0, 1.0]];
        let x = maximize(&a, &[1.0, 2.0, 2.5], &[false; 3], &[1.0, 1.0], 1e4).unwrap();
        assert!((x[0] + x[1] - 2.5).abs() < 1e-9, "{x:?}");
        // An equality: max x, x + y = 1, y >= 0.25 → x = 0.75.
        let a = vec![vec![1.0, 1.0], vec![0.0, -1.0]];
        let x = maximize(&a, &[1.0, -0.25], &[true, false], &[1.0, 0.0], 1e4).unwrap();
        assert!(close(&x, &[0.75, 0.25]), "{x:?}");
        // Infeasible: x <= -1 and -x <= -1.
        let a = vec![vec![1.0], vec![-1.0]];
        assert_eq!(maximize(&a, &[-1.0, -1.0], &[false; 2], &[1.0], 1e4), None);
        // Unbounded in the rows: the box stops it.
        let x = maximize(&[vec![-1.0]], &[0.0], &[false], &[1.0], 1e4).unwrap();
        assert!(close(&x, &[1e4]), "{x:?}");
    }

    #[test]
    fn chebyshev_fit_of_many_rows() {
        // min e over |c0 + c1 p − d_p| <= e, p = 1..2000, d_p = 3 + 2p + (−1)^p:
        // the minimax line is c = (3, 2), e = 1. As max −e over (c0, c1, e).
        let mut a = Vec::new();
        let mut b = Vec::new();
        for p in 1..=2000 {
            let (pf, d) =
                (p as f64 / 2000.0, 3.0 + 2.0 * p as f64 / 2000.0 + if p % 2 == 0 { 1.0 } else { -1.0 });
            a.push(vec![1.0, pf, -1.0]);
            b.push(d);
            a.push(vec![-1.0, -pf, -1.0]);
            b.push(-d);
        }
        let x = maximize(&a, &b, &vec![false; a.len()], &[0.0, 0.0, -1.0], 1e4).unwrap();
        assert!(close(&x, &[3.0, 2.0, 1.0]), "{x:?}");
    }
}
