"""The training runs of the engine's profile-guided build (docs/performance.md, "Profile-guided
build"): a few runs of every kind the reproductions, the benchmarks and the tutorials make,
through the same calls (``atmsim.run``, the scale rows' ``run_counts``), in this process, so
that the instrumented extension writes its profile when the process exits.

Run by ``make pgo-profile``; not part of the package."""

from __future__ import annotations

import json
import os
import sys

import atmsim
from atmsim import _core
from atmsim.bench import bench_scenario, scale_scenario
from atmsim.experiments import get

#: Cases taken from each reproduction: every n-th of its full cases, at most this many.
PER_REPRODUCTION = {"ubr-plus": 2, "abr-buffers": 3, "worst-case": 3, "erica-testing": 4, "kvr-dynamics": 3}


def reproduction_cases():
    for eid, n in PER_REPRODUCTION.items():
        cases = get(eid).cases(True)  # the --quick cases: the same code paths, shorter
        step = max(1, len(cases) // n)
        for c in cases[::step][:n]:
            yield f"{eid}/{c.key}", c.scenario


def main() -> None:
    runs = [("bench", bench_scenario("4 s")), *reproduction_cases()]
    for key, sc in runs:
        print(key, file=sys.stderr)
        atmsim.run(sc, progress=False)
    for case, n, dur in (("ubr-fba-tcp", 1000, "0.5 s"), ("abr-kvr", 1000, "0.5 s"), ("abr-erica", 1000, "0.05 s"),
                         ("abr-kvr", 100, "0.5 s")):
        print(f"scale {case} {n}", file=sys.stderr)
        _core.run_counts(json.dumps(scale_scenario(case, "parking-lot", n, dur)))
    # The run loop's cache hints (sim::prefetch) are trained whatever their threshold: the
    # 10 000-VC row runs with them forced on. A profile made while that row's state was below
    # the threshold left their code cold, and every run with hints took 1.1-1.2x the CPU
    # (thirty-fourth session, docs/performance-journal.md).
    print("scale abr-kvr 10000, cache hints on", file=sys.stderr)
    os.environ["ATMSIM_CACHE_HINTS"] = "on"
    try:
        _core.run_counts(json.dumps(scale_scenario("abr-kvr", "parking-lot", 10000, "0.05 s")))
    finally:
        del os.environ["ATMSIM_CACHE_HINTS"]
    # And as every large run goes by default: the hints chosen window by window (sim::look_ahead).
    print("scale abr-kvr 10000, cache hints chosen", file=sys.stderr)
    _core.run_counts(json.dumps(scale_scenario("abr-kvr", "parking-lot", 10000, "0.05 s")))


if __name__ == "__main__":
    main()
