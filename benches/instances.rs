//! Deterministic benchmark instances, shared by `benches/engine.rs` (criterion)
//! and the examples `gen_instances` / `cheb_bench` (the comparison harness in
//! `benches/compare/`).
//!
//! A *residual system* with `m` points and `k` parameters, like a run-time
//! model fitted to measurements:
//!
//! * points `p_i = 1 + i` (`i = 0..m`), scaled to `x_i = p_i / m` in `(0, 1]`;
//! * basis functions, in this order (the first `k` are used):
//!   `phi_1 = 1`, `phi_2 = x`, `phi_3 = x^2`, `phi_4 = 1/(x + 1/10)`,
//!   `phi_5 = x^3`, `phi_6 = 1/(x + 1/100)`;
//! * measurements `y_i = (3 + 2x - x^2 + (1/5)/(x + 1/10)) * (1 + u_i/10^6)` with
//!   `u_i` an integer in `[-1000, 1000]` from a fixed LCG (relative noise up to 1e-3).
//!
//! Every `phi` and `y` value is rounded (round half to even) to at most
//! [`SIG`] significant digits and written as a plain decimal (never in
//! scientific notation); the exact instance is the rational value of that
//! text, so the CSV files and the in-memory instances are the same problem.
//!
//! The two LPs:
//! * `e_max`: variables `(c_1..c_k, e)`, rows `phi_i·c - e <= y_i` and
//!   `-phi_i·c - e <= -y_i`, minimise `e`;
//! * the band at `x* = 2` (extrapolation to twice the largest `p`): rows
//!   `|phi_i·c - y_i| <= theta` with `theta = e_max * 3/2` rounded *up* to
//!   [`THRESHOLD_SIG`] significant digits, min and max of `phi(x*)·c`.
//!
//! When compiled on its own (cargo also auto-discovers it as a bench target
//! with the default harness), this file only defines items, so that target
//! runs zero benchmarks.
#![allow(dead_code)]

use errband::linear::{Constraint, Kind};
use errband::lp::{LpOutcome, Prepared, Sense};
use errband::num::{fmt_sig, frac, int, parse_rat, scale_pow10, Rat};
use num_traits::{One, Signed, Zero};

/// Row counts of the generated instances.
pub const MS: [usize; 4] = [100, 1000, 10000, 100000];
/// Parameter counts of the generated instances.
pub const KS: [usize; 3] = [2, 4, 6];
/// Number of basis functions defined (largest usable `k`).
pub const MAX_K: usize = 6;
/// Significant digits of every `phi`, `y` and point value.
pub const SIG: usize = 8;
/// Significant digits of the band threshold (rounded up).
pub const THRESHOLD_SIG: usize = 6;
/// LCG seed of the pseudo-noise (the same for every `m` and `k`).
pub const SEED: u64 = 0x5eed_0003;

/// Basis function `phi_j(x)`, `j = 1..=MAX_K`, exactly.
pub fn basis(j: usize, x: &Rat) -> Rat {
    match j {
        1 => Rat::one(),
        2 => x.clone(),
        3 => x * x,
        4 => Rat::one() / (x + frac(1, 10)),
        5 => x * x * x,
        6 => Rat::one() / (x + frac(1, 100)),
        _ => panic!("basis function phi_{j} is not defined (1..={MAX_K})"),
    }
}

/// The noise-free "true" model, exactly.
pub fn y_true(x: &Rat) -> Rat {
    int(3) + int(2) * x - x * x + frac(1, 5) / (x + frac(1, 10))
}

/// A 64-bit LCG (Knuth's MMIX constants); the high bits are used.
pub struct Lcg(u64);

impl Lcg {
    /// A generator started at `seed`.
    pub fn new(seed: u64) -> Self {
        Lcg(seed)
    }
    /// Next integer, uniform enough in `[-1000, 1000]`.
    pub fn next_noise(&mut self) -> i64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) % 2001) as i64 - 1000
    }
}

/// The exact decimal text of a rational whose denominator divides a power of
/// ten, in plain notation (`-0.000012345`, `1200`, `3.5`).
pub fn plain_decimal(r: &Rat) -> String {
    if r.is_zero() {
        return "0".to_string();
    }
    let mut v = r.abs();
    let mut places = 0usize;
    while !v.denom().is_one() {
        v *= int(10);
        places += 1;
        assert!(places <= 4000, "plain_decimal: {r} is not a terminating decimal");
    }
    let digits = v.numer().to_string();
    let sign = if r.is_negative() { "-" } else { "" };
    if places == 0 {
        return format!("{sign}{digits}");
    }
    let padded = if digits.len() <= places {
        format!("{}{}", "0".repeat(places + 1 - digits.len()), digits)
    } else {
        digits
    };
    let (int_part, frac_part) = padded.split_at(padded.len() - places);
    format!("{sign}{int_part}.{frac_part}")
}

/// Rewrites a decimal literal `[-]D[.DDD][eE]` (as printed by `fmt_sig`) in
/// plain notation, without changing its value.
pub fn to_plain(text: &str) -> String {
    let (sign, t) = match text.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", text),
    };
    let (mant, exp) = match t.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i64>().expect("exponent")),
        None => (t, 0),
    };
    let (ip, fp) = mant.split_once('.').unwrap_or((mant, ""));
    let digits = format!("{ip}{fp}");
    // value = digits * 10^(exp - fp.len()); the point goes after `point` digits.
    let point = ip.len() as i64 + exp;
    let (int_part, frac_part) = if point <= 0 {
        ("0".to_string(), format!("{}{}", "0".repeat((-point) as usize), digits))
    } else if point as usize >= digits.len() {
        (format!("{}{}", digits, "0".repeat(point as usize - digits.len())), String::new())
    } else {
        (digits[..point as usize].to_string(), digits[point as usize..].to_string())
    };
    let int_part = int_part.trim_start_matches('0');
    let int_part = if int_part.is_empty() { "0" } else { int_part };
    let frac_part = frac_part.trim_end_matches('0');
    if frac_part.is_empty() {
        format!("{sign}{int_part}")
    } else {
        format!("{sign}{int_part}.{frac_part}")
    }
}

/// `x` rounded to `sig` significant digits (round half to even): the plain
/// decimal text and its exact value (the value of that text).
pub fn round_sig(x: &Rat, sig: usize) -> (String, Rat) {
    let text = to_plain(&fmt_sig(x, sig));
    let value = parse_rat(&text).expect("plain decimal parses");
    (text, value)
}

/// floor(log10 |x|) for x != 0.
fn floor_log10(x: &Rat) -> i64 {
    let a = x.abs();
    let mut e = 0i64;
    while a >= scale_pow10(Rat::one(), e + 1) {
        e += 1;
    }
    while a < scale_pow10(Rat::one(), e) {
        e -= 1;
    }
    e
}

/// The smallest decimal with at most `sig` significant digits that is `>= x`
/// (for `x > 0`).
pub fn round_up_sig(x: &Rat, sig: usize) -> Rat {
    assert!(x.is_positive(), "round_up_sig needs a positive value");
    let r = parse_rat(&fmt_sig(x, sig)).expect("fmt_sig output parses");
    if &r >= x {
        return r;
    }
    // One unit in the last kept place of r (r and x share their exponent
    // unless r rounded down across a power of ten, which cannot happen).
    let ulp = scale_pow10(Rat::one(), floor_log10(&r) - (sig as i64 - 1));
    let up = r + ulp;
    debug_assert!(&up >= x);
    up
}

/// Band threshold for a given `e_max`: `e_max * 3/2` rounded up to
/// [`THRESHOLD_SIG`] significant digits.
pub fn threshold_for(emax: &Rat) -> Rat {
    if emax.is_zero() {
        return frac(1, 1_000_000);
    }
    round_up_sig(&(emax * frac(3, 2)), THRESHOLD_SIG)
}

/// The data of one instance: `m` rows of `k` basis values and `y`, both as
/// text (as written to the CSV) and as exact values of that text.
pub struct Data {
    /// Number of rows.
    pub m: usize,
    /// Number of basis functions (columns of `phi`).
    pub k: usize,
    /// `phi[i][j]`, row-major, exact.
    pub phi: Vec<Vec<Rat>>,
    /// Measurements, exact.
    pub y: Vec<Rat>,
    /// `phi` as written.
    pub phi_text: Vec<Vec<String>>,
    /// `y` as written.
    pub y_text: Vec<String>,
}

impl Data {
    /// Builds the instance with `m` rows and the first `k` basis functions.
    pub fn new(m: usize, k: usize) -> Data {
        assert!((1..=MAX_K).contains(&k), "k must be in 1..={MAX_K}");
        assert!(m >= 1);
        let mut lcg = Lcg::new(SEED);
        let mut data = Data {
            m,
            k,
            phi: Vec::with_capacity(m),
            y: Vec::with_capacity(m),
            phi_text: Vec::with_capacity(m),
            y_text: Vec::with_capacity(m),
        };
        for i in 0..m {
            let x = frac(1 + i as i64, m as i64);
            let (mut row_t, mut row_v) = (Vec::with_capacity(k), Vec::with_capacity(k));
            for j in 1..=k {
                let (t, v) = round_sig(&basis(j, &x), SIG);
                row_t.push(t);
                row_v.push(v);
            }
            let noise = lcg.next_noise();
            let (t, v) = round_sig(&(y_true(&x) * (Rat::one() + frac(noise, 1_000_000))), SIG);
            data.phi.push(row_v);
            data.phi_text.push(row_t);
            data.y.push(v);
            data.y_text.push(t);
        }
        data
    }

    /// The same data restricted to the first `k` basis functions.
    pub fn with_k(&self, k: usize) -> Data {
        assert!(k <= self.k);
        Data {
            m: self.m,
            k,
            phi: self.phi.iter().map(|r| r[..k].to_vec()).collect(),
            y: self.y.clone(),
            phi_text: self.phi_text.iter().map(|r| r[..k].to_vec()).collect(),
            y_text: self.y_text.clone(),
        }
    }

    /// The CSV text: header `phi1,...,phiK,y`, then one row per point.
    pub fn write_csv(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let header: Vec<String> =
            (1..=self.k).map(|j| format!("phi{j}")).chain(std::iter::once("y".to_string())).collect();
        writeln!(out, "{}", header.join(","))?;
        for (row, y) in self.phi_text.iter().zip(&self.y_text) {
            writeln!(out, "{},{}", row.join(","), y)?;
        }
        Ok(())
    }
}

/// The band point `phi(x*)` at `x* = 2`, rounded like the data: text and value.
pub fn point(k: usize) -> (Vec<String>, Vec<Rat>) {
    let x = int(2);
    (1..=k).map(|j| round_sig(&basis(j, &x), SIG)).unzip()
}

/// Rows of the `e_max` LP over `(c_1..c_k, e)`.
pub fn emax_rows(phi: &[Vec<Rat>], y: &[Rat]) -> Vec<Constraint> {
    let mut rows = Vec::with_capacity(2 * y.len());
    for (p, yi) in phi.iter().zip(y) {
        let mut a: Vec<Rat> = p.clone();
        a.push(-Rat::one());
        rows.push(Constraint::new(a, Kind::Le, yi.clone()));
        let mut a: Vec<Rat> = p.iter().map(|v| -v).collect();
        a.push(-Rat::one());
        rows.push(Constraint::new(a, Kind::Le, -yi.clone()));
    }
    rows
}

/// Objective of the `e_max` LP (minimise `e`) for `k` parameters.
pub fn emax_objective(k: usize) -> Vec<Rat> {
    let mut c = vec![Rat::zero(); k + 1];
    c[k] = Rat::one();
    c
}

/// Rows `|phi_i·c - y_i| <= theta` of the band LP over `(c_1..c_k)`.
pub fn band_rows(phi: &[Vec<Rat>], y: &[Rat], theta: &Rat) -> Vec<Constraint> {
    let mut rows = Vec::with_capacity(2 * y.len());
    for (p, yi) in phi.iter().zip(y) {
        rows.push(Constraint::new(p.clone(), Kind::Le, yi + theta));
        rows.push(Constraint::new(p.iter().map(|v| -v).collect(), Kind::Le, theta - yi));
    }
    rows
}

/// Solves the `e_max` LP exactly; with `verify`, also checks its certificate
/// (exact, and for large `m` several times slower than the solve itself).
pub fn solve_emax(phi: &[Vec<Rat>], y: &[Rat], verify: bool) -> Result<Rat, String> {
    let k = phi.first().map_or(0, Vec::len);
    let obj = emax_objective(k);
    let p = Prepared::new(k + 1, emax_rows(phi, y)).map_err(|e| e.to_string())?;
    let out = p.optimize(&obj, Sense::Minimize).map_err(|e| e.to_string())?;
    if verify {
        out.verify(&p, &obj, Sense::Minimize).map_err(|e| format!("e_max certificate: {e}"))?;
    }
    match out {
        LpOutcome::Optimal(o) => Ok(o.value),
        other => Err(format!("e_max LP is not optimal: {}", outcome_name(&other))),
    }
}

/// Short name of an LP outcome, for messages.
pub fn outcome_name(o: &LpOutcome) -> &'static str {
    match o {
        LpOutcome::Optimal(_) => "optimal",
        LpOutcome::Infeasible(_) => "infeasible",
        LpOutcome::Unbounded(_) => "unbounded",
    }
}

/// Everything a benchmark needs for one `(m, k)`: the data, `e_max`, the
/// threshold and the band point.
pub struct Instance {
    /// The data.
    pub data: Data,
    /// Exact `e_max`.
    pub emax: Rat,
    /// Band threshold.
    pub theta: Rat,
    /// Band objective `phi(x*)`.
    pub point: Vec<Rat>,
}

impl Instance {
    /// Builds the instance and solves its `e_max` LP (for the threshold).
    pub fn new(m: usize, k: usize) -> Instance {
        Self::from_data(Data::new(m, k))
    }

    /// As [`Instance::new`], from data already built.
    pub fn from_data(data: Data) -> Instance {
        let emax = solve_emax(&data.phi, &data.y, false)
            .unwrap_or_else(|e| panic!("m={} k={}: {e}", data.m, data.k));
        let theta = threshold_for(&emax);
        let (_, point) = point(data.k);
        Instance { data, emax, theta, point }
    }

    /// Rows of the `e_max` LP.
    pub fn emax_rows(&self) -> Vec<Constraint> {
        emax_rows(&self.data.phi, &self.data.y)
    }

    /// Rows of the band LP (the theta-region).
    pub fn band_rows(&self) -> Vec<Constraint> {
        band_rows(&self.data.phi, &self.data.y, &self.theta)
    }
}

/// Checks the decimal helpers (run by `gen_instances` before writing anything).
pub fn self_check() {
    assert_eq!(plain_decimal(&parse_rat("1e-15").unwrap()), "0.000000000000001");
    assert_eq!(plain_decimal(&parse_rat("-12.5").unwrap()), "-12.5");
    assert_eq!(plain_decimal(&parse_rat("1.2e3").unwrap()), "1200");
    assert_eq!(round_sig(&frac(10, 21), 8).0, "0.47619048");
    for t in ["1.5e-7", "-7.96272e-8", "1.23e8", "1e8", "26022", "0.0003184", "-120", "1e-15", "3"] {
        assert_eq!(parse_rat(&to_plain(t)).unwrap(), parse_rat(t).unwrap(), "{t}");
        assert!(!to_plain(t).contains('e'), "{t}");
    }
    assert_eq!(round_up_sig(&frac(1, 3), 6), parse_rat("0.333334").unwrap());
    assert_eq!(round_up_sig(&frac(1, 4), 6), frac(1, 4));
}

#[cfg(test)]
#[test]
fn decimals_round_trip() {
    self_check();
}
