"""ERICA+ on a parking lot whose VCs have unequal RTTs, seen through the allocator trace
(issue 17, item 3; the finding is in docs/models/erica.md, "Multi-hop stability").

    python examples/erica_plus_parking_lot.py            # the table of variants
    python examples/erica_plus_parking_lot.py --trace    # + the bottleneck's intervals

Topology: sw1 - sw2 - sw3 - sw4 joined by 1000 km trunks (5 ms each) at 155.52 Mb/s;
c1 enters at sw1, c2 at sw2, c3 at sw3, all leave at sw4: the three share the last trunk
(sw3->sw4, max-min 1/3 each) with round-trip times of about 30, 20 and 10 ms. Greedy TM 4.0
sources (persistent traffic).
"""

from __future__ import annotations

import sys

import atmsim


def parking_lot(allocator: dict, duration: str = "1.5 s", trunk: str = "1000 km",
                equal_rtts: bool = False) -> dict:
    """The parking lot; ``equal_rtts`` lengthens c2's and c3's access links (1000 and 2000 km)
    so that every VC has the same round-trip time (the control)."""
    nodes = [{"name": f"sw{i}", "kind": "switch"} for i in range(1, 5)]
    links = [{"between": [f"sw{i}", f"sw{i + 1}"], "length": trunk} for i in range(1, 4)]
    conns = []
    for i in range(1, 4):
        nodes += [{"name": f"s{i}", "kind": "host"}, {"name": f"d{i}", "kind": "host"}]
        access = f"{(i - 1) * 1000} km" if equal_rtts and i > 1 else "1 km"
        links += [{"between": [f"s{i}", f"sw{i}"], "length": access},
                  {"between": ["sw4", f"d{i}"], "length": "1 km"}]
        route = [f"s{i}"] + [f"sw{k}" for k in range(i, 5)] + [f"d{i}"]
        conns.append({"name": f"c{i}", "from": f"s{i}", "to": f"d{i}", "route": route,
                      "service": "abr", "traffic": {"kind": "persistent"}})
    return {
        "name": "ERICA+ parking lot, unequal RTTs",
        "seed": 1,
        "measurement": {"duration": duration, "warmup": "0.5 s", "sample_interval": "1 ms"},
        "defaults": {"link_rate": "155.52 Mbps", "allocator": allocator},
        "node": nodes, "link": links, "connection": conns,
    }


#: The variants compared: (name, allocator, topology keywords). ERICA+ as the seeds run it,
#: the controls (every VC with the same RTT: 30 ms, and 10 ms with 333 km trunks), then one
#: parameter changed at a time.
EP = {"kind": "erica_plus"}
VARIANTS = [
    ("erica_plus (delta 0.1, T0 0.5 ms, 1 ms / 100 cells)", EP, {}),
    ("control: equal RTTs, 30 ms", EP, {"equal_rtts": True}),
    ("control: equal RTTs, 10 ms", EP, {"equal_rtts": True, "trunk": "333 km"}),
    ("unequal RTTs, 3.3/6.7/10 ms", EP, {"trunk": "333 km"}),
    ("delta = 0.02", {**EP, "delta": 0.02}, {}),
    ("delta = 0.02, equal RTTs 30 ms", {**EP, "delta": 0.02}, {"equal_rtts": True}),
    ("delta = 0", {**EP, "delta": 0.0}, {}),
    ("max_min = false", {**EP, "max_min": False}, {}),
    ("max_min = false, equal RTTs 30 ms", {**EP, "max_min": False}, {"equal_rtts": True}),
    ("T0 = 5 ms", {**EP, "t0": "5 ms"}, {}),
    ("interval 5 ms / 500 cells", {**EP, "interval_time": "5 ms", "interval_cells": "500 cells"}, {}),
    ("interval 10 ms / 1000 cells", {**EP, "interval_time": "10 ms", "interval_cells": "1000 cells"}, {}),
    ("load_averaging = counts", {**EP, "load_averaging": "counts"}, {}),
    ("erica, U = 0.95", {"kind": "erica", "target_utilization": 0.95}, {}),
]


def steady(res: "atmsim.RunResult", fair_mbps: dict[str, float], t0: float = 0.5):
    """Per connection in [t0, end): ACR mean, oscillation (max - min) / mean, and the mean
    relative to the max-min share; and the bottleneck's z and queue."""
    acr = res.trace("acr")
    acr = acr[(acr["time_s"] >= t0) & (acr["direction"] == "forward")]
    rows = {}
    for c, g in acr.groupby("connection", observed=True):
        m = g["acr_mbps"].mean()
        rows[c] = (m / fair_mbps[c], (g["acr_mbps"].max() - g["acr_mbps"].min()) / m)
    al = res.trace("allocator")
    iv = al[(al["event"] == "interval") & (al["time_s"] >= t0)]
    return rows, iv["z"].min(), iv["z"].max(), iv["abr_queue_cells"].max()


def main(show_trace: bool) -> None:
    print("variant | c1/fair c2/fair c3/fair | osc c1 c2 c3 | z range | max queue | efficiency")
    for name, alloc, topo in VARIANTS:
        sc = parking_lot(alloc, **topo)
        fair = {r["name"]: r["fair_share_bps"] / 1e6 for _, r in atmsim.max_min(sc).iterrows()}
        res = atmsim.run(sc, progress=False,
                         trace={"events": ["acr", "allocator"], "ports": ["sw3->sw4"]})
        rows, zlo, zhi, q = steady(res, fair)
        ratio = " ".join(f"{rows[c][0]:.3f}" for c in ("c1", "c2", "c3"))
        osc = " ".join(f"{rows[c][1]:.3f}" for c in ("c1", "c2", "c3"))
        print(f"{name} | {ratio} | {osc} | {zlo:.3f}-{zhi:.3f} | {q:.0f} | {res.summary['efficiency']:.3f}")
        if show_trace and alloc == EP and not topo:
            al = res.trace("allocator")
            iv = al[(al["event"] == "interval") & (al["time_s"] >= 1.0)]
            cols = ["time_s", "z", "fair_share_mbps", "max_alloc_previous_mbps", "abr_capacity_mbps",
                    "active_vcs", "queue_factor", "abr_queue_cells"]
            print(iv[cols].head(12).to_string(index=False))
            fb = al[(al["event"] == "feedback") & (al["time_s"] >= 1.0)]
            print(fb[["time_s", "connection", "z", "fair_share_mbps", "ccr_mbps", "er_in_mbps", "er_mbps"]]
                  .head(12).to_string(index=False))


if __name__ == "__main__":
    main("--trace" in sys.argv)
