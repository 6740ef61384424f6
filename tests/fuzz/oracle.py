"""The fuzzer's silent-clamp oracle (issue 18, item 2: "nothing is clamped silently").

For a scenario the engine accepted and ran, two independent checks:

* **ranges**: every quantity written in the scenario (``"NUMBER UNIT"``) is parsed here,
  independently of the engine, with the ranges that ``crates/atmsim/src/units.rs`` states
  (rates 0 or 424 bps to 1 Tbps, durations 0 or 1 ps to 10^6 s, lengths up to 10^6 km, sizes
  whole up to 1 TiB, cell counts whole up to 2^32 - 1, percentages 0 to 100). A value outside
  its range that was accepted has been clamped, saturated or ignored somewhere.
* **read-back**: what the engine reports equals what was written: the run's simulated
  duration (unless the run was cut by a budget), its seed, and the line rate of both ports of
  every link that gives its own ``rate``.

:func:`silent_clamps` returns what is wrong, one line each (empty when nothing is).
"""

from __future__ import annotations

import math
import re
from typing import Any, Iterator, Optional

PS = 1e-12
CELL_BITS = 424.0

RATE = {"bps": 1.0, "bit/s": 1.0, "kbps": 1e3, "Kbps": 1e3, "kbit/s": 1e3, "Mbps": 1e6, "Mbit/s": 1e6,
        "Gbps": 1e9, "Gbit/s": 1e9, "cells/s": CELL_BITS, "cell/s": CELL_BITS}
TIME = {"ps": 1e-12, "ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0,
        "min": 60.0}
LENGTH = {"m": 1.0, "km": 1e3}
SIZE = {"B": 1.0, "bytes": 1.0, "kB": 1e3, "KB": 1024.0, "KiB": 1024.0, "MB": 1e6, "MiB": 1048576.0}
CELLS = {"cells": 1.0, "cell": 1.0}
PERCENT = {"%": 1.0}

#: Keys whose strings are names or words, never quantities.
TEXT_KEYS = {"name", "description", "kind", "from", "to", "node", "toward", "between", "route", "service",
             "congestion", "tick_phase", "distribution", "arrival", "scheme", "averaging", "policy"}

_QUANTITY = re.compile(r"^\s*([0-9.eE+-]+|[-+]?(?i:nan|inf|infinity))\s*(\S+)\s*$")


def out_of_range(text: str) -> Optional[str]:
    """Why a written quantity is outside its stated range, or None (in range, or not a
    quantity of a known unit: the engine refuses those itself)."""
    m = _QUANTITY.match(text)
    if not m:
        return None
    try:
        v = float(m.group(1))
    except ValueError:
        return None
    unit = m.group(2)
    if not math.isfinite(v) or v < 0:
        return "not a finite number >= 0"
    if unit in RATE:
        bps = v * RATE[unit]
        if bps > 1e12 or 0 < bps < 424:
            return f"{bps:g} bps is outside 0 or 424 bps to 1 Tbps"
    elif unit in TIME:
        ps = v * TIME[unit] / PS
        if ps > 1e18 or 0 < ps < 0.5:
            return f"{ps:g} ps is outside 0 or 1 ps to 10^6 s"
    elif unit in LENGTH:
        if v * LENGTH[unit] > 1e9:
            return "longer than 10^6 km"
    elif unit in SIZE:
        b = v * SIZE[unit]
        if b > 2**40 or b != math.floor(b):
            return f"{b:g} B is not a whole number of bytes up to 1 TiB"
    elif unit in CELLS:
        if v > 2**32 - 1 or v != math.floor(v):
            return f"{v:g} cells is not a whole number up to 2^32 - 1"
    elif unit in PERCENT:
        if v > 100:
            return f"{v:g} % is above 100 %"
    return None


def _quantities(obj: Any, path: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            if str(k) not in TEXT_KEYS:
                yield from _quantities(v, f"{path}.{k}" if path else str(k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _quantities(v, f"{path}[{i}]")
    elif isinstance(obj, str):
        yield path, obj


def parse_seconds(text: Any) -> Optional[float]:
    """A duration written in the scenario, in seconds (None if it is not one)."""
    if not isinstance(text, str):
        return None
    m = _QUANTITY.match(text)
    if not m or m.group(2) not in TIME:
        return None
    try:
        return round(float(m.group(1)) * TIME[m.group(2)] / PS) * PS
    except (ValueError, OverflowError):
        return None


def parse_bps(text: Any) -> Optional[float]:
    if not isinstance(text, str):
        return None
    m = _QUANTITY.match(text)
    if not m or m.group(2) not in RATE:
        return None
    try:
        return float(m.group(1)) * RATE[m.group(2)]
    except ValueError:
        return None


def silent_clamps(scenario: dict, raw: dict) -> list[str]:
    """What the engine accepted out of range, or reports differently from what was
    written; ``raw`` is the run's result (``RunResult.raw``)."""
    bad = [f"{p} = {t[:60]!r} was accepted: {why}" for p, t in _quantities(scenario)
           if (why := out_of_range(t)) is not None]
    s = raw.get("summary", {})
    m = scenario.get("measurement")
    want = parse_seconds(m.get("duration")) if isinstance(m, dict) else None
    if want is not None and not s.get("partial") and abs(s.get("duration_s", want) - want) > 1e-12 * max(1.0, want):
        bad.append(f"measurement.duration = {m['duration']!r} ran {s.get('duration_s')!r} s")
    seed = scenario.get("seed")
    if isinstance(seed, int) and not isinstance(seed, bool) and s.get("seed") != seed:
        bad.append(f"seed = {seed} ran as seed {s.get('seed')!r}")
    ports = {p.get("name"): p for p in raw.get("ports", []) if isinstance(p, dict)}
    for i, link in enumerate(scenario.get("link") or []):
        if not isinstance(link, dict) or not isinstance(link.get("between"), list) or len(link["between"]) != 2:
            continue
        bps = parse_bps(link.get("rate"))
        if bps is None:
            continue
        a, b = link["between"]
        for name in (f"{a}->{b}", f"{b}->{a}"):
            got = ports.get(name, {}).get("rate_bps")
            if got is not None and abs(got - bps) > max(0.5, 1e-9 * bps):
                bad.append(f"link[{i}].rate = {link['rate']!r}: port {name} runs at {got!r} bps")
    return bad
