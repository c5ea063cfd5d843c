//! Criterion settings shared by the benches (`mod common;`).

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, SamplingMode};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Sampling settings from the time of one untimed run of the case: fast
/// cases get 20 samples in about 3 s; slow ones (>= 10 ms) 10 samples of about
/// one iteration each (flat sampling), with the measurement time stretched to fit
/// them, so the whole bench stays within a few minutes on 2 cores.
pub fn configure(g: &mut BenchmarkGroup<'_, WallTime>, one_run: Duration) {
    if one_run < Duration::from_millis(10) {
        g.sample_size(20)
            .sampling_mode(SamplingMode::Auto)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3));
    } else {
        g.sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(3).max(one_run * 12));
    }
}

/// Runs `f` once (a correctness check before timing) and returns its time,
/// which includes cloning the input rows as each timed iteration's untimed
/// setup does (criterion's time budget counts the setup too).
pub fn probe<T>(f: impl FnOnce() -> T) -> Duration {
    let t = Instant::now();
    black_box(f());
    t.elapsed()
}
