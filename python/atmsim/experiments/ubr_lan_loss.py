"""Where UBR tail drop loses time in seed 001's LAN (issue 15 section 4): per 100 ms of the
bottleneck link, the share of cell slots that carried new data, that carried cells which
delivered nothing new (cells of corrupted frames, and retransmitted duplicates), and that
were idle; and how many frames a tail drop corrupts per dropped cell.

    python -m atmsim.experiments.ubr_lan_loss [--quick]
    python -m atmsim.experiments.ubr_lan_loss --orders [--csv atmsim/data/ubr_lan_order.csv]
    python -m atmsim.experiments.ubr_lan_loss --hosts [--csv atmsim/data/ubr_lan_hosts.csv]

prints one line per LAN configuration and policy, and the per-100 ms budget of UBR.
``--orders`` runs every LAN configuration and policy under each ``defaults.arrival_order``
(the order in which cells reaching sw1 at one instant from several inputs enter its output
queue); ``--hosts`` runs them with the sources' connections on 1 or 2 shared hosts instead of
one host each (a host sends each segment's cells back to back, in the order its TCP
connections hand them over).
"""

from __future__ import annotations

import argparse

import pandas as pd

from .ubr_plus import POLICIES, scenario

LINK_CELLS_PER_S = 155.52e6 / 424
CELLS_PER_SEGMENT = 12  # 512 B + 56 B of headers in 48-byte payloads (seed 001)
BOTTLENECK = "sw1->sw2"


def time_budget(r, window: float = 0.1) -> pd.DataFrame:
    """Per ``window`` seconds of the bottleneck: ``busy`` (share of cell slots used), ``useful``
    (cells of segments delivered in order for the first time), ``wasted`` = busy - useful, and
    ``idle`` = 1 - busy."""
    ps = r.port_series
    s = ps[ps["port"] == BOTTLENECK].set_index("time_s")["utilization"]
    d = r.connection_series.groupby("time_s")["delivered_bytes"].sum()
    bins = (s.index.values // window).astype(int)
    busy = s.groupby(bins).mean()
    deliv = d.groupby((d.index.values // window).astype(int)).max().diff().fillna(d.groupby((d.index.values // window).astype(int)).max())
    useful = deliv / 512 * CELLS_PER_SEGMENT / (LINK_CELLS_PER_S * window)
    out = pd.DataFrame({"busy": busy, "useful": useful}).dropna()
    out["wasted"] = out["busy"] - out["useful"]
    out["idle"] = 1 - out["busy"]
    out.index = out.index * window
    return out


def frame_damage(r) -> dict[str, float]:
    """Cells dropped, frames lost (not delivered good; docs/models/metrics.md) and, among them,
    frames corrupted (closed by an EOM with cells missing), summed over the TCP connections;
    frames hit per dropped cell = frames lost / cells dropped."""
    c = r.connections
    dropped = float(c["cells_dropped"].sum())
    corrupted = float(c["frames_corrupted"].sum())
    lost = float(c["frames_lost"].sum())
    return {"cells_dropped": dropped, "frames_corrupted": corrupted, "frames_lost": lost,
            "frames_hit_per_dropped_cell": lost / dropped if dropped else 0.0,
            "timeouts": float(c["timeouts"].sum()), "retransmissions": float(c["retransmissions"].sum())}


#: The values of ``defaults.arrival_order`` (docs/scenario-format.md); ``event_order`` is the default.
ORDERS = ("event_order", "input_order", "round_robin", "random")


def _lan_jobs(quick: bool, variant) -> list[tuple[str, dict]]:
    """(key, scenario) for every LAN configuration x policy, each passed through ``variant``."""
    return [(f"LAN N={n} K={k} {pol}", variant(scenario("LAN", n, f"{k} cells", spec, quick)))
            for n in (5, 15) for k in (1000, 2000, 3000) for pol, spec in POLICIES.items()]


def with_order(sc: dict, order: str) -> dict:
    """The scenario with ``defaults.arrival_order = order`` (unset for ``event_order``)."""
    out = {**sc, "defaults": dict(sc["defaults"])}
    if order != "event_order":
        out["defaults"]["arrival_order"] = order
    return out


def with_input_skew(sc: dict, ns_per_input: int = 1) -> dict:
    """The scenario with source i's access link ``i x ns_per_input`` ns longer: src1's cells
    come first among cells that would reach sw1 within a few ns of each other (not only at
    the same picosecond, which is all ``arrival_order`` groups; the links' serial clocks
    round the 2.7263 us cell time to whole picoseconds, so near-ties differ by a few ps)."""
    links = []
    for ln in sc["link"]:
        a, b = ln["between"]
        if a.startswith("src") and b == "sw1":
            delay_ns = float(ln["delay"].split()[0]) * {"us": 1e3, "ns": 1.0, "ms": 1e6}[ln["delay"].split()[1]]
            ln = {**ln, "delay": f"{delay_ns + int(a[3:]) * ns_per_input:g} ns"}
        links.append(ln)
    return {**sc, "link": links}


def with_shared_hosts(sc: dict, hosts: int) -> dict:
    """Seed 001's N-source configuration with connection i sent from host ``src{i mod hosts + 1}``
    (the other source hosts and their access links removed)."""
    keep = {f"src{h + 1}" for h in range(hosts)}
    conns = []
    for i, c in enumerate(sc["connection"]):
        h = f"src{i % hosts + 1}"
        conns.append({**c, "from": h, "route": [h, *c["route"][1:]]})
    return {**sc, "connection": conns,
            "node": [x for x in sc["node"] if not (x["name"].startswith("src") and x["name"] not in keep)],
            "link": [ln for ln in sc["link"] if not (ln["between"][0].startswith("src") and ln["between"][0] not in keep)]}


def variant_table(quick: bool, variants: dict[str, object]) -> pd.DataFrame:
    """Efficiency, fairness and cells dropped of every LAN configuration x policy under each
    named variant (a function of the scenario)."""
    from ..parallel import run_many

    jobs = [(f"{key}|{name}", sc) for name, v in variants.items() for key, sc in _lan_jobs(quick, v)]
    res = run_many(jobs, progress=False)
    rows = []
    for key, r in res.items():
        case, name = key.split("|")
        rows.append({"case": case, "variant": name, "efficiency": round(r.summary["efficiency"], 3),
                     "fairness": round(r.summary["fairness"], 3), "cells_dropped": int(r.summary["cells_dropped"])})
    return pd.DataFrame(rows)


def _write(table: pd.DataFrame, path: str, what: str) -> None:
    with open(path, "w") as f:
        f.write(f"# python -m atmsim.experiments.ubr_lan_loss {what} --csv ...: LAN runs of ubr-plus (10 s, seed 1)\n"
                "# under each variant (issue 15 section 4)\n")
        table.to_csv(f, index=False)


def main(argv: list[str] | None = None) -> int:
    from ..parallel import run_many

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--csv", help="also write the table here (the ledger reads atmsim/data/ubr_lan_loss.csv)")
    ap.add_argument("--orders", action="store_true", help="every LAN run under each defaults.arrival_order")
    ap.add_argument("--hosts", action="store_true", help="every LAN run with the connections on 1 or 2 shared hosts")
    a = ap.parse_args(argv)
    if a.orders or a.hosts:
        variants = ({**{o: (lambda sc, o=o: with_order(sc, o)) for o in ORDERS},
                     "input skew 1 ns": with_input_skew} if a.orders else
                    {"one host per source": lambda sc: sc, **{f"{h} shared host{'s' if h > 1 else ''}":
                                                              (lambda sc, h=h: with_shared_hosts(sc, h)) for h in (1, 2)}})
        table = variant_table(a.quick, variants)
        print(table.pivot(index="case", columns="variant", values=["efficiency", "fairness"]).to_string())
        if a.csv:
            _write(table, a.csv, "--orders" if a.orders else "--hosts")
        return 0
    jobs = []
    for n in (5, 15):
        for k in (1000, 2000, 3000):
            for pol, spec in POLICIES.items():
                jobs.append((f"LAN N={n} K={k} {pol}", scenario("LAN", n, f"{k} cells", spec, a.quick)))
    res = run_many(jobs, progress=False)
    rows = []
    for key, r in res.items():
        b = time_budget(r)
        rows.append({"case": key, "efficiency": round(r.summary["efficiency"], 3), "busy": round(b["busy"].mean(), 3),
                     "useful": round(b["useful"].mean(), 3), "wasted": round(b["wasted"].mean(), 3),
                     "idle": round(b["idle"].mean(), 3), "idle_100ms_max": round(b["idle"].max(), 3),
                     **{k: round(v, 3) for k, v in frame_damage(r).items()}})
    table = pd.DataFrame(rows)
    print(table.to_string(index=False))
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("# python -m atmsim.experiments.ubr_lan_loss --csv ...: LAN runs of ubr-plus (10 s, seed 1), bottleneck\n"
                    "# time budget averaged over 100 ms windows, and frames hit by drops (issue 15 section 4)\n")
            table.to_csv(f, index=False)
    u = res["LAN N=5 K=1000 UBR"]
    print("\nLAN N=5 K=1000 UBR, per 100 ms:")
    print(time_budget(u).round(3).to_string())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
