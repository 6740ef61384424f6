"""Seed 003 (Jain, Fahmy, Kalyanaraman, Goyal, ATM Forum/96-1267): "ABR switch algorithm
testing: a case study with ERICA". Its 24 experiments (figures 5-31), each run with the
seed's four graphs and its claim turned into measured checks with a verdict.

The claims are ../shared/reference/erica_testing_claims.md (copied into
``atmsim/data/erica_testing_claims.md``). Every check compares against the max-min oracle
(:func:`atmsim.max_min`) times the target utilization where the claim is about rates.
"Steady state" is the last 30 % of a run. What the seed leaves out and what is chosen is in
``experiments/erica-testing/README.md`` and :data:`erica_configs.CHOICES`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from ..result import RunResult
from .base import Case, Experiment, markdown_table
from .erica_configs import NETWORKS, acr_retention, allocator, bursty, n_sources, parking_lot, upstream, vbr_background

STEADY = 0.7  # steady state = t > STEADY x duration
RATE_TOL = 0.02  # converged rates within 2 % of target x max-min share (the criterion)
LINK_MBPS = 155.52


@dataclass
class Spec:
    id: str
    figure: int
    net: str
    algorithm: str
    build: Callable[[bool], dict[str, Any]]
    claim: str


def _specs() -> list[Spec]:
    A = allocator
    tr = {2: {"start": "10 ms", "stop": "20 ms"}}
    s = [
        Spec("one-source-erica", 5, "LAN", "ERICA", lambda q: n_sources("LAN", 1, "fig 5: one source, LAN, ERICA", A("LAN", False), q),
             "rate rises to the target; utilization at 95 %; no oscillation in steady state"),
        Spec("one-source-ericaplus", 6, "LAN", "ERICA+", lambda q: n_sources("LAN", 1, "fig 6: one source, LAN, ERICA+", A("LAN", True), q),
             "utilization 100 %; no oscillation; minimal queue"),
        Spec("two-source-erica", 8, "LAN", "ERICA", lambda q: n_sources("LAN", 2, "fig 8: two sources, LAN, ERICA", A("LAN", False), q),
             "each converges to 1/2 x target; fast convergence; small queue"),
        Spec("two-source-ericaplus", 9, "LAN", "ERICA+", lambda q: n_sources("LAN", 2, "fig 9: two sources, LAN, ERICA+", A("LAN", True), q),
             "each converges to 1/2 of the link; queue settles at the target delay; 100 % utilization"),
        Spec("parking-lot-erica", 11, "LAN", "ERICA", lambda q: parking_lot("LAN", "fig 11: parking lot, LAN, ERICA", A("LAN", False), q),
             "max-min allocation: all VCs equal on the bottleneck"),
        Spec("parking-lot-ericaplus", 12, "LAN", "ERICA+", lambda q: parking_lot("LAN", "fig 12: parking lot, LAN, ERICA+", A("LAN", True), q),
             "all rates equal; bottleneck link fully used"),
        Spec("upstream-plain", 14, "WAN", "ERICA, no max-min", lambda q: upstream("WAN", "fig 14: upstream, WAN, ERICA without max-min", A("WAN", False, max_min=False), q),
             "unfair: VC16 and VC17 stay at unequal rates"),
        Spec("upstream-maxmin", 15, "WAN", "ERICA + max-min", lambda q: upstream("WAN", "fig 15: upstream, WAN, ERICA with max-min", A("WAN", False), q),
             "VC16 = VC17 ~ 7/15 of link 2 each; VC15 < 1/15; equal slopes of cells received"),
        Spec("transient-plain", 16, "LAN", "ERICA, no fair share first", lambda q: n_sources("LAN", 2, "fig 16: transient, LAN, ERICA without fair share first", A("LAN", False, fair_share_first=False), q, tr),
             "queue spike when source 2 starts"),
        Spec("transient-fsfirst", 17, "LAN", "ERICA + fair share first", lambda q: n_sources("LAN", 2, "fig 17: transient, LAN, ERICA with fair share first", A("LAN", False), q, tr),
             "smaller queue spike than fig 16; fast transient response"),
    ]
    for fig, on, plus in [(18, 1, False), (19, 20, False), (20, 1, True), (21, 20, True)]:
        alg = "ERICA+" if plus else "ERICA"
        freq = "hf" if on == 1 else "lf"
        claim = ("ABR rates follow capacity; queue spikes drained; utilization dips ~ feedback delay" if not plus
                 else "higher utilization than ERICA; queues constrained")
        if fig == 19:
            claim = "same as fig 18; cells received ~ equal to fig 18"
        s.append(Spec(f"vbr-{freq}-{'ericaplus' if plus else 'erica'}", fig, "WAN", alg,
                      (lambda on, plus, fig: lambda q: vbr_background("WAN", f"fig {fig}: two sources + VBR {on} ms on/off, WAN, {'ERICA+' if plus else 'ERICA'}", A("WAN", plus), on, q))(on, plus, fig),
                      claim))
    bursts = [
        ("bursty-small", 22, 128, {}, False, "queues constrained"),
        ("bursty-medium", 23, 1024, {}, False, "queues constrained"),
        ("bursty-large", 24, 6144, {}, False, "queues grow: bursts not drained before the next burst"),
        ("bursty-large-bidir", 25, 6144, {"bidirectional_counting": True}, False, "queues constrained"),
        ("bursty-large-avgN", 26, 6144, {"source_averaging": 0.9}, False, "queues constrained"),
        ("bursty-small-ericaplus", 27, 128, {}, True, "adapts; target queue delay not reached"),
        ("bursty-medium-ericaplus", 28, 1024, {}, True, "adapts; queues drain before next burst"),
        ("bursty-large-ericaplus", 29, 6144, {}, True, "queues drain before the next burst, without bidirectional counting or averaging"),
    ]
    for bid, fig, size, opts, plus, claim in bursts:
        alg = ("ERICA+" if plus else "ERICA") + "".join(f" + {k}" for k in opts)
        s.append(Spec(bid, fig, "WAN", alg,
                      (lambda fig, size, opts, plus, alg: lambda q: bursty("WAN", f"fig {fig}: persistent + request/response ({size}-cell responses), WAN, {alg}", A("WAN", plus, **opts), size, q))(fig, size, opts, plus, alg),
                      claim))
    s.append(Spec("acr-retention", 30, "WAN", "ERICA", lambda q: acr_retention("WAN", "fig 30: ten ACR-retaining sources, WAN, ERICA", A("WAN", False), q),
                  "overload detected fast; all 10 settle at their optimal rates"))
    s.append(Spec("acr-retention-pervc", 31, "WAN", "ERICA + per-VC CCR", lambda q: acr_retention("WAN", "fig 31: ten ACR-retaining sources, WAN, ERICA with per-VC CCR", A("WAN", False, per_vc_ccr=True), q),
                  "smaller queues than fig 30"))
    return s


SPECS = _specs()

# ----------------------------------------------------------------------------- measurements


class M:
    """Measurements on one run."""

    def __init__(self, r: RunResult, spec: Spec):
        self.r, self.spec = r, spec
        self.T = r.summary["duration_s"]
        self.u = 1.0 if "+" in spec.algorithm and "ERICA+" in spec.algorithm else NETWORKS[spec.net]["u"]
        self.ab = r.abr_series
        self.ps = r.port_series
        self.shares = r.connections.set_index("name")["fair_share_bps"] / 1e6

    def steady(self, df: pd.DataFrame) -> pd.DataFrame:
        return df[df["time_s"] > STEADY * self.T]

    def acr(self, src: str) -> float:
        d = self.steady(self.ab[self.ab["source"] == src])
        return float(d["acr_mbps"].mean())

    def acr_spread(self, src: str) -> float:
        d = self.steady(self.ab[self.ab["source"] == src])["acr_mbps"]
        return float((d.max() - d.min()) / d.mean())

    def sources(self) -> list[str]:
        return [s for s in self.ab["source"].unique() if "(reverse)" not in s]

    def target(self, src: str) -> float:
        return float(self.shares[src]) * self.u

    def port(self, name: str) -> pd.DataFrame:
        return self.ps[self.ps["port"] == name]

    def util(self, port: str) -> float:
        return float(self.steady(self.port(port))["utilization"].mean())

    def qmax(self, port: str, t0: float = 0.0, t1: float = 1e9) -> float:
        d = self.port(port)
        d = d[(d["time_s"] > t0) & (d["time_s"] <= t1)]
        return float(d["max_queue_cells"].max())

    def q_steady(self, port: str) -> pd.Series:
        return self.steady(self.port(port))["queue_cells"]

    def cells(self, src: str) -> float:
        return float(self.ab[self.ab["source"] == src]["cells_received"].iloc[-1])

    def slope(self, src: str) -> float:
        d = self.steady(self.ab[self.ab["source"] == src])
        return float((d["cells_received"].iloc[-1] - d["cells_received"].iloc[0]) / (d["time_s"].iloc[-1] - d["time_s"].iloc[0]))

    def settle_time(self, src: str, tol: float = 0.05, after: float = 0.0) -> float:
        """First time after which the ACR stays within tol of its target (s, from ``after``)."""
        d = self.ab[(self.ab["source"] == src) & (self.ab["time_s"] >= after)]
        ok = (d["acr_mbps"] - self.target(src)).abs() <= tol * self.target(src)
        bad = d["time_s"][~ok.values]
        return float((bad.max() if len(bad) else d["time_s"].iloc[0]) - after)


def t0_cells(net: str) -> float:
    t0 = {"LAN": 100e-6, "WAN": 500e-6}[net]
    return t0 * LINK_MBPS * 1e6 / 424


# ----------------------------------------------------------------------------- checks


def _row(spec: Spec, metric: str, published: str, simulated: float, ok: bool) -> dict[str, Any]:
    return {"experiment": spec.id, "case": f"fig {spec.figure}", "metric": metric, "published": published,
            "simulated": round(float(simulated), 6), "verdict": "pass" if ok else "fail"}


def _rate_rows(m: M, spec: Spec, srcs: list[str]) -> list[dict[str, Any]]:
    rows = []
    for s in srcs:
        tgt = m.target(s)
        a = m.acr(s)
        rows.append(_row(spec, f"{s} steady ACR (Mbps)", f"target x max-min share = {tgt:.3f} +/- 2 %", a, abs(a - tgt) <= RATE_TOL * tgt))
    return rows


def check(spec: Spec, m: M, all_m: dict[str, M]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    R = rows.append
    bott = {"parking-lot": "sw2->sw3", "upstream": "sw2->sw3"}.get(spec.id.rsplit("-", 1)[0], "sw1->sw2")
    t0c = t0_cells(spec.net)
    i = spec.id
    if i == "one-source-erica":
        rows += _rate_rows(m, spec, ["S1"])
        R(_row(spec, "bottleneck utilization", "0.95 +/- 0.01", m.util(bott), abs(m.util(bott) - 0.95) <= 0.01))
        R(_row(spec, "S1 steady ACR spread (max-min)/mean", "no oscillation: < 0.01", m.acr_spread("S1"), m.acr_spread("S1") < 0.01))
    elif i == "one-source-ericaplus":
        R(_row(spec, "bottleneck utilization", "100 %: >= 0.98", m.util(bott), m.util(bott) >= 0.98))
        R(_row(spec, "S1 steady ACR spread (max-min)/mean", "no oscillation: < 0.01", m.acr_spread("S1"), m.acr_spread("S1") < 0.01))
        R(_row(spec, "steady max queue (cells)", f"minimal: <= T0 x link = {t0c:.0f}", m.q_steady(bott).max(), m.q_steady(bott).max() <= t0c))
    elif i == "two-source-erica":
        rows += _rate_rows(m, spec, ["S1", "S2"])
        st = max(m.settle_time("S1"), m.settle_time("S2"))
        R(_row(spec, "time until both ACRs stay within 5 % (ms)", "fast convergence: < 5 ms", st * 1e3, st < 5e-3))
        R(_row(spec, "max queue (cells)", "small queue: < 100", m.qmax(bott), m.qmax(bott) < 100))
    elif i == "two-source-ericaplus":
        rows += _rate_rows(m, spec, ["S1", "S2"])
        q = m.q_steady(bott).mean()
        R(_row(spec, "steady mean queue (cells)", f"target delay 100 us = {t0c:.1f} cells +/- 50 %", q, 0.5 * t0c <= q <= 1.5 * t0c))
        R(_row(spec, "bottleneck utilization", "100 %: >= 0.98", m.util(bott), m.util(bott) >= 0.98))
    elif i == "parking-lot-erica":
        rows += _rate_rows(m, spec, m.sources())
    elif i == "parking-lot-ericaplus":
        a = [m.acr(s) for s in m.sources()]
        spread = (max(a) - min(a)) / np.mean(a)
        R(_row(spec, "spread of steady ACRs (max-min)/mean", "all equal: < 0.02", spread, spread < 0.02))
        R(_row(spec, "bottleneck utilization", "fully used: >= 0.98", m.util(bott), m.util(bott) >= 0.98))
    elif i == "upstream-plain":
        a, b = m.acr("VC16"), m.acr("VC17")
        d = abs(a - b) / ((a + b) / 2)
        R(_row(spec, "|VC16 - VC17| / mean steady ACR", "unfair: > 0.05", d, d > 0.05))
    elif i == "upstream-maxmin":
        rows += _rate_rows(m, spec, ["VC16", "VC17"])
        a15, lim = m.acr("VC15"), m.target("VC15")
        R(_row(spec, "VC15 steady ACR (Mbps)", f"< 1/15 of link 1 x target = {lim:.3f} (+2 %)", a15, a15 <= lim * (1 + RATE_TOL)))
        r = m.slope("VC16") / m.slope("VC17")
        R(_row(spec, "slope ratio of cells received VC16/VC17", "equal slopes: 1 +/- 0.02", r, abs(r - 1) <= 0.02))
        other = all_m.get("upstream-plain")
        if other is not None:
            a, b = m.acr("VC16"), m.acr("VC17")
            R(_row(spec, "|VC16 - VC17| / mean (fig 15 vs fig 14)", f"fairer than fig 14 ({abs(other.acr('VC16') - other.acr('VC17')) / ((other.acr('VC16') + other.acr('VC17')) / 2):.3f})",
                   abs(a - b) / ((a + b) / 2), abs(a - b) < abs(other.acr("VC16") - other.acr("VC17"))))
    elif i == "transient-plain":
        spike, before = m.qmax(bott, 0.010, 0.020), m.qmax(bott, 0.005, 0.010)
        R(_row(spec, "max queue while source 2 is active (cells)", f"queue spike: > 2 x max queue 5-10 ms ({before:.0f})", spike, spike > 2 * max(before, 1)))
    elif i == "transient-fsfirst":
        spike = m.qmax(bott, 0.010, 0.020)
        other = all_m.get("transient-plain")
        if other is not None:
            ref = other.qmax(bott, 0.010, 0.020)
            R(_row(spec, "max queue while source 2 is active (cells)", f"smaller than fig 16 ({ref:.0f})", spike, spike < ref))
        st = m.settle_time("S2", after=0.010)
        R(_row(spec, "S2 time to settle within 5 % of its share (ms)", "fast transient response: < 2 ms", st * 1e3, st < 2e-3))
    elif i.startswith("vbr-"):
        q = m.q_steady(bott)
        drained = float((q <= 0.01 * max(q.max(), 1)).mean())
        R(_row(spec, "share of steady samples with the queue drained (<= 1 % of max)", "queue spikes drained: > 0.05", drained, drained > 0.05))
        util = m.util(bott)
        if i == "vbr-lf-erica":
            # Fold the total ACR over the 40 ms VBR period (1 ms bins): following capacity
            # means reaching the ABR capacity left with VBR on (U x L - 0.8 L) and without
            # (U x L) at some phase, whatever the feedback delay shifts the phase by.
            ab = m.steady(m.ab[m.ab["source"].isin(["S1", "S2"])]).groupby("time_s")["acr_mbps"].sum()
            bins = ((ab.index.values % 0.040) * 1000).astype(int)
            prof = ab.groupby(bins).mean()
            cap_on, cap_off = (m.u - 0.8) * LINK_MBPS, m.u * LINK_MBPS
            R(_row(spec, "folded total ACR max (Mbps)", f">= 0.9 x ABR capacity with VBR off = {0.9 * cap_off:.1f}", prof.max(), prof.max() >= 0.9 * cap_off))
            R(_row(spec, "folded total ACR min (Mbps)", f"<= 1.5 x ABR capacity with VBR on = {1.5 * cap_on:.1f}", prof.min(), prof.min() <= 1.5 * cap_on))
            other = all_m.get("vbr-hf-erica")
            if other is not None:
                c19 = m.cells("S1") + m.cells("S2")
                c18 = other.cells("S1") + other.cells("S2")
                R(_row(spec, "ABR cells received, fig 19 / fig 18", "approximately equal: 1 +/- 0.1", c19 / c18, abs(c19 / c18 - 1) <= 0.1))
        if i == "vbr-hf-erica":
            R(_row(spec, "bottleneck utilization", "generally high: >= 0.85", util, util >= 0.85))
        if "ericaplus" in i:
            other = all_m.get(i.replace("ericaplus", "erica"))
            if other is not None:
                ref = other.util(bott)
                R(_row(spec, "bottleneck utilization", f"higher than ERICA ({ref:.4f})", util, util > ref))
            mid = m.port(bott)
            mid = mid[(mid["time_s"] > 0.4 * m.T) & (mid["time_s"] <= STEADY * m.T)]["max_queue_cells"].max()
            R(_row(spec, "steady max queue / max queue 40-70 % of run", "queues constrained (not growing): <= 1.1", q.max() / max(mid, 1), q.max() <= 1.1 * max(mid, 1)))
    elif i.startswith("bursty-"):
        q = m.q_steady(bott)
        low = float(q.min()) / max(float(q.max()), 1.0)
        drains = low <= 0.05
        if i == "bursty-large":
            R(_row(spec, "steady min queue / steady max queue", "queues grow, not drained: > 0.05", low, not drains))
        elif i == "bursty-small-ericaplus":
            tq = float(q.mean())
            R(_row(spec, "steady mean queue (cells)", f"target queue delay not reached: < T0 x link = {t0c:.0f}", tq, tq < t0c))
        else:
            R(_row(spec, "steady min queue / steady max queue", "queues constrained, drained between bursts: <= 0.05", low, drains))
    elif i == "acr-retention":
        rows += _rate_rows(m, spec, m.sources())
        d = m.port(bott)
        peak_t = float(d.loc[d["max_queue_cells"].idxmax(), "time_s"])
        R(_row(spec, "time from 100 ms to the queue peak (ms)", "overload detected fast: < 2 feedback delays = 20 ms", (peak_t - 0.1) * 1e3, peak_t - 0.1 < 0.020))
    elif i == "acr-retention-pervc":
        other = all_m.get("acr-retention")
        if other is not None:
            ref = other.qmax(bott, 0.1)
            R(_row(spec, "max queue after 100 ms (cells)", f"smaller than fig 30 ({ref:.0f})", m.qmax(bott, 0.1), m.qmax(bott, 0.1) < ref))
        rows += _rate_rows(m, spec, m.sources())
    return rows


class EricaTesting(Experiment):
    id = "erica-testing"
    title = "ABR switch algorithm testing: a case study with ERICA"
    source = "seed 003 (Jain, Fahmy, Kalyanaraman, Goyal: ATM Forum/96-1267)"

    def cases(self, quick: bool) -> list[Case]:
        return [Case(s.id, s.build(quick), {"figure": s.figure, "network": s.net, "algorithm": s.algorithm}) for s in SPECS]

    def compare(self, cases, results) -> pd.DataFrame:
        ms = {s.id: M(results[s.id], s) for s in SPECS if s.id in results}
        rows = []
        for s in SPECS:
            if s.id in ms:
                rows += check(s, ms[s.id], ms)
        return pd.DataFrame(rows, columns=["experiment", "case", "metric", "published", "simulated", "verdict"])

    def report(self, out: Path, comparison: pd.DataFrame, cases, results, quick: bool) -> str:
        from ..plots import plot_abr

        figs = out / "figures"
        figs.mkdir(exist_ok=True)
        lines = [f"# {self.title}", "", f"Source: {self.source}. Claims: `atmsim/data/erica_testing_claims.md`.", ""]
        n_pass = int((comparison["verdict"] == "pass").sum())
        lines.append(f"**{n_pass} of {len(comparison)} checks pass.** Steady state = last {100 - STEADY * 100:.0f} % of each run; "
                     f"rates are compared with the max-min oracle x target utilization, within {RATE_TOL:.0%}.")
        if quick:
            lines.append("\n*--quick: runs shortened to 40 %; steady-state checks may not hold.*")
        for s in SPECS:
            if s.id not in results:
                continue
            png = plot_abr(results[s.id], figs / f"{s.id}.png", title=f"fig {s.figure}: {s.id} ({s.algorithm}, {s.net})")
            sub = comparison[comparison["experiment"] == s.id][["metric", "published", "simulated", "verdict"]]
            lines += ["", f"## Figure {s.figure}: `{s.id}` ({s.algorithm}, {s.net})", "", f"Seed's claim: {s.claim}.", "",
                      markdown_table(sub, "{:.4g}"), "", f"![{s.id}](figures/{png.name})"]
        return "\n".join(lines) + "\n"
