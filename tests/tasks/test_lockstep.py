"""The CD lock-step (tasks/cd.py): with ``settle`` the original waits once the trigger has fired
with no frame differing and the condition not holding, and catches up if the condition comes to
hold; where the modified program is proven to run as the original until the trigger (``lazy``)
the original is not played before it unless a run needs it; every fact a validation run
reports is the one of the full lock-step."""

from __future__ import annotations

import random

import pytest

from llm_eval.tasks.cd import LockStep
from llm_eval.tasks.store import all_tasks
from llm_eval.tasks.trajectory import random_actions
from llm_eval.worlds import world_spec

TASKS = {t.id: t for t in all_tasks(suite="v1") if t.family == "cd"}


def _counting(lockstep: LockStep, actions: list[str], settle: bool):
    """The comparison and how many steps the original played."""
    lockstep.play([])                       # loads both worlds
    original = lockstep._worlds[0]
    steps = [0]
    step = original.step

    def counted(action):
        steps[0] += 1
        return step(action)

    original.step = counted
    try:
        return lockstep.play(actions, settle=settle), steps[0]
    finally:
        del original.step


def _runs(task, n: int) -> list[list[str]]:
    """Random runs, every other one after a prefix of the witness (as validation's are)."""
    size, witness = world_spec(task.world).size, list(task.hidden.witness_actions)
    rng = random.Random(task.id)
    return [(witness[:rng.randrange(len(witness) + 1)] if i % 2 else [])
            + random_actions(rng, size, 40) for i in range(n)]


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
@pytest.mark.parametrize("task_id", ["wildfire-cd", "easel-cd", "dominoes-cd", "warehouse-cd"])
def test_a_settled_run_reports_what_the_full_lock_step_does(task_id, lazy):
    task = TASKS[task_id]
    full, settled = LockStep(task, lazy=False), LockStep(task, lazy=lazy)
    saved = 0
    for actions in _runs(task, 8):
        a, full_steps = _counting(full, actions, False)
        b, settled_steps = _counting(settled, actions, True)
        assert (b.trigger_step, b.steps, b.condition_step, b.condition_error) == \
            (a.trigger_step, a.steps, a.condition_step, a.condition_error)
        assert b.differs_before_trigger == a.differs_before_trigger
        assert b.condition_before_difference == a.condition_before_difference
        if b.first_difference != a.first_difference:   # only where nothing depends on it
            assert b.first_difference is None and a.trigger_step is not None
            assert a.first_difference >= a.trigger_step and b.condition_step is None
        saved += full_steps - settled_steps
        assert settled_steps <= full_steps
    assert saved > 0                        # the original did wait in some run
    assert settled.lazy == lazy             # these four programs are proven


def _with_condition(task, condition: str):
    return task.model_copy(update={"hidden": task.hidden.model_copy(
        update={"condition": condition})})


# wildfire's witness fires the trigger after step 11 and the frames first differ at step 16;
# its `clock` counts the steps, so these conditions hold at frames 13, 20 and never.
@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
@pytest.mark.parametrize("condition,first,held", [
    ("> clock 12", 16, 13),   # holds while the original waits, before any difference:
                                # it catches up, finds none, and plays on to find step 16
    ("> clock 19", 16, 20),   # holds after the difference: the catch-up finds step 16
    ("> clock 500", None, None),  # never: the original waits to the end
])
def test_the_waiting_original_catches_up_when_the_condition_holds(condition, first, held, lazy):
    task = _with_condition(TASKS["wildfire-cd"], condition)
    actions = list(task.hidden.witness_actions) + ["noop"] * 30
    full, full_steps = _counting(LockStep(task, lazy=False), actions, False)
    settled, settled_steps = _counting(LockStep(task, lazy=lazy), actions, True)
    assert full.trigger_step == 11 and full.first_difference == 16
    assert (settled.first_difference, settled.condition_step) == (first, held)
    assert full.condition_step == held
    assert full.condition_error is None and settled.condition_error is None
    assert settled.condition_before_difference == full.condition_before_difference \
        == (held == 13)
    # eager, the original plays up to the trigger's step and waits there; lazy, it is played
    # (from the start) only when the condition holds
    assert settled_steps == {13: 16, 20: 16, None: 0 if lazy else 10}[held]
    assert full_steps == 16


def test_the_witness_run_finds_its_first_difference_whatever_the_condition():
    from dataclasses import replace

    from llm_eval.tasks.validate import QUICK, check_before_and_after

    effort = replace(QUICK, fuzz_runs=1, condition_rollouts=1, click_sweep=False)
    task = _with_condition(TASKS["wildfire-cd"], "> clock 500")   # never holds
    checks = {c.name: c for c in check_before_and_after(task, effort)}
    assert checks["change_observable"].passed
    assert checks["change_observable"].figures["first_difference"] == 16


# -- lazy: the original left out before the trigger where the latch proof holds ---------------
def test_lazy_only_where_the_modified_program_is_proven():
    # keys is proven, but its latch, one more global, reorders the reference's hash table
    for task_id, proven, lazy in (("wildfire-cd", True, True), ("reservoir-cd", True, True),
                                  ("dig-cd", False, False), ("relay-cd", False, False),
                                  ("keys-cd", True, False)):
        lockstep = LockStep(TASKS[task_id])
        lockstep.play([])
        assert lockstep.proof.proven == proven, lockstep.proof.reason
        assert lockstep.lazy == lazy
    off = LockStep(TASKS["wildfire-cd"], lazy=False)
    off.play([])
    assert not off.lazy and off.proof is None


ORIGINAL = """(program
  (= GRID_SIZE 8)
  (object Dot (Cell 0 0 "red"))
  (= clock (initnext 0 (+ (prev clock) 1)))
  (= dot (initnext (Dot (Position 1 1)) (prev dot)))
  (on left (= dot (moveLeft dot)))
  (on right (= dot (moveRight dot)))
  (on clicked (= spare 1)))"""


def _latched(latch: str = "changed", right: str = "(moveRight dot)",
             original: str = ORIGINAL) -> str:
    """``original`` with a latch, and ``right`` moving down once it holds (a comment first, as
    in programs/changes/: its lines are one further down)."""
    body = "; changed\n" + original.replace("(on right (= dot (moveRight dot)))",
                            f"(on right (= dot (if {latch} then (moveDown dot) else {right})))")
    return body[:-1] + f"\n  (= {latch} false)\n  (on SpecialConditionTriggered (= {latch} true)))"


def _custom(monkeypatch, modified: str, condition: str = "> clock 100",
            original: str = ORIGINAL):
    """A CD task (wildfire's, its hidden part replaced) whose programs are ``original`` and
    ``modified`` (trigger: more than 5 ticks)."""
    from llm_eval.tasks import cd
    from llm_eval.worlds import World

    def world(text, **kw):
        w = World(text, **kw)
        w.reset()
        return w

    monkeypatch.setattr(cd, "make", lambda name, seed: world(original, seed=seed))
    monkeypatch.setattr(cd, "make_changed", lambda name, program, seed, trigger:
                        world(modified, seed=seed, trigger=trigger))
    task = TASKS["wildfire-cd"]
    return task.model_copy(update={"hidden": task.hidden.model_copy(
        update={"trigger": "> clock 5", "condition": condition})})


def test_an_unguarded_change_is_played_in_full_and_found(monkeypatch):
    task = _custom(monkeypatch, _latched(right="(moveRight (moveRight dot))"))
    lockstep = LockStep(task)
    c = lockstep.play(["right", "noop", "noop"], settle=True)
    assert not lockstep.lazy and "differs" in lockstep.proof.reason
    assert c.first_difference == 1 and c.differs_before_trigger


def test_a_global_defined_while_the_original_lags_brings_it_back(monkeypatch):
    """A click defines ``spare`` (the globals' order changes in a way not checked at load):
    the original is played from the start and in lock-step from there on."""
    task = _custom(monkeypatch, _latched())
    actions = ["right", "left", "click 1 1"] + ["noop"] * 5
    lazy = LockStep(task)
    c, steps = _counting(lazy, ["left"], True)
    assert lazy.lazy and steps == 0                # nothing needed the original
    c, steps = _counting(lazy, actions, True)
    eager, eager_steps = _counting(LockStep(task, lazy=False), actions, True)
    assert c == eager and c.trigger_step == 7 and c.first_difference is None
    assert steps == eager_steps == 6               # up to the trigger's step, then it waits
    # without the click (and the definition), the original is never played
    c, steps = _counting(lazy, ["noop" if a.startswith("click") else a for a in actions], True)
    assert c.trigger_step == 7 and steps == 0


def test_programs_whose_globals_hash_in_another_order_are_not_lazy(monkeypatch):
    """``latch70`` is proven like ``changed``, but one more global reorders the others in the
    reference's hash table (docs/spec/autumn.md 9): ``allObjs`` would walk them in another
    order, so the proof alone is not enough."""
    for latch, lazy in (("changed", True), ("latch70", False)):
        lockstep = LockStep(_custom(monkeypatch, _latched(latch)))
        lockstep.play([])
        assert lockstep.proof.proven and lockstep.lazy == lazy


def test_an_error_of_both_programs_reports_the_originals(monkeypatch):
    """Eager, the original steps first: when both fail, its error is the one reported; the
    lagging original is played to the failing step to say the same."""
    failing = ORIGINAL.replace("(on left (= dot (moveLeft dot)))",
                               "(on left (= dot (moveLeft (/ 1 0))))")
    task = _custom(monkeypatch, _latched(original=failing), original=failing)
    messages = []
    for lazy in (False, True):
        lockstep = LockStep(task, lazy=lazy)
        with pytest.raises(Exception) as err:
            lockstep.play(["right", "noop", "left"], settle=True)
        messages.append(str(err.value))
        assert lockstep.lazy == lazy
    assert messages[0] == messages[1] and messages[0].startswith("<program>:6:")
