//! JSON Schemas (draft 2020-12) of every command's JSON output, shipped
//! with the crate and printed by `errband schema COMMAND`.
//!
//! The schemas of the commands whose JSON is a typed document
//! ([`crate::document`]: prune, plan, barrier, ms, check) are generated from
//! those types ([`Output::generated`]); `tests/schemas.rs` fails when the
//! file under `schemas/` differs from what the types generate, and
//! rewrites it with `ERRBAND_UPDATE_SCHEMAS=1`. The others are still
//! written by hand.
//!
//! Every document has the version key `errband` and writes exact values as
//! `{"exact": "p/q", "decimal": "…"}`; the schemas say so, key by key. The
//! test suite validates every JSON snapshot and every bundled example's
//! output against them (`tests/schemas.rs`), so a change of shape that is
//! not also made here fails CI.

/// A command whose JSON output has a schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Output {
    /// `errband MODEL DATA --format json`: one series.
    Analysis,
    /// `errband MODEL DATA --format json` on data of several series (an
    /// Extra-P experiment, a CUBE profile, a call tree).
    Experiment,
    /// `errband prune … --format json`.
    Prune,
    /// `errband plan … --format json`.
    Plan,
    /// `errband energy … --format json`.
    Energy,
    /// `errband barrier … --format json`.
    Barrier,
    /// `errband ms predict … --format json`.
    Ms,
    /// `errband qe … --format json`.
    Qe,
    /// `errband check … --format json`.
    Check,
}

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
    /// The schema generated from the command's document type, for the
    /// commands whose JSON is typed ([`crate::document`]); `None` for a
    /// schema still written by hand.
    pub fn generated(self) -> Option<String> {
        use crate::document::{barrier, check, ms, plan, prune, schema_of};
        let id = format!("https://errband.dev/schemas/{}", self.file_name());
        Some(match self {
            Output::Prune => schema_of::<prune::PruneDocument>(
                &id,
                "errband prune (JSON)",
                "The document `errband prune MODEL DATA --format json` writes: each data-pruning choice (points dropped), refitted and ranked by the band it leaves at the targets. Values are in the model function's unit; every exact value is {exact, decimal}.",
            ),
            Output::Plan => schema_of::<plan::PlanDocument>(
                &id,
                "errband plan (JSON)",
                "The document `errband plan MODEL DATA --candidate ... --format json` writes: candidate points for the next measurement, ranked by the band each would leave at the targets. Values are in the model function's unit; every exact value is {exact, decimal}.",
            ),
            Output::Barrier => schema_of::<barrier::BarrierDocument>(
                &id,
                "errband barrier (JSON)",
                "The document `errband barrier --format json` writes: barrier latency of a chassis network against MPI_Barrier per node count, with bands and the crossover T_SR. Units are in the `units` map; every exact value is {exact, decimal}.",
            ),
            Output::Ms => schema_of::<ms::MsDocument>(
                &id,
                "errband ms predict (JSON)",
                "The document `errband ms predict TASKS --format json` writes: a master/slave program's predicted run time per processor count (LogGP simulation). Units are in the `units` map; busy fractions and errors are plain ratios; every exact value is {exact, decimal}.",
            ),
            Output::Check => schema_of::<check::CheckDocument>(
                &id,
                "errband check (JSON)",
                "The document `errband check … --format json` writes: for each new measurement, whether it lies inside the band errband recommends for the next measurement at its scale, above it or below it, and by how much relative to the crossed edge. Numbers are {exact, decimal}.",
            ),
            _ => return None,
        })
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
