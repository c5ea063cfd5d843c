//! Properties of the whole method on random models and data (library API):
//! the band at a threshold >= Max|e_i| contains the fitted prediction; every
//! reported vertex meets every residual constraint exactly; e_max is attained
//! by the reported Δc and nothing below it is feasible; data generated
//! exactly from the model is recovered exactly; the exact fit agrees with a
//! float least-squares solve to within rounding; the self-check's prediction
//! is the fit without the largest scale; a fitted value outside the
//! recommended band means the fit strays beyond the band's bound.

mod common;

use common::{int, q};
use errband::analysis::{Analysis, AnalysisError, Band, Options, Shape, Threshold};
use errband::data::Measurement;
use errband::fit::FitError;
use errband::model::Model;
use errband::num::{to_f64, Rat};
use num_traits::{Signed, Zero};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

const MODELS: [&str; 4] = [
    "T(p) = c0 + c1/p\nparam c0, c1",
    "T(p) = c0 + c1/p + c2*p\nparam c0, c1, c2",
    "T(p) = a*(1/p + c1 + c2*(p - 1)^2)\nconst a = 260\nparam c1, c2\nweight p",
    "T(p) = c1*p + c2*log2(p)\nparam c1, c2\nweight 1/p",
];

fn model(i: usize) -> Model {
    Model::parse(MODELS[i], "m.tm", 40).unwrap()
}

/// Distinct powers of two and small integers as points, values as 2-decimal numbers.
fn data_strategy() -> impl Strategy<Value = Vec<(i64, i64)>> {
    prop::collection::vec((1i64..=64, -5000i64..5000), 4..12)
}

fn measurements(raw: &[(i64, i64)]) -> Vec<Measurement> {
    raw.iter()
        .enumerate()
        .map(|(i, (p, y))| Measurement { x: vec![int(*p)], y: q(*y + 20000, 100), line: i + 2 })
        .collect()
}

fn value(m: &Model, c: &[Rat], x: &[Rat]) -> Rat {
    let mut log = m.new_log();
    let b = m.basis_at(x, &mut log).unwrap();
    b[0].clone() + b[1..].iter().zip(c).fold(Rat::zero(), |a, (f, cj)| a + f * cj)
}

fn max_residual(m: &Model, c: &[Rat], data: &[Measurement]) -> Rat {
    data.iter().map(|d| (value(m, c, &d.x) - &d.y).abs()).max().unwrap()
}

/// The analysis of a draw. Draws with too few distinct points for the
/// model are rejected (proptest then draws another, and fails the property
/// when it has to reject too many); any other error fails the property, so a
/// pipeline that failed on every input cannot pass.
fn run(m: &Model, data: &[Measurement], thresholds: &[&str], at: &[i64]) -> Result<Analysis, TestCaseError> {
    let opts = Options::default()
        .thresholds(thresholds.iter().map(|t| Threshold::parse(t).unwrap()).collect())
        .at(at.iter().map(|&p| vec![int(p)]).collect());
    match Analysis::run_rows(m, data, "d.csv", &opts) {
        Ok(a) => Ok(a),
        Err(AnalysisError::Fit(FitError::TooFewPoints { .. } | FitError::RankDeficient { .. })) => {
            Err(TestCaseError::reject("too few distinct points for the model"))
        }
        Err(e) => Err(TestCaseError::fail(format!("the analysis failed: {e}"))),
    }
}

proptest! {
    // Each property must run on 48 draws; at most 16 rejected draws are
    // allowed on the way (so at least three in four of those tried ran).
    #![proptest_config(ProptestConfig { cases: 48, max_global_rejects: 16, failure_persistence: None, rng_seed: RngSeed::Fixed(0x3e_0003), ..ProptestConfig::default() })]

    #[test]
    fn residual_statistics_equal_the_naive_sums(mi in 0usize..4, raw in data_strategy()) {
        // Points repeat in these draws (p in 1..=64), so the per-point
        // decomposition of the sum of squares is exercised with n > 1.
        let m = model(mi);
        let data = measurements(&raw);
        let a = run(&m, &data, &["max"], &[])?;
        let c = &a.params;
        let squares = data.iter().fold(Rat::zero(), |s, d| {
            let e = value(&m, c, &d.x) - &d.y;
            s + &e * &e
        });
        prop_assert_eq!(&a.residuals.mean_square, &(squares / Rat::from_integer(data.len().into())));
        prop_assert_eq!(&a.residuals.max_abs, &max_residual(&m, c, &data));
    }

    #[test]
    fn bands_contain_the_fit_and_vertices_meet_every_constraint(
        mi in 0usize..4, raw in data_strategy(), at in prop::collection::vec(1i64..5000, 1..4), k in 1i64..4,
    ) {
        let m = model(mi);
        let data = measurements(&raw);
        let ks = format!("max + {k}/3");
        let a = run(&m, &data, &["max", &ks, "emax", "1.5*emax"], &at)?;
        let c = &a.params;
        for r in &a.regions {
            prop_assert!(r.value >= a.emax);
            prop_assert!(r.shape != Shape::Empty);
            for v in &r.vertices {
                let cv: Vec<Rat> = c.iter().zip(v).map(|(x, d)| x + d).collect();
                prop_assert!(max_residual(&m, &cv, &data) <= r.value, "vertex outside threshold {}", r.threshold.text);
            }
        }
        for p in &a.predictions {
            // No band has its lower end above its upper end, and none
            // reaches below zero (the measurements are run times).
            for b in p.bands.iter().chain(&p.measurement).flatten() {
                if let (Some(l), Some(u)) = (&b.lower, &b.upper) { prop_assert!(l <= u); }
                prop_assert!(b.lower.as_ref().is_some_and(|l| !l.is_negative()));
            }
            // Threshold >= Max|e_i| (regions 0 and 1): Δc = 0 is in the
            // region, so the band holds the fit's value when it is a time;
            // a negative value is cut off by positivity.
            for b in &p.bands[..2] {
                match b {
                    Some(b) if !p.model.is_negative() => {
                        prop_assert!(b.lower.as_ref().is_none_or(|l| *l <= p.model));
                        prop_assert!(b.upper.as_ref().is_none_or(|u| *u >= p.model));
                    }
                    Some(b) => prop_assert!(b.clipped && b.lower == Some(Rat::zero())),
                    None => prop_assert!(p.model.is_negative(), "only a band wholly below zero is missing"),
                }
            }
            // Bands grow with the threshold: emax ⊆ 1.5·emax ⊆ …; max ⊆ max + k/3.
            let w = |i: usize| p.bands[i].as_ref().and_then(|b| b.width());
            if let (Some(w0), Some(w1)) = (w(0), w(1)) { prop_assert!(w0 <= w1); }
            if let (Some(w2), Some(w3)) = (w(2), w(3)) { prop_assert!(w2 <= w3); }
        }
    }

    #[test]
    fn emax_is_attained_and_nothing_below_is_feasible(mi in 0usize..4, raw in data_strategy()) {
        let m = model(mi);
        let data = measurements(&raw);
        let a = run(&m, &data, &["emax"], &[])?;
        let cstar: Vec<Rat> = a.params.iter().zip(&a.emax_dc).map(|(x, d)| x + d).collect();
        prop_assert_eq!(max_residual(&m, &cstar, &data), a.emax.clone());
        prop_assert!(a.emax <= a.residuals.max_abs);
        if a.emax.is_positive() {
            let below = format!("emax - {}", errband::num::fmt_fraction(&(&a.emax / int(1000))));
            let b = run(&m, &data, &[&below], &[]).unwrap();
            prop_assert_eq!(&b.regions[0].shape, &Shape::Empty);
        }
    }

    #[test]
    fn exact_data_is_recovered_exactly(
        c0 in -50i64..50, c1 in -500i64..500, c2 in -20i64..20, ps in prop::collection::btree_set(1i64..200, 3..10),
    ) {
        let m = model(1);
        let c = [q(c0, 7), int(c1), q(c2, 3)];
        let data: Vec<Measurement> = ps.iter().enumerate().map(|(i, &p)| {
            let x = vec![int(p)];
            Measurement { y: value(&m, &c, &x), x, line: i + 2 }
        }).collect();
        let a = run(&m, &data, &["max", "emax"], &[1000]).unwrap();
        prop_assert_eq!(&a.params[..], &c[..]);
        prop_assert!(a.emax.is_zero() && a.residuals.max_abs.is_zero());
        for b in &a.predictions[0].bands {
            let b = b.as_ref().unwrap();
            prop_assert_eq!(b.lower.as_ref(), Some(&a.predictions[0].model));
            prop_assert_eq!(b.upper.as_ref(), Some(&a.predictions[0].model));
        }
    }

    #[test]
    fn exact_fit_agrees_with_a_float_solve(mi in 0usize..4, raw in data_strategy()) {
        let m = model(mi);
        let data = measurements(&raw);
        let a = run(&m, &data, &["max"], &[])?;
        // Weighted normal equations in f64, solved by Gaussian elimination.
        let k = m.k();
        let mut log = m.new_log();
        let mut ata = vec![vec![0.0f64; k]; k];
        let mut atb = vec![0.0f64; k];
        for d in &data {
            let b: Vec<f64> = m.basis_at(&d.x, &mut log).unwrap().iter().map(to_f64).collect();
            let w = to_f64(&m.weight_at(&d.x, &mut log).unwrap());
            let t = to_f64(&d.y) - b[0];
            for j in 0..k {
                for l in 0..k { ata[j][l] += w * w * b[j + 1] * b[l + 1]; }
                atb[j] += w * w * b[j + 1] * t;
            }
        }
        for col in 0..k {
            let piv = (col..k).max_by(|&x, &y| ata[x][col].abs().total_cmp(&ata[y][col].abs())).unwrap();
            ata.swap(col, piv);
            atb.swap(col, piv);
            for r in 0..k {
                if r != col {
                    let f = ata[r][col] / ata[col][col];
                    let pivot = ata[col].clone();
                    for (x, y) in ata[r].iter_mut().zip(&pivot) { *x -= f * y; }
                    atb[r] -= f * atb[col];
                }
            }
        }
        // Compare fitted values (well conditioned) rather than raw coefficients.
        for d in &data {
            let b: Vec<f64> = m.basis_at(&d.x, &mut log).unwrap().iter().map(to_f64).collect();
            let fv = b[0] + (0..k).map(|j| b[j + 1] * atb[j] / ata[j][j]).sum::<f64>();
            let ev = to_f64(&value(&m, &a.params, &d.x));
            prop_assert!((fv - ev).abs() <= 1e-6 * ev.abs().max(1.0), "float {fv} vs exact {ev}");
        }
    }

    /// The band against the threshold is exact: at any threshold between
    /// e_max and Max|e_i|, interpolating the curve between its breakpoints
    /// gives exactly the band a fresh analysis at that threshold computes.
    #[test]
    fn width_curve_interpolates_the_band_exactly(
        mi in 0usize..4, raw in data_strategy(), at in 1i64..5000, t in 0i64..=16,
    ) {
        let m = model(mi);
        let data = measurements(&raw);
        let a = run(&m, &data, &["max"], &[at])?;
        let curves = errband::envelope::width_curves(&a, &m);
        let pts = &curves[0].points;
        prop_assume!(pts.len() >= 2);
        let e = &a.emax + (&a.residuals.max_abs - &a.emax) * q(t, 16);
        let seg = pts.windows(2).find(|w| w[0].0 <= e && e <= w[1].0).expect("threshold inside the curve");
        let (e0, l0, u0) = &seg[0];
        let (e1, l1, u1) = &seg[1];
        let s = if e1 == e0 { Rat::zero() } else { (&e - e0) / (e1 - e0) };
        let lerp = |a: &Option<Rat>, b: &Option<Rat>| match (a, b) {
            (Some(a), Some(b)) => Some(a + (b - a) * &s),
            _ => None,
        };
        let text = errband::num::fmt_fraction(&e);
        let fresh = run(&m, &data, &[text.as_str()], &[at]).expect("re-analysis");
        // The curve is the band of the region; the analysis bounds it by
        // zero (the measurements are run times).
        let expected = Band::new(lerp(l0, l1), lerp(u0, u1)).positive();
        prop_assert_eq!(expected, fresh.predictions[0].bands[0].clone());
    }

    /// Every envelope piece is the extreme of the band at points inside it.
    #[test]
    fn envelope_pieces_are_the_band_extremes(mi in 0usize..4, raw in data_strategy(), at in 65i64..5000, probe in 0i64..=64) {
        let m = model(mi);
        let data = measurements(&raw);
        let a = run(&m, &data, &["max"], &[at])?;
        let r = &a.regions[0];
        prop_assume!(r.shape == Shape::Bounded);
        let env = errband::envelope::envelope(&m, r, &int(1), &int(at), 128).expect("bounded one-variable region");
        let x = int(1) + (int(at) - int(1)) * q(probe, 64);
        let vals: Vec<Rat> = r.params_at.iter().map(|v| value(&m, v, std::slice::from_ref(&x))).collect();
        for (chain, want) in [(&env.upper, vals.iter().max()), (&env.lower, vals.iter().min())] {
            if let Some(p) = chain.iter().find(|p| p.from <= x && x <= p.to) {
                prop_assert_eq!(Some(&value(&m, &p.params, std::slice::from_ref(&x))), want);
            }
        }
    }

    #[test]
    fn the_self_checks_prediction_is_the_fit_without_the_largest_scale(
        mi in 0usize..4, raw in data_strategy(), at in prop::collection::vec(1i64..5000, 1..4),
    ) {
        // Independent path: the analysis of the rows without the largest
        // scale, predicting at the same points.
        let m = model(mi);
        let data = measurements(&raw);
        let points: Vec<Vec<Rat>> = at.iter().map(|&p| vec![int(p)]).collect();
        let c = errband::trust::check(&m, &data, "d.csv", &Options::default(), &points);
        let top = data.iter().map(|d| d.x[0].clone()).max().unwrap();
        let kept: Vec<Measurement> = data.iter().filter(|d| d.x[0] != top).cloned().collect();
        match &c.outcome {
            errband::trust::Outcome::NotChecked(_) => prop_assert!(c.values.is_empty()),
            _ => {
                let a = run(&m, &kept, &["max"], &at)?;
                let want: Vec<Option<Rat>> = a.predictions.iter().map(|p| Some(p.model.clone())).collect();
                prop_assert_eq!(&c.values, &want);
            }
        }
    }

    #[test]
    fn enough_repetitions_set_the_band_by_their_medians_and_scatter(
        mi in 0usize..4, points in 3usize..=7, reps in 2usize..=6,
        noise in prop::collection::vec(-100i64..250, 42), at in prop::collection::vec(65i64..5000, 1..3),
    ) {
        // The strong-scaling series below at its first `points` scales,
        // `reps` runs each scattered by -10 % to +25 % (a heavy upward
        // tail): 2 to 30 free deviations.
        // Independent path: medians and deviations by sorting, and the
        // analyses' trusted bands (region vertices, not the LPs) of every
        // run and of one median per point.
        let m = model(mi);
        const TIMES: [i64; 7] = [1883807, 850437, 451093, 226166, 124456, 87187, 74225];
        let mut data = Vec::new();
        let mut medians = Vec::new();
        let (mut below, mut above) = (Rat::zero(), Rat::zero());
        for (j, t) in TIMES.iter().take(points).enumerate() {
            let x = vec![int(1 << j)];
            let mut ys: Vec<Rat> = (0..reps).map(|r| q(t * (1000 + noise[j * 6 + r]), 1000)).collect();
            for y in &ys {
                data.push(Measurement { x: x.clone(), y: y.clone(), line: data.len() + 2 });
            }
            ys.sort();
            let n = ys.len();
            let med = if n % 2 == 1 { ys[n / 2].clone() } else { (&ys[n / 2 - 1] + &ys[n / 2]) / int(2) };
            below = below.min((&ys[0] - &med) / &med);
            above = above.max((&ys[n - 1] - &med) / &med);
            medians.push(Measurement { x, y: med, line: medians.len() + 2 });
        }
        let free = points * (reps - 1);
        // The default thresholds: `max` and `trusted`.
        let analyse = |rows: &[Measurement]| -> Result<(Analysis, usize), TestCaseError> {
            let opts = Options::default().at(at.iter().map(|&p| vec![int(p)]).collect());
            let a = Analysis::run_rows(&m, rows, "d.csv", &opts)
                .map_err(|e| TestCaseError::fail(format!("the analysis failed: {e}")))?;
            let ri = a.regions.iter().position(|r| r.threshold.is_trusted()).unwrap();
            Ok((a, ri))
        };
        let (all, ai) = analyse(&data)?;
        let (mid, mi_) = analyse(&medians)?;
        let points_at: Vec<Vec<Rat>> = at.iter().map(|&p| vec![int(p)]).collect();
        let t = errband::trust::trusted(&m, &data, "d.csv", &Options::default(), &points_at).unwrap();
        let (_, spread) = t.centres.clone().unwrap();
        prop_assert_eq!(spread.free, free);
        prop_assert_eq!((&spread.below, &spread.above), (&below, &above));
        let alone = free >= errband::trust::FREE_DEVIATIONS && !matches!(mid.regions[mi_].shape, Shape::Untrusted { .. });
        prop_assert_eq!(t.from_medians().is_some(), alone);
        for (i, got) in t.bands.iter().enumerate() {
            let a = all.predictions[i].measurement[ai].clone();
            let w = mid.predictions[i].measurement[mi_].clone().map(|w| Band {
                lower: w.lower.map(|l| l * (Rat::from_integer(1.into()) + &below)),
                upper: w.upper.map(|u| u * (Rat::from_integer(1.into()) + &above)),
                clipped: w.clipped,
            });
            let want = match (a, w) {
                (a, None) => a,
                (Some(a), Some(w)) if !alone => Some(a.hull(&w)),
                (_, Some(w)) => Some(w),
            };
            prop_assert_eq!(got, &want, "point {}", at[i]);
        }
    }

    #[test]
    fn a_fitted_value_outside_the_band_strays_beyond_its_bound(
        mi in 0usize..4, noise in prop::collection::vec(-30i64..30, 36), reps in 1usize..=4, at in prop::collection::vec(65i64..5000, 1..4),
    ) {
        // A strong-scaling series over orders of magnitude (ppscan on the
        // Friendster graph, 1 to 64 threads, in ms), each time scattered by
        // up to ±3 %, once to four times per point: least squares follows the
        // largest times.
        // Independent path: the fit of the analysis, and each measurement's
        // residual against the bounds the band was made with.
        let m = model(mi);
        const TIMES: [(i64, i64); 9] = [
            (1, 1883807), (2, 850437), (4, 451093), (8, 226166), (16, 124456),
            (24, 87187), (32, 74225), (40, 59526), (64, 53116),
        ];
        let data: Vec<Measurement> = TIMES
            .iter()
            .flat_map(|t| std::iter::repeat_n(t, reps))
            .zip(&noise)
            .enumerate()
            .map(|(i, (&(p, t), n))| Measurement { x: vec![int(p)], y: q(t * (1000 + n), 1000), line: i + 2 })
            .collect();
        let points: Vec<Vec<Rat>> = at.iter().map(|&p| vec![int(p)]).collect();
        let a = run(&m, &data, &["max"], &at)?;
        let Ok(r) = errband::trust::recommend(&m, &data, "d.csv", &Options::default(), &points, None, None) else {
            return Ok(());
        };
        let strays = |b: &errband::threshold::Bound, rows: &[(Vec<Rat>, Rat)]| {
            rows.iter().any(|(x, y)| (value(&m, &a.params, x) - y).abs() > &b.absolute + &b.relative * y)
        };
        let rows: Vec<(Vec<Rat>, Rat)> = data.iter().map(|d| (d.x.clone(), d.y.clone())).collect();
        for (i, p) in r.points.iter().enumerate() {
            prop_assert_eq!(p.value.as_ref(), Some(&a.predictions[i].model));
            let outside = matches!((&p.band, &p.value), (Some(b), Some(v)) if !b.contains(v));
            prop_assert_eq!(r.value_outside(i), outside);
            if outside {
                // The band holds every fit within the bound on the medians,
                // and unless it rests on them alone (19 free deviations
                // or more: three or four runs at each of the nine
                // points), within the bound with every measurement a
                // constraint: the fit meets neither.
                if let (Some(b), None) = (&r.trusted.bound, r.trusted.from_medians()) {
                    prop_assert!(strays(b, &rows));
                }
                if let Some((Some(b), _)) = &r.trusted.centres {
                    let mut medians: Vec<(Vec<Rat>, Rat)> = Vec::new();
                    let mut xs: Vec<Rat> = data.iter().map(|d| d.x[0].clone()).collect();
                    xs.sort();
                    xs.dedup();
                    for x in xs {
                        let ys: Vec<&Rat> = data.iter().filter(|d| d.x[0] == x).map(|d| &d.y).collect();
                        medians.push((vec![x], errband::num::median(ys).unwrap()));
                    }
                    prop_assert!(strays(b, &medians));
                }
                prop_assert!(!r.hinges(i));
            }
        }
    }
}
