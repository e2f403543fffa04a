"""PNG rendering: crisp cells of the right colours, layout options, overlays, and parse-back."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from render_frames import frame_of

from llm_eval.autumn import Frame
from llm_eval.render import MASK_COLOUR, RenderError, RenderParseError, parse_png, render_png, rgb
from llm_eval.render.png import GRID_LINE_RGB, MASK_RGB, RING_OUTER_RGB, render_image

DOT = frame_of(["...", ".r.", "..w"], {".": "black", "r": "red", "w": "white"})


def pixels(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    return image.convert("RGB")


def test_cells_are_solid_squares_of_their_colour() -> None:
    image = pixels(render_png(DOT, cell_size=10, grid_lines=False))
    assert image.size == (30, 30)
    for y in range(3):
        for x in range(3):
            colours = {image.getpixel((10 * x + i, 10 * y + j))
                       for i in range(10) for j in range(10)}
            assert colours == {rgb(DOT.grid[y][x])}, (x, y)


def test_grid_lines_sit_between_cells() -> None:
    image = pixels(render_png(DOT, cell_size=10))
    assert image.size == (3 * 10 + 4, 3 * 10 + 4)
    assert image.getpixel((0, 5)) == GRID_LINE_RGB and image.getpixel((11, 5)) == GRID_LINE_RGB
    assert image.getpixel((1 + 11 + 5, 1 + 11 + 5)) == rgb("red")


def test_coordinates_add_margins_with_labels() -> None:
    plain = pixels(render_png(DOT, cell_size=20))
    labelled = pixels(render_png(DOT, cell_size=20, coordinates=True))
    assert labelled.size[0] > plain.size[0] and labelled.size[1] > plain.size[1]
    _, layout, _, _ = render_image(DOT, cell_size=20, coordinates=True)
    left, top = layout.origin
    band = labelled.crop((left, 0, labelled.size[0], top))  # the column-number band
    assert len(band.getcolors(1 << 16)) > 1, "no label was drawn"
    assert parse_png(render_png(DOT, cell_size=20, coordinates=True)) == DOT


def test_spelling_twins_get_distinct_pixels() -> None:
    twins = Frame((("gray", "grey"), ("darkgray", "darkgrey")), "black")
    assert parse_png(render_png(twins)) == twins
    clash = Frame((("#ff0000", "red"), ("red", "black")), "black")  # same RGB, two names
    assert parse_png(render_png(clash)) == clash


def test_overlays_hide_masked_cells_and_ring_goal_cells() -> None:
    data = render_png(DOT, cell_size=24, grid_lines=False, masked=[(1, 1)], goal=[(2, 2)])
    image = pixels(data)
    masked_colours = {image.getpixel((24 + i, 24 + j)) for i in range(24) for j in range(24)}
    assert rgb("red") not in masked_colours and MASK_RGB in masked_colours
    assert image.getpixel((48, 48)) == RING_OUTER_RGB          # the ring's corner
    assert image.getpixel((48 + 12, 48 + 12)) == rgb("white")   # the goal cell's own colour
    back = parse_png(data)
    assert back.grid[1][1] == MASK_COLOUR
    assert back.grid[2][2] == "white" and back.grid[0] == DOT.grid[0]


@pytest.mark.parametrize("kwargs, message", [
    ({"masked": [(3, 0)]}, r"masked cell \(3, 0\) is off the 3x3 grid"),
    ({"goal": [(0, -1)]}, r"goal cell \(0, -1\) is off"),
    ({"cell_size": 2}, "cell_size must be between 4 and 256"),
    ({"cell_size": 6, "goal": [(0, 0)]}, "goal rings need cells of at least 8"),
])
def test_bad_options_are_render_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(RenderError, match=message):
        render_png(DOT, **kwargs)


def test_round_trip_of_real_frames_in_every_layout(bouncer_frames: list[Frame]) -> None:
    for frame in bouncer_frames:
        for kwargs in ({}, {"grid_lines": False, "cell_size": 4},
                       {"coordinates": True, "cell_size": 32}):
            assert parse_png(render_png(frame, **kwargs)) == frame


def test_parse_errors() -> None:
    with pytest.raises(RenderParseError, match="not a PNG"):
        parse_png(b"hello")
    with pytest.raises(RenderParseError, match="no 'llm_eval.frame' text chunk"):
        parse_png(render_png(DOT, metadata=False))
    image = pixels(render_png(DOT))
    tampered = io.BytesIO()
    from PIL.PngImagePlugin import PngInfo

    info = PngInfo()
    info.add_text("llm_eval.frame", '{"size": 3}')
    image.save(tampered, format="PNG", pnginfo=info)
    with pytest.raises(RenderParseError, match="bad 'llm_eval.frame' metadata"):
        parse_png(tampered.getvalue())


def test_metadata_is_optional_and_small() -> None:
    with_meta, without = render_png(DOT), render_png(DOT, metadata=False)
    assert 0 < len(with_meta) - len(without) < 400
    assert pixels(with_meta).tobytes() == pixels(without).tobytes()
