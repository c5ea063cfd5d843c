use super::*;
use crate::data::{self, ColumnSpec};
use crate::num::{frac, parse_rat};
use proptest::prelude::*;

fn us(s: &str) -> Rat {
    parse_rat(s).unwrap() / Rat::from_integer(1_000_000.into())
}

fn scmd() -> Tree {
    Tree::new(3, None, None).unwrap()
}

fn pt(x: Rat) -> Interval {
    Interval::point(x)
}

fn settings(nodes: Vec<u64>, reference: Option<Reference>) -> Settings {
    Settings {
        nodes,
        tree: scmd(),
        t_ib: pt(us("3.86")),
        t_sr: vec![pt(us("60"))],
        reference,
        conclude_at: Vec::new(),
    }
}

#[test]
fn scmd_levels_follow_the_paper() {
    let t = scmd();
    assert_eq!((t.root_fanout, t.inter_fanout), (3, 2));
    for n in 2..=3 {
        let s = t.layout(n).unwrap();
        assert_eq!((s.chassis, s.inter_levels), (1, None), "N = {n}");
        assert_eq!(s.t_eb(&pt(us("3.86")), &pt(us("60"))), pt(us("3.86")));
    }
    for n in 4..=12 {
        assert_eq!(t.layout(n).unwrap().inter_levels, Some(0), "N = {n}");
    }
    for n in 13..=30 {
        assert_eq!(t.layout(n).unwrap().inter_levels, Some(1), "N = {n}");
    }
    // 1 + 3 + 6 chassis hold 30 nodes; the 31st needs a second inter level.
    assert_eq!(t.layout(30).unwrap().per_level, vec![1, 3, 6]);
    let s31 = t.layout(31).unwrap();
    assert_eq!((s31.inter_levels, s31.per_level.clone()), (Some(2), vec![1, 3, 6, 1]));
    assert_eq!(t.layout(66).unwrap().inter_levels, Some(2));
    assert_eq!(t.layout(67).unwrap().inter_levels, Some(3));
    assert_eq!(t.breakpoints(2, 100), vec![4, 13, 31, 67]);
    assert_eq!(t.breakpoints(13, 30), Vec::<u64>::new());
    // Chains (inter-level fan-out 1): 2 nodes per chassis, root fan-out 2.
    let chain = Tree::new(2, None, None).unwrap();
    assert_eq!(chain.breakpoints(0, 20), vec![3, 7, 11, 15, 19]);
    for n in 2..40 {
        let l = chain.layout(n).unwrap().inter_levels;
        let by_bp = chain.breakpoints(0, n).len() as i64 - 1;
        assert_eq!(l.map_or(-1, |l| l as i64), by_bp, "N = {n}");
    }
    // Huge counts stay cheap.
    let big = chain.layout(1_000_000_000_000).unwrap();
    assert_eq!(big.inter_levels, Some(249_999_999_999));
    assert_eq!(chain.breakpoints(999_999_999_000, 1_000_000_000_000).len(), 250);
    assert_eq!(t.layout(u64::MAX).unwrap().inter_levels, Some(60));
}

#[test]
fn t_eb_at_30_nodes_is_387_02_us_exactly() {
    let s = scmd().layout(30).unwrap();
    // 7·3.86 + 6·60 = 387.02 µs.
    assert_eq!(s.coefficients(), (7, 6));
    assert_eq!(s.t_eb(&pt(us("3.86")), &pt(us("60"))), pt(us("387.02")));
    assert_eq!(s.t_eb(&pt(us("3.86")), &pt(us("60"))).lo, frac(38702, 100_000_000));
}

#[test]
fn crossover_round_trips_exactly() {
    let tree = scmd();
    let mpi = Band::new(Some(us("250")), Some(us("250")));
    for n in [4, 12, 13, 30, 31, 100] {
        let s = tree.layout(n).unwrap();
        let x = s.crossover(&pt(us("3.86")), &mpi).unwrap();
        assert_eq!(x.lower, x.upper);
        let t_sr = x.lower.unwrap();
        // Plugging it back gives equality, so the verdict is a tie.
        let t = s.t_eb(&pt(us("3.86")), &pt(t_sr));
        assert_eq!(t, pt(us("250")));
        assert_eq!(verdict(&margin(&mpi, &t)), Verdict::Tie);
    }
    // One chassis: T_EB does not depend on T_SR.
    assert!(tree.layout(3).unwrap().crossover(&pt(us("3.86")), &mpi).is_none());
}

#[test]
fn verdicts_and_speedups() {
    let t = pt(us("100"));
    let b = |lo: &str, hi: &str| Band::new(Some(us(lo)), Some(us(hi)));
    assert_eq!(verdict(&margin(&b("120", "130"), &t)), Verdict::Chassis);
    assert_eq!(verdict(&margin(&b("80", "90"), &t)), Verdict::Mpi);
    assert_eq!(verdict(&margin(&b("90", "110"), &t)), Verdict::Undecided);
    assert_eq!(verdict(&margin(&Band::new(None, Some(us("90"))), &t)), Verdict::Mpi);
    assert_eq!(verdict(&margin(&Band::new(Some(us("90")), None), &t)), Verdict::Undecided);
    let sp = speedup(&b("120", "300"), &Interval { lo: us("100"), hi: us("200") }).unwrap();
    assert_eq!((sp.lower, sp.upper), (Some(frac(3, 5)), Some(frac(3, 1))));
    assert!(speedup(&b("1", "2"), &pt(Rat::zero())).is_none());
}

#[test]
fn bad_inputs_are_refused() {
    use crate::error::{Classified, ErrorKind};
    // Each refusal is its own variant, an input error, with its message.
    let msg = |r: Result<Prediction, BarrierError>| match r {
        Err(e) if e.kind() == ErrorKind::Input => (e.to_string(), e),
        other => panic!("expected an input error, got {other:?}"),
    };
    let (m, e) = msg(predict(&settings(vec![1, 4], None)));
    assert!(matches!(e, BarrierError::TooFewNodes(1)) && m.contains("at least 2 nodes"), "{m}");
    assert!(matches!(Tree::new(0, None, None), Err(BarrierError::ZeroPerChassis)));
    assert!(Tree::new(0, None, None).unwrap_err().to_string().contains("--per-chassis 0"));
    assert!(matches!(Tree::new(3, Some(0), None), Err(BarrierError::ZeroRootFanout)));
    let mut s = settings(vec![4], None);
    s.t_sr = vec![pt(us("-5"))];
    let (m, e) = msg(predict(&s));
    assert!(matches!(e, BarrierError::NegativeTime { what: "T_SR", .. }) && m.contains("negative"), "{m}");
    let mut s = settings(vec![4], None);
    s.t_ib = Interval { lo: us("4"), hi: us("3") };
    let (m, e) = msg(predict(&s));
    assert!(matches!(e, BarrierError::EmptyInterval { what: "T_IB", .. }) && m.contains("empty"), "{m}");
    let s = settings(vec![4], Some(Reference::Constant(pt(us("-1")))));
    assert!(msg(predict(&s)).0.contains("MPI_Barrier"));
    // Per chassis 1: the inter-level fan-out is 0, so the tree stops at 1 + 1 chassis.
    let mut s = settings(vec![2, 3], None);
    s.tree = Tree::new(1, None, None).unwrap();
    let (m, e) = msg(predict(&s));
    assert!(matches!(e, BarrierError::TreeTooSmall { nodes: 3, chassis: 3, root_fanout: 1 }), "{e:?}");
    assert!(m.contains("inter-level fan-out 0") && m.contains("at most 2 (1 root + 1 children)"), "{m}");
    assert!(matches!(msg(predict(&settings(vec![8, 4], None))).1, BarrierError::NodesNotAscending));
    let mut s = settings(vec![4], None);
    s.t_sr.clear();
    assert!(msg(predict(&s)).0.contains("--t-sr"));
    let mut s = settings(vec![4], None);
    s.conclude_at = vec![30];
    let (m, e) = msg(predict(&s));
    assert!(matches!(e, BarrierError::ConcludeAtNotListed(30)) && m.contains("--conclude-at 30"), "{m}");
}

/// `T(N) = c0 + c1·log2 N` on exact data at powers of two: the fit is exact,
/// e_max = 0, the bands have zero width and the values are in µs.
#[test]
fn model_reference_is_fitted_by_the_pipeline() {
    let src = "T(N) = c0 + c1*log2(N)\nparam c0, c1\nunit T = us\n";
    let model = Model::parse(src, "mpi.tm", 40).unwrap();
    let csv = "N,T\n2,120\n4,230\n8,340\n16,450\n";
    let spec = ColumnSpec { vars: vec!["N".into()], y: "T".into(), ..ColumnSpec::default() };
    let ds = data::read(csv, "mpi.csv", &spec).unwrap();
    let m = MpiModel {
        model,
        data: ds.rows,
        file: "mpi.csv".into(),
        unit_factor: us("1"),
        thresholds: vec![Threshold::parse("max").unwrap()],
        measurement_bands: false,
    };
    let p = predict(&settings(vec![2, 30, 64], Some(Reference::Model(Box::new(m))))).unwrap();
    assert_eq!(p.columns.iter().map(|c| c.label.as_str()).collect::<Vec<_>>(), vec!["fit", "max"]);
    assert_eq!(p.analysis.as_ref().unwrap().emax, Rat::zero());
    // 10 + 110·log2 64 = 670 µs, exactly, and the band is that value.
    let r64 = &p.rows[2];
    assert_eq!(r64.mpi[0], Band::new(Some(us("670")), Some(us("670"))));
    assert_eq!(r64.mpi[1], r64.mpi[0]);
    // L_i = 2 at 64 nodes: T_SR* = (670 − 10·3.86)/9 µs.
    let x = r64.crossover[0].clone().unwrap();
    assert_eq!(x.lower, Some((us("670") - us("38.6")) / Rat::from_integer(9.into())));
    assert_eq!(r64.versus[0][0].verdict, Verdict::Chassis);
    // Curves cover 2..64 with both sides of every breakpoint.
    let ns: Vec<u64> = p.curve.iter().map(|c| c.nodes).collect();
    assert_eq!(ns.first(), Some(&2));
    assert_eq!(ns.last(), Some(&64));
    assert!(ns.contains(&30) && ns.contains(&31));
    // A threshold below e_max = 0 is impossible.
    let mut m2 = match &p.settings.reference {
        Some(Reference::Model(m)) => (**m).clone(),
        _ => unreachable!(),
    };
    m2.thresholds = vec![Threshold::parse("-1").unwrap()];
    assert!(predict(&settings(vec![4], Some(Reference::Model(Box::new(m2))))).is_err());
}

fn time() -> impl Strategy<Value = Rat> {
    (0i64..200_000).prop_map(|n| Rat::new(n.into(), 1_000_000_000i64.into()))
}

fn interval() -> impl Strategy<Value = Interval> {
    (time(), time())
        .prop_map(|(a, b)| if a <= b { Interval { lo: a, hi: b } } else { Interval { lo: b, hi: a } })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// Intervals contain every point case inside them: T_EB, the margin
    /// (and so the verdict) and the crossover T_SR.
    #[test]
    fn intervals_contain_their_point_cases(
        n in 2u64..400,
        per in 1u64..6,
        t_ib in interval(),
        t_sr in interval(),
        mpi in interval(),
        (a, b, c) in (0u32..=16, 0u32..=16, 0u32..=16),
    ) {
        let tree = Tree::new(per, None, Some(per.max(2) - 1)).unwrap();
        let Ok(layout) = tree.layout(n) else { return Ok(()) };
        let at = |i: &Interval, k: u32| &i.lo + (&i.hi - &i.lo) * Rat::new(k.into(), 16.into());
        let (ib, sr, m) = (at(&t_ib, a), at(&t_sr, b), at(&mpi, c));
        let whole = layout.t_eb(&t_ib, &t_sr);
        let point = layout.t_eb(&pt(ib.clone()), &pt(sr.clone()));
        prop_assert!(whole.contains(&point.lo) && point.lo == point.hi);
        let band = Band::new(Some(mpi.lo.clone()), Some(mpi.hi.clone()));
        let mb = margin(&band, &whole);
        let mp = &m - &point.lo;
        prop_assert!(mb.lower.as_ref().unwrap() <= &mp && &mp <= mb.upper.as_ref().unwrap());
        match verdict(&mb) {
            Verdict::Chassis => prop_assert!(mp.is_positive()),
            Verdict::Mpi => prop_assert!(mp.is_negative()),
            Verdict::Tie => prop_assert!(mp.is_zero()),
            Verdict::Undecided => {}
        }
        if let Some(x) = layout.crossover(&t_ib, &band) {
            let xp = layout.crossover(&pt(ib.clone()), &Band::new(Some(m.clone()), Some(m.clone()))).unwrap();
            let v = xp.lower.clone().unwrap();
            prop_assert!(x.lower.as_ref().unwrap() <= &v && &v <= x.upper.as_ref().unwrap());
            // And the point crossover round-trips exactly.
            prop_assert_eq!(layout.t_eb(&pt(ib), &pt(v)).lo, m);
        }
    }
}
