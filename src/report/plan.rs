//! Renders a measurement plan ([`crate::plan::Plan`]): ranked table
//! (text, Markdown), JSON, CSV and a chart of the width ratio against the
//! candidate point.

use super::{csv_line, md_row, md_table_head, table_left, CommandReport, Views};
use crate::analysis::Band;
use crate::document::plan::PlanDocument;
use crate::model::{show_value, Model};
use crate::num::{fmt_fraction, fmt_sig, to_f64, Rat};
use crate::plan::{Plan, Planned};
use crate::plot::{Axis, Chart, Mark, Series, SeriesKind};
use serde_json::Value;

/// What to render.
pub struct PlanReport<'a> {
    /// The model.
    pub model: &'a Model,
    /// Data file name.
    pub data_file: &'a str,
    /// The plan.
    pub plan: &'a Plan,
    /// Significant digits of decimals.
    pub digits: usize,
    /// Exact fractions in the text and Markdown tables.
    pub exact: bool,
    /// Rows shown in the text and Markdown tables (0: all).
    pub show: usize,
}

const EXPLAIN: &str = "expected: the new measurement equals the model's prediction (d_new = T(C, x_new)), re-analysed exactly; worst: the widest band over every d_new in the band of a new measurement at x_new, the threshold's bound held at its current value (an exact LP; relative bounds too)";

super::views!(PlanReport);

impl PlanReport<'_> {
    fn shown(&self) -> usize {
        super::rows_shown(self.show, self.plan.rows.len())
    }
    fn width(&self, b: &Option<Band>) -> String {
        match b {
            None => "empty".into(),
            Some(b) => b.width().map_or("inf".into(), |w| self.num(&w)),
        }
    }
    fn ratio(r: &Option<Rat>) -> String {
        r.as_ref().map_or("-".into(), |r| format!("×{}", fmt_sig(r, 3)))
    }
    fn point(&self, x: &[Rat]) -> String {
        self.model.show_point(x)
    }

    fn head(&self) -> Vec<String> {
        let mut h: Vec<String> = vec!["rank".into(), "new point".into(), "d_new".into()];
        for r in &self.plan.base.regions {
            for t in &self.plan.targets {
                let at = format!("{} at {}", r.threshold.text, self.point(t));
                h.extend([
                    format!("{at}: expected width"),
                    "ratio".into(),
                    "worst width".into(),
                    "ratio".into(),
                ]);
            }
        }
        h
    }

    fn row(&self, rank: usize, p: &Planned) -> Vec<String> {
        let mut row = vec![rank.to_string(), self.point(&p.x), self.num(&p.d_new)];
        match &p.expected {
            Err(e) => row.push(format!("failed: {}", e.short_reason())),
            Ok(bands) => {
                for (t, b) in bands.iter().enumerate() {
                    for (j, bj) in b.iter().enumerate() {
                        row.extend([
                            self.width(bj),
                            Self::ratio(&p.expected_ratio[t][j]),
                            p.worst[t][j].as_ref().map_or("inf".into(), |w| self.num(w)),
                            Self::ratio(&p.worst_ratio[t][j]),
                        ]);
                    }
                }
            }
        }
        row
    }

    fn base_lines(&self) -> Vec<String> {
        let a = &self.plan.base;
        let mut out = Vec::new();
        for (t, r) in a.regions.iter().enumerate() {
            for p in &a.predictions {
                out.push(format!(
                    "Current band at {}, threshold {}: width {}; a new measurement's: width {}",
                    self.point(&p.x),
                    self.bound_label(&r.threshold.text, &r.bound),
                    self.width(&p.bands[t]),
                    self.width(&p.measurement[t])
                ));
            }
        }
        out
    }
}

impl CommandReport for PlanReport<'_> {
    fn title(&self) -> String {
        format!("errband plan: {} with {}", self.model.file, self.data_file)
    }

    /// The sentence on the best candidate.
    fn headline(&self) -> String {
        let Some(best) = self.plan.rows.first() else { return "No candidate.".into() };
        match best.key() {
            Some(k) => format!(
                "Best: measure at {} (expected to leave ×{} of the current band width at the targets).",
                self.point(&best.x),
                fmt_sig(&k, 3)
            ),
            None => "No candidate gives a finite band at every target.".into(),
        }
    }

    /// The terminal report.
    fn text(&self) -> String {
        let mut o = format!(
            "errband {} plan — {} with {}\n\n",
            env!("CARGO_PKG_VERSION"),
            self.model.file,
            self.data_file
        );
        for l in self.base_lines() {
            o.push_str(&l);
            o.push('\n');
        }
        o.push_str(&format!(
            "\n{} candidate points, ranked by the expected width ratio (largest over the targets, first threshold).\n{EXPLAIN}.\n",
            self.plan.rows.len()
        ));
        let mut rows = vec![self.head()];
        for (i, p) in self.plan.rows.iter().enumerate().take(self.shown()) {
            rows.push(self.row(i + 1, p));
        }
        o.push_str(&table_left(&rows, 2, &[1]));
        if self.shown() < self.plan.rows.len() {
            o.push_str(&format!("  … {} more (--show 0 lists all)\n", self.plan.rows.len() - self.shown()));
        }
        o.push('\n');
        o.push_str(&self.headline());
        o.push('\n');
        o
    }

    /// Markdown.
    fn markdown(&self) -> String {
        let mut o = format!("# errband plan: {} with {}\n\n", self.model.file, self.data_file);
        for l in self.base_lines() {
            o.push_str(&format!("- {l}\n"));
        }
        o.push_str(&format!("\n{EXPLAIN}.\n\n"));
        o.push_str(&md_table_head(&self.head()));
        for (i, p) in self.plan.rows.iter().enumerate().take(self.shown()) {
            o.push_str(&md_row(&self.row(i + 1, p)));
        }
        o.push_str(&format!("\n**{}**\n", self.headline()));
        o
    }

    /// JSON with exact values ([`PlanDocument`]).
    fn json(&self) -> Value {
        let doc = PlanDocument::new(self.model, self.data_file, self.plan, self.headline(), self.digits);
        crate::document::to_value(&doc)
    }

    /// CSV: one record per candidate, threshold and target.
    fn csv(&self) -> String {
        let plan = self.plan;
        let mut head: Vec<String> = vec!["rank".into()];
        head.extend(self.model.vars.iter().cloned());
        head.extend(["d_new", "threshold", "threshold_value"].iter().map(|s| s.to_string()));
        head.extend(self.model.vars.iter().map(|v| format!("target_{v}")));
        head.extend(
            [
                "expected_width",
                "expected_ratio",
                "worst_width",
                "worst_ratio",
                "expected_width_exact",
                "worst_width_exact",
            ]
            .iter()
            .map(|s| s.to_string()),
        );
        let mut out = csv_line(&head);
        for (i, p) in plan.rows.iter().enumerate() {
            for (t, r) in plan.base.regions.iter().enumerate() {
                for (j, x) in plan.targets.iter().enumerate() {
                    let mut row = vec![(i + 1).to_string()];
                    row.extend(p.x.iter().map(show_value));
                    row.extend([self.dec(&p.d_new), r.threshold.text.clone(), self.dec(&r.value)]);
                    row.extend(x.iter().map(show_value));
                    let ew = p.expected.as_ref().ok().and_then(|b| b[t][j].as_ref()).and_then(Band::width);
                    let d = |v: &Option<Rat>| v.as_ref().map_or(String::new(), |v| self.dec(v));
                    let e = |v: &Option<Rat>| v.as_ref().map_or(String::new(), fmt_fraction);
                    let er = p.expected_ratio.get(t).and_then(|r| r[j].clone());
                    row.extend([
                        d(&ew),
                        d(&er),
                        d(&p.worst[t][j]),
                        d(&p.worst_ratio[t][j]),
                        e(&ew),
                        e(&p.worst[t][j]),
                    ]);
                    out.push_str(&csv_line(&row));
                }
            }
        }
        out
    }

    /// Expected and worst width ratio against the candidate's first
    /// coordinate (first threshold, first target).
    fn charts(&self) -> Vec<(&'static str, String)> {
        vec![("chart", self.chart())]
    }
}

impl PlanReport<'_> {
    /// The comparison chart (SVG).
    fn chart(&self) -> String {
        let m = self.model;
        let mut rows: Vec<&Planned> = self.plan.rows.iter().collect();
        rows.sort_by(|a, b| a.x.cmp(&b.x));
        let pick = |r: &Vec<Vec<Option<Rat>>>| r.first().and_then(|t| t.first()).cloned().flatten();
        let exp: Vec<(f64, f64)> = rows
            .iter()
            .filter_map(|p| pick(&p.expected_ratio).map(|r| (to_f64(&p.x[0]), to_f64(&r))))
            .collect();
        let worst: Vec<(f64, f64)> =
            rows.iter().filter_map(|p| pick(&p.worst_ratio).map(|r| (to_f64(&p.x[0]), to_f64(&r)))).collect();
        let var = m.vars.first().cloned().unwrap_or_default();
        let target = self.plan.targets.first().map(|t| self.point(t)).unwrap_or_default();
        let mut c = Chart::new(
            format!("Band width at {target} after one more measurement (relative to now)"),
            Axis::linear(super::figures::with_unit(m, &var) + " of the new measurement"),
            Axis::linear("width ratio"),
        );
        c.series.push(
            Series::new("worst case over d_new", SeriesKind::Line { pts: worst.clone(), dashed: true })
                .color(1),
        );
        c.series.push(Series::new("", SeriesKind::Points { pts: worst, mark: Mark::Square }).color(1));
        c.series.push(
            Series::new(
                "expected (d_new = T(C, x_new))",
                SeriesKind::Line { pts: exp.clone(), dashed: false },
            )
            .color(0),
        );
        c.series.push(Series::new("", SeriesKind::Points { pts: exp, mark: Mark::Circle }).color(0));
        c.hline = Some((1.0, "now".into()));
        c.svg()
    }
}
