#!/usr/bin/env bash
# The speed targets of the third hardening round, before and after: each
# case runs with the build from the start of the branch (BASE, built from
# commit 199700b into /tmp once) and with this tree's build, interleaved
# (base, new, base, new, ...), at least three times each; the median of each
# is printed beside its target. Times are CPU seconds (user + system, every
# thread, from wait4): the machine is shared, and a busy neighbour stretches
# the wall clock, not the work. A base run that passes CAP seconds of wall
# time is stopped and shown as "> CAP s".
#
#   benches/hardening/run.sh            # builds --release first
#   NO_BUILD=1 RUNS=5 CAP=60 benches/hardening/run.sh
#   BASE=/tmp/errband-base/errband      # the default
#   BASE=/tmp/other BASE_REV=371d86a TAG=log8 benches/hardening/run.sh
#
# Results go to benches/hardening/results/DATE.txt as well as stdout.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
NO_BUILD="${NO_BUILD:-0}"
RUNS="${RUNS:-3}"
CAP="${CAP:-30}"
BASE="${BASE:-/tmp/errband-base/errband}"
T="${CARGO_TARGET_DIR:-$ROOT/target}"
if [[ ! -x "$BASE" ]]; then
    echo "run.sh: no base build at $BASE; build commit 199700b there once:" >&2
    echo "  git -C $ROOT worktree add /tmp/errband-base-src 199700b && (cd /tmp/errband-base-src && CARGO_TARGET_DIR=/tmp/errband-base-target cargo build --release) && cp /tmp/errband-base-target/release/errband $BASE" >&2
    exit 1
fi
if [[ "$NO_BUILD" != 1 ]]; then
    cargo build --release --quiet
fi
NEW="$T/release/errband"
mkdir -p "$ROOT/benches/hardening/results"
OUTF="$ROOT/benches/hardening/results/$(date +%F)${TAG:+-$TAG}.txt"
python3 "$ROOT/benches/hardening/measure.py" --base "$BASE" --new "$NEW" --runs "$RUNS" --cap "$CAP" \
    --rev "$(git rev-parse --short HEAD)" --base-rev "${BASE_REV:-199700b}" | tee "$OUTF"
