#!/usr/bin/env python3
"""Builds suite.json, provenance.csv and sources/ from local git snapshots.

This is the curation tool that produced the files beside it; check.py does not
need it. It reads the bare git snapshots under /work/.mirror/OWNER+NAME/
(fetched copies of the public repositories listed in REPOS), copies every
source file it takes a value from into sources/ byte for byte, and records
for every value the line it was read from. Nothing is computed from the
values: each one is the exact text of one field of one line.

    python3 build_suite.py            # rewrites suite.json, provenance.csv, sources/

Python 3 standard library only.
"""

import csv
import hashlib
import json
import os
import re
import subprocess
import sys
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
MIRROR = "/work/.mirror"

# repo -> (commit, licence file in the repository, licence name)
REPOS = {
    "LLNL/thicket": ("5f2d9affc6957b528fab5831a01c914db15e553d", "LICENSE", "MIT"),
    "fmihpc/vlasiator": ("1450d375313bf0ed8fd253815cb288acac07c3ca", "COPYING", "GPL-2.0"),
    "PTsolvers/PseudoTransientDiffusion.jl": ("879f2febf6014b7c6b4e2489d81bd6b8a2c5a214", "LICENSE", "MIT"),
    "PTsolvers/PseudoTransientStokes.jl": ("c746a00138ff9343a48e821e0adbbbb92ea7e130", "LICENSE", "MIT"),
    "JuliaParallel/MPIBenchmarks.jl": ("5a37268accac76243ec921172abeb9fdf0e6c3f2", "LICENSE", "MIT"),
    "giordano/julia-on-fugaku": ("91b07995bd2b63761edb57e6376a7b6b77c59728", "LICENSE", "MIT"),
    "hpc-uk/archer-benchmarks": ("f644ea4b0e61f1dabe5aa7b6b6fcc99b251ea178", "LICENSE.md", "GPL-3.0"),
    "RapidsAtHKUST/ppSCAN": ("691b39309da1c6b5df46b264b5a300a35d644f70", "LICENSE", "MIT"),
    # last commit before the results were removed ("remove results (moved to paper repo)", 061630a)
    "lquenti/walky": ("6d2d40a69f583e9d42a93c52be4061d4511cb9ee", "LICENSE", "MIT"),
    # last commit touching data/lulesh* on pull request #26 (refs/pull/26/head, whose head 82df7e32 has the
    # same data files); the data is on no branch of the repository
    "LLNL/thicket-tutorial": ("64aca5a712d06e61cd1879ca84fe816a3b520765", "LICENSE", "MIT"),
}

NUM = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def gitdir(repo):
    base = os.path.join(MIRROR, repo.replace("/", "+"), "repo")
    return os.path.join(base, ".git") if os.path.isdir(os.path.join(base, ".git")) else base


def git(repo, *args):
    return subprocess.run(["git", "--git-dir=" + gitdir(repo)] + list(args),
                          check=True, capture_output=True).stdout


def ls(repo, prefix):
    commit = REPOS[repo][0]
    out = git(repo, "ls-tree", "-r", "--name-only", commit, prefix).decode()
    return [p for p in out.splitlines() if p]


def blob_sha(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def vendored_name(path):
    return path.replace("/", "__")


_files = {}


def source(repo, path):
    """Bytes of repo:path at the pinned commit, vendored under sources/."""
    key = (repo, path)
    if key not in _files:
        commit = REPOS[repo][0]
        data = git(repo, "show", "%s:%s" % (commit, path))
        sha = git(repo, "rev-parse", "%s:%s" % (commit, path)).decode().strip()
        assert blob_sha(data) == sha, (repo, path)
        assert len(data) < 2 * 1024 * 1024, (repo, path, len(data))
        d = os.path.join(HERE, "sources", repo.replace("/", "__"))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, vendored_name(path)), "wb") as f:
            f.write(data)
        _files[key] = (data, sha)
    return _files[key][0]


def lines(repo, path):
    return source(repo, path).decode("utf-8", errors="strict").split("\n")


def is_token(text, line):
    return any(m.group(0).lstrip("+-") == text for m in NUM.finditer(line))


class Series:
    def __init__(self, sid, group, kind, unit, param, note, repo, path):
        self.sid, self.group, self.kind, self.unit = sid, group, kind, unit
        self.param, self.note, self.repo, self.path = param, note, repo, path
        self.points = OrderedDict()  # scale -> [(text, path, line)]

    def add(self, scale, text, path, lineno):
        line = lines(self.repo, path)[lineno - 1]
        assert is_token(text, line), (self.sid, text, line)
        self.points.setdefault(scale, []).append((text, path, lineno))


SERIES = []
SKIPPED = []  # (group, id, reason)


def finish(s):
    bad = [t for v in s.points.values() for t, _, _ in v if float(t) <= 0]
    scales = sorted(s.points)
    if bad:
        SKIPPED.append((s.group, s.sid, "non-positive value(s): " + ", ".join(bad)))
    elif len(scales) < 4:
        SKIPPED.append((s.group, s.sid, "only %d distinct scale(s): %s" % (len(scales), scales)))
    else:
        SERIES.append(s)


# ---------------------------------------------------------------- LULESH (thicket)

def lulesh():
    repo = "LLNL/thicket"
    cores = [27, 64, 125, 216, 343]
    per = OrderedDict()  # name -> Series
    for c in cores:
        path = "thicket/tests/data/mpi_scaling_cali/%d_cores.cali" % c
        nodes, ctxs = {}, []
        for i, ln in enumerate(lines(repo, path), 1):
            if ln.startswith("__rec=node,"):
                m = re.match(r"__rec=node,id=(\d+),attr=(\d+),data=(.*?)(?:,parent=(\d+))?$", ln)
                nodes[int(m.group(1))] = (int(m.group(2)), m.group(3), m.group(4) and int(m.group(4)), i)
            elif ln.startswith("__rec=ctx,"):
                m = re.match(r"__rec=ctx,ref=([\d=]+),attr=([\d=]+),data=(.*)$", ln)
                ctxs.append(([int(x) for x in m.group(1).split("=")],
                             [int(x) for x in m.group(2).split("=")], m.group(3).split("="), i))
        byname = {d: nid for nid, (a, d, p, _) in nodes.items() if a == 8}
        region_attrs = {byname[k] for k in ("function", "loop", "mpi.function")}
        channel_attr = byname["spot.channel"]
        avg_attr = byname["avg#inclusive#sum#time.duration"]

        def cpath(nid):
            parts = []
            while nid is not None and nid in nodes and nodes[nid][0] in region_attrs:
                parts.append(nodes[nid][1])
                nid = nodes[nid][2]
            return "/".join(reversed(parts))

        seen = set()
        for refs, attrs, data, i in ctxs:
            regions = [r for r in refs if nodes[r][0] != channel_attr]
            if not regions:
                if c == cores[0]:
                    SKIPPED.append(("lulesh-opal", "(record without a region)",
                                    "time outside every annotated region: not a callpath"))
                continue
            assert len(regions) == 1
            name = cpath(regions[0])
            assert name not in seen, name
            seen.add(name)
            text = data[attrs.index(avg_attr)]
            if name not in per:
                per[name] = Series("lulesh-opal/" + name, "lulesh-opal", "weak", "s", "p",
                                   "LULESH 2.0.3 (Caliper spot profile, thicket test data), cluster opal, "
                                   "MVAPICH2, problem_size=30 per rank, 800 iterations: average over ranks "
                                   "of the inclusive time of this region (min and max over ranks are in the "
                                   "same record); one run per scale; p = MPI ranks",
                                   repo, "thicket/tests/data/mpi_scaling_cali/")
            per[name].add(c, text, path, i)
        # adiak elapsed_time (whole run), one value per file
        el = byname["elapsed_time"]
        for nid, (a, d, p, i) in nodes.items():
            if a == el:
                key = "adiak:elapsed_time"
                if key not in per:
                    per[key] = Series("lulesh-opal/" + key, "lulesh-opal", "weak", "s", "p",
                                      "LULESH 2.0.3 run metadata elapsed_time (Adiak) in the same files; "
                                      "one run per scale; p = MPI ranks", repo,
                                      "thicket/tests/data/mpi_scaling_cali/")
                per[key].add(c, d, path, i)
    for s in per.values():
        finish(s)


# ---------------------------------------------------------------- Vlasiator

def vlasiator():
    repo = "fmihpc/vlasiator"
    machines = [("202506_CSC_Mahti", "Mahti", "CSC Mahti, 2x AMD Rome 7H12 per node"),
                ("202507_EuroHPC_LUMI-C", "LUMI-C", "EuroHPC LUMI-C, 2x AMD EPYC 7763 per node")]
    for d, mname, mdesc in machines:
        for study, cases in (("strong", ["light", "medium", "heavy"]),
                             ("weak", ["along_y", "along_z", "along_yz"])):
            for case in cases:
                fn = ("timings_%s.dat" % case) if study == "strong" else ("%s.dat" % case)
                path = "scaling/%s/%s/%s" % (d, study, fn)
                ls_ = lines(repo, path)
                header = ls_[0].split("\t")
                assert header[0] == "Nodes", header
                for col in range(1, len(header)):
                    timer = header[col]
                    if study == "strong":
                        note = ("Vlasiator 3D IPshock, strong scaling, case '%s' (fixed problem), %s, "
                                "16 MPI tasks x 16 threads per node; column '%s' (logfile total run time or "
                                "phiprof timer); one run per node count; p = nodes" % (case, mdesc, timer))
                    else:
                        note = ("Vlasiator 3D IPshock, weak scaling: domain extended %s with the node count, "
                                "%s, 16 MPI tasks x 16 threads per node; column '%s'; one run per node "
                                "count (the 1-node row is shared by the three weak-scaling files); "
                                "p = nodes" % (case.replace("_", " "), mdesc, timer))
                    s = Series("vlasiator-%s/%s/%s/%s" % (study, mname, case, timer), "vlasiator-" + study,
                               study, "s", "p", note, repo, path)
                    for i, ln in enumerate(ls_[1:], 2):
                        if not ln.strip():
                            continue
                        f = ln.split("\t")
                        s.add(int(f[0]), f[col], path, i)
                    finish(s)
    SKIPPED.append(("vlasiator-weak", "scaling/*/weak/all.dat",
                    "every row of all.dat is a row of along_y.dat, along_z.dat or along_yz.dat: not used twice"))


# ---------------------------------------------------------------- PTsolvers (GPU)

def ptsolvers():
    mach = {"ampere": "ampere (results commit: 'Add Tesla A100 results')", "volta": "volta",
            "daint": "daint (Piz Daint)", "octo": "octo"}
    specs = [
        ("PTsolvers/PseudoTransientDiffusion.jl", "ptdiff-gpu", "diffusion", [
            ("output/out_diff_2D_nonlin_perf_%s.txt", "2D nonlinear diffusion, one GPU, n x n grid",
             "n", 0, 5, "t_it = t_toc/niter"),
            ("output/out_diff_3D_nonlin_perf_%s.txt", "3D nonlinear diffusion, one GPU, n^3 grid",
             "n", 1, 7, "t_it = t_toc/niter"),
            ("output/out_diff_3D_nonlin_multixpu_perf_%s.txt",
             "3D nonlinear diffusion, multi-GPU weak scaling (fixed local grid per GPU), p = GPUs (MPI ranks)",
             "p", 0, 7, "t_it = t_toc/niter")]),
        ("PTsolvers/PseudoTransientStokes.jl", "ptstokes-gpu", "stokes", [
            ("output/out_Stokes2D_ve_perf_%s.txt", "2D visco-elastic Stokes, one GPU, n x n grid",
             "n", 0, 5, "t_it = t_toc/(ittot-10)"),
            ("output/out_Stokes3D_ve_perf_%s.txt", "3D visco-elastic Stokes, one GPU, n^3 grid",
             "n", 1, 7, "wtime_it"),
            ("output/out_Stokes3D_ve_xpu_perf_%s.txt",
             "3D visco-elastic Stokes, multi-GPU weak scaling (fixed local grid per GPU), p = GPUs (MPI ranks)",
             "p", 0, 7, "wtime_it")]),
    ]
    for repo, group, app, files in specs:
        for pat, desc, param, pcol, vcol, what in files:
            for m in ("ampere", "volta", "daint", "octo"):
                path = pat % m
                kind_ = "gpu"
                label = os.path.basename(pat).replace("_%s.txt", "").replace("out_", "")
                s = Series("%s/%s/%s" % (group, label, m), group, kind_, "s", param,
                           "%s; machine suffix %s; value = execution time per pseudo-transient iteration "
                           "(column %d, %s, written by the script); every row is one run "
                           "(repetitions kept)" % (desc, mach[m], vcol + 1, what), repo, path)
                for i, ln in enumerate(lines(repo, path), 1):
                    f = ln.split()
                    if not f:
                        continue
                    s.add(int(f[pcol]), f[vcol], path, i)
                finish(s)


# ---------------------------------------------------------------- MPIBenchmarks.jl

def mpibenchmarks():
    repo = "JuliaParallel/MPIBenchmarks.jl"
    where = {"riken-ccs-fugaku": ("Fugaku", "collectives: 1536 MPI ranks on 384 nodes; point-to-point: 2 ranks "
                                  "on 2 nodes (examples/riken-ccs-fugaku/README.md)"),
             "ucl-kathleen": ("Kathleen", "collectives: 60 MPI ranks on 15 nodes; point-to-point: 2 ranks on "
                              "2 nodes (examples/ucl-kathleen/README.md)")}
    for d, (mname, layout) in where.items():
        for path in ls(repo, "examples/%s/" % d):
            if not path.endswith(".csv"):
                continue
            ls_ = lines(repo, path)
            header = [h.strip() for h in ls_[0].split(",")]
            for want in ("avg_time (seconds)", "t_avg[usec]", "time (seconds)", "latency (seconds)", "t[usec]"):
                if want in header:
                    col = header.index(want)
                    break
            else:
                raise SystemExit("no time column in " + path)
            name = os.path.basename(path)[:-4]
            p2p = any(k in name for k in ("pingpong", "pingping", "latency"))
            unit = "us" if "usec" in header[col] else "s"
            origin = "Intel MPI Benchmarks (C) reference" if name.startswith("imb_") else "MPIBenchmarks.jl (Julia)"
            s = Series("mpibench-jl/%s/%s" % (mname, name), "mpibench-jl", "other" if p2p else "collective",
                       unit, "size",
                       "%s, %s, %s; column '%s' (one value per message size: an average over the "
                       "benchmark's iterations, no repetitions in the file); size = message size in bytes; "
                       "the size-0 row is not used (parameter must be positive)" % (origin, mname, layout, header[col]),
                       repo, path)
            for i, ln in enumerate(ls_[1:], 2):
                if not ln.strip():
                    continue
                f = [x.strip() for x in ln.split(",")]
                if int(f[0]) == 0:
                    continue
                s.add(int(f[0]), f[col], path, i)
            finish(s)


# ---------------------------------------------------------------- julia-on-fugaku

def fugaku():
    repo = "giordano/julia-on-fugaku"
    for path in ["benchmarks/mpi-collective/riken_imb_allreduce.csv",
                 "benchmarks/mpi-collective/riken_imb_gatherv.csv",
                 "benchmarks/mpi-collective/riken_imb_reduce.csv",
                 "benchmarks/mpi-point-to-point/riken_imb_pingping.csv",
                 "benchmarks/mpi-point-to-point/riken_imb_pingpong.csv"]:
        ls_ = lines(repo, path)
        name = os.path.basename(path)[:-4]
        p2p = "ping" in name
        s = Series("fugaku-imb-ref/" + name, "fugaku-imb-ref", "other" if p2p else "collective", "s", "size",
                   "Intel MPI Benchmarks on Fugaku as published by RIKEN (the file's header names the source: "
                   "Perf-MPI.pdf), transcribed into this CSV by the repository author; one value per message "
                   "size; size-0 row not used", repo, path)
        hdr = ls_[0]
        assert hdr.startswith("size (bytes),"), hdr
        for i, ln in enumerate(ls_[1:], 2):
            if not ln.strip():
                continue
            f = [x.strip() for x in ln.split(",")]
            if int(f[0]) == 0:
                continue
            s.add(int(f[0]), f[1], path, i)
        finish(s)
    for path in ls(repo, "benchmarks/blas-axpy/"):
        if not path.endswith(".csv"):
            continue
        ls_ = lines(repo, path)
        assert ls_[0].startswith("# length, minimum time (nanoseconds), median time (nanoseconds), mean time"), ls_[0]
        name = os.path.basename(path)[:-4]
        s = Series("fugaku-axpy/" + name, "fugaku-axpy", "other", "ns", "n",
                   "BLAS axpy on one Fugaku (A64FX) core via Julia, library/type %s; value = mean time "
                   "(column 4; min, median and max are also in the file, no individual samples); "
                   "n = vector length" % name, repo, path)
        for i, ln in enumerate(ls_[1:], 2):
            if not ln.strip():
                continue
            f = [x.strip() for x in ln.split(",")]
            s.add(int(f[0]), f[3], path, i)
        finish(s)


# ---------------------------------------------------------------- archer-benchmarks

ARCHER = "hpc-uk/archer-benchmarks"


def archer_imb():
    repo = ARCHER
    systems = [("ARCHER_CrayMPICH774", "ARCHER (Cray XC30), Cray MPICH 7.7.4, 24 ranks per node"),
               ("ARCHER2_CrayMPICH8015", "ARCHER2 (HPE Cray EX, 4-cabinet system), Cray MPICH 8.0.15, "
                                         "128 ranks per node")]
    colls = ["Allgather", "Allgatherv", "Allreduce", "Alltoall", "Alltoallv", "Sendrecv"]
    sizes = [8, 65536]
    for sysdir, desc in systems:
        files = ls(repo, "synth/IMB/results/%s/" % sysdir)
        for coll in colls:
            for size in sizes:
                s = Series("archer-imb/%s/%s/%dB" % (sysdir, coll, size), "archer-imb",
                           "collective" if coll != "Sendrecv" else "other", "us", "p",
                           "Intel MPI Benchmarks IMB-MPI1 %s, %s; message size %d bytes; value = t_avg[usec] "
                           "(average over ranks of the time per call); p = MPI processes as printed in the "
                           "file; one file per run, repeated runs at the same size are repetitions" %
                           (coll, desc, size), repo, "synth/IMB/results/%s/" % sysdir)
                for path in files:
                    if not re.search(r"/IMB_%s_\d+nodes_" % coll, path):
                        continue
                    ls_ = lines(repo, path)
                    procs = None
                    for i, ln in enumerate(ls_, 1):
                        m = re.match(r"# #processes = (\d+)", ln)
                        if m:
                            procs = int(m.group(1))
                            continue
                        f = ln.split()
                        if procs and len(f) >= 5 and f[0] == str(size) and all(NUM.fullmatch(x) for x in f[:5]):
                            s.add(procs, f[4], path, i)
                finish(s)
    SKIPPED.append(("archer-imb", "PingPong (all systems)",
                    "always 2 processes: the process count is not varied, so there is no scaling parameter"))
    SKIPPED.append(("archer-imb", "other IMB result directories and message sizes",
                    "not taken: only the two systems and the sizes 8 B and 64 KiB fixed in advance "
                    "(a latency-bound and a bandwidth-bound size) to keep the group from dominating"))


def archer_benchio():
    repo = ARCHER
    d = "synth/benchio/results/ARCHER_baseline/"
    s = Series("archer-benchio/ARCHER_baseline/write_striped", "archer-benchio", "io", "s", "p",
               "benchio (MPI-IO) on ARCHER Lustre, striped file, 256^3 doubles per process (weak scaling: "
               "global size grows with p), 'time = ' of each of the 10 writes in each run file; runs on "
               "different days are further repetitions; p = MPI processes as printed in the file",
               repo, d)
    for path in ls(repo, d):
        procs = None
        for i, ln in enumerate(lines(repo, path), 1):
            m = re.match(r"\s*Running on\s+(\d+)\s+process", ln)
            if m:
                procs = int(m.group(1))
            m = re.match(r"\s*time =\s+(\S+)\s*,\s*rate", ln)
            if m:
                s.add(procs, m.group(1), path, i)
    finish(s)


def archer_gromacs():
    repo = ARCHER
    d = "apps/GROMACS/large/results/ARCHER_baseline/"
    for smt in ("1smt", "2smt"):
        s = Series("archer-gromacs/large/ARCHER_baseline/%s" % smt, "archer-gromacs", "strong", "s", "p",
                   "GROMACS 'large' benchmark (nc2-cubic-md) on ARCHER, %s per core; value = 'Wall t (s)' "
                   "from the 'Time:' line of each log; p = nodes (file name; the log's 'Running on N nodes' "
                   "line agrees); one log per run" % ("1 hardware thread" if smt == "1smt" else "2 hardware threads (SMT)"),
                   repo, d)
        for path in ls(repo, d):
            m = re.search(r"_(\d+)nodes%s_" % smt, path)
            if not m:
                continue
            nodes = int(m.group(1))
            ls_ = lines(repo, path)
            assert any(re.match(r"Running on %d nodes" % nodes, x) for x in ls_), path
            got = [(i, ln) for i, ln in enumerate(ls_, 1) if re.match(r"\s+Time:\s", ln)]
            if not got:
                SKIPPED.append(("archer-gromacs", path, "log has no 'Time:' line (run did not finish): no value"))
                continue
            (i, ln), = got
            s.add(nodes, ln.split()[2], path, i)
        finish(s)


def archer_cp2k():
    repo = ARCHER
    d = "apps/CP2K/LiH_HFX/results/ARCHER_baseline/"
    s = Series("archer-cp2k/LiH_HFX/ARCHER_baseline", "archer-cp2k", "strong", "s", "p",
               "CP2K LiH_HFX benchmark on ARCHER (4 MPI ranks x 6 threads per node); value = maximum "
               "total time of the 'CP2K' timer (last column of the timing report line, as the repository's "
               "instructions say); p = nodes (file name CP2K_<nodes>; e.g. 128 nodes = 512 ranks in the log); "
               "five runs per node count", repo, d)
    for path in ls(repo, d):
        m = re.search(r"/CP2K_(\d+)\.o\d+$", path)
        nodes = int(m.group(1))
        got = [(i, ln) for i, ln in enumerate(lines(repo, path), 1)
               if re.match(r" CP2K\s+1\s+1\.0\s", ln)]
        (i, ln), = got
        s.add(nodes, ln.split()[-1], path, i)
    finish(s)


def archer_hadgem3():
    repo = ARCHER
    path = "apps/HadGEM3/results/ARCHER_baseline/HadGEM3_ARCHER_baseline_results.csv"
    s = Series("archer-hadgem3/ARCHER_baseline", "archer-hadgem3", "strong", "s", "p",
               "HadGEM3-GC3.1 coupled model (UM atmosphere + NEMO ocean, OASIS) on ARCHER; column 'Time' "
               "= UM run time in seconds of each run (per apps/HadGEM3/analysis/ARCHER/README.md, whose "
               "table lists the same five values per node count); p = total nodes; the UM/NEMO "
               "decomposition differs between node counts (columns 2-5), so this is not a pure strong "
               "scaling of one configuration; five runs per node count", repo, path)
    ls_ = lines(repo, path)
    assert ls_[0].startswith('"Nodes",'), ls_[0]
    for i, ln in enumerate(ls_[1:], 2):
        if not ln.strip():
            continue
        f = ln.split(",")
        s.add(int(f[0]), f[5], path, i)
    finish(s)


# ---------------------------------------------------------------- ppSCAN

def ppscan():
    repo = "RapidsAtHKUST/ppSCAN"
    d = "python_experiments/case_studies/figures-case-study13-scalability-simd/"
    for ds in ("snap_orkut", "webgraph_webbase", "webgraph_twitter", "snap_friendster"):
        path = d + ds + ".md"
        eps, cur = None, None
        for i, ln in enumerate(lines(repo, path), 1):
            m = re.match(r"## eps:(\S+)", ln)
            if m:
                if cur:
                    finish(cur)
                eps = m.group(1)
                cur = Series("ppscan-threads/%s/eps=%s/total" % (ds, eps), "ppscan-threads", "threads", "s",
                             "threads",
                             "ppSCAN (parallel structural graph clustering, SIMD variant), graph %s, eps=%s, "
                             "min_pts=5; column 'total' (run time; the trailing unit 's' of the source text "
                             "is not part of the value); one run per thread count; hardware not stated in "
                             "the file (figure paths name a server 'gpu23'; the repository README says "
                             "ppSCAN was tested on multi-core Xeon and Xeon Phi KNL)" % (ds, eps), repo, path)
                continue
            f = [x.strip() for x in ln.split("|")]
            if cur and len(f) == 8 and f[0].isdigit():
                assert f[6].endswith("s"), ln
                cur.add(int(f[0]), f[6][:-1], path, i)
        if cur:
            finish(cur)
    SKIPPED.append(("ppscan-threads", "per-phase columns (prune, check-core, cluster-core, ...)",
                    "not taken: only the end-to-end 'total' column, fixed in advance, to keep the group from "
                    "dominating; 'total speedup' is derived, not a measurement"))


# ---------------------------------------------------------------- walky (TSP solvers in Rust)

WALKY = "lquenti/walky"
WALKY_MACHINE = ("GWDG cluster, Slurm partition 'medium', nodes amp0xx (Slurm log headers in the "
                 "repository history, e.g. commit 4bd7d56; paths /home/uni11/gwdg1/GWDG/...); hardware not "
                 "stated")


def walky_approx():
    repo = WALKY
    algs = [("1-tree", "lower-bound one-tree", "1-tree lower bound"),
            ("Christofides", "approx christofides", "Christofides approximation"),
            ("NN", "approx nearest-neighbour", "nearest-neighbour heuristic")]
    for d, cmd, desc in algs:
        base = "benchmarks/%s/STMT/results/" % d
        files = ls(repo, base)
        for par in ("single-threaded", "multi-threaded"):
            s = Series("walky-approx/%s/%s" % (d, par), "walky-approx", "other", "s", "n",
                       "walky (Rust TSP solver) '%s -p %s' (%s) on a random complete graph of n vertices "
                       "(utils/gen_matrix_fast/results/<n>.xml); %s; the job requests 24 CPUs (-c 24), the "
                       "thread count of the multi-threaded mode is not stated; value = the program's own "
                       "'elapsed seconds' of one run, as collected by benchmarks/run_often.py into the list "
                       "'elapsed_seconds' (3 warm-up runs, then 10 measured runs; the file's mean and median "
                       "are not used); n = vertices" % (cmd, par, desc, WALKY_MACHINE), repo, base)
            for path in files:
                m = re.search(r"/result_(\d+)_%s\.json$" % par, path)
                if not m:
                    continue
                ls_ = lines(repo, path)
                assert len(ls_) == 1, path
                m2 = re.match(r'\{"elapsed_seconds": \[([^\]]*)\], "mean": ', ls_[0])
                texts = m2.group(1).split(", ")
                assert [float(t) for t in texts] == json.loads(ls_[0])["elapsed_seconds"], path
                assert len(texts) == 10, path
                for t in texts:
                    s.add(int(m.group(1)), t, path, 1)
            finish(s)


def walky_exact():
    repo = WALKY
    d = "benchmarks/Exact/STMT/results/"
    what = {"v0": "tests all n! tours", "v1": "first vertex fixed, (n-1)! tours",
            "v2": "recursive enumeration with cached partial sums",
            "v3": "as v2, stops when the partial sum exceeds the best tour",
            "v4": "as v3, bound by partial sum + nearest-neighbour graph",
            "v5": "bound by an MST instead of the NN graph", "v6": "as v5, MST distances cached"}
    for name in ("v0", "v1", "v2", "v3", "v4", "v5", "v6", "multithreaded"):
        path = d + "results_%s.json" % name
        if name == "multithreaded":
            cmd, alg, cpus = "exact -p multi-threaded v0", "v0", "the job requests 24 CPUs (-c 24)"
        else:
            cmd, alg, cpus = "exact -p single-threaded %s" % name, name, "single-threaded"
        s = Series("walky-exact/%s" % name, "walky-exact", "other", "s", "n",
                   "walky (Rust TSP solver) exact algorithm %s (%s; walky's src/cli.rs), command '%s', %s; "
                   "%s; measured with hyperfine (--runs 10, --warmup 2, --parameter-scan N): value = one "
                   "entry of 'times', the wall time of one whole process run including start-up and reading "
                   "the XML graph, so small n show a constant floor of about 0.12 s; all exit codes 0; "
                   "the scan (N = 3..50) ends where the Slurm time limit cancelled the job, except for v5 and "
                   "v6, which reach 50 (job logs at commit 4bd7d56); n = vertices (hyperfine parameter N)"
                   % (alg, what[alg], cmd, cpus, WALKY_MACHINE), repo, path)
        data = json.loads(source(repo, path).decode())
        got, times = [], None
        for i, ln in enumerate(lines(repo, path), 1):
            st = ln.strip()
            if st == '"times": [':
                times = []
            elif times is not None and st.startswith("]"):
                got.append(times)
                times = None
            elif times is not None:
                times.append((st.rstrip(","), i))
        assert len(got) == len(data["results"]), path
        for ts, r in zip(got, data["results"]):
            assert cmd in r["command"], (path, r["command"])
            assert [float(t) for t, _ in ts] == r["times"] and len(ts) == 10, path
            assert set(r["exit_codes"]) == {0}, path
            n = int(r["parameters"]["N"])
            assert r["command"].endswith("/%d.xml" % n), path
            for t, i in ts:
                s.add(n, t, path, i)
        finish(s)


def walky_mpi():
    repo = WALKY
    for d, cmd, graph, runs, multi, extra in (
            ("1-tree", "lower-bound one-tree -p mpi", 3000, 11, "64 as 16 per node on 4 nodes",
             "; there is no p = 32 run (see skipped.json)"),
            ("Christofides", "approx christofides -p mpi", 2500, 26, "32 and 64 as 16 per node on 2 and 4 nodes",
             "; each run also prints that it defaults to a sequential Prim's algorithm, and the time hardly "
             "changes with p")):
        base = "benchmarks/%s/MPI/" % d
        s = Series("walky-mpi/%s" % d, "walky-mpi", "strong", "s", "p",
                   "walky (Rust TSP solver) '%s' on one fixed random graph of %d vertices (GRAPH_SIZE in the "
                   "Slurm scripts), module openmpi, %s; p = MPI processes: 1, 2, 4, 8, 16 on one node, %s "
                   "(file output_<nodes>_nodes_<tasks>_taskspernode.txt); value = the 'elapsed seconds' line "
                   "of each run (the script's warm-up runs are not written to the file; %d measured runs, one "
                   "line each)%s" % (cmd, graph, WALKY_MACHINE, multi, runs, extra),
                   repo, base)
        for path in ls(repo, base):
            m = re.search(r"/output_(\d+)_nodes_(\d+)_taskspernode\.txt$", path)
            if not m:
                continue
            nodes, tpn = int(m.group(1)), int(m.group(2))
            if nodes > 1 and tpn == 1:
                continue
            ls_ = lines(repo, path)
            heads = [ln for ln in ls_ if re.match(r"run \d+/\d+$", ln)]
            vals = [(i, ln) for i, ln in enumerate(ls_, 1) if ln.startswith("elapsed seconds: ")]
            assert len(heads) == len(vals) == runs, (path, len(heads), len(vals))
            for i, ln in vals:
                s.add(nodes * tpn, ln[len("elapsed seconds: "):].strip(), path, i)
        finish(s)
    SKIPPED.append(("walky-mpi", "benchmarks/{1-tree,Christofides}/MPI/output_{2,4,8}_nodes_1_taskspernode.txt",
                    "one process per node on 2, 4 and 8 nodes: the same process counts as the one-node runs with "
                    "another placement; as their own series (1, 2, 4, 8 nodes) only 4 scales"))
    SKIPPED.append(("walky-mpi", "benchmarks/1-tree/MPI/output_2_nodes_16_taskspernode.txt (p = 32)",
                    "the run crashed (Illegal instruction on nodes dfa003/dfa012, commit bfc22c6) and the author "
                    "deleted the file (commit 383157a): no value"))
    SKIPPED.append(("walky-mpi", "benchmarks/Exact/MPI/*, benchmarks/NN/MPI/*",
                    "every MPI rank prints its own result and elapsed time, interleaved, so a run has p values "
                    "and no single one; NN output_4_nodes_16 is also missing from the snapshot"))
    SKIPPED.append(("walky-exact", "Slurm job logs (benchmarks/*/STMT/run-*, benchmarks/*/MPI/slurm-*.out)",
                    "hyperfine's printed mean and range summaries and progress lines: no individual values "
                    "beyond those in the result files (most of these logs are only in earlier commits)"))


# ---------------------------------------------------------------- LULESH on quartz (thicket-tutorial)

def cali_meta(repo, path, names):
    """Adiak values of a Caliper .cali file: name -> (text, line)."""
    nodes = {}
    for i, ln in enumerate(lines(repo, path), 1):
        m = re.match(r"__rec=node,id=(\d+),attr=(\d+),data=(.*?)(?:,parent=(\d+))?$", ln)
        if m:
            nodes[int(m.group(1))] = (int(m.group(2)), m.group(3), i)
    byname = {d: nid for nid, (a, d, _) in nodes.items() if a == 8}
    out = {}
    for k in names:
        if k in byname:
            got = [(d, i) for nid, (a, d, i) in nodes.items() if a == byname[k]]
            assert len(got) == 1, (path, k, got)
            out[k] = got[0]
    return out


def lulesh_quartz():
    repo = "LLNL/thicket-tutorial"
    names = ("elapsed_time", "problem_size", "jobsize", "numhosts", "threads", "iterations", "cluster",
             "Compiler Name", "Compiler Version", "mpi.world.size")
    d = "data/lulesh/"
    per = OrderedDict()
    for path in ls(repo, d):
        m = cali_meta(repo, path, names)
        assert m["cluster"][0] == "quartz" and m["iterations"][0] == "9999999", path
        assert m["mpi.world.size"][0] == m["jobsize"][0], path
        js, ps = int(m["jobsize"][0]), int(m["problem_size"][0])
        conf = (m["threads"][0], m["numhosts"][0], m["Compiler Name"][0], m["Compiler Version"][0])
        if js not in per:
            per[js] = (conf, Series(
                "lulesh-quartz-size/ranks=%d" % js, "lulesh-quartz-size", "other", "s", "n",
                "LULESH 2.0 (Caliper/Adiak profiles in thicket-tutorial, pull request #26), cluster quartz, %s %s, %d MPI "
                "ranks on %s node(s) x %s OpenMP thread(s) per rank (Adiak jobsize, numhosts, threads); "
                "n = problem_size (lulesh2.0 -s n: n^3 elements per rank), run to completion; value = Adiak "
                "elapsed_time (whole run, seconds) of one run; five runs (files) per n"
                % (conf[2], conf[3], js, conf[1], conf[0]), repo, d))
        assert per[js][0] == conf, path
        per[js][1].add(ps, m["elapsed_time"][0], path, m["elapsed_time"][1])
    for js in sorted(per):
        finish(per[js][1])
    d = "data/lulesh_strong/"
    s = Series("lulesh-quartz-strong/elapsed_time", "lulesh-quartz-strong", "strong", "s", "p",
               "LULESH 2.0 (Caliper/Adiak profiles in thicket-tutorial, pull request #26), cluster quartz, strong scaling: "
               "p = MPI ranks (Adiak jobsize) with problem_size per rank 30, 20, 15, 12, 10, 9 for p = 8, 27, "
               "64, 125, 216, 343, i.e. 216000 elements in total (250047 at p = 343); OpenMP threads per rank "
               "5, 2, 2, 2, 1, 1 (Adiak threads); value = Adiak elapsed_time (whole run, seconds) of one run; "
               "five runs (files) per p", repo, d)
    want = {8: 30, 27: 20, 64: 15, 125: 12, 216: 10, 343: 9}
    for path in ls(repo, d):
        m = cali_meta(repo, path, names)
        assert m["cluster"][0] == "quartz" and m["iterations"][0] == "9999999", path
        js = int(m["jobsize"][0])
        assert want[js] == int(m["problem_size"][0]), path
        assert m["threads"][0] == {8: "5", 216: "1", 343: "1"}.get(js, "2"), path
        s.add(js, m["elapsed_time"][0], path, m["elapsed_time"][1])
    finish(s)
    SKIPPED.append(("lulesh-quartz-size", "the same data/lulesh/ files grouped by problem_size (time vs ranks)",
                    "not used: it would count every value twice; also the OpenMP threads per rank change with "
                    "the rank count (5, 2, 2, 2, 1, 1), so it is not a clean weak-scaling series"))
    SKIPPED.append(("lulesh-quartz-size", "per-region Caliper records (time per callpath)",
                    "not taken: only the whole-run Adiak elapsed_time, fixed in advance; region values are "
                    "aggregates over ranks"))
    for repo_, reason in (
            ("uswick/scripts_misc", "HPX/MPI allreduce runs with repetitions vs process count, but the "
                                    "repository has no licence file"),
            ("kangpahul9/pdcassigmentpart2", "OpenMP n-body, 5 thread counts x 5 runs, but the repository has "
                                             "no licence file"),
            ("irina-b1/heat-diffusion-fdm-mpi", "results/raw_times.csv: 4 process counts x 3 runs (fewer than "
                                                "5 scales and 5 repetitions)"),
            ("PJGJ/pagerank-openmp", "results/raw_times.csv: 4 thread counts x 5 runs (fewer than 5 scales)"),
            ("fwlipebueno/parallel-vector-sum-benchmark", "results/raw_times.csv: one thread count and one size "
                                                          "(no scaling parameter)"),
            ("LLNL/thicket-tutorial", "data/quartz/*, data/lassen/*: RAJAPerf at one or few problem sizes per "
                                      "configuration; data/mpi_scaling_cali/: byte-identical (same blob SHA) "
                                      "to the LLNL/thicket files used by lulesh-opal")):
        SKIPPED.append(("(other repositories)", repo_, reason))


# ---------------------------------------------------------------- output

def split(points):
    scales = sorted(points)
    k = 2 if len(scales) >= 8 else 1
    return scales[:-k], scales[-k:]


def main():
    lulesh()
    vlasiator()
    ptsolvers()
    mpibenchmarks()
    fugaku()
    archer_imb()
    archer_benchio()
    archer_gromacs()
    archer_cp2k()
    archer_hadgem3()
    ppscan()
    walky_approx()
    walky_exact()
    walky_mpi()
    lulesh_quartz()

    ids = [s.sid for s in SERIES]
    assert len(ids) == len(set(ids)), "duplicate series ids"
    out, prov = [], []
    for s in SERIES:
        commit, _, lic = REPOS[s.repo]
        train, hold = split(s.points)
        entry = OrderedDict([
            ("id", s.sid), ("group", s.group), ("params", [s.param]),
            ("train", [[[x], [t for t, _, _ in s.points[x]]] for x in train]),
            ("holdout", [[[x], [t for t, _, _ in s.points[x]]] for x in hold]),
            ("note", s.note), ("unit", s.unit), ("kind", s.kind),
            ("source", OrderedDict([("repo", s.repo), ("commit", commit), ("path", s.path),
                                    ("license", lic)])),
        ])
        paths = sorted({p for v in s.points.values() for _, p, _ in v})
        if len(paths) > 1 or paths[0] != s.path:
            entry["source"]["files"] = paths
        out.append(entry)
        for x in sorted(s.points):
            for r, (t, p, ln) in enumerate(s.points[x], 1):
                prov.append([s.sid, x, r, t, s.repo, commit, p, ln, _files[(s.repo, p)][1]])
    # licence files
    for repo, (commit, lic_path, _) in REPOS.items():
        data = git(repo, "show", "%s:%s" % (commit, lic_path))
        d = os.path.join(HERE, "sources", repo.replace("/", "__"))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "LICENSE"), "wb") as f:
            f.write(data)
    with open(os.path.join(HERE, "suite.json"), "w") as f:
        json.dump({"series": out}, f, indent=1)
        f.write("\n")
    with open(os.path.join(HERE, "provenance.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["series_id", "point", "rep", "value", "repo", "commit", "path", "line", "blob_sha"])
        w.writerows(prov)
    with open(os.path.join(HERE, "skipped.json"), "w") as f:
        json.dump([{"group": g, "id": i, "reason": r} for g, i, r in SKIPPED], f, indent=1)
        f.write("\n")
    print("%d series, %d values, %d repositories, %d skipped entries" %
          (len(out), len(prov), len({s.repo for s in SERIES}), len(SKIPPED)))


if __name__ == "__main__":
    sys.exit(main())
