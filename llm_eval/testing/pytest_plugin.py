"""The pytest plugin (registered as the ``pytest11`` entry point ``llm_eval``): the fixture
``replay_transcript`` makes a replay test one line::

    def test_my_recorded_episode_replays(replay_transcript):
        replay_transcript("transcripts/my-episode.jsonl")

It re-runs the recorded job offline (``llm_eval.replay.replay_transcript``) and fails the test
with the first difference (event, phase, step, field) unless the transcript is reproduced;
it returns the ``ReplayResult`` (score, job id) for further checks. A transcript of a job
that did not finish fails too: there is nothing to reproduce.
"""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def replay_transcript():
    from llm_eval.replay import replay_transcript as replay

    def check(path: str | Path):
        result = replay(path)
        if not result.reproduced:
            pytest.fail(f"{result.path}: job {result.job_id} ({result.model}, {result.task}) "
                        f"not reproduced: {result.status}: {result.detail}", pytrace=False)
        return result

    return check
