"""The error tree of llm_eval, in one place.

Two families are kept apart on purpose:

- what an *agent* did wrong (an unusable action): reported back to the agent and counted,
  never fatal (``ActionSyntaxError``);
- what a *program* or a *setting* got wrong: a typed error whose message names the file,
  line and column (or the setting) at fault (``AutumnError`` and its subclasses).

Nothing else is raised to a user for bad input: the command line prints these errors as one
line each instead of a traceback.
"""

from __future__ import annotations

__all__ = [
    "LlmEvalError",
    "ActionSyntaxError",
    "AutumnError",
    "AutumnSyntaxError",
    "AutumnRuntimeError",
    "AutumnLimitError",
    "AutumnSeedError",
    "AutumnInternalError",
    "AutumnCheckError",
    "AutumnCheckWarning",
    "TaskFileError",
]

#: The longest message an error shows: the sites that quote input cut it (``quoting.quote``);
#: this catches any that does not, so no input reaches stderr or a prompt by the megabyte.
MAX_MESSAGE = 2000


def _bounded(message: str) -> str:
    if len(message) <= MAX_MESSAGE:
        return message
    return f"{message[:MAX_MESSAGE]}... (message cut: {len(message):,} characters)"


class LlmEvalError(Exception):
    """Base of every error llm_eval raises on purpose."""


class ActionSyntaxError(LlmEvalError):
    """An action text that is not one of the world's actions (an agent-level mistake)."""

    def __init__(self, message: str, *, text: str = "", line: int | None = None,
                 source: str | None = None) -> None:
        message = _bounded(message)
        self.message = message
        self.text = text
        self.line = line
        self.source = source
        where = ""
        if source is not None and line is not None:
            where = f"{source}:{line}: "
        elif line is not None:
            where = f"line {line}: "
        super().__init__(f"{where}{message}")


class AutumnError(LlmEvalError):
    """A problem with an Autumn program, located by path, line and column where known."""

    def __init__(self, message: str, *, line: int | None = None, column: int | None = None,
                 path: str | None = None) -> None:
        self.message = _bounded(message)
        self.line = line
        self.column = column
        self.path = path
        super().__init__(message)

    def locate(self, line: int | None, column: int | None) -> "AutumnError":
        """Attach a position if the error does not have one yet; returns self."""
        if self.line is None and line is not None:
            self.line = line
            self.column = column
        return self

    def where(self) -> str:
        parts = []
        if self.path:
            parts.append(self.path)
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)

    def __str__(self) -> str:
        where = self.where()
        message = _bounded(self.message)   # callers may have prefixed it since
        return f"{where}: {message}" if where else message


class AutumnSyntaxError(AutumnError):
    """The program text cannot be read or parsed (unbalanced parentheses, invalid forms...)."""


class AutumnRuntimeError(AutumnError):
    """Evaluating the program failed (undefined name, wrong type, empty list, ...)."""


class AutumnLimitError(AutumnRuntimeError):
    """A runaway program: recursion too deep, a list too long, or a tick over its time budget."""


class AutumnSeedError(AutumnError, ValueError):
    """A random seed that the interpreter refuses (0 silently removes all randomness)."""


class AutumnInternalError(AutumnRuntimeError):
    """An unexpected failure inside the interpreter; always a bug in llm_eval, never the program's."""


class AutumnCheckError(AutumnError):
    """Text the reference runs, but not as it reads (``3.5`` runs as 3, ``(if 0 ...)`` always
    takes its then-branch): ``autumn check`` refuses it, while the interpreter keeps the
    reference's reading so that frames stay the reference's (docs/spec/autumn.md 15.1)."""


class AutumnCheckWarning(AutumnError):
    """What ``autumn check`` reports without refusing the program (a colour name outside the
    palette of docs/spec/autumn.md 16, which Autumn accepts but the benchmark cannot index)."""


class TaskFileError(LlmEvalError):
    """A WorldTest task file that does not validate; the message names the file and the field."""
