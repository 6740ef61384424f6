"""The ``atmsim`` command.

Every user error (a bad scenario, a missing file, an unknown experiment) prints one clear
message and exits with status 2; an I/O fault (a read-only or full file system, a damaged
store) prints one line naming the path and exits with status 1; Ctrl-C exits with 130; an
engine bug prints one line (the scenario saved to a file) and exits with 3. Nothing prints a
Python traceback (issue 18, item 4).
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import shutil
import sys
import textwrap
import time
import uuid
import warnings
from pathlib import Path

DESCRIPTION = """\
atmsim: a cell-level simulator of TCP/IP over ATM networks, with the UBR and ABR services:
buffer policies at the ports, TM 4.0 ABR end systems and explicit-rate switch algorithms,
TCP over both.

A scenario is a TOML file (or JSON, with the same layout): nodes (hosts and switches),
full-duplex links (rate, length), connections (route, service class, traffic, TCP or ABR
parameters), port settings (buffer, drop policy, rate allocator), measurement (duration,
warm-up, sampling interval) and a seed.
Quantities carry their units: "155.52 Mbps", "1000 km", "5 us", "20 s", "512 B",
"36000 cells", "80 %".
"""


def _description() -> str:
    """The top-level description, with what the engine's registry holds (never a copied list:
    a model registered in Rust shows up here by itself)."""
    from .catalog import extension_points

    lines = [DESCRIPTION, "The engine's models ('atmsim list' says what each one is):"]
    for section in extension_points():
        names = ", ".join(e.name for e in section.entries)
        lines.append(textwrap.fill(f"{section.title} ({section.key}): {names}", width=92,
                                   initial_indent="  ", subsequent_indent="      "))
    return "\n".join(lines) + "\n"


EPILOG = """\
examples:
  atmsim reproduce ubr-plus --out results/ubr-plus   reproduce both tables of seed 001
  atmsim reproduce erica-testing                     the 24 ERICA experiments of seed 003, with verdicts
  atmsim reproduce worst-case --backend ray          the same, on a local Ray instance (or --address A)
  atmsim sweep examples/sweeps/ubr_buffers.toml      a 100-point grid on all cores; resumable
  atmsim sweep grid.toml --dry-run                   how many points a sweep file holds, checked
  atmsim report results/sweeps/ubr-buffers           a self-contained HTML page of a sweep or reproduction
  atmsim run examples/ubr_small.toml --out out/      run one scenario, write tables and a plot
  atmsim run examples/abr_two_sources.toml           two ABR sources under ERICA
  atmsim validate my.toml                            check a scenario without running it
  atmsim list                                        experiments, every registered model, builders
  atmsim schema > scenario.schema.json               JSON Schema for editors
  atmsim bench --json                                engine speed on a fixed scenario

Run 'atmsim COMMAND --help' for a command's options.
"""


class UserError(Exception):
    """An error caused by the user's input: printed as one line, exit status 2."""


class OutputError(Exception):
    """Output that could not be written (a full or read-only file system): exit status 1."""


def _os_message(e: OSError) -> str:
    """One line for an OSError: the path and the system's reason."""
    path = e.filename if e.filename is not None else None
    reason = e.strerror or str(e) or type(e).__name__
    return f"{str(path)!r}: {reason}" if path is not None else reason


def check_out_dir(out: Path, option: str = "--out") -> None:
    """Checks an output directory (``option``: ``--out``, ``--trace-dir``) before the work
    it is for, so that a bad one costs no results: an existing file is refused (UserError),
    and so is a place where the directory cannot be made or written (OutputError: a parent
    that is a file, a read-only or virtual file system). What it makes to find out (the
    missing parents, a probe) it removes again. The messages name the option and its value,
    never a temporary file."""
    out = Path(out)
    where = f"cannot write the results to {option} {str(out)!r}"
    if out.exists():
        if not out.is_dir():
            raise UserError(f"{option} {str(out)!r} is a file; give a directory")
        probe_in = out.parent if not any(out.iterdir()) else out  # see save_atomically
    else:
        missing = []
        parent = out.parent
        while not parent.exists() and parent != parent.parent:
            missing.append(parent)
            parent = parent.parent
        if not parent.is_dir():
            raise OutputError(f"{where}: {str(parent)!r} is not a directory")
        made = []
        try:
            for d in reversed(missing):
                try:
                    d.mkdir()
                except OSError as e:
                    raise OutputError(f"{where}: cannot make the directory {str(d)!r}: "
                                      f"{e.strerror or e}") from None
                made.append(d)
            _probe(out.parent, where)
        finally:
            for d in reversed(made):
                try:
                    d.rmdir()
                except OSError:
                    pass
        return
    _probe(probe_in, where)


def refuse_out_over_input(out: Path, scenario_file: Path) -> None:
    """Refuses (UserError) ``atmsim run --out DIR`` where a file the run writes there
    (:attr:`atmsim.RunResult.SAVED_FILES`: scenario.toml, ...) is the scenario file itself."""
    from .result import RunResult

    if not scenario_file.is_file():  # a pipe: nothing to overwrite
        return
    for name in RunResult.SAVED_FILES:
        written = out / name
        try:
            same = written.exists() and os.path.samefile(written, scenario_file)
        except OSError:
            same = False
        if same:
            raise UserError(f"--out {str(out)!r} would overwrite the scenario file {str(scenario_file)!r} "
                            f"(the run writes its {name} there); give another directory")


def _probe(directory: Path, where: str) -> None:
    """Makes and removes a directory in ``directory``; an OutputError if it cannot."""
    import tempfile

    try:
        made = tempfile.mkdtemp(prefix=".atmsim-probe-", dir=directory)
    except OSError as e:
        raise OutputError(f"{where}: cannot write in {str(directory)!r}: {e.strerror or e}") from None
    try:
        os.rmdir(made)
    except OSError:
        pass


def save_atomically(r, out: Path, plot: bool, times: dict | None = None, command: list[str] | None = None) -> Path:
    """Writes a run's files to ``out`` so that a failure leaves no half-written results: a new
    directory is written under a temporary name and renamed into place (a failure removes it);
    an existing, non-empty directory gets an ``INCOMPLETE`` marker first, removed only once
    every file is written. ``times``, if given, gets the wall-clock seconds spent writing the
    tables and other files (``"files"``) and drawing run.png (``"plot"``). ``command``: the
    command line provenance.json records (default ``sys.argv``)."""
    out = Path(out)
    check_out_dir(out)
    tmp = None
    try:
        if not out.exists() or (out.is_dir() and not any(out.iterdir())):
            out.parent.mkdir(parents=True, exist_ok=True)
            tmp = out.parent / f".{out.name}.tmp-{uuid.uuid4().hex[:8]}"
            try:
                _save(r, tmp, plot, times, command)
                if out.exists():
                    out.rmdir()
                os.rename(tmp, out)
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)
                raise
            return out
        if not out.is_dir():
            raise UserError(f"--out {str(out)!r} is a file; give a directory")
        marker = out / "INCOMPLETE"
        marker.write_text("atmsim run --out was writing here and did not finish; the files are not a whole result\n")
        _save(r, out, plot, times, command)
        marker.unlink()
        return out
    except OSError as e:  # named by --out and the file under it, never by the temporary name
        name = None if e.filename is None else str(e.filename)
        if name is not None and tmp is not None and name.startswith(str(tmp)):
            name = str(out) + name[len(str(tmp)):]
        which = f" ({name!r})" if name is not None and name != str(out) else ""
        raise OutputError(f"cannot write the results to --out {str(out)!r}{which}: "
                          f"{e.strerror or str(e) or type(e).__name__}") from None


def _save(r, out: Path, plot: bool, times: dict | None, command: list[str] | None = None) -> None:
    """``r.save(out, plot, command)``, with the files and the plot timed apart (into ``times``)."""
    from .plots import plot_run

    t0 = time.perf_counter()
    r.save(out, plot=False, command=command)
    t1 = time.perf_counter()
    if plot:
        plot_run(r, Path(out) / "run.png")  # what r.save(out, plot=True) draws, last
    if times is not None:
        times.update(files=t1 - t0, **({"plot": time.perf_counter() - t1} if plot else {}))


#: What a figure a partial run could not measure (None: no goodput before warm-up ended) prints as.
NOT_MEASURED = "n/a"


def _fmt_rate(bps: float | None) -> str:
    return NOT_MEASURED if bps is None else f"{bps / 1e6:.2f} Mbps"


def _fmt(value: float | None, spec: str) -> str:
    """A summary figure in format ``spec``, or :data:`NOT_MEASURED` for None."""
    return NOT_MEASURED if value is None else format(value, spec)


def _secs(x: float) -> str:
    """Seconds of wall-clock time, with their unit: "12 ms", "0.18 s", "6.3 s", "124 s"."""
    if x < 0.01:
        return f"{x * 1e3:.1f} ms"
    if x < 1:
        return f"{x:.2f} s"
    return f"{x:.1f} s" if x < 100 else f"{x:.0f} s"


#: Connections `atmsim run` prints: all of them up to this many; past it, the half with the
#: highest goodput and the half with the lowest (all of them are in connections.csv with --out).
TABLE_ROWS = 40


def _print_result(r, out: Path | None = None) -> None:
    """The summary and the connections table of a run; ``out``: where --out writes them."""
    s = r.summary
    print(f"{s['name']}: {s['duration_s']:g} s simulated; event loop {_secs(s['wall_seconds'])} of wall-clock time "
          f"({s['cell_hops_per_second'] / 1e6:.1f} M cell-hops/s)")
    print(f"  efficiency       {_fmt(s['efficiency'], '.4f')}  (goodput {_fmt_rate(s['total_goodput_bps'])} "
          f"of max {_fmt_rate(s['max_goodput_bps'])})")
    print(f"  fairness (Jain)  {_fmt(s['fairness'], '.4f')}")
    print(f"  max switch queue {s['max_switch_queue_cells']} cells")
    print(f"  cells            sent {s['cells_sent']}, delivered {s['cells_delivered']}, dropped {s['cells_dropped']}, "
          f"in flight {s['cells_in_flight']} (conservation {'ok' if s['conservation_ok'] else 'VIOLATED'})")
    c = r.connections
    if len(c):
        print()
        if (c["traffic"] == "tcp").all():
            cols = ["name", "goodput_bps", "retransmissions", "timeouts", "cells_dropped", "frames_lost"]
        else:
            cols = ["name", "service", "traffic", "goodput_bps", "throughput_bps", "acr_mean_bps", "fair_share_bps", "cells_dropped"]
        t = c[cols].copy()
        for k in ("goodput_bps", "throughput_bps", "acr_mean_bps", "fair_share_bps"):
            if k in t:
                t[k] = (t[k].astype(float) / 1e6).map(lambda v: "" if v != v else f"{v:.2f}")
                t = t.rename(columns={k: k.replace("_bps", "_Mbps")})
        if len(t) <= TABLE_ROWS:
            print(textwrap.indent(t.to_string(index=False), "  "))
            return
        import numpy as np

        # The extremes of a large network, ranked by goodput (ties in the file's order).
        half = TABLE_ROWS // 2
        rank = np.argsort(-c["goodput_bps"].astype(float).to_numpy(), kind="stable")
        lines = t.iloc[np.r_[rank[:half], rank[-half:]]].to_string(index=False).splitlines()
        where = f"all of them in {out}/connections.csv" if out else "--out DIR writes them all to connections.csv"
        print(f"  connections by goodput: the {half} highest, then the {half} lowest, of {len(t)}")
        print(textwrap.indent("\n".join(lines[:half + 1]), "  "))
        print(f"  ... {len(t) - 2 * half} more connections ({len(t)} in all: {where})")
        print(textwrap.indent("\n".join(lines[half + 1:]), "  "))


def _top_level(path: Path, text: str | None = None) -> dict:
    """The top level of a TOML or JSON file (its `text`, if already read), as the scenario
    and sweep readers tell them apart; empty if it cannot be read or parsed."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    from .scenario import is_json_text, read_scenario_file

    try:  # read as a scenario is (a file too large for the memory is not read at all)
        text = read_scenario_file(path) if text is None else text
        data = json.loads(text) if is_json_text(text) else tomllib.loads(text)
    except (OSError, ValueError, RecursionError):  # RecursionError: nested too deeply for tomllib
        return {}
    return data if isinstance(data, dict) else {}


def _is_sweep_file(path: Path, text: str | None = None) -> bool:
    from .sweeps import is_sweep_data

    return is_sweep_data(_top_level(path, text))


def _is_scenario_file(path: Path) -> bool:
    from .sweeps import is_scenario_data

    return is_scenario_data(_top_level(path))


def _ray_note(a) -> None:
    """A local Ray instance takes seconds to start: say so before the wait. (A cluster
    address that does not answer fails at once, see atmsim.parallel.)"""
    if getattr(a, "backend", None) == "ray" and not a.address:
        from .parallel import check_backend

        check_backend(a.backend, a.workers, a.address)  # Ray missing: that error, not this note
        print("atmsim: starting a local Ray instance (takes a few seconds) ...", file=sys.stderr, flush=True)


def cmd_run(a) -> int:
    import atmsim
    from atmsim.plots import has_time_series, no_series_reason
    from atmsim.scenario import (EfficiencyWarning, LateConnectionsWarning, efficiency_text, late_connections_text,
                                 parse_scenario_text,
                                 read_scenario_file, run_parsed, validate_parsed)
    from atmsim.sweeps import parse_point_timeout

    entered = time.perf_counter()
    started = getattr(a, "started", None) or entered
    # Wall-clock seconds of the command's steps, for its last line.
    phases: dict[str, float] = {"start-up (Python, imports)": entered - started}

    if a.max_events is not None and not 1 <= a.max_events < 2**64:
        raise UserError(f"--max-events {a.max_events}: give a whole number from 1 to 2^64 - 1")
    max_wall = None if a.max_wall is None else parse_point_timeout(a.max_wall, "--max-wall", "a run")
    # The file is read once: a pipe, /dev/stdin or <(...) cannot be read a second time.
    text = read_scenario_file(Path(a.file))
    try:
        # The scenario's JSON text, written once: checked and run from it (at 100 000 VCs a
        # second encoding of the dict was 0.5-1 s).
        sc, sc_text = parse_scenario_text(text)
        info = validate_parsed(sc, sc_text)
        if not info["memory"]["refused"]:  # a refused run says why at once, without the warning
            _warn_if_heavy(info)
        if (a.max_events is not None or max_wall is not None) and (a.trace or sc.get("trace") is not None):
            raise UserError("a trace cannot be combined with --max-events or --max-wall (a budgeted run is "
                            "not traced): drop the budget, or --trace and the file's [trace] table")
        if a.trace_dir is not None and not a.trace and sc.get("trace") is None:
            raise UserError(f"--trace-dir {a.trace_dir!r}: nothing is traced without --trace (or the scenario's "
                            f"[trace] table); add --trace KINDS, e.g. --trace drop,tcp")
    except atmsim.ScenarioError:
        _refuse_sweep_file(a.file, "run it with 'atmsim sweep {file}'", text)
        raise
    if a.out:  # before the run: a bad --out must not cost its results
        check_out_dir(Path(a.out))
        refuse_out_over_input(Path(a.out), Path(a.file))
    if a.trace_dir is not None:  # nor a bad --trace-dir its traces
        check_out_dir(Path(a.trace_dir), "--trace-dir")
    trace = trace_kinds(a.trace)
    t_run = time.perf_counter()
    phases["scenario read and checked"] = t_run - entered
    if info["late_connections"]:  # valid (a run cut short to see a transient), but worth saying
        print(f"atmsim: note: {late_note(info)}", file=sys.stderr)
    with warnings.catch_warnings():  # said above, as a note
        warnings.simplefilter("ignore", LateConnectionsWarning)
        warnings.simplefilter("ignore", EfficiencyWarning)
        r = run_parsed(sc, sc_text, progress=False if a.json else None, max_events=a.max_events,
                       max_wall=max_wall, trace=trace, trace_dir=a.trace_dir)
    t_done = time.perf_counter()
    phases["run"] = t_done - t_run
    if a.json:
        print(json.dumps(r.summary, indent=2))
    else:
        _print_result(r, Path(a.out) if a.out else None)
    phases["summary and table printed"] = time.perf_counter() - t_done
    if r.partial:
        print(f"atmsim: partial results: {r.partial}", file=sys.stderr)
        if set(r.late_connections) != set(info["late_connections"]):  # not started when it stopped
            text = late_connections_text(r.late_connections, r.summary.get("duration_s"), stopped=True)
            print(f"atmsim: note: {text}", file=sys.stderr)
    if efficiency_text(r.summary):
        print(f"atmsim: note: {efficiency_text(r.summary)}", file=sys.stderr)
    if a.out:
        plot = not a.no_plot and has_time_series(r)
        saved: dict[str, float] = {}
        out = save_atomically(r, Path(a.out), plot=plot, times=saved, command=getattr(a, "command_line", None))
        phases["files written"] = saved.get("files", 0.0)
        if plot:
            phases["plot drawn"] = saved.get("plot", 0.0)
        print(f"\nwrote {out}/ (summary.json, provenance.json, connections.csv, ports.csv, *_series.csv, scenario.toml"
              + (", run.png" if plot else "") + (", traces/" if r.trace_files else "") + ")", file=sys.stderr)
        if not a.no_plot and not plot:
            print(f"no time series ({no_series_reason(r, sc)}): plot skipped", file=sys.stderr)
    elif r.trace_files:
        where = Path(next(iter(r.trace_files.values()))).parent
        print(f"\nwrote traces to {where}/ ({', '.join(p.name for p in r.trace_files.values())})", file=sys.stderr)
    print(_time_line(time.perf_counter() - started, phases, r.summary.get("wall_seconds")), file=sys.stderr)
    return 4 if r.partial else 0


def trace_kinds(value: str | None) -> bool | str | None:
    """``--trace``: None (not given), True (``all``) or the comma list of event kinds, each
    checked: an unknown or empty kind, or ``all`` inside a list, is one UserError."""
    if value is None:
        return None
    from .trace import kind_names

    allowed = kind_names()
    what = f"give all (every kind), or a comma list of {', '.join(allowed)}"
    items = [k.strip() for k in value.split(",")]
    if items == ["all"]:
        return True
    if "all" in items:
        raise UserError(f"--trace {value!r}: \"all\" stands alone (it means every kind); {what}")
    for k in items:
        if k not in allowed:
            raise UserError(f"--trace {value!r}: " + (f"{k!r} is not an event kind" if k else "an empty kind")
                            + f"; {what}")
    return ",".join(items)


def _time_line(total: float, phases: dict[str, float], loop: float | None) -> str:
    """Where the wall-clock time of `atmsim run` went, in one line: the whole command (from
    the process' start, or main()'s when called from Python; its exit comes after) and its
    steps; steps under 0.05 s are left out, but for the run, which names its event loop (the
    summary's wall_seconds)."""
    parts = []
    for name, t in phases.items():
        if name == "run":
            parts.append(f"run {_secs(t)}" + (f" (event loop {_secs(loop)})" if loop is not None else ""))
        elif t >= 0.05:
            parts.append(f"{name} {_secs(t)}")
    return f"wall-clock time: {_secs(total)} in all; " + ", ".join(parts)


#: Above this many events (an upper bound: every port at its line rate), `atmsim run` says so before it
#: starts.
HEAVY_EVENTS = 1e9


def _warn_if_heavy(info: dict) -> None:
    """Says up front when a legal scenario may be long (issue 18: never hang silently)."""
    est = info.get("estimated_events", 0.0)
    if est > HEAVY_EVENTS:
        print(f"atmsim: this run may take up to about {est:.1e} events (about {est / 2e7 / 60:.0f} min at "
              f"20 M events/s), if every port sent at its line rate for the whole run and every timer "
              f"fired: an upper bound, which TCP windows, rate feedback and drops usually keep a large "
              f"network far below, often by orders of magnitude. The progress bar shows the real pace; "
              f"Ctrl-C stops it", file=sys.stderr)


def _refuse_sweep_file(file: str, hint: str, text: str | None = None) -> None:
    """Raises a one-line error if scenario `file` (its `text`, if already read), which the
    engine refused, is a sweep file."""
    if _is_sweep_file(Path(file), text):
        raise UserError(f"{file} is a sweep file (it has a [sweep] or [base] table), not a scenario: "
                        + hint.format(file=file))


def cmd_validate(a) -> int:
    import atmsim

    try:
        info = atmsim.validate(Path(a.file))
    except atmsim.MemoryLimitError:  # too large to read: not read again to see if it is a sweep
        raise
    except atmsim.ScenarioError:
        _refuse_sweep_file(a.file, "check it with 'atmsim sweep {file} --dry-run'")
        raise
    print(f"{a.file}: valid. {info['nodes']} nodes, {info['ports']} ports, {info['connections']} connections, "
          f"{info['duration_s']:g} s.")
    mem = info["memory"]
    print(f"  memory (estimated): {_mib(mem['before_cells_bytes'])} before any cell moves; its cells up to "
          f"{_mib(mem['cells_up_to_bytes'])} more (watched as it runs)")
    if mem.get("refused"):  # valid, but a run would not start under this process's memory limit
        print(f"  note: a run would be refused now: {mem['refused']}")
    if info["late_connections"]:  # valid (a run cut short to see a transient), but worth saying
        print(f"  note: {late_note(info)}")
    for route in info["routes"][: a.routes]:
        print("  route: " + " -> ".join(route))
    return 0


def late_note(info: dict) -> str:
    """What ``atmsim validate`` and ``atmsim run`` say after "note: " of a scenario's late
    connections (``info``: :func:`atmsim.validate`'s), as :func:`atmsim.run` warns it."""
    from .scenario import late_connections_text

    return late_connections_text(info["late_connections"], info["duration_s"])


def _mib(b: int) -> str:
    """Bytes as MiB, or GiB from 10 GiB (as the engine's memory messages write them)."""
    return f"{b / 2**30:.1f} GiB" if b >= 10 * 2**30 else f"{b / 2**20:.1f} MiB"


def cmd_list(a) -> int:
    from .catalog import sections

    for k, sec in enumerate(sections()):
        print(("\n" if k else "") + f"{sec.title} ({sec.key}):")
        width = max([16, *(len(e.name) + 1 for e in sec.entries)])
        for e in sec.entries:
            print(f"  {e.name:{width}s} {e.doc}")
    return 0


def _reproduction_ids(ids: list[str]) -> list[str]:
    """The experiment ids asked for, in order, each once; ``all``: every one of the registry."""
    from .experiments import EXPERIMENTS, get

    chosen: list[str] = []
    for i in ids:
        for e in (list(EXPERIMENTS) if i == "all" else [i]):
            try:
                get(e)
            except KeyError as err:
                raise UserError(str(err.args[0]) + ", or all") from None
            if e not in chosen:
                chosen.append(e)
    return chosen


def _reproduction_out(a, exp_id: str, several: bool) -> Path:
    """Where one reproduction writes: ``--out`` (one id) or ``--out``/ID (several), by default
    results/ID (results/ID-quick with ``--quick``)."""
    name = f"{exp_id}-quick" if a.quick else exp_id
    if a.out is None:
        return Path("results") / name
    return Path(a.out) / name if several else Path(a.out)


def cmd_reproduce(a) -> int:
    from .experiments import get
    from .experiments.base import run_together

    ids = _reproduction_ids(a.id)
    several = len(ids) > 1
    outs = [_reproduction_out(a, i, several) for i in ids]
    check_reproduction_outs(a, ids, outs)
    _ray_note(a)
    try:
        command = ["atmsim", "reproduce", *a.id, "--out", str(Path(a.out) if a.out else outs[0])] + (["--quick"] if a.quick else []) \
            + (["--workers", str(a.workers)] if a.workers else []) + ["--backend", a.backend] \
            + (["--address", a.address] if a.address else [])
        comparisons = run_together([(get(i), o) for i, o in zip(ids, outs)], quick=a.quick, workers=a.workers,
                                   progress=not a.no_progress, backend=a.backend, address=a.address, command=command)
    except ValueError as e:  # e.g. a --quick run aimed at a full run's folder
        raise UserError(str(e)) from None
    for k, (i, out, comparison) in enumerate(zip(ids, outs, comparisons)):
        if several:
            print(("\n" if k else "") + f"== {i} ({out}) ==")
        _print_reproduction(comparison, out, a.quick)
    return 0


def check_reproduction_outs(a, ids: list[str], outs: list[Path]) -> None:
    """Before any run: each reproduction's folder can be written (not a file, its parents
    can be made) and holds nothing but an earlier reproduction of the same experiment."""
    from .experiments.provenance import refuse_foreign_folder

    option = "--out" if a.out is not None else "the default output folder"
    if a.out is not None and len(ids) > 1:  # the folder of their sub-folders
        check_out_dir(Path(a.out))
    for i, out in zip(ids, outs):
        check_out_dir(out, option)
        label = f"--out {str(out)!r}" if a.out is not None else f"the default output folder {str(out)!r}"
        try:
            refuse_foreign_folder(out, i, label)
        except ValueError as e:
            raise UserError(str(e)) from None


def _print_reproduction(comparison, out: Path, quick: bool) -> None:
    """The checks of one reproduction: how many pass, the failing ones, the report's verdicts."""
    with pd_options():
        if "verdict" in comparison.columns:
            judged = comparison[comparison["verdict"] != "info"]  # "info": shown, not judged
            fails = judged[judged["verdict"] != "pass"]
            print(f"{len(judged) - len(fails)} of {len(judged)} checks pass" + (" (indicative: --quick)" if quick else ""))
            if len(fails):
                print("\nfailing checks:")
                cols = ["experiment", "case", "metric", "published", "simulated", "verdict", "class"]
                print(fails[[c for c in cols if c in fails.columns]].to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        else:
            print(comparison.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    report = (out / "report.md").read_text()
    checks = [ln for ln in report.splitlines() if ln.startswith("| ") and ("| pass |" in ln or "| FAIL |" in ln)]
    if checks:
        print("\nchecks:")
        for ln in checks:
            parts = [p.strip() for p in ln.strip("|").split("|")]
            print(f"  [{parts[1]}] {parts[0]}: {parts[2]}")
    print(f"\nwrote {out}/comparison.csv, report.md and plots (HTML page: atmsim report {out})")


SUMMARY_METRICS = ["efficiency", "fairness", "max_switch_queue_cells", "cell_loss_ratio"]


def _short(df, n: int = 12):
    d = df.copy()
    if "point_id" in d:
        d["point_id"] = d["point_id"].str[:12]
    return d


def cmd_sweep(a) -> int:
    import atmsim
    from .sweeps import load_sweep_file

    from .sweeps import SweepError, parse_point_memory, parse_point_timeout

    timeout = None if a.point_timeout is None else parse_point_timeout(a.point_timeout, "--point-timeout")
    memory = None if a.point_memory is None else parse_point_memory(a.point_memory, "--point-memory")
    try:
        spec = load_sweep_file(Path(a.file))
    except SweepError:
        if _is_scenario_file(Path(a.file)):
            raise UserError(f"{a.file} is a scenario file (it has nodes and connections, no [sweep] table): "
                            f"run it with 'atmsim run {a.file}'") from None
        raise
    check_sweep_options(a, spec, timeout, memory)
    if a.dry_run:
        return _dry_run(spec, a)
    _ray_note(a)
    from .sweeps import AllPointsFailedWarning

    with warnings.catch_warnings():  # the failed points are listed below, and the status is 1
        warnings.simplefilter("ignore", AllPointsFailedWarning)
        res = atmsim.sweep(spec, out=a.out, backend=a.backend, workers=a.workers, address=a.address,
                           progress=not a.no_progress, rerun_failed=a.rerun_failed,
                           log=lambda s: print(s, file=sys.stderr, flush=True),
                           point_timeout=timeout, point_memory=memory)
    df = res.df
    with pd_options():
        failed = res.failed
        if len(failed):
            print(f"\nfailed points ({len(failed)}; recorded with their errors, the others are kept):")
            show = _short(failed).head(20)
            show["error"] = show["error"].map(lambda e: e if len(e) <= 110 else e[:107] + "...")
            print(show.to_string(index=False))
            if len(failed) > 20:
                print(f"  ... and {len(failed) - 20} more (in {res.root}/summary.csv)")
        metrics = [m for m in SUMMARY_METRICS if m in df.columns]
        if metrics and (df["status"] == "ok").any():
            agg = res.aggregate(metrics)
            cols = [c for c in agg.columns if not c.endswith("_std")]
            print(f"\nmeans over seeds ({len(agg)} combination{'s' if len(agg) != 1 else ''}):")
            print(agg[cols].head(40).to_string(index=False, float_format=lambda v: f"{v:.4g}"))
            if len(agg) > 40:
                print(f"  ... {len(agg) - 40} more rows in {res.root}/summary.csv")
    print(f"wrote {res.root}/ (summary.parquet, summary.csv, points/); "
          + (f"report: {res.root}/report.html" if a.report else f"HTML report: atmsim report {res.root}"),
          file=sys.stderr)
    if a.report:
        from .report import write_report

        write_report(res.root)
    return 1 if len(failed) or len(res.missing) else 0


def sweep_out(a, spec) -> Path:
    """The results store of ``atmsim sweep``: --out, else results/sweeps/NAME."""
    return Path(a.out) if a.out else Path("results") / "sweeps" / spec.name


def check_sweep_options(a, spec, timeout: float | None, memory: int | None) -> None:
    """What a sweep checks before it runs, --dry-run too (which only does not connect to a
    Ray cluster): the engine's environment variables, --backend, --workers, --address, the
    per-point limits and the results store."""
    from . import _core
    from .parallel import check_backend, check_limits
    from .store import refuse_non_store
    from .sweeps import _limits

    _core.check_environment()
    if memory is not None and a.backend != "local":
        raise UserError(f"--point-memory {a.point_memory!r}: a per-point memory limit needs --backend local "
                        f"(the default); --backend is {a.backend!r}")
    check_backend(a.backend, a.workers, a.address, reach=not a.dry_run)
    check_limits(a.backend, timeout, memory)
    _limits(spec, a.backend, timeout, memory)
    out = sweep_out(a, spec)
    option = "--out" if a.out else "the default results store"
    check_out_dir(out, option)
    refuse_non_store(out)


def _dry_run(spec, a) -> int:
    import atmsim

    print(spec.describe())
    points = spec.points()
    out = sweep_out(a, spec)
    done: set = set()
    if (out / "manifest.json").is_file():
        done = {p.name for p in (out / "points").iterdir() if (p / "point.json").exists()} if (out / "points").is_dir() else set()
    bad = []
    for p in points:
        if p.scenario_json is None:
            bad.append((p, p.error))
            continue
        try:
            atmsim.validate(p.scenario)
        except atmsim.ScenarioError as e:
            bad.append((p, f"invalid scenario: {e}"))
    in_store = sum(1 for p in points if p.point_id in done)
    print(f"{len(points)} points; {len(points) - len(bad)} valid, {len(bad)} invalid; "
          f"{in_store} already in {out}, {len(points) - in_store} to run")
    for p, err in bad[:10]:
        params = ", ".join(f"{k} = {v}" for k, v in p.params.items())
        print(f"  invalid: {params}, seed {p.seed}: {err}")
    if len(bad) > 10:
        print(f"  ... and {len(bad) - 10} more")
    if bad and len(bad) == len(points):
        print(f"atmsim: every one of the {len(points)} points is invalid: nothing would run", file=sys.stderr)
        return 1
    return 0


def cmd_report(a) -> int:
    from .report import check_report_out, write_report

    if a.out is not None:
        check_report_out(a.out, "--out")  # before the page is made
    out = write_report(Path(a.dir), out=a.out, metrics=a.metric, x=a.x, by=a.by)
    size = out.stat().st_size
    print(f"wrote {out} ({size / 1024:.0f} KiB, self-contained: open it in any browser)")
    return 0


class pd_options:
    def __enter__(self):
        import pandas as pd

        self._ctx = pd.option_context("display.max_rows", 500, "display.width", 160)
        self._ctx.__enter__()

    def __exit__(self, *exc):
        self._ctx.__exit__(*exc)


def _count(noun: str, least: int):
    """An argparse type: a whole number of `noun`s, at least `least` (0 or 1)."""
    bound = f"at least {least}" if least else "0 or more"

    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r}: a whole number of {noun}s, {bound}") from None
        if n < least:
            raise argparse.ArgumentTypeError(f"{n}: {bound} {noun}" + ("s" if least != 1 else ""))
        return n

    return parse


#: ``--repeat``: runs, at least one.
_runs = _count("run", 1)
#: ``validate --routes``: routes to show, 0 or more.
_route_count = _count("route", 0)
#: ``bench --scale --vcs``: VCs, at least one.
_vc_count = _count("VC", 1)


def _row_duration(text: str) -> str:
    """``--duration`` of ``--scale``: the simulated time of each row, checked by the engine as
    a scenario's ``measurement.duration`` before any row runs (one error, not one per row)."""
    from . import ScenarioError
    from .bench import scale_scenario
    from .scenario import validate

    try:
        validate(scale_scenario("ubr-fba-tcp", "bottleneck", 1, text))
    except ScenarioError as e:
        raise argparse.ArgumentTypeError(f"{text!r}: the simulated time of each row must be above 0 s, e.g. "
                                         f"\"0.5 s\" ({str(e).removeprefix('measurement.duration: ')})") from None
    return text


#: ``bench --scale``: the defaults of --duration and --row-timeout (None in the parser, so that
#: giving them without --scale is seen).
ROW_DURATION = "0.5 s"
ROW_TIMEOUT = "600 s"
#: The options of ``bench --scale`` alone, as the user writes them, and their parsed names.
SCALE_ONLY = {"--vcs": "vcs", "--case": "case", "--topology": "topology", "--duration": "duration",
              "--targets": "targets", "--row-timeout": "row_timeout"}


def cmd_bench(a) -> int:
    if a.scale:
        return _bench_scale(a)
    given = [opt for opt, name in SCALE_ONLY.items() if getattr(a, name) not in (None, False)]
    if given:  # they were ignored: the fixed benchmark ran instead of the table asked for
        raise UserError(f"{', '.join(given)} {'is an option' if len(given) == 1 else 'are options'} of the scale "
                        f"table: add --scale (without it, 'atmsim bench' runs the fixed UBR+ WAN benchmark, "
                        f"which takes none of them)")
    from .bench import run_bench

    r = run_bench(repeat=a.repeat)
    if a.json:
        print(json.dumps({k: r[k] for k in ("cell_hops_per_second", "events_per_second", "wall_seconds")}))
    else:
        print(f"scenario            {r['scenario']}")
        print(f"cell-hops/s         {r['cell_hops_per_second'] / 1e6:.2f} M  ({r['cell_hops']} cell-hops)")
        print(f"events/s            {r['events_per_second'] / 1e6:.2f} M  ({r['events']} events)")
        print(f"wall time           {r['wall_seconds']:.3f} s for {r['simulated_seconds']:g} s simulated (best of {r['repeat']})")
    return 0


def _bench_scale(a) -> int:
    from .bench import (SCALE_CASES, SCALE_HEADER, SCALE_SIZES, SCALE_TOPOLOGIES, check_scale_sizes,
                        format_scale_row, format_scale_targets, run_scale, scale_targets)
    from .sweeps import parse_point_timeout

    row_timeout = ROW_TIMEOUT if a.row_timeout is None else a.row_timeout
    timeout = parse_point_timeout(row_timeout, "--row-timeout", what="a run of a row")
    sizes = tuple(a.vcs) if a.vcs else SCALE_SIZES
    cases = tuple(a.case) if a.case else SCALE_CASES
    topologies = tuple(a.topology) if a.topology else SCALE_TOPOLOGIES
    check_scale_sizes(sizes)  # before the table's header (`run_scale` checks again)
    if not a.json:
        print(SCALE_HEADER, flush=True)
    said = False

    def on_run(row, round_):  # progress, on stderr: the table (or the JSON) stays on stdout
        nonlocal said
        if not said:  # at the first run: a bad engine setting stops before it
            said = True
            print(f"each row: {a.repeat} runs, its time the fastest run's, its memory the largest run's",
                  file=sys.stderr, flush=True)
        if a.json or round_ < a.repeat - 1:
            print(f"run {round_ + 1} of {a.repeat}: {format_scale_row(row)}", file=sys.stderr, flush=True)

    rows = run_scale(sizes, cases, topologies, duration=ROW_DURATION if a.duration is None else a.duration,
                     timeout=timeout, repeat=a.repeat,
                     on_row=None if a.json else (lambda r: print(format_scale_row(r), flush=True)),
                     on_run=on_run if a.repeat > 1 else None)
    targets = scale_targets(rows)
    if a.json:
        print(json.dumps({"rows": rows, "targets": targets} if a.targets else rows))
    else:
        for line in [""] * bool(targets) + format_scale_targets(targets):
            print(line)
    failed = [r for r in rows if "error" in r]
    if failed:  # a table with rows not measured is not a measurement: say so, and exit 1
        timed_out = sum("timed out" in str(r["error"]) for r in failed)
        what = (f"{timed_out} timed out" + (f", {len(failed) - timed_out} failed" if len(failed) > timed_out else "")
                if timed_out else f"{len(failed)} failed")
        sys.stdout.flush()
        print(f"atmsim: {len(failed)} of {len(rows)} rows not measured ({what})"
              + (f"; --row-timeout {row_timeout} may be too short" if timed_out else ""),
              file=sys.stderr, flush=True)
        return 1
    return 0


def cmd_scorecard(a) -> int:
    from .scorecard import COLUMNS, parse_options, run_scorecard
    from .scorecard_html import HEADINGS, fmt

    names = [n.strip() for n in a.allocators.split(",") if n.strip()] if a.allocators else None
    configs = [n.strip() for n in a.configs.split(",") if n.strip()] if a.configs else None
    out = Path(a.out or ("results/scorecard-quick" if a.quick else "results/scorecard"))
    check_out_dir(out, "--out" if a.out else "the default output folder")  # before the runs
    try:
        card = run_scorecard(names, config_names=configs, quick=a.quick, options=parse_options(a.option or []),
                             workers=a.workers, progress=not a.no_progress, backend=a.backend,
                             address=a.address)
    except ValueError as e:
        raise UserError(str(e)) from None
    paths = card.write(out)
    if a.json:
        print(json.dumps(card.to_json()))
        return _all_failed(card)
    cols = list(COLUMNS)
    print(f"{'configuration':24s} {'allocator':15s} " + " ".join(f"{HEADINGS[c]:>16s}" for c in cols))
    for r in card.rows.to_dict("records"):
        cells = [fmt(c, r[c]) for c in cols] if r["status"] == "ok" else [f"n/a: {r['reason'][:90]}"]
        print(f"{r['config']:24s} {r['allocator']:15s} " + " ".join(f"{x:>16s}" for x in cells))
    print(f"\n{len(card.rows)} runs in {card.wall_s:.1f} s on {card.workers} workers; wrote "
          + ", ".join(str(p) for p in paths))
    return _all_failed(card)


def _all_failed(card) -> int:
    """1, saying so, when no run of the scorecard gave a score (the n/a rows say why); else 0."""
    if not card.all_failed:
        return 0
    print(f"atmsim: every one of the {len(card.rows)} runs failed (the n/a rows say why)", file=sys.stderr)
    return 1


def cmd_schema(a) -> int:
    from . import _core

    print(_core.json_schema())
    return 0


def _backend_args(p: argparse.ArgumentParser) -> None:
    from .catalog import BACKEND_DOCS, BACKENDS

    p.add_argument("--backend", choices=BACKENDS, default=BACKENDS[0],
                   help="where runs go: " + "; ".join(f"{k}, {v}" for k, v in BACKEND_DOCS.items()))
    p.add_argument("--address", metavar="ADDR",
                   help="with --backend ray: an existing cluster (auto, ray://host:10001, host:6379); "
                        "default: start a local Ray instance")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="atmsim", description=_description(), epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    from . import __version__

    p.add_argument("--version", action="version", version=f"atmsim {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    from .trace import kind_names

    r = sub.add_parser("run", help="run a scenario file and print its results",
                       description="Run one scenario (TOML, or JSON) and print the summary and a per-connection table.\n\n"
                                   "Quantities in the file carry units: rates \"155.52 Mbps\", lengths \"1000 km\", times\n"
                                   "\"5 us\" / \"20 s\", sizes \"512 B\" / \"64 KB\", buffers \"36000 cells\", thresholds \"80 %\".\n"
                                   "The format is in docs/scenario-format.md; 'atmsim schema' prints its JSON Schema.",
                       epilog="examples:\n"
                              "  atmsim run examples/ubr_small.toml\n"
                              "  atmsim run examples/ubr_small.toml --out out/small   # + CSV tables, time series, run.png\n"
                              "  atmsim run my.toml --json                            # summary as JSON\n"
                              "  atmsim run examples/ubr_small.toml --trace drop,tcp --out out/small  # + traces/*.parquet\n\n"
                              "exit status: 0 done; 1 a file could not be written; 2 an invalid scenario or option\n"
                              "(one line naming the key, the value and what is allowed); 3 an internal error or a\n"
                              "broken invariant (please report it); 4 partial results (--max-events, --max-wall);\n"
                              "130 interrupted (Ctrl-C).\n\n"
                              "memory: a scenario whose ports, tables, end systems and time series alone exceed\n"
                              "the memory the machine has free is refused before it starts, naming the keys that\n"
                              "drive it. A run whose queues and links then grow past that limit (an open-loop\n"
                              "source into an unlimited buffer) stops with an error naming the port that holds\n"
                              "the most. ATMSIM_MEMORY_LIMIT=\"48 GiB\" (or \"off\") sets the limit instead.\n\n"
                              "speed: a network of thousands of VCs, whose state is larger than the caches, times\n"
                              "windows of events with cache hints for the events ahead and without, and keeps the\n"
                              "faster (every run has hints for the TCP timers' ticks); ATMSIM_CACHE_HINTS=on or off\n"
                              "forces them either way (the results are the same; only the time changes; the\n"
                              "threshold is in docs/large-networks.md and in the message of a wrong value).",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("file", help="scenario file (TOML, or JSON: an object with the same layout)")
    r.add_argument("--out", metavar="DIR", help="also write summary.json, CSV tables and time series, and run.png here")
    r.add_argument("--json", action="store_true", help="print the summary as JSON")
    r.add_argument("--no-plot", action="store_true", help="with --out: skip the plot")
    r.add_argument("--max-events", type=int, metavar="N",
                   help="stop after N events; the results are then partial (summary 'partial', exit status 4)")
    r.add_argument("--max-wall", metavar="SECONDS",
                   help="stop after SECONDS of wall-clock time (or e.g. '10 s', '2 min'); the results are then "
                        "partial (exit status 4)")
    r.add_argument("--trace", metavar="KINDS",
                   help=f"record per-event traces: a comma list of {', '.join(kind_names())}, or 'all' "
                        "(Parquet files; with --out in DIR/traces; see docs/traces.md)")
    r.add_argument("--trace-dir", metavar="DIR", help="with --trace: write the trace files here")
    r.set_defaults(func=cmd_run)

    v = sub.add_parser("validate", help="check a scenario file without running it",
                       description="Parse and validate a scenario. Errors name the key, the value and what is allowed,\n"
                                   "e.g. 'connection[0].route[1]: no link joins \"s1\" to \"sw2\"'.\n\n"
                                   "A valid scenario's counts are printed, with its memory estimate: what the run\n"
                                   "holds before any cell moves (a run is refused if this exceeds the memory free),\n"
                                   "and at most what its cells may add (watched as the run goes), then its routes.",
                       epilog="example:\n  atmsim validate examples/ubr_small.toml\n\n"
                              "exit status: 0 valid (notes, if any, say what a run will not show); 2 invalid\n"
                              "(one line naming the key, the value and what is allowed).",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    v.add_argument("file", help="scenario file (TOML, or JSON: an object with the same layout)")
    v.add_argument("--routes", type=_route_count, default=5, metavar="N",
                   help="show the first N resolved routes (default 5; 0: none)")
    v.set_defaults(func=cmd_validate)

    from .catalog import extension_points

    points = ", ".join(p.title for p in extension_points())
    ls = sub.add_parser("list", help=f"list experiments, {points}, topology builders",
                        description=f"List what atmsim offers, with one line each: experiments, {points} "
                                    "(all from the engine's registry) and topology builders.",
                        epilog="examples:\n  atmsim list\n  atmsim list | grep -A9 'rate allocators'",
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ls.set_defaults(func=cmd_list)

    rp = sub.add_parser("reproduce", help="reproduce a published table (see 'atmsim list')",
                        description="Run every case of a reproduction in parallel and compare with the published numbers. "
                                    "Writes comparison.csv (experiment, case, metric, published, simulated), runs.csv, "
                                    "report.md and PNG plots.",
                        epilog="examples:\n"
                               "  atmsim reproduce ubr-plus                              all cores, results/ubr-plus\n"
                               "  atmsim reproduce all                                   every reproduction on one pool of workers, results/ID\n"
                               "  atmsim reproduce ubr-plus --quick --out /tmp/u         shortened runs, seconds\n"
                               "  atmsim reproduce erica-testing --backend ray           on a local Ray instance\n"
                               "  atmsim reproduce worst-case --backend ray --address ray://head:10001   on a cluster\n"
                               "  atmsim report results/ubr-plus                         the HTML page: published vs simulated",
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    rp.add_argument("id", nargs="+", help="experiment id, e.g. ubr-plus; several, or all: their runs share one pool of "
                                          "workers (every core stays busy to the end); see atmsim list")
    rp.add_argument("--out", metavar="DIR", help="output directory (default results/ID, or results/ID-quick with --quick); "
                                                 "with several ids, the folder that gets one sub-folder per id")
    rp.add_argument("--quick", action="store_true", help="shortened runs (a tenth of the durations), for tests")
    rp.add_argument("--workers", type=int, default=None, metavar="N", help="parallel runs (default: all cores)")
    _backend_args(rp)
    rp.add_argument("--no-progress", action="store_true", help="no progress bar")
    rp.set_defaults(func=cmd_reproduce)

    sw = sub.add_parser(
        "sweep", help="run a parameter sweep (a grid of scenarios) on all cores or a Ray cluster",
        description="Run every point of a sweep file: a base scenario, parameters to vary (lists, ranges,\n"
                    "zipped groups) and seeds per point. Says up front how many points the grid holds, shows a\n"
                    "progress bar, and writes each point to a results store (Parquet) as it finishes, so an\n"
                    "interrupted sweep resumes where it stopped and a finished one returns at once. A point that\n"
                    "fails (an invalid scenario, say) is recorded with its error; the others go on.\n\n"
                    "A sweep file:\n\n"
                    "  name = \"ubr-buffers\"\n"
                    "  [base]\n"
                    "  topology = \"n_source\"                    # or: scenario = \"my.toml\" (relative to this file)\n"
                    "  [base.args]                              # arguments of atmsim.topology.n_source\n"
                    "  n = 10\n"
                    "  link_delay = \"1 ms\"\n"
                    "  duration = \"2 s\"\n"
                    "  [sweep]\n"
                    "  seeds = 5                                # seeds per point (from the base's seed), or [1, 7]\n"
                    "  [sweep.parameters]                       # dotted paths into the scenario, or args.NAME\n"
                    "  \"defaults.switch_buffer\" = { start = 1000, stop = 5000, step = 1000, unit = \"cells\" }\n"
                    "  \"defaults.policy\" = { name = \"policy\", labels = [\"tail drop\", \"EPD\"], values = [\n"
                    "      { kind = \"tail_drop\" }, { kind = \"epd\", threshold = \"80 %\" }] }   # a line breaks only inside [ ]\n"
                    "  \"args.n\" = { from = 2, to = 32, num = 5, scale = \"log\", integer = true }\n"
                    "  [[sweep.zip]]                            # varied together, not crossed\n"
                    "  \"defaults.tcp.mss\" = [\"512 B\", \"9140 B\"]\n"
                    "  \"defaults.tcp.window\" = [\"64 KB\", \"600000 B\"]\n\n"
                    "The format is in docs/sweeps.md. Exit status: 0 when every point is ok, 1 when some\n"
                    "failed (they are in the store and the summary), 2 for a mistake in the sweep file.",
        epilog="examples:\n"
               "  atmsim sweep examples/sweeps/ubr_buffers.toml                 # all cores, results/sweeps/ubr-buffers\n"
               "  atmsim sweep grid.toml --dry-run                              # count and check the points, run nothing (exit 1 if none is valid)\n"
               "  atmsim sweep grid.toml --out runs/grid --workers 4\n"
               "  atmsim sweep grid.toml --backend ray                          # a local Ray instance\n"
               "  atmsim sweep grid.toml --backend ray --address ray://head:10001   # an existing Ray cluster\n"
               "  atmsim sweep grid.toml --rerun-failed                         # run failed points again\n"
               "  atmsim sweep grid.toml --report                               # and write report.html\n\n"
               "from Python:\n"
               "  res = atmsim.sweep(\"grid.toml\", out=\"runs/grid\"); res.df; res.plot(\"efficiency\", by=\"policy\")\n"
               "  res = atmsim.load_sweep(\"runs/grid\"); res.series(res.df.point_id[0], \"port\")",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sw.add_argument("file", help="sweep file (TOML)")
    sw.add_argument("--out", metavar="DIR", help="results store (default results/sweeps/NAME, NAME from the sweep file)")
    sw.add_argument("--workers", type=int, default=None, metavar="N", help="parallel runs (default: all cores)")
    _backend_args(sw)
    sw.add_argument("--dry-run", action="store_true", help="expand and check the grid, say what would run, run nothing")
    sw.add_argument("--rerun-failed", action="store_true", help="run points that failed before again")
    sw.add_argument("--report", action="store_true", help="also write DIR/report.html")
    sw.add_argument("--point-timeout", metavar="SECONDS",
                    help="stop a point after SECONDS of wall time (or e.g. '10 min'); it is recorded as failed "
                         "(PointTimeout). Overrides the sweep file's point_timeout")
    sw.add_argument("--point-memory", metavar="MIB",
                    help="local backend: a point may use at most MIB more memory (or e.g. '2 GiB'); past it, it is "
                         "recorded as failed (PointMemory). Overrides the sweep file's point_memory")
    sw.add_argument("--no-progress", action="store_true", help="no progress bar")
    sw.set_defaults(func=cmd_sweep)

    from .catalog import REPORT_METRICS

    rep = sub.add_parser(
        "report", help="write a self-contained HTML report of a sweep or a reproduction",
        description="Write DIR/report.html: one self-contained page (CSS inline, plots embedded as PNG data,\n"
                    "no network or other file needed). For a sweep store: parameters, plots of the main metrics\n"
                    "against a parameter (one line per value of another; mean and spread over seeds), results\n"
                    "averaged over seeds, failed points with their errors, every point. For a reproduction:\n"
                    "published vs simulated numbers with verdicts highlighted, a published-vs-simulated plot,\n"
                    "its report.md with figures, and the runs.",
        epilog="examples:\n"
               "  atmsim report results/sweeps/ubr-buffers\n"
               "  atmsim report results/sweeps/ubr-buffers --x defaults.switch_buffer --by policy --metric efficiency\n"
               "  atmsim report results/ubr-plus                  # a reproduction: published vs simulated\n"
               "  atmsim report results/erica-testing --out /tmp/erica.html",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    rep.add_argument("dir", help="a sweep store (atmsim sweep --out) or a reproduction directory (atmsim reproduce --out)")
    rep.add_argument("--out", metavar="FILE", help="where to write the page (default DIR/report.html)")
    rep.add_argument("--x", metavar="PARAM", help="sweeps: the parameter on the x axis (default: the numeric one with most values)")
    rep.add_argument("--by", metavar="PARAM", help="sweeps: one line per value of this parameter (default: the one with fewest values)")
    rep.add_argument("--metric", action="append", metavar="M",
                     help=f"sweeps: a metric to plot (repeatable; default {', '.join(REPORT_METRICS)})")
    rep.set_defaults(func=cmd_report)

    from .bench import SCALE_CASE_SETTINGS, SCALE_CASES, SCALE_SIZES, SCALE_TOPOLOGIES, SCALE_TOPOLOGY_SWITCHES

    scale_cases = ", ".join(f"{k} ({v.doc})" for k, v in SCALE_CASE_SETTINGS.items())
    scale_topologies = ", ".join(f"{k} ({n} switches in a line)" for k, n in SCALE_TOPOLOGY_SWITCHES.items())

    b = sub.add_parser("bench", help="measure engine speed on a fixed scenario (--scale: CPU ns per "
                                     "cell-hop and memory per VC as VCs grow)",
                       description=_wrapped("Run the UBR+ WAN scenario (15 sources, 36000-cell buffers, FBA, 20 s) on one "
                                            "core and report cell-hops per second, events per second and wall time."),
                       epilog="examples:\n"
                              "  atmsim bench                                        # about 10 s a run, best of 3\n"
                              "  atmsim bench --scale --case abr-kvr --vcs 10 --vcs 1000 --repeat 1\n"
                              "  atmsim bench --scale --json --targets > scale.json   # the whole table (long)\n\n"
                              "Figures and how they were measured: docs/performance.md.",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    b.add_argument("--json", action="store_true", help="print one JSON object")
    b.add_argument("--repeat", type=_runs, default=3, metavar="N",
                   help="runs; the best is reported (default 3). With --scale: runs of each row, round by "
                        "round (every row once, then every row again), each in a fresh process; a row's "
                        "times are its fastest run's, as issue 14 measured its own table (\"best of 3\"), "
                        "its memory its largest run's; the runs are shown on stderr as they finish (without "
                        "--json, those before the last round: the table shows the last)")
    b.add_argument("--scale", action="store_true",
                   help=f"the scale table instead: N = {', '.join(map(str, SCALE_SIZES))} VCs, one host pair "
                        f"each, of every case: {scale_cases}, on every topology: {scale_topologies}; "
                        "CPU ns per cell-hop (whole run, and event loop alone), events per cell-hop, peak "
                        "resident memory above baseline (MiB = 2^20 bytes, and bytes per VC), and the share "
                        "of the cells sent that the network dropped (a row where most cells die at the first "
                        "switch measures a start-up collapse); each row in a fresh process; then, for each "
                        "case and topology, its largest network against its smallest: the cost ratio "
                        "(target within 2x, stated for 10 -> 10000 VCs) and the bytes per VC (target at "
                        "most 1024, judged only at 10000 VCs or more)")
    b.add_argument("--vcs", type=_vc_count, action="append", metavar="N",
                   help=f"--scale: a number of VCs (repeatable; default {', '.join(map(str, SCALE_SIZES))})")
    b.add_argument("--case", action="append", choices=SCALE_CASES,
                   help="--scale: a traffic case (repeatable; default all)")
    b.add_argument("--topology", action="append", choices=SCALE_TOPOLOGIES,
                   help="--scale: a topology (repeatable; default all)")
    b.add_argument("--duration", type=_row_duration, default=None, metavar="T",
                   help="--scale: simulated time per row, above 0 (default 0.5 s)")
    b.add_argument("--targets", action="store_true",
                   help="--scale --json: one object, {\"rows\": [...], \"targets\": [...]}, the targets as "
                        "the table's text gives them (without it, the list of rows)")
    b.add_argument("--row-timeout", default=None, metavar="T",
                   help="--scale: wall time one run of a row may take before it is stopped and the row shown as "
                        "timed out (not run again) "
                        "(seconds, or e.g. \"2 min\"; default 600 s)")
    b.set_defaults(func=cmd_bench)

    sc = sub.add_parser(
        "scorecard", help="score every allocator of the registry against exact fair shares on one suite",
        description=_wrapped("Run every rate allocator of the registry (or those named) on the scorecard suite (seed 003's "
                    "configurations, multi-bottleneck, demand-limited and MCR cases; docs/scorecard.md) and score "
                    "each run against the oracle's max-min and GW shares, phase by phase: efficiency, largest "
                    "error, Jain's index, max and steady queue, convergence time, oscillation. Writes "
                    "scorecard.csv, .json, .html and .md into --out."),
        epilog="examples:\n"
               "  atmsim scorecard --quick                              # every allocator, runs at 40 %\n"
               "  atmsim scorecard --allocators erica,kvr --out results/sc\n"
               "  atmsim scorecard --option efci.threshold='\"500 cells\"' --allocators efci\n\n"
               "exit status: 0 scored; 1 every run failed; 2 an invalid option.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sc.add_argument("--allocators", metavar="A,B", help="allocators to score (default: all in the registry)")
    sc.add_argument("--configs", metavar="C,D", help="configurations of the suite to run (default: all)")
    sc.add_argument("--option", action="append", metavar="NAME.KEY=VALUE",
                    help="an allocator key (repeatable; VALUE as in TOML), e.g. efci.threshold='\"500 cells\"'")
    sc.add_argument("--out", metavar="DIR", help="output folder (default results/scorecard[-quick])")
    sc.add_argument("--json", action="store_true", help="print the scorecard as one JSON object")
    sc.add_argument("--quick", action="store_true", help="every run and event time at 40 %% (seconds)")
    sc.add_argument("--workers", type=int, metavar="N", help="worker processes (default: all cores)")
    sc.add_argument("--no-progress", action="store_true", help="no progress bar")
    _backend_args(sc)
    sc.set_defaults(func=cmd_scorecard)

    s = sub.add_parser("schema", help="print the JSON Schema of scenario files",
                       description="Print the JSON Schema of scenario files (generated from the engine's types): give\n"
                                   "it to an editor to complete and check keys as you type.",
                       epilog="examples:\n"
                              "  atmsim schema > scenario.schema.json\n"
                              "  # VS Code with Even Better TOML: put  #:schema ./scenario.schema.json  on a\n"
                              "  # scenario file's first line",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    s.set_defaults(func=cmd_schema)
    return p


def _wrapped(text: str) -> str:
    """``text`` wrapped at 88 columns, for a description shown as written (raw, so that its
    epilog's examples keep their lines)."""
    import textwrap

    return textwrap.fill(text, 88)


def main(argv: list[str] | None = None) -> int:
    # The command only writes image files: the non-interactive backend, chosen here and
    # not on import, so notebooks and scripts keep theirs (an MPLBACKEND set by the user wins).
    # `atmsim run` says where the command's time went: from the process' start when this is
    # the program (`atmsim ...`, `python -m atmsim ...`), else from this call's.
    started = (_process_started() if argv is None else None) or time.perf_counter()
    os.environ.setdefault("MPLBACKEND", "Agg")
    parser = build_parser()
    given = sys.argv[1:] if argv is None else list(argv)
    a = parser.parse_args(_negative_values(given))
    a.started = started
    a.command_line = ["atmsim", *given]  # what provenance.json records
    if sys.stdout is None:  # started with stdout closed (`atmsim schema >&-`): nothing could be printed
        _say("atmsim: error: stdout is closed, so nothing can be printed; redirect it instead "
             "(> /dev/null, or > FILE)")
        return 1
    if not getattr(a, "command", None):
        parser.print_help()
        return 0
    empty = empty_value(parser, a)
    if empty:  # not taken as "not given": `--out ""` wrote nothing, `--address ""` started a local Ray
        _say(f"atmsim: error: {empty}")
        return 2
    stdout, sys.stdout = sys.stdout, WatchedStdout(sys.stdout)
    try:
        code = _dispatch_watching_destructors(a)
        sys.stdout.flush()
        return code
    except KeyboardInterrupt:
        print("atmsim: interrupted", file=sys.stderr)
        return 130
    except OSError as e:  # stdout closed (a pipe) or on a full device
        _silence_stdout()
        if isinstance(e, BrokenPipeError) or e.errno == errno.EPIPE:
            return 0
        _say(f"atmsim: error: cannot write the output (stdout): {_os_message(e)}")
        return 1
    finally:
        if isinstance(sys.stdout, WatchedStdout):
            sys.stdout = stdout


def empty_value(parser: argparse.ArgumentParser, a) -> str:
    """The message for the first option or argument of the command given an empty string
    (one that is taken as not given, or as the current directory); '' if there is none."""
    command = next(act for act in parser._actions if isinstance(act, argparse._SubParsersAction))
    for action in command.choices[a.command]._actions:
        value = getattr(a, action.dest, None)
        values = value if isinstance(value, list) else [value]
        if "" not in values:
            continue
        if not action.option_strings:  # a positional argument: what its help says it is
            what = (action.help or "a value").split(";")[0]
            article = "" if what.startswith(("a ", "an ")) else "the "
            return f"{action.dest.upper()} \"\": an empty argument; give {article}{what}"
        name = action.option_strings[-1]
        return (f"{name} \"\": an empty value; give {action.metavar or action.dest.upper()}"
                + (" (or leave the option out for its default)" if action.default is None else ""))
    return ""


class StdoutError(OSError):
    """An error writing stdout (a full device), told apart from an error writing a file."""


class WatchedStdout:
    """``sys.stdout`` while a command runs: an error writing it raises :class:`StdoutError`
    (a closed pipe stays a BrokenPipeError), so that a file's write error, which may carry
    no file name (pyarrow's), is never blamed on stdout, nor stdout's on a file."""

    def __init__(self, stream):
        self._stream = stream

    def _watched(self, call, *args):
        try:
            return call(*args)
        except BrokenPipeError:
            raise
        except OSError as e:
            raise StdoutError(e.errno, e.strerror or str(e)) from e

    def write(self, text: str) -> int:
        return self._watched(self._stream.write, text)

    def writelines(self, lines) -> None:
        return self._watched(self._stream.writelines, lines)

    def flush(self) -> None:
        return self._watched(self._stream.flush)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _process_started() -> float | None:
    """When this process started, on the ``time.perf_counter()`` clock (Linux: from
    /proc/self/stat, to 10 ms); None where that cannot be read."""
    try:
        with open("/proc/self/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None
    return time.perf_counter() - age if 0 <= age < 3600 else None


#: Options whose value may start with '-' (a negative number: its own error, from the option's
#: check, not argparse's "expected one argument").
NEGATIVE_VALUE_OPTIONS = ("--duration", "--row-timeout", "--max-wall", "--max-events", "--point-timeout")


def _negative_values(argv: list[str]) -> list[str]:
    """``--duration -1s`` as ``--duration=-1s``: argparse takes a value like '-1s' for an
    option (only '-1' and '-1.5' pass as numbers) and says "expected one argument"."""
    import re

    out: list[str] = []
    i = 0
    while i < len(argv):
        if (argv[i] in NEGATIVE_VALUE_OPTIONS and i + 1 < len(argv)
                and re.match(r"-\.?[0-9]", argv[i + 1])):
            out.append(f"{argv[i]}={argv[i + 1]}")
            i += 2
            continue
        if argv[i] == "--":
            out.extend(argv[i:])
            break
        out.append(argv[i])
        i += 1
    return out


def _dispatch(a) -> int:
    """Runs the command, mapping every failure to one line and an exit status."""
    try:
        from . import EngineSettingError, InternalError, InvariantError, MemoryLimitError, ScenarioError
        from .parallel import BackendError
        from .report import ReportError
        from .store import StoreError
        from .sweeps import SweepError

        try:
            return a.func(a)
        except (MemoryLimitError, EngineSettingError) as e:  # does not fit; an engine setting (issue 14)
            raise UserError(str(e)) from None
        except ScenarioError as e:
            raise UserError(f"invalid scenario: {e}") from None
        except (SweepError, StoreError, BackendError, ReportError) as e:
            raise UserError(str(e)) from None
        except (InvariantError, InternalError) as e:
            _say(f"atmsim: internal error (please report it): {e}")
            return 3
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError) as e:
            raise UserError(str(e) if e.filename is None else _os_message(e)) from None
        except OutputError as e:
            _say(f"atmsim: error: {e}")
            return 1
        except (BrokenPipeError, KeyboardInterrupt, UserError):
            raise
        except OSError as e:
            if isinstance(e, StdoutError) or e.errno == errno.EPIPE or (e.filename is None and _stdout_broken()):
                raise  # stdout itself: main() says so
            _say(f"atmsim: error: {_file_error(a, e)}")
            return 1
        except MemoryError:
            _say("atmsim: error: out of memory")
            return 1
        except Exception as e:  # noqa: BLE001 - a bug: one line and a report file, never a traceback
            _say(f"atmsim: internal error (please report it): {type(e).__name__}: {str(e)[:300]}{_save_traceback()}")
            return 3
    except UserError as e:
        _say(f"atmsim: error: {e}")
        return 2


def _dispatch_watching_destructors(a) -> int:
    """:func:`_dispatch`, with an error raised where Python cannot raise it (a destructor: a
    trace's ParquetWriter closing on the full disk that failed its last write) kept from
    printing "Exception ignored ... Traceback": after a failure it is the same fault, already
    said; after a success it is said in one line, and the command fails."""
    import gc

    late: list[BaseException] = []
    previous, sys.unraisablehook = sys.unraisablehook, lambda u: late.append(u.exc_value)
    try:
        code = _dispatch(a)
        if code != 0 or getattr(a, "trace", None) or getattr(a, "trace_dir", None):
            # What a failure or a trace's writers left in reference cycles, closed while
            # watched; not after other runs, where it would only be a pass over all of a
            # large run's objects.
            gc.collect()
    finally:
        sys.unraisablehook = previous
    if late and code == 0:
        e = late[0]
        _say(f"atmsim: error: {_file_error(a, e) if isinstance(e, OSError) else f'{type(e).__name__}: {e}'}")
        return 1
    return code


def _say(line: str) -> None:
    try:
        print(line, file=sys.stderr, flush=True)
    except OSError:
        pass


#: Options naming where a command writes files: (option, attribute of its arguments).
OUTPUT_OPTIONS = (("--out", "out"), ("--trace-dir", "trace_dir"))


def _file_error(a, e: OSError) -> str:
    """One line for an error of a file (not stdout): the file and the output option it is
    under; without a file name (pyarrow's errors), the output options given."""
    given = [(option, str(getattr(a, attr))) for option, attr in OUTPUT_OPTIONS if getattr(a, attr, None)]
    if e.filename is not None:
        under = [f"{option} {path!r}" for option, path in given if _is_under(str(e.filename), path)]
        return _os_message(e) + (f" ({under[0]})" if under else "")
    reason = e.strerror or str(e) or type(e).__name__
    if not given:
        return reason
    return f"cannot write the output ({' or '.join(f'{option} {path!r}' for option, path in given)}): {reason}"


def _is_under(file: str, directory: str) -> bool:
    """Whether ``file`` is ``directory`` or inside it."""
    file, directory = os.path.abspath(file), os.path.abspath(directory)
    try:
        return os.path.commonpath([file, directory]) == directory
    except ValueError:  # different drives
        return False


def _stdout_broken() -> bool:
    try:
        sys.stdout.flush()
        return False
    except OSError:
        return True


def _silence_stdout() -> None:
    """Points stdout at /dev/null so that the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _save_traceback() -> str:
    import tempfile
    import traceback

    try:
        fd, path = tempfile.mkstemp(prefix="atmsim-bug-", suffix=".txt")
        with os.fdopen(fd, "w") as f:
            f.write(traceback.format_exc())
        return f" (details in {path})"
    except OSError:
        return ""


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
