"""The scheduler: runs a sweep's jobs concurrently and records them in the run store.

``run_sweep(spec, run_dir)`` (sync) over ``run_sweep_async``: expands the spec into jobs,
adds the new ones to the store (``run_dir/run.sqlite``) under the run id (a hash of the job
ids, so changing only how a spec runs, such as its concurrency or spend cap, keeps the run),
puts every job that is not done back in the queue (a job left ``running`` by a stopped run,
a ``failed`` or ``infra_error`` job), and runs the queue: each episode in a worker thread
(``asyncio.to_thread``) under its provider's semaphore (``spec.concurrency``, else
``default_concurrency``), its transcript at ``run_dir/transcripts/<job id>.jsonl`` (images in
``transcripts/images/``; the transcript of an earlier, unfinished execution is kept as
``transcripts/attempts/<job id>.<execution>.jsonl``). Jobs already done are skipped, so
running the same spec again, or ``resume(run_dir)``, finishes a run. A spend cap, if set,
stops starting new jobs once the recorded cost reaches it (running jobs finish; the rest stay
queued).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..runstore import STORE_FILE, JobRow, RunStore, RunStoreError
from .job import JobOutcome, execute_job
from .spec import Job, Sweep, job_id

__all__ = ["run_sweep", "run_sweep_async", "resume", "RunReport", "TRANSCRIPTS_DIR",
           "ATTEMPTS_DIR", "SPEC_FILE"]

TRANSCRIPTS_DIR = "transcripts"
SPEC_FILE = "spec.json"
ATTEMPTS_DIR = "attempts"


def _keep_earlier(path: Path, executions: int) -> None:
    """Move the transcript of an earlier execution aside before the job runs again."""
    if path.exists():
        attempts = path.parent / ATTEMPTS_DIR
        attempts.mkdir(exist_ok=True)
        path.replace(attempts / f"{path.stem}.{executions}.jsonl")


@dataclass
class RunReport:
    """What a run did: the store, the jobs executed this time, and every job's row."""

    run_id: str
    run_dir: Path
    store_path: Path
    transcripts_dir: Path
    executed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    rows: list[JobRow] = field(default_factory=list)
    stopped_by_spend_cap: bool = False

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for row in self.rows:
            out[row.status] = out.get(row.status, 0) + 1
        return out


def run_sweep(spec: Sweep, run_dir: str | Path, *,
              execute: Callable[..., JobOutcome] = execute_job) -> RunReport:
    """Run (or finish) ``spec`` in ``run_dir`` (module docstring)."""
    return asyncio.run(run_sweep_async(spec, run_dir, execute=execute))


def resume(run_dir: str | Path, **kwargs) -> RunReport:
    """Finish the latest run recorded in ``run_dir``, with the spec it was started with."""
    run_dir = Path(run_dir)
    path = run_dir / STORE_FILE
    if not path.is_file():
        raise RunStoreError(f"{run_dir}: not a run directory (no {STORE_FILE})")
    with RunStore(path) as store:
        latest = store.latest_run()
    if latest is None:
        raise RunStoreError(f"{path}: no run recorded")
    spec = Sweep.from_data(latest["spec"], f"{path} (run {latest['id']})")
    return run_sweep(spec, run_dir, **kwargs)


async def run_sweep_async(spec: Sweep, run_dir: str | Path, *,
                          execute: Callable[..., JobOutcome] = execute_job) -> RunReport:
    run_dir = Path(run_dir)
    transcripts = run_dir / TRANSCRIPTS_DIR
    transcripts.mkdir(parents=True, exist_ok=True)
    jobs = {job.id: job for job in spec.expand()}
    run_id = job_id({"jobs": sorted(jobs)})
    report = RunReport(run_id, run_dir, run_dir / STORE_FILE, transcripts)
    (run_dir / SPEC_FILE).write_text(json.dumps(spec.canonical(), indent=1, sort_keys=True),
                                     encoding="utf-8")
    with RunStore(report.store_path) as store:
        store.add_run(run_id, spec.name, spec.canonical())
        store.add_jobs(run_id, jobs.values())
        store.requeue_unfinished(run_id)
        report.skipped = [r.id for r in store.jobs(run_id, "done")]
        queued = [r for r in store.jobs(run_id, "queued")]
        limits: dict[str, asyncio.Semaphore] = {}

        async def one(row: JobRow) -> None:
            job = jobs.get(row.id) or Job(row.id, row.settings)
            provider = job.provider
            if provider not in limits:
                limits[provider] = asyncio.Semaphore(spec.limit_for(provider))
            async with limits[provider]:
                if spec.spend_cap_usd is not None and \
                        store.total_cost(run_id) >= spec.spend_cap_usd:
                    report.stopped_by_spend_cap = True
                    return
                relative = f"{TRANSCRIPTS_DIR}/{job.id}.jsonl"
                _keep_earlier(run_dir / relative, row.executions)
                store.start(run_id, job.id, relative)
                report.executed.append(job.id)
                try:
                    outcome = await asyncio.to_thread(execute, job, spec, run_dir / relative,
                                                      run_id=run_id)
                except Exception as exc:   # execute_job does not raise; a replacement might
                    outcome = JobOutcome("failed", error=f"{type(exc).__name__}: {exc}")
                if outcome.status == "done":
                    store.finish(run_id, job.id, score=outcome.score,
                                 raw_reward=outcome.raw_reward, usage=outcome.usage,
                                 cost_usd=outcome.cost_usd)
                else:
                    store.fail(run_id, job.id, outcome.status, outcome.error or "",
                               usage=outcome.usage, cost_usd=outcome.cost_usd)

        await asyncio.gather(*(one(row) for row in queued))
        report.rows = store.jobs(run_id)
    return report
