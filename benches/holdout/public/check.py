#!/usr/bin/env python3
"""Offline check of the public holdout suite (Python 3 standard library only).

    python3 check.py        # from any directory

Verifies that
  (a) every value in suite.json has exactly one provenance.csv row and vice versa
      (same series, point, repetition and value text);
  (b) the git blob SHA-1 of each vendored copy under sources/ equals blob_sha;
  (c) line `line` of the vendored copy holds the value text as a whole number token;
  (d) the train/holdout split is the fixed one: the largest scale held out, the
      largest two when the series has 8 or more distinct scales;
  (e) every series has at least 4 distinct scales and only positive values;
  (f) when a snapshot /work/.mirror/OWNER+NAME/... exists, `git rev-parse COMMIT:PATH`
      there equals blob_sha (skipped silently otherwise).
Exits 1 with a message per failure; prints a one-line summary on success.
"""

import csv
import hashlib
import json
import os
import re
import subprocess
import sys
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
MIRROR = "/work/.mirror"
NUM = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
HEX40 = re.compile(r"^[0-9a-f]{40}$")

errors = []


def fail(msg):
    errors.append(msg)


def blob_sha(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def vendored(repo, path):
    return os.path.join(HERE, "sources", repo.replace("/", "__"), path.replace("/", "__"))


def is_token(text, line):
    return any(m.group(0).lstrip("+-") == text for m in NUM.finditer(line))


def as_number(text):
    if not isinstance(text, str) or not NUM.fullmatch(text):
        return None
    return Fraction(text)


def point_key(pt):
    return ",".join(str(x) for x in pt)


def mirror_gitdir(repo):
    base = os.path.join(MIRROR, repo.replace("/", "+"), "repo")
    if os.path.isdir(os.path.join(base, ".git")):
        return os.path.join(base, ".git")
    return base if os.path.isdir(base) else None


def main():
    suite = json.load(open(os.path.join(HERE, "suite.json")))
    series = suite["series"]

    # ---- suite.json: structure, (d) split, (e) scales and positivity
    expected = {}  # (sid, point, rep) -> value text
    ids = set()
    for s in series:
        sid = s.get("id")
        if sid in ids:
            fail("duplicate series id %r" % sid)
        ids.add(sid)
        for k in ("group", "params", "train", "holdout", "unit", "kind", "source"):
            if k not in s:
                fail("%s: missing field %r" % (sid, k))
        src = s.get("source", {})
        for k in ("repo", "commit", "path", "license"):
            if not src.get(k):
                fail("%s: source.%s missing" % (sid, k))
        if not HEX40.match(src.get("commit", "")):
            fail("%s: source.commit is not 40 hex digits" % sid)
        if s.get("kind") not in ("strong", "weak", "collective", "gpu", "threads", "io", "other"):
            fail("%s: unknown kind %r" % (sid, s.get("kind")))
        npar = len(s.get("params", []))
        pts = {}
        for part in ("train", "holdout"):
            for entry in s.get(part, []):
                pt, vals = entry
                if len(pt) != npar:
                    fail("%s: point %r does not have %d coordinate(s)" % (sid, pt, npar))
                key = tuple(Fraction(str(x)) for x in pt)
                if key in pts:
                    fail("%s: point %r listed twice" % (sid, pt))
                pts[key] = part
                if not vals:
                    fail("%s: point %r has no values" % (sid, pt))
                for c in pt:
                    if as_number(str(c)) is None or Fraction(str(c)) <= 0:
                        fail("%s: point coordinate %r is not a positive number" % (sid, c))
                for r, v in enumerate(vals, 1):
                    x = as_number(v)
                    if x is None:
                        fail("%s: value %r at %r is not a decimal string" % (sid, v, pt))
                    elif x <= 0:
                        fail("%s: value %r at %r is not positive" % (sid, v, pt))
                    expected[(sid, point_key(pt), r)] = v
        if npar == 1:
            scales = sorted(pts)
            if len(scales) < 4:
                fail("%s: only %d distinct scales" % (sid, len(scales)))
            k = 2 if len(scales) >= 8 else 1
            want_hold = set(scales[-k:])
            got_hold = {p for p, part in pts.items() if part == "holdout"}
            if got_hold != want_hold:
                fail("%s: holdout %s, convention says %s" % (
                    sid, sorted(str(x[0]) for x in got_hold), sorted(str(x[0]) for x in want_hold)))
        else:
            # several parameters: the largest value of the first parameter is held out
            firsts = sorted({p[0] for p in pts})
            if len({p for p in pts}) < 4 or len(firsts) < 2:
                fail("%s: too few points" % sid)
            k = 2 if len(firsts) >= 8 else 1
            want = set(firsts[-k:])
            for p, part in pts.items():
                if (part == "holdout") != (p[0] in want):
                    fail("%s: point %s on the wrong side of the split" % (sid, p))

    # ---- provenance.csv: (a), (b), (c), (f)
    seen = {}
    cache = {}
    checked_mirror = {}
    repos = set()
    with open(os.path.join(HERE, "provenance.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    by_id = {s["id"]: s for s in series}
    for n, row in enumerate(rows, 2):
        sid, point, rep, value = row["series_id"], row["point"], int(row["rep"]), row["value"]
        key = (sid, point, rep)
        if key in seen:
            fail("provenance.csv:%d duplicates row %d" % (n, seen[key]))
        seen[key] = n
        if key not in expected:
            fail("provenance.csv:%d: %s point %s rep %d is not in suite.json" % (n, sid, point, rep))
        elif expected[key] != value:
            fail("provenance.csv:%d: value %r, suite.json has %r" % (n, value, expected[key]))
        s = by_id.get(sid)
        if s and (row["repo"] != s["source"]["repo"] or row["commit"] != s["source"]["commit"]):
            fail("provenance.csv:%d: repo/commit differ from the series' source" % n)
        repo, path, sha = row["repo"], row["path"], row["blob_sha"]
        repos.add(repo)
        vp = vendored(repo, path)
        if vp not in cache:
            if not os.path.isfile(vp):
                fail("provenance.csv:%d: vendored copy %s is missing" % (n, os.path.relpath(vp, HERE)))
                cache[vp] = None
            else:
                data = open(vp, "rb").read()
                cache[vp] = (blob_sha(data), data.decode("utf-8", errors="replace").split("\n"))
        if cache[vp] is None:
            continue
        got_sha, lines = cache[vp]
        if got_sha != sha and (vp, sha) not in checked_mirror:
            checked_mirror[(vp, sha)] = True
            fail("provenance.csv:%d: %s has blob %s, expected %s" % (n, os.path.relpath(vp, HERE), got_sha, sha))
        ln = int(row["line"])
        if not 1 <= ln <= len(lines):
            fail("provenance.csv:%d: line %d outside %s" % (n, ln, path))
        elif not is_token(value, lines[ln - 1]):
            fail("provenance.csv:%d: %r is not a number token on line %d of %s" % (n, value, ln, path))
        mkey = (repo, row["commit"], path)
        if mkey not in checked_mirror:
            gd = mirror_gitdir(repo)
            if gd:
                r = subprocess.run(["git", "--git-dir=" + gd, "rev-parse", "%s:%s" % (row["commit"], path)],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    fail("mirror %s has no %s:%s" % (repo, row["commit"][:12], path))
                elif r.stdout.strip() != sha:
                    fail("mirror %s: %s is blob %s, provenance says %s" % (repo, path, r.stdout.strip(), sha))
            checked_mirror[mkey] = True
    for key in expected:
        if key not in seen:
            fail("suite.json value %s point %s rep %d has no provenance row" % key)
    for repo in repos:
        if not os.path.isfile(os.path.join(HERE, "sources", repo.replace("/", "__"), "LICENSE")):
            fail("sources/%s/LICENSE is missing" % repo.replace("/", "__"))

    if errors:
        for e in errors[:200]:
            print("FAIL:", e)
        if len(errors) > 200:
            print("... and %d more" % (len(errors) - 200))
        return 1
    print("OK: %d series, %d values, %d repositories, %d source files" % (
        len(series), len(expected), len(repos), len([v for v in cache.values() if v])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
