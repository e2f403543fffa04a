"""The ``autumnbench`` masked-frame prediction test against docs/spec/autumnbench-harness.md [M1-M10, D3].

Expected observations are built from the fixture's published-layout files themselves
(``prompts/drizzle_mfp.json`` through ``color_dict.yaml``), not from the imported task: 11
frames (L - 1 = 10), the 2x2 patch at rows 1-2, columns 2-3 hidden in the last two, 4 choices,
``correct_idx`` 2."""

from __future__ import annotations

import json

import autumnbench_fixture as F
import pytest
import yaml

from llm_eval.worldtest.autumnbench import AutumnBenchMFP
from llm_eval.worldtest.errors import PhaseStateError

INVALID = "Invalid action. Please choose from the available actions."
PROMPT = json.loads((F.FIXTURE / "prompts" / "drizzle_mfp.json").read_text())
COLOURS = {int(k): str(v) for k, v in
           yaml.safe_load((F.FIXTURE / "color_dict.yaml").read_text()).items()}
LAST = len(PROMPT["observations"]) - 1
OPTIONS = ("choose_option_0", "choose_option_1", "choose_option_2", "choose_option_3")


def names(grid) -> list[list[str]]:
    return [["mask" if i == 0 else COLOURS[i] for i in row] for row in grid]


def action_took(t: int) -> str:
    if t == 0:
        return "start"
    action = PROMPT["observations"][t]["action"]
    return f"click {action['x']} {action['y']}" if action["type"] == "click" else action["type"]


def frame_text(t: int, finished: bool = False) -> str:
    """The harness's frame JSON [M2, M3, M5]; finished frames show the last frame's action."""
    render = names(PROMPT["observations"][t]["masked_grid"])
    if not finished:
        return json.dumps({"video_location": f"{t}/{LAST}", "render": render,
                           "action_took": action_took(t), "is_finished": False})
    return json.dumps({"video_location": f"{t}/{LAST}", "render": render,
                       "action_took": action_took(LAST),
                       "choices": [names(c) for c in PROMPT["choices"]], "is_finished": True})


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    return F.import_tasks(tmp_path_factory.mktemp("autumnbench"))


def phase(task) -> AutumnBenchMFP:
    return AutumnBenchMFP(task.public, answer=task.hidden.answer, background="black", budget=501)


def to_the_end(p: AutumnBenchMFP) -> None:
    for _ in range(LAST):
        p.step("step")


def test_m1_no_simulation_frames_from_the_file(tasks):
    p = phase(tasks["mfp"])
    p.reset()
    assert (p.t, p.finished, len(p.frames)) == (0, False, LAST + 1) and LAST == 10
    assert not hasattr(p, "world")


def test_m2_first_observation_intro_then_frame_0_with_start(tasks):
    text = phase(tasks["mfp"]).reset().text
    intro, data = text.split("\n{", 1)
    assert "{" + data == frame_text(0)
    assert list(json.loads("{" + data)) == ["video_location", "render", "action_took",
                                             "is_finished"]
    assert '"video_location": "0/10"' in data and '"action_took": "start"' in data
    for word in ("step", "rewind", "mask", "video_location", "is_finished"):
        assert word in intro


def test_m3_m4_stepping_shows_each_frame_and_offers_only_step(tasks):
    p = phase(tasks["mfp"])
    assert p.reset().offered == ("step",)
    for t in range(1, LAST):
        obs, reward, terminated, truncated, info = p.step("step")
        assert obs.text == frame_text(t) and obs.offered == ("step",)
        assert (reward, terminated, truncated) == (0.0, False, False) and info["valid"]
    assert '"action_took": "click 3 2"' in frame_text(3)      # a click as "click x y"
    assert '"mask"' in frame_text(LAST - 1) and '"mask"' not in frame_text(LAST - 2)


def test_m5_the_last_frame_finishes_for_good_and_shows_the_choices(tasks):
    p = phase(tasks["mfp"])
    p.reset()
    to_the_end(p)                                  # L - 1 steps to see the options
    obs = p.observation()
    assert p.steps == LAST and obs.text == frame_text(LAST, finished=True)
    assert list(json.loads(obs.text)) == ["video_location", "render", "action_took", "choices",
                                          "is_finished"]
    assert obs.offered == ("step", "rewind", *OPTIONS)
    obs, *_ = p.step("step")                       # t stays at L - 1
    assert obs.text == frame_text(LAST, finished=True)


def test_m5_m6_rewind_shows_earlier_frames_with_the_last_frames_action(tasks):
    p = phase(tasks["mfp"])
    p.reset()
    to_the_end(p)
    for t in range(LAST - 1, -1, -1):
        obs, reward, terminated, _, info = p.step("rewind")
        assert obs.text == frame_text(t, finished=True) and info["valid"]
        assert obs.offered == ("step", "rewind", *OPTIONS)          # finished for good
    assert '"action_took": "noop"' in obs.text      # frame 0, shown with frame 10's action
    obs, *_ = p.step("rewind")                      # t = max(t - 1, 0)
    assert obs.text == frame_text(0, finished=True)
    assert p.step("step")[0].text == frame_text(1, finished=True)
    assert frame_text(8).count('"action_took": "click 1 1"') == 1
    assert '"action_took": "noop"' in frame_text(8, finished=True)


@pytest.mark.parametrize(("option", "raw"), [(2, 1.0), (0, -1.0), (1, -1.0), (3, -1.0)])
def test_m7_an_option_ends_the_test_plus_or_minus_one(tasks, option, raw):
    p = phase(tasks["mfp"])
    p.reset()
    to_the_end(p)
    obs, reward, terminated, truncated, _ = p.step(f"choose_option_{option}")
    assert (reward, terminated, truncated) == (raw, True, False)
    assert p.raw_reward == raw and p.score == max(0.0, raw) and p.steps == LAST + 1


@pytest.mark.parametrize("action", ["quit", "noop", "rewind", "choose_option_2", "step ",
                                    "Step", "go-to-test"])
def test_m8_anything_not_offered_is_invalid_before_the_end(tasks, action):
    p = phase(tasks["mfp"])
    p.reset()
    p.step("step")
    obs, reward, terminated, truncated, info = p.step(action)
    assert obs.text == INVALID and (reward, terminated, truncated) == (0.0, False, False)
    assert not info["valid"] and p.t == 1 and p.steps == 2 and obs.offered == ("step",)
    assert p.step("step")[0].text == frame_text(2)        # nothing changed


@pytest.mark.parametrize("action", ["quit", "noop", "choose_option_4", "choose_option_-1",
                                    "choose_option_2 "])
def test_m8_after_the_end_too_and_quit_cannot_abstain(tasks, action):
    p = phase(tasks["mfp"])
    p.reset()
    to_the_end(p)
    obs, reward, terminated, _, info = p.step(action)
    assert obs.text == INVALID and (reward, terminated) == (0.0, False) and not info["valid"]
    assert p.t == LAST and not p.done


def test_m10_after_the_answer_the_phase_takes_no_more_steps(tasks):
    """Not reproduced: the harness's MFP env answers later calls with the finished frame,
    terminal; ours refuses them. The controller never sends them (C1, C5)."""
    p = phase(tasks["mfp"])
    p.reset()
    to_the_end(p)
    p.step("choose_option_2")
    with pytest.raises(PhaseStateError):
        p.step("step")


def test_m_an_episode_scored_through_the_runner(tasks, tmp_path):
    lines = ["go-to-test", *["step"] * LAST]
    result = F.play(tasks["mfp"], [*lines, "choose_option_2"], tmp_path)
    assert (result.score, result.raw_reward) == (1.0, 1.0)
    assert [r.phase for r in result.records] == ["interaction"] + ["mfp"] * (LAST + 1)
    assert result.records[1].observation.text == phase(tasks["mfp"]).reset().text
    wrong = F.play(tasks["mfp"], [*lines, "quit", "choose_option_3"], tmp_path)
    assert (wrong.score, wrong.raw_reward) == (0.0, -1.0) and wrong.test.invalid_actions == 1
    unanswered = F.play(tasks["mfp"], lines, tmp_path)      # the script stops: no answer
    assert (unanswered.score, unanswered.raw_reward) == (0.0, 0.0)
