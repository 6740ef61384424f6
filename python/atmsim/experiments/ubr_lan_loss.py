"""Where UBR tail drop loses time in seed 001's LAN (issue 15 section 4): per 100 ms of the
bottleneck link, the share of cell slots that carried new data, that carried cells which
delivered nothing new (cells of corrupted frames, and retransmitted duplicates), and that
were idle; and how many frames a tail drop corrupts per dropped cell.

    python -m atmsim.experiments.ubr_lan_loss [--quick]

prints one line per LAN configuration and policy, and the per-100 ms budget of UBR.
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


def main(argv: list[str] | None = None) -> int:
    from ..parallel import run_many

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--csv", help="also write the table here (the ledger reads atmsim/data/ubr_lan_loss.csv)")
    a = ap.parse_args(argv)
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
