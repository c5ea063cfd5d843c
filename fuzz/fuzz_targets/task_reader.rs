//! Master/slave task files on a small grid, then interpolation and a short simulation.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match errband::data::tasks::read_tasks(text, "fuzz.csv", &[5, 4], "us", &Default::default()) {
        Ok(s) => {
            if let Ok(t) = errband::ms::Tasks::interpolate(&s) {
                let _ = errband::ms::predict(&t, None, &errband::ms::Machine::default(), &[2, 3, 9]);
            }
        }
        Err(e) => {
            let _ = e.render(text);
        }
    }
    let _ = errband::data::tasks::read_order(text, "fuzz.csv", &[5, 4], 20);
    let _ = errband::data::tasks::read_speeds(text, "fuzz.csv", &Default::default());
});
