"""Colour names to RGB, and the fixed one-character symbols of the compact grid.

The names and their order are the benchmark palette (docs/spec/autumn.md 16). Their RGB values are the
CSS colours of the same names, except that the spelling twins ``grey``/``gray`` and
``darkgrey``/``darkgray`` are one step apart in blue: they are distinct colours in Autumn, so an
image must keep them apart (the difference is invisible). A name outside the palette (Autumn
accepts any string) gets its CSS colour when it has one, else a colour derived from the name.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

__all__ = ["PALETTE", "MASK_COLOUR", "rgb", "hex_rgb", "symbol_of", "PALETTE_SYMBOLS"]

#: Index 0 of the palette: the name a masked (hidden) cell parses back to.
MASK_COLOUR = "transparent"

#: (name, (r, g, b)) in palette index order, 1..39.
PALETTE: tuple[tuple[str, tuple[int, int, int]], ...] = (
    ("black", (0, 0, 0)),
    ("gray", (128, 128, 128)),
    ("grey", (128, 128, 129)),
    ("gold", (255, 215, 0)),
    ("green", (0, 128, 0)),
    ("mediumpurple", (147, 112, 219)),
    ("purple", (128, 0, 128)),
    ("white", (255, 255, 255)),
    ("yellow", (255, 255, 0)),
    ("blue", (0, 0, 255)),
    ("red", (255, 0, 0)),
    ("orange", (255, 165, 0)),
    ("sandybrown", (244, 164, 96)),
    ("brown", (165, 42, 42)),
    ("pink", (255, 192, 203)),
    ("lightblue", (173, 216, 230)),
    ("orangered", (255, 69, 0)),
    ("skyblue", (135, 206, 235)),
    ("lightcyan", (224, 255, 255)),
    ("lightgreen", (144, 238, 144)),
    ("magenta", (255, 0, 255)),
    ("darkgray", (169, 169, 169)),
    ("darkgrey", (169, 169, 170)),
    ("darkblue", (0, 0, 139)),
    ("darkgreen", (0, 100, 0)),
    ("darkred", (139, 0, 0)),
    ("tan", (210, 180, 140)),
    ("lightpink", (255, 182, 193)),
    ("crimson", (220, 20, 60)),
    ("goldenrod", (218, 165, 32)),
    ("steelblue", (70, 130, 180)),
    ("coral", (255, 127, 80)),
    ("silver", (192, 192, 192)),
    ("seagreen", (46, 139, 87)),
    ("limegreen", (50, 205, 50)),
    ("cyan", (0, 255, 255)),
    ("lightgray", (211, 211, 211)),
    ("maroon", (128, 0, 0)),
    ("darkorange", (255, 140, 0)),
)
_RGB = dict(PALETTE)


@lru_cache(maxsize=1024)
def rgb(name: str) -> tuple[int, int, int]:
    """The RGB of a colour name: the palette's, else CSS's, else one derived from the name."""
    found = _RGB.get(name)
    if found is not None:
        return found
    from PIL import ImageColor  # Pillow knows every CSS name and #rrggbb

    try:
        value = ImageColor.getrgb(name)
        return value[0], value[1], value[2]
    except ValueError:
        digest = hashlib.sha256(name.encode("utf-8")).digest()
        return digest[0], digest[1], digest[2]


def hex_rgb(colour: tuple[int, int, int]) -> str:
    return "%02x%02x%02x" % colour


# -- compact-grid symbols ----------------------------------------------------------------------
# Every palette colour has a fixed letter, picked from its own name where possible, so a colour
# reads the same in every frame and every world. The background is always '.'. Colours outside
# the palette take the letters left over, then punctuation; digits, '.', '=', '"', '#' and
# whitespace are never symbols (they mark coordinates, the background and the legend).
BACKGROUND_SYMBOL = "."
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_EXTRA = "!$%&*+-/:;<>?@^_`|~'()[]{},\\"


def _pick(name: str, taken: set[str]) -> str | None:
    candidates = [name[:1], name[:1].upper()]
    candidates += [c for c in name[1:]] + [c.upper() for c in name[1:]]
    for c in candidates:
        if c in _LETTERS and c not in taken:
            return c
    return None


# The commonest colours get the letter a reader would guess; the rest are derived in palette
# order from their names.
_CHOSEN = {"red": "r", "green": "g", "blue": "b", "yellow": "y", "white": "w", "black": "k",
           "orange": "o", "purple": "p", "gray": "a", "grey": "e", "gold": "d", "brown": "n",
           "pink": "i", "cyan": "c", "magenta": "m", "silver": "s", "tan": "t"}


def _palette_symbols() -> dict[str, str]:
    symbols: dict[str, str] = dict(_CHOSEN)
    taken: set[str] = set(symbols.values())
    for name, _ in PALETTE:
        if name in symbols:
            continue
        symbol = _pick(name, taken) or next(c for c in _LETTERS if c not in taken)
        symbols[name] = symbol
        taken.add(symbol)
    return {name: symbols[name] for name, _ in PALETTE}


PALETTE_SYMBOLS: dict[str, str] = _palette_symbols()
_FREE_POOL = [c for c in _LETTERS if c not in set(PALETTE_SYMBOLS.values())] + list(_EXTRA)


def symbol_of(name: str, taken: set[str]) -> str | None:
    """The symbol for ``name`` given the symbols already used in this frame (None: none left)."""
    fixed = PALETTE_SYMBOLS.get(name)
    if fixed is not None and fixed not in taken:
        return fixed
    own = _pick(name, taken | set(PALETTE_SYMBOLS.values()))
    if own is not None:
        return own
    return next((c for c in _FREE_POOL if c not in taken), None)
