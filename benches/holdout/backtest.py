"""Runs the holdout suite through errband's command line (see run.sh).

For each series: the training measurements are written as an Extra-P text
file, Extra-P's chosen hypothesis as a model file, and errband is run with
`--at` every held-out point and `--format json`, with its default
thresholds (the paper's `max` and `trusted`). Each held-out measurement is
then inside or outside each band:

  paper     the band of the model value at threshold max (the paper's band)
  max+e     the band of a new measurement at threshold max ([L - e', U + e'])
  trusted   the band of a new measurement at the trusted threshold,
            max(2*remax, 5 %) ([L/(1+r), U/(1-r)]); refused from r = 50 %
  family    the family band of a new measurement (`errband DATA --family
            pmnf`, no model file): the hull of the trusted bands of every
            Extra-P normal form consistent at max(2*(smallest remax), 5 %);
            refused from r = 50 % or when no form is consistent

Half-width: (upper - lower) / 2 over the mean of the held-out repetitions.
ERRBAND_ARGS adds options to every run (e.g. `--aggregate mean`), to compare
variants; the table in the README is made without it.
Exact values are read from the JSON's `exact` fields, so nothing is rounded
before the comparison.
"""

import json
import os
import statistics
import subprocess
import sys
import time
from fractions import Fraction


def exact(v):
    return None if v is None else Fraction(v["exact"])


def usable(b):
    """The band when it is one: errband 0.2 says so in `status`; earlier
    versions left the band out or flagged it (`untrusted`, `empty`,
    `below_zero`)."""
    if not b:
        return None
    if "status" in b:
        return b if b["status"] == "ok" else None
    if "lower" not in b or "upper" not in b:
        # A shape this script does not know: reading it as a band (or as
        # none) would report a coverage that was never measured.
        raise ValueError(f"not a band: {sorted(b)}")
    if b.get("untrusted") or b.get("empty") or b.get("below_zero"):
        return None
    return b


def label(t):
    """A threshold's name: an object with `label` from errband 0.2 on, a
    string before."""
    return t["label"] if isinstance(t, dict) else t


def text_value(v):
    # Suites keep values as exact source text (strings) or JSON numbers.
    return v if isinstance(v, str) else repr(v)


def extrap_text(params, train):
    lines = [f"PARAMETER {p}" for p in params]
    pts = " ".join("(" + " ".join(str(c) for c in pt) + ")" for pt, _ in train)
    lines += [f"POINTS {pts}", "", "REGION series", "METRIC time"]
    lines += ["DATA " + " ".join(text_value(v) for v in vals) for _, vals in train]
    return "\n".join(lines) + "\n"


def percentile(xs, q):
    if not xs:
        return None
    xs = sorted(xs)
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


EXTRA = os.environ.get("ERRBAND_ARGS", "").split()


def main():
    binary, suite_path, work, rev = sys.argv[1:5]
    suite = json.load(open(suite_path))
    os.makedirs(work, exist_ok=True)
    kinds = ["paper", "max+e", "trusted", "family"]
    # group -> kind -> {"points", "refused", "meas", "inside", "hw": [...]}
    stats = {}
    failures = []
    t0 = time.time()
    for s in suite["series"]:
        train, holdout = s["train"], s["holdout"]
        if all(v == 0 for _, vals in train for v in vals):
            continue  # the all-zero RELeARN callpath: nothing to model
        hyp = s["extrap"]["str"]
        name = s["id"].replace("/", "_").replace(" ", "_")
        data = os.path.join(work, name + ".txt")
        model = os.path.join(work, name + ".model")
        with open(data, "w") as f:
            f.write(extrap_text(s["params"], train))
        with open(model, "w") as f:
            f.write(f"# Extra-P 4.2.5's hypothesis on the training data of {s['id']}\n{hyp}\n")
        cmd = [binary, model, data, "--format", "json"] + EXTRA
        for pt, _ in holdout:
            cmd += ["--at", ",".join(f"{p}={c}" for p, c in zip(s["params"], pt))]
        r = subprocess.run(cmd, capture_output=True, text=True)
        g = stats.setdefault(s["group"], {k: {"points": 0, "refused": 0, "meas": 0, "inside": 0, "hw": []} for k in kinds})
        if r.returncode != 0:
            failures.append(f"{s['id']}: exit {r.returncode}: {r.stderr.strip().splitlines()[0] if r.stderr.strip() else ''}")
            for k in kinds:
                g[k]["points"] += len(holdout)
                g[k]["refused"] += len(holdout)
            continue
        doc = json.loads(r.stdout)
        preds = doc["bands"][-len(holdout):]
        # The family: discovered from the data alone, Extra-P's normal forms.
        fcmd = [binary, data, "--family", "pmnf", "--format", "json"] + EXTRA + cmd[len(EXTRA) + 5:]
        fr = subprocess.run(fcmd, capture_output=True, text=True)
        fam = {}
        if fr.returncode == 0:
            for b in json.loads(fr.stdout)["family"]["bands"]:
                if label(b["threshold"]) == "trusted":
                    fam[tuple(b["point"][p] for p in s["params"])] = b
        else:
            failures.append(f"{s['id']} (family): exit {fr.returncode}: {fr.stderr.strip().splitlines()[0] if fr.stderr.strip() else ''}")
        for (pt, vals), p in zip(holdout, preds):
            by = {label(b["threshold"]): b for b in p["bands"]}
            mean = Fraction(statistics.mean(Fraction(repr(v)) for v in vals))
            for k in kinds:
                st = g[k]
                st["points"] += 1
                if k == "family":
                    b = fam.get(tuple(p["point"][q] for q in s["params"]))
                    band = None if b is None or b.get("untrusted") or b["forms"] == 0 else usable(b["measurement_band"])
                    if band is None:
                        st["refused"] += 1
                        continue
                else:
                    b = by["max" if k != "trusted" else "trusted"]
                    if k == "paper":
                        band = usable(b["band"] if "status" in b.get("band", {}) else b)
                    else:
                        band = usable(b["measurement_band"])
                    if band is None:
                        st["refused"] += 1
                        continue
                lo, hi = exact(band["lower"]), exact(band["upper"])
                if hi is not None and lo is not None and mean != 0:
                    st["hw"].append(float((hi - lo) / 2 / abs(mean)))
                for v in vals:
                    d = Fraction(repr(v))
                    st["meas"] += 1
                    st["inside"] += (lo is None or lo <= d) and (hi is None or d <= hi)
    elapsed = time.time() - t0

    def row(label, st):
        pts, ref, meas, ins = st["points"], st["refused"], st["meas"], st["inside"]
        cov = f"{100 * ins / meas:5.1f} %" if meas else "    -  "
        med = percentile(st["hw"], 0.5)
        p90 = percentile(st["hw"], 0.9)
        fmt = lambda x: "      -" if x is None else f"{100 * x:6.1f}%"
        return f"{label:10} {pts:6} {ref:7} {meas:6} {cov:>8} {fmt(med)} {fmt(p90)}"

    print(f"errband holdout backtest, {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}, binary built from {rev}")
    print(f"suite: {suite_path} (Extra-P {suite.get('extrap_version', '?')} hypotheses on the training scales)")
    print("bands: paper = model band at threshold max; max+e = new-measurement band at max;")
    print("       trusted = new-measurement band at max(2*remax, 5 %) (the default), refused from r = 50 %")
    print("       family = family band of a new measurement, errband DATA --family pmnf (no model file), at trusted")
    print()
    empty = lambda: {k: {"points": 0, "refused": 0, "meas": 0, "inside": 0, "hw": []} for k in kinds}
    total, reference = empty(), empty()
    for k in kinds:
        print(f"== {k}")
        print(f"{'group':10} {'points':>6} {'refused':>7} {'meas.':>6} {'covered':>8} {'median±':>7} {'p90±':>7}")
        for grp in sorted(stats):
            print(row(grp, stats[grp][k]))
            # The README's reference figures leave out RL-2D.
            for t in (total, reference) if grp != "RL-2D" else (total,):
                for key in ("points", "refused", "meas", "inside"):
                    t[k][key] += stats[grp][k][key]
                t[k]["hw"] += stats[grp][k]["hw"]
        print(row("all", total[k]))
        print(row("ref. set", reference[k]) + "   (all but RL-2D: the set of the README's reference figures)")
        print()
    for kind in ("trusted", "family"):
        for scope, tt in (("all groups", total), ("reference set", reference)):
            t = tt[kind]
            cov = t["inside"] / t["meas"] if t["meas"] else 0
            med = percentile(t["hw"], 0.5) or 0
            ref = t["refused"] / t["points"] if t["points"] else 1
            name = "trusted default" if kind == "trusted" else "family band"
            print(f"{name}, {scope}: covered {100 * cov:.1f} % (target >= 90 %), median half-width {100 * med:.1f} % (<= 25 %), refused {100 * ref:.1f} % (<= 25 %)")
    print(f"{len(failures)} series failed; {elapsed:.1f} s for {sum(1 for _ in suite['series'])} series")
    for f in failures:
        print("  failed: " + f)


if __name__ == "__main__":
    main()
