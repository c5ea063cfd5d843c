//! Whole experiments from the command line: every series of an Extra-P
//! file (or every `--by` group of a CSV file) in one run, on Extra-P's own
//! test inputs in `../shared/extrap-data/` (BSD-3).

#[path = "common/cli.rs"]
mod cli;
use cli::*;

use std::collections::BTreeMap;

const EXTRAP: &str = "../shared/extrap-data/tests/data";

/// The RELeARN measurements: 14 callpaths, each with the metric `time`,
/// over p and n; region names hold `#` and runs of spaces.
#[test]
fn relearn_all_callpaths_in_one_run_with_the_files_values() {
    let model =
        tmp_file("rl.tm", "T(p, n) = c0 + c1*p + c2*n\nparam c0, c1, c2\npredict p = 1024, n = 10000\n");
    let data = format!("{EXTRAP}/text/mpa/relearn_data.txt");
    let doc = json(&[&model, &data]);
    assert_eq!(doc["experiment"]["format"], "Extra-P text");
    assert_eq!(doc["experiment"]["series"], 14);
    let analyses = doc["analyses"].as_array().unwrap();
    assert_eq!(analyses.len(), 14);
    let names: Vec<&str> = analyses.iter().map(|a| a["callpath"].as_str().unwrap()).collect();
    assert!(names.contains(&"Update #synaptic elements delta"), "{names:?}");
    assert!(names.contains(&"Update #synaptic elements + del synapses"), "{names:?}");
    assert!(
        analyses
            .iter()
            .all(|a| a["metric"] == "time" && a["report"]["params"].as_array().is_some_and(|p| p.len() == 3)),
        "every series fitted"
    );

    // The measured values equal the file's DATA tokens, line by line.
    let text = std::fs::read_to_string(root().join(&data)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    for a in analyses {
        for r in a["report"]["residuals"].as_array().unwrap() {
            let line = r["line"].as_u64().unwrap() as usize;
            let tokens: Vec<&str> = lines[line - 1].split_whitespace().skip(1).collect();
            let measured = r["measured"]["exact"].as_str().unwrap();
            let exact: Vec<String> = tokens.iter().map(|t| exact_of(t)).collect();
            assert!(exact.iter().any(|e| e == measured), "line {line}: {measured} not in {tokens:?}");
        }
    }
    // The table leads the text report, one row per series.
    let out = ok(&[&model, &data]);
    let table: Vec<&str> = out.lines().skip_while(|l| !l.starts_with("series")).take(15).collect();
    assert_eq!(table.len(), 15, "{out}");
    assert!(table[1..].iter().all(|l| l.ends_with("time") || l.contains(" / time ")), "{out}");
}

/// A decimal token as the exact fraction errband prints (`406.498` →
/// `203249/500`, `4.4e-08` → `11/250000000`), computed independently.
fn exact_of(t: &str) -> String {
    let (mantissa, exp) = t.split_once(['e', 'E']).unwrap_or((t, "0"));
    let exp: i32 = exp.parse().unwrap();
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut num: i128 = format!("{int}{frac}").parse().unwrap();
    let shift = frac.len() as i32 - exp;
    let mut den: i128 = 10i128.pow(shift.max(0) as u32);
    num *= 10i128.pow((-shift).max(0) as u32);
    let g = gcd(num.abs(), den);
    num /= g;
    den /= g;
    if den == 1 {
        num.to_string()
    } else {
        format!("{num}/{den}")
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a.max(1)
    } else {
        gcd(b, a % b)
    }
}

/// `mpi_data.csv --by mpi,variable`: one analysis per MPI library and
/// collective, 14 in all.
#[test]
fn csv_groups_are_analysed_one_by_one() {
    let model = tmp_file("mpi.tm", "T(p) = c0 + c1*log2(p)\nparam c0, c1\npredict p = 4096\n");
    let data = format!("{EXTRAP}/mpi_data.csv");
    let args = [&model as &str, &data, "--by", "mpi,variable", "--x", "p=Ranks", "--y", "median"];
    let doc = json(&args);
    let analyses = doc["analyses"].as_array().unwrap();
    assert_eq!(analyses.len(), 14);
    let mut per_lib: BTreeMap<String, usize> = BTreeMap::new();
    for a in analyses {
        let name = a["callpath"].as_str().unwrap();
        assert!(name.starts_with("mpi=") && name.contains(", variable=MPI_"), "{name}");
        *per_lib.entry(name.split(',').next().unwrap().to_string()).or_default() += 1;
        assert_eq!(a["report"]["data"]["points"], 5, "{name}");
    }
    assert_eq!(per_lib.values().copied().collect::<Vec<_>>(), vec![7, 7]);
    // A glob picks groups; a column the model reads cannot group.
    let doc = json(&[
        &model as &str,
        &data,
        "--by",
        "mpi,variable",
        "--x",
        "p=Ranks",
        "--y",
        "median",
        "--region",
        "mpi=OpenMPI*",
    ]);
    assert_eq!(doc["experiment"]["selected"], 7);
    let r = fails(&[&model as &str, &data, "--by", "Ranks", "--x", "p=Ranks", "--y", "median"], 2);
    has(&r.stderr, &["--by Ranks: the column `Ranks` is read by the model"]);
    let r = fails(&[&model as &str, &data, "--by", "library", "--x", "p=Ranks", "--y", "median"], 2);
    has(&r.stderr, &["--by library: no column `library`", "mpi_data.csv:1:1"]);
}

/// Repetitions: `all` keeps each, the others reduce them exactly.
#[test]
fn aggregate_choices_are_exact_and_stated() {
    let model = tmp_file("a.tm", "T(p) = a + b/p\nparam a, b\n");
    let data = tmp_file("a.csv", "p,T\n1,10\n1,13\n1,11\n2,6\n2,7\n4,4\n4,5\n4,9\n");
    let rows = |agg: &str| {
        json(&[&model as &str, &data, "--aggregate", agg])["data"]["measurements"].as_u64().unwrap()
    };
    assert_eq!(rows("all"), 8);
    assert_eq!(rows("mean"), 3);
    let doc = json(&[&model as &str, &data, "--aggregate", "median"]);
    let measured: Vec<&str> = doc["residuals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["measured"]["exact"].as_str().unwrap())
        .collect();
    assert_eq!(measured, ["11", "13/2", "5"]);
    let doc = json(&[&model as &str, &data, "--aggregate", "mean"]);
    let measured: Vec<&str> = doc["residuals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["measured"]["exact"].as_str().unwrap())
        .collect();
    assert_eq!(measured, ["34/3", "13/2", "6"]);
}

/// OSU micro-benchmark output reads as it is printed: whitespace-separated,
/// its header in the comment above the data, the unit in the header.
#[test]
fn osu_output_and_other_dialects_read_without_conversion() {
    let osu = tmp_file(
        "osu_latency.txt",
        "# OSU MPI Latency Test v5.6.2\n# Size          Latency (us)\n0                       1.52\n1                       1.53\n2                       1.53\n4                       1.54\n8                       1.55\n",
    );
    let model = tmp_file("osu.tm", "T(s) = a + b*s\nparam a, b\npredict s = 1024\n");
    let doc = json(&[&model as &str, &osu, "--x", "s=Size", "--y", "Latency"]);
    assert_eq!(doc["data"]["measurements"], 5);
    assert_eq!(doc["model"]["units"]["T"], "us");
    assert_eq!(doc["residuals"][4]["measured"]["exact"], "31/20");
    assert_eq!(doc["residuals"][4]["line"], 7);
    // Semicolons with decimal commas, tabs, and runs of spaces: the same fit.
    let hpl = "models/hpl.tm";
    let fit = |name: &str, text: &str, extra: &[&str]| {
        let f = tmp_file(name, text);
        let mut args = vec![hpl, &f as &str];
        args.extend_from_slice(extra);
        json(&args)["params"].clone()
    };
    let want = fit("c.csv", "p,T\n10,2848.8\n20,1547.7\n30,1112.6\n40,900.1\n", &[]);
    assert_eq!(fit("s.csv", "# exported\np;T\n10;2848,8\n20;1547,7\n30;1112,6\n40;900,1\n", &[]), want);
    assert_eq!(fit("t.tsv", "p\tT\n10\t2848.8\n20\t1547.7\n30\t1112.6\n40\t900.1\n", &[]), want);
    assert_eq!(
        fit("w.txt", "  p      T\n 10   2848.8\n 20   1547.7\n 30   1112.6\n 40    900.1\n", &[]),
        want
    );
    assert_eq!(
        fit("x.dat", "p T\n10 2848.8\n20 1547.7\n30 1112.6\n40 900.1\n", &["--delimiter", "space"]),
        want
    );
    // Errors still point into the file as written.
    let bad = tmp_file("bad.txt", "p   T\n10  2848.8\n20  15x7.7\n");
    let r = fails(&[hpl, &bad], 2);
    has(&r.stderr, &["bad.txt:3:5", "`15x7.7`"]);
    let r = fails(&[hpl, &bad, "--delimiter", "|"], 2);
    has(&r.stderr, &["--delimiter |: expected `,`, `;`, `tab` or `space`"]);
}

/// The HTML report of a whole experiment: the table, then a band plot and
/// the report of each series.
#[test]
fn experiment_html_report_has_the_table_and_a_plot_per_series() {
    let out = tmp_dir().join("exp.html");
    let out = out.to_str().unwrap();
    let r = run(&["models/amdahl.tm", "data/extrap_experiment.txt", "--metric", "time", "--report", out]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let html = std::fs::read_to_string(out).unwrap();
    assert_eq!(html.matches("<svg").count(), 3, "one band plot per series");
    assert_eq!(html.matches("<h2>").count(), 3);
    assert!(html.contains("<table>") && html.contains("main-&gt;MPI_Allreduce / time"), "escaped names");
    let table_at = html.find("<table>").unwrap();
    assert!(table_at < html.find("<svg").unwrap(), "the table leads");
    has(&r.stderr, &["wrote", "exp.html"]);
}

/// Extra-P's documentation example under `--aggregate mean` with the
/// hypothesis Extra-P 4.2.5 chooses, `c0 + c1*p^(5/4)*log2(p)`: errband's
/// exact fit agrees with Extra-P's float fit (2.8183276094059…,
/// 0.48270031135124…) to 12 significant digits, and says which values are
/// rounded (the powers p^(5/4) of non-fourth powers).
#[test]
fn extrap_documentation_example_matches_extrap_fit() {
    let model = tmp_file("ex.tm", "T(p) = c0 + c1*p^(5/4)*log2(p)\nparam c0, c1\n");
    let data = "../shared/extrap-data/docs/examples/input.txt";
    let doc = json(&[&model as &str, data, "--aggregate", "mean", "--decimal", "12"]);
    assert_eq!(doc["data"]["measurements"], 5);
    let decimal = |i: usize| doc["params"][i]["decimal"].as_str().unwrap().to_string();
    assert_eq!(decimal(0), "2.81832760941");
    assert_eq!(decimal(1), "0.482700311351");
    let exact = doc["params"][0]["exact"].as_str().unwrap();
    assert!(exact.contains('/'), "an exact rational: {exact}");
    let notes = doc["model"]["inexact"].as_array().unwrap();
    assert!(notes.iter().any(|n| n.as_str().unwrap().starts_with("8^(5/4) ≈ 13.454342644")), "{notes:?}");
    assert!(
        !notes.iter().any(|n| n.as_str().unwrap().starts_with("16^(5/4)")),
        "16^(5/4) = 32 is exact: {notes:?}"
    );
}

/// Every Extra-P text input in Extra-P's test data is read, each with a
/// model linear in its parameters; Extra-P's negative tests (`*neg*`) are
/// refused with a located message; the formats errband does not read yet
/// are named, not misread as CSV.
#[test]
fn every_extrap_input_is_read_or_refused_with_a_reason() {
    let root = root().join(EXTRAP);
    let mut text = Vec::new();
    let mut other = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "txt") && !p.starts_with(root.join("talpas")) {
                text.push(p);
            } else if !p.extension().is_some_and(|x| x == "py" || x == "csv") {
                other.push(p);
            }
        }
    }
    text.sort();
    let (mut read, mut refused) = (0, 0);
    for p in &text {
        let src = std::fs::read_to_string(p).unwrap();
        let params: Vec<&str> = src
            .lines()
            .filter_map(|l| l.strip_prefix("PARAMETER "))
            .flat_map(str::split_whitespace)
            .collect();
        let terms: Vec<String> = params.iter().enumerate().map(|(i, v)| format!("c{}*{v}", i + 1)).collect();
        let names: Vec<String> = (0..=params.len()).map(|i| format!("c{i}")).collect();
        let vars = if params.is_empty() { "p".to_string() } else { params.join(", ") };
        let model = format!(
            "T({vars}) = c0{}\nparam {}\n",
            terms.iter().map(|t| format!(" + {t}")).collect::<String>(),
            names.join(", ")
        );
        let m = tmp_file("auto.tm", &model);
        let path = p.to_str().unwrap();
        let r = run(&[&m as &str, path, "--format", "csv"]);
        let name = p.file_name().unwrap().to_string_lossy();
        if name.contains("neg") {
            assert_eq!(r.code, Some(2), "{name}: {}", r.stderr);
            has(&r.stderr, &[&format!("{path}:")]);
            refused += 1;
        } else {
            assert!(
                matches!(r.code, Some(0 | 1)) && r.stdout.starts_with("callpath,") || r.code == Some(0),
                "{name}: {}",
                r.stderr
            );
            read += 1;
        }
    }
    assert_eq!((read, refused), (62, 4), "text files read and refused");
    // JSON, JSON Lines, TaLPas and .extra-p files: read by content, each
    // with a linear model in its parameters; Extra-P 3 binaries refused
    // with what to do; the CUBE set read as a directory.
    other.sort();
    let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for p in &other {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let kind = if name.starts_with("experiment_3") {
            "Extra-P 3"
        } else if name.ends_with(".extra-p") {
            ".extra-p"
        } else if name.ends_with(".jsonl") {
            "JSON Lines"
        } else if name.to_ascii_lowercase().ends_with(".json") {
            "JSON"
        } else if name.ends_with(".cubex") {
            continue; // read below, as the directory set they belong to
        } else {
            "TaLPas"
        };
        let r = run(&["--format", "csv", &model_for(p), p.to_str().unwrap()]);
        let c = counts.entry(kind.to_string()).or_default();
        if kind == "Extra-P 3" {
            assert_eq!(r.code, Some(2), "{name}");
            has(&r.stderr, &["Extra-P 3 binary experiment", "save it as an experiment (.extra-p)"]);
            c.1 += 1;
        } else if name.contains("neg") {
            assert_eq!(r.code, Some(2), "{name}: {}", r.stderr);
            has(&r.stderr, &[&format!("{}:", p.display()), "lacks"]);
            c.1 += 1;
        } else {
            assert!(r.code == Some(0) || r.code == Some(1), "{name}: {}", r.stderr);
            assert!(
                r.stdout.starts_with("callpath,") || r.stdout.contains(",threshold,"),
                "{name}: {}",
                r.stdout
            );
            c.0 += 1;
        }
    }
    let want: BTreeMap<String, (usize, usize)> = [
        ("JSON", (14, 0)),
        ("JSON Lines", (21, 0)),
        ("TaLPas", (9, 1)),
        (".extra-p", (2, 0)),
        ("Extra-P 3", (0, 3)),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), *v))
    .collect();
    assert_eq!(counts, want, "read and refused per format");
    let set = root.join("cubeset/single_parameter");
    let m = tmp_file("cube.tm", "T(x) = c0 + c1*x\nparam c0, c1\n");
    let doc = json(&[&m as &str, set.to_str().unwrap()]);
    assert_eq!(doc["experiment"]["format"], "CUBE profiles");
    assert_eq!(doc["experiment"]["series"], 28, "4 callpaths x 7 metrics with data");
}

/// A model for a file of Extra-P's JSON family or an `.extra-p` archive,
/// over its parameters (read with errband's library readers).
fn model_for(p: &std::path::Path) -> String {
    use errband::data::detect::{sniff, Kind};
    use errband::limits::Limits;
    let bytes = std::fs::read(p).unwrap();
    let name = p.to_str().unwrap();
    let text = String::from_utf8_lossy(&bytes);
    let l = Limits::default();
    let exp = match sniff(&bytes, name) {
        Kind::Json => errband::data::json::read_json(&text, name, l),
        Kind::JsonLines => errband::data::json::read_jsonl(&text, name, l),
        Kind::Talpas => errband::data::json::read_talpas(&text, name, l),
        Kind::ExtrapArchive => errband::data::archive::read_extrap_archive(&bytes, name, l),
        _ => return tmp_file("auto.tm", "T(p) = c0 + c1*p\nparam c0, c1\n"),
    };
    // Linear in the first parameter; the others are variables too (points
    // that differ only in them are repetitions). Four parameters on a
    // 5x5x5 grid take minutes in the region's elimination (issue 20).
    let names = exp.map(|e| e.params).unwrap_or_else(|_| vec!["x".into()]);
    tmp_file("auto.tm", &format!("T({}) = c0 + c1*{}\nparam c0, c1\n", names.join(", "), names[0]))
}

/// Extra-P's model string as the model: the form it names is refitted
/// exactly (and gives Extra-P's coefficients back on Extra-P's own data);
/// with `--no-fit`, Extra-P's coefficients themselves are banded.
#[test]
fn an_extrap_model_string_is_the_model() {
    let data = "../shared/extrap-data/docs/examples/input.txt";
    let hyp = tmp_file(
        "hyp.txt",
        "# Extra-P 4.2.5 on input.txt, --aggregate mean\n2.8183276094059 + 0.48270031135124 * p^(5/4) * log2(p)^(1)\n",
    );
    let doc = json(&[&hyp as &str, data, "--aggregate", "mean", "--decimal", "12"]);
    assert_eq!(doc["model"]["body"], "c0 + c1*p^(5/4)*log2(p)");
    assert_eq!(doc["params"][0]["decimal"], "2.81832760941");
    assert_eq!(doc["params"][1]["decimal"], "0.482700311351");
    // Extra-P's own coefficients, given: e_max is that of its rounded values.
    let given = json(&[&hyp as &str, data, "--aggregate", "mean", "--no-fit", "--decimal", "14"]);
    assert_eq!(given["params"][0]["exact"], "28183276094059/10000000000000");
    assert_eq!(given["params"][1]["exact"], "12067507783781/25000000000000");
    // Python's format reads the same; a fault is located in the model file.
    let py = tmp_file("py.txt", "2.8183276094059+0.48270031135124*p**(5/4)*log2(p)**(1)\n");
    assert_eq!(json(&[&py as &str, data, "--aggregate", "mean"])["model"]["body"], "c0 + c1*p^(5/4)*log2(p)");
    let bad = tmp_file("bad.txt", "# x\n2.8 + * p\n");
    let r = run(&[&bad as &str, data]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    has(&r.stderr, &[&format!("{bad}:2:7"), "expected a coefficient"]);
    let unknown = tmp_file("q.txt", "1 + 2 * q^(1)\n");
    let r = run(&[&unknown as &str, data]);
    assert_eq!(r.code, Some(2));
    has(&r.stderr, &["uses the parameter `q`", "it has p"]);
}

/// What `extrap --print all` prints, given as the model: each series is
/// analysed with the hypothesis Extra-P chose for it; a series Extra-P
/// printed no model for fails alone, with the line of its `Model: None`.
#[test]
fn extrap_printed_output_gives_each_series_its_model() {
    let data = format!("{EXTRAP}/text/two_parameter_3.txt");
    // The layout of Extra-P 4.2.5's `--print all` (io_helper.format_all);
    // the hypotheses are ones Extra-P's search space holds.
    let printed = tmp_file(
        "printed.txt",
        "Callpath: merge\n\tMetric: time\n\t\tMeasurement point: (2.00E+01,1.00E+00) Mean: 1.00E+00 Median: 1.00E+00\n\t\tModel: 1.5 + 0.25 * x^(3/2) * y^(1)\n\t\tRSS: 1.00E+00\n\t\tAdjusted R^2: 9.90E-01\n\tMetric: flops\n\t\tModel: 10 + 2 * x^(1) * log2(y)^(1)\n\t\tRSS: 1.00E+00\n\t\tAdjusted R^2: 9.90E-01\nCallpath: sort\n\tMetric: time\n\t\tModel: 3 + 1.25 * x^(1) * log2(x)^(1) * y^(1)\n\t\tRSS: 1.00E+00\n\t\tAdjusted R^2: 9.90E-01\n\tMetric: flops\n\t\tModel: None\n\t\tRSS: 0.00E+00\n\t\tAdjusted R^2: 0.00E+00\n",
    );
    let r = run(&[&printed as &str, &data, "--format", "json"]);
    assert_eq!(r.code, Some(2), "the series without a model is an input fault: {}", r.stderr);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let bodies: BTreeMap<String, String> = doc["summary"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let name = format!("{} / {}", s["callpath"].as_str().unwrap(), s["metric"].as_str().unwrap());
            (name, s["model"].as_str().or(s["error"].as_str()).unwrap().to_string())
        })
        .collect();
    assert_eq!(bodies["merge / time"], "c0 + c1*x^(3/2)*y");
    assert_eq!(bodies["merge / flops"], "c0 + c1*x*log2(y)");
    assert_eq!(bodies["sort / time"], "c0 + c1*x*log2(x)*y");
    assert!(
        bodies["sort / flops"].contains(&format!("{printed}:17:10: Extra-P printed no model")),
        "{bodies:?}"
    );
    // The text table names each row's model.
    let r = run(&[&printed as &str, &data, "--region", "merge"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    has(&r.stdout, &["each series with the form Extra-P chose for it", "c0 + c1*x^(3/2)*y", "c0 = "]);
}

/// Extra-P 4.2.5's printed models for RELeARN (data/extrap/README.md) as
/// the model: all 14 callpaths are refitted exactly in the forms Extra-P
/// chose, and the exact coefficients agree with Extra-P's printed floats
/// to 1e-13, except where Extra-P's float fit loses digits (terms n^3 and
/// n^(5/4) in n ≤ 10^4 make those two systems ill-conditioned).
#[test]
fn relearn_with_extrap_printed_models_matches_extrap_coefficients() {
    let printed = "data/extrap/relearn_print_all.txt";
    let data = format!("{EXTRAP}/text/mpa/relearn_data.txt");
    let doc = json(&[printed, &data, "--aggregate", "mean"]);
    let text = std::fs::read_to_string(root().join(printed)).unwrap();
    let mut extrap: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut callpath = String::new();
    for line in text.lines().map(str::trim) {
        if let Some(c) = line.strip_prefix("Callpath:") {
            callpath = c.trim().to_string();
        } else if let Some(m) = line.strip_prefix("Model:") {
            let coefficients =
                m.trim().split(" + ").map(|t| t.split(' ').next().unwrap().parse::<f64>().unwrap()).collect();
            extrap.insert(callpath.clone(), coefficients);
        }
    }
    let summary = doc["summary"].as_array().unwrap();
    assert_eq!(summary.len(), 14);
    for s in summary {
        let name = s["callpath"].as_str().unwrap();
        let ours: Vec<f64> = s["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let e = p["exact"].as_str().unwrap();
                let (n, d) = e.split_once('/').unwrap_or((e, "1"));
                // Exact to f64 through the decimal view at 17 digits would
                // round twice; the ratio of two parsed big integers is
                // close enough for a 1e-13 comparison.
                n.parse::<f64>().unwrap() / d.parse::<f64>().unwrap()
            })
            .collect();
        let theirs = &extrap[name];
        assert_eq!(ours.len(), theirs.len(), "{name}");
        let worst = ours.iter().zip(theirs).map(|(a, b)| ((a - b) / b).abs()).fold(0.0, f64::max);
        let ill = name.starts_with("Exchange branch nodes") || name.starts_with("Empty remote nodes cache");
        assert!(worst < if ill { 1e-2 } else { 1e-13 }, "{name}: {ours:?} vs Extra-P {theirs:?}");
    }
}

/// Faults in Extra-P's JSON family and archives, from the command line:
/// each refused with exit 2, located at `FILE:LINE:COL` (JSON Lines,
/// TaLPas, JSON syntax) or by JSON path or archive member.
#[test]
fn faults_in_experiment_files_are_located() {
    let m = tmp_file("x.tm", "T(x) = a + b*x\nparam a, b\n");
    let cases: [(&str, &str, &str); 5] = [
        ("bad.jsonl", "{\"params\":{\"x\":4},\"value\":1}\n{\"params\":{\"x\":8},\"value\":2}\n{\"params\":{\"x\":16},\"value\":\"3\"}\n", ":3:"),
        ("bad_talpas.txt", "{\"parameters\":{\"x\":20};\"metric\":\"time\";\"callpath\":\"c\";\"value\":1}\n{\"parameters\":{\"x\":30};\"metric\":\"time\";\"value\":2}\n", ":2:"),
        ("bad.json", "{\"parameters\": [\"x\"],\n  \"measurements\": {\"c\": {\"time\": [{\"point\": [4], \"values\": [1,]}]}}}\n", ":2:"),
        ("ids.json", "{\"parameters\": [{\"id\": 1, \"name\": \"x\"}], \"callpaths\": [{\"id\": 1, \"name\": \"c\"}], \"metrics\": [{\"id\": 1, \"name\": \"time\"}], \"coordinates\": [{\"id\": 1, \"parameter_value_pairs\": [{\"parameter_id\": 1, \"parameter_value\": 4}]}], \"measurements\": [{\"callpath_id\": 1, \"coordinate_id\": 2, \"metric_id\": 1, \"value\": 1}]}\n", "measurements[0]: coordinate_id 2 names no coordinate"),
        ("cut.extra-p", "PK\u{3}\u{4}truncated", "not a readable zip archive"),
    ];
    for (name, text, want) in cases {
        let f = tmp_file(name, text);
        let r = run(&[&m as &str, &f]);
        assert_eq!(r.code, Some(2), "{name}: {}", r.stderr);
        assert!(r.stdout.is_empty() && !r.stderr.contains("panicked"), "{name}");
        has(&r.stderr, &[want]);
    }
    // A JSON file given where CSV is expected is read as JSON, not misread.
    let f = tmp_file("data.csv", "{\"parameters\": [\"x\"], \"measurements\": {\"c\": {\"time\": [{\"point\": [4], \"values\": [1]}, {\"point\": [8], \"values\": [2]}]}}}");
    let r = run(&[&m as &str, &f, "--format", "csv"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    // A directory without runs, and a single profile instead of the set.
    let keep = tmp_file("keep", "");
    let dir = std::path::Path::new(&keep).parent().unwrap().to_str().unwrap().to_string();
    let r = run(&[&m as &str, &dir]);
    assert_eq!(r.code, Some(2));
    has(&r.stderr, &["no CUBE profiles"]);
    let one = format!("{EXTRAP}/cubeset/single_parameter/mm.x10y1z1.r1/profile.cubex");
    let r = run(&[&m as &str, &one]);
    assert_eq!(r.code, Some(2));
    has(&r.stderr, &["one run, so one point", "one subdirectory per run"]);
}

/// Experiments are rendered series by series and spooled (the analyses
/// are not held): the sections still follow the table's order, the JSON
/// keeps its `analyses` in file order and parses, and `--timings` reports
/// the streamed run.
#[test]
fn streamed_experiment_sections_follow_the_table_and_json_parses() {
    let model =
        tmp_file("rl.tm", "T(p, n) = c0 + c1*p + c2*n\nparam c0, c1, c2\npredict p = 1024, n = 10000\n");
    let data = format!("{EXTRAP}/text/mpa/relearn_data.txt");
    let doc = json(&[&model, &data]);
    let summary: Vec<&str> =
        doc["summary"].as_array().unwrap().iter().map(|s| s["callpath"].as_str().unwrap()).collect();
    let analyses: Vec<&str> =
        doc["analyses"].as_array().unwrap().iter().map(|s| s["callpath"].as_str().unwrap()).collect();
    assert_eq!(summary.len(), 14);
    let mut sorted = summary.clone();
    sorted.sort();
    let mut file_order = analyses.clone();
    file_order.sort();
    assert_eq!(sorted, file_order, "the same series in both lists");

    // The text sections come in the table's (summary's) order.
    let text = ok(&[&model, &data]);
    let sections: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("=== ").and_then(|l| l.strip_suffix(" ===")))
        .map(|l| l.strip_suffix(" / time").unwrap_or(l))
        .collect();
    assert_eq!(sections, summary, "{text}");

    // Markdown, CSV and the brief answer carry every series; HTML too.
    let md = ok(&[&model, &data, "--format", "md"]);
    assert_eq!(md.lines().filter(|l| l.starts_with("## ") && l.ends_with(" / time")).count(), 14, "{md}");
    let csv = ok(&[&model, &data, "--format", "csv"]);
    assert!(csv.starts_with("callpath,metric,p,n,threshold,"), "{csv}");
    let dir = tmp_dir();
    let html = dir.join("r.html");
    let r = run(&[&model, &data, "--report", html.to_str().unwrap(), "--timings"]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    let page = std::fs::read_to_string(&html).unwrap();
    assert_eq!(page.matches("<h2>").count(), 14);
    assert!(page.ends_with("</html>\n"));
    let timings =
        r.stderr.lines().find(|l| l.starts_with("timings: parse ")).unwrap_or_else(|| panic!("{}", r.show()));
    assert!(
        timings.contains(" ms, analysis ") && timings.contains("(14 series") && timings.contains(", total "),
        "{timings}"
    );
}

/// An experiment whose text report spools several megabytes (part of it
/// written to the spool file, the rest still in memory when the report
/// is copied out in the table's order): every section is whole, under its
/// own header, and carries its own series' fit, as the JSON document says.
#[test]
fn spooled_sections_come_back_whole_and_in_the_tables_order() {
    let model = tmp_file("line.tm", "T(p) = c0 + c1*p\nparam c0, c1\npredict p = 128, 1024\n");
    let mut text = String::from("PARAMETER p\nPOINTS ( 32 ) ( 64 )\nMETRIC time\n\n");
    for r in 0..900u32 {
        let (a, b) = (20 + r % 13, 30 + r % 29);
        text.push_str(&format!(
            "REGION k{r:04}\nDATA {a}.{:02} {a}.{:02}\nDATA {b}.{:02} {b}.{:02}\n\n",
            r % 97,
            r % 89,
            r % 83,
            r % 79
        ));
    }
    let data = tmp_file("many.txt", &text);
    let out = ok(&[&model, &data]);
    assert!(out.len() > 2 << 20, "{} bytes: the spool should pass its in-memory run", out.len());
    let doc = json(&[&model, &data]);
    let c0: std::collections::HashMap<&str, &str> = doc["analyses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["callpath"].as_str().unwrap(), a["report"]["params"][0]["exact"].as_str().unwrap()))
        .collect();
    let order: Vec<&str> =
        doc["summary"].as_array().unwrap().iter().map(|s| s["callpath"].as_str().unwrap()).collect();
    let sections: Vec<&str> = out.split("\n=== ").skip(1).collect();
    assert_eq!(sections.len(), 900);
    for (section, name) in sections.iter().zip(&order) {
        assert!(section.starts_with(&format!("{name} / time ===\n")), "{section}");
        let fitted = section.lines().find_map(|l| l.trim().strip_prefix("c0 = ")).unwrap();
        assert!(fitted.ends_with(&format!(" = {}", c0[name])) || fitted == c0[name], "{name}: {fitted}");
        assert!(section.contains("\nBands of a new measurement at x"), "{section}");
    }
}

/// `--format jsonl`: one line per series in file order, each the same
/// object as the JSON document's `analyses` entry; one line for a single
/// series, the same document as `--format json`.
#[test]
fn json_lines_give_one_object_per_series() {
    let model =
        tmp_file("rl.tm", "T(p, n) = c0 + c1*p + c2*n\nparam c0, c1, c2\npredict p = 1024, n = 10000\n");
    let data = format!("{EXTRAP}/text/mpa/relearn_data.txt");
    let doc = json(&[&model, &data]);
    let lines = ok(&[&model, &data, "--format", "jsonl"]);
    let objects: Vec<serde_json::Value> =
        lines.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect();
    assert_eq!(objects, *doc["analyses"].as_array().unwrap());
    assert!(lines.ends_with("}\n") && lines.lines().count() == 14);

    let one = ok(&["models/hpl.tm", "data/hpl.csv", "--format", "jsonl"]);
    assert_eq!(one.lines().count(), 1, "{one}");
    let v: serde_json::Value = serde_json::from_str(&one).unwrap();
    assert_eq!(v, json(&["models/hpl.tm", "data/hpl.csv"]));
    let pruned = ok(&["prune", "models/hpl.tm", "data/hpl.csv", "--format", "jsonl"]);
    assert_eq!(pruned.lines().count(), 1, "{pruned}");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&pruned).unwrap(),
        json(&["prune", "models/hpl.tm", "data/hpl.csv"])
    );
}

/// 2 000 callpaths of an Extra-P text experiment: with the family, far
/// longer to analyse than a few seconds even on a quiet machine; reading
/// them takes far less, even on a loaded one.
fn long_experiment(name: &str) -> String {
    let mut text = String::from("PARAMETER p\nPOINTS ( 2 ) ( 4 ) ( 8 ) ( 16 ) ( 32 )\nMETRIC time\n\n");
    for r in 0..2000 {
        text.push_str(&format!("REGION k{r:05}\n"));
        for (i, p) in [2u32, 4, 8, 16, 32].iter().enumerate() {
            let v: Vec<String> = (0..3)
                .map(|j| format!("{}.{:02}", 10 + r % 7 + p * (1 + r % 5), (i * 7 + j * 3 + r as usize) % 97))
                .collect();
            text.push_str(&format!("DATA {}\n", v.join(" ")));
        }
        text.push('\n');
    }
    tmp_file(name, &text)
}

/// JSON Lines reach their reader as the series are analysed: the first
/// line arrives while the run still has most of its 2 000 series to go
/// (it takes tens of seconds; the first line comes within one), and a
/// run stopped by `--timeout` has written one parsed line for each series
/// it says it analysed.
#[test]
fn json_lines_are_written_as_the_series_are_analysed() {
    use std::io::BufRead;
    let data = long_experiment("streamed.txt");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin!("errband"))
        .current_dir(root())
        .args([&data, "--family", "pmnf", "--format", "jsonl"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("errband runs");
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().expect("piped")).read_line(&mut first).expect("a line");
    let running = child.try_wait().expect("status").is_none();
    let _ = child.kill();
    let _ = child.wait();
    assert!(running, "the first line came only when the run had ended");
    let v: serde_json::Value = serde_json::from_str(&first).expect("the first line parses");
    assert_eq!(v["callpath"], "k00000");

    let r = run(&[&data, "--family", "pmnf", "--format", "jsonl", "--timeout", "3s"]);
    assert_eq!(r.code, Some(1), "{}", r.show());
    for l in r.stdout.lines() {
        serde_json::from_str::<serde_json::Value>(l).unwrap_or_else(|e| panic!("{e}: {l}"));
    }
    let n = r.stdout.lines().count();
    assert!(n > 0 && n < 2000, "{n}");
    has(&r.stderr, &[&format!("; {n} of 2000 series were analysed")]);
}

/// `--timeout` on a whole experiment: no series is started after the
/// deadline, and the document covers the series analysed and says so.
#[test]
fn an_experiment_stopped_by_its_timeout_reports_what_it_analysed_and_says_why() {
    let data = long_experiment("stopped.txt");
    let r = run(&[&data, "--family", "pmnf", "--format", "json", "--timeout", "3s"]);
    assert_eq!(r.code, Some(1), "{}", r.show());
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).expect("the stopped document parses");
    let why = doc["stopped"].as_str().expect("`stopped` says why");
    assert!(why.contains("--timeout 3s reached") && why.contains("of 2000 series were analysed"), "{why}");
    let analysed = doc["summary"].as_array().unwrap().len();
    assert!(analysed > 0 && analysed < 2000, "{analysed}");
    assert_eq!(doc["analyses"].as_array().unwrap().len(), analysed);
    assert!(why.contains(&format!("; {analysed} of 2000")), "{why}");
    has(&r.stderr, &["errband: --timeout 3s reached"]);
    // The text report says it first.
    let r = run(&[&data, "--family", "pmnf", "--timeout", "3s"]);
    assert_eq!(r.code, Some(1), "{}", r.show());
    assert!(
        r.stdout.lines().nth(1).is_some_and(|l| l.starts_with("  stopped: --timeout 3s reached")),
        "{}",
        r.show()
    );
}
