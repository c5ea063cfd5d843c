//! Comparing data-pruning choices (Orii and Anai, section 4.4): drop
//! some measured points, refit, and see how the band at the target points
//! changes.
//!
//! A candidate drops whole distinct points (every repetition measured
//! there), as the paper drops p = 110. Candidates come from four sources:
//! every single point (leave-one-out), every subset of up to `max_drop`
//! points, user-given subsets, and a greedy sequence that drops the point
//! with the largest weighted residual `w(x)·|e|` (the fit's own scale,
//! paper Fig. 8) one at a time. Each candidate is a full exact re-analysis
//! (fit, Max|e_i|, e_max, regions, bands); they run in parallel and are
//! ranked deterministically.

use crate::analysis::{Analysis, AnalysisError, Band, Bound, Options};
use crate::data::Measurement;
use crate::fit::Design;
use crate::model::Model;
use crate::num::Rat;
use num_traits::{Signed, Zero};
use rayon::prelude::*;

/// Which candidates to generate.
#[derive(Debug, Clone)]
pub struct Search {
    /// Largest number of points one generated candidate drops (0: no
    /// generated subsets, only user candidates and the greedy sequence).
    pub max_drop: usize,
    /// Consider only the points with the largest weighted residuals (all when None).
    pub top: Option<usize>,
    /// Length of the greedy sequence (0: none).
    pub greedy: usize,
    /// User candidates: label and the points to drop.
    pub user: Vec<(String, Vec<Vec<Rat>>)>,
}

/// Where a candidate came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Generated: a subset of `n` points (1 = leave-one-out).
    Subset(usize),
    /// Given with `--candidate` (its text).
    User(String),
    /// Step `n` (from 1) of the greedy sequence.
    Greedy(usize),
}

impl Origin {
    /// Short label: `leave-one-out`, `pair`, `3 points`, `user`, `greedy 2`.
    pub fn label(&self) -> String {
        match self {
            Origin::Subset(1) => "leave-one-out".into(),
            Origin::Subset(2) => "pair".into(),
            Origin::Subset(n) => format!("{n} points"),
            Origin::User(_) => "user".into(),
            Origin::Greedy(n) => format!("greedy {n}"),
        }
    }
}

/// One pruning choice: the distinct points it drops.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Indices into the unpruned design's groups, ascending.
    pub points: Vec<usize>,
    /// Measurement indices dropped, ascending.
    pub rows: Vec<usize>,
    /// Every source that proposed this subset (duplicates are merged).
    pub origins: Vec<Origin>,
}

/// The re-analysis of one candidate.
#[derive(Debug, Clone)]
pub struct Scored {
    /// Refitted parameters.
    pub params: Vec<Rat>,
    /// Max|e_i| of the refit.
    pub max_abs: Rat,
    /// e_max of the kept data.
    pub emax: Rat,
    /// Σe²/m of the refit.
    pub mean_square: Rat,
    /// The bound of each threshold on the kept data (relative ones too).
    pub bounds: Vec<Bound>,
    /// `bands[t][j]`: band at target `j` for threshold `t` (None: empty region).
    pub bands: Vec<Vec<Option<Band>>>,
    /// `measurement[t][j]`: the band of a new measurement there.
    pub measurement: Vec<Vec<Option<Band>>>,
    /// Whether the band at the first threshold leaves the unpruned band at
    /// some target (reaches below its lower or above its upper end): the
    /// pruning moved the prediction rather than narrowing it, a warning
    /// sign that ranks the candidate after every one that stays inside.
    pub leaves: bool,
    /// `ratios[t][j]`: band width over the unpruned width (None: infinite or undefined).
    pub ratios: Vec<Vec<Option<Rat>>>,
}

/// A candidate and what its re-analysis gave (or why it failed, e.g. too
/// few points left or a rank-deficient fit).
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The candidate.
    pub candidate: Candidate,
    /// Its re-analysis.
    pub result: Result<Scored, AnalysisError>,
}

impl Outcome {
    /// The width part of the ranking: the largest width ratio over the
    /// targets at the first threshold (a choice must narrow every target to
    /// rank well). None (ranks last): an empty region, an unbounded band,
    /// or a failure.
    pub fn key(&self) -> Option<Rat> {
        worst_ratio(self.result.as_ref().ok()?.ratios.first()?)
    }

    /// Whether the candidate's band leaves the unpruned one ([`Scored::leaves`]).
    pub fn leaves(&self) -> bool {
        self.result.as_ref().is_ok_and(|s| s.leaves)
    }
}

/// The ranking rule, as reports state it.
pub const RANKING: &str = "candidates whose band at the first threshold stays inside the unpruned band at every target first (a pruning that moves the band is a warning sign, not a gain), then by the largest width ratio over the targets, smaller first; ties keep generation order";

/// Whether `b` reaches outside `base` on either side (an open side of
/// `b` where `base` is closed counts as outside).
fn outside(b: &Band, base: &Band) -> bool {
    let below = match (&b.lower, &base.lower) {
        (None, Some(_)) => true,
        (Some(l), Some(bl)) => l < bl,
        _ => false,
    };
    let above = match (&b.upper, &base.upper) {
        (None, Some(_)) => true,
        (Some(u), Some(bu)) => u > bu,
        _ => false,
    };
    below || above
}

/// The largest ratio of a row (None when any is None: an infinite or
/// undefined ratio at one target cannot rank well).
pub(crate) fn worst_ratio(row: &[Option<Rat>]) -> Option<Rat> {
    let mut worst: Option<&Rat> = None;
    for r in row {
        let r = r.as_ref()?;
        if worst.is_none_or(|w| r > w) {
            worst = Some(r);
        }
    }
    worst.cloned()
}

/// Ranking order of keys: smaller first, None last.
pub(crate) fn by_key(a: &Option<Rat>, b: &Option<Rat>) -> std::cmp::Ordering {
    use std::cmp::Ordering::{Greater, Less};
    match (a, b) {
        (Some(x), Some(y)) => x.cmp(y),
        (Some(_), None) => Less,
        (None, Some(_)) => Greater,
        (None, None) => std::cmp::Ordering::Equal,
    }
}

/// The whole comparison.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// The unpruned analysis (its predictions are the targets).
    pub base: Analysis,
    /// Target points.
    pub targets: Vec<Vec<Rat>>,
    /// Ranked outcomes, best first (ties keep generation order).
    pub outcomes: Vec<Outcome>,
}

/// Why a search could not be set up.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum PruneError {
    /// The unpruned analysis failed.
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
    /// A user candidate names a point without measurements.
    #[error("candidate {0}: no measurement is at that point")]
    NoSuchPoint(String),
    /// More generated candidates than the model's [`crate::limits::Limits::candidates`]:
    /// how many, and the limit.
    #[error(
        "the search generates {0} candidates (limit {1}): draw them from fewer residuals, or raise the limit"
    )]
    TooMany(u128, usize),
    /// No candidate to compare.
    #[error("nothing to compare: no candidate to drop")]
    Nothing,
}

impl crate::error::Classified for PruneError {
    fn kind(&self) -> crate::error::ErrorKind {
        match self {
            PruneError::Analysis(e) => crate::error::Classified::kind(e),
            _ => crate::error::ErrorKind::Input,
        }
    }
}

/// `w(x)·max|T(c, x) − d|` per distinct point, not in lowest terms (they
/// rank points; the fit's long denominator would cost a gcd per point).
fn weighted_residuals(design: &Design, c: &[Rat]) -> Vec<Rat> {
    let values = design.values_unreduced(c);
    design
        .groups
        .iter()
        .zip(&values)
        .map(|(gr, t)| {
            let e = gr.worst_gap(t);
            let w = gr.weight.abs();
            Rat::new_raw(w.numer() * e.numer(), w.denom() * e.denom())
        })
        .collect()
}

/// Group indices ordered by weighted residual, largest first (ties: data order).
fn by_residual(w: &[Rat]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..w.len()).collect();
    idx.sort_by(|&a, &b| crate::num::cmp_unreduced(&w[b], &w[a]).then(a.cmp(&b)));
    idx
}

fn binomial(n: usize, k: usize) -> u128 {
    let mut r: u128 = 1;
    for i in 0..k as u128 {
        r = r.saturating_mul(n as u128 - i) / (i + 1);
    }
    r
}

/// All subsets of `pool` of size `k`, in lexicographic order of positions.
fn subsets(pool: &[usize], k: usize, out: &mut Vec<Vec<usize>>) {
    fn go(pool: &[usize], k: usize, start: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if cur.len() == k {
            let mut s = cur.clone();
            s.sort_unstable();
            out.push(s);
            return;
        }
        for i in start..pool.len() {
            cur.push(pool[i]);
            go(pool, k, i + 1, cur, out);
            cur.pop();
        }
    }
    go(pool, k, 0, &mut Vec::with_capacity(k), out);
}

/// The candidates of a search over `design` (the unpruned one), merged
/// when two sources propose the same subset. The greedy sequence refits
/// after each step (a cheap exact least squares, no QE). At most the
/// model's `limits().candidates` subsets are generated.
pub fn candidates(
    model: &Model,
    data: &[Measurement],
    design: &Design,
    params: &[Rat],
    search: &Search,
) -> Result<Vec<Candidate>, PruneError> {
    let ng = design.groups.len();
    let order = by_residual(&weighted_residuals(design, params));
    let pool: Vec<usize> = match search.top {
        Some(t) => order.iter().copied().take(t).collect(),
        None => (0..ng).collect(),
    };
    let mut list: Vec<(Vec<usize>, Origin)> = Vec::new();
    let mut total: u128 = 0;
    for k in 1..=search.max_drop.min(pool.len()) {
        total = total.saturating_add(binomial(pool.len(), k));
    }
    let limit = model.limits().candidates;
    if total > limit as u128 {
        return Err(PruneError::TooMany(total, limit));
    }
    for k in 1..=search.max_drop.min(pool.len()) {
        let mut subs = Vec::new();
        subsets(&pool, k, &mut subs);
        list.extend(subs.into_iter().map(|s| (s, Origin::Subset(k))));
    }
    for (label, points) in &search.user {
        let mut gs = Vec::new();
        for p in points {
            match design.groups.iter().position(|g| &g.x == p) {
                Some(g) => gs.push(g),
                None => return Err(PruneError::NoSuchPoint(format!("{label}: {}", model.show_point(p)))),
            }
        }
        gs.sort_unstable();
        gs.dedup();
        list.push((gs, Origin::User(label.clone())));
    }
    // Greedy: refit without the worst point so far, then drop the next worst.
    let mut dropped: Vec<usize> = Vec::new();
    for step in 1..=search.greedy {
        let kept: Vec<Measurement> = data
            .iter()
            .enumerate()
            .filter(|(i, _)| !dropped.contains(&design.group_of[*i]))
            .map(|(_, m)| m.clone())
            .collect();
        let Ok(d) = Design::new(model, &kept, "") else { break };
        let Ok(c) = d.params(model) else { break };
        let w = weighted_residuals(&d, &c);
        let Some(&worst) = by_residual(&w).first() else { break };
        let Some(g) = design.groups.iter().position(|g| g.x == d.groups[worst].x) else { break };
        dropped.push(g);
        if ng - dropped.len() < model.k().max(1) {
            break;
        }
        let mut s = dropped.clone();
        s.sort_unstable();
        list.push((s, Origin::Greedy(step)));
    }
    let mut out: Vec<Candidate> = Vec::new();
    for (points, origin) in list {
        if let Some(c) = out.iter_mut().find(|c| c.points == points) {
            c.origins.push(origin);
            continue;
        }
        let mut rows: Vec<usize> =
            points.iter().flat_map(|&g| design.groups[g].rows.iter().copied()).collect();
        rows.sort_unstable();
        out.push(Candidate { points, rows, origins: vec![origin] });
    }
    Ok(out)
}

/// Re-analyses the data without the candidate's points.
pub fn score(
    model: &Model,
    data: &[Measurement],
    file: &str,
    opts: &Options,
    base: &Analysis,
    cand: &Candidate,
) -> Result<Scored, AnalysisError> {
    let kept: Vec<Measurement> = data
        .iter()
        .enumerate()
        .filter(|(i, _)| cand.rows.binary_search(i).is_err())
        .map(|(_, m)| m.clone())
        .collect();
    let a = Analysis::run_rows(model, &kept, file, opts)?;
    let bands: Vec<Vec<Option<Band>>> =
        (0..a.regions.len()).map(|t| a.predictions.iter().map(|p| p.bands[t].clone()).collect()).collect();
    let ratios = bands
        .iter()
        .enumerate()
        .map(|(t, row)| {
            row.iter()
                .zip(&base.predictions)
                .map(|(b, p)| {
                    crate::analysis::width_ratio(b.as_ref().and_then(Band::width).as_ref(), &p.bands[t])
                })
                .collect()
        })
        .collect();
    let measurement = (0..a.regions.len())
        .map(|t| a.predictions.iter().map(|p| p.measurement[t].clone()).collect())
        .collect();
    let leaves = bands.first().is_some_and(|row: &Vec<Option<Band>>| {
        row.iter().zip(&base.predictions).any(|(b, p)| match (b, p.bands.first().and_then(|x| x.as_ref())) {
            (Some(b), Some(base)) => outside(b, base),
            _ => false,
        })
    });
    Ok(Scored {
        params: a.params,
        max_abs: a.residuals.max_abs,
        emax: a.emax,
        mean_square: a.residuals.mean_square,
        bounds: a.regions.iter().map(|r| r.bound.clone()).collect(),
        bands,
        measurement,
        ratios,
        leaves,
    })
}

/// Runs the comparison: the unpruned analysis at `targets`, then every
/// candidate in parallel (`tick` is called once per finished candidate,
/// from any thread), ranked by [`RANKING`]: inside the unpruned band first,
/// then by [`Outcome::key`], smaller first; ties and unranked outcomes keep
/// generation order, so the result does not depend on the thread count.
pub fn compare(
    model: &Model,
    data: &[Measurement],
    file: &str,
    opts: &Options,
    targets: &[Vec<Rat>],
    search: &Search,
    tick: &(dyn Fn(usize) + Sync),
) -> Result<Comparison, PruneError> {
    let mut model = model.clone();
    model.predict.clear();
    let opts = opts.for_search(targets);
    let base = Analysis::run_rows(&model, data, file, &opts)?;
    let cands = candidates(&model, data, &base.design, &base.params, search)?;
    if cands.is_empty() {
        return Err(PruneError::Nothing);
    }
    tick(cands.len());
    let mut outcomes: Vec<Outcome> = cands
        .into_par_iter()
        .map(|c| {
            let result = score(&model, data, file, &opts, &base, &c);
            tick(0);
            Outcome { candidate: c, result }
        })
        .collect();
    // Stable sort (RANKING): ties keep generation order.
    outcomes.sort_by(|a, b| a.leaves().cmp(&b.leaves()).then_with(|| by_key(&a.key(), &b.key())));
    Ok(Comparison { base, targets: targets.to_vec(), outcomes })
}

/// True when a band is a single value (zero width).
pub fn is_point(b: &Band) -> bool {
    b.width().is_some_and(|w| w.is_zero())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Threshold;
    use crate::num::int;

    fn opts() -> Options {
        Options { thresholds: vec![Threshold::parse("max").unwrap()], ..Options::default() }
    }

    #[test]
    fn leave_one_out_ranks_p110_first_unweighted() {
        let (m, data) = crate::testdata::hpl("param c1, c2");
        let search = Search { max_drop: 1, top: None, greedy: 0, user: vec![] };
        let c = compare(&m, &data, "hpl.csv", &opts(), &[vec![int(1000)]], &search, &|_| {}).unwrap();
        assert_eq!(c.outcomes.len(), 12);
        let best = &c.outcomes[0];
        assert_eq!(best.candidate.points, vec![10]);
        let r = best.key().unwrap();
        assert!(r < Rat::new(1.into(), 2.into()), "ratio {r}");
    }

    #[test]
    fn pairs_and_user_candidates_merge_duplicates() {
        let (m, data) = crate::testdata::hpl("param c1, c2");
        let search =
            Search { max_drop: 2, top: None, greedy: 2, user: vec![("p=110".into(), vec![vec![int(110)]])] };
        let c = compare(&m, &data, "hpl.csv", &opts(), &[vec![int(1000)]], &search, &|_| {}).unwrap();
        assert_eq!(c.outcomes.len(), 78);
        let p110 = c.outcomes.iter().find(|o| o.candidate.points == vec![10]).unwrap();
        assert!(p110.candidate.origins.contains(&Origin::User("p=110".into())));
        assert!(p110.candidate.origins.contains(&Origin::Subset(1)));
        assert!(p110.candidate.origins.contains(&Origin::Greedy(1)), "{:?}", p110.candidate.origins);
    }

    #[test]
    fn top_limits_the_pool_and_too_many_is_refused() {
        let (m, data) = crate::testdata::hpl("param c1, c2");
        let design = Design::new(&m, &data, "d").unwrap();
        let c = design.params(&m).unwrap();
        let s = Search { max_drop: 2, top: Some(3), greedy: 0, user: vec![] };
        assert_eq!(candidates(&m, &data, &design, &c, &s).unwrap().len(), 3 + 3);
        let s = Search { max_drop: 12, top: None, greedy: 0, user: vec![] };
        assert_eq!(candidates(&m, &data, &design, &c, &s).unwrap().len(), 4095);
        assert_eq!(binomial(10_000, 2), 49_995_000);
        let tight = crate::limits::Limits { candidates: 4094, ..Default::default() };
        let m = Model::parse_with(&m.source, "m.tm", 40, &tight).unwrap();
        assert!(matches!(candidates(&m, &data, &design, &c, &s), Err(PruneError::TooMany(4095, 4094))));
    }
}
