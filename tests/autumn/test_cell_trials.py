"""A Cell form tries each of its parts alone, in its snapshot (docs/spec/autumn.md 7.2): a part
that fails there (most often because it reads a field of the object being made, which the
snapshot lacks) waits for the render. A part whose evaluation begins by looking up a name the
snapshot lacks is known to fail without being tried (``compiler._leading_names``), which saves
raising and catching an error per part per object made. These tests hold that shortcut to
what trying every part gives: the frames, the generator's state, the work counted and each
cell's frozen parts, step by step, and that the shortcut is taken where it may be."""

from __future__ import annotations

import random

import pytest
from tiers import tier
from tracing import random_actions

from llm_eval.actions import apply_action, parse_action
from llm_eval.autumn import Interpreter
from llm_eval.autumn import compiler as compiler_module
from llm_eval.autumn.values import AList, CellV, Obj
from llm_eval.errors import AutumnRuntimeError
from llm_eval.worlds import world_names, world_spec

# Lamps are made at every tick: each of their cells' parts begins in one of the ways the
# shortcut knows (a field, a name the snapshot holds then a field, a condition, a negation,
# a conjunction, a constant then a field) or in a way it must leave to the trial (a draw
# before the field is read, a call, a type name, a global defined after the first lamps).
TRIALS = """(program
  (= GRID_SIZE 10)
  (= shift (initnext 0 (% (+ (prev shift) 1) 3)))
  (object Lamp (: lit Bool) (: tall Number)
    (list (Cell 0 0 (if lit then "yellow" else "gray"))
          (Cell (+ 1 tall) 0 "red")
          (Cell (- tall 1) 1 "blue")
          (Cell 2 (if (< shift tall) then 1 else 2) "orange")
          (Cell 3 (if (! lit) then 3 else 4) "white")
          (Cell 4 (if (& lit (== tall 2)) then 5 else 6) "pink")
          (Cell (+ (uniformChoice (list 0 1)) tall) 7 "green")
          (Cell 5 (if (& (== shift 9) lit) then 8 else 9) (uniformChoice (list "red" "blue")))
          (Cell (if Lamp then 6 else 7) 2 "black")
          (Cell 8 (if late then 1 else 2) (if lit then (uniformChoice (list "red" "gray")) else "blue"))))
  (= lamps (initnext (list (Lamp true 1 (Position 0 0)))
                     (map (--> i (Lamp (== (% (+ i shift) 2) 0) i (Position 0 i))) (range 0 3))))
  (= late true)
  (on clicked (= lamps (addObj lamps (Lamp false shift (Position 1 1))))))"""


def _no_shortcut(node, type_names):
    return (), False


def _cell_parts(it: Interpreter) -> list:
    """Every cell's frozen parts, over the globals' objects."""
    out = []

    def visit(v):
        if v.__class__ is Obj:
            for c in v.fields["elems"]:
                if c.__class__ is CellV:
                    out.append((c.fx, c.fy, c.fc))
        elif v.__class__ is AList:
            for item in v:
                visit(item)

    for value in it._rt.G.vars.values():
        visit(value)
    return out


def _run(text: str, actions: list[str], seed: int = 5) -> list:
    it = Interpreter()
    it.run_script(text, seed=seed)
    seen = [(it.render_all(), it._rt.rng_state, _cell_parts(it))]
    for action in actions:
        apply_action(it, parse_action(action))
        it.step()
        work = it.work_done
        seen.append((it.render_all(), it._rt.rng_state, work, _cell_parts(it)))
    return seen


def _both(text: str, actions: list[str], monkeypatch) -> tuple[list, list]:
    fast = _run(text, actions)
    with monkeypatch.context() as m:
        m.setattr(compiler_module, "_leading_names", _no_shortcut)
        tried = _run(text, actions)
    return fast, tried


def test_skipped_trials_give_what_trying_every_part_gives(monkeypatch):
    actions = random_actions(random.Random(3), 40, 10) + ["click 1 1", "noop", "click 0 0"]
    fast, tried = _both(TRIALS, actions, monkeypatch)
    assert fast == tried
    # the lamps did draw in their cells' trials (the generator moved), and parts were frozen
    # as well as left waiting
    assert len({state for _, state, *_ in fast}) > 10
    parts = fast[-1][-1]
    assert any(p[0] is None for p in parts) and any(p[1] is not None for p in parts)


def test_the_shortcut_is_taken(monkeypatch):
    """Making a lamp raises (and catches) an error only for the one failing part the shortcut
    leaves to the trial (a draw before the field is read), where each of its 8 failing parts
    raised one before."""
    raised = []

    class Counting(AutumnRuntimeError):
        def __init__(self, message, **kwargs):
            raised.append(message)
            super().__init__(message, **kwargs)

    monkeypatch.setattr(compiler_module, "AutumnRuntimeError", Counting)
    it = Interpreter()
    it.run_script(TRIALS, seed=5)
    raised.clear()
    it.step()   # three lamps made
    fast = len(raised)
    with monkeypatch.context() as m:
        m.setattr(compiler_module, "_leading_names", _no_shortcut)
        it = Interpreter()
        it.run_script(TRIALS, seed=5)
        raised.clear()
        it.step()
    assert fast == 3 * 1 and len(raised) == 3 * 8, (fast, len(raised))


@pytest.mark.parametrize("name", [pytest.param(n, id=n, marks=tier(n)) for n in world_names()])
def test_worlds_play_the_same_with_and_without_the_shortcut(name, monkeypatch):
    spec = world_spec(name)
    actions = random_actions(random.Random(name), 25, spec.size)
    fast, tried = _both(spec.program_text(), actions, monkeypatch)
    assert fast == tried
