"""Seed 004 from Python: the R1 / R2 / R3 topology builders, quick KVR + UCSC runs, the new
time-series columns, faults, sessions and video, and ``atmsim validate`` on a bad fault.

Every run here is short (at most 0.4 s simulated, well under a second of wall time).
"""

from __future__ import annotations

import copy
import re
import subprocess
from collections import Counter

import pytest

import atmsim
from atmsim.scenario import to_toml
from atmsim.topology import r1, r2, r3
from conftest import VENV_BIN, run_cli, stable_summary

#: Seed 004: 155 Mbps links, 53-byte cells.
LINK_BPS = 155e6
NRM = 32


def _seconds(text: str) -> float:
    """'8.034267 ms' -> 0.008034267."""
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*(s|ms|us)\s*", text)
    assert m, text
    return float(m.group(1)) * {"s": 1.0, "ms": 1e-3, "us": 1e-6}[m.group(2)]


def _link_delays(sc: dict) -> dict[frozenset, float]:
    return {frozenset(link["between"]): _seconds(link.get("delay", "0 s")) for link in sc["link"]}


def _rtt(sc: dict, conn: dict) -> float:
    """Round-trip propagation time of a connection from its route and the link delays."""
    delays = _link_delays(sc)
    route = conn["route"]
    return 2 * sum(delays[frozenset(hop)] for hop in zip(route, route[1:]))


def _carried(sc: dict, a: str, b: str) -> list[str]:
    """Names of the connections whose route crosses a -> b."""
    return [c["name"] for c in sc["connection"] if (a, b) in zip(c["route"], c["route"][1:])]


def _conn(r: atmsim.RunResult, name: str):
    rows = r.connections[r.connections.name == name]
    assert len(rows) == 1, name
    return rows.iloc[0]


def _check_conservation(r: atmsim.RunResult) -> None:
    s = r.summary
    assert s["conservation_ok"] is True
    assert s["cells_sent"] == s["cells_delivered"] + s["cells_dropped"] + s["cells_in_flight"]
    assert s["cells_dropped_by_faults"] <= s["cells_dropped"]


# --------------------------------------------------------------------------- the builders


@pytest.mark.parametrize(
    "build",
    [
        lambda: r1(),
        lambda: r1(traffic="tcp"),
        lambda: r1(long_nodes=4, per_node=8),
        lambda: r1(setup="in_band"),
        lambda: r2(),
        lambda: r2(abr_per_set=4, vbr_per_set=4),
        lambda: r2(abr_per_set=4, vbr_per_set=4, vbr_open="staggered", duration="1 s"),
        lambda: r3(),
    ],
    ids=["r1", "r1-tcp", "r1-extended", "r1-in-band", "r2", "r2-video", "r2-staggered", "r3"],
)
def test_builders_give_valid_scenarios(build):
    sc = build()
    info = atmsim.validate(sc)
    assert info["connections"] == len(sc["connection"])
    assert info["routes"] == [c["route"] for c in sc["connection"]]
    assert sc["defaults"]["allocator"]["kind"] == "kvr"
    assert sc["defaults"]["abr"]["policy"] == "ucsc"


def test_r1_geometry_gives_the_seed_rtts():
    """Seed 004 4.1: RTT 16.076 ms for the long connections, 11.2 us for the short one."""
    sc = r1()
    rtts = {c["name"]: _rtt(sc, c) for c in sc["connection"]}
    assert rtts["L1"] == pytest.approx(16.076e-3, abs=1e-8)
    assert rtts["L2"] == pytest.approx(16.076e-3, abs=1e-8)
    assert rtts["S1"] == pytest.approx(11.2e-6, abs=1e-10)
    # D4 (sw1 -> sw2) is shared by all three.
    assert sorted(_carried(sc, "sw1", "sw2")) == ["L1", "L2", "S1"]
    # R1 extended: 32 long and 8 short connections, with the same two RTTs.
    ext = r1(long_nodes=4, per_node=8)
    rtts = [_rtt(ext, c) for c in ext["connection"]]
    assert len(rtts) == 40
    assert sum(abs(x - 16.076e-3) < 1e-8 for x in rtts) == 32
    assert sum(abs(x - 11.2e-6) < 1e-10 for x in rtts) == 8


def test_r2_geometry_links_a_b_c():
    """Seed 004 5.1: link C and link A carry 32 connections each, link B 16."""
    sc = r2()
    assert len(sc["connection"]) == 48
    assert len(_carried(sc, "sw2", "sw3")) == 32  # link C: sets A-D
    assert len(_carried(sc, "sw3", "dstA")) == 32  # link A: sets A, B, E, F
    assert len(_carried(sc, "sw3", "dstB")) == 16  # link B: sets C, D
    assert len(_carried(sc, "sw1", "sw2")) == 16  # sets A, B only
    assert sorted({n[0] for n in _carried(sc, "sw3", "dstB")}) == ["C", "D"]
    # With video: 4 ABR + 4 VBR per set, each video reserving 1.9 Mbps (seed 5.2).
    v = r2(abr_per_set=4, vbr_per_set=4)
    kinds = Counter(c["service"] for c in v["connection"])
    assert kinds == {"abr": 24, "vbr": 24}
    assert all(c["reserve"] == "1.9 Mbps" for c in v["connection"] if c["service"] == "vbr")
    starts = [_seconds(c["start"]) for c in v["connection"] if c["service"] == "vbr"]
    assert all(0 <= s <= 0.05 for s in starts) and len(set(starts)) == 24


def test_r3_has_8_tcp_and_4_sessions_connections():
    """Seed 004 6: 8 TCP connections to link A, 4 on/off ABR sources to link B; TCP 7, 8
    closest to the destination."""
    sc = r3()
    tcp = [c for c in sc["connection"] if c["traffic"]["kind"] == "tcp"]
    ses = [c for c in sc["connection"] if c["traffic"]["kind"] == "sessions"]
    assert len(tcp) == 8 and len(ses) == 4
    assert all(c["to"] == "dstA" for c in tcp)
    assert all(c["to"] == "dstB" for c in ses)
    assert all(c["traffic"]["on"] == "100 ms" and c["traffic"]["off"] == "100 ms" for c in ses)
    hops = {c["name"]: len(c["route"]) for c in tcp}
    assert hops["tcp7"] == hops["tcp8"] == min(hops.values())
    assert sc["defaults"]["switch_buffer"] == "19 cells"  # 1 KB


# --------------------------------------------------------------------------- quick runs


def test_r1_converges_to_a_third_each():
    """Seed 004 4.1: 155 / 3 = 51.67 Mbps per connection; D4 carries data at (Nrm-1)/Nrm."""
    r = atmsim.run(r1(duration="0.3 s"))
    _check_conservation(r)
    for name in ["L1", "L2", "S1"]:
        c = _conn(r, name)
        assert c.acr_final_bps == pytest.approx(LINK_BPS / 3, rel=0.005), name
        assert c.fair_share_bps == pytest.approx(LINK_BPS / 3, rel=1e-9), name
        assert c.rule5_resets == 0
    ps = r.port_series
    d4 = ps[(ps.port == "sw1->sw2") & (ps.time_s > 0.2)]
    assert d4.data_utilization.mean() == pytest.approx((NRM - 1) / NRM, abs=0.005)


def test_r2_all_48_connections_get_155_over_32():
    """Seed 004 5.1: every connection crosses link A or C, each shared by 32: 4.84 Mbps."""
    r = atmsim.run(r2(duration="0.1 s"))
    _check_conservation(r)
    assert len(r.connections) == 48
    acr = r.connections.acr_final_bps
    assert ((acr / (LINK_BPS / 32) - 1).abs() < 0.02).all(), acr.describe()
    assert (r.connections.fair_share_bps - LINK_BPS / 32).abs().max() < 1.0


def test_r2_with_video_abr_share_and_vbr_utilization():
    """Seed 004 5.2: 16 video connections reserve 1.9 Mbps each on links A and C, so each
    of the 16 ABR connections there gets (155 - 30.4) / 16 = 7.79 Mbps; the video itself
    uses about 14 % of link A (16 x 3250 cells/s) and about half that on link B."""
    r = atmsim.run(r2(abr_per_set=4, vbr_per_set=4, duration="0.3 s"))
    _check_conservation(r)
    abr = r.connections[r.connections.service == "abr"]
    assert len(abr) == 24
    want = (LINK_BPS - 16 * 1.9e6) / 16
    assert ((abr.acr_final_bps / want - 1).abs() < 0.01).all(), abr.acr_final_bps.describe()
    video = r.connections[r.connections.traffic == "video"]
    assert len(video) == 24 and (video.cells_delivered > 0).all()
    assert video.acr_final_bps.isna().all()
    ps = r.port_series
    link_a = ps[ps.port == "sw3->dstA"].vbr_utilization.mean()
    link_b = ps[ps.port == "sw3->dstB"].vbr_utilization.mean()
    assert 0.08 < link_a < 0.20, link_a
    assert 0.3 < link_b / link_a < 0.7, (link_a, link_b)


def test_port_series_has_data_and_vbr_utilization():
    r = atmsim.run(r2(abr_per_set=2, vbr_per_set=2, duration="0.1 s"))
    ps = r.port_series
    for col in ["utilization", "data_utilization", "vbr_utilization"]:
        assert col in ps.columns
        assert ((ps[col] >= 0) & (ps[col] <= 1)).all(), col
    assert (ps.vbr_utilization <= ps.data_utilization + 1e-6).all()
    assert (ps.data_utilization <= ps.utilization + 1e-6).all()
    # RM cells are left out of data_utilization, so on the busy links it is lower.
    busy = ps[(ps.port == "sw3->dstA") & (ps.time_s > 0.05)]
    assert (busy.data_utilization < busy.utilization).all()


def test_r3_sessions_open_and_close_and_runs_repeat():
    """Seed 004 6: the on/off ABR sources send only while open; the run is reproducible
    from its seed and another seed changes the sessions."""
    sc = r3(duration="0.4 s")
    a = atmsim.run(sc)
    _check_conservation(a)
    assert set(a.connections.traffic) == {"tcp", "sessions"}
    tcp = a.connections[a.connections.traffic == "tcp"]
    assert (tcp.goodput_bps > 0).all()
    ab = a.abr_series
    for name in ["abr1", "abr2", "abr3", "abr4"]:
        rx = ab[ab.source == name].cells_received.diff().dropna()
        assert (rx > 0).any(), name
    # At least one source was closed for a while (ten 5 ms samples in a row without cells).
    flat = [
        (ab[ab.source == n].cells_received.diff().dropna() == 0).astype(int).rolling(10).sum().max()
        for n in ["abr1", "abr2", "abr3", "abr4"]
    ]
    assert max(flat) == 10, flat
    b = atmsim.run(copy.deepcopy(sc))
    assert stable_summary(a.summary) == stable_summary(b.summary)
    assert a.connections.equals(b.connections)
    c = atmsim.run(r3(duration="0.4 s", seed=2))
    ses = lambda r: list(r.connections[r.connections.traffic == "sessions"].cells_sent)  # noqa: E731
    assert ses(a) != ses(c)


def test_one_lost_cell_in_r1_tcp():
    """Seed 004 4.2: one cell of connection 1 dropped; one corrupted frame, one fast
    retransmit (Reno), the others untouched."""
    r = atmsim.run(r1(traffic="tcp", duration="0.4 s", faults=[{"connection": "L1", "at": "0.25 s"}]))
    _check_conservation(r)
    assert r.summary["cells_dropped_by_faults"] == 1
    assert r.summary["cells_dropped"] == 1
    l1 = _conn(r, "L1")
    assert (l1.frames_corrupted, l1.retransmissions, l1.fast_retransmits, l1.timeouts) == (1, 1, 1, 0)
    for name in ["L2", "S1"]:
        c = _conn(r, name)
        assert (c.cells_dropped, c.retransmissions) == (0, 0), name


# --------------------------------------------------------------------------- validation and the CLI


def _bad_fault(tmp_path, fault: dict) -> str:
    p = tmp_path / "bad_fault.toml"
    p.write_text(to_toml(r1(faults=[fault])))
    return str(p)


def _one_line_error(rc: int, out: str, err: str, *needles: str) -> None:
    assert rc == 2, (rc, out, err)
    assert "Traceback" not in out + err
    lines = err.strip("\n").splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("atmsim: error:"), err
    for n in needles:
        assert n in lines[0], (n, lines[0])


@pytest.mark.parametrize(
    "fault, needles",
    [
        ({"connection": "L1", "at": "0.1 s", "cells": "rm"}, ["fault[0].cells", "unknown field"]),
        ({"connection": "X", "at": "0.1 s"}, ["fault[0].connection", '"X"', '"L1", "L2", "S1"']),
        ({"connection": "L1", "at": "0.1 s", "node": "L2_src"}, ["fault[0].node", '"L2_src"']),
        ({"connection": "L1", "at": "0.1 s", "count": 0}, ["fault[0].count"]),
        ({"connection": "L1", "at": "9 s"}, ["fault[0].at", "9 s"]),
    ],
    ids=["unknown-key", "unknown-connection", "node-off-route", "count-0", "after-the-end"],
)
def test_validate_bad_fault_is_one_line_error(tmp_path, fault, needles):
    rc, out, err = run_cli(["validate", _bad_fault(tmp_path, fault)])
    _one_line_error(rc, out, err, "invalid scenario", *needles)
    with pytest.raises(atmsim.ScenarioError, match=re.escape(needles[0])):
        atmsim.validate(r1(faults=[fault]))


def test_installed_command_validate_bad_fault(tmp_path):
    exe = VENV_BIN / "atmsim"
    assert exe.exists(), exe
    path = _bad_fault(tmp_path, {"connection": "L1", "at": "0.1 s", "cells": "rm"})
    p = subprocess.run([str(exe), "validate", path], capture_output=True, text=True, timeout=60)
    _one_line_error(p.returncode, p.stdout, p.stderr, "fault[0].cells")
    good = tmp_path / "good.toml"
    good.write_text(to_toml(r1(faults=[{"connection": "L1", "at": "0.1 s", "cell": "rm", "count": 2}])))
    p = subprocess.run([str(exe), "validate", str(good)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "valid." in p.stdout, p.stderr
