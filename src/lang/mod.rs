//! Shared front end: lexer, expression syntax tree, parser, exact
//! linearisation and located diagnostics, used by the QE formula files and
//! the `.tm` model language.
pub mod diag;
pub mod expr;
pub mod lexer;
pub mod linearize;
pub mod parser;
#[cfg(test)]
mod tests;
