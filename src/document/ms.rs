//! `errband ms predict --format json`: master/slave run time per
//! processor count, and subsets of the tasks compared with all of them.

use super::{Exact, Header};
use crate::ms::{Comparison, Machine, Prediction};
use crate::Rat;
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::BTreeMap;

/// A master/slave run-time prediction.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MsDocument {
    /// Version, command and shape.
    #[serde(flatten)]
    pub header: Header,
    /// The answer: where the master saturates and the run time stops
    /// falling.
    pub summary: Vec<String>,
    /// The unit of every quantity: `time` (seconds), `size` (bytes),
    /// `gap_per_byte` (seconds per byte); errors and busy fractions are
    /// fractions.
    pub units: BTreeMap<String, String>,
    /// The tasks.
    pub tasks: TaskSet,
    /// The machine.
    pub machine: MachineInfo,
    /// The file giving the order slaves take tasks in (`null`: row-major).
    pub order_file: Option<String>,
    /// Clock ticks per second of the simulation: every time is a whole
    /// number of ticks.
    pub ticks_per_second: Exact,
    /// One run per processor count.
    pub runs: Vec<Run>,
    /// The slave count from which the master saturates (`null`: never).
    pub saturation_slaves: Option<u64>,
    /// The smallest listed processor count from which the run time stops
    /// falling (`null`: it falls throughout).
    pub flat_from_procs: Option<u64>,
    /// Events simulated.
    pub events: u64,
    /// Warnings about the inputs.
    pub warnings: Vec<String>,
    /// Subsets compared with all the tasks (`null`: none asked).
    pub comparison: Option<MsComparison>,
}

/// The task file.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TaskSet {
    /// As named on the command line.
    pub file: String,
    /// The task grid.
    pub grid: Vec<u32>,
    /// The sampled sub-grid's size per dimension.
    pub sub_grid: Vec<usize>,
    /// Tasks in all.
    pub tasks: usize,
    /// Tasks measured.
    pub sampled: usize,
    /// The sum of every task's time.
    pub total_time: Exact,
    /// The longest task.
    pub longest: Exact,
}

/// The machine's LogGP parameters and slaves.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MachineInfo {
    /// Latency L.
    pub latency: Exact,
    /// Overhead o = constant + per_processor·P.
    pub overhead: Overhead,
    /// Gap g between messages.
    pub gap: Exact,
    /// Gap per byte G.
    pub gap_per_byte: Exact,
    /// Bytes sent to a slave per task.
    pub k_in: Exact,
    /// Bytes returned per task.
    pub k_out: Exact,
    /// Each slave's time over the measured time.
    pub time_ratios: TimeRatios,
    /// The master pays the receive overhead o.
    pub p1_receive_overhead: bool,
}

/// The overhead o, linear in the processor count.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Overhead {
    /// Its constant part.
    pub constant: Exact,
    /// Its part per processor.
    pub per_processor: Exact,
}

/// Slaves' speeds relative to the measured one.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TimeRatios {
    /// The one ratio of every slave (`null` when given per slave).
    pub uniform: Option<Exact>,
    /// The ratio per slave (empty when uniform).
    pub per_slave: Vec<Exact>,
}

/// The simulated run at one processor count.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Run {
    /// Processors P (the master and P − 1 slaves).
    pub procs: u64,
    /// Slaves.
    pub slaves: u64,
    /// Run time.
    pub time: Exact,
    /// The master's busy fraction.
    pub master_busy: Exact,
    /// Each slave's busy fraction.
    pub slave_busy: Vec<Exact>,
    /// Tasks each slave ran.
    pub slave_tasks: Vec<u32>,
    /// Results that waited for the master.
    pub results_queued: u64,
    /// Events simulated.
    pub events: u64,
}

/// Subsets of the tasks compared with all of them.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MsComparison {
    /// The prediction from every task's time.
    pub full: FullRuns,
    /// One per subset, in the order given.
    pub subsets: Vec<Subset>,
}

/// The prediction from every task.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FullRuns {
    /// The sum of every task's time, A0.
    pub total_time: Exact,
    /// Its runs.
    pub runs: Vec<Run>,
}

/// One subset's prediction against the full one.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Subset {
    /// Its label.
    pub label: String,
    /// Samples per dimension.
    pub counts: Vec<u32>,
    /// The sampled indices per dimension.
    pub axes: Vec<Vec<u32>>,
    /// Tasks sampled.
    pub sampled: usize,
    /// Its estimate of the total task time, A.
    pub total_time: Exact,
    /// A0 − A.
    pub deficit: Exact,
    /// The error estimate X = (A0 − A)/A0 (Mizutani et al., eq. 3).
    pub eq3_error: Exact,
    /// The largest error over the processor counts.
    pub max_error: Exact,
    /// Per processor count.
    pub runs: Vec<SubsetRun>,
}

/// A subset's run against the full one at one processor count.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SubsetRun {
    /// Processors.
    pub procs: u64,
    /// The subset's run time.
    pub time: Exact,
    /// E(S0) − E(S).
    pub diff: Exact,
    /// |E(S0) − E(S)| / E(S0).
    pub error: Exact,
    /// The deficit per slave D = (A0 − A)/(P − 1).
    pub deficit_per_slave: Exact,
    /// |D| / E(S0): the error the deficit explains.
    pub deficit_error: Exact,
}

/// What an `ms predict` document is made from.
pub struct MsInputs<'a> {
    /// The task file, as named.
    pub file: &'a str,
    /// The grid.
    pub grid: &'a [u32],
    /// The sampled sub-grid's size per dimension.
    pub sub_grid: &'a [usize],
    /// The machine.
    pub machine: &'a Machine,
    /// The order file, if any.
    pub order_file: Option<&'a str>,
    /// The prediction.
    pub pred: &'a Prediction,
    /// The subsets compared, if any.
    pub comparison: Option<&'a Comparison>,
    /// The answer, as the report words it.
    pub summary: Vec<String>,
}

fn runs(pred: &Prediction, digits: usize) -> Vec<Run> {
    let f = |x: &Rat| Exact::new(x, digits);
    pred.points
        .iter()
        .map(|pt| Run {
            procs: pt.procs,
            slaves: pt.slaves(),
            time: f(&pt.time),
            master_busy: f(&pt.master_busy),
            slave_busy: pt.slave_busy.iter().map(f).collect(),
            slave_tasks: pt.slave_tasks.clone(),
            results_queued: pt.queued,
            events: pt.events,
        })
        .collect()
}

impl MsDocument {
    /// The document of `inputs`.
    pub fn new(i: MsInputs<'_>, digits: usize) -> MsDocument {
        let (p, m) = (i.pred, i.machine);
        let f = |x: &Rat| Exact::new(x, digits);
        let comparison = i.comparison.map(|c| MsComparison {
            full: FullRuns { total_time: f(&c.full.total_time), runs: runs(&c.full, digits) },
            subsets: c
                .subsets
                .iter()
                .map(|r| Subset {
                    label: r.spec.label.clone(),
                    counts: r.spec.counts.clone(),
                    axes: r.axes.clone(),
                    sampled: r.prediction.sampled,
                    total_time: f(&r.prediction.total_time),
                    deficit: f(&(&c.full.total_time - &r.prediction.total_time)),
                    eq3_error: f(&r.eq3(&c.full)),
                    max_error: f(&r.max_error(&c.full)),
                    runs: r
                        .versus(&c.full)
                        .iter()
                        .zip(&r.prediction.points)
                        .map(|(v, pt)| SubsetRun {
                            procs: v.procs,
                            time: f(&pt.time),
                            diff: f(&v.diff),
                            error: f(&v.error),
                            deficit_per_slave: f(&v.deficit_per_slave),
                            deficit_error: f(&v.explained),
                        })
                        .collect(),
                })
                .collect(),
        });
        let units = [("time", "s"), ("size", "B"), ("gap_per_byte", "s/B")];
        MsDocument {
            header: Header::new(super::Command::Ms),
            summary: i.summary,
            units: units.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            tasks: TaskSet {
                file: i.file.into(),
                grid: i.grid.to_vec(),
                sub_grid: i.sub_grid.to_vec(),
                tasks: p.tasks,
                sampled: p.sampled,
                total_time: f(&p.total_time),
                longest: f(&p.max_task),
            },
            machine: MachineInfo {
                latency: f(&m.loggp.l),
                overhead: Overhead { constant: f(&m.loggp.o.a), per_processor: f(&m.loggp.o.b) },
                gap: f(&m.loggp.g),
                gap_per_byte: f(&m.loggp.big_g),
                k_in: f(&m.k_in),
                k_out: f(&m.k_out),
                time_ratios: if m.ratios.is_empty() {
                    TimeRatios { uniform: Some(f(&m.uniform_ratio)), per_slave: Vec::new() }
                } else {
                    TimeRatios { uniform: None, per_slave: m.ratios.iter().map(f).collect() }
                },
                p1_receive_overhead: m.p1_recv,
            },
            order_file: i.order_file.map(Into::into),
            ticks_per_second: f(&Rat::from_integer(p.ticks_per_s.clone())),
            runs: runs(p, digits),
            saturation_slaves: p.saturation,
            flat_from_procs: p.flat_from,
            events: p.events(),
            warnings: p.warnings.clone(),
            comparison,
        }
    }
}
