"""The agent-facing world actions, and their strict text form.

An action is one of ``click X Y``, ``left``, ``right``, ``up``, ``down`` or ``noop``. Text is
parsed strictly: lower-case keywords, tokens separated by whitespace, decimal integers for the
click coordinates (negative and off-grid coordinates are allowed here; whether a click lands on
the grid is the world's business). Anything else raises ``ActionSyntaxError``, an agent-level
mistake that callers report back and count rather than treat as a crash.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

from .errors import ActionSyntaxError
from .quoting import quote

__all__ = [
    "ACTION_KINDS",
    "Action",
    "InputSink",
    "apply_action",
    "iter_action_lines",
    "parse_action",
    "parse_action_lines",
]

ARROWS = ("left", "right", "up", "down")
ACTION_KINDS = ("click", *ARROWS, "noop")

# Autumn numbers are signed 32-bit integers, so a coordinate outside that range is meaningless.
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_INTEGER = re.compile(r"-?[0-9]+")
_EXPECTED = "expected one of: click X Y, left, right, up, down, noop"


@dataclass(frozen=True, slots=True)
class Action:
    """One world action; ``x`` and ``y`` are set for ``click`` and only for it."""

    kind: str
    x: int | None = None
    y: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in ACTION_KINDS:
            raise ValueError(f"unknown action kind {self.kind!r}")
        is_click = self.kind == "click"
        if is_click != (self.x is not None) or is_click != (self.y is not None):
            raise ValueError("a click has both x and y; other actions have neither")

    @classmethod
    def click(cls, x: int, y: int) -> Action:
        return cls("click", x, y)

    @property
    def point(self) -> tuple[int, int]:
        """``(x, y)`` of a click (``ValueError`` for any other action)."""
        if self.x is None or self.y is None:
            raise ValueError(f"{self.kind} is not a click: it has no point")
        return self.x, self.y

    def __str__(self) -> str:
        if self.kind == "click":
            return f"click {self.x} {self.y}"
        return self.kind


def _coordinate(token: str, name: str, text: str, line: int | None, source: str | None) -> int:
    if not _INTEGER.fullmatch(token):
        raise ActionSyntaxError(f"click {name} must be an integer, got {quote(token)}",
                                text=text, line=line, source=source)
    # more digits than any 32-bit integer has is out of range without converting (Python
    # refuses to convert 4,300 digits or more)
    digits = token.lstrip("-").lstrip("0") or "0"
    value = int(token[0] + digits if token[0] == "-" else digits) if len(digits) <= 10 \
        else _INT32_MAX + 1
    if not _INT32_MIN <= value <= _INT32_MAX:
        raise ActionSyntaxError(f"click {name} {quote(token, 24)} is outside the 32-bit "
                                "integer range", text=text, line=line, source=source)
    return value


def _parse(text: str, line: int | None, source: str | None) -> Action:
    tokens = text.split()
    if not tokens:
        raise ActionSyntaxError(f"empty action; {_EXPECTED}", text=text, line=line,
                                source=source)
    kind, args = tokens[0], tokens[1:]
    if kind == "click":
        if len(args) != 2:
            raise ActionSyntaxError(
                f"click takes two integers (click X Y), got {len(args)} argument(s)",
                text=text, line=line, source=source)
        x = _coordinate(args[0], "X", text, line, source)
        y = _coordinate(args[1], "Y", text, line, source)
        return Action("click", x, y)
    if kind in ARROWS or kind == "noop":
        if args:
            raise ActionSyntaxError(f"{kind} takes no arguments, got {quote(' '.join(args))}",
                                    text=text, line=line, source=source)
        return Action(kind)
    raise ActionSyntaxError(f"unknown action {quote(kind)}; {_EXPECTED}", text=text, line=line,
                            source=source)


def parse_action(text: str) -> Action:
    """Parse one action such as ``"click 3 4"`` or ``"left"``; raises ActionSyntaxError."""
    action = _PARSED.get(text) if text.__class__ is str else None
    if action is None:
        action = _parse(text, None, None)
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.clear()
        _PARSED[text] = action
    return action


# Texts parsed before, and their (immutable) actions: rollouts parse the same few texts at every
# step. Only valid texts get here (an invalid one raised).
_PARSED: dict[str, Action] = {}
_PARSED_MAX = 4096


def iter_action_lines(lines: Iterable[str], source: str = "<actions>") -> Iterator[tuple[int, Action]]:
    """Yield ``(line number, action)`` for each action line, lazily (so stdin can stream).

    Blank lines and ``#`` comments (whole-line or trailing) are skipped, and so is a byte
    order mark opening the first line (a file saved with one). A bad line raises
    ActionSyntaxError naming ``source`` and its 1-based line number.
    """
    for number, raw in enumerate(lines, start=1):
        if number == 1 and raw.startswith("\ufeff"):
            raw = raw[1:]
        body = raw.split("#", 1)[0]
        if not body.strip():
            continue
        yield number, _parse(body.strip(), number, source)


def parse_action_lines(text: str, source: str = "<actions>") -> list[Action]:
    """Parse a whole action file: one action per line, blank lines and ``#`` comments ignored."""
    return [action for _, action in iter_action_lines(text.splitlines(), source)]


class InputSink(Protocol):
    """What ``apply_action`` needs: the input methods of ``llm_eval.autumn.Interpreter``."""

    def click(self, x: int, y: int) -> object: ...
    def left(self) -> object: ...
    def right(self) -> object: ...
    def up(self) -> object: ...
    def down(self) -> object: ...


def apply_action(interpreter: InputSink, action: Action) -> None:
    """Set the interpreter's input for the next tick (``noop`` sets nothing); does not step."""
    match action.kind:
        case "click":
            interpreter.click(*action.point)
        case "left":
            interpreter.left()
        case "right":
            interpreter.right()
        case "up":
            interpreter.up()
        case "down":
            interpreter.down()
        case "noop":
            pass
