"""The ``atmsim`` command: help, list, validate, run, reproduce (errors), schema, bench.

Most tests call ``atmsim.cli.main`` in-process; a few run the installed ``.venv/bin/atmsim``.
User errors must exit with status 2 and print one line starting with ``atmsim: error:``,
never a traceback.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pandas as pd
import pytest

import atmsim
from atmsim import _core
from conftest import SAVED_FILES, VENV_BIN, call_cli, stable_summary


_call = call_cli  # main(argv) -> (status, stdout, stderr)


def _assert_one_line_user_error(rc, out, err, *needles):
    assert rc == 2, (rc, out, err)
    assert "Traceback" not in out + err
    lines = err.strip("\n").splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("atmsim: error:"), err
    for n in needles:
        assert n in lines[0], (n, lines[0])


# Broken versions of tests/data/small_ubr.toml: (id, text replaced, replacement, key path in the message).
BROKEN = [
    ("bad-unit", 'link_rate = "155.52 Mbps"', 'link_rate = "155 furlongs"', "defaults.link_rate"),
    ("bare-number", 'duration = "0.5 s"', "duration = 5", "measurement.duration"),
    ("unknown-key", 'sample_interval = "5 ms"', 'sample_interval = "5 ms"\nsampling = "5 ms"', "measurement.sampling"),
    ("route-missing-link", 'route = ["src1", "sw1", "sw2", "dst1"]', 'route = ["src1", "sw2", "dst1"]', "connection[0].route[1]"),
    ("service", 'service = "ubr"', 'service = "cbr"', "connection[1].service"),
    ("zero-duration", 'duration = "0.5 s"', 'duration = "0 s"', "measurement.duration"),
]


@pytest.fixture
def broken_file(request, small_toml, tmp_path):
    _, old, new, _ = request.param
    text = small_toml.read_text()
    assert old in text
    p = tmp_path / "broken.toml"
    p.write_text(text.replace(old, new, 1))
    return p


@pytest.fixture
def syntax_error_file(tmp_path):
    p = tmp_path / "syntax.toml"
    p.write_text('seed = 1\n[measurement\nduration = "1 s"\n')
    return p


# --------------------------------------------------------------------------- help, version, list, schema


def test_top_level_help_teaches(capsys):
    rc, out, err = _call(capsys, ["--help"])
    assert rc == 0
    for cmd in ("run", "validate", "list", "reproduce", "bench", "schema"):
        assert cmd in out
    # units and examples
    for unit in ('"155.52 Mbps"', '"5 us"', '"36000 cells"', '"80 %"'):
        assert unit in out
    assert "examples:" in out
    assert "atmsim reproduce ubr-plus" in out and "atmsim validate" in out


def test_top_level_help_names_every_registered_model(capsys):
    """The model lists of the help come from the engine's registry: none can go stale."""
    from atmsim.catalog import extension_points

    rc, out, err = _call(capsys, ["--help"])
    assert rc == 0
    flat = " ".join(out.split())
    for section in extension_points():
        names = ", ".join(e.name for e in section.entries)
        assert f"{section.title} ({section.key}): {names}" in flat, section.title


def test_help_choices_come_from_their_registries(capsys):
    from atmsim.bench import SCALE_CASES, SCALE_TOPOLOGIES
    from atmsim.catalog import BACKENDS, REPORT_METRICS
    from atmsim.trace import kind_names

    for argv, names in ((["bench", "--help"], SCALE_CASES + SCALE_TOPOLOGIES),
                        (["reproduce", "--help"], BACKENDS), (["report", "--help"], REPORT_METRICS),
                        (["run", "--help"], kind_names())):
        rc, out, err = _call(capsys, argv)
        assert rc == 0
        flat = " ".join(out.split())
        assert all(n in flat for n in names), (argv, names)


def test_no_command_prints_the_help(capsys):
    rc, out, err = _call(capsys, [])
    assert rc == 0
    assert out.startswith("usage: atmsim") and "examples:" in out


def test_run_help_lists_its_options(capsys):
    rc, out, err = _call(capsys, ["run", "--help"])
    assert rc == 0
    assert out.startswith("usage: atmsim run")
    for opt in ("--out", "--json", "--no-plot", "TOML"):
        assert opt in out


def test_run_help_teaches_units_and_examples(capsys):
    rc, out, err = _call(capsys, ["run", "--help"])
    assert rc == 0
    assert "example" in out.lower()
    assert any(u in out for u in ("Mbps", "cells", " us", " ms"))


def test_validate_help_says_errors_name_the_key(capsys):
    rc, out, err = _call(capsys, ["validate", "--help"])
    assert rc == 0
    assert "name the key" in out


def test_version(capsys):
    rc, out, err = _call(capsys, ["--version"])
    assert rc == 0
    assert out.strip() == f"atmsim {atmsim.__version__}"


def test_unknown_command_is_a_usage_error(capsys):
    rc, out, err = _call(capsys, ["frobnicate"])
    assert rc == 2
    assert "invalid choice" in err and "Traceback" not in err


def test_list_names_experiments_policies_and_models(capsys):
    rc, out, err = _call(capsys, ["list"])
    assert rc == 0
    assert "ubr-plus" in out
    assert "fba" in out
    for name, _ in _core.policies():
        assert name in out
    for word in ("tahoe", "reno", "ubr", "abr", "n_source"):
        assert word in out


def test_schema_prints_json_schema(capsys):
    rc, out, err = _call(capsys, ["schema"])
    assert rc == 0
    schema = json.loads(out)
    assert "properties" in schema
    for key in ("measurement", "defaults", "node", "link", "port", "connection", "seed"):
        assert key in schema["properties"], key
    assert {"measurement", "node", "link", "connection"} <= set(schema["required"])


# --------------------------------------------------------------------------- validate


def test_validate_good_file(capsys, small_toml):
    rc, out, err = _call(capsys, ["validate", str(small_toml)])
    assert rc == 0, err
    assert err == ""
    first = out.splitlines()[0]
    assert first == f"{small_toml}: valid. 8 nodes, 14 ports, 3 connections, 0.5 s."
    assert out.splitlines()[1].startswith("  memory (estimated): ")
    assert "MiB before any cell moves; its cells up to " in out
    assert "route: src3 -> sw1 -> sw2 -> dst3" in out


def test_validate_notes_connections_that_start_after_the_run(capsys, small_toml, tmp_path):
    """A connection starting at or after the run's end is valid (a run cut short to see a
    transient) but sends nothing: ``validate`` says so and names it; none, no note."""
    assert atmsim.validate(small_toml)["late_connections"] == []
    rc, out, err = _call(capsys, ["validate", str(small_toml)])
    assert rc == 0 and "note:" not in out
    sc = atmsim.load_scenario(small_toml)
    sc["connection"][1]["start"] = "0.5 s"
    sc["connection"][2]["start"] = "2 s"
    path = tmp_path / "late.json"
    path.write_text(json.dumps(sc))
    assert atmsim.validate(sc)["late_connections"] == [sc["connection"][i]["name"] for i in (1, 2)]
    rc, out, err = _call(capsys, ["validate", str(path)])
    assert rc == 0, err
    names = f"{sc['connection'][1]['name']}, {sc['connection'][2]['name']}"
    assert (f"  note: 2 connections start at or after the run's end (0.5 s) and send nothing in this run: "
            f"{names}") in out.splitlines()
    sc["connection"][1]["start"] = "0 s"  # one: "1 connection starts", not "1 connection start"
    path.write_text(json.dumps(sc))
    rc, out, err = _call(capsys, ["validate", str(path)])
    assert rc == 0, err
    assert (f"  note: 1 connection starts at or after the run's end (0.5 s) and sends nothing in this run: "
            f"{sc['connection'][2]['name']}") in out.splitlines()


def test_validate_and_run_take_a_json_scenario(capsys, small_toml, tmp_path):
    """``atmsim validate`` and ``run`` take a scenario written as JSON, as the Python API does."""
    path = tmp_path / "small.json"
    path.write_text(json.dumps(atmsim.load_scenario(small_toml)))
    rc, out, err = _call(capsys, ["validate", str(path)])
    assert rc == 0, err
    assert out.splitlines()[0] == f"{path}: valid. 8 nodes, 14 ports, 3 connections, 0.5 s."
    rc, out, err = _call(capsys, ["run", str(path), "--json"])
    assert rc == 0, err
    assert json.loads(out)["cell_hops"] == atmsim.run(small_toml).summary["cell_hops"]


def test_validate_routes_option(capsys, small_toml):
    rc, out, err = _call(capsys, ["validate", str(small_toml), "--routes", "1"])
    assert rc == 0
    assert [ln for ln in out.splitlines() if "route:" in ln] == ["  route: src1 -> sw1 -> sw2 -> dst1"]
    rc, out, err = _call(capsys, ["validate", str(small_toml), "--routes", "0"])
    assert rc == 0 and "route:" not in out
    # A negative count was a slice from the end (all routes but the last N): refused now.
    for bad, says in (("-1", "-1: 0 or more routes"), ("all", "'all': a whole number of routes")):
        rc, out, err = _call(capsys, ["validate", str(small_toml), "--routes", bad])
        assert rc == 2 and f"--routes: {says}" in err and out == "" and "Traceback" not in err


@pytest.mark.parametrize("broken_file", BROKEN, ids=[b[0] for b in BROKEN], indirect=True)
def test_validate_broken_file_is_one_line_error(capsys, broken_file, request):
    key = next(b[3] for b in BROKEN if b[0] == request.node.callspec.id)
    rc, out, err = _call(capsys, ["validate", str(broken_file)])
    _assert_one_line_user_error(rc, out, err, "invalid scenario", key)
    assert out == ""


@pytest.mark.parametrize("broken_file", BROKEN[:2], ids=[b[0] for b in BROKEN[:2]], indirect=True)
def test_run_broken_file_is_one_line_error(capsys, broken_file, tmp_path):
    rc, out, err = _call(capsys, ["run", str(broken_file), "--out", str(tmp_path / "out")])
    _assert_one_line_user_error(rc, out, err, "invalid scenario")
    assert not (tmp_path / "out").exists()


def test_validate_toml_syntax_error_exits_2_without_traceback(capsys, syntax_error_file):
    rc, out, err = _call(capsys, ["validate", str(syntax_error_file)])
    assert rc == 2
    assert "Traceback" not in out + err
    assert err.startswith("atmsim: error: invalid scenario:")
    assert "(line 2)" in err


def test_validate_toml_syntax_error_is_one_line(capsys, syntax_error_file):
    rc, out, err = _call(capsys, ["validate", str(syntax_error_file)])
    _assert_one_line_user_error(rc, out, err, "invalid scenario", "(line 2)")


# --------------------------------------------------------------------------- run


def test_run_writes_results(capsys, small_toml, tmp_path, small_toml_result):
    out_dir = tmp_path / "out"
    rc, out, err = _call(capsys, ["run", str(small_toml), "--out", str(out_dir)])
    assert rc == 0, err
    assert "Traceback" not in err
    assert "efficiency" in out and "fairness (Jain)" in out and "conservation ok" in out
    for name in ("tcp1", "tcp2", "tcp3"):
        assert name in out
    assert f"wrote {out_dir}/" in err
    assert sorted(p.name for p in out_dir.iterdir()) == sorted(SAVED_FILES)
    summary = json.loads((out_dir / "summary.json").read_text())
    assert stable_summary(summary) == stable_summary(small_toml_result.summary)
    conns = pd.read_csv(out_dir / "connections.csv")
    assert list(conns["name"]) == ["tcp1", "tcp2", "tcp3"]
    assert list(conns["goodput_bytes"]) == list(small_toml_result.connections["goodput_bytes"])
    # The saved scenario validates and re-runs identically.
    rerun = atmsim.run(out_dir / "scenario.toml")
    assert stable_summary(rerun.summary) == stable_summary(summary)


def test_run_no_plot(capsys, small_toml, tmp_path):
    rc, out, err = _call(capsys, ["run", str(small_toml), "--out", str(tmp_path), "--no-plot"])
    assert rc == 0
    assert (tmp_path / "summary.json").exists()
    assert not (tmp_path / "run.png").exists()
    assert "run.png" not in err


def test_run_json_prints_the_summary(capsys, small_toml, small_toml_result):
    rc, out, err = _call(capsys, ["run", str(small_toml), "--json"])
    assert rc == 0
    summary = json.loads(out)
    assert stable_summary(summary) == stable_summary(small_toml_result.summary)


# A newcomer's review of large networks: a run without time series, where the time went, the
# table of many connections.

_SECONDS = r"([0-9.]+) (ms|s)"


def _seconds(value: str, unit: str) -> float:
    return float(value) / (1e3 if unit == "ms" else 1.0)


def _time_line(err: str) -> dict[str, float]:
    """The last line of `atmsim run`'s stderr, "wall-clock time: T in all; step T, ...", as
    {"in all": seconds, step: seconds}."""
    import re

    lines = [ln for ln in err.splitlines() if ln.startswith("wall-clock time:")]
    assert len(lines) == 1 and err.rstrip("\n").splitlines()[-1] == lines[0], err
    m = re.fullmatch(rf"wall-clock time: {_SECONDS} in all; (.*)", lines[0])
    assert m, lines[0]
    steps = {"in all": _seconds(m.group(1), m.group(2))}
    for part in re.split(r", (?![^(]*\))", m.group(3)):
        pm = re.fullmatch(rf"(.+?) {_SECONDS}( \(event loop {_SECONDS}\))?", part)
        assert pm, part
        steps[pm.group(1)] = _seconds(pm.group(2), pm.group(3))
        if pm.group(4):
            steps["event loop"] = _seconds(pm.group(5), pm.group(6))
    return steps


def test_run_without_time_series_writes_no_plot_and_says_so(capsys, tmp_path):
    """With sample_interval = "0 s", `run --out` drew run.png as four empty axes (9 s at
    100 000 VCs). Now it writes no plot and says why in one line; the CSV files are written
    as before (a header-only CSV is an empty table)."""
    from conftest import small

    f = tmp_path / "noseries.toml"
    f.write_text(atmsim.to_toml(small(300, duration="5 ms", sample_interval="0 s")))
    out_dir = tmp_path / "out"
    rc, out, err = _call(capsys, ["run", str(f), "--out", str(out_dir)])
    assert rc == 0, err
    assert sorted(p.name for p in out_dir.iterdir()) == sorted(set(SAVED_FILES) - {"run.png"})
    assert [ln for ln in err.splitlines() if "plot" in ln] == ["no time series (sample_interval = 0 s): plot skipped"]
    wrote = [ln for ln in err.splitlines() if ln.startswith("wrote ")]
    assert len(wrote) == 1 and "run.png" not in wrote[0]
    for name in ("port_series", "connection_series"):
        assert len((out_dir / f"{name}.csv").read_text().splitlines()) == 1  # the header
        assert len(pd.read_csv(out_dir / f"{name}.csv")) == 0
    assert "plot drawn" not in _time_line(err)
    # --no-plot: nothing to say about a plot
    rc, out, err = _call(capsys, ["run", str(f), "--out", str(tmp_path / "out2"), "--no-plot"])
    assert rc == 0 and "plot" not in err, err


def test_run_says_where_the_time_went(capsys, small_toml, tmp_path):
    """The summary said "0.5 s simulated in 0.01 s" (the event loop) where the command took
    seconds. The first line now names the event loop's time, and the last line of stderr the
    whole command's wall-clock time and its steps, every figure with its unit."""
    import re

    rc, out, err = _call(capsys, ["run", str(small_toml), "--out", str(tmp_path / "o")])
    assert rc == 0, err
    first = out.splitlines()[0]
    assert re.fullmatch(rf".+: 0\.5 s simulated; event loop {_SECONDS} of wall-clock time \([0-9.]+ M cell-hops/s\)",
                        first), first
    steps = _time_line(err)
    assert {"in all", "run", "event loop", "plot drawn"} <= set(steps), steps
    assert all(v <= steps["in all"] + 0.01 for v in steps.values()), steps
    assert steps["event loop"] <= steps["run"] + 0.01
    assert sum(v for k, v in steps.items() if k not in ("in all", "event loop")) <= steps["in all"] + 0.05
    # --json: stdout is the summary alone; the time goes to stderr
    rc, out, err = _call(capsys, ["run", str(small_toml), "--json"])
    assert rc == 0 and json.loads(out)["name"] and "run" in _time_line(err)


def test_installed_run_counts_the_start_up(small_toml):
    """Run as a program, the whole command's time counts from the process' start (the
    imports are much of a small run's time)."""
    p = subprocess.run([str(VENV_BIN / "atmsim"), "run", str(small_toml)], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    steps = _time_line(p.stderr)
    assert steps["start-up (Python, imports)"] > 0.05 and steps["in all"] >= steps["start-up (Python, imports)"]


def _table(out: str) -> tuple[list[str], list[str], list[str]]:
    """The lines of `atmsim run`'s connections table: header line, the rows shown, the rest."""
    lines = out.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip().startswith("name "))
    return lines[start - 1: start + 1], lines[start + 1:], lines[:start - 1]


@pytest.mark.parametrize("with_out", [False, True])
def test_run_shows_the_connections_with_the_highest_and_lowest_goodput(capsys, tmp_path, with_out):
    """Past 40 connections the table showed the first 40 and said "--out DIR writes them
    all" even with --out. Now it shows the 20 with the highest goodput and the 20 with the
    lowest, says so in its header line, and names the file that holds them all."""
    from atmsim.topology import n_source

    n = 57
    f = tmp_path / "many.toml"
    starts = [f"{(i * 7919) % n * 0.1:.1f} ms" for i in range(n)]  # goodputs spread, not in name order
    f.write_text(atmsim.to_toml(n_source(n, link_delay="5 us", duration="10 ms", buffer="1000 cells",
                                         start_times=starts)))
    out_dir = tmp_path / "out"
    rc, out, err = _call(capsys, ["run", str(f), "--out", str(out_dir)] if with_out else ["run", str(f)])
    assert rc == 0, err
    (header, columns), rows, _ = _table(out)
    assert header == f"  connections by goodput: the 20 highest, then the 20 lowest, of {n}"
    where = f"all of them in {out_dir}/connections.csv" if with_out else "--out DIR writes them all to connections.csv"
    assert rows[20] == f"  ... {n - 40} more connections ({n} in all: {where})"
    assert ("--out DIR" in out) is not with_out
    assert len(rows) == 41, rows  # 20 rows, the line of the others, 20 rows: the end of stdout
    shown = [ln.split()[0] for ln in rows[:20] + rows[21:]]
    r = atmsim.run(f)
    goodput = dict(zip(r.connections["name"], r.connections["goodput_bps"]))
    ranked = sorted(goodput, key=lambda c: -goodput[c])  # stable: ties in the file's order
    assert shown == ranked[:20] + ranked[-20:]
    assert goodput[ranked[0]] > goodput[ranked[-1]]
    if with_out:
        assert len(pd.read_csv(out_dir / "connections.csv")) == n


def test_run_shows_forty_connections_or_fewer_in_order(capsys, tmp_path):
    """Up to 40 connections: all of them, in the scenario's order, no header line."""
    from atmsim.topology import n_source

    f = tmp_path / "forty.toml"
    f.write_text(atmsim.to_toml(n_source(40, link_delay="5 us", duration="2 ms", buffer="1000 cells")))
    rc, out, err = _call(capsys, ["run", str(f)])
    assert rc == 0, err
    (header, columns), rows, _ = _table(out)
    assert header == "" and "more connections" not in out and "connections by goodput" not in out
    assert [ln.split()[0] for ln in rows if ln.strip()] == [f"tcp{i}" for i in range(1, 41)]


def test_run_missing_file(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc, out, err = _call(capsys, ["run", "missing.toml"])
    _assert_one_line_user_error(rc, out, err, "missing.toml", "cannot read")


def test_run_missing_file_without_toml_suffix(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc, out, err = _call(capsys, ["run", "my_scenario"])
    _assert_one_line_user_error(rc, out, err, "my_scenario", "cannot read")


@pytest.mark.parametrize("command", [["validate"], ["run"], ["sweep", "--dry-run"]])
def test_a_file_that_is_not_utf8_is_a_one_line_error(capsys, tmp_path, small_toml, command):
    """A Latin-1 or UTF-16 file was "internal error (please report it): UnicodeDecodeError", exit 3."""
    latin1 = tmp_path / "latin1.toml"
    latin1.write_bytes(small_toml.read_text().replace('name = "', 'name = "caf\u00e9 ', 1).encode("latin-1"))
    utf16 = tmp_path / "utf16.toml"
    utf16.write_bytes(small_toml.read_text().encode("utf-16"))
    for f, words in ((latin1, ["byte 0xe9", "line "]), (utf16, ["byte 0xff", "offset 0", "UTF-16"])):
        rc, out, err = _call(capsys, [command[0], str(f), *command[1:]])
        _assert_one_line_user_error(rc, out, err, str(f), "is not UTF-8 text", "must be UTF-8", *words)


def test_run_checks_out_before_the_run(capsys, small_toml, tmp_path):
    """A bad --out was found only after the whole run (its results lost), and named a temporary
    file ('/proc/.foo.tmp-544af4e0') or said 'File exists' for a path under a file. Now it is
    refused before the run starts (nothing on stdout: no summary), naming the --out value."""
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    rc, out, err = _call(capsys, ["run", str(small_toml), "--out", str(a_file)])
    _assert_one_line_user_error(rc, out, err, f"--out {str(a_file)!r} is a file")
    assert out == "" and a_file.read_text() == "x"
    cases = [(a_file / "sub", [f"{str(a_file)!r} is not a directory"]),
             (a_file / "sub" / "deeper", [f"{str(a_file)!r} is not a directory"])]
    if Path("/proc/self").is_dir():
        cases.append((Path("/proc/atmsim-test-out"), ["cannot write in '/proc'"]))
    for bad, words in cases:
        rc, out, err = _call(capsys, ["run", str(small_toml), "--out", str(bad)])
        assert rc == 1 and out == "", (rc, out, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("atmsim: error:"), err
        for w in [f"--out {str(bad)!r}", *words]:
            assert w in lines[0], (w, lines[0])
        assert ".tmp" not in err and "File exists" not in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]
    # A new directory under missing parents is still made, and the check leaves no probe behind.
    rc, out, err = _call(capsys, ["run", str(small_toml), "--out", str(tmp_path / "n" / "m"), "--no-plot"])
    assert rc == 0, err
    assert [p.name for p in (tmp_path / "n").iterdir()] == ["m"]


def test_trace_dir_without_a_trace_is_refused(capsys, small_toml, tmp_path):
    """``--trace-dir`` alone was ignored without a word (nothing is traced without --trace)."""
    rc, out, err = _call(capsys, ["run", str(small_toml), "--trace-dir", str(tmp_path / "t")])
    _assert_one_line_user_error(rc, out, err, "nothing is traced without --trace")
    assert out == "" and not (tmp_path / "t").exists()


def test_run_reads_the_scenario_once(small_toml):
    """`atmsim run /dev/stdin` read the file twice: "missing field `measurement` ... is it cut short?"."""
    if not Path("/dev/stdin").exists():
        pytest.skip("no /dev/stdin")
    text = small_toml.read_text()
    p = subprocess.run([str(VENV_BIN / "atmsim"), "run", "/dev/stdin", "--json"], input=text,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["name"] == "test: small UBR, 3 sources, tail drop"
    p = subprocess.run([str(VENV_BIN / "atmsim"), "run", "/dev/stdin"], input=text.replace("[measurement]", "[sweep]"),
                       capture_output=True, text=True, timeout=120)
    _assert_one_line_user_error(p.returncode, p.stdout, p.stderr, "is a sweep file")


def test_run_a_directory(capsys, tmp_path):
    rc, out, err = _call(capsys, ["run", str(tmp_path)])
    _assert_one_line_user_error(rc, out, err, str(tmp_path))


# --------------------------------------------------------------------------- reproduce


def test_reproduce_unknown_experiment(capsys, tmp_path):
    rc, out, err = _call(capsys, ["reproduce", "no-such-id", "--out", str(tmp_path / "x")])
    _assert_one_line_user_error(rc, out, err, "no-such-id", "ubr-plus")
    assert not (tmp_path / "x").exists()


# --------------------------------------------------------------------------- the installed command


def _atmsim(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    exe = VENV_BIN / "atmsim"
    assert exe.exists(), exe
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=120, cwd=cwd)


def test_installed_command_help_and_validate(small_toml, tmp_path):
    p = _atmsim("--help")
    assert p.returncode == 0 and "examples:" in p.stdout
    p = _atmsim("validate", str(small_toml))
    assert p.returncode == 0 and "valid." in p.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text(small_toml.read_text().replace('"155.52 Mbps"', '"155 furlongs"', 1))
    p = _atmsim("validate", str(bad))
    _assert_one_line_user_error(p.returncode, p.stdout, p.stderr, "defaults.link_rate", "furlongs")


def test_installed_command_run_and_errors(small_toml, tmp_path):
    p = _atmsim("run", str(small_toml), "--out", str(tmp_path / "out"))
    assert p.returncode == 0, p.stderr
    assert sorted(x.name for x in (tmp_path / "out").iterdir()) == sorted(SAVED_FILES)
    p = _atmsim("run", "missing.toml", cwd=tmp_path)
    _assert_one_line_user_error(p.returncode, p.stdout, p.stderr, "missing.toml")
    p = _atmsim("reproduce", "no-such-id", cwd=tmp_path)
    _assert_one_line_user_error(p.returncode, p.stdout, p.stderr, "no-such-id")


# --------------------------------------------------------------------------- bench (slow)


@pytest.mark.slow
def test_bench_json(capsys):
    rc, out, err = _call(capsys, ["bench", "--json", "--repeat", "1"])
    assert rc == 0
    r = json.loads(out)
    assert set(r) == {"cell_hops_per_second", "events_per_second", "wall_seconds"}
    assert all(v > 0 for v in r.values())


def test_a_refused_run_gets_no_heavy_run_warning_first(tmp_path):
    # A newcomer's review: a run refused for its memory first warned that it "may take up to
    # about 1.5e+10 events": the refusal now comes alone.
    import os

    from atmsim.bench import scale_scenario

    path = tmp_path / "big.json"
    path.write_text(json.dumps(scale_scenario("ubr-fba-tcp", "bottleneck", 10_000, "0.5 s")))
    env = dict(os.environ, ATMSIM_MEMORY_LIMIT="20 MiB")
    p = subprocess.run([str(VENV_BIN / "atmsim"), "run", str(path)], capture_output=True, text=True,
                       timeout=120, env=env)
    assert p.returncode != 0 and "needs an estimated" in p.stderr, p.stderr
    assert "may take up to" not in p.stderr, p.stderr
    env["ATMSIM_MEMORY_LIMIT"] = "off"
    p = subprocess.run([str(VENV_BIN / "atmsim"), "validate", str(path)], capture_output=True, text=True,
                       timeout=120, env=env)
    assert p.returncode == 0, p.stderr
