"""The oracle agent: knows the true program (docs/spec/worldtest.md 6); the upper reference and
the task checker.

``OracleAgent(task)`` is given the whole task, hidden half included, and the world's program.
At every reset it asks the episode's protocol profile which moves to play: the worldtest
protocol's (``worldtest.WorldTestMoves``) or, for a protocol that shows the published harness's
text, the harness's (``autumnbench.AutumnBenchMoves``); both are built on the same solver
(``solver``). Everything is simulated on the oracle's own worlds, never on the phase's.
"""

from __future__ import annotations

from ...tasks.models import CDTask, MFPTask, PlanningTask
from ...worldtest.observation import EpisodeStart, Observation
from ...worldtest.programs import ProgramsRoot
from ...worldtest.protocols import protocol as protocol_profile
from ..search import SearchLimits, SearchResult
from .autumnbench import AutumnBenchMoves
from .solver import ChangeSearch
from .worldtest import WorldTestMoves

__all__ = ["OracleAgent"]


class OracleAgent:
    """Plays every phase with knowledge of the true program; see the module docstring.
    ``limits`` bound its planning search, ``change`` its search for a CD condition; ``notes``
    says what went unexpectedly in the episode, ``search`` is its planning search."""

    name = "oracle"

    def __init__(self, task: MFPTask | CDTask | PlanningTask, *,
                 programs_root: ProgramsRoot | None = None,
                 limits: SearchLimits = SearchLimits(),
                 change: ChangeSearch = ChangeSearch()) -> None:
        self.task = task
        self.programs_root = programs_root
        self.limits = limits
        self.change = change
        self._moves: WorldTestMoves | AutumnBenchMoves = WorldTestMoves(
            task, programs_root, limits, change)

    @property
    def notes(self) -> list[str]:
        return self._moves.notes

    @property
    def search(self) -> SearchResult | None:
        return self._moves.search

    def reset(self, start: EpisodeStart) -> None:
        moves = AutumnBenchMoves if protocol_profile(start.protocol).shows_harness_text \
            else WorldTestMoves
        self._moves = moves(self.task, self.programs_root, self.limits, self.change)

    def act(self, observation: Observation) -> str:
        return self._moves.act(observation)
