"""What every reproduction shares: cases to run, a comparison table, a report, provenance.

``comparison.csv`` has the columns ``experiment, case, metric, published, simulated,
verdict, seed, section, quote, class``: one row per judged or shown number, with the seed's
claim it tests quoted word for word and, for a fail, its class (:mod:`.claims`).
``provenance.json`` records the atmsim version and git commit, the command line, the run
seed and the resolved scenario of every run; a ``--quick`` run says its verdicts are
indicative and never writes into a folder that holds a full run.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..parallel import run_many, same_runs
from ..result import RunResult
from .claims import annotate
from .provenance import QUICK_LABEL, refuse_foreign_folder, refuse_quick_over_full, write_provenance

COMPARISON_COLUMNS = ["experiment", "case", "metric", "published", "simulated"]


@dataclass
class Case:
    """One simulation of a reproduction."""

    key: str
    scenario: dict[str, Any]
    meta: dict[str, Any] = field(default_factory=dict)


class Experiment:
    """Base class of reproductions."""

    id: str = ""
    title: str = ""
    source: str = ""

    def cases(self, quick: bool) -> list[Case]:  # pragma: no cover - abstract
        raise NotImplementedError

    def compare(self, cases: list[Case], results: dict[str, RunResult]) -> pd.DataFrame:  # pragma: no cover
        raise NotImplementedError

    def report(self, out: Path, comparison: pd.DataFrame, cases: list[Case], results: dict[str, RunResult], quick: bool) -> str:  # pragma: no cover
        raise NotImplementedError

    def keep(self, key: str) -> dict[str, Any] | None:
        """The time-series entities that :meth:`compare` and :meth:`report` read of case
        ``key`` (``{"port": [names], "connection": [...], "source": [...]}``; a kind left out
        keeps all of its entities, ``[]`` none; None keeps everything). The worker that ran
        the case drops the rest (issue 14: reduce each run inside the worker)."""
        return None

    def plot_case(self, key: str, result: RunResult, figs: Path) -> list[Path]:
        """Draws the figures of case ``key`` into ``figs``; returns their paths. Runs in the
        worker process that ran the case, in parallel with the other runs (:meth:`run`);
        :meth:`figures_of` draws them in the report for a result without them."""
        return []

    def figures_of(self, key: str, result: RunResult, figs: Path) -> list[Path]:
        """The figures of case ``key``: those its worker drew (written to ``figs`` by
        :meth:`run`), else drawn now."""
        made = getattr(result, "figure_names", None)
        if made:
            return [figs / n for n in made]
        return self.plot_case(key, result, figs)

    def run(self, out: str | Path, quick: bool = False, workers: int | None = None, progress: bool = True,
            backend: str = "local", address: str | None = None, command: list[str] | None = None) -> pd.DataFrame:
        """Runs every case, writes comparison.csv, plots and report.md to ``out``.

        ``backend`` is where the runs go: ``"local"`` worker processes (default),
        ``"threads"``, or ``"ray"`` (an existing cluster at ``address``, else a local Ray
        instance); see :mod:`atmsim.parallel`. Results are identical on every backend.
        ``command`` is the command line recorded in ``provenance.json`` (default: ``sys.argv``).
        Several reproductions at once: :func:`run_together`.
        """
        return run_together([(self, out)], quick=quick, workers=workers, progress=progress, backend=backend,
                            address=address, command=command)[0]

    def draws_in_worker(self, backend: str) -> bool:
        """True if the worker that runs a case draws its figures (pyplot is not for threads)."""
        return type(self).plot_case is not Experiment.plot_case and backend != "threads"

    def finish(self, out: Path, cases: list[Case], results: dict[str, RunResult], quick: bool,
               command: list[str] | None, wall_note: str) -> pd.DataFrame:
        """Writes the folder of a finished reproduction: figures, comparison.csv, provenance,
        runs.csv and report.md (ending with ``wall_note``, how long the runs took)."""
        _write_figures(out / "figures", results)
        comparison = annotate(self.compare(cases, results))
        comparison.to_csv(out / "comparison.csv", index=False)
        write_provenance(out, self.id, cases, results, quick, command)
        runs = pd.DataFrame(
            [{"case": c.key, **c.meta, **{k: results[c.key].summary[k] for k in _RUN_COLUMNS}} for c in cases]
        )
        runs.to_csv(out / "runs.csv", index=False)
        text = self.report(out, comparison, cases, results, quick)
        if quick:
            text = QUICK_LABEL + "\n\n" + text
        text += f"\n\n---\n{wall_note}" + (" (--quick: shortened runs)" if quick else "") + ".\n"
        text += "Provenance (version, commit, command line, seeds, resolved scenarios): `provenance.json`.\n"
        (out / "report.md").write_text(text)
        return comparison


def run_together(jobs: list[tuple[Experiment, str | Path]], quick: bool = False, workers: int | None = None,
                 progress: bool = True, backend: str = "local", address: str | None = None,
                 command: list[str] | None = None) -> list[pd.DataFrame]:
    """Runs the cases of several reproductions ``(experiment, output folder)`` on one pool of
    workers and writes each folder as :meth:`Experiment.run` does; returns their
    comparisons, in order. The results are those of running each alone: only the schedule
    changes. One pool starts its workers (and their imports) once; the runs go in the order
    given (``atmsim reproduce all`` puts the longest, ubr-plus, first), so one
    reproduction's runs fill the cores while another's last runs finish; and a
    reproduction's folder is written (in a second thread) as soon as its last run is in,
    while the others' runs go on. Every folder is checked (a ``--quick`` run never
    overwrites a full one) before any is written."""
    from concurrent.futures import Future, ThreadPoolExecutor

    from ..parallel import check_backend

    check_backend(backend, workers, address)  # before any output is written
    plans = _plan(jobs, quick)
    alone = len(plans) == 1
    owner: dict[str, tuple[tuple[Experiment, Path, list[Case]], str]] = {}  # the pool's key -> (plan, case key)
    tasks = []
    for plan in plans:
        exp, _, cases = plan
        for c in cases:
            key = c.key if alone else f"{exp.id}/{c.key}"
            owner[key] = (plan, c.key)
            tasks.append((key, c.scenario))
    exp_of = lambda key: owner[key][0][0]  # noqa: E731
    keep_of = lambda k: exp_of(k).keep(owner[k][1])  # noqa: E731
    repeats = sum(map(len, same_runs([(k, json.dumps(sc), keep_of(k)) for k, sc in tasks]).values()))
    got: dict[str, dict[str, RunResult]] = {exp.id: {} for exp, _, _ in plans}
    written: dict[str, Future] = {}
    t0 = time.perf_counter()

    def write(exp: Experiment, out: Path, cases: list[Case], finisher: Any) -> None:
        span = time.perf_counter() - t0
        note = (f"{len(cases)} simulations in {span:.1f} s wall time" if alone else
                f"{len(cases)} simulations, on one pool with those of the other reproductions "
                f"({len(tasks)} runs in all{f', {repeats} of them repeats of another, run once' if repeats else ''}), "
                f"the last of them done {span:.1f} s after the start")
        written[exp.id] = finisher.submit(exp.finish, out, cases, got[exp.id], quick, command, note)

    # One reproduction alone is written in this thread once its runs are done, as always.
    with (_InThisThread() if alone else ThreadPoolExecutor(max_workers=1, thread_name_prefix="atmsim-report")) as finisher:
        def on_result(key: str, result: RunResult) -> None:
            plan, case_key = owner[key]
            exp, _, cases = plan
            got[exp.id][case_key] = result
            if not alone and len(got[exp.id]) == len(cases):  # its last run: written while the others run
                write(*plan, finisher)

        run_many(tasks, workers=workers, progress=progress, desc=plans[0][0].id if alone else f"{len(plans)} reproductions",
                 backend=backend, address=address, keep=keep_of,
                 figures=lambda k: (exp_of(k).id, owner[k][1]) if exp_of(k).draws_in_worker(backend) else None,
                 on_result=on_result)
        for plan in plans:
            if plan[0].id not in written:  # alone, or a reproduction without cases
                write(*plan, finisher)
        return [written[exp.id].result() for exp, _, _ in plans]


class _InThisThread:
    """An executor that runs what it is given at once, in the calling thread."""

    def __enter__(self) -> "_InThisThread":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def submit(self, fn: Any, *args: Any) -> Any:
        from concurrent.futures import Future

        done: Future = Future()
        done.set_result(fn(*args))
        return done


def _plan(jobs: list[tuple[Experiment, str | Path]], quick: bool) -> list[tuple[Experiment, Path, list[Case]]]:
    """Each reproduction with its folder (checked, then made) and its cases; refuses one
    reproduction given twice."""
    ids = [exp.id for exp, _ in jobs]
    if len(set(ids)) != len(ids):
        raise ValueError(f"a reproduction is given twice: {', '.join(ids)}")
    outs = [Path(o) for _, o in jobs]
    for (exp, _), out in zip(jobs, outs):
        refuse_foreign_folder(out, exp.id)
        refuse_quick_over_full(out, quick)
    plans = []
    for (exp, _), out in zip(jobs, outs):
        out.mkdir(parents=True, exist_ok=True)
        plans.append((exp, out, exp.cases(quick)))
    return plans


def case_figures(exp_id: str, key: str, result: RunResult) -> dict[str, bytes]:
    """The figures of one case as ``{file name: PNG bytes}``, drawn by the experiment's
    :meth:`Experiment.plot_case` into a temporary folder (in a worker process, which may
    not share the driver's disk: a Ray node)."""
    import tempfile

    from . import get

    with tempfile.TemporaryDirectory(prefix="atmsim-fig-") as tmp:
        paths = get(exp_id).plot_case(key, result, Path(tmp))
        return {p.name: p.read_bytes() for p in paths}


def _write_figures(figs: Path, results: dict[str, RunResult]) -> None:
    """Writes the figures the workers drew (``result.files``) into ``figs``; each result
    keeps their names (``figure_names``) instead of their bytes."""
    for r in results.values():
        files = getattr(r, "files", None)
        if files:
            figs.mkdir(exist_ok=True)
            for name, data in files.items():
                (figs / name).write_bytes(data)
            r.figure_names = list(files)
            r.files = {}


_RUN_COLUMNS = [
    "efficiency",
    "fairness",
    "total_goodput_bps",
    "max_switch_queue_cells",
    "cells_dropped",
    "cell_loss_ratio",
    "duration_s",
    "cell_hops",
    "wall_seconds",
]


def markdown_table(df: pd.DataFrame, floatfmt: str = "{:.3f}") -> str:
    """A GitHub-flavoured Markdown table (no extra dependency)."""
    cols = list(df.columns)
    lines = ["| " + " | ".join(str(c) for c in cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for _, row in df.iterrows():
        cells = []
        for c in cols:
            v = row[c]
            if isinstance(v, float):
                cells.append(floatfmt.format(v) if v == v else "")
            else:
                cells.append(str(v))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
