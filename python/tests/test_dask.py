"""errband.dask against the command line: a 1 000-series experiment analysed
on a two-worker local Dask cluster gives the command line's summary of the
same table, exactly; a failing series is a row with its error; the rows do
not depend on the partitions.

Skipped without dask (``pip install "errband[dask]"``); CI installs it.
Run from the repository root after installing the wheel:
``pytest python/tests/test_dask.py``.
"""

import csv
import io
import json
import os
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import errband  # noqa: E402
from errband.dask import analyse_dask, model_params, to_pandas  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BIN = os.environ.get("ERRBAND_BIN", str(ROOT / "target" / "release" / "errband"))

MODEL = "# A linear model of the run time in the process count.\nT(p) = c0 + c1*p\nparam c0, c1\n"
SCALES = (2, 4, 8, 16, 32)


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None, silence_logs=40,
    )
    c = distributed.Client(cluster)
    try:
        yield c
    finally:
        c.close()
        cluster.close()


def experiment(n: int, failing_every: int = 0) -> pd.DataFrame:
    """``n`` callpaths of one metric, measured twice at p = 2..32 (powers
    of two): T = (1000 + c) + (50 + c mod 17)·p seconds plus a deterministic
    pseudo-noise below half a second, as exact decimal text with three
    decimals. With ``failing_every``, every such callpath is measured at
    p = 2 alone (one point for two parameters: its analysis fails)."""
    rows = []
    for c in range(n):
        scales = SCALES[:1] if failing_every and c % failing_every == failing_every - 1 else SCALES
        for p in scales:
            for r in range(2):
                noise = (c * c * 7919 + c * 31 + p * 104729 + r * 1299709) % 1000 - 500
                v = (1000 + c) * 1000 + p * (50 + c % 17) * 1000 + noise
                rows.append((f"main/f{c:04d}", "time", str(p), f"{v // 1000}.{v % 1000:03d}"))
    return pd.DataFrame(rows, columns=["callpath", "metric", "p", "T"])


def cli(*args: str) -> str:
    out = subprocess.run([BIN, *args], cwd=ROOT, capture_output=True, text=True)
    # Exit code 1: some series' analyses failed (their rows say why).
    assert out.returncode in (0, 1), out.stderr
    return out.stdout


def fraction(v: dict) -> Fraction:
    return Fraction(v["exact"])


def test_the_readmes_example_prints_what_the_readme_shows(monkeypatch, capsys):
    # First in the file: its own LocalCluster, before the module's starts.
    text = (ROOT / "python" / "README.md").read_text()
    section = text.split("## Beyond one machine: Dask", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    shown = section.split("prints\n\n```\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(ROOT)
    exec(compile(code, "python/README.md", "exec"), {"__name__": "__main__"})
    assert capsys.readouterr().out == shown


def test_a_thousand_series_on_two_workers_are_the_command_lines_summary(client, tmp_path):
    df = experiment(1000, failing_every=200)
    data = tmp_path / "experiment.csv"
    df.to_csv(data, index=False)
    model = tmp_path / "linear.tm"
    model.write_text(MODEL)
    want = json.loads(cli(str(model), str(data), "--by", "callpath,metric", "--at", "p=64", "--format", "json"))
    table = list(csv.DictReader(io.StringIO(cli(str(model), str(data), "--by", "callpath,metric", "--at", "p=64",
                                                "--format", "csv"))))

    result = analyse_dask(dd.from_pandas(df, npartitions=4), model, by=["callpath", "metric"], at="p=64")
    assert list(result.columns[:4]) == ["callpath", "metric", "series", "y"]
    got = to_pandas(result)

    # One row per series, in the order of the keys (the command line
    # lists the widest bands first).
    summary = {s["callpath"]: s for s in want["summary"]}
    assert len(got) == len(summary) == 1000
    assert list(got["callpath"]) == sorted(df["callpath"].unique())
    assert (got["metric"] == "time").all()
    assert list(got["series"]) == [f"callpath={c}, metric=time" for c in got["callpath"]]
    assert set(got["series"]) == set(summary)
    assert sum(s["error"] is not None for s in summary.values()) == 5
    for row in got.itertuples(index=False):
        s = summary[row.series]
        assert row.y == s["metric"] == "T"
        if s["error"] is not None:
            # The same message but for the data's name (a DataFrame here).
            assert row.error == s["error"].replace(str(data), "<DataFrame>"), (row.error, s["error"])
            assert pd.isna(row.emax_float) and row.emax is None and row.c0 is None and pd.isna(row.measurements)
            continue
        assert row.error is None
        assert (row.model, row.measurements, row.points) == (s["model"], s["measurements"], s["points"])
        assert type(row.emax) is Fraction and row.emax == fraction(s["emax"])
        assert {"c0": row.c0, "c1": row.c1} == {p["name"]: fraction(p) for p in s["params"]}
        assert row.widest_relative_half_width == fraction(s["widest_relative_half_width"])
        assert row.emax_float == float(row.emax) and row.c1_float == float(row.c1)
        assert row.family is None
    # The command line's CSV table (one line per series and threshold at
    # p=64) has the same e_max and errors.
    emax = {r["callpath"]: r["emax_exact"] for r in table if not r["error"]}
    errors = {r["callpath"]: r["error"] for r in table if r["error"]}
    assert len(emax) == 995 and len(errors) == 5
    ok = got[got["error"].isna()]
    assert {s: str(e) for s, e in zip(ok["series"], ok["emax"])} == emax
    bad = got[got["error"].notna()]
    assert {s: e for s, e in zip(bad["series"], bad["error"])} == {
        s: e.replace(str(data), "<DataFrame>") for s, e in errors.items()
    }


def test_the_rows_do_not_depend_on_the_partitions_and_are_the_local_analysis(client, tmp_path):
    df = experiment(30)
    # Twenty-five significant digits: not one of them lost on the way.
    df["T"] = [Decimal(v) + Decimal("1e-20") * (i % 7) for i, v in enumerate(df["T"])]
    df = df.sample(frac=1, random_state=1).reset_index(drop=True)  # groups spread over partitions
    model = tmp_path / "linear.tm"
    model.write_text(MODEL)
    runs = [to_pandas(analyse_dask(dd.from_pandas(df, npartitions=n), model, by="callpath,metric")) for n in (1, 3, 7)]
    runs.append(to_pandas(analyse_dask(dd.from_pandas(df, npartitions=2), model, by="callpath,metric", npartitions=5)))
    for r in runs[1:]:
        pd.testing.assert_frame_equal(r, runs[0])
    local = errband.analyse_experiment(model, df, by=["callpath", "metric"]).series
    local = local.sort_values("callpath")
    assert list(runs[0]["series"]) == list(local["callpath"])
    assert list(runs[0]["emax"]) == list(local["emax"])
    assert list(runs[0]["c0"]) == list(local["c0"]) and list(runs[0]["c1"]) == list(local["c1"])
    assert runs[0]["emax"].map(lambda v: v.denominator).max() > 10**20  # the 1e-20 parts are there


def test_a_failing_series_is_a_row_with_its_error_not_a_failed_job(client, tmp_path):
    df = experiment(4)
    one_point = df["callpath"] == "main/f0001"
    df = df[~one_point | (df["p"] == "2")].copy()
    df.loc[(df["callpath"] == "main/f0002") & (df["p"] == "8"), "T"] = "fast"
    result = to_pandas(analyse_dask(dd.from_pandas(df, npartitions=2), MODEL, by=["callpath", "metric"]))
    assert list(result["callpath"]) == ["main/f0000", "main/f0001", "main/f0002", "main/f0003"]
    errors = dict(zip(result["callpath"], result["error"]))
    assert errors["main/f0000"] is None and errors["main/f0003"] is None
    assert errors["main/f0001"].startswith("too few points")
    assert "`T`" in errors["main/f0002"] and "fast" in errors["main/f0002"]
    assert result.loc[result["error"].isna(), "emax"].map(type).eq(Fraction).all()
    assert result.loc[result["error"].notna(), "emax_float"].isna().all()
    assert str(result["measurements"].dtype) == "Int64"
    assert (result["y"] == "T").all()


def test_options_are_checked_on_the_client_and_the_model_read_there():
    df = dd.from_pandas(experiment(2), npartitions=1)
    with pytest.raises(ValueError, match="no column 'region'"):
        analyse_dask(df, MODEL, by=["region"])
    with pytest.raises(ValueError, match="named like a column of the result"):
        analyse_dask(df.rename(columns={"metric": "model"}), MODEL, by=["callpath", "model"])
    with pytest.raises(TypeError, match="needs a model"):
        analyse_dask(df, None, by="callpath")
    assert model_params(ROOT / "models" / "hpl_paper.tm") == ["c1", "c2"]
    # The repository's models: the parameters errband fits, in its order.
    data = {"hpl": "hpl", "hpl_paper": "hpl", "whitebox": "whitebox", "amdahl": "amdahl",
            "mpi_barrier": "mpi_barrier", "pn": "pn"}
    for model, measured in data.items():
        m = ROOT / "models" / f"{model}.tm"
        assert model_params(m) == list(errband.analyse_series(m, ROOT / "data" / f"{measured}.csv").params), m


def test_import_errband_does_not_import_dask():
    out = subprocess.run(
        [sys.executable, "-c", "import sys, errband; print('dask' in sys.modules)"],
        capture_output=True, text=True, check=True,
    )
    assert out.stdout.strip() == "False"
