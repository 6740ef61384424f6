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

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from ..result import RunResult
from . import measure
from .base import Case, Experiment, markdown_table
from .checks import Check, ForEach, frame, run_checks
from .erica_configs import NETWORKS, acr_retention, allocator, bursty, n_sources, parking_lot, upstream, vbr_background

STEADY = measure.STEADY  # steady state = t > STEADY x duration
RATE_TOL = 0.02  # converged rates within 2 % of target x max-min share (the criterion)
LINK_MBPS = 155.52


# ----------------------------------------------------------------------------- measurements


class M:
    """Measurements on one run; ``others`` are the measurements of the other figures."""

    def __init__(self, r: RunResult, spec: "Spec", others: dict[str, "M"] | None = None):
        self.r, self.spec = r, spec
        self.others = others if others is not None else {}
        self.T = r.summary["duration_s"]
        self.u = 1.0 if "+" in spec.algorithm and "ERICA+" in spec.algorithm else NETWORKS[spec.net]["u"]
        self.ab = r.abr_series
        self.ps = r.port_series
        self.shares = r.connections.set_index("name")["fair_share_bps"] / 1e6
        self.bott = spec.bottleneck
        self.t0c = t0_cells(spec.net)

    def other(self, case: str) -> "M":
        return self.others[case]

    def steady(self, df: pd.DataFrame) -> pd.DataFrame:
        return measure.steady(df, self.T)

    def acr(self, src: str) -> float:
        d = self.steady(self.ab[self.ab["source"] == src])
        return float(d["acr_mbps"].mean())

    def acr_spread(self, src: str) -> float:
        return measure.spread(self.steady(self.ab[self.ab["source"] == src])["acr_mbps"])

    def sources(self) -> list[str]:
        return [s for s in self.ab["source"].unique() if "(reverse)" not in s]

    def target(self, src: str) -> float:
        return float(self.shares[src]) * self.u

    def port(self, name: str) -> pd.DataFrame:
        return self.ps[self.ps["port"] == name]

    def util(self, port: str | None = None) -> float:
        return float(self.steady(self.port(port or self.bott))["utilization"].mean())

    def qmax(self, port: str | None = None, t0: float = 0.0, t1: float = 1e9) -> float:
        return measure.window_max(self.port(port or self.bott).set_index("time_s")["max_queue_cells"], t0, t1)

    def q_steady(self, port: str | None = None) -> pd.Series:
        return self.steady(self.port(port or self.bott))["queue_cells"]

    def cells(self, src: str) -> float:
        return float(self.ab[self.ab["source"] == src]["cells_received"].iloc[-1])

    def slope(self, src: str) -> float:
        d = self.steady(self.ab[self.ab["source"] == src])
        return measure.slope(d.set_index("time_s")["cells_received"])

    def settle_time(self, srcs: list[str], tol: float = 0.05, after: float = 0.0) -> float:
        """When the ACRs of ``srcs`` stay within ``tol`` of their targets (s, from ``after``)."""
        acr = measure.wide(self.ab[self.ab["source"].isin(srcs)], "acr_mbps")
        return measure.settle_time(acr, srcs, {s: self.target(s) for s in srcs}, tol, after)


def t0_cells(net: str) -> float:
    t0 = {"LAN": 100e-6, "WAN": 500e-6}[net]
    return t0 * LINK_MBPS * 1e6 / 424


# ----------------------------------------------------------------------------- checks, by claim


def rate(src: str) -> Check:
    """Converged rate = target utilization x max-min share, within RATE_TOL."""
    return Check(f"{src} steady ACR (Mbps)", lambda m: f"target x max-min share = {m.target(src):.3f} +/- 2 %",
                 lambda m: m.acr(src), lambda m, a: abs(a - m.target(src)) <= RATE_TOL * m.target(src))


def rates(*srcs: str) -> list[Check]:
    return [rate(s) for s in srcs]


ALL_RATES = ForEach(lambda m: m.sources(), rate)


def utilization(published: str, ok: Callable[[float], bool], **kw: Any) -> Check:
    """Steady bottleneck utilization."""
    return Check("bottleneck utilization", published, lambda m: m.util(), lambda m, u: ok(u), **kw)


def no_oscillation(src: str) -> Check:
    return Check(f"{src} steady ACR spread (max-min)/mean", "no oscillation: < 0.01", lambda m: m.acr_spread(src),
                 lambda m, v: v < 0.01)


def _drained_share(m: M) -> float:
    q = m.q_steady()
    return float((q <= 0.01 * max(q.max(), 1)).mean())


QUEUE_SPIKES_DRAINED = Check("share of steady samples with the queue drained (<= 1 % of max)", "queue spikes drained: > 0.05",
                             _drained_share, lambda m, v: v > 0.05)
#: Figures 20/21 (ERICA+): the seed says "the queue lengths are constrained", not drained;
#: ERICA+ holds a queue near T0 by design. Shown, not judged (README: criteria changed).
QUEUE_DRAINED_SHOWN = Check("share of steady samples with the queue drained (<= 1 % of max)",
                            "not claimed for ERICA+ (holds a queue near T0)", _drained_share, lambda m, v: None)


def _min_over_max(m: M) -> float:
    q = m.q_steady()
    return float(q.min()) / max(float(q.max()), 1.0)


def _not_growing(m: M) -> float:
    return m.q_steady().max() / max(_mid_max(m), 1)


def _mid_max(m: M) -> float:
    mid = m.port(m.bott)
    return mid[(mid["time_s"] > 0.4 * m.T) & (mid["time_s"] <= STEADY * m.T)]["max_queue_cells"].max()


QUEUES_NOT_GROWING = Check("steady max queue / max queue 40-70 % of run", "queues constrained (not growing): <= 1.1", _not_growing,
                           lambda m, v: m.q_steady().max() <= 1.1 * max(_mid_max(m), 1))


def higher_util_than_erica(erica: str) -> Check:
    return Check("bottleneck utilization", lambda m: f"higher than ERICA ({m.other(erica).util(m.bott):.4f})", lambda m: m.util(),
                 lambda m, u: u > m.other(erica).util(m.bott), needs=(erica,))


def _rel_diff(m: M, a: str, b: str) -> float:
    x, y = m.acr(a), m.acr(b)
    return abs(x - y) / ((x + y) / 2)


def _fold_total_acr(m: M) -> pd.Series:
    """Total ACR folded over the 40 ms VBR period (1 ms bins)."""
    ab = m.steady(m.ab[m.ab["source"].isin(["S1", "S2"])]).groupby("time_s")["acr_mbps"].sum()
    bins = ((ab.index.values % 0.040) * 1000).astype(int)
    return ab.groupby(bins).mean()


def _cap_on(m: M) -> float:
    return (m.u - 0.8) * LINK_MBPS


def _cap_off(m: M) -> float:
    return m.u * LINK_MBPS


def _abr_cells(m: M) -> float:
    return m.cells("S1") + m.cells("S2")


def _overload_end_after_cap(m: M) -> float:
    """Seconds from the end of the 10 Mb/s cap (100 ms) until the queue stops growing: the
    first sample at 95 % of its peak. The peak itself sits on a flat plateau (a 2 % bump),
    so its position says nothing about how fast the overload was detected."""
    q = m.port(m.bott).set_index("time_s")["max_queue_cells"]
    q = q[q.index > 0.1]
    return measure.first_reach(q, 0.95 * float(q.max())) - 0.1


def final_rate(src: str) -> Check:
    """Figures 30/31: "all the ten sources stabilize at their optimal rates after that": the
    rate each source ends at, within RATE_TOL of target x max-min share."""
    return Check(f"{src} final ACR (Mbps)", lambda m: f"stabilizes at target x max-min share = {m.target(src):.3f} +/- 2 %",
                 lambda m: float(m.ab[m.ab["source"] == src]["acr_mbps"].iloc[-1]),
                 lambda m, a: abs(a - m.target(src)) <= RATE_TOL * m.target(src))


ALL_FINAL_RATES = ForEach(lambda m: m.sources(), final_rate)


BURSTS_DRAINED = Check("steady min queue / steady max queue", "queues constrained, drained between bursts: <= 0.05", _min_over_max,
                       lambda m, v: v <= 0.05)

# ----------------------------------------------------------------------------- the seed's figures


@dataclass
class Spec:
    """One figure of seed 003: its configuration, its claim, and the checks of that claim."""

    id: str
    figure: int
    net: str
    algorithm: str
    build: Callable[[bool], dict[str, Any]]
    claim: str
    checks: list[Check | ForEach] = field(default_factory=list)

    @property
    def bottleneck(self) -> str:
        return {"parking-lot": "sw2->sw3", "upstream": "sw2->sw3"}.get(self.id.rsplit("-", 1)[0], "sw1->sw2")


def _specs() -> list[Spec]:
    A = allocator
    tr = {2: {"start": "10 ms", "stop": "20 ms"}}
    full = utilization("100 %: >= 0.98", lambda u: u >= 0.98)
    s = [
        Spec("one-source-erica", 5, "LAN", "ERICA", lambda q: n_sources("LAN", 1, "fig 5: one source, LAN, ERICA", A("LAN", False), q),
             "rate rises to the target; utilization at 95 %; no oscillation in steady state",
             [rate("S1"), utilization("0.95 +/- 0.01", lambda u: abs(u - 0.95) <= 0.01), no_oscillation("S1")]),
        Spec("one-source-ericaplus", 6, "LAN", "ERICA+", lambda q: n_sources("LAN", 1, "fig 6: one source, LAN, ERICA+", A("LAN", True), q),
             "utilization 100 %; no oscillation; minimal queue",
             [full, no_oscillation("S1"),
              Check("steady max queue (cells)", lambda m: f"minimal: <= T0 x link = {m.t0c:.0f}", lambda m: m.q_steady().max(),
                    lambda m, q: q <= m.t0c)]),
        Spec("two-source-erica", 8, "LAN", "ERICA", lambda q: n_sources("LAN", 2, "fig 8: two sources, LAN, ERICA", A("LAN", False), q),
             "each converges to 1/2 x target; fast convergence; small queue",
             [*rates("S1", "S2"),
              Check("time until both ACRs stay within 5 % (ms)", "fast convergence: < 5 ms", lambda m: m.settle_time(["S1", "S2"]),
                    lambda m, t: t < 5e-3, scale=1e3),
              Check("max queue (cells)", "small queue: < 100", lambda m: m.qmax(), lambda m, q: q < 100)]),
        Spec("two-source-ericaplus", 9, "LAN", "ERICA+", lambda q: n_sources("LAN", 2, "fig 9: two sources, LAN, ERICA+", A("LAN", True), q),
             "each converges to 1/2 of the link; queue settles at the target delay; 100 % utilization",
             [*rates("S1", "S2"),
              Check("steady mean queue (cells)", lambda m: f"target delay 100 us = {m.t0c:.1f} cells +/- 50 %", lambda m: m.q_steady().mean(),
                    lambda m, q: 0.5 * m.t0c <= q <= 1.5 * m.t0c),
              full]),
        Spec("parking-lot-erica", 11, "LAN", "ERICA", lambda q: parking_lot("LAN", "fig 11: parking lot, LAN, ERICA", A("LAN", False), q),
             "max-min allocation: all VCs equal on the bottleneck", [ALL_RATES]),
        Spec("parking-lot-ericaplus", 12, "LAN", "ERICA+", lambda q: parking_lot("LAN", "fig 12: parking lot, LAN, ERICA+", A("LAN", True), q),
             "all rates equal; bottleneck link fully used",
             [Check("spread of steady ACRs (max-min)/mean", "all equal: < 0.02", lambda m: measure.spread([m.acr(x) for x in m.sources()]),
                    lambda m, v: v < 0.02),
              utilization("fully used: >= 0.98", lambda u: u >= 0.98)]),
        Spec("upstream-plain", 14, "WAN", "ERICA, no max-min", lambda q: upstream("WAN", "fig 14: upstream, WAN, ERICA without max-min", A("WAN", False, max_min=False), q),
             "unfair: VC16 and VC17 stay at unequal rates",
             [Check("|VC16 - VC17| / mean steady ACR", "unfair: > 0.05", lambda m: _rel_diff(m, "VC16", "VC17"), lambda m, d: d > 0.05)]),
        Spec("upstream-maxmin", 15, "WAN", "ERICA + max-min", lambda q: upstream("WAN", "fig 15: upstream, WAN, ERICA with max-min", A("WAN", False), q),
             "VC16 = VC17 ~ 7/15 of link 2 each; VC15 < 1/15; equal slopes of cells received",
             [*rates("VC16", "VC17"),
              Check("VC15 steady ACR (Mbps)", lambda m: f"< 1/15 of link 1 x target = {m.target('VC15'):.3f} (+2 %)", lambda m: m.acr("VC15"),
                    lambda m, a: a <= m.target("VC15") * (1 + RATE_TOL)),
              Check("slope ratio of cells received VC16/VC17", "equal slopes: 1 +/- 0.02", lambda m: m.slope("VC16") / m.slope("VC17"),
                    lambda m, r: abs(r - 1) <= 0.02),
              Check("|VC16 - VC17| / mean (fig 15 vs fig 14)",
                    lambda m: f"fairer than fig 14 ({_rel_diff(m.other('upstream-plain'), 'VC16', 'VC17'):.3f})",
                    lambda m: _rel_diff(m, "VC16", "VC17"),
                    lambda m, _: abs(m.acr("VC16") - m.acr("VC17")) < abs(m.other("upstream-plain").acr("VC16") - m.other("upstream-plain").acr("VC17")),
                    needs=("upstream-plain",))]),
        Spec("transient-plain", 16, "LAN", "ERICA, no fair share first", lambda q: n_sources("LAN", 2, "fig 16: transient, LAN, ERICA without fair share first", A("LAN", False, fair_share_first=False), q, tr),
             "queue spike when source 2 starts",
             [Check("max queue while source 2 is active (cells)", lambda m: f"queue spike: > 2 x max queue 5-10 ms ({m.qmax(None, 0.005, 0.010):.0f})",
                    lambda m: m.qmax(None, 0.010, 0.020), lambda m, q: q > 2 * max(m.qmax(None, 0.005, 0.010), 1))]),
        Spec("transient-fsfirst", 17, "LAN", "ERICA + fair share first", lambda q: n_sources("LAN", 2, "fig 17: transient, LAN, ERICA with fair share first", A("LAN", False), q, tr),
             "smaller queue spike than fig 16; fast transient response",
             [Check("max queue while source 2 is active (cells)", lambda m: f"smaller than fig 16 ({m.other('transient-plain').qmax(m.bott, 0.010, 0.020):.0f})",
                    lambda m: m.qmax(None, 0.010, 0.020), lambda m, q: q < m.other("transient-plain").qmax(m.bott, 0.010, 0.020),
                    needs=("transient-plain",)),
              Check("S2 time to settle within 5 % of its share (ms)", "fast transient response: < 2 ms",
                    lambda m: m.settle_time(["S2"], after=0.010), lambda m, t: t < 2e-3, scale=1e3)]),
    ]
    vbr_checks: dict[int, list[Check | ForEach]] = {
        18: [QUEUE_SPIKES_DRAINED, utilization("generally high: >= 0.85", lambda u: u >= 0.85)],
        19: [QUEUE_SPIKES_DRAINED,
             # Following capacity means reaching the ABR capacity left with VBR on (U x L - 0.8 L)
             # and without (U x L) at some phase, whatever the feedback delay shifts the phase by.
             Check("folded total ACR max (Mbps)", lambda m: f">= 0.9 x ABR capacity with VBR off = {0.9 * _cap_off(m):.1f}",
                   lambda m: _fold_total_acr(m).max(), lambda m, v: v >= 0.9 * _cap_off(m)),
             Check("folded total ACR min (Mbps)", lambda m: f"<= 1.5 x ABR capacity with VBR on = {1.5 * _cap_on(m):.1f}",
                   lambda m: _fold_total_acr(m).min(), lambda m, v: v <= 1.5 * _cap_on(m)),
             Check("ABR cells received, fig 19 / fig 18", "approximately equal: 1 +/- 0.1",
                   lambda m: _abr_cells(m) / _abr_cells(m.other("vbr-hf-erica")), lambda m, r: abs(r - 1) <= 0.1,
                   needs=("vbr-hf-erica",))],
        20: [QUEUE_DRAINED_SHOWN, higher_util_than_erica("vbr-hf-erica"), QUEUES_NOT_GROWING],
        21: [QUEUE_DRAINED_SHOWN, higher_util_than_erica("vbr-lf-erica"), QUEUES_NOT_GROWING],
    }
    for fig, on, plus in [(18, 1, False), (19, 20, False), (20, 1, True), (21, 20, True)]:
        alg = "ERICA+" if plus else "ERICA"
        freq = "hf" if on == 1 else "lf"
        claim = ("ABR rates follow capacity; queue spikes drained; utilization dips ~ feedback delay" if not plus
                 else "higher utilization than ERICA; queues constrained")
        if fig == 19:
            claim = "same as fig 18; cells received ~ equal to fig 18"
        s.append(Spec(f"vbr-{freq}-{'ericaplus' if plus else 'erica'}", fig, "WAN", alg,
                      (lambda on, plus, fig: lambda q: vbr_background("WAN", f"fig {fig}: two sources + VBR {on} ms on/off, WAN, {'ERICA+' if plus else 'ERICA'}", A("WAN", plus), on, q))(on, plus, fig),
                      claim, vbr_checks[fig]))
    grow = Check("steady min queue / steady max queue", "queues grow, not drained: > 0.05", _min_over_max, lambda m, v: not v <= 0.05)
    below_target = Check("steady mean queue (cells)", lambda m: f"target queue delay not reached: < T0 x link = {m.t0c:.0f}",
                         lambda m: float(m.q_steady().mean()), lambda m, q: q < m.t0c)
    bursts = [
        ("bursty-small", 22, 128, {}, False, "queues constrained", BURSTS_DRAINED),
        ("bursty-medium", 23, 1024, {}, False, "queues constrained", BURSTS_DRAINED),
        ("bursty-large", 24, 6144, {}, False, "queues grow: bursts not drained before the next burst", grow),
        ("bursty-large-bidir", 25, 6144, {"bidirectional_counting": True}, False, "queues constrained", BURSTS_DRAINED),
        ("bursty-large-avgN", 26, 6144, {"source_averaging": 0.9}, False, "queues constrained", BURSTS_DRAINED),
        ("bursty-small-ericaplus", 27, 128, {}, True, "adapts; target queue delay not reached", below_target),
        ("bursty-medium-ericaplus", 28, 1024, {}, True, "adapts; queues drain before next burst", BURSTS_DRAINED),
        ("bursty-large-ericaplus", 29, 6144, {}, True, "queues drain before the next burst, without bidirectional counting or averaging", BURSTS_DRAINED),
    ]
    for bid, fig, size, opts, plus, claim, check in bursts:
        alg = ("ERICA+" if plus else "ERICA") + "".join(f" + {k}" for k in opts)
        s.append(Spec(bid, fig, "WAN", alg,
                      (lambda fig, size, opts, plus, alg: lambda q: bursty("WAN", f"fig {fig}: persistent + request/response ({size}-cell responses), WAN, {alg}", A("WAN", plus, **opts), size, q))(fig, size, opts, plus, alg),
                      claim, [check]))
    s.append(Spec("acr-retention", 30, "WAN", "ERICA", lambda q: acr_retention("WAN", "fig 30: ten ACR-retaining sources, WAN, ERICA", A("WAN", False), q),
                  "overload detected fast; all 10 settle at their optimal rates",
                  [ALL_FINAL_RATES,
                   Check("time from 100 ms until the queue stops growing (95 % of its peak, ms)",
                         "overload detected rapidly: < 2 feedback delays = 20 ms", _overload_end_after_cap,
                         lambda m, t: t < 0.020, scale=1e3)]))
    s.append(Spec("acr-retention-pervc", 31, "WAN", "ERICA + per-VC CCR", lambda q: acr_retention("WAN", "fig 31: ten ACR-retaining sources, WAN, ERICA with per-VC CCR", A("WAN", False, per_vc_ccr=True), q),
                  "smaller queues than fig 30",
                  [Check("max queue after 100 ms (cells)", lambda m: f"smaller than fig 30 ({m.other('acr-retention').qmax(m.bott, 0.1):.0f})",
                         lambda m: m.qmax(None, 0.1), lambda m, q: q < m.other("acr-retention").qmax(m.bott, 0.1), needs=("acr-retention",)),
                   ALL_RATES]))
    return s


SPECS = _specs()


def check(spec: Spec, m: M) -> list[dict[str, Any]]:
    """The comparison rows of one figure: its checks, in the order they are declared."""
    return run_checks(spec.checks, spec.id, f"fig {spec.figure}", m, lambda case: case in m.others)


class EricaTesting(Experiment):
    id = "erica-testing"
    title = "ABR switch algorithm testing: a case study with ERICA"
    source = "seed 003 (Jain, Fahmy, Kalyanaraman, Goyal: ATM Forum/96-1267)"

    def cases(self, quick: bool) -> list[Case]:
        return [Case(s.id, s.build(quick), {"figure": s.figure, "network": s.net, "algorithm": s.algorithm}) for s in SPECS]

    def compare(self, cases, results) -> pd.DataFrame:
        ms: dict[str, M] = {}
        for s in SPECS:
            if s.id in results:
                ms[s.id] = M(results[s.id], s, ms)
        rows = []
        for s in SPECS:
            if s.id in ms:
                rows += check(s, ms[s.id])
        return frame(rows)

    def plot_case(self, key: str, result: RunResult, figs: Path) -> list[Path]:
        """The seed's four graphs of one figure's run (:func:`atmsim.plots.plot_abr`)."""
        from ..plots import plot_abr

        s = next(s for s in SPECS if s.id == key)
        return [plot_abr(result, figs / f"{s.id}.png", title=f"fig {s.figure}: {s.id} ({s.algorithm}, {s.net})")]

    def report(self, out: Path, comparison: pd.DataFrame, cases, results, quick: bool) -> str:
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
            png = self.figures_of(s.id, results[s.id], figs)[0]
            sub = comparison[comparison["experiment"] == s.id][["metric", "published", "simulated", "verdict"]]
            lines += ["", f"## Figure {s.figure}: `{s.id}` ({s.algorithm}, {s.net})", "", f"Seed's claim: {s.claim}.", "",
                      markdown_table(sub, "{:.4g}"), "", f"![{s.id}](figures/{png.name})"]
        return "\n".join(lines) + "\n"
