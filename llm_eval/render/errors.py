"""Errors of the renderers.

``RenderError`` is a frame that a format cannot express (a grid too rich for the compact
alphabet, overlay cells off the grid); ``RenderParseError`` is a rendering that does not parse
back, and names the line (text formats) or the part (PNG) at fault. Both are ``LlmEvalError``s,
so the command line prints them as one line instead of a traceback.
"""

from __future__ import annotations

from ..errors import LlmEvalError

__all__ = ["RenderError", "RenderParseError"]


class RenderError(LlmEvalError, ValueError):
    """A frame, or a rendering option, that the chosen format cannot express."""


class RenderParseError(RenderError):
    """A rendering that does not parse back to a frame; ``line`` is 1-based when known."""

    def __init__(self, message: str, *, fmt: str, line: int | None = None) -> None:
        self.message = message
        self.fmt = fmt
        self.line = line
        where = f"{fmt} rendering" + (f", line {line}" if line is not None else "")
        super().__init__(f"{where}: {message}")
