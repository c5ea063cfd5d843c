#!/usr/bin/env python3
"""Compare errband against peer solvers (Z3, HiGHS via SciPy).

Usage:
    compare.py INSTANCE_DIR [--errband PATH] [--cheb-bench PATH]
               [--z3-timeout SECONDS] [--max-m M] [--qe-runs N]

Two instance families are read from INSTANCE_DIR:

* ``*.qe``: quantifier-elimination problems in errband syntax.  errband is
  timed as a whole process (``errband qe FILE``, median of --qe-runs runs, so
  its time includes process start-up; the header reports that start-up cost).
  Z3 is timed in-process on the SMT-LIB2 form printed by
  ``errband qe --emit-problem smtlib FILE``: tactics ``qe`` and ``qe2``,
  parse time excluded, median of 5 runs (1 run if the first takes > 2 s).

* ``cheb_m{M}_k{K}.csv`` + ``.json`` sidecar: Chebyshev (minimax) residual
  problems.  e_max = min e s.t. |Phi c - y| <= e, and the band at the sidecar
  point x*: min and max of x*.c s.t. |Phi c - y| <= threshold.  errband's
  in-process times come from ``cheb_bench FILE.csv`` (one JSON line).  HiGHS
  (scipy.optimize.linprog, method="highs", floating point) is timed on the
  solve call only, median of 3.  For M <= 10000, Z3's exact Optimize is also
  run on e_max (only check() is timed) and its optimum compared exactly.

Results go to stdout as aligned tables; progress goes to stderr.
Ratios are peer_ms / errband_ms: > 1 means errband is faster.
Exit status: 0 normally (also when a peer times out or fails), 1 if any
result DISAGREEs, 2 if errband itself could not be run on some instance.
"""

import argparse
import csv
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import scipy
import z3
from scipy.optimize import linprog

REPO = Path(__file__).resolve().parents[2]
REL_TOL = 1e-6          # agreement tolerance errband (exact) vs HiGHS (float)
Z3_OPT_MAX_M = 10000    # run Z3 Optimize on e_max only up to this many rows
CHEB_RE = re.compile(r"^cheb_m(\d+)_k(\d+)\.csv$")


NOTES = []              # failures/warnings, printed under the next table


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def note(msg):
    """Log a failure or warning and keep it for the results record."""
    log("  " + msg)
    NOTES.append(msg)


def median_ms(samples):
    return statistics.median(samples) * 1000.0


def fmt_ms(v):
    """Format a time in ms, or pass a status string through."""
    if isinstance(v, str):
        return v
    return f"{v:.3f}" if v < 10 else f"{v:.1f}"


def fmt_ratio(peer, ours):
    if isinstance(peer, str) or isinstance(ours, str) or ours <= 0:
        return "-"
    return f"{peer / ours:.2f}x"


def print_table(title, headers, rows):
    """Print rows (lists of str) as a left/right aligned plain-text table."""
    widths = [max(len(str(r[i])) for r in [headers] + rows) for i in range(len(headers))]

    def line(cells):
        out = [str(c).ljust(w) if i in (0, len(cells) - 1) else str(c).rjust(w)
               for i, (c, w) in enumerate(zip(cells, widths))]
        return "  ".join(out).rstrip()

    print(f"\n== {title} ==")
    print(line(headers))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(line(r))
    for n in NOTES:
        print(f"note: {n}")
    NOTES.clear()
    sys.stdout.flush()


# ---------------------------------------------------------------- environment

def cpu_model():
    try:
        for ln in Path("/proc/cpuinfo").read_text().splitlines():
            if ln.startswith("model name"):
                return ln.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def run_text(cmd):
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} exited {res.returncode}: "
                           f"{res.stderr.strip()[:500]}")
    return res.stdout


def time_process(cmd, runs):
    """Median wall time (ms) of running cmd `runs` times, output discarded."""
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        samples.append(time.perf_counter() - t0)
        if rc != 0:
            raise RuntimeError(f"{' '.join(map(str, cmd))} exited {rc}")
    return median_ms(samples)


def header(args):
    try:
        eb_version = run_text([args.errband, "--version"]).strip()
        startup = fmt_ms(time_process([args.errband, "--version"], args.qe_runs))
    except (OSError, RuntimeError) as exc:
        eb_version, startup = f"unavailable ({exc})", "-"
    print(f"errband comparison  {datetime.datetime.now().isoformat(timespec='seconds')}")
    print(f"cpu: {cpu_model()} ({os.cpu_count()} logical)   python {platform.python_version()}")
    print(f"versions: {eb_version}; z3 {z3.get_version_string()}; scipy {scipy.__version__} "
          f"(HiGHS); numpy {np.__version__}")
    print(f"errband process start-up (median `errband --version`): {startup} ms   "
          f"z3 timeout: {args.z3_timeout:g} s")
    sys.stdout.flush()


# ---------------------------------------------------------------- QE family

def has_quantifier(expr):
    """True if a quantifier occurs anywhere in the Z3 expression."""
    stack, seen = [expr], set()
    while stack:
        e = stack.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        if z3.is_quantifier(e):
            return True
        stack.extend(e.children())
    return False


def time_z3_tactic(goal, name, timeout_ms, label, runs=5):
    """Median ms of applying Z3 tactic `name` to goal, or a status string.

    On timeout Z3's qe tactics may either raise or return the goal with the
    quantifiers still in it; both are reported as "timeout".  A result that
    keeps a quantifier before the time limit is reported as "incomplete".
    """
    samples = []
    for i in range(runs):
        tactic = z3.TryFor(z3.Tactic(name), timeout_ms)
        t0 = time.perf_counter()
        try:
            result = tactic(goal)
        except z3.Z3Exception as exc:
            elapsed = time.perf_counter() - t0
            if "cancel" in str(exc) or "timeout" in str(exc) or elapsed * 1000 >= 0.9 * timeout_ms:
                return "timeout"
            note(f"{label}: z3 {name}: {exc}")
            return "error"
        samples.append(time.perf_counter() - t0)
        if has_quantifier(result.as_expr()):
            return "timeout" if samples[-1] * 1000 >= 0.9 * timeout_ms else "incomplete"
        if i == 0 and samples[0] > 2.0:
            break
    return median_ms(samples)


def qe_equivalent(args, f, smt, timeout_ms):
    """Checks with Z3 that errband's quantifier-free result is equivalent to
    its input: `not (input <=> output)` must be unsatisfiable."""
    try:
        res = run_text([args.errband, "qe", "--format", "smtlib", str(f)]).strip()
        decls = "\n".join(l for l in smt.splitlines() if l.startswith("(declare-fun"))
        inp = z3.And(*z3.parse_smt2_string(smt))
        out = z3.And(*z3.parse_smt2_string(decls + f"\n(assert {res})"))
        s = z3.Solver()
        s.set("timeout", timeout_ms)
        s.add(z3.Not(inp == out))
        r = s.check()
    except (OSError, RuntimeError, z3.Z3Exception) as exc:
        note(f"{f.name}: equivalence check failed to run: {exc}")
        return "error"
    return "agree" if r == z3.unsat else ("DISAGREE" if r == z3.sat else "unknown")


def run_qe(args, files):
    rows, errors, disagree = [], 0, 0
    timeout_ms = int(args.z3_timeout * 1000)
    for f in files:
        log(f"qe: {f.name}")
        try:
            smt = run_text([args.errband, "qe", "--emit-problem", "smtlib", str(f)])
            eb = time_process([args.errband, "qe", str(f)], args.qe_runs)
        except (OSError, RuntimeError) as exc:
            note(f"{f.name}: errband failed: {exc}")
            rows.append([f.name, "ERROR", "-", "-", "-", "-", "errband failed"])
            errors += 1
            continue
        try:
            goal = z3.Goal()
            goal.add(*z3.parse_smt2_string(smt))
        except z3.Z3Exception as exc:
            note(f"{f.name}: z3 could not parse the emitted SMT-LIB: {exc}")
            rows.append([f.name, fmt_ms(eb), "parse err", "parse err", "-", "-", "-"])
            errors += 1
            continue
        qe = time_z3_tactic(goal, "qe", timeout_ms, f.name)
        qe2 = time_z3_tactic(goal, "qe2", timeout_ms, f.name)
        agreement = qe_equivalent(args, f, smt, timeout_ms)
        disagree += agreement == "DISAGREE"
        rows.append([f.name, fmt_ms(eb), fmt_ms(qe), fmt_ms(qe2),
                     fmt_ratio(qe, eb), fmt_ratio(qe2, eb), agreement])
    print_table(f"QE (errband: whole process, median of {args.qe_runs}; "
                "z3: in-process tactic, median of 5)",
                ["instance", "errband ms", "z3 qe ms", "z3 qe2 ms",
                 "qe/errband", "qe2/errband", "agreement"], rows)
    return disagree, errors


# ---------------------------------------------------------------- Chebyshev family

def load_cheb(csv_path):
    """Return (decimal-string rows, Phi float array, y float array, sidecar dict)."""
    with open(csv_path, newline="") as fh:
        reader = csv.reader(fh)
        head = next(reader)
        rows = [r for r in reader if r]
    if head[-1].strip() != "y" or len(head) < 2:
        raise ValueError(f"{csv_path}: header must be phi1,...,phiK,y")
    data = np.array(rows, dtype=float)
    side = json.loads(csv_path.with_suffix(".json").read_text())
    return rows, data[:, :-1], data[:, -1], side


def timed_linprog(c, a_ub, b_ub, reps=3):
    """Solve min c.x s.t. a_ub x <= b_ub (x free) with HiGHS; (fun, median ms)."""
    bounds = [(None, None)] * len(c)
    samples, res = [], None
    for _ in range(reps):
        t0 = time.perf_counter()
        res = linprog(c, A_ub=a_ub, b_ub=b_ub, bounds=bounds, method="highs")
        samples.append(time.perf_counter() - t0)
    if res.status != 0:
        raise RuntimeError(f"HiGHS status {res.status}: {res.message}")
    return res.fun, samples


def highs_cheb(phi, y, side):
    """Return dict with HiGHS e_max / band values and times (ms)."""
    m, k = phi.shape
    # e_max: variables (c_1..c_K, e); Phi c - e <= y and -Phi c - e <= -y.
    ones = np.ones((m, 1))
    a = np.vstack([np.hstack([phi, -ones]), np.hstack([-phi, -ones])])
    b = np.concatenate([y, -y])
    obj = np.zeros(k + 1)
    obj[-1] = 1.0
    emax, t_emax = timed_linprog(obj, a, b)
    # band: variables c; Phi c <= y + t and -Phi c <= t - y.
    t = float(side["threshold"])
    x = np.array([float(v) for v in side["point"]])
    if x.shape != (k,):
        raise ValueError(f"sidecar point has {x.size} entries, expected {k}")
    a2 = np.vstack([phi, -phi])
    b2 = np.concatenate([y + t, t - y])
    lo, t_lo = timed_linprog(x, a2, b2)
    neg_hi, t_hi = timed_linprog(-x, a2, b2)
    band = [a_ + b_ for a_, b_ in zip(t_lo, t_hi)]
    return {"emax": emax, "emax_ms": median_ms(t_emax),
            "band_lo": lo, "band_hi": -neg_hi, "band_ms": median_ms(band)}


def z3_cheb_emax(rows, timeout_ms):
    """Exact e_max with z3.Optimize; returns (Fraction or None, ms or status)."""
    k = len(rows[0]) - 1
    cs = [z3.Real(f"c{j}") for j in range(k)]
    e = z3.Real("e")
    opt = z3.Optimize()
    for r in rows:
        resid = z3.Sum([z3.RealVal(v.strip()) * cj for v, cj in zip(r[:-1], cs)]) \
            - z3.RealVal(r[-1].strip())
        opt.add(resid <= e, -e <= resid)
    h = opt.minimize(e)
    opt.set("timeout", timeout_ms)
    t0 = time.perf_counter()
    status = opt.check()
    ms = (time.perf_counter() - t0) * 1000.0
    if status != z3.sat:
        return None, "timeout" if status == z3.unknown else str(status)
    return h.value().as_fraction(), ms


def close(exact, approx):
    """Agreement test: relative 1e-6, absolute 1e-6 for |values| < 1."""
    a = float(exact)
    return abs(a - approx) <= REL_TOL * max(1.0, abs(a), abs(approx))


def run_cheb(args, files):
    rows, disagree, errors = [], 0, 0
    timeout_ms = int(args.z3_timeout * 1000)
    for f, m, k in files:
        name = f.stem
        log(f"cheb: {name}")
        try:
            ours = json.loads(run_text([args.cheb_bench, str(f)]).strip().splitlines()[-1])
            eb_emax, eb_lo, eb_hi = (Fraction(ours[key]) for key in ("emax", "band_lo", "band_hi"))
        except (OSError, RuntimeError, ValueError, KeyError, IndexError) as exc:
            note(f"{f.name}: cheb_bench failed: {exc}")
            rows.append([f"{name} e_max", "ERROR", "-", "-", "-", "-", "errband failed"])
            errors += 1
            continue
        try:
            dec_rows, phi, y, side = load_cheb(f)
        except (OSError, ValueError, KeyError) as exc:
            note(f"{f.name}: cannot read instance: {exc}")
            rows.append([f"{name} e_max", "-", "-", "-", "-", "-", f"bad instance: {exc}"])
            errors += 1
            continue
        if phi.shape != (m, k) or (ours.get("m"), ours.get("k")) not in ((m, k), (None, None)):
            note(f"{f.name}: warning: shape mismatch: file {phi.shape}, name ({m},{k}), "
                f"cheb_bench ({ours.get('m')},{ours.get('k')})")
        try:
            hi = highs_cheb(phi, y, side)
        except (RuntimeError, ValueError) as exc:
            note(f"{f.name}: HiGHS failed: {exc}")
            hi = None

        # e_max row
        z3_ms, agree = "-", []
        if m <= Z3_OPT_MAX_M:
            z3_val, z3_ms = z3_cheb_emax(dec_rows, timeout_ms)
            if z3_val is not None and z3_val != eb_emax:
                agree.append(f"z3 {z3_val}")
        if hi is not None and not close(eb_emax, hi["emax"]):
            agree.append(f"highs {hi['emax']:.10g} vs errband {float(eb_emax):.10g}")
        hi_ms = hi["emax_ms"] if hi else "failed"
        eb_ms = float(ours["emax_ms"])
        rows.append([f"{name} e_max", fmt_ms(eb_ms), fmt_ms(hi_ms), fmt_ms(z3_ms),
                     fmt_ratio(hi_ms, eb_ms), fmt_ratio(z3_ms, eb_ms),
                     "DISAGREE (" + "; ".join(agree) + ")" if agree else "agree"])
        disagree += bool(agree)

        # band row
        agree = []
        if hi is not None:
            for label, ev, hv in (("lo", eb_lo, hi["band_lo"]), ("hi", eb_hi, hi["band_hi"])):
                if not close(ev, hv):
                    agree.append(f"{label}: highs {hv:.10g} vs errband {float(ev):.10g}")
        hi_ms = hi["band_ms"] if hi else "failed"
        eb_ms = float(ours["band_ms"])
        rows.append([f"{name} band", fmt_ms(eb_ms), fmt_ms(hi_ms), "-",
                     fmt_ratio(hi_ms, eb_ms), "-",
                     "DISAGREE (" + "; ".join(agree) + ")" if agree
                     else ("agree" if hi else "-")])
        disagree += bool(agree)
    print_table("Chebyshev residual (errband: in-process, from cheb_bench; HiGHS: linprog "
                "solve call, median of 3, band = min+max; Z3 Optimize: check() only, "
                f"e_max, m <= {Z3_OPT_MAX_M})",
                ["instance", "errband ms", "HiGHS ms", "Z3 Optimize ms",
                 "HiGHS/errband", "Z3/errband", "agreement"], rows)
    return disagree, errors


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("instances", type=Path, help="instance directory")
    ap.add_argument("--errband", default=str(REPO / "target/release/errband"))
    ap.add_argument("--cheb-bench", default=str(REPO / "target/release/examples/cheb_bench"))
    ap.add_argument("--z3-timeout", type=float,
                    default=float(os.environ.get("Z3_TIMEOUT", "60")),
                    help="per-call Z3 timeout in seconds (default $Z3_TIMEOUT or 60)")
    ap.add_argument("--max-m", type=int, default=None,
                    help="skip Chebyshev instances with more rows than this")
    ap.add_argument("--qe-runs", type=int, default=30,
                    help="process runs of `errband qe` per instance (median)")
    args = ap.parse_args()
    if not args.instances.is_dir():
        ap.error(f"{args.instances} is not a directory")

    qe_files = sorted(args.instances.glob("*.qe"))
    cheb = []
    for f in args.instances.glob("cheb_m*_k*.csv"):
        mt = CHEB_RE.match(f.name)
        if mt and (args.max_m is None or int(mt.group(1)) <= args.max_m):
            cheb.append((f, int(mt.group(1)), int(mt.group(2))))
    cheb.sort(key=lambda t: (t[1], t[2]))
    if not qe_files and not cheb:
        ap.error(f"no *.qe or cheb_m*_k*.csv instances in {args.instances}")

    header(args)
    disagree, errors = run_qe(args, qe_files) if qe_files else (0, 0)
    if cheb:
        d, e = run_cheb(args, cheb)
        disagree, errors = disagree + d, errors + e
    print(f"\nsummary: {len(qe_files)} QE + {len(cheb)} Chebyshev instances; "
          f"{disagree} disagreement(s); {errors} errband error(s)")
    if disagree:
        return 1
    return 2 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
