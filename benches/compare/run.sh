#!/usr/bin/env bash
# Benchmark errband against Z3 and HiGHS (scipy). See benches/compare/README.md.
#
#   bash benches/compare/run.sh            # full run
#   QUICK=1 bash benches/compare/run.sh    # Chebyshev instances with m <= 1000 only
#
# Environment:
#   QUICK=1               only the small Chebyshev instances (m <= 1000); all QE instances
#   Z3_TIMEOUT=SECONDS    per-call Z3 timeout (default 60)
#   ERRBAND_SKIP_BUILD=1  do not run cargo build (use the binaries already built)
#   ERRBAND_BIN, CHEB_BENCH_BIN, GEN_INSTANCES_BIN
#                         override the binaries (default target/release/...)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
HERE=benches/compare
VENV=$HERE/.venv
PY=$VENV/bin/python
ERRBAND_BIN=${ERRBAND_BIN:-target/release/errband}
CHEB_BENCH_BIN=${CHEB_BENCH_BIN:-target/release/examples/cheb_bench}
GEN_INSTANCES_BIN=${GEN_INSTANCES_BIN:-target/release/examples/gen_instances}
export Z3_TIMEOUT=${Z3_TIMEOUT:-60}

# 1. Python peers (z3, scipy/HiGHS, numpy) in a private venv.
if [ ! -x "$PY" ]; then
    echo "creating $VENV" >&2
    python3 -m venv "$VENV"
fi
if ! "$PY" -c 'import z3, scipy, numpy' 2>/dev/null; then
    echo "installing z3-solver scipy numpy into $VENV" >&2
    "$PY" -m pip install -q z3-solver scipy numpy
fi

# 2. Build errband and the two bench examples.
if [ "${ERRBAND_SKIP_BUILD:-0}" != 1 ]; then
    cargo build --release --bin errband --example gen_instances --example cheb_bench
fi

# 3. Regenerate the instances (the directory is generated and gitignored).
rm -rf "$HERE/instances"
mkdir -p "$HERE/instances"
"$GEN_INSTANCES_BIN" "$HERE/instances"

# 4. Compare; keep a dated copy of the tables (progress goes to stderr only).
args=(--errband "$ERRBAND_BIN" --cheb-bench "$CHEB_BENCH_BIN" --z3-timeout "$Z3_TIMEOUT")
suffix=""
if [ "${QUICK:-0}" = 1 ]; then
    args+=(--max-m 1000)
    suffix="-quick"
fi
mkdir -p "$HERE/results"
out="$HERE/results/$(date +%Y-%m-%d)$suffix.txt"
set +e
"$PY" -u "$HERE/compare.py" "$HERE/instances" "${args[@]}" | tee "$out"
status=${PIPESTATUS[0]}
set -e
echo "results written to $out (compare.py exit status $status)" >&2
exit "$status"
