//! Renders a barrier prediction ([`crate::barrier::Prediction`]): terminal
//! report, JSON (exact values in seconds), CSV (long form), Markdown and the
//! plot of T_EB(N) per T_SR case against MPI_Barrier with its band (\[H\]
//! Fig. 11).

use super::{csv_line, md_escape, md_row, md_table_head, table};
use crate::analysis::Band;
use crate::barrier::{Layout, Prediction, Row, Verdict};
use crate::document::barrier::BarrierDocument;
use crate::num::{self, fmt_fraction, fmt_sig, to_f64, Interval, Rat};
use crate::plot::{Axis, Chart, Mark, Series, SeriesKind};
use num_traits::Signed;
use rayon::prelude::*;
use serde_json::Value as Json;

/// What to render.
pub struct BarrierReport<'a> {
    /// The prediction.
    pub pred: &'a Prediction,
    /// Display unit of times (`us`).
    pub unit: &'a str,
    /// Seconds per display unit.
    pub unit_factor: &'a Rat,
    /// Where the reference came from, for the heading.
    pub reference_text: String,
    /// Significant digits of decimals.
    pub digits: usize,
    /// Exact fractions in text and Markdown.
    pub exact: bool,
    /// Text shown before the text report (the MPI_Barrier model's own
    /// report, with `--show-fit`); empty for none.
    pub preface: String,
}

/// Node counts as text, consecutive ones joined: `2..30, 33..40, 64, 120`.
fn node_list(ns: &[u64]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < ns.len() {
        let mut j = i;
        while j + 1 < ns.len() && ns[j + 1] == ns[j] + 1 {
            j += 1;
        }
        parts.push(if i == j { ns[i].to_string() } else { format!("{}..{}", ns[i], ns[j]) });
        i = j + 1;
    }
    parts.join(", ")
}

/// What a verdict means in a sentence.
fn who(v: Verdict) -> &'static str {
    match v {
        Verdict::Chassis => "the chassis network wins",
        Verdict::Mpi => "MPI_Barrier wins",
        Verdict::Tie => "they tie",
        Verdict::Undecided => "either may win",
    }
}

/// `v` for a one-valued range, else `[lo, hi]` (`-inf`/`+inf` for a missing end).
fn ends(lo: Option<&Rat>, hi: Option<&Rat>, show: &dyn Fn(&Rat) -> String) -> String {
    match (lo, hi) {
        // By cross-multiplication: `==` on fractions divides them.
        (Some(l), Some(u)) if num::cmp_unreduced(l, u).is_eq() => show(l),
        (l, u) => format!("[{}, {}]", l.map_or("-inf".into(), show), u.map_or("+inf".into(), show)),
    }
}

impl BarrierReport<'_> {
    fn num(&self, x: &Rat) -> String {
        if self.exact {
            fmt_fraction(&num::div(x, self.unit_factor))
        } else {
            fmt_sig(&num::div_unreduced(x, self.unit_factor), self.digits)
        }
    }
    fn iv(&self, i: &Interval) -> String {
        ends(Some(&i.lo), Some(&i.hi), &|x| self.num(x))
    }
    fn band(&self, b: &Band) -> String {
        ends(b.lower.as_ref(), b.upper.as_ref(), &|x| self.num(x))
    }
    /// A dimensionless band (a ratio).
    fn ratio(&self, b: &Option<Band>) -> String {
        let show = |x: &Rat| if self.exact { fmt_fraction(x) } else { fmt_sig(x, self.digits.min(4)) };
        b.as_ref().map_or("-".into(), |b| format!("×{}", ends(b.lower.as_ref(), b.upper.as_ref(), &show)))
    }
    fn case(&self, i: &Interval) -> String {
        if num::cmp_unreduced(&i.lo, &i.hi).is_eq() {
            format!("{} {}", self.num(&i.lo), self.unit)
        } else {
            format!("{}..{} {}", self.num(&i.lo), self.num(&i.hi), self.unit)
        }
    }
    fn col_label(&self, c: usize) -> String {
        let col = &self.pred.columns[c];
        if col.band {
            format!("@{}", col.label)
        } else {
            col.label.clone()
        }
    }
    fn li(l: &Layout) -> String {
        l.inter_levels.map_or("-".into(), |l| l.to_string())
    }

    /// The tree and formula lines.
    fn heading(&self) -> String {
        let s = &self.pred.settings;
        let t = s.tree;
        let mut o = format!(
            "Chassis tree: {} node{} per chassis, root fan-out {}, inter-level fan-out {}; T_IB = {}\n",
            t.per_chassis,
            super::plural(t.per_chassis as usize),
            t.root_fanout,
            t.inter_fanout,
            self.case(&s.t_ib)
        );
        o.push_str("T_EB = T_IB on one chassis, else (4 + 3·L_i)·T_IB + 3·(L_i + 1)·T_SR (Hayakawa [H], section 5.2)\n");
        o.push_str(&format!(
            "T_SR cases: {}\n",
            s.t_sr.iter().map(|c| self.case(c)).collect::<Vec<_>>().join(", ")
        ));
        o.push_str(&format!("MPI_Barrier: {}\n", self.reference_text));
        o
    }

    /// Rows of the main table: tree, T_EB per case, MPI_Barrier and the crossover per column.
    fn times_rows(&self) -> Vec<Vec<String>> {
        let p = self.pred;
        let mut head = vec!["N".to_string(), "chassis".into(), "L_i".into()];
        for c in &p.settings.t_sr {
            head.push(format!("T_EB @T_SR={}", self.case(c).replace(' ', "")));
        }
        for c in 0..p.columns.len() {
            head.push(format!("MPI {}", self.col_label(c)));
        }
        for c in 0..p.columns.len() {
            head.push(format!("T_SR* {}", self.col_label(c)));
        }
        // Rows in parallel (correctly rounded decimals of long fractions), in order.
        let mut rows = vec![head];
        rows.par_extend(p.rows.par_iter().map(|r| {
            let mut row = vec![r.layout.nodes.to_string(), r.layout.chassis.to_string(), Self::li(&r.layout)];
            row.extend(r.t_eb.iter().map(|t| self.iv(t)));
            row.extend(r.mpi.iter().map(|m| self.band(m)));
            row.extend(r.crossover.iter().map(|c| c.as_ref().map_or("-".into(), |c| self.band(c))));
            row
        }));
        rows
    }

    /// Rows comparing one case with every reference column.
    fn versus_rows(&self, case: usize) -> Vec<Vec<String>> {
        let p = self.pred;
        let mut head = vec!["N".to_string()];
        for c in 0..p.columns.len() {
            head.push(format!("MPI − T_EB {}", self.col_label(c)));
            head.push(format!("MPI/T_EB {}", self.col_label(c)));
            head.push(format!("winner {}", self.col_label(c)));
        }
        let mut rows = vec![head];
        rows.par_extend(p.rows.par_iter().map(|r| {
            let mut row = vec![r.layout.nodes.to_string()];
            for v in &r.versus[case] {
                row.push(self.band(&v.margin));
                row.push(self.ratio(&v.speedup));
                row.push(v.verdict.name().into());
            }
            row
        }));
        rows
    }

    /// Per case and column: who wins at which of the listed node counts.
    pub fn summary(&self) -> Vec<String> {
        let p = self.pred;
        let mut out = Vec::new();
        for (ci, c) in p.settings.t_sr.iter().enumerate() {
            for (col, column) in p.columns.iter().enumerate() {
                let parts: Vec<String> = [Verdict::Chassis, Verdict::Mpi, Verdict::Tie, Verdict::Undecided]
                    .into_iter()
                    .filter_map(|v| {
                        let ns: Vec<u64> = p
                            .rows
                            .iter()
                            .filter(|r| r.versus[ci][col].verdict == v)
                            .map(|r| r.layout.nodes)
                            .collect();
                        (!ns.is_empty()).then(|| format!("{} for N = {}", who(v), node_list(&ns)))
                    })
                    .collect();
                let at =
                    if column.band { format!(", band at threshold {}", column.label) } else { String::new() };
                out.push(format!("T_SR = {}{at}: {}", self.case(c), parts.join("; ")));
            }
        }
        out
    }

    /// The paper's conclusion restated for these inputs, one sentence per
    /// node count of `--at` (default: the largest listed): the T_SR below
    /// which the chassis network wins.
    pub fn conclusions(&self) -> Vec<String> {
        let p = self.pred;
        if p.columns.is_empty() {
            return Vec::new();
        }
        let at: Vec<u64> = if p.settings.conclude_at.is_empty() {
            p.rows.last().map(|r| r.layout.nodes).into_iter().collect()
        } else {
            p.settings.conclude_at.clone()
        };
        at.iter()
            .filter_map(|&n| p.rows.iter().find(|r| r.layout.nodes == n))
            .filter_map(|r| self.conclusion(r))
            .collect()
    }

    fn conclusion(&self, r: &Row) -> Option<String> {
        let p = self.pred;
        let n = r.layout.nodes;
        let Some(l) = r.layout.inter_levels else {
            let v = r.versus.first().and_then(|v| v.first())?.verdict;
            return Some(format!(
                "At N = {n} (one chassis) T_EB = T_IB does not depend on T_SR: {}.",
                who(v)
            ));
        };
        let first = r.crossover.first().cloned().flatten()?;
        let below = |b: &Band| -> String {
            match (&b.lower, &b.upper) {
                (_, Some(u)) if !u.is_positive() => {
                    "for no T_SR ≥ 0 (T_EB exceeds MPI_Barrier already at T_SR = 0)".into()
                }
                (Some(l), Some(u)) if l == u => format!("for T_SR below {} {}", self.num(l), self.unit),
                _ => format!("for T_SR below {} {}", self.band(b), self.unit),
            }
        };
        let mut s = format!("At N = {n} (L_i = {l}) the chassis network wins {}", below(&first));
        for (c, x) in p.columns.iter().zip(&r.crossover).skip(1) {
            if let Some(x) = x {
                s.push_str(&format!("; with the band at threshold {}: {}", c.label, below(x)));
            }
        }
        s.push('.');
        Some(s)
    }

    /// Terminal report.
    pub fn text(&self) -> String {
        let p = self.pred;
        let mut s = self.heading();
        s.push_str(&format!("\nTimes ({}; T_SR* = the T_SR at which T_EB equals MPI_Barrier)\n", self.unit));
        s.push_str(&table(&self.times_rows(), 2));
        if !p.columns.is_empty() {
            for (ci, c) in p.settings.t_sr.iter().enumerate() {
                s.push_str(&format!(
                    "\nT_SR = {}: MPI_Barrier − T_EB ({}; positive: the chassis network wins)\n",
                    self.case(c),
                    self.unit
                ));
                s.push_str(&table(&self.versus_rows(ci), 2));
            }
            s.push_str("\nSummary (at the listed N)\n");
            for line in self.summary() {
                s.push_str(&format!("  {line}\n"));
            }
            let cs = self.conclusions();
            if !cs.is_empty() {
                s.push('\n');
            }
            for c in cs {
                s.push_str(&format!("{c}\n"));
            }
        }
        if !p.warnings.is_empty() {
            s.push_str("\nNotes\n");
            for w in &p.warnings {
                s.push_str(&format!("  - {w}\n"));
            }
        }
        s
    }

    /// Markdown: the same tables.
    pub fn markdown(&self) -> String {
        let p = self.pred;
        let mut s = String::from("# errband barrier\n\n");
        for line in self.heading().lines() {
            s.push_str(&format!("- {}\n", md_escape(line)));
        }
        let md = |rows: &[Vec<String>]| -> String {
            let esc = |r: &Vec<String>| r.iter().map(|c| md_escape(c)).collect::<Vec<_>>();
            let mut t = md_table_head(&esc(&rows[0]));
            for r in &rows[1..] {
                t.push_str(&md_row(&esc(r)));
            }
            t
        };
        s.push_str(&format!("\n## Times ({})\n\n", self.unit));
        s.push_str(&md(&self.times_rows()));
        if !p.columns.is_empty() {
            for (ci, c) in p.settings.t_sr.iter().enumerate() {
                s.push_str(&format!("\n## T_SR = {}\n\n", md_escape(&self.case(c))));
                s.push_str(&md(&self.versus_rows(ci)));
            }
            s.push_str("\n## Summary\n\n");
            for line in self.summary() {
                s.push_str(&format!("- {}\n", md_escape(&line)));
            }
            for c in self.conclusions() {
                s.push_str(&format!("\n{}\n", md_escape(&c)));
            }
        }
        if !p.warnings.is_empty() {
            s.push_str("\n## Notes\n\n");
            for w in &p.warnings {
                s.push_str(&format!("- {}\n", md_escape(w)));
            }
        }
        s
    }

    /// JSON: exact values in seconds ([`BarrierDocument`]).
    pub fn json(&self) -> Json {
        let doc = BarrierDocument::new(self.pred, self.summary(), self.conclusions(), self.digits);
        crate::document::to_value(&doc)
    }

    /// CSV, one record per node count, quantity, T_SR case and reference
    /// column: `nodes,chassis,inter_levels,quantity,t_sr_case,column,lower,upper,winner`
    /// (times in the display unit as 17-digit decimals; ratios plain).
    pub fn csv(&self) -> String {
        let p = self.pred;
        let mut s = csv_line(
            &[
                "nodes",
                "chassis",
                "inter_levels",
                "quantity",
                "unit",
                "t_sr_case",
                "column",
                "lower",
                "upper",
                "winner",
            ]
            .map(String::from),
        );
        let t = |x: &Rat| fmt_sig(&num::div_unreduced(x, self.unit_factor), 17);
        let r17 = |x: &Rat| fmt_sig(x, 17);
        let opt = |x: &Option<Rat>, f: &dyn Fn(&Rat) -> String| x.as_ref().map_or(String::new(), f);
        for r in &p.rows {
            let base = [
                r.layout.nodes.to_string(),
                r.layout.chassis.to_string(),
                r.layout.inter_levels.map_or(String::new(), |l| l.to_string()),
            ];
            let mut line =
                |q: &str, unit: &str, case: String, col: String, lo: String, hi: String, win: &str| {
                    let mut cells = base.to_vec();
                    cells.extend([q.to_string(), unit.to_string(), case, col, lo, hi, win.to_string()]);
                    s.push_str(&csv_line(&cells));
                };
            for (ci, te) in r.t_eb.iter().enumerate() {
                line(
                    "t_eb",
                    self.unit,
                    self.case(&p.settings.t_sr[ci]),
                    String::new(),
                    t(&te.lo),
                    t(&te.hi),
                    "",
                );
            }
            for (c, m) in p.columns.iter().zip(&r.mpi) {
                line(
                    "mpi",
                    self.unit,
                    String::new(),
                    c.label.clone(),
                    opt(&m.lower, &t),
                    opt(&m.upper, &t),
                    "",
                );
            }
            for (ci, vs) in r.versus.iter().enumerate() {
                for (c, v) in p.columns.iter().zip(vs) {
                    let case = self.case(&p.settings.t_sr[ci]);
                    line(
                        "margin",
                        self.unit,
                        case.clone(),
                        c.label.clone(),
                        opt(&v.margin.lower, &t),
                        opt(&v.margin.upper, &t),
                        v.verdict.name(),
                    );
                    if let Some(sp) = &v.speedup {
                        line(
                            "speedup",
                            "",
                            case,
                            c.label.clone(),
                            opt(&sp.lower, &r17),
                            opt(&sp.upper, &r17),
                            "",
                        );
                    }
                }
            }
            for (c, x) in p.columns.iter().zip(&r.crossover) {
                if let Some(x) = x {
                    line(
                        "crossover_t_sr",
                        self.unit,
                        String::new(),
                        c.label.clone(),
                        opt(&x.lower, &t),
                        opt(&x.upper, &t),
                        "",
                    );
                }
            }
        }
        s
    }

    /// T_EB(N) per T_SR case against MPI_Barrier with its band (\[H\]
    /// Fig. 11); markers at the listed N, curves over [`Prediction::curve`].
    pub fn plot(&self) -> String {
        let p = self.pred;
        let cv = &p.curve;
        let xs: Vec<f64> = cv.iter().map(|c| c.nodes as f64).collect();
        let (xmin, xmax) = (xs.first().copied().unwrap_or(1.0), xs.last().copied().unwrap_or(1.0));
        let x = if xmax / xmin > 200.0 { Axis::log("nodes N") } else { Axis::linear("nodes N") };
        let mut chart = Chart::new(
            "Cluster barrier: chassis network T_EB(N) vs MPI_Barrier",
            x,
            Axis::linear(format!("time ({})", crate::units::display(self.unit))),
        );
        let y = |v: &Rat| to_f64(&num::div_unreduced(v, self.unit_factor));
        let listed = |n: u64| p.rows.iter().any(|r| r.layout.nodes == n);
        // MPI_Barrier: its bands underneath (one-valued ones are left out), then the value.
        for (c, col) in p.columns.iter().enumerate().rev() {
            let ends: Vec<(f64, Option<f64>, Option<f64>)> = cv
                .iter()
                .zip(&xs)
                .map(|(pt, &xv)| (xv, pt.mpi[c].lower.as_ref().map(y), pt.mpi[c].upper.as_ref().map(y)))
                .collect();
            let bounded = ends.iter().all(|(_, l, u)| l.is_some() && u.is_some());
            let one_valued = ends.iter().all(|(_, l, u)| l == u);
            if col.band && bounded && !one_valued {
                let lower = ends.iter().map(|&(xv, l, _)| (xv, l.unwrap_or(f64::NAN))).collect();
                let upper = ends.iter().map(|&(xv, _, u)| (xv, u.unwrap_or(f64::NAN))).collect();
                let name = if col.label == "given" {
                    "MPI_Barrier (given interval)".to_string()
                } else {
                    format!("MPI_Barrier band (threshold {})", col.label)
                };
                chart
                    .series
                    .push(Series::new(name, SeriesKind::Band { lower, upper, light: false }).color(0));
            } else if !col.band {
                let line: Vec<(f64, f64)> =
                    ends.iter().map(|&(xv, l, _)| (xv, l.unwrap_or(f64::NAN))).collect();
                let name =
                    if col.label == "fit" { "MPI_Barrier (fitted model)" } else { "MPI_Barrier (given)" };
                chart.series.push(Series::new(name, SeriesKind::Line { pts: line, dashed: false }).color(0));
            }
        }
        let marks = [Mark::Circle, Mark::Square, Mark::Triangle, Mark::Diamond, Mark::Cross];
        let point_ib = p.settings.t_ib.lo == p.settings.t_ib.hi;
        for (ci, c) in p.settings.t_sr.iter().enumerate() {
            let name = format!("T_EB, T_SR = {}", self.case(c));
            let lo: Vec<(f64, f64)> = cv.iter().zip(&xs).map(|(pt, &xv)| (xv, y(&pt.t_eb[ci].lo))).collect();
            if c.lo == c.hi && point_ib {
                let marked: Vec<(f64, f64)> =
                    cv.iter().zip(&lo).filter(|(pt, _)| listed(pt.nodes)).map(|(_, &q)| q).collect();
                chart
                    .series
                    .push(Series::new(name, SeriesKind::Line { pts: lo, dashed: false }).color(ci + 1));
                chart.series.push(
                    Series::new("", SeriesKind::Points { pts: marked, mark: marks[ci % marks.len()] })
                        .color(ci + 1),
                );
            } else {
                let hi: Vec<(f64, f64)> =
                    cv.iter().zip(&xs).map(|(pt, &xv)| (xv, y(&pt.t_eb[ci].hi))).collect();
                chart.series.push(
                    Series::new(name, SeriesKind::Band { lower: lo, upper: hi, light: false }).color(ci + 1),
                );
            }
        }
        chart.svg()
    }
}

impl super::CommandReport for BarrierReport<'_> {
    fn title(&self) -> String {
        "errband barrier: chassis network against MPI_Barrier".into()
    }
    fn headline(&self) -> String {
        self.conclusions().join(" ")
    }
    fn text(&self) -> String {
        format!("{}{}", self.preface, BarrierReport::text(self))
    }
    fn markdown(&self) -> String {
        BarrierReport::markdown(self)
    }
    fn json(&self) -> Json {
        BarrierReport::json(self)
    }
    fn csv(&self) -> String {
        BarrierReport::csv(self)
    }
    fn charts(&self) -> Vec<(&'static str, String)> {
        vec![("teb", self.plot())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_lists_join_consecutive_counts() {
        assert_eq!(node_list(&[2, 3, 4, 8, 16, 17]), "2..4, 8, 16..17");
        assert_eq!(node_list(&[5]), "5");
        assert_eq!(node_list(&[]), "");
    }
}
