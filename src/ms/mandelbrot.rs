//! The example workload of Mizutani, Ino and Hagihara (section 4.1): Mandelbrot set membership over a
//! grid of the complex plane, one task per point, the task's time
//! proportional to its iteration count.
//!
//! Defined bit for bit so that anyone can regenerate it: the point of task
//! `(i, j)` (row `i`, column `j`, row-major with the column fastest) is
//! `x_j + i·y_i` with `x_j = −2 + j·(3/(c₂ − 1))` and
//! `y_i = −1.5 + i·(3/(c₁ − 1))`, computed in f64 as
//! `start + (j as f64) * (3.0 / (c - 1) as f64)` with the last value set
//! exactly to the end point (as numpy's `linspace` does). The iteration
//! count is the smallest n in 1..=max with |z_n|² > 4 (z₀ = 0,
//! z_n = z_{n−1}² + c in f64, as `zr' = zr·zr − zi·zi + cr`,
//! `zi' = 2·zr·zi + ci`), or `max` if none.

use rayon::prelude::*;
use std::io::Write;

/// `c` values evenly spaced over `[start, end]`, as numpy's `linspace`.
pub fn linspace(start: f64, end: f64, c: u32) -> Vec<f64> {
    if c <= 1 {
        return vec![start];
    }
    let step = (end - start) / f64::from(c - 1);
    let mut v: Vec<f64> = (0..c).map(|j| start + f64::from(j) * step).collect();
    if let Some(last) = v.last_mut() {
        *last = end;
    }
    v
}

/// The escape iteration count of `cr + i·ci` (see the module doc).
pub fn iterations(cr: f64, ci: f64, max: u32) -> u32 {
    let (mut zr, mut zi) = (0.0f64, 0.0f64);
    for n in 1..=max {
        let r = zr * zr - zi * zi + cr;
        zi = 2.0 * zr * zi + ci;
        zr = r;
        if zr * zr + zi * zi > 4.0 {
            return n;
        }
    }
    max
}

/// Iteration counts of a `rows × cols` grid, row-major (column fastest).
pub fn grid_iterations(rows: u32, cols: u32, max: u32) -> Vec<u32> {
    let xs = linspace(-2.0, 1.0, cols);
    let ys = linspace(-1.5, 1.5, rows);
    ys.par_iter().flat_map_iter(|&y| xs.iter().map(move |&x| iterations(x, y, max))).collect()
}

/// Writes the task CSV `i1,i2,time [us]` (one line per task, the time in
/// microseconds = iterations × `us_per_iteration`).
pub fn write_csv(
    out: &mut dyn Write,
    rows: u32,
    cols: u32,
    max: u32,
    us_per_iteration: u32,
) -> std::io::Result<()> {
    let iters = grid_iterations(rows, cols, max);
    let mut w = std::io::BufWriter::with_capacity(1 << 20, out);
    writeln!(
        w,
        "# Mandelbrot workload (Mizutani et al. [M], section 4.1): {rows}x{cols} grid over [-2, 1] x [-1.5, 1.5], at most {max} iterations, {us_per_iteration} us per iteration"
    )?;
    writeln!(w, "i1,i2,time [us]")?;
    for (k, &n) in iters.iter().enumerate() {
        let (i, j) = (k / cols as usize, k % cols as usize);
        writeln!(w, "{i},{j},{}", u64::from(n) * u64::from(us_per_iteration))?;
    }
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linspace_ends_exactly_and_iterations_match_known_points() {
        let xs = linspace(-2.0, 1.0, 1024);
        assert_eq!(xs[0], -2.0);
        assert_eq!(xs[1023], 1.0);
        assert_eq!(xs[1], -2.0 + 3.0 / 1023.0);
        // The origin never escapes; c = 1 escapes at n = 3 (0 → 1 → 2 → 5).
        assert_eq!(iterations(0.0, 0.0, 1000), 1000);
        assert_eq!(iterations(1.0, 0.0, 1000), 3);
        // c = −2 stays at 2 forever (|z|² = 4 is not > 4).
        assert_eq!(iterations(-2.0, 0.0, 1000), 1000);
        // Far outside: escapes at once.
        assert_eq!(iterations(3.0, 0.0, 1000), 1);
    }

    #[test]
    fn csv_is_row_major_with_x_fastest() {
        let mut out = Vec::new();
        write_csv(&mut out, 3, 4, 50, 1).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], "i1,i2,time [us]");
        assert_eq!(lines.len(), 2 + 12);
        assert!(lines[2].starts_with("0,0,") && lines[3].starts_with("0,1,") && lines[6].starts_with("1,0,"));
        // Row 1 is y = 0: x = 1 (j = 3) escapes at 3.
        assert_eq!(lines[2 + 4 + 3], "1,3,3");
    }
}
