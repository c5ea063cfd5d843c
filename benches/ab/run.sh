#!/usr/bin/env bash
# A/B whole-process benchmark: the same commands run by two errband binaries,
# interleaved (A, B, A, B, ...) so that both see the same machine load.
#
#   benches/ab/run.sh OLD_BINARY NEW_BINARY [RUNS]
#
# Cases: the main command on the HPL example (text and JSON), on the pipeline
# benchmark's synthetic data (1 000 / 10 000 / 100 000 rows; JSON of 10 000),
# the paper's qe formulas, prune and plan on HPL, energy on the MG profile,
# barrier with the fitted MPI_Barrier model, and ms predict on the bundled
# Mandelbrot sub-grid, and RELeARN with Extra-P's models (whole, one series). Prints, per case, the median wall time of each binary
# (ms), the ratio new/old, and the peak RSS (KiB, max over runs). Results go to
# benches/ab/results/YYYY-MM-DD.txt as well.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
A="$1"; B="$2"; RUNS="${3:-7}"
DATA="$ROOT/target/bench-data/ab"; OUT="$DATA/out"; mkdir -p "$DATA" "$OUT" "$ROOT/benches/ab/results"
python3 "$ROOT/benches/pipeline/gen.py" --out "$DATA" --model "$DATA/synth.tm" >/dev/null

CASES=(
  "hpl|models/hpl.tm data/hpl.csv"
  "hpl_json|models/hpl.tm data/hpl.csv --format json"
  "synth_1000|$DATA/synth.tm $DATA/synth_1000.csv"
  "synth_10000|$DATA/synth.tm $DATA/synth_10000.csv"
  "synth_10000_json|$DATA/synth.tm $DATA/synth_10000.csv --format json"
  "synth_100000|$DATA/synth.tm $DATA/synth_100000.csv"
  "qe_eq5|qe models/hpl_eq5.qe --order dc2,dc1"
  "qe_eq6|qe models/hpl_eq6.qe"
  "prune_hpl|prune models/hpl.tm data/hpl.csv --target p=1000 --max-drop 2"
  "plan_hpl|plan models/hpl.tm data/hpl.csv --target p=1000 --candidates p=130..300:10"
  "energy_mg|energy data/energy_mg.csv --nodes 16,1024,inf"
  "barrier|barrier --nodes 2..120 --mpi-model models/mpi_barrier.tm --mpi-data data/mpi_barrier.csv"
  "ms_predict|ms predict data/mandelbrot_32x32.csv --grid 1024x1024 --procs 8,16,32,64,128"
  "relearn_xp|data/extrap/relearn_print_all.txt ../shared/extrap-data/tests/data/text/mpa/relearn_data.txt --at p=512,n=9000"
  "relearn_single|data/extrap/relearn_print_all.txt ../shared/extrap-data/tests/data/text/mpa/relearn_data.txt --region main() --at p=512,n=9000"
)

# one BIN ARGS...: prints "wall_ms rss_kib"
one() {
    local bin="$1"; shift
    local t0 t1
    t0=$(date +%s%N)
    /usr/bin/time -f "%M" -o "$OUT/rss" "$bin" "$@" >"$OUT/stdout" 2>"$OUT/stderr" || true
    t1=$(date +%s%N)
    echo "$(( (t1 - t0) / 1000000 )) $(cat "$OUT/rss")"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

{
printf '# errband A/B, %s runs each, interleaved; %s\n' "$RUNS" "$(date -u +%FT%TZ)"
printf '# A = %s\n# B = %s\n' "$A" "$B"
printf '%-18s %10s %10s %7s %10s %10s\n' case A_ms B_ms B/A A_rss_KiB B_rss_KiB
for c in "${CASES[@]}"; do
    name="${c%%|*}"; read -r -a args <<<"${c#*|}"
    : >"$OUT/a"; : >"$OUT/b"
    for _ in $(seq "$RUNS"); do
        one "$A" "${args[@]}" >>"$OUT/a"
        one "$B" "${args[@]}" >>"$OUT/b"
    done
    am=$(cut -d' ' -f1 "$OUT/a" | median); bm=$(cut -d' ' -f1 "$OUT/b" | median)
    ar=$(cut -d' ' -f2 "$OUT/a" | sort -n | tail -1); br=$(cut -d' ' -f2 "$OUT/b" | sort -n | tail -1)
    printf '%-18s %10s %10s %7.3f %10s %10s\n' "$name" "$am" "$bm" "$(echo "$bm / ($am + 0.0001)" | bc -l)" "$ar" "$br"
done
} | tee "$ROOT/benches/ab/results/$(date -u +%F).txt"
