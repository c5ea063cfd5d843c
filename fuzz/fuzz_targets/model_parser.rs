//! The `.tm` model language: any text either parses or gives a located error.
#![no_main]
use libfuzzer_sys::fuzz_target;

// Large point lists are linear work by design (and capped by --max-points);
// a small cap keeps the fuzzer exploring the language instead.
fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let limits = errband::limits::Limits { points: 1000, ..Default::default() };
        if let Err(d) = errband::model::Model::parse_with(text, "fuzz.tm", 40, &limits) {
            let _ = d.render(text);
        }
    }
});
