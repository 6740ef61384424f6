"""Figures written to files (issue 14: plotting costs less): a figure drawn on a kept,
emptied figure is the PNG a new figure gives, pixel for pixel; the cheap layout keeps every
text inside the figure and legends off other axes and their labels."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import atmsim
from atmsim import plots
from atmsim.experiments import kvr_plots
from atmsim.experiments.kvr_dynamics import _specs
from conftest import small

ABR = dict(service="abr", abr={"icr": "10 Mbps"}, allocator={"kind": "erica"})


@pytest.fixture(scope="module")
def runs() -> dict[str, atmsim.RunResult]:
    """Figures of every kind: a band of 15 ABR sources, 2 ABR sources, UBR (plot_run),
    empty series, and a kvr-dynamics case (one column, a set y range, a title)."""
    return {
        "abr15": atmsim.run(small(15, duration="20 ms", sample_interval="1 ms", **ABR)),
        "abr2": atmsim.run(small(2, duration="5 ms", sample_interval="0.1 ms", **ABR)),
        "ubr3": atmsim.run(small(3, duration="20 ms", sample_interval="1 ms")),
        "empty": atmsim.run(small(2, duration="5 ms", sample_interval="0 s")),
        "r1-cells": atmsim.run(_specs()["r1-cells"](True)),
    }


def _draw(name: str, r: atmsim.RunResult, path) -> None:
    if name == "r1-cells":
        kvr_plots.plot_case(name, r, path)
    else:
        r.plot(path)


def _pixels(path) -> np.ndarray:
    from PIL import Image

    with Image.open(path) as im:
        assert im.mode == "RGB" and round(im.info["dpi"][0]) in (90, 100, 110)
        return np.asarray(im)


def test_kept_figure_draws_the_png_of_a_new_one(runs, tmp_path):
    """Each figure, drawn on the figures this thread keeps after the others were drawn in
    them (in both orders), is the PNG drawn on new figures (a new thread keeps none)."""
    (tmp_path / "new").mkdir()
    for name, r in runs.items():
        t = threading.Thread(target=_draw, args=(name, r, tmp_path / "new" / f"{name}.png"))
        t.start()
        t.join()
    for order in (list(runs), list(reversed(runs))):
        for name in order:
            _draw(name, runs[name], tmp_path / f"{name}.png")
        for name in runs:  # each one drawn after another kind or size of figure
            _draw(name, runs[name], tmp_path / f"{name}.png")
            assert np.array_equal(_pixels(tmp_path / f"{name}.png"), _pixels(tmp_path / "new" / f"{name}.png")), name


def _texts(ax) -> list:
    """The boxes of what ``ax`` draws beside itself: drawn tick labels, axis labels, legend."""
    r = ax.figure.canvas.get_renderer()
    boxes = []
    for axis in (ax.xaxis, ax.yaxis):
        lo, hi = sorted(axis.get_view_interval())
        locs = axis.get_majorticklocs()
        for tick, v in zip(axis.get_major_ticks(len(locs)), locs):
            if lo <= v <= hi and tick.label1.get_visible() and tick.label1.get_text():
                boxes.append(tick.label1.get_window_extent(r))
        if axis.label.get_text():
            boxes.append(axis.label.get_window_extent(r))
    if ax.get_legend() is not None:
        boxes.append(ax.get_legend().get_window_extent(r))
    return boxes


@pytest.mark.parametrize("name", ["abr15", "ubr3", "r1-cells"])
def test_layout_keeps_texts_in_the_figure_and_apart(runs, tmp_path, monkeypatch, name):
    """After :func:`atmsim.plots.fit_layout`: every label and legend inside the figure, none
    over another axes or what another axes draws beside itself."""
    drawn = []
    save = plots.save_png
    for module in (plots, kvr_plots):
        monkeypatch.setattr(module, "save_png", lambda fig, path: drawn.append(fig) or save(fig, path))
    _draw(name, runs[name], tmp_path / "f.png")
    fig = drawn[0]
    r = fig.canvas.get_renderer()
    whole = fig.bbox
    title = fig.get_suptitle() and fig._suptitle.get_window_extent(r)
    for ax in fig.axes:
        mine = _texts(ax)
        for b in mine + ([title] if title else []):
            assert whole.x0 <= b.x0 and b.x1 <= whole.x1 and whole.y0 <= b.y0 and b.y1 <= whole.y1, b
        for other in fig.axes:
            if other is ax:
                continue
            theirs = [other.bbox] + _texts(other) + ([title] if title else [])
            for b in mine:
                assert not any(b.overlaps(o) for o in theirs), (ax.get_ylabel(), other.get_ylabel(), b)


@pytest.mark.parametrize("name", ["ubr3", "abr2"])
def test_a_plot_is_written_in_the_format_its_extension_names(runs, tmp_path, name):
    """`plot("x.pdf")` and `.svg` wrote PNG data under those names; another extension is
    refused before anything is written, and PNGs stay what they were."""
    r = runs[name]
    before = r.plot(tmp_path / "before.png").read_bytes()
    assert r.plot(tmp_path / "p.pdf").read_bytes().startswith(b"%PDF-")
    svg = r.plot(str(tmp_path / "p.SVG")).read_bytes()
    assert b"<svg" in svg[:1000] and not svg.startswith(b"\x89PNG")
    assert r.plot(tmp_path / "after.png").read_bytes() == before  # the kept figure still draws the same PNG
    for bad in ("p.jpg", "p.html", "p.tiff"):
        with pytest.raises(ValueError, match=r"\.png, \.pdf or \.svg"):
            r.plot(tmp_path / bad)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["after.png", "before.png", "p.SVG", "p.pdf"]


def test_a_run_without_time_series_plots_a_note_not_empty_axes(runs, tmp_path):
    """With ``sample_interval = "0 s"`` the plot drew four empty axes (a time axis from
    -0.04 s, a legend "range of N ports"), 9 s at 100 000 VCs. Now it is a documented note:
    the run's name and why there is nothing to draw, no axes; a run with series still has
    its four panels."""
    r = runs["empty"]
    assert not plots.has_time_series(r) and plots.has_time_series(runs["ubr3"])
    assert plots.no_series_reason(r) == "sample_interval = 0 s"
    fig = r.plot()
    texts = [t.get_text() for t in fig.texts]
    assert fig.axes == [] and texts[0] == r.summary["name"]
    assert "no time series (sample_interval = 0 s)" in texts[1] and "measurement.sample_interval" in texts[1]
    png = r.plot(tmp_path / "note.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and _pixels(png).shape[:2] == (140, 650)
    assert r.plot(tmp_path / "note.pdf").read_bytes().startswith(b"%PDF-")
    panels = runs["ubr3"].plot()
    assert len(panels.axes) == 4
    import matplotlib.pyplot as plt

    plt.close(fig)
    plt.close(panels)
    # a result whose scenario does not say (given another dict): the reason, in general words
    assert plots.no_series_reason(r, {"measurement": {"duration": "5 ms"}}) == "no samples"
