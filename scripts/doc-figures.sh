#!/usr/bin/env bash
# Redraws the figures in docs/ from the bundled examples with the errband
# binary given (default: target/release/errband). Run after a change to the
# plots, look at the result, commit it.
#
#   scripts/doc-figures.sh [path/to/errband]
set -euo pipefail
cd "$(dirname "$0")/.."
E="${1:-target/release/errband}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

"$E" models/hpl.tm data/hpl.csv --drop p=110 --plot band=docs/hpl-band.svg >/dev/null
"$E" models/hpl.tm data/hpl.csv -t max -t emax --plot region=docs/hpl-region.svg >/dev/null
"$E" barrier --nodes 2,3,4,12,13,30,31,64,120 --mpi-model models/mpi_barrier.tm \
    --mpi-data data/mpi_barrier.csv -t max --conclude-at 30 --plot docs/barrier.svg >/dev/null
"$E" energy data/energy_mg.csv --nodes 16,1024,inf \
    --plot delta=docs/energy-delta.svg --plot shares=docs/energy-shares.svg >/dev/null
"$E" ms mandelbrot --out "$TMP/mandelbrot.csv"
"$E" ms predict "$TMP/mandelbrot.csv" --grid 1024x1024 --procs 8,16,32,48,64,80,96,128 \
    --compare-subsets 1/16,1/1024,1/65536 --plot docs/ms.svg >/dev/null
