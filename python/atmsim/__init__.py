"""atmsim: a fast, faithful, cell-level simulator of TCP/IP over ATM networks.

Quick use::

    import atmsim
    from atmsim.topology import n_source

    scenario = n_source(5, link_delay="5 ms", buffer="12000 cells",
                        policy={"kind": "fba", "threshold": "50 %", "z": 0.8},
                        tcp={"window": "600000 B"})
    result = atmsim.run(scenario)
    result.summary["efficiency"], result.connections[["name", "goodput_bps"]]

A scenario is a TOML file (``atmsim.run("file.toml")``), TOML text, or a dict mirroring the
TOML layout. The engine is Rust; a run releases the GIL, so threads run scenarios in parallel.

Sweeps (docs/sweeps.md)::

    res = atmsim.sweep("examples/sweeps/ubr_buffers.toml", out="results/sweeps/ubr-buffers")
    res.df                          # one row per point: parameters, seed, status, metrics
    res.plot("efficiency", x="defaults.switch_buffer", by="policy", path="eff.png")
    res = atmsim.load_sweep("results/sweeps/ubr-buffers")   # later: read the store again
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._core import EngineSettingError, InvariantError, MemoryLimitError, ScenarioError
from ._core import version as _engine_version

# The engine's exceptions are made in the extension module `_core`; they are named here as
# `atmsim.X`, so that pickle (worker processes, Ray) finds them and tracebacks say where
# users import them from.
for _error in (EngineSettingError, InvariantError, MemoryLimitError, ScenarioError):
    _error.__module__ = __name__
del _error

if TYPE_CHECKING:  # pragma: no cover - what the lazy names below resolve to, for type checkers
    from .result import RunResult
    from .scenario import EfficiencyWarning, InternalError, LateConnectionsWarning, load_scenario, max_min, run, to_toml, validate
    from .store import StoreError, SweepResults, load_sweep
    from .sweeps import SweepError, SweepSpec, load_sweep_file, sweep

__version__ = _engine_version()

# pandas, pyarrow and matplotlib take ~0.4 s to import; a name is imported from its module
# the first time it is used (PEP 562), so `import atmsim` and `atmsim --help` stay fast.
_LAZY = {
    "InternalError": "scenario",
    "EfficiencyWarning": "scenario",
    "LateConnectionsWarning": "scenario",
    "RunResult": "result",
    "load_scenario": "scenario",
    "max_min": "scenario",
    "run": "scenario",
    "to_toml": "scenario",
    "validate": "scenario",
    "StoreError": "store",
    "SweepResults": "store",
    "load_sweep": "store",
    "SweepError": "sweeps",
    "SweepSpec": "sweeps",
    "load_sweep_file": "sweeps",
    "sweep": "sweeps",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'atmsim' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


# Every public name: the engine's exceptions and the lazy names above (one list, not two).
__all__ = ["InvariantError", "MemoryLimitError", "EngineSettingError", "ScenarioError", "__version__", *_LAZY]
