"""The published AutumnBench harness's image of a grid, drawn with Pillow [R2].

The harness draws each grid with matplotlib (``env_utils.py:render_grid_matplotlib`` and
``render_string_grid_matplotlib``) and sends it as a JPEG; this module draws the same picture:

- a 5 x 5 inch figure at matplotlib's default 100 dpi, so 500 x 500 pixels, white;
- the axes where matplotlib's default subplot puts them (left 0.125, right 0.9, bottom 0.11,
  top 0.88 of the figure), made square by ``set_aspect('equal')`` and centred: 385 pixels a
  side, framed by 0.8-point black spines, no ticks;
- in the unit square, N x N square cells with a margin of 0.01 around the grid and gaps of 0.01
  between cells, row 0 at the top (the y axis is inverted); each cell filled with its colour and
  edged in black 0.5 points wide;
- a colour name matplotlib does not know is drawn in the ``fill`` colour (the harness's
  ``background_color`` argument); ``mask`` is slategrey, and with ``crosses`` (the string-grid
  variant, used for MFP frames and the planning goal) it carries a black X two points wide
  whose arms reach 0.3 of a cell from the centre;
- JPEG at Pillow's default quality (75), which matplotlib's ``savefig(format='jpeg')`` keeps
  since its own ``savefig.jpeg_quality`` setting (95) was deprecated in 3.3 and removed, with
  the figure's 100 dpi in the JFIF header.

What differs: matplotlib's Agg antialiasing is not Pillow's, so pixels near edges are close to,
not equal to, the harness's (edges here are drawn at 4x and scaled down). The colours, the
geometry and the encoding are the harness's.

Colour names are matplotlib's CSS4 names (Pillow's ``ImageColor`` knows the same table) and
``#rrggbb``; Pillow's extra forms (``rgb(...)``, ``hsl(...)``) are not matplotlib's and fall back
to ``fill``, as do matplotlib's own short forms (``k``, ``C0``, ``tab:blue``), which Autumn
programs do not use.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence

from .errors import RenderError

__all__ = ["render_harness_jpeg", "harness_rgb", "FIGURE_PIXELS", "AXES_BOX", "cell_box"]

FIGURE_PIXELS = 500                       # 5 inches at 100 dpi
_AXES_SIDE = 0.77 * FIGURE_PIXELS         # the default subplot's height (0.88 - 0.11)
_AXES_LEFT = 0.125 * FIGURE_PIXELS + (0.775 * FIGURE_PIXELS - _AXES_SIDE) / 2
_AXES_TOP = (1 - 0.88) * FIGURE_PIXELS
#: (left, top, side) of the axes in pixels of the 500 x 500 image
AXES_BOX = (_AXES_LEFT, _AXES_TOP, _AXES_SIDE)
MARGIN = 0.01
GAP = 0.01
_POINT = 100 / 72                         # pixels per point at 100 dpi
EDGE_WIDTH = 0.5 * _POINT
SPINE_WIDTH = 0.8 * _POINT
CROSS_WIDTH = 2 * _POINT
CROSS_ARM = 0.3
MASK_NAME = "mask"
MASK_RGB = (112, 128, 144)                # matplotlib's slategrey
JPEG_QUALITY = 75
_SCALE = 4                                # drawn this many times larger, then scaled down
_NAME = re.compile(r"[a-z]+|#[0-9a-fA-F]{6}")


def harness_rgb(name: str) -> tuple[int, int, int] | None:
    """The RGB matplotlib gives ``name`` (CSS4 names, ``#rrggbb``), or None where its
    ``to_rgb`` would refuse it."""
    if not _NAME.fullmatch(name):
        return None
    from PIL import ImageColor

    try:
        value = ImageColor.getrgb(name)
    except ValueError:
        return None
    return value[0], value[1], value[2]


def cell_box(size: int, row: int, col: int) -> tuple[float, float, float, float]:
    """(left, top, right, bottom) of cell (row, col) in pixels of the 500 x 500 image."""
    left, top, side = AXES_BOX
    cell = (1.0 - 2 * MARGIN - (size - 1) * GAP) / size
    x = MARGIN + col * (cell + GAP)
    y = MARGIN + row * (cell + GAP)
    return (left + x * side, top + y * side, left + (x + cell) * side, top + (y + cell) * side)


def render_harness_jpeg(rows: Sequence[Sequence[str]], *, fill: str = "black",
                        crosses: bool = False) -> bytes:
    """The harness's JPEG of ``rows`` (colour names, row 0 at the top; module docstring).
    ``fill`` replaces names matplotlib does not know; ``crosses`` marks ``mask`` cells.
    ``RenderError`` for a grid that is not square or a ``fill`` that is not a colour."""
    from PIL import Image, ImageDraw

    size = len(rows)
    if size == 0 or any(len(row) != size for row in rows):
        raise RenderError(f"the harness draws square grids; got {size} rows of lengths "
                         f"{sorted({len(r) for r in rows})}")
    fill_rgb = harness_rgb(fill)
    if fill_rgb is None:
        raise RenderError(f"the fill colour {fill!r} (the harness's background colour) is not a "
                          f"colour matplotlib knows: the harness cannot draw this grid")
    s = _SCALE
    image = Image.new("RGB", (FIGURE_PIXELS * s, FIGURE_PIXELS * s), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    left, top, side = AXES_BOX
    half = SPINE_WIDTH * s / 2
    draw.rectangle((left * s - half, top * s - half, (left + side) * s + half,
                    (top + side) * s + half), fill=(0, 0, 0))
    draw.rectangle((left * s + half, top * s + half, (left + side) * s - half,
                    (top + side) * s - half), fill=(255, 255, 255))
    edge = EDGE_WIDTH * s / 2
    for r, row in enumerate(rows):
        for c, name in enumerate(row):
            x0, y0, x1, y1 = (v * s for v in cell_box(size, r, c))
            colour = MASK_RGB if name == MASK_NAME else (harness_rgb(name) or fill_rgb)
            draw.rectangle((x0 - edge, y0 - edge, x1 + edge, y1 + edge), fill=(0, 0, 0))
            draw.rectangle((x0 + edge, y0 + edge, x1 - edge, y1 - edge), fill=colour)
            if crosses and name == MASK_NAME:
                cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
                arm = CROSS_ARM * (x1 - x0)
                width = max(1, round(CROSS_WIDTH * s))
                draw.line((cx - arm, cy - arm, cx + arm, cy + arm), fill=(0, 0, 0), width=width)
                draw.line((cx - arm, cy + arm, cx + arm, cy - arm), fill=(0, 0, 0), width=width)
    image = image.resize((FIGURE_PIXELS, FIGURE_PIXELS), Image.Resampling.BOX)
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=JPEG_QUALITY, dpi=(100, 100))
    return out.getvalue()
