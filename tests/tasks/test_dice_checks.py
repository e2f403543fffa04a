"""Validation under redrawn dice (docs/suite-v2.md): each check fails on a task built so that
its answer depends on the draws, and passes on one whose answer follows from the rules."""

from __future__ import annotations

from collections import Counter
from importlib import resources

import pytest
from tiers import slow

from llm_eval.tasks import dice, load_task, trajectory
from llm_eval.tasks import validate as V
from llm_eval.tasks.cd import compare
from llm_eval.tasks.models import PlanningHidden, PlanningPublic, PlanningTask
from llm_eval.tasks.trajectory import make, play

CD_DRAWS = V.Effort(cd_draws=60)


def _replace(task, **public_or_hidden):
    half, values = next(iter(public_or_hidden.items()))
    part = getattr(task, half).model_copy(update=values)
    return task.model_copy(update={half: part})


# -- the dice themselves --------------------------------------------------------------------
def test_a_redraw_changes_only_the_draws_to_come():
    world = make("wander", 5)
    start = world.snapshot()
    runs = []
    for state in dice.draw_states(1, 6):
        world.restore(start)
        dice.redraw(world, state)
        runs.append(tuple(str(g) for g in play(world, ["noop"] * 8)))
    assert len({r[0] for r in runs}) == 1          # the state shown is the same
    assert len(set(runs)) > 1                      # the futures differ
    assert dice.draw_states(9, 4) == dice.draw_states(9, 4)
    assert all(0 < s < dice.RNG_MODULUS for s in dice.draw_states(3, 100))


def test_bounds_are_one_sided_and_tighten_with_draws():
    assert dice.lower_bound(100, 400, 3.09) < 0.25 < dice.upper_bound(100, 400, 3.09)
    assert dice.lower_bound(400, 400, 3.09) > 0.97
    assert dice.upper_bound(0, 200, 3.09) < 0.05
    assert dice.lower_bound(12, 12, V.PLAN_Z) >= V.PLAN_FLOOR > dice.lower_bound(11, 12,
                                                                                   V.PLAN_Z)


# -- MFP ------------------------------------------------------------------------------------
def test_mfp_whose_truth_every_redraw_produces_passes():
    check = V.check_mfp_dice(load_task("dig", "mfp"), V.FULL)
    assert check.passed, check
    assert check.figures["truth"] == 1.0 and check.figures["truth_lower"] > 0.97


def test_mfp_whose_answer_is_a_coin_flip_fails():
    """wander's particle random-walks: give the task, beside the truth, the final patch the
    redrawn futures produce most often among the others; the truth is then not clearly
    ahead of it (suite v1's wander-mfp, whose truth is rare; v2 rebuilt it)."""
    task = load_task("wander", "mfp", "v1")
    truth = task.public.options[task.hidden.answer]
    samples = dice.mfp_patches(task, dice.draw_states(77, 400))
    counts = Counter(str(s) for s in samples)
    rival_text = max((k for k in counts if k != str(truth)), key=counts.get)
    rival = next(s for s in samples if str(s) == rival_text)
    assert counts[rival_text] * 2 > counts[str(truth)]      # the premise: close to a coin flip
    options = list(task.public.options)
    slot = next(i for i in range(6) if i != task.hidden.answer)
    options[slot] = rival
    coin = _replace(task, public={"options": options})
    check = V.check_mfp_dice(coin, V.FULL)
    assert not check.passed and "clearly favoured" in check.detail or \
        "more often" in check.detail, check
    assert check.figures["counts"][slot] > 0


def test_mfp_of_a_deterministic_world_passes_without_draws():
    check = V.check_mfp_dice(load_task("warehouse", "mfp"), V.FULL)
    assert check.passed and check.figures == {"stochastic": False}


# -- CD -------------------------------------------------------------------------------------
NOISE_RULE = """
  (= changed false)
  (on SpecialConditionTriggered (= changed true))
  (on changed (= dot (stepTo (prev dot)
                             (uniformChoice (list (uniformChoice steps) (uniformChoice steps)))))))
"""


@pytest.fixture
def noisy_wander(monkeypatch):
    """wander's CD task with a "change" that only redraws the particle's random step (the
    original rule with other dice): whatever it shows, the original could show too."""
    original = (resources.files("llm_eval.worlds") / "programs" / "wander.sexp").read_text(
        encoding="utf-8").rstrip()
    assert original.endswith(")")
    noisy = original[:-1] + NOISE_RULE
    real = trajectory.changed_program_text
    monkeypatch.setattr(trajectory, "changed_program_text",
                        lambda program: noisy if program == "changes/noise.sexp"
                        else real(program))
    return _replace(load_task("wander", "cd"),
                    hidden={"program": "changes/noise.sexp", "trigger": "true",
                            "witness": ["noop"] * 12, "condition": "changed"})


def test_cd_change_indistinguishable_from_noise_fails(noisy_wander):
    c = compare(noisy_wander, noisy_wander.hidden.witness)
    assert c.first_difference is not None      # the premise: the frames do differ
    check = V.check_cd_change_dice(noisy_wander, CD_DRAWS)
    assert not check.passed, check
    assert sum(check.figures["produced"].values()) > 0


def test_cd_change_the_original_cannot_make_passes():
    check = V.check_cd_change_dice(load_task("crystals", "cd"), CD_DRAWS)
    assert check.passed, check
    assert set(check.figures["produced"].values()) == {0}


def test_cd_condition_that_chance_satisfies_fails():
    """A condition on wander's particle alone (at the left wall) holds on the original
    program under some draws: it names no change."""
    task = _replace(load_task("wander", "cd"),
                    hidden={"condition": "== (.. (.. dot origin) x) 0"})
    check = V.check_cd_condition_dice(task, CD_DRAWS)
    assert not check.passed and check.figures["holds"], check


def test_cd_condition_gated_by_the_change_passes():
    check = V.check_cd_condition_dice(load_task("wander", "cd"), CD_DRAWS)
    assert check.passed, check


# -- planning -------------------------------------------------------------------------------
def _planning(world: str, seed: int, witness: list[str], cells, horizon: int) -> PlanningTask:
    grids = play(make(world, seed), witness)
    size = len(grids[0])
    mask = [[(x, y) in cells for x in range(size)] for y in range(size)]
    return PlanningTask(id=f"{world}-planning", world=world, seed=seed,
                        public=PlanningPublic(goal=grids[-1], mask=mask, horizon=horizon),
                        hidden=PlanningHidden(witness=witness))


def test_planning_goal_reached_by_reacting_to_the_draws_passes():
    """Push wander's particle two cells right: the arrows move it whatever the dice say."""
    task = _planning("wander", 5, ["right", "right"], {(4, 2)}, 6)
    assert task.public.goal[2][4] == "yellow"
    check = V.check_planning_dice(task, V.FULL)
    assert check.passed, check
    assert check.figures["reached"] == V.FULL.plan_redraws


@slow        # the search's "wait" macro runs long in a dish that never stops growing
def test_planning_goal_reachable_only_with_known_draws_fails(monkeypatch):
    """crystals grow one random cell a tick: the goal is the whole dish after four ticks on
    the task's dice, which play that cannot know the draws does not reproduce in time
    (four actions cannot undo or redo four random growths)."""
    monkeypatch.setattr(dice, "PLAN_LIMITS_EXPANDED", 30)      # small searches: a fast test
    monkeypatch.setattr(dice, "PLAN_EPISODE_EXPANDED", 60)
    witness = ["noop"] * 4
    grids = play(make("crystals", 11), witness)
    assert grids[0] != grids[-1]                  # the premise: the dice grew the crystals
    task = _planning("crystals", 11, witness, {(x, y) for y in range(8) for x in range(8)}, 4)
    # with the task's own draws four noops reach the goal (the witness): only the dice differ
    assert V.check_witness_reaches_goal(task).passed
    check = V.check_planning_dice(task, V.Effort(plan_redraws=12))
    assert not check.passed, check
    assert check.figures["reached"] < 6


def test_planning_check_is_skipped_at_quick_effort_and_passes_deterministic_worlds():
    assert V.check_planning_dice(load_task("wander", "planning"), V.QUICK).skipped
    check = V.check_planning_dice(load_task("warehouse", "planning"), V.FULL)
    assert check.passed and check.figures == {"stochastic": False}


def test_validate_task_runs_the_dice_checks():
    names = {c.name for c in V.validate_task(load_task("crystals", "cd"),
                                              V.Effort(rollouts=10, random_answers=60,
                                                       fuzz_runs=1, fuzz_steps=10,
                                                       click_sweep=False, oracle=False,
                                                       condition_rollouts=1,
                                                       cd_draws=20)).checks}
    assert {"change_beyond_chance", "condition_needs_change"} <= names
