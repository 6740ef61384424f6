"""Plots (matplotlib, written to PNG files)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

if TYPE_CHECKING:  # pragma: no cover
    from .result import RunResult


def plot_abr(result: "RunResult", path: str | Path, title: str | None = None) -> Path:
    """The four graphs of seed 003 (section 5) against time, in one figure:
    (a) allowed cell rate per source, (b) queue length per switch port, (c) link utilization
    per switch port, (d) cells received per destination."""
    fig, axes = plt.subplots(2, 2, figsize=(12, 8), sharex=True)
    ab, ps = result.abr_series, result.port_series
    ms = 1e3
    many = ab["source"].nunique() > 10
    for name, d in ab.groupby("source", sort=False):
        lab = None if many else name
        axes[0, 0].plot(d["time_s"] * ms, d["acr_mbps"], label=lab, lw=0.9)
        axes[1, 1].plot(d["time_s"] * ms, d["cells_received"], label=lab, lw=0.9)
    ports = result.ports
    kinds = {n["name"]: n["kind"] for n in result.scenario.get("node", [])}
    used = ports[(ports["is_switch"]) & (ports["sent"] > 0)] if len(ports) else ports
    # The seed's graphs show the links between switches; fall back to all switch ports.
    trunk = used[used["toward"].map(kinds) == "switch"] if len(used) else used
    show = trunk if len(trunk) else used
    for port in (show["name"] if len(show) else []):
        d = ps[ps["port"] == port]
        axes[0, 1].plot(d["time_s"] * ms, d["max_queue_cells"], label=port, lw=0.9)
        axes[1, 0].plot(d["time_s"] * ms, d["utilization"] * 100, label=port, lw=0.9)
    axes[0, 0].set_ylabel("(a) allowed cell rate (Mbit/s)")
    axes[0, 1].set_ylabel("(b) queue length (cells, max over interval)")
    axes[1, 0].set_ylabel("(c) link utilization (%)")
    axes[1, 1].set_ylabel("(d) cells received")
    for ax in axes.flat:
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="best")
    for ax in axes[1]:
        ax.set_xlabel("time (ms)")
    fig.suptitle(title or result.summary["name"])
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_run(result: "RunResult", path: str | Path) -> Path:
    """Four panels against time. With ABR sources: the four graphs of seed 003
    (:func:`plot_abr`); otherwise switch queue lengths, link utilization, cwnd and cells
    received."""
    if len(result.abr_series):
        return plot_abr(result, path)
    fig, axes = plt.subplots(2, 2, figsize=(12, 8), sharex=True)
    ps, cs = result.port_series, result.connection_series
    busy = result.ports[(result.ports["is_switch"]) & (result.ports["max_queue_cells"] > 0)]["name"] if len(result.ports) else []
    for port in busy:
        d = ps[ps["port"] == port]
        axes[0, 0].plot(d["time_s"], d["max_queue_cells"], label=port, lw=0.8)
        axes[0, 1].plot(d["time_s"], d["utilization"], label=port, lw=0.8)
    many = cs["connection"].nunique() > 10
    for name, d in cs.groupby("connection", sort=False):
        axes[1, 0].plot(d["time_s"], d["cwnd_bytes"] / 1024, label=None if many else name, lw=0.7)
        axes[1, 1].plot(d["time_s"], d["cells_received"], label=None if many else name, lw=0.7)
    axes[0, 0].set_ylabel("queue (cells, max over interval)")
    axes[0, 1].set_ylabel("link utilization")
    axes[1, 0].set_ylabel("cwnd (KiB)")
    axes[1, 1].set_ylabel("cells received")
    for ax in axes.flat:
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="best")
    for ax in axes[1]:
        ax.set_xlabel("time (s)")
    fig.suptitle(result.summary["name"])
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
