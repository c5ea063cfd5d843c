//! Polyhedra.
