"""Type stubs of errband.dask (needs the `dask` extra)."""

from fractions import Fraction
from typing import Any, Iterable, Mapping, Optional, Union

import dask.dataframe as dd
import pandas as pd

from . import PathOrText

def analyse_dask(
    ddf: dd.DataFrame,
    model: PathOrText,
    by: Union[str, Iterable[str]],
    *,
    thresholds: Optional[Iterable[str]] = None,
    at: Union[None, str, Mapping[str, Any], Iterable[Union[str, Mapping[str, Any]]]] = None,
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
) -> dd.DataFrame: ...
def to_pandas(result: dd.DataFrame, **compute_kwargs: Any) -> pd.DataFrame: ...
def model_params(model: PathOrText) -> list[str]: ...
