"""The Python API: atmsim.run and its RunResult, saving, TOML round trips, determinism,
parallel runs, and the physical sanity of small runs."""

from __future__ import annotations

import json
import math
import threading

import pandas as pd
import pytest

import atmsim
from atmsim.parallel import run_many
from atmsim.topology import n_source
from conftest import (
    CONNECTION_COLUMNS,
    CONNECTION_SERIES_COLUMNS,
    DROP_COLUMNS,
    PORT_COLUMNS,
    PORT_SERIES_COLUMNS,
    SAVED_FILES,
    assert_same_run,
    check_summary,
    lossy,
    small,
    stable_summary,
)


# --------------------------------------------------------------------------- run: inputs


def test_exceptions_are_the_documented_classes():
    assert issubclass(atmsim.ScenarioError, ValueError)
    assert issubclass(atmsim.InvariantError, RuntimeError)
    assert isinstance(atmsim.__version__, str) and atmsim.__version__


def test_run_on_a_dict():
    sc = small(2)
    r = atmsim.run(sc)
    assert isinstance(r, atmsim.RunResult)
    check_summary(r.summary, 2)
    assert r.summary["name"] == "2-source"
    assert r.summary["seed"] == 1
    assert r.summary["duration_s"] == pytest.approx(0.2)
    assert list(r.connections["name"]) == ["tcp1", "tcp2"]
    assert r.scenario == sc


def test_run_does_not_modify_the_callers_dict():
    sc = small(2)
    before = json.dumps(sc, sort_keys=True)
    atmsim.run(sc)
    assert json.dumps(sc, sort_keys=True) == before


def test_the_results_scenario_is_a_copy_of_what_ran():
    """The result's scenario is decoded from the text the engine ran (on first use): the
    caller changing its dict afterwards does not change it, and a trace table given to
    run() is in it."""
    sc = small(2)
    r = atmsim.run(sc)
    sc["name"] = "changed after the run"
    sc["connection"].pop()
    assert r.scenario["name"] == "2-source" and len(r.scenario["connection"]) == 2
    assert r.scenario is r.scenario
    traced = atmsim.run(small(2), trace="drop")
    assert traced.scenario["trace"]["events"] == ["drop"]
    from_toml = atmsim.run(atmsim.to_toml(small(2)))
    assert from_toml.scenario == atmsim.load_scenario(atmsim.to_toml(small(2)))
    from_toml.scenario = {"name": "set by the caller"}  # still an attribute one can set
    assert from_toml.scenario == {"name": "set by the caller"}


def test_run_on_toml_text():
    text = atmsim.to_toml(small(2))
    assert "\n" in text
    r = atmsim.run(text)
    check_summary(r.summary, 2)
    assert list(r.connections["name"]) == ["tcp1", "tcp2"]


def test_run_on_a_file_path_str_and_pathlike(small_toml, small_toml_result):
    r = small_toml_result
    check_summary(r.summary, 3)
    assert r.summary["name"] == "test: small UBR, 3 sources, tail drop"
    assert r.summary["seed"] == 3
    assert r.summary["duration_s"] == pytest.approx(0.5)
    assert list(r.connections["name"]) == ["tcp1", "tcp2", "tcp3"]
    # The same file given as a str path and as TOML text gives the same run.
    assert_same_run(r, atmsim.run(str(small_toml)))
    assert_same_run(r, atmsim.run(small_toml.read_text()))


def test_dict_toml_text_and_file_forms_agree(small_toml):
    as_dict = atmsim.load_scenario(small_toml)
    assert isinstance(as_dict, dict)
    assert_same_run(atmsim.run(as_dict), atmsim.run(small_toml))


def test_a_json_scenario_file_or_text_runs_as_its_toml(small_toml, tmp_path):
    """A scenario written as JSON (an object with the TOML file's layout, what
    ``atmsim schema`` describes) runs as the TOML file does: from a file, whatever its name,
    and as text; bad JSON names its line and column (a newcomer's review: JSON files were
    read as TOML and refused at "{")."""
    as_dict = atmsim.load_scenario(small_toml)
    path = tmp_path / "small.json"
    path.write_text(json.dumps(as_dict, indent=1))
    want = atmsim.run(small_toml)
    assert_same_run(atmsim.run(path), want)
    assert_same_run(atmsim.run(str(path)), want)
    assert_same_run(atmsim.run(json.dumps(as_dict)), want)
    assert atmsim.load_scenario(path) == as_dict
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x",\n  "seed": }')
    with pytest.raises(atmsim.ScenarioError, match=r"invalid JSON \(line 2, column 11\)"):
        atmsim.validate(bad)


def test_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.toml"):
        atmsim.run(tmp_path / "missing.toml")
    with pytest.raises(FileNotFoundError, match="missing.toml"):
        atmsim.run(str(tmp_path / "missing.toml"))


def test_a_mistyped_path_is_a_missing_file_not_toml_text(tmp_path, monkeypatch):
    """A one-line string with no '=' and no '[' cannot be TOML text: it is a file not found
    (it gave "expected `.`, `=` (line 1), at "base.tml""). Real TOML text still runs."""
    monkeypatch.chdir(tmp_path)
    for name in ("base.tml", "missing.json", "my_scenario"):
        with pytest.raises(FileNotFoundError, match=f"cannot read scenario file '{name}'"):
            atmsim.run(name)
        with pytest.raises(FileNotFoundError, match=name):
            atmsim.load_scenario(name)
    with pytest.raises(atmsim.ScenarioError):  # one line of TOML: still text, still parsed
        atmsim.load_scenario('seed = 1')


@pytest.mark.parametrize("data, words", [
    ('name = "caf\u00e9"\n'.encode("latin-1"), ["byte 0xe9", "offset 11", "line 1, column 12"]),
    ('seed = 1\nname = "x"\n'.encode("utf-16"), ["byte 0xff", "offset 0", "UTF-16"]),
    (b"seed = 1\n\x00\x01\xd0\xff", ["byte 0xd0", "offset 11", "line 2, column 3", "binary"]),
])
def test_a_file_that_is_not_utf8_is_a_scenario_error(tmp_path, data, words):
    """Not a bare UnicodeDecodeError: a ScenarioError naming the file, the byte and its place."""
    f = tmp_path / "enc.toml"
    f.write_bytes(data)
    for call, arg in ((atmsim.run, f), (atmsim.run, str(f)), (atmsim.validate, f), (atmsim.load_scenario, f)):
        with pytest.raises(atmsim.ScenarioError) as e:
            call(arg)
        msg = str(e.value)
        for w in [str(f), "is not UTF-8 text", "must be UTF-8", *words]:
            assert w in msg, (w, msg)
    sweep = tmp_path / "sweep.toml"
    sweep.write_text('[base]\nscenario = "enc.toml"\n[sweep]\nseeds = 1\n')
    with pytest.raises(atmsim.SweepError, match="base.scenario .*is not UTF-8 text.*byte 0x"):
        atmsim.sweep(sweep, out=tmp_path / "s")
    with pytest.raises(atmsim.SweepError, match="sweep file .*enc.toml.* is not UTF-8 text.*byte 0x"):
        atmsim.sweep(f, out=tmp_path / "s")
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize("kw, error, words", [
    (dict(n=3, start_times=["0 s"]), ValueError, ["start_times = ['0 s']", "1 value for n = 3", "3 in all"]),
    (dict(n=3, applications=[{"kind": "greedy"}] * 2), ValueError, ["applications = ", "2 values for n = 3"]),
    (dict(n=2, start_times="0 s"), TypeError, ["start_times = '0 s'", "a list of times"]),
    (dict(n=2, applications=["x", "y"]), TypeError, ["applications[0] = 'x'", "table (dict)"]),
    (dict(n="3"), TypeError, ["n = '3'", "whole number, at least 1", "not str"]),
    (dict(n=2.0), TypeError, ["n = 2.0", "not float"]),
    (dict(n=True), TypeError, ["n = True"]),
    (dict(n=0), ValueError, ["n = 0", "at least one source"]),
])
def test_n_source_names_a_bad_argument(kw, error, words):
    """A short start_times or applications list was a bare IndexError, n = "3" a TypeError
    about '<' between str and int."""
    with pytest.raises(error) as e:
        n_source(**kw)
    for w in words:
        assert w in str(e.value), (w, str(e.value))
    assert n_source(2, start_times=["0 s", "1 ms", "2 ms"])["connection"][1]["start"] == "1 ms"  # longer: fine


def test_load_scenario_rejects_other_types():
    with pytest.raises(TypeError, match="int"):
        atmsim.load_scenario(42)


def test_load_scenario_copies_dicts():
    sc = small(2)
    loaded = atmsim.load_scenario(sc)
    assert loaded == sc and loaded is not sc
    loaded["node"][0]["name"] = "changed"
    assert sc["node"][0]["name"] == "sw1"


def test_validate_reports_counts_and_routes(small_toml):
    info = atmsim.validate(small_toml)
    assert info["nodes"] == 8
    assert info["ports"] == 14  # 7 full-duplex links
    assert info["connections"] == 3
    assert info["duration_s"] == pytest.approx(0.5)
    # tcp3 has no route in the file: the shortest path is chosen.
    assert info["routes"] == [
        ["src1", "sw1", "sw2", "dst1"],
        ["src2", "sw1", "sw2", "dst2"],
        ["src3", "sw1", "sw2", "dst3"],
    ]
    mem = info["memory"]  # issue 14: the estimate a run is refused or watched by
    assert mem["before_cells_bytes"] > 8 * 2**20 and mem["cells_up_to_bytes"] > 0
    assert [p["what"] for p in mem["parts"] if p["grows"]] == ["queued cells (estimate)",
                                                               "cells in flight on links (estimate)"]
    assert sum(p["bytes"] for p in mem["parts"] if p["grows"]) == mem["cells_up_to_bytes"]
    info2 = atmsim.validate(small(4))
    assert (info2["nodes"], info2["connections"], info2["ports"]) == (10, 4, 18)


# --------------------------------------------------------------------------- RunResult tables


def test_result_tables_have_the_documented_columns(small_toml_result):
    r = small_toml_result
    for df in (r.connections, r.ports, r.port_series, r.connection_series):
        assert isinstance(df, pd.DataFrame)
    assert list(r.connections.columns) == CONNECTION_COLUMNS
    assert list(r.ports.columns) == PORT_COLUMNS + DROP_COLUMNS
    assert list(r.port_series.columns) == PORT_SERIES_COLUMNS
    assert list(r.connection_series.columns) == CONNECTION_SERIES_COLUMNS


def test_connection_table_contents(small_toml_result):
    r = small_toml_result
    c = r.connections
    assert list(c["from"]) == ["src1", "src2", "src3"]
    assert list(c["to"]) == ["dst1", "dst2", "dst3"]
    measured = r.summary["duration_s"] - r.summary["warmup_s"]
    for _, row in c.iterrows():
        assert row["goodput_bps"] == pytest.approx(row["goodput_bytes"] * 8 / measured)
        assert row["cells_sent"] >= row["cells_delivered"] + row["cells_dropped"]
        assert row["retransmissions"] <= row["segments_sent"]
        assert row["frames_delivered"] <= row["frames_sent"]
    assert c["goodput_bps"].sum() == pytest.approx(r.summary["total_goodput_bps"])
    assert c["cells_sent"].sum() <= r.summary["cells_sent"]  # data cells; ACK cells come on top
    assert (c["cells_dropped"] + c["ack_cells_dropped"]).sum() == r.summary["cells_dropped"]


@pytest.mark.parametrize("max_events", [None, 1])
def test_numeric_columns_no_row_measured_are_nan_not_none(small_toml, tmp_path, max_events):
    """A figure no row measured (the ABR counters of a UBR run; every figure of a run stopped
    at once) is a float64 column of NaN, as a column with some nulls is: plotted and summed
    as numbers, not an object column of None (``plot`` said "no numeric data to plot"). Its
    CSV fields stay empty; the result read through the rows and the columns is the same."""
    import json as _json

    import matplotlib

    matplotlib.use("Agg")
    r = atmsim.run(small_toml, max_events=max_events)
    for table in (r.connections, r.ports):
        assert not [c for c in table.columns if table[c].dtype == object and table[c].isna().all()], table.dtypes
    for c in ("srtt_s", "reverse_throughput_bps", "reverse_acr_final_bps", "source_queue_max_cells",
              "source_queue_cells", "rm_cells_sent", "acr_mean_bps"):
        assert r.connections[c].dtype == "float64", (c, r.connections[c].dtype)
    assert r.connections["reverse_throughput_bps"].isna().all()
    ax = r.connections.plot(x="name", y="srtt_s")
    matplotlib.pyplot.close(ax.figure)
    r.save(tmp_path, plot=False)
    csv = (tmp_path / "connections.csv").read_text().splitlines()
    header = csv[0].split(",")
    rows = [line.split(",") for line in csv[1:]]
    assert all(row[header.index("reverse_throughput_bps")] == "" for row in rows)
    rows_path = atmsim.RunResult(_json.loads(atmsim._core.run_json(_json.dumps(r.scenario), max_events=max_events)),
                                 r.scenario)
    pd.testing.assert_frame_equal(rows_path.connections, r.connections)
    pd.testing.assert_frame_equal(rows_path.ports, r.ports)


def test_port_table_contents(small_toml_result):
    r = small_toml_result
    p = r.ports.set_index("name")
    # The [[port]] override of the file applies to sw1 -> sw2 only.
    assert p.loc["sw1->sw2", "buffer_cells"] == 300
    assert p.loc["sw2->sw1", "buffer_cells"] == 1000
    assert math.isnan(p.loc["src1->sw1", "buffer_cells"])  # host ports are unlimited
    assert set(p["policy"]) == {"tail_drop"}
    assert bool(p.loc["sw1->sw2", "is_switch"]) and not bool(p.loc["src1->sw1", "is_switch"])
    assert (p["rate_bps"] == 155.52e6).all()
    assert ((p["utilization"] >= 0) & (p["utilization"] <= 1.0 + 1e-9)).all()
    switch = p[p["is_switch"]]
    assert (switch["max_queue_cells"] <= switch["buffer_cells"]).all()
    assert r.summary["max_switch_queue_cells"] == switch["max_queue_cells"].max() == 300
    assert p["dropped"].sum() == r.summary["cells_dropped"]


def test_time_series_shape(small_toml_result):
    r = small_toml_result
    # sample_interval = 5 ms over 0.5 s: 100 samples per port and per connection.
    ps, cs = r.port_series, r.connection_series
    switch_ports = set(r.ports.loc[r.ports["is_switch"], "name"])
    assert set(ps["port"]) == switch_ports
    assert len(ps) == 100 * len(switch_ports)
    assert len(cs) == 100 * 3
    assert list(cs["connection"].unique()) == ["tcp1", "tcp2", "tcp3"]
    for _, d in cs.groupby("connection"):
        t = d["time_s"].to_numpy()
        assert (t[1:] > t[:-1]).all()
        assert t[-1] == pytest.approx(0.5)
        assert (d["delivered_bytes"].diff().dropna() >= 0).all()
        assert (d["cells_received"].diff().dropna() >= 0).all()
    assert ((ps["utilization"] >= 0) & (ps["utilization"] <= 1.0 + 1e-6)).all()
    assert (ps["queue_cells"] <= ps["max_queue_cells"]).all()
    bottleneck = ps[ps["port"] == "sw1->sw2"]
    assert bottleneck["max_queue_cells"].max() == 300


def test_default_sample_interval_is_a_thousandth_of_the_duration():
    r = atmsim.run(small(2))
    assert r.connection_series.groupby("connection").size().tolist() == [1000, 1000]


def test_zero_sample_interval_gives_empty_series_with_columns(tmp_path):
    r = atmsim.run(small(2, sample_interval="0 s"))
    assert len(r.port_series) == 0 and len(r.connection_series) == 0
    assert list(r.port_series.columns) == PORT_SERIES_COLUMNS
    assert list(r.connection_series.columns) == CONNECTION_SERIES_COLUMNS
    out = r.save(tmp_path / "out")  # the plot copes with empty series
    assert sorted(x.name for x in out.iterdir()) == sorted(SAVED_FILES)


def test_repr_mentions_the_run(small_toml_result):
    s = repr(small_toml_result)
    assert "test: small UBR, 3 sources, tail drop" in s and "efficiency" in s


# --------------------------------------------------------------------------- save, TOML round trip


def test_save_writes_every_file(small_toml_result, tmp_path):
    r = small_toml_result
    out = r.save(tmp_path / "nested" / "run")
    assert out == tmp_path / "nested" / "run"
    assert sorted(x.name for x in out.iterdir()) == sorted(SAVED_FILES)
    assert json.loads((out / "summary.json").read_text()) == r.summary
    assert (out / "run.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for name, df in [("connections", r.connections), ("ports", r.ports),
                     ("port_series", r.port_series), ("connection_series", r.connection_series)]:
        back = pd.read_csv(out / f"{name}.csv")
        assert list(back.columns) == list(df.columns), name
        assert len(back) == len(df), name
    back = pd.read_csv(out / "connections.csv")
    assert list(back["goodput_bytes"]) == list(r.connections["goodput_bytes"])


def test_save_without_plot(tmp_path):
    r = atmsim.run(small(2))
    out = r.save(tmp_path, plot=False)
    assert not (out / "run.png").exists()
    assert (out / "summary.json").exists() and (out / "scenario.toml").exists()


@pytest.mark.parametrize("source", ["dict", "file"])
def test_saved_scenario_reruns_to_the_identical_summary(source, small_toml, tmp_path):
    sc = lossy(seed=4, duration="0.5 s") if source == "dict" else small_toml
    r = atmsim.run(sc)
    out = r.save(tmp_path, plot=False)
    r2 = atmsim.run(out / "scenario.toml")
    assert stable_summary(r2.summary) == stable_summary(r.summary)
    assert_same_run(r, r2)


def test_to_toml_round_trip_through_load_scenario():
    sc = small(3, policy={"kind": "fba", "threshold": "50 %", "z": 0.8},
               tcp={"mss": "512 B", "window": "600000 B", "delayed_ack": False, "tick_phase": "random"},
               sample_interval="2 ms", start_times=["0 s", "1 ms", "2.5 ms"], seed=17)
    sc["description"] = "round trip"
    sc["port"] = [{"node": "sw1", "toward": "sw2", "buffer": "400 cells", "policy": {"kind": "epd", "threshold": "300 cells"}}]
    sc["measurement"]["warmup"] = "10 ms"
    text = atmsim.to_toml(sc)
    loaded = atmsim.load_scenario(text)
    assert loaded["name"] == sc["name"] and loaded["seed"] == 17 and loaded["description"] == "round trip"
    assert [n["name"] for n in loaded["node"]] == [n["name"] for n in sc["node"]]
    assert [c["route"] for c in loaded["connection"]] == [c["route"] for c in sc["connection"]]
    assert loaded["defaults"]["policy"] == {"kind": "fba", "threshold": "50 %", "z": 0.8}
    assert loaded["port"][0]["buffer"] == "400 cells"
    assert loaded["port"][0]["policy"] == {"kind": "epd", "threshold": "300 cells"}
    assert loaded["defaults"]["tcp"]["window"] == "600000 B"
    # Writing the loaded form again is a fixed point, and every form runs the same.
    assert atmsim.load_scenario(atmsim.to_toml(loaded)) == loaded
    sc["measurement"]["duration"] = loaded["measurement"]["duration"] = "0.1 s"
    assert_same_run(atmsim.run(sc), atmsim.run(loaded))


def test_to_toml_escapes_strings():
    sc = small(2, name='quote " backslash \\ micro \u00b5 tab\tnewline\nend')
    sc["description"] = "line one\nline two"
    loaded = atmsim.load_scenario(atmsim.to_toml(sc))
    assert loaded["name"] == sc["name"]
    assert loaded["description"] == sc["description"]


def test_to_toml_of_a_loaded_file_is_a_fixed_point(small_toml):
    loaded = atmsim.load_scenario(small_toml)
    assert atmsim.load_scenario(atmsim.to_toml(loaded)) == loaded


# --------------------------------------------------------------------------- determinism


def test_same_scenario_and_seed_give_identical_results():
    a, b = atmsim.run(lossy(seed=7)), atmsim.run(lossy(seed=7))
    assert a.summary["cells_dropped"] > 0  # lossy, so randomness would show
    assert_same_run(a, b)


def test_a_different_seed_changes_a_lossy_run_with_random_tick_phase():
    runs = {seed: atmsim.run(lossy(seed=seed)) for seed in (1, 2)}
    g1 = list(runs[1].connections["goodput_bps"])
    g2 = list(runs[2].connections["goodput_bps"])
    assert runs[1].summary["cells_dropped"] > 0 and runs[2].summary["cells_dropped"] > 0
    assert g1 != g2
    assert stable_summary(runs[1].summary) != stable_summary(runs[2].summary)


def test_random_is_the_default_tick_phase():
    explicit = lossy(seed=2, tcp={"tick_phase": "random"})
    assert_same_run(atmsim.run(lossy(seed=2)), atmsim.run(explicit))


def test_run_many_in_threads_matches_sequential_runs():
    scenarios = [
        ("lossy-1", lossy(seed=1, duration="0.5 s")),
        ("lossy-2", lossy(seed=2, duration="0.5 s")),
        ("epd", small(3, buffer="400 cells", policy={"kind": "epd", "threshold": "80 %"}, duration="0.5 s")),
        ("fba", small(3, buffer="400 cells", policy={"kind": "fba", "threshold": "50 %", "z": 0.8}, duration="0.5 s")),
    ]
    parallel = run_many(scenarios, workers=2, progress=False)
    assert list(parallel) == [k for k, _ in scenarios]  # results come back in input order
    for key, sc in scenarios:
        assert_same_run(parallel[key], atmsim.run(sc))


def test_plain_threads_give_the_same_results():
    sc = lossy(seed=5, duration="0.5 s")
    reference = atmsim.run(sc)
    results: list = [None] * 3

    def work(i: int) -> None:
        results[i] = atmsim.run(sc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        assert_same_run(reference, r)


def test_run_many_reports_the_failing_key():
    bad = small(2)
    bad["measurement"]["duration"] = "0 s"
    with pytest.raises(atmsim.ScenarioError, match=r"broken: .*measurement\.duration"):
        run_many([("good", small(2)), ("broken", bad)], workers=2, progress=False)


# --------------------------------------------------------------------------- physics sanity


def test_unlimited_buffers_drop_nothing():
    r = atmsim.run(small(5, buffer="unlimited", policy=None, duration="0.3 s"))
    check_summary(r.summary, 5)
    assert r.summary["cells_dropped"] == 0
    assert r.summary["cell_loss_ratio"] == 0
    assert (r.ports["dropped"] == 0).all()
    assert (r.connections["retransmissions"] == 0).all()
    assert (r.connections["cells_dropped"] == 0).all()
    assert r.summary["efficiency"] > 0.9
    assert r.summary["fairness"] > 0.99


def test_one_source_lan_reaches_full_efficiency():
    r = atmsim.run(n_source(1, link_delay="5 us", duration="0.5 s"))
    check_summary(r.summary, 1)
    assert r.summary["efficiency"] > 0.9
    assert r.summary["fairness"] == pytest.approx(1.0)
    assert r.summary["cells_dropped"] == 0


def test_small_tail_drop_buffer_loses_cells_and_retransmits():
    r = atmsim.run(lossy(seed=1))
    check_summary(r.summary, 3)
    assert r.summary["cells_dropped"] > 0
    assert r.summary["cell_loss_ratio"] == pytest.approx(r.summary["cells_dropped"] / r.summary["cells_sent"])
    assert r.connections["retransmissions"].sum() > 0
    assert r.connections["timeouts"].sum() > 0
    assert r.summary["max_switch_queue_cells"] == 300
    # Tail drop loses cells only to a full buffer.
    assert r.ports["drops_buffer_full"].sum() == r.summary["cells_dropped"]
    assert r.ports["drops_frame_discard"].sum() == 0


def test_warmup_is_excluded_from_goodput():
    sc = lossy(seed=1)
    full = atmsim.run(sc)
    sc["measurement"]["warmup"] = "0.5 s"
    r = atmsim.run(sc)
    assert r.summary["warmup_s"] == pytest.approx(0.5)
    check_summary(r.summary, 3)
    for _, row in r.connections.iterrows():
        assert row["goodput_bps"] == pytest.approx(row["goodput_bytes"] * 8 / 0.5)
    # Same run, counted over its second half only: fewer bytes, same cells.
    assert (r.connections["goodput_bytes"] <= full.connections["goodput_bytes"]).all()
    assert r.connections["goodput_bytes"].sum() < full.connections["goodput_bytes"].sum()
    assert r.summary["cells_sent"] == full.summary["cells_sent"]


@pytest.mark.parametrize(
    "policy, reasons",
    [
        ({"kind": "tail_drop"}, {"drops_buffer_full"}),
        ({"kind": "ppd"}, {"drops_buffer_full", "drops_partial_discard"}),
        ({"kind": "epd", "threshold": "80 %"}, {"drops_buffer_full", "drops_frame_discard"}),
        ({"kind": "selective_drop", "threshold": "90 %", "z": 0.8}, {"drops_buffer_full", "drops_frame_discard"}),
        ({"kind": "fba", "threshold": "50 %", "z": 0.8}, {"drops_buffer_full", "drops_frame_discard"}),
    ],
    ids=lambda v: v["kind"] if isinstance(v, dict) else None,
)
def test_port_counters_balance(policy, reasons):
    r = atmsim.run(lossy(seed=1, policy=policy))
    check_summary(r.summary, 3)
    p = r.ports
    assert (p["received"] == p["enqueued"] + p["dropped"]).all()
    assert (p[DROP_COLUMNS].sum(axis=1) == p["dropped"]).all()
    assert (p["enqueued"] == p["sent"] + p["final_queue_cells"]).all()
    assert p["dropped"].sum() == r.summary["cells_dropped"] > 0
    assert set(p.loc[p["policy"] != "tail_drop", "name"]) <= set(p.loc[p["is_switch"], "name"])
    assert set(p.loc[p["is_switch"], "policy"]) == {policy["kind"]}
    # Only the reasons this policy can produce appear.
    used = {c for c in DROP_COLUMNS if p[c].sum() > 0}
    assert used and used <= reasons, used
    switch = p[p["is_switch"]]
    assert (switch["max_queue_cells"] <= 300).all()
    assert (p.loc[~p["is_switch"], "dropped"] == 0).all()  # hosts have unlimited buffers
