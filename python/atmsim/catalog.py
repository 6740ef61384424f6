"""What atmsim has: experiments, the engine's extension points, topology builders.

Every list here is derived, never copied: the extension points (drop policies, rate
allocators, TCP congestion control, traffic sources, service classes) come from the
engine's registry (``_core.registry()``), the experiments from
:data:`atmsim.experiments.EXPERIMENTS`, and the topology builders from the public
functions of :mod:`atmsim.topology`. ``atmsim list``, the CLI help and the docs index read
this module.
"""

from __future__ import annotations

import inspect
from typing import Callable, NamedTuple


#: Where a batch of runs can go (:func:`atmsim.parallel.run_many`), with what each is.
#: Defined here, in a module that imports nothing heavy, so the CLI's ``--backend`` choices
#: and help read it at start-up.
BACKEND_DOCS = {
    "local": "worker processes on this machine (the default)",
    "threads": "threads in this process",
    "ray": "a Ray instance, local or a cluster (--address)",
}
BACKENDS = tuple(BACKEND_DOCS)
#: The metrics a sweep report plots when none are named and the sweep has them
#: (:mod:`atmsim.report`; ``atmsim report --metric``).
REPORT_METRICS = ("efficiency", "fairness", "max_switch_queue_cells", "cell_loss_ratio")


class Entry(NamedTuple):
    """One registered name and what it is."""

    name: str
    doc: str


class Section(NamedTuple):
    """A titled list of entries, with the key or command that selects one."""

    title: str
    key: str
    entries: list[Entry]


def extension_points() -> list[Section]:
    """The engine's extension points and their registered implementations."""
    from . import _core

    return [Section(t, k, [Entry(n, d.strip()) for n, d in e]) for t, k, e in _core.registry()]


def builders() -> dict[str, Callable]:
    """The topology builders of :mod:`atmsim.topology`, by name."""
    from . import topology

    return {n: f for n, f in inspect.getmembers(topology, inspect.isfunction)
            if not n.startswith("_") and f.__module__ == topology.__name__}


def _first_line(f: Callable) -> str:
    doc = inspect.getdoc(f) or ""
    return doc.strip().split("\n\n")[0].replace("\n", " ")


def sections() -> list[Section]:
    """Everything ``atmsim list`` shows: experiments, extension points, builders."""
    from .experiments import EXPERIMENTS

    exps = [Entry(k, f"{e.title}  [{e.source}]") for k, e in sorted(EXPERIMENTS.items())]
    out = [Section("experiments", "atmsim reproduce ID", exps)]
    out += extension_points()
    out.append(Section("topology builders", "python: atmsim.topology.NAME(...), sweep base.topology",
                       [Entry(n, _first_line(f)) for n, f in sorted(builders().items())]))
    return out


def all_names() -> dict[str, list[str]]:
    """Section title -> names (for tests and docs)."""
    return {s.title: [e.name for e in s.entries] for s in sections()}


def markdown() -> str:
    """The docs index of everything registered (``docs/catalog.md``), generated."""
    lines = ["# Catalog", "",
             "Everything atmsim offers, one line each. Generated from the registries by",
             "`python -m atmsim.catalog > docs/catalog.md`; a test fails when this page is stale.", ""]
    for sec in sections():
        lines += [f"## {sec.title[0].upper()}{sec.title[1:]}", "", f"Selected with `{sec.key}`.", "",
                  "| name | what it is |", "|---|---|"]
        lines += [f"| `{e.name}` | {e.doc.replace('|', '/')} |" for e in sec.entries]
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover
    print(markdown(), end="")
