"""Seed 004 (Kalampoukas, Varma, Ramakrishnan, UCSC-CRL-95-54): "Dynamics of an explicit
rate allocation algorithm for ABR service in ATM networks".

The O(1) allocator of the seed's Figure 2.1 (``allocator = { kind = "kvr" }``) with the
UCSC source policy, in the seed's configurations R1, R1 with 40 connections, R1 with TCP
(and a cell dropped at 0.5 s), R2 (cells; with Heyman video; with staggered video) and R3
(TCP with 1 KB buffers against on/off ABR sources). Every number the text states is a row of
``comparison.csv`` with a pass/fail verdict; the seed's plots are drawn per case.

Checks come from ../shared/reference/kvr_dynamics_claims.md (copied to
``atmsim/data/kvr_dynamics_claims.md``). Times and queue sizes the seed gives as "about"
are judged within a factor :data:`FACTOR` (the issue's criterion); rates within
:data:`RATE_TOL` of the max-min share (R1) or 2 % (R2). Utilization is averaged over 5 ms
and queues are the maximum over 5 ms, as the seed plots them. What the seed leaves out and
what is chosen: ``experiments/kvr-dynamics/README.md`` and :data:`CHOICES`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from ..result import RunResult
from ..topology import r1, r2, r3
from . import checks, measure
from .base import Case, Experiment, markdown_table
from .checks import frame, rounded, row

FACTOR = 1.5  # "within a factor 1.5 of what the seed states"
RATE_TOL = 0.01  # R1: within 1 % of the max-min share
R2_TOL = 0.02  # R2: within 2 % of 155/32 Mbps
SETTLE_TOL = 0.02  # a rate has converged once it stays within 2 % of its final value
LINK_MBPS = 155.0
NRM = 32

CHOICES: dict[str, Any] = {
    "link_rate": "155 Mbps (stated: PCR = 365,566 cells/s = the link rate)",
    "source": "UCSC policy, Nrm 32, AIR 180 cells/s, ICR = PCR/50 (stated, section 3)",
    "allocator": "KVR on every switch port, target utilization 100 % (stated), backward-RM update off (stated as a possible improvement)",
    "r1_geometry": "long access 8.034 ms, every other link 1.867 us: RTT 16.076 ms / 11.2 us as stated (figure missing)",
    "r2_geometry": "every link 1 ms (stated for R3, 'identical to R2')",
    "setup": "ABR connections pre-established at their start (the seed's connections 'open simultaneously'); video and on/off sources signal in band",
    "video": "Heyman DAR(1): 25 frames/s, 134 cells/frame (1.42 Mbps = 75 % of the 1.9 Mbps reservation, as stated), sd 30 cells, rho 0.98; token bucket 50 cells at 4500 cells/s",
    "tcp": "Reno, MSS 9180 B, window 150 KB, exact timers (rto_min 1 ms, not stated), no LLC/SNAP (cells = ceil((IP + 8)/48), stated)",
    "r3": "TCP 1-4 enter at sw1, 5-6 and the 4 on/off sources at sw2, 7-8 at sw3; buffers 19 cells (1 KB); 5 s",
    "fault": "the first data cell of L1 offered to its access link at or after 0.5 s is lost",
}

#: Seed 004 section 5.2: each video connection uses ~75 % of its 1.9 Mbps reservation.
VIDEO = {"mean_cells": 134.0, "sd_cells": 30.0, "correlation": 0.98, "bucket": "50 cells", "bucket_rate": "4500 cells/s"}
VBR_RESERVE_MBPS = 4500 * 424e-6  # 1.9 Mbps, as the switches book it


def _tcp_r1(quick: bool) -> dict[str, Any]:
    return r1(traffic="tcp", duration="0.6 s" if quick else "1.0 s", sample_interval="1 ms",
              faults=[{"connection": "L1", "at": "0.5 s"}], name="R1 with TCP (cell of L1 dropped at 0.5 s)")


def _specs() -> dict[str, Callable[[bool], dict[str, Any]]]:
    return {
        "r1-cells": lambda q: r1(duration="0.3 s", sample_interval="0.5 ms"),
        "r1-40": lambda q: r1(long_nodes=4, per_node=8, duration="0.3 s", sample_interval="0.5 ms"),
        # 4.1: "When we increased the number of short connections rather than the number of
        # long connections ...": the same 40 connections, 38 of them short.
        "r1-short": lambda q: r1(short_nodes=38, duration="0.3 s", sample_interval="0.5 ms"),
        "r1-tcp": _tcp_r1,
        "r2-cells": lambda q: r2(duration="0.2 s", sample_interval="0.5 ms"),
        "r2-vbr": lambda q: r2(abr_per_set=4, vbr_per_set=4, vbr_video=VIDEO, duration="0.3 s" if q else "0.6 s",
                               sample_interval="0.5 ms"),
        "r2-vbr-staggered": lambda q: r2(abr_per_set=4, vbr_per_set=4, vbr_video=VIDEO, vbr_open="staggered",
                                         duration="1.0 s", sample_interval="0.5 ms"),
        "r3-tcp": lambda q: r3(duration="1 s" if q else "5 s"),
        # Sensitivity runs (reported, never judged).
        "r1-cells|in-band": lambda q: r1(duration="0.3 s", sample_interval="0.5 ms", setup="in_band"),
        "r1-40|in-band": lambda q: r1(long_nodes=4, per_node=8, duration="0.3 s", sample_interval="0.5 ms", setup="in_band"),
        "r1-40|backward-rm": lambda q: r1(long_nodes=4, per_node=8, duration="0.3 s", sample_interval="0.5 ms",
                                          allocator={"kind": "kvr", "update_backward_rm": True}),
        "r2-cells|backward-rm": lambda q: r2(duration="0.2 s", sample_interval="0.5 ms",
                                             allocator={"kind": "kvr", "update_backward_rm": True}),
    }


class M:
    """Measurements on one run, as the seed's plots show them."""

    def __init__(self, r: RunResult):
        self.r = r
        self.acr = r.abr_series.pivot(index="time_s", columns="source", values="acr_mbps")
        ps = r.port_series
        self.ports = {p: g.set_index("time_s") for p, g in ps.groupby("port")}
        dt = float(np.diff(self.acr.index[:2])[0]) if len(self.acr) > 1 else 0.001
        self.window = max(1, int(round(0.005 / dt)))  # samples per 5 ms
        self.duration = float(r.summary["duration_s"])

    def util5(self, port: str, col: str = "data_utilization") -> pd.Series:
        """Utilization averaged over consecutive 5 ms windows (seed section 3)."""
        s = self.ports[port][col]
        g = np.arange(len(s)) // self.window
        out = s.groupby(g).mean()
        out.index = s.index.to_numpy()[self.window - 1:: self.window][: len(out)] if len(s) >= self.window else s.index[:1]
        return out

    def q5(self, port: str) -> pd.Series:
        """Queue as the maximum over consecutive 5 ms windows."""
        s = self.ports[port]["max_queue_cells"]
        g = np.arange(len(s)) // self.window
        return s.groupby(g).max()

    def qmax(self, port: str, t0: float = 0.0, t1: float = 1e9) -> float:
        return measure.window_max(self.ports[port]["max_queue_cells"], t0, t1)

    def settle(self, sources: list[str], target: dict[str, float] | float, after: float = 0.0,
               until: float | None = None, tol: float = SETTLE_TOL) -> float:
        """How long after ``after`` the ACRs of ``sources`` take to settle within ``tol`` of
        their targets (:func:`measure.settle_time`, seconds)."""
        return measure.settle_time(self.acr, sources, target, tol, after, self.duration if until is None else until)

    def time_to_max_util(self, port: str) -> float:
        """When the 5 ms utilization first reaches 98 % of its steady maximum."""
        u = self.util5(port)
        top = float(u[u.index > 0.5 * self.duration].max())
        return measure.first_reach(u, 0.98 * top)

    def conn(self, name: str) -> pd.Series:
        c = self.r.connections
        return c[c["name"] == name].iloc[0]


def _row(case: str, metric: str, published: Any, simulated: float, ok: bool | None) -> dict[str, Any]:
    return row("kvr-dynamics", case, metric, str(published), rounded(simulated), ok)


def within_factor(sim: float, pub: float, f: float = FACTOR) -> bool:
    return checks.within_factor(sim, pub, f)


def _share_rows(case: str, m: M, tol: float, names: list[str] | None = None) -> list[dict[str, Any]]:
    c = m.r.connections
    c = c[c["service"] == "abr"] if names is None else c[c["name"].isin(names)]
    err = (c["acr_final_bps"] / c["fair_share_bps"] - 1.0).abs()
    return [_row(case, f"largest abs(final ACR / max-min share - 1) over {len(c)} connections", f"< {tol:.0%}",
                 float(err.max()), bool(err.max() < tol))]


def check_r1(m: M, m40: M | None) -> list[dict[str, Any]]:
    rows = _share_rows("r1-cells", m, RATE_TOL)
    share = float(m.conn("L1")["fair_share_bps"]) / 1e6
    rows.append(_row("r1-cells", "final ACR of each connection (Mbps)", 51.5, float(m.acr.iloc[-1].mean()), None))
    t = m.settle(["L1", "L2", "S1"], share)
    rows.append(_row("r1-cells", "convergence time of the rates (ms)", 70, t * 1e3, within_factor(t * 1e3, 70)))
    over = float(m.acr[["L1", "L2"]].max().max()) / share
    rows.append(_row("r1-cells", "long connections overshoot slightly: max ACR / share", "> 1 (slight)", over,
                     bool(1.0 < over < 1.5)))
    u = m.util5("sw1->sw2")
    rows.append(_row("r1-cells", "D4 utilization maximum (5 ms average, data cells)", "~0.97", float(u.max()),
                     bool(abs(float(u.max()) - 0.97) < 0.02)))
    tu = m.time_to_max_util("sw1->sw2")
    rows.append(_row("r1-cells", "D4 utilization reaches its maximum (ms)", 25, tu * 1e3, within_factor(tu * 1e3, 25)))
    q = m.qmax("sw1->sw2")
    rows.append(_row("r1-cells", "switch 1 queue (cells, max)", 780, q, within_factor(q, 780)))
    q_end = float(m.q5("sw1->sw2").iloc[-5:].mean())
    rows.append(_row("r1-cells", "queue steady after the transient: last 25 ms / max", "~1 (steady)", q_end / max(q, 1),
                     bool(q_end >= 0.9 * q)))
    if m40 is not None:
        rows += _share_rows("r1-40", m40, RATE_TOL)
        rows.append(_row("r1-40", "final ACR of each connection (Mbps)", 3.8, float(m40.acr.iloc[-1].mean()), None))
        names = list(m40.acr.columns)
        t40 = m40.settle(names, {n: float(m40.conn(n)["fair_share_bps"]) / 1e6 for n in names})
        rows.append(_row("r1-40", "convergence time of the rates (ms)", 45, t40 * 1e3, within_factor(t40 * 1e3, 45)))
        tu40 = m40.time_to_max_util("sw1->sw2")
        rows.append(_row("r1-40", "D4 utilization reaches its maximum (ms)", 15, tu40 * 1e3, within_factor(tu40 * 1e3, 15)))
        q40 = m40.qmax("sw1->sw2")
        ratio = q40 / max(q, 1.0)
        rows.append(_row("r1-40", "switch 1 queue (cells, max)", "~3 x 780", q40, within_factor(q40, 3 * 780)))
        rows.append(_row("r1-40", "queue ratio 40 / 3 connections", 3, ratio, within_factor(ratio, 3)))
        rows.append(_row("r1-40", "queue grows far less than the number of connections (ratio / (40/3))", "<< 1",
                         ratio / (40 / 3), bool(ratio / (40 / 3) < 0.5)))
        rows.append(_row("r1-40", "convergence faster than with 3 connections", "45 < 70 ms", t40 * 1e3, bool(t40 < t)))
    return rows


def check_r1_short(m: M, m3: M, m40: M) -> list[dict[str, Any]]:
    """4.1: more short connections raise the queue "even" less than more long ones, "about 30%"."""
    q, q3, q40 = m.qmax("sw1->sw2"), m3.qmax("sw1->sw2"), m40.qmax("sw1->sw2")
    inc = q / max(q3, 1.0) - 1
    return [_row("r1-short", "queue increase with 38 short + 2 long connections (fraction of R1's)", "about 0.30",
                 inc, within_factor(inc, 0.30)),
            _row("r1-short", "queue increase smaller than with more long connections (r1-40)", f"< {q40 / max(q3, 1.0) - 1:.2f}",
                 inc, bool(inc < q40 / max(q3, 1.0) - 1))]


def check_r1_tcp(m: M) -> list[dict[str, Any]]:
    case = "r1-tcp"
    rows = _share_rows(case, m, RATE_TOL)
    c = m.r.connections.set_index("name")
    cs = m.r.connection_series
    d = cs.pivot(index="time_s", columns="connection", values="delivered_bytes")
    w = d[(d.index > 0.3) & (d.index <= 0.5)]
    slopes = (w.iloc[-1] - w.iloc[0]) / (w.index[-1] - w.index[0]) * 8 / 1e6
    rows.append(_row(case, "steady throughput slopes 0.3-0.5 s: max / min", "equal", float(slopes.max() / slopes.min()),
                     bool(slopes.max() / slopes.min() < 1.05)))
    cw = cs.pivot(index="time_s", columns="connection", values="cwnd_bytes")
    before = cw[(cw.index > 0.45) & (cw.index < 0.5)]
    wmax = 150 * 1024
    rows.append(_row(case, "cwnd of every connection at 150 KB before 0.5 s (min / 150 KB)", 1.0,
                     float(before.min().min()) / wmax, bool(before.min().min() >= wmax - 9180)))
    rows.append(_row(case, "L1 fast retransmits after the dropped cell", 1, c.loc["L1", "fast_retransmits"],
                     bool(c.loc["L1", "fast_retransmits"] == 1 and c.loc["L1", "timeouts"] == 0)))
    after = cw[(cw.index > 0.5)]["L1"]
    low = float(after.min()) / wmax
    rows.append(_row(case, "L1 cwnd after fast recovery / 150 KB", "~0.5 (halves)", low, bool(0.4 <= low <= 0.6)))
    others = int(c.loc[["L2", "S1"], "retransmissions"].sum() + c.loc[["L2", "S1"], "timeouts"].sum())
    rows.append(_row(case, "L2 and S1 unaffected: their retransmissions + timeouts", 0, others, others == 0))
    port_drops = int(m.r.ports["dropped"].sum())
    rows.append(_row(case, "no congestion loss: cells dropped at ports", 0, port_drops, port_drops == 0))
    rows.append(_row(case, "cells lost to the injected fault", 1, m.r.summary["cells_dropped_by_faults"], None))
    q = m.qmax("sw1->sw2")
    rows.append(_row(case, "bottleneck queue (cells, max)", "< 1000", q, bool(q < 1000)))
    u = m.util5("sw1->sw2")
    before_u = u[u.index < 0.5]
    tu = measure.first_reach(before_u, 0.98 * float(before_u.max()))
    rows.append(_row(case, "D4 utilization reaches its maximum (ms)", 200, tu * 1e3, within_factor(tu * 1e3, 200)))
    return rows


def check_r2(m: M) -> list[dict[str, Any]]:
    case = "r2-cells"
    rows = _share_rows(case, m, R2_TOL)
    c = m.r.connections
    err = (c["acr_final_bps"] / (LINK_MBPS / 32 * 1e6) - 1).abs().max()
    rows.append(_row(case, "largest abs(final ACR / (155/32 Mbps) - 1) over 48 connections", f"< {R2_TOL:.0%}", err,
                     bool(err < R2_TOL)))
    names = list(m.acr.columns)
    t = m.settle(names, LINK_MBPS / 32)
    rows.append(_row(case, "convergence time of the rates (ms)", 16, t * 1e3, within_factor(t * 1e3, 16)))
    steady = lambda p: float(m.util5(p)[lambda s: s.index > 0.5 * m.duration].mean())  # noqa: E731
    ua, ub = steady("sw3->dstA"), steady("sw3->dstB")
    rows.append(_row(case, "link A utilization (steady, data cells)", "~1 minus 3 % RM", ua, bool(abs(ua - 0.97) < 0.02)))
    rows.append(_row(case, "link B utilization (steady, data cells)", "~0.5 minus 3 % RM", ub, bool(abs(ub - 0.485) < 0.02)))
    for port, pub in [("sw3->dstA", 25), ("sw3->dstB", 25)]:
        tu = m.time_to_max_util(port)
        rows.append(_row(case, f"{port} utilization reaches its maximum (ms)", f"< {pub}", tu * 1e3, bool(tu * 1e3 < pub * FACTOR)))
    for port, pub, label in [("sw2->sw3", 520, "switch 2 queue (cells, max)"), ("sw3->dstA", 270, "switch 3 queue at link A (cells, max)")]:
        q = m.qmax(port)
        rows.append(_row(case, label, pub, q, within_factor(q, pub)))
    return rows


def _abr_target_mbps(vbr_open: int) -> float:
    """ABR share on links A and C with ``vbr_open`` video connections reserving there."""
    return (LINK_MBPS - vbr_open * VBR_RESERVE_MBPS) / 16


def check_r2_vbr(m: M) -> list[dict[str, Any]]:
    case = "r2-vbr"
    rows = []
    for port, pub, label in [("sw3->dstA", 0.15, "link A"), ("sw2->sw3", 0.15, "link C"), ("sw3->dstB", 0.07, "link B")]:
        u = float(m.util5(port, "vbr_utilization")[lambda s: s.index > 0.1].mean())
        rows.append(_row(case, f"VBR utilization of {label}", f"~{pub:.2f}", u, bool(abs(u / pub - 1) < 0.3)))
    target = _abr_target_mbps(16)
    abr = [n for n in m.acr.columns]
    final = m.acr.iloc[-1][abr]
    err = float((final / target - 1).abs().max())
    rows.append(_row(case, "ABR final ACR (Mbps): (155 - 16 x 1.9) / 16", 7.8, float(final.mean()), bool(err < R2_TOL)))
    t = m.settle(abr, target)
    rows.append(_row(case, "ABR convergence time (ms)", 50, t * 1e3, bool(t * 1e3 <= 50 * FACTOR)))
    for port, label in [("sw2->sw3", "switch 2"), ("sw3->dstA", "switch 3")]:
        q = m.ports[port]["max_queue_cells"]
        steady = q[q.index > 0.1]
        rows.append(_row(case, f"ABR queue at {label}, steady mean of 5 ms maxima (cells)", "~50",
                         float(m.q5(port).iloc[int(0.1 / 0.005):].mean()), within_factor(float(m.q5(port).iloc[int(0.1 / 0.005):].mean()), 50)))
        rows.append(_row(case, f"ABR queue at {label}, steady max (cells)", "~200", float(steady.max()),
                         within_factor(float(steady.max()), 200)))
    return rows


def check_r2_staggered(m: M) -> list[dict[str, Any]]:
    case = "r2-vbr-staggered"
    rows = []
    abr = list(m.acr.columns)
    times_open, times_close = [], []
    # Event k: at k x 100 ms (k = 0..3) one more video per set opens; at 500 + k x 100 ms one closes.
    for k in range(4):
        t_ev = k * 0.1
        times_open.append(m.settle(abr, _abr_target_mbps(4 * (k + 1)), after=t_ev, until=t_ev + 0.1))
        t_ev = 0.5 + k * 0.1
        times_close.append(m.settle(abr, _abr_target_mbps(4 * (3 - k)), after=t_ev, until=t_ev + 0.1))
    worst = max(times_open[1:] + times_close)  # the event at t = 0 is the start-up itself
    rows.append(_row(case, "worst re-allocation convergence after a VBR open or close (ms)", "<= 20", worst * 1e3,
                     bool(worst * 1e3 <= 20 * FACTOR)))
    mo, mc = float(np.mean(times_open[1:])), float(np.mean(times_close))
    rows.append(_row(case, "mean convergence after an opening (ms)", "faster than closing", mo * 1e3, bool(mo < mc)))
    rows.append(_row(case, "mean convergence after a closing (ms)", "slower than opening", mc * 1e3, None))
    return rows


def check_r3(m: M) -> list[dict[str, Any]]:
    case = "r3-tcp"
    rows = []
    cs = m.r.connection_series
    d = cs.pivot(index="time_s", columns="connection", values="delivered_bytes")
    tcp = [f"tcp{i}" for i in range(1, 9)]
    edges = np.linspace(0, m.duration, 6)
    progress = True
    for a, b in zip(edges[:-1], edges[1:]):
        seg = d[(d.index > a) & (d.index <= b)][tcp]
        if len(seg) < 2 or (seg.iloc[-1] - seg.iloc[0] <= 0).any():
            progress = False
    rows.append(_row(case, "every TCP connection makes progress in every fifth of the run", "yes", float(progress), progress))
    c = m.r.connections.set_index("name")
    g = c.loc[tcp, "goodput_bps"] / 1e6
    ahead = float(g[["tcp7", "tcp8"]].mean() / g[tcp[:6]].mean())
    rows.append(_row(case, "tcp7-8 goodput / mean of tcp1-6", "slightly > 1", ahead, bool(1.0 <= ahead <= FACTOR)))
    spread = float(g[tcp[:6]].max() / g[tcp[:6]].min())
    rows.append(_row(case, "tcp1-6 goodput max / min", "almost identical", spread, None))
    agg = float(g.sum())
    rows.append(_row(case, "aggregate TCP goodput on link A / 135 Mbps", "~0.60", agg / 135, within_factor(agg / 135, 0.6)))
    rows.append(_row(case, "aggregate TCP goodput (Mbps)", "~81", agg, None))
    rows.append(_row(case, "timeouts (all TCP)", "not stated", float(c.loc[tcp, "timeouts"].sum()), None))
    rows.append(_row(case, "cells dropped at switches (1 KB buffers)", "not stated", float(m.r.ports["dropped"].sum()), None))
    return rows


def sensitivity_rows(ms: dict[str, M]) -> list[dict[str, Any]]:
    rows = []
    for key, port in [("r1-cells|in-band", "sw1->sw2"), ("r1-40|in-band", "sw1->sw2"), ("r1-40|backward-rm", "sw1->sw2"),
                      ("r2-cells|backward-rm", "sw2->sw3")]:
        if key in ms:
            base, variant = key.split("|")
            pub = {"r1-cells": 780, "r1-40": "~3 x 780", "r2-cells": 520}[base]
            rows.append(_row(key, f"queue at {port} (cells, max) [{variant}]", pub, ms[key].qmax(port), None))
    return rows


class KvrDynamics(Experiment):
    id = "kvr-dynamics"
    title = "Dynamics of the KVR explicit-rate allocator (R1, R2, R3)"
    source = "seed 004 (Kalampoukas, Varma, Ramakrishnan: UCSC-CRL-95-54)"

    def cases(self, quick: bool) -> list[Case]:
        return [Case(k, build(quick), {"variant": k.split("|")[1] if "|" in k else "as published"})
                for k, build in _specs().items()]

    def compare(self, cases, results) -> pd.DataFrame:
        ms = {k: M(r) for k, r in results.items()}
        rows: list[dict[str, Any]] = []
        if "r1-cells" in ms:
            rows += check_r1(ms["r1-cells"], ms.get("r1-40"))
        if "r1-short" in ms and "r1-cells" in ms and "r1-40" in ms:
            rows += check_r1_short(ms["r1-short"], ms["r1-cells"], ms["r1-40"])
        if "r1-tcp" in ms:
            rows += check_r1_tcp(ms["r1-tcp"])
        if "r2-cells" in ms:
            rows += check_r2(ms["r2-cells"])
        if "r2-vbr" in ms:
            rows += check_r2_vbr(ms["r2-vbr"])
        if "r2-vbr-staggered" in ms:
            rows += check_r2_staggered(ms["r2-vbr-staggered"])
        if "r3-tcp" in ms:
            rows += check_r3(ms["r3-tcp"])
        rows += sensitivity_rows(ms)
        return frame(rows)

    def plot_case(self, key: str, result: RunResult, figs: Path) -> list[Path]:
        """The seed's plots of one case (:func:`.kvr_plots.plot_case`)."""
        from .kvr_plots import plot_case

        return [plot_case(key, result, figs / f"{key.replace('|', '_')}.png")]

    def report(self, out: Path, comparison: pd.DataFrame, cases, results, quick: bool) -> str:
        figs = out / "figures"
        figs.mkdir(exist_ok=True)
        judged = comparison[comparison["verdict"] != "info"]
        n_pass = int((judged["verdict"] == "pass").sum())
        lines = [f"# {self.title}", "", f"Source: {self.source}. Claims: `atmsim/data/kvr_dynamics_claims.md`.", "",
                 f"**{n_pass} of {len(judged)} checks pass** (rows marked `info` are shown, not judged). "
                 f"'About' numbers are judged within a factor {FACTOR}; utilization is a 5 ms average of data cells, "
                 "queues the maximum over 5 ms, as the seed plots them.", "", "Choices where the seed is silent:", ""]
        lines += [f"- **{k}**: {v}" for k, v in CHOICES.items()]
        if quick:
            lines.append("\n*--quick: R1-TCP, R2-VBR and R3 shortened; some checks may not hold.*")
        for c in cases:
            key = c.key
            png = self.figures_of(key, results[key], figs)[0]
            sub = comparison[comparison["case"] == key][["metric", "published", "simulated", "verdict"]]
            lines += ["", f"## `{key}`", ""]
            if len(sub):
                lines += [markdown_table(sub, "{:.4g}"), ""]
            lines.append(f"![{key}](figures/{png.name})")
        return "\n".join(lines) + "\n"
