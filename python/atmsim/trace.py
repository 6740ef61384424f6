"""Per-event traces (docs/traces.md): the Parquet writer the engine streams rows into, and
the readers that give them back as pandas DataFrames.

The engine buffers at most ``CHUNK_ROWS`` rows of each kind and hands a full buffer to
:class:`TraceWriter`, which appends it to ``<dir>/<kind>.parquet`` as one row group: a
run's memory stays bounded however many events it traces. The kinds and their columns
come from the engine (:func:`kinds`, the Rust ``atmsim::trace::KINDS`` list).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

from . import _core

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


def kinds() -> dict[str, dict[str, Any]]:
    """The trace kinds: ``{name: {"doc": ..., "columns": [(name, type, labels, doc), ...]}}``;
    type is float, int, port, connection or label."""
    return {name: {"doc": doc, "columns": cols} for name, doc, cols in _core.trace_kinds()}


def kind_names() -> list[str]:
    """The names ``trace.events`` allows, in order."""
    return [k[0] for k in _core.trace_kinds()]


def normalize(trace: Any) -> Optional[dict[str, Any]]:
    """The ``trace`` argument of :func:`atmsim.run` as a scenario ``[trace]`` table.

    ``None``/``False``: no trace argument; ``True``: every kind; a string
    (``"drop,tcp"``) or a list of kind names; or a dict with the table's keys (``events``,
    ``connections``, ``ports``, ``from``, ``to``, ``queue_interval``). The engine checks
    the names and times and names the key in its error.
    """
    if trace is None or trace is False:
        return None
    if trace is True:
        return {"events": kind_names()}
    if isinstance(trace, str):
        return {"events": [s.strip() for s in trace.split(",") if s.strip()]}
    if isinstance(trace, (list, tuple)):
        return {"events": list(trace)}
    if isinstance(trace, dict):
        return dict(trace)
    raise TypeError(f"trace = {trace!r}: give True, a list of kinds ({', '.join(kind_names())}), "
                    "\"drop,tcp\", or a dict like the scenario's [trace] table")


class TraceWriter:
    """The engine's trace sink: ``begin`` once with the port and connection names, then
    ``write(kind, rows)`` per chunk (little-endian float64, row-major). Each chunk becomes a
    Parquet row group; ``close`` finishes every file (an empty file with the schema for a
    kind asked for that recorded nothing)."""

    def __init__(self, out: Union[str, Path], events: list[str]):
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.kinds = kinds()
        self.events = list(events)
        self.writers: dict[str, Any] = {}
        self.ports: list[str] = []
        self.connections: list[str] = []
        self.rows: dict[str, int] = {k: 0 for k in self.events}

    def path(self, kind: str) -> Path:
        return self.out / f"{kind}.parquet"

    def begin(self, ports: list[str], connections: list[str]) -> None:
        self.ports, self.connections = list(ports), list(connections)

    def _schema(self, kind: str) -> Any:
        import pyarrow as pa

        fields = []
        for name, ty, _labels, doc in self.kinds[kind]["columns"]:
            t = {"float": pa.float64(), "int": pa.int64()}.get(ty, pa.dictionary(pa.int32(), pa.string()))
            fields.append(pa.field(name, t, metadata={"doc": doc}))
        return pa.schema(fields, metadata={"kind": kind, "doc": self.kinds[kind]["doc"]})

    def _table(self, kind: str, rows: Any) -> Any:
        import numpy as np
        import pyarrow as pa

        cols = self.kinds[kind]["columns"]
        a = np.asarray(rows, dtype="<f8").reshape(-1, len(cols))
        arrays = []
        for j, (_name, ty, labels, _doc) in enumerate(cols):
            v = a[:, j]
            if ty == "float":
                arrays.append(pa.array(v, type=pa.float64()))
            elif ty == "int":
                arrays.append(pa.array(v.astype(np.int64), type=pa.int64()))
            else:
                names = {"port": self.ports, "connection": self.connections}.get(ty, labels)
                codes = v.astype(np.int32)
                idx = pa.array(codes, type=pa.int32(), mask=codes < 0)
                arrays.append(pa.DictionaryArray.from_arrays(idx, pa.array(names, type=pa.string())))
        return pa.Table.from_arrays(arrays, schema=self._schema(kind))

    def write(self, kind: str, data: bytes) -> None:
        import numpy as np
        import pyarrow.parquet as pq

        table = self._table(kind, np.frombuffer(data, dtype="<f8"))
        w = self.writers.get(kind)
        if w is None:
            w = self.writers[kind] = pq.ParquetWriter(self.path(kind), table.schema)
        w.write_table(table)
        self.rows[kind] = self.rows.get(kind, 0) + table.num_rows

    def close(self) -> dict[str, Path]:
        """Finishes the files; returns ``{kind: path}`` for every kind asked for."""
        import numpy as np
        import pyarrow.parquet as pq

        for kind in self.events:
            if kind not in self.writers and kind in self.kinds:
                empty = self._table(kind, np.zeros((0,)))
                self.writers[kind] = pq.ParquetWriter(self.path(kind), empty.schema)
                self.writers[kind].write_table(empty)
        for w in self.writers.values():
            w.close()
        return {k: self.path(k) for k in self.events if k in self.kinds}


def read(path: Union[str, Path]) -> "pd.DataFrame":
    """A trace file as a DataFrame (ports, connections and labels as categoricals)."""
    import pandas as pd

    return pd.read_parquet(path)
