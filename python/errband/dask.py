"""errband on a Dask cluster: every series of a Dask DataFrame analysed on
the workers.

``errband.dask.analyse_dask(ddf, model, by)`` groups a Dask DataFrame of
measurements (one row per measurement) by the ``by`` columns, moves each
group whole onto one partition (a shuffle on ``by``), analyses each
partition's groups on the worker that holds it with
:func:`errband.analyse_experiment` and returns a lazy Dask DataFrame of
summary rows, one per group: the rows of :attr:`errband.Experiment.series`
with the group's key columns in front. ``errband.dask.to_pandas(result)``
(or ``result.compute()``) gives pandas.

This module needs ``dask[dataframe,distributed]`` (``pip install
"errband[dask]"``); ``import errband`` alone never imports dask.
"""

from __future__ import annotations

import json
import math
import numbers
from decimal import Decimal
from fractions import Fraction
from typing import Any, Iterable, List, Mapping, Optional, Sequence, Union

import numpy as np
import pandas as pd

import errband

try:
    import dask.dataframe as dd
except ImportError as _e:  # pragma: no cover - depends on the environment
    raise ImportError(
        "errband.dask needs dask's DataFrame and distributed scheduler: "
        'pip install "errband[dask]" (or "dask[dataframe,distributed]")'
    ) from _e

__all__ = ["analyse_dask", "to_pandas", "model_params"]

# The columns of each summary row after the key columns, in order; the
# model's parameters stand where `<params>` is, and the float columns
# (`emax_float`, one per parameter, `widest_relative_half_width_float`)
# follow at the end, as in errband.Experiment.series.
_SERIES_COLUMNS = (
    "series", "y", "model", "measurements", "points", "emax", "<params>", "family",
    "widest_relative_half_width", "error",
)

# errband's names of a summary entry's fields, and the names they get here:
# `callpath` is the series' name as errband gives it (`callpath=a, metric=b`
# for a table split by columns), `metric` the measured column.
_RENAMED = {"callpath": "series", "metric": "y"}
_INTS = ("measurements", "points")


# The model's parameters --------------------------------------------------

def model_params(model: errband.PathOrText) -> List[str]:
    """The names of a model's parameters, in the order its ``param``
    statements declare them (the columns :func:`analyse_dask` gives them).
    ``model`` is ``.tm`` text or a path, as :func:`errband.analyse_series`
    takes it."""
    text, name = errband._read_source(model, "<model>")
    return errband._native.model_names(text, name)[1]


# Exact cells --------------------------------------------------------------


def _text(v: Any) -> str:
    """One cell as the text errband reads: exact decimals for numbers (an
    int as its digits, a Decimal in positional notation, a Fraction with a
    finite decimal expansion as that decimal, a float as the shortest
    decimal that reads back as the same float), a str as it is, a missing
    value as an empty cell. Anything else is its ``str()`` (errband reports
    it, located, when a column it reads holds it)."""
    if v is None or v is pd.NA or v is pd.NaT:
        return ""
    if isinstance(v, str):
        return v
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))  # not a number: errband says so where it reads one
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, Decimal):
        return format(v, "f") if v.is_finite() else str(v)
    if isinstance(v, Fraction):
        try:
            return errband._cell(v, "", 0)
        except ValueError:
            return f"{v.numerator}/{v.denominator}"  # errband rejects it, located
    if isinstance(v, numbers.Real):
        f = float(v)
        return repr(f) if math.isfinite(f) else str(f)
    return str(v)


def _as_text(df: "pd.DataFrame") -> "pd.DataFrame":
    """Every cell of ``df`` as exact text (object columns of str)."""
    return pd.DataFrame({c: pd.Series([_text(v) for v in df[c]], index=df.index, dtype=object) for c in df.columns})


# The analysis of one partition ------------------------------------------


def _result_columns(by: Sequence[str], params: Sequence[str]) -> List[str]:
    """The result's columns: the keys, the summary's columns (the
    parameters in place of ``<params>``), then the float columns."""
    cols = list(by)
    for c in _SERIES_COLUMNS:
        cols.extend(params if c == "<params>" else [c])
    return cols + [n + "_float" for n in ["emax", *params, "widest_relative_half_width"]]


def _meta(key_dtypes: Mapping[str, Any], params: Sequence[str]) -> "pd.DataFrame":
    """An empty frame with the result's columns and dtypes: the keys' own,
    nullable ``Int64`` for the counts, float64 for the float columns, object
    for the rest (Fractions, text, None)."""
    cols: dict = {}
    for c in _result_columns(list(key_dtypes), params):
        if c in key_dtypes:
            t: Any = key_dtypes[c]
        elif c in _INTS:
            t = "Int64"
        elif c.endswith("_float"):
            t = "float64"
        else:
            t = object
        cols[c] = pd.Series([], dtype=t)
    return pd.DataFrame(cols)


def _series_name(by: Sequence[str], key: Sequence[str]) -> str:
    """errband's name of a group of a table split by ``by`` columns."""
    return ", ".join(f"{c}={v.strip()}" for c, v in zip(by, key))


def _records(exp: "errband.Experiment") -> List[dict]:
    """The summary entries of an experiment as flat records (exact values
    as Fractions, params by name)."""
    recs = []
    for e in exp.json["summary"]:
        rec: dict = {}
        for k, v in e.items():
            if k == "params":
                for p in v or []:
                    rec[("param", p["name"])] = errband._exact(p)
            elif isinstance(v, dict) and "exact" in v:
                rec[k] = errband._exact(v)
            elif isinstance(v, (dict, list)):
                rec[k] = json.dumps(v)
            else:
                rec[k] = v
        recs.append(rec)
    return recs


def _analyse_partition(part: "pd.DataFrame", model: str, by: List[str], params: List[str], measured: str,
                       meta: "pd.DataFrame", kwargs: dict) -> "pd.DataFrame":
    """The summary rows of every group of ``part`` (each group is whole
    here): one :func:`errband.analyse_experiment` call on the partition;
    when errband cannot read it (a cell one group holds that is not a
    number, say), one call per group, so that only that group's row has
    the error."""
    if len(part) == 0:
        return meta.iloc[0:0].copy()
    text = _as_text(part)
    keys = list(zip(*(text[c] for c in by)))
    first: dict = {}
    for i, k in enumerate(keys):
        name = _series_name(by, k)
        if name not in first:
            first[name] = i
    try:
        recs = _records(errband.analyse_experiment(model, text, by=by, **kwargs))
    except (errband.ErrbandError, ValueError):
        recs = []
        for _, g in text.groupby(by, sort=False, dropna=False):
            try:
                recs.extend(_records(errband.analyse_experiment(model, g, by=by, **kwargs)))
            except (errband.ErrbandError, ValueError) as e:
                k = g.iloc[0]
                recs.append({"callpath": _series_name(by, [k[c] for c in by]), "metric": measured, "error": str(e)})
    rows = []
    for rec in recs:
        name = rec.get("callpath")
        if name not in first:
            raise RuntimeError(f"errband.dask: errband named a series {name!r} that is not a group of the partition")
        src = part.iloc[first[name]]
        row: dict = {c: src[c] for c in by}
        for k, v in rec.items():
            if isinstance(k, tuple):
                if k[1] not in params:
                    raise RuntimeError(
                        f"errband.dask: the analysis has a parameter {k[1]!r} that the model's `param` "
                        f"statements were read without ({', '.join(params)})"
                    )
                row[k[1]] = v
            else:
                row[_RENAMED.get(k, k)] = v
        rows.append(row)
    out = pd.DataFrame.from_records(rows, columns=[c for c in meta.columns if not c.endswith("_float")])
    for n in ["emax", *params, "widest_relative_half_width"]:
        out[n + "_float"] = [float("nan") if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))
                             else float(v) for v in out[n]]
    for c in meta.columns:
        if c in by:
            continue
        if str(meta[c].dtype) == "Int64":
            out[c] = pd.array([None if v is None or (isinstance(v, float) and math.isnan(v)) else int(v)
                               for v in out[c]], dtype="Int64")
        elif meta[c].dtype == object:
            out[c] = pd.Series([None if isinstance(v, float) and math.isnan(v) else v for v in out[c]],
                               index=out.index, dtype=object)
    out = out.astype({c: meta[c].dtype for c in by})
    return out[list(meta.columns)]


# The public function ----------------------------------------------------


def analyse_dask(
    ddf: "dd.DataFrame",
    model: errband.PathOrText,
    by: Union[str, Iterable[str]],
    *,
    thresholds: Optional[Iterable[str]] = None,
    at: Any = None,
    family: Optional[str] = None,
    noise: Union[str, Fraction, float] = "5%",
    decimal: int = 6,
    x: Union[None, Mapping[str, str], Iterable[str]] = None,
    y: Optional[str] = None,
    aggregate: str = "all",
    max_candidates: int = 10_000,
    sort: bool = True,
    npartitions: Optional[int] = None,
    shuffle_method: Optional[str] = None,
) -> "dd.DataFrame":
    """Every group of a Dask DataFrame of measurements analysed on the
    workers, as :func:`errband.analyse_experiment` analyses the groups of a
    table split with ``by=``; returns a lazy Dask DataFrame of one summary
    row per group.

    ddf
        One row per measurement: the ``by`` columns, a column per model
        variable (or as ``x=`` names them) and the measured value (the
        model's function name, or ``y=``). Numbers reach errband as exact
        decimal text: give ``str`` cells (``"12.345"``, ``"1e-3"``),
        ``decimal.Decimal``, ``int`` (numpy's too) or ``Fraction`` with a
        finite decimal expansion to be exact. A ``float`` is read as the
        shortest decimal that gives the same float (what pandas shows), as
        :func:`errband.analyse_experiment` reads it. Other columns are
        shuffled along and ignored: select the columns errband reads first
        to move less data.
    model
        ``.tm`` text or a path; read here, on the client, and sent to the
        workers as text (they need not see the file).
    by
        The columns whose values name a series: ``["callpath", "metric"]``
        or ``"callpath,metric"``. Each group moves whole onto one partition.
    thresholds, at, family, noise, decimal, x, y, aggregate, max_candidates
        As :func:`errband.analyse_experiment` takes them.
    sort
        Sort the result by the ``by`` columns (default), so that its rows
        come in the same order whatever the partitions; ``False`` leaves
        them in the shuffle's order (one sort fewer).
    npartitions
        The partitions the groups are shuffled into, one analysis task
        each (default: as many as ``ddf`` has).
    shuffle_method
        Dask's shuffle method (``"p2p"``, ``"tasks"``, ``"disk"``; default:
        Dask's choice for the scheduler).

    The result has the ``by`` columns (one row per group, the group's
    values), then ``series`` (errband's name of the series,
    ``"callpath=a, metric=b"``: the ``callpath`` column of
    :attr:`errband.Experiment.series` and of the command line's summary),
    ``y`` (the measured column: its ``metric``), ``model``,
    ``measurements``, ``points`` (nullable ``Int64``), ``emax``, one column
    per model parameter (``fractions.Fraction``, object dtype), ``family``
    (JSON text with ``family=``), ``widest_relative_half_width``
    (Fraction), ``error`` (None, or why the group's analysis failed: such
    a group's row has only its keys, ``series``, ``y`` and ``error``), and
    a float column per exact one (``emax_float``, ``<param>_float``,
    ``widest_relative_half_width_float``; NaN where there is no value).
    ``result.compute()`` is a pandas DataFrame; :func:`to_pandas` also
    numbers its rows 0..n-1.

    A group whose analysis fails (too few points, a cell errband cannot
    read) gives a row with ``error``; the other groups are analysed as
    usual. A ``by`` column missing from ``ddf``, or one named like a
    result column, raises ``ValueError`` here; a model errband cannot read
    gives each group's row that error. Without a model there is no fixed
    set of parameter columns (each group's form has its own), so ``model``
    is required.
    """
    if model is None:
        raise TypeError("analyse_dask needs a model: the result's columns are the model's parameters")
    model_text, model_name = errband._read_source(model, "<model>")
    if "\n" not in model_text:
        model_text += "\n"  # text, whatever it holds (not a path)
    function, params = errband._native.model_names(model_text, model_name)
    groups = errband._columns(None, None, by, aggregate)[2]
    if not groups:
        raise ValueError("by: name the columns that split the measurements into series, e.g. by=['callpath', 'metric']")
    missing = [c for c in groups if c not in ddf.columns]
    if missing:
        raise ValueError(f"by: no column {', '.join(repr(c) for c in missing)} in the DataFrame "
                         f"(columns: {', '.join(map(str, ddf.columns))})")
    names = _result_columns(groups, params)
    taken = [c for c in groups if names.count(c) > 1]
    if taken:
        raise ValueError(f"by: the column {taken[0]!r} is named like a column of the result; rename it")
    clash = [c for c in params if names.count(c) > 1 or names.count(c + "_float") > 1]
    if clash:
        raise ValueError(f"the model's parameter {clash[0]!r} is named like a column of the result; rename it")
    meta = _meta({c: ddf.dtypes[c] for c in groups}, params)
    kwargs = dict(thresholds=None if thresholds is None else [str(t) for t in thresholds],
                  at=at, family=family, noise=noise, decimal=int(decimal), x=x, y=y,
                  aggregate=aggregate, max_candidates=int(max_candidates))
    shuffled = ddf.shuffle(on=groups, npartitions=npartitions, shuffle_method=shuffle_method)
    result = shuffled.map_partitions(
        _analyse_partition, model_text, groups, params, y or function, meta, kwargs, meta=meta,
        enforce_metadata=False,
    )
    if sort:
        result = result.sort_values(groups)
    return result


def to_pandas(result: "dd.DataFrame", **compute_kwargs: Any) -> "pd.DataFrame":
    """``result.compute()`` (the rows of :func:`analyse_dask`, in its
    order) with its rows numbered 0..n-1."""
    return result.compute(**compute_kwargs).reset_index(drop=True)
