//! The master/slave predictor against hand-derived runs, the interpolation
//! identity and exactness, and bad inputs.

use super::*;
use crate::data::tasks::read_tasks;
use crate::num::frac;
use proptest::prelude::*;

fn ns(n: i64) -> Rat {
    frac(n, 1_000_000_000)
}

/// A machine with the given LogGP values in ns and no bytes unless given.
fn machine(l: i64, o0: i64, o1: i64, g_per_b: i64, k_in: i64, k_out: i64) -> Machine {
    Machine {
        loggp: LogGp { l: ns(l), o: Linear { a: ns(o0), b: ns(o1) }, g: Rat::zero(), big_g: ns(g_per_b) },
        ratios: Vec::new(),
        uniform_ratio: Rat::one(),
        k_in: num::int(k_in),
        k_out: num::int(k_out),
        p1_recv: true,
    }
}

/// A one-dimensional workload of task times in ns, all measured.
fn tasks_ns(times: &[u64]) -> Tasks {
    let mut text = String::from("i1,time [ns]\n");
    for (i, t) in times.iter().enumerate() {
        text += &format!("{i},{t}\n");
    }
    let s = read_tasks(&text, "t.csv", &[times.len() as u32], "us", &Default::default()).unwrap();
    Tasks::interpolate(&s).unwrap()
}

fn run_time(t: &Tasks, m: &Machine, p: u64) -> Rat {
    predict(t, None, m, &[p]).unwrap().points[0].time.clone()
}

#[test]
fn the_issues_hand_check_is_32780_ns() {
    let t = tasks_ns(&[1000, 1000, 1000]);
    let m = machine(5000, 1000, 10, 10, 16, 8);
    assert_eq!(run_time(&t, &m, 3), ns(32_780));
    assert_eq!(run_time(&t, &Machine { p1_recv: false, ..m }, 3), ns(30_720));
}

#[test]
fn one_slave_runs_the_tasks_back_to_back() {
    // With one slave every task costs O1 + O2(T) + o in sequence.
    let times = [3000u64, 0, 12_345, 7];
    let t = tasks_ns(&times);
    let m = machine(5000, 1000, 10, 10, 16, 8);
    let o = 1000 + 10 * 2;
    let o1 = 2 * o + 160;
    let want: u64 = times.iter().map(|&x| o1 + (10_000 + x + 2 * o + 80) + o).sum();
    assert_eq!(run_time(&t, &m, 2), ns(want as i64));
}

#[test]
fn two_slaves_with_equal_tasks() {
    // T = 100 us, L = 5 us, o = 1 us, no bytes: O1 = a = 2, O2 = b = 112, o = 1 (us).
    // s1 arrives a+b, s2 2a+b; then s1 gets task 3 at a+b+o, s2 task 4 at 2a+b+2o;
    // s1's result is received at 2a+2b+2o, s2's at 3a+2b+3o = 233 us.
    let t = tasks_ns(&[100_000; 4]);
    let m = machine(5000, 1000, 0, 0, 0, 0);
    assert_eq!(run_time(&t, &m, 3), ns(233_000));
    let p = predict(&t, None, &m, &[3]).unwrap();
    assert_eq!(p.points[0].slave_tasks, vec![2, 2]);
}

#[test]
fn tiny_tasks_and_a_large_overhead_are_master_bound() {
    // T = 0, o = 100, L = 0: the master spends O1 + o = 300 per task, which
    // is the whole run time however many slaves there are.
    let t = tasks_ns(&[0; 10]);
    let m = machine(0, 100, 0, 0, 0, 0);
    let p = predict(&t, None, &m, &[5, 9, 64]).unwrap();
    for pt in &p.points {
        assert_eq!(pt.time, ns(3000), "P = {}", pt.procs);
        assert_eq!(pt.master_busy, Rat::one());
    }
    // W = 300 against a cycle C = W + O2 = 500: two slaves saturate the master.
    assert_eq!(p.saturation, Some(2));
    assert_eq!(p.flat_from, Some(5));
}

#[test]
fn full_workload_interpolates_to_itself_and_predicts_the_raw_simulation() {
    // A 2-D grid with every task measured (times in ns with decimals).
    let (rows, cols) = (7u32, 5u32);
    let mut text = String::from("i1,i2,time [us]\n");
    let mut raw = Vec::new();
    for i in 0..rows {
        for j in 0..cols {
            let ns_ = u128::from((i * 7919 + j * 104_729) % 5000 + 1);
            raw.push(ns_);
            text += &format!("{i},{j},{}.{:03}\n", ns_ / 1000, ns_ % 1000);
        }
    }
    let s = read_tasks(&text, "full.csv", &[rows, cols], "us", &Default::default()).unwrap();
    assert!(s.is_full());
    let t = Tasks::interpolate(&s).unwrap();
    // The identity: the same numerators in the same unit.
    assert_eq!(t.time.num, s.time.num);
    assert_eq!(t.time.unit, frac(1, 1_000_000_000));
    assert_eq!(sub_sample(&s, s.axes.clone()).time, s.time);
    let m = machine(5000, 1000, 10, 10, 16, 8);
    for p in [2u64, 3, 8, 40] {
        let c = sim::Costs {
            time: &raw[..],
            mult: vec![1],
            k_in: PerTask::Uniform(160),
            k_out: PerTask::Uniform(80),
            l: 5000,
            o0: 1000,
            o1: 10,
            p1_recv: true,
            slave_bits: sim::slave_bits(p),
        };
        let r = sim::simulate(&c, None, p);
        assert_eq!(run_time(&t, &m, p), ns(r.time as i64), "P = {p}");
    }
}

#[test]
fn speed_ratios_scale_task_times() {
    let t = tasks_ns(&[1000, 2000, 3000, 4000]);
    let m = machine(5000, 1000, 10, 10, 16, 8);
    // Every slave twice as slow is the same as doubled task times.
    let slow = Machine { uniform_ratio: num::int(2), ..m.clone() };
    let doubled = tasks_ns(&[2000, 4000, 6000, 8000]);
    assert_eq!(run_time(&t, &slow, 3), run_time(&doubled, &m, 3));
    let listed = Machine { ratios: vec![num::int(2), num::int(2)], ..m.clone() };
    assert_eq!(run_time(&t, &listed, 3), run_time(&doubled, &m, 3));
    // An order that is not a permutation is refused.
    for bad in [vec![0u32, 1, 2], vec![0, 1, 1, 2], vec![0, 1, 2, 9]] {
        assert!(matches!(predict(&t, Some(&bad), &m, &[3]), Err(MsError::Input(_))), "{bad:?}");
    }
    assert!(predict(&t, Some(&[3, 2, 1, 0]), &m, &[3]).is_ok());
    // Too few listed slaves for P.
    let e = predict(&t, None, &listed, &[4]).unwrap_err();
    assert!(matches!(e, MsError::Input(ref s) if s.contains("lists 2 slaves but P = 4 needs 3")), "{e}");
    // A ratio of 1/3 keeps everything exact.
    let third = Machine { uniform_ratio: frac(1, 3), ..m };
    let r = run_time(&t, &third, 2);
    assert_eq!(r.denom() % BigInt::from(3), BigInt::zero());
}

#[test]
fn loggp_text_parses_every_form_and_rejects_nonsense() {
    let d = LogGp::default();
    assert_eq!(d.clone().with("", "us").unwrap(), d);
    let l = LogGp::default().with("L=5000ns, o=1000ns+10ns*P, G=10ns/B, g=2", "us").unwrap();
    assert_eq!(l.l, ns(5000));
    assert_eq!(l.o, Linear { a: ns(1000), b: ns(10) });
    assert_eq!(l.big_g, ns(10));
    assert_eq!(l.g, frac(2, 1_000_000));
    let l = LogGp::default().with("o=P*0.01us + 1e+0us", "us").unwrap();
    assert_eq!(l.o, Linear { a: frac(1, 1_000_000), b: frac(1, 100_000_000) });
    for bad in ["L", "x=1us", "L=-1us", "o=1us+2us*Q", "L=3 parsecs", "o=1us*P*P"] {
        assert!(LogGp::default().with(bad, "us").is_err(), "{bad}");
    }
    let shown = LogGp::default().describe(&|x| crate::num::fmt_sig(&(x * num::int(1_000_000)), 6) + "us");
    assert_eq!(shown, "L=5us, o=1us+0.01us*P, g=1us, G=0.01us/B");
}

#[test]
fn subsets_parse_as_fractions_or_shapes() {
    let g = [1024u32, 1024];
    assert_eq!(parse_subset("1/16", &g).unwrap().counts, vec![256, 256]);
    assert_eq!(parse_subset("1/1024", &g).unwrap().counts, vec![32, 32]);
    assert_eq!(parse_subset("1/65536", &g).unwrap().counts, vec![4, 4]);
    assert_eq!(parse_subset("1/2", &g).unwrap().counts, vec![512, 1024]);
    assert_eq!(parse_subset("33x17", &g).unwrap().counts, vec![33, 17]);
    assert_eq!(parse_subset("1/1", &g).unwrap().counts, vec![1024, 1024]);
    for bad in ["1/3", "1/0", "1/x", "2/3", "1x2x3", "1x4", "4x2000", "1/1048576"] {
        assert!(parse_subset(bad, &g).is_err(), "{bad}");
    }
    assert_eq!(regular_axis(1024, 4), vec![0, 341, 682, 1023]);
    assert_eq!(regular_axis(1024, 32).windows(2).map(|w| w[1] - w[0]).max(), Some(33));
    assert_eq!(regular_axis(10, 10), (0..10).collect::<Vec<_>>());
}

#[test]
fn interpolated_k_columns_and_a_coarse_grid_are_exact() {
    // Corners of a 3x3 grid; the centre gets the mean of the corners.
    let text = "i1,i2,time [us],k_in [B],k_out\n0,0,1,10,1\n0,2,2,20,1\n2,0,3,30,1\n2,2,5,40,1\n";
    let s = read_tasks(text, "c.csv", &[3, 3], "us", &Default::default()).unwrap();
    let t = Tasks::interpolate(&s).unwrap();
    assert_eq!(t.sampled, 4);
    let at = |sc: &Scaled, i: usize| Rat::from_integer(BigInt::from(sc.num[i])) * &sc.unit;
    assert_eq!(at(&t.time, 4), frac(11, 4_000_000)); // (1+2+3+5)/4 us
    assert_eq!(at(t.k_in.as_ref().unwrap(), 4), num::int(25));
    // Rows: 1, 1.5, 2 | 2, 2.75, 3.5 | 3, 4, 5 (us): 24.75 us in all.
    assert_eq!(t.total_time(), frac(99, 4_000_000));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    /// A bilinear function sampled on any sub-grid holding the corners is
    /// reproduced exactly at every task.
    #[test]
    fn bilinear_functions_are_reproduced_exactly(
        c1 in 2u32..12, c2 in 2u32..12,
        keep1 in proptest::collection::vec(any::<bool>(), 12),
        keep2 in proptest::collection::vec(any::<bool>(), 12),
        a in 0u64..50, b in 0u64..50, c in 0u64..50, d in 0u64..50,
    ) {
        let axis = |cn: u32, keep: &[bool]| -> Vec<u32> {
            (0..cn).filter(|&i| i == 0 || i == cn - 1 || keep[i as usize]).collect()
        };
        let (a1, a2) = (axis(c1, &keep1), axis(c2, &keep2));
        let f = |i: u32, j: u32| a + b * u64::from(i) + c * u64::from(j) + d * u64::from(i) * u64::from(j);
        let mut text = String::from("i1,i2,time [ns]\n");
        for &i in &a1 {
            for &j in &a2 {
                text += &format!("{i},{j},{}\n", f(i, j));
            }
        }
        let s = read_tasks(&text, "p.csv", &[c1, c2], "us", &Default::default()).unwrap();
        let t = Tasks::interpolate(&s).unwrap();
        for i in 0..c1 {
            for j in 0..c2 {
                let k = (i * c2 + j) as usize;
                let v = Rat::from_integer(BigInt::from(t.time.num[k])) * &t.time.unit;
                prop_assert_eq!(v, ns(f(i, j) as i64));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// The 64-bit and 128-bit event keys give the same run, and the run
    /// respects the schedule's basic bounds.
    #[test]
    fn narrow_and_wide_keys_agree(
        times in proptest::collection::vec(0u128..5000, 1..60),
        procs in 2u64..12, l in 0u128..300, o0 in 0u128..300, o1 in 0u128..20,
        k_in in 0u128..100, p1 in any::<bool>(),
        bytes in proptest::collection::vec(0u128..40, 60), f in 0u128..4,
    ) {
        // k_out per task from a shared column times a factor (as task files
        // with a k_out column give), k_in uniform.
        let col = &bytes[..times.len()];
        let c = sim::Costs {
            time: &times[..],
            mult: vec![1],
            k_in: PerTask::Uniform(k_in),
            k_out: PerTask::Each(col, f),
            l, o0, o1, p1_recv: p1, slave_bits: sim::slave_bits(procs),
        };
        let wide = sim::simulate(&c, None, procs);
        let narrow = sim::simulate(&c.to::<u64>().unwrap(), None, procs);
        prop_assert_eq!(&wide, &narrow);
        // Never faster than the longest task's own cycle, never slower than running everything serially.
        let o = o0 + o1 * u128::from(procs);
        let cycle = |t: u128, k: u128| 2 * o + k_in + 2 * l + t + 2 * o + k * f + if p1 { o } else { 0 };
        let serial: u128 = times.iter().zip(col).map(|(&t, &k)| cycle(t, k)).sum();
        prop_assert!(wide.time <= serial);
        prop_assert!(wide.time >= times.iter().zip(col).map(|(&t, &k)| cycle(t, k)).max().unwrap_or(0));
        prop_assert_eq!(wide.slave_busy.iter().sum::<u128>(), times.iter().sum::<u128>());
        prop_assert_eq!(wide.slave_tasks.iter().map(|&n| n as usize).sum::<usize>(), times.len());
    }
}
