"""ABR through the Python API: runs, series, the max-min oracle, errors, plots."""

from __future__ import annotations

from pathlib import Path

import pytest

import atmsim
from atmsim.experiments.erica_configs import allocator, n_sources, upstream

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "abr_two_sources.toml"


def test_example_two_sources_converge_to_target():
    r = atmsim.run(EXAMPLE)
    c = r.connections.set_index("name")
    assert set(c["service"]) == {"abr"}
    for name in ("a", "b"):
        target = 0.95 * c.loc[name, "fair_share_bps"]
        assert c.loc[name, "acr_final_bps"] == pytest.approx(target, rel=0.02)
        assert c.loc[name, "rm_cells_sent"] > 0 and c.loc[name, "brm_received"] > 0
    assert r.summary["conservation_ok"]
    assert r.summary["fairness_maxmin"] == pytest.approx(1.0, abs=1e-3)
    ab = r.abr_series
    assert list(ab.columns) == ["time_s", "source", "acr_mbps", "cells_received"]
    assert set(ab["source"]) == {"a", "b"}
    assert ab.groupby("source")["cells_received"].apply(lambda s: s.is_monotonic_increasing).all()


def test_max_min_oracle_upstream():
    sc = upstream("WAN", "u", allocator("WAN", False))
    mm = atmsim.max_min(sc).set_index("name")["fair_share_bps"]
    link = 155.52e6
    assert mm["VC1"] == pytest.approx(link / 15, rel=1e-6)
    assert mm["VC15"] == pytest.approx(link / 15, rel=1e-6)
    assert mm["VC16"] == pytest.approx(7 * link / 15, rel=1e-6)


def test_vbr_background_reduces_share_and_request_response_is_excluded():
    sc = n_sources("WAN", 1, "x", allocator("WAN", False))
    sc["connection"].append({"name": "v", "from": "S1-src", "to": "S1-dst", "service": "vbr",
                             "traffic": {"kind": "on_off", "peak_rate": "100 Mbps", "on": "1 ms", "off": "1 ms"}})
    sc["connection"].append({"name": "rr", "from": "S1-src", "to": "S1-dst", "service": "abr",
                             "traffic": {"kind": "request_response", "response": "64 cells"}})
    mm = atmsim.max_min(sc).set_index("name")["fair_share_bps"]
    assert mm["S1"] == pytest.approx(155.52e6 - 50e6, rel=1e-3)
    assert mm.isna()["v"] and mm.isna()["rr"]


def test_one_source_erica_plus_fills_the_link():
    r = atmsim.run(n_sources("LAN", 1, "x", allocator("LAN", True), quick=True))
    c = r.connections.iloc[0]
    assert c["acr_final_bps"] == pytest.approx(155.52e6, rel=0.01)


@pytest.mark.parametrize(
    "abr, key, words",
    [
        ({"rif": 1.5}, "rif", ["1.5", "RIF"]),
        ({"nrm": 1}, "nrm", ["1", "Nrm", "2 to 256"]),
        ({"mcr": "200 Mbps"}, "mcr", ["PCR"]),
        ({"pcr": "-5 Mbps"}, "pcr", ["-5 Mbps"]),
    ],
)
def test_invalid_abr_parameters(abr, key, words):
    sc = n_sources("LAN", 1, "x", allocator("LAN", False))
    sc["connection"][0]["abr"] = abr
    with pytest.raises(atmsim.ScenarioError) as e:
        atmsim.validate(sc)
    msg = str(e.value)
    assert f"connection[0].abr.{key}" in msg
    for w in words:
        assert w in msg


def test_invalid_allocator_option():
    sc = n_sources("LAN", 1, "x", allocator("LAN", False, t0="1 ms"))
    with pytest.raises(atmsim.ScenarioError, match=r"defaults\.allocator\.t0.*ERICA\+"):
        atmsim.validate(sc)


def test_cli_run_abr_example_prints_acr(tmp_path):
    from conftest import run_cli

    rc, out, err = run_cli(["run", str(EXAMPLE), "--out", str(tmp_path / "o")])
    assert rc == 0, err
    assert "acr_mean_Mbps" in out
    assert (tmp_path / "o" / "abr_series.csv").exists()
    assert (tmp_path / "o" / "run.png").exists()
