"""The oracle knows the program, not the answers (issue 17 item 6): fed tasks whose stored
answer or witness is wrong or removed, it still answers MFP by simulation, solves planning by
search and finds the change by searching for the condition."""

from __future__ import annotations

from pathlib import Path

import pytest

from llm_eval.agents import OracleAgent
from llm_eval.agents.oracle import mfp_answer
from llm_eval.tasks.autumnbench_import import import_autumnbench
from llm_eval.tasks.store import load_task, load_tasks
from llm_eval.worldtest import run_episode
from llm_eval.worldtest.seeding import seeded

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "autumnbench"


def _with_hidden(task, **changes):
    hidden = task.hidden.model_copy(update=changes)
    return task.model_copy(update={"hidden": hidden}).located(task.root)


def test_mfp_is_answered_by_simulation_not_by_the_stored_answer():
    task = load_task("warehouse", "mfp")
    true_answer = task.hidden.answer
    lying = _with_hidden(task, answer=(true_answer + 1) % len(task.public.options))
    assert mfp_answer(lying) == (true_answer, 0)
    oracle = OracleAgent(lying)
    result = run_episode(lying, oracle)
    # it chose the option the program gives, so the lying answer key scores it 0
    assert result.records[-1].action == f"choose {true_answer}" and result.score == 0.0


def test_planning_is_solved_by_search_without_the_witness():
    task = _with_hidden(load_task("easel", "planning"), witness=None)
    oracle = OracleAgent(task)
    result = run_episode(task, oracle)
    assert result.score == 1.0 and oracle.search is not None and oracle.search.found


@pytest.fixture(scope="module")
def drizzle_cd(tmp_path_factory):
    out = tmp_path_factory.mktemp("tasks")
    import_autumnbench(FIXTURE, out)
    task = next(t for t in load_tasks(out) if t.family == "cd")
    return seeded(task, 1, "worldtest")[0]


@pytest.mark.parametrize("witness", [None, ["noop"], ["left", "right", "noop"]],
                         ids=["removed", "useless", "wrong"])
def test_the_change_is_found_by_searching_for_the_condition(drizzle_cd, witness):
    task = _with_hidden(drizzle_cd, witness=witness)
    for protocol in ("worldtest", "autumnbench"):
        result = run_episode(task, OracleAgent(task), protocol=protocol)
        assert result.score == 1.0, (protocol, witness)
