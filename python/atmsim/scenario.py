"""Loading, validating, writing and running scenarios.

A scenario can be given as a path to a TOML file, TOML text, or a dict with the same
layout as the TOML file (see ``atmsim schema`` for the JSON Schema).
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path
from typing import Any, Optional, Union

from . import _core
from . import trace as _trace
from .result import RunResult, json_loads, path_argument, paused_gc

ScenarioLike = Union[str, os.PathLike, dict]


def _looks_like_path(s: str) -> bool:
    """Whether a string names a file rather than holding TOML text: one line that ends in
    ``.toml``, names something that exists, or (holding no ``=`` and no ``[``, so no key and
    no table) cannot be a scenario's TOML text: a mistyped ``"base.tml"`` is a missing file,
    not a TOML syntax error."""
    if "\n" in s or is_json_text(s):
        return False
    return s.endswith(".toml") or os.path.exists(s) or (bool(s.strip()) and "=" not in s and "[" not in s)


def utf8_text(data: bytes, what: str, error: type = _core.ScenarioError) -> str:
    """The text of a file's bytes ``data`` (``what``: "scenario file 'x.toml'"), which must be
    UTF-8; anything else raises ``error`` naming the file, the first bad byte, its place and
    what is allowed, not a bare UnicodeDecodeError."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        pos = e.start
        line = data.count(b"\n", 0, pos) + 1
        column = pos - (data.rfind(b"\n", 0, pos) + 1) + 1
        hint = ""
        if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
            hint = " (it looks like UTF-16)"
        elif b"\0" in data[:1024]:
            hint = " (it looks like a binary file)"
        raise error(f"{what} is not UTF-8 text{hint}: byte 0x{data[pos]:02x} at offset {pos} (line {line}, "
                    f"column {column}) is not valid UTF-8; the file must be UTF-8 text (save it as UTF-8)") from None


#: Bytes of memory the TOML reader takes per byte of a scenario's text, about: a scenario
#: file may hold 1/32 of the memory limit (:func:`scenario_file_cap`).
READER_BYTES_PER_BYTE = 32
#: The least :func:`scenario_file_cap` allows, whatever the memory available.
SCENARIO_FILE_CAP_FLOOR = 64 * 2**20
def memory_limit(available_if_bad: bool = False) -> "tuple[Optional[int], str]":
    """The engine's memory limit here (``atmsim::footprint::limit``) and where it came from:
    ``ATMSIM_MEMORY_LIMIT`` (None for ``"off"``), else ``MemAvailable`` (None where it cannot
    be read). A value of the variable that is not a size raises :class:`ScenarioError` with
    the engine's message, or with ``available_if_bad`` is read as unset."""
    limit = _core.memory_limit(available_if_bad)
    if limit is not None:
        return limit
    variable = os.environ.get("ATMSIM_MEMORY_LIMIT")
    return None, ("MemAvailable in /proc/meminfo" if variable is None else f"ATMSIM_MEMORY_LIMIT = {json.dumps(variable)}")


def scenario_file_cap() -> "tuple[Optional[int], str]":
    """The most bytes a scenario file may hold here, with where the limit came from: 1/32
    (:data:`READER_BYTES_PER_BYTE`) of the engine's memory limit (:func:`memory_limit`), and
    at least :data:`SCENARIO_FILE_CAP_FLOOR`; None (no cap) with ``ATMSIM_MEMORY_LIMIT=off``
    or where the memory available cannot be read. A value of ``ATMSIM_MEMORY_LIMIT`` the
    engine does not take is left to the engine's own message (a run is refused with it,
    validate notes it): the cap then follows ``MemAvailable``."""
    return _cap(*memory_limit(available_if_bad=True))


def _cap(limit: Optional[int], source: str) -> "tuple[Optional[int], str]":
    """:func:`scenario_file_cap` under a memory limit of ``limit`` bytes (None: no limit)."""
    if limit is None:
        return None, source
    return max(limit // READER_BYTES_PER_BYTE, SCENARIO_FILE_CAP_FLOOR), source


def _size(b: int) -> str:
    """Bytes in MiB or GiB, as the engine's memory messages write them."""
    return f"{b / 2**30:.1f} GiB" if b >= 10 * 2**30 else f"{b / 2**20:.1f} MiB"


def _too_large(path: Path, size: str, cap: int, source: str) -> Exception:
    """The error for a scenario file of ``size`` ("3.0 GiB", "more than 64.0 MiB") past ``cap``."""
    return _core.MemoryLimitError(
        f"scenario file {str(path)!r} is {size}: allowed here: at most {_size(cap)} ({cap} bytes), 1/"
        f"{READER_BYTES_PER_BYTE} of the memory limit ({source}), as reading TOML takes about "
        f"{READER_BYTES_PER_BYTE} bytes of memory per byte of text; ATMSIM_MEMORY_LIMIT=\"48 GiB\" (or \"off\") "
        f"sets the limit")


def _read_at_most(stream: Any, n: int) -> bytes:
    """Up to ``n`` bytes of a stream, read in pieces (``read(n)`` would take ``n`` bytes of
    memory at once, however short the stream)."""
    pieces, total = [], 0
    while total < n:
        piece = stream.read(min(16 * 2**20, n - total))
        if not piece:
            break
        pieces.append(piece)
        total += len(piece)
    return b"".join(pieces)


def read_scenario_file(path: Union[str, os.PathLike]) -> str:
    """The text of a scenario file, read once (a pipe or ``/dev/stdin`` can be read only once).

    A file larger than :func:`scenario_file_cap` is refused before it is read, and a stream
    (a pipe, ``/dev/zero``) once it passes the cap, so that neither exhausts the memory.
    Raises FileNotFoundError (any read error, naming the file) or :class:`atmsim.ScenarioError`
    (not UTF-8 text; :class:`atmsim.MemoryLimitError`: too large)."""
    import stat

    path = path_argument(path, "path", "a scenario file's path")
    cap, source = scenario_file_cap()
    try:
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            if cap is not None and stat.S_ISREG(st.st_mode) and st.st_size > cap:
                raise _too_large(path, f"{_size(st.st_size)} ({st.st_size} bytes)", cap, source)
            whole = cap is None or stat.S_ISREG(st.st_mode)  # its size checked: read at once
            data = f.read() if whole else _read_at_most(f, cap + 1)
    except OSError as e:
        raise FileNotFoundError(f"cannot read scenario file {str(path)!r}: {e.strerror}") from None
    if cap is not None and len(data) > cap:
        raise _too_large(path, f"more than {_size(cap)}", cap, source)
    return utf8_text(data, f"scenario file {str(path)!r}")


def is_json_text(text: str) -> bool:
    """Whether a scenario's text is JSON: an object, whose ``{`` no TOML document starts with."""
    return text.lstrip("\ufeff \t\r\n").startswith("{")


def parse_json(text: str, error: type = _core.ScenarioError) -> dict[str, Any]:
    """A scenario's JSON text (an object) as a dict; bad JSON raises ``error`` with its line and
    column."""
    try:
        data = json_loads(text.lstrip("\ufeff"))
    except json.JSONDecodeError as e:
        raise error(f"invalid JSON (line {e.lineno}, column {e.colno}): {e.msg}") from None
    except RecursionError:
        raise error(f"invalid JSON: nested too deeply (objects and arrays more than about "
                    f"{sys.getrecursionlimit()} levels inside each other; a scenario nests a few)") from None
    if not isinstance(data, dict):
        raise error(f"a JSON scenario is an object {{...}}, not {type(data).__name__}")
    return data


def parse_scenario_text(text: str) -> tuple[dict[str, Any], str]:
    """A scenario's text as a dict, with its JSON text (what the engine reads): TOML, or JSON
    (an object with the TOML file's layout, as ``atmsim schema`` describes it)."""
    if is_json_text(text):
        # The dict parsed is new, no one else's: it is not copied again (a JSON round trip
        # of 100 000 VCs took 2 s), and its text is written once.
        data = parse_json(text)
        return data, _json_text(data)
    text = _toml_json(text)
    return json_loads(text), text


def _toml_json(text: str) -> str:
    """A scenario's TOML text as the engine's JSON text; a document nested too deeply for the
    TOML reader (arrays and inline tables inside each other) says so first."""
    try:
        return _core.toml_to_json(text)
    except _core.ScenarioError as e:
        if str(e).startswith("recursion limit exceeded"):
            raise _core.ScenarioError(f"TOML nested too deeply (arrays and inline tables inside each other; "
                                      f"a scenario nests a few): {e}") from None
        raise


def load_scenario(scenario: ScenarioLike) -> dict[str, Any]:
    """Returns the scenario as a dict (parsing TOML files or text; dicts are copied).

    Raises :class:`atmsim.ScenarioError` for malformed TOML, unknown keys or bad units.
    """
    if isinstance(scenario, dict):
        return json_loads(_json_text(scenario))
    text = _scenario_text(scenario)
    if is_json_text(text):
        return parse_json(text)
    return json_loads(_toml_json(text))


def _scenario_text(scenario: "str | os.PathLike") -> str:
    """A scenario's text, TOML or JSON: a file's, read once, or the text given."""
    if isinstance(scenario, os.PathLike) or (isinstance(scenario, str) and _looks_like_path(scenario)):
        return read_scenario_file(scenario)
    if isinstance(scenario, str):
        return scenario
    raise TypeError(f"a scenario is a path, TOML text or a dict, not {type(scenario).__name__}")


def _engine_text(scenario: ScenarioLike) -> "tuple[dict[str, Any] | None, str]":
    """The JSON text the engine reads for ``scenario``, with the dict given (None for a file
    or text: a JSON scenario's dict is let go once its text is written, and a TOML one's
    JSON text is the engine's own; either is decoded from the text only for an engine
    bug's report). Nothing is copied: :func:`validate` and :func:`max_min` only read the
    scenario (a copy and a second encoding of 100 000 VCs took 1.6 s of a 2.4 s
    :func:`validate`, and held a second 0.3 GB dict)."""
    if isinstance(scenario, dict):
        return scenario, _json_text(scenario)
    text = _scenario_text(scenario)
    if is_json_text(text):
        data = parse_json(text)
        del text
        return None, _json_text(data)
    return None, _toml_json(text)


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
            json.dump(sc, f, indent=1, default=plain_value)
    except (OSError, TypeError, ValueError):
        path = None
    where = f"; the scenario is saved in {path} for the bug report" if path else ""
    return InternalError(f"{e}{where}", path)


def validate(scenario: ScenarioLike) -> dict[str, Any]:
    """Checks a scenario without running it; returns what it holds (counts and routes) and
    its memory estimate: ``memory["before_cells_bytes"]`` (ports, tables, end systems, time
    series: a run is refused if this exceeds the memory available),
    ``memory["cells_up_to_bytes"]`` (queued cells and cells in flight, an upper estimate;
    the run watches them as it goes), ``memory["parts"]`` (``what``, ``keys``,
    ``bytes``, ``grows``) and ``memory["refused"]`` (None, or the message a run would be
    refused with now, under this process's memory limit: the scenario is valid either way).
    ``late_connections`` names the connections whose ``start`` is at or after the run's end:
    they send nothing in this run (valid, as in a run cut short to see a transient).

    Raises :class:`atmsim.ScenarioError` naming the key, the value and what is allowed.
    """
    sc, text = _engine_text(scenario)
    return validate_parsed(sc, text)


def validate_parsed(sc: "dict[str, Any] | None", text: str) -> dict[str, Any]:
    """:func:`validate` of a scenario already parsed (:func:`parse_scenario_text`'s dict
    and JSON text, or the dict and :func:`_json_text` of it): the text is not written
    again. ``sc`` may be None (decoded from ``text`` only for an engine bug's report)."""
    try:
        return json_loads(_core.validate(text, toml=False))
    except _core.InternalError as e:
        raise _internal_error(e, sc if sc is not None else json_loads(text)) from None


def run(scenario: ScenarioLike, progress: Optional[bool] = None, *, max_events: Optional[int] = None,
        max_wall: Optional[float] = None, trace: Any = None,
        trace_dir: Union[str, os.PathLike, None] = None) -> RunResult:
    """Runs a scenario to its end and returns a :class:`RunResult`.

    The simulation runs in Rust with the GIL released. About every 50 ms of wall time it
    checks for Ctrl-C (or a notebook's "interrupt kernel"): the run stops and
    ``KeyboardInterrupt`` is raised. Cell conservation is checked at the end of every run;
    a violation raises :class:`atmsim.InvariantError`.

    ``progress``: a progress bar of simulated time with an ETA (tqdm: text in a terminal,
    a widget in a notebook where ipywidgets is installed: ``pip install ipywidgets``, or
    ``pip install "atmsim[notebook]"``; without it, the text bar). ``None`` (the default)
    shows it for runs that last more than a second, ``True`` from the start, ``False``
    never; anything else raises ValueError.

    ``max_events`` (events) and ``max_wall`` (seconds of wall-clock time) bound the run: past
    either, it stops cleanly and returns the results up to the simulated time reached, with
    ``result.partial`` (and ``summary["partial"]``) saying why; its progress bar stays at
    the simulated time reached (a notebook's widget ends unfinished, red). An engine bug
    raises :class:`atmsim.InternalError` with the scenario saved to a file.

    Connections whose ``start`` is at or after the run's end send nothing in it: the run
    warns (:class:`LateConnectionsWarning`, a UserWarning) and names them in
    ``result.late_connections``.

    NumPy scalars in a scenario dict (``np.int64(16)``, ``np.float32(0.9)``) are read as
    their Python values.

    ``trace``: per-event traces (docs/traces.md), replacing the scenario's ``[trace]``
    table: ``True`` (every kind), ``"drop,tcp"``, a list of kinds, or a dict with the
    table's keys (``events``, ``connections``, ``ports``, ``from``, ``to``,
    ``queue_interval``). A scenario's own ``[trace]`` table is recorded too. Rows stream to
    ``<trace_dir>/<kind>.parquet`` (a new temporary directory if not given) in bounded
    memory; ``result.trace("drop")`` reads one back as a DataFrame. Tracing never changes
    the results.
    """
    _check_budget(max_events, max_wall)
    _check_run_args(progress, trace_dir)
    result = _run(scenario, None, progress, max_events, max_wall, trace, trace_dir)
    _warn_notes(result)
    return result


def run_parsed(sc: dict[str, Any], text: str, progress: Optional[bool] = None, *,
               max_events: Optional[int] = None, max_wall: Optional[float] = None, trace: Any = None,
               trace_dir: Union[str, os.PathLike, None] = None) -> RunResult:
    """:func:`run` of a scenario already parsed: :func:`parse_scenario_text`'s dict, which
    no one else holds (the result keeps it as its scenario, not a copy), and its JSON text,
    which is not written again (a second encoding of 100 000 VCs is 0.5-1 s)."""
    _check_budget(max_events, max_wall)
    _check_run_args(progress, trace_dir)
    result = _run(None, (sc, text), progress, max_events, max_wall, trace, trace_dir)
    _warn_notes(result)
    return result


class LateConnectionsWarning(UserWarning):
    """A run holds connections whose ``start`` is at or after its end: they send nothing in
    it (``result.late_connections`` names them)."""


def late_connections_text(names: "list[str]", duration_s: Optional[float] = None, stopped: bool = False) -> str:
    """One line on the connections ``names`` that start at or after the end of a run of
    ``duration_s`` seconds (None: not said) and so send nothing in it: what ``atmsim
    validate`` and ``atmsim run`` print after "note: ", and :func:`run`'s warning.
    ``stopped``: the run was cut short (``max_events``, ``max_wall``) at ``duration_s``."""
    listed = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    they = f"{len(names)} connections start" if len(names) != 1 else "1 connection starts"
    verb = "send" if len(names) != 1 else "sends"
    end = "the time the run stopped" if stopped else "the run's end"
    end += "" if duration_s is None else f" ({duration_s:g} s)"
    return f"{they} at or after {end} and {verb} nothing in this run: {listed}"


class EfficiencyWarning(UserWarning):
    """A run's efficiency came out above 1: its connections do not all cross the one link
    that efficiency refers to, or carry other payloads per cell than the first TCP
    connection (:func:`efficiency_text`)."""


def efficiency_text(summary: dict) -> Optional[str]:
    """One line if ``summary``'s efficiency is above 1, else None: seed 001's efficiency
    compares the total goodput with one link's capacity (``efficiency_rate``) at the first TCP
    connection's payload per cell, so above 1 the connections do not all cross that link,
    or carry other payloads per cell (two reviews found 2.0 for two disjoint host pairs
    through one switch, 9.25 on a mesh, with nothing said; a third, 1.08 for ABR cells and
    TCP on one link)."""
    e = summary.get("efficiency")
    if not isinstance(e, (int, float)) or not e > 1 + 1e-9:
        return None
    rate = summary.get("efficiency_rate_bps")
    rate_text = f"{rate / 1e6:g} Mbps" if isinstance(rate, (int, float)) else "one link's rate"
    return (f"efficiency {e:.4f} is above 1: it compares the total goodput with one link (efficiency_rate = "
            f"{rate_text}) at the first TCP connection's payload per cell, so either the connections do not all "
            f"cross that link or their payloads per cell differ (cell-level traffic, other segment sizes); read "
            f"fairness_maxmin and each connection's fair_share_bps (docs/models/metrics.md)")


def _warn_notes(result: RunResult) -> None:
    """One-line warnings on what a run's figures do not say by themselves: connections
    that start at or after its end (:class:`LateConnectionsWarning`; for a run cut short,
    those that had not started by the time it stopped) and an efficiency above 1
    (:class:`EfficiencyWarning`)."""
    if result.late_connections:
        text = late_connections_text(result.late_connections, result.summary.get("duration_s"),
                                     stopped=bool(result.partial))
        warnings.warn(text, LateConnectionsWarning, stacklevel=3)
    text = efficiency_text(result.summary)
    if text:
        warnings.warn(text, EfficiencyWarning, stacklevel=3)


def _check_run_args(progress: Any, trace_dir: Any) -> None:
    """``progress`` is True, False or None, ``trace_dir`` a path or None: a ValueError or
    TypeError naming the argument, its value and what is allowed."""
    if progress is not None and not isinstance(progress, bool):
        raise ValueError(f"progress = {progress!r}: give True (a bar from the start), False (no bar) or None "
                         f"(a bar for runs longer than a second)")
    if trace_dir is not None:
        path_argument(trace_dir, "trace_dir", "a directory path")


def _check_budget(max_events: Optional[int], max_wall: Optional[float]) -> None:
    if max_events is not None and (isinstance(max_events, bool) or not isinstance(max_events, int)
                                   or not 1 <= max_events < 2**64):
        raise ValueError(f"max_events = {max_events!r}: give a whole number from 1 to 2^64 - 1")
    if max_wall is not None and (isinstance(max_wall, bool) or not isinstance(max_wall, (int, float))
                                 or not 0 < max_wall < 1e9):
        raise ValueError(f"max_wall = {max_wall!r}: give seconds, above 0 and below 1e9")


def _run(scenario: Optional[ScenarioLike], parsed: "tuple[dict[str, Any], str] | None", progress: Optional[bool],
         max_events: Optional[int], max_wall: Optional[float], trace: Any,
         trace_dir: Union[str, os.PathLike, None]) -> RunResult:
    """:func:`run` of ``scenario``, or of ``parsed`` (a dict and its JSON text; the result
    keeps the dict)."""
    kept: "dict[str, Any] | str"
    if parsed is not None:
        sc, text = parsed
        kept = sc
    else:
        # The result keeps the JSON text, decoded into its scenario when first read: a dict
        # given is not copied, and one parsed here from a file or text is let go before the
        # engine runs (at 100 000 VCs it is 0.3 GB of the run's peak memory).
        sc, text = _run_input(scenario)
        kept = text
    table = _trace.normalize(trace)
    if table is not None:
        sc = {**sc, "trace": table}
        kept = text = _json_text(sc)
    writer = None
    traced = sc.get("trace")
    if traced is not None:
        if max_events is not None or max_wall is not None:
            raise ValueError("trace cannot be combined with max_events or max_wall (a budgeted run "
                             "is not traced); drop one of them")
        _core.validate(text, toml=False)  # a bad [trace] table fails before any file is made
        if trace_dir is None:
            import tempfile

            trace_dir = tempfile.mkdtemp(prefix="atmsim-trace-")
        writer = _trace.TraceWriter(trace_dir, list(traced.get("events", [])))
    name = sc.get("name")
    del sc, traced  # from here the text stands for the scenario (an engine bug's report decodes it)
    try:
        bar = _ProgressBar(name, progress)
        try:
            # Watched with or without a budget, so that Ctrl-C stops every run (issue 18).
            # The time series come back as columns of numbers, not JSON (issue 14, item 3).
            head, columns = _core.run_json_watched(text, bar.update if progress is not False else None,
                                                   max_events=max_events, max_wall=max_wall,
                                                   trace_sink=writer, columns=True)
            result = RunResult.from_columns(head, columns, kept)
            bar.finish(result.summary["duration_s"] if result.partial else None)
        finally:
            bar.close()
    except _core.InternalError as e:
        raise _internal_error(e, kept if isinstance(kept, dict) else json_loads(text)) from None
    finally:
        files = writer.close() if writer is not None else {}
    result.trace_files = dict(files)
    return result


def _run_input(scenario: ScenarioLike) -> tuple[dict[str, Any], str]:
    """What :func:`run` reads of a scenario (a dict given is read, not copied: the result's
    copy is decoded from the JSON text when asked for) and the JSON text the engine runs."""
    if isinstance(scenario, dict):
        return scenario, _json_text(scenario)
    return parse_scenario_text(_scenario_text(scenario))


def plain_value(value: Any) -> Any:
    """``json.dumps``'s ``default=`` for a scenario: a NumPy scalar (``np.int64``,
    ``np.float32``, ``np.bool_``, ...) as its Python value (``.item()``), a NumPy array as a
    list; anything else is not JSON data (the TypeError ``json.dumps`` gives)."""
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):
        return value.tolist()  # a scalar's .tolist() is its .item()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _json_text(sc: dict[str, Any]) -> str:
    """A scenario dict as JSON text: written by the extension in one pass when the dict holds
    only plain JSON data (dicts with str keys, lists, tuples, str, 64-bit int, finite float,
    bool, None; 2.7x faster than ``json.dumps`` at 10 000 VCs), else by ``json.dumps``, whose
    errors and NaN tokens are then what they were; NumPy scalars and arrays in it are written
    as their Python values (:func:`plain_value`). ``json.loads`` of either gives an equal
    dict."""
    text = _core.scenario_json(sc)
    if text is not None:
        return text
    try:
        return json.dumps(sc, default=plain_value)
    except RecursionError:
        raise _core.ScenarioError(f"scenario nested too deeply (dicts and lists more than about "
                                  f"{sys.getrecursionlimit()} levels inside each other; a scenario nests a few)") from None


class _ProgressBar:
    """A tqdm bar of simulated seconds, made on the engine's first progress call (after
    50 ms), so short runs pay nothing. The engine gives the run's duration with each call
    (reading it from the scenario again took a second parse of the whole scenario)."""

    def __init__(self, name: Optional[str], progress: Optional[bool]):
        self.name, self.progress = name, progress
        self.bar: Any = None

    def update(self, simulated_s: float, duration_s: float) -> None:
        if self.bar is None:
            tqdm = progress_bar_class()
            self.bar = tqdm(
                total=duration_s,
                desc=self.name or "run",
                unit="s",
                delay=0.0 if self.progress else 1.0,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.3g}/{total:.3g} s simulated "
                "[{elapsed}<{remaining}]",
            )
        self.bar.update(simulated_s - self.bar.n)

    def finish(self, reached_s: Optional[float]) -> None:
        """The bar at the end of the run: 100 % for a run that reached its end (``reached_s``
        None), else at the simulated time it reached, short of its total, so that the text bar
        shows how far it got and a notebook's widget ends unfinished (red) when closed."""
        if self.bar is None:
            return
        at = self.bar.total if reached_s is None else min(reached_s, self.bar.total)
        self.bar.update(at - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def progress_bar_class() -> Any:
    """The tqdm class of a run's progress bar: ``tqdm.auto``'s (a widget in a notebook, text
    elsewhere) where ipywidgets can be imported, else the text bar, chosen quietly: without
    ipywidgets, ``tqdm.auto`` in a notebook warns (TqdmWarning "IProgress not found") and
    falls back to the text bar anyway. ``pip install ipywidgets`` (or the ``atmsim[notebook]``
    extra) gives the widget."""
    import importlib.util

    try:
        widgets = importlib.util.find_spec("ipywidgets") is not None
    except (ImportError, ValueError):  # a broken or half-imported package
        widgets = False
    if not widgets:
        from tqdm.std import tqdm

        return tqdm
    from tqdm import TqdmWarning

    with warnings.catch_warnings():  # an ipywidgets too old for tqdm: the same quiet fallback
        warnings.simplefilter("ignore", TqdmWarning)
        from tqdm.auto import tqdm as auto_tqdm
    return auto_tqdm


def max_min(scenario: ScenarioLike):
    """The max-min fair share of every connection (seed 003 section 3), as a DataFrame
    with columns ``name`` and ``fair_share_bps`` (NaN for CBR/VBR and request/response
    connections, and for those that start at or after the run's end, which are outside the
    allocation).

    Water-filling over the routes, honouring MCRs, demand caps (PCR, permanent rate caps)
    and the capacity each link leaves after CBR and VBR mean rates. Multiply by an ERICA
    target utilization to get ERICA's target rates.
    """
    import pandas as pd

    return pd.DataFrame(json.loads(_core.max_min_json(_engine_text(scenario)[1])))


def _is_numpy(v: Any) -> bool:
    return type(v).__module__ == "numpy"


def _holds_none(v: Any) -> bool:
    """True if ``v`` or anything in it (dicts' values, lists' items) is None or a NumPy
    value (:func:`to_toml` writes neither as it is)."""
    if isinstance(v, dict):
        return any(x is None or _is_numpy(x) or _holds_none(x) for x in v.values())
    if isinstance(v, list):
        return any(x is None or _is_numpy(x) or _holds_none(x) for x in v)
    return False


def _without_none(v: Any) -> Any:
    """``v`` without the dict keys whose value is None and the None items of lists, NumPy
    values as Python's (:func:`plain_value`): ``v`` itself if it holds none (a copy of
    100 000 VCs' scenario was 0.3 GB of the peak and half a second of writing its TOML)."""
    if not _holds_none(v):
        return v
    return _copy_without_none(v)


def _copy_without_none(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _copy_without_none(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [_copy_without_none(x) for x in v if x is not None]
    if _is_numpy(v) and hasattr(v, "tolist"):
        return _copy_without_none(plain_value(v))
    return v


def scenario_sha256(scenario: dict[str, Any]) -> str:
    """The SHA-256 (hex) of a scenario as the engine reads it (:func:`json_sha256` of its
    JSON text). The same scenario gives the same digest whether it came from TOML, JSON or a
    dict, so a saved ``scenario.toml`` can be checked against its ``provenance.json``:
    ``scenario_sha256(atmsim.load_scenario("out/scenario.toml"))``."""
    return json_sha256(_json_text(scenario))


def json_sha256(text: str) -> str:
    """The SHA-256 (hex) of the JSON text the engine makes of a scenario's JSON ``text``:
    every key in one order, every quantity written one way ("0.05 s" as "50 ms"). Read as
    JSON, not TOML: at 100 000 VCs the TOML's reading took 3.8 s and 1.4 GB, the JSON's
    0.56 s and 0.37 GB (issue 14)."""
    import hashlib

    return hashlib.sha256(_core.normal_json(text).encode("utf-8")).hexdigest()


def to_toml(scenario: dict[str, Any]) -> str:
    """Writes a scenario dict as a TOML file's text (with tomli-w; keys whose value is
    ``None`` are left out). Any Unicode text, an emoji in a name included, reads back the
    same. The cyclic garbage collector is paused while it writes (:func:`paused_gc`: its
    passes over a large scenario's containers were much of the time at 100 000 VCs)."""
    import tomli_w

    with paused_gc():
        return tomli_w.dumps(_without_none(scenario))
