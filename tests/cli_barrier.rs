//! End-to-end tests of `errband barrier`: the paper's SCMD setting, the
//! bundled MPI_Barrier model and synthetic data (bands, crossover, outputs,
//! plot), intervals, and bad inputs.

#[path = "common/cli.rs"]
mod cli;
use cli::*;

const MODEL: &str = "models/mpi_barrier.tm";
const DATA: &str = "data/mpi_barrier.csv";

#[test]
fn scmd_setting_reproduces_the_paper_formula() {
    let j =
        json(&["barrier", "--nodes", "2..30", "--per-chassis", "3", "--t-ib", "3.86us", "--t-sr", "60us"]);
    let rows = j["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 29);
    for r in rows {
        let n = r["nodes"].as_u64().unwrap();
        let want = match n {
            2..=3 => serde_json::Value::Null,
            4..=12 => 0.into(),
            _ => 1.into(),
        };
        assert_eq!(r["inter_levels"], want, "N = {n}");
    }
    // T_EB = T_IB on one chassis; 7·3.86 + 6·60 = 387.02 µs at N = 30, exactly (in s).
    // Every exact value in the shared shape, with the version key.
    assert_eq!(j["errband"], env!("CARGO_PKG_VERSION"));
    assert_eq!(rows[0]["cases"][0]["t_eb"]["lower"]["exact"], "193/50000000");
    assert_eq!(rows[0]["cases"][0]["t_eb"]["lower"]["decimal"], "3.86e-6");
    assert_eq!(rows[28]["cases"][0]["t_eb"]["lower"]["exact"], "19351/50000000");
    assert_eq!(rows[28]["cases"][0]["t_eb"]["upper"]["exact"], "19351/50000000");
    assert_eq!(rows[28]["chassis_per_level"], serde_json::json!([1, 3, 6]));
    // No reference: T_EB only.
    assert!(j["reference"].is_null());
    let text = ok(&["barrier", "--nodes", "30", "--t-sr", "60us"]);
    has(&text, &["3 nodes per chassis, root fan-out 3, inter-level fan-out 2", "387.02"]);
}

#[test]
fn constant_reference_gives_an_exact_crossover_that_round_trips() {
    let j = json(&["barrier", "--nodes", "30", "--t-sr", "60us", "--mpi", "500us"]);
    // (500 − 7·3.86)/6 µs = 472.98/6 µs.
    let x = j["rows"][0]["crossover_t_sr"][0]["band"]["lower"]["exact"].as_str().unwrap().to_string();
    assert_eq!(x, "7883/100000000"); // 78.83 µs
                                     // Plugging it back as T_SR gives a tie.
    let xs = format!("{}s", x);
    let j2 = json(&["barrier", "--nodes", "30", "--t-sr", &xs, "--mpi", "500us"]);
    assert_eq!(j2["rows"][0]["cases"][0]["versus"][0]["winner"], "tie");
    assert_eq!(j2["rows"][0]["cases"][0]["versus"][0]["margin"]["lower"]["exact"], "0");
    let text = ok(&["barrier", "--nodes", "2..30", "--mpi", "500us", "--at", "30"]);
    has(&text, &["At N = 30 (L_i = 1) the chassis network wins for T_SR below 78.83 us"]);
}

#[test]
fn model_reference_carries_its_band_into_every_comparison() {
    let args = [
        "barrier",
        "--nodes",
        "2..120",
        "--mpi-model",
        MODEL,
        "--mpi-data",
        DATA,
        "-t",
        "max",
        "-t",
        "2*max",
        "--at",
        "30",
    ];
    let text = ok(&args);
    has(&text, &[
        "MPI_Barrier: model models/mpi_barrier.tm fitted to data/mpi_barrier.csv",
        "MPI @max",
        "T_SR* @2*max",
        "band at threshold max",
        "At N = 30 (L_i = 1) the chassis network wins for T_SR below 89.7818 us; with the band at threshold max: for T_SR below [87.6792, 93.227] us",
    ]);
    let j = json(&args);
    assert_eq!(j["reference"]["kind"], "model");
    assert_eq!(j["columns"].as_array().unwrap().len(), 3);
    let r30 = j["rows"].as_array().unwrap().iter().find(|r| r["nodes"] == 30).unwrap();
    let num = |v: &serde_json::Value| -> f64 {
        let s = v["exact"].as_str().unwrap();
        let (a, b) = s.split_once('/').unwrap_or((s, "1"));
        a.parse::<f64>().unwrap() / b.parse::<f64>().unwrap()
    };
    // The fitted value lies in the band at max, which lies in the band at 2*max.
    let fit = num(&r30["mpi"][0]["band"]["lower"]);
    let (lo1, hi1) = (num(&r30["mpi"][1]["band"]["lower"]), num(&r30["mpi"][1]["band"]["upper"]));
    let (lo2, hi2) = (num(&r30["mpi"][2]["band"]["lower"]), num(&r30["mpi"][2]["band"]["upper"]));
    assert!(lo2 <= lo1 && lo1 <= fit && fit <= hi1 && hi1 <= hi2, "{lo2} {lo1} {fit} {hi1} {hi2}");
    let x = |k: usize| &r30["crossover_t_sr"][k]["band"];
    assert!(num(&x(2)["lower"]) <= num(&x(1)["lower"]) && num(&x(1)["upper"]) <= num(&x(2)["upper"]));
    // --show-fit prints the model's own analysis first.
    let shown = ok(&["barrier", "--nodes", "30", "--mpi-model", MODEL, "--mpi-data", DATA, "--show-fit"]);
    has(&shown, &["Model   T(N) = c0 + c1*log2(N)", "e_max =", "Chassis tree:"]);
}

#[test]
fn intervals_give_interval_results_and_all_formats_render() {
    let j = json(&[
        "barrier",
        "--nodes",
        "30",
        "--t-ib",
        "2.7us..3.86us",
        "--t-sr",
        "40us..120us",
        "--mpi",
        "500us",
    ]);
    let r = &j["rows"][0];
    // 7·2.7 + 6·40 = 258.9 µs; 7·3.86 + 6·120 = 747.02 µs.
    assert_eq!(r["cases"][0]["t_eb"]["lower"]["exact"], "2589/10000000");
    assert_eq!(r["cases"][0]["t_eb"]["upper"]["exact"], "37351/50000000"); // 747.02 µs
    assert_eq!(r["cases"][0]["versus"][0]["winner"], "undecided");
    let csv =
        ok(&["barrier", "--nodes", "4,30", "--t-sr", "20us..60us:20us", "--mpi", "120us", "--format", "csv"]);
    assert!(csv.starts_with("nodes,chassis,inter_levels,quantity,unit,t_sr_case,column,lower,upper,winner\n"));
    // 2 node counts × 3 T_SR cases of T_EB.
    assert_eq!(csv.lines().filter(|l| l.contains(",t_eb,")).count(), 6);
    assert!(csv.contains("30,10,1,t_eb,us,20 us,,147.02,147.02,"));
    let md = ok(&["barrier", "--nodes", "2..13", "--mpi", "120us", "--format", "md"]);
    has(&md, &["# errband barrier", "| N | chassis | L\\_i |", "## Summary"]);
    let dir = tmp_dir();
    let svg = dir.join("barrier.svg");
    let svg_s = svg.to_str().unwrap();
    ok(&[
        "barrier",
        "--nodes",
        "2..120",
        "--t-sr",
        "60us,40us..120us",
        "--mpi-model",
        MODEL,
        "--mpi-data",
        DATA,
        "-t",
        "max",
        "--plot",
        svg_s,
    ]);
    let s = std::fs::read_to_string(&svg).unwrap();
    has(
        &s,
        &[
            "<svg",
            "MPI_Barrier band (threshold max)",
            "MPI_Barrier (fitted model)",
            "T_EB, T_SR = 60 us",
            "T_EB, T_SR = 40..120 us",
        ],
    );
}

#[test]
fn bad_inputs_get_clear_errors() {
    let cases: &[(&[&str], i32, &str)] = &[
        (&["barrier", "--nodes", "1..4"], 2, "at least 2 nodes"),
        (&["barrier", "--nodes", "2.5"], 2, "not a node count"),
        (&["barrier", "--per-chassis", "0"], 2, "--per-chassis 0"),
        (&["barrier", "--t-sr", "-5us"], 2, "negative"),
        (&["barrier", "--t-ib", "3 parsecs"], 2, "unknown unit `parsecs`"),
        (&["barrier", "--t-sr", "120us..40us"], 2, "lower end exceeds"),
        (&["barrier", "--t-ib", "1us,2us"], 2, "not a list"),
        (&["barrier", "--time-unit", "furlongs"], 2, "--time-unit: unknown unit"),
        // The old spelling still works for this release, and the message names the new one.
        (&["barrier", "--unit", "furlongs"], 2, "--time-unit: unknown unit"),
        (&["barrier", "--mpi", "120us", "--mpi-model", MODEL, "--mpi-data", DATA], 2, "cannot be used with"),
        (&["barrier", "--mpi-model", MODEL], 2, "--mpi-data"),
        (&["barrier", "--nodes", "4", "--conclude-at", "30", "--mpi", "1ms"], 2, "--conclude-at 30"),
        (&["barrier", "--nodes", "4", "--at", "30", "--mpi", "1ms"], 2, "--conclude-at 30"),
        (&["barrier", "--per-chassis", "1", "--nodes", "2..5"], 2, "inter-level fan-out 0"),
        (&["barrier", "--mpi-model", MODEL, "--mpi-data", DATA, "-t", "0.5*emax"], 1, "below e_max"),
    ];
    for (args, code, needle) in cases {
        let r = fails(args, *code);
        assert!(r.stderr.contains(needle), "{args:?}: expected `{needle}` in\n{}", r.show());
    }
    // A model without a time unit, and one with two variables.
    let m = tmp_file("nounit.tm", "T(N) = c0 + c1*N\nparam c0, c1\n");
    let d = tmp_file("mpi.csv", "N,T\n2,120\n4,200\n8,300\n");
    let r = fails(&["barrier", "--mpi-model", &m, "--mpi-data", &d], 2);
    assert!(r.stderr.contains("states no time unit"), "{}", r.show());
    let m2 = tmp_file("two.tm", "T(N, p) = c0 + c1*N + p\nparam c0, c1\nunit T = us\n");
    let d2 = tmp_file("two.csv", "N,p,T\n2,1,120\n4,1,200\n8,1,300\n");
    let r = fails(&["barrier", "--mpi-model", &m2, "--mpi-data", &d2], 2);
    assert!(r.stderr.contains("exactly one"), "{}", r.show());
}
