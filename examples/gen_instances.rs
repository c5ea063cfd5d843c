//! Writes the benchmark instances used by `benches/compare/` (see
//! `benches/README.md` and `benches/instances.rs` for their definition).
//!
//! ```text
//! gen_instances DIR [--max-m M]
//! ```
//!
//! Into DIR (which must exist): `cheb_m{M}_k{K}.csv` (header
//! `phi1,...,phiK,y`, M rows of exact decimal strings) with the sidecar
//! `cheb_m{M}_k{K}.json` = `{"threshold": "<decimal>", "point": ["<decimal>", ...]}`
//! for M in 100, 1000, 10000, 100000 (those <= --max-m) and K in 2, 4, 6; and
//! `eq5.qe`, `eq6.qe` copied from `models/hpl_eq5.qe`, `models/hpl_eq6.qe`.
//! The threshold is `e_max * 3/2` rounded up to 6 significant digits, with
//! `e_max` solved exactly by errband (its certificate is checked here for
//! M <= 10000; `cheb_bench` checks it for every M).

#[path = "../benches/instances.rs"]
mod instances;

use errband::num::fmt_sig;
use instances::{plain_decimal, point, solve_emax, threshold_for, Data, KS, MAX_K, MS};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::exit;
use std::time::Instant;

fn usage() -> ! {
    eprintln!("usage: gen_instances DIR [--max-m M]");
    exit(2);
}

fn main() {
    let mut dir: Option<PathBuf> = None;
    let mut max_m = usize::MAX;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--max-m" {
            max_m = args.next().and_then(|v| v.parse().ok()).unwrap_or_else(|| usage());
        } else if let Some(v) = a.strip_prefix("--max-m=") {
            max_m = v.parse().unwrap_or_else(|_| usage());
        } else if a.starts_with('-') || dir.is_some() {
            usage();
        } else {
            dir = Some(PathBuf::from(a));
        }
    }
    let dir = dir.unwrap_or_else(|| usage());
    if !dir.is_dir() {
        eprintln!("gen_instances: {} is not a directory", dir.display());
        exit(1);
    }
    if let Err(e) = run(&dir, max_m) {
        eprintln!("gen_instances: {e}");
        exit(1);
    }
}

fn run(dir: &Path, max_m: usize) -> Result<(), String> {
    instances::self_check();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (src, dst) in [("models/hpl_eq5.qe", "eq5.qe"), ("models/hpl_eq6.qe", "eq6.qe")] {
        std::fs::copy(root.join(src), dir.join(dst)).map_err(|e| format!("copying {src}: {e}"))?;
    }
    for &m in MS.iter().filter(|&&m| m <= max_m) {
        let t = Instant::now();
        let full = Data::new(m, MAX_K);
        eprintln!("m = {m}: data built in {:.2?}", t.elapsed());
        for &k in &KS {
            let data = full.with_k(k);
            let name = format!("cheb_m{m}_k{k}");
            let csv = dir.join(format!("{name}.csv"));
            let file = std::fs::File::create(&csv).map_err(|e| format!("{}: {e}", csv.display()))?;
            let mut w = BufWriter::new(file);
            data.write_csv(&mut w).and_then(|_| w.flush()).map_err(|e| format!("{}: {e}", csv.display()))?;

            let t = Instant::now();
            // The exact certificate check costs more than the solve for large m;
            // cheb_bench checks the same LP's certificate anyway.
            let verify = m <= 10000;
            let emax = solve_emax(&data.phi, &data.y, verify).map_err(|e| format!("{name}: {e}"))?;
            let theta = threshold_for(&emax);
            let (point_text, _) = point(k);
            let quoted: Vec<String> = point_text.iter().map(|s| format!("\"{s}\"")).collect();
            let json = format!(
                "{{\"threshold\": \"{}\", \"point\": [{}]}}\n",
                plain_decimal(&theta),
                quoted.join(", ")
            );
            let side = dir.join(format!("{name}.json"));
            std::fs::write(&side, json).map_err(|e| format!("{}: {e}", side.display()))?;
            eprintln!(
                "  {name}: e_max = {} (solved in {:.2?}), threshold = {}",
                fmt_sig(&emax, 8),
                t.elapsed(),
                plain_decimal(&theta)
            );
        }
    }
    Ok(())
}
