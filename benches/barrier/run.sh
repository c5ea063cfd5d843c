#!/usr/bin/env bash
# Whole-process benchmark of `errband barrier` (issue 6 names no target; these
# figures go in the closing note and the README).
#
#   benches/barrier/run.sh           # build, run all cases
#
# Cases (median wall time of the whole process over RUNS runs after one warm-up):
#   scmd_const     the paper's SCMD setting, N = 2..30, MPI_Barrier 120 us (text)
#   model_120      N = 2..120 against models/mpi_barrier.tm fitted to
#                  data/mpi_barrier.csv, thresholds max and 2*max, with the plot
#   model_1000     the same over N = 2..1000
#   model_10000    the same over N = 2..10000 (scaling)
#   intervals_1000 N = 2..1000, T_IB and T_SR intervals, constant MPI_Barrier
# The last run's output is checked: exit 0 and a times table.
#
# Environment: RUNS (10), NO_BUILD (0: build first).
# The table is printed and written to benches/barrier/results/YYYY-MM-DD.txt.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
RUNS="${RUNS:-10}"
NO_BUILD="${NO_BUILD:-0}"
# shellcheck source=../lib.sh
source "$ROOT/benches/lib.sh"
bench_dirs barrier
build_binary

ROWS=()
# case NAME -- CMD...
bench_case() {
    local name="$1"
    shift 2
    repeat_runs "$name" "$@"
    grep -q '^Times' "$OUT/$name.txt" || STATUS="no times table"
    ROWS+=("$(printf '%-16s %9s ms %9s..%-9s %8s KiB  %s' "$name" "$(median "${WALLS[@]}")" "$(minof "${WALLS[@]}")" "$(maxof "${WALLS[@]}")" "$(maxof "${RSSS[@]}")" "$STATUS")")
}

MPI=(--mpi-model "$ROOT/models/mpi_barrier.tm" --mpi-data "$ROOT/data/mpi_barrier.csv" -t max -t '2*max' --plot "$OUT/plot.svg")
bench_case scmd_const -- "$BIN" barrier --nodes 2..30 --mpi 120us
bench_case model_120 -- "$BIN" barrier --nodes 2..120 "${MPI[@]}"
bench_case model_1000 -- "$BIN" barrier --nodes 2..1000 "${MPI[@]}"
bench_case model_10000 -- "$BIN" barrier --nodes 2..10000 "${MPI[@]}"
bench_case intervals_1000 -- "$BIN" barrier --nodes 2..1000 --t-ib 2.7us..3.86us --t-sr 20us..60us:20us,40us..120us --mpi 100us..140us

REPORT="$RESULTS/$(date +%Y-%m-%d).txt"
{
    echo "errband barrier benchmark, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, binary built from $REV"
    echo "case             median wall  (min..max)            peak RSS"
    printf '%s\n' "${ROWS[@]}"
} | tee "$REPORT"
