"""Results of a run as pandas DataFrames, with writers and a standard plot."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure


def _long(ts: dict[str, Any], key: str, names_key: str, columns: list[str]) -> "pd.DataFrame":
    """Column-per-entity series (``ts[col][entity][sample]``) in long format."""
    import pandas as pd

    t = ts["time_s"]
    names = ts[names_key]
    data: dict[str, list] = {"time_s": [x for _ in names for x in t], key: [n for n in names for _ in t]}
    for c in columns:
        data[c] = [v for series in ts[c] for v in series]
    return pd.DataFrame(data)


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
        scenario: the scenario dict that was run.
        trace_files: ``{kind: path}`` of the per-event traces recorded (docs/traces.md);
            empty without tracing. :meth:`trace` reads one as a DataFrame.
    """

    def __init__(self, raw: dict[str, Any], scenario: dict[str, Any],
                 traces: Optional[dict[str, Path]] = None):
        import pandas as pd

        self.raw = raw
        self.scenario = scenario
        self.trace_files: dict[str, Path] = dict(traces or {})
        self.summary: dict[str, Any] = raw["summary"]
        self.connections = pd.DataFrame(raw["connections"])
        ports = pd.DataFrame(raw["ports"])
        if len(ports):
            drops = pd.DataFrame(list(ports.pop("drops"))).add_prefix("drops_")
            ports = pd.concat([ports, drops], axis=1)
        self.ports = ports
        ts = raw["timeseries"]
        self.port_series = _long(
            ts,
            "port",
            "port_names",
            ["queue_cells", "max_queue_cells", "utilization", "data_utilization", "vbr_utilization"],
        )
        self.connection_series = _long(
            ts, "connection", "connection_names", ["cwnd_bytes", "cells_received", "delivered_bytes"]
        )
        abr = _long(ts, "source", "abr_names", ["acr_mbps", "abr_cells_received"])
        self.abr_series = abr.rename(columns={"abr_cells_received": "cells_received"})

    def trace(self, kind: str) -> "pd.DataFrame":
        """The per-event trace of ``kind`` (drop, tcp, acr, allocator, queue) as a DataFrame,
        read from its Parquet file; columns as documented in docs/traces.md."""
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
        return (
            f"<RunResult {s['name']!r}: {s['duration_s']:g} s simulated, efficiency {s['efficiency']:.3f}, "
            f"fairness {s['fairness']:.3f}, max switch queue {s['max_switch_queue_cells']} cells, "
            f"{s['cells_dropped']} cells dropped>"
        )

    def _repr_html_(self) -> str:
        """The summary and the per-connection table, for Jupyter."""
        s = self.summary
        facts = [
            ("simulated", f"{s['duration_s']:g} s"),
            ("efficiency", f"{s['efficiency']:.3f}"),
            ("fairness", f"{s['fairness']:.3f}"),
            ("max switch queue", f"{s['max_switch_queue_cells']} cells"),
            ("cells dropped", f"{s['cells_dropped']}"),
            ("wall time", f"{s.get('wall_seconds', float('nan')):.2f} s"),
        ]
        rows = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
                       for k, v in facts)
        cols = [c for c in ("name", "kind", "goodput_bps", "retransmissions", "timeouts")
                if c in self.connections.columns]
        table = self.connections[cols].to_html(index=False, max_rows=20) if cols else ""
        return (f"<div><b>RunResult {html.escape(str(s['name']))}</b>"
                f"<table>{rows}</table>{table}</div>")

    def plot(self, path: Union[str, Path, None] = None) -> "Union[Path, Figure]":
        """The run's four panels (:func:`atmsim.plots.plot_run`): returns the figure, shown
        inline in a notebook; with ``path``, writes a PNG there and returns the path."""
        from .plots import plot_run

        return plot_run(self, path)

    def save(self, out: str | Path, plot: bool = True) -> Path:
        """Writes summary.json, the tables and series as CSV, the scenario, and a plot."""
        from .scenario import to_toml

        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json.dumps(self.summary, indent=2) + "\n")
        self.connections.to_csv(out / "connections.csv", index=False)
        self.ports.to_csv(out / "ports.csv", index=False)
        self.port_series.to_csv(out / "port_series.csv", index=False)
        self.connection_series.to_csv(out / "connection_series.csv", index=False)
        if len(self.abr_series):
            self.abr_series.to_csv(out / "abr_series.csv", index=False)
        (out / "scenario.toml").write_text(to_toml(self.scenario), encoding="utf-8")
        if self.trace_files:
            import shutil

            (out / "traces").mkdir(exist_ok=True)
            for kind, path in self.trace_files.items():
                if Path(path).resolve() != (out / "traces" / Path(path).name).resolve():
                    shutil.copyfile(path, out / "traces" / Path(path).name)
        if plot:
            from .plots import plot_run

            plot_run(self, out / "run.png")
        return out
