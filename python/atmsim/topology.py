"""Topology builders: scenario dicts for the configurations of the seeds.

Each builder returns a plain dict mirroring the TOML scenario format, so it can be
changed by hand, saved with :func:`atmsim.scenario.to_toml`, or run with :func:`atmsim.run`.
"""

from __future__ import annotations

from typing import Any


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
    on, y ms off, from t = 2 ms).
    """
    if n < 1:
        raise ValueError(f"n = {n}: the configuration needs at least one source")
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
        traffic = {"kind": "on_off", "peak_rate": vbr["peak_rate"], "on": vbr["on"], "off": vbr["off"]}
        if "phase" in vbr:
            traffic["phase"] = vbr["phase"]
        conns.append({"name": "vbr", "from": "vbr_src", "to": "vbr_dst", "route": ["vbr_src", "sw1", "sw2", "vbr_dst"],
                      "service": "vbr", "traffic": traffic})
    defaults: dict[str, Any] = {"link_rate": rate, "switch_buffer": buffer}
    if abr is not None:
        defaults["abr"] = dict(abr)
    if allocator is not None:
        defaults["allocator"] = dict(allocator)
    if policy is not None:
        defaults["policy"] = policy
    if tcp is not None:
        defaults["tcp"] = dict(tcp)
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
