//! `errband energy --format json`: energy and time under DVFS per node
//! count, each with its band per threshold.

use super::{params, Band, BandStatus, Exact, Header, ModelInfo, Param, Threshold};
use crate::energy::{AtNodes, Form, Nodes, Objective, Prediction, Value, FRACTIONS};
use crate::num::fmt_fraction;
use crate::Rat;
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::BTreeMap;

/// An energy prediction.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EnergyDocument {
    /// Version, command and shape.
    #[serde(flatten)]
    pub header: Header,
    /// The answer: where DVFS saves energy (`null`: no finite node count
    /// was asked for).
    pub verdict: Option<String>,
    /// The unit of every quantity: `time` (s), `energy` (J), `power` (W),
    /// `frequency` (MHz); fractions and ratios are plain.
    pub units: BTreeMap<String, String>,
    /// The profile, as named.
    pub file: String,
    /// Where the regions' values come from: `profile` (fitted to the
    /// measurements) or `fitted values` (given).
    pub form: String,
    /// What the optimal frequency minimises: `energy` or `edp`.
    pub objective: String,
    /// The standard frequency.
    pub f_std: Exact,
    /// The node count the profile was measured on, above 1 (`null`: one).
    pub base_nodes: Option<Exact>,
    /// The thresholds' labels, in the order of every `bands` list.
    pub thresholds: Vec<String>,
    /// Per region, its fitted values.
    pub regions: Vec<EnergyRegion>,
    /// Per node count asked for.
    pub predictions: Vec<EnergyAt>,
    /// Warnings about the inputs.
    pub warnings: Vec<String>,
}

/// A predicted quantity: its value at the fitted parameters, and its band
/// per threshold.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EnergyValue {
    /// The value.
    #[serde(flatten)]
    pub value: Exact,
    /// Per threshold.
    pub bands: Vec<LabelledBand>,
}

/// A band under one threshold.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LabelledBand {
    /// The threshold's label.
    pub label: String,
    /// The band.
    pub band: Band,
}

/// One region of the profile.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EnergyRegion {
    /// Its name.
    pub name: String,
    /// An overhead region (time and energy outside the scaled work).
    pub overhead: bool,
    /// Its optimal frequency.
    pub f_opt: Exact,
    /// `f_opt` was given (`--fopt`), not found.
    pub f_opt_forced: bool,
    /// Its power at the standard frequency.
    pub p_std: Exact,
    /// Its power at the optimal frequency.
    pub p_opt: Exact,
    /// Its time on the base node count.
    pub t_base: Exact,
    /// α_p, the parallel fraction of its time (`null` for an overhead
    /// region).
    pub alpha_p: Option<EnergyValue>,
    /// β_on, the share of its time that scales with frequency.
    pub beta_on: EnergyValue,
    /// Its time and energy fractions (`w_s_on`, `w_s_off`, `w_p_on`,
    /// `w_p_off`; `null` for an overhead region).
    pub fractions: Option<BTreeMap<String, EnergyValue>>,
    /// Its time model `t = a + b/n` at the fitted values.
    pub time_model: TimeModel,
    /// Its overhead energy at the fitted values.
    pub overhead_energy: OverheadEnergy,
    /// Its measurements per frequency.
    pub frequencies: Vec<Frequency>,
    /// The fits behind its values.
    pub fits: Vec<EnergyFit>,
}

/// A region's time model.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TimeModel {
    /// The serial part.
    pub a: Exact,
    /// The parallel part.
    pub b: Exact,
}

/// A region's overhead energy.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct OverheadEnergy {
    /// The constant part, α_f.
    pub alpha_f: Exact,
    /// The part per node, β_f.
    pub beta_f: Exact,
}

/// A region's measurements at one frequency.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Frequency {
    /// The frequency.
    pub frequency: Exact,
    /// The time.
    pub time: Exact,
    /// The power (`null`: not measured).
    pub power: Option<Exact>,
    /// Samples averaged.
    pub samples: usize,
}

/// One fit of a region.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EnergyFit {
    /// What it fits: `alpha_p`, `beta_on` or `overhead`.
    pub kind: String,
    /// The model.
    pub model: ModelInfo,
    /// The fitted parameters.
    pub params: Vec<Param>,
    /// e_max.
    pub emax: Exact,
    /// The largest absolute residual.
    pub max_residual: Exact,
    /// Measurements fitted.
    pub points: usize,
    /// The vertices of its region per threshold, as parameter values.
    pub regions: Vec<FitRegion>,
}

/// The vertices of a fit's region under one threshold.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FitRegion {
    /// The threshold.
    pub threshold: Threshold,
    /// Its vertices, as parameter values by name.
    pub vertices: Vec<BTreeMap<String, Exact>>,
}

/// The predictions at one node count.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EnergyAt {
    /// The node count (`inf` for the limit).
    pub nodes: String,
    /// ΔE: the energy saved, relative.
    pub delta_e: Option<EnergyValue>,
    /// EE: the optimal energy over the standard one.
    pub ee_opt: Option<EnergyValue>,
    /// The energy at the standard frequency.
    pub e_std: Option<EnergyValue>,
    /// The energy at the optimal frequencies.
    pub e_opt: Option<EnergyValue>,
    /// The time at the standard frequency.
    pub t_std: Option<EnergyValue>,
    /// The time at the optimal frequencies.
    pub t_opt: Option<EnergyValue>,
    /// Each region's share of the energy at the standard frequency.
    pub share_std: BTreeMap<String, Option<EnergyValue>>,
    /// Its share at the optimal frequencies.
    pub share_opt: BTreeMap<String, Option<EnergyValue>>,
}

fn value(v: &Value, thresholds: &[String], digits: usize) -> EnergyValue {
    EnergyValue {
        value: Exact::new(&v.point, digits),
        bands: v
            .bands
            .iter()
            .zip(thresholds)
            .map(|(b, t)| LabelledBand {
                label: t.clone(),
                band: match b {
                    Some(i) => Band::interval(&i.lo, &i.hi, digits),
                    None => Band::none(
                        BandStatus::Refused,
                        "undefined at a corner of the region (a denominator is not positive)",
                    ),
                },
            })
            .collect(),
    }
}

fn at_nodes(p: &Prediction, a: &AtNodes, ts: &[String], digits: usize) -> EnergyAt {
    let v = |x: &Option<Value>| x.as_ref().map(|x| value(x, ts, digits));
    let shares = |s: &[Option<Value>]| p.regions.iter().zip(s).map(|(r, x)| (r.name.clone(), v(x))).collect();
    EnergyAt {
        nodes: match &a.nodes {
            Nodes::Count(n) => fmt_fraction(n),
            Nodes::Infinity => "inf".into(),
        },
        delta_e: v(&a.delta_e),
        ee_opt: v(&a.ee_opt),
        e_std: v(&a.e_std),
        e_opt: v(&a.e_opt),
        t_std: v(&a.t_std),
        t_opt: v(&a.t_opt),
        share_std: shares(&a.share_std),
        share_opt: shares(&a.share_opt),
    }
}

impl EnergyDocument {
    /// The document of prediction `p` from profile `file`, with `verdict`
    /// as its answer.
    pub fn new(p: &Prediction, file: &str, verdict: Option<String>, digits: usize) -> EnergyDocument {
        let ex = |x: &Rat| Exact::new(x, digits);
        let ts: Vec<String> = p.thresholds.iter().map(|t| t.text.clone()).collect();
        let regions = p
            .regions
            .iter()
            .zip(&p.values)
            .map(|(r, v)| EnergyRegion {
                name: r.name.clone(),
                overhead: r.overhead,
                f_opt: ex(&r.f_opt),
                f_opt_forced: r.f_opt_forced,
                p_std: ex(&r.p_std),
                p_opt: ex(&r.p_opt),
                t_base: ex(&r.t_base),
                alpha_p: v.alpha_p.as_ref().map(|x| value(x, &ts, digits)),
                beta_on: value(&v.beta_on, &ts, digits),
                fractions: v.fractions.as_ref().map(|fs| {
                    FRACTIONS.iter().zip(fs).map(|(n, f)| (n.to_string(), value(f, &ts, digits))).collect()
                }),
                time_model: TimeModel { a: ex(&r.point.a), b: ex(&r.point.b) },
                overhead_energy: OverheadEnergy { alpha_f: ex(&r.point.af), beta_f: ex(&r.point.bf) },
                frequencies: r
                    .freqs
                    .iter()
                    .map(|f| Frequency {
                        frequency: ex(&f.freq),
                        time: ex(&f.time),
                        power: Exact::opt(f.power.as_ref(), digits),
                        samples: f.samples,
                    })
                    .collect(),
                fits: r
                    .fits
                    .iter()
                    .map(|f| EnergyFit {
                        kind: f.kind.name().into(),
                        model: ModelInfo::of(&f.model, &f.analysis.design.log),
                        params: params(&f.model, &f.analysis.params, digits),
                        emax: ex(&f.analysis.emax),
                        max_residual: ex(&f.analysis.residuals.max_abs),
                        points: f.data.len(),
                        regions: f
                            .analysis
                            .regions
                            .iter()
                            .map(|reg| FitRegion {
                                threshold: Threshold::of(reg, digits),
                                vertices: reg
                                    .params_at
                                    .iter()
                                    .map(|v| {
                                        f.model
                                            .params
                                            .iter()
                                            .zip(v)
                                            .map(|(pp, x)| (pp.name.clone(), ex(x)))
                                            .collect()
                                    })
                                    .collect(),
                            })
                            .collect(),
                    })
                    .collect(),
            })
            .collect();
        let units = [("time", "s"), ("energy", "J"), ("power", "W"), ("frequency", "MHz")];
        EnergyDocument {
            header: Header::new(super::Command::Energy),
            verdict,
            units: units.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            file: file.into(),
            form: match p.form {
                Form::Profile => "profile",
                Form::Given => "fitted values",
            }
            .into(),
            objective: match p.objective {
                Objective::Energy => "energy",
                Objective::Edp => "edp",
            }
            .into(),
            f_std: ex(&p.f_std),
            base_nodes: Exact::opt(p.base_nodes.as_ref(), digits),
            thresholds: ts.clone(),
            regions,
            predictions: p.at.iter().map(|a| at_nodes(p, a, &ts, digits)).collect(),
            warnings: p.warnings.clone(),
        }
    }
}
