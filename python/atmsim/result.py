"""Results of a run as pandas DataFrames, with writers and a standard plot."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd


class RunResult:
    """The outcome of one run.

    Attributes:
        summary: dict of whole-run figures (efficiency, fairness, cell counts, speed, ...).
        connections: one row per connection (goodput_bps, retransmissions, timeouts, ...).
        ports: one row per port that carried traffic (counters, drops per reason, max queue).
        port_series: time series per switch port (time_s, port, queue_cells,
            max_queue_cells, utilization), long format.
        connection_series: time series per connection (time_s, connection, cwnd_bytes,
            cells_received, delivered_bytes), long format.
        scenario: the scenario dict that was run.
    """

    def __init__(self, raw: dict[str, Any], scenario: dict[str, Any]):
        self.raw = raw
        self.scenario = scenario
        self.summary: dict[str, Any] = raw["summary"]
        self.connections = pd.DataFrame(raw["connections"])
        ports = pd.DataFrame(raw["ports"])
        if len(ports):
            drops = pd.DataFrame(list(ports.pop("drops"))).add_prefix("drops_")
            ports = pd.concat([ports, drops], axis=1)
        self.ports = ports
        ts = raw["timeseries"]
        t = ts["time_s"]
        self.port_series = pd.DataFrame(
            {
                "time_s": [x for _ in ts["port_names"] for x in t],
                "port": [p for p in ts["port_names"] for _ in t],
                "queue_cells": [v for s in ts["queue_cells"] for v in s],
                "max_queue_cells": [v for s in ts["max_queue_cells"] for v in s],
                "utilization": [v for s in ts["utilization"] for v in s],
            }
        )
        self.connection_series = pd.DataFrame(
            {
                "time_s": [x for _ in ts["connection_names"] for x in t],
                "connection": [c for c in ts["connection_names"] for _ in t],
                "cwnd_bytes": [v for s in ts["cwnd_bytes"] for v in s],
                "cells_received": [v for s in ts["cells_received"] for v in s],
                "delivered_bytes": [v for s in ts["delivered_bytes"] for v in s],
            }
        )

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<RunResult {s['name']!r}: {s['duration_s']:g} s simulated, efficiency {s['efficiency']:.3f}, "
            f"fairness {s['fairness']:.3f}, max switch queue {s['max_switch_queue_cells']} cells, "
            f"{s['cells_dropped']} cells dropped>"
        )

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
        (out / "scenario.toml").write_text(to_toml(self.scenario))
        if plot:
            from .plots import plot_run

            plot_run(self, out / "run.png")
        return out
