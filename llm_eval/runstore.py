"""The run store: an embedded SQLite database indexing runs and jobs beside the transcripts.

``RunStore(path)`` opens (or creates) ``run.sqlite`` in WAL mode. Tables:

- ``runs(id, name, spec, created_at, updated_at)``: one row per set of jobs run in the
  directory (``spec``: the latest spec that ran them, as JSON, which a resume reuses);
- ``jobs(run_id, id, settings, status, score, raw_reward, usage, cost_usd, transcript, error,
  executions, created_at, started_at, finished_at, spent_usd, ended)``: one row per job of a run
  (``settings`` and ``usage`` as JSON; ``usage`` and ``cost_usd`` are the latest execution's,
  ``spent_usd`` the cost of every execution so far, which the spend cap counts). ``status``
  moves ``queued -> running -> done | failed | infra_error | fatal``, or back to ``queued``
  when an execution was stopped (a spend cap, Ctrl-C); a job that is not ``done`` is run again
  on resume (``running`` means the previous run stopped in the middle of it), except a
  ``fatal`` one: the provider refused it for a reason only the user can fix (no credit, a
  refused key, an unknown model), which a resume would pay to meet again, so it is requeued
  only when asked (``requeue_unfinished(retry_fatal=True)``, ``--retry-fatal``). A job one run
  did is not run again by another run of the same directory: ``adopt_done`` marks it done
  there with the first run's result. ``ended`` is set on a done job whose episode was cut
  short and scored as it stood: "context" (the model's context was full).

Schema 2 added ``spent_usd``, schema 3 ``ended``, schema 4 the status ``fatal`` (the jobs table
is rebuilt with the wider CHECK); an older store is upgraded in place when opened for
writing.

Writers: only the scheduler's thread writes, under the run directory's lock (``runlock``),
and every change is one transaction; a status move reads the status and writes the new one
inside one ``BEGIN IMMEDIATE`` transaction, so no other connection can move the job in
between. Closing a writer leaves the file in rollback-journal mode (no ``-wal`` or ``-shm``
beside it) when no other connection has it open, so it can then be read with nothing written.

Readers: ``RunStore(path, readonly=True)`` (``report``, ``replay``, ``compare``, the
analysis) writes nothing, not even a ``-wal`` or ``-shm`` file: it opens the file with SQLite's
``mode=ro``, or ``immutable=1`` when nothing can be writing it (the file is in WAL mode with
no ``-wal`` beside it, or the directory is not writable); it neither creates tables nor
upgrades an older store (whose rows read with ``spent_usd`` 0 and no ``ended``).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import urllib.parse
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Iterable, Literal, Protocol, get_args

from .errors import LlmEvalError

__all__ = ["RunStore", "JobRow", "RunStoreError", "JobStatus", "Failure", "EndStatus",
           "STATUSES", "FINISHED", "FAILURES", "FATAL", "STORE_FILE", "TRANSCRIPTS_DIR"]

# The closed vocabulary of a job's status. A job's row moves through JobStatus; one execution
# of a job (its transcript's ``end``, the scheduler's outcome) ends with an EndStatus:
# ``interrupted`` puts the row back to ``queued``.
Failure = Literal["failed", "infra_error", "fatal"]   # never scored
JobStatus = Literal["queued", "running", "done", Failure]
EndStatus = Literal["done", Failure, "interrupted"]

# a run directory: its store, and its transcripts (one file a job) in this folder
STORE_FILE = "run.sqlite"
TRANSCRIPTS_DIR = "transcripts"
FATAL: Final = "fatal"   # refused by the provider for a reason only the user can fix: not requeued
STATUSES: tuple[JobStatus, ...] = get_args(JobStatus)
FINISHED: tuple[JobStatus, ...] = ("done",)
FAILURES: tuple[Failure, ...] = get_args(Failure)
SCHEMA_VERSION = 4
_OPEN_WAIT_S = 60.0     # how long opening waits out other connections switching modes
_OPEN_RETRY_S = 0.02

_JOBS = """(
    run_id TEXT NOT NULL REFERENCES runs(id), id TEXT NOT NULL,
    settings TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('queued','running','done','failed','infra_error',
                                           'fatal')),
    score REAL, raw_reward REAL, usage TEXT, cost_usd REAL, transcript TEXT, error TEXT,
    executions INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL, started_at TEXT, finished_at TEXT,
    spent_usd REAL NOT NULL DEFAULT 0, ended TEXT,
    PRIMARY KEY (run_id, id))"""
_JOB_COLUMNS = ("run_id, id, settings, status, score, raw_reward, usage, cost_usd, transcript, "
                "error, executions, created_at, started_at, finished_at, spent_usd, ended")
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, spec TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS jobs {_JOBS};
CREATE INDEX IF NOT EXISTS jobs_status ON jobs(run_id, status);
"""

# the legal moves of a job's status
_MOVES: dict[JobStatus, set[JobStatus]] = {
    "queued": {"running"}, "running": {"done", "failed", "infra_error", FATAL, "queued"},
    "done": set(), "failed": {"running", "queued"}, "infra_error": {"running", "queued"},
    FATAL: {"running", "queued"}}


class NewJob(Protocol):
    """A job to queue: its id and settings (``sweep.spec.Job``)."""

    @property
    def id(self) -> str: ...

    @property
    def settings(self) -> dict[str, Any]: ...


class RunStoreError(LlmEvalError):
    """A store that cannot be used, or a status move that is not allowed."""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class _Transaction:
    """``with``: ``BEGIN IMMEDIATE``, then ``COMMIT``, or ``ROLLBACK`` if the block raises."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> sqlite3.Connection:
        self.db.execute("BEGIN IMMEDIATE")
        return self.db

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")


@dataclass(frozen=True, slots=True)
class JobRow:
    run_id: str
    id: str
    settings: dict[str, Any]
    status: JobStatus
    score: float | None
    raw_reward: float | None
    usage: dict[str, Any] | None
    cost_usd: float | None
    transcript: str | None
    error: str | None
    executions: int
    created_at: str
    started_at: str | None
    finished_at: str | None
    spent_usd: float = 0.0
    ended: str | None = None

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> JobRow:
        data = dict(row)
        data["settings"] = json.loads(data["settings"])
        data["usage"] = json.loads(data["usage"]) if data["usage"] else None
        return cls(**data)


class RunStore:
    """The SQLite index of one run directory (module docstring)."""

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        if readonly:
            self._open_readonly()
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None,
                                       check_same_thread=False)
            self._db.row_factory = sqlite3.Row
            self._set_up()
        except sqlite3.DatabaseError as exc:
            raise RunStoreError(f"{self.path}: not a usable run store: {exc}") from None
        version = self._db.execute(
            "SELECT value FROM meta WHERE key='schema_version'").fetchone()[0]
        if int(version) in (1, 2, 3):
            self._upgrade_from(int(version))
            version = SCHEMA_VERSION
        if int(version) != SCHEMA_VERSION:
            raise RunStoreError(f"{self.path}: run store schema {version} is not supported "
                                f"(this program uses {SCHEMA_VERSION})")

    def _set_up(self) -> None:
        """WAL mode and the tables. Switching the journal mode needs the file to itself, and
        SQLite answers "database is locked" at once (without waiting) when several connections
        open a rollback-mode file together; so the set-up is tried again for up to
        ``_OPEN_WAIT_S`` seconds before the error stands (a wait that only decides whether the
        store opens, never what it holds)."""
        waited = 0.0
        while True:
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
                self._db.executescript(_SCHEMA)
                self._db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)",
                                 (str(SCHEMA_VERSION),))
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or waited >= _OPEN_WAIT_S:
                    raise
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                time.sleep(_OPEN_RETRY_S)
                waited += _OPEN_RETRY_S

    def _open_readonly(self) -> None:
        """Open for reading only, writing nothing (module docstring)."""
        if not self.path.is_file():
            raise RunStoreError(f"{self.path}: no run store there")
        try:
            with open(self.path, "rb") as f:
                head = f.read(100)
        except OSError as exc:
            raise RunStoreError(f"{self.path}: cannot be read: {exc.strerror or exc}") from None
        wal = len(head) == 100 and head[18:20] == b"\x02\x02"   # WAL read and write versions
        quiet = not os.path.exists(f"{self.path}-wal")   # no writer can be live
        unwritable = not os.access(self.path.parent, os.W_OK)
        mode = "immutable=1" if wal and (quiet or unwritable) else "mode=ro"
        uri = f"file:{urllib.parse.quote(str(self.path.resolve()))}?{mode}"
        try:
            self._db = sqlite3.connect(uri, uri=True, isolation_level=None,
                                       check_same_thread=False)
            self._db.row_factory = sqlite3.Row
            row = self._db.execute(
                "SELECT value FROM meta WHERE key='schema_version'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise RunStoreError(f"{self.path}: not a usable run store: {exc}") from None
        if row is None or int(row[0]) not in (1, 2, 3, SCHEMA_VERSION):
            raise RunStoreError(f"{self.path}: run store schema {row and row[0]} is not "
                                f"supported (this program uses {SCHEMA_VERSION})")

    def _upgrade_from(self, version: int) -> None:
        with self._write() as db:
            if version < 2:
                db.execute("ALTER TABLE jobs ADD COLUMN spent_usd REAL NOT NULL DEFAULT 0")
                db.execute("UPDATE jobs SET spent_usd=COALESCE(cost_usd, 0)")
            if version < 3:
                db.execute("ALTER TABLE jobs ADD COLUMN ended TEXT")
            # SQLite cannot widen a CHECK in place: the jobs table is copied into a new one
            db.execute(f"CREATE TABLE jobs_new {_JOBS}")
            db.execute(f"INSERT INTO jobs_new ({_JOB_COLUMNS}) SELECT {_JOB_COLUMNS} FROM jobs")
            db.execute("DROP TABLE jobs")
            db.execute("ALTER TABLE jobs_new RENAME TO jobs")
            db.execute("CREATE INDEX IF NOT EXISTS jobs_status ON jobs(run_id, status)")
            db.execute("UPDATE meta SET value=? WHERE key='schema_version'",
                       (str(SCHEMA_VERSION),))

    def close(self) -> None:
        """Close; a writer leaves the file in rollback mode if it is the only connection
        (module docstring)."""
        if not self.readonly:
            try:
                self._db.execute("PRAGMA busy_timeout=0")
                self._db.execute("PRAGMA journal_mode=DELETE")
            except sqlite3.OperationalError:   # another connection has it open: stay in WAL
                pass
        self._db.close()

    def _write(self) -> _Transaction:
        """One write transaction (``BEGIN IMMEDIATE``: the write lock is taken at once)."""
        if self.readonly:
            raise RunStoreError(f"{self.path}: opened read-only")
        return _Transaction(self._db)

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- runs ------------------------------------------------------------------------------------
    def add_run(self, run_id: str, name: str, spec: dict[str, Any]) -> None:
        now = _now()
        with self._write() as db:
            db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE "
                       "SET name=excluded.name, spec=excluded.spec, "
                       "updated_at=excluded.updated_at",
                       (run_id, name, json.dumps(spec, sort_keys=True), now, now))

    def runs(self) -> list[dict[str, Any]]:
        rows = self._db.execute("SELECT * FROM runs ORDER BY created_at, id").fetchall()
        return [{**dict(r), "spec": json.loads(r["spec"])} for r in rows]

    def latest_run(self) -> dict[str, Any] | None:
        runs = self.runs()
        return max(runs, key=lambda r: r["updated_at"]) if runs else None

    # -- jobs ------------------------------------------------------------------------------------
    def add_jobs(self, run_id: str, jobs: Iterable[NewJob]) -> int:
        """Queue ``jobs`` (objects with ``id`` and ``settings``) not yet in the run; returns
        how many were new."""
        now = _now()
        before = self._db.total_changes
        with self._write() as db:
            db.executemany(
                "INSERT OR IGNORE INTO jobs (run_id, id, settings, status, created_at) "
                "VALUES (?, ?, ?, 'queued', ?)",
                [(run_id, j.id, json.dumps(j.settings, sort_keys=True), now) for j in jobs])
        return self._db.total_changes - before

    def job(self, run_id: str, job_id: str) -> JobRow:
        row = self._db.execute("SELECT * FROM jobs WHERE run_id=? AND id=?",
                               (run_id, job_id)).fetchone()
        if row is None:
            raise RunStoreError(f"{self.path}: no job {job_id} in run {run_id}")
        return JobRow.from_row(row)

    def jobs(self, run_id: str,
             status: JobStatus | Iterable[JobStatus] | None = None) -> list[JobRow]:
        query, args = "SELECT * FROM jobs WHERE run_id=?", [run_id]
        if status is not None:
            statuses = [status] if isinstance(status, str) else list(status)
            query += f" AND status IN ({','.join('?' * len(statuses))})"
            args += statuses
        rows = self._db.execute(query + " ORDER BY created_at, rowid", args).fetchall()
        return [JobRow.from_row(r) for r in rows]

    def counts(self, run_id: str) -> dict[str, int]:
        rows = self._db.execute("SELECT status, COUNT(*) FROM jobs WHERE run_id=? "
                                "GROUP BY status", (run_id,)).fetchall()
        return {s: 0 for s in STATUSES} | {r[0]: r[1] for r in rows}

    def _move(self, run_id: str, job_id: str, to: JobStatus, sets: str,
              args: tuple[Any, ...]) -> None:
        """Move a job to status ``to``: the check and the write in one transaction."""
        with self._write() as db:
            row = db.execute("SELECT status FROM jobs WHERE run_id=? AND id=?",
                             (run_id, job_id)).fetchone()
            if row is None:
                raise RunStoreError(f"{self.path}: no job {job_id} in run {run_id}")
            current = row[0]
            if to not in _MOVES[current]:
                raise RunStoreError(f"job {job_id}: cannot go from {current} to {to}")
            db.execute(f"UPDATE jobs SET status=?, {sets} WHERE run_id=? AND id=?",
                       (to, *args, run_id, job_id))

    def start(self, run_id: str, job_id: str, transcript: str) -> None:
        self._move(run_id, job_id, "running",
                   "started_at=?, finished_at=NULL, error=NULL, transcript=?, "
                   "executions=executions+1", (_now(), transcript))

    def finish(self, run_id: str, job_id: str, *, score: float | None, raw_reward: float | None,
               usage: dict[str, Any] | None = None, cost_usd: float | None = None,
               ended: str | None = None) -> None:
        """Mark a job ``done`` with its score (None only from an outcome that lacks one: stored
        as NULL); ``ended`` "context" when its episode was cut short by the model's context
        and scored as it stood."""
        self._move(run_id, job_id, "done",
                   "score=?, raw_reward=?, usage=?, cost_usd=?, finished_at=?, "
                   "spent_usd=spent_usd+?, ended=?",
                   (score, raw_reward, json.dumps(usage) if usage is not None else None,
                    cost_usd, _now(), cost_usd or 0.0, ended))

    def fail(self, run_id: str, job_id: str, status: Failure, error: str, *,
             usage: dict[str, Any] | None = None, cost_usd: float | None = None) -> None:
        """Mark a job ``failed``, ``infra_error`` or ``fatal`` (never scored)."""
        if status not in FAILURES:
            raise RunStoreError(f"job {job_id}: {status!r} is not a failure status")
        self._move(run_id, job_id, status,
                   "error=?, usage=?, cost_usd=?, finished_at=?, spent_usd=spent_usd+?",
                   (error, json.dumps(usage) if usage is not None else None, cost_usd, _now(),
                    cost_usd or 0.0))

    def stopped(self, run_id: str, job_id: str, reason: str, *,
                usage: dict[str, Any] | None = None, cost_usd: float | None = None) -> None:
        """Put a running job whose execution was stopped (``reason``) back in the queue; what
        it spent still counts."""
        self._move(run_id, job_id, "queued",
                   "error=?, usage=?, cost_usd=?, finished_at=?, spent_usd=spent_usd+?",
                   (f"stopped: {reason}", json.dumps(usage) if usage is not None else None,
                    cost_usd, _now(), cost_usd or 0.0))

    def requeue_unfinished(self, run_id: str, *, retry_fatal: bool = False) -> int:
        """Every job of the run that is not done goes back to ``queued``, a ``fatal`` one only
        with ``retry_fatal`` (module docstring); returns how many."""
        statuses: tuple[JobStatus, ...] = ("running", "failed", "infra_error") + \
            ((FATAL,) if retry_fatal else ())
        with self._write() as db:
            cursor = db.execute(f"UPDATE jobs SET status='queued' WHERE run_id=? AND status IN "
                                f"({','.join('?' * len(statuses))})", (run_id, *statuses))
            return cursor.rowcount

    def adopt_done(self, run_id: str) -> list[str]:
        """Mark ``done`` every queued job of the run that another run of this store already
        did (same job id, so the same settings and the same transcript file), with that
        run's score, usage and transcript and no spend of its own; returns their ids. A job
        is run once per directory however many specs name it."""
        with self._write() as db:
            rows = db.execute(
                "SELECT mine.id, done.score, done.raw_reward, done.usage, done.cost_usd, "
                "done.transcript, done.finished_at, done.ended FROM jobs AS mine "
                "JOIN jobs AS done "
                "ON done.id = mine.id AND done.run_id != mine.run_id AND done.status = 'done' "
                "WHERE mine.run_id = ? AND mine.status = 'queued' ORDER BY done.finished_at",
                (run_id,)).fetchall()
            adopted = {r[0]: r[1:] for r in rows}   # the latest finish of a job wins
            db.executemany(
                "UPDATE jobs SET status='done', score=?, raw_reward=?, usage=?, cost_usd=?, "
                "transcript=?, finished_at=?, ended=?, error=NULL WHERE run_id=? AND id=? "
                "AND status='queued'",
                [(*values, run_id, job) for job, values in adopted.items()])
        return list(adopted)

    def total_cost(self, run_id: str) -> float:
        """What every execution of the run's jobs has cost so far (USD)."""
        row = self._db.execute("SELECT COALESCE(SUM(spent_usd), 0) FROM jobs WHERE run_id=?",
                               (run_id,)).fetchone()
        return float(row[0])
