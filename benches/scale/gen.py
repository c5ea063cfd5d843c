#!/usr/bin/env python3
"""Deterministic synthetic inputs for benches/scale (Python stdlib only).

    gen.py OUT_DIR [NAME ...]

writes the named files into OUT_DIR (default: every file below), each from its
own fixed seed, so a file's bytes depend only on its name and this script.

  pmnf_N.txt     Extra-P text experiment, PARAMETER p, POINTS 4 8 16 32 64,
                 METRIC time, N regions (callpaths) kernel_000001 ... with
                 5 DATA lines of 5 repetitions each, N in 14, 100, 1000,
                 10000, 100000. Region i follows c0 + c1*p^(a/b)*log2(p)^c,
                 (a/b, c) one of Extra-P's 42 building blocks (or none: a
                 constant), with 2 % multiplicative noise (uniform in
                 [-2 %, +2 %]) per repetition.
  pts2_150000.txt
                 Extra-P text experiment with 150 000 regions of 2 points
                 each (p = 32, 64), 3 repetitions per point, same law.
  rows_1000000.csv
                 10^6 rows `p,time` at 7 distinct points p = 1, 2, ..., 64
                 (round robin), T(p) = 10 + 90/p with 2 % noise.
  fixed.tm       T(p) = c0 + c1*p, for every series of an experiment.
  rows.tm        time(p) = a + b/p, for rows_1000000.csv (named after its
                 column `time`, so no --y is needed).

Values are written with 6 significant digits as plain decimals (never in
exponent notation), as a profiler's text export would.
"""
import math
import os
import random
import sys
import zlib
from decimal import Decimal

# Extra-P's single-parameter building blocks p^(a/b) * log2(p)^c as (a, b, c),
# in its order (its basic modeller's search space with log terms and no
# negative exponents; the same list as PMNF_TERMS in src/family.rs).
PMNF_TERMS = [
    (0, 1, 1), (0, 1, 2), (1, 4, 0), (1, 3, 0), (1, 4, 1), (1, 3, 1), (1, 4, 2),
    (1, 3, 2), (1, 2, 0), (1, 2, 1), (1, 2, 2), (2, 3, 0), (3, 4, 0), (2, 3, 1),
    (3, 4, 1), (4, 5, 0), (2, 3, 2), (3, 4, 2), (1, 1, 0), (1, 1, 1), (1, 1, 2),
    (5, 4, 0), (5, 4, 1), (4, 3, 0), (4, 3, 1), (3, 2, 0), (3, 2, 1), (3, 2, 2),
    (5, 3, 0), (7, 4, 0), (2, 1, 0), (2, 1, 1), (2, 1, 2), (9, 4, 0), (7, 3, 0),
    (5, 2, 0), (5, 2, 1), (5, 2, 2), (8, 3, 0), (11, 4, 0), (3, 1, 0), (3, 1, 1),
]

POINTS = [4, 8, 16, 32, 64]
REPS = 5
NOISE = 0.02
CALLPATH_SIZES = [14, 100, 1000, 10000, 100000]


def fmt(v):
    """v with 6 significant digits, as a plain decimal (no exponent)."""
    s = f"{v:.6g}"
    if "e" in s or "E" in s:
        s = format(Decimal(s), "f")
    return s


def seed_of(name):
    return zlib.crc32(name.encode()) ^ 20261126


def law(rnd):
    """A random PMNF function c0 + c1*p^(a/b)*log2(p)^c, as (text, f)."""
    c0 = rnd.uniform(1.0, 100.0)
    k = rnd.randrange(len(PMNF_TERMS) + 1)
    if k == len(PMNF_TERMS):
        return f"{c0:.6g}", lambda p: c0
    a, b, c = PMNF_TERMS[k]
    # c1 so that the term is 0.1x to 10x c0 at p = 64: every term visible.
    t64 = 64 ** (a / b) * math.log2(64) ** c
    c1 = c0 * 10 ** rnd.uniform(-1.0, 1.0) / t64
    text = f"{c0:.6g} + {c1:.6g}*p^({a}/{b})*log2(p)^{c}"
    return text, lambda p: c0 + c1 * p ** (a / b) * math.log2(p) ** c


def noisy(rnd, v):
    return fmt(v * (1.0 + rnd.uniform(-NOISE, NOISE)))


def write_extrap(path, name, regions, points, reps):
    rnd = random.Random(seed_of(name))
    width = max(6, len(str(regions)))
    with open(path, "w") as f:
        f.write(f"# Synthetic Extra-P text experiment (benches/scale/gen.py, {name}):\n")
        f.write(f"# {regions} regions, each c0 + c1*p^(a/b)*log2(p)^c over Extra-P's building\n")
        f.write(f"# blocks with {NOISE:.0%} multiplicative noise, {reps} repetitions per point.\n")
        f.write("PARAMETER p\n")
        f.write("POINTS " + " ".join(f"( {p} )" for p in points) + "\n")
        f.write("METRIC time\n")
        for r in range(1, regions + 1):
            _, fn = law(rnd)
            f.write(f"\nREGION kernel_{r:0{width}d}\n")
            for p in points:
                v = fn(p)
                f.write("DATA " + " ".join(noisy(rnd, v) for _ in range(reps)) + "\n")


def write_rows(path, name, rows):
    rnd = random.Random(seed_of(name))
    pts = [1, 2, 4, 8, 16, 32, 64]
    with open(path, "w") as f:
        f.write("p,time\n")
        buf = []
        for i in range(rows):
            p = pts[i % len(pts)]
            buf.append(f"{p},{noisy(rnd, 10.0 + 90.0 / p)}\n")
            if len(buf) == 10000:
                f.write("".join(buf))
                buf = []
        f.write("".join(buf))


FIXED_TM = """\
# One model for every series of an experiment (benches/scale).
T(p) = c0 + c1*p
param c0, c1
predict p = 128, 1024
"""

ROWS_TM = """\
# Amdahl's law for rows_1000000.csv (benches/scale); the model is named
# after the CSV's measured column, `time`.
time(p) = a + b/p
param a, b
predict p = 128, 1024
"""


def write_text(path, text):
    with open(path, "w") as f:
        f.write(text)


def files():
    out = {}
    for n in CALLPATH_SIZES:
        out[f"pmnf_{n}.txt"] = lambda path, name, n=n: write_extrap(path, name, n, POINTS, REPS)
    out["pts2_150000.txt"] = lambda path, name: write_extrap(path, name, 150000, [32, 64], 3)
    out["rows_1000000.csv"] = lambda path, name: write_rows(path, name, 1000000)
    out["fixed.tm"] = lambda path, name: write_text(path, FIXED_TM)
    out["rows.tm"] = lambda path, name: write_text(path, ROWS_TM)
    return out


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) >= 2 else 2
    out_dir = argv[1]
    os.makedirs(out_dir, exist_ok=True)
    table = files()
    names = argv[2:] or list(table)
    for name in names:
        if name not in table:
            print(f"gen.py: unknown file {name} (known: {', '.join(table)})", file=sys.stderr)
            return 2
    for name in names:
        path = os.path.join(out_dir, name)
        tmp = path + ".tmp"
        table[name](tmp, name)
        os.replace(tmp, path)
        print(f"wrote {path} ({os.path.getsize(path)} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
