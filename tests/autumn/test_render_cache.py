"""Objects keep their rendered cells when nothing can change them in place; the frames must be
exactly those of rendering every object afresh."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from tiers import tier
from tracing import play, random_actions

from llm_eval.actions import apply_action, parse_action
from llm_eval.autumn import Interpreter
from llm_eval.autumn.values import MovableCells
from llm_eval.worlds import world_names, world_spec

ROOT = Path(__file__).parent.parent.parent
PROGRAMS = [(p.stem, p.read_text()) for p in sorted((ROOT / "benchmarks" / "programs").glob("*.sexp"))]
WORLDS = world_names()
PROGRAMS += [(name, world_spec(name).program_text()) for name in WORLDS]

FIELD_WRITE = """(program
  (= GRID_SIZE 6)
  (object Dot (: n Number) (Cell 0 0 (if (> n 2) then "red" else "blue")))
  (= dot (initnext (Dot 0 (Position 1 1)) (prev dot)))
  (on right (= (.. dot n) (+ (.. dot n) 1))))"""

NO_WRITE = """(program
  (= GRID_SIZE 6)
  (object Dot (: n Number) (Cell 0 0 (if (> n 2) then "red" else "blue")))
  (= dot (initnext (Dot 0 (Position 1 1)) (prev dot))))"""


def _frames(text: str, cache: bool, actions: list[str]) -> list[str]:
    it = Interpreter()
    it.run_script(text, seed=9)
    it._rt.render_cache = cache
    return [it.render_all()] + play(it, actions)


@pytest.mark.parametrize("name,text", [pytest.param(n, t, id=n, marks=tier(n) if n in WORLDS else ())
                                       for n, t in PROGRAMS])
def test_kept_renders_equal_fresh_renders(name, text):
    actions = random_actions(random.Random(name), 60, 12)
    assert _frames(text, True, actions) == _frames(text, False, actions)


@pytest.mark.parametrize("name,text", [pytest.param(n, t, id=n, marks=tier(n) if n in WORLDS else ())
                                       for n, t in PROGRAMS])
def test_the_frame_is_the_host_render(name, text):
    """``render_frame`` (one list of every cell) shows what ``render_all`` (cells per
    variable) says, later cells over earlier ones, and the occupancy is its cells' places."""
    it = Interpreter()
    it.run_script(text, seed=9)
    it._rt.read_occupancy()   # kept whether or not the program reads it
    for action in [None, *random_actions(random.Random(name), 30, 12)]:
        if action is not None:
            apply_action(it, parse_action(action))
            it.step()
        cells = [(c["position"]["x"], c["position"]["y"], c["color"])
                 for v in json.loads(it.render_all()).values() if isinstance(v, list) for c in v]
        frame = it.render_frame()
        rows = [[it.get_background()] * frame.size for _ in range(frame.size)]
        for x, y, colour in cells:
            if 0 <= x < frame.size and 0 <= y < frame.size:
                rows[y][x] = colour.lower()
        assert frame.to_rows() == rows
        assert it._rt.occupied == {(x, y) for x, y, _ in cells}
        # each variable's own cells, rendered alone
        rt = it._rt
        alone = []
        for var in rt.render_order():
            own: list = []
            if var in rt.G.vars and var != "cacheRendered":
                rt.render_value(rt.G.vars[var], rt.G, own)
            if own:
                alone.append((var, own))
        assert rt.host_render() == alone


def test_a_program_that_assigns_fields_renders_afresh():
    it = Interpreter()
    it.run_script(FIELD_WRITE, seed=3)
    assert not it._rt.render_cache
    frames = play(it, ["noop", "noop", "right", "right", "right"])
    assert '"blue"' in frames[1] and '"red"' in frames[-1]


def test_an_evaluated_field_assignment_turns_kept_renders_off():
    it = Interpreter()
    it.run_script(NO_WRITE, seed=3)
    assert it._rt.render_cache
    play(it, ["noop", "noop", "noop"])            # the dot's cells are kept by now
    it.evaluate("= (.. dot n) 7")
    assert not it._rt.render_cache
    assert '"red"' in it.render_all()


@pytest.mark.parametrize("body,kept", [
    ("(on left (= bar (rotate bar)))", False),
    ("(on left (= bar (rotateNoCollision bar)))", False),
    ("(on left (= turn rotate))", False),
    ("(on left (= bar (moveLeft bar)))", True),
])
def test_programs_that_rotate_cells_render_afresh(body, kept):
    program = f"""(program (= GRID_SIZE 6) (= turn 0)
      (object Bar (list (Cell 0 0 "red") (Cell 1 0 "blue")))
      (= bar (initnext (Bar (Position 2 2)) (prev bar))) {body})"""
    it = Interpreter()
    it.run_script(program, seed=3)
    assert it._rt.render_cache is kept


# A seer whose colour reads its own origin (its field `x` only makes its cells ones that read
# nothing but its fields, so they are kept), beside a dot whose colour reads only its field `n`:
# each moves by a native mover, by `move`, and by updateObj of "origin"; a list of dots is
# copied by addObj every tick; a walker's other Position changes. Only the dot may reuse its
# cells moved (MovableCells).
MOVERS = """(program
  (= GRID_SIZE 8)
  (object Seer (: x Number) (Cell 0 0 (if (> (.. origin x) 3) then "red" else "blue")))
  (object Dot (: n Number) (Cell 0 0 (if (> n 2) then "green" else "gray")))
  (= seer (initnext (Seer 0 (Position 1 1)) (prev seer)))
  (= dot (initnext (Dot 0 (Position 1 3)) (prev dot)))
  (= dots (initnext (list (Dot 0 (Position 0 5))) (addObj (prev dots) (list))))
  (object Walker (: aim Position) (Cell 0 0 "white"))
  (= walker (initnext (Walker (Position 0 0) (Position 6 6)) (prev walker)))
  (on up (= walker (updateObj walker "aim" (Position 7 2))))
  (on right (= seer (moveRight seer)))
  (on right (= dot (moveRight dot)))
  (on left (= seer (move seer (Position -1 0))))
  (on left (= dot (move dot (Position -1 0))))
  (on down (= seer (updateObj seer "origin" (Position (+ (.. (.. seer origin) x) 2) 1))))
  (on down (= dot (updateObj dot "origin" (Position (+ (.. (.. dot origin) x) 2) 3))))
  (on up (= dot (updateObj dot "n" (+ (.. dot n) 1))))
  (on clicked (= dot (updateObj dot "n" (.. dot n)))))"""

ACTIONS = ["noop", "noop", "right", "right", "right", "left", "left", "up", "up", "up",
           "down", "left", "noop", "right", "click 1 1", "up", "click 1 1"]


def test_moved_objects_render_as_fresh_ones():
    kept = _frames(MOVERS, True, ACTIONS)
    assert kept == _frames(MOVERS, False, ACTIONS)
    assert '"red"' in kept[5] and '"blue"' in kept[7]       # the seer's colour follows its x
    assert '"red"' in kept[11] and '"blue"' in kept[12]     # (updateObj, then move)
    assert '"green"' not in kept[9] and '"green"' in kept[10]   # the dot's follows n
    assert all('"white"}], "GRID_SIZE"' in f and '{"x": 6, "y": 6}, "color": "white"' in f
               for f in kept)                              # the walker never moves


def test_a_moved_copy_keeps_its_cells_moved_only_when_no_cell_reads_the_origin():
    it = Interpreter()
    it.run_script(MOVERS, seed=3)
    play(it, ["noop", "noop"])            # rendered twice: the cells of both are kept
    g = it._rt.G.vars
    assert g["dot"].rendered.__class__ is MovableCells and g["dot"].rendered == ((1, 3, "gray"),)
    assert g["seer"].rendered.__class__ is tuple and g["seer"].rendered == ((1, 1, "blue"),)
    for action, x in (("right", 2), ("left", 1), ("down", 3)):
        dot = g["dot"]
        play(it, [action])
        assert g["dot"] is not dot and g["dot"].rendered == ((x, 3, "gray"),)
        assert g["dot"].rendered.__class__ is MovableCells
        assert g["seer"].rendered.__class__ is not tuple    # rendered once, afresh
    play(it, ["up"])                       # a field a cell reads: rendered afresh
    assert g["dot"].rendered.__class__ not in (tuple, MovableCells)


def test_a_copy_whose_field_keeps_its_value_keeps_the_render():
    it = Interpreter()
    it.run_script(MOVERS, seed=3)
    play(it, ["noop", "noop"])
    dot = it._rt.G.vars["dot"]
    play(it, ["click 0 0"])                 # updateObj dot "n" with the value it has
    assert it._rt.G.vars["dot"] is not dot
    assert it._rt.G.vars["dot"].rendered is dot.rendered == ((1, 3, "gray"),)


def test_copies_keep_what_is_known_of_the_render():
    it = Interpreter()
    it.run_script(MOVERS, seed=3)
    play(it, ["noop", "noop"])
    before = it._rt.G.vars["dots"][0]
    play(it, ["noop"])
    after = it._rt.G.vars["dots"][0]       # addObj's copy, with the same fields
    assert after is not before and after.ident != before.ident
    assert after.rendered is before.rendered and after.rendered == ((0, 5, "gray"),)


# The natives that test a moved copy on the cells it would render (no copy made): a bar of two
# cells that moves into its own cell and against the grid's edge, and drops that flow toward the
# holes of a shelf that a click fills.
NATIVE_MOVES = """(program
  (= GRID_SIZE 6)
  (object Bar (list (Cell 0 0 "red") (Cell 1 0 "red")))
  (object Drop (Cell 0 0 "blue"))
  (object Rock (Cell 0 0 "gray"))
  (= bar (initnext (Bar (Position 3 4)) (prev bar)))
  (= rocks (initnext (map (--> x (Rock (Position x 3))) (list 0 1 3 5)) (prev rocks)))
  (= drops (initnext (list (Drop (Position 0 0)) (Drop (Position 5 0)) (Drop (Position 4 1)))
                     (map nextLiquid (prev drops))))
  (on left (= bar (moveLeftNoCollision bar)))
  (on down (= bar (moveDownNoCollision bar)))
  (on up (= bar (moveNoCollision bar 1 -1)))
  (on clicked (= rocks (addObj (prev rocks) (Rock click)))))"""

NATIVE_ACTIONS = ["noop", "click 2 3", "left", "left", "down", "down", "noop", "up", "left",
                  "noop", "up", "noop", "noop"]


def test_moves_tested_on_moved_cells_are_the_moves_of_rendered_copies():
    kept = _frames(NATIVE_MOVES, True, NATIVE_ACTIONS)
    assert kept == _frames(NATIVE_MOVES, False, NATIVE_ACTIONS)
    frames = [json.loads(f) for f in kept]
    bar = [(f["bar"][0]["position"]["x"], f["bar"][0]["position"]["y"]) for f in frames]
    # left into its own cell (3), down to the last row and held by the edge (6), up-right
    # when free (8), held by the clicked rock (11)
    assert bar == [(3, 4), (3, 4), (3, 4), (2, 4), (1, 4), (1, 5), (1, 5), (1, 5), (2, 4),
                   (1, 4), (1, 4), (1, 4), (1, 4), (1, 4)]
    drops = [{(c["position"]["x"], c["position"]["y"]) for c in f["drops"]} for f in frames]
    assert not any((2, y) in d for d in drops for y in range(3, 6))   # the hole was filled
    assert (4, 5) in drops[-1] and (5, 5) in drops[-1]                # through the other one


# nextLiquidMoveClosestHole called on its own, on a two-cell object, toward holes above,
# below and beside it (a diagonal direction moves along x only), against a rock and against
# the grid's edge (its origin would be on the grid, its other cell not).
HOLE_MOVES = """(program
  (= GRID_SIZE 6)
  (object Slab (list (Cell 0 0 "red") (Cell 0 1 "red")))
  (object Rock (Cell 0 0 "gray"))
  (= rock (Rock (Position 2 0)))
  (= slab (initnext (Slab (Position 2 2)) (prev slab)))
  (on left (= slab (nextLiquidMoveClosestHole slab (Position 0 5))))
  (on right (= slab (nextLiquidMoveClosestHole slab (Position 5 2))))
  (on up (= slab (nextLiquidMoveClosestHole slab (Position (.. (.. slab origin) x) 0))))
  (on down (= slab (nextLiquidMoveClosestHole slab (Position (.. (.. slab origin) x) 6)))))"""

HOLE_ACTIONS = ["noop", "noop", "right", "right", "right", "up", "up", "up", "left", "left",
                "left", "down", "down", "down", "up", "up", "up"]


def test_moves_toward_a_hole_are_the_moves_of_rendered_copies():
    kept = _frames(HOLE_MOVES, True, HOLE_ACTIONS)
    assert kept == _frames(HOLE_MOVES, False, HOLE_ACTIONS)
    slab = [(json.loads(f)["slab"][0]["position"]["x"], json.loads(f)["slab"][0]["position"]["y"])
            for f in kept]
    # right to the hole's column; up to the first row and held there by the edge; left along
    # x only (the hole is below and left) up to the rock; down never (its origin would be on
    # its own lower cell, which isFreePos does not except)
    assert slab == [(2, 2), (2, 2), (2, 2), (3, 2), (4, 2), (5, 2), (5, 1), (5, 0), (5, 0),
                    (4, 0), (3, 0), (3, 0), (3, 0), (3, 0), (3, 0), (3, 0), (3, 0), (3, 0)]


def _work(text: str, cache: bool, actions: list[str]) -> list[int]:
    """The work left of each tick's budget after it (the natives count what they stand for)."""
    it = Interpreter()
    it.run_script(text, seed=9)
    it._rt.render_cache = cache
    out = []
    for action in actions:
        apply_action(it, parse_action(action))
        it.step()
        out.append(it._rt.work_left)    # (a render starts a budget of its own)
        it.render_all()
    return out


@pytest.mark.parametrize("name", ["liquid", "sand", "native_moves", "hole_moves"])
def test_moves_tested_on_moved_cells_count_the_same_work(name):
    text = {"native_moves": NATIVE_MOVES, "hole_moves": HOLE_MOVES}.get(name) or \
        (ROOT / "benchmarks" / "programs" / f"{name}.sexp").read_text()
    actions = random_actions(random.Random(name), 40, 16)
    assert _work(text, True, actions) == _work(text, False, actions)


# -- the same list renders its kept cells again (Runtime.list_cells) ---------------------------
KEPT_LIST = """(program
  (= GRID_SIZE 8)
  (object Wall (Cell 0 0 "gray"))
  (object Lamp (Cell 0 0 (if lit then "yellow" else "black")))
  (object Dot (: n Number) (Cell 0 0 (if (> n 2) then "red" else "blue")))
  (= lit (initnext false (prev lit)))
  (= walls (initnext (map (--> i (Wall (Position i 0))) (range 0 8)) (prev walls)))
  (= lamps (initnext (list (Lamp (Position 2 2)) (Lamp (Position 3 3))) (prev lamps)))
  (= dots (initnext (list (Dot 0 (Position 5 5)) (Dot 1 (Position 6 6))) (prev dots)))
  (on clicked (= lit (! lit)))
  (on left (= walls (filter (--> w (> (.. (.. w origin) x) 0)) walls))))"""


def _rendered(it: Interpreter) -> tuple[list, int]:
    """The frame's cells and the work the host render counted."""
    rt = it._rt
    rt.start_budget("render")
    cells, _ = rt.host_render_cells()
    return list(cells), rt.work_left


def test_the_same_list_renders_its_kept_cells_with_the_same_work():
    it = Interpreter()
    it.run_script(KEPT_LIST, seed=3)
    rt = it._rt
    for _ in range(3):
        it.step()
        it.render_frame()
    walls = rt.G.vars["walls"]
    assert rt.list_cells["walls"][0] is walls and rt.list_cells["walls"][1] is not None
    kept = _rendered(it)
    rt.list_cells.clear()       # rendered again from each object
    assert _rendered(it) == kept
    rt.list_cells.clear()
    rt.render_cache = False     # every cell evaluated afresh
    assert _rendered(it) == kept


def _frames_of(text: str, actions: list[str]) -> list:
    """The frame after loading ``text`` and after each action."""
    it = Interpreter()
    it.run_script(text, seed=3)
    frames = [it.render_frame()]
    for action in actions:
        apply_action(it, parse_action(action))
        it.step()
        frames.append(it.render_frame())
    return frames


def test_a_list_whose_cells_read_a_global_is_rendered_each_time():
    """The lamps' list stays the same object, but their colour reads ``lit``: a click must
    show, however many times the list was rendered before."""
    frames = _frames_of(KEPT_LIST, ["noop", "noop", "noop", "click 0 7", "noop"])
    assert [f.grid[2][2] for f in frames] == ["black"] * 4 + ["yellow"] * 2
    it = Interpreter()
    it.run_script(KEPT_LIST, seed=3)
    for _ in range(3):                  # the same lamps, rendered again: never kept
        it.render_frame()
    assert it._rt.list_cells["lamps"][1] is None


def test_an_evaluated_field_assignment_shows_in_a_kept_list():
    it = Interpreter()
    it.run_script(KEPT_LIST, seed=3)
    for _ in range(3):
        it.step()
        it.render_frame()
    assert it._rt.list_cells["dots"][1] is not None
    it.evaluate("= (.. (head dots) n) 7")
    assert it.render_frame().grid[5][5] == "red"


def test_another_list_under_the_same_name_is_rendered():
    frames = _frames_of(KEPT_LIST, ["noop", "noop", "noop", "left", "noop"])
    assert [f.grid[0][0] for f in frames] == ["gray"] * 4 + ["black"] * 2
    assert [f.grid[0][1] for f in frames] == ["gray"] * 6


# -- a frame with the cells of the last one is that frame (Interpreter._render_frame) -------
DIMMING = """(program
  (= GRID_SIZE 6)
  (object Dot (Cell 0 0 "red"))
  (= dot (initnext (Dot (Position 1 1)) (prev dot)))
  (= background (initnext "black" (prev background)))
  (on clicked (= background "white"))
  (on right (= dot (moveRight dot))))"""


def test_the_same_cells_on_another_background_make_another_frame():
    frames = _frames_of(DIMMING, ["noop", "noop", "click 4 4", "noop", "right"])
    assert frames[1] is frames[0] and frames[2] is frames[0]     # nothing changed: kept
    assert [f.grid[0][0] for f in frames] == ["black"] * 3 + ["white"] * 3
    assert frames[4] is frames[3] and frames[5].grid[1][2] == "red"
