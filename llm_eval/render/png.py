"""PNG images of frames (Pillow): crisp square cells, optional grid lines and coordinates, and
overlays for masked cells (hidden: a grey hatch) and goal cells (a white-and-black ring).

Cells are filled rectangles drawn without antialiasing, so every pixel of a cell is its colour
(``palette.rgb``) and the image scales cleanly. Unless ``metadata=False``, the PNG carries a
``llm_eval.frame`` text chunk (layout, background, the RGB of each colour, the masked cells),
which is what lets ``parse_png`` read any frame back exactly, even colours outside the palette.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import cast

from ..autumn import Frame
from .errors import RenderError, RenderParseError
from .palette import MASK_COLOUR, hex_rgb, rgb

__all__ = ["render_png", "render_image", "parse_png", "PngLayout", "METADATA_KEY"]

METADATA_KEY = "llm_eval.frame"
GRID_LINE_RGB = (64, 64, 64)
CANVAS_RGB = (255, 255, 255)
LABEL_RGB = (0, 0, 0)
MASK_RGB = (88, 88, 88)
HATCH_RGB = (150, 150, 150)
RING_OUTER_RGB = (255, 255, 255)
RING_INNER_RGB = (0, 0, 0)

Cells = Iterable[tuple[int, int]]


@dataclass(frozen=True, slots=True)
class PngLayout:
    """Where cells sit in the image: cell (x, y) starts at ``origin + line + (cell + line) * (x, y)``."""

    size: int
    cell: int
    line: int
    origin: tuple[int, int]

    def cell_box(self, x: int, y: int) -> tuple[int, int, int, int]:
        left = self.origin[0] + self.line + x * (self.cell + self.line)
        top = self.origin[1] + self.line + y * (self.cell + self.line)
        return left, top, left + self.cell - 1, top + self.cell - 1

    @property
    def grid_extent(self) -> int:
        return self.size * self.cell + (self.size + 1) * self.line


def _colour_table(frame: Frame) -> dict[str, tuple[int, int, int]]:
    """One distinct RGB per colour of the frame (twins nudged apart in blue)."""
    table: dict[str, tuple[int, int, int]] = {}
    used: set[tuple[int, int, int]] = set()
    for name in sorted(frame.colours() | {frame.background}):
        r, g, b = rgb(name)
        while (r, g, b) in used:
            b = (b + 1) % 256
        table[name] = (r, g, b)
        used.add((r, g, b))
    return table


def _cells(cells: Cells, size: int, what: str) -> list[tuple[int, int]]:
    out = []
    for x, y in cells:
        if not (0 <= x < size and 0 <= y < size):
            raise RenderError(f"{what} cell ({x}, {y}) is off the {size}x{size} grid")
        out.append((int(x), int(y)))
    return sorted(set(out), key=lambda c: (c[1], c[0]))


def _font(cell: int):
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=max(9, min(cell * 0.6, 18)))
    except TypeError:  # Pillow without FreeType: the fixed bitmap font
        return ImageFont.load_default()


def render_image(frame: Frame, *, cell_size: int = 24, grid_lines: bool = True,
                 coordinates: bool = False, masked: Cells = (), goal: Cells = ()):
    """The frame as a ``PIL.Image`` (RGB) plus its layout and colour table; see ``render_png``."""
    from PIL import Image, ImageDraw

    if not 4 <= cell_size <= 256:
        raise RenderError(f"cell_size must be between 4 and 256 pixels, got {cell_size}")
    size = frame.size
    masked_cells = _cells(masked, size, "masked")
    goal_cells = _cells(goal, size, "goal")
    if goal_cells and cell_size < 8:
        raise RenderError(f"goal rings need cells of at least 8 pixels, got cell_size {cell_size}")
    line = 1 if grid_lines else 0
    font = _font(cell_size) if coordinates else None
    margin = (0, 0)
    if font is not None:
        label_w = int(ImageDraw.Draw(Image.new("RGB", (1, 1))).textlength(
            str(max(size - 1, 0)), font=font))
        margin = (label_w + 6, int(cell_size * 0.6 + 8))
    layout = PngLayout(size, cell_size, line, margin)
    extent = layout.grid_extent
    image = Image.new("RGB", (margin[0] + extent, margin[1] + extent), CANVAS_RGB)
    draw = ImageDraw.Draw(image)
    if line:
        draw.rectangle((margin[0], margin[1], margin[0] + extent - 1, margin[1] + extent - 1),
                       fill=GRID_LINE_RGB)
    table = _colour_table(frame)
    for y, row in enumerate(frame.grid):
        for x, colour in enumerate(row):
            draw.rectangle(layout.cell_box(x, y), fill=table[colour])
    for x, y in masked_cells:
        left, top, right, bottom = layout.cell_box(x, y)
        draw.rectangle((left, top, right, bottom), fill=MASK_RGB)
        for k in range(-cell_size, cell_size, 4):  # diagonal hatch, clipped to the cell
            points = [(left + i, top + i - k) for i in range(cell_size)
                      if 0 <= i - k < cell_size]
            draw.point(points, fill=HATCH_RGB)
    ring = max(1, cell_size // 12)
    for x, y in goal_cells:
        left, top, right, bottom = layout.cell_box(x, y)
        for i in range(ring):
            draw.rectangle((left + i, top + i, right - i, bottom - i), outline=RING_OUTER_RGB)
            j = i + ring
            draw.rectangle((left + j, top + j, right - j, bottom - j), outline=RING_INNER_RGB)
    if font is not None:
        for k in range(size):
            left, top, right, bottom = layout.cell_box(k, k)
            draw.text(((left + right + 1) / 2, margin[1] / 2), str(k), fill=LABEL_RGB,
                      font=font, anchor="mm")
            draw.text((margin[0] - 3, (top + bottom + 1) / 2), str(k), fill=LABEL_RGB,
                      font=font, anchor="rm")
    return image, layout, table, masked_cells


def render_png(frame: Frame, *, cell_size: int = 24, grid_lines: bool = True,
               coordinates: bool = False, masked: Cells = (), goal: Cells = (),
               metadata: bool = True) -> bytes:
    """The frame as PNG bytes.

    ``cell_size`` is the side of a cell in pixels; ``grid_lines`` draws 1-pixel lines between
    cells; ``coordinates`` labels columns (top) and rows (left). ``masked`` cells are hidden
    under a hatch, ``goal`` cells get a ring. ``metadata`` embeds what ``parse_png`` needs.
    """
    from PIL.PngImagePlugin import PngInfo

    image, layout, table, masked_cells = render_image(
        frame, cell_size=cell_size, grid_lines=grid_lines, coordinates=coordinates,
        masked=masked, goal=goal)
    info = None
    if metadata:
        info = PngInfo()
        info.add_text(METADATA_KEY, json.dumps({
            "version": 1, "size": layout.size, "cell": layout.cell, "line": layout.line,
            "origin": list(layout.origin), "background": frame.background,
            "colours": {name: hex_rgb(value) for name, value in table.items()},
            "masked": [list(c) for c in masked_cells]}, separators=(",", ":")))
    out = io.BytesIO()
    image.save(out, format="PNG", pnginfo=info, optimize=True)
    return out.getvalue()


def _fail(message: str) -> RenderParseError:
    return RenderParseError(message, fmt="png")


def parse_png(data: bytes) -> Frame:
    """Read a ``render_png`` image back to its frame (masked cells read as 'transparent')."""
    from PIL import Image, UnidentifiedImageError

    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except (UnidentifiedImageError, OSError) as exc:
        raise _fail(f"not a PNG image ({exc})") from None
    raw = image.info.get(METADATA_KEY)
    if raw is None:
        raise _fail(f"no '{METADATA_KEY}' text chunk: render with metadata=True to parse back")
    try:
        meta = json.loads(raw)
        layout = PngLayout(int(meta["size"]), int(meta["cell"]), int(meta["line"]),
                           (int(meta["origin"][0]), int(meta["origin"][1])))
        names = {tuple(int(h[i:i + 2], 16) for i in (0, 2, 4)): name
                 for name, h in meta["colours"].items()}
        masked = {(int(x), int(y)) for x, y in meta["masked"]}
        background = str(meta["background"])
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        raise _fail(f"bad '{METADATA_KEY}' metadata: {exc!r}") from None
    pixels = image.convert("RGB")
    width, height = pixels.size
    rows = []
    for y in range(layout.size):
        row = []
        for x in range(layout.size):
            if (x, y) in masked:
                row.append(MASK_COLOUR)
                continue
            left, top, right, bottom = layout.cell_box(x, y)
            centre = ((left + right) // 2, (top + bottom) // 2)
            if not (centre[0] < width and centre[1] < height):
                raise _fail(f"the image is too small for cell ({x}, {y})")
            # an RGB image's pixel is an (r, g, b) tuple (Pillow types it as any pixel)
            value = cast(tuple[int, int, int], pixels.getpixel(centre))
            name = names.get(value[:3])
            if name is None:
                raise _fail(f"cell ({x}, {y}) has colour #{hex_rgb(value[:3])}, "
                            "which is not in the image's colour table")
            row.append(name)
        rows.append(tuple(row))
    return Frame(tuple(rows), background)
