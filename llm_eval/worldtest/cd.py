"""The change-detection test (docs/spec/worldtest.md 3.2).

The agent plays the task's *modified* program (with its trigger and the task's seed), which
behaves like the original until its change shows. Frames of a run are numbered from 0 (the
run's first frame); ``reset`` starts a new run from the initial state.

Actions, in two stages:

1. playing: the world's actions and ``reset``; ``declare`` once the current run has at least
   ``min_steps_before_declare`` actions (3: "any step after the third");
2. after ``declare`` the run is frozen and the agent browses it: ``watch T`` shows frame T of
   the current run, ``submit T`` names frame T as where the change began and ends the test.

The raw reward of ``submit t`` is ``scoring.cd_raw_reward(t, change)`` where ``change`` (``T``)
is the index of the first frame of this run whose state satisfies the task's observational
``condition``, checked on the initial state and after every tick (docs/spec/worldtest.md 3.2); the
phase's ``reward`` is that raw reward, the score ``max(0, raw)``. Ending
without a submission (budget used up) gives raw reward 0. Every valid action (world action,
reset, declare, watch, submit) uses one unit of the budget (``budgets.test_steps``).
"""

from __future__ import annotations

from typing import Any

from ..actions import Action
from ..autumn import Frame
from ..worlds import World
from .commands import WORLD_KINDS, ActionForm, Command, Param, world_forms
from .errors import TaskProgramError
from .observation import CDView, Observation
from .phase import DEFAULT_MAX_CONSECUTIVE_INVALID, Phase
from .scoring import NOT_SUBMITTED, aggregate_score, cd_raw_reward, condition_holds

__all__ = ["CDPhase"]

_PLAY_FORMS = (ActionForm("reset", help="restart the world from its initial state (a new run)"),)
_DECLARE = ActionForm("declare", help="declare that the world changed; then browse this run's "
                                      "frames and submit the frame where the change began")


class CDPhase(Phase):
    """Play the modified world, declare, browse, submit; see the module docstring."""

    name = "cd"

    def __init__(self, world: World, *, condition: str | None, budget: int,
                 declare_after: int = 3, family: str = "cd",
                 max_consecutive_invalid: int = DEFAULT_MAX_CONSECUTIVE_INVALID) -> None:
        super().__init__(family=family, budget=budget,
                         max_consecutive_invalid=max_consecutive_invalid)
        if not condition:
            raise ValueError("the change-detection test needs the task's observational "
                             "condition (hidden.condition)")
        self.world = world
        self.condition = condition
        self.declare_after = declare_after
        self.run = 0
        self.frames: list[Frame] = []
        self.change: int | None = None     # T of the current run
        self.declared = False
        self.watching: int | None = None
        self.submitted: int | None = None
        self.raw_reward = NOT_SUBMITTED
        self._world_forms: tuple[ActionForm, ...] = ()

    @property
    def score(self) -> float:
        return aggregate_score(self.raw_reward)

    @property
    def run_steps(self) -> int:
        return len(self.frames) - 1

    def _start(self) -> None:
        self._new_run()
        self._world_forms = world_forms(self.world.size)

    def _new_run(self) -> None:
        frame, _ = self.world.reset()
        self.run += 1
        self.frames = [frame]
        self.change = None
        self._check_condition()

    def _check_condition(self) -> None:
        if self.change is None and condition_holds(self.world.interpreter, self.condition):
            if len(self.frames) == 1:
                raise TaskProgramError(
                    f"the change condition {self.condition!r} holds on the initial frame: the "
                    "task is invalid (task validation refuses it)")
            self.change = len(self.frames) - 1

    @property
    def valid_actions(self) -> tuple[ActionForm, ...]:
        if self.declared:
            last = len(self.frames) - 1
            return (ActionForm("watch", (Param("T", 0, last),),
                               f"show frame T of this run (0..{last})"),
                    ActionForm("submit", (Param("T", 0, last),),
                               "answer: the change began at frame T of this run; ends the test"))
        forms = (*self._world_forms, *_PLAY_FORMS)
        if self.run_steps >= self.declare_after:
            forms += (_DECLARE,)
        return forms

    def _unavailable(self) -> dict[str, str]:
        if self.declared:
            frozen = "after declare the run is frozen; browse it with watch T and answer " \
                     "with submit T"
            return {kind: frozen for kind in (*WORLD_KINDS, "reset", "declare")}
        browse = "it is available only after declare"
        reasons = {"watch": browse, "submit": browse}
        if self.run_steps < self.declare_after:
            reasons["declare"] = (f"declare is allowed once the current run has at least "
                                  f"{self.declare_after} steps (it has {self.run_steps})")
        return reasons

    def _apply(self, action: Action | Command) -> tuple[float, bool, dict[str, Any]]:
        if isinstance(action, Action):
            frame, _, _, _, info = self.world.step(action)
            self.frames.append(frame)
            self._check_condition()
            return 0.0, False, {"run": self.run, "run_step": self.run_steps}
        match action.kind:
            case "reset":
                self._new_run()
                return 0.0, False, {"run": self.run, "run_step": 0}
            case "declare":
                self.declared = True
                self.watching = len(self.frames) - 1
                return 0.0, False, {"declared_at": self.run_steps}
            case "watch":
                self.watching = action.number
                return 0.0, False, {"watching": action.arg}
            case _:  # submit
                self.submitted = action.arg
                self.raw_reward = cd_raw_reward(action.number, self.change)
                self._end(f"frame {action.arg} submitted; the test is over")
                return self.raw_reward, True, {"submitted": action.arg,
                                               "change_frame": self.change,
                                               "raw_reward": self.raw_reward}

    def _observation(self, invalid: str | None, message: str | None) -> Observation:
        if self.declared and self.watching is not None:   # declare sets what is watched
            frame = self.frames[self.watching]
            view = CDView(run=self.run, run_steps=self.run_steps,
                          declare_after=self.declare_after, declared=True,
                          frames=tuple(self.frames), watching=self.watching)
        else:
            frame = self.frames[-1]
            view = CDView(run=self.run, run_steps=self.run_steps,
                          declare_after=self.declare_after, declared=False)
        return Observation(phase=self.name, family=self.family, step=self.steps,
                           budget_left=self.budget_left, frame=frame,
                           actions=self.valid_actions, invalid=invalid, message=message, cd=view)
