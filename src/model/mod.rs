//! Run-time models: the `.tm` language ([`syntax`]), name resolution, the
//! check that the model is affine in its parameters, and exact evaluation of
//! the basis `T(c, x) = f0(x) + Σ c_j f_j(x)` at data and prediction points.

mod compile;
mod declare;
pub mod extrap;
mod points;
mod spec;
pub mod syntax;

pub use compile::{EvalError, EvalLog, Inexact};
pub use points::{PointSet, Product, Values};
pub use spec::Spec;

use crate::lang::diag::Diagnostic;
use crate::lang::expr::Expr;
use crate::limits::{Limit, Limits};
use crate::num::{fmt_fraction, fmt_sig, Rat};
use compile::{Binding, Node};
use num_traits::{One, Signed, ToPrimitive};
use std::collections::BTreeMap;
use std::ops::Range;
use syntax::{Assignment, Item, Step};

/// How the parameters get their values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FitMode {
    /// Exact (weighted) least squares on the data.
    LeastSquares,
    /// The values given in the `param` statement (`fit none`).
    Given,
}

/// A parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// Its name.
    pub name: String,
    /// The value given in the model, if any.
    pub given: Option<Rat>,
    /// Span of its declaration.
    pub span: Range<usize>,
}

/// A parsed and checked model.
#[derive(Debug, Clone)]
pub struct Model {
    /// File name, as shown in messages.
    pub file: String,
    /// The source text (kept to render diagnostics found later, at data
    /// points); shared, not copied, by clones and by the `family` forms.
    pub source: std::sync::Arc<str>,
    /// The function name (`T`), also the default data column of the measured value.
    pub func: String,
    /// Variables, in the order of `T(p, n)`.
    pub vars: Vec<String>,
    /// Constants and their exact values, in declaration order.
    pub consts: Vec<(String, Rat)>,
    /// Parameters, in declaration order.
    pub params: Vec<Param>,
    /// Fit or use given values.
    pub fit: FitMode,
    /// Prediction points from `predict` statements (one value per variable).
    pub predict: Vec<Vec<Rat>>,
    /// Units from `unit` statements.
    pub units: BTreeMap<String, String>,
    /// Source text of the model's right-hand side.
    pub body_text: String,
    /// Source text of the weight expression.
    pub weight_text: Option<String>,
    /// Span of the weight expression.
    pub weight_span: Option<Range<usize>>,
    /// Alternative forms from `family` lines, each a model of its own
    /// with this one's variables, constants, weight and units (sharing its
    /// source; without its `predict` points, which a family's analysis is
    /// given).
    pub family: Vec<Model>,
    body: Node,
    weight: Option<Node>,
    log: EvalLog,
    /// Work remembered across the series of an experiment, shared by clones.
    memo: Memo,
}

/// What a model remembers between series: the alternatives compiled from
/// its text (a family compiles the same forms for every series) and its
/// basis at data points (a family evaluates every form at the same points
/// for every series). Both are fixed by the model's compiled body, which
/// never changes after construction; a clone shares them.
#[derive(Clone, Default)]
struct Memo {
    alternatives: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, Model>>>,
    basis: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<Vec<Rat>, Basis>>>,
}

/// The basis at a point and the rounded values met evaluating it.
type Basis = (Vec<Rat>, Vec<(Inexact, Rat)>);

/// Most points whose basis a model remembers, and most alternatives (an
/// experiment whose series are measured at different points does not
/// grow without end).
const MEMO_CAP: usize = 1024;

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Memo")
    }
}

/// A one-variable slice of a model's variables ([`Model::slice`]): the
/// axis variable and the values of the others (`fixed[axis]` is unused).
#[derive(Debug, Clone, PartialEq)]
pub struct Slice {
    /// Index of the free variable.
    pub axis: usize,
    /// Values of the fixed variables, by index.
    pub fixed: Vec<Rat>,
}

impl Model {
    /// Parses and checks a `.tm` model. Inexact function values (log2 of a
    /// non-power of two, sqrt, ln, exp) and irrational powers (`3^(5/4)`)
    /// are rounded to `digits` significant digits.
    pub fn parse(source: &str, file: &str, digits: u32) -> Result<Model, Diagnostic> {
        Model::parse_with(source, file, digits, &Limits::default())
    }

    /// [`Model::parse`] with the default precision of inexact values
    /// (`log2(3)` and the like correctly rounded to
    /// [`crate::num::transcendental::DEFAULT_DIGITS`] significant digits)
    /// and the default limits. The returned diagnostic carries the source,
    /// so its `Display` is the full located report.
    pub fn from_source(source: &str, file: &str) -> Result<Model, Diagnostic> {
        Model::parse(source, file, crate::num::transcendental::DEFAULT_DIGITS)
            .map_err(|d| d.with_source(source.into()))
    }

    /// Fills in the units the model does not state from a data file's
    /// header (`p,T [us]`: `T` in µs): the model's own `unit` statements
    /// win. Reports and plots label values with these.
    pub fn complete_units(&mut self, header: &BTreeMap<String, String>) {
        for (name, unit) in header {
            self.units.entry(name.clone()).or_insert_with(|| unit.clone());
        }
    }

    /// [`Model::parse`] holding literals, powers and point lists to `limits`
    /// (kept for every later evaluation of the model).
    ///
    /// Four phases: the statements ([`syntax::parse`]); the declarations,
    /// each name declared once (`model::declare`); the body and
    /// weight compiled against them, every parameter used; then the
    /// prediction points and the `family` forms, which need the model.
    pub fn parse_with(source: &str, file: &str, digits: u32, limits: &Limits) -> Result<Model, Diagnostic> {
        let stmts = syntax::parse(source, file, limits)?;
        let mut log = EvalLog::new(digits);
        log.limits = *limits;
        let d = declare::Declarations::collect(stmts, file, source, &mut log)?;
        let err = |span: Range<usize>, m: String| Diagnostic::new(file, span, m);
        let fit = d.fit.as_ref().map_or(FitMode::LeastSquares, |f| f.0);
        if fit == FitMode::Given {
            if let Some(p) = d.params.iter().find(|p| p.given.is_none()) {
                return Err(err(
                    p.span.clone(),
                    format!("`fit none` needs a value for every parameter; `{}` has none", p.name),
                )
                .with_help(format!("write `param {} = VALUE`", p.name)));
            }
        }
        let (body, weight) = d.compile(file, source, &mut log)?;
        d.check_units(file)?;
        let (func, vars, body_expr, _) = d.define;
        let body_text = source.get(body_expr.span.clone()).unwrap_or("").to_string();
        let weight_text = d.weight.as_ref().and_then(|(e, _)| source.get(e.span.clone())).map(str::to_string);
        let weight_span = d.weight.as_ref().map(|(e, _)| e.span.clone());
        let mut model = Model {
            file: file.to_string(),
            source: std::sync::Arc::from(source),
            func,
            vars,
            consts: d.consts,
            params: d.params,
            fit,
            predict: Vec::new(),
            units: d.units,
            body_text,
            weight_text,
            weight_span,
            family: Vec::new(),
            body,
            weight,
            log,
            memo: Memo::default(),
        };
        model.predict = model.predict_points(&d.predict_groups, file, source)?;
        for ((name, nspan), fvars, body) in d.family {
            model.add_family(name, nspan, &fvars, &body, file)?;
        }
        Ok(model)
    }

    /// The points of all `predict` statements. The limit holds for them
    /// together: each point costs a band per threshold.
    fn predict_points(
        &self,
        groups: &[Vec<Assignment>],
        file: &str,
        source: &str,
    ) -> Result<Vec<Vec<Rat>>, Diagnostic> {
        let limits = self.limits();
        let mut predict = Vec::new();
        for g in groups {
            predict.extend(self.points(g, file, source)?);
            if predict.len() > limits.points {
                let span = g.first().map_or(0..0, |a| a.span.start..g.last().map_or(0, |l| l.span.end));
                let flag = Limit::Points.flag();
                let m = format!(
                    "the `predict` statements give more than {} points (raise the limit with {flag})",
                    limits.points
                );
                return Err(Diagnostic::new(file, span, m));
            }
        }
        Ok(predict)
    }

    /// Adds the form of a `family NAME(fvars) = body` line, which must name
    /// this model and its variables in order.
    fn add_family(
        &mut self,
        name: String,
        nspan: Range<usize>,
        fvars: &[syntax::Name],
        body: &Expr,
        file: &str,
    ) -> Result<(), Diagnostic> {
        let err = |span: Range<usize>, m: String| Diagnostic::new(file, span, m);
        if name != self.func {
            return Err(err(
                nspan,
                format!("the model is `{}`; a `family` line gives another form of it", self.func),
            )
            .with_help(format!("write `family {}({}) = ...`", self.func, self.vars.join(", "))));
        }
        let names: Vec<&str> = fvars.iter().map(|v| v.0.as_str()).collect();
        if names != self.vars.iter().map(String::as_str).collect::<Vec<_>>() {
            let span =
                fvars.first().map_or(nspan.clone(), |f| f.1.start..fvars.last().map_or(f.1.end, |l| l.1.end));
            return Err(err(
                span,
                format!("an alternative form takes the model's variables, ({})", self.vars.join(", ")),
            ));
        }
        let shared = self.source.clone();
        let alt = self.alternative_expr(body, &shared, file)?;
        self.family.push(alt);
        Ok(())
    }

    /// Points written as options (`--at p=1000`, `p=100..800:100`, named
    /// `what` in messages), expanded, each once, in order; errors are
    /// rendered against the text that fails.
    pub fn points_args(&self, texts: &[String], what: &str) -> Result<Vec<Vec<Rat>>, String> {
        Ok(self.point_set(texts, what)?.to_vec())
    }

    /// The points of [`Model::points_args`] as the ranges and lists they
    /// were written as, enumerated on demand (`--at p=1..1000000` streamed).
    pub fn point_set(&self, texts: &[String], what: &str) -> Result<PointSet, String> {
        let mut products = Vec::with_capacity(texts.len());
        for s in texts {
            let assigns = syntax::parse_assignments_arg(s, what, self.limits()).map_err(|e| e.render(s))?;
            products.push(self.product(&assigns, what, s).map_err(|e| e.render(s))?);
        }
        Ok(PointSet::new(products))
    }

    /// The points one `prune` candidate drops, from its text: a variable
    /// given again starts a new point (`p=10,p=20` is two points,
    /// `p=128,n=4000` one, `p=10,20` a list).
    pub fn dropped_points(&self, text: &str, what: &str) -> Result<Vec<Vec<Rat>>, String> {
        let mut out = Vec::new();
        for part in syntax::split_points(text) {
            out.extend(self.points_args(std::slice::from_ref(&part), what)?);
        }
        Ok(out)
    }

    /// `plan`'s candidate points: [`Model::points_args`] that also reads
    /// `p=130..300 step 10` (words, as a shell splits them) as `p=130..300:10`.
    pub fn candidate_points(&self, args: &[String], what: &str) -> Result<Vec<Vec<Rat>>, String> {
        self.points_args(&syntax::normalise_step(args), what)
    }

    /// Another form of this model: `body`, an expression over the model's
    /// variables and constants in which every other name is a parameter
    /// (fitted; `source` and `file` are the text its spans point into).
    /// Variables, constants, weight and units are this model's; prediction
    /// points are not copied (a family's analysis is given them).
    fn alternative_expr(
        &self,
        body: &Expr,
        source: &std::sync::Arc<str>,
        file: &str,
    ) -> Result<Model, Diagnostic> {
        let mut params: Vec<Param> = Vec::new();
        for (n, span) in body.names() {
            let known = self.vars.iter().any(|v| v == n)
                || self.consts.iter().any(|(c, _)| c == n)
                || params.iter().any(|p| p.name == n);
            if !known {
                params.push(Param { name: n.to_string(), given: None, span });
            }
        }
        if params.is_empty() {
            return Err(Diagnostic::new(file, body.span.clone(), "the alternative form has no parameters")
                .with_help(
                    "every name that is not a variable or a constant is a fitted parameter: `c0 + c1*p`",
                ));
        }
        let mut log = self.log.clone();
        let env = |n: &str| -> Option<Binding> {
            if let Some(i) = self.vars.iter().position(|v| v == n) {
                return Some(Binding::Var(i));
            }
            if let Some(j) = params.iter().position(|p| p.name == n) {
                return Some(Binding::Param(j));
            }
            self.consts.iter().find(|(c, _)| c == n).map(|(_, v)| Binding::Const(v.clone()))
        };
        let node = compile::compile(body, &env, file, source, &mut log)?;
        Ok(Model {
            file: file.to_string(),
            source: source.clone(),
            func: self.func.clone(),
            vars: self.vars.clone(),
            consts: self.consts.clone(),
            params,
            fit: FitMode::LeastSquares,
            // A family's analysis is given its points; a copy per form of a
            // long `predict` list would grow with forms × points.
            predict: Vec::new(),
            units: self.units.clone(),
            body_text: source.get(body.span.clone()).unwrap_or("").to_string(),
            weight_text: self.weight_text.clone(),
            weight_span: self.weight_span.clone(),
            family: Vec::new(),
            body: node,
            weight: self.weight.clone(),
            log,
            memo: Memo::default(),
        })
    }

    /// Another form of this model from the text of its right-hand side
    /// (`c0 + c1*p^(5/4)*log2(p)`): every name that is not a variable or a
    /// constant is a fitted parameter. The text is appended to the model's
    /// source, so that located messages point into it.
    pub fn alternative(&self, text: &str) -> Result<Model, Diagnostic> {
        // The same text compiles to the same form: an experiment's series
        // share one compilation (and with it the form's remembered basis).
        // (Remembered only while what the form takes from this model is
        // unchanged: its fields are public, and a caller may edit a clone.)
        if let Some(m) = self.memo.alternatives.lock().ok().and_then(|m| m.get(text).cloned()) {
            if self.shares_context(&m) {
                return Ok(m);
            }
            return self.compile_alternative(text);
        }
        let m = self.compile_alternative(text)?;
        if let Ok(mut memo) = self.memo.alternatives.lock() {
            if memo.len() < MEMO_CAP {
                memo.insert(text.to_string(), m.clone());
            }
        }
        Ok(m)
    }

    /// Whether `alt`, an alternative of this model, took from it what it
    /// would take now ([`Model::alternative_expr`]).
    fn shares_context(&self, alt: &Model) -> bool {
        alt.file == self.file
            && alt.func == self.func
            && alt.vars == self.vars
            && alt.consts == self.consts
            && alt.units == self.units
            && alt.weight_text == self.weight_text
            && alt.log.digits == self.log.digits
            && alt.log.limits == self.log.limits
    }

    fn compile_alternative(&self, text: &str) -> Result<Model, Diagnostic> {
        let combined: std::sync::Arc<str> = std::sync::Arc::from(format!("{}\n{}", self.source, text));
        let start = self.source.len() + 1;
        let mut p = crate::lang::parser::Parser::new(&combined, &self.file)?.with_limits(*self.limits());
        p.restore(start);
        let body = p.parse_expr()?;
        if !p.at_eof() {
            return Err(p.unexpected("the end of the form"));
        }
        self.alternative_expr(&body, &combined, &self.file)
    }

    /// Number of parameters.
    pub fn k(&self) -> usize {
        self.params.len()
    }

    /// The limits the model was parsed with (kept for its evaluations).
    pub fn limits(&self) -> &Limits {
        &self.log.limits
    }

    /// Significant digits used for inexact function values.
    pub fn digits(&self) -> u32 {
        self.log.digits
    }

    /// A fresh evaluation log (it already holds the inexact values met
    /// while folding the model's constants).
    pub fn new_log(&self) -> EvalLog {
        self.log.clone()
    }

    /// `[f0(x), f1(x), .., fk(x)]` with `T(c, x) = f0 + Σ c_j f_j`.
    pub fn basis_at(&self, x: &[Rat], log: &mut EvalLog) -> Result<Vec<Rat>, EvalError> {
        compile::affine(&self.body, x, self.k(), log)
    }

    /// Whether [`Model::basis_at`] succeeds at `x`, and its error where it
    /// does not; the basis itself is only formed when the machine-word path
    /// cannot decide.
    pub(crate) fn evaluable_at(&self, x: &[Rat], log: &mut EvalLog) -> Result<(), EvalError> {
        if compile::evaluates_fast(&self.body, x, self.k(), &log.limits) {
            return Ok(());
        }
        self.basis_at(x, log).map(|_| ())
    }

    /// True when [`Model::basis_at`] is shown to succeed at every point
    /// whose variables lie in `within` (per variable, in the model's order),
    /// decided for the whole box at once; `false` when that is not shown
    /// (the points must then be checked one by one).
    pub(crate) fn evaluable_within(
        &self,
        within: &[compile::VarBox],
        limits: &crate::limits::Limits,
    ) -> bool {
        within.len() == self.vars.len() && compile::evaluates_within(&self.body, within, limits)
    }

    /// [`Model::basis_at`] at a data point, remembered by point for logs
    /// with the model's own settings: the same values, and the same rounded
    /// values recorded in `log`. For the few points of a fit (not for a
    /// range of prediction points, which would only fill the memory).
    pub(crate) fn basis_at_data(&self, x: &[Rat], log: &mut EvalLog) -> Result<Vec<Rat>, EvalError> {
        if log.digits != self.log.digits || log.limits != self.log.limits {
            return self.basis_at(x, log);
        }
        if let Some((b, inexact)) = self.memo.basis.lock().ok().and_then(|m| m.get(x).cloned()) {
            log.inexact.extend(inexact);
            return Ok(b);
        }
        let mut fresh = log.clone_settings();
        let b = self.basis_at(x, &mut fresh)?;
        let inexact: Vec<(Inexact, Rat)> = fresh.inexact.into_iter().collect();
        log.inexact.extend(inexact.iter().cloned());
        if let Ok(mut memo) = self.memo.basis.lock() {
            if memo.len() < MEMO_CAP {
                memo.insert(x.to_vec(), (b.clone(), inexact));
            }
        }
        Ok(b)
    }

    /// The columns of this model's data: one per variable and one for its
    /// response, named as in the model, under the model's limits.
    pub fn columns(&self) -> crate::data::ColumnSpec {
        crate::data::ColumnSpec {
            vars: self.vars.clone(),
            y: self.func.clone(),
            limits: *self.limits(),
            ..Default::default()
        }
    }

    /// Reads `text` (CSV, or Extra-P's text format) as measurements of this
    /// model ([`Model::columns`]); [`crate::data::read`] takes any
    /// [`crate::data::ColumnSpec`] (renamed columns, an Extra-P region and
    /// metric).
    pub fn read_data(&self, text: &str, file: &str) -> Result<crate::data::Dataset, crate::data::DataError> {
        crate::data::read(text, file, &self.columns())
    }

    /// The weight at `x` (1 without a `weight` statement).
    pub fn weight_at(&self, x: &[Rat], log: &mut EvalLog) -> Result<Rat, EvalError> {
        match &self.weight {
            None => Ok(Rat::one()),
            Some(w) => compile::scalar(w, x, log),
        }
    }

    /// Drops the `weight` statement (plain least squares; `--unweighted`).
    pub fn clear_weight(&mut self) {
        self.weight = None;
        self.weight_text = None;
        self.weight_span = None;
    }

    /// True when the model has a `weight` statement.
    pub fn is_weighted(&self) -> bool {
        self.weight.is_some()
    }

    /// An evaluation error at `x` as a located diagnostic, `context` saying
    /// where `x` came from (e.g. "data.csv line 3").
    pub fn eval_diagnostic(&self, e: &EvalError, x: &[Rat], context: &str) -> Diagnostic {
        Diagnostic::new(
            &self.file,
            e.span.clone(),
            format!("{} at {} ({context})", e.message, self.show_point(x)),
        )
        .with_source(self.source.clone())
    }

    /// `p = 10, n = 1000`.
    pub fn show_point(&self, x: &[Rat]) -> String {
        self.vars
            .iter()
            .zip(x)
            .map(|(v, val)| format!("{v} = {}", show_value(val)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The values each assignment gives, by variable (`None`: not given);
    /// located errors for unknown and repeated names.
    fn values_per_var(
        &self,
        assigns: &[Assignment],
        file: &str,
        source: &str,
    ) -> Result<Vec<Option<Values>>, Diagnostic> {
        let err = |span: Range<usize>, m: String| Diagnostic::new(file, span, m);
        let mut per_var: Vec<Option<Values>> = vec![None; self.vars.len()];
        let mut log = self.log.clone();
        for a in assigns {
            let i = self.vars.iter().position(|v| v == &a.var).ok_or_else(|| {
                err(a.span.clone(), format!("`{}` is not a variable of the model", a.var))
                    .with_help(format!("the model's variables are: {}", self.vars.join(", ")))
            })?;
            if per_var[i].is_some() {
                return Err(err(a.span.clone(), format!("`{}` is given twice", a.var)));
            }
            let mut vals = Values::new();
            for it in &a.items {
                self.expand(it, &mut vals, file, source, &mut log)?;
            }
            per_var[i] = Some(vals);
        }
        Ok(per_var)
    }

    /// A one-variable slice of a multi-variable model for plots
    /// (`--plot-at n=16000`): every variable but one fixed at one value; the
    /// one left free is the plot's axis.
    pub fn slice(&self, assigns: &[Assignment], file: &str, source: &str) -> Result<Slice, Diagnostic> {
        let whole = assigns.first().map_or(0..0, |a| a.span.start..assigns.last().map_or(0, |l| l.span.end));
        let err = |m: String| Diagnostic::new(file, whole.clone(), m);
        let per_var = self.values_per_var(assigns, file, source)?;
        let free: Vec<usize> = (0..self.vars.len()).filter(|&i| per_var[i].is_none()).collect();
        let [axis] = free[..] else {
            return Err(err(if free.is_empty() {
                format!(
                    "every variable is fixed; leave one of {} free for the plot's axis",
                    self.vars.join(", ")
                )
            } else {
                format!(
                    "{} are free; fix all but one (the plot's axis), e.g. `{} = …`",
                    free.iter().map(|&i| format!("`{}`", self.vars[i])).collect::<Vec<_>>().join(", "),
                    self.vars[free[1]]
                )
            })
            .with_help("a slice fixes every variable but the plotted one at one value"));
        };
        let mut fixed = vec![<Rat as num_traits::Zero>::zero(); self.vars.len()];
        for (i, v) in per_var.into_iter().enumerate() {
            match v {
                None => {}
                Some(v) if v.len() == 1 => fixed[i] = v.get(0),
                Some(_) => return Err(err(format!("`{}` needs exactly one value in a slice", self.vars[i]))),
            }
        }
        Ok(Slice { axis, fixed })
    }

    /// Expands value assignments (from `predict`, `--at`, `--drop`) into
    /// points: the Cartesian product of each variable's values, in the
    /// model's variable order. Every variable must be given, once.
    pub fn points(
        &self,
        assigns: &[Assignment],
        file: &str,
        source: &str,
    ) -> Result<Vec<Vec<Rat>>, Diagnostic> {
        Ok(PointSet::new(vec![self.product(assigns, file, source)?]).to_vec())
    }

    /// The points of [`Model::points`] as a product of value sequences.
    fn product(&self, assigns: &[Assignment], file: &str, source: &str) -> Result<Product, Diagnostic> {
        let err = |span: Range<usize>, m: String| Diagnostic::new(file, span, m);
        let per_var = self.values_per_var(assigns, file, source)?;
        let mut lists = Vec::new();
        for (i, v) in per_var.into_iter().enumerate() {
            match v {
                Some(l) => lists.push(l),
                None => {
                    let span = assigns.last().map_or(0..0, |a| a.span.clone());
                    return Err(err(span, format!("no values for the variable `{}`", self.vars[i]))
                        .with_help(format!("give every variable: e.g. `{} = ...`", self.vars[i])));
                }
            }
        }
        let max = self.log.limits.points;
        let total = lists.iter().try_fold(1usize, |acc, l| acc.checked_mul(l.len())).filter(|&t| t <= max);
        if total.is_none() {
            let span =
                assigns.first().map_or(0..0, |a| a.span.start..assigns.last().map_or(0, |l| l.span.end));
            return Err(err(span, format!("too many points {}", Limit::Points.note(&self.log.limits))));
        }
        Ok(Product::new(lists, total.unwrap_or(0)))
    }

    fn constant(&self, e: &Expr, file: &str, source: &str, log: &mut EvalLog) -> Result<Rat, Diagnostic> {
        let env = |n: &str| self.consts.iter().find(|(c, _)| c == n).map(|(_, v)| Binding::Const(v.clone()));
        let node = compile::compile(e, &env, file, source, log).map_err(|d| {
            if d.message.starts_with("unknown name") {
                d.with_help("values here must be numbers or the model's constants")
            } else {
                d
            }
        })?;
        compile::scalar(&node, &[], log).map_err(|e| Diagnostic::new(file, e.span, e.message))
    }

    fn expand(
        &self,
        it: &Item,
        out: &mut Values,
        file: &str,
        source: &str,
        log: &mut EvalLog,
    ) -> Result<(), Diagnostic> {
        let err = |span: Range<usize>, m: String| Diagnostic::new(file, span, m);
        match it {
            Item::Value(e) => out.push_value(self.constant(e, file, source, log)?),
            Item::Range { from, to, step, span } => {
                let a = self.constant(from, file, source, log)?;
                let b = self.constant(to, file, source, log)?;
                if a > b {
                    return Err(err(
                        span.clone(),
                        format!("empty range: {} > {}", show_value(&a), show_value(&b)),
                    ));
                }
                let mut x = a;
                let mut n = 0usize;
                let max = log.limits.points;
                let flag = Limit::Points.flag();
                let too_long = || {
                    err(
                        span.clone(),
                        format!("the range has more than {max} values (raise the limit with {flag})"),
                    )
                };
                match step {
                    None | Some(Step::Add(_)) => {
                        let s = match step {
                            Some(Step::Add(e)) => self.constant(e, file, source, log)?,
                            _ => Rat::one(),
                        };
                        if !s.is_positive() {
                            return Err(err(span.clone(), "the step of a range must be positive".into()));
                        }
                        // Count first: a long range is refused before it is built.
                        let count: num_bigint::BigInt = ((&b - &x) / &s).floor().to_integer() + 1;
                        if count > num_bigint::BigInt::from(max) {
                            return Err(too_long());
                        }
                        // Kept as a range: its values are formed when used.
                        out.push_range(x, s, count.to_usize().unwrap_or(0));
                        return Ok(());
                    }
                    Some(Step::Mul(e)) => {
                        let f = self.constant(e, file, source, log)?;
                        if f <= Rat::one() || !x.is_positive() {
                            return Err(err(span.clone(), "a range `a..b:*f` needs a > 0 and f > 1".into()));
                        }
                        // ln(b/a)/ln(f) estimates the count; a factor barely above 1 would
                        // otherwise build a million ever longer fractions before the limit.
                        let estimate = ln_estimate(&(&b / &x)) / ln_estimate(&f);
                        // NaN (never expected) counts as too long.
                        if estimate.is_nan() || estimate > max as f64 * 1.01 {
                            return Err(too_long());
                        }
                        // A factor with a large denominator makes each value longer
                        // than the last (1.0001^k): quadratic work in the count.
                        let max_digits = log.limits.digits as u64;
                        while x <= b {
                            out.push_value(x.clone());
                            x *= &f;
                            n += 1;
                            if n > max {
                                return Err(too_long());
                            }
                            let digits = Limits::digits_of_bits(x.numer().bits() + x.denom().bits());
                            if digits > max_digits && x <= b {
                                return Err(err(
                                    span.clone(),
                                    format!(
                                        "value {n} of the range has about {digits} digits (limit {max_digits}; raise it with {})",
                                        Limit::Digits.flag()
                                    ),
                                )
                                .with_help("a factor such as 1.0001 makes every value longer than the last; use an additive step or a shorter factor"));
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// ln x for x > 1, from its float value, or from its bit lengths when it
/// overflows a float (then slightly low, which only lets a loop run).
fn ln_estimate(x: &Rat) -> f64 {
    let v = crate::num::to_f64(x);
    if v.is_finite() {
        v.ln()
    } else {
        (x.numer().bits() as f64 - x.denom().bits() as f64 - 1.0) * std::f64::consts::LN_2
    }
}

fn uses_param(n: &Node, j: usize) -> bool {
    use compile::NodeKind as K;
    match &n.kind {
        K::Param(i) => *i == j,
        K::Num(_) | K::Var(_) => false,
        K::Neg(x) => uses_param(x, j),
        K::Bin(_, l, r) => uses_param(l, j) || uses_param(r, j),
        K::Call(_, a) => a.iter().any(|x| uses_param(x, j)),
    }
}

/// Expands a bare value list from the command line (`16,64,256`,
/// `2..4096:*2`, `8..128:8`) with the model language's range syntax, naming
/// it `what` in errors (render them against `text`).
pub fn value_list(text: &str, what: &str, limits: &Limits) -> Result<Vec<Rat>, Diagnostic> {
    let items = syntax::parse_items_arg(text, what, limits)?;
    let m =
        Model::parse_with("T(v) = c*v\nparam c", what, crate::num::transcendental::DEFAULT_DIGITS, limits)?;
    let mut log = m.log.clone();
    let mut out = Values::new();
    for it in &items {
        m.expand(it, &mut out, what, text, &mut log)?;
        if out.len() > limits.points {
            return Err(Diagnostic::new(
                what,
                0..text.len(),
                format!("too many values {}", Limit::Points.note(limits)),
            ));
        }
    }
    Ok(out.to_vec())
}

pub use crate::num::show_value;

/// Inexact function values and powers as report lines (`log2(3) ≈
/// 1.58496...`, `3^(5/4) ≈ 3.94822...`), at most `limit`.
pub fn inexact_notes(log: &EvalLog, limit: usize) -> Vec<String> {
    let digits = log.digits as usize;
    log.inexact
        .iter()
        .take(limit)
        .map(|(what, v)| match what {
            Inexact::Call(f, a) => format!("{}({}) ≈ {}", f.name(), show_value(a), fmt_sig(v, digits)),
            Inexact::Pow(b, k) => {
                let base = show_value(b);
                let base = if base.contains('/') { format!("({base})") } else { base };
                format!("{base}^({}) ≈ {}", fmt_fraction(k), fmt_sig(v, digits))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::{frac, int, parse_rat};

    const HPL: &str = "# HPL\nT(p) = a * (1/p + c1 + c2*(p - 1)^2)\nconst a = 26022\nparam c1, c2\nweight p\npredict p = 200, 500, 1000, 2000..10000:2000\n";

    fn r(s: &str) -> Rat {
        parse_rat(s).unwrap()
    }

    #[test]
    fn products_and_powers_of_rounded_values_are_rounded_again() {
        use crate::num::round_sig;
        use crate::num::transcendental::{apply, Func};
        let m = Model::parse(
            "T(p) = c0 + c1*log2(p)^7 + c2*log2(p)*sqrt(p) + c3*(log2(p) + 1)\nparam c0, c1, c2, c3",
            "m.tm",
            40,
        )
        .unwrap();
        let mut log = m.new_log();
        let b = m.basis_at(&[int(3)], &mut log).unwrap();
        let l = apply(Func::Log2, &int(3), 40).unwrap().value;
        let s = apply(Func::Sqrt, &int(3), 40).unwrap().value;
        // Seven times the digits of log2(3) if kept exact; 40 significant digits here.
        assert_eq!(b[2], round_sig(&num_traits::pow(l.clone(), 7), 40));
        assert_eq!(b[3], round_sig(&(&l * &s), 40));
        // Sums stay exact.
        assert_eq!(b[4], &l + Rat::one());
        // Exact values are never rounded.
        let mut log = m.new_log();
        let b = m.basis_at(&[int(8)], &mut log).unwrap();
        assert_eq!(b[2], int(3i64.pow(7)));
    }

    #[test]
    fn header_units_fill_in_what_the_model_does_not_state() {
        let mut m = Model::parse("T(p) = a/p\nparam a\nunit p = nodes\n", "m.tm", 40).unwrap();
        let header: BTreeMap<String, String> =
            [("p", "cores"), ("T", "us")].iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        m.complete_units(&header);
        assert_eq!(m.units.get("T").map(String::as_str), Some("us"));
        assert_eq!(m.units.get("p").map(String::as_str), Some("nodes"), "the model's statement wins");
    }

    #[test]
    fn hpl_model_basis_and_predictions() {
        let m = Model::parse(HPL, "hpl.tm", 40).unwrap();
        assert_eq!(m.vars, vec!["p"]);
        assert_eq!(m.k(), 2);
        let mut log = m.new_log();
        let b = m.basis_at(&[int(10)], &mut log).unwrap();
        assert_eq!(b, vec![frac(26022, 10), int(26022), int(26022 * 81)]);
        assert_eq!(m.weight_at(&[int(10)], &mut log).unwrap(), int(10));
        let pts: Vec<Rat> = m.predict.iter().map(|p| p[0].clone()).collect();
        assert_eq!(pts, ["200", "500", "1000", "2000", "4000", "6000", "8000", "10000"].map(r).to_vec());
    }

    #[test]
    fn point_arguments_expand_ranges_and_keep_first_occurrences_in_order() {
        let m = Model::parse("T(p, n) = c0 + c1*n/p\nparam c0, c1", "m.tm", 40).unwrap();
        let args = |xs: &[&str]| m.points_args(&xs.iter().map(|s| s.to_string()).collect::<Vec<_>>(), "--at");
        let got = args(&["p=1..3, n=1/2", "p = 2..4:2, n = 1/2", "p=-3/2..1:1/2, n=0.5"]).unwrap();
        let want: Vec<Vec<Rat>> = [
            ("1", "1/2"),
            ("2", "1/2"),
            ("3", "1/2"),
            ("4", "1/2"),
            ("-3/2", "1/2"),
            ("-1", "1/2"),
            ("-1/2", "1/2"),
            ("0", "1/2"),
            ("1/2", "1/2"),
        ]
        .iter()
        .map(|(p, n)| vec![r(p), r(n)])
        .collect();
        assert_eq!(got, want);
        // An integer range ends at the last value below a fractional end.
        let got = args(&["p=-2..3/2:2, n=1"]).unwrap();
        assert_eq!(got, vec![vec![int(-2), int(1)], vec![int(0), int(1)]]);
        assert!(args(&["p=1..10000000, n=1"]).unwrap_err().contains("more than"));
    }

    #[test]
    fn given_values_and_fit_none() {
        let m = Model::parse("T(p) = s + w/p\nparam s = 1.5, w = 2e3\nfit none", "a.tm", 40).unwrap();
        assert_eq!(m.fit, FitMode::Given);
        assert_eq!(m.params[1].given, Some(int(2000)));
        let e = Model::parse("T(p) = s + w/p\nparam s = 1.5, w\nfit none", "a.tm", 40).unwrap_err();
        assert!(e.message.contains("`w` has none"), "{}", e.message);
    }

    #[test]
    fn remembered_bases_and_alternatives_are_the_computed_ones() {
        let base = Model::parse("T(p) = c0 + c1*p\nparam c0, c1", "m.tm", 40).unwrap();
        let text = "c0 + c1*p^(1/3)*log2(p)";
        let form = base.alternative(text).unwrap();
        // The second compilation of the text is the first, with its memory.
        let again = base.alternative(text).unwrap();
        assert!(std::sync::Arc::ptr_eq(&form.memo.basis, &again.memo.basis));
        for x in [int(3), int(5), int(3), frac(7, 2)] {
            let (mut direct, mut remembered) = (form.new_log(), form.new_log());
            let x = std::slice::from_ref(&x);
            let want = form.basis_at(x, &mut direct).unwrap();
            // Twice: computed, then recalled; each time the same values and log.
            for _ in 0..2 {
                assert_eq!(again.basis_at_data(x, &mut remembered).unwrap(), want);
                assert_eq!(remembered.inexact, direct.inexact);
            }
        }
        // A clone edited where the form reads it compiles the form anew.
        let mut edited = base.clone();
        edited.consts.push(("k".into(), int(2)));
        let other = edited.alternative(text).unwrap();
        assert!(!std::sync::Arc::ptr_eq(&other.memo.basis, &form.memo.basis));
        assert_eq!(other.consts.len(), 1);
        // A log with other settings is not served from the memory.
        let mut other = compile::EvalLog::new(12);
        let b = form.basis_at_data(&[int(3)], &mut other).unwrap();
        assert_eq!(b, form.basis_at(&[int(3)], &mut compile::EvalLog::new(12)).unwrap());
        assert_ne!(b, form.basis_at(&[int(3)], &mut form.new_log()).unwrap());
    }

    #[test]
    fn non_affine_models_point_at_the_subexpression() {
        let src = "T(p) = c1 * c2 * p\nparam c1, c2";
        let e = Model::parse(src, "m.tm", 40).unwrap_err();
        assert!(e.message.contains("not affine"), "{}", e.message);
        assert_eq!(&src[e.span.clone()], "c1 * c2");
        for (src, bad) in [
            ("T(p) = p / c1\nparam c1", "c1"),
            ("T(p) = c1^2 * p\nparam c1", "c1^2"),
            ("T(p) = log2(c1 * p)\nparam c1", "c1 * p"),
            ("T(p) = p^c1\nparam c1", "c1"),
            ("T(p) = c1 * (c2 + p)\nparam c1, c2", "c1 * (c2 + p)"),
        ] {
            let e = Model::parse(src, "m.tm", 40).unwrap_err();
            assert!(e.message.contains("not affine"), "{src}: {}", e.message);
            assert_eq!(&src[e.span.clone()], bad, "{src}");
        }
        // A power 1 or 0 of a parameter term is affine.
        assert!(Model::parse("T(p) = (c1*p)^1 + c2\nparam c1, c2", "m.tm", 40).is_ok());
    }

    #[test]
    fn two_variables_and_functions() {
        let m = Model::parse("T(p, n) = c0 + c1*n^3/p + c2*log2(p)\nparam c0, c1, c2\npredict p = 1024, 4096, n = 1000..3000:1000", "m.tm", 40).unwrap();
        assert_eq!(m.predict.len(), 6);
        assert_eq!(m.predict[1], vec![int(1024), int(2000)]);
        let mut log = m.new_log();
        let b = m.basis_at(&[int(8), int(10)], &mut log).unwrap();
        assert_eq!(b, vec![int(0), int(1), int(125), int(3)]);
        assert!(log.inexact.is_empty());
        let b = m.basis_at(&[int(3), int(10)], &mut log).unwrap();
        assert_eq!(fmt_sig(&b[3], 12), "1.58496250072");
        assert_eq!(inexact_notes(&log, 10).len(), 1);
    }

    #[test]
    fn evaluation_errors_name_the_point() {
        let m = Model::parse("T(p) = c1/(p - 10) + c2\nparam c1, c2", "m.tm", 40).unwrap();
        let mut log = m.new_log();
        let e = m.basis_at(&[int(10)], &mut log).unwrap_err();
        let d = m.eval_diagnostic(&e, &[int(10)], "data.csv line 2");
        assert_eq!(d.message, "division by zero at p = 10 (data.csv line 2)");
        assert_eq!(&m.source[d.span.clone()], "(p - 10)");
        let m = Model::parse("T(p) = c1*p^1000000000\nparam c1", "m.tm", 40).unwrap();
        let e = m.basis_at(&[int(3)], &mut log).unwrap_err();
        assert!(e.message.contains("exponent too large"), "{}", e.message);
    }

    #[test]
    fn rational_exponents_are_exact_or_rounded_and_noted() {
        let m = Model::parse("T(p) = c0 + c1*p^(5/4)*log2(p)\nparam c0, c1", "m.tm", 40).unwrap();
        let mut log = m.new_log();
        assert_eq!(m.basis_at(&[int(16)], &mut log).unwrap(), vec![int(0), int(1), int(128)]);
        assert!(log.inexact.is_empty());
        let b = m.basis_at(&[int(3)], &mut log).unwrap();
        assert_eq!(fmt_sig(&b[2], 12), "6.25778387611");
        assert_eq!(log.inexact.len(), 2);
        let notes = inexact_notes(&log, 10);
        assert_eq!(notes[1], "3^(5/4) ≈ 3.94822203885747738245765670539099716548", "{notes:?}");
        // 1.25, -1/2 and (-1/2) are the same kind of exponent; 4^(-1/2) is exact.
        for body in ["p^1.25", "p^(-1/2)", "p^-(1/2)", "(p/2)^(2/3)", "p^(2/3)"] {
            let m = Model::parse(&format!("T(p) = c*{body}\nparam c"), "m.tm", 40).unwrap();
            assert!(m.basis_at(&[int(4)], &mut log).is_ok(), "{body}");
        }
        let m = Model::parse("T(p) = c*p^(-1/2)\nparam c", "m.tm", 40).unwrap();
        let mut log = m.new_log();
        assert_eq!(m.basis_at(&[int(4)], &mut log).unwrap(), vec![int(0), frac(1, 2)]);
        assert!(log.inexact.is_empty());
        let m = Model::parse("T(p) = c*(p/3)^(1/2)\nparam c", "m.tm", 40).unwrap();
        m.basis_at(&[int(2)], &mut log).unwrap();
        assert_eq!(inexact_notes(&log, 10), vec!["(2/3)^(1/2) ≈ 0.816496580927726032732428024901963797322"]);
    }

    #[test]
    fn rational_exponent_errors_are_located() {
        let mut log = EvalLog::new(40);
        for (src, at, bad, msg) in [
            (
                "T(p) = c*(p - 10)^(1/3)",
                2,
                "(p - 10)^(1/3)",
                "(-8)^(1/3) is refused: a negative base needs an integer exponent",
            ),
            (
                "T(p) = c*(p - 10)^(1/2)",
                6,
                "(p - 10)^(1/2)",
                "(-4)^(1/2) is undefined: an even root of a negative number",
            ),
            ("T(p) = c*p^(p/2)", 3, "(p/2)", "the exponent depends on a variable and is 3/2 here"),
            ("T(p) = c*p^(1/0)", 3, "0", "division by zero"),
            ("T(p) = c*(p - 3)^(-1/2)", 3, "(p - 3)^(-1/2)", "zero raised to a negative power"),
        ] {
            let m = Model::parse(&format!("{src}\nparam c"), "m.tm", 40).unwrap();
            let e = m.basis_at(&[int(at)], &mut log).unwrap_err();
            let d = m.eval_diagnostic(&e, &[int(at)], "d.csv line 2");
            assert!(d.message.starts_with(msg), "{src}: {}", d.message);
            assert!(d.message.ends_with(&format!("at p = {at} (d.csv line 2)")), "{src}: {}", d.message);
            assert_eq!(&m.source[d.span.clone()], bad, "{src}");
        }
        // Exponents past --max-exponent are refused when the model is read.
        for (src, bad, msg) in [
            (
                "T(p) = c*p^(1/100000)\nparam c",
                "(1/100000)",
                "the exponent's denominator 100000 is too large",
            ),
            ("T(p) = c*p^(100001/2)\nparam c", "(100001/2)", "exponent too large (limit |exponent| <= 10000"),
        ] {
            let e = Model::parse(src, "m.tm", 40).unwrap_err();
            assert!(e.message.starts_with(msg), "{src}: {}", e.message);
            assert_eq!(&src[e.span.clone()], bad, "{src}");
        }
        let limits = Limits { exponent: 100_000, ..Limits::default() };
        assert!(Model::parse_with("T(p) = c*p^(1/100000)\nparam c", "m.tm", 40, &limits).is_ok());
        // 0^(5/4) = 0, like sqrt(0); p^(4/2) is p^2.
        let m = Model::parse("T(p) = c*(p - 3)^(5/4) + d*p^(4/2)\nparam c, d", "m.tm", 40).unwrap();
        assert_eq!(m.basis_at(&[int(3)], &mut log).unwrap(), vec![int(0), int(0), int(9)]);
        // A parameter in the exponent is refused when the model is read.
        let src = "T(p) = c1*p^c2\nparam c1, c2";
        let e = Model::parse(src, "m.tm", 40).unwrap_err();
        assert!(e.message.contains("a parameter in an exponent"), "{}", e.message);
        assert_eq!(&src[e.span.clone()], "c2");
    }

    #[test]
    fn declaration_errors() {
        for (src, msg) in [
            ("T(p) = c1*p\nparam c1\nparam c1", "already declared"),
            ("T(p) = c1*p + q\nparam c1", "unknown name `q`"),
            ("T(p) = c1*p\nparam c1, c2", "does not occur"),
            ("T(p) = 3*p", "no parameters"),
            ("param c1", "no definition"),
            ("T(p) = c1*p\nparam c1\nT(p) = c1", "already defined"),
            ("T(p) = c1*p\nparam c1\nfit maybe", "unknown fit"),
            ("T(p) = c1*p\nparam c1\nweight c1", "unknown name `c1`"),
            ("T(p) = c1*p\nparam c1\npredict q = 3", "not a variable"),
            ("T(p) = c1*p\nparam c1\npredict p = 5..1", "empty range"),
            ("T(p) = c1*p\nparam c1\npredict p = 1..5:0", "must be positive"),
            ("T(p) = c1*foo(p)\nparam c1", "unknown function"),
        ] {
            let e = Model::parse(src, "m.tm", 40).unwrap_err();
            assert!(e.message.contains(msg), "{src}: {}", e.message);
        }
    }
}
