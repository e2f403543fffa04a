"""Validation: every shipped task passes every check, and each check fails on a task broken
in the way it guards against."""

from __future__ import annotations

import dataclasses
import json

import pytest
from tiers import slow

from llm_eval.cli import main
from llm_eval.tasks import all_tasks, load_task, trajectory
from llm_eval.tasks.specs import SUITE_CHANGES
from llm_eval.tasks.validate import FULL, Effort, validate_task
from llm_eval.worlds import world_spec

NO_ORACLE = Effort(rollouts=60, random_answers=600, fuzz_runs=4, fuzz_steps=50, oracle=False,
                   condition_rollouts=4, cd_draws=60, plan_redraws=0)

# the blind planner takes minutes a redraw in the large worlds: the slow tier leaves it to
# tests/tasks/test_dice_checks.py and to ``llm-eval tasks validate``
SLOW_TIER = dataclasses.replace(FULL, plan_redraws=0)


# v2's own task files (the tasks it rebuilt); every other v2 task is v1's file, whose full
# report tests/tasks/test_validation_reports_unchanged.py compares with the recorded one (and
# the recording passes every check for each of them): not validated twice
V2_OWN = sorted(f"{world}-{family}" for world, families in SUITE_CHANGES["v2"].items()
                for family in families)


@slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("task", [t for t in all_tasks() if t.id in V2_OWN],
                         ids=lambda t: t.id)
def test_every_shipped_task_passes_full_validation(task):
    """The slow tier's full validation of suite v2's own tasks (what ``llm-eval tasks
    validate`` runs, but the planning redraws), one test per task so that pytest-xdist
    spreads them over the cores."""
    report = validate_task(task, SLOW_TIER)
    failed = {c.name: (c.detail, c.figures) for c in report.checks
              if not (c.passed or c.skipped)}
    assert failed == {}


def _replace(task, **public_or_hidden):
    half, values = next(iter(public_or_hidden.items()))
    part = getattr(task, half).model_copy(update=values)
    return task.model_copy(update={half: part})


def _failed(task, effort=NO_ORACLE):
    return {c.name for c in validate_task(task, effort).checks if not c.passed and not c.skipped}


def test_wrong_mfp_answer_fails():
    task = load_task("gravity", "mfp")
    wrong = (task.hidden.answer + 1) % 6
    assert _failed(_replace(task, hidden={"answer": wrong})) == {"answer_unique"}


def test_duplicate_mfp_options_fail():
    task = load_task("easel", "mfp")
    options = [list(map(list, o)) for o in task.public.options]
    other = (task.hidden.answer + 1) % 6
    options[other] = options[(task.hidden.answer + 2) % 6]
    assert _failed(_replace(task, public={"options": options})) == {"options_distinct"}
    options[other] = options[task.hidden.answer]           # a second copy of the truth
    assert {"options_distinct", "answer_unique", "random_near_chance"} <= _failed(
        _replace(task, public={"options": options}))


def test_tampered_mfp_trajectory_fails():
    task = load_task("magnets", "mfp")
    frames = [list(map(list, f)) for f in task.public.frames]
    frames[3][0][0] = "pink" if frames[3][0][0] != "pink" else "gray"
    assert "trajectory_replays" in _failed(_replace(task, public={"frames": frames}))


def test_unreachable_planning_goal_fails():
    task = load_task("easel", "planning")
    goal = [list(r) for r in task.public.goal]
    goal[4][4] = "teal"                                     # no paint mixes to teal
    assert _failed(_replace(task, public={"goal": goal})) == {"witness_reaches_goal"}


def test_planning_goal_random_play_reaches_fails():
    task = load_task("easel", "planning")
    n = len(task.public.goal)
    mask = [[(x, y) == (9, 9) for x in range(n)] for y in range(n)]   # the colour lamp only
    goal = [list(r) for r in task.public.goal]
    goal[9][9] = "yellow"                    # the witness's first click picks yellow too
    assert _failed(_replace(task, public={"mask": mask, "goal": goal})) == {"random_below_5pct"}


def test_goal_equal_to_initial_fails():
    task = load_task("warehouse", "planning")
    initial = trajectory.make("warehouse", task.seed).frame.to_rows()
    assert "goal_differs_from_initial" in _failed(_replace(task, public={"goal": initial}))


def _patched_program(monkeypatch, world, old, new):
    original = trajectory.changed_program_text

    def fake(program):
        text = original(program)
        assert text.count(old) == 1
        return text.replace(old, new)

    monkeypatch.setattr(trajectory, "changed_program_text", fake)


def test_cd_program_that_differs_before_the_trigger_fails(monkeypatch):
    _patched_program(monkeypatch, "gravity", "(if changed then 2 else 1))))",
                     "(if changed then 2 else 2))))")
    task = load_task("gravity", "cd")
    assert "identical_before_trigger" in _failed(task)


def test_cd_change_never_seen_fails(monkeypatch):
    _patched_program(monkeypatch, "easel", '(if changed then "pink" else "purple")',
                     '"purple"')
    assert _failed(load_task("easel", "cd")) == {"change_observable", "condition_at_change"}


def test_cd_condition_holding_on_the_initial_state_fails():
    task = _replace(load_task("easel", "cd"), hidden={"condition": "true"})
    assert _failed(task) == {"condition_false_initially", "condition_at_change",
                             "condition_not_early"}


def test_cd_condition_holding_before_the_change_shows_fails():
    # the trigger holds from frame 5, the first pink mix shows at frame 6
    task = _replace(load_task("easel", "cd"), hidden={"condition": "& changed (> strokes 3)"})
    report = validate_task(task, NO_ORACLE)
    assert {c.name for c in report.checks if not c.passed} == {"condition_at_change",
                                                                "condition_not_early"}
    assert report.check("condition_at_change").figures["lag"] == -1
    assert "before the first difference" in report.check("condition_at_change").detail
    assert report.check("condition_not_early").figures["holds_early"][0].startswith("witness")


def test_cd_condition_holding_after_the_change_shows_fails():
    task = load_task("hunters", "cd")          # wolves first move off-beat at frame 23
    late = _replace(task, hidden={"condition": "& changed (> clock 25)"})
    check = validate_task(late, NO_ORACLE).check("condition_at_change")
    assert not check.passed and check.figures["lag"] == 3
    assert check.figures["max_lag"] == 0 and "after the first difference" in check.detail


def test_cd_condition_that_never_holds_or_cannot_be_evaluated_fails():
    task = load_task("easel", "cd")
    never = validate_task(_replace(task, hidden={"condition": "> strokes 99"}), NO_ORACLE)
    assert "never holds" in never.check("condition_at_change").detail
    assert never.check("condition_not_early").passed
    broken = _replace(task, hidden={"condition": "& changed (> noSuchName 0)"})
    report = validate_task(broken, NO_ORACLE)
    assert {"condition_at_change", "condition_not_early"} <= _failed(broken)
    assert "noSuchName" in report.check("condition_not_early").detail
    assert report.check("no_crash").passed       # the programs are fine


def test_cd_task_without_a_condition_fails():
    task = _replace(load_task("warehouse", "cd"), hidden={"condition": None})
    report = validate_task(task, NO_ORACLE)
    names = {"condition_false_initially", "condition_at_change", "condition_not_early"}
    assert {c.name for c in report.checks if not c.passed and not c.skipped} == names
    assert all("no change condition" in report.check(n).detail for n in names)


def test_cd_trigger_that_never_fires_fails():
    task = load_task("warehouse", "cd")
    never = _replace(task, hidden={"trigger": "> pushes 1000"})
    assert {"trigger_fires", "change_observable"} <= _failed(never)


def test_cd_program_that_crashes_on_a_click_fails(monkeypatch):
    _patched_program(monkeypatch, "easel", "(on left (= tone", "(on (clicked) (= tone (/ 1 0)))\n  (on left (= tone")
    failed = _failed(load_task("easel", "cd"))
    assert "no_crash" in failed


def test_missing_cd_program_fails_without_a_traceback():
    task = _replace(load_task("easel", "cd"), hidden={"program": "changes/nowhere.sexp"})
    report = validate_task(task, NO_ORACLE)
    assert not report.passed
    assert "changes/nowhere.sexp" in report.check("modified_program_loads").detail


def test_stochastic_seed_check_reports_the_other_seed():
    task = load_task("hunters", "planning")
    check = validate_task(task, NO_ORACLE).check("seed")
    assert world_spec("hunters").stochastic and check.passed
    assert check.figures["other_seed_differs_at"] is not None


def test_cli_validate_json_and_table(capsys):
    assert main(["tasks", "validate", "--json", "--quick", "--processes", "1", "easel"]) == 0
    reports = json.loads(capsys.readouterr().out)
    assert [r["task"] for r in reports] == ["easel-mfp", "easel-cd", "easel-planning"]
    for r in reports:
        assert {"task", "world", "family", "passed", "checks"} <= set(r) and r["passed"]
        assert all({"name", "passed", "figures"} <= set(c) for c in r["checks"])
    assert main(["tasks", "validate", "--quick", "--processes", "2", "easel"]) == 0
    out = capsys.readouterr().out
    assert "easel-planning (planning): PASS" in out and "random_below_5pct" in out
    assert "3 tasks: 3 passed, 0 failed" in out


def test_cli_generate(tmp_path, capsys):
    assert main(["tasks", "generate", "easel", "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "easel-cd.json", "easel-mfp.json", "easel-planning.json"]
    assert main(["tasks", "generate", "easle"]) == 2   # a usage error, as run's

    assert "did you mean 'easel'" in capsys.readouterr().err


def test_validation_in_worker_processes_gives_the_same_reports_in_task_order():
    from llm_eval.tasks.validate import validate_in_processes

    tasks = all_tasks(["warehouse", "easel"])
    small = Effort(rollouts=20, random_answers=60, fuzz_runs=2, fuzz_steps=20, oracle=False,
                   click_sweep=False, condition_rollouts=2)
    here = [r.to_dict() for r in validate_in_processes(tasks, small, 1)]
    pooled = [r.to_dict() for r in validate_in_processes(tasks, small, 2)]
    assert [r["task"] for r in pooled] == [t.id for t in tasks]
    assert pooled == here and all(r["passed"] for r in here)


def test_a_goal_is_judged_on_the_masked_cells_only():
    """``same_at`` with ``masked_cells`` (what the random rollouts and the blind planner test
    every frame with) is ``same_on``: every masked cell equal, the others free."""
    import random

    from llm_eval.tasks.trajectory import masked_cells, same_at, same_on

    rng = random.Random(35)
    for _ in range(200):
        n = rng.randrange(1, 7)
        goal = [[rng.choice("ab") for _ in range(n)] for _ in range(n)]
        grid = [[rng.choice("ab") for _ in range(n)] for _ in range(n)]
        mask = [[rng.random() < 0.3 for _ in range(n)] for _ in range(n)]
        want = all(grid[y][x] == goal[y][x] for y in range(n) for x in range(n) if mask[y][x])
        assert same_at(grid, goal, masked_cells(mask)) is want
        assert same_on(grid, goal, mask) is want
    mask = [[False, True], [False, False]]
    assert masked_cells(mask) == ((1, 0),)
    assert same_at([["x", "b"], ["y", "z"]], [["a", "b"], ["a", "a"]], masked_cells(mask))
    assert not same_at([["a", "c"], ["a", "a"]], [["a", "b"], ["a", "a"]], masked_cells(mask))


def test_validation_starts_change_detection_and_redraws_then_planning_then_mfp(monkeypatch):
    """The units of work start longest first (``start_rank``): the change-detection tasks and
    the planning redraws, then planning, then MFP (which fill the cores' last gaps)."""
    from llm_eval import parallel
    from llm_eval.tasks import validate as V

    tasks = all_tasks(["beehive", "wildfire"])   # wildfire is stochastic: it has redraws
    seen: dict = {}

    def spy(function, items, processes, start_order=None, finished=None):
        seen["order"] = [(u[0], u[1].family) for u in sorted(items, key=start_order)]
        raise KeyboardInterrupt   # (nothing is validated)

    monkeypatch.setattr(parallel, "map_in_order", spy)
    with pytest.raises(KeyboardInterrupt):
        list(V.validate_in_processes(tasks, Effort(plan_redraws=2), 2))
    ranks = {("task", "cd"): 0, ("redraw", "planning"): 0, ("task", "planning"): 1,
             ("task", "mfp"): 2}
    assert [ranks[u] for u in seen["order"]] == sorted(ranks[u] for u in seen["order"])
    assert ("redraw", "planning") in seen["order"] and ("task", "mfp") in seen["order"]
    assert [V.start_rank(t) for t in sorted(tasks, key=V.start_rank)][::2] == [0, 1, 2]
