"""Type stubs for ``atmsim._core``, the PyO3 extension (crates/atmsim-py/src/lib.rs).

Scenarios go in as TOML or JSON text and results come back as JSON text, or with
``columns=True`` as a JSON head (summary, connections, ports, the series' names) and the time
series as columns of raw little-endian numbers (:data:`Columns`); the Python modules
(:mod:`atmsim.scenario`, :mod:`atmsim.result`) wrap these in dicts, NumPy arrays and DataFrames.
"""

from typing import Any, Callable, Literal, Optional, overload

#: ``[(name, dtype, bytes), ...]``: one column per series, dtype ``"<f8"`` or ``"<i8"``,
#: flattened entity by entity (``[entity][sample]``); ``time_s`` among them.
Columns = list[tuple[str, str, bytes]]

class ScenarioError(ValueError):
    """A malformed or inconsistent scenario. The message names the key, the value and what is allowed."""

class MemoryLimitError(ScenarioError):
    """A scenario that does not fit the memory limit: refused before it starts (it needs more than the limit
    before any cell moves), or stopped as its queues and delay lines outgrew the limit. The message names the
    estimate or the growth, the limit, and the keys or the port that drive it."""

class EngineSettingError(ValueError):
    """An environment variable that tunes the engine (ATMSIM_CACHE_HINTS) holds a value it does not take.
    The message names the variable, the value and what is allowed."""

class InvariantError(RuntimeError):
    """An internal invariant (such as cell conservation) failed: a bug in atmsim."""

class InternalError(RuntimeError):
    """The engine hit a bug (a Rust panic). The message says where; please report it with the scenario."""

def check_environment() -> None:
    """Checks ATMSIM_CACHE_HINTS and ATMSIM_MEMORY_LIMIT before a batch of runs: raises
    :class:`EngineSettingError` or :class:`MemoryLimitError` naming the variable, the value and
    what is allowed."""

def run_toml(text: str) -> str:
    """Runs a scenario given as TOML text; returns the result as JSON text."""

def scenario_json(obj: Any) -> str | None:
    """A scenario dict as compact JSON text, written in one pass, or None if it holds anything
    but plain JSON data (dicts with str keys, lists, tuples, str, 64-bit int, finite float,
    bool, None, of exactly those types): ``json.dumps`` then decides."""

def run_counts(text: str, run: bool = True) -> tuple[int, int, int, int]:
    """Runs with results and series off; (cell-hops, events, cells sent, cells dropped).
    ``run=False``: set-up only."""
    ...
@overload
def run_json(text: str, max_events: Optional[int] = None, max_wall: Optional[float] = None,
             columns: Literal[False] = False) -> str: ...
@overload
def run_json(text: str, max_events: Optional[int] = None, max_wall: Optional[float] = None, *,
             columns: Literal[True]) -> tuple[str, Columns]:
    """Runs a scenario given as JSON text; returns the result as JSON text, or with
    ``columns`` as ``(head_json, columns)``. ``max_events`` and ``max_wall`` bound the run."""

@overload
def run_json_watched(text: str, progress: Optional[Callable[[float, float], object]] = None,
                     max_events: Optional[int] = None, max_wall: Optional[float] = None,
                     trace_sink: Optional[object] = None, columns: Literal[False] = False) -> str: ...
@overload
def run_json_watched(text: str, progress: Optional[Callable[[float, float], object]] = None,
                     max_events: Optional[int] = None, max_wall: Optional[float] = None,
                     trace_sink: Optional[object] = None, *, columns: Literal[True]) -> tuple[str, Columns]:
    """Like :func:`run_json`, but every ~50 ms of wall time checks for signals (Ctrl-C raises
    ``KeyboardInterrupt``) and calls ``progress(simulated_seconds, duration_seconds)``; ``max_events`` and
    ``max_wall`` bound the run as for ``run_json``. With ``trace_sink`` (an object with
    ``begin(ports, connections)`` and ``write(kind, rows_bytes)``, such as
    :class:`atmsim.trace.TraceWriter`), the scenario's ``[trace]`` table is recorded into it
    (not with a budget). ``columns`` as for :func:`run_json`."""

def trace_kinds() -> list[tuple[str, str, list[tuple[str, str, list[str], str]]]]:
    """The per-event trace kinds: ``[(name, doc, [(column, type, labels, doc), ...]), ...]``."""

def memory_limit(available_if_bad: bool = False) -> tuple[int, str] | None:
    """The memory limit runs are held to here, ``(bytes, where it came from)``, or None:
    ``ATMSIM_MEMORY_LIMIT``, else ``MemAvailable``. A variable that is not a size raises
    ScenarioError, or with ``available_if_bad`` is read as unset."""

def validate(text: str, toml: bool = True) -> str:
    """Validates a scenario (TOML text if ``toml``, else JSON); returns a JSON summary
    (name, nodes, ports, connections, duration_s, routes)."""

def max_min_json(text: str) -> str:
    """The max-min fair share of each connection: JSON list of {name, fair_share_bps}."""

def fair_share_phases_json(text: str) -> str:
    """The fair shares per phase (connections starting, stopping, caps ending): JSON list of
    {start_s, end_s, shares: [{name, max_min_bps, gw_bps}]}."""

def toml_to_json(text: str) -> str:
    """Converts a TOML scenario to the equivalent JSON (the dict form)."""

def normal_json(text: str) -> str:
    """A JSON scenario as the engine reads it, written back as JSON (every key in one order,
    every quantity one way): what a scenario's digest hashes. Raises ScenarioError."""

def json_schema() -> str:
    """The JSON Schema of scenario files."""

def policies() -> list[tuple[str, str]]:
    """Names and one-line descriptions of the drop policies."""

def registry() -> list[tuple[str, str, list[tuple[str, str]]]]:
    """Every extension point of the engine with its registered implementations:
    ``[(title, key, [(name, doc), ...]), ...]``, from the one registry in Rust."""

def summary_fields() -> list[str]:
    """The fields of a run's summary, sorted (the sweep results' metric columns)."""

def bench_kvr(vcs: int, rm_cells: int) -> float:
    """ns per forward RM cell of the KVR allocator with ``vcs`` open connections."""

def version() -> str:
    """The engine version."""
