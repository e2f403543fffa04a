"""The simulator agent: knows the program, looks 6 actions ahead. It is deterministic, solves
tasks within its depth under both protocols, fails a long plan the oracle finds, never
declares a change it has not seen, and is a local agent of sweeps."""

from __future__ import annotations

import random

import pytest
import worldtest_tasks as W

from llm_eval.agents import Lookahead, SimulatorAgent, make_agent
from llm_eval.agents.simulator import PUBLISHED_DEPTH, lookahead
from llm_eval.sweep import Sweep
from llm_eval.tasks.store import load_task
from llm_eval.worlds import make_world
from llm_eval.worldtest import run_episode


def _test_actions(result, phase):
    return [r.action for r in result.records if r.phase == phase]


def test_it_looks_six_actions_ahead_by_default():
    assert Lookahead().depth == PUBLISHED_DEPTH == 6
    assert isinstance(make_agent("simulator", W.planning_task()), SimulatorAgent)


def test_lookahead_finds_the_shortest_path_and_restores_the_world():
    world = make_world("warehouse", seed=W.SEED)
    start, _ = world.reset()
    task = W.planning_task()
    cells = [(x, y) for y, row in enumerate(task.public.mask) for x, m in enumerate(row) if m]
    goal = task.public.goal

    def test(world, frame):
        return all(frame.grid[y][x] == goal[y][x] for x, y in cells)

    result = lookahead(world, 6, 10_000, lambda frame: ("left", "right", "up", "down", "noop"),
                       test, lambda frame, key, path: (len(path),))
    assert result.found == tuple(W.PLANNING_WITNESS)
    assert world.frame == start
    shallow = lookahead(world, 2, 10_000, lambda frame: ("left", "right", "up", "down"),
                        test, lambda frame, key, path: (len(path),))
    assert shallow.found is None and shallow.best is not None and len(shallow.best) == 1


def test_planning_within_depth_is_solved_and_deterministic():
    task = W.planning_task()
    runs = [run_episode(task, SimulatorAgent(task)) for _ in range(2)]
    assert [r.score for r in runs] == [1.0, 1.0]
    assert _test_actions(runs[0], "planning") == _test_actions(runs[1], "planning") \
        == W.PLANNING_WITNESS


def test_a_plan_longer_than_its_lookahead_fails():
    """warehouse-planning needs 19 actions (two crates onto their pads); the oracle solves it,
    the simulator's greedy receding horizon does not (a small state cap keeps this fast)."""
    task = load_task("warehouse", "planning")
    assert len(task.hidden.witness) > 3 * PUBLISHED_DEPTH
    agent = SimulatorAgent(task, limits=Lookahead(max_states=150))
    result = run_episode(task, agent)
    assert result.score == 0.0 and result.test.steps == task.public.horizon
    assert agent.searches > 1 and "quit" not in _test_actions(result, "planning")


def test_cd_change_within_depth_is_found_and_submitted(tmp_path):
    root = W.write_cd_program(tmp_path)
    task = W.cd_task()
    agent = SimulatorAgent(task, programs_root=root)
    result = run_episode(task, agent, programs_root=root)
    actions = _test_actions(result, "cd")
    assert actions[-2:] == ["declare", f"submit {len(actions) - 2}"]
    assert result.raw_reward == 1.0, (actions, agent.notes)


def test_cd_without_a_reachable_change_never_declares(tmp_path):
    root = W.write_cd_program(tmp_path)
    task = W.cd_task(test_steps=8, condition="> pushes 99")
    agent = SimulatorAgent(task, programs_root=root, limits=Lookahead(max_states=200))
    result = run_episode(task, agent, programs_root=root)
    assert result.raw_reward == 0.0
    assert "declare" not in _test_actions(result, "cd")


@pytest.mark.parametrize("protocol", ["worldtest", "autumnbench"])
def test_mfp_is_answered_by_simulation(protocol):
    task = W.mfp_task(3)
    result = run_episode(task, SimulatorAgent(task), protocol=protocol)
    assert result.score == 1.0


def test_it_plays_the_autumnbench_protocol(tmp_path):
    task = W.planning_task()
    result = run_episode(task, SimulatorAgent(task), protocol="autumnbench")
    assert result.score == 1.0
    assert _test_actions(result, "planning") == W.PLANNING_WITNESS
    root = W.write_cd_program(tmp_path)
    cd = W.cd_task()
    agent = SimulatorAgent(cd, programs_root=root)
    result = run_episode(cd, agent, protocol="autumnbench", programs_root=root)
    assert _test_actions(result, "cd")[-2:] == ["I found the change!", "Submit choice"]
    assert result.raw_reward == 1.0, agent.notes


def test_it_is_a_local_agent_of_sweeps():
    jobs = Sweep.from_data({"models": ["simulator"], "worlds": ["warehouse"],
                            "families": ["mfp"], "prompts": ["default", "reflective"]}).expand()
    assert len(jobs) == 1 and "prompt" not in jobs[0].settings


# -- it knows the program and the state, not the dice (docs/suite-v2.md) ---------------------
def test_mfp_answer_is_the_favourite_of_its_own_sampled_futures_not_the_truth():
    """rain-mfp (suite v1): redrawn from the last shown frame, the final patch is one
    distractor in most futures and the truth in few; an agent without the dice picks the
    distractor, and does so on every run."""
    from llm_eval.tasks import dice

    task = load_task("rain", "mfp", "v1")      # v2 rebuilt it (docs/suite-v2.md)
    d = dice.mfp_distribution(task, dice.draw_states(5, 200), task.hidden.answer)
    favourite = d.most_frequent()
    assert favourite != task.hidden.answer and d.counts[favourite] > 2 * d.truth   # premise
    answers = [SimulatorAgent(task).mfp_answer() for _ in range(2)]
    assert answers == [favourite, favourite]
    assert run_episode(task, SimulatorAgent(task)).score == 0.0


def test_mfp_in_a_deterministic_world_is_still_answered():
    task = load_task("warehouse", "mfp")
    assert SimulatorAgent(task).mfp_answer() == task.hidden.answer


def test_searches_run_on_its_own_draws_and_leave_the_real_state(monkeypatch):
    from llm_eval.agents import simulator

    task = load_task("wander", "planning")
    world = make_world("wander", seed=task.seed)
    world.reset()
    real_key = world.state_key()
    drawn = []
    real_redraw = simulator.redraw

    def recording(w, state):
        drawn.append(state)
        real_redraw(w, state)

    monkeypatch.setattr(simulator, "redraw", recording)
    planner = simulator.Planner(world, Lookahead(max_states=200), random.Random(3))
    cells = tuple((x, y) for y, row in enumerate(task.public.mask) for x, m in enumerate(row)
                  if m)
    planner.search(3, cells, lambda w, f: False, lambda f, k, p: (len(p),))
    assert len(drawn) == 1 and drawn[0] != real_key[0]
    assert world.state_key() == real_key          # the real draws are untouched
    assert planner.plan and all(len(g) == 5 for _, g in planner.plan)
    # a frame other than the sampled one drops the rest of the plan
    action, _ = planner.plan[0]
    planner.plan[0] = (action, [["nothing"] * 5] * 5)
    planner.send()
    assert not planner.plan


def test_a_stochastic_planning_episode_is_deterministic():
    task = load_task("wander", "planning")
    runs = [run_episode(task, SimulatorAgent(task, limits=Lookahead(max_states=300)))
            for _ in range(2)]
    assert _test_actions(runs[0], "planning") == _test_actions(runs[1], "planning")
    assert runs[0].score == runs[1].score
