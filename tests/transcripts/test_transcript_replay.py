"""Replay: recorded jobs re-run offline reproduce their transcripts and scores exactly; any
edit to what was recorded is a mismatch that names the job, the event and the step."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from llm_eval.cli import main
from llm_eval.replay import (
    ReplayError,
    TranscriptReplay,
    job_from_transcript,
    replay_transcript,
    run_recorded,
)
from llm_eval.runstore import RunStore
from llm_eval.sweep import Sweep, run_sweep
from llm_eval.transcripts import read_transcript, transcript_files

SHIPPED = sorted((Path(__file__).resolve().parents[2] / "transcripts").glob("*.jsonl"))
TOOLS = next(p for p in SHIPPED if p.name == "smollm2-openai-chat-warehouse-planning.jsonl")


def test_real_model_transcripts_are_shipped():
    models = {job_from_transcript(p).model for p in SHIPPED}
    assert {"openai-chat/smollm2-135m", "litellm/openai/smollm2-135m"} <= models


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_a_shipped_transcript_replays_exactly(replay_transcript, path):
    replay_transcript(path)


def edited(tmp_path, change) -> Path:
    """A copy of the tool-calling transcript with ``change(events)`` applied to its lines."""
    lines = [json.loads(line) for line in TOOLS.read_text().splitlines()]
    change(lines)
    out = tmp_path / TOOLS.name
    out.write_text("".join(json.dumps(e) + "\n" for e in lines))
    return out


def model_calls(lines):
    return [e for e in lines if e["type"] == "model_call"]


def test_an_edited_response_is_a_mismatch_naming_the_event_and_step(tmp_path, capsys):
    def change(lines):
        call = model_calls(lines)[1]   # the model's second "click 0 1"
        call["response"]["tool_calls"][0]["arguments"] = {"x": 5, "y": 5}
    path = edited(tmp_path, change)
    result = replay_transcript(path)
    assert result.status == "mismatch"
    assert result.detail.startswith("event ") and "model_call, phase interaction" in \
        result.detail and "action: recorded \"click 0 1\", replayed \"click 5 5\"" in \
        result.detail

    assert main(["replay", str(path)]) == 1
    out, err = capsys.readouterr()
    assert "reproduced 0/1" in out
    assert f"mismatch: job {result.job_id} ({path}): event " in err


def test_a_request_that_was_not_recorded_fails_the_replay_at_that_call(tmp_path):
    def change(lines):
        model_calls(lines)[1]["request_hash"] = "0" * 64
    result = replay_transcript(edited(tmp_path, change))
    assert result.status == "mismatch"
    assert "the replayed job ended failed" in result.detail
    assert "model call 1 (phase interaction, step 1) sends request" in result.detail


def test_edited_settings_are_caught_before_anything_runs(tmp_path, capsys):
    def change(lines):
        lines[0]["settings"]["history"] = 3
    path = edited(tmp_path, change)
    with pytest.raises(ReplayError, match="its settings give job id"):
        job_from_transcript(path)
    assert main(["replay", str(path)]) == 1
    assert "reproduced 0/1" in capsys.readouterr().out


def test_the_replay_adapter_refuses_a_call_beyond_the_recording(tmp_path):
    import asyncio

    from llm_eval.adapters.types import Fatal, Message, Request, TextPart

    def change(lines):
        lines[:] = [e for e in lines if e["type"] != "model_call"]
    adapter = TranscriptReplay(edited(tmp_path, change))
    request = Request(messages=(Message(role="user",
                                        parts=(TextPart(text="hi"),)),))
    with pytest.raises(Fatal, match="model call 0, but the transcript has only 0"):
        asyncio.run(adapter.complete(request))


def test_transcripts_given_on_their_own_replay_and_unfinished_ones_are_skipped(tmp_path,
                                                                               capsys):
    spec = Sweep.from_data({"models": ["random", "oracle"], "worlds": ["hunters"],
                            "families": ["mfp", "planning"],
                            "budgets": {"interaction_steps": 5}})
    report = run_sweep(spec, tmp_path)
    assert report.counts() == {"done": 4}
    torn = tmp_path / report.rows[0].transcript
    kept = gzip.decompress(torn.read_bytes()).decode().splitlines(keepends=True)
    torn.write_bytes(gzip.compress(("".join(kept[:5]) + kept[5][:10]).encode()))   # a crash
    files = [str(p) for p in transcript_files(tmp_path / "transcripts")]
    assert main(["replay", *files]) == 0   # without the store, a transcript speaks for itself
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "reproduced 3/3 (1 unfinished jobs skipped)"
    assert sum(line.endswith("reproduced score 1.000") for line in out) == 2   # oracle
    assert any("skipped: the job's status is unfinished" in line for line in out)


def test_a_torn_transcript_alone_replays_nothing_and_does_not_pass(tmp_path, capsys):
    lines = TOOLS.read_text().splitlines(keepends=True)
    torn = tmp_path / TOOLS.name
    torn.write_text("".join(lines[:4]) + lines[4][:10])   # as a crash leaves it: no end event
    assert main(["replay", str(torn)]) == 2
    out, err = capsys.readouterr()
    assert "skipped: the job's status is unfinished" in out
    assert out.splitlines()[-1] == "reproduced 0/0 (1 unfinished jobs skipped)"
    assert err == ("llm-eval: error: nothing could be replayed: 1 transcript(s) skipped: "
                   "not finished (unfinished 1)\n")


def test_transcripts_of_jobs_that_never_finished_replay_nothing(tmp_path, capsys):
    spec = Sweep.from_data({"models": ["random"], "worlds": ["hunters"],
                            "families": ["mfp", "planning"], "budgets": {"interaction_steps": 5}})
    report = run_sweep(spec, tmp_path)
    assert report.counts() == {"done": 2}
    cut, stopped = (tmp_path / row.transcript for row in report.rows)
    lines = gzip.decompress(cut.read_bytes()).decode().splitlines(keepends=True)
    cut.write_bytes(gzip.compress("".join(lines[:-1]).encode()))                  # killed
    events = [json.loads(line) for line in gzip.decompress(stopped.read_bytes()).splitlines()]
    assert events[-1]["type"] == "end"
    events[-1]["status"] = "interrupted"                                          # Ctrl-C
    stopped.write_bytes(gzip.compress("".join(json.dumps(e) + "\n" for e in events).encode()))
    assert main(["replay", str(cut), str(stopped)]) == 2   # given on their own, not the store
    out, err = capsys.readouterr()
    assert sum(" skipped: the job's status is " in line for line in out.splitlines()) == 2
    assert out.splitlines()[-1] == "reproduced 0/0 (2 unfinished jobs skipped)"
    assert err.count("\n") == 1 and err.startswith("llm-eval: error: nothing could be replayed: "
                                                    "2 transcript(s) skipped: not finished (")
    assert "unfinished 1" in err and "interrupted 1" in err


def test_a_path_without_transcripts_is_a_usage_error(tmp_path, capsys):
    assert main(["replay", str(tmp_path)]) == 2
    assert "neither a transcript nor a run directory" in capsys.readouterr().err


def test_a_recorded_job_runs_as_a_sweep_into_a_run_directory(tmp_path):
    recorded = read_transcript(TOOLS)
    report = run_recorded(TOOLS, tmp_path)
    (row,) = report.rows
    assert row.id == recorded.header.job_id and row.status == "done"
    assert row.score == recorded.of_type("score")[0].score
    assert row.usage["calls"] == len(recorded.of_type("model_call"))
    again = read_transcript(tmp_path / row.transcript)
    assert [a.action for a in again.of_type("action")] == \
        [a.action for a in recorded.of_type("action")]
    with RunStore(tmp_path / "run.sqlite") as store:
        assert store.job(report.run_id, row.id).status == "done"
    shutil.rmtree(tmp_path / "transcripts")
