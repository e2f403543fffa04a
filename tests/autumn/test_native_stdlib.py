"""The native stdlib functions must be indistinguishable from their Autumn definitions."""

import random
from pathlib import Path

import pytest
import yaml
from tracing import random_actions, trace

from llm_eval.autumn import Interpreter
from llm_eval.autumn.native_stdlib import NATIVE_STDLIB

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
PROGRAMS = sorted((ROOT / "benchmarks" / "programs").glob("*.sexp"))
CASES = yaml.safe_load((HERE / "conformance" / "cases.yaml").read_text())

# Programs that exercise the clobbering and render-count rules of the native functions.
EDGE_PROGRAMS = {
    "delta_clobbered": """(program
  (= GRID_SIZE 6)
  (object Mk (: c String) (Cell 0 0 c))
  (= delta (initnext (Position 1 1) (prev delta)))
  (= probe (initnext (Mk "red" (Position 0 0)) (updateObj (prev probe) "origin" delta)))
  (on left (= unused (sqdist (Position 0 0) (Position 3 2))))
  (on right (= unused (sqdist (Position 5 5) (Position 1 2)))))""",
    "prev_elems_clobbered": """(program
  (= GRID_SIZE 6)
  (object Mk (: c String) (Cell 0 0 c))
  (object Wall (Cell 0 0 "gray"))
  (= prev_elems (initnext (list) (prev prev_elems)))
  (= wall (Wall (Position 3 0)))
  (= ball (initnext (Mk "red" (Position 0 0)) (moveNoCollision (prev ball) 1 0)))
  (= shadow (initnext (list) (map (--> e (Mk "blue" (.. e position))) prev_elems))))""",
    "random_cells_rendered": """(program
  (= GRID_SIZE 6)
  (object Spark (Cell 0 0 (uniformChoice (list "red" "green" "blue" "white"))))
  (object Rock (Cell 0 0 "gray"))
  (= rocks (list (Rock (Position 2 5)) (Rock (Position 4 3))))
  (= sparks (initnext (list (Spark (Position 2 0)) (Spark (Position 4 0)))
                      (updateObj (prev sparks) nextSolid)))
  (on clicked (= sparks (addObj sparks (Spark click)))))""",
    "liquid_names_seen": """(program
  (= GRID_SIZE 6)
  (object Drop (Cell 0 0 "blue"))
  (object Rock (Cell 0 0 "gray"))
  (object Mark (Cell 0 0 "red"))
  (= rocks (list (Rock (Position 0 4)) (Rock (Position 1 4)) (Rock (Position 3 4))))
  (= nextRowPos (initnext (list) (prev nextRowPos)))
  (= delta (initnext (Position 0 0) (prev delta)))
  (= drops (initnext (list (Drop (Position 0 2)) (Drop (Position 1 0)))
                     (updateObj (prev drops) nextLiquid)))
  (= mark (initnext (Mark (Position 5 0))
                    (Mark (Position 5 (% (+ (length nextRowPos) (.. delta x)) 6))))))""",
    "param_shadowing": """(program
  (= GRID_SIZE 6)
  (= obj 3)
  (object Probe (Cell 0 0 (if (isList obj) then "red" else "green")))
  (object Block (Cell 0 0 "gray"))
  (= block (Block (Position 3 3)))
  (= p (initnext (Probe (Position 0 3)) (moveNoCollision (prev p) 1 0)))
  (= q (initnext (Probe (Position 0 5)) (if (isFree (prev q)) then (moveRight (prev q)) else (prev q)))))""",
}


def _programs():
    for path in PROGRAMS:
        yield path.stem, path.read_text()
    for case in CASES:
        yield case["id"], case["program"]
    yield from EDGE_PROGRAMS.items()


def _run(text: str, native: bool, actions: list[str], seed: int):
    return trace(text, actions, seed, native_stdlib=native)


@pytest.mark.parametrize("name,text", list(_programs()), ids=[n for n, _ in _programs()])
def test_native_stdlib_matches_autumn_definitions(name, text):
    actions = random_actions(random.Random(name), 60)
    native = _run(text, True, actions, seed=5)
    autumn = _run(text, False, actions, seed=5)
    assert native == autumn


def test_every_native_replaces_a_stdlib_definition():
    it = Interpreter(native_stdlib=False)
    it.run_script("(program (= GRID_SIZE 3))", seed=1)
    for name in NATIVE_STDLIB:
        assert it.evaluate_to_string(f'defined "{name}"') == "(true: Bool)", name


@pytest.mark.parametrize("program,reads", [
    ("(program (object A (: c String) (Cell 0 0 c)) (= a (A \"red\" (Position 0 0))))", False),
    ("(program (object A (list (Cell 0 0 \"red\") (Cell 1 0 \"blue\"))))", False),
    ("(program (= hue \"red\") (object A (Cell 0 0 hue)))", True),          # a global
    ("(program (object A (: k Number) (Cell 0 0 (f k))))", True),          # a call
    ("(program (object A (Cell 0 0 e)))", True),                           # the cell itself
    ("(program (object A (: c String) (Cell 0 0 c)) (= x (Cell 0 0 \"red\")))", True),
    ("(program (object A (: c String) (Cell 0 0 c)) (= f (--> o (.. o elems))))", True),
    ("(program (object A (map (--> i (Cell i 0 \"red\")) (range 0 2))))", True),
])
def test_which_programs_let_natives_skip_their_scopes(program, reads):
    """Natives build their call scopes only where a render could look into them."""
    from llm_eval.autumn.interpreter import _parsed, _renders_read_scopes
    assert _renders_read_scopes(_parsed(program, None)) is reads
