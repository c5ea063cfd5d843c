//! What kind of failure an error is. The command line maps the kind to its
//! exit code (2 for input, 1 for an impossible analysis; `cli::exit_code`)
//! without reading messages; library callers can do the same.

/// Who has to act on a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input (a model, the data, an option) is wrong or unreadable.
    Input,
    /// The input is well formed but the analysis is impossible on it (too
    /// few points, parameters the data cannot separate, an engine limit).
    Analysis,
}

/// Errors that know their [`ErrorKind`].
pub trait Classified: std::error::Error {
    /// The kind of this failure.
    fn kind(&self) -> ErrorKind;
}
