//! Whole experiments: one analysis per series (callpath × metric, or `--by`
//! group), led by one table with a row per series, the widest relative
//! band first.

use serde_json::{json, Value};

use super::html::{esc, html_table, page};
use super::{figures, rel_half_width, rel_half_width_dec, table_left, Report, Views};
use crate::analysis::Analysis;
use crate::data::{Aggregate, Format};
use crate::error::Classified;
use crate::model::{show_value, Model};
use crate::num::{fmt_sig, Rat};
use crate::session::Entry;

/// Every analysis of an experiment.
pub struct ExperimentReport<'a> {
    /// The model of the first series; its variables are every series'.
    pub model: &'a Model,
    /// No model file was given: each series' model is its family's best
    /// form (`errband DATA --family pmnf`).
    pub discovered: bool,
    /// The data file.
    pub data_file: &'a str,
    /// Its format.
    pub format: Format,
    /// Series in the file before selection.
    pub total: usize,
    /// How repetitions were aggregated.
    pub aggregate: Aggregate,
    /// One entry per selected series, in file order.
    pub entries: Vec<Entry<'a>>,
    /// Significant digits.
    pub digits: usize,
    /// Exact fractions in tables.
    pub exact: bool,
    /// With `--plot-at`: the slice every series' band plot shows.
    pub plot_at: Option<&'a crate::model::Slice>,
}

super::views!(ExperimentReport);

impl<'a> ExperimentReport<'a> {
    /// The report of one entry's analysis, for the per-series sections.
    fn report<'b>(&'b self, e: &'b Entry<'a>, an: &'b Analysis) -> Report<'b> {
        Report {
            plot_at: self.plot_at,
            model: &e.model,
            data_file: self.data_file,
            data: e.rows(),
            analysis: an,
            pruned: None,
            function: None,
            scales: [None, None],
            digits: self.digits,
            exact: self.exact,
            warnings: &e.part.dataset.warnings,
            backtest: e.backtest.as_ref(),
            family: e.family.as_ref(),
            recommendation: e.recommendation.as_ref(),
            recommendation_error: None,
            discovered: self.discovered,
            set_aside: &e.set_aside,
        }
    }

    /// With `--holdout`: the coverage of every band over all series (by
    /// threshold and band kind, in the first backtest's order).
    fn coverage(&self) -> Option<(String, Vec<crate::backtest::Coverage>)> {
        let mut all: Vec<crate::backtest::Coverage> = Vec::new();
        let mut condition = None;
        for b in self.entries.iter().filter_map(|e| e.backtest.as_ref()) {
            condition.get_or_insert_with(|| b.holdout.clone());
            for c in &b.coverage {
                match all.iter_mut().find(|a| a.threshold == c.threshold && a.kind == c.kind) {
                    Some(a) => a.add(c),
                    None => all.push(c.clone()),
                }
            }
        }
        condition.map(|c| (c, all))
    }

    /// The widest relative half-width over the prediction points at the
    /// first threshold (`None`: no band, unbounded, or no points).
    fn widest(an: &Analysis) -> Option<Rat> {
        an.predictions
            .iter()
            .filter_map(|p| {
                p.bands.first().and_then(|b| b.as_ref()).and_then(|b| rel_half_width(b, &p.model))
            })
            .max()
    }

    /// Entry indices, the widest relative band first; failures last, in file order.
    pub fn order(&self) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..self.entries.len()).collect();
        let key = |i: &usize| match &self.entries[*i].outcome {
            Ok(an) => (0, Self::widest(an).map(|w| -w)),
            Err(_) => (1, None),
        };
        idx.sort_by(|a, b| {
            let (ka, kb) = (key(a), key(b));
            // Some(-w) sorts the widest first; a missing width after the widths.
            ka.0.cmp(&kb.0).then_with(|| match (&ka.1, &kb.1) {
                (Some(x), Some(y)) => x.cmp(y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            })
        });
        idx
    }

    /// The points predicted (the same for every series).
    fn points(&self) -> Vec<Vec<Rat>> {
        self.entries
            .iter()
            .find_map(|e| e.outcome.as_ref().ok())
            .map(|an| an.predictions.iter().map(|p| p.x.clone()).collect())
            .unwrap_or_default()
    }

    fn point_label(&self, x: &[Rat]) -> String {
        self.model
            .vars
            .iter()
            .zip(x)
            .map(|(v, x)| format!("{v}={}", show_value(x)))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Whether every series has the same model (else each row names its own).
    fn same_model(&self) -> bool {
        self.entries.iter().all(|e| e.model.body_text == self.model.body_text)
    }

    /// `c0 = 79.3, c1 = 0.0049`: the fitted parameters of an entry.
    fn fitted(&self, e: &Entry<'_>, an: &Analysis) -> String {
        e.model
            .params
            .iter()
            .zip(&an.params)
            .map(|(p, c)| format!("{} = {}", p.name, self.num(c)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The summary table: header and rows of text.
    pub fn table(&self) -> (Vec<String>, Vec<Vec<String>>) {
        let points = self.points();
        let same = self.same_model();
        let mut head = vec!["series".to_string(), "points".into()];
        if same {
            head.extend(self.model.params.iter().map(|p| p.name.clone()));
        } else {
            head.extend(["model".to_string(), "fit".to_string()]);
        }
        head.push("e_max".into());
        let thr = self.entries.iter().find_map(|e| e.outcome.as_ref().ok()).and_then(|an| an.regions.first());
        let thr_text = thr.map_or(String::new(), |r| r.threshold.text.clone());
        for x in &points {
            head.push(format!("band at {} (t={thr_text})", self.point_label(x)));
        }
        // With families: the family band of a new measurement at the last
        // threshold (the trusted one by default) per point.
        let fam_level = self
            .entries
            .iter()
            .find_map(|e| e.family.as_ref())
            .and_then(|f| f.levels.len().checked_sub(1).map(|t| (t, f.levels[t].threshold.text.clone())));
        if let Some((_, t)) = &fam_level {
            for x in &points {
                head.push(format!("family band at {} (t={t}, new measurement)", self.point_label(x)));
            }
        }
        head.push("widest ±%".into());
        let mut rows = Vec::new();
        for i in self.order() {
            let e = &self.entries[i];
            let mut row = vec![e.part.name()];
            match e.outcome.as_ref().map_err(ToString::to_string) {
                Ok(an) => {
                    row.push(an.design.groups.len().to_string());
                    if same {
                        row.extend(an.params.iter().map(|c| self.num(c)));
                    } else {
                        row.push(e.model.body_text.clone());
                        row.push(self.fitted(e, an));
                    }
                    row.push(self.num(&an.emax));
                    for p in &an.predictions {
                        row.push(match p.bands.first().and_then(|b| b.as_ref()) {
                            None => "empty".into(),
                            Some(b) => format!(
                                "{} .. {}",
                                b.lower.as_ref().map_or("-inf".into(), |v| self.num(v)),
                                b.upper.as_ref().map_or("+inf".into(), |v| self.num(v))
                            ),
                        });
                    }
                    if let Some((t, _)) = &fam_level {
                        for k in 0..points.len() {
                            row.push(self.family_cell(e, *t, k));
                        }
                    }
                    row.push(
                        Self::widest(an)
                            .map_or("-".into(), |w| fmt_sig(&(w * Rat::from_integer(100.into())), 3)),
                    );
                }
                Err(msg) => {
                    row.push("-".into());
                    row.push(format!("failed: {}", msg.lines().next().unwrap_or("")));
                    while row.len() < head.len() {
                        row.push(String::new());
                    }
                }
            }
            rows.push(row);
        }
        (head, rows)
    }

    /// An entry's family band of a new measurement at threshold `t` and
    /// point `k`, with the number of forms it spans.
    fn family_cell(&self, e: &Entry<'_>, t: usize, k: usize) -> String {
        let Some(f) = &e.family else { return "-".into() };
        match (f.levels.get(t).and_then(|l| l.bound.as_ref()), f.hull.get(t).and_then(|h| h.get(k))) {
            (None, _) => "no trustworthy band".into(),
            (Some(_), None | Some(None)) => "no form consistent".into(),
            (Some(_), Some(Some(h))) => format!(
                "{} .. {} ({} form{})",
                h.measurement.lower.as_ref().map_or("-inf".into(), |v| self.num(v)),
                h.measurement.upper.as_ref().map_or("+inf".into(), |v| self.num(v)),
                h.forms,
                if h.forms == 1 { "" } else { "s" }
            ),
        }
    }

    fn title(&self) -> String {
        // Extra-P's models are named `FILE (series)`; the title names the file.
        let file = if self.same_model() {
            self.model.file.as_str()
        } else {
            self.model.file.split(" (").next().unwrap_or("")
        };
        format!("errband: {file} on {} ({} series)", self.data_file, self.entries.len())
    }

    fn assumptions(&self) -> Vec<String> {
        let model = if self.discovered {
            "each series with the best form of its family (errband DATA --family pmnf: Extra-P's normal forms, fitted exactly and ranked; the family band is beside it)".to_string()
        } else if self.same_model() {
            format!(
                "the same model for each: {}({}) = {}",
                self.model.func,
                self.model.vars.join(", "),
                self.model.body_text
            )
        } else {
            let file = self.model.file.split(" (").next().unwrap_or("");
            if self.model.fit == crate::model::FitMode::Given {
                format!("each series with the model Extra-P chose for it and Extra-P's coefficients (from {file}, --no-fit)")
            } else {
                format!("each series with the form Extra-P chose for it (from {file}), its coefficients refitted exactly")
            }
        };
        vec![
            format!(
                "{}: {} format, {} of its {} series selected; {model}",
                self.data_file,
                self.format.name(),
                self.entries.len(),
                self.total,
            ),
            format!("repetitions: {} (--aggregate {})", self.aggregate.describe(), self.aggregate.name()),
            "bands bound the model's value for parameters whose residuals stay within the threshold; rows are ordered by the widest relative half-width first".to_string(),
        ]
    }

    /// The terminal report: the table, then each series' own report.
    pub fn text(&self) -> String {
        let mut o = format!("{}\n", self.title());
        for a in self.assumptions() {
            o.push_str(&format!("  {a}\n"));
        }
        o.push('\n');
        let (head, rows) = self.table();
        let mut all = vec![head];
        all.extend(rows);
        o.push_str(&table_left(&all, 0, &[0]));
        if let Some((cond, cov)) = self.coverage() {
            o.push_str(&format!(
                "\nBacktest over all series (--holdout {cond}): held-out measurements inside each band\n"
            ));
            let mut rows = vec![super::backtest::coverage_head()];
            rows.extend(cov.iter().map(super::backtest::coverage_row));
            o.push_str(&super::table(&rows, 2));
        }
        for i in self.order() {
            let e = &self.entries[i];
            o.push_str(&format!("\n=== {} ===\n", e.part.name()));
            match e.outcome.as_ref().map_err(ToString::to_string) {
                Ok(an) => o.push_str(&self.report(e, an).text()),
                Err(msg) => o.push_str(&format!("failed: {msg}\n")),
            }
        }
        o
    }

    /// `--brief`: per series (in the table's order) a line per prediction
    /// point with the predicted value and the recommended band, or why
    /// there is none.
    pub fn brief(&self) -> String {
        let mut o = String::new();
        for i in self.order() {
            let e = &self.entries[i];
            let name = e.part.name();
            match e.outcome.as_ref().map_err(ToString::to_string) {
                Ok(an) => {
                    let points = self.report(e, an).answer_points();
                    if points.is_empty() {
                        o.push_str(&format!("{name}: no recommended band\n"));
                    }
                    for p in points {
                        o.push_str(&format!("{name}: {p}\n"));
                    }
                }
                Err(msg) => o.push_str(&format!("{name}: failed: {}\n", msg.lines().next().unwrap_or(""))),
            }
        }
        o
    }

    /// Markdown: the table, then each series' report.
    pub fn markdown(&self) -> String {
        let mut o = format!("# {}\n\n", self.title());
        for a in self.assumptions() {
            o.push_str(&format!("- {a}\n"));
        }
        let (head, rows) = self.table();
        if let Some((cond, cov)) = self.coverage() {
            o.push_str(&format!(
                "\n**Backtest over all series** (`--holdout {}`):\n\n",
                super::md_escape(&cond)
            ));
            o.push_str(&super::md_table_head(&super::backtest::coverage_head()));
            for c in &cov {
                o.push_str(&super::md_row(&super::backtest::coverage_row(c)));
            }
        }
        o.push_str(&format!("\n| {} |\n|{}\n", head.join(" | "), "---|".repeat(head.len())));
        for r in &rows {
            o.push_str(&format!(
                "| {} |\n",
                r.iter().map(|c| c.replace('|', "\\|")).collect::<Vec<_>>().join(" | ")
            ));
        }
        for i in self.order() {
            let e = &self.entries[i];
            o.push_str(&format!("\n## {}\n\n", e.part.name()));
            match e.outcome.as_ref().map_err(ToString::to_string) {
                Ok(an) => o.push_str(&self.report(e, an).markdown()),
                Err(msg) => o.push_str(&format!("failed: {msg}\n")),
            }
        }
        o
    }

    /// CSV for machines: one record per series, prediction point and
    /// threshold, exact and decimal columns (a failed series has one
    /// record with its error), in the table's order.
    pub fn csv(&self) -> String {
        let mut head = vec!["callpath".to_string(), "metric".into()];
        head.extend(self.model.vars.iter().cloned());
        for c in ["threshold", "model", "lower", "upper", "relative_half_width", "emax"] {
            head.push(c.into());
        }
        for c in ["model", "lower", "upper", "emax"] {
            head.push(format!("{c}_exact"));
        }
        head.push("error".into());
        let mut w = csv::Writer::from_writer(Vec::new());
        let _ = w.write_record(&head);
        let opt = |x: &Option<Rat>, f: &dyn Fn(&Rat) -> String| x.as_ref().map_or(String::new(), f);
        for i in self.order() {
            let e = &self.entries[i];
            let name = [e.part.callpath.clone(), e.part.metric.clone()];
            match e.outcome.as_ref().map_err(ToString::to_string) {
                Err(msg) => {
                    let mut r = name.to_vec();
                    r.resize(head.len() - 1, String::new());
                    r.push(msg.lines().next().unwrap_or("").to_string());
                    let _ = w.write_record(&r);
                }
                Ok(an) => {
                    for p in &an.predictions {
                        for (k, region) in an.regions.iter().enumerate() {
                            let b = p.bands.get(k).and_then(|b| b.as_ref());
                            let (lo, hi) = b.map_or((None, None), |b| (b.lower.clone(), b.upper.clone()));
                            let mut r = name.to_vec();
                            r.extend(p.x.iter().map(show_value));
                            r.push(region.threshold.text.clone());
                            r.push(self.dec(&p.model));
                            r.push(opt(&lo, &|v| self.dec(v)));
                            r.push(opt(&hi, &|v| self.dec(v)));
                            r.push(rel_half_width_dec(b, &p.model, 1, self.digits()));
                            r.push(self.dec(&an.emax));
                            r.push(crate::num::fmt_fraction(&p.model));
                            r.push(opt(&lo, &crate::num::fmt_fraction));
                            r.push(opt(&hi, &crate::num::fmt_fraction));
                            r.push(crate::num::fmt_fraction(&an.emax));
                            r.push(String::new());
                            let _ = w.write_record(&r);
                        }
                    }
                }
            }
        }
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }

    /// JSON: the experiment, the summary rows, and every analysis in the
    /// main command's schema (failures with their message).
    pub fn json(&self) -> Value {
        let summary: Vec<Value> = self
            .order()
            .into_iter()
            .map(|i| {
                let e = &self.entries[i];
                match e.outcome.as_ref().map_err(ToString::to_string) {
                    Ok(an) => json!({
                        "callpath": e.part.callpath, "metric": e.part.metric,
                        "points": an.design.groups.len(), "measurements": e.part.dataset.rows.len(),
                        "model": e.model.body_text,
                        "params": e.model.params.iter().zip(&an.params).map(|(p, c)| self.param_json(&p.name, c)).collect::<Vec<_>>(),
                        "emax": self.both(&an.emax),
                        "widest_relative_half_width": Self::widest(an).map_or(Value::Null, |w| self.both(&w)),
                        "family": e.family.as_ref().map_or(Value::Null, |f| json!({
                            "forms": f.members.len(),
                            "consistent": f.levels.iter().enumerate().map(|(t, l)| json!({
                                "threshold": l.threshold.text,
                                "forms": f.members.iter().filter(|m| m.consistent[t]).count(),
                            })).collect::<Vec<_>>(),
                        })),
                    }),
                    Err(msg) => json!({ "callpath": e.part.callpath, "metric": e.part.metric, "error": msg }),
                }
            })
            .collect();
        let analyses: Vec<Value> = self
            .entries
            .iter()
            .map(|e| match e.outcome.as_ref().map_err(ToString::to_string) {
                Ok(an) => json!({ "callpath": e.part.callpath, "metric": e.part.metric, "report": self.report(e, an).json() }),
                Err(msg) => json!({ "callpath": e.part.callpath, "metric": e.part.metric, "error": msg }),
            })
            .collect();
        json!({
            "errband": env!("CARGO_PKG_VERSION"),
            "experiment": {
                "file": self.data_file, "format": self.format.name(), "series": self.total,
                "selected": self.entries.len(), "aggregate": self.aggregate.name(),
                "model": { "file": self.model.file, "function": self.model.func, "variables": self.model.vars, "body": self.model.body_text },
            },
            "summary": summary,
            "analyses": analyses,
            "holdout": self.coverage().map_or(Value::Null, |(cond, cov)| json!({
                "condition": cond,
                "coverage": cov.iter().map(|c| super::backtest::coverage_json(self, c)).collect::<Vec<_>>(),
            })),
        })
    }

    /// A self-contained HTML page: the table, then a band plot and the
    /// text report per series.
    pub fn html(&self) -> String {
        let mut body = format!("<h1>{}</h1>\n<ul>\n", esc(&self.title()));
        for a in self.assumptions() {
            body.push_str(&format!("<li>{}</li>\n", esc(&a)));
        }
        body.push_str("</ul>\n");
        let (head, rows) = self.table();
        body.push_str(&html_table(&head, &rows));
        for i in self.order() {
            let e = &self.entries[i];
            body.push_str(&format!("<h2>{}</h2>\n", esc(&e.part.name())));
            match e.outcome.as_ref().map_err(ToString::to_string) {
                Ok(an) => {
                    let r = self.report(e, an);
                    body.push_str(&format!(
                        "<figure>{}</figure>\n<pre>{}</pre>\n",
                        figures::band(&r),
                        esc(&r.text())
                    ));
                }
                Err(msg) => body.push_str(&format!("<p>failed: {}</p>\n", esc(&msg))),
            }
        }
        page(&self.title(), &body)
    }

    /// The exit code: 0 when every analysis succeeded, else the largest
    /// failure code (1: analysis impossible, 2: an input fault).
    pub fn code(&self) -> i32 {
        self.entries
            .iter()
            .filter_map(|e| e.outcome.as_ref().err().map(|e| e.kind().exit_code()))
            .max()
            .unwrap_or(0)
    }
}
