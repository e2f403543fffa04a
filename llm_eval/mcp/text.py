"""What an MCP client reads: an ``Observation`` as text, in the project's own renderings.

``observation_text(obs, instructions=...)`` is the turn an LLM agent would be shown, without
its model-specific parts: the frame in the compact rendering (legend, column and row numbers,
one character per cell; a hidden cell is ``transparent``), a header saying where the episode
is (phase, step, budget left), the message about the last action, and, when ``instructions``
is true (a phase has just begun, or the client asked), the phase's instructions from the
``default`` prompt variant, with the test's payload (the MFP recording and its options, the
planning goal). It ends with the action forms valid now. Under the ``autumnbench`` protocol it
is the published harness's own text and its offered action strings.

Everything comes from the observation, which never holds a task's hidden half, so nothing
here can reveal an answer; the interaction phase's text never names the test that follows.
``briefing(obs)`` is the system prompt's text, said once when an episode begins.
"""

from __future__ import annotations

import json
from functools import lru_cache

from ..agents.prompts import PromptSet, cells_text, load_prompts, observation_header
from ..render import render_compact
from ..render.diff import render_diff
from ..worldtest.observation import Observation

__all__ = ["observation_text", "valid_actions", "briefing", "PROMPT_VARIANT"]

#: the prompt variant whose texts explain the phases to an outside agent
PROMPT_VARIANT = "default"
_RENDERING = ("Frames are shown as a character grid: a legend maps characters to colours, "
              "column numbers run along the top and row numbers down the left. A cell named "
              "`transparent` is hidden from you.")
_ANSWER = ("Act with the tools: `act` takes one action exactly as the valid actions list it "
           "(e.g. `click 3 4`, `left`, `noop`); `reset` and `go_to_test` are that action by "
           "name; `observe` shows where you are and `valid_actions` what you may do now. One "
           "action is one call. An invalid action comes back as an error and is counted.")
_AUTUMNBENCH_ANSWER = ("Act with the tools: `act` takes one of the action strings offered "
                       "now, exactly as offered (a click as `click X Y`); `reset` and "
                       "`go_to_test` are those actions by name; `observe` shows the current "
                       "text again.")


@lru_cache(maxsize=1)
def _prompts() -> PromptSet:
    return load_prompts(PROMPT_VARIANT)


def briefing(obs: Observation) -> str:
    """Said once when an episode begins: the system prompt's text for the observation's
    world, with how to use the tools; under ``autumnbench`` only how to use them (the
    harness's own text explains the rest, and its actions are the offered strings)."""
    if obs.text is not None:
        return _AUTUMNBENCH_ANSWER
    return _prompts().render("system", grid_size=obs.frame.size, rendering=_RENDERING,
                             answer_format=_ANSWER)


def valid_actions(obs: Observation) -> list[str]:
    """The action forms valid now, as text (under ``autumnbench``: the offered strings)."""
    if obs.text is not None:
        return list(obs.offered)
    return [f"{f.text()}: {f.help}" if f.help else f.text() for f in obs.actions]


def _forms(obs: Observation) -> str:
    return "\n".join(f"- `{line}`" for line in valid_actions(obs))


def _recording(obs: Observation) -> str:
    """The MFP recording: frame 0 in full, then each step's action and the cells it changed."""
    view = obs.mfp_view
    lines = [f"Recording: frame 0 of {len(view.frames) - 1}:", render_compact(view.frames[0])]
    for i, action in enumerate(view.actions):
        lines.append(f"step {i}: action `{action}` -> frame {i + 1}: "
                     f"{render_diff(view.frames[i + 1], view.frames[i])}")
    return "\n".join(lines)


def _options(options) -> str:
    lines = ["Options (rows top to bottom, colour names):"]
    lines += [f"option {k}: {json.dumps([list(row) for row in option])}"
              for k, option in enumerate(options)]
    return "\n".join(lines)


def _instructions(obs: Observation) -> str:
    prompts, actions, size = _prompts(), _forms(obs), obs.frame.size
    match obs.phase:
        case "interaction":
            return prompts.render("interaction", budget=obs.budget_left, actions=actions,
                                  grid_size=size)
        case "mfp":
            mfp = obs.mfp_view
            x, y, w, h = mfp.mask
            mask = (f"x={x}, y={y}, width {w}, height {h} (columns {x}-{x + w - 1}, "
                    f"rows {y}-{y + h - 1})")
            return prompts.render("mfp", budget=obs.budget_left, actions=actions, mask=mask,
                                  masked_from=mfp.masked_from,
                                  last_frame=len(mfp.frames) - 1,
                                  option_count=len(mfp.options), recording=_recording(obs),
                                  options=_options(mfp.options))
        case "cd":
            return prompts.render("cd", budget=obs.budget_left, actions=actions,
                                  declare_after=obs.cd_view.declare_after)
        case "planning":
            view = obs.planning_view
            by_colour: dict[str, list[tuple[int, int]]] = {}
            for x, y in view.goal_cells:
                by_colour.setdefault(view.goal.grid[y][x], []).append((x, y))
            goal = "\n".join(f"- {colour}: {cells_text(cells)}"
                             for colour, cells in sorted(by_colour.items()))
            return prompts.render("planning", horizon=view.horizon, actions=actions, goal=goal,
                                  goal_count=len(view.goal_cells))
    raise ValueError(f"unknown phase {obs.phase!r}")


def observation_text(obs: Observation, *, instructions: bool = False) -> str:
    """The observation as the client reads it (module docstring)."""
    if obs.text is not None:   # autumnbench: the harness's words, as it would send them
        offered = "\n".join(f"- `{o}`" for o in obs.offered)
        return f"{obs.text}\n\nActions offered now:\n{offered}"
    parts = [_instructions(obs)] if instructions else []
    notes = [f"Your last action was invalid: {obs.invalid}"] if obs.invalid else []
    if obs.message:
        notes.append(obs.message)
    parts.append("\n".join([*notes, observation_header(obs)]))
    if len(obs.frames) > 1:   # ticks_per_action > 1: every intermediate frame
        count = len(obs.frames)
        parts += [f"After tick {i + 1} of {count} of your last action:\n{render_compact(f)}"
                  for i, f in enumerate(obs.frames[:-1])]
        parts.append(f"After tick {count} of {count}:")
    parts.append(render_compact(obs.frame))
    if not instructions:   # the instructions list them already
        parts.append(f"Valid actions now:\n{_forms(obs)}")
    return "\n\n".join(parts)
