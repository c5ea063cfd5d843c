//! First-order formulas of linear real arithmetic: the input and output of the
//! QE engine.

use crate::linear::{Constraint, Kind, LinExpr, VarId, VarTable};
use crate::num::{NumFormat, Rat};
use num_traits::Zero;

/// Relation of an atom `expr REL 0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rel {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `>=`
    Ge,
    /// `>`
    Gt,
}

impl Rel {
    /// The logical negation: `not (e < 0)` is `e >= 0`.
    pub fn negate(self) -> Rel {
        match self {
            Rel::Lt => Rel::Ge,
            Rel::Le => Rel::Gt,
            Rel::Eq => Rel::Ne,
            Rel::Ne => Rel::Eq,
            Rel::Ge => Rel::Lt,
            Rel::Gt => Rel::Le,
        }
    }
    /// Operator text.
    pub fn symbol(self) -> &'static str {
        match self {
            Rel::Lt => "<",
            Rel::Le => "<=",
            Rel::Eq => "=",
            Rel::Ne => "!=",
            Rel::Ge => ">=",
            Rel::Gt => ">",
        }
    }
}

/// An atom `expr REL 0` with `expr` affine in the problem's variables.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Atom {
    /// The affine form compared with zero.
    pub expr: LinExpr,
    /// The relation.
    pub rel: Rel,
}

impl Atom {
    /// `lhs REL rhs`.
    pub fn compare(lhs: &LinExpr, rel: Rel, rhs: &LinExpr) -> Atom {
        Atom { expr: lhs.sub(rhs), rel }
    }
    /// The atom as one or two constraints in `<=`, `<`, `=` form; `!=` gives
    /// `None` (it is a disjunction).
    pub fn to_constraint(&self) -> Option<Constraint> {
        let a = self.expr.coeffs.clone();
        let b = -self.expr.constant.clone();
        let neg = |v: &Vec<Rat>| v.iter().map(|c| -c).collect::<Vec<_>>();
        Some(match self.rel {
            Rel::Le => Constraint::new(a, Kind::Le, b),
            Rel::Lt => Constraint::new(a, Kind::Lt, b),
            Rel::Eq => Constraint::new(a, Kind::Eq, b),
            Rel::Ge => Constraint::new(neg(&a), Kind::Le, -b),
            Rel::Gt => Constraint::new(neg(&a), Kind::Lt, -b),
            Rel::Ne => return None,
        })
    }
    /// Truth value at a point.
    pub fn holds_at(&self, x: &[Rat]) -> bool {
        let v = self.expr.eval(x);
        let z = Rat::zero();
        match self.rel {
            Rel::Lt => v < z,
            Rel::Le => v <= z,
            Rel::Eq => v == z,
            Rel::Ne => v != z,
            Rel::Ge => v >= z,
            Rel::Gt => v > z,
        }
    }
}

/// A formula of linear real arithmetic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Formula {
    /// `true`
    True,
    /// `false`
    False,
    /// A linear (in)equality.
    Atom(Atom),
    /// Conjunction (empty = true).
    And(Vec<Formula>),
    /// Disjunction (empty = false).
    Or(Vec<Formula>),
    /// Negation.
    Not(Box<Formula>),
    /// `lhs implies rhs`.
    Implies(Box<Formula>, Box<Formula>),
    /// `exists vars: body`.
    Exists(Vec<VarId>, Box<Formula>),
    /// `forall vars: body`.
    Forall(Vec<VarId>, Box<Formula>),
}

impl Formula {
    /// Truth value at a point giving a value to every variable; quantifiers
    /// are not allowed here (evaluate the quantifier-free result instead).
    pub fn eval_qf(&self, x: &[Rat]) -> Option<bool> {
        Some(match self {
            Formula::True => true,
            Formula::False => false,
            Formula::Atom(a) => a.holds_at(x),
            Formula::And(fs) => {
                for f in fs {
                    if !f.eval_qf(x)? {
                        return Some(false);
                    }
                }
                true
            }
            Formula::Or(fs) => {
                for f in fs {
                    if f.eval_qf(x)? {
                        return Some(true);
                    }
                }
                false
            }
            Formula::Not(f) => !f.eval_qf(x)?,
            Formula::Implies(a, b) => !a.eval_qf(x)? || b.eval_qf(x)?,
            Formula::Exists(..) | Formula::Forall(..) => return None,
        })
    }

    /// Variables occurring free (not bound by a quantifier), sorted.
    pub fn free_vars(&self, n: usize) -> Vec<VarId> {
        let mut used = vec![false; n];
        self.collect_free(&mut used, &mut vec![false; n]);
        (0..n).filter(|&v| used[v]).collect()
    }

    fn collect_free(&self, used: &mut [bool], bound: &mut Vec<bool>) {
        match self {
            Formula::True | Formula::False => {}
            Formula::Atom(a) => {
                for (v, c) in a.expr.coeffs.iter().enumerate() {
                    if !c.is_zero() && !bound[v] {
                        used[v] = true;
                    }
                }
            }
            Formula::And(fs) | Formula::Or(fs) => fs.iter().for_each(|f| f.collect_free(used, bound)),
            Formula::Not(f) => f.collect_free(used, bound),
            Formula::Implies(a, b) => {
                a.collect_free(used, bound);
                b.collect_free(used, bound);
            }
            Formula::Exists(vs, f) | Formula::Forall(vs, f) => {
                let saved = bound.clone();
                for &v in vs {
                    bound[v] = true;
                }
                f.collect_free(used, bound);
                *bound = saved;
            }
        }
    }

    /// Plain-text rendering in errband's own syntax (parsable by `errband qe`).
    pub fn show(&self, vars: &VarTable, fmt: NumFormat) -> String {
        match self {
            Formula::True => "true".into(),
            Formula::False => "false".into(),
            Formula::Atom(a) => {
                let c = Constraint::new(a.expr.coeffs.clone(), Kind::Le, -a.expr.constant.clone());
                let lhs = crate::linear::show_terms(&c.a, None, vars, fmt);
                format!(
                    "{} {} {}",
                    if lhs.is_empty() { "0".into() } else { lhs },
                    a.rel.symbol(),
                    fmt.show(&c.b)
                )
            }
            Formula::And(fs) if fs.is_empty() => "true".into(),
            Formula::Or(fs) if fs.is_empty() => "false".into(),
            Formula::And(fs) => join(fs, " and ", vars, fmt),
            Formula::Or(fs) => join(fs, " or ", vars, fmt),
            Formula::Not(f) => format!("not ({})", f.show(vars, fmt)),
            Formula::Implies(a, b) => format!("({}) implies ({})", a.show(vars, fmt), b.show(vars, fmt)),
            Formula::Exists(vs, f) | Formula::Forall(vs, f) => {
                let q = if matches!(self, Formula::Exists(..)) { "exists" } else { "forall" };
                let names: Vec<&str> = vs.iter().map(|&v| vars.name(v)).collect();
                format!("{} {}: ({})", q, names.join(", "), f.show(vars, fmt))
            }
        }
    }
}

fn join(fs: &[Formula], sep: &str, vars: &VarTable, fmt: NumFormat) -> String {
    fs.iter()
        .map(|f| match f {
            Formula::And(_) | Formula::Or(_) | Formula::Implies(..) => format!("({})", f.show(vars, fmt)),
            _ => f.show(vars, fmt),
        })
        .collect::<Vec<_>>()
        .join(sep)
}

/// A parsed `errband qe` problem: the variable names and the formula.
#[derive(Debug, Clone)]
pub struct Problem {
    /// All variables (bound and free), in order of first appearance.
    pub vars: VarTable,
    /// The formula; every [`LinExpr`] in it has `vars.len()` coefficients.
    pub formula: Formula,
}
