#!/usr/bin/env python3
"""Check errband's JSON outputs against the schemas in this folder.

Usage: python3 schemas/check.py [BINARY]   (default: target/release/errband)

Runs every sample command below with BINARY (from the repository root, so
the relative paths of models/ and data/ work), validates each output, every
JSON snapshot under tests/snapshots/ (`snapshots__NAME_json.snap`, after its
insta header) and checks each schema (draft 2020-12 meta-schema; the copy of
the analysis definitions inside experiment.schema.json; that documents without the
version key or with a bare string or number where {exact, decimal} belongs
are rejected). Prints one line per check, OK or FAIL; exits 1 on any FAIL.

Needs Python 3 and the `jsonschema` package (4.x).
"""

import json
import os
import subprocess
import sys
import tempfile

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# (schema, name, arguments). `{tmp}` is a scratch directory holding the
# inputs made by prepare(). Exit code 1 is accepted when the JSON report is
# still printed (an empty region, an experiment whose every series failed).
SAMPLES = [
    ("analysis", "hpl", ["models/hpl.tm", "data/hpl.csv"]),
    ("analysis", "hpl-envelope", ["models/hpl.tm", "data/hpl.csv", "--envelope"]),
    ("analysis", "hpl-at", ["models/hpl.tm", "data/hpl.csv", "--at", "p=1..50"]),
    ("analysis", "hpl-thresholds", ["models/hpl.tm", "data/hpl.csv", "-t", "max", "-t", "5%", "-t", "emax", "--at", "p=1..40:7"]),
    ("analysis", "hpl-drop", ["models/hpl.tm", "data/hpl.csv", "--drop", "p=10"]),
    ("analysis", "hpl-drop2-envelope", ["models/hpl.tm", "data/hpl.csv", "--drop", "p=10", "--drop", "p=120", "--envelope", "-t", "max", "-t", "2*remax"]),
    ("analysis", "hpl-drop-row", ["models/hpl.tm", "data/hpl.csv", "--drop-row", "3"]),
    ("analysis", "hpl-holdout", ["models/hpl.tm", "data/hpl.csv", "--holdout", "p>=60"]),
    ("analysis", "hpl-holdout-largest", ["models/hpl.tm", "data/hpl.csv", "--holdout", "largest"]),
    ("analysis", "hpl-family", ["models/hpl.tm", "data/hpl.csv", "--family", "pmnf"]),
    ("analysis", "hpl-holdout-family", ["models/hpl.tm", "data/hpl.csv", "--holdout", "p>=100", "-t", "max", "-t", "trusted", "-t", "5%", "--family", "pmnf"]),
    ("analysis", "hpl-empty-region", ["models/hpl.tm", "data/hpl.csv", "-t", "10", "-t", "max"]),
    ("analysis", "hpl-unlisted", ["models/hpl.tm", "data/hpl.csv", "--max-vertices", "3"]),
    ("analysis", "hpl-decimal", ["models/hpl.tm", "data/hpl.csv", "--decimal", "30", "-t", "max(2*remax, 5%)"]),
    ("analysis", "hpl-paper-no-fit", ["models/hpl_paper.tm", "data/hpl.csv", "--no-fit"]),
    ("analysis", "pmnf-without-model", ["data/hpl.csv", "--family", "pmnf"]),
    ("analysis", "amdahl", ["models/amdahl.tm", "data/amdahl.csv", "--exact"]),
    ("analysis", "amdahl-envelope", ["models/amdahl.tm", "data/amdahl.csv", "--envelope", "-t", "trusted", "-t", "max"]),
    ("analysis", "pn", ["models/pn.tm", "data/pn.csv"]),
    ("analysis", "pn-envelope", ["models/pn.tm", "data/pn.csv", "--envelope"]),
    ("analysis", "whitebox", ["models/whitebox.tm", "data/whitebox.csv"]),
    ("analysis", "extrap-example-family", ["data/extrap/example.txt", "--family", "pmnf"]),
    ("experiment", "experiment-median", ["models/amdahl.tm", "data/extrap_experiment.txt", "--metric", "time", "--aggregate", "median"]),
    ("experiment", "experiment", ["models/amdahl.tm", "data/extrap_experiment.txt"]),
    ("experiment", "experiment-holdout-family", ["models/amdahl.tm", "data/extrap_experiment.txt", "--holdout", "largest", "--family", "pmnf"]),
    ("experiment", "experiment-all-failed", ["{tmp}/poly6.tm", "data/extrap_experiment.txt"]),
    ("experiment", "csv-by", ["models/amdahl.tm", "{tmp}/by.csv", "--by", "kind"]),
    ("experiment", "relearn-archive", ["data/extrap/relearn.extra-p", "data/extrap/relearn.extra-p", "--aggregate", "mean", "--at", "p=1024,n=10000"]),
    ("experiment", "relearn-printed-models", ["data/extrap/relearn_print_all.txt", "data/extrap/relearn.extra-p", "--aggregate", "mean"]),
    ("prune", "prune-snapshot", ["prune", "models/hpl.tm", "data/hpl.csv", "--unweighted", "-t", "max", "--target", "p=1000", "--show", "5", "--max-drop=1", "--greedy", "1"]),
    ("prune", "prune", ["prune", "models/hpl.tm", "data/hpl.csv", "--target", "p=1000"]),
    ("prune", "prune-greedy", ["prune", "models/hpl.tm", "data/hpl.csv", "--target", "p=1000", "--greedy", "1"]),
    ("prune", "prune-pairs", ["prune", "models/hpl.tm", "data/hpl.csv", "--target", "p=1000", "--target", "p=2000", "--candidate", "p=10,p=20", "--max-drop", "2", "-t", "max", "-t", "5%", "--show", "0"]),
    ("prune", "prune-unfittable", ["prune", "models/hpl.tm", "data/hpl.csv", "--target", "p=1000", "--candidate", "p=10,p=20,p=30,p=40,p=50,p=60,p=70,p=80,p=90,p=100,p=110", "--max-drop", "0", "--greedy", "0"]),
    ("plan", "plan", ["plan", "models/hpl.tm", "data/hpl.csv", "--target", "p=1000", "--candidate", "p=130..300:50"]),
    ("plan", "plan-snapshot", ["plan", "models/hpl.tm", "data/hpl.csv", "-t", "max", "--target", "p=1000", "--candidate", "p=150..300:50"]),
    ("plan", "plan-two-targets", ["plan", "models/hpl.tm", "data/hpl.csv", "-t", "max", "-t", "trusted", "--target", "p=1000", "--target", "p=5000", "--candidate", "p=130..300:50"]),
    ("plan", "plan-pn", ["plan", "models/pn.tm", "data/pn.csv", "--candidate", "p=64,n=5000"]),
    ("energy", "energy-ideal", ["energy", "data/energy_ideal.csv", "--regions", "mem,comm", "--nodes", "1,16,1024,inf"]),
    ("energy", "energy-mg", ["energy", "data/energy_mg.csv"]),
    ("energy", "energy-mg-inf", ["energy", "data/energy_mg.csv", "--nodes", "2,16,inf", "-t", "max", "-t", "2*max"]),
    ("energy", "energy-edp", ["energy", "data/energy_mg.csv", "--nodes", "2..64:*2", "--objective", "edp"]),
    ("energy", "energy-fopt", ["energy", "data/energy_mg.csv", "--nodes", "16", "--fopt", "psinv_coarse=2GHz"]),
    ("energy", "energy-overhead", ["energy", "data/energy_mg.csv", "--nodes", "16,inf", "--overhead-region", "resid"]),
    ("barrier", "barrier-snapshot", ["barrier", "--nodes", "2,3,4,12,13,30,31,64", "--mpi-model", "models/mpi_barrier.tm", "--mpi-data", "data/mpi_barrier.csv", "-t", "max", "--at", "30"]),
    ("barrier", "barrier-constant", ["barrier", "--nodes", "2..120", "--mpi", "120us"]),
    ("barrier", "barrier-model", ["barrier", "--nodes", "2..300", "--mpi-model", "models/mpi_barrier.tm", "--mpi-data", "data/mpi_barrier.csv"]),
    ("barrier", "barrier-intervals", ["barrier", "--nodes", "2..13", "--t-ib", "2.7us..3.86us", "--t-sr", "20us..60us:20us,40us..120us", "--mpi", "120us"]),
    ("barrier", "barrier-no-reference", ["barrier"]),
    ("barrier", "barrier-one-per-chassis", ["barrier", "--per-chassis", "1", "--nodes", "2"]),
    ("ms", "ms-snapshot", ["ms", "predict", "data/mandelbrot_32x32.csv", "--grid", "1024x1024", "--procs", "8..32:8"]),
    ("ms", "ms-hand", ["ms", "predict", "tests/data/ms_hand.csv", "--grid", "3", "--procs", "2..4", "--loggp", "L=5000ns,o=1000ns+10ns*P,G=10ns/B"]),
    ("ms", "ms-speeds", ["ms", "predict", "data/mandelbrot_32x32.csv", "--grid", "1024x1024", "--procs", "4", "--speeds", "{tmp}/speeds.csv"]),
    ("ms", "ms-compare-subsets", ["ms", "predict", "{tmp}/mb64.csv", "--grid", "64x64", "--procs", "2..16:*2", "--compare-subsets", "1/16,8x8"]),
    ("qe", "qe-eq5", ["qe", "models/hpl_eq5.qe"]),
    ("qe", "qe-eq5-vertices", ["qe", "models/hpl_eq5.qe", "--vertices"]),
    ("qe", "qe-eq5-snapshot", ["qe", "models/hpl_eq5.qe", "--order", "dc2,dc1", "--vertices"]),
    ("qe", "qe-eq5-decimal", ["qe", "models/hpl_eq5.qe", "--vertices", "--decimal", "4"]),
    ("qe", "qe-eq6", ["qe", "models/hpl_eq6.qe"]),
    ("qe", "qe-eq6-vertices", ["qe", "models/hpl_eq6.qe", "--vertices"]),
    ("qe", "qe-eq7", ["qe", "models/hpl_eq7.qe"]),
    ("qe", "qe-eq7-vertices", ["qe", "models/hpl_eq7.qe", "--vertices"]),
    ("qe", "qe-true-with-line", ["qe", "{tmp}/true.qe", "--vertices"]),
    ("qe", "qe-false", ["qe", "{tmp}/false.qe"]),
]

SNAPSHOT_SCHEMA = {
    "main": "analysis", "experiment": "experiment", "prune": "prune", "plan": "plan",
    "energy": "energy", "barrier": "barrier", "ms": "ms", "qe": "qe",
}


def prepare(binary, tmp):
    """Inputs of the samples that are not in the repository."""
    files = {
        "poly6.tm": "T(p) = c0 + c1*p + c2*p^2 + c3*p^3 + c4*p^4 + c5*p^5\nparam c0, c1, c2, c3, c4, c5\n",
        "by.csv": "kind,p,T\na,1,10\na,2,6\na,4,4.1\na,8,3\nb,1,20\nb,2,11\nb,4,6.5\nb,8,4.2\n",
        "speeds.csv": "slave,ratio\n1,1\n2,2\n3,1/2\n",
        "true.qe": "exists x: x > y;\n",
        "false.qe": "exists x: x > 0 and x < 0;\n",
    }
    for name, text in files.items():
        with open(os.path.join(tmp, name), "w") as f:
            f.write(text)
    subprocess.run([binary, "ms", "mandelbrot", "--grid", "64x64", "--max-iter", "200", "-o", os.path.join(tmp, "mb64.csv")],
                   cwd=ROOT, check=True, capture_output=True, timeout=300)


def load_schemas():
    schemas = {}
    for name in SNAPSHOT_SCHEMA.values():
        with open(os.path.join(HERE, name + ".schema.json")) as f:
            schemas[name] = json.load(f)
    return schemas


def first_error(validator, doc):
    err = next(iter(validator.iter_errors(doc)), None)
    if err is None:
        return None
    path = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path)
    return f"{path}: {err.message[:200]}"


def exact_paths(doc, path=()):
    """Paths of every {exact, decimal} object in doc."""
    if isinstance(doc, dict):
        if set(doc) >= {"exact", "decimal"} and isinstance(doc.get("exact"), str) and path:
            yield path
        for k, v in doc.items():
            yield from exact_paths(v, path + (k,))
    elif isinstance(doc, list):
        for j, v in enumerate(doc):
            yield from exact_paths(v, path + (j,))


def strictness(validator, doc):
    """Mutations every schema must reject; returns the ones accepted."""
    accepted = []
    no_version = dict(doc)
    no_version.pop("errband", None)
    if validator.is_valid(no_version):
        accepted.append("document without `errband`")
    paths = list(exact_paths(doc))
    for p in [paths[0], paths[len(paths) // 2], paths[-1]] if paths else []:
        parent = doc
        for k in p[:-1]:
            parent = parent[k]
        old = parent[p[-1]]
        for label, new in (("bare exact string", old["exact"]), ("number as exact", dict(old, exact=1.5)),
                           ("extra key", dict(old, extra="x"))):
            parent[p[-1]] = new
            if validator.is_valid(doc):
                accepted.append(f"{label} at {'/'.join(map(str, p))}")
        parent[p[-1]] = old
    return accepted


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/errband"
    if not os.path.isabs(binary) and os.sep in binary:
        binary = os.path.join(ROOT, binary) if os.path.exists(os.path.join(ROOT, binary)) else os.path.abspath(binary)
    failures = 0

    def report(ok, what, detail=""):
        nonlocal failures
        failures += not ok
        print(f"{'OK  ' if ok else 'FAIL'} {what}" + (f"  -- {detail}" if detail and not ok else ""))

    schemas = load_schemas()
    validators = {}
    for name, s in schemas.items():
        try:
            jsonschema.Draft202012Validator.check_schema(s)
            ok, detail = s.get("$schema") == "https://json-schema.org/draft/2020-12/schema" and "errband" in s.get("required", []), "no draft 2020-12 $schema or `errband` not required"
        except jsonschema.SchemaError as e:
            ok, detail = False, str(e.message)[:200]
        report(ok, f"schema {name}.schema.json", detail)
        validators[name] = jsonschema.Draft202012Validator(s)

    # experiment.schema.json, generated from types that embed the analysis
    # document, carries the same analysis definitions.
    a, e = schemas["analysis"], schemas["experiment"]
    diff = [k for k in a["$defs"] if e["$defs"].get(k) != a["$defs"][k]]
    top = e["$defs"].get("AnalysisDocument", {})
    same_top = top.get("properties") == a["properties"] and top.get("required") == a["required"]
    report(not diff and same_top, "schema experiment.schema.json: $defs/AnalysisDocument is analysis.schema.json",
           f"differs: {diff or ''}{'' if same_top else ' top-level properties'}")

    with tempfile.TemporaryDirectory() as tmp:
        prepare(binary, tmp)
        for schema, name, args in SAMPLES:
            argv = [binary] + [x.replace("{tmp}", tmp) for x in args] + ["--format", "json"]
            what = f"{schema:10} {name:28} errband {' '.join(args)} --format json"
            try:
                r = subprocess.run(argv, cwd=ROOT, capture_output=True, timeout=600)
            except subprocess.TimeoutExpired:
                report(False, what, "timed out")
                continue
            if r.returncode not in (0, 1):
                report(False, what, f"exit {r.returncode}: {r.stderr.decode(errors='replace').strip()[:200]}")
                continue
            try:
                doc = json.loads(r.stdout)
            except ValueError as err:
                report(False, what, f"exit {r.returncode}, output is not JSON: {err}")
                continue
            v = validators[schema]
            err = first_error(v, doc)
            if err is None:
                loose = strictness(v, doc)
                report(not loose, what, "schema accepts " + "; ".join(loose))
            else:
                report(False, what, err)

    snapdir = os.path.join(ROOT, "tests", "snapshots")
    for fname in sorted(os.listdir(snapdir)) if os.path.isdir(snapdir) else []:
        if not (fname.startswith("snapshots__") and fname.endswith("_json.snap")):
            continue
        stem = fname[len("snapshots__"):-len("_json.snap")]
        schema = SNAPSHOT_SCHEMA.get(stem.split("_")[0])
        what = f"{schema or '?':10} snapshot {fname}"
        if schema is None:
            report(False, what, "no schema for this snapshot")
            continue
        with open(os.path.join(snapdir, fname)) as f:
            text = f.read()
        body = text.split("---\n", 2)[2] if text.startswith("---\n") and text.count("---\n") >= 2 else text
        try:
            doc = json.loads(body)
        except ValueError as err:
            report(False, what, f"not JSON after the insta header: {err}")
            continue
        err = first_error(validators[schema], doc)
        report(err is None, what, err or "")

    print(f"{failures} failure(s)" if failures else "all OK")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
