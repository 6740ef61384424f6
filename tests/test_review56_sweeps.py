"""Review 56 (a first use in a notebook), the sweep items: NumPy values in a sweep (#3),
Ctrl-C on the threads backend (#4), a scenario dict as the base (#7), a store whose sweep
file runs again from anywhere (#8), a dict given for a directory (#10), a sweep whose
every point failed (#11) and a scenario given where a sweep goes (#16).

Every grid here is tiny (two sources, 0.05 s simulated) but for the interrupted one.
"""

from __future__ import annotations

import _thread
import json
import shutil
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

import atmsim
from atmsim.parallel import run_many
from atmsim.sweeps import SweepError, canonical, load_sweep_file
from conftest import REPO, run_cli

SMALL = REPO / "examples" / "ubr_small.toml"


def tiny(**sweep) -> dict:
    """A two-source topology sweep of two buffers, with changes to its [sweep] table."""
    return {
        "name": "t",
        "base": {"topology": "n_source", "args": {"n": 2, "link_delay": "5 us", "duration": "0.05 s",
                                                  "policy": {"kind": "tail_drop"}}},
        "sweep": {"seeds": 1, "parameters": {"defaults.switch_buffer": ["200 cells", "400 cells"]}, **sweep},
    }


def file_base(scenario, **sets) -> dict:
    """A sweep of two buffers on the base ``scenario`` (a path or a dict), 0.05 s long."""
    return {"name": "fb", "base": {"scenario": scenario, "set": {"measurement.duration": "0.05 s", **sets}},
            "sweep": {"parameters": {"defaults.switch_buffer": ["100 cells", "200 cells"]}}}


def one_line(e: BaseException, *words: str, longest: int = 400) -> str:
    text = str(e)
    assert "\n" not in text and len(text) <= longest, text
    for w in words:
        assert w in text, (w, text)
    return text


def ids(spec) -> list[str]:
    return [p.point_id for p in spec.points()]


# --------------------------------------------------------------------------- 3. NumPy values


def test_canonical_takes_numpy_scalars_as_their_python_values():
    assert canonical({"a": np.int64(2), "b": np.float32(0.5), "c": np.bool_(True), "d": [np.int32(1)]}) \
        == canonical({"a": 2, "b": 0.5, "c": True, "d": [1]})
    assert canonical(np.arange(3)) == "[0,1,2]"
    with pytest.raises(TypeError, match="not JSON serializable"):
        canonical({"a": object()})


def test_numpy_values_in_a_sweep_give_the_points_of_python_values():
    """list(np.array([...])) (np.int64), np.float32, np.bool_ and arrays anywhere in a sweep
    dict: the points (and ids) of the same sweep written in Python values."""
    written = tiny(parameters={"defaults.switch_buffer": {"values": [200, 400], "unit": "cells"},
                               "args.n": [1, 2], "measurement.duration": ["0.05 s", "0.1 s"]}, seeds=2)
    numpy = tiny(parameters={"defaults.switch_buffer": {"values": list(np.array([200, 400])), "unit": "cells"},
                             "args.n": np.arange(1, 3), "measurement.duration": np.array(["0.05 s", "0.1 s"])},
                 seeds=np.int64(2))
    numpy["base"]["args"]["seed"] = np.int16(1)
    a, b = load_sweep_file(written), load_sweep_file(numpy)
    assert ids(a) == ids(b)
    assert b.parameters[0].labels == [200, 400] and type(b.parameters[0].labels[0]) is int
    ranged = load_sweep_file(tiny(parameters={"measurement.warmup": {"from": np.float32(0.0), "to": np.int64(10),
                                                                     "num": np.int64(3), "unit": "ms"}}))
    assert ranged.parameters[0].values == ["0 ms", "5 ms", "10 ms"]
    with pytest.raises(SweepError, match=r"labels = \[true, false\]: labels are strings or numbers"):
        load_sweep_file(tiny(parameters={"defaults.switch_buffer": {  # np.bool_ is read as a bool
            "values": ["200 cells", "400 cells"], "labels": [np.bool_(True), np.bool_(False)]}}))


def test_numpy_values_in_a_base_scenario_dict_run(tmp_path):
    import tomllib

    sc = tomllib.loads(SMALL.read_text())
    sc["seed"] = np.int64(3)
    res = atmsim.sweep(file_base(sc), out=tmp_path / "s", progress=False)
    assert list(res.df["status"]) == ["ok", "ok"] and set(res.df["seed"]) == {3}


# --------------------------------------------------------------------------- 4. Ctrl-C, threads


def test_ctrl_c_stops_a_threads_sweep_at_once(tmp_path):
    """The threads backend waited for the points in flight to end (a 2-minute point blocked
    the notebook for 2 minutes); now the engine runs stop within a fraction of a second."""
    slow = {"name": "slow", "base": {"topology": "n_source", "args": {
        "n": 30, "service": "abr", "allocator": {"kind": "erica"}, "duration": "60 s"}}, "sweep": {"seeds": 2}}
    timer = threading.Timer(0.7, _thread.interrupt_main)
    t0 = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            atmsim.sweep(slow, out=tmp_path / "s", backend="threads", workers=2, progress=False)
        took = time.perf_counter() - t0
    finally:
        timer.cancel()
    assert took < 2.0, f"the interrupt took {took:.1f} s to stop the sweep"
    assert not [t for t in threading.enumerate() if t.name.startswith("atmsim")]
    points = tmp_path / "s" / "points"
    assert not (points.is_dir() and any(points.iterdir()))  # a stopped run is no point


def test_threads_backend_results_are_those_of_a_run(tmp_path):
    """The watched engine call of the threads backend runs the same events: the summary of
    each point is atmsim.run's of its scenario (columns=False), and run_many (columns=True)
    gives the same result on threads as on local processes."""
    res = atmsim.sweep(tiny(seeds=2), out=tmp_path / "s", backend="threads", workers=2, progress=False)
    for pid in res.df["point_id"]:
        alone = atmsim.run(res.scenario(pid), progress=False).summary
        row = res.df.set_index("point_id").loc[pid]
        for k in ("efficiency", "fairness", "cells_dropped", "max_switch_queue_cells", "total_goodput_bps"):
            assert row[k] == alone[k], k
    sc = atmsim.topology.n_source(2, link_delay="5 us", duration="0.05 s", buffer="200 cells")
    a = run_many([("x", sc)], backend="threads", workers=1, progress=False)["x"]
    b = run_many([("x", sc)], backend="local", workers=1, progress=False)["x"]
    assert {k: v for k, v in a.summary.items() if "second" not in k} == \
        {k: v for k, v in b.summary.items() if "second" not in k}
    assert a.port_series.equals(b.port_series) and a.connections.equals(b.connections)


# --------------------------------------------------------------------------- 7. a dict base


def test_a_scenario_dict_is_a_base(tmp_path, monkeypatch):
    import tomllib

    monkeypatch.chdir(tmp_path)
    sc = tomllib.loads(SMALL.read_text())
    res = atmsim.sweep(file_base(sc), out="s", progress=False)
    assert list(res.df["status"]) == ["ok", "ok"]
    assert json.loads((tmp_path / "s" / "base_scenario.json").read_text()) == sc
    stored = json.loads((tmp_path / "s" / "sweep.json").read_text())
    assert stored["base"]["scenario"] == "base_scenario.json"
    assert res.manifest["base_scenario"] == "base_scenario.json"
    # the same points as the scenario file it came from
    assert ids(load_sweep_file(file_base(sc))) == ids(load_sweep_file(file_base(str(SMALL)))) \
        == ids(load_sweep_file(file_base(SMALL)))  # a pathlib.Path names a file too


def test_messages_that_echo_a_dict_base_are_cut():
    import tomllib

    sc = tomllib.loads(SMALL.read_text())
    spec = file_base(sc)
    spec["base"]["args"] = {"n": 2}
    with pytest.raises(SweepError) as e:
        load_sweep_file(spec)
    one_line(e.value, "base.args:", "base.scenario = {", "characters)", longest=300)
    for bad in ({}, 5, ["a.toml"]):
        with pytest.raises(SweepError) as e:
            load_sweep_file(file_base(bad))
        one_line(e.value, "base.scenario = ", "a scenario dict")
    with pytest.raises(SweepError) as e:
        load_sweep_file(file_base(tiny()))
    one_line(e.value, "the dict given is a sweep", "not a scenario")


# --------------------------------------------------------------------------- 8. the stored sweep runs again


def test_a_json_sweep_file_is_read(tmp_path):
    f = tmp_path / "sw.json"
    f.write_text(json.dumps(tiny(), indent=2))
    assert ids(load_sweep_file(f)) == ids(load_sweep_file(tiny()))
    (tmp_path / "bad.json").write_text('{"name": "x",}')
    with pytest.raises(SweepError) as e:
        load_sweep_file(tmp_path / "bad.json")
    one_line(e.value, "bad.json", "invalid JSON (line 1")


def test_a_dict_sweep_on_a_relative_base_resumes_from_its_store_anywhere(tmp_path, monkeypatch):
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    work.mkdir(), elsewhere.mkdir()
    shutil.copy(SMALL, work / "base.toml")
    monkeypatch.chdir(work)
    first = atmsim.sweep(file_base("base.toml"), out="store", progress=False)
    assert list(first.df["status"]) == ["ok", "ok"]
    monkeypatch.chdir(elsewhere)
    (work / "base.toml").unlink()  # gone: only the store's copy is left
    lines: list[str] = []
    again = atmsim.sweep(work / "store" / "sweep.json", out=work / "store", progress=False, log=lines.append)
    assert any("all 2 points already done" in ln for ln in lines), lines
    assert list(again.df["point_id"]) == list(first.df["point_id"])


def test_a_cli_sweep_store_resumes_from_its_sweep_toml_anywhere(tmp_path, monkeypatch):
    src, elsewhere = tmp_path / "src", tmp_path / "elsewhere"
    src.mkdir(), elsewhere.mkdir()
    shutil.copy(SMALL, src / "line.toml")
    (src / "sw.toml").write_text('name = "cli"\n[base]\nscenario = "line.toml"\n'
                                 '[base.set]\n"measurement.duration" = "0.05 s"\n'
                                 '[sweep.parameters]\n"defaults.switch_buffer" = ["100 cells", "200 cells"]\n')
    store = tmp_path / "store"
    rc, _, err = run_cli(["sweep", str(src / "sw.toml"), "--out", str(store), "--no-progress"])
    assert rc == 0, err
    assert (store / "sweep.toml").read_text() == (src / "sw.toml").read_text()  # as given
    monkeypatch.chdir(elsewhere)
    rc, _, err = run_cli(["sweep", str(store / "sweep.toml"), "--out", str(store), "--no-progress"])
    assert rc == 0 and "all 2 points already done" in err, err
    lines: list[str] = []
    atmsim.sweep(store / "sweep.toml", out=store, progress=False, log=lines.append)
    assert any("all 2 points already done" in ln for ln in lines), lines
    # The review of the fix: the manifest keeps the original file's path after a resume from
    # the copy, and a base renamed or misspelt in the stored sweep file is not read as the old one.
    manifest = json.loads((store / "manifest.json").read_text())
    assert manifest["base_file"] == str((src / "line.toml").resolve()), manifest
    (store / "sweep.toml").write_text((store / "sweep.toml").read_text().replace("line.toml", "line_typo.toml"))
    rc, _, err = run_cli(["sweep", str(store / "sweep.toml"), "--out", str(store), "--no-progress"])
    assert rc == 2 and "line_typo.toml" in err and "cannot read" in err, err


# --------------------------------------------------------------------------- 10. a dict for a directory


def test_a_dict_for_a_directory_is_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(TypeError) as e:
        atmsim.sweep(tiny(), out={"dir": "x"}, progress=False)
    one_line(e.value, "out = {'dir': 'x'}", "directory path for the results store (str or os.PathLike", "not dict")
    with pytest.raises(TypeError) as e:
        atmsim.load_sweep(tiny())
    one_line(e.value, "path = {", "directory of a sweep's results store", "not dict")
    assert not list(tmp_path.iterdir())  # nothing written


# --------------------------------------------------------------------------- 11. every point failed


def test_a_sweep_whose_every_point_failed_warns(tmp_path):
    with pytest.warns(UserWarning) as got:
        res = atmsim.sweep(tiny(parameters={"defaults.switch_buffer": [1000, 4000]}), out=tmp_path / "s",
                           progress=False)
    assert list(res.df["status"]) == ["error", "error"]
    msg = one_line(got[0].message, "all 2 points failed", "the unit is missing", "--dry-run", longest=500)
    assert got[0].filename == __file__, msg  # points at the caller's line
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one point ok: no warning
        res = atmsim.sweep(tiny(parameters={"defaults.switch_buffer": [1000, "400 cells"]}), out=tmp_path / "t",
                           progress=False)
    assert sorted(res.df["status"]) == ["error", "ok"]


# --------------------------------------------------------------------------- 16. a scenario for a sweep


def test_a_scenario_given_for_a_sweep_says_so(tmp_path):
    import tomllib

    with pytest.raises(SweepError) as e:
        atmsim.sweep(SMALL, out=tmp_path / "s", progress=False)
    one_line(e.value, "is a scenario, not a sweep file", "[base] scenario = ...", "docs/sweeps.md")
    with pytest.raises(SweepError) as e:
        atmsim.sweep(tomllib.loads(SMALL.read_text()), out=tmp_path / "s", progress=False)
    text = one_line(e.value, "is a scenario, not a sweep", "docs/sweeps.md")
    assert "seed" not in text
    with pytest.raises(SweepError, match="unknown key 'sweeps' at the top"):  # a sweep with a typo: as before
        load_sweep_file({"base": {"scenario": str(SMALL)}, "sweeps": {}})
    assert not (tmp_path / "s").exists()


def test_atmsim_run_of_a_json_sweep_file_says_it_is_one(tmp_path):
    # The review of the fix: the store writes sweep.json, which `atmsim run` read as a
    # scenario ("unknown field `base`").
    path = tmp_path / "sweep.json"
    path.write_text(json.dumps({"name": "j", "base": {"scenario": "x.toml"}, "sweep": {"seeds": 1}}))
    rc, _, err = run_cli(["run", str(path)])
    assert rc == 2 and "is a sweep file" in err and "atmsim sweep" in err, err
