"""The planning phase: success detection, quit, horizon."""

from __future__ import annotations

import pytest
import worldtest_tasks as W

from llm_eval.worlds import make_world
from llm_eval.worldtest import PlanningPhase, goal_reached


def phase(horizon: int = 8) -> PlanningPhase:
    task = W.planning_task(horizon)
    return PlanningPhase(make_world("warehouse", seed=W.SEED), goal=task.public.goal,
                         mask=task.public.mask, horizon=task.public.horizon)


def test_observation_shows_goal_mask_and_horizon():
    obs = phase().reset()
    assert obs.phase == "planning" and obs.budget_left == 8
    assert obs.planning.horizon == 8
    assert set(obs.planning.goal_cells) == set(W.PLANNING_CELLS)
    assert obs.valid_actions[-1] == "quit" and "reset" not in obs.valid_actions


def test_success_on_the_first_step_matching_every_masked_cell():
    p = phase()
    p.reset()
    for action in W.PLANNING_WITNESS[:-1]:
        _, reward, terminated, _, _ = p.step(action)
        assert (reward, terminated) == (0.0, False)
    _, reward, terminated, truncated, info = p.step(W.PLANNING_WITNESS[-1])
    assert (reward, terminated, truncated) == (1.0, True, False) and info["success"]
    assert p.success and p.success_step == 3 and p.score == 1.0


def test_quit_scores_zero():
    p = phase()
    p.reset()
    _, reward, terminated, _, _ = p.step("quit")
    assert (reward, terminated, p.score) == (0.0, True, 0.0)


def test_horizon_truncates():
    p = phase(horizon=2)
    p.reset()
    p.step("noop")
    _, reward, terminated, truncated, _ = p.step("noop")
    assert truncated and not terminated and reward == 0.0 and not p.success


def test_reset_and_invalid_actions_do_not_use_the_horizon():
    p = phase(horizon=3)
    p.reset()
    obs, *_, info = p.step("reset")
    assert not info["valid"] and "reset is not an action of this phase" in obs.invalid
    obs, *_ = p.step("click 9 0")
    assert obs.budget_left == 3 and p.invalid_actions == 2


def test_goal_reached_compares_only_masked_cells():
    frame = make_world("warehouse", seed=3).reset()[0]
    goal = [["red"] * 7 for _ in range(7)]
    goal[1][1] = "white"
    assert goal_reached(frame, goal, [(1, 1)])
    assert not goal_reached(frame, goal, [(1, 1), (0, 0)])


def test_goal_of_another_size_is_refused():
    with pytest.raises(ValueError, match="grid"):
        PlanningPhase(make_world("warehouse", seed=3), goal=[["black"] * 3] * 3,
                      mask=[[True] * 3] * 3, horizon=3).reset()
