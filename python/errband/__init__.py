"""errband: exact prediction-error bands for parallel-performance models.

``errband.analyse_series(model, data)`` fits a run-time model exactly in
rationals, computes e_max, the region of parameter perturbations allowed by
each residual threshold, and the band of every prediction: the same
analysis, and the same JSON document, as ``errband MODEL DATA --format
json``. Without a model (``errband.analyse_series(data=df)``) the best form
of a family is found from the data, as ``errband DATA`` does.
``errband.analyse_experiment`` analyses every series of an experiment.

Every exact value is a :class:`fractions.Fraction`; each DataFrame has a
float column beside it (``<name>_float``) for plotting, so no precision is
lost unless you ask for floats.

A ``str`` argument is text or a path: model and QE text contain a newline
or one of ``=``, ``<``, ``>`` (every model has ``=``), data text a newline;
any other string, and every :class:`os.PathLike` (``pathlib.Path``), is a
path, and a path that does not exist raises :class:`FileNotFoundError`.
"""

from __future__ import annotations

import csv
import errno
import html
import io
import json
import os
from decimal import Decimal
from fractions import Fraction
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

import pandas as pd

from . import _native
from ._native import AnalysisError, ErrbandError, InputError, __version__

__all__ = [
    "analyse", "analyse_series", "analyse_experiment", "check", "prune", "plan", "qe", "Analysis", "Experiment",
    "CommandResult", "EnergyResult", "energy", "BarrierResult", "barrier", "MsResult", "ms", "QeResult",
    "ErrbandError", "InputError", "AnalysisError", "__version__",
]


def _error_kind(self: BaseException) -> Optional[str]:
    """``"input"`` (errband cannot read an input) or ``"analysis"`` (the
    analysis is impossible, or over a limit)."""
    return self.args[1] if len(self.args) > 1 else None


def _error_message(self: BaseException) -> str:
    """The message, as the command line prints it (options named as Python
    names them)."""
    return str(self.args[0]) if self.args else ""


# The exception classes are made by the native module; their `kind` and
# `message` read the two arguments it raises them with.
ErrbandError.kind = property(_error_kind)  # type: ignore[attr-defined]
ErrbandError.message = property(_error_message)  # type: ignore[attr-defined]
ErrbandError.__str__ = _error_message  # type: ignore[method-assign]
ErrbandError.__module__ = InputError.__module__ = AnalysisError.__module__ = "errband"

PathOrText = Union[str, "os.PathLike[str]"]


def _status(band: Mapping[str, Any]) -> str:
    """A band's status for a DataFrame: ``"ok"``, ``"clipped"`` (its lower
    end bounded by zero), or why there is none (the band's ``status``)."""
    status = band.get("status") or "refused"
    if status == "ok" and band.get("clipped"):
        return "clipped"
    return status


def _exact(v: Any) -> Optional[Fraction]:
    """A JSON `{exact, decimal}` value (or a bare exact string) as a Fraction."""
    if v is None:
        return None
    if isinstance(v, dict):
        v = v.get("exact")
        if v is None:
            return None
    return Fraction(str(v))


def _is_text(value: str, data: bool) -> bool:
    """Whether a ``str`` argument is text rather than a path: data text has
    a newline (a header and rows); model and QE text a newline or one of
    ``=``, ``<``, ``>`` (every model has ``=``)."""
    return "\n" in value or (not data and any(c in value for c in "=<>"))


def _existing(path: str) -> str:
    """`path`, or FileNotFoundError when nothing is there."""
    if not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
    return path


def _read_source(value: PathOrText, default_name: str) -> "tuple[str, str]":
    """Text and name of a model or QE argument: a path (any os.PathLike, or
    a str that is not text, see :func:`_is_text`), else the text itself."""
    if isinstance(value, os.PathLike):
        path = _existing(os.fspath(value))
        return _native.read_file(path), path
    if isinstance(value, str):
        if _is_text(value, data=False):
            return value, default_name
        return _native.read_file(_existing(value)), value
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
    """The result of :func:`analyse_series` (or :func:`analyse`) on one series.

    ``emax`` and ``params`` (name → value) are Fractions; ``fit``,
    ``residuals``, ``regions`` and ``bands`` are DataFrames with a float
    column (``<name>_float``) beside each exact one; ``json`` is the
    document of ``errband MODEL DATA --format json`` (``to_json()`` its
    text), built when first asked for.
    """

    def __init__(self, native: Any = None, document: Optional[str] = None, svg: str = ""):
        self._native = native
        self._args: Optional[dict] = None
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
    def warnings(self) -> list:
        """What reading the data warned of (a line that repeats another,
        columns taken as variables by default): the ones the answer's
        ``data:`` note counts."""
        return list(self.json["data"]["warnings"])

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
                rec = {"threshold": reg["threshold"]["label"], "shape": reg["shape"], "vertex": i}
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
                rec["threshold"] = b["threshold"]["label"]
                rec["model"] = _exact(p["model"])
                band, mb = b["band"], b["measurement_band"]
                status = band["status"]
                rec["status"] = status
                for name, src, end in (
                    ("lower", band, "lower"),
                    ("upper", band, "upper"),
                    ("measurement_lower", mb, "lower"),
                    ("measurement_upper", mb, "upper"),
                ):
                    v = _exact(src.get(end))
                    rec[name] = v
                    if v is not None:
                        rec[name + "_float"] = float(v)
                    elif status == "ok":
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
        """The family (without a model, the forms the model was chosen from;
        with one, ``family=`` or the model's ``family`` lines): one row per
        form, ranked: rank, form, where it comes from (``from``), ``k`` (its
        number of coefficients), e_max, rmax, remax, ``loo`` (the
        cross-validated prediction error Extra-P ranks by: each point left
        out, SMAPE on the means; None where not made), the thresholds it is
        consistent at, ``positive`` (a positive prediction at every point),
        the self-check (``self_check``: ``"passed"``, ``"missed"``,
        ``"refused"``, ``"not_checked"`` or None; ``self_check_at``, the
        scale left out; ``self_check_missed``; ``self_check_half_width``,
        the half-width of the smaller fit's band there over the mean of the
        measurements, None when not made or unbounded), ``sets_threshold`` (the
        family's thresholds are named from its statistics: the forms with at
        least two distinct points more than coefficients) and its
        parameters (Fractions, with float columns). Empty without a
        family."""
        fam = self.json.get("family") or {}
        extra = self._native.family_extra() if self._native is not None else []
        recs, exact = [], ["emax", "rmax", "remax", "loo", "self_check_at", "self_check_half_width"]
        for i, f in enumerate(fam.get("forms", [])):
            rec = {"rank": f.get("rank"), "form": f.get("form"), "from": f.get("from")}
            rec["k"] = extra[i][0] if i < len(extra) else len(f.get("params", []))
            rec["emax"] = _exact(f.get("emax"))
            rec["rmax"] = _exact(f.get("rmax"))
            rec["remax"] = _exact(f.get("remax"))
            loo = extra[i][1] if i < len(extra) else None
            rec["loo"] = None if loo is None else Fraction(*loo)
            rec["consistent"] = ", ".join(c["label"] for c in f.get("consistent", []) if c.get("consistent"))
            rec["positive"] = f.get("positive")
            check = f.get("self_check") or {}
            rec["self_check"] = check.get("outcome")
            rec["self_check_at"] = _exact(check.get("at"))
            rec["self_check_missed"] = check.get("missed")
            rec["self_check_half_width"] = _exact(check.get("half_width"))
            rec["sets_threshold"] = f.get("sets_threshold")
            for p in f.get("params", []):
                rec[p["name"]] = _exact(p)
                if p["name"] not in exact:
                    exact.append(p["name"])
            recs.append(rec)
        return _with_floats(recs, exact)

    @property
    def recommendation(self) -> "pd.DataFrame":
        """The band errband recommends for the next measurement (the
        ``Answer`` of the command line's report), one row per prediction
        point: the point, ``extrapolated``, the form's value, the band
        (lower, upper; Fractions, None where unbounded or refused),
        ``clipped`` (its lower end bounded by zero: a run time is never
        negative), ``widened`` (by the self-check), ``family_forms`` (the
        band was widened to the family band of that many forms because the
        form could not be self-checked; None otherwise), ``alike_forms``
        (widened to the bands of that many forms ranked alike with the
        family's best; None otherwise), ``status`` (``"ok"``,
        ``"clipped"``, or why there is no band: ``"untrusted"``,
        ``"below_zero"``, ``"refused"`` (the self-check refuses, or the form cannot be evaluated there)), the form's
        self-check (``gate``: ``"passed"``, ``"missed"``, ``"refused"`` or
        ``"not_checked"``; ``gate_reason`` why it was not made;
        ``gate_half_width``, the half-width of the band that passed or
        failed it, over the mean of the measurements there), the
        prediction of the same form fitted without the largest training
        scale (``without_largest``; None when not checked), ``hinges``
        (the band does not hold that prediction: the forecast rests on the
        measurements at the largest scale alone), ``value_outside`` (the
        band does not hold ``value``: the least-squares fit strays from
        some measurement by more than the trusted bound: the form does not
        follow the data at both ends) and the change-of-trend
        note (``regime``, the answer's sentence, or None).
        Empty when there is no recommendation (:meth:`summary` says why).
        :attr:`set_aside` lists the measurements left out before a change
        of trend."""
        r = self.json.get("recommendation") or {}
        extrapolated = {json.dumps(p["point"], sort_keys=True): p["extrapolated"] for p in self.json["bands"]}
        check = r.get("self_check") or {}
        regime = next((n for n in self._notes() if n.startswith("regime:")), None)
        recs = []
        for p in r.get("points", []):
            rec: dict = {v: Fraction(p["point"][v]) for v in self.variables}
            rec["extrapolated"] = extrapolated.get(json.dumps(p["point"], sort_keys=True))
            rec["value"] = _exact(p.get("value"))
            band = p.get("band") or {}
            rec["lower"], rec["upper"] = _exact(band.get("lower")), _exact(band.get("upper"))
            rec["clipped"] = bool(band.get("clipped"))
            rec["widened"] = bool(p.get("widened"))
            rec["family_forms"] = p.get("family_forms")
            rec["alike_forms"] = p.get("alike_forms")
            rec["status"] = _status(band)
            rec["gate"] = check.get("outcome")
            rec["gate_reason"] = check.get("reason")
            rec["gate_half_width"] = _exact(check.get("half_width"))
            rec["without_largest"] = _exact(p.get("without_largest"))
            rec["hinges"] = bool(p.get("hinges"))
            rec["value_outside"] = bool(p.get("value_outside"))
            rec["regime"] = regime
            recs.append(rec)
        df = _with_floats(recs, ["value", "lower", "upper", "gate_half_width", "without_largest"])
        for end, inf in (("lower", float("-inf")), ("upper", float("inf"))):
            if end in df.columns:
                ok = df["status"].isin(["ok", "clipped"]) & df[end].isna()
                df.loc[ok, end + "_float"] = inf
        return df

    @property
    def set_aside(self) -> "pd.DataFrame":
        """Without a model: the measurements set aside before a change of
        trend (line, the point, measured; the model was chosen from the
        later scales). Empty when none was."""
        recs = []
        for m in self.json.get("set_aside", []):
            rec: dict = {"line": m.get("line")}
            rec.update({v: Fraction(x) for v, x in m["point"].items()})
            rec["measured"] = _exact(m.get("measured"))
            recs.append(rec)
        return _with_floats(recs, ["measured"])

    @property
    def pruned(self) -> "pd.DataFrame":
        """With ``drop=`` or ``drop_rows=``: per prediction point and
        threshold, the band of the refit without the dropped measurements
        (lower, upper) and how much of the full band's width it keeps
        (``ratio``); ``json["pruned"]`` has the whole refit. Empty
        without."""
        pr = self.json.get("pruned") or {}
        ratios = {
            (json.dumps(s["point"], sort_keys=True), r["label"]): _exact(r.get("ratio"))
            for s in pr.get("shrink", []) for r in s["ratios"]
        }
        recs = []
        for p in pr.get("bands", []):
            for b in p["bands"]:
                rec: dict = {v: Fraction(p["point"][v]) for v in self.variables}
                label = b["threshold"]["label"]
                rec["threshold"] = label
                rec["model"] = _exact(p["model"])
                rec["lower"], rec["upper"] = _exact(b["band"].get("lower")), _exact(b["band"].get("upper"))
                rec["ratio"] = ratios.get((json.dumps(p["point"], sort_keys=True), label))
                recs.append(rec)
        return _with_floats(recs, ["model", "lower", "upper", "ratio"])

    def _notes(self) -> list:
        return list(self._native.answer_notes()) if self._native is not None else []

    def summary(self) -> str:
        """The ``Answer`` section of the command line's text report, in its
        words: the recommended band of the next measurement at each
        prediction point, what it assumes, the self-check and a change of
        trend; or why there is no recommended band."""
        if self._native is None:
            raise ValueError(
                "summary() needs an analysis made here: call errband.analyse_series(..., callpath=..., metric=...)"
                " for one series of an experiment"
            )
        return self._native.answer()

    def predict(self, **point: Any) -> "pd.DataFrame":
        """The prediction at a point, one keyword per model variable
        (``a.predict(p=1000)``; sequences of equal length give several
        points: ``a.predict(p=[1000, 2000])``), as a DataFrame like
        statsmodels' ``summary_frame()``: per point and threshold the
        model's value, the model band (lower, upper), the band of the next
        measurement (measurement_lower, measurement_upper) and ``status``
        (``"ok"``; ``"clipped"`` when an end was bounded by zero; or why
        there is no band: ``"untrusted"``, ``"empty"``, ``"below_zero"``),
        then a row ``threshold == "recommended"``: the recommended band of
        the next measurement (:attr:`recommendation`). Exact columns are
        Fractions with float columns beside them (±inf for an unbounded end,
        NaN where there is no band). A point not among the analysis'
        prediction points is analysed anew (the same fit, one more point)."""
        names = self.variables
        if sorted(point) != sorted(names):
            raise TypeError(
                f"predict() takes one keyword per model variable ({', '.join(names)}), not {', '.join(point) or 'none'}"
            )
        seqs = {k: (list(v) if isinstance(v, (list, tuple, range)) or hasattr(v, "__array__") and getattr(v, "ndim", 0) > 0 else [v])
                for k, v in point.items()}
        n = max(len(v) for v in seqs.values())
        if any(len(v) not in (1, n) for v in seqs.values()):
            raise ValueError("predict(): give each variable one value, or sequences of one length")
        wanted = [{k: Fraction(str(v[i] if len(v) > 1 else v[0])) for k, v in seqs.items()} for i in range(n)]

        def key(pt: Mapping[str, Any]) -> tuple:
            return tuple(Fraction(str(pt[v])) for v in names)

        have = {key(p["point"]) for p in self.json["bands"]}
        source = self
        missing = [w for w in wanted if key(w) not in have]
        if missing:
            if self._args is None:
                raise KeyError(f"no prediction at {missing[0]}; this analysis cannot add points: give them with at=[...]")
            args = dict(self._args)
            args["at"] = list(args["at"]) + [", ".join(f"{k}={v}" for k, v in m.items()) for m in missing]
            source = Analysis(_native.analyse(**args))
        bands = {key(p["point"]): p for p in source.json["bands"]}
        recommended = {key(p["point"]): p for p in (source.json.get("recommendation") or {}).get("points", [])}
        recs = []
        for w in wanted:
            p = bands[key(w)]
            base: dict = {v: w[v] for v in names}
            base["extrapolated"] = p["extrapolated"]
            base["value"] = _exact(p["model"])
            for b in p["bands"]:
                band, mb = b["band"], b["measurement_band"]
                rec = dict(base)
                rec["threshold"] = b["threshold"]["label"]
                rec["status"] = "clipped" if band["status"] == "ok" and (band["clipped"] or mb["clipped"]) else band["status"]
                rec["lower"], rec["upper"] = _exact(band.get("lower")), _exact(band.get("upper"))
                rec["measurement_lower"], rec["measurement_upper"] = _exact(mb.get("lower")), _exact(mb.get("upper"))
                recs.append(rec)
            r = recommended.get(key(w))
            if r is not None:
                band = r.get("band") or {}
                rec = dict(base)
                rec["threshold"] = "recommended"
                rec["status"] = _status(band)
                rec["lower"] = rec["upper"] = None
                rec["measurement_lower"], rec["measurement_upper"] = _exact(band.get("lower")), _exact(band.get("upper"))
                recs.append(rec)
        cols = names + ["extrapolated", "threshold", "value", "lower", "upper", "measurement_lower", "measurement_upper", "status"]
        df = pd.DataFrame.from_records(recs, columns=cols)
        df["value_float"] = [float(v) for v in df["value"]]
        banded = df["status"].isin(["ok", "clipped"])
        for c in ("lower", "upper", "measurement_lower", "measurement_upper"):
            inf = float("-inf") if c.endswith("lower") else float("inf")
            floats = []
            for v, ok, t in zip(df[c], banded, df["threshold"]):
                if v is not None:
                    floats.append(float(v))
                elif ok and not (t == "recommended" and c in ("lower", "upper")):
                    floats.append(inf)
                else:
                    floats.append(float("nan"))
            df[c + "_float"] = floats
        return df

    @property
    def family_bands(self) -> "pd.DataFrame":
        """The family band per prediction point and threshold: the hull of
        every consistent form's band (lower, upper), the band of a new
        measurement, and how many forms it covers."""
        fam = self.json.get("family") or {}
        recs = []
        for b in fam.get("bands", []):
            rec: dict = {v: Fraction(b["point"][v]) for v in self.variables}
            rec["threshold"] = (b.get("threshold") or {}).get("label")
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
                band = b.get("band") or {}
                rec["band"] = b.get("kind")
                rec["threshold"] = b.get("label")
                rec["inside"] = b.get("inside")
                rec["lower"], rec["upper"] = _exact(band.get("lower")), _exact(band.get("upper"))
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
                    b["threshold"]["label"]: (_exact(b["band"].get("lower")), _exact(b["band"].get("upper")))
                    for b in p["bands"]
                    if b["band"]["status"] == "ok"
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
    if isinstance(data, os.PathLike) or (isinstance(data, str) and not _is_text(data, data=True)):
        return "", "<data>", _existing(os.fspath(data))
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


_PointArg = Union[None, str, Mapping[str, Any], Iterable[Union[str, Mapping[str, Any]]]]


def _columns(x: Any, y: Optional[str], by: Any, aggregate: str) -> tuple:
    """``x=``, ``y=``, ``by=``, ``aggregate=`` as the native module takes them."""
    pairs: list = []
    if x is not None:
        items = x.items() if isinstance(x, Mapping) else (str(i).split("=", 1) for i in ([x] if isinstance(x, str) else x))
        for item in items:
            if len(item) != 2:
                raise ValueError(f"x: expected a mapping of model variables to columns, e.g. x={{'p': 'procs'}}, not {x!r}")
            pairs.append((str(item[0]).strip(), str(item[1]).strip()))
    if by is None:
        groups: list = []
    elif isinstance(by, str):
        groups = [b.strip() for b in by.split(",") if b.strip()]
    else:
        groups = [str(b) for b in by]
    return (pairs, None if y is None else str(y), groups, str(aggregate))


def _count(max_candidates: Any) -> int:
    n = int(max_candidates)
    if n < 0:
        raise ValueError(f"max_candidates {max_candidates}: expected a count, 0 or more")
    return n


def _rows(drop_rows: Any) -> list:
    if drop_rows is None:
        return []
    return [int(drop_rows)] if isinstance(drop_rows, int) else [int(r) for r in drop_rows]


def _analyse(shape: str, model: Any, data: Any, thresholds: Any, at: Any, family: Optional[str],
             holdout: Optional[str], noise: Any, decimal: int, callpath: Optional[str], metric: Optional[str],
             x: Any, y: Optional[str], by: Any, aggregate: str, drop: Any, drop_rows: Any,
             max_candidates: int) -> Any:
    """The three analyse functions: their arguments checked and read, and the
    native call (kept, so that :meth:`Analysis.predict` can add points)."""
    if data is None:
        if model is None:
            raise TypeError("give the measurements: data=")
        # One argument is the data, as `errband DATA` takes it.
        if isinstance(model, (str, os.PathLike)) and os.fspath(model).lower().endswith(".tm"):
            raise TypeError(f"{os.fspath(model)} is a model file; give the measurements too (data=)")
        model, data = None, model
    if model is None:
        model_text, model_name = None, "(no model file)"
    else:
        model_text, model_name = _read_source(model, "<model>")
    data_text, data_name, data_path = _data_args(data)
    if not 1 <= int(decimal) <= 100:
        raise ValueError(f"decimal {decimal}: expected 1 to 100 significant digits")
    args = dict(
        model=model_text, model_name=model_name, data_text=data_text, data_name=data_name, data_path=data_path,
        thresholds=[str(t) for t in (thresholds or [])], at=_point_texts(at), noise=_noise(noise),
        decimal=int(decimal), family=family, holdout=holdout, callpath=callpath, metric=metric,
        columns=_columns(x, y, by, aggregate), drop=(_point_texts(drop), _rows(drop_rows)), shape=shape,
        max_candidates=_count(max_candidates),
    )
    result = _native.analyse(**args)
    if isinstance(result, str):
        return Experiment(result)
    a = Analysis(result)
    a._args = args
    return a


def analyse_series(
    model: Optional[PathOrText] = None,
    data: Union[None, PathOrText, "pd.DataFrame"] = None,
    thresholds: Optional[Iterable[str]] = None,
    at: _PointArg = None,
    family: Optional[str] = None,
    holdout: Optional[str] = None,
    noise: Union[str, Fraction, float] = "5%",
    decimal: int = 6,
    callpath: Optional[str] = None,
    metric: Optional[str] = None,
    *,
    x: Union[None, Mapping[str, str], Iterable[str]] = None,
    y: Optional[str] = None,
    by: Union[None, str, Iterable[str]] = None,
    aggregate: str = "all",
    drop: _PointArg = None,
    drop_rows: Union[None, int, Iterable[int]] = None,
    max_candidates: int = 10_000,
) -> "Analysis":
    """Fit ``model`` to one series of ``data`` exactly and compute e_max, the
    regions, the bands and the recommended band, as ``errband MODEL DATA
    --format json`` does. Without a model, the best form of ``family``
    (default ``"scaling"``) is found from the data and analysed, as
    ``errband DATA`` does. Always an :class:`Analysis`: data with several
    series raise :class:`InputError` (choose one with ``callpath=`` and
    ``metric=``, or call :func:`analyse_experiment`).

    model
        ``.tm`` model text, or a path to a ``.tm`` file; ``None`` (or leave
        it out: ``analyse_series(data=df)``) to find the model from the data.
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
        ``"pmnf"`` (Extra-P's normal forms) or ``"scaling"`` (those and
        decreasing terms, for strong scaling): with a model, its forms are
        added to the model's family (its ``family`` lines are always used)
        and the family band is given; without one, the model is the best
        form of this family (default ``"scaling"``).
    holdout
        Backtest: fit without the measurements it names and check each
        against the bands: ``"largest"`` (the largest value of the first
        variable), ``"largest n"``, conditions such as ``"p>=64"`` or
        ``"p=512 and n>100"`` (as ``--holdout`` takes them), or
        ``"last=N"``: the N largest values of the first variable
        (``"last=1"`` is ``"largest"``).
    noise
        The measurement noise that ``trusted`` uses (default 5 %).
    decimal
        Significant digits of the decimal views in the JSON.
    callpath, metric
        With an experiment: the series to analyse (names or globs).
    x
        Model variable → the column (or Extra-P parameter) it reads:
        ``x={"p": "procs"}`` (``--x p=procs``).
    y
        The column of the measured value (``--y``; default: the model's
        function name, or without a model the last column).
    by
        Columns whose values split a CSV table into series, one analysis
        each (``--by``): ``"mpi,collective"`` or a list.
    aggregate
        How the repetitions at a point enter the fit: ``"all"`` (each is a
        constraint; the paper's method), ``"mean"`` (what Extra-P fits),
        ``"median"``, ``"min"`` or ``"max"`` (``--aggregate``).
    drop, drop_rows
        Drop the measurements at these points (``"p=110"``, ``{"p": 110}``
        or a list) or with these row numbers (1 is the first row of
        :attr:`Analysis.residuals`), refit and compare (``--drop``,
        ``--drop-row``): ``Analysis.json["pruned"]`` and
        :attr:`Analysis.pruned`.
    max_candidates
        The most form × point bands a family may take (two exact LPs
        each; ``--max-candidates``, default 10 000), checked before the
        first is computed.

    Raises :class:`InputError` with the command line's located message
    (carets under the offending text) for bad input, :class:`AnalysisError`
    when the analysis is impossible (both :class:`ErrbandError`, with
    ``.kind`` ``"input"`` or ``"analysis"``), and
    :class:`FileNotFoundError` for a path that does not exist.
    """
    return _analyse("series", model, data, thresholds, at, family, holdout, noise, decimal, callpath, metric,
                    x, y, by, aggregate, drop, drop_rows, max_candidates)


def analyse_experiment(
    model: Optional[PathOrText] = None,
    data: Union[None, PathOrText, "pd.DataFrame"] = None,
    thresholds: Optional[Iterable[str]] = None,
    at: _PointArg = None,
    family: Optional[str] = None,
    holdout: Optional[str] = None,
    noise: Union[str, Fraction, float] = "5%",
    decimal: int = 6,
    callpath: Optional[str] = None,
    metric: Optional[str] = None,
    *,
    x: Union[None, Mapping[str, str], Iterable[str]] = None,
    y: Optional[str] = None,
    by: Union[None, str, Iterable[str]] = None,
    aggregate: str = "all",
    max_candidates: int = 10_000,
) -> "Experiment":
    """Every series of ``data`` (an Extra-P experiment, CUBE runs, or a CSV
    table split with ``by=``) analysed as :func:`analyse_series` analyses
    one: always an :class:`Experiment`, even of one series. The arguments
    are :func:`analyse_series`'s (there is no ``drop=``: it applies to one
    series)."""
    return _analyse("experiment", model, data, thresholds, at, family, holdout, noise, decimal, callpath, metric,
                    x, y, by, aggregate, None, None, max_candidates)


def analyse(
    model: Optional[PathOrText] = None,
    data: Union[None, PathOrText, "pd.DataFrame"] = None,
    thresholds: Optional[Iterable[str]] = None,
    at: _PointArg = None,
    family: Optional[str] = None,
    holdout: Optional[str] = None,
    noise: Union[str, Fraction, float] = "5%",
    decimal: int = 6,
    callpath: Optional[str] = None,
    metric: Optional[str] = None,
    *,
    x: Union[None, Mapping[str, str], Iterable[str]] = None,
    y: Optional[str] = None,
    by: Union[None, str, Iterable[str]] = None,
    aggregate: str = "all",
    drop: _PointArg = None,
    drop_rows: Union[None, int, Iterable[int]] = None,
    max_candidates: int = 10_000,
) -> Union["Analysis", "Experiment"]:
    """As the command line decides: an :class:`Analysis` when the data hold
    one series, an :class:`Experiment` when they hold several. For one
    return type, call :func:`analyse_series` or :func:`analyse_experiment`;
    the arguments are theirs."""
    return _analyse("either", model, data, thresholds, at, family, holdout, noise, decimal, callpath, metric,
                    x, y, by, aggregate, drop, drop_rows, max_candidates)


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
    """The result of :func:`analyse_experiment` (or :func:`analyse` on
    data with several series: an Extra-P experiment, CUBE runs): the JSON of ``errband MODEL DATA
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
        """The analysis of one series, from the experiment's document: its
        DataFrames and JSON, without the band plot, :meth:`Analysis.summary`
        or new points in :meth:`Analysis.predict` (for those, call
        :func:`analyse_series` with ``callpath=`` and ``metric=``)."""
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
            # prune: the pruned data's analysis is under "fit" (null when it
            # failed); plan: the bands are the candidate's own.
            fit = c.get("fit") or {}
            for k, v in (("rank_key", c.get("rank_key")), ("emax", fit.get("emax")), ("d_new", c.get("d_new"))):
                if isinstance(v, dict):
                    base[k] = _exact(v)
                    exact_cols.append(k)
            for b in c.get("bands", fit.get("bands", [])):
                rec = dict(base)
                rec["target"] = ", ".join(f"{k}={v}" for k, v in b.get("target", {}).items())
                rec["threshold"] = (b.get("threshold") or {}).get("label")
                band = b.get("band") or b.get("expected") or {}
                rec["status"] = band.get("status")
                for end in ("lower", "upper", "width"):
                    rec[end] = _exact(band.get(end))
                    exact_cols.append(end)
                ratio = b.get("ratio") or b.get("expected_ratio")
                if isinstance(ratio, dict):
                    rec["ratio"] = _exact(ratio)
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
    *,
    max_candidates: int = 10_000,
) -> CommandResult:
    """Which measurements to leave out (``errband prune``): every subset
    dropping up to ``max_drop`` points (among the ``top`` largest residuals),
    a greedy sequence of ``greedy`` steps, and your ``candidates`` (each the
    points one candidate drops: ``"p=100"``, ``"p=10,p=20"`` or
    ``["p=10", "p=20"]``), ranked
    by how much they narrow the band at the targets (default: the model's
    ``predict`` points). More generated candidates than ``max_candidates``
    (``--max-candidates``, default 10 000) raise :class:`InputError` before
    the first is analysed."""
    cands = [[c] if isinstance(c, str) else _point_texts(c) for c in candidates]
    return CommandResult(
        _native.prune(
            _source(model, data, thresholds, noise, callpath, metric),
            _point_texts(target), int(max_drop), top, int(greedy), cands, int(decimal), int(show),
            _count(max_candidates),
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
    *,
    max_candidates: int = 10_000,
) -> CommandResult:
    """Where to measure next (``errband plan``): each candidate point
    (``"p=130..300:10"``, or ``"p=130..300 step 10"``) ranked by how much a new measurement there,
    as the model predicts it, would narrow the band at the targets.

    Each candidate is a whole re-analysis: more than ``max_candidates``
    (default 10 000, the command line's ``--max-candidates``) raise
    :class:`InputError` before the first one is analysed."""
    return CommandResult(
        _native.plan(
            _source(model, data, thresholds, noise, callpath, metric),
            _point_texts(target), _point_texts(candidates), int(decimal), int(show), _count(max_candidates),
        )
    )


def _saved_text(value: Any) -> Optional["tuple[str, str]"]:
    """(text, name) of a saved result given as the reference of
    :func:`check`: an :class:`Analysis` or :class:`Experiment`, a JSON
    document as a dict, JSON text, or a path to a file that holds one;
    ``None`` for anything else (a model or data)."""
    if isinstance(value, (Analysis, _Document)):
        return value.to_json(), "<saved result>"
    if isinstance(value, Mapping):
        return json.dumps(value), "<saved result>"
    if isinstance(value, str) and value.lstrip().startswith("{"):
        return value, "<saved result>"
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        if isinstance(value, str) and _is_text(value, data=False):
            return None
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as f:
            head = f.read(4096).lstrip()
        if not head.startswith(b"{"):
            return None
        text = _native.read_file(path)
        try:
            doc = json.loads(text)
        except ValueError:
            return None
        return (text, path) if isinstance(doc, dict) and "errband" in doc else None
    return None


def _new_args(new: Any) -> list:
    """The ``new=`` argument of :func:`check` as (text, name, path) per
    file: a path or CSV text, a DataFrame, a list of rows (mappings of
    column to value), or a list of paths."""
    if new is None:
        raise TypeError("give the new measurements: new=")
    if isinstance(new, pd.DataFrame):
        return [(_frame_to_csv(new), "<new>", None)]
    if isinstance(new, os.PathLike):
        return [("", "", _existing(os.fspath(new)))]
    if isinstance(new, str):
        if _is_text(new, data=True) or new.lstrip().startswith("{"):
            return [(new, "<new>", None)]
        return [("", "", _existing(new))]
    items = list(new)
    if not items:
        raise ValueError("new: no new measurements")
    if all(isinstance(i, Mapping) for i in items):
        return [(_frame_to_csv(pd.DataFrame.from_records(items)), "<new>", None)]
    if all(isinstance(i, (str, os.PathLike, pd.DataFrame)) for i in items):
        return [a for i in items for a in _new_args(i)]
    raise TypeError("new: expected a path, CSV text, a DataFrame, a list of rows (dicts) or a list of paths")


def check(
    model: Union[None, PathOrText, "Analysis", Mapping[str, Any]] = None,
    data: Union[None, PathOrText, "pd.DataFrame"] = None,
    new: Union[None, PathOrText, "pd.DataFrame", Iterable[Any]] = None,
    *,
    fail_on: str = "above",
    family: Optional[str] = None,
    thresholds: Optional[Iterable[str]] = None,
    noise: Union[str, Fraction, float] = "5%",
    decimal: int = 6,
    callpath: Optional[str] = None,
    metric: Optional[str] = None,
    x: Union[None, Mapping[str, str], Iterable[str]] = None,
    y: Optional[str] = None,
    by: Union[None, str, Iterable[str]] = None,
) -> "pd.DataFrame":
    """Judge new measurements against the band errband recommends for the
    next measurement at their scale, as ``errband check MODEL DATA --new
    NEW --format json`` does: each is inside the band, above it (slower: a
    regression) or below it (faster).

    model, data
        The reference, as :func:`analyse_series` takes them: a model and
        the measurements it is fitted to, or the measurements alone (the
        model is then the best form of ``family``, default ``"scaling"``).
        Or a saved result instead of both: an :class:`Analysis` (or
        :class:`Experiment`), its JSON document as a dict, or the text or
        path of ``errband MODEL DATA --format json``; new measurements are
        then checked only at its prediction points.
    new
        The new measurements, with the columns of the data (or, for a saved
        result, the model's variables and function): a path (CSV, any data
        errband reads, or hyperfine's ``--export-json``), CSV text, a
        DataFrame, a list of rows (dicts), or a list of paths.
    fail_on
        When the check fails: ``"above"`` (a measurement above its band, the
        default), ``"outside"`` (above or below), or ``"never"``.
    family, thresholds, noise, decimal, callpath, metric, x, y, by
        As :func:`analyse_series` takes them (``decimal`` also sets the
        digits of the text summary).

    Returns a DataFrame with one row per new measurement: ``series`` (empty
    for a single series), a column per variable (Fractions), ``file``,
    ``line``, ``note``, ``measured``, ``value`` (the model's prediction),
    ``lower`` and ``upper`` (the band; Fractions, each with a ``_float``
    column), ``clipped``, ``verdict`` (``"inside"``, ``"above"``,
    ``"below"`` or ``"no_band"``), ``fails``, ``deviation`` (how far past
    the crossed edge, as a fraction of it; ``deviation_float``),
    ``deviation_percent`` (as the command line writes it, ``"+30 %"``),
    ``excess_percent`` (the deviation in % as a float) and ``refused`` (why
    there is no band). ``df.attrs`` holds ``"failed"`` (True when a
    measurement fails the check: the command line's exit code 1),
    ``"summary"`` (the command line's text report), ``"counts"``,
    ``"fail_on"``, ``"series"`` and ``"json"`` (the whole document).

    Raises :class:`InputError` and :class:`AnalysisError` as the analyse
    functions do (a new measurement at a point a saved result has no band
    for is an :class:`InputError`), and :class:`FileNotFoundError` for a
    path that does not exist.
    """
    if fail_on not in ("above", "outside", "never"):
        raise ValueError(f"fail_on={fail_on!r}: expected \"above\", \"outside\" or \"never\"")
    if not 1 <= int(decimal) <= 100:
        raise ValueError(f"decimal {decimal}: expected 1 to 100 significant digits")
    saved = _saved_text(model) if data is None and model is not None else None
    model_arg = data_arg = None
    if saved is None:
        if data is None:
            if model is None:
                raise TypeError("give the reference: a model and its data, the data, or a saved result")
            if isinstance(model, (str, os.PathLike)) and os.fspath(model).lower().endswith(".tm"):
                raise TypeError(f"{os.fspath(model)} is a model file; give the measurements too (data=)")
            model, data = None, model
        if model is not None:
            model_arg = _read_source(model, "<model>")
        data_arg = _data_args(data)
    columns = _columns(x, y, by, "all")
    document, summary = _native.check(
        model_arg, data_arg, saved, _new_args(new), fail_on, family, [str(t) for t in (thresholds or [])],
        _noise(noise), callpath, metric, columns, int(decimal),
    )
    doc = json.loads(document)
    variables: list = []
    for sr in doc.get("series", []):
        for v in sr.get("variables", []):
            if v not in variables:
                variables.append(v)
    recs = []
    for r in doc.get("results", []):
        rec: dict = {"series": r.get("series", "")}
        for v in variables:
            p = r.get("point", {}).get(v)
            rec[v] = None if p is None else Fraction(p)
        rec["file"] = r.get("file")
        rec["line"] = r.get("line")
        rec["note"] = r.get("note")
        for k in ("measured", "mean", "value", "lower", "upper"):
            rec[k] = _exact(r.get(k))
        rec["clipped"] = bool(r.get("clipped"))
        rec["verdict"] = r.get("verdict")
        rec["fails"] = bool(r.get("fails"))
        rec["deviation"] = _exact(r.get("deviation"))
        rec["deviation_percent"] = r.get("deviation_percent")
        rec["excess_percent"] = float("nan") if rec["deviation"] is None else float(rec["deviation"] * 100)
        rec["refused"] = r.get("refused")
        recs.append(rec)
    exact_cols = ["measured", "mean", "value", "lower", "upper", "deviation"]
    df = _with_floats(recs, exact_cols)
    # Each float beside its exact column.
    order: list = []
    for c in df.columns:
        if c.endswith("_float") and c[: -len("_float")] in exact_cols:
            continue
        order.append(c)
        if c in exact_cols and c + "_float" in df.columns:
            order.append(c + "_float")
    df = df[order]
    df.attrs["failed"] = bool(doc.get("failed"))
    df.attrs["summary"] = summary
    df.attrs["counts"] = doc.get("counts", {})
    df.attrs["fail_on"] = doc.get("fail_on")
    df.attrs["series"] = doc.get("series", [])
    df.attrs["json"] = doc
    return df


def _value_rows(value: Mapping, base: dict, name: str) -> list:
    """Rows of one predicted quantity: its value, then per threshold its
    band (lower, upper)."""
    rows = []
    for b in value.get("bands") or [{}]:
        band = b.get("band") or {}
        rec = dict(base)
        rec["quantity"] = name
        rec["threshold"] = b.get("label")
        rec["value"] = _exact(value)
        rec["lower"] = _exact(band.get("lower"))
        rec["upper"] = _exact(band.get("upper"))
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
        ``e_std``, ``e_opt`` in J, ``t_std``, ``t_opt`` in s) and threshold:
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
        with a band, and per fitted scalar (``f_opt`` in MHz, ``p_std`` in
        W, …)."""
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
        cases = self.json.get("t_sr_cases", [])
        recs = []
        for r in self.json["rows"]:
            mpi = ((r.get("mpi") or [None])[0] or {}).get("band") or {}
            for k, case in enumerate(r["cases"]):
                t_sr = cases[k] if k < len(cases) else {}
                teb = case["t_eb"]
                rec = {
                    "nodes": r["nodes"],
                    "t_sr_lower": _exact(t_sr.get("lower")),
                    "t_sr_upper": _exact(t_sr.get("upper")),
                    "t_eb_lower": _exact(teb.get("lower")),
                    "t_eb_upper": _exact(teb.get("upper")),
                    "mpi_lower": _exact(mpi.get("lower")),
                    "mpi_upper": _exact(mpi.get("upper")),
                }
                vs = case.get("versus") or []
                v = vs[0] if vs else {}
                rec["winner"] = v.get("winner")
                for name, key in (("margin_s", "margin"), ("speedup", "speedup")):
                    band = v.get(key) or {}
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
                "time_s": _exact(r["time"]),
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
