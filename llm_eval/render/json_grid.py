"""The published format: the frame as JSON rows of colour names (docs/spec/autumn.md 10.3).

``render_json`` is exactly AutumnBench's observation string, ``json.dumps(matrix)`` with its
default separators: ``[["black", "gold", ...], ...]``, rows are y, each row lists x = 0..N-1.
It carries no background, so ``parse_json`` takes it as an argument.
"""

from __future__ import annotations

import json

from ..autumn import Frame
from .errors import RenderParseError

__all__ = ["render_json", "parse_json"]


def render_json(frame: Frame) -> str:
    """The frame as AutumnBench's observation string."""
    return json.dumps([list(row) for row in frame.grid])


def parse_json(text: str, background: str = "black") -> Frame:
    """Read a ``render_json`` string back; raises RenderParseError unless it is a square grid."""
    try:
        rows = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RenderParseError(f"not JSON: {exc.msg} (column {exc.colno})", fmt="json",
                               line=exc.lineno) from None
    if not isinstance(rows, list):
        raise RenderParseError("expected a list of rows", fmt="json")
    size = len(rows)
    for y, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != size:
            raise RenderParseError(f"row {y} is not a list of {size} colour names (the grid "
                                   "must be square)", fmt="json")
        for x, colour in enumerate(row):
            if not isinstance(colour, str):
                raise RenderParseError(f"cell ({x}, {y}) is {colour!r}, not a colour name",
                                       fmt="json")
    return Frame(tuple(tuple(row) for row in rows), background)
