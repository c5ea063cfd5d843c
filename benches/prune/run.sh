#!/usr/bin/env bash
# Whole-process benchmark of `errband prune`, `errband plan` and `--report`.
#
#   benches/prune/run.sh               # build, generate data, run all cases
#   SKIP_SLOW=1 benches/prune/run.sh   # without the 1000-distinct-point cases
#
# Cases (targets from the issue; wall time of the whole process):
#   hpl_prune, hpl_prune_j1   errband prune models/hpl.tm data/hpl.csv --unweighted
#                             -t max --target p=1000 --max-drop 2 (12 leave-one-out,
#                             66 pairs, 3 greedy steps: 79 candidates); < 500 ms;
#                             _j1 is the same with -j 1 (no target)
#   hpl_report                errband models/hpl.tm data/hpl.csv --report OUT.html
#                             --timings > /dev/null; < 200 ms
#   hpl_plan                  errband plan models/hpl.tm data/hpl.csv --unweighted
#                             -t max --target p=1000 --candidates p=130..300:10 (no target)
#   synth_prune, synth_prune_j1
#                             errband prune benches/pipeline/synth.tm synth_10000.csv
#                             --target p=4096,n=8000 --top 50 --max-drop 1 --greedy 0
#                             -t max: m = 10000 on 55 distinct points, leave-one-out
#                             over the 50 largest residuals; < 10 s (default threads),
#                             _j1 with -j 1 (no target)
#   rep_prune, rep_prune_j1   the same on rep_1000x10.csv: m = 10000 on 1000 distinct
#                             points x 10 repetitions (no target; slow)
#   distinct_prune            the same on distinct_1000.csv: m = 1000, every row a
#                             distinct point (no target; slow)
# synth_10000.csv and distinct_1000.csv come from benches/pipeline/gen.py,
# rep_1000x10.csv from benches/prune/gen.py (which reuses the pipeline
# generator's truth and noise); all deterministic. The target point
# p = 4096, n = 8000 lies outside the data (p <= 1024, and n <= 5000 for synth).
#
# Each case runs RUNS times (after one untimed warm-up when RUNS >= 5); the
# table gives the median wall time (and min..max), the median CPU time
# (user+sys; cpu/wall > 1 means more than one core was busy), the peak RSS
# (KiB, max over runs, /usr/bin/time), the candidate count and wall time per
# candidate. The last run's output is checked: exit 0, the ranked table
# present (or a complete HTML file), and for _j1 cases the same standard
# output as with the default thread count.
#
# The table is printed and written to benches/prune/results/YYYY-MM-DD.txt.
#
# Environment:
#   RUNS_FAST (10)   runs of the hpl cases
#   RUNS_MID  (5)    runs of synth_prune, synth_prune_j1
#   RUNS_SLOW (3)    runs of rep_prune, rep_prune_j1, distinct_prune
#   SLOW_TIMEOUT (600) seconds allowed per slow run (needs `timeout`)
#   SKIP_SLOW (0)    1: skip the slow cases
#   NO_BUILD (0)     1: use the existing target/release/errband
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

RUNS_FAST="${RUNS_FAST:-10}"
RUNS_MID="${RUNS_MID:-5}"
RUNS_SLOW="${RUNS_SLOW:-3}"
SLOW_TIMEOUT="${SLOW_TIMEOUT:-600}"
SKIP_SLOW="${SKIP_SLOW:-0}"
NO_BUILD="${NO_BUILD:-0}"

BIN="$ROOT/target/release/errband"
DATA="$ROOT/target/bench-data/prune"
OUT="$DATA/out"
RESULTS="$ROOT/benches/prune/results"
MODEL="$ROOT/benches/pipeline/synth.tm"
HPL_MODEL="$ROOT/models/hpl.tm"
HPL_DATA="$ROOT/data/hpl.csv"
SYNTH_TARGET="p=4096,n=8000"
mkdir -p "$DATA" "$OUT" "$RESULTS"

# shellcheck source=../lib.sh
source "$ROOT/benches/lib.sh"
build_binary

echo "generating data (benches/pipeline/gen.py, benches/prune/gen.py) ..." >&2
# gen.py also writes its model; write it here, not over benches/pipeline/synth.tm.
python3 "$ROOT/benches/pipeline/gen.py" --out "$DATA" --model "$DATA/synth.tm"
if ! cmp -s "$DATA/synth.tm" "$MODEL"; then
    echo "run.sh: warning: benches/pipeline/synth.tm differs from what gen.py writes; timing the committed file" >&2
fi
python3 "$ROOT/benches/prune/gen.py" --out "$DATA"

NCPU="$(nproc 2>/dev/null || echo '?')"
# check_output NAME KIND SAME_AS: prints "ok" or what is wrong with the last run.
check_output() {
    local name="$1" kind="$2" same_as="$3"
    local txt="$OUT/$name.txt" err="$OUT/$name.stderr"
    if grep -v '^timings:' "$err" | grep -q .; then echo "stderr not empty"; return; fi
    case "$kind" in
        prune)
            grep -q '^[0-9]* candidates (' "$txt" && grep -q '^ *1  ' "$txt" && grep -q '^Best: ' "$txt" \
                || { echo "bad table"; return; } ;;
        plan)
            grep -q '^[0-9]* candidate points, ranked' "$txt" && grep -q '^ *1  ' "$txt" \
                || { echo "bad table"; return; } ;;
        report)
            local html="$OUT/$name.html"
            [[ -s "$html" ]] && grep -qi '<html' "$html" && grep -qi '</html>' "$html" \
                || { echo "bad html"; return; } ;;
    esac
    if [[ -n "$same_as" ]] && ! cmp -s "$txt" "$OUT/$same_as.txt"; then
        echo "output differs from $same_as"; return
    fi
    echo ok
}

ROWS=()
# add_case NAME RUNS TARGET_MS LIMIT KIND SAME_AS -- CMD...
#   KIND: prune | plan | report (report: stdout to /dev/null, HTML to OUT/NAME.html)
add_case() {
    local name="$1" runs="$2" target_ms="$3" limit="$4" kind="$5" same_as="$6"
    shift 7
    local -a cmd=("$@")
    local stdout="$OUT/$name.txt"
    if [[ "$kind" == report ]]; then stdout=/dev/null; : >"$OUT/$name.txt"; fi
    local -a walls=() rsss=() cpus=() ta=() to=()
    echo "  $name: $runs run(s) ..." >&2
    if [[ "$runs" -ge 5 ]]; then run_once "$name" "$limit" "$stdout" "${cmd[@]}"; fi
    local i status="ok"
    for ((i = 0; i < runs; i++)); do
        run_once "$name" "$limit" "$stdout" "${cmd[@]}"
        walls+=("$WALL_MS"); rsss+=("$RSS_KIB"); cpus+=("$CPU_MS")
        if [[ "$RC" != 0 ]]; then
            if [[ "$RC" == 124 ]]; then status="timeout>${limit}s"; else status="exit $RC"; fi
            echo "  $name: $status" >&2
            tail -5 "$OUT/$name.stderr" >&2 || true
            break
        fi
        ta+=("$T_ANALYSIS"); to+=("$T_OUTPUT")
    done
    local check="-"
    [[ "$status" == ok ]] && check="$(check_output "$name" "$kind" "$same_as")"
    [[ "$check" != ok && "$check" != - ]] && echo "  $name: check: $check" >&2
    local cands
    cands="$(grep -m1 -o '^[0-9]* candidate' "$OUT/$name.txt" | cut -d' ' -f1 || true)"
    local wall rss cpu verdict per
    wall="$(median "${walls[@]}")"
    rss="$(maxof "${rsss[@]}")"
    cpu="$(median "${cpus[@]}")"
    if [[ "$status" != ok ]]; then
        verdict="$status"
    elif [[ "$target_ms" == - ]]; then
        verdict="(no target)"
    else
        verdict="$(awk -v w="$wall" -v t="$target_ms" 'BEGIN { print ((w < t) ? "MET" : "MISSED") }')"
    fi
    per="-"
    [[ -n "$cands" && "$cands" -gt 0 ]] && per="$(awk -v w="$wall" -v c="$cands" 'BEGIN { printf "%.1f", w / c }')"
    local tgt="-"
    [[ "$target_ms" != - ]] && tgt="<${target_ms} ms"
    ROWS+=("$(printf '%-15s %4s %5s %10s %21s %9s %6s %9s %8s %9s %7s  %-10s %-12s %s' \
        "$name" "${#walls[@]}" "${cands:--}" "$wall" "$(minof "${walls[@]}")..$(maxof "${walls[@]}")" "$cpu" \
        "$(awk -v c="$cpu" -v w="$wall" 'BEGIN { if (w > 0) printf "%.2f", c / w; else print "-" }')" \
        "$rss" "$per" "$(median "${ta[@]}")" "$(median "${to[@]}")" "$tgt" "$verdict" "$check")")
}

PRUNE_SYNTH=(--target "$SYNTH_TARGET" --top 50 --max-drop 1 --greedy 0 -t max)

LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
STARTED="$(date '+%Y-%m-%d %H:%M:%S %z')"
echo "running ..." >&2
add_case hpl_prune      "$RUNS_FAST" 500 0 prune "" -- \
    "$BIN" prune "$HPL_MODEL" "$HPL_DATA" --unweighted -t max --target p=1000 --max-drop 2
add_case hpl_prune_j1   "$RUNS_FAST" - 0 prune hpl_prune -- \
    "$BIN" prune "$HPL_MODEL" "$HPL_DATA" --unweighted -t max --target p=1000 --max-drop 2 -j 1
add_case hpl_report     "$RUNS_FAST" 200 0 report "" -- \
    "$BIN" "$HPL_MODEL" "$HPL_DATA" --report "$OUT/hpl_report.html" --timings
add_case hpl_plan       "$RUNS_FAST" - 0 plan "" -- \
    "$BIN" plan "$HPL_MODEL" "$HPL_DATA" --unweighted -t max --target p=1000 --candidates p=130..300:10
add_case synth_prune    "$RUNS_MID" 10000 0 prune "" -- \
    "$BIN" prune "$MODEL" "$DATA/synth_10000.csv" "${PRUNE_SYNTH[@]}"
add_case synth_prune_j1 "$RUNS_MID" - 0 prune synth_prune -- \
    "$BIN" prune "$MODEL" "$DATA/synth_10000.csv" "${PRUNE_SYNTH[@]}" -j 1
if [[ "$SKIP_SLOW" != 1 ]]; then
    add_case rep_prune      "$RUNS_SLOW" - "$SLOW_TIMEOUT" prune "" -- \
        "$BIN" prune "$MODEL" "$DATA/rep_1000x10.csv" "${PRUNE_SYNTH[@]}"
    add_case rep_prune_j1   "$RUNS_SLOW" - "$SLOW_TIMEOUT" prune rep_prune -- \
        "$BIN" prune "$MODEL" "$DATA/rep_1000x10.csv" "${PRUNE_SYNTH[@]}" -j 1
    add_case distinct_prune "$RUNS_SLOW" - "$SLOW_TIMEOUT" prune "" -- \
        "$BIN" prune "$MODEL" "$DATA/distinct_1000.csv" "${PRUNE_SYNTH[@]}"
fi

DATE="$(date +%Y-%m-%d)"
FILE="$RESULTS/$DATE.txt"
CPU="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)"
{
    echo "errband prune/plan/report benchmark, started $STARTED, ended $(date '+%Y-%m-%d %H:%M:%S %z')"
    echo "load average before: $LOAD_BEFORE; after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
    echo "built from commit $REV; $(rustc --version 2>/dev/null || echo 'rustc ?'); ${CPU:-cpu ?}; $NCPU cpus (default -j = one thread per core)"
    echo "commands: see benches/prune/run.sh (hpl = models/hpl.tm data/hpl.csv; synth/rep/distinct = benches/pipeline/synth.tm with"
    echo "  synth_10000.csv (m 10000, 55 points), rep_1000x10.csv (m 10000, 1000 points), distinct_1000.csv (m 1000, 1000 points),"
    echo "  --target $SYNTH_TARGET --top 50 --max-drop 1 --greedy 0 -t max)"
    echo "wall = median over runs (ms, min..max; includes starting /usr/bin/time, about 1-2 ms), cpu = median user+sys (ms, 10 ms resolution),"
    echo "rss = peak resident set (KiB, max over runs); cands = candidates (prune) or candidate points (plan); ms/cand = wall / cands;"
    echo "analysis/output = medians of errband --timings (ms, inside the process; report case only)"
    echo "targets: median wall below the figure; check = the last run's output (exit 0, table or HTML complete, -j 1 output identical)"
    echo
    printf '%-15s %4s %5s %10s %21s %9s %6s %9s %8s %9s %7s  %-10s %-12s %s\n' \
        case runs cands wall_ms "min..max" cpu_ms cpu/wl rss_KiB ms/cand analysis output target verdict check
    printf '%s\n' "${ROWS[@]}"
} | tee "$FILE"
echo "written to ${FILE#"$ROOT"/}" >&2
