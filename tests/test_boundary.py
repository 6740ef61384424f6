"""Results across the boundary as columns (issue 14, item 3): the columns path gives exactly
the DataFrames the JSON path gave, packing for a worker loses nothing, and a worker keeps
only the series entities asked for."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import atmsim
from atmsim import _core
from atmsim.parallel import columns_task, run_many, simulate_columns
from atmsim.result import RunResult, Series, pack, unpack
from atmsim.topology import n_source

FRAMES = ("port_series", "connection_series", "abr_series", "connections", "ports")


def _scenarios():
    ubr = n_source(6, link_delay="1 ms", buffer="300 cells", duration="60 ms", sample_interval="1 ms",
                   tcp={"window": "64000 B"})
    abr = n_source(3, link_delay="1 ms", duration="40 ms", sample_interval="0.5 ms", service="abr")
    return [ubr, abr, _mixed()]


def _mixed():
    """ABR and UBR side by side (columns with some rows null: ACR, RM counts, a host port's
    unlimited buffer), a greedy ABR source without TCP (SRTT null), EPD drops of several
    reasons at some ports only, and names beyond ASCII."""
    sc = n_source(3, link_delay="1 ms", buffer="150 cells", policy={"kind": "epd", "threshold": "50 %"},
                  duration="40 ms", sample_interval="1 ms", tcp={"window": "64000 B"})
    sc["connection"][0]["service"] = "abr"
    sc["connection"][1]["name"] = "tcp-\u00e9t\u00e9"
    sc["connection"][2].update(service="abr", traffic={"kind": "persistent"})
    return sc


@pytest.mark.parametrize("sc", _scenarios(), ids=["ubr-tcp", "abr", "mixed"])
def test_columns_give_the_json_paths_frames_exactly(sc):
    text = json.dumps(sc)
    by_json = RunResult(json.loads(_core.run_json(text)), sc)
    head, cols = _core.run_json(text, columns=True)
    for r in (RunResult.from_columns(head, cols, sc), RunResult.unpack(pack(head, cols), sc)):
        for attr in FRAMES:
            a, b = getattr(by_json, attr), getattr(r, attr)
            pd.testing.assert_frame_equal(a, b, check_exact=True)
            assert a.to_csv(index=False) == b.to_csv(index=False), attr
        assert json.dumps(r.raw["timeseries"], sort_keys=True) == json.dumps(by_json.raw["timeseries"], sort_keys=True)
        # The tables cross as typed columns; `raw` gives them back as the JSON path's rows,
        # keys in order.
        for table in ("connections", "ports"):
            assert set(json.loads(head)[table]) == {"rows", "fields"}
            assert json.dumps(r.raw[table]) == json.dumps(by_json.raw[table]), table


def test_table_columns_keep_what_pandas_inferred_from_json():
    """Integers with some nulls were float64 with NaN, a drop reason some ports lack NaN
    there; the columns path gives the same. A column with only nulls was an object column of
    None, which pandas cannot plot or average: since the fifty-fifth session it is float64 NaN
    too (``result._unmeasured_as_nan``), on both paths."""
    sc = _mixed()
    r = atmsim.run(sc)
    c, p = r.connections, r.ports
    assert c["rm_cells_sent"].dtype == np.float64 and c["rm_cells_sent"].isna().sum() == 1
    assert c["reverse_throughput_bps"].dtype == np.float64 and c["reverse_throughput_bps"].isna().all()
    assert c["name"].tolist()[1] == "tcp-\u00e9t\u00e9"
    assert p["buffer_cells"].dtype == np.float64 and p["buffer_cells"].isna().any()
    drops = [k for k in p.columns if k.startswith("drops_")]
    assert drops and p["dropped"].sum() > 0 and (p[drops].sum(axis=1) == p["dropped"]).all()
    by_json = RunResult(json.loads(_core.run_json(json.dumps(sc))), sc)
    pd.testing.assert_frame_equal(by_json.ports, p, check_exact=True)


def test_strings_holding_nul_cross_whole():
    """Strings are joined by NUL for one split; a string holding NUL itself comes with
    where each ends."""
    from atmsim.result import _strings

    joined = np.frombuffer("a\0\u00e9\0".encode(), dtype=np.uint8)
    assert _strings({"t/s": joined}, "t/s") == ["a", "\u00e9", ""]
    text = "x\0y".encode() + b"\0" + "z".encode()
    cols = {"t/s": np.frombuffer(text, dtype=np.uint8), "t/s/ends": np.array([3, 5])}
    assert _strings(cols, "t/s") == ["x\0y", "z"]


def test_the_f32_series_read_as_their_json_text():
    # utilization and ACR are f32 in the engine; the JSON path gave Python the f64 of their
    # shortest decimal text (0.95, not 0.949999988079071).
    sc = _scenarios()[1]
    head, cols = _core.run_json(json.dumps(sc), columns=True)
    acr = np.frombuffer(dict((n, b) for n, _, b in cols)["acr_mbps"], dtype="<f8")
    assert len(acr) and all(float(str(np.float32(x))) == x for x in acr[acr == acr])
    assert any(float(np.float32(x)) != x for x in acr)  # not the f32's exact value


def test_empty_series_keep_the_json_paths_dtypes():
    sc = _scenarios()[0]
    text = json.dumps(sc)
    a = RunResult(json.loads(_core.run_json(text)), sc).abr_series
    b = RunResult.from_columns(*_core.run_json(text, columns=True), sc).abr_series
    assert len(a) == len(b) == 0 and list(a.dtypes) == list(b.dtypes) and list(a.columns) == list(b.columns)


def test_a_worker_keeps_only_what_it_is_asked_for():
    sc = _scenarios()[0]
    full = atmsim.run(sc, progress=False)
    status, data, _ = simulate_columns(columns_task(json.dumps(sc), {"port": ["sw1->sw2"], "connection": []}))
    assert status == "ok"
    head, series, files = unpack(data)
    r = RunResult.unpack(data, sc)
    assert set(r.port_series["port"]) == {"sw1->sw2"} and len(r.connection_series) == 0 and files == {}
    pd.testing.assert_frame_equal(r.port_series,
                                  full.port_series[full.port_series["port"] == "sw1->sw2"].reset_index(drop=True))
    pd.testing.assert_frame_equal(r.connections, full.connections)
    assert r.summary["cells_delivered"] == full.summary["cells_delivered"]
    assert len(data) < len(pack(*_core.run_json(json.dumps(sc), columns=True))) / 2


def test_run_many_hands_back_reduced_results_on_every_backend():
    sc = _scenarios()[0]
    keep = lambda key: {"port": [], "connection": [], "source": []}  # noqa: E731
    for backend in ("local", "threads"):
        out = run_many([("a", sc)], workers=1, progress=False, backend=backend, keep=keep)
        r = out["a"]
        assert len(r.port_series) == 0 and len(r.connection_series) == 0
        assert r.summary["cells_delivered"] == atmsim.run(sc, progress=False).summary["cells_delivered"]


def test_run_many_hands_each_result_over_as_it_arrives():
    """``on_result`` sees every run once, the result it returns; an exception it raises stops
    the runs and reaches the caller."""
    sc = _scenarios()[0]
    seen: dict[str, RunResult] = {}
    out = run_many([("a", sc), ("b", sc)], workers=2, progress=False, on_result=seen.__setitem__)
    assert sorted(seen) == ["a", "b"] and all(seen[k] is out[k] for k in out)

    def refuse(key: str, result: RunResult) -> None:
        raise OSError(f"disk full while keeping {key}")

    with pytest.raises(OSError, match="disk full"):
        run_many([("a", sc), ("b", sc)], workers=1, progress=False, on_result=refuse)


def test_series_select_and_json_form_round_trip():
    t = np.array([0.1, 0.2])
    s = Series(t, {"port_names": ["a", "b"], "connection_names": [], "abr_names": []},
               {"queue_cells": np.array([1, 2, 3, 4]), "max_queue_cells": np.array([1, 2, 3, 4]),
                "utilization": np.array([0.5, 0.5, 1.0, 1.0]), "data_utilization": np.zeros(4),
                "vbr_utilization": np.zeros(4), "cwnd_bytes": np.zeros(0, dtype=np.int64),
                "cells_received": np.zeros(0, dtype=np.int64), "delivered_bytes": np.zeros(0, dtype=np.int64),
                "acr_mbps": np.zeros(0), "abr_cells_received": np.zeros(0, dtype=np.int64)})
    b = s.select({"port": ["b"]})
    assert b.names["port_names"] == ["b"] and b.columns["queue_cells"].tolist() == [3, 4]
    assert s.as_json()["queue_cells"] == [[1, 2], [3, 4]]
    assert Series.from_json(s.as_json()).long("port_series").equals(s.long("port_series"))


def test_the_same_run_asked_twice_runs_once(monkeypatch):
    """Keys with the same scenario and the same kept series run once (issue 14: three of the
    reproductions' 280 runs repeat another); each key still gets its own result, equal to a
    run of its own. A different ``keep`` is a different run."""
    import atmsim.parallel as parallel

    sc, other = _scenarios()[0], _scenarios()[1]
    calls: list[str] = []
    real = parallel.simulate_columns
    monkeypatch.setattr(parallel, "simulate_columns", lambda task, *a: calls.append(task[:20]) or real(task, *a))
    keep = {"a": None, "b": None, "c": None, "d": {"port": []}}
    seen: list[str] = []
    out = run_many([("a", sc), ("b", other), ("c", sc), ("d", sc)], workers=1, progress=False,
                   backend="threads", keep=keep.get, on_result=lambda k, r: seen.append(k))
    assert len(calls) == 3 and sorted(seen) == ["a", "b", "c", "d"] and list(out) == ["a", "b", "c", "d"]
    assert out["a"] is not out["c"] and out["c"].files == {}
    pd.testing.assert_frame_equal(out["c"].port_series, atmsim.run(sc, progress=False).port_series)
    assert out["c"].summary == out["a"].summary and len(out["d"].port_series) == 0


def test_same_runs_groups_equal_text_and_keep():
    from atmsim.parallel import same_runs

    runs = [("a", "x", None), ("b", "y", None), ("c", "x", None), ("d", "x", {"port": []}), ("e", "x", None)]
    assert same_runs(runs) == {"a": ["c", "e"]}
    assert same_runs([("a", "x", {"port": ["p"], "connection": []}),
                      ("b", "x", {"connection": [], "port": ["p"]})]) == {"a": ["b"]}


def test_a_table_frame_is_the_frame_of_its_rows():
    """Every kind, with and without nulls, and a map whose keys some rows lack (NaN there, as
    a list of dicts gave): the typed columns' frame and rows are the JSON rows' own."""
    from atmsim.result import _table_frame, _table_rows

    rows = [
        {"name": "a", "n": 1, "m": 5, "x": 0.5, "y": None, "on": True, "none": None, "drops": {"q": 2}},
        {"name": "b", "n": 2, "m": None, "x": 1.5, "y": 2.5, "on": False, "none": None, "drops": {"p": 1, "q": 3}},
    ]
    spec = {"rows": 2, "fields": [
        {"name": "name", "kind": "str", "nulls": False}, {"name": "n", "kind": "int", "nulls": False},
        {"name": "m", "kind": "int", "nulls": True}, {"name": "x", "kind": "float", "nulls": False},
        {"name": "y", "kind": "float", "nulls": True}, {"name": "on", "kind": "bool", "nulls": False},
        {"name": "none", "kind": "null", "nulls": True},
        {"name": "drops", "kind": "map", "keys": [{"name": "q", "kind": "int", "nulls": False},
                                                   {"name": "p", "kind": "int", "nulls": True}]}]}
    u8 = lambda v: np.array(v, dtype=np.uint8)  # noqa: E731
    cols = {"t/name": np.frombuffer(b"a\0b", dtype=np.uint8), "t/n": np.array([1, 2]),
            "t/m": np.array([5, 0]), "t/m/valid": u8([1, 0]), "t/x": np.array([0.5, 1.5]),
            "t/y": np.array([np.nan, 2.5]), "t/y/valid": u8([0, 1]), "t/on": np.array([True, False]),
            "t/drops/q": np.array([2, 3]), "t/drops/p": np.array([0, 1]), "t/drops/p/valid": u8([0, 1])}
    want = pd.DataFrame({k: [r[k] for r in rows] for k in rows[0] if k != "drops"})
    want = pd.concat([want, pd.DataFrame([r["drops"] for r in rows]).add_prefix("drops_")], axis=1)
    got = _table_frame(spec, cols, "t")
    pd.testing.assert_frame_equal(want, got, check_exact=True)
    assert list(want.dtypes) == list(got.dtypes)
    assert json.dumps(_table_rows(spec, cols, "t")) == json.dumps(
        [{**r, "drops": dict(sorted(r["drops"].items()))} for r in rows])


def test_a_head_read_twice_gives_the_same_result():
    """Building a result does not change the head it is given (a second result from the same
    unpacked head is the same)."""
    sc = _mixed()
    head, series, _ = unpack(pack(*_core.run_json(json.dumps(sc), columns=True)))
    a, b = RunResult(head, sc, series=series), RunResult(head, sc, series=series)
    pd.testing.assert_frame_equal(a.ports, b.ports, check_exact=True)
    assert "tables" in head


def test_a_scenario_dict_becomes_the_same_json_data():
    """The extension writes a plain scenario dict as JSON in one pass: the same data as
    json.dumps gives (floats exactly, key order, nesting, escapes); anything else is left to
    json.dumps (None), so its errors and tokens are unchanged."""
    from atmsim.scenario import _json_text

    sc = _mixed()
    sc["extra"] = {"f": [0.1, 1e16, -0.0, 5e-324, 2.5], "i": [0, -1, 2**63 - 1, 2**64 - 1], "t": (1, "a"),
                   "s": "\u00e9\"\\\n\t\u0001\U0001f600", "b": [True, False, None], "deep": [[[{}]]]}
    text = _core.scenario_json(sc)
    assert text is not None and json.loads(text) == json.loads(json.dumps(sc))
    assert list(json.loads(text)) == list(sc)
    floats = json.loads(text)["extra"]["f"]
    assert [float(x).hex() for x in floats] == [float(x).hex() for x in sc["extra"]["f"]]
    assert isinstance(json.loads(text)["extra"]["i"][0], int)
    cyclic: dict = {"a": []}
    cyclic["a"].append(cyclic)
    for odd in ({"x": float("nan")}, {"x": float("inf")}, {1: "a"}, {"x": 2**64}, {"x": np.float64(0.5)},
                {"x": "\ud800"}, cyclic, {"x": {1, 2}}):
        assert _core.scenario_json(odd) is None
    with pytest.raises(ValueError, match="Circular reference"):
        _json_text(cyclic)
    assert _json_text({"x": float("nan")}) == '{"x": NaN}'
    del sc["extra"]
    a, b = atmsim.run(sc), RunResult(json.loads(_core.run_json(json.dumps(sc))), sc)
    pd.testing.assert_frame_equal(a.connections, b.connections, check_exact=True)
    assert a.scenario == json.loads(json.dumps(sc))


def test_a_dict_of_many_distinct_strings_becomes_the_same_json_text():
    """Past the first 65 536 string values the writer stops remembering where each value
    object was written (a dict decoded from JSON has a new object for each: 58 MB at 100 000
    VCs); keys are always remembered, and repeated objects still written alike. The text is
    json.dumps's data, whatever is remembered."""
    shared = "1 ms"
    sc = {"node": [{"name": f"n{i}", "kind": "host", "delay": shared, "é": "x\ty"} for i in range(70_000)]}
    sc = json.loads(json.dumps(sc))  # new objects for every value, keys shared
    sc["again"] = [sc["node"][0]["name"], sc["node"][69_999]["name"], shared]
    text = _core.scenario_json(sc)
    assert text is not None and text == json.dumps(sc, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize("strings", [
    ["sw1->sw2", "src9->sw1", "", "é→ü 名前", "a"],  # empty, multi-byte UTF-8
    [""],  # one empty string: no NUL at all
    ["only"],
    ["", ""],
])
def test_a_string_column_is_the_frame_a_list_of_its_strings_gives(strings):
    """Where pandas keeps strings in Arrow, a table's string column without nulls is built from
    the engine's bytes: the same column (values, dtype, Arrow type) as the list of its strings."""
    from atmsim.result import _arrow_str_dtype, _arrow_strings, _table_frame

    spec = {"rows": len(strings), "fields": [{"name": "name", "kind": "str", "nulls": False}]}
    cols = {"t/name": np.frombuffer("\0".join(strings).encode(), dtype=np.uint8)}
    want = pd.DataFrame({"name": list(strings)})
    got = _table_frame(spec, cols, "t")
    pd.testing.assert_frame_equal(want, got, check_exact=True)
    assert list(want.dtypes) == list(got.dtypes)
    dtype = _arrow_str_dtype()
    if dtype is not None:  # pandas 3 with pyarrow: the Arrow path was taken, not the list's
        built = _arrow_strings(cols["t/name"], len(strings), dtype)
        assert built is not None and list(built) == list(strings)
        assert built._pa_array.type == want["name"].array._pa_array.type


def test_strings_that_do_not_cut_into_their_rows_take_the_list_path():
    """The Arrow path declines what it cannot cut into the rows' strings (no rows, a count of
    NULs that is not rows - 1); the list path then reads them as before."""
    from atmsim.result import _arrow_str_dtype, _arrow_strings

    dtype = _arrow_str_dtype()
    if dtype is None:
        pytest.skip("pandas keeps strings as Python objects here: no Arrow path")
    raw = np.frombuffer(b"a\0b\0c", dtype=np.uint8)
    assert _arrow_strings(raw, 2, dtype) is None
    assert _arrow_strings(raw, 4, dtype) is None
    assert _arrow_strings(np.frombuffer(b"", dtype=np.uint8), 0, dtype) is None


@pytest.mark.filterwarnings("ignore:The 'future.infer_string' option is deprecated")
@pytest.mark.parametrize("options", [("mode.string_storage", "python"), ("future.infer_string", False)])
def test_a_string_column_follows_the_string_options_in_force(options):
    """Built after pandas' string options change, a string column is still the one a list of
    its strings gives under those options (the Arrow path is not taken from a stale answer)."""
    from atmsim.result import _table_frame

    name, value = options
    try:
        pd.get_option(name)
    except KeyError:
        pytest.skip(f"this pandas has no option {name}")
    spec = {"rows": 2, "fields": [{"name": "name", "kind": "str", "nulls": False}]}
    cols = {"t/name": np.frombuffer(b"a\0b", dtype=np.uint8)}
    _table_frame(spec, cols, "t")  # asked once under the defaults
    with pd.option_context(name, value):
        want = pd.DataFrame({"name": ["a", "b"]})
        got = _table_frame(spec, cols, "t")
        pd.testing.assert_frame_equal(want, got, check_exact=True)
        assert list(want.dtypes) == list(got.dtypes)
