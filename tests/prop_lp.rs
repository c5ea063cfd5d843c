//! Every LP answer carries a certificate that checks exactly, and optimal
//! values agree with an independent floating-point solve (good_lp/microlp).

mod common;

use common::{closed, dot, int, q, rank, show_con, small_coeff};
use errband::linear::{Constraint, Kind};
use errband::lp::{LpError, LpOutcome, Prepared, Sense};
use errband::num::{to_f64, Rat};
use good_lp::{microlp, variable, Expression, ProblemVariables, Solution, SolverModel};
use num_traits::{Signed, Zero};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

#[derive(Debug, Clone)]
struct Lp {
    n: usize,
    rows: Vec<Constraint>,
    c: Vec<Rat>,
    sense: Sense,
}

impl Lp {
    fn describe(&self) -> String {
        let rows: Vec<String> = self.rows.iter().map(show_con).collect();
        let c: Vec<String> = self.c.iter().map(|v| v.to_string()).collect();
        format!("{:?} [{}] subject to\n  {}", self.sense, c.join(", "), rows.join("\n  "))
    }
}

fn show_point(x: &[Rat]) -> String {
    format!("({})", x.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", "))
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![6 => Just(Kind::Le), 1 => Just(Kind::Lt), 1 => Just(Kind::Eq)]
}

fn rhs() -> impl Strategy<Value = Rat> {
    prop_oneof![4 => (-10i64..=10).prop_map(int), 1 => ((-20i64..=20), (1i64..=3)).prop_map(|(n, d)| q(n, d))]
}

fn lp() -> impl Strategy<Value = Lp> {
    (1usize..=4).prop_flat_map(|n| {
        let row = (prop::collection::vec(small_coeff(), n), kind(), rhs())
            .prop_map(|(a, k, b)| Constraint::new(a, k, b));
        (
            prop::collection::vec(row, 1..=12),
            prop::collection::vec((-3i64..=3).prop_map(int), n),
            any::<bool>(),
        )
            .prop_map(move |(rows, c, max)| Lp {
                n,
                rows,
                c,
                sense: if max { Sense::Maximize } else { Sense::Minimize },
            })
    })
}

const BOX: f64 = 1e6;

/// The optimum of the closure (strict rows read as `<=`) inside the box
/// `|x_j| <= 1e6`, by microlp in floating point; `None` when it reports no
/// solution.
fn float_optimum(lp: &Lp) -> Option<f64> {
    let mut vars = ProblemVariables::new();
    let xs: Vec<_> = (0..lp.n).map(|_| vars.add(variable().min(-BOX).max(BOX))).collect();
    let objective: Expression = xs.iter().zip(&lp.c).map(|(x, cj)| to_f64(cj) * *x).sum();
    let mut model = match lp.sense {
        Sense::Maximize => vars.maximise(objective.clone()),
        Sense::Minimize => vars.minimise(objective.clone()),
    }
    .using(microlp);
    for r in &lp.rows {
        if r.a.iter().all(Zero::is_zero) {
            // `0 REL b` decides itself (read as its closure, like the rest).
            if !closed(r).holds_at(&vec![Rat::zero(); lp.n]) {
                return None;
            }
            continue;
        }
        let lhs: Expression = xs.iter().zip(&r.a).map(|(x, a)| to_f64(a) * *x).sum();
        let b = to_f64(&r.b);
        model = match r.kind {
            Kind::Eq => model.with(lhs.eq(b)),
            Kind::Le | Kind::Lt => model.with(lhs.leq(b)),
        };
    }
    let sol = model.solve().ok()?;
    Some(xs.iter().zip(&lp.c).map(|(x, cj)| sol.value(*x) * to_f64(cj)).sum())
}

fn check_outcome(lp: &Lp, p: &Prepared, c: &[Rat], sense: Sense) -> Result<LpOutcome, TestCaseError> {
    let out = p.optimize(c, sense).map_err(|e| TestCaseError::fail(format!("{e}")))?;
    if let Err(e) = out.verify(p, c, sense) {
        return Err(TestCaseError::fail(format!("certificate rejected: {e}\n{}\n{out:?}", lp.describe())));
    }
    if let LpOutcome::Optimal(o) = &out {
        if !o.attained {
            prop_assert!(
                lp.rows.iter().any(|r| r.kind == Kind::Lt),
                "an optimum is only unattained with strict rows"
            );
        }
    }
    Ok(out)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 96,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(0x1b_0001),
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_lp_outcome_has_a_certificate_that_verifies_exactly(lp in lp()) {
        let p = Prepared::new(lp.n, lp.rows.clone()).expect("dimensions match");
        let out = check_outcome(&lp, &p, &lp.c, lp.sense)?;
        // The same Prepared, reused for the opposite sense and the zero
        // objective (warm starts must not leak into the answers).
        let other = match lp.sense { Sense::Maximize => Sense::Minimize, Sense::Minimize => Sense::Maximize };
        let back = check_outcome(&lp, &p, &lp.c, other)?;
        let zero = vec![Rat::zero(); lp.n];
        let feas = check_outcome(&lp, &p, &zero, Sense::Maximize)?;
        // Feasibility does not depend on the objective.
        let infeasible = |o: &LpOutcome| matches!(o, LpOutcome::Infeasible(_));
        prop_assert_eq!(infeasible(&out), infeasible(&feas), "{}", lp.describe());
        prop_assert_eq!(infeasible(&back), infeasible(&feas), "{}", lp.describe());
        if let LpOutcome::Optimal(o) = &feas {
            prop_assert!(o.value.is_zero());
        }
        prop_assert!(!matches!(feas, LpOutcome::Unbounded(_)), "the zero objective is bounded");
        // max c = -min(-c).
        let neg: Vec<Rat> = lp.c.iter().map(|v| -v).collect();
        let flipped = check_outcome(&lp, &p, &neg, other)?;
        match (&out, &flipped) {
            (LpOutcome::Optimal(a), LpOutcome::Optimal(b)) => {
                prop_assert_eq!(&a.value, &-b.value.clone());
                prop_assert_eq!(a.attained, b.attained);
            }
            (LpOutcome::Unbounded(_), LpOutcome::Unbounded(_)) | (LpOutcome::Infeasible(_), LpOutcome::Infeasible(_)) => {}
            (a, b) => prop_assert!(false, "max c and min -c disagree: {:?} vs {:?}\n{}", a, b, lp.describe()),
        }
        // A fresh Prepared gives the same value.
        let fresh = Prepared::new(lp.n, lp.rows.clone()).unwrap().optimize(&lp.c, lp.sense).unwrap();
        match (&out, &fresh) {
            (LpOutcome::Optimal(a), LpOutcome::Optimal(b)) => prop_assert_eq!(&a.value, &b.value),
            (a, b) => prop_assert_eq!(std::mem::discriminant(a), std::mem::discriminant(b)),
        }
    }

    #[test]
    fn optimal_values_agree_with_a_float_solve(lp in lp()) {
        let p = Prepared::new(lp.n, lp.rows.clone()).unwrap();
        let out = check_outcome(&lp, &p, &lp.c, lp.sense)?;
        match &out {
            LpOutcome::Optimal(o) => {
                // Only when the exact optimum lies well inside the float box.
                if o.point.iter().all(|v| to_f64(v).abs() < BOX / 100.0) {
                    let v = to_f64(&o.value);
                    match float_optimum(&lp) {
                        Some(f) => prop_assert!((f - v).abs() <= 1e-6 * v.abs().max(1.0),
                            "exact {} vs float {}\n{}", o.value, f, lp.describe()),
                        None => prop_assert!(false, "microlp found no solution, exact optimum {}\n{}", o.value, lp.describe()),
                    }
                }
            }
            LpOutcome::Unbounded(u) => {
                // The boxed float optimum goes at least as far as the ray allows inside the box.
                let scale = u.ray.iter().map(|r| to_f64(r).abs()).fold(0.0, f64::max);
                let reach = u.point.iter().map(|x| to_f64(x).abs()).fold(0.0, f64::max);
                if reach < BOX / 100.0 {
                    let t = (BOX / 2.0) / scale;
                    let gain = to_f64(&dot(&lp.c, &u.ray)) * t;
                    let start = to_f64(&dot(&lp.c, &u.point));
                    let f = float_optimum(&lp).expect("a boxed problem with a feasible point has an optimum");
                    match lp.sense {
                        Sense::Maximize => prop_assert!(f >= start + gain * 0.99, "{} < {}\n{}", f, start + gain, lp.describe()),
                        Sense::Minimize => prop_assert!(f <= start - gain * 0.99, "{} > {}\n{}", f, start - gain, lp.describe()),
                    }
                }
            }
            LpOutcome::Infeasible(_) => {
                // Without strict rows, the closure is the same set: microlp must not find a point.
                if lp.rows.iter().all(|r| r.kind != Kind::Lt) {
                    prop_assert!(float_optimum(&lp).is_none(), "microlp found a point of an infeasible LP\n{}", lp.describe());
                }
            }
        }
    }
}

// ------------------------------------------------------------ fixed cases

fn row(a: &[i64], kind: Kind, b: i64) -> Constraint {
    common::con(a, kind, b)
}

#[test]
fn a_triangle_has_the_expected_optima_and_duals() {
    // x >= 0, y >= 0, x + 2y <= 4, 3x + y <= 6: max x + y = 14/5 at (8/5, 6/5).
    let rows = vec![
        row(&[-1, 0], Kind::Le, 0),
        row(&[0, -1], Kind::Le, 0),
        row(&[1, 2], Kind::Le, 4),
        row(&[3, 1], Kind::Le, 6),
    ];
    let p = Prepared::new(2, rows).unwrap();
    let c = vec![int(1), int(1)];
    let out = p.optimize(&c, Sense::Maximize).unwrap();
    out.verify(&p, &c, Sense::Maximize).unwrap();
    match out {
        LpOutcome::Optimal(o) => {
            assert_eq!(o.value, q(14, 5));
            assert_eq!(o.point, vec![q(8, 5), q(6, 5)]);
            assert!(o.attained);
            assert_eq!(o.duals, vec![int(0), int(0), q(2, 5), q(1, 5)]);
            let mut b = o.basis.clone();
            b.sort();
            assert_eq!(b, vec![2, 3]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn strict_rows_give_an_unattained_supremum_with_a_verified_certificate() {
    // max x + y with x < 1, y < 2, x + y <= 5: supremum 3, not attained.
    let rows = vec![row(&[1, 0], Kind::Lt, 1), row(&[0, 1], Kind::Lt, 2), row(&[1, 1], Kind::Le, 5)];
    let p = Prepared::new(2, rows).unwrap();
    let c = vec![int(1), int(1)];
    let out = p.optimize(&c, Sense::Maximize).unwrap();
    out.verify(&p, &c, Sense::Maximize).unwrap();
    match out {
        LpOutcome::Optimal(o) => {
            assert_eq!(o.value, int(3));
            assert!(!o.attained);
            assert!(o.basis.is_empty());
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn infeasibility_from_strictness_alone_has_a_motzkin_certificate() {
    // x + y < 1 and x + y >= 1.
    let rows = vec![row(&[1, 1], Kind::Lt, 1), row(&[-1, -1], Kind::Le, -1)];
    let p = Prepared::new(2, rows).unwrap();
    let c = vec![int(1), int(0)];
    let out = p.optimize(&c, Sense::Minimize).unwrap();
    out.verify(&p, &c, Sense::Minimize).unwrap();
    assert!(matches!(out, LpOutcome::Infeasible(_)), "{out:?}");
}

#[test]
fn an_unbounded_lp_comes_with_a_point_and_an_improving_ray() {
    // x - y <= 1, y >= 0: max x is unbounded along (1, 1).
    let rows = vec![row(&[1, -1], Kind::Le, 1), row(&[0, -1], Kind::Le, 0)];
    let p = Prepared::new(2, rows).unwrap();
    let c = vec![int(1), int(0)];
    let out = p.optimize(&c, Sense::Maximize).unwrap();
    out.verify(&p, &c, Sense::Maximize).unwrap();
    match out {
        LpOutcome::Unbounded(u) => assert!(u.ray[0].is_positive()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn wrong_dimensions_are_reported() {
    assert_eq!(
        Prepared::new(2, vec![row(&[1, 2, 3], Kind::Le, 0)]).unwrap_err(),
        LpError::Dimension { index: 0, got: 3, expected: 2 }
    );
    let p = Prepared::new(2, vec![row(&[1, 2], Kind::Le, 0)]).unwrap();
    assert!(matches!(
        p.optimize(&[int(1)], Sense::Maximize),
        Err(LpError::Dimension { index: usize::MAX, got: 1, expected: 2 })
    ));
}

#[test]
fn a_tampered_certificate_is_rejected() {
    let rows = vec![row(&[1], Kind::Le, 3), row(&[-1], Kind::Le, 0)];
    let p = Prepared::new(1, rows).unwrap();
    let c = vec![int(1)];
    let out = p.optimize(&c, Sense::Maximize).unwrap();
    out.verify(&p, &c, Sense::Maximize).unwrap();
    let LpOutcome::Optimal(o) = out else { panic!("bounded") };
    let mut bad = o.clone();
    bad.value = int(4);
    assert!(LpOutcome::Optimal(bad).verify(&p, &c, Sense::Maximize).is_err());
    let mut bad = o.clone();
    bad.duals = vec![int(2), int(1)];
    assert!(LpOutcome::Optimal(bad).verify(&p, &c, Sense::Maximize).is_err());
    // The right certificate for the wrong objective.
    assert!(LpOutcome::Optimal(o).verify(&p, &[int(2)], Sense::Maximize).is_err());
}

/// The documented contract of `Optimum::basis`: linearly independent rows,
/// tight at `point`.
fn check_basis(lp: &Lp, o: &errband::lp::Optimum) -> Result<(), TestCaseError> {
    for &i in &o.basis {
        let r = &lp.rows[i];
        prop_assert!(
            r.lhs(&o.point) == r.b,
            "basis row {} = {} is not tight at {}\n{}",
            i,
            show_con(r),
            show_point(&o.point),
            lp.describe()
        );
    }
    let basis_rows: Vec<Vec<Rat>> = o.basis.iter().map(|&i| lp.rows[i].a.clone()).collect();
    prop_assert_eq!(rank(&basis_rows), o.basis.len(), "dependent basis rows\n{}", lp.describe());
    prop_assert!(o.basis.len() <= lp.n);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(0x1b_0002),
        ..ProptestConfig::default()
    })]

    #[test]
    fn optimal_basis_rows_are_independent_and_tight_at_the_point(lp in lp()) {
        let p = Prepared::new(lp.n, lp.rows.clone()).unwrap();
        if let LpOutcome::Optimal(o) = p.optimize(&lp.c, lp.sense).unwrap() {
            check_basis(&lp, &o)?;
        }
    }
}

#[test]
fn the_basis_of_an_attained_optimum_with_a_strict_row_is_tight_at_the_point() {
    // min 0 subject to x < 0: attained (any x < 0), but no row can be tight
    // at a point satisfying the strict row, so the basis must be empty.
    let lp = Lp { n: 1, rows: vec![row(&[1], Kind::Lt, 0)], c: vec![int(0)], sense: Sense::Minimize };
    let p = Prepared::new(1, lp.rows.clone()).unwrap();
    let out = p.optimize(&lp.c, lp.sense).unwrap();
    out.verify(&p, &lp.c, lp.sense).unwrap();
    let LpOutcome::Optimal(o) = out else { panic!("feasible and bounded: {out:?}") };
    assert!(o.attained);
    if let Err(e) = check_basis(&lp, &o) {
        panic!("{e}\nreturned point {}, basis {:?}", show_point(&o.point), o.basis);
    }
    // max x subject to x < 1, x <= 0: attained at 0 by the non-strict row.
    let lp = Lp {
        n: 1,
        rows: vec![row(&[1], Kind::Lt, 1), row(&[1], Kind::Le, 0)],
        c: vec![int(1)],
        sense: Sense::Maximize,
    };
    let p = Prepared::new(1, lp.rows.clone()).unwrap();
    let LpOutcome::Optimal(o) = p.optimize(&lp.c, lp.sense).unwrap() else { panic!("bounded") };
    assert_eq!(o.point, vec![int(0)]);
    if let Err(e) = check_basis(&lp, &o) {
        panic!("{e}\nreturned point {}, basis {:?}", show_point(&o.point), o.basis);
    }
}

/// Chebyshev (minimax) line fit of y = x^2 + noise at 2500 points: 5000 rows
/// `±(c0 + c1 x_i - y_i) <= e`, minimise e.
#[test]
fn a_five_thousand_row_chebyshev_fit_is_certified_and_equioscillates() {
    let m = 2500i64;
    let xs: Vec<Rat> = (0..m).map(|i| q(i, m)).collect();
    let ys: Vec<Rat> =
        (0..m).map(|i| &xs[i as usize] * &xs[i as usize] + q((i * 7919) % 13 - 6, 10_000)).collect();
    let mut rows = Vec::with_capacity(2 * m as usize);
    for (x, y) in xs.iter().zip(&ys) {
        rows.push(Constraint::new(vec![int(1), x.clone(), int(-1)], Kind::Le, y.clone()));
        rows.push(Constraint::new(vec![int(-1), -x.clone(), int(-1)], Kind::Le, -y.clone()));
    }
    // The LP runs on this thread alone: its CPU time, which other tests
    // running beside it (or a busy machine) do not stretch.
    let start = thread_cpu_secs();
    let p = Prepared::new(3, rows).unwrap();
    let c = vec![int(0), int(0), int(1)];
    let out = p.optimize(&c, Sense::Minimize).unwrap();
    let solve_time = thread_cpu_secs() - start;
    out.verify(&p, &c, Sense::Minimize).unwrap();
    let LpOutcome::Optimal(o) = out else { panic!("a minimax fit has an optimum: {out:?}") };
    assert!(o.attained);
    let (c0, c1, e) = (&o.point[0], &o.point[1], &o.point[2]);
    assert_eq!(&o.value, e);
    assert!(e.is_positive());
    // Residuals y_i - (c0 + c1 x_i) stay within e; those at ±e alternate in sign
    // at least twice along x (de la Vallée Poussin / Chebyshev: this alone
    // proves the line optimal).
    let mut signs: Vec<bool> = Vec::new();
    for (x, y) in xs.iter().zip(&ys) {
        let r = y - (c0 + c1 * x);
        assert!(r.abs() <= *e);
        if r.abs() == *e {
            let s = r.is_positive();
            if signs.last() != Some(&s) {
                signs.push(s);
            }
        }
    }
    assert!(signs.len() >= 3, "alternation of length {} only: {signs:?}", signs.len());
    // The fit of x^2 on [0, 1) has e close to 1/8 (noise is below 1e-3).
    assert!((to_f64(e) - 0.125).abs() < 2e-3, "e = {}", to_f64(e));
    assert!(solve_time < 5.0, "5000-row LP took {solve_time:.2} s of CPU time");
}

/// This thread's CPU time in seconds.
fn thread_cpu_secs() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid timespec to fill.
    assert_eq!(unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) }, 0);
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}
