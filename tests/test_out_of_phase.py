"""Seed 000, slide 'Out-Of Phase Effect' (python/atmsim/experiments/out_of_phase.py): the
measurement of BRMs against the load of their VC per averaging interval, on hand-made trace
rows and on small runs where the answer is known (short bursts: every BRM comes back after
its burst; persistent sources: none does)."""

from __future__ import annotations

import pandas as pd
import pytest

from atmsim.experiments import out_of_phase as phase
from atmsim.topology import n_source


def _load(rows: list[tuple[float, str, float, int, int]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["time_s", "connection", "interval_s", "cells", "brm_cells"])


def test_bursts_and_shares_on_hand_made_rows():
    # VC a: load in intervals 1-2 (a 2 ms burst), its 3 BRMs in interval 4 (no load): out of phase.
    # VC b: load in every interval, a BRM in intervals 2 and 4: in phase.
    rows = [(t, "a", 0.001, c, b) for t, c, b in [(1, 5, 0), (2, 5, 0), (3, 0, 0), (4, 0, 3)]]
    rows += [(t, "b", 0.001, 4, int(t % 2 == 0)) for t in (1, 2, 3, 4)]
    m = phase.measures(_load(rows))
    assert m["brm_cells"] == 5
    assert m["brm_without_load"] == pytest.approx(3 / 5)
    # 6 intervals with load; a's two and b's 1 and 3 carry no BRM.
    assert m["load_without_brm"] == pytest.approx(4 / 6)
    assert sorted(phase.bursts(_load(rows))) == pytest.approx([0.002, 0.004])
    # Time-weighted mean burst: (2^2 + 4^2) / (2 + 4) ms.
    assert m["burst_s"] == pytest.approx((0.002**2 + 0.004**2) / 0.006)


def test_before_long_burst_keeps_each_vcs_intervals_before_its_first_long_burst():
    rows = [(t, "a", 0.001, c, 0) for t, c in [(1, 1), (2, 0), (3, 1), (4, 1), (5, 1), (6, 0)]]
    rows += [(t, "b", 0.001, 1, 0) for t in (1, 2, 3)]
    kept = phase.before_long_burst(_load(rows), 0.003)
    assert list(kept[kept.connection == "a"].time_s) == [1, 2]  # a's burst 3-5 is 3 ms long
    assert kept[kept.connection == "b"].empty  # b's first burst is already 3 ms long


def _wan(traffic: dict | None) -> dict:
    sc = n_source(2, link_length="1000 km", service="abr", duration="0.3 s",
                  abr={"icr": "10 Mbps", "nrm": 32}, tcp={"window": "1 MiB"},
                  allocator={"kind": "modified_erica", "interval_cells": "100 cells", "interval_time": "1 ms"})
    if traffic is None:
        for c in sc["connection"]:
            c["traffic"] = {"kind": "persistent"}
        return sc
    return phase.scenario(sc, traffic["response"], "10 ms")


def test_short_bursts_are_out_of_phase_and_persistent_load_is_not():
    # 128-cell responses over a 30 ms RTT: bursts of about 2 ms, every BRM after its burst.
    _, load = phase.traced_load(_wan({"response": 128}), "sw1->sw2")
    short = phase.measures(load)
    assert short["brm_cells"] > 20
    assert short["burst_s"] < 0.030
    assert short["brm_without_load"] > 0.9
    # Persistent sources: load in (nearly) every interval, BRMs with it.
    _, load = phase.traced_load(_wan(None), "sw1->sw2")
    steady = phase.measures(load)
    assert steady["brm_cells"] > 100
    assert steady["brm_without_load"] < 0.1


def test_the_traced_rerun_is_checked_against_the_case():
    sc = _wan({"response": 128})
    res, _ = phase.traced_load(sc, "sw1->sw2")
    assert "trace" not in sc  # the case's scenario is left as it was
    assert phase.same_run(res, res)
