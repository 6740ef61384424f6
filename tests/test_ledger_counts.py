"""The README's table of reproductions quotes the fidelity ledger's counts; this keeps them equal.

Reads the committed ``docs/fidelity.md`` (its "Counts" table, one line per reproduction: judged,
pass, fail and the failing checks by class) and the README's "What is reproduced" table, whose
status cell for each reproduction starts with "**P of J** judged checks pass (F fail: (b) x,
unknown y)". A count that differs, a reproduction missing from either table, or a Counts table
that does not add up fails the test, and so does an experiment README whose "P of J judged checks
pass" differs: regenerate the ledger
(``python -m atmsim.experiments.ledger RESULTS --out docs/fidelity.md``) and copy its numbers.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CLASSES = ("(a)", "(b)", "(c)", "unknown")
_CLASS_COUNT = r"(?:\([abc]\)|unknown) \d+"
STATUS = re.compile(rf"\*\*(\d+) of (\d+)\*\* judged checks pass \((\d+) fail(?:: ({_CLASS_COUNT}(?:, {_CLASS_COUNT})*))?\)")


def ledger_counts(text: str) -> dict[str, dict[str, int]]:
    """The Counts table of docs/fidelity.md: reproduction -> judged, pass, fail and each class."""
    head = "| reproduction | judged | pass | fail | (a) | (b) | (c) | unknown |"
    lines = text.split("\n")
    start = lines.index(head) + 2
    out = {}
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        out[cells[0]] = dict(zip(("judged", "pass", "fail", *CLASSES), map(int, cells[1:])))
    return out


def readme_counts(text: str) -> dict[str, dict[str, int]]:
    """The README's "What is reproduced" rows: reproduction -> judged, pass, fail and each class."""
    out = {}
    for line in text.split("\n"):
        m = re.match(r"\| `([a-z-]+)` \|", line)
        if not m:
            continue
        s = STATUS.search(line)
        assert s, f"README row for {m.group(1)} does not start its status with '**P of J** judged checks pass (F fail: ...)'"
        by_class = {c: 0 for c in CLASSES}
        for part in filter(None, (p.strip() for p in (s.group(4) or "").split(","))):
            cls, n = part.rsplit(" ", 1)
            assert cls in CLASSES, f"README row for {m.group(1)}: unknown class {cls!r}"
            by_class[cls] = int(n)
        out[m.group(1)] = {"judged": int(s.group(2)), "pass": int(s.group(1)), "fail": int(s.group(3)), **by_class}
    return out


def test_ledger_counts_add_up():
    ledger = ledger_counts((ROOT / "docs" / "fidelity.md").read_text())
    assert len(ledger) == 5
    for rid, c in ledger.items():
        assert c["pass"] + c["fail"] == c["judged"], rid
        assert sum(c[k] for k in CLASSES) == c["fail"], rid


def test_readme_counts_equal_the_ledger():
    ledger = ledger_counts((ROOT / "docs" / "fidelity.md").read_text())
    readme = readme_counts((ROOT / "README.md").read_text())
    assert set(readme) == set(ledger), "the README's table and the ledger list different reproductions"
    for rid in ledger:
        assert readme[rid] == ledger[rid], f"{rid}: README says {readme[rid]}, docs/fidelity.md says {ledger[rid]}"


def test_readme_parser_sees_a_stale_count():
    """The check can fail: a README row one pass short of the ledger is caught."""
    row = "| `x` | s | **105 of 145** judged checks pass (39 fail: (b) 17, unknown 22): ... |"
    assert readme_counts(row)["x"] == {"judged": 145, "pass": 105, "fail": 39, "(a)": 0, "(b)": 17, "(c)": 0, "unknown": 22}
    ledger = ledger_counts("| reproduction | judged | pass | fail | (a) | (b) | (c) | unknown |\n|---|\n"
                           "| x | 145 | 106 | 39 | 0 | 17 | 0 | 22 |\n")
    assert readme_counts(row)["x"] != ledger["x"]


def test_annotate_results_rewrites_only_the_claim_columns(tmp_path):
    """``ledger --annotate``: a class made stale by a claims.py change is refreshed without a run;
    published, simulated and verdict stay as they were, and a second pass changes nothing."""
    import pandas as pd

    from atmsim.experiments.ledger import annotate_results

    d = tmp_path / "worst-case"
    d.mkdir()
    rows = pd.DataFrame([
        {"experiment": "worst-case", "case": "table2-line3-N30", "metric": "vs_12_cell_burst_form", "published": "46080",
         "simulated": "0.1", "verdict": "fail", "seed": "002", "section": "old", "quote": "old", "class": "unknown"},
        {"experiment": "worst-case", "case": "table1-N2", "metric": "max_queue_cells", "published": "1575.0",
         "simulated": "1263.0", "verdict": "pass", "seed": "002", "section": "section 6, Table 1", "quote": "x", "class": ""},
    ])
    rows.to_csv(d / "comparison.csv", index=False)
    assert annotate_results(tmp_path) == {"worst-case": 2}
    after = pd.read_csv(d / "comparison.csv", dtype=str, keep_default_na=False)
    assert after["class"].tolist() == ["(c)", ""]
    assert after[["published", "simulated", "verdict"]].equals(rows[["published", "simulated", "verdict"]])
    assert annotate_results(tmp_path) == {"worst-case": 0}


def test_experiment_readmes_quote_the_ledger():
    """Each experiment README's first "P of J judged checks (rows) pass" equals the ledger."""
    ledger = ledger_counts((ROOT / "docs" / "fidelity.md").read_text())
    for rid, c in ledger.items():
        text = (ROOT / "experiments" / rid / "README.md").read_text()
        m = re.search(r"(\d+) of (\d+) judged (?:checks|rows) pass", text)
        assert m, f"experiments/{rid}/README.md does not say 'P of J judged checks pass'"
        assert (int(m.group(1)), int(m.group(2))) == (c["pass"], c["judged"]), \
            f"experiments/{rid}/README.md says {m.group(0)!r}; docs/fidelity.md: {c['pass']} of {c['judged']}"


def test_every_reproduction_has_a_ledger_section_or_the_ledger_stops(monkeypatch):
    from atmsim.experiments import ledger

    headings = ledger.seed_headings()
    assert [h.split("`atmsim reproduce ")[1].rstrip("`") for h in headings.values()] == ledger.IDS

    class Seed005:
        source = "seed 005 (a paper without a title in the ledger)"

    monkeypatch.setitem(ledger.EXPERIMENTS, "new-one", Seed005)
    monkeypatch.setattr(ledger, "IDS", [*ledger.IDS, "new-one"])
    with pytest.raises(KeyError, match="seed 005, which has no title"):
        ledger.seed_headings()
