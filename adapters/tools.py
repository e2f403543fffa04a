"""Actions as tool calls, and the strict text format for models without tools.

A phase's valid action forms (``llm_eval.worldtest.commands.ActionForm`` or its ``to_dict()``:
a kind, integer parameters with ranges, a help line) become one strict JSON-schema tool per
kind. Tool names are the kinds with ``-`` as ``_`` (``go-to-test`` -> ``go_to_test``);
parameter names are lower-case (``click(x, y)``, ``watch(t)``, ``choose(k)``)::

    click(x:int, y:int)  left()  right()  up()  down()  noop()  reset()  go_to_test()
    watch(t:int)  choose(k:int)  submit(t:int)  declare()  quit()

A reply becomes the action text the phases parse (``"click 3 4"``, ``"go-to-test"``) or an
``InvalidAction`` carrying the message to show the model: never an exception.

Text format (``tool_mode="text"``): the reply's last non-empty line is ``ACTION: <action>``,
e.g. ``ACTION: click 3 4``; the keyword, the kind and integer arguments are matched exactly.

Tag format (``tool_mode="tags"``, the published AutumnBench harness's): the action is the
content of an ``<action>...</action>`` tag; tags are found with the regular expression
``<(\\w+)>(.*?)</\\1>`` (non-greedy, across lines), their content stripped, and the *last*
``action`` tag wins. A tag with attributes or without its closing tag does not count.

With no action forms (the autumnbench protocol, whose actions are the strings the harness
offers), the text and tag formats return the action text verbatim: the phase judges it.

One action per turn: with several tool calls the first is taken and every other one is
answered with an error (``ChosenAction.ignored_calls``); set ``extra_calls="reject"`` to make
such a reply invalid instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .types import Part, Response, TextPart, Tool, ToolResultPart

__all__ = ["ChosenAction", "InvalidAction", "action_tools", "read_reply", "read_tool_reply",
           "read_text_reply", "read_tag_reply", "tagged", "text_format_instructions",
           "tag_format_instructions", "next_turn_parts", "ACTION_PREFIX"]

ACTION_PREFIX = "ACTION:"
EXTRA_CALL_MESSAGE = "only one action per turn: this call was ignored"
_INT = re.compile(r"-?[0-9]+")
_TAG = re.compile(r"<(\w+)>(.*?)</\1>", re.DOTALL)


def tagged(text: str) -> dict[str, str]:
    """Every ``<name>...</name>`` of ``text``, content stripped; a later tag of the same name
    replaces an earlier one (the harness's ``extract_tagged_response``)."""
    return {m.group(1): m.group(2).strip() for m in _TAG.finditer(text)}


@dataclass(frozen=True, slots=True)
class _Form:
    kind: str
    params: tuple[tuple[str, int | None, int | None], ...]
    help: str

    @property
    def tool_name(self) -> str:
        return self.kind.replace("-", "_")

    def usage(self) -> str:
        return " ".join([self.kind, *(name.upper() for name, _, _ in self.params)])


@dataclass(frozen=True, slots=True)
class ChosenAction:
    """A usable reply: ``action`` is the text form; answer ``call_id`` with the next
    observation and each of ``ignored_calls`` (id, message) with its error."""

    action: str
    call_id: str | None = None
    ignored_calls: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class InvalidAction:
    """An unusable reply: ``message`` goes back to the model (as the error result of each of
    ``call_ids``, or as text when there were no calls); it counts as an invalid action."""

    message: str
    call_ids: tuple[str, ...] = ()


def _forms(forms: Iterable[Any]) -> list[_Form]:
    out = []
    for f in forms:
        if isinstance(f, dict):
            params = tuple((p["name"].lower(), p.get("low"), p.get("high"))
                           for p in f.get("params", ()))
            out.append(_Form(f["kind"], params, f.get("help", "")))
        else:
            params = tuple((p.name.lower(), p.low, p.high) for p in getattr(f, "params", ()))
            out.append(_Form(f.kind, params, getattr(f, "help", "")))
    return out


def _range_text(low: int | None, high: int | None) -> str:
    """A parameter's range in words, for its description: a route that cannot send the bounds
    (``schemas``) still tells the model, and ``_check`` enforces them."""
    if low is not None and high is not None:
        return f" ({low} to {high})"
    if low is not None:
        return f" (at least {low})"
    return f" (at most {high})" if high is not None else ""


def action_tools(forms: Iterable[Any]) -> tuple[Tool, ...]:
    """One strict JSON-schema tool per action form, bounds included; each adapter sends it in
    the subset its provider accepts (``schemas``)."""
    tools = []
    for form in _forms(forms):
        properties: dict[str, Any] = {}
        for name, low, high in form.params:
            schema: dict[str, Any] = {"type": "integer"}
            if low is not None:
                schema["minimum"] = low
            if high is not None:
                schema["maximum"] = high
            schema["description"] = f"{name}{_range_text(low, high)}"
            properties[name] = schema
        parameters = {"type": "object", "properties": properties,
                      "required": [name for name, _, _ in form.params],
                      "additionalProperties": False}
        description = form.help or form.usage()
        tools.append(Tool(name=form.tool_name, description=description, parameters=parameters))
    return tuple(tools)


def _valid_list(forms: Sequence[_Form]) -> str:
    return ", ".join(f.usage() for f in forms)


def _check(form: _Form, values: list[Any]) -> str | None:
    """An error message if ``values`` do not fit ``form``'s parameters."""
    if len(values) != len(form.params):
        return (f"{form.kind} takes {len(form.params)} argument(s) "
                f"({form.usage()}), got {len(values)}")
    for (name, low, high), value in zip(form.params, values):
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{form.kind}: {name} must be an integer, got {value!r}"
        if (low is not None and value < low) or (high is not None and value > high):
            return f"{form.kind}: {name}={value} is outside {low}..{high}"
    return None


def _text(form: _Form, values: list[int]) -> str:
    return " ".join([form.kind, *(str(v) for v in values)])


def read_tool_reply(response: Response, forms: Iterable[Any], *,
                    extra_calls: Literal["first", "reject"] = "first") -> ChosenAction | InvalidAction:
    """The action chosen by the reply's tool call, or why the reply is unusable."""
    fs = _forms(forms)
    by_tool = {f.tool_name: f for f in fs}
    calls = response.tool_calls
    if not calls:
        return InvalidAction(f"no action: call exactly one of the tools ({_valid_list(fs)})")
    ids = tuple(c.id for c in calls)
    if len(calls) > 1 and extra_calls == "reject":
        return InvalidAction(f"{len(calls)} tool calls: call exactly one tool per turn", ids)
    first, rest = calls[0], calls[1:]
    ignored = tuple((c.id, EXTRA_CALL_MESSAGE) for c in rest)
    form = by_tool.get(first.name)
    if form is None:
        return InvalidAction(f"unknown tool {first.name!r}; valid now: {_valid_list(fs)}", ids)
    if first.arguments is None:
        return InvalidAction(f"{first.name}: the arguments are not a JSON object: "
                             f"{first.raw_arguments[:200]!r}", ids)
    names = [name for name, _, _ in form.params]
    unknown = sorted(set(first.arguments) - set(names))
    missing = [n for n in names if n not in first.arguments]
    if unknown or missing:
        return InvalidAction(f"{first.name}: expected arguments {names or 'none'}, got "
                             f"{sorted(first.arguments)}", ids)
    values = [first.arguments[n] for n in names]
    if (problem := _check(form, values)) is not None:
        return InvalidAction(problem, ids)
    return ChosenAction(_text(form, values), first.id, ignored)


def read_text_reply(text: str, forms: Iterable[Any]) -> ChosenAction | InvalidAction:
    """The action on the reply's last non-empty line, ``ACTION: <action>``."""
    fs = _forms(forms)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    expected = (f"end your reply with one line '{ACTION_PREFIX} <action>', where <action> is "
                f"one of: {_valid_list(fs)}")
    if not lines or not lines[-1].startswith(ACTION_PREFIX):
        return InvalidAction(f"no action line: {expected}")
    return _checked(lines[-1][len(ACTION_PREFIX):].strip(), fs)


def read_tag_reply(text: str, forms: Iterable[Any]) -> ChosenAction | InvalidAction:
    """The content of the reply's last ``<action>`` tag (module docstring)."""
    fs = _forms(forms)
    action = tagged(text or "").get("action")
    if action is None:
        return InvalidAction("no action: put the action you choose inside <action>...</action>"
                             + (f"; valid now: {_valid_list(fs)}" if fs else ""))
    return _checked(action, fs)


def _checked(action: str, fs: list[_Form]) -> ChosenAction | InvalidAction:
    """``action`` checked against the forms (verbatim when there are none)."""
    if not fs:
        return ChosenAction(action)
    tokens = action.split()
    if not tokens:
        return InvalidAction(f"empty action; valid now: {_valid_list(fs)}")
    form = next((f for f in fs if f.kind == tokens[0]), None)
    if form is None:
        return InvalidAction(f"unknown action {tokens[0]!r}; valid now: {_valid_list(fs)}")
    args = tokens[1:]
    if not all(_INT.fullmatch(a) for a in args):
        return InvalidAction(f"{form.kind}: arguments must be integers ({form.usage()})")
    values = [int(a) for a in args]
    if (problem := _check(form, values)) is not None:
        return InvalidAction(problem)
    return ChosenAction(_text(form, values))


def read_reply(response: Response, forms: Iterable[Any],
               mode: Literal["tools", "text", "tags"], *,
               extra_calls: Literal["first", "reject"] = "first") -> ChosenAction | InvalidAction:
    """Dispatch on the request's ``tool_mode``."""
    forms = list(forms)
    if mode == "text":
        return read_text_reply(response.text, forms)
    if mode == "tags":
        return read_tag_reply(response.text, forms)
    return read_tool_reply(response, forms, extra_calls=extra_calls)


def text_format_instructions(forms: Iterable[Any]) -> str:
    """The sentence that tells a model without tools how to answer."""
    fs = _forms(forms)
    return (f"Think as you like, then end your reply with exactly one line of the form "
            f"'{ACTION_PREFIX} <action>', for example '{ACTION_PREFIX} {fs[0].usage() if fs else 'noop'}'. "
            f"Valid actions now: {_valid_list(fs)}.")


def tag_format_instructions(forms: Iterable[Any]) -> str:
    """The sentence that tells a model to answer with an ``<action>`` tag."""
    fs = _forms(forms)
    return (f"Think as you like, then give your action inside <action>...</action>, for "
            f"example <action>{fs[0].usage() if fs else 'noop'}</action> (if you write several, "
            f"the last counts). Valid actions now: {_valid_list(fs)}.")


def next_turn_parts(reply: ChosenAction | InvalidAction, text: str) -> tuple[Part, ...]:
    """The start of the next user message: every tool call of the reply answered (the chosen
    one with ``text``, the next observation; ignored or invalid ones with their error), or
    ``text`` alone in text mode. Providers require an answer to every call."""
    if isinstance(reply, ChosenAction):
        if reply.call_id is None:
            return (TextPart(text=text),)
        return (ToolResultPart(call_id=reply.call_id, text=text),
                *(ToolResultPart(call_id=i, text=m, is_error=True)
                  for i, m in reply.ignored_calls))
    error = f"invalid action: {reply.message}"
    if not reply.call_ids:
        return (TextPart(text=f"{error}\n\n{text}" if text else error),)
    parts: list[Part] = [ToolResultPart(call_id=i, text=error, is_error=True)
                         for i in reply.call_ids]
    if text:
        parts.append(TextPart(text=text))
    return tuple(parts)
