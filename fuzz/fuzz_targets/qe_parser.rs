//! The `.qe` formula language; small problems that parse are also solved.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match errband::qe::syntax::parse_problem(text, "fuzz.qe") {
        Ok(p) if text.len() < 300 => {
            let _ = errband::qe::solve(&p, &errband::qe::Options::default());
        }
        Ok(_) => {}
        Err(d) => {
            let _ = d.render(text);
        }
    }
});
