"""Objects keep their rendered cells when nothing can change them in place; the frames must be
exactly those of rendering every object afresh."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from tiers import tier
from tracing import play, random_actions

from llm_eval.autumn import Interpreter
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
