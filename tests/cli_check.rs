//! `errband check`: new measurements against the recommended band at
//! their scale, on the HPL example (fitted to p = 10..100, the held-out
//! p = 110 and 120 checked), in every output format; a saved result, a
//! hyperfine export and an experiment as baselines or inputs; `--accept`
//! killed mid-write; the ReFrame export's round trip.

#[path = "common/cli.rs"]
mod cli;
use cli::*;
use errband::num::{fmt_sig, parse_rat, Rat};

const HPL: &str = "models/hpl.tm";
const TRAIN: &str = "tests/data/check/hpl_train.csv";
const NEW: &str = "tests/data/check/hpl_new.csv";
/// p = 120 at 700 s: well above the band (a regression).
const SLOW: &str = "tests/data/check/hpl_slow.csv";

fn rat(v: &serde_json::Value) -> Rat {
    parse_rat(v["exact"].as_str().unwrap_or_else(|| panic!("no exact value in {v}"))).unwrap()
}

fn check_json(args: &[&str], code: i32) -> serde_json::Value {
    let mut a = vec!["check"];
    a.extend(args);
    a.extend(["--format", "json"]);
    let r = run(&a);
    assert_eq!(r.code, Some(code), "{}", r.show());
    serde_json::from_str(&r.stdout).unwrap()
}

/// The held-out measurements pass; their bands are those the main command
/// recommends at the same scales (its answer, `--at p=110,120`).
#[test]
fn held_out_hpl_measurements_pass_in_the_recommended_band() {
    let j = check_json(&[HPL, TRAIN, "--new", NEW], 0);
    assert_eq!(j["failed"], false);
    assert_eq!(j["counts"]["inside"], 2, "{j:#}");
    let main = json(&[HPL, TRAIN, "--at", "p=110,120"]);
    let rec = main["recommendation"]["points"].as_array().unwrap();
    for r in j["results"].as_array().unwrap() {
        let p = r["point"]["p"].as_str().unwrap();
        let m = rec.iter().find(|x| x["point"]["p"] == p).unwrap();
        assert_eq!(rat(&r["lower"]), rat(&m["band"]["lower"]), "p = {p}");
        assert_eq!(rat(&r["upper"]), rat(&m["band"]["upper"]), "p = {p}");
        assert_eq!(r["verdict"], "inside");
    }
    let text = ok(&["check", HPL, TRAIN, "--new", NEW]);
    has(
        &text,
        &[
            "p = 110: T = 545.38 s is inside the recommended band",
            "Summary: 2 measurements: 2 inside",
            "the check passes",
        ],
    );
}

/// A measurement 30 % above the band's upper edge fails with exit 1: the
/// deviation is exactly +30 %, the JUnit failure names the point, and
/// `--fail-on never` reports without failing.
#[test]
fn thirty_percent_above_the_band_fails() {
    let j = check_json(&[HPL, TRAIN, "--new", NEW], 0);
    let upper = rat(&j["results"][1]["upper"]);
    let slow = &upper * Rat::new(13.into(), 10.into());
    let f = tmp_file("slow.csv", &format!("p,T\n110,545.38\n120,{slow}\n"));
    let j = check_json(&[HPL, TRAIN, "--new", &f], 1);
    assert_eq!(j["failed"], true);
    let r = &j["results"][1];
    assert_eq!((r["verdict"].as_str(), r["fails"].as_bool()), (Some("above"), Some(true)));
    assert_eq!(rat(&r["deviation"]), Rat::new(3.into(), 10.into()));
    assert_eq!(r["deviation_percent"], "+30 %");
    assert_eq!(r["line"], 3);
    let x = fails(&["check", HPL, TRAIN, "--new", &f, "--format", "junit"], 1).stdout;
    has(
        &x,
        &[
            "<testcase name=\"p = 120\"",
            "<failure type=\"above\" message=\"p = 120: 1 of 1 measurement outside the recommended band\"",
            "by +30 % of its upper edge",
        ],
    );
    validate_junit(&x);
    let j = check_json(&[HPL, TRAIN, "--new", &f, "--fail-on", "never"], 0);
    assert_eq!(j["failed"], false);
    // Below the band: a failure only with --fail-on outside.
    let lower = rat(&check_json(&[HPL, TRAIN, "--new", NEW], 0)["results"][0]["lower"]);
    let fast = tmp_file("fast.csv", &format!("p,T\n110,{}\n", &lower * Rat::new(1.into(), 2.into())));
    assert_eq!(check_json(&[HPL, TRAIN, "--new", &fast], 0)["results"][0]["verdict"], "below");
    let j = check_json(&[HPL, TRAIN, "--new", &fast, "--fail-on", "outside"], 1);
    assert_eq!(rat(&j["results"][0]["deviation"]), Rat::new((-1).into(), 2.into()));
}

/// The JUnit document against the common JUnit schema (Jenkins xunit's
/// junit-10.xsd, MIT, vendored in tests/data/check): with `xmllint` when
/// installed, and always by the schema's rules for the elements errband
/// writes (checked here with quick-xml: nesting, required attributes,
/// counts).
fn validate_junit(xml: &str) {
    use quick_xml::events::Event;
    let dir = tmp_dir();
    let file = dir.join("junit.xml");
    std::fs::write(&file, xml).unwrap();
    if let Ok(out) = std::process::Command::new("xmllint")
        .args(["--noout", "--schema", "tests/data/check/junit-10.xsd"])
        .arg(&file)
        .current_dir(root())
        .output()
    {
        assert!(out.status.success(), "xmllint: {}", String::from_utf8_lossy(&out.stderr));
    }
    let allowed: &[(&str, &[&str], &[&str])] = &[
        // element, parents, required attributes
        ("testsuites", &[], &[]),
        ("testsuite", &["testsuites", "testsuite"], &["name", "tests", "failures", "errors"]),
        ("testcase", &["testsuite"], &["name"]),
        ("failure", &["testcase"], &[]),
        ("skipped", &["testcase"], &[]),
        ("system-out", &["testcase", "testsuite"], &[]),
    ];
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut stack: Vec<String> = Vec::new();
    let mut suites = Vec::new();
    let mut check = |e: &quick_xml::events::BytesStart, stack: &[String]| -> String {
        let name = e.name().into_inner().to_string();
        let (_, parents, required) = allowed
            .iter()
            .find(|(n, _, _)| *n == name)
            .unwrap_or_else(|| panic!("<{name}> is not in the schema"));
        let parent = stack.last().map(String::as_str);
        assert!(
            parents.is_empty() == parent.is_none() && parent.is_none_or(|p| parents.contains(&p)),
            "<{name}> inside {parent:?}"
        );
        let attrs: Vec<(String, String)> = e
            .attributes()
            .map(|a| {
                let a = a.unwrap();
                // Raw values: the counts checked below hold no entities.
                (a.key.into_inner().to_string(), a.value.into_owned())
            })
            .collect();
        for r in *required {
            assert!(attrs.iter().any(|(k, _)| k == r), "<{name}> lacks the required attribute {r}");
        }
        if name == "testsuite" {
            suites.push(attrs);
        }
        name
    };
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Start(e) => {
                let name = check(&e, &stack);
                stack.push(name);
            }
            Event::Empty(e) => {
                check(&e, &stack);
            }
            Event::End(_) => {
                stack.pop();
            }
            Event::Eof => break,
            _ => {}
        }
    }
    assert!(stack.is_empty());
    assert!(!suites.is_empty());
    // The counts are whole numbers and agree with the cases.
    let cases = xml.matches("<testcase ").count();
    let tests: usize = suites
        .iter()
        .map(|s| s.iter().find(|(k, _)| k == "tests").unwrap().1.parse::<usize>().unwrap())
        .sum();
    assert_eq!(tests, cases);
    let failures: usize = suites
        .iter()
        .map(|s| s.iter().find(|(k, _)| k == "failures").unwrap().1.parse::<usize>().unwrap())
        .sum();
    assert_eq!(failures, xml.matches("<failure ").count());
}

/// GitHub annotations at the file and line of the failing measurement, and
/// a Markdown step summary appended when $GITHUB_STEP_SUMMARY is set.
#[test]
fn github_annotations_and_step_summary() {
    let dir = tmp_dir();
    let summary = dir.join("summary.md");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let out = errband()
        .args(["check", HPL, TRAIN, "--new", SLOW, "--format", "github"])
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text.lines().find(|l| l.starts_with("::error ")).unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.starts_with(&format!(
            "::error file={SLOW},line=3,title=errband check::p = 120: T = 700 s is above"
        )),
        "{line}"
    );
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(md.starts_with("earlier step\n### errband check\n"), "{md}");
    has(&md, &["| p = 120 | 700 s |", "**above +"]);
}

/// hyperfine's export: each result's per-run times are checked at the
/// point of its parameters, and its mean is kept beside them.
#[test]
fn hyperfine_exports_are_read_by_times_and_means() {
    let h = r#"{
  "results": [
    {
      "command": "xhpl 110",
      "mean": 545.0,
      "stddev": 1.0,
      "times": [
        544.0,
        546.0
      ],
      "exit_codes": [0, 0],
      "parameters": {
        "p": "110"
      }
    },
    {
      "command": "xhpl 120",
      "mean": 513.45,
      "times": [
        513.45
      ],
      "parameters": {
        "p": "120"
      }
    }
  ]
}
"#;
    let f = tmp_file("hyperfine.json", h);
    let j = check_json(&[HPL, TRAIN, "--new", &f], 0);
    let rs = j["results"].as_array().unwrap();
    assert_eq!(rs.len(), 3);
    let got: Vec<(String, String, Option<&str>, u64)> = rs
        .iter()
        .map(|r| {
            (
                r["point"]["p"].as_str().unwrap().to_string(),
                r["measured"]["exact"].as_str().unwrap().to_string(),
                r["mean"]["exact"].as_str(),
                r["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("110".into(), "544".into(), Some("545"), 8),
            ("110".into(), "546".into(), Some("545"), 9),
            ("120".into(), "10269/20".into(), Some("10269/20"), 20)
        ]
    );
    assert_eq!(rs[0]["note"], "run 1 of 2");
    // A parameter of another name: the error names the one wanted.
    let g = tmp_file("hyperfine.json", &h.replace("\"p\": \"110\"", "\"procs\": \"110\""));
    let r = fails(&["check", HPL, TRAIN, "--new", &g], 2);
    has(&r.stderr, &["hyperfine.json:4: result 1 (`xhpl 110`) has no parameter `p`"]);
}

/// `errband measure --export-json` is read as hyperfine's.
#[test]
fn measure_exports_are_checked() {
    let dir = tmp_dir();
    let json_s = dir.join("runs.json");
    let json_s = json_s.to_str().unwrap();
    // A "benchmark" that prints the paper's time at p = 110.
    ok(&[
        "measure",
        "--var",
        "p=110",
        "--runs",
        "2",
        "--metric-from",
        r"T=(\S+)",
        "--y",
        "T",
        "--export-json",
        json_s,
        "--",
        "echo",
        "T=545.38",
    ]);
    let j = check_json(&[HPL, TRAIN, "--new", json_s], 0);
    assert_eq!(j["counts"]["inside"], 2, "{j:#}");
}

/// A saved `--format json` result is a baseline: the same verdicts at its
/// prediction points; elsewhere, an error that says what to do.
#[test]
fn a_saved_result_is_a_baseline() {
    let saved = ok(&[HPL, TRAIN, "--at", "p=110,120", "--format", "json"]);
    let f = tmp_file("saved.json", &saved);
    let a = check_json(&[&f, "--new", NEW], 0);
    let b = check_json(&[HPL, TRAIN, "--new", NEW], 0);
    assert_eq!(a["results"], b["results"]);
    let j = check_json(&[&f, "--new", SLOW], 1);
    assert_eq!(j["results"][0]["verdict"], "above");
    // A result saved by the previous errband (a band without its status,
    // `null` and `refused` where there was none) reads the same.
    let mut old: serde_json::Value = serde_json::from_str(&saved).expect("saved JSON");
    for p in old["recommendation"]["points"].as_array_mut().expect("points") {
        let band = p["band"].take();
        assert_eq!(band["status"], "ok", "{band}");
        p["band"] =
            serde_json::json!({"lower": band["lower"], "upper": band["upper"], "clipped": band["clipped"]});
        p["refused"] = serde_json::Value::Null;
    }
    let g = tmp_file("saved_v1.json", &old.to_string());
    assert_eq!(check_json(&[&g, "--new", NEW], 0)["results"], b["results"]);
    let other = tmp_file("other.csv", "p,T\n130,500\n");
    let r = fails(&["check", &f, "--new", &other], 2);
    has(&r.stderr, &["other.csv:2: the saved result has no recommended band at p = 130", "--at"]);
    let empty = tmp_file("empty.json", "{\"errband\": \"0.1.0\", \"analyses\": []}");
    let r = fails(&["check", &empty, "--new", NEW], 2);
    has(&r.stderr, &["no series of the saved experiment"]);
    let r = fails(&["check", &f, "--new", NEW, "--accept"], 2);
    has(&r.stderr, &["--accept"]);
}

/// An Extra-P experiment without a model: each callpath's model found as
/// the main command finds it, new measurements per callpath and metric,
/// with a summary line.
#[test]
fn an_experiment_is_checked_per_callpath() {
    let new = tmp_file(
        "new.txt",
        "PARAMETER p\nPOINTS 256\nMETRIC time\nREGION main\nDATA 1.60 1.62\nREGION main->solve\nDATA 9.0\nREGION main->MPI_Allreduce\nDATA 1.37\n",
    );
    let r =
        run(&["check", "data/extrap_experiment.txt", "--metric", "time", "--new", &new, "--format", "json"]);
    let j: serde_json::Value = serde_json::from_str(&r.stdout).unwrap_or_else(|_| panic!("{}", r.show()));
    assert_eq!(r.code, Some(1), "{}", r.show());
    let verdict = |name: &str| -> Vec<String> {
        j["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["series"] == name)
            .map(|r| r["verdict"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(verdict("main->solve / time"), ["above"], "{j:#}");
    assert_eq!(verdict("main / time").len(), 2);
    let text = run(&["check", "data/extrap_experiment.txt", "--metric", "time", "--new", &new]).stdout;
    has(&text, &["main->solve / time: ", "Summary: 3 series, 4 measurements: "]);
    // Extra-P's JSON Lines: each line a measurement of its callpath, at its line.
    let jsonl = tmp_file(
        "new.jsonl",
        "{\"params\": {\"p\": 256}, \"callpath\": \"main\", \"metric\": \"time\", \"value\": 1.61}\n{\"params\": {\"p\": 256}, \"callpath\": \"main->solve\", \"metric\": \"time\", \"value\": 0.45}\n",
    );
    let j = check_json(&["data/extrap_experiment.txt", "--metric", "time", "--new", &jsonl], 0);
    let got: Vec<(&str, u64, &str)> = j["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["series"].as_str().unwrap(), r["line"].as_u64().unwrap(), r["verdict"].as_str().unwrap()))
        .collect();
    assert_eq!(got, [("main / time", 1, "inside"), ("main->solve / time", 2, "inside")]);
}

/// `--accept` killed at any moment leaves the data file unchanged or with
/// the passing rows appended whole, never a part of one.
#[test]
fn accept_killed_mid_write_appends_whole_rows_or_nothing() {
    use std::time::Instant;
    let dir = tmp_dir();
    let data = dir.join("hpl.csv");
    std::fs::copy(root().join(TRAIN), &data).unwrap();
    let data_s = data.to_str().unwrap();
    let block = "110,545.38\n120,513.45\n";
    // A whole run, to spread the kills over its length.
    let t = Instant::now();
    ok(&["check", HPL, data_s, "--new", NEW, "--accept"]);
    let whole = t.elapsed();
    let mut before = std::fs::read_to_string(&data).unwrap();
    assert!(before.ends_with(block));
    let (mut unchanged, mut appended) = (0, 0);
    for i in 0..40u32 {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin!("errband"))
            .args(["check", HPL, data_s, "--new", NEW, "--accept"])
            .current_dir(root())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // From at once to three times a whole run.
        std::thread::sleep(whole.mul_f64(f64::from(i) / 13.0));
        let _ = child.kill();
        child.wait().unwrap();
        let after = std::fs::read_to_string(&data).unwrap();
        assert!(after.starts_with(&before), "earlier rows are never rewritten");
        match &after[before.len()..] {
            "" => unchanged += 1,
            s if s == block => appended += 1,
            s => panic!("a partial append: {s:?}"),
        }
        before = after;
    }
    eprintln!(
        "--accept killed 40 times in {:.0} ms runs: {unchanged} unchanged, {appended} appended",
        whole.as_secs_f64() * 1e3
    );
    assert!(unchanged > 0 && appended > 0, "{unchanged} unchanged, {appended} appended");
    // The file is still data errband reads.
    ok(&[HPL, data_s]);
}

/// The ReFrame export: per `--at` point, (value, lower, upper, unit), the
/// fractions giving back the band's edges to 12 significant digits.
#[test]
fn reframe_references_round_trip() {
    let dir = tmp_dir();
    let py = dir.join("refs.py");
    let py_s = py.to_str().unwrap();
    let spec = format!("reframe={py_s}");
    let main = json(&[HPL, "data/hpl.csv", "--at", "p=200,1000,3000", "--export", &spec]);
    let text = std::fs::read_to_string(&py).unwrap();
    has(&text, &["REFERENCES = {", "self.reference = REFERENCES['p=200']"]);
    let rec = main["recommendation"]["points"].as_array().unwrap();
    let mut seen = 0;
    for p in ["200", "1000", "3000"] {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("'p={p}': ")))
            .unwrap_or_else(|| panic!("{text}"));
        let inner = &line[line.find("{'T': (").unwrap() + 7..line.rfind(")}}").unwrap()];
        let f: Vec<&str> = inner.split(", ").collect();
        assert_eq!(f[3], "'s'");
        let (v, lo, hi) = (parse_rat(f[0]).unwrap(), parse_rat(f[1]).unwrap(), parse_rat(f[2]).unwrap());
        let one = Rat::from_integer(1.into());
        let m = rec.iter().find(|x| x["point"]["p"] == p).unwrap();
        assert_eq!(fmt_sig(&(&v * (&one + &lo)), 12), fmt_sig(&rat(&m["band"]["lower"]), 12), "p = {p}");
        assert_eq!(fmt_sig(&(&v * (&one + &hi)), 12), fmt_sig(&rat(&m["band"]["upper"]), 12), "p = {p}");
        assert_eq!(fmt_sig(&v, 12), fmt_sig(&rat(&m["value"]), 12));
        seen += 1;
    }
    assert_eq!(seen, 3);
    assert!(!text.contains("'p=500'"), "only the --at points");
    let r = fails(&[HPL, "data/hpl.csv", "--export", "reframe=refs.txt"], 2);
    has(&r.stderr, &["--export", ".py"]);
}

/// Snapshots of every output format on the HPL example with a regression.
#[test]
fn check_formats() {
    let run_fmt = |f: &str| run(&["check", HPL, TRAIN, "--new", NEW, "--new", SLOW, "--format", f]).stdout;
    insta::assert_snapshot!("check_text", run_fmt("text"));
    insta::assert_snapshot!("check_json", run_fmt("json"));
    insta::assert_snapshot!("check_junit", run_fmt("junit"));
    insta::assert_snapshot!("check_github", run_fmt("github"));
    insta::assert_snapshot!("check_md", run_fmt("md"));
}
