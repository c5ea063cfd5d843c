//! The backtest section of the main report (`--holdout`): each held-out
//! measurement against each band, and the coverage per band, from the
//! backtest's document ([`HoldoutDocument`]).

use super::tables::{md_escape, md_row, md_table_head, table};
use super::view::{coords, num, pct};
use crate::document::analysis::{CoverageDocument, HoldoutDocument};
use crate::document::ModelInfo;
use crate::num::fmt_sig;
use crate::Rat;

/// One row of a coverage table: threshold, band, covered, refused, median ±.
pub(crate) fn coverage_row(c: &CoverageDocument) -> Vec<String> {
    let covered = if c.measurements == 0 {
        "-".to_string()
    } else {
        let share = Rat::new(c.inside.into(), c.measurements.into()) * Rat::from_integer(100.into());
        format!("{}/{} ({}%)", c.inside, c.measurements, fmt_sig(&share, 3))
    };
    vec![
        c.label.clone(),
        c.kind.clone(),
        covered,
        format!("{}/{}", c.refused, c.points),
        c.median_relative_half_width.as_ref().map_or("-".into(), |m| format!("±{}", pct(m, 3, "%"))),
    ]
}

/// The header of [`coverage_row`].
pub(crate) fn coverage_head() -> Vec<String> {
    ["threshold", "band", "covered", "no band (points)", "median half-width"].map(String::from).to_vec()
}

/// The backtest, for the text report.
pub(crate) fn backtest_text(o: &mut String, b: &HoldoutDocument, model: &ModelInfo, exact: bool) {
    o.push_str(&format!(
        "\nBacktest (--holdout {}): fitted on {} measurements, {} held out; each against the bands at its point\n",
        b.condition, b.fitted_on, b.held_out
    ));
    let mut head: Vec<String> = model.variables.clone();
    head.extend(["line".into(), "measured".into()]);
    if let Some(c) = b.measurements.first() {
        for v in &c.bands {
            head.push(format!("{} {}", v.label, v.kind));
        }
    }
    let mut rows = vec![head];
    for c in &b.measurements {
        let mut row = coords(&c.point, &model.variables, &[]);
        row.push(c.line.to_string());
        row.push(num(&c.measured, exact).to_string());
        for v in &c.bands {
            row.push(match (v.inside, &v.outside_by) {
                (None, _) => "no band".into(),
                (Some(true), _) => "inside".into(),
                (Some(false), Some(by)) => format!("out {}", pct(by, 3, "%")),
                (Some(false), None) => "outside".into(),
            });
        }
        rows.push(row);
    }
    o.push_str(&table(&rows, 2));
    o.push_str("  coverage\n");
    let mut rows = vec![coverage_head()];
    rows.extend(b.coverage.iter().map(coverage_row));
    o.push_str(&table(&rows, 4));
}

/// The backtest for Markdown.
pub(crate) fn backtest_markdown(o: &mut String, b: &HoldoutDocument) {
    o.push_str(&format!(
        "\n## Backtest: `--holdout {}`\n\nFitted on {} measurements, {} held out.\n\n",
        md_escape(&b.condition),
        b.fitted_on,
        b.held_out
    ));
    o.push_str(&md_table_head(&coverage_head()));
    for c in &b.coverage {
        o.push_str(&md_row(&coverage_row(c)));
    }
}
