//! The CSV and Extra-P readers (detected by content) for a two-variable spec.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let spec = errband::data::ColumnSpec {
        vars: vec!["p".into(), "n".into()],
        y: "T".into(),
        ..errband::data::ColumnSpec::default()
    };
    if let Err(e) = errband::data::read(text, "fuzz.csv", &spec) {
        let _ = e.render(text);
    }
    if let Err(e) = errband::data::table::Table::read(text, "fuzz.csv", 1000) {
        let _ = e.render(text);
    }
});
