"""A local worker process of :mod:`atmsim.parallel` (``python -m atmsim._worker``).

Reads scenarios from stdin and writes results to stdout, one at a time, framed as a header
line (``<n>\\n`` in; ``ok <n>\\n`` (JSON text), ``bytes <n>\\n`` (a packed result) or
``error <n>\\n`` out) and ``n`` bytes. It imports only
atmsim, never the caller's script, so a script without an ``if __name__ == "__main__"``
guard is safe. It ignores Ctrl-C (the driver stops its workers) and exits when the driver
goes away: stdin closes, or its parent process changes.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import sys
import threading
import time


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(1)


def _limit_memory() -> None:
    """Caps the address space at what the worker uses now plus ``ATMSIM_POINT_MEMORY``
    bytes (the per-point memory limit): an engine allocation past it aborts this process,
    which the driver records as ``PointMemory``."""
    extra = os.environ.get("ATMSIM_POINT_MEMORY")
    if not extra:
        return
    import resource

    try:
        with open("/proc/self/statm") as f:
            now = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        now = 0
    limit = now + int(extra)
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)  # an unprivileged process cannot raise its hard limit
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    # The protocol owns the real stdout; anything printed by accident goes to stderr.
    proto = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    inp = sys.stdin.buffer
    if argv:  # "module:function": another task function (the tests use it to crash a worker)
        mod, _, name = argv[0].partition(":")
        fn = getattr(importlib.import_module(mod), name)
    else:
        from atmsim.parallel import simulate as fn
    _limit_memory()
    proto.write(b"ready\n")
    proto.flush()
    while True:
        header = inp.readline()
        if not header:
            return 0
        payload = inp.read(int(header))
        status, a, b = fn(payload.decode("utf-8"))
        if status == "ok" and isinstance(a, bytes):  # a packed result (atmsim.result.pack)
            data = a
            proto.write(b"bytes %d\n" % len(data))
        elif status == "ok":
            data = a.encode("utf-8")
            proto.write(b"ok %d\n" % len(data))
        else:
            data = json.dumps([a, b]).encode("utf-8")
            proto.write(b"error %d\n" % len(data))
        proto.write(data)
        proto.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
