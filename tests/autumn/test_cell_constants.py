"""Names a Cell form mentions are copied into the cell's snapshot, so a lookup of such a name
must find the copy, not the global, wherever a snapshot is on the scope chain (a render of a
cell whose parts wait for the object's fields). Lookups of the names whose global value can
never change (builtins such as ``at``, stdlib functions, plain top-level definitions) read the
global table instead, which makes calls such as ``(at colours k)`` inline in the fused tier
(``interpreter._cell_constants``). These tests hold the line between the two kinds: a name the
program can rebind keeps the snapshot's value, and reading the fixed ones from the global table
plays the same frames as walking the scopes for them."""

from __future__ import annotations

import random

import pytest
from tracing import random_actions, trace

from llm_eval.actions import apply_action, parse_action
from llm_eval.autumn import Interpreter
from llm_eval.autumn import interpreter as interpreter_module
from llm_eval.worlds.registry import world_spec

# The colours of dots and spots wait for their field `k`, so each render computes them along
# the chain that starts at the snapshot taken when the object was made. `early` is made at
# load; `things` on the first `up`, in a tick (when tint is still "red").
PROGRAM = """(program
  (= GRID_SIZE 4)
  (= colours (list "red" "blue"))
  (= tint (initnext "red" "blue"))
  (object Dot (: k Int) (Cell 0 0 (at colours k)))
  (object Spot (: k Int) (Cell 0 0 (if (== k 0) then tint else "gray")))
  (= early (Dot 0 (Position 2 0)))
  (= things (initnext (list) (prev things)))
  (on up (= things (list (Dot 0 (Position 0 0)) (Spot 0 (Position 1 0)))))
  {extra})"""
GREEN = '(list "green" "green")'


def _colour(it: Interpreter, x: int) -> str:
    """The colour drawn at (x, 0)."""
    return it.render_frame().to_rows()[0][x]


def _run(extra: str, actions: list[str], trigger: str = "") -> Interpreter:
    it = Interpreter()
    it.run_script(PROGRAM.replace("{extra}", extra), seed=1, trigger=trigger)
    for a in actions:
        apply_action(it, parse_action(a))
        it.step()
    return it


def test_fixed_names_are_read_from_the_global_table_and_others_walk_the_scopes():
    it = _run("", [])
    compiler = it._rt.compiler
    assert {"at", "colours"} <= compiler.cell_constants
    assert "at" not in compiler.local_names and "colours" not in compiler.local_names
    # a state variable changes every tick: the snapshots' copies are older than the global
    assert "tint" not in compiler.cell_constants and "tint" in compiler.local_names


def test_a_state_variable_a_cell_copied_keeps_the_copys_value():
    it = _run("", ["up", "noop"])
    assert it.evaluate("tint") == "blue"
    assert _colour(it, 1) == "red"


@pytest.mark.parametrize("extra, actions", [
    (f"(on left (= colours {GREEN}))", ["up", "left"]),   # rebound by an on-clause
    (f"(= colours {GREEN})", ["up"]),                     # defined again after `early`
])
def test_a_name_the_program_rebinds_keeps_the_snapshots_value(extra, actions):
    it = _run(extra, actions)
    assert "colours" not in it._rt.compiler.cell_constants
    assert "green" in it.evaluate_to_string("colours")
    assert _colour(it, 2) == "red"
    assert _colour(it, 0) == ("red" if "on left" in extra else "green")


def test_a_global_the_host_sets_keeps_the_snapshots_value():
    # `click` is set by the host at each click, never by a definition of the program's
    text = """(program (= GRID_SIZE 4)
      (object Mark (: k Int) (Cell 0 0 (if (== (.. click x) k) then "red" else "blue")))
      (= marks (initnext (list) (prev marks)))
      (on (& clicked (== (length marks) 0)) (= marks (list (Mark 1 (Position 3 0))))))"""
    it = Interpreter()
    it.run_script(text, seed=1)
    for action in ("click 1 0", "click 2 0"):
        apply_action(it, parse_action(action))
        it.step()
    assert "click" not in it._rt.compiler.cell_constants
    assert it.evaluate_to_string(".. click x") == "(2: N)" and _colour(it, 3) == "red"


def test_a_trigger_that_assigns_a_fixed_name_makes_it_local():
    # the trigger runs before every tick's handlers: `things` is made after it, `early` before
    it = _run("", ["up"], trigger=f"= colours {GREEN}")
    assert "colours" in it._rt.compiler.local_names
    assert _colour(it, 0) == "green" and _colour(it, 2) == "red"


def test_an_evaluated_assignment_of_a_fixed_name_makes_the_snapshot_win_again():
    it = _run("", ["up"])
    assert _colour(it, 0) == "red" and _colour(it, 2) == "red"
    it.evaluate(f"= colours {GREEN}")
    assert "colours" in it._rt.compiler.local_names
    it.step()
    assert "green" in it.evaluate_to_string("colours")
    assert _colour(it, 0) == "red" and _colour(it, 2) == "red"


# the shipped worlds whose cells mention a builtin or a top-level definition
WORLDS = ("conveyor", "elevator", "relay", "rover", "seeds")


@pytest.mark.parametrize("world", WORLDS)
def test_reading_fixed_names_globally_plays_the_frames_of_walking_the_scopes(world, monkeypatch):
    spec = world_spec(world)
    text = spec.program_text()
    actions = random_actions(random.Random(world), 150, spec.size)
    fast = trace(text, actions, 5)
    monkeypatch.setattr(interpreter_module, "_cell_constants",
                        lambda std, program: frozenset())
    walked = trace(text, actions, 5)
    assert fast == walked
    assert fast[1] is None and len(fast[0]) == len(actions) + 1
