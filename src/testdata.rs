//! Shared test fixtures (compiled for tests only).

use crate::data::Measurement;
use crate::linear::{Constraint, Kind};
use crate::model::Model;
use crate::num::{frac, int, parse_rat, Rat};

/// The paper's HPL model (Orii & Anai, eq. 4) followed by the statements in
/// `rest` (`param …`, `weight …`, `predict …`), and its twelve measurements
/// (Fig. 2(a)).
pub(crate) fn hpl(rest: &str) -> (Model, Vec<Measurement>) {
    let src = format!("T(p) = a * (1/p + c1 + c2*(p - 1)^2)\nconst a = 26022\n{rest}");
    let m = Model::parse(&src, "hpl.tm", 40).unwrap();
    let ys = [
        "2848.8", "1547.7", "1112.6", "897.09", "765.31", "684.99", "624.38", "582.6", "555.68", "530.92",
        "545.38", "513.45",
    ];
    let data = ys
        .iter()
        .enumerate()
        .map(|(i, y)| Measurement {
            x: vec![int(10 * (i as i64 + 1))],
            y: parse_rat(y).unwrap(),
            line: i + 2,
        })
        .collect();
    (m, data)
}

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
        let powers: Vec<Rat> = (0..=k)
            .scan(int(1), |p, _| {
                let cur = p.clone();
                *p = &*p * &x;
                Some(cur)
            })
            .collect();
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
