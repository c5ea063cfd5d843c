//! The `.tm` model language: any text either parses or gives a located error.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Err(d) = errband::model::Model::parse(text, "fuzz.tm", 40) {
            let _ = d.render(text);
        }
    }
});
