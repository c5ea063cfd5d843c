//! Shared front end: lexer, expression parser and located diagnostics, used by
//! the QE formula files and (later) the `.tm` model language.
pub mod diag;
pub mod expr;
pub mod lexer;
