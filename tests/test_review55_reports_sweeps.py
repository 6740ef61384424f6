"""The fifty-fifth session's review (a newcomer's): damaged stores and reproductions given to
``atmsim report``, non-numeric report metrics, sweep-file ranges and seeds, scorecard
options, worker counts, the sweep plot's legend, ``SweepResults.aggregate`` and builder
sizes past the memory limit. Each bad input is one line naming the key, the value and what
is allowed, never an internal error."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

import atmsim
from conftest import REPO, run_cli

TINY = REPO / "examples" / "sweeps" / "tiny.toml"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    """tiny.toml's 8-point store."""
    out = tmp_path_factory.mktemp("r55") / "st"
    atmsim.sweep(TINY, out=out, progress=False, backend="threads", workers=1)
    return out


def one_error_line(argv: list[str], *words: str) -> str:
    rc, out, err = run_cli(argv)
    assert rc == 2, (rc, err)
    assert len(err.strip().splitlines()) == 1 and err.startswith("atmsim: error:"), err
    for w in words:
        assert w in err, (w, err)
    return err


# --------------------------------------------------------------------------- 1. damaged manifests

def _points_with_bad_entry(text: str) -> str:
    m = json.loads(text)
    m["points"].append({"id": "zz"})
    return json.dumps(m)


@pytest.mark.parametrize("damage, words", [
    (lambda t: "[]", ["is damaged", "JSON list"]),
    (lambda t: '{"kind": "atmsim-sweep", "format": 99}', ["is damaged", "format 99", "format 1"]),
    (lambda t: '{"kind": "atmsim-sweep"}', ["is damaged", "'name'"]),
    (lambda t: b"\xff\xfe\x83 not text", ["is damaged", "not UTF-8"]),
    (_points_with_bad_entry, ["is damaged", "points[8]", "'point_id'"]),
])
def test_report_of_a_damaged_manifest_is_one_line(store, tmp_path, damage, words):
    r = tmp_path / "r"
    shutil.copytree(store, r)
    mf = r / "manifest.json"
    new = damage(mf.read_text())
    mf.write_bytes(new if isinstance(new, bytes) else new.encode())
    one_error_line(["report", str(r)], "manifest.json", *words)
    with pytest.raises(atmsim.store.StoreError, match="is damaged"):
        atmsim.load_sweep(r)


# --------------------------------------------------------------------------- 2. damaged reproductions

def _reproduction(d: Path) -> Path:
    d.mkdir()
    pd.DataFrame({"experiment": ["x", "x"], "case": ["a", "b"], "metric": ["efficiency", "fairness"],
                  "published": [0.9, 1.0], "simulated": [0.91, 0.99], "verdict": ["pass", "pass"]}
                 ).to_csv(d / "comparison.csv", index=False)
    pd.DataFrame({"case": ["a", "b"], "efficiency": [0.91, 0.5]}).to_csv(d / "runs.csv", index=False)
    (d / "report.md").write_text("# A reproduction\n\nText.\n")
    return d


@pytest.mark.parametrize("name, content, words", [
    ("comparison.csv", b"", ["empty"]),
    ("comparison.csv", b"\xff\xfe\x83\x00garbage", ["not UTF-8"]),
    ("report.md", b"\xff\xfe\x83\x00garbage", ["not UTF-8"]),
    ("runs.csv", b"\xff\xfe\x83\x00garbage", ["not UTF-8"]),
    ("comparison.csv", b"published,simulated\n1,2\n", ["no column 'metric'"]),
    ("comparison.csv", b"metric,published,simulated,difference\nx,1,2,3\n", ["'difference'"]),
])
def test_report_of_a_damaged_reproduction_is_one_line(tmp_path, name, content, words):
    d = _reproduction(tmp_path / "rp")
    assert run_cli(["report", str(d)])[0] == 0
    (d / name).write_bytes(content)
    one_error_line(["report", str(d)], name, "is damaged", *words)


def test_reproduction_plot_skips_rows_without_a_metric_or_finite_numbers(tmp_path):
    d = _reproduction(tmp_path / "rp")
    (d / "comparison.csv").write_text("metric,published,simulated,verdict\n,1,2,pass\nq,inf,2,pass\nq,1,1.1,pass\n")
    rc, out, err = run_cli(["report", str(d)])
    assert rc == 0 and err == "", err


# --------------------------------------------------------------------------- 3. --metric not numeric

@pytest.mark.parametrize("metric, why", [("point_id", "not a numeric result column"),
                                         ("status", "not a numeric result column"),
                                         ("buffer", "is a parameter"), ("effic", "not a result column")])
def test_report_metric_must_be_a_numeric_result(store, tmp_path, metric, why):
    one_error_line(["report", str(store), "--metric", metric, "--out", str(tmp_path / "r.html")],
                   f"--metric {metric!r}", why, "allowed: ", "efficiency")
    assert not (tmp_path / "r.html").exists()


# --------------------------------------------------------------------------- 10. aggregate

def test_aggregate_names_the_metrics_allowed(store):
    res = atmsim.load_sweep(store)
    for bad in (["effic"], ["status"]):
        with pytest.raises(ValueError, match=rf"metrics: {bad[0]!r} .*; metrics: .*efficiency"):
            res.aggregate(bad)
    with pytest.raises(TypeError, match="give a list"):
        res.aggregate("efficiency")
    with pytest.raises(ValueError, match="by: 'nope' is not a parameter; parameters: buffer, policy"):
        res.aggregate(["efficiency"], by=["nope"])
    with pytest.raises(ValueError, match="metric = 'point_id' is not a numeric"):
        res.plot("point_id")
    assert len(res.aggregate(["efficiency"])) == 4


# --------------------------------------------------------------------------- 4, 5, 6. sweep files

def sweep_file(tmp_path: Path, param: str, seeds: str = "1", args: str = "") -> Path:
    f = tmp_path / "s.toml"
    f.write_text(f'name = "t"\n[base]\ntopology = "n_source"\n[base.args]\nn = 2\nduration = "20 ms"\n{args}\n'
                 f'[sweep]\nseeds = {seeds}\n[sweep.parameters]\n"defaults.switch_buffer" = {param}\n')
    return f


@pytest.mark.parametrize("param, words", [
    ("{ start = nan, stop = 10, step = 3 }", [".start = nan", "finite number"]),
    ("{ start = 1, stop = inf, step = 3 }", [".stop = inf", "finite number"]),
    ("{ start = 1, stop = 10, step = -inf }", [".step = -inf", "finite number"]),
    ("{ from = nan, to = 10, num = 3 }", [".from = nan", "finite number"]),
    ("{ from = 1, to = -inf, num = 3 }", [".to = -inf", "finite number"]),
    ("{ from = -1.7e308, to = 1.7e308, num = 3 }", ["overflow"]),
    ("{ start = 0.0, stop = 1.0, step = 5e-324 }", ["more than 1000000 values"]),
])
def test_non_finite_ranges_are_refused(tmp_path, param, words):
    one_error_line(["sweep", str(sweep_file(tmp_path, param)), "--dry-run"], "defaults.switch_buffer", *words)


@pytest.mark.parametrize("param, key, other", [
    ('{ start = 100, stop = 300, step = 100, scale = "log", unit = "cells" }', "'scale'", "'start'"),
    ("{ start = 1, stop = 10, step = 3, from = 1 }", "'from'", "'start'"),
    ("{ start = 1, stop = 10, step = 3, integer = true }", "'integer'", "'start'"),
    ("{ from = 1, to = 10, num = 3, step = 2 }", "'from'", "'step'"),
])
def test_mixed_range_forms_are_refused(tmp_path, param, key, other):
    one_error_line(["sweep", str(sweep_file(tmp_path, param)), "--dry-run"], "defaults.switch_buffer", key, other,
                   "{ start, stop, step }", "{ from, to, num, scale, integer }")


def test_both_range_forms_still_work(tmp_path):
    for param in ('{ start = 100, stop = 300, step = 100, unit = "cells" }',
                  '{ from = 100, to = 10000, num = 3, scale = "log", unit = "cells" }'):
        rc, out, err = run_cli(["sweep", str(sweep_file(tmp_path, param)), "--dry-run"])
        assert rc == 0 and "3 points; 3 valid" in out, err


@pytest.mark.parametrize("seeds, args, words", [
    ("[18446744073709551616]", "", ["sweep.seeds = [18446744073709551616]", "is not a seed", "9223372036854775807"]),
    ("[-1]", "", ["-1 is not a seed", "0 to 9223372036854775807"]),
    ("2", "seed = 9223372036854775807", ["sweep.seeds = 2", "goes past the largest seed, 9223372036854775807"]),
    ("2", "seed = -1", ["sweep.seeds = 2", "base scenario's seed, -1", "not a seed"]),
    ("100000000000", "", ["sweep.seeds = 100000000000", "count >= 1 and at most 1000000"]),
])
def test_seeds_are_checked_up_front(tmp_path, seeds, args, words):
    one_error_line(["sweep", str(sweep_file(tmp_path, '["200 cells"]', seeds, args)), "--dry-run"], *words)


def test_the_largest_seed_is_taken(tmp_path):
    f = sweep_file(tmp_path, '["200 cells"]', "1", "seed = 9223372036854775807")
    spec = atmsim.sweeps.load_sweep_file(f)
    assert spec.seeds == [2**63 - 1]
    assert [p.seed for p in spec.points()] == [2**63 - 1]


# --------------------------------------------------------------------------- 7. scorecard options

@pytest.mark.parametrize("option, words", [
    ("erica.nope=1", ["--option erica.nope=1", "unknown field `nope`"]),
    ("erica.target_utilization=abc", ['--option erica.target_utilization="abc"', "expected a number"]),
    ("erica.kind=gw", ['--option erica.kind="gw"', "--allocators"]),
])
def test_scorecard_refuses_bad_options_before_running(tmp_path, option, words):
    out = tmp_path / "sc"
    one_error_line(["scorecard", "--option", option, "--allocators", "erica", "--quick", "--out", str(out),
                    "--no-progress"], *words)
    assert not out.exists()  # nothing ran, nothing written


def test_scorecard_says_when_every_run_failed():
    from atmsim.scorecard import Scorecard

    rows = pd.DataFrame({"status": ["n/a", "n/a"]})
    assert Scorecard(rows, [], [], True, 0.0, 1).all_failed
    assert not Scorecard(pd.DataFrame({"status": ["ok", "n/a"]}), [], [], True, 0.0, 1).all_failed


# --------------------------------------------------------------------------- 8. --workers

def test_workers_have_an_upper_bound(tmp_path):
    from atmsim.parallel import max_workers

    n = max_workers()
    assert n == 4 * (os.cpu_count() or 1)
    out = tmp_path / "w"
    for extra in ([], ["--dry-run"]):
        one_error_line(["sweep", str(TINY), "--workers", "100000", "--out", str(out), "--no-progress", *extra],
                       "workers = 100000", f"at most {n}", f"give 1 to {n}")
    assert not out.exists()
    with pytest.raises(atmsim.parallel.BackendError, match=f"workers = {n + 1}: at most {n}"):
        atmsim.sweep(TINY, out=out, workers=n + 1, progress=False)
    atmsim.parallel.check_backend("local", n)  # the bound itself is allowed


# --------------------------------------------------------------------------- 9. the sweep plot's legend

def test_sweep_plot_keeps_its_legend_inside_the_png(store, tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    seen = []
    save = Figure.savefig

    def spy(self, *a, **kw):
        out = save(self, *a, **kw)
        renderer = self.canvas.get_renderer()
        legend = self.axes[0].get_legend()
        seen.append((legend.get_window_extent(renderer), self.bbox, kw.get("bbox_inches")))
        return out

    monkeypatch.setattr(Figure, "savefig", spy)
    atmsim.load_sweep(store).plot("efficiency", x="buffer", by="policy", path=tmp_path / "p.png")
    (box, fig_box, crop), = seen
    assert crop is None  # laid out to fit, not cropped
    assert box.x0 >= 0 and box.x1 <= fig_box.x1 and box.y0 >= 0 and box.y1 <= fig_box.y1, (box, fig_box)


# --------------------------------------------------------------------------- 11. builder sizes

def test_builders_refuse_a_size_past_the_memory_limit(monkeypatch, tmp_path):
    from atmsim.topology import BYTES_PER_ELEMENT, n_source, r1, r2

    monkeypatch.setenv("ATMSIM_MEMORY_LIMIT", "1 MiB")
    largest = 2**20 // (3 * BYTES_PER_ELEMENT)
    assert n_source(largest)["connection"]
    with pytest.raises(atmsim.MemoryLimitError, match=rf"n = {largest + 1}: .* at most {largest}, or set "
                                                       r"ATMSIM_MEMORY_LIMIT"):
        n_source(largest + 1)
    with pytest.raises(atmsim.MemoryLimitError, match=r'^n = 100000000: .*ATMSIM_MEMORY_LIMIT = "1 MiB"'):
        n_source(100_000_000)  # refused before anything is built (else this test would not finish)
    with pytest.raises(atmsim.MemoryLimitError, match="^per_node = 300: "):
        r1(per_node=300)
    with pytest.raises(atmsim.MemoryLimitError, match="^short_nodes = 400: "):
        r1(short_nodes=400)
    with pytest.raises(atmsim.MemoryLimitError, match="^vbr_per_set = 100: "):
        r2(vbr_per_set=100)
    with pytest.raises(ValueError, match="abr_per_set = -1: "):
        r2(abr_per_set=-1)
    f = tmp_path / "big.toml"
    f.write_text('name = "big"\n[base]\ntopology = "n_source"\n[base.args]\nn = 100000000\nduration = "20 ms"\n')
    one_error_line(["sweep", str(f), "--dry-run"], "base.args", "n = 100000000", "memory limit")


def test_scorecard_exits_1_when_every_run_failed(tmp_path, monkeypatch):
    """Runs that all fail for a reason no up-front check sees (here the memory limit) end
    with status 1 and one line saying so, with and without --json."""
    monkeypatch.setenv("ATMSIM_MEMORY_LIMIT", "1 KiB")
    for extra in ([], ["--json"]):
        rc, out, err = run_cli(["scorecard", "--allocators", "erica", "--configs", "one-source", "--quick",
                                "--workers", "1", "--no-progress", "--backend", "threads",
                                "--out", str(tmp_path / f"sc{len(extra)}"), *extra])
        assert rc == 1, (out, err)
        assert "atmsim: every one of the 1 runs failed (the n/a rows say why)" in err.splitlines()
