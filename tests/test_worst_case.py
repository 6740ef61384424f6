"""The worst-case reproduction (seed 002, worst case buffer requirements for TCP over ABR):
the analytic queue, the published tables, the cases, one quick end-to-end run, one small
physical run, and the full run (slow)."""

from __future__ import annotations

import csv
import math
from importlib import resources

import numpy as np
import pandas as pd
import pytest

import atmsim
from atmsim.experiments.worst_case import (
    BOTTLENECK,
    CHOICES,
    TABLE1_N,
    TABLE2_N,
    Params,
    WorstCase,
    all_params,
    analytic,
    cells_for_segment,
    max_queue,
    scenario_for,
    table1,
    table2,
)

COLUMNS = ["experiment", "case", "metric", "published", "simulated", "verdict", "seed", "section", "quote", "class"]
WINDOW_CELLS = 1536  # 64 KB = 128 segments of 512 B, 12 cells each


def read_csv(name: str) -> list[dict[str, str]]:
    text = resources.files("atmsim.data").joinpath(name).read_text()
    return list(csv.DictReader(ln for ln in text.splitlines() if not ln.startswith("#")))


# --------------------------------------------------------------------------- analytic


def test_analytic_underloaded():
    a = analytic(Params(10))  # N = 10 <= t/g = 1 ms / 50 us = 20
    assert a["underloaded"] is True
    assert a["published"] == 13650  # 10 x floor(65536 / 48)
    assert a["per_burst"] == 15360  # 10 x floor(12 x 65536 / 512)


def test_analytic_overloaded():
    a = analytic(Params(30))  # N = 30 > 20
    assert a["underloaded"] is False
    assert a["published"] == pytest.approx(353356 * 30 * 0.001, abs=1)
    assert a["per_burst"] == a["published"]


def test_analytic_boundary_and_long_interval():
    assert analytic(Params(20))["underloaded"] is True
    assert analytic(Params(21))["underloaded"] is False
    # t = 10 ms, g = 50 us: up to 200 sources are underloaded.
    a = analytic(Params(100, 512, 50, 10, 1000))
    assert a["underloaded"] is True and a["published"] == 100 * 1365
    assert analytic(Params(100, 512, 100, 1, 1000))["underloaded"] is False  # t/g = 10


def test_analytic_1024_byte_segments():
    a = analytic(Params(3, 1024, 50, 1, 1000))
    assert a["per_burst"] == 3 * math.floor(23 * 65536 / 1024)  # 23 cells per 1024 B segment
    assert a["published"] == 3 * 1365  # eq. (3) does not depend on the MSS


def test_cells_for_segment():
    assert cells_for_segment(512) == 12  # 512 + 56 = 568 B -> 12 x 48
    assert cells_for_segment(1024) == 23  # 1080 B -> 23 x 48
    assert cells_for_segment(520) == 12 and cells_for_segment(521) == 13  # 576 B exactly fits 12 cells


def test_table1_analytic_column_matches_equations():
    # The CSV's analytic column is the paper's 1365 N / 353 N; ours is within rounding of it.
    for _, r in table1().iterrows():
        a = analytic(Params(int(r["N"])))["published"]
        assert a == pytest.approx(r["analytic_printed"], rel=0.003), r["N"]


# --------------------------------------------------------------------------- published tables


def test_table1_matches_the_csv():
    t1 = table1()
    raw = read_csv("worst_case_table1.csv")
    assert len(t1) == 23 == len(raw)
    assert list(t1.columns) == ["N", "published", "analytic_printed"]
    assert t1["N"].tolist() == TABLE1_N == [int(r["sources"]) for r in raw]
    assert t1["published"].tolist() == [float(r["max_queue_cells"]) for r in raw]
    assert t1["analytic_printed"].tolist() == [float(r["analytic_queue_cells"]) for r in raw]
    assert t1.set_index("N").loc[2, "published"] == 1575
    assert t1.set_index("N").loc[200, "published"] == 55618


def test_table2_lines_and_na():
    t2 = table2()
    assert len(t2) == 16 * 6
    assert sorted(t2["line"].unique()) == list(range(1, 17))
    assert (t2.groupby("line")["N"].apply(list) == pd.Series({i: TABLE2_N for i in range(1, 17)})).all()
    assert t2["published"].dtype == float
    na = t2[t2["published"].isna()]
    # "NA" in the paper: N = 100 of lines 5-16.
    assert sorted(na["line"]) == list(range(5, 17)) and set(na["N"]) == {100}
    raw = {int(r["line"]): r for r in read_csv("worst_case_table2.csv")}
    for r in t2.itertuples():
        line = raw[r.line]
        v = line[f"n{r.N}"]
        assert (math.isnan(r.published) if v == "" else r.published == float(v)), (r.line, r.N)
        assert (r.mss, r.g_us, r.t_ms, r.d_km) == (
            int(line["mss"]), float(line["g_us"]), float(line["t_ms"]), float(line["d_km"]))
    line1 = t2[t2["line"] == 1].set_index("N")
    assert line1.loc[10, "published"] == 14273 and line1.loc[100, "published"] == 35687


def test_all_params():
    ps = all_params(False)
    keys = [p.key for p in ps]
    assert len(keys) == len(set(keys))
    assert {Params(n) for n in TABLE1_N} <= set(ps)
    n_table2 = int(table2()["published"].notna().sum())
    # Table 2's line 1 is Table 1's setting: its six N are run once.
    assert len(ps) == len(TABLE1_N) + n_table2 - len(TABLE2_N) == 101
    quick = all_params(True)
    assert len({p.key for p in quick}) == len(quick) and len(quick) < len(ps)


def test_params_key():
    assert Params(3).key == "N3-mss512-g50-t1-d1000"
    assert Params(30, 1024, 100, 10, 2000).key == "N30-mss1024-g100-t10-d2000"


# --------------------------------------------------------------------------- scenario


def test_scenario_for_three_sources():
    sc = scenario_for(Params(3))
    conns = sc["connection"]
    assert len(conns) == 3
    assert all(c["traffic"]["kind"] == "tcp" and c["service"] == "abr" for c in conns)
    for c in conns:
        app = c["traffic"]["application"]
        assert app == {"kind": "periodic", "segment_interval": "1 ms", "segments": 1000, "burst": "65536 B",
                       "burst_at": "1 s"}
    assert [c["start"] for c in conns] == ["0 us", "50 us", "100 us"]
    d = sc["defaults"]
    assert d["link_rate"] == "149.76 Mbps"
    assert d["switch_buffer"] == "unlimited"
    assert d["allocator"]["kind"] == "erica_plus" and d["allocator"]["t0"] == "500 us"
    assert d["tcp"]["mss"] == "512 B" and d["tcp"]["window"] == "65536 B"
    assert d["abr"] == CHOICES["abr"]
    assert all(link["length"] == "1000 km" for link in sc["link"])
    assert sc["measurement"]["duration"] == "1.3 s"  # the burst at 1 s plus 300 ms
    info = atmsim.validate(sc)
    assert info["connections"] == 3


def test_scenario_for_other_parameters_and_quick():
    sc = scenario_for(Params(10, 1024, 100, 10, 2000))
    c = sc["connection"]
    assert len(c) == 10
    assert c[9]["start"] == "900 us"
    assert c[0]["traffic"]["application"]["segment_interval"] == "10 ms"
    assert c[0]["traffic"]["application"]["burst_at"] == "10 s"
    assert sc["defaults"]["tcp"]["mss"] == "1024 B"
    assert all(link["length"] == "2000 km" for link in sc["link"])
    q = scenario_for(Params(3), quick=True)
    assert q["connection"][0]["traffic"]["application"]["segments"] == 100
    assert q["connection"][0]["traffic"]["application"]["burst_at"] == "0.1 s"
    assert q["measurement"]["duration"] == "0.4 s"
    late = scenario_for(Params(3), burst_delay=0.03)
    assert late["connection"][0]["traffic"]["application"]["burst_at"] == "1.03 s"


def test_every_case_validates():
    for c in WorstCase().cases(quick=False):
        assert atmsim.validate(c.scenario)["connections"] == c.meta["N"], c.key


# --------------------------------------------------------------------------- a small physical run


@pytest.fixture(scope="module")
def n3_quick():
    return atmsim.run(scenario_for(Params(3), quick=True))


def test_n3_quick_no_loss_no_retransmission(n3_quick):
    s = n3_quick.summary
    assert s["conservation_ok"] and s["cells_dropped"] == 0
    c = n3_quick.connections
    assert (c["retransmissions"] == 0).all() and (c["timeouts"] == 0).all()
    # 100 single segments, then the 64 KB burst: 128 segments.
    assert (c["segments_sent"] == 100 + 128).all()
    assert (c["goodput_bytes"] == 228 * 512).all()
    # Something is sent every 1 ms until 0.1 s, far more often than ADTF (500 ms): ACR is kept.
    assert (c["rule5_resets"] == 0).all()


def test_n3_quick_max_queue(n3_quick):
    q, at = max_queue(n3_quick)
    burst_at = 0.1
    # Every data cell in the queue is unacknowledged, and each source has at most one 64 KB
    # window (1536 cells) unacknowledged: the queue stays below the three windows.
    assert q < 3 * WINDOW_CELLS
    # More than one source's whole window: the sources' windows overlap at the bottleneck
    # (each source alone at line rate into a line-rate link would queue almost nothing).
    assert q > WINDOW_CELLS
    # The peak comes from the burst, not from the periodic phase.
    assert at > burst_at
    ps = n3_quick.port_series
    s = ps[ps["port"] == BOTTLENECK]
    before = s.loc[s["time_s"] <= burst_at, "max_queue_cells"].max()
    # Before the burst each window is still opening in slow start from 1 MSS, doubling at most
    # once per 30 ms RTT: at most 16 segments (192 cells) per source by 0.1 s.
    assert before < 3 * 16 * 12
    assert before < q


# --------------------------------------------------------------------------- quick end-to-end


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("worst-case-quick")
    comparison = WorstCase().run(out, quick=True, progress=False)
    return out, comparison


def test_quick_writes_the_files(quick):
    out, comparison = quick
    for f in ("comparison.csv", "runs.csv", "table1.csv", "table2.csv", "report.md", "figures/figure3.png"):
        assert (out / f).is_file(), f
        assert (out / f).stat().st_size > 0, f
    c = pd.read_csv(out / "comparison.csv")
    assert list(c.columns) == COLUMNS
    assert len(c) == len(comparison)
    assert set(c["verdict"]) <= {"pass", "fail", "info"}
    assert set(c["experiment"]) == {"worst-case"}
    report = (out / "report.md").read_text()
    assert "checks pass" in report and "figures/figure3.png" in report and "--quick" in report


def test_quick_tables(quick):
    out, _ = quick
    t1 = pd.read_csv(out / "table1.csv")
    assert sorted(t1["N"]) == [2, 5, 10, 30]
    for col in ("published", "simulated", "at_s", "analytic_eq", "analytic_per_burst", "underloaded"):
        assert col in t1.columns, col
    assert (t1["simulated"] > 0).all()
    pub = table1().set_index("N")["published"]
    assert (t1.set_index("N")["published"] == pub.loc[t1["N"]]).all()
    t2 = pd.read_csv(out / "table2.csv")
    assert len(t2) >= 2 and {"line", "mss/g/t/d", "N", "published", "simulated"} <= set(t2.columns)
    runs = pd.read_csv(out / "runs.csv")
    assert (runs["cells_dropped"] == 0).all()


# --------------------------------------------------------------------------- full run (slow)


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    out = tmp_path_factory.mktemp("worst-case-full")
    WorstCase().run(out, quick=False, progress=False)
    return out


@pytest.mark.slow
def test_full_table1_small_n_within_20_percent(full):
    t1 = pd.read_csv(full / "table1.csv")
    assert sorted(t1["N"]) == TABLE1_N
    small = t1[t1["N"] <= 20]
    rel = (small["simulated"] / small["published"] - 1).abs()
    assert (rel <= 0.20).all(), small[["N", "published", "simulated"]].assign(rel=rel).to_string()


@pytest.mark.slow
def test_full_table1_small_n_linear(full):
    t1 = pd.read_csv(full / "table1.csv")
    small = t1[t1["N"] <= 20]
    x, y = small["N"].to_numpy(float), small["simulated"].to_numpy(float)
    a, b = np.polyfit(x, y, 1)
    r2 = 1 - ((y - (a * x + b)) ** 2).sum() / ((y - y.mean()) ** 2).sum()
    assert a > 0 and r2 >= 0.99, (a, b, r2, y.tolist())


@pytest.mark.slow
def test_full_table1_drop_from_20_to_30(full):
    q = pd.read_csv(full / "table1.csv").set_index("N")["simulated"]
    assert q[30] < q[20], (q[20], q[30])


@pytest.mark.slow
def test_full_no_loss(full):
    runs = pd.read_csv(full / "runs.csv")
    assert len(runs) == len(WorstCase().cases(quick=False))
    assert (runs["cells_dropped"] == 0).all()
