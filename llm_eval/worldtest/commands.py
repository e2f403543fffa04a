"""The action grammar of the WorldTest phases, parsed strictly.

Every phase offers a set of *action forms*: a keyword followed by zero, one or two decimal
integers, each with an inclusive range. The forms are

============  =====================================================================
world         ``click X Y``, ``left``, ``right``, ``up``, ``down``, ``noop``
interaction   the world's forms, ``reset``, ``go-to-test``
mfp           ``watch T`` (show frame T of the recording), ``choose K`` (option 0..5)
cd            the world's forms and ``reset``; ``declare`` once allowed; after it only
              ``watch T`` and ``submit T`` (T a frame of the current run)
planning      the world's forms, ``quit``
============  =====================================================================

Numbers are 0-based everywhere (columns, rows, frames, options), so an agent never has to
convert between two conventions. Text is parsed strictly: lower-case keywords, tokens
separated by whitespace, the exact number of integer arguments, each in its range. Anything
else raises ``ActionSyntaxError`` with a message for the agent that names the valid forms;
phases turn it into an invalid action (reported back, counted, no tick).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..actions import ACTION_KINDS, Action
from ..errors import ActionSyntaxError

__all__ = ["Param", "ActionForm", "Command", "PHASE_KINDS", "WORLD_KINDS", "world_forms",
           "parse_command", "describe_forms"]

WORLD_KINDS = ACTION_KINDS
PHASE_KINDS = ("reset", "go-to-test", "watch", "choose", "declare", "submit", "quit")
_INTEGER = re.compile(r"-?[0-9]{1,12}")


@dataclass(frozen=True, slots=True)
class Param:
    """One integer argument of an action form: ``low <= value <= high``."""

    name: str
    low: int
    high: int

    def describe(self) -> str:
        return f"{self.low} <= {self.name} <= {self.high}"


@dataclass(frozen=True, slots=True)
class ActionForm:
    """A kind of action valid in the current phase, with the ranges of its arguments."""

    kind: str
    params: tuple[Param, ...] = ()
    help: str = ""

    @property
    def is_world_action(self) -> bool:
        return self.kind in WORLD_KINDS

    def text(self) -> str:
        """The form as shown to agents, e.g. ``click X Y (0 <= X <= 6, 0 <= Y <= 6)``."""
        head = " ".join([self.kind, *(p.name for p in self.params)])
        if self.params:
            head += " (" + ", ".join(p.describe() for p in self.params) + ")"
        return head

    def to_dict(self) -> dict:
        return {"kind": self.kind, "form": self.text(), "help": self.help,
                "params": [{"name": p.name, "low": p.low, "high": p.high}
                           for p in self.params]}


@dataclass(frozen=True, slots=True)
class Command:
    """A phase action (``reset``, ``go-to-test``, ``watch T``, ``choose K``, ``declare``,
    ``submit T``, ``quit``); ``arg`` is set for the forms that take a number."""

    kind: str
    arg: int | None = None

    @property
    def number(self) -> int:
        """``arg`` of a form that takes a number (``ValueError`` for one that takes none)."""
        if self.arg is None:
            raise ValueError(f"{self.kind} takes no number")
        return self.arg

    def __str__(self) -> str:
        return self.kind if self.arg is None else f"{self.kind} {self.arg}"


def world_forms(size: int) -> tuple[ActionForm, ...]:
    """The six world action forms on a ``size`` x ``size`` grid."""
    last = size - 1
    return (
        ActionForm("click", (Param("X", 0, last), Param("Y", 0, last)),
                   "click the cell at column X, row Y (0-based, origin top-left)"),
        ActionForm("left", help="press the left arrow"),
        ActionForm("right", help="press the right arrow"),
        ActionForm("up", help="press the up arrow"),
        ActionForm("down", help="press the down arrow"),
        ActionForm("noop", help="do nothing; time advances one step"),
    )


def describe_forms(forms: Sequence[ActionForm]) -> str:
    return "; ".join(form.text() for form in forms)


def parse_command(text: object, forms: Sequence[ActionForm],
                  unavailable: Mapping[str, str] | None = None) -> Action | Command:
    """Parse ``text`` against the phase's current ``forms``.

    ``unavailable`` maps a keyword the phase knows but does not accept right now to the
    reason (e.g. ``declare`` before the third step), so the agent is told why. Returns an
    ``Action`` for a world action, else a ``Command``; raises ``ActionSyntaxError``.
    """
    valid = f"valid actions now: {describe_forms(forms)}"
    if not isinstance(text, str):
        raise ActionSyntaxError(f"an action must be text, got {type(text).__name__}; {valid}",
                                text=repr(text))
    tokens = text.split()
    if not tokens:
        raise ActionSyntaxError(f"empty action; {valid}", text=text)
    keyword, args = tokens[0], tokens[1:]
    form = next((f for f in forms if f.kind == keyword), None)
    if form is None:
        if unavailable and keyword in unavailable:
            raise ActionSyntaxError(f"{keyword} is not available now: {unavailable[keyword]}; "
                                    f"{valid}", text=text)
        if keyword in WORLD_KINDS or keyword in PHASE_KINDS:
            raise ActionSyntaxError(f"{keyword} is not an action of this phase; {valid}",
                                    text=text)
        raise ActionSyntaxError(f"unknown action {keyword!r}; {valid}", text=text)
    if len(args) != len(form.params):
        wanted = (f"takes {len(form.params)} integer argument(s) ({form.text()})"
                  if form.params else "takes no arguments")
        raise ActionSyntaxError(f"{keyword} {wanted}, got {len(args)}", text=text)
    values = []
    for token, param in zip(args, form.params):
        if not _INTEGER.fullmatch(token):
            raise ActionSyntaxError(f"{keyword} {param.name} must be an integer, got {token!r}",
                                    text=text)
        value = int(token)
        if not param.low <= value <= param.high:
            raise ActionSyntaxError(f"{keyword} {param.name} must satisfy {param.describe()}, "
                                    f"got {value}", text=text)
        values.append(value)
    if form.is_world_action:
        return Action(keyword, *values) if values else Action(keyword)
    return Command(keyword, values[0] if values else None)
