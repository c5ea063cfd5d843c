//! errband: a symbolic prediction-error analyser for parallel-performance
//! models.
//!
//! The exact core is a chain of small modules: [`num`] (exact rationals),
//! [`linear`] (affine forms and constraints), [`lp`] (exact LP with float
//! warm starts and certificates), [`poly`] (polyhedra: redundancy, vertices,
//! projection) and [`qe`] (quantifier elimination for linear real
//! arithmetic). [`lang`] holds the shared lexer, expression parser and
//! diagnostics.
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
pub mod lp;
pub mod measure;
pub mod model;
pub mod ms;
pub mod num;
pub mod plan;
#[doc(hidden)]
pub mod plot;
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
