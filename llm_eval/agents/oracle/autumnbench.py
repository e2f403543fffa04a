"""How the oracle plays the ``autumnbench`` protocol's phases (docs/spec/autumnbench-harness.md).

- interaction: ``go-to-test`` at once (``quit`` would do the same [I4]);
- MFP: ``step`` through the recording to its end, then ``choose_option_K`` with K the option
  equal to the final frame's hidden patch, found by simulating the recorded actions from the
  task's seed, one tick each (``solver.mfp_answer``) [M4-M7];
- CD: the shortest action sequence after which the task's condition, read as the harness reads
  it, holds (``solver.change_path``), then ``I found the change!`` on the very next step, which
  is when the harness first sees the condition (T), and ``Submit choice`` on the step after, so
  that ``time - 1 = T`` [X6-X8];
- planning: the planner's plan (``solver.plan``), one tick per action, then ``quit``.
"""

from __future__ import annotations

from ...tasks.models import CDTask, MFPTask, PlanningTask
from ...worldtest.observation import Observation
from ...worldtest.programs import modified_world
from .moves import Moves
from .solver import change_path, mfp_answer, plan, task_of

__all__ = ["AutumnBenchMoves"]


class AutumnBenchMoves(Moves):
    """The oracle's moves in one episode under the autumnbench protocol (module docstring):
    what it noted, and its planning search."""

    def act(self, observation: Observation) -> str:
        match observation.phase:
            case "interaction":
                return "go-to-test"
            case "mfp":
                choices = [a for a in observation.offered if a.startswith("choose_option_")]
                if not choices:
                    return "step"
                answer, misses = mfp_answer(task_of(self.task, MFPTask))
                if misses:
                    self.notes.append(f"no option equals the simulated patch; option "
                                      f"{answer} differs in {misses} cell(s)")
                return f"choose_option_{answer}"
            case "cd":
                return self.queued(self._cd_plan, then="quit")
            case "planning":
                return self.queued(lambda: self._planning_plan(observation), then="quit")
        raise ValueError(f"unknown phase {observation.phase!r}")

    def _cd_plan(self) -> list[str]:
        task = task_of(self.task, CDTask)
        world = modified_world(task, self.programs_root)
        if task.hidden.condition is None:
            self.notes.append("the task has no change condition to make hold; quitting")
            return []
        path = change_path(world, task.hidden.condition, task.hidden.witness, autumnbench=True,
                           limits=self.change)
        if path is None:
            self.notes.append("no action sequence makes the condition hold; quitting")
            return []
        while len(path) < 2:      # "I found the change!" is accepted from the 3rd step [X5]
            path.append("noop")
        return [*path, "I found the change!", "Submit choice"]

    def _planning_plan(self, observation: Observation) -> list[str]:
        view = observation.planning_view
        horizon = max(1, observation.budget_left)
        self.search = plan(task_of(self.task, PlanningTask), view.goal.grid, view.mask, horizon,
                           self.limits)
        if self.search.plan is None:
            self.notes.append("no plan found within the limits; quitting")
            return []
        return list(self.search.plan)
