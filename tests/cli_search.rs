//! End-to-end tests of `errband prune`, `errband plan`, the plots and the
//! whole reports: the paper's pruning claim (Orii & Anai section 4.4: without
//! p = 110 the band at p = 1000 is much narrower) with its exact ratio,
//! determinism across runs and thread counts, SVG structure, and errors.

#[path = "common/cli.rs"]
mod cli;
use cli::*;

use serde_json::Value;

const HPL: &str = "models/hpl.tm";
const HPL_DATA: &str = "data/hpl.csv";

/// `errband prune` on HPL, unweighted, threshold `max`, target p = 1000.
fn hpl_prune(extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = ["prune", HPL, HPL_DATA, "--unweighted", "-t", "max", "--target", "p=1000"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

fn args(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn leave_one_out_ranks_p110_first_and_its_band_is_much_narrower() {
    let a = hpl_prune(&["--greedy", "0"]);
    let j = json(&args(&a));
    let c = &j["candidates"];
    assert_eq!(c.as_array().map(Vec::len), Some(12));
    assert_eq!(c[0]["drop"][0]["p"], "110");
    let b = &c[0]["fit"]["bands"][0];
    // The exact ratio of the band widths at p = 1000 (pruned / all data).
    assert_eq!(b["ratio"]["exact"], "30676214996027389577646/135701998323536093909173");
    assert_eq!(b["ratio"]["decimal"], "0.226056");
    assert_eq!(b["band"]["width"]["exact"], "4223681537203/4721292100");
    assert_eq!(j["unpruned"]["bands"][0]["band"]["width"]["exact"], "2874255509917213/726290908200");
    // The runner-up narrows it far less.
    let second: f64 =
        c[1]["fit"]["bands"][0]["ratio"]["decimal"].as_str().and_then(|s| s.parse().ok()).unwrap_or(0.0);
    assert!(second > 0.8, "{second}");
    let text = ok(&args(&a));
    has(&text, &["Best: dropping p=110 narrows the band", "(×0.226)", "12 candidates (12 leave-one-out)"]);
    let mut exact = a.clone();
    exact.push("--exact".into());
    has(&ok(&args(&exact)), &["e_max = 1101248/81125", "width 4223681537203/4721292100"]);
}

#[test]
fn pairs_user_candidates_and_greedy_steps_are_compared_and_merged() {
    let a =
        hpl_prune(&["--max-drop", "2", "--candidate", "p=110", "--candidate", "p=10,p=20", "--show", "0"]);
    let j = json(&args(&a));
    let c = j["candidates"].as_array().cloned().unwrap_or_default();
    // 12 singles + 66 pairs + the third greedy step (three points); the
    // user candidates and the first two greedy steps are among them.
    assert_eq!(c.len(), 79);
    let p110 = c.iter().find(|x| x["drop"].as_array().map(Vec::len) == Some(1) && x["drop"][0]["p"] == "110");
    let sources: Vec<&str> = p110
        .and_then(|x| x["sources"].as_array())
        .map(|s| s.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    assert_eq!(sources, ["leave-one-out", "candidate p=110", "greedy 1"]);
    let pair = c.iter().find(|x| x["drop"][0]["p"] == "10" && x["drop"][1]["p"] == "20");
    assert!(pair.is_some_and(|x| x["sources"].to_string().contains("candidate p=10,p=20")));
    // Candidates whose band stays inside the unpruned one come first; within
    // each group the ranking key never decreases.
    let leaves: Vec<bool> = c.iter().map(|x| x["leaves_unpruned_band"].as_bool().unwrap_or(true)).collect();
    assert!(leaves.windows(2).all(|w| w[0] <= w[1]), "{leaves:?}");
    assert!(leaves.contains(&false) && leaves.contains(&true));
    for group in [false, true] {
        let keys: Vec<f64> = c
            .iter()
            .zip(&leaves)
            .filter(|(_, l)| **l == group)
            .filter_map(|(x, _)| x["rank_key"]["decimal"].as_str().and_then(|s| s.parse().ok()))
            .collect();
        assert!(keys.windows(2).all(|w| w[0] <= w[1]), "{keys:?}");
    }
    let text = ok(&args(&a));
    has(&text, &["79 candidates (12 leave-one-out, 66 pairs, 2 user, 3 greedy steps)"]);
}

#[test]
fn prune_and_plan_do_not_depend_on_the_thread_count_or_the_run() {
    let a = hpl_prune(&["--max-drop", "2", "--format", "json"]);
    let mut one = a.clone();
    one.extend(["-j".into(), "1".into()]);
    let mut two = a.clone();
    two.extend(["-j".into(), "2".into()]);
    let r1 = ok(&args(&one));
    assert_eq!(r1, ok(&args(&two)));
    assert_eq!(r1, ok(&args(&two)));
    let p = ["plan", HPL, HPL_DATA, "--target", "p=1000", "--candidates", "p=130..300:10", "--format", "csv"];
    let base = ok(&p);
    let mut p1 = p.to_vec();
    p1.extend(["-j", "1"]);
    assert_eq!(base, ok(&p1));
    assert_eq!(base, ok(&p));
}

#[test]
fn plan_ranks_far_points_first_with_exact_expected_and_worst_widths() {
    let j = json(&[
        "plan",
        HPL,
        HPL_DATA,
        "--unweighted",
        "-t",
        "max",
        "--target",
        "p=1000",
        "--candidates",
        "p=130..300",
        "step",
        "10",
    ]);
    let c = j["candidates"].as_array().cloned().unwrap_or_default();
    assert_eq!(c.len(), 18);
    assert_eq!(c[0]["point"]["p"], "300");
    let cur: f64 =
        j["current"][0]["band"]["width"]["decimal"].as_str().and_then(|s| s.parse().ok()).unwrap_or(0.0);
    for x in &c {
        let e: f64 = x["bands"][0]["expected"]["width"]["decimal"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .unwrap_or(-1.0);
        let w: f64 =
            x["bands"][0]["worst"]["width"]["decimal"].as_str().and_then(|s| s.parse().ok()).unwrap_or(-1.0);
        assert!(0.0 < e && e <= w && w <= cur, "{e} {w} {cur}");
    }
    let text = ok(&["plan", HPL, HPL_DATA, "--target", "p=1000", "--candidate", "p=200,300"]);
    has(&text, &["expected: the new measurement equals the model's prediction", "Best: measure at p = 300"]);
}

#[test]
fn search_errors_are_clear() {
    let r = fails(&["prune", HPL, HPL_DATA, "--target", "p=1000", "--candidate", "p=115"], 2);
    has(&r.stderr, &["--candidate p=115: p = 115", "no measurement is at that point"]);
    let r = fails(&["prune", HPL, HPL_DATA, "--target", "q=1000"], 2);
    has(&r.stderr, &["q"]);
    let r = fails(&["prune", HPL, HPL_DATA, "--max-drop", "0", "--greedy", "0"], 2);
    has(&r.stderr, &["nothing to compare"]);
    let r = fails(&["prune", "models/pn.tm", "data/pn.csv", "--max-drop", "40"], 2);
    has(&r.stderr, &["candidates (limit 10000)", "--top N"]);
    // A plan's candidate points are counted before the first re-analysis:
    // 100 000 are refused at once, naming the flag that raises the limit.
    let r = fails(&["plan", HPL, HPL_DATA, "--target", "p=1000", "--candidates", "p=1..100000"], 2);
    has(&r.stderr, &["100000 candidate points", "(limit 10000; raise it with --max-candidates)"]);
    assert!(r.secs < 2.0, "refused after {:.2} s of CPU time", r.secs);
    // Every leave-one-out of a 2-parameter fit on 2 points fails: reported per candidate, not a crash.
    let data = tmp_file("two.csv", "p,T\n1,5\n2,4\n");
    let model = tmp_file("two.tm", "T(p) = a + b/p\nparam a, b\n");
    let out = ok(&["prune", &model, &data, "--target", "p=4", "--greedy", "0"]);
    has(&out, &["failed: too few points left (1 for 2 parameters)"]);
    let r = fails(
        &["plan", HPL, HPL_DATA, "--target", "p=1000", "--candidates", "p=200", "--format", "latex"],
        2,
    );
    has(&r.stderr, &["no LaTeX output"]);
    let r = fails(&["plan", HPL, HPL_DATA, "--target", "p=1000"], 2);
    has(&r.stderr, &["--candidate <POINTS>"]);
}

/// `points="x,y x,y …"` of every `<polygon class="region">`.
fn polygons(svg: &str) -> Vec<usize> {
    svg.split("<polygon class=\"region\"")
        .skip(1)
        .filter_map(|p| {
            p.split("points=\"").nth(1)?.split('"').next().map(|pts| pts.split_whitespace().count())
        })
        .collect()
}

#[test]
fn region_plot_polygon_has_one_point_per_region_vertex() {
    let dir = tmp_file("plots", "");
    std::fs::remove_file(&dir).ok();
    std::fs::create_dir_all(&dir).ok();
    let region = format!("{dir}/region.svg");
    let j = json(&[HPL, HPL_DATA, "-t", "max", "-t", "1.2*emax", "--plot", &format!("region={region}")]);
    let svg = std::fs::read_to_string(&region).unwrap_or_default();
    let counts: Vec<usize> = polygons(&svg);
    // Largest threshold drawn first.
    let want: Vec<usize> = {
        let mut r: Vec<(f64, usize)> = j["regions"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|r| {
                        (
                            r["threshold"]["absolute"]["decimal"]
                                .as_str()
                                .and_then(|s| s.parse().ok())
                                .unwrap_or(0.0),
                            r["vertices"].as_array().map(Vec::len).unwrap_or(0),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        r.sort_by(|a, b| b.0.total_cmp(&a.0));
        r.into_iter().map(|x| x.1).collect()
    };
    assert_eq!(counts, want);
    assert_eq!(counts[0], 6);
    assert_eq!(svg.matches("class=\"vertex\"").count(), want.iter().sum::<usize>());
    // Three parameters: pairwise projections in one SVG.
    let pn = format!("{dir}/pn-region.svg");
    ok(&["models/pn.tm", "data/pn.csv", "-t", "max", "--plot", &format!("region={pn}")]);
    let svg = std::fs::read_to_string(&pn).unwrap_or_default();
    has(&svg, &["projection onto (dc0, dc1)", "projection onto (dc0, dc2)", "projection onto (dc1, dc2)"]);
}

#[test]
fn plots_and_reports_are_written_with_units_and_self_contained() {
    let dir = tmp_file("reports", "");
    std::fs::remove_file(&dir).ok();
    std::fs::create_dir_all(&dir).ok();
    let band = format!("{dir}/band.svg");
    let res = format!("{dir}/res.svg");
    let width = format!("{dir}/width.svg");
    let html = format!("{dir}/r.html");
    let md = format!("{dir}/r.md");
    ok(&[
        HPL,
        HPL_DATA,
        "--plot",
        &band,
        "--plot",
        &format!("residuals={res}"),
        "--plot",
        &format!("width={width}"),
        "--report",
        &html,
    ]);
    let b = std::fs::read_to_string(&band).unwrap_or_default();
    has(
        &b,
        &["<svg", "p [processors]", "T [s]", "class=\"band\"", "class=\"extrapolation\"", "measurements"],
    );
    assert!(b.contains("10⁴"), "log axes for values spanning decades");
    let lin = format!("{dir}/lin.svg");
    ok(&[HPL, HPL_DATA, "--xscale", "linear", "--yscale", "linear", "--plot", &lin]);
    assert!(!std::fs::read_to_string(&lin).unwrap_or_default().contains("10⁴"));
    // HPL is fitted with weight p: the residuals are shown in the fit's scale, as the paper's Fig. 8.
    has(&std::fs::read_to_string(&res).unwrap_or_default(), &["class=\"stem\"", "w(x_i)·e_i", "weight p"]);
    let ures = format!("{dir}/ures.svg");
    ok(&[HPL, HPL_DATA, "--unweighted", "--plot", &format!("residuals={ures}")]);
    has(&std::fs::read_to_string(&ures).unwrap_or_default(), &["±e_max", "e_i = T(C, x_i) − d_i [s]"]);
    has(&std::fs::read_to_string(&width).unwrap_or_default(), &["p = 1000", "threshold e′ [s]"]);
    let h = std::fs::read_to_string(&html).unwrap_or_default();
    has(&h, &["<!DOCTYPE html>", "<svg", "Band as a function of p", "1101248/81125"]);
    assert_eq!(h.matches("<svg").count(), 4);
    for bad in ["<script", "<img", "src=\"http", "href=\"http", "<link"] {
        assert!(!h.contains(bad), "HTML report contains {bad}");
    }
    ok(&[HPL, HPL_DATA, "--report", &md]);
    let m = std::fs::read_to_string(&md).unwrap_or_default();
    has(&m, &["![Data, fitted model", "(r-band.svg)", "(r-region.svg)", "## Band as a function"]);
    for k in ["band", "region", "residuals", "width"] {
        let f = format!("{dir}/r-{k}.svg");
        assert!(std::fs::read_to_string(&f).is_ok_and(|s| s.starts_with("<svg")), "{f}");
    }
    let pr = format!("{dir}/prune.html");
    let pm = format!("{dir}/plan.md");
    ok(&["prune", HPL, HPL_DATA, "--target", "p=1000", "--report", &pr]);
    has(&std::fs::read_to_string(&pr).unwrap_or_default(), &["<svg", "Best: dropping", "<pre>"]);
    ok(&["plan", HPL, HPL_DATA, "--target", "p=1000", "--candidates", "p=200,300", "--report", &pm]);
    has(&std::fs::read_to_string(&pm).unwrap_or_default(), &["![chart](plan-chart.svg)", "Best: measure at"]);
    assert!(std::fs::read_to_string(format!("{dir}/plan-chart.svg")).is_ok_and(|s| s.starts_with("<svg")));
    let r = fails(&[HPL, HPL_DATA, "--report", &format!("{dir}/r.pdf")], 2);
    has(&r.stderr, &[".html or .md"]);
    let r = fails(&[HPL, HPL_DATA, "--plot", "pie=x.svg"], 2);
    has(&r.stderr, &["KIND one of band, region, residuals, width"]);
    let r = fails(&[HPL, HPL_DATA, "--plot", "/nonexistent/dir/x.svg"], 2);
    has(&r.stderr, &["--plot /nonexistent/dir/x.svg", "the directory `/nonexistent/dir` does not exist"]);
}

#[test]
fn envelope_breakpoints_of_hpl_are_its_data_points_exactly() {
    let j = json(&[HPL, HPL_DATA, "-t", "max", "--envelope"]);
    let env = &j["band_function"]["envelopes"][0];
    let ends: Vec<&str> = env["upper"]
        .as_array()
        .map(|a| a.iter().filter_map(|p| p["to"]["exact"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(ends, ["50", "80", "100", "120", "10000"]);
    assert!(env["upper"].as_array().is_some_and(|a| a.iter().all(|p| p["to_exact"] == true)));
    let curve = &j["band_function"]["width_vs_threshold"][2];
    assert_eq!(curve["point"]["p"], "1000");
    assert_eq!(curve["breakpoints"][0]["value"]["exact"], "1101248/81125");
    assert_eq!(curve["breakpoints"][0]["band"]["width"]["exact"], "0");
}
