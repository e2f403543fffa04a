"""What the ``autumnbench`` protocol's phases share: the published harness's step rules.

The phases are the same machinery as the worldtest ones (``Phase``: ``reset()``, ``step(text)``
returning ``(observation, reward, terminated, truncated, info)``, the episode runner, the
observers that write transcripts), with the harness's rules (docs/spec/autumnbench-harness.md,
rule ids in brackets):

- **Every returned action is a step** [C2]: valid or not, parsable or not, it counts against
  the phase's budget (the interaction budget; the test phases have none of their own, the
  runner's total cap bounds them [C4]). There is no limit on invalid actions in a row.
- **Errors inside a step** [C6]: where the harness's environment raises (a click coordinate
  that is not an integer, a frame index out of range, the change-detection ``reset``, an error
  of the world program), the step returns an *empty* observation, reward 0, not terminal, and
  whatever the step changed before raising stays changed. ``info["error"]`` says why, so the
  transcript shows it; the agent sees only the empty text.
- **Observations are the harness's text** (``Observation.text``) with its list of offered
  action strings (``Observation.offered``); the frame is still attached for renderers.
- **Image mode** (``settings.render_mode`` image): observation texts lose their grid JSON
  (``_grid``) and the phase sets ``pictures``, the images the harness sends with this
  observation (none with a text-only answer) [R2, A7].
- A **terminal flag** that, as in the harness's change-detection environment [X4, X13], may be
  set by a step that then raises: that step is not terminal, the next one is.

Subclasses implement ``_harness_step(text) -> (reward, terminated, text, valid, extra)`` and may
raise ``HarnessRaise`` (or let an ``AutumnError`` through) where the harness raises.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

from ...actions import Action
from ...autumn import Frame
from ...errors import AutumnError
from ..commands import ActionForm, Command
from ..errors import PhaseStateError
from ..observation import Observation, Picture
from ..phase import Phase, StepResult
from .settings import DEFAULT_SETTINGS, AutumnBenchSettings

__all__ = ["AutumnBenchPhase", "HarnessRaise", "parse_game_action", "click_pattern", "grid_json",
           "INVALID_SELECT"]

#: The harness's reply to an action it does not offer (CD, planning) [X4, P4].
INVALID_SELECT = "Invalid action. Please select a valid action."


class HarnessRaise(Exception):
    """Where the published harness's environment raises inside a step [C6]."""


def grid_json(frame: Frame) -> str:
    """The harness's text grid [R1]: ``json.dumps`` of the rows of colour names."""
    import json

    return json.dumps([list(row) for row in frame.grid])


def harness_picture(frame: Frame, *, program_background: bool) -> Picture:
    """The image the harness draws of ``frame`` [R2]: with the program's background
    (interaction), or, as its CD and planning environments draw, with the default ``black`` in
    the background's place (the frame keeps no record of which cells are background, so a cell
    of an element coloured like the background turns black too)."""
    if program_background or frame.background == "black":
        return Picture(frame.grid, fill=frame.background)
    rows = tuple(tuple("black" if c == frame.background else c for c in row)
                 for row in frame.grid)
    return Picture(rows, fill="black")


def click_pattern(size: int) -> str:
    """The offered click action [I2], e.g. ``click [0-15] [0-15]``."""
    return f"click [0-{size - 1}] [0-{size - 1}]"


def parse_game_action(text: str) -> Action | None:
    """The harness's parse of a world action [I3]: strip, keep the first line; a line starting
    ``click`` needs at least 3 whitespace-separated tokens, and ``int()`` of the 2nd and 3rd
    (no bounds check; extra tokens ignored); exactly ``left``/``right``/``up``/``down``/
    ``noop``. Returns None for anything else; a coordinate ``int()`` refuses raises
    ``HarnessRaise``, as the harness does."""
    line = text.strip().split("\n")[0]
    if line.startswith("click"):
        tokens = line.split()
        if len(tokens) < 3:
            return None
        try:
            x, y = int(tokens[1]), int(tokens[2])
        except ValueError as exc:
            raise HarnessRaise(f"click coordinates are not integers: {exc}") from None
        return Action.click(x, y)
    if line in ("left", "right", "up", "down", "noop"):
        return Action(line)
    return None


class AutumnBenchPhase(Phase):
    """A phase with the harness's step rules (module docstring)."""

    def __init__(self, *, family: str | None, budget: int,
                 settings: AutumnBenchSettings = DEFAULT_SETTINGS) -> None:
        super().__init__(family=family, budget=budget, max_consecutive_invalid=budget + 1)
        self.settings = settings
        self.text = ""                 # the current observation text
        self.pictures: tuple[Picture, ...] = ()   # image mode: the images sent with it
        self.raw_reward = 0.0
        self._flag = False             # the harness env's terminal flag [X4]

    @property
    def score(self) -> float:
        return max(0.0, self.raw_reward)

    @property
    def valid_actions(self) -> tuple[ActionForm, ...]:
        return ()

    @property
    @abstractmethod
    def offered(self) -> tuple[str, ...]:
        """The action strings the harness offers now, in its order."""

    def step(self, text: object) -> StepResult:
        if not self._started:
            raise PhaseStateError(f"the {self.name} phase has not been started: call reset()")
        if self._done:
            raise PhaseStateError(f"the {self.name} phase has ended; no more actions")
        self._message = None
        shown = text if isinstance(text, str) else repr(text)
        self.steps += 1                                   # every action is a step [C2]
        extra: dict[str, Any] = {}
        self.pictures = ()
        try:
            if not isinstance(text, str):
                raise HarnessRaise(f"the action is not text: {shown}")
            reward, terminated, self.text, valid, extra = self._autumnbench_step(text)
        except (HarnessRaise, AutumnError) as exc:        # [C6]
            reward, terminated, self.text, valid = 0.0, False, "", False
            self.pictures = ()
            extra = {"error": f"{type(exc).__name__}: {exc}"}
        if not valid:
            self.invalid_actions += 1
        else:
            kind = shown.strip().split("\n")[0].split(" ")[0] or shown
            self.counts[kind] = self.counts.get(kind, 0) + 1
        truncated = not terminated and self.steps >= self.budget
        if terminated or truncated:
            self._done = True
            self.ended = "terminated" if terminated else "truncated"
        info = self._info(valid=valid, action=shown, kind=None)
        info.update(extra)
        if not valid and "error" not in extra:
            info["invalid_action"] = self.text
        return self.observation(), reward, terminated, truncated, info

    @abstractmethod
    def _autumnbench_step(self, text: str) -> tuple[float, bool, str, bool, dict[str, Any]]:
        """One step: (reward, terminated, observation text, valid, extra info)."""

    def _apply(self, action: Action | Command) -> tuple[float, bool, dict[str, Any]]:
        raise NotImplementedError("harness phases step through _harness_step")

    @abstractmethod
    def _frame(self) -> Frame:
        """The frame the observation shows (for renderers and the transcript viewer)."""

    def _payload(self) -> dict[str, Any]:
        return {}

    def _grid(self, grid_text: str) -> str:
        """A grid's JSON in the observation text: in image mode the image carries it."""
        return "" if self.settings.image else grid_text

    def _observation(self, invalid: str | None, message: str | None) -> Observation:
        return Observation(phase=self.name, family=self.family, step=self.steps,
                           budget_left=self.budget_left, frame=self._frame(), actions=(),
                           invalid=None, message=message, text=self.text,
                           offered=self.offered, image_mode=self.settings.image,
                           pictures=self.pictures if self.settings.image else (),
                           **self._payload())
