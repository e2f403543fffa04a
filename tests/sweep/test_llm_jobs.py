"""LLM jobs through the fake provider on loopback: model calls with their attempts and images
stream into the transcript, exhausted retries make an infra_error that a resume reruns, and no
key reaches the disk."""

from __future__ import annotations

import functools

from fake_provider import FakeProvider
from provider_bodies import chat_body

from llm_eval.agents import OracleAgent
from llm_eval.runstore import RunStore
from llm_eval.sweep import Sweep, run_sweep
from llm_eval.tasks.store import load_task
from llm_eval.transcripts import read_transcript
from llm_eval.worldtest import run_episode

SECRET = "fake-test-credential-SWEEPKEY0123"
MODEL = "openai-chat/gpt-4.1-mini"
ARGS = {"click": ("x", "y"), "watch": ("t",), "submit": ("t",), "choose": ("k",)}


class ScriptAgent:
    """Explore a little, go to the test, then play as the oracle."""

    def __init__(self, task) -> None:
        self.oracle = OracleAgent(task)
        self.explore = ["left", "noop"]

    def reset(self, start) -> None:
        self.oracle.reset(start)

    def act(self, observation) -> str:
        if observation.phase == "interaction":
            return self.explore.pop(0) if self.explore else "go-to-test"
        return self.oracle.act(observation)


@functools.cache
def reference_actions(world: str, family: str) -> tuple[str, ...]:
    task = load_task(world, family)
    return tuple(r.action for r in run_episode(task, ScriptAgent(task)).records)


def reply(i: int, action: str) -> dict:
    kind, *values = action.split()
    args = dict(zip(ARGS.get(kind, ()), map(int, values)))
    return chat_body(calls=[(f"call_{i}", kind.replace("-", "_"), args)])


def spec_for(fake: FakeProvider) -> Sweep:
    return Sweep.from_data({
        "models": [MODEL], "worlds": ["hunters"], "families": ["mfp"],
        "renderings": ["compact+png"], "calls": {"max_attempts": 3, "timeout": 20},
        "adapter_options": {MODEL: {"base_url": fake.base_url + "/v1", "timeout": 2.0}}})


def no_secret_on_disk(root) -> None:
    for path in root.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert SECRET.encode() not in data, path
            assert b"Bearer" not in data, path


def test_an_llm_job_writes_its_model_calls_with_attempts_and_no_key(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    actions = reference_actions("hunters", "mfp")
    with FakeProvider() as fake:
        for i, action in enumerate(actions):
            if i == 1:
                fake.fault("429", retry_after=1)
            fake.reply(reply(i, action))
        report = run_sweep(spec_for(fake), tmp_path)
        assert any(SECRET in " ".join(s.headers.values()) for s in fake.seen)
    (row,) = report.rows
    assert row.status == "done" and row.score == 1.0, row.error
    assert row.usage["calls"] == len(actions) and row.usage["retries"] == 1
    transcript = read_transcript(tmp_path / row.transcript)
    calls = transcript.of_type("model_call")
    assert [c.action for c in calls] == list(actions)
    assert [a["outcome"] for a in calls[1].attempts] == ["rate_limited", "ok"]
    assert all(c.usage["input_tokens"] > 0 and c.response for c in calls)
    assert [a.action for a in transcript.of_type("action")] == list(actions)
    # the images sent are stored once each, by hash, beside the transcript
    images = {h for c in calls for h in c.images}
    stored = {p.stem for p in (tmp_path / "transcripts" / "images").iterdir()}
    assert images and images == stored
    assert "<image sha256=" in str(calls[0].request)
    assert transcript.header.versions["prompt"]["variant"] == "default"
    # priced from LiteLLM's map, which the header names with its version
    from llm_eval.pricing import price

    prices = transcript.header.versions["prices"]
    assert prices["map"] == "litellm" and prices["litellm"][0].isdigit()
    assert calls[0].cost["source"] == f"LiteLLM price map (litellm {prices['litellm']})"
    assert calls[0].cost["usd"] == price(calls[0].usage, MODEL).usd > 0
    no_secret_on_disk(tmp_path)


def test_exhausted_retries_are_an_infra_error_rerun_on_resume(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    actions = reference_actions("hunters", "mfp")
    with FakeProvider() as fake:
        for _ in range(3):
            fake.fault("503")
        spec = spec_for(fake)
        report = run_sweep(spec, tmp_path)
        (row,) = report.rows
        assert row.status == "infra_error" and row.score is None
        assert "gave up after 3 attempts" in row.error
        transcript = read_transcript(tmp_path / row.transcript)
        (error,) = transcript.of_type("infrastructure_error")
        assert [a["outcome"] for a in error.attempts] == ["transient"] * 3
        assert transcript.events[-1].status == "infra_error" and not transcript.of_type("score")

        for i, action in enumerate(actions):
            fake.reply(reply(i, action))
        again = run_sweep(spec, tmp_path)
    (row,) = again.rows
    assert again.executed == [row.id] and row.status == "done" and row.score == 1.0
    with RunStore(tmp_path / "run.sqlite") as store:
        assert store.job(again.run_id, row.id).executions == 2
    earlier = read_transcript(tmp_path / "transcripts" / "attempts" / f"{row.id}.1.jsonl.gz")
    assert earlier.events[-1].status == "infra_error"
    no_secret_on_disk(tmp_path)


def test_a_malformed_reply_is_an_infra_error_with_a_plain_message(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeProvider() as fake:
        fake.fault("html").reply({**reply(0, "left"), "choices": "left"}).fault("html")
        report = run_sweep(spec_for(fake), tmp_path)
    (row,) = report.rows
    assert row.status == "infra_error" and row.score is None
    assert row.error.startswith("openai-chat: gave up after 3 attempts; last: transient: "
                                "provider returned a malformed response: expected a chat "
                                "completion (a JSON object), got text: '<!DOCTYPE html>")
    assert "Traceback" not in row.error and "AttributeError" not in row.error
    transcript = read_transcript(tmp_path / row.transcript)
    (error,) = transcript.of_type("infrastructure_error")
    assert [a["error_class"] for a in error.attempts] == ["MalformedResponse"] * 3
    assert "'choices' a list, got str 'left'" in error.attempts[1]["message"]


def test_a_key_the_server_echoes_reaches_no_file_and_the_run_still_replays(tmp_path,
                                                                          monkeypatch):
    from fake_provider import ECHO_KEY

    from llm_eval.replay import replay_check, replay_checks

    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeProvider() as fake:
        for i, action in enumerate(reference_actions("hunters", "mfp")):
            body = reply(i, action)
            body["choices"][0]["message"]["content"] = f"debug: key {ECHO_KEY}"
            fake.reply(body)
        report = run_sweep(spec_for(fake), tmp_path)
    (row,) = report.rows
    assert row.status == "done" and row.score == 1.0, row.error
    no_secret_on_disk(tmp_path)
    calls = read_transcript(tmp_path / row.transcript).of_type("model_call")
    assert calls[0].response["text"] == "debug: key [redacted]"
    # later requests quote the redacted answer: the recorded hashes are of scrubbed requests
    monkeypatch.delenv("OPENAI_API_KEY")
    ((path, stored),) = replay_checks(tmp_path)
    assert replay_check(path, stored).status == "reproduced"


CONTEXT_ERROR = {"error": {
    "message": "This model's maximum context length is 8192 tokens. However, your messages "
               "resulted in 8301 tokens. Please reduce the length of the messages.",
    "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}


def test_a_full_context_ends_the_episode_scored_done_and_counted(tmp_path, monkeypatch):
    """The provider's context-length error is not an infrastructure error: the episode ends
    where it stands and is scored (an MFP test left unanswered scores 0), the job is done with
    ``ended`` context, a resume leaves it alone, the leaderboard counts it in the mean and
    apart, and the transcript replays (the refused request is refused again)."""
    from llm_eval.analysis.data import load_episodes
    from llm_eval.analysis.stats import aggregate
    from llm_eval.replay import replay_check, replay_checks
    from llm_eval.report.page import build_report

    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    actions = reference_actions("hunters", "mfp")
    test_starts = actions.index("go-to-test") + 1
    with FakeProvider() as fake:
        for i, action in enumerate(actions[:test_starts]):   # full at the test's first turn
            fake.reply(reply(i, action))
        fake.error(400, CONTEXT_ERROR)
        spec = spec_for(fake)
        report = run_sweep(spec, tmp_path)
        asked = len(fake.seen)
        (row,) = report.rows
        assert row.status == "done" and row.score == 0.0 and row.ended == "context", row.error
        assert row.usage["calls"] == test_starts and asked == test_starts + 1
        again = run_sweep(spec, tmp_path)   # done: not run (and not paid for) again
        assert again.executed == [] and len(fake.seen) == asked
    transcript = read_transcript(tmp_path / row.transcript)
    (refused,) = transcript.of_type("context_exhausted")
    assert (refused.index, refused.phase) == (test_starts, "mfp")
    assert "maximum context length" in refused.message
    assert [a["outcome"] for a in refused.attempts] == ["fatal"]
    (score,) = transcript.of_type("score")
    assert score.result["ended"] == "context" and score.result["test"]["ended"] == "context"
    assert transcript.events[-1].status == "done"
    (episode,) = load_episodes([tmp_path])
    assert episode.is_done and episode.ended_on_context
    (arm,) = aggregate([episode], ("model",))
    assert arm.n_done == 1 and arm.n_context == 1 and arm.estimate.n == 1
    page = build_report([tmp_path], tmp_path / "report.html").read_text()
    assert "ended on context" in page and "ended on the model&#x27;s context" in page
    monkeypatch.delenv("OPENAI_API_KEY")
    ((path, stored),) = replay_checks(tmp_path)
    assert replay_check(path, stored).status == "reproduced"
    no_secret_on_disk(tmp_path)
