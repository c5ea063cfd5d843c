//! Times errband's exact LPs on one Chebyshev residual instance written by
//! `gen_instances` (used by `benches/compare/compare.py`).
//!
//! ```text
//! cheb_bench [-v] [--no-verify] FILE.csv
//! ```
//!
//! Reads `FILE.csv` (header `phi1,...,phiK,y`; every cell parsed exactly with
//! `parse_rat`) and the sidecar `FILE.json` (`threshold`, `point`), then times
//! in-process:
//! 1. `e_max` = min e s.t. `-e <= phi_i·c - y_i <= e` (`Prepared::new` included);
//! 2. the band: one `Prepared` for `|phi_i·c - y_i| <= threshold`, then min and
//!    max of `point·c` (`Prepared::new` and both solves included).
//!
//! Prints one JSON line:
//! `{"m":M,"k":K,"emax":"p/q","emax_ms":f,"band_ms":f,"band_lo":"p/q","band_hi":"p/q"}`.
//! Every certificate is verified exactly (outside the timed region); exits 1
//! if an LP is not optimal or a certificate fails.
//!
//! `-v` prints the untimed phases (reading, row building, certificate checks)
//! to stderr. `--no-verify` skips the certificate checks, e.g. to measure the
//! peak memory of the solves alone with `/usr/bin/time -v`.

#[path = "../benches/instances.rs"]
mod instances;

use errband::lp::{LpOutcome, Prepared, Sense};
use errband::num::{fmt_fraction, parse_rat, Rat};
use instances::{band_rows, emax_objective, emax_rows, outcome_name};
use std::path::{Path, PathBuf};
use std::process::exit;
use std::time::Instant;

fn fail(msg: impl std::fmt::Display) -> ! {
    eprintln!("cheb_bench: {msg}");
    exit(1);
}

fn read_csv(path: &Path) -> Result<(Vec<Vec<Rat>>, Vec<Rat>), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let (_, head) = lines.next().ok_or_else(|| format!("{}: empty file", path.display()))?;
    let head: Vec<&str> = head.split(',').map(str::trim).collect();
    if head.len() < 2 || head[head.len() - 1] != "y" {
        return Err(format!("{}: header must be phi1,...,phiK,y", path.display()));
    }
    let k = head.len() - 1;
    let (mut phi, mut y) = (Vec::new(), Vec::new());
    for (no, line) in lines {
        let cells: Vec<&str> = line.split(',').collect();
        if cells.len() != k + 1 {
            return Err(format!("{}:{}: {} cells, expected {}", path.display(), no + 1, cells.len(), k + 1));
        }
        let mut row = Vec::with_capacity(k);
        for c in &cells[..k] {
            row.push(parse_rat(c).map_err(|e| format!("{}:{}: {e}", path.display(), no + 1))?);
        }
        y.push(parse_rat(cells[k]).map_err(|e| format!("{}:{}: {e}", path.display(), no + 1))?);
        phi.push(row);
    }
    if y.is_empty() {
        return Err(format!("{}: no data rows", path.display()));
    }
    Ok((phi, y))
}

fn json_rat(v: &serde_json::Value, what: &str) -> Result<Rat, String> {
    let text = match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Number(n) => n.to_string(),
        _ => return Err(format!("sidecar: {what} must be a decimal string")),
    };
    parse_rat(&text).map_err(|e| format!("sidecar: {what}: {e}"))
}

fn read_sidecar(path: &Path, k: usize) -> Result<(Rat, Vec<Rat>), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let theta = json_rat(v.get("threshold").ok_or("sidecar: no \"threshold\"")?, "threshold")?;
    let pts = v.get("point").and_then(|p| p.as_array()).ok_or("sidecar: no \"point\" array")?;
    let point = pts.iter().map(|p| json_rat(p, "point")).collect::<Result<Vec<_>, _>>()?;
    if point.len() != k {
        return Err(format!("sidecar: point has {} entries, the CSV has {k} basis columns", point.len()));
    }
    Ok((theta, point))
}

fn optimum(out: LpOutcome, what: &str) -> Rat {
    match out {
        LpOutcome::Optimal(o) => o.value,
        other => fail(format!("{what}: LP is {}, expected an optimum", outcome_name(&other))),
    }
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let (mut verbose, mut verify, mut file) = (false, true, None);
    for a in std::env::args().skip(1) {
        match a.as_str() {
            "-v" | "--verbose" => verbose = true,
            "--no-verify" => verify = false,
            _ if a.starts_with('-') || file.is_some() => {
                eprintln!("usage: cheb_bench [-v] [--no-verify] FILE.csv");
                exit(2);
            }
            _ => file = Some(a),
        }
    }
    let Some(file) = file else {
        eprintln!("usage: cheb_bench [-v] [--no-verify] FILE.csv");
        exit(2);
    };
    let phase = |what: &str, t: Instant| {
        if verbose {
            eprintln!("cheb_bench: {what}: {:.1} ms", ms(t.elapsed()));
        }
    };
    let csv = PathBuf::from(file);
    let t = Instant::now();
    let (phi, y) = read_csv(&csv).unwrap_or_else(|e| fail(e));
    let (m, k) = (y.len(), phi[0].len());
    let (theta, point) = read_sidecar(&csv.with_extension("json"), k).unwrap_or_else(|e| fail(e));
    phase("read (untimed)", t);

    // 1. e_max.
    let t = Instant::now();
    let obj = emax_objective(k);
    let rows = emax_rows(&phi, &y);
    phase("e_max rows (untimed)", t);
    let t = Instant::now();
    let prep = Prepared::new(k + 1, rows).unwrap_or_else(|e| fail(e));
    let out = prep.optimize(&obj, Sense::Minimize).unwrap_or_else(|e| fail(e));
    let emax_ms = ms(t.elapsed());
    phase("e_max (timed)", t);
    let t = Instant::now();
    if verify {
        if let Err(e) = out.verify(&prep, &obj, Sense::Minimize) {
            fail(format!("e_max certificate does not verify: {e}"));
        }
        phase("e_max certificate check (untimed)", t);
    }
    let emax = optimum(out, "e_max");
    drop(prep);

    // 2. band: one Prepared, min and max of point·c.
    let t = Instant::now();
    let rows = band_rows(&phi, &y, &theta);
    phase("band rows (untimed)", t);
    let t = Instant::now();
    let prep = Prepared::new(k, rows).unwrap_or_else(|e| fail(e));
    let lo = prep.optimize(&point, Sense::Minimize).unwrap_or_else(|e| fail(e));
    let hi = prep.optimize(&point, Sense::Maximize).unwrap_or_else(|e| fail(e));
    let band_ms = ms(t.elapsed());
    phase("band (timed)", t);
    let t = Instant::now();
    if verify {
        for (out, sense, what) in [(&lo, Sense::Minimize, "band min"), (&hi, Sense::Maximize, "band max")] {
            if let Err(e) = out.verify(&prep, &point, sense) {
                fail(format!("{what} certificate does not verify: {e}"));
            }
        }
        phase("band certificate checks (untimed)", t);
    }
    let lo = optimum(lo, "band min");
    let hi = optimum(hi, "band max");

    println!(
        "{{\"m\":{m},\"k\":{k},\"emax\":\"{}\",\"emax_ms\":{emax_ms:.4},\"band_ms\":{band_ms:.4},\"band_lo\":\"{}\",\"band_hi\":\"{}\"}}",
        fmt_fraction(&emax),
        fmt_fraction(&lo),
        fmt_fraction(&hi)
    );
}
