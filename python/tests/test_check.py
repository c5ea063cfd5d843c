"""errband.check: new measurements against the recommended band at their
scale, as ``errband check`` judges them (``ERRBAND_BIN``, default
``target/release/errband``): the HPL example fitted to p = 10..100, the
held-out p = 110 and 120 checked.

Run from the repository root after installing the wheel:
``pytest python/tests``.
"""

import json
import os
import subprocess
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest

import errband

ROOT = Path(__file__).resolve().parents[2]
BIN = os.environ.get("ERRBAND_BIN", str(ROOT / "target" / "release" / "errband"))
HPL = "models/hpl.tm"
TRAIN = "tests/data/check/hpl_train.csv"
NEW = "tests/data/check/hpl_new.csv"


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def cli_check(*args: str) -> dict:
    r = subprocess.run([BIN, "check", *args, "--format", "json"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def train_frame() -> pd.DataFrame:
    """data/hpl.csv without p = 110 and 120, as exact decimals."""
    df = pd.read_csv(ROOT / "data" / "hpl.csv", comment="#", dtype=str)
    df.columns = [c.split("[")[0].strip() for c in df.columns]
    df = df.map(Decimal)
    return df[df["p"] < 110].reset_index(drop=True)


def test_held_out_hpl_measurements_pass_with_the_clis_bands():
    r = errband.check(HPL, TRAIN, NEW)
    assert isinstance(r, pd.DataFrame) and len(r) == 2
    assert list(r["p"]) == [110, 120] and isinstance(r["p"][0], Fraction)
    assert list(r["verdict"]) == ["inside", "inside"]
    assert not r["fails"].any()
    assert r.attrs["failed"] is False
    assert r.attrs["counts"]["inside"] == 2
    assert "Summary: 2 measurements: 2 inside" in r.attrs["summary"]
    assert "p = 110: T = 545.38 s is inside the recommended band" in r.attrs["summary"]
    # The same document as the command line's, value for value.
    assert r.attrs["json"] == cli_check(HPL, TRAIN, "--new", NEW)
    want = cli_check(HPL, TRAIN, "--new", NEW)["results"]
    for i, w in enumerate(want):
        assert r["lower"][i] == Fraction(w["lower"]["exact"])
        assert r["upper"][i] == Fraction(w["upper"]["exact"])
        assert r["value"][i] == Fraction(w["value"]["exact"])
        assert r["measured"][i] == Fraction(w["measured"]["exact"])
        assert r["lower_float"][i] == pytest.approx(float(Fraction(w["lower"]["exact"])))
    assert r["measured"][0] < r["upper"][0] and r["lower"][0] < r["measured"][0]


def test_dataframes_and_rows_give_the_same_verdicts_as_paths():
    new_df = pd.DataFrame({"p": [110, 120], "T": [Decimal("545.38"), Decimal("513.45")]})
    by_path = errband.check(HPL, TRAIN, NEW)
    by_frame = errband.check(HPL, train_frame(), new_df)
    rows = errband.check(Path(HPL), TRAIN, [{"p": 110, "T": "545.38"}, {"p": 120, "T": "513.45"}])
    for other in (by_frame, rows):
        assert list(other["verdict"]) == list(by_path["verdict"])
        assert list(other["lower"]) == list(by_path["lower"])
        assert list(other["upper"]) == list(by_path["upper"])
    assert by_frame["file"][0] == "<new>"


def test_thirty_percent_above_the_band_is_above_and_fails():
    upper = errband.check(HPL, TRAIN, NEW)["upper"][1]
    slow = upper * Fraction(13, 10)
    # A fraction as text: the CSV reader takes `n/d` exactly.
    new = pd.DataFrame({"p": [110, 120], "T": ["545.38", f"{slow.numerator}/{slow.denominator}"]})
    r = errband.check(HPL, TRAIN, new)
    assert list(r["verdict"]) == ["inside", "above"]
    assert list(r["fails"]) == [False, True]
    assert r.attrs["failed"] is True
    assert r["deviation"][1] == Fraction(3, 10)
    assert r["deviation_percent"][1] == "+30 %"
    assert r["excess_percent"][1] == pytest.approx(30.0)
    assert r["line"][1] == 3
    assert "the check fails" in r.attrs["summary"]
    # The command line agrees, on the same file.
    csv = f"p,T\n110,545.38\n120,{slow.numerator}/{slow.denominator}\n"
    r2 = errband.check(HPL, TRAIN, csv)
    assert r2.attrs["failed"] is True and r2["verdict"][1] == "above"
    # Reported, not failed, with fail_on="never".
    r3 = errband.check(HPL, TRAIN, new, fail_on="never")
    assert r3.attrs["failed"] is False and r3["verdict"][1] == "above"
    assert r3.attrs["fail_on"] == "never"


def test_below_the_band_fails_only_outside():
    lower = errband.check(HPL, TRAIN, NEW)["lower"][0]
    half = lower / 2
    fast = pd.DataFrame({"p": [110], "T": [f"{half.numerator}/{half.denominator}"]})
    assert errband.check(HPL, TRAIN, fast).attrs["failed"] is False
    r = errband.check(HPL, TRAIN, fast, fail_on="outside")
    assert r.attrs["failed"] is True and r["verdict"][0] == "below"
    assert r["deviation"][0] == Fraction(-1, 2)


def test_a_saved_result_is_a_reference():
    a = errband.analyse_series(HPL, TRAIN, at="p=110,120")
    want = errband.check(HPL, TRAIN, NEW)
    for ref in (a, a.json, a.to_json()):
        r = errband.check(ref, new=NEW)
        assert list(r["verdict"]) == ["inside", "inside"]
        assert list(r["upper"]) == list(want["upper"])
    # Only at its prediction points.
    with pytest.raises(errband.InputError) as e:
        errband.check(a, new=pd.DataFrame({"p": [130], "T": [Decimal("500")]}))
    assert e.value.kind == "input"
    assert "the saved result has no recommended band at p = 130" in str(e.value)


def test_a_saved_result_file_is_a_reference(tmp_path):
    saved = tmp_path / "saved.json"
    saved.write_text(errband.analyse_series(HPL, TRAIN, at="p=110,120").to_json())
    r = errband.check(str(saved), new=NEW)
    assert r.attrs["json"] == cli_check(str(saved), "--new", NEW)


def test_without_a_model_the_data_decide_as_the_cli_does():
    r = errband.check(TRAIN, new=NEW)
    assert r.attrs["json"] == cli_check(TRAIN, "--new", NEW)


def test_bad_arguments_raise():
    with pytest.raises(ValueError):
        errband.check(HPL, TRAIN, NEW, fail_on="sometimes")
    with pytest.raises(FileNotFoundError):
        errband.check(HPL, TRAIN, "no/such/file.csv")
    with pytest.raises(TypeError):
        errband.check(HPL, TRAIN)
    with pytest.raises(errband.InputError) as e:
        errband.check(HPL, TRAIN, "p,T\n110,fast\n")
    assert e.value.kind == "input"


def test_the_readmes_check_example_runs(capsys):
    text = (ROOT / "python" / "README.md").read_text()
    section = text.split("Checking new measurements", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    prelude = "from decimal import Decimal\nimport pandas as pd\nimport errband\n"
    exec(compile(prelude + code, "python/README.md", "exec"), {"__name__": "__main__"})
    out = capsys.readouterr().out
    assert "inside" in out and "False" in out
