//! The band of a prediction: the smallest and largest value over a
//! region of parameters, each side possibly unbounded. A module of its own
//! below the analysis and the thresholds, which both make bands.

use crate::num::Rat;
use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};

/// A band: `None` on a side means unbounded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Band {
    /// Smallest prediction over the region (None: −∞).
    pub lower: Option<Rat>,
    /// Largest (None: +∞).
    pub upper: Option<Rat>,
    /// The lower end reached below zero and is bounded by zero
    /// ([`Band::positive`]): a run time (every measurement positive) is
    /// never negative.
    pub clipped: bool,
}

impl Band {
    /// The band `[lower, upper]`, not clipped.
    pub fn new(lower: Option<Rat>, upper: Option<Rat>) -> Band {
        Band { lower, upper, clipped: false }
    }

    /// The band with positivity as a constraint at its point: the values
    /// of the band that are not below zero, `[max(lower, 0), upper]`
    /// (`clipped` when the lower end moved), or `None` when every value of
    /// the band is below zero (no parameters of the region give a positive
    /// value there). For measurements that are all positive: run times.
    pub fn positive(self) -> Option<Band> {
        if self.upper.as_ref().is_some_and(Rat::is_negative) {
            return None;
        }
        match self.lower {
            Some(ref l) if !l.is_negative() => Some(self),
            _ => Some(Band { lower: Some(Rat::zero()), upper: self.upper, clipped: true }),
        }
    }

    /// The smallest band holding both (a side is unbounded when either
    /// is; clipped when either was).
    pub fn hull(&self, other: &Band) -> Band {
        let lower = match (&self.lower, &other.lower) {
            (Some(a), Some(b)) => Some(crate::num::min_fast(a, b).clone()),
            _ => None,
        };
        let upper = match (&self.upper, &other.upper) {
            (Some(a), Some(b)) => Some(crate::num::max_fast(a, b).clone()),
            _ => None,
        };
        Band { lower, upper, clipped: self.clipped || other.clipped }
    }

    /// True when `y` lies in the band.
    pub fn contains(&self, y: &Rat) -> bool {
        self.lower.as_ref().is_none_or(|l| l <= y) && self.upper.as_ref().is_none_or(|u| y <= u)
    }

    /// `upper − lower`, if finite.
    pub fn width(&self) -> Option<Rat> {
        match (&self.lower, &self.upper) {
            // One reduction (num-rational's `-` takes several gcds).
            (Some(l), Some(u)) => Some(crate::num::sub(u, l)),
            _ => None,
        }
    }

    /// [`Band::width`] as an unreduced numerator and denominator (`d > 0`).
    pub fn width_parts(&self) -> Option<(BigInt, BigInt)> {
        let (l, u) = (self.lower.as_ref()?, self.upper.as_ref()?);
        Some((u.numer() * l.denom() - l.numer() * u.denom(), u.denom() * l.denom()))
    }

    /// [`Band::width_parts`] in 128-bit integers; `None` when unbounded or
    /// when a part would not fit (the caller then takes the big-integer
    /// path, to the same value).
    pub(crate) fn width_parts_i128(&self) -> Option<(i128, i128)> {
        let (l, u) = (self.lower.as_ref()?, self.upper.as_ref()?);
        let [ln, ld, un, ud] = [l.numer(), l.denom(), u.numer(), u.denom()].map(ToPrimitive::to_i128);
        let (ln, ld, un, ud) = (ln?, ld?, un?, ud?);
        let direct = || Some((un.checked_mul(ld)?.checked_sub(ln.checked_mul(ud)?)?, ud.checked_mul(ld)?));
        // Past 128 bits (band ends far out, over long denominators), over
        // lcm(ud, ld) first: one word-sized gcd instead of big integers.
        direct().or_else(|| {
            let g = crate::num::gcd_i128(ud, ld);
            let (a, b) = (ld / g, ud / g);
            Some((un.checked_mul(a)?.checked_sub(ln.checked_mul(b)?)?, ud.checked_mul(a)?))
        })
    }

    /// The factor `1/(2|model|)` that turns a width into the relative
    /// half-width ([`Band::relative_of_width`]), as `(n, d)` in 128-bit
    /// integers (`None` at a zero model or when a part would not fit).
    pub(crate) fn half_width_factor_i128(model: &Rat) -> Option<(i128, i128)> {
        let (tn, td) = (model.numer().to_i128()?, model.denom().to_i128()?);
        if tn == 0 {
            return None;
        }
        Some((td, tn.checked_abs()?.checked_mul(2)?))
    }

    /// `(upper − lower)/(2|model|)`: the half-width relative to the
    /// prediction `model`; `None` when the band is unbounded or `model` is
    /// zero.
    pub fn relative_half_width(&self, model: &Rat) -> Option<Rat> {
        self.relative_half_width_parts(model).map(|(n, d)| crate::num::reduced(n, d))
    }

    /// [`Band::relative_half_width`] as an unreduced numerator and
    /// denominator (`d > 0`), one product each: a table that only shows
    /// its decimals never reduces it.
    pub fn relative_half_width_parts(&self, model: &Rat) -> Option<(BigInt, BigInt)> {
        Band::relative_of_width(&self.width_parts()?, model)
    }

    /// The relative half-width `w / (2·|model|)` of a band whose width is
    /// `w = n/d` ([`Band::width_parts`]), unreduced; `None` at a zero model.
    /// For a caller that holds the width already and would otherwise
    /// compute it twice.
    pub fn relative_of_width((n, d): &(BigInt, BigInt), model: &Rat) -> Option<(BigInt, BigInt)> {
        if model.is_zero() {
            return None;
        }
        let two_t = BigInt::from(2) * model.numer().abs();
        Some((n * model.denom(), d * two_t))
    }
}
