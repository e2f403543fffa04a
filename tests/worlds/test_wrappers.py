"""Budgets as wrappers: they set ``truncated`` on the last action and refuse to go further."""

from __future__ import annotations

import pytest
from world_programs import DOT, dot_grid

from llm_eval.worlds import ActionBudget, StepLimit, World, WorldStateError


def test_step_limit_truncates_each_episode() -> None:
    env = StepLimit(World(DOT), 2)
    _, info = env.reset()
    assert info["budget_left"] == 2
    assert env.step("right")[3] is False
    frame, _, terminated, truncated, info = env.step("right")
    assert (terminated, truncated, info["budget_left"]) == (False, True, 0)
    assert frame.grid == dot_grid(2, 1)
    with pytest.raises(WorldStateError, match="2 steps are used up"):
        env.step("noop")
    env.reset()  # a new episode has the full limit again
    assert env.step("noop")[4]["budget_left"] == 1


def test_invalid_actions_count_unless_told_otherwise() -> None:
    counted = StepLimit(World(DOT), 1)
    counted.reset()
    assert counted.step("dance")[3] is True
    free = StepLimit(World(DOT), 1, count_invalid=False)
    free.reset()
    assert free.step("dance")[3] is False and free.step("noop")[3] is True


def test_action_budget_spans_resets() -> None:
    env = ActionBudget(World(DOT), 3)
    env.reset()
    env.step("right")
    _, info = env.reset()
    assert info["budget_left"] == 2
    env.step("noop")
    assert env.step("noop")[3] is True and env.exhausted
    with pytest.raises(WorldStateError, match="budget of 3 actions is used up"):
        env.step("noop")


def test_action_budget_can_charge_resets() -> None:
    env = ActionBudget(World(DOT), 2, count_resets=True)
    env.reset()                       # the first reset is free
    env.step("noop")
    assert env.reset()[1]["budget_left"] == 0
    with pytest.raises(WorldStateError):
        env.reset()


def test_wrappers_stack_and_forward() -> None:
    world = World(DOT, name="dot", render_mode="compact")
    env = ActionBudget(StepLimit(world, 5), 2)
    env.reset(seed=4)
    assert env.unwrapped is world and world.unwrapped is world and env.seed == 4 and env.name == "dot"
    assert env.render().startswith("legend: ")
    assert env.step("left")[3] is False and env.step("left")[3] is True
    assert "ActionBudget(StepLimit(World('dot'" in repr(env)
    env.close()
    with pytest.raises(WorldStateError):
        world.reset()


@pytest.mark.parametrize("limit", [0, -1, 1.5, True])
def test_limits_must_be_positive_integers(limit: object) -> None:
    with pytest.raises(ValueError, match="must be a positive integer"):
        StepLimit(World(DOT), limit)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="must be a positive integer"):
        ActionBudget(World(DOT), limit)  # type: ignore[arg-type]
