"""Loading, validating, writing and running scenarios.

A scenario can be given as a path to a TOML file, TOML text, or a dict with the same
layout as the TOML file (see ``atmsim schema`` for the JSON Schema).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Union

from . import _core
from .result import RunResult

ScenarioLike = Union[str, os.PathLike, dict]


def _looks_like_path(s: str) -> bool:
    return "\n" not in s and (s.endswith(".toml") or os.path.exists(s))


def load_scenario(scenario: ScenarioLike) -> dict[str, Any]:
    """Returns the scenario as a dict (parsing TOML files or text; dicts are copied).

    Raises :class:`atmsim.ScenarioError` for malformed TOML, unknown keys or bad units.
    """
    if isinstance(scenario, dict):
        return json.loads(json.dumps(scenario))
    if isinstance(scenario, os.PathLike) or (isinstance(scenario, str) and _looks_like_path(scenario)):
        path = Path(scenario)
        try:
            text = path.read_text()
        except OSError as e:
            raise FileNotFoundError(f"cannot read scenario file {str(path)!r}: {e.strerror}") from None
    elif isinstance(scenario, str):
        text = scenario
    else:
        raise TypeError(f"a scenario is a path, TOML text or a dict, not {type(scenario).__name__}")
    return json.loads(_core.toml_to_json(text))


class InternalError(RuntimeError):
    """The engine hit a bug (a Rust panic). ``scenario_path`` is a file holding the scenario
    that triggered it, for the bug report."""

    def __init__(self, message: str, scenario_path: str | None = None):
        super().__init__(message)
        self.scenario_path = scenario_path


def _internal_error(e: BaseException, sc: Any) -> InternalError:
    """An engine panic as :class:`InternalError`, the scenario saved to a file (issue 18)."""
    import tempfile

    path = None
    try:
        fd, path = tempfile.mkstemp(prefix="atmsim-bug-", suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(sc, f, indent=1)
    except (OSError, TypeError, ValueError):
        path = None
    where = f"; the scenario is saved in {path} for the bug report" if path else ""
    return InternalError(f"{e}{where}", path)


def validate(scenario: ScenarioLike) -> dict[str, Any]:
    """Checks a scenario without running it; returns what it holds (counts and routes).

    Raises :class:`atmsim.ScenarioError` naming the key, the value and what is allowed.
    """
    sc = load_scenario(scenario)
    try:
        return json.loads(_core.validate(json.dumps(sc), toml=False))
    except _core.InternalError as e:
        raise _internal_error(e, sc) from None


def run(scenario: ScenarioLike, *, max_events: int | None = None, max_wall: float | None = None) -> RunResult:
    """Runs a scenario to its end and returns a :class:`RunResult`.

    The simulation runs in Rust with the GIL released. Cell conservation is checked at the
    end of every run; a violation raises :class:`atmsim.InvariantError`.

    ``max_events`` (events) and ``max_wall`` (seconds of wall-clock time) bound the run: past
    either, it stops cleanly and returns the results up to the simulated time reached, with
    ``result.partial`` (and ``summary["partial"]``) saying why. An engine bug raises
    :class:`atmsim.InternalError` with the scenario saved to a file.
    """
    if max_events is not None and (isinstance(max_events, bool) or not isinstance(max_events, int) or max_events < 1):
        raise ValueError(f"max_events = {max_events!r}: give a whole number >= 1")
    if max_wall is not None and (isinstance(max_wall, bool) or not isinstance(max_wall, (int, float))
                                 or not 0 < max_wall < 1e9):
        raise ValueError(f"max_wall = {max_wall!r}: give seconds, above 0 and below 1e9")
    sc = load_scenario(scenario)
    try:
        text = _core.run_json(json.dumps(sc), max_events=max_events, max_wall=max_wall)
    except _core.InternalError as e:
        raise _internal_error(e, sc) from None
    return RunResult(json.loads(text), sc)


def max_min(scenario: ScenarioLike):
    """The max-min fair share of every connection (seed 003 section 3), as a DataFrame
    with columns ``name`` and ``fair_share_bps`` (NaN for CBR/VBR and request/response
    connections, which are outside the allocation).

    Water-filling over the routes, honouring MCRs, demand caps (PCR, permanent rate caps)
    and the capacity each link leaves after CBR and VBR mean rates. Multiply by an ERICA
    target utilization to get ERICA's target rates.
    """
    import pandas as pd

    sc = load_scenario(scenario)
    return pd.DataFrame(json.loads(_core.max_min_json(json.dumps(sc))))


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items() if x is not None) + " }"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


def to_toml(scenario: dict[str, Any]) -> str:
    """Writes a scenario dict as a TOML file's text (tables, then arrays of tables)."""
    out: list[str] = []
    for k, v in scenario.items():
        if v is not None and not isinstance(v, (dict, list)):
            out.append(f"{k} = {_toml_value(v)}")
    for k, v in scenario.items():
        if isinstance(v, dict):
            out.append(f"\n[{k}]")
            out += [f"{kk} = {_toml_value(vv)}" for kk, vv in v.items() if vv is not None]
    for k, v in scenario.items():
        if isinstance(v, list):
            for item in v:
                out.append(f"\n[[{k}]]")
                out += [f"{kk} = {_toml_value(vv)}" for kk, vv in item.items() if vv is not None]
    return "\n".join(out) + "\n"
