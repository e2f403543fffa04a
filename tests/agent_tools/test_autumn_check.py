"""The autumn tool's check on its own: the history holds only the agent's valid actions and
the frames it was shown (a run per reset, every tick under ticks_per_action), and a program
that runs away stops at the interpreter's work budget with a message."""

from __future__ import annotations

from scripted import true_program

from llm_eval.agent_tools.autumn_check import check_hypothesis
from llm_eval.agent_tools.history import History
from llm_eval.tasks.store import load_task
from llm_eval.worldtest.interaction import InteractionPhase
from llm_eval.worldtest.programs import original_world


def played(actions, ticks: int = 1):
    task = load_task("hunters", "mfp")
    phase = InteractionPhase(original_world(task), budget=50, ticks_per_action=ticks)
    history = History()
    obs = phase.reset()
    for action in actions:
        history.observe(obs)
        history.acted(action)
        obs = phase.step(action)[0]
    history.observe(obs)
    return task, history


def test_invalid_actions_are_not_in_the_history_and_reset_starts_a_run():
    _, history = played(["left", "click 99 0", "jump", "up", "reset", "noop", "go-to-test"])
    assert [[a for _, a, _ in run.steps] for run in history.runs] == [["left", "up"], ["noop"]]
    assert history.actions == 3


def test_every_tick_is_checked_under_ticks_per_action():
    task, history = played(["left", "up", "noop", "right"], ticks=3)
    truth = check_hypothesis(true_program(), history, task.seed)
    assert truth.status == "matches" and truth.checked == 1 + 4 * 3
    wrong = true_program().replace("(% clock 3)", "(% clock 2)")
    differs = check_hypothesis(wrong, history, task.seed)
    assert differs.status == "differs" and " of 3): " in differs.message


def test_another_seed_is_another_world_for_a_program_with_random_draws():
    task, history = played(["noop"] * 6)
    assert check_hypothesis(true_program(), history, task.seed).status == "matches"
    assert check_hypothesis(true_program(), history, task.seed + 1).status == "differs"


def test_a_runaway_program_stops_at_the_work_budget_with_a_message():
    task, history = played(["noop"])
    runaway = "(program (= GRID_SIZE 14) (= spin (--> n (spin (+ n 1)))) (= x (spin 0)))"
    check = check_hypothesis(runaway, history, task.seed)
    assert check.status == "error" and check.message.startswith("error: the program does not "
                                                                "load:")
    assert "budget" in check.message or "recursion" in check.message or "limit" in check.message


def test_nothing_to_check_before_any_frame_and_an_empty_program():
    assert check_hypothesis("(program)", History(), 1).message.startswith(
        "error: there is nothing to check yet")
    task, history = played([])
    assert check_hypothesis("  ", history, task.seed).message == "error: the program is empty"
