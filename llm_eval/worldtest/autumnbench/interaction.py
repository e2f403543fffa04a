"""The interaction phase under the ``autumnbench`` protocol [I1-I8].

- Offered, in the harness's order: ``left``, ``right``, ``up``, ``down``, ``click [0-K] [0-K]``,
  ``noop``, ``quit``, ``go-to-test``, ``reset`` [I2].
- Every step advances the phase clock ``time`` first [I3]. ``quit`` and ``go-to-test`` (exact
  text) end the phase [I4]. ``reset`` (exact) restarts the program with the same seed, keeps
  the clock and answers with the grid alone. Anything else is parsed as a world action
  (``parse_game_action``): unknown text or a click with fewer than 3 tokens is invalid (no tick,
  the current grid returned); a coordinate that is not an integer raises [I5, C6].
- **Frame stacking** [I6]: a valid action runs ``n`` ticks, its own and ``n - 1`` noops, where
  ``n`` is the program's ``FRAME_RATE`` read at reset (8 in the standard library), and the
  observation lists every frame: blocks ``Frame time: F`` / ``Action took: A`` /
  ``Observation: <grid>`` with ``F = (time - 1) * n + 2 + k``, joined by a blank line and
  ``Observation: `` (so later blocks begin ``Observation: Frame time: ...``). With
  ``stack_frames`` False one tick runs and the grid alone is returned. With ``skip_frames``
  the same ticks run and only the last grid is shown, after a line saying how many frames
  were skipped (our words, or the harness's own line with ``--harness-texts``).
- **Image mode** [I7]: a stacked action runs ``1 + n`` ticks and only the last frame's image is
  sent (text empty); with ``skip_frames`` the skip line says ``True`` frames, as the harness's
  does (it prints the flag, not the count); without stacking one tick and its image. Every
  grid is an image drawn with the program's background [R2].
- The first observation is the intro and a line introducing the grid (ours, or the harness's
  own with ``--harness-texts``: then exactly its concatenation, intro + grid line + JSON).
- The budget counts every step; the runner switches to the test when it is used up, and the
  last action's frames are never shown [C3]. The agent is never told the budget.
"""

from __future__ import annotations

from typing import Any

from ...autumn import Frame
from ...worlds import World
from .base import AutumnBenchPhase, click_pattern, grid_json, harness_picture, parse_game_action
from .settings import DEFAULT_SETTINGS, AutumnBenchSettings

__all__ = ["AutumnBenchInteraction", "INTERACTION_INTRO", "SKIPPED"]

#: our words for the harness's skip_frames line [I6]; {count} is n (image mode: "True" [I7])
SKIPPED = "{count} frames were skipped; the current frame follows. "

INTERACTION_INTRO = (
    "This is the interactive phase. You are in a grid world whose rules you do not know. Act in "
    "it to find out how it works. You may reset the world to its initial state at any time. "
    "When you think you understand it, choose go-to-test; questions about the world follow.")


class AutumnBenchInteraction(AutumnBenchPhase):
    """Free play with the harness's rules (module docstring)."""

    name = "interaction"

    def __init__(self, world: World, *, budget: int, stack_frames: bool | None = None,
                 settings: AutumnBenchSettings = DEFAULT_SETTINGS) -> None:
        if stack_frames is not None and stack_frames != settings.stack_frames:
            from dataclasses import replace

            settings = replace(settings, stack_frames=stack_frames)
        super().__init__(family=None, budget=budget, settings=settings)
        self.world = world
        self.stack_frames = settings.stack_frames
        self.time = 0
        self.frame_rate = 1
        self.resets = 0
        self.runs: list[list[str]] = []
        self._fired: list[bool] = []
        self._offered: tuple[str, ...] = ()

    def _start(self) -> None:
        frame, _ = self.world.reset()
        self.runs.append([])
        self._fired = list(self.world.coverage().fired)
        self.frame_rate = (self.world.interpreter.get_frame_rate() if self.stack_frames else 1)
        size = frame.size
        self._offered = ("left", "right", "up", "down", click_pattern(size), "noop", "quit",
                         "go-to-test", "reset")
        texts = self.settings.texts
        head = (f"{INTERACTION_INTRO}\n\nThe initial grid is:\n" if texts is None
                else texts["interaction_intro"] + texts["interaction_grid_line"])
        self.text = head + self._grid(grid_json(frame))
        self._show(frame)

    def _show(self, frame: Frame) -> None:
        if self.settings.image:
            self.pictures = (harness_picture(frame, program_background=True),)

    @property
    def offered(self) -> tuple[str, ...]:
        return self._offered

    def _autumnbench_step(self, text: str) -> tuple[float, bool, str, bool, dict[str, Any]]:
        self.time += 1
        if text in ("quit", "go-to-test"):
            self._end(f"the interaction phase ended: the agent chose {text}")
            return 0.0, True, "", True, {}
        if text == "reset":
            self._note_coverage()
            frame, _ = self.world.reset()
            self.resets += 1
            self.runs.append([])
            self._show(frame)
            return 0.0, False, self._grid(grid_json(frame)), True, {"world_step": 0}
        action = parse_game_action(text)
        if action is None:
            self._show(self.world.frame)
            return 0.0, False, self._grid(grid_json(self.world.frame)), False, {}
        ticks = self.frame_rate
        if self.settings.image and self.stack_frames:
            ticks += 1          # the harness's image branch runs n more after its own [I7]
        frames = self.world.tick(action, ticks)
        self._show(frames[-1])
        self.runs[-1].append(str(action))
        self._note_coverage()
        return 0.0, False, self._stacked(text, frames), True, {"world_step": self.world.steps}

    def _stacked(self, text: str, frames: tuple[Frame, ...]) -> str:
        if not self.stack_frames:
            return self._grid(grid_json(frames[-1]))
        n = self.frame_rate
        if self.settings.image:
            return SKIPPED.format(count=True) if self.settings.skip_frames else ""
        if self.settings.skip_frames:
            if self.settings.texts is not None:
                return self.settings.texts.skip_line(n, grid_json(frames[-1]))
            return SKIPPED.format(count=n) + grid_json(frames[-1])
        blocks = [f"Frame time: {(self.time - 1) * n + 2 + k}\n"
                  f"Action took: {text if k == 0 else 'noop'}\n"
                  f"Observation: {grid_json(frame)}" for k, frame in enumerate(frames)]
        return "\n\nObservation: ".join(blocks)

    def _note_coverage(self) -> None:
        for i, fired in enumerate(self.world.coverage().fired):
            if fired:
                self._fired[i] = True

    @property
    def coverage(self) -> tuple[int, int]:
        return sum(self._fired), len(self._fired)

    def _frame(self) -> Frame:
        return self.world.frame
