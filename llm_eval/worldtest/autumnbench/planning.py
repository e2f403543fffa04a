"""Planning under the ``autumnbench`` protocol [P1-P7].

The original program with the same seed from its initial state [P1]. Offered: ``left``,
``right``, ``up``, ``down``, ``click [0-K] [0-K]``, ``noop``, ``quit``, ``quit`` (twice, as in
the harness) [P2]. Observations [P3]: an intro, then ``The initial grid is: `` and the object
``{"render": ..., "goal": ..., "highlight_mask": ...}`` (grid names, goal names, 0/1 ints); later
``The current grid is: `` with the same object, so goal and mask repeat every step.

Each step [P4]: ``quit`` ends the test with reward 0 ("quit: You quit the environment. No
reward will be given."); ``reset`` is refused ("Reset is not allowed in the test phase.", no
tick); anything else is parsed as a world action: unparsable text (``go-to-test`` included) is
"Invalid action. Please select a valid action." with no grid; a parsed action runs one tick,
then the goal check: every masked cell's name equals the goal's (a goal cell ``transparent``
matches only a cell rendered ``transparent``) gives reward 1 and ends the test [P5]. There is no
horizon: the runner's total step cap bounds the test [P6].

In image mode [P7] a grid observation's text is the same prefix and
``{"highlight_mask": ...}`` alone, and it sends two images: the grid and the goal, both drawn
as the harness's CD and planning grids are (black in the background's place; the goal as a
grid of names, so ``transparent`` is drawn black) [R2]. Text-only answers (quit, reset,
invalid) send none. With ``--harness-texts`` the first observation is the harness's intro
immediately followed by the JSON.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ...autumn import Frame
from ...worlds import World
from ..observation import Picture, PlanningView
from ..planning import goal_cells, goal_reached
from .base import (
    INVALID_SELECT,
    AutumnBenchPhase,
    click_pattern,
    harness_picture,
    parse_game_action,
)
from .settings import DEFAULT_SETTINGS, AutumnBenchSettings

__all__ = ["AutumnBenchPlanning", "PLANNING_INTRO", "QUIT_TEXT", "NO_RESET"]

QUIT_TEXT = "quit: You quit the environment. No reward will be given."
NO_RESET = "Reset is not allowed in the test phase."
PLANNING_INTRO = (
    "This is the test phase, in the same environment. You are given a goal grid and a highlight "
    "mask of the same size: 1 marks the cells you must make equal to the goal, 0 the cells that "
    "do not matter. Reach the goal in the highlighted region. You cannot reset. The grid is "
    "checked against the goal at every time step and you are rewarded when it matches. You may "
    "quit.")


class AutumnBenchPlanning(AutumnBenchPhase):
    """The harness's planning environment (module docstring)."""

    name = "planning"

    def __init__(self, world: World, *, goal: Sequence[Sequence[str]],
                 mask: Sequence[Sequence[bool]], budget: int, family: str = "planning",
                 settings: AutumnBenchSettings = DEFAULT_SETTINGS) -> None:
        super().__init__(family=family, budget=budget, settings=settings)
        self.world = world
        self.goal = tuple(tuple(row) for row in goal)
        self.mask = tuple(tuple(bool(m) for m in row) for row in mask)
        self.cells = goal_cells(self.mask)
        self.success = False
        self.success_step: int | None = None
        self.time = 0
        self._offered: tuple[str, ...] = ()
        self._view: PlanningView | None = None

    def _start(self) -> None:
        frame, _ = self.world.reset()
        if frame.size != len(self.goal):
            raise ValueError(f"the goal is {len(self.goal)} rows but the world's grid is "
                             f"{frame.size}x{frame.size}")
        self._offered = ("left", "right", "up", "down", click_pattern(frame.size), "noop",
                         "quit", "quit")
        self._view = PlanningView(goal=Frame(self.goal, frame.background), mask=self.mask,
                                  horizon=0)
        head = self.settings.text("planning_intro", f"{PLANNING_INTRO}\nThe initial grid is: ")
        self.text = head + self._state(frame)

    @property
    def offered(self) -> tuple[str, ...]:
        return self._offered

    def _state(self, frame: Frame) -> str:
        if self.settings.image:
            self.pictures = (harness_picture(frame, program_background=False),
                             Picture(self.goal, fill="black", crosses=True))
            return json.dumps({"highlight_mask": [[int(m) for m in row] for row in self.mask]})
        return json.dumps({"render": [list(r) for r in frame.grid],
                           "goal": [list(r) for r in self.goal],
                           "highlight_mask": [[int(m) for m in row] for row in self.mask]})

    def _autumnbench_step(self, text: str) -> tuple[float, bool, str, bool, dict[str, Any]]:
        self.time += 1
        if text == "quit":
            self._end("the agent quit the planning test")
            return 0.0, True, QUIT_TEXT, True, {"quit": True}
        if text == "reset":
            return 0.0, False, NO_RESET, False, {}
        action = parse_game_action(text)
        if action is None:
            return 0.0, False, INVALID_SELECT, False, {}
        frame = self.world.tick(action)[-1]
        shown = f"The current grid is: {self._state(frame)}"
        if goal_reached(frame, self.goal, self.cells):
            self.success = True
            self.success_step = self.steps
            self.raw_reward = 1.0
            self._end(f"goal reached at step {self.steps}")
            return 1.0, True, shown, True, {"success": True}
        return 0.0, False, shown, True, {}

    def _frame(self) -> Frame:
        return self.world.frame

    def _payload(self) -> dict[str, Any]:
        return {"planning": self._view}
