"""The erica-testing reproduction (seed 003): structure and the robust claims in the quick
run; the issue's acceptance criteria on the full run (slow)."""

from __future__ import annotations

import pandas as pd
import pytest

from atmsim.experiments import get
from atmsim.experiments.erica_testing import SPECS

COLUMNS = ["experiment", "case", "metric", "published", "simulated", "verdict", "seed", "section", "quote", "class"]


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("erica-quick")
    get("erica-testing").run(out, quick=True, progress=False)
    return out


def test_structure(quick):
    c = pd.read_csv(quick / "comparison.csv")
    assert list(c.columns) == COLUMNS
    assert set(c["verdict"]) <= {"pass", "fail", "info"}
    assert len(SPECS) == 24
    assert set(c["experiment"]) == {s.id for s in SPECS}
    assert sorted({int(x.split()[1]) for x in c["case"]}) == sorted(s.figure for s in SPECS)
    figs = sorted(p.name for p in (quick / "figures").glob("*.png"))
    assert len(figs) == 24
    report = (quick / "report.md").read_text()
    assert "checks pass" in report and "figures/upstream-maxmin.png" in report


def test_quick_run_holds_the_lan_claims(quick):
    c = pd.read_csv(quick / "comparison.csv")
    lan = c[c["experiment"].isin(["one-source-erica", "two-source-erica", "two-source-ericaplus",
                                  "parking-lot-erica", "parking-lot-ericaplus", "transient-fsfirst"])]
    assert (lan["verdict"] == "pass").all(), lan[lan["verdict"] != "pass"].to_string()


@pytest.mark.slow
def test_full_run_meets_the_issue_criteria(tmp_path):
    c = get("erica-testing").run(tmp_path, progress=False)
    rates = c[c["metric"].str.contains("steady ACR") & c["experiment"].isin(
        ["one-source-erica", "two-source-erica", "two-source-ericaplus", "parking-lot-erica", "upstream-maxmin"])]
    assert len(rates) >= 9
    assert (rates["verdict"] == "pass").all(), rates.to_string()
    q = c[(c["experiment"] == "two-source-ericaplus") & c["metric"].str.contains("queue")]
    assert (q["verdict"] == "pass").all()
    pairs = c[c["published"].str.contains("than fig|than ERICA", regex=True)]
    assert len(pairs) >= 5
