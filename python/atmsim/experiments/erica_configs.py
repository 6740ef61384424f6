"""The configurations of seed 003 (ATM Forum/96-1267, "ABR switch algorithm testing: a case
study with ERICA"), section 5, as scenario dicts.

Common settings (section 5.1): 155.52 Mbps links; LAN links 1 km, WAN links 1000 km (every
link, access links included); bidirectional VCs; RIF = 1; TBE large; target utilization
95 % (LAN) / 90 % (WAN); averaging interval min(50 cells, 1 ms) LAN / min(100 cells, 1 ms)
WAN; ERICA+ a = 1.15, b = 1.05, T0 = 100 us LAN / 500 us WAN, QDLF = 0.5. What the seed
leaves out and what is chosen here is listed in ``experiments/erica-testing/README.md`` and
in :data:`CHOICES`.
"""

from __future__ import annotations

from typing import Any

#: Per-network settings of section 5.1, plus the run lengths chosen (not in the seed).
NETWORKS: dict[str, dict[str, Any]] = {
    "LAN": {"length": "1 km", "u": 0.95, "cells": 50, "t0": "100 us", "duration_ms": 50.0, "sample": "0.1 ms"},
    "WAN": {"length": "1000 km", "u": 0.90, "cells": 100, "t0": "500 us", "duration_ms": 500.0, "sample": "1 ms"},
}

#: Details the seed does not state, with the value chosen (documented in the README).
CHOICES: dict[str, Any] = {
    # Initial cell rate: not in seed 003; seed 000 (same group, same simulator) uses 10 Mbps.
    "icr": "10 Mbps",
    # Nrm, Mrm, Trm, RDF, CDF, ADTF, TCR: TM 4.0 defaults (spec 1.2).
    "tbe": 16777215,
    # Request/response think time (seed: "after a certain period of time").
    "think_time": "10 ms",
    # VBR on/off phase: the first on period starts at t = 0.
    "vbr_phase": "0 s",
    # ACR retention: the cap is 10 Mbps until 100 ms (seed 5.7.2); run length 400 ms.
    "retention_duration_ms": 400.0,
    # Max-min band delta of the enhancement (spec 9.3).
    "delta": 0.1,
    # The immediate fair-share update of the complete ERICA description (DISS p.431, spec
    # 2.4): a VC seen for the first time raises the VC count at once. Without it a new
    # LAN source's first feedback (one 30 us round trip) comes before the interval ends
    # and fair share first cannot act (figures 16/17 would be identical).
    "immediate_fair_share": True,
    # Upstream: VC17 starts this much after the others. The seed's unfairness (figure 14)
    # needs VC16 and VC17 to reach unequal rates; with identical starts they stay equal.
    "upstream_vc17_start": "5 ms",
}


def allocator(net: str, plus: bool, **options: Any) -> dict[str, Any]:
    """ERICA or ERICA+ with the seed's settings for ``net`` and the given options."""
    n = NETWORKS[net]
    a: dict[str, Any] = {
        "kind": "erica_plus" if plus else "erica",
        "interval_cells": f"{n['cells']} cells",
        "interval_time": "1 ms",
        "immediate_fair_share": CHOICES["immediate_fair_share"],
    }
    if plus:
        a.update({"a": 1.15, "b": 1.05, "t0": n["t0"], "qdlf": 0.5})
    else:
        a["target_utilization"] = n["u"]
    a.update(options)
    return a


class Builder:
    """Collects nodes, links and connections of one configuration."""

    def __init__(self, net: str):
        self.net = net
        self.nodes: list[dict[str, Any]] = []
        self.links: list[dict[str, Any]] = []
        self.conns: list[dict[str, Any]] = []
        self._names: set[str] = set()

    def node(self, name: str, kind: str) -> str:
        if name not in self._names:
            self._names.add(name)
            self.nodes.append({"name": name, "kind": kind})
        return name

    def link(self, a: str, b: str) -> None:
        self.links.append({"between": [a, b], "length": NETWORKS[self.net]["length"]})

    def switches(self, n: int) -> list[str]:
        sw = [self.node(f"sw{i}", "switch") for i in range(1, n + 1)]
        for a, b in zip(sw, sw[1:]):
            self.link(a, b)
        return sw

    def vc(self, name: str, at: str, to: str, route: list[str], traffic: dict[str, Any] | None = None,
           service: str = "abr", **extra: Any) -> None:
        """A VC from a new host attached to switch ``at`` to a new host attached to ``to``."""
        s, d = self.node(f"{name}-src", "host"), self.node(f"{name}-dst", "host")
        self.link(s, at)
        self.link(to, d)
        c = {"name": name, "from": s, "to": d, "route": [s, *route, d], "service": service,
             "traffic": traffic or {"kind": "persistent"}}
        c.update(extra)
        self.conns.append(c)

    def scenario(self, name: str, alloc: dict[str, Any], duration_ms: float | None = None,
                 quick: bool = False) -> dict[str, Any]:
        n = NETWORKS[self.net]
        dur = duration_ms if duration_ms is not None else n["duration_ms"]
        if quick:
            dur = dur * 0.4
        return {
            "name": name,
            "seed": 1,
            "measurement": {"duration": f"{dur:g} ms", "sample_interval": n["sample"]},
            "defaults": {
                "link_rate": "155.52 Mbps",
                "switch_buffer": "unlimited",
                "abr": {"icr": CHOICES["icr"], "rif": 1.0, "tbe": CHOICES["tbe"]},
                "allocator": alloc,
            },
            "node": self.nodes,
            "link": self.links,
            "connection": self.conns,
        }


def n_sources(net: str, n: int, name: str, alloc: dict[str, Any], quick: bool = False,
              extra: dict[int, dict[str, Any]] | None = None, duration_ms: float | None = None) -> dict[str, Any]:
    """One-source (figure 4) and two-source (figure 7) configurations, and their variants:
    ``n`` sources -> sw1 -> sw2 -> ``n`` destinations; ``extra[i]`` adds keys to source i."""
    b = Builder(net)
    sw1, sw2 = b.switches(2)
    for i in range(1, n + 1):
        b.vc(f"S{i}", sw1, sw2, [sw1, sw2], **(extra or {}).get(i, {}))
    return b.scenario(name, alloc, duration_ms, quick)


def parking_lot(net: str, name: str, alloc: dict[str, Any], quick: bool = False, n: int = 3) -> dict[str, Any]:
    """Figure 10: n switches in series; VC1 from switch 1 across all; VC i (i >= 2) starts at
    switch i - 1; all leave at the last switch, so the last link is the bottleneck."""
    b = Builder(net)
    sw = b.switches(n)
    b.vc("VC1", sw[0], sw[-1], sw)
    for i in range(2, n + 1):
        b.vc(f"VC{i}", sw[i - 2], sw[-1], sw[i - 2:])
    return b.scenario(name, alloc, None, quick)


def upstream(net: str, name: str, alloc: dict[str, Any], quick: bool = False) -> dict[str, Any]:
    """Figure 13: three switches, 17 VCs. Link 1 (sw1 -> sw2) carries VC1..VC15; link 2
    (sw2 -> sw3) carries VC15, VC16 and VC17."""
    b = Builder(net)
    sw1, sw2, sw3 = b.switches(3)
    for i in range(1, 15):
        b.vc(f"VC{i}", sw1, sw2, [sw1, sw2])
    b.vc("VC15", sw1, sw3, [sw1, sw2, sw3])
    b.vc("VC16", sw2, sw3, [sw2, sw3])
    b.vc("VC17", sw2, sw3, [sw2, sw3], start=CHOICES["upstream_vc17_start"])
    return b.scenario(name, alloc, None, quick)


def vbr_background(net: str, name: str, alloc: dict[str, Any], on_ms: float, quick: bool = False) -> dict[str, Any]:
    """Section 5.6: the two-source configuration plus a deterministic VBR source sharing
    sw1 -> sw2 (124.42 Mbps peak = 80 % of the link, ``on_ms`` on / ``on_ms`` off)."""
    b = Builder(net)
    sw1, sw2 = b.switches(2)
    b.vc("S1", sw1, sw2, [sw1, sw2])
    b.vc("S2", sw1, sw2, [sw1, sw2])
    b.vc("VBR", sw1, sw2, [sw1, sw2], service="vbr",
         traffic={"kind": "on_off", "peak_rate": "124.416 Mbps", "on": f"{on_ms:g} ms", "off": f"{on_ms:g} ms",
                  "phase": CHOICES["vbr_phase"]})
    return b.scenario(name, alloc, None, quick)


def bursty(net: str, name: str, alloc: dict[str, Any], response_cells: int, quick: bool = False) -> dict[str, Any]:
    """Section 5.7.1: one persistent source and one request/response connection. The
    client sits behind sw2 and the server behind sw1, so the responses (the reverse
    direction) share sw1 -> sw2 with the persistent source; requests are 16 cells."""
    b = Builder(net)
    sw1, sw2 = b.switches(2)
    b.vc("S1", sw1, sw2, [sw1, sw2])
    b.vc("RR", sw2, sw1, [sw2, sw1],
         traffic={"kind": "request_response", "request": "16 cells", "response": f"{response_cells} cells",
                  "think_time": CHOICES["think_time"]})
    return b.scenario(name, alloc, None, quick)


def acr_retention(net: str, name: str, alloc: dict[str, Any], quick: bool = False, n: int = 10) -> dict[str, Any]:
    """Section 5.7.2: ten VCs share sw1 -> sw2; each application hands cells at no more than
    10 Mbps for the first 100 ms, then as fast as the VC is allowed."""
    b = Builder(net)
    sw1, sw2 = b.switches(2)
    for i in range(1, n + 1):
        b.vc(f"S{i}", sw1, sw2, [sw1, sw2],
             traffic={"kind": "persistent", "rate_cap": "10 Mbps", "cap_until": "100 ms"})
    dur = CHOICES["retention_duration_ms"]
    return b.scenario(name, alloc, dur if not quick else dur / 0.4 * 0.5, quick)
