"""Frames of the transcript viewer as ``data:`` PNG URIs, drawn from the observations the
agent got: the frame it looked at (masked cells hatched), a planning goal (the cells that
matter ringed), a masked-frame task's candidate patches. A grid that cannot be drawn (not
square, larger than 64 cells, cells off the grid) gives no image, never an error.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from .markup import Markup, png_uri, tag

__all__ = ["frame_png", "frame_img", "goal_figure", "mfp_options", "MAX_GRID"]

MAX_GRID = 64


def _frame_of(rows: Any, background: Any):
    from ..autumn import Frame

    if not isinstance(rows, list) or not 0 < len(rows) <= MAX_GRID:
        raise ValueError("not a grid")
    if not all(isinstance(r, list) and len(r) == len(rows) for r in rows):
        raise ValueError("not a square grid")
    grid = tuple(tuple(str(c) for c in r) for r in rows)
    return Frame(grid, str(background or "black"))


def frame_png(rows: Any, background: Any = "black", *, masked: Any = (),
              goal: Any = ()) -> str | None:
    """A data URI of the frame's PNG, or None when the observation holds no drawable grid."""
    try:
        frame = _frame_of(rows, background)
        masked_cells = tuple((int(c[0]), int(c[1])) for c in masked or ())
        goal_cells = tuple((int(c[0]), int(c[1])) for c in goal or ())
    except (ValueError, TypeError, IndexError):
        return None
    return _png_uri(frame, masked_cells, goal_cells)


@lru_cache(maxsize=4096)   # frames repeat a lot within an episode
def _png_uri(frame, masked: tuple, goal: tuple) -> str | None:
    from ..render import RenderError, render_png

    cell = max(8 if goal else 4, min(14, 190 // frame.size))
    try:
        data = render_png(frame, cell_size=cell, masked=masked, goal=goal, metadata=False)
    except RenderError:   # cells off the grid: the step shows no image
        return None
    return png_uri(data)


def frame_img(observation: dict[str, Any], alt: str) -> Markup:
    """The observation's frame as an ``<img>`` (masked cells hatched)."""
    uri = frame_png(observation.get("frame"), observation.get("background"),
                    masked=observation.get("masked") or ())
    if uri is None:
        return tag("div", "(no frame to draw)", class_="noframe")
    return tag("img", src=uri, alt=alt, class_="frame")


def goal_figure(observation: dict[str, Any]) -> Markup:
    """A planning observation's goal grid, the cells that matter ringed."""
    planning = observation.get("planning")
    if not isinstance(planning, dict):
        return Markup("")
    mask = planning.get("mask") or []
    try:
        goal_cells = [(x, y) for y, row in enumerate(mask) for x, m in enumerate(row) if m]
    except TypeError:
        goal_cells = []
    uri = frame_png(planning.get("goal"), observation.get("background"), goal=goal_cells)
    if uri is None:
        return Markup("")
    return tag("figure", tag("img", src=uri, alt="planning goal", class_="frame"),
               tag("figcaption", f"goal (ringed cells must match), horizon "
                                 f"{planning.get('horizon')}"), class_="goal")


def mfp_options(observation: dict[str, Any]) -> Markup:
    """The six candidate patches of a masked-frame task, each drawn on its own (cells outside
    a non-square patch hatched)."""
    view = observation.get("mfp")
    if not isinstance(view, dict):
        return Markup("")
    options = view.get("options")
    if not isinstance(options, list) or not options:
        return Markup("")
    figures = []
    for k, patch in enumerate(options[:12]):
        uri = None
        if isinstance(patch, list) and patch and all(isinstance(r, list) for r in patch):
            side = max(len(patch), max(len(r) for r in patch))
            rows = [[str(r[x]) if x < len(r) else "black" for x in range(side)]
                    for r in patch] + [["black"] * side for _ in range(side - len(patch))]
            outside = [(x, y) for y in range(side) for x in range(side)
                       if y >= len(patch) or x >= len(patch[y])]
            uri = frame_png(rows, observation.get("background"), masked=outside)
        image = tag("img", src=uri, alt=f"option {k}", class_="option") if uri \
            else tag("span", "(not drawable)")
        figures.append(tag("figure", image, tag("figcaption", f"option {k}")))
    mask = view.get("mask")
    view_mask = mask if isinstance(mask, dict) else {}
    where = ", ".join(f"{key} {view_mask.get(key)}" for key in ("x", "y", "width", "height"))
    return tag("div", tag("div", f"candidate patches for the hidden rectangle ({where}); "
                                 f"{len(view.get('frames') or [])} recorded frames",
                          class_="meta"), *figures, class_="options")
