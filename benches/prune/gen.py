#!/usr/bin/env python3
"""Extra synthetic input for the prune benchmark (benches/prune/run.sh).

benches/pipeline/gen.py makes the 55-point grid data (synth_10000.csv) and
data where every row is a distinct point (distinct_1000.csv). This script
adds the case between them: many distinct points, each measured several
times, with the same model, truth and noise as the pipeline data.

* OUT/rep_1000x10.csv -- 1000 distinct points (p = 1, 2, 4, ..., 1024, n
  distinct integers from 100..100000, as in distinct_*), rows cycling
  through the points 10 times: m = 10000.

Python 3 stdlib only; deterministic (fixed seed), byte-identical from run to run.
"""

import argparse
import importlib.util
import os
import random
import sys

sys.dont_write_bytecode = True  # do not leave __pycache__ in benches/pipeline

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))

# Reuse the pipeline generator's truth, noise and number format.
_spec = importlib.util.spec_from_file_location("pipeline_gen", os.path.join(ROOT, "benches", "pipeline", "gen.py"))
pipeline = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pipeline)


def repeated_csv(points, reps, seed):
    rng = random.Random(seed)
    pick = random.Random(seed + 1)
    ns = pick.sample(range(100, 100001), points)
    pts = [(pipeline.GRID_P[pick.randrange(len(pipeline.GRID_P))], n) for n in ns]
    m = points * reps
    lines = [
        "# SYNTHETIC (benches/prune/gen.py): %d rows, %d distinct points x %d repetitions, p a power of two"
        % (m, points, reps),
        "p,n,T",
    ]
    for i in range(m):
        p, n = pts[i % points]
        lines.append("%d,%d,%s" % (p, n, pipeline.noisy(p, n, rng)))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "target", "bench-data", "prune"), help="directory of the CSV files")
    args = ap.parse_args()
    pipeline.write(os.path.join(args.out, "rep_1000x10.csv"), repeated_csv(1000, 10, seed=31337))


if __name__ == "__main__":
    main()
