"""Results of a run as pandas DataFrames, with writers and a standard plot.

The engine hands its time series over as columns of raw numbers (``_core.run_json(...,
columns=True)``), kept here as NumPy arrays (:class:`Series`); the long-format DataFrames
are built from them when first asked for, without a Python loop per value (issue 14,
item 3). :func:`pack` and :func:`unpack` carry a result between processes the same way.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import html
import json
import os
import threading
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Optional, Union

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import pandas as pd
    from matplotlib.figure import Figure


#: :func:`paused_gc`'s state: how many pauses are under way (threads may pause at once) and
#: whether the collector was on when the first began.
_gc_lock = threading.Lock()
_gc_pauses = 0
_gc_was_enabled = False


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector off while a large tree of new dicts and lists (a
    scenario of 100 000 VCs: 2 million objects, no cycles among them) is made or walked,
    then on again if it was: each of its passes walks every container made so far, and
    they made building a scenario, decoding its JSON and writing its TOML grow faster than
    the scenario (100 000 VCs: ``n_source`` 1.07 s, 0.4 s without them). Nothing but the
    time changes. Pauses in several threads at once are counted: the collector is on again
    when the last ends (if it was on when the first began), never left off. Also a decorator
    (``@paused_gc()``: each call pauses anew)."""
    global _gc_pauses, _gc_was_enabled
    with _gc_lock:
        if _gc_pauses == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_pauses += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_was_enabled:
                gc.enable()


def _gc_after_fork() -> None:
    """A child forked during a pause (in another thread) does not inherit it: the pause
    never ends there. Its collector is as it was before the pause."""
    global _gc_lock, _gc_pauses
    _gc_lock = threading.Lock()
    if _gc_pauses:
        _gc_pauses = 0
        if _gc_was_enabled:
            gc.enable()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_gc_after_fork)


def json_loads(text: "str | bytes") -> Any:
    """``json.loads`` of a large text (a scenario, a result), the collector paused."""
    with paused_gc():
        return json.loads(text)


def path_argument(value: Any, name: str, what: str = "a file path") -> Path:
    """``value`` of the path argument ``name`` as a Path: a str or os.PathLike, else a
    one-line TypeError naming the argument, the value and what is allowed (not pathlib's
    "expected str, bytes or os.PathLike object")."""
    if isinstance(value, (str, os.PathLike)):
        return Path(value)
    text = repr(value)
    text = text if len(text) <= 60 else text[:55] + " ..."
    raise TypeError(f"{name} = {text}: give {what} (str or os.PathLike, e.g. pathlib.Path), "
                    f"not {type(value).__name__}")


def _files_saved_before(out: Path) -> set[str]:
    """The files an earlier :meth:`RunResult.save` wrote in ``out``, as its
    ``provenance.json`` lists them (empty if none is there, or it lists none)."""
    try:
        files = json.loads((out / "provenance.json").read_text()).get("files", [])
    except (OSError, ValueError, AttributeError):
        return set()
    return {f for f in files if isinstance(f, str) and (f in RunResult.SAVED_FILES or _is_trace_name(f))}


def _is_trace_name(name: str) -> bool:
    """``traces/<kind>.parquet``, a trace file a save copies (no other folder)."""
    parts = name.split("/")
    return len(parts) == 2 and parts[0] == "traces" and parts[1].endswith(".parquet") and parts[1] not in ("", ".", "..")


def _remove_stale(out: Path, names: set[str]) -> None:
    """Removes ``names`` (files an earlier save wrote in ``out`` and this one did not) so
    that the folder holds one run: a review found an ABR run's series and plot beside a
    later TCP run's tables. Only files a save recorded are removed, never another's."""
    for name in sorted(names):
        path = out / name
        if path.parent.resolve() in (out.resolve(), (out / "traces").resolve()):
            path.unlink(missing_ok=True)
    traces = out / "traces"
    if traces.is_dir() and not any(traces.iterdir()):
        traces.rmdir()


@functools.lru_cache(maxsize=1)
def _source_commit() -> str:
    """The git commit of atmsim's source tree, once per process (two git calls):
    :func:`atmsim.experiments.provenance.git_commit`."""
    from .experiments.provenance import git_commit

    return git_commit()


def run_provenance(scenario_sha256: str, created: str, command: Optional[list[str]] = None) -> dict[str, Any]:
    """What made a run's numbers, as a reproduction's ``provenance.json`` records it: the
    atmsim version, the git commit of the source tree (``"<sha>"``, ``"<sha>+dirty"`` when
    modified, ``"unknown"`` outside git; :func:`atmsim.experiments.provenance.git_commit`)
    and ``git_dirty`` (None when unknown), when the run's result was made (``created``, UTC,
    ISO 8601), the command line (``command``; default ``sys.argv``), Python, the platform,
    NumPy and pandas, and ``scenario_sha256`` (given: :func:`atmsim.scenario.scenario_sha256`)."""
    import platform
    import sys

    import numpy
    import pandas

    from . import __version__

    commit = _source_commit()
    return {
        "atmsim_version": __version__,
        "git_commit": commit,
        "git_dirty": None if commit == "unknown" else commit.endswith("+dirty"),
        "created": created,
        "command_line": list(sys.argv if command is None else command),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(),
        "numpy": numpy.__version__,
        "pandas": pandas.__version__,
        "scenario_sha256": scenario_sha256,
    }


#: The three long-format series: attribute -> (entity column, names key, [(column, engine column)]).
SERIES: dict[str, tuple[str, str, list[tuple[str, str]]]] = {
    "port_series": ("port", "port_names", [(c, c) for c in (
        "queue_cells", "max_queue_cells", "utilization", "data_utilization", "vbr_utilization")]),
    "connection_series": ("connection", "connection_names", [(c, c) for c in (
        "cwnd_bytes", "cells_received", "delivered_bytes")]),
    "abr_series": ("source", "abr_names", [("acr_mbps", "acr_mbps"), ("cells_received", "abr_cells_received")]),
}
#: Engine columns holding integers (the others are floats).
_INT_COLUMNS = {"queue_cells", "max_queue_cells", "cwnd_bytes", "cells_received", "delivered_bytes",
                "abr_cells_received"}
_NAMES = {names: attr for attr, (_, names, _) in SERIES.items()}


class Series:
    """A run's time series as flat NumPy columns (issue 14, item 3): ``time_s``, the names
    of the ports, connections and ABR sources, and one array per engine column flattened
    entity by entity (``[entity][sample]``, the long format's row order)."""

    def __init__(self, time_s: "np.ndarray", names: dict[str, list[str]], columns: dict[str, "np.ndarray"]):
        self.time_s, self.names, self.columns = time_s, names, columns

    @classmethod
    def from_json(cls, ts: dict[str, Any]) -> "Series":
        """From the engine's JSON ``timeseries`` (lists of lists)."""
        import numpy as np

        names = {k: list(ts.get(k, [])) for k in _NAMES}
        cols = {}
        for _, _, pairs in SERIES.values():
            for _, c in pairs:
                cols[c] = np.asarray(ts.get(c, []), dtype=np.int64 if c in _INT_COLUMNS else np.float64).ravel()
        return cls(np.asarray(ts.get("time_s", []), dtype=np.float64), names, cols)

    @classmethod
    def from_columns(cls, names: dict[str, list[str]], columns: "dict[str, Any]") -> "Series":
        """From the engine's columns (``{name: array}``, ``time_s`` among them)."""
        cols = dict(columns)
        return cls(cols.pop("time_s"), {k: list(names.get(k, [])) for k in _NAMES}, cols)

    def select(self, keep: dict[str, Any]) -> "Series":
        """Only the entities named in ``keep`` (``{"port": [names] | None, "connection": ...,
        "source": ...}``; a kind left out or None keeps all of its entities, ``[]`` none)."""
        import numpy as np

        n = len(self.time_s)
        names, cols = dict(self.names), dict(self.columns)
        for key, names_key, pairs in SERIES.values():
            wanted = keep.get(key)
            if wanted is None:
                continue
            have, wanted = self.names[names_key], set(wanted)
            idx = [i for i, x in enumerate(have) if x in wanted]
            names[names_key] = [have[i] for i in idx]
            for _, c in pairs:
                cols[c] = np.ascontiguousarray(self.columns[c].reshape(len(have), n)[idx].ravel())
        return Series(self.time_s, names, cols)

    def long(self, attr: str) -> "pd.DataFrame":
        """One of :data:`SERIES` as a long-format DataFrame, built without a Python loop
        per value: the same columns, dtypes and values as the JSON lists gave."""
        import numpy as np
        import pandas as pd

        key, names_key, pairs = SERIES[attr]
        names = self.names[names_key]
        n = len(self.time_s)
        if not names or not n:  # as the JSON path made it: empty lists, object columns
            return pd.DataFrame({"time_s": [], key: [], **{out: [] for out, _ in pairs}})
        # The entity column: the names' own inferred dtype (str, or object before pandas 3)
        # repeated by a take, not a Python list of n x len(names) strings.
        labels = pd.Series(names).array.take(np.repeat(np.arange(len(names)), n))
        data: dict[str, Any] = {"time_s": np.tile(self.time_s, len(names)), key: labels}
        for out, c in pairs:
            data[out] = self.columns[c]
        return pd.DataFrame(data)

    def as_json(self) -> dict[str, Any]:
        """The engine's JSON ``timeseries`` form (lists of lists)."""
        n = len(self.time_s)
        ts: dict[str, Any] = {"time_s": self.time_s.tolist(), **{k: list(v) for k, v in self.names.items()}}
        for _, names_key, pairs in SERIES.values():
            m = len(self.names[names_key])
            for _, c in pairs:
                ts[c] = self.columns[c].reshape(m, n).tolist() if m and n else [[] for _ in range(m)]
        return ts


def _rows(table: "list[dict[str, Any]] | dict[str, list[Any]]") -> list[dict[str, Any]]:
    """A table as rows (the engine's JSON form), given as rows or as columns."""
    if isinstance(table, list):
        return table
    return [dict(zip(table, values)) for values in zip(*table.values())]


def _split_columns(columns: "dict[str, Any]") -> "tuple[dict[str, Any], dict[str, Any]]":
    """The engine's columns as (series columns, table columns): a table's are named
    ``table/field[/...]`` (crates/atmsim-py/src/columns.rs)."""
    series = {n: a for n, a in columns.items() if "/" not in n}
    return series, {n: a for n, a in columns.items() if "/" in n}


def _strings(cols: "dict[str, Any]", name: str) -> list[str]:
    """A table's string column: one text joined by NUL, split in one call, or cut at
    ``name/ends`` when a string holds a NUL itself."""
    raw = cols[name].tobytes()
    ends = cols.get(name + "/ends")
    if ends is None:
        return raw.decode("utf-8").split("\0")
    starts = [0] + [int(e) + 1 for e in ends[:-1]]
    return [raw[a:int(b)].decode("utf-8") for a, b in zip(starts, ends)]


def _values(field: dict[str, Any], cols: "dict[str, Any]", name: str, n: int) -> "tuple[Any, Any]":
    """A table field's values (a NumPy array or a list of str; None for a field with only
    nulls) and its validity (a bool array, or None when no row is null)."""
    import numpy as np

    kind = field["kind"]
    if kind == "null":
        return None, np.zeros(n, dtype=bool)
    # The engine's buffers as they are (read-only views): the DataFrame copies them.
    values = _strings(cols, name) if kind == "str" else cols[name]
    valid = np.asarray(cols[name + "/valid"], dtype=bool) if field["nulls"] else None
    return values, valid


def _arrow_str_dtype() -> Any:
    """The dtype pandas gives a column of Python strings when it keeps them in Arrow
    (pandas 3 with pyarrow: ``str``), else None (pandas 1 and 2: ``object``; or the
    options say otherwise). Asked again whenever the options that decide it change."""
    import pandas as pd

    def option(name: str) -> Any:
        try:
            with warnings.catch_warnings():  # pandas 3 deprecates reading infer_string
                warnings.simplefilter("ignore")
                return pd.get_option(name)
        except KeyError:  # an option this pandas does not have (OptionError is a KeyError)
            return None

    return _inferred_str_dtype(pd.__version__, option("future.infer_string"),
                               option("mode.string_storage"))


@functools.lru_cache(maxsize=16)
def _inferred_str_dtype(version: str, infer_string: Any, string_storage: Any) -> Any:
    """``_arrow_str_dtype`` for one pandas version and setting of its string options."""
    import pandas as pd

    dtype = pd.DataFrame({"s": ["a"]}).dtypes["s"]
    return dtype if getattr(dtype, "storage", None) == "pyarrow" else None


def _arrow_strings(raw: Any, n: int, dtype: Any) -> Any:
    """A string column of ``n`` rows with no nulls, given as UTF-8 joined by NUL, as the
    Arrow-backed array pandas makes of the same strings in a list (``dtype``): built from
    the bytes without one Python object per string (at 100 000 VCs, 1.5 million names took
    0.3 s through a list; issue 14). None when the NULs do not cut ``n`` strings."""
    import numpy as np
    import pandas as pd
    import pyarrow as pa

    raw = np.asarray(raw, dtype=np.uint8)
    cuts = np.flatnonzero(raw == 0)
    if n < 1 or len(cuts) != n - 1:
        return None
    data = np.delete(raw, cuts)  # a copy: nothing refers to the engine's buffer
    offsets = np.empty(n + 1, dtype=np.int64)
    offsets[0], offsets[n] = 0, len(data)
    offsets[1:n] = cuts + 1 - np.arange(1, n)  # each cut removed shifts what follows
    strings = pa.LargeStringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(data))
    strings.validate(full=True)  # UTF-8 and offsets checked, as a list of str would be
    return pd.array(strings, dtype=dtype)


def _leaf(field: dict[str, Any], cols: "dict[str, Any]", name: str, n: int) -> Any:
    """One column as pandas inferred it from the JSON list: integers ``int64``, or
    ``float64`` with NaN when some are null; floats ``float64``; only nulls an ``object``
    column of None; strings and booleans with nulls as a list, inferred as before; strings
    without nulls, where pandas keeps strings in Arrow, as that Arrow array made from the
    engine's bytes."""
    import numpy as np

    if field["kind"] == "str" and not field["nulls"] and name + "/ends" not in cols:
        dtype = _arrow_str_dtype()
        strings = None if dtype is None else _arrow_strings(cols[name], n, dtype)
        if strings is not None:
            return strings
    values, valid = _values(field, cols, name, n)
    if values is None:
        return [None] * n
    if valid is None:
        return values
    if field["kind"] in ("int", "float"):
        out = values.astype(np.float64)
        out[~valid] = np.nan
        return out
    items = values if isinstance(values, list) else values.tolist()
    return [v if ok else None for v, ok in zip(items, valid.tolist())]


def _table_frame(spec: dict[str, Any], cols: "dict[str, Any]", table: str) -> "pd.DataFrame":
    """A table's DataFrame from its typed columns: the one the JSON rows made (same values,
    columns and dtypes), a map field (a port's ``drops``) expanded after the other fields
    into ``field_key`` columns in order of first appearance."""
    import pandas as pd

    n, fields = spec["rows"], spec["fields"]
    data = {f["name"]: _leaf(f, cols, f"{table}/{f['name']}", n) for f in fields if f["kind"] != "map"}
    frame = pd.DataFrame(data, copy=True)
    for f in (f for f in fields if f["kind"] == "map"):
        prefix = f"{table}/{f['name']}"
        keys = {k["name"]: _leaf(k, cols, f"{prefix}/{k['name']}", n) for k in f["keys"]}
        expanded = pd.DataFrame(keys, index=pd.RangeIndex(n), copy=True).add_prefix(f"{f['name']}_")
        frame = pd.concat([frame, expanded], axis=1)
    return frame


def _unmeasured_as_nan(frame: "pd.DataFrame") -> "pd.DataFrame":
    """A result table with every column of only nulls (a figure no row measured: the ABR
    counters of a UBR run, the goodput of a run stopped before its warm-up ended) as float64
    NaN, as a column with some nulls already is, not an object column of None that pandas
    counts as no numeric data (``plot`` refuses it). Every nullable field of the connection
    and port tables is a number (crates/atmsim/src/result.rs); a CSV writes either as empty
    fields."""
    import numpy as np

    for name in frame.columns[(frame.dtypes == object).to_numpy()]:
        column = frame[name]
        if len(column) and column.isna().all():
            frame[name] = np.full(len(column), np.nan)
    return frame


def _table_rows(spec: dict[str, Any], cols: "dict[str, Any]", table: str) -> list[dict[str, Any]]:
    """A table as the engine's JSON rows, from its typed columns: null as None, a map field
    as a dict of the keys a row has, in sorted order (a port's ``drops``: every reason,
    sorted, never null)."""
    n = spec["rows"]

    def column(f: dict[str, Any], name: str) -> list[Any]:
        if f["kind"] == "map":
            keys = sorted(f["keys"], key=lambda k: k["name"])
            per_key = [(k["name"], column(k, f"{name}/{k['name']}")) for k in keys]
            return [{k: v[i] for k, v in per_key if v[i] is not None} for i in range(n)]
        values, valid = _values(f, cols, name, n)
        if values is None:
            return [None] * n
        items = values if isinstance(values, list) else values.tolist()
        if valid is None:
            return items
        return [v if ok else None for v, ok in zip(items, valid.tolist())]

    names = [f["name"] for f in spec["fields"]]
    columns = [column(f, f"{table}/{f['name']}") for f in spec["fields"]]
    return [dict(zip(names, values)) for values in zip(*columns)] if columns else []


def pack(head: str, columns: "list[tuple[str, str, Any]]", files: Optional[dict[str, bytes]] = None) -> bytes:
    """A run's result as one bytes object, for a worker to hand back: a line with the
    length of a JSON header (the head's size, the columns' names, dtypes and sizes, the
    names and sizes of ``files``), the header, then the engine's head (JSON text), the
    columns' and the files' bytes."""
    files = files or {}
    text = head.encode("utf-8")
    table = [(name, dtype, len(b)) for name, dtype, b in columns]
    header = json.dumps({"head": len(text), "columns": table, "files": [(n, len(b)) for n, b in files.items()]})
    raw = header.encode("utf-8")
    return b"".join([b"%d\n" % len(raw), raw, text, *(bytes(b) for _, _, b in columns), *files.values()])


def unpack(data: bytes) -> tuple[dict[str, Any], Series, dict[str, bytes]]:
    """The head (a dict, its tables' typed columns under ``"tables"``), the :class:`Series`
    and the files of :func:`pack`'s bytes. The arrays are views of ``data`` (no copy)."""
    import numpy as np

    nl = data.index(b"\n")
    start = nl + 1 + int(data[:nl])
    header = json.loads(data[nl + 1:start])
    head = json.loads(data[start:start + header["head"]])
    start += header["head"]
    cols = {}
    for name, dtype, size in header["columns"]:
        cols[name] = np.frombuffer(data, dtype=dtype, count=size // np.dtype(dtype).itemsize, offset=start)
        start += size
    files = {}
    for name, size in header.get("files", []):
        files[name] = data[start:start + size]
        start += size
    series_cols, tables = _split_columns(cols)
    head["tables"] = tables
    return head, Series.from_columns(head.pop("series"), series_cols), files


def pack_selected(head: str, columns: "list[tuple[str, str, Any]]", keep: Optional[dict[str, Any]],
                  files: Optional[dict[str, bytes]] = None) -> bytes:
    """:func:`pack` with only the series entities ``keep`` names (:meth:`Series.select`)."""
    import numpy as np

    if not keep:
        return pack(head, columns, files)
    h = json.loads(head)
    series_cols = {n: np.frombuffer(b, dtype=t) for n, t, b in columns if "/" not in n}
    series = Series.from_columns(h.pop("series"), series_cols).select(keep)
    h["series"] = {"samples": len(series.time_s), **series.names}
    cols = [("time_s", "<f8", series.time_s.tobytes())]
    cols += [(c, "<i8" if c in _INT_COLUMNS else "<f8", a.tobytes()) for c, a in series.columns.items()]
    cols += [(n, t, b) for n, t, b in columns if "/" in n]
    return pack(json.dumps(h), cols, files)


def _figure(value: Optional[float], spec: str) -> str:
    """A summary figure in format ``spec``, or "n/a" for one a partial run could not
    measure (None), as ``atmsim run`` prints it."""
    return "n/a" if value is None else format(value, spec)


class RunResult:
    """The outcome of one run.

    Attributes:
        summary: dict of whole-run figures (efficiency, fairness, cell counts, speed, ...).
        connections: one row per connection (goodput_bps, retransmissions, timeouts, ...).
        ports: one row per port that carried traffic (counters, drops per reason, max queue).
        port_series: time series per switch port (time_s, port, queue_cells,
            max_queue_cells, utilization, data_utilization: without RM cells,
            vbr_utilization: VBR cells only), long format.
        connection_series: time series per connection (time_s, connection, cwnd_bytes,
            cells_received, delivered_bytes), long format.
        abr_series: time series per ABR source (time_s, source, acr_mbps, cells_received:
            data cells received at its destination so far), long format; empty without ABR.
        scenario: the scenario dict that was run (a copy, decoded from the JSON text the
            engine ran on first use).
        trace_files: ``{kind: path}`` of the per-event traces recorded (docs/traces.md);
            empty without tracing. :meth:`trace` reads one as a DataFrame.
        files: ``{name: bytes}`` of files the worker process that ran it made from it (a
            reproduction's figures of the run, :meth:`atmsim.experiments.base.Experiment.plot_case`);
            empty otherwise.
        late_connections: names of the connections whose ``start`` is at or after the
            run's end (they send nothing in it; :func:`atmsim.run` warns about them).
        partial: why the run stopped before its duration, or None.

    :meth:`provenance` says what made the numbers (version, git commit, time, command
    line, scenario digest); :meth:`save` writes it as ``provenance.json``.
    """

    def __init__(self, raw: dict[str, Any], scenario: "dict[str, Any] | str",
                 traces: Optional[dict[str, Path]] = None, series: Optional[Series] = None):
        """``raw``: the engine's result as decoded JSON (summary, connections, ports and
        ``timeseries``), or its head only with the time series given as ``series``
        (:meth:`from_columns`, :func:`unpack`) and the tables' typed columns under
        ``raw["tables"]``. ``scenario``: the scenario dict, or the JSON
        text the engine ran, decoded into :attr:`scenario` when it is first asked for (at
        10 000 VCs decoding 3 MB of scenario was a fifth of :func:`atmsim.run`'s time)."""
        import pandas as pd

        tables = raw.get("tables")
        raw = {k: v for k, v in raw.items() if k != "tables"}  # the caller's dict is left as it is
        self._raw = raw if series is None else None
        # Typed columns when the head describes the tables ({"rows", "fields"}); a head from
        # an engine before them holds the tables as JSON columns, read as before.
        typed = series is not None and isinstance(raw.get("connections"), dict) and "fields" in raw["connections"]
        self._tables = (tables or {}) if typed else None
        self._head = raw
        self._scenario, self._scenario_text = (None, scenario) if isinstance(scenario, str) else (scenario, None)
        self.trace_files: dict[str, Path] = dict(traces or {})
        self.summary: dict[str, Any] = raw["summary"]
        if self._tables is not None:
            # From the columns path: each table's typed columns (crates/atmsim/src/
            # result_tables.rs), described in the head; the same DataFrames as the rows give.
            self.connections = _table_frame(raw["connections"], self._tables, "connections")
            self.ports = _table_frame(raw["ports"], self._tables, "ports")
        else:
            # The engine's JSON form: rows (a list of dicts), or columns (a dict of lists).
            self.connections = pd.DataFrame(raw["connections"])
            ports = pd.DataFrame(raw["ports"])
            if len(ports):
                drops = pd.DataFrame(list(ports.pop("drops"))).add_prefix("drops_")
                ports = pd.concat([ports, drops], axis=1)
            self.ports = ports
        self.connections, self.ports = _unmeasured_as_nan(self.connections), _unmeasured_as_nan(self.ports)
        self._series = series if series is not None else Series.from_json(raw["timeseries"])
        self._frames: dict[str, "pd.DataFrame"] = {}
        self.files: dict[str, bytes] = {}
        #: The connections that start at or after the run's end (they send nothing in it).
        self.late_connections: list[str] = [str(n) for n in (raw.get("late_connections") or [])]
        from datetime import datetime, timezone

        self._created = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self._provenance: Optional[dict[str, Any]] = None

    @property
    def scenario(self) -> dict[str, Any]:
        """The scenario dict that was run."""
        sc = self._scenario
        if sc is None:
            # The text is kept: two threads reading this at once both decode it.
            sc = self._scenario = json_loads(self._scenario_text)
        return sc

    @scenario.setter
    def scenario(self, value: dict[str, Any]) -> None:
        self._scenario, self._scenario_text = value, None

    @classmethod
    def from_columns(cls, head: str, columns: "list[tuple[str, str, Any]]", scenario: "dict[str, Any] | str",
                     traces: Optional[dict[str, Path]] = None) -> "RunResult":
        """From ``_core.run_json(..., columns=True)``'s ``(head, columns)``."""
        import numpy as np

        h = json.loads(head)
        cols = {name: np.frombuffer(b, dtype=dtype) for name, dtype, b in columns}
        series_cols, h["tables"] = _split_columns(cols)
        return cls(h, scenario, traces, series=Series.from_columns(h.pop("series"), series_cols))

    @classmethod
    def unpack(cls, data: bytes, scenario: dict[str, Any]) -> "RunResult":
        """From :func:`pack`'s bytes (a worker's result), with the files the worker made
        from the run in :attr:`files`."""
        head, series, files = unpack(data)
        r = cls(head, scenario, series=series)
        r.files = files
        return r

    def _frame(self, attr: str) -> "pd.DataFrame":
        if attr not in self._frames:
            frame = self._frames[attr] = self._series.long(attr)
            if self._provenance is not None:
                frame.attrs["provenance"] = self._provenance
        return self._frames[attr]

    def provenance(self, command: Optional[list[str]] = None) -> dict[str, Any]:
        """What made this run's numbers (:func:`run_provenance`: atmsim version, git commit
        and dirty flag, time (UTC), command line, Python and platform, the scenario's
        SHA-256), as :meth:`save` writes it to ``provenance.json``. Made on first call
        (``command``: the command line to record, default ``sys.argv``; a later call with
        another one records that), and from then on also in the tables'
        ``.attrs["provenance"]`` (connections, ports and the time series)."""
        if self._stale_provenance(command):
            self._record_provenance(self._scenario_digest(), command)
        return self._provenance

    def _scenario_digest(self) -> str:
        """:func:`atmsim.scenario.json_sha256` of the scenario's JSON text, kept or encoded."""
        from .scenario import json_sha256, scenario_sha256

        if self._scenario_text is not None:
            return json_sha256(self._scenario_text)
        return scenario_sha256(self._scenario)

    def _stale_provenance(self, command: Optional[list[str]]) -> bool:
        """Whether :meth:`provenance` is still to be made, or recorded another command line."""
        return self._provenance is None or (command is not None and self._provenance["command_line"] != list(command))

    def _record_provenance(self, digest: str, command: Optional[list[str]]) -> None:
        """Makes :meth:`provenance` (``digest``: the scenario's) and puts it in the tables' attrs."""
        self._provenance = run_provenance(digest, self._created, command)
        for frame in (self.connections, self.ports, *self._frames.values()):
            frame.attrs["provenance"] = self._provenance

    @property
    def port_series(self) -> "pd.DataFrame":
        """Per switch port: time_s, port, queue_cells, max_queue_cells, utilization,
        data_utilization, vbr_utilization (long format; built on first use)."""
        return self._frame("port_series")

    @property
    def connection_series(self) -> "pd.DataFrame":
        """Per connection: time_s, connection, cwnd_bytes, cells_received, delivered_bytes."""
        return self._frame("connection_series")

    @property
    def abr_series(self) -> "pd.DataFrame":
        """Per ABR source: time_s, source, acr_mbps, cells_received (empty without ABR)."""
        return self._frame("abr_series")

    @property
    def raw(self) -> dict[str, Any]:
        """The engine's result as its JSON form (summary, connections, ports, timeseries as
        lists); made from the columns on first use when the run handed back columns."""
        if self._raw is None:
            if self._tables is not None:
                tables = {k: _table_rows(self._head[k], self._tables, k) for k in ("connections", "ports")}
            else:
                tables = {k: _rows(self._head[k]) for k in ("connections", "ports")}
            self._raw = {**self._head, **tables, "timeseries": self._series.as_json()}
        return self._raw

    def trace(self, kind: str) -> "pd.DataFrame":
        """The per-event trace of ``kind`` (one of :func:`atmsim.trace.kind_names`) as a
        DataFrame, read from its Parquet file; columns as documented in docs/traces.md."""
        from .trace import read

        if kind not in self.trace_files:
            asked = ", ".join(self.trace_files) or "none"
            raise KeyError(f"no {kind!r} trace in this result; traced kinds: {asked} "
                           "(ask with atmsim.run(..., trace=[...]) or the scenario's [trace] table)")
        return read(self.trace_files[kind])

    @property
    def traces(self) -> "dict[str, pd.DataFrame]":
        """Every recorded trace, ``{kind: DataFrame}``."""
        return {k: self.trace(k) for k in self.trace_files}

    @property
    def partial(self) -> str | None:
        """Why the run stopped before its duration (a ``max_events`` or ``max_wall`` budget),
        or None for a complete run."""
        return self.summary.get("partial")

    def __repr__(self) -> str:
        s = self.summary
        partial = f", partial: {self.partial}" if self.partial else ""
        return (
            f"<RunResult {s['name']!r}: {s['duration_s']:g} s simulated{partial}, efficiency "
            f"{_figure(s.get('efficiency'), '.3f')}, fairness {_figure(s.get('fairness'), '.3f')}, max switch queue "
            f"{s['max_switch_queue_cells']} cells, {s['cells_dropped']} cells dropped>"
        )

    def _repr_html_(self) -> str:
        """The summary and the per-connection table, for Jupyter (:meth:`_connections_html`)."""
        s = self.summary
        facts = [("simulated", f"{s['duration_s']:g} s")]
        if self.partial:
            facts.append(("partial", str(self.partial)))
        facts += [
            ("efficiency", _figure(s.get("efficiency"), ".3f")),
            ("fairness", _figure(s.get("fairness"), ".3f")),
            ("max switch queue", f"{s['max_switch_queue_cells']} cells"),
            ("cells dropped", f"{s['cells_dropped']}"),
            ("wall time", f"{s.get('wall_seconds', float('nan')):.2f} s"),
        ]
        if self.late_connections:
            from .scenario import late_connections_text

            facts.append(("note", late_connections_text(self.late_connections)))
        rows = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
                       for k, v in facts)
        return (f"<div><b>RunResult {html.escape(str(s['name']))}</b>"
                f"<table>{rows}</table>{self._connections_html()}</div>")

    def _connections_html(self) -> str:
        """The connections table of :meth:`_repr_html_`, with the columns that apply: name,
        service, traffic and goodput; ACR mean and max-min fair share when there are ABR
        connections; retransmissions and timeouts when there are TCP connections. Rates in
        Mbit/s (the columns' names say so), as ``atmsim run`` prints them."""
        c = self.connections
        if not len(c):
            return ""
        cols = ["name", "service", "traffic", "goodput_bps"]
        if "service" in c and (c["service"] == "abr").any():
            cols += ["acr_mean_bps", "fair_share_bps"]
        if "traffic" in c and (c["traffic"] == "tcp").any():
            cols += ["retransmissions", "timeouts"]
        t = c[[k for k in cols if k in c.columns]].copy()
        for k in [k for k in t.columns if k.endswith("_bps")]:
            t[k] = t[k].astype(float) / 1e6
            t = t.rename(columns={k: k[:-len("_bps")] + "_Mbps"})
        return t.to_html(index=False, max_rows=20, float_format=lambda v: f"{v:.2f}", na_rep="")

    def plot(self, path: Union[str, os.PathLike, None] = None) -> "Union[Path, Figure]":
        """The run's panels (:func:`atmsim.plots.plot_run`): returns the figure, shown
        inline in a notebook; with ``path`` (str or os.PathLike), writes a PNG there (a PDF
        or SVG for a name ending in .pdf or .svg; another extension raises ValueError) and
        returns the path."""
        from .plots import plot_run

        if path is not None:
            path_argument(path, "path")
        return plot_run(self, path)

    def plot_throughput(self, path: Union[str, os.PathLike, None] = None) -> "Union[Path, Figure]":
        """Goodput and throughput per connection in Mbit/s, one bar each, with the max-min
        fair share where there is one (:func:`atmsim.plots.plot_throughput`); readable with
        many connections. Returns the figure, or with ``path`` writes it there and returns
        the path."""
        from .plots import plot_throughput

        return plot_throughput(self, path)

    #: The files :meth:`save` may write in its directory (and ``traces/``).
    SAVED_FILES = ("summary.json", "provenance.json", "connections.csv", "ports.csv", "port_series.csv",
                   "connection_series.csv", "abr_series.csv", "scenario.toml", "run.png")

    def save(self, out: Union[str, os.PathLike], plot: bool = True, command: Optional[list[str]] = None) -> Path:
        """Writes summary.json, provenance.json (:meth:`provenance`; ``command``: the
        command line to record, default ``sys.argv``), the tables and series as CSV, the
        scenario, and a plot (run.png) into the directory ``out`` (str or os.PathLike)."""
        from .scenario import to_toml

        out = path_argument(out, "out", "a directory path")
        out.mkdir(parents=True, exist_ok=True)
        earlier = _files_saved_before(out)
        (out / "summary.json").write_text(json.dumps(self.summary, indent=2) + "\n")
        # A scenario kept as its JSON text is decoded for this only, not kept decoded after
        # (at 100 000 VCs the dict is about 0.3 GB).
        sc = self._scenario if self._scenario is not None else json_loads(self._scenario_text)
        toml = to_toml(sc)
        del sc
        if self._stale_provenance(command):
            self._record_provenance(self._scenario_digest(), command)
        record = {**self._provenance, "files": self._files_written(plot)}
        (out / "provenance.json").write_text(json.dumps(record, indent=1) + "\n")
        self.connections.to_csv(out / "connections.csv", index=False)
        self.ports.to_csv(out / "ports.csv", index=False)
        self.port_series.to_csv(out / "port_series.csv", index=False)
        self.connection_series.to_csv(out / "connection_series.csv", index=False)
        if len(self.abr_series):
            self.abr_series.to_csv(out / "abr_series.csv", index=False)
        (out / "scenario.toml").write_text(toml, encoding="utf-8")
        if self.trace_files:
            import shutil

            (out / "traces").mkdir(exist_ok=True)
            for kind, path in self.trace_files.items():
                if Path(path).resolve() != (out / "traces" / Path(path).name).resolve():
                    shutil.copyfile(path, out / "traces" / Path(path).name)
        if plot:
            from .plots import plot_run

            plot_run(self, out / "run.png")
        _remove_stale(out, earlier - set(self._files_written(plot)))
        return out

    def _files_written(self, plot: bool) -> list[str]:
        """The files :meth:`save` writes in its folder (paths relative to it), as
        ``provenance.json`` lists them under ``files``."""
        names = [n for n in self.SAVED_FILES if n not in ("abr_series.csv", "run.png")]
        names += ["abr_series.csv"] if len(self.abr_series) else []
        names += ["run.png"] if plot else []
        return names + [f"traces/{Path(p).name}" for p in (self.trace_files or {}).values()]
