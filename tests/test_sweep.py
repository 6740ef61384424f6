"""Sweeps: sweep files (parsing, expansion, ranges, zipped groups, seeds, point ids), their
errors (one message naming the key, the value and what is allowed), running on every
backend with identical results, resume after an interruption, failed points, the CLI.

Every grid here is tiny (two sources, 0.1 s simulated): the whole file runs in seconds.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import atmsim
from atmsim.parallel import Outcome, _run_processes, run_many
from atmsim.store import WALL_COLUMNS
from atmsim.sweeps import SweepError, load_sweep_file, point_id
from conftest import REPO, VENV_BIN, run_cli

TINY = REPO / "examples" / "sweeps" / "tiny.toml"
EXAMPLES = REPO / "examples" / "sweeps"


def tiny(**over) -> dict:
    """examples/sweeps/tiny.toml as a dict, with changes."""
    d = {
        "name": "t",
        "base": {"topology": "n_source", "args": {"n": 2, "link_delay": "5 us", "duration": "0.1 s",
                                                  "sample_interval": "5 ms", "policy": {"kind": "tail_drop"}}},
        "sweep": {"seeds": 2, "parameters": {"defaults.switch_buffer": ["200 cells", "400 cells"]}},
    }
    for k, v in over.items():
        if k == "parameters":
            d["sweep"]["parameters"] = v
        elif k in ("seeds", "zip"):
            d["sweep"][k] = v
        else:
            d[k] = v
    return d


def crash_on(payload: str) -> tuple[str, str, str]:
    """A task function for the local backend's worker processes: dies on "crash"."""
    if payload == "crash":
        time.sleep(0.1)
        os._exit(3)
    return ("ok", payload, "")


def stable(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(columns=[c for c in WALL_COLUMNS if c in df.columns])


# --------------------------------------------------------------------------- the sweep file


def test_example_sweep_files_expand_as_documented():
    spec = load_sweep_file(EXAMPLES / "ubr_buffers.toml")
    assert len(spec) == 100 and spec.combinations == 20 and spec.seeds == [1, 2, 3, 4, 5]
    buf = spec.parameters[0]
    assert buf.name == "buffer" and buf.values == ["500 cells", "1000 cells", "2000 cells", "4000 cells", "8000 cells"]
    assert buf.labels == [500, 1000, 2000, 4000, 8000] and buf.unit == "cells"
    assert spec.parameters[1].labels == ["tail drop", "EPD", "SD", "FBA"]
    assert "100 points = 20 parameter combinations x 5 seeds" in spec.describe()
    spec = load_sweep_file(EXAMPLES / "small_file_base.toml")
    assert len(spec) == 12 and spec.seeds == [7, 8]
    pts = spec.points()
    assert pts[0].scenario["measurement"]["duration"] == "0.3 s"  # [base.set]
    assert pts[0].scenario["link"][3]["length"] == "10 km"
    # the zipped group moves together
    assert {(p.params["defaults.tcp.mss"], p.params["defaults.tcp.window"]) for p in pts} == {
        ("512 B", "64 KB"), ("9140 B", "600000 B")}
    assert len(load_sweep_file(TINY)) == 8


def test_grid_order_last_parameter_fastest_seeds_innermost():
    spec = load_sweep_file(tiny(parameters={"defaults.switch_buffer": ["200 cells", "400 cells"],
                                            "args.n": [1, 2, 3]}))
    pts = spec.points()
    assert [(p.params["defaults.switch_buffer"], p.params["args.n"], p.seed) for p in pts[:4]] == [
        ("200 cells", 1, 1), ("200 cells", 1, 2), ("200 cells", 2, 1), ("200 cells", 2, 2)]
    assert len(pts) == 12 and [p.index for p in pts] == list(range(12))
    assert all(len(p.scenario["connection"]) == p.params["args.n"] for p in pts)  # builder argument applied
    assert all(p.scenario["seed"] == p.seed for p in pts)


def test_point_ids_are_content_hashes_stable_under_reordering():
    a = load_sweep_file(tiny(parameters={"defaults.switch_buffer": ["200 cells", "400 cells"], "args.n": [1, 2]}))
    b = load_sweep_file(tiny(parameters={"args.n": [2, 1], "defaults.switch_buffer": ["400 cells", "200 cells"]}))
    ida = {p.point_id: (p.params["defaults.switch_buffer"], p.params["args.n"], p.seed) for p in a.points()}
    idb = {p.point_id: (p.params["defaults.switch_buffer"], p.params["args.n"], p.seed) for p in b.points()}
    assert ida == idb
    p = a.points()[0]
    assert p.point_id == point_id(p.scenario) and len(p.point_id) == 16
    assert load_sweep_file(tiny()).points()[0].point_id == load_sweep_file(tiny()).points()[0].point_id


@pytest.mark.parametrize("spec, values, labels", [
    ({"start": 1, "stop": 10, "step": 3}, [1, 4, 7, 10], [1, 4, 7, 10]),
    ({"start": 1, "stop": 9, "step": 3}, [1, 4, 7], [1, 4, 7]),
    ({"start": 0.1, "stop": 0.3, "step": 0.1, "unit": "s"}, ["0.1 s", "0.2 s", "0.3 s"], [0.1, 0.2, 0.3]),
    ({"start": 10, "stop": 0, "step": -5}, [10, 5, 0], [10, 5, 0]),
    ({"from": 1, "to": 2, "num": 3}, [1.0, 1.5, 2.0], [1.0, 1.5, 2.0]),
    ({"from": 100, "to": 10000, "num": 3, "scale": "log", "unit": "cells"}, ["100 cells", "1000 cells", "10000 cells"],
     [100, 1000, 10000]),
    ({"from": 2, "to": 32, "num": 5, "scale": "log", "integer": True}, [2, 4, 8, 16, 32], [2, 4, 8, 16, 32]),
    ({"from": 5, "to": 5, "num": 1}, [5], [5]),
])
def test_ranges(spec, values, labels):
    s = load_sweep_file(tiny(parameters={"measurement.warmup": spec}))
    p = s.parameters[0]
    assert p.values == values and p.labels == labels


def test_values_labels_name_and_nested_tables():
    s = load_sweep_file(tiny(parameters={
        "defaults": {"policy": {"values": [{"kind": "tail_drop"}, {"kind": "epd", "threshold": "80 %"}],
                                "labels": ["tail drop", "EPD"], "name": "policy"}},  # unquoted dotted key
        "measurement.sample_interval": ["5 ms", "10 ms"],
    }))
    assert [p.name for p in s.parameters] == ["policy", "measurement.sample_interval"]
    pts = s.points()
    assert pts[-1].scenario["defaults"]["policy"] == {"kind": "epd", "threshold": "80 %"}
    assert pts[-1].params == {"policy": "EPD", "measurement.sample_interval": "10 ms"}
    # dict values without labels get a compact TOML label
    s = load_sweep_file(tiny(parameters={"defaults.policy": [{"kind": "tail_drop"}, {"kind": "ppd"}]}))
    assert s.parameters[0].labels == ['{ kind = "tail_drop" }', '{ kind = "ppd" }']


def test_zip_and_seed_lists():
    s = load_sweep_file(tiny(parameters={}, seeds=[3, 9, 4],
                             zip=[{"defaults.tcp.mss": ["512 B", "9140 B"], "defaults.tcp.window": ["64 KB", "600000 B"]}]))
    assert len(s) == 6 and s.seeds == [3, 9, 4]
    assert [p.group for p in s.parameters] == [0, 0]
    sc = s.points()[-1].scenario
    assert sc["defaults"]["tcp"] == {"mss": "9140 B", "window": "600000 B"} and sc["seed"] == 4


def test_seed_count_starts_at_the_base_seed(tmp_path):
    base = tmp_path / "b.toml"
    base.write_text((REPO / "examples" / "ubr_small.toml").read_text())  # seed = 7
    f = tmp_path / "s.toml"
    f.write_text('[base]\nscenario = "b.toml"\n[sweep]\nseeds = 3\n')
    s = load_sweep_file(f)
    assert s.seeds == [7, 8, 9] and s.name == "s" and len(s.axes) == 0 and len(s) == 3


def test_a_json_base_scenario_is_read_as_its_toml(tmp_path):
    """``base.scenario`` may name a scenario written as JSON (as ``atmsim run`` takes)."""
    import json

    import atmsim

    toml_base = tmp_path / "b.toml"
    toml_base.write_text((REPO / "examples" / "ubr_small.toml").read_text())
    (tmp_path / "b.json").write_text(json.dumps(atmsim.load_scenario(toml_base)))
    for name in ("b.toml", "b.json"):
        (tmp_path / "s.toml").write_text(f'[base]\nscenario = "{name}"\n[sweep]\nseeds = 2\n')
        s = load_sweep_file(tmp_path / "s.toml")
        assert s.seeds == [7, 8]
        summary = atmsim.run(s.points()[0].scenario).summary
        got = [p.scenario["seed"] for p in s.points()], [summary[k] for k in ("cell_hops", "efficiency", "cells_dropped")]
        if name == "b.toml":
            want = got
        else:
            assert got == want
    (tmp_path / "b.json").write_text('{"name": ')
    with pytest.raises(SweepError, match=r"base.scenario = .*b.json.*invalid JSON \(line 1"):
        load_sweep_file(tmp_path / "s.toml")


# Broken sweep files: (id, sweep dict changes, words the one-line error must hold).
BAD = [
    ("unknown-path", dict(parameters={"defaults.switch_bufer": ["1 cells"]}),
     ["defaults.switch_bufer", "no key 'switch_bufer'", "did you mean 'switch_buffer'", "allowed:"]),
    ("unknown-top", dict(parameters={"links.0.delay": ["1 ms"]}), ["links.0.delay", "did you mean 'link'"]),
    ("index", dict(parameters={"link.9.delay": ["1 ms"]}), ["link.9.delay", "indices 0-4"]),
    ("list-no-index", dict(parameters={"node.name": ["x"]}), ["node.name", "give an index"]),
    ("into-value", dict(parameters={"measurement.duration.x": ["1"]}), ["measurement.duration", "single value"]),
    ("step-zero", dict(parameters={"measurement.warmup": {"start": 1, "stop": 5, "step": 0}}), ["step = 0", "must not be zero"]),
    ("step-sign", dict(parameters={"measurement.warmup": {"start": 5, "stop": 1, "step": 1}}), ["never reaches", "negative step"]),
    ("range-missing", dict(parameters={"measurement.warmup": {"start": 5, "stop": 1}}), ["start, stop and step", "step"]),
    ("num-zero", dict(parameters={"measurement.warmup": {"from": 1, "to": 2, "num": 0}}), ["num = 0", "from 1 to"]),
    ("log-zero", dict(parameters={"measurement.warmup": {"from": 0, "to": 2, "num": 3, "scale": "log"}}), ["log", "> 0"]),
    ("scale", dict(parameters={"measurement.warmup": {"from": 1, "to": 2, "num": 3, "scale": "ln"}}), ["scale = \"ln\"", "log"]),
    ("not-a-number", dict(parameters={"measurement.warmup": {"start": "1", "stop": 2, "step": 1}}), ["start = \"1\"", "number"]),
    ("int-repeats", dict(parameters={"args.n": {"from": 1, "to": 2, "num": 5, "integer": True}}), ["repeat", "num"]),
    ("duplicate", dict(parameters={"defaults.switch_buffer": ["1 cells", "1 cells"]}), ["given twice"]),
    ("empty", dict(parameters={"defaults.switch_buffer": []}), ["empty"]),
    ("scalar", dict(parameters={"defaults.switch_buffer": "100 cells"}), ["give a list of values"]),
    ("spec-key", dict(parameters={"defaults.switch_buffer": {"valus": ["1 cells"]}}), ["valus", "did you mean 'values'"]),
    ("labels-len", dict(parameters={"defaults.switch_buffer": {"values": ["1 cells"], "labels": ["a", "b"]}}), ["labels", "as long as values"]),
    ("seeds-zero", dict(seeds=0), ["sweep.seeds = 0", ">= 1"]),
    ("seeds-neg", dict(seeds=[1, -1]), ["sweep.seeds", "-1"]),
    ("seed-param", dict(parameters={"seed": [1, 2]}), ["seed", "[sweep] seeds"]),
    ("arg-unknown", dict(parameters={"args.nn": [1]}), ["args.nn", "did you mean 'n'"]),
    ("zip-len", dict(zip=[{"defaults.tcp.mss": ["512 B", "9140 B"], "defaults.tcp.window": ["64 KB"]}]),
     ["sweep.zip[0]", "defaults.tcp.mss: 2", "defaults.tcp.window: 1"]),
    ("twice", dict(zip=[{"defaults.switch_buffer": ["1 cells", "2 cells"]}]), ["varied twice"]),
    ("reserved", dict(parameters={"defaults.switch_buffer": {"values": ["1 cells"], "name": "efficiency"}}), ["'efficiency'", "taken"]),
    ("top-key", dict(sweeps={}), ["unknown key 'sweeps'", "did you mean 'sweep'"]),
    ("builder", dict(base={"topology": "nsource"}), ["base.topology = \"nsource\"", "did you mean 'n_source'", "available"]),
    ("no-base", dict(base={}), ["[base]", "scenario = ", "topology = "]),
    ("both-bases", dict(base={"topology": "n_source", "scenario": "x.toml"}), ["not both"]),
    ("base-file", dict(base={"scenario": "missing.toml"}), ["missing.toml", "cannot read"]),
    ("base-arg", dict(base={"topology": "n_source", "args": {"n": 2, "delay": "1 ms"}}), ["base.args.delay", "allowed: n, link_delay"]),
    ("set-path", dict(base={"topology": "n_source", "args": {"n": 2}, "set": {"measurement.duraton": "1 s"}}),
     ["base.set", "duraton", "did you mean 'duration'"]),
]


@pytest.mark.parametrize("changes, words", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_sweeps_raise_one_clear_error(changes, words):
    with pytest.raises(SweepError) as e:
        load_sweep_file(tiny(**changes))
    msg = str(e.value)
    assert "\n" not in msg
    for w in words:
        assert w in msg, (w, msg)


def test_args_paths_need_a_builder_base(tmp_path):
    (tmp_path / "b.toml").write_text((REPO / "examples" / "ubr_small.toml").read_text())
    with pytest.raises(SweepError, match=r"args\.n.*scenario file"):
        load_sweep_file({"base": {"scenario": "b.toml"}, "sweep": {"parameters": {"args.n": [1, 2]}}}, base_dir=tmp_path)


def test_malformed_toml_names_the_file_and_line(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('[base]\ntopology = "n_source"\n[sweep\nseeds = 2\n')
    with pytest.raises(SweepError, match=r"s\.toml.*not valid TOML.*line 3"):
        load_sweep_file(f)


def test_cli_bad_sweep_is_one_line_exit_2(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('[base]\ntopology = "n_source"\n[base.args]\nn = 2\n'
                 '[sweep.parameters]\n"defaults.switch_bufer" = ["1 cells"]\n')
    for argv in (["sweep", str(f)], ["sweep", str(f), "--dry-run"], ["sweep", str(tmp_path / "none.toml")],
                 ["sweep", str(TINY), "--workers", "0"], ["sweep", str(TINY), "--workers", "0", "--dry-run"],
                 ["sweep", str(TINY), "--address", "auto"],
                 ["report", str(tmp_path)], ["reproduce", "ubr-plus", "--address", "auto"],
                 ["sweep", str(TINY), "--backend", "ray", "--address", "127.0.0.1:1", "--out", str(tmp_path / "r")],
                 ["sweep", str(TINY), "--backend", "ray", "--address", "127.0.0.1:x", "--out", str(tmp_path / "r")]):
        rc, out, err = run_cli(argv)
        assert rc == 2, (argv, rc, out, err)
        assert "Traceback" not in out + err
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("atmsim: error:"), (argv, err)
    rc, _, err = run_cli(["sweep", str(f)])
    assert "defaults.switch_bufer" in err and "switch_buffer" in err
    # A sweep file given to `run` or `validate` says so, and which command takes it.
    for cmd, says in (("run", f"run it with 'atmsim sweep {TINY}'"),
                      ("validate", f"check it with 'atmsim sweep {TINY} --dry-run'")):
        rc, out, err = run_cli([cmd, str(TINY)])
        assert rc == 2 and f"{TINY} is a sweep file" in err and says in err, (cmd, err)


def test_help_teaches_with_examples():
    rc, out, _ = run_cli(["sweep", "--help"])
    assert rc == 0
    for w in ("[sweep.parameters]", "[[sweep.zip]]", "--backend ray", "--address", "--dry-run", "--rerun-failed",
              "atmsim.sweep(", "examples/sweeps/ubr_buffers.toml"):
        assert w in out, w
    rc, out, _ = run_cli(["report", "--help"])
    assert rc == 0 and "self-contained" in out and "--by" in out
    rc, out, _ = run_cli(["--help"])
    assert "atmsim sweep" in out and "atmsim report" in out and "--backend ray" in out


def test_dry_run_counts_and_checks_without_running(tmp_path):
    d = tiny(parameters={"defaults.switch_buffer": ["200 cells", "-3 cells"]})
    f = tmp_path / "s.toml"
    f.write_text(f'''name = "t"
[base]
topology = "n_source"
[base.args]
n = 2
duration = "0.1 s"
[sweep]
seeds = 2
[sweep.parameters]
"defaults.switch_buffer" = {json.dumps(d["sweep"]["parameters"]["defaults.switch_buffer"])}
''')
    rc, out, err = run_cli(["sweep", str(f), "--dry-run", "--out", str(tmp_path / "o")])
    assert rc == 0, err
    assert "4 points = 2 parameter combinations x 2 seeds" in out
    assert "2 valid, 2 invalid" in out and "-3 cells" in out
    assert not (tmp_path / "o").exists()


# --------------------------------------------------------------------------- running


@pytest.fixture(scope="module")
def tiny_local(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny") / "store"
    t0 = time.perf_counter()
    res = atmsim.sweep(TINY, out=out, progress=False)
    return res, time.perf_counter() - t0


def test_sweep_runs_and_returns_a_dataframe(tiny_local):
    res, _ = tiny_local
    df = res.df
    assert len(df) == 8 and (df["status"] == "ok").all()
    assert list(df.columns[:4]) == ["point_id", "seed", "buffer", "policy"]
    for c in ("efficiency", "fairness", "max_switch_queue_cells", "cells_dropped", "atmsim_version", "error"):
        assert c in df.columns
    assert df["atmsim_version"].unique().tolist() == [atmsim.__version__]
    assert sorted(df["buffer"].unique()) == [200, 400]
    assert set(df["seed"]) == {1, 2}
    # the buffer varies what it should: a bigger buffer, a bigger queue
    q = df.groupby("buffer")["max_switch_queue_cells"].max()
    assert q[200] <= 200 and q[400] <= 400 and q[400] > q[200]
    assert res.missing == [] and res.failed.empty and res.stale == []


def test_stored_point_reruns_to_the_same_result(tiny_local):
    res, _ = tiny_local
    row = res.df.iloc[5]
    sc = res.scenario(row["point_id"])
    assert sc["seed"] == row["seed"]
    r = atmsim.run(sc)
    for k in ("efficiency", "fairness", "cells_dropped", "max_switch_queue_cells", "cells_sent"):
        assert r.summary[k] == row[k], k
    pd.testing.assert_frame_equal(r.port_series, res.series(row["point_id"], "port"))
    pd.testing.assert_frame_equal(r.connection_series, res.series(row["point_id"], "connection"))
    pd.testing.assert_frame_equal(r.connections, res.connections(row["point_id"]))
    pd.testing.assert_frame_equal(r.ports, res.ports(row["point_id"]))
    # scenario.toml in the store runs too
    r2 = atmsim.run(res.root / "points" / row["point_id"] / "scenario.toml")
    assert r2.summary["cells_dropped"] == row["cells_dropped"]


def test_rerun_of_a_finished_sweep_runs_nothing(tiny_local, monkeypatch):
    res, _ = tiny_local
    import atmsim.parallel as par

    calls = []
    monkeypatch.setattr(par, "_run_processes", lambda *a, **k: calls.append(a))
    lines = []
    t0 = time.perf_counter()
    again = atmsim.sweep(TINY, out=res.root, log=lines.append)
    assert time.perf_counter() - t0 < 2.0
    assert calls == []
    assert any("all 8 points already done" in ln for ln in lines), lines
    pd.testing.assert_frame_equal(again.df, res.df)


def test_all_backends_give_identical_results(tiny_local, tmp_path):
    """The same sweep on local processes, threads and a local Ray instance: bit-identical
    results (everything but wall-clock time), series included."""
    local, _ = tiny_local
    for backend in ("threads", "ray"):
        res = atmsim.sweep(TINY, out=tmp_path / backend, backend=backend, workers=2, progress=False)
        pd.testing.assert_frame_equal(stable(local.df), stable(res.df))
        for pid in local.df["point_id"]:
            for kind in ("port", "connection"):
                pd.testing.assert_frame_equal(local.series(pid, kind), res.series(pid, kind))
        assert res.manifest["points"] == local.manifest["points"]


def test_resume_runs_only_the_missing_points(tiny_local, tmp_path):
    import shutil

    res, _ = tiny_local
    store = tmp_path / "store"
    shutil.copytree(res.root, store)
    gone = list(res.df["point_id"][[1, 4, 6]])
    for pid in gone:
        shutil.rmtree(store / "points" / pid)
    (store / "summary.parquet").unlink()
    # a half-written point from a killed run is cleaned up, never counted
    (store / "points" / f".tmp-{gone[0]}-deadbeef").mkdir()
    part = atmsim.load_sweep(store)
    assert sorted(part.missing) == sorted(gone) and len(part.df) == 5
    lines = []
    again = atmsim.sweep(TINY, out=store, progress=False, log=lines.append)
    assert any(ln.startswith("3 to run (5 already done)") for ln in lines), lines
    assert not list((store / "points").glob(".tmp-*"))
    pd.testing.assert_frame_equal(stable(again.df), stable(res.df))
    # the five kept points were not rewritten
    for pid in set(res.df["point_id"]) - set(gone):
        assert (store / "points" / pid / "point.json").read_text() == (res.root / "points" / pid / "point.json").read_text()


def test_failed_points_are_recorded_and_the_others_kept(tmp_path):
    d = tiny(parameters={"defaults.switch_buffer": ["200 cells", "-3 cells"], "args.n": [2, 0]}, seeds=1)
    res = atmsim.sweep(d, out=tmp_path / "s", progress=False)
    df = res.df
    assert len(df) == 4
    ok = df[df["status"] == "ok"]
    assert len(ok) == 1 and ok.iloc[0]["defaults.switch_buffer"] == "200 cells"
    bad = res.failed
    assert len(bad) == 3
    by = {(r["defaults.switch_buffer"], r["args.n"]): r for _, r in bad.iterrows()}
    assert by[("-3 cells", 2)]["error_type"] == "ScenarioError"
    assert "defaults.switch_buffer" in by[("-3 cells", 2)]["error"] and "-3 cells" in by[("-3 cells", 2)]["error"]
    assert by[("200 cells", 0)]["error_type"] == "BuildError" and "n = 0" in by[("200 cells", 0)]["error"]
    # each failure is in the store, with its scenario where there is one
    meta = res.point(by[("-3 cells", 2)]["point_id"])
    assert meta["status"] == "error" and meta["scenario"]["defaults"]["switch_buffer"] == "-3 cells"
    with pytest.raises(KeyError, match="failed"):
        res.series(by[("-3 cells", 2)]["point_id"])
    # a re-run does not retry failures unless asked
    lines = []
    atmsim.sweep(d, out=tmp_path / "s", progress=False, log=lines.append)
    assert any("all 4 points already done" in ln for ln in lines)
    lines = []
    again = atmsim.sweep(d, out=tmp_path / "s", progress=False, rerun_failed=True, log=lines.append)
    assert any(ln.startswith("3 to run (1 already done)") for ln in lines), lines
    assert len(again.failed) == 3


def test_cli_sweep_reports_failures_and_exits_1(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('name = "t"\n[base]\ntopology = "n_source"\n[base.args]\nn = 2\nduration = "0.1 s"\n'
                 'link_delay = "5 us"\n[sweep.parameters]\n"defaults.switch_buffer" = ["300 cells", "-3 cells"]\n')
    rc, out, err = run_cli(["sweep", str(f), "--out", str(tmp_path / "o"), "--no-progress", "--report"])
    assert rc == 1, (out, err)
    assert "Traceback" not in out + err
    assert "failed points (1" in out and "-3 cells" in out
    assert "t: 2 points: 1 ok, 1 failed" in err
    assert "means over seeds" in out
    assert (tmp_path / "o" / "report.html").is_file()
    s = pd.read_csv(tmp_path / "o" / "summary.csv")
    assert sorted(s["status"]) == ["error", "ok"]


def test_changed_sweep_runs_new_points_and_ignores_stale_ones(tmp_path):
    out = tmp_path / "s"
    atmsim.sweep(tiny(seeds=1), out=out, progress=False)
    lines = []
    res = atmsim.sweep(tiny(seeds=1, parameters={"defaults.switch_buffer": ["400 cells", "600 cells"]}), out=out,
                       progress=False, log=lines.append)
    assert any(ln.startswith("1 to run (1 already done)") for ln in lines), lines
    assert any("1 point in" in ln and "not in this sweep any more" in ln for ln in lines), lines
    assert list(res.df["defaults.switch_buffer"]) == ["400 cells", "600 cells"]
    assert len(res.stale) == 1 and len(res.stale_df) == 1


def test_store_refuses_other_directories_and_concurrent_writers(tmp_path):
    from atmsim.store import SweepStore

    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "notes.txt").write_text("mine")
    with pytest.raises(atmsim.StoreError, match="not an atmsim sweep store"):
        atmsim.sweep(tiny(), out=tmp_path / "x", progress=False)
    spec = load_sweep_file(tiny())
    with SweepStore.create(tmp_path / "y", spec, spec.points()):
        with pytest.raises(atmsim.StoreError, match="another atmsim sweep is writing"):
            SweepStore.create(tmp_path / "y", spec, spec.points())
    SweepStore.create(tmp_path / "y", spec, spec.points()).close()  # free again


# --------------------------------------------------------------------------- the local backend


def test_a_crashing_worker_fails_only_its_point():
    got: dict[str, Outcome] = {}
    tasks = [(f"k{i}", "crash" if i == 2 else f"p{i}") for i in range(6)]
    _run_processes(tasks, 2, got.__setitem__, fn="test_sweep:crash_on")
    assert sorted(got) == [f"k{i}" for i in range(6)]
    assert [k for k, o in got.items() if not o.ok] == ["k2"]
    assert got["k2"].error_type == "WorkerCrashed" and "status 3" in got["k2"].error
    assert got["k5"].text == "p5"


def test_run_many_on_each_backend_matches_atmsim_run():
    from conftest import assert_same_run, small

    scs = [("a", small(2, duration="0.1 s")), ("b", small(3, duration="0.1 s", buffer="200 cells"))]
    ref = {k: atmsim.run(sc) for k, sc in scs}
    for backend in ("local", "threads"):
        got = run_many(scs, workers=2, progress=False, backend=backend)
        assert list(got) == ["a", "b"]
        for k in got:
            assert_same_run(ref[k], got[k])


def _child_pids(pid):
    """The child processes of `pid` (Linux /proc; empty elsewhere). A thread or the process
    may end while they are read: what vanished has no children left to count."""
    kids = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except FileNotFoundError:
        return kids
    for t in tasks:
        try:
            kids += [int(c) for c in (t / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            pass
    return kids


def _running(pid):
    """True if process `pid` exists and is not a zombie (it may end while it is looked at)."""
    try:
        return "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()
    except (FileNotFoundError, ProcessLookupError):
        return False

@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc (Linux)")
def test_kill_9_then_resume(tmp_path):
    """kill -9 of a running sweep: the worker processes exit by themselves, the finished
    points are kept, and the next run finishes only the missing ones."""
    # Points of 10 s simulated, as in the Ctrl-C test below: 2 s points (0.1 s each) let the
    # 16-point grid finish in under a second, a race with the poll that sends the kill.
    f = tmp_path / "s.toml"
    f.write_text('name = "k"\n[base]\ntopology = "n_source"\n[base.args]\nn = 3\nlink_delay = "1 ms"\n'
                 'duration = "10 s"\n[sweep]\nseeds = 4\n[sweep.parameters]\n'
                 '"defaults.switch_buffer" = ["300 cells", "600 cells", "900 cells", "1200 cells"]\n')
    out = tmp_path / "o"
    exe = VENV_BIN / "atmsim"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "atmsim.cli"]
    p = subprocess.Popen([*cmd, "sweep", str(f), "--out", str(out), "--workers", "2", "--no-progress"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    done = []
    while time.time() < deadline:
        # A point is written in a ".tmp-" folder and renamed when whole: only named folders count
        # (a kill between the two left a counted temp folder once, and the resume rightly redid it).
        done = [d for d in (out / "points").glob("*") if not d.name.startswith(".")
                and (d / "point.json").exists()] if (out / "points").is_dir() else []
        if len(done) >= 3:
            break
        time.sleep(0.05)
    children = _child_pids(p.pid)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    assert 3 <= len(done) < 16, len(done)
    # the orphaned workers notice and exit
    deadline = time.time() + 10
    while time.time() < deadline and any(_running(c) for c in children):
        time.sleep(0.1)
    alive = [c for c in children if _running(c)]
    assert not alive, alive
    kept = {d.name for d in (out / "points").iterdir() if not d.name.startswith(".") and (d / "point.json").exists()}
    rc, stdout, err = run_cli(["sweep", str(f), "--out", str(out), "--no-progress"])
    assert rc == 0, err
    assert f"{16 - len(kept)} to run ({len(kept)} already done)" in err, err
    assert len(atmsim.load_sweep(out).ok) == 16
    rc, stdout, err = run_cli(["sweep", str(f), "--out", str(out), "--no-progress"])
    assert "all 16 points already done" in err


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="POSIX process groups")
def test_ctrl_c_stops_at_once_and_keeps_finished_points(tmp_path):
    # Points of 10 s simulated (about half a second each on the development machine), so
    # that the grid outlasts the poll below by seconds: with 2 s points (0.1 s each) the whole
    # grid once finished, in 1.2 s, before a fresh clone's poll saw two points and signalled.
    f = tmp_path / "s.toml"
    f.write_text('name = "c"\n[base]\ntopology = "n_source"\n[base.args]\nn = 3\nlink_delay = "1 ms"\n'
                 'duration = "10 s"\n[sweep]\nseeds = 8\n[sweep.parameters]\n'
                 '"defaults.switch_buffer" = ["300 cells", "600 cells", "900 cells"]\n')
    out = tmp_path / "o"
    exe = VENV_BIN / "atmsim"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "atmsim.cli"]
    p = subprocess.Popen([*cmd, "sweep", str(f), "--out", str(out), "--workers", "2"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as in a terminal
    deadline = time.time() + 60
    while time.time() < deadline:
        if (out / "points").is_dir() and sum(1 for d in (out / "points").iterdir() if (d / "point.json").exists()) >= 2:
            break
        time.sleep(0.05)
    os.killpg(p.pid, signal.SIGINT)  # what Ctrl-C does: the whole foreground group
    t0 = time.time()
    _, err = p.communicate(timeout=30)
    err = err.decode()
    assert time.time() - t0 < 5
    assert p.returncode == 130, err
    assert "atmsim: interrupted" in err and "Traceback" not in err
    kept = [d for d in (out / "points").iterdir() if (d / "point.json").exists()]
    assert 2 <= len(kept) < 24 and not list((out / "points").glob(".tmp-*"))
    res = atmsim.sweep(f, out=out, progress=False)
    assert len(res.ok) == 24
