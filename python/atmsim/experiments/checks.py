"""Checks shared by every reproduction: one shape of verdict row, one way to judge a
number against a published one, and a declarative :class:`Check` that is written next to
the claim it tests.

A comparison row is ``experiment, case, metric, published, simulated, verdict``; the
verdict is ``pass``, ``fail`` or ``info`` (shown, not judged).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

import pandas as pd

COLUMNS = ["experiment", "case", "metric", "published", "simulated", "verdict"]


def verdict(ok: bool | None) -> str:
    """``pass`` / ``fail``, or ``info`` for a number shown but not judged (``None``)."""
    return "info" if ok is None else ("pass" if ok else "fail")


def row(experiment: str, case: str, metric: str, published: Any, simulated: Any, ok: bool | None) -> dict[str, Any]:
    """One comparison row."""
    return {"experiment": experiment, "case": case, "metric": metric, "published": published,
            "simulated": simulated, "verdict": verdict(ok)}


def frame(rows: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """The comparison table of a reproduction."""
    return pd.DataFrame(list(rows), columns=COLUMNS)


def rounded(x: Any) -> float:
    """A simulated number as the claim-judging reproductions print it (6 decimals)."""
    return round(float(x), 6)


def within_rel(simulated: float, published: float, tol: float) -> bool:
    """|simulated / published - 1| <= tol."""
    return bool(abs(simulated / published - 1) <= tol)


def within_abs(simulated: float, published: float, tol: float) -> bool:
    """|simulated - published| <= tol."""
    return bool(abs(simulated - published) <= tol)


def within_factor(simulated: float, published: float, factor: float) -> bool:
    """published / factor <= simulated <= published x factor."""
    return bool(published / factor <= simulated <= published * factor)


@dataclass(frozen=True)
class Check:
    """One claim of a seed turned into a measured, judged number.

    ``value``, ``published`` (when callable) and ``ok`` read the run's measurements ``m``;
    ``ok`` gets the value too. ``scale`` only changes how the value is shown (e.g. s -> ms),
    never what is judged. ``needs`` names other cases the check compares with: without
    them the check is skipped.
    """

    metric: str | Callable[[Any], str]
    published: Any
    value: Callable[[Any], float]
    ok: Callable[[Any, float], bool | None]
    scale: float = 1.0
    needs: tuple[str, ...] = ()

    def evaluate(self, experiment: str, case: str, m: Any) -> dict[str, Any]:
        v = self.value(m)
        metric = self.metric(m) if callable(self.metric) else self.metric
        pub = self.published(m) if callable(self.published) else self.published
        return row(experiment, case, metric, pub, rounded(v * self.scale), self.ok(m, v))

    def rows(self, experiment: str, case: str, m: Any) -> list[dict[str, Any]]:
        return [self.evaluate(experiment, case, m)]


@dataclass(frozen=True)
class ForEach:
    """The same check on every item (e.g. every source) the run has: ``make(item)``."""

    items: Callable[[Any], list[str]]
    make: Callable[[str], Check]
    needs: tuple[str, ...] = ()

    def rows(self, experiment: str, case: str, m: Any) -> list[dict[str, Any]]:
        return [self.make(i).evaluate(experiment, case, m) for i in self.items(m)]


def run_checks(checks: Iterable[Check | ForEach], experiment: str, case: str, m: Any,
               have: Callable[[str], bool]) -> list[dict[str, Any]]:
    """The rows of ``checks`` on one case, skipping those whose ``needs`` did not run."""
    out: list[dict[str, Any]] = []
    for c in checks:
        if all(have(n) for n in c.needs):
            out += c.rows(experiment, case, m)
    return out
