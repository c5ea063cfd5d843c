//! The family section of the main report (`--family`, `family` lines): the
//! forms ranked, which are consistent at each threshold, and the family
//! band beside the best form's. Text and Markdown render the same rows.

use super::{md_escape, md_row, md_table_head, table_left, Report, Views};
use crate::analysis::Band;
use crate::family::{FamilyAnalysis, Member, RANKING};
use crate::model::show_value;
use crate::num::{fmt_sig, Rat};

/// Forms listed in the text and Markdown tables besides the consistent
/// ones (the JSON lists every form).
const SHOWN: usize = 12;

fn pct(x: &Rat) -> String {
    format!("{} %", fmt_sig(&(x * Rat::from_integer(100.into())), 3))
}

/// A member's self-check in a table cell.
fn check_cell(m: &Member) -> String {
    use crate::trust::Outcome;
    match m.check.as_ref().map(|c| &c.outcome) {
        None => "-".into(),
        Some(Outcome::Passed) => "passed".into(),
        Some(Outcome::Missed { above, below, of }) => format!("missed {} of {of}", above + below),
        Some(Outcome::Refused) => "refused".into(),
        Some(Outcome::NotChecked(_)) => "not made".into(),
    }
}

impl Report<'_> {
    /// `[lower, upper]` of a band, `-inf`/`+inf` for an open side.
    fn interval(&self, b: &Band) -> String {
        let side = |v: &Option<Rat>, inf: &str| v.as_ref().map_or(inf.to_string(), |x| self.num(x));
        format!("[{}, {}]", side(&b.lower, "-inf"), side(&b.upper, "+inf"))
    }

    /// The ranked forms: those consistent at some threshold and the first
    /// few others.
    fn family_rank_rows(&self, f: &FamilyAnalysis) -> (Vec<Vec<String>>, usize) {
        let mut head: Vec<String> =
            ["rank", "form", "from", "k", "remax", "e_max", "RMS"].map(String::from).to_vec();
        head.extend(f.levels.iter().map(|l| format!("at {}", l.threshold.text)));
        head.push("self-check".into());
        let mut rows = vec![head];
        let mut hidden = 0;
        for (i, m) in f.members.iter().enumerate() {
            if i >= SHOWN && !m.consistent.iter().any(|c| *c) {
                hidden += 1;
                continue;
            }
            let mut row = vec![
                (i + 1).to_string(),
                m.form.clone(),
                m.origin.label().to_string(),
                m.model.k().to_string(),
                m.stats.remax.as_ref().map_or("-".into(), pct),
                self.dec(&m.stats.emax),
                self.rms_text(&m.stats.residuals.mean_square),
            ];
            row.extend(m.consistent.iter().map(|c| (if *c { "consistent" } else { "-" }).to_string()));
            row.push(check_cell(m));
            rows.push(row);
        }
        (rows, hidden)
    }

    /// Per point and threshold: the family band of the model and of a new
    /// measurement, and the best form's band of a new measurement.
    fn family_band_rows(&self, f: &FamilyAnalysis) -> Vec<Vec<String>> {
        let mut head: Vec<String> = self.model.vars.clone();
        head.extend(
            [
                "threshold",
                "forms",
                "family band (model)",
                "family band (new measurement)",
                "best form (new measurement)",
            ]
            .map(String::from),
        );
        let mut rows = vec![head];
        for (pi, x) in f.points.iter().enumerate() {
            for (t, l) in f.levels.iter().enumerate() {
                let mut row: Vec<String> = x.iter().map(show_value).collect();
                row.push(match &l.bound {
                    Some(b) => format!("{} ({})", l.threshold.text, b.describe(self.digits.min(4))),
                    None => l.threshold.text.clone(),
                });
                match (&l.bound, &f.hull[t][pi]) {
                    (None, _) => row.extend(["0".into(), "no trustworthy band".into(), "-".into()]),
                    (Some(_), None) => row.extend(["0".into(), "no form consistent".into(), "-".into()]),
                    (Some(_), Some(h)) => {
                        row.push(h.forms.to_string());
                        row.push(self.interval(&h.model));
                        row.push(self.interval(&h.measurement));
                    }
                }
                let best = f.members.first().and_then(|m| m.bands[t][pi].as_ref());
                row.push(best.map_or("-".into(), |(_, n)| self.interval(n)));
                rows.push(row);
            }
        }
        rows
    }

    /// What the family is, in one line.
    fn family_summary(&self, f: &FamilyAnalysis) -> String {
        let mut by: Vec<(&str, usize)> = Vec::new();
        for m in &f.members {
            match by.iter_mut().find(|(o, _)| *o == m.origin.label()) {
                Some((_, n)) => *n += 1,
                None => by.push((m.origin.label(), 1)),
            }
        }
        let parts: Vec<String> = by
            .iter()
            .map(
                |(o, n)| if *n > 1 && *o == "family line" { format!("{n} {o}s") } else { format!("{n} {o}") },
            )
            .collect();
        let n = f.members.len();
        format!("{n} form{} ({}); {RANKING}", if n == 1 { "" } else { "s" }, parts.join(", "))
    }

    /// The family, for the text report.
    pub(crate) fn family_text(&self, o: &mut String, f: &FamilyAnalysis) {
        o.push_str(&format!("\nFamily: {}\n", self.family_summary(f)));
        let (rows, hidden) = self.family_rank_rows(f);
        o.push_str(&table_left(&rows, 2, &[1, 2]));
        if hidden > 0 {
            o.push_str(&format!(
                "  ({hidden} more forms, none consistent; --format json lists every form)\n"
            ));
        }
        for s in f.skipped.iter().take(3) {
            o.push_str(&format!("  left out: {}: {}\n", s.form, s.why));
        }
        if f.skipped.len() > 3 {
            o.push_str(&format!("  left out: {} more forms\n", f.skipped.len() - 3));
        }
        if f.points.is_empty() {
            o.push_str("  (no prediction point: give --at for the family band)\n");
            return;
        }
        o.push_str("\nFamily band: the hull of the bands of every form consistent at the threshold (the threshold names the family's best statistics: remax is the smallest remax of any form)\n");
        o.push_str(&table_left(&self.family_band_rows(f), 2, &[]));
        o.push_str("  It assumes that one of the forms holds up to the new scale, and that new measurements scatter as the old ones did.\n");
    }

    /// The family for Markdown.
    pub(crate) fn family_markdown(&self, o: &mut String, f: &FamilyAnalysis) {
        o.push_str(&format!("\n## Family\n\n{}\n\n", md_escape(&self.family_summary(f))));
        let (rows, hidden) = self.family_rank_rows(f);
        o.push_str(&md_table_head(&rows[0]));
        for r in &rows[1..] {
            o.push_str(&md_row(r));
        }
        if hidden > 0 {
            o.push_str(&format!("\n{hidden} more forms, none consistent.\n"));
        }
        if !f.points.is_empty() {
            let rows = self.family_band_rows(f);
            o.push_str(
                "\n### Family band\n\nThe hull of the bands of every form consistent at the threshold.\n\n",
            );
            o.push_str(&md_table_head(&rows[0]));
            for r in &rows[1..] {
                o.push_str(&md_row(r));
            }
        }
    }
}
