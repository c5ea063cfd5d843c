//! The backtest section of the main report (`--holdout`): each held-out
//! measurement against each band, and the coverage per band.

use super::{md_escape, md_row, md_table_head, table, Report, Views};
use crate::backtest::{Backtest, Coverage};
use crate::model::show_value;
use crate::num::{fmt_sig, Rat};

fn pct(x: &Rat) -> String {
    format!("{}%", fmt_sig(&(x * Rat::from_integer(100.into())), 3))
}

/// One row of a coverage table: threshold, band, covered, refused, median ±.
pub(crate) fn coverage_row(c: &Coverage) -> Vec<String> {
    let covered = if c.measurements == 0 {
        "-".to_string()
    } else {
        format!(
            "{}/{} ({})",
            c.inside,
            c.measurements,
            pct(&Rat::new(c.inside.into(), c.measurements.into()))
        )
    };
    vec![
        c.threshold.clone(),
        c.kind.name().to_string(),
        covered,
        format!("{}/{}", c.refused, c.points),
        c.median_half_width().map_or("-".into(), |m| format!("±{}", pct(&m))),
    ]
}

/// The header of [`coverage_row`].
pub(crate) fn coverage_head() -> Vec<String> {
    ["threshold", "band", "covered", "no band (points)", "median half-width"].map(String::from).to_vec()
}

impl Report<'_> {
    /// The backtest, for the text report.
    pub(crate) fn backtest_text(&self, o: &mut String, b: &Backtest) {
        o.push_str(&format!(
            "\nBacktest (--holdout {}): fitted on {} measurements, {} held out; each against the bands at its point\n",
            b.holdout,
            b.train.len(),
            b.held.len()
        ));
        let mut head: Vec<String> = self.model.vars.clone();
        head.extend(["line".into(), "measured".into()]);
        if let Some(c) = b.checks.first() {
            for v in &c.verdicts {
                head.push(format!("{} {}", v.threshold, v.kind.name()));
            }
        }
        let mut rows = vec![head];
        for c in &b.checks {
            let mut row: Vec<String> = c.measurement.x.iter().map(show_value).collect();
            row.push(c.measurement.line.to_string());
            row.push(self.num(&c.measurement.y));
            for v in &c.verdicts {
                row.push(match (v.inside, &v.outside_by) {
                    (None, _) => "no band".into(),
                    (Some(true), _) => "inside".into(),
                    (Some(false), Some(by)) => format!("out {}", pct(by)),
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
    pub(crate) fn backtest_markdown(&self, o: &mut String, b: &Backtest) {
        o.push_str(&format!(
            "\n## Backtest: `--holdout {}`\n\nFitted on {} measurements, {} held out.\n\n",
            md_escape(&b.holdout),
            b.train.len(),
            b.held.len()
        ));
        o.push_str(&md_table_head(&coverage_head()));
        for c in &b.coverage {
            o.push_str(&md_row(&coverage_row(c)));
        }
    }
}
