//! `--timings`: the wall-clock time of each phase of a run, written as one
//! line on standard error when the run ends, so that the same flag reads
//! the same on every command that takes it.

use std::time::{Duration, Instant};

/// The phases of one run, timed from its start.
pub(crate) struct Timings {
    start: Instant,
    mark: Instant,
    /// Each phase: its name, what it covered (shown in parentheses), its time.
    phases: Vec<(&'static str, Option<String>, Duration)>,
}

impl Timings {
    /// Starts the clock.
    pub(crate) fn start() -> Timings {
        let now = Instant::now();
        Timings { start: now, mark: now, phases: Vec::new() }
    }

    /// Ends the phase that ran since the last lap (or the start), named
    /// `name`.
    pub(crate) fn lap(&mut self, name: &'static str) {
        self.end(name, None);
    }

    /// [`Timings::lap`] with what the phase covered (`14 series: fit, …`).
    pub(crate) fn lap_covering(&mut self, name: &'static str, covered: impl Into<String>) {
        self.end(name, Some(covered.into()));
    }

    fn end(&mut self, name: &'static str, covered: Option<String>) {
        let now = Instant::now();
        self.phases.push((name, covered, now - self.mark));
        self.mark = now;
    }

    /// `timings: parse 0.6 ms, analysis 3.0 ms (fit, …), output 0.5 ms,
    /// total 4.2 ms`: every phase ended so far, and the time since the start.
    pub(crate) fn line(&self) -> String {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let mut out = String::from("timings: ");
        for (name, covered, d) in &self.phases {
            out.push_str(&format!("{name} {:.1} ms", ms(*d)));
            if let Some(c) = covered {
                out.push_str(&format!(" ({c})"));
            }
            out.push_str(", ");
        }
        out.push_str(&format!("total {:.1} ms", ms(self.start.elapsed())));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_every_phase_in_order_and_the_total() {
        let mut t = Timings::start();
        t.lap("parse");
        std::thread::sleep(Duration::from_millis(2));
        t.lap_covering("analysis", "fit, e_max");
        t.lap("output");
        let line = t.line();
        let parse = line.find("parse ").unwrap();
        let analysis = line.find("analysis ").unwrap();
        let output = line.find("output ").unwrap();
        let total = line.find("total ").unwrap();
        assert!(line.starts_with("timings: parse "), "{line}");
        assert!(parse < analysis && analysis < output && output < total, "{line}");
        assert!(line.contains(" ms (fit, e_max), output "), "{line}");
        // The sleep lies inside the analysis phase, and so inside the total.
        let value = |at: usize| -> f64 {
            let rest = &line[at..];
            let rest = &rest[rest.find(' ').unwrap() + 1..];
            rest[..rest.find(' ').unwrap()].parse().unwrap()
        };
        assert!(value(analysis) >= 2.0 && value(total) >= value(analysis), "{line}");
    }

    #[test]
    fn a_run_without_phases_has_its_total() {
        assert!(Timings::start().line().starts_with("timings: total "));
    }
}
