"""Each validation check fails on a task built to fail it, naming itself: the checks that had
no such test (the oracle checks of the three families, ``mask_is_dynamic``,
``random_near_chance`` on its own, ``seed``). Making any of these checks always pass fails a
test here (tests/tasks/test_task_validate.py holds the others')."""

from __future__ import annotations

import dataclasses

from llm_eval.tasks import load_task
from llm_eval.tasks.models import MFPTask
from llm_eval.tasks.trajectory import make, play
from llm_eval.tasks.validate import QUICK, check_oracle, validate_task

# the cheap checks, and the oracle's
LIGHT = dataclasses.replace(QUICK, rollouts=20, random_answers=600, mfp_draws=40, cd_draws=20)
NO_ORACLE = dataclasses.replace(LIGHT, oracle=False)


def _replace(task, **public_or_hidden):
    half, values = next(iter(public_or_hidden.items()))
    part = getattr(task, half).model_copy(update=values)
    return task.model_copy(update={half: part})


def failed(task, effort=NO_ORACLE) -> dict[str, str]:
    """The checks ``task`` fails, each with its detail (skipped ones left out)."""
    return {c.name: c.detail for c in validate_task(task, effort).checks
            if not c.passed and not c.skipped}


# -- the oracle checks ------------------------------------------------------------------------
def test_an_mfp_task_whose_answer_is_not_the_truth_fails_the_oracle():
    """The oracle picks the option equal to the true patch; the task scores another."""
    task = load_task("gravity", "mfp")
    assert check_oracle(task).passed                       # the shipped task: the control
    wrong = _replace(task, hidden={"answer": (task.hidden.answer + 1) % 6})
    check = check_oracle(wrong)
    assert (check.name, check.passed, check.figures["score"]) == ("oracle_answers", False, 0.0)
    assert check.detail == "the oracle agent fails the task"
    # and validation runs it: the report names it among the failures
    assert failed(wrong, LIGHT)["oracle_answers"] == "the oracle agent fails the task"


def test_a_planning_task_whose_horizon_is_too_short_fails_the_oracle():
    task = load_task("easel", "planning")
    assert check_oracle(task).passed
    short = _replace(task, public={"horizon": 1})          # the goal takes several clicks
    check = check_oracle(short)
    assert (check.name, check.passed, check.figures["score"]) == ("oracle_solves", False, 0.0)
    assert {"oracle_solves", "witness_reaches_goal"} <= set(failed(short, LIGHT))


def test_a_cd_task_whose_test_is_too_short_to_show_the_change_fails_the_oracle():
    """Four test steps: the oracle cannot make the change happen, declare it and submit."""
    task = load_task("easel", "cd")
    short = task.model_copy(update={"budgets": task.budgets.model_copy(
        update={"test_steps": 4})})
    check = check_oracle(short)
    assert (check.name, check.passed, check.figures["test_steps"]) == (
        "oracle_detects", False, 4)
    assert check.detail == "the oracle agent fails the task"


# -- MFP ----------------------------------------------------------------------------------------
def static_cell_task(task: MFPTask) -> MFPTask:
    """``task`` with its mask moved to one cell that never changes along the trajectory, and
    six one-cell options (the truth first): a hidden patch equal to the last shown one."""
    grids = play(make(task.world, task.seed), task.public.actions)
    n = len(grids[0])
    x, y = next((x, y) for y in range(n) for x in range(n)
                if len({g[y][x] for g in grids}) == 1)
    truth = grids[-1][y][x]
    others = [c for c in ("red", "blue", "green", "yellow", "pink", "orange", "purple", "white",
                          "black", "gray") if c != truth][:5]
    frames = [[[None if (t >= task.public.masked_from and (cx, cy) == (x, y)) else g[cy][cx]
                for cx in range(n)] for cy in range(n)] for t, g in enumerate(grids)]
    public = task.public.model_dump() | {
        "mask": {"x": x, "y": y, "width": 1, "height": 1}, "frames": frames,
        "options": [[[c]] for c in [truth, *others]]}
    data = task.model_dump() | {"public": public,
                                "hidden": {"answer": 0, "option_sources": None}}
    return MFPTask.model_validate(data)


def test_a_mask_over_a_cell_that_never_changes_fails_mask_is_dynamic():
    task = static_cell_task(load_task("gravity", "mfp"))
    result = failed(task)
    assert result["mask_is_dynamic"] == "the hidden patch equals the last shown one"
    # the rest of the task is sound: the answer is the truth and the options differ
    assert not {"answer_unique", "options_distinct", "trajectory_replays"} & set(result)


def test_an_answer_random_guessing_never_picks_fails_random_near_chance():
    """Seven distinct options with the truth last: ``random_near_chance`` guesses among six
    of them, so its rate is 0, far from 1/6; the answer is still the only true option."""
    task = load_task("gravity", "mfp")
    options = [list(map(list, o)) for o in task.public.options]
    truth = options[task.hidden.answer]
    rest = [o for i, o in enumerate(options) if i != task.hidden.answer]
    # a seventh option: the first distractor with one cell recoloured, unlike every other
    extra = [list(r) for r in rest[0]]
    used = {str(o) for o in options}
    for colour in ("red", "blue", "green", "yellow", "pink", "orange", "purple", "white"):
        extra[0][0] = colour
        if str(extra) not in used:
            break
    seven = _replace(task, public={"options": [*rest, extra, truth]})
    seven = _replace(seven, hidden={"answer": 6, "option_sources": None})
    result = failed(seven)
    assert result["random_near_chance"] == "random answers are not near 1/6"
    assert not {"answer_unique", "options_distinct"} & set(result)


# -- every task ---------------------------------------------------------------------------------
def test_a_seed_that_is_0_mod_2_to_the_32_fails_the_seed_check():
    task = load_task("hunters", "planning").model_copy(update={"seed": 2 ** 32})
    assert failed(task)["seed"] == "seed is 0 mod 2**32"
