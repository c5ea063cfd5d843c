//! The barrier predictor's options as text, read into [`Settings`]: what the
//! command line and the Python package both parse (one meaning, one
//! message, naming the command-line flag). The MPI_Barrier reference is
//! given apart: a time here, or a fitted model the caller loads.

use super::{Reference, Settings, Tree};
use crate::limits::Limits;
use crate::model::value_list;
use crate::num::{fmt_fraction, Interval, Rat};
use crate::units::{factor_or_err, parse_quantity_items, Dim};
use num_traits::ToPrimitive;

/// The options of `errband barrier`, as written.
#[derive(Debug, Clone)]
pub struct TextOptions {
    /// `--nodes`: lists and ranges, each N ≥ 2.
    pub nodes: Vec<String>,
    /// `--per-chassis`.
    pub per_chassis: u64,
    /// `--root-fanout`.
    pub root_fanout: Option<u64>,
    /// `--inter-fanout`.
    pub inter_fanout: Option<u64>,
    /// `--t-ib`: one time or interval.
    pub t_ib: String,
    /// `--t-sr`: times, intervals, stepped lists.
    pub t_sr: Vec<String>,
    /// `--mpi`: the MPI_Barrier time, when it is given rather than fitted.
    pub mpi: Option<String>,
    /// `--conclude-at`.
    pub conclude_at: Vec<u64>,
    /// `--time-unit`: of the times shown and of bare numbers.
    pub unit: String,
}

impl Default for TextOptions {
    fn default() -> Self {
        TextOptions {
            nodes: vec!["2..30".into()],
            per_chassis: 3,
            root_fanout: None,
            inter_fanout: None,
            t_ib: "3.86us".into(),
            t_sr: vec!["60us,120us".into()],
            mpi: None,
            conclude_at: Vec::new(),
            unit: "us".into(),
        }
    }
}

/// `--nodes TEXT`: node counts, whole numbers ≥ 2.
pub fn nodes(text: &str, limits: &Limits) -> Result<Vec<u64>, String> {
    let mut out = Vec::new();
    for v in value_list(text, "--nodes", limits).map_err(|d| d.render(text))? {
        let n = v.is_integer().then(|| v.to_integer().to_u64()).flatten().ok_or_else(|| {
            format!("--nodes {text}: {} is not a node count (a whole number ≥ 2)", fmt_fraction(&v))
        })?;
        if n < 2 {
            return Err(format!("--nodes {text}: N = {n}; a barrier needs at least 2 nodes"));
        }
        out.push(n);
    }
    Ok(out)
}

/// One time or interval (`3.86us`, `2.7us..3.86us`) of option `flag`, bare
/// numbers in `unit`.
pub fn one_time(text: &str, flag: &str, unit: &str) -> Result<Interval, String> {
    let mut v = parse_quantity_items(text, Dim::Time, unit, flag)?;
    if v.len() != 1 {
        return Err(format!("{flag} {text}: expected one time or one interval (`a..b`), not a list"));
    }
    Ok(v.remove(0))
}

impl TextOptions {
    /// Seconds per unit of `--time-unit`.
    pub fn unit_factor(&self) -> Result<Rat, String> {
        factor_or_err(Dim::Time, &self.unit, "--time-unit")
    }

    /// The settings, with `--mpi`'s time as the reference (or none: a
    /// caller that fits an MPI_Barrier model sets [`Reference::Model`]).
    pub fn settings(&self, limits: &Limits) -> Result<Settings, String> {
        let mut node_list = Vec::new();
        for n in &self.nodes {
            node_list.extend(nodes(n, limits)?);
        }
        node_list.sort_unstable();
        node_list.dedup();
        let tree =
            Tree::new(self.per_chassis, self.root_fanout, self.inter_fanout).map_err(|e| e.to_string())?;
        let t_ib = one_time(&self.t_ib, "--t-ib", &self.unit)?;
        let mut t_sr: Vec<Interval> = Vec::new();
        for t in &self.t_sr {
            for c in parse_quantity_items(t, Dim::Time, &self.unit, "--t-sr")? {
                if !t_sr.contains(&c) {
                    t_sr.push(c);
                }
            }
        }
        let reference = match &self.mpi {
            Some(m) => Some(Reference::Constant(one_time(m, "--mpi", &self.unit)?)),
            None => None,
        };
        Ok(Settings { nodes: node_list, tree, t_ib, t_sr, reference, conclude_at: self.conclude_at.clone() })
    }
}
