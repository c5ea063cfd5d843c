//! The whole analysis on small generated inputs: the first line of the input
//! picks a model from a fixed set (or is one), the rest is the data CSV.
#![no_main]
use libfuzzer_sys::fuzz_target;

const MODELS: [&str; 4] = [
    "T(p) = a*(1/p + c1 + c2*(p-1)^2)\nconst a = 26022\nparam c1, c2\n",
    "T(p) = c0 + c1/p\nparam c0, c1\n",
    "T(p, n) = c0 + c1*n^2/p + c2*log2(p)\nparam c0, c1, c2\n",
    "T(p) = c0 + c1*p + c2*p^2 + c3*p^3\nparam c0, c1, c2, c3\n",
];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if text.len() > 2000 {
        return;
    }
    let (first, csv) = text.split_once('\n').unwrap_or((text, ""));
    let source = match first.trim().parse::<usize>() {
        Ok(i) => MODELS[i % MODELS.len()].to_string(),
        Err(_) => first.replace(';', "\n"),
    };
    let limits = errband::limits::Limits { rows: 64, points: 1000, ..Default::default() };
    let Ok(model) = errband::model::Model::parse_with(&source, "fuzz.tm", 20, &limits) else { return };
    let spec = errband::data::ColumnSpec {
        vars: model.vars.clone(),
        y: model.func.clone(),
        limits,
        ..errband::data::ColumnSpec::default()
    };
    let Ok(ds) = errband::data::read(csv, "fuzz.csv", &spec) else { return };
    let opts = errband::analysis::Options::default();
    let _ = errband::analysis::Analysis::run_rows(&model, &ds.rows, "fuzz.csv", &opts);
});
