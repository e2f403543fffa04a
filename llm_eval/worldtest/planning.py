"""The planning test (docs/spec/worldtest.md 3.3).

The same program and seed as the interaction phase, restarted from its initial state; no reset.
The agent sees the goal grid and the mask of the cells that matter and acts with the world's
actions, or gives up with ``quit``. Success (reward 1, the phase terminates) at the first step
after which every masked cell of the frame equals the goal; 0 if the horizon (the task's
``horizon``, counted in actions) runs out or the agent quits. Only frames produced by actions
count: the initial frame is never a success (task validation guarantees it differs from the
masked goal).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..actions import Action
from ..autumn import Frame
from ..worlds import World
from .commands import ActionForm, Command, world_forms
from .observation import Observation, PlanningView
from .phase import DEFAULT_MAX_CONSECUTIVE_INVALID, Phase

__all__ = ["PlanningPhase", "goal_reached", "goal_cells"]

_QUIT = ActionForm("quit", help="give up the planning test (score 0)")


def goal_cells(mask: Sequence[Sequence[bool]]) -> tuple[tuple[int, int], ...]:
    """The (x, y) cells selected by ``mask[y][x]``."""
    return tuple((x, y) for y, row in enumerate(mask) for x, m in enumerate(row) if m)


def goal_reached(frame: Frame, goal: Sequence[Sequence[str]],
                 cells: Sequence[tuple[int, int]]) -> bool:
    """Whether every cell in ``cells`` of ``frame`` has the goal's colour."""
    grid = frame.grid
    if len(grid) != len(goal):
        return False
    return all(grid[y][x] == goal[y][x] for x, y in cells)


class PlanningPhase(Phase):
    """Reach the masked goal within the horizon; see the module docstring."""

    name = "planning"

    def __init__(self, world: World, *, goal: Sequence[Sequence[str]],
                 mask: Sequence[Sequence[bool]], horizon: int, family: str = "planning",
                 max_consecutive_invalid: int = DEFAULT_MAX_CONSECUTIVE_INVALID) -> None:
        super().__init__(family=family, budget=horizon,
                         max_consecutive_invalid=max_consecutive_invalid)
        self.world = world
        self.goal = tuple(tuple(row) for row in goal)
        self.mask = tuple(tuple(bool(m) for m in row) for row in mask)
        self.cells = goal_cells(self.mask)
        self.horizon = horizon
        self.success = False
        self.success_step: int | None = None
        self._forms: tuple[ActionForm, ...] = ()
        self._view: PlanningView | None = None

    @property
    def score(self) -> float:
        return 1.0 if self.success else 0.0

    def _start(self) -> None:
        frame, _ = self.world.reset()
        if frame.size != len(self.goal):
            raise ValueError(f"the goal is {len(self.goal)} rows but the world's grid is "
                             f"{frame.size}x{frame.size}")
        self._forms = (*world_forms(frame.size), _QUIT)
        self._view = PlanningView(goal=Frame(self.goal, frame.background), mask=self.mask,
                                  horizon=self.horizon)

    @property
    def valid_actions(self) -> tuple[ActionForm, ...]:
        return self._forms

    def _apply(self, action: Action | Command) -> tuple[float, bool, dict[str, Any]]:
        if isinstance(action, Command):  # quit
            self._end("the agent quit the planning test")
            return 0.0, True, {"quit": True}
        frame, _, _, _, _ = self.world.step(action)
        if goal_reached(frame, self.goal, self.cells):
            self.success = True
            self.success_step = self.steps
            self._end(f"goal reached at step {self.steps}")
            return 1.0, True, {"success": True}
        return 0.0, False, {}

    def _observation(self, invalid: str | None, message: str | None) -> Observation:
        return Observation(phase=self.name, family=self.family, step=self.steps,
                           budget_left=self.budget_left, frame=self.world.frame,
                           actions=self._forms, invalid=invalid, message=message,
                           planning=self._view)
