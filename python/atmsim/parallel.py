"""Running many scenarios at once: on local worker processes, threads or a Ray cluster.

Every backend runs the same function on the same input: the scenario as JSON text goes to
the engine (``_core.run_json``; on the threads backend ``_core.run_json_watched``, which
runs the same events and can be stopped) and the engine's result comes back as JSON text,
or an error as plain strings. The driver turns results into DataFrames and files. The
engine is deterministic, so a scenario gives bit-identical results on every backend.

With ``columns=True`` (:func:`run_many`, the reproductions) a run comes back as one bytes
object instead (:func:`atmsim.result.pack`: a small JSON head and the time series as raw
columns), holding only the series entities its task asks to keep: a worker reduces each
run to what the caller measures, and the driver holds NumPy arrays, not decoded JSON
(issue 14, item 3).

Backends (``backend=``):

``"local"`` (default)
    Worker processes on this machine (``workers``, default all cores), each running one
    scenario at a time (``python -m atmsim._worker``: they import atmsim, never the
    caller's script). A worker that dies (killed by the OS, out of memory, an abort) fails
    only the point it was running, which is recorded as ``WorkerCrashed``, and is replaced.
    Workers ignore Ctrl-C (the driver stops them) and exit by themselves if the driver is
    killed.
``"threads"``
    Threads in this process. Lighter (no start-up, no copying): the engine releases the
    GIL, so threads run in parallel too; but a crash of one run takes the whole process.
    Ctrl-C (or an exception in ``deliver``) stops the runs in progress at their next look
    up from the simulation, about every 50 ms of wall time.
``"ray"``
    Tasks on a Ray cluster: an existing one at ``address`` (``"auto"``, ``"ray://host:10001"``,
    ``"host:6379"``), or a local Ray instance on this machine with ``workers`` CPUs when no
    address is given. atmsim must be installed on every node of the cluster.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional, Union

from tqdm import tqdm

from .catalog import BACKENDS
from .result import RunResult


class BackendError(RuntimeError):
    """A backend cannot be used (Ray missing, a cluster that does not answer, bad workers)."""


def default_workers() -> int:
    """All cores."""
    return max(1, os.cpu_count() or 1)


#: Workers per core beyond which a worker count on this machine is refused: the runs are
#: CPU-bound, so more processes only share the cores (and each holds a run's memory).
WORKERS_PER_CORE = 4


def max_workers() -> int:
    """The largest worker count a run on this machine takes (a Ray cluster: no bound here)."""
    return WORKERS_PER_CORE * default_workers()


# --------------------------------------------------------------------------- the task


@dataclass
class Outcome:
    """What one run gave: the engine's result as JSON text, or an error."""

    ok: bool
    text: Optional[str] = None  # the engine's result (JSON) when ok
    data: Optional[bytes] = None  # or, for a columns task, the packed result (atmsim.result.pack)
    error_type: str = ""  # ScenarioError, InvariantError, WorkerCrashed, ...
    error: str = ""

    @property
    def message(self) -> str:
        """The error as one line for people."""
        prefix = {"ScenarioError": "invalid scenario", "MemoryLimitError": "memory limit",
                  "EngineSettingError": "engine setting",
                  "InvariantError": "invariant violated (please report it)"}
        return f"{prefix.get(self.error_type, self.error_type)}: {self.error}"


#: The environment variables that hand the per-point limits to a local worker process.
ENV_TIMEOUT = "ATMSIM_POINT_TIMEOUT"
ENV_MEMORY = "ATMSIM_POINT_MEMORY"


class RunStopped(Exception):
    """A run stopped by its ``stop`` event (the sweep it belongs to was interrupted)."""


def _engine_run(scenario_json: str, timeout: Optional[float], stop: Optional[threading.Event],
                columns: bool = False) -> Any:
    """The engine's run of a scenario: ``_core.run_json``, or with a ``stop`` event
    ``_core.run_json_watched`` (the same events, so the same result), whose look up from
    the simulation, about every 50 ms of wall time, raises :class:`RunStopped` once
    ``stop`` is set: the run ends there."""
    from . import _core

    if stop is None:
        return _core.run_json(scenario_json, max_wall=timeout, columns=columns)

    def look(_reached: float, _duration: float) -> None:
        if stop.is_set():
            raise RunStopped("the run was stopped (the sweep was interrupted)")

    return _core.run_json_watched(scenario_json, look, max_wall=timeout, columns=columns)


def simulate(scenario_json: str, timeout: Optional[float] = None,
             stop: Optional[threading.Event] = None) -> tuple[str, str, str]:
    """Runs one scenario (JSON text). Returns ``("ok", result_json, "")`` or
    ``("error", error type, message)``: plain strings, cheap to send between processes.

    ``timeout`` (seconds; default: the ``ATMSIM_POINT_TIMEOUT`` environment variable of a
    worker process) bounds the run's wall time: a run stopped by it is a ``PointTimeout``
    error, not a result. ``stop`` (the threads backend): once set, the run stops within
    about 50 ms and :class:`RunStopped` is raised (no outcome)."""
    if timeout is None and os.environ.get(ENV_TIMEOUT):
        timeout = float(os.environ[ENV_TIMEOUT])
    try:
        text = _engine_run(scenario_json, timeout, stop)
        if timeout is not None and '"partial":' in text[:20000]:
            return ("error", "PointTimeout", f"the run passed the per-point time limit of {timeout:g} s "
                                             f"and was stopped")
        return ("ok", text, "")
    except (KeyboardInterrupt, SystemExit, RunStopped):
        raise
    except BaseException as e:  # noqa: BLE001 - a Rust panic arrives as pyo3's PanicException (a BaseException)
        return _error(e)


def _error(e: BaseException) -> tuple[str, str, str]:
    """A failed run as :func:`simulate` hands it back."""
    if isinstance(e, MemoryError):
        limit = os.environ.get(ENV_MEMORY)
        if limit:
            return ("error", "PointMemory", f"the run passed the per-point memory limit of {int(limit) / 2**20:.0f} MiB")
        return ("error", "MemoryError", "out of memory")
    return ("error", type(e).__name__, str(e) or repr(e))


def columns_task(scenario_json: str, keep: Optional[dict[str, Any]] = None,
                 figures: Optional[tuple[str, str]] = None) -> str:
    """The payload of a columns task (:func:`simulate_columns`): a line of JSON with what
    to keep of the series and, if any, the ``(experiment id, case key)`` whose figures the
    worker draws from the run; then the scenario as JSON text (which holds no raw newline)."""
    return json.dumps({"keep": keep or None, "figures": figures}) + "\n" + scenario_json


def simulate_columns(task: str, timeout: Optional[float] = None,
                     stop: Optional[threading.Event] = None) -> tuple[str, Any, str]:
    """:func:`simulate` for a :func:`columns_task`: returns ``("ok", packed bytes, "")``
    (:func:`atmsim.result.pack`, with only the series entities the task keeps) or an error
    as :func:`simulate` does; ``stop`` as for :func:`simulate`."""
    from .result import pack_selected

    header, _, scenario_json = task.partition("\n")
    what = json.loads(header)
    if timeout is None and os.environ.get(ENV_TIMEOUT):
        timeout = float(os.environ[ENV_TIMEOUT])
    try:
        head, cols = _engine_run(scenario_json, timeout, stop, columns=True)
        if timeout is not None and '"partial":' in head[:20000]:
            return ("error", "PointTimeout", f"the run passed the per-point time limit of {timeout:g} s "
                                             f"and was stopped")
        files = None
        if what.get("figures"):
            from .experiments.base import case_figures

            exp_id, key = what["figures"]
            files = case_figures(exp_id, key, RunResult.from_columns(head, cols, json.loads(scenario_json)))
        return ("ok", pack_selected(head, cols, what.get("keep"), files), "")
    except (KeyboardInterrupt, SystemExit, RunStopped):
        raise
    except BaseException as e:  # noqa: BLE001 - as in simulate
        return _error(e)


def _outcome(t: tuple[str, Any, str]) -> Outcome:
    if t[0] == "ok":
        if isinstance(t[1], bytes):
            return Outcome(True, data=t[1])
        return Outcome(True, text=t[1])
    return Outcome(False, error_type=t[1], error=t[2])


Task = tuple[str, str]  # (key, scenario as JSON text)
Limits = Optional[tuple[Optional[float], Optional[int]]]  # per-point (seconds, bytes)

#: A local worker past the time limit is killed this many seconds later (the engine
#: stops itself at the limit; this catches a point stuck outside the event loop).
KILL_GRACE = 10.0
Deliver = Callable[[str, Outcome], None]


# --------------------------------------------------------------------------- local processes


def _exit_text(code: int | None) -> str:
    import signal

    if code is None:
        return "it stopped answering"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        hint = " (the OS may have run out of memory)" if name == "SIGKILL" else ""
        return f"it was killed by {name}{hint}"
    return f"it exited with status {code}"


class _Worker:
    """One ``python -m atmsim._worker`` process and its pipes."""

    def __init__(self, fn: Optional[str], limits: "Limits" = None):
        import subprocess
        import tempfile

        # The workers import what the driver imports: this atmsim first, then the driver's path.
        paths = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
        paths += [os.path.abspath(p or os.curdir) for p in sys.path if isinstance(p, str)]
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
        env.pop(ENV_TIMEOUT, None)
        env.pop(ENV_MEMORY, None)
        if limits and limits[0]:
            env[ENV_TIMEOUT] = repr(float(limits[0]))
        if limits and limits[1]:
            env[ENV_MEMORY] = str(int(limits[1]))
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "atmsim._worker", *([fn] if fn else [])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, env=env,
            start_new_session=True,  # Ctrl-C goes to the driver, which stops the workers
        )
        if self.proc.stdout.readline() != b"ready\n":
            code = self.proc.wait()
            tail = self.stderr_tail()
            self.close()
            raise BackendError(f"cannot start a local worker process ({_exit_text(code)})" + (f": {tail}" if tail else ""))

    def stderr_tail(self, n: int = 400) -> str:
        try:
            self.err.seek(0)
            lines = [ln for ln in self.err.read().decode("utf-8", "replace").strip().splitlines() if ln.strip()]
        except (OSError, ValueError):
            return ""
        return " | ".join(lines[-3:])[-n:]

    def run(self, payload: str) -> tuple[str, Any, str]:
        data = payload.encode("utf-8")
        self.proc.stdin.write(b"%d\n" % len(data))
        self.proc.stdin.write(data)
        self.proc.stdin.flush()
        header = self.proc.stdout.readline()
        if not header:
            raise EOFError("worker closed its output")
        status, n = header.split()
        body = self.proc.stdout.read(int(n))
        if len(body) != int(n):
            raise EOFError("worker output cut short")
        if status == b"ok":
            return ("ok", body.decode("utf-8"), "")
        if status == b"bytes":
            return ("ok", body, "")
        etype, msg = json.loads(body)
        return ("error", etype, msg)

    def close(self, kill: bool = False) -> None:
        try:
            if kill:
                self.proc.kill()
            else:
                self.proc.stdin.close()
            self.proc.wait(timeout=None if kill else 5)
        except Exception:  # noqa: BLE001 - already gone, or stuck: kill it
            try:
                self.proc.kill()
                self.proc.wait(timeout=5)
            except Exception:  # noqa: BLE001
                pass
        for f in (self.proc.stdout, self.err):
            try:
                f.close()
            except Exception:  # noqa: BLE001
                pass


def _limit_outcome(limits: Limits, timed_out: bool, code: Optional[int], tail: str) -> Optional[Outcome]:
    """The failure of a worker that died past a per-point limit, or None."""
    import signal

    if timed_out and limits and limits[0]:
        return Outcome(False, error_type="PointTimeout",
                       error=f"the run passed the per-point time limit of {limits[0]:g} s and was killed")
    if limits and limits[1] and (code == -signal.SIGABRT or "memory allocation" in tail or "MemoryError" in tail):
        return Outcome(False, error_type="PointMemory",
                       error=f"the run passed the per-point memory limit of {limits[1] / 2**20:.0f} MiB")
    return None


def _run_processes(tasks: list[Task], workers: int, deliver: Deliver, fn: Optional[str] = None,
                   limits: Limits = None) -> None:
    """Runs tasks on ``workers`` worker processes, one task at a time each. A process that
    dies fails exactly the task it was running (recorded as ``WorkerCrashed``) and is
    replaced. ``fn`` ("module:function") replaces :func:`simulate` (for tests)."""
    import queue

    todo: "queue.SimpleQueue[Task]" = queue.SimpleQueue()
    for t in tasks:
        todo.put(t)
    results: "queue.SimpleQueue[Any]" = queue.SimpleQueue()
    stop = threading.Event()
    live: set[_Worker] = set()
    lock = threading.Lock()

    def start() -> _Worker:
        w = _Worker(fn, limits)
        with lock:
            live.add(w)
        if stop.is_set():
            w.close(kill=True)
            raise EOFError("stopped")
        return w

    def retire(w: _Worker, kill: bool = False) -> None:
        with lock:
            live.discard(w)
        w.close(kill=kill)

    def pump() -> None:
        w: Optional[_Worker] = None
        try:
            while not stop.is_set():
                try:
                    task = todo.get_nowait()
                except queue.Empty:
                    return
                if w is None:
                    w = start()
                timed_out = threading.Event()
                timer = None
                if limits and limits[0]:
                    def kill(w=w) -> None:
                        timed_out.set()
                        try:
                            w.proc.kill()
                        except Exception:  # noqa: BLE001
                            pass
                    timer = threading.Timer(limits[0] + KILL_GRACE, kill)
                    timer.daemon = True
                    timer.start()
                try:
                    out = _outcome(w.run(task[1]))
                except (OSError, EOFError, ValueError):
                    if stop.is_set():
                        return
                    try:
                        code = w.proc.wait(timeout=5)
                    except Exception:  # noqa: BLE001 - alive but talking nonsense
                        code = None
                    tail = w.stderr_tail()
                    retire(w, kill=True)
                    w = None
                    out = _limit_outcome(limits, timed_out.is_set(), code, tail) or Outcome(
                        False, error_type="WorkerCrashed",
                        error=f"the worker process running this point died: {_exit_text(code)}"
                              + (f"; its last words: {tail}" if tail else ""))
                finally:
                    if timer is not None:
                        timer.cancel()
                results.put((task[0], out))
        except BaseException as e:  # noqa: BLE001 - handed to the driver thread
            results.put(("", e))
        finally:
            if w is not None:
                retire(w, kill=stop.is_set())
            results.put(None)

    threads = [threading.Thread(target=pump, daemon=True, name=f"atmsim-worker-{i}") for i in range(workers)]
    for t in threads:
        t.start()
    running = len(threads)
    try:
        while running:
            try:
                item = results.get(timeout=0.2)
            except queue.Empty:
                continue
            if item is None:
                running -= 1
            elif isinstance(item[1], BaseException):
                raise item[1]
            else:
                deliver(*item)
    except BaseException:
        stop.set()
        with lock:
            doomed = list(live)
        for w in doomed:
            try:
                w.proc.kill()
            except Exception:  # noqa: BLE001
                pass
        for t in threads:
            t.join(timeout=10)
        raise


# --------------------------------------------------------------------------- threads


#: How long the driver thread of the threads backend waits for a run at a time: it then
#: looks for an interrupt (``_thread.interrupt_main`` wakes no blocked wait).
THREADS_POLL = 0.1


def _run_threads(tasks: list[Task], workers: int, deliver: Deliver, timeout: Optional[float] = None,
                 fn: Callable[..., tuple[str, Any, str]] = simulate) -> None:
    """Runs tasks on ``workers`` threads; ``fn(payload, timeout, stop)`` runs one. On
    Ctrl-C (or an exception raised by ``deliver``) ``stop`` is set: nothing new starts, and
    the runs in progress stop at their next look up from the simulation (about every 50 ms)
    and are not delivered."""
    todo = deque(tasks)
    stop = threading.Event()
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="atmsim")
    running: dict[Future, Task] = {}
    try:
        while todo or running:
            while todo and len(running) < workers:
                task = todo.popleft()
                running[pool.submit(fn, task[1], timeout, stop)] = task
            done, _ = wait(running, timeout=THREADS_POLL, return_when=FIRST_COMPLETED)
            for fut in done:
                task = running.pop(fut)
                deliver(task[0], _outcome(fut.result()))
    except BaseException:
        stop.set()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


# --------------------------------------------------------------------------- Ray


def _import_ray():
    try:
        import ray  # noqa: F401
    except ImportError:
        raise BackendError("the ray backend needs the 'ray' package, which is not installed; "
                           "install it with: pip install 'ray>=2.9' (or pip install 'atmsim[ray]')") from None
    return ray


@dataclass
class RayInfo:
    """How the Ray backend connected: seconds to start or join, CPUs, whether it started Ray."""

    started_local: bool
    connect_seconds: float
    cpus: float
    address: Optional[str]


#: The last Ray connection made by :func:`execute` (for reports and measurements).
last_ray_info: Optional[RayInfo] = None


#: The forms of a Ray address, for messages.
ADDRESS_FORMS = "host:port (e.g. 10.0.0.5:6379), auto, or ray://host:10001"


def _check_address_form(address: Optional[str]) -> Optional[tuple[str, int]]:
    """Refuses an address Ray cannot join: an HTTP(S) one (a dashboard's or the Jobs API's,
    on which Ray's own message breaks off mid-sentence and blames RAY_ADDRESS) or a
    "host:port" whose port is not a number. Returns (host, port) for "host:port"; None for
    "auto", "ray://..." and other forms left to Ray."""
    if not address or address == "auto":
        return None
    if address.lower().startswith(("http://", "https://")):
        raise BackendError(f"--address {address!r}: an HTTP address (a Ray dashboard's or its Jobs API's) cannot "
                           f"be joined; give {ADDRESS_FORMS}")
    if "://" in address or ":" not in address:
        return None
    host, _, port = address.rpartition(":")
    try:
        return host, int(port)
    except ValueError:
        raise BackendError(f"--address {address!r}: give {ADDRESS_FORMS}") from None


def _check_reachable(address: Optional[str], timeout: float = 5.0) -> None:
    """A "host:port" address that nothing answers at fails at once (Ray itself retries for
    a minute or more). "auto" and "ray://" addresses are left to Ray."""
    import socket

    host_port = _check_address_form(address)
    if host_port is None:
        return
    host, port_n = host_port
    try:
        with socket.create_connection((host.strip("[]"), port_n), timeout=timeout):
            pass
    except OSError as e:
        raise BackendError(f"cannot connect to the Ray cluster at {address!r}: nothing answers there "
                           f"({e.strerror or e}); is 'ray start --head' running on that machine?") from None


def _ray_connect(address: Optional[str], workers: Optional[int]) -> tuple[Any, bool, float]:
    ray = _import_ray()
    if ray.is_initialized():
        return ray, False, 0.0
    t0 = time.perf_counter()
    quiet = dict(include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False, configure_logging=True)
    _check_reachable(address)
    try:
        if address:
            try:
                ray.init(address=address, **quiet)
            except TypeError:  # older Ray: include_dashboard is for new clusters only
                ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
        else:
            ray.init(num_cpus=workers or default_workers(), **quiet)
    except Exception as e:  # noqa: BLE001 - Ray raises many kinds; each becomes one line
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        where = f"the Ray cluster at {address!r}" if address else "a local Ray instance"
        raise BackendError(f"cannot connect to {where}: {first}") from None
    return ray, True, time.perf_counter() - t0


def engine_version() -> str:
    """The atmsim version of the process that runs this (the Ray backend's probe task)."""
    from . import __version__

    return __version__


def _run_ray(tasks: list[Task], workers: Optional[int], address: Optional[str], deliver: Deliver,
             timeout: Optional[float] = None, fn: Callable[..., tuple[str, Any, str]] = simulate) -> None:
    global last_ray_info
    ray, started, secs = _ray_connect(address, workers)
    running: dict[Any, Task] = {}
    try:
        cpus = float(ray.cluster_resources().get("CPU", 1.0))
        last_ray_info = RayInfo(started_local=started and not address, connect_seconds=secs, cpus=cpus, address=address)
        # One probe first: a cluster whose workers lack atmsim, or run another version, would
        # fail (or silently change) every point.
        try:
            theirs = ray.get(ray.remote(num_cpus=0)(engine_version).remote(), timeout=300)
        except Exception as e:  # noqa: BLE001
            first = [ln for ln in str(e).strip().splitlines() if ln.strip()]
            raise BackendError("the Ray workers cannot run atmsim (install the same atmsim on every node): "
                               + (first[-1] if first else type(e).__name__)) from None
        ours = engine_version()
        if theirs != ours:
            raise BackendError(f"the Ray workers run atmsim {theirs} and this machine atmsim {ours}; install the "
                               f"same version everywhere (results of different versions are not comparable)")
        remote = ray.remote(num_cpus=1)(fn)
        # Keep a bounded number of tasks in flight: steady progress, bounded memory. On an
        # existing cluster, --workers caps how many run at once.
        window = workers if (workers and address) else max(8, int(cpus * 2))
        todo = deque(tasks)
        while todo or running:
            while todo and len(running) < window:
                task = todo.popleft()
                running[remote.remote(task[1], timeout)] = task
            ready, _ = ray.wait(list(running), num_returns=1)
            for ref in ready:
                task = running.pop(ref)
                try:
                    t = ray.get(ref)
                except Exception as e:  # noqa: BLE001 - the task's worker died (our function never raises)
                    first = str(e).strip().splitlines()[0] if str(e).strip() else ""
                    deliver(task[0], Outcome(False, error_type=f"Ray{type(e).__name__}", error=first or repr(e)))
                    continue
                deliver(task[0], _outcome(t))
    except BaseException:
        for ref in list(running):
            try:
                ray.cancel(ref, force=True)
            except Exception:  # noqa: BLE001
                pass
        raise
    finally:
        if started:
            ray.shutdown()


# --------------------------------------------------------------------------- the driver


def check_backend(backend: str, workers: Optional[int] = None, address: Optional[str] = None,
                  reach: bool = True) -> None:
    """Refuses an unknown backend, a bad worker count, or an address without Ray, in a form
    Ray cannot join, or (``reach``) that nothing answers at."""
    if backend not in BACKENDS:
        raise BackendError(f"backend {backend!r} is not known; use one of: {', '.join(BACKENDS)}")
    if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool) or workers < 1):
        raise BackendError(f"workers = {workers!r}: give a whole number >= 1 (default: all {default_workers()} cores)")
    if workers is not None and not (backend == "ray" and address) and workers > max_workers():
        raise BackendError(f"workers = {workers}: at most {max_workers()} on this machine ({WORKERS_PER_CORE} per "
                           f"core, {default_workers()} cores; more only share the cores and their memory); "
                           f"give 1 to {max_workers()} (default: {default_workers()})")
    if address and backend != "ray":
        raise BackendError(f"address = {address!r} is for the ray backend; add --backend ray (backend is {backend!r})")
    if backend == "ray":
        _import_ray()
        _check_address_form(address)
        if reach:
            _check_reachable(address)  # before anything is written


def check_limits(backend: str, point_timeout: Optional[float], point_memory: Optional[int]) -> None:
    """Refuses per-point limits that are not positive, or a memory limit off the local backend."""
    if point_timeout is not None and (isinstance(point_timeout, bool) or not isinstance(point_timeout, (int, float))
                                      or not 0 < point_timeout < 1e9):
        raise BackendError(f"point timeout = {point_timeout!r}: give seconds, above 0")
    if point_memory is not None:
        if isinstance(point_memory, bool) or not isinstance(point_memory, int) or not 2**20 <= point_memory <= 2**50:
            raise BackendError(f"point memory = {point_memory!r}: give bytes, from 1 MiB to 1 PiB")
        if backend != "local":
            raise BackendError(f"a per-point memory limit needs the local backend (backend is {backend!r})")


def describe_backend(backend: str, workers: Optional[int], address: Optional[str], n_tasks: int) -> str:
    """Where runs go, in words: "on 2 local worker processes", "on the Ray cluster at ..."."""
    n = min(workers or default_workers(), max(1, n_tasks))
    if backend == "local":
        return f"on {n} local worker process{'es' if n != 1 else ''}"
    if backend == "threads":
        return f"on {n} thread{'s' if n != 1 else ''}"
    if address:
        return f"on the Ray cluster at {address}"
    return f"on a local Ray instance ({workers or default_workers()} CPUs)"


def execute(
    tasks: Iterable[Task],
    deliver: Deliver,
    *,
    backend: str = "local",
    workers: Optional[int] = None,
    address: Optional[str] = None,
    progress: bool = True,
    desc: str = "runs",
    point_timeout: Optional[float] = None,
    point_memory: Optional[int] = None,
    columns: bool = False,
) -> None:
    """Runs every ``(key, scenario_json)`` task on ``backend`` and calls
    ``deliver(key, outcome)`` in this thread as each finishes (in completion order).

    A failing run is an :class:`Outcome` with ``ok=False``, never an exception; an exception
    raised by ``deliver`` (a full disk, say) stops everything and is raised. A bad engine
    setting in this process's environment (``ATMSIM_CACHE_HINTS``, ``ATMSIM_MEMORY_LIMIT``)
    raises before any run starts (``EngineSettingError``, ``MemoryLimitError``).

    ``point_timeout`` (seconds) stops a run past that wall time (every backend: the engine
    stops itself; a local worker still running 10 s later is killed); ``point_memory``
    (bytes; local backend only) caps a worker's extra address space. A run past either is
    an error outcome (``PointTimeout``, ``PointMemory``) and the others go on.

    ``columns``: the tasks are :func:`columns_task` payloads, run by :func:`simulate_columns`;
    an outcome then carries ``data`` (packed bytes) instead of ``text``.
    """
    from . import _core

    _core.check_environment()  # a bad engine setting stops the batch at once, not every run
    check_backend(backend, workers, address)
    check_limits(backend, point_timeout, point_memory)
    items = list(tasks)
    if not items:
        return
    n_workers = workers or default_workers()
    bar = tqdm(total=len(items), desc=desc, unit="run", disable=not progress, file=sys.stderr,
               dynamic_ncols=True, smoothing=0.1)
    failed = 0

    def on_done(key: str, out: Outcome) -> None:
        nonlocal failed
        deliver(key, out)
        if not out.ok:
            failed += 1
            bar.set_postfix_str(f"{failed} failed", refresh=False)
        bar.update(1)

    try:
        if backend == "local":
            limits = (point_timeout, point_memory) if (point_timeout or point_memory) else None
            _run_processes(items, min(n_workers, len(items)), on_done, limits=limits,
                           fn="atmsim.parallel:simulate_columns" if columns else None)
        elif backend == "threads":
            _run_threads(items, min(n_workers, len(items)), on_done, timeout=point_timeout,
                         fn=simulate_columns if columns else simulate)
        else:
            _run_ray(items, workers, address, on_done, timeout=point_timeout,
                     fn=simulate_columns if columns else simulate)
    finally:
        bar.close()


def same_runs(runs: "list[tuple[str, str, Any]]") -> dict[str, list[str]]:
    """Of ``(key, scenario JSON text, series kept)`` triples, the keys that repeat an
    earlier key's run: ``{first key: [later keys with the same text and kept series]}``
    (only keys that have repeats). Three of the 280 runs of ``atmsim reproduce all`` repeat
    another (two ubr-plus parameter points are LAN cases too; a ledger row of abr-buffers
    is one of its VBR rows)."""
    first: dict[tuple[str, str], str] = {}
    also: dict[str, list[str]] = {}
    for key, text, kept in runs:
        ident = (text, json.dumps(kept, sort_keys=True))
        if ident in first:
            also.setdefault(first[ident], []).append(key)
        else:
            first[ident] = key
    return also


def run_many(
    scenarios: Iterable[tuple[str, dict[str, Any]]],
    workers: int | None = None,
    progress: bool = True,
    desc: str = "runs",
    backend: str = "local",
    address: str | None = None,
    keep: Optional[Callable[[str], Optional[dict[str, Any]]]] = None,
    figures: Union[str, Callable[[str], Optional[tuple[str, str]]], None] = None,
    on_result: Optional[Callable[[str, RunResult], None]] = None,
) -> dict[str, RunResult]:
    """Runs ``(key, scenario)`` pairs on ``backend`` (see the module doc); returns results
    by key, in input order.

    ``keep(key)``: which series entities the caller needs of that run (``{"port": [names],
    "connection": [...], "source": [...]}``, a kind left out or None: all of them; see
    :meth:`atmsim.result.Series.select`); the worker drops the rest before handing the
    run back. Results travel as packed columns (:func:`atmsim.result.pack`).
    ``figures``: an experiment id; the worker that runs a case draws its figures
    (:meth:`atmsim.experiments.base.Experiment.plot_case`), handed back in ``result.files``.
    Or ``figures(key)``: the ``(experiment id, case key)`` whose figures the run of ``key``
    draws, or None (runs of several experiments in one call).
    ``on_result(key, result)``: called in this thread as each run succeeds (in completion
    order), while the others go on; an exception it raises stops everything.

    A failing scenario raises its exception (the first in input order, with its key) after
    the others finish.

    Keys whose scenarios are the same (equal JSON text) and keep the same series run once
    (:func:`same_runs`): the engine is deterministic, so each of them gets the result of
    that one run (unpacked for each key: no shared object). Only the first key's figures
    are drawn in the worker; the others' results come without files, and their figures,
    if any, are drawn from the result where they are needed
    (:meth:`atmsim.experiments.base.Experiment.figures_of`).
    """
    from . import EngineSettingError, InvariantError, MemoryLimitError, ScenarioError

    items = [(k, sc) for k, sc in scenarios]
    by_key = dict(items)
    failed: dict[str, Outcome] = {}
    results: dict[str, RunResult] = {}
    texts = {k: json.dumps(sc) for k, sc in items}
    kept = {k: keep(k) if keep else None for k, _ in items}
    also = same_runs([(k, texts[k], kept[k]) for k, _ in items])

    def deliver(key: str, out: Outcome) -> None:
        # Unpacked as it arrives: the waiting for the other runs hides the time it takes.
        for k in (key, *also.get(key, ())):
            if not out.ok:
                failed[k] = out
                continue
            results[k] = RunResult.unpack(out.data, by_key[k])
            if k != key:
                results[k].files = {}  # drawn for the first key only
            if on_result is not None:
                on_result(k, results[k])

    draw = figures if callable(figures) else (lambda k: (figures, k) if figures else None)
    copies = {k for ks in also.values() for k in ks}
    execute(((k, columns_task(texts[k], kept[k], draw(k))) for k, _ in items if k not in copies),
            deliver, backend=backend, workers=workers, address=address, progress=progress, desc=desc,
            columns=True)
    for key, _ in items:
        out = failed.get(key)
        if out is not None:
            cls = {"ScenarioError": ScenarioError, "InvariantError": InvariantError,
                   "MemoryLimitError": MemoryLimitError, "EngineSettingError": EngineSettingError}.get(out.error_type)
            if cls is None:
                raise RuntimeError(f"{key}: {out.error_type}: {out.error}")
            raise cls(f"{key}: {out.error}")
    return {k: results[k] for k, _ in items}
