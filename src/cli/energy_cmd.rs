//! `errband energy`: the DVFS energy predictor (Kimura et al.).

use super::files::{check_outputs, Io, Kind, Output};
use super::whole::{self, Format};
use super::{read_input, Failure};
use crate::energy::args::TextOptions;
use crate::energy::input::{DefaultUnits, PowerIs};
use crate::energy::{self, Objective};
use crate::limits::Limits;
use crate::report::energy::{EnergyPlot, EnergyReport};
use clap::{Args, ValueEnum};

/// What f_opt minimises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ObjectiveArg {
    /// Energy P·T.
    Energy,
    /// Energy-delay product P·T².
    Edp,
}

/// How the power column is meant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PowerArg {
    /// Average power of one node.
    Node,
    /// Total power of the run's nodes (divided by `nodes`).
    Total,
}

/// `errband energy`.
#[derive(Args, Debug)]
pub struct EnergyArgs {
    /// Profile CSV `region,nodes,freq,time,power`, or fitted values `region,alpha_p,beta_on,p_std,p_opt,f_opt,t_std`.
    #[arg(value_name = "PROFILE")]
    pub profile: String,
    /// Node counts to predict at: lists and ranges (`16,64,256`, `2..4096:*2`); `inf` adds the limit n → ∞.
    #[arg(long, value_name = "LIST", default_value = "16,64,256,1024,4096")]
    pub nodes: Vec<String>,
    /// Standard frequency f_std (`3000`, `3GHz`; default: the highest measured).
    #[arg(long, value_name = "FREQ")]
    pub fstd: Option<String>,
    /// Base node count of the profile (default: the smallest measured at f_std).
    #[arg(long, value_name = "N")]
    pub base_nodes: Option<String>,
    /// A region whose extra energy is fitted as (α^f·log2 n + β^f)/n per node (Kimura et al., eq. 17); repeatable.
    #[arg(long = "overhead-region", value_name = "NAME")]
    pub overhead: Vec<String>,
    /// What the chosen frequency minimises.
    #[arg(long, value_enum, default_value_t = ObjectiveArg::Energy)]
    pub objective: ObjectiveArg,
    /// Force a region's frequency, e.g. `resid=2000` or `resid=2GHz`; repeatable.
    #[arg(long, value_name = "REGION=FREQ")]
    pub fopt: Vec<String>,
    /// Use only these regions (comma-separated or repeated), e.g. `calc,mem`.
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub regions: Vec<String>,
    /// Residual threshold of every fit, relative to its own Max|e_i| and e_max: `max` (default), `emax`, `2*max`, …; repeatable.
    #[arg(long = "threshold", short = 't', value_name = "T")]
    pub thresholds: Vec<String>,
    /// What the power column holds.
    #[arg(long, value_enum, default_value_t = PowerArg::Node)]
    pub power: PowerArg,
    /// Time unit of a `time` column without one in its header.
    #[arg(long, value_name = "UNIT", default_value = "s")]
    pub time_unit: String,
    /// Frequency unit of columns without one in their header.
    #[arg(long, value_name = "UNIT", default_value = "MHz")]
    pub freq_unit: String,
    /// Power unit of columns without one in their header.
    #[arg(long, value_name = "UNIT", default_value = "W")]
    pub power_unit: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Write a plot: `[KIND=]FILE.svg`, KIND one of delta (ΔE(n), default), ee (EE_opt(n)), shares; repeatable.
    #[arg(long, value_name = "[KIND=]FILE")]
    pub plot: Vec<String>,
    /// Write a whole report: `out.html` (self-contained) or `out.md` (Markdown plus SVG files beside it).
    #[arg(long, value_name = "FILE")]
    pub report: Option<String>,
    /// Print the generated fit models and their analyses.
    #[arg(long = "show-fit", alias = "show-fits")]
    pub show_fits: bool,
    /// Show exact fractions in the text report.
    #[arg(long)]
    pub exact: bool,
    /// Significant digits of decimals.
    #[arg(long, value_name = "N", default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub decimal: u32,
    /// Significant digits to which log2 n is correctly rounded for n not a power of two; `--decimal` sets display digits.
    #[arg(long = "precision", alias = "digits", value_name = "N", default_value_t = crate::num::transcendental::DEFAULT_DIGITS, value_parser = clap::value_parser!(u32).range(10..=1000))]
    pub digits: u32,
}

fn plot_arg(s: &str) -> Result<(EnergyPlot, String), Failure> {
    super::plot_kind(s, &EnergyPlot::ALL).map_err(|e| Failure::input(format!("--plot {s}: {e}")))
}

/// Runs `errband energy`.
pub fn run(a: EnergyArgs, limits: &Limits, io: &mut Io) -> Result<i32, Failure> {
    let plots: Vec<(EnergyPlot, String)> = a.plot.iter().map(|s| plot_arg(s)).collect::<Result<_, _>>()?;
    let mut outputs: Vec<Output> = plots.iter().map(|(_, f)| Output::new("--plot", f, Kind::Svg)).collect();
    let kinds: Vec<&str> = EnergyPlot::ALL.iter().map(|(name, _)| *name).collect();
    outputs.extend(whole::report_outputs(a.report.as_ref(), &kinds));
    check_outputs(&[&a.profile], &outputs)?;
    let options = TextOptions {
        nodes: a.nodes.clone(),
        fstd: a.fstd.clone(),
        base_nodes: a.base_nodes.clone(),
        overhead: a.overhead.clone(),
        objective: match a.objective {
            ObjectiveArg::Energy => Objective::Energy,
            ObjectiveArg::Edp => Objective::Edp,
        },
        fopt: a.fopt.clone(),
        regions: a.regions.clone(),
        thresholds: a.thresholds.clone(),
        power: match a.power {
            PowerArg::Node => PowerIs::PerNode,
            PowerArg::Total => PowerIs::Total,
        },
        units: DefaultUnits {
            time: a.time_unit.clone(),
            freq: a.freq_unit.clone(),
            power: a.power_unit.clone(),
        },
        digits: a.digits,
    };
    let settings = options.settings(limits).map_err(Failure::input)?;
    let text = read_input(&a.profile)?;
    let parsed = options.read_profile(&text, &a.profile, limits).map_err(Failure::input)?;
    let pred = energy::predict(&parsed, &a.profile, &settings).map_err(|e| Failure::of(&e))?;
    let report = EnergyReport {
        file: &a.profile,
        pred: &pred,
        digits: a.decimal as usize,
        exact: a.exact,
        show_fits: a.show_fits,
    };
    let plots: Vec<_> = plots.iter().map(|(kind, file)| (kind.name(), file.clone())).collect();
    whole::finish(&report, a.format, &plots, a.report.as_ref(), io)
}
