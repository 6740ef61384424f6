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
) -> dict[str, Any]:
    """The N-source configuration of seeds 000-002 (spec section 11).

    ``n`` sources -> switch ``sw1`` -> switch ``sw2`` -> ``n`` destinations. Every source
    and destination has its own access link; ``sw1 -> sw2`` is the shared bottleneck.
    Give the length of each of the three segments with ``link_delay`` (e.g. ``"5 ms"``,
    seed 001 WAN) or ``link_length`` (e.g. ``"1000 km"``), or all three separately with
    ``segment_delays`` (source-sw1, sw1-sw2, sw2-destination).
    ``buffer`` and ``policy`` apply to every switch output port.
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
            "service": "ubr",
            "traffic": {"kind": "tcp"},
        }
        if start_times is not None:
            c["start"] = start_times[i - 1]
        conns.append(c)
    defaults: dict[str, Any] = {"link_rate": rate, "switch_buffer": buffer}
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
