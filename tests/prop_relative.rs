//! Relative thresholds and next-measurement bands against an independent
//! exact computation: the region `|T(c, x_i) − d_i| ≤ a + r·d_i` is
//! enumerated here by brute force (every choice of k rows as equalities,
//! solved by Gaussian elimination, kept when it meets every row), and its
//! vertices, the band over it and the band of a new measurement
//! (`[L/(1+r), U/(1−r)]`, as the float prototype of `../shared/holdout`
//! defines it) must equal errband's exactly. remax is attained and nothing
//! below it is feasible.

mod common;

use common::{int, q};
use errband::analysis::{Analysis, Options, Shape, Threshold};
use errband::data::Measurement;
use errband::model::Model;
use errband::num::Rat;
use num_traits::{One, Signed, Zero};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

const MODELS: [&str; 3] = [
    "T(p) = c0 + c1/p\nparam c0, c1",
    "T(p) = c0 + c1/p + c2*p\nparam c0, c1, c2",
    "T(p) = c1*p + c2*log2(p)\nparam c1, c2\nweight 1/p",
];

fn model(i: usize) -> Model {
    Model::parse(MODELS[i], "m.tm", 40).unwrap()
}

/// Positive measurements (1.5 to 2.5) at points 1..64.
fn data_strategy() -> impl Strategy<Value = Vec<(i64, i64)>> {
    prop::collection::vec((1i64..=64, -50i64..50), 4..10)
}

fn measurements(raw: &[(i64, i64)]) -> Vec<Measurement> {
    raw.iter()
        .enumerate()
        .map(|(i, (p, y))| Measurement { x: vec![int(*p)], y: q(200 + *y + *p, 100), line: i + 2 })
        .collect()
}

fn basis(m: &Model, x: &[Rat]) -> Vec<Rat> {
    let mut log = m.new_log();
    m.basis_at(x, &mut log).unwrap()
}

/// `a·c <= b` rows of `|T(c, x_i) − d_i| ≤ abs + rel·d_i`, one pair per measurement.
fn rows(m: &Model, data: &[Measurement], abs: &Rat, rel: &Rat) -> Vec<(Vec<Rat>, Rat)> {
    let mut out = Vec::new();
    for d in data {
        let b = basis(m, &d.x);
        let slack = abs + rel * &d.y;
        out.push((b[1..].to_vec(), &d.y + &slack - &b[0]));
        out.push((b[1..].iter().map(|v| -v).collect(), &slack - &d.y + &b[0]));
    }
    out
}

/// The solution of the square system, or None when it is singular.
fn solve(mut a: Vec<Vec<Rat>>, mut b: Vec<Rat>) -> Option<Vec<Rat>> {
    let n = b.len();
    for col in 0..n {
        let piv = (col..n).find(|&r| !a[r][col].is_zero())?;
        a.swap(col, piv);
        b.swap(col, piv);
        for r in 0..n {
            if r != col && !a[r][col].is_zero() {
                let f = &a[r][col] / &a[col][col];
                let pivot_row = a[col].clone();
                for (x, p) in a[r].iter_mut().zip(&pivot_row).skip(col) {
                    *x -= &f * p;
                }
                let v = &f * &b[col];
                b[r] -= v;
            }
        }
    }
    Some((0..n).map(|i| &b[i] / &a[i][i]).collect())
}

/// Every vertex of `{c : a·c <= b for all rows}` by brute force.
fn vertices(rows: &[(Vec<Rat>, Rat)], k: usize) -> Vec<Vec<Rat>> {
    let mut out: Vec<Vec<Rat>> = Vec::new();
    let n = rows.len();
    let mut idx: Vec<usize> = (0..k).collect();
    loop {
        let a: Vec<Vec<Rat>> = idx.iter().map(|&i| rows[i].0.clone()).collect();
        let b: Vec<Rat> = idx.iter().map(|&i| rows[i].1.clone()).collect();
        if let Some(c) = solve(a, b) {
            let feasible =
                rows.iter().all(|(a, b)| a.iter().zip(&c).fold(Rat::zero(), |s, (x, y)| s + x * y) <= *b);
            if feasible && !out.contains(&c) {
                out.push(c);
            }
        }
        // Next k-subset in lexicographic order.
        let mut i = k;
        loop {
            if i == 0 {
                return out;
            }
            i -= 1;
            if idx[i] < n - k + i {
                idx[i] += 1;
                for j in i + 1..k {
                    idx[j] = idx[j - 1] + 1;
                }
                break;
            }
        }
    }
}

fn run(m: &Model, data: &[Measurement], thresholds: &[&str], at: i64) -> Option<Analysis> {
    let opts = Options::default()
        .thresholds(thresholds.iter().map(|t| Threshold::parse(t).unwrap()).collect())
        .at(vec![vec![int(at)]]);
    Analysis::run_rows(m, data, "d.csv", &opts).ok()
}

fn sorted(mut v: Vec<Vec<Rat>>) -> Vec<Vec<Rat>> {
    v.sort();
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, failure_persistence: None, rng_seed: RngSeed::Fixed(0x19_0001), ..ProptestConfig::default() })]

    #[test]
    fn relative_regions_and_both_bands_match_brute_force(
        mi in 0usize..3, raw in data_strategy(), at in 65i64..2000, pct in 1i64..30, k in 2i64..4,
    ) {
        let m = model(mi);
        let data = measurements(&raw);
        let kr = format!("{k}*remax");
        let p = format!("{pct}%");
        let mixed = format!("max + {pct}%");
        let Some(a) = run(&m, &data, &[&p, &kr, &mixed, "max(2*remax, 5%)"], at) else { return Ok(()) };
        let npar = m.params.len();
        let x = vec![int(at)];
        let bx = basis(&m, &x);
        for (t, r) in a.regions.iter().enumerate() {
            let rows = rows(&m, &data, &r.bound.absolute, &r.bound.relative);
            let brute = vertices(&rows, npar);
            if brute.is_empty() {
                prop_assert_eq!(&r.shape, &Shape::Empty, "threshold {}", r.threshold.text);
                continue;
            }
            if !matches!(r.shape, Shape::Bounded | Shape::Point) {
                continue;
            }
            // Vertices in the absolute parameters, exactly.
            prop_assert_eq!(sorted(r.params_at.clone()), sorted(brute.clone()), "threshold {}", r.threshold.text);
            // The band: the extremes of T(c, x*) over those vertices.
            let vals: Vec<Rat> = brute
                .iter()
                .map(|c| bx[0].clone() + bx[1..].iter().zip(c).fold(Rat::zero(), |s, (f, v)| s + f * v))
                .collect();
            let (lo, hi) = (vals.iter().min().unwrap().clone(), vals.iter().max().unwrap().clone());
            // The measurements are run times: positivity is a constraint at
            // the point, [max(lo, 0), hi], none when hi < 0.
            if hi.is_negative() {
                prop_assert!(a.predictions[0].bands[t].is_none());
                continue;
            }
            let lo = lo.max(Rat::zero());
            let band = a.predictions[0].bands[t].as_ref().unwrap();
            prop_assert_eq!(band.lower.as_ref(), Some(&lo));
            prop_assert_eq!(band.upper.as_ref(), Some(&hi));
            // The next measurement: d ≥ 0 with |T − d| ≤ a + r·d for some T in [lo, hi].
            let (abs, rel) = (&r.bound.absolute, &r.bound.relative);
            let one = Rat::one();
            let want_lo = ((&lo - abs) / (&one + rel)).max(Rat::zero());
            let want_hi = if *rel >= one { None } else { Some((&hi + abs) / (&one - rel)) };
            let mb = a.predictions[0].measurement[t].as_ref().unwrap();
            prop_assert_eq!(mb.lower.as_ref(), Some(&want_lo));
            prop_assert_eq!(mb.upper.clone(), want_hi);
        }
    }

    #[test]
    fn remax_is_attained_and_nothing_below_is_feasible(mi in 0usize..3, raw in data_strategy()) {
        let m = model(mi);
        let data = measurements(&raw);
        let Some(a) = run(&m, &data, &["remax"], 100) else { return Ok(()) };
        let remax = a.remax.clone().unwrap();
        prop_assert!(remax <= a.rmax.clone().unwrap());
        // At remax the brute-force region is not empty; just below it is.
        prop_assert!(!vertices(&rows(&m, &data, &Rat::zero(), &remax), m.params.len()).is_empty());
        prop_assert!(a.regions[0].shape != Shape::Empty);
        if remax.is_positive() {
            let below = &remax * q(999, 1000);
            prop_assert!(vertices(&rows(&m, &data, &Rat::zero(), &below), m.params.len()).is_empty());
            let b = run(&m, &data, &["0.999*remax"], 100).unwrap();
            prop_assert_eq!(&b.regions[0].shape, &Shape::Empty);
        }
    }
}

/// The family `set` of one-variable forms on `data`, judged at
/// `thresholds` and predicting at `x` (`None` when it cannot be analysed).
fn family(
    data: &[Measurement],
    set: errband::family::FamilySet,
    thresholds: Vec<Threshold>,
    x: &[Rat],
) -> Option<errband::family::FamilyAnalysis> {
    use errband::family::{analyse, forms_of};
    let base = Model::parse("T(p) = c0\nparam c0", "base", 40).unwrap();
    let opts = Options::default().thresholds(thresholds);
    let forms = forms_of(&base, false, Some(set), data, &opts).ok()?;
    analyse(forms, data, "d.csv", &opts, &[x.to_vec()]).ok()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, rng_seed: RngSeed::Fixed(0x19_0004), ..ProptestConfig::default() })]

    /// The family (`--family pmnf`): each form's bands come from exact LPs,
    /// not vertices; they must equal the brute-force vertex bands of the
    /// same rows, a form must be consistent exactly when its rows are
    /// feasible, and the family band must be the hull of the consistent
    /// forms' bands.
    #[test]
    fn family_bands_match_brute_force(raw in data_strategy(), at in 65i64..2000, pct in 3i64..30) {
        let data = measurements(&raw);
        let x = vec![int(at)];
        let ts = vec![Threshold::parse(&format!("{pct}%")).unwrap()];
        let Some(f) = family(&data, errband::family::FamilySet::Pmnf, ts, &x) else { return Ok(()) };
        let r = q(pct, 100);
        let (mut lo, mut hi): (Option<Rat>, Option<Rat>) = (None, None);
        let mut count = 0;
        for m in &f.members {
            let rows = rows(&m.model, &data, &Rat::zero(), &r);
            let brute = vertices(&rows, m.model.k());
            prop_assert_eq!(m.consistent[0], !brute.is_empty(), "{}", m.form);
            let Some((band, _)) = &m.bands[0][0] else { continue };
            let bx = basis(&m.model, &x);
            let vals: Vec<Rat> = brute
                .iter()
                .map(|c| bx[0].clone() + bx[1..].iter().zip(c).fold(Rat::zero(), |s, (f, v)| s + f * v))
                .collect();
            // Bounded here: with two distinct points every one-term form's
            // region is; bounded by zero (run times).
            if let (Some(l), Some(h)) = (&band.lower, &band.upper) {
                prop_assert_eq!(l, &vals.iter().min().unwrap().clone().max(Rat::zero()), "{}", m.form);
                prop_assert_eq!(h, vals.iter().max().unwrap(), "{}", m.form);
                // A form whose own value is not positive is no answer here.
                if !m.positive[0] {
                    continue;
                }
                lo = Some(lo.map_or(l.clone(), |v| v.min(l.clone())));
                hi = Some(hi.map_or(h.clone(), |v| v.max(h.clone())));
                count += 1;
            }
        }
        if count > 0 && count == f.members.iter().filter(|m| m.consistent[0] && m.positive[0]).count() {
            let h = f.hull[0][0].as_ref().unwrap();
            prop_assert_eq!(&h.model.lower, &lo);
            prop_assert_eq!(&h.model.upper, &hi);
            prop_assert_eq!(h.forms, count);
        }
    }

    /// The forms ranked alike with the best at `trusted` are judged at
    /// that threshold alone: with `max` or a relative threshold beside it,
    /// or with `trusted` alone, the same best form gets the same hull of
    /// the same forms, and each form in it is consistent at `trusted` with
    /// as many coefficients as the best.
    #[test]
    fn forms_alike_depend_on_the_bands_threshold_alone(raw in data_strategy(), at in 65i64..2000, pct in 3i64..30) {
        use errband::family::{FamilyAnalysis, FamilySet};
        let data = measurements(&raw);
        let x = vec![int(at)];
        let judged = |extra: Option<String>| -> Option<(FamilyAnalysis, usize)> {
            let mut ts: Vec<Threshold> = extra.iter().map(|t| Threshold::parse(t).unwrap()).collect();
            ts.push(Threshold::trusted(&q(5, 100)));
            let f = family(&data, FamilySet::Scaling, ts, &x)?;
            let t = f.levels.iter().position(|l| l.threshold.is_trusted())?;
            Some((f, t))
        };
        let runs: Vec<(FamilyAnalysis, usize)> =
            [None, Some("max".to_string()), Some(format!("{pct}%"))].into_iter().filter_map(judged).collect();
        let Some((first, t0)) = runs.first() else { return Ok(()) };
        let want = first.alike(*t0, |_| true);
        let best = &first.members[0];
        for m in first.members.iter().filter(|m| m.tier(*t0) == best.tier(*t0)) {
            prop_assert!(m.consistent[*t0] && m.model.k() == best.model.k(), "{}", m.form);
        }
        for (f, t) in &runs[1..] {
            if f.members[0].form != best.form {
                continue; // another best form: other forms are alike with it
            }
            prop_assert_eq!(&f.alike(*t, |_| true), &want);
        }
    }
}
