"""The occupancy set (the cells of the last host render, for isFreePos and the natives that
test cells) is kept only when the program can reach a function that reads it: the load looks
for the names of those functions (``interpreter._occupancy_names``), an evaluated text that
names one turns it on for good, and saved states keep the render's cells to rebuild it. A
program that never reads it must play exactly as it does with the set kept at every render."""

from __future__ import annotations

import random
import types

import pytest
from tiers import tier
from tracing import play, random_actions

from llm_eval.autumn import Interpreter
from llm_eval.autumn.values import Builtin
from llm_eval.worlds import world_names, world_spec

DOTS = """(program
  (= GRID_SIZE 5)
  (object Dot (Cell 0 0 "red"))
  (= dots (initnext (list (Dot (Position 1 1)) (Dot (Position 3 3)))
                    (prev dots)))
  (on clicked (= dots (addObj dots (Dot click)))))"""


def _reads(fn, seen=None) -> bool:
    """Whether ``fn`` or a function it closes over reads an attribute named ``occupied``."""
    seen = set() if seen is None else seen
    if id(fn) in seen or not isinstance(fn, types.FunctionType):
        return False
    seen.add(id(fn))
    if "occupied" in fn.__code__.co_names:
        return True
    return any(_reads(cell.cell_contents, seen) for cell in fn.__closure__ or ()
               if isinstance(getattr(cell, "cell_contents", None), types.FunctionType))


def test_every_builtin_that_reads_the_set_is_named():
    it = Interpreter()
    it.run_script(DOTS, seed=1)
    rt = it._rt
    readers = {name for name, v in rt.G.vars.items()
               if v.__class__ is Builtin and _reads(v.fn)}
    assert {"isFreePos", "isFree", "moveLeftNoCollision", "nextLiquid"} <= readers
    assert readers <= rt.occupancy_names
    assert not rt.occupancy_read and rt.occupied is None


def test_an_evaluated_text_that_names_one_turns_the_set_on():
    it = Interpreter()
    it.run_script(DOTS, seed=1)
    play(it, ["click 2 2"])
    assert it.evaluate("isFreePos (Position 2 2)") is False
    assert it.evaluate("isFreePos (Position 0 4)") is True
    assert it._rt.occupied == {(1, 1), (3, 3), (2, 2)}


def test_a_state_saved_before_the_set_was_on_restores_it():
    it = Interpreter()
    it.run_script(DOTS, seed=1)
    play(it, ["click 4 0"])
    saved = it.snapshot()
    play(it, ["click 0 4"])
    it.evaluate("isFreePos (Position 0 0)")
    it.restore(saved)
    assert it._rt.occupied == {(1, 1), (3, 3), (4, 0)}
    assert it.evaluate("isFreePos (Position 0 4)") is True


@pytest.mark.parametrize("name", [pytest.param(n, id=n, marks=tier(n)) for n in world_names()])
def test_worlds_play_the_same_with_the_set_always_kept(name):
    spec = world_spec(name)
    actions = random_actions(random.Random(name), 30, spec.size)
    frames = []
    for keep in (False, True):
        it = Interpreter()
        it.run_script(spec.program_text(), seed=2)
        if keep:
            it._rt.read_occupancy()
        frames.append(play(it, actions))
    assert frames[0] == frames[1]
