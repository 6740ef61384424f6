"""Plots of large networks (a newcomer's review, 1 000 - 100 000 VCs): a run's figure splits
its time series by port, connection and source in one pass over the rows
(:func:`atmsim.plots.split_series`), where one boolean filter per busy port read every row
once per port (10 000 VCs, 500 000 rows: 33 s for the plot, against 0.4 s for the run). The
figures are the same PNGs, byte for byte."""

from __future__ import annotations

import types

import numpy as np
import pandas as pd
import pytest

import atmsim
from atmsim import plots
from conftest import small

ABR = dict(service="abr", abr={"icr": "10 Mbps"}, allocator={"kind": "erica"})


def _groupby(df, key, columns):
    """What the plots drew from before: the groups of ``df.groupby(key, sort=False)``."""
    return {name: {c: (d[c] if f is None else f(d[c])).to_numpy() for c, f in columns.items()}
            for name, d in df.groupby(key, sort=False)}


def _same(a: dict, b: dict) -> None:
    assert list(a) == list(b)  # the names, in the same order
    for name in a:
        assert list(a[name]) == list(b[name]), name
        for c in a[name]:
            x, y = a[name][c], b[name][c]
            assert x.dtype == y.dtype and np.array_equal(x, y), (name, c, x, y)


@pytest.mark.parametrize("layout", ["blocks", "interleaved"])
def test_split_series_gives_the_groups_of_groupby(layout):
    """Each name's rows in their order, names in the order they first appear, each column
    through its function; rows without a name are dropped (as groupby drops them)."""
    rng = np.random.default_rng(3)
    names = ["p3", "p1", "p2", "p10"]
    key = np.repeat(names, 5) if layout == "blocks" else np.array(names * 5)
    df = pd.DataFrame({"time_s": np.tile(np.arange(5.0), 4) if layout == "blocks" else np.repeat(np.arange(5.0), 4),
                       "port": key, "q": rng.integers(0, 100, 20), "u": rng.random(20)})
    if layout == "interleaved":
        df.loc[7, "port"] = None
    columns = {"time_s": lambda t: t * 1e3, "q": None, "u": lambda u: u * 100}
    got = plots.split_series(df, "port", columns)
    _same(got, _groupby(df, "port", columns))
    assert len(got) == 4 and sum(len(d["q"]) for d in got.values()) == (20 if layout == "blocks" else 19)
    missing = got["no such port"]  # a name without rows: empty arrays of each column's type
    assert {c: (len(v), v.dtype) for c, v in missing.items()} == {
        "time_s": (0, np.float64), "q": (0, df["q"].dtype), "u": (0, np.float64)}


def test_split_series_of_an_empty_table():
    df = pd.DataFrame({"time_s": [], "port": [], "q": []})
    got = plots.split_series(df, "port", {"time_s": None, "q": None})
    assert dict(got) == {} and len(got["x"]["time_s"]) == 0


@pytest.fixture(scope="module")
def runs() -> dict[str, atmsim.RunResult]:
    """A band of many ports and connections (UBR, 60 VCs), an ABR band (12 sources) and
    a few labelled lines (3 VCs)."""
    return {
        "ubr60": atmsim.run(small(60, duration="20 ms", sample_interval="1 ms", buffer="200 cells")),
        "abr12": atmsim.run(small(12, duration="10 ms", sample_interval="0.5 ms", **ABR)),
        "ubr3": atmsim.run(small(3, duration="20 ms", sample_interval="1 ms")),
    }


def test_the_grouped_data_of_a_run_is_what_per_port_filters_gave(runs):
    """For every port of a real run, the arrays split_series gives are the rows the filter
    ``ps[ps["port"] == port]`` selected, in their order; the same for connections."""
    r = runs["ubr60"]
    ps, cs = r.port_series, r.connection_series
    by_port = plots.split_series(ps, "port", {"time_s": None, "max_queue_cells": None, "utilization": None})
    assert len(by_port) == ps["port"].nunique() > 100
    for port in r.ports[r.ports["is_switch"]]["name"]:
        d = ps[ps["port"] == port]
        for c in ("time_s", "max_queue_cells", "utilization"):
            assert np.array_equal(by_port[port][c], d[c].to_numpy()), (port, c)
    by_conn = plots.split_series(cs, "connection", {"cwnd_bytes": lambda b: b / 1024})
    assert list(by_conn) == list(r.connections["name"])
    for name, d in cs.groupby("connection", sort=False):
        assert np.array_equal(by_conn[name]["cwnd_bytes"], (d["cwnd_bytes"] / 1024).to_numpy())


def _per_name_filters(df, key, columns):
    """The former way: one boolean filter of the whole table per name, pandas Series out."""
    names = list(dict.fromkeys(df[key].dropna())) if len(df) else []
    groups = {}
    for name in names:
        d = df[df[key] == name]
        groups[name] = {c: d[c] if f is None else f(d[c]) for c, f in columns.items()}
    return plots.SeriesGroups(groups, {c: df[c].iloc[:0] for c in columns})


@pytest.mark.parametrize("name", ["ubr60", "abr12", "ubr3"])
def test_the_png_is_the_one_per_port_filters_drew(runs, tmp_path, monkeypatch, name):
    """The same PNG, byte for byte, as the figure drawn from per-port filters (as the plots
    drew before): bands of many ports and connections, and a few labelled lines."""
    r = runs[name]
    fast = r.plot(tmp_path / "fast.png").read_bytes()
    monkeypatch.setattr(plots, "split_series", _per_name_filters)
    slow = r.plot(tmp_path / "slow.png").read_bytes()
    assert fast == slow


class _CountingFrame(pd.DataFrame):
    """A DataFrame that counts the columns and rows selected from it with ``[]``."""

    _metadata = ["reads"]

    @property
    def _constructor(self):
        return pd.DataFrame  # what is selected from it does not count

    def __getitem__(self, key):
        self.reads[0] += 1
        return super().__getitem__(key)


@pytest.mark.parametrize("name", ["ubr60", "abr12"])
def test_the_plot_reads_the_series_a_fixed_number_of_times(runs, tmp_path, name):
    """The plot selects from each time-series table a fixed number of times, not once or
    twice per port or connection (each filter of the whole table, ``ps[ps["port"] == p]``,
    reads every row: quadratic in the network's size)."""
    r = runs[name]
    reads = [0]
    frames = {}
    for attr in ("port_series", "connection_series", "abr_series"):
        f = _CountingFrame(getattr(r, attr))
        f.reads = reads
        frames[attr] = f
    stub = types.SimpleNamespace(ports=r.ports, summary=r.summary, scenario=r.scenario, partial=None, **frames)
    busy = int((r.ports["is_switch"] & (r.ports["max_queue_cells"] > 0)).sum())
    assert busy > 20 or name == "abr12"
    plots.plot_run(stub, tmp_path / "f.png")
    assert 0 < reads[0] <= 12, reads[0]
    assert (tmp_path / "f.png").read_bytes() == r.plot(tmp_path / "g.png").read_bytes()
