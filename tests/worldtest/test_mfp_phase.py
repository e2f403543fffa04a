"""The masked-frame prediction phase: watching, choosing, budget, masked cells."""

from __future__ import annotations

import pytest
import worldtest_tasks as W

from llm_eval.worldtest import MASK_COLOUR, MFPPhase


def phase(answer: int = W.MFP_ANSWER, budget: int = 5) -> MFPPhase:
    task = W.mfp_task(answer)
    return MFPPhase(task.public, answer=task.hidden.answer, background="black", budget=budget)


def test_starts_on_the_final_masked_frame():
    obs = phase().reset()
    view = obs.mfp
    assert obs.phase == "mfp" and view.watching == len(W.MFP_ACTIONS)
    assert obs.valid_actions == ("watch T (0 <= T <= 6)", "choose K (0 <= K <= 5)")
    assert view.actions == tuple(W.MFP_ACTIONS) and len(view.options) == 6
    assert set(obs.masked) == {(3, 1), (4, 1), (3, 2), (4, 2)}
    assert all(obs.frame.grid[y][x] == MASK_COLOUR for x, y in obs.masked)


def test_watch_shows_any_frame_and_masks_only_the_late_ones():
    p = phase()
    p.reset()
    truth = W.frames_of(W.MFP_ACTIONS)
    obs, reward, terminated, _, info = p.step("watch 0")
    assert obs.frame.to_rows() == truth[0] and obs.masked == () and info["watching"] == 0
    assert (reward, terminated) == (0.0, False) and obs.budget_left == 4
    obs, *_ = p.step("watch 4")
    assert obs.frame.to_rows() == truth[4] and obs.masked == ()
    obs, *_ = p.step("watch 5")                      # masked_from = 5
    assert obs.masked and obs.frame.grid[1][3] == MASK_COLOUR


@pytest.mark.parametrize("answer", [0, 2, 5])
def test_choosing_the_answer_scores_one(answer):
    p = phase(answer)
    p.reset()
    _, reward, terminated, _, info = p.step(f"choose {answer}")
    assert (reward, terminated, p.score, info["choice"]) == (1.0, True, 1.0, answer)


def test_a_wrong_choice_scores_zero():
    p = phase(2)
    p.reset()
    _, reward, terminated, _, _ = p.step("choose 3")
    assert (reward, terminated, p.score) == (0.0, True, 0.0)


@pytest.mark.parametrize("text", ["choose 6", "choose -1", "choose", "watch 7", "left",
                                  "reset", "choose 1 2", "pick 1"])
def test_invalid_actions_are_counted(text):
    p = phase()
    p.reset()
    obs, reward, terminated, truncated, info = p.step(text)
    assert not info["valid"] and obs.invalid and p.invalid_actions == 1
    assert (reward, terminated, truncated, obs.budget_left) == (0.0, False, False, 5)


def test_running_out_of_budget_scores_zero():
    p = phase(budget=2)
    p.reset()
    p.step("watch 1")
    _, reward, terminated, truncated, _ = p.step("watch 2")
    assert truncated and not terminated and p.score == 0.0 and p.choice is None


def test_answer_must_be_an_option():
    task = W.mfp_task()
    with pytest.raises(ValueError):
        MFPPhase(task.public, answer=6, background="black", budget=3)
