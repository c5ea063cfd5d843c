//! The energy predictor's options as text, read into [`Settings`]: what the
//! command line and the Python package both parse (so a value means the same
//! on both, and is refused with the same message, which names the
//! command-line flag).

use super::input::{self, DefaultUnits, Input, PowerIs};
use super::{Nodes, Objective, Settings};
use crate::analysis::Threshold;
use crate::limits::Limits;
use crate::model::value_list;
use crate::num::{fmt_fraction, Rat};
use crate::units::{factor_or_err, parse_quantity, Dim};

/// The options of `errband energy`, as written.
#[derive(Debug, Clone)]
pub struct TextOptions {
    /// `--nodes`: lists and ranges (`16,64,256`, `2..4096:*2`), `inf`.
    pub nodes: Vec<String>,
    /// `--fstd` (default: the highest measured frequency).
    pub fstd: Option<String>,
    /// `--base-nodes` (default: the smallest count measured at f_std).
    pub base_nodes: Option<String>,
    /// `--overhead-region`.
    pub overhead: Vec<String>,
    /// `--objective`.
    pub objective: Objective,
    /// `--fopt REGION=FREQ`.
    pub fopt: Vec<String>,
    /// `--regions`.
    pub regions: Vec<String>,
    /// `--threshold`.
    pub thresholds: Vec<String>,
    /// `--power`.
    pub power: PowerIs,
    /// `--time-unit`, `--freq-unit`, `--power-unit`.
    pub units: DefaultUnits,
    /// `--precision`: digits of log2 n.
    pub digits: u32,
}

impl Default for TextOptions {
    fn default() -> Self {
        TextOptions {
            nodes: vec!["16,64,256,1024,4096".into()],
            fstd: None,
            base_nodes: None,
            overhead: Vec::new(),
            objective: Objective::Energy,
            fopt: Vec::new(),
            regions: Vec::new(),
            thresholds: Vec::new(),
            power: PowerIs::PerNode,
            units: DefaultUnits { time: "s".into(), freq: "MHz".into(), power: "W".into() },
            digits: crate::num::transcendental::DEFAULT_DIGITS,
        }
    }
}

/// `--nodes TEXT`: node counts (whole numbers ≥ 1) and `inf`.
pub fn nodes(text: &str, limits: &Limits) -> Result<Vec<Nodes>, String> {
    let mut out = Vec::new();
    for piece in text.split(',') {
        let p = piece.trim();
        if matches!(p, "inf" | "∞" | "infinity") {
            out.push(Nodes::Infinity);
            continue;
        }
        for v in value_list(p, "--nodes", limits).map_err(|d| d.render(p))? {
            if !v.is_integer() || v < num_traits::One::one() {
                return Err(format!(
                    "--nodes {text}: {} is not a node count (a whole number ≥ 1)",
                    fmt_fraction(&v)
                ));
            }
            out.push(Nodes::Count(v));
        }
    }
    Ok(out)
}

impl TextOptions {
    /// The settings these options give (limits for the fits' analyses).
    pub fn settings(&self, limits: &Limits) -> Result<Settings, String> {
        let mut node_list = Vec::new();
        for n in &self.nodes {
            for v in nodes(n, limits)? {
                if !node_list.contains(&v) {
                    node_list.push(v);
                }
            }
        }
        let freq = |t: &str, what: &str| parse_quantity(t, Dim::Frequency, &self.units.freq, what);
        let fstd = self.fstd.as_deref().map(|f| freq(f, "--fstd")).transpose()?;
        let base_nodes = match &self.base_nodes {
            None => None,
            Some(b) => Some(
                crate::num::parse_rat(b)
                    .ok()
                    .filter(|v: &Rat| v.is_integer() && *v >= num_traits::One::one())
                    .ok_or_else(|| format!("--base-nodes {b}: expected a whole number ≥ 1"))?,
            ),
        };
        let mut fopt = Vec::new();
        for f in &self.fopt {
            let (r, v) = f
                .split_once('=')
                .ok_or_else(|| format!("--fopt {f}: expected REGION=FREQ, e.g. resid=2000"))?;
            fopt.push((r.trim().to_string(), freq(v, "--fopt")?));
        }
        let thresholds = self
            .thresholds
            .iter()
            .map(|t| Threshold::parse(t).map_err(|d| d.render(t)))
            .collect::<Result<Vec<_>, _>>()?;
        for (dim, u, flag) in [
            (Dim::Time, &self.units.time, "--time-unit"),
            (Dim::Frequency, &self.units.freq, "--freq-unit"),
            (Dim::Power, &self.units.power, "--power-unit"),
        ] {
            factor_or_err(dim, u, flag)?;
        }
        Ok(Settings {
            fstd,
            base_nodes,
            overhead: self.overhead.clone(),
            objective: self.objective,
            fopt,
            thresholds,
            regions: self.regions.iter().map(|r| r.trim().to_string()).filter(|r| !r.is_empty()).collect(),
            nodes: node_list,
            digits: self.digits,
            limits: *limits,
        })
    }

    /// Reads the profile `text` (named `file`) with these options' units and
    /// power convention; errors are located in `text`.
    pub fn read_profile(&self, text: &str, file: &str, limits: &Limits) -> Result<Input, String> {
        input::read(text, file, &self.units, self.power, *limits).map_err(|e| e.render(text))
    }
}
