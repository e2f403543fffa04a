"""The ``autumn`` tool: run the agent's hypothesis, an Autumn program, on its own history.

``check_hypothesis(program, history, seed)`` loads the program with the episode's world seed
(the seed only fixes the program's random draws: a hypothesis that is the world's program
then makes the world's frames; the seed says nothing of the rules) and replays every run of
the agent's interaction history (``history.History``) from the program's start: the first
frame, then each action's frames. It returns the first step whose frame differs from what the
agent saw, with a short description of the difference, or that every frame matches so far.
A program that does not parse or load, or fails while running, gives the interpreter's
message, placed at the step where it failed. It never sees the task's hidden half: only the
agent's program and the agent's own observations.

Bounds: the program is at most ``MAX_PROGRAM_CHARS`` characters; every load and tick runs
under the interpreter's work budget (``WORK_BUDGET`` units, 300 times what the costliest
shipped world's tick uses), so a runaway program stops at the same point on every machine
(``AutumnLimitError``, reported as a message).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..actions import apply_action, parse_action
from ..autumn import Frame, Interpreter
from ..errors import AutumnError
from ..seeds import is_degenerate_seed
from .history import History

__all__ = ["AutumnCheck", "check_hypothesis", "MAX_PROGRAM_CHARS", "WORK_BUDGET",
           "MAX_DIFFERENCES_SHOWN"]

MAX_PROGRAM_CHARS = 64_000
WORK_BUDGET = 1_000_000
MAX_DIFFERENCES_SHOWN = 5


@dataclass(frozen=True, slots=True)
class AutumnCheck:
    """One check's outcome. ``status``: ``matches`` (every frame so far), ``differs`` (at
    ``step``), ``error`` (the program did not load or failed at ``step``); ``checked``: the
    frames compared; ``message``: the text the model gets."""

    status: str
    checked: int
    message: str
    step: int | None = None

    def detail(self) -> dict:
        return {"status": self.status, "checked": self.checked, "step": self.step}


def _where(run: int, step: int, action: str | None) -> str:
    if action is None:
        return f"the first frame of run {run}" + (" (the phase's start)" if run == 0 else
                                                  " (after reset)")
    return f"step {step} (run {run}, after `{action}`)"


def _difference(seen: Frame, made: Frame) -> str:
    """The difference of two frames in a line or two."""
    if seen.size != made.size:
        return f"the program's grid is {made.size}x{made.size}; you saw {seen.size}x{seen.size}"
    cells = [(x, y) for y in range(seen.size) for x in range(seen.size)
             if seen.grid[y][x] != made.grid[y][x]]
    shown = "; ".join(f"({x},{y}) you saw {seen.grid[y][x]}, the program gives "
                      f"{made.grid[y][x]}" for x, y in cells[:MAX_DIFFERENCES_SHOWN])
    more = f"; and {len(cells) - MAX_DIFFERENCES_SHOWN} more" \
        if len(cells) > MAX_DIFFERENCES_SHOWN else ""
    background = (f" (background: you saw {seen.background}, the program gives "
                  f"{made.background})" if seen.background != made.background else "")
    return f"{len(cells)} cell(s) differ: {shown}{more}{background}"


def check_hypothesis(program: str, history: History, seed: int) -> AutumnCheck:
    """Run ``program`` on ``history`` (module docstring)."""
    if not program.strip():
        return AutumnCheck("error", 0, "error: the program is empty")
    if len(program) > MAX_PROGRAM_CHARS:
        return AutumnCheck("error", 0, f"error: the program has {len(program):,} characters, "
                                       f"over the cap of {MAX_PROGRAM_CHARS:,}")
    if not history.runs:
        return AutumnCheck("error", 0, "error: there is nothing to check yet: no frame of the "
                                       "interaction phase has been seen")
    checked = 0
    for r, run in enumerate(history.runs):
        interpreter = Interpreter(work_budget=WORK_BUDGET)
        try:
            interpreter.run_script(program, seed=seed, path="<hypothesis>",
                                   allow_degenerate_seed=is_degenerate_seed(seed))
            made = interpreter.render_frame()
        except AutumnError as exc:
            return AutumnCheck("error", checked, f"error: the program does not load: {exc}")
        if made != run.start:
            return AutumnCheck("differs", checked,
                               f"differs at {_where(r, run.start_step, None)}: "
                               f"{_difference(run.start, made)}", run.start_step)
        checked += 1
        for step, action, frames in run.steps:
            try:
                apply_action(interpreter, parse_action(action))
                for k, seen in enumerate(frames):
                    interpreter.step()
                    made = interpreter.render_frame()
                    if made != seen:
                        tick = f" (tick {k + 1} of {len(frames)})" if len(frames) > 1 else ""
                        return AutumnCheck("differs", checked,
                                           f"differs at {_where(r, step, action)}{tick}: "
                                           f"{_difference(seen, made)}", step)
                    checked += 1
            except AutumnError as exc:
                return AutumnCheck("error", checked,
                                   f"error at {_where(r, step, action)}: {exc}", step)
    steps = history.actions
    return AutumnCheck("matches", checked,
                       f"matches so far: all {checked} frame(s) of {len(history.runs)} run(s) "
                       f"and {steps} action(s) agree")
