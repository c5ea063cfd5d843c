"""The Python package's speed targets (issue 22), with the wheel installed:

    python benches/python/run.py [ERRBAND_BIN]

1. What calling from Python adds to an analysis: `errband.analyse` on HPL
   (median of 51 calls) against the same analysis inside the command line
   (its `--timings` total, median of 51 runs).
2. 100 000 residual rows to a DataFrame (`Analysis.residuals`, median of 7).

Prints the figures; results are kept under benches/python/results/.
"""

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import errband

ROOT = Path(__file__).resolve().parents[2]
BIN = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "target" / "release" / "errband")


def median_ms(f, n):
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts) * 1e3


def cli_total_ms():
    out = subprocess.run(
        [BIN, "models/hpl.tm", "data/hpl.csv", "--timings"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    line = next(l for l in out.stderr.splitlines() if l.startswith("timings:"))
    return float(line.rsplit("total ", 1)[1].split(" ms")[0])


py = median_ms(lambda: errband.analyse(ROOT / "models" / "hpl.tm", ROOT / "data" / "hpl.csv"), 51)
cli = statistics.median(cli_total_ms() for _ in range(51))
print(f"HPL analysis: Python {py:.2f} ms, inside the CLI {cli:.2f} ms, added {py - cli:.2f} ms (target < 5 ms)")

n = 100_000
with tempfile.TemporaryDirectory() as d:
    csv = Path(d) / "rows.csv"
    # Repeated measurements at 8 points, as a scaling study has them.
    csv.write_text("p,T\n" + "".join(f"{2 ** (i % 8)},{10 + (i * 7919) % 1000 / 100}\n" for i in range(n)))
    a = errband.analyse("T(p) = s + w/p\nparam s, w\n", csv, thresholds=["max"])
    frame = median_ms(lambda: a.residuals, 7)
print(f"{n} residual rows to a DataFrame: {frame:.0f} ms (target < 500 ms)")
