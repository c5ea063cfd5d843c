#!/usr/bin/env bash
# Whole-process benchmark of whole experiments and readers (issue 18):
#   relearn      Extra-P's RELeARN text file: 14 callpaths, T(p, n) = c0 + c1*p + c2*n,
#                bands at 5 points                                  target < 1 s
#   relearn_xp   the same with the models Extra-P 4.2.5 chose (its printed output as the model) target < 1 s
#   extrap_100k  an Extra-P text file of 100 000 regions, one selected   target < 1 s
#   groups_1000  a CSV of 1 000 --by groups x 5 points x 3 repetitions (1 000 analyses)
#   osu_10k     100 000 lines of OSU-style whitespace-separated output
#   jsonl_50mb   a 50 MB Extra-P JSON Lines file, 50 series                  target >= 50 MB/s
#   family_1     --family pmnf without a model on Extra-P's documentation example
#                (one series, 5 points x 3 repetitions, 43 forms)      target < 200 ms (issue 19)
#   family_rl    --family pmnf without a model on the RELeARN file (14 callpaths,
#                two variables)                                        target < 3000 ms (issue 19)
#
#   benches/experiments/run.sh         # RUNS (5), NO_BUILD (0)
#   ERRBAND_BIN=/path/to/errband benches/experiments/run.sh   # another binary (A/B runs)
# The table is printed and written to benches/experiments/results/YYYY-MM-DD.txt.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
RUNS="${RUNS:-5}"
NO_BUILD="${NO_BUILD:-0}"
# shellcheck source=../lib.sh
source "$ROOT/benches/lib.sh"
bench_dirs experiments
build_binary

SHARED="$ROOT/../shared/extrap-data/tests/data"
RL_TM="$DATA/relearn.tm"
printf 'T(p, n) = c0 + c1*p + c2*n\nparam c0, c1, c2\npredict p = 1024..16384:*2, n = 10000\n' >"$RL_TM"
python3 - "$DATA" <<'PY'
import os, random, sys
d = sys.argv[1]
rnd = random.Random(18)
p = os.path.join(d, "regions_100k.txt")
if not os.path.exists(p):
    with open(p, "w") as f:
        f.write("PARAMETER p\nPOINTS 2 4 8 16\nMETRIC time\n")
        for i in range(100000):
            f.write("REGION r%d\n" % i)
            for x in (2, 4, 8, 16):
                f.write("DATA %s\n" % " ".join("%.4f" % (10 + 100 / x + rnd.random()) for _ in range(3)))
p = os.path.join(d, "groups_1000.csv")
if not os.path.exists(p):
    with open(p, "w") as f:
        f.write("kernel,p,T\n")
        for g in range(1000):
            for x in (2, 4, 8, 16, 32):
                for _ in range(3):
                    f.write("k%d,%d,%.4f\n" % (g, x, 1 + g / 100 + 50 / x + rnd.random() / 10))
p = os.path.join(d, "osu_10k.txt")
if not os.path.exists(p):
    with open(p, "w") as f:
        f.write("# OSU MPI Latency Test v5.6.2\n# Size          Latency (us)\n")
        for i in range(10000):
            f.write("%-8d %16.2f\n" % (i, 1.5 + i / 1000 + rnd.random()))
p = os.path.join(d, "big.jsonl")
if not os.path.exists(p):
    with open(p, "w") as f:
        i = 0
        while f.tell() < 50_000_000:
            # 50 series, each at all 30 points (6 values of p x 5 of n).
            k = i % 30
            x = 2 ** (1 + k // 5)
            f.write('{"params":{"p":%d,"n":%d},"callpath":"c%d","metric":"time","value":%.9f}\n' % (x, 100 * (1 + k % 5), (i // 30) % 50, 1 + rnd.random()))
            i += 1
PY
printf 'T(p) = a + b/p\nparam a, b\n' >"$DATA/amdahl.tm"
printf 'T(s) = a + b*s\nparam a, b\n' >"$DATA/osu.tm"
printf 'T(p, n) = a + b*p + c*n\nparam a, b, c\n' >"$DATA/pn.tm"

ROWS=()
bench_case() {
    local name="$1" want="$2"
    shift 3
    repeat_runs "$name" "$@"
    [[ "$STATUS" != ok ]] || grep -q "$want" "$OUT/$name.txt" || STATUS="unexpected output"
    ROWS+=("$(printf '%-12s %9s ms %9s..%-9s %9s KiB  %s' "$name" "$(median "${WALLS[@]}")" "$(minof "${WALLS[@]}")" "$(maxof "${WALLS[@]}")" "$(maxof "${RSSS[@]}")" "$STATUS")")
}

bench_case relearn "14 series" -- "$BIN" "$RL_TM" "$SHARED/text/mpa/relearn_data.txt"
bench_case relearn_xp "14 series" -- "$BIN" "$ROOT/data/extrap/relearn_print_all.txt" "$SHARED/text/mpa/relearn_data.txt" --aggregate mean
bench_case extrap_100k "r77777 / time" -- "$BIN" "$DATA/amdahl.tm" "$DATA/regions_100k.txt" --region r77777 --aggregate mean
bench_case groups_1000 "kernel=k999" -- "$BIN" "$DATA/amdahl.tm" "$DATA/groups_1000.csv" --by kernel --format csv --at p=1024
bench_case osu_10k "Fit" -- "$BIN" "$DATA/osu.tm" "$DATA/osu_10k.txt" --x s=Size --y Latency
bench_case jsonl_50mb "50 series" -- "$BIN" "$DATA/pn.tm" "$DATA/big.jsonl" --aggregate mean
bench_case family_1 "c0 + c1\*p^(5/4)\*log2(p)" -- "$BIN" "$ROOT/data/extrap/example.txt" --family pmnf --at p=128
bench_case family_rl "14 series" -- "$BIN" "$SHARED/text/mpa/relearn_data.txt" --family pmnf --at p=512,n=9000
MB="$(du -m "$DATA/big.jsonl" | cut -f1)"

REPORT="$RESULTS/$(date +%Y-%m-%d).txt"
{
    echo "errband experiments benchmark, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, binary built from $REV"
    echo "targets: relearn, relearn_xp < 1000 ms; extrap_100k < 1000 ms; jsonl_50mb >= 50 MB/s${MB:+ (file: $MB MB)}; family_1 < 200 ms; family_rl < 3000 ms"
    echo "case         median wall  (min..max)             peak RSS"
    printf '%s\n' "${ROWS[@]}"
} | tee "$REPORT"
