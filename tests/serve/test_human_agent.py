"""The human agent: actions handed over from another thread, in order, once each."""

from __future__ import annotations

import threading

import pytest

from llm_eval.agents import UnknownAgentError, make_agent
from llm_eval.agents.human import HumanAgent, HumanInputError
from llm_eval.tasks.store import load_task
from llm_eval.worldtest import run_episode


def _play_in_thread(agent, task):
    result = {}
    thread = threading.Thread(target=lambda: result.update(
        r=run_episode(task, agent, interaction_steps=20)), daemon=True)
    thread.start()
    return thread, result


def test_actions_given_from_another_thread_play_the_episode_in_order():
    task = load_task("gravity", "planning")
    agent = HumanAgent("human/t")
    thread, result = _play_in_thread(agent, task)
    for seq, action in enumerate(["left", "go-to-test", *task.hidden.witness]):
        observation, asking = agent.wait_turn(seq, 10)
        assert asking and observation is not None
        assert agent.give(seq, action) is True
    thread.join(10)
    agent.close()
    assert result["r"].score == 1.0
    assert [r.action for r in result["r"].records][:2] == ["left", "go-to-test"]


def test_a_repeat_is_harmless_and_anything_else_out_of_turn_is_refused():
    agent = HumanAgent("human/t")
    assert agent.give(0, "left") and agent.give(0, "left") is False
    with pytest.raises(HumanInputError, match="already 'left'"):
        agent.give(0, "right")
    with pytest.raises(HumanInputError, match="the next action is number 1"):
        agent.give(2, "up")
    agent.close()
    with pytest.raises(HumanInputError, match="ended"):
        agent.give(1, "up")


def test_recorded_actions_play_first_and_a_dead_recording_stops_the_episode():
    task = load_task("gravity", "planning")
    agent = HumanAgent("human/t", recorded=["left", "go-to-test"], live=False)
    result = run_episode(task, agent, interaction_steps=20)
    assert [r.action for r in result.records] == ["left", "go-to-test"]
    assert result.test.ended == "stopped"


def test_abandon_raises_the_given_error_in_the_waiting_episode():
    task = load_task("gravity", "planning")
    agent = HumanAgent("human/t")
    errors = []

    def play():
        try:
            run_episode(task, agent, interaction_steps=20)
        except RuntimeError as exc:
            errors.append(exc)

    thread = threading.Thread(target=play, daemon=True)
    thread.start()
    assert agent.wait_turn(0, 10)[1]
    agent.abandon(RuntimeError("gone"))
    thread.join(10)
    assert [str(e) for e in errors] == ["gone"]


def test_make_agent_refuses_a_person_and_points_to_serve():
    with pytest.raises(UnknownAgentError, match="llm-eval serve"):
        make_agent("human/alice", load_task("gravity", "planning"))


def test_a_sweep_accepts_participants_with_plain_names_only():
    from llm_eval.sweep.spec import SpecError, Sweep

    sweep = Sweep.from_data({"models": ["human/ann-1"], "worlds": ["gravity"]})
    [job, *_] = sweep.expand()
    assert "prompt" not in job.settings and job.provider == "human"
    with pytest.raises(SpecError, match="participant"):
        Sweep.from_data({"models": ["human/<b>"], "worlds": ["gravity"]})
