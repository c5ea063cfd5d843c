//! Renders a pruning comparison ([`crate::prune::Comparison`]): ranked
//! table (text, Markdown, LaTeX), JSON, CSV and the comparison chart.

use super::{csv_line, latex, md_row, md_table_head, table_left, CommandReport, Views};
use crate::analysis::Band;
use crate::document::prune::PruneDocument;
use crate::model::Model;
use crate::num::{fmt_fraction, fmt_sig, to_f64, Rat};
use crate::plot::{Axis, BarChart};
use crate::prune::{Comparison, Origin, Outcome};
use serde_json::Value;

/// What to render.
pub struct PruneReport<'a> {
    /// The model.
    pub model: &'a Model,
    /// Data file name.
    pub data_file: &'a str,
    /// All measurements.
    pub data: &'a [crate::data::Measurement],
    /// The comparison.
    pub cmp: &'a Comparison,
    /// Significant digits of decimals.
    pub digits: usize,
    /// Exact fractions in the text and Markdown tables.
    pub exact: bool,
    /// Rows shown in the text, Markdown and LaTeX tables (0: all).
    pub show: usize,
}

super::views!(PruneReport);

impl PruneReport<'_> {
    /// `p=110` or `p=10, p=20` (several variables: `(p=128 n=4000)`).
    fn drop_label(&self, o: &Outcome) -> String {
        let m = self.model;
        o.candidate
            .points
            .iter()
            .map(|&g| {
                let x = &self.cmp.base.design.groups[g].x;
                let parts: Vec<String> = m
                    .vars
                    .iter()
                    .zip(x)
                    .map(|(v, val)| format!("{v}={}", crate::model::show_value(val)))
                    .collect();
                if parts.len() == 1 {
                    parts[0].clone()
                } else {
                    format!("({})", parts.join(" "))
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
    fn sources(&self, o: &Outcome) -> String {
        o.candidate
            .origins
            .iter()
            .map(|g| match g {
                Origin::User(t) => format!("--candidate {t}"),
                other => other.label(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
    fn target_label(&self, j: usize) -> String {
        self.model.show_point(&self.cmp.targets[j])
    }
    fn band_text(&self, b: &Option<Band>) -> String {
        match b {
            None => "empty".into(),
            Some(b) => format!(
                "[{}, {}]",
                b.lower.as_ref().map_or("-inf".into(), |v| self.num(v)),
                b.upper.as_ref().map_or("+inf".into(), |v| self.num(v))
            ),
        }
    }
    fn width_text(&self, b: &Option<Band>) -> String {
        match b {
            None => "empty".into(),
            Some(b) => b.width().map_or("inf".into(), |w| self.num(&w)),
        }
    }
    fn ratio_text(r: &Option<Rat>) -> String {
        r.as_ref().map_or("-".into(), |r| format!("×{}", fmt_sig(r, 3)))
    }
    fn shown(&self) -> usize {
        super::rows_shown(self.show, self.cmp.outcomes.len())
    }
    fn counts(&self) -> String {
        let mut singles = 0;
        let mut pairs = 0;
        let mut more = 0;
        let mut user = 0;
        let mut greedy = 0;
        for o in &self.cmp.outcomes {
            for g in &o.candidate.origins {
                match g {
                    Origin::Subset(1) => singles += 1,
                    Origin::Subset(2) => pairs += 1,
                    Origin::Subset(_) => more += 1,
                    Origin::User(_) => user += 1,
                    Origin::Greedy(_) => greedy += 1,
                }
            }
        }
        let parts: Vec<String> = [
            (singles, "leave-one-out"),
            (pairs, "pairs"),
            (more, "larger subsets"),
            (user, "user"),
            (greedy, "greedy steps"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, s)| format!("{n} {s}"))
        .collect();
        parts.join(", ")
    }

    fn head(&self) -> Vec<String> {
        let mut head: Vec<String> = ["rank", "drop", "source", "unpruned band", "Max|e_i|", "e_max", "RMS"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        for r in &self.cmp.base.regions {
            for j in 0..self.cmp.targets.len() {
                head.push(format!("{} at {}: band", r.threshold.text, self.target_label(j)));
                head.push("width".into());
                head.push("ratio".into());
                head.push("new measurement".into());
            }
        }
        head
    }

    fn row(&self, rank: usize, o: &Outcome) -> Vec<String> {
        let mut row = vec![rank.to_string(), self.drop_label(o), self.sources(o)];
        match &o.result {
            Err(e) => {
                row.push(format!("failed: {}", e.short_reason()));
            }
            Ok(s) => {
                row.push((if s.leaves { "LEAVES" } else { "inside" }).into());
                row.extend([self.num(&s.max_abs), self.num(&s.emax), self.rms_text(&s.mean_square)]);
                for (t, bands) in s.bands.iter().enumerate() {
                    for (j, b) in bands.iter().enumerate() {
                        row.extend([
                            self.band_text(b),
                            self.width_text(b),
                            Self::ratio_text(&s.ratios[t][j]),
                            self.band_text(&s.measurement[t][j]),
                        ]);
                    }
                }
            }
        }
        row
    }

    fn base_lines(&self) -> Vec<String> {
        let c = self.cmp;
        let a = &c.base;
        let mut out = vec![format!(
            "Without pruning: Max|e_i| = {}, e_max = {}, RMS = {}",
            self.num(&a.residuals.max_abs),
            self.num(&a.emax),
            self.rms_text(&a.residuals.mean_square)
        )];
        for (t, r) in a.regions.iter().enumerate() {
            for (j, p) in a.predictions.iter().enumerate() {
                out.push(format!(
                    "  band at {}, threshold {}: {}, width {}; a new measurement: {}",
                    self.target_label(j),
                    self.bound_label(&r.threshold.text, &r.bound),
                    self.band_text(&p.bands[t]),
                    self.width_text(&p.bands[t]),
                    self.band_text(&p.measurement[t])
                ));
            }
        }
        out
    }
}

impl CommandReport for PruneReport<'_> {
    fn title(&self) -> String {
        format!("errband prune: {} with {}", self.model.file, self.data_file)
    }

    /// The sentence on what the best choice buys.
    fn headline(&self) -> String {
        let c = self.cmp;
        let Some(best) = c.outcomes.first() else { return "No candidate.".into() };
        let Ok(s) = &best.result else {
            return "No candidate could be re-analysed.".into();
        };
        let Some(t0) = c.base.regions.first() else { return String::new() };
        let mut parts = Vec::new();
        for j in 0..c.targets.len() {
            // The base analysis predicts at the targets, in their order.
            let Some(before) = c.base.predictions.get(j).and_then(|p| p.bands.first()) else { continue };
            let after = &s.bands[0][j];
            parts.push(format!(
                "at {} from {} (width {}) to {} (width {}){}",
                self.target_label(j),
                self.band_text(before),
                self.width_text(before),
                self.band_text(after),
                self.width_text(after),
                s.ratios[0][j].as_ref().map_or(String::new(), |r| format!(" (×{})", fmt_sig(r, 3)))
            ));
        }
        let verb = match best.key() {
            _ if best.leaves() => "is the best choice, but its band leaves the unpruned one, as every candidate's does: the pruning moves the prediction",
            Some(k) if k < Rat::from_integer(1.into()) => "narrows the band",
            Some(_) => "is the best choice but does not narrow the band",
            None => "is the best choice; the band is not finite",
        };
        format!(
            "Best: dropping {} {verb} (threshold {}) {}.",
            self.drop_label(best),
            t0.threshold.text,
            parts.join("; ")
        )
    }

    /// The terminal report.
    fn text(&self) -> String {
        let c = self.cmp;
        let mut o = format!(
            "errband {} prune — {} with {}\n\n",
            env!("CARGO_PKG_VERSION"),
            self.model.file,
            self.data_file
        );
        for l in self.base_lines() {
            o.push_str(&l);
            o.push('\n');
        }
        let t0 = c.base.regions.first().map_or(String::new(), |r| r.threshold.text.clone());
        o.push_str(&format!(
            "\n{} candidates ({}), each refitted and re-analysed exactly; ranked: those whose band at threshold {t0} stays inside the unpruned band at every target first (LEAVES: the pruning moved the prediction, a warning sign), then by the largest width ratio over the targets (ratio = pruned width / unpruned width):\n",
            c.outcomes.len(),
            self.counts()
        ));
        let mut rows = vec![self.head()];
        for (i, out) in c.outcomes.iter().enumerate().take(self.shown()) {
            rows.push(self.row(i + 1, out));
        }
        o.push_str(&table_left(&rows, 2, &[1, 2]));
        if self.shown() < c.outcomes.len() {
            o.push_str(&format!("  … {} more (--show 0 lists all)\n", c.outcomes.len() - self.shown()));
        }
        o.push('\n');
        o.push_str(&self.headline());
        o.push('\n');
        o
    }

    /// Markdown.
    fn markdown(&self) -> String {
        let c = self.cmp;
        let mut o = format!("# errband prune: {} with {}\n\n", self.model.file, self.data_file);
        for l in self.base_lines() {
            o.push_str(&format!("- {}\n", l.trim()));
        }
        o.push_str(&format!("\n{} candidates ({}).\n\n", c.outcomes.len(), self.counts()));
        o.push_str(&md_table_head(&self.head()));
        for (i, out) in c.outcomes.iter().enumerate().take(self.shown()) {
            o.push_str(&md_row(&self.row(i + 1, out)));
        }
        o.push_str(&format!("\n**{}**\n", self.headline()));
        o
    }

    /// JSON: every candidate with exact values ([`PruneDocument`]).
    fn json(&self) -> Value {
        let doc =
            PruneDocument::new(self.model, self.data_file, self.data, self.cmp, self.headline(), self.digits);
        crate::document::to_value(&doc)
    }

    /// CSV: one record per candidate, threshold and target.
    fn csv(&self) -> String {
        let c = self.cmp;
        let mut head: Vec<String> =
            ["rank", "drop", "sources", "max_abs_residual", "emax", "rms", "threshold", "threshold_value"]
                .iter()
                .map(|s| s.to_string())
                .collect();
        head.extend(self.model.vars.iter().map(|v| format!("target_{v}")));
        head.extend(
            ["lower", "upper", "width", "ratio", "lower_exact", "upper_exact", "ratio_exact", "error"]
                .iter()
                .map(|s| s.to_string()),
        );
        let mut out = csv_line(&head);
        let opt = |v: &Option<Rat>, exact: bool, inf: &str| {
            v.as_ref().map_or(inf.to_string(), |x| if exact { fmt_fraction(x) } else { self.dec(x) })
        };
        for (i, o) in c.outcomes.iter().enumerate() {
            let lead = vec![(i + 1).to_string(), self.drop_label(o), self.sources(o)];
            match &o.result {
                Err(e) => {
                    let mut row = lead.clone();
                    row.resize(head.len() - 1, String::new());
                    row.push(e.short_reason());
                    out.push_str(&csv_line(&row));
                }
                Ok(s) => {
                    for (t, bands) in s.bands.iter().enumerate() {
                        for (j, b) in bands.iter().enumerate() {
                            let mut row = lead.clone();
                            row.extend([
                                self.dec(&s.max_abs),
                                self.dec(&s.emax),
                                self.rms_text(&s.mean_square),
                                c.base.regions[t].threshold.text.clone(),
                                self.dec(&s.bounds[t].absolute),
                            ]);
                            row.extend(c.targets[j].iter().map(crate::model::show_value));
                            let (l, u) = match b {
                                None => (None, None),
                                Some(b) => (b.lower.clone(), b.upper.clone()),
                            };
                            let empty = b.is_none();
                            let e = |s: String| if empty { "empty".to_string() } else { s };
                            row.extend([
                                e(opt(&l, false, "-inf")),
                                e(opt(&u, false, "+inf")),
                                e(b.as_ref().and_then(Band::width).map_or("inf".into(), |w| self.dec(&w))),
                                opt(&s.ratios[t][j], false, ""),
                                e(opt(&l, true, "-inf")),
                                e(opt(&u, true, "+inf")),
                                opt(&s.ratios[t][j], true, ""),
                                String::new(),
                            ]);
                            out.push_str(&csv_line(&row));
                        }
                    }
                }
            }
        }
        out
    }

    /// LaTeX booktabs table of the ranked candidates shown.
    fn latex(&self) -> Option<String> {
        let c = self.cmp;
        let mut head: Vec<String> =
            ["Rank", "Dropped", "Max$|e_i|$", "$e_{\\max}$"].iter().map(|s| s.to_string()).collect();
        let mut groups = Vec::new();
        for r in &c.base.regions {
            for j in 0..c.targets.len() {
                groups.push((
                    format!(
                        "{} at {}",
                        latex::escape(&r.threshold.text),
                        latex::escape(&self.target_label(j))
                    ),
                    2,
                ));
                head.extend(["width".to_string(), "ratio".to_string()]);
            }
        }
        let rows: Vec<Vec<String>> = c
            .outcomes
            .iter()
            .enumerate()
            .take(self.shown())
            .map(|(i, o)| {
                let mut row = vec![(i + 1).to_string(), latex::escape(&self.drop_label(o))];
                match &o.result {
                    Err(e) => {
                        row.push(format!(
                            "\\multicolumn{{{}}}{{l}}{{{}}}",
                            head.len() - 2,
                            latex::escape(&e.short_reason())
                        ));
                    }
                    Ok(s) => {
                        row.extend([latex::number(&self.dec(&s.max_abs)), latex::number(&self.dec(&s.emax))]);
                        for (t, bands) in s.bands.iter().enumerate() {
                            for (j, b) in bands.iter().enumerate() {
                                row.push(latex::number(&self.width_text(b)));
                                row.push(
                                    s.ratios[t][j]
                                        .as_ref()
                                        .map_or("--".into(), |r| latex::number(&fmt_sig(r, 3))),
                                );
                            }
                        }
                    }
                }
                row
            })
            .collect();
        let caption = format!(
            "Data-pruning choices for {} on {}, ranked by the band width at the targets relative to no pruning (exact re-analysis of each choice by errband {}).",
            latex::escape(&self.model.file),
            latex::escape(self.data_file),
            env!("CARGO_PKG_VERSION")
        );
        Some(latex::table(&caption, "tab:errband-prune", 4, &groups, &head, &rows))
    }

    /// Bar chart of the width ratios of the best candidates (up to 20).
    fn charts(&self) -> Vec<(&'static str, String)> {
        vec![("chart", self.chart())]
    }
}

impl PruneReport<'_> {
    /// The comparison chart (SVG).
    fn chart(&self) -> String {
        let c = self.cmp;
        let n = self.shown().min(20);
        let cats: Vec<String> = c.outcomes.iter().take(n).map(|o| self.drop_label(o)).collect();
        let mut groups = Vec::new();
        for (t, r) in c.base.regions.iter().enumerate() {
            for j in 0..c.targets.len() {
                let vals: Vec<Option<f64>> = c
                    .outcomes
                    .iter()
                    .take(n)
                    .map(|o| o.result.as_ref().ok().and_then(|s| s.ratios[t][j].as_ref()).map(to_f64))
                    .collect();
                groups.push((format!("threshold {} at {}", r.threshold.text, self.target_label(j)), vals));
            }
        }
        let mut ch = BarChart::new(
            format!("Band width after pruning relative to all data ({} best of {})", n, c.outcomes.len()),
            cats,
            groups,
            Axis::linear("width ratio (pruned / all data)"),
        );
        ch.hline = Some((1.0, "no pruning".into()));
        ch.missing_label = "∞".into();
        ch.svg()
    }
}
