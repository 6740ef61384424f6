"""The Python side of large networks: what atmsim.run(), atmsim.validate(), RunResult.save()
and the builders do around the engine gives the same dicts, texts, files and errors as
before, without copying, re-encoding or re-walking the scenario.

These check correctness only (no timings): the TOML text read back, the scenario's JSON
text against the dict, the garbage collector's state, and that a scenario parsed from
a file is let go before the engine runs.
"""

from __future__ import annotations

import copy
import gc
import inspect
import json
import math
import weakref
from pathlib import Path
from typing import Any

import pytest
import tomli_w

import atmsim
from atmsim import _core, result, scenario
from atmsim.topology import n_source, r1, r2, r3
from conftest import REPO, WALL_FIELDS, small

EXAMPLES = [REPO / "examples" / "ubr_small.toml", REPO / "examples" / "abr_two_sources.toml"]


def tomli_w_text(sc: Any) -> str:
    """What to_toml wrote before its own writer: tomli-w of the scenario without None."""
    return tomli_w.dumps(scenario._without_none(sc))


def same(a: Any, b: Any) -> bool:
    """Equal, with the same types all the way down (1 and 1.0 differ; NaN equals NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


# --------------------------------------------------------------------------- to_toml


def _builders() -> list[dict[str, Any]]:
    return [
        small(3),
        n_source(40, link_delay="1 ms", duration="20 ms", sample_interval="1 ms", tcp={"window": "64 KB"},
                 start_times=[f"{i} ms" for i in range(40)],
                 vbr={"peak_rate": "10 Mbps", "on": "1 ms", "off": "2 ms", "phase": "0.5 ms"}),
        n_source(5, segment_delays=("1 ms", "2 ms", "3 ms"), service="abr", abr={"icr": "1 Mbps"},
                 allocator={"kind": "erica"}, applications=[{"kind": "periodic", "segment_interval": "1 ms", "segments": 10}] * 5,
                 policy={"kind": "epd", "threshold": "50 %"}, buffer="1000 cells"),
        r1(), r1(long_nodes=4, per_node=8, traffic="tcp"),
        r2(abr_per_set=3, vbr_per_set=2), r2(vbr_open="staggered", vbr_per_set=2), r3(),
    ]


def _stripped(v: Any) -> Any:
    """A copy of ``v`` without None values or items: the reference for _without_none."""
    if isinstance(v, dict):
        return {k: _stripped(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [_stripped(x) for x in v if x is not None]
    return v


def test_without_none_copies_only_a_scenario_that_holds_none():
    sc = small(3)
    assert scenario._without_none(sc) is sc  # nothing to drop: no 0.3 GB copy at 100 000 VCs
    holes = {**sc, "name": None, "defaults": {**sc["defaults"], "tcp": None},
             "connection": [None, *[{**c, "start": None} for c in sc["connection"]]], "node": [[None, 1], *sc["node"]]}
    got = scenario._without_none(holes)
    assert got == _stripped(holes) and got is not holes
    assert "name" not in got and "tcp" not in got["defaults"] and got["node"][0] == [1]
    assert holes["name"] is None and holes["connection"][0] is None  # the dict given is left as it was
    assert atmsim.to_toml(holes) == tomli_w.dumps(_stripped(holes))


@pytest.mark.parametrize("i", range(len(_builders())))
def test_to_toml_reads_back_as_the_scenario(i):
    sc = _builders()[i]
    text = atmsim.to_toml(sc)
    tomllib = pytest.importorskip("tomllib")
    assert tomllib.loads(text) == json.loads(json.dumps(scenario._without_none(sc)))  # tuples as lists
    assert atmsim.validate(text) == atmsim.validate(sc)


# --------------------------------------------------------------------------- the garbage collector


def test_paused_gc_restores_the_collectors_state():
    was = gc.isenabled()
    try:
        gc.enable()
        with result.paused_gc():
            assert not gc.isenabled()
        assert gc.isenabled()
        with pytest.raises(ZeroDivisionError):
            with result.paused_gc():
                1 / 0
        assert gc.isenabled()
        gc.disable()
        with result.paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()  # off before: left off
        gc.enable()
        with pytest.raises(ValueError):
            n_source(0)
        assert gc.isenabled()
        with pytest.raises(atmsim.ScenarioError):
            scenario.parse_json("{bad")
        assert gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()


def test_pauses_in_threads_at_once_leave_the_collector_on():
    import threading

    was = gc.isenabled()
    gc.enable()
    try:
        start = threading.Barrier(8)

        def work(i: int) -> None:
            start.wait()
            for _ in range(200):
                with result.paused_gc():
                    assert not gc.isenabled()
                    if i % 2:
                        n_source(3)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert gc.isenabled() and result._gc_pauses == 0
    finally:
        (gc.enable if was else gc.disable)()


def test_the_builders_keep_their_signatures_and_results():
    assert "link_delay" in inspect.signature(n_source).parameters
    assert n_source.__name__ == "n_source" and "N-source" in n_source.__doc__
    for f, kw in [(n_source, {"n": 7, "link_delay": "1 ms"}), (r1, {}), (r2, {"vbr_per_set": 1}), (r3, {})]:
        assert f(**kw) == f.__wrapped__(**kw)


# --------------------------------------------------------------------------- loading and validating


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_form_of_a_scenario_validates_alike(path, tmp_path):
    sc = atmsim.load_scenario(path)
    as_json = tmp_path / "sc.json"
    as_json.write_text(json.dumps(sc))
    want = atmsim.validate(path)
    for form in (sc, path.read_text(), as_json, str(as_json), json.dumps(sc), atmsim.to_toml(sc)):
        assert atmsim.validate(form) == want
    assert atmsim.max_min(as_json).equals(atmsim.max_min(path))


def test_validate_and_load_leave_the_callers_dict_alone():
    sc = small(3)
    before = copy.deepcopy(sc)
    atmsim.validate(sc)
    loaded = atmsim.load_scenario(sc)
    assert sc == before and loaded == sc and loaded is not sc
    loaded["connection"][0]["name"] = "changed"
    assert sc == before  # a copy, all the way down


def test_load_scenario_gives_the_same_types_in_every_form(tmp_path):
    sc = small(2)
    sc["measurement"]["sample_interval"] = "1 ms"
    sc["x_float"], sc["x_int"], sc["x_tuple"] = 1.0, 2**63 - 1, ("a", 1)
    as_json = tmp_path / "sc.json"
    as_json.write_text(json.dumps(sc))
    via_json = json.loads(json.dumps(sc))
    for form in (sc, as_json, json.dumps(sc), "\ufeff" + json.dumps(sc)):
        assert same(atmsim.load_scenario(form), via_json)


def test_parse_scenario_text_gives_the_dict_and_its_text():
    sc = small(2)
    for text in (json.dumps(sc), json.dumps(sc, indent=2), atmsim.to_toml(sc)):
        d, engine_text = scenario.parse_scenario_text(text)
        assert same(d, atmsim.load_scenario(text))
        assert same(json.loads(engine_text), d)
        if not text.startswith("name"):
            assert same(d, json.loads(json.dumps(sc)))
    nan = json.dumps({**sc, "seed": float("nan")})
    d, engine_text = scenario.parse_scenario_text(nan)
    assert engine_text == json.dumps(d)  # NaN: json.dumps's text, as before
    with pytest.raises(atmsim.ScenarioError, match="NaN is not a finite number"):
        atmsim.validate(nan)


def test_validate_parsed_and_run_parsed_are_validate_and_run():
    path = EXAMPLES[0]
    d, text = scenario.parse_scenario_text(path.read_text())
    assert scenario.validate_parsed(d, text) == atmsim.validate(path)
    assert scenario.validate_parsed(None, text) == atmsim.validate(path)
    r, want = scenario.run_parsed(d, text, progress=False), atmsim.run(path, progress=False)
    assert r.scenario is d  # kept, not copied
    assert {k: v for k, v in r.summary.items() if k not in WALL_FIELDS} == \
        {k: v for k, v in want.summary.items() if k not in WALL_FIELDS}
    assert r.connections.equals(want.connections) and r.ports.equals(want.ports)
    with pytest.raises(ValueError, match="max_events"):
        scenario.run_parsed(d, text, max_events=0)


def test_validate_of_a_toml_file_saves_the_scenario_on_an_engine_bug(monkeypatch):
    def boom(*a, **k):
        raise _core.InternalError("internal error in the engine: boom at x.rs:1")

    monkeypatch.setattr(scenario._core, "validate", boom)
    for form in (EXAMPLES[0], atmsim.load_scenario(EXAMPLES[0])):
        with pytest.raises(atmsim.InternalError) as e:
            atmsim.validate(form)
        saved = Path(e.value.scenario_path)
        try:
            assert json.loads(saved.read_text()) == atmsim.load_scenario(EXAMPLES[0])
        finally:
            saved.unlink()


# --------------------------------------------------------------------------- run and save


class _Tracked(dict):
    """A dict a weak reference can follow (a plain dict cannot)."""


def test_a_scenario_parsed_from_a_file_is_let_go_before_the_engine_runs(monkeypatch, tmp_path):
    path = tmp_path / "sc.json"
    path.write_text(json.dumps(small(2)))
    refs: list[weakref.ref] = []
    parse = scenario.parse_json

    def tracked_parse(text, error=atmsim.ScenarioError):
        d = _Tracked(parse(text, error))
        refs.append(weakref.ref(d))
        return d

    alive: list[bool] = []
    engine = scenario._core.run_json_watched

    def watched(*a, **k):
        gc.collect()
        alive.append(any(ref() is not None for ref in refs))
        return engine(*a, **k)

    monkeypatch.setattr(scenario, "parse_json", tracked_parse)
    monkeypatch.setattr(scenario._core, "run_json_watched", watched)
    r = atmsim.run(path, progress=False)
    assert refs and alive == [False]
    assert r.scenario == json.loads(path.read_text())


@pytest.mark.parametrize("form", ["dict", "path", "toml"])
def test_save_writes_tomli_ws_scenario_and_keeps_no_decoded_copy(form, tmp_path):
    sc = small(3)
    toml_path = tmp_path / "sc.toml"
    toml_path.write_text(atmsim.to_toml(sc))
    given = {"dict": sc, "path": toml_path, "toml": toml_path.read_text()}[form]
    r = atmsim.run(given, progress=False)
    r.save(tmp_path / "out", plot=False)
    assert r._scenario is None  # decoded for the file only
    assert same(r.scenario, atmsim.load_scenario(given))
    assert (tmp_path / "out" / "scenario.toml").read_text(encoding="utf-8") == tomli_w_text(r.scenario)
    again = atmsim.run(given, progress=False)
    again.scenario  # decoded before: the same file
    again.save(tmp_path / "again", plot=False)
    for name in ("connections.csv", "ports.csv", "scenario.toml", "port_series.csv", "connection_series.csv"):
        assert (tmp_path / "out" / name).read_bytes() == (tmp_path / "again" / name).read_bytes(), name


def test_the_result_of_a_file_reads_its_scenario_back(tmp_path):
    path = tmp_path / "sc.json"
    sc = small(2)
    path.write_text(json.dumps(sc))
    for form in (path, EXAMPLES[1]):
        r = atmsim.run(form, progress=False)
        assert same(r.scenario, atmsim.load_scenario(form))
        assert r.scenario is r.scenario
