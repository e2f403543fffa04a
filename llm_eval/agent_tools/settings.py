"""The ``agent_tools`` setting: which tools an LLM agent has beside the world's actions, and
the budgets that bound their use.

A setting is written as the tools' names joined by ``+`` (``notes``, ``notes+autumn``,
``notes+autumn+python``) or ``none``; a list of names is accepted too. The canonical form lists
each tool once, in ``TOOL_NAMES`` order, so two spellings of one setting give one job id.

Caps are compute budgets like the other knobs (sweepable, part of a job's settings when it has
tools): ``per_episode`` tool calls in the whole episode and ``per_turn`` tool calls between two
actions. A call over either cap is refused: the model's reply counts as an invalid action and
the refusal is its message (``toolbox``).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from ..errors import LlmEvalError

__all__ = ["TOOL_NAMES", "NO_TOOLS", "AgentToolsError", "parse_agent_tools", "tools_text",
           "ToolCaps", "DEFAULT_PER_EPISODE", "DEFAULT_PER_TURN"]

TOOL_NAMES = ("notes", "autumn", "python")
NO_TOOLS = "none"
DEFAULT_PER_EPISODE = 40   # tool calls in one episode
DEFAULT_PER_TURN = 4       # tool calls between two actions


class AgentToolsError(LlmEvalError, ValueError):
    """An ``agent_tools`` setting or cap that is not one; names the bad value."""


def parse_agent_tools(value: str | list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    """``"notes+autumn"``, ``["notes", "autumn"]``, ``"none"``, ``()`` or None -> the tools, each
    once, in ``TOOL_NAMES`` order; an unknown name is an ``AgentToolsError`` naming it."""
    if value is None or (isinstance(value, (list, tuple)) and not value):
        return ()
    if isinstance(value, str):
        names = [n.strip() for n in value.replace(",", "+").split("+")]
    elif isinstance(value, (list, tuple)):
        names = []
        for item in value:
            if not isinstance(item, str):
                raise AgentToolsError(f"agent_tools: {item!r} is not a tool's name "
                                      f"(expected {', '.join(TOOL_NAMES)} or {NO_TOOLS})")
            names += [n.strip() for n in item.replace(",", "+").split("+")]
    else:
        raise AgentToolsError(f"agent_tools: expected tool names such as notes+autumn or "
                              f"{NO_TOOLS}, got {type(value).__name__} {value!r}")
    names = [n for n in names if n]
    if names == [NO_TOOLS]:
        return ()
    for name in names:
        if name not in TOOL_NAMES:
            close = difflib.get_close_matches(name, (*TOOL_NAMES, NO_TOOLS), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise AgentToolsError(f"agent_tools: unknown tool {name!r}{hint} (the tools: "
                                  f"{', '.join(TOOL_NAMES)}; or {NO_TOOLS})")
    if not names:
        raise AgentToolsError(f"agent_tools: empty; give tool names ({'+'.join(TOOL_NAMES)}) "
                              f"or {NO_TOOLS}")
    return tuple(n for n in TOOL_NAMES if n in names)


def tools_text(tools: tuple[str, ...]) -> str:
    """The canonical written form: ``notes+autumn``, or ``none``."""
    return "+".join(tools) if tools else NO_TOOLS


@dataclass(frozen=True, slots=True)
class ToolCaps:
    """How many tool calls an episode, and one turn (between two actions), may make."""

    per_episode: int = DEFAULT_PER_EPISODE
    per_turn: int = DEFAULT_PER_TURN

    def __post_init__(self) -> None:
        for name in ("per_episode", "per_turn"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise AgentToolsError(f"tool_calls_{name}: must be a whole number of at least "
                                      f"1, got {value!r}")
