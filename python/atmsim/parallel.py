"""Running many scenarios at once, with a progress bar.

The engine releases the GIL, so a thread pool runs scenarios truly in parallel on all
cores, without pickling or forking.
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any, Iterable

from tqdm import tqdm

from .result import RunResult
from .scenario import run


def default_workers() -> int:
    """All cores."""
    return max(1, os.cpu_count() or 1)


def run_many(
    scenarios: Iterable[tuple[str, dict[str, Any]]],
    workers: int | None = None,
    progress: bool = True,
    desc: str = "runs",
) -> dict[str, RunResult]:
    """Runs ``(key, scenario)`` pairs on ``workers`` threads; returns results by key.

    A failing scenario raises its exception after the others finish.
    """
    items = list(scenarios)
    workers = workers or default_workers()
    results: dict[str, RunResult] = {}
    errors: list[tuple[str, BaseException]] = []
    bar = tqdm(total=len(items), desc=desc, unit="run", disable=not progress, file=sys.stderr, dynamic_ncols=True)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futs = {pool.submit(run, sc): key for key, sc in items}
        for f in as_completed(futs):
            key = futs[f]
            try:
                results[key] = f.result()
            except BaseException as e:  # noqa: BLE001 - reported below, with its key
                errors.append((key, e))
            bar.update(1)
    bar.close()
    if errors:
        key, e = errors[0]
        raise type(e)(f"{key}: {e}") from e
    return {k: results[k] for k, _ in items}
