"""Suite v2 (docs/suite-v2.md): the v1 tasks that are not fair under redrawn dice, rebuilt in
``llm_eval/tasks/data/v2/`` under the same ids. Its manifest loads and every file matches; v1
still loads byte-identically with its old digest; v2 is the default suite (loading without a
suite, ``run`` without ``--suite``, generation); a job of suite v1 still plays v1's file; each
rebuilt task passes the dice check its v1 version fails. That v1's versions fail exactly the
checks they are known to fail (V1_DICE_FAILURES) is in tests/tasks/
test_validation_reports_unchanged.py: the recorded reports, and today's equal to them."""

from __future__ import annotations

import dataclasses
import hashlib

import pytest
from tiers import slow, tier

from llm_eval.cli import main
from llm_eval.suites import load_suite
from llm_eval.sweep import Sweep
from llm_eval.sweep.job import job_task
from llm_eval.tasks import all_tasks, dump_task, load_task
from llm_eval.tasks.dice import blind_plan_succeeds
from llm_eval.tasks.generate import default_data_dir, generate_task
from llm_eval.tasks.specs import SUITE_CHANGES
from llm_eval.tasks.store import DEFAULT_SUITE, task_relpath
from llm_eval.tasks.validate import (
    FULL,
    QUICK,
    _plan_states,
    _planning_dice_check,
    check_cd_change_dice,
    check_mfp_dice,
)

V1_DIGEST = "cf072c5a477a05c02efd9eeb5e2b67e4d5ce70247694dc4fde140bf51d9ff9c1"

# suite v1's tasks that fail a check under redrawn dice (docs/suite-v2.md, "Suite v1 against
# the checks"), each rebuilt by suite v2
V1_DICE_FAILURES = {
    "truth_favoured_by_dice": {"beehive-mfp", "crystals-mfp", "hunters-mfp", "kitchen-mfp",
                               "rain-mfp", "sparks-mfp", "wander-mfp"},
    "change_beyond_chance": {"beehive-cd", "garden-cd"},
}
# reachable_without_dice (moles 11 of 12 redraws; ecosystem, slingshot and kitchen missed
# their 2nd or 3rd, wildfire its 8th, sandbox its 9th; beehive, snake, shatter, invaders and
# seeds their 1st): a minute or more a task, so v1's are not replayed here
V1_PLANNING_FAILURES = {"beehive-planning", "ecosystem-planning", "invaders-planning",
                        "kitchen-planning", "moles-planning", "sandbox-planning",
                        "seeds-planning", "shatter-planning", "slingshot-planning",
                        "snake-planning", "wildfire-planning"}
REBUILT = sorted(set().union(*V1_DICE_FAILURES.values(), V1_PLANNING_FAILURES))
DICE_CHECKS = {"mfp": check_mfp_dice, "cd": check_cd_change_dice}
# fewer MFP futures and CD redraws than full validation: enough to tell v1 from v2 here, but
# for beehive-cd, whose v1 shows its frame after the change in 4 of 200 redraws (slow tier)
LIGHT = dataclasses.replace(QUICK, mfp_draws=100, cd_draws=60)
EFFORT = {"beehive-cd": dataclasses.replace(LIGHT, cd_draws=FULL.cd_draws)}


def _split(task_id: str) -> tuple[str, str]:
    world, _, family = task_id.rpartition("-")
    return world, family


def _sha256(task) -> str:
    return hashlib.sha256(dump_task(task).encode()).hexdigest()


def test_v2_rebuilds_exactly_the_unfair_v1_tasks():
    rebuilt = sorted(f"{w}-{f}" for w, fams in SUITE_CHANGES["v2"].items() for f in fams)
    assert rebuilt == REBUILT


def test_v2_manifest_loads_and_every_file_matches(capsys):
    """A v2 task file changed without re-freezing fails here: ``llm-eval suites freeze
    v2`` (after ``llm-eval tasks validate`` passes)."""
    v2, v1 = load_suite("v2"), load_suite("v1")
    assert v2.digest == v2.computed_digest() != v1.digest
    assert [t.id for t in v2.tasks] == [t.id for t in v1.tasks]
    stale = {t.id: [f.path for f, _ in v2.mismatches(t.id)] for t in v2.tasks}
    assert {k: v for k, v in stale.items() if v} == {}
    assert main(["suites", "check", "v2"]) == 0
    assert "every file matches" in capsys.readouterr().out
    for entry, old in zip(v2.tasks, v1.tasks):
        task_file = entry.files[0]
        assert task_file.role == "task"
        if entry.id in REBUILT:
            assert task_file.path == f"tasks/data/v2/{entry.id}.json"
            assert task_file.sha256 != old.files[0].sha256
        else:                     # shared with v1: the same file, the same bytes
            assert entry.files == old.files


def test_v1_still_loads_with_its_old_digest():
    v1 = load_suite("v1")
    assert v1.digest == V1_DIGEST
    assert not any(v1.mismatches(t.id) for t in v1.tasks)
    for task_id in REBUILT:
        world, family = _split(task_id)
        old = load_task(world, family, "v1")
        assert task_relpath(world, family, "v1") == f"tasks/data/{task_id}.json"
        recorded = v1.task(task_id).files[0].sha256
        assert hashlib.sha256(dump_task(old).encode()).hexdigest() == recorded
        assert dump_task(old) != dump_task(load_task(world, family, "v2"))


def test_the_default_suite_is_v2():
    assert DEFAULT_SUITE == "v2"
    assert [t.id for t in all_tasks()] == [t.id for t in all_tasks(suite="v2")]
    for task_id in ("rain-mfp", "garden-cd", "moles-planning"):
        world, family = _split(task_id)
        assert load_task(world, family) == load_task(world, family, "v2")
        assert load_task(world, family) != load_task(world, family, "v1")
    # a run without --suite plays v2's files; a run of suite v1 plays v1's, job by job
    for suite in (None, "v1", "v2"):
        data = {"models": ["random"], "worlds": ["rain"], "families": ["mfp"]}
        if suite is not None:
            data["suite"] = suite
        job = next(iter(Sweep.from_data(data).expand()))
        expected = load_task("rain", "mfp", suite)
        assert job.settings["task_digest"] == _digest(expected)
        assert job_task(job).public.mask == expected.public.mask


def _digest(task) -> str:
    from llm_eval.sweep.spec import _digest as spec_digest

    return spec_digest(dump_task(task))


def test_generation_builds_each_suite_its_own_files(tmp_path):
    """``tasks generate`` builds a task as a suite does: v1's specs give v1's file byte for
    byte, v2's give v2's, written to the suite's folder."""
    for suite in ("v1", "v2"):
        assert dump_task(generate_task("garden", "cd", suite)) == \
            dump_task(load_task("garden", "cd", suite))
    assert (default_data_dir("v2") / "garden-cd.json").is_file()
    assert not (default_data_dir("v2") / "garden-mfp.json").exists()   # shared with v1


@pytest.mark.parametrize("task_id", [pytest.param(t, marks=tier(_split(t)[0]))
                                     for t in REBUILT if _split(t)[1] in DICE_CHECKS])
def test_a_rebuilt_task_passes_the_dice_check_its_v1_version_fails(task_id):
    world, family = _split(task_id)
    check = DICE_CHECKS[family]
    effort = EFFORT.get(task_id, LIGHT)
    old = check(load_task(world, family, "v1"), effort)
    new = check(load_task(world, family, "v2"), effort)
    assert not old.passed and new.passed, (old.figures, new.figures)


@slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("task_id,redraw", [
    pytest.param(t, i, id=f"{t}-redraw{i}") for t in sorted(V1_PLANNING_FAILURES)
    for i in range(FULL.plan_redraws)])
def test_a_rebuilt_planning_goal_is_reached_without_the_dice(task_id, redraw):
    """v2's planning goals that replaced goals a planner without the dice missed: the blind
    planner reaches each in every one of ``reachable_without_dice``'s 12 redraws (which is what
    that check passes on: 11 of 12 fail it). One test a redraw, so that the workers share a
    task's redraws (invaders' took 215 s as one test, a minute or two for moles)."""
    world, family = _split(task_id)
    task = load_task(world, family, "v2")
    state = _plan_states(task, FULL.plan_redraws)[redraw]
    reached, step, searches = blind_plan_succeeds(task, state)
    assert reached, (step, searches)


def test_the_planning_check_passes_on_12_of_12_redraws_only():
    """What the per-redraw test above rests on."""
    reached = [(True, 5, 1)] * FULL.plan_redraws
    assert _planning_dice_check(FULL.plan_redraws, reached).passed
    assert not _planning_dice_check(FULL.plan_redraws, [(False, 9, 3), *reached[1:]]).passed


def test_a_manifest_frozen_before_a_task_was_rebuilt_is_refused(tmp_path):
    """A suite folder's version that appeared after the freeze is what the suite would play:
    the manifest, which records the base file, no longer matches it."""
    from llm_eval.suites import SuiteMismatchError
    from llm_eval.suites.manifest import Suite

    v1, v2 = load_suite("v1"), load_suite("v2")
    stale = [v1.task("rain-mfp") if t.id == "rain-mfp" else t for t in v2.tasks]
    suite = Suite(name="v2", tasks=tuple(stale))
    suite = suite.model_copy(update={"digest": suite.computed_digest()})
    path = tmp_path / "v2.json"
    path.write_text(suite.to_json())
    loaded = load_suite(str(path))
    assert [f.path for f, _ in loaded.mismatches("rain-mfp")] == ["tasks/data/rain-mfp.json"]
    with pytest.raises(SuiteMismatchError, match="task rain-mfp: its task file"):
        loaded.verify("rain-mfp")
    assert loaded.mismatches("warehouse-mfp") == []
