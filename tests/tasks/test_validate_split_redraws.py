"""With several processes a stochastic planning task's redraws (``reachable_without_dice``)
are work units of their own (llm_eval/tasks/validate.py ``_units``/``_assemble``): the check
put together from them is the one ``validate_task`` computes in one process, failures and
errors included. The blind planner is replaced by a pure function of its generator state
(the real one takes seconds a redraw); tests/tasks/test_dice_checks.py runs the real one."""

from __future__ import annotations

import pytest

from llm_eval.tasks import all_tasks, dice
from llm_eval.tasks import validate as V

SMALL = V.Effort(rollouts=10, random_answers=60, fuzz_runs=1, fuzz_steps=10, oracle=False,
                 click_sweep=False, condition_rollouts=1, mfp_draws=10, cd_draws=5,
                 plan_redraws=12)


def _units_then_assembled(tasks, effort):
    results = [V._run_unit(unit, effort) for unit in V._units(tasks, effort)]
    return [r.to_dict() for r in V._assemble(tasks, effort, results)]


@pytest.fixture
def tasks():
    # sparks is stochastic (its planning task's redraws are split off), easel is not
    return [t for t in all_tasks(["sparks", "easel"]) if t.family == "planning"]


def _planner(fail_on=(), raise_on=()):
    def blind(task, state):
        if state in raise_on:
            raise RuntimeError(f"broken at {state}")
        return state not in fail_on, state % 17, state % 5 + 1
    return blind


@pytest.mark.parametrize("case", ["all reached", "one missed", "one raises"])
def test_split_redraws_give_the_report_of_one_process(tasks, monkeypatch, case):
    states = V._plan_states(next(t for t in tasks if t.id == "sparks-planning"), 12)
    blind = {"all reached": _planner(),
             "one missed": _planner(fail_on={states[2]}),
             "one raises": _planner(raise_on={states[1]})}[case]
    monkeypatch.setattr(dice, "blind_plan_succeeds", blind)
    units = V._units(tasks, SMALL)
    assert [u[0] for u in units].count("redraw") == 12      # sparks' only
    split = _units_then_assembled(tasks, SMALL)
    whole = [V.validate_task(t, SMALL).to_dict() for t in tasks]
    assert split == whole
    check = next(c for r in split if r["task"] == "sparks-planning" for c in r["checks"]
                 if c["name"] == "reachable_without_dice")
    assert not check["skipped"]
    if case == "all reached":
        assert check["passed"] and check["figures"]["reached"] == 12
    elif case == "one missed":
        assert not check["passed"] and check["figures"]["reached"] == 11
    else:
        assert not check["passed"] and "RuntimeError: broken at" in check["detail"]


def test_a_redraw_assembled_into_the_wrong_task_is_caught(tasks, monkeypatch):
    """The comparison above can fail: results in another order give another report."""
    monkeypatch.setattr(dice, "blind_plan_succeeds", _planner())
    results = [V._run_unit(unit, SMALL) for unit in V._units(tasks, SMALL)]
    sparks = next(i for i, u in enumerate(V._units(tasks, SMALL)) if u[0] == "redraw")
    results[sparks] = (False, 0, 1)
    split = [r.to_dict() for r in V._assemble(tasks, SMALL, results)]
    assert split != [V.validate_task(t, SMALL).to_dict() for t in tasks]
