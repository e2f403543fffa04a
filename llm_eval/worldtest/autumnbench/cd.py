"""Change detection under the ``autumnbench`` protocol [X1-X13].

State, as in the harness: the modified world (with the condition also given as its trigger, as
the harness passes it to ``run_script``), the phase clock ``time``, ``triggered`` and ``T``,
``frames`` (the observation texts shown, ``frames[0]`` being the first, intro included),
``curr_frame`` and ``state`` (``interactive`` or ``change``).

Every step, in order [X4]: ``time += 1``; the condition is evaluated on the current state (its
printed value containing ``true`` sets ``triggered`` for good, and the step that set it sets
``T = time``); ``curr_frame = time - 1``; an action that is not offered *now* (with the new
time) is invalid ("Invalid action. Please select a valid action."), except that text starting
``click`` skips that check [X11]; then:

- ``quit``: the terminal flag is set and the observation is ``frames[time - 1]``, which raises
  when out of range: then the step is empty and not terminal, and the next step is terminal
  whatever it is [X4, X13].
- ``I found the change!`` (accepted once ``time > 2``, offered from the 4th step [X5]): state
  ``change``, ``curr_frame = 0``, observation ``frames[0]``.
- ``choose_frame_i``: ``curr_frame = i``, observation ``frames[i]``.
- ``Submit choice``: terminal; raw reward ``cd_raw_reward(time - 1, T)`` (-1 when the condition
  never held in this run) [X7]; the frame chosen with ``choose_frame_i`` is not what is scored.
- ``reset``: a fresh world with the same seed, ``triggered``, ``T`` and ``frames`` cleared,
  ``curr_frame = 0``, the clock kept; then the harness raises, so the observation is empty and
  the new initial frame is never recorded [X4].
- a world action, in ``interactive``: parsed as in the interaction phase; unparsable (a click
  with fewer than 3 tokens) appends the current grid again with no tick; otherwise the input is
  registered, the condition evaluated again (it may set ``T = time``), one tick runs and the new
  grid is shown and appended. In ``change`` (only clicks get there) a click that parses runs a
  tick, then the observation is ``frames[time - 1]``, out of range, so the step is empty [X11].

In image mode each grid observation is "Here is the current frame: " (the first: the intro)
with the frame's image, drawn with black in the background's place [R2]; ``Submit choice``
sets the terminal flag and then raises, as the harness's text-only ``change_observation``
does, so the step is empty and unscored and the next step that does not raise ends the test
with reward 0: change detection is never scored in image mode [X12].

With ``--harness-texts`` the first observation is the harness's intro immediately followed by
the grid JSON.

So the condition is seen one step late [X6]: a state made by step k's tick is first seen at step
k+1. The final text says whether the environment had changed and by how many frames the answer
was off [X9].
"""

from __future__ import annotations

from typing import Any

from ...autumn import Frame
from ...worlds import World
from ..scoring import cd_raw_reward, condition_holds
from .base import (
    INVALID_SELECT,
    AutumnBenchPhase,
    HarnessRaise,
    click_pattern,
    grid_json,
    harness_picture,
    parse_game_action,
)
from .settings import DEFAULT_SETTINGS, AutumnBenchSettings

__all__ = ["AutumnBenchCD", "CD_INTRO", "FOUND", "SUBMIT", "NOT_CHANGED"]

FOUND = "I found the change!"
SUBMIT = "Submit choice"
NOT_CHANGED = "The environment has not changed yet."
CD_INTRO = (
    "This is the test phase. You are in a changed version of the environment: at some point one "
    "of its rules switches to behave differently. Detect the change. As soon as you see it, "
    f"choose '{FOUND}', then choose the frame where the change began and submit it. You may "
    "browse the frames before submitting. Declaring a change before it has happened is "
    "penalised.")


class AutumnBenchCD(AutumnBenchPhase):
    """The harness's change-detection environment (module docstring)."""

    name = "cd"

    def __init__(self, world: World, *, condition: str | None, budget: int,
                 family: str = "cd", settings: AutumnBenchSettings = DEFAULT_SETTINGS) -> None:
        super().__init__(family=family, budget=budget, settings=settings)
        if not condition:
            raise ValueError("the change-detection test needs a condition")
        self.world = world
        self.condition = condition
        self.time = 0
        self.triggered = False
        self.change: int | None = None       # T, on the phase clock
        self.frames: list[str] = []
        self._grids: list[Frame] = []       # the frame each of ``frames`` shows
        self.curr_frame = 0
        self.state = "interactive"
        self.submitted: int | None = None
        self._click = ""

    def _start(self) -> None:
        frame, _ = self.world.reset()
        self._click = click_pattern(frame.size)
        head = self.settings.text("cd_intro", f"{CD_INTRO}\n\nHere is the initial frame: ")
        self.text = head + self._grid(grid_json(frame))
        self.frames, self._grids = [self.text], [frame]
        self._show(frame)

    def _show(self, frame: Frame) -> None:
        if self.settings.image:
            self.pictures = (harness_picture(frame, program_background=False),)

    @property
    def offered(self) -> tuple[str, ...]:
        return self._offered(self.time)

    def _offered(self, time: int) -> tuple[str, ...]:
        if self.state == "change":
            return (*(f"choose_frame_{i}" for i in range(len(self.frames))), SUBMIT, "quit")
        found = (FOUND,) if time > 2 else ()
        return ("left", "right", "up", "down", self._click, "noop", "quit", "reset", *found,
                "quit")

    def _see_condition(self) -> None:
        if condition_holds(self.world.interpreter, self.condition, autumnbench=True) \
                and not self.triggered:
            self.triggered = True
            self.change = self.time

    def _shown(self, index: int) -> str:
        if not 0 <= index < len(self.frames):
            raise HarnessRaise(f"frames[{index}] is out of range ({len(self.frames)} frames)")
        self._show(self._grids[index])
        return self.frames[index]

    def _append(self, frame: Frame) -> str:
        shown = f"Here is the current frame: {self._grid(grid_json(frame))}"
        self.frames.append(shown)
        self._grids.append(frame)
        self._show(frame)
        return shown

    def _autumnbench_step(self, text: str) -> tuple[float, bool, str, bool, dict[str, Any]]:
        flagged = self._flag                 # set by an earlier step that then raised [X13]
        reward, terminated, shown, valid, extra = self._dispatch(text)
        if flagged and not terminated:       # the step runs as usual and reports terminal
            self._end("the change-detection test ended (its terminal flag was set)")
            terminated = True
        return reward, terminated, shown, valid, extra

    def _dispatch(self, text: str) -> tuple[float, bool, str, bool, dict[str, Any]]:
        self.time += 1
        self._see_condition()
        self.curr_frame = self.time - 1
        if not text.startswith("click") and text not in self._offered(self.time):
            return 0.0, False, INVALID_SELECT, False, {}
        if text == "quit":
            self._flag = True
            shown = self._shown(self.time - 1)
            self._end("the agent quit the change-detection test")
            return 0.0, True, shown, True, {}
        if text == FOUND:
            self.state = "change"
            self.curr_frame = 0
            return 0.0, False, self._shown(0), True, {"declared_at": self.time}
        if text.startswith("choose_frame_"):
            self.curr_frame = int(text.removeprefix("choose_frame_"))
            return 0.0, False, self._shown(self.curr_frame), True, {"watching": self.curr_frame}
        if text == SUBMIT:
            return self._submit()
        if text == "reset":
            self.world.reset()
            self.triggered, self.change, self.frames, self.curr_frame = False, None, [], 0
            self._grids = []
            raise HarnessRaise("the harness's reset branch sets no observation")
        return self._game_action(text)

    def _submit(self) -> tuple[float, bool, str, bool, dict[str, Any]]:
        self._flag = True
        if self.settings.image:      # [X12]
            raise HarnessRaise("Submit choice in image mode: the harness's change_observation "
                               "supports text only")
        t = self.curr_frame
        self.submitted = t
        self.raw_reward = cd_raw_reward(t, self.change)
        if self.change is None:
            final = NOT_CHANGED
        else:
            final = (f"The environment changed at frame {self.change}; your answer, frame {t}, "
                     f"is {t - self.change} frames from it.")
        self._end(f"frame {t} submitted; the test is over")
        return self.raw_reward, True, final, True, {"submitted": t, "change_frame": self.change,
                                                    "raw_reward": self.raw_reward}

    def _game_action(self, text: str) -> tuple[float, bool, str, bool, dict[str, Any]]:
        action = parse_game_action(text)
        if self.state == "change":           # only clicks reach here [X11]
            if action is not None:
                self.world.tick(action)
            return 0.0, False, self._shown(self.time - 1), True, {}
        if action is None:                    # a click with fewer than 3 tokens
            return 0.0, False, self._append(self.world.frame), False, {}
        from ...actions import apply_action

        apply_action(self.world.interpreter, action)   # registered, then seen again [X4]
        self._see_condition()
        frame = self.world.tick(None)[-1]
        return 0.0, False, self._append(frame), True, {"run_step": self.world.steps}

    def _frame(self) -> Frame:
        return self.world.frame
