"""The ``autumnbench`` interaction phase against docs/spec/autumnbench-harness.md [I1-I8, R1, C6].

Each test drives the phase directly (``reset()`` / ``step(text)``) on the drizzle fixture and
checks reward, observation text and phase clock step by step against what the published
harness does, quirks included. Expected grids come from the interpreter run directly
(``autumnbench_fixture.drizzle_grids``)."""

from __future__ import annotations

import json

import autumnbench_fixture as F
import pytest

from llm_eval.worlds import World
from llm_eval.worldtest.autumnbench import AutumnBenchInteraction
from llm_eval.worldtest.programs import original_world

INITIAL = F.drizzle_grids([])[0][0]


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    return F.import_tasks(tmp_path_factory.mktemp("autumnbench"))


def phase(task, budget: int = 50, **kwargs) -> AutumnBenchInteraction:
    return AutumnBenchInteraction(original_world(task), budget=budget, **kwargs)


def ticks_run(p: AutumnBenchInteraction) -> int:
    return p.world.interpreter.evaluate("ticks")      # drizzle counts its ticks


def test_i1_first_observation_is_intro_then_the_initial_grid(tasks):
    p = phase(tasks["cd"], budget=7)
    obs = p.reset()
    assert p.time == 0 and ticks_run(p) == 0
    intro, line, grid = obs.text.rsplit("\n", 2)
    assert grid == F.grid_text(INITIAL) and json.loads(grid)[5][2] == "white"
    assert line == "The initial grid is:"
    assert "reset" in intro and "go-to-test" in intro
    # it names no family, no budget and no tick rate, so it is the same for every task
    for word in ("mask", "change", "planning", "goal", "budget", "7", "8", "frame"):
        assert word not in intro.lower()
    assert phase(tasks["mfp"], budget=200).reset().text == obs.text


def test_i2_offered_in_the_harness_order(tasks):
    p = phase(tasks["cd"])
    expected = ("left", "right", "up", "down", "click [0-5] [0-5]", "noop", "quit",
                "go-to-test", "reset")
    assert p.reset().offered == expected
    for action in ("noop", "bogus", "reset"):
        assert p.step(action)[0].offered == expected


def test_i3_time_advances_on_every_action_and_reset_keeps_it(tasks):
    p = phase(tasks["cd"])
    p.reset()
    for time, action in enumerate(["noop", "bogus", "click 1", "click a b", "reset", "left"], 1):
        p.step(action)
        assert p.time == time
    p.step("go-to-test")
    assert p.time == 7


def test_i3_reset_restarts_the_world_and_shows_the_grid_alone(tasks):
    p = phase(tasks["cd"])
    p.reset()
    p.step("left")
    obs, reward, terminated, truncated, info = p.step("reset")
    assert obs.text == F.grid_text(INITIAL)                 # no intro, no stacking
    assert (reward, terminated, truncated) == (0.0, False, False) and info["valid"]
    assert ticks_run(p) == 0 and p.time == 2 and p.resets == 1
    expected = F.drizzle_grids(["right"], 8)[1]            # as from a fresh start
    assert p.step("right")[0].text == F.stacked(expected, 3, "right")


@pytest.mark.parametrize("action", ["quit", "go-to-test"])
def test_i3_quit_and_go_to_test_end_the_phase_with_reward_0(tasks, action):
    p = phase(tasks["cd"])
    p.reset()
    _, reward, terminated, truncated, info = p.step(action)
    assert (reward, terminated, truncated) == (0.0, True, False) and info["valid"]
    assert p.done and ticks_run(p) == 0


@pytest.mark.parametrize("action", [" reset", "reset\n", "Reset", "go-to-test ", "quit\n",
                                    "QUIT", "Go-to-test"])
def test_i3_quit_go_to_test_and_reset_match_exactly(tasks, action):
    p = phase(tasks["cd"])
    p.reset()
    p.step("noop")
    grid = F.grid_text(F.drizzle_grids(["noop"], 8)[1][-1])
    obs, reward, terminated, truncated, info = p.step(action)
    # not the command: parsed as a game action, unknown: no tick, the current grid [I5]
    assert obs.text == grid and (reward, terminated, truncated) == (0.0, False, False)
    assert not info["valid"] and ticks_run(p) == 8 and p.resets == 0 and not p.done


def test_i3_game_actions_are_stripped_cut_at_the_first_line_and_case_sensitive(tasks):
    p = phase(tasks["cd"])
    p.reset()
    obs, *_ , info = p.step("  left\nright\nright")
    assert info["valid"] and ticks_run(p) == 8
    assert json.loads(obs.text.rsplit("Observation: ", 1)[1])[5][1] == "white"   # left once
    # strip, then the first line: that line keeps a space before its line end
    for wrong in ("Left", "LEFT", "left right", "noop please", "left \nright"):
        obs, *_ , info = p.step(wrong)
        assert not info["valid"] and ticks_run(p) == 8
    obs, *_ , info = p.step("right\t")
    assert info["valid"] and ticks_run(p) == 16


def test_i3_click_is_column_then_row_extra_tokens_ignored_no_bounds_check(tasks):
    p = phase(tasks["cd"])
    p.reset()
    obs, *_ , info = p.step("click 3 1 and more")
    assert info["valid"]
    first = obs.text.split("\n\nObservation: ")[0]
    assert first.split("\n")[1] == "Action took: click 3 1 and more"
    assert json.loads(first.split("\n")[2].removeprefix("Observation: "))[1][3] == "gray"
    for off_grid in ("click 9 9", "click -1 0", "click\t2\t2"):
        assert p.step(off_grid)[4]["valid"]
    assert ticks_run(p) == 32


@pytest.mark.parametrize("action", ["bogus", "click", "click 3", "step", "choose_option_0"])
def test_i5_unknown_text_or_short_click_no_tick_current_grid_costs_a_step(tasks, action):
    p = phase(tasks["cd"], budget=5)
    p.reset()
    p.step("noop")
    grid = F.grid_text(F.drizzle_grids(["noop"], 8)[1][-1])
    obs, reward, terminated, truncated, info = p.step(action)
    assert obs.text == grid and (reward, terminated, truncated) == (0.0, False, False)
    assert not info["valid"] and info["invalid_action"] == grid
    assert ticks_run(p) == 8 and p.time == 2 and p.steps == 2 and p.budget_left == 3


@pytest.mark.parametrize("action", ["click a b", "click [0-5] [0-5]", "click 1.0 2",
                                    "click 1 two"])
def test_i5_non_integer_click_coordinates_give_an_empty_observation(tasks, action):
    p = phase(tasks["cd"], budget=5)
    p.reset()
    obs, reward, terminated, truncated, info = p.step(action)       # the harness raises [C6]
    assert obs.text == "" and (reward, terminated, truncated) == (0.0, False, False)
    assert "error" in info and not info["valid"]
    assert ticks_run(p) == 0 and p.time == 1 and p.budget_left == 4
    obs, *_ = p.step("noop")                      # the clock moved on: frames 10..17
    assert obs.text.startswith("Frame time: 10\n")


def test_i6_frame_stacking_verified_example(tasks):
    """The specification's verified example: frames 2..9, reset, then 18..25 (FRAME_RATE 8)."""
    p = phase(tasks["cd"])
    p.reset()
    assert p.frame_rate == 8                     # drizzle sets none: the standard library's
    shown = F.drizzle_grids(["noop", "reset", "down"], 8)
    first = p.step("noop")[0].text
    times = [line for line in first.split("\n") if "Frame time:" in line]
    assert times == ["Frame time: 2"] + [f"Observation: Frame time: {f}" for f in range(3, 10)]
    assert first.startswith("Frame time: 2\nAction took: noop\nObservation: [[")
    assert first == F.stacked(shown[1], 1, "noop")
    assert p.step("reset")[0].text == F.grid_text(shown[2][0])
    third = p.step("down")[0].text
    assert [int(line.rsplit(" ", 1)[1]) for line in third.split("\n")
            if "Frame time:" in line] == list(range(18, 26))
    assert third.count("Action took: down") == 1 and third.count("Action took: noop") == 7
    assert third == F.stacked(shown[3], 3, "down")
    blocks = third.split("\n\nObservation: ")
    assert len(blocks) == 8 and all(b.count("\n") == 2 for b in blocks)


def test_i6_frame_numbers_jump_after_invalid_actions(tasks):
    p = phase(tasks["cd"])
    p.reset()
    p.step("noop")                                            # frames 2..9
    p.step("bogus")                                           # time 2, no frames
    shown = F.drizzle_grids(["noop", "noop"], 8)
    assert p.step("noop")[0].text == F.stacked(shown[2], 3, "noop")   # frames 18..25


def test_i6_the_programs_own_frame_rate():
    text = F.PROGRAM.read_text().replace("(= GRID_SIZE 6)", "(= GRID_SIZE 6)\n  (= FRAME_RATE 3)")
    p = AutumnBenchInteraction(World(text, seed=1), budget=9)
    p.reset()
    assert p.frame_rate == 3
    shown = F.drizzle_grids(["left", "noop"], 3)
    assert p.step("left")[0].text == F.stacked(shown[1], 1, "left")    # frames 2, 3, 4
    assert p.step("noop")[0].text == F.stacked(shown[2], 2, "noop")    # frames 5, 6, 7
    assert "Frame time: 7\n" in p.observation().text


def test_i6_without_stacking_one_tick_and_the_grid_alone(tasks):
    p = phase(tasks["cd"], stack_frames=False)
    p.reset()
    shown = F.drizzle_grids(["left", "noop"])
    assert p.step("left")[0].text == F.grid_text(shown[1][0])
    assert p.step("noop")[0].text == F.grid_text(shown[2][0]) and ticks_run(p) == 2


def test_r1_text_grid_lowercases_element_colours_not_the_background():
    program = ('(program (= GRID_SIZE 3) (= background "Navy")'
               ' (object A (Cell 0 0 "Gold")) (object B (Cell 0 0 "transparent"))'
               ' (= a (initnext (A (Position 0 0)) (prev a)))'
               ' (= b (initnext (B (Position 1 1)) (prev b)))'
               ' (= c (initnext (A (Position 7 7)) (prev c))))')
    p = AutumnBenchInteraction(World(program, seed=1), budget=3)
    grid = p.reset().text.rsplit("\n", 1)[1]
    assert grid == ('[["gold", "Navy", "Navy"], ["Navy", "transparent", "Navy"], '
                    '["Navy", "Navy", "Navy"]]')


def test_c6_a_program_error_in_a_step_gives_an_empty_observation():
    text = F.PROGRAM.read_text().replace("(on clicked (= blocks (addObj blocks (Block click))))",
                                         "(on clicked (= blocks (head (list))))")
    p = AutumnBenchInteraction(World(text, seed=1), budget=5)
    p.reset()
    obs, reward, terminated, truncated, info = p.step("click 1 1")
    assert obs.text == "" and (reward, terminated, truncated) == (0.0, False, False)
    assert "head of an empty list" in info["error"] and p.time == 1 and p.steps == 1
