"""The CD lock-step (tasks/cd.py): with ``settle`` the original waits once the trigger has fired
with no frame differing and the condition not holding, and catches up if the condition comes to
hold; every fact a validation run reports is the one of the full lock-step."""

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


@pytest.mark.parametrize("task_id", ["wildfire-cd", "easel-cd", "dominoes-cd", "warehouse-cd"])
def test_a_settled_run_reports_what_the_full_lock_step_does(task_id):
    task = TASKS[task_id]
    full, settled = LockStep(task), LockStep(task)
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
            assert a.first_difference > a.trigger_step and b.condition_step is None
        saved += full_steps - settled_steps
        assert settled_steps <= full_steps
    assert saved > 0                        # the original did wait in some run


def _with_condition(task, condition: str):
    return task.model_copy(update={"hidden": task.hidden.model_copy(
        update={"condition": condition})})


# wildfire's witness fires the trigger after step 11 and the frames first differ at step 16;
# its `clock` counts the steps, so these conditions hold at frames 13, 20 and never.
@pytest.mark.parametrize("condition,first,held", [
    ("> clock 12", 16, 13),   # holds while the original waits, before any difference:
                                # it catches up, finds none, and plays on to find step 16
    ("> clock 19", 16, 20),   # holds after the difference: the catch-up finds step 16
    ("> clock 500", None, None),  # never: the original waits to the end
])
def test_the_waiting_original_catches_up_when_the_condition_holds(condition, first, held):
    task = _with_condition(TASKS["wildfire-cd"], condition)
    actions = list(task.hidden.witness_actions) + ["noop"] * 30
    full, full_steps = _counting(LockStep(task), actions, False)
    settled, settled_steps = _counting(LockStep(task), actions, True)
    assert full.trigger_step == 11 and full.first_difference == 16
    assert (settled.first_difference, settled.condition_step) == (first, held)
    assert full.condition_step == held
    assert full.condition_error is None and settled.condition_error is None
    assert settled.condition_before_difference == full.condition_before_difference \
        == (held == 13)
    assert settled_steps == {13: 16, 20: 16, None: 11}[held]
    assert full_steps == 16


def test_the_witness_run_finds_its_first_difference_whatever_the_condition():
    from dataclasses import replace

    from llm_eval.tasks.validate import QUICK, check_before_and_after

    effort = replace(QUICK, fuzz_runs=1, condition_rollouts=1, click_sweep=False)
    task = _with_condition(TASKS["wildfire-cd"], "> clock 500")   # never holds
    checks = {c.name: c for c in check_before_and_after(task, effort)}
    assert checks["change_observable"].passed
    assert checks["change_observable"].figures["first_difference"] == 16
