#!/usr/bin/env bash
# Whole-process benchmark of `errband ms predict` against issue 7's targets:
#   * 1 048 576 tasks read from CSV, P = 8..128 step 8 (16 simulations):
#     < 1 s for the whole process on 2 cores, < 500 MiB;
#   * one simulation with P = 1024: < 0.1 s.
#
#   benches/ms/run.sh           # build, generate the workload once, run all cases
#
# Cases (median wall time of the whole process over RUNS runs after one warm-up;
# the simulation time and events per second come from --timings):
#   full_16     the Mandelbrot workload (every task measured), P = 8..128:8
#   full_1t     the same on one thread (RAYON_NUM_THREADS=1)
#   p1024       the same workload, one simulation at P = 1024
#   sub_1024    a 32x32 sub-grid (1/1024) interpolated to 1 048 576 tasks, P = 8..128:8
#   ns_16       the workload with times in ns and three decimals (128-bit ticks), P = 8..128:8
#   compare     --compare-subsets 1/16,1/1024,1/65536 (64 simulations)
#
# Environment: RUNS (10), NO_BUILD (0: build first).
# The table is printed and written to benches/ms/results/YYYY-MM-DD.txt.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
RUNS="${RUNS:-10}"
NO_BUILD="${NO_BUILD:-0}"
# shellcheck source=../lib.sh
source "$ROOT/benches/lib.sh"
bench_dirs ms
build_binary

MB="$DATA/mandelbrot.csv"
[[ -s "$MB" ]] || "$BIN" ms mandelbrot --out "$MB"
SUB="$DATA/mandelbrot-32x32.csv"
if [[ ! -s "$SUB" ]]; then
    # Rows and columns 0, 33, ..., 1023: the regular 32x32 sub-grid.
    awk -F, 'NR <= 2 || ($1 % 33 == 0 && $2 % 33 == 0)' "$MB" >"$SUB"
fi
NS="$DATA/mandelbrot-ns.csv"
if [[ ! -s "$NS" ]]; then
    # The same times in ns with three decimals plus a per-task fraction: 1e-3 ns ticks.
    awk -F, 'NR == 1 { print; next } NR == 2 { print "i1,i2,time [ns]"; next } { printf "%s,%s,%d.%03d\n", $1, $2, $3 * 1000, ($1 + $2) % 1000 }' "$MB" >"$NS"
fi

ROWS=()
# case NAME -- CMD...
bench_case() {
    local name="$1"
    shift 2
    repeat_runs "$name" "$@"
    grep -q 'run time' "$OUT/$name.txt" || STATUS="no run-time table"
    local line sim rate
    line="$(grep -m1 '^timings:' "$OUT/$name.stderr" || true)"
    sim="$(sed -n 's/.*simulate \([0-9.]*\) ms.*/\1/p' <<<"$line")"
    rate="$(sed -n 's/.* \([0-9.]* M events\/s\).*/\1/p' <<<"$line")"
    ROWS+=("$(printf '%-10s %9s ms %9s..%-9s %8s KiB %9s ms  %-16s %s' "$name" "$(median "${WALLS[@]}")" "$(minof "${WALLS[@]}")" "$(maxof "${WALLS[@]}")" "$(maxof "${RSSS[@]}")" "${sim:--}" "${rate:--}" "$STATUS")")
}

P16=(--grid 1024x1024 --procs 8..128:8 --timings)
bench_case full_16 -- "$BIN" ms predict "$MB" "${P16[@]}"
RAYON_NUM_THREADS=1 bench_case full_1t -- "$BIN" ms predict "$MB" "${P16[@]}"
bench_case p1024 -- "$BIN" ms predict "$MB" --grid 1024x1024 --procs 1024 --timings
bench_case sub_1024 -- "$BIN" ms predict "$SUB" "${P16[@]}"
bench_case ns_16 -- "$BIN" ms predict "$NS" "${P16[@]}"
bench_case compare -- "$BIN" ms predict "$MB" "${P16[@]}" --compare-subsets 1/16,1/1024,1/65536

REPORT="$RESULTS/$(date +%Y-%m-%d).txt"
{
    echo "errband ms benchmark, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, binary built from $REV"
    echo "targets: full_16 < 1000 ms and < 500 MiB; p1024 simulation < 100 ms"
    echo "case       median wall  (min..max)            peak RSS  simulation, events/s (last run)"
    printf '%s\n' "${ROWS[@]}"
} | tee "$REPORT"
