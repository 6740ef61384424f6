"""Measurements shared by every reproduction: one definition each of "steady state",
"settled", "reached", a queue peak in a window, a spread, a slope and Jain's fairness.

The seeds use these words loosely ("converges", "stabilizes", "steady"); atmsim reads each
of them one way, here, so that two reproductions never judge the same word differently.
"""

from __future__ import annotations

from typing import Iterable, Mapping

import numpy as np
import pandas as pd

#: Steady state is the last 30 % of a run (t > STEADY x duration) unless a check says otherwise.
STEADY = 0.7


def steady(df: pd.DataFrame, duration: float, start: float = STEADY) -> pd.DataFrame:
    """The rows of a long-form series (column ``time_s``) in the steady part of a run."""
    return df[df["time_s"] > start * duration]


def window(series: pd.Series, t0: float = 0.0, t1: float = 1e9) -> pd.Series:
    """The samples of a time-indexed series with t0 < t <= t1."""
    return series[(series.index > t0) & (series.index <= t1)]


def window_max(series: pd.Series, t0: float = 0.0, t1: float = 1e9) -> float:
    """The largest sample of a time-indexed series with t0 < t <= t1."""
    return float(window(series, t0, t1).max())


def settle_time(wide: pd.DataFrame, sources: Iterable[str], target: Mapping[str, float] | float, tol: float,
                after: float = 0.0, until: float = 1e9) -> float:
    """How long after ``after`` the rates take to settle: the last sample time in
    (after, until] at which any of ``sources`` is more than ``tol`` x its target away from
    its target, minus ``after``; 0 if none ever is.

    ``wide`` is indexed by time with one column per source (e.g. ACR in Mb/s). This is the
    one definition of "settled" (converged, stabilized) of every reproduction.
    """
    a = wide[(wide.index > after) & (wide.index <= until)]
    last = after
    for s in sources:
        tgt = target[s] if isinstance(target, Mapping) else target
        bad = a.index[~((a[s] - tgt).abs() <= tol * tgt)]  # a missing rate (NaN) has not settled
        if len(bad):
            last = max(last, float(bad.max()))
    return last - after


def first_reach(series: pd.Series, level: float) -> float:
    """The first sample time at which a time-indexed series is >= ``level``; NaN if never."""
    hit = series.index[series >= level]
    return float(hit.min()) if len(hit) else float("nan")


def spread(values) -> float:
    """(max - min) / mean: 0 for equal values."""
    v = pd.Series(values, dtype=float) if not isinstance(values, pd.Series) else values
    return float((v.max() - v.min()) / v.mean())


def slope(series: pd.Series) -> float:
    """Change per second between the first and the last sample of a time-indexed series."""
    return float((series.iloc[-1] - series.iloc[0]) / (series.index[-1] - series.index[0]))


def jain(x) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2); 0 when everything is 0."""
    x = np.asarray(x, dtype=float)
    total = float(x.sum())
    return float(total**2 / (len(x) * (x**2).sum())) if total > 0 else 0.0


def wide(long: pd.DataFrame, column: str, by: str = "source") -> pd.DataFrame:
    """A long-form series (``time_s``, ``by``, ``column``) as a time-indexed frame, one column per ``by``."""
    return long.pivot(index="time_s", columns=by, values=column)
