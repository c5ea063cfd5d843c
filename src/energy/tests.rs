use super::input::{read, DefaultUnits, Input, PowerIs};
use super::*;
use crate::limits::Limits;
use crate::num::{frac, parse_rat};

fn d(s: &str) -> Rat {
    parse_rat(s).unwrap()
}

fn parse(text: &str) -> Input {
    read(text, "t.csv", &DefaultUnits::default(), PowerIs::PerNode, Limits::default()).unwrap()
}

fn settings(nodes: &[i64], inf: bool) -> Settings {
    let mut n: Vec<Nodes> = nodes.iter().map(|&k| Nodes::Count(frac(k, 1))).collect();
    if inf {
        n.push(Nodes::Infinity);
    }
    Settings { nodes: n, digits: 40, ..Default::default() }
}

const IDEAL: &str = include_str!("../../data/energy_ideal.csv");
const MG: &str = include_str!("../../data/energy_mg.csv");

fn delta_e(p: &Prediction) -> Vec<Rat> {
    p.at.iter().map(|a| a.delta_e.as_ref().unwrap().point.clone()).collect()
}

/// Kimura, Imada & Sato section 4.3 with Table 3 and equal base times: by hand, with
/// `n·E_opt` and `n·E_std` per pair (g_mem = 1.05, g_comm = 1.14):
/// calc+mem `(233.675 + 12.075n)/(260 + 15n)`, calc+comm
/// `(220.76 + 41.04n)/(223 + 42n)`, mem+comm `(204.435 + 53.115n)/(233 + 57n)`.
#[test]
fn ideal_pairs_match_the_hand_formulas_and_the_papers_trends() {
    let input = parse(IDEAL);
    let cases = [
        ("calc", "mem", ("233.675", "12.075", "260", "15"), true),
        ("calc", "comm", ("220.76", "41.04", "223", "42"), true),
        ("mem", "comm", ("204.435", "53.115", "233", "57"), false),
    ];
    for (r1, r2, (n0, n1, d0, d1), rises) in cases {
        let mut s = settings(&[1, 16, 1024], true);
        s.regions = vec![r1.into(), r2.into()];
        let p = predict(&input, "ideal", &s).unwrap();
        let got = delta_e(&p);
        for (i, n) in [1i64, 16, 1024].iter().enumerate() {
            let n = frac(*n, 1);
            let want = Rat::one() - (d(n0) + d(n1) * &n) / (d(d0) + d(d1) * &n);
            assert_eq!(got[i], want, "{r1}+{r2} at n = {n}");
        }
        let limit = Rat::one() - d(n1) / d(d1);
        assert_eq!(got[3], limit, "{r1}+{r2} limit");
        assert_eq!(got[0] < got[2], rises, "{r1}+{r2} trend");
        assert_eq!(got[2] < limit, rises);
    }
    // The hand values themselves: 117/1100, 117/800 and 39/200 for calc+mem.
    let mut s = settings(&[1, 16], true);
    s.regions = vec!["calc".into(), "mem".into()];
    let p = predict(&input, "ideal", &s).unwrap();
    assert_eq!(delta_e(&p), vec![frac(117, 1100), frac(117, 800), frac(39, 200)]);
}

/// A profile generated exactly from known α_p, β_on: T(n, f) = T1·(1 − α + α/n)·(1 + β(3000/f − 1)).
fn exact_profile(alpha: &Rat, beta: &Rat, nodes: &[i64], base: i64) -> String {
    let mut s = "region,nodes,freq,time,power\n".to_string();
    let t1 = d("2.5");
    for &n in nodes {
        for f in [3000i64, 2500, 2000] {
            if n != base && f != 3000 {
                continue;
            }
            let nr = frac(n, 1);
            let t =
                &t1 * (Rat::one() - alpha + alpha / &nr) * (Rat::one() + beta * (frac(3000, f) - Rat::one()));
            let p = f / 20;
            s.push_str(&format!("main,{n},{f},{},{p}\n", crate::num::fmt_fraction(&t)));
        }
    }
    s
}

#[test]
fn exact_profiles_are_recovered_exactly_with_zero_width_bands() {
    let (alpha, beta) = (frac(9, 10), frac(3, 10));
    for (nodes, base) in [(vec![1, 2, 4, 8], 1), (vec![2, 4, 8, 16], 2)] {
        let text = exact_profile(&alpha, &beta, &nodes, base);
        let mut s = settings(&[64, 4096], true);
        s.thresholds = vec![Threshold::parse("max").unwrap(), Threshold::parse("2*max + emax").unwrap()];
        let p = predict(&parse(&text), "exact", &s).unwrap();
        let r = &p.regions[0];
        assert_eq!(r.point.alpha_p(), Some(alpha.clone()), "base {base}");
        assert_eq!(r.point.beta, beta);
        for f in &r.fits {
            assert!(f.analysis.emax.is_zero() && f.analysis.residuals.max_abs.is_zero());
        }
        let v = &p.values[0];
        for b in v.alpha_p.as_ref().unwrap().bands.iter().chain(&v.beta_on.bands) {
            assert!(b.as_ref().unwrap().width().is_zero());
        }
        for a in &p.at {
            for b in &a.delta_e.as_ref().unwrap().bands {
                assert!(b.as_ref().unwrap().width().is_zero());
            }
        }
        // f_opt: P·T at 3000/2500/2000 MHz = 150·1, 125·1.06, 100·1.15 (× T): 2000 wins.
        assert_eq!(r.f_opt, frac(2000, 1));
    }
}

#[test]
fn overhead_energy_is_recovered_exactly() {
    // Base 2: P = 100 W, T(2) = 1 s; overhead α^f = 20 J, β^f = −20 J:
    // n·P·T(n) = 200 + 20·log2 n − 20 → T(4) = 0.55, T(8) = 0.3.
    let text = "region,nodes,freq,time,power\nallx,2,3000,1,100\nallx,2,2000,1.2,80\nallx,4,3000,0.55,100\nallx,8,3000,0.3,100\n";
    let mut s = settings(&[2, 16, 1000], false);
    s.overhead = vec!["allx".into()];
    let p = predict(&parse(text), "ov", &s).unwrap();
    let r = &p.regions[0];
    assert!(r.overhead);
    assert_eq!((r.point.af.clone(), r.point.bf.clone()), (frac(20, 1), frac(-20, 1)));
    // E_std(16) = 200 + 20·4 − 20 = 260 J exactly.
    assert_eq!(p.at[1].e_std.as_ref().unwrap().point, frac(260, 1));
    // log2 1000 is irrational: noted.
    assert!(p.warnings.iter().any(|w| w.contains("log2 n is irrational for n = 1000")), "{:?}", p.warnings);
}

#[test]
fn bands_contain_the_point_and_widen_with_the_threshold() {
    let input = parse(MG);
    let mut s = settings(&[2, 16, 256, 4096], true);
    s.thresholds = ["emax", "max", "2*max", "4*max"].iter().map(|t| Threshold::parse(t).unwrap()).collect();
    let p = predict(&input, "mg", &s).unwrap();
    for a in &p.at {
        let v = a.delta_e.as_ref().unwrap();
        let bands: Vec<&Interval> = v.bands.iter().map(|b| b.as_ref().unwrap()).collect();
        // From `max` on the fitted values lie in every fit's region.
        for b in &bands[1..] {
            assert!(b.contains(&v.point), "{}: {:?} ∌ {:?}", show_nodes(&a.nodes), b, v.point);
        }
        for w in bands.windows(2) {
            assert!(w[1].lo <= w[0].lo && w[0].hi <= w[1].hi, "nested");
        }
        assert!(bands[3].width() > bands[1].width());
        for (r, share) in a.share_opt.iter().enumerate() {
            let sh = share.as_ref().unwrap();
            assert!(sh.bands[1].as_ref().unwrap().contains(&sh.point), "share of region {r}");
        }
    }
}

/// The bounds are the extremes over every combination of corners, by brute force.
#[test]
fn ee_opt_bounds_equal_brute_force_over_all_corner_choices() {
    let input = parse(MG);
    let mut s = settings(&[16], false);
    s.regions = vec!["rprj3".into(), "resid".into(), "psinv_smooth".into()];
    let p = predict(&input, "mg", &s).unwrap();
    let band = p.at[0].ee_opt.as_ref().unwrap().bands[0].clone().unwrap();
    let n = frac(16, 1);
    let energy = |r: &RegionFit, c: &Corner, opt: bool| {
        let t = &c.a + &c.b / &n;
        let g = Rat::one() + &c.beta * (&p.f_std / &r.f_opt - Rat::one());
        if opt {
            &n * &r.p_opt * g * t
        } else {
            &n * &r.p_std * t
        }
    };
    let (mut lo, mut hi): (Option<Rat>, Option<Rat>) = (None, None);
    let cs: Vec<&Vec<Corner>> = p.regions.iter().map(|r| &r.corners[0]).collect();
    for a in cs[0] {
        for b in cs[1] {
            for c in cs[2] {
                let picks = [a, b, c];
                let (mut o, mut st) = (Rat::zero(), Rat::zero());
                for (r, k) in p.regions.iter().zip(picks) {
                    o += energy(r, k, true);
                    st += energy(r, k, false);
                }
                let v = o / st;
                lo = Some(lo.map_or(v.clone(), |l| if v < l { v.clone() } else { l }));
                hi = Some(hi.map_or(v.clone(), |h| if v > h { v } else { h }));
            }
        }
    }
    assert_eq!(Some(band.lo), lo);
    assert_eq!(Some(band.hi), hi);
    assert!(cs.iter().map(|c| c.len()).product::<usize>() > 8, "a real product of corners");
}

fn err(text: &str, s: &Settings) -> String {
    match predict(&parse(text), "bad.csv", s) {
        Err(EnergyError::Fit { region, .. }) => format!("fit of {region}"),
        Err(e) => e.to_string(),
        Ok(_) => "no error".into(),
    }
}

#[test]
fn bad_profiles_get_clear_errors() {
    let s = settings(&[16], false);
    // No row at f_std on the base count for region b.
    let m = err("region,nodes,freq,time,power\na,2,3000,1,100\na,2,2000,1.2,80\na,4,3000,0.6,100\nb,2,2000,1,80\nb,4,2000,0.6,80\n", &s);
    assert!(m.contains("region `b` has no measurement at f_std = 3000 MHz"), "{m}");
    // One node count only.
    let m = err("region,nodes,freq,time,power\na,2,3000,1,100\na,2,2000,1.2,80\n", &s);
    assert!(m.contains("on one node count only"), "{m}");
    // No power.
    let m = err("region,nodes,freq,time,power\na,2,3000,1,\na,2,2000,1.2,\na,4,3000,0.6,\n", &s);
    assert!(m.contains("has no power at f_std"), "{m}");
    // One frequency.
    let m = err("region,nodes,freq,time,power\na,2,3000,1,100\na,4,3000,0.6,100\n", &s);
    assert!(m.contains("one frequency only"), "{m}");
    // Unknown region names in options.
    let mut s2 = settings(&[16], false);
    s2.regions = vec!["nope".into()];
    let m = err("region,nodes,freq,time,power\na,2,3000,1,100\n", &s2);
    assert!(m.contains("no region `nope`"), "{m}");
    // Threshold below e_max.
    let mut s3 = settings(&[16], false);
    s3.thresholds = vec![Threshold::parse("0.5*emax").unwrap()];
    let m = err(MG, &s3);
    assert!(m.contains("is below e_max"), "{m}");
    // Absolute thresholds mix units.
    s3.thresholds = vec![Threshold::parse("0.1").unwrap()];
    assert!(err(MG, &s3).contains("relative"));
}

#[test]
fn negative_alpha_is_kept_with_a_warning() {
    // Time grows with n: α_p < 0 (like Kimura, Imada & Sato's CG MPI region).
    let text = "region,nodes,freq,time,power\nmpi,1,3000,1,100\nmpi,1,2000,1.1,90\nmpi,2,3000,1.5,100\nmpi,4,3000,1.75,100\n";
    let p = predict(&parse(text), "neg", &settings(&[16], false)).unwrap();
    assert!(p.regions[0].point.alpha_p().unwrap().is_negative());
    assert!(p.warnings.iter().any(|w| w.contains("is negative")), "{:?}", p.warnings);
}

#[test]
fn forced_frequency_and_edp() {
    let input = parse(MG);
    let mut s = settings(&[16], false);
    s.fopt = vec![("psinv_coarse".into(), frac(2000, 1))];
    let p = predict(&input, "mg", &s).unwrap();
    let r = p.regions.iter().find(|r| r.name == "psinv_coarse").unwrap();
    assert!(r.f_opt_forced && r.f_opt == frac(2000, 1));
    s.fopt.clear();
    s.objective = Objective::Edp;
    let p = predict(&input, "mg", &s).unwrap();
    // EDP weighs time more: no region picks a lower frequency than under energy.
    let pe = predict(&input, "mg", &settings(&[16], false)).unwrap();
    for (a, b) in p.regions.iter().zip(&pe.regions) {
        assert!(a.f_opt >= b.f_opt, "{}", a.name);
    }
}

/// Library callers can match on what went wrong, and each failure says
/// whether it is the input's or the analysis's.
#[test]
fn errors_are_structured() {
    use crate::error::{Classified, ErrorKind};
    let s = settings(&[16], false);
    let one_freq =
        predict(&parse("region,nodes,freq,time,power\na,2,3000,1,100\na,4,3000,0.6,100\n"), "bad.csv", &s);
    match one_freq {
        Err(e @ EnergyError::OneFrequency { .. }) => {
            assert_eq!(e.kind(), ErrorKind::Input);
            let EnergyError::OneFrequency { at } = &e else { unreachable!() };
            assert_eq!((at.file.as_str(), at.region.as_str()), ("bad.csv", "a"));
        }
        other => panic!("expected OneFrequency, got {other:?}"),
    }
    let mut s2 = settings(&[16], false);
    s2.regions = vec!["nope".into()];
    let r = predict(
        &parse("region,nodes,freq,time,power\na,2,3000,1,100\na,2,2000,1.2,80\na,4,3000,0.6,100\n"),
        "x.csv",
        &s2,
    );
    assert!(
        matches!(r, Err(EnergyError::NoSuchRegion { ref region, ref known }) if region == "nope" && known == &["a"])
    );
}
