"""Provider refusals in a sweep, on the loopback fake provider (issue 29 item 2, issue 33 item 4).

- OpenAI's 429 ``insufficient_quota`` is fatal at once (one request, no retries), the job ends
  ``fatal`` with what to fix; ``--resume`` leaves it (no request, nothing paid), the store,
  progress, analysis and report count it; ``--resume --retry-fatal`` runs it again.
- Anthropic's "input length and `max_tokens` exceed context limit" ends the episode
  ``ended: context``, scored, as any context overflow does (it was ``failed`` before).
"""

from __future__ import annotations

import io
import sqlite3

import pytest
from fake_provider import FakeProvider
from provider_bodies import chat_body, messages_body
from test_llm_jobs import ScriptAgent

from llm_eval.analysis.data import load_episodes
from llm_eval.analysis.stats import aggregate
from llm_eval.cli import main
from llm_eval.report.page import build_report
from llm_eval.runstore import RunStore, RunStoreError
from llm_eval.sweep import Sweep, run_sweep
from llm_eval.sweep.progress import LineProgress
from llm_eval.sweep.scheduler import resume
from llm_eval.tasks.store import load_task
from llm_eval.transcripts import read_transcript
from llm_eval.worldtest import run_episode

KEY = "fake-test-credential-FATALKEY0123"
ARGS = {"click": ("x", "y"), "watch": ("t",), "submit": ("t",), "choose": ("k",)}
QUOTA = {"error": {
    "message": "You exceeded your current quota, please check your plan and billing details. "
               "For more information on this error, read the docs: "
               "https://platform.openai.com/docs/guides/error-codes/api-errors.",
    "type": "insufficient_quota", "param": None, "code": "insufficient_quota"}}
CLAUDE_LIMIT = {"type": "error", "request_id": "req_011CUB2XUHWkFnQzxcKBbjpF", "error": {
    "type": "invalid_request_error",
    "message": "input length and `max_tokens` exceed context limit: 178959 + 64000 > 200000, "
               "decrease input length or `max_tokens` and try again"}}


def actions() -> list[tuple[str, dict]]:
    task = load_task("hunters", "mfp")
    out = []
    for record in run_episode(task, ScriptAgent(task)).records:
        kind, *values = record.action.split()
        out.append((kind.replace("-", "_"), dict(zip(ARGS.get(kind, ()), map(int, values)))))
    return out


def spec_for(model: str, base_url: str) -> Sweep:
    return Sweep.from_data({
        "models": [model], "worlds": ["hunters"], "families": ["mfp"],
        "calls": {"max_attempts": 3, "timeout": 20},
        "adapter_options": {model: {"base_url": base_url, "timeout": 2.0}}})


def test_insufficient_quota_ends_fatal_left_by_resume_until_retry_fatal(tmp_path, monkeypatch,
                                                                         capsys):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeProvider() as fake:
        fake.error(429, QUOTA)
        spec = spec_for("openai-chat/gpt-4.1-mini", fake.base_url + "/v1")
        lines = io.StringIO()
        report = run_sweep(spec, tmp_path, progress=LineProgress(lines))
        (row,) = report.rows
        # fatal at once: one request, not six
        assert len(fake.seen) == 1
        assert row.status == "fatal" and row.score is None, row.error
        assert "provider refused (quota)" in row.error and "add credit" in row.error
        assert "--retry-fatal" in row.error
        assert "1 fatal" in lines.getvalue()
        transcript = read_transcript(tmp_path / row.transcript)
        assert transcript.events[-1].status == "fatal"
        assert [a["outcome"] for a in transcript.of_type("infrastructure_error")[0].attempts] \
            == ["fatal"]

        # counted apart by the analysis and the report, never scored
        (episode,) = load_episodes([tmp_path])
        assert episode.is_fatal and not episode.is_done and not episode.is_infra_error
        (arm,) = aggregate([episode], ("model",))
        assert (arm.n_fatal, arm.n_done, arm.n_failed, arm.n_unfinished) == (1, 0, 0, 0)
        page = build_report([tmp_path], tmp_path / "report.html").read_text()
        assert "1 fatal" in page

        # --resume leaves it: no request, nothing paid, and says what to do
        lines = io.StringIO()
        (again,) = resume(tmp_path, progress=LineProgress(lines))
        assert again.executed == [] and again.held == [row.id] and len(fake.seen) == 1
        assert "1 fatal left as they are" in lines.getvalue()
        capsys.readouterr()
        assert main(["run", "--resume", str(tmp_path), "--no-progress"]) == 3
        err = capsys.readouterr().err
        assert len(fake.seen) == 1
        assert "1 jobs ended fatal" in err and "add credit" in err
        assert f"llm-eval run --resume {tmp_path} --retry-fatal" in err

        # after the fix, --retry-fatal runs it again (its earlier transcript kept)
        for i, (name, args) in enumerate(actions()):
            fake.reply(chat_body(calls=[(f"call_{i}", name, args)]))
        assert main(["run", "--resume", str(tmp_path), "--retry-fatal", "--no-progress"]) == 0
    with RunStore(tmp_path / "run.sqlite", readonly=True) as store:
        job = store.job(report.run_id, row.id)
    assert job.status == "done" and job.score == 1.0 and job.executions == 2
    earlier = read_transcript(tmp_path / "transcripts" / "attempts" / f"{row.id}.1.jsonl.gz")
    assert earlier.events[-1].status == "fatal"


def test_other_infra_errors_are_still_rerun_by_resume(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeProvider() as fake:
        for _ in range(3):
            fake.fault("503")
        spec = spec_for("openai-chat/gpt-4.1-mini", fake.base_url + "/v1")
        (row,) = run_sweep(spec, tmp_path).rows
        assert row.status == "infra_error"
        for i, (name, args) in enumerate(actions()):
            fake.reply(chat_body(calls=[(f"call_{i}", name, args)]))
        (again,) = resume(tmp_path)
    assert again.executed == [row.id] and again.rows[0].status == "done"


def test_anthropic_context_limit_ends_the_episode_on_context(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    played = actions()
    test_starts = [name for name, _ in played].index("go_to_test") + 1
    with FakeProvider() as fake:
        for i, (name, args) in enumerate(played[:test_starts]):
            fake.reply(messages_body(calls=[(f"toolu_{i}", name, args)]))
        fake.error(400, CLAUDE_LIMIT)
        report = run_sweep(spec_for("anthropic/claude-sonnet-4-5", fake.base_url), tmp_path)
        asked = len(fake.seen)
    (row,) = report.rows
    assert row.status == "done" and row.ended == "context" and row.score == 0.0, row.error
    assert asked == test_starts + 1   # the refusal is not retried
    (refused,) = read_transcript(tmp_path / row.transcript).of_type("context_exhausted")
    assert "exceed context limit" in refused.message


SCHEMA_3 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES ('schema_version', '3');
CREATE TABLE runs (id TEXT PRIMARY KEY, name TEXT NOT NULL, spec TEXT NOT NULL,
                   created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE jobs (run_id TEXT NOT NULL REFERENCES runs(id), id TEXT NOT NULL,
    settings TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('queued','running','done','failed','infra_error')),
    score REAL, raw_reward REAL, usage TEXT, cost_usd REAL, transcript TEXT, error TEXT,
    executions INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL, started_at TEXT,
    finished_at TEXT, spent_usd REAL NOT NULL DEFAULT 0, ended TEXT,
    PRIMARY KEY (run_id, id));
CREATE INDEX jobs_status ON jobs(run_id, status);
INSERT INTO runs VALUES ('r', 'n', '{}', 't', 't');
INSERT INTO jobs (run_id, id, settings, status, score, spent_usd, ended, created_at)
    VALUES ('r', 'a', '{}', 'done', 0.5, 0.25, 'context', 't'),
           ('r', 'b', '{}', 'running', NULL, 0.0, NULL, 't'),
           ('r', 'c', '{}', 'infra_error', NULL, 0.1, NULL, 't');
"""


def test_a_schema_3_store_is_upgraded_to_take_fatal_and_resume_leaves_fatal_jobs(tmp_path):
    path = tmp_path / "run.sqlite"
    db = sqlite3.connect(path)
    db.executescript(SCHEMA_3)
    db.close()
    with pytest.raises(sqlite3.IntegrityError):   # what the old CHECK refuses
        with sqlite3.connect(path) as old:
            old.execute("UPDATE jobs SET status='fatal' WHERE id='b'")
    with RunStore(path, readonly=True) as store:   # a reader takes schema 3 as it is
        assert store.counts("r")["infra_error"] == 1
    with RunStore(path) as store:
        store.fail("r", "b", "fatal", "provider refused (quota): ...")
        assert store.job("r", "a").ended == "context" and store.total_cost("r") == 0.35
        assert store.counts("r") == {"queued": 0, "running": 0, "done": 1, "failed": 0,
                                     "infra_error": 1, "fatal": 1}
        assert store.requeue_unfinished("r") == 1   # the infra_error, not the fatal job
        assert store.job("r", "b").status == "fatal"
        with pytest.raises(RunStoreError, match="cannot go from done to fatal"):
            store.fail("r", "a", "fatal", "x")
        assert store.requeue_unfinished("r", retry_fatal=True) == 1
        assert store.job("r", "b").status == "queued"
        version = store._db.execute("SELECT value FROM meta").fetchone()[0]
        indexes = {r[1] for r in store._db.execute("PRAGMA index_list(jobs)")}
    assert version == "4" and "jobs_status" in indexes
