"""The scorecard's suite (issue 17 item 5): the configurations of seed 003 and multi-bottleneck
and MCR configurations from the ATM Forum literature, each as a scenario builder that takes
the allocator table.

Every configuration uses TM 4.0 sources with seed 003's settings (ICR 10 Mbps, RIF 1, TBE
large; :data:`atmsim.experiments.erica_configs.CHOICES`) so that allocators are compared on
the same sources. The allocator is each one's own defaults (``{kind = NAME}``) unless the
caller passes options. ``k`` scales every run length and event time (1: full, 0.4: quick).
Sources and their parameters are in ``docs/scorecard.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from .experiments.erica_configs import CHOICES, NETWORKS, Builder

Scenario = dict[str, Any]


@dataclass(frozen=True)
class Config:
    """One configuration of the suite."""

    key: str
    case: str  # greedy, demand-limited, MCR, transient, background, bursty
    source: str  # the paper and figure or section it comes from
    build: Callable[[float], Scenario]  # k -> scenario (allocator left to the caller)


def _ms(x: float) -> str:
    return f"{x:g} ms"


def _seed003(net: str, name: str, k: float, vcs: Callable[[Builder, list[str]], None], switches: int = 2,
             duration_ms: float | None = None) -> Scenario:
    """A seed 003 section 5 configuration on ``net`` (LAN: 1 km links, WAN: 1000 km)."""
    b = Builder(net)
    sw = b.switches(switches)
    vcs(b, sw)
    dur = (duration_ms if duration_ms is not None else NETWORKS[net]["duration_ms"]) * k
    return b.scenario(name, {"kind": "none"}, dur)


def one_source(k: float) -> Scenario:
    """Seed 003 figure 4: one greedy source, LAN."""
    return _seed003("LAN", "one source", k, lambda b, sw: b.vc("S1", sw[0], sw[1], sw))


def two_sources(k: float) -> Scenario:
    """Seed 003 figure 7: two greedy sources, LAN."""
    return _seed003("LAN", "two sources", k, lambda b, sw: [b.vc(f"S{i}", sw[0], sw[1], sw) for i in (1, 2)])


def parking_lot(net: str, n: int, k: float, extra: dict[str, dict[str, Any]] | None = None,
                name: str = "parking lot") -> Scenario:
    """Seed 003 figure 10 (section 5.3): n switches in series; VC1 crosses them all, VC i
    (i >= 2) enters at switch i - 1; the last link is the bottleneck. ``extra[vc]`` adds keys."""
    def vcs(b: Builder, sw: list[str]) -> None:
        b.vc("VC1", sw[0], sw[-1], sw, **(extra or {}).get("VC1", {}))
        for i in range(2, n + 1):
            b.vc(f"VC{i}", sw[i - 2], sw[-1], sw[i - 2:], **(extra or {}).get(f"VC{i}", {}))
    return _seed003(net, name, k, vcs, switches=n)


def upstream(k: float) -> Scenario:
    """Seed 003 figure 13: 17 VCs on three switches, WAN; VC17 starts 5 ms late."""
    def vcs(b: Builder, sw: list[str]) -> None:
        for i in range(1, 15):
            b.vc(f"VC{i}", sw[0], sw[1], sw[:2])
        b.vc("VC15", sw[0], sw[2], sw)
        b.vc("VC16", sw[1], sw[2], sw[1:])
        b.vc("VC17", sw[1], sw[2], sw[1:], start=CHOICES["upstream_vc17_start"])
    return _seed003("WAN", "upstream", k, vcs, switches=3)


def transient(k: float) -> Scenario:
    """Seed 003 section 5.5 (figures 16-17): two sources, LAN; S2 active 10-20 ms."""
    def vcs(b: Builder, sw: list[str]) -> None:
        b.vc("S1", sw[0], sw[1], sw)
        b.vc("S2", sw[0], sw[1], sw, start=_ms(10 * k), stop=_ms(20 * k))
    return _seed003("LAN", "transient", k, vcs)


def vbr_background(k: float) -> Scenario:
    """Seed 003 section 5.6 (figure 18): two sources and a 1 ms on / 1 ms off VBR source at
    124.42 Mbps (80 % of the link), WAN."""
    def vcs(b: Builder, sw: list[str]) -> None:
        b.vc("S1", sw[0], sw[1], sw)
        b.vc("S2", sw[0], sw[1], sw)
        b.vc("VBR", sw[0], sw[1], sw, service="vbr",
             traffic={"kind": "on_off", "peak_rate": "124.416 Mbps", "on": "1 ms", "off": "1 ms", "phase": "0 s"})
    return _seed003("WAN", "VBR background", k, vcs)


def bursty(k: float) -> Scenario:
    """Seed 003 section 5.7.1 (figure 23): a greedy source and a request/response connection
    with 1024-cell responses sharing sw1 -> sw2, WAN."""
    def vcs(b: Builder, sw: list[str]) -> None:
        b.vc("S1", sw[0], sw[1], sw)
        b.vc("RR", sw[1], sw[0], [sw[1], sw[0]],
             traffic={"kind": "request_response", "request": "16 cells", "response": "1024 cells",
                      "think_time": CHOICES["think_time"]})
    return _seed003("WAN", "bursty", k, vcs)


#: R2's source sets: where each enters and which destination it leaves by (seed 004 5.1).
R2_SETS = {"A": ("sw1", "dstA"), "B": ("sw1", "dstA"), "C": ("sw2", "dstB"), "D": ("sw2", "dstB"),
           "E": ("sw3", "dstA"), "F": ("sw3", "dstA")}


def r2(k: float, per_set: int = 4, extra: dict[str, dict[str, Any]] | None = None, name: str = "R2") -> Scenario:
    """Seed 004 figure 5.1 (R2): sw1 -> sw2 -> sw3; sets A, B enter at sw1, C, D at sw2, E, F at
    sw3; link C (sw2 -> sw3) carries A-D, link A (sw3 -> dstA) carries A, B, E, F. 1 ms links,
    155 Mbps, ``per_set`` greedy sources per set (the seed: 8), TM 4.0 sources as the rest of
    the suite. ``extra[set]`` adds keys to that set's connections."""
    links = [("sw1", "sw2"), ("sw2", "sw3"), ("sw3", "dstA"), ("sw3", "dstB")]
    nodes = [{"name": s, "kind": "switch"} for s in ("sw1", "sw2", "sw3")]
    nodes += [{"name": d, "kind": "host"} for d in ("dstA", "dstB")]
    conns = []
    for s, (sw, dst) in R2_SETS.items():
        nodes.append({"name": f"{s}_src", "kind": "host"})
        links.append((f"{s}_src", sw))
        path = {"sw1": ["sw1", "sw2", "sw3"], "sw2": ["sw2", "sw3"], "sw3": ["sw3"]}[sw]
        for i in range(1, per_set + 1):
            c = {"name": f"{s}{i}", "from": f"{s}_src", "to": dst, "route": [f"{s}_src", *path, dst],
                 "service": "abr", "traffic": {"kind": "persistent"}}
            c.update((extra or {}).get(s, {}))
            conns.append(c)
    return {
        "name": name, "seed": 1,
        "measurement": {"duration": _ms(200 * k), "sample_interval": "0.5 ms"},
        "defaults": {"link_rate": "155 Mbps", "switch_buffer": "unlimited",
                     "abr": {"icr": CHOICES["icr"], "rif": 1.0, "tbe": CHOICES["tbe"]}},
        "node": nodes,
        "link": [{"between": list(ab), "delay": "1 ms"} for ab in links],
        "connection": conns,
    }


def three_sources(k: float, extra: list[dict[str, Any]], duration_ms: float, name: str) -> Scenario:
    """ATMF 98-0408 section 5 (figure 3): three sources s_i -> sw1 -> sw2 -> d_i, 149.76 Mbps
    links, a 1000 km trunk and 1 km access links (as ``crates/atmsim/tests/it/gw.rs``)."""
    nodes = [{"name": "sw1", "kind": "switch"}, {"name": "sw2", "kind": "switch"}]
    links = [{"between": ["sw1", "sw2"], "length": "1000 km"}]
    conns = []
    for i, e in enumerate(extra, start=1):
        nodes += [{"name": f"s{i}", "kind": "host"}, {"name": f"d{i}", "kind": "host"}]
        links += [{"between": [f"s{i}", "sw1"], "length": "1 km"}, {"between": ["sw2", f"d{i}"], "length": "1 km"}]
        c = {"name": f"S{i}", "from": f"s{i}", "to": f"d{i}", "service": "abr", "traffic": {"kind": "persistent"}}
        c.update(e)
        conns.append(c)
    return {
        "name": name, "seed": 1,
        "measurement": {"duration": _ms(duration_ms * k), "sample_interval": "1 ms"},
        "defaults": {"link_rate": "149.76 Mbps", "switch_buffer": "unlimited",
                     "abr": {"icr": CHOICES["icr"], "rif": 1.0, "tbe": CHOICES["tbe"]}},
        "node": nodes, "link": links, "connection": conns,
    }


def _mcr(rate: str) -> dict[str, Any]:
    return {"abr": {"mcr": rate, "icr": rate}}  # TM 4.0: MCR <= ICR


def _cap(rate: str) -> dict[str, Any]:
    return {"traffic": {"kind": "persistent", "rate_cap": rate}}


S003 = "seed 003 (ATMF 96-1267)"
S004 = "seed 004 (Kalampoukas, Varma, Ramakrishnan)"
F98 = "ATMF 98-0408 (Vandalore et al.)"

#: The suite, in the order of the table.
SUITE: list[Config] = [
    Config("one-source", "greedy", f"{S003} fig 4, LAN", one_source),
    Config("two-sources", "greedy", f"{S003} fig 7, LAN", two_sources),
    Config("parking-lot", "greedy", f"{S003} fig 10, LAN", lambda k: parking_lot("LAN", 3, k)),
    Config("upstream", "greedy, multi-bottleneck", f"{S003} fig 13, WAN", upstream),
    Config("transient", "transient", f"{S003} 5.5 figs 16-17, LAN", transient),
    Config("vbr-background", "VBR background", f"{S003} 5.6 fig 18, WAN", vbr_background),
    Config("bursty", "bursty", f"{S003} 5.7.1 fig 23, WAN", bursty),
    Config("parking-lot-wan", "greedy, multi-bottleneck", f"{S003} fig 10 with 4 switches, WAN",
           lambda k: parking_lot("WAN", 4, k, name="parking lot, WAN")),
    Config("parking-lot-wan-capped", "demand-limited, multi-bottleneck",
           f"{S003} fig 10 with 4 switches, WAN; VC1 sends at most 10 Mbps",
           lambda k: parking_lot("WAN", 4, k, {"VC1": _cap("10 Mbps")}, name="parking lot, WAN, VC1 capped")),
    Config("parking-lot-wan-mcr", "MCR, multi-bottleneck",
           f"{S003} fig 10 with 4 switches, WAN; MCR 60 Mbps (VC2), 20 Mbps (VC4)",
           lambda k: parking_lot("WAN", 4, k, {"VC2": _mcr("60 Mbps"), "VC4": _mcr("20 Mbps")},
                                 name="parking lot, WAN, MCR")),
    Config("r2", "greedy, multi-bottleneck", f"{S004} fig 5.1 (R2), 4 sources per set", lambda k: r2(k)),
    Config("r2-capped", "demand-limited, multi-bottleneck",
           f"{S004} fig 5.1 (R2); set C sends at most 2 Mbps per source",
           lambda k: r2(k, extra={"C": _cap("2 Mbps")}, name="R2, set C capped")),
    Config("three-sources-mcr", "MCR", f"{F98} 5.1: MCR 10, 30, 50 Mbps",
           lambda k: three_sources(k, [_mcr("10 Mbps"), _mcr("30 Mbps"), _mcr("50 Mbps")], 400,
                                   "three sources, MCR")),
    Config("three-sources-transient", "transient", f"{F98} 5.2: S2 active 0.4-0.8 s",
           lambda k: three_sources(k, [{}, {"start": _ms(400 * k), "stop": _ms(800 * k)}, {}], 1200,
                                   "three sources, transient")),
]


def configs(names: list[str] | None = None) -> list[Config]:
    """The suite, or the named configurations (in suite order)."""
    if not names:
        return list(SUITE)
    known = {c.key for c in SUITE}
    bad = [n for n in names if n not in known]
    if bad:
        raise ValueError(f"unknown configuration {', '.join(bad)}; the suite has: {', '.join(c.key for c in SUITE)}")
    return [c for c in SUITE if c.key in names]
