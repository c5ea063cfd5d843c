//! The family section of the main report (`--family`, `family` lines): the
//! forms ranked, which are consistent at each threshold, and the family
//! band beside the best form's. Text and Markdown render the same rows,
//! from the family's document ([`FamilyDocument`]).

use super::tables::{md_escape, md_row, md_table_head, table_left};
use super::view::{coords, describe, interval, pct};
use crate::document::analysis::{CheckOutcome, FamilyDocument, FormDocument, SteeperDocument};
use crate::document::{Band, BandStatus, ModelInfo};
use crate::family::RANKING;

/// Forms listed in the text and Markdown tables besides the consistent
/// ones (the JSON lists every form).
const SHOWN: usize = 12;

/// A form's self-check in a table cell.
fn check_cell(f: &FormDocument) -> String {
    match f.self_check.as_ref().map(|c| (c.outcome, c)) {
        None => "-".into(),
        Some((CheckOutcome::Passed, _)) => "passed".into(),
        Some((CheckOutcome::Missed, c)) => format!("missed {} of {}", c.missed, c.of),
        Some((CheckOutcome::Refused, _)) => "refused".into(),
        Some((CheckOutcome::NotChecked, _)) => "not made".into(),
    }
}

/// Why a family band `b` is none, as a cell: the threshold gives no
/// trustworthy band, or no form is consistent at it.
pub(crate) fn no_family_band(b: &Band) -> &'static str {
    if b.status == BandStatus::Untrusted {
        "no trustworthy band"
    } else {
        "no form consistent"
    }
}

/// The ranked forms: those consistent at some threshold and the first
/// few others; and how many were left out.
fn rank_rows(f: &FamilyDocument) -> (Vec<Vec<String>>, usize) {
    let mut head: Vec<String> =
        ["rank", "form", "from", "k", "remax", "e_max", "RMS"].map(String::from).to_vec();
    head.extend(f.thresholds.iter().map(|t| format!("at {}", t.label)));
    head.push("self-check".into());
    let mut rows = vec![head];
    let mut hidden = 0;
    for (i, m) in f.forms.iter().enumerate() {
        if i >= SHOWN && !m.consistent.iter().any(|c| c.consistent) {
            hidden += 1;
            continue;
        }
        let mut row = vec![
            m.rank.to_string(),
            m.form.clone(),
            m.from.clone(),
            m.params.len().to_string(),
            m.remax.as_ref().map_or("-".into(), |r| pct(r, 3, " %")),
            m.emax.decimal(),
            m.rms.decimal.clone(),
        ];
        row.extend(m.consistent.iter().map(|c| (if c.consistent { "consistent" } else { "-" }).to_string()));
        row.push(check_cell(m));
        rows.push(row);
    }
    (rows, hidden)
}

/// Per point and threshold: the family band of the model and of a new
/// measurement, and the best form's band of a new measurement.
fn band_rows(f: &FamilyDocument, model: &ModelInfo, digits: usize, exact: bool) -> Vec<Vec<String>> {
    let mut head: Vec<String> = model.variables.clone();
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
    for b in &f.bands {
        let mut row = coords(&b.point, &model.variables, &[]);
        let t = &b.threshold;
        row.push(match describe(t, digits.min(4)) {
            Some(d) => format!("{} ({d})", t.label),
            None => t.label.clone(),
        });
        match b.band.status {
            BandStatus::Ok => {
                row.push(b.forms.to_string());
                row.push(interval(&b.band, exact));
                row.push(interval(&b.measurement_band, exact));
            }
            _ => row.extend(["0".into(), no_family_band(&b.band).into(), "-".into()]),
        }
        row.push(b.best_form.as_ref().map_or("-".into(), |n| interval(&n.measurement_band, exact)));
        rows.push(row);
    }
    rows
}

/// What the family is, in one line.
fn summary(f: &FamilyDocument) -> String {
    let mut by: Vec<(&str, usize)> = Vec::new();
    for m in &f.forms {
        match by.iter_mut().find(|(o, _)| *o == m.from) {
            Some((_, n)) => *n += 1,
            None => by.push((&m.from, 1)),
        }
    }
    let parts: Vec<String> = by
        .iter()
        .map(|(o, n)| if *n > 1 && *o == "family line" { format!("{n} {o}s") } else { format!("{n} {o}") })
        .collect();
    let n = f.forms.len();
    format!("{n} form{} ({}); {RANKING}", if n == 1 { "" } else { "s" }, parts.join(", "))
}

/// The model's first variable (the one a falling trend falls along).
fn var(model: &ModelInfo) -> &str {
    model.variables.first().map_or("x", String::as_str)
}

/// What the family says about the data's trend beyond its forms: they
/// fall while every form grows ([`crate::family::falls_hint`]), or they
/// grow faster than every form ([`crate::family::steeper_hint`]).
pub(crate) fn hints(f: &FamilyDocument, model: &ModelInfo) -> Vec<String> {
    hints_of(f.falls_without_decreasing_form, f.steeper_than_family.as_ref(), model)
}

/// [`hints`] from the two facts: `falls`, and where the data grow faster
/// than every form.
pub(crate) fn hints_of(falls: bool, steeper: Option<&SteeperDocument>, model: &ModelInfo) -> Vec<String> {
    let mut out = Vec::new();
    if falls {
        out.push(crate::family::falls_hint(var(model)));
    }
    if let Some(st) = steeper {
        out.push(crate::family::steeper_hint(
            var(model),
            &st.term,
            &super::view::shown(&st.between.from),
            &super::view::shown(&st.between.to),
        ));
    }
    out
}

/// The family, for the text report.
pub(crate) fn family_text(o: &mut String, f: &FamilyDocument, model: &ModelInfo, digits: usize, exact: bool) {
    o.push_str(&format!("\nFamily: {}\n", summary(f)));
    let (rows, hidden) = rank_rows(f);
    o.push_str(&table_left(&rows, 2, &[1, 2]));
    if hidden > 0 {
        o.push_str(&format!("  ({hidden} more forms, none consistent; --format json lists every form)\n"));
    }
    for s in f.skipped.iter().take(3) {
        o.push_str(&format!("  left out: {}: {}\n", s.form, s.why));
    }
    if f.skipped.len() > 3 {
        o.push_str(&format!("  left out: {} more forms\n", f.skipped.len() - 3));
    }
    for hint in hints(f, model) {
        o.push_str(&format!("  note: {hint}\n"));
    }
    if f.bands.is_empty() {
        o.push_str("  (no prediction point: give --at for the family band)\n");
        return;
    }
    o.push_str(&format!(
        "\nFamily band: the hull of the bands of every form consistent at the threshold.\n  {}\n",
        crate::family::SCALE_FROM
    ));
    o.push_str(&table_left(&band_rows(f, model, digits, exact), 2, &[]));
    o.push_str("  It assumes that one of the forms holds up to the new scale, and that new measurements scatter as the old ones did.\n");
}

/// The family for Markdown.
pub(crate) fn family_markdown(
    o: &mut String,
    f: &FamilyDocument,
    model: &ModelInfo,
    digits: usize,
    exact: bool,
) {
    o.push_str(&format!("\n## Family\n\n{}\n\n", md_escape(&summary(f))));
    let (rows, hidden) = rank_rows(f);
    o.push_str(&md_table_head(&rows[0]));
    for r in &rows[1..] {
        o.push_str(&md_row(r));
    }
    if hidden > 0 {
        o.push_str(&format!("\n{hidden} more forms, none consistent.\n"));
    }
    for hint in hints(f, model) {
        o.push_str(&format!("\nNote: {}\n", md_escape(&hint)));
    }
    if !f.bands.is_empty() {
        let rows = band_rows(f, model, digits, exact);
        o.push_str(&format!(
            "\n### Family band\n\nThe hull of the bands of every form consistent at the threshold. {}\n\n",
            md_escape(crate::family::SCALE_FROM)
        ));
        o.push_str(&md_table_head(&rows[0]));
        for r in &rows[1..] {
            o.push_str(&md_row(r));
        }
    }
}
