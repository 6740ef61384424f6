"""Topology builders: scenario dicts for the configurations of the seeds.

Each builder returns a plain dict mirroring the TOML scenario format, so it can be
changed by hand, saved with :func:`atmsim.scenario.to_toml`, or run with :func:`atmsim.run`.
"""

from __future__ import annotations

from typing import Any

from .result import paused_gc

#: Each builder runs with the cyclic garbage collector paused (:func:`atmsim.result.paused_gc`
#: as a decorator): its passes over the dicts and lists made so far were most of the time of a
#: large network's (``n_source(100_000)``: 1.07 s, 0.4 s without them). The dict is the same.
_builder = paused_gc()


def _source_count(n: Any) -> int:
    """``n`` of a builder: a whole number of sources, at least 1 (TypeError or ValueError
    naming ``n``, its value and what is allowed, never Python's own comparison error)."""
    import operator

    if isinstance(n, bool):
        raise TypeError(f"n = {n!r}: the number of sources is a whole number, at least 1, not a bool")
    try:
        count = operator.index(n)  # int, or numpy's integers; not 2.0 or "3"
    except TypeError:
        raise TypeError(f"n = {n!r}: the number of sources is a whole number, at least 1, not "
                        f"{type(n).__name__}") from None
    if count < 1:
        raise ValueError(f"n = {count}: the configuration needs at least one source")
    return count


#: Bytes of memory a builder's scenario takes per host node or connection: the dict itself
#: (about 1.7 KB per n_source source: two hosts, two links, a connection with its route),
#: its JSON text and the copies a run or sweep makes of it, rounded up.
BYTES_PER_ELEMENT = 2048


def _check_size(elements: int, sizes: "list[tuple[str, int, int]]") -> None:
    """Refuses (MemoryLimitError, before anything is built) a scenario of ``elements`` host
    nodes and connections that could not fit in memory, naming the size argument that adds
    most (``sizes``: (argument, value, elements per unit of it)), its value and the largest
    it may take with the others as given."""
    from .scenario import memory_limit

    limit, source = memory_limit()
    need = elements * BYTES_PER_ELEMENT
    if limit is None or need <= limit:
        return
    from . import MemoryLimitError
    from .scenario import _size

    arg, value, per_unit = max(sizes, key=lambda s: s[1] * s[2])
    step = per_unit * BYTES_PER_ELEMENT
    largest = max(0, value - (need - limit + step - 1) // step)
    raise MemoryLimitError(
        f"{arg} = {value}: its scenario of {elements} host nodes and connections would take about {_size(need)} "
        f"to build, more than the memory limit here, {_size(limit)} ({source}); give {arg} at most {largest}, "
        f"or set ATMSIM_MEMORY_LIMIT (e.g. \"48 GiB\", or \"off\")")


def _per_source(values: Any, name: str, n: int, what: str) -> Any:
    """``values`` (None, or a list of at least ``n``: one per source, in order), checked:
    a TypeError or ValueError naming ``name``, the value and what is allowed."""
    if values is None:
        return None
    if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__len__") or not hasattr(values, "__getitem__"):
        raise TypeError(f"{name} = {_short(values)}: give a list of {what}, one per source ({n})")
    if len(values) < n:
        raise ValueError(f"{name} = {_short(values)}: {len(values)} value{'s' if len(values) != 1 else ''} for "
                         f"n = {n} sources; give one per source, {n} in all")
    if name == "applications":
        for i, app in enumerate(values[:n]):
            if not isinstance(app, dict):
                raise TypeError(f"applications[{i}] = {_short(app)}: each application is a table (dict), "
                                f"e.g. {{\"kind\": \"periodic\", ...}}")
    return values


def _short(v: Any, limit: int = 80) -> str:
    text = repr(v)
    return text if len(text) <= limit else text[: limit - 5] + " ...]"


#: The tables a builder takes as arguments: argument -> (what it is, an example, the title
#: of the engine's registry section naming its kinds, or None).
TABLE_ARGUMENTS = {
    "allocator": ("naming its kind", '{"kind": "erica"}', "rate allocators"),
    "policy": ("naming its kind", '{"kind": "epd", "threshold": "80 %"}', "drop policies"),
    "tcp": ("of TCP parameters", '{"congestion": "reno", "window": "64 KB"}', "TCP congestion control"),
    "abr": ("of ABR source parameters", '{"policy": "ucsc", "nrm": 32}', None),
    "vbr": ("with peak_rate, on and off", '{"peak_rate": "124.42 Mbps", "on": "1 ms", "off": "1 ms"}', None),
}


def _table(value: Any, arg: str) -> dict[str, Any]:
    """A copy of the table (dict, or another mapping) given as the builder argument ``arg``
    (one of :data:`TABLE_ARGUMENTS`); anything else is a one-line ValueError naming the
    argument, the value and what is allowed, with the kinds the engine has registered."""
    from collections.abc import Mapping

    if isinstance(value, Mapping):
        return dict(value)
    what, example, section = TABLE_ARGUMENTS[arg]
    kinds = _registered(section) if section else ""
    if kinds:
        kinds = f"; {'congestion control' if arg == 'tcp' else 'kinds'}: {kinds}"
    raise ValueError(f"{arg} = {_short(value)}: give a table (dict) {what}, e.g. {example}{kinds}")


def _registered(title: str) -> str:
    """The names the engine's registry holds in its section ``title`` (never a copied list)."""
    from .catalog import extension_points

    for section in extension_points():
        if section.title == title:
            return ", ".join(e.name for e in section.entries)
    return ""


@_builder
def n_source(
    n: int,
    *,
    link_delay: str | None = None,
    link_length: str | None = None,
    segment_delays: tuple[str, str, str] | None = None,
    rate: str = "155.52 Mbps",
    buffer: str = "unlimited",
    policy: dict[str, Any] | None = None,
    duration: str = "20 s",
    sample_interval: str | None = None,
    tcp: dict[str, Any] | None = None,
    start_times: list[str] | None = None,
    seed: int = 1,
    name: str | None = None,
    service: str = "ubr",
    abr: dict[str, Any] | None = None,
    allocator: dict[str, Any] | None = None,
    applications: list[dict[str, Any]] | None = None,
    vbr: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The N-source configuration of seeds 000-002 (spec section 11).

    ``n`` sources -> switch ``sw1`` -> switch ``sw2`` -> ``n`` destinations. Every source
    and destination has its own access link; ``sw1 -> sw2`` is the shared bottleneck.
    Give the length of each of the three segments with ``link_delay`` (e.g. ``"5 ms"``,
    seed 001 WAN) or ``link_length`` (e.g. ``"1000 km"``), or all three separately with
    ``segment_delays`` (source-sw1, sw1-sw2, sw2-destination).
    ``buffer`` and ``policy`` apply to every switch output port.

    TCP over ABR (seeds 000 and 002): ``service="abr"`` with ``abr`` (source parameters,
    ``defaults.abr``) and ``allocator`` (``defaults.allocator``, every switch port).
    ``applications`` gives each connection's TCP application (e.g. seed 002's periodic
    generator). ``vbr`` adds a background VBR connection ``vbr`` from host ``vbr_src``
    over sw1 -> sw2 to ``vbr_dst`` (segments like the sources'): a dict with
    ``peak_rate``, ``on``, ``off`` and optional ``phase`` (seed 000: "124.42 Mbps", y ms
    on, y ms off, from t = 2 ms). ``abr``, ``allocator``, ``policy``, ``tcp`` and ``vbr``
    are tables (dicts): anything else raises ValueError naming the argument.
    """
    n = _source_count(n)
    tables = {k: _table(v, k) for k, v in (("abr", abr), ("allocator", allocator), ("policy", policy),
                                            ("tcp", tcp), ("vbr", vbr)) if v is not None}
    _check_size(3 * n, [("n", n, 3)])  # per source: its host, its destination's and its connection
    start_times = _per_source(start_times, "start_times", n, 'times, e.g. ["0 s", "1 ms"]')
    applications = _per_source(applications, "applications", n, "tables (dicts) of a TCP application")
    if segment_delays is not None:
        segs = [{"delay": d} for d in segment_delays]
    elif link_length is not None:
        segs = [{"length": link_length}] * 3
    else:
        segs = [{"delay": link_delay or "0 s"}] * 3
    nodes = [{"name": "sw1", "kind": "switch"}, {"name": "sw2", "kind": "switch"}]
    links = [{"between": ["sw1", "sw2"], **segs[1]}]
    conns = []
    for i in range(1, n + 1):
        s, d = f"src{i}", f"dst{i}"
        nodes += [{"name": s, "kind": "host"}, {"name": d, "kind": "host"}]
        links += [{"between": [s, "sw1"], **segs[0]}, {"between": ["sw2", d], **segs[2]}]
        c: dict[str, Any] = {
            "name": f"tcp{i}",
            "from": s,
            "to": d,
            "route": [s, "sw1", "sw2", d],
            "service": service,
            "traffic": {"kind": "tcp"},
        }
        if applications is not None:
            c["traffic"]["application"] = dict(applications[i - 1])
        if start_times is not None:
            c["start"] = start_times[i - 1]
        conns.append(c)
    if vbr is not None:
        nodes += [{"name": "vbr_src", "kind": "host"}, {"name": "vbr_dst", "kind": "host"}]
        links += [{"between": ["vbr_src", "sw1"], **segs[0]}, {"between": ["sw2", "vbr_dst"], **segs[2]}]
        conns.append(_vbr_connection(tables["vbr"]))
    defaults: dict[str, Any] = {"link_rate": rate, "switch_buffer": buffer}
    if abr is not None:
        defaults["abr"] = tables["abr"]
    if allocator is not None:
        defaults["allocator"] = tables["allocator"]
    if policy is not None:
        defaults["policy"] = policy  # the caller's table, as before (not a copy)
    if tcp is not None:
        defaults["tcp"] = tables["tcp"]
    measurement: dict[str, Any] = {"duration": duration}
    if sample_interval is not None:
        measurement["sample_interval"] = sample_interval
    return {
        "name": name or f"{n}-source",
        "seed": seed,
        "measurement": measurement,
        "defaults": defaults,
        "node": nodes,
        "link": links,
        "connection": conns,
    }


def _vbr_connection(vbr: dict[str, Any]) -> dict[str, Any]:
    """:func:`n_source`'s background VBR connection from its ``vbr`` table (peak_rate, on,
    off and optional phase; a ValueError naming what is missing)."""
    missing = [k for k in ("peak_rate", "on", "off") if k not in vbr]
    if missing:
        raise ValueError(f"vbr = {_short(vbr)}: {', '.join(missing)} missing; give a table (dict) "
                         f"{TABLE_ARGUMENTS['vbr'][0]}, e.g. {TABLE_ARGUMENTS['vbr'][1]}")
    traffic = {"kind": "on_off", "peak_rate": vbr["peak_rate"], "on": vbr["on"], "off": vbr["off"]}
    if "phase" in vbr:
        traffic["phase"] = vbr["phase"]
    return {"name": "vbr", "from": "vbr_src", "to": "vbr_dst", "route": ["vbr_src", "sw1", "sw2", "vbr_dst"],
            "service": "vbr", "traffic": traffic}


# ---------------------------------------------------------------------------------------
# Seed 004 (Kalampoukas, Varma, Ramakrishnan, UCSC-CRL-95-54): configurations R1, R2, R3.
# The seed's figures are missing; what the text pins down is in spec section 11, and the
# reconstruction of what it leaves out is documented in experiments/kvr-dynamics/README.md.
# ---------------------------------------------------------------------------------------

#: Seed 004 section 3: 155 Mbps links (PCR = 365,566 cells/s is 155 Mbps of 53-byte cells).
KVR_LINK_RATE = "155 Mbps"
#: Seed 004 section 3: the UCSC source policy, Nrm = 32, AIR = 180 cells/s per cell,
#: ICR = PCR / 50 (the policy's default).
KVR_SOURCE = {"policy": "ucsc", "nrm": 32, "air": "180 cells/s"}
#: Seed 004 sections 3 and 4.2: TCP Reno, 9180-byte segments, 150 KB window, timers in
#: double precision (no coarse tick). rto_min is not stated: 1 ms, a floor that never
#: binds at these RTTs (documented reconstruction).
KVR_TCP = {"mss": "9180 B", "window": "150 KB", "congestion": "reno", "timer_granularity": "exact",
           "rto_min": "1 ms"}


def _kvr_scenario(name, nodes, links, conns, *, duration, sample_interval, seed, buffer, allocator, abr, tcp,
                  faults=None) -> dict[str, Any]:
    defaults: dict[str, Any] = {
        "link_rate": KVR_LINK_RATE,
        "switch_buffer": buffer,
        "abr": _table(KVR_SOURCE if abr is None else abr, "abr"),
        "allocator": (_table(allocator, "allocator") if allocator is not None else {}) or {"kind": "kvr"},
    }
    if tcp is not None:
        defaults["tcp"] = _table(tcp, "tcp")
    sc: dict[str, Any] = {
        "name": name,
        "seed": seed,
        "measurement": {"duration": duration, "sample_interval": sample_interval},
        "defaults": defaults,
        "node": nodes,
        "link": links,
        "connection": conns,
    }
    if faults:
        sc["fault"] = list(faults)
    return sc


def _traffic(kind: str) -> dict[str, Any]:
    if kind == "cells":
        return {"kind": "persistent"}
    if kind == "tcp":
        return {"kind": "tcp"}
    raise ValueError(f"traffic = {kind!r}: allowed 'cells' (greedy ABR cell sources) or 'tcp' (TCP Reno over ABR)")


@_builder
def r1(
    *,
    long_nodes: int = 2,
    short_nodes: int = 1,
    per_node: int = 1,
    traffic: str = "cells",
    long_access_delay: str = "8.034267 ms",
    short_delay: str = "1.866667 us",
    duration: str = "0.3 s",
    sample_interval: str = "1 ms",
    buffer: str = "unlimited",
    allocator: dict[str, Any] | None = None,
    abr: dict[str, Any] | None = None,
    tcp: dict[str, Any] | None = None,
    faults: list[dict[str, Any]] | None = None,
    setup: str = "pre_established",
    seed: int = 1,
    name: str | None = None,
) -> dict[str, Any]:
    """Seed 004's R1 configuration (section 4.1, figure 4.1; spec section 11).

    Long source nodes ``L1..`` reach switch ``sw1`` over ``long_access_delay`` (the seed: their
    RM cells "need 8 ms to reach switch 1"); the short node ``S1`` is attached to ``sw1`` by a
    ``short_delay`` link. The bottleneck D4 is ``sw1 -> sw2``; every destination host hangs off
    ``sw2`` by a ``short_delay`` link. With the defaults the round-trip propagation times are
    the seed's: 16.076 ms for long connections, 11.2 us for short ones. Each node originates
    ``per_node`` connections (R1: 2 long + 1 short, one each; R1 extended: ``long_nodes=4,
    per_node=8`` gives 32 long + 8 short). Connections are named ``L1``, ``L2``, ``S1`` (one per
    node) or ``L1.3`` (node, index). ``traffic`` is ``"cells"`` (greedy ABR cell sources) or
    ``"tcp"`` (TCP Reno over ABR with :data:`KVR_TCP`). ``setup`` is how the switches learn
    of the connections: ``"pre_established"`` (set up before t = 0; the seed's connections
    "open simultaneously") or ``"in_band"`` (a signalling message travels the route from
    t = 0, so switch 1 learns of the long connections 8 ms later).
    """
    if long_nodes < 0 or short_nodes < 0 or long_nodes + short_nodes < 1 or per_node < 1:
        raise ValueError("R1 needs at least one source node and per_node >= 1")
    groups_n = long_nodes + short_nodes
    _check_size(groups_n * (2 + per_node), [("long_nodes", long_nodes, 2 + per_node),
                                            ("short_nodes", short_nodes, 2 + per_node), ("per_node", per_node, groups_n)])
    kind = _traffic(traffic)
    nodes = [{"name": "sw1", "kind": "switch"}, {"name": "sw2", "kind": "switch"}]
    links = [{"between": ["sw1", "sw2"], "delay": short_delay}]
    conns = []
    groups = [(f"L{i}", long_access_delay) for i in range(1, long_nodes + 1)]
    groups += [(f"S{i}", short_delay) for i in range(1, short_nodes + 1)]
    for g, access in groups:
        src, dst = f"{g}_src", f"{g}_dst"
        nodes += [{"name": src, "kind": "host"}, {"name": dst, "kind": "host"}]
        links += [{"between": [src, "sw1"], "delay": access}, {"between": ["sw2", dst], "delay": short_delay}]
        for k in range(1, per_node + 1):
            conns.append({
                "name": g if per_node == 1 else f"{g}.{k}",
                "from": src,
                "to": dst,
                "route": [src, "sw1", "sw2", dst],
                "service": "abr",
                "setup": setup,
                "traffic": dict(kind),
            })
    return _kvr_scenario(
        name or f"R1 ({len(conns)} connections, {traffic})", nodes, links, conns, duration=duration,
        sample_interval=sample_interval, seed=seed, buffer=buffer, allocator=allocator, abr=abr,
        tcp=(KVR_TCP if tcp is None else tcp) if traffic == "tcp" else None, faults=faults,
    )


#: R2's six source sets and where they enter and leave (seed 004 section 5.1).
R2_SETS = {"A": ("sw1", "dstA"), "B": ("sw1", "dstA"), "C": ("sw2", "dstB"), "D": ("sw2", "dstB"),
           "E": ("sw3", "dstA"), "F": ("sw3", "dstA")}


def _r2_shape(link_delay: str):
    nodes = [{"name": s, "kind": "switch"} for s in ("sw1", "sw2", "sw3")]
    nodes += [{"name": d, "kind": "host"} for d in ("dstA", "dstB")]
    links = [
        {"between": ["sw1", "sw2"], "delay": link_delay},
        {"between": ["sw2", "sw3"], "delay": link_delay},  # link C
        {"between": ["sw3", "dstA"], "delay": link_delay},  # link A
        {"between": ["sw3", "dstB"], "delay": link_delay},  # link B
    ]
    for s, (sw, _) in R2_SETS.items():
        nodes.append({"name": f"{s}_src", "kind": "host"})
        links.append({"between": [f"{s}_src", sw], "delay": link_delay})
    return nodes, links


def _r2_route(s: str) -> list[str]:
    sw, dst = R2_SETS[s]
    path = {"sw1": ["sw1", "sw2", "sw3"], "sw2": ["sw2", "sw3"], "sw3": ["sw3"]}[sw]
    return [f"{s}_src", *path, dst]


def _set_count(arg: str, count: Any) -> None:
    """``abr_per_set`` / ``vbr_per_set`` of :func:`r2`: a whole number >= 0 (else a
    TypeError or ValueError naming it)."""
    if isinstance(count, bool) or not isinstance(count, int):
        raise TypeError(f"{arg} = {count!r}: a whole number of connections per source set, 0 or more")
    if count < 0:
        raise ValueError(f"{arg} = {count}: a number of connections per source set, 0 or more")


@_builder
def r2(
    *,
    abr_per_set: int = 8,
    vbr_per_set: int = 0,
    vbr_open: str = "random",
    vbr_video: dict[str, Any] | None = None,
    vbr_reserve: str = "1.9 Mbps",
    link_delay: str = "1 ms",
    duration: str = "0.2 s",
    sample_interval: str = "1 ms",
    buffer: str = "unlimited",
    allocator: dict[str, Any] | None = None,
    abr: dict[str, Any] | None = None,
    setup: str = "pre_established",
    seed: int = 1,
    name: str | None = None,
) -> dict[str, Any]:
    """Seed 004's R2 parking lot (section 5, figure 5.1; spec section 11).

    Switches ``sw1 -> sw2 -> sw3``; source sets A, B enter at ``sw1``, C, D at ``sw2``, E, F
    at ``sw3``. Link C (``sw2 -> sw3``) carries A-D; at ``sw3`` link A (``-> dstA``) carries
    A, B, E, F and link B (``-> dstB``) carries C, D. Every link has ``link_delay`` (the seed
    gives 1 ms for R3, "identical to R2"). Each set has ``abr_per_set`` greedy ABR cell
    sources (``A1``..) and ``vbr_per_set`` Heyman video connections (``A.v1``..) reserving
    ``vbr_reserve`` each. ``vbr_open``: ``"random"`` opens each video connection at a time
    uniform in (0, 50 ms) drawn from ``seed`` (section 5.2); ``"staggered"`` opens video k
    of every set at (k - 1) x 100 ms and closes it at 500 + (k - 1) x 100 ms (figure 5.11).
    ``vbr_video`` overrides the video traffic keys (``mean_cells``, ``sd_cells``, ...).
    ``setup`` applies to the ABR connections (see :func:`r1`); video connections always
    signal in band, as the seed describes.
    """
    import random

    if vbr_open not in ("random", "staggered"):
        raise ValueError(f"vbr_open = {vbr_open!r}: allowed 'random' or 'staggered'")
    _set_count("abr_per_set", abr_per_set)
    _set_count("vbr_per_set", vbr_per_set)
    _check_size(len(R2_SETS) * (abr_per_set + vbr_per_set), [("abr_per_set", abr_per_set, len(R2_SETS)),
                                                           ("vbr_per_set", vbr_per_set, len(R2_SETS))])
    nodes, links = _r2_shape(link_delay)
    rng = random.Random(seed)
    conns: list[dict[str, Any]] = []
    for s in R2_SETS:
        src, route = f"{s}_src", _r2_route(s)
        for k in range(1, abr_per_set + 1):
            conns.append({"name": f"{s}{k}", "from": src, "to": route[-1], "route": route, "service": "abr",
                          "setup": setup, "traffic": {"kind": "persistent"}})
        for k in range(1, vbr_per_set + 1):
            video = {"kind": "video", **(vbr_video or {})}
            c = {"name": f"{s}.v{k}", "from": src, "to": route[-1], "route": route, "service": "vbr",
                 "reserve": vbr_reserve, "traffic": video}
            if vbr_open == "random":
                c["start"] = f"{rng.uniform(0.0, 50.0):.6f} ms"
            else:
                c["start"] = f"{(k - 1) * 100} ms"
                c["stop"] = f"{500 + (k - 1) * 100} ms"
            conns.append(c)
    return _kvr_scenario(
        name or f"R2 ({abr_per_set * 6} ABR, {vbr_per_set * 6} VBR)", nodes, links, conns, duration=duration,
        sample_interval=sample_interval, seed=seed, buffer=buffer, allocator=allocator, abr=abr, tcp=None,
    )


#: R3 (reconstructed): the source set of each TCP connection and of each on/off ABR source.
R3_TCP_SETS = ["A", "A", "B", "B", "C", "D", "E", "F"]
R3_ABR_SETS = ["C", "C", "D", "D"]


@_builder
def r3(
    *,
    tcp_sets: list[str] | None = None,
    abr_sets: list[str] | None = None,
    on: str = "100 ms",
    off: str = "100 ms",
    link_delay: str = "1 ms",
    buffer: str = "19 cells",
    duration: str = "5 s",
    sample_interval: str = "5 ms",
    allocator: dict[str, Any] | None = None,
    abr: dict[str, Any] | None = None,
    tcp: dict[str, Any] | None = None,
    seed: int = 1,
    name: str | None = None,
) -> dict[str, Any]:
    """Seed 004's R3 configuration (section 6, figure 6.1; spec section 11).

    The R2 shape (:func:`r2`) with 8 TCP Reno connections ``tcp1..tcp8`` to ``dstA`` (link
    A) and 4 greedy ABR cell sources ``abr1..abr4`` to ``dstB`` (link B) whose connections
    open and close with exponential on/off periods of mean ``on`` / ``off`` (100 ms). The
    figure is missing; by default TCP 1-4 enter at ``sw1`` (sets A, B), 5-6 at ``sw2``
    (sets C, D, sharing link C with the on/off sources) and 7-8 at ``sw3`` (E, F: "closest
    to the destination"); the on/off sources enter at ``sw2`` (C, D). ``tcp_sets`` /
    ``abr_sets`` move them. The TCP connections are pre-established; the on/off sources
    signal every opening and closing in band. Switch buffers are 1 KB: ``"19 cells"`` (19 x 53 B <= 1024 B).
    """
    tcp_sets = list(tcp_sets or R3_TCP_SETS)
    abr_sets = list(abr_sets or R3_ABR_SETS)
    for s in tcp_sets + abr_sets:
        if s not in R2_SETS:
            raise ValueError(f"source set {s!r}: allowed {', '.join(R2_SETS)}")
    nodes, links = _r2_shape(link_delay)
    conns: list[dict[str, Any]] = []
    for i, s in enumerate(tcp_sets, 1):
        route = [*_r2_route(s)[:-1], "dstA"]
        conns.append({"name": f"tcp{i}", "from": f"{s}_src", "to": "dstA", "route": route, "service": "abr",
                      "setup": "pre_established", "traffic": {"kind": "tcp"}})
    for i, s in enumerate(abr_sets, 1):
        route = [*_r2_route(s)[:-1], "dstB"]
        conns.append({"name": f"abr{i}", "from": f"{s}_src", "to": "dstB", "route": route, "service": "abr",
                      "traffic": {"kind": "sessions", "on": on, "off": off}})
    return _kvr_scenario(
        name or "R3 (8 TCP, 4 on/off ABR)", nodes, links, conns, duration=duration, sample_interval=sample_interval,
        seed=seed, buffer=buffer, allocator=allocator, abr=abr, tcp=KVR_TCP if tcp is None else tcp,
    )
