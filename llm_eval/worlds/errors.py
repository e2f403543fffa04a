"""Errors of the world layer.

What an *agent* gets wrong in a world (an unparsable action, a click off the grid) is never
raised: ``World.step`` reports it in ``info["invalid_action"]`` and counts it. The errors here
are the caller's or the shipped data's: an unknown world name (with a "did you mean"), bad
metadata (naming the file and the field), stepping a world before ``reset``.
"""

from __future__ import annotations

from ..errors import LlmEvalError

__all__ = ["WorldError", "UnknownWorldError", "WorldMetadataError", "WorldStateError"]


class WorldError(LlmEvalError):
    """Base of the world layer's errors."""


class UnknownWorldError(WorldError):
    """A world name that is not registered; the message suggests the closest names."""

    def __init__(self, name: str, known: list[str], suggestions: list[str]) -> None:
        self.name = name
        self.known = known
        self.suggestions = suggestions
        hint = f"; did you mean {' or '.join(repr(s) for s in suggestions)}?" if suggestions else ""
        listed = ", ".join(known) if known else "none are registered"
        super().__init__(f"unknown world {name!r}{hint} (known worlds: {listed})")


class WorldMetadataError(WorldError):
    """A bundled world whose metadata is missing, unreadable or wrong; names file and field."""

    def __init__(self, message: str, *, path: str, field: str | None = None,
                 line: int | None = None) -> None:
        self.message = message
        self.path = path
        self.field = field
        self.line = line
        where = path + (f":{line}" if line is not None else "")
        what = f" field '{field}':" if field else ""
        super().__init__(f"{where}:{what} {message}")


class WorldStateError(WorldError):
    """A world used out of order (``step`` before ``reset``, after ``close``)."""
