"""HTML reports (``atmsim report``) and sweep plots: the page is self-contained (CSS
inline, every plot a PNG data URI, no external reference), holds the tables, marks failed
points and verdicts. Rendering in a browser is checked by hand (docs/reports.md), not here.
"""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pandas as pd
import pytest

import atmsim
from atmsim.plots import choose_axes, numeric_values, plot_sweep
from atmsim.report import markdown, write_report
from conftest import REPO, run_cli

TINY = REPO / "examples" / "sweeps" / "tiny.toml"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def check_self_contained(text: str) -> list[bytes]:
    """No external resource of any kind; returns the embedded PNGs (all valid)."""
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    assert "<style>" in text
    low = text.lower()
    for bad in ("<link", "<script src", "@import", "url(http", "src='http", 'src="http', "src='//", 'src="//'):
        assert bad not in low, bad
    srcs = re.findall(r"<img[^>]*\ssrc=['\"]([^'\"]+)['\"]", text)
    assert all(s.startswith("data:image/png;base64,") for s in srcs), [s[:40] for s in srcs]
    pngs = [base64.b64decode(s.split(",", 1)[1]) for s in srcs]
    assert all(p.startswith(PNG_MAGIC) and len(p) > 1000 for p in pngs)
    return pngs


@pytest.fixture(scope="module")
def failing_sweep(tmp_path_factory):
    """tiny.toml plus a third, invalid buffer: 12 points, 4 of them failed."""
    d = tmp_path_factory.mktemp("rep")
    text = TINY.read_text().replace('{ start = 200, stop = 400, step = 200, unit = "cells", name = "buffer" }',
                                    '{ values = ["200 cells", "400 cells", "-1 cells"], name = "buffer" }')
    assert "-1 cells" in text
    f = d / "s.toml"
    f.write_text(text)
    return atmsim.sweep(f, out=d / "store", progress=False, backend="threads")


def test_sweep_report_is_self_contained_with_plots_and_tables(failing_sweep):
    res = failing_sweep
    assert len(res.failed) == 4 and len(res.ok) == 8
    rc, out, err = run_cli(["report", str(res.root)])
    assert rc == 0, err
    page = res.root / "report.html"
    assert f"wrote {page}" in out
    text = page.read_text()
    pngs = check_self_contained(text)
    assert len(pngs) == 4  # efficiency, fairness, max queue, cell loss ratio
    assert "Sweep tiny" in text
    assert text.count("<table>") >= 4  # parameters, failed points, means over seeds, every point
    assert "Failed points (4)" in text and "-1 cells" in text and "invalid scenario" in text
    assert "class=\"error\"" in text  # failed rows highlighted
    assert "tail drop" in text and "EPD" in text
    assert "Results, averaged over seeds" in text


def test_sweep_report_options(failing_sweep, tmp_path):
    out = write_report(failing_sweep.root, out=tmp_path / "r.html", metrics=["efficiency"], x="policy", by="buffer")
    text = out.read_text()
    assert len(check_self_contained(text)) == 1
    assert "x: policy; one line per buffer" in text
    rc, _, err = run_cli(["report", str(failing_sweep.root), "--metric", "goodness", "--out", str(tmp_path / "x.html")])
    assert rc == 2 and "goodness" in err and "efficiency" in err and len(err.strip().splitlines()) == 1
    rc, _, err = run_cli(["report", str(failing_sweep.root), "--x", "nothing", "--out", str(tmp_path / "x.html")])
    assert rc == 2 and "nothing" in err and "buffer" in err


def test_report_out_must_be_an_html_file_name(failing_sweep, tmp_path, monkeypatch):
    """`report --out DIR` wrote '.DIR.tmp' into the current directory, left it there and named it
    in the error; `--out rep.pdf` wrote HTML under a .pdf name. Both are refused before the page
    is made, naming the --out value; nothing is left behind."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d").mkdir()
    (tmp_path / "f").write_text("x")
    for out, words in (("d", ["--out 'd' is a directory", "report.html"]),
                       ("rep.pdf", ["--out 'rep.pdf'", "HTML", ".html", "'.pdf'"]),
                       ("f/r.html", ["--out 'f/r.html'", "'f' is not a directory"])):
        rc, stdout, err = run_cli(["report", str(failing_sweep.root), "--out", out])
        assert rc == 2 and len(err.strip().splitlines()) == 1 and err.startswith("atmsim: error:"), err
        for w in words:
            assert w in err, (w, err)
        assert ".tmp" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d", "f"] and not any((tmp_path / "d").iterdir())
    with pytest.raises(atmsim.report.ReportError, match="out 'rep.pdf'"):
        write_report(failing_sweep.root, out="rep.pdf")
    if Path("/proc/self").is_dir():  # cannot be written: named by --out, not by a temporary file
        rc, _, err = run_cli(["report", str(failing_sweep.root), "--out", "/proc/atmsim-r.html"])
        assert rc in (1, 2) and "'/proc/atmsim-r.html'" in err and ".tmp" not in err, err


def test_plot_helpers(failing_sweep, tmp_path):
    res = failing_sweep
    assert choose_axes(res) == ("buffer", "policy", [])
    assert choose_axes(res, x="policy") == ("policy", "buffer", [])
    assert numeric_values(["500 cells", "1000 cells"]) == ([500.0, 1000.0], "cells")
    assert numeric_values([1, 2.5]) == ([1.0, 2.5], "")
    assert numeric_values(["tail drop", "EPD"]) == (None, "")
    assert numeric_values(["1 ms", "2 s"]) == (None, "")
    p = res.plot("fairness", path=tmp_path / "f.png")
    assert Path(p).read_bytes().startswith(PNG_MAGIC)
    # The format the extension names (PNG data was written under .pdf and .svg names), or a refusal.
    assert Path(res.plot("fairness", path=tmp_path / "f.pdf")).read_bytes().startswith(b"%PDF-")
    assert b"<svg" in Path(res.plot("fairness", path=str(tmp_path / "f.svg"))).read_bytes()[:1000]
    with pytest.raises(ValueError, match=r"'\.jpg'"):
        res.plot("fairness", path=tmp_path / "f.jpg")
    assert not (tmp_path / "f.jpg").exists()
    ax = plot_sweep(res, "efficiency", x="policy")
    assert ax.get_xlabel() == "policy" and ax.get_ylabel() == "efficiency"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["tail drop", "EPD"]
    with pytest.raises(ValueError, match="metrics: .*efficiency"):
        res.plot("goodness")
    agg = res.aggregate(["efficiency"])
    assert list(agg.columns) == ["buffer", "policy", "seeds", "efficiency_mean", "efficiency_std"]
    assert len(agg) == 4 and (agg["seeds"] == 2).all()


def test_reproduction_report(quick_reproduction):
    out = quick_reproduction["out"]
    assert quick_reproduction["rc"] == 0
    rc, stdout, err = run_cli(["report", str(out)])
    assert rc == 0, err
    text = (out / "report.html").read_text()
    pngs = check_self_contained(text)
    assert len(pngs) >= 2  # published vs simulated, and the reproduction's own figure
    comp = pd.read_csv(out / "comparison.csv")
    assert "Published vs simulated" in text and "Comparison table" in text
    assert f"<td>{comp['case'].iloc[0]}</td>" in text
    assert "relative" in text and "difference" in text


def test_reproduction_report_highlights_verdicts(tmp_path):
    import matplotlib.pyplot as plt

    d = tmp_path / "rep"
    (d / "figures").mkdir(parents=True)
    pd.DataFrame({"experiment": ["x"] * 3, "case": ["a", "b", "c"], "metric": ["efficiency", "efficiency", "queue"],
                  "published": [0.9, 0.8, 100.0], "simulated": [0.91, 0.5, 120.0],
                  "verdict": ["pass", "FAIL", "info"]}).to_csv(d / "comparison.csv", index=False)
    pd.DataFrame({"case": ["a", "b", "c"], "efficiency": [0.91, 0.5, 0.7]}).to_csv(d / "runs.csv", index=False)
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    fig.savefig(d / "figures" / "one.png")
    fig.savefig(d / "other.png")
    plt.close(fig)
    (d / "report.md").write_text("# My reproduction\n\nSome **bold** text with `code` and a "
                                 "[link](https://example.org/paper.pdf).\n\n"
                                 "| check | result |\n|---|---|\n| a | pass |\n| b | FAIL |\n\n"
                                 "![the figure](figures/one.png)\n\n- item one\n- item two\n")
    out = write_report(d)
    text = out.read_text()
    pngs = check_self_contained(text)
    assert len(pngs) == 3  # published-vs-simulated, one.png in place, other.png in the gallery
    assert "<h1>My reproduction</h1>" in text
    assert "1 of 2" in text  # checks pass (info rows are not judged)
    assert "<td class=\"pass\">pass</td>" in text and "<td class=\"fail\">FAIL</td>" in text
    assert "<td class=\"info\">info</td>" in text
    assert "https://example.org" in text and "href='https" not in text  # shown, never fetched
    assert "<b>bold</b>" in text and "<code>code</code>" in text and "<li>item two</li>" in text
    assert "+1.1 %" in text and "-37.5 %" in text  # relative differences


def test_reproduction_report_with_claims_written_as_text(tmp_path):
    pd.DataFrame({"experiment": ["e1", "e2"], "case": ["fig 5", "fig 6"], "metric": ["util", "queue"],
                  "published": ["0.95 +/- 0.01", "small: < 100"], "simulated": [0.95, 120.0],
                  "verdict": ["pass", "FAIL"]}).to_csv(tmp_path / "comparison.csv", index=False)
    text = write_report(tmp_path).read_text()
    check_self_contained(text)
    assert "published claims" in text and "Reproduction of 2 experiments" in text
    assert "<th>difference</th>" not in text  # nothing to subtract from a claim
    assert "Failing checks (1)" in text and "small: &lt; 100" in text


def test_markdown_escapes_html():
    html = markdown("a <script>alert(1)</script> & b", {})
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_report_of_a_wrong_directory_is_a_user_error(tmp_path):
    for target in (tmp_path, tmp_path / "missing"):
        rc, out, err = run_cli(["report", str(target)])
        assert rc == 2 and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1 and err.startswith("atmsim: error:")
