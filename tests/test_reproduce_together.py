"""Several reproductions on one pool of workers (``atmsim reproduce ID ID ...`` / ``all``,
:func:`atmsim.experiments.base.run_together`): the same files as each run alone (issue 14,
reproductions)."""

from __future__ import annotations

import pandas as pd
import pytest

from atmsim.cli import UserError, _reproduction_ids
from atmsim.experiments import EXPERIMENTS, get
from conftest import run_cli

PAIR = ["kvr-dynamics", "worst-case"]


@pytest.fixture(scope="module")
def together_and_alone(tmp_path_factory):
    """The pair run together through the CLI, and each alone through ``Experiment.run``."""
    root = tmp_path_factory.mktemp("together")
    rc, stdout, stderr = run_cli(["reproduce", *PAIR, "--quick", "--out", str(root / "both"), "--no-progress"])
    assert rc == 0, stderr
    alone = {}
    for i in PAIR:
        alone[i] = root / "alone" / i
        get(i).run(alone[i], quick=True, progress=False)
    return root / "both", alone, stdout


def test_each_folder_is_that_of_a_run_alone(together_and_alone):
    both, alone, _ = together_and_alone
    for i in PAIR:
        mine = both / f"{i}-quick"
        assert (mine / "comparison.csv").read_bytes() == (alone[i] / "comparison.csv").read_bytes(), i
        runs = pd.read_csv(mine / "runs.csv").drop(columns="wall_seconds")
        pd.testing.assert_frame_equal(runs, pd.read_csv(alone[i] / "runs.csv").drop(columns="wall_seconds"))
        figures = sorted(p.name for p in (alone[i] / "figures").iterdir())
        assert figures and figures == sorted(p.name for p in (mine / "figures").iterdir()), i
        for name in figures:
            assert (mine / "figures" / name).read_bytes() == (alone[i] / "figures" / name).read_bytes(), name
        report = (mine / "report.md").read_text()
        assert "on one pool with those of the other reproductions" in report


def test_the_command_prints_each_reproduction(together_and_alone):
    both, _, stdout = together_and_alone
    for i in PAIR:
        assert f"== {i} ({both / (i + '-quick')}) ==" in stdout
        assert f"wrote {both / (i + '-quick')}/comparison.csv" in stdout


def test_all_names_every_experiment_once_in_registry_order():
    assert _reproduction_ids(["all"]) == list(EXPERIMENTS)
    assert _reproduction_ids(["worst-case", "all", "worst-case"]) == ["worst-case"] + [
        e for e in EXPERIMENTS if e != "worst-case"]


def test_an_unknown_id_is_refused_before_anything_runs(tmp_path):
    with pytest.raises(UserError, match="no experiment 'nope'.*ubr-plus.*or all"):
        _reproduction_ids(["kvr-dynamics", "nope"])
    rc, out, err = run_cli(["reproduce", "kvr-dynamics", "nope", "--out", str(tmp_path / "x")])
    assert rc != 0 and "nope" in err and not (tmp_path / "x").exists()


def test_one_reproduction_given_twice_is_refused_before_any_folder(tmp_path):
    from atmsim.experiments.base import run_together

    with pytest.raises(ValueError, match="given twice"):
        run_together([(get("kvr-dynamics"), tmp_path / "a"), (get("kvr-dynamics"), tmp_path / "b")],
                     quick=True, progress=False)
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
