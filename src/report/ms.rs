//! Renders a master/slave prediction ([`crate::ms::Prediction`]) and a
//! subset comparison ([`crate::ms::Comparison`]): terminal report, JSON
//! (exact fractions in seconds), CSV (one record per subset and P),
//! Markdown, and the plot of predicted run time against P per subset
//! (\[M\] Fig. 5).

use super::{csv_line, md_escape, md_row, md_table_head, table};
use crate::document::ms::{MsDocument, MsInputs};
use crate::ms::{Comparison, LogGp, Machine, Point, Prediction, SubsetResult};
use crate::num::{self, fmt_fraction, fmt_sig, to_f64, Rat};
use crate::plot::{Axis, Chart, Mark, Series, SeriesKind};
use num_traits::{Signed, Zero};
use serde_json::Value as Json;

/// What to render.
pub struct MsReport<'a> {
    /// The task file, as named on the command line.
    pub file: &'a str,
    /// The grid.
    pub grid: &'a [u32],
    /// Sampled indices per dimension of the prediction's tasks.
    pub sub_grid: Vec<usize>,
    /// The machine.
    pub machine: &'a Machine,
    /// The speeds file, if any.
    pub speeds_file: Option<&'a str>,
    /// The allocation order file, if any (row-major otherwise).
    pub order_file: Option<&'a str>,
    /// The prediction from the task file.
    pub pred: &'a Prediction,
    /// Subsets compared, if asked.
    pub comparison: Option<&'a Comparison>,
    /// Significant digits of decimals.
    pub digits: usize,
    /// Exact fractions in text, CSV and Markdown.
    pub exact: bool,
    /// Print each slave's busy fraction and task count.
    pub per_slave: bool,
}

/// A display unit for times: its name and seconds per unit.
struct Unit {
    name: &'static str,
    per: Rat,
}

/// The unit that shows `x` (seconds) with one to three integer digits.
fn unit_for(x: &Rat) -> Unit {
    let table: [(&'static str, i64); 4] = [("s", 1), ("ms", 1_000), ("us", 1_000_000), ("ns", 1_000_000_000)];
    for (name, d) in table {
        let per = num::frac(1, d);
        if x >= &per || name == "ns" {
            return Unit { name, per };
        }
    }
    Unit { name: "s", per: num::int(1) }
}

fn joined(xs: &[impl ToString], sep: &str) -> String {
    xs.iter().map(ToString::to_string).collect::<Vec<_>>().join(sep)
}

impl MsReport<'_> {
    /// The unit run times are shown in: the one fitting the longest.
    fn run_unit(&self) -> Unit {
        let max = self.pred.points.iter().map(|p| &p.time).max().cloned().unwrap_or_else(Rat::zero);
        unit_for(&max)
    }

    fn t(&self, x: &Rat, u: &Unit) -> String {
        if self.exact {
            format!("{} s", fmt_fraction(x))
        } else {
            format!("{} {}", fmt_sig(&num::div_unreduced(x, &u.per), self.digits), u.name)
        }
    }

    /// A time in the unit that suits it.
    fn time(&self, x: &Rat) -> String {
        self.t(x, &unit_for(&x.abs()))
    }

    fn pct(&self, x: &Rat) -> String {
        if self.exact {
            fmt_fraction(x)
        } else {
            format!("{} %", fmt_sig(&(x * num::int(100)), self.digits.min(4)))
        }
    }

    fn machine_text(&self) -> String {
        let m = self.machine;
        // Parameters are shown as decimals even with --exact (JSON has the fractions).
        let show = |x: &Rat| {
            let u = unit_for(&x.abs());
            format!("{}{}", fmt_sig(&num::div_unreduced(x, &u.per), self.digits.max(6)), u.name)
        };
        let k = |name: &str, col: bool, v: &Rat| {
            if col {
                format!("{name} per task (file)")
            } else {
                format!("{name} = {} B", fmt_sig(v, self.digits))
            }
        };
        let ratios = match (self.speeds_file, m.ratios.is_empty()) {
            (Some(f), false) => format!("per-slave time ratios from {f}"),
            _ => format!("uniform slaves (time ratio {})", fmt_sig(&m.uniform_ratio, self.digits)),
        };
        format!(
            "{}; {}, {}; {ratios}; {}",
            LogGp::describe(&m.loggp, &show),
            k("k_in", self.pred_has_k(true), &m.k_in),
            k("k_out", self.pred_has_k(false), &m.k_out),
            if m.p1_recv { "receive overhead o in P1" } else { "no receive overhead in P1 (--no-p1-recv)" }
        )
    }

    fn pred_has_k(&self, k_in: bool) -> bool {
        self.pred.k_from_file[usize::from(!k_in)]
    }

    fn tasks_text(&self) -> String {
        let p = self.pred;
        let grid = joined(self.grid, "x");
        if p.sampled == p.tasks {
            format!("{}: all {} tasks of grid {grid} measured", self.file, p.tasks)
        } else {
            format!(
                "{}: {} of {} tasks measured on a {} sub-grid of grid {grid}, the rest interpolated",
                self.file,
                p.sampled,
                p.tasks,
                joined(&self.sub_grid, "x")
            )
        }
    }

    fn saturation_text(&self) -> Vec<String> {
        let p = self.pred;
        let mut out = Vec::new();
        match p.saturation {
            Some(n) => out.push(format!(
                "By the mean task cycle the master saturates from about {n} slave{} (P = {}): from there its work per task times the slave count exceeds a slave's cycle, so added slaves mostly wait for it (Mizutani et al. [M], Fig. 6-7).",
                if n == 1 { "" } else { "s" },
                n + 1
            )),
            None => out.push("The master does not saturate at any slave count up to the number of tasks.".into()),
        }
        match p.flat_from {
            Some(pp) => {
                out.push(format!("Among the listed P, the predicted run time stops falling at P = {pp}."))
            }
            None => out.push("Among the listed P, the predicted run time falls all the way.".into()),
        }
        out
    }

    fn point_cells(&self, pt: &Point, u: &Unit) -> Vec<String> {
        let (min, mean, max) = pt.slave_busy_summary();
        vec![
            pt.procs.to_string(),
            pt.slaves().to_string(),
            self.t(&pt.time, u),
            self.pct(&pt.master_busy),
            self.pct(&min),
            self.pct(&mean),
            self.pct(&max),
            pt.queued.to_string(),
        ]
    }

    fn head() -> Vec<String> {
        ["P", "slaves", "run time", "master busy", "slave busy min", "mean", "max", "results queued"]
            .map(String::from)
            .to_vec()
    }

    /// The terminal report.
    pub fn text(&self) -> String {
        let p = self.pred;
        let mut s = String::from("errband ms: master/slave run-time prediction (Mizutani et al. [M])\n");
        s += &format!("  tasks:   {}\n", self.tasks_text());
        s += &format!(
            "           total task time A = {}, mean {}, longest {}\n",
            self.time(&p.total_time),
            self.time(&num::div(&p.total_time, &num::int(p.tasks.max(1) as i64))),
            self.time(&self.max_task())
        );
        s += &format!("  machine: {}\n", self.machine_text());
        s += &format!(
            "  order:   {}\n",
            self.order_file.map_or("row-major (the last index fastest)".to_string(), |f| format!("from {f}"))
        );
        for w in &p.warnings {
            s += &format!("  warning: {w}\n");
        }
        s.push('\n');
        let u = self.run_unit();
        let mut rows = vec![Self::head()];
        rows.extend(p.points.iter().map(|pt| self.point_cells(pt, &u)));
        s += &table(&rows, 2);
        s.push('\n');
        for line in self.saturation_text() {
            s += &format!("{line}\n");
        }
        if self.per_slave {
            for pt in &p.points {
                s += &format!("\nP = {}: busy fraction (tasks) per slave\n", pt.procs);
                let cells: Vec<String> = pt
                    .slave_busy
                    .iter()
                    .zip(&pt.slave_tasks)
                    .enumerate()
                    .map(|(i, (b, n))| format!("{:>4}: {} ({n})", i + 1, self.pct(b)))
                    .collect();
                for chunk in cells.chunks(4) {
                    s += &format!("  {}\n", chunk.join("   "));
                }
            }
        }
        if let Some(c) = self.comparison {
            s += &self.comparison_text(c);
        }
        s
    }

    fn max_task(&self) -> Rat {
        self.pred.max_task.clone()
    }

    fn subset_line(&self, c: &Comparison, r: &SubsetResult) -> Vec<String> {
        let deficit = &c.full.total_time - &r.prediction.total_time;
        vec![
            r.spec.label.clone(),
            joined(&r.axes.iter().map(Vec::len).collect::<Vec<_>>(), "x"),
            r.prediction.sampled.to_string(),
            self.time(&r.prediction.total_time),
            self.time(&deficit),
            self.pct(&r.eq3(&c.full)),
            self.pct(&r.max_error(&c.full)),
        ]
    }

    /// Per P: E(S0), E(S), their difference, D, the error and |D|/E(S0).
    fn versus_rows(&self, c: &Comparison, r: &SubsetResult, u: &Unit) -> Vec<Vec<String>> {
        r.versus(&c.full)
            .iter()
            .zip(c.full.points.iter().zip(&r.prediction.points))
            .map(|(v, (f, e))| {
                vec![
                    v.procs.to_string(),
                    self.t(&f.time, u),
                    self.t(&e.time, u),
                    self.time(&v.diff),
                    self.time(&v.deficit_per_slave),
                    self.pct(&v.error),
                    self.pct(&v.explained),
                ]
            })
            .collect()
    }

    fn comparison_text(&self, c: &Comparison) -> String {
        let mut s = String::from(
            "\nSubsets of the fully measured workload against its prediction E(S0) (Mizutani et al. [M], Tables 1, 3, 4)\n",
        );
        let mut rows: Vec<Vec<String>> = vec![[
            "subset",
            "sub-grid",
            "tasks run",
            "total task time A",
            "deficit A0 - A",
            "eq. 3 estimate",
            "max error",
        ]
        .map(String::from)
        .to_vec()];
        rows.push(vec![
            "full (S0)".into(),
            joined(self.grid, "x"),
            c.full.sampled.to_string(),
            self.time(&c.full.total_time),
            "-".into(),
            "-".into(),
            "-".into(),
        ]);
        rows.extend(c.subsets.iter().map(|r| self.subset_line(c, r)));
        s += &table(&rows, 2);
        let u = self.run_unit();
        for r in &c.subsets {
            s += &format!(
                "\n{}: E(S0) - E(S) per P against the deficit per slave D = (A0 - A)/(P - 1) (eq. 2)\n",
                r.spec.label
            );
            let mut rows: Vec<Vec<String>> =
                vec![["P", "E(S0)", "E(S)", "E(S0) - E(S)", "D", "error", "|D|/E(S0)"]
                    .map(String::from)
                    .to_vec()];
            rows.extend(self.versus_rows(c, r, &u));
            s += &table(&rows, 2);
        }
        s += "\nWhile slaves are the bottleneck, E(S0) - E(S) follows D, so the error follows |D|/E(S0), which is eq. 3's\nX = (A0 - A)/A0 times the slaves' compute share A0/((P - 1)E(S0)); once the master saturates, task times\nmatter less and the error shrinks.\n";
        s
    }

    /// JSON: exact values in seconds ([`MsDocument`]).
    pub fn json(&self) -> Json {
        let inputs = MsInputs {
            file: self.file,
            grid: self.grid,
            sub_grid: &self.sub_grid,
            machine: self.machine,
            order_file: self.order_file,
            pred: self.pred,
            comparison: self.comparison,
            summary: self.saturation_text(),
        };
        crate::document::to_value(&MsDocument::new(inputs, self.digits))
    }

    /// CSV: one record per (prediction, P); subset records carry the comparison columns.
    pub fn csv(&self) -> String {
        let mut s = csv_line(
            &[
                "subset",
                "procs",
                "slaves",
                "run_time_s",
                "master_busy",
                "slave_busy_min",
                "slave_busy_mean",
                "slave_busy_max",
                "results_queued",
                "events",
                "diff_s",
                "error",
                "deficit_per_slave_s",
                "deficit_error",
            ]
            .map(String::from),
        );
        let v = |x: &Rat| if self.exact { fmt_fraction(x) } else { fmt_sig(x, self.digits.max(12)) };
        let row = |label: &str, pt: &Point, extra: [String; 4]| {
            let (min, mean, max) = pt.slave_busy_summary();
            let mut cells = vec![
                label.to_string(),
                pt.procs.to_string(),
                pt.slaves().to_string(),
                v(&pt.time),
                v(&pt.master_busy),
                v(&min),
                v(&mean),
                v(&max),
                pt.queued.to_string(),
                pt.events.to_string(),
            ];
            cells.extend(extra);
            csv_line(&cells)
        };
        let empty = || [String::new(), String::new(), String::new(), String::new()];
        match self.comparison {
            None => {
                for pt in &self.pred.points {
                    s += &row("tasks", pt, empty());
                }
            }
            Some(c) => {
                for pt in &c.full.points {
                    s += &row("full", pt, empty());
                }
                for r in &c.subsets {
                    for (vs, pt) in r.versus(&c.full).iter().zip(&r.prediction.points) {
                        s += &row(
                            &r.spec.label,
                            pt,
                            [v(&vs.diff), v(&vs.error), v(&vs.deficit_per_slave), v(&vs.explained)],
                        );
                    }
                }
            }
        }
        s
    }

    /// Markdown.
    pub fn markdown(&self) -> String {
        let p = self.pred;
        let mut s = String::from("# Master/slave run-time prediction (Mizutani et al. [M])\n\n");
        s += &format!("- Tasks: {}\n", md_escape(&self.tasks_text()));
        s += &format!("- Total task time A: {}\n", self.time(&p.total_time));
        s += &format!("- Machine: {}\n", md_escape(&self.machine_text()));
        s += &format!("- Order: {}\n", md_escape(self.order_file.unwrap_or("row-major")));
        for w in &p.warnings {
            s += &format!("- Warning: {}\n", md_escape(w));
        }
        let u = self.run_unit();
        s += "\n";
        s += &md_table_head(&Self::head());
        for pt in &p.points {
            s += &md_row(&self.point_cells(pt, &u));
        }
        s += "\n";
        for line in self.saturation_text() {
            s += &format!("{line}\n");
        }
        if let Some(c) = self.comparison {
            s += "\n## Subsets against the full workload (Mizutani et al. [M], Tables 1, 3, 4)\n\n";
            s += &md_table_head(
                &[
                    "subset",
                    "sub-grid",
                    "tasks run",
                    "total task time A",
                    "deficit A0 - A",
                    "eq. 3 estimate",
                    "max error",
                ]
                .map(String::from),
            );
            for r in &c.subsets {
                s += &md_row(&self.subset_line(c, r).iter().map(|x| md_escape(x)).collect::<Vec<_>>());
            }
            for r in &c.subsets {
                s += &format!("\n### {}\n\n", md_escape(&r.spec.label));
                s += &md_table_head(
                    &["P", "E(S0)", "E(S)", "E(S0) - E(S)", "D = (A0 - A)/(P - 1)", "error", "\\|D\\|/E(S0)"]
                        .map(String::from),
                );
                for row in self.versus_rows(c, r, &u) {
                    s += &md_row(&row);
                }
            }
        }
        s
    }

    /// The plot of predicted run time against P, one line per subset.
    pub fn plot(&self) -> String {
        let u = self.run_unit();
        let mut chart = Chart::new(
            "Master/slave: predicted run time vs processors",
            Axis::linear("processors P (master included)"),
            Axis::linear(format!("predicted run time ({})", crate::units::display(u.name)))
                .range(Some(0.0), None),
        );
        let marks = [Mark::Circle, Mark::Square, Mark::Triangle, Mark::Diamond, Mark::Cross];
        let line = |pred: &Prediction| -> Vec<(f64, f64)> {
            pred.points
                .iter()
                .map(|pt| (pt.procs as f64, to_f64(&num::div_unreduced(&pt.time, &u.per))))
                .collect()
        };
        let mut add = |name: String, pts: Vec<(f64, f64)>, i: usize| {
            chart
                .series
                .push(Series::new(name, SeriesKind::Line { pts: pts.clone(), dashed: i > 0 }).color(i));
            chart
                .series
                .push(Series::new("", SeriesKind::Points { pts, mark: marks[i % marks.len()] }).color(i));
        };
        match self.comparison {
            None => add(format!("{} ({} tasks run)", self.file, self.pred.sampled), line(self.pred), 0),
            Some(c) => {
                add(format!("all tasks (S0, {} tasks run)", c.full.sampled), line(&c.full), 0);
                for (i, r) in c.subsets.iter().enumerate() {
                    add(
                        format!("subset {} ({} tasks run)", r.spec.label, r.prediction.sampled),
                        line(&r.prediction),
                        i + 1,
                    );
                }
            }
        }
        chart.svg()
    }
}

/// Events per second, for `--timing`.
pub fn rate(events: u64, secs: f64) -> String {
    if secs <= 0.0 {
        return "-".into();
    }
    let r = events as f64 / secs;
    format!("{:.1} M events/s", r / 1e6)
}

impl super::CommandReport for MsReport<'_> {
    fn title(&self) -> String {
        format!("errband ms predict: {}", self.file)
    }
    fn headline(&self) -> String {
        String::new()
    }
    fn text(&self) -> String {
        MsReport::text(self)
    }
    fn markdown(&self) -> String {
        MsReport::markdown(self)
    }
    fn json(&self) -> Json {
        MsReport::json(self)
    }
    fn csv(&self) -> String {
        MsReport::csv(self)
    }
    fn charts(&self) -> Vec<(&'static str, String)> {
        vec![("time", self.plot())]
    }
}
