//! Families of model forms (`--family pmnf`, `family` lines in a `.tm`).
//!
//! One model form can be wrong in a way no parameter range repairs (a
//! collective that grows faster than `log p`). A family analyses many
//! forms on the same data: each is fitted exactly, with its e_max, remax
//! and mean square, and ranked. At a threshold the forms some parameters
//! of which meet it are *consistent*; the **family band** at a point is the
//! hull of their bands there, beside the best form's own.
//!
//! `pmnf` is Extra-P's performance-model normal form. For one variable its
//! forms are `c0 + c1·x^(a/b)·log2(x)^c` over Extra-P's 42 building blocks
//! (extrap/modelers/single_parameter/basic.py; no log terms when a value
//! is below 1, as Extra-P), and the constant `c0`. For several variables
//! it follows Extra-P's multi-parameter modeller: each variable's terms are
//! ranked on the measurements averaged over the other variables' values
//! (its lines), the best few kept (2 for two or three variables, 1
//! above), and each choice of one kept term per variable is combined into
//! the sums of products Extra-P tries (four for two variables, 23 for
//! three).
//!
//! Thresholds name the family's best statistics: `max` is the smallest
//! Max|e_i| of a form's fit, `remax` the smallest remax, so `trusted` is
//! max(2·(smallest remax), noise), over the forms the data over-determine
//! by two distinct points or more ([`SCALE_FROM`]). Bands come from exact
//! LPs over each form's residual rows (no vertex is listed), so a family of
//! a hundred forms of four parameters stays fast. Without a model file the
//! recommended band also spans the forms ranked alike with the best
//! ([`FamilyAnalysis::alike`]).

use crate::analysis::{Analysis, AnalysisError, Band, Bound, Options, Scale, Statistics, Threshold};
use crate::data::Measurement;
use crate::lang::diag::Diagnostic;
use crate::model::{Model, Spec};
use crate::num::Rat;
use num_traits::{One, Signed, Zero};
use rayon::prelude::*;
use std::collections::BTreeMap;

/// Extra-P's single-parameter building blocks `x^(a/b)·log2(x)^c`, as
/// `(a, b, c)`, in its order (the set its basic modeller searches with log
/// terms allowed and no negative exponents).
pub const PMNF_TERMS: [Term; 42] = [
    (0, 1, 1),
    (0, 1, 2),
    (1, 4, 0),
    (1, 3, 0),
    (1, 4, 1),
    (1, 3, 1),
    (1, 4, 2),
    (1, 3, 2),
    (1, 2, 0),
    (1, 2, 1),
    (1, 2, 2),
    (2, 3, 0),
    (3, 4, 0),
    (2, 3, 1),
    (3, 4, 1),
    (4, 5, 0),
    (2, 3, 2),
    (3, 4, 2),
    (1, 1, 0),
    (1, 1, 1),
    (1, 1, 2),
    (5, 4, 0),
    (5, 4, 1),
    (4, 3, 0),
    (4, 3, 1),
    (3, 2, 0),
    (3, 2, 1),
    (3, 2, 2),
    (5, 3, 0),
    (7, 4, 0),
    (2, 1, 0),
    (2, 1, 1),
    (2, 1, 2),
    (9, 4, 0),
    (7, 3, 0),
    (5, 2, 0),
    (5, 2, 1),
    (5, 2, 2),
    (8, 3, 0),
    (11, 4, 0),
    (3, 1, 0),
    (3, 1, 1),
];

/// A building block `x^(a/b)·log2(x)^c`, as `(a, b, c)`; negative `a` and
/// `c` are the decreasing terms of strong scaling.
pub type Term = (i64, i64, i32);

/// A building block's text over `var`: `p^(5/4)*log2(p)`, `p^(-1/2)`,
/// `log2(p)^(-1)`.
pub fn term_text(var: &str, (a, b, c): Term) -> String {
    let mut parts = Vec::new();
    match (a, b) {
        (0, _) => {}
        (1, 1) => parts.push(var.to_string()),
        (a, 1) if a > 0 => parts.push(format!("{var}^{a}")),
        (a, 1) => parts.push(format!("{var}^({a})")),
        (a, b) => parts.push(format!("{var}^({a}/{b})")),
    }
    match c {
        0 => {}
        1 => parts.push(format!("log2({var})")),
        c if c > 0 => parts.push(format!("log2({var})^{c}")),
        c => parts.push(format!("log2({var})^({c})")),
    }
    parts.join("*")
}

/// Which forms a family holds (`--family`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FamilySet {
    /// Extra-P's performance-model normal form: the constant and
    /// `c0 + c1·x^(a/b)·log2(x)^c` over [`PMNF_TERMS`] (growing terms only).
    Pmnf,
    /// `pmnf`, its terms negated (decreasing: `x^(-a/b)·log2(x)^(-c)`, the
    /// set Extra-P adds with negative exponents allowed), and the two-term
    /// forms a parallel program follows under strong scaling: Amdahl's
    /// `c0 + c1/x` and [`MIXED`].
    Scaling,
}

impl FamilySet {
    /// `pmnf`, `scaling`.
    pub fn name(self) -> &'static str {
        match self {
            FamilySet::Pmnf => "pmnf",
            FamilySet::Scaling => "scaling",
        }
    }
}

/// The two-term forms of [`FamilySet::Scaling`] (one variable): a
/// decreasing term beside a growing one, as terms of [`term_text`].
pub const MIXED: [[Term; 2]; 3] = [[(-1, 1, 0), (1, 1, 0)], [(-1, 1, 0), (0, 1, 1)], [(-1, 2, 0), (0, 1, 1)]];

/// Where a form of the family comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Origin {
    /// The model file's own form.
    Model,
    /// A `family` line of the model file.
    Listed,
    /// Extra-P's normal form (`--family pmnf`).
    Pmnf,
    /// The decreasing and two-term forms `--family scaling` adds to it.
    Scaling,
}

impl Origin {
    /// `model`, `family line`, `pmnf`, `scaling`.
    pub fn label(self) -> &'static str {
        match self {
            Origin::Model => "model",
            Origin::Listed => "family line",
            Origin::Pmnf => "pmnf",
            Origin::Scaling => "scaling",
        }
    }
}

/// One form of a family, analysed.
#[derive(Debug, Clone)]
pub struct Member {
    /// The form as a model.
    pub model: Model,
    /// Its right-hand side (`c0 + c1*p^(5/4)*log2(p)`).
    pub form: String,
    /// Where it comes from.
    pub origin: Origin,
    /// Fit, e_max, rmax, remax.
    pub stats: Statistics,
    /// Per threshold: whether some parameters of the form meet it.
    pub consistent: Vec<bool>,
    /// Per threshold, per point: the model band and the new-measurement
    /// band (None where the form is not consistent).
    pub bands: Vec<Vec<Option<(Band, Band)>>>,
    /// Per point: false when every measurement is positive and the form's
    /// own prediction there is zero or below (it cannot be the answer
    /// there: ranked after every form that predicts a positive time at
    /// every point, and left out of the family band there).
    pub positive: Vec<bool>,
    /// The self-check ([`crate::trust::check`]), made for the forms
    /// consistent at some threshold.
    pub check: Option<crate::trust::Check>,
    /// For the forms consistent at some threshold: the cross-validated
    /// prediction error Extra-P ranks by ([`crate::fit::Design::loo_smape`];
    /// `None` when not made or not determined).
    pub loo: Option<Rat>,
    /// Whether its statistics are among those the family's thresholds are
    /// named from: the forms with two distinct points more than
    /// coefficients or more (every form when none has; see
    /// [`SCALE_FROM`]).
    pub sets_scale: bool,
}

/// A form left out, and why (it cannot be evaluated at a data point, or
/// the data cannot separate its parameters).
#[derive(Debug, Clone)]
pub struct Skipped {
    /// The form.
    pub form: String,
    /// Why.
    pub why: String,
}

/// A threshold as the family applies it.
#[derive(Debug, Clone)]
pub struct Level {
    /// The threshold as given.
    pub threshold: Threshold,
    /// Its bound from the family's best statistics; `None` when it gives
    /// no band (`trusted` at 50 % or more, or a relative threshold on
    /// measurements that are not all positive).
    pub bound: Option<Bound>,
}

/// The hull of the consistent forms' bands at one point and threshold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hull {
    /// Hull of the model bands.
    pub model: Band,
    /// Hull of the new-measurement bands.
    pub measurement: Band,
    /// How many forms it spans.
    pub forms: usize,
}

/// A family analysed on one series.
#[derive(Debug, Clone)]
pub struct FamilyAnalysis {
    /// The forms, best first (see [`RANKING`]: a form with more terms always
    /// fits at least as well, so among the forms the data allow the simplest
    /// leads, as Occam and Extra-P's cross-validation would have it).
    pub members: Vec<Member>,
    /// Forms that could not be fitted.
    pub skipped: Vec<Skipped>,
    /// The thresholds.
    pub levels: Vec<Level>,
    /// The prediction points.
    pub points: Vec<Vec<Rat>>,
    /// Per threshold, per point: the family band (None: no form consistent,
    /// or the threshold gives no band).
    pub hull: Vec<Vec<Option<Hull>>>,
    /// Every measurement positive (run times): a form whose own prediction
    /// at a point is zero or below is left out of the hull there.
    all_positive: bool,
}

/// The rule forms are ranked by, as reports state it.
pub const RANKING: &str = "ranked: consistent at more thresholds first, then forms that predict a positive time at every point, then those that passed their self-check (fitted without the largest scale, their band there holds every measurement), then fewer parameters among the consistent (the simplest form the data allow), then the cross-validated prediction error Extra-P ranks by (each point left out, SMAPE on the means), then remax (e_max when a measurement is not positive), then the mean square";

/// Which forms the family's thresholds are named from, as reports state it.
pub const SCALE_FROM: &str = "The threshold names the family's best statistics: remax is the smallest remax of a form with at least two distinct points more than coefficients, since a form with only one more bends to any trend and its misfit says little of the scatter.";

/// What reports say when the data fall as `var` grows and the family's
/// forms only grow ([`FamilyAnalysis::falls_without_decreasing_form`]).
pub fn falls_hint(var: &str) -> String {
    format!(
        "the data fall as {var} grows, but every form of `--family pmnf` grows: the best one follows the fall with a negative coefficient, which soon predicts zero or less. `--family scaling`, the default without a model file, adds decreasing forms such as Amdahl's c0 + c1/{var}."
    )
}

/// Where the data grow faster than every form of the built-in sets
/// ([`FamilyAnalysis::steeper_than_family`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Steeper {
    /// The steepest growing term of the set: `x^3·log2(x)`, or `x^3` where
    /// log terms are left out.
    pub term: Term,
    /// The first of the three largest scales.
    pub from: Rat,
    /// The largest scale.
    pub to: Rat,
}

/// What reports say when the data grow faster than the family's steepest
/// term ([`FamilyAnalysis::steeper_than_family`]).
pub fn steeper_hint(var: &str, term: &str, from: &str, to: &str) -> String {
    format!(
        "the data grow faster than {term}, the steepest term of the family, from {var} = {from} to {var} = {to}: no form of the family follows them, so the best one's misfit sets the width of every band. Write a steeper form in a model file, such as T({var}) = c0 + c1*{var}^4 (an exponential for an exhaustive search); `family` lines add others."
    )
}

/// True when the mean `yb` at scale `b` over the mean `ya` at `a < b`
/// exceeds `f(b)/f(a)` for the term `f = x^3·log2(x)` (`logs`) or `x^3`,
/// decided exactly. With the log factor the question is whether
/// `c = (yb/ya)·(a/b)^3` exceeds `log2(b)/log2(a)`, irrational in general:
/// floating point proposes a rational `r = k/1024` just above that ratio,
/// and exact arithmetic certifies `c > r` and `a^k > b^1024` (that is,
/// `r > log2(b)/log2(a)`). A case floats cannot represent, or too close
/// to call, or with powers too large, says no: a hint is left out rather
/// than guessed.
fn grows_faster(a: &Rat, ya: &Rat, b: &Rat, yb: &Rat, logs: bool) -> bool {
    let cube = |x: &Rat| x * x * x;
    let cubic = yb * cube(a) / (ya * cube(b));
    if !logs {
        return cubic > Rat::one();
    }
    if *a <= Rat::one() {
        // log2(a) ≤ 0: the term grows without bound from 1.
        return false;
    }
    const DEN: i64 = 1024;
    let (fa, fb) = (crate::num::to_f64(a), crate::num::to_f64(b));
    let ratio = fb.log2() / fa.log2();
    if !(ratio.is_finite() && ratio > 0.0 && ratio < 16.0) {
        return false;
    }
    // k/1024 > ratio in floating point; certified below.
    let k = (ratio * DEN as f64).floor() as i64 + 1;
    let r = Rat::new(k.into(), DEN.into());
    let digits = |x: &Rat| x.numer().bits() + x.denom().bits();
    // a^k and b^1024 stay below about 10^6 bits.
    if cubic <= r || (digits(a) + digits(b)) * k as u64 > 1 << 20 {
        return false;
    }
    num_traits::Pow::pow(a, k as u32) > num_traits::Pow::pow(b, DEN as u32)
}

/// Why a family could not be analysed.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum FamilyError {
    /// No form could be fitted; the first failure.
    NoForm(Box<AnalysisError>),
    /// A generated form did not parse (a variable name the model language
    /// cannot take).
    Form(Diagnostic),
    /// No generated form can be fitted: every one has as many coefficients
    /// as the data have distinct points, or more.
    TooFewPoints {
        /// Distinct points of the data.
        points: usize,
    },
    /// More form × point bands than `--max-candidates` allows.
    TooMany {
        /// Forms fitted.
        forms: usize,
        /// Prediction points.
        points: usize,
        /// The limit on their product.
        limit: usize,
    },
}

impl std::fmt::Display for FamilyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FamilyError::NoForm(e) => write!(f, "no form of the family could be fitted ({e})"),
            FamilyError::Form(d) => write!(f, "{}", d.message),
            FamilyError::TooFewPoints { points } => write!(
                f,
                "the data have {points} distinct point{}; a form of the family needs more distinct points than coefficients (the constant form needs 2)",
                if *points == 1 { "" } else { "s" }
            ),
            FamilyError::TooMany { forms, points, limit } => write!(
                f,
                "the family's bands would take {forms} forms × {points} points, more than {limit} (two exact LPs each); give fewer prediction points or forms, or raise the limit with {}",
                crate::limits::Limit::Candidates.flag()
            ),
        }
    }
}

impl std::error::Error for FamilyError {}

/// The single-variable terms of `set`, `None` for the constant form
/// first: log terms only when `log_ok` (every value of the variable is at
/// least 1: Extra-P's rule), and negative powers of the log only when every
/// value is above 1 (log2(1) = 0).
fn single_terms(set: FamilySet, log_ok: bool, log_positive: bool) -> Vec<Option<Term>> {
    let grow = PMNF_TERMS.iter().copied();
    let shrink = PMNF_TERMS.iter().filter(|_| set == FamilySet::Scaling).map(|&(a, b, c)| (-a, b, -c));
    std::iter::once(None)
        .chain(grow.chain(shrink).filter(|t| (log_ok || t.2 == 0) && (log_positive || t.2 >= 0)).map(Some))
        .collect()
}

/// The form of single-variable terms: `c0`, `c0 + c1*TERM`, `c0 + c1*A + c2*B`.
fn single_form(var: &str, terms: &[Term]) -> String {
    let mut f = "c0".to_string();
    for (j, t) in terms.iter().enumerate() {
        f.push_str(&format!(" + c{}*{}", j + 1, term_text(var, *t)));
    }
    f
}

/// The forms of `set` for `base`'s variables on `data` (module docs), each
/// with its origin.
pub fn set_forms(
    set: FamilySet,
    base: &Model,
    data: &[Measurement],
    opts: &Options,
) -> Result<Vec<(String, Origin)>, FamilyError> {
    let n = base.vars.len();
    let log_ok = |i: usize| data.iter().all(|m| m.x[i] >= Rat::one());
    let log_positive = |i: usize| data.iter().all(|m| m.x[i] > Rat::one());
    let origin = |t: &Option<Term>| match t {
        Some(t) if t.0 < 0 || t.2 < 0 => Origin::Scaling,
        _ => Origin::Pmnf,
    };
    if n == 1 {
        let var = &base.vars[0];
        let mut out: Vec<(String, Origin)> = single_terms(set, log_ok(0), log_positive(0))
            .iter()
            .map(|t| (single_form(var, t.as_slice()), origin(t)))
            .collect();
        if set == FamilySet::Scaling {
            for pair in MIXED.iter().filter(|p| log_ok(0) || p.iter().all(|t| t.2 == 0)) {
                out.push((single_form(var, pair), Origin::Scaling));
            }
        }
        return Ok(out);
    }
    Ok(multi_forms(set, base, data, opts)?.into_iter().map(|f| (f, Origin::Pmnf)).collect())
}

/// The forms of `pmnf` for `base`'s variables on `data` (module docs).
pub fn pmnf_forms(base: &Model, data: &[Measurement], opts: &Options) -> Result<Vec<String>, FamilyError> {
    Ok(set_forms(FamilySet::Pmnf, base, data, opts)?.into_iter().map(|(f, _)| f).collect())
}

/// Several variables: Extra-P's multi-parameter modeller over `set`'s
/// single-variable terms (module docs).
fn multi_forms(
    set: FamilySet,
    base: &Model,
    data: &[Measurement],
    opts: &Options,
) -> Result<Vec<String>, FamilyError> {
    let n = base.vars.len();
    let log_ok = |i: usize| data.iter().all(|m| m.x[i] >= Rat::one());
    let log_positive = |i: usize| data.iter().all(|m| m.x[i] > Rat::one());
    let keep = match n {
        2 | 3 => 2,
        _ => 1,
    };
    // Per variable: its kept terms (None = the variable left out).
    let mut choices: Vec<Vec<Option<String>>> = Vec::with_capacity(n);
    for i in 0..n {
        let line = line_of(data, i);
        let var = &base.vars[i];
        if line.len() < 2 {
            choices.push(vec![None]);
            continue;
        }
        let single = single_model(var, base)?;
        let terms = single_terms(set, log_ok(i), log_positive(i));
        let mut ranked: Vec<(Rat, usize, usize)> = terms
            .par_iter()
            .enumerate()
            .filter_map(|(j, t)| {
                let m = single.alternative(&single_form(var, t.as_slice())).ok()?;
                Some((Analysis::smallest_bound(&m, &line, "line", opts).ok()?, m.k(), j))
            })
            .collect();
        ranked.sort();
        let mut kept: Vec<Option<String>> = Vec::new();
        for (_, _, j) in ranked.into_iter().take(keep) {
            kept.push(terms[j].map(|t| term_text(var, t)));
        }
        if kept.is_empty() {
            kept.push(None);
        }
        choices.push(kept);
    }
    let mut out: Vec<String> = Vec::new();
    let mut pick = vec![0usize; n];
    loop {
        let active: Vec<&String> = (0..n).filter_map(|i| choices[i][pick[i]].as_ref()).collect();
        for f in combinations(&active) {
            if !out.contains(&f) {
                out.push(f);
            }
        }
        // Next combination of kept terms (odometer).
        let mut i = 0;
        loop {
            if i == n {
                return Ok(out);
            }
            pick[i] += 1;
            if pick[i] < choices[i].len() {
                break;
            }
            pick[i] = 0;
            i += 1;
        }
    }
}

/// The model `T(v) = c0` of one variable, with `base`'s digits and limits.
fn single_model(var: &str, base: &Model) -> Result<Model, FamilyError> {
    Spec::new("T", &[var], "c0")
        .params(&["c0"])
        .build("pmnf", base.digits(), base.limits())
        .map_err(FamilyError::Form)
}

/// The measurements of variable `i` along its lines: the points that agree
/// in every other variable, the lines with the most values of `i`, their
/// common values, and at each the mean over the lines of each line's mean
/// (Extra-P's point selection for its single-parameter models). Averaging
/// keeps the shape in `i` of both a product and a sum of per-variable terms.
fn line_of(data: &[Measurement], i: usize) -> Vec<Measurement> {
    let mut lines: BTreeMap<Vec<Rat>, BTreeMap<Rat, (Rat, usize)>> = BTreeMap::new();
    for m in data {
        let others: Vec<Rat> =
            m.x.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, v)| v.clone()).collect();
        let e = lines.entry(others).or_default().entry(m.x[i].clone()).or_insert((Rat::zero(), 0));
        e.0 += &m.y;
        e.1 += 1;
    }
    let most = lines.values().map(BTreeMap::len).max().unwrap_or(0);
    let best: Vec<&BTreeMap<Rat, (Rat, usize)>> = lines.values().filter(|l| l.len() == most).collect();
    let Some(first) = best.first() else { return Vec::new() };
    let mut out = Vec::new();
    for v in first.keys() {
        if !best.iter().all(|l| l.contains_key(v)) {
            continue;
        }
        let sum = best.iter().fold(Rat::zero(), |a, l| {
            let (s, c) = &l[v];
            a + s / Rat::from_integer((*c).into())
        });
        out.push(Measurement { x: vec![v.clone()], y: sum / Rat::from_integer(best.len().into()), line: 0 });
    }
    out
}

/// The sums of products of the given per-variable terms that Extra-P's
/// multi-parameter modeller tries (each variable used; for two terms x, y:
/// x·y, x + y, x + x·y, y + x·y; for three its 23; for four or more the
/// product and the sum), written with coefficients.
fn combinations(terms: &[&String]) -> Vec<String> {
    let m = terms.len();
    // Products as bit sets of the terms: x = 1, y = 2, z = 4.
    let sets: Vec<Vec<usize>> = match m {
        0 => return vec!["c0".into()],
        1 => vec![vec![1]],
        2 => vec![vec![3], vec![1, 2], vec![1, 3], vec![2, 3]],
        3 => [
            &[7][..],
            &[1, 2, 4],
            &[7, 1],
            &[7, 2],
            &[7, 4],
            &[7, 3],
            &[7, 6],
            &[7, 5],
            &[7, 3, 4],
            &[7, 6, 1],
            &[7, 5, 2],
            &[7, 1, 2],
            &[7, 1, 4],
            &[7, 2, 4],
            &[3, 4],
            &[3, 4, 2],
            &[3, 4, 1],
            &[5, 2],
            &[5, 2, 1],
            &[5, 2, 4],
            &[6, 1],
            &[6, 1, 2],
            &[6, 1, 4],
        ]
        .iter()
        .map(|s| s.to_vec())
        .collect(),
        _ => vec![vec![(1 << m) - 1], (0..m).map(|i| 1 << i).collect()],
    };
    let product = |set: usize| -> String {
        (0..m).filter(|i| set & (1 << i) != 0).map(|i| terms[i].as_str()).collect::<Vec<_>>().join("*")
    };
    sets.iter()
        .map(|s| {
            let mut f = "c0".to_string();
            for (j, set) in s.iter().enumerate() {
                f.push_str(&format!(" + c{}*{}", j + 1, product(*set)));
            }
            f
        })
        .collect()
}

/// Analyses a family: `forms` (each with its origin; the first may be the
/// model itself) on `data`, at `opts`' thresholds and at `points`.
pub fn analyse(
    forms: Vec<(Model, Origin)>,
    data: &[Measurement],
    file: &str,
    opts: &Options,
    points: &[Vec<Rat>],
) -> Result<FamilyAnalysis, FamilyError> {
    let thresholds = if opts.thresholds.is_empty() { Threshold::defaults() } else { opts.thresholds.clone() };
    // A generated form is fitted only where there are more distinct points
    // than coefficients: with as many, it passes through every point and
    // its remax of zero says nothing about the form.
    let distinct = {
        let mut xs: Vec<&[Rat]> = data.iter().map(|m| m.x.as_slice()).collect();
        xs.sort();
        xs.dedup();
        xs.len()
    };
    let mut skipped = Vec::new();
    let forms: Vec<(Model, Origin)> = forms
        .into_iter()
        .filter(|(m, o)| {
            let ok = *o == Origin::Model || m.k() < distinct;
            if !ok {
                skipped.push(Skipped {
                    form: m.body_text.clone(),
                    why: format!(
                        "{} coefficients need more than {} distinct points; the data have {distinct}",
                        m.k(),
                        m.k()
                    ),
                });
            }
            ok
        })
        .collect();
    type Fitted = (Model, Origin, Result<Statistics, AnalysisError>);
    // The data grouped by point once for every form.
    let tally = crate::fit::Tally::new(data);
    let fitted: Vec<Fitted> = forms
        .into_par_iter()
        .map(|(m, o)| {
            let s = Analysis::statistics_tallied(&m, data, &tally, file, opts, true);
            (m, o, s)
        })
        .collect();
    let mut ok = Vec::new();
    let mut first_error = None;
    for (m, o, s) in fitted {
        match s {
            Ok(s) => ok.push((m, o, s)),
            Err(e) => {
                skipped.push(Skipped { form: m.body_text.clone(), why: describe(&e) });
                first_error.get_or_insert(e);
            }
        }
    }
    if ok.is_empty() {
        return Err(match first_error {
            Some(e) => FamilyError::NoForm(Box::new(e)),
            None if data.is_empty() => {
                FamilyError::NoForm(Box::new(AnalysisError::NoData { file: file.to_string() }))
            }
            None => FamilyError::TooFewPoints { points: distinct },
        });
    }
    // Each form's band at each point is two exact LPs: the product is
    // bounded before any is solved (2 000 forms × 100 000 points would run
    // for hours).
    let limit = opts.limits.candidates;
    if ok.len().saturating_mul(points.len()) > limit {
        return Err(FamilyError::TooMany { forms: ok.len(), points: points.len(), limit });
    }
    // Thresholds name the family's best statistics, taken over the forms
    // the data over-determine by two distinct points or more. A form with
    // one point more than coefficients bends to any trend among its
    // points (its minimax error equioscillates on all of them): its remax
    // is one number with no redundancy, and a form of three coefficients
    // on four single measurements would otherwise set a threshold that
    // only it and its like can meet. Every form sets it when none can.
    let sets_scale: Vec<bool> = {
        let spare = |m: &Model| distinct >= m.k() + 2;
        let any = ok.iter().any(|(m, _, _)| spare(m));
        ok.iter().map(|(m, _, _)| !any || spare(m)).collect()
    };
    let setters: Vec<&Statistics> =
        ok.iter().zip(&sets_scale).filter(|(_, s)| **s).map(|((_, _, s), _)| s).collect();
    let min = |f: &dyn Fn(&Statistics) -> Option<Rat>| setters.iter().map(|s| f(s)).min().flatten();
    let scale = Scale {
        max: min(&|s| Some(s.residuals.max_abs.clone())).unwrap_or_else(Rat::zero),
        emax: min(&|s| Some(s.emax.clone())).unwrap_or_else(Rat::zero),
        rmax: if setters.iter().all(|s| s.rmax.is_some()) { min(&|s| s.rmax.clone()) } else { None },
        remax: if setters.iter().all(|s| s.remax.is_some()) { min(&|s| s.remax.clone()) } else { None },
    };
    let levels: Vec<Level> = thresholds
        .into_iter()
        .map(|t| {
            let bound = t
                .bound(&scale)
                .ok()
                .filter(|b| t.limit.as_ref().is_none_or(|l| crate::num::cmp_fast(&b.relative, l).is_lt()));
            Level { threshold: t, bound }
        })
        .collect();
    let all_positive = data.iter().all(|m| m.y.is_positive());
    let mut members: Vec<Member> = ok
        .into_par_iter()
        .zip(sets_scale)
        .map(|((model, origin, stats), sets_scale)| {
            let bases = bases_at(&model, points);
            let mut consistent = Vec::new();
            let mut bands = Vec::new();
            // Whether parameters meet a bound is known from e_max or remax
            // for a purely absolute or purely relative one (most forms are
            // not consistent, and an infeasible LP is the dearest).
            let meets = |b: &Bound| -> Option<bool> {
                if b.relative.is_zero() {
                    Some(stats.emax <= b.absolute)
                } else if b.absolute.is_zero() {
                    stats.remax.as_ref().map(|r| *r <= b.relative)
                } else {
                    None
                }
            };
            let all: Vec<Vec<Rat>> = bases.iter().flatten().cloned().collect();
            // A run time is positive: a form whose own prediction at a point
            // is zero or below cannot be the answer there.
            let positive: Vec<bool> =
                bases.iter().map(|b| may_answer(all_positive, b.as_deref(), &stats.params)).collect();
            for l in &levels {
                let got = l.bound.as_ref().filter(|b| meets(b) != Some(false)).and_then(|b| {
                    Analysis::lp_bands(&stats.design, model.k(), b, &all, meets(b) == Some(true))
                });
                consistent.push(got.is_some());
                bands.push(got.map_or_else(|| vec![None; bases.len()], |g| aligned(&bases, g)));
            }
            // What predicts, not only what fits: each form the data allow
            // is fitted without the largest scale and its band there checked.
            let check = consistent.iter().any(|c| *c).then(|| {
                crate::trust::check_with(&model, data, &tally, Some(&stats.design), file, opts, &bases)
            });
            // Extra-P's criterion among forms alike in the rest: the
            // cross-validated error of its prediction at each point left out.
            let loo = consistent.iter().any(|c| *c).then(|| stats.design.loo_smape(model.k())).flatten();
            Member {
                form: model.body_text.clone(),
                model,
                origin,
                stats,
                consistent,
                bands,
                positive,
                check,
                loo,
                sets_scale,
            }
        })
        .collect();
    // The comparator borrows (it cloned two long fractions per comparison).
    let ranked = |m: &Member| {
        let held = m.consistent.iter().filter(|c| **c).count();
        (
            std::cmp::Reverse(held),
            m.positive.iter().any(|p| !p),
            m.check.as_ref().is_some_and(|c| c.outcome.failed()),
            // Parsimony among the forms the data allow; the others by fit.
            if held > 0 { m.model.k() } else { 0 },
        )
    };
    members.sort_by(|a, b| {
        // Made ones first, smallest error first.
        fn loo(m: &Member) -> (bool, Option<&Rat>) {
            (m.loo.is_none(), m.loo.as_ref())
        }
        fn key(m: &Member) -> &Rat {
            m.stats.remax.as_ref().unwrap_or(&m.stats.emax)
        }
        ranked(a)
            .cmp(&ranked(b))
            .then_with(|| loo(a).cmp(&loo(b)))
            .then_with(|| key(a).cmp(key(b)))
            .then_with(|| a.stats.residuals.mean_square.cmp(&b.stats.residuals.mean_square))
            .then_with(|| a.form.cmp(&b.form))
    });
    let hull = (0..levels.len())
        .map(|t| {
            (0..points.len())
                .map(|p| {
                    hull_of(members.iter().filter(|m| m.positive[p]).filter_map(|m| m.bands[t][p].as_ref()))
                })
                .collect()
        })
        .collect();
    Ok(FamilyAnalysis { members, skipped, levels, points: points.to_vec(), hull, all_positive })
}

impl FamilyAnalysis {
    /// The family band under threshold `level` at further `points` (a
    /// figure's samples along one variable), by the rule of
    /// [`FamilyAnalysis::hull`]: per point, the hull of the bands of the
    /// forms consistent at `level`, leaving out a form whose own prediction
    /// there is zero or below when every measurement is positive. `None` at
    /// a point where no form gives a band. Also returns how many forms gave
    /// bands (each costs two exact LPs per point).
    pub fn hull_at(&self, level: usize, points: &[Vec<Rat>]) -> (Vec<Option<Hull>>, usize) {
        let mut at: Vec<Vec<(Band, Band)>> = vec![Vec::new(); points.len()];
        let Some(bound) = self.levels.get(level).and_then(|l| l.bound.as_ref()) else {
            return (vec![None; points.len()], 0);
        };
        let mut forms = 0;
        for m in self.members.iter().filter(|m| m.consistent.get(level) == Some(&true)) {
            let bases = bases_at(&m.model, points);
            let all: Vec<Vec<Rat>> = bases.iter().flatten().cloned().collect();
            let Some(bands) = Analysis::lp_bands(&m.stats.design, m.model.k(), bound, &all, true) else {
                continue;
            };
            forms += 1;
            for ((b, got), slot) in bases.iter().zip(aligned(&bases, bands)).zip(&mut at) {
                if let Some(got) =
                    got.filter(|_| may_answer(self.all_positive, b.as_deref(), &m.stats.params))
                {
                    slot.push(got);
                }
            }
        }
        (at.iter().map(|v| hull_of(v.iter())).collect(), forms)
    }

    /// True when the data fall as the variable grows and the family has no
    /// form that does: every form is one of Extra-P's growing terms
    /// (`--family pmnf` on a single variable), and the best one is fitted
    /// with a negative coefficient on its term (`c0 + c1*log2(p)`, c1 < 0).
    /// Reports then point to the `scaling` set ([`falls_hint`]).
    pub fn falls_without_decreasing_form(&self) -> bool {
        let Some(best) = self.members.first() else { return false };
        self.members.iter().all(|m| m.origin == Origin::Pmnf)
            && best.model.vars.len() == 1
            && best.model.k() == 2
            && best.stats.params.get(1).is_some_and(|c| c.is_negative())
    }

    /// Where the data grow faster than the steepest growing term of the
    /// built-in sets (`x^3·log2(x)`, Extra-P's steepest; `x^3` where log
    /// terms are left out): on both intervals between the three largest
    /// scales, the ratio of the means exceeds that term's. No form of
    /// `pmnf` or `scaling` follows such data (a problem size whose work
    /// grows as n^3 elements times n time steps, an exhaustive search), so
    /// the best one's misfit sets its bands. Only for one variable, every
    /// measurement positive, and a family of the built-in forms alone (a
    /// model file may hold steeper ones). Decided exactly: floating point
    /// only proposes a rational bound on the log factor's ratio, which
    /// exact powers certify. Reports then point to a model file
    /// ([`steeper_hint`]).
    pub fn steeper_than_family(&self) -> Option<Steeper> {
        let best = self.members.first()?;
        let builtin = self.members.iter().all(|m| matches!(m.origin, Origin::Pmnf | Origin::Scaling));
        if !self.all_positive || best.model.vars.len() != 1 || !builtin {
            return None;
        }
        let mut means: Vec<(&Rat, Rat)> = best
            .stats
            .design
            .groups
            .iter()
            .map(|g| (&g.x[0], &g.ysum / Rat::from_integer(g.rows.len().into())))
            .collect();
        means.sort_by(|a, b| a.0.cmp(b.0));
        let logs = means.iter().all(|(x, _)| **x >= Rat::one());
        let last = means.get(means.len().checked_sub(3)?..)?;
        last.windows(2).all(|w| grows_faster(w[0].0, &w[0].1, w[1].0, &w[1].1, logs)).then(|| Steeper {
            term: if logs { (3, 1, 1) } else { (3, 1, 0) },
            from: last[0].0.clone(),
            to: last[2].0.clone(),
        })
    }

    /// Per point, the hull of the new-measurement bands at threshold
    /// `level` of the forms ranked alike with the best ([`Member::tier`]:
    /// as many coefficients, consistent at `level`, a positive time at
    /// every point, the same self-check outcome) and positive
    /// there, with how many forms it spans. `None` at a point where the
    /// best form has no band.
    ///
    /// `fits` is asked of every other form of that tier, and one it refuses
    /// is left out (the medians of repeated measurements may refute a form
    /// their every repetition cannot: [`crate::trust::fits_medians`]).
    pub fn alike(&self, level: usize, fits: impl Fn(&Member) -> bool) -> Vec<Option<(Band, usize)>> {
        self.alike_by(level, fits, |m| {
            m.bands
                .get(level)
                .map_or_else(Vec::new, |b| b.iter().map(|b| b.as_ref().map(|b| b.1.clone())).collect())
        })
    }

    /// [`FamilyAnalysis::alike`] with each form's bands per point given by
    /// `bands` instead of its band of a new measurement at `level` (the
    /// bands on the medians of repeated measurements:
    /// [`crate::trust::median_bands`]).
    pub fn alike_by(
        &self,
        level: usize,
        fits: impl Fn(&Member) -> bool,
        bands: impl Fn(&Member) -> Vec<Option<Band>>,
    ) -> Vec<Option<(Band, usize)>> {
        let Some(best) = self.members.first() else { return vec![None; self.points.len()] };
        let key = best.tier(level);
        let alike: Vec<(&Member, Vec<Option<Band>>)> = std::iter::once(best)
            .chain(self.members[1..].iter().filter(|m| m.tier(level) == key && fits(m)))
            .map(|m| (m, bands(m)))
            .collect();
        (0..self.points.len())
            .map(|p| {
                let own = alike[0].1.get(p)?.as_ref()?;
                let mut hull = own.clone();
                let mut forms = 0;
                for (m, b) in &alike {
                    if let Some(b) = b.get(p).and_then(Option::as_ref).filter(|_| m.positive[p]) {
                        hull = hull.hull(b);
                        forms += 1;
                    }
                }
                Some((hull, forms))
            })
            .collect()
    }
}

impl Member {
    /// What ranks this form alike with others at threshold `level` (the
    /// one whose band is recommended): whether it is consistent there,
    /// whether it predicts a positive time at every point, the outcome of
    /// its self-check (0 not made for want of consistency, 1 passed, 2
    /// missed, 3 refused, 4 too few scales) and its number of coefficients.
    /// Forms with the same tier are ranked alike: what orders them (the
    /// thresholds the user also asked for, the cross-validated error,
    /// remax) chooses a prediction but refutes none of them; only the
    /// threshold of the band refutes a form. A form with more coefficients
    /// is not alike: it fits at least as well wherever it nests a simpler
    /// one, and parsimony, not the data, sets it aside.
    pub fn tier(&self, level: usize) -> (bool, bool, u8, usize) {
        let check = match self.check.as_ref().map(|c| &c.outcome) {
            None => 0,
            Some(crate::trust::Outcome::Passed) => 1,
            Some(crate::trust::Outcome::Missed { .. }) => 2,
            Some(crate::trust::Outcome::Refused) => 3,
            Some(crate::trust::Outcome::NotChecked(_)) => 4,
        };
        (
            self.consistent.get(level).copied().unwrap_or(false),
            self.positive.iter().all(|p| *p),
            check,
            self.model.k(),
        )
    }
}

/// A form's basis at each point (`None` where it cannot be evaluated).
fn bases_at(model: &Model, points: &[Vec<Rat>]) -> Vec<Option<Vec<Rat>>> {
    let mut log = model.new_log();
    points.iter().map(|x| model.basis_at(x, &mut log).ok()).collect()
}

/// Bands made at the points that have a basis (in order), spread back over
/// every point of `bases`: `None` where a point has no basis or no band.
fn aligned(bases: &[Option<Vec<Rat>>], got: Vec<Option<(Band, Band)>>) -> Vec<Option<(Band, Band)>> {
    let mut it = got.into_iter();
    bases.iter().map(|b| b.as_ref().and_then(|_| it.next().flatten())).collect()
}

/// Whether a form with fit `params` may be the answer at a point of basis
/// `b`: a run time is positive, so when every measurement is (`all_positive`)
/// its own prediction there must be too (and a point without a basis
/// cannot be answered).
fn may_answer(all_positive: bool, b: Option<&[Rat]>, params: &[Rat]) -> bool {
    !all_positive || b.is_some_and(|b| crate::num::affine_unreduced(&b[0], &b[1..], params).is_positive())
}

/// The hull of bands (a side is unbounded when any band's is).
fn hull_of<'a>(bands: impl Iterator<Item = &'a (Band, Band)>) -> Option<Hull> {
    let mut out: Option<Hull> = None;
    for (m, n) in bands {
        out = Some(match out {
            None => Hull { model: m.clone(), measurement: n.clone(), forms: 1 },
            Some(h) => {
                Hull { model: h.model.hull(m), measurement: h.measurement.hull(n), forms: h.forms + 1 }
            }
        });
    }
    out
}

/// A short reason a form was left out.
fn describe(e: &AnalysisError) -> String {
    use crate::fit::FitError;
    match e {
        AnalysisError::Fit(FitError::Eval(d)) => d.message.clone(),
        AnalysisError::Fit(FitError::TooFewPoints { points, params, .. }) => {
            format!("{params} parameters need {params} distinct points; the data have {points}")
        }
        AnalysisError::Fit(FitError::RankDeficient { .. }) => {
            "the data cannot separate its parameters".into()
        }
        AnalysisError::Qe(q) => format!("the QE engine stopped: {q}"),
        AnalysisError::Threshold(t) => t.to_string(),
        AnalysisError::NoData { .. } => "no measurements".into(),
        e @ AnalysisError::Variables { .. } => e.to_string(),
    }
}

/// The family's forms for a model: the model itself, its `family` lines,
/// and with `pmnf` Extra-P's normal forms over its variables (those written
/// as the model's own form or a `family` line, up to parameter names, left
/// out).
pub fn forms_of(
    model: &Model,
    own: bool,
    set: Option<FamilySet>,
    data: &[Measurement],
    opts: &Options,
) -> Result<Vec<(Model, Origin)>, FamilyError> {
    let mut out: Vec<(Model, Origin)> = Vec::new();
    if own {
        out.push((model.clone(), Origin::Model));
    }
    for f in &model.family {
        out.push((f.clone(), Origin::Listed));
    }
    if let Some(set) = set {
        // Canonical texts seen, each made once (comparing every new form
        // with every kept one remade them quadratically, per series).
        let mut seen: std::collections::HashSet<String> = out.iter().map(|(o, _)| canonical(o)).collect();
        for (f, origin) in set_forms(set, model, data, opts)? {
            let m = model.alternative(&f).map_err(FamilyError::Form)?;
            if !seen.insert(canonical(&m)) {
                continue;
            }
            out.push((m, origin));
        }
    }
    Ok(out)
}

/// The right-hand side with the parameters renamed `c0, c1, …` in their
/// order and blanks removed: `a + b*p` and `c0 + c1*p` are one form.
fn canonical(m: &Model) -> String {
    let text: String = m.body_text.split_whitespace().collect();
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        match m.params.iter().position(|p| p.name == *word) {
            Some(j) => out.push_str(&format!("c{j}")),
            None => out.push_str(word),
        }
        word.clear();
    };
    for ch in text.chars() {
        if ch.is_alphanumeric() || ch == '_' || (ch == '.' && !word.is_empty()) {
            word.push(ch);
        } else {
            flush(&mut word, &mut out);
            out.push(ch);
        }
    }
    flush(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::parse_rat;

    fn rat(s: &str) -> Rat {
        parse_rat(s).unwrap()
    }

    fn base(vars: &str) -> Model {
        Model::parse(&format!("T({vars}) = c0\nparam c0\n"), "base", 30).unwrap()
    }

    fn data(points: &[(&[&str], &str)]) -> Vec<Measurement> {
        points
            .iter()
            .enumerate()
            .map(|(i, (x, y))| Measurement { x: x.iter().map(|v| rat(v)).collect(), y: rat(y), line: i + 2 })
            .collect()
    }

    #[test]
    fn pmnf_has_extrap_building_blocks() {
        assert_eq!(PMNF_TERMS.len(), 42);
        assert_eq!(term_text("p", (5, 4, 1)), "p^(5/4)*log2(p)");
        assert_eq!(term_text("p", (0, 1, 2)), "log2(p)^2");
        assert_eq!(term_text("p", (1, 1, 0)), "p");
        assert_eq!(term_text("p", (2, 1, 0)), "p^2");
        let d = data(&[(&["1"], "1"), (&["2"], "2")]);
        let f = pmnf_forms(&base("p"), &d, &Options::default()).unwrap();
        assert_eq!(f.len(), 43);
        assert_eq!(f[0], "c0");
        // A value below 1: no log terms.
        let d = data(&[(&["0.5"], "1"), (&["2"], "2")]);
        assert_eq!(pmnf_forms(&base("p"), &d, &Options::default()).unwrap().len(), 20);
    }

    #[test]
    fn family_finds_the_generating_form_and_its_band_holds_it() {
        // T = 3 + 2 p log2 p, exactly, at p = 2..64.
        let pts: Vec<(String, String)> = [2u32, 4, 8, 16, 32, 64]
            .iter()
            .map(|&p| (p.to_string(), (3 + 2 * p * p.trailing_zeros()).to_string()))
            .collect();
        let d: Vec<Measurement> = pts
            .iter()
            .enumerate()
            .map(|(i, (x, y))| Measurement { x: vec![rat(x)], y: rat(y), line: i })
            .collect();
        let b = base("p");
        let opts = Options::default();
        let forms = forms_of(&b, false, Some(FamilySet::Pmnf), &d, &opts).unwrap();
        let at = vec![vec![rat("1024")]];
        let fa = analyse(forms, &d, "d", &opts, &at).unwrap();
        assert_eq!(fa.members[0].form, "c0 + c1*p*log2(p)");
        assert_eq!(fa.members[0].stats.remax, Some(Rat::zero()));
        assert_eq!(fa.members[0].stats.params, vec![rat("3"), rat("2")]);
        // trusted = max(2*0, 5 %): the family band at p = 1024 holds the truth.
        let truth = rat("20483");
        let h = fa.hull[1][0].as_ref().unwrap();
        assert!(
            h.measurement.lower.as_ref().unwrap() <= &truth
                && &truth <= h.measurement.upper.as_ref().unwrap()
        );
        assert!(h.forms >= 1);
        // Each consistent member's band is inside the hull; inconsistent ones have none.
        for m in &fa.members {
            assert_eq!(m.consistent[1], m.stats.remax.as_ref().unwrap() <= &rat("0.05"), "{}", m.form);
            if let Some((mb, _)) = &m.bands[1][0] {
                assert!(h.model.lower.as_ref().unwrap() <= mb.lower.as_ref().unwrap());
                assert!(mb.upper.as_ref().unwrap() <= h.model.upper.as_ref().unwrap());
            }
        }
    }

    #[test]
    fn data_steeper_than_every_form_are_found_on_the_three_largest_scales() {
        let opts = Options::default();
        let at = vec![vec![rat("50")]];
        let family = |pts: &[(&str, &str)], set| {
            let d: Vec<Measurement> = pts
                .iter()
                .enumerate()
                .map(|(i, (x, y))| Measurement { x: vec![rat(x)], y: rat(y), line: i + 2 })
                .collect();
            let forms = forms_of(&base("n"), false, Some(set), &d, &opts).unwrap();
            analyse(forms, &d, "d", &opts, &at).unwrap()
        };
        // LULESH by problem size (64 ranks, medians in s): n^3 elements
        // times n time steps.
        let lulesh = [("10", "3.340089"), ("20", "34.849173"), ("30", "178.482981"), ("40", "562.900102")];
        let got = family(&lulesh, FamilySet::Scaling).steeper_than_family();
        assert_eq!(got, Some(Steeper { term: (3, 1, 1), from: rat("20"), to: rat("40") }));
        assert_eq!(family(&lulesh, FamilySet::Pmnf).steeper_than_family(), got);
        // Exactly n^3·log2(n) grows no faster than its own term; a quartic
        // with an early dip (the first interval slower) neither.
        let own = [("2", "8"), ("4", "128"), ("8", "1536"), ("16", "16384")];
        assert_eq!(family(&own, FamilySet::Scaling).steeper_than_family(), None);
        let dip = [("10", "20000"), ("20", "170000"), ("30", "200000"), ("40", "2560000")];
        assert_eq!(family(&dip, FamilySet::Scaling).steeper_than_family(), None);
        // Below 1 there are no log terms: the steepest is n^3, compared
        // exactly (n^3 itself is not steeper; a little more is).
        let cubic = [("0.5", "0.125"), ("1", "1"), ("2", "8"), ("4", "64")];
        assert_eq!(family(&cubic, FamilySet::Scaling).steeper_than_family(), None);
        let more = [("0.5", "0.125"), ("1", "1"), ("2", "8.001"), ("4", "64.02")];
        assert_eq!(
            family(&more, FamilySet::Scaling).steeper_than_family(),
            Some(Steeper { term: (3, 1, 0), from: rat("1"), to: rat("4") })
        );
        // Two scales are too few.
        assert_eq!(family(&lulesh[2..], FamilySet::Scaling).steeper_than_family(), None);
        // From 1 the log term grows without bound: never steeper there.
        assert!(!grows_faster(&rat("1"), &rat("1"), &rat("2"), &rat("1000000"), true));
        assert!(grows_faster(&rat("1"), &rat("1"), &rat("2"), &rat("8.001"), false));
    }

    #[test]
    fn the_hull_at_further_points_follows_the_reported_hull() {
        // A falling series with noise (several forms consistent) and one
        // growing exactly; at their own points and far beyond, where some
        // forms predict a time below zero: `hull_at` (what a figure draws)
        // must be the reported family band, point by point.
        let falling =
            [("2", "55.4"), ("4", "29.1"), ("8", "18.2"), ("16", "10.9"), ("32", "8.3"), ("64", "6.4")];
        let growing = [("2", "7"), ("4", "19"), ("8", "51"), ("16", "131"), ("32", "323"), ("64", "771")];
        let mut left_out = 0;
        for (series, set) in [(&falling, FamilySet::Scaling), (&growing, FamilySet::Pmnf)] {
            let d: Vec<Measurement> = series
                .iter()
                .enumerate()
                .map(|(i, (x, y))| Measurement { x: vec![rat(x)], y: rat(y), line: i })
                .collect();
            let opts = Options::default();
            let forms = forms_of(&base("p"), false, Some(set), &d, &opts).unwrap();
            let at: Vec<Vec<Rat>> =
                ["1", "48", "128", "1024", "65536"].iter().map(|p| vec![rat(p)]).collect();
            let fa = analyse(forms, &d, "d", &opts, &at).unwrap();
            left_out += fa.members.iter().flat_map(|m| &m.positive).filter(|p| !**p).count();
            for t in 0..fa.levels.len() {
                let (hulls, forms) = fa.hull_at(t, &at);
                let consistent = fa.members.iter().filter(|m| m.consistent[t]).count();
                assert_eq!(forms, consistent, "level {t}");
                for (p, (got, want)) in hulls.iter().zip(&fa.hull[t]).enumerate() {
                    let key = |h: &Option<Hull>| {
                        h.as_ref().map(|h| (h.model.clone(), h.measurement.clone(), h.forms))
                    };
                    assert_eq!(key(got), key(want), "level {t}, point {p}");
                }
            }
        }
        assert!(left_out > 0, "no form predicted a time below zero: the positivity rule went untested");
    }

    #[test]
    fn two_variables_combine_per_variable_terms() {
        // T = 1 + p * n at a 4 x 4 grid.
        let mut d = Vec::new();
        for p in [2, 4, 8, 16] {
            for n in [10, 20, 30, 40] {
                d.push(Measurement {
                    x: vec![rat(&p.to_string()), rat(&n.to_string())],
                    y: Rat::from_integer((1 + p * n).into()),
                    line: 0,
                });
            }
        }
        let b = base("p, n");
        let forms = pmnf_forms(&b, &d, &Options::default()).unwrap();
        assert!(forms.contains(&"c0 + c1*p*n".to_string()), "{forms:?}");
        assert!(forms.contains(&"c0 + c1*p + c2*n".to_string()), "{forms:?}");
        let models = forms_of(&b, false, Some(FamilySet::Pmnf), &d, &Options::default()).unwrap();
        let fa = analyse(models, &d, "d", &Options::default(), &[]).unwrap();
        assert_eq!(fa.members[0].stats.remax, Some(Rat::zero()));
        assert!(fa.members[0].form.contains("p*n"), "{}", fa.members[0].form);
    }

    #[test]
    fn combinations_match_extrap_counts() {
        let (x, y, z) = ("x".to_string(), "y".to_string(), "z".to_string());
        assert_eq!(combinations(&[&x]), vec!["c0 + c1*x"]);
        assert_eq!(
            combinations(&[&x, &y]),
            vec!["c0 + c1*x*y", "c0 + c1*x + c2*y", "c0 + c1*x + c2*x*y", "c0 + c1*y + c2*x*y"]
        );
        let three = combinations(&[&x, &y, &z]);
        assert_eq!(three.len(), 23);
        assert!(three.contains(&"c0 + c1*x*y*z".to_string()));
        assert!(three.contains(&"c0 + c1*x + c2*y + c3*z".to_string()));
        assert!(three.contains(&"c0 + c1*y*z + c2*x + c3*y".to_string()));
        // Every form uses every variable.
        assert!(three.iter().all(|f| f.contains('x') && f.contains('y') && f.contains('z')));
    }
}
