"""The three text renderings: exact output on small frames, lossless parse-back (also for
random frames with arbitrary colour names), and parse errors that name the line."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from render_frames import frame_of

from llm_eval.autumn import Frame
from llm_eval.render import (
    PALETTE,
    PALETTE_SYMBOLS,
    RenderError,
    RenderParseError,
    check_format,
    parse_compact,
    parse_diff,
    parse_json,
    parse_text,
    render_compact,
    render_diff,
    render_json,
    render_text,
)

DOT = frame_of(["...", ".r.", "..w"], {".": "black", "r": "red", "w": "white"})
MOVED = frame_of(["...", "..r", "..r"], {".": "black", "r": "red"})


# --- json ---------------------------------------------------------------------------------------

def test_json_is_the_published_observation_string() -> None:
    assert render_json(DOT) == ('[["black", "black", "black"], ["black", "red", "black"], '
                                '["black", "black", "white"]]')
    assert json.loads(render_json(DOT)) == DOT.to_rows()


def test_json_parse_back_takes_the_background() -> None:
    white = Frame(DOT.grid, "white")
    assert parse_json(render_json(white), background="white") == white
    assert parse_json(render_json(DOT)) == DOT


@pytest.mark.parametrize("text, message", [
    ("[[", "not JSON"),
    ('{"a": 1}', "list of rows"),
    ('[["red", "red"], ["red"]]', "row 1 is not a list of 2"),
    ('[["red", 3], ["red", "red"]]', r"cell \(1, 0\) is 3"),
])
def test_json_parse_errors(text: str, message: str) -> None:
    with pytest.raises(RenderParseError, match=message):
        parse_json(text)


# --- compact ------------------------------------------------------------------------------------

def test_compact_small_grid_exact() -> None:
    assert render_compact(DOT) == "\n".join([
        "legend: .=black r=red w=white",
        "  012",
        "0 ...",
        "1 .r.",
        "2 ..w",
    ])


def test_compact_wide_grid_has_tens_and_units_and_aligned_rows() -> None:
    frame = Frame(tuple(tuple("red" if x == y else "black" for x in range(12))
                        for y in range(12)), "black")
    lines = render_compact(frame).split("\n")
    assert lines[1] == " " * 13 + "11"
    assert lines[2] == "   012345678901"
    assert lines[3] == " 0 r..........."
    assert lines[14] == "11 ...........r"
    assert parse_compact("\n".join(lines)) == frame


def test_compact_palette_symbols_are_fixed_and_background_is_a_dot() -> None:
    assert len(set(PALETTE_SYMBOLS.values())) == len(PALETTE) == 39
    assert all(s.isalpha() for s in PALETTE_SYMBOLS.values())
    assert PALETTE_SYMBOLS["red"] == "r" and PALETTE_SYMBOLS["black"] == "k"
    # On a white background black takes its letter and white is the dot.
    inverted = Frame(tuple(tuple("white" if c == "black" else "black" if c == "white" else c
                                 for c in row) for row in DOT.grid), "white")
    assert render_compact(inverted).split("\n")[0] == "legend: .=white k=black r=red"


def test_compact_lists_the_background_even_when_no_cell_has_it() -> None:
    full = Frame((("red", "red", "red"),) * 3, "black")
    text = render_compact(full)
    assert text.startswith("legend: .=black r=red\n")
    assert parse_compact(text) == full


def test_compact_quotes_unusual_colour_names() -> None:
    frame = Frame((("dark red", 'a"b'), ("black", "x=y")), "black")
    text = render_compact(frame)
    assert '"dark red"' in text and '"a\\"b"' in text and '"x=y"' in text
    assert parse_compact(text) == frame


def test_compact_refuses_more_colours_than_symbols() -> None:
    names = [f"c{i}" for i in range(100)]
    frame = Frame(tuple(tuple(names[y * 10 + x] for x in range(10)) for y in range(10)),
                  "black")
    with pytest.raises(RenderError, match="more than the compact grid has symbols"):
        render_compact(frame)


@pytest.mark.parametrize("text, line, message", [
    ("0 ...", 1, "must start with 'legend: '"),
    ("legend: r=red\n  0\n0 r", 1, "does not name the background"),
    ("legend: .=black r=red r=blue", 1, "listed twice"),
    ("legend: .=black\n  01\n0 ..\n2 ..", 4, "expected row 1, found row 2"),
    ("legend: .=black\n  01\n0 .x\n1 ..", 3, "symbol 'x' is not in the legend"),
    ("legend: .=black\n  01\n0 ..\nrow 1", 4, "must start with its y"),
    ("legend: .=black\n  01\n0 ..\n1 ...", None, "row 1 has 3 cells"),
])
def test_compact_parse_errors_name_the_line(text: str, line: int | None, message: str) -> None:
    with pytest.raises(RenderParseError, match=message) as caught:
        parse_compact(text)
    assert caught.value.line == line


def test_compact_needs_far_fewer_characters_than_json(bouncer_frames: list[Frame]) -> None:
    frame = bouncer_frames[-1]
    assert len(render_compact(frame)) * 4 < len(render_json(frame))


# --- diff ---------------------------------------------------------------------------------------

def test_diff_groups_changes_by_before_and_after_in_order_of_first_cell() -> None:
    assert render_diff(MOVED, DOT).split("\n") == [
        "3 cells changed (x,y):",
        "red -> black: (1,1)",
        "black -> red: (2,1)",
        "white -> red: (2,2)",
    ]
    assert parse_diff(render_diff(MOVED, DOT), DOT) == MOVED


def test_diff_of_equal_frames() -> None:
    assert render_diff(DOT, DOT) == "no cells changed"
    assert parse_diff("no cells changed", DOT) == DOT


def test_diff_one_cell_is_singular() -> None:
    one = frame_of(["...", ".r.", "..."], {".": "black", "r": "red"})
    assert render_diff(one, DOT) == "1 cell changed (x,y):\nwhite -> black: (2,2)"


def test_diff_records_a_background_change() -> None:
    white = Frame(DOT.grid, "white")
    assert render_diff(white, DOT) == "background: black -> white\nno cells changed"
    assert parse_diff(render_diff(white, DOT), DOT) == white


def test_diff_of_a_resized_grid_carries_the_full_frame() -> None:
    big = Frame((("red",) * 4,) * 4, "black")
    text = render_diff(big, DOT)
    assert text.startswith("grid resized from 3x3 to 4x4; the full frame:\nlegend: ")
    assert parse_diff(text, DOT) == big


@pytest.mark.parametrize("text, message", [
    ("2 cells changed (x,y):\nred -> black: (1,1)", "announces 2 changed cells but lists 1"),
    ("1 cell changed (x,y):\nblue -> black: (1,1)", r"cell \(1,1\) was 'red', not 'blue'"),
    ("1 cell changed (x,y):\nblack -> red: (5,1)", "off the 3x3 grid"),
    ("red -> black: (1,1)", "missing the 'N cells changed'"),
    ("1 cell changed (x,y):\nthe ball moved", "unreadable line"),
    ("background: white -> black\nno cells changed", "background was 'black'"),
    ("grid resized from 9x9 to 4x4; the full frame:\nlegend: .=black", "previous frame is 3x3"),
])
def test_diff_parse_errors(text: str, message: str) -> None:
    with pytest.raises(RenderParseError, match=message):
        parse_diff(text, DOT)


# --- round trips on real and random frames -------------------------------------------------------

def test_every_text_format_round_trips_real_frames(bouncer_frames: list[Frame]) -> None:
    for previous, frame in zip(bouncer_frames, bouncer_frames[1:]):
        for fmt in ("json", "compact", "diff"):
            text = render_text(frame, fmt, previous)
            assert parse_text(text, fmt, previous=previous, background=frame.background) == frame


NAMES = st.one_of(st.sampled_from([name for name, _ in PALETTE]),
                  st.text(min_size=1, max_size=8).map(str.lower))


@st.composite
def frames(draw: st.DrawFn, size: int | None = None) -> Frame:
    n = size if size is not None else draw(st.integers(1, 25))
    colours = draw(st.lists(NAMES, min_size=1, max_size=12, unique=True))
    background = draw(st.sampled_from(colours))
    grid = tuple(tuple(draw(st.sampled_from(colours)) for _ in range(n)) for _ in range(n))
    return Frame(grid, background)


@settings(max_examples=150, deadline=None)
@given(frames())
def test_json_and_compact_round_trip_any_frame(frame: Frame) -> None:
    assert parse_json(render_json(frame), frame.background) == frame
    assert parse_compact(render_compact(frame)) == frame


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 12).flatmap(lambda n: st.tuples(frames(n), frames(n))))
def test_diff_round_trips_any_pair(pair: tuple[Frame, Frame]) -> None:
    previous, frame = pair
    assert parse_diff(render_diff(frame, previous), previous) == frame


def test_unknown_format_suggests_the_closest() -> None:
    with pytest.raises(RenderError, match="did you mean 'compact'"):
        check_format("compakt")
    with pytest.raises(RenderError, match="needs the previous frame"):
        render_text(DOT, "diff")
