//! The library's front-door error: one type that every library error
//! converts into with `?`, for callers who do not need to tell the
//! commands' own error types apart. [`Error::kind`] says who has to act
//! (the input, or an analysis that is impossible on it);
//! [`std::error::Error::source`] is the specific error, with its details.
//!
//! A module of its own above the others: [`crate::error`] sits below every
//! module (they implement its [`Classified`]), this one names them all.

use crate::error::{Classified, ErrorKind};

/// Any failure of the library. Each variant boxes its error, so a
/// `Result<_, Error>` stays two words wide.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A model file (or model text) that does not parse or compile.
    #[error("{0}")]
    Model(#[source] Box<crate::lang::diag::Diagnostic>),
    /// Data that cannot be read.
    #[error("{0}")]
    Data(#[source] Box<crate::data::DataError>),
    /// A threshold that cannot be read or applied.
    #[error("{0}")]
    Threshold(#[source] Box<crate::threshold::ThresholdError>),
    /// The analysis of one model on one data set.
    #[error("{0}")]
    Analysis(#[source] Box<crate::analysis::AnalysisError>),
    /// One series as the main command analyses it (family, backtest).
    #[error("{0}")]
    Series(#[source] Box<crate::session::SeriesError>),
    /// Leaving measurements out (`--drop`).
    #[error("{0}")]
    Drop(#[source] Box<crate::session::DropError>),
    /// Pruning choices compared.
    #[error("{0}")]
    Prune(#[source] Box<crate::prune::PruneError>),
    /// New measurements judged against the band.
    #[error("{0}")]
    Check(#[source] Box<crate::check::CheckError>),
    /// The QE engine.
    #[error("{0}")]
    Qe(#[source] Box<crate::qe::QeError>),
    /// The energy predictor.
    #[error("{0}")]
    Energy(#[source] Box<crate::energy::EnergyError>),
    /// The barrier predictor.
    #[error("{0}")]
    Barrier(#[source] Box<crate::barrier::BarrierError>),
    /// Reading or writing a file.
    #[error("{0}")]
    Io(#[source] Box<std::io::Error>),
}

impl Error {
    /// Who has to act on this failure.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Model(_) | Error::Data(_) | Error::Threshold(_) | Error::Io(_) => ErrorKind::Input,
            Error::Analysis(e) => e.kind(),
            Error::Series(e) => e.kind(),
            Error::Drop(e) => e.kind(),
            Error::Prune(e) => e.kind(),
            Error::Check(e) => e.kind(),
            Error::Qe(e) => e.kind(),
            Error::Energy(e) => e.kind(),
            Error::Barrier(e) => e.kind(),
        }
    }
}

impl Classified for Error {
    fn kind(&self) -> ErrorKind {
        Error::kind(self)
    }
}

/// `From` each library error (boxed into its variant), so `?` converts.
macro_rules! from_errors {
    ($($variant:ident => $ty:ty,)*) => {
        $(impl From<$ty> for Error {
            fn from(e: $ty) -> Error {
                Error::$variant(Box::new(e))
            }
        })*
    };
}

from_errors! {
    Model => crate::lang::diag::Diagnostic,
    Data => crate::data::DataError,
    Threshold => crate::threshold::ThresholdError,
    Analysis => crate::analysis::AnalysisError,
    Series => crate::session::SeriesError,
    Drop => crate::session::DropError,
    Prune => crate::prune::PruneError,
    Check => crate::check::CheckError,
    Qe => crate::qe::QeError,
    Energy => crate::energy::EnergyError,
    Barrier => crate::barrier::BarrierError,
    Io => std::io::Error,
}
