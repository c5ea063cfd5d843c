"""The Python package against the command line: the same numbers, exactly.

Run from the repository root after installing the wheel:
``pytest python/tests``. The command line's binary (``ERRBAND_BIN``,
default ``target/release/errband``) is the oracle for the JSON.
"""

import json
import os
import subprocess
import time
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest

import errband

ROOT = Path(__file__).resolve().parents[2]
BIN = os.environ.get("ERRBAND_BIN", str(ROOT / "target" / "release" / "errband"))


def cli_json(*args: str) -> dict:
    out = subprocess.run([BIN, *args, "--format", "json"], cwd=ROOT, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def hpl_frame() -> pd.DataFrame:
    """data/hpl.csv as a DataFrame of exact decimals."""
    lines = [l for l in (ROOT / "data" / "hpl.csv").read_text().splitlines() if l and not l.startswith("#")]
    head = [h.split("[")[0].strip() for h in lines[0].split(",")]
    rows = [[Decimal(x) for x in l.split(",")] for l in lines[1:]]
    return pd.DataFrame(rows, columns=head)


def test_hpl_from_a_dataframe_gives_the_papers_emax_and_the_clis_band():
    a = errband.analyse(ROOT / "models" / "hpl.tm", hpl_frame(), at="p=1000")
    assert a.emax == Fraction(1101248, 81125)
    cli = cli_json("models/hpl.tm", "data/hpl.csv", "--at", "p=1000")
    want = next(p for p in cli["bands"] if p["point"] == {"p": "1000"})
    got = next(p for p in a.json["bands"] if p["point"] == {"p": "1000"})
    assert got == want
    lo, hi = a.band(p=1000)["max"]
    assert (lo, hi) == (Fraction(want["bands"][0]["band"]["lower"]["exact"]), Fraction(want["bands"][0]["band"]["upper"]["exact"]))
    # The whole document is the CLI's but for the file names and the line
    # numbers of the residuals (the DataFrame's CSV has no comment lines).
    for doc in (cli, a.json):
        doc["data"]["file"] = doc["model"]["file"] = "-"
        for r in doc["residuals"]:
            r["line"] = 0
    assert a.json == cli


def test_frames_have_fraction_columns_beside_float_ones():
    a = errband.analyse("models/hpl.tm", "data/hpl.csv", at=[{"p": 1000}, "p=2000"])
    assert list(a.fit["name"]) == ["c1", "c2"]
    assert all(isinstance(v, Fraction) for v in a.fit["value"])
    r = a.residuals
    assert len(r) == 12 and r["residual"].map(type).eq(Fraction).all()
    assert (r["model"] - r["measured"] == r["residual"]).all()
    assert r["residual_float"].abs().max() == pytest.approx(float(max(abs(x) for x in r["residual"])))
    b = a.bands
    assert set(b["threshold"]) == {"max", "trusted"}
    row = b[(b["p"] == 1000) & (b["threshold"] == "max")].iloc[0]
    assert row["lower"] < row["model"] < row["upper"]
    assert row["measurement_lower"] <= row["lower"] and row["status"] == "ok"
    assert float(row["upper"]) == row["upper_float"]
    reg = a.regions
    assert {"dc1", "dc2", "dc1_float"} <= set(reg.columns) and (reg["threshold"] == "max").any()


def test_an_empty_region_has_no_band_and_nan_floats():
    a = errband.analyse("models/hpl.tm", "data/hpl.csv", thresholds=["1", "max"], at="p=1000")
    b = a.bands
    empty = b[b["threshold"] == "1"]
    assert (empty["status"] == "empty").all() and empty["lower"].isna().all() and empty["lower_float"].isna().all()


def test_a_bad_model_raises_the_located_caret_message():
    with pytest.raises(errband.ErrbandError) as e:
        errband.analyse("T(p) = a*p*b\nparam a, b\n", "data/hpl.csv")
    message, kind = e.value.args
    assert kind == "input"
    assert "<model>:1:8" in message and "^^^^^" in message and "not affine" in message
    with pytest.raises(errband.ErrbandError) as e:
        errband.analyse("models/hpl.tm", "p,T\n1,2\n2,x\n")
    assert "<data>:3:" in e.value.args[0]


def test_an_extrap_experiment_is_one_row_per_callpath():
    e = errband.analyse("models/amdahl.tm", "data/extrap_experiment.txt")
    assert isinstance(e, errband.Experiment)
    s = e.series
    cli = cli_json("models/amdahl.tm", "data/extrap_experiment.txt")
    assert len(s) == len(cli["summary"]) == 4
    assert list(s["callpath"]) == [x["callpath"] for x in cli["summary"]]
    assert list(s["emax"]) == [Fraction(x["emax"]["exact"]) for x in cli["summary"]]
    a = e.analysis("main->solve")
    assert a.emax == Fraction(cli["summary"][0]["emax"]["exact"])
    # An archive, read from its path, with a selection.
    r = errband.analyse("T(p, n) = c0 + c1*p\nparam c0, c1\n", ROOT / "data" / "extrap" / "relearn.extra-p")
    assert isinstance(r, errband.Experiment) and len(r.series) > 1


def test_holdout_and_family_match_the_cli():
    a = errband.analyse("models/hpl.tm", "data/hpl.csv", holdout="p>=100", family="pmnf")
    cli = cli_json("models/hpl.tm", "data/hpl.csv", "--holdout", "p>=100", "--family", "pmnf")
    assert a.json["holdout"] == cli["holdout"] and a.json["family"] == cli["family"]
    f = a.families
    assert f["rank"].iloc[0] == 1 and len(f) == len(cli["family"]["forms"])
    fb = a.family_bands
    assert len(fb) == len(cli["family"]["bands"]) and (fb["lower"] <= fb["upper"]).all()
    h = a.holdout
    held = cli["holdout"]["measurements"]
    assert set(h["row"]) == {m["row"] for m in held}
    inside = sum(b["inside"] for m in held for b in m["bands"])
    assert h["inside"].sum() == inside
    assert errband.analyse("models/hpl.tm", "data/hpl.csv").holdout.empty


def test_repr_html_shows_the_band_plot():
    a = errband.analyse("models/hpl.tm", "data/hpl.csv")
    h = a._repr_html_()
    assert "<svg" in h and "1101248/81125" in h


def test_qe_mirrors_the_command():
    r = errband.qe(ROOT / "models" / "hpl_eq5.qe")
    cli = subprocess.run(
        [BIN, "qe", "models/hpl_eq5.qe", "--format", "json", "--vertices"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    )
    assert r.json == json.loads(cli.stdout)
    assert len(r.vertices) > 0
    with pytest.raises(errband.ErrbandError) as e:
        errband.qe("exists x: x >= ")
    assert "<qe>:1:" in e.value.args[0]


def test_speed_python_adds_little_and_residual_frames_are_fast(tmp_path):
    # Calling from Python: the same analysis, in process, against the
    # analysis alone measured by the library (the CLI's --timings).
    t = time.perf_counter()
    for _ in range(5):
        errband.analyse("models/hpl.tm", "data/hpl.csv")
    per_call = (time.perf_counter() - t) / 5
    assert per_call < 0.5, per_call  # generous: the figure is in the closing note, not here
    # 100 000 residual rows to a DataFrame.
    n = 100_000
    csv = tmp_path / "big.csv"
    csv.write_text("p,T\n" + "".join(f"{1 + i % 1000},{10 + (i * 7919) % 1000 / 100}\n" for i in range(n)))
    a = errband.analyse("T(p) = s + w/p\nparam s, w\n", csv, thresholds=["max"])
    t = time.perf_counter()
    r = a.residuals
    elapsed = time.perf_counter() - t
    assert len(r) == n
    print(f"residual frame of {n} rows: {elapsed:.3f} s")


def test_the_docs_example_prints_what_the_docs_show(monkeypatch, capsys):
    text = (ROOT / "docs" / "python.md").read_text()
    section = text
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    shown = section.split("prints (from the repository's root)\n\n```\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(ROOT)
    exec(compile(code, "docs/python.md", "exec"), {"__name__": "__main__"})
    assert capsys.readouterr().out == shown


def test_prune_and_plan_equal_the_commands_json():
    r = errband.prune("models/hpl.tm", hpl_frame(), target="p=1000", candidates=[["p=10", "p=20"]])
    cli = cli_json("prune", "models/hpl.tm", "data/hpl.csv", "--target", "p=1000", "--candidate", "p=10,p=20")
    for doc in (cli, r.json):
        doc["data"] = doc["model"] = "-"
        for c in doc["candidates"]:
            for m in c.get("rows", []):
                m["line"] = 0
    assert r.json == cli
    assert r.verdict.startswith("Best: dropping p=100")
    assert {"leave-one-out", "candidate p=10,p=20"} <= set(r.candidates["sources"])
    q = errband.plan("models/hpl.tm", "data/hpl.csv", candidates="p=130..300:10", target={"p": 1000})
    cli = cli_json("plan", "models/hpl.tm", "data/hpl.csv", "--target", "p=1000", "--candidate", "p=130..300:10")
    cli["model"] = q.json["model"]
    assert q.json == cli
    assert q.candidates["p"].iloc[0] == 300
    # The command line's spellings: one text dropping two points, and `step`.
    same = errband.prune("models/hpl.tm", hpl_frame(), target="p=1000", candidates=["p=10,p=20"])
    assert same.json["candidates"] == errband.prune(
        "models/hpl.tm", hpl_frame(), target="p=1000", candidates=[["p=10", "p=20"]]
    ).json["candidates"]
    worded = errband.plan("models/hpl.tm", "data/hpl.csv", candidates="p=130..300 step 10", target={"p": 1000})
    assert worded.json["candidates"] == q.json["candidates"]
    with pytest.raises(errband.ErrbandError) as e:
        errband.plan("T(p) = s + w/p\nparam s, w\n", "data/amdahl.csv", candidates="p=100")
    assert e.value.args == ("no target: give target= (e.g. \"p=1000\") or a `predict` statement in <model>", "input")


def test_energy_equals_the_commands_json_from_a_path_and_a_frame():
    e = errband.energy(ROOT / "data" / "energy_mg.csv", nodes="16,64,inf")
    cli = cli_json("energy", "data/energy_mg.csv", "--nodes", "16,64,inf")
    cli["file"] = e.json["file"]
    # Each fit's model is named after the profile, as it was given.
    for r, want in zip(cli["regions"], e.json["regions"]):
        for f, g in zip(r["fits"], want["fits"]):
            f["model"]["file"] = g["model"]["file"]
    assert e.json == cli
    assert set(e.charts) == {"delta", "ee", "shares"} and all("<svg" in v for v in e.charts.values())
    p = e.predictions
    row = p[(p["nodes"] == "16") & (p["quantity"] == "delta_e")].iloc[0]
    assert row["lower"] <= row["value"] <= row["upper"]
    # The same profile as a DataFrame of text cells: the same numbers.
    df = pd.read_csv(ROOT / "data" / "energy_mg.csv", comment="#", dtype=str)
    f = errband.energy(df, nodes=[16, 64, "inf"])
    assert f.json["predictions"] == e.json["predictions"]
    with pytest.raises(errband.ErrbandError) as x:
        errband.energy(df, nodes="0")
    assert x.value.args == ("--nodes 0: 0 is not a node count (a whole number ≥ 1)", "input")


def test_barrier_equals_the_commands_json_with_a_time_and_with_a_fitted_model():
    b = errband.barrier(nodes="2..40", mpi="120us")
    assert b.json == cli_json("barrier", "--nodes", "2..40", "--mpi", "120us")
    assert b.conclusions and "<svg" in b.chart
    r = b.rows
    assert len(r) == 39 * 2
    assert list(r["winner"][r["nodes"] == 40]) == [c["versus"][0]["winner"] for c in b.json["rows"][-1]["cases"]]
    assert (r["t_eb_lower"] <= r["t_eb_upper"]).all() and r["t_eb_upper_float"].max() > 0
    m = errband.barrier(nodes=range(2, 31), mpi_model="models/mpi_barrier.tm", mpi_data="data/mpi_barrier.csv")
    cli = cli_json("barrier", "--nodes", "2..30", "--mpi-model", "models/mpi_barrier.tm", "--mpi-data", "data/mpi_barrier.csv")
    assert m.json == cli
    with pytest.raises(errband.ErrbandError) as e:
        errband.barrier(nodes="1")
    assert e.value.args == ("--nodes 1: N = 1; a barrier needs at least 2 nodes", "input")


def test_ms_equals_the_commands_json():
    m = errband.ms("data/mandelbrot_32x32.csv", grid=[1024, 1024], procs=[2, 8, 32])
    cli = cli_json("ms", "predict", "data/mandelbrot_32x32.csv", "--grid", "1024x1024", "--procs", "2,8,32")
    assert m.json == cli
    r = m.runs
    assert list(r["procs"]) == [2, 8, 32] and (r["time_s"].diff().dropna() < 0).all()
    assert "<svg" in m.chart
    with pytest.raises(errband.ErrbandError) as e:
        errband.ms("data/mandelbrot_32x32.csv", grid="256x256")
    assert "outside the grid" in e.value.args[0] and "^" in e.value.args[0]


def test_dataframe_cells_are_read_as_the_decimals_they_show():
    text = hpl_frame()
    floats = text.astype({"T": float})
    a, b = errband.analyse("models/hpl.tm", text), errband.analyse("models/hpl.tm", floats)
    assert a.emax == b.emax == Fraction(1101248, 81125)
    exact = text.astype({"T": object})
    exact["T"] = [Fraction(str(v)) for v in text["T"]]
    assert errband.analyse("models/hpl.tm", exact).emax == a.emax
    bad = text.astype({"T": object})
    bad.loc[0, "T"] = Fraction(1, 3)
    with pytest.raises(ValueError, match="not a finite decimal"):
        errband.analyse("models/hpl.tm", bad)


def test_noise_is_read_as_the_command_line_reads_it():
    base = errband.analyse("models/hpl.tm", "data/hpl.csv").json["regions"]
    for noise in ("5%", "0.05", Fraction(1, 20), 0.05):
        assert errband.analyse("models/hpl.tm", "data/hpl.csv", noise=noise).json["regions"] == base
    with pytest.raises(errband.ErrbandError) as e:
        errband.analyse("models/hpl.tm", "data/hpl.csv", noise="150%")
    assert "from 0 % to below 100 %" in e.value.args[0] and e.value.args[1] == "input"


def test_a_data_file_is_decoded_as_the_command_line_decodes_it(tmp_path):
    # A byte-order mark and old Mac line ends (a CR alone), as spreadsheets
    # write them: read as the command line reads them, not as a header `\ufeffp`.
    text = (ROOT / "data" / "hpl.csv").read_text()
    odd = tmp_path / "hpl.csv"
    odd.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r").encode())
    a = errband.analyse("models/hpl.tm", str(odd))
    assert a.emax == Fraction(1101248, 81125)
    model = tmp_path / "hpl.tm"
    model.write_bytes(b"\xef\xbb\xbf" + (ROOT / "models" / "hpl.tm").read_bytes())
    assert errband.analyse(model, str(odd)).emax == a.emax
    assert json.loads(a.to_json())["bands"] == cli_json("models/hpl.tm", str(odd))["bands"]
    bad = tmp_path / "latin1.csv"
    bad.write_bytes(text.replace("p,T", "p,T \xb5s").encode("latin-1"))
    with pytest.raises(errband.ErrbandError) as e:
        errband.analyse("models/hpl.tm", str(bad))
    assert "not valid UTF-8 (byte 0xB5" in e.value.args[0] and e.value.args[1] == "input"
