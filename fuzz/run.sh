#!/usr/bin/env bash
# Runs the fuzz targets on the stable toolchain, one at a time (the machine
# has two cores, shared): the flags cargo-fuzz gives rustc for libFuzzer
# (SanitizerCoverage: 8-bit counters, PC table, comparison tracing) are
# stable codegen options, and libfuzzer-sys builds libFuzzer itself with the
# system's C++ compiler; only the address sanitizer needs nightly, and Rust
# code without `unsafe` does not need it to find panics, hangs and memory
# blow-ups. Not run by CI.
#
#   fuzz/run.sh                         # every target, 600 s each
#   SECS=60 fuzz/run.sh pipeline qe_parser
#
# Each run's libFuzzer statistics go to fuzz/logs/TARGET.log (ignored by
# git), findings to fuzz/artifacts/TARGET/.
set -euo pipefail
cd "$(dirname "$0")"
SECS="${SECS:-600}"
TARGETS=("$@")
if [[ ${#TARGETS[@]} -eq 0 ]]; then
    TARGETS=(archive_members experiment_readers data_readers model_parser qe_parser task_reader pipeline)
fi
HOST="$(rustc -vV | sed -n 's/^host: //p')"
# --target keeps these flags off build scripts and proc macros (host code
# that is not fuzzed and would not link the coverage callbacks).
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --release --target "$HOST" --bins
mkdir -p logs
for t in "${TARGETS[@]}"; do
    mkdir -p "artifacts/$t" "corpus/$t"
    echo "== $t: ${SECS} s ($(date +%T))" >&2
    "$CARGO_TARGET_DIR/$HOST/release/$t" "corpus/$t" -max_total_time="$SECS" -timeout=10 \
        -rss_limit_mb=2048 -artifact_prefix="artifacts/$t/" -print_final_stats=1 > "logs/$t.log" 2>&1 || true
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb|SUMMARY|ERROR|panicked" "logs/$t.log" >&2 || true
    ls "artifacts/$t" >&2
done
