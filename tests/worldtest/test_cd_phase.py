"""The change-detection phase: play, declare after the third step, browse, submit; T is the
first frame of the current run whose state satisfies the task's condition."""

from __future__ import annotations

import pytest
import worldtest_tasks as W

from llm_eval.worldtest import CDPhase, PhaseStateError, TaskProgramError, modified_world


@pytest.fixture
def root(tmp_path):
    return W.write_cd_program(tmp_path)


def phase(root, budget: int = 20, condition: str = W.CD_CONDITION) -> CDPhase:
    task = W.cd_task(test_steps=budget, condition=condition)
    return CDPhase(modified_world(task, root), condition=task.hidden.condition, budget=budget,
                   declare_after=task.public.min_steps_before_declare)


def play(p: CDPhase, actions):
    out = None
    for action in actions:
        out = p.step(action)
        assert out[4]["valid"], out[4]
    return out


def test_declare_is_refused_before_the_third_step(root):
    p = phase(root)
    obs = p.reset()
    assert "declare" not in [f.kind for f in obs.actions] and obs.cd.run_steps == 0
    play(p, ["down", "right"])
    obs, *_, info = p.step("declare")
    assert not info["valid"] and "at least 3 steps (it has 2)" in obs.invalid
    obs, *_ = play(p, ["noop"])
    assert obs.actions[-1].kind == "declare"


def test_change_frame_is_the_first_frame_where_the_condition_holds(root):
    p = phase(root)
    p.reset()
    play(p, ["down", "right"])          # the push makes pushes = 1: the trigger holds from now
    assert p.change is None
    play(p, ["noop", "noop"])           # the trigger held, but nothing visible changed
    assert p.change is None
    play(p, ["left"])                   # left walks right and pushes again: pushes = 2
    assert p.change == 5
    play(p, ["left", "noop"])           # T stays the first frame where it held
    assert p.change == 5


def test_change_frame_is_the_first_frame_whatever_the_trigger(root):
    # a condition that holds from frame 2 on, before the trigger has held at all
    p = phase(root, condition="> (.. (.. pusher origin) y) 1")
    p.reset()
    play(p, ["noop", "down", "noop"])
    assert p.change == 2 and not p.world.interpreter.get_trigger_state()


def test_a_condition_holding_on_the_initial_state_is_an_invalid_task(root):
    p = phase(root, condition="== pushes 0")
    with pytest.raises(TaskProgramError, match="holds on the initial frame"):
        p.reset()


def test_reset_starts_a_new_run_and_finds_T_again(root):
    p = phase(root)
    p.reset()
    play(p, ["down", "right", "left", "reset"])
    assert p.change is None and p.run == 2 and p.run_steps == 0
    play(p, ["noop", "noop", "noop"])
    assert p.change is None
    play(p, ["down", "right", "left"])  # frames 4, 5, 6 of the new run
    assert p.change == 6


@pytest.mark.parametrize(("submitted", "raw"), [(0, -1.0), (1, -1.0), (2, 1.0), (3, 1.0),
                                                (4, 0.9452), (5, 0.8316)])
def test_submission_is_scored_against_T(root, submitted, raw):
    p = phase(root)
    p.reset()
    play(p, ["down", "right", "left", "noop", "noop"])
    obs, *_ = play(p, ["declare"])
    assert obs.cd.declared and len(obs.cd.frames) == 6 and obs.cd.watching == 5
    assert [f.kind for f in obs.actions] == ["watch", "submit"]
    obs, reward, terminated, _, info = p.step(f"submit {submitted}")
    assert terminated and reward == pytest.approx(raw, abs=1e-4)
    assert info["change_frame"] == 3 and p.raw_reward == reward
    assert p.score == max(0.0, reward)


def test_submissions_after_a_reset_are_scored_against_the_new_run(root):
    p = phase(root)
    p.reset()
    play(p, ["down", "right", "left", "reset", "noop", "down", "right", "left", "declare"])
    assert p.change == 4
    _, reward, terminated, _, info = p.step("submit 3")    # T - 1 of this run
    assert terminated and reward == 1.0 and info["change_frame"] == 4


def test_declaring_before_the_condition_holds_is_a_false_alarm(root):
    p = phase(root)
    p.reset()
    play(p, ["noop", "noop", "noop", "declare"])
    _, reward, terminated, _, _ = p.step("submit 3")
    assert terminated and reward == -1.0 and p.score == 0.0


def test_browsing_after_declare(root):
    p = phase(root)
    p.reset()
    play(p, ["down", "right", "left", "declare"])
    obs, *_ = play(p, ["watch 1"])
    assert obs.frame == p.frames[1] and obs.cd.watching == 1
    for text in ["left", "reset", "declare", "watch 4", "submit -1"]:
        obs, *_, info = p.step(text)
        assert not info["valid"]
    assert "the run is frozen" in p.step("noop")[0].invalid
    assert p.invalid_actions == 6


def test_browse_actions_before_declare_are_invalid(root):
    p = phase(root)
    p.reset()
    obs, *_ = p.step("submit 0")
    assert "only after declare" in obs.invalid


def test_never_submitting_gives_raw_zero(root):
    p = phase(root, budget=4)
    p.reset()
    _, _, _, truncated, _ = play(p, ["down", "right", "left", "declare"])
    assert truncated and p.raw_reward == 0.0 and p.submitted is None
    with pytest.raises(PhaseStateError):
        p.step("submit 3")


@pytest.mark.parametrize("condition", [None, ""])
def test_a_test_without_a_condition_is_refused(condition):
    from llm_eval.worlds import make_world
    with pytest.raises(ValueError, match="condition"):
        CDPhase(make_world("warehouse", seed=3), condition=condition, budget=5)
