//! The answer first: the band errband recommends for the next measurement
//! at each prediction point, what it assumes, and whether the form passed
//! its self-check ([`crate::trust`]). Text, Markdown and HTML share the
//! sentences written here; JSON carries the same facts as data.

use super::view::{band_ends, pct, point_label, shown};
use super::*;
use crate::document::analysis::{AnalysisDocument, CheckOutcome, RecommendationDocument, RecommendedPoint};
use crate::document::{BandStatus, Exact, ModelInfo};

/// The answer's lines, in one wording for every output.
pub(crate) struct Answer {
    /// One line per prediction point.
    pub points: Vec<String>,
    /// What the bands assume, the self-check and a change of trend.
    pub notes: Vec<String>,
}

/// `+3.1 %`, `-2 %`: a signed relative deviation.
fn signed_pct(x: &Exact) -> String {
    let pct = pct(x, 3, " %");
    if pct.starts_with('-') {
        pct
    } else {
        format!("+{pct}")
    }
}

/// `, most at p = 256, where the slowest repetition took 2.03 times as
/// long as the fastest`: where one more run would tell an outlier from the trend
/// (nothing when no repetitions differ).
fn widest(s: &crate::document::analysis::Repetitions, vars: &[String]) -> String {
    if s.widest_at.is_empty() {
        return String::new();
    }
    let ratio = s.widest_ratio.as_ref().map_or(String::new(), |q| {
        format!(
            ", where the slowest repetition took {} times as long as the fastest",
            crate::num::fmt_sig(&q.value(), 3)
        )
    });
    format!(", most at {}{ratio}", point_label(&s.widest_at, vars))
}

impl Answer {
    /// The answer of an analysis: `model` and its recommendation `r`, whose
    /// points are the prediction points flagged `extrapolated` in order;
    /// `discovered`: the model is the family's best form, found without a
    /// model file; `best_of`: the number of forms when the recommended form
    /// is that best form; `hints`: what the family says of the data's
    /// trend beyond its forms ([`super::family::hints`]); `warnings`: how many
    /// warnings reading the data gave (the answer points at them: a band
    /// rests on how its data were read).
    pub(crate) fn of(
        model: &ModelInfo,
        r: &RecommendationDocument,
        extrapolated: &[bool],
        discovered: bool,
        best_of: Option<usize>,
        hints: Vec<String>,
        warnings: usize,
    ) -> Answer {
        let call = format!("{}({})", model.function, model.variables.join(", "));
        let with_unit = |v: &str| match model.units.get(&model.function) {
            Some(u) => format!("{v} {u}"),
            None => v.to_string(),
        };
        let mut points = Vec::new();
        for (p, extrapolated) in r.points.iter().zip(extrapolated) {
            let at = point_label(&p.point, &model.variables);
            let star = if *extrapolated { "*" } else { "" };
            let value = p.value.as_ref().map_or("undefined".into(), |v| with_unit(&v.decimal()));
            let band = match p.band.status {
                BandStatus::Ok => {
                    let (lo, hi) = band_ends(&p.band, false);
                    let rel = p.deviation.as_ref().map(|d| {
                        let side = |e: &Option<Exact>, inf: &str| e.as_ref().map_or(inf.into(), signed_pct);
                        format!(" ({}, {})", side(&d.lower, "-inf"), side(&d.upper, "+inf"))
                    });
                    format!(
                        "next measurement in {}{}{}",
                        with_unit(&format!("[{lo}, {hi}]")),
                        rel.unwrap_or_default(),
                        match (p.widened, p.family_forms, p.alike_forms) {
                            (true, _, None) => ", widened by the self-check".to_string(),
                            (true, _, Some(n)) => {
                                format!(", widened by the self-check and spanning the {n} forms ranked alike")
                            }
                            (false, Some(n), _) => format!(
                                ", widened to the {n} form{} the data allow (this one could not be self-checked)",
                                plural(n)
                            ),
                            (false, None, Some(n)) => format!(", spanning the {n} forms ranked alike"),
                            (false, None, None) => String::new(),
                        }
                    )
                }
                _ => format!("no band: {}", p.band.reason.as_deref().unwrap_or("not given")),
            };
            points.push(format!("{at}{star}: {call} = {value}; {band}"));
        }
        let mut notes = Vec::new();
        let how = match best_of {
            Some(1) => "the only form fitted to the data".into(),
            Some(n) => format!("the best of {n} forms fitted to the data"),
            None => "the model".into(),
        };
        let alike = r.points.iter().filter_map(|p| p.alike_forms).max();
        let mut assumes = format!(
            "assumes: the form {call} = {} ({how}){} holds up to these scales, and new measurements scatter about it as the data did",
            r.form,
            if alike.is_some() { " or one of the forms ranked alike with it" } else { "" }
        );
        let from_medians = r.repetitions.as_ref().filter(|s| s.band_from_medians);
        match (&r.relative, from_medians) {
            (_, Some(s)) => {
                // The band rests on the medians and the scatter alone.
                let rel = s.median_relative.as_ref().map_or_else(String::new, |m| pct(m, 3, " %"));
                let n = s.free;
                assumes.push_str(&format!(
                    " (medians: trusted r = {rel} = max(2*remax, {})); repetitions scatter {} to {} about their point's median{}; of these {n} free deviations a new run that scatters as they did falls within the range with probability {}/{} = {} %, so the band is the medians' band widened by that range ({})",
                    pct(&r.noise, 3, " %"),
                    signed_pct(&s.below),
                    signed_pct(&s.above),
                    widest(s, &model.variables),
                    n.saturating_sub(1),
                    n + 1,
                    crate::num::fmt_pct_sig(&crate::num::Rat::new(n.saturating_sub(1).into(), (n + 1).into()), 3),
                    match &r.relative {
                        Some(rel) => format!("every repetition a constraint would ask r = {}", pct(rel, 3, " %")),
                        None => "every repetition a constraint gives no trusted band".into(),
                    }
                ));
            }
            (Some(rel), None) => assumes.push_str(&format!(
                " (trusted r = {} = max(2*remax, {}))",
                pct(rel, 3, " %"),
                pct(&r.noise, 3, " %")
            )),
            (None, None) => {
                assumes.push_str(" (every repetition a constraint: no trusted band, r would reach 50 %)")
            }
        }
        if let Some(s) = r.repetitions.as_ref().filter(|s| !s.band_from_medians) {
            assumes.push_str(&format!(
                "; repetitions scatter {} to {} about their point's median{}{}",
                signed_pct(&s.below),
                signed_pct(&s.above),
                match &s.median_relative {
                    Some(rel) => format!(" (medians: r = {})", pct(rel, 3, " %")),
                    None => " (medians: no trusted band)".into(),
                },
                widest(s, &model.variables)
            ));
        }
        notes.push(assumes);
        let c = &r.self_check;
        let var = model.variables.first().map_or("", String::as_str);
        let at = c.at.as_ref().map(|v| format!("{var} = {}", shown(v))).unwrap_or_default();
        notes.push(match c.outcome {
            CheckOutcome::Passed => format!(
                "self-check: fitted without {at}, the band there ({}) holds every measurement: passed",
                c.half_width.as_ref().map_or("unbounded".to_string(), |w| format!("±{}", pct(w, 3, " %")))
            ),
            CheckOutcome::Missed => format!(
                "self-check: fitted without {at}, the band there missed {} of {} measurement{} ({}): the form failed its own backtest, so each band is widened to the hull with that fit's band",
                c.above + c.below,
                c.of,
                plural(c.of),
                match (c.above, c.below) {
                    (0, _) => "below it".to_string(),
                    (_, 0) => "above it".to_string(),
                    (above, below) => format!("{above} above, {below} below"),
                }
            ),
            CheckOutcome::Refused => format!(
                "self-check: fitted without {at}, the form gives no trusted band there: it failed its own backtest"
            ),
            CheckOutcome::NotChecked => format!(
                "self-check: not made ({}){}",
                c.reason.as_deref().unwrap_or("too few scales"),
                if r.points.iter().any(|p| p.family_forms.is_some()) {
                    ": nothing tells this form's extrapolation from another's, so each band is widened to the hull of the forms the data allow"
                } else {
                    ""
                }
            ),
        });
        let hinged: Vec<String> = r
            .points
            .iter()
            .filter(|p| p.hinges)
            .filter_map(|p| {
                let v = p.without_largest.as_ref()?;
                Some(format!("{} at {}", with_unit(&v.decimal()), point_label(&p.point, &model.variables)))
            })
            .collect();
        if !hinged.is_empty() {
            notes.push(format!(
                "hinge: fitted without {at}, the form predicts {}, outside the band{} there: the forecast rests on the measurements at {at} alone; another run there tells a lasting change of trend from a one-off",
                super::tables::abbreviated(&hinged, ", "),
                plural(hinged.len())
            ));
        }
        let outside: Vec<&RecommendedPoint> = r.points.iter().filter(|p| p.value_outside).collect();
        if !outside.is_empty() {
            let below = |p: &&RecommendedPoint| matches!((&p.value, &p.band.lower), (Some(v), Some(l)) if v.value() < l.value());
            let side = if outside.iter().all(below) {
                "below"
            } else if !outside.iter().any(below) {
                "above"
            } else {
                "outside"
            };
            let at: Vec<String> = outside.iter().map(|p| point_label(&p.point, &model.variables)).collect();
            notes.push(format!(
                "fit: at {} the least-squares value lies {side} the band: that fit, which the largest measurements dominate, strays from some {} by more than the trusted bound every fit behind the band meets; the form does not follow the data at both ends, so neither the value nor the band is sure",
                super::tables::abbreviated(&at, ", "),
                // A band on the medians bounds the fits to them.
                if from_medians.is_some() { "point's median" } else { "measurement" }
            ));
        }
        if let Some(n) = alike {
            notes.push(format!(
                "alike: {n} forms have what this one has (as many coefficients, consistent at the trusted threshold, a positive time at every point, the same self-check outcome{}); the cross-validated error chose this one, but the data refute none of the others, so each band spans theirs",
                if r.repetitions.is_some() { ", fitting the medians of the repetitions within this one's trusted bound on them" } else { "" }
            ));
        }
        if let Some(g) = &r.regime {
            let (a, b) = (shown(&g.between.from), shown(&g.between.to));
            notes.push(if g.used {
                let aside: Vec<String> = g.set_aside.iter().map(shown).collect();
                format!(
                    "regime: the trend changes between {var} = {a} and {var} = {b}; the band comes from the {} scales from {var} = {b} on ({var} = {} set aside{})",
                    g.last_scales,
                    super::tables::abbreviated(&aside, ", "),
                    if discovered { "" } else { "; the detail below fits every measurement" }
                )
            } else {
                format!(
                    "regime: the trend changes between {var} = {a} and {var} = {b}, and the {} scales after it are too few to extrapolate from alone ({} needed): the band spans both regimes",
                    g.last_scales,
                    crate::trust::MIN_LAST_SEGMENT
                )
            });
        }
        notes.extend(hints.into_iter().map(|h| format!("hint: {h}")));
        if warnings > 0 {
            notes.push(format!(
                "data: read with {warnings} warning{}, listed with the data",
                plural(warnings)
            ));
        }
        Answer { points, notes }
    }

    /// The answer section as the text report opens: the answer's
    /// [`Answer::text`], or why there is no recommended band (`error`);
    /// empty without either.
    pub(crate) fn section(answer: Option<Answer>, error: Option<&str>) -> String {
        match (answer, error) {
            (Some(a), _) => a.text(),
            (None, Some(e)) => format!("Answer: no recommended band ({e})\n\n"),
            (None, None) => String::new(),
        }
    }

    /// The answer as the text report opens: `Answer (* = extrapolated)`,
    /// a line per point and the notes, and a blank line.
    pub(crate) fn text(&self) -> String {
        let mut o = String::from("Answer (* = extrapolated)\n");
        for l in self.points.iter().chain(&self.notes) {
            o.push_str(&format!("  {l}\n"));
        }
        o.push('\n');
        o
    }

    /// The answer of analysis document `doc` (`None` without a
    /// recommendation).
    pub(crate) fn of_document(doc: &AnalysisDocument) -> Option<Answer> {
        let r = doc.recommendation.as_ref()?;
        let extrapolated: Vec<bool> = doc.analysis.bands.iter().map(|p| p.extrapolated).collect();
        let best_of = doc
            .family
            .as_ref()
            .filter(|f| doc.discovered && f.forms.first().is_some_and(|b| b.form == r.form))
            .map(|f| f.forms.len());
        let hints = doc.family.as_ref().map(|f| super::family::hints(f, &doc.model)).unwrap_or_default();
        Some(Answer::of(
            &doc.model,
            r,
            &extrapolated,
            doc.discovered,
            best_of,
            hints,
            doc.data.warnings.len(),
        ))
    }
}

impl Report<'_> {
    /// The answer's sentences ([`Answer`]), `None` without a recommendation;
    /// made from the recommendation's document alone.
    pub(crate) fn answer(&self) -> Option<Answer> {
        let r = self.recommendation?;
        let doc = crate::document::analysis::recommendation(self.model, r, self.digits);
        let info = ModelInfo::of(self.model, &self.analysis.design.log);
        let extrapolated: Vec<bool> = self.analysis.predictions.iter().map(|p| p.extrapolated()).collect();
        let best_of = self
            .family
            .filter(|f| self.discovered && f.members.first().is_some_and(|b| b.form == r.form))
            .map(|f| f.members.len());
        let hints = self.family.map_or_else(Vec::new, |f| {
            let steeper = crate::document::analysis::steeper(self.model, f, self.digits);
            super::family::hints_of(f.falls_without_decreasing_form(), steeper.as_ref(), &info)
        });
        Some(Answer::of(&info, &doc, &extrapolated, self.discovered, best_of, hints, self.warnings.len()))
    }

    /// The answer section of the text report, as `errband MODEL DATA`
    /// prints it: `Answer (* = extrapolated)` with a line per prediction
    /// point and the notes (what the bands assume, the self-check, a change
    /// of trend), or why there is no recommended band; empty without either.
    pub fn answer_section(&self) -> String {
        Answer::section(self.answer(), self.recommendation_error)
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

#[cfg(test)]
mod tests {
    use super::Answer;

    /// The section every renderer opens with: the answer, or why there is
    /// none, or nothing.
    #[test]
    fn the_answer_section_says_why_there_is_none() {
        let a = Answer { points: vec!["p = 8*: T(p) = 1".into()], notes: vec!["assumes: …".into()] };
        assert_eq!(
            Answer::section(Some(a), Some("ignored")),
            "Answer (* = extrapolated)\n  p = 8*: T(p) = 1\n  assumes: …\n\n"
        );
        assert_eq!(
            Answer::section(None, Some("the fit failed")),
            "Answer: no recommended band (the fit failed)\n\n"
        );
        assert_eq!(Answer::section(None, None), "");
    }
}
