//! The options of `ms predict` as text, read into a grid, processor counts,
//! a [`Machine`] and subset specs: one parser for the command line and the
//! Python package (one meaning, one message naming the command-line flag).

use super::{check_procs, parse_subset, LogGp, Machine, MsError, SubsetSpec};
use crate::data::tasks::{grid_size, DEFAULT_MAX_TASKS};
use crate::limits::Limits;
use crate::model::value_list;
use crate::num::{fmt_fraction, Rat};
use crate::units::{parse_quantity, Dim};
use num_traits::{Signed, ToPrimitive};

/// `1024x1024` → [1024, 1024] (option `flag`).
pub fn grid(text: &str, flag: &str) -> Result<Vec<u32>, String> {
    let parts: Vec<&str> = text.split(['x', 'X', '×']).collect();
    if parts.len() > 8 {
        return Err(format!("{flag} {text}: at most 8 dimensions"));
    }
    parts
        .iter()
        .map(|p| {
            p.trim().parse::<u32>().ok().filter(|&c| c >= 1).ok_or_else(|| {
                format!("{flag} {text}: `{p}` is not an extent (a whole number ≥ 1); write e.g. 1024x1024")
            })
        })
        .collect()
}

/// `--procs`: processor counts (the master included), sorted, each once.
pub fn procs(texts: &[String], limits: &Limits) -> Result<Vec<u64>, MsError> {
    let mut out = Vec::new();
    for text in texts {
        for v in value_list(text, "--procs", limits).map_err(|d| MsError::Input(d.render(text)))? {
            let n = v.is_integer().then(|| v.to_integer().to_u64()).flatten().ok_or_else(|| {
                MsError::Input(format!(
                    "--procs {text}: {} is not a processor count (a whole number ≥ 2)",
                    fmt_fraction(&v)
                ))
            })?;
            out.push(n);
        }
    }
    out.sort_unstable();
    out.dedup();
    check_procs(&out)?;
    Ok(out)
}

/// A byte count of option `flag` (`16B`, `1KiB`).
pub fn bytes(text: &str, flag: &str) -> Result<Rat, String> {
    let v = parse_quantity(text, Dim::Bytes, "B", flag)?;
    if v.is_negative() {
        return Err(format!("{flag} {text}: a byte count cannot be negative"));
    }
    Ok(v)
}

/// The options of `ms predict`, as written.
#[derive(Debug, Clone)]
pub struct TextOptions {
    /// `--grid`.
    pub grid: String,
    /// `--procs`.
    pub procs: Vec<String>,
    /// `--loggp`.
    pub loggp: String,
    /// `--k-in`, `--k-out`.
    pub k_in: String,
    /// See `k_in`.
    pub k_out: String,
    /// `--ratio`.
    pub ratio: String,
    /// `--no-p1-recv`.
    pub no_p1_recv: bool,
    /// `--compare-subsets`.
    pub compare_subsets: Vec<String>,
    /// `--time-unit`.
    pub unit: String,
    /// `--max-tasks`.
    pub max_tasks: u64,
}

impl Default for TextOptions {
    fn default() -> Self {
        TextOptions {
            grid: String::new(),
            procs: vec!["8..128:8".into()],
            loggp: String::new(),
            k_in: "16B".into(),
            k_out: "8B".into(),
            ratio: "1".into(),
            no_p1_recv: false,
            compare_subsets: Vec::new(),
            unit: "us".into(),
            max_tasks: DEFAULT_MAX_TASKS,
        }
    }
}

/// What the options say.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// The full grid's extents.
    pub grid: Vec<u32>,
    /// Its number of tasks.
    pub tasks: usize,
    /// Processor counts.
    pub procs: Vec<u64>,
    /// The machine, per-slave ratios empty (the caller reads `--speeds`).
    pub machine: Machine,
    /// Subsets to compare.
    pub subsets: Vec<SubsetSpec>,
}

impl TextOptions {
    /// Reads every option.
    pub fn parse(&self, limits: &Limits) -> Result<Parsed, MsError> {
        let input = MsError::Input;
        let grid = grid(&self.grid, "--grid").map_err(input)?;
        let tasks = grid_size(&grid, self.max_tasks).map_err(input)? as usize;
        let procs = procs(&self.procs, limits)?;
        crate::units::factor_or_err(Dim::Time, &self.unit, "--time-unit").map_err(input)?;
        let loggp = LogGp::default().with(&self.loggp, &self.unit).map_err(input)?;
        let ratio = crate::num::parse_rat(&self.ratio)
            .ok()
            .filter(Signed::is_positive)
            .ok_or_else(|| MsError::Input(format!("--ratio {}: expected a positive number", self.ratio)))?;
        let machine = Machine {
            loggp,
            ratios: Vec::new(),
            uniform_ratio: ratio,
            k_in: bytes(&self.k_in, "--k-in").map_err(input)?,
            k_out: bytes(&self.k_out, "--k-out").map_err(input)?,
            p1_recv: !self.no_p1_recv,
        };
        let subsets = self
            .compare_subsets
            .iter()
            .map(|s| parse_subset(s, &grid))
            .collect::<Result<Vec<_>, _>>()
            .map_err(input)?;
        Ok(Parsed { grid, tasks, procs, machine, subsets })
    }
}
