//! Units of the predictors' inputs: one vocabulary for CSV headers
//! (`time [ms]`) and command-line quantities (`3.86us`, `2000MHz`). Values
//! are converted exactly (by powers of ten) to a base unit per dimension:
//! seconds, MHz, watts, joules, bytes.

use crate::num::{parse_rat, Interval, Rat};
use num_bigint::BigInt;
use num_traits::Signed;

/// A physical dimension with its base unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dim {
    /// Time; base unit `s`.
    Time,
    /// Frequency; base unit `MHz` (the unit DVFS tables use).
    Frequency,
    /// Power; base unit `W`.
    Power,
    /// Energy; base unit `J`.
    Energy,
    /// Data size; base unit `B`.
    Bytes,
}

impl Dim {
    /// The base unit's symbol.
    pub fn base(self) -> &'static str {
        match self {
            Dim::Time => "s",
            Dim::Frequency => "MHz",
            Dim::Power => "W",
            Dim::Energy => "J",
            Dim::Bytes => "B",
        }
    }

    /// The accepted unit symbols, for messages.
    pub fn accepted(self) -> &'static str {
        match self {
            Dim::Time => "ns, us (or µs), ms, s, min, h",
            Dim::Frequency => "Hz, kHz, MHz, GHz",
            Dim::Power => "mW, W, kW",
            Dim::Energy => "mJ, J, kJ, Wh, kWh (also Ws)",
            Dim::Bytes => "B, kB, KiB, MB, MiB, GB, GiB",
        }
    }
}

fn pow10(e: i32) -> Rat {
    let p = Rat::from_integer(BigInt::from(10u8).pow(e.unsigned_abs()));
    if e < 0 {
        p.recip()
    } else {
        p
    }
}

/// How many base units one `unit` is (`ms` → 1/1000 for [`Dim::Time`]);
/// `None` for a unit of another dimension or an unknown one.
pub fn factor(dim: Dim, unit: &str) -> Option<Rat> {
    let int = |n: i64| Rat::from_integer(n.into());
    let f = match (dim, unit.trim()) {
        (Dim::Time, "ns") => pow10(-9),
        (Dim::Time, "us" | "µs" | "μs") => pow10(-6),
        (Dim::Time, "ms") => pow10(-3),
        (Dim::Time, "s" | "sec") => int(1),
        (Dim::Time, "min") => int(60),
        (Dim::Time, "h") => int(3600),
        (Dim::Frequency, "Hz") => pow10(-6),
        (Dim::Frequency, "kHz") => pow10(-3),
        (Dim::Frequency, "MHz") => int(1),
        (Dim::Frequency, "GHz") => int(1000),
        (Dim::Power, "mW") => pow10(-3),
        (Dim::Power, "W") => int(1),
        (Dim::Power, "kW") => int(1000),
        (Dim::Energy, "mJ") => pow10(-3),
        (Dim::Energy, "J" | "Ws") => int(1),
        (Dim::Energy, "kJ") => int(1000),
        (Dim::Energy, "Wh") => int(3600),
        (Dim::Energy, "kWh") => int(3_600_000),
        (Dim::Bytes, "B") => int(1),
        (Dim::Bytes, "kB") => int(1000),
        (Dim::Bytes, "KiB") => int(1024),
        (Dim::Bytes, "MB") => int(1_000_000),
        (Dim::Bytes, "MiB") => int(1 << 20),
        (Dim::Bytes, "GB") => int(1_000_000_000),
        (Dim::Bytes, "GiB") => int(1 << 30),
        _ => return None,
    };
    Some(f)
}

/// The factor of `unit`, or a message naming the accepted units.
pub fn factor_or_err(dim: Dim, unit: &str, what: &str) -> Result<Rat, String> {
    factor(dim, unit).ok_or_else(|| format!("{what}: unknown unit `{unit}`; accepted: {}", dim.accepted()))
}

/// Parses a quantity such as `3.86us`, `60 us`, `2GHz` or a bare number (in
/// `default_unit`) into the base unit, exactly.
pub fn parse_quantity(text: &str, dim: Dim, default_unit: &str, what: &str) -> Result<Rat, String> {
    let t = text.trim();
    let split = t
        .char_indices()
        .find(|&(i, c)| {
            c.is_alphabetic() && c != 'e' && c != 'E' || (matches!(c, 'e' | 'E') && !next_is_exponent(t, i))
        })
        .map_or(t.len(), |(i, _)| i);
    let (num, unit) = t.split_at(split);
    let unit = unit.trim();
    let unit = if unit.is_empty() { default_unit } else { unit };
    let value = parse_rat(num.trim()).map_err(|e| format!("{what}: `{text}` is not a quantity ({e})"))?;
    Ok(value * factor_or_err(dim, unit, what)?)
}

/// Most values a stepped range `a..b:s` of quantities may expand to.
pub const MAX_QUANTITY_ITEMS: usize = 10_000;

/// Quantities as the CLI writes them, comma-separated: `60us` (a value),
/// `40us..120us` (a closed interval), `20us..120us:20us` (the values from
/// 20 to 120 µs in steps of 20 µs, each a point). Bare numbers are in
/// `default_unit`. Every value is in the base unit.
pub fn parse_quantity_items(
    text: &str,
    dim: Dim,
    default_unit: &str,
    what: &str,
) -> Result<Vec<Interval>, String> {
    let mut out = Vec::new();
    for piece in text.split(',') {
        let piece = piece.trim();
        if piece.is_empty() {
            return Err(format!("{what} {text}: an empty item"));
        }
        let q = |t: &str| parse_quantity(t, dim, default_unit, what);
        let Some((lo, rest)) = piece.split_once("..") else {
            out.push(Interval::point(q(piece)?));
            continue;
        };
        let (hi, step) = match rest.split_once(':') {
            Some((h, st)) => (h, Some(st)),
            None => (rest, None),
        };
        let (lo, hi) = (q(lo)?, q(hi)?);
        if lo > hi {
            return Err(format!("{what} {piece}: the lower end exceeds the upper end"));
        }
        match step {
            None => out.push(Interval { lo, hi }),
            Some(st) => {
                let st = q(st)?;
                if !st.is_positive() {
                    return Err(format!("{what} {piece}: the step must be positive"));
                }
                let mut v = lo;
                while v <= hi {
                    if out.len() >= MAX_QUANTITY_ITEMS {
                        return Err(format!("{what} {piece}: more than {MAX_QUANTITY_ITEMS} values"));
                    }
                    out.push(Interval::point(v.clone()));
                    v += &st;
                }
            }
        }
    }
    Ok(out)
}

/// True when the `e` at byte `i` starts an exponent (`1e-6`), not a unit.
fn next_is_exponent(t: &str, i: usize) -> bool {
    let rest = t.get(i + 1..).unwrap_or("");
    let rest = rest.strip_prefix(['+', '-']).unwrap_or(rest);
    rest.starts_with(|c: char| c.is_ascii_digit()) && i > 0
}

/// A unit as plots write it: microseconds as `µs` (the micro sign, however
/// the input spelled it: `us`, `µs` or the Greek `μs`), every other unit
/// as given. Plots of every command label their axes through this.
pub fn display(unit: &str) -> std::borrow::Cow<'_, str> {
    match unit {
        "us" | "μs" => std::borrow::Cow::Borrowed("µs"),
        other => std::borrow::Cow::Borrowed(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plots_write_microseconds_one_way() {
        for u in ["us", "µs", "μs"] {
            assert_eq!(display(u), "µs");
        }
        assert_eq!(display("ms"), "ms");
        assert_eq!(display("GHz"), "GHz");
    }
    use crate::num::frac;

    #[test]
    fn quantities_convert_exactly_to_base_units() {
        assert_eq!(parse_quantity("3.86us", Dim::Time, "s", "x").unwrap(), frac(386, 100_000_000));
        assert_eq!(parse_quantity("60 us", Dim::Time, "s", "x").unwrap(), frac(6, 100_000));
        assert_eq!(parse_quantity("1e-6", Dim::Time, "s", "x").unwrap(), frac(1, 1_000_000));
        assert_eq!(parse_quantity("2.5GHz", Dim::Frequency, "MHz", "x").unwrap(), frac(2500, 1));
        assert_eq!(parse_quantity("2000", Dim::Frequency, "MHz", "x").unwrap(), frac(2000, 1));
        assert_eq!(parse_quantity("1.5e3ms", Dim::Time, "s", "x").unwrap(), frac(3, 2));
        let e = parse_quantity("3 parsecs", Dim::Time, "s", "--t-ib").unwrap_err();
        assert!(e.contains("unknown unit `parsecs`") && e.contains("--t-ib"), "{e}");
        assert!(parse_quantity("fast", Dim::Time, "s", "x").is_err());
        assert_eq!(factor(Dim::Power, "kW"), Some(frac(1000, 1)));
        assert_eq!(factor(Dim::Power, "s"), None);
    }

    #[test]
    fn quantity_items_are_points_intervals_and_stepped_lists() {
        let us = |n: i64| frac(n, 1_000_000);
        let v = parse_quantity_items("60us, 40us..120us", Dim::Time, "us", "--t-sr").unwrap();
        assert_eq!(v, vec![Interval::point(us(60)), Interval { lo: us(40), hi: us(120) }]);
        let v = parse_quantity_items("20..60:20", Dim::Time, "us", "--t-sr").unwrap();
        assert_eq!(v, vec![Interval::point(us(20)), Interval::point(us(40)), Interval::point(us(60))]);
        assert_eq!(
            parse_quantity_items("0.1ms", Dim::Time, "us", "x").unwrap(),
            vec![Interval::point(us(100))]
        );
        for bad in ["120us..40us", "1..2:0", "1..2:-1", "5 parsecs", "1,,2", "1..1000000:1e-6"] {
            assert!(parse_quantity_items(bad, Dim::Time, "us", "--t-sr").is_err(), "{bad}");
        }
    }
}
