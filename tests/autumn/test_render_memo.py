"""The render memo (``Runtime.render_memo``): a cell whose parts only read its object's fields is
evaluated once per combination of the values it reads. Frames must be exactly those of
evaluating every cell afresh (the memo turned off), on programs built to make a wrong key
show: values that Python takes as equal but Autumn does not (``0`` and ``false``), rotated
cells (new compiled parts, same object), deferred coordinates, and random programs."""

from __future__ import annotations

import random

import pytest
from tracing import play, random_actions

from llm_eval.autumn import Interpreter
from llm_eval.errors import AutumnError


def _frames(text: str, memo: bool, actions: list[str], seed: int = 5) -> list:
    it = Interpreter()
    try:
        it.run_script(text, seed=seed)
        if not memo:
            it._rt.render_memo = None
        frames = [it.render_all()]
        for action in actions:
            frames.extend(play(it, [action]))
    except AutumnError as e:
        return [type(e).__name__, str(e)]
    if memo:
        assert it._rt.render_memo, "the memo was never used: the test would prove nothing"
    return frames


# Python has 0 == False (and equal hashes); Autumn's 0 is truthy and false is not, and
# updateObj lets a Bool field take a Number, so the two objects must render differently
ZERO_AND_FALSE = """(program
  (= GRID_SIZE 4)
  (object Dot (: v Bool) (Cell 0 0 (if v then "red" else "blue")))
  (= a (Dot false (Position 0 0)))
  (= b (initnext (updateObj a "v" 0) (updateObj (prev b) "origin" (Position 1 1))))
  (= c (initnext (Dot true (Position 2 0)) (updateObj (prev c) "v" 1))))"""


def test_zero_and_false_render_apart():
    frames = _frames(ZERO_AND_FALSE, True, ["noop", "noop"])
    assert frames == _frames(ZERO_AND_FALSE, False, ["noop", "noop"])
    assert '"a": [{"position": {"x": 0, "y": 0}, "color": "blue"}]' in frames[0]
    assert '"b": [{"position": {"x": 1, "y": 1}, "color": "red"}]' in frames[-1]


# rotate turns the shared cells in place: their compiled parts change, the fields do not
ROTATING = """(program
  (= GRID_SIZE 8)
  (object Bar (: k Number)
    (list (Cell 0 0 (if (> k 1) then "red" else "blue")) (Cell k 0 "green") (Cell 0 (+ k 1) "gray")))
  (= bar (initnext (Bar 1 (Position 4 4)) (prev bar)))
  (= twin (initnext (Bar 1 (Position 1 1)) (prev twin)))
  (on left (= bar (rotate bar)))
  (on right (= bar (updateObj bar "k" (- 3 (.. bar k))))))"""


def test_rotated_cells_are_not_served_from_the_memo():
    actions = ["noop", "left", "noop", "right", "left", "left", "right", "noop", "left"]
    frames = _frames(ROTATING, True, actions)
    assert frames == _frames(ROTATING, False, actions)
    assert len(set(frames)) > 3          # the bar really turned and changed colour


_PARTS = {
    "x": ["0", "1", "n", "(% n 3)", "(if b then 1 else 0)", "(- n 1)"],
    "y": ["0", "n", "(/ n 2)", "(if (== s \"a\") then 1 else 0)", "(+ n n)"],
    "colour": ["\"red\"", "s", "(if b then \"red\" else \"blue\")",
               "(if (> n 1) then s else \"gray\")", "(if (& b (== n 2)) then \"green\" else s)",
               "(if (== b n) then \"red\" else \"gold\")"],
}


def _random_program(rng: random.Random) -> str:
    cells = []
    for _ in range(rng.randint(1, 3)):
        cells.append(f"(Cell {rng.choice(_PARTS['x'])} {rng.choice(_PARTS['y'])} "
                     f"{rng.choice(_PARTS['colour'])})")
    cell = cells[0] if len(cells) == 1 else f"(list {' '.join(cells)})"
    # b is sometimes a Number: updateObj lets it, and 0/1 must not pass for false/true
    bvalue = rng.choice(["(uniformChoice (list true false))", "(uniformChoice (list 0 1 true false))"])
    return f"""(program
  (= GRID_SIZE 8)
  (object Thing (: n Number) (: b Bool) (: s String) {cell})
  (= start (map (--> i (Thing (% i 3) (== i 2) "a" (Position (* 2 i) i))) (range 0 4)))
  (= things (initnext start
    (map (--> t (updateObj (updateObj (updateObj t "n" (uniformChoice (list 0 1 2 3)))
                                        "b" {bvalue})
                           "s" (uniformChoice (list "a" "blue" "red"))))
         (prev things))))
  (on left (= things (map (--> t (moveLeft t)) things)))
  (on right (= things (map (--> t (moveRight t)) things))))"""


@pytest.mark.parametrize("seed", range(12))
def test_random_programs_render_as_without_the_memo(seed):
    rng = random.Random(seed)
    text = _random_program(rng)
    actions = random_actions(rng, 15)
    on = _frames(text, True, actions, seed=seed + 1)
    assert on == _frames(text, False, actions, seed=seed + 1)
    assert len(on) == len(actions) + 1, on   # the program ran: no error on either side
