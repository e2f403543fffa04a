"""A compact character grid: one character per cell, a legend, and coordinates.

For an 8x8 frame on a black background::

    legend: .=black r=red w=white
      01234567
    0 ........
    1 .r......
    ...
    7 ...www..

- The first line is the legend: ``SYMBOL=colour`` pairs; ``.`` is always the background and is
  always listed. Palette colours have fixed symbols (``palette.PALETTE_SYMBOLS``: red is ``r``
  in every frame of every world); other names take free letters, then punctuation.
- Then the column numbers: for grids wider than 10, a line of tens digits (blank for 0-9) above
  the line of units digits. Each row starts with its y, right-aligned.
- A colour name that is not a plain word is written as a JSON string (``x="dark red"``).

Runs of one character merge into few tokens, so this needs several times fewer tokens than the
JSON form (``benchmarks/renderings.py`` measures it). ``parse_compact`` reads it back exactly.
"""

from __future__ import annotations

import json
import re

from ..autumn import Frame
from .errors import RenderError, RenderParseError
from .palette import BACKGROUND_SYMBOL, symbol_of

__all__ = ["render_compact", "parse_compact", "compact_legend", "quote_name", "read_name"]

_PLAIN_NAME = re.compile(r"[a-z0-9_-]+")
_LEGEND_ENTRY = re.compile(r'(\S)=("(?:[^"\\]|\\.)*"|[^\s"]+)')


def quote_name(name: str) -> str:
    """A colour name as written in a text rendering: bare if it is a plain word, else JSON."""
    return name if _PLAIN_NAME.fullmatch(name) else json.dumps(name)


def read_name(token: str) -> str:
    """The inverse of ``quote_name``."""
    return json.loads(token) if token.startswith('"') else token


def compact_legend(frame: Frame) -> dict[str, str]:
    """``colour -> symbol`` for the background and every colour of the frame.

    The background is ``.``; palette colours have their fixed letters; other names, taken in
    name order, get the first free letter of their own name, else any free symbol.
    """
    legend = {frame.background: BACKGROUND_SYMBOL}
    taken = {BACKGROUND_SYMBOL}
    for name in sorted(frame.colours() - {frame.background}):
        symbol = symbol_of(name, taken)
        if symbol is None:
            raise RenderError(f"the frame has {len(frame.colours())} colours, more than the "
                              "compact grid has symbols for; use the json format")
        legend[name] = symbol
        taken.add(symbol)
    return legend


def _column_header(size: int, label_width: int) -> list[str]:
    pad = " " * (label_width + 1)
    units = pad + "".join(str(x % 10) for x in range(size))
    if size <= 10:
        return [units]
    tens = pad + "".join(" " if x < 10 else str(x // 10 % 10) for x in range(size))
    return [tens.rstrip(), units]


def render_compact(frame: Frame) -> str:
    """The frame as a legend line, column numbers and one line of symbols per row."""
    legend = compact_legend(frame)
    size = frame.size
    width = len(str(max(size - 1, 0)))
    entries = sorted(legend.items(), key=lambda kv: (kv[1] != BACKGROUND_SYMBOL, kv[1]))
    lines = ["legend: " + " ".join(f"{s}={quote_name(c)}" for c, s in entries)]
    lines += _column_header(size, width)
    for y, row in enumerate(frame.grid):
        lines.append(f"{y:>{width}} " + "".join(legend[c] for c in row))
    return "\n".join(lines)


def _fail(message: str, line: int | None) -> RenderParseError:
    return RenderParseError(message, fmt="compact", line=line)


def parse_compact(text: str) -> Frame:
    """Read a ``render_compact`` string back to the frame; raises RenderParseError."""
    lines = text.split("\n")
    first = lines[0]
    if not first.startswith("legend: "):
        raise _fail("the first line must start with 'legend: '", 1)
    body = first[len("legend: "):]
    symbols: dict[str, str] = {}
    position = 0
    for match in _LEGEND_ENTRY.finditer(body):
        if body[position:match.start()].strip():
            raise _fail(f"unreadable legend text {body[position:match.start()]!r}", 1)
        symbol, token = match.group(1), match.group(2)
        if symbol in symbols:
            raise _fail(f"symbol {symbol!r} is listed twice in the legend", 1)
        try:
            symbols[symbol] = read_name(token)
        except json.JSONDecodeError:
            raise _fail(f"bad colour name {token}", 1) from None
        position = match.end()
    if body[position:].strip():
        raise _fail(f"unreadable legend text {body[position:]!r}", 1)
    if BACKGROUND_SYMBOL not in symbols:
        raise _fail("the legend does not name the background ('.=colour')", 1)
    rows: list[tuple[str, ...]] = []
    for number, line in enumerate(lines[1:], start=2):
        stripped = line.strip()
        if not stripped:
            continue
        if " " not in stripped:
            if stripped.isdigit() and not rows:
                continue  # a line of column numbers
            raise _fail(f"expected 'Y CELLS', found {line!r}", number)
        label, _, cells = stripped.partition(" ")
        if not label.isdigit():
            raise _fail(f"a row must start with its y, found {label!r}", number)
        if int(label) != len(rows):
            raise _fail(f"expected row {len(rows)}, found row {label}", number)
        try:
            rows.append(tuple(symbols[c] for c in cells))
        except KeyError as exc:
            raise _fail(f"symbol {exc.args[0]!r} is not in the legend", number) from None
    size = len(rows)
    for y, row in enumerate(rows):
        if len(row) != size:
            raise _fail(f"row {y} has {len(row)} cells; the grid is {size}x{size}", None)
    return Frame(tuple(rows), symbols[BACKGROUND_SYMBOL])
