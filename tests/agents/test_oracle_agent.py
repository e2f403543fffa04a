"""The oracle: MFP by simulation, CD by the task's condition (lock-step comparison for a task
without one), planning by search; it scores 1 on every shipped task."""

from __future__ import annotations

import threading

import pytest
import worldtest_tasks as W
from tiers import CORE_WORLDS, per_task

from llm_eval.agents import (
    OracleAgent,
    SearchLimits,
    cd_change_frame,
    goal_distance,
    mfp_answer,
    search_plan,
)
from llm_eval.agents.oracle import ChangeSearch
from llm_eval.autumn import Frame
from llm_eval.tasks.store import all_tasks
from llm_eval.worlds import make_world
from llm_eval.worldtest import goal_cells, goal_reached, run_episode


@pytest.mark.parametrize("answer", [0, 3, 5])
def test_mfp_answer_is_found_by_simulation(answer):
    assert mfp_answer(W.mfp_task(answer)) == (answer, 0)


def test_cd_change_frame_is_the_first_divergence(tmp_path):
    root = W.write_cd_program(tmp_path)
    change, played = cd_change_frame(W.cd_task(), 10, root)
    assert change == 3 and played == W.CD_WITNESS


def test_cd_oracle_declares_no_earlier_than_allowed(tmp_path):
    # a change visible at frame 1 (any left walks right from the start): the oracle must
    # still wait for the third step before declaring, and submit frame 1
    root = tmp_path
    (root / "changes").mkdir()
    (root / "changes" / "warehouse.sexp").write_text(W.modified_program(), encoding="utf-8")
    task = W.cd_task(condition="== (.. (.. pusher origin) x) 2")
    task = task.model_copy(update={"hidden": task.hidden.model_copy(
        update={"trigger": "true", "witness": ["left", "down"]})})
    agent = OracleAgent(task, programs_root=root)
    result = run_episode(task, agent, programs_root=root)
    test_actions = [r.action for r in result.records if r.phase == "cd"]
    assert test_actions == ["left", "down", "noop", "declare", "submit 1"]
    assert result.raw_reward == 1.0      # T = 1: the left walked right at once


def test_cd_oracle_submits_the_frame_where_the_condition_first_holds(tmp_path):
    # frames differ from the original from frame 3 (the left walks right and pushes), but the
    # condition (the pusher at x = 4) first holds at frame 6: the oracle submits 6, the T of
    # the condition; submitting the first difference would be a false alarm (3 < T - 1)
    root = W.write_cd_program(tmp_path)
    task = W.cd_task(condition="== (.. (.. pusher origin) x) 4")
    witness = ["down", "right", "left", "noop", "noop", "left"]
    task = task.model_copy(update={"hidden": task.hidden.model_copy(
        update={"witness": witness})})
    assert cd_change_frame(task, 10, root)[0] == 3
    agent = OracleAgent(task, programs_root=root)
    result = run_episode(task, agent, programs_root=root)
    test_actions = [r.action for r in result.records if r.phase == "cd"]
    assert test_actions == [*witness, "declare", "submit 6"]
    assert result.raw_reward == 1.0 and result.score == 1.0


def test_cd_oracle_never_declares_without_a_difference(tmp_path):
    root = tmp_path
    (root / "changes").mkdir()
    (root / "changes" / "warehouse.sexp").write_text(W.modified_program(), encoding="utf-8")
    task = W.cd_task(test_steps=6, condition="> pushes 99")     # never within reach
    task = task.model_copy(update={"hidden": task.hidden.model_copy(
        update={"witness": ["noop"]})})
    # the change search gives up as it would at its default 400 states, sooner
    agent = OracleAgent(task, programs_root=root, change=ChangeSearch(max_expanded=30))
    result = run_episode(task, agent, programs_root=root)
    assert result.raw_reward == 0.0 and "no change found" in agent.notes[0]
    assert "declare" not in [r.action for r in result.records]


def test_search_finds_a_plan_and_leaves_the_world_where_it_was():
    task = W.planning_task()
    world = make_world("warehouse", seed=W.SEED)
    start = world.reset()[0]
    result = search_plan(world, task.public.goal, task.public.mask, task.public.horizon)
    assert result.found and len(result.plan) <= task.public.horizon
    assert world.frame == start and world.steps == 0
    for action in result.plan:
        frame = world.step(action)[0]
    assert goal_reached(frame, task.public.goal, goal_cells(task.public.mask))


def test_search_respects_the_horizon_and_reports_failure():
    task = W.planning_task()
    world = make_world("warehouse", seed=W.SEED)
    world.reset()
    assert not search_plan(world, task.public.goal, task.public.mask, 2).found
    impossible = [["red"] * 7 for _ in range(7)]
    result = search_plan(world, impossible, [[True] * 7] * 7, 5,
                         SearchLimits(max_expanded=50))
    assert not result.found and result.expanded <= 51


class _CpuHog:
    """A busy thread competing for the search's core (and the GIL) while it runs."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._spin, daemon=True)

    def _spin(self) -> None:
        while not self.stop.is_set():
            sum(range(1000))

    def __enter__(self) -> "_CpuHog":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join()


def test_search_stops_on_states_expanded_whatever_the_load():
    """The budget is a count: a tiny one ends the search at the same state, loaded or not."""
    task = next(t for t in all_tasks() if t.id == "warehouse-planning")   # needs 449

    def search():
        world = make_world("warehouse", seed=task.seed)
        world.reset()
        return search_plan(world, task.public.goal, task.public.mask, task.public.horizon,
                           SearchLimits(max_expanded=25))
    quiet = search()
    with _CpuHog():
        loaded = search()
    assert loaded == quiet
    assert not quiet.found and quiet.expanded == 25


def test_oracle_plan_under_a_tight_budget_is_the_same_whatever_the_load():
    task = next(t for t in all_tasks() if t.id == "easel-planning")

    def play():
        agent = OracleAgent(task, limits=SearchLimits(max_expanded=30))
        result = run_episode(task, agent)
        return result.score, [r.action for r in result.records], agent.search
    quiet = play()
    with _CpuHog():
        loaded = play()
    assert loaded == quiet and quiet[0] == 1.0


def test_oracle_quits_when_no_plan_exists():
    task = W.planning_task(horizon=2)
    agent = OracleAgent(task)
    result = run_episode(task, agent)
    assert result.score == 0.0 and result.records[-1].action == "quit"
    assert "no plan found" in agent.notes[0]


def test_goal_distance():
    frame = Frame((("black", "white", "black"), ("black",) * 3, ("black",) * 3), "black")
    goal = (("black",) * 3, ("black",) * 3, ("black", "black", "white"))
    assert goal_distance(frame, goal, [(0, 0)]) == 0
    assert goal_distance(frame, goal, [(2, 2)]) == 3          # white is 3 steps away
    assert goal_distance(frame, (("red",) * 3,) * 3, [(0, 0), (1, 1)]) == 12   # absent: 2N each


SHIPPED = all_tasks()


# The oracle agent's episode on the core worlds' tasks, here in the default tier; on every
# other shipped task the slow tier's full validation runs the very same episode (its
# ``oracle_solves``/``oracle_answers``/``oracle_detects`` check: tests/tasks/
# test_task_validate.py), so it is not played twice.
CORE_TASKS = [t for t in SHIPPED if t.world in CORE_WORLDS]


@pytest.mark.parametrize("task", per_task(t for t in CORE_TASKS if t.family == "planning"))
def test_oracle_solves_every_shipped_planning_task(task):
    agent = OracleAgent(task)
    result = run_episode(task, agent)
    assert result.score == 1.0, agent.notes


@pytest.mark.parametrize("task", per_task(t for t in CORE_TASKS if t.family != "planning"))
def test_oracle_on_shipped_mfp_and_cd_tasks(task):
    agent = OracleAgent(task)
    result = run_episode(task, agent)
    assert result.score == 1.0, agent.notes
