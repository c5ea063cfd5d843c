//! What kind of failure an error is. The command line maps the kind to its
//! exit code (2 for input, 1 for an impossible analysis) without reading
//! messages; library callers can do the same.

/// Who has to act on a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The input (a model, the data, an option) is wrong or unreadable.
    Input,
    /// The input is well formed but the analysis is impossible on it (too
    /// few points, parameters the data cannot separate, an engine limit).
    Analysis,
}

impl ErrorKind {
    /// The command line's exit code for a failure of this kind: 2 for
    /// input, 1 for an impossible analysis.
    pub fn exit_code(self) -> i32 {
        match self {
            ErrorKind::Input => 2,
            ErrorKind::Analysis => 1,
        }
    }
}

/// Errors that know their [`ErrorKind`].
pub trait Classified: std::error::Error {
    /// The kind of this failure.
    fn kind(&self) -> ErrorKind;
}
