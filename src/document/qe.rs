//! `errband qe --format json`, and the cylindrical form of a region in an
//! analysis: a quantifier-free result as constraints and cells.

use super::{Exact, Header};
use crate::linear::{Constraint, VarTable};
use crate::num::{NumFormat, Rat};
use crate::qe::QeResult;
use crate::qe::{LevelBound, Side};
use num_traits::Zero;
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::BTreeMap;

/// The result of `errband qe`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct QeDocument {
    /// Version, command and shape.
    #[serde(flatten)]
    pub header: Header,
    /// The result.
    #[serde(flatten)]
    pub result: QeResultDoc,
}

/// A quantifier-free result: a disjunction of pieces, each a conjunction
/// of linear constraints, also given as cylindrical cells.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct QeResultDoc {
    /// The free variables, in the cylindrical order.
    pub variables: Vec<String>,
    /// `true`, `false` or `formula`.
    pub result: String,
    /// The cells as text, one per line joined by `or`.
    pub text: String,
    /// The pieces.
    pub pieces: Vec<QePiece>,
}

/// One piece of the result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct QePiece {
    /// Its minimal constraints.
    pub constraints: Vec<QeConstraint>,
    /// Its cells.
    pub cells: Vec<QeCell>,
    /// Its vertices (`null` unless asked for with `--vertices`).
    pub vertices: Option<Vec<BTreeMap<String, Exact>>>,
    /// Its rays (likewise).
    pub rays: Option<Vec<BTreeMap<String, Exact>>>,
    /// Its lines (likewise).
    pub lines: Option<Vec<BTreeMap<String, Exact>>>,
}

/// A linear constraint `Σ coefficient·variable RELATION rhs`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct QeConstraint {
    /// The non-zero coefficients, by variable.
    pub coefficients: BTreeMap<String, Exact>,
    /// `<=`, `<` or `=`.
    pub relation: String,
    /// The right-hand side.
    pub rhs: Exact,
    /// The constraint as text.
    pub text: String,
}

/// One cylindrical cell.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct QeCell {
    /// The cell as text.
    pub text: String,
    /// Its bounds, variable by variable.
    pub levels: Vec<QeLevel>,
}

/// The bounds of one variable in a cell: a value (`equals`), or lower and
/// upper bounds, each an expression in the earlier variables.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct QeLevel {
    /// The variable.
    pub variable: String,
    /// The expression it equals (`null`: it ranges between its bounds).
    pub equals: Option<String>,
    /// Its lower bounds (the largest holds).
    pub lower: Vec<QeSide>,
    /// Its upper bounds (the smallest holds).
    pub upper: Vec<QeSide>,
}

/// One bound of a variable.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct QeSide {
    /// The bound, an expression in the earlier variables.
    pub expr: String,
    /// Strict (`<`).
    pub strict: bool,
}

/// Significant digits of the decimals beside exact values when the text is
/// exact: the main command's `--decimal` default.
const JSON_DIGITS: usize = 6;

fn digits(fmt: NumFormat) -> usize {
    match fmt {
        NumFormat::Decimal(n) => n,
        NumFormat::Exact => JSON_DIGITS,
    }
}

fn point(v: &[Rat], vars: &VarTable, fmt: NumFormat) -> BTreeMap<String, Exact> {
    v.iter().enumerate().map(|(j, x)| (vars.name(j).to_string(), Exact::new(x, digits(fmt)))).collect()
}

fn constraint(c: &Constraint, vars: &VarTable, fmt: NumFormat) -> QeConstraint {
    QeConstraint {
        coefficients: c
            .a
            .iter()
            .enumerate()
            .filter(|(_, a)| !a.is_zero())
            .map(|(j, a)| (vars.name(j).to_string(), Exact::new(a, digits(fmt))))
            .collect(),
        relation: c.kind.symbol().into(),
        rhs: Exact::new(&c.b, digits(fmt)),
        text: c.show(vars, fmt),
    }
}

fn level(var: &str, lb: &LevelBound, vars: &VarTable, fmt: NumFormat) -> QeLevel {
    let side = |s: &Side| QeSide { expr: s.expr.show(vars, fmt), strict: s.strict };
    match lb {
        LevelBound::Point(e) => QeLevel {
            variable: var.into(),
            equals: Some(e.show(vars, fmt)),
            lower: Vec::new(),
            upper: Vec::new(),
        },
        LevelBound::Range { lower, upper } => QeLevel {
            variable: var.into(),
            equals: None,
            lower: lower.iter().map(side).collect(),
            upper: upper.iter().map(side).collect(),
        },
    }
}

impl QeResultDoc {
    /// The result `r`, its numbers shown by `fmt`, with each piece's
    /// vertices, rays and lines when `with_vertices`.
    pub fn new(r: &QeResult, fmt: NumFormat, with_vertices: bool) -> QeResultDoc {
        let kind = if r.is_false() {
            "false"
        } else if r.is_true() {
            "true"
        } else {
            "formula"
        };
        let pieces = r
            .pieces
            .iter()
            .map(|p| {
                let g = &p.minimal.generators;
                let gens = |v: &Vec<Vec<Rat>>| {
                    with_vertices.then(|| v.iter().map(|x| point(x, &r.vars, fmt)).collect())
                };
                QePiece {
                    constraints: p
                        .minimal
                        .constraints()
                        .iter()
                        .map(|c| constraint(c, &r.vars, fmt))
                        .collect(),
                    cells: p
                        .cells
                        .iter()
                        .map(|c| QeCell {
                            text: crate::qe::output::cell_text(c, &r.vars, fmt),
                            levels: c
                                .levels
                                .iter()
                                .enumerate()
                                .map(|(j, lb)| level(r.vars.name(j), lb, &r.vars, fmt))
                                .collect(),
                        })
                        .collect(),
                    vertices: gens(&g.vertices),
                    rays: gens(&g.rays),
                    lines: gens(&g.lines),
                }
            })
            .collect();
        QeResultDoc {
            variables: r.vars.names().iter().map(|s| s.to_string()).collect(),
            result: kind.into(),
            text: crate::qe::output::text(r, fmt),
            pieces,
        }
    }
}
