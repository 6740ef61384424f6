"""The engine benchmark: a fixed, realistic scenario, timed, reported as numbers.

The scenario is the UBR+ WAN configuration of seed 001: 15 TCP sources, 5 ms links,
600 000-byte windows, 36 000-cell switch buffers with Fair Buffer Allocation, 20 s.
A cell-hop is one cell crossing one port and its link.
"""

from __future__ import annotations

import copy
import json
import statistics
from pathlib import Path
from typing import Any, NamedTuple

from . import _core
from .result import paused_gc
from .topology import n_source


def bench_scenario(duration: str = "20 s") -> dict[str, Any]:
    """The benchmark scenario."""
    return n_source(
        15,
        link_delay="5 ms",
        buffer="36000 cells",
        policy={"kind": "fba", "threshold": "50 %", "z": 0.8},
        duration=duration,
        sample_interval="0 s",
        tcp={"mss": "512 B", "window": "600000 B"},
        name="bench: UBR+ WAN, 15 sources, 36000 cells, FBA",
    )


#: Open connections per KVR port in the allocator benchmark.
KVR_SIZES = (10, 100, 1_000, 10_000, 100_000)


def run_kvr_bench(rm_cells: int = 2_000_000, sizes: tuple[int, ...] = KVR_SIZES) -> dict[int, float]:
    """ns per forward RM cell of the KVR allocator with N open connections at the port,
    best of three: flat in N because the allocator is O(1) (seed 004 section 2.2)."""
    return {n: min(_core.bench_kvr(n, rm_cells) for _ in range(3)) for n in sizes}


def run_bench(repeat: int = 3, duration: str = "20 s") -> dict[str, Any]:
    """Runs the benchmark ``repeat`` times (at least once) on one core; reports the best run."""
    if repeat < 1:
        raise ValueError(f"repeat = {repeat}: at least 1 run")
    text = json.dumps(bench_scenario(duration))
    runs = [json.loads(_core.run_json(text))["summary"] for _ in range(repeat)]
    best = min(runs, key=lambda s: s["wall_seconds"])
    return {
        "cell_hops_per_second": best["cell_hops_per_second"],
        "events_per_second": best["events_per_second"],
        "wall_seconds": best["wall_seconds"],
        "cell_hops": best["cell_hops"],
        "events": best["events"],
        "simulated_seconds": best["duration_s"],
        "repeat": len(runs),
        "scenario": "UBR+ WAN, 15 sources, 36000-cell buffers, FBA, 20 s",
        "version": best["version"],
    }


# ---------------------------------------------------------------------------------------
# The scale benchmark (issue 14): cost per cell-hop and memory per VC as N grows.
# ---------------------------------------------------------------------------------------

#: Numbers of VCs of the scale benchmark.
SCALE_SIZES = (10, 100, 1_000, 10_000)


class _Case(NamedTuple):
    """A traffic case of the scale benchmark: what it is, and what it sets."""

    doc: str
    defaults: dict[str, Any]
    service: str
    traffic: dict[str, Any]
    connection: dict[str, Any]


#: The traffic cases of the scale benchmark, in table order (the one list: the CLI's choices
#: and help read it).
SCALE_CASE_SETTINGS: dict[str, _Case] = {
    "ubr-fba-tcp": _Case("UBR+FBA with TCP",
                         {"policy": {"kind": "fba", "threshold": "50 %", "z": 0.8},
                          "tcp": {"mss": "512 B", "window": "65535 B"}},
                         "ubr", {"kind": "tcp"}, {}),
    "abr-erica": _Case("ABR+ERICA with greedy sources", {"allocator": {"kind": "erica"}},
                       "abr", {"kind": "persistent"}, {}),
    "abr-kvr": _Case("ABR+KVR with greedy sources",
                     {"allocator": {"kind": "kvr"}, "abr": {"policy": "ucsc", "nrm": 32, "air": "180 cells/s"}},
                     "abr", {"kind": "persistent"}, {"setup": "pre_established"}),
}
SCALE_CASES = tuple(SCALE_CASE_SETTINGS)
#: The topologies and their switches in a line: a 2-switch bottleneck and a 4-switch
#: parking lot.
SCALE_TOPOLOGY_SWITCHES = {"bottleneck": 2, "parking-lot": 4}
SCALE_TOPOLOGIES = tuple(SCALE_TOPOLOGY_SWITCHES)


def _pair_network(n: int, switches: int, delay: str):
    """Nodes, links and routes of ``n`` VCs, one host pair each, over ``switches`` switches in
    a line. With 2 switches every VC enters at ``sw1`` (the 2-switch bottleneck); with more,
    VC ``i`` enters at switch ``1 + i mod (switches - 1)`` (a parking lot: the last trunk
    carries every VC). Every VC leaves at the last switch."""
    sw = [f"sw{k}" for k in range(1, switches + 1)]
    nodes = [{"name": s, "kind": "switch"} for s in sw]
    links = [{"between": [a, b], "delay": delay} for a, b in zip(sw, sw[1:])]
    routes = []
    for i in range(n):
        s, d = f"src{i}", f"dst{i}"
        nodes += [{"name": s, "kind": "host"}, {"name": d, "kind": "host"}]
        entry = i % (switches - 1)
        links += [{"between": [s, sw[entry]], "delay": delay}, {"between": [sw[-1], d], "delay": delay}]
        routes.append((s, d, [s, *sw[entry:], d]))
    return nodes, links, routes


@paused_gc()
def scale_scenario(case: str, topology: str, n: int, duration: str = "0.5 s") -> dict[str, Any]:
    """One row's scenario: ``n`` VCs of ``case`` (``SCALE_CASES``) on ``topology``
    (``SCALE_TOPOLOGIES``), 1 ms links at 155.52 Mbps, no time series. Built with the
    garbage collector paused (:func:`atmsim.result.paused_gc`: its passes were most of the
    time of building 100 000 VCs)."""
    if case not in SCALE_CASES:
        raise ValueError(f"case = {case!r}: allowed {', '.join(SCALE_CASES)}")
    if topology not in SCALE_TOPOLOGIES:
        raise ValueError(f"topology = {topology!r}: allowed {', '.join(SCALE_TOPOLOGIES)}")
    if n < 1:
        raise ValueError(f"n = {n}: at least one VC")
    nodes, links, routes = _pair_network(n, SCALE_TOPOLOGY_SWITCHES[topology], "1 ms")
    settings = SCALE_CASE_SETTINGS[case]
    defaults: dict[str, Any] = {"link_rate": "155.52 Mbps", "switch_buffer": "36000 cells",
                                **copy.deepcopy(settings.defaults)}
    conns = [{"name": f"vc{i}", "from": s, "to": d, "route": route, "service": settings.service,
              "traffic": dict(settings.traffic), **settings.connection}
             for i, (s, d, route) in enumerate(routes)]
    return {
        "name": f"scale: {case}, {topology}, {n} VCs",
        "seed": 1,
        "measurement": {"duration": duration, "sample_interval": "0 s"},
        "defaults": defaults,
        "node": nodes,
        "link": links,
        "connection": conns,
    }


def _scenario_text(sc: dict[str, Any]) -> str:
    """The JSON text :func:`atmsim.run` hands the engine for ``sc`` (compact, written by the
    extension), so that a row's set-up parses what a user's run parses: ``json.dumps``'s
    spaces after every comma and colon were 3.5 % of parsing the 10 000-VC rows."""
    from .scenario import _json_text

    return _json_text(sc)


def _proc_bytes(path: str, key: str) -> int | None:
    """The ``key: N kB`` line of a Linux ``/proc`` file, in bytes; None where it cannot be read."""
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _peak_rss_bytes() -> int:
    """This process's peak resident memory. Linux's VmHWM, which starts afresh at exec:
    ``getrusage``'s ``ru_maxrss`` carries the parent's peak across fork and exec, so a row
    run from a process that built a 10 000-VC scenario read 0 bytes above baseline."""
    hwm = _proc_bytes("/proc/self/status", "VmHWM")
    if hwm is not None:
        return hwm
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB


def scale_row(case: str, topology: str, n: int, duration: str = "0.5 s",
              text: str | None = None) -> dict[str, Any]:
    """Runs one row in this process and measures it: CPU time of the whole run (parse,
    build, event loop, results), its cell-hops and events, the cells its sources sent and
    the network dropped (``dropped_share``: what regime the row measures; a cell dropped at
    its first switch is one cell-hop of work done at its source's cold state), and the peak
    RSS above the process's peak before the run. Meant for a fresh process (see :func:`run_scale`), given
    the scenario's JSON ``text`` built elsewhere: building a 10 000-VC scenario as Python
    dicts here would raise the peak before the run and hide the engine's memory."""
    import time

    if text is None:
        text = _scenario_text(scale_scenario(case, topology, n, duration))
    sent = dropped = None
    base = _peak_rss_bytes()
    u0 = _rusage()
    t0 = time.process_time()
    if hasattr(_core, "run_counts"):
        counts = _core.run_counts(text)
        cell_hops, events = counts[:2]
        if len(counts) == 4:  # engines before the tenth session gave two counts
            sent, dropped = counts[2:]
    else:  # an engine without run_counts: the results come back as JSON (counted too)
        s = json.loads(_core.run_json(text))["summary"]
        cell_hops, events = s["cell_hops"], s["events"]
        sent, dropped = s.get("cells_sent"), s.get("cells_dropped")
    cpu = time.process_time() - t0
    u1 = _rusage()
    rss = max(0, _peak_rss_bytes() - base)
    # The set-up alone (parse, resolve, build; no event loop), measured after the peak RSS
    # was read: the event loop's CPU time is the difference.
    setup = None
    if hasattr(_core, "run_counts"):
        t1 = time.process_time()
        _core.run_counts(text, False)
        setup = time.process_time() - t1
    loop = cpu - setup if setup is not None else None
    return {
        "case": case,
        "topology": topology,
        "vcs": n,
        "cell_hops": cell_hops,
        "events": events,
        "cpu_seconds": cpu,
        "ns_per_cell_hop": cpu * 1e9 / max(1, cell_hops),
        "setup_cpu_seconds": setup,
        "loop_ns_per_cell_hop": None if loop is None else max(0.0, loop) * 1e9 / max(1, cell_hops),
        "events_per_cell_hop": events / max(1, cell_hops),
        "cells_sent": sent,
        "cells_dropped": dropped,
        "dropped_share": None if not sent or dropped is None else dropped / sent,
        "peak_rss_above_baseline": rss,
        "bytes_per_vc": rss / n,
        # The kernel's share of the run's CPU and the first touches of new memory (minor page
        # faults) that cause most of it: at 10 000 VCs about 30 % of the UBR row (issue 14,
        # docs/performance-journal.md). None where getrusage is missing.
        "system_cpu_seconds": None if u0 is None or u1 is None else u1[0] - u0[0],
        "page_faults": None if u0 is None or u1 is None else u1[1] - u0[1],
    }


def _rusage() -> "tuple[float, int] | None":
    """This process's system CPU seconds and minor page faults so far (None off Unix)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return None
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_stime, r.ru_minflt


#: Bytes a scale row's scenario takes in this process while it is built (its dicts, then its
#: JSON text), per VC: measured at 2.04 KB at the peak (tracemalloc) for the largest, the ERICA
#: parking-lot row at 10 000 VCs, and rounded up for the interpreter's own overhead.
SCENARIO_BYTES_PER_VC = 3072


def _available_memory() -> int | None:
    """``MemAvailable`` of ``/proc/meminfo`` in bytes, as the engine reads it for its own
    refusal (``atmsim::footprint``); None where it cannot be read."""
    return _proc_bytes("/proc/meminfo", "MemAvailable")


def check_scale_sizes(sizes, available: int | None = None) -> None:
    """Refuses (:class:`atmsim.MemoryLimitError`) a scale row too large to build here, before
    any row runs: its scenario is built in this process (:data:`SCENARIO_BYTES_PER_VC` a VC)
    before the engine can estimate and refuse the run, so a row of far more VCs than the
    machine holds would otherwise exhaust its memory. ``available`` defaults to
    ``MemAvailable`` (no check where it cannot be read, or with ``ATMSIM_MEMORY_LIMIT=off``)."""
    import os

    from . import MemoryLimitError

    if available is None:
        if os.environ.get("ATMSIM_MEMORY_LIMIT", "").strip().lower() == "off":
            return
        available = _available_memory()
        if available is None:
            return
    n = max(sizes, default=0)
    need = n * SCENARIO_BYTES_PER_VC
    if need > available:
        gib = 2**30
        raise MemoryLimitError(
            f"a scale row of {n} VCs: building its scenario takes about {need / gib:.1f} GiB in this "
            f"process ({SCENARIO_BYTES_PER_VC} bytes per VC), more than the {available / gib:.1f} GiB "
            f"available (MemAvailable in /proc/meminfo); allowed here: at most "
            f"{available // SCENARIO_BYTES_PER_VC} VCs (--vcs)")


def run_scale(sizes=SCALE_SIZES, cases=SCALE_CASES, topologies=SCALE_TOPOLOGIES, duration: str = "0.5 s",
              timeout: float = 600.0, on_row=None, repeat: int = 1, on_run=None) -> list[dict[str, Any]]:
    """The scale table: one row per (case, topology, N), each run in a fresh Python
    process (so its peak RSS is its own), ``repeat`` times, round by round (every row once,
    then every row again: a slow minute of the machine then falls on one run of several
    rows, not on every run of one), and each row reduced to the best of its runs
    (:func:`best_of`; ``atmsim bench --scale`` runs three, this function one unless told).
    ``on_run(row, round)`` is called after every run (rounds from 0),
    ``on_row(row)`` with each row's final figures, in the table's order, as the last round
    reaches it. A row that fails (refused, killed, timed out) is reported with ``error``
    set instead of figures, and not run again. A bad engine setting in the environment
    (``ATMSIM_CACHE_HINTS``, ``ATMSIM_MEMORY_LIMIT``), which every row would inherit, raises
    before the first row (``EngineSettingError``, ``MemoryLimitError``), and so does a row
    too large to build here (:func:`check_scale_sizes`)."""
    import tempfile

    if repeat < 1:
        raise ValueError(f"repeat = {repeat}: at least 1 run of each row")
    _core.check_environment()
    check_scale_sizes(sizes)
    keys = [(case, topo, n) for case in cases for topo in topologies for n in sizes]
    runs: dict[tuple[str, str, int], list[dict[str, Any]]] = {k: [] for k in keys}
    files: dict[tuple[str, str, int], str] = {}
    rows = []
    try:
        for round_ in range(repeat):
            for key in keys:
                done = runs[key]
                if not done or "error" not in done[-1]:
                    if key not in files:
                        text = _scenario_text(scale_scenario(*key, duration))  # before the file: an
                        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
                            files[key] = f.name  # interruption while it is built leaves none behind
                            f.write(text)
                    done.append(_run_row(*key, duration, files[key], timeout))
                    if on_run is not None:
                        on_run(done[-1], round_)
                if round_ == repeat - 1:
                    rows.append(best_of(done))
                    if on_row is not None:
                        on_row(rows[-1])
    finally:
        for name in files.values():
            Path(name).unlink(missing_ok=True)
    return rows


def _run_row(case: str, topo: str, n: int, duration: str, scenario: str, timeout: float) -> dict[str, Any]:
    """One run of one row in a fresh process (:func:`scale_row`), given its scenario's file."""
    import subprocess
    import sys

    cmd = [sys.executable, "-m", "atmsim.bench", case, topo, str(n), duration, scenario]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"case": case, "topology": topo, "vcs": n, "error": f"timed out after {timeout:g} s"}
    if p.returncode == 0:
        return json.loads(p.stdout.strip().splitlines()[-1])
    lines = (p.stderr.strip() or f"exit status {p.returncode}").splitlines()
    return {"case": case, "topology": topo, "vcs": n, "error": lines[-1]}


#: What a run of a row counts: the same in every run of it (the engine is deterministic).
RUN_COUNTS = ("cell_hops", "events", "cells_sent", "cells_dropped")


def best_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One row of the scale table from its runs, as issue 14 measured its own table ("All
    figures are CPU time per simulated cell-hop, best of 3"): the machine's noise (other
    processes, the caches they take) only ever adds time, so a row's times are its fastest
    run's (``ns_per_cell_hop`` and what goes with it; ``loop_ns_per_cell_hop`` and
    ``setup_cpu_seconds`` each the least of the runs'), while its memory is the largest
    run's (``peak_rss_above_baseline``, ``bytes_per_vc``). ``runs`` is how many runs there
    were, ``ns_per_cell_hop_runs`` each one's time. A run that failed makes the row that
    failure; runs that counted different cell-hops, events or cells make it an error too
    (the engine is deterministic: the same scenario must count the same), as does an empty
    list (ValueError). ``ns_per_cell_hop_median`` is the median of the runs' times: best of N
    is the optimistic estimate (it lowers the noisiest rows most), and
    :func:`scale_targets` gives the ratio of the medians beside it."""
    if not runs:
        raise ValueError("best_of: no runs")
    failed = next((r for r in runs if "error" in r), None)
    if failed is not None:
        return {**failed, "runs": len(runs)}
    first = runs[0]
    for key in RUN_COUNTS:
        seen = sorted({r.get(key) for r in runs}, key=lambda v: (v is None, v or 0))
        if len(seen) > 1:
            return {k: first[k] for k in ("case", "topology", "vcs")} | {
                "error": f"its runs counted different {key}: {', '.join(map(str, seen))}", "runs": len(runs)}
    row = dict(min(runs, key=lambda r: r["cpu_seconds"]))
    for key in ("loop_ns_per_cell_hop", "setup_cpu_seconds"):
        values = [r[key] for r in runs if r.get(key) is not None]
        row[key] = min(values) if values else None
    row["peak_rss_above_baseline"] = max(r["peak_rss_above_baseline"] for r in runs)
    row["bytes_per_vc"] = row["peak_rss_above_baseline"] / row["vcs"]
    row["runs"] = len(runs)
    row["ns_per_cell_hop_runs"] = [r["ns_per_cell_hop"] for r in runs]
    row["ns_per_cell_hop_median"] = statistics.median(row["ns_per_cell_hop_runs"])
    return row


#: The scale table's header, two lines: the second names each column, the first the group and
#: unit over it. "CPU ns per cell-hop" is the process's CPU time (``time.process_time``) per
#: cell-hop: "whole run" of the call (parse, resolve, build, event loop, teardown), "event loop"
#: that less the CPU of the same call with the event loop off (the set-up alone). "peak RSS above
#: baseline" is resident memory (Linux ``VmHWM``) above the process's peak before the run: in MiB
#: (2**20 bytes), and in bytes per VC. "dropped" is the share of the cells sent that were dropped.
SCALE_HEADER_LINES = (
    f"{'':<12} {'':<12} {'':>6} {'CPU ns per cell-hop':^21} {'events':>8} {'peak RSS above baseline':^25} "
    f"{'dropped':>8}",
    f"{'case':<12} {'topology':<12} {'VCs':>6} {'whole run':>10} {'event loop':>10} {'per hop':>8} "
    f"{'MiB':>12} {'bytes per VC':>12} {'of sent':>8}",
)
SCALE_HEADER = "\n".join(SCALE_HEADER_LINES)


def format_scale_row(r: dict[str, Any]) -> str:
    """One line of the scale table (under :data:`SCALE_HEADER`)."""
    head = f"{r['case']:<12} {r['topology']:<12} {r['vcs']:>6}"
    if "error" in r:
        return f"{head} {r['error']}"
    lp = r.get("loop_ns_per_cell_hop")
    loop = f"{lp:>10.1f}" if lp is not None else f"{'-':>10}"
    ds = r.get("dropped_share")
    dropped = f"{ds * 100:>7.1f}%" if ds is not None else f"{'-':>8}"
    return (f"{head} {r['ns_per_cell_hop']:>10.1f} {loop} {r['events_per_cell_hop']:>8.2f} "
            f"{r['peak_rss_above_baseline'] / 2**20:>12.1f} {r['bytes_per_vc']:>12.0f} {dropped}")


#: Issue 14's targets for the scale table: the CPU per cell-hop of a case's largest network
#: within this factor of its smallest ("flat cost", stated for :data:`FLAT_COST_TARGET_VCS`),
#: and at most this many bytes per VC of resident memory above the baseline ("memory",
#: results and series off), stated for :data:`MEMORY_TARGET_VCS` VCs: at fewer, the fixed
#: costs dominate the bytes per VC, so a smaller largest network is shown but not judged.
FLAT_COST_TARGET = 2.0
FLAT_COST_TARGET_VCS = (10, 10_000)
MEMORY_TARGET_BYTES_PER_VC = 1024
MEMORY_TARGET_VCS = 10_000


def scale_targets(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Issue 14's targets, read off the scale table: for each case and topology with rows
    of two sizes or more, its largest network (``vcs_to``) against its smallest
    (``vcs_from``). ``cost_ratio`` is the CPU per cell-hop of the whole run (set-up
    included), ``loop_cost_ratio`` that of the event loop alone, ``median_cost_ratio`` that
    of the whole run's median over each row's runs (None for rows of one run: :func:`best_of`;
    the target is read off ``cost_ratio``, best of N, as issue 14 measured); ``flat_cost_met``
    when the whole run's is within :data:`FLAT_COST_TARGET` (judged whatever the sizes; the
    target is stated for :data:`FLAT_COST_TARGET_VCS`). ``bytes_per_vc`` is the largest
    network's; ``memory_judged`` whether it has :data:`MEMORY_TARGET_VCS` VCs or more, and
    ``memory_met`` then whether its bytes per VC are at most :data:`MEMORY_TARGET_BYTES_PER_VC`,
    else None (not judged: at fewer VCs the fixed costs dominate the bytes per VC). Where the
    largest or the smallest row failed, the entry carries its ``error`` instead of figures,
    and neither target is met (``flat_cost_met`` False, ``memory_met`` False, or None where
    not judged)."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["case"], r["topology"]), []).append(r)
    out = []
    for (case, topo), rs in groups.items():
        small, large = min(rs, key=lambda r: r["vcs"]), max(rs, key=lambda r: r["vcs"])
        if small["vcs"] == large["vcs"]:
            continue
        judged = large["vcs"] >= MEMORY_TARGET_VCS
        entry: dict[str, Any] = {"case": case, "topology": topo, "vcs_from": small["vcs"], "vcs_to": large["vcs"]}
        failed = next((r for r in (large, small) if "error" in r or not r["ns_per_cell_hop"] > 0), None)
        if failed is not None:
            why = failed.get("error", "no cell-hops")
            out.append({**entry, "error": f"the {failed['vcs']}-VC row: {why}", "flat_cost_met": False,
                        "memory_met": False if judged else None, "memory_judged": judged})
            continue
        ratio = large["ns_per_cell_hop"] / small["ns_per_cell_hop"]
        lp, ls = large.get("loop_ns_per_cell_hop"), small.get("loop_ns_per_cell_hop")
        mp, ms = large.get("ns_per_cell_hop_median"), small.get("ns_per_cell_hop_median")
        out.append({
            **entry,
            "cost_ratio": ratio,
            "loop_cost_ratio": lp / ls if lp is not None and ls else None,
            "median_cost_ratio": mp / ms if mp is not None and ms else None,
            "flat_cost_met": ratio <= FLAT_COST_TARGET,
            "bytes_per_vc": large["bytes_per_vc"],
            "memory_met": large["bytes_per_vc"] <= MEMORY_TARGET_BYTES_PER_VC if judged else None,
            "memory_judged": judged,
        })
    return out


#: The targets' columns, in :func:`format_scale_targets`'s lines.
SCALE_TARGETS_HEADER = (f"{'case':<12} {'topology':<12} {'VCs compared':>15}  {'CPU/hop ratio, run / loop':>25} "
                        f"{'cost met':>8} {'bytes/VC at largest N':>21} {'memory met':>10} {'median-run ratio':>16}")


def format_scale_targets(targets: list[dict[str, Any]]) -> list[str]:
    """The lines that follow the scale table: what issue 14's targets are and at which
    sizes they are stated, a note where the table's sizes differ, then each case's
    flat-cost ratio and memory per VC, each with whether it is met ("n/a": not judged)."""
    if not targets:
        return []
    yes = {True: "yes", False: "no", None: "n/a"}
    lo, hi = FLAT_COST_TARGET_VCS
    lines = ["targets (issue 14), each case and topology's largest N against its smallest:",
             f"  flat cost: CPU ns per cell-hop within {FLAT_COST_TARGET:g}x, stated for {lo} -> {hi} VCs "
             f"(judged on the whole run; the event loop's ratio beside it)",
             f"  memory: at most {MEMORY_TARGET_BYTES_PER_VC} bytes per VC of resident memory above the baseline, "
             f"judged at {MEMORY_TARGET_VCS} VCs or more",
             "  median-run ratio: the whole run's ratio of the rows' median runs (the judged ratio, best of N, "
             "is the optimistic estimate)"]
    other = sorted({(t["vcs_from"], t["vcs_to"]) for t in targets} - {FLAT_COST_TARGET_VCS})
    if other:
        compared = ", ".join(f"{a} -> {b}" for a, b in other)
        lines.append(f"note: the flat-cost target is stated for {lo} -> {hi} VCs; here compared: {compared} VCs")
    if any(not t.get("memory_judged", t["vcs_to"] >= MEMORY_TARGET_VCS) for t in targets):
        lines.append(f"note: memory met n/a: not judged, the largest N is below {MEMORY_TARGET_VCS} VCs (the target "
                     f"is for {MEMORY_TARGET_VCS} VCs; at fewer, fixed costs dominate the bytes per VC)")
    lines.append(SCALE_TARGETS_HEADER)
    for t in targets:
        vcs = f"{t['vcs_from']} -> {t['vcs_to']}"
        if "error" in t:
            lines.append(f"{t['case']:<12} {t['topology']:<12} {vcs:>15} not measured: {t['error']}")
            continue
        loop = f"{t['loop_cost_ratio']:.2f}x" if t["loop_cost_ratio"] is not None else "-"
        median = t.get("median_cost_ratio")
        median = f"{median:.2f}x" if median is not None else "-"
        lines.append(f"{t['case']:<12} {t['topology']:<12} {vcs:>15}  "
                     f"{t['cost_ratio']:>15.2f}x / {loop:>6} {yes[t['flat_cost_met']]:>8} "
                     f"{t['bytes_per_vc']:>21.0f} {yes[t['memory_met']]:>10} {median:>16}")
    return lines


if __name__ == "__main__":  # one row of the scale benchmark: CASE TOPOLOGY N DURATION [SCENARIO.json]
    import sys

    given = Path(sys.argv[5]).read_text() if len(sys.argv) > 5 else None
    print(json.dumps(scale_row(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], given)))
