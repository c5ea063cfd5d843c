//! Helpers shared by the integration tests: exact numbers, an independent
//! rank computation, and proptest strategies for small rationals.
//!
//! Nothing here calls into errband's algorithms, so the checks built on it
//! stay independent of the engine they test.
#![allow(dead_code)]

use errband::linear::{Constraint, Kind};
use errband::num::Rat;
use num_bigint::BigInt;
use num_traits::{Signed, Zero};
use proptest::prelude::*;

/// The integer `n` as a rational.
pub fn int(n: i64) -> Rat {
    Rat::from_integer(BigInt::from(n))
}

/// `n/d` as a rational.
pub fn q(n: i64, d: i64) -> Rat {
    Rat::new(BigInt::from(n), BigInt::from(d))
}

/// `Σ a_i b_i`.
pub fn dot(a: &[Rat], b: &[Rat]) -> Rat {
    a.iter().zip(b).fold(Rat::zero(), |s, (x, y)| s + x * y)
}

/// Rank of a list of vectors, by plain Gaussian elimination over the rationals.
pub fn rank(rows: &[Vec<Rat>]) -> usize {
    let mut m: Vec<Vec<Rat>> = rows.to_vec();
    let cols = m.first().map_or(0, Vec::len);
    let mut r = 0;
    for c in 0..cols {
        let Some(p) = (r..m.len()).find(|&i| !m[i][c].is_zero()) else { continue };
        m.swap(r, p);
        let pivot_row = m[r].clone();
        for (i, row) in m.iter_mut().enumerate() {
            if i != r && !row[c].is_zero() {
                let f = &row[c] / &pivot_row[c];
                for (x, p) in row.iter_mut().zip(&pivot_row).skip(c) {
                    *x -= &f * p;
                }
            }
        }
        r += 1;
        if r == m.len() {
            break;
        }
    }
    r
}

/// A constraint from integer coefficients.
pub fn con(a: &[i64], kind: Kind, b: i64) -> Constraint {
    Constraint::new(a.iter().map(|&v| int(v)).collect(), kind, int(b))
}

/// The closure of a constraint: `<` read as `<=`.
pub fn closed(c: &Constraint) -> Constraint {
    Constraint { kind: if c.kind == Kind::Lt { Kind::Le } else { c.kind }, ..c.clone() }
}

/// `(a, b)` with `a` the coefficients and `b` the right-hand side, scaled so
/// that the row is printed compactly in failure messages.
pub fn show_con(c: &Constraint) -> String {
    let terms: Vec<String> = c.a.iter().map(|v| v.to_string()).collect();
    format!("[{}] {} {}", terms.join(", "), c.kind.symbol(), c.b)
}

/// Small rationals: integers, halves, and fractions with denominators up to 6.
pub fn small_rat() -> impl Strategy<Value = Rat> {
    prop_oneof![
        (-6i64..=6).prop_map(int),
        (-12i64..=12).prop_map(|n| q(n, 2)),
        ((-20i64..=20), (1i64..=6)).prop_map(|(n, d)| q(n, d)),
    ]
}

/// Small coefficients: mostly integers in [-3, 3], sometimes a fraction.
pub fn small_coeff() -> impl Strategy<Value = Rat> {
    prop_oneof![
        4 => (-3i64..=3).prop_map(int),
        1 => ((-6i64..=6), (1i64..=4)).prop_map(|(n, d)| q(n, d)),
    ]
}

/// Midpoint of two points.
pub fn midpoint(a: &[Rat], b: &[Rat]) -> Vec<Rat> {
    a.iter().zip(b).map(|(x, y)| (x + y) / int(2)).collect()
}

/// True when `x` is strictly positive.
pub fn positive(x: &Rat) -> bool {
    x.is_positive()
}
