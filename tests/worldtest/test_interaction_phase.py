"""The interaction phase: world actions, reset, go-to-test, budget, invalid actions."""

from __future__ import annotations

import pytest

from llm_eval.worlds import make_world
from llm_eval.worldtest import InteractionPhase, PhaseStateError


def phase(budget: int = 5, **kwargs) -> InteractionPhase:
    return InteractionPhase(make_world("warehouse", seed=3), budget=budget,
                            **kwargs)


def test_first_observation():
    obs = phase().reset()
    assert obs.phase == "interaction" and obs.family is None   # the test is not revealed
    assert obs.step == 0 and obs.budget_left == 5 and obs.invalid is None
    assert obs.valid_actions[-2:] == ("reset", "go-to-test")
    assert obs.valid_actions[0] == "click X Y (0 <= X <= 6, 0 <= Y <= 6)"
    assert obs.frame.grid[1][1] == "white"          # the pusher


def test_world_actions_tick_and_use_budget():
    p = phase()
    p.reset()
    obs, reward, terminated, truncated, info = p.step("down")
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["valid"] and info["kind"] == "down" and info["world_step"] == 1
    assert obs.frame.grid[2][1] == "white" and obs.budget_left == 4 and obs.step == 1
    p.step("noop")                                  # noop advances time
    assert p.world.steps == 2


def test_invalid_actions_are_reported_counted_and_do_not_tick():
    p = phase()
    before = p.reset().frame
    obs, _, terminated, truncated, info = p.step("jump")
    assert not info["valid"] and "unknown action 'jump'" in info["invalid_action"]
    assert obs.invalid == info["invalid_action"] and obs.frame == before
    assert (terminated, truncated) == (False, False)
    assert p.world.steps == 0 and obs.budget_left == 5 and p.invalid_actions == 1
    p.step("click 7 7")
    p.step(None)
    assert p.invalid_actions == 3
    obs, *_ = p.step("left")
    assert obs.invalid is None                      # the message is only for the next step


def test_reset_counts_against_the_budget_and_starts_a_new_run():
    p = phase()
    p.reset()
    p.step("down")
    obs, *_ , info = p.step("reset")
    assert obs.frame.grid[1][1] == "white" and info["world_step"] == 0
    assert p.resets == 1 and obs.budget_left == 3
    p.step("right")
    assert p.runs == [["down"], ["right"]]
    assert p.counts == {"down": 1, "reset": 1, "right": 1}


def test_budget_truncates_the_phase():
    p = phase(budget=2)
    p.reset()
    assert p.step("noop")[3] is False
    obs, _, terminated, truncated, _ = p.step("noop")
    assert truncated and not terminated and p.done and p.ended == "truncated"
    assert "budget" in obs.message
    with pytest.raises(PhaseStateError):
        p.step("noop")


def test_go_to_test_terminates():
    p = phase()
    p.reset()
    _, _, terminated, truncated, _ = p.step("go-to-test")
    assert terminated and not truncated and p.ended == "terminated"


def test_consecutive_invalid_actions_truncate():
    p = phase(max_consecutive_invalid=3)
    p.reset()
    p.step("x")
    p.step("x")
    p.step("left")                                  # a valid action resets the run of errors
    p.step("x")
    p.step("x")
    obs, _, _, truncated, _ = p.step("x")
    assert truncated and p.done and "3 invalid actions in a row" in obs.message
    assert p.invalid_actions == 5


def test_coverage_is_the_union_over_runs():
    p = phase(budget=20)
    p.reset()
    p.step("click 1 1")                             # the reset-by-click rule fires
    fired_before = p.coverage[0]
    p.step("reset")
    p.step("left")
    covered, total = p.coverage
    assert covered > fired_before and total == len(p.clause_lines)
    assert covered >= p.world.coverage().covered


def test_step_before_reset_and_double_reset_are_errors():
    p = phase()
    with pytest.raises(PhaseStateError, match="call reset"):
        p.step("left")
    p.reset()
    with pytest.raises(PhaseStateError, match="already started"):
        p.reset()
