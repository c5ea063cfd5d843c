# Shared by the whole-process benchmark scripts (benches/*/run.sh): tool
# detection, a wall clock, one timed run with peak memory, and statistics.
# Source it after setting ROOT, BIN, DATA and NO_BUILD (or call bench_dirs);
# run_once also needs OUT.

# bench_dirs NAME: the usual layout for benches/NAME/run.sh — BIN (the release
# binary), DATA (target/bench-data/NAME), OUT ($DATA/out) and RESULTS
# (benches/NAME/results), created. Needs ROOT.
bench_dirs() {
    BIN="$ROOT/target/release/errband"
    DATA="$ROOT/target/bench-data/$1"
    OUT="$DATA/out"
    RESULTS="$ROOT/benches/$1/results"
    mkdir -p "$DATA" "$OUT" "$RESULTS"
}

# build_binary: builds --release unless NO_BUILD=1, records the source state in
# REV, and points BIN at a private copy of the binary in $DATA, so that a
# rebuild during the run does not mix binaries. Needs ROOT, BIN, DATA, NO_BUILD.
build_binary() {
    # ERRBAND_BIN: benchmark a given binary (e.g. an older build, for A/B runs).
    if [[ -n "${ERRBAND_BIN:-}" ]]; then
        [[ -x "$ERRBAND_BIN" ]] || { echo "run.sh: ERRBAND_BIN=$ERRBAND_BIN is not an executable" >&2; exit 1; }
        REV="given binary $ERRBAND_BIN"
        cp "$ERRBAND_BIN" "$DATA/errband"
        BIN="$DATA/errband"
        return
    fi
    # The source state the binary is built from (others may commit during the run).
    REV="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    if [[ "$REV" != unknown ]] && [[ -n "$(git -C "$ROOT" status --porcelain -- src Cargo.toml Cargo.lock 2>/dev/null)" ]]; then
        REV="$REV+uncommitted changes in src"
    fi
    [[ "$NO_BUILD" == 1 ]] && REV="$REV (NO_BUILD: existing binary, built from an unknown state)"
    if [[ "$NO_BUILD" != 1 ]]; then
        echo "building (cargo build --release) ..." >&2
        cargo build --release --quiet
    fi
    [[ -x "$BIN" ]] || { echo "run.sh: $BIN is missing (build failed?)" >&2; exit 1; }
    cp "$BIN" "$DATA/errband"
    BIN="$DATA/errband"
}

HAVE_TIME=0
if [[ -x /usr/bin/time ]] && /usr/bin/time -f "%e %M" true 2>/dev/null; then
    HAVE_TIME=1
fi
HAVE_TIMEOUT=0
command -v timeout >/dev/null 2>&1 && HAVE_TIMEOUT=1

# now_ns: a monotonic-enough wall clock in nanoseconds.
if [[ -n "${EPOCHREALTIME:-}" ]]; then
    now_ns() { local t="${EPOCHREALTIME/[.,]/}"; echo "${t}000"; }
else
    now_ns() { date +%s%N; }
fi

# run_once NAME LIMIT STDOUT CMD...: runs CMD once (killed after LIMIT s when LIMIT > 0);
# sets WALL_MS, RSS_KIB, CPU_MS, RC, and T_PARSE, T_ANALYSIS, T_OUTPUT, T_TOTAL from
# errband's --timings line when it printed one. Needs $OUT.
run_once() {
    local name="$1" limit="$2" stdout="$3"
    shift 3
    local err="$OUT/$name.stderr" rss="$OUT/$name.rss"
    local -a cmd=("$@")
    if [[ "$limit" -gt 0 && "$HAVE_TIMEOUT" == 1 ]]; then
        cmd=(timeout "$limit" "${cmd[@]}")
    fi
    local t0 t1
    t0="$(now_ns)"
    set +e
    if [[ "$HAVE_TIME" == 1 ]]; then
        /usr/bin/time -o "$rss" -f "%e %M %U %S" "${cmd[@]}" >"$stdout" 2>"$err"
        RC=$?
    else
        python3 - "$rss" "${cmd[@]}" >"$stdout" 2>"$err" <<'PY'
import resource, subprocess, sys
rc = subprocess.call(sys.argv[2:])
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as f:
    f.write("0 %d %.2f %.2f\n" % (ru.ru_maxrss, ru.ru_utime, ru.ru_stime))
sys.exit(rc)
PY
        RC=$?
    fi
    set -e
    t1="$(now_ns)"
    WALL_MS="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e6 }')"
    RSS_KIB="$(awk 'END { print $2 }' "$rss" 2>/dev/null || echo 0)"
    CPU_MS="$(awk 'END { printf "%.0f", ($3 + $4) * 1000 }' "$rss" 2>/dev/null || echo 0)"
    local line
    line="$(grep -m1 '^timings:' "$err" || true)"
    # timings: parse 0.3 ms, analysis 6.9 ms (...), output 1.5 ms, total 8.6 ms
    T_PARSE="$(sed -n 's/.*parse \([0-9.]*\) ms.*/\1/p' <<<"$line")"
    T_ANALYSIS="$(sed -n 's/.*analysis \([0-9.]*\) ms.*/\1/p' <<<"$line")"
    T_OUTPUT="$(sed -n 's/.*output \([0-9.]*\) ms.*/\1/p' <<<"$line")"
    T_TOTAL="$(sed -n 's/.*total \([0-9.]*\) ms.*/\1/p' <<<"$line")"
}

# median of the arguments (numbers)
# repeat_runs NAME CMD...: one warm-up run, then RUNS timed runs of CMD (stdout
# to $OUT/NAME.txt); sets WALLS and RSSS (arrays) and STATUS (ok, or the exit code).
repeat_runs() {
    local name="$1" i
    shift
    WALLS=(); RSSS=(); STATUS=ok
    run_once "$name" 0 "$OUT/$name.txt" "$@"
    for ((i = 0; i < RUNS; i++)); do
        run_once "$name" 0 "$OUT/$name.txt" "$@"
        [[ "$RC" == 0 ]] || { STATUS="exit $RC"; break; }
        WALLS+=("$WALL_MS"); RSSS+=("$RSS_KIB")
    done
}

median() { printf '%s\n' "$@" | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
minof() { printf '%s\n' "$@" | sort -g | head -1; }
maxof() { printf '%s\n' "$@" | sort -g | tail -1; }

