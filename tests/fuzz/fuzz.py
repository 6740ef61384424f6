"""A structure-aware scenario fuzzer (issue 18, item 6).

Cases are malformed or extreme scenarios made from seed scenarios (``tests/fuzz/corpus``,
``examples/``): a value somewhere in the scenario is replaced by an extreme quantity
(``"1 ps"``, ``"1e300 Mbps"``, ``"1e12 s"``, non-finite numbers, huge integers, long strings),
a value of the wrong type, a deleted or unknown key; or the TOML text is cut or has bytes
changed. Every simulated duration is cut to at most 0.1 s unless the mutation aims at it.
The generator is seeded: a case is reproducible from its (seed, index).

Each case runs in a worker process with an address-space limit of 2 GiB above its start
and a 30 s wall-clock limit. It passes when it gets a clear error (an
:class:`atmsim.ScenarioError` of one line, naming something, at most 600 characters) or a
run whose invariants hold (the engine checks conservation and the per-port counter
identities at the end of every run, and raises otherwise) and in which nothing was clamped
silently (``oracle.py``: every quantity written is within its stated range, and the run's
duration, seed and link rates read back as written). It fails on an internal error (a
panic), any other exception, a run past the limits, a clamp, or an unclear message (more
than one line, no key, or a value echoed whole).

Usage::

    python tests/fuzz/fuzz.py --cases 3000 --seed 1          # summary counts, failures listed
    python tests/fuzz/fuzz.py --seconds 60                    # as many cases as fit
    python tests/fuzz/fuzz.py --corpus                        # only the seed corpus
    python tests/fuzz/fuzz.py --cli 50                        # also run every 50th case through the CLI
    python tests/fuzz/fuzz.py --cases 10000 --log cases.jsonl --progress 500   # a campaign
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Iterator, Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CORPUS = HERE / "corpus"
WALL_LIMIT = 30.0
MEMORY_LIMIT = 2 * 2**30
MAX_DURATION = "0.1 s"
#: A message with a word longer than this echoes a value whole (issue 18: "cut long values").
LONGEST_WORD = 120

QUANTITIES = [
    "1 ps", "0.1 ps", "0 s", "1e-12 s", "1e12 s", "1e8 s", "1.9e7 s", "18446744073709551616 ps", "-1 s",
    "1e-12 Mbps", "0 bps", "423 bps", "1e300 Mbps", "1000 Gbps", "1e400 Mbps", "nan Mbps", "inf s",
    "1e30 B", "0 B", "0.5 B", "1e10 cells", "0 cells", "-5 cells", "4294967296 cells", "1e300 %", "-1 %",
    "1e300 km", "0 km", "5", "", " ", "Mbps", "1e1e1 s", "0x10 s", "1_000 s", "exact", "random", "unlimited",
]
WRONG = [0, -1, 1.5, float("1e300"), 2**63, 2**64, -(2**63) - 1, True, [], {}, [1, "a"], {"kind": "nope"},
         "x" * 5000, "\u00e9\u263a\U0001f600", "\x00", "a\nb", "nan", None]
KEYS = ["kind", "rate", "delay", "length", "buffer", "threshold", "on", "off", "peak_rate", "interval_time",
        "timer_granularity", "segment_interval", "tcr", "pcr", "mcr", "icr", "seed", "duration", "zzz"]


def seeds(builders: bool = False) -> list[tuple[str, str]]:
    """The seed scenarios (TOML text): the corpus and the example files; with ``builders``,
    also the scenarios the topology builders and the reproductions emit (three per
    reproduction, quick versions)."""
    files = sorted(CORPUS.glob("*.toml")) + sorted((ROOT / "examples").glob("*.toml"))
    out = [(f.name, f.read_text()) for f in files]
    if builders:
        sys.path.insert(0, str(ROOT / "python"))
        from atmsim import topology
        from atmsim.experiments import EXPERIMENTS, get

        made = [("n_source", topology.n_source(3, duration="50 ms")), ("r1", topology.r1()),
                ("r2", topology.r2()), ("r3", topology.r3())]
        for k in sorted(EXPERIMENTS):
            made += [(f"{k}:{c.key}", c.scenario) for c in get(k).cases(True)[:3]]
        for name, sc in made:
            t = to_toml_text(sc)
            if t is not None:
                out.append((name, t))
    return out


_NUMBER = __import__("re").compile(r"^\s*([0-9.]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z/%µμ]+)\s*$")


def _paths(obj: Any, prefix: tuple = ()) -> Iterator[tuple]:
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, prefix + (i,))


def _get(obj: Any, path: tuple) -> Any:
    for p in path:
        obj = obj[p]
    return obj


def _cap_duration(sc: dict) -> None:
    m = sc.setdefault("measurement", {})
    if isinstance(m, dict):
        m["duration"] = MAX_DURATION
        if "warmup" in m:
            m["warmup"] = "0 s"


UNITS = ["ps", "ns", "us", "ms", "s", "min", "bps", "kbps", "Mbps", "Gbps", "cells/s", "m", "km", "B", "KB",
         "MB", "MiB", "cells", "%", "furlongs", ""]


def mutate_more(rng: random.Random, sc: dict, paths: list[tuple]) -> Optional[str]:
    """The rarer structure-aware mutations (added for the second campaign, issue 18): a
    quantity's unit swapped, a plain number scaled by 10^k, a table turned into a list (or
    a list into a table), or a list entry copied many times (renamed, so the copies are
    legal: big scenarios). Returns a description, or None when nothing applied."""
    roll = rng.random()
    if roll < 0.3:
        qs = [p for p in paths if isinstance(_get(sc, p), str) and _NUMBER.match(_get(sc, p))]
        if qs:
            path = rng.choice(qs)
            m = _NUMBER.match(_get(sc, path))
            new = f"{m.group(1)} {rng.choice(UNITS)}".strip()
            _get(sc, path[:-1])[path[-1]] = new
            return f"{'.'.join(map(str, path))} = {new!r}"
    elif roll < 0.55:
        ns = [p for p in paths if isinstance(_get(sc, p), (int, float)) and not isinstance(_get(sc, p), bool)]
        if ns:
            path = rng.choice(ns)
            v = _get(sc, path) * 10.0 ** rng.choice([-300, -12, -3, -1, 1, 3, 9, 18, 300])
            if isinstance(_get(sc, path), int) and rng.random() < 0.5 and abs(v) < 1e30:
                v = int(v)
            _get(sc, path[:-1])[path[-1]] = v
            return f"{'.'.join(map(str, path))} = {v!r}"
    elif roll < 0.7:
        path = rng.choice(paths)
        v = _get(sc, path)
        if isinstance(v, dict):
            _get(sc, path[:-1])[path[-1]] = [v]
            return f"{'.'.join(map(str, path))} made a list"
        if isinstance(v, list) and v and isinstance(v[0], dict):
            _get(sc, path[:-1])[path[-1]] = v[0]
            return f"{'.'.join(map(str, path))} made a table"
    else:
        lists = [p for p in paths if isinstance(_get(sc, p), list) and _get(sc, p) and isinstance(_get(sc, p)[0], dict)]
        if lists:
            path = rng.choice(lists)
            items = _get(sc, path)
            k = rng.choice([10, 100, 1000, 5000])
            item = rng.choice([x for x in items if isinstance(x, dict)])
            for i in range(k):
                c = copy.deepcopy(item)
                if isinstance(c.get("name"), str):
                    c["name"] = f"{c['name']}~{i}"
                items.append(c)
            return f"{'.'.join(map(str, path))}: one entry copied {k} times"
    return None


def mutate(rng: random.Random, sc: dict) -> tuple[dict, str]:
    """One structure-aware mutation of the scenario dict; returns it and a description."""
    paths = [p for p in _paths(sc) if p]
    if rng.random() < 0.2:
        what = mutate_more(rng, sc, paths)
        if what is not None:
            return sc, what
    scalable = [p for p in paths if isinstance(_get(sc, p), str) and _NUMBER.match(_get(sc, p))
                and p != ("measurement", "duration")]  # the limits are for runs of <= 0.1 s
    if scalable and rng.random() < 0.35:
        # A legal-looking value scaled by 10^k: runs that are valid but extreme (heavy).
        path = rng.choice(scalable)
        m = _NUMBER.match(_get(sc, path))
        v = float(m.group(1)) * 10.0 ** rng.randint(-9, 9)
        _get(sc, path[:-1])[path[-1]] = f"{v:g} {m.group(2)}"
        return sc, f"{'.'.join(map(str, path))} = {v:g} {m.group(2)}"
    path = rng.choice(paths)
    parent = _get(sc, path[:-1])
    roll = rng.random()
    if roll < 0.55:
        new: Any = rng.choice(QUANTITIES)
    elif roll < 0.8:
        new = copy.deepcopy(rng.choice(WRONG))
    elif roll < 0.9:
        if isinstance(parent, dict):
            del parent[path[-1]]
            return sc, f"delete {'.'.join(map(str, path))}"
        new = copy.deepcopy(rng.choice(WRONG))
    else:
        target = parent if isinstance(parent, dict) else sc
        k = rng.choice(KEYS)
        target[k] = copy.deepcopy(rng.choice(QUANTITIES + WRONG[:8]))
        return sc, f"set {k} in {'.'.join(map(str, path[:-1]))}"
    parent[path[-1]] = new
    return sc, f"{'.'.join(map(str, path))} = {str(new)[:40]!r}"


def to_toml_text(sc: Any) -> Optional[str]:
    """TOML text of a mutated dict (None when TOML cannot hold it, e.g. a None value)."""
    def val(v: Any) -> str:
        if v is None:
            raise TypeError("None")
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            if not -(2**63) <= v < 2**63:
                return str(v)  # deliberately out of TOML's range: the parser must say so
            return str(v)
        if isinstance(v, float):
            return repr(v) if v == v and abs(v) != float("inf") else ("nan" if v != v else ("inf" if v > 0 else "-inf"))
        if isinstance(v, str):
            return json.dumps(v, ensure_ascii=False)
        if isinstance(v, list):
            return "[" + ", ".join(val(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{json.dumps(str(k))} = {val(x)}" for k, x in v.items()) + " }"
        raise TypeError(type(v).__name__)

    try:
        if not isinstance(sc, dict):
            return None
        return "\n".join(f"{json.dumps(str(k))} = {val(v)}" for k, v in sc.items()) + "\n"
    except (TypeError, ValueError, RecursionError):
        return None


def byte_mutation(rng: random.Random, text: str) -> tuple[str, str]:
    """Cuts the text, or changes, doubles or deletes a few characters."""
    roll = rng.random()
    if roll < 0.4:
        i = rng.randrange(len(text))
        return text[:i], f"cut at {i}"
    chars = list(text)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(chars))
        op = rng.random()
        if op < 0.4:
            chars[i] = rng.choice('"[]{}=.,#\n0123456789e-+ ')
        elif op < 0.7:
            del chars[i]
        else:
            chars.insert(i, chars[i] * rng.randint(2, 30))
    return "".join(chars), "bytes changed"


def cases(seed: int, n: Optional[int]) -> Iterator[tuple[str, str]]:
    """``(description, toml text)`` cases, reproducible from ``seed``."""
    import tomllib

    rng = random.Random(seed)
    base = []
    for name, text in seeds(builders=True):
        try:
            base.append((name, text, tomllib.loads(text)))
        except tomllib.TOMLDecodeError:
            base.append((name, text, None))
    i = 0
    while n is None or i < n:
        name, text, parsed = rng.choice(base)
        if parsed is None or rng.random() < 0.15:
            t, what = byte_mutation(rng, text)
            yield f"{seed}:{i} {name}: {what}", t
        else:
            sc = json.loads(json.dumps(parsed))
            _cap_duration(sc)
            what = []
            for _ in range(rng.choice([1, 1, 1, 2, 3])):
                sc, w = mutate(rng, sc)
                what.append(w)
            t = to_toml_text(sc)
            if t is None:
                t, w = byte_mutation(rng, text)
                what.append(w)
            yield f"{seed}:{i} {name}: {'; '.join(what)}", t
        i += 1


# ---------------------------------------------------------------- checking one case (in the worker)


def check(text: str) -> tuple[str, str, str]:
    """Runs one case; returns ``("ok", verdict, detail)`` (verdict: error / run) or
    ``("error", kind, detail)`` for a failure of atmsim."""
    import atmsim

    try:
        r = atmsim.run(text if "\n" in text else text + "\n")
    except atmsim.ScenarioError as e:
        msg = str(e)
        if ("\n" in msg or len(msg) > 600 or not msg.strip() or (": " not in msg and "(line " not in msg)
                or max(map(len, msg.split()), default=0) > LONGEST_WORD):
            return ("error", "unclear", msg[:300])
        return ("ok", "error", msg[:300])
    except (atmsim.InternalError, atmsim.InvariantError) as e:
        return ("error", type(e).__name__, str(e)[:500])
    except (FileNotFoundError, TypeError) as e:  # text that looks like a path: a clear error too
        return ("ok", "error", f"{type(e).__name__}: {str(e)[:200]}")
    except BaseException as e:  # noqa: BLE001 - a panic surfaces as a BaseException
        return ("error", type(e).__name__, str(e)[:500])
    s = r.summary
    clamps = _clamps(text, r.raw)
    if clamps:
        return ("error", "clamp", "; ".join(clamps)[:500])
    if not s.get("conservation_ok"):
        return ("error", "conservation", json.dumps(s)[:300])
    times = (r.raw.get("timeseries") or {}).get("time_s") or []
    if any(b <= a for a, b in zip(times, times[1:])) or any(t < 0 or t > s["duration_s"] + 1e-9 for t in times):
        return ("error", "time", f"sample times not increasing within the run: {times[:5]}...")
    return ("ok", "run", f"{s['events']} events, {s['wall_seconds']:.2f} s")


def check_wire(text: str) -> tuple[str, str, str]:
    """:func:`check` for the worker: its verdict and detail as JSON (a worker hands back only
    the second item of an ``ok``)."""
    return ("ok", json.dumps(check(text)), "")


def _clamps(text: str, raw: dict) -> list[str]:
    """The silent-clamp oracle's findings for a run (see ``oracle.py``)."""
    import tomllib

    from oracle import silent_clamps

    try:
        sc = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return []  # the engine read what Python's parser does not: nothing to compare
    return silent_clamps(sc, raw)


# ---------------------------------------------------------------- the driver


class Runner:
    """Runs cases one at a time in a worker process with the memory and time limits."""

    def __init__(self):
        sys.path.insert(0, str(HERE))
        sys.path.insert(0, str(ROOT / "python"))
        from atmsim import parallel

        self.parallel = parallel
        self.limits = (None, MEMORY_LIMIT)
        self.w = None

    def run(self, text: str) -> tuple[str, str, str, float]:
        if self.w is None:
            self.w = self.parallel._Worker("fuzz:check_wire", self.limits)
        w = self.w
        fired = threading.Event()

        def kill() -> None:
            fired.set()
            w.proc.kill()

        timer = threading.Timer(WALL_LIMIT, kill)
        timer.start()
        t0 = time.monotonic()
        try:
            out = tuple(json.loads(w.run(text)[1]))
        except (OSError, EOFError, ValueError):
            code = w.proc.wait()
            tail = w.stderr_tail()
            w.close(kill=True)
            self.w = None
            if fired.is_set():
                out = ("error", "timeout", f"past {WALL_LIMIT:g} s")
            else:
                out = ("error", "crash", f"worker died ({code}): {tail}")
        finally:
            timer.cancel()
        return (*out, time.monotonic() - t0)

    def close(self) -> None:
        if self.w is not None:
            self.w.close()


def run_cli(text: str) -> Optional[str]:
    """Runs the case through ``atmsim run``; returns what is wrong with its output, or None."""
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "case.toml"
        p.write_text(text, errors="surrogatepass")
        env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
        try:
            r = subprocess.run([sys.executable, "-m", "atmsim.cli", "run", str(p)], capture_output=True, text=True,
                               timeout=WALL_LIMIT + 5, env=env, errors="replace")
        except subprocess.TimeoutExpired:
            return "the CLI ran past the limit"
        both = r.stdout + r.stderr
        for bad in ("panicked", "Traceback", "RUST_BACKTRACE"):
            if bad in both:
                return f"the CLI printed {bad!r}: {r.stderr[-300:]}"
        if r.returncode not in (0, 2, 4):
            return f"exit status {r.returncode}: {r.stderr[-300:]}"
    return None


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, help="how many generated cases (default: until --seconds)")
    ap.add_argument("--seconds", type=float, default=None, help="stop generating after this long")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--corpus", action="store_true", help="run only the seed corpus")
    ap.add_argument("--cli", type=int, default=0, metavar="N", help="also run every N-th case through the CLI")
    ap.add_argument("--json", metavar="FILE", help="write every case's verdict here")
    ap.add_argument("--log", metavar="FILE", help="append every case's verdict here as it comes (JSON lines)")
    ap.add_argument("--progress", type=int, default=0, metavar="N", help="print the counts every N cases")
    a = ap.parse_args(argv)
    if a.corpus:
        todo: Iterator[tuple[str, str]] = iter([(f"corpus {n}", t) for n, t in seeds()])
    else:
        todo = cases(a.seed, a.cases if a.cases is not None or a.seconds is not None else 200)
    runner = Runner()
    counts: dict[str, int] = {}
    failures = []
    records = []
    t0 = time.monotonic()
    slowest = 0.0
    log = open(a.log, "a", encoding="utf-8", errors="surrogatepass") if a.log else None
    try:
        for i, (what, text) in enumerate(todo):
            if a.seconds is not None and time.monotonic() - t0 > a.seconds:
                break
            status, kind, detail, wall = runner.run(text)
            slowest = max(slowest, wall)
            key = kind if status == "ok" else f"FAIL {kind}"
            if status == "ok" and a.cli and i % a.cli == 0:
                bad = run_cli(text)
                counts["cli checked"] = counts.get("cli checked", 0) + 1
                if bad:
                    status, key, detail = "error", "FAIL cli", bad
            counts[key] = counts.get(key, 0) + 1
            records.append({"case": what, "verdict": key, "detail": detail, "wall": round(wall, 3)})
            if status != "ok":
                failures.append((what, key, detail, text))
            if log is not None:
                rec = dict(records[-1], text=text if status != "ok" else None)
                log.write(json.dumps(rec, ensure_ascii=False) + "\n")
                log.flush()
            if a.progress and len(records) % a.progress == 0:
                print(f"[{time.monotonic() - t0:.0f} s] {len(records)} cases: "
                      + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), file=sys.stderr, flush=True)
    finally:
        runner.close()
        if log is not None:
            log.close()
    total = len(records)
    print(f"{total} cases in {time.monotonic() - t0:.0f} s (slowest {slowest:.1f} s): "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for what, key, detail, text in failures[:30]:
        print(f"  {key}: {what}: {detail[:200]}")
    if a.json:
        Path(a.json).write_text(json.dumps(records, indent=1))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
