"""The change-detection phase: play, declare after the third step, browse, submit; T."""

from __future__ import annotations

import pytest

from llm_eval.worldtest import CDPhase, PhaseStateError, modified_world

import worldtest_tasks as W


@pytest.fixture
def root(tmp_path):
    return W.write_cd_program(tmp_path)


def phase(root, budget: int = 20) -> CDPhase:
    task = W.cd_task(test_steps=budget)
    return CDPhase(modified_world(task, root), budget=budget,
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


def test_change_frame_is_the_first_frame_of_a_tick_where_the_trigger_held(root):
    p = phase(root)
    p.reset()
    play(p, ["down", "right"])          # the push makes pushes = 1 at the end of tick 2
    assert p.change is None
    play(p, ["left"])                   # tick 3 starts with the trigger holding
    assert p.change == 3


def test_reset_starts_a_new_run_and_forgets_the_trigger(root):
    p = phase(root)
    p.reset()
    play(p, ["down", "right", "left", "reset"])
    assert p.change is None and p.run == 2 and p.run_steps == 0
    play(p, ["noop", "noop", "noop"])
    assert p.change is None


@pytest.mark.parametrize(("submitted", "raw"), [(0, -1.0), (1, -1.0), (2, 1.0), (3, 1.0),
                                                (5, 0.8316)])
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


def test_declaring_before_the_trigger_is_a_false_alarm(root):
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


def test_a_world_without_trigger_is_refused():
    from llm_eval.worlds import make_world
    with pytest.raises(ValueError, match="trigger"):
        CDPhase(make_world("warehouse", seed=3), budget=5)
