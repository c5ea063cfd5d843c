//! Residual thresholds: how far a measurement may lie from the model.
//!
//! A threshold bounds every residual by an absolute and a relative part,
//! `|T(c, x_i) − d_i| ≤ a + r·d_i` ([`Bound`]). The paper's thresholds are
//! absolute (`r = 0`): `max` (= Max|e_i| of the fit), `emax` (the minimax
//! optimum) and numbers. Run times scatter in proportion to their size, so
//! a relative threshold (`a = 0`) is often the honest one: `5%`, `rmax`
//! (= Max|e_i|/d_i of the fit) and `remax` (the relative minimax optimum).
//! Either kind keeps the residual system linear in the parameters, so
//! regions, vertices and bands stay exact.
//!
//! The syntax is an affine combination of these names and numbers (`2*remax`,
//! `max + 1.5`, `(max + emax)/2`, `3.5%`), or the largest or smallest of
//! several thresholds of one kind: `max(2*remax, 5%)`, `min(max, 10)`.

use crate::lang::diag::Diagnostic;
use crate::num::{fmt_sig, parse_rat, Rat};
use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};
use std::ops::Range;

/// What a threshold's names stand for, from the fit and the data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scale {
    /// Max|e_i| of the fit.
    pub max: Rat,
    /// The minimax optimum of the absolute residuals.
    pub emax: Rat,
    /// Max|e_i|/d_i of the fit (`None` when a measurement is not positive).
    pub rmax: Option<Rat>,
    /// The minimax optimum of the relative residuals (`None` likewise).
    pub remax: Option<Rat>,
}

/// `|T(c, x_i) − d_i| ≤ absolute + relative·d_i` for every measurement.
#[derive(Debug, Clone, Eq, Default)]
pub struct Bound {
    /// The absolute part (a residual in the measurement's unit).
    pub absolute: Rat,
    /// The relative part (a fraction of the measurement: 0.05 is 5 %).
    pub relative: Rat,
}

impl PartialEq for Bound {
    fn eq(&self, other: &Bound) -> bool {
        // Exact, without num-rational's dividing comparison (bounds are
        // compared per threshold of every series).
        crate::num::cmp_fast(&self.absolute, &other.absolute).is_eq()
            && crate::num::cmp_fast(&self.relative, &other.relative).is_eq()
    }
}

impl Bound {
    /// An absolute bound.
    pub fn absolute(a: Rat) -> Bound {
        Bound { absolute: a, relative: Rat::zero() }
    }

    /// True when the bound has a relative part.
    pub fn is_relative(&self) -> bool {
        !self.relative.is_zero()
    }

    /// The bound as text: `17.97`, `r = 5 %`, or `2.5 + 5 %·d`.
    pub fn describe(&self, digits: usize) -> String {
        let pct = |r: &Rat| format!("{} %", crate::num::fmt_pct_sig(r, digits));
        match (self.absolute.is_zero(), self.relative.is_zero()) {
            (_, true) => fmt_sig(&self.absolute, digits),
            (true, false) => format!("r = {}", pct(&self.relative)),
            (false, false) => format!("{} + {}·d", fmt_sig(&self.absolute, digits), pct(&self.relative)),
        }
    }

    /// The band of a new measurement at a point where the model's band is
    /// `[lower, upper]` (`None`: unbounded): a new measurement `d` meets
    /// `|T − d| ≤ a + r·d` for some `T` in the band exactly when
    /// `(lower − a)/(1 + r) ≤ d ≤ (upper + a)/(1 − r)`; with `r ≥ 1` it is
    /// unbounded above. A relative bound presumes positive measurements
    /// (it is refused otherwise), so its band starts at 0 at the lowest.
    pub fn measurement_band(&self, lower: Option<&Rat>, upper: Option<&Rat>) -> (Option<Rat>, Option<Rat>) {
        let (a, r) = (&self.absolute, &self.relative);
        let side = |x: &Rat, sign: i32| side_small(x, a, r, sign).unwrap_or_else(|| side_big(x, a, r, sign));
        let mut lo = lower.map(|l| side(l, -1));
        if self.is_relative() {
            // Clipped at 0 (no zero is formed for a lower end that stays
            // above it: this runs per point and threshold).
            lo = Some(lo.filter(|l| !l.is_negative()).unwrap_or_else(Rat::zero));
        }
        // r ≥ 1 (with r's denominator positive), without forming a 1.
        let hi = if r.numer() >= r.denom() { None } else { upper.map(|u| side(u, 1)) };
        (lo, hi)
    }

    /// [`Bound::measurement_band`] of a model band, as a band (clipped
    /// when the model band was).
    pub fn new_measurement(&self, model: &crate::band::Band) -> crate::band::Band {
        let (lower, upper) = self.measurement_band(model.lower.as_ref(), model.upper.as_ref());
        crate::band::Band { lower, upper, clipped: model.clipped }
    }
}

/// `(x + sign·a)/(1 − sign·r)` over one denominator, one reduction: this
/// runs per point and threshold, on the band's long fractions.
fn side_big(x: &Rat, a: &Rat, r: &Rat, sign: i32) -> Rat {
    let (xd, ad, rd) = (x.denom(), a.denom(), r.denom());
    let num = (x.numer() * ad + BigInt::from(sign) * a.numer() * xd) * rd;
    let den = xd * ad * (rd + BigInt::from(-sign) * r.numer());
    crate::num::reduced(num, den)
}

/// [`side_big`] in 128-bit rationals, `None` when a part
/// would not fit (the caller then forms it in big integers, to the same
/// value): a `--at` range asks for four of these per point, mostly of
/// short band ends.
fn side_small(x: &Rat, a: &Rat, r: &Rat, sign: i32) -> Option<Rat> {
    use crate::num::small::Small;
    let (x, a, r) = (Small::of(x)?, Small::of(a)?, Small::of(r)?);
    let (a, r) = if sign < 0 { (a.neg()?, r) } else { (a, r.neg()?) };
    Some(x.add(a)?.div(Small::int(1).add(r)?)?.to_rat())
}

/// Names a threshold may use, in the order of [`Form::coeffs`].
const NAMES: [&str; 4] = ["max", "emax", "rmax", "remax"];
/// Index of the relative unit (`%`) and of the constant in [`Form::coeffs`].
const PCT: usize = 4;
const ONE: usize = 5;

/// `Σ coeffs[k]·name_k`: max, emax, rmax, remax, the relative unit (1 = 100 %), 1.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Form {
    coeffs: [Rat; 6],
}

impl Form {
    fn zero() -> Form {
        Form { coeffs: std::array::from_fn(|_| Rat::zero()) }
    }

    fn unit(k: usize) -> Form {
        let mut f = Form::zero();
        f.coeffs[k] = Rat::one();
        f
    }

    fn is_constant(&self) -> bool {
        self.coeffs[..ONE].iter().all(Zero::is_zero)
    }

    fn has_absolute(&self) -> bool {
        [0, 1, ONE].iter().any(|&k| !self.coeffs[k].is_zero())
    }

    fn has_relative(&self) -> bool {
        [2, 3, PCT].iter().any(|&k| !self.coeffs[k].is_zero())
    }

    fn combine(&self, o: &Form, f: impl Fn(&Rat, &Rat) -> Rat) -> Form {
        Form { coeffs: std::array::from_fn(|k| f(&self.coeffs[k], &o.coeffs[k])) }
    }

    fn scale(&self, s: &Rat) -> Form {
        Form { coeffs: std::array::from_fn(|k| &self.coeffs[k] * s) }
    }
}

/// Which of several thresholds applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pick {
    One,
    Largest,
    Smallest,
}

/// Why a threshold cannot be evaluated on these data.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ThresholdError {
    /// A relative threshold on data with a measurement that is not positive.
    NotPositive {
        /// The threshold as written.
        threshold: String,
    },
    /// The threshold's value is negative.
    Negative {
        /// The threshold as written.
        threshold: String,
        /// Its bound.
        bound: Box<Bound>,
    },
}

impl std::fmt::Display for ThresholdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ThresholdError::NotPositive { threshold } => write!(
                f,
                "threshold `{threshold}` is relative (a fraction of each measurement), and not every measurement is positive; use an absolute threshold (`max`, `emax`, a number)"
            ),
            ThresholdError::Negative { threshold, bound } => {
                write!(f, "threshold `{threshold}` is negative ({})", bound.describe(6))
            }
        }
    }
}

impl std::error::Error for ThresholdError {}

/// A residual threshold (module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Threshold {
    /// As the user wrote it (`emax`, `2*remax`, `max(2*remax, 5%)`, `trusted`).
    pub text: String,
    forms: Vec<Form>,
    pick: Pick,
    /// A relative bound from which the threshold gives no band: the model
    /// misses its own data by so much that a band from it is not worth
    /// betting on (`trusted`: 50 %).
    pub limit: Option<Rat>,
}

/// The run-to-run variability `trusted` assumes when none is given: 5 %.
pub fn default_noise() -> Rat {
    Rat::new(1.into(), 20.into())
}

/// `--noise`: a percentage (`5%`) or a fraction (`0.05`, `1/20`), from 0 to
/// below 100 %.
pub fn parse_noise(s: &str) -> Result<Rat, String> {
    let t = s.trim();
    let (num, scale) = match t.strip_suffix('%') {
        Some(n) => (n.trim(), Rat::new(1.into(), 100.into())),
        None => (t, Rat::from_integer(1.into())),
    };
    let v = crate::num::parse_rat(num)
        .map_err(|e| format!("`{s}`: {e} (give a percentage such as 5% or a fraction such as 0.05)"))?
        * scale;
    if v < Rat::from_integer(0.into()) || v >= Rat::from_integer(1.into()) {
        return Err(format!("`{s}`: the noise is a fraction of a measurement, from 0 % to below 100 %"));
    }
    Ok(v)
}

impl Threshold {
    /// Parses a threshold (module docs for the syntax).
    pub fn parse(text: &str) -> Result<Threshold, Diagnostic> {
        let mut p = Parser { text, pos: 0 };
        p.skip();
        let start = p.pos;
        let (forms, pick) = match p.peek_call() {
            Some(pick) => {
                let forms = p.call()?;
                (forms, pick)
            }
            None => (vec![p.expr()?], Pick::One),
        };
        p.skip();
        if p.pos < text.len() {
            return Err(p.err(p.pos..text.len(), "expected the end of the threshold"));
        }
        if pick != Pick::One {
            let relative = forms[0].has_relative();
            if forms.iter().any(|f| f.has_relative() == f.has_absolute() || f.has_relative() != relative) {
                return Err(p
                    .err(start..text.len(), "max(…) and min(…) compare thresholds of one kind")
                    .with_help("make every argument absolute (`max`, `emax`, numbers) or every one relative (`5%`, `rmax`, `remax`)"));
            }
        }
        Ok(Threshold { text: text.trim().to_string(), forms, pick, limit: None })
    }

    /// The constant threshold with bound `b` (unnamed: empty text).
    pub fn of_bound(b: &Bound) -> Threshold {
        let mut f = Form::zero();
        f.coeffs[ONE] = b.absolute.clone();
        f.coeffs[PCT] = b.relative.clone();
        Threshold { text: String::new(), forms: vec![f], pick: Pick::One, limit: None }
    }

    /// The trusted threshold: `max(2*remax, noise)`, the relative bound
    /// twice as loose as the best any parameters meet, and at least the
    /// run-to-run variability `noise` (a fraction: 1/20 is 5 %); no band
    /// from 50 % on. On real held-out measurements its
    /// next-measurement band is the one that held (README, "How far to
    /// trust the band").
    pub fn trusted(noise: &Rat) -> Threshold {
        let mut twice = Form::zero();
        twice.coeffs[3] = Rat::from_integer(2.into());
        let mut floor = Form::zero();
        floor.coeffs[PCT] = noise.clone();
        Threshold {
            text: "trusted".into(),
            forms: vec![twice, floor],
            pick: Pick::Largest,
            limit: Some(Rat::new_raw(1.into(), 2.into())),
        }
    }

    /// True for [`Threshold::trusted`] (at any noise floor).
    pub fn is_trusted(&self) -> bool {
        self.text == "trusted"
    }

    /// What a named threshold stands for (`trusted` = `max(2*remax, 5 %)`).
    pub fn definition(&self) -> Option<String> {
        self.is_trusted().then(|| {
            let noise = crate::num::fmt_pct_sig(&self.forms[1].coeffs[PCT], 6);
            format!("max(2*remax, {noise} %), none from r = 50 % on")
        })
    }

    /// `trusted` with the given noise floor, or any other threshold.
    pub fn parse_with_noise(text: &str, noise: &Rat) -> Result<Threshold, Diagnostic> {
        if text.trim() == "trusted" {
            Ok(Threshold::trusted(noise))
        } else {
            Threshold::parse(text)
        }
    }

    /// The defaults: the paper's `max` band, and the trusted band at the
    /// default noise (5 %).
    pub fn defaults() -> Vec<Threshold> {
        Threshold::defaults_with(&default_noise())
    }

    /// The defaults with the trusted band at measurement noise `noise`.
    pub fn defaults_with(noise: &Rat) -> Vec<Threshold> {
        let mut v: Vec<Threshold> = Threshold::parse("max").into_iter().collect();
        v.push(Threshold::trusted(noise));
        v
    }

    /// Thresholds as written (`--threshold`), relative ones trusted at
    /// `noise`; none written gives [`Threshold::defaults_with`]. Errors are
    /// rendered against the text of the threshold that fails.
    pub fn parse_list(texts: &[String], noise: &Rat) -> Result<Vec<Threshold>, String> {
        if texts.is_empty() {
            return Ok(Threshold::defaults_with(noise));
        }
        texts.iter().map(|t| Threshold::parse_with_noise(t, noise).map_err(|d| d.render(t))).collect()
    }

    /// True when the threshold has a relative part (it then needs positive
    /// measurements).
    pub fn is_relative(&self) -> bool {
        self.forms.iter().any(Form::has_relative)
    }

    /// True when the threshold has a constant absolute part (a number in
    /// the measurements' unit, not a multiple of `max` or `emax`).
    pub fn has_absolute_constant(&self) -> bool {
        self.forms.iter().any(|f| !f.coeffs[ONE].is_zero())
    }

    /// True when the threshold names `remax` (whose value takes an
    /// elimination of its own).
    pub fn uses_remax(&self) -> bool {
        self.forms.iter().any(|f| !f.coeffs[3].is_zero())
    }

    /// The bound on these data.
    pub fn bound(&self, s: &Scale) -> Result<Bound, ThresholdError> {
        let not_positive = || ThresholdError::NotPositive { threshold: self.text.clone() };
        let mut bounds = Vec::with_capacity(self.forms.len());
        for f in &self.forms {
            let c = &f.coeffs;
            // Terms with a zero coefficient are left out, not multiplied:
            // e_max and the largest residual may be long fractions.
            // Cross-cancelled products and sums reduced against the short
            // denominator (num-rational's operators take binary gcds of
            // the long ones).
            use crate::num::{add, mul};
            let mut absolute = c[ONE].clone();
            for (k, v) in [(0, &s.max), (1, &s.emax)] {
                if !c[k].is_zero() {
                    absolute = add(&absolute, &mul(&c[k], v));
                }
            }
            let mut relative = c[PCT].clone();
            for (k, v) in [(2, &s.rmax), (3, &s.remax)] {
                if !c[k].is_zero() {
                    relative = add(&relative, &mul(&c[k], v.as_ref().ok_or_else(not_positive)?));
                }
            }
            let b = Bound { absolute, relative };
            if b.is_relative() && s.rmax.is_none() {
                return Err(not_positive());
            }
            bounds.push(b);
        }
        let key = |b: &Bound| crate::num::add(&b.absolute, &b.relative);
        let chosen = match self.pick {
            Pick::One => bounds.swap_remove(0),
            Pick::Largest => {
                bounds.into_iter().max_by(|a, b| crate::num::cmp_fast(&key(a), &key(b))).unwrap_or_default()
            }
            Pick::Smallest => {
                bounds.into_iter().min_by(|a, b| crate::num::cmp_fast(&key(a), &key(b))).unwrap_or_default()
            }
        };
        if chosen.absolute.is_negative() || chosen.relative.is_negative() {
            return Err(ThresholdError::Negative { threshold: self.text.clone(), bound: Box::new(chosen) });
        }
        Ok(chosen)
    }
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn err(&self, span: Range<usize>, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new("--threshold", span, message)
    }

    fn skip(&mut self) {
        while self.text[self.pos..].starts_with([' ', '\t']) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip();
        if self.text[self.pos..].starts_with(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    /// `max(` or `min(` ahead (a call, not the name `max`).
    fn peek_call(&self) -> Option<Pick> {
        let rest = &self.text[self.pos..];
        for (name, pick) in [("max", Pick::Largest), ("min", Pick::Smallest)] {
            if let Some(after) = rest.strip_prefix(name) {
                if after.trim_start().starts_with('(') {
                    return Some(pick);
                }
            }
        }
        None
    }

    fn call(&mut self) -> Result<Vec<Form>, Diagnostic> {
        self.pos += 3;
        self.eat('(');
        let mut forms = vec![self.expr()?];
        while self.eat(',') {
            forms.push(self.expr()?);
        }
        if !self.eat(')') {
            return Err(self.err(self.pos..self.pos + 1, "expected `,` or `)`"));
        }
        Ok(forms)
    }

    fn expr(&mut self) -> Result<Form, Diagnostic> {
        let mut f = self.term()?;
        loop {
            if self.eat('+') {
                f = f.combine(&self.term()?, |a, b| a + b);
            } else if self.eat('-') {
                f = f.combine(&self.term()?, |a, b| a - b);
            } else {
                return Ok(f);
            }
        }
    }

    fn term(&mut self) -> Result<Form, Diagnostic> {
        let mut start = self.pos;
        let mut f = self.factor()?;
        loop {
            let mul = if self.eat('*') {
                true
            } else if self.eat('/') {
                false
            } else {
                return Ok(f);
            };
            let at = self.pos;
            let g = self.factor()?;
            let span = start..self.pos;
            f = if mul {
                if g.is_constant() {
                    f.scale(&g.coeffs[ONE])
                } else if f.is_constant() {
                    g.scale(&f.coeffs[ONE])
                } else {
                    return Err(
                        self.err(span, "a threshold is linear: multiply a name by a number, not by a name")
                    );
                }
            } else {
                if !g.is_constant() {
                    return Err(self.err(at..self.pos, "divide by a number"));
                }
                if g.coeffs[ONE].is_zero() {
                    return Err(self.err(at..self.pos, "division by zero"));
                }
                f.scale(&(Rat::one() / &g.coeffs[ONE]))
            };
            start = span.start;
        }
    }

    fn factor(&mut self) -> Result<Form, Diagnostic> {
        self.skip();
        let start = self.pos;
        let rest = &self.text[self.pos..];
        if self.eat('-') {
            return Ok(self.factor()?.scale(&-Rat::one()));
        }
        if self.eat('(') {
            let f = self.expr()?;
            if !self.eat(')') {
                return Err(self.err(self.pos..self.pos + 1, "expected `)`"));
            }
            return Ok(f);
        }
        let len =
            rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '_')).unwrap_or(rest.len());
        // `1e-3`: the sign of an exponent belongs to the number.
        let len = match rest.as_bytes().get(len) {
            Some(b'-' | b'+')
                if rest.starts_with(|c: char| c.is_ascii_digit() || c == '.')
                    && rest[..len].ends_with(['e', 'E']) =>
            {
                len + 1 + rest[len + 1..].find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len() - len - 1)
            }
            _ => len,
        };
        let word = &rest[..len];
        if word.is_empty() {
            let what = rest.chars().next().map_or("the end".to_string(), |c| format!("`{c}`"));
            return Err(self.err(start..start + 1, format!("expected a number or a name, found {what}")));
        }
        self.pos += len;
        let span = start..self.pos;
        if word.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
            let v = parse_rat(word).map_err(|e| self.err(span.clone(), format!("`{word}`: {e}")))?;
            if self.eat('%') {
                return Ok(Form::unit(PCT).scale(&(v / Rat::from_integer(100.into()))));
            }
            return Ok(Form::unit(ONE).scale(&v));
        }
        match NAMES.iter().position(|n| *n == word) {
            Some(k) => Ok(Form::unit(k)),
            None if word == "trusted" => Err(self
                .err(span, "`trusted` is a threshold of its own, not a term")
                .with_help("write `-t trusted` (with `--noise` for its floor), or spell it out: `max(2*remax, 5%)`")),
            None => Err(self.err(span, format!("unknown name `{word}` in the threshold")).with_help(
                "a threshold is `max` (= Max|e_i|), `emax`, a number, a percentage (`5%`), `rmax` (= Max|e_i|/d_i), `remax`, a multiple such as `1.5*emax`, or max(…)/min(…) of these",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The 128-bit side of a new-measurement band, where it answers, is
        /// the big-integer one; it answers for short operands and steps
        /// aside (never overflows) for long ones.
        #[test]
        fn short_measurement_band_sides_are_the_long_ones(
            x in (-(1i64 << 62)..(1i64 << 62), 1i64..(1i64 << 40)),
            a in (0i64..1_000_000, 1i64..10_000),
            r in 0i64..100,
            sign in proptest::sample::select(vec![-1, 1]),
            long in proptest::bool::ANY,
        ) {
            let big = BigInt::from(10u8).pow(if long { 30 } else { 0 });
            let x = Rat::new(BigInt::from(x.0) * &big, BigInt::from(x.1));
            let (a, r) = (crate::num::frac(a.0, a.1), crate::num::frac(r, 100));
            let want = side_big(&x, &a, &r, sign);
            match side_small(&x, &a, &r, sign) {
                Some(v) => proptest::prop_assert_eq!(v, want),
                None => proptest::prop_assert!(long),
            }
        }
    }
    use crate::num::{frac, int};

    fn scale() -> Scale {
        Scale { max: int(10), emax: int(2), rmax: Some(frac(1, 10)), remax: Some(frac(1, 50)) }
    }

    fn bound(t: &str) -> Bound {
        Threshold::parse(t).unwrap().bound(&scale()).unwrap()
    }

    #[test]
    fn absolute_thresholds_are_the_papers() {
        assert_eq!(bound("1.5*emax"), Bound::absolute(int(3)));
        assert_eq!(bound("max"), Bound::absolute(int(10)));
        assert_eq!(bound("17.9745"), Bound::absolute(frac(179745, 10000)));
        assert_eq!(bound("(max + emax)/2"), Bound::absolute(int(6)));
        assert_eq!(bound("2*max + emax"), Bound::absolute(int(22)));
        assert_eq!(bound("1e-3"), Bound::absolute(frac(1, 1000)));
        assert_eq!(bound("2.5e+1 - max"), Bound::absolute(int(15)));
        assert!(!Threshold::parse("max").unwrap().is_relative());
    }

    #[test]
    fn relative_thresholds_and_picks() {
        let rel = |r: Rat| Bound { absolute: Rat::zero(), relative: r };
        assert_eq!(bound("5%"), rel(frac(1, 20)));
        assert_eq!(bound("2*remax"), rel(frac(1, 25)));
        assert_eq!(bound("rmax"), rel(frac(1, 10)));
        assert_eq!(bound("max(2*remax, 5%)"), rel(frac(1, 20)));
        assert_eq!(bound("max(2*remax, 3%)"), rel(frac(1, 25)));
        assert_eq!(bound("min(max, 4, emax*3)"), Bound::absolute(int(4)));
        assert_eq!(bound("1 + 2.5%"), Bound { absolute: int(1), relative: frac(1, 40) });
        let t = Threshold::parse("max(2*remax, 5%)").unwrap();
        assert!(t.is_relative() && t.uses_remax());
        let positive = Scale { rmax: None, remax: None, ..scale() };
        assert_eq!(t.bound(&positive), Err(ThresholdError::NotPositive { threshold: t.text.clone() }));
        assert!(matches!(
            Threshold::parse("-1").unwrap().bound(&scale()),
            Err(ThresholdError::Negative { .. })
        ));
    }

    #[test]
    fn trusted_is_twice_remax_with_a_noise_floor() {
        let t = Threshold::trusted(&default_noise());
        assert_eq!(t.bound(&scale()).unwrap(), Bound { absolute: Rat::zero(), relative: frac(1, 20) });
        let loose = Scale { remax: Some(frac(1, 10)), ..scale() };
        assert_eq!(t.bound(&loose).unwrap().relative, frac(1, 5));
        assert_eq!(t.limit, Some(frac(1, 2)));
        assert_eq!(t.definition().unwrap(), "max(2*remax, 5 %), none from r = 50 % on");
        let t2 = Threshold::parse_with_noise(" trusted ", &frac(1, 10)).unwrap();
        assert_eq!(t2.bound(&scale()).unwrap().relative, frac(1, 10));
        assert!(Threshold::parse("2*trusted").unwrap_err().message.contains("of its own"));
        let d: Vec<String> = Threshold::defaults().into_iter().map(|t| t.text).collect();
        assert_eq!(d, ["max", "trusted"]);
    }

    #[test]
    fn faults_are_located() {
        let e = Threshold::parse("emx").unwrap_err();
        assert!(e.message.contains("unknown name"), "{}", e.message);
        assert_eq!(e.span, 0..3);
        assert!(Threshold::parse("max*emax").unwrap_err().message.contains("linear"));
        let mixed = Threshold::parse("max(max, 5%)").unwrap_err();
        assert!(mixed.message.contains("one kind"), "{}", mixed.message);
        assert_eq!(Threshold::parse("max + ").unwrap_err().span.start, 6);
        assert!(Threshold::parse("max(1, 2").unwrap_err().message.contains("`)`"));
        assert!(Threshold::parse("1/0").unwrap_err().message.contains("zero"));
        assert!(Threshold::parse("max 2").unwrap_err().message.contains("end"));
    }

    #[test]
    fn measurement_bands() {
        let abs = Bound::absolute(int(2));
        assert_eq!(abs.measurement_band(Some(&int(10)), Some(&int(12))), (Some(int(8)), Some(int(14))));
        let rel = Bound { absolute: Rat::zero(), relative: frac(1, 4) };
        assert_eq!(rel.measurement_band(Some(&int(10)), Some(&int(12))), (Some(int(8)), Some(int(16))));
        let wide = Bound { absolute: Rat::zero(), relative: int(1) };
        assert_eq!(wide.measurement_band(Some(&int(10)), Some(&int(12))), (Some(int(5)), None));
        assert_eq!(abs.measurement_band(None, Some(&int(1))), (None, Some(int(3))));
        assert_eq!(rel.describe(3), "r = 25 %");
        // Measurements are positive under a relative bound.
        assert_eq!(rel.measurement_band(Some(&int(-4)), None), (Some(Rat::zero()), None));
        assert_eq!(rel.measurement_band(None, Some(&int(3))), (Some(Rat::zero()), Some(int(4))));
    }
}
