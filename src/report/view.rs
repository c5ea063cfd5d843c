//! Views of a document's values as the reports write them: an exact value
//! as its fraction or its decimal, a ratio as a percentage, a threshold as
//! its label, a band as its two ends. Renderers that read a document
//! ([`crate::document`]) share these, so that every output words a value
//! the same way; none of them computes anything the document does not hold
//! (a percentage is the exact ratio scaled by 100 and rounded once).

use crate::document::analysis::{PointBands, PrunedDocument, Shrink};
use crate::document::{Band, BandStatus, Exact, Point, Threshold};
use crate::num::{fmt_sig, parse_rat, show_value};
use crate::threshold::Bound;

/// As the reader asked: the exact fraction (`--exact`) or the decimal.
pub(crate) fn num(e: &Exact, exact: bool) -> String {
    if exact {
        e.exact()
    } else {
        e.decimal()
    }
}

/// `e` as a percentage, correctly rounded to `digits` significant digits,
/// with `unit` after it (`" %"` or `"%"`).
pub(crate) fn pct(e: &Exact, digits: usize, unit: &str) -> String {
    format!("{}{unit}", crate::num::fmt_pct_sig(&e.value(), digits))
}

/// A scale as written in the data (`256`, `0.5`, `1/3`).
pub(crate) fn shown(e: &Exact) -> String {
    show_value(&e.value())
}

/// The coordinates of `point` in the model's variable order, each marked
/// `*` when it lies in `beyond` (outside the range of the data).
pub(crate) fn coords(point: &Point, vars: &[String], beyond: &[String]) -> Vec<String> {
    vars.iter()
        .map(|v| {
            let x = point.get(v).map_or("", String::as_str);
            if beyond.contains(v) {
                format!("{x}*")
            } else {
                x.to_string()
            }
        })
        .collect()
}

/// `v = 1, w = 2`: a point as the reports name it.
pub(crate) fn point_label(point: &Point, vars: &[String]) -> String {
    coords(point, vars, &[])
        .iter()
        .zip(vars)
        .map(|(x, v)| format!("{v} = {x}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The measurements a pruned analysis left out: `p = 10 (row 1, line 5); …`.
pub(crate) fn dropped_text(p: &PrunedDocument, vars: &[String]) -> String {
    p.dropped
        .iter()
        .map(|d| format!("{} (row {}, line {})", point_label(&d.point, vars), d.row, d.line))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The pruned analysis' bands and shrink ratios at the full analysis'
/// `i`-th point, `point`: the pruned analysis predicts at the same points
/// in the same order, so this is a look-up by position; a point it lacks
/// (a streamed analysis may hold fewer) reads `None`, never another
/// point's bands.
pub(crate) fn pruned_at<'a>(
    p: &'a PrunedDocument,
    i: usize,
    point: &Point,
) -> (Option<&'a PointBands>, Option<&'a Shrink>) {
    (p.analysis.bands.get(i).filter(|b| b.point == *point), p.shrink.get(i).filter(|s| s.point == *point))
}

/// The shrink ratio of threshold `i` as a cell: `×1.04`, or `-`.
pub(crate) fn shrink_cell(s: Option<&Shrink>, i: usize) -> String {
    s.and_then(|s| s.ratios.get(i))
        .and_then(|r| r.ratio.as_ref())
        .map_or("-".into(), |r| format!("×{}", fmt_sig(&r.value(), 3)))
}

/// The bound of a resolved threshold (`None` when it has none).
fn bound_of(t: &Threshold) -> Option<Bound> {
    Some(Bound {
        absolute: t.absolute.as_ref()?.value().into_owned(),
        relative: t.relative.as_ref()?.value().into_owned(),
    })
}

/// A resolved threshold's bound in short ([`Bound::describe`]): `17.9772`,
/// `r = 5 %`, `0.1 + 5 %·d` (`None` when it has no bound).
pub(crate) fn describe(t: &Threshold, digits: usize) -> Option<String> {
    bound_of(t).map(|b| b.describe(digits))
}

/// A threshold `label` with its bound as the reports write it:
/// `max = 17.9772`, `trusted: r = 5 %`, `0.1 + 5 %·d`, or a number alone;
/// `exact`: an absolute bound as its fraction.
pub(crate) fn bound_label(label: &str, b: &Bound, exact: bool, digits: usize) -> String {
    if parse_rat(label).is_ok() {
        label.to_string()
    } else if b.is_relative() {
        format!("{label}: {}", b.describe(digits))
    } else if exact {
        format!("{label} = {}", crate::num::fmt_fraction(&b.absolute))
    } else {
        format!("{label} = {}", fmt_sig(&b.absolute, digits))
    }
}

/// [`bound_label`] of a resolved threshold (its label alone when it has no
/// bound).
pub(crate) fn threshold_label(t: &Threshold, exact: bool, digits: usize) -> String {
    match bound_of(t) {
        Some(b) => bound_label(&t.label, &b, exact, digits),
        None => t.label.clone(),
    }
}

/// Lower and upper end of a band as the reports write them: `empty`, `no
/// band` (untrusted or refused), `below 0`, or the ends (`-inf`, `+inf`
/// when open), the lower marked [`super::CLIPPED`] when it was bounded by
/// zero.
pub(crate) fn band_ends(b: &Band, exact: bool) -> (String, String) {
    match b.status {
        BandStatus::Ok => (
            format!(
                "{}{}",
                b.lower.as_ref().map_or_else(|| "-inf".to_string(), |v| num(v, exact)),
                if b.clipped { super::CLIPPED } else { "" }
            ),
            b.upper.as_ref().map_or_else(|| "+inf".to_string(), |v| num(v, exact)),
        ),
        BandStatus::Empty => ("empty".into(), "empty".into()),
        BandStatus::BelowZero => ("below 0".into(), "-".into()),
        _ => ("no band".into(), "-".into()),
    }
}

/// `[lower, upper]` of a band, `-inf`/`+inf` for an open side.
pub(crate) fn interval(b: &Band, exact: bool) -> String {
    let side =
        |v: &Option<Exact>, inf: &'static str| v.as_ref().map_or_else(|| inf.to_string(), |x| num(x, exact));
    format!("[{}, {}]", side(&b.lower, "-inf"), side(&b.upper, "+inf"))
}

/// True when some band is bounded by zero or lies wholly below it (a table
/// showing them then explains the mark).
pub(crate) fn any_clipped<'a>(bands: impl IntoIterator<Item = &'a Band>) -> bool {
    bands.into_iter().any(|b| b.clipped || b.status == BandStatus::BelowZero)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(s: &str) -> Exact {
        Exact::new(&parse_rat(s).unwrap(), 6)
    }

    #[test]
    fn thresholds_read_as_their_bounds() {
        let t = |abs: &str, rel: &str, label: &str| Threshold {
            label: label.into(),
            absolute: Some(ex(abs)),
            relative: Some(ex(rel)),
        };
        assert_eq!(threshold_label(&t("17.97721", "0", "max"), false, 6), "max = 17.9772");
        assert_eq!(threshold_label(&t("17.97721", "0", "max"), true, 6), "max = 1797721/100000");
        assert_eq!(threshold_label(&t("0", "1/20", "trusted"), false, 6), "trusted: r = 5 %");
        assert_eq!(threshold_label(&t("1/10", "1/20", "mix"), false, 6), "mix: 0.1 + 5 %·d");
        assert_eq!(threshold_label(&t("3", "0", "3"), false, 6), "3");
        let none = Threshold { label: "trusted".into(), absolute: None, relative: None };
        assert_eq!(threshold_label(&none, false, 6), "trusted");
        assert_eq!(describe(&none, 6), None);
    }

    #[test]
    fn percentages_and_scales_are_views_of_the_exact_value() {
        assert_eq!(pct(&ex("1/3"), 3, " %"), "33.3 %");
        assert_eq!(pct(&ex("-1/40"), 3, "%"), "-2.5%");
        assert_eq!(shown(&ex("256")), "256");
        assert_eq!(shown(&ex("1/3")), "1/3");
        assert_eq!(shown(&ex("1/2")), "0.5");
    }
}
