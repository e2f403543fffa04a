"""Frames for a terminal: each cell two spaces wide, painted with a 24-bit background colour.

Used by ``llm-eval play``. Cells use truecolor escapes (``ESC[48;2;R;G;Bm``) with the RGB of
``palette.rgb``; rows are labelled with y and columns with x (tens above units for wide grids).
``cell_at`` maps a terminal column and row back to the cell under it, for mouse clicks.
"""

from __future__ import annotations

from ..autumn import Frame
from .compact import compact_legend
from .palette import rgb

__all__ = ["render_ansi", "cell_at", "CELL_WIDTH", "RESET"]

CELL_WIDTH = 2
RESET = "\x1b[0m"


def _label_width(size: int) -> int:
    return len(str(max(size - 1, 0)))


def header_lines(size: int) -> int:
    """How many lines of column numbers ``render_ansi`` prints above the first row."""
    return 2 if size > 10 else 1


def _ink(colour: tuple[int, int, int]) -> str:
    """A foreground that stays readable on ``colour``: black on light cells, white on dark."""
    r, g, b = colour
    return "30" if r * 299 + g * 587 + b * 114 > 128_000 else "97"


def render_ansi(frame: Frame, *, cursor: tuple[int, int] | None = None,
                symbols: bool = False) -> list[str]:
    """The frame as terminal lines (escape codes included).

    ``symbols`` writes each cell's compact-grid symbol in it (so the picture survives a copy
    as plain text; pair it with ``compact_legend``); ``cursor`` marks one cell with ``[]``.
    """
    size = frame.size
    legend = compact_legend(frame) if symbols else {}
    width = _label_width(size)
    pad = " " * (width + 1)
    lines = []
    if size > 10:
        lines.append(pad + "".join(f"{x // 10:<2}" if x >= 10 else "  " for x in range(size)))
    lines.append(pad + "".join(f"{x % 10:<2}" for x in range(size)))
    for y, row in enumerate(frame.grid):
        parts = [f"{y:>{width}} "]
        for x, colour in enumerate(row):
            r, g, b = rgb(colour)
            mark = "  "
            if cursor == (x, y):
                mark = f"\x1b[{_ink((r, g, b))}m[]"
            elif symbols:
                mark = f"\x1b[{_ink((r, g, b))}m{legend[colour]} "
            parts.append(f"\x1b[48;2;{r};{g};{b}m{mark}")
        parts.append(RESET)
        lines.append("".join(parts))
    return lines


def cell_at(frame_size: int, column: int, row: int) -> tuple[int, int] | None:
    """The cell under 0-based terminal (column, row) when the grid's first line is row 0 of the
    rendering (the first column-number line); None off the grid."""
    x_pixels = column - (_label_width(frame_size) + 1)
    y = row - header_lines(frame_size)
    if x_pixels < 0 or y < 0:
        return None
    x = x_pixels // CELL_WIDTH
    if x >= frame_size or y >= frame_size:
        return None
    return x, y
