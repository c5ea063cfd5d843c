#!/usr/bin/env bash
# The hard cases of issue 20, whole process, two binaries interleaved
# (A, B, A, B, ...) so that both see the same machine load.
#
#   benches/targets/run.sh OLD_BINARY NEW_BINARY [RUNS]
#
# Cases (data from benches/pipeline/gen.py and benches/targets/gen.py,
# deterministic):
#   hard_1000 / hard_10000  synth.tm on 1 000 / 10 000 rows at distinct points
#                           (p in 1..4096, so the exact fit grows with lcm(p))
#   amdahl_4000             T(p) = a + b/p on p = 1..4000, 2 % noise
#   prune_1000              prune, leave-one-out among the 50 largest residuals
#                           on p = 1..1000
#   barrier_10000           barrier --nodes 2..10000 with the fitted MPI model
#   hpl_100k                models/hpl.tm at 100 000 prediction points, CSV
#   poly8_30                a degree-8 polynomial on 30 points, full report
# Prints the median wall time of each binary (ms), the ratio new/old, and
# the peak RSS (KiB). A run past TIMEOUT seconds (default 300) counts as
# the timeout. Results go to benches/targets/results/YYYY-MM-DD.txt, or
# YYYY-MM-DD-TAG.txt with TAG=...; ONLY=hpl_100k,barrier_10000 runs only
# the cases named.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
A="$1"; B="$2"; RUNS="${3:-3}"; TIMEOUT="${TIMEOUT:-300}"
DATA="$ROOT/target/bench-data/targets"; OUT="$DATA/out"; mkdir -p "$DATA" "$OUT" "$ROOT/benches/targets/results"
python3 "$ROOT/benches/pipeline/gen.py" --out "$DATA" --model "$DATA/synth.tm" >/dev/null
python3 "$ROOT/benches/targets/gen.py" "$DATA"

CASES=(
  "hard_1000|$DATA/synth.tm $DATA/hard_1000.csv"
  "hard_10000|$DATA/synth.tm $DATA/hard_10000.csv"
  "amdahl_4000|$DATA/amdahl.tm $DATA/amdahl_4000.csv"
  "prune_1000|prune $DATA/amdahl.tm $DATA/amdahl_1000.csv --target p=8192 --max-drop 1 --top 50"
  "barrier_10000|barrier --nodes 2..10000 --mpi-model models/mpi_barrier.tm --mpi-data data/mpi_barrier.csv"
  "hpl_100k|models/hpl.tm data/hpl.csv --at p=1..100000 --format csv"
  "poly8_30|$DATA/poly8.tm $DATA/poly8.csv"
)

# one BIN ARGS...: prints "wall_ms rss_kib"; the output is kept for the
# identity check below.
one() {
    local bin="$1" tag="$2"; shift 2
    local t0 t1
    t0=$(date +%s%N)
    timeout "$TIMEOUT" /usr/bin/time -f "%M" -o "$OUT/rss" "$bin" "$@" >"$OUT/$tag.stdout" 2>"$OUT/stderr" || true
    t1=$(date +%s%N)
    echo "$(( (t1 - t0) / 1000000 )) $(tail -1 "$OUT/rss" 2>/dev/null || echo 0)"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

{
printf '# errband issue-20 targets, %s runs each, interleaved; %s\n' "$RUNS" "$(date -u +%FT%TZ)"
printf '# A = %s\n# B = %s\n' "$A" "$B"
printf '%-14s %10s %10s %7s %10s %10s %s\n' case A_ms B_ms B/A A_rss_KiB B_rss_KiB output
for c in "${CASES[@]}"; do
    name="${c%%|*}"; read -r -a args <<<"${c#*|}"
    if [[ -n "${ONLY:-}" && ",$ONLY," != *",$name,"* ]]; then continue; fi
    : >"$OUT/a"; : >"$OUT/b"
    for _ in $(seq "$RUNS"); do
        one "$A" a "${args[@]}" >>"$OUT/a"
        one "$B" b "${args[@]}" >>"$OUT/b"
    done
    am=$(cut -d' ' -f1 "$OUT/a" | median); bm=$(cut -d' ' -f1 "$OUT/b" | median)
    ar=$(cut -d' ' -f2 "$OUT/a" | sort -n | tail -1); br=$(cut -d' ' -f2 "$OUT/b" | sort -n | tail -1)
    same=$(cmp -s "$OUT/a.stdout" "$OUT/b.stdout" && echo identical || echo DIFFERS)
    printf '%-14s %10s %10s %7.3f %10s %10s %s\n' "$name" "$am" "$bm" "$(echo "$bm / ($am + 0.0001)" | bc -l)" "$ar" "$br" "$same"
done
} | tee "$ROOT/benches/targets/results/$(date -u +%F)${TAG:+-$TAG}.txt"
