"""The terminal rendering used by ``llm-eval play``: truecolor cells, labels, mouse mapping."""

from __future__ import annotations

import re

from render_frames import frame_of

from llm_eval.autumn import Frame
from llm_eval.render import render_ansi
from llm_eval.render.terminal import cell_at

ESCAPE = re.compile(r"\x1b\[[0-9;]*m")
DOT = frame_of(["...", ".r.", "..w"], {".": "black", "r": "red", "w": "white"})


def test_cells_are_painted_with_24_bit_colours() -> None:
    lines = render_ansi(DOT)
    assert lines[0] == "  0 1 2 "
    assert "\x1b[48;2;255;0;0m  " in lines[2]      # the red cell of row 1
    assert "\x1b[48;2;255;255;255m  " in lines[3]  # the white cell of row 2
    assert all(line.endswith("\x1b[0m") for line in lines[1:])


def test_symbols_make_the_plain_text_readable() -> None:
    plain = [ESCAPE.sub("", line) for line in render_ansi(DOT, symbols=True)]
    assert plain[1:] == ["0 . . . ", "1 . r . ", "2 . . w "]


def test_cursor_marks_one_cell() -> None:
    plain = [ESCAPE.sub("", line) for line in render_ansi(DOT, cursor=(2, 0))]
    assert plain[1] == "0     []"


def test_wide_grids_have_two_header_lines() -> None:
    frame = Frame((("black",) * 12,) * 12, "black")
    lines = [ESCAPE.sub("", line) for line in render_ansi(frame)]
    assert lines[0].rstrip() == "   " + "  " * 10 + "1 1"
    assert lines[1].startswith("   0 1 2")
    assert lines[2].startswith(" 0 ")


def test_cell_at_inverts_the_layout() -> None:
    # 3x3: label "0 " is 2 columns, one header line; cells are 2 columns wide.
    assert cell_at(3, 2, 1) == (0, 0)
    assert cell_at(3, 3, 1) == (0, 0)
    assert cell_at(3, 4, 3) == (1, 2)
    assert cell_at(3, 1, 1) is None and cell_at(3, 2, 0) is None
    assert cell_at(3, 8, 1) is None and cell_at(3, 2, 4) is None
    # 12x12: labels are 2 wide plus a space, two header lines.
    assert cell_at(12, 3, 2) == (0, 0) and cell_at(12, 3 + 2 * 11, 2 + 11) == (11, 11)
