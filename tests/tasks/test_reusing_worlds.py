"""``trajectory.reusing_worlds``: within one task's validation, a world a check made and let go
is given to the next check reset to its loaded state, never one somebody still holds."""

from __future__ import annotations

import weakref

from llm_eval.tasks.trajectory import make, make_changed, reusing_worlds

PROGRAM = "changes/wildfire.sexp"


def test_a_world_let_go_is_given_again_reset():
    with reusing_worlds():
        first = make("wildfire", 3)
        initial = first.frame
        for action in ("left", "click 2 2", "up"):
            first.step(action)
        key = hash(first.state_key())
        ident = id(first)
        del first
        again = make("wildfire", 3)
        assert id(again) == ident                      # the same world, not loaded again
        assert again.frame.grid == initial.grid and again.steps == 0
        fresh = make("wildfire", 3)                    # `again` is held: a new one
        assert fresh is not again
        assert hash(again.state_key()) == hash(fresh.state_key()) != key


def test_a_held_world_or_another_seed_or_program_is_never_given():
    with reusing_worlds():
        held = make("wildfire", 3)
        assert make("wildfire", 3) is not held
        other_seed = make("wildfire", 4)
        assert other_seed is not held and other_seed.interpreter is not held.interpreter
        changed = make_changed("wildfire", PROGRAM, 3, "> doused 0")
        assert changed is not held and changed.trigger == "> doused 0"
        del changed
        untriggered = make_changed("wildfire", PROGRAM, 3, "")
        assert untriggered.trigger == ""


def test_outside_the_block_nothing_is_kept():
    first = make("wildfire", 3)
    gone = weakref.ref(first)
    del first
    assert gone() is None                              # freed: nothing kept it
    with reusing_worlds():
        first = make("wildfire", 3)
        kept = weakref.ref(first)
        del first
        assert kept() is not None                      # kept for the next check
    assert make("wildfire", 3) is not kept()


def test_a_world_closed_by_its_user_is_not_given_again():
    with reusing_worlds():
        first = make("wildfire", 3)
        first.close()
        closed = weakref.ref(first)
        del first
        again = make("wildfire", 3)
        assert again is not closed() and not again.closed
        again.step("noop")                             # usable: it was loaded anew
        assert again.steps == 1
