"""Per-event traces from Python (issue 16, item 2; docs/traces.md): each kind comes back as a
DataFrame with the documented columns, tracing leaves the results unchanged, bad tables are
refused with the key named, and the CLI writes the Parquet files."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import atmsim
from atmsim import trace as tr

from conftest import REPO, assert_same_run, run_cli

#: The documented columns of each kind (docs/traces.md), in order.
COLUMNS = {
    "drop": ["time_s", "port", "connection", "direction", "cell", "reason", "queue_cells"],
    "tcp": ["time_s", "connection", "event", "state", "cwnd_bytes", "ssthresh_bytes", "rto_s", "srtt_s",
            "snd_una", "outstanding_segments"],
    "acr": ["time_s", "connection", "direction", "event", "acr_mbps", "er_mbps", "ci", "ni"],
    "allocator": ["time_s", "port", "event", "connection", "z", "fair_share_mbps", "max_alloc_previous_mbps",
                  "abr_capacity_mbps", "active_vcs", "queue_factor", "bottlenecked_vcs", "free_mbps",
                  "mcr_sum_mbps", "abr_queue_cells", "ccr_mbps", "er_in_mbps", "er_mbps"],
    "queue": ["time_s", "port", "queue_cells", "max_queue_cells", "mean_queue_cells"],
    "load": ["time_s", "port", "connection", "interval_s", "cells", "brm_cells"],
}

UBR = REPO / "examples" / "ubr_small.toml"
ABR = REPO / "examples" / "abr_two_sources.toml"


def test_the_kinds_come_from_the_engine_and_match_the_docs():
    assert tr.kind_names() == list(COLUMNS)
    for name, info in tr.kinds().items():
        assert [c[0] for c in info["columns"]] == COLUMNS[name]
    doc = (REPO / "docs" / "traces.md").read_text()
    for name, cols in COLUMNS.items():
        for c in cols:
            assert f"`{c}`" in doc, f"docs/traces.md does not document {name}.{c}"


@pytest.mark.parametrize("scenario,kinds", [(UBR, ["drop", "tcp", "queue"]), (ABR, ["acr", "allocator", "queue", "load"])])
def test_each_kind_is_a_dataframe_with_the_documented_columns(tmp_path, scenario, kinds):
    plain = atmsim.run(scenario, progress=False)
    res = atmsim.run(scenario, progress=False, trace=kinds, trace_dir=tmp_path)
    assert_same_run(plain, res)
    assert set(res.trace_files) == set(kinds)
    for k in kinds:
        df = res.trace(k)
        assert isinstance(df, pd.DataFrame)
        assert list(df.columns) == COLUMNS[k]
        assert len(df) > 0, k
        assert (tmp_path / f"{k}.parquet").exists()
        assert df["time_s"].is_monotonic_increasing or k == "queue"
    assert set(res.traces) == set(kinds)


def test_names_and_labels_are_decoded(tmp_path):
    res = atmsim.run(UBR, progress=False, trace="drop,tcp", trace_dir=tmp_path)
    drops = res.trace("drop")
    assert set(drops["port"].astype(str)) <= set(res.ports["name"])
    assert set(drops["reason"].astype(str)) <= {"buffer_full", "epd", "ppd", "selective_drop", "fba", "fault"}
    assert len(drops) == res.summary["cells_dropped"]
    tcp = res.trace("tcp")
    timeouts = tcp[tcp["event"] == "timeout"].groupby("connection", observed=True).size()
    for _, c in res.connections.iterrows():
        assert timeouts.get(c["name"], 0) == c["timeouts"]


def test_scenario_table_filters_and_window(tmp_path):
    sc = atmsim.load_scenario(ABR)
    sc["trace"] = {"events": ["allocator", "acr"], "ports": ["sw1->sw2"], "connections": ["a"],
                   "from": "10 ms", "to": "20 ms"}
    res = atmsim.run(sc, progress=False, trace_dir=tmp_path)
    alloc, acr = res.trace("allocator"), res.trace("acr")
    assert set(alloc["port"].astype(str)) == {"sw1->sw2"}
    assert set(acr["connection"].astype(str)) == {"a"}
    for df in (alloc, acr):
        assert df["time_s"].between(0.010, 0.020, inclusive="left").all()
    fb = alloc[alloc["event"] == "feedback"]
    assert (fb["er_mbps"] <= fb["er_in_mbps"] + 1e-6).all()


def test_an_unrequested_kind_says_what_was_traced(tmp_path):
    res = atmsim.run(UBR, progress=False, trace=["queue"], trace_dir=tmp_path)
    with pytest.raises(KeyError, match="traced kinds: queue"):
        res.trace("drop")
    assert atmsim.run(UBR, progress=False).trace_files == {}


def test_a_kind_with_no_events_is_an_empty_frame_with_columns(tmp_path):
    res = atmsim.run(ABR, progress=False, trace=["drop", "tcp"], trace_dir=tmp_path)
    for k in ("drop", "tcp"):
        df = res.trace(k)
        assert len(df) == 0 and list(df.columns) == COLUMNS[k]


def test_bad_trace_tables_are_refused_with_the_key():
    with pytest.raises(atmsim.ScenarioError, match=r"trace.events\[0\].*\"drops\".*allowed"):
        atmsim.run(UBR, progress=False, trace=["drops"])
    with pytest.raises(atmsim.ScenarioError, match=r"trace.ports\[0\]"):
        atmsim.run(UBR, progress=False, trace={"events": ["queue"], "ports": ["nowhere"]})
    with pytest.raises(TypeError, match="trace = 3"):
        atmsim.run(UBR, progress=False, trace=3)


def test_cli_writes_traces_next_to_the_results(tmp_path):
    out = tmp_path / "small"
    code, _stdout, err = run_cli(["run", str(UBR), "--trace", "drop,queue", "--out", str(out), "--no-plot"])
    assert code == 0, err
    assert pd.read_parquet(out / "traces" / "drop.parquet").columns.tolist() == COLUMNS["drop"]
    assert (out / "traces" / "queue.parquet").exists()
