"""The agent's tools in one episode: their schemas, their text-mode syntax, the caps, and the
record of every call.

``AgentToolbox(tools, caps, seed=...)`` is made by the LLM agent when its job has
``agent_tools``. It offers one provider tool per operation beside the phase's action tools
(``schemas()``: ``notes_read``, ``notes_write``, ``autumn_check``, ``python_run``), and in the
text and tag formats the same operations as tags (``<notes_write>...</notes_write>``;
``text_calls``). ``call(name, arguments, ...)`` checks the caps, runs the operation (or, in a
replay, takes the recorded result: ``RecordedTools``), and returns a ``ToolRecord``: what the
transcript stores and what goes back to the model. A tool call never advances the world.

Caps (``settings.ToolCaps``): a call past ``per_turn`` calls since the last action, or past
``per_episode`` calls in the episode, is refused (status ``refused``, not run); the agent then
ends its turn with an invalid action whose message is the refusal.

The toolbox sees the agent's observations and actions (``observe``, ``acted``) to keep the
history the ``autumn`` tool checks against (``history``); it never sees the task.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from ..vocabulary import PhaseName
from .autumn_check import check_hypothesis
from .history import History
from .notes import MAX_NOTES_CHARS, Notes
from .python_tool import run_python_tool
from .settings import ToolCaps, parse_agent_tools

__all__ = ["AgentToolbox", "ToolRecord", "OPERATIONS", "TOOL_OF", "MAX_RESULT_CHARS",
           "text_calls", "strip_text_calls", "ToolReplayMismatch"]

MAX_RESULT_CHARS = 12_000

# tool -> its operations: (name, description, the one string argument or None)
OPERATIONS: dict[str, tuple[tuple[str, str, str | None], ...]] = {
    "notes": (
        ("notes_read", "Read your notes (a scratchpad kept for the whole episode, interaction "
                       "phase and test alike). Does not take an action.", None),
        ("notes_write", f"Replace your notes with `text` (at most {MAX_NOTES_CHARS} "
                        f"characters). Does not take an action.", "text"),
    ),
    "autumn": (
        ("autumn_check", "Run `program`, an Autumn program that is your hypothesis of this "
                         "world, on the actions you took in the interaction phase (each run "
                         "from its start or a reset); returns the first step whose frame "
                         "differs from what you saw, and how, or that it matches so far. "
                         "Does not take an action.", "program"),
    ),
    "python": (
        ("python_run", "Run `code`, a Python 3 program, in a sandbox (no network, no files "
                       "outside a fresh empty directory, no clock); returns its standard "
                       "output and error. Does not take an action.", "code"),
    ),
}
TOOL_OF = {op: tool for tool, ops in OPERATIONS.items() for op, _, _ in ops}


class ToolReplayMismatch(Exception):
    """A replayed episode asked a tool for something the recording does not hold at that
    point: the replay diverged (the message names the transcript and the call)."""


@dataclass(slots=True)
class ToolRecord:
    """One tool call as the transcript stores it (``seconds`` is not compared by replay)."""

    index: int
    call_index: int
    phase: PhaseName
    step: int
    tool: str
    arguments: dict[str, Any]
    status: str          # ok, error (the tool ran and said what was wrong), refused (a cap)
    result: str
    detail: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "call_index": self.call_index, "phase": self.phase,
                "step": self.step, "tool": self.tool, "arguments": self.arguments,
                "status": self.status, "result": self.result, "detail": self.detail,
                "seconds": self.seconds}


_TAG_CALL = re.compile(r"<(notes_read|notes_write|autumn_check|python_run)>(.*?)</\1>"
                       r"|<(notes_read)\s*/>", re.DOTALL)
_FENCE = re.compile(r"^\s*```[A-Za-z0-9_+-]*\s*\n(.*?)\n\s*```\s*$", re.DOTALL)


def text_calls(text: str, operations: set[str]) -> list[tuple[str, dict[str, Any]]]:
    """The tool calls written as tags in ``text`` (text and tag formats), in order: each
    ``<op>argument</op>`` of an enabled operation (``<notes_read/>`` too); a Markdown fence
    around the argument is taken off."""
    calls = []
    for match in _TAG_CALL.finditer(text or ""):
        name = match.group(1) or match.group(3)
        if name not in operations:
            continue
        body = match.group(2) or ""
        fenced = _FENCE.match(body)
        body = fenced.group(1) if fenced else body.strip("\n")
        arg = next(a for op, _, a in OPERATIONS[TOOL_OF[name]] if op == name)
        calls.append((name, {} if arg is None else {arg: body}))
    return calls


def strip_text_calls(text: str) -> str:
    """``text`` without its tool tags (so an action read from it is not one written inside a
    program or the notes)."""
    return _TAG_CALL.sub("", text or "")


class AgentToolbox:
    """One episode's tools (module docstring). ``runner``: a ``RecordedTools`` in a replay
    (results from the recording, nothing run); ``python``: the sandbox's ``run_python`` or a
    stand-in with its interface."""

    def __init__(self, tools: str | tuple[str, ...], caps: ToolCaps | None = None, *,
                 seed: int = 1, runner: Any = None,
                 python: Callable[..., Any] | None = None) -> None:
        self.tools = parse_agent_tools(tools)
        self.caps = caps or ToolCaps()
        self.seed = seed
        self.runner = runner
        self.python = python
        self.operations = {op for t in self.tools for op, _, _ in OPERATIONS[t]}
        self.on_tool_call: Callable[[dict[str, Any]], None] | None = None
        self.start_episode()

    def start_episode(self, harness_text: bool = False) -> None:
        """A new episode; ``harness_text``: its protocol shows the harness's text (whose
        interaction observations the history of runs does not follow)."""
        self.records: list[ToolRecord] = []
        self.notes = Notes()
        self.history = History(harness_text)
        self.turn_calls = 0

    # -- what the model is shown -----------------------------------------------------------------
    def schemas(self):
        """The provider tools of the enabled operations (strict JSON schemas, one string
        argument or none; each route sends them in its subset, ``adapters.schemas``)."""
        from llm_eval.adapters.types import Tool

        tools = []
        for tool in self.tools:
            for name, description, arg in OPERATIONS[tool]:
                properties = {} if arg is None else {arg: {"type": "string",
                                                           "description": arg}}
                tools.append(Tool(name=name, description=description, parameters={
                    "type": "object", "properties": properties,
                    "required": [] if arg is None else [arg], "additionalProperties": False}))
        return tuple(tools)

    def listing(self, mode: str) -> str:
        """The enabled operations, one line each, for the prompt (``mode``: the tool mode;
        in the text and tag formats each is written as its tag)."""
        lines = []
        for tool in self.tools:
            for name, description, arg in OPERATIONS[tool]:
                if mode == "tools":
                    usage = f"{name}({arg or ''})"
                else:
                    usage = f"<{name}></{name}>" if arg is None else f"<{name}>{arg}</{name}>"
                lines.append(f"- `{usage}`: {description}")
        return "\n".join(lines)

    # -- the agent's own history ------------------------------------------------------------------
    def observe(self, obs) -> None:
        """A new observation reached the agent: a new turn."""
        self.history.observe(obs)
        self.turn_calls = 0

    def acted(self, action: str) -> None:
        self.history.acted(action)

    # -- calls ------------------------------------------------------------------------------------
    def refusal(self) -> str | None:
        """Why the next call is refused, or None."""
        if len(self.records_ok_or_error()) >= self.caps.per_episode:
            return (f"refused: this episode's cap of {self.caps.per_episode} tool calls is "
                    f"used up; take actions")
        if self.turn_calls >= self.caps.per_turn:
            return (f"refused: the cap of {self.caps.per_turn} tool calls between two "
                    f"actions is reached; take an action")
        return None

    def records_ok_or_error(self) -> list[ToolRecord]:
        return [r for r in self.records if r.status != "refused"]

    def call(self, name: str, arguments: dict[str, Any] | None, *, phase: PhaseName, step: int,
             call_index: int) -> ToolRecord:
        """Check the caps, run ``name`` (or take its recorded result), record it."""
        arguments = arguments if isinstance(arguments, dict) else {}
        record = ToolRecord(index=len(self.records), call_index=call_index, phase=phase,
                            step=step, tool=name, arguments=arguments, status="ok", result="")
        refused = self.refusal()
        if refused is not None:
            record.status, record.result = "refused", refused
        if self.runner is not None:      # a replay: the recorded result, nothing run
            recorded = self.runner.take(record)
            record.status, record.result = recorded["status"], recorded["result"]
            record.detail = recorded.get("detail") or {}
        elif refused is None:
            started = time.perf_counter()
            text, ok, detail = self._run(name, arguments)
            record.seconds = round(time.perf_counter() - started, 6)
            if len(text) > MAX_RESULT_CHARS:
                text = (text[:MAX_RESULT_CHARS] + f"\n... (cut: {len(text):,} characters, "
                                                  f"the cap is {MAX_RESULT_CHARS:,})")
            record.status, record.result, record.detail = ("ok" if ok else "error"), text, detail
        if record.status != "refused":
            self.turn_calls += 1
        self.records.append(record)
        if self.on_tool_call is not None:
            self.on_tool_call(record.to_dict())
        return record

    def _run(self, name: str, arguments: dict[str, Any]) -> tuple[str, bool, dict]:
        arg = next((a for op, _, a in OPERATIONS.get(TOOL_OF.get(name, ""), ())
                    if op == name), None)
        if name not in self.operations:
            return f"error: unknown tool {name!r}", False, {}
        expected = [] if arg is None else [arg]
        if sorted(arguments) != expected or not all(isinstance(v, str)
                                                     for v in arguments.values()):
            return (f"error: {name} takes {'no arguments' if arg is None else f'one string argument {arg!r}'}, "
                    f"got {sorted(arguments)}"), False, {}
        match name:
            case "notes_read":
                text, ok = self.notes.read()
                return text, ok, {}
            case "notes_write":
                text, ok = self.notes.write(arguments["text"])
                return text, ok, {"chars": len(arguments["text"])}
            case "autumn_check":
                check = check_hypothesis(arguments["program"], self.history, self.seed)
                return check.message, check.status != "error", check.detail()
            case "python_run":
                return run_python_tool(arguments["code"], self.python)
        return f"error: unknown tool {name!r}", False, {}
