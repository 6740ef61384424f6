"""The plots of seed 004, per case: ACR of representative connections (figures 4.2, 4.5,
5.2, 5.7, 5.11), link utilization averaged over 5 ms (4.3, 4.7, 5.3, 5.6, 5.8, 4.11), queue
as the maximum over 5 ms (4.4, 4.6, 5.4, 5.9, 5.10) and, with TCP, sequence numbers and
congestion windows (4.9, 4.10, 6.2) and the average throughput (6.3)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402

from ..plots import figure_grid, save_png  # noqa: E402
from ..result import RunResult  # noqa: E402

#: Ports drawn for each configuration, with the seed's names.
PORTS = {
    "r1": {"sw1->sw2": "D4 (switch 1)"},
    "r2": {"sw2->sw3": "link C (switch 2)", "sw3->dstA": "link A (switch 3)", "sw3->dstB": "link B (switch 3)"},
    "r3": {"sw2->sw3": "link C (switch 2)", "sw3->dstA": "link A (switch 3)", "sw3->dstB": "link B (switch 3)"},
}


def _window(series_t: np.ndarray) -> int:
    dt = float(series_t[1] - series_t[0]) if len(series_t) > 1 else 0.005
    return max(1, int(round(0.005 / dt)))


def _agg(t: np.ndarray, v: np.ndarray, w: int, how: str) -> tuple[np.ndarray, np.ndarray]:
    n = len(v) // w
    if n == 0:
        return t, v
    vv = v[: n * w].reshape(n, w)
    return t[w - 1: n * w: w], (vv.mean(axis=1) if how == "mean" else vv.max(axis=1))


def _representatives(names: list[str]) -> list[str]:
    """One connection per source node/set (the seed plots one per set), at most 8."""
    seen, out = set(), []
    for n in names:
        key = n.split(".")[0].rstrip("0123456789") or n
        if n.startswith(("L", "S")) and "." in n:
            key = n.split(".")[0]
        if key not in seen:
            seen.add(key)
            out.append(n)
    return out[:8]


def plot_case(key: str, r: RunResult, path: Path) -> Path:
    base = key.split("|")[0]
    topo = base.split("-")[0]
    tcp = "tcp" in base
    ports = PORTS.get(topo, {})
    n = 5 if tcp else 3
    fig, grid = figure_grid(path, (9, 2.3 * n), 90, n, 1)
    axes = grid[:, 0]
    ax = axes[0]
    acr = r.abr_series.pivot(index="time_s", columns="source", values="acr_mbps")
    shown = [c for c in acr.columns if "(reverse)" not in c]
    for c in _representatives(shown):
        ax.plot(acr.index, acr[c], lw=0.9, label=c)
    ax.set_ylabel("ACR (Mbps)")
    ax.legend(fontsize=7, ncol=4, loc="upper right")
    ax.set_title(f"{key}: {r.summary['name']}", fontsize=9)
    ps = r.port_series
    for p, label in ports.items():
        d = ps[ps["port"] == p]
        if not len(d):
            continue
        t = d["time_s"].to_numpy()
        w = _window(t)
        tu, u = _agg(t, d["data_utilization"].to_numpy(), w, "mean")
        axes[1].plot(tu, u, lw=0.9, label=label)
        if d["vbr_utilization"].max() > 0:
            tv, v = _agg(t, d["vbr_utilization"].to_numpy(), w, "mean")
            axes[1].plot(tv, v, lw=0.7, ls="--", label=f"{label}, VBR only")
        tq, q = _agg(t, d["max_queue_cells"].to_numpy(), w, "max")
        axes[2].plot(tq, q, lw=0.9, label=label)
    axes[1].set_ylabel("utilization\n(5 ms avg)")
    axes[1].set_ylim(0, 1.05)
    axes[1].legend(fontsize=7, loc="lower right")
    axes[2].set_ylabel("queue (cells,\nmax over 5 ms)")
    axes[2].legend(fontsize=7, loc="upper right")
    if tcp:
        cs = r.connection_series
        tcps = [c for c in cs["connection"].unique() if c.startswith(("tcp", "L", "S"))]
        for c in tcps:
            d = cs[cs["connection"] == c]
            axes[3].plot(d["time_s"], d["delivered_bytes"] / 9180, lw=0.9, label=c)
            axes[4].plot(d["time_s"], d["cwnd_bytes"] / 1024, lw=0.9, label=c)
        axes[3].set_ylabel("segments\ndelivered")
        axes[3].legend(fontsize=7, ncol=4, loc="upper left")
        axes[4].set_ylabel("cwnd (KB)")
    axes[-1].set_xlabel("time (s)")
    return save_png(fig, path)
