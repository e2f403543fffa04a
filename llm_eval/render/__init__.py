"""Renderers: pure functions from a ``Frame`` to text or an image, each with its parse-back.

Text formats (each lossless; ``parse_text`` returns the frame exactly):

- ``json``: the published format, JSON rows of colour names (``json_grid``);
- ``compact``: one character per cell, a legend and coordinates (``compact``);
- ``diff``: the changes since the previous frame (``diff``).

Image: ``png`` (``png``), crisp cells, optional grid lines and coordinates, overlays for masked
and goal cells. ``terminal`` draws frames with 24-bit colour for ``llm-eval play``. A renderer
is a setting: callers pick one by name (``FORMATS``); an unknown name gets a "did you mean".
"""

from __future__ import annotations

import difflib

from ..autumn import Frame
from .compact import compact_legend, parse_compact, render_compact
from .diff import changed_cells, parse_diff, render_diff
from .errors import RenderError, RenderParseError
from .json_grid import parse_json, render_json
from .palette import MASK_COLOUR, PALETTE, PALETTE_SYMBOLS, rgb
from .png import parse_png, render_image, render_png
from .terminal import render_ansi

__all__ = [
    "FORMATS", "TEXT_FORMATS", "check_format", "render_text", "parse_text",
    "render_json", "parse_json", "render_compact", "parse_compact", "compact_legend",
    "render_diff", "parse_diff", "changed_cells", "render_png", "parse_png", "render_image",
    "render_ansi", "PALETTE", "PALETTE_SYMBOLS", "MASK_COLOUR", "rgb",
    "RenderError", "RenderParseError",
]

TEXT_FORMATS = ("json", "compact", "diff")
FORMATS = (*TEXT_FORMATS, "png")


def check_format(name: str, allowed: tuple[str, ...] = FORMATS) -> str:
    """Return ``name`` if it is a known format, else raise RenderError with a "did you mean"."""
    if name in allowed:
        return name
    close = difflib.get_close_matches(name, allowed, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise RenderError(f"unknown rendering format {name!r}{hint} (known: {', '.join(allowed)})")


def render_text(frame: Frame, fmt: str, previous: Frame | None = None) -> str:
    """Render with a text format by name; ``diff`` needs ``previous``."""
    match check_format(fmt, TEXT_FORMATS):
        case "json":
            return render_json(frame)
        case "compact":
            return render_compact(frame)
        case _:
            if previous is None:
                raise RenderError("the diff format needs the previous frame")
            return render_diff(frame, previous)


def parse_text(text: str, fmt: str, *, previous: Frame | None = None,
               background: str = "black") -> Frame:
    """The inverse of ``render_text``: ``json`` takes ``background``, ``diff`` ``previous``."""
    match check_format(fmt, TEXT_FORMATS):
        case "json":
            return parse_json(text, background)
        case "compact":
            return parse_compact(text)
        case _:
            if previous is None:
                raise RenderError("the diff format needs the previous frame")
            return parse_diff(text, previous)
