//! N-dimensional multilinear interpolation of task times (Mizutani, Ino and Hagihara, section 3.2,
//! eq. 1 with its sign slip corrected: the weights are `1 − p_k` and `p_k`).
//!
//! The interpolation is separable, so it runs one dimension at a time: each
//! pass widens one axis of the tensor from the sampled indices to the full
//! grid, costing one multiply-add pair per output value. It is exact and in
//! integers: with `M_k` the least common multiple of the gaps between the
//! sampled indices of dimension `k`, the weights `p_k·M_k` and
//! `(1 − p_k)·M_k` are integers, so every interpolated value is an integer
//! numerator over the input's denominator times `M = ∏ M_k`.

use num_integer::Integer;

/// How one grid index of a dimension is interpolated: from the sampled
/// position `lo` (weight `m − hi_weight`) and `lo + 1` (weight `hi_weight`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Weight {
    lo: usize,
    hi_weight: u128,
}

/// The weights of every index `0..c` of a dimension sampled at `axis`
/// (ascending, holding 0 and `c − 1`), and their common scale `M_k`.
fn axis_weights(axis: &[u32], c: u32) -> Option<(Vec<Weight>, u128)> {
    let mut m: u128 = 1;
    for w in axis.windows(2) {
        let gap = u128::from(w[1] - w[0]);
        m = m.checked_div(m.gcd(&gap))?.checked_mul(gap)?;
    }
    let mut out = Vec::with_capacity(c as usize);
    let mut j = 0;
    for x in 0..c {
        while j + 1 < axis.len() && axis[j + 1] <= x {
            j += 1;
        }
        let b = axis[j];
        let hi_weight = match axis.get(j + 1) {
            Some(&u) if x > b => u128::from(x - b) * (m / u128::from(u - b)),
            _ => 0,
        };
        out.push(Weight { lo: j, hi_weight });
    }
    Some((out, m))
}

/// The scale `M = ∏ M_k` the interpolation multiplies values by, or `None`
/// when it does not fit 128 bits.
pub fn scale(axes: &[Vec<u32>]) -> Option<u128> {
    axes.iter().try_fold(1u128, |acc, axis| {
        let mut m: u128 = 1;
        for w in axis.windows(2) {
            let gap = u128::from(w[1] - w[0]);
            m = m.checked_div(m.gcd(&gap))?.checked_mul(gap)?;
        }
        acc.checked_mul(m)
    })
}

/// Interpolates `values` (row-major over the sub-grid `axes`) to the whole
/// grid: the result is row-major over `grid`, every value multiplied by
/// [`scale`]. `None` when a value would not fit 128 bits.
pub fn interpolate(grid: &[u32], axes: &[Vec<u32>], values: &[u128]) -> Option<Vec<u128>> {
    let m = scale(axes)?;
    let max = values.iter().copied().max().unwrap_or(0);
    // Every output is a convex combination scaled by m: no intermediate exceeds max·m.
    max.checked_mul(m)?;
    let mut shape: Vec<usize> = axes.iter().map(Vec::len).collect();
    let mut cur = values.to_vec();
    for k in 0..grid.len() {
        if shape[k] == grid[k] as usize {
            continue; // every index sampled: the identity (M_k = 1)
        }
        let (weights, mk) = axis_weights(&axes[k], grid[k])?;
        let outer: usize = shape[..k].iter().product();
        let inner: usize = shape[k + 1..].iter().product();
        let (m_in, c) = (shape[k], grid[k] as usize);
        let mut next = vec![0u128; outer * c * inner];
        for o in 0..outer {
            let src = &cur[o * m_in * inner..(o + 1) * m_in * inner];
            let dst = &mut next[o * c * inner..(o + 1) * c * inner];
            for (x, w) in weights.iter().enumerate() {
                let out = &mut dst[x * inner..(x + 1) * inner];
                let lo = &src[w.lo * inner..(w.lo + 1) * inner];
                if w.hi_weight == 0 {
                    for (d, &a) in out.iter_mut().zip(lo) {
                        *d = a * mk;
                    }
                } else {
                    let hi = &src[(w.lo + 1) * inner..(w.lo + 2) * inner];
                    let wl = mk - w.hi_weight;
                    for ((d, &a), &b) in out.iter_mut().zip(lo).zip(hi) {
                        *d = a * wl + b * w.hi_weight;
                    }
                }
            }
        }
        cur = next;
        shape[k] = c;
    }
    // Each pass multiplied by its M_k (fully sampled dimensions have M_k = 1).
    Some(cur)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_dimension_matches_the_papers_figure_1() {
        // c = 10, I_s = {0, 3, 6, 9} (the paper's {1, 4, 7, 10}, 0-based).
        let axes = vec![vec![0, 3, 6, 9]];
        let v = interpolate(&[10], &axes, &[30, 60, 0, 90]).unwrap();
        assert_eq!(scale(&axes), Some(3));
        assert_eq!(v, vec![90, 120, 150, 180, 120, 60, 0, 90, 180, 270]);
    }

    #[test]
    fn uneven_gaps_use_their_lcm_and_full_axes_are_the_identity() {
        let axes = vec![vec![0, 2, 5], vec![0, 1, 2]];
        assert_eq!(scale(&axes), Some(6));
        // Rows 0, 2, 5 of a 6x3 grid with values 6 * row + col.
        let vals: Vec<u128> = [0u128, 2, 5].iter().flat_map(|&r| (0..3).map(move |c| 6 * r + c)).collect();
        let out = interpolate(&[6, 3], &axes, &vals).unwrap();
        // A linear function is reproduced exactly at every task.
        for r in 0..6u128 {
            for c in 0..3u128 {
                assert_eq!(out[(r * 3 + c) as usize], 6 * (6 * r + c), "({r}, {c})");
            }
        }
        let full = vec![vec![0, 1, 2], vec![0, 1]];
        assert_eq!(interpolate(&[3, 2], &full, &[1, 2, 3, 4, 5, 6]).unwrap(), vec![1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn bilinear_weights_are_one_minus_p_and_p() {
        // Corners of a 3x3 grid: the centre is the mean of the four corners.
        let axes = vec![vec![0, 2], vec![0, 2]];
        let out = interpolate(&[3, 3], &axes, &[0, 4, 8, 100]).unwrap();
        assert_eq!(scale(&axes), Some(4));
        assert_eq!(out[4], 112); // (0 + 4 + 8 + 100)/4, times 4
        assert_eq!(out[1], 2 * 4); // midpoint of 0 and 4, times 4
        assert_eq!(interpolate(&[3, 3], &axes, &[u128::MAX, 0, 0, 0]), None);
    }
}
