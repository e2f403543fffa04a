"""The ``autumnbench`` planning test against docs/spec/autumnbench-harness.md [P1-P6, D2, D5].

The drizzle fixture's goal: the player at (0, 5) and a gray block at (4, 2), every other cell
ignored; ``left``, ``left``, ``click 4 2`` reaches it on the third tick."""

from __future__ import annotations

import json
import shutil

import autumnbench_fixture as F
import pytest

from llm_eval.tasks.store import load_task
from llm_eval.worlds import World
from llm_eval.worldtest.autumnbench import AutumnBenchPlanning
from llm_eval.worldtest.errors import PhaseStateError
from llm_eval.worldtest.programs import original_world

QUIT = "quit: You quit the environment. No reward will be given."
NO_RESET = "Reset is not allowed in the test phase."
INVALID = "Invalid action. Please select a valid action."
OFFERED = ("left", "right", "up", "down", "click [0-5] [0-5]", "noop", "quit", "quit")


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    return F.import_tasks(tmp_path_factory.mktemp("autumnbench"))


def planning(task) -> AutumnBenchPlanning:
    p = AutumnBenchPlanning(original_world(task), goal=task.public.goal, mask=task.public.mask,
                        budget=501)
    p.reset()
    return p


def state(task, grid) -> str:
    mask = [[int(m) for m in row] for row in task.public.mask]
    return json.dumps({"render": [list(r) for r in grid], "goal": task.public.goal,
                       "highlight_mask": mask})


def test_d2_d5_goal_names_through_the_colour_table_and_the_mask(tasks):
    public = tasks["planning"].public
    assert public.goal[5][0] == "white" and public.goal[2][4] == "gray"
    assert public.goal[0][0] == "black"
    cells = [(x, y) for y, row in enumerate(public.mask) for x, m in enumerate(row) if m]
    assert cells == [(4, 2), (0, 5)]
    assert tasks["planning"].hidden.reference_length == 3    # kept, never used


def test_p2_p3_offered_quit_twice_and_the_first_observation(tasks):
    p = planning(tasks["planning"])
    obs = p.observation()
    assert obs.offered == OFFERED
    intro, data = obs.text.split("\nThe initial grid is: ")
    assert data == state(tasks["planning"], F.drizzle_grids([])[0][0])
    assert list(json.loads(data)) == ["render", "goal", "highlight_mask"]
    assert "reset" in intro.lower() and "quit" in intro.lower()


def test_p3_p5_reward_1_on_the_tick_the_goal_matches(tasks):
    p = planning(tasks["planning"])
    shown = F.drizzle_grids(F.PLANNING_WINNING)
    for k, action in enumerate(F.PLANNING_WINNING, 1):
        obs, reward, terminated, truncated, info = p.step(action)
        assert obs.text == f"The current grid is: {state(tasks['planning'], shown[k][0])}"
        assert obs.offered == OFFERED and info["valid"]
        assert (reward, terminated, truncated) == ((1.0, True, False) if k == 3
                                                   else (0.0, False, False))
    assert p.raw_reward == 1.0 and p.world.steps == 3            # one tick an action [I8]


def test_p4_quit_ends_with_reward_0(tasks):
    p = planning(tasks["planning"])
    obs, reward, terminated, truncated, _ = p.step("quit")
    assert (obs.text, reward, terminated, truncated) == (QUIT, 0.0, True, False)


@pytest.mark.parametrize(("action", "text"), [
    ("reset", NO_RESET), ("go-to-test", INVALID), ("Left", INVALID), ("jump", INVALID),
    ("click 3", INVALID), ("I found the change!", INVALID), ("click a b", ""),
    ("click [0-5] [0-5]", "")])
def test_p4_refused_actions_no_tick_no_grid(tasks, action, text):
    p = planning(tasks["planning"])
    obs, reward, terminated, truncated, info = p.step(action)
    assert (obs.text, reward, terminated, truncated) == (text, 0.0, False, False)
    assert not info["valid"] and p.world.steps == 0 and p.time == 1


def test_p5_never_checked_on_the_initial_state_nor_after_an_invalid_action(tasks):
    task = tasks["planning"]
    initial = F.drizzle_grids([])[0][0]
    mask = [[y == 5 for x in range(6)] for y in range(6)]         # the bottom row only
    p = AutumnBenchPlanning(original_world(task), goal=initial, mask=mask, budget=501)
    p.reset()                                                     # matches already: no reward
    for action in ("reset", "go-to-test", "bogus"):
        assert p.step(action)[1:3] == (0.0, False)
    assert p.step("noop")[1:3] == (1.0, True)                     # the first tick


def test_p5_a_transparent_goal_cell_matches_only_a_cell_rendered_transparent():
    program = ('(program (= GRID_SIZE 3) (object A (Cell 0 0 "transparent"))'
               ' (= a (initnext (A (Position 1 1)) (prev a))))')
    mask = [[False] * 3, [True, True, False], [False] * 3]
    goal = [["black"] * 3, ["black", "transparent", "black"], ["black"] * 3]
    p = AutumnBenchPlanning(World(program, seed=1), goal=goal, mask=mask, budget=9)
    p.reset()
    assert p.step("noop")[1:3] == (1.0, True)
    goal[1][0] = "transparent"                                    # a black cell: never
    q = AutumnBenchPlanning(World(program, seed=1), goal=goal, mask=mask, budget=9)
    q.reset()
    assert all(q.step("noop")[1] == 0.0 for _ in range(5)) and not q.done


def test_p5_d2_an_imported_goal_index_0_is_transparent_and_never_reached(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(F.FIXTURE, data)
    prompt = data / "prompts" / "drizzle_planning.json"
    spec = json.loads(prompt.read_text())
    spec["goal"][2][4] = 0                                        # was gray
    prompt.write_text(json.dumps(spec))
    task = F.import_tasks(tmp_path / "tasks", 0, data_dir=data)["planning"]
    assert task.public.goal[2][4] == "transparent"
    result = F.play(task, ["go-to-test", *F.PLANNING_WINNING, *["noop"] * 20], tmp_path)
    assert (result.score, result.raw_reward) == (0.0, 0.0) and result.test.steps == 23
    assert result.test.ended == "stopped"


def test_p1_the_test_starts_from_the_initial_state_whatever_the_interaction_did(tasks,
                                                                                 tmp_path):
    result = F.play(tasks["planning"], ["left", "click 4 2", "go-to-test", "left"], tmp_path)
    first = result.records[3].observation
    assert first.phase == "planning"
    assert first.text.endswith(state(tasks["planning"], F.drizzle_grids([])[0][0]))
    assert result.raw_reward == 0.0                              # one left is not enough


def test_p6_no_horizon_but_the_cap_on_a_bundled_world(tmp_path):
    task = load_task("warehouse", "planning")
    assert task.public.horizon == 38
    result = F.play(task, ["go-to-test", *["noop"] * 60], tmp_path)
    assert result.test.steps == 60 and result.test.ended == "stopped"
    assert result.raw_reward == 0.0


def test_p4_the_phase_takes_no_step_after_it_ended(tasks):
    """Not reproduced past the first terminal step: the harness's env keeps ticking (and
    rewarding a matched goal again); ours refuses, and the controller stops there (C1)."""
    p = planning(tasks["planning"])
    for action in F.PLANNING_WINNING:
        p.step(action)
    with pytest.raises(PhaseStateError):
        p.step("noop")
