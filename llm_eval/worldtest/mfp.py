"""The masked-frame prediction test (docs/spec/worldtest.md 3.1).

The agent is shown a recorded trajectory of the same program: every frame with the action that
led to it, the last frames (from ``masked_from`` on) with one rectangle hidden. It may re-watch
any frame, then picks which of the six options fills the hidden rectangle of the final frame.

Actions:

- ``watch T``: show frame T (0 = the recording's first frame, ``len(frames) - 1`` the final,
  masked one); the phase starts on the final frame;
- ``choose K``: answer with option K, **0-based** (0..5, the order of ``options``), like every
  other number in WorldTest. Ends the phase: reward 1 if K is the answer, else 0.

Every valid action uses one unit of the budget (``budgets.test_steps``); a phase that runs out
without a choice scores 0. The answer is given to the phase (it is the scorer), never shown.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..actions import Action
from ..autumn import Frame
from ..tasks.models import MFPPublic
from .commands import ActionForm, Command, Param
from .observation import MASK_COLOUR, MFPView, Observation
from .phase import DEFAULT_MAX_CONSECUTIVE_INVALID, Phase

__all__ = ["MFPPhase", "masked_frames", "OPTION_COUNT"]

OPTION_COUNT = 6


def masked_frames(public: MFPPublic, background: str) -> tuple[Frame, ...]:
    """The public frames as Frames; hidden cells hold ``MASK_COLOUR``."""
    return tuple(
        Frame(tuple(tuple(MASK_COLOUR if c is None else c for c in row) for row in grid),
              background)
        for grid in public.frames)


class MFPPhase(Phase):
    """Watch the recording, then choose; see the module docstring."""

    name = "mfp"

    def __init__(self, public: MFPPublic, *, answer: int, background: str, budget: int,
                 family: str = "mfp",
                 max_consecutive_invalid: int = DEFAULT_MAX_CONSECUTIVE_INVALID) -> None:
        super().__init__(family=family, budget=budget,
                         max_consecutive_invalid=max_consecutive_invalid)
        if not 0 <= answer < OPTION_COUNT:
            raise ValueError(f"the answer must be an option index 0..5, got {answer}")
        self.public = public
        self._answer = answer
        self.frames = masked_frames(public, background)
        self.watching = len(self.frames) - 1
        self.choice: int | None = None
        self.score = 0.0
        mask = public.mask
        self._view = MFPView(  # what every observation's view shows, but the frame watched
            actions=tuple(public.actions), frames=self.frames,
            mask=(mask.x, mask.y, mask.width, mask.height), masked_from=public.masked_from,
            options=tuple(tuple(tuple(r) for r in o) for o in public.options),
            watching=self.watching)
        self._mask_cells = tuple(mask.cells())
        last = len(self.frames) - 1
        self._forms = (
            ActionForm("watch", (Param("T", 0, last),),
                       f"show frame T of the recording (0..{last}; {last} is the final frame)"),
            ActionForm("choose", (Param("K", 0, OPTION_COUNT - 1),),
                       "answer: option K (0..5) fills the hidden cells of the final frame"),
        )

    def _start(self) -> None:
        self.watching = len(self.frames) - 1

    @property
    def valid_actions(self) -> tuple[ActionForm, ...]:
        return self._forms

    def _apply(self, action: Action | Command) -> tuple[float, bool, dict[str, Any]]:
        assert isinstance(action, Command)  # the forms admit no world action
        if action.kind == "watch":
            self.watching = action.number
            return 0.0, False, {"watching": action.arg}
        self.choice = action.arg
        self.score = 1.0 if action.arg == self._answer else 0.0
        self._end(f"option {action.arg} chosen; the test is over")
        return self.score, True, {"choice": action.arg}

    def _observation(self, invalid: str | None, message: str | None) -> Observation:
        masked = self._mask_cells if self.watching >= self.public.masked_from else ()
        return Observation(phase=self.name, family=self.family, step=self.steps,
                           budget_left=self.budget_left, frame=self.frames[self.watching],
                           actions=self._forms, invalid=invalid, message=message,
                           masked=masked,
                           mfp=replace(self._view, watching=self.watching))
