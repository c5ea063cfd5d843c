//! Exact numbers: the one numeric type of the exact core, its parsing from
//! decimal text and its printing.
//!
//! Every number errband reads (CSV cells, model and formula literals) is parsed
//! from its *text* into an exact rational: `897.09` is 89709/100 and
//! `1.9312e-7` is 19312/10^11. Nothing in the exact core is ever built from an
//! `f64`. The only conversion to floating point is [`to_f64`], used to propose
//! LP bases and to draw plots.

use crate::limits::{Limit, Limits};
use num_bigint::{BigInt, BigUint, Sign};
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

pub(crate) mod echelon;
pub(crate) mod small;
pub mod transcendental;

/// An exact rational number (arbitrary-precision numerator and denominator,
/// always in lowest terms with a positive denominator).
pub type Rat = num_rational::BigRational;

/// Why a piece of text is not an exact number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NumError {
    /// The text is empty.
    #[error("empty number")]
    Empty,
    /// The text is not a decimal, scientific or fraction literal.
    #[error("`{0}` is not a number (expected e.g. 12, -0.0088823, 1.9312e-7 or 14244/5)")]
    Syntax(String),
    /// `1_000` in measured data: a digit separator is how a program writes
    /// a literal, not how a measuring tool writes a number.
    #[error(
        "`{0}` has a digit separator `_`, which measured data does not use (write the number without it)"
    )]
    Separator(String),
    /// NaN and infinities have no exact value.
    #[error("`{0}` is not a finite number")]
    NotFinite(String),
    /// `p/0`.
    #[error("`{0}` divides by zero")]
    ZeroDenominator(String),
    /// The exponent or the digit count exceeds its [`Limits`] entry.
    #[error("`{text}` exceeds the {what} limit (limit {limit}; raise it with {flag})", what = what_of(*.kind), flag = .kind.flag())]
    TooLarge {
        /// The offending literal (truncated when long).
        text: String,
        /// Which limit: [`Limit::Exponent`] or [`Limit::Digits`].
        kind: Limit,
        /// The limit in force.
        limit: u64,
    },
}

fn what_of(kind: Limit) -> &'static str {
    if kind == Limit::Digits {
        "digit count"
    } else {
        "exponent"
    }
}

pub(crate) fn shorten(s: &str) -> String {
    if s.chars().count() > 40 {
        let head: String = s.chars().take(37).collect();
        format!("{head}...")
    } else {
        s.to_string()
    }
}

/// Parses an exact rational from text with the default [`Limits`].
///
/// Accepts integers (`12`), decimals (`-0.0088823`, `.5`, `5.`), scientific
/// notation (`1.9312e-7`, `2E+3`) and fractions of two such numbers
/// (`14244/5`, `1.5/3`). Surrounding whitespace is ignored.
pub fn parse_rat(text: &str) -> Result<Rat, NumError> {
    parse_rat_with(text, Limits::default())
}

/// [`parse_rat`] with explicit limits.
pub fn parse_rat_with(text: &str, limits: Limits) -> Result<Rat, NumError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(NumError::Empty);
    }
    if let Some((num, den)) = t.split_once('/') {
        let n = parse_decimal(num.trim(), t, limits)?;
        let d = parse_decimal(den.trim(), t, limits)?;
        if d.is_zero() {
            return Err(NumError::ZeroDenominator(shorten(t)));
        }
        return Ok(n / d);
    }
    parse_decimal(t, t, limits)
}

fn parse_decimal(s: &str, whole: &str, limits: Limits) -> Result<Rat, NumError> {
    let lower = s.to_ascii_lowercase();
    let unsigned = lower.trim_start_matches(['+', '-']);
    if matches!(unsigned, "nan" | "inf" | "infinity") {
        return Err(NumError::NotFinite(shorten(whole)));
    }
    let bytes = s.as_bytes();
    let mut i = 0;
    let mut negative = false;
    if i < bytes.len() && (bytes[i] == b'+' || bytes[i] == b'-') {
        negative = bytes[i] == b'-';
        i += 1;
    }
    let mut digits = String::new();
    let mut frac_len: usize = 0;
    let mut seen_digit = false;
    let mut seen_point = false;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_digit() {
            digits.push(c as char);
            seen_digit = true;
            if seen_point {
                frac_len += 1;
            }
        } else if c == b'.' && !seen_point {
            seen_point = true;
        } else if c == b'_' && seen_digit {
            // digit separators as in Rust literals: 1_000_000
        } else {
            break;
        }
        i += 1;
    }
    if !seen_digit {
        return Err(NumError::Syntax(shorten(whole)));
    }
    let mut exp: i64 = 0;
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        i += 1;
        let start = i;
        if i < bytes.len() && (bytes[i] == b'+' || bytes[i] == b'-') {
            i += 1;
        }
        let dstart = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        if dstart == i {
            return Err(NumError::Syntax(shorten(whole)));
        }
        let etext = &s[start..i];
        let e: i64 = match etext.parse() {
            Ok(e) => e,
            Err(_) => {
                return Err(NumError::TooLarge {
                    text: shorten(whole),
                    kind: Limit::Exponent,
                    limit: limits.exponent,
                })
            }
        };
        exp = e;
    }
    if i != bytes.len() {
        return Err(NumError::Syntax(shorten(whole)));
    }
    let significant = digits.trim_start_matches('0').len();
    if significant > limits.digits {
        return Err(NumError::TooLarge {
            text: shorten(whole),
            kind: Limit::Digits,
            limit: limits.digits as u64,
        });
    }
    let total_exp = exp - frac_len as i64;
    if exp.unsigned_abs() > limits.exponent
        || total_exp.unsigned_abs() > limits.exponent.saturating_add(limits.digits as u64)
    {
        return Err(NumError::TooLarge {
            text: shorten(whole),
            kind: Limit::Exponent,
            limit: limits.exponent,
        });
    }
    let mut mantissa: BigInt = digits.parse().map_err(|_| NumError::Syntax(shorten(whole)))?;
    if negative {
        mantissa = -mantissa;
    }
    Ok(scale_pow10(Rat::from_integer(mantissa), total_exp))
}

/// `x * 10^e` exactly.
pub fn scale_pow10(x: Rat, e: i64) -> Rat {
    let p = Rat::from_integer(pow10(e.unsigned_abs()));
    // `mul`/`div` cancel with gcds against the power alone; num-rational's
    // operators took binary gcds of the whole (long) numerator.
    if e >= 0 {
        mul(&x, &p)
    } else {
        div(&x, &p)
    }
}

/// `10^e` as a big integer.
pub fn pow10(e: u64) -> BigInt {
    pow10_ref(e).into_owned()
}

/// `10^e`, borrowed from a table for `e < 128`: decimal views ask for the
/// same few powers millions of times (a band table of 100 000 points).
fn pow10_ref(e: u64) -> std::borrow::Cow<'static, BigInt> {
    static TABLE: std::sync::OnceLock<Vec<BigInt>> = std::sync::OnceLock::new();
    power(&TABLE, 10, e)
}

/// `5^e`, likewise: every rounding of a model's basis asks whether a
/// denominator is a power of five ([`within_sig`]).
fn pow5_ref(e: u64) -> std::borrow::Cow<'static, BigInt> {
    static TABLE: std::sync::OnceLock<Vec<BigInt>> = std::sync::OnceLock::new();
    power(&TABLE, 5, e)
}

/// `base^e` from `table` (the first 128 powers of `base`, made once).
fn power(
    table: &'static std::sync::OnceLock<Vec<BigInt>>,
    base: u32,
    e: u64,
) -> std::borrow::Cow<'static, BigInt> {
    let table = table.get_or_init(|| {
        let mut v = vec![BigInt::one()];
        for i in 1..128 {
            let next: BigInt = &v[i - 1] * base;
            v.push(next);
        }
        v
    });
    match table.get(e as usize) {
        Some(p) => std::borrow::Cow::Borrowed(p),
        None => std::borrow::Cow::Owned(num_traits::pow::pow(BigInt::from(base), e as usize)),
    }
}

/// The exact fraction text of `x`: `-1101248/81125`, `3`, `0`.
pub fn fmt_fraction(x: &Rat) -> String {
    let mut out = String::new();
    write_fraction(&mut out, x);
    out
}

/// [`fmt_fraction`] appended to `out`.
pub fn write_fraction(out: &mut String, x: &Rat) {
    use std::fmt::Write;
    // Machine-word fast path: num-bigint's Display converts through a digit
    // vector, a third of a 100 000-point CSV's time.
    let _ = match (x.numer().to_i128(), x.denom().to_i128()) {
        (Some(n), Some(d)) => {
            write_fraction_i128(out, n, d);
            Ok(())
        }
        _ if x.denom().is_one() => write!(out, "{}", x.numer()),
        _ => write!(out, "{}/{}", x.numer(), x.denom()),
    };
}

/// [`write_fraction`] of `n/d`, already in lowest terms with `d > 0`.
pub(crate) fn write_fraction_i128(out: &mut String, n: i128, d: i128) {
    let mut buf = itoa::Buffer::new();
    out.push_str(buf.format(n));
    if d != 1 {
        out.push('/');
        out.push_str(buf.format(d));
    }
}

/// [`write_sig_parts`] of `n/d` (`d > 0`, not necessarily in lowest
/// terms) in 128-bit integers: the float proposal is formed from the two
/// words directly (each converted with one rounding, one division: a
/// relative error below 2^-51, inside [`round_sig_float`]'s margin), and
/// only a proposal that cannot be certified takes the big-integer path.
pub(crate) fn write_sig_i128(out: &mut String, n: i128, d: i128, sig: usize) {
    if n == 0 {
        out.push('0');
        return;
    }
    write_sig_proposed(out, n.unsigned_abs() as f64 / d as f64, n < 0, sig, || {
        (BigInt::from(n), BigInt::from(d))
    });
}

/// The `sig` significant digits of a non-zero exact value whose magnitude
/// `x` approximates within [`round_sig_float`]'s margin: written from the
/// float where it certifies them, else from the exact `n/d` that `exact`
/// forms (`d > 0`, sign in `n`) only then.
fn write_sig_proposed(
    out: &mut String,
    x: f64,
    negative: bool,
    sig: usize,
    exact: impl FnOnce() -> (BigInt, BigInt),
) {
    let sig = sig.max(1);
    match round_sig_float(x, sig) {
        Some((q, e)) => {
            let mut buf = [0u8; 20];
            let digits = u64_digits(q, &mut buf);
            write_layout(out, negative, digits, e, sig);
        }
        None => {
            let (n, d) = exact();
            write_sig_parts(out, &n, &d, sig)
        }
    }
}

/// `floor(log10(n/d))` for `n, d > 0`, from an estimate by bit lengths
/// corrected by exact integer comparison (no rational arithmetic, so no
/// gcds: printing stays cheap for the huge denominators of exact fits).
pub(crate) fn decimal_exponent_parts(n: &BigInt, d: &BigInt) -> i64 {
    let bits = n.bits() as i64 - d.bits() as i64;
    let mut e = ((bits as f64) * std::f64::consts::LOG10_2).floor() as i64;
    loop {
        if cmp_pow10(n, d, e) == std::cmp::Ordering::Less {
            e -= 1;
            continue;
        }
        if cmp_pow10(n, d, e + 1) != std::cmp::Ordering::Less {
            e += 1;
            continue;
        }
        return e;
    }
}

/// Compares `n/d` with `10^e` (`n, d > 0`).
fn cmp_pow10(n: &BigInt, d: &BigInt, e: i64) -> std::cmp::Ordering {
    let p = pow10(e.unsigned_abs());
    if e >= 0 {
        n.cmp(&(d * p))
    } else {
        (n * p).cmp(d)
    }
}

/// `|x|·10^s` rounded to the nearest integer, ties to even, in integers.
fn round_scaled(x: &Rat, s: i64) -> BigInt {
    let p = pow10(s.unsigned_abs());
    let n = x.numer().abs();
    let (num, den) = if s >= 0 { (n * p, x.denom().clone()) } else { (n, x.denom() * p) };
    round_half_even_parts(&num, &den)
}

/// `num/den` (non-negative) rounded to the nearest integer, ties to even.
pub(crate) fn round_half_even_parts(num: &BigInt, den: &BigInt) -> BigInt {
    let (q, r) = num.div_rem(den);
    let twice = &r * 2u32;
    match twice.cmp(den) {
        std::cmp::Ordering::Less => q,
        std::cmp::Ordering::Greater => q + 1u32,
        std::cmp::Ordering::Equal => {
            if q.is_even() {
                q
            } else {
                q + 1u32
            }
        }
    }
}

/// A correctly rounded decimal view of `x` with at most `sig` significant
/// digits (round half to even; trailing zeros dropped). Plain notation for
/// moderate magnitudes, scientific (`-7.96273e-8`) otherwise.
pub fn fmt_sig(x: &Rat, sig: usize) -> String {
    fmt_sig_parts(x.numer(), x.denom(), sig)
}

/// [`fmt_sig`] of `n/d` (`d > 0`), which need not be in lowest terms: a
/// value formed only to be shown never pays for its reduction.
pub fn fmt_sig_parts(n: &BigInt, d: &BigInt, sig: usize) -> String {
    let mut out = String::new();
    write_sig_parts(&mut out, n, d, sig);
    out
}

/// `100·x` as [`fmt_sig`] shows it: a percentage formed only to be shown,
/// `n·100/d` unreduced and rounded once (num-rational's `*` takes a gcd of
/// `d`, which may be long, with 100).
pub fn fmt_pct_sig(x: &Rat, sig: usize) -> String {
    fmt_sig_parts(&(x.numer() * 100), x.denom(), sig)
}

/// [`fmt_sig_parts`] appended to `out`: a table of 10^6 rows writes its
/// decimals in place, without a string per cell.
pub fn write_sig_parts(out: &mut String, n: &BigInt, d: &BigInt, sig: usize) {
    let sig = sig.max(1);
    if n.is_zero() {
        out.push('0');
        return;
    }
    match sig_digits_float(n.magnitude(), d.magnitude(), sig) {
        Some((q, e)) => {
            let mut buf = [0u8; 20];
            let digits = u64_digits(q, &mut buf);
            write_layout(out, n.is_negative(), digits, e, sig);
        }
        None => {
            let (q, e) = sig_digits_exact(&n.abs(), d, sig);
            write_layout(out, n.is_negative(), &q.to_string(), e, sig);
        }
    }
}

/// [`write_sig_parts`] of the product `(a.0/a.1)·(b.0/b.1)` (`a.1, b.1 > 0`)
/// of two 128-bit fractions: the float proposal is formed from the four
/// words (seven roundings, a relative error below 2^-49, inside
/// [`round_sig_float`]'s margin); only a proposal that cannot be
/// certified forms the products in big integers.
pub(crate) fn write_sig_product_i128(out: &mut String, a: (i128, i128), b: (i128, i128), sig: usize) {
    if a.0 == 0 || b.0 == 0 {
        out.push('0');
        return;
    }
    let x = (a.0.unsigned_abs() as f64 / a.1 as f64) * (b.0.unsigned_abs() as f64 / b.1 as f64);
    let big = BigInt::from;
    write_sig_proposed(out, x, (a.0 < 0) != (b.0 < 0), sig, || (big(a.0) * big(b.0), big(a.1) * big(b.1)));
}

/// The decimal digits of `q`, in `buf`.
fn u64_digits(mut q: u64, buf: &mut [u8; 20]) -> &str {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (q % 10) as u8;
        q /= 10;
        if q == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    std::str::from_utf8(&buf[i..]).unwrap_or("0")
}

/// The `sig` significant digits of `n/d > 0` rounded half to even, as an
/// integer in `[10^(sig-1), 10^sig)`, and the decimal exponent of the
/// rounded value; exact integer arithmetic throughout.
fn sig_digits_exact(n: &BigInt, d: &BigInt, sig: usize) -> (BigInt, i64) {
    let mut e = decimal_exponent_parts(n, d);
    let s = sig as i64 - 1 - e;
    let p = pow10(s.unsigned_abs());
    let mut q = if s >= 0 { round_half_even_parts(&(n * p), d) } else { round_half_even_parts(n, &(d * p)) };
    if q == pow10(sig as u64) {
        q = pow10(sig as u64 - 1);
        e += 1;
    }
    (q, e)
}

/// Whether `x` (nonzero, in lowest terms) is a decimal fraction `n/10^m`
/// with `n < 10^sig`, which is then its own rounding to `sig` digits: the
/// products of already rounded values that a model's basis rounds again
/// are mostly such (a parameter times `log2(3)`), and this test costs a
/// power of five where the rounding costs two long divisions. `false`
/// only means "not known", never "not short".
fn within_sig(x: &Rat, sig: u32) -> bool {
    let d = x.denom();
    let twos = d.trailing_zeros().unwrap_or(0);
    let odd = d >> twos;
    // The odd part must be 5^f; bits(5^f) = floor(f·log2 5) + 1.
    let f = ((odd.bits().saturating_sub(1)) as f64 / 5f64.log2()).round() as u64;
    if odd != *pow5_ref(f) {
        return false;
    }
    let m = twos.max(f);
    let n = (x.numer().abs() << (m - twos)) * &*pow5_ref(m - f);
    n < *pow10_ref(u64::from(sig))
}

/// `x` correctly rounded (half to even) to `sig` significant decimal
/// digits, as an exact rational (a decimal fraction).
pub(crate) fn round_sig(x: &Rat, sig: u32) -> Rat {
    if x.is_zero() {
        return x.clone();
    }
    let sig = sig.max(1);
    if within_sig(x, sig) {
        return x.clone();
    }
    let (q, e) = sig_digits_exact(&x.numer().abs(), x.denom(), sig as usize);
    let s = e - (i64::from(sig) - 1);
    let m =
        if s >= 0 { Rat::from_integer(q * pow10(s as u64)) } else { Rat::new(q, pow10(s.unsigned_abs())) };
    if x.is_negative() {
        -m
    } else {
        m
    }
}

/// A point coordinate for messages: the exact value, as a decimal when it
/// is one (`110`, `0.5`), else a fraction.
pub fn show_value(v: &Rat) -> String {
    // Integers of up to 30 digits print as themselves (what the round trip
    // below would find, without the parse; CSVs show 10^5 points).
    if v.is_integer() && v.numer().bits() < 96 {
        return v.numer().to_string();
    }
    let s = fmt_sig(v, 30);
    if crate::num::parse_rat(&s).ok().as_ref() == Some(v) {
        s
    } else {
        fmt_fraction(v)
    }
}

/// Powers of ten that `f64` holds exactly (5^22 < 2^53).
const POW10_F64: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
    1e19, 1e20, 1e21, 1e22,
];

/// The top 64 bits of `m > 0` as a float `t` and the shift `b` with
/// `m ≈ t·2^b`: relative error below 2^-52 (truncation to 64 bits, then one
/// rounding to 53), whatever the length of `m`.
fn top_bits(m: &BigUint) -> (f64, i64) {
    let bits = m.bits() as i64;
    let mut words = m.iter_u64_digits().rev();
    let hi = words.next().unwrap_or(0);
    let lo = words.next().unwrap_or(0);
    let lz = hi.leading_zeros();
    let top = if lz == 0 { hi } else { (hi << lz) | (lo >> (64 - lz)) };
    (top as f64, bits - 64)
}

/// [`sig_digits_exact`] proposed by floats and accepted only when the
/// float's rigorous error bound cannot change the answer; `None` sends the
/// caller to the exact path. Most rows of a band table end here: the exact
/// path costs two big multiplications and a long division per number.
///
/// The float `y ≈ n/d·10^s` has relative error below 2^-50 (two top-bit
/// extractions, one division, one scaling by an exact power of ten), so a
/// margin of `y·2^-48` is safe. The digits are accepted when `y` is that far
/// from the ends of `[10^(sig-1), 10^sig)` (the exponent is then exact) and
/// from the rounding midpoint (the rounding is then exact). Ties, and
/// values that floats cannot hold, always take the exact path.
fn sig_digits_float(n: &BigUint, d: &BigUint, sig: usize) -> Option<(u64, i64)> {
    if sig > 12 {
        return None; // the margin would exceed half a unit of the last digit
    }
    let (tn, bn) = top_bits(n);
    let (td, bd) = top_bits(d);
    let shift = bn - bd;
    if shift.abs() > 900 {
        return None;
    }
    round_sig_float(tn / td * 2f64.powi(shift as i32), sig)
}

/// The `sig` significant digits of `x`, a float within a few units in the
/// last place of an exact positive value, and their decimal exponent; `None`
/// when that error could change the rounding (near a tie, or near a power
/// of ten), so that exact arithmetic decides.
fn round_sig_float(x: f64, sig: usize) -> Option<(u64, i64)> {
    if !x.is_normal() || sig > 12 {
        return None;
    }
    let mut e = x.log10().floor() as i64;
    let s = sig as i64 - 1 - e;
    let scale = *POW10_F64.get(s.unsigned_abs() as usize)?;
    let y = if s >= 0 { x * scale } else { x / scale };
    let tol = y * (2f64).powi(-48);
    let (lo, hi) = (POW10_F64[sig - 1], POW10_F64[sig]);
    if !(y - tol >= lo && y + tol < hi) {
        return None; // log10's guess may be one off; let exact arithmetic decide
    }
    let floor = y.floor();
    let frac = y - floor;
    if (frac - 0.5).abs() <= tol {
        return None;
    }
    let mut q = if frac > 0.5 { floor + 1.0 } else { floor };
    if q == hi {
        q = lo;
        e += 1;
    }
    Some((q as u64, e))
}

/// `sqrt(n/d)` (`n, d > 0`) correctly rounded to `sig` significant
/// digits: floats propose the digits, and exact integer arithmetic
/// certifies them (the root lies strictly inside their rounding interval:
/// its ends squared bracket `n/d`). `None` when the proposal fails or is
/// not certified; then an exact enclosure must decide.
pub(crate) fn fmt_sqrt_sig(n: &BigInt, d: &BigInt, sig: usize) -> Option<String> {
    let sig = sig.max(1);
    if !n.is_positive() || !d.is_positive() {
        return None;
    }
    let (tn, bn) = top_bits(n.magnitude());
    let (td, bd) = top_bits(d.magnitude());
    let shift = bn - bd;
    if shift.abs() > 1800 {
        return None;
    }
    // An even power of two leaves the root's exponent whole.
    let (ratio, half) = if shift % 2 == 0 { (tn / td, shift / 2) } else { (2.0 * tn / td, (shift - 1) / 2) };
    let (q, e) = round_sig_float(ratio.sqrt() * 2f64.powi(half as i32), sig)?;
    // The value is q·10^k; it is the rounding of every x in (lo, hi) with
    // lo = L·10^k/20 and hi = H·10^k/20 (below a power of ten the digits
    // are ten times finer, so the lower end is closer).
    let k = e - (sig as i64 - 1);
    let q20 = BigInt::from(q) * 20u32;
    let lower_step = if q == 10u64.pow(sig as u32 - 1) { 1u32 } else { 10 };
    let (l, h) = (&q20 - lower_step, &q20 + 10u32);
    // lo² < n/d < hi²  ⇔  L²·10^2k·d < 400·n < H²·10^2k·d (10^2k moved to
    // the other side when k < 0).
    let (up, down) =
        if k >= 0 { (pow10(2 * k as u64), BigInt::one()) } else { (BigInt::one(), pow10(2 * (-k) as u64)) };
    let middle = n * 400u32 * down;
    let scale = up * d;
    if !(&l * &l * &scale < middle && middle < &h * &h * &scale) {
        return None;
    }
    let mut out = String::new();
    let mut buf = [0u8; 20];
    write_layout(&mut out, false, u64_digits(q, &mut buf), e, sig);
    Some(out)
}

/// Lays out rounded digits `q` (exactly `sig` of them) with decimal
/// exponent `e`, appended to `out`: trailing zeros dropped, plain notation
/// for moderate magnitudes, scientific otherwise.
fn write_layout(out: &mut String, negative: bool, digits: &str, e: i64, sig: usize) {
    debug_assert_eq!(digits.len(), sig);
    let digits = match digits.trim_end_matches('0') {
        "" => &digits[..1],
        t => t,
    };
    if negative {
        out.push('-');
    }
    let plain = (-5..sig.max(7) as i64).contains(&e);
    if plain {
        if e < 0 {
            out.push_str("0.");
            for _ in 0..(-e - 1) {
                out.push('0');
            }
            out.push_str(digits);
        } else {
            let int_len = e as usize + 1;
            if digits.len() <= int_len {
                out.push_str(digits);
                for _ in 0..int_len - digits.len() {
                    out.push('0');
                }
            } else {
                out.push_str(&digits[..int_len]);
                out.push('.');
                out.push_str(&digits[int_len..]);
            }
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        use std::fmt::Write;
        let _ = write!(out, "{e}");
    }
}

/// A correctly rounded decimal view of `x` with exactly `places` digits after
/// the point (round half to even), e.g. for tables with a fixed layout.
pub fn fmt_fixed(x: &Rat, places: usize) -> String {
    let q = round_scaled(x, places as i64).to_string();
    let sign = if x.is_negative() && q.chars().any(|c| c != '0') { "-" } else { "" };
    if places == 0 {
        return format!("{sign}{q}");
    }
    let padded = if q.len() <= places { format!("{}{}", "0".repeat(places + 1 - q.len()), q) } else { q };
    let (int, frac) = padded.split_at(padded.len() - places);
    format!("{sign}{int}.{frac}")
}

/// How a rational is shown to a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NumFormat {
    /// Exact fraction `p/q`.
    #[default]
    Exact,
    /// Correctly rounded decimal with this many significant digits.
    Decimal(usize),
}

impl NumFormat {
    /// Formats `x` in this style.
    pub fn show(&self, x: &Rat) -> String {
        match self {
            NumFormat::Exact => fmt_fraction(x),
            NumFormat::Decimal(n) => fmt_sig(x, *n),
        }
    }
}

/// Nearest-ish `f64` of `x` (exact within one or two ulps); for float
/// proposals and plotting only, never fed back into the exact core.
pub fn to_f64(x: &Rat) -> f64 {
    ratio_to_f64(x.numer(), x.denom())
}

/// Nearest-ish `f64` of `n/d` (`d > 0`), without forming the rational (no gcd).
pub fn ratio_to_f64(n: &BigInt, d: &BigInt) -> f64 {
    if let (Some(nf), Some(df)) = (n.to_f64(), d.to_f64()) {
        if nf.is_finite() && df.is_finite() && df != 0.0 {
            return nf / df;
        }
    }
    // Huge numerator or denominator: shift both to 64 significant bits.
    let nb = n.bits() as i64;
    let db = d.bits() as i64;
    let ns = (nb - 64).max(0);
    let ds = (db - 64).max(0);
    let nf = (n.abs() >> ns as usize).to_f64().unwrap_or(0.0);
    let df = (d >> ds as usize).to_f64().unwrap_or(1.0);
    let v = (nf / df) * 2f64.powi((ns - ds).clamp(-2000, 2000) as i32);
    if n.sign() == Sign::Minus {
        -v
    } else {
        v
    }
}

/// Whether the value whose float view is `a` (within `a_err` of it) is
/// certainly below the one whose float view is `b` (from [`to_f64`],
/// within a few ulps): a filter that spares an exact comparison of long
/// fractions. Not finite, or too close to call: `false` (compare exactly).
pub fn surely_below(a: f64, a_err: f64, b: f64) -> bool {
    a.is_finite() && a_err.is_finite() && b.is_finite() && a + a_err < b - b.abs() * 1e-12
}

/// `x · 2^-shift` as an `f64`, within a few ulps (0 or subnormal when
/// tiny), read from the top two words of `x` in O(1). For float filters
/// over vectors of long integers: one shift per vector keeps every entry
/// in range, where `to_f64` would overflow to infinity past 1024 bits.
pub fn scaled_f64(x: &BigInt, shift: i64) -> f64 {
    let words = x.magnitude().iter_u64_digits();
    let len = words.len() as i64;
    let mut top = words.rev();
    let (hi, lo) = match (top.next(), top.next()) {
        (None, _) => return 0.0,
        (Some(h), l) => (h, l.unwrap_or(0)),
    };
    // |x| ≈ (hi·2^64 + lo)·2^(64·(len−2)) for len ≥ 2, hi·2^0 + 0 for len 1.
    let (m, base) = if len >= 2 {
        (hi as f64 * 18_446_744_073_709_551_616.0 + lo as f64, 64 * (len - 2))
    } else {
        (hi as f64, 0)
    };
    let v = ldexp(m, base - shift);
    if x.sign() == Sign::Minus {
        -v
    } else {
        v
    }
}

/// `m · 2^e` without intermediate overflow or underflow (steps of 2^±1000).
fn ldexp(mut m: f64, mut e: i64) -> f64 {
    while e > 1000 && m.is_finite() {
        m *= 2f64.powi(1000);
        e -= 1000;
    }
    while e < -1000 && m != 0.0 {
        m *= 2f64.powi(-1000);
        e += 1000;
    }
    m * 2f64.powi(e as i32)
}

/// Why an exact power was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PowError {
    /// `|n|` exceeds [`Limits::exponent`].
    #[error("exponent too large (limit |exponent| <= {0}; raise it with --max-exponent)")]
    Exponent(u64),
    /// The result would have more digits than [`Limits::number_digits`].
    #[error("exponent too large (the result would have about {digits} digits; limit {limit}; raise it with --max-number-digits)")]
    Digits {
        /// Estimated digits of the result.
        digits: u64,
        /// The limit in force.
        limit: usize,
    },
    /// `0^n` with `n < 0`.
    #[error("zero raised to a negative power")]
    ZeroToNegative,
}

/// `b^n` exactly, refusing results beyond `limits` before computing them
/// (so `2^1000000000` fails at once instead of exhausting memory).
pub fn pow_checked(b: &Rat, n: &BigInt, limits: &Limits) -> Result<Rat, PowError> {
    let m = n.abs().to_u64().filter(|&m| m <= limits.exponent).ok_or(PowError::Exponent(limits.exponent))?;
    let m32 = u32::try_from(m).map_err(|_| PowError::Exponent(limits.exponent))?;
    // x^m has at least m·(bits(x) − 1) + 1 bits: a lower bound, so the
    // digits reported are never overstated (2^20000: exactly 20001 bits).
    let at_least = |x: &BigInt| x.bits().saturating_sub(1).saturating_mul(m).saturating_add(1);
    let bits = at_least(b.numer()).saturating_add(at_least(b.denom()));
    if bits > limits.number_bits() {
        return Err(PowError::Digits { digits: Limits::digits_of_bits(bits), limit: limits.number_digits });
    }
    if b.is_zero() && n.is_negative() {
        return Err(PowError::ZeroToNegative);
    }
    let num = num_traits::Pow::pow(b.numer(), m32);
    let den = num_traits::Pow::pow(b.denom(), m32);
    // `b` is in lowest terms, so are its powers: no gcd (num-bigint's binary
    // gcd of a 30 000-bit power with 1 takes milliseconds).
    let (num, den) = if n.is_negative() { (den, num) } else { (num, den) };
    Ok(if den.is_negative() { Rat::new_raw(-num, -den) } else { Rat::new_raw(num, den) })
}

/// An exact operation refused because its result could pass
/// [`Limits::number_digits`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the result would have up to {digits} digits (limit {limit}; raise it with --max-number-digits)")]
pub struct DigitsError {
    /// An upper bound on the result's digits (numerator and denominator).
    pub digits: u64,
    /// The limit in force.
    pub limit: usize,
}

/// Bits of a rational's numerator and denominator together: the size that
/// [`Limits::number_digits`] bounds.
pub fn bits_of(r: &Rat) -> u64 {
    r.numer().bits() + r.denom().bits()
}

/// A field operation for [`arith_checked`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arith {
    /// `a + b`
    Add,
    /// `a − b`
    Sub,
    /// `a · b`
    Mul,
    /// `a / b` (`b` non-zero: the caller reports division by zero)
    Div,
}

/// `a op b` exactly, refused *before* computing when an upper bound on the
/// result's size passes `limits`: a chain of squarings or a product of many
/// large powers stops at the limit instead of exhausting memory. The bound
/// is the size without cancellation, so a result is refused only when it
/// could really be that large.
pub fn arith_checked(op: Arith, a: &Rat, b: &Rat, limits: &Limits) -> Result<Rat, DigitsError> {
    let limit = limits.number_bits();
    // Fast path: every bound of `arith_bound` is at most this.
    if bits_of(a) + bits_of(b) + 1 > limit {
        let bound = arith_bound(op, a, b);
        if bound > limit {
            return Err(DigitsError { digits: Limits::digits_of_bits(bound), limit: limits.number_digits });
        }
    }
    // Integers need no reduction: num-rational would take gcds with the
    // denominator 1, which num-bigint's binary gcd does in time quadratic
    // in the other operand's length.
    if a.is_integer() && b.is_integer() && op != Arith::Div {
        let (x, y) = (a.numer(), b.numer());
        return Ok(Rat::from_integer(match op {
            Arith::Add => x + y,
            Arith::Sub => x - y,
            _ => x * y,
        }));
    }
    Ok(match op {
        Arith::Add => add(a, b),
        Arith::Sub => sub_lowest(a, b),
        Arith::Mul => mul(a, b),
        Arith::Div => div(a, b),
    })
}

/// An upper bound on [`bits_of`] the result of `a op b`, from the sizes of
/// the operands alone (no cancellation assumed).
pub fn arith_bound(op: Arith, a: &Rat, b: &Rat) -> u64 {
    let (an, ad, bn, bd) = (a.numer().bits(), a.denom().bits(), b.numer().bits(), b.denom().bits());
    match op {
        Arith::Mul | Arith::Div => an + bn + ad + bd,
        Arith::Add | Arith::Sub if ad <= 1 && bd <= 1 => an.max(bn) + 2,
        Arith::Add | Arith::Sub => (an + bd).max(bn + ad) + 1 + ad + bd,
    }
}

/// An integer as a rational.
pub fn int(n: i64) -> Rat {
    Rat::from_integer(BigInt::from(n))
}

/// `n/d` as a rational. Panics only when `d == 0`, which callers never pass.
pub fn frac(n: i64, d: i64) -> Rat {
    Rat::new(BigInt::from(n), BigInt::from(d))
}

/// Least common multiple of the denominators of `xs` (1 for an empty list).
pub fn lcm_denoms<'a>(xs: impl IntoIterator<Item = &'a Rat>) -> BigInt {
    // Each denominator costs one remainder against the lcm so far, and a
    // gcd only when it does not divide it (one Euclid step already taken),
    // so a long list with a large running lcm stays cheap; an LP row's few
    // entries mostly share a power of ten or are integers, and need no set.
    let mut acc = BigInt::one();
    let mut last: Option<&BigInt> = None;
    for d in xs.into_iter().map(|x| x.denom()) {
        if d.is_one() || last == Some(d) {
            continue;
        }
        last = Some(d);
        let r = &acc % d;
        if !r.is_zero() {
            let g = gcd(d, &r);
            acc *= d / g;
        }
    }
    acc
}

/// The rational `n/d` (`d ≠ 0`) in lowest terms, from integers that were
/// combined without reduction (one gcd instead of one per operation).
pub fn reduced(n: BigInt, d: BigInt) -> Rat {
    let (n, d) = if d.is_negative() { (-n, -d) } else { (n, d) };
    if let (Some(nm), Some(dm)) = (n.magnitude().to_u128(), d.magnitude().to_u128()) {
        // Two machine words each (a band end at one of 10^5 points): no
        // allocation but the result's.
        let g = u128_gcd(nm, dm);
        if g <= 1 {
            return Rat::new_raw(n, d);
        }
        return Rat::new_raw(BigInt::from_biguint(n.sign(), BigUint::from(nm / g)), BigInt::from(dm / g));
    }
    let g = gcd(&n, &d);
    if g.is_one() {
        Rat::new_raw(n, d)
    } else {
        Rat::new_raw(n / &g, d / g)
    }
}

/// A sum of many rationals with unrelated short denominators (a basis
/// value's 40-digit enclosure per point), kept over the least common
/// multiple of the denominators seen: each term costs one division of
/// the long running denominator by the term's short one, and the result
/// one reduction, where num-rational's `+=` takes a gcd of the long
/// running numbers per term.
#[derive(Debug, Clone)]
pub struct Sum {
    /// The big-integer part `n/d`; `d` is meaningless while `n` is zero
    /// (a fresh sum holds no allocated 1 as its denominator).
    n: BigInt,
    d: BigInt,
    /// Terms whose parts fit in machine words are summed here first,
    /// `sn/sd` (`sd > 0`), in 128-bit integers: repetitions of short
    /// decimals, where a big-integer operation per term was most of a fit.
    sn: i128,
    sd: i128,
}

impl Default for Sum {
    fn default() -> Self {
        Sum { n: BigInt::zero(), d: BigInt::zero(), sn: 0, sd: 1 }
    }
}

impl Sum {
    /// Adds `pn/pd` (`pd > 0`, any form).
    pub fn add_parts(&mut self, pn: BigInt, pd: &BigInt) {
        if pn.is_zero() {
            return;
        }
        if self.n.is_zero() {
            (self.n, self.d) = (pn, pd.clone());
            return;
        }
        if pd.is_one() {
            self.n += pn * &self.d;
            return;
        }
        let (q, r) = self.d.div_rem(pd);
        if r.is_zero() {
            self.n += pn * q;
            return;
        }
        // lcm(d, pd) = d·(pd/g) with g = gcd(pd, d mod pd): a short gcd.
        let g = gcd(pd, &r);
        let (dg, pdg) = (&self.d / &g, pd / &g);
        self.n = &self.n * &pdg + pn * dg;
        self.d *= pdg;
    }

    /// Adds `a/b` (`b > 0`) to the machine-word part; false (and nothing
    /// added) when a result would not fit.
    fn add_small(&mut self, a: i128, b: i128) -> bool {
        if a == 0 {
            return true;
        }
        let g = gcd_i128(self.sd, b);
        let (sdg, bg) = (self.sd / g, b / g);
        // The denominator stays below 2^100 so that products stay far from overflow.
        let Some(d) = self.sd.checked_mul(bg).filter(|d| *d < 1 << 100) else { return false };
        match self.sn.checked_mul(bg).and_then(|x| a.checked_mul(sdg).and_then(|y| x.checked_add(y))) {
            Some(n) => {
                (self.sn, self.sd) = (n, d);
                true
            }
            None => false,
        }
    }

    /// Adds `x·y`.
    pub fn add_product(&mut self, x: &Rat, y: &Rat) {
        if x.is_zero() || y.is_zero() {
            return;
        }
        if let (Some(a), Some(b), Some(c), Some(d)) =
            (x.numer().to_i64(), x.denom().to_i64(), y.numer().to_i64(), y.denom().to_i64())
        {
            if self.add_small(i128::from(a) * i128::from(c), i128::from(b) * i128::from(d)) {
                return;
            }
        }
        self.add_parts(x.numer() * y.numer(), &(x.denom() * y.denom()));
    }

    /// Adds `x`.
    pub fn add(&mut self, x: &Rat) {
        if let (Some(a), Some(b)) = (x.numer().to_i64(), x.denom().to_i64()) {
            if self.add_small(i128::from(a), i128::from(b)) {
                return;
            }
        }
        self.add_parts(x.numer().clone(), x.denom());
    }

    /// The sum as one fraction, in no particular form.
    fn total(mut self) -> (BigInt, BigInt) {
        if self.n.is_zero() {
            return (BigInt::from(self.sn), BigInt::from(self.sd));
        }
        if self.sn != 0 {
            self.add_parts(BigInt::from(self.sn), &BigInt::from(self.sd));
        }
        (self.n, self.d)
    }

    /// The sum in lowest terms.
    pub fn value(self) -> Rat {
        if self.n.is_zero() {
            // Only word-sized terms: reduced in words, one allocation per
            // part (`sd ≥ 1`, so the gcd is too).
            let g = gcd_i128(self.sn, self.sd);
            return Rat::new_raw(BigInt::from(self.sn / g), BigInt::from(self.sd / g));
        }
        let (n, d) = self.total();
        reduced(n, d)
    }

    /// The sum as kept, without the final reduction: for a caller that
    /// knows it is already in lowest terms (one term in lowest terms, or
    /// the square of one), where the reduction is a gcd of long numbers
    /// that is bound to be 1.
    pub fn value_as_kept(self) -> Rat {
        let (n, d) = self.total();
        Rat::new_raw(n, d)
    }
}

/// The greatest common divisor of two 128-bit integers (non-negative;
/// 0 when both are 0).
pub(crate) fn gcd_i128(a: i128, b: i128) -> i128 {
    // Below 2^127 in size, so the gcd fits.
    u128_gcd(a.unsigned_abs(), b.unsigned_abs()) as i128
}

/// `n/d` (`d ≠ 0`) in lowest terms, given that every prime dividing both
/// `n` and `d` divides `s`: the gcds are taken with the short `s` only
/// (`n mod s`, `d mod h`), never between the long `n` and `d`. For sums
/// like `x + a/b` with one long reduced fraction `a/b` and short others,
/// where `s` is the product of the short denominators.
pub fn reduced_dividing(mut n: BigInt, mut d: BigInt, s: &BigInt) -> Rat {
    if d.is_negative() {
        (n, d) = (-n, -d);
    }
    if n.is_zero() {
        return Rat::zero();
    }
    // Word-sized parts: one gcd of words (`reduced`) costs less than the
    // remainders and gcds below, each a new big integer.
    if s.is_zero() || (n.bits() <= 128 && d.bits() <= 128) {
        return reduced(n, d);
    }
    loop {
        let h = gcd(&(&n % s), s);
        let g = if h.is_one() { h } else { gcd(&(&d % &h), &h) };
        if g.is_one() {
            return Rat::new_raw(n, d);
        }
        n /= &g;
        d /= &g;
    }
}

/// The median of `ys` (`None` when there are none), by selection: O(n)
/// exact comparisons, in machine words when every numerator and
/// denominator fits in 64 bits (short decimals: one 128-bit cross product,
/// no big integer read per comparison).
pub fn median(mut ys: Vec<&Rat>) -> Option<Rat> {
    let small: Option<Vec<(i64, i64)>> =
        ys.iter().map(|y| Some((y.numer().to_i64()?, y.denom().to_i64()?))).collect();
    let (mid, lower) = match small {
        Some(mut v) => {
            let cmp = |a: &(i64, i64), b: &(i64, i64)| {
                (i128::from(a.0) * i128::from(b.1)).cmp(&(i128::from(b.0) * i128::from(a.1)))
            };
            let rat = |p: (i64, i64)| Rat::new_raw(BigInt::from(p.0), BigInt::from(p.1));
            let (mid, lower) = select_median(&mut v, cmp)?;
            (rat(mid), lower.map(rat))
        }
        None => {
            let (mid, lower) = select_median(&mut ys, |a, b| cmp_fast(a, b))?;
            (mid.clone(), lower.cloned())
        }
    };
    Some(match lower {
        None => mid,
        Some(l) => (l + mid) / Rat::from_integer(2.into()),
    })
}

/// The middle element of `v` under `cmp`, and for an even count the one
/// below it.
fn select_median<T: Copy>(v: &mut [T], cmp: impl Fn(&T, &T) -> std::cmp::Ordering) -> Option<(T, Option<T>)> {
    let n = v.len();
    if n == 0 {
        return None;
    }
    let (below, mid, _) = v.select_nth_unstable_by(n / 2, &cmp);
    let mid = *mid;
    let lower = if n % 2 == 0 { below.iter().copied().max_by(|a, b| cmp(a, b)) } else { None };
    Some((mid, lower))
}

/// Sorts exact values in increasing order: by their float views, then
/// each run of neighbours whose floats lie within a relative 1e-9 of each
/// other exactly ([`cmp_unreduced`]). Floats in different runs are apart by
/// far more than their conversion error, so their order is the values'
/// order; a view that is not finite, or too small to keep its relative
/// accuracy, sends the whole slice to the exact sort. A million
/// measurements at one point took seconds with num-rational's comparison
/// (a division per step); this costs one conversion per value.
pub fn sort_exact(xs: &mut [&Rat]) {
    let keys: Vec<f64> = xs.iter().map(|x| to_f64(x)).collect();
    let usable = |(f, x): (&f64, &&Rat)| f.is_finite() && (f.abs() >= 1e-280 || x.is_zero());
    if !keys.iter().zip(xs.iter()).all(usable) {
        xs.sort_by(|a, b| cmp_unreduced(a, b));
        return;
    }
    let mut order: Vec<(f64, &Rat)> = keys.into_iter().zip(xs.iter().copied()).collect();
    order.sort_by(|a, b| a.0.total_cmp(&b.0));
    let close = |a: f64, b: f64| (b - a).abs() <= 1e-9 * a.abs().max(b.abs());
    let mut start = 0;
    for i in 1..=order.len() {
        if i == order.len() || !close(order[i - 1].0, order[i].0) {
            if i - start > 1 {
                // Repeated measurements: equal values share a denominator.
                order[start..i].sort_by(|a, b| cmp_fast(a.1, b.1));
            }
            start = i;
        }
    }
    for (x, (_, v)) in xs.iter_mut().zip(order) {
        *x = v;
    }
}

/// Equality of two values in lowest terms (as parsed and computed
/// values are): their parts are equal exactly when they are, and
/// comparing parts avoids `Ratio`'s cross-multiplying comparison.
pub fn eq_lowest(a: &Rat, b: &Rat) -> bool {
    a.numer() == b.numer() && a.denom() == b.denom()
}

/// Orders two rationals: their numerators when the denominators agree
/// (repeated decimal measurements), else [`cmp_unreduced`]. num-rational's
/// own comparison divides when they differ.
pub fn cmp_fast(x: &Rat, y: &Rat) -> std::cmp::Ordering {
    if x.denom() == y.denom() {
        return x.numer().cmp(y.numer());
    }
    // Short decimals: one 128-bit cross product.
    match (x.numer().to_i64(), x.denom().to_i64(), y.numer().to_i64(), y.denom().to_i64()) {
        (Some(a), Some(b), Some(c), Some(d)) => {
            (i128::from(a) * i128::from(d)).cmp(&(i128::from(c) * i128::from(b)))
        }
        _ => cmp_unreduced(x, y),
    }
}

/// The smaller of two rationals by [`cmp_fast`], `a` when they are equal
/// (as `Ord::min`, without num-rational's dividing comparison).
pub fn min_fast<'a>(a: &'a Rat, b: &'a Rat) -> &'a Rat {
    if cmp_fast(a, b) == std::cmp::Ordering::Greater {
        b
    } else {
        a
    }
}

/// The larger of two rationals by [`cmp_fast`], `b` when they are equal
/// (as `Ord::max`).
pub fn max_fast<'a>(a: &'a Rat, b: &'a Rat) -> &'a Rat {
    if cmp_fast(a, b) == std::cmp::Ordering::Greater {
        a
    } else {
        b
    }
}

/// Orders two rationals in any (unreduced) form by one cross
/// multiplication (denominators positive): num-rational's `cmp` divides.
pub fn cmp_unreduced(x: &Rat, y: &Rat) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (sx, sy) = (x.numer().sign(), y.numer().sign());
    if sx != sy {
        return sx.cmp(&sy);
    }
    if sx == Sign::NoSign {
        return Ordering::Equal;
    }
    // Filter on the magnitudes' binary logarithms, read from the top words
    // (O(1)): only values within a relative 1e-12 of each other are
    // multiplied out. Sorting thousands of residuals with thousand-digit
    // denominators costs two long products per comparison otherwise.
    let log2 = |r: &Rat| {
        let (nb, db) = (r.numer().bits() as i64, r.denom().bits() as i64);
        let mn = scaled_f64(r.numer(), nb - 60).abs();
        let md = scaled_f64(r.denom(), db - 60);
        mn.log2() - md.log2() + (nb - db) as f64
    };
    let (lx, ly) = (log2(x), log2(y));
    if (lx - ly).abs() > 1e-9 {
        let mag = lx.total_cmp(&ly);
        return if sx == Sign::Minus { mag.reverse() } else { mag };
    }
    (x.numer() * y.denom()).cmp(&(y.numer() * x.denom()))
}

/// `x − y` with one reduction instead of num-rational's two binary gcds:
/// for results formed from long fractions in bulk. Operands may be
/// unreduced (QE shifts pass such); [`sub_lowest`] is faster when they are
/// not.
pub fn sub(x: &Rat, y: &Rat) -> Rat {
    if let Some(v) = in_words(x, y, small::Small::sub_reduced) {
        return v;
    }
    let (n, d) = sub_unreduced(x, y).into_raw();
    reduced(n, d)
}

/// `x + y` for operands in lowest terms (see [`mul`]). With `x = a/b` and
/// `y = c/d`, a prime dividing both `ad + cb` and `bd` divides both `b`
/// and `d`, so the gcds are taken with the shorter denominator only
/// ([`reduced_dividing`]): one Euclid step when it is a word, as when a
/// long band meets a measured time.
pub fn add(x: &Rat, y: &Rat) -> Rat {
    // A zero or two integers (a form's constant part, which is mostly
    // zero, minus a measurement) need no product and no gcd.
    if x.is_zero() {
        return y.clone();
    }
    if y.is_zero() {
        return x.clone();
    }
    if x.denom().is_one() && y.denom().is_one() {
        return Rat::from_integer(x.numer() + y.numer());
    }
    if let Some(v) = in_words(x, y, small::Small::add) {
        return v;
    }
    let (n, d) = (x.numer() * y.denom() + y.numer() * x.denom(), x.denom() * y.denom());
    let short = if x.denom().bits() <= y.denom().bits() { x.denom() } else { y.denom() };
    reduced_dividing(n, d, short)
}

/// `x − y` for operands in lowest terms, as [`add`]; [`sub`] takes any.
pub fn sub_lowest(x: &Rat, y: &Rat) -> Rat {
    if x.is_zero() {
        return -y;
    }
    // In words without forming −y first.
    in_words(x, y, small::Small::sub).unwrap_or_else(|| add(x, &-y))
}

/// `x − y` not reduced (positive denominator, no gcd): for values that are
/// only compared ([`cmp_unreduced`]), signed or reduced once later.
pub fn sub_unreduced(x: &Rat, y: &Rat) -> Rat {
    Rat::new_raw(x.numer() * y.denom() - y.numer() * x.denom(), x.denom() * y.denom())
}

/// `|x − y|` not reduced; see [`sub_unreduced`].
pub fn abs_sub_unreduced(x: &Rat, y: &Rat) -> Rat {
    let (n, d) = sub_unreduced(x, y).into_raw();
    Rat::new_raw(n.abs(), d)
}

/// `x · y` in lowest terms by cross-cancellation (operands in lowest
/// terms, as every `Rat` is unless made by an `_unreduced` helper): `gcd(a, d)` and
/// `gcd(c, b)` for `a/b · c/d`, each one Euclid step when a factor is a
/// word ([`gcd`]). num-rational's `*` reduces the same way but with
/// num-bigint's binary gcd, which crawls over a long operand.
pub fn mul(x: &Rat, y: &Rat) -> Rat {
    if x.is_zero() || y.is_zero() {
        return Rat::zero();
    }
    if let Some(v) = in_words(x, y, small::Small::mul) {
        return v;
    }
    let (a, d) = cancel(x.numer(), y.denom());
    let (c, b) = cancel(y.numer(), x.denom());
    Rat::new_raw(&*a * &*c, &*b * &*d)
}

/// `op(x, y)` in [`small::Small`]s when each part of `x` and `y` is below
/// 2^120: the word-sized paths of [`add`], [`sub`], [`sub_lowest`],
/// [`mul`] and [`div`] form no big-integer temporaries (a sum took five:
/// two cross products, the denominators' product, a remainder and a gcd),
/// only the result. The bound leaves the 128-bit operations their
/// headroom; past it, or when an intermediate would not fit (`None`), the
/// big-integer path gives the same value.
fn in_words(
    x: &Rat,
    y: &Rat,
    op: impl FnOnce(small::Small, small::Small) -> Option<small::Small>,
) -> Option<Rat> {
    let fits = |r: &Rat| r.numer().bits() <= 120 && r.denom().bits() <= 120;
    if !(fits(x) && fits(y)) {
        return None;
    }
    op(small::Small::of(x)?, small::Small::of(y)?).map(small::Small::to_rat)
}

/// `n/g` and `d/g` for `g = gcd(n, d)`, borrowed when `g = 1` (the usual
/// case keeps the operands).
fn cancel<'a>(n: &'a BigInt, d: &'a BigInt) -> (std::borrow::Cow<'a, BigInt>, std::borrow::Cow<'a, BigInt>) {
    use std::borrow::Cow;
    let g = gcd(n, d);
    if g.is_one() {
        (Cow::Borrowed(n), Cow::Borrowed(d))
    } else {
        (Cow::Owned(n / &g), Cow::Owned(d / &g))
    }
}

/// `x / y` (`y ≠ 0`) in lowest terms by cross-cancellation ([`mul`]).
pub fn div(x: &Rat, y: &Rat) -> Rat {
    if let Some(v) = in_words(x, y, small::Small::div) {
        return v;
    }
    let (n, d) = (y.denom().clone(), y.numer().clone());
    mul(x, &if d.is_negative() { Rat::new_raw(-n, -d) } else { Rat::new_raw(n, d) })
}

/// `x / y` (`y ≠ 0`) not reduced: only for correctly rounded decimal views,
/// which need no lowest terms.
pub fn div_unreduced(x: &Rat, y: &Rat) -> Rat {
    let (n, d) = (x.numer() * y.denom(), x.denom() * y.numer());
    if d.is_negative() {
        Rat::new_raw(-n, -d)
    } else {
        Rat::new_raw(n, d)
    }
}

/// `c + Σ fᵢ·vᵢ` as an unreduced fraction (no gcd at all), for values that
/// are only compared or reduced once later ([`reduced`]).
pub fn affine_unreduced(c: &Rat, f: &[Rat], v: &[Rat]) -> Rat {
    let (mut n, mut d) = (c.numer().clone(), c.denom().clone());
    for (x, y) in f.iter().zip(v) {
        if x.is_zero() || y.is_zero() {
            continue;
        }
        let (pn, pd) = (x.numer() * y.numer(), x.denom() * y.denom());
        if pd == d {
            n += pn;
        } else {
            n = n * &pd + pn * &d;
            d *= pd;
        }
    }
    Rat::new_raw(n, d)
}

/// `c + Σ fᵢ·vᵢ` in lowest terms: summed unreduced and reduced once
/// (num-rational's `+` and `*` take a gcd of long numbers per term; a
/// model's value at 10^5 points spent a fifth of a run there).
pub fn affine(c: &Rat, f: &[Rat], v: &[Rat]) -> Rat {
    let (n, d) = affine_unreduced(c, f, v).into_raw();
    reduced(n, d)
}

/// `gcd(|a|, |b|)`. num-bigint's binary gcd costs about 60 multiplications
/// at 200 digits; dashu's (Lehmer) is several times faster (4.5 against
/// 0.9 µs at 100 digits, 225 against 45 µs at 2 000), which matters where
/// many exact results are reduced once each (energy bounds, residuals,
/// LP rows). dashu-int 0.6.2 no longer panics on long operands whose
/// Euclid sequence meets a long quotient (0.4.3 did, and was capped at 32
/// words here); the unit tests keep those shapes.
pub fn gcd(a: &BigInt, b: &BigInt) -> BigInt {
    if a.is_zero() || b.is_zero() {
        return a.gcd(b);
    }
    let (long, short) = if a.bits() >= b.bits() { (a, b) } else { (b, a) };
    if long.bits() <= 128 {
        let w = |x: &BigInt| x.magnitude().to_u128().unwrap_or(0);
        return BigInt::from(u128_gcd(w(a), w(b)));
    }
    if short.bits() <= 64 {
        // One Euclid step brings the long operand to a word (a binary gcd
        // on it would shave a few bits per pass over all its words).
        let s = short.magnitude().iter_u64_digits().next().unwrap_or(0);
        let r = (long.magnitude() % s).iter_u64_digits().next().unwrap_or(0);
        return BigInt::from(u64_gcd(s, r));
    }
    let ub = |x: &BigInt| dashu_int::UBig::from_words(&x.magnitude().to_u64_digits());
    let g = dashu_int::ops::Gcd::gcd(&ub(a), &ub(b));
    match u64::try_from(&g) {
        Ok(small) => BigInt::from(small),
        Err(_) => BigInt::from(BigUint::from_bytes_le(&g.to_le_bytes())),
    }
}

/// `a·b` over the integers, skipping zero terms (the double description's
/// sign tests and the fraction-free simplex's pivots).
pub(crate) fn int_dot(a: &[BigInt], b: &[BigInt]) -> BigInt {
    let mut s = BigInt::zero();
    for (x, y) in a.iter().zip(b) {
        if !x.is_zero() && !y.is_zero() {
            s += x * y;
        }
    }
    s
}

/// Stein's binary gcd on two words: shifts and subtractions only (a
/// 128-bit division is a library call).
pub(crate) fn u128_gcd(mut a: u128, mut b: u128) -> u128 {
    if a == 0 || b == 0 {
        return a | b;
    }
    if a == 1 || b == 1 {
        return 1; // a denominator 1, the commonest operand
    }
    if (a | b) >> 64 == 0 {
        return u64_stein(a as u64, b as u64) as u128; // one-word shifts and subtractions
    }
    let shift = (a | b).trailing_zeros();
    a >>= a.trailing_zeros();
    b >>= b.trailing_zeros();
    loop {
        // Both odd: the lesser and the difference, with no branch on
        // which is which.
        let (lo, hi) = (a.min(b), a.max(b));
        if lo >> 64 == 0 {
            // One remainder brings the long one to a word too (a 128-bit
            // Stein step shaves only a few bits).
            let r = (hi % lo) as u64;
            return if r == 0 { lo << shift } else { (u64_stein(lo as u64, r) as u128) << shift };
        }
        let d = hi - lo;
        if d == 0 {
            return lo << shift;
        }
        (a, b) = (lo, d >> d.trailing_zeros());
    }
}

/// Stein's binary gcd of two non-zero words (the two-word loop above is
/// the same with its remainder step).
fn u64_stein(mut a: u64, mut b: u64) -> u64 {
    let shift = (a | b).trailing_zeros();
    a >>= a.trailing_zeros();
    let mut bz = b.trailing_zeros();
    loop {
        b >>= bz;
        // The next shift is read off the wrapped difference (it has the
        // trailing zeros of |b − a|), so it need not wait for the min and
        // the absolute difference: a shorter chain per step.
        let d = b.wrapping_sub(a);
        if d == 0 {
            return a << shift;
        }
        bz = d.trailing_zeros();
        (a, b) = (a.min(b), a.abs_diff(b));
    }
}

/// gcd of two words (0 when both are).
fn u64_gcd(a: u64, b: u64) -> u64 {
    if a == 0 || b == 0 {
        return a | b;
    }
    u64_stein(a, b)
}

/// A closed interval `[lo, hi]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interval {
    /// Lower end.
    pub lo: Rat,
    /// Upper end.
    pub hi: Rat,
}

impl Interval {
    /// `[x, x]`.
    pub fn point(x: Rat) -> Interval {
        Interval { lo: x.clone(), hi: x }
    }
    /// `hi − lo`.
    pub fn width(&self) -> Rat {
        &self.hi - &self.lo
    }
    /// True when `x` lies inside.
    pub fn contains(&self, x: &Rat) -> bool {
        &self.lo <= x && x <= &self.hi
    }
    /// `1 − [lo, hi]`.
    pub fn one_minus(&self) -> Interval {
        Interval { lo: one_minus(&self.hi), hi: one_minus(&self.lo) }
    }
}

/// `1 − x` without a gcd: for `x = n/d` in lowest terms, `(d − n)/d` is too.
pub fn one_minus(x: &Rat) -> Rat {
    Rat::new_raw(x.denom() - x.numer(), x.denom().clone())
}

/// Mathematica's `Rationalize[x, tol]`, exactly: the first convergent of
/// the continued fraction of `x` that lies within `tol` of `x` (for `tol = 0`,
/// `x` itself). Papers' programs rationalise their constants this way, so
/// reproducing their digits needs the same rule.
pub fn rationalize(x: &Rat, tol: &Rat) -> Rat {
    let tol = tol.abs();
    if x.is_negative() {
        return -rationalize(&-x.clone(), &tol);
    }
    // Convergents h_k/k_k of x = [a0; a1, a2, ...].
    let (mut h0, mut h1) = (BigInt::zero(), BigInt::one());
    let (mut k0, mut k1) = (BigInt::one(), BigInt::zero());
    let mut y = x.clone();
    loop {
        let a = y.floor().to_integer();
        let h2 = &a * &h1 + &h0;
        let k2 = &a * &k1 + &k0;
        let c = Rat::new(h2.clone(), k2.clone());
        if (&c - x).abs() <= tol {
            return c;
        }
        let frac = &y - Rat::from_integer(a);
        if frac.is_zero() {
            return c; // unreachable: the last convergent equals x
        }
        y = Rat::one() / frac;
        (h0, h1, k0, k1) = (h1, h2, k1, k2);
    }
}

/// The integers `x_i * L` for `L` the least common denominator: the same
/// direction as `xs`, scaled to integers without any gcd work per entry.
pub fn common_denominator_ints(xs: &[Rat]) -> Vec<BigInt> {
    let den = lcm_denoms(xs);
    xs.iter().map(|x| x.numer() * (&den / x.denom())).collect()
}

/// A point (a slice of exact values) as a hash key.
///
/// num-rational's `Hash` expands each value as a continued fraction, a
/// big-integer division per step (hashing 10^5 prediction points took
/// about 100 ms). This key hashes each value as `n · d⁻¹ mod (2^61 − 1)`
/// instead: equal rationals hash equally whether or not they are in lowest
/// terms, and a value costs one pass over its digits. Equality is the
/// values' own.
#[derive(Debug, Clone, Copy)]
pub struct Point<K>(pub K);

/// The Mersenne prime 2^61 − 1 of [`Point`]'s hash.
const HASH_P: u64 = (1 << 61) - 1;

/// `x mod HASH_P` by folding (2^61 ≡ 1): no 128-bit division, which is a
/// library call.
fn mod_p(x: u128) -> u64 {
    let p = u128::from(HASH_P);
    let r = (x & p) + (x >> 61);
    let r = (r & p) + (r >> 61);
    (if r >= p { r - p } else { r }) as u64
}

/// `x·y mod HASH_P`.
fn mul_p(x: u64, y: u64) -> u64 {
    mod_p(u128::from(x) * u128::from(y))
}

/// `|x| mod HASH_P`, over the 64-bit digits (most significant first;
/// 2^64 ≡ 8).
fn residue(x: &BigInt) -> u64 {
    x.iter_u64_digits().rev().fold(0u64, |r, w| mod_p(u128::from(r) * 8 + u128::from(w)))
}

/// `a⁻¹ mod HASH_P` for `a` in `1..HASH_P` (Fermat: `a^(p−2)`).
fn inverse(a: u64) -> u64 {
    let mul = mul_p;
    let (mut base, mut e, mut r) = (a, HASH_P - 2, 1u64);
    while e > 0 {
        if e & 1 == 1 {
            r = mul(r, base);
        }
        base = mul(base, base);
        e >>= 1;
    }
    r
}

/// The value of `x` modulo HASH_P (with its sign folded in), or HASH_P
/// itself when the prime divides the denominator (a fixed hash, still
/// consistent with equality).
fn value_hash(x: &Rat) -> u64 {
    let n = residue(x.numer());
    let v = if x.denom().is_one() {
        n
    } else {
        match residue(x.denom()) {
            0 => return HASH_P,
            d => mul_p(n, inverse(d)),
        }
    };
    if x.is_negative() && v != 0 {
        HASH_P - v
    } else {
        v
    }
}

impl<K: std::borrow::Borrow<[Rat]>> std::hash::Hash for Point<K> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        let xs = self.0.borrow();
        h.write_usize(xs.len());
        for x in xs {
            h.write_u64(value_hash(x));
        }
    }
}

impl<K: std::borrow::Borrow<[Rat]>> PartialEq for Point<K> {
    fn eq(&self, other: &Self) -> bool {
        self.0.borrow() == other.0.borrow()
    }
}

impl<K: std::borrow::Borrow<[Rat]>> Eq for Point<K> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> Rat {
        parse_rat(s).unwrap()
    }

    proptest::proptest! {
        /// The machine-word part of a sum (short decimals) and the big one
        /// (long values, overflow) together give num-rational's exact sum.
        #[test]
        fn sums_are_exact_whichever_part_a_term_lands_in(
            terms in proptest::collection::vec((-(1i64 << 62)..(1i64 << 62), 1i64..(1i64 << 40), 0u32..3), 0..40)
        ) {
            let (mut s, mut sq) = (Sum::default(), Sum::default());
            let (mut want, mut want_sq) = (Rat::zero(), Rat::zero());
            for (n, d, big) in terms {
                // Some terms beyond 64 bits, so that both parts are used.
                let x = Rat::new(BigInt::from(n) * BigInt::from(10).pow(big * 9), BigInt::from(d));
                s.add(&x);
                sq.add_product(&x, &x);
                want += &x;
                want_sq += &x * &x;
            }
            proptest::prop_assert_eq!(s.value(), want);
            proptest::prop_assert_eq!(sq.value(), want_sq);
        }
    }

    proptest::proptest! {
        /// `affine` is num-rational's `c + Σ fᵢ·vᵢ`, in lowest terms, with
        /// shared and differing denominators and zero terms.
        #[test]
        fn affine_is_the_reduced_sum_of_products(
            c in (-1000i64..1000, 1i64..50),
            terms in proptest::collection::vec(((-1000i64..1000, 1i64..12), (-1000i64..1000, 1i64..12)), 0..8)
        ) {
            let c = frac(c.0, c.1);
            let f: Vec<Rat> = terms.iter().map(|(a, _)| frac(a.0, a.1)).collect();
            let v: Vec<Rat> = terms.iter().map(|(_, b)| frac(b.0, b.1)).collect();
            let want = f.iter().zip(&v).fold(c.clone(), |s, (x, y)| s + x * y);
            let got = affine(&c, &f, &v);
            proptest::prop_assert_eq!(gcd(got.numer(), got.denom()), BigInt::one());
            proptest::prop_assert!(got.denom().is_positive());
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn one_term_is_kept_as_it_was_given() {
        let mut s = Sum::default();
        s.add(&r("-7/20"));
        let v = s.value_as_kept();
        assert_eq!((v.numer().clone(), v.denom().clone()), (BigInt::from(-7), BigInt::from(20)));
        let mut sq = Sum::default();
        sq.add_product(&r("3/4"), &r("3/4"));
        let v = sq.value_as_kept();
        assert_eq!((v.numer().clone(), v.denom().clone()), (BigInt::from(9), BigInt::from(16)));
    }

    #[test]
    fn sort_exact_orders_as_exact_comparison_does_even_where_floats_tie() {
        // Values a float cannot tell apart, beside ordinary ones, zero,
        // negatives, and values whose floats would not be finite.
        let tiny = Rat::new(1.into(), BigInt::from(10).pow(30));
        let one = Rat::one();
        let mut vals: Vec<Rat> = vec![
            &one + &tiny,
            one.clone(),
            &one - &tiny,
            r("99.6615"),
            r("-3"),
            Rat::zero(),
            r("55.5592"),
            &one + &tiny + &tiny,
            r("-3") - &tiny,
            r("2.5"),
            r("2.5"),
        ];
        for huge in [false, true] {
            if huge {
                vals.push(Rat::from_integer(BigInt::from(10).pow(400)));
                vals.push(Rat::from_integer(BigInt::from(10).pow(400) + 1));
            }
            let mut expected: Vec<&Rat> = vals.iter().collect();
            expected.sort();
            let mut got: Vec<&Rat> = vals.iter().rev().collect();
            sort_exact(&mut got);
            assert_eq!(got, expected);
        }
    }

    #[test]
    fn point_keys_hash_equal_values_equally_reduced_or_not() {
        use std::hash::BuildHasher;
        let state = std::collections::hash_map::RandomState::new();
        let h = |xs: &[Rat]| state.hash_one(Point(xs));
        let big: BigInt = BigInt::from(2).pow(200u32) + 7;
        let raw = |n: BigInt, d: BigInt| Rat::new_raw(n, d);
        // Unreduced, negative-denominator and multi-word forms of one value.
        let cases = [
            (vec![frac(3, 4)], vec![raw(BigInt::from(6), BigInt::from(8))]),
            (vec![frac(-3, 4)], vec![raw(BigInt::from(3), BigInt::from(-4))]),
            (vec![frac(-3, 4)], vec![raw(BigInt::from(-3) * &big, BigInt::from(4) * &big)]),
            (vec![int(0)], vec![raw(BigInt::from(0), big.clone())]),
            // The prime divides the denominator: a fixed hash, still equal.
            (
                vec![Rat::new(BigInt::one(), BigInt::from(HASH_P))],
                vec![raw(BigInt::from(2), BigInt::from(2 * HASH_P as u128))],
            ),
            (vec![int(7), frac(1, 3)], vec![int(7), raw(BigInt::from(5), BigInt::from(15))]),
        ];
        for (a, b) in &cases {
            assert_eq!(Point(a.as_slice()), Point(b.as_slice()));
            assert_eq!(h(a), h(b), "{a:?} {b:?}");
        }
        // Distinct points stay distinct keys.
        let mut seen = std::collections::HashSet::new();
        for n in -50..50 {
            for d in 1..20 {
                seen.insert(Point(vec![frac(n, d)]));
            }
        }
        let distinct: std::collections::HashSet<Rat> =
            (-50..50).flat_map(|n| (1..20).map(move |d| frac(n, d))).collect();
        assert_eq!(seen.len(), distinct.len());
        assert_ne!(h(&[int(1), int(2)]), h(&[int(2), int(1)]));
        // The folded arithmetic against big-integer remainders.
        let p = BigInt::from(HASH_P);
        let mut x = BigInt::from(0x9e37_79b9_7f4a_7c15u64);
        for _ in 0..200 {
            x = &x * &x + 12345;
            if x.bits() > 700 {
                let extra = x.bits() - 300;
                x >>= extra as usize;
            }
            assert_eq!(BigInt::from(residue(&x)), &x % &p, "{x}");
            let a = residue(&x).max(1);
            assert_eq!(mul_p(a, inverse(a)), 1);
        }
        assert_eq!(mod_p(u128::MAX), (u128::MAX % u128::from(HASH_P)) as u64);
    }

    #[test]
    fn parses_the_issue_literals_exactly() {
        assert_eq!(r("12"), int(12));
        assert_eq!(r("-0.0088823"), frac(-88823, 10_000_000));
        assert_eq!(r("1.9312e-7"), Rat::new(19312.into(), pow10(11)));
        assert_eq!(r("14244/5"), frac(14244, 5));
        assert_eq!(r("897.09"), frac(89709, 100));
        assert_eq!(r(" +2E+3 "), int(2000));
        assert_eq!(r(".5"), frac(1, 2));
        assert_eq!(r("5."), int(5));
        assert_eq!(r("1.5/3"), frac(1, 2));
        assert_eq!(r("1_000"), int(1000));
    }

    #[test]
    fn rejects_non_numbers_with_reasons() {
        assert!(matches!(parse_rat("abc"), Err(NumError::Syntax(_))));
        assert!(matches!(parse_rat("1e"), Err(NumError::Syntax(_))));
        assert!(matches!(parse_rat("1.2.3"), Err(NumError::Syntax(_))));
        assert!(matches!(parse_rat("NaN"), Err(NumError::NotFinite(_))));
        assert!(matches!(parse_rat("-inf"), Err(NumError::NotFinite(_))));
        assert!(matches!(parse_rat("1/0"), Err(NumError::ZeroDenominator(_))));
        assert!(matches!(parse_rat(""), Err(NumError::Empty)));
        assert!(matches!(parse_rat("1e999999999999999999999"), Err(NumError::TooLarge { .. })));
        assert!(matches!(parse_rat("1e100000"), Err(NumError::TooLarge { .. })));
        let long = "9".repeat(100_000);
        assert!(matches!(parse_rat(&long), Err(NumError::TooLarge { .. })));
    }

    #[test]
    fn prints_fractions_canonically() {
        assert_eq!(fmt_fraction(&frac(1101248, 81125)), "1101248/81125");
        assert_eq!(fmt_fraction(&frac(-6, 3)), "-2");
        assert_eq!(fmt_fraction(&int(0)), "0");
    }

    #[test]
    fn round_sig_is_the_nearest_decimal_with_that_many_digits() {
        assert_eq!(round_sig(&frac(1101248, 81125), 6), r("13.5747"));
        assert_eq!(round_sig(&frac(-2, 3), 3), r("-0.667"));
        assert_eq!(round_sig(&r("-7.962725e-8"), 6), r("-7.96272e-8")); // tie to even
        assert_eq!(round_sig(&r("999999.5"), 6), r("1000000"));
        assert_eq!(round_sig(&r("123456789"), 3), r("123000000"));
        assert_eq!(round_sig(&Rat::zero(), 5), Rat::zero());
        let third = frac(1, 3);
        let v = round_sig(&third, 40);
        assert!((&v - &third).abs() * pow10(40) < Rat::one());
    }

    #[test]
    fn short_decimals_are_their_own_rounding() {
        for (v, sig, short) in [
            ("13.5747", 6, true),
            ("13.5747", 5, false),
            ("-0.000125", 3, true),
            ("-0.000125", 2, false),
            ("123000000", 3, false), // trailing zeros: left to the rounding
            ("999999.5", 6, false),
            ("1e-40", 1, true),
        ] {
            assert_eq!(within_sig(&r(v), sig), short, "{v} to {sig}");
            assert_eq!(round_sig(&r(v), sig) == r(v), short || v == "123000000", "{v}");
        }
        assert!(!within_sig(&frac(1, 3), 40));
        assert!(!within_sig(&frac(7, 6), 40));
        assert!(within_sig(&frac(1, 1 << 20), 20));
    }

    #[test]
    fn rounds_correctly_to_significant_digits() {
        assert_eq!(fmt_sig(&frac(1101248, 81125), 6), "13.5747");
        // The float proposal serves ordinary values and leaves ties to exact
        // arithmetic.
        let u = |v: u64| BigUint::from(v);
        assert_eq!(sig_digits_float(&u(1101248), &u(81125), 6), Some((135747, 1)));
        assert_eq!(sig_digits_float(&u(7962725), &u(100000000000000), 6), None);
        assert_eq!(sig_digits_float(&u(1), &u(3), 13), None);
        assert_eq!(fmt_sig(&r("-7.962725e-8"), 6), "-7.96272e-8"); // tie to even
        assert_eq!(fmt_sig(&r("-7.962735e-8"), 6), "-7.96274e-8");
        assert_eq!(fmt_sig(&r("0.0003184"), 6), "0.0003184");
        assert_eq!(fmt_sig(&r("9.99999"), 3), "10");
        assert_eq!(fmt_sig(&r("999999.5"), 6), "1000000");
        assert_eq!(fmt_sig(&r("99999999.5"), 6), "1e8");
        assert_eq!(fmt_sig(&frac(1, 3), 4), "0.3333");
        assert_eq!(fmt_sig(&frac(2, 3), 4), "0.6667");
        assert_eq!(fmt_sig(&int(26022), 6), "26022");
        assert_eq!(fmt_sig(&int(-120), 2), "-120");
        assert_eq!(fmt_sig(&r("1.9312e-7"), 10), "1.9312e-7");
        assert_eq!(fmt_sig(&r("123456789"), 3), "1.23e8");
        assert_eq!(fmt_sig(&r("0.000012345"), 3), "0.0000123");
    }

    #[test]
    fn fixed_places_round_half_even() {
        assert_eq!(fmt_fixed(&r("2.345"), 2), "2.34");
        assert_eq!(fmt_fixed(&r("2.355"), 2), "2.36");
        assert_eq!(fmt_fixed(&r("-0.001"), 2), "0.00");
        assert_eq!(fmt_fixed(&r("-1.5"), 0), "-2");
        assert_eq!(fmt_fixed(&r("0.05"), 3), "0.050");
    }

    #[test]
    fn rationalize_follows_mathematica() {
        // Orii & Anai's program: Rationalize[0.0088823, 0.00000001], Rationalize[1.9312*10^-7, 1*10^-12];
        // these values reproduce every digit of its Fig. 2(b).
        assert_eq!(rationalize(&r("0.0088823"), &r("1e-8")), frac(12, 1351));
        assert_eq!(rationalize(&r("1.9312e-7"), &r("1e-12")), frac(1, 5178127));
        assert_eq!(rationalize(&r("-0.0088823"), &r("1e-8")), frac(-12, 1351));
        assert_eq!(rationalize(&r("17.9745"), &int(0)), r("17.9745"));
        assert_eq!(rationalize(&r("0.3"), &r("0.5")), int(0));
        assert_eq!(rationalize(&r("3.14159"), &r("0.001")), frac(333, 106)); // 22/7 is 0.00127 away
        assert_eq!(rationalize(&r("0.333"), &r("0.001")), frac(1, 3));
    }

    #[test]
    fn f64_view_is_close() {
        assert_eq!(to_f64(&frac(1, 4)), 0.25);
        let huge = Rat::new(pow10(400) + 1u32, pow10(399));
        assert!((to_f64(&huge) - 10.0).abs() < 1e-12);
        assert!((to_f64(&-huge) + 10.0).abs() < 1e-12);
    }

    #[test]
    fn one_minus_stays_in_lowest_terms() {
        assert_eq!(one_minus(&frac(1, 3)), frac(2, 3));
        assert_eq!(one_minus(&frac(-3, 4)), frac(7, 4));
        assert_eq!(one_minus(&frac(1, 1)), frac(0, 1));
        let i = Interval { lo: frac(1, 4), hi: frac(5, 2) }.one_minus();
        assert_eq!(i, Interval { lo: frac(-3, 2), hi: frac(3, 4) });
    }

    #[test]
    fn lcm_of_denominators() {
        assert_eq!(lcm_denoms(&[frac(1, 6), frac(1, 4), frac(5, 6), int(3)]), BigInt::from(12));
        assert_eq!(lcm_denoms(&[]), BigInt::one());
    }

    /// dashu-int 0.4.3 panicked on close-length operands whose Euclid
    /// sequence meets a long quotient over a long divisor (b = 2^33000 + 5,
    /// a = b + 2^20000 + 3); 0.6.2 takes them, with no cap.
    #[test]
    fn gcd_of_long_operands_with_a_long_quotient_does_not_panic() {
        let one = BigInt::one();
        for (p, q) in [(33_000u32, 20_000u32), (4300, 2100), (2200, 2100), (2100, 1000)] {
            let b: BigInt = (&one << p) + 5u32;
            let a: BigInt = &b + (&one << q) + 3u32;
            let c = BigInt::from(3u32).pow(50u32);
            let (x, y) = (&a * &c, &b * &c);
            assert_eq!(gcd(&x, &y), x.gcd(&y), "2^{p}, 2^{q}");
        }
        // The data-file shape that found the 0.4.3 panic: 1.333…3, here with
        // 3 999 digits (the default literal limit), reduced by the gcd of a
        // long numerator and 10^3998.
        let text = format!("1.{}", "3".repeat(3998));
        let v = parse_rat(&text).unwrap();
        let ten = BigInt::from(10u32).pow(3998u32);
        let n: BigInt = &ten + BigInt::from(3u32) * (&ten - 1u32) / 9u32;
        assert_eq!(v, Rat::new(n.clone(), ten.clone()));
        assert_eq!(gcd(&n, &ten), n.gcd(&ten));
    }

    proptest::proptest! {
        /// A decimal written from two words is the one written from the
        /// same value in big integers, at every length of either word and
        /// every number of digits (ties and powers of ten among them).
        #[test]
        fn word_decimals_and_fractions_agree_with_big_ones(
            n in proptest::num::i128::ANY,
            d in 1i128..=i128::MAX,
            sn in 0u32..127,
            sd in 0u32..127,
            sig in 1usize..16,
            ten in 0u32..30,
        ) {
            let (n, d) = (n >> sn, (d >> sd).max(1));
            for (n, d) in [(n, d), (n.saturating_mul(10i128.pow(ten % 20)), 10i128.pow(ten % 20)), (2 * (n >> 2) + 1, 2)] {
                let (mut word, mut big) = (String::new(), String::new());
                write_sig_i128(&mut word, n, d, sig);
                write_sig_parts(&mut big, &BigInt::from(n), &BigInt::from(d), sig);
                proptest::prop_assert_eq!(&word, &big, "{}/{} at {} digits", n, d, sig);
                let x = Rat::new(BigInt::from(n), BigInt::from(d));
                let (mut word, mut big) = (String::new(), format!("{}", x));
                write_fraction(&mut word, &x);
                if x.is_integer() {
                    big = x.numer().to_string();
                }
                proptest::prop_assert_eq!(word, big);
            }
        }

        /// The decimal of a product of two word fractions, proposed in
        /// floats, is the one written from the product in big integers
        /// (ties and exact decimals among them: `b` is often a power of ten
        /// or a half).
        #[test]
        fn word_product_decimals_agree_with_big_ones(
            (an, ad, bn, bd) in (proptest::num::i128::ANY, 1i128..=i128::MAX, proptest::num::i128::ANY, 1i128..=i128::MAX),
            (sa, sb, sc, se) in (0u32..127, 0u32..127, 0u32..127, 0u32..127),
            sig in 1usize..16,
            ten in 0u32..20,
        ) {
            let (a, b) = ((an >> sa, (ad >> sb).max(1)), (bn >> sc, (bd >> se).max(1)));
            for (a, b) in [(a, b), (a, (1, 10i128.pow(ten))), ((2 * (a.0 >> 2) + 1, 1), (1, 2)), (a, (a.1, a.0.unsigned_abs().clamp(1, i128::MAX as u128) as i128))] {
                let (mut word, mut big) = (String::new(), String::new());
                write_sig_product_i128(&mut word, a, b, sig);
                let n = BigInt::from(a.0) * BigInt::from(b.0);
                write_sig_parts(&mut big, &n, &(BigInt::from(a.1) * BigInt::from(b.1)), sig);
                proptest::prop_assert_eq!(&word, &big, "{:?}·{:?} at {} digits", a, b, sig);
            }
        }

        /// The two-word gcd agrees with num-integer's on operands of every
        /// length up to two words, with common factors (powers of two
        /// among them) and zeros.
        #[test]
        fn u128_gcd_agrees_with_num(
            a in proptest::num::u128::ANY,
            b in proptest::num::u128::ANY,
            sa in 0u32..128,
            sb in 0u32..128,
            f in 0u64..1 << 20,
            twos in 0u32..8,
        ) {
            let (a, b) = (a >> sa, b >> sb);
            let g = u128::from(f) << twos;
            let (a, b) = (a.checked_mul(g).unwrap_or(a), b.checked_mul(g).unwrap_or(b));
            proptest::prop_assert_eq!(BigUint::from(u128_gcd(a, b)), BigUint::from(a).gcd(&BigUint::from(b)));
        }

        /// The word-sized paths of `add`, `sub`, `sub_lowest`, `mul` and
        /// `div` give num-rational's value in its own lowest terms (equality
        /// of `Ratio`s compares values, so the parts are compared too), and
        /// `sub` takes operands that are not in lowest terms. Parts range
        /// from one digit to past the 120-bit bound, where the big-integer
        /// path takes over.
        #[test]
        fn word_sized_paths_agree_with_num(
            parts in proptest::collection::vec((proptest::num::i64::ANY, 1u64..u64::MAX, 0u32..3, 1u32..40), 2),
            scale in 1u64..1_000,
        ) {
            let make = |&(n, d, widen, cut): &(i64, u64, u32, u32)| {
                // `cut` keeps a few of the parts' bits, where most measured
                // values live; `widen` then appends whole words of them.
                let (n, d) = (BigInt::from(n >> (64 - cut)), BigInt::from((d >> (64 - cut)) + 1));
                let w = BigInt::from(1u8) << (64 * widen as usize);
                Rat::new(&n * &w + &n, &d * &w + &d)
            };
            let (a, b) = (make(&parts[0]), make(&parts[1]));
            let lowest = |got: Rat, want: Rat| -> Result<(), proptest::test_runner::TestCaseError> {
                proptest::prop_assert_eq!((got.numer(), got.denom()), (want.numer(), want.denom()));
                Ok(())
            };
            lowest(add(&a, &b), &a + &b)?;
            lowest(sub(&a, &b), &a - &b)?;
            lowest(sub_lowest(&a, &b), &a - &b)?;
            lowest(mul(&a, &b), &a * &b)?;
            if !b.is_zero() {
                lowest(div(&a, &b), &a / &b)?;
            }
            // Not in lowest terms: both parts times `scale`.
            let k = BigInt::from(scale);
            let (ua, ub) = (Rat::new_raw(a.numer() * &k, a.denom() * &k), Rat::new_raw(b.numer() * &k, b.denom() * &k));
            lowest(sub(&ua, &ub), &a - &b)?;
            let (n, d) = (a.numer() * b.denom() + b.numer() * a.denom(), a.denom() * b.denom());
            lowest(reduced_dividing(n, d, b.denom()), &a + &b)?;
        }

        /// The fast gcd and `reduced` agree with num-integer's gcd and `Ratio::new`.
        #[test]
        fn gcd_and_reduced_agree_with_num(
            a in proptest::collection::vec(proptest::num::u64::ANY, 0..6),
            b in proptest::collection::vec(proptest::num::u64::ANY, 1..6),
            f in proptest::collection::vec(proptest::num::u64::ANY, 0..4),
            neg in proptest::bool::ANY,
        ) {
            let big = |w: &[u64]| BigInt::from(BigUint::from_bytes_le(&w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>()));
            let common = big(&f) + 1u32;
            let (x, y) = (big(&a) * &common, (big(&b) + 1u32) * &common);
            let x = if neg { -x } else { x };
            proptest::prop_assert_eq!(gcd(&x, &y), x.gcd(&y));
            proptest::prop_assert_eq!(reduced(x.clone(), -y.clone()), Rat::new(x.clone(), -y.clone()));
            let (a, b) = (Rat::new(x.clone(), y.clone()), Rat::new(y.clone() + 7u32, x.clone() * 3u32 + 1u32));
            let f = [b.clone(), a.clone(), Rat::zero()];
            let v = [a.clone(), b.clone() + Rat::one(), a.clone()];
            let aff = affine_unreduced(&b, &f, &v);
            let want = &b + &b * &a + &a * (&b + Rat::one());
            proptest::prop_assert_eq!(&aff, &want);
            proptest::prop_assert_eq!(aff.cmp(&(&want + Rat::one())), std::cmp::Ordering::Less);
            proptest::prop_assert_eq!(reduced(aff.numer().clone(), aff.denom().clone()), want.clone());
            proptest::prop_assert_eq!(cmp_unreduced(&aff, &(&want + Rat::one())), std::cmp::Ordering::Less);
            proptest::prop_assert_eq!(cmp_unreduced(&aff, &want), std::cmp::Ordering::Equal);
            proptest::prop_assert_eq!(cmp_unreduced(&a, &b), a.cmp(&b));
            proptest::prop_assert_eq!(sub(&a, &b), &a - &b);
            proptest::prop_assert_eq!(mul(&a, &b), &a * &b);
            proptest::prop_assert_eq!(add(&a, &b), &a + &b);
            proptest::prop_assert_eq!(add(&a, &-&a), Rat::zero());
            proptest::prop_assert_eq!(sub_lowest(&a, &b), &a - &b);
            proptest::prop_assert_eq!(mul(&a, &-&a), -(&a * &a));
            proptest::prop_assert_eq!(mul(&a, &Rat::zero()), Rat::zero());
            // a + (short)/(short): common primes divide the short denominator.
            let short = Rat::new(BigInt::from(6u32) * (&x % 1000u32 + 5u32), BigInt::from(12u32) * (&y % 97u32 + 1u32));
            let (sn, sd) = (a.numer() * short.denom() + short.numer() * a.denom(), a.denom() * short.denom());
            proptest::prop_assert_eq!(reduced_dividing(sn, sd, short.denom()), &a + &short);
            if !b.is_zero() {
                proptest::prop_assert_eq!(div(&a, &b), &a / &b);
                proptest::prop_assert_eq!(div_unreduced(&a, &b), &a / &b);
            }
        }

        /// Significant digits proposed by floats are the exact ones whenever
        /// they are accepted: random fractions of any length and scale, exact
        /// ties (`(2k+1)/2·10^j`) and values a hair from a tie or from a
        /// power of ten, at every digit count the fast path serves.
        #[test]
        fn float_digits_are_exact_digits(
            a in proptest::collection::vec(proptest::num::u64::ANY, 1..5),
            b in proptest::collection::vec(proptest::num::u64::ANY, 1..5),
            k in 1u64..1_000_000_000_000,
            j in -30i64..30,
            sig in 1usize..=13,
            hair in 0u32..4,
        ) {
            let big = |w: &[u64]| BigUint::from_bytes_le(&w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>()) + 1u32;
            let check = |n: &BigUint, d: &BigUint| -> Result<(), proptest::test_runner::TestCaseError> {
                let want = sig_digits_exact(&BigInt::from(n.clone()), &BigInt::from(d.clone()), sig);
                if let Some((q, e)) = sig_digits_float(n, d, sig) {
                    proptest::prop_assert_eq!((BigInt::from(q), e), want);
                }
                Ok(())
            };
            check(&big(&a), &big(&b))?;
            // (2k+1)/2 · 10^j, nudged by 0, ±10^-40 relative or a power of ten.
            let p = pow10(j.unsigned_abs()).into_parts().1;
            let (mut n, mut d) = (BigUint::from(2 * k + 1), BigUint::from(2u32));
            if j >= 0 { n *= &p } else { d *= &p }
            let tiny = pow10(40).into_parts().1;
            let (n, d) = match hair {
                0 => (n, d),
                1 => (&n * &tiny + 1u32, d * &tiny),
                2 => (&n * &tiny - 1u32, d * &tiny),
                _ => (&p * &tiny - 1u32, tiny.clone()),
            };
            check(&n, &d)?;
        }

        /// `Sum` over a common denominator equals num-rational's running
        /// sum, for terms with shared, nested and coprime denominators.
        #[test]
        fn sums_agree_with_num(terms in proptest::collection::vec((-10_000i64..10_000, 1i64..2_000, 0u32..4), 0..40)) {
            let mut s = Sum::default();
            let mut s2 = Sum::default();
            let mut want = Rat::zero();
            let mut want2 = Rat::zero();
            for &(n, d, e) in &terms {
                let x = Rat::new(BigInt::from(n), BigInt::from(d) * BigInt::from(3).pow(e * 20));
                s.add(&x);
                want += &x;
                let y = Rat::new(BigInt::from(d), BigInt::from(n.abs() + 1));
                s2.add_product(&x, &y);
                want2 += &x * &y;
            }
            let lowest = |got: Rat, want: &Rat| (got.numer() == want.numer(), got.denom() == want.denom());
            proptest::prop_assert_eq!(lowest(s.clone().value(), &want), (true, true));
            proptest::prop_assert_eq!(lowest(s2.value(), &want2), (true, true));
            // Cancelled to zero in its big part and added to again (a fresh
            // sum's denominator is no allocated 1, so the next term's is
            // taken): still the running sum.
            let big = Rat::new(BigInt::from(7), BigInt::from(3).pow(70));
            s.add(&big);
            s.add(&-&big);
            s.add(&Rat::new(BigInt::from(5), BigInt::from(3).pow(50)));
            s.add_product(&big, &big);
            let want3 = &want + Rat::new(BigInt::from(5), BigInt::from(3).pow(50)) + &big * &big;
            proptest::prop_assert_eq!(lowest(s.value(), &want3), (true, true));
        }

        /// `scaled_f64(x, s)` is `x·2^-s` within a few ulps, with entries of
        /// up to 6 000 bits.
        #[test]
        fn scaled_floats_are_close(w in proptest::collection::vec(proptest::num::u64::ANY, 1..90), shift in 0i64..6_000, neg in proptest::bool::ANY) {
            let x = BigInt::from(BigUint::from_bytes_le(&w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>()));
            let x = if neg { -x } else { x };
            let got = scaled_f64(&x, shift);
            // The reference: x·2^-shift as an exact rational, rounded once.
            let want = to_f64(&Rat::new(x.clone(), BigInt::one() << shift as usize));
            if want == 0.0 || want.abs() < 1e-300 {
                proptest::prop_assert!(got.abs() <= 1e-290);
            } else if want.is_finite() {
                proptest::prop_assert!(((got - want) / want).abs() < 1e-14, "{got} vs {want}");
            }
        }
    }
}
