"""What the oracle's moves share under every protocol: the episode's task and the limits of its
planning search and of its change search, what it noted, its planning search, and a test
phase played as a queue of actions planned once at the phase's first observation
(``queued``)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from ...tasks.models import CDTask, MFPTask, PlanningTask
from ...worldtest.programs import ProgramsRoot
from ..search import SearchLimits, SearchResult
from .solver import ChangeSearch

__all__ = ["Moves"]


class Moves:
    """One episode's moves (a protocol's subclass says which): ``notes`` and ``search``."""

    def __init__(self, task: MFPTask | CDTask | PlanningTask,
                 programs_root: ProgramsRoot | None, limits: SearchLimits,
                 change: ChangeSearch = ChangeSearch()) -> None:
        self.task = task
        self.programs_root = programs_root
        self.limits = limits
        self.change = change
        self.notes: list[str] = []
        self.search: SearchResult | None = None
        self._queue: deque[str] | None = None

    def queued(self, plan: Callable[[], list[str]], then: str) -> str:
        """The next action of the phase's plan (made by ``plan`` at the first call), ``then``
        once it is played out."""
        if self._queue is None:
            self._queue = deque(plan())
        return self._queue.popleft() if self._queue else then
