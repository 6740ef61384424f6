"""Seed 001 (Goyal, Jain et al., "UBR+: Improving performance of TCP over ATM-UBR service").

Two tables, both on the N-source configuration (N TCP sources -> sw1 -> sw2 -> N
destinations, three link segments, 155.52 Mbps):

* zero-loss buffers: unlimited switch buffers, max queue against the sum of TCP windows;
* the policy table: 12 configurations (LAN/WAN x 5/15 sources x 3 buffer sizes) x 4 policies
  (UBR tail drop, EPD, Selective Drop, FBA): efficiency and fairness.

What the slides leave out, and what is chosen here, is in experiments/ubr-plus/README.md.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

import pandas as pd

from ..topology import n_source
from .base import Case, Experiment, markdown_table

#: Configuration of seed 001's two set-ups (slides "The Simulation Experiment", "TCP Parameters").
CONFIGS: dict[str, dict[str, Any]] = {
    "LAN": {"link_delay": "5 us", "window": "64 KB", "duration_s": 10.0},
    "WAN": {"link_delay": "5 ms", "window": "600000 B", "duration_s": 20.0},
}

#: The four policies of the table, with the parameters chosen (README: "what was chosen").
POLICIES: dict[str, dict[str, Any]] = {
    "UBR": {"kind": "tail_drop"},
    "EPD": {"kind": "epd", "threshold": "80 %"},
    "SD": {"kind": "selective_drop", "threshold": "90 %", "z": 0.8},
    "FBA": {"kind": "fba", "threshold": "50 %", "z": 0.8},
}

#: TCP of seed 001: MSS 512, no fast retransmit/recovery, 100 ms ticks, no delayed ACK.
TCP = {"mss": "512 B", "congestion": "tahoe", "timer_granularity": "100 ms", "delayed_ack": False}

QUICK_FACTOR = 0.1


def _published(name: str) -> pd.DataFrame:
    with resources.files("atmsim.data").joinpath(name).open() as f:
        return pd.read_csv(f, comment="#")


def scenario(config: str, sources: int, buffer: str, policy: dict[str, Any] | None, quick: bool, seed: int = 1) -> dict[str, Any]:
    """The scenario of one cell of a seed 001 table."""
    c = CONFIGS[config]
    dur = c["duration_s"] * (QUICK_FACTOR if quick else 1.0)
    return n_source(
        sources,
        link_delay=c["link_delay"],
        buffer=buffer,
        policy=policy,
        duration=f"{dur:g} s",
        sample_interval=f"{dur / 400:g} s",
        tcp={**TCP, "window": c["window"]},
        seed=seed,
        name=f"ubr-plus {config} {sources} sources, buffer {buffer}, {policy['kind'] if policy else 'tail_drop'}",
    )


class UbrPlus(Experiment):
    id = "ubr-plus"
    title = "UBR+: TCP over UBR with EPD, Selective Drop and Fair Buffer Allocation"
    source = "seed 001 (Goyal, Jain, Kalyanaraman, Fahmy, Kim: UBR+ slides)"

    def cases(self, quick: bool) -> list[Case]:
        cases = []
        for _, r in _published("ubr_plus_zero_loss.csv").iterrows():
            key = f"zero-loss/{r['config']}-{r['sources']}"
            cases.append(Case(key, scenario(r["config"], int(r["sources"]), "unlimited", None, quick),
                              {"table": "zero-loss", "config": r["config"], "sources": int(r["sources"]), "policy": "UBR", "buffer_cells": None}))
        for _, r in _published("ubr_plus_policies.csv").iterrows():
            for pol, spec in POLICIES.items():
                key = f"{r['config']}-{r['sources']}-{r['buffer_cells']}/{pol}"
                cases.append(Case(key, scenario(r["config"], int(r["sources"]), f"{r['buffer_cells']} cells", spec, quick),
                                  {"table": "policies", "config": r["config"], "sources": int(r["sources"]), "policy": pol, "buffer_cells": int(r["buffer_cells"])}))
        return cases

    def compare(self, cases, results) -> pd.DataFrame:
        rows = []
        for _, r in _published("ubr_plus_zero_loss.csv").iterrows():
            key = f"zero-loss/{r['config']}-{r['sources']}"
            s = results[key].summary
            case = f"zero-loss {r['config']} N={r['sources']}"
            rows.append((self.id, case, "efficiency", float(r["efficiency"]), s["efficiency"]))
            rows.append((self.id, case, "fairness", float(r["fairness"]), s["fairness"]))
            rows.append((self.id, case, "max_queue_cells", float(r["max_queue_cells"]), float(s["max_switch_queue_cells"])))
        for _, r in _published("ubr_plus_policies.csv").iterrows():
            for pol in POLICIES:
                key = f"{r['config']}-{r['sources']}-{r['buffer_cells']}/{pol}"
                s = results[key].summary
                case = f"{r['config']} N={r['sources']} K={r['buffer_cells']} {pol}"
                rows.append((self.id, case, "efficiency", float(r[f"{pol.lower()}_eff"]), s["efficiency"]))
                rows.append((self.id, case, "fairness", float(r[f"{pol.lower()}_fair"]), s["fairness"]))
        return pd.DataFrame(rows, columns=["experiment", "case", "metric", "published", "simulated"])

    def report(self, out: Path, comparison, cases, results, quick: bool) -> str:
        from .ubr_plus_report import write_report

        return write_report(self, out, comparison, cases, results, quick)
