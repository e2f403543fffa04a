"""The colour names of the benchmark palette (docs/spec/autumn.md 16), for ``autumn check``.

Autumn draws any string as a colour; the benchmark indexes only these names (lower-cased, as it
lower-cases what it reads), so a name outside them is most often a typo. Index 0,
``transparent``, is the mask of hidden cells, never a colour a program should draw.
"""

from __future__ import annotations

__all__ = ["PALETTE_NAMES", "MASK_NAME"]

MASK_NAME = "transparent"

#: Indices 1..39 of the palette, in index order.
PALETTE_NAMES: tuple[str, ...] = tuple("""
    black gray grey gold green mediumpurple purple white yellow blue red orange sandybrown
    brown pink lightblue orangered skyblue lightcyan lightgreen magenta darkgray darkgrey
    darkblue darkgreen darkred tan lightpink crimson goldenrod steelblue coral silver seagreen
    limegreen cyan lightgray maroon darkorange""".split())
