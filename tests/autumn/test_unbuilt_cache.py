"""``cacheRendered`` is left unbuilt by the host render while nothing can read it (values
.UnbuiltCache): whatever later reads it (an evaluated expression, ``prev``, a restored state)
must see exactly the list the render would have made, and the work budget must count it as
before."""

from __future__ import annotations

import pytest

from llm_eval.autumn import Interpreter
from llm_eval.autumn.values import AList, UnbuiltCache

# two objects, one moving right each tick; allObjs and renderAll walk the whole global table
# (cacheRendered included) and count its length as work
PROGRAM = """(program
  (= GRID_SIZE 8)
  (object Dot (Cell 0 0 "red"))
  (object Bar (list (Cell 0 0 "blue") (Cell 1 0 "blue")))
  (= bar (Bar (Position 0 5)))
  (= dot (initnext (Dot (Position 1 1)) (moveRight (prev dot))))
  (= seen (initnext 0 (length ((allObjs)))))
  (= drawn (initnext 0 (length ((renderAll))))))"""

READS = PROGRAM.replace("(= drawn", "(= cells (initnext 0 (length cacheRendered)))\n  (= drawn")
COLOURS = "map (--> e (.. e color)) cacheRendered"
POSITIONS = "map (--> e (.. e position)) cacheRendered"


def _cells(it: Interpreter, of: str = "cacheRendered") -> list[tuple[int, int, str]]:
    """The (x, y, colour) of each RenderedElem of ``of``, in order."""
    parts = [list(it.evaluate(f"map (--> e {part}) {of}"))
             for part in ("(.. (.. e position) x)", "(.. (.. e position) y)", "(.. e color)")]
    return list(zip(*parts))


def _started(text: str = PROGRAM, *, unbuilt: bool = True) -> Interpreter:
    it = Interpreter()
    it.run_script(text, seed=5)
    if not unbuilt:
        it._rt.unread_cache = False
        it._rt.build_caches()      # the load's render left it unbuilt
    return it


def _tick(it: Interpreter, n: int = 1) -> None:
    for _ in range(n):
        it.step()
        it.render_frame()


def test_a_program_that_never_names_it_leaves_it_unbuilt():
    it = _started()
    assert it._rt.unread_cache
    _tick(it)
    assert isinstance(it._rt.G.vars["cacheRendered"], UnbuiltCache)


def test_a_program_that_names_it_builds_it_at_every_render():
    it = _started(READS)
    assert not it._rt.unread_cache
    _tick(it, 2)
    assert isinstance(it._rt.G.vars["cacheRendered"], AList)
    assert it.evaluate("cells") == 3       # the render before the second tick: three cells


def test_a_trigger_that_names_it_builds_it():
    it = Interpreter()
    it.run_script(PROGRAM, seed=5, trigger="> (length cacheRendered) 99")
    assert not it._rt.unread_cache


def test_an_evaluated_expression_sees_the_list_the_render_made():
    lazy, built = _started(), _started(unbuilt=False)
    for it in (lazy, built):
        _tick(it, 3)
    for text in (COLOURS, POSITIONS, "length cacheRendered", "length (prev cacheRendered)",
                 "map (--> e (.. e position)) (prev cacheRendered)"):
        assert lazy.evaluate_to_string(text) == built.evaluate_to_string(text), text
    assert _cells(lazy) == [(4, 1, "red"), (0, 5, "blue"), (1, 5, "blue")]
    assert _cells(lazy, "(prev cacheRendered)") == [(3, 1, "red"), (0, 5, "blue"),
                                                    (1, 5, "blue")]
    assert not lazy._rt.unread_cache      # for good, once named


def test_prev_and_the_current_value_are_one_list_when_one_render_made_both():
    plain = PROGRAM.split("\n  (= seen")[0] + ")"      # no renderAll in its ticks
    for unbuilt in (True, False):
        it = _started(plain, unbuilt=unbuilt)
        _tick(it)
        it.step()    # no render since the tick began: prev's snapshot holds the same render
        assert it.evaluate("cacheRendered") is it.evaluate("prev cacheRendered")
        _tick(it)
        assert it.evaluate("cacheRendered") is not it.evaluate("prev cacheRendered")


def test_a_state_saved_unbuilt_and_restored_after_it_was_named_is_built():
    it = _started()
    _tick(it, 2)
    saved = it.snapshot()
    assert isinstance(it._rt.G.vars["cacheRendered"], UnbuiltCache)
    assert _cells(it)[0] == (3, 1, "red")
    _tick(it, 2)
    assert _cells(it)[0] == (5, 1, "red")
    it.restore(saved)            # brings the unbuilt value back
    assert _cells(it) == [(3, 1, "red"), (0, 5, "blue"), (1, 5, "blue")]


def test_an_evaluated_definition_that_reads_it_sees_it_in_later_ticks():
    it = _started()
    _tick(it)
    it.evaluate("= count (fn () (length cacheRendered))")
    _tick(it)
    assert it.evaluate("(count)") == 3


# allObjs alone, renderAll alone: either, run before the other in a tick, would replace the
# unbuilt value before the other walks it
ALL_OBJS = PROGRAM.split("\n  (= drawn")[0] + ")"
RENDER_ALL = PROGRAM.replace("\n  (= seen (initnext 0 (length ((allObjs)))))", "")


@pytest.mark.parametrize("text", [ALL_OBJS, RENDER_ALL], ids=["allObjs", "renderAll"])
def test_the_work_counted_is_the_same(text):
    lazy, built = _started(text), _started(text, unbuilt=False)
    for _ in range(4):
        for it in (lazy, built):
            it.step()
        assert lazy.work_done == built.work_done
        for it in (lazy, built):
            it.render_frame()
        assert lazy.work_done == built.work_done
    assert lazy.work_done > 0
