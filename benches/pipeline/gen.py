#!/usr/bin/env python3
"""Synthetic inputs for the whole-process pipeline benchmark (benches/pipeline/run.sh).

Writes, relative to the repository root (or to --out / --model):

* target/bench-data/synth_{1000,10000,100000}.csv -- a realistic grid:
  p = 1, 2, 4, ..., 1024 (11 values) x n = 1000..5000:1000 (5 values) = 55
  distinct points, rows cycling through the grid (repetitions) until m rows;
* target/bench-data/hard_{1000,10000}.csv -- every row at a distinct point:
  p drawn from 1..4096 and n from 100..100000 (integers), so log2(p) is
  mostly inexact (rounded to --digits significant digits by errband);
* target/bench-data/distinct_{1000,10000}.csv -- every row at a distinct
  point too, but p = 1, 2, ..., 1024 (powers of two) and n distinct integers
  from 100..100000: the same number of distinct points as hard_*, without
  the growth of the exact fit's denominators (lcm of the p values and
  rounded log2 values) that hard_* has;
* benches/pipeline/synth.tm -- the model (k = 3) with 20 prediction points.

Times follow T = 0.5 + 2e-9*n^3/p + 1e-7*n^2*log2(p) with ~2% multiplicative
Gaussian noise, written with 4 to 6 significant digits. Python 3 stdlib only;
the output is deterministic (fixed seeds), so the files are byte-identical
from run to run.
"""

import argparse
import math
import os
import random

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

MODEL = """\
# Synthetic benchmark model (benches/pipeline/gen.py writes this file).
# k = 3 parameters; log2 of a power of two is exact.
T(p, n) = c0 + c1*n^3/p + c2*n^2*log2(p)
param c0, c1, c2
predict p = 2048..32768:*2, n = 2000, 4000, 8000, 16000
unit T = s, p = processors
"""

GRID_P = [2 ** i for i in range(11)]  # 1..1024
GRID_N = [1000, 2000, 3000, 4000, 5000]


def truth(p, n):
    return 0.5 + 2e-9 * n ** 3 / p + 1e-7 * n * n * math.log2(p)


def fmt(v, rng):
    """v with 4, 5 or 6 significant digits, as a plain decimal."""
    sig = rng.choice((4, 5, 6))
    digits_before = int(math.floor(math.log10(abs(v)))) + 1
    decimals = max(0, sig - digits_before)
    return "%.*f" % (decimals, v)


def noisy(p, n, rng):
    return fmt(truth(p, n) * (1.0 + rng.gauss(0.0, 0.02)), rng)


def grid_csv(m, seed):
    rng = random.Random(seed)
    points = [(p, n) for n in GRID_N for p in GRID_P]
    lines = ["# SYNTHETIC (benches/pipeline/gen.py): %d rows on a %d-point grid" % (m, len(points)), "p,n,T"]
    for i in range(m):
        p, n = points[i % len(points)]
        lines.append("%d,%d,%s" % (p, n, noisy(p, n, rng)))
    return "\n".join(lines) + "\n"


def hard_csv(m, seed):
    rng = random.Random(seed)
    seen = set()
    lines = ["# SYNTHETIC (benches/pipeline/gen.py): %d rows, every one at a distinct point" % m, "p,n,T"]
    while len(seen) < m:
        p = rng.randint(1, 4096)
        n = rng.randint(100, 100000)
        if (p, n) in seen:
            continue
        seen.add((p, n))
        lines.append("%d,%d,%s" % (p, n, noisy(p, n, rng)))
    return "\n".join(lines) + "\n"


def distinct_csv(m, seed):
    rng = random.Random(seed)
    ns = rng.sample(range(100, 100001), m)
    lines = ["# SYNTHETIC (benches/pipeline/gen.py): %d rows, every one at a distinct point, p a power of two" % m, "p,n,T"]
    for n in ns:
        p = GRID_P[rng.randrange(len(GRID_P))]
        lines.append("%d,%d,%s" % (p, n, noisy(p, n, rng)))
    return "\n".join(lines) + "\n"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", newline="\n") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "target", "bench-data"), help="directory of the CSV files")
    ap.add_argument("--model", default=os.path.join(ROOT, "benches", "pipeline", "synth.tm"), help="model file to write")
    args = ap.parse_args()
    for m in (1000, 10000, 100000):
        write(os.path.join(args.out, "synth_%d.csv" % m), grid_csv(m, seed=20240 + m))
    for m in (1000, 10000):
        write(os.path.join(args.out, "hard_%d.csv" % m), hard_csv(m, seed=70707 + m))
        write(os.path.join(args.out, "distinct_%d.csv" % m), distinct_csv(m, seed=90909 + m))
    write(args.model, MODEL)


if __name__ == "__main__":
    main()
