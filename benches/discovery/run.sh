#!/usr/bin/env bash
# Whole-process time of model discovery (no model file, the default family)
# on one series of 16 scales x 50 repetitions and on Extra-P's RELeARN
# experiment (14 callpaths), for a build BIN and optionally a second one
# (BEFORE), interleaved, with GNU time: user+system CPU seconds, wall
# seconds and peak memory per run, then medians.
#   benches/discovery/run.sh BIN [BEFORE] [RUNS]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="$1"; before="${2:-}"; runs="${3:-7}"
shared="${SHARED:-$here/../../../shared}"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
python3 "$here/gen.py" "$tmp/s16x50.txt"
relearn="$shared/extrap-data/tests/data/text/mpa/relearn_data.txt"
cases=("s16x50|$tmp/s16x50.txt --at p=64" "relearn|$relearn --format json")
one() { # label bin args...
  local label="$1" b="$2"; shift 2
  /usr/bin/time -f "$label %e %U %S %M" -a -o "$tmp/times" "$b" "$@" >/dev/null 2>&1 || true
}
for c in "${cases[@]}"; do
  name="${c%%|*}"; args="${c#*|}"
  [ -e "${args%% *}" ] || { echo "skip $name: ${args%% *} missing"; continue; }
  # shellcheck disable=SC2086
  for _ in $(seq "$runs"); do
    one "$name:after" "$bin" $args
    [ -n "$before" ] && one "$name:before" "$before" $args
  done
done
python3 - "$tmp/times" <<'PY'
import sys, statistics as st
rows = {}
for line in open(sys.argv[1]):
    label, wall, user, sys_, kb = line.split()
    rows.setdefault(label, []).append((float(wall), float(user) + float(sys_), int(kb)))
print(f"{'case':<18} {'runs':>4} {'wall s':>8} {'cpu s':>8} {'peak MB':>8}")
for label, r in rows.items():
    print(f"{label:<18} {len(r):>4} {st.median(x[0] for x in r):>8.3f} {st.median(x[1] for x in r):>8.3f} {st.median(x[2] for x in r)/1024:>8.1f}")
PY
