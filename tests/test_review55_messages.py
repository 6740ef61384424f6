"""The fifty-fifth session's review (a newcomer's), its messages: ``reproduce --out`` over
other people's files, ``sweep --dry-run`` against the real sweep's checks, output paths
named by their option before any run, misleading messages, and empty values taken as not
given. Each bad input is one line naming the option or key, the value and what is allowed."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from conftest import DATA, REPO, run_cli

TINY = REPO / "examples" / "sweeps" / "tiny.toml"
SMALL = DATA / "small_ubr.toml"


def one_line(argv: list[str], rc: int, *words: str) -> str:
    code, out, err = run_cli(argv)
    assert code == rc, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("atmsim: error:"), err
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    f = tmp_path / "afile"
    f.write_text("mine\n")
    return f


def sweep_file(tmp_path: Path, scenario: str, parameter: str = '"defaults.switch_buffer" = [100, 200]') -> Path:
    """A sweep file in tmp_path on base scenario ``scenario`` (relative to it)."""
    f = tmp_path / "sw.toml"
    f.write_text(f'name = "t"\n[base]\nscenario = "{scenario}"\n[sweep]\nseeds = 1\n[sweep.parameters]\n{parameter}\n')
    return f


# --------------------------------------------------------------------------- 1. reproduce --out

def test_reproduce_refuses_a_folder_of_other_files(tmp_path):
    """`reproduce --out p` overwrote p/report.md, someone else's file, without a word."""
    p = tmp_path / "p"
    p.mkdir()
    (p / "report.md").write_text("mine\n")
    one_line(["reproduce", "ubr-plus", "--quick", "--no-progress", "--out", str(p)], 2,
             f"--out {str(p)!r}", "not a reproduction's folder", "provenance.json")
    assert (p / "report.md").read_text() == "mine\n" and sorted(x.name for x in p.iterdir()) == ["report.md"]


def test_reproduce_refuses_another_experiments_folder(tmp_path):
    p = tmp_path / "p"
    p.mkdir()
    (p / "provenance.json").write_text(json.dumps({"experiment": "worst-case", "quick": True}))
    one_line(["reproduce", "ubr-plus", "--quick", "--no-progress", "--out", str(p)], 2,
             "holds the reproduction 'worst-case', not 'ubr-plus'")


def test_an_earlier_reproduction_may_be_written_again(tmp_path):
    from atmsim.experiments.provenance import refuse_foreign_folder

    p = tmp_path / "p"
    p.mkdir()
    refuse_foreign_folder(p, "ubr-plus")  # empty
    (p / "report.md").write_text("old\n")
    (p / "provenance.json").write_text(json.dumps({"experiment": "ubr-plus", "quick": True}))
    refuse_foreign_folder(p, "ubr-plus")  # its own earlier output
    with pytest.raises(ValueError, match="not 'worst-case'"):
        refuse_foreign_folder(p, "worst-case")


# --------------------------------------------------------------------------- 2. --dry-run checks

def test_dry_run_checks_the_cache_hints_variable(tmp_path, monkeypatch):
    """`ATMSIM_CACHE_HINTS=maybe atmsim sweep --dry-run` said "8 to run"; the sweep refuses."""
    monkeypatch.setenv("ATMSIM_CACHE_HINTS", "maybe")
    one_line(["sweep", str(TINY), "--dry-run", "--out", str(tmp_path / "x")], 2, "ATMSIM_CACHE_HINTS", "maybe")


def test_dry_run_checks_the_memory_limit_variable(tmp_path, monkeypatch):
    """With a scenario-file base nothing read ATMSIM_MEMORY_LIMIT before the points ran."""
    f = sweep_file(tmp_path, str(SMALL))
    monkeypatch.setenv("ATMSIM_MEMORY_LIMIT", "abc")
    one_line(["sweep", str(f), "--dry-run", "--out", str(tmp_path / "x")], 2, "ATMSIM_MEMORY_LIMIT", "abc")


def test_dry_run_checks_point_memory_against_the_backend(tmp_path):
    one_line(["sweep", str(TINY), "--dry-run", "--out", str(tmp_path / "x"), "--point-memory", "1",
              "--backend", "ray"], 2, "--point-memory '1'", "--backend local", "--backend is 'ray'")


def test_dry_run_checks_the_store(tmp_path, a_file):
    one_line(["sweep", str(TINY), "--dry-run", "--out", str(tmp_path)], 2,
             f"--out {str(tmp_path)!r}", "not an atmsim sweep store")


# --------------------------------------------------------------------------- 3. output paths

def test_sweep_out_under_a_file(a_file):
    """'afile/x/points': Not a directory, without the option."""
    one_line(["sweep", str(TINY), "--no-progress", "--out", str(a_file / "x")], 1,
             f"--out {str(a_file / 'x')!r}", f"{str(a_file)!r} is not a directory")


def test_sweep_store_with_a_directory_for_its_sweep_file(tmp_path):
    """`rm DIR/sweep.toml; mkdir DIR/sweep.toml` said only "'DIR/sweep.toml': Is a directory"."""
    import atmsim

    st = tmp_path / "st"
    atmsim.sweep(TINY, out=st, progress=False, backend="threads", workers=1)
    (st / "sweep.toml").unlink()
    (st / "sweep.toml").mkdir()
    one_line(["sweep", str(TINY), "--no-progress", "--out", str(st)], 2,
             f"--out {str(st)!r}", "sweep.toml", "Is a directory")


@pytest.mark.parametrize("command", [["reproduce", "ubr-plus", "--quick", "--no-progress"],
                                     ["scorecard", "--quick", "--no-progress"]])
def test_out_that_is_a_file_is_refused_before_running(command, a_file):
    """'afile': File exists (exit 1), for scorecard only after all its runs."""
    code, out, err = run_cli([*command, "--out", str(a_file)])
    assert code == 2 and out == "", (code, err)
    assert err.strip() == f"atmsim: error: --out {str(a_file)!r} is a file; give a directory", err
    assert a_file.read_text() == "mine\n"


def test_trace_dir_that_is_a_file(a_file):
    one_line(["run", str(SMALL), "--trace", "drop", "--trace-dir", str(a_file)], 2,
             f"--trace-dir {str(a_file)!r} is a file")


# --------------------------------------------------------------------------- 4. messages

def test_point_memory_in_pib_agrees_with_its_range(tmp_path):
    code, _, err = run_cli(["sweep", str(TINY), "--dry-run", "--out", str(tmp_path / "x"), "--point-memory", "1 PiB"])
    assert code == 0, err
    one_line(["sweep", str(TINY), "--dry-run", "--out", str(tmp_path / "x"), "--point-memory", "2 PiB"], 2,
             "2 PiB", "from 1 MiB to 1 PiB")


def test_point_memory_off_the_local_backend_names_both_options(tmp_path):
    one_line(["sweep", str(TINY), "--no-progress", "--out", str(tmp_path / "x"), "--point-memory", "512MiB",
              "--backend", "threads"], 2, "--point-memory '512MiB'", "--backend is 'threads'")
    assert not (tmp_path / "x").exists()


def test_negative_index_in_a_parameter_path(tmp_path):
    """"link.-1.length" suggested "e.g. link.0.-1"."""
    f = sweep_file(tmp_path, str(SMALL), '"link.-1.length" = ["1 km", "2 km"]')
    err = one_line(["sweep", str(f), "--dry-run"], 2, "link has no element -1", "indices count from 0")
    assert "link.0.-1" not in err


def test_trace_all_in_a_list():
    one_line(["run", str(SMALL), "--trace", "all,drop"], 2, "--trace 'all,drop'", '"all" stands alone', "drop, tcp")
    one_line(["run", str(SMALL), "--trace", "drop,bogus"], 2, "--trace 'drop,bogus'", "'bogus' is not an event kind")


def test_base_scenario_that_is_a_sweep_file(tmp_path):
    """A sweep file as its own base: every point failed with "base: unknown field `base`"."""
    f = sweep_file(tmp_path, "sw.toml")
    one_line(["sweep", str(f), "--dry-run"], 2, 'base.scenario = "sw.toml"', "is a sweep file")


def test_base_scenario_that_is_a_directory_says_why(tmp_path):
    f = sweep_file(tmp_path, ".")
    one_line(["sweep", str(f), "--dry-run"], 2, 'base.scenario = "."', "Is a directory")


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="needs ray")
def test_http_address_is_one_line(tmp_path):
    """Ray's message broke off at "To fix this, either:" and blamed a RAY_ADDRESS never set."""
    for extra in (["--dry-run"], ["--no-progress"]):
        err = one_line(["sweep", str(TINY), "--out", str(tmp_path / "x"), "--backend", "ray",
                        "--address", "http://x", *extra], 2, "--address 'http://x'", "ray://host:10001")
        assert "RAY_ADDRESS" not in err
    assert not (tmp_path / "x").exists()


# --------------------------------------------------------------------------- 5. empty values

@pytest.mark.parametrize("argv, words", [
    (["run", str(SMALL), "--out", ""], ['--out ""', "an empty value"]),
    (["sweep", str(TINY), "--out", "", "--dry-run"], ['--out ""']),
    (["sweep", str(TINY), "--backend", "ray", "--address", "", "--dry-run"], ['--address ""']),
    (["run", ""], ['FILE ""', "scenario file"]),
    (["run", str(SMALL), "--trace", "drop", "--trace-dir", ""], ['--trace-dir ""']),
    (["reproduce", "ubr-plus", "--out", ""], ['--out ""']),
])
def test_empty_values_are_refused(argv, words):
    one_line(argv, 2, *words)
