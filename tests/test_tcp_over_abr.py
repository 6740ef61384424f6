"""TCP over ABR through the Python API and the CLI: n_source(service="abr", ...), the
results' ABR columns, the VBR background, the bounded source queue, the periodic
application and the scenario errors (docs/models/tcp-over-abr.md)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

import atmsim
from atmsim.scenario import load_scenario, to_toml
from atmsim.topology import n_source
from conftest import assert_same_run, check_summary, run_cli

CELL_BITS = 424
DURATION = 0.2
SAMPLE = 0.005


def abr3(**kw: Any) -> dict[str, Any]:
    """Three TCP sources over ABR (modified ERICA), 10 km segments, 0.2 s, 5 ms samples."""
    args: dict[str, Any] = dict(service="abr", allocator={"kind": "modified_erica"}, abr={"icr": "10 Mbps"},
                                link_length="10 km", duration=f"{DURATION:g} s", sample_interval=f"{SAMPLE * 1000:g} ms")
    args.update(kw)
    return n_source(3, **args)


@pytest.fixture(scope="module")
def run3() -> atmsim.RunResult:
    return atmsim.run(abr3())


# --------------------------------------------------------------------------- the builder


def test_builder_puts_every_tcp_connection_on_abr():
    sc = abr3()
    assert [c["service"] for c in sc["connection"]] == ["abr"] * 3
    assert all(c["traffic"] == {"kind": "tcp"} for c in sc["connection"])
    assert sc["defaults"]["abr"] == {"icr": "10 Mbps"}
    assert sc["defaults"]["allocator"] == {"kind": "modified_erica"}
    assert all(link["length"] == "10 km" for link in sc["link"])
    info = atmsim.validate(sc)
    assert info["connections"] == 3 and info["nodes"] == 8


def test_builder_defaults_stay_ubr_without_abr_keys():
    sc = n_source(2, link_delay="5 us", duration="0.1 s")
    assert {c["service"] for c in sc["connection"]} == {"ubr"}
    assert "abr" not in sc["defaults"] and "allocator" not in sc["defaults"]


# --------------------------------------------------------------------------- a run


def test_run_conserves_cells(run3):
    s = run3.summary
    check_summary(s, 3)
    assert s["cells_dropped"] == 0  # unlimited switch buffers
    c = run3.connections
    assert (c["cells_sent"] >= c["cells_delivered"] + c["cells_dropped"]).all()


def test_every_tcp_connection_has_abr_columns(run3):
    c = run3.connections
    tcp = c[c["traffic"] == "tcp"]
    assert len(tcp) == 3 and set(tcp["service"]) == {"abr"}
    assert (tcp["rm_cells_sent"] > 0).all()
    assert (tcp["brm_received"] > 0).all()
    assert tcp["source_queue_max_cells"].notna().all()
    assert tcp["source_queue_cells"].notna().all()
    # Nrm = 32 (TM 4.0 default): at least one FRM per 32 cells sent, minus the first few.
    assert (tcp["rm_cells_sent"] >= tcp["cells_sent"] / 33 - 2).all()
    # ACR within (0, PCR]; PCR defaults to the 155.52 Mb/s access link.
    assert ((tcp["acr_final_bps"] > 0) & (tcp["acr_final_bps"] <= 155.52e6 * (1 + 1e-6))).all()
    assert ((tcp["reverse_acr_final_bps"] > 0) & (tcp["reverse_acr_final_bps"] <= 155.52e6 * (1 + 1e-6))).all()
    assert (tcp["goodput_bps"] > 0).all() and (tcp["retransmissions"] == 0).all()


def test_three_identical_sources_share_the_link_fairly(run3):
    assert run3.summary["fairness"] == pytest.approx(1.0, abs=1e-3)
    tcp = run3.connections
    # modified ERICA's target is 90 %: the final ACRs are below the equal share of the link.
    assert (tcp["acr_final_bps"] <= 155.52e6 / 3 * (1 + 1e-6)).all()


def test_abr_series_one_per_abr_source_forward_and_reverse(run3):
    ab = run3.abr_series
    assert list(ab.columns) == ["time_s", "source", "acr_mbps", "cells_received"]
    names = [f"tcp{i}" for i in (1, 2, 3)]
    assert set(ab["source"]) == set(names) | {f"{n} (reverse)" for n in names}
    counts = ab.groupby("source").size()
    assert counts.nunique() == 1  # the same sample times for every source
    assert counts.iloc[0] == pytest.approx(DURATION / SAMPLE, abs=1)
    assert ((ab["acr_mbps"] > 0) & (ab["acr_mbps"] <= 155.52 + 1e-6)).all()
    assert ab.groupby("source")["cells_received"].apply(lambda s: s.is_monotonic_increasing).all()


def test_run_is_repeatable(run3):
    assert_same_run(run3, atmsim.run(abr3()))


# --------------------------------------------------------------------------- VBR background


def test_vbr_background_adds_a_vbr_connection():
    vbr = {"peak_rate": "50 Mbps", "on": "2 ms", "off": "2 ms", "phase": "2 ms"}
    sc = abr3(vbr=vbr)
    conn = sc["connection"][-1]
    assert conn["name"] == "vbr" and conn["service"] == "vbr"
    assert conn["route"] == ["vbr_src", "sw1", "sw2", "vbr_dst"]
    assert conn["traffic"] == {"kind": "on_off", "peak_rate": "50 Mbps", "on": "2 ms", "off": "2 ms", "phase": "2 ms"}
    assert {"vbr_src", "vbr_dst"} <= {n["name"] for n in sc["node"]}

    r = atmsim.run(sc)
    assert r.summary["conservation_ok"] and r.summary["cells_dropped"] == 0
    c = r.connections.set_index("name")
    assert len(c) == 4
    assert c.loc["vbr", "service"] == "vbr" and c.loc["vbr", "traffic"] == "on_off"
    # On 2 ms of every 4 from t = 2 ms: 50 ms of peak rate per 100 ms, about 0.1 s at 50 Mb/s.
    expected = 0.1 * 50e6 / CELL_BITS
    assert c.loc["vbr", "cells_sent"] == pytest.approx(expected, rel=0.02)
    # VBR is not ABR: it has no ABR series and no ABR columns.
    assert "vbr" not in set(r.abr_series["source"])
    assert c.loc[[f"tcp{i}" for i in (1, 2, 3)], "rm_cells_sent"].gt(0).all()
    assert math.isnan(float(c.loc["vbr", "rm_cells_sent"]))


# --------------------------------------------------------------------------- source queue


def test_bounded_source_queue_never_exceeds_its_bound():
    r = atmsim.run(abr3(abr={"icr": "10 Mbps", "source_queue": "24 cells"}))
    tcp = r.connections
    assert (tcp["source_queue_max_cells"] <= 24).all()
    assert (tcp["source_queue_max_cells"] >= 12).all()  # at least one segment did wait
    assert (tcp["goodput_bps"] > 0).all()
    assert r.summary["conservation_ok"] and r.summary["cells_dropped"] == 0


def test_unbounded_source_queue_holds_the_window_excess(run3):
    # A 64 KB window (1536 cells) handed to AAL5 at once waits at the source, paced at ACR.
    assert (run3.connections["source_queue_max_cells"] > 24).all()


# --------------------------------------------------------------------------- periodic application


@pytest.mark.parametrize("service", ["abr", "ubr"])
def test_periodic_application_sends_what_it_writes(service):
    # 20 single-segment writes, 1 ms apart, then 5000 B (rounded up to 10 segments of 512 B) at 50 ms.
    app = {"kind": "periodic", "segment_interval": "1 ms", "segments": 20, "burst": "5000 B", "burst_at": "50 ms"}
    kw: dict[str, Any] = dict(applications=[app] * 3, start_times=["0 s", "50 us", "100 us"], tcp={"mss": "512 B"},
                              sample_interval="1 ms")
    if service == "ubr":
        kw.update(service="ubr", allocator=None, abr=None)
    r = atmsim.run(abr3(**kw))
    c = r.connections
    assert (c["segments_sent"] == 30).all()
    assert (c["frames_delivered"] == 30).all()
    assert (c["goodput_bytes"] == 30 * 512).all()
    assert (c["retransmissions"] == 0).all()
    delivered = r.connection_series.pivot(index="time_s", columns="connection", values="delivered_bytes")
    # Before the burst only the 20 single segments have gone (all delivered within a few RTTs of 0.3 ms).
    before = delivered.loc[0.030:0.049]
    assert len(before) >= 15
    assert (before == 20 * 512).all().all()
    assert (delivered.iloc[-1] == 30 * 512).all()


# --------------------------------------------------------------------------- errors


def test_source_queue_below_one_segment_is_a_scenario_error():
    sc = abr3(abr={"icr": "10 Mbps", "source_queue": "5 cells"})
    with pytest.raises(atmsim.ScenarioError) as e:
        atmsim.validate(sc)
    msg = str(e.value)
    assert "abr.source_queue" in msg and "5 cells" in msg and "12 cells" in msg
    with pytest.raises(atmsim.ScenarioError, match=r"abr\.source_queue"):
        atmsim.run(sc)


def test_source_queue_error_names_the_connection():
    sc = abr3()
    sc["connection"][1]["abr"] = {"source_queue": "5 cells"}
    with pytest.raises(atmsim.ScenarioError, match=r"connection\[1\]\.abr\.source_queue"):
        atmsim.validate(sc)


def test_zero_source_queue_names_the_defaults_key():
    sc = abr3(abr={"source_queue": "0 cells"})
    with pytest.raises(atmsim.ScenarioError, match=r"defaults\.abr\.source_queue: 0 cells"):
        atmsim.validate(sc)


def test_source_queue_on_cell_level_abr_traffic_is_refused():
    sc = n_source(1, service="abr", allocator={"kind": "modified_erica"}, link_length="10 km", duration="0.1 s")
    sc["connection"][0]["traffic"] = {"kind": "persistent"}
    sc["connection"][0]["abr"] = {"source_queue": "100 cells"}
    with pytest.raises(atmsim.ScenarioError, match=r"connection\[0\]\.abr\.source_queue: is only for tcp traffic"):
        atmsim.validate(sc)


def test_periodic_application_zero_interval_is_refused():
    app = {"kind": "periodic", "segment_interval": "0 ms", "segments": 5}
    with pytest.raises(atmsim.ScenarioError, match=r"traffic\.application\.segment_interval"):
        atmsim.validate(abr3(applications=[app] * 3))


def test_scenario_error_is_a_value_error():
    assert issubclass(atmsim.ScenarioError, ValueError)


# --------------------------------------------------------------------------- CLI


@pytest.fixture
def abr_toml(tmp_path):
    p = tmp_path / "tcp_over_abr.toml"
    p.write_text(to_toml(abr3(duration="0.05 s", vbr={"peak_rate": "50 Mbps", "on": "2 ms", "off": "2 ms"})))
    return p


def test_to_toml_round_trips(abr_toml):
    sc = load_scenario(abr_toml)
    assert sc["connection"][0]["service"] == "abr"
    assert sc["defaults"]["allocator"]["kind"] == "modified_erica"
    assert sc["connection"][-1]["service"] == "vbr"


def test_cli_validate(abr_toml):
    rc, out, err = run_cli(["validate", str(abr_toml)])
    assert rc == 0, err
    assert err == ""
    assert out.splitlines()[0] == f"{abr_toml}: valid. 10 nodes, 18 ports, 4 connections, 0.05 s."


def test_cli_run_writes_abr_series(abr_toml, tmp_path):
    out_dir = tmp_path / "out"
    rc, out, err = run_cli(["run", str(abr_toml), "--out", str(out_dir), "--no-plot"])
    assert rc == 0, err
    assert "Traceback" not in out + err
    assert "conservation ok" in out
    assert "vbr" in out and "abr" in out  # the mixed-service table
    for f in ("summary.json", "connections.csv", "ports.csv", "abr_series.csv", "scenario.toml"):
        assert (out_dir / f).is_file(), f
    assert not (out_dir / "run.png").exists()


def test_cli_run_json(abr_toml):
    rc, out, err = run_cli(["run", str(abr_toml), "--json"])
    assert rc == 0, err
    s = json.loads(out)
    assert s["conservation_ok"] is True and s["cells_dropped"] == 0


def test_cli_bad_source_queue_is_one_line_error(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text(to_toml(abr3(abr={"icr": "10 Mbps", "source_queue": "5 cells"})))
    for cmd in ("validate", "run"):
        rc, out, err = run_cli([cmd, str(p)])
        assert rc == 2, (cmd, out, err)
        assert out == ""
        assert err.startswith("atmsim: error: invalid scenario:")
        assert "abr.source_queue" in err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1
