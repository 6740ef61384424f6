"""Parameter sweeps: a base scenario, the parameters to vary, and seeds.

A sweep file (TOML, or JSON; from Python a dict) names a base scenario (a scenario file, a
scenario dict from Python, or a topology builder of :mod:`atmsim.topology` with its
arguments), the parameters to vary (lists, ranges, zipped groups) and how many seeds to run
per combination. :func:`load_sweep_file` reads and checks it; :meth:`SweepSpec.points`
expands the grid into :class:`Point` objects, each with its fully resolved scenario and a
stable id (a hash of that scenario), and :func:`sweep` runs the points that are not yet in
the results store (:mod:`atmsim.store`).

The format is documented in docs/sweeps.md. Every mistake in a sweep file raises
:class:`SweepError` with one message that names the key, the value and what is allowed.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import inspect
import json
import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, Union

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.9/3.10
    import tomli as tomllib

#: Points per sweep beyond which a sweep file is refused (a typo in a range, most likely).
MAX_POINTS = 1_000_000
#: Columns of the results table that are not summary metrics.
BOOKKEEPING_COLUMNS = frozenset({
    "point_id", "seed", "status", "error", "error_type", "atmsim_version", "version",
    "wall_seconds", "cell_hops_per_second", "events_per_second",
})


def reserved_columns() -> frozenset:
    """Columns of the results table that parameters cannot be named after: the bookkeeping
    columns and every field of a run's summary (read from the engine, never copied)."""
    from . import _core

    return BOOKKEEPING_COLUMNS | frozenset(_core.summary_fields())


_TOP_KEYS = ("name", "description", "base", "sweep")
_BASE_KEYS = ("scenario", "topology", "args", "set")
_SWEEP_KEYS = ("seeds", "parameters", "zip", "point_timeout", "point_memory")
_SPEC_KEYS = ("values", "labels", "name", "start", "stop", "step", "from", "to", "num", "scale", "integer", "unit")


class SweepError(ValueError):
    """A mistake in a sweep file or sweep dict: the message names the key, the value and what is allowed."""


# --------------------------------------------------------------------------- small helpers


def fmt(v: Any) -> str:
    """A value as it would be written in TOML (for messages and labels)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return _num(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(fmt(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {fmt(x)}" for k, x in v.items()) + " }" if v else "{}"
    return repr(v)


def _num(v: Union[int, float]) -> str:
    """A number written without float noise: 3 not 3.0, 0.3 not 0.30000000000000004."""
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, int):
        return str(v)
    if math.isfinite(v) and v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return repr(float(f"{v:.12g}"))


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _key(path: str) -> str:
    """A parameter path as a TOML key (quoted when it holds dots)."""
    return json.dumps(path) if not path.replace("_", "").isalnum() else path


def _close(word: str, allowed: list[str]) -> str:
    m = difflib.get_close_matches(word, allowed, n=1, cutoff=0.6)
    return f" (did you mean {m[0]!r}?)" if m else ""


def _strip_none(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _strip_none(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [_strip_none(x) for x in v]
    return v


def plain(v: Any) -> Any:
    """``v`` with NumPy scalars as their Python values (``np.int64(2)`` -> ``2``, ``np.bool_``
    -> ``bool``) and NumPy arrays as lists, in new dicts, lists and tuples: a sweep built in
    a notebook (``list(np.arange(...))``) reads as if written by hand."""
    if isinstance(v, dict):
        return {plain(k): plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, tuple):
        return tuple(plain(x) for x in v)
    from .scenario import plain_value  # the one reading of a NumPy value

    try:
        return plain_value(v)
    except TypeError:  # not a NumPy value: itself
        return v


def canonical(v: Any) -> str:
    """Canonical JSON (sorted keys, no spaces, no nulls): what point ids hash. NumPy
    scalars count as their Python values."""
    return json.dumps(_strip_none(v), sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=_plain_value)


def _plain_value(o: Any) -> Any:
    """``json.dumps``'s ``default=``: :func:`atmsim.scenario.plain_value` (imported when
    first needed: this module is read before the scenario module's heavy imports)."""
    from .scenario import plain_value

    return plain_value(o)


def point_id(scenario: dict[str, Any]) -> str:
    """The stable id of a resolved scenario: the first 16 hex digits of the SHA-256 of its
    canonical JSON. The seed is part of the scenario, so it is part of the id."""
    return hashlib.sha256(canonical(scenario).encode()).hexdigest()[:16]


def split_path(path: str) -> list[Union[str, int]]:
    """``"link.0.delay"`` -> ``["link", 0, "delay"]``."""
    return [int(p) if p.isdigit() else p for p in path.split(".")]


class PathError(ValueError):
    """A path that does not fit a scenario (an index past the end of a list, say)."""


def set_path(d: dict[str, Any], parts: list[Union[str, int]], value: Any, what: str = "scenario") -> None:
    """Sets ``value`` at ``parts`` in ``d``, creating tables that are missing."""
    cur: Any = d
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        here = ".".join(str(p) for p in parts[:i]) or what
        if isinstance(part, int):
            if not isinstance(cur, list):
                raise PathError(f"{here} is not a list (it is {fmt(cur)}), so it has no element {part}")
            if part >= len(cur):
                raise PathError(f"{here} has {len(cur)} element{'s' if len(cur) != 1 else ''} "
                                f"(indices 0-{len(cur) - 1}), so it has no element {part}" if cur else
                                f"{here} is an empty list, so it has no element {part}")
            if last:
                cur[part] = copy.deepcopy(value)
            else:
                cur = cur[part]
        else:
            if not isinstance(cur, dict):
                raise PathError(f"{here} is not a table (it is {fmt(cur)}), so it has no key {part!r}")
            if last:
                cur[part] = copy.deepcopy(value)
            else:
                if cur.get(part) is None:
                    if isinstance(parts[i + 1], int):
                        raise PathError(f"{here}.{part} is not set in the base scenario, so it has no element {parts[i + 1]}")
                    cur[part] = {}
                cur = cur[part]


def merge(base: dict[str, Any], extra: dict[str, Any]) -> None:
    """Deep-merges ``extra`` into ``base``: tables merge key by key, except tables with a
    ``kind`` (a policy, a traffic, an allocator), which replace; everything else replaces.
    Keys with dots are paths."""
    for k, v in extra.items():
        if "." in k:
            set_path(base, split_path(k), v)
        elif isinstance(v, dict) and "kind" not in v and isinstance(base.get(k), dict):
            merge(base[k], v)
        else:
            base[k] = copy.deepcopy(v)


def _merge_paths(extra: dict[str, Any], base: Any, prefix: str = "") -> Iterator[str]:
    """The paths :func:`merge` sets (for checking them)."""
    for k, v in extra.items():
        path = f"{prefix}.{k}" if prefix else k
        if "." in k:
            yield path
        elif isinstance(v, dict) and "kind" not in v and isinstance(base, dict) and isinstance(base.get(k), dict):
            yield from _merge_paths(v, base[k], path)
        else:
            yield path


# --------------------------------------------------------------------------- the scenario schema


_SCHEMA: Optional[dict[str, Any]] = None


def _schema() -> dict[str, Any]:
    global _SCHEMA
    if _SCHEMA is None:
        from . import _core

        _SCHEMA = json.loads(_core.json_schema())
    return _SCHEMA


def _variants(node: dict[str, Any], defs: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The node and every schema it may be ($ref, anyOf, oneOf, allOf), resolved."""
    if "$ref" in node:
        ref = node["$ref"].split("/")[-1]
        yield from _variants(defs.get(ref, {}), defs)
    yield node
    for k in ("anyOf", "oneOf", "allOf"):
        for sub in node.get(k, []):
            yield from _variants(sub, defs)


def _is_negative_index(part: Any) -> bool:
    return isinstance(part, str) and part.startswith("-") and part[1:].isdigit()


def _index_range(items: Any) -> str:
    """", 0-4 in the base scenario" for a list of 5 ("" when not known or empty)."""
    return f", 0-{len(items) - 1} in the base scenario" if isinstance(items, list) and items else ""


def check_scenario_path(path: str, base: Optional[dict[str, Any]], where: str) -> None:
    """Checks a dotted path against the scenario schema (unknown keys) and the base
    scenario (list indices); raises SweepError naming the path and what is allowed."""
    schema = _schema()
    defs = schema.get("$defs", schema.get("definitions", {}))
    parts = split_path(path)
    if parts[0] == "seed":
        raise SweepError(f"{where}: the seed is not a parameter; set the seeds with [sweep] seeds = N "
                         f"(N seeds from the base scenario's seed) or seeds = [1, 2, 3]")
    node: dict[str, Any] = schema
    cur: Any = base
    walked: list[str] = []
    for part in parts:
        vs = list(_variants(node, defs))
        here = ".".join(walked) or "the top level"
        if isinstance(part, int):
            items = next((v["items"] for v in vs if isinstance(v.get("items"), dict)), None)
            if items is None:
                raise SweepError(f"{where}: {here} is not a list, so {path!r} cannot index it with {part}")
            if isinstance(cur, list):
                if part >= len(cur):
                    raise SweepError(f"{where}: {here} has {len(cur)} element{'s' if len(cur) != 1 else ''} in the "
                                     f"base scenario (indices 0-{len(cur) - 1}), so {path!r} does not exist"
                                     if cur else f"{where}: {here} is empty in the base scenario, so {path!r} does not exist")
                cur = cur[part]
            elif base is not None:
                raise SweepError(f"{where}: {here} is not set in the base scenario, so {path!r} (element {part} of "
                                 f"it) does not exist; set the whole list instead, e.g. {fmt(here)} = [[...], [...]]")
            node = items
        else:
            props: dict[str, Any] = {}
            extra = None
            for v in vs:
                props.update(v.get("properties", {}))
                if isinstance(v.get("additionalProperties"), dict):
                    extra = v["additionalProperties"]
            is_list = any(isinstance(v.get("items"), dict) for v in vs)
            if not props and extra is None:
                if is_list and _is_negative_index(part):
                    raise SweepError(f"{where}: {here} has no element {part}: indices count from 0"
                                     + _index_range(cur) + " (negative indices are not taken)")
                if is_list:
                    n = len(cur) if isinstance(cur, list) else None
                    idx = f" 0-{n - 1}" if n else ""
                    raise SweepError(f"{where}: {here} is a list; give an index{idx} after it, e.g. {here}.0.{part}")
                if walked:
                    raise SweepError(f"{where}: {here} is a single value, so {path!r} (key {part!r} inside it) does not exist")
                raise SweepError(f"{where}: unknown scenario key {part!r}")
            if part in props:
                node = props[part]
            elif extra is not None:
                node = extra
            else:
                allowed = sorted(props)
                raise SweepError(f"{where}: {here} has no key {part!r}{_close(part, allowed)}; "
                                 f"allowed: {', '.join(allowed)}")
            cur = cur.get(part) if isinstance(cur, dict) else None
        walked.append(str(part))


# --------------------------------------------------------------------------- per-point limits

#: Wall-clock units of ``point_timeout`` (seconds each). Issue 18, "sweeps take a per-point
#: time and memory limit".
WALL_UNITS = {"ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}
#: Memory units of ``point_memory`` (bytes each).
MEMORY_UNITS = {"B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "PB": 10**15,
                "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50}
#: The per-point time limit must be below this (about 31 years: no limit to speak of).
MAX_POINT_TIMEOUT = 1e9
#: The smallest and largest per-point memory limits (a worker cannot even start in less).
MIN_POINT_MEMORY = 2**20
MAX_POINT_MEMORY = 2**50


def _limit_quantity(value: Any, where: str, units: dict[str, float], plain: str, example: str) -> float:
    """A limit written as a number (in the ``plain`` unit) or a string "NUMBER UNIT"."""
    if _is_num(value):
        return float(value) * units[plain]
    if isinstance(value, str):
        text = value.strip()
        num, _, unit = text.partition(" ")
        if not unit:  # "10s", "2GiB"
            i = len(text.rstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))
            num, unit = text[:i], text[i:]
        unit = unit.strip() or plain  # "60": a number in the plain unit (as the CLI's options)
        try:
            n = float(num)
        except ValueError:
            n = None
        if n is not None and unit in units:
            return n * units[unit]
        if n is not None and unit:
            raise SweepError(f"{where} = {_cut(fmt(value))}: unknown unit {_cut(unit)!r}; allowed: "
                             f"{', '.join(units)} (e.g. {example})")
    word = {"s": "seconds"}.get(plain, plain)
    raise SweepError(f"{where} = {_cut(fmt(value))}: give a number of {word} or a string with a unit, e.g. {example}")


def _cut(text: str, n: int = 60) -> str:
    return text if len(text) <= n else f"{text[:n]}... ({len(text)} characters)"


def parse_point_timeout(value: Any, where: str = "point_timeout", what: str = "a point") -> float:
    """A per-point wall-time limit in seconds: a number of seconds or ``"10 min"``; refused
    (naming ``where``, and ``what`` it limits: "a point", "a run of a row") unless above 0
    and below :data:`MAX_POINT_TIMEOUT`."""
    t = _limit_quantity(value, where, WALL_UNITS, "s", '"90 s" or "10 min"')
    if not (math.isfinite(t) and 0 < t < MAX_POINT_TIMEOUT):
        raise SweepError(f"{where} = {_cut(fmt(value))}: the wall time {what} may take must be above 0 s and "
                         f"below 1e9 s")
    return t


def parse_point_memory(value: Any, where: str = "point_memory") -> int:
    """A per-point memory limit in bytes: a number of MiB or ``"2 GiB"``; refused (naming
    ``where``) below 1 MiB or above 1 PiB."""
    m = _limit_quantity(value, where, MEMORY_UNITS, "MiB", '"512 MiB" or "2 GiB"')
    if not (math.isfinite(m) and MIN_POINT_MEMORY <= m <= MAX_POINT_MEMORY):
        raise SweepError(f"{where} = {_cut(fmt(value))}: the memory a point may use must be from 1 MiB to 1 PiB")
    return int(m)


def describe_limits(point_timeout: Optional[float], point_memory: Optional[int]) -> str:
    """``"90 s of wall time, 512 MiB"`` (empty without limits)."""
    parts = []
    if point_timeout is not None:
        parts.append(f"{point_timeout:g} s of wall time")
    if point_memory is not None:
        parts.append(f"{point_memory / 2**20:g} MiB of memory")
    return ", ".join(parts)


# --------------------------------------------------------------------------- seeds

#: The largest seed the engine reads: 2^63 - 1, the largest integer a TOML file holds.
MAX_SEED = 2**63 - 1
SEED_RANGE = f"0 to {MAX_SEED} = 2^63 - 1"


def _is_seed(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_SEED


def parse_seeds(seeds: Any, base_seed: Any) -> list[int]:
    """``[sweep] seeds``: a count (the base scenario's seed and the ones after it) or a list
    of distinct seeds, each from 0 to :data:`MAX_SEED`; anything else is one SweepError."""
    if isinstance(seeds, int) and not isinstance(seeds, bool):
        return _counted_seeds(seeds, base_seed)
    if not isinstance(seeds, list) or not seeds:
        raise SweepError(f"sweep.seeds = {_cut(fmt(seeds))}: must be a count >= 1 or a non-empty list of seeds")
    bad = [s for s in seeds if not _is_seed(s)]
    if bad:
        raise SweepError(f"sweep.seeds = {_cut(fmt(seeds))}: {fmt(bad[0])} is not a seed; seeds are whole numbers "
                         f"from {SEED_RANGE}")
    if len(set(seeds)) != len(seeds):
        raise SweepError(f"sweep.seeds = {_cut(fmt(seeds))}: a seed is given twice")
    return list(seeds)


def _counted_seeds(count: int, base_seed: Any) -> list[int]:
    """``seeds = N``: the base scenario's seed and the N - 1 after it."""
    if count < 1 or count > MAX_POINTS:
        raise SweepError(f"sweep.seeds = {count}: must be a count >= 1 and at most {MAX_POINTS} (seeds base, base+1, ...; "
                         f"the base scenario's seed is {fmt(base_seed)}) or a list of seeds such as [1, 2, 3]")
    if not _is_seed(base_seed):
        raise SweepError(f"sweep.seeds = {count} counts from the base scenario's seed, {_cut(fmt(base_seed))}, which is "
                         f"not a seed (seeds are whole numbers from {SEED_RANGE}); give a list of seeds such as [1, 2, 3]")
    if base_seed + count - 1 > MAX_SEED:
        raise SweepError(f"sweep.seeds = {count}: counting from the base scenario's seed {base_seed} goes past "
                         f"the largest seed, {MAX_SEED} (seeds are {SEED_RANGE}); give fewer seeds or a list")
    return list(range(base_seed, base_seed + count))


# --------------------------------------------------------------------------- parameters


@dataclass
class Parameter:
    """One varied key: its column ``name``, its ``path``, the ``values`` written into the
    scenario and their ``labels`` (what the results table shows)."""

    name: str
    path: str
    values: list[Any]
    labels: list[Any]
    unit: Optional[str] = None
    group: Optional[int] = None  # zipped group number, None for a parameter of its own
    scale: str = "linear"  # "log" for a log range (plots use a log axis)

    def describe(self) -> str:
        ls = [fmt(x) if not isinstance(x, str) else x for x in self.labels]
        if self.unit:
            ls = [f"{x} {self.unit}" for x in ls]
        shown = ", ".join(ls) if len(ls) <= 6 else ", ".join(ls[:3]) + ", ..., " + ", ".join(ls[-2:])
        return f"{len(self.values)} value{'s' if len(self.values) != 1 else ''}: {shown}"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "path": self.path, "labels": self.labels, "unit": self.unit, "group": self.group,
                "scale": self.scale}


#: The keys of each range form (docs/sweeps.md, "Values"); ``name`` and ``unit`` go with both.
STEPPED_KEYS = ("start", "stop", "step")
COUNTED_KEYS = ("from", "to", "num", "scale", "integer")


def _range_form(where: str, spec: dict[str, Any]) -> tuple[str, ...]:
    """The keys of the range form ``spec`` is written in (stepped or counted); a key of the
    other form (``scale`` with ``start``, ``from`` with ``step``) is refused, naming it."""
    stepped = [k for k in spec if k in STEPPED_KEYS]
    counted = [k for k in spec if k in COUNTED_KEYS]
    if stepped and counted:
        raise SweepError(f"{where}: {counted[0]!r} is a key of a range with a count {{ from, to, num, scale, integer }}"
                         f" and {stepped[0]!r} of a stepped range {{ start, stop, step }}; give one form (either may "
                         f"have name and unit), not both")
    form = STEPPED_KEYS if stepped else COUNTED_KEYS
    needed = form if stepped else ("from", "to", "num")
    missing = [k for k in needed if k not in spec]
    if missing:
        kind = "a stepped range" if stepped else "a range with a count"
        raise SweepError(f"{where} = {fmt(spec)}: {kind} needs {', '.join(needed[:-1])} and {needed[-1]}; "
                         f"{', '.join(missing)} missing")
    return form


def _finite(where: str, spec: dict[str, Any], key: str) -> Union[int, float]:
    """``spec[key]``, a finite number, or a SweepError naming ``where.key``."""
    v = spec[key]
    if not _is_num(v) or not math.isfinite(v):
        raise SweepError(f"{where}.{key} = {fmt(v)}: must be a finite number")
    return v


def _range_values(where: str, spec: dict[str, Any]) -> list[Union[int, float]]:
    form = _range_form(where, spec)
    values = _stepped_values(where, spec) if form == STEPPED_KEYS else _counted_values(where, spec)
    if not all(math.isfinite(v) for v in values):
        raise SweepError(f"{where} = {fmt(spec)}: the values overflow (beyond +-1.8e308); use a smaller range")
    return values


def _stepped_values(where: str, spec: dict[str, Any]) -> list[Union[int, float]]:
    start, stop, step = (_finite(where, spec, k) for k in STEPPED_KEYS)
    if step == 0:
        raise SweepError(f"{where}.step = 0: must not be zero (a positive step counts up from start to stop, "
                         f"a negative one down)")
    if (stop - start) * step < 0:
        raise SweepError(f"{where}: step = {_num(step)} never reaches stop = {_num(stop)} from start = {_num(start)}; "
                         f"use a {'negative' if step > 0 else 'positive'} step")
    steps = (stop - start) / step
    if not math.isfinite(steps) or steps + 1 > MAX_POINTS:
        raise SweepError(f"{where} = {fmt(spec)}: more than {MAX_POINTS} values; use a bigger step")
    n = int(math.floor(steps + 1e-9)) + 1
    if all(isinstance(spec[k], int) for k in STEPPED_KEYS):
        return [start + i * step for i in range(n)]
    return [float(f"{start + i * step:.12g}") for i in range(n)]


def _counted_values(where: str, spec: dict[str, Any]) -> list[Union[int, float]]:
    a, b = _finite(where, spec, "from"), _finite(where, spec, "to")
    num = spec["num"]
    if not isinstance(num, int) or isinstance(num, bool) or num < 1 or num > MAX_POINTS:
        raise SweepError(f"{where}.num = {fmt(num)}: must be a whole number from 1 to {MAX_POINTS}")
    scale = spec.get("scale", "linear")
    if scale not in ("linear", "lin", "log"):
        raise SweepError(f"{where}.scale = {fmt(scale)}: allowed: \"linear\" (default) or \"log\"")
    if scale == "log" and (a <= 0 or b <= 0):
        raise SweepError(f"{where}: scale = \"log\" needs from and to > 0 (from = {_num(a)}, to = {_num(b)})")
    out: list[Union[int, float]] = []
    for i in range(num):
        f = i / (num - 1) if num > 1 else 0.0
        v = a + (b - a) * f if scale != "log" else a * (b / a) ** f
        if i == num - 1 and num > 1:
            v = b
        out.append(float(f"{v:.12g}"))
    integer = spec.get("integer", False)
    if not isinstance(integer, bool):
        raise SweepError(f"{where}.integer = {fmt(integer)}: must be true or false")
    if not all(math.isfinite(v) for v in out):
        return out  # refused by the caller
    if integer or (isinstance(a, int) and isinstance(b, int) and all(float(v).is_integer() for v in out)):
        ints = [int(round(v)) for v in out]
        if len(set(ints)) != len(ints):
            raise SweepError(f"{where} = {fmt(spec)}: rounded to whole numbers the values repeat ({fmt(ints)}); "
                             f"use a smaller num or a wider range")
        return ints
    return out


def _parse_parameter(where: str, path: str, spec: Any) -> Parameter:
    unit = None
    labels = None
    name = path
    if isinstance(spec, list):
        values = spec
    elif isinstance(spec, dict):
        unknown = [k for k in spec if k not in _SPEC_KEYS]
        if unknown:
            raise SweepError(f"{where}: unknown key {unknown[0]!r}{_close(unknown[0], list(_SPEC_KEYS))}; "
                             f"allowed: values, labels, name, start, stop, step, from, to, num, scale, integer, unit")
        if "name" in spec:
            if not isinstance(spec["name"], str) or not spec["name"].strip():
                raise SweepError(f"{where}.name = {fmt(spec['name'])}: must be a non-empty string")
            name = spec["name"]
        if "values" in spec:
            extra = [k for k in spec if k not in ("values", "labels", "name", "unit")]
            if extra:
                raise SweepError(f"{where}: give either values = [...] or a range, not both ({extra[0]} is a range key)")
            values = spec["values"]
            if not isinstance(values, list):
                raise SweepError(f"{where}.values = {fmt(values)}: must be a list")
            labels = spec.get("labels")
            if "unit" in spec:  # { values = [500, 1000], unit = "cells" }: numbers in that unit
                unit = spec["unit"]
                if not isinstance(unit, str) or not unit.strip():
                    raise SweepError(f"{where}.unit = {fmt(unit)}: must be a unit such as \"ms\", \"cells\" or \"Mbps\"")
                bad = [v for v in values if not isinstance(v, (int, float)) or isinstance(v, bool)]
                if bad:
                    raise SweepError(f"{where}.values: with unit = {fmt(unit)} the values are plain numbers, "
                                     f"not {fmt(bad[0])}")
                labels = labels if labels is not None else list(values)
                values = [f"{_num(v)} {unit}" for v in values]
            if labels is not None:
                if not isinstance(labels, list) or len(labels) != len(values):
                    raise SweepError(f"{where}.labels = {fmt(labels)}: must be a list as long as values "
                                     f"({len(values)})")
                if any(not isinstance(x, (str, int, float)) or isinstance(x, bool) for x in labels):
                    raise SweepError(f"{where}.labels = {fmt(labels)}: labels are strings or numbers")
        else:
            if "labels" in spec:
                raise SweepError(f"{where}.labels: labels go with values = [...], not with a range")
            nums = _range_values(where, spec)
            unit = spec.get("unit")
            if unit is not None:
                if not isinstance(unit, str) or not unit.strip():
                    raise SweepError(f"{where}.unit = {fmt(unit)}: must be a unit such as \"ms\", \"cells\" or \"Mbps\"")
                values = [f"{_num(v)} {unit}" for v in nums]
            else:
                values = nums
            labels = nums
    else:
        raise SweepError(f"{where} = {fmt(spec)}: give a list of values, {{ values = [...], labels = [...] }}, "
                         f"a range {{ start, stop, step }} or {{ from, to, num, scale = \"log\" }}")
    if not values:
        raise SweepError(f"{where}: the list of values is empty; give at least one value")
    seen: dict[str, int] = {}
    for i, v in enumerate(values):
        if v is None:
            raise SweepError(f"{where}: value {i} is empty")
        c = canonical(v)
        if c in seen:
            raise SweepError(f"{where}: the value {fmt(v)} is given twice (positions {seen[c]} and {i}); "
                             f"every value of a parameter must differ")
        seen[c] = i
    if labels is None:
        labels = [v if isinstance(v, (str, int, float)) and not isinstance(v, bool) else fmt(v) for v in values]
    if any(isinstance(x, str) for x in labels) and any(not isinstance(x, str) for x in labels):
        labels = [x if isinstance(x, str) else fmt(x) for x in labels]  # one type per column
    if len(set(map(canonical, labels))) != len(labels):
        raise SweepError(f"{where}.labels = {fmt(labels)}: labels must differ from each other")
    scale = "log" if isinstance(spec, dict) and spec.get("scale") == "log" else "linear"
    return Parameter(name=name, path=path, values=list(values), labels=list(labels), unit=unit, scale=scale)


def _flatten(where: str, table: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, str, Any]]:
    """(path, where, spec) for every parameter of a table; plain tables (TOML dotted keys
    written without quotes) hold more parameters."""
    for k, v in table.items():
        path = f"{prefix}.{k}" if prefix else k
        w = f"{where}.{_key(path)}"
        if isinstance(v, dict) and not (set(v) & set(_SPEC_KEYS)) and _is_table(path):
            if not v:
                raise SweepError(f"{w} = {{}}: give a list of values or a range")
            yield from _flatten(where, v, path)
        else:
            yield path, w, v


def _is_table(path: str) -> bool:
    """Whether a path names a table of the scenario (whose keys are more paths), rather than
    a value; ``args`` and builder arguments that are dicts count as tables."""
    parts = split_path(path)
    if parts[0] == "args":
        return True
    schema = _schema()
    defs = schema.get("$defs", schema.get("definitions", {}))
    node: dict[str, Any] = schema
    for part in parts:
        vs = list(_variants(node, defs))
        if isinstance(part, int):
            node = next((v["items"] for v in vs if isinstance(v.get("items"), dict)), None)
        else:
            props: dict[str, Any] = {}
            for v in vs:
                props.update(v.get("properties", {}))
            node = props.get(part)
        if node is None:
            return False
    return any(v.get("properties") for v in _variants(node, defs))


@dataclass
class Axis:
    """One dimension of the grid: one parameter, or a zipped group varied together."""

    params: list[Parameter]

    def __len__(self) -> int:
        return len(self.params[0].values)


# --------------------------------------------------------------------------- points and the spec


@dataclass
class Point:
    """One run of a sweep: a combination of parameter values and a seed.

    The resolved scenario is kept as its canonical JSON text (what the id hashes and what
    the engine is given); :attr:`scenario` parses it."""

    point_id: str
    seed: int
    params: dict[str, Any]  # column name -> label
    scenario_json: Optional[str]  # None when the scenario could not be built
    error: Optional[str] = None  # why it could not be built
    index: int = 0  # position in the grid

    @property
    def scenario(self) -> Optional[dict[str, Any]]:
        return None if self.scenario_json is None else json.loads(self.scenario_json)


def _builders() -> dict[str, Callable[..., dict[str, Any]]]:
    from .catalog import builders

    return builders()


@dataclass
class SweepSpec:
    """A parsed, checked sweep file."""

    name: str
    description: str
    seeds: list[int]
    axes: list[Axis]
    base_scenario: Optional[dict[str, Any]] = None  # a scenario-file base, as written
    base_file: Optional[Path] = None
    topology: Optional[str] = None
    args: dict[str, Any] = field(default_factory=dict)
    sets: dict[str, Any] = field(default_factory=dict)
    source: dict[str, Any] = field(default_factory=dict)  # the sweep file as parsed
    source_text: Optional[str] = None  # the sweep file's text
    source_path: Optional[Path] = None
    point_timeout: Optional[float] = None  # [sweep] point_timeout, in seconds of wall time
    point_memory: Optional[int] = None  # [sweep] point_memory, in bytes

    @property
    def parameters(self) -> list[Parameter]:
        return [p for a in self.axes for p in a.params]

    @property
    def combinations(self) -> int:
        return math.prod(len(a) for a in self.axes) if self.axes else 1

    def __len__(self) -> int:
        return self.combinations * len(self.seeds)

    def base_description(self) -> str:
        if self.topology:
            args = ", ".join(f"{k}={fmt(v)}" for k, v in self.args.items())
            return f"{self.topology}({args})"
        if self.base_file:
            try:
                return os.path.relpath(self.base_file)
            except ValueError:  # another drive (Windows)
                return str(self.base_file)
        return "scenario given as a dict"

    def describe(self) -> str:
        """The plan, in a few lines: how many points and what varies."""
        seeds = _seeds_text(self.seeds)
        lines = [f"sweep {self.name!r}: {len(self)} point{'s' if len(self) != 1 else ''} = "
                 f"{self.combinations} parameter combination{'s' if self.combinations != 1 else ''} x "
                 f"{len(self.seeds)} seed{'s' if len(self.seeds) != 1 else ''} ({seeds})",
                 f"  base: {self.base_description()}"]
        w = max([len(p.name) for p in self.parameters] + [4])
        for a in self.axes:
            for j, p in enumerate(a.params):
                zipped = "  (zipped with " + ", ".join(q.name for q in a.params if q is not p) + ")" if len(a.params) > 1 else ""
                lines.append(f"  {p.name:<{w}}  {p.describe()}{zipped}")
        limits = describe_limits(self.point_timeout, self.point_memory)
        if limits:
            lines.append(f"  per-point limits: {limits} (from the sweep file)")
        return "\n".join(lines)

    def _base_args_scenario(self) -> dict[str, Any]:
        if self.topology:
            sc = _builders()[self.topology](**copy.deepcopy(self.args))
        else:
            sc = copy.deepcopy(self.base_scenario or {})
        merge(sc, self.sets)
        return sc

    def points(self) -> list[Point]:
        """Every point of the grid: combinations in the order the file gives them (the last
        parameter varies fastest), each with its seeds."""
        import itertools

        out: list[Point] = []
        ids: dict[str, Point] = {}
        builder = _builders()[self.topology] if self.topology else None
        combos = itertools.product(*(range(len(a)) for a in self.axes))
        for combo in combos:
            chosen = [(p, i) for a, i in zip(self.axes, combo) for p in a.params]
            labels = {p.name: p.labels[i] for p, i in chosen}
            for seed in self.seeds:
                err = None
                try:
                    if builder is not None:
                        args = copy.deepcopy(self.args)
                        for p, i in chosen:
                            if p.path.startswith("args."):
                                set_path(args, split_path(p.path)[1:], p.values[i], what="args")
                        try:
                            sc = builder(**args)
                        except (TypeError, ValueError, KeyError, IndexError) as e:
                            raise PathError(f"the {self.topology} builder refused its arguments: {e}") from None
                    else:
                        sc = copy.deepcopy(self.base_scenario or {})
                    merge(sc, self.sets)
                    for p, i in chosen:
                        if not p.path.startswith("args."):
                            set_path(sc, split_path(p.path), p.values[i])
                    sc["seed"] = seed
                    text = canonical(sc)
                    pid = hashlib.sha256(text.encode()).hexdigest()[:16]
                except PathError as e:
                    err = str(e)
                    text = None
                    pid = hashlib.sha256(canonical({"unbuildable": {"base": self.base_description(), "sets": self.sets,
                                                                     "params": {p.path: p.values[i] for p, i in chosen},
                                                                     "seed": seed}}).encode()).hexdigest()[:16]
                pt = Point(point_id=pid, seed=seed, params=labels, scenario_json=text, error=err, index=len(out))
                if pid in ids:
                    other = ids[pid]
                    raise SweepError(f"two points give the same scenario: {_point_text(other)} and {_point_text(pt)}; "
                                     f"a parameter has no effect on the scenario (check the paths in [sweep.parameters])")
                ids[pid] = pt
                out.append(pt)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "seeds": self.seeds,
                "base": self.base_description(), "parameters": [p.to_json() for p in self.parameters],
                "combinations": self.combinations, "total_points": len(self)}


def _point_text(p: Point) -> str:
    return "(" + ", ".join(f"{k} = {fmt(v)}" for k, v in p.params.items()) + f", seed {p.seed})"


def _seeds_text(seeds: list[int]) -> str:
    if len(seeds) > 1 and seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"seeds {seeds[0]}-{seeds[-1]}"
    return ("seed " if len(seeds) == 1 else "seeds ") + ", ".join(map(str, seeds[:8])) + (", ..." if len(seeds) > 8 else "")


# --------------------------------------------------------------------------- reading a sweep file

SweepLike = Union[str, os.PathLike, dict]

#: Top-level keys of a scenario, none of which a sweep file has.
SCENARIO_KEYS = ("node", "link", "connection")


def is_sweep_data(d: Any) -> bool:
    """A sweep file's or dict's top level: a [sweep] or [base] table."""
    return isinstance(d, dict) and ("sweep" in d or "base" in d)


def is_scenario_data(d: Any) -> bool:
    """A scenario's top level: nodes, links or connections, and no [sweep] or [base] table."""
    return isinstance(d, dict) and not is_sweep_data(d) and any(k in d for k in SCENARIO_KEYS)


def refuse_sweep_as_base(value: Any, path: Optional[Path], base: Any) -> None:
    """``base.scenario`` naming a sweep file (this one, say), or a dict that is a sweep,
    whose every point then failed with "base: unknown field `base`", is one SweepError."""
    if is_sweep_data(base):
        what = f"{str(path)!r} is a sweep file" if path is not None else "the dict given is a sweep"
        raise SweepError(f"base.scenario = {_cut(fmt(value))}: {what} (it has a [sweep] or [base] "
                         f"table), not a scenario; give a scenario file (nodes, links, connections)")


def refuse_scenario_as_sweep(raw: dict[str, Any], path: Optional[Path]) -> None:
    """A scenario given where a sweep goes (nodes, links or connections, and no [sweep] or
    [base] table) is one SweepError saying so, not "unknown key 'seed' at the top"."""
    if not is_scenario_data(raw):
        return
    if path is None:
        raise SweepError('the dict given is a scenario, not a sweep: a sweep names it under "base": {"scenario": '
                         '...} and varies it under "sweep": {"parameters": {...}}; see docs/sweeps.md')
    raise SweepError(f"{str(path)!r} is a scenario, not a sweep file: a sweep file names it under [base] "
                     f"scenario = ... and varies it under [sweep]; see docs/sweeps.md")


def _read_sweep(sweep: SweepLike, base_dir: Union[str, os.PathLike, None]
                ) -> tuple[dict[str, Any], Optional[str], Optional[Path], Path]:
    """A sweep as parsed (NumPy values as Python's), the text of its file, the file, and
    the folder its relative paths start from."""
    from .scenario import is_json_text, parse_json, utf8_text

    if isinstance(sweep, dict):
        return plain(sweep), None, None, Path(base_dir) if base_dir is not None else Path.cwd()
    if not isinstance(sweep, (str, os.PathLike)):
        raise TypeError(f"a sweep is a path to a sweep file (TOML or JSON) or a dict, not {type(sweep).__name__}")
    path = Path(sweep)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(f"cannot read sweep file {str(path)!r}: no such file") from None
    except IsADirectoryError:
        raise IsADirectoryError(f"cannot read sweep file {str(path)!r}: it is a directory") from None
    except OSError as e:
        raise FileNotFoundError(f"cannot read sweep file {str(path)!r}: {e.strerror}") from None
    text = utf8_text(data, f"sweep file {str(path)!r}", SweepError)
    if is_json_text(text):  # a JSON sweep (an object), as the store writes for a sweep given as a dict
        raw = parse_json(text, lambda m: SweepError(f"sweep file {str(path)!r}: {m}"))
    else:
        try:
            raw = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise SweepError(f"sweep file {str(path)!r} is not valid TOML: {e}") from None
    return raw, text, path, Path(base_dir) if base_dir is not None else path.resolve().parent


def _base_table(raw: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The ``[base]`` table of a sweep, checked, with its ``set`` and ``args`` tables."""
    base = raw.get("base")
    if not isinstance(base, dict):
        raise SweepError("[base] is missing: give the base scenario with [base] scenario = \"file.toml\" "
                         "(relative to the sweep file) or [base] topology = \"n_source\" with [base.args]"
                         if base is None else f"base = {_cut(fmt(base))}: must be a table ([base])")
    unknown = [k for k in base if k not in _BASE_KEYS]
    if unknown:
        raise SweepError(f"base.{unknown[0]}: unknown key{_close(unknown[0], list(_BASE_KEYS))}; "
                         f"allowed: scenario, topology, args, set")
    if ("scenario" in base) == ("topology" in base):
        raise SweepError("[base]: give either scenario = \"file.toml\" or topology = \"n_source\", not both"
                         if "scenario" in base else
                         "[base]: give the base scenario: scenario = \"file.toml\" (relative to the sweep file) or "
                         "topology = \"n_source\" with [base.args]")
    sets = base.get("set", {})
    if not isinstance(sets, dict):
        raise SweepError(f"base.set = {_cut(fmt(sets))}: must be a table of scenario keys and values")
    args = base.get("args", {})
    if not isinstance(args, dict):
        raise SweepError(f"base.args = {_cut(fmt(args))}: must be a table of builder arguments")
    return base, sets, args


def _load_base_scenario(spec: SweepSpec, f: Any, args: dict[str, Any], here: Path) -> None:
    """``[base] scenario``: a scenario file's path (relative to ``here``), or from Python a
    scenario dict; sets ``spec.base_scenario`` (and ``spec.base_file``)."""
    shown = _cut(fmt(f))
    if args:
        raise SweepError(f"base.args: builder arguments go with base.topology; with base.scenario = {shown}, "
                         f"change the scenario with [base.set] or [sweep.parameters]")
    if isinstance(f, dict) and f:
        refuse_sweep_as_base(f, None, f)
        spec.base_scenario = f
        return
    if isinstance(f, os.PathLike):  # a pathlib.Path, from Python
        f = os.fspath(f)
    if not isinstance(f, str) or not f:
        raise SweepError(f"base.scenario = {shown}: must be the path of a scenario file (TOML or JSON) or, "
                         f"from Python, a scenario dict (nodes, links, connections)")
    spec.base_scenario, spec.base_file = _read_base_file(f, here)


def _read_base_file(f: str, here: Path) -> tuple[dict[str, Any], Path]:
    """The scenario file ``f`` names (relative to ``here``) as a dict, and its path. When it
    cannot be read and ``here`` is a results store that keeps a copy of the base scenario
    (its sweep.toml names the base as the original sweep file did), the copy is read."""
    from .scenario import utf8_text

    shown = _cut(fmt(f))
    fp = Path(f) if Path(f).is_absolute() else here / f
    try:
        sdata = fp.read_bytes()
    except OSError as e:
        from .store import stored_base_copy

        kept = stored_base_copy(here, f)
        if kept is None:
            raise SweepError(f"base.scenario = {shown}: cannot read {str(fp)!r}: {e.strerror or type(e).__name__} "
                             f"(paths are relative to the sweep file's directory, {str(here)!r})") from None
        copy, original = kept
        scenario = _parse_base_text(utf8_text(copy.read_bytes(), f"base.scenario = {shown}: {str(copy)!r}", SweepError),
                                    shown, copy)
        refuse_sweep_as_base(f, copy, scenario)
        return scenario, original  # the manifest keeps the original file's path
    scenario = _parse_base_text(utf8_text(sdata, f"base.scenario = {shown}: {str(fp)!r}", SweepError), shown, fp)
    refuse_sweep_as_base(f, fp, scenario)
    return scenario, fp.resolve()


def _parse_base_text(stext: str, shown: str, fp: Path) -> dict[str, Any]:
    """A base scenario's text (of the file ``fp``) as a dict: JSON (an object, as atmsim run
    takes) or TOML, else a SweepError naming ``base.scenario = shown``."""
    from .scenario import is_json_text, parse_json

    if is_json_text(stext):
        return parse_json(stext, lambda m: SweepError(f"base.scenario = {shown}: {str(fp)!r}: {m}"))
    try:
        return tomllib.loads(stext)
    except tomllib.TOMLDecodeError as e:
        raise SweepError(f"base.scenario = {shown}: {str(fp)!r} is not valid TOML: {e}") from None


def _load_topology(spec: SweepSpec, topo: Any, args: dict[str, Any]) -> None:
    """``[base] topology``: a builder of :mod:`atmsim.topology` and its ``args``, checked."""
    builders = _builders()
    if not isinstance(topo, str) or topo not in builders:
        raise SweepError(f"base.topology = {_cut(fmt(topo))}: no such builder{_close(str(topo), sorted(builders))}; "
                         f"available: {', '.join(sorted(builders))}")
    sig = inspect.signature(builders[topo])
    allowed = [p for p in sig.parameters]
    for k in args:
        if k not in sig.parameters:
            raise SweepError(f"base.args.{k}: {topo}() has no argument {k!r}{_close(k, allowed)}; "
                             f"allowed: {', '.join(allowed)}")
    spec.topology, spec.args = topo, args


def load_sweep_file(sweep: SweepLike, base_dir: Union[str, os.PathLike, None] = None) -> SweepSpec:
    """Reads and checks a sweep: a path to a sweep file (TOML, or JSON as the results store
    writes for a sweep given as a dict), or a dict with the same layout (relative paths in
    it are taken from ``base_dir``, default the current directory). NumPy values count as
    their Python values; from Python, ``base.scenario`` may be a scenario dict.

    Raises :class:`SweepError` (one message naming the key, the value and what is allowed),
    or :class:`atmsim.ScenarioError` when the base scenario file itself is malformed.
    """
    raw, text, path, here = _read_sweep(sweep, base_dir)
    refuse_scenario_as_sweep(raw, path)
    unknown = [k for k in raw if k not in _TOP_KEYS]
    if unknown:
        raise SweepError(f"unknown key {unknown[0]!r} at the top of the sweep file{_close(unknown[0], list(_TOP_KEYS))}; "
                         f"allowed: name, description, [base], [sweep]")
    name = raw.get("name", path.stem if path else "sweep")
    if not isinstance(name, str) or not name.strip():
        raise SweepError(f"name = {_cut(fmt(name))}: must be a non-empty string")
    description = raw.get("description", "")
    if not isinstance(description, str):
        raise SweepError(f"description = {_cut(fmt(description))}: must be a string")

    base, sets, args = _base_table(raw)
    spec = SweepSpec(name=name, description=description, seeds=[], axes=[], sets=sets, source=raw, source_text=text,
                     source_path=path)
    if "scenario" in base:
        _load_base_scenario(spec, base["scenario"], args, here)
    else:
        _load_topology(spec, base["topology"], args)
    try:
        base_sc = spec._base_args_scenario()
    except PathError as e:
        raise SweepError(f"base.set: {e}") from None
    except (TypeError, ValueError) as e:
        raise SweepError(f"base.args: {spec.topology}() refused them: {e}") from None
    for p in _merge_paths(sets, base_sc):
        check_scenario_path(p, base_sc, f"base.set.{_key(p)}")
    _load_sweep_table(spec, raw.get("sweep", {}), base_sc)
    return spec


def _load_sweep_table(spec: SweepSpec, sw: Any, base_sc: dict[str, Any]) -> None:
    """``[sweep]``: the limits, the seeds and the axes of the grid, checked, into ``spec``."""
    if not isinstance(sw, dict):
        raise SweepError(f"sweep = {_cut(fmt(sw))}: must be a table ([sweep])")
    unknown = [k for k in sw if k not in _SWEEP_KEYS]
    if unknown:
        raise SweepError(f"sweep.{unknown[0]}: unknown key{_close(unknown[0], list(_SWEEP_KEYS))}; "
                         f"allowed: seeds, point_timeout, point_memory, parameters, [[sweep.zip]]")
    spec.point_timeout = parse_point_timeout(sw["point_timeout"], "sweep.point_timeout") if "point_timeout" in sw else None
    spec.point_memory = parse_point_memory(sw["point_memory"], "sweep.point_memory") if "point_memory" in sw else None
    spec.seeds = parse_seeds(sw.get("seeds", 1), base_sc.get("seed", 0))

    params = sw.get("parameters", {})
    if not isinstance(params, dict):
        raise SweepError(f"sweep.parameters = {_cut(fmt(params))}: must be a table of \"path\" = [values] "
                         f"([sweep.parameters])")
    zips = sw.get("zip", [])
    if isinstance(zips, dict):
        zips = [zips]
    if not isinstance(zips, list) or any(not isinstance(z, dict) for z in zips):
        raise SweepError(f"sweep.zip = {_cut(fmt(zips))}: must be tables ([[sweep.zip]]), each \"path\" = [values] "
                         f"of one length")
    axes = [Axis([_checked_parameter(spec, base_sc, path, where, v)])
            for path, where, v in _flatten("sweep.parameters", params)]
    for gi, z in enumerate(zips):
        axes.append(_zipped_axis(spec, base_sc, gi, z))
    _refuse_repeats(axes)
    spec.axes = axes
    if len(spec) > MAX_POINTS:
        raise SweepError(f"the sweep holds {len(spec)} points ({spec.combinations} combinations x {len(spec.seeds)} "
                         f"seeds), more than {MAX_POINTS}; vary fewer values")


def _checked_parameter(spec: SweepSpec, base_sc: dict[str, Any], path: str, where: str, spec_v: Any) -> Parameter:
    """One parameter of ``[sweep.parameters]`` or a zipped group: its path checked against
    the builder's arguments (``args.*``) or the scenario schema and base, then its values."""
    parts = split_path(path)
    if any(p == "" for p in path.split(".")):
        raise SweepError(f"{where}: {path!r} is not a dotted path such as \"defaults.switch_buffer\" or \"link.0.delay\"")
    if parts[0] == "args":
        if not spec.topology:
            raise SweepError(f"{where}: args.* paths set topology builder arguments, and this sweep's base is "
                             f"a scenario file; vary a scenario key instead (e.g. \"defaults.switch_buffer\")")
        if len(parts) < 2 or not isinstance(parts[1], str):
            raise SweepError(f"{where}: give the argument after args., e.g. args.n")
        sig = inspect.signature(_builders()[spec.topology])
        if parts[1] not in sig.parameters:
            allowed = list(sig.parameters)
            raise SweepError(f"{where}: {spec.topology}() has no argument {parts[1]!r}{_close(str(parts[1]), allowed)}; "
                             f"allowed: {', '.join(allowed)}")
        if parts[1] == "seed":
            raise SweepError(f"{where}: the seed is not a parameter; set the seeds with [sweep] seeds = N or a list")
    else:
        check_scenario_path(path, base_sc, where)
    p = _parse_parameter(where, path, spec_v)
    if p.name in reserved_columns():
        raise SweepError(f"{where}: the name {p.name!r} is taken by a results column; give another with "
                         f"{{ values = [...], name = \"...\" }}")
    return p


def _zipped_axis(spec: SweepSpec, base_sc: dict[str, Any], gi: int, z: dict[str, Any]) -> Axis:
    """``[[sweep.zip]]`` number ``gi``: its parameters, as many values each."""
    group = [_checked_parameter(spec, base_sc, path, where, v) for path, where, v in _flatten(f"sweep.zip[{gi}]", z)]
    if not group:
        raise SweepError(f"sweep.zip[{gi}]: empty; give two or more \"path\" = [values] of one length")
    lens = {p.name: len(p.values) for p in group}
    if len(set(lens.values())) > 1:
        raise SweepError(f"sweep.zip[{gi}]: zipped parameters vary together, so they need as many values each; "
                         f"got " + ", ".join(f"{k}: {n}" for k, n in lens.items()))
    for p in group:
        p.group = gi
    return Axis(group)


def _refuse_repeats(axes: list[Axis]) -> None:
    """A path varied twice, or a column name given twice, is one SweepError."""
    names: dict[str, str] = {}
    paths: dict[str, str] = {}
    for p in (p for a in axes for p in a.params):
        if p.path in paths:
            raise SweepError(f"parameter {p.path!r} is varied twice (in [sweep.parameters] and a [[sweep.zip]], or in "
                             f"two groups); vary each path once")
        if p.name in names:
            raise SweepError(f"parameter name {p.name!r} is used twice; give one of them another name "
                             f"with {{ values = [...], name = \"...\" }}")
        names[p.name] = p.path
        paths[p.path] = p.name


# --------------------------------------------------------------------------- running a sweep


def _limits(spec: SweepSpec, backend: str, point_timeout: Optional[float],
            point_memory: Optional[int]) -> tuple[Optional[float], Optional[int]]:
    """The per-point limits of a run: those given to :func:`sweep` (the CLI's options), else
    the sweep file's ``[sweep] point_timeout`` / ``point_memory``."""
    if point_memory is None and spec.point_memory is not None and backend != "local":
        raise SweepError(f"sweep.point_memory = {spec.point_memory / 2**20:g} MiB: a per-point "
                         f"memory limit needs the local backend (backend is {backend!r}); remove it from the sweep "
                         f"file to run on {backend!r}")
    return (point_timeout if point_timeout is not None else spec.point_timeout,
            point_memory if point_memory is not None else spec.point_memory)


def sweep(
    sweep: Union[SweepLike, SweepSpec],
    out: Union[str, os.PathLike, None] = None,
    *,
    backend: str = "local",
    workers: Optional[int] = None,
    address: Optional[str] = None,
    progress: bool = True,
    rerun_failed: bool = False,
    base_dir: Union[str, os.PathLike, None] = None,
    log: Optional[Callable[[str], None]] = None,
    point_timeout: Optional[float] = None,
    point_memory: Optional[int] = None,
):
    """Runs a sweep and returns its results (:class:`atmsim.store.SweepResults`: ``.df`` is
    a DataFrame with one row per point: parameters, seed, status and summary metrics).

    Points already in the store at ``out`` (default ``results/sweeps/NAME``) are not run
    again, so an interrupted sweep resumes where it stopped and a finished one returns at
    once. ``backend`` is ``"local"`` (worker processes, default), ``"threads"`` or ``"ray"``
    (``address`` of an existing cluster, or a local Ray instance); see
    :mod:`atmsim.parallel`. A point that fails is recorded with its error; the others go on;
    when every point failed, a UserWarning says so (how many, and the first error).
    ``rerun_failed`` runs failed points again. ``log`` receives the plan and progress lines
    (default: stderr when ``progress`` is true). ``point_timeout`` (seconds) and
    ``point_memory`` (bytes, local backend) limit each point: a point past either is
    recorded as failed with the reason (``PointTimeout``, ``PointMemory``) and the sweep
    goes on. They override the sweep file's ``[sweep] point_timeout`` and ``point_memory``.
    Every point in the store is verified first; one whose files do not read back is run
    again. Ctrl-C stops the sweep on every backend (the runs in progress too), keeping the
    points that finished.
    """
    from . import parallel
    from .result import path_argument
    from .store import SweepStore

    from . import _core

    out = path_argument(out, "out", "a directory path for the results store") if out is not None else None
    spec = sweep if isinstance(sweep, SweepSpec) else load_sweep_file(sweep, base_dir=base_dir)
    _core.check_environment()  # a bad engine setting: one error before the store is made
    parallel.check_backend(backend, workers, address)
    parallel.check_limits(backend, point_timeout, point_memory)
    point_timeout, point_memory = _limits(spec, backend, point_timeout, point_memory)
    if log is None:
        log = (lambda s: print(s, file=sys.stderr, flush=True)) if progress else (lambda s: None)
    out = out if out is not None else Path("results") / "sweeps" / spec.name
    points = spec.points()
    with SweepStore.create(out, spec, points) as store:
        done = store.finished_ids()
        failed = store.failed_ids() if rerun_failed else set()
        todo = [p for p in points if p.point_id not in done or p.point_id in failed]
        stale = store.stale_ids()
        log(spec.describe())
        for line in getattr(store, "healed", []):
            log(f"  {line}")
        if stale:
            log(f"  {len(stale)} point{'s' if len(stale) != 1 else ''} in {out} are not in this sweep any more "
                f"(kept, not shown in results)")
        if not todo:
            log(f"all {len(points)} points already done in {out}; nothing to run")
        else:
            where = parallel.describe_backend(backend, workers, address, len(todo))
            already = len(points) - len(todo)
            log(f"{len(todo)} to run" + (f" ({already} already done)" if already else "") + f" {where}; results in {out}")
            unbuildable = [p for p in todo if p.scenario_json is None]
            for p in unbuildable:
                store.write_error(p, "BuildError", p.error or "the scenario could not be built")
            runnable = [p for p in todo if p.scenario_json is not None]
            by_id = {p.point_id: p for p in runnable}

            def deliver(pid: str, outcome) -> None:
                store.write_outcome(by_id[pid], outcome)

            parallel.execute(((p.point_id, p.scenario_json) for p in runnable), deliver, backend=backend,
                             workers=workers, address=address, progress=progress, desc=spec.name,
                             point_timeout=point_timeout, point_memory=point_memory)
        results = store.finish()
    log(results.status_line())
    warn_if_all_failed(results)
    return results


class AllPointsFailedWarning(UserWarning):
    """Every point of a sweep failed (:func:`warn_if_all_failed`); the CLI says so in its
    own summary of failed points and exits 1."""


def warn_if_all_failed(results) -> None:
    """A UserWarning when every point of a sweep failed (with ``progress=False`` nothing
    else would say so): how many, and the first error, in one line."""
    df = results.df
    if not len(df) or (df["status"] == "ok").any():
        return
    first = df.iloc[0]
    error = " ".join(str(first.get("error") or first.get("error_type") or "no message").split())
    static = first.get("error_type") in ("ScenarioError", "BuildError")  # what --dry-run finds
    import warnings

    warnings.warn(f"sweep {results.name!r}: all {len(df)} point{'s' if len(df) != 1 else ''} failed; the first "
                  f"error: {_cut(error, 300)} (res.failed lists them"
                  + ("; atmsim sweep FILE --dry-run checks every point's scenario without running it)" if static
                     else ")"), AllPointsFailedWarning, stacklevel=3)
