//! Criterion micro-benchmarks of errband's exact engine.
//!
//! ```text
//! cargo bench --bench engine                 # everything (a few minutes on 2 cores)
//! cargo bench --bench engine -- emax         # one group (criterion filter)
//! ```
//!
//! Groups (instances from `benches/instances.rs`, built outside the timed
//! closures; see `benches/README.md`):
//! * `qe_paper`: parse + solve seed 003's eq. (5) (order dc2,dc1) and eq. (6);
//! * `emax`: `Prepared::new` + minimise `e` on the Chebyshev residual LP;
//! * `band`: `Prepared::new` + min and max of `phi(x*)·c` over the theta-rows;
//! * `vertices`: exact generators (`Polyhedron::generators`) of the theta-region.
//! * `cylinder`: its vertices and cylindrical form together (k = 2 at m = 100 000, k = 3 at m = 10 000).

mod common;
mod instances;

use common::{configure, probe};
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use errband::lp::{LpOutcome, Prepared, Sense};
use errband::poly::Polyhedron;
use errband::qe;
use instances::{emax_objective, Data, Instance, MAX_K};
use std::collections::HashMap;
use std::hint::black_box;
use std::sync::{Arc, Mutex, OnceLock};

/// The data for `m` rows with all basis functions, built once per process
/// (m = 100000 takes several seconds to build).
fn data(m: usize) -> Arc<Data> {
    static CACHE: OnceLock<Mutex<HashMap<usize, Arc<Data>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let mut map = cache.lock().unwrap();
    map.entry(m).or_insert_with(|| Arc::new(Data::new(m, MAX_K))).clone()
}

/// Instance `(m, k)`, with its `e_max` solved (for the band threshold).
fn instance(m: usize, k: usize) -> Instance {
    Instance::from_data(data(m).with_k(k))
}

fn optimum(out: LpOutcome) -> LpOutcome {
    assert!(matches!(out, LpOutcome::Optimal(_)), "LP is not optimal");
    out
}

fn qe_paper(c: &mut Criterion) {
    const EQ5: &str = include_str!("../models/hpl_eq5.qe");
    const EQ6: &str = include_str!("../models/hpl_eq6.qe");
    let mut g = c.benchmark_group("qe_paper");
    let cases: [(&str, &str, &str, Vec<String>); 2] = [
        ("eq5", EQ5, "hpl_eq5.qe", vec!["dc2".to_string(), "dc1".to_string()]),
        ("eq6", EQ6, "hpl_eq6.qe", vec![]),
    ];
    for (name, src, file, order) in cases {
        let opts = qe::Options::default().order(order);
        // Fails before timing if the model does not solve.
        let once = probe(|| {
            let p = qe::parse_problem(src, file).unwrap_or_else(|d| panic!("{file}: {d:?}"));
            qe::solve(&p, &opts).unwrap_or_else(|e| panic!("{file}: {e}"))
        });
        configure(&mut g, once);
        g.bench_function(name, |b| {
            b.iter(|| {
                let p = qe::parse_problem(black_box(src), file).unwrap();
                qe::solve(&p, &opts).unwrap()
            })
        });
    }
    g.finish();
}

fn emax(c: &mut Criterion) {
    let mut g = c.benchmark_group("emax");
    let cases = [(100, 4), (1000, 4), (10000, 4), (100000, 4), (100000, 2), (100000, 6)];
    for (m, k) in cases {
        let d = data(m).with_k(k);
        let rows = instances::emax_rows(&d.phi, &d.y);
        drop(d);
        let obj = emax_objective(k);
        configure(
            &mut g,
            probe(|| {
                optimum(Prepared::new(k + 1, rows.clone()).unwrap().optimize(&obj, Sense::Minimize).unwrap())
            }),
        );
        g.bench_with_input(BenchmarkId::new(format!("k{k}"), m), &rows, |b, rows| {
            b.iter_batched(
                || rows.clone(),
                |rows| optimum(Prepared::new(k + 1, rows).unwrap().optimize(&obj, Sense::Minimize).unwrap()),
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

fn band(c: &mut Criterion) {
    let mut g = c.benchmark_group("band");
    for m in [10000, 100000] {
        let k = 4;
        let inst = instance(m, k);
        let rows = inst.band_rows();
        let point = inst.point.clone();
        drop(inst);
        configure(
            &mut g,
            probe(|| {
                let p = Prepared::new(k, rows.clone()).unwrap();
                (
                    optimum(p.optimize(&point, Sense::Minimize).unwrap()),
                    optimum(p.optimize(&point, Sense::Maximize).unwrap()),
                )
            }),
        );
        g.bench_with_input(BenchmarkId::new(format!("k{k}"), m), &rows, |b, rows| {
            b.iter_batched(
                || rows.clone(),
                |rows| {
                    let p = Prepared::new(k, rows).unwrap();
                    let lo = optimum(p.optimize(&point, Sense::Minimize).unwrap());
                    let hi = optimum(p.optimize(&point, Sense::Maximize).unwrap());
                    (lo, hi)
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

fn vertices(c: &mut Criterion) {
    let mut g = c.benchmark_group("vertices");
    let cases = [(2, 1000), (2, 10000), (2, 100000), (3, 1000), (3, 10000)];
    for (k, m) in cases {
        let inst = instance(m, k);
        let rows = inst.band_rows();
        drop(inst);
        configure(&mut g, probe(|| Polyhedron::new(k, rows.clone()).generators()));
        g.bench_with_input(BenchmarkId::new(format!("k{k}"), m), &rows, |b, rows| {
            b.iter_batched(
                || rows.clone(),
                |rows| {
                    let gens = Polyhedron::new(k, rows).generators();
                    assert!(!gens.vertices.is_empty());
                    gens
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

/// Vertices and cylindrical form together, as a report needs them: one
/// minimisation gives the vertices, the cells reuse its generators.
fn cylinder(c: &mut Criterion) {
    let mut g = c.benchmark_group("cylinder");
    for (k, m) in [(2, 100000), (3, 10000)] {
        let inst = instance(m, k);
        let rows = inst.band_rows();
        drop(inst);
        let run = |rows: Vec<errband::linear::Constraint>| {
            let p = Polyhedron::new(k, rows);
            let minimal = p.minimize();
            let cells = errband::qe::cylindrical_form(&Polyhedron::from_minimal(k, &minimal));
            assert!(!cells.is_empty() && !minimal.generators.vertices.is_empty());
            (minimal, cells)
        };
        configure(&mut g, probe(|| run(rows.clone())));
        g.bench_with_input(BenchmarkId::new(format!("k{k}"), m), &rows, |b, rows| {
            b.iter_batched(|| rows.clone(), run, BatchSize::LargeInput)
        });
    }
    g.finish();
}

criterion_group!(benches, qe_paper, emax, band, vertices, cylinder);
criterion_main!(benches);
