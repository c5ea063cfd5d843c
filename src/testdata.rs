//! Shared test fixtures (compiled for tests only).

use crate::linear::{Constraint, Kind};
use crate::num::{frac, int, Rat};

/// Residual-region rows `|Σ_{j<k} c_j x_i^j - y_i| <= theta` for
/// `x_i = i/m` (i = 0..m) and `y_i = x_i^k`, plus, with `noise = Some((seed,
/// den))`, deterministic LCG noise `u/den`, `u` in [-500, 500). Over the `k`
/// variables `c_0..c_{k-1}` this is a polytope with many rows, like a fit's
/// Δc region.
pub(crate) fn residual_rows(m: i64, k: usize, theta: Rat, noise: Option<(i64, i64)>) -> Vec<Constraint> {
    let mut cons = Vec::with_capacity(2 * m as usize);
    let mut seed = noise.map_or(0, |(s, _)| s);
    for i in 0..m {
        let x = frac(i, m);
        let powers: Vec<Rat> = (0..=k).scan(int(1), |p, _| {
            let cur = p.clone();
            *p = &*p * &x;
            Some(cur)
        }).collect();
        let mut y = powers[k].clone();
        if let Some((_, den)) = noise {
            seed = (seed * 1103515245 + 12345) % 2147483648;
            y += frac(seed % 1000 - 500, den);
        }
        let row: Vec<Rat> = powers[..k].to_vec();
        let neg: Vec<Rat> = row.iter().map(|v| -v).collect();
        cons.push(Constraint::new(row, Kind::Le, &y + &theta));
        cons.push(Constraint::new(neg, Kind::Le, &theta - &y));
    }
    cons
}
