"""Model discovery, the keyword arguments of the command line's flags, the
exception classes, paths and text, the return types, predict(), summary(),
holdout="last=N" and plan()'s candidate limit: each against the command
line (``ERRBAND_BIN``, default ``target/release/errband``) where it has the
same feature.

Run from the repository root after installing the wheel:
``pytest python/tests``.
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


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def cli(*args: str) -> str:
    return subprocess.run([BIN, *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def cli_json(*args: str) -> dict:
    return json.loads(cli(*args, "--format", "json"))


def hpl_frame() -> pd.DataFrame:
    lines = [l for l in (ROOT / "data" / "hpl.csv").read_text().splitlines() if l and not l.startswith("#")]
    head = [h.split("[")[0].strip() for h in lines[0].split(",")]
    return pd.DataFrame([[Decimal(x) for x in l.split(",")] for l in lines[1:]], columns=head)


# A. Model discovery -------------------------------------------------------


def test_model_discovery_gives_the_clis_family_and_recommendation():
    a = errband.analyse_series(data="data/amdahl.csv", at="p=1024")
    want = cli_json("data/amdahl.csv", "--at", "p=1024")
    assert a.json["model"]["body"] == want["model"]["body"]
    assert a.json["family"]["forms"] == want["family"]["forms"]
    assert a.json["recommendation"] == want["recommendation"]
    f = a.families
    assert len(f) == len(want["family"]["forms"]) and list(f["rank"]) == list(range(1, len(f) + 1))
    assert {"form", "k", "consistent", "positive", "self_check", "loo", "loo_float", "remax", "rank"} <= set(f.columns)
    assert f["form"].iloc[0] == want["family"]["forms"][0]["form"]
    assert (f["k"] == [len(x["params"]) for x in want["family"]["forms"]]).all()
    assert f["loo"].map(lambda v: v is None or isinstance(v, Fraction)).all()
    assert list(f["sets_threshold"]) == [x["sets_threshold"] for x in want["family"]["forms"]]
    r = a.recommendation
    points = want["recommendation"]["points"]
    assert len(r) == len(points)
    row = r[r["p"] == 1024].iloc[0]
    wp = next(p for p in points if p["point"] == {"p": "1024"})
    assert row["value"] == Fraction(wp["value"]["exact"])
    assert (row["lower"], row["upper"]) == (Fraction(wp["band"]["lower"]["exact"]), Fraction(wp["band"]["upper"]["exact"]))
    assert row["clipped"] == wp["band"]["clipped"] and row["status"] in ("ok", "clipped")
    assert row["gate"] == want["recommendation"]["self_check"]["outcome"]
    hw = want["recommendation"]["self_check"]["half_width"]
    assert row["gate_half_width"] == (None if hw is None else Fraction(hw["exact"]))
    assert list(f["self_check_half_width"]) == [
        None if (x["self_check"] or {}).get("half_width") is None else Fraction(x["self_check"]["half_width"]["exact"])
        for x in want["family"]["forms"]
    ]
    assert pd.isna(row["family_forms"]) if wp["family_forms"] is None else row["family_forms"] == wp["family_forms"]
    assert pd.isna(row["alike_forms"]) if wp["alike_forms"] is None else row["alike_forms"] == wp["alike_forms"]
    wl = wp["without_largest"]
    assert row["without_largest"] == (None if wl is None else Fraction(wl["exact"]))
    assert row["hinges"] == wp["hinges"]
    assert row["value_outside"] == wp["value_outside"]
    # The same from a DataFrame, and with the pmnf family.
    same = errband.analyse_series(data=pd.read_csv("data/amdahl.csv", comment="#", dtype=str).rename(columns={"T [s]": "T"}), at="p=1024")
    assert same.json["family"]["forms"][0]["form"] == want["family"]["forms"][0]["form"]
    pm = errband.analyse_series(data="data/amdahl.csv", family="pmnf")
    assert pm.json["family"]["forms"] == cli_json("data/amdahl.csv", "--family", "pmnf")["family"]["forms"]
    with pytest.raises(errband.InputError, match='family="nope"'):
        errband.analyse_series(data="data/amdahl.csv", family="nope")


def test_a_change_of_trend_sets_scales_aside_and_says_so():
    # Strong scaling that flattens: the last scales follow another trend.
    rows = [(1, 1000), (2, 500), (4, 250), (8, 125), (16, 62.5), (32, 40), (64, 38), (128, 37), (256, 36.5), (512, 36.2)]
    df = pd.DataFrame(rows, columns=["p", "T"])
    a = errband.analyse_series(data=df, at="p=1024")
    text = df.to_csv(index=False)
    out = subprocess.run([BIN, "-", "--at", "p=1024", "--format", "json"], cwd=ROOT, input=text,
                         check=True, capture_output=True, text=True)
    want = json.loads(out.stdout)
    assert a.json["recommendation"] == want["recommendation"]
    assert want["recommendation"]["regime"]["used"]
    assert list(a.set_aside["p"]) == [Fraction(m["point"]["p"]) for m in want["set_aside"]] == [1, 2, 4]
    r = a.recommendation
    assert r["regime"].iloc[0].startswith("regime: the trend changes between p = 4 and p = 8")
    assert "(p = 1, 2, 4 set aside)" in a.summary()


# B1. x=, y=, aggregate=, by=, drop= -------------------------------------


def test_columns_taken_by_default_are_named_in_pythons_words():
    # Model discovery on a table of statistics: every column but the last
    # is a variable, and the data say which were taken.
    df = pd.DataFrame({"p": [32, 64, 128, 256], "mean": [10, 12, 15, 19], "sd": [1, 1, 2, 2], "median": [9, 11, 14, 18]})
    a = errband.analyse_series(data=df)
    warned = " ".join(a.warnings)
    assert "without a model the variables are every column but the measured one: `p`, `mean`, `sd` (measured: median)" in warned
    assert "x={VAR: COLUMN}" in warned and "--x" not in warned
    # The answer points at it.
    assert "data: read with 1 warning, listed with the data" in a.summary()
    # Chosen with x=, nothing to say.
    chosen = errband.analyse_series(data=df, x={"p": "p"}, y="median")
    assert chosen.warnings == [] and "data: read with" not in chosen.summary()
    # Names the model language refuses, in a table with text keys.
    keyed = pd.DataFrame({"mpi": ["A"] * 4, "Ranks": [32, 64, 128, 256], "min": [1, 2, 3, 4], "t": [1, 2, 3, 4]})
    with pytest.raises(errband.InputError) as e:
        errband.analyse_series(data=keyed)
    msg = e.value.message
    assert "`min` is a reserved word" in msg and 'x={"p": "Ranks"}' in msg and 'by=["mpi"]' in msg, msg
    assert "--x" not in msg and "--by" not in msg


def test_x_and_y_name_the_columns_as_the_flags_do():
    df = hpl_frame().rename(columns={"p": "procs", "T": "time"})
    a = errband.analyse_series("models/hpl.tm", df, x={"p": "procs"}, y="time", at="p=1000")
    assert a.emax == Fraction(1101248, 81125)
    assert errband.analyse_series("models/hpl.tm", df, x=["p=procs"], y="time").emax == a.emax
    # Without them: the library's help, in Python's names.
    with pytest.raises(errband.InputError) as e:
        errband.analyse_series("models/hpl.tm", df)
    assert 'x={"p": "COLUMN"}' in e.value.message and 'y="COLUMN"' in e.value.message
    assert "--x" not in e.value.message and "--y" not in e.value.message
    with pytest.raises(errband.InputError) as e:
        errband.analyse_series("models/hpl.tm", df, x={"q": "procs"}, y="time")
    assert e.value.message.startswith('x={"q": "procs"}: `q` is not a variable of the model (p)')
    with pytest.raises(errband.InputError) as e:
        errband.analyse_series("models/hpl.tm", df, x={"p": "procs"}, y="procs")
    assert e.value.message.startswith('y="procs": the column `procs` would be both')


def test_aggregate_equals_the_flag():
    for how in ("mean", "median", "min", "max"):
        a = errband.analyse_series("models/amdahl.tm", "data/amdahl.csv", aggregate=how)
        assert a.emax == Fraction(cli_json("models/amdahl.tm", "data/amdahl.csv", "--aggregate", how)["emax"]["exact"])
    with pytest.raises(errband.InputError, match='aggregate="avg": expected'):
        errband.analyse_series("models/amdahl.tm", "data/amdahl.csv", aggregate="avg")


def test_by_splits_a_table_into_series(tmp_path):
    df = hpl_frame()
    both = pd.concat([df.assign(site="a"), df.assign(site="b", T=df["T"] * 2)])
    path = tmp_path / "sites.csv"
    path.write_text("site,p,T\n" + "".join(f"{s},{p},{t}\n" for s, p, t in zip(both["site"], both["p"], both["T"])))
    e = errband.analyse_experiment("models/hpl.tm", path, by="site")
    want = cli_json("models/hpl.tm", str(path), "--by", "site")
    assert len(e.series) == 2 and list(e.series["emax"]) == [Fraction(s["emax"]["exact"]) for s in want["summary"]]
    assert errband.analyse_experiment("models/hpl.tm", path, by=["site"]).json["summary"] == e.json["summary"]
    with pytest.raises(errband.InputError, match="choose one with callpath= and metric="):
        errband.analyse_series("models/hpl.tm", path, by="site")
    one = errband.analyse_series("models/hpl.tm", path, by="site", callpath="*b*")
    emax = dict(zip(e.series["callpath"], e.series["emax"]))
    assert one.emax == emax["site=b"] != emax["site=a"]
    with pytest.raises(errband.InputError) as x:
        errband.analyse_series("models/hpl.tm", path, by="nope")
    assert x.value.message.startswith('error: by="nope": no column `nope` in ') and "--by" not in x.value.message


def test_drop_refits_without_the_points_as_the_flag_does():
    a = errband.analyse_series("models/hpl.tm", "data/hpl.csv", drop="p=100", at="p=1000")
    want = cli_json("models/hpl.tm", "data/hpl.csv", "--drop", "p=100", "--at", "p=1000")
    assert a.json["pruned"] == want["pruned"]
    p = a.pruned
    assert set(p["threshold"]) == {"max", "trusted"} and (p["ratio"].dropna() < 1).any()
    by_row = errband.analyse_series("models/hpl.tm", "data/hpl.csv", drop_rows=[12], at="p=1000")
    assert by_row.json["pruned"]["dropped"] == cli_json(
        "models/hpl.tm", "data/hpl.csv", "--drop-row", "12", "--at", "p=1000")["pruned"]["dropped"]
    with pytest.raises(errband.InputError) as e:
        errband.analyse_series("models/hpl.tm", "data/hpl.csv", drop={"p": 7})
    assert e.value.message == 'drop="p=7": no measurement is at that point'
    with pytest.raises(errband.InputError) as e:
        errband.analyse_series("models/hpl.tm", "data/hpl.csv", drop_rows=13)
    assert e.value.message == "drop_rows=13: there are 12 measurements (rows 1..12)"
    with pytest.raises(errband.InputError, match="holdout= and drop= both"):
        errband.analyse_series("models/hpl.tm", "data/hpl.csv", drop="p=100", holdout="largest")


# B2. Exception classes ---------------------------------------------------


def test_exceptions_have_classes_and_a_kind():
    assert issubclass(errband.InputError, errband.ErrbandError)
    assert issubclass(errband.AnalysisError, errband.ErrbandError)
    assert issubclass(errband.ErrbandError, Exception)
    with pytest.raises(errband.InputError) as e:
        errband.analyse_series("T(p) = a*p*b\nparam a, b\n", "data/hpl.csv")
    assert e.value.kind == "input" and isinstance(e.value, errband.ErrbandError)
    assert str(e.value) == e.value.message == e.value.args[0] and "not affine" in str(e.value)
    with pytest.raises(errband.AnalysisError) as e:
        # Three parameters, two distinct points: the fit is not determined.
        errband.analyse_series("T(p) = a + b*p + c*p^2\nparam a, b, c\n", "p,T\n1,2\n2,3\n")
    assert e.value.kind == "analysis" and e.value.args[1] == "analysis"


# B3. Paths and text ------------------------------------------------------


def test_a_missing_path_raises_file_not_found_and_text_is_recognised(tmp_path):
    with pytest.raises(FileNotFoundError):
        errband.analyse_series("models/no_such.tm", "data/hpl.csv")
    with pytest.raises(FileNotFoundError):
        errband.analyse_series("models/hpl.tm", "data/no_such.csv")
    with pytest.raises(FileNotFoundError):
        errband.analyse_series(Path("models/hpl.tm"), tmp_path / "absent.csv")
    with pytest.raises(FileNotFoundError):
        errband.qe("no_such.qe")
    # Text: a model has `=`, data a newline; either as a path is the same.
    model = (ROOT / "models" / "hpl.tm").read_text()
    data = (ROOT / "data" / "hpl.csv").read_text()
    assert errband.analyse_series(model, data).emax == errband.analyse_series(Path("models/hpl.tm"), Path("data/hpl.csv")).emax
    assert errband.analyse_series("T(p) = s + w/p; param s, w", "data/amdahl.csv").json["model"]["file"] == "<model>"


# B4. One return type per function ----------------------------------------


def test_series_and_experiment_have_a_function_each():
    a = errband.analyse_series("models/hpl.tm", "data/hpl.csv")
    assert type(a) is errband.Analysis
    e = errband.analyse_experiment("models/hpl.tm", "data/hpl.csv")
    assert type(e) is errband.Experiment and len(e.series) == 1
    assert e.series["emax"].iloc[0] == a.emax
    x = errband.analyse_experiment("models/amdahl.tm", "data/extrap_experiment.txt")
    assert type(x) is errband.Experiment and len(x.series) == 4
    with pytest.raises(errband.InputError, match="analyse_experiment"):
        errband.analyse_series("models/amdahl.tm", "data/extrap_experiment.txt")
    s = errband.analyse_series("models/amdahl.tm", "data/extrap_experiment.txt", callpath="main->solve", metric="time")
    assert s.emax == x.analysis("main->solve").emax
    # The name that gives either stays.
    assert type(errband.analyse("models/hpl.tm", "data/hpl.csv")) is errband.Analysis


# B5. predict() -------------------------------------------------------------


def test_predict_is_a_summary_frame_and_adds_points():
    a = errband.analyse_series("models/hpl.tm", "data/hpl.csv", at="p=1000")
    f = a.predict(p=1000)
    assert list(f["threshold"]) == ["max", "trusted", "recommended"]
    assert {"value", "lower", "upper", "measurement_lower", "measurement_upper", "status", "value_float"} <= set(f.columns)
    b = a.bands[a.bands["p"] == 1000]
    for t in ("max", "trusted"):
        got, want = f[f["threshold"] == t].iloc[0], b[b["threshold"] == t].iloc[0]
        assert (got["lower"], got["upper"], got["measurement_lower"], got["measurement_upper"]) == (
            want["lower"], want["upper"], want["measurement_lower"], want["measurement_upper"])
        assert got["value"] == want["model"] and got["status"] in ("ok", "clipped")
    rec = f[f["threshold"] == "recommended"].iloc[0]
    r = a.recommendation[a.recommendation["p"] == 1000].iloc[0]
    assert (rec["measurement_lower"], rec["measurement_upper"]) == (r["lower"], r["upper"])
    # A point the analysis did not have: the same as asking for it.
    g = a.predict(p=[1000, 3000])
    fresh = errband.analyse_series("models/hpl.tm", "data/hpl.csv", at="p=3000").predict(p=3000)
    assert g[g["p"] == 3000].reset_index(drop=True).equals(fresh)
    e = errband.analyse_series("models/hpl.tm", "data/hpl.csv", thresholds=["1"], at="p=1000").predict(p=1000)
    assert e[e["threshold"] == "1"]["status"].iloc[0] == "empty"
    with pytest.raises(TypeError, match=r"one keyword per model variable \(p\)"):
        a.predict(q=1)


# B6. summary() -------------------------------------------------------------


def test_summary_is_the_clis_answer_section():
    def answer(text: str) -> str:
        start = text.index("Answer")
        return text[start : text.index("\n\n", start) + 2]

    a = errband.analyse_series("models/hpl.tm", "data/hpl.csv", at="p=1000")
    assert a.summary() == answer(cli("models/hpl.tm", "data/hpl.csv", "--at", "p=1000"))
    d = errband.analyse_series(data="data/amdahl.csv", at="p=1024")
    assert d.summary() == answer(cli("data/amdahl.csv", "--at", "p=1024"))
    assert d.summary().startswith("Answer (* = extrapolated)\n  p = 1024*: T(p) = ")


# B7. holdout="last=1" ------------------------------------------------------


def test_holdout_takes_the_flags_syntax_and_last_n():
    last = errband.analyse_series("models/hpl.tm", "data/hpl.csv", holdout="last=1")
    largest = errband.analyse_series("models/hpl.tm", "data/hpl.csv", holdout="largest")
    want = cli_json("models/hpl.tm", "data/hpl.csv", "--holdout", "largest")
    assert largest.json["holdout"] == want["holdout"]
    assert last.json["holdout"]["measurements"] == want["holdout"]["measurements"]
    assert set(last.holdout["p"]) == {Fraction(120)}
    two = errband.analyse_series("models/hpl.tm", "data/hpl.csv", holdout="last=2")
    assert two.json["holdout"]["measurements"] == cli_json(
        "models/hpl.tm", "data/hpl.csv", "--holdout", "p>=110")["holdout"]["measurements"]
    with pytest.raises(errband.InputError, match=r'holdout="last=0": expected last=N'):
        errband.analyse_series("models/hpl.tm", "data/hpl.csv", holdout="last=0")
    with pytest.raises(errband.InputError) as e:
        errband.analyse_series("models/hpl.tm", "data/hpl.csv", holdout="q>=3")
    assert "--> holdout:1:1" in e.value.message and "--holdout" not in e.value.message
    with pytest.raises(errband.InputError) as e:
        errband.analyse_series("models/hpl.tm", "data/hpl.csv", holdout="p>=1000")
    assert e.value.message == 'holdout="p>=1000" holds out no measurement of data/hpl.csv'


# B8. The package's README ----------------------------------------------------


def test_the_package_readme_quickstart_runs(capsys):
    text = (ROOT / "python" / "README.md").read_text()
    code = text.split("## Quickstart", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "python/README.md", "exec"), {"__name__": "__main__"})
    out = capsys.readouterr().out
    assert "1101248/81125" in out and "Answer" in out
    assert "python/dist/" in (ROOT / ".gitignore").read_text().splitlines()


# B9. plan()'s candidate limit ------------------------------------------------


def test_plan_refuses_more_candidates_than_the_limit_before_the_first():
    t = time.perf_counter()
    with pytest.raises(errband.InputError) as e:
        errband.plan("models/hpl.tm", "data/hpl.csv", candidates="p=1..100000", target="p=1000")
    assert time.perf_counter() - t < 5
    assert e.value.message.startswith("candidates: 100000 candidate points, each a whole re-analysis (limit 10000; raise it with max_candidates=)")
    with pytest.raises(errband.InputError, match="limit 17"):
        errband.plan("models/hpl.tm", "data/hpl.csv", candidates="p=130..300:10", target="p=1000", max_candidates=17)
    ok = errband.plan("models/hpl.tm", "data/hpl.csv", candidates="p=130..300:10", target="p=1000", max_candidates=18)
    assert len(ok.json["candidates"]) > 0


def test_prune_and_a_family_take_the_same_limit():
    with pytest.raises(errband.InputError) as e:
        errband.prune("models/hpl.tm", "data/hpl.csv", target="p=1000", max_drop=2, max_candidates=10)
    assert e.value.message.startswith("max_drop=2 generates ") and "raise the limit with max_candidates=" in e.value.message
    with pytest.raises(errband.InputError) as e:
        errband.analyse_series(data="data/amdahl.csv", at="p=1024", max_candidates=5)
    assert "more than 5" in e.value.message and e.value.message.endswith("raise the limit with max_candidates=")
    assert "--" not in e.value.message
