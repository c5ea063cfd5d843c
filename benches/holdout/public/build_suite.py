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
