"""The allocator scorecard (issue 17 item 5): every allocator of the engine's registry, or
the ones named, on one suite (:mod:`atmsim.scorecard_suite`), each run scored against the
exact fair shares of the oracle, phase by phase (``_core.fair_share_phases_json``:
connections starting and stopping and rate caps ending split a run into phases; phases
shorter than a tenth of the run are not scored).

Per configuration and allocator (columns explained in ``docs/scorecard.md``):

- ``efficiency``: sum of the rates the connections get / sum of their max-min shares;
- ``error_max_min`` / ``error_gw``: the largest relative error (signed) of a connection's rate
  against its max-min / GW (ATMF 98-0408) share;
- ``jain_max_min`` / ``jain_gw``: Jain's index of rate / share (seed 003 section 3);
- ``max_queue_cells`` and ``steady_queue_cells`` (switch ports);
- ``convergence_ms``: time from a phase's start until every ACR stays within +-5 % of its
  steady value;
- ``oscillation``: (max - min) / mean of an ACR over the steady window.

A connection's rate in a phase is measured over the phase's steady window (its last 40 %):
its mean ACR, or what it delivers if less (data cells x Nrm / (Nrm - 1), the in-rate RM cells
of TM 4.0, Nrm = 32). Every figure is the worst over the phases and connections.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from .scorecard_suite import Config, configs

#: Fraction of each phase, at its end, taken as the steady state.
STEADY_FRACTION = 0.4
#: Phases shorter than this fraction of the run are not scored: too short for feedback to
#: act (upstream's first 5 ms, before VC17 starts, against WAN round trips of ~30 ms).
MIN_PHASE_FRACTION = 0.1
#: Convergence band: an ACR within +-5 % of its steady value (issue 17).
BAND = 0.05
#: Cells per RM cell of a TM 4.0 source (Nrm): data cells delivered x NRM / (NRM - 1) is the rate.
NRM = 32

#: The columns of the scorecard, in order, with their unit and meaning (docs/scorecard.md).
COLUMNS = {
    "efficiency": "sum of rates / sum of max-min shares",
    "error_max_min": "largest relative error of a rate against its max-min share (signed)",
    "error_gw": "largest relative error of a rate against its GW share (signed)",
    "jain_max_min": "Jain's fairness index of rate / max-min share (worst phase)",
    "jain_gw": "Jain's fairness index of rate / GW share (worst phase)",
    "max_queue_cells": "largest queue of any switch port over the run (cells)",
    "steady_queue_cells": "largest mean queue of a switch port in a steady window (cells)",
    "convergence_ms": "time from a phase's start until every ACR stays within +-5 % of its steady value (ms)",
    "oscillation": "largest (max - min) / mean of an ACR in a steady window",
}


def allocator_names() -> list[str]:
    """The rate allocators of the engine's registry (``atmsim list``), in its order."""
    from . import _core

    for title, key, entries in _core.registry():
        if key.startswith("port allocator"):
            return [name for name, _ in entries]
    raise RuntimeError("the engine's registry has no rate allocators")  # pragma: no cover


def allocator_table(name: str, options: Optional[dict[str, dict[str, Any]]] = None) -> dict[str, Any]:
    """``{kind = name}`` plus the options given for it: the allocator's own defaults otherwise."""
    return {"kind": name, **(options or {}).get(name, {})}


def scenario_for(cfg: Config, allocator: dict[str, Any], k: float) -> dict[str, Any]:
    """The configuration's scenario with ``allocator`` on every switch port."""
    sc = cfg.build(k)
    sc["defaults"]["allocator"] = dict(allocator)
    return sc


def oracle_phases(sc: dict[str, Any]) -> list[dict[str, Any]]:
    """The fair shares per phase: [{start_s, end_s, max_min: {name: bps}, gw: {name: bps}}],
    only the connections inside the allocation and open in the phase."""
    from . import _core

    base = json.loads(json.dumps(sc))
    base["defaults"].pop("allocator", None)  # the shares do not depend on the allocator
    out = []
    for p in json.loads(_core.fair_share_phases_json(json.dumps(base))):
        mm = {s["name"]: s["max_min_bps"] for s in p["shares"] if s["max_min_bps"] is not None}
        gw = {s["name"]: s["gw_bps"] for s in p["shares"] if s["gw_bps"] is not None}
        out.append({"start_s": p["start_s"], "end_s": p["end_s"], "max_min": mm, "gw": gw})
    return out


# --------------------------------------------------------------------------- metrics


def _jain(x: list[float]) -> float:
    s2 = sum(v * v for v in x)
    return (sum(x) ** 2) / (len(x) * s2) if s2 > 0 else float("nan")


def _worst_jain(values: list[float]) -> float:
    finite = [v for v in values if not math.isnan(v)]
    return min(finite) if finite else float("nan")


def _worst_signed(errors: list[float]) -> float:
    return max(errors, key=abs) if errors else float("nan")


def _settle_s(t: "Any", acr: "Any", target: float, start: float) -> float:
    """Seconds from ``start`` until ``acr`` stays within +-BAND of ``target`` (inf: never)."""
    if target <= 0:
        return 0.0
    out = (abs(acr / target - 1.0) > BAND).to_numpy()
    if not out.any():
        return 0.0
    last = int(out.nonzero()[0][-1])
    if last + 1 >= len(t):
        return float("inf")
    return float(t.iloc[last + 1]) - start


@dataclass
class PhaseScore:
    """What one phase gave."""

    rates: dict[str, float] = field(default_factory=dict)
    settle_s: float = 0.0
    oscillation: float = 0.0
    steady_queue: float = 0.0


def _phase(result: Any, start: float, end: float, names: list[str]) -> PhaseScore:
    """Rates, settling, oscillation and steady queue of the connections ``names`` in a phase."""
    lo = end - STEADY_FRACTION * (end - start)
    abr = result.abr_series
    ps = PhaseScore()
    for name in names:
        s = abr[(abr["source"] == name) & (abr["time_s"] > start) & (abr["time_s"] <= end + 1e-12)]
        w = s[s["time_s"] >= lo]
        if len(w) < 2:
            continue
        acr = float(w["acr_mbps"].mean()) * 1e6
        dt = float(w["time_s"].iloc[-1] - w["time_s"].iloc[0])
        cells = float(w["cells_received"].iloc[-1] - w["cells_received"].iloc[0])
        delivered = cells * 424.0 / dt * NRM / (NRM - 1) if dt > 0 else acr
        ps.rates[name] = min(acr, delivered)
        if acr > 0:
            ps.oscillation = max(ps.oscillation, float(w["acr_mbps"].max() - w["acr_mbps"].min()) * 1e6 / acr)
        ps.settle_s = max(ps.settle_s, _settle_s(s["time_s"], s["acr_mbps"] * 1e6, acr, start))
    q = result.port_series
    sw = set(result.ports.loc[result.ports["is_switch"], "name"])
    qw = q[(q["time_s"] >= lo) & (q["time_s"] <= end + 1e-12) & q["port"].isin(sw)]
    if len(qw):
        ps.steady_queue = float(qw.groupby("port")["queue_cells"].mean().max())
    return ps


def score_run(result: Any, phases: list[dict[str, Any]]) -> dict[str, float]:
    """The scorecard's columns for one run against the oracle's phases."""
    err_mm: list[float] = []
    err_gw: list[float] = []
    jain_mm: list[float] = []
    jain_gw: list[float] = []
    eff_num = eff_den = 0.0
    settle = osc = steady_q = 0.0
    run = max((ph["end_s"] for ph in phases), default=0.0)
    for ph in phases:
        start, end = ph["start_s"], ph["end_s"]
        if end - start < MIN_PHASE_FRACTION * run or end <= start:
            continue
        names = [n for n in ph["max_min"] if n in set(result.abr_series["source"])]
        p = _phase(result, start, end, names)
        got = [n for n in names if n in p.rates]
        if not got:
            continue
        for shares, errs, jains in ((ph["max_min"], err_mm, jain_mm), (ph["gw"], err_gw, jain_gw)):
            fair = [n for n in got if shares.get(n, 0) > 0]
            errs.extend(p.rates[n] / shares[n] - 1.0 for n in fair)
            if fair:
                jains.append(_jain([p.rates[n] / shares[n] for n in fair]))
        weight = end - start
        eff_num += weight * sum(p.rates[n] for n in got)
        eff_den += weight * sum(ph["max_min"][n] for n in got)
        settle, osc, steady_q = max(settle, p.settle_s), max(osc, p.oscillation), max(steady_q, p.steady_queue)
    ports = result.ports
    maxq = float(ports.loc[ports["is_switch"], "max_queue_cells"].max()) if len(ports) else float("nan")
    return {
        "efficiency": eff_num / eff_den if eff_den > 0 else float("nan"),
        "error_max_min": _worst_signed(err_mm),
        "error_gw": _worst_signed(err_gw),
        "jain_max_min": _worst_jain(jain_mm),
        "jain_gw": _worst_jain(jain_gw),
        "max_queue_cells": maxq,
        "steady_queue_cells": steady_q,
        "convergence_ms": settle * 1e3,
        "oscillation": osc,
    }


# --------------------------------------------------------------------------- running


@dataclass
class Scorecard:
    """The scorecard: one row per configuration and allocator (``rows``, a DataFrame)."""

    rows: Any
    allocators: list[str]
    configs: list[Config]
    quick: bool
    wall_s: float
    workers: int

    @property
    def all_failed(self) -> bool:
        """Whether no run gave a score (every row is n/a): the scorecard measured nothing."""
        return bool(len(self.rows)) and bool((self.rows["status"] != "ok").all())

    def to_json(self) -> dict[str, Any]:
        """Everything as plain JSON types (NaN and inf as null)."""
        def clean(v: Any) -> Any:
            return None if isinstance(v, float) and not math.isfinite(v) else v
        return {
            "allocators": self.allocators,
            "quick": self.quick,
            "wall_s": round(self.wall_s, 2),
            "workers": self.workers,
            "columns": COLUMNS,
            "configs": [{"key": c.key, "case": c.case, "source": c.source} for c in self.configs],
            "rows": [{k: clean(v) for k, v in r.items()} for r in self.rows.to_dict("records")],
        }

    def write(self, out: str | Path) -> list[Path]:
        """Writes ``scorecard.csv``, ``scorecard.json``, ``scorecard.html`` and ``scorecard.md``
        into ``out``; returns the paths."""
        from .scorecard_html import html_page, markdown_table

        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        paths = [out / "scorecard.csv", out / "scorecard.json", out / "scorecard.html", out / "scorecard.md"]
        self.rows.to_csv(paths[0], index=False, float_format="%.6g")
        paths[1].write_text(json.dumps(self.to_json(), indent=1) + "\n")
        paths[2].write_text(html_page(self))
        paths[3].write_text(markdown_table(self))
        return paths


def _refusal(sc: dict[str, Any]) -> str:
    """Why the engine refuses the scenario ``sc``, or "" if it takes it."""
    from . import ScenarioError, validate

    try:
        validate(sc)
    except ScenarioError as e:
        return str(e)
    return ""


def check_options(options: dict[str, dict[str, Any]], cfg: Config, k: float) -> None:
    """Refuses (ValueError, before anything runs) allocator options the engine does not take:
    each allocator given options is checked on one configuration, with and without them; an
    error the options bring (an unknown key, a value of the wrong kind) names them."""
    for name, opts in options.items():
        if "kind" in opts:
            raise ValueError(f"--option {name}.kind={json.dumps(opts['kind'])}: the allocator is chosen with "
                             f"--allocators, not with an option; give {name}'s own keys (NAME.KEY=VALUE)")
        with_options = _refusal(scenario_for(cfg, allocator_table(name, options), k))
        if with_options and with_options != _refusal(scenario_for(cfg, allocator_table(name), k)):
            given = ", ".join(f"{name}.{key}={json.dumps(v)}" for key, v in opts.items())
            raise ValueError(f"--option {given}: the engine refuses the {name} allocator with "
                             f"{'this option' if len(opts) == 1 else 'these options'}: {with_options}")


def run_scorecard(allocators: Optional[list[str]] = None, *, config_names: Optional[list[str]] = None,
                  quick: bool = False, options: Optional[dict[str, dict[str, Any]]] = None,
                  workers: Optional[int] = None, progress: bool = True, backend: str = "local",
                  address: Optional[str] = None) -> Scorecard:
    """Runs every (configuration, allocator) pair on ``backend`` (:func:`atmsim.parallel.execute`)
    and scores it. ``allocators``: names from the registry (default: all of them). A run the
    engine refuses (an allocator that needs a key, say) or that fails gets a row marked
    ``n/a`` with the reason."""
    import pandas as pd

    from .parallel import check_backend, default_workers, execute
    from .result import RunResult

    check_backend(backend, workers, address)  # workers = 0 is refused, not taken as the default
    known = allocator_names()
    names = list(allocators) if allocators else known
    bad = [n for n in names if n not in known]
    if bad:
        raise ValueError(f"unknown allocator {', '.join(bad)}; the registry has: {', '.join(known)}")
    unused = [n for n in (options or {}) if n not in names]
    if unused:
        raise ValueError(f"options for {', '.join(unused)}, which this scorecard does not run; it runs: "
                         f"{', '.join(names)}")
    cfgs = configs(config_names)
    k = 0.4 if quick else 1.0
    check_options(options or {}, cfgs[0], k)
    t0 = time.perf_counter()
    phases = {c.key: oracle_phases(c.build(k)) for c in cfgs}
    tasks, scenarios = [], {}
    for c in cfgs:
        for a in names:
            key = f"{c.key}|{a}"
            scenarios[key] = scenario_for(c, allocator_table(a, options), k)
            tasks.append((key, json.dumps(scenarios[key])))
    rows: dict[str, dict[str, Any]] = {}

    def deliver(key: str, out: Any) -> None:
        cfg, alloc = key.split("|", 1)
        row: dict[str, Any] = {"config": cfg, "allocator": alloc}
        if out.ok:
            row.update(status="ok", reason="")
            row.update(score_run(RunResult(json.loads(out.text), scenarios[key]), phases[cfg]))
        else:
            row.update(status="n/a", reason=out.message)
        rows[key] = row

    n_workers = workers if workers is not None else default_workers()
    execute(tasks, deliver, backend=backend, workers=n_workers, address=address, progress=progress,
            desc="scorecard")
    order = [f"{c.key}|{a}" for c in cfgs for a in names]
    df = pd.DataFrame([rows[k] for k in order], columns=["config", "allocator", "status", *COLUMNS, "reason"])
    return Scorecard(df, names, cfgs, quick, time.perf_counter() - t0, n_workers)


def parse_options(items: list[str]) -> dict[str, dict[str, Any]]:
    """``NAME.KEY=VALUE`` items (VALUE as a TOML value, else a string) into
    ``{NAME: {KEY: VALUE}}``."""
    try:
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]

    out: dict[str, dict[str, Any]] = {}
    for item in items:
        head, sep, value = item.partition("=")
        name, dot, key = head.strip().partition(".")
        if not sep or not dot or not name or not key:
            raise ValueError(f"--option {item!r}: expected ALLOCATOR.KEY=VALUE, e.g. efci.threshold=\"500 cells\"")
        try:
            v = tomllib.loads(f"v = {value}")["v"]
        except tomllib.TOMLDecodeError:
            v = value.strip()
        out.setdefault(name, {})[key] = v
    return out
