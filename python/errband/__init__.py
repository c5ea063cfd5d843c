"""errband: exact prediction-error bands for parallel-performance models.

``errband.analyse(model, data)`` fits a run-time model exactly in rationals,
computes e_max, the region of parameter perturbations allowed by each
residual threshold, and the band of every prediction: the same analysis,
and the same JSON document, as ``errband MODEL DATA --format json``.

Every exact value is a :class:`fractions.Fraction`; each DataFrame has a
float column beside it (``<name>_float``) for plotting, so no precision is
lost unless you ask for floats.
"""

from __future__ import annotations

import csv
import html
import io
import json
import os
from decimal import Decimal
from fractions import Fraction
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

import pandas as pd

from . import _native
from ._native import ErrbandError, __version__

__all__ = ["analyse", "prune", "plan", "qe", "Analysis", "Experiment", "CommandResult", "EnergyResult", "energy", "BarrierResult", "barrier", "MsResult", "ms", "QeResult", "ErrbandError", "__version__"]

PathOrText = Union[str, "os.PathLike[str]"]


def _exact(v: Any) -> Optional[Fraction]:
    """A JSON `{exact, decimal}` value (or a bare exact string) as a Fraction."""
    if v is None:
        return None
    if isinstance(v, dict):
        v = v.get("exact")
        if v is None:
            return None
    return Fraction(str(v))


def _read_source(value: PathOrText, default_name: str) -> "tuple[str, str]":
    """Text and name of a model or data argument: a path (an existing file,
    or any os.PathLike), else the text itself."""
    if isinstance(value, os.PathLike):
        path = os.fspath(value)
        return _native.read_file(path), path
    if isinstance(value, str):
        if "\n" not in value and os.path.isfile(value):
            return _native.read_file(value), value
        return value, default_name
    raise TypeError(f"expected a path or text, not {type(value).__name__}")


def _cell(v: Any, column: str, row: int) -> str:
    """One DataFrame value as an exact decimal the CSV reader takes."""
    if isinstance(v, bool):
        raise ValueError(f"column {column!r}, row {row}: {v!r} is not a number")
    if isinstance(v, int):
        return str(v)
    if isinstance(v, Fraction):
        d = v.denominator
        twos = fives = 0
        while d % 2 == 0:
            d //= 2
            twos += 1
        while d % 5 == 0:
            d //= 5
            fives += 1
        if d != 1:
            raise ValueError(
                f"column {column!r}, row {row}: {v} is not a finite decimal; "
                "measurements are decimals (give a Decimal or a float)"
            )
        scale = max(twos, fives)
        return format(Decimal(v.numerator * 10**scale // v.denominator).scaleb(-scale), "f")
    if isinstance(v, Decimal):
        return format(v, "f")
    if isinstance(v, str):
        return v
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise ValueError(f"column {column!r}, row {row}: {v!r} is not a number") from None
    # The shortest decimal that reads back as the same float: the number
    # the DataFrame shows.
    return repr(f)


def _frame_to_csv(df: "pd.DataFrame") -> str:
    """A DataFrame of measurements as CSV text, each number an exact decimal
    (text cells, such as region names, quoted where needed)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    cols = [str(c) for c in df.columns]
    w.writerow(cols)
    for i, row in enumerate(df.itertuples(index=False, name=None), start=1):
        w.writerow([_cell(v, cols[j], i) for j, v in enumerate(row)])
    return out.getvalue()


def _coprime(n: int, d: int) -> Fraction:
    """A Fraction of a numerator and a positive denominator already in
    lowest terms (as the library gives them), without re-normalising."""
    f = object.__new__(Fraction)
    f._numerator = n
    f._denominator = d
    return f


try:  # The fast path relies on Fraction's two slots; check it once.
    _FAST = _coprime(-6, 7) == Fraction(-6, 7) and hash(_coprime(3, 4)) == hash(Fraction(3, 4))
except (AttributeError, TypeError):  # pragma: no cover - another Fraction
    _FAST = False


def _fractions(nums: list, dens: list) -> list:
    """Fractions of (numerator, denominator) columns. Equal values share one
    (immutable) Fraction: measurements repeat their points and the model's
    values, and a lookup costs a fifth of making one."""
    make = _coprime if _FAST else Fraction
    made: dict = {}
    out = []
    for key in zip(nums, dens):
        f = made.get(key)
        if f is None:
            f = made[key] = make(*key)
        out.append(f)
    return out


class Analysis:
    """The result of :func:`analyse` on one series.

    ``emax`` and ``params`` (name → value) are Fractions; ``fit``,
    ``residuals``, ``regions`` and ``bands`` are DataFrames with a float
    column (``<name>_float``) beside each exact one; ``json`` is the
    document of ``errband MODEL DATA --format json`` (``to_json()`` its
    text), built when first asked for.
    """

    def __init__(self, native: Any = None, document: Optional[str] = None, svg: str = ""):
        self._native = native
        self._text = document
        self._json: Optional[dict] = None
        self._svg = svg
        if native is not None:
            self.emax: Fraction = _coprime(*native.emax()) if _FAST else Fraction(*native.emax())
            self.params: dict = {n: (_coprime(*v) if _FAST else Fraction(*v)) for n, v in native.params()}
        else:
            d = self.json
            self.emax = _exact(d["emax"])
            self.params = {p["name"]: _exact(p) for p in d["params"]}

    @property
    def json(self) -> dict:
        """The JSON document, parsed (exact values stay strings)."""
        if self._json is None:
            self._json = json.loads(self.to_json())
        return self._json

    @property
    def model_file(self) -> str:
        return self.json["model"]["file"]

    @property
    def variables(self) -> list:
        return list(self.json["model"]["variables"])

    @property
    def rmax(self) -> Optional[Fraction]:
        return _exact(self.json.get("rmax"))

    @property
    def remax(self) -> Optional[Fraction]:
        return _exact(self.json.get("remax"))

    def to_json(self) -> str:
        """The JSON document of ``errband MODEL DATA --format json``
        (``errband schema analysis`` gives its schema)."""
        if self._text is None:
            self._text = self._native.json()
        return self._text

    def band_svg(self) -> str:
        """The band plot (``--plot band=FILE``) as SVG text."""
        if not self._svg and self._native is not None:
            self._svg = self._native.svg()
        return self._svg

    @property
    def fit(self) -> "pd.DataFrame":
        """The parameters: name, value (Fraction), value_float."""
        rows = [(n, v, float(v)) for n, v in self.params.items()]
        return pd.DataFrame(rows, columns=["name", "value", "value_float"])

    @property
    def residuals(self) -> "pd.DataFrame":
        """One row per measurement: row, line, the point, measured, model and
        residual (model − measured), exact (Fraction) with float columns."""
        if self._native is None:
            recs = []
            for r in self.json["residuals"]:
                rec = {"row": r["row"], "line": r["line"]}
                for v in self.variables:
                    rec[v] = Fraction(r["point"][v])
                for k in ("measured", "model", "residual"):
                    rec[k] = _exact(r[k])
                recs.append(rec)
            return _with_floats(recs, self.variables + ["measured", "model", "residual"])
        row, line, cols = self._native.residual_columns()
        data: dict = {"row": row, "line": line}
        exact = {name: (nums, dens, floats) for name, (nums, dens, floats) in cols}
        order = [n for n, _ in cols if n not in ("measured", "model", "residual")] + ["measured", "model", "residual"]
        for name in order:
            nums, dens, _ = exact[name]
            data[name] = _fractions(nums, dens)
        for name in order:
            data[name + "_float"] = exact[name][2]
        return pd.DataFrame(data)

    @property
    def regions(self) -> "pd.DataFrame":
        """The vertices of each threshold's region of Δc: threshold, shape,
        vertex index and one column per Δ variable."""
        recs = []
        names: list = []
        for reg in self.json["regions"]:
            for i, v in enumerate(reg.get("vertices") or []):
                rec = {"threshold": reg["threshold"], "shape": reg["shape"], "vertex": i}
                for k, x in v.items():
                    if k not in names:
                        names.append(k)
                    rec[k] = _exact(x)
                recs.append(rec)
        return _with_floats(recs, names)

    @property
    def bands(self) -> "pd.DataFrame":
        """One row per prediction point and threshold: the point, whether it
        is extrapolated, the model value, ``status`` (``"ok"``, or why there
        is no band: ``"empty"``, ``"untrusted"``), the model band (lower,
        upper) and the band of a new measurement (measurement_lower,
        measurement_upper). Exact ends are Fractions (None: unbounded); the
        float columns give ±inf for an unbounded end and NaN where there is
        no band."""
        recs = []
        for p in self.json["bands"]:
            for b in p["bands"]:
                rec: dict = {v: Fraction(p["point"][v]) for v in self.variables}
                rec["extrapolated"] = p["extrapolated"]
                rec["threshold"] = b["threshold"]
                rec["model"] = _exact(p["model"])
                status = "ok" if "lower" in b else next((k for k in ("empty", "untrusted") if b.get(k)), "none")
                rec["status"] = status
                mb = b.get("measurement_band") or {}
                for name, src, end in (
                    ("lower", b, "lower"),
                    ("upper", b, "upper"),
                    ("measurement_lower", mb, "lower"),
                    ("measurement_upper", mb, "upper"),
                ):
                    v = _exact(src.get(end))
                    rec[name] = v
                    if v is not None:
                        rec[name + "_float"] = float(v)
                    elif status == "ok" and end in src:
                        rec[name + "_float"] = float("-inf") if end == "lower" else float("inf")
                    else:
                        rec[name + "_float"] = float("nan")
                recs.append(rec)
        df = pd.DataFrame.from_records(recs)
        for c in self.variables + ["model"]:
            df[c + "_float"] = [float(v) for v in df[c]]
        return df

    @property
    def families(self) -> "pd.DataFrame":
        """With a family (``family="pmnf"`` or ``family`` lines): one row per
        form, ranked: rank, form, where it comes from, e_max, remax and
        its parameters (Fractions, with float columns). Empty without one."""
        fam = self.json.get("family") or {}
        recs, exact = [], ["emax", "remax"]
        for f in fam.get("forms", []):
            rec = {"rank": f.get("rank"), "form": f.get("form"), "from": f.get("from")}
            rec["emax"] = _exact(f.get("emax"))
            rec["remax"] = _exact(f.get("remax"))
            rec["consistent"] = ", ".join(c["threshold"] for c in f.get("consistent", []) if c.get("consistent"))
            for p in f.get("params", []):
                rec[p["name"]] = _exact(p)
                if p["name"] not in exact:
                    exact.append(p["name"])
            recs.append(rec)
        return _with_floats(recs, exact)

    @property
    def family_bands(self) -> "pd.DataFrame":
        """The family band per prediction point and threshold: the hull of
        every consistent form's band (lower, upper), the band of a new
        measurement, and how many forms it covers."""
        fam = self.json.get("family") or {}
        recs = []
        for b in fam.get("bands", []):
            rec: dict = {v: Fraction(b["point"][v]) for v in self.variables}
            rec["threshold"] = b.get("threshold")
            rec["forms"] = b.get("forms")
            band, mb = b.get("band") or {}, b.get("measurement_band") or {}
            rec["lower"], rec["upper"] = _exact(band.get("lower")), _exact(band.get("upper"))
            rec["measurement_lower"], rec["measurement_upper"] = _exact(mb.get("lower")), _exact(mb.get("upper"))
            recs.append(rec)
        return _with_floats(recs, ["lower", "upper", "measurement_lower", "measurement_upper"])

    @property
    def holdout(self) -> "pd.DataFrame":
        """With ``holdout=``: one row per held-out measurement, band and
        threshold: the measured value, the band, whether it holds the
        measurement, and by how much it misses. Empty without a holdout;
        ``json["holdout"]["coverage"]`` has the coverage per band."""
        h = self.json.get("holdout") or {}
        recs = []
        for m in h.get("measurements", []):
            base: dict = {"row": m.get("row"), "line": m.get("line")}
            base.update({v: Fraction(x) for v, x in m.get("point", {}).items()})
            base["measured"] = _exact(m.get("measured"))
            for b in m.get("bands", []):
                rec = dict(base)
                rec["band"] = b.get("band")
                rec["threshold"] = b.get("threshold")
                rec["inside"] = b.get("inside")
                rec["lower"], rec["upper"] = _exact(b.get("lower")), _exact(b.get("upper"))
                rec["outside_by"] = _exact(b.get("outside_by"))
                recs.append(rec)
        return _with_floats(recs, ["measured", "lower", "upper", "outside_by"])

    def band(self, **point: Any) -> dict:
        """The bands at one prediction point, by threshold:
        ``a.band(p=1000)["max"] == (lower, upper)`` as Fractions."""
        want = {k: Fraction(str(v)) for k, v in point.items()}
        for p in self.json["bands"]:
            if {k: Fraction(x) for k, x in p["point"].items()} == want:
                return {
                    b["threshold"]: (_exact(b.get("lower")), _exact(b.get("upper")))
                    for b in p["bands"]
                    if isinstance(b.get("lower"), dict) or isinstance(b.get("upper"), dict)
                }
        raise KeyError(f"no prediction at {point}; give it with at=[...]")

    def _repr_html_(self) -> str:
        d = self.json
        rows = "".join(
            f"<tr><td>{html.escape(n)}</td><td>{html.escape(str(v))}</td><td>{float(v):.6g}</td></tr>"
            for n, v in self.params.items()
        )
        return (
            f"<div class='errband'><b>errband</b> {html.escape(d['model']['function'])}"
            f"({html.escape(', '.join(self.variables))}) = {html.escape(d['model']['body'])}"
            f" on {html.escape(d['data']['file'])} ({d['data']['measurements']} measurements)"
            f"<table><tr><th>parameter</th><th>exact</th><th>≈</th></tr>{rows}</table>"
            f"<p>e_max = {html.escape(str(self.emax))} ≈ {float(self.emax):.6g}</p>"
            f"{self.band_svg()}</div>"
        )

    def __repr__(self) -> str:
        return f"<errband.Analysis of {self.model_file}: e_max = {self.emax} ≈ {float(self.emax):.6g}>"


def _with_floats(recs: list, exact: Sequence[str]) -> "pd.DataFrame":
    """Records as a DataFrame with a ``<c>_float`` column beside each exact
    column ``c`` (NaN where the value does not exist)."""
    df = pd.DataFrame.from_records(recs)
    for c in exact:
        if c in df.columns:
            df[c + "_float"] = [float("nan") if v is None else float(v) for v in df[c]]
    return df


def _data_args(data: Any) -> "tuple[str, str, Optional[str]]":
    """(text, name, path) of the data argument: a DataFrame becomes CSV
    text; a path is read by the library (any format, CUBE directories)."""
    if isinstance(data, pd.DataFrame):
        return _frame_to_csv(data), "<DataFrame>", None
    if isinstance(data, os.PathLike) or (isinstance(data, str) and "\n" not in data and os.path.exists(data)):
        return "", "<data>", os.fspath(data)
    if isinstance(data, str):
        return data, "<data>", None
    raise TypeError(f"data: expected a DataFrame, a path or text, not {type(data).__name__}")


def _source(model: PathOrText, data: Any, thresholds: Optional[Iterable[str]], noise: Any,
            callpath: Optional[str] = None, metric: Optional[str] = None) -> tuple:
    """The model, data and threshold arguments as the native module takes
    them (prune, plan, barrier's MPI_Barrier model)."""
    model_text, model_name = _read_source(model, "<model>")
    data_text, data_name, data_path = _data_args(data)
    return (model_text, model_name, data_text, data_name, data_path,
            [str(t) for t in (thresholds or [])], _noise(noise), callpath, metric)


def _noise(noise: Union[str, Fraction, float]) -> str:
    """The noise as the command line writes it (`5%`, `0.05`); the library
    reads and checks it (from 0 to below 100 %)."""
    if isinstance(noise, Fraction):
        return f"{noise.numerator}/{noise.denominator}"
    return noise if isinstance(noise, str) else repr(noise)


def _point_texts(at: Any) -> list:
    """Points as the command line writes them: `"p=1000"`, `{"p": 1000}`,
    or a list of them."""
    if at is None:
        return []
    items = [at] if isinstance(at, (str, Mapping)) else list(at)
    return [", ".join(f"{k}={v}" for k, v in i.items()) if isinstance(i, Mapping) else str(i) for i in items]


def analyse(
    model: PathOrText,
    data: Union[PathOrText, "pd.DataFrame"],
    thresholds: Optional[Iterable[str]] = None,
    at: Union[None, str, Mapping[str, Any], Iterable[Union[str, Mapping[str, Any]]]] = None,
    family: Optional[str] = None,
    holdout: Optional[str] = None,
    noise: Union[str, Fraction, float] = "5%",
    decimal: int = 6,
    callpath: Optional[str] = None,
    metric: Optional[str] = None,
) -> Union["Analysis", "Experiment"]:
    """Fit ``model`` to ``data`` exactly and compute e_max, the regions and
    the bands, as ``errband MODEL DATA --format json`` does.

    model
        ``.tm`` model text, or a path to a ``.tm`` file.
    data
        A pandas DataFrame (a column per model variable and one named like
        the model's function, e.g. ``p`` and ``T``); or a path to any data
        errband reads (CSV, Extra-P text, JSON, JSON Lines, TaLPas,
        ``.extra-p`` archives, a directory of CUBE runs); or CSV or Extra-P
        text. Float cells are read as the shortest decimal that gives the
        same float (what pandas shows); give ``Decimal``, ``Fraction`` or
        ``int`` cells for exact values.
    thresholds
        Residual thresholds as the command line writes them (``"max"``,
        ``"emax"``, ``"5%"``, ``"max(2*remax, 5%)"``); default ``max`` and
        ``trusted``.
    at
        Prediction points: ``"p=1000"``, ``{"p": 1000}``, ``"p=1000..8000:1000"``
        or a list of them (besides the model's ``predict`` points).
    family
        ``"pmnf"``: add Extra-P's normal forms to the model's family (its
        ``family`` lines are always used) and give the family band.
    holdout
        Backtest: fit without the measurements it names (``"last=1"``,
        ``"p>=64"``) and check each against the bands (``--holdout``).
    noise
        The measurement noise that ``trusted`` uses (default 5 %).
    decimal
        Significant digits of the decimal views in the JSON.
    callpath, metric
        With an experiment: the series to analyse (names or globs).

    Returns an :class:`Analysis` for one series, or an :class:`Experiment`
    (one entry per callpath and metric) when the data holds several.

    Raises :class:`ErrbandError` with the command line's located message
    (carets under the offending text) for bad input, or when the analysis
    is impossible; ``err.args[1]`` is ``"input"`` or ``"analysis"``.
    """
    model_text, model_name = _read_source(model, "<model>")
    data_text, data_name, data_path = _data_args(data)
    if family not in (None, "pmnf"):
        raise ValueError(f"family {family!r}: expected None or 'pmnf'")
    points = _point_texts(at)
    if not 1 <= int(decimal) <= 100:
        raise ValueError(f"decimal {decimal}: expected 1 to 100 significant digits")
    result = _native.analyse(
        model_text,
        model_name,
        data_text,
        data_name,
        data_path,
        [str(t) for t in (thresholds or [])],
        points,
        _noise(noise),
        int(decimal),
        family == "pmnf",
        holdout,
        callpath,
        metric,
    )
    if isinstance(result, str):
        return Experiment(result)
    return Analysis(result)


class _Document:
    """A command's JSON document: ``.json`` (parsed; exact values stay
    strings) and ``.to_json()`` (the text, as the command line writes it)."""

    def __init__(self, document: str):
        self._text = document
        self.json: dict = json.loads(document)

    def to_json(self) -> str:
        """The JSON document, as the command line's ``--format json``."""
        return self._text


class Experiment(_Document):
    """The result of :func:`analyse` on data with several series (an
    Extra-P experiment, CUBE runs): the JSON of ``errband MODEL DATA
    --format json`` on it (``.json``, ``.to_json()``), one DataFrame row
    per series (``.series``), and each series' analysis."""

    @property
    def series(self) -> "pd.DataFrame":
        """One row per series: callpath, metric, model, measurements, points,
        e_max and each parameter (Fraction, with float columns), the widest
        relative half-width of its bands, and ``error`` when its analysis
        failed."""
        recs = []
        exact_cols: list = []
        for e in self.json["summary"]:
            rec: dict = {}
            for k, v in e.items():
                if k == "params":
                    for p in v or []:
                        rec[p["name"]] = _exact(p)
                        if p["name"] not in exact_cols:
                            exact_cols.append(p["name"])
                elif isinstance(v, dict) and "exact" in v:
                    rec[k] = _exact(v)
                    if k not in exact_cols:
                        exact_cols.append(k)
                elif isinstance(v, (dict, list)):
                    rec[k] = json.dumps(v)
                else:
                    rec[k] = v
            recs.append(rec)
        return _with_floats(recs, exact_cols)

    def analysis(self, callpath: str, metric: str = "time") -> "Analysis":
        """The analysis of one series (without its band plot)."""
        for a in self.json["analyses"]:
            if a["callpath"] == callpath and a["metric"] == metric and isinstance(a.get("report"), dict):
                return Analysis(document=json.dumps(a["report"]))
        raise KeyError(f"no analysed series {callpath!r} / {metric!r}")

    def _repr_html_(self) -> str:
        return self.series.to_html()

    def __repr__(self) -> str:
        return f"<errband.Experiment: {len(self.json['summary'])} series of {self.json['experiment']['file']}>"


class CommandResult(_Document):
    """The result of :func:`prune` or :func:`plan`: the JSON of the command
    (``.json``, ``.to_json()``), its verdict, and its ranked candidates as
    a DataFrame."""

    def __init__(self, document: str):
        super().__init__(document)
        self.verdict: str = self.json.get("verdict", "")

    @property
    def candidates(self) -> "pd.DataFrame":
        """One row per candidate and target: rank, what it drops (prune) or
        where it measures (plan), the target, the threshold, the band and
        the ratio (Fractions, with float columns)."""
        recs = []
        exact_cols: list = []
        for c in self.json.get("candidates", []):
            base: dict = {"rank": c.get("rank")}
            if "drop" in c:
                base["drop"] = "; ".join(", ".join(f"{k}={v}" for k, v in d.items()) for d in c["drop"])
                base["sources"] = ", ".join(c.get("sources", []))
            if "point" in c:
                base.update({k: Fraction(v) for k, v in c["point"].items()})
            for k in ("rank_key", "emax", "d_new"):
                if isinstance(c.get(k), dict):
                    base[k] = _exact(c[k])
                    exact_cols.append(k)
            for b in c.get("bands", []):
                rec = dict(base)
                rec["target"] = ", ".join(f"{k}={v}" for k, v in b.get("target", {}).items())
                rec["threshold"] = b.get("threshold")
                band = b.get("band") or b.get("expected") or {}
                for end in ("lower", "upper", "width"):
                    rec[end] = _exact(band.get(end))
                    exact_cols.append(end)
                if isinstance(b.get("ratio"), dict):
                    rec["ratio"] = _exact(b["ratio"])
                    exact_cols.append("ratio")
                recs.append(rec)
        return _with_floats(recs, list(dict.fromkeys(exact_cols)))

    def __repr__(self) -> str:
        return f"<errband.CommandResult of {self.json.get('command')}: {self.verdict}>"


def prune(
    model: PathOrText,
    data: Union[PathOrText, "pd.DataFrame"],
    target: Union[None, str, Mapping[str, Any], Iterable[Union[str, Mapping[str, Any]]]] = None,
    max_drop: int = 1,
    top: Optional[int] = None,
    greedy: int = 3,
    candidates: Iterable[Union[str, Iterable[Union[str, Mapping[str, Any]]]]] = (),
    thresholds: Optional[Iterable[str]] = None,
    noise: Union[str, Fraction, float] = "5%",
    decimal: int = 6,
    show: int = 20,
    callpath: Optional[str] = None,
    metric: Optional[str] = None,
) -> CommandResult:
    """Which measurements to leave out (``errband prune``): every subset
    dropping up to ``max_drop`` points (among the ``top`` largest residuals),
    a greedy sequence of ``greedy`` steps, and your ``candidates`` (each the
    points one candidate drops: ``"p=100"``, ``"p=10,p=20"`` or
    ``["p=10", "p=20"]``), ranked
    by how much they narrow the band at the targets (default: the model's
    ``predict`` points)."""
    cands = [[c] if isinstance(c, str) else _point_texts(c) for c in candidates]
    return CommandResult(
        _native.prune(
            _source(model, data, thresholds, noise, callpath, metric),
            _point_texts(target), int(max_drop), top, int(greedy), cands, int(decimal), int(show),
        )
    )


def plan(
    model: PathOrText,
    data: Union[PathOrText, "pd.DataFrame"],
    candidates: Union[str, Mapping[str, Any], Iterable[Union[str, Mapping[str, Any]]]],
    target: Union[None, str, Mapping[str, Any], Iterable[Union[str, Mapping[str, Any]]]] = None,
    thresholds: Optional[Iterable[str]] = None,
    noise: Union[str, Fraction, float] = "5%",
    decimal: int = 6,
    show: int = 20,
    callpath: Optional[str] = None,
    metric: Optional[str] = None,
) -> CommandResult:
    """Where to measure next (``errband plan``): each candidate point
    (``"p=130..300:10"``, or ``"p=130..300 step 10"``) ranked by how much a new measurement there,
    as the model predicts it, would narrow the band at the targets."""
    return CommandResult(
        _native.plan(
            _source(model, data, thresholds, noise, callpath, metric),
            _point_texts(target), _point_texts(candidates), int(decimal), int(show),
        )
    )


def _value_rows(value: Mapping, base: dict, name: str) -> list:
    """Rows of one predicted quantity: its value, then per threshold its
    band (lower, upper)."""
    rows = []
    for b in value.get("bands") or [{}]:
        rec = dict(base)
        rec["quantity"] = name
        rec["threshold"] = b.get("threshold")
        rec["value"] = _exact(value)
        rec["lower"] = _exact(b.get("lower"))
        rec["upper"] = _exact(b.get("upper"))
        rows.append(rec)
    return rows


class EnergyResult(_Document):
    """The result of :func:`energy`: the JSON of ``errband energy --format
    json`` (``.json``, ``.to_json()``), the predictions and the regions as
    DataFrames, and the charts (``.charts``: name → SVG)."""

    def __init__(self, document: str, charts: list):
        super().__init__(document)
        self.charts: dict = dict(charts)

    @property
    def predictions(self) -> "pd.DataFrame":
        """One row per node count, quantity (``delta_e``, ``ee_opt``,
        ``e_std_J``, ``e_opt_J``, ``t_std_s``, ``t_opt_s``) and threshold:
        the value and its band, exact with float columns."""
        recs: list = []
        for p in self.json["predictions"]:
            base = {"nodes": p["nodes"]}
            for k, v in p.items():
                if isinstance(v, dict) and "exact" in v:
                    recs.extend(_value_rows(v, base, k))
        return _with_floats(recs, ["value", "lower", "upper"])

    @property
    def regions(self) -> "pd.DataFrame":
        """One row per region and quantity (``alpha_p``, ``beta_on``, …)
        with a band, and per fitted scalar (``f_opt_mhz``, ``p_std_w``, …)."""
        recs: list = []
        for r in self.json["regions"]:
            base = {"region": r["name"]}
            for k, v in r.items():
                if isinstance(v, dict) and "exact" in v:
                    recs.extend(_value_rows(v, base, k))
        return _with_floats(recs, ["value", "lower", "upper"])

    def _repr_html_(self) -> str:
        return self.charts.get("delta", "") + self.predictions.to_html()

    def __repr__(self) -> str:
        return f"<errband.EnergyResult of {self.json['file']}: {len(self.json['predictions'])} node counts>"


def energy(
    profile: Union[PathOrText, "pd.DataFrame"],
    nodes: Union[None, str, Iterable[Any]] = None,
    fstd: Union[None, str, int] = None,
    base_nodes: Union[None, str, int] = None,
    overhead_regions: Iterable[str] = (),
    objective: str = "energy",
    fopt: Optional[Mapping[str, Any]] = None,
    regions: Iterable[str] = (),
    thresholds: Optional[Iterable[str]] = None,
    power: str = "node",
    time_unit: str = "s",
    freq_unit: str = "MHz",
    power_unit: str = "W",
    precision: int = 40,
    decimal: int = 6,
) -> EnergyResult:
    """The DVFS energy predictor (``errband energy``) on a profile
    (``region,nodes,freq,time,power``, or fitted values): a DataFrame, a
    path or CSV text. ``nodes`` as the command line writes them
    (``"16,64,256"``, ``"2..4096:*2"``, ``"inf"``) or a list; ``fopt`` maps a
    region to its forced frequency; ``objective`` is ``"energy"`` or
    ``"edp"``; ``power`` is ``"node"`` or ``"total"``."""
    if objective not in ("energy", "edp"):
        raise ValueError(f"objective {objective!r}: expected 'energy' or 'edp'")
    if power not in ("node", "total"):
        raise ValueError(f"power {power!r}: expected 'node' or 'total'")
    text, name, path = _data_args(profile)
    if isinstance(nodes, str) or nodes is None:
        node_texts = [] if nodes is None else [nodes]
    else:
        node_texts = [",".join(str(n) for n in nodes)]
    document, charts = _native.energy(
        text, "<profile>" if name == "<data>" else name, path, node_texts,
        None if fstd is None else str(fstd), None if base_nodes is None else str(base_nodes),
        list(overhead_regions), objective == "edp",
        [f"{r}={f}" for r, f in (fopt or {}).items()], list(regions),
        [str(t) for t in (thresholds or [])], power == "total",
        time_unit, freq_unit, power_unit, int(precision), int(decimal),
    )
    return EnergyResult(document, charts)


class BarrierResult(_Document):
    """The result of :func:`barrier`: the JSON of ``errband barrier --format
    json`` (``.json``, ``.to_json()``), its conclusions, one DataFrame row
    per node count and T_SR case (``.rows``), and the chart (``.chart``)."""

    def __init__(self, document: str, chart: str):
        super().__init__(document)
        self.chart: str = chart
        self.conclusions: list = list(self.json.get("conclusions", []))

    @property
    def rows(self) -> "pd.DataFrame":
        """Per N and T_SR case: T_EB (lower, upper, s), the MPI_Barrier time
        of the first reference column, the winner, the margin and the
        speed-up (exact with float columns)."""
        cases = self.json.get("t_sr_cases_s", [])
        recs = []
        for r in self.json["rows"]:
            mpi = (r.get("mpi_s") or [None])[0] or {}
            for k, teb in enumerate(r["t_eb_s"]):
                case = cases[k] if k < len(cases) else {}
                rec = {
                    "nodes": r["nodes"],
                    "t_sr_lower": _exact(case.get("lower")),
                    "t_sr_upper": _exact(case.get("upper")),
                    "t_eb_lower": _exact(teb.get("lower")),
                    "t_eb_upper": _exact(teb.get("upper")),
                    "mpi_lower": _exact(mpi.get("lower")),
                    "mpi_upper": _exact(mpi.get("upper")),
                }
                vs = (r.get("versus") or [[]])[k] if k < len(r.get("versus") or []) else []
                v = vs[0] if vs else {}
                rec["winner"] = v.get("winner")
                for name in ("margin_s", "speedup"):
                    band = v.get(name) or {}
                    rec[name + "_lower"] = _exact(band.get("lower"))
                    rec[name + "_upper"] = _exact(band.get("upper"))
                recs.append(rec)
        exact = [c for c in (recs[0].keys() if recs else []) if c not in ("nodes", "winner")]
        return _with_floats(recs, exact)

    def _repr_html_(self) -> str:
        return self.chart + "".join(f"<p>{html.escape(c)}</p>" for c in self.conclusions)

    def __repr__(self) -> str:
        return f"<errband.BarrierResult: {'; '.join(self.conclusions)}>"


def barrier(
    nodes: Union[str, Iterable[int]] = "2..30",
    per_chassis: int = 3,
    root_fanout: Optional[int] = None,
    inter_fanout: Optional[int] = None,
    t_ib: str = "3.86us",
    t_sr: Union[str, Iterable[str]] = "60us,120us",
    mpi: Optional[str] = None,
    mpi_model: Optional[PathOrText] = None,
    mpi_data: Union[None, PathOrText, "pd.DataFrame"] = None,
    conclude_at: Iterable[int] = (),
    time_unit: str = "us",
    thresholds: Optional[Iterable[str]] = None,
    noise: Union[str, Fraction, float] = "5%",
    decimal: int = 6,
) -> BarrierResult:
    """The barrier latency predictor (``errband barrier``): the chassis
    barrier network's T_EB(N) for each T_SR case against MPI_Barrier, given
    as a time (``mpi="120us"``) or as a model fitted to measurements
    (``mpi_model=``, ``mpi_data=``). Times as the command line writes them
    (``"3.86us"``, intervals ``"2.7us..3.86us"``); bare numbers are in
    ``time_unit``."""
    if (mpi_model is None) != (mpi_data is None):
        raise ValueError("mpi_model and mpi_data go together")
    node_texts = [nodes] if isinstance(nodes, str) else [",".join(str(n) for n in nodes)]
    sr = [t_sr] if isinstance(t_sr, str) else list(t_sr)
    source = None if mpi_model is None else _source(mpi_model, mpi_data, thresholds, noise)
    document, chart = _native.barrier(
        node_texts, int(per_chassis), root_fanout, inter_fanout, str(t_ib), sr, mpi,
        [int(n) for n in conclude_at], time_unit, source, int(decimal),
    )
    return BarrierResult(document, chart)


class MsResult(_Document):
    """The result of :func:`ms`: the JSON of ``errband ms predict --format
    json`` (``.json``, ``.to_json()``), one DataFrame row per processor
    count (``.runs``) and the chart of run time against P (``.chart``)."""

    def __init__(self, document: str, chart: str):
        super().__init__(document)
        self.chart: str = chart

    @property
    def runs(self) -> "pd.DataFrame":
        """Per processor count P: slaves, predicted run time (s, exact with a
        float column), the master's busy fraction and events simulated."""
        recs = [
            {
                "procs": r["procs"],
                "slaves": r["slaves"],
                "time_s": _exact(r["time_s"]),
                "master_busy": _exact(r["master_busy"]),
                "events": r["events"],
            }
            for r in self.json["runs"]
        ]
        return _with_floats(recs, ["time_s", "master_busy"])

    def _repr_html_(self) -> str:
        return self.chart + self.runs.to_html()

    def __repr__(self) -> str:
        return f"<errband.MsResult: {len(self.json['runs'])} processor counts of {self.json['tasks']['file']}>"


def _file_args(value: Any) -> "tuple[Optional[str], Optional[str]]":
    """(text, path) of an optional file argument: a DataFrame or text, or a
    path the library reads."""
    if value is None:
        return None, None
    text, _, path = _data_args(value)
    return (None, path) if path is not None else (text, None)


def ms(
    tasks: Union[PathOrText, "pd.DataFrame"],
    grid: Union[str, Iterable[int]],
    procs: Union[str, Iterable[int]] = "8..128:8",
    loggp: str = "",
    k_in: str = "16B",
    k_out: str = "8B",
    ratio: Union[str, int, Fraction] = "1",
    speeds: Union[None, PathOrText, "pd.DataFrame"] = None,
    task_order: Union[None, PathOrText, "pd.DataFrame"] = None,
    no_p1_recv: bool = False,
    compare_subsets: Iterable[str] = (),
    time_unit: str = "us",
    max_tasks: Optional[int] = None,
    decimal: int = 6,
) -> MsResult:
    """The master/slave run-time predictor (``errband ms predict``): a
    task file of a sub-grid (columns ``i1..iN``, ``time``; a DataFrame, a
    path or CSV text) interpolated to the full ``grid`` (``"1024x1024"`` or
    ``[1024, 1024]``) and simulated at each processor count. Options as the
    command line writes them (``loggp="L=5us,o=1us"``)."""
    grid_text = grid if isinstance(grid, str) else "x".join(str(int(c)) for c in grid)
    procs_texts = [procs] if isinstance(procs, str) else [",".join(str(int(p)) for p in procs)]
    t_text, t_path = _file_args(tasks)
    s_text, s_path = _file_args(speeds)
    o_text, o_path = _file_args(task_order)
    document, chart = _native.ms(
        t_text, t_path, grid_text, procs_texts, loggp, str(k_in), str(k_out), str(ratio), bool(no_p1_recv),
        list(compare_subsets), time_unit, None if max_tasks is None else int(max_tasks), s_text, s_path, o_text, o_path, int(decimal),
    )
    return MsResult(document, chart)


class QeResult(_Document):
    """The result of :func:`qe`: the JSON document of ``errband qe FILE
    --format json --vertices`` (``.json``), with the pieces' vertices as a
    DataFrame."""

    @property
    def vertices(self) -> "pd.DataFrame":
        recs = []
        for i, piece in enumerate(self.json.get("pieces", [])):
            for j, v in enumerate(piece.get("vertices") or []):
                rec = {"piece": i, "vertex": j}
                rec.update({k: _exact(x) for k, x in v.items()})
                recs.append(rec)
        return pd.DataFrame.from_records(recs)

    def __repr__(self) -> str:
        return f"<errband.QeResult: {len(self.json.get('pieces', []))} piece(s)>"


def qe(problem: PathOrText) -> QeResult:
    """Eliminate quantifiers from a linear real-arithmetic problem in
    ``errband qe`` syntax (text or a path)."""
    text, name = _read_source(problem, "<qe>")
    return QeResult(_native.qe(text, name))
