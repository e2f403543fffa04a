"""How the oracle plays the ``autumnbench`` protocol's phases, and the change search both
protocols' oracle can use.

- interaction: ``go-to-test`` at once (``quit`` would do the same [I4]);
- MFP: ``step`` through the recording to its end, then ``choose_option_K`` with K the option
  equal to the final frame's hidden patch, found by simulating the recorded actions from the
  task's seed, one tick each (``oracle.mfp_answer``) [M4-M7];
- CD: the shortest action sequence after which the task's condition holds (``change_path``),
  then ``I found the change!`` on the very next step, which is when the harness first sees the
  condition (T), and ``Submit choice`` on the step after, so that ``time - 1 = T`` [X6-X8];
- planning: the planner's plan (``search.search_plan``), one tick per action, then ``quit``.

``change_path(world, condition, witness, limits)``: the witness's shortest prefix (followed by
noops) after which the condition holds, when the task has a witness; else a breadth-first search
with state hashing over the arrows, ``noop`` and clicks on every non-background cell and its
four neighbours, bounded by a count of states expanded (deterministic at any load).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from ..worlds import World
from ..worldtest.observation import Observation
from ..worldtest.scoring import condition_holds

__all__ = ["HarnessOraclePlan", "change_path", "ChangeSearch"]

_MOVES = ("left", "right", "up", "down", "noop")


@dataclass(frozen=True, slots=True)
class ChangeSearch:
    """Bounds of the change search: states expanded, and noops tried after a witness."""

    max_expanded: int = 400
    max_wait: int = 60


def _holds(world: World, condition: str, harness: bool) -> bool:
    try:
        return condition_holds(world.interpreter, condition, harness=harness)
    except Exception:   # a condition that fails to evaluate on this state does not hold
        return False


def _actions(world: World) -> list[str]:
    frame = world.frame
    size, background = frame.size, frame.background
    cells = set()
    for y, row in enumerate(frame.grid):
        for x, colour in enumerate(row):
            if colour != background:
                for cx, cy in ((x, y), (x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)):
                    if 0 <= cx < size and 0 <= cy < size:
                        cells.add((cy, cx))
    return [*_MOVES, *(f"click {x} {y}" for y, x in sorted(cells))]


def change_path(world: World, condition: str, witness: list[str] | None = None, *,
                harness: bool = False, limits: ChangeSearch = ChangeSearch()
                ) -> list[str] | None:
    """Actions from the world's initial state after which ``condition`` holds (module
    docstring); None if none was found within ``limits``. Resets ``world``."""
    world.reset()
    if witness:
        played: list[str] = []
        for action in [*witness, *["noop"] * limits.max_wait]:
            world.step(action)
            played.append(action)
            if _holds(world, condition, harness):
                return played
        world.reset()
    start = world.snapshot()
    seen = {world.state_key()}
    queue: deque[tuple[object, tuple[str, ...]]] = deque([(start, ())])
    expanded = 0
    while queue and expanded < limits.max_expanded:
        saved, path = queue.popleft()
        world.restore(saved)
        expanded += 1
        for action in _actions(world):
            world.restore(saved)
            world.step(action)
            if _holds(world, condition, harness):
                return [*path, action]
            key = world.state_key()
            if key not in seen:
                seen.add(key)
                queue.append((world.snapshot(), (*path, action)))
    return None


class HarnessOraclePlan:
    """The oracle's moves under the autumnbench protocol (module docstring)."""

    def __init__(self, oracle) -> None:
        self.oracle = oracle
        self._queue: deque[str] | None = None

    def act(self, observation: Observation) -> str:
        match observation.phase:
            case "interaction":
                return "go-to-test"
            case "mfp":
                choices = [a for a in observation.offered if a.startswith("choose_option_")]
                if not choices:
                    return "step"
                from .oracle import mfp_answer

                answer, misses = mfp_answer(self.oracle.task)
                if misses:
                    self.oracle.notes.append(f"no option equals the simulated patch; option "
                                             f"{answer} differs in {misses} cell(s)")
                return f"choose_option_{answer}"
            case "cd":
                if self._queue is None:
                    self._queue = deque(self._cd_plan())
                return self._queue.popleft() if self._queue else "quit"
            case "planning":
                if self._queue is None:
                    self._queue = deque(self._planning_plan(observation))
                return self._queue.popleft() if self._queue else "quit"
        raise ValueError(f"unknown phase {observation.phase!r}")

    def _cd_plan(self) -> list[str]:
        from ..worldtest.programs import modified_world

        task = self.oracle.task
        condition = task.hidden.condition
        world = modified_world(task, self.oracle.programs_root)
        path = change_path(world, condition, task.hidden.witness, harness=True)
        if path is None:
            self.oracle.notes.append("no action sequence makes the condition hold; quitting")
            return []
        while len(path) < 2:      # "I found the change!" is accepted from the 3rd step [X5]
            path.append("noop")
        return [*path, "I found the change!", "Submit choice"]

    def _planning_plan(self, observation: Observation) -> list[str]:
        from ..worldtest.programs import original_world
        from .search import search_plan

        view = observation.planning
        world = original_world(self.oracle.task)
        world.reset()
        horizon = max(1, observation.budget_left)
        self.oracle.search = search_plan(world, view.goal.grid, view.mask, horizon,
                                         self.oracle.limits)
        if self.oracle.search.plan is None:
            self.oracle.notes.append("no plan found within the limits; quitting")
            return []
        return list(self.oracle.search.plan)
