"""The research workbench (issue 16): fast import, no forced plot backend, Ctrl-C and a
progress bar in long runs, HTML repr, plots that scale, TOML writing, store files that
name their point, packaging."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

import atmsim
from atmsim.bench import bench_scenario
from conftest import REPO, small

PY = sys.executable


def _python(code: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=120, **kw)


def _cumulative_import_us(stderr: str, module: str) -> int:
    for line in stderr.splitlines():
        parts = [p.strip() for p in line.removeprefix("import time:").split("|")]
        if len(parts) == 3 and parts[2] == module:
            return int(parts[1])
    raise AssertionError(f"no import time line for {module}")


def test_import_is_light_and_fast():
    """pandas, pyarrow and matplotlib load only when used; `import atmsim` <= 0.15 s
    (best of five, the machine may be busy)."""
    r = _python("import sys, atmsim; print(sorted(m for m in ('pandas', 'pyarrow', 'matplotlib') if m in sys.modules))")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"
    best = min(_cumulative_import_us(subprocess.run([PY, "-X", "importtime", "-c", "import atmsim"],
                                                    capture_output=True, text=True).stderr, "atmsim")
               for _ in range(5))
    assert best <= 150_000, f"import atmsim took {best / 1e3:.0f} ms"


def test_lazy_names_resolve():
    for name in atmsim.__all__:
        assert getattr(atmsim, name) is not None
    assert "run" in dir(atmsim)
    with pytest.raises(AttributeError):
        atmsim.no_such_name  # noqa: B018


def test_no_backend_forced_by_import():
    """Importing atmsim and its plots module leaves matplotlib's backend to the user."""
    code = ("import matplotlib; matplotlib.use('svg'); import atmsim, atmsim.plots, atmsim.report; "
            "import matplotlib as m; print(m.get_backend())")
    r = _python(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "svg"


def test_cli_uses_agg_without_display(tmp_path):
    r = subprocess.run([PY, "-m", "atmsim", "run", str(REPO / "examples" / "ubr_small.toml"), "--out", str(tmp_path)],
                       capture_output=True, text=True, env={**os.environ, "MPLBACKEND": "", "DISPLAY": ""})
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "run.png").stat().st_size > 10_000


def test_python_dash_m_help():
    r = subprocess.run([PY, "-m", "atmsim", "--help"], capture_output=True, text=True)
    assert r.returncode == 0
    assert "usage: atmsim" in r.stdout


_INTERRUPTED_RUN = """
import sys, time, atmsim
from atmsim.bench import bench_scenario
print("started", flush=True)
try:
    atmsim.run(bench_scenario("200 s"), progress=False)
except KeyboardInterrupt:
    print("KeyboardInterrupt", repr(time.time()), flush=True)
    sys.exit(0)
print("finished", flush=True)
"""


def test_ctrl_c_stops_a_run_within_0_2_s():
    """SIGINT 1.5 s into a run of minutes: KeyboardInterrupt is raised within 0.2 s."""
    p = subprocess.Popen([PY, "-c", _INTERRUPTED_RUN], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "started"
        time.sleep(1.5)
        sent = time.time()
        p.send_signal(signal.SIGINT)
        out, _ = p.communicate(timeout=30)
    finally:
        p.kill()
    word, when = out.split()
    assert word == "KeyboardInterrupt"
    assert float(when) - sent < 0.2, f"latency {float(when) - sent:.3f} s"


def test_watched_run_gives_the_same_results():
    """Running in slices of simulated time (for progress and Ctrl-C) changes nothing."""
    from atmsim import _core

    text = json.dumps(atmsim.load_scenario(REPO / "examples" / "ubr_small.toml"))
    calls = []
    plain = json.loads(_core.run_json(text))
    watched = json.loads(_core.run_json_watched(text, lambda reached, duration: calls.append(reached)))
    for r in (plain, watched):
        for k in ("wall_seconds", "cell_hops_per_second", "events_per_second"):
            r["summary"].pop(k)
    assert plain == watched


def test_progress_callback_error_stops_the_run():
    from atmsim import _core

    def boom(t, duration):
        raise ValueError(f"stop at {t}")

    text = json.dumps(bench_scenario("200 s"))
    t0 = time.monotonic()
    with pytest.raises(ValueError, match="stop at"):
        _core.run_json_watched(text, boom)
    assert time.monotonic() - t0 < 2


def test_progress_gets_the_time_reached_and_the_duration():
    """The engine hands the progress callback the run's duration with the time reached,
    so the bar needs no second read of the scenario."""
    from atmsim import _core

    calls = []
    _core.run_json_watched(json.dumps(bench_scenario("4 s")), lambda s, d: calls.append((s, d)))
    assert calls, "a run of several tenths of a second reports progress"
    reached = [s for s, _ in calls]
    assert all(d == 4.0 for _, d in calls)
    assert reached == sorted(reached) and 0 <= reached[0] and reached[-1] <= 4.0


def test_progress_bar_shows_simulated_time(capsys):
    r = atmsim.run(bench_scenario("2 s"), progress=True)
    err = capsys.readouterr().err
    assert "s simulated" in err and "100%" in err
    assert r.summary["duration_s"] == 2
    atmsim.run(bench_scenario("1 s"), progress=False)
    assert "simulated" not in capsys.readouterr().err


def test_repr_html():
    r = atmsim.run(small(2))
    page = r._repr_html_()
    assert "<table" in page and "efficiency" in page
    assert all(name in page for name in r.connections["name"])


def test_to_toml_round_trips_non_bmp_text():
    sc = atmsim.load_scenario(small(2))
    sc["name"] = "bottleneck \U0001F680 test \u00e9"
    text = atmsim.to_toml(sc)
    assert tomllib.loads(text)["name"] == sc["name"]
    assert atmsim.load_scenario(text)["name"] == sc["name"]  # the engine's parser
    assert atmsim.run(text).summary["name"] == sc["name"]


def _legend_outside_axes(fig) -> None:
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is None:
            continue
        lb, ab = leg.get_window_extent(r), ax.get_window_extent(r)
        assert lb.x0 >= ab.x1 - 1, f"legend of {ax.get_ylabel()!r} overlaps its axes"
        assert len(leg.get_texts()) <= 8


@pytest.mark.parametrize("service", ["ubr", "abr"])
def test_fifteen_source_plot_is_readable(tmp_path, service):
    """15 sources: bands and a few labelled lines, legends beside the axes, never over data."""
    kw = dict(service="abr", abr={"icr": "10 Mbps"}, allocator={"kind": "erica"}) if service == "abr" else {}
    r = atmsim.run(small(15, duration="20 ms", sample_interval="1 ms", **kw))
    fig = r.plot()
    try:
        _legend_outside_axes(fig)
        labels = [t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()]
        assert any(t.startswith("median of") for t in labels)
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)
    png = r.plot(tmp_path / "run.png")
    assert png.stat().st_size > 10_000


def test_few_sources_keep_one_line_each():
    r = atmsim.run(small(3, duration="20 ms", sample_interval="1 ms"))
    fig = r.plot()
    labels = [t.get_text() for t in fig.axes[3].get_legend().get_texts()]
    assert sorted(labels) == sorted(r.connections["name"])


def test_store_files_carry_point_id(tmp_path):
    import pyarrow.dataset as ds

    spec = {"name": "pid", "base": {"topology": "n_source",
                                    "args": {"n": 2, "duration": "20 ms", "link_delay": "5 us"}},
            "sweep": {"seeds": 1, "parameters": {"args.n": [2, 3]}}}
    res = atmsim.sweep(spec, out=tmp_path / "s", backend="threads", workers=1, progress=False)
    ids = set(res.df["point_id"])
    assert len(ids) == 2
    for name in ("connections", "ports", "port_series", "connection_series"):
        files = sorted(str(p) for p in (tmp_path / "s" / "points").glob(f"*/{name}.parquet"))
        table = ds.dataset(files, format="parquet").to_table().to_pandas()
        assert set(table["point_id"]) == ids, name
    pid = res.df["point_id"][0]
    assert "point_id" not in res.connections(pid).columns  # the per-point API is unchanged


def test_package_is_typed():
    pkg = Path(atmsim.__file__).parent
    assert (pkg / "py.typed").is_file()
    stub = (pkg / "_core.pyi").read_text()
    for name in ("def run_json(", "def run_json_watched(", "class ScenarioError(", "def validate("):
        assert name in stub
    assert (REPO / "LICENSE").read_text().startswith("MIT License")


# --------------------------------------------------------------------------- CLI rough edges (issue 16 item 9)

from conftest import run_cli  # noqa: E402

_SWEEP = '''name = "t"
[base]
topology = "n_source"
[base.args]
n = 2
duration = "20 ms"
[sweep]
seeds = 1
[sweep.parameters]
"defaults.switch_buffer" = {spec}
'''


def test_dry_run_fails_when_no_point_is_valid(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(_SWEEP.format(spec='["-1 cells", "-3 cells"]'))
    rc, out, err = run_cli(["sweep", str(f), "--dry-run", "--out", str(tmp_path / "o")])
    assert rc == 1 and "0 valid, 2 invalid" in out and "nothing would run" in err
    f.write_text(_SWEEP.format(spec='["200 cells", "-3 cells"]'))
    rc, out, err = run_cli(["sweep", str(f), "--dry-run", "--out", str(tmp_path / "o")])
    assert rc == 0 and "1 valid, 1 invalid" in out


def test_values_with_a_unit(tmp_path):
    from atmsim.sweeps import SweepError, load_sweep_file

    f = tmp_path / "s.toml"
    f.write_text(_SWEEP.format(spec='{ values = [500, 1000], unit = "cells" }'))
    spec = load_sweep_file(f)
    assert [p.params["defaults.switch_buffer"] for p in spec.points()] == [500, 1000]
    assert [p.scenario["defaults"]["switch_buffer"] for p in spec.points()] == ["500 cells", "1000 cells"]
    f.write_text(_SWEEP.format(spec='{ values = ["500 cells"], unit = "cells" }'))
    with pytest.raises(SweepError, match="plain numbers"):
        load_sweep_file(f)
    f.write_text(_SWEEP.format(spec='{ values = [500], step = 3 }'))
    with pytest.raises(SweepError, match="step is a range key"):
        load_sweep_file(f)


def test_run_and_sweep_point_to_each_other(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(_SWEEP.format(spec="[200]"))
    rc, _, err = run_cli(["run", str(f)])
    assert rc == 2 and f"atmsim sweep {f}" in err and len(err.strip().splitlines()) == 1
    scenario = REPO / "examples" / "ubr_small.toml"
    rc, _, err = run_cli(["sweep", str(scenario)])
    assert rc == 2 and f"atmsim run {scenario}" in err and len(err.strip().splitlines()) == 1


def test_ray_start_is_announced(monkeypatch):
    """Before the seconds a local Ray instance takes to start, a line says so."""
    import atmsim.cli as cli

    seen = []

    class Stop(Exception):
        pass

    def fake_sweep(*a, **kw):
        seen.append("sweep")
        raise Stop

    monkeypatch.setattr("atmsim.parallel.check_backend", lambda *a, **kw: None)
    monkeypatch.setattr(atmsim, "sweep", fake_sweep)
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(Stop):
        cli.cmd_sweep(cli.build_parser().parse_args(["sweep", str(REPO / "examples" / "sweeps" / "ubr_buffers.toml"),
                                                     "--backend", "ray"]))
    assert seen == ["sweep"] and "starting a local Ray instance" in err.getvalue()
