//! End-to-end tests of `errband energy` on the bundled examples: Kimura, Imada & Sato
//! Table 3's ideal regions (exact ΔE(n) and the paper's trends), the
//! synthetic MG profile (bands, outputs, plots), and bad inputs.

#[path = "common/cli.rs"]
mod cli;
use cli::*;

use serde_json::Value;

const IDEAL: &str = "data/energy_ideal.csv";
const MG: &str = "data/energy_mg.csv";

fn dec(v: &Value) -> f64 {
    v["decimal"].as_str().and_then(|s| s.parse().ok()).unwrap_or(f64::NAN)
}

#[test]
fn ideal_mem_comm_falls_with_exact_values() {
    let j = json(&["energy", IDEAL, "--regions", "mem,comm", "--nodes", "1,16,1024,inf"]);
    let p = j["predictions"].as_array().unwrap();
    // By hand: ΔE(n) = 1 − (204.435 + 53.115n)/(233 + 57n); n = 1: 649/5800; ∞: 259/3800.
    assert_eq!(j["errband"], env!("CARGO_PKG_VERSION"));
    assert_eq!(p[0]["delta_e"]["exact"], "649/5800");
    assert_eq!(p[0]["delta_e"]["decimal"], "0.111897");
    assert_eq!(p[3]["nodes"], "inf");
    assert_eq!(p[3]["delta_e"]["exact"], "259/3800");
    assert!(dec(&p[0]["delta_e"]) > dec(&p[1]["delta_e"]) && dec(&p[1]["delta_e"]) > dec(&p[2]["delta_e"]));
    let text = ok(&["energy", IDEAL, "--regions", "calc,comm", "--nodes", "1,1024"]);
    has(&text, &["ΔE(n) rises from 1.208% at n = 1", "fitted values"]);
}

#[test]
fn mg_profile_reports_fits_bands_and_all_formats() {
    let text = ok(&["energy", MG, "-t", "max", "-t", "2*max"]);
    has(
        &text,
        &[
            "base 2 nodes",
            "Regions",
            "Task fractions",
            "Predictions",
            "Energy shares of E_std at n = 4096",
            "@2*max",
        ],
    );
    let j = json(&["energy", MG, "--nodes", "16,inf"]);
    assert_eq!(j["regions"].as_array().unwrap().len(), 5);
    let fit = &j["regions"][0]["fits"][0];
    assert_eq!(fit["kind"], "alpha_p");
    assert_eq!(
        (fit["model"]["function"].as_str(), fit["model"]["body"].as_str()),
        (Some("T"), Some("A + B/n"))
    );
    let d = &j["predictions"][0]["delta_e"];
    let (lo, hi) = (
        d["bands"][0]["band"]["lower"]["exact"].as_str().unwrap().to_string(),
        d["bands"][0]["band"]["upper"]["exact"].as_str().unwrap().to_string(),
    );
    assert!(lo.contains('/') && hi.contains('/'), "exact fractions: {lo} {hi}");
    let csv = ok(&["energy", MG, "--nodes", "16", "--format", "csv"]);
    assert!(csv.starts_with("nodes,quantity,region,threshold,value,lower,upper\n"), "{csv}");
    assert!(csv.contains("16,delta_e,,max,"));
    assert!(csv.contains("16,share_opt,resid,max,"));
    let md = ok(&["energy", MG, "--nodes", "16", "--format", "md"]);
    has(&md, &["# errband energy", "| region |", "## Predictions"]);
    // Exact, forced frequency and EDP run end to end.
    has(&ok(&["energy", MG, "--nodes", "16", "--fopt", "psinv_coarse=2GHz", "--exact"]), &["2000 (forced)"]);
    ok(&["energy", MG, "--nodes", "16", "--objective", "edp", "--show-fit"]);
}

#[test]
fn output_is_deterministic_across_thread_counts() {
    let args = ["energy", MG, "--nodes", "2..64:*2", "--format", "json"];
    let a = ok(&args);
    let mut c = errband();
    c.args(args).env("RAYON_NUM_THREADS", "1");
    let b = String::from_utf8(c.output().unwrap().stdout).unwrap();
    assert_eq!(a, b);
}

#[test]
fn plots_are_written() {
    let delta = tmp_file("delta.svg", "");
    let shares = tmp_file("shares.svg", "");
    let ee = tmp_file("ee.svg", "");
    ok(&[
        "energy",
        MG,
        "--nodes",
        "2..4096:*4,inf",
        "--plot",
        &delta,
        "--plot",
        &format!("shares={shares}"),
        "--plot",
        &format!("ee={ee}"),
    ]);
    let d = std::fs::read_to_string(&delta).unwrap();
    assert!(d.starts_with("<svg") && d.contains("ΔE(n)") && d.contains("class=\"band\""), "{d}");
    assert!(d.contains("n → ∞"));
    let s = std::fs::read_to_string(&shares).unwrap();
    // 7 node counts (2..4096:*4 is 2, 8, …, 2048; plus ∞) × std/opt × 5 regions.
    assert_eq!(s.matches("class=\"segment\"").count(), 7 * 2 * 5, "{s}");
    assert!(std::fs::read_to_string(&ee).unwrap().contains("EE_opt"));
}

#[test]
fn bad_profiles_and_options_get_clear_errors() {
    let no_fstd = tmp_file("nofstd.csv", "region,nodes,freq,time,power\na,2,3000,1,100\na,2,2000,1.2,80\na,4,3000,0.6,100\nb,2,2000,1,80\nb,4,2000,0.6,80\n");
    has(
        &fails(&["energy", &no_fstd], 2).stderr,
        &["region `b` has no measurement at f_std = 3000 MHz", ":5:"],
    );
    let one_n = tmp_file("onen.csv", "region,nodes,freq,time,power\na,2,3000,1,100\na,2,2000,1.2,80\n");
    has(&fails(&["energy", &one_n], 2).stderr, &["one node count only"]);
    let no_power =
        tmp_file("nop.csv", "region,nodes,freq,time,power\na,2,3000,1,\na,2,2000,1.2,\na,4,3000,0.6,\n");
    has(&fails(&["energy", &no_power], 2).stderr, &["has no power at f_std"]);
    let nan = tmp_file("nan.csv", "region,nodes,freq,time,power\na,2,3000,NaN,1\n");
    has(&fails(&["energy", &nan], 2).stderr, &["nan.csv:2:", "not a finite number"]);
    let cols = tmp_file("cols.csv", "region,nodes,time\na,2,1\n");
    has(&fails(&["energy", &cols], 2).stderr, &["no column `freq`, `power`"]);
    fails(&["energy", MG, "--nodes", "0"], 2);
    fails(&["energy", MG, "--nodes", "1.5"], 2);
    fails(&["energy", MG, "--fstd", "3 parsecs"], 2);
    fails(&["energy", MG, "--plot", "pie=x.svg"], 2);
    has(&fails(&["energy", MG, "--regions", "nope"], 2).stderr, &["no region `nope`"]);
    has(&fails(&["energy", MG, "-t", "0.5*emax"], 1).stderr, &["below e_max"]);
    has(&fails(&["energy", IDEAL, "--fopt", "mem=2500"], 2).stderr, &["--fopt needs a profile"]);
    fails(&["energy", "no/such/file.csv"], 2);
}
