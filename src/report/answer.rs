//! The answer first: the band errband recommends for the next measurement
//! at each prediction point, what it assumes, and whether the form passed
//! its self-check ([`crate::trust`]). Text, Markdown and HTML share the
//! sentences written here; JSON carries the same facts as data.

use super::*;
use crate::trust::Outcome;
use num_bigint::BigInt;

/// The answer's lines, in one wording for every output.
pub(crate) struct Answer {
    /// One line per prediction point.
    pub points: Vec<String>,
    /// What the bands assume, the self-check and a change of trend.
    pub notes: Vec<String>,
}

/// `3.1 %` from a fraction.
fn pct(x: &Rat) -> String {
    pct_parts(&(x.numer() * 100), x.denom())
}

/// `n/d` (`d > 0`, not necessarily in lowest terms) as a percentage: a
/// view needs no reduction.
fn pct_parts(n: &BigInt, d: &BigInt) -> String {
    format!("{} %", crate::num::fmt_sig_parts(n, d, 3))
}

/// `+3.1 %`, `-2 %`: a signed relative deviation.
fn signed_pct(x: &Rat) -> String {
    signed(x.is_negative(), pct(x))
}

fn signed(negative: bool, pct: String) -> String {
    if negative {
        pct
    } else {
        format!("+{pct}")
    }
}

/// `(x − v)/v` for `v > 0` as a signed percentage, formed over one
/// denominator and never reduced (this runs per point of every series).
fn deviation_pct(x: &Rat, v: &Rat) -> String {
    let n: BigInt = (x.numer() * v.denom() - v.numer() * x.denom()) * 100;
    let d = x.denom() * v.numer();
    signed(n.is_negative(), pct_parts(&n, &d))
}

impl Report<'_> {
    /// A value with the unit of the model's function, if it has one.
    fn with_unit(&self, v: &str) -> String {
        match self.model.units.get(&self.model.func) {
            Some(u) => format!("{v} {u}"),
            None => v.to_string(),
        }
    }

    /// The answer's sentences ([`Answer`]), `None` without a recommendation.
    pub(crate) fn answer(&self) -> Option<Answer> {
        let r = self.recommendation?;
        let m = self.model;
        let mut points = Vec::new();
        for (p, pred) in r.points.iter().zip(&self.analysis.predictions) {
            let at = self.model.show_point(&p.x);
            let star = if pred.extrapolated() { "*" } else { "" };
            let value = p.value.as_ref().map_or("undefined".into(), |v| self.with_unit(&self.dec(v)));
            let band = match (&p.band, p.refusal) {
                (Some(b), _) => {
                    let lo = b.lower.as_ref().map_or("-inf".into(), |v| self.dec(v));
                    let hi = b.upper.as_ref().map_or("+inf".into(), |v| self.dec(v));
                    let rel = p.value.as_ref().filter(|v| v.is_positive()).map(|v| {
                        let lo = b.lower.as_ref().map_or("-inf".into(), |l| deviation_pct(l, v));
                        let hi = b.upper.as_ref().map_or("+inf".into(), |u| deviation_pct(u, v));
                        format!(" ({lo}, {hi})")
                    });
                    format!(
                        "next measurement in {}{}{}",
                        self.with_unit(&format!("[{lo}{}, {hi}]", if b.clipped { CLIPPED } else { "" })),
                        rel.unwrap_or_default(),
                        match (p.widened, p.family_forms) {
                            (true, _) => ", widened by the self-check".to_string(),
                            (false, Some(n)) => format!(
                                ", widened to the {n} form{} the data allow (this one could not be self-checked)",
                                plural(n)
                            ),
                            (false, None) => String::new(),
                        }
                    )
                }
                (None, Some(why)) => format!("no band: {}", why.text()),
                (None, None) => "no band".into(),
            };
            points.push(format!("{at}{star}: {}({}) = {value}; {band}", m.func, m.vars.join(", ")));
        }
        let mut notes = Vec::new();
        let how = match self.family {
            Some(f) if !f.members.is_empty() && f.members[0].form == r.form && self.discovered => {
                format!("the best of {} forms fitted to the data", f.members.len())
            }
            _ => "the model".into(),
        };
        let t = &r.trusted;
        let mut assumes = format!(
            "assumes: the form {}({}) = {} ({how}) holds up to these scales, and new measurements scatter about it as the data did",
            m.func,
            m.vars.join(", "),
            r.form
        );
        match &t.bound {
            Some(b) => assumes.push_str(&format!(
                " (trusted r = {} = max(2*remax, {}))",
                pct(&b.relative),
                pct(&r.noise)
            )),
            None => assumes.push_str(" (every repetition a constraint: no trusted band, r would reach 50 %)"),
        }
        if let Some((cb, s)) = &t.centres {
            assumes.push_str(&format!(
                "; repetitions scatter {} to {} about their point's median{}",
                signed_pct(&s.below),
                signed_pct(&s.above),
                match cb {
                    Some(b) => format!(" (medians: r = {})", pct(&b.relative)),
                    None => " (medians: no trusted band)".into(),
                }
            ));
        }
        notes.push(assumes);
        let c = &r.check;
        let at = c.at.as_ref().map(|v| format!("{} = {}", m.vars[0], show_value(v))).unwrap_or_default();
        notes.push(match &c.outcome {
            Outcome::Passed => format!("self-check: fitted without {at}, the band there holds every measurement: passed"),
            Outcome::Missed { above, below, of } => format!(
                "self-check: fitted without {at}, the band there missed {} of {of} measurement{} ({}): the form failed its own backtest, so each band is widened to the hull with that fit's band",
                above + below,
                plural(*of),
                match (above, below) {
                    (0, _) => "below it".to_string(),
                    (_, 0) => "above it".to_string(),
                    _ => format!("{above} above, {below} below"),
                }
            ),
            Outcome::Refused => format!(
                "self-check: fitted without {at}, the form gives no trusted band there: it failed its own backtest"
            ),
            Outcome::NotChecked(why) => format!(
                "self-check: not made ({why}){}",
                if r.points.iter().any(|p| p.family_forms.is_some()) {
                    ": nothing tells this form's extrapolation from another's, so each band is widened to the hull of the forms the data allow"
                } else {
                    ""
                }
            ),
        });
        if let Some(g) = &r.regime {
            let (a, b) = (show_value(&g.between.0), show_value(&g.between.1));
            let v = &m.vars[0];
            notes.push(if g.used() {
                let aside: Vec<String> = g.set_aside.iter().map(show_value).collect();
                format!(
                    "regime: the trend changes between {v} = {a} and {v} = {b}; the band comes from the {} scales from {v} = {b} on ({v} = {} set aside{})",
                    g.last_scales,
                    super::tables::abbreviated(&aside, ", "),
                    if self.discovered { "" } else { "; the detail below fits every measurement" }
                )
            } else {
                format!(
                    "regime: the trend changes between {v} = {a} and {v} = {b}, and the {} scales after it are too few to extrapolate from alone ({} needed): the band spans both regimes",
                    g.last_scales,
                    crate::trust::MIN_LAST_SEGMENT
                )
            });
        }
        Some(Answer { points, notes })
    }

    /// The answer as text lines (empty without a recommendation).
    pub(super) fn answer_text(&self, o: &mut String) {
        if let Some(a) = self.answer() {
            o.push_str("Answer (* = extrapolated)\n");
            for l in a.points.iter().chain(&a.notes) {
                o.push_str(&format!("  {l}\n"));
            }
            o.push('\n');
        } else if let Some(e) = self.recommendation_error {
            o.push_str(&format!("Answer: no recommended band ({e})\n\n"));
        }
    }

    /// The answer section of the text report, as `errband MODEL DATA`
    /// prints it: `Answer (* = extrapolated)` with a line per prediction
    /// point and the notes (what the bands assume, the self-check, a change
    /// of trend), or why there is no recommended band; empty without either.
    pub fn answer_section(&self) -> String {
        let mut o = String::new();
        self.answer_text(&mut o);
        o
    }

    /// The answer's line per prediction point (empty without a
    /// recommendation or without points).
    pub fn answer_points(&self) -> Vec<String> {
        self.answer().map(|a| a.points).unwrap_or_default()
    }

    /// The answer's notes, one sentence each (what the bands assume, the
    /// self-check, a change of trend); empty without a recommendation.
    pub fn answer_notes(&self) -> Vec<String> {
        self.answer().map(|a| a.notes).unwrap_or_default()
    }
}
