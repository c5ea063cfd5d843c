//! Criterion benchmark of the whole analysis pipeline, in process, through
//! the library API the CLI uses (`src/cli/analyze.rs`):
//! `Model::parse` -> `data::read` -> `Analysis::run` -> `Report { .. }.text()`.
//!
//! ```text
//! cargo bench --bench pipeline                 # both groups
//! cargo bench --bench pipeline -- hpl_full     # one group (criterion filter)
//! cargo bench --bench pipeline -- 'synth_1000/analysis'
//! ```
//!
//! Groups, each with one case per phase and one for the whole pipeline:
//! * `hpl_full`: `models/hpl.tm` on `data/hpl.csv` (the README example);
//! * `synth_1000`: `benches/pipeline/synth.tm` (k = 3, 20 prediction points)
//!   on 1000 synthetic rows over a 55-point grid (p = 1..1024 by powers of
//!   two, n = 1000..5000:1000), generated here with a fixed LCG (the same
//!   kind of data as `benches/pipeline/gen.py` writes, not the same bytes).
//!
//! Cases: `model_parse`, `data_read`, `analysis_run`, `report_text` (each
//! phase alone, inputs prepared outside the timed closure) and `pipeline`
//! (all four from the source texts). The whole-process figures, with process
//! start and file I/O, come from `benches/pipeline/run.sh`.

mod common;

use common::{configure, probe};
use criterion::{criterion_group, criterion_main, Criterion};
use errband::analysis::{Analysis, Options};
use errband::data::{self, ColumnSpec, Dataset};
use errband::model::Model;
use errband::num::transcendental::DEFAULT_DIGITS;
use errband::report::Report;
use std::hint::black_box;

const HPL_MODEL: &str = include_str!("../models/hpl.tm");
const HPL_DATA: &str = include_str!("../data/hpl.csv");
const SYNTH_MODEL: &str = include_str!("pipeline/synth.tm");

/// 1000 rows of `p,n,T` over p = 1, 2, ..., 1024 and n = 1000..5000:1000,
/// T = 0.5 + 2e-9*n^3/p + 1e-7*n^2*log2(p) times (1 + noise), noise about
/// ±3.5% (sum of two uniforms), written with 4 to 6 significant digits.
fn synth_csv(m: usize) -> String {
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move || {
        // Knuth's MMIX LCG; the high bits are the usable ones.
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let ps: Vec<u32> = (0..11).map(|i| 1u32 << i).collect();
    let ns = [1000u32, 2000, 3000, 4000, 5000];
    let points: Vec<(u32, u32)> = ns.iter().flat_map(|&n| ps.iter().map(move |&p| (p, n))).collect();
    let mut s = String::from("# SYNTHETIC (benches/pipeline.rs)\np,n,T\n");
    for i in 0..m {
        let (p, n) = points[i % points.len()];
        let (pf, nf) = (p as f64, n as f64);
        let t = 0.5 + 2e-9 * nf.powi(3) / pf + 1e-7 * nf * nf * pf.log2();
        let noise = (next() + next() - 1.0) * 0.035;
        let v = t * (1.0 + noise);
        let sig = 4 + (next() * 3.0) as i32; // 4, 5 or 6
        let before = v.abs().log10().floor() as i32 + 1;
        let decimals = (sig - before).max(0) as usize;
        s.push_str(&format!("{p},{n},{v:.decimals$}\n"));
    }
    s
}

fn parse_model(src: &str, file: &str) -> Model {
    Model::parse(src, file, DEFAULT_DIGITS).unwrap_or_else(|d| panic!("{}", d.render(src)))
}

/// The column spec the CLI builds with no `--x`, `--y`, `--region`, `--metric`.
fn spec(model: &Model) -> ColumnSpec {
    ColumnSpec { vars: model.vars.clone(), y: model.func.clone(), ..ColumnSpec::default() }
}

fn read_data(src: &str, file: &str, model: &Model) -> Dataset {
    data::read(src, file, &spec(model)).unwrap_or_else(|e| panic!("{}", e.render(src)))
}

fn analyse(model: &Model, ds: &Dataset, file: &str) -> Analysis {
    Analysis::run_rows(model, &ds.rows, file, &Options::default())
        .unwrap_or_else(|e| panic!("analysis failed: {e:?}"))
}

/// The default text report (`--decimal 6`, no `--exact`, no `--drop`).
fn report(model: &Model, ds: &Dataset, an: &Analysis, file: &str) -> String {
    Report {
        model,
        data_file: file,
        data: &ds.rows,
        analysis: an,
        pruned: None,
        function: None,
        scales: [None, None],
        digits: 6,
        exact: false,
        warnings: &ds.warnings,
        backtest: None,
        family: None,
        plot_at: None,
        recommendation: None,
        recommendation_error: None,
        discovered: false,
        set_aside: &[],
    }
    .text()
}

fn pipeline(msrc: &str, mfile: &str, dsrc: &str, dfile: &str) -> String {
    let model = parse_model(msrc, mfile);
    let ds = read_data(dsrc, dfile, &model);
    let an = analyse(&model, &ds, dfile);
    report(&model, &ds, &an, dfile)
}

fn group(c: &mut Criterion, name: &str, msrc: &str, mfile: &str, dsrc: &str, dfile: &str) {
    // Untimed run: a correctness check and the inputs of the single-phase cases.
    let model = parse_model(msrc, mfile);
    let ds = read_data(dsrc, dfile, &model);
    let an = analyse(&model, &ds, dfile);
    let text = report(&model, &ds, &an, dfile);
    assert!(text.contains("Bands of"), "{name}: the report has no band table");

    let mut g = c.benchmark_group(name);
    configure(&mut g, probe(|| parse_model(msrc, mfile)));
    g.bench_function("model_parse", |b| b.iter(|| parse_model(black_box(msrc), mfile)));
    configure(&mut g, probe(|| read_data(dsrc, dfile, &model)));
    g.bench_function("data_read", |b| b.iter(|| read_data(black_box(dsrc), dfile, &model)));
    configure(&mut g, probe(|| analyse(&model, &ds, dfile)));
    g.bench_function("analysis_run", |b| b.iter(|| analyse(black_box(&model), &ds, dfile)));
    configure(&mut g, probe(|| report(&model, &ds, &an, dfile)));
    g.bench_function("report_text", |b| b.iter(|| report(black_box(&model), &ds, &an, dfile)));
    configure(&mut g, probe(|| pipeline(msrc, mfile, dsrc, dfile)));
    g.bench_function("pipeline", |b| b.iter(|| pipeline(black_box(msrc), mfile, dsrc, dfile)));
    g.finish();
}

fn hpl_full(c: &mut Criterion) {
    group(c, "hpl_full", HPL_MODEL, "models/hpl.tm", HPL_DATA, "data/hpl.csv");
}

fn synth_1000(c: &mut Criterion) {
    let csv = synth_csv(1000);
    group(c, "synth_1000", SYNTH_MODEL, "benches/pipeline/synth.tm", &csv, "synth_1000.csv");
}

criterion_group!(benches, hpl_full, synth_1000);
criterion_main!(benches);
