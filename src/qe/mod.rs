//! Quantifier elimination for linear real arithmetic.
pub mod formula;
pub mod syntax;
