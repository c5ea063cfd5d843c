//! `errband barrier`: the cluster barrier latency predictor (Hayakawa).

use super::files::{check_outputs, Io, Kind, Output};
use super::input::{load, CommonArgs};
use super::whole::{self, Format};
use super::Failure;
use crate::analysis::Threshold;
use crate::barrier::args::TextOptions;
use crate::barrier::{self, MpiModel, Reference};
use crate::limits::Limits;
use crate::report::barrier::BarrierReport;
use crate::report::Report;
use clap::Args;

/// `errband barrier`.
#[derive(Args, Debug)]
pub struct BarrierArgs {
    /// Node counts N: lists and ranges (`2..120`, `4,8,16`, `2..4096:*2`); each ≥ 2.
    #[arg(long, value_name = "LIST", default_value = "2..30")]
    pub nodes: Vec<String>,
    /// Nodes per chassis (the paper's SCMD cluster: 3).
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub per_chassis: u64,
    /// Children of the root chassis (default: nodes per chassis, one per node).
    #[arg(long, value_name = "N")]
    pub root_fanout: Option<u64>,
    /// Children of an inter-level chassis (default: nodes per chassis − 1, its left and right nodes).
    #[arg(long, value_name = "N")]
    pub inter_fanout: Option<u64>,
    /// In-chassis barrier latency T_IB: a time (`3.86us`) or an interval (`2.7us..3.86us`).
    #[arg(long, value_name = "TIME", default_value = "3.86us", allow_hyphen_values = true)]
    pub t_ib: String,
    /// Send/receive time between chassis T_SR: times, intervals (`40us..120us`) or stepped lists (`20us..120us:20us`); comma-separated or repeated, one T_EB curve each.
    #[arg(long, value_name = "TIMES", default_value = "60us,120us", allow_hyphen_values = true)]
    pub t_sr: Vec<String>,
    /// MPI_Barrier reference time: a time (`120us`) or an interval.
    #[arg(long, value_name = "TIME", conflicts_with = "mpi_model", allow_hyphen_values = true)]
    pub mpi: Option<String>,
    /// MPI_Barrier time model (`.tm`, one variable: the node count), fitted to --mpi-data by the core pipeline.
    #[arg(long, value_name = "MODEL", requires = "mpi_data")]
    pub mpi_model: Option<String>,
    /// Measurements of MPI_Barrier for --mpi-model (CSV; the time unit from the model's `unit` or the header).
    #[arg(long, value_name = "DATA", requires = "mpi_model")]
    pub mpi_data: Option<String>,
    /// Node counts to state the conclusion at ("the chassis network wins for T_SR below … at N = 30"); default: the largest listed.
    #[arg(long = "conclude-at", alias = "at", value_name = "N")]
    pub conclude_at: Vec<u64>,
    /// Unit of the times shown, and of bare numbers in the time options.
    #[arg(long = "time-unit", alias = "unit", value_name = "UNIT", default_value = "us")]
    pub unit: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Write the plot of T_EB(N) per T_SR case against MPI_Barrier with its band: `[teb=]FILE.svg`.
    #[arg(long, value_name = "[KIND=]FILE", value_parser = |s: &str| super::one_plot(s, "teb"))]
    pub plot: Option<String>,
    /// Write a whole report: `out.html` (self-contained) or `out.md` (Markdown plus SVG files beside it).
    #[arg(long, value_name = "FILE")]
    pub report: Option<String>,
    /// Print the MPI_Barrier model's full analysis before the barrier report (text format).
    #[arg(long)]
    pub show_fit: bool,
    /// Thresholds, fit and column options of the MPI_Barrier model.
    #[command(flatten)]
    pub common: CommonArgs,
}

/// Runs `errband barrier`.
pub fn run(a: BarrierArgs, limits: &Limits, io: &mut Io) -> Result<i32, Failure> {
    let inputs: Vec<&str> = a.mpi_model.iter().chain(&a.mpi_data).map(String::as_str).collect();
    let mut outputs: Vec<Output> = a.plot.iter().map(|f| Output::new("--plot", f, Kind::Svg)).collect();
    outputs.extend(whole::report_outputs(a.report.as_ref(), &["teb"]));
    check_outputs(&inputs, &outputs)?;
    let options = TextOptions {
        nodes: a.nodes.clone(),
        per_chassis: a.per_chassis,
        root_fanout: a.root_fanout,
        inter_fanout: a.inter_fanout,
        t_ib: a.t_ib.clone(),
        t_sr: a.t_sr.clone(),
        mpi: a.mpi.clone(),
        conclude_at: a.conclude_at.clone(),
        unit: a.unit.clone(),
    };
    let unit_factor = options.unit_factor().map_err(Failure::input)?;
    let mut settings = options.settings(limits).map_err(Failure::input)?;
    let (reference_text, loaded) = match (&a.mpi, &a.mpi_model, &a.mpi_data) {
        (Some(m), _, _) => (format!("given, {m}"), None),
        (None, Some(mp), Some(dp)) => {
            let l = load(Some(mp), dp, &a.common, limits)?;
            l.single("barrier")?;
            let thresholds =
                if l.thresholds.is_empty() { Threshold::defaults() } else { l.thresholds.clone() };
            let m = MpiModel::new(l.model.clone(), l.dataset().rows.clone(), dp, thresholds, a.show_fit)
                .map_err(Failure::input)?;
            settings.reference = Some(Reference::Model(Box::new(m)));
            (format!("model {mp} fitted to {dp}"), Some(l))
        }
        _ => ("none given (--mpi TIME, or --mpi-model MODEL --mpi-data DATA)".into(), None),
    };
    let pred = barrier::predict(&settings).map_err(|e| Failure::of(&e))?;
    let mut report = BarrierReport {
        pred: &pred,
        unit: &a.unit,
        unit_factor: &unit_factor,
        reference_text,
        digits: a.common.decimal as usize,
        exact: a.common.exact,
        preface: String::new(),
    };
    if a.show_fit && a.format == Format::Text {
        if let (Some(l), Some(an)) = (&loaded, &pred.analysis) {
            let fit = Report {
                model: &l.model,
                data_file: &l.data_path,
                data: &l.dataset().rows,
                analysis: an,
                pruned: None,
                function: None,
                scales: [None, None],
                digits: a.common.decimal as usize,
                exact: a.common.exact,
                warnings: &l.dataset().warnings,
                backtest: None,
                family: None,
                plot_at: None,
                recommendation: None,
                recommendation_error: None,
                discovered: false,
                set_aside: &[],
            };
            report.preface = format!("{}\n", fit.text());
        }
    }
    let plots: Vec<_> = a.plot.iter().map(|f| ("teb", f.clone())).collect();
    let code = whole::finish(&report, a.format, &plots, a.report.as_ref(), io)?;
    super::free_later((pred, loaded));
    Ok(code)
}
