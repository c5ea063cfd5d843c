#!/usr/bin/env python3
"""Follow the answer's `hint: the data grow faster than ...` on held-out data.

For every single-variable series of the given suites whose default model
discovery says the data grow faster than the family's steepest term
(`family.steeper_than_family` in the JSON), fit the steeper form the hint
suggests, `c0 + c1*x^4`, as a model file, and compare the recommended band
at the nearest held-out scale with the default's: held-out runs inside,
relative half-width, point error. Exact values from the JSON.

    python3 benches/holdout/steeper.py target/release/errband SUITE.json...
"""

import json
import os
import subprocess
import sys
import tempfile
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from backtest import text_value  # noqa: E402


def exact(v):
    return None if v is None else Fraction(v["exact"])


def run(binary, args):
    r = subprocess.run([binary, *args, "--format", "json"], capture_output=True, text=True)
    return json.loads(r.stdout) if r.returncode == 0 else None


def band_at(doc, vals):
    """(inside, n, half-width, point error) of the recommended band, or None."""
    pts = ((doc or {}).get("recommendation") or {}).get("points") or []
    if not pts or pts[0]["band"]["status"] not in ("ok", "clipped"):
        return None
    b = pts[0]["band"]
    lo, hi = exact(b["lower"]), exact(b["upper"])
    mean = sum(vals) / len(vals)
    inside = sum(1 for v in vals if (lo is None or lo <= v) and (hi is None or v <= hi))
    hw = None if lo is None or hi is None else float((hi - lo) / 2 / mean)
    return inside, len(vals), hw, float(abs(exact(pts[0]["value"]) - mean) / mean)


def show(r):
    if r is None:
        return "refused"
    inside, n, hw, err = r
    return f"{inside}/{n} hw {'-' if hw is None else f'{100 * hw:.1f}%'} err {100 * err:.1f}%"


def main():
    binary, suites = sys.argv[1], sys.argv[2:]
    work = tempfile.mkdtemp(prefix="errband-steeper-")
    for path in suites:
        for s in json.load(open(path))["series"]:
            if len(s["params"]) != 1:
                continue
            var = s["params"][0]
            csv = os.path.join(work, "data.csv")
            with open(csv, "w") as f:
                f.write(f"{var},T\n")
                for (x,), ys in s["train"]:
                    for y in ys:
                        f.write(f"{x},{y}\n")
            (x,), ys = min(s["holdout"], key=lambda h: Fraction(str(h[0][0])))
            vals = [Fraction(text_value(v)) for v in ys]
            default = run(binary, [csv, "--at", f"{var}={x}"])
            if not ((default or {}).get("family") or {}).get("steeper_than_family"):
                continue
            model = os.path.join(work, "steep.tm")
            with open(model, "w") as f:
                f.write(f"T({var}) = c0 + c1*{var}^4\nparam c0, c1\n")
            steep = run(binary, [model, csv, "--at", f"{var}={x}"])
            print(f"{s['id']:45} {var} = {x}:  default {show(band_at(default, vals)):28} c0 + c1*{var}^4 {show(band_at(steep, vals))}")


if __name__ == "__main__":
    main()
