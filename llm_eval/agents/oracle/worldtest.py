"""How the oracle plays the ``worldtest`` protocol's phases (docs/spec/worldtest.md 6).

- interaction: ``go-to-test`` at once (it needs no experience);
- MFP: ``choose K`` with K the option equal to the final frame's hidden patch
  (``solver.mfp_answer``; if no option is equal, which only an invalid task allows, the option
  agreeing on the most cells; ``notes`` says so);
- CD: plays ``hidden.witness`` (then ``noop``) on its own copy of the modified world and
  evaluates the task's observational condition after every step (``solver.change_path``; a
  search when the task has no witness); the first frame where it holds is the scored T. It
  plays up to that frame, declares as soon as declaring is allowed, and submits T. A task
  without a condition: the first frame that differs from the original program's, run in
  lock-step with the same seed (``solver.cd_change_frame``). If no change is found it never
  declares (raw reward 0 rather than -1);
- planning: the planner's plan (``solver.plan``) from the planning test's initial state, then
  plays it; if the search finds nothing it quits.
"""

from __future__ import annotations

from ...tasks.models import CDTask, MFPTask, PlanningTask
from ...worldtest.observation import Observation
from ...worldtest.programs import modified_world
from .moves import Moves
from .solver import cd_change_frame, change_path, mfp_answer, plan, task_of

__all__ = ["WorldTestMoves"]


class WorldTestMoves(Moves):
    """The oracle's moves in one episode under the worldtest protocol (module docstring):
    what it noted, and its planning search."""

    def act(self, observation: Observation) -> str:
        match observation.phase:
            case "interaction":
                return "go-to-test"
            case "mfp":
                answer, misses = mfp_answer(task_of(self.task, MFPTask))
                if misses:
                    self.notes.append(f"no option equals the true patch; option {answer} "
                                      f"differs in {misses} cell(s)")
                return f"choose {answer}"
            case "cd":
                return self.queued(lambda: self._cd_plan(observation), then="noop")
            case "planning":
                return self.queued(lambda: self._planning_plan(observation), then="quit")
        raise ValueError(f"unknown phase {observation.phase!r}")

    def _cd_plan(self, observation: Observation) -> list[str]:
        """Make the condition hold (``solver.change_path``: the witness's prefix, or a search
        when the task has none), declare once allowed, submit the frame where it first held
        (T). A task without a condition: the first frame that differs from the original
        program's in lock-step."""
        task = task_of(self.task, CDTask)
        declare_after = observation.cd_view.declare_after
        budget = observation.budget_left - 2          # keep room for declare and submit
        if task.hidden.condition:
            world = modified_world(task, self.programs_root)
            path = change_path(world, task.hidden.condition, task.hidden.witness,
                               limits=self.change)
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
        view = observation.planning_view
        self.search = plan(task_of(self.task, PlanningTask), view.goal.grid, view.mask,
                           min(view.horizon, observation.budget_left), self.limits)
        if self.search.plan is None:
            self.notes.append(f"no plan found ({self.search.expanded} states expanded, "
                              f"limit {self.limits.max_expanded})")
            return []
        return list(self.search.plan)
