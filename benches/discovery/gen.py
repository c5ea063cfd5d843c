#!/usr/bin/env python3
"""One strong-scaling series at the size model discovery promises to take
in under 0.3 s: 16 scales (p = 1..16), 50 repetitions each, an Amdahl law
(5 % serial) with 2 % Gaussian noise and a few 20 % outliers, written as
an Extra-P text experiment. Deterministic (fixed seed): the same file on
every machine."""
import random
import sys

rng = random.Random(20261127)
out = sys.argv[1] if len(sys.argv) > 1 else "s16x50.txt"
scales = list(range(1, 17))
with open(out, "w") as f:
    f.write("PARAMETER p\nPOINTS " + " ".join(f"({p})" for p in scales) + "\n\nREGION r\nMETRIC time\n")
    for p in scales:
        t = 100 * (0.05 + 0.95 / p)
        reps = []
        for _ in range(50):
            v = t * (1 + rng.gauss(0, 0.02))
            if rng.random() < 0.04:
                v *= 1.2
            reps.append(f"{v:.5g}")
        f.write("DATA " + " ".join(reps) + "\n")
