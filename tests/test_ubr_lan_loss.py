"""The scenario variants of ``atmsim.experiments.ubr_lan_loss`` (issue 15 section 4): they
change only what they say, and the results they produced are the ones the ledger reads."""

from __future__ import annotations

from importlib import resources

import pandas as pd

import atmsim
from atmsim.experiments.ubr_lan_loss import ORDERS, with_input_skew, with_order, with_shared_hosts
from atmsim.experiments.ubr_plus import POLICIES, scenario


def _lan(n: int = 5) -> dict:
    return scenario("LAN", n, "1000 cells", POLICIES["UBR"], quick=True)


def test_with_order_sets_only_the_key():
    sc = _lan()
    assert "arrival_order" not in with_order(sc, "event_order")["defaults"]
    out = with_order(sc, "random")
    assert out["defaults"]["arrival_order"] == "random"
    assert "arrival_order" not in sc["defaults"]  # the input is not modified
    assert out["link"] == sc["link"] and out["connection"] == sc["connection"]


def test_input_skew_lengthens_source_links_by_index():
    sc = _lan()
    out = with_input_skew(sc)
    delays = {tuple(ln["between"]): ln["delay"] for ln in out["link"]}
    assert delays[("src1", "sw1")] == "5001 ns" and delays[("src5", "sw1")] == "5005 ns"
    assert delays[("sw1", "sw2")] == "5 us"


def test_shared_hosts_route_every_connection_from_the_kept_hosts():
    sc = _lan(5)
    one = with_shared_hosts(sc, 1)
    assert {c["from"] for c in one["connection"]} == {"src1"}
    assert all(c["route"][0] == "src1" for c in one["connection"])
    assert [n["name"] for n in one["node"] if n["name"].startswith("src")] == ["src1"]
    two = with_shared_hosts(sc, 2)
    assert [c["from"] for c in two["connection"]] == ["src1", "src2", "src1", "src2", "src1"]
    # One shared 155.52 Mb/s access link cannot overload sw1 -> sw2: nothing is dropped.
    assert atmsim.run(one, progress=False).summary["cells_dropped"] == 0


def test_the_stored_tables_cover_every_lan_run_and_variant():
    data = resources.files("atmsim.data")
    with data.joinpath("ubr_lan_order.csv").open() as f:
        t = pd.read_csv(f, comment="#")
    assert set(t["variant"]) == set(ORDERS) | {"input skew 1 ns"}
    assert (t.groupby("variant")["case"].nunique() == 24).all()
    with data.joinpath("ubr_lan_hosts.csv").open() as f:
        h = pd.read_csv(f, comment="#")
    assert (h.groupby("variant")["case"].nunique() == 24).all()
    # The default is today's engine: its rows are the ledger's time-budget efficiencies.
    with data.joinpath("ubr_lan_loss.csv").open() as f:
        budget = pd.read_csv(f, comment="#").set_index("case")["efficiency"]
    base = t[t["variant"] == "event_order"].set_index("case")["efficiency"]
    assert (base - budget.reindex(base.index)).abs().max() < 1e-9
