"""The command and the scenario reader under hostile input and a hostile system (the
fifty-fifth session, a newcomer's review): a scenario file too large for the memory or a
stream that never ends, a closed stdout, a partial run's missing figures, nesting too deep
for a parser, a full disk blamed on the right file, ``--out`` over the scenario file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import atmsim
from conftest import call_cli

ROOT = Path(__file__).resolve().parent.parent
SMALL = ROOT / "tests" / "data" / "small_ubr.toml"
ENV = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(atmsim.__file__)))
MIB = 2**20


def cli(*args: str, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "atmsim.cli", *args], capture_output=True, text=True,
                          timeout=120, env=dict(ENV, **(env or {})), **kw)


_call = call_cli  # main(argv) -> (status, stdout, stderr)


def _one_error_line(err: str) -> str:
    assert "Traceback" not in err and "panicked" not in err, err
    lines = err.strip("\n").splitlines()
    assert len(lines) == 1 and lines[0].startswith("atmsim: error:"), err
    return lines[0]


def _memory_cap(n: int):
    """A child's address space held to ``n`` bytes: without the cap on reading, a stream
    that never ends fails there with MemoryError instead of taking the machine's memory."""
    def apply() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (n, n))
    return apply


# ---------------------------------------------------------------- 1. files too large to read


@pytest.mark.parametrize("value, size", [
    ("48 GiB", 48 * 2**30), ("1.5 MB", 1_500_000), ("2KB", 2048), ("2 KiB", 2048), ("3 kB", 3000),
    (" 1 TiB ", 2**40), ("7 B", 7), ("off", None), ("OFF", None),
])
def test_the_memory_limit_is_read_as_the_engine_reads_it(value, size, monkeypatch):
    from atmsim.scenario import memory_limit

    monkeypatch.setenv("ATMSIM_MEMORY_LIMIT", value)
    assert memory_limit()[0] == size


@pytest.mark.parametrize("value", ["lots", "12", "1 gib", "0.5 B", "", "1e9 B", "-1 GiB", ". MiB"])
def test_a_memory_limit_the_engine_refuses_is_not_a_size(value, monkeypatch):
    from atmsim.scenario import memory_limit

    monkeypatch.setenv("ATMSIM_MEMORY_LIMIT", value)
    with pytest.raises(ValueError):
        memory_limit()
    assert memory_limit(available_if_bad=True)[1] == "MemAvailable in /proc/meminfo"


def test_the_scenario_file_cap_is_a_32nd_of_the_memory_limit(monkeypatch):
    from atmsim.scenario import scenario_file_cap

    monkeypatch.setenv("ATMSIM_MEMORY_LIMIT", "64 GiB")
    assert scenario_file_cap() == (2 * 2**30, 'ATMSIM_MEMORY_LIMIT = "64 GiB"')
    monkeypatch.setenv("ATMSIM_MEMORY_LIMIT", "1 GiB")
    assert scenario_file_cap()[0] == 64 * MIB  # the floor
    monkeypatch.setenv("ATMSIM_MEMORY_LIMIT", "off")
    assert scenario_file_cap()[0] is None
    monkeypatch.setenv("ATMSIM_MEMORY_LIMIT", "lots")  # the engine says what is wrong with it
    assert scenario_file_cap()[1] == "MemAvailable in /proc/meminfo"


def test_a_scenario_file_larger_than_the_cap_is_refused_unread(monkeypatch, tmp_path):
    from atmsim.scenario import read_scenario_file

    big = tmp_path / "big.toml"
    with open(big, "wb") as f:
        f.truncate(100 * MIB)  # sparse: no disk, and nothing in memory unless it is read
    monkeypatch.setenv("ATMSIM_MEMORY_LIMIT", "1 GiB")
    with pytest.raises(atmsim.MemoryLimitError) as e:
        atmsim.validate(big)
    for words in (repr(str(big)), "100.0 MiB (104857600 bytes)", "at most 64.0 MiB", 'ATMSIM_MEMORY_LIMIT = "1 GiB"'):
        assert words in str(e.value), (words, str(e.value))
    r = cli("validate", str(big), env={"ATMSIM_MEMORY_LIMIT": "1 GiB"}, preexec_fn=_memory_cap(3 * 2**30))
    line = _one_error_line(r.stderr)
    assert r.returncode == 2 and "100.0 MiB" in line and "at most 64.0 MiB" in line, r.stderr
    monkeypatch.setenv("ATMSIM_MEMORY_LIMIT", "off")  # no cap: read
    assert len(read_scenario_file(big)) == 100 * MIB


def test_a_stream_that_never_ends_stops_at_the_cap():
    for args, stdin in ((["validate", "/dev/zero"], None), (["run", "/dev/stdin"], "/dev/zero")):
        with open(stdin or os.devnull, "rb") as source:
            r = cli(*args, env={"ATMSIM_MEMORY_LIMIT": "1 GiB"}, stdin=source,
                    preexec_fn=_memory_cap(3 * 2**30))
        line = _one_error_line(r.stderr)
        assert r.returncode == 2 and "is more than 64.0 MiB" in line and args[1] in line, r.stderr


def test_a_scenario_under_the_cap_reads_as_before(monkeypatch):
    from atmsim.scenario import read_scenario_file

    monkeypatch.setenv("ATMSIM_MEMORY_LIMIT", "1 GiB")
    assert read_scenario_file(SMALL) == SMALL.read_text(encoding="utf-8")
    r = cli("run", "/dev/stdin", "--json", env={"ATMSIM_MEMORY_LIMIT": "1 GiB"}, input=SMALL.read_text())
    assert r.returncode == 0 and json.loads(r.stdout)["cells_sent"] > 0, r.stderr


# ---------------------------------------------------------------- 2. a closed stdout


def test_a_closed_stdout_is_one_line_and_a_failure():
    r = subprocess.run([sys.executable, "-m", "atmsim.cli", "schema"], stdout=None, stderr=subprocess.PIPE,
                       text=True, env=ENV, timeout=60, preexec_fn=lambda: os.close(1))
    line = _one_error_line(r.stderr)
    assert r.returncode == 1 and "stdout is closed" in line, r.stderr


# ---------------------------------------------------------------- 3. a partial run


@pytest.mark.parametrize("budget", [["--max-events", "1"], ["--max-wall", "1e-9"]])
def test_a_partial_run_prints_what_it_could_not_measure_and_writes_its_files(capsys, tmp_path, budget):
    out = tmp_path / "res"
    rc, stdout, err = _call(capsys, ["run", str(SMALL), *budget, "--out", str(out), "--no-plot"])
    assert rc == 4, err
    assert "internal error" not in err and "atmsim: partial results:" in err, err
    assert "efficiency       n/a  (goodput n/a of max" in stdout and "fairness (Jain)  n/a" in stdout, stdout
    assert (out / "summary.json").is_file() and (out / "connections.csv").is_file()
    assert json.loads((out / "summary.json").read_text())["partial"]


# ---------------------------------------------------------------- 4. nesting too deep


@pytest.mark.parametrize("name, text", [
    ("deep.toml", "a = " + "[" * 500 + "]" * 500 + "\n"),
    ("deep_tables.toml", "a = " + "{b=" * 500 + "}" * 500 + "\n"),
    ("deep.json", '{"a":' * 100_000 + "\n"),
    ("deep_closed.json", '{"a":' * 5000 + "1" + "}" * 5000 + "\n"),
])
@pytest.mark.parametrize("command", ["validate", "run"])
def test_nesting_too_deep_is_one_clear_error(capsys, tmp_path, name, text, command):
    path = tmp_path / name
    path.write_text(text)
    rc, out, err = _call(capsys, [command, str(path)])
    line = _one_error_line(err)
    assert rc == 2 and "nested too deeply" in line and "internal error" not in line, err
    with pytest.raises(atmsim.ScenarioError, match="nested too deeply"):
        atmsim.load_scenario(path)


def test_a_dict_nested_too_deeply_is_a_scenario_error():
    sc: dict = {"name": "x"}
    inner = sc
    for _ in range(5000):
        inner["a"] = {}
        inner = inner["a"]
    with pytest.raises(atmsim.ScenarioError, match="nested too deeply"):
        atmsim.validate(sc)


# ---------------------------------------------------------------- 5. a full disk, not stdout


def _file_size_limit(n: int):
    def apply() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (n, n))  # Python ignores SIGXFSZ: writes fail (EFBIG)
    return apply


def test_a_trace_on_a_full_disk_names_trace_dir_not_stdout(tmp_path):
    traces = tmp_path / "tt"
    r = cli("run", str(SMALL), "--trace", "all", "--trace-dir", str(traces), preexec_fn=_file_size_limit(4000))
    line = _one_error_line(r.stderr)  # and no "Exception ignored" from the trace writer's destructor
    assert r.returncode == 1 and "stdout" not in line and f"--trace-dir {str(traces)!r}" in line, r.stderr
    assert "File too large" in line, line


def test_a_file_error_names_the_file_and_its_option():
    import errno
    from argparse import Namespace

    from atmsim.cli import _file_error

    a = Namespace(out="/tmp/o", trace_dir=None)
    e = OSError(errno.ENOSPC, "No space left on device", "/tmp/o/ports.csv")
    assert _file_error(a, e) == "'/tmp/o/ports.csv': No space left on device (--out '/tmp/o')"
    e = OSError(errno.ENOSPC, "No space left on device")
    assert _file_error(a, e) == "cannot write the output (--out '/tmp/o'): No space left on device"
    assert _file_error(Namespace(), e) == "No space left on device"
    e = OSError(errno.EACCES, "Permission denied", "/etc/x")
    assert _file_error(a, e) == "'/etc/x': Permission denied"


def test_stdout_on_a_full_device_is_still_blamed_on_stdout():
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "atmsim.cli", "run", str(SMALL)], stdout=full,
                           stderr=subprocess.PIPE, text=True, env=ENV, timeout=120)
    line = _one_error_line(r.stderr)
    assert r.returncode == 1 and "(stdout)" in line and "No space left" in line, r.stderr


# ---------------------------------------------------------------- 6. --out over the scenario file


def test_run_out_refuses_to_overwrite_the_scenario_file(capsys, tmp_path, monkeypatch):
    shutil.copyfile(SMALL, tmp_path / "scenario.toml")
    before = (tmp_path / "scenario.toml").read_bytes()
    monkeypatch.chdir(tmp_path)
    rc, out, err = _call(capsys, ["run", "scenario.toml", "--out", "."])
    line = _one_error_line(err)
    assert rc == 2 and "--out '.'" in line and "'scenario.toml'" in line, err
    assert (tmp_path / "scenario.toml").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scenario.toml"]
    shutil.copyfile(SMALL, tmp_path / "mine.toml")  # another name in the same directory: written
    rc, out, err = _call(capsys, ["run", "mine.toml", "--out", ".", "--no-plot"])
    assert rc == 0 and (tmp_path / "summary.json").is_file(), err


def test_an_error_in_a_destructor_is_one_line_not_a_traceback(capsys, monkeypatch):
    import errno

    import atmsim.cli as cli_module

    class ClosesOnAFullDisk:
        def __del__(self):
            raise OSError(errno.ENOSPC, "No space left on device", "/tmp/o/x.parquet")

    def command(a):
        ClosesOnAFullDisk()  # dropped at once: its error cannot be raised to the command
        return 0

    monkeypatch.setattr(cli_module, "cmd_schema", command)
    hook = sys.unraisablehook
    rc, out, err = _call(capsys, ["schema"])
    line = _one_error_line(err)
    assert rc == 1 and line == "atmsim: error: '/tmp/o/x.parquet': No space left on device", err
    assert sys.unraisablehook is hook  # put back
