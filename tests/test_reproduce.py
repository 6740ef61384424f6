"""The ubr-plus reproduction (seed 001): the quick run in the default suite, the full run
(the issue's acceptance criteria) marked slow."""

from __future__ import annotations

from importlib import resources

import pandas as pd
import pytest

from atmsim.experiments import EXPERIMENTS, get
from conftest import run_cli

COLUMNS = ["experiment", "case", "metric", "published", "simulated", "verdict", "seed", "section", "quote", "class"]
POLICIES = ["UBR", "EPD", "SD", "FBA"]


def _published(name: str) -> pd.DataFrame:
    with resources.files("atmsim.data").joinpath(name).open() as f:
        return pd.read_csv(f, comment="#")


def _numeric(df: pd.DataFrame) -> pd.DataFrame:
    """Rows whose published and simulated values are numbers (the sentence checks print text)."""
    return df.assign(published=pd.to_numeric(df["published"]), simulated=pd.to_numeric(df["simulated"]))


def _zero_loss(comparison: pd.DataFrame) -> pd.DataFrame:
    z = comparison[comparison["case"].str.startswith("zero-loss")]
    return _numeric(z[z["metric"] != "max queue / sum of TCP windows"])


def _policy_rows(comparison: pd.DataFrame) -> pd.DataFrame:
    p = comparison[~comparison["case"].str.startswith("zero-loss") & comparison["metric"].isin(["efficiency", "fairness"])
                   & comparison["case"].str.contains(r" (UBR|EPD|SD|FBA)$")].copy()
    parts = p["case"].str.extract(r"^(?P<config>LAN|WAN) N=(?P<sources>\d+) K=(?P<buffer>\d+) (?P<policy>UBR|EPD|SD|FBA)$")
    assert parts.notna().all().all(), p["case"][parts.isna().any(axis=1)].tolist()
    return pd.concat([parts, _numeric(p)], axis=1)


def _check_structure(out) -> pd.DataFrame:
    comparison = pd.read_csv(out / "comparison.csv")
    assert list(comparison.columns) == COLUMNS
    # 16 zero-loss rows, 96 published numbers, 12 "EPD improves efficiency", 8 "more
    # buffering", 2 means, 4 "buffers = sum of windows", 2 x 3 parameter-slide rows, 2 "low
    # efficiency and fairness for TCP over UBR" rows.
    assert len(comparison) == 16 + 96 + 12 + 8 + 2 + 4 + 6 + 2
    assert (comparison["experiment"] == "ubr-plus").all()
    assert not comparison.duplicated(["case", "metric"]).any()
    assert comparison["simulated"].notna().all() and comparison["published"].notna().all()
    assert set(comparison["verdict"]) <= {"pass", "fail"}
    assert (comparison["quote"].fillna("") != "").all()  # every row tests a quoted claim
    z = _zero_loss(comparison)
    assert len(z) == 16
    assert sorted(z["metric"].unique()) == ["cells_dropped", "efficiency", "fairness", "max_queue_cells"]
    assert (comparison["metric"] == "max queue / sum of TCP windows").sum() == 4
    comparison = _numeric(comparison[comparison["metric"].isin(["efficiency", "fairness", "max_queue_cells"])
                                     & ~comparison["case"].str.startswith("all ") & ~comparison["case"].str.contains("parameters")])
    p = _policy_rows(comparison)
    assert len(p) == 96
    assert sorted(p["metric"].unique()) == ["efficiency", "fairness"]
    assert sorted(p["policy"].unique()) == sorted(POLICIES)
    assert len(p.drop_duplicates(["config", "sources", "buffer"])) == 12
    # Efficiency and fairness are ratios.
    ratios = comparison[comparison["metric"] != "max_queue_cells"]["simulated"]
    assert ((ratios > 0) & (ratios <= 1.05)).all()
    return comparison


def test_experiment_registry():
    assert "ubr-plus" in EXPERIMENTS
    exp = get("ubr-plus")
    assert exp.id == "ubr-plus"
    with pytest.raises(KeyError, match="ubr-plus"):
        get("no-such-id")
    cases = exp.cases(quick=True)
    assert len(cases) == 4 + 48 + 18  # zero-loss, policy table, SD/FBA Z x R grid
    assert len({c.key for c in cases}) == len(cases)
    full = {c.key: c for c in exp.cases(quick=False)}
    for c in cases:
        q = c.scenario["measurement"]["duration"]
        f = full[c.key].scenario["measurement"]["duration"]
        assert float(q.split()[0]) == pytest.approx(float(f.split()[0]) / 10)


def test_quick_reproduction_succeeds(quick_reproduction):
    r = quick_reproduction
    assert r["rc"] == 0, r["stderr"]
    assert "Traceback" not in r["stderr"]
    assert "checks:" in r["stdout"]
    assert f"wrote {r['out']}/comparison.csv" in r["stdout"]


def test_quick_reproduction_files(quick_reproduction):
    out = quick_reproduction["out"]
    for name in ("comparison.csv", "report.md", "ubr_plus.png", "runs.csv"):
        assert (out / name).is_file(), name
    assert (out / "ubr_plus.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    report = (out / "report.md").read_text()
    assert "## Checks" in report and "Quick run" in report and "ubr_plus.png" in report
    assert report.count("| pass |") + report.count("| FAIL |") == 5


def test_quick_comparison_table(quick_reproduction):
    comparison = _check_structure(quick_reproduction["out"])
    # The published column is exactly the published data.
    pol = _published("ubr_plus_policies.csv")
    p = _policy_rows(comparison)
    for _, row in pol.iterrows():
        for policy in POLICIES:
            for metric, col in (("efficiency", "eff"), ("fairness", "fair")):
                sel = p[(p["config"] == row["config"]) & (p["sources"] == str(row["sources"]))
                        & (p["buffer"] == str(row["buffer_cells"])) & (p["policy"] == policy) & (p["metric"] == metric)]
                assert len(sel) == 1
                assert sel["published"].iloc[0] == pytest.approx(row[f"{policy.lower()}_{col}"])


def test_quick_zero_loss_max_queue_within_15_percent(quick_reproduction):
    comparison = pd.read_csv(quick_reproduction["out"] / "comparison.csv")
    z = _zero_loss(comparison)
    q = z[z["metric"] == "max_queue_cells"]
    assert len(q) == 4
    published = _published("ubr_plus_zero_loss.csv")
    assert sorted(q["published"]) == sorted(published["max_queue_cells"].astype(float))
    rel = (q["simulated"] - q["published"]).abs() / q["published"]
    assert (rel <= 0.15).all(), dict(zip(q["case"], rel))


def test_quick_zero_loss_runs_lose_nothing(quick_reproduction):
    runs = pd.read_csv(quick_reproduction["out"] / "runs.csv")
    assert len(runs) == 52 + 18
    zl = runs[runs["table"] == "zero-loss"]
    assert len(zl) == 4
    assert (zl["cells_dropped"] == 0).all()
    assert (runs.loc[runs["table"] == "policies", "cells_dropped"] > 0).any()


@pytest.mark.slow
def test_full_reproduction_meets_the_issue_criteria(tmp_path):
    out = tmp_path / "ubr-plus"
    rc, stdout, stderr = run_cli(["reproduce", "ubr-plus", "--out", str(out), "--no-progress"])
    assert rc == 0, stderr
    comparison = _check_structure(out)
    assert "Quick run" not in (out / "report.md").read_text()

    # Zero-loss buffers: max queue within 15 % of the published value, and no loss at all.
    z = _zero_loss(comparison)
    q = z[z["metric"] == "max_queue_cells"]
    rel = (q["simulated"] - q["published"]).abs() / q["published"]
    assert (rel <= 0.15).all(), dict(zip(q["case"], rel))
    runs = pd.read_csv(out / "runs.csv")
    assert (runs.loc[runs["table"] == "zero-loss", "cells_dropped"] == 0).all()

    # Policy table: mean efficiency ranks UBR < EPD < min(SD, FBA) ...
    p = _policy_rows(comparison)
    eff = p[p["metric"] == "efficiency"].groupby("policy")["simulated"].mean()
    fair = p[p["metric"] == "fairness"].groupby("policy")["simulated"].mean()
    assert eff["UBR"] < eff["EPD"] < min(eff["SD"], eff["FBA"]), eff.to_dict()
    # ... SD and FBA are fairer on average than UBR and EPD ...
    assert min(fair["SD"], fair["FBA"]) > max(fair["UBR"], fair["EPD"]), fair.to_dict()
    # ... and at least two thirds of the 96 published numbers are matched within 0.15.
    within = int(((p["simulated"] - p["published"]).abs() <= 0.15).sum())
    assert within >= 64, f"{within} of 96 within 0.15"

    # The report's own checks agree.
    report = (out / "report.md").read_text()
    assert report.count("| pass |") == 5 and "| FAIL |" not in report


# ----------------------------------------------------------------------------- ledger, provenance


def test_claims_annotate_quote_and_class():
    from atmsim.experiments.claims import annotate

    df = pd.DataFrame([
        {"experiment": "ubr-plus", "case": "LAN N=5 K=1000 EPD", "metric": "efficiency", "published": 0.49, "simulated": 0.59, "verdict": "pass"},
        {"experiment": "worst-case", "case": "table2-line3-N30", "metric": "vs_12_cell_burst_form", "published": 1, "simulated": 2, "verdict": "fail"},
        {"experiment": "kvr-dynamics", "case": "r1-40|in-band", "metric": "queue at sw1->sw2 (cells, max) [in-band]", "published": 1, "simulated": 2, "verdict": "info"},
        {"experiment": "no-such", "case": "x", "metric": "y", "published": 1, "simulated": 2, "verdict": "fail"},
    ])
    a = annotate(df)
    assert list(a.columns[-4:]) == ["seed", "section", "quote", "class"]
    assert a.loc[0, "seed"] == "001" and a.loc[0, "quote"] == "Simulation Results" and a.loc[0, "class"] == ""
    assert a.loc[1, "seed"] == "002" and a.loc[1, "class"] == "(c)"
    assert a.loc[2, "quote"] == ""  # a sensitivity row tests no claim
    assert a.loc[3, "class"] == "unknown"  # a fail nobody explained


def test_delta_evidence_makes_a_row_class_b_only_if_another_delta_passes():
    from atmsim.experiments.claims import classify

    cls, ev = classify("one_rtt|one_rtt-modified_erica-n10-rtt30-fb10|max_queue_cells")
    assert cls == "(b)" and "delta 0.02" in ev and "(pass)" in ev
    cls, _ = classify("one_rtt|one_rtt-modified_erica-n5-rtt30-fb10|max_queue_cells")
    assert cls == "unknown"  # fails under every delta tried


def test_every_claim_is_quoted_and_sectioned():
    from atmsim.experiments.claims import CLAIMS

    assert {c.seed for c in CLAIMS} == {"000", "001", "002", "003", "004"}
    for c in CLAIMS:
        assert c.quote.strip() and c.section.strip()
        assert c.rows or c.note, c.quote  # an unchecked claim says why


def test_ledger_renders_from_comparisons(tmp_path):
    from atmsim.experiments.claims import annotate
    from atmsim.experiments.ledger import load, render

    d = tmp_path / "ubr-plus"
    d.mkdir()
    annotate(pd.DataFrame([
        {"experiment": "ubr-plus", "case": "LAN N=5 K=1000 UBR", "metric": "efficiency", "published": 0.21, "simulated": 0.69, "verdict": "fail"},
        {"experiment": "ubr-plus", "case": "LAN N=5 K=1000 EPD", "metric": "efficiency", "published": 0.49, "simulated": 0.59, "verdict": "pass"},
    ])).to_csv(d / "comparison.csv", index=False)
    text = render(load(tmp_path))
    assert "# Fidelity ledger" in text and "> Simulation Results" in text
    assert "| LAN N=5 K=1000 UBR | efficiency | 0.21 | 0.69 | fail | unknown |" in text
    assert "**Verdict: not checked**" in text  # claims without rows are listed, not hidden


def test_quick_run_never_overwrites_a_full_run(tmp_path):
    import json

    from atmsim.experiments.provenance import refuse_quick_over_full

    (tmp_path / "provenance.json").write_text(json.dumps({"quick": False}))
    with pytest.raises(ValueError, match="full reproduction"):
        refuse_quick_over_full(tmp_path, quick=True)
    refuse_quick_over_full(tmp_path, quick=False)  # a full run may replace a full run


def test_quick_reproduction_provenance(quick_reproduction):
    import json

    p = json.loads((quick_reproduction["out"] / "provenance.json").read_text())
    assert p["quick"] is True and "indicative" in p["verdicts"]
    assert p["atmsim_version"] and p["git_commit"] and "reproduce" in p["command_line"]
    assert len(p["runs"]) == 70 and all(r["seed"] == 1 and r["scenario"]["connection"] for r in p["runs"])
    assert "indicative" in (quick_reproduction["out"] / "report.md").read_text()
