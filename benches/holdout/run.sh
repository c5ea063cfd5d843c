#!/usr/bin/env bash
# Backtest of errband's bands on real held-out measurements (issue 19):
# every series of ../shared/holdout/suite.json is fitted on its training
# scales with the hypothesis Extra-P 4.2.5 chose for it, and each held-out
# measurement is checked against the bands errband gives at its point.
#
#   benches/holdout/run.sh          # NO_BUILD=1 to use the existing binary
#
# Prints the table (per group and overall) and writes it to
# benches/holdout/results/YYYY-MM-DD.txt. Target (issue 19): the trusted
# band covers >= 90 % of the measurements it gives a band for, median
# half-width <= 25 %, at most 25 % of the points refused; under 30 s.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
NO_BUILD="${NO_BUILD:-0}"
# shellcheck source=../lib.sh
source "$ROOT/benches/lib.sh"
bench_dirs holdout
build_binary

SUITE="$ROOT/../shared/holdout/suite.json"
[[ -f "$SUITE" ]] || { echo "run.sh: $SUITE is missing (../shared beside the project)" >&2; exit 1; }
REPORT="$RESULTS/$(date +%Y-%m-%d).txt"
python3 "$ROOT/benches/holdout/backtest.py" "$BIN" "$SUITE" "$DATA" "$REV" | tee "$REPORT"
