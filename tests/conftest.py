"""Shared fixtures and helpers of the atmsim Python test suite.

Every scenario here is small (a few sources, LAN delays, well under a second simulated) so
the default suite stays fast; the full reproduction is marked ``slow``.
"""

from __future__ import annotations

import contextlib
import io
import math
from pathlib import Path
from typing import Any

import pytest

import atmsim
from atmsim.topology import n_source

TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data"
REPO = TESTS.parent
VENV_BIN = REPO / ".venv" / "bin"

#: Summary fields that measure the host's speed, not the simulation.
WALL_FIELDS = frozenset({"wall_seconds", "cell_hops_per_second", "events_per_second"})

#: The documented columns of the result tables (atmsim/result.py and crates/atmsim/src/result.rs).
CONNECTION_COLUMNS = [
    "name", "from", "to", "goodput_bps", "goodput_bytes", "segments_sent", "retransmissions",
    "timeouts", "fast_retransmits", "dup_acks", "cells_sent", "cells_delivered", "cells_dropped",
    "ack_cells_dropped", "frames_sent", "frames_delivered", "frames_lost", "frames_corrupted",
    "final_cwnd_bytes", "srtt_s", "traffic", "service", "throughput_bps", "reverse_throughput_bps",
    "fair_share_bps", "acr_final_bps", "acr_mean_bps", "reverse_acr_final_bps", "rm_cells_sent",
    "brm_received", "rule5_resets", "rule6_cuts", "source_queue_max_cells", "source_queue_cells",
]
PORT_COLUMNS = [
    "name", "node", "toward", "is_switch", "rate_bps", "buffer_cells", "policy", "received",
    "enqueued", "dropped", "sent", "max_queue_cells", "final_queue_cells", "utilization",
]
DROP_COLUMNS = ["drops_buffer_full", "drops_frame_discard", "drops_partial_discard"]
PORT_SERIES_COLUMNS = ["time_s", "port", "queue_cells", "max_queue_cells", "utilization", "data_utilization", "vbr_utilization"]
CONNECTION_SERIES_COLUMNS = ["time_s", "connection", "cwnd_bytes", "cells_received", "delivered_bytes"]
SAVED_FILES = [
    "summary.json", "provenance.json", "connections.csv", "ports.csv", "port_series.csv",
    "connection_series.csv", "scenario.toml", "run.png",
]


def small(n: int = 2, **kw: Any) -> dict[str, Any]:
    """A small N-source LAN scenario (5 us links, 0.2 s, 500-cell tail-drop buffers)."""
    args: dict[str, Any] = dict(link_delay="5 us", duration="0.2 s", buffer="500 cells",
                                policy={"kind": "tail_drop"})
    args.update(kw)
    return n_source(n, **args)


def lossy(seed: int = 1, **kw: Any) -> dict[str, Any]:
    """Three sources on a 300-cell tail-drop bottleneck for 1 s: drops, timeouts, retransmissions."""
    args: dict[str, Any] = dict(buffer="300 cells", duration="1 s", seed=seed)
    args.update(kw)
    return small(3, **args)


def stable_summary(summary: dict[str, Any]) -> dict[str, Any]:
    """The summary without the wall-clock fields (which differ from run to run)."""
    return {k: v for k, v in summary.items() if k not in WALL_FIELDS}


def assert_same_run(a: "atmsim.RunResult", b: "atmsim.RunResult") -> None:
    """Two runs agree on everything but wall-clock time."""
    import pandas.testing as pdt

    sa, sb = stable_summary(a.summary), stable_summary(b.summary)
    assert sa == sb, {k: (sa[k], sb.get(k)) for k in sa if sa[k] != sb.get(k)}
    pdt.assert_frame_equal(a.connections, b.connections)
    pdt.assert_frame_equal(a.ports, b.ports)
    pdt.assert_frame_equal(a.port_series, b.port_series)
    pdt.assert_frame_equal(a.connection_series, b.connection_series)


def check_summary(summary: dict[str, Any], n_connections: int) -> None:
    """The invariants every run's summary must satisfy."""
    assert 0 < summary["efficiency"] <= 1.05, summary["efficiency"]
    assert 1 / n_connections - 1e-9 <= summary["fairness"] <= 1 + 1e-9, summary["fairness"]
    assert summary["conservation_ok"] is True
    assert summary["cells_sent"] == (
        summary["cells_delivered"] + summary["cells_dropped"] + summary["cells_in_flight"]
    )
    assert summary["cells_sent"] > 0
    assert math.isclose(summary["efficiency"], summary["total_goodput_bps"] / summary["max_goodput_bps"], rel_tol=1e-9)


def call_cli(capsys, argv: list[str]) -> tuple[int, Any, Any]:
    """``atmsim.cli.main(argv)`` under pytest's ``capsys`` -> (status, stdout, stderr);
    argparse's SystemExit becomes a status."""
    from atmsim.cli import main

    try:
        rc = main(argv)
    except SystemExit as e:
        rc = e.code
    out = capsys.readouterr()
    return rc, out.out, out.err


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """Runs ``atmsim.cli.main(argv)``, returns (status, stdout, stderr); argparse exits become statuses."""
    from atmsim.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as e:  # --help, argparse usage errors
            rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture(scope="session")
def small_toml() -> Path:
    """tests/data/small_ubr.toml: 3 sources, a 300-cell tail-drop bottleneck, 0.5 s."""
    p = DATA / "small_ubr.toml"
    assert p.is_file()
    return p


@pytest.fixture(scope="session")
def small_toml_result(small_toml: Path) -> "atmsim.RunResult":
    return atmsim.run(small_toml)


@pytest.fixture(scope="session")
def quick_reproduction(tmp_path_factory) -> dict[str, Any]:
    """``atmsim reproduce ubr-plus --quick --out DIR --no-progress``, run once per session."""
    out = tmp_path_factory.mktemp("ubr-plus-quick")
    rc, stdout, stderr = run_cli(["reproduce", "ubr-plus", "--quick", "--out", str(out), "--no-progress"])
    return {"rc": rc, "out": out, "stdout": stdout, "stderr": stderr}
