"""Changes since the previous frame, grouped by what each cell turned from and into.

::

    3 cells changed (x,y):
    red -> black: (1,1)
    black -> red: (2,2) (5,2)

- ``no cells changed`` when the frames are equal.
- Groups are listed in the order of their first cell, cells row by row (y, then x).
- A change of background adds a line ``background: black -> white``.
- A change of grid size cannot be told as cell changes: the line ``grid resized from 8x8 to
  16x16; the full frame:`` is followed by the ``compact`` rendering of the new frame.

``parse_diff(text, previous)`` applies the rendering to the previous frame and returns the new
one exactly.
"""

from __future__ import annotations

import json
import re

from ..autumn import Frame
from .compact import parse_compact, quote_name, read_name, render_compact
from .errors import RenderParseError

__all__ = ["render_diff", "parse_diff", "changed_cells"]

_NAME = r'("(?:[^"\\]|\\.)*"|[^\s"]+)'
_COUNT = re.compile(r"(\d+) cells? changed \(x,y\):")
_GROUP = re.compile(_NAME + r" -> " + _NAME + r":((?: \(\d+,\d+\))+)")
_CELL = re.compile(r" \((\d+),(\d+)\)")
_BACKGROUND = re.compile(r"background: " + _NAME + r" -> " + _NAME)
_RESIZED = re.compile(r"grid resized from (\d+)x\1 to (\d+)x\2; the full frame:")


def changed_cells(previous: Frame, frame: Frame) -> list[tuple[int, int, str, str]]:
    """``(x, y, before, after)`` for every cell that differs, row by row (same-size frames)."""
    return [(x, y, before, after)
            for y, (old_row, new_row) in enumerate(zip(previous.grid, frame.grid))
            for x, (before, after) in enumerate(zip(old_row, new_row)) if before != after]


def render_diff(frame: Frame, previous: Frame) -> str:
    """What changed from ``previous`` to ``frame``."""
    if frame.size != previous.size:
        return (f"grid resized from {previous.size}x{previous.size} to {frame.size}x"
                f"{frame.size}; the full frame:\n" + render_compact(frame))
    lines = []
    if frame.background != previous.background:
        lines.append(f"background: {quote_name(previous.background)} -> "
                     f"{quote_name(frame.background)}")
    changes = changed_cells(previous, frame)
    if not changes:
        lines.append("no cells changed")
        return "\n".join(lines)
    groups: dict[tuple[str, str], list[str]] = {}
    for x, y, before, after in changes:
        groups.setdefault((before, after), []).append(f"({x},{y})")
    plural = "cell" if len(changes) == 1 else "cells"
    lines.append(f"{len(changes)} {plural} changed (x,y):")
    for (before, after), cells in groups.items():
        lines.append(f"{quote_name(before)} -> {quote_name(after)}: {' '.join(cells)}")
    return "\n".join(lines)


def _fail(message: str, line: int | None) -> RenderParseError:
    return RenderParseError(message, fmt="diff", line=line)


def parse_diff(text: str, previous: Frame) -> Frame:
    """Apply a ``render_diff`` string to ``previous``; raises RenderParseError on a bad text or
    on a change that does not fit ``previous`` (a cell off its grid, a wrong 'before' colour)."""
    lines = text.split("\n")
    resized = _RESIZED.fullmatch(lines[0])
    if resized:
        if int(resized.group(1)) != previous.size:
            raise _fail(f"resized from {resized.group(1)}, but the previous frame is "
                        f"{previous.size}x{previous.size}", 1)
        try:
            return parse_compact("\n".join(lines[1:]))
        except RenderParseError as exc:
            at = None if exc.line is None else exc.line + 1
            raise _fail(f"in the full frame: {exc.message}", at) from None
    background = previous.background
    rows = [list(row) for row in previous.grid]
    size = previous.size
    expected_count: int | None = None
    counted = 0
    try:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            if match := _BACKGROUND.fullmatch(line):
                before, after = read_name(match.group(1)), read_name(match.group(2))
                if before != background:
                    raise _fail(f"background was {background!r}, not {before!r}", number)
                background = after
            elif line == "no cells changed":
                expected_count = 0
            elif match := _COUNT.fullmatch(line):
                expected_count = int(match.group(1))
            elif match := _GROUP.fullmatch(line):
                before, after = read_name(match.group(1)), read_name(match.group(2))
                for cell in _CELL.finditer(match.group(3)):
                    x, y = int(cell.group(1)), int(cell.group(2))
                    if not (x < size and y < size):
                        raise _fail(f"cell ({x},{y}) is off the {size}x{size} grid", number)
                    if rows[y][x] != before:
                        raise _fail(f"cell ({x},{y}) was {rows[y][x]!r}, not {before!r}",
                                    number)
                    rows[y][x] = after
                    counted += 1
            else:
                raise _fail(f"unreadable line {line!r}", number)
    except json.JSONDecodeError as exc:
        raise _fail(f"bad colour name: {exc.msg}", None) from None
    if expected_count is None:
        raise _fail("missing the 'N cells changed' or 'no cells changed' line", None)
    if expected_count != counted:
        raise _fail(f"announces {expected_count} changed cells but lists {counted}", None)
    return Frame(tuple(tuple(row) for row in rows), background)
