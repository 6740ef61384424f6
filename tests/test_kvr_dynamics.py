"""The seed 004 reproduction (atmsim reproduce kvr-dynamics): quick cases in CI, the full
suite on demand (pytest -m slow)."""

from __future__ import annotations

import pandas as pd
import pytest

import atmsim
from atmsim.experiments import get
from atmsim.experiments.kvr_dynamics import M, _specs, check_r1, check_r2, within_factor


def _run(key: str, quick: bool = True) -> M:
    return M(atmsim.run(_specs()[key](quick)))


def _verdicts(rows) -> dict[str, str]:
    return {r["metric"]: r["verdict"] for r in rows}


def test_registered_with_every_case_and_choices():
    exp = get("kvr-dynamics")
    keys = [c.key for c in exp.cases(quick=True)]
    for k in ["r1-cells", "r1-40", "r1-tcp", "r2-cells", "r2-vbr", "r2-vbr-staggered", "r3-tcp"]:
        assert k in keys
    # Sensitivity variants are marked and never judged.
    assert any("|" in k for k in keys)


def test_within_factor():
    assert within_factor(100, 100) and within_factor(150, 100) and within_factor(67, 100)
    assert not within_factor(151, 100) and not within_factor(66, 100)


def test_r1_rates_converge_to_max_min_and_utilization_caps_at_rm_overhead():
    """Seed 004 4.1: three rates converge to 1/3 of the link; D4 at ~97 % (RM overhead)."""
    m = _run("r1-cells")
    v = _verdicts(check_r1(m, None))
    assert v["largest abs(final ACR / max-min share - 1) over 3 connections"] == "pass"
    assert v["D4 utilization maximum (5 ms average, data cells)"] == "pass"
    # (Nrm - 1) / Nrm of the link carries data once the sources fill it.
    u = m.util5("sw1->sw2")
    assert abs(u.iloc[-10:].mean() - 31 / 32) < 0.01


def test_r2_all_48_connections_share_equally_and_link_b_half_used():
    """Seed 004 5.1: every connection at 155/32 Mbps; link B near half utilization."""
    m = _run("r2-cells")
    v = _verdicts(check_r2(m))
    assert v["largest abs(final ACR / (155/32 Mbps) - 1) over 48 connections"] == "pass"
    assert v["link B utilization (steady, data cells)"] == "pass"
    assert v["link A utilization (steady, data cells)"] == "pass"


def test_comparison_has_verdicts_and_plots(tmp_path):
    """A shortened run of the whole reproduction writes every file with pass/fail/info."""
    exp = get("kvr-dynamics")
    comp = exp.run(tmp_path, quick=True, progress=False)
    assert set(comp["verdict"]) <= {"pass", "fail", "info"}
    assert {"r1-cells", "r1-40", "r1-tcp", "r2-cells", "r2-vbr", "r2-vbr-staggered", "r3-tcp"} <= set(comp["case"])
    assert (tmp_path / "comparison.csv").exists() and (tmp_path / "report.md").exists()
    assert len(list((tmp_path / "figures").glob("*.png"))) == len(exp.cases(True))
    saved = pd.read_csv(tmp_path / "comparison.csv")
    assert len(saved) == len(comp)


@pytest.mark.slow
def test_full_reproduction_core_claims(tmp_path):
    """The checks the issue judges on: R1 shares, R2 shares and link B, R1-TCP's fault,
    R3 progress."""
    comp = get("kvr-dynamics").run(tmp_path, quick=False, progress=False)
    v = {(r.case, r.metric): r.verdict for r in comp.itertuples()}
    must = [
        ("r1-cells", "largest abs(final ACR / max-min share - 1) over 3 connections"),
        ("r2-cells", "largest abs(final ACR / (155/32 Mbps) - 1) over 48 connections"),
        ("r2-cells", "link B utilization (steady, data cells)"),
        ("r1-tcp", "no congestion loss: cells dropped at ports"),
        ("r1-tcp", "L1 fast retransmits after the dropped cell"),
        ("r1-tcp", "L2 and S1 unaffected: their retransmissions + timeouts"),
        ("r1-tcp", "steady throughput slopes 0.3-0.5 s: max / min"),
        ("r3-tcp", "every TCP connection makes progress in every fifth of the run"),
    ]
    for k in must:
        assert v[k] == "pass", k
