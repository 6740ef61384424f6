"""What every reproduction shares: cases to run, a comparison table, a report, provenance.

``comparison.csv`` has the columns ``experiment, case, metric, published, simulated,
verdict, seed, section, quote, class``: one row per judged or shown number, with the seed's
claim it tests quoted word for word and, for a fail, its class (:mod:`.claims`).
``provenance.json`` records the atmsim version and git commit, the command line, the run
seed and the resolved scenario of every run; a ``--quick`` run says its verdicts are
indicative and never writes into a folder that holds a full run.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..parallel import run_many
from ..result import RunResult
from .claims import annotate
from .provenance import QUICK_LABEL, refuse_quick_over_full, write_provenance

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
        """
        from ..parallel import check_backend

        check_backend(backend, workers, address)  # before any output is written
        out = Path(out)
        refuse_quick_over_full(out, quick)
        out.mkdir(parents=True, exist_ok=True)
        cases = self.cases(quick)
        t0 = time.perf_counter()
        # Figures are drawn in the worker processes (pyplot is not for threads).
        draws = type(self).plot_case is not Experiment.plot_case and backend != "threads"
        results = run_many(((c.key, c.scenario) for c in cases), workers=workers, progress=progress, desc=self.id,
                           backend=backend, address=address, keep=self.keep, figures=self.id if draws else None)
        wall = time.perf_counter() - t0
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
        text += f"\n\n---\n{len(cases)} simulations in {wall:.1f} s wall time" + (" (--quick: shortened runs)" if quick else "") + ".\n"
        text += "Provenance (version, commit, command line, seeds, resolved scenarios): `provenance.json`.\n"
        (out / "report.md").write_text(text)
        return comparison


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
