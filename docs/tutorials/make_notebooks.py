"""Writes the three tutorial notebooks (outputs cleared; the docs build and
tests/test_notebooks.py execute them). Edit the cells here, then run
``python docs/tutorials/make_notebooks.py``."""

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

UBR = [
    new_markdown_cell("""# Run a UBR scenario and plot it

Three TCP sources (`a` and `c` run Tahoe, `b` runs Reno) share a 155 Mbit/s bottleneck
through two switches (`examples/ubr_small.toml`): the port `sw1->sw2`, with a 600-cell
buffer. Every switch port drops by Early Packet Discard (EPD, threshold 80 %) except the
destination's access port `sw2->dst`, which has a 5000-cell tail-drop buffer. We run it,
look at the results as pandas tables, and plot them. Runs take well under a second here;
a long run shows a progress bar and stops at once on *Kernel > Interrupt*."""),
    new_code_cell("""%matplotlib inline
from pathlib import Path
import atmsim

root = Path.cwd()
while not (root / "examples").is_dir():   # the repository root, wherever the notebook runs
    root = root.parent
result = atmsim.run(root / "examples" / "ubr_small.toml")
result                                     # a summary table (RunResult._repr_html_)"""),
    new_markdown_cell("""Efficiency is about 0.45 and the link idles for the last 44 % of the run. That is
what TCP with 100 ms timer ticks does in 0.5 s (seed 001's timers): `a` and `b` lose
frames at the EPD bottleneck in their first burst and time out; `c`, starting at 50 ms, has
the link to itself until it too loses frames at about 0.27 s; then all three wait for retransmission
timers that do not fire before the run ends (see the comments in
`examples/ubr_small.toml`). The per-connection table:"""),
    new_code_cell("""result.connections[["name", "goodput_bps", "retransmissions", "timeouts", "cells_dropped"]]"""),
    new_markdown_cell("The standard four panels (queues, utilization, cwnd, cells received):"),
    new_code_cell("""fig = result.plot()"""),
    new_markdown_cell("""The time series are long-format DataFrames, ready for your own plots. The
bottleneck is the port `sw1->sw2`:"""),
    new_code_cell("""import matplotlib.pyplot as plt

ps = result.port_series
bottleneck = ps[ps["port"] == "sw1->sw2"]
fig, ax = plt.subplots(figsize=(7, 3))
ax.plot(bottleneck["time_s"], bottleneck["queue_cells"])
ax.set_xlabel("time (s)")
ax.set_ylabel("queue at sw1->sw2 (cells)");"""),
    new_markdown_cell("""Change the scenario as a dict and run it again: with exact timers and a 10 ms
minimum RTO the sources recover quickly from their losses and the link stays busy."""),
    new_code_cell("""sc = atmsim.load_scenario(root / "examples" / "ubr_small.toml")
sc["defaults"]["tcp"].update(timer_granularity="exact", rto_min="10 ms")
exact = atmsim.run(sc)
print(f"100 ms ticks: efficiency {result.summary['efficiency']:.2f}; exact timers: {exact.summary['efficiency']:.2f}")"""),
]

ABR = [
    new_markdown_cell("""# Compare rate allocators on an ABR topology

Five TCP connections run over ABR virtual circuits through two switches (each
connection's data and its ACKs are two ABR sources); the switches run a rate allocator.
We take four of the allocators the engine has registered (ERICA, ERICA+, EFCI marking and
KVR; `atmsim list`, or `atmsim.catalog.extension_points()`, names them all) and compare how
close each gets to the max-min fair share, and how much queue it builds."""),
    new_code_cell("""%matplotlib inline
import pandas as pd
import atmsim
from atmsim.topology import n_source

def scenario(allocator):
    return n_source(5, link_delay="50 us", buffer="4000 cells", service="abr",
                    abr={"icr": "10 Mbps"}, allocator=allocator, duration="60 ms",
                    sample_interval="0.5 ms", name=allocator["kind"])

allocators = [{"kind": "erica", "target_utilization": 0.95},
              {"kind": "erica_plus"},
              {"kind": "efci", "threshold": "100 cells"},
              {"kind": "kvr"}]
runs = {a["kind"]: atmsim.run(scenario(a)) for a in allocators}"""),
    new_markdown_cell("The max-min fair share of every source, from water-filling over the routes:"),
    new_code_cell("""fair = atmsim.max_min(scenario(allocators[0]))
fair"""),
    new_code_cell("""rows = []
for kind, r in runs.items():
    acr = r.connections.set_index("name")["acr_mean_bps"]
    rows.append({"allocator": kind,
                 "efficiency": r.summary["efficiency"],
                 "fairness": r.summary["fairness"],
                 "max queue (cells)": r.summary["max_switch_queue_cells"],
                 "mean ACR / fair share": (acr / fair.set_index("name")["fair_share_bps"]).mean()})
pd.DataFrame(rows)"""),
    new_markdown_cell("""The seed's four graphs for ERICA (allowed cell rate, queue, utilization, cells
received):"""),
    new_code_cell("""fig = runs["erica"].plot()"""),
    new_markdown_cell("ACR of one source under each allocator:"),
    new_code_cell("""import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
for kind, r in runs.items():
    a = r.abr_series[r.abr_series["source"] == r.abr_series["source"].iloc[0]]
    ax.plot(a["time_s"] * 1e3, a["acr_mbps"], label=kind)
ax.set_xlabel("time (ms)")
ax.set_ylabel("ACR (Mbit/s)")
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1));"""),
]

SWEEP = [
    new_markdown_cell("""# Sweep a parameter and load the store

A sweep runs a grid of scenarios in parallel and writes each point to a results store
(Parquet) as it finishes. Here: the switch buffer of a 5-source UBR network, two drop
policies, three seeds per point (24 runs, a few seconds in all). Each run simulates 2 s of
TCP Tahoe with 100 ms timer ticks, long enough for the retransmission timers to fire many
times: that is where the seeds make a difference, as the spread below shows."""),
    new_code_cell("""%matplotlib inline
import tempfile
from pathlib import Path
import atmsim

store = Path(tempfile.mkdtemp()) / "buffers"
spec = {
    "name": "buffers",
    "base": {"topology": "n_source",
             "args": {"n": 5, "link_delay": "100 us", "duration": "2 s"}},
    "sweep": {"seeds": 3,
              "parameters": {
                  "defaults.switch_buffer": {"values": [200, 500, 1000, 2000], "unit": "cells"},
                  "defaults.policy": {"values": [{"kind": "tail_drop"}, {"kind": "epd", "threshold": "80 %"}],
                                      "labels": ["tail drop", "EPD"], "name": "policy"}}},
}
res = atmsim.sweep(spec, out=store, backend="threads", progress=False)
res.df.head()"""),
    new_markdown_cell("""Efficiency against the buffer, one line per policy: the mean over the seeds, with
a band of ± one standard deviation."""),
    new_code_cell("""ax = res.plot("efficiency", x="defaults.switch_buffer", by="policy")"""),
    new_markdown_cell("""Later, or in another process, load the store again: nothing runs."""),
    new_code_cell("""again = atmsim.load_sweep(store)
again.aggregate(["efficiency", "fairness"])"""),
    new_markdown_cell("""The `_std` columns are the spread over the three seeds, and it is large: the
efficiency of one point often differs by 0.1 or more from seed to seed. In a UBR network the
seed sets only each connection's TCP tick phase (where its 100 ms timer grid starts; see
*Tick phase* in the TCP model page, `docs/models/tcp.md`), but the phases decide which
sources time out on the same tick and restart together. One seed per point is not a result.
The spread would be exactly 0 in runs too short for any retransmission timer to fire (0.2 s
here: the RTO is at least two ticks), and with `timer_granularity = "exact"`, where the
phase moves only the delayed-ACK timer, which is off by default."""),
    new_markdown_cell("""Every Parquet file of the store has a `point_id` column, so `pyarrow.dataset`
reads all points' tables at once and the rows can be joined back to their parameters:"""),
    new_code_cell("""import pyarrow.dataset as ds

conns = ds.dataset(sorted(map(str, store.glob("points/*/connections.parquet"))), format="parquet").to_table().to_pandas()
params = again.df[["point_id", "seed", "defaults.switch_buffer", "policy"]]
conns.merge(params, on="point_id")[["policy", "defaults.switch_buffer", "seed", "name", "goodput_bps"]].head(10)"""),
    new_markdown_cell("One point's time series:"),
    new_code_cell("""pid = again.df["point_id"][0]
again.series(pid, "port").query("port == 'sw1->sw2'").plot(x="time_s", y="queue_cells", figsize=(7, 3));"""),
]


def main() -> None:
    for name, cells in (("01-ubr-run-and-plot", UBR), ("02-compare-allocators", ABR), ("03-sweep-and-store", SWEEP)):
        nb = new_notebook(cells=cells, metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"}})
        nbformat.write(nb, HERE / f"{name}.ipynb")


if __name__ == "__main__":
    main()
