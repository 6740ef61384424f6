"""Provenance of a reproduction folder (issue 15 section 6): what made these numbers.

``provenance.json`` holds the atmsim version, the git commit of the source tree (when it is
a git checkout), the command line, whether the run was ``--quick`` (its verdicts are then
indicative only), and for every run its key, seed and resolved scenario.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

QUICK_LABEL = ("> **Quick run (`--quick`): shortened runs. Every verdict here is indicative only; "
               "the full run (`atmsim reproduce ID`) is the reproduction.**")


def git_commit() -> str:
    """The commit of the source tree atmsim is imported from, '+dirty' if modified; 'unknown' outside git,
    or when the git repository around it is not atmsim's (atmsim installed into a venv inside a user's own
    project: that project's commit is not atmsim's; found by review): this file must be tracked in it."""
    here = Path(__file__).resolve().parent
    try:
        tracked = subprocess.run(["git", "ls-files", "--error-unmatch", Path(__file__).name], cwd=here,
                                 capture_output=True, text=True, timeout=10)
        if tracked.returncode != 0:
            return "unknown"
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=10)
        if sha.returncode != 0:
            return "unknown"
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True, timeout=10)
        return sha.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def write_provenance(out: Path, exp_id: str, cases, results, quick: bool, command: list[str] | None = None) -> dict[str, Any]:
    from .. import __version__

    prov = {
        "experiment": exp_id,
        "atmsim_version": __version__,
        "git_commit": git_commit(),
        "command_line": command if command is not None else sys.argv,
        "quick": quick,
        "verdicts": "indicative (--quick: shortened runs)" if quick else "full run",
        "runs": [{"key": c.key, "seed": c.scenario.get("seed"), "scenario": _resolved(results.get(c.key), c.scenario)}
                 for c in cases],
    }
    (out / "provenance.json").write_text(json.dumps(prov, indent=1, default=str) + "\n")
    return prov


def _resolved(result, scenario: dict[str, Any]) -> dict[str, Any]:
    """The scenario as run (the result's copy when there is one)."""
    return getattr(result, "scenario", None) or scenario


def refuse_quick_over_full(out: Path, quick: bool) -> None:
    """A ``--quick`` run never overwrites a full run's folder."""
    p = out / "provenance.json"
    if quick and p.is_file():
        try:
            was_full = not json.loads(p.read_text()).get("quick", True)
        except (OSError, ValueError):
            was_full = False
        if was_full:
            raise ValueError(f"{out} holds a full reproduction; a --quick run writes elsewhere (e.g. {out}-quick)")


def refuse_foreign_folder(out: Path, exp_id: str, label: str | None = None) -> None:
    """A reproduction never writes over files it did not write: ``out`` (named ``label`` in
    the message, default its path) must be missing, empty, or an earlier reproduction of
    ``exp_id`` (its ``provenance.json`` names it); anything else is a ValueError."""
    why = _foreign(out, exp_id)
    if why:
        raise ValueError(f"{label or repr(str(out))} {why}; give a new or empty directory, or the folder of an "
                         f"earlier 'atmsim reproduce {exp_id}' (it has its provenance.json)")


def _foreign(out: Path, exp_id: str) -> str:
    """Why a reproduction of ``exp_id`` may not write into ``out``; '' if it may."""
    if not out.is_dir() or not any(out.iterdir()):
        return ""
    try:
        prov = json.loads((out / "provenance.json").read_text())
    except (OSError, ValueError):
        prov = None
    if not isinstance(prov, dict) or "experiment" not in prov:
        return "is not empty and is not a reproduction's folder (no provenance.json naming one)"
    if prov["experiment"] != exp_id:
        return f"holds the reproduction {str(prov['experiment'])[:60]!r}, not {exp_id!r}"
    return ""
