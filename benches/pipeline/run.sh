#!/usr/bin/env bash
# Whole-process benchmark of `errband MODEL DATA` (full text report).
#
#   benches/pipeline/run.sh            # build, generate data, run all cases
#   SKIP_HARD=1 benches/pipeline/run.sh
#
# Cases: the HPL example (models/hpl.tm, data/hpl.csv), synthetic data on a
# 55-point grid with m = 1000, 10000, 100000 rows, and data where every row is
# at a distinct point (m = 1000, 10000; no target): "hard" (p in 1..4096,
# n in 100..100000, so the exact fit's numbers grow with the lcm of the p
# values) and "distinct" (p a power of two, n distinct: only the number of
# distinct points grows). The data comes from benches/pipeline/gen.py
# (deterministic); the model is benches/pipeline/synth.tm.
#
# Each case runs RUNS times (after one untimed warm-up when RUNS >= 5); the
# table gives the median wall time (and min..max), the peak RSS (KiB, max over
# runs) and the medians of the phase times errband prints with --timings
# (parse = read model + data, analysis = fit, e_max, regions, bands,
# output = render + write the report). The report goes to a file under
# target/bench-data/out/, so writing it costs what writing a file costs.
#
# The table is printed and written to benches/pipeline/results/YYYY-MM-DD.txt.
#
# Environment:
#   RUNS_SMALL (10)  runs of hpl, synth_1000, synth_10000
#   RUNS_LARGE (3)   runs of synth_100000
#   RUNS_HARD  (1)   runs of hard_* and distinct_*
#   HARD_TIMEOUT (600) seconds allowed per hard/distinct run (needs `timeout`)
#   SKIP_HARD (0)    1: skip the hard cases
#   NO_BUILD (0)     1: use the existing target/release/errband
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

RUNS_SMALL="${RUNS_SMALL:-10}"
RUNS_LARGE="${RUNS_LARGE:-3}"
RUNS_HARD="${RUNS_HARD:-1}"
HARD_TIMEOUT="${HARD_TIMEOUT:-600}"
SKIP_HARD="${SKIP_HARD:-0}"
NO_BUILD="${NO_BUILD:-0}"

BIN="$ROOT/target/release/errband"
DATA="$ROOT/target/bench-data"
OUT="$DATA/out"
RESULTS="$ROOT/benches/pipeline/results"
MODEL="$ROOT/benches/pipeline/synth.tm"
mkdir -p "$DATA" "$OUT" "$RESULTS"

# shellcheck source=../lib.sh
source "$ROOT/benches/lib.sh"
build_binary

echo "generating data (benches/pipeline/gen.py) ..." >&2
python3 "$ROOT/benches/pipeline/gen.py" --out "$DATA" --model "$MODEL"

ROWS=()
add_case() {
    local name="$1" model="$2" data="$3" runs="$4" target_ms="$5" limit="${6:-0}"
    local -a walls=() rsss=() cpus=() tp=() ta=() to=() tt=()
    echo "  $name: $runs run(s) ..." >&2
    if [[ "$runs" -ge 5 ]]; then run_once "$name" "$limit" "$OUT/$name.txt" "$BIN" "$model" "$data" --timings; fi
    local i status="ok"
    for ((i = 0; i < runs; i++)); do
        run_once "$name" "$limit" "$OUT/$name.txt" "$BIN" "$model" "$data" --timings
        if [[ "$RC" != 0 ]]; then
            if [[ "$RC" == 124 ]]; then status="timeout>${limit}s"; else status="exit $RC"; fi
            echo "  $name: $status" >&2
            tail -5 "$OUT/$name.stderr" >&2 || true
            walls+=("$WALL_MS"); rsss+=("$RSS_KIB"); cpus+=("$CPU_MS")
            break
        fi
        walls+=("$WALL_MS"); rsss+=("$RSS_KIB"); cpus+=("$CPU_MS")
        tp+=("$T_PARSE"); ta+=("$T_ANALYSIS"); to+=("$T_OUTPUT"); tt+=("$T_TOTAL")
    done
    local m pts bytes
    m="$(grep -m1 -o '[0-9]* measurements' "$OUT/$name.txt" | cut -d' ' -f1 || true)"
    pts="$(grep -m1 -o 'at [0-9]* distinct' "$OUT/$name.txt" | cut -d' ' -f2 || true)"
    bytes="$(wc -c <"$OUT/$name.txt" | tr -d ' ')"
    local wall rss verdict
    wall="$(median "${walls[@]}")"
    rss="$(maxof "${rsss[@]}")"
    if [[ "$status" != ok ]]; then
        verdict="$status"
    elif [[ "$target_ms" == - ]]; then
        verdict="(no target)"
    else
        verdict="$(awk -v w="$wall" -v t="$target_ms" -v r="$rss" 'BEGIN { print ((w < t && r < 1048576) ? "MET" : "MISSED") }')"
    fi
    local tgt="-"
    [[ "$target_ms" != - ]] && tgt="<${target_ms} ms"
    ROWS+=("$(printf '%-14s %7s %6s %4s %10s %21s %9s %9s %9s %10s %9s %10s %10s  %-10s %s' \
        "$name" "${m:--}" "${pts:--}" "${#walls[@]}" "$wall" "$(minof "${walls[@]}")..$(maxof "${walls[@]}")" "$(median "${cpus[@]}")" "$rss" \
        "$(median "${tp[@]}")" "$(median "${ta[@]}")" "$(median "${to[@]}")" "$(median "${tt[@]}")" "$bytes" "$tgt" "$verdict")")
}

LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
STARTED="$(date '+%Y-%m-%d %H:%M:%S %z')"
echo "running ..." >&2
add_case hpl          "$ROOT/models/hpl.tm" "$ROOT/data/hpl.csv"     "$RUNS_SMALL" 20
add_case synth_1000   "$MODEL" "$DATA/synth_1000.csv"   "$RUNS_SMALL" 100
add_case synth_10000  "$MODEL" "$DATA/synth_10000.csv"  "$RUNS_SMALL" 1000
add_case synth_100000 "$MODEL" "$DATA/synth_100000.csv" "$RUNS_LARGE" 10000
if [[ "$SKIP_HARD" != 1 ]]; then
    add_case hard_1000      "$MODEL" "$DATA/hard_1000.csv"      "$RUNS_HARD" - "$HARD_TIMEOUT"
    add_case distinct_1000  "$MODEL" "$DATA/distinct_1000.csv"  "$RUNS_HARD" - "$HARD_TIMEOUT"
    add_case hard_10000     "$MODEL" "$DATA/hard_10000.csv"     "$RUNS_HARD" - "$HARD_TIMEOUT"
    add_case distinct_10000 "$MODEL" "$DATA/distinct_10000.csv" "$RUNS_HARD" - "$HARD_TIMEOUT"
fi

DATE="$(date +%Y-%m-%d)"
FILE="$RESULTS/$DATE.txt"
CPU="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)"
{
    echo "errband pipeline benchmark, started $STARTED, ended $(date '+%Y-%m-%d %H:%M:%S %z')"
    echo "load average before: $LOAD_BEFORE; after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
    echo "built from commit $REV; $(rustc --version 2>/dev/null || echo 'rustc ?'); ${CPU:-cpu ?}; $(nproc 2>/dev/null || echo '?') cpus"
    echo "command: target/release/errband MODEL DATA --timings > file (full text report); synthetic model benches/pipeline/synth.tm (k = 3, 20 prediction points)"
    echo "wall = median over runs (ms, min..max; includes starting /usr/bin/time, about 1-2 ms), cpu = median user+sys (ms, 10 ms resolution),"
    echo "rss = peak resident set (KiB, max over runs); parse/analysis/output/total = medians of errband --timings (ms, inside the process)"
    echo "targets: wall below the figure and rss < 1 GiB (1048576 KiB)"
    echo
    printf '%-14s %7s %6s %4s %10s %21s %9s %9s %9s %10s %9s %10s %10s  %-10s %s\n' \
        case m points runs wall_ms "min..max" cpu_ms rss_KiB parse analysis output total report_B target verdict
    printf '%s\n' "${ROWS[@]}"
} | tee "$FILE"
echo "written to ${FILE#"$ROOT"/}" >&2
