"""Saved states: restoring one gives exactly the future the program had from it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from tiers import per_world
from tracing import play, random_actions

from llm_eval.autumn import Interpreter
from llm_eval.worlds import make_world, world_names

ROOT = Path(__file__).parent.parent.parent
BENCHMARKS = sorted((ROOT / "benchmarks" / "programs").glob("*.sexp"))
ROTATING = """(program
  (= GRID_SIZE 6)
  (object Bar (list (Cell 0 0 "red") (Cell 1 0 "blue")))
  (object Dot (: n Number) (Cell 0 0 (if (> n 2) then "green" else "white")))
  (= bar (initnext (Bar (Position 2 2)) (prev bar)))
  (= dot (initnext (Dot 0 (Position 0 5)) (prev dot)))
  (on left (= bar (rotate bar)))
  (on right (= (.. dot n) (+ (.. dot n) 1)))
  (on up (= dot (Dot (uniformChoice (list 1 2 3 4)) (Position (uniformChoice (range 0 6)) 5)))))"""


PROGRAMS = [(p.stem, p.read_text()) for p in BENCHMARKS] + [("rotating", ROTATING)]


@pytest.mark.parametrize("name,text", PROGRAMS, ids=[n for n, _ in PROGRAMS])
def test_restore_replays_the_same_future(name, text):
    rng = random.Random(name)
    it = Interpreter()
    it.run_script(text, seed=11)
    play(it, random_actions(rng, 15, 8))
    saved = it.snapshot()
    key = it.state_key()
    future = random_actions(rng, 25, 8)
    first = play(it, future)
    it.restore(saved)
    assert it.state_key() == key
    second = play(it, future)
    it.restore(saved)                      # a saved state can be restored again
    third = play(it, future)
    assert first == second == third


def test_in_place_mutations_do_not_leak_into_a_saved_state():
    it = Interpreter()
    it.run_script(ROTATING, seed=3)
    it.render_all()
    saved = it.snapshot()
    before = it.render_all()
    play(it, ["left", "right", "right", "right", "left"])   # rotate and field writes
    assert it.render_all() != before
    it.restore(saved)
    assert it.render_all() == before


def test_state_keys_tell_states_apart_and_match_equal_ones():
    it = Interpreter()
    it.run_script(ROTATING, seed=3)
    k0 = it.state_key()
    play(it, ["right"])
    assert it.state_key() != k0
    other = Interpreter()
    other.run_script(ROTATING, seed=3)
    play(other, ["right"])
    assert other.state_key() == it.state_key()
    hash(it.state_key())


# nothing changes in place, so a restore shares the saved values (the keys' cached path)
SHARING = """(program
  (= GRID_SIZE 6)
  (object Dot (: n Number) (Cell 0 0 "red"))
  (= count (initnext 0 (prev count)))
  (= dots (initnext (list (Dot 0 (Position 1 1)) (Dot 0 (Position 3 3))) (prev dots)))
  (on left (= count (+ count 1)))
  (on right (= dots (map (--> d (if (== (.. (.. d origin) x) 3)
                                 then (updateObj d "n" (+ (.. d n) 1)) else d)) dots))))"""


@pytest.mark.parametrize("action", ["left", "right"], ids=["a number", "an object's field"])
def test_state_keys_tell_apart_states_that_share_a_saved_states_values(action):
    it = Interpreter()
    it.run_script(SHARING, seed=3)
    saved = it.snapshot()
    keys = []
    for times in (1, 2, 1):
        it.restore(saved)
        assert it._shared is saved       # the running state shares the saved values
        play(it, [action] * times)
        keys.append(it.state_key())
    assert keys[0] != keys[1] and keys[0] == keys[2]


def test_a_state_belongs_to_its_interpreter():
    a, b = Interpreter(), Interpreter()
    a.run_script(ROTATING, seed=3)
    b.run_script(ROTATING, seed=3)
    with pytest.raises(ValueError):
        b.restore(a.snapshot())


@pytest.mark.parametrize("name", per_world(world_names()))
def test_world_restore_after_reset(name):
    world = make_world(name, seed=5)
    world.reset()
    rng = random.Random(name)
    size = world.size
    for a in random_actions(rng, 10, size):
        world.step(a)
    saved = world.snapshot()
    future = random_actions(rng, 20, size)
    first = [world.step(a)[0] for a in future]
    world.reset()
    assert world.restore(saved) == saved.frame
    assert world.steps == 10
    second = [world.step(a)[0] for a in future]
    assert first == second


# -- keys leave out the functions bound for good (Runtime.fixed) ---------------------------
FUNCTIONS = """(program
  (= GRID_SIZE 6)
  (= double (--> n (* n 2)))
  (= step (initnext (--> n (+ n 1)) (prev step)))
  (= n (initnext 0 (prev n)))
  (on left (= step double))
  (on right (removeObj double))
  (on up (= n (step n)))
  (on clicked (= n (+ n 0))))"""


def _key_after(actions: list[str]) -> tuple:
    it = Interpreter()
    it.run_script(FUNCTIONS, seed=3)
    play(it, actions)
    return it.state_key()


def test_keys_leave_out_only_the_functions_bound_for_good():
    it = Interpreter()
    it.run_script(FUNCTIONS, seed=3)
    it.render_all()
    rt = it._rt
    assert "double" in rt.fixed and "step" not in rt.fixed and "n" not in rt.fixed
    assert {name for name, _ in it.state_key()[2]}.isdisjoint(rt.fixed)


def test_keys_tell_apart_a_rebound_function_and_a_removed_one():
    plain = _key_after(["noop"])
    assert _key_after(["noop", "noop"]) == plain
    assert _key_after(["left"]) != plain            # step now holds double (redefinable)
    assert _key_after(["right"]) != plain           # double is gone: the table is smaller
    assert _key_after(["click 1 1"]) == plain       # the click and the cache are the host's
