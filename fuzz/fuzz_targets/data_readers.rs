//! The text readers, detected by content: CSV in every dialect (comma,
//! semicolon, tab, whitespace with OSU-style headers), `--by` groups, and
//! Extra-P text as a whole experiment with each aggregate.
#![no_main]
use errband::data::{dialect::Delimiter, Aggregate, ColumnSpec, Selection};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let spec = ColumnSpec { vars: vec!["p".into(), "n".into()], y: "T".into(), ..ColumnSpec::default() };
    if let Err(e) = errband::data::read(text, "fuzz.csv", &spec) {
        let _ = e.render(text);
    }
    let sel = Selection::default();
    for (delimiter, by, aggregate) in [
        (None, vec![], Aggregate::All),
        (Some(Delimiter::Whitespace), vec![], Aggregate::Median),
        (Some(Delimiter::Semicolon), vec!["g".to_string()], Aggregate::Mean),
    ] {
        let spec = ColumnSpec { delimiter, by, ..spec.clone() };
        if let Err(e) = errband::data::read_parts(text, "fuzz.csv", &spec, &sel, aggregate) {
            let _ = e.render(text);
        }
    }
    if let Err(e) = errband::data::table::Table::read(text, "fuzz.csv", 1000) {
        let _ = e.render(text);
    }
});
