//! JSON Schemas (draft 2020-12) of every command's JSON output, shipped
//! with the crate and printed by `errband schema COMMAND`.
//!
//! Every command's JSON is a typed document ([`crate::document`]) and its
//! schema is generated from that type ([`Output::generated`]);
//! `tests/schemas.rs` fails when the file under `schemas/` differs from
//! what the types generate, and rewrites it with
//! `ERRBAND_UPDATE_SCHEMAS=1`.
//!
//! Every document has the version key `errband` and writes exact values as
//! `{"exact": "p/q", "decimal": "…"}`; the schemas say so, key by key. The
//! test suite validates every JSON snapshot and every bundled example's
//! output against them (`tests/schemas.rs`), so a change of shape that is
//! not also made here fails CI.

/// A command whose JSON output has a schema: the commands that write
/// documents.
pub use crate::document::Command as Output;

impl Output {
    /// Every command with a schema, in the order of the README.
    pub const ALL: [Output; 9] = [
        Output::Analysis,
        Output::Experiment,
        Output::Prune,
        Output::Plan,
        Output::Energy,
        Output::Barrier,
        Output::Ms,
        Output::Qe,
        Output::Check,
    ];

    /// The schema's file name under `schemas/`.
    pub fn file_name(self) -> &'static str {
        match self {
            Output::Analysis => "analysis.schema.json",
            Output::Experiment => "experiment.schema.json",
            Output::Prune => "prune.schema.json",
            Output::Plan => "plan.schema.json",
            Output::Energy => "energy.schema.json",
            Output::Barrier => "barrier.schema.json",
            Output::Ms => "ms.schema.json",
            Output::Qe => "qe.schema.json",
            Output::Check => "check.schema.json",
        }
    }

    /// The schema text (JSON).
    pub fn schema(self) -> &'static str {
        match self {
            Output::Analysis => include_str!("../schemas/analysis.schema.json"),
            Output::Experiment => include_str!("../schemas/experiment.schema.json"),
            Output::Prune => include_str!("../schemas/prune.schema.json"),
            Output::Plan => include_str!("../schemas/plan.schema.json"),
            Output::Energy => include_str!("../schemas/energy.schema.json"),
            Output::Barrier => include_str!("../schemas/barrier.schema.json"),
            Output::Ms => include_str!("../schemas/ms.schema.json"),
            Output::Qe => include_str!("../schemas/qe.schema.json"),
            Output::Check => include_str!("../schemas/check.schema.json"),
        }
    }
}

impl Output {
    /// The schema generated from the command's document type
    /// ([`crate::document`]): what `schemas/` holds.
    pub fn generated(self) -> String {
        use crate::document::{analysis, barrier, check, energy, experiment, ms, plan, prune, qe, schema_of};
        let id = format!("https://errband.dev/schemas/{}", self.file_name());
        match self {
            Output::Analysis => schema_of::<analysis::AnalysisDocument>(
                self,
                &id,
                "errband analysis (JSON)",
                "The document `errband MODEL DATA --format json` writes for one series: the fit, residuals, e_max, the region of parameter perturbations per threshold and the error bands at the prediction points. Every exact value is {exact, decimal}; values are in the model function's unit (model.units). `pruned`, `band_function`, `family` and `holdout` are null unless asked for with --drop/--drop-row, --envelope, --family and --holdout.",
            ),
            Output::Experiment => schema_of::<experiment::ExperimentDocument>(
                self,
                &id,
                "errband experiment analysis (JSON)",
                "The document `errband MODEL DATA --format json` writes when DATA holds several series (an Extra-P experiment, a CSV split with --by, ...): a summary row and a full analysis per series. Every exact value is {exact, decimal}.",
            ),
            Output::Qe => schema_of::<qe::QeDocument>(
                self,
                &id,
                "errband qe (JSON)",
                "The document `errband qe FILE --format json` writes: the quantifier-free result as convex pieces, each with its minimal constraints, cylindrical cells and (with --vertices) vertices, rays and lines. Numbers are {exact, decimal} (the decimal at --decimal digits, else 6); expressions (`expr`, `equals`, `text`) are strings.",
            ),
            Output::Prune => schema_of::<prune::PruneDocument>(
                self,
                &id,
                "errband prune (JSON)",
                "The document `errband prune MODEL DATA --format json` writes: each data-pruning choice (points dropped), refitted and ranked by the band it leaves at the targets. Values are in the model function's unit; every exact value is {exact, decimal}.",
            ),
            Output::Plan => schema_of::<plan::PlanDocument>(
                self,
                &id,
                "errband plan (JSON)",
                "The document `errband plan MODEL DATA --candidate ... --format json` writes: candidate points for the next measurement, ranked by the band each would leave at the targets. Values are in the model function's unit; every exact value is {exact, decimal}.",
            ),
            Output::Barrier => schema_of::<barrier::BarrierDocument>(
                self,
                &id,
                "errband barrier (JSON)",
                "The document `errband barrier --format json` writes: barrier latency of a chassis network against MPI_Barrier per node count, with bands and the crossover T_SR. Units are in the `units` map; every exact value is {exact, decimal}.",
            ),
            Output::Ms => schema_of::<ms::MsDocument>(
                self,
                &id,
                "errband ms predict (JSON)",
                "The document `errband ms predict TASKS --format json` writes: a master/slave program's predicted run time per processor count (LogGP simulation). Units are in the `units` map; busy fractions and errors are plain ratios; every exact value is {exact, decimal}.",
            ),
            Output::Check => schema_of::<check::CheckDocument>(
                self,
                &id,
                "errband check (JSON)",
                "The document `errband check … --format json` writes: for each new measurement, whether it lies inside the band errband recommends for the next measurement at its scale, above it or below it, and by how much relative to the crossed edge. Numbers are {exact, decimal}.",
            ),
            Output::Energy => schema_of::<energy::EnergyDocument>(
                self,
                &id,
                "errband energy (JSON)",
                "The document `errband energy PROFILE --format json` writes: DVFS energy savings ΔE(n), EE_opt(n) and per-region shares with exact bands. Units are in the `units` map; every exact value is {exact, decimal}.",
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_is_json_of_draft_2020_12_with_the_version_key() {
        for o in Output::ALL {
            let v: serde_json::Value =
                serde_json::from_str(o.schema()).unwrap_or_else(|e| panic!("{o:?}: {e}"));
            assert_eq!(v["$schema"], "https://json-schema.org/draft/2020-12/schema", "{o:?}");
            let required = v["required"].as_array().unwrap_or_else(|| panic!("{o:?} requires keys"));
            assert!(required.iter().any(|k| k == "errband"), "{o:?} requires the version key");
        }
    }
}
