"""Model discovery on real held-out measurements: every series of one or
more holdout suites is run through errband's command line with no model
file (`errband DATA --holdout p>=X --format json`), and each held-out
measurement is checked against the bands errband gives at its point.

    python3 benches/holdout/discover.py BIN [--before] [--series] [--jobs N] SUITE.json...

Each table ends with the same figures by extrapolation distance: series
with one held-out scale, and the nearer and the farther of two. The
recommended band's table then splits its points by the answer's hinge
note: `(hinges)`, where the band does not hold the prediction of the form
fitted without the largest training scale, and `(does not hinge)`; and
`(value outside)` gives the points whose band does not hold the best
form's own least-squares value (the answer's fit note).
With --series every series' points are listed too (refused, or measurements
inside the recommended band of n, its half-width and the point error).

Bands read from each run's JSON (exact values, no rounding before the
comparison):

  recommended  the band errband recommends for the next measurement
               (`recommendation.points`): the trusted band of the best form
               of the default family, with the self-check gate, regime
               changes and the repetitions' scatter (errband 0.2 on)
  best form    the best form's trusted new-measurement band (the
               analysis' `trusted` band at the point)
  family band  the family's band of a new measurement at `trusted`

With --before the binary is an older errband without a default family or a
recommendation: it is run with `--family pmnf`, and only `best form` and
`family band` exist.

Per group and overall: points, points refused (no band), measurements
covered (of those with a band), series-mean coverage (every series weighs
the same: a series' coverage is its covered share of the measurements that
got a band), median and 90th-percentile relative half-width ((upper -
lower) / 2 over the mean of the held-out repetitions; points with a band),
and the median and 90th-percentile point-prediction error (|T(C, x*) -
mean| / mean of the best form's prediction, every point).
"""

import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time
from fractions import Fraction


def exact(v):
    return None if v is None else Fraction(v["exact"])


# The suite's series as Extra-P text and the percentiles, as the backtest
# script writes them.
from backtest import extrap_text, label, percentile, text_value, usable  # noqa: E402


KINDS = ["recommended", "best form", "family band"]


def run_series(binary, before, work, suite_name, s):
    """One series: (group, id, {kind: [(refused, inside, n, hw, err)]}, error)."""
    rows = s["train"] + s["holdout"]
    if all(Fraction(text_value(v)) == 0 for _, vals in s["train"] for v in vals):
        return None  # nothing to model (an all-zero callpath)
    name = (suite_name + "_" + s["id"]).replace("/", "_").replace(" ", "_")
    path = os.path.join(work, name + ".txt")
    with open(path, "w") as f:
        f.write(extrap_text(s["params"], sorted(rows, key=lambda r: [Fraction(str(c)) for c in r[0]])))
    first = s["params"][0]
    cut = min(Fraction(str(pt[0])) for pt, _ in s["holdout"])
    cmd = [binary, path, "--holdout", f"{first}>={cut}", "--format", "json"]
    if before:
        cmd += ["--family", "pmnf"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    out = {k: [] for k in KINDS}
    held = [(tuple(Fraction(str(c)) for c in pt), [Fraction(text_value(v)) for v in vals]) for pt, vals in s["holdout"]]
    if r.returncode != 0:
        err = r.stderr.strip().splitlines()[0] if r.stderr.strip() else f"exit {r.returncode}"
        for k in KINDS:
            out[k] = [(True, 0, len(v), None, None) for _, v in held]
        out["hinges"] = [False for _ in held]
        out["outside"] = [False for _ in held]
        return s["group"], s["id"], out, err
    doc = json.loads(r.stdout)
    key = lambda point: tuple(Fraction(point[p]) for p in s["params"])
    preds = {key(b["point"]): b for b in doc["bands"]}
    rec = {}
    out["hinges"] = []  # per point: the recommended band misses the fit without the largest scale
    out["outside"] = []  # per point: the recommended band misses the best form's own value
    if doc.get("recommendation"):
        rec = {key(p["point"]): p for p in doc["recommendation"]["points"]}
    fam = {}
    for b in (doc.get("family") or {}).get("bands", []):
        if label(b["threshold"]) == "trusted":
            fam[key(b["point"])] = b
    for pt, vals in held:
        mean = sum(vals) / len(vals)
        p = preds.get(pt)
        value = exact(p["model"]) if p else None
        err = None if value is None or mean == 0 else float(abs(value - mean) / abs(mean))
        bands = {}
        if rec.get(pt) and usable(rec[pt]["band"]):
            bands["recommended"] = rec[pt]["band"]
        if p:
            t = [b for b in p["bands"] if label(b["threshold"]) == "trusted"]
            if t and usable(t[0].get("measurement_band")):
                bands["best form"] = t[0]["measurement_band"]
        f = fam.get(pt)
        if f and not f.get("untrusted") and f["forms"] and usable(f["measurement_band"]):
            bands["family band"] = f["measurement_band"]
        out["hinges"].append(bool(rec.get(pt, {}).get("hinges")))
        out["outside"].append(bool(rec.get(pt, {}).get("value_outside")))
        for k in KINDS:
            b = bands.get(k)
            if b is None:
                out[k].append((True, 0, len(vals), None, err))
                continue
            lo, hi = exact(b["lower"]), exact(b["upper"])
            inside = sum(1 for v in vals if (lo is None or lo <= v) and (hi is None or v <= hi))
            hw = None if lo is None or hi is None or mean == 0 else float((hi - lo) / 2 / abs(mean))
            out[k].append((False, inside, len(vals), hw, err))
    return s["group"], s["id"], out, None


def summary(label, series):
    """series: list of point lists [(refused, inside, n, hw, err)]."""
    pts = [q for ps in series for q in ps]
    n = len(pts)
    refused = sum(1 for q in pts if q[0])
    meas = sum(q[2] for q in pts if not q[0])
    inside = sum(q[1] for q in pts if not q[0])
    covs = []
    for ps in series:
        m = sum(q[2] for q in ps if not q[0])
        if m:
            covs.append(sum(q[1] for q in ps if not q[0]) / m)
    hws = [q[3] for q in pts if not q[0] and q[3] is not None]
    errs = [q[4] for q in pts if q[4] is not None]
    f = lambda x: "     -" if x is None else f"{100 * x:5.1f}%"
    return {
        "line": f"{label:18} {len(series):6} {n:6} {f(refused / n if n else None):>7} {f(inside / meas if meas else None):>8} "
        f"{f(sum(covs) / len(covs) if covs else None):>8} {f(percentile(hws, .5)):>7} {f(percentile(hws, .9)):>7} "
        f"{f(percentile(errs, .5)):>7} {f(percentile(errs, .9)):>7}",
        "refused": refused / n if n else 0,
        "series_mean": sum(covs) / len(covs) if covs else 0,
        "median_hw": percentile(hws, .5) or 0,
    }


HEAD = f"{'group':18} {'series':>6} {'points':>6} {'refused':>7} {'covered':>8} {'ser.mean':>8} {'hw 50%':>7} {'hw 90%':>7} {'err 50%':>7} {'err 90%':>7}"


def main():
    args = sys.argv[1:]
    before = "--before" in args
    jobs = 2
    if "--jobs" in args:
        i = args.index("--jobs")
        jobs = int(args[i + 1])
        del args[i : i + 2]
    per_series = "--series" in args
    args = [a for a in args if a not in ("--before", "--series")]
    binary, suites = args[0], args[1:]
    t0 = time.time()
    results = []  # (suite, group, id, out, err)
    with tempfile.TemporaryDirectory() as work, concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        futures = []
        for path in suites:
            suite = json.load(open(path))
            sname = os.path.basename(os.path.dirname(os.path.abspath(path)))
            for s in suite["series"]:
                futures.append((sname, pool.submit(run_series, binary, before, work, sname, s)))
        for sname, fu in futures:
            r = fu.result()
            if r is not None:
                results.append((sname,) + r)
    elapsed = time.time() - t0
    kinds = KINDS[1:] if before else KINDS
    print(f"errband model discovery on held-out measurements ({'--family pmnf' if before else 'default family'}), {binary}")
    print(f"{len(results)} series in {elapsed:.1f} s")
    verdict = []
    for sname in dict.fromkeys(r[0] for r in results):
        mine = [r for r in results if r[0] == sname]
        for k in kinds:
            print(f"\n== suite {sname}, band: {k}")
            print(HEAD)
            for g in sorted(dict.fromkeys(r[1] for r in mine)):
                print(summary(g, [r[3][k] for r in mine if r[1] == g])["line"])
            s = summary("all", [r[3][k] for r in mine])
            print(s["line"])
            verdict.append((sname, k, s))
            # By extrapolation distance: series with one held-out scale,
            # and the nearer and the farther of two.
            one = [r[3][k] for r in mine if len(r[3][k]) == 1]
            two = [r[3][k] for r in mine if len(r[3][k]) == 2]
            print(summary("(one held out)", one)["line"])
            print(summary("(nearer of two)", [ps[:1] for ps in two])["line"])
            print(summary("(farther of two)", [ps[1:] for ps in two])["line"])
            if k == "recommended":
                # The answer's hinge note: points whose band does not hold
                # the prediction of the form fitted without the largest
                # training scale, against the rest.
                split = lambda note, flag: [
                    [q for q, h in zip(r[3][k], r[3][note]) if h == flag and not q[0]] for r in mine
                ]
                print(summary("(hinges)", [ps for ps in split("hinges", True) if ps])["line"])
                print(summary("(does not hinge)", [ps for ps in split("hinges", False) if ps])["line"])
                # The answer's fit note: the band does not hold the best
                # form's own least-squares value.
                print(summary("(value outside)", [ps for ps in split("outside", True) if ps])["line"])
    print("\nTargets: series-mean coverage >= 90 %, refused <= 15 %, median half-width <= 35 %")
    for sname, k, s in verdict:
        ok = lambda c: "met" if c else "MISSED"
        print(
            f"  {sname:8} {k:12}: series-mean {100 * s['series_mean']:5.1f} % ({ok(s['series_mean'] >= .9)}), "
            f"refused {100 * s['refused']:5.1f} % ({ok(s['refused'] <= .15)}), "
            f"median half-width {100 * s['median_hw']:5.1f} % ({ok(s['median_hw'] <= .35)})"
        )
    if per_series:
        print("\nPer series, recommended band (points: refused / inside of n, half-width, point error):")
        for r in results:
            pts = r[3][kinds[0]]
            cells = " ".join(
                "refused" if q[0] else f"{q[1]}/{q[2]} hw {100 * (q[3] or 0):.0f}% err {100 * (q[4] or 0):.0f}%" for q in pts
            )
            print(f"  {r[0]:8} {r[2]:50} {cells}")
    failed = [r for r in results if r[4]]
    print(f"\n{len(failed)} series failed to run")
    for r in failed[:40]:
        print(f"  {r[2]}: {r[4]}")


main()
