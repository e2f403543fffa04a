"""Stopping a run: the live spend cap and Ctrl-C end running episodes before their next model
call and put them back in the queue with their spend counted; the progress display; a
schema-1 store is upgraded in place."""

from __future__ import annotations

import io
import os
import signal
import sqlite3
import subprocess
import sys
import time

from fake_provider import FakeProvider
from test_llm_jobs import MODEL, SECRET, reference_actions, reply

from llm_eval.runstore import SCHEMA_VERSION, RunStore
from llm_eval.sweep import JobOutcome, Sweep, run_sweep
from llm_eval.sweep.progress import LineProgress, Progress, make_progress
from llm_eval.transcripts import read_transcript, transcript_files, transcript_name

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def capped_spec(fake: FakeProvider, cap: float) -> Sweep:
    return Sweep.from_data({
        "models": [MODEL], "worlds": ["hunters"], "families": ["mfp"], "spend_cap_usd": cap,
        "calls": {"max_attempts": 1, "timeout": 20},
        "adapter_options": {MODEL: {"base_url": fake.base_url + "/v1", "timeout": 2.0}}})


def test_the_spend_cap_stops_a_running_episode_before_its_next_call(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    actions = reference_actions("hunters", "mfp")
    with FakeProvider() as fake:
        for i, action in enumerate(actions):
            fake.reply(reply(i, action))
        # one call (900 tokens in, 40 out at gpt-4.1-mini prices) costs more than this cap
        report = run_sweep(capped_spec(fake, 0.0001), tmp_path)
        assert len(fake.seen) == 1   # the call in flight finished; no other was made
    (row,) = report.rows
    assert report.stopped_by_spend_cap and report.interrupted == [row.id]
    assert row.status == "queued" and row.score is None and "spend cap" in row.error
    assert row.spent_usd == row.cost_usd > 0.0001
    first_cost = row.cost_usd
    transcript = read_transcript(tmp_path / row.transcript)
    assert len(transcript.of_type("model_call")) == 1
    assert transcript.events[-1].status == "interrupted" and not transcript.of_type("score")

    # a higher cap for the same jobs keeps the run: the job runs again, and both count
    with FakeProvider() as fake:
        for i, action in enumerate(actions):
            fake.reply(reply(i, action))
        again = run_sweep(capped_spec(fake, 1.0), tmp_path)
    (row,) = again.rows
    assert again.run_id == report.run_id and row.status == "done" and row.score == 1.0
    with RunStore(tmp_path / "run.sqlite") as store:
        assert store.job(row.run_id, row.id).executions == 2
        assert abs(store.total_cost(row.run_id) - (row.cost_usd + first_cost)) < 1e-12


def test_a_stop_event_requeues_running_jobs_and_starts_no_more(tmp_path):
    import threading

    from llm_eval.sweep import execute_job

    stop = threading.Event()

    def execute(job, spec, path, **kwargs):
        stop.set()   # as if Ctrl-C came while the first job ran
        return execute_job(job, spec, path, **kwargs)

    spec = Sweep.from_data({"models": ["random"], "worlds": ["hunters"], "families": ["mfp"],
                            "seeds": [1, 2, 3], "default_concurrency": 1})
    report = run_sweep(spec, tmp_path, execute=execute, stop=stop)
    assert report.stopped_by_user and len(report.executed) == 1
    assert report.counts() == {"queued": 3}
    (first,) = report.executed
    assert read_transcript(tmp_path / "transcripts" / transcript_name(first)).events[-1].status \
        == "interrupted"
    finished = run_sweep(spec, tmp_path)
    assert finished.counts() == {"done": 3}


def test_ctrl_c_stops_the_command_cleanly_and_the_run_resumes(tmp_path):
    run_dir = tmp_path / "run"
    argv = [sys.executable, "-m", "llm_eval", "run", "--model", "random", "--model", "oracle",
            "--worlds", "hunters", "easel", "--families", "mfp", "cd", "planning",
            "--seeds", "1", "2", "--concurrency", "local=2", "-o", str(run_dir)]
    env = {**os.environ, "PYTHONPATH": ROOT}
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env, cwd=ROOT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if (run_dir / "run.sqlite").exists():
            with RunStore(run_dir / "run.sqlite") as store:
                runs = store.runs()
                if runs and store.counts(runs[0]["id"])["done"] >= 3:
                    break
        time.sleep(0.05)
    assert process.poll() is None, "the run ended before it could be interrupted"
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "stopping: running episodes end before their next model call" in err
    assert f"llm-eval run --resume {run_dir}" in err and "stopped by Ctrl-C" in out
    with RunStore(run_dir / "run.sqlite") as store:
        (run,) = store.runs()
        counts = store.counts(run["id"])
        assert counts["running"] == 0 and counts["queued"] > 0 and counts["done"] >= 3
    for path in transcript_files(run_dir / "transcripts"):
        assert read_transcript(path).events[-1].status in ("done", "interrupted")

    resumed = subprocess.run([sys.executable, "-m", "llm_eval", "run", "--no-progress",
                              "--resume", str(run_dir)], capture_output=True, text=True,
                             env=env, cwd=ROOT, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert "24 jobs (24 done)" in resumed.stdout and resumed.stderr == ""


def test_progress_lines_count_jobs_spend_and_estimate_the_time_left():
    stream = io.StringIO()
    progress = LineProgress(stream)
    job = type("Job", (), {"id": "j1", "settings": {"model": "oracle", "task": "hunters-mfp",
                                                    "seed": 1}})()
    progress.begin(total=4, done=1, spent=0.5)
    progress.started(job)
    assert progress.summary() == "1/4 done, 1 running, 0 failed, spent $0.5000"
    progress.finished(job, JobOutcome("done", score=1.0), spent=0.75)
    progress.started(job)
    progress.finished(job, JobOutcome("infra_error", error="gave up after 3 attempts\nmore"),
                      spent=0.75)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "4 jobs, 1 already done"
    assert lines[1].startswith("[2/4 done, 0 running, 0 failed, spent $0.7500, ETA ")
    assert lines[1].endswith("] j1 oracle hunters-mfp seed 1: done score 1.000")
    assert lines[2].endswith("j1 oracle hunters-mfp seed 1: infra_error "
                             "(gave up after 3 attempts)")
    assert progress.eta() is not None and progress.eta() >= 0


def test_the_display_is_live_on_a_terminal_and_lines_elsewhere():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert type(make_progress(io.StringIO())) is LineProgress
    assert type(make_progress(Terminal(), enabled=False)) is Progress
    screen = Terminal()
    live = make_progress(screen)
    assert type(live).__name__ == "LiveProgress"
    job = type("Job", (), {"id": "j1", "settings": {"model": "oracle", "task": "hunters-mfp",
                                                    "seed": 1}})()
    live.begin(total=2, done=0, spent=0.0)
    live.started(job)
    live.finished(job, JobOutcome("done", score=0.5), spent=0.0)
    live.end()
    assert "1/2 done, 0 running, 0 failed, spent $0.0000" in screen.getvalue()
    assert "j1 oracle hunters-mfp seed 1: done score 0.500" in screen.getvalue()


def test_a_schema_1_store_is_upgraded_in_place(tmp_path):
    path = tmp_path / "run.sqlite"
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta VALUES ('schema_version', '1');
        CREATE TABLE runs (id TEXT PRIMARY KEY, name TEXT NOT NULL, spec TEXT NOT NULL,
                           created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
        CREATE TABLE jobs (run_id TEXT NOT NULL, id TEXT NOT NULL, settings TEXT NOT NULL,
            status TEXT NOT NULL, score REAL, raw_reward REAL, usage TEXT, cost_usd REAL,
            transcript TEXT, error TEXT, executions INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL, started_at TEXT, finished_at TEXT,
            PRIMARY KEY (run_id, id));
        INSERT INTO runs VALUES ('r', 'n', '{}', 't', 't');
        INSERT INTO jobs (run_id, id, settings, status, score, cost_usd, created_at)
            VALUES ('r', 'a', '{}', 'done', 1.0, 0.25, 't'),
                   ('r', 'b', '{}', 'queued', NULL, NULL, 't');
    """)
    db.close()
    with RunStore(path, readonly=True) as store:   # a reader of an old store: no ended
        assert [j.ended for j in store.jobs("r")] == [None, None]
    with RunStore(path) as store:
        assert store.total_cost("r") == 0.25
        assert [j.spent_usd for j in store.jobs("r")] == [0.25, 0.0]
        assert [j.ended for j in store.jobs("r")] == [None, None]
        store.start("r", "b", "t.jsonl")
        store.finish("r", "b", score=0.0, raw_reward=0.0, ended="context")
    with RunStore(path) as store:   # and opens again as the current schema
        assert store.job("r", "a").score == 1.0
        assert store.job("r", "b").ended == "context"
        version = store._db.execute("SELECT value FROM meta").fetchone()[0]
    assert int(version) == SCHEMA_VERSION == 4


def test_a_schema_2_store_gains_ended(tmp_path):
    path = tmp_path / "run.sqlite"
    with RunStore(path) as store:
        store.add_run("r", "n", {})
    db = sqlite3.connect(path)   # as schema 2 left it: no ended column
    db.executescript("""
        ALTER TABLE jobs DROP COLUMN ended;
        UPDATE meta SET value='2' WHERE key='schema_version';
    """)
    db.close()
    with RunStore(path) as store:
        assert store.runs()[0]["id"] == "r"
        assert "ended" in {r[1] for r in store._db.execute("PRAGMA table_info(jobs)")}
