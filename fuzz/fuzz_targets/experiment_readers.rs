//! The readers of whole experiments, on any bytes: Extra-P JSON (both
//! schemas), JSON Lines, TaLPas, `.extra-p` archives and CUBE profiles, as
//! content sniffing picks them, and each reader on its own. None may panic;
//! every error must render against the input's text.
#![no_main]
use errband::data::{archive, cube, detect, json};
use errband::limits::Limits;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = Limits { rows: 10_000, ..Limits::default() };
    let _ = detect::sniff(data, "fuzz.json");
    if let Err(e) = archive::read_extrap_archive(data, "fuzz.extra-p", limits) {
        let _ = e.render("");
    }
    if let Err(e) = cube::read_cube_profile(data, "fuzz.cubex", limits) {
        let _ = e.render("");
    }
    let Ok(text) = std::str::from_utf8(data) else { return };
    for read in [json::read_json, json::read_jsonl, json::read_talpas] {
        match read(text, "fuzz.json", limits) {
            Ok(e) => {
                let _ = e.series.len();
            }
            Err(e) => {
                let _ = e.render(text);
            }
        }
    }
    if let Some(set) = errband::model::extrap::ModelSet::from_text(text, "fuzz.txt", limits) {
        let _ = set.map(|s| s.variables.len());
    }
});
