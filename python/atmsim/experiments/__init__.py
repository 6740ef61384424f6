"""The reproductions of published results, by id (``atmsim reproduce ID``)."""

from __future__ import annotations

from .abr_buffers import AbrBuffers
from .base import Experiment
from .erica_testing import EricaTesting
from .kvr_dynamics import KvrDynamics
from .ubr_plus import UbrPlus
from .worst_case import WorstCase

EXPERIMENTS: dict[str, type[Experiment]] = {
    UbrPlus.id: UbrPlus,
    EricaTesting.id: EricaTesting,
    AbrBuffers.id: AbrBuffers,
    WorstCase.id: WorstCase,
    KvrDynamics.id: KvrDynamics,
}


def get(exp_id: str) -> Experiment:
    """The experiment with this id; raises KeyError listing the ids that exist."""
    try:
        return EXPERIMENTS[exp_id]()
    except KeyError:
        raise KeyError(f"no experiment {exp_id!r}; available: {', '.join(sorted(EXPERIMENTS))}") from None
