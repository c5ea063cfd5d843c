//! `errband barrier --format json`: barrier latency of the chassis
//! network against MPI_Barrier, per node count and T_SR case.

use super::{params, Band, DataInfo, Exact, Header, ModelInfo, Param};
use crate::barrier::{Prediction, Reference};
use crate::num::Interval;
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::BTreeMap;

/// A barrier latency prediction.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BarrierDocument {
    /// Version, command and shape.
    #[serde(flatten)]
    pub header: Header,
    /// The answer: who wins at the node counts asked about, with the band.
    pub conclusions: Vec<String>,
    /// Who wins over the listed node counts, per T_SR case and column.
    pub summary: Vec<String>,
    /// The unit of every quantity: `time` (seconds); speedups are ratios.
    pub units: BTreeMap<String, String>,
    /// The barrier tree.
    pub tree: Tree,
    /// The time of one hop of the chassis network, T_IB.
    pub t_ib: Band,
    /// The send/receive time cases, T_SR, in order (`t_sr_case` counts
    /// from 1 in this list).
    pub t_sr_cases: Vec<Band>,
    /// What the chassis network is compared with (`null`: nothing).
    pub reference: Option<BarrierReference>,
    /// The reference's columns: its value, and its band per threshold.
    pub columns: Vec<Column>,
    /// One row per node count.
    pub rows: Vec<BarrierRow>,
    /// Warnings about the inputs.
    pub warnings: Vec<String>,
}

/// The barrier tree's shape.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Tree {
    /// Nodes per chassis.
    pub per_chassis: u64,
    /// Fan-out of the root.
    pub root_fanout: u64,
    /// Fan-out of every inter-chassis level.
    pub inter_fanout: u64,
}

/// The reference MPI_Barrier time.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum BarrierReference {
    /// A time given on the command line.
    Constant {
        /// The time, or the interval it lies in.
        time: Band,
    },
    /// A model fitted to measured MPI_Barrier times.
    Model {
        // Boxed: the variants would otherwise differ in size by a model.
        /// The model.
        model: Box<ModelInfo>,
        /// Its measurements.
        data: DataInfo,
        /// Seconds per unit of the model's result.
        seconds_per_unit: Exact,
        /// The fitted parameters.
        params: Vec<Param>,
        /// The largest absolute residual of the fit.
        max_residual: Exact,
        /// e_max.
        emax: Exact,
    },
}

/// A reference column.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Column {
    /// `fit`, `given`, or the threshold.
    pub label: String,
    /// A band at a threshold (`false`: the value itself).
    pub band: bool,
}

/// The predictions at one node count.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BarrierRow {
    /// N.
    pub nodes: u64,
    /// Chassis used.
    pub chassis: u64,
    /// Inter-chassis levels of the tree (`null`: one chassis).
    pub inter_levels: Option<u64>,
    /// Chassis per level.
    pub chassis_per_level: Vec<u64>,
    /// MPI_Barrier per reference column.
    pub mpi: Vec<ColumnBand>,
    /// The T_SR below which the chassis network wins, per reference
    /// column (`band` is `null` with one chassis: no crossover).
    pub crossover_t_sr: Vec<ColumnCrossover>,
    /// The chassis network and the comparison, per T_SR case.
    pub cases: Vec<Case>,
}

/// A band of one reference column.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ColumnBand {
    /// The column's label.
    pub column: String,
    /// Its band.
    pub band: Band,
}

/// The crossover of one reference column.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ColumnCrossover {
    /// The column's label.
    pub column: String,
    /// The crossover T_SR (`null`: none).
    pub band: Option<Band>,
}

/// One T_SR case at one node count.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Case {
    /// The case, from 1 (`t_sr_cases`).
    pub t_sr_case: usize,
    /// The chassis network's barrier time, T_EB.
    pub t_eb: Band,
    /// The comparison with each reference column.
    pub versus: Vec<Versus>,
}

/// The chassis network against one reference column.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Versus {
    /// The column's label.
    pub column: String,
    /// MPI_Barrier − T_EB.
    pub margin: Band,
    /// MPI_Barrier / T_EB (`null` when T_EB can be zero).
    pub speedup: Option<Band>,
    /// Who wins: `chassis`, `MPI`, `tie` or `undecided`.
    pub winner: String,
}

impl BarrierDocument {
    /// The document of prediction `p`, with its summary and conclusions
    /// as the report words them.
    pub fn new(
        p: &Prediction,
        summary: Vec<String>,
        conclusions: Vec<String>,
        digits: usize,
    ) -> BarrierDocument {
        let s = &p.settings;
        let iv = |i: &Interval| Band::interval(&i.lo, &i.hi, digits);
        let band = |b: &crate::band::Band| Band::of(Some(b), None, digits);
        let reference = match (&s.reference, &p.analysis) {
            (Some(Reference::Constant(c)), _) => Some(BarrierReference::Constant { time: iv(c) }),
            (Some(Reference::Model(m)), Some(a)) => Some(BarrierReference::Model {
                model: Box::new(ModelInfo::of(&m.model, &a.design.log)),
                data: DataInfo::of(&m.file, &a.design),
                seconds_per_unit: Exact::new(&m.unit_factor, digits),
                params: params(&m.model, &a.params, digits),
                max_residual: Exact::new(&a.residuals.max_abs, digits),
                emax: Exact::new(&a.emax, digits),
            }),
            _ => None,
        };
        let rows = p
            .rows
            .iter()
            .map(|r| BarrierRow {
                nodes: r.layout.nodes,
                chassis: r.layout.chassis,
                inter_levels: r.layout.inter_levels,
                chassis_per_level: r.layout.per_level.clone(),
                mpi: p
                    .columns
                    .iter()
                    .zip(&r.mpi)
                    .map(|(c, b)| ColumnBand { column: c.label.clone(), band: band(b) })
                    .collect(),
                crossover_t_sr: p
                    .columns
                    .iter()
                    .zip(&r.crossover)
                    .map(|(c, b)| ColumnCrossover { column: c.label.clone(), band: b.as_ref().map(band) })
                    .collect(),
                cases: r
                    .t_eb
                    .iter()
                    .zip(&r.versus)
                    .enumerate()
                    .map(|(k, (t, vs))| Case {
                        t_sr_case: k + 1,
                        t_eb: iv(t),
                        versus: p
                            .columns
                            .iter()
                            .zip(vs)
                            .map(|(c, v)| Versus {
                                column: c.label.clone(),
                                margin: band(&v.margin),
                                speedup: v.speedup.as_ref().map(band),
                                winner: v.verdict.name().into(),
                            })
                            .collect(),
                    })
                    .collect(),
            })
            .collect();
        BarrierDocument {
            header: Header::new(super::Command::Barrier),
            conclusions,
            summary,
            units: BTreeMap::from([("time".to_string(), "s".to_string())]),
            tree: Tree {
                per_chassis: s.tree.per_chassis,
                root_fanout: s.tree.root_fanout,
                inter_fanout: s.tree.inter_fanout,
            },
            t_ib: iv(&s.t_ib),
            t_sr_cases: s.t_sr.iter().map(iv).collect(),
            reference,
            columns: p.columns.iter().map(|c| Column { label: c.label.clone(), band: c.band }).collect(),
            rows,
            warnings: p.warnings.clone(),
        }
    }
}
