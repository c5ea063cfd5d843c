//! Tick placement and labels: "nice" linear steps (1, 2, 2.5, 5 × 10^k) and
//! base-10 log ticks, labelled with the fewest digits that tell neighbouring
//! ticks apart.

use super::svg::tidy;

/// One tick; minor ticks and thinned-out major ticks have an empty label.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Tick {
    pub(crate) value: f64,
    /// Major ticks get a grid line and (unless thinned) a label.
    pub(crate) major: bool,
    pub(crate) label: String,
}

/// `1e{k}` parsed, so powers of ten are correctly rounded (`powi` is not for
/// large exponents).
fn pow10(k: i32) -> f64 {
    format!("1e{k}").parse().unwrap_or(f64::NAN)
}

/// `a × 10^k` with a single rounding, so that 3 × 10⁻¹ is the double nearest
/// 0.3 and prints as such.
fn scaled(a: f64, k: i32) -> f64 {
    if (-300..0).contains(&k) {
        a / pow10(-k)
    } else {
        a * pow10(k)
    }
}

/// A step `m × 10^k`; `last` is the exponent of its last significant digit
/// (one lower for 2.5), which fixes how many digits labels need.
#[derive(Debug, Clone, Copy)]
struct Step {
    m: f64,
    k: i32,
    last: i32,
}

impl Step {
    fn size(self) -> f64 {
        scaled(self.m, self.k)
    }

    fn value(self, i: i64) -> f64 {
        scaled(i as f64 * self.m, self.k)
    }

    /// Index range of the multiples inside `[lo, hi]`, with a little slack so
    /// limits that are themselves multiples count; `None` when it would not
    /// fit an i64 comfortably.
    fn indices(self, lo: f64, hi: f64) -> Option<(i64, i64)> {
        let s = self.size();
        if !(s.is_finite() && s > 0.0) {
            return None;
        }
        let a = (lo / s - 1e-9).ceil();
        let b = (hi / s + 1e-9).floor();
        if a.is_finite() && b.is_finite() && a.abs() < 1e15 && b.abs() < 1e15 {
            Some((a as i64, b as i64))
        } else {
            None
        }
    }
}

/// The smallest nice step giving at most `max_n` ticks in `[lo, hi]`.
fn nice_step(lo: f64, hi: f64, max_n: usize) -> Option<Step> {
    let span = hi - lo;
    if !(lo.is_finite() && hi.is_finite() && span.is_finite() && span > 0.0) {
        return None;
    }
    let k0 = span.log10().floor() as i32 - 2;
    for k in k0..=k0 + 4 {
        for (m, extra) in [(1.0, 0), (2.0, 0), (2.5, 1), (5.0, 0)] {
            let st = Step { m, k, last: k - extra };
            let (a, b) = st.indices(lo, hi)?;
            if b - a < max_n as i64 {
                return Some(st);
            }
        }
    }
    None
}

/// Linear ticks in `[lo, hi]`: 4–8 of them when `max_n` is 8 (a step of
/// twice the size never leaves fewer than half).
pub(crate) fn linear_ticks(lo: f64, hi: f64, max_n: usize) -> Vec<Tick> {
    let found = nice_step(lo, hi, max_n.max(2)).and_then(|st| Some((st, st.indices(lo, hi)?)));
    let Some((st, (a, b))) = found else { return fallback(lo, hi) };
    let values: Vec<f64> = (a..=b).map(|i| st.value(i)).collect();
    let labels = linear_labels(&values, st.last);
    values.into_iter().zip(labels).map(|(value, label)| Tick { value, major: true, label }).collect()
}

/// Ticks at the two ends only, for ranges no nice step can describe.
fn fallback(lo: f64, hi: f64) -> Vec<Tick> {
    let mut out = Vec::new();
    for v in [lo, hi] {
        if v.is_finite() && out.last().is_none_or(|t: &Tick| t.value != v) {
            out.push(Tick { value: v, major: true, label: general(v) });
        }
    }
    out
}

/// Six significant digits, for values not on a nice step.
fn general(v: f64) -> String {
    if v == 0.0 {
        return "0".to_string();
    }
    if (1e-3..1e6).contains(&v.abs()) {
        let d = (5 - exp10(v)).clamp(0, 20) as usize;
        tidy(format!("{v:.d$}"))
    } else {
        tidy_exp(&format!("{v:.5e}"))
    }
}

/// Decimal exponent of `v` as Rust prints it (exact, unlike `log10().floor()`).
fn exp10(v: f64) -> i32 {
    let s = format!("{v:e}");
    s.split('e').nth(1).and_then(|e| e.parse().ok()).unwrap_or(0)
}

/// `1.50e-8` → `1.5e-8`, `-0e0` → `0`.
fn tidy_exp(s: &str) -> String {
    match s.split_once('e') {
        Some((m, e)) => {
            let m = tidy(m.to_string());
            if m == "0" {
                m
            } else {
                format!("{m}e{e}")
            }
        }
        None => tidy(s.to_string()),
    }
}

/// Labels for ticks on a step whose last significant digit is at `10^last`:
/// plain decimals when the largest magnitude is in [1e-3, 1e6), otherwise
/// `1.5e-8` style, each with just the digits the step needs.
pub(crate) fn linear_labels(values: &[f64], last: i32) -> Vec<String> {
    let maxabs = values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let plain = maxabs == 0.0 || (1e-3..1e6).contains(&maxabs);
    values
        .iter()
        .map(|&v| {
            if v == 0.0 {
                "0".to_string()
            } else if plain {
                let d = (-last).clamp(0, 20) as usize;
                tidy(format!("{v:.d$}"))
            } else {
                let d = (exp10(v) - last).clamp(0, 20) as usize;
                tidy_exp(&format!("{v:.d$e}"))
            }
        })
        .collect()
}

/// Unicode superscript form of an integer exponent.
pub(crate) fn superscript(k: i32) -> String {
    k.to_string()
        .chars()
        .map(|c| match c {
            '-' => '⁻',
            '0' => '⁰',
            '1' => '¹',
            '2' => '²',
            '3' => '³',
            '4' => '⁴',
            '5' => '⁵',
            '6' => '⁶',
            '7' => '⁷',
            '8' => '⁸',
            _ => '⁹',
        })
        .collect()
}

/// `10`, `100`, `1000` read faster than powers; beyond that `10⁴`.
fn decade_label(k: i32) -> String {
    if (-2..=3).contains(&k) {
        linear_labels(&[pow10(k)], k.min(0))[0].clone()
    } else {
        format!("10{}", superscript(k))
    }
}

/// Label of `m × 10^k` on a log axis spanning two decades or less.
fn label_125(m: u32, k: i32) -> String {
    let v = scaled(f64::from(m), k);
    if (1e-3..1e6).contains(&v) {
        linear_labels(&[v], k.min(0))[0].clone()
    } else if m == 1 {
        format!("10{}", superscript(k))
    } else {
        format!("{m}×10{}", superscript(k))
    }
}

/// Base-10 log ticks in `[lo, hi]` (both > 0): labelled decades with 2..9
/// minors when the range spans more than two decades (every n-th decade
/// when there are more than `max_n`), 1-2-5 majors otherwise, and linear
/// ticks when fewer than three 1-2-5 values fall inside.
pub(crate) fn log_ticks(lo: f64, hi: f64, max_n: usize) -> Vec<Tick> {
    if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && hi > lo) {
        return fallback(lo, hi);
    }
    let (a, b) = (lo.log10(), hi.log10());
    let inside = |v: f64| v.is_finite() && v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9);
    let (k0, k1) = (a.floor() as i32, b.ceil() as i32);
    let mut out = Vec::new();
    if b - a > 2.0 {
        let decades = (k1 - k0).max(1);
        let every = (decades as f64 / max_n.max(2) as f64).ceil().max(1.0) as i32;
        for k in k0..=k1 {
            let v = pow10(k);
            if inside(v) {
                let major = k.rem_euclid(every) == 0;
                let label = if major { decade_label(k) } else { String::new() };
                out.push(Tick { value: v, major, label });
            }
            if every == 1 {
                for m in 2..=9 {
                    let v = scaled(f64::from(m), k);
                    if inside(v) {
                        out.push(Tick { value: v, major: false, label: String::new() });
                    }
                }
            }
        }
    } else {
        for k in k0..=k1 {
            for m in 1..=9u32 {
                let v = scaled(f64::from(m), k);
                if inside(v) {
                    let major = matches!(m, 1 | 2 | 5);
                    let label = if major { label_125(m, k) } else { String::new() };
                    out.push(Tick { value: v, major, label });
                }
            }
        }
        if out.iter().filter(|t| t.major).count() < 3 {
            return linear_ticks(lo, hi, max_n.min(6));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(ts: &[Tick]) -> Vec<String> {
        ts.iter().filter(|t| t.major).map(|t| t.label.clone()).collect()
    }

    #[test]
    fn nice_linear_ticks() {
        let cases: [(f64, f64, &[&str]); 4] = [
            (0.0, 1.0, &["0", "0.2", "0.4", "0.6", "0.8", "1"]),
            (502.8, 6346.7, &["1000", "2000", "3000", "4000", "5000", "6000"]),
            (-1.2e-4, 9.5e-4, &["0", "2e-4", "4e-4", "6e-4", "8e-4"]),
            (-8e-8, 4.2e-8, &["-8e-8", "-6e-8", "-4e-8", "-2e-8", "0", "2e-8", "4e-8"]),
        ];
        for (lo, hi, want) in cases {
            let ts = linear_ticks(lo, hi, 8);
            assert!((4..=8).contains(&ts.len()), "{lo}..{hi}: {ts:?}");
            assert!(ts.iter().all(|t| t.value >= lo && t.value <= hi));
            assert_eq!(labels(&ts), want, "{lo}..{hi}");
        }
    }

    #[test]
    fn steps_of_two_and_a_half_get_a_digit_more() {
        let ts = linear_ticks(0.0, 10.0, 5);
        assert_eq!(labels(&ts), ["0", "2.5", "5", "7.5", "10"]);
        let ts = linear_ticks(0.0, 1e-7, 5);
        assert_eq!(labels(&ts), ["0", "2.5e-8", "5e-8", "7.5e-8", "1e-7"]);
    }

    #[test]
    fn labels_have_no_negative_zero_and_use_e_notation_outside_plain_range() {
        assert_eq!(linear_labels(&[-0.0, -1e-9, 0.5], -1), ["0", "0", "0.5"]);
        assert_eq!(linear_labels(&[1e-8, 1.5e-8, 2e-8], -9), ["1e-8", "1.5e-8", "2e-8"]);
        assert_eq!(linear_labels(&[0.0, 2e6, 4e6], 6), ["0", "2e6", "4e6"]);
        assert_eq!(linear_labels(&[0.001, 0.0015], -4), ["0.001", "0.0015"]);
        for (lo, hi) in [(-1.0, 1.0), (-3e-9, 1e-9), (-0.3, 0.1)] {
            assert!(linear_ticks(lo, hi, 8).iter().all(|t| !t.label.starts_with("-0") || t.label.len() > 2));
            assert!(linear_ticks(lo, hi, 8).iter().any(|t| t.label == "0"));
        }
    }

    #[test]
    fn log_ticks_label_decades() {
        let ts = log_ticks(10.0, 10000.0, 8);
        assert_eq!(labels(&ts), ["10", "100", "1000", "10⁴"]);
        assert_eq!(ts.iter().filter(|t| !t.major).count(), 3 * 8);
        assert!(ts.iter().filter(|t| !t.major).all(|t| t.label.is_empty()));
        assert!(ts.windows(2).all(|w| w[0].value < w[1].value));
        let ts = log_ticks(1e-12, 1e-3, 8);
        assert_eq!(labels(&ts)[0], "10⁻¹²");
        let ts = log_ticks(1e-30, 1e30, 8);
        assert!(labels(&ts).len() <= 8);
    }

    #[test]
    fn short_log_ranges_use_one_two_five() {
        let ts = log_ticks(16.0, 128.0, 8);
        assert_eq!(labels(&ts), ["20", "50", "100"]);
        let ts = log_ticks(30.0, 90.0, 8);
        assert!(labels(&ts).len() >= 3, "{ts:?}");
        let ts = log_ticks(2e6, 3e7, 8);
        assert_eq!(labels(&ts), ["2×10⁶", "5×10⁶", "10⁷", "2×10⁷"]);
    }

    #[test]
    fn degenerate_ranges_do_not_panic() {
        assert_eq!(linear_ticks(1.0, 1.0, 8).len(), 1);
        assert!(linear_ticks(f64::NAN, 1.0, 8).len() <= 1);
        assert!(!linear_ticks(-1e300, 1e300, 8).is_empty());
        assert!(!linear_ticks(1.0, 1.0 + 1e-15, 8).is_empty());
        assert!(log_ticks(-1.0, 10.0, 8).len() <= 2);
        assert!(!log_ticks(f64::MIN_POSITIVE, f64::MAX, 8).is_empty());
    }
}
