"""Plots (matplotlib): a run's four panels, the seed-003 ABR graphs and sweep summaries.

No backend is chosen here: in a notebook the figures show inline, in a script
``plt.show()`` works. Figures written to a file are made without pyplot, so they need no
display and leave pyplot's state alone; the ``atmsim`` command sets the non-interactive
Agg backend for itself. Such a figure costs 43 % less CPU than a new one laid out by
``tight_layout`` and written by ``savefig`` (issue 14; mean of ten abr-buffers,
erica-testing and kvr-dynamics case figures: 378 -> 217 ms): each thread keeps its figures
for files and empties them for the next one (:func:`figure_grid`), lays them out from the
sizes of their texts alone (:func:`fit_layout`) and writes them without font hinting, as RGB
with zlib's run-length strategy (:func:`save_png`).

Panels stay readable with many sources: past :data:`MAX_LINES` lines a panel draws the
median and the min-max band of the family and labels only the top few (and the lowest)
lines. Legends sit outside the axes, never over data.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional, Union

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .result import RunResult

#: More lines than this in one panel are drawn as a median and a min-max band.
MAX_LINES = 8
#: With a band, the lines drawn and labelled on their own: the highest ones ...
TOP_K = 3


#: rcParams of the figures written to files: glyphs drawn without FreeType's hinting.
#: Text is the largest cost of a figure, and a glyph costs about a third less unhinted (a
#: 22-character legend label: 2.6 -> 1.6 ms to draw, 0.72 -> 0.47 ms to measure; a case
#: figure: 255 -> 229 ms on average); at these sizes (7-12 pt, 90-110 dpi) the labels look
#: the same.
DRAW_RC = {"text.hinting": "no_hinting"}


def _new_figure(path: Any, figsize: tuple[float, float], dpi: int = 100) -> "Figure":
    """A figure: through pyplot when it is to be shown (no ``path``), so it displays inline
    or with ``plt.show()``; a bare Figure at the ``dpi`` it is written at when it is only
    written to a file, so that its layout and its draw use one renderer and each text is
    measured once."""
    if path is None:
        import matplotlib.pyplot as plt

        return plt.figure(figsize=figsize)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, dpi=dpi)
    FigureCanvasAgg(fig)  # a renderer for the layout, without pyplot or a display
    return fig


#: Per thread, the figures kept for files by :func:`figure_grid`.
_KEPT = threading.local()


def figure_grid(path: Any, figsize: tuple[float, float], dpi: int, rows: int,
                cols: int) -> "tuple[Figure, np.ndarray]":
    """A figure and its ``rows`` x ``cols`` axes (a 2-D array, x shared) to draw one
    figure in. To be shown (no ``path``): a new pyplot figure. To be written to a file
    (:func:`save_png`): a bare figure this thread keeps, one per size, dpi and grid, emptied
    (:func:`_empty`) of the figure drawn in it last; a new one if the rcParams changed
    since. Its axes, ticks and renderer (which keeps the sizes of the texts it measured)
    are made once: 293 -> 217 ms of CPU per later figure (mean of ten abr-buffers,
    erica-testing and kvr-dynamics case figures), for the same PNG, pixel for pixel."""
    import matplotlib

    if path is None:
        fig = _new_figure(None, figsize)
        return fig, fig.subplots(rows, cols, sharex=True, squeeze=False)
    kept = _KEPT.__dict__.setdefault("figures", {})
    key = (figsize, dpi, rows, cols)
    rc = dict(dict.items(matplotlib.rcParams))  # raw: reading rcParams['backend'] may pick one
    if key in kept and kept[key][2] == rc:
        _empty(*kept[key][:2])
    else:
        fig = _new_figure(path, figsize, dpi)
        kept[key] = (fig, fig.subplots(rows, cols, sharex=True, squeeze=False), rc)
    return kept[key][:2]


def _empty(fig: "Figure", axes: "np.ndarray") -> None:
    """Takes from ``fig`` what a figure drew in it (lines, bands, texts, legends, axis
    labels, titles, limits, layout) and puts back the defaults (autoscaled limits, the first
    colour of the cycle, the rcParams margins); keeps the axes and their ticks."""
    import matplotlib

    fig.subplots_adjust(**{k: matplotlib.rcParams[f"figure.subplot.{k}"]
                           for k in ("left", "right", "bottom", "top", "wspace", "hspace")})
    title = getattr(fig, "_suptitle", None)  # the Text of fig.suptitle(), if any
    if title is not None:
        title.set_text("")
    for ax in axes.flat:
        for artist in [*ax.lines, *ax.collections, *ax.patches, *ax.texts, *ax.images]:
            artist.remove()
        if ax.get_legend() is not None:
            ax.get_legend().remove()
        ax.set(title="", xlabel="", ylabel="", xlim=(0, 1), ylim=(0, 1))
        ax.set_prop_cycle(None)
    for ax in axes.flat:  # once all limits are set: setting a shared one turns autoscale off
        ax.relim()
        ax.set_autoscale_on(True)


def tight_layout(fig: "Figure") -> None:
    """Lays the figure out once, tightly (room for the legends beside the axes; cheaper than
    "constrained"), and leaves it without a layout engine. ``Figure.tight_layout`` leaves a
    placeholder engine behind, and ``savefig`` then draws the whole figure a second time
    (text laid out, nothing rendered) before the real draw: the same PNG bytes for a sixth
    more CPU per figure (measured on an abr-buffers case figure: 0.60 s -> 0.50 s).
    :func:`fit_layout` is cheaper still."""
    fig.tight_layout()
    fig.set_layout_engine(None)


def _axis_depth(axis: Any, renderer: Any, across: int) -> "tuple[float, list]":
    """How far (pixels) the ticks, tick labels and label of ``axis`` reach out from the
    axes (``across``: 0 for the widths of a y axis' texts, 1 for the heights of an x
    axis'), and the boxes of the tick labels it draws, in order."""
    px = renderer.points_to_pixels(1.0)
    axis.get_ticklabels()  # places the ticks and sets their labels, as the draw does
    lo, hi = sorted(axis.get_view_interval())
    tol = (hi - lo) * 1e-10
    locs = axis.get_majorticklocs()
    ticks = axis.get_major_ticks(len(locs))
    depth = ticks[0].get_tick_padding() * px if ticks else 0.0
    boxes = [t.label1.get_window_extent(renderer) for t, v in zip(ticks, locs)
             if lo - tol <= v <= hi + tol and t.label1.get_visible() and t.label1.get_text()]
    if boxes:
        depth += ticks[0].get_pad() * px + max(b.size[across] for b in boxes)
    if axis.label.get_visible() and axis.label.get_text():
        depth += axis.labelpad * px + axis.label.get_window_extent(renderer).size[across]
    return depth, boxes


def _overhang(ax: "Axes", renderer: Any) -> "tuple[float, float, float, float]":
    """How far (pixels) what belongs to ``ax`` reaches past its box on the left, right,
    bottom and top: ticks, tick labels and labels of a left y axis and a bottom x axis,
    the title, the y axis' offset text (``1e6``) and the legend."""
    import matplotlib

    left, _ = _axis_depth(ax.yaxis, renderer, 0)
    bottom, xboxes = _axis_depth(ax.xaxis, renderer, 1)
    # The end x tick labels are centred on their ticks, which may be at the ends.
    right = xboxes[-1].width / 2 if xboxes else 0.0
    left = max(left, xboxes[0].width / 2 if xboxes else 0.0)
    offset = ax.yaxis.get_offset_text()
    offset.set_text(ax.yaxis.get_major_formatter().get_offset())  # as the draw does
    top = 0.0
    for text in (offset, ax.title):
        if text.get_visible() and text.get_text():
            top += text.get_window_extent(renderer).height
    if ax.title.get_text():
        top += renderer.points_to_pixels(matplotlib.rcParams["axes.titlepad"])
    leg = ax.get_legend()
    if leg is not None and leg.get_visible():
        lb, ab = leg.get_window_extent(renderer), ax.bbox
        left, right = max(left, ab.x0 - lb.x0), max(right, lb.x1 - ab.x1)
        bottom, top = max(bottom, ab.y0 - lb.y0), max(top, lb.y1 - ab.y1)
    return left, right, bottom, top


def fit_layout(fig: "Figure", pad: float = 1.08) -> None:
    """Sets the margins and gaps of the figure's grid of axes so that what sits beside
    each axes (:func:`_overhang`: tick labels, axis labels, title, a legend outside it)
    and the suptitle fit, ``pad`` font sizes apart: the layout of ``Figure.tight_layout``,
    from the sizes of those texts alone, measured by the renderer that draws them next
    (which keeps them), where ``tight_layout`` measures every artist of the figure once
    more: 244 -> 214 ms per case figure on average. Leaves the layout as it is if the
    figure is too small for it."""
    import matplotlib
    import numpy as np

    axes = [ax for ax in fig.axes if ax.get_visible() and ax.get_subplotspec() is not None]
    if not axes:
        return
    renderer = fig.canvas.get_renderer()
    rows, cols = axes[0].get_subplotspec().get_gridspec().get_geometry()
    gap = renderer.points_to_pixels(pad * matplotlib.rcParams["font.size"])
    across = np.zeros((rows, cols + 1))  # what reaches into each column gap, per row
    down = np.zeros((rows + 1, cols))  # ... into each row gap, per column
    for ax in axes:
        spec = ax.get_subplotspec()
        rs, cs = spec.rowspan, spec.colspan
        left, right, bottom, top = _overhang(ax, renderer)
        across[rs, cs.start] += left
        across[rs, cs.stop] += right
        down[rs.start, cs] += top
        down[rs.stop, cs] += bottom
    width, height = fig.bbox.width, fig.bbox.height
    lm, rm = across[:, 0].max() + gap, across[:, -1].max() + gap
    bm, tm = down[-1].max() + gap, down[0].max() + gap
    title = getattr(fig, "_suptitle", None)  # the Text of fig.suptitle(), if any
    if title is not None and title.get_visible() and title.get_text() and title.get_in_layout():
        tm += title.get_window_extent(renderer).height + gap
    wgap = across[:, 1:-1].max() + gap if cols > 1 else 0.0
    hgap = down[1:-1].max() + gap if rows > 1 else 0.0
    aw = (width - lm - rm - (cols - 1) * wgap) / cols
    ah = (height - bm - tm - (rows - 1) * hgap) / rows
    if aw > 0 and ah > 0:
        fig.subplots_adjust(left=lm / width, right=1 - rm / width, bottom=bm / height,
                            top=1 - tm / height, wspace=wgap / aw, hspace=hgap / ah)


def save_png(fig: "Figure", path: "Union[str, Path]") -> Path:
    """Lays out (:func:`fit_layout`), draws (with :data:`DRAW_RC`) and writes a figure
    made to be written (:func:`figure_grid`) as a PNG at its own dpi: RGB when it is
    opaque, compressed with zlib's run-length strategy. ``savefig`` writes RGBA at zlib
    level 6: 253 -> 229 ms per case figure on average, for files 7 % smaller."""
    import zlib

    import matplotlib
    import numpy as np
    from PIL import Image, PngImagePlugin

    path = Path(path)
    with matplotlib.rc_context(DRAW_RC):
        fit_layout(fig)
        fig.canvas.draw()
    rgba = np.asarray(fig.canvas.buffer_rgba())
    image = Image.fromarray(rgba[..., :3] if (rgba[..., 3] == 255).all() else rgba)
    info = PngImagePlugin.PngInfo()
    info.add_text("Software", f"Matplotlib version{matplotlib.__version__}, https://matplotlib.org/")
    image.save(path, format="png", pnginfo=info, dpi=(fig.dpi, fig.dpi), compress_type=zlib.Z_RLE)
    return path


#: The formats a plot is written in, by its file name's extension (no extension: PNG).
PLOT_FORMATS = {".png": "png", ".pdf": "pdf", ".svg": "svg"}


def plot_format(path: Any) -> str:
    """The format a plot written to ``path`` takes, from its extension: ``"png"`` (also a
    file object, or no extension), ``"pdf"`` or ``"svg"``. Any other extension raises
    ValueError, before anything is drawn: the file would hold other data than its name says;
    anything but a path (str or os.PathLike) or a file object, a TypeError naming ``path``."""
    if not isinstance(path, (str, Path)) and not hasattr(path, "__fspath__"):
        if callable(getattr(path, "write", None)):
            return "png"  # a binary file object
        from .result import path_argument

        path_argument(path, "path", "a file path or a binary file object")  # raises the TypeError
    suffix = Path(path).suffix
    if not suffix:
        return "png"
    fmt = PLOT_FORMATS.get(suffix.lower())
    if fmt is None:
        raise ValueError(f"path = {str(path)!r}: a plot is written as PNG, PDF or SVG; give a file name ending "
                         f"in .png, .pdf or .svg (not {suffix!r})")
    return fmt


def save_figure(fig: "Figure", path: "Union[str, Path]") -> Path:
    """Writes a figure made to be written (:func:`figure_grid`) in the format its extension
    names (:func:`plot_format`): a PNG by :func:`save_png`, a PDF or SVG by ``savefig``
    (laid out the same way)."""
    import matplotlib

    fmt = plot_format(path)
    if fmt == "png":
        return save_png(fig, path)
    with matplotlib.rc_context(DRAW_RC):
        fit_layout(fig)
        fig.savefig(path, format=fmt, dpi=fig.dpi)
    return Path(path)


def _finish(fig: "Figure", path: Any) -> "Union[Path, Figure]":
    """Writes the figure to ``path`` (in the format its extension names) and returns the
    path; without a path, returns the figure laid out for any backend (:func:`tight_layout`)."""
    if path is None:
        tight_layout(fig)
        return fig
    return save_figure(fig, path)


def _legend_outside(ax: "Axes") -> None:
    """A legend to the right of the axes (never over the data), if anything is labelled."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
                  frameon=False)


def draw_family(ax: "Axes", lines: "list[tuple[str, Any, Any]]", what: str,
                lw: float = 0.9, max_lines: int = MAX_LINES, top_k: int = TOP_K,
                rank: str = "final") -> None:
    """Draws ``lines`` (``(label, x, y)``, all on the same x) in one panel: each one
    labelled when there are at most ``max_lines``; otherwise the median and the min-max
    band of all ``len(lines)`` ``what`` (connections, ports), plus the ``top_k`` lines with
    the highest value and the one with the lowest, labelled; ``rank`` says which value:
    ``"final"`` (for cumulative counts) or ``"max"`` (for queues and utilization)."""
    import numpy as np

    if len(lines) <= max_lines:
        for label, x, y in lines:
            ax.plot(x, y, label=label, lw=lw)
        return
    x = np.asarray(lines[0][1], dtype=float)
    ys = np.vstack([np.asarray(y, dtype=float) for _, _, y in lines])
    n = len(lines)
    ax.fill_between(x, ys.min(axis=0), ys.max(axis=0), color="tab:gray", alpha=0.3, lw=0,
                    label=f"range of {n} {what}")
    ax.plot(x, np.median(ys, axis=0), color="black", lw=1.3, label=f"median of {n} {what}")
    if not ys.shape[1]:
        key = np.zeros(n)
    else:
        key = ys.max(axis=1) if rank == "max" else ys[:, -1]
    order = list(np.argsort(-key, kind="stable"))
    picks = order[:top_k] + [order[-1]]
    for j, i in enumerate(dict.fromkeys(picks)):
        tag = "lowest" if j == len(picks) - 1 and i == order[-1] and n > top_k else f"top {j + 1}"
        ax.plot(x, ys[i], lw=lw * 0.9, label=f"{lines[i][0]} ({tag})")


class SeriesGroups(dict):
    """What :func:`split_series` returns: ``{name: {column: array}}``, in the order the names
    first appear; ``groups[name]`` of a name without rows gives empty arrays of each column."""

    def __init__(self, groups: dict, empty: dict):
        super().__init__(groups)
        self.empty = empty

    def __missing__(self, name: Any) -> dict:
        return self.empty


def split_series(df: Any, key: str, columns: "dict[str, Optional[Callable]]") -> SeriesGroups:
    """A long-format time series (``df``: one row per sample and ``key``, e.g. a port) split
    by ``key``: ``{name: {column: array}}`` for each of ``columns``, each column first passed
    through its function (``None``: as it is), in the order the names first appear, each
    name's rows in their order in ``df``, as ``df.groupby(key, sort=False)`` groups them
    (rows whose key is missing are dropped).

    One pass over the rows (a stable sort when a name's rows are not contiguous) and a view
    per name, where one boolean filter per name (``df[df[key] == name]``) reads every row
    once per name: 33 s for the plot of a 10 000-VC run's 500 000 rows, now 0.5 s."""
    import numpy as np
    import pandas as pd

    cols = {}
    for c, f in columns.items():
        v = df[c].to_numpy()
        cols[c] = v if f is None else np.asarray(f(v))
    empty = {c: v[:0] for c, v in cols.items()}
    if not len(df):
        return SeriesGroups({}, empty)
    codes, names = pd.factorize(df[key], sort=False)  # first appearance; a missing key: -1
    codes = np.asarray(codes)
    if len(codes) > 1 and (np.diff(codes) < 0).any():  # names not in blocks: sort once
        order = np.argsort(codes, kind="stable")
        codes = codes[order]
        cols = {c: v[order] for c, v in cols.items()}
    ends = np.searchsorted(codes, np.arange(len(names) + 1), side="left")
    return SeriesGroups({name: {c: v[ends[i]:ends[i + 1]] for c, v in cols.items()}
                         for i, name in enumerate(names)}, empty)


def has_time_series(result: "RunResult") -> bool:
    """Whether a run recorded time series (not with ``measurement.sample_interval = "0 s"``):
    what :func:`plot_run` draws."""
    return bool(len(result.port_series) or len(result.connection_series) or len(result.abr_series))


def no_series_reason(result: "RunResult", scenario: Optional[dict] = None) -> str:
    """Why a run has no time series, in a few words (``scenario``: the scenario dict run, if
    at hand, so that a large result's scenario is not decoded for it)."""
    sc = result.scenario if scenario is None else scenario
    si = (sc.get("measurement") or {}).get("sample_interval")
    if si is not None and _is_zero(si):
        return f"sample_interval = {si}" if isinstance(si, str) else f"sample_interval = {si!r}"
    if result.partial:
        return "the run stopped before its first sample"
    return "no samples"


def _is_zero(quantity: Any) -> bool:
    """Whether a quantity (``"0 s"``, ``"0ms"``, ``0``) is zero."""
    import re

    if isinstance(quantity, (int, float)) and not isinstance(quantity, bool):
        return quantity == 0
    m = re.match(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)", str(quantity))
    return bool(m) and float(m.group(1)) == 0


def _plot_no_series(result: "RunResult", path: Any) -> "Union[Path, Figure]":
    """The figure of a run without time series: its name and one line saying so (no empty
    axes), cheap at any size."""
    fig = _new_figure(path, (6.5, 1.4), 100)
    fig.text(0.5, 0.72, str(result.summary.get("name", "")), ha="center", va="center", fontsize=11)
    fig.text(0.5, 0.32, f"no time series ({no_series_reason(result)}): nothing to plot against time.\n"
             f"Set measurement.sample_interval (e.g. \"1 ms\") to record them.",
             ha="center", va="center", fontsize=9, color="0.3", linespacing=1.5)
    if path is None:
        return fig
    return save_figure(fig, path)


def _file_path(path: Any) -> None:
    """Checks a figure's ``path`` before anything is drawn: None, or a str or os.PathLike
    (TypeError naming ``path`` otherwise) with the extension of a format it is written in
    (:func:`plot_format`)."""
    if path is not None:
        from .result import path_argument

        path_argument(path, "path")
        plot_format(path)


#: The utilization panels' scale: percent of the link rate (the tables hold the fraction 0-1).
UTILIZATION_LABEL = "link utilization (%)"


def plot_abr(result: "RunResult", path: "Union[str, Path, None]" = None,
             title: Optional[str] = None) -> "Union[Path, Figure]":
    """The four graphs of seed 003 (section 5) against time, in one figure:
    (a) allowed cell rate per source, (b) queue length per switch port, (c) link utilization
    (%) per switch port, (d) cells received per destination. A run that also has TCP
    connections outside ABR (UBR TCP beside the ABR sources) gets a third row for them:
    (e) their cwnd and (f) the cells they received.

    Writes a PNG (a PDF or SVG for a name ending in .pdf or .svg) and returns its path when
    ``path`` is given; otherwise returns the figure (shown inline in a notebook)."""
    _file_path(path)  # a wrong path or extension, before the figure is drawn
    tcp = tcp_outside_abr(result)
    rows = 3 if len(tcp) else 2
    fig, axes = figure_grid(path, (13, 4 * rows), 100, rows, 2)
    _abr_panels(result, axes)
    if len(tcp):
        _tcp_panels(result, axes[2], tcp)
    for ax in axes.flat:
        ax.grid(alpha=0.3)
        _legend_outside(ax)
    for ax in axes[-1]:
        ax.set_xlabel("time (ms)")
    fig.suptitle(title or result.summary["name"])
    return _finish(fig, path)


def _abr_panels(result: "RunResult", axes: "np.ndarray") -> None:
    """Seed 003's four graphs (:func:`plot_abr`) in the first two rows of ``axes``, time in ms."""
    ms = 1e3
    ab = split_series(result.abr_series, "source", {"time_s": lambda t: t * ms, "acr_mbps": None, "cells_received": None})
    acr = [(name, d["time_s"], d["acr_mbps"]) for name, d in ab.items()]
    received = [(name, d["time_s"], d["cells_received"]) for name, d in ab.items()]
    draw_family(axes[0, 0], acr, "sources", rank="max")
    draw_family(axes[1, 1], received, "sources")
    ports = result.ports
    kinds = {n["name"]: n["kind"] for n in result.scenario.get("node", [])}
    used = ports[(ports["is_switch"]) & (ports["sent"] > 0)] if len(ports) else ports
    # The seed's graphs show the links between switches; fall back to all switch ports.
    trunk = used[used["toward"].map(kinds) == "switch"] if len(used) else used
    show = trunk if len(trunk) else used
    by_port = split_series(result.port_series, "port",
                           {"time_s": lambda t: t * ms, "max_queue_cells": None,
                            "utilization": lambda u: u * 100})
    queue, util = [], []
    for port in (show["name"] if len(show) else []):
        d = by_port[port]  # a port without rows: empty arrays, an empty line (as before)
        queue.append((port, d["time_s"], d["max_queue_cells"]))
        util.append((port, d["time_s"], d["utilization"]))
    draw_family(axes[0, 1], queue, "ports", rank="max")
    draw_family(axes[1, 0], util, "ports", rank="max")
    axes[0, 0].set_ylabel("(a) allowed cell rate (Mbit/s)")
    axes[0, 1].set_ylabel("(b) queue length (cells, max over interval)")
    axes[1, 0].set_ylabel(f"(c) {UTILIZATION_LABEL}")
    axes[1, 1].set_ylabel("(d) cells received")


def tcp_outside_abr(result: "RunResult") -> "dict[str, str]":
    """The TCP connections of a run that are not ABR sources (UBR TCP beside ABR sources;
    TCP over ABR is drawn with the ABR sources), ``{name: service}`` in the table's order."""
    c = getattr(result, "connections", None)  # a stand-in for a result may have only the series
    if c is None or not len(c) or "traffic" not in c or "service" not in c:
        return {}
    rows = c[(c["traffic"] == "tcp") & (c["service"] != "abr")]
    return dict(zip(rows["name"].tolist(), rows["service"].tolist()))


def _tcp_panels(result: "RunResult", axes: "np.ndarray", tcp: "dict[str, str]") -> None:
    """The third row of :func:`plot_abr`: (e) cwnd and (f) cells received of the TCP
    connections outside ABR (``tcp``), time in ms."""
    ms = 1e3
    cs = split_series(result.connection_series, "connection",
                      {"time_s": lambda t: t * ms, "cwnd_bytes": lambda b: b / 1024, "cells_received": None})
    cwnd = [(name, cs[name]["time_s"], cs[name]["cwnd_bytes"]) for name in tcp]
    received = [(name, cs[name]["time_s"], cs[name]["cells_received"]) for name in tcp]
    kind = "/".join(sorted({str(v).upper() for v in tcp.values()})) + " TCP"
    draw_family(axes[0], cwnd, "connections", lw=0.7)
    draw_family(axes[1], received, "connections", lw=0.7)
    axes[0].set_ylabel(f"(e) cwnd (KiB), {kind}")
    axes[1].set_ylabel(f"(f) cells received, {kind}")


def plot_run(result: "RunResult", path: "Union[str, Path, None]" = None) -> "Union[Path, Figure]":
    """Four panels against time. With ABR sources: the four graphs of seed 003
    (:func:`plot_abr`; with TCP connections outside ABR too, a third row of their cwnd and
    cells received); otherwise switch queue lengths, link utilization (%), cwnd and cells
    received.

    Writes a PNG (a PDF or SVG for a name ending in .pdf or .svg) and returns its path when
    ``path`` (str or os.PathLike) is given; otherwise returns the figure (shown inline in a
    notebook).

    A run without time series (``measurement.sample_interval = "0 s"``; see
    :func:`has_time_series`) has nothing to draw against time: instead of four empty axes,
    the figure (or file) is a short note naming the run and saying so, with no axes
    (``fig.axes`` is empty), drawn at any network size in a fraction of a second. The
    ``atmsim run --out`` command writes no plot then and says why; ``RunResult.save`` still
    writes its run.png, as this note."""
    _file_path(path)  # a wrong path or extension, before the figure is drawn
    if not has_time_series(result):
        return _plot_no_series(result, path)
    if len(result.abr_series):
        return plot_abr(result, path)
    fig, axes = figure_grid(path, (13, 8), 110, 2, 2)
    busy = result.ports[(result.ports["is_switch"]) & (result.ports["max_queue_cells"] > 0)]["name"] if len(result.ports) else []
    by_port = split_series(result.port_series, "port",
                           {"time_s": None, "max_queue_cells": None, "utilization": lambda u: u * 100})
    queue, util = [], []
    for port in busy:
        d = by_port[port]  # a port without rows: empty arrays, an empty line (as before)
        queue.append((port, d["time_s"], d["max_queue_cells"]))
        util.append((port, d["time_s"], d["utilization"]))
    draw_family(axes[0, 0], queue, "ports", lw=0.8, rank="max")
    draw_family(axes[0, 1], util, "ports", lw=0.8, rank="max")
    cs = split_series(result.connection_series, "connection",
                      {"time_s": None, "cwnd_bytes": lambda b: b / 1024, "cells_received": None})
    cwnd = [(name, d["time_s"], d["cwnd_bytes"]) for name, d in cs.items()]
    received = [(name, d["time_s"], d["cells_received"]) for name, d in cs.items()]
    draw_family(axes[1, 0], cwnd, "connections", lw=0.7)
    draw_family(axes[1, 1], received, "connections", lw=0.7)
    axes[0, 0].set_ylabel("queue (cells, max over interval)")
    axes[0, 1].set_ylabel(UTILIZATION_LABEL)
    axes[1, 0].set_ylabel("cwnd (KiB)")
    axes[1, 1].set_ylabel("cells received")
    for ax in axes.flat:
        ax.grid(alpha=0.3)
        _legend_outside(ax)
    for ax in axes[1]:
        ax.set_xlabel("time (s)")
    fig.suptitle(result.summary["name"])
    return _finish(fig, path)


# --------------------------------------------------------------------------- throughput

#: Past this many connections, :func:`plot_throughput` draws the half with the highest
#: goodput and the half with the lowest (connections.csv has them all).
MAX_BARS = 60
#: Bar colours of :func:`plot_throughput`, by service class (others: grey).
SERVICE_COLORS = {"abr": "tab:blue", "ubr": "tab:orange", "vbr": "tab:green", "cbr": "tab:red"}


def plot_throughput(result: "RunResult", path: "Union[str, Path, None]" = None,
                    max_bars: int = MAX_BARS) -> "Union[Path, Figure]":
    """Goodput per connection in Mbit/s, one horizontal bar each (coloured by service
    class), its throughput (all cells delivered, overheads and retransmissions included)
    as a pale bar behind it, and its max-min fair share as a black tick where there is one:
    what one compares first across allocators. The first connection is at the top; the
    figure grows with the connections (a fifth of an inch each), so 40 or 60 stay
    readable; past ``max_bars``, the half with the highest goodput and the half with the
    lowest are drawn, ranked, and the title says so.

    Writes a PNG (a PDF or SVG for a name ending in .pdf or .svg) and returns its path when
    ``path`` (str or os.PathLike) is given; otherwise returns the figure."""
    import numpy as np

    _file_path(path)
    rows, note = _bar_rows(result.connections, max_bars)
    n = len(rows)
    fig = _new_figure(path, (8.0, max(2.5, 1.2 + 0.2 * n)), 100)
    ax = fig.subplots()
    if not n:
        ax.text(0.5, 0.5, "no connections", ha="center", va="center", transform=ax.transAxes)
    else:
        y = np.arange(n)
        mbps = {k: rows[k].astype(float).to_numpy() / 1e6 if k in rows else np.full(n, np.nan)
                for k in ("goodput_bps", "throughput_bps", "fair_share_bps")}
        ax.barh(y, mbps["throughput_bps"], height=0.8, color="0.85", label="throughput")
        services = rows["service"].astype(str).tolist() if "service" in rows else ["?"] * n
        for service in dict.fromkeys(services):
            at = np.array([s == service for s in services])
            ax.barh(y[at], mbps["goodput_bps"][at], height=0.5, color=SERVICE_COLORS.get(service, "tab:gray"),
                    label=f"goodput, {service.upper()}")
        fair = ~np.isnan(mbps["fair_share_bps"])
        if fair.any():
            ax.scatter(mbps["fair_share_bps"][fair], y[fair], marker="|", s=120, color="black", zorder=3,
                       label="max-min fair share")
        ax.set_yticks(y)
        ax.set_yticklabels(rows["name"].astype(str).tolist(), fontsize=8 if n <= 30 else 7)
        ax.set_ylim(n - 0.5, -0.5)  # the first connection at the top
    ax.set_xlabel("Mbit/s")
    ax.grid(axis="x", alpha=0.3)
    _legend_outside(ax)
    ax.set_title(f"{result.summary['name']}: goodput per connection" + (f"\n{note}" if note else ""), fontsize=10)
    return _finish(fig, path)


def _bar_rows(connections: Any, max_bars: int) -> "tuple[Any, str]":
    """The connections :func:`plot_throughput` draws, and a note on those left out: all of
    them up to ``max_bars``; past it, the ``max_bars // 2`` highest goodputs and as many
    lowest, ranked (ties in the table's order)."""
    import numpy as np

    n = len(connections)
    if n <= max_bars:
        return connections, ""
    half = max(1, max_bars // 2)
    rank = np.argsort(-connections["goodput_bps"].astype(float).fillna(-np.inf).to_numpy(), kind="stable")
    rows = connections.iloc[np.r_[rank[:half], rank[-half:]]]
    return rows, f"the {half} highest and {half} lowest goodputs of {n} connections (all in result.connections)"


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


def legend_label(name: str, value: Any, info: "dict[str, dict]") -> str:
    """A sweep plot's legend entry for parameter ``name`` at ``value``: ``"buffer = 1000
    cells"`` when the manifest (``info``: :meth:`SweepResults.param_info`) gives the
    parameter a unit and the value is a bare number (a value written with its unit, or
    without a number, is shown as it is)."""
    unit = (info.get(name) or {}).get("unit") or ""
    bare = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not bare and hasattr(value, "item") and type(value).__module__ == "numpy":
        bare = isinstance(value.item(), (int, float)) and not isinstance(value.item(), bool)
    return f"{name} = {value} {unit}" if unit and bare else f"{name} = {value}"


def plot_sweep(results, metric: str = "efficiency", x: str | None = None, by: str | None = None,
               path=None, ax=None, title: str | None = None):
    """One metric of a sweep against a parameter: one line per value of parameter ``by``
    (a policy, an algorithm), the mean over seeds with a band of +- one standard
    deviation (error bars for a categorical x). Other parameters are averaged over (said in
    the title). ``results`` is a :class:`atmsim.store.SweepResults`.

    Writes a PNG when ``path`` is given (a file name or a binary file object; a PDF or SVG
    for a name ending in .pdf or .svg) and returns the path; otherwise returns the
    matplotlib Axes.
    """
    import numpy as np

    fmt = None if path is None else plot_format(path)  # a wrong extension, before anything is drawn

    results.check_metric(metric)
    x, by, others = choose_axes(results, x, by)
    ok = results.ok
    own = ax is None
    if own:
        fig = _new_figure(path, (7.5, 4.6))
        ax = fig.subplots()
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
        label = None if by is None else legend_label(by, val, info)
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
    if by is not None:
        _legend_outside(ax)
    seeds = int(ok.groupby([c for c in [x, by, *others] if c is not None], dropna=False).size().max()) if len(ok) else 0
    sub = f"mean over {seeds} seed{'s' if seeds != 1 else ''}" + (", band: +- 1 std" if seeds > 1 else "")
    if others:
        sub += "; averaged over " + ", ".join(others)
    ax.set_title(title or f"{results.name}: {metric}\n{sub}", fontsize=10)
    if path is None:
        return ax
    _save_sweep_plot(fig, path, fmt, own)
    return path


def _save_sweep_plot(fig: "Figure", path: Any, fmt: str, own: bool) -> None:
    """Writes a sweep plot with its legend beside the axes: a figure made here laid out by
    :func:`fit_layout` (room for the legend, as :func:`save_figure`), one the caller gave
    (its ``ax``) cropped to what it draws, its layout left alone. ``path`` may be a file object."""
    import matplotlib

    with matplotlib.rc_context(DRAW_RC):
        if own:
            fit_layout(fig)
            fig.savefig(path, dpi=100, format=fmt)
        else:
            fig.savefig(path, dpi=100, format=fmt, bbox_inches="tight")
