"""The interaction phase (docs/spec/worldtest.md 1): free play in the world, reward-free.

Actions: the world's (``click X Y``, ``left``, ``right``, ``up``, ``down``, ``noop``; one
action = ``ticks_per_action`` ticks, default 1, the extra ones noops, every intermediate frame
shown in ``Observation.frames``; ``noop`` advances time), ``reset`` (restart the world from its initial
state with the same seed) and ``go-to-test`` (end the phase; the test follows).

The budget (``interaction_steps``, default 200) counts world actions and resets; when it is used
up the phase is truncated and the test follows, exactly as after ``go-to-test``. Reward is
always 0.

The phase also measures behaviour (docs/spec/worldtest.md 7): valid actions by kind (``counts``), resets,
the action sequence of every run (a run starts at the beginning of the phase and at every
reset), and rule coverage over the whole phase: an on-clause counts as fired if it fired in any
run (each reset starts a new interpreter, whose own coverage starts empty).
"""

from __future__ import annotations

from typing import Any

from ..actions import Action
from ..worlds import World
from .commands import ActionForm, Command, world_forms
from .observation import Observation
from .phase import DEFAULT_MAX_CONSECUTIVE_INVALID, Phase

__all__ = ["InteractionPhase", "DEFAULT_INTERACTION_STEPS"]

DEFAULT_INTERACTION_STEPS = 200

_PHASE_FORMS = (ActionForm("reset", help="restart the world from its initial state"),
                ActionForm("go-to-test", help="end the interaction phase and start the test"))


class InteractionPhase(Phase):
    """Free play in ``world`` (a World, reset here); see the module docstring."""

    name = "interaction"

    def __init__(self, world: World, *, budget: int = DEFAULT_INTERACTION_STEPS,
                 max_consecutive_invalid: int = DEFAULT_MAX_CONSECUTIVE_INVALID,
                 ticks_per_action: int = 1) -> None:
        # family None: nothing in this phase may tell the agent which test follows
        super().__init__(family=None, budget=budget,
                         max_consecutive_invalid=max_consecutive_invalid)
        self.world = world
        world.ticks_per_action = ticks_per_action
        self.ticks_per_action = ticks_per_action
        self.resets = 0
        self._frames: tuple = ()
        self.runs: list[list[str]] = []
        self._fired: list[bool] = []
        self._lines: tuple[int, ...] = ()
        self._forms: tuple[ActionForm, ...] = ()

    def _start(self) -> None:
        self.world.reset()
        self._forms = (*world_forms(self.world.size), *_PHASE_FORMS)
        self.runs.append([])
        coverage = self.world.coverage()
        self._fired = list(coverage.fired)
        self._lines = coverage.lines

    @property
    def valid_actions(self) -> tuple[ActionForm, ...]:
        return self._forms

    def _apply(self, action: Action | Command) -> tuple[float, bool, dict[str, Any]]:
        if isinstance(action, Action):
            _, _, _, _, world_info = self.world.step(action)
            self._frames = world_info.get("frames", ())
            self.runs[-1].append(str(action))
            self._note_coverage()
            return 0.0, False, {"world_step": world_info["step"]}
        if action.kind == "reset":
            self._note_coverage()
            self.world.reset()
            self._frames = ()
            self.resets += 1
            self.runs.append([])
            return 0.0, False, {"world_step": 0}
        # go-to-test
        self._end("the interaction phase ended: the agent chose go-to-test")
        return 0.0, True, {}

    def _note_coverage(self) -> None:
        for i, fired in enumerate(self.world.coverage().fired):
            if fired:
                self._fired[i] = True

    @property
    def coverage(self) -> tuple[int, int]:
        """(on-clauses fired in any run of this phase, on-clauses of the program)."""
        return sum(self._fired), len(self._fired)

    @property
    def fired(self) -> tuple[bool, ...]:
        return tuple(self._fired)

    @property
    def clause_lines(self) -> tuple[int, ...]:
        return self._lines

    def _observation(self, invalid: str | None, message: str | None) -> Observation:
        frames = () if invalid else self._frames
        return Observation(phase=self.name, family=self.family, step=self.steps,
                           budget_left=self.budget_left, frame=self.world.frame,
                           actions=self._forms, invalid=invalid, message=message,
                           frames=frames)
