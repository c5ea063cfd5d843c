//! errband: a symbolic prediction-error analyser for parallel-performance
//! models.
//!
//! The front door is [`session`] (a whole series or experiment, as the
//! command line runs it), [`Analysis`] (one model on one data set, its
//! fit, regions and bands) and the typed results in [`document`]. Below
//! them sits the exact core: [`num`] (exact rationals), [`linear`] (affine
//! forms and constraints), an exact LP with float warm starts and
//! certificates, polyhedra (redundancy, vertices, projection), and [`qe`]
//! (quantifier elimination for linear real arithmetic, also the `errband
//! qe` command). The LP and polyhedra modules are internal: they are
//! reachable for the crate's own tests and benchmarks but hidden from this
//! documentation and not part of its interface. [`lang`] holds the shared
//! lexer, expression parser and diagnostics.
//!
//! The whole method in a few lines (the same as `examples/library.rs` and
//! the README's): load a model and its data, run, read the band at a
//! point. Every error implements `std::error::Error`, and
//! [`error::Classified`] tells input errors from impossible analyses.
//!
#![doc = concat!("```rust\n", include_str!("../examples/library.rs"), "```")]
//!
//! Build without the command line (no clap): `default-features = false`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
// Input must never panic: library code returns errors (tests may unwrap).
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod analysis;
pub mod backtest;
pub mod band;
pub mod barrier;
pub mod check;
// The command line, the renderers and the charts are the binary's and
// the Python bindings' (same workspace); they are public for them, not
// part of the library's interface, so they stay out of its documentation.
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli;
pub mod data;
pub mod document;
pub mod energy;
pub mod envelope;
pub mod error;
mod failure;
pub mod family;
pub mod fit;
pub mod hypothesis;
pub mod lang;
pub mod limits;
pub mod linear;
// The exact LP and the polyhedra are the engine under the analysis and
// `qe`; public only for the property tests and benchmarks that drive them
// from outside, so hidden from the documentation.
#[doc(hidden)]
pub mod lp;
pub mod measure;
pub mod model;
pub mod ms;
pub mod num;
mod pipeline;
pub mod plan;
#[doc(hidden)]
pub mod plot;
#[doc(hidden)]
pub mod poly;
pub mod prune;
pub mod qe;
#[doc(hidden)]
pub mod report;
pub mod schema;
pub mod session;
#[cfg(test)]
mod testdata;
pub mod threshold;
pub mod trust;
pub mod units;

/// The version of errband, the `errband` key of every JSON document.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub use analysis::{Analysis, AnalysisError, Band, NoBand, Options, Prediction, Predictor, Region};
pub use data::{Dataset, Measurement};
pub use error::{Classified, ErrorKind};
pub use failure::Error;
pub use lang::diag::Diagnostic;
pub use model::{Model, PointSet};
pub use num::Rat;
/// The integers of a [`Rat`]'s numerator and denominator (num-bigint),
/// and the crates behind both, re-exported so that a caller builds and
/// reads exact values without matching their versions.
pub use num_bigint::BigInt;
pub use threshold::Threshold;
pub use {num_bigint, num_rational, num_traits};
