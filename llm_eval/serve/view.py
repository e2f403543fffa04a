"""What a participant's page is shown, and which of their actions are accepted.

``page_view(observation)`` turns the ``Observation`` an agent would get into the JSON the
page draws: the frame as the PNG renderer draws it for agents (grid lines, hidden cells
hatched, the planning goal's cells ringed) with its cell layout for mapping clicks, the
action forms valid now (or, under the ``autumnbench`` protocol, the harness's text and offered
strings), the message about the last action, and the phase's payload: MFP (which frame is
watched, how many, the six candidate patches as colours), CD (run, steps, whether declaring
is allowed, the frames to browse after declaring) and planning (the goal image, the horizon).
Everything is taken from the observation, which never holds a task's hidden half, so no
answer, witness, program or condition can reach the page.

``check_action(observation, text)`` accepts only an action valid now: under ``worldtest``
what ``parse_command`` accepts against the observation's forms, under ``autumnbench`` one of
the offered strings or a click inside the grid; it returns the canonical text to hand to the
episode or raises ``ActionRefused`` with the message for the participant. A refused action
never reaches the phase or the interpreter.
"""

from __future__ import annotations

import base64
import io
import re
from typing import Any

from ..errors import ActionSyntaxError, LlmEvalError
from ..render.palette import MASK_COLOUR, hex_rgb, rgb
from ..render.png import render_image
from ..worldtest.commands import parse_command
from ..worldtest.observation import Observation

__all__ = ["page_view", "check_action", "ActionRefused", "cell_size_for", "MAX_ACTION_CHARS"]

MAX_ACTION_CHARS = 64
_CLICK = re.compile(r"click (0|[1-9][0-9]{0,2}) (0|[1-9][0-9]{0,2})")
_GRID_PIXELS = 480   # about how wide the page draws a grid


class ActionRefused(LlmEvalError):
    """An action the current phase does not accept now; the message is for the participant."""


def cell_size_for(size: int) -> int:
    """Cells large enough to click, the grid about ``_GRID_PIXELS`` wide (8 to 48 pixels)."""
    return max(8, min(48, _GRID_PIXELS // max(size, 1)))


def _png(frame, *, masked=(), goal=(), scale: float = 1.0) -> dict[str, Any]:
    """The frame as the PNG renderer draws it, as a data URI, with its cell layout (encoded
    without the renderer's slow size optimisation: the page is on this machine); ``scale``
    shrinks the cells (the goal is drawn beside the controls)."""
    cell = max(8, int(cell_size_for(frame.size) * scale))
    image, layout, _, _ = render_image(frame, cell_size=cell, grid_lines=True,
                                       coordinates=False, masked=masked, goal=goal)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return {"src": "data:image/png;base64," + base64.b64encode(out.getvalue()).decode("ascii"),
            "size": frame.size, "cell": layout.cell, "line": layout.line,
            "origin": list(layout.origin)}


def _colour(name: str) -> str:
    return "transparent" if name == MASK_COLOUR else "#" + hex_rgb(rgb(name))


def page_view(observation: Observation) -> dict[str, Any]:
    """The page's view of ``observation`` (module docstring)."""
    obs = observation
    goal = obs.planning.goal_cells if obs.planning is not None else ()
    view: dict[str, Any] = {
        "phase": obs.phase, "family": obs.family, "step": obs.step,
        "budget_left": obs.budget_left, "invalid": obs.invalid, "message": obs.message,
        "grid": _png(obs.frame, masked=obs.masked, goal=goal),
        "forms": [form.to_dict() for form in obs.actions],
    }
    if obs.text is not None:   # the autumnbench protocol: the harness's text and strings
        view["text"] = obs.text
        view["offered"] = list(obs.offered)
    if obs.mfp is not None:
        m = obs.mfp
        view["mfp"] = {"watching": m.watching, "frames": len(m.frames),
                       "masked_from": m.masked_from,
                       "mask": dict(zip(("x", "y", "width", "height"), m.mask)),
                       "action": m.actions[m.watching - 1] if 0 < m.watching <= len(m.actions)
                       else None,
                       "options": [[[_colour(c) for c in row] for row in option]
                                   for option in m.options]}
    if obs.cd is not None:
        c = obs.cd
        view["cd"] = {"run": c.run, "run_steps": c.run_steps, "declare_after": c.declare_after,
                      "declared": c.declared, "frames": len(c.frames), "watching": c.watching}
    if obs.planning is not None:
        p = obs.planning
        view["planning"] = {"goal": _png(p.goal, goal=goal, scale=0.6), "horizon": p.horizon,
                            "goal_cells": len(goal)}
    return view


def check_action(observation: Observation, text: object) -> str:
    """The canonical form of ``text`` if the phase accepts it now, else ``ActionRefused``
    (module docstring)."""
    if not isinstance(text, str):
        raise ActionRefused(f"an action is text, got {type(text).__name__}")
    if len(text) > MAX_ACTION_CHARS:
        raise ActionRefused(f"an action is at most {MAX_ACTION_CHARS} characters, got "
                            f"{len(text)}")
    if observation.text is not None:
        return _check_offered(observation, text)
    try:
        parse_command(text, observation.actions)
    except ActionSyntaxError as exc:
        raise ActionRefused(str(exc)) from None
    return " ".join(text.split())


def _check_offered(observation: Observation, text: str) -> str:
    """Under ``autumnbench``: an offered string exactly, or ``click X Y`` inside the grid when
    the click pattern is offered."""
    if text in observation.offered and not text.startswith("click ["):
        return text
    clicks = any(o.startswith("click [") for o in observation.offered)
    match = _CLICK.fullmatch(text)
    if clicks and match:
        last = observation.frame.size - 1
        x, y = int(match[1]), int(match[2])
        if x <= last and y <= last:
            return text
        raise ActionRefused(f"click {x} {y} is outside the grid (0 to {last})")
    shown = ", ".join(repr(o) for o in observation.offered)
    raise ActionRefused(f"{text!r} is not offered now; offered: {shown}")
