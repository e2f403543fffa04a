"""The oracle's solver: what knowing the true program answers, whatever the protocol asks.

- ``mfp_answer(task)``: the option equal to the final frame's hidden patch, found by replaying
  the recorded actions from the task's seed on the original program, one tick each;
- ``cd_change_frame(task, budget)``: the first frame where the modified program's frame differs
  from the original's, run in lock-step with the same seed under the witness, then noops;
- ``change_path(world, condition, witness, limits)``: the witness's shortest prefix (followed by
  noops) after which the condition holds, when the task has a witness; else a breadth-first
  search with state hashing over the arrows, ``noop`` and clicks on every non-background cell
  and its four neighbours, bounded by a count of states expanded (deterministic at any load);
  ``harness`` says how the condition is read (``worldtest.scoring.condition_holds``);
- ``plan(task, goal, mask, horizon, limits)``: a plan from the task's initial state
  (``search.search_plan``: best-first width search with state hashing, bounded by ``limits``).

Everything is simulated on worlds of the solver's own, never on a phase's. The protocols'
moves (``worldtest``, ``autumnbench``) are built on these; nothing here knows a protocol.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import TypeVar

from ...tasks.models import CDTask, MFPTask, PlanningTask
from ...worlds import World
from ...worlds.world import WorldSnapshot
from ...worldtest.programs import ProgramsRoot, modified_world, original_world
from ...worldtest.scoring import condition_holds
from ..search import SearchLimits, SearchResult, search_plan

__all__ = ["task_of", "mfp_answer", "cd_change_frame", "ChangeSearch", "change_path",
           "condition_met",
           "plan"]

_MOVES = ("left", "right", "up", "down", "noop")


_Task = TypeVar("_Task", MFPTask, CDTask, PlanningTask)


def task_of(task: MFPTask | CDTask | PlanningTask, family: type[_Task]) -> _Task:
    """``task`` as a task of ``family``'s kind (``ValueError`` when a phase and the episode's
    task disagree: a caller's bug)."""
    if not isinstance(task, family):
        raise ValueError(f"task {task.id!r} is a {task.family} task, not a {family.__name__}")
    return task


def mfp_answer(task: MFPTask) -> tuple[int, int]:
    """(the option equal to the true hidden patch, or the closest one; the number of cells
    where it differs from the truth: 0 for a valid task)."""
    world = original_world(task)
    frame, _ = world.reset()
    for action in task.public.actions:
        frame, _, _, _, info = world.step(action)
        if "invalid_action" in info:
            raise ValueError(f"task {task.id!r}: recorded action {action!r} is invalid: "
                             f"{info['invalid_action']}")
    mask = task.public.mask
    truth = [list(frame.grid[y][mask.x:mask.x + mask.width])
             for y in range(mask.y, mask.y + mask.height)]
    misses = [sum(a != b for row_o, row_t in zip(option, truth) for a, b in zip(row_o, row_t))
              for option in task.public.options]
    best = min(range(len(misses)), key=lambda k: (misses[k], k))
    return best, misses[best]


def cd_change_frame(task: CDTask, budget: int, root: ProgramsRoot | None = None
                    ) -> tuple[int | None, list[str]]:
    """(the first frame index where the modified program's frame differs from the original's
    under the witness then noops, within ``budget`` actions, or None; the actions played)."""
    original, modified = original_world(task), modified_world(task, root)
    original.reset()
    modified.reset()
    played: list[str] = []
    witness = task.hidden.witness or []       # an imported task has none: noops
    for i in range(budget):
        action = witness[i] if i < len(witness) else "noop"
        expected, _, _, _, _ = original.step(action)
        seen, _, _, _, _ = modified.step(action)
        played.append(action)
        if seen != expected:
            return i + 1, played
    return None, played


@dataclass(frozen=True, slots=True)
class ChangeSearch:
    """Bounds of the change search: states expanded, and noops tried after a witness."""

    max_expanded: int = 400
    max_wait: int = 60


def condition_met(world: World, condition: str, autumnbench: bool) -> bool:
    """Whether ``condition`` holds on the world's state, read as the harness reads it when
    ``harness``; a condition that fails to evaluate on this state does not hold."""
    try:
        return condition_holds(world.interpreter, condition, autumnbench=autumnbench)
    except Exception:
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
                autumnbench: bool = False, limits: ChangeSearch = ChangeSearch()
                ) -> list[str] | None:
    """Actions from the world's initial state after which ``condition`` holds (module
    docstring); None if none was found within ``limits``. Resets ``world``."""
    world.reset()
    if witness:
        played: list[str] = []
        for action in [*witness, *["noop"] * limits.max_wait]:
            world.step(action)
            played.append(action)
            if condition_met(world, condition, autumnbench):
                return played
        world.reset()
    start = world.snapshot()
    seen = {world.state_key()}
    queue: deque[tuple[WorldSnapshot, tuple[str, ...]]] = deque([(start, ())])
    expanded = 0
    while queue and expanded < limits.max_expanded:
        saved, path = queue.popleft()
        world.restore(saved)
        expanded += 1
        for action in _actions(world):
            world.restore(saved)
            world.step(action)
            if condition_met(world, condition, autumnbench):
                return [*path, action]
            key = world.state_key()
            if key not in seen:
                seen.add(key)
                queue.append((world.snapshot(), (*path, action)))
    return None


def plan(task: PlanningTask, goal, mask, horizon: int, limits: SearchLimits) -> SearchResult:
    """The planner's search for ``goal`` under ``mask`` within ``horizon`` actions, from the
    initial state of the task's original program."""
    world = original_world(task)
    world.reset()
    return search_plan(world, goal, mask, horizon, limits)
