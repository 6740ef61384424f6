"""Seed 000, slide 'Out-Of Phase Effect', measured per averaging interval at the bottleneck:

    Bursty load and backward RM cells are often out of phase.
    When there is load in the forward direction, there are no BRMs.
    By the time the switch sees BRMs, there is no load in the forward direction.
    The above effect disappears when the bursts become larger than RTT

Seed 003 (5.7.1) names the same effect for its request/response source ("This situation is
called the “out-of-phase” effect, and is also a common problem with TCP sources"): a BRM of
a bursty VC passes the switch while the VC sends nothing forward.

**Load.** Seed 000's N-source configuration (the 'Are One RTT Buffers Sufficient?' row with
5 sources: RTT 30 ms, feedback delay 10 ms, modified ERICA, averaging interval min{100
cells, 1 ms}, seed 000's source parameters), each source a request/response exchange of
seed 003 5.7.1 (16-cell requests, responses of 128, 1024 or 6144 cells: its small, medium
and large bursts; the erica-testing think time) whose responses cross the bottleneck; and,
for reference, the row's own TCP run (persistent once TCP's window no longer limits it).

**Measurement** (the engine's `load` trace, docs/traces.md: per averaging interval of the
bottleneck port's allocator and per VC, the VC's arriving cells and its BRMs the port gave
feedback on):

* *BRMs without load*: the share of the BRMs that pass the switch in an averaging interval
  in which their own VC brought no cell: "By the time the switch sees BRMs, there is no load
  in the forward direction". Load in phase with its BRMs (a persistent source) gives about 0;
  BRMs that all come back after their burst has ended give 1.
* *load without BRMs* (shown): the share of the intervals with load of a VC in which no BRM
  of that VC passes ("When there is load in the forward direction, there are no BRMs"). It
  depends on the interval's length against the RM cell spacing (one in Nrm = 32 cells), so
  it is not judged.
* *burst length at the switch*: a burst is a maximal run of consecutive intervals in which
  the VC brings cells; its length is the sum of their lengths. The time-weighted mean (the
  burst an arriving cell is in, on average) is compared with the RTT.

**Criterion**, set before the runs: "often" is more than half, as the sister slide 'Flocking
Effect' is read (abr_buffers.FLOCK_OFTEN). Where the bursts at the switch are shorter than
the RTT, more than half of the BRMs pass without load of their VC ("often out of phase");
where they are larger than the RTT, at most half do ("the above effect disappears").
"""

from __future__ import annotations

import copy
import tempfile
from typing import Any

import numpy as np
import pandas as pd

from . import checks

#: Seed 003 5.7.1's response sizes: small, medium and large bursts (cells).
RESPONSES = (128, 1024, 6144)
REQUEST = "16 cells"
#: "often": more than half (the reading of the sister slide 'Flocking Effect').
OFTEN = 0.5
CASE = "|out-of-phase-"
TABLE = "out_of_phase"
BRM_SHARE = "share of BRMs passing in intervals without load of their VC"


def scenario(base: dict[str, Any], response_cells: int, think_time: str) -> dict[str, Any]:
    """``base`` (an N-source scenario) with each connection a request/response exchange whose
    responses cross the bottleneck: the connection runs from the destination host to the
    source host, so its requests go sw2 -> sw1 and its responses sw1 -> sw2."""
    sc = copy.deepcopy(base)
    for c in sc["connection"]:
        c["traffic"] = {"kind": "request_response", "request": REQUEST, "response": f"{response_cells} cells",
                        "think_time": think_time}
        c["from"], c["to"] = c["to"], c["from"]
        c["route"] = list(reversed(c["route"]))
    sc["name"] = f"{sc.get('name', 'seed 000')} out-of-phase {response_cells}-cell responses"
    return sc


def traced_load(sc: dict[str, Any], port: str) -> tuple[Any, pd.DataFrame]:
    """Runs ``sc`` with the ``load`` trace at ``port``: (result, trace)."""
    from ..scenario import run

    with tempfile.TemporaryDirectory(prefix="atmsim-phase-") as d:
        res = run(copy.deepcopy(sc), progress=False, trace={"events": ["load"], "ports": [port]}, trace_dir=d)
        return res, res.trace("load")


def _per_vc(load: pd.DataFrame):
    """Each VC's rows in time order."""
    for _, g in load.sort_values("time_s", kind="stable").groupby("connection", observed=True):
        yield g


def _bursts_of(g: pd.DataFrame) -> list[tuple[np.ndarray, float]]:
    """One VC's bursts, in order: (positions of its intervals in ``g``, length in s). A burst
    is a maximal run of consecutive averaging intervals in which the VC brought cells."""
    on = g["cells"].to_numpy() > 0
    dt = g["interval_s"].to_numpy(dtype=float)
    run = np.cumsum(~on)  # the same value along a run of loaded intervals
    out = []
    for k in np.unique(run[on]):
        idx = np.flatnonzero(on & (run == k))
        out.append((idx, float(dt[idx].sum())))
    return out


def bursts(load: pd.DataFrame) -> np.ndarray:
    """Lengths (s) of every burst of every VC."""
    return np.asarray([length for g in _per_vc(load) for _, length in _bursts_of(g)], dtype=float)


def before_long_burst(load: pd.DataFrame, rtt_s: float) -> pd.DataFrame:
    """Per VC, its intervals before its first burst of ``rtt_s`` or longer (for TCP: its slow
    start, while the window, not the ACR, limits it and it sends bursts shorter than the RTT)."""
    keep = []
    for g in _per_vc(load):
        first_long = next((int(idx[0]) for idx, length in _bursts_of(g) if length >= rtt_s), len(g))
        keep.append(g.iloc[:first_long])
    return pd.concat(keep) if keep else load.iloc[:0]


def measures(load: pd.DataFrame) -> dict[str, float]:
    """The phase of load and BRMs in a ``load`` trace (see the module docstring)."""
    loaded = load["cells"].to_numpy() > 0
    brm = load["brm_cells"].to_numpy(dtype=float)
    b = bursts(load)
    nan = float("nan")
    return {
        "brm_cells": float(brm.sum()),
        "brm_without_load": float(brm[~loaded].sum() / brm.sum()) if brm.sum() else nan,
        "load_without_brm": float((loaded & (brm == 0)).sum() / loaded.sum()) if loaded.any() else nan,
        "burst_s": float((b * b).sum() / b.sum()) if b.sum() else nan,
        "bursts": float(len(b)),
    }


def judged_rows(case: str, m: dict[str, float], rtt_ms: float) -> list[dict[str, Any]]:
    """Comparison rows of one bursty run: the BRM share judged by the slide sentence that
    applies to its burst length (shorter than the RTT: often out of phase; larger: the effect
    disappears)."""
    burst_ms = m["burst_s"] * 1e3
    share = m["brm_without_load"]
    rows = [checks.row(TABLE, case, "burst length at the switch (ms, time-weighted mean)", f"vs RTT {rtt_ms:g} ms",
                       round(burst_ms, 2), None)]
    if burst_ms < rtt_ms:
        rows.append(checks.row(TABLE, case, f"{BRM_SHARE} (bursts shorter than RTT: often out of phase)",
                               f"often: > {OFTEN}", round(share, 4), share > OFTEN))
    else:
        rows.append(checks.row(TABLE, case, f"{BRM_SHARE} (bursts larger than RTT: the effect disappears)",
                               f"not often: <= {OFTEN}", round(share, 4), share <= OFTEN))
    rows.append(checks.row(TABLE, case, "share of intervals with load of a VC and no BRM of it", "shown",
                           round(m["load_without_brm"], 4), None))
    return rows


def tcp_rows(case: str, whole: dict[str, float], start: dict[str, float], rtt_ms: float) -> list[dict[str, Any]]:
    """Rows of the TCP run (seed 000's own load): its slow start (per VC, the intervals before
    its first burst as long as the RTT) judged like a bursty run with short bursts; the whole
    run (persistent once the window no longer limits TCP) shown."""
    share = start["brm_without_load"]
    return [checks.row(TABLE, case + " slow start", "burst length at the switch (ms, time-weighted mean)",
                       f"vs RTT {rtt_ms:g} ms", round(start["burst_s"] * 1e3, 2), None),
            checks.row(TABLE, case + " slow start", f"{BRM_SHARE} (bursts shorter than RTT: often out of phase)",
                       f"often: > {OFTEN}", round(share, 4), share > OFTEN),
            checks.row(TABLE, case, "burst length at the switch (ms, time-weighted mean)", "shown",
                       round(whole["burst_s"] * 1e3, 2), None),
            checks.row(TABLE, case, f"{BRM_SHARE} (TCP, whole run)", "shown", round(whole["brm_without_load"], 4), None)]


def same_run(a: Any, b: Any) -> bool:
    """Whether two results of one scenario agree (the traced rerun of a case is its run)."""
    keys = ("cells_sent", "cells_delivered", "cells_dropped", "cell_hops", "events", "max_switch_queue_cells")
    return all(a.summary.get(k) == b.summary.get(k) for k in keys)
