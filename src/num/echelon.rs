//! Fraction-free row echelon form over the integers (Bareiss): the rank
//! tests of the double description's affine hull and of the simplex's
//! starting basis.

use num_bigint::BigInt;
use num_traits::{One, Zero};

/// Integer rows in echelon form, grown one row at a time. A new row is
/// reduced against the rows kept so far with Bareiss's exact division by
/// the previous pivot, so its entries stay minors of the input: no gcd, no
/// growth past a determinant (rational elimination reduces every entry).
#[derive(Debug, Default)]
pub(crate) struct Echelon {
    /// (pivot column, reduced row); the pivot of row j is a (j+1)x(j+1) minor.
    rows: Vec<(usize, Vec<BigInt>)>,
}

impl Echelon {
    /// Adds `v` when it is independent of the rows kept so far; returns
    /// whether it was.
    pub fn insert(&mut self, v: &[BigInt]) -> bool {
        let mut v = v.to_vec();
        let mut prev = BigInt::one();
        for (pc, e) in &self.rows {
            let (p, f) = (&e[*pc], v[*pc].clone());
            for (x, y) in v.iter_mut().zip(e) {
                let t = if f.is_zero() { &*x * p } else { &*x * p - &f * y };
                *x = if prev.is_one() { t } else { t / &prev };
            }
            prev = p.clone();
        }
        match v.iter().position(|x| !x.is_zero()) {
            Some(pc) => {
                self.rows.push((pc, v));
                true
            }
            None => false,
        }
    }

    /// How many rows are kept (the rank so far).
    pub fn rank(&self) -> usize {
        self.rows.len()
    }

    /// The kept rows, reduced (they span the inserted rows).
    pub fn into_rows(self) -> Vec<Vec<BigInt>> {
        self.rows.into_iter().map(|(_, v)| v).collect()
    }
}
