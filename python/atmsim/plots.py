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


# --------------------------------------------------------------------------- sweeps

_NUM_UNIT = None


def numeric_values(values) -> "tuple[list[float] | None, str]":
    """Numbers for plotting: ``[500, 1000]`` as they are, ``["500 cells", "1000 cells"]``
    as 500 and 1000 with unit ``cells``; ``(None, "")`` when the values are not of that form
    (policy names, say) or mix units."""
    import re

    global _NUM_UNIT
    if _NUM_UNIT is None:
        _NUM_UNIT = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*?)\s*$")
    out, units = [], set()
    for v in values:
        if isinstance(v, bool):
            return None, ""
        if isinstance(v, (int, float)):
            out.append(float(v))
            units.add("")
            continue
        m = _NUM_UNIT.match(str(v))
        if not m:
            return None, ""
        out.append(float(m.group(1)))
        units.add(m.group(2))
    if len(units) > 1:
        return None, ""
    return out, (units.pop() if units else "")


def _distinct(series) -> list:
    seen, out = set(), []
    for v in series:
        k = repr(v)
        if k not in seen:
            seen.add(k)
            out.append(v)
    return out


def choose_axes(results, x: str | None = None, by: str | None = None) -> tuple[str, str | None, list[str]]:
    """The parameter for the x axis (default: the numeric one with most values), the one
    drawn as separate lines (default: the one with fewest values, at most 10) and the rest,
    averaged over."""
    params = list(results.parameters)
    df = results.df
    for name, what in ((x, "x"), (by, "by")):
        if name is not None and name not in params and name != "seed":
            raise ValueError(f"{what} = {name!r} is not a parameter of sweep {results.name!r}; "
                             f"parameters: {', '.join(params) or '(none)'}")
    if x is None:
        if not params:
            x = "seed"
        else:
            def score(p):
                vals = _distinct(df[p]) if p in df else []
                numeric = numeric_values(vals)[0] is not None
                return (numeric, len(vals))
            x = max(params, key=score)
    rest = [p for p in params if p != x]
    if by is None and rest:
        counts = {p: len(_distinct(df[p])) if p in df else 0 for p in rest}
        cands = [p for p in rest if 1 < counts[p] <= 10]
        by = min(cands, key=lambda p: counts[p]) if cands else None
    others = [p for p in rest if p != by]
    return x, by, others


def plot_sweep(results, metric: str = "efficiency", x: str | None = None, by: str | None = None,
               path=None, ax=None, title: str | None = None):
    """One metric of a sweep against a parameter: one line per value of parameter ``by``
    (a policy, an algorithm), the mean over seeds with a band of +- one standard
    deviation (error bars for a categorical x). Other parameters are averaged over (said in
    the title). ``results`` is a :class:`atmsim.store.SweepResults`.

    Writes a PNG when ``path`` is given (a file name or a binary file object) and returns
    the path; otherwise returns the matplotlib Axes.
    """
    import numpy as np

    if metric not in results.df.columns:
        raise ValueError(f"metric = {metric!r} is not a result column; metrics: {', '.join(results.metrics)}")
    x, by, others = choose_axes(results, x, by)
    ok = results.ok
    own = ax is None
    if own:
        fig, ax = plt.subplots(figsize=(7.5, 4.6))
    else:
        fig = ax.figure
    info = results.param_info() if hasattr(results, "param_info") else {}
    xs_all = _distinct(results.df[x]) if x in results.df else []
    nums, unit = numeric_values(xs_all)
    unit = unit or ((info.get(x) or {}).get("unit") or "")
    groups = [(None, ok)] if by is None else [(v, ok[ok[by] == v]) for v in _distinct(results.df[by])]
    for i, (val, d) in enumerate(groups):
        if not len(d):
            continue
        g = d.groupby(x, sort=False)[metric]
        stats = g.agg(["mean", "std", "count"]).reindex([v for v in xs_all if v in set(d[x])])
        label = None if by is None else f"{by} = {val}"
        if nums is not None:
            pos = dict(zip(map(repr, xs_all), nums))
            xv = np.array([pos[repr(v)] for v in stats.index])
            order = np.argsort(xv)
            xv, mean, std = xv[order], stats["mean"].to_numpy()[order], stats["std"].fillna(0).to_numpy()[order]
            line, = ax.plot(xv, mean, marker="o", ms=4, lw=1.5, label=label)
            if stats["count"].max() > 1:
                ax.fill_between(xv, mean - std, mean + std, color=line.get_color(), alpha=0.15, lw=0)
        else:
            pos = {repr(v): j for j, v in enumerate(xs_all)}
            xv = np.array([pos[repr(v)] for v in stats.index], dtype=float)
            off = 0.0 if len(groups) == 1 else (i - (len(groups) - 1) / 2) * 0.8 / len(groups)
            ax.errorbar(xv + off, stats["mean"], yerr=stats["std"].fillna(0), fmt="o", capsize=3, ms=5, label=label)
    if nums is not None and min(nums) > 0 and ((info.get(x) or {}).get("scale") == "log" or max(nums) / min(nums) >= 100):
        ax.set_xscale("log")
        ax.set_xticks(sorted(set(nums)))
        ax.set_xticklabels([f"{v:g}" for v in sorted(set(nums))])
        ax.minorticks_off()
    if nums is None:
        ax.set_xticks(range(len(xs_all)))
        ax.set_xticklabels([str(v) for v in xs_all], rotation=20 if len(xs_all) > 4 else 0, ha="right" if len(xs_all) > 4 else "center")
    ax.set_xlabel(f"{x} ({unit})" if unit else x)
    ax.set_ylabel(metric)
    ax.grid(alpha=0.3)
    if by is not None and ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="best")
    seeds = int(ok.groupby([c for c in [x, by, *others] if c is not None], dropna=False).size().max()) if len(ok) else 0
    sub = f"mean over {seeds} seed{'s' if seeds != 1 else ''}" + (", band: +- 1 std" if seeds > 1 else "")
    if others:
        sub += "; averaged over " + ", ".join(others)
    ax.set_title(title or f"{results.name}: {metric}\n{sub}", fontsize=10)
    if own:
        fig.tight_layout()
    if path is None:
        return ax
    fig.savefig(path, dpi=100, format="png")
    if own:
        plt.close(fig)
    return path
