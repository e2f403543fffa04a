"""The ``autumnbench`` change-detection test against docs/spec/autumnbench-harness.md [X1-X13, D4].

The drizzle fixture's changed program makes red drops from the tick after the second click;
the condition (some drop is ``hot``) is seen by the harness one step late. Each test drives the
phase (or the runner with a script) and checks time, T, reward and text step by step."""

from __future__ import annotations

import math

import autumnbench_fixture as F
import pytest

from llm_eval.worldtest.autumnbench import AutumnBenchCD
from llm_eval.worldtest.errors import PhaseStateError
from llm_eval.worldtest.programs import modified_world
from llm_eval.worldtest.scoring import cd_raw_reward

FOUND, SUBMIT = "I found the change!", "Submit choice"
INVALID = "Invalid action. Please select a valid action."
NOT_CHANGED = "The environment has not changed yet."
INTERACTIVE = ("left", "right", "up", "down", "click [0-5] [0-5]", "noop", "quit", "reset")


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    return F.import_tasks(tmp_path_factory.mktemp("autumnbench"))


def cd(task) -> AutumnBenchCD:
    p = AutumnBenchCD(modified_world(task), condition=task.hidden.condition, budget=501)
    p.reset()
    return p


def run(p: AutumnBenchCD, actions: list[str]) -> list[tuple]:
    return [p.step(a) for a in actions]


def current(grid) -> str:
    return f"Here is the current frame: {F.grid_text(grid)}"


def harness_score(t: int, T: int) -> float:
    """X7 written out: the score of submitting t > T."""
    f = 1 / (1 - (t / T) * math.exp(-t / T))
    return min(1.0, max(0.0, 1.377 * f - 1.178))


def test_d4_the_condition_is_imported_as_written(tasks):
    hidden = tasks["cd"].hidden
    assert hidden.condition == hidden.trigger == "any (--> d (.. d hot)) drops"
    assert hidden.program.endswith("drizzle_change_detection_wrong_program.sexp")


def test_x1_first_observation_and_the_frames_shown(tasks):
    p = cd(tasks["cd"])
    first = p.observation().text
    initial = F.drizzle_grids([], program=F.CHANGED)[0][0]
    assert first.endswith(f"Here is the initial frame: {F.grid_text(initial)}")
    assert FOUND in first.split("Here is the initial frame")[0] and p.frames == [first]
    shown = F.drizzle_grids(["left", "click 2 2", "noop"], program=F.CHANGED)
    for k, (action, grids) in enumerate(zip(["left", "click 2 2", "noop"], shown[1:]), 1):
        obs, reward, terminated, truncated, info = p.step(action)
        assert obs.text == current(grids[0]) and p.frames[k] == obs.text
        assert (reward, terminated, truncated) == (0.0, False, False) and info["valid"]
    assert p.world.steps == 3                                      # one tick each [I8]


def test_x2_x5_offered_before_the_declaration_found_from_the_fourth_step(tasks):
    p = cd(tasks["cd"])
    offered = [p.observation().offered] + [obs.offered for obs, *_ in run(p, ["noop"] * 3)]
    assert offered[:3] == [(*INTERACTIVE, "quit")] * 3             # quit twice, no go-to-test
    assert offered[3] == (*INTERACTIVE, FOUND, "quit")


def test_x5_found_is_refused_at_step_2_and_accepted_at_step_3(tasks):
    p = cd(tasks["cd"])
    obs, reward, terminated, _, info = p.step("noop")
    obs, reward, terminated, _, info = p.step(FOUND)               # time 2: not > 2
    assert obs.text == INVALID and not info["valid"] and p.state == "interactive"
    assert FOUND not in obs.offered
    obs, reward, terminated, _, info = p.step(FOUND)               # time 3: accepted
    assert info["valid"] and p.state == "change" and obs.text == p.frames[0]
    # frames: the intro and step 1's; the invalid step 2 added none
    assert obs.offered == ("choose_frame_0", "choose_frame_1", SUBMIT, "quit")


def test_x8_the_winning_script_t_4_T_4_reward_1(tasks):
    p = cd(tasks["cd"])
    shown = F.drizzle_grids(F.CD_WINNING[:3], program=F.CHANGED)
    steps = run(p, F.CD_WINNING)
    assert [s[1] for s in steps] == [0.0, 0.0, 0.0, 0.0, 1.0]
    assert [s[2] for s in steps] == [False] * 4 + [True]
    assert [s[0].text for s in steps[:3]] == [current(g[0]) for g in shown[1:]]
    assert "red" in steps[2][0].text and "red" not in steps[1][0].text
    assert steps[3][0].text == p.frames[0]                         # the declaration: frame 0
    assert steps[3][0].offered == (*(f"choose_frame_{i}" for i in range(4)), SUBMIT, "quit")
    assert (p.change, p.submitted, p.raw_reward, p.time) == (4, 4, 1.0, 5)
    final = steps[4][0].text
    assert "\n" not in final and "changed" in final and "0" in final


def test_x6_the_condition_is_seen_one_step_late(tasks):
    p = cd(tasks["cd"])
    run(p, F.CD_WINNING[:3])
    assert p.change is None and not p.triggered            # made by step 3's tick, unseen
    p.step("left")
    assert p.change == 4 and p.triggered


def test_x8_the_winning_script_through_the_runner(tasks, tmp_path):
    result = F.play(tasks["cd"], ["go-to-test", *F.CD_WINNING, "noop"], tmp_path)
    assert (result.score, result.raw_reward) == (1.0, 1.0)
    assert [r.reward for r in result.records] == [0.0] * 5 + [1.0]
    assert len(result.records) == 6 and result.test.ended == "terminated"   # noop never sent
    assert result.records[1].observation.text == cd(tasks["cd"]).observation().text


def test_x7_score_by_lateness_against_the_formula():
    for ratio, shown in ((1.1, 0.994), (1.5, 0.892), (2, 0.710), (3, 0.441), (5, 0.247)):
        t = round(ratio * 10)
        assert cd_raw_reward(t, 10) == pytest.approx(harness_score(t, 10), abs=1e-12)
        assert cd_raw_reward(t, 10) == pytest.approx(shown, abs=1e-3)
    assert cd_raw_reward(10 ** 6, 10) == pytest.approx(0.199, abs=1e-3)
    assert cd_raw_reward(3, 4) == cd_raw_reward(4, 4) == 1.0
    assert cd_raw_reward(2, 4) == -1.0 and cd_raw_reward(9, None) == -1.0


@pytest.mark.parametrize(("between", "t", "score"), [
    ([FOUND, "choose_frame_1", "choose_frame_2"], 6, 0.892),   # browsing costs score
    (["bogus", FOUND], 5, 0.967),                              # an invalid step in between
    ([FOUND, "choose_frame_0"], 5, 0.967),                     # the chosen frame is not scored
    (["noop", "noop", FOUND, "noop"], 7, 0.801),               # t/T = 1.75
])
def test_x7_x8_every_step_before_submitting_costs_score(tasks, between, t, score):
    p = cd(tasks["cd"])
    steps = run(p, [*F.CD_WINNING[:3], *between, SUBMIT])
    assert p.change == 4 and p.submitted == t and steps[-1][2]
    assert steps[-1][1] == pytest.approx(harness_score(t, 4), abs=1e-12)
    assert steps[-1][1] == pytest.approx(score, abs=1e-3)
    assert f"{t - 4} frames" in steps[-1][0].text


def test_x8_too_early_never_fires_the_submitting_step_sees_the_condition_first(tasks):
    """Declared before the change, which clicks made happen afterwards [X11]: the submitting
    step is the first to see it, so T = t + 1 and the answer counts as on time."""
    p = cd(tasks["cd"])
    steps = run(p, ["click 0 5", "noop", FOUND, "click 5 5", "click 1 1", SUBMIT])
    assert [s[0].text for s in steps[3:5]] == ["", ""] and p.world.steps == 4
    assert (p.change, p.submitted, steps[-1][1], steps[-1][2]) == (6, 5, 1.0, True)
    assert "-1 frames" in steps[-1][0].text


def test_x4_x9_submitting_with_no_change_is_a_false_alarm(tasks):
    p = cd(tasks["cd"])
    steps = run(p, ["noop", "noop", "noop", FOUND, SUBMIT])
    assert steps[-1][1:3] == (-1.0, True) and steps[-1][0].text == NOT_CHANGED
    assert p.raw_reward == -1.0 and p.score == 0.0 and p.change is None


def test_x4_x10_quit_scores_0_and_shows_the_previous_steps_frame(tasks):
    p = cd(tasks["cd"])
    steps = run(p, ["noop", "quit"])
    assert steps[1][1:3] == (0.0, True) and steps[1][0].text == steps[0][0].text   # frames[1]


def test_x4_quit_out_of_range_is_empty_then_the_next_step_is_terminal(tasks):
    p = cd(tasks["cd"])
    steps = run(p, ["noop", "bogus", "quit"])          # frames[2] does not exist
    assert steps[2][0].text == "" and steps[2][1:4] == (0.0, False, False)
    obs, reward, terminated, _, info = p.step("noop")  # runs as usual, reports terminal
    assert (reward, terminated, info["valid"]) == (0.0, True, True) and p.world.steps == 2


def test_x4_quit_in_change_is_empty_then_submit_still_scores(tasks):
    p = cd(tasks["cd"])
    steps = run(p, [*F.CD_WINNING[:4], "quit", SUBMIT])
    assert steps[4][0].text == "" and steps[4][1:3] == (0.0, False)
    assert steps[5][1] == pytest.approx(harness_score(5, 4)) and steps[5][2]   # t 5, T 4
    q = cd(tasks["cd"])
    steps = run(q, [*F.CD_WINNING[:4], "quit", "left"])       # any step after it is terminal
    assert steps[5][0].text == INVALID and steps[5][1:3] == (0.0, True)


def test_x4_reset_clears_T_and_frames_keeps_the_clock_and_is_empty(tasks):
    p = cd(tasks["cd"])
    steps = run(p, [*F.CD_WINNING[:3], "reset"])
    assert steps[3][0].text == "" and steps[3][1:4] == (0.0, False, False)
    assert (p.time, p.change, p.triggered, p.frames, p.curr_frame) == (4, None, False, [], 0)
    initial = F.drizzle_grids([], program=F.CHANGED)[0][0]
    assert p.world.frame.grid == initial and p.world.steps == 0
    assert FOUND in steps[3][0].offered                      # time 4 > 2: still available
    obs, *_ = p.step(FOUND)                                  # frames[0] is gone: empty
    assert obs.text == "" and p.state == "change" and obs.offered == (SUBMIT, "quit")
    obs, reward, terminated, *_ = p.step(SUBMIT)
    assert (obs.text, reward, terminated) == (NOT_CHANGED, -1.0, True)


def test_x4_x6_after_a_reset_the_clock_keeps_counting(tasks):
    p = cd(tasks["cd"])
    steps = run(p, ["noop", "reset", *F.CD_WINNING])
    assert p.change == 6 and p.submitted == 6 and steps[-1][1] == 1.0
    assert p.frames[0] == steps[2][0].text                  # the post-reset initial frame lost
    assert steps[5][0].text == steps[2][0].text              # the declaration shows frames[0]


def test_x4_a_short_click_appends_the_current_frame_again_without_a_tick(tasks):
    p = cd(tasks["cd"])
    first, *_ = p.step("noop")
    obs, reward, terminated, _, info = p.step("click 4")
    assert obs.text == first.text and p.frames[1:] == [first.text, first.text]
    assert (reward, terminated, info["valid"]) == (0.0, False, False) and p.world.steps == 1
    obs, *_ , info = p.step("click [0-5] [0-5]")             # raises: empty, nothing appended
    assert obs.text == "" and len(p.frames) == 3 and "error" in info


@pytest.mark.parametrize(("state", "action"), [
    ("interactive", "go-to-test"), ("interactive", SUBMIT), ("interactive", "choose_frame_0"),
    ("interactive", "Noop"), ("change", "noop"), ("change", "reset"),
    ("change", "choose_frame_9"), ("change", FOUND), ("change", "submit choice")])
def test_x4_anything_not_offered_now_is_invalid(tasks, state, action):
    p = cd(tasks["cd"])
    run(p, ["noop"] * 3 + ([FOUND] if state == "change" else []))
    before = (list(p.frames), p.world.steps, p.state)
    obs, reward, terminated, _, info = p.step(action)
    assert obs.text == INVALID and (reward, terminated, info["valid"]) == (0.0, False, False)
    assert (p.frames, p.world.steps, p.state) == before


def test_x11_clicks_in_change_tick_then_come_back_empty(tasks):
    p = cd(tasks["cd"])
    run(p, [*F.CD_WINNING[:4]])
    for action, ticks in (("click 1 1", 4), ("click 9 9 9", 5), ("click 2", 5),
                          ("click x y", 5)):
        obs, reward, terminated, _, info = p.step(action)
        assert obs.text == "" and (reward, terminated) == (0.0, False) and "error" in info
        assert p.world.steps == ticks and p.state == "change"
    obs, reward, terminated, *_ = p.step(SUBMIT)            # t = 8, T = 4
    assert reward == pytest.approx(harness_score(8, 4)) and terminated


def test_x13_the_phase_takes_no_step_after_it_ended(tasks):
    """Not reproduced past the first terminal step: the harness's env keeps running and would
    score a later ``Submit choice`` again; ours refuses, and the controller stops there (C1)."""
    p = cd(tasks["cd"])
    run(p, F.CD_WINNING)
    with pytest.raises(PhaseStateError):
        p.step(SUBMIT)
