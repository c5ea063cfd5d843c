#!/usr/bin/env bash
# Whole-process benchmark of `errband energy` (issue 5 target: < 0.5 s).
#
#   benches/energy/run.sh            # build, generate the profiles, run all cases
#
# Cases (median wall time of the whole process over RUNS runs after one warm-up):
#   bench_50x6x5      50 regions x 6 frequencies x 5 node counts (2..32), the
#                     profile from `gen.py bench 50 6 5`; predictions with bands
#                     at 100 node counts (--nodes 2..200:2) and n -> inf; < 500 ms
#   bench_50x6x5_j1   the same on one thread (RAYON_NUM_THREADS=1; no target)
#   bench_3thr        the same with three thresholds (-t emax -t max -t 2*max; no target)
#   bench_200x6x5     200 regions (scaling; no target)
#   mg_text           data/energy_mg.csv, default node counts (no target)
# The last run's output is checked: exit 0 and a predictions table; the _j1
# case must print the same bytes as the default.
#
# Environment: RUNS (10), NO_BUILD (0: build first).
# The table is printed and written to benches/energy/results/YYYY-MM-DD.txt.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
RUNS="${RUNS:-10}"
NO_BUILD="${NO_BUILD:-0}"
# shellcheck source=../lib.sh
source "$ROOT/benches/lib.sh"
bench_dirs energy
build_binary

python3 "$ROOT/benches/energy/gen.py" bench 50 6 5 >"$DATA/p50.csv"
python3 "$ROOT/benches/energy/gen.py" bench 200 6 5 >"$DATA/p200.csv"

ROWS=()
# case NAME TARGET_MS SAME_AS -- CMD...
bench_case() {
    local name="$1" target="$2" same="$3"
    shift 4
    repeat_runs "$name" "$@"
    local -a walls=("${WALLS[@]}") rsss=("${RSSS[@]}")
    local status="$STATUS"
    grep -q '^Predictions' "$OUT/$name.txt" || status="no predictions table"
    if [[ -n "$same" ]] && ! cmp -s "$OUT/$name.txt" "$OUT/$same.txt"; then status="output differs from $same"; fi
    local med; med="$(median "${walls[@]}")"
    local verdict="-"
    if [[ "$target" != "-" ]]; then
        verdict="$(awk -v m="$med" -v t="$target" 'BEGIN { print (m < t) ? "met" : "MISSED" }')"
    fi
    ROWS+=("$(printf '%-16s %9s ms %9s..%-9s %8s KiB  target %-6s %-6s %s' "$name" "$med" "$(minof "${walls[@]}")" "$(maxof "${walls[@]}")" "$(maxof "${rsss[@]}")" "$target" "$verdict" "$status")")
}

NODES=(--nodes 2..200:2 --nodes inf)
bench_case bench_50x6x5 500 "" -- "$BIN" energy "$DATA/p50.csv" "${NODES[@]}"
RAYON_NUM_THREADS=1 bench_case bench_50x6x5_j1 - bench_50x6x5 -- "$BIN" energy "$DATA/p50.csv" "${NODES[@]}"
bench_case bench_3thr - "" -- "$BIN" energy "$DATA/p50.csv" "${NODES[@]}" -t emax -t max -t '2*max'
bench_case bench_200x6x5 - "" -- "$BIN" energy "$DATA/p200.csv" "${NODES[@]}"
bench_case mg_text - "" -- "$BIN" energy "$ROOT/data/energy_mg.csv"

REPORT="$RESULTS/$(date +%Y-%m-%d).txt"
{
    echo "errband energy benchmark, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, binary built from $REV"
    echo "case             median wall  (min..max)            peak RSS  target"
    printf '%s\n' "${ROWS[@]}"
} | tee "$REPORT"
