//! num-rational's `BigRational` (errband's `Rat`) against dashu's `RBig`
//! on two mixes of exact operations shaped like errband's hottest paths,
//! both under mimalloc as errband's binary is. Each mix is computed with
//! both types and the results are checked equal, so that the two timings
//! are of the same arithmetic.
//!
//! 1. A band at a point: a fitted model and four region vertices evaluated
//!    at p, the least and greatest value, and the width relative to the
//!    model (the `--at` stream, 300 000 points).
//! 2. A least-squares fit of `c0 + c1*p` to six measurements at two points
//!    (three repetitions, short decimals), its residuals and their maximum
//!    (one series of a large experiment, 100 000 series).

use std::time::Instant;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

type N = num_rational::BigRational;
type D = dashu_ratio::RBig;

fn nb(n: i128, d: i128) -> N {
    N::new(n.into(), d.into())
}

fn db(n: i128, d: i128) -> D {
    D::from_parts(n.into(), (d as u128).into())
}

fn n_bits(x: &N) -> u64 {
    x.numer().bits() + x.denom().bits()
}

fn d_bits(x: &D) -> u64 {
    (dashu_int::ops::BitTest::bit_len(x.numerator()) + dashu_int::ops::BitTest::bit_len(x.denominator()))
        as u64
}

/// Mix 1, generic over the type through the constructor.
macro_rules! band {
    ($mk:ident, $bits:ident, $points:expr) => {{
        let verts = [
            (-237230007, 1000000007, 544708, 10000019),
            (-111383, 100000, 348073, 10000000),
            (-132867, 1000000, -155115, 10000000),
            (11256, 10000, -35175, 1000000),
        ];
        let vs: Vec<_> = verts.iter().map(|&(a, b, c, d)| ($mk(a, b), $mk(c, d))).collect();
        let (c0, c1) = ($mk(665739, 10000), $mk(-10659, 320000));
        let mut acc = 0u64;
        for p in 1..=$points {
            let b1 = $mk(p, 1);
            let model = &c0 + &c1 * &b1;
            let vals: Vec<_> = vs.iter().map(|(x, y)| &model + x + y * &b1).collect();
            let lo = vals.iter().min().unwrap().clone();
            let hi = vals.iter().max().unwrap().clone();
            let w = (&hi - &lo) / ($mk(2, 1) * &model);
            acc += $bits(&w);
        }
        acc
    }};
}

/// Mix 2: the normal equations by Cramer's rule, residuals, their maximum.
macro_rules! fit {
    ($mk:ident, $bits:ident, $series:expr, $scale:expr) => {{
        let mut acc = 0u64;
        for s in 0..$series {
            let ys: Vec<_> = (0..6).map(|i| $mk(589044 + 7919 * ((s * 6 + i) % 1000), $scale)).collect();
            let ps: Vec<_> = [32, 32, 32, 64, 64, 64].iter().map(|&p| $mk(p, 1)).collect();
            let z = || $mk(0, 1);
            let (mut s1, mut sp, mut spp, mut sy, mut spy) = (z(), z(), z(), z(), z());
            for (p, y) in ps.iter().zip(&ys) {
                s1 = s1 + $mk(1, 1);
                sp = sp + p.clone();
                spp = spp + p * p;
                sy = sy + y.clone();
                spy = spy + p * y;
            }
            let det = &s1 * &spp - &sp * &sp;
            let c0 = (&sy * &spp - &sp * &spy) / &det;
            let c1 = (&s1 * &spy - &sp * &sy) / &det;
            let mut m = z();
            for (p, y) in ps.iter().zip(&ys) {
                let e = &c0 + &c1 * p - y;
                let e = if e < z() { -e } else { e };
                if e > m {
                    m = e;
                }
            }
            acc += $bits(&m);
        }
        acc
    }};
}

fn time<T: PartialEq + std::fmt::Debug>(label: &str, a: impl FnOnce() -> T, b: impl FnOnce() -> T) {
    let t = Instant::now();
    let ra = a();
    let ta = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let rb = b();
    let tb = t.elapsed().as_secs_f64();
    assert_eq!(ra, rb, "{label}: the two types disagree");
    println!("{label:<44} num-rational {ta:7.3} s   dashu {tb:7.3} s   ratio {:.2}", tb / ta);
}

fn main() {
    time("band at 300 000 points", || band!(nb, n_bits, 300_000), || band!(db, d_bits, 300_000));
    time(
        "100 000 fits, 4-digit decimals",
        || fit!(nb, n_bits, 100_000, 10_000),
        || fit!(db, d_bits, 100_000, 10_000),
    );
    time(
        "100 000 fits, 9-digit decimals",
        || fit!(nb, n_bits, 100_000, 1_000_000_000),
        || fit!(db, d_bits, 100_000, 1_000_000_000),
    );
}
