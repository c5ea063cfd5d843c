//! Rigorous decimal approximations of `log2`, `ln`, `sqrt` and `exp` on exact
//! rational arguments, and of rational powers `x^(a/b)` ([`pow_rational`]).
//!
//! The model language evaluates these functions on exact rationals. A value
//! that is itself rational and recognisable (`log2(1/8) = -3`, `ln(1) = 0`,
//! `exp(0) = 1`, `sqrt(9/4) = 3/2`) is returned exactly. Every other value is
//! irrational (see below) and is returned as a decimal fraction `n/10^j` with
//! a requested number of significant digits.
//!
//! # How the digits are obtained
//!
//! Each function is evaluated in big-integer fixed point into an *enclosure*:
//! a dyadic interval `[lo·2^e, hi·2^e]` that provably contains the true value.
//! Every truncation in the series, the range reductions and the divisions is
//! accounted for by an explicit bound (see the comments at each step), so the
//! enclosure is rigorous; its relative width is about `2^-(digits·log2(10) +
//! guard)` bits.
//!
//! Both endpoints of the enclosure are then rounded to `digits` significant
//! digits (round half to even). When they lie in the same decade and round to
//! the same decimal, every point of the enclosure — in particular the true
//! value — rounds to it, so the result is the **correctly rounded** value.
//! Otherwise the enclosure straddles a rounding boundary and the evaluation is
//! repeated with more guard bits (Ziv's strategy).
//!
//! A non-exact value can never *equal* a rounding boundary (a decimal
//! fraction): for rational `x`, `log2 x` is rational only when `x = 2^k`,
//! `ln x` and `exp x` are transcendental for `x ≠ 1` resp. `x ≠ 0`
//! (Lindemann–Weierstrass) and `sqrt(a/b)` in lowest terms is rational only
//! when `a` and `b` are perfect squares — exactly the cases returned exactly.
//! So the retries terminate in principle; in practice the first attempt (64
//! guard bits) almost always succeeds. The number of retries is capped (the
//! last attempt carries 16384 guard bits); if the value is still undecided
//! there, the enclosure's midpoint rounded to `digits` digits is returned,
//! after checking that the whole enclosure lies within one unit in the last
//! digit of it, so the result is then still *faithful*.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::fmt;

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

use super::{fmt_fraction, pow10, pow_checked, PowError, Rat};
use crate::limits::Limits;

/// A function the model language evaluates on exact arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Func {
    /// Binary logarithm, defined for positive arguments.
    Log2,
    /// Natural logarithm, defined for positive arguments.
    Ln,
    /// Square root, defined for non-negative arguments.
    Sqrt,
    /// Exponential function `e^x`.
    Exp,
}

impl Func {
    /// Every function, in declaration order.
    pub const ALL: [Func; 4] = [Func::Log2, Func::Ln, Func::Sqrt, Func::Exp];

    /// The name the model language uses: `"log2"`, `"ln"`, `"sqrt"`, `"exp"`.
    pub fn name(self) -> &'static str {
        match self {
            Func::Log2 => "log2",
            Func::Ln => "ln",
            Func::Sqrt => "sqrt",
            Func::Exp => "exp",
        }
    }

    /// The function called `s` in the model language (case-sensitive), if any.
    pub fn from_name(s: &str) -> Option<Func> {
        Func::ALL.into_iter().find(|f| f.name() == s)
    }

    /// What the argument must be, for domain error messages.
    fn requirement(self) -> &'static str {
        match self {
            Func::Log2 | Func::Ln => "a positive argument",
            Func::Sqrt => "a non-negative argument",
            Func::Exp => "a finite argument",
        }
    }
}

impl fmt::Display for Func {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Result of evaluating a function: the value and whether it is exact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approx {
    /// The exact value when `exact`, otherwise a decimal fraction `n/10^j`
    /// with the requested number of significant digits (see [`apply`]).
    pub value: Rat,
    /// Whether `value` is the exact value of the function.
    pub exact: bool,
}

/// Why a function cannot be evaluated on an argument.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FuncError {
    /// The argument is outside the function's domain (`log2`/`ln` of
    /// `x <= 0`, `sqrt` of `x < 0`).
    #[error("{func} needs {}, got {arg}", .func.requirement())]
    Domain {
        /// The function.
        func: Func,
        /// The argument as exact text (shortened when long).
        arg: String,
    },
    /// The argument is too large to evaluate: more than [`MAX_ARG_BITS`]
    /// bits, or (for `exp`) larger in magnitude than [`MAX_EXP_ARG`].
    #[error("{func} of {arg} is out of range: {limit}")]
    TooLarge {
        /// The function.
        func: Func,
        /// The argument as exact text (shortened when long).
        arg: String,
        /// The limit that was exceeded, in words.
        limit: String,
    },
}

/// Largest `|x|` accepted by `exp`: beyond it `exp(x)` has more than 4000
/// decimal digits before (or zeros after) the decimal point
/// (`exp(10000) ≈ 8.8·10^4342`).
pub const MAX_EXP_ARG: i64 = 10_000;

/// Largest bit size (numerator bits + denominator bits) of an argument.
pub const MAX_ARG_BITS: u64 = 200_000;

/// Default number of significant decimal digits for inexact values.
pub const DEFAULT_DIGITS: u32 = 40;

/// Largest accepted number of significant digits; larger requests are
/// clamped to it.
pub const MAX_DIGITS: u32 = 1000;

/// Guard bits of the successive attempts (Ziv's strategy).
const GUARD_SCHEDULE: [u64; 5] = [64, 192, 768, 3072, 16384];

/// Evaluates `f(x)`.
///
/// The result is **exact** (`exact == true`) when the value is rational and
/// recognisable: `log2(2^k) = k` for every integer `k` (`x = 1/8` gives
/// `-3`), `ln(1) = 0`, `exp(0) = 1`, `sqrt(0) = 0` and `sqrt(a/b) = √a/√b`
/// when `a` and `b` (in lowest terms) are perfect squares.
///
/// Otherwise the value is irrational and the result is a decimal fraction
/// `n/10^j` with `digits` significant decimal digits (fewer when trailing
/// digits are zero), **correctly rounded** (round half to even) from the true
/// value; see the [module documentation](self) for the proof sketch. The only
/// exception is the theoretical case where the correct rounding cannot be
/// decided with 16384 guard bits; then the result is still faithful — it
/// differs from the true value by less than one unit in its last digit.
///
/// `digits` is clamped to `1..=`[`MAX_DIGITS`] (0 is treated as 1).
///
/// # Errors
///
/// [`FuncError::Domain`] for `log2`/`ln` of `x <= 0` and `sqrt` of `x < 0`;
/// [`FuncError::TooLarge`] for an argument of more than [`MAX_ARG_BITS`] bits
/// or an `exp` argument with `|x| >` [`MAX_EXP_ARG`].
pub fn apply(f: Func, x: &Rat, digits: u32) -> Result<Approx, FuncError> {
    apply_with_guards(f, x, digits, &GUARD_SCHEDULE)
}

/// [`apply`] with an explicit guard-bit schedule (tests use tiny guards to
/// exercise the retry and fallback paths).
fn apply_with_guards(f: Func, x: &Rat, digits: u32, guards: &[u64]) -> Result<Approx, FuncError> {
    let digits = digits.clamp(1, MAX_DIGITS);
    let domain_ok = match f {
        Func::Log2 | Func::Ln => x.is_positive(),
        Func::Sqrt => !x.is_negative(),
        Func::Exp => true,
    };
    if !domain_ok {
        return Err(FuncError::Domain { func: f, arg: describe(x) });
    }
    let bits = x.numer().bits() + x.denom().bits();
    if bits > MAX_ARG_BITS {
        return Err(FuncError::TooLarge {
            func: f,
            arg: describe(x),
            limit: format!("the argument has {bits} bits, more than the {MAX_ARG_BITS} bits allowed"),
        });
    }
    if f == Func::Exp && x.abs() > Rat::from_integer(BigInt::from(MAX_EXP_ARG)) {
        return Err(FuncError::TooLarge {
            func: f,
            arg: describe(x),
            limit: format!("|x| must be at most {MAX_EXP_ARG}"),
        });
    }
    if let Some(v) = exact_value(f, x) {
        return Ok(Approx { value: v, exact: true });
    }
    Ok(Approx { value: round_to_digits(digits, guards, |bits| enclose(f, x, bits)), exact: false })
}

/// The irrational value that `enclose(bits)` encloses (with relative width
/// about `2^-bits`), correctly rounded to `digits` significant digits: the
/// Ziv loop shared by the functions and by rational powers.
fn round_to_digits(digits: u32, guards: &[u64], enclose: impl Fn(u64) -> Iv) -> Rat {
    // Target relative precision in bits, before guard bits.
    let base = (f64::from(digits) * std::f64::consts::LOG2_10).ceil() as u64 + 1;
    let mut last: Option<Iv> = None;
    for &g in guards {
        let iv = enclose(base + g);
        if let Some(v) = round_enclosure(&iv, digits) {
            return v;
        }
        last = Some(iv);
    }
    // Still undecided: round the midpoint of the tightest enclosure, which
    // is faithful when the enclosure lies within one unit of it.
    let mut iv = match last {
        Some(iv) => iv,
        None => enclose(base + GUARD_SCHEDULE[0]),
    };
    let mut extra = guards.last().copied().unwrap_or(0).max(64);
    loop {
        if let Some(v) = faithful_midpoint(&iv, digits) {
            return v;
        }
        // Unreachable for any enclosure narrower than 10^-digits relative;
        // tighten and retry.
        extra *= 2;
        iv = enclose(base + extra);
    }
}

/// The exact value of `f(x)` when it is rational and recognisable. `x` is in
/// the domain.
fn exact_value(f: Func, x: &Rat) -> Option<Rat> {
    match f {
        Func::Log2 => {
            let a = x.numer();
            let b = x.denom();
            let ka = power_of_two(a)?;
            let kb = power_of_two(b)?;
            Some(Rat::from_integer(BigInt::from(ka) - BigInt::from(kb)))
        }
        Func::Ln => x.is_one().then(Rat::zero),
        Func::Exp => x.is_zero().then(Rat::one),
        Func::Sqrt => {
            if x.is_zero() {
                return Some(Rat::zero());
            }
            let ra = x.numer().sqrt();
            if &(&ra * &ra) != x.numer() {
                return None;
            }
            let rb = x.denom().sqrt();
            if &(&rb * &rb) != x.denom() {
                return None;
            }
            Some(Rat::new(ra, rb))
        }
    }
}

/// `Some(k)` when `n = 2^k` (`n > 0`).
fn power_of_two(n: &BigInt) -> Option<u64> {
    if !n.is_positive() {
        return None;
    }
    let tz = n.trailing_zeros()?;
    (tz + 1 == n.bits()).then_some(tz)
}

/// The argument as text for error messages, shortened when long.
fn describe(x: &Rat) -> String {
    let bits = x.numer().bits() + x.denom().bits();
    if bits <= 512 {
        return fmt_fraction(x);
    }
    let approx = super::to_f64(x);
    if approx.is_finite() && approx != 0.0 {
        format!("a {bits}-bit rational ≈ {approx:e}")
    } else {
        let e10 = (x.numer().bits() as f64 - x.denom().bits() as f64) * std::f64::consts::LOG10_2;
        let sign = if x.is_negative() { "-" } else { "" };
        format!("a {bits}-bit rational ≈ {sign}10^{}", e10.round())
    }
}

// ---------------------------------------------------------------------------
// Dyadic enclosures
// ---------------------------------------------------------------------------

/// An enclosure `[lo·2^e, hi·2^e]` (`lo <= hi`) of a real number.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Iv {
    lo: BigInt,
    hi: BigInt,
    e: i64,
}

/// `x << n`.
fn shl(x: &BigInt, n: u64) -> BigInt {
    x << (n as usize)
}

/// `floor(x / 2^n)`.
fn floor_shr(x: &BigInt, n: u64) -> BigInt {
    if x.is_negative() {
        -ceil_shr(&-x, n)
    } else {
        x >> (n as usize)
    }
}

/// `ceil(x / 2^n)`.
fn ceil_shr(x: &BigInt, n: u64) -> BigInt {
    if x.is_negative() {
        -floor_shr(&-x, n)
    } else {
        let q: BigInt = x >> (n as usize);
        if &shl(&q, n) == x {
            q
        } else {
            q + 1u32
        }
    }
}

/// `ceil(a / b)` for `b > 0`.
fn ceil_div(a: &BigInt, b: &BigInt) -> BigInt {
    -((-a).div_floor(b))
}

impl Iv {
    /// The same enclosure (possibly widened) with exponent `e` (`e >= self.e`
    /// widens by rounding outwards; `e < self.e` is exact).
    fn rescale(&self, e: i64) -> Iv {
        match e.cmp(&self.e) {
            Ordering::Equal => self.clone(),
            Ordering::Greater => {
                let d = (e - self.e) as u64;
                Iv { lo: floor_shr(&self.lo, d), hi: ceil_shr(&self.hi, d), e }
            }
            Ordering::Less => {
                let d = (self.e - e) as u64;
                Iv { lo: shl(&self.lo, d), hi: shl(&self.hi, d), e }
            }
        }
    }

    /// Widens outwards so that the endpoints have at most `bits` bits.
    fn trim(&self, bits: u64) -> Iv {
        let mb = self.lo.bits().max(self.hi.bits());
        if mb > bits {
            self.rescale(self.e + (mb - bits) as i64)
        } else {
            self.clone()
        }
    }

    /// The enclosure of the sum.
    fn add(&self, other: &Iv) -> Iv {
        let e = self.e.min(other.e);
        let a = self.rescale(e);
        let b = other.rescale(e);
        Iv { lo: a.lo + b.lo, hi: a.hi + b.hi, e }
    }

    /// The enclosure of `self / d` for `d > 0` (`d.lo > 0`), with at least
    /// `bits` significant bits in the quotient.
    fn div_pos(&self, d: &Iv, bits: u64) -> Iv {
        let nb = self.lo.bits().max(self.hi.bits()) as i64;
        let db = d.hi.bits() as i64;
        let t = (bits as i64 + db - nb + 2).max(0) as u64;
        let mut lo: Option<BigInt> = None;
        let mut hi: Option<BigInt> = None;
        for n in [&self.lo, &self.hi] {
            let ns = shl(n, t);
            for dv in [&d.lo, &d.hi] {
                let f = ns.div_floor(dv);
                let c = ceil_div(&ns, dv);
                lo = Some(match lo {
                    Some(l) if l <= f => l,
                    _ => f,
                });
                hi = Some(match hi {
                    Some(h) if h >= c => h,
                    _ => c,
                });
            }
        }
        Iv { lo: lo.unwrap_or_default(), hi: hi.unwrap_or_default(), e: self.e - d.e - t as i64 }
    }
}

/// An enclosure of `f(x)` with relative width about `2^-bits`. `x` is in the
/// domain, within the size limits, and not an exact case.
fn enclose(f: Func, x: &Rat, bits: u64) -> Iv {
    match f {
        Func::Sqrt => sqrt_iv(x.numer(), x.denom(), bits),
        Func::Ln => ln_iv(x.numer(), x.denom(), bits),
        Func::Log2 => log2_iv(x.numer(), x.denom(), bits),
        Func::Exp => exp_iv(x, bits),
    }
}

// ---------------------------------------------------------------------------
// sqrt
// ---------------------------------------------------------------------------

/// Enclosure of `sqrt(a/b)`, `a, b > 0`.
fn sqrt_iv(a: &BigInt, b: &BigInt, bits: u64) -> Iv {
    // N = floor(a/b · 2^t) with t even and N of about 2·bits bits, so
    // X·2^t ∈ [N, N+1) and sqrt(X)·2^(t/2) ∈ [sqrt N, sqrt(N+1)) ⊂ [r, r+1]
    // where r = isqrt(N): (r+1)^2 > N, hence (r+1)^2 >= N+1.
    let want = 2 * bits as i64 + 2;
    let mut t = want - (a.bits() as i64 - b.bits() as i64);
    if t.rem_euclid(2) != 0 {
        t += 1;
    }
    let n = if t >= 0 { shl(a, t as u64) / b } else { a / shl(b, (-t) as u64) };
    let r = n.sqrt();
    Iv { hi: &r + 1u32, lo: r, e: -t / 2 }
}

// ---------------------------------------------------------------------------
// ln and log2
// ---------------------------------------------------------------------------

/// `sum` and `n` of the series `Σ_{i>=0} Y^i/(2i+1)` in fixed point `2^-p`,
/// where `mul_y(t) = floor(t·Y)` and `0 <= Y <= 1/9`.
///
/// Returns `(sum, n)` with `S(Y)·2^p ∈ [sum, sum + 2n]`, `n` the number of
/// terms used. Proof: with `T_i = Y^i·2^p` and `t_i = floor(t_{i-1}·Y)`,
/// `0 <= T_i - t_i <= Y·(T_{i-1} - t_{i-1}) + 1 <= 1/(1-Y) <= 9/8`; each
/// summand `floor(t_i/(2i+1))` (`i >= 1`) lies below `T_i/(2i+1)` by at most
/// `9/8/3 + 1 < 1.375`; the loop stops at the first `t_n = 0`, so
/// `T_n <= 9/8` and the tail `Σ_{i>=n} T_i/(2i+1) <= 9/8 · 1/3 · 9/8 < 0.5`.
/// Total deficit `< 1.375·(n-1) + 0.5 <= 2n`.
fn atanh_series(p: u64, mul_y: impl Fn(&BigInt) -> BigInt) -> (BigInt, u64) {
    let mut t = BigInt::one() << (p as usize);
    let mut sum = t.clone();
    let mut i: u64 = 0;
    loop {
        i += 1;
        t = mul_y(&t);
        if t.is_zero() {
            break;
        }
        sum += &t / (2 * i + 1);
    }
    (sum, i)
}

thread_local! {
    /// The most precise enclosure of ln 2 computed so far on this thread:
    /// `(p, lo, hi)` with `ln2·2^p ∈ [lo, hi]`.
    static LN2_CACHE: RefCell<Option<(u64, BigInt, BigInt)>> = const { RefCell::new(None) };
}

/// `(lo, hi)` with `ln 2 · 2^p ∈ [lo, hi]`, `hi - lo` a few units.
fn ln2_fixed(p: u64) -> (BigInt, BigInt) {
    let cached = LN2_CACHE.with(|c| {
        c.borrow()
            .as_ref()
            .filter(|(cp, _, _)| *cp >= p)
            .map(|(cp, lo, hi)| (floor_shr(lo, cp - p), ceil_shr(hi, cp - p)))
    });
    if let Some(v) = cached {
        return v;
    }
    // ln 2 = 2·atanh(1/3) = (2/3)·Σ (1/9)^i/(2i+1). Compute with 8 extra
    // bits and round outwards.
    let q = p + 8;
    let (sum, n) = atanh_series(q, |t| t / 9u32);
    let lo_q = (&sum * 2u32) / 3u32;
    let hi_q = ceil_div(&((sum + 2 * n) * 2u32), &BigInt::from(3u32));
    let lo = floor_shr(&lo_q, 8);
    let hi = ceil_shr(&hi_q, 8);
    LN2_CACHE.with(|c| {
        let mut c = c.borrow_mut();
        let better = c.as_ref().is_none_or(|(cp, _, _)| *cp < q);
        if better {
            *c = Some((q, lo_q, hi_q));
        }
    });
    (lo, hi)
}

/// `x = a/b > 0` split as `x = m·2^k` with `m = mn/md ∈ [2/3, 4/3)`.
fn split_pow2(a: &BigInt, b: &BigInt) -> (i64, BigInt, BigInt) {
    // a/(b·2^k0) ∈ (1/2, 2).
    let mut k = a.bits() as i64 - b.bits() as i64;
    let (mut mn, mut md) =
        if k >= 0 { (a.clone(), shl(b, k as u64)) } else { (shl(a, (-k) as u64), b.clone()) };
    if &mn * 3u32 >= &md * 4u32 {
        md <<= 1usize;
        k += 1;
    } else if &mn * 3u32 < &md * 2u32 {
        mn <<= 1usize;
        k -= 1;
    }
    (k, mn, md)
}

/// Enclosure of `ln(mn/md)` for `mn/md ∈ [2/3, 4/3)`, relative width about
/// `2^-bits` (exactly `0` when `mn = md`).
fn ln_m_iv(mn: &BigInt, md: &BigInt, bits: u64) -> Iv {
    // ln m = 2·atanh(z) = 2·z·S(z²), z = (m-1)/(m+1) = u/w ∈ [-1/5, 1/7),
    // S(y) = Σ y^i/(2i+1) ∈ [1, 1.02].
    let u = mn - md;
    if u.is_zero() {
        return Iv { lo: BigInt::zero(), hi: BigInt::zero(), e: 0 };
    }
    let w = mn + md;
    let ua = u.abs();
    let p = bits + 16;
    // zq = floor(|z|·2^s) with s >= p+2 chosen so that zq >= 2^(p+1):
    // |z|·2^s ∈ [zq, zq+1).
    let s = p + 2 + w.bits().saturating_sub(ua.bits());
    let zq = shl(&ua, s) / &w;
    // y = z², y·2^p ∈ [zq²·2^(p-2s), (zq+1)²·2^(p-2s)); y_fp = floor of the
    // lower end, so 0 <= y·2^p - y_fp < 1 + (2zq+1)·2^(p-2s) < 2 (as
    // |z| <= 1/5 and s >= p+2).
    let y_fp = floor_shr(&(&zq * &zq), 2 * s - p);
    let (sum, n) = atanh_series(p, |t| floor_shr(&(t * &y_fp), p));
    // S(y) - S(Y) <= S'(1/25)·(y - Y) < 0.4·2·2^-p, so S(y)·2^p ∈
    // [sum, sum + 2n + 1].
    let s_hi = sum.clone() + (2 * n + 1);
    // |ln m|·2^(s+p-1) = z·2^s · S·2^p.
    let lo = &zq * &sum;
    let hi = (&zq + 1u32) * s_hi;
    let e = 1 - (s + p) as i64;
    let iv = if u.is_negative() { Iv { lo: -hi, hi: -lo, e } } else { Iv { lo, hi, e } };
    iv.trim(bits + 8)
}

/// Enclosure of `ln(a/b)`, `a/b > 0`, `a/b ≠ 1`.
fn ln_iv(a: &BigInt, b: &BigInt, bits: u64) -> Iv {
    let (k, mn, md) = split_pow2(a, b);
    let lnm = ln_m_iv(&mn, &md, bits);
    if k == 0 {
        return lnm;
    }
    // |ln x| >= ln(2·2/3) > 0.28 when k ≠ 0, so absolute precision
    // 2^-(bits+4) suffices for both terms.
    let kb = BigInt::from(k);
    let p2 = bits + 8 + kb.bits();
    let (l2lo, l2hi) = ln2_fixed(p2);
    let kl = if k > 0 {
        Iv { lo: &kb * l2lo, hi: &kb * l2hi, e: -(p2 as i64) }
    } else {
        Iv { lo: &kb * l2hi, hi: &kb * l2lo, e: -(p2 as i64) }
    };
    let lnm = if lnm.e < kl.e { lnm.rescale(kl.e) } else { lnm };
    kl.add(&lnm).trim(bits + 8)
}

/// Enclosure of `log2(a/b)`, `a/b > 0` not a power of two.
fn log2_iv(a: &BigInt, b: &BigInt, bits: u64) -> Iv {
    // log2 x = k + ln(m)/ln 2; |log2 x| > 0.41 when k ≠ 0.
    let (k, mn, md) = split_pow2(a, b);
    let lnm = ln_m_iv(&mn, &md, bits + 4);
    let p = bits + 8;
    let (l2lo, l2hi) = ln2_fixed(p);
    let ln2 = Iv { lo: l2lo, hi: l2hi, e: -(p as i64) };
    let f = lnm.div_pos(&ln2, bits + 4);
    if k == 0 {
        return f.trim(bits + 8);
    }
    let f = if f.e < -(p as i64) { f.rescale(-(p as i64)) } else { f };
    let kk = BigInt::from(k);
    Iv { lo: kk.clone(), hi: kk, e: 0 }.add(&f).trim(bits + 8)
}

// ---------------------------------------------------------------------------
// exp
// ---------------------------------------------------------------------------

/// `(lo, hi)` with `exp(r·2^-p)·2^p ∈ [lo, hi]`, for `|r| <= 2^(p-1)`.
///
/// Taylor series with `t_0 = 2^p`, `t_i = trunc(floor(t_{i-1}·r/2^p)/i)`.
/// With `T_i = R^i/i!·2^p` (`R = r·2^-p`, `|R| <= 1/2`):
/// `|T_i - t_i| <= |R|/i·|T_{i-1} - t_{i-1}| + 1/i + 1`, so the error of
/// each term is at most 4. The loop stops at the first `t_n = 0`, so
/// `|T_n| <= 4` and `Σ_{i>=n} |T_i| <= 4·Σ 2^-j = 8`. Total error of the
/// sum `<= 4(n-1) + 8 <= 4n + 8`.
fn exp_fixed(r: &BigInt, p: u64) -> (BigInt, BigInt) {
    let mut t = BigInt::one() << (p as usize);
    let mut sum = t.clone();
    let mut i: u64 = 0;
    loop {
        i += 1;
        t = floor_shr(&(&t * r), p) / i;
        if t.is_zero() {
            break;
        }
        sum += &t;
    }
    let err = BigInt::from(4 * i + 8);
    (&sum - &err, sum + err)
}

/// Enclosure of `exp(x)` for `0 < |x| <= MAX_EXP_ARG`.
fn exp_iv(x: &Rat, bits: u64) -> Iv {
    // x = k·ln2 + r with |r| <= ln2/2 + tiny; exp(x) = 2^k·exp(r).
    // |k| <= 14427 < 2^14, so ln 2 needs 15 more bits than r.
    let p1 = bits + 16;
    let p2 = p1 + 16;
    // x·2^p1 ∈ [xq, xq+1).
    let xq = shl(x.numer(), p1).div_floor(x.denom());
    let (l2lo, l2hi) = ln2_fixed(p2);
    let x2 = shl(&xq, p2 - p1);
    // k = round(x / ln2), any nearby integer keeps |r| < 1/2.
    let k = (&x2 * 2u32 + &l2lo).div_floor(&(&l2lo * 2u32));
    // r·2^p2 ∈ [x2 - max(k·ln2), x2 + 2^(p2-p1) - min(k·ln2)].
    let (kmin, kmax) = if k.is_negative() { (&k * &l2hi, &k * &l2lo) } else { (&k * &l2lo, &k * &l2hi) };
    let r_lo = &x2 - kmax;
    let r_hi = &x2 + shl(&BigInt::one(), p2 - p1) - kmin;
    let (e_lo, _) = exp_fixed(&r_lo, p2);
    let (_, e_hi) = exp_fixed(&r_hi, p2);
    // |k| <= 14428 by the argument limit, so the conversion cannot fail.
    let ki = k.to_i64().unwrap_or(0);
    Iv { lo: e_lo, hi: e_hi, e: ki - p2 as i64 }.trim(bits + 8)
}

// ---------------------------------------------------------------------------
// Rational powers
// ---------------------------------------------------------------------------

/// Why `x^(a/b)` cannot be evaluated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RootError {
    /// A negative base with an even root: no real value.
    #[error("{base}^({exp}) is undefined: an even root of a negative number")]
    EvenRootOfNegative {
        /// The base as exact text in parentheses (shortened when long).
        base: String,
        /// The exponent `a/b`.
        exp: String,
    },
    /// A negative base with an odd root: refused, as the real root and the
    /// principal complex value differ.
    #[error("{base}^({exp}) is refused: a negative base needs an integer exponent (for the real root write -({abs})^({exp}))")]
    NegativeBase {
        /// The base as exact text in parentheses (shortened when long).
        base: String,
        /// The exponent `a/b`.
        exp: String,
        /// `|base|`.
        abs: String,
    },
    /// The exponent's denominator passes [`Limits::exponent`].
    #[error("the exponent's denominator {den} is too large (limit {limit}; raise it with --max-exponent)")]
    Denominator {
        /// The denominator (shortened when long).
        den: String,
        /// The limit in force.
        limit: u64,
    },
    /// The base has more than [`MAX_ARG_BITS`] bits.
    #[error(
        "the base {base} is out of range: it has {bits} bits, more than the {MAX_ARG_BITS} bits allowed"
    )]
    TooLarge {
        /// The base as text (shortened).
        base: String,
        /// Its bits.
        bits: u64,
    },
    /// The numerator passes [`Limits::exponent`], the result would pass
    /// [`Limits::number_digits`], or zero is raised to a negative power.
    #[error(transparent)]
    Pow(#[from] PowError),
}

/// `x^k` for a rational exponent `k = a/b` (lowest terms, `b > 0`).
///
/// An integer `k` is [`pow_checked`] (exact). Otherwise the value is exact
/// when `x^(1/b)` is rational — `x = n/d` in lowest terms with `n` and `d`
/// perfect `b`-th powers (`16^(5/4) = 32`, `(8/27)^(-2/3) = 9/4`); `0^k = 0`
/// for `k > 0`. Every other value is irrational (if `y = x^(1/b)` were
/// irrational and `y^a` rational, then with `ua + vb = 1` so would be
/// `y = (y^a)^u·x^v`), and is returned correctly rounded to `digits`
/// significant digits, like [`apply`]: from an enclosure of `x^(1/b)` by an
/// integer `b`-th root, raised to the power `|a|` with outward rounding and
/// inverted for `a < 0` (see `rat_pow_iv`).
///
/// # Errors
///
/// Before anything is computed: `|a|` or `b` above [`Limits::exponent`], a
/// base of more than [`MAX_ARG_BITS`] bits, a result that would pass
/// [`Limits::number_digits`]; a negative base (an even root is undefined, an
/// odd one refused); zero to a negative power.
pub fn pow_rational(x: &Rat, k: &Rat, digits: u32, limits: &Limits) -> Result<Approx, RootError> {
    pow_rational_with_guards(x, k, digits, limits, &GUARD_SCHEDULE)
}

fn pow_rational_with_guards(
    x: &Rat,
    k: &Rat,
    digits: u32,
    limits: &Limits,
    guards: &[u64],
) -> Result<Approx, RootError> {
    let digits = digits.clamp(1, MAX_DIGITS);
    if let Some(v) = pow_rational_exact(x, k, limits)? {
        return Ok(Approx { value: v, exact: true });
    }
    // Only a positive base and a non-integer exponent within the limits
    // reach here. The decimal result has `digits` significant digits and
    // magnitude 2^(a/b·log2 x), |log2 x| > |bits(n) - bits(d)| - 1: at
    // least this many bits in its numerator or denominator.
    let (a, b) = (k.numer(), k.denom());
    let (m, b) = (a.abs().to_u64().unwrap_or(u64::MAX), b.to_u32().unwrap_or(u32::MAX));
    let (n, d) = (x.numer(), x.denom());
    let log2x = n.bits().abs_diff(d.bits()).saturating_sub(1);
    let digit_bits = (f64::from(digits) * std::f64::consts::LOG2_10).floor() as u64;
    let size = log2x.saturating_mul(m) / u64::from(b) + digit_bits;
    if size > limits.number_bits() {
        return Err(
            PowError::Digits { digits: Limits::digits_of_bits(size), limit: limits.number_digits }.into()
        );
    }
    let value = round_to_digits(digits, guards, |bits| rat_pow_iv(n, d, m, a.is_negative(), b, bits));
    Ok(Approx { value, exact: false })
}

/// `x^k` when it is rational (see [`pow_rational`]), `None` when it is
/// irrational; the same checks and errors, and nothing irrational is
/// computed. For languages that need exact constants (`qe`).
pub fn pow_rational_exact(x: &Rat, k: &Rat, limits: &Limits) -> Result<Option<Rat>, RootError> {
    if k.is_integer() {
        return Ok(Some(pow_checked(x, k.numer(), limits)?));
    }
    let b = check_rational_exponent(k, limits)?;
    let a = k.numer();
    if x.is_negative() {
        let exp = fmt_fraction(k);
        let base = format!("({})", describe(x));
        return Err(if b % 2 == 0 {
            RootError::EvenRootOfNegative { base, exp }
        } else {
            RootError::NegativeBase { base, exp, abs: describe(&x.abs()) }
        });
    }
    if x.is_zero() {
        if a.is_negative() {
            return Err(PowError::ZeroToNegative.into());
        }
        return Ok(Some(Rat::zero()));
    }
    let bits = x.numer().bits() + x.denom().bits();
    if bits > MAX_ARG_BITS {
        return Err(RootError::TooLarge { base: describe(x), bits });
    }
    match rational_root(x, b) {
        Some(r) => Ok(Some(pow_checked(&r, a, limits)?)),
        None => Ok(None),
    }
}

/// Checks the numerator and the denominator of a non-integer exponent
/// `a/b` against [`Limits::exponent`]; returns `b`.
pub fn check_rational_exponent(k: &Rat, limits: &Limits) -> Result<u32, RootError> {
    let (a, b) = (k.numer(), k.denom());
    if a.abs().to_u64().is_none_or(|m| m > limits.exponent) {
        return Err(PowError::Exponent(limits.exponent).into());
    }
    let den = || RootError::Denominator { den: super::shorten(&b.to_string()), limit: limits.exponent };
    b.to_u64().filter(|&v| v <= limits.exponent).and_then(|v| u32::try_from(v).ok()).ok_or_else(den)
}

/// `x^(1/b)` when it is rational (`x > 0`).
fn rational_root(x: &Rat, b: u32) -> Option<Rat> {
    let root = |v: &BigInt| {
        let r = nth_root_floor(v, b);
        (&num_traits::Pow::pow(&r, b) == v).then_some(r)
    };
    Some(Rat::new_raw(root(x.numer())?, root(x.denom())?))
}

/// `floor(v^(1/b))` for `v > 0`, `b >= 2`, by Newton's iteration from a
/// float estimate. (num-bigint's `nth_root` starts from a power of two when
/// `v` has more than 1023 bits and `b` is large, and then needs about `b`
/// steps, each a power of `v`'s size: minutes for `b = 10000`.)
fn nth_root_floor(v: &BigInt, b: u32) -> BigInt {
    if b <= 3 || v.bits() <= 1000 {
        // Square and cube roots have their own algorithms in num-bigint, and
        // below 1024 bits its Newton steps start from a float estimate.
        return v.nth_root(b);
    }
    if v.bits() <= u64::from(b) {
        return BigInt::one(); // 1 <= v < 2^b
    }
    // log2 v from the top 64 bits; the root's top 52 bits from 2^(log2 v / b),
    // good to about 30 bits (the error of log2 v is below 2^-30 here).
    let shift = v.bits() - 64;
    let top = (v >> (shift as usize)).to_f64().unwrap_or(1.0);
    let q = (top.log2() + shift as f64) / f64::from(b);
    let guess = if q < 52.0 {
        BigInt::from(q.exp2() as u64 + 1)
    } else {
        let k = q.floor() - 52.0;
        BigInt::from((q - k).exp2() as u64 + 1) << (k as usize)
    };
    let step = |s: &BigInt| (s * (b - 1) + v / num_traits::Pow::pow(s, b - 1)) / b;
    // One step from any s > 0 gives at least floor(v^(1/b)) (by the AM-GM
    // inequality, and floor((A + floor(B))/b) = floor((A + B)/b) for an
    // integer A); from above, the steps decrease to it and then stop.
    let mut s = step(&guess.max(BigInt::one()));
    loop {
        let t = step(&s);
        if t >= s {
            break;
        }
        s = t;
    }
    // The enclosures rest on this being the floor: check it exactly.
    while &num_traits::Pow::pow(&s, b) > v {
        s -= 1u32;
    }
    while &num_traits::Pow::pow(&(&s + 1u32), b) <= v {
        s += 1u32;
    }
    s
}

impl Iv {
    /// The enclosure of the product, for enclosures with positive endpoints.
    fn mul_pos(&self, other: &Iv) -> Iv {
        Iv { lo: &self.lo * &other.lo, hi: &self.hi * &other.hi, e: self.e + other.e }
    }
}

/// Enclosure of `(n/d)^(1/b)` (`n, d > 0`, `b >= 2`) with relative width
/// below `2^-(bits+1)`.
fn root_iv(n: &BigInt, d: &BigInt, b: u32, bits: u64) -> Iv {
    // N = floor(x·2^(b·t)), so x·2^(bt) ∈ [N, N+1) and x^(1/b)·2^t ∈
    // [N^(1/b), (N+1)^(1/b)) ⊂ [r, r+1] for r = floor(N^(1/b)): (r+1)^b > N,
    // hence (r+1)^b >= N+1. With x > 2^(lx-1) and t = bits + 2 -
    // floor(lx/b), x·2^(bt) > 2^(b(bits+2)-1), so r >= 2^(bits+1).
    let bb = i64::from(b);
    let lx = n.bits() as i64 - d.bits() as i64;
    let t = bits as i64 + 2 - lx.div_euclid(bb);
    let s = bb * t;
    let big_n = if s >= 0 { shl(n, s as u64) / d } else { n / shl(d, s.unsigned_abs()) };
    let r = nth_root_floor(&big_n, b);
    Iv { hi: &r + 1u32, lo: r, e: -t }
}

/// Enclosure of `v^m` (`m >= 1`) for an enclosure `v` with positive
/// endpoints, by squaring and multiplying; every product is trimmed
/// outwards to `bits` bits, so the endpoints stay small and the result
/// still encloses.
fn pow_pos_iv(v: &Iv, m: u64, bits: u64) -> Iv {
    let mut base = v.trim(bits);
    let mut acc: Option<Iv> = None;
    let mut m = m;
    loop {
        if m & 1 == 1 {
            acc = Some(match acc {
                None => base.clone(),
                Some(r) => r.mul_pos(&base).trim(bits),
            });
        }
        m >>= 1;
        if m == 0 {
            break;
        }
        base = base.mul_pos(&base).trim(bits);
    }
    acc.unwrap_or_else(|| Iv { lo: BigInt::one(), hi: BigInt::one(), e: 0 })
}

/// Enclosure of `(n/d)^(±m/b)` (`n, d > 0`, `m >= 1`, `b >= 2`; `recip`
/// for the negative exponent) with relative width about `2^-bits`.
///
/// The root is enclosed by [`root_iv`] to `w` bits, then raised to the
/// `m`-th power with outward rounding ([`pow_pos_iv`]): the power multiplies
/// the relative width by about `m`, and each of the at most `2·log2 m`
/// trimmed products adds `2^-(w-1)` raised to at most `m`, so `w = bits +
/// 2·bitlen(m) + 8` leaves the result well within `2^-bits`. For `a < 0`
/// the reciprocal is taken by [`Iv::div_pos`], which rounds outwards: the
/// lower end of `1/v` comes from the upper end of `v` and vice versa.
fn rat_pow_iv(n: &BigInt, d: &BigInt, m: u64, recip: bool, b: u32, bits: u64) -> Iv {
    let w = bits + 2 * u64::from(64 - m.leading_zeros()) + 8;
    let p = pow_pos_iv(&root_iv(n, d, b, w), m, w);
    let p = if recip { Iv { lo: BigInt::one(), hi: BigInt::one(), e: 0 }.div_pos(&p, w) } else { p };
    p.trim(bits + 8)
}

// ---------------------------------------------------------------------------
// Decimal rounding
// ---------------------------------------------------------------------------

/// `m·2^e` as an integer fraction `(num, den)`.
fn binary_parts(m: &BigInt, e: i64) -> (BigInt, BigInt) {
    if e >= 0 {
        (m << (e as usize), BigInt::one())
    } else {
        (m.clone(), BigInt::one() << ((-e) as usize))
    }
}

/// `floor(log10(m·2^e))` for `m > 0`.
fn decade(m: &BigInt, e: i64) -> i64 {
    let (n, d) = binary_parts(m, e);
    crate::num::decimal_exponent_parts(&n, &d)
}

/// `m·2^e / 10^q` rounded to the nearest integer, ties to even (`m >= 0`).
fn round_at(m: &BigInt, e: i64, q: i64) -> BigInt {
    let (mut num, mut den) = binary_parts(m, e);
    if q >= 0 {
        den *= pow10(q as u64);
    } else {
        num *= pow10((-q) as u64);
    }
    crate::num::round_half_even_parts(&num, &den)
}

/// `±n·10^q` as a rational.
fn decimal(neg: bool, n: BigInt, q: i64) -> Rat {
    let n = if neg { -n } else { n };
    if q >= 0 {
        Rat::from_integer(n * pow10(q as u64))
    } else {
        Rat::new(n, pow10((-q) as u64))
    }
}

/// The sign and magnitude enclosure `[lo, hi]·2^e` (`0 < lo <= hi`) of an
/// enclosure that excludes zero.
fn magnitude(iv: &Iv) -> Option<(bool, BigInt, BigInt)> {
    if iv.lo.is_positive() {
        Some((false, iv.lo.clone(), iv.hi.clone()))
    } else if iv.hi.is_negative() {
        Some((true, -&iv.hi, -&iv.lo))
    } else {
        None
    }
}

/// The value every point of the enclosure rounds to at `digits` significant
/// digits, if they all round to the same decimal.
fn round_enclosure(iv: &Iv, digits: u32) -> Option<Rat> {
    let (neg, lo, hi) = magnitude(iv)?;
    let d = decade(&lo, iv.e);
    if decade(&hi, iv.e) != d {
        return None;
    }
    // Rounding to a fixed grid is monotone, so equal endpoint roundings
    // mean every point in between rounds the same.
    let q = d - i64::from(digits) + 1;
    let nl = round_at(&lo, iv.e, q);
    let nh = round_at(&hi, iv.e, q);
    (nl == nh).then(|| decimal(neg, nl, q))
}

/// The midpoint of the enclosure rounded to `digits` significant digits,
/// provided the whole enclosure lies strictly within one unit in its last
/// digit of it (so the result is faithful).
fn faithful_midpoint(iv: &Iv, digits: u32) -> Option<Rat> {
    let (neg, lo, hi) = magnitude(iv)?;
    let mid = &lo + &hi;
    let e = iv.e - 1;
    let q = decade(&mid, e) - i64::from(digits) + 1;
    let n = round_at(&mid, e, q);
    // Exact check: (n-1)·10^q < lo·2^e and hi·2^e < (n+1)·10^q. 10^q is at
    // most one unit in the last digit of n·10^q (n <= 10^digits).
    let r = decimal(false, n.clone(), q);
    let unit = decimal(false, BigInt::one(), q);
    let two_e = if iv.e >= 0 {
        Rat::from_integer(BigInt::one() << (iv.e as usize))
    } else {
        Rat::new(BigInt::one(), BigInt::one() << ((-iv.e) as usize))
    };
    let lo_r = Rat::from_integer(lo) * &two_e;
    let hi_r = Rat::from_integer(hi) * &two_e;
    (&r - &unit < lo_r && hi_r < &r + &unit).then(|| if neg { -r } else { r })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::{parse_rat, to_f64};

    fn rat(s: &str) -> Rat {
        parse_rat(s).unwrap()
    }

    fn dec(s: &str) -> Rat {
        let limits = crate::limits::Limits { exponent: 100_000, ..Default::default() };
        crate::num::parse_rat_with(s, limits).unwrap()
    }

    fn val(f: Func, x: &str, digits: u32) -> Approx {
        apply(f, &rat(x), digits).unwrap()
    }

    #[test]
    fn names_round_trip() {
        for f in Func::ALL {
            assert_eq!(Func::from_name(f.name()), Some(f));
            assert_eq!(f.to_string(), f.name());
        }
        assert_eq!(Func::from_name("log"), None);
        assert_eq!(Func::from_name("LN"), None);
    }

    #[test]
    fn exact_cases() {
        let e = |f, x: &str, v: &str| {
            let a = val(f, x, 40);
            assert!(a.exact, "{f}({x}) should be exact");
            assert_eq!(a.value, rat(v), "{f}({x})");
        };
        e(Func::Log2, "1024", "10");
        e(Func::Log2, "1/8", "-3");
        e(Func::Log2, "1", "0");
        e(Func::Log2, "0.5", "-1");
        e(Func::Sqrt, "9/4", "3/2");
        e(Func::Sqrt, "0", "0");
        e(Func::Sqrt, "0.01", "1/10");
        e(Func::Ln, "1", "0");
        e(Func::Exp, "0", "1");
        let big = Rat::from_integer(BigInt::one() << 150_000usize);
        let a = apply(Func::Log2, &big, 40).unwrap();
        assert!(a.exact);
        assert_eq!(a.value, rat("150000"));
        assert!(!val(Func::Sqrt, "2", 40).exact);
        assert!(!val(Func::Log2, "3", 40).exact);
        assert!(!val(Func::Sqrt, "8/9", 40).exact);
    }

    #[test]
    fn known_digits() {
        let cases = [
            (Func::Sqrt, "2", "1.414213562373095048801688724209698078570"),
            (Func::Ln, "2", "0.6931471805599453094172321214581765680755"),
            (Func::Log2, "3", "1.584962500721156181453738943947816508760"),
            (Func::Exp, "1", "2.718281828459045235360287471352662497757"),
            (Func::Exp, "-1", "0.3678794411714423215955237701614608674458"),
            (Func::Ln, "10", "2.302585092994045684017991454684364207601"),
            (Func::Log2, "1000", "9.965784284662087043610958288468170527594"),
            (Func::Ln, "0.5", "-0.6931471805599453094172321214581765680755"),
            (Func::Log2, "10", "3.321928094887362347870319429489390175865"),
            (Func::Sqrt, "1/3", "0.5773502691896257645091487805019574556476"),
            (Func::Exp, "10", "22026.46579480671651695790064528424436635"),
            (Func::Exp, "1/3", "1.395612425086089528628125319602586837598"),
        ];
        for (f, x, want) in cases {
            let a = val(f, x, 40);
            assert!(!a.exact);
            assert_eq!(a.value, dec(want), "{f}({x})");
        }
    }

    #[test]
    fn small_and_large_magnitudes() {
        // ln(1 + 10^-50) = 10^-50 - 10^-100/2 + ...
        let a = val(Func::Ln, "1.00000000000000000000000000000000000000000000000001", 20);
        assert_eq!(a.value, dec("1e-50"));
        // log2 just below 1: relative precision is kept.
        let a = val(Func::Log2, "0.999999999999999999999999999999", 10);
        assert_eq!(a.value, dec("-1.442695041e-30"));
        let a = val(Func::Exp, "10000", 10);
        assert_eq!(a.value, dec("8.806818226e4342"));
        let a = val(Func::Exp, "-10000", 10);
        assert_eq!(a.value, dec("1.135483865e-4343"));
        let a = val(Func::Exp, "1e-30", 40);
        assert_eq!(a.value, dec("1.000000000000000000000000000001000000000"));
        let a = val(Func::Sqrt, "2e-300", 10);
        assert_eq!(a.value, dec("1.414213562e-150"));
        let a = val(Func::Ln, "1e100", 20);
        assert_eq!(a.value, dec("230.25850929940456840"));
    }

    #[test]
    fn rounding_near_boundaries() {
        // sqrt(100 - 10^-50) = 10 - 5·10^-52 - ...: rounds up across the
        // decade boundary to exactly 10 (not exact, but correctly rounded).
        let a = val(Func::Sqrt, "99.99999999999999999999999999999999999999999999999999", 40);
        assert!(!a.exact);
        assert_eq!(a.value, rat("10"));
        // Just above a power of ten.
        let a = val(Func::Sqrt, "100.00000000000000000000000000000000000000000000000001", 40);
        assert_eq!(a.value, rat("10"));
        let a = val(Func::Log2, "1/3", 40);
        assert_eq!(a.value, dec("-1.584962500721156181453738943947816508760"));
        // exp(-ln 2 ± tiny) straddles 1/2 only in the far digits.
        let a = val(Func::Exp, "-0.6931471805599453094172321214581765680755", 30);
        assert_eq!(a.value, dec("0.5"));
    }

    #[test]
    fn enclosure_rounding() {
        let iv = |lo: i64, hi: i64, e: i64| Iv { lo: BigInt::from(lo), hi: BigInt::from(hi), e };
        // [23/16, 25/16] straddles the rounding boundary 1.5 at one digit.
        assert_eq!(round_enclosure(&iv(23, 25, -4), 1), None);
        assert_eq!(round_enclosure(&iv(23, 25, -4), 2), None);
        assert_eq!(faithful_midpoint(&iv(23, 25, -4), 1), Some(rat("2")));
        assert_eq!(faithful_midpoint(&iv(23, 25, -4), 2), Some(rat("1.5")));
        // Too wide to be faithful at three digits.
        assert_eq!(faithful_midpoint(&iv(23, 25, -4), 3), None);
        assert_eq!(round_enclosure(&iv(-25, -23, -4), 1), None);
        assert_eq!(round_enclosure(&iv(-25, -24, -4), 1), Some(rat("-2")));
        assert_eq!(round_enclosure(&iv(-25, -24, -4), 3), None);
        assert_eq!(round_enclosure(&iv(-1, 1, -4), 1), None);
        assert_eq!(faithful_midpoint(&iv(-1, 1, -4), 1), None);
        // Different decades: [9.5, 10.5] at three digits.
        assert_eq!(round_enclosure(&iv(19, 21, -1), 3), None);
        assert_eq!(round_enclosure(&iv(3, 3, 10), 3), Some(rat("3070")));
    }

    /// Deterministic xorshift generator.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    #[test]
    fn agrees_with_f64() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..2000 {
            let n = (rng.next() % 1_000_000_000) as i64 + 1;
            let d = (rng.next() % 1_000_000) as i64 + 1;
            let neg = rng.next() % 2 == 0;
            for f in Func::ALL {
                let x = match f {
                    Func::Exp => {
                        let v = Rat::new(BigInt::from(n % 700_000), BigInt::from(d % 1000 + 1));
                        let v = v / Rat::from_integer(BigInt::from(1000));
                        if neg {
                            -v
                        } else {
                            v
                        }
                    }
                    _ => Rat::new(BigInt::from(n), BigInt::from(d)),
                };
                let xf = to_f64(&x);
                let want = match f {
                    Func::Log2 => xf.log2(),
                    Func::Ln => xf.ln(),
                    Func::Sqrt => xf.sqrt(),
                    Func::Exp => xf.exp(),
                };
                let got = to_f64(&apply(f, &x, 30).unwrap().value);
                let tol = match f {
                    // Cancellation near x = 1 makes the f64 reference itself
                    // inaccurate in relative terms.
                    Func::Ln | Func::Log2 => 1e-14 * want.abs().max(1e-2 / want.abs().max(1e-300)),
                    Func::Exp => 1e-14 * want.abs() * (1.0 + xf.abs()),
                    Func::Sqrt => 1e-14 * want.abs(),
                };
                assert!((got - want).abs() <= tol, "{f}({x}): got {got}, f64 {want}");
            }
        }
    }

    /// `x` rounded to `digits` significant digits, half to even.
    fn reround(x: &Rat, digits: u32) -> Rat {
        use crate::num::scale_pow10;
        let neg = x.is_negative();
        let a = x.abs();
        let mut dd = 0i64;
        while a >= scale_pow10(Rat::one(), dd + 1) {
            dd += 1;
        }
        while a < scale_pow10(Rat::one(), dd) {
            dd -= 1;
        }
        let q = dd - i64::from(digits) + 1;
        let s = scale_pow10(a, -q);
        let (quot, rem) = s.numer().div_rem(s.denom());
        let n = match (rem * 2u32).cmp(s.denom()) {
            Ordering::Less => quot,
            Ordering::Greater => quot + 1u32,
            Ordering::Equal if quot.is_even() => quot,
            Ordering::Equal => quot + 1u32,
        };
        decimal(neg, n, q)
    }

    #[test]
    fn high_precision_agrees_with_low() {
        let args = ["3", "1/3", "10", "0.001", "123456789/1000", "7.5", "-2.25", "2/3", "4/3"];
        for f in Func::ALL {
            for x in args {
                let x = rat(x);
                let (Ok(hi), Ok(lo)) = (apply(f, &x, 200), apply(f, &x, 40)) else {
                    continue;
                };
                if hi.exact {
                    continue;
                }
                assert_eq!(reround(&hi.value, 40), lo.value, "{f}({x})");
                let hi1000 = apply(f, &x, 1000).unwrap();
                assert_eq!(reround(&hi1000.value, 200), hi.value, "{f}({x})");
            }
        }
    }

    #[test]
    fn retries_and_fallback_agree() {
        // Tiny guard schedules force retries and the faithful fallback.
        for f in Func::ALL {
            for x in ["3", "1/7", "2.5", "1000"] {
                let x = rat(x);
                let want = apply(f, &x, 40).unwrap();
                let retried = apply_with_guards(f, &x, 40, &[0, 1, 2, 64]).unwrap();
                assert_eq!(retried, want, "{f}({x})");
                // With no guard at all the result is at least faithful.
                let faithful = apply_with_guards(f, &x, 40, &[]).unwrap();
                let diff = (faithful.value - &want.value).abs();
                assert!(diff <= rat("1e-38") * want.value.abs(), "{f}({x})");
            }
        }
    }

    #[test]
    fn digits_are_clamped() {
        let one = val(Func::Sqrt, "2", 0);
        assert_eq!(one.value, rat("1"));
        assert_eq!(val(Func::Sqrt, "2", 1), one);
        let a = val(Func::Sqrt, "2", 5000);
        assert_eq!(a, val(Func::Sqrt, "2", MAX_DIGITS));
        assert_eq!(val(Func::Exp, "1", 3).value, rat("2.72"));
        assert_eq!(val(Func::Ln, "3", 1).value, rat("1"));
    }

    #[test]
    fn domain_errors() {
        for (f, x) in
            [(Func::Log2, "0"), (Func::Log2, "-3/2"), (Func::Ln, "0"), (Func::Ln, "-1"), (Func::Sqrt, "-1/4")]
        {
            let err = apply(f, &rat(x), 40).unwrap_err();
            assert!(matches!(err, FuncError::Domain { func, .. } if func == f), "{f}({x})");
        }
        let msg = apply(Func::Log2, &rat("-3/2"), 40).unwrap_err().to_string();
        assert_eq!(msg, "log2 needs a positive argument, got -3/2");
        let msg = apply(Func::Sqrt, &rat("-1"), 40).unwrap_err().to_string();
        assert_eq!(msg, "sqrt needs a non-negative argument, got -1");
    }

    #[test]
    fn huge_arguments_fail_fast() {
        let start = std::time::Instant::now();
        let err = apply(Func::Exp, &rat("1e9"), 40).unwrap_err();
        assert!(matches!(err, FuncError::TooLarge { func: Func::Exp, .. }));
        assert!(err.to_string().contains("10000"), "{err}");
        let err = apply(Func::Exp, &rat("-10000.001"), 40).unwrap_err();
        assert!(matches!(err, FuncError::TooLarge { .. }));
        let huge = Rat::from_integer(pow10(100_000));
        for f in Func::ALL {
            let err = apply(f, &huge, 40).unwrap_err();
            assert!(matches!(err, FuncError::TooLarge { .. }), "{f}");
            assert!(err.to_string().len() < 200, "{err}");
        }
        assert!(start.elapsed().as_millis() < 500, "{:?}", start.elapsed());
    }

    #[test]
    fn large_but_accepted_arguments() {
        // 10^60000 has about 199316 bits: within the limit.
        let x = Rat::from_integer(pow10(60_000));
        let start = std::time::Instant::now();
        let a = apply(Func::Ln, &x, 40).unwrap();
        assert_eq!(a.value, dec("138155.1055796427410410794872810618524561"));
        let a = apply(Func::Log2, &x, 20).unwrap();
        assert_eq!(a.value, dec("199315.68569324174087"));
        let a = apply(Func::Sqrt, &x, 5).unwrap();
        assert_eq!(a.value, dec("1e30000"));
        // A value extremely close to 1 with a huge denominator.
        let t = Rat::from_integer(pow10(30_000));
        let y = (t.clone() + Rat::one()) / t;
        let a = apply(Func::Ln, &y, 10).unwrap();
        assert_eq!(a.value, dec("1e-30000"));
        let a = apply(Func::Log2, &y, 10).unwrap();
        assert_eq!(a.value, dec("1.442695041e-30000"));
        let a = apply(Func::Exp, &(Rat::one() / y), 10).unwrap();
        assert_eq!(a.value, dec("2.718281828"));
        assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
    }

    #[test]
    fn ln2_cache_is_consistent() {
        let (lo1, hi1) = ln2_fixed(100);
        let (lo2, hi2) = ln2_fixed(3000);
        let (lo3, hi3) = ln2_fixed(100);
        assert!(lo3 <= hi3 && hi3 - &lo3 <= BigInt::from(2));
        assert!(floor_shr(&lo2, 2900) <= hi1 && ceil_shr(&hi2, 2900) >= lo1);
        assert!(lo2 < hi2);
    }

    fn pw(x: &str, k: &str, digits: u32) -> Approx {
        pow_rational(&rat(x), &rat(k), digits, &Limits::default()).unwrap()
    }

    #[test]
    fn rational_powers_exact_cases() {
        for (x, k, want) in [
            ("16", "5/4", "32"),
            ("8", "2/3", "4"),
            ("4", "-1/2", "1/2"),
            ("8/27", "-2/3", "9/4"),
            ("1", "7/3", "1"),
            ("0", "1/2", "0"),
            ("9", "1.5", "27"),
            ("2", "3", "8"),
            ("2", "-3", "1/8"),
            ("0.0001", "1/4", "0.1"),
        ] {
            let a = pw(x, k, 40);
            assert!(a.exact, "{x}^({k}) should be exact");
            assert_eq!(a.value, rat(want), "{x}^({k})");
        }
        // (2^301)^(5/7) = 2^215 and (3^-40)^(-3/8) = 3^15: exact, and large.
        let x = Rat::from_integer(BigInt::one() << 301usize);
        let a = pow_rational(&x, &rat("5/7"), 40, &Limits::default()).unwrap();
        assert!(a.exact);
        assert_eq!(a.value, Rat::from_integer(BigInt::one() << 215usize));
        let x = Rat::new(BigInt::one(), BigInt::from(3).pow(40u32));
        let a = pow_rational(&x, &rat("-3/8"), 40, &Limits::default()).unwrap();
        assert_eq!((a.exact, a.value), (true, Rat::from_integer(BigInt::from(3).pow(15u32))));
    }

    #[test]
    fn rational_powers_known_digits() {
        for (x, k, want) in [
            ("3", "5/4", "3.948222038857477382457656705390997165480"),
            ("2", "1/3", "1.259921049894873164767210607278228350570"),
            ("5", "-1/2", "0.4472135954999579392818347337462552470881"),
        ] {
            let a = pw(x, k, 40);
            assert!(!a.exact, "{x}^({k})");
            assert_eq!(a.value, dec(want), "{x}^({k})");
        }
        // x^(1/2) is sqrt(x), both correctly rounded.
        for x in ["2", "1/3", "10", "0.001", "123456789/1000", "7.5"] {
            for digits in [10, 40, 100] {
                assert_eq!(pw(x, "1/2", digits), val(Func::Sqrt, x, digits), "{x}^(1/2) at {digits}");
            }
        }
    }

    #[test]
    fn rational_power_retries_and_fallback_agree() {
        let limits = Limits::default();
        for (x, k) in [("3", "5/4"), ("1/7", "-2/3"), ("1000", "7/5"), ("2.5", "1/9")] {
            let (x, k) = (rat(x), rat(k));
            let want = pow_rational(&x, &k, 40, &limits).unwrap();
            assert_eq!(pow_rational_with_guards(&x, &k, 40, &limits, &[0, 1, 2, 64]).unwrap(), want);
            let faithful = pow_rational_with_guards(&x, &k, 40, &limits, &[]).unwrap();
            assert!((faithful.value - &want.value).abs() <= rat("1e-38") * want.value.abs());
        }
    }

    #[test]
    fn rational_power_errors_are_refused_before_computing() {
        let limits = Limits::default();
        let err = |x: &str, k: &str| pow_rational(&rat(x), &rat(k), 40, &limits).unwrap_err();
        assert_eq!(
            err("-4", "1/2").to_string(),
            "(-4)^(1/2) is undefined: an even root of a negative number"
        );
        assert!(matches!(err("-8", "1/3"), RootError::NegativeBase { .. }));
        assert!(err("-8", "1/3").to_string().contains("-(8)^(1/3)"), "{}", err("-8", "1/3"));
        assert_eq!(err("0", "-1/2"), RootError::Pow(PowError::ZeroToNegative));
        let start = std::time::Instant::now();
        assert!(matches!(err("2", "1/100000"), RootError::Denominator { limit: 10_000, .. }));
        assert_eq!(
            err("2", "1/100000").to_string(),
            "the exponent's denominator 100000 is too large (limit 10000; raise it with --max-exponent)"
        );
        assert_eq!(err("2", "100001/2"), RootError::Pow(PowError::Exponent(10_000)));
        assert!(matches!(err("1e1000", "9999/2"), RootError::Pow(PowError::Digits { .. })));
        assert!(matches!(err("1e-1000", "-9999/2"), RootError::Pow(PowError::Digits { .. })));
        let huge = Rat::from_integer(pow10(100_000)) + Rat::one();
        assert!(matches!(pow_rational(&huge, &rat("1/3"), 40, &limits), Err(RootError::TooLarge { .. })));
        assert!(start.elapsed().as_millis() < 500, "{:?}", start.elapsed());
        // Large but accepted: the 10000th root.
        let a = pw("3", "9999/10000", 30);
        assert_eq!(a.value, dec("2.99967043441697101300991147862"));
    }

    #[test]
    fn integer_roots_are_floors_and_fast_for_large_degrees() {
        let start = std::time::Instant::now();
        for (v, b) in [
            (BigInt::from(3) << 1_400_000usize, 10_000u32),
            ((BigInt::one() << 2_000_000usize) - 1u32, 9_999),
            (BigInt::from(7).pow(5000u32), 5000),
            (BigInt::from(7).pow(5000u32) - 1u32, 5000),
            (BigInt::from(10).pow(400u32) + 1u32, 7),
            (BigInt::from(5), 4),
        ] {
            let r = nth_root_floor(&v, b);
            assert!(
                num_traits::Pow::pow(&r, b) <= v && v < num_traits::Pow::pow(&(&r + 1u32), b),
                "root {b} of a {}-bit number",
                v.bits()
            );
        }
        assert_eq!(nth_root_floor(&BigInt::from(7).pow(5000u32), 5000), BigInt::from(7));
        assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
    }

    /// `iv` as exact rationals `(lo, hi)`.
    fn bounds(iv: &Iv) -> (Rat, Rat) {
        let two = |m: &BigInt| {
            let (n, d) = binary_parts(m, iv.e);
            Rat::new(n, d)
        };
        (two(&iv.lo), two(&iv.hi))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 300, failure_persistence: None, ..Default::default() })]

        /// The enclosure of x^(a/b) contains it (checked exactly:
        /// lo^b <= x^a <= hi^b), is narrower than 10^-(digits-1) relative,
        /// and the rounded value is within one unit of its last digit.
        #[test]
        fn rational_power_enclosures_contain_the_value(
            n in 1u64..2_000_000, d in 1u64..5_000, a in -24i64..24, b in 2u32..13, digits in 5u32..60,
        ) {
            proptest::prop_assume!(a != 0);
            let x = Rat::new(BigInt::from(n), BigInt::from(d));
            let xa = num_traits::Pow::pow(&x, a as i32);
            let bits = (f64::from(digits) * std::f64::consts::LOG2_10).ceil() as u64 + 1;
            let iv = rat_pow_iv(x.numer(), x.denom(), a.unsigned_abs(), a < 0, b, bits);
            let (lo, hi) = bounds(&iv);
            proptest::prop_assert!(lo.is_positive() && lo <= hi);
            proptest::prop_assert!(num_traits::Pow::pow(&lo, b) <= xa, "lower end too high: {} {}", lo, hi);
            proptest::prop_assert!(xa <= num_traits::Pow::pow(&hi, b), "upper end too low: {} {}", lo, hi);
            let tol = Rat::new(BigInt::one(), pow10(u64::from(digits) - 1));
            proptest::prop_assert!((&hi - &lo) / &lo < tol, "too wide: {} {}", lo, hi);
            // The correctly rounded value, checked the same way.
            let k = Rat::new(BigInt::from(a), BigInt::from(b));
            let v = pow_rational(&x, &k, digits, &Limits::default()).unwrap();
            let (ka, kb) = (k.numer().to_i32().unwrap(), k.denom().to_u32().unwrap());
            let want = num_traits::Pow::pow(&x, ka);
            if v.exact {
                proptest::prop_assert_eq!(num_traits::Pow::pow(&v.value, kb), want);
            } else {
                let below = &v.value * (Rat::one() - &tol);
                let above = &v.value * (Rat::one() + &tol);
                proptest::prop_assert!(num_traits::Pow::pow(&below, kb) < want);
                proptest::prop_assert!(want < num_traits::Pow::pow(&above, kb));
            }
        }
    }

    #[test]
    fn shifts_round_correctly() {
        for v in [-9i64, -8, -7, -1, 0, 1, 7, 8, 9] {
            let b = BigInt::from(v);
            assert_eq!(floor_shr(&b, 2), BigInt::from(v.div_euclid(4)));
            assert_eq!(ceil_shr(&b, 2), BigInt::from(-((-v).div_euclid(4))));
        }
    }
}
