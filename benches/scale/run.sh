#!/usr/bin/env bash
# errband at the scale of real profiles, against Extra-P 4.2.5: whole
# processes, wall time and peak RSS, two errband builds interleaved with
# Extra-P (XP OLD NEW XP OLD NEW ...). See benches/scale/README.md.
#
#   benches/scale/run.sh OLD_BIN [NEW_BIN] [RUNS]      # NEW_BIN defaults to OLD_BIN, RUNS to 3
#
# Environment:
#   ONLY=family_100,fixed_10000   run only the named cases
#   SIZES=14,100,1000             run only the cases of these sizes (callpaths, regions, rows)
#   SKIP_EXTRAP=1                 no Extra-P runs (and no venv)
#   TAG=name                      results/YYYY-MM-DD-name.txt
#   TIMEOUT=600 XP_TIMEOUT=3600   time limit per errband / Extra-P run (s)
#   MEM_CAP_GB=10                 address-space cap per run (prlimit --as)
#   IDENTITY=0                    skip the extra untimed runs that hash /dev/null outputs
#   FORCE_PY_RUNNER=1             measure with the Python runner even with /usr/bin/time
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
if [[ $# -lt 1 || $# -gt 3 ]]; then
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
abs() { [[ "$1" == /* ]] && echo "$1" || echo "$PWD/$1"; }
OLD="$(abs "$1")"; NEW="$(abs "${2:-$1}")"; RUNS="${3:-3}"
PY="${PYTHON:-python3}"

# Extra-P 4.2.5 from PyPI in a private venv, created once. Its GUI needs
# PySide6, which pip installs too; the command line never loads it.
VENV="$HERE/.venv"
if [[ "${SKIP_EXTRAP:-0}" != 1 ]]; then
    if ! "$VENV/bin/extrap" --version 2>/dev/null | grep -qx 'Extra-P 4.2.5'; then
        echo "creating $VENV with extrap==4.2.5 (once) ..." >&2
        "$PY" -m venv "$VENV"
        "$VENV/bin/python" -m pip install -q --disable-pip-version-check 'extrap==4.2.5'
        "$VENV/bin/extrap" --version >&2
    fi
fi

exec "$PY" -u "$HERE/bench.py" --old "$OLD" --new "$NEW" --runs "$RUNS" --extrap "$VENV/bin/extrap"
