"""The run store: jobs are added once, statuses move only along legal paths, unfinished jobs
are requeued, and the file is SQLite in WAL mode."""

from __future__ import annotations

import sqlite3

import pytest

from llm_eval.runstore import RunStore, RunStoreError
from llm_eval.sweep import Job

JOBS = [Job.of({"model": "random", "n": n}) for n in range(4)]


@pytest.fixture
def store(tmp_path):
    with RunStore(tmp_path / "run.sqlite") as s:
        s.add_run("r1", "test", {"models": ["random"]})
        assert s.add_jobs("r1", JOBS) == 4
        yield s


def test_jobs_are_added_once_and_queued(store):
    assert store.add_jobs("r1", JOBS) == 0
    assert store.counts("r1")["queued"] == 4
    row = store.job("r1", JOBS[0].id)
    assert row.settings == JOBS[0].settings and row.executions == 0 and row.score is None


def test_status_transitions(store):
    a, b, c, d = (j.id for j in JOBS)
    store.start("r1", a, "transcripts/a.jsonl")
    assert store.job("r1", a).status == "running" and store.job("r1", a).started_at
    store.finish("r1", a, score=0.5, raw_reward=-0.5, usage={"calls": 2}, cost_usd=0.01)
    row = store.job("r1", a)
    assert (row.status, row.score, row.raw_reward, row.usage, row.cost_usd, row.executions) \
        == ("done", 0.5, -0.5, {"calls": 2}, 0.01, 1)
    store.start("r1", b, "t")
    store.fail("r1", b, "infra_error", "gave up after 6 attempts")
    store.start("r1", c, "t")
    store.fail("r1", c, "failed", "boom")
    store.start("r1", d, "t")                      # left running: the run was stopped
    with pytest.raises(RunStoreError, match="cannot go from done to running"):
        store.start("r1", a, "t")
    with pytest.raises(RunStoreError, match="cannot go from queued|not a failure status"):
        store.fail("r1", a, "done", "x")
    assert store.counts("r1") == {"queued": 0, "running": 1, "done": 1, "failed": 1,
                                  "infra_error": 1, "fatal": 0}
    assert store.total_cost("r1") == pytest.approx(0.01)

    assert store.requeue_unfinished("r1") == 3
    assert store.counts("r1")["queued"] == 3 and store.counts("r1")["done"] == 1
    store.start("r1", b, "t")
    store.finish("r1", b, score=1.0, raw_reward=1.0)
    row = store.job("r1", b)
    assert row.executions == 2 and row.error is None and row.status == "done"


def test_the_file_is_sqlite_in_wal_mode_and_reopens(tmp_path, store):
    store.start("r1", JOBS[0].id, "t")
    store.finish("r1", JOBS[0].id, score=1.0, raw_reward=1.0)
    db = sqlite3.connect(store.path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("SELECT status FROM jobs WHERE id=?", (JOBS[0].id,)).fetchone()[0] \
        == "done"
    with RunStore(store.path) as again:
        assert again.latest_run()["spec"] == {"models": ["random"]}
        assert [r.status for r in again.jobs("r1", "done")] == ["done"]


def test_a_file_that_is_not_a_store_is_an_error_naming_it(tmp_path):
    path = tmp_path / "run.sqlite"
    path.write_bytes(b"not a database at all" * 100)
    with pytest.raises(RunStoreError, match="run.sqlite: not a usable run store"):
        RunStore(path)


def test_a_status_move_is_one_transaction(tmp_path):
    """Many connections race to finish the same running job: exactly one succeeds, the others
    are told it is done, and none reads a status another has just changed."""
    import threading

    path = tmp_path / "race.sqlite"
    with RunStore(path) as s:
        s.add_run("r1", "test", {})
        s.add_jobs("r1", JOBS[:1])
    outcomes: list[str] = []
    barrier = threading.Barrier(8, timeout=120)   # a failed open breaks it rather than hang

    def finish() -> None:
        with RunStore(path) as mine:
            barrier.wait()
            try:
                mine.start("r1", JOBS[0].id, "t")
                outcomes.append("started")
            except RunStoreError as exc:
                outcomes.append(str(exc))
            try:
                mine.finish("r1", JOBS[0].id, score=1.0, raw_reward=1.0)
                outcomes.append("finished")
            except RunStoreError as exc:
                outcomes.append(str(exc))

    threads = [threading.Thread(target=finish) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes.count("started") == 1 and outcomes.count("finished") == 1, outcomes
    refused = [o for o in outcomes if o not in ("started", "finished")]
    assert len(refused) == 14 and all("cannot go from" in o for o in refused), refused
    with RunStore(path) as s:
        row = s.job("r1", JOBS[0].id)
        assert (row.status, row.executions) == ("done", 1)


def test_many_connections_opening_a_closed_store_at_once_all_open(tmp_path):
    """A closed store is in rollback mode; connections opening it together all switch it to
    WAL, which SQLite refuses at once to all but one ("database is locked"): each open waits
    its turn instead of failing."""
    import threading

    path = tmp_path / "many.sqlite"
    with RunStore(path) as s:
        s.add_run("r1", "test", {})
    for _round in range(20):
        errors: list[str] = []
        barrier = threading.Barrier(12, timeout=120)

        # the threads are joined in this round: they read this round's barrier and errors
        # (the noqa: B023 below)
        def open_it() -> None:
            barrier.wait()  # noqa: B023
            try:
                with RunStore(path) as mine:
                    assert mine.latest_run()["id"] == "r1"
            except RunStoreError as exc:
                errors.append(str(exc))  # noqa: B023

        threads = [threading.Thread(target=open_it) for _ in range(12)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
