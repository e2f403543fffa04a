"""The validation reports of suite v1 are the ones recorded before validation was made faster
(issue 35): tests/fixtures/validation_reports.json holds every check's verdict, figures and
detail of each task, as the validator of commit fcbec0d gave them (full effort, the planning
redraws excepted: they take hours of CPU over the suite; tests/tasks/test_dice_checks.py
checks them). Any change to what validation computes shows here as a differing task.

CI recomputes one task per world (``tiers.ci_share``: every world, family and check); the other
86 are marked ``exhaustive`` and run with ``python -m pytest -m slow``."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from test_v2_suite import V1_DICE_FAILURES
from tiers import ci_share, exhaustive, slow

from llm_eval.tasks.store import all_tasks, load_task
from llm_eval.tasks.validate import Effort, validate_task

RECORDED = json.loads((Path(__file__).resolve().parents[1] / "fixtures" /
                       "validation_reports.json").read_text())
EFFORT = Effort(**RECORDED["effort"])
CI_SHARE = ci_share(RECORDED["reports"])


def test_the_recording_covers_suite_v1_at_full_effort():
    """And what it records: v1's tasks pass every check but the dice checks its rebuilt tasks
    are known to fail (so v2, which keeps every other v1 file, passes them: the slow test
    below holds today's validator to the recording)."""
    import dataclasses

    from llm_eval.tasks.validate import FULL

    assert EFFORT == dataclasses.replace(FULL, plan_redraws=0)
    assert len(RECORDED["reports"]) >= 43 * 2
    assert all(r["checks"] for r in RECORDED["reports"].values())
    assert sorted(RECORDED["reports"]) == sorted(t.id for t in all_tasks(suite="v1"))
    failed = {task_id: {c["name"] for c in report["checks"]
                        if not (c["passed"] or c.get("skipped"))}
              for task_id, report in RECORDED["reports"].items()}
    assert failed == {task_id: {name for name, ids in V1_DICE_FAILURES.items()
                                if task_id in ids} for task_id in failed}


@slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("task_id", [
    pytest.param(t, marks=() if t in CI_SHARE else (exhaustive,))
    for t in sorted(RECORDED["reports"])])
def test_validation_report_is_the_recorded_one(task_id):
    world, _, family = task_id.rpartition("-")
    report = validate_task(load_task(world, family, "v1"), EFFORT).to_dict()
    assert report == RECORDED["reports"][task_id]


def test_ci_recomputes_every_world_family_and_check():
    """CI's share of the recomputation: one task per world, each family about a third of them,
    and every check the recording holds is among its tasks' checks."""
    assert len(CI_SHARE) == len({t.rpartition("-")[0] for t in RECORDED["reports"]}) == 43
    families = Counter(t.rpartition("-")[2] for t in CI_SHARE)
    assert set(families) == {"mfp", "cd", "planning"} and max(families.values()) <= 15
    checks = {c["name"] for r in RECORDED["reports"].values() for c in r["checks"]}
    assert checks == {c["name"] for t in CI_SHARE for c in RECORDED["reports"][t]["checks"]}
    assert ci_share(["a-cd", "b-cd", "b-mfp", "c-planning", "c-cd"]) == {"a-cd", "b-cd",
                                                                         "c-planning"}
