"""The oracle agent: knows the true program (docs/spec/worldtest.md 6); the upper reference and the task
checker.

``OracleAgent(task)`` is given the whole task, hidden half included, and the world's program.

- interaction: ``go-to-test`` at once (it needs no experience);
- MFP: replays the recorded actions from the task's seed on the original program and chooses
  the option equal to the final frame's hidden patch (if no option is equal, which only an
  invalid task allows, the option agreeing on the most cells; ``notes`` says so);
- CD: plays ``hidden.witness`` (then ``noop``) on its own copy of the modified world and
  evaluates the task's observational condition after every step (``oracle_harness.change_path``;
  a search when the task has no witness); the first frame where it holds is the scored T. It
  plays up to that frame, declares as soon as declaring is allowed, and submits T. A task
  without a condition: the first frame that differs from the original program's, run in
  lock-step with the same seed (``cd_change_frame``). If no change is found it never declares
  (raw reward 0 rather than -1);
- planning: searches for a plan with ``search.search_plan`` (best-first width search with state
  hashing, bounded by ``limits``) from the planning test's initial state, then plays it; if the
  search finds nothing it quits.

Everything is simulated on the oracle's own worlds, never on the phase's.
"""

from __future__ import annotations

from collections import deque

from ..tasks.models import CDTask, MFPTask, PlanningTask
from ..worldtest.observation import EpisodeStart, Observation
from ..worldtest.programs import ProgramsRoot, modified_world, original_world
from ..worldtest.protocols import protocol as protocol_profile
from .search import SearchLimits, SearchResult, search_plan

__all__ = ["OracleAgent", "mfp_answer", "cd_change_frame"]


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
    for i in range(budget):
        action = task.hidden.witness[i] if i < len(task.hidden.witness) else "noop"
        expected, _, _, _, _ = original.step(action)
        seen, _, _, _, _ = modified.step(action)
        played.append(action)
        if seen != expected:
            return i + 1, played
    return None, played


class OracleAgent:
    """Plays every phase with knowledge of the true program; see the module docstring."""

    name = "oracle"

    def __init__(self, task: MFPTask | CDTask | PlanningTask, *,
                 programs_root: ProgramsRoot | None = None,
                 limits: SearchLimits = SearchLimits()) -> None:
        self.task = task
        self.programs_root = programs_root
        self.limits = limits
        self.notes: list[str] = []
        self.search: SearchResult | None = None
        self._queue: deque[str] | None = None
        self._plays_harness = False   # the episode's protocol shows the harness's text (reset)

    def reset(self, start: EpisodeStart) -> None:
        self._queue = None
        self.notes = []
        self.search = None
        self._harness = None
        self._plays_harness = protocol_profile(start.protocol).shows_harness_text

    def act(self, observation: Observation) -> str:
        if self._plays_harness:   # autumnbench (oracle_harness)
            if getattr(self, "_harness", None) is None:
                from .oracle_harness import HarnessOraclePlan

                self._harness = HarnessOraclePlan(self)
            return self._harness.act(observation)
        match observation.phase:
            case "interaction":
                return "go-to-test"
            case "mfp":
                answer, misses = mfp_answer(self.task)
                if misses:
                    self.notes.append(f"no option equals the true patch; option {answer} "
                                      f"differs in {misses} cell(s)")
                return f"choose {answer}"
            case "cd":
                if self._queue is None:
                    self._queue = deque(self._cd_plan(observation))
                return self._queue.popleft() if self._queue else "noop"
            case "planning":
                if self._queue is None:
                    self._queue = deque(self._planning_plan(observation))
                return self._queue.popleft() if self._queue else "quit"
        raise ValueError(f"unknown phase {observation.phase!r}")

    def _cd_plan(self, observation: Observation) -> list[str]:
        """Make the condition hold (``oracle_harness.change_path``: the witness's prefix, or a
        search when the task has none), declare once allowed, submit the frame where it first
        held (T). A task without a condition: the first frame that differs from the original
        program's in lock-step."""
        task = self.task
        declare_after = observation.cd.declare_after
        budget = observation.budget_left - 2          # keep room for declare and submit
        if task.hidden.condition:
            from .oracle_harness import change_path

            world = modified_world(task, self.programs_root)
            path = change_path(world, task.hidden.condition, task.hidden.witness)
            change, played = (None, []) if path is None else (len(path), path)
        else:
            change, played = cd_change_frame(task, max(0, budget), self.programs_root)
        if change is None:
            self.notes.append(f"no change found within {budget} actions; not declaring")
            return []
        actions = played[:change]
        while len(actions) < declare_after:
            i = len(actions)
            witness = task.hidden.witness or []
            actions.append(witness[i] if i < len(witness) else "noop")
        if len(actions) + 2 > observation.budget_left:
            self.notes.append("the change shows too late to declare within the budget")
            return []
        return [*actions, "declare", f"submit {change}"]

    def _planning_plan(self, observation: Observation) -> list[str]:
        view = observation.planning
        world = original_world(self.task)
        world.reset()
        self.search = search_plan(world, view.goal.grid, view.mask,
                                  min(view.horizon, observation.budget_left), self.limits)
        if self.search.plan is None:
            self.notes.append(f"no plan found ({self.search.expanded} states expanded, "
                              f"limit {self.limits.max_expanded})")
            return []
        return list(self.search.plan)
