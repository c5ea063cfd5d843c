"""Type stubs of the errband Python package."""

import os
from fractions import Fraction
from typing import Any, Iterable, Mapping, Optional, Union

import pandas as pd

__version__: str

PathOrText = Union[str, os.PathLike[str]]

class ErrbandError(Exception):
    """Bad input (a located message with carets) or an impossible analysis.
    ``args`` is ``(message, kind)``."""
    @property
    def kind(self) -> Optional[str]:
        """``"input"`` or ``"analysis"``."""
    @property
    def message(self) -> str: ...

class InputError(ErrbandError):
    """An input errband cannot read (``kind == "input"``)."""

class AnalysisError(ErrbandError):
    """An impossible analysis, or one over a limit (``kind == "analysis"``)."""

_PointArg = Union[None, str, Mapping[str, Any], Iterable[Union[str, Mapping[str, Any]]]]

class Analysis:
    emax: Fraction
    params: dict[str, Fraction]
    @property
    def json(self) -> dict[str, Any]: ...
    @property
    def model_file(self) -> str: ...
    @property
    def variables(self) -> list[str]: ...
    @property
    def rmax(self) -> Optional[Fraction]: ...
    @property
    def remax(self) -> Optional[Fraction]: ...
    @property
    def warnings(self) -> list[str]: ...
    def to_json(self) -> str: ...
    def band_svg(self) -> str: ...
    @property
    def fit(self) -> pd.DataFrame: ...
    @property
    def residuals(self) -> pd.DataFrame: ...
    @property
    def regions(self) -> pd.DataFrame: ...
    @property
    def bands(self) -> pd.DataFrame: ...
    @property
    def families(self) -> pd.DataFrame: ...
    @property
    def family_bands(self) -> pd.DataFrame: ...
    @property
    def holdout(self) -> pd.DataFrame: ...
    @property
    def recommendation(self) -> pd.DataFrame: ...
    @property
    def set_aside(self) -> pd.DataFrame: ...
    @property
    def pruned(self) -> pd.DataFrame: ...
    def summary(self) -> str: ...
    def predict(self, **point: Any) -> pd.DataFrame: ...
    def band(self, **point: Any) -> dict[str, tuple[Optional[Fraction], Optional[Fraction]]]: ...
    def _repr_html_(self) -> str: ...

class _Document:
    json: dict[str, Any]
    def to_json(self) -> str: ...

class Experiment(_Document):
    @property
    def series(self) -> pd.DataFrame: ...
    def analysis(self, callpath: str, metric: str = "time") -> Analysis: ...
    def _repr_html_(self) -> str: ...

class CommandResult(_Document):
    verdict: str
    @property
    def candidates(self) -> pd.DataFrame: ...

class EnergyResult(_Document):
    charts: dict[str, str]
    @property
    def predictions(self) -> pd.DataFrame: ...
    @property
    def regions(self) -> pd.DataFrame: ...
    def _repr_html_(self) -> str: ...

class BarrierResult(_Document):
    chart: str
    conclusions: list[str]
    @property
    def rows(self) -> pd.DataFrame: ...
    def _repr_html_(self) -> str: ...

class MsResult(_Document):
    chart: str
    @property
    def runs(self) -> pd.DataFrame: ...
    def _repr_html_(self) -> str: ...

class QeResult(_Document):
    @property
    def vertices(self) -> pd.DataFrame: ...

def analyse_series(
    model: Optional[PathOrText] = None,
    data: Union[None, PathOrText, pd.DataFrame] = None,
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
) -> Analysis: ...
def analyse_experiment(
    model: Optional[PathOrText] = None,
    data: Union[None, PathOrText, pd.DataFrame] = None,
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
) -> Experiment: ...
def analyse(
    model: Optional[PathOrText] = None,
    data: Union[None, PathOrText, pd.DataFrame] = None,
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
) -> Union[Analysis, Experiment]: ...
def check(
    model: Union[None, PathOrText, Analysis, Experiment, Mapping[str, Any]] = None,
    data: Union[None, PathOrText, pd.DataFrame] = None,
    new: Union[None, PathOrText, pd.DataFrame, Iterable[Any]] = None,
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
) -> pd.DataFrame:
    """New measurements against the recommended band at their scale
    (``errband check``): one row per measurement with its verdict;
    ``df.attrs["failed"]`` and ``df.attrs["summary"]``."""
def prune(
    model: PathOrText,
    data: Union[PathOrText, pd.DataFrame],
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
) -> CommandResult: ...
def plan(
    model: PathOrText,
    data: Union[PathOrText, pd.DataFrame],
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
) -> CommandResult: ...
def energy(
    profile: Union[PathOrText, pd.DataFrame],
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
) -> EnergyResult: ...
def barrier(
    nodes: Union[str, Iterable[int]] = "2..30",
    per_chassis: int = 3,
    root_fanout: Optional[int] = None,
    inter_fanout: Optional[int] = None,
    t_ib: str = "3.86us",
    t_sr: Union[str, Iterable[str]] = "60us,120us",
    mpi: Optional[str] = None,
    mpi_model: Optional[PathOrText] = None,
    mpi_data: Union[None, PathOrText, pd.DataFrame] = None,
    conclude_at: Iterable[int] = (),
    time_unit: str = "us",
    thresholds: Optional[Iterable[str]] = None,
    noise: Union[str, Fraction, float] = "5%",
    decimal: int = 6,
) -> BarrierResult: ...
def ms(
    tasks: Union[PathOrText, pd.DataFrame],
    grid: Union[str, Iterable[int]],
    procs: Union[str, Iterable[int]] = "8..128:8",
    loggp: str = "",
    k_in: str = "16B",
    k_out: str = "8B",
    ratio: Union[str, int, Fraction] = "1",
    speeds: Union[None, PathOrText, pd.DataFrame] = None,
    task_order: Union[None, PathOrText, pd.DataFrame] = None,
    no_p1_recv: bool = False,
    compare_subsets: Iterable[str] = (),
    time_unit: str = "us",
    max_tasks: Optional[int] = None,
    decimal: int = 6,
) -> MsResult: ...
def qe(problem: PathOrText) -> QeResult: ...
