"""The host render looks at every global in its order (docs/spec/autumn.md 10.1) but skips those
bound for good to a function (``Runtime.render_order``): the stdlib, the builtins and the
program's own function definitions, most of the table. Nothing rendered may change: these
programs give a function's name a value that renders in each way the program, its trigger or
an evaluated expression can."""

from __future__ import annotations

import random

import pytest
from tiers import tier
from tracing import play, random_actions

from llm_eval.autumn import Interpreter
from llm_eval.worlds import world_names, world_spec

# `helper` stays a function; `swap` becomes a list of dots on a click; the program defines
# `range` (a builtin's name) once, as a list of dots; `later` is a function until the trigger
# (an assignment) makes it a list of dots (a function's name may take a list, 6.3).
PROGRAM = """(program
  (= GRID_SIZE 6)
  (object Dot (Cell 0 0 "red"))
  (= helper (--> x x))
  (= swap (--> x x))
  (= later (--> x x))
  (= range (list (Dot (Position 2 2))))
  (= n (initnext 0 (+ (prev n) 1)))
  (on clicked (= swap (list (Dot (Position 1 1))))))"""
TRIGGER = "let (= later (list (Dot (Position 4 4)))) (> n 2)"   # host syntax (14.2)


def _frames(text: str, actions: list[str], *, skip: bool, trigger: str | None = None,
            evaluate: str | None = None) -> tuple[list[str], int]:
    it = Interpreter()
    it.run_script(text, seed=4, trigger=trigger)
    if not skip:
        it._rt.forget_fixed()
    frames = [it.render_all()]
    if evaluate:
        it.evaluate(evaluate)
        frames.append(it.render_all())
    frames += play(it, actions)
    return frames, len(it._rt.render_order())


def test_functions_are_skipped_and_every_rebinding_still_renders():
    actions = ["noop", "click 0 0", "noop", "noop", "noop"]
    fast, looked_at = _frames(PROGRAM, actions, skip=True, trigger=TRIGGER)
    full, every = _frames(PROGRAM, actions, skip=False, trigger=TRIGGER)
    assert fast == full and looked_at < every / 3
    assert '"x": 2, "y": 2' in fast[0]                       # range, defined as dots
    assert '"x": 1, "y": 1' in fast[2] and '"x": 1, "y": 1' not in fast[1]   # swap, clicked
    assert '"x": 4, "y": 4' in fast[-1] and '"x": 4, "y": 4' not in fast[0]  # the trigger's


def test_an_evaluated_assignment_makes_every_global_looked_at():
    evaluate = "= helper (list (Dot (Position 3 3)))"
    fast, looked_at = _frames(PROGRAM, ["noop"], skip=True, evaluate=evaluate)
    full, every = _frames(PROGRAM, ["noop"], skip=False, evaluate=evaluate)
    assert fast == full and '"x": 3, "y": 3' in fast[1] and looked_at == every
    # an evaluated text that assigns nothing keeps the skipping
    it = Interpreter()
    it.run_script(PROGRAM, seed=4)
    before = len(it._rt.render_order())
    it.evaluate("any (--> d (== d d)) range")
    assert len(it._rt.render_order()) == before


def test_the_host_render_list_is_looked_at_even_where_the_program_defined_a_function():
    """The host replaces ``cacheRendered`` at every render; a program that defines it as a
    function still has the host's list counted as work, as when every global is looked at."""
    text = PROGRAM.replace("(= n (initnext", "(= cacheRendered (--> x x))\n  (= n (initnext")

    def work(skip: bool) -> list[int]:
        it = Interpreter()
        it.run_script(text, seed=4)
        if not skip:
            it._rt.forget_fixed()
        done = []
        for _ in range(3):
            it.step()
            it.render_all()
            done.append(it.work_done)
        return done

    assert work(True) == work(False) and work(True)[0] > 0


@pytest.mark.parametrize("name", [pytest.param(n, id=n, marks=tier(n)) for n in world_names()])
def test_worlds_render_the_same_when_functions_are_skipped(name):
    spec = world_spec(name)
    actions = random_actions(random.Random(name), 30, spec.size)
    fast, looked_at = _frames(spec.program_text(), actions, skip=True)
    full, every = _frames(spec.program_text(), actions, skip=False)
    assert fast == full and looked_at < every


def test_a_restore_renders_the_globals_its_state_defined():
    """A global first defined by a tick is rendered after a restore of a state that has it,
    whatever other globals the state restored from had defined, and not after a restore of
    one that does not."""
    text = PROGRAM.replace("(on clicked", "(on up (= fresh (list (Dot (Position 0 5)))))\n"
                           "  (on down (= other (list (Dot (Position 5 0)))))\n  (on clicked")
    it = Interpreter()
    it.run_script(text, seed=4)
    before = it.snapshot()
    play(it, ["up"])
    after = it.snapshot()
    assert '"fresh"' in it.render_all()
    it.restore(before)
    assert '"fresh"' not in it.render_all()
    play(it, ["down"])               # another global, defined where `fresh` never was
    assert '"other"' in it.render_all() and '"fresh"' not in it.render_all()
    it.restore(after)
    assert '"fresh"' in it.render_all() and '"other"' not in it.render_all()
