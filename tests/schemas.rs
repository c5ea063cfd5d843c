//! Every command's JSON output validates against its shipped JSON Schema
//! (`schemas/`, draft 2020-12): every JSON snapshot, and the bundled
//! examples run in the variants that change the output's shape. A schema
//! that accepts anything would pass too, so each schema must also reject
//! documents that break the shared shape (no version key, a bare number
//! where `{exact, decimal}` belongs).

#[path = "common/cli.rs"]
mod cli;
use cli::{json, ok, root};
use errband::schema::Output;
use serde_json::Value;

fn validator(o: Output) -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(o.schema()).expect("schema is JSON");
    jsonschema::draft202012::new(&schema)
        .unwrap_or_else(|e| panic!("{:?}: not a valid schema: {e}", o.file_name()))
}

fn assert_valid(o: Output, doc: &Value, what: &str) {
    let v = validator(o);
    let errors: Vec<String> =
        v.iter_errors(doc).take(5).map(|e| format!("{} at {}", e, e.instance_path)).collect();
    assert!(errors.is_empty(), "{what} does not match {}:\n{}", o.file_name(), errors.join("\n"));
}

/// The JSON body of an insta snapshot (after its `---` header).
fn snapshot(name: &str) -> Value {
    let path = root().join("tests/snapshots").join(format!("snapshots__{name}.snap"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let body = text.splitn(3, "---\n").nth(2).unwrap_or_else(|| panic!("{name}: no insta header"));
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn every_json_snapshot_matches_its_schema() {
    let mut seen = 0;
    for entry in std::fs::read_dir(root().join("tests/snapshots")).expect("snapshots") {
        let name = entry.expect("entry").file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_prefix("snapshots__").and_then(|n| n.strip_suffix(".snap")) else {
            continue;
        };
        if !stem.ends_with("_json") {
            continue;
        }
        let o = match stem.split('_').next() {
            Some("main") => Output::Analysis,
            Some("experiment") => Output::Experiment,
            Some("prune") => Output::Prune,
            Some("plan") => Output::Plan,
            Some("energy") => Output::Energy,
            Some("barrier") => Output::Barrier,
            Some("ms") => Output::Ms,
            Some("qe") => Output::Qe,
            _ => panic!("{name}: which command's schema?"),
        };
        assert_valid(o, &snapshot(stem), &name);
        seen += 1;
    }
    assert!(seen >= 8, "only {seen} JSON snapshots found");
}

#[test]
fn analysis_outputs_match_the_schema() {
    let runs: [&[&str]; 8] = [
        &["models/hpl.tm", "data/hpl.csv"],
        &["models/hpl.tm", "data/hpl.csv", "-t", "max", "-t", "5%", "-t", "emax", "--at", "p=1..40:7"],
        &["models/hpl.tm", "data/hpl.csv", "--drop", "p=10"],
        &["models/hpl.tm", "data/hpl.csv", "--holdout", "p>=60"],
        &["models/hpl.tm", "data/hpl.csv", "--family", "pmnf"],
        &["models/amdahl.tm", "data/amdahl.csv", "--exact"],
        &["models/pn.tm", "data/pn.csv"],
        &["models/whitebox.tm", "data/whitebox.csv"],
    ];
    for args in runs {
        assert_valid(Output::Analysis, &json(args), &format!("errband {}", args.join(" ")));
    }
}

#[test]
fn subcommand_outputs_match_their_schemas() {
    let runs: [(Output, &[&str]); 11] = [
        (Output::Experiment, &["models/amdahl.tm", "data/extrap_experiment.txt", "--metric", "time"]),
        (Output::Prune, &["prune", "models/hpl.tm", "data/hpl.csv", "--target", "p=1000"]),
        (
            Output::Plan,
            &["plan", "models/hpl.tm", "data/hpl.csv", "--target", "p=1000", "--candidate", "p=130..300:50"],
        ),
        (Output::Energy, &["energy", "data/energy_mg.csv", "--nodes", "16,inf"]),
        (
            Output::Energy,
            &["energy", "data/energy_ideal.csv", "--regions", "mem,comm", "--nodes", "1,16,1024,inf"],
        ),
        (Output::Barrier, &["barrier", "--nodes", "2..120", "--mpi", "120us"]),
        (
            Output::Ms,
            &["ms", "predict", "data/mandelbrot_32x32.csv", "--grid", "1024x1024", "--procs", "8..32:8"],
        ),
        (Output::Qe, &["qe", "models/hpl_eq5.qe", "--vertices"]),
        (Output::Qe, &["qe", "models/hpl_eq6.qe"]),
        (
            Output::Check,
            &[
                "check",
                "models/hpl.tm",
                "tests/data/check/hpl_train.csv",
                "--new",
                "tests/data/check/hpl_new.csv",
            ],
        ),
        (
            Output::Check,
            &[
                "check",
                "models/hpl.tm",
                "tests/data/check/hpl_train.csv",
                "--new",
                "tests/data/check/hpl_slow.csv",
                "--fail-on",
                "never",
            ],
        ),
    ];
    for (o, args) in runs {
        assert_valid(o, &json(args), &format!("errband {}", args.join(" ")));
    }
}

#[test]
fn schemas_reject_documents_out_of_the_shared_shape() {
    let doc = json(&["models/hpl.tm", "data/hpl.csv"]);
    let v = validator(Output::Analysis);
    assert!(v.is_valid(&doc));
    let mut no_version = doc.clone();
    no_version.as_object_mut().expect("object").remove("errband");
    assert!(!v.is_valid(&no_version), "a document without the version key passed");
    let mut bare = doc.clone();
    bare["emax"] = Value::String("1101248/81125".into());
    assert!(!v.is_valid(&bare), "a bare exact string where {{exact, decimal}} belongs passed");
    let mut float = doc;
    float["emax"]["exact"] = serde_json::json!(13.57);
    assert!(!v.is_valid(&float), "a float where an exact fraction belongs passed");
}

#[test]
fn schema_command_prints_the_shipped_files() {
    for o in Output::ALL {
        let name = o.file_name().trim_end_matches(".schema.json");
        let printed = ok(&["schema", name]);
        let file = std::fs::read_to_string(root().join("schemas").join(o.file_name())).expect("schema file");
        assert_eq!(printed, file, "errband schema {name}");
    }
}

/// The schemas of the typed documents are what their types generate:
/// `ERRBAND_UPDATE_SCHEMAS=1 cargo test --test schemas` rewrites them.
#[test]
fn typed_schemas_are_generated_from_the_document_types() {
    let update = std::env::var_os("ERRBAND_UPDATE_SCHEMAS").is_some();
    for o in Output::ALL {
        let generated = o.generated();
        let path = root().join("schemas").join(o.file_name());
        if update {
            std::fs::write(&path, &generated).expect("write schema");
            continue;
        }
        let file = std::fs::read_to_string(&path).expect("schema file");
        assert!(
            file == generated,
            "{} differs from what its document type generates: run ERRBAND_UPDATE_SCHEMAS=1 cargo test --test schemas",
            o.file_name()
        );
    }
}

/// Every command's JSON comes from its document type only: no renderer,
/// CLI command or document builds JSON by hand (`report/stream.rs` writes
/// the documents it is given).
#[test]
fn typed_commands_build_no_json_by_hand() {
    let mut seen = 0;
    for dir in ["src/report", "src/document", "src/cli", "src/qe"] {
        for entry in std::fs::read_dir(root().join(dir)).expect("source dir") {
            let path = entry.expect("entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
            if !name.ends_with(".rs") || name == "stream.rs" {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("source");
            for bad in ["json!(", "Value::Object(", "serde_json::Map"] {
                assert!(!text.contains(bad), "{} builds JSON by hand ({bad})", path.display());
            }
            seen += 1;
        }
    }
    assert!(seen >= 30, "only {seen} source files scanned");
}

/// The typed documents' schemas reject what breaks the shared shape: a
/// band without its status, a missing key, a bare exact value.
#[test]
fn typed_schemas_reject_documents_out_of_the_shared_shape() {
    let doc = json(&["prune", "models/hpl.tm", "data/hpl.csv", "--target", "p=1000"]);
    let v = validator(Output::Prune);
    assert!(v.is_valid(&doc));
    assert_eq!(doc["command"], "prune");
    assert!(doc["schema_version"].is_u64());
    let mut no_status = doc.clone();
    no_status["unpruned"]["bands"][0]["band"].as_object_mut().expect("band").remove("status");
    assert!(!v.is_valid(&no_status), "a band without its status passed");
    let mut no_command = doc.clone();
    no_command.as_object_mut().expect("object").remove("command");
    assert!(!v.is_valid(&no_command), "a document without its command passed");
    let mut other = doc.clone();
    other["command"] = Value::String("plan".into());
    assert!(!v.is_valid(&other), "a prune schema took a plan document");
    let mut bare = doc;
    bare["unpruned"]["emax"] = Value::String("223/40".into());
    assert!(!v.is_valid(&bare), "a bare exact string where {{exact, decimal}} belongs passed");
}

/// A small deterministic generator (SplitMix64): the inputs below are the
/// same on every run.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// 200 generated inputs (model forms, noisy positive data with and
/// without repetitions, thresholds, prediction points, families,
/// holdouts, drops) through the main command: every JSON document it
/// writes, exit 0 or 1, matches the generated analysis schema, and most
/// runs give a document at all.
#[test]
fn two_hundred_generated_inputs_match_the_analysis_schema() {
    const FORMS: [&str; 5] = [
        "T(p) = c0 + c1*p\nparam c0, c1\n",
        "T(p) = s + w/p\nparam s, w\n",
        "T(p) = a * (1/p + c1 + c2*(p - 1)^2)\nconst a = 26022\nparam c1, c2\nweight p\n",
        "T(p) = c0 + c1*log2(p)\nparam c0, c1\n",
        "T(p) = c0 + c1*p^(3/2)\nparam c0, c1\n",
    ];
    let mut g = Gen(20261128);
    let dir = cli::tmp_dir();
    let (mut documents, mut runs) = (0, 0);
    for case in 0..200 {
        let model = FORMS[g.below(FORMS.len() as u64) as usize];
        let points = 4 + g.below(5);
        let reps = 1 + g.below(3);
        let mut csv = String::from("p,T\n");
        for i in 0..points {
            let p = 1u64 << (i + g.below(2));
            let base = 10 + g.below(1000);
            for _ in 0..reps {
                // Positive times with up to 5 % noise, 3 decimals.
                let t = base * 1000 + base * g.below(50);
                csv.push_str(&format!("{p},{}.{:03}\n", t / 1000, t % 1000));
            }
        }
        let (m, d) = (dir.join(format!("m{case}.tm")), dir.join(format!("d{case}.csv")));
        std::fs::write(&m, model).expect("model");
        std::fs::write(&d, &csv).expect("data");
        let (m, d) = (m.to_string_lossy().into_owned(), d.to_string_lossy().into_owned());
        let mut args: Vec<String> = vec![m, d, "--format".into(), "json".into()];
        match g.below(6) {
            0 => args.extend(["-t", "max", "-t", "5%", "-t", "2*emax"].map(String::from)),
            1 => args.extend(["--family", "pmnf"].map(String::from)),
            2 => args.extend(["--holdout", "largest"].map(String::from)),
            3 => args.extend(["--drop-row", "1"].map(String::from)),
            4 => args.extend(["-t", "1", "-t", "max"].map(String::from)),
            _ => {}
        }
        if g.below(2) == 0 {
            args.extend(["--at".into(), format!("p={}", 64 + g.below(4096))]);
        }
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = cli::run(&argv);
        runs += 1;
        match r.code {
            Some(0 | 1) if !r.stdout.is_empty() => {
                let doc: Value = serde_json::from_str(&r.stdout)
                    .unwrap_or_else(|e| panic!("case {case}: not JSON ({e}):\n{}", r.show()));
                assert_valid(
                    Output::Analysis,
                    &doc,
                    &format!("case {case}: errband {}\n{csv}", argv.join(" ")),
                );
                documents += 1;
            }
            // An input the analysis cannot take (two points for three
            // parameters after a drop, say) is a located error, not JSON.
            Some(1 | 2) => assert!(!r.stderr.is_empty(), "case {case}: {}", r.show()),
            _ => panic!("case {case}: {}", r.show()),
        }
    }
    assert_eq!(runs, 200);
    assert!(documents >= 180, "only {documents} of 200 generated inputs gave a document");
}
