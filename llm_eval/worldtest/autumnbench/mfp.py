"""Masked-frame prediction under the ``autumnbench`` protocol [M1-M10].

No simulation: the frames come from the task. The agent steps through the recording from
frame 0 with ``step``; only once it has reached the last frame (``is_finished``, for good) are
``rewind`` and ``choose_option_0`` ... ``choose_option_{C-1}`` offered [M4]. Each observation
is the JSON object ``{"video_location": "t/L-1", "render": ..., "action_took": ...,
"is_finished": ...}``; hidden cells render as ``"mask"`` [M3]. Finished observations add
``choices`` and, a quirk the profile keeps, show the *last* frame's action whatever frame is
shown [M5]. ``rewind`` goes back one frame [M6]. ``choose_option_i`` ends the test with raw
reward +1 if right, else -1 [M7]; anything not offered is "Invalid action. Please choose from
the available actions." with nothing changed [M8] (so ``quit``, which the harness handles but
never offers, cannot abstain).

In image mode [M9] an observation's JSON drops ``render`` (and ``choices``): an unfinished
frame sends its image (``mask`` cells slategrey with a black cross, [R2]); a finished one sends
none, because the harness's agent looks its images up under a key the environment does not
write and sends the JSON blob itself as if it were a JPEG, so no grid and no option ever
reaches the model [A7]. With ``--harness-texts`` the first observation is the harness's intro
immediately followed by the JSON.
"""

from __future__ import annotations

import json
from typing import Any

from ...autumn import Frame
from ...tasks.models import MFPPublic
from ..mfp import masked_frames
from ..observation import Picture
from .base import AutumnBenchPhase
from .settings import DEFAULT_SETTINGS, AutumnBenchSettings

__all__ = ["AutumnBenchMFP", "MFP_INTRO", "INVALID_CHOOSE"]

INVALID_CHOOSE = "Invalid action. Please choose from the available actions."
MFP_INTRO = (
    "This is the test phase. You will step through a recorded trajectory of the same "
    "environment with the action step. Each frame gives video_location (which frame of how "
    "many), render (the grid), action_took (the action that led to this frame) and is_finished. "
    "Near the end some cells are hidden and shown as mask. Once the recording is finished, "
    "choose the option that fills the masked region of the final frame. rewind goes back one "
    "frame.")


class AutumnBenchMFP(AutumnBenchPhase):
    """The harness's MFP environment (module docstring)."""

    name = "mfp"

    def __init__(self, public: MFPPublic, *, answer: int, background: str, budget: int,
                 family: str = "mfp", settings: AutumnBenchSettings = DEFAULT_SETTINGS) -> None:
        super().__init__(family=family, budget=budget, settings=settings)
        self.public = public
        self._answer = answer
        self.frames = masked_frames(public, background)
        self.t = 0
        self.finished = False
        self.choice: int | None = None
        self._renders = [self._names(grid) for grid in public.frames]
        self._choices = [[list(row) for row in option] for option in public.options]

    @staticmethod
    def _names(grid) -> list[list[str]]:
        return [["mask" if cell is None else cell for cell in row] for row in grid]

    @property
    def last(self) -> int:
        return len(self.frames) - 1

    def _start(self) -> None:
        self.text = self.settings.text("mfp_intro", f"{MFP_INTRO}\n") + self._frame_json()

    @property
    def offered(self) -> tuple[str, ...]:
        if not self.finished:
            return ("step",)
        return ("step", "rewind", *(f"choose_option_{i}" for i in range(len(self._choices))))

    def _frame_json(self) -> str:
        t = self.t
        if self.settings.image:
            return self._image_json()
        if not self.finished:
            action = "start" if t == 0 else self.public.actions[t - 1]
            return json.dumps({"video_location": f"{t}/{self.last}", "render": self._renders[t],
                               "action_took": action, "is_finished": False})
        return json.dumps({"video_location": f"{t}/{self.last}", "render": self._renders[t],
                           "action_took": self.public.actions[-1] if self.public.actions
                           else "start",
                           "choices": self._choices, "is_finished": True})

    def _image_json(self) -> str:
        t = self.t
        if self.finished:
            action = self.public.actions[-1] if self.public.actions else "start"
        else:
            action = "start" if t == 0 else self.public.actions[t - 1]
            rows = tuple(tuple(row) for row in self._renders[t])
            self.pictures = (Picture(rows, fill="black", crosses=True),)
        return json.dumps({"video_location": f"{t}/{self.last}", "action_took": action,
                           "is_finished": self.finished})

    def _autumnbench_step(self, text: str) -> tuple[float, bool, str, bool, dict[str, Any]]:
        if text not in self.offered:
            return 0.0, False, INVALID_CHOOSE, False, {}
        if text == "step":
            self.t = min(self.t + 1, self.last)
            if self.t == self.last:
                self.finished = True
            return 0.0, False, self._frame_json(), True, {"watching": self.t}
        if text == "rewind":
            self.t = max(self.t - 1, 0)
            return 0.0, False, self._frame_json(), True, {"watching": self.t}
        choice = int(text.removeprefix("choose_option_"))
        self.choice = choice
        self.raw_reward = 1.0 if choice == self._answer else -1.0
        self._end(f"option {choice} chosen; the test is over")
        return self.raw_reward, True, self._frame_json(), True, {"choice": choice}

    def _frame(self) -> Frame:
        return self.frames[self.t]
