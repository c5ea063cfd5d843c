//! The design (the model's basis evaluated at each distinct data point) and
//! the exact (weighted) least-squares fit.
//!
//! Repeated measurements at one point share one basis evaluation; the normal
//! equations are accumulated per distinct point (count and sum of the
//! measurements), so the fit costs O(m) additions plus O(g·k²) for g
//! distinct points, and the residual-region rows (2 per distinct point: the
//! smallest and largest measurement are the only binding ones) stay few.

use crate::data::Measurement;
use crate::linear::{Constraint, Kind};
use crate::model::{EvalLog, FitMode, Model};
use crate::num::{abs_sub_unreduced, Point, Rat};
use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};
use std::collections::HashMap;
use std::sync::Arc;

/// The measurements at one distinct point.
#[derive(Debug, Clone)]
pub struct Group {
    /// The point.
    pub x: Vec<Rat>,
    /// `[f0, f1, .., fk]` at the point.
    pub basis: Vec<Rat>,
    /// The fit weight at the point.
    pub weight: Rat,
    /// Indices (into the data) of the measurements here, in data order;
    /// shared by every design made from the same tally (a family fits ~90
    /// forms to one series: a copy per form was 8 bytes per measurement
    /// each, most of the memory at 10^6 repetitions).
    pub rows: Arc<[usize]>,
    /// Smallest and largest measurement.
    pub ymin: Rat,
    /// Largest measurement.
    pub ymax: Rat,
    /// Sum of the measurements.
    pub ysum: Rat,
    /// Sum of their squares.
    pub ysq: Rat,
    /// A measurement (index into the data) with the smallest value.
    pub imin: usize,
    /// A measurement with the largest value.
    pub imax: usize,
}

impl Group {
    /// The largest `|t − d|` over the measurements here (at the smallest or
    /// the largest), not reduced: for ranking points by a model value `t`.
    pub fn worst_gap(&self, t: &Rat) -> Rat {
        let (lo, hi) = (abs_sub_unreduced(t, &self.ymin), abs_sub_unreduced(t, &self.ymax));
        std::cmp::max_by(lo, hi, crate::num::cmp_unreduced)
    }
}

/// The model evaluated on the data.
#[derive(Debug, Clone)]
pub struct Design {
    /// Distinct points, in order of first appearance.
    pub groups: Vec<Group>,
    /// Group of each measurement (empty for a design on some points of a
    /// tally only, [`Tally::keep`]).
    pub group_of: Arc<[usize]>,
    /// Inexact function values met while evaluating.
    pub log: EvalLog,
    /// The data, as named in messages.
    pub file: String,
    /// The inverse of the basis at the points when there are as many as
    /// parameters, once found ([`Design::square_inverse`]).
    square: SquareInverse,
}

/// A square design's basis inverse, remembered with the rows it inverts: a
/// series' bounds, regions and bands each want it (a tenth of a run of
/// two-point series inverted the same matrix nine times).
#[derive(Debug, Clone, Default)]
struct SquareInverse(std::sync::OnceLock<(Matrix, Option<Matrix>)>);

/// A matrix of exact values, by rows.
type Matrix = Vec<Vec<Rat>>;

impl Design {
    /// True when every measurement is positive: run times, whose bands are
    /// bounded by zero and which relative thresholds apply to.
    pub fn all_positive(&self) -> bool {
        use num_traits::Signed;
        self.groups.iter().all(|g| g.ymin.is_positive())
    }

    /// The inverse of the `k`-parameter basis at the points, when there
    /// are exactly `k` points and it is invertible: found once and reused
    /// while the rows are the ones it inverted (the fields are public; an
    /// edited design gets its own inverse).
    pub(crate) fn square_inverse(&self, k: usize) -> Option<std::borrow::Cow<'_, [Vec<Rat>]>> {
        use std::borrow::Cow;
        if k == 0 || self.groups.len() != k {
            return None;
        }
        let rows: Vec<&[Rat]> = self.groups.iter().map(|g| g.basis.get(1..=k)).collect::<Option<_>>()?;
        // (Parts compared: a value in other terms only costs a new inverse.)
        let same = |kept: &[Vec<Rat>]| {
            kept.len() == rows.len()
                && kept.iter().zip(&rows).all(|(a, b)| {
                    a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| crate::num::eq_lowest(x, y))
                })
        };
        let owned = || rows.iter().map(|r| r.to_vec()).collect::<Vec<_>>();
        let (kept, inv) = self.square.0.get_or_init(|| {
            let rows = owned();
            let inv = invert(rows.clone());
            (rows, inv)
        });
        if same(kept) {
            inv.as_deref().map(Cow::Borrowed)
        } else {
            invert(owned()).map(Cow::Owned)
        }
    }
}

/// Largest `k` for which a square design's inverse is used (the fit, and
/// the closed forms of the bounds and bands): its elimination is `k³`
/// exact operations, beyond which the LPs are no dearer.
pub(crate) const SQUARE_MAX: usize = 6;

/// Why the design or the fit failed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum FitError {
    /// The model cannot be evaluated at a data point (located diagnostic, in
    /// the model file, carrying its source).
    #[error("{0}")]
    Eval(Box<crate::lang::diag::Diagnostic>),
    /// Fewer distinct points than parameters.
    #[error("too few points: {params} parameters need at least {params} distinct data points; {file} has {points}")]
    TooFewPoints {
        /// Distinct points.
        points: usize,
        /// Parameters.
        params: usize,
        /// The data, as named in messages.
        file: String,
    },
    /// The basis functions are linearly dependent on the data points:
    /// each vector is a direction of parameter change that leaves every
    /// fitted value unchanged.
    #[error("{}", rank_message(names, directions))]
    RankDeficient {
        /// Null-space basis over the parameters.
        directions: Vec<Vec<Rat>>,
        /// The parameters' names (the directions' coordinates).
        names: Vec<String>,
    },
}

impl crate::error::Classified for FitError {
    fn kind(&self) -> crate::error::ErrorKind {
        match self {
            FitError::Eval(_) => crate::error::ErrorKind::Input,
            _ => crate::error::ErrorKind::Analysis,
        }
    }
}

/// The rank-deficiency message: which parameters, along which directions.
fn rank_message(names: &[String], directions: &[Vec<Rat>]) -> String {
    let mut involved: Vec<&str> = Vec::new();
    let mut dirs = Vec::new();
    for d in directions {
        let terms: Vec<String> = d
            .iter()
            .zip(names)
            .filter(|(v, _)| !v.is_zero())
            .map(|(v, n)| {
                if !involved.contains(&n.as_str()) {
                    involved.push(n);
                }
                format!("{}·{n}", crate::num::fmt_fraction(v))
            })
            .collect();
        dirs.push(format!("({})", terms.join(", ")));
    }
    format!(
        "the data cannot separate the parameters {}: changing them along {} leaves the model unchanged at every data point\n  = help: measure at more distinct points, fix a parameter with `const`, or analyse given values with `fit none` (the region is then unbounded along these directions)",
        involved.join(", "),
        dirs.join(" and ")
    )
}

/// Measurements grouped by distinct point, with the exact statistics the
/// fit and every threshold read (count, sum, sum of squares, smallest,
/// largest, median): independent of the model, so one series' tally serves
/// every form and every fit of it. Grouping 10^6 repetitions is one hashing
/// pass over the rows; a design built from a tally then costs O(points).
#[derive(Debug, Clone, Default)]
pub struct Tally {
    /// Distinct points, in order of first appearance; no model yet: the
    /// basis is empty and the weight one until [`Design::from_tally`].
    groups: Vec<Group>,
    /// Group of each measurement (empty for a tally of some points only,
    /// [`Tally::keep`]: nothing reads a row's group there); shared with
    /// every design made from it.
    group_of: Arc<[usize]>,
    /// Per group, the median of its measurements.
    medians: Vec<Rat>,
    /// Per group, the line of its first measurement.
    lines: Vec<usize>,
}

impl Tally {
    /// Groups `data` by distinct point.
    pub fn new(data: &[Measurement]) -> Tally {
        let mut index: HashMap<Point<&[Rat]>, usize> = HashMap::new();
        let mut groups: Vec<Group> = Vec::new();
        let mut rows: Vec<Vec<usize>> = Vec::new();
        let mut lines = Vec::new();
        let mut group_of = Vec::with_capacity(data.len());
        // Sums and sums of squares over one common denominator per point,
        // reduced once at the end: a reduction per repetition dominated
        // whole runs of model discovery.
        let mut sums: Vec<(crate::num::Sum, crate::num::Sum)> = Vec::new();
        for (i, m) in data.iter().enumerate() {
            let g = match index.get(&Point(m.x.as_slice())) {
                Some(&g) => {
                    let (s, sq) = &mut sums[g];
                    s.add(&m.y);
                    sq.add_product(&m.y, &m.y);
                    rows[g].push(i);
                    let gr = &mut groups[g];
                    // Exact comparisons without num-rational's division.
                    if crate::num::cmp_fast(&m.y, &gr.ymin).is_lt() {
                        gr.ymin = m.y.clone();
                        gr.imin = i;
                    }
                    if crate::num::cmp_fast(&m.y, &gr.ymax).is_gt() {
                        gr.ymax = m.y.clone();
                        gr.imax = i;
                    }
                    g
                }
                None => {
                    index.insert(Point(&m.x), groups.len());
                    let (mut s, mut sq) = (crate::num::Sum::default(), crate::num::Sum::default());
                    s.add(&m.y);
                    sq.add_product(&m.y, &m.y);
                    sums.push((s, sq));
                    lines.push(m.line);
                    rows.push(vec![i]);
                    groups.push(Group {
                        x: m.x.clone(),
                        basis: Vec::new(),
                        weight: Rat::one(),
                        rows: Arc::from([]),
                        ymin: m.y.clone(),
                        ymax: m.y.clone(),
                        ysum: Rat::zero(),
                        ysq: Rat::zero(),
                        imin: i,
                        imax: i,
                    });
                    groups.len() - 1
                }
            };
            group_of.push(g);
        }
        for ((g, (s, sq)), r) in groups.iter_mut().zip(sums).zip(rows) {
            g.rows = Arc::from(r);
            if g.rows.len() == 1 {
                // One measurement (in lowest terms, as every parsed number
                // is): its sum is itself and its square is in lowest terms
                // too. Reducing them cost two gcds of the value's length
                // per point, most of a fit on long decimals.
                g.ysum = s.value_as_kept();
                g.ysq = sq.value_as_kept();
            } else {
                g.ysum = s.value();
                g.ysq = sq.value();
            }
        }
        let medians = groups
            .iter()
            .map(|g| crate::num::median(g.rows.iter().map(|&i| &data[i].y).collect()).unwrap_or_default())
            .collect();
        Tally { groups, group_of: Arc::from(group_of), medians, lines }
    }

    /// The distinct points (no basis: see [`Design::from_tally`]).
    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// The median of the measurements at each distinct point.
    pub fn medians(&self) -> &[Rat] {
        &self.medians
    }

    /// The line of the first measurement at each distinct point.
    pub fn lines(&self) -> &[usize] {
        &self.lines
    }

    /// True when there are no measurements.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// The points `keep` accepts, with their statistics as they are (row
    /// indices still into the data the tally was made from).
    pub fn keep(&self, keep: impl Fn(&Group) -> bool) -> Tally {
        let mut out = Tally::default();
        for ((g, m), l) in self.groups.iter().zip(&self.medians).zip(&self.lines) {
            if keep(g) {
                out.groups.push(g.clone());
                out.medians.push(m.clone());
                out.lines.push(*l);
            }
        }
        out
    }
}

impl Design {
    /// Evaluates `model` at every distinct point of `data` (`file` names the data in messages).
    pub fn new(model: &Model, data: &[Measurement], file: &str) -> Result<Design, FitError> {
        Design::from_tally(model, &Tally::new(data), file)
    }

    /// Evaluates `model` at every distinct point of `tally`.
    pub fn from_tally(model: &Model, tally: &Tally, file: &str) -> Result<Design, FitError> {
        let mut log = model.new_log();
        let mut groups = Vec::with_capacity(tally.groups.len());
        for (g, line) in tally.groups.iter().zip(&tally.lines) {
            let ctx = || format!("{file} line {line}");
            let basis = model
                .basis_at_data(&g.x, &mut log)
                .map_err(|e| FitError::Eval(Box::new(model.eval_diagnostic(&e, &g.x, &ctx()))))?;
            let weight = model
                .weight_at(&g.x, &mut log)
                .map_err(|e| FitError::Eval(Box::new(model.eval_diagnostic(&e, &g.x, &ctx()))))?;
            if weight.is_zero() && model.fit == FitMode::LeastSquares {
                // A zero weight would silently drop the measurement from the fit.
                let e = crate::model::EvalError {
                    span: model.weight_span.clone().unwrap_or(0..0),
                    message: "the weight is zero".into(),
                };
                return Err(FitError::Eval(Box::new(
                    model
                        .eval_diagnostic(&e, &g.x, &ctx())
                        .with_label("this weight")
                        .with_help("a zero weight would drop the measurement from the fit; use a weight that is non-zero at every data point, or --drop the point"),
                )));
            }
            groups.push(Group { basis, weight, ..g.clone() });
        }
        Ok(Design {
            groups,
            group_of: tally.group_of.clone(),
            log,
            file: file.to_string(),
            square: SquareInverse::default(),
        })
    }

    /// A design for `tally`, whose points are some of this design's in the
    /// same order (the same data's medians, or all but the largest scale):
    /// the model's basis is taken from here, not evaluated again (a family
    /// evaluated each form at the same points several times per series).
    /// Any other tally is evaluated anew.
    pub fn for_tally(&self, model: &Model, tally: &Tally, file: &str) -> Result<Design, FitError> {
        let mut groups = Vec::with_capacity(tally.groups.len());
        let mut mine = self.groups.iter();
        for g in &tally.groups {
            match mine.find(|h| h.x == g.x) {
                Some(h) => {
                    groups.push(Group { basis: h.basis.clone(), weight: h.weight.clone(), ..g.clone() })
                }
                None => return Design::from_tally(model, tally, file),
            }
        }
        // The same points in the same order share the basis, so its inverse.
        let square =
            if groups.len() == self.groups.len() { self.square.clone() } else { SquareInverse::default() };
        Ok(Design {
            groups,
            group_of: tally.group_of.clone(),
            log: self.log.clone(),
            file: file.to_string(),
            square,
        })
    }

    /// Number of parameters.
    pub fn k(&self) -> usize {
        self.groups.first().map_or(0, |g| g.basis.len() - 1)
    }

    /// Directions of parameter change invisible to the data (empty when the
    /// basis has full rank on the data points).
    pub fn null_space(&self, k: usize) -> Vec<Vec<Rat>> {
        // Full rank, the usual answer, without copying every point's basis
        // into a row (a trusted band asked it of 10^5 two-point series).
        if self.full_column_rank(k) {
            return Vec::new();
        }
        let rows: Vec<Constraint> = self
            .groups
            .iter()
            .map(|g| Constraint::new(g.basis[1..].to_vec(), Kind::Le, Rat::zero()))
            .collect();
        crate::lp::simplex::null_space(&rows, k)
    }

    fn too_few(&self, k: usize) -> FitError {
        FitError::TooFewPoints { points: self.groups.len(), params: k, file: self.file.clone() }
    }

    fn rank_deficient(model: &Model, directions: Vec<Vec<Rat>>) -> FitError {
        FitError::RankDeficient { directions, names: model.params.iter().map(|p| p.name.clone()).collect() }
    }

    /// The exact least-squares parameters, minimising
    /// `Σ (w(x_i)·(d_i − T(c, x_i)))²`.
    pub fn least_squares(&self, model: &Model) -> Result<Vec<Rat>, FitError> {
        let k = model.k();
        if self.groups.len() < k {
            return Err(self.too_few(k));
        }
        // As many points as parameters: each point's fitted value is free,
        // so the least squares put it at the point's mean (whatever its
        // weight), and c = A⁻¹·(mean − f0) with the inverse the bounds and
        // bands use anyway. The solution is unique, so it is the normal
        // equations' exactly. A singular basis takes them, which name the
        // free directions.
        if k <= SQUARE_MAX {
            if let Some(inv) = self.square_inverse(k) {
                let centred: Vec<Rat> = self
                    .groups
                    .iter()
                    .map(|g| {
                        let n = Rat::from_integer(g.rows.len().into());
                        crate::num::sub_lowest(&crate::num::div(&g.ysum, &n), &g.basis[0])
                    })
                    .collect();
                return Ok(inv
                    .iter()
                    .map(|row| {
                        let mut s = crate::num::Sum::default();
                        for (a, v) in row.iter().zip(&centred) {
                            s.add_product(a, v);
                        }
                        s.value()
                    })
                    .collect());
            }
        }
        self.normal_equations(model)
    }

    /// [`Design::least_squares`] by the normal equations, whatever the
    /// design.
    fn normal_equations(&self, model: &Model) -> Result<Vec<Rat>, FitError> {
        let k = model.k();
        // Normal equations: Σ_g n_g w_g² f f^T c = Σ_g w_g² f (S_g − n_g f0).
        // Sums over a common denominator (`num::Sum`), reduced once each:
        // distinct points give every term its own 40-digit denominator.
        let mut sa = vec![vec![crate::num::Sum::default(); k]; k];
        let mut sb = vec![crate::num::Sum::default(); k];
        for g in &self.groups {
            let n = Rat::from_integer(g.rows.len().into());
            // Through num's operations for values in lowest terms: num-rational's
            // operators reduce with binary gcds, seconds for 800 rows of
            // 4 000-digit measurements. Unit weights (most models) skip
            // their products.
            let unit = g.weight.is_one();
            let w2 = if unit { Rat::one() } else { crate::num::mul(&g.weight, &g.weight) };
            let nw2 = if unit { n.clone() } else { crate::num::mul(&n, &w2) };
            let f = &g.basis[1..];
            let r = crate::num::sub_lowest(&g.ysum, &crate::num::mul(&n, &g.basis[0]));
            let t = if unit { r } else { crate::num::mul(&r, &w2) };
            for j in 0..k {
                if f[j].is_zero() {
                    continue;
                }
                let fj = crate::num::mul(&f[j], &nw2);
                for l in j..k {
                    sa[j][l].add_product(&fj, &f[l]);
                }
                sb[j].add_product(&f[j], &t);
            }
        }
        let mut a: Vec<Vec<Rat>> =
            sa.into_iter().map(|row| row.into_iter().map(crate::num::Sum::value).collect()).collect();
        let b: Vec<Rat> = sb.into_iter().map(crate::num::Sum::value).collect();
        for j in 1..k {
            let (upper, lower) = a.split_at_mut(j);
            for (l, row) in upper.iter().enumerate() {
                lower[0][l] = row[j].clone();
            }
        }
        solve(a, b).ok_or_else(|| Design::rank_deficient(model, self.null_space(k)))
    }

    /// Whether `model` can be fitted to these points: the failures of
    /// [`Design::params`] without the fit itself (full column rank makes
    /// the normal equations, with non-zero weights, regular).
    pub fn fittable(&self, model: &Model) -> Result<(), FitError> {
        let k = model.k();
        if model.fit == FitMode::LeastSquares {
            if self.groups.len() < k {
                return Err(self.too_few(k));
            }
            let dirs = self.null_space(k);
            if !dirs.is_empty() {
                return Err(Design::rank_deficient(model, dirs));
            }
        }
        Ok(())
    }

    /// Whether the `k` basis columns are independent on these points: rows
    /// brought to integers go into a fraction-free echelon form until `k`
    /// are independent (usually the first `k`).
    pub(crate) fn full_column_rank(&self, k: usize) -> bool {
        let mut ech = crate::num::echelon::Echelon::default();
        for g in &self.groups {
            if ech.rank() == k {
                break;
            }
            ech.insert(&crate::num::common_denominator_ints(&g.basis[1..]));
        }
        ech.rank() == k
    }

    /// Parameter values for `model`: fitted, or the given ones.
    pub fn params(&self, model: &Model) -> Result<Vec<Rat>, FitError> {
        match model.fit {
            // The normal equations are singular exactly when the basis is
            // rank-deficient on the data (weights are non-zero), and the
            // fit then names the free directions itself: no rank check
            // before every fit.
            FitMode::LeastSquares => self.least_squares(model),
            FitMode::Given => {
                Ok(model.params.iter().map(|p| p.given.clone().unwrap_or_else(Rat::zero)).collect())
            }
        }
    }

    /// `T(c, x)` at every group, not in lowest terms: over the common
    /// denominator `D` of `c` times the group's own. With `c = C/D` and
    /// basis values of denominators `q_j`, `T = Σ b_j·(Q/q_j)·C_j / (Q·D)`
    /// for `Q = lcm q_j`: no gcd of long numbers at all. For comparisons
    /// and decimal views; [`crate::num::reduced`] gives lowest terms.
    pub fn values_unreduced(&self, c: &[Rat]) -> Vec<Rat> {
        let (den, parts) = self.values_over(c);
        parts.into_iter().map(|(n, q)| Rat::new_raw(n, q * &den)).collect()
    }

    /// The common denominator `D` of `c`, and per group the numerator and
    /// the short factor `Q` of [`Design::values_unreduced`] (`T = n/(Q·D)`).
    fn values_over(&self, c: &[Rat]) -> (BigInt, Vec<(BigInt, BigInt)>) {
        let den = crate::num::lcm_denoms(c);
        let cs: Vec<BigInt> = c.iter().map(|v| v.numer() * (&den / v.denom())).collect();
        let parts = self
            .groups
            .iter()
            .map(|g| {
                let q = crate::num::lcm_denoms(&g.basis);
                let (b0, b) = (&g.basis[0], &g.basis[1..]);
                let mut n = b0.numer() * (&q / b0.denom()) * &den;
                for (bj, cj) in b.iter().zip(&cs) {
                    if !bj.is_zero() && !cj.is_zero() {
                        n += bj.numer() * (&q / bj.denom()) * cj;
                    }
                }
                (n, q)
            })
            .collect();
        (den, parts)
    }
}

impl Design {
    /// Extra-P's cross-validated prediction error of the model on the
    /// means of the points: each point left out in turn, the model fitted
    /// by least squares to the other points' means (unweighted, as Extra-P
    /// fits), and the symmetric relative error of its prediction at the
    /// left-out point, `2|T − d|/(|T| + |d|)`, summed (the mean times the
    /// number of points: ranks as Extra-P's SMAPE does). `None` when a fit
    /// without one point is not determined (too few points, or singular).
    pub fn loo_smape(&self, k: usize) -> Option<Rat> {
        let n = self.groups.len();
        if n <= k {
            return None;
        }
        let means: Vec<Rat> =
            self.groups.iter().map(|g| &g.ysum / Rat::from_integer(g.rows.len().into())).collect();
        // With `A = Σ f fᵀ` over all points and `h = fᵀA⁻¹f` at the one left
        // out, the fit without it predicts `d − (d − T)/(1 − h)` there (the
        // leave-one-out identity of least squares; `h = 1` exactly when
        // `A − f fᵀ` is singular): one inverse instead of n fits. Scaling
        // a basis column changes neither `h` nor `T`, and scaling `d` and
        // `T` together leaves the error as it is, so everything runs on
        // integers: columns and values over their common denominators,
        // `A⁻¹ = adj/δ`. Then, with `H = gᵀ·adj·g` and `F = δ·f0 + gᵀ·adj·b`,
        // the prediction is `(F − d·H)/(δ − H)` and its error
        // `2|F − d·δ| / (|F − d·H| + |d|·|δ − H|)`.
        let cols: Vec<BigInt> =
            (1..=k).map(|j| crate::num::lcm_denoms(self.groups.iter().map(|g| &g.basis[j]))).collect();
        let scale = crate::num::lcm_denoms(self.groups.iter().flat_map(|g| [&g.basis[0]]).chain(&means));
        let whole = |x: &Rat, by: &BigInt| x.numer() * (by / x.denom());
        let g: Vec<Vec<BigInt>> = self
            .groups
            .iter()
            .map(|gr| gr.basis[1..].iter().zip(&cols).map(|(f, c)| whole(f, c)).collect())
            .collect();
        let f0: Vec<BigInt> = self.groups.iter().map(|gr| whole(&gr.basis[0], &scale)).collect();
        let d: Vec<BigInt> = means.iter().map(|m| whole(m, &scale)).collect();
        let mut a = vec![vec![BigInt::zero(); k]; k];
        let mut b = vec![BigInt::zero(); k];
        for ((gi, f0i), di) in g.iter().zip(&f0).zip(&d) {
            let t = di - f0i;
            for j in 0..k {
                for l in j..k {
                    a[j][l] += &gi[j] * &gi[l];
                }
                b[j] += &gi[j] * &t;
            }
        }
        for j in 1..k {
            let (upper, lower) = a.split_at_mut(j);
            for (l, row) in upper.iter().enumerate() {
                lower[0][l] = row[j].clone();
            }
        }
        let inv =
            invert(a.iter().map(|r| r.iter().map(|x| Rat::from_integer(x.clone())).collect()).collect())?;
        let delta = crate::num::lcm_denoms(inv.iter().flatten());
        let adj: Vec<Vec<BigInt>> =
            inv.iter().map(|r| r.iter().map(|x| whole(x, &delta)).collect()).collect();
        let adj_b: Vec<BigInt> =
            adj.iter().map(|r| r.iter().zip(&b).map(|(x, y)| x * y).sum::<BigInt>()).collect();
        let mut total = crate::num::Sum::default();
        for ((gi, f0i), di) in g.iter().zip(&f0).zip(&d) {
            let h: BigInt = adj
                .iter()
                .zip(gi)
                .map(|(r, gj)| gj * r.iter().zip(gi).map(|(x, y)| x * y).sum::<BigInt>())
                .sum();
            let rest = &delta - &h;
            if rest.is_zero() {
                return None;
            }
            let fit = f0i * &delta + gi.iter().zip(&adj_b).map(|(x, y)| x * y).sum::<BigInt>();
            let num = (&fit - di * &delta).abs() * 2;
            let den = (&fit - di * &h).abs() + di.abs() * rest.abs();
            if !den.is_zero() {
                total.add_parts(num, &den);
            }
        }
        Some(total.value())
    }

    /// [`Design::loo_smape`] by one fit per point left out, as its
    /// definition says: the independent computation tests compare with.
    #[cfg(test)]
    fn loo_smape_refitting(&self, k: usize) -> Option<Rat> {
        let n = self.groups.len();
        if n <= k {
            return None;
        }
        let means: Vec<Rat> =
            self.groups.iter().map(|g| &g.ysum / Rat::from_integer(g.rows.len().into())).collect();
        let mut total = Rat::zero();
        for out in 0..n {
            let mut a = vec![vec![Rat::zero(); k]; k];
            let mut b = vec![Rat::zero(); k];
            for (i, g) in self.groups.iter().enumerate() {
                if i == out {
                    continue;
                }
                let f = &g.basis[1..];
                let t = &means[i] - &g.basis[0];
                for ((row, br), fr) in a.iter_mut().zip(b.iter_mut()).zip(f) {
                    for (x, fc) in row.iter_mut().zip(f) {
                        *x += fr * fc;
                    }
                    *br += fr * &t;
                }
            }
            let c = solve(a, b)?;
            let g = &self.groups[out];
            let pred = g.basis[1..].iter().zip(&c).fold(g.basis[0].clone(), |s, (f, v)| s + f * v);
            let d = &means[out];
            let sum = pred.abs() + d.abs();
            if !sum.is_zero() {
                total += Rat::from_integer(2.into()) * (&pred - d).abs() / sum;
            }
        }
        Some(total)
    }
}

/// The inverse of the square matrix `a` (`None`: singular), with
/// cross-cancelled operations (num-rational's operators reduce by binary
/// gcds of whole operands).
pub(crate) fn invert(a: Vec<Vec<Rat>>) -> Option<Vec<Vec<Rat>>> {
    use crate::num::{div, mul, sub_lowest};
    let n = a.len();
    // [a | I] reduced to [I | a⁻¹].
    let mut m: Vec<Vec<Rat>> = a
        .into_iter()
        .enumerate()
        .map(|(i, mut row)| {
            row.extend((0..n).map(|j| if i == j { Rat::one() } else { Rat::zero() }));
            row
        })
        .collect();
    for col in 0..n {
        let p = (col..n).find(|&r| !m[r][col].is_zero())?;
        m.swap(col, p);
        let piv = m[col][col].clone();
        let pivot_row: Vec<Rat> = m[col].iter().map(|x| div(x, &piv)).collect();
        for (r, row) in m.iter_mut().enumerate() {
            if r == col || row[col].is_zero() {
                continue;
            }
            let f = row[col].clone();
            for (x, y) in row.iter_mut().zip(&pivot_row).skip(col) {
                if !y.is_zero() {
                    *x = sub_lowest(x, &mul(&f, y));
                }
            }
        }
        m[col] = pivot_row;
    }
    Some(m.into_iter().map(|row| row[n..].to_vec()).collect())
}

/// Solves the square system `a·x = b` exactly (Gauss–Jordan with the first
/// non-zero pivot); `None` when `a` is singular.
pub fn solve(a: Vec<Vec<Rat>>, b: Vec<Rat>) -> Option<Vec<Rat>> {
    use num_traits::One;
    let n = b.len();
    // Each equation times the common denominator of its coefficients: the
    // same solutions, in integers. Then fraction-free Gauss-Jordan
    // (Bareiss): every entry stays a minor of that integer system, each
    // division by the previous pivot is exact, and the solution is the
    // right-hand side over the last pivot (the determinant), reduced once
    // per unknown. Rational elimination took a gcd per operation: most of
    // a family's fits.
    let mut m: Vec<Vec<BigInt>> = a
        .iter()
        .zip(&b)
        .map(|(row, bi)| {
            let l = crate::num::lcm_denoms(row.iter().chain(std::iter::once(bi)));
            row.iter().chain(std::iter::once(bi)).map(|x| x.numer() * (&l / x.denom())).collect()
        })
        .collect();
    let mut prev = BigInt::one();
    for k in 0..n {
        let p = (k..n).find(|&r| !m[r][k].is_zero())?;
        m.swap(k, p);
        let pivot_row = std::mem::take(&mut m[k]);
        let piv = &pivot_row[k];
        for (i, row) in m.iter_mut().enumerate() {
            if i == k {
                continue;
            }
            let f = std::mem::take(&mut row[k]);
            for (x, y) in row.iter_mut().zip(&pivot_row).skip(k + 1) {
                let t = if f.is_zero() { &*x * piv } else { &*x * piv - &f * y };
                *x = if prev.is_one() { t } else { t / &prev };
            }
        }
        prev = piv.clone();
        m[k] = pivot_row;
    }
    Some(m.into_iter().map(|row| crate::num::reduced(row[n].clone(), prev.clone())).collect())
}

/// Rational Gauss-Jordan elimination: the independent computation
/// [`solve`] is checked against.
#[cfg(test)]
fn solve_rational(mut a: Vec<Vec<Rat>>, mut b: Vec<Rat>) -> Option<Vec<Rat>> {
    let n = b.len();
    for col in 0..n {
        let p = (col..n).find(|&r| !a[r][col].is_zero())?;
        a.swap(col, p);
        b.swap(col, p);
        let piv = a[col][col].clone();
        for r in 0..n {
            if r == col || a[r][col].is_zero() {
                continue;
            }
            let f = &a[r][col] / &piv;
            let pivot_row = a[col].clone();
            for (x, y) in a[r].iter_mut().zip(&pivot_row).skip(col) {
                *x -= &f * y;
            }
            let d = &f * &b[col];
            b[r] -= d;
        }
    }
    Some((0..n).map(|i| &b[i] / &a[i][i]).collect())
}

/// Residual statistics of parameters `c` on the data, computed per
/// distinct point (the largest |e_i| at a point is at its smallest or
/// largest measurement; Σ e_i² follows from the count, sum and sum of
/// squares), so that their cost does not grow with repetitions. Single
/// residuals are computed on demand.
#[derive(Debug, Clone)]
pub struct Residuals {
    /// `T(c, x)` at each distinct point, over the common denominator of
    /// `c` times the point's own (not in lowest terms: [`Residuals::value`]
    /// reduces one on demand). Decimal views and comparisons
    /// ([`crate::num::cmp_unreduced`]) take them as they are; a reduction
    /// per point of thousand-digit fractions was most of a fit's cost on
    /// thousands of distinct points.
    values: Vec<Rat>,
    /// Group of each measurement (the design's, shared).
    group_of: Arc<[usize]>,
    /// `Max |e_i|`.
    pub max_abs: Rat,
    /// Index of a measurement attaining it.
    pub argmax: usize,
    /// `Σ e_i² / m` (the RMS is its square root, irrational in general).
    pub mean_square: Rat,
}

impl Residuals {
    /// Residuals of `c` on `data` through `design`.
    pub fn new(design: &Design, data: &[Measurement], c: &[Rat]) -> Residuals {
        let (den, parts) = design.values_over(c);
        // The values share most of their (long) denominator, the fitted
        // parameters' one: the sum of squares is formed over one common
        // denominator L·Y (L of the values, Y of the data's sums) in
        // integers and reduced once, instead of a gcd of thousand-digit
        // numbers per point.
        let lcm = |a: BigInt, b: &BigInt| {
            let g = crate::num::gcd(&a, b);
            a / g * b
        };
        // Every denominator is Q·D: L = D·lcm(Q), with gcds of short Qs only.
        let l = parts.iter().fold(BigInt::one(), |a, (_, q)| lcm(a, q)) * &den;
        let values: Vec<Rat> = parts.into_iter().map(|(n, q)| Rat::new_raw(n, q * &den)).collect();
        let y = design.groups.iter().fold(BigInt::one(), |a, g| lcm(lcm(a, g.ysum.denom()), g.ysq.denom()));
        let (l2, two) = (&l * &l, BigInt::from(2));
        let mut sum = BigInt::zero();
        let mut max_abs = Rat::zero();
        let mut max_f = 0.0;
        let mut argmax = 0;
        for (gr, t) in design.groups.iter().zip(&values) {
            let tn = t.numer() * (&l / t.denom());
            let ys = gr.ysum.numer() * (&y / gr.ysum.denom());
            let yq = gr.ysq.numer() * (&y / gr.ysq.denom());
            // Σ (t − y)² = n t² − 2 t Σy + Σy², times L²·Y.
            sum += BigInt::from(gr.rows.len()) * &tn * &tn * &y - &two * &tn * ys * &l + yq * &l2;
            let tf = crate::num::to_f64(t);
            for (yv, row) in [(&gr.ymin, gr.imin), (&gr.ymax, gr.imax)] {
                // Floats rule out most points (each exact difference and
                // comparison is four products of long numbers).
                let yf = crate::num::to_f64(yv);
                if crate::num::surely_below((tf - yf).abs(), 1e-12 * (tf.abs() + yf.abs()), max_f) {
                    continue;
                }
                // |t − y| unreduced: only the largest is reduced.
                let a = abs_sub_unreduced(t, yv);
                let ord = crate::num::cmp_unreduced(&a, &max_abs);
                if ord.is_gt() || (ord.is_eq() && row < argmax) {
                    max_f = crate::num::to_f64(&a);
                    max_abs = a;
                    argmax = row;
                }
            }
        }
        let (n, d) = max_abs.into_raw();
        let max_abs = crate::num::reduced(n, d);
        let m = BigInt::from(data.len().max(1));
        let mean_square = crate::num::reduced(sum, l2 * y * m);
        Residuals { values, group_of: design.group_of.clone(), max_abs, argmax, mean_square }
    }

    /// `T(c, x)` at distinct point `g`, in lowest terms.
    pub fn value(&self, g: usize) -> Rat {
        let v = &self.values[g];
        crate::num::reduced(v.numer().clone(), v.denom().clone())
    }

    /// `T(c, x)` at distinct point `g` in any form (not reduced): for
    /// decimal views and comparisons.
    pub fn value_unreduced(&self, g: usize) -> &Rat {
        &self.values[g]
    }

    /// `T(c, x_i)` of measurement `i`, in lowest terms.
    pub fn model(&self, i: usize) -> Rat {
        self.value(self.group_of[i])
    }

    /// `e_i = T(c, x_i) − d_i` of measurement `i` (in `data`).
    pub fn e(&self, data: &[Measurement], i: usize) -> Rat {
        // One (fast) reduction: the value's denominator is the fit's, long.
        crate::num::sub(&self.values[self.group_of[i]], &data[i].y)
    }
}

/// The RMS of mean square `ms` as a decimal correctly rounded to `digits`
/// significant digits (`0` for zero): the root is irrational in general,
/// so only the square is exact.
pub fn rms_display(ms: &Rat, digits: usize) -> String {
    if ms.is_zero() {
        "0".into()
    } else {
        // Floats propose the rounded root; near a rounding boundary the
        // exact enclosure decides.
        crate::num::fmt_sqrt_sig(ms.numer(), ms.denom(), digits)
            .unwrap_or_else(|| crate::num::fmt_sig(&sqrt_display(ms, digits as u32), digits))
    }
}

/// `sqrt(x)` for display: correctly rounded to `digits` significant digits
/// (comparisons use the exact square, see [`rms_exceeds`]).
pub fn sqrt_display(x: &Rat, digits: u32) -> Rat {
    crate::num::transcendental::apply(crate::num::transcendental::Func::Sqrt, x, digits)
        .map_or_else(|_| Rat::zero(), |a| a.value)
}

/// True when `sqrt(ms) > e` (exactly: `ms > e²` for `e >= 0`).
pub fn rms_exceeds(ms: &Rat, e: &Rat) -> bool {
    // e² unreduced (it is in lowest terms when e is), compared by one
    // cross product: num-rational's `*` and `>` take gcds and divide.
    e.is_negative()
        || crate::num::cmp_fast(ms, &Rat::new_raw(e.numer() * e.numer(), e.denom() * e.denom())).is_gt()
}

/// `y²` for `y` in lowest terms (as every value read from data is): the
/// square of a reduced fraction is reduced, so no gcd is taken (a
/// 4 000-digit measurement's square took a binary gcd of 26 000 bits).
#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::{frac, int};

    #[test]
    fn a_square_designs_inverse_is_found_once_and_follows_an_edit() {
        let model = Model::parse("T(p) = c0 + c1*p\nparam c0, c1", "t.tm", 40).unwrap();
        let m = |x: i64, y: i64| Measurement { x: vec![int(x)], y: int(y), line: 1 };
        let mut design = Design::new(&model, &[m(1, 5), m(2, 7), m(2, 8)], "t.csv").unwrap();
        let first = design.square_inverse(2).unwrap().into_owned();
        // c0 + c1 at p = 1 and c0 + 2*c1 at p = 2: the inverse of [[1, 1], [1, 2]].
        assert_eq!(first, vec![vec![int(2), int(-1)], vec![int(-1), int(1)]]);
        assert!(matches!(design.square_inverse(2), Some(std::borrow::Cow::Borrowed(_))), "remembered");
        assert!(design.square_inverse(1).is_none(), "two points, one parameter: not square");
        // A caller edits the public rows: the remembered inverse is not theirs.
        design.groups[1].basis[2] = int(3);
        let edited = design.square_inverse(2).unwrap().into_owned();
        assert_eq!(edited, invert(vec![vec![int(1), int(1)], vec![int(1), int(3)]]).unwrap());
        // A singular edit has none.
        design.groups[1].basis[2] = int(1);
        assert!(design.square_inverse(2).is_none());
    }

    #[test]
    fn designs_of_one_tally_share_its_grouping() {
        // A family fits ~90 forms to one series: each form's design and
        // residuals must not copy the rows' grouping (8 bytes per
        // measurement each, 2.3 GB at 10^6 repetitions).
        let m = |x: i64, y: i64| Measurement { x: vec![int(x)], y: int(y), line: 1 };
        let data = [m(1, 5), m(2, 7), m(2, 8), m(4, 9), m(1, 6)];
        let tally = Tally::new(&data);
        assert_eq!(&*tally.group_of, &[0, 1, 1, 2, 0]);
        assert_eq!(tally.groups.iter().map(|g| &*g.rows).collect::<Vec<_>>(), [&[0, 4][..], &[1, 2], &[3]]);
        let forms = ["T(p) = c0 + c1*p\nparam c0, c1", "T(p) = c0 + c1/p\nparam c0, c1"];
        for text in forms {
            let model = Model::parse(text, "t.tm", 40).unwrap();
            let design = Design::from_tally(&model, &tally, "t.csv").unwrap();
            assert!(Arc::ptr_eq(&design.group_of, &tally.group_of));
            for (g, t) in design.groups.iter().zip(&tally.groups) {
                assert!(Arc::ptr_eq(&g.rows, &t.rows));
            }
            let medians = tally.keep(|g| g.x[0] != int(4));
            let fewer = design.for_tally(&model, &medians, "t.csv").unwrap();
            assert!(Arc::ptr_eq(&fewer.groups[0].rows, &tally.groups[0].rows));
            let c = design.params(&model).unwrap();
            let r = Residuals::new(&design, &data, &c);
            assert!(Arc::ptr_eq(&r.group_of, &tally.group_of));
        }
    }

    #[test]
    fn floats_propose_the_usual_roots() {
        for (ms, want) in [("2", "1.41421"), ("4", "2"), ("1/9", "0.333333"), ("90.0845", "9.49129")] {
            let ms = crate::num::parse_rat(ms).unwrap();
            assert_eq!(crate::num::fmt_sqrt_sig(ms.numer(), ms.denom(), 6).as_deref(), Some(want));
            assert_eq!(rms_display(&ms, 6), want);
        }
    }

    proptest::proptest! {
        /// The float-proposed RMS is the exactly enclosed one, digit for
        /// digit, over squares from tiny to huge and every display width.
        #[test]
        fn proposed_roots_are_the_exact_ones(
            n in 1u64..u64::MAX,
            d in 1u64..u64::MAX,
            scale in -300i32..300,
            digits in 1usize..14,
        ) {
            let ten = num_bigint::BigInt::from(10).pow(scale.unsigned_abs());
            let (n, d) = if scale >= 0 { (n * ten, d.into()) } else { (n.into(), d * ten) };
            let ms = Rat::new(n, d);
            let exact = crate::num::fmt_sig(&sqrt_display(&ms, digits as u32), digits);
            if let Some(fast) = crate::num::fmt_sqrt_sig(ms.numer(), ms.denom(), digits) {
                proptest::prop_assert_eq!(fast, exact);
            }
        }

        /// The rank test says what rational elimination says: full column
        /// rank exactly when the Gram matrix `AᵀA` is regular (few points,
        /// repeated and dependent columns, square designs included), and
        /// the null space is empty exactly then.
        #[test]
        fn full_rank_agrees_with_the_null_space(
            m in 1usize..6,
            cells in proptest::collection::vec((-2i64..3, 1i64..3), 15),
        ) {
            let model = crate::model::Model::parse("T(p, q, r) = a*p + b*q + c*r\nparam a, b, c\n", "m", 30).unwrap();
            let r = |(p, q): (i64, i64)| Rat::new(p.into(), q.into());
            let data: Vec<Measurement> = (0..m)
                .map(|i| Measurement { x: (0..3).map(|j| r(cells[3 * i + j])).collect(), y: int(1), line: i + 2 })
                .collect();
            let design = Design::new(&model, &data, "t").unwrap();
            let gram: Vec<Vec<Rat>> = (1..4)
                .map(|i| (1..4).map(|j| design.groups.iter().map(|g| &g.basis[i] * &g.basis[j]).sum()).collect())
                .collect();
            let regular = solve_rational(gram, vec![Rat::zero(); 3]).is_some();
            proptest::prop_assert_eq!(design.full_column_rank(3), regular);
            proptest::prop_assert_eq!(design.null_space(3).is_empty(), regular);
        }

        /// A square design's fit through its inverse is the normal
        /// equations' solution (each point at its mean), with repetitions;
        /// points are small fractions, so some coincide (too few points:
        /// both refuse).
        #[test]
        fn square_fits_are_the_normal_equations(
            k in 1usize..4,
            points in proptest::collection::vec((-3i64..4, 1i64..3), 3),
            reps in proptest::collection::vec(1usize..4, 3),
            ys in proptest::collection::vec((-20i64..21, 1i64..5), 9),
        ) {
            let body = ["c0", "c0 + c1*p", "c0 + c1*p + c2*p^2"][k - 1];
            let params = ["c0", "c0, c1", "c0, c1, c2"][k - 1];
            let model = crate::model::Model::parse(&format!("T(p) = {body}\nparam {params}\n"), "m", 30).unwrap();
            let r = |(p, q): (i64, i64)| Rat::new(p.into(), q.into());
            let mut data = Vec::new();
            for (i, (&pt, &n)) in points.iter().zip(&reps).take(k).enumerate() {
                for j in 0..n {
                    data.push(Measurement { x: vec![r(pt)], y: r(ys[3 * i + j]), line: data.len() + 2 });
                }
            }
            let design = Design::new(&model, &data, "t").unwrap();
            let (fast, normal) = (design.least_squares(&model), design.normal_equations(&model));
            proptest::prop_assert_eq!(fast.as_ref().ok(), normal.as_ref().ok());
            proptest::prop_assert_eq!(fast.is_err(), normal.is_err());
        }

        /// Fraction-free elimination solves exactly what rational
        /// elimination solves, singular systems and zero pivots included
        /// (small entries make both common).
        #[test]
        fn solve_agrees_with_rational_elimination(
            n in 1usize..6,
            cells in proptest::collection::vec((-4i64..5, 1i64..4), 42),
        ) {
            let r = |(p, q): (i64, i64)| Rat::new(p.into(), q.into());
            let a: Vec<Vec<Rat>> = (0..n).map(|i| (0..n).map(|j| r(cells[i * n + j])).collect()).collect();
            let b: Vec<Rat> = (0..n).map(|i| r(cells[36 + i])).collect();
            let got = solve(a.clone(), b.clone());
            proptest::prop_assert_eq!(&got, &solve_rational(a.clone(), b.clone()));
            if let Some(x) = got {
                for (row, bi) in a.iter().zip(&b) {
                    let lhs = row.iter().zip(&x).fold(Rat::zero(), |s, (c, v)| s + c * v);
                    proptest::prop_assert_eq!(&lhs, bi);
                }
            }
        }
    }

    fn data(points: &[(i64, Rat)]) -> Vec<Measurement> {
        points
            .iter()
            .enumerate()
            .map(|(i, (p, y))| Measurement { x: vec![int(*p)], y: y.clone(), line: i + 2 })
            .collect()
    }

    #[test]
    fn leave_one_out_by_the_identity_equals_refitting() {
        let forms = [
            "T(p) = c0 + c1*p\nparam c0, c1",
            "T(p) = c0 + c1/p + c2*log2(p)\nparam c0, c1, c2",
            "T(p) = c0 + c1*p^(1/2)*log2(p)\nparam c0, c1",
            "T(p) = c1*p^2\nparam c1",
        ];
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % 1000
        };
        for f in forms {
            let m = Model::parse(f, "a.tm", 40).unwrap();
            for trial in 0..6 {
                let mut rows = Vec::new();
                for (j, p) in [1, 2, 3, 4, 6, 8, 16].iter().take(4 + trial % 4).enumerate() {
                    for _ in 0..=(j % 3) {
                        rows.push((*p, frac(100 + next() as i64, 10)));
                    }
                }
                let d = data(&rows);
                let des = Design::new(&m, &d, "a.csv").unwrap();
                assert_eq!(des.loo_smape(m.k()), des.loo_smape_refitting(m.k()), "{f}, trial {trial}");
            }
        }
        // Two points for two coefficients: no fit without one.
        let m = Model::parse(forms[0], "a.tm", 40).unwrap();
        let des = Design::new(&m, &data(&[(1, int(1)), (2, int(3))]), "a.csv").unwrap();
        assert_eq!(des.loo_smape(2), None);
        // Three points, two at one scale group into two: singular without one.
        let des = Design::new(&m, &data(&[(1, int(1)), (2, int(3)), (4, int(5))]), "a.csv").unwrap();
        assert_eq!(des.loo_smape(2), des.loo_smape_refitting(2));
    }

    #[test]
    fn exact_data_is_recovered_exactly() {
        let m = Model::parse("T(p) = s + w/p\nparam s, w", "a.tm", 40).unwrap();
        let d = data(&[(1, frac(11, 1)), (2, frac(6, 1)), (4, frac(7, 2)), (4, frac(7, 2))]);
        let des = Design::new(&m, &d, "a.csv").unwrap();
        assert_eq!(des.groups.len(), 3);
        let c = des.params(&m).unwrap();
        assert_eq!(c, vec![int(1), int(10)]);
        let r = Residuals::new(&des, &d, &c);
        assert!(r.max_abs.is_zero() && r.mean_square.is_zero());
    }

    #[test]
    fn weights_change_the_fit_and_repetitions_count() {
        let m = Model::parse("T(p) = c*p\nparam c", "a.tm", 40).unwrap();
        let d = data(&[(1, int(1)), (2, int(5))]);
        let des = Design::new(&m, &d, "a.csv").unwrap();
        // min (c-1)^2 + (2c-5)^2 -> c = 11/5
        assert_eq!(des.params(&m).unwrap(), vec![frac(11, 5)]);
        let mw = Model::parse("T(p) = c*p\nparam c\nweight p", "a.tm", 40).unwrap();
        let des = Design::new(&mw, &d, "a.csv").unwrap();
        // min (c-1)^2 + 4(2c-5)^2 -> c = 41/17
        assert_eq!(des.params(&mw).unwrap(), vec![frac(41, 17)]);
        let d2 = data(&[(1, int(1)), (2, int(5)), (2, int(5))]);
        let des = Design::new(&m, &d2, "a.csv").unwrap();
        // min (c-1)^2 + 2(2c-5)^2 -> c = 21/9
        assert_eq!(des.params(&m).unwrap(), vec![frac(21, 9)]);
    }

    #[test]
    fn rank_deficiency_names_the_free_direction() {
        let m = Model::parse("T(p) = a*p + b*2*p\nparam a, b", "a.tm", 40).unwrap();
        let d = data(&[(1, int(1)), (2, int(2))]);
        let des = Design::new(&m, &d, "a.csv").unwrap();
        match des.params(&m) {
            Err(FitError::RankDeficient { directions, .. }) => {
                assert_eq!(directions, vec![vec![int(-2), int(1)]])
            }
            other => panic!("{other:?}"),
        }
        let m = Model::parse("T(p) = a + b/p + c*p\nparam a, b, c", "a.tm", 40).unwrap();
        let des = Design::new(&m, &d, "a.csv").unwrap();
        assert!(matches!(des.params(&m), Err(FitError::TooFewPoints { points: 2, params: 3, .. })));
    }

    #[test]
    fn zero_weight_is_refused() {
        let m = Model::parse("T(p) = c*p + d\nparam c, d\nweight p - 2", "a.tm", 40).unwrap();
        let d = data(&[(1, int(1)), (2, int(5))]);
        match Design::new(&m, &d, "a.csv") {
            Err(FitError::Eval(d)) => assert_eq!(d.message, "the weight is zero at p = 2 (a.csv line 3)"),
            other => panic!("{other:?}"),
        }
    }
}
