//! Renders an energy prediction ([`crate::energy::Prediction`]): terminal
//! report, JSON, CSV (long form), Markdown and the plots (ΔE(n) or
//! EE_opt(n) with bands against n; stacked per-region shares, std vs opt).

use super::{csv_line, md_escape, md_row, md_table_head, table_left};
use crate::document::energy::EnergyDocument;
use crate::energy::{show_nodes, AtNodes, Form, Nodes, Objective, Prediction, Value, FRACTIONS};
use crate::num::Interval;
use crate::num::{fmt_fraction, fmt_sig, to_f64, Rat};
use crate::plot::{Axis, Chart, Mark, Series, SeriesKind, StackedBarChart};
use serde_json::Value as Json;

/// A plot kind of `errband energy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnergyPlot {
    /// ΔE(n) with bands.
    Delta,
    /// EE_opt(n) with bands.
    Ee,
    /// Stacked per-region shares, std vs opt.
    Shares,
}

/// What to render.
pub struct EnergyReport<'a> {
    /// Input file name.
    pub file: &'a str,
    /// The prediction.
    pub pred: &'a Prediction,
    /// Significant digits of decimals.
    pub digits: usize,
    /// Exact fractions in text and Markdown.
    pub exact: bool,
    /// Include the generated fit models and their analyses in the text report.
    pub show_fits: bool,
}

fn nodes_text(n: &Nodes) -> String {
    match n {
        Nodes::Count(v) => fmt_fraction(v),
        Nodes::Infinity => "inf".into(),
    }
}

/// One quantity of the predictions tables: its name (with the unit), accessor, and whether it is shown in percent.
type Quantity = (&'static str, fn(&AtNodes) -> Option<&Value>, bool);

const QUANTITIES: [Quantity; 6] = [
    ("delta_e", |a| a.delta_e.as_ref(), true),
    ("ee_opt", |a| a.ee_opt.as_ref(), false),
    ("e_std_J", |a| a.e_std.as_ref(), false),
    ("e_opt_J", |a| a.e_opt.as_ref(), false),
    ("t_std_s", |a| a.t_std.as_ref(), false),
    ("t_opt_s", |a| a.t_opt.as_ref(), false),
];

impl EnergyReport<'_> {
    fn num(&self, x: &Rat) -> String {
        if self.exact {
            fmt_fraction(x)
        } else {
            fmt_sig(x, self.digits)
        }
    }
    fn pct(&self, x: &Rat) -> String {
        if self.exact {
            format!("{}%", fmt_fraction(&(x * Rat::from_integer(100.into()))))
        } else {
            // Rounding needs no lowest terms: skip the gcd of the product.
            let p = Rat::new_raw(x.numer() * 100, x.denom().clone());
            format!("{}%", fmt_sig(&p, self.digits.min(4)))
        }
    }
    fn shown(&self, x: &Rat, percent: bool) -> String {
        if percent {
            self.pct(x)
        } else {
            self.num(x)
        }
    }
    fn band(&self, b: &Option<Interval>, percent: bool) -> String {
        match b {
            None => "undefined".into(),
            Some(i) => format!("[{}, {}]", self.shown(&i.lo, percent), self.shown(&i.hi, percent)),
        }
    }
    /// Bands exist only for fitted values (the fitted-values form has none).
    fn nbands(&self) -> usize {
        if self.pred.form == Form::Profile {
            self.pred.thresholds.len()
        } else {
            0
        }
    }
    fn value_cells(&self, v: Option<&Value>, percent: bool) -> Vec<String> {
        let nt = self.nbands();
        match v {
            None => vec!["-".into(); nt + 1],
            Some(v) => {
                let mut c = vec![self.shown(&v.point, percent)];
                c.extend(v.bands.iter().take(nt).map(|b| self.band(b, percent)));
                c
            }
        }
    }
    fn thresholds(&self) -> String {
        self.pred.thresholds.iter().map(|t| format!("`{}`", t.text)).collect::<Vec<_>>().join(", ")
    }

    fn header_line(&self) -> String {
        let p = self.pred;
        let form = match p.form {
            Form::Profile => {
                format!("profile, base {} nodes", p.base_nodes.as_ref().map_or("?".into(), fmt_fraction))
            }
            Form::Given => "fitted values".into(),
        };
        let obj = match p.objective {
            Objective::Energy => "energy",
            Objective::Edp => "EDP",
        };
        format!(
            "{form}; f_std = {} MHz; f_opt minimises {obj}; bands at threshold {} of each fit",
            fmt_sig(&p.f_std, 6),
            self.thresholds()
        )
    }

    fn region_rows(&self) -> Vec<Vec<String>> {
        let p = self.pred;
        let mut head: Vec<String> =
            ["region", "f_opt MHz", "P_std W", "P_opt W", "alpha_p"].iter().map(|s| s.to_string()).collect();
        for t in p.thresholds.iter().take(self.nbands()) {
            head.push(format!("alpha_p @{}", t.text));
        }
        head.push("beta_on".into());
        for t in p.thresholds.iter().take(self.nbands()) {
            head.push(format!("beta_on @{}", t.text));
        }
        if p.form == Form::Profile {
            head.extend(["e_max(T(n))".into(), "e_max(T(f))".into()]);
        }
        let mut rows = vec![head];
        for (r, v) in p.regions.iter().zip(&p.values) {
            let mut name = r.name.clone();
            if r.overhead {
                name.push_str(" (overhead)");
            }
            let mut f = fmt_sig(&r.f_opt, 6);
            if r.f_opt_forced {
                f.push_str(" (forced)");
            }
            let mut row = vec![name, f, self.num(&r.p_std), self.num(&r.p_opt)];
            row.extend(self.value_cells(v.alpha_p.as_ref(), false));
            row.extend(self.value_cells(Some(&v.beta_on), false));
            if p.form == Form::Profile {
                for k in [crate::energy::FitKind::Alpha, crate::energy::FitKind::Beta] {
                    let kk = if k == crate::energy::FitKind::Alpha && r.overhead {
                        crate::energy::FitKind::Overhead
                    } else {
                        k
                    };
                    row.push(
                        r.fits
                            .iter()
                            .find(|f| f.kind == kk)
                            .map_or("-".into(), |f| self.num(&f.analysis.emax)),
                    );
                }
            }
            rows.push(row);
        }
        rows
    }

    fn fraction_rows(&self) -> Vec<Vec<String>> {
        let t0 = self.pred.thresholds.first().map_or(String::new(), |t| t.text.clone());
        let mut rows = vec![std::iter::once("region".to_string())
            .chain(FRACTIONS.iter().map(|f| format!("{f} [band @{t0}]")))
            .collect()];
        for (r, v) in self.pred.regions.iter().zip(&self.pred.values) {
            let mut row = vec![r.name.clone()];
            match &v.fractions {
                None => row.extend(std::iter::repeat_n("undefined".to_string(), 4)),
                Some(fs) => {
                    for f in fs {
                        let band = match self.nbands() {
                            0 => String::new(),
                            _ => format!(" {}", self.band(f.bands.first().unwrap_or(&None), false)),
                        };
                        row.push(format!("{}{band}", self.num(&f.point)));
                    }
                }
            }
            rows.push(row);
        }
        rows
    }

    /// The predictions table for `QUANTITIES[range]`; rows without any value are left out.
    fn prediction_rows(&self, range: std::ops::Range<usize>) -> Vec<Vec<String>> {
        let qs = &QUANTITIES[range];
        let mut head = vec!["n".to_string()];
        for (name, _, _) in qs {
            head.push(name.to_string());
            for t in self.pred.thresholds.iter().take(self.nbands()) {
                head.push(format!("@{}", t.text));
            }
        }
        let mut rows = vec![head];
        for a in &self.pred.at {
            if qs.iter().all(|(_, get, _)| get(a).is_none()) {
                continue;
            }
            let mut row = vec![nodes_text(&a.nodes)];
            for (_, get, pct) in qs {
                row.extend(self.value_cells(get(a), *pct));
            }
            rows.push(row);
        }
        rows
    }

    fn share_rows(&self, a: &AtNodes) -> Vec<Vec<String>> {
        let t0 = self.pred.thresholds.first().map_or(String::new(), |t| t.text.clone());
        let bands = self.nbands() > 0;
        let mut head = vec!["region".to_string(), "std share".into()];
        if bands {
            head.push(format!("band @{t0}"));
        }
        head.push("opt share".into());
        if bands {
            head.push(format!("band @{t0}"));
        }
        let mut rows = vec![head];
        for (i, r) in self.pred.regions.iter().enumerate() {
            let mut row = vec![r.name.clone()];
            for v in [a.share_std.get(i), a.share_opt.get(i)] {
                match v.and_then(Option::as_ref) {
                    None => row.push("-".into()),
                    Some(v) => row.push(self.pct(&v.point)),
                }
                if bands {
                    row.push(
                        v.and_then(Option::as_ref)
                            .map_or("-".into(), |v| self.band(v.bands.first().unwrap_or(&None), true)),
                    );
                }
            }
            rows.push(row);
        }
        rows
    }

    /// The terminal report.
    pub fn text(&self) -> String {
        let p = self.pred;
        let mut s = format!("errband energy — {}\n  {}\n\n", self.file, self.header_line());
        s.push_str(
            "Regions (α_p: parallel fraction, β_on: frequency sensitivity; bands over each fit's region)\n",
        );
        s.push_str(&table_left(&self.region_rows(), 2, &[0]));
        s.push_str("\nTask fractions ω/ω (Kimura et al. [K2], eq. 13–16): serial/parallel × on/off-chip\n");
        s.push_str(&table_left(&self.fraction_rows(), 2, &[0]));
        s.push_str("\nPredictions (ΔE = 1 − E_opt/E_std, Kimura et al. [K1], eq. 4; EE_opt = E_opt/E_std)\n");
        s.push_str(&table_left(&self.prediction_rows(0..2), 2, &[]));
        s.push_str("\nEnergies (J, summed over the nodes) and run times (s) at f_std and at the chosen frequencies\n");
        s.push_str(&table_left(&self.prediction_rows(2..6), 2, &[]));
        for a in &p.at {
            s.push_str(&format!(
                "\nEnergy shares of E_std at {} (opt shares add up to EE_opt)\n",
                show_nodes(&a.nodes)
            ));
            s.push_str(&table_left(&self.share_rows(a), 2, &[0]));
        }
        if let Some(v) = self.verdict() {
            s.push_str(&format!("\n{v}\n"));
        }
        if !p.warnings.is_empty() {
            s.push_str("\nNotes\n");
            for w in &p.warnings {
                s.push_str(&format!("  - {w}\n"));
            }
        }
        if self.show_fits {
            for r in &p.regions {
                for f in &r.fits {
                    s.push_str(&format!(
                        "\nFit `{}` of region `{}` (e_max = {}, Max|e_i| = {}):\n",
                        f.kind.name(),
                        r.name,
                        self.num(&f.analysis.emax),
                        self.num(&f.analysis.residuals.max_abs)
                    ));
                    for line in f.model.source.lines() {
                        s.push_str(&format!("    {line}\n"));
                    }
                    s.push_str("    # data (x, measured)\n");
                    for m in &f.data {
                        s.push_str(&format!(
                            "    # {}, {}   (line {})\n",
                            fmt_fraction(&m.x[0]),
                            fmt_fraction(&m.y),
                            m.line
                        ));
                    }
                }
            }
        }
        s
    }

    /// One sentence on the trend of ΔE(n) over the finite node counts.
    fn verdict(&self) -> Option<String> {
        let finite: Vec<(&Rat, &Value)> = self
            .pred
            .at
            .iter()
            .filter_map(|a| match (&a.nodes, &a.delta_e) {
                (Nodes::Count(n), Some(d)) => Some((n, d)),
                _ => None,
            })
            .collect();
        let (first, last) = (finite.first()?, finite.last()?);
        if finite.len() < 2 {
            return None;
        }
        let trend = if last.1.point > first.1.point {
            "rises"
        } else if last.1.point < first.1.point {
            "falls"
        } else {
            "stays"
        };
        let t0 = self.pred.thresholds.first()?;
        let band = |v: &Value| self.band(v.bands.first().unwrap_or(&None), true);
        Some(format!(
            "ΔE(n) {trend} from {} at n = {} to {} at n = {} (bands at `{}`: {} and {}).",
            self.pct(&first.1.point),
            fmt_fraction(first.0),
            self.pct(&last.1.point),
            fmt_fraction(last.0),
            t0.text,
            band(first.1),
            band(last.1)
        ))
    }

    /// Markdown.
    pub fn markdown(&self) -> String {
        let md = |rows: &[Vec<String>]| -> String {
            let mut s = String::new();
            if let Some((h, rest)) = rows.split_first() {
                s.push_str(&md_table_head(h));
                for r in rest {
                    s.push_str(&md_row(r));
                }
            }
            s
        };
        let p = self.pred;
        let mut s =
            format!("# errband energy — {}\n\n{}\n\n", md_escape(self.file), md_escape(&self.header_line()));
        s.push_str("## Regions\n\n");
        s.push_str(&md(&self.region_rows()));
        s.push_str("\n## Task fractions (Kimura et al. [K2], eq. 13–16)\n\n");
        s.push_str(&md(&self.fraction_rows()));
        s.push_str("\n## Predictions\n\nΔE = 1 − E_opt/E_std (Kimura et al. [K1], eq. 4); EE_opt = E_opt/E_std; energies in J summed over the nodes.\n\n");
        s.push_str(&md(&self.prediction_rows(0..2)));
        s.push('\n');
        s.push_str(&md(&self.prediction_rows(2..6)));
        for a in &p.at {
            s.push_str(&format!("\n### Energy shares at {}\n\n", show_nodes(&a.nodes)));
            s.push_str(&md(&self.share_rows(a)));
        }
        if let Some(v) = self.verdict() {
            s.push_str(&format!("\n{}\n", md_escape(&v)));
        }
        if !p.warnings.is_empty() {
            s.push_str("\n## Notes\n\n");
            for w in &p.warnings {
                s.push_str(&format!("- {}\n", md_escape(w)));
            }
        }
        s
    }

    /// JSON: every exact value as `{exact, decimal}` ([`EnergyDocument`]).
    pub fn json(&self) -> Json {
        let doc = EnergyDocument::new(self.pred, self.file, self.verdict(), self.digits);
        crate::document::to_value(&doc)
    }

    /// CSV: `nodes,quantity,region,threshold,value,lower,upper` (exact values as
    /// decimals with 17 significant digits; `threshold` empty on the point row).
    pub fn csv(&self) -> String {
        let mut s = csv_line(
            &["nodes", "quantity", "region", "threshold", "value", "lower", "upper"].map(String::from),
        );
        let ts: Vec<&str> = self.pred.thresholds.iter().map(|t| t.text.as_str()).collect();
        let d = |x: &Rat| fmt_sig(x, 17);
        let mut emit = |n: &str, q: &str, region: &str, v: Option<&Value>| {
            let Some(v) = v else { return };
            for (b, t) in v.bands.iter().zip(&ts) {
                let (lo, hi) = b.as_ref().map_or((String::new(), String::new()), |i| (d(&i.lo), d(&i.hi)));
                s.push_str(&csv_line(&[
                    n.into(),
                    q.into(),
                    region.into(),
                    t.to_string(),
                    d(&v.point),
                    lo,
                    hi,
                ]));
            }
        };
        for a in &self.pred.at {
            let n = nodes_text(&a.nodes);
            for (name, get, _) in QUANTITIES {
                emit(&n, name, "", get(a));
            }
            for (i, r) in self.pred.regions.iter().enumerate() {
                emit(&n, "share_std", &r.name, a.share_std.get(i).and_then(Option::as_ref));
                emit(&n, "share_opt", &r.name, a.share_opt.get(i).and_then(Option::as_ref));
            }
        }
        s
    }

    /// An SVG plot.
    pub fn plot(&self, kind: EnergyPlot) -> String {
        match kind {
            EnergyPlot::Delta => self.curve(true),
            EnergyPlot::Ee => self.curve(false),
            EnergyPlot::Shares => self.shares(),
        }
    }

    fn curve(&self, delta: bool) -> String {
        let p = self.pred;
        let (title, label) = if delta {
            ("ΔE(n): energy saved by DVFS optimisation", "ΔE(n)")
        } else {
            ("EE_opt(n) = E_opt / E_std", "EE_opt(n)")
        };
        let get = |a: &AtNodes| if delta { a.delta_e.clone() } else { a.ee_opt.clone() };
        let pts: Vec<(f64, &AtNodes)> =
            p.at.iter()
                .filter_map(|a| match &a.nodes {
                    Nodes::Count(n) => Some((to_f64(n), a)),
                    Nodes::Infinity => None,
                })
                .collect();
        let span = pts.iter().map(|x| x.0).fold(f64::NAN, f64::max)
            / pts.iter().map(|x| x.0).fold(f64::NAN, f64::min);
        let x = if span > 20.0 { Axis::log("nodes n") } else { Axis::linear("nodes n") };
        let mut chart = Chart::new(title, x, Axis::linear(label));
        for (ti, t) in p.thresholds.iter().enumerate() {
            let mut lower = Vec::new();
            let mut upper = Vec::new();
            for (xv, a) in &pts {
                if let Some(Some(b)) = get(a).map(|v| v.bands.get(ti).cloned().flatten()) {
                    lower.push((*xv, to_f64(&b.lo)));
                    upper.push((*xv, to_f64(&b.hi)));
                }
            }
            if !lower.is_empty() {
                chart.series.push(
                    Series::new(
                        format!("band (threshold {})", t.text),
                        SeriesKind::Band { lower, upper, light: false },
                    )
                    .color(ti + 1),
                );
            }
        }
        let line: Vec<(f64, f64)> =
            pts.iter().filter_map(|(xv, a)| get(a).map(|v| (*xv, to_f64(&v.point)))).collect();
        chart.series.push(Series::new(label, SeriesKind::Line { pts: line.clone(), dashed: false }).color(0));
        chart.series.push(Series::new("", SeriesKind::Points { pts: line, mark: Mark::Circle }).color(0));
        if let Some(limit) = p.at.iter().find(|a| a.nodes == Nodes::Infinity).and_then(get) {
            chart.hline = Some((to_f64(&limit.point), format!("n → ∞: {}", self.num(&limit.point))));
        }
        chart.svg()
    }

    fn shares(&self) -> String {
        let p = self.pred;
        let cats: Vec<&AtNodes> = p.at.iter().collect();
        let categories = cats.iter().map(|a| nodes_text(&a.nodes).replace("inf", "∞")).collect();
        let layers: Vec<String> = p.regions.iter().map(|r| r.name.clone()).collect();
        let values: Vec<Vec<Vec<f64>>> = cats
            .iter()
            .map(|a| {
                let layer = |v: &[Option<Value>]| {
                    v.iter().map(|s| s.as_ref().map_or(0.0, |s| to_f64(&s.point))).collect()
                };
                vec![layer(&a.share_std), layer(&a.share_opt)]
            })
            .collect();
        let whiskers = cats
            .iter()
            .map(|a| {
                let ee = a.ee_opt.as_ref().and_then(|v| v.bands.first().cloned().flatten());
                let opt = ee.map_or((f64::NAN, f64::NAN), |b| (to_f64(&b.lo), to_f64(&b.hi)));
                vec![(1.0, 1.0), opt]
            })
            .collect();
        let t0 = p.thresholds.first().map_or(String::new(), |t| t.text.clone());
        let mut chart = StackedBarChart::new(
            format!("Energy per region relative to E_std(n) (whiskers: EE_opt band at {t0})"),
            categories,
            "nodes n",
            vec!["std".into(), "opt".into()],
            layers,
            values,
            Axis::linear("energy / E_std(n)"),
        );
        chart.whiskers = Some(whiskers);
        chart.hline = Some((1.0, "E_std(n) = 1".into()));
        chart.svg()
    }
}

impl EnergyPlot {
    /// Every kind with its `--plot` name, in the order of a whole report.
    pub const ALL: [(&'static str, EnergyPlot); 3] =
        [("delta", EnergyPlot::Delta), ("ee", EnergyPlot::Ee), ("shares", EnergyPlot::Shares)];

    /// The `--plot` name of this kind.
    pub fn name(self) -> &'static str {
        EnergyPlot::ALL.iter().find(|(_, k)| *k == self).map_or("", |(n, _)| n)
    }
}

impl super::CommandReport for EnergyReport<'_> {
    fn title(&self) -> String {
        format!("errband energy: {}", self.file)
    }
    fn headline(&self) -> String {
        self.verdict().unwrap_or_default()
    }
    fn text(&self) -> String {
        EnergyReport::text(self)
    }
    fn markdown(&self) -> String {
        EnergyReport::markdown(self)
    }
    fn json(&self) -> Json {
        EnergyReport::json(self)
    }
    fn csv(&self) -> String {
        EnergyReport::csv(self)
    }
    fn charts(&self) -> Vec<(&'static str, String)> {
        EnergyPlot::ALL.iter().map(|&(name, kind)| (name, self.plot(kind))).collect()
    }
}
