#!/usr/bin/env python3
"""Runs the hardening speed cases with two builds, interleaved; prints the
median CPU time (and peak RSS) of each beside its target. See run.sh."""
import argparse, os, random, statistics, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "adversarial"))
import run as corpus  # the hostile corpus's generators (the same inputs)


def files():
    rnd = random.Random(5)
    poly8 = ("T(x) = c0 + " + " + ".join(f"c{i}*x^{i}" for i in range(1, 8)) + "\nparam " +
             ", ".join(f"c{i}" for i in range(8)) + "\npredict x = 40\n")
    noisy = "x,T\n" + "".join(f"{x},{3 + 0.5 * x + 0.01 * x * x + rnd.uniform(-1, 1):.4f}\n" for x in range(1, 31))
    log8 = ("T(p) = c0 + " + " + ".join(f"c{i}*log2(p)^{i}" for i in range(1, 8)) + "\nparam " +
            ", ".join(f"c{i}" for i in range(8)) + "\npredict p = 4096\n")
    logd = "p,T\n" + "".join(f"{p},{10 + 2 * p ** 0.5 + rnd.uniform(-1, 1):.4f}\n" for p in range(2, 42))
    digits = "p,T\n" + "".join(f"{1 + i},{int(5 + 100 / (1 + i))}." + "".join(rnd.choice("0123456789") for _ in range(3990)) + "\n"
                               for i in range(800))
    return {"poly8.tm": poly8, "poly8.csv": noisy, "log8.tm": log8, "log8.csv": logd, "d4k.csv": digits,
            "amdahl.tm": open(os.path.join(ROOT, "models/amdahl.tm")).read(),
            "hpl.tm": open(os.path.join(ROOT, "models/hpl.tm")).read(),
            "hpl.csv": open(os.path.join(ROOT, "data/hpl.csv")).read()}


CASES = [
    # (name, args, target text, target seconds or None)
    ("8-parameter polynomial, 30 noisy points", ["poly8.tm", "poly8.csv"], "< 2 s", 2.0),
    ("8-term log model, 40 points", ["log8.tm", "log8.csv"], "< 2 s", 2.0),
    ("Amdahl, 800 rows of 4 000-digit values", ["amdahl.tm", "d4k.csv"], "< 5 s", 5.0),
    ("plan hpl, --candidates p=1..100000", ["plan", "hpl.tm", "hpl.csv", "--target", "p=1000", "--candidates", "p=1..100000"],
     "refused at once, or < 60 s", 60.0),
    ("CUBE anchor: 1 MB gzip of a 1.1 GiB comment", ["amdahl.tm", "runs"], "refused; peak RSS small", None),
]


def run(binary, args, cwd, cap):
    start = time.monotonic()
    p = subprocess.Popen([binary] + args, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    err = []
    t = threading.Thread(target=lambda: err.append(p.stderr.read())); t.start()
    killed = [False]
    def watch():
        while p.returncode is None and time.monotonic() - start < cap:
            time.sleep(0.05)
        if time.monotonic() - start >= cap:
            killed[0] = True
            try:
                os.kill(p.pid, 9)
            except OSError:
                pass
    w = threading.Thread(target=watch, daemon=True); w.start()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    t.join()
    return {"cpu": ru.ru_utime + ru.ru_stime, "wall": time.monotonic() - start, "rss": ru.ru_maxrss,
            "code": p.returncode, "capped": killed[0]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cap", type=float, default=30)
    ap.add_argument("--rev", default="")
    ap.add_argument("--base-rev", default="199700b")
    a = ap.parse_args()
    d = tempfile.mkdtemp(prefix="errband-hardening-")
    for n, text in files().items():
        with open(os.path.join(d, n), "w") as f:
            f.write(text)
    bomb = corpus.bomb_anchor()
    for r in ("mm.p2.r1", "mm.p4.r1"):
        os.makedirs(os.path.join(d, "runs", r))
        with open(os.path.join(d, "runs", r, "profile.cubex"), "wb") as f:
            f.write(bomb)
    print(f"# hardening targets, {time.strftime('%F %T')}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    print(f"# base: {a.base} (commit {a.base_rev}); new: {a.new} ({a.rev}); median of {a.runs} interleaved runs each;")
    print(f"# CPU seconds (user + system); base runs stopped after {a.cap:.0f} s of wall time")
    print(f"{'case':46} {'base':>14} {'new':>10} {'new RSS':>9} {'exit':>4}  target")
    for name, args, target, _secs in CASES:
        res = {"base": [], "new": []}
        for _ in range(a.runs):
            for which, b in (("base", a.base), ("new", a.new)):
                res[which].append(run(b, args, d, a.cap if which == "base" else 600))
        def show(rs):
            if any(r["capped"] for r in rs):
                return f"> {a.cap:.0f} s"
            return f"{statistics.median(r['cpu'] for r in rs):.2f} s"
        new_rss = statistics.median(r["rss"] for r in res["new"]) / 1024
        base_rss = max(r["rss"] for r in res["base"]) / 1024
        codes = "/".join(sorted({str(r["code"]) for r in res["new"]}))
        print(f"{name:46} {show(res['base']):>14} {show(res['new']):>10} {new_rss:>7.0f}MB {codes:>4}  {target}"
              + (f" (base peak RSS {base_rss:.0f} MB)" if "RSS" in target else ""))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
