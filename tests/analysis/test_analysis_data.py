"""Loading episodes from run directories: every run of the store, the settings as
properties, usage totals, transcript paths, and typed errors naming the path at fault."""

from __future__ import annotations

import pytest
from analysis_fixtures import usage, write_store

from llm_eval.analysis import AnalysisError, load_episodes
from llm_eval.errors import LlmEvalError

LLM = {"model": "openai/x", "world": "easel", "family": "cd", "task": "easel-cd", "seed": 3,
       "repeat": 1, "reasoning_effort": "high", "prompt": "default"}


def test_episodes_carry_settings_outcome_usage_and_transcript(tmp_path):
    run_dir = write_store(tmp_path / "run", [
        {"settings": LLM, "score": 0.5, "usage": usage(1200, 300, 40, calls=7), "cost": 0.02},
        {"settings": LLM | {"seed": 4}, "status": "infra_error"},
        {"settings": LLM | {"seed": 5}, "status": "queued"}])
    done, infra, queued = load_episodes([run_dir])
    assert (done.model, done.world, done.family, done.task, done.seed, done.repeat) == \
        ("openai/x", "easel", "cd", "easel-cd", 3, 1)
    assert done.knob("reasoning_effort") == "high" and done.knob("history") is None
    assert done.status == "done" and done.score == 0.5 and done.cost_usd == 0.02
    assert done.total_tokens == 1500 and done.reasoning_tokens == 40
    assert done.run_id == "r1" and done.run_dir == run_dir.resolve()
    assert done.transcript == run_dir.resolve() / "transcripts" / f"{done.job_id}.jsonl"
    assert not done.is_infra_error and done.is_done
    assert infra.is_infra_error and infra.score is None and infra.total_tokens is None
    assert queued.status == "queued" and queued.transcript is None


def test_every_run_of_a_store_is_read_and_a_directory_given_twice_once(tmp_path):
    run_dir = write_store(tmp_path / "run", [{"settings": LLM, "score": 1.0}])
    write_store(run_dir, [{"settings": LLM | {"seed": 9}, "score": 0.0}], run_id="r2")
    episodes = load_episodes([run_dir, str(run_dir), tmp_path / "run" / "."])
    assert sorted((e.run_id, e.seed) for e in episodes) == [("r1", 3), ("r2", 9)]


@pytest.mark.parametrize("make, reason", [
    (lambda p: p, "no such directory"),
    (lambda p: p.mkdir() or p, "no run.sqlite"),
    (lambda p: p.mkdir() or (p / "run.sqlite").write_bytes(b"junk" * 500) and p,
     "not a usable run store"),
])
def test_a_path_that_is_not_a_run_directory_is_a_typed_error_naming_it(tmp_path, make,
                                                                       reason):
    path = make(tmp_path / "nowhere")
    with pytest.raises(AnalysisError, match=reason) as caught:
        load_episodes([path])
    assert str(caught.value).startswith(f"{path}: not a run directory")
    assert isinstance(caught.value, LlmEvalError)


def test_a_job_in_two_directories_is_one_episode_and_the_copy_is_reported(tmp_path):
    """The same settings run into two directories (the same job id) count once: the done copy
    wins over an unfinished one, whichever directory comes first."""
    first = write_store(tmp_path / "a", [{"settings": LLM, "score": 1.0},
                                         {"settings": LLM | {"seed": 4}, "status": "queued"}])
    second = write_store(tmp_path / "b", [{"settings": LLM, "score": 0.0},
                                          {"settings": LLM | {"seed": 4}, "score": 0.5},
                                          {"settings": LLM | {"seed": 5}, "score": 0.25}])
    duplicates: list = []
    episodes = load_episodes([first, second], duplicates=duplicates)
    assert sorted((e.seed, e.score, e.run_dir.name) for e in episodes) == \
        [(3, 1.0, "a"), (4, 0.5, "b"), (5, 0.25, "b")]
    assert sorted((e.seed, e.status, e.run_dir.name) for e in duplicates) == \
        [(3, "done", "b"), (4, "queued", "a")]
    assert len(load_episodes([second, first])) == 3   # the same set whatever the order
