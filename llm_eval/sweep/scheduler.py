"""The scheduler: runs a sweep's jobs concurrently and records them in the run store.

``run_sweep(spec, run_dir)`` (sync) over ``run_sweep_async``: expands the spec into jobs,
adds the new ones to the store (``run_dir/run.sqlite``) under the run id (a hash of the job
ids, so changing only how a spec runs, such as its concurrency or spend cap, keeps the run),
puts every job that is not done back in the queue (a job left ``running`` by a stopped run,
a ``failed`` or ``infra_error`` job; a ``fatal`` one, which the provider refused for a reason
only the user can fix, only with ``retry_fatal``: the command line's ``--retry-fatal``), and
runs the queue: each episode in a worker thread
(``asyncio.to_thread``) under its provider's semaphore (``spec.concurrency``, else
``default_concurrency``), its transcript at ``run_dir/transcripts/<job id>.jsonl.gz`` (images
in ``transcripts/images/``; the transcript of an earlier, unfinished execution is kept as
``transcripts/attempts/<job id>.<execution>.jsonl.gz``). Jobs already done are skipped, so
running the same spec again, or ``resume(run_dir)``, finishes a run. A job whose transcript
shows its episode finished (a score, then ``end`` done) although the store still has it
``running`` (the process was killed between the two) is recorded as done from the
transcript, not run again. A job another run of the same directory already did (same job id)
is marked done with that result (``RunStore.adopt_done``), never run twice. Model-bound
episodes run in a pool of worker threads as large as the sum of the provider limits; the
CPU-bound ones of the local agents (random, oracle) in worker processes (``workers.py``), one
per core by default (``processes``: how many; 0 runs them in threads too), so a sweep of them
uses every core. Only this process writes the run store.

One writer per run directory: a run holds the directory's lock (``runlock``) from start to
end (``resume`` for all its runs), so a second ``run``, ``--resume`` or ``demo`` on the same
directory is refused at once (``RunDirBusy``, naming the holder). Inside, a job is marked
``running`` in the store (a transaction that refuses a job already done) before its
transcript is touched; an earlier execution's transcript is moved aside, never truncated, and
the new one is created afresh (``O_EXCL``). ``spec.json`` is written atomically.

A spend cap needs a price for every provider model of the spec (``unpriced_models``; a
``SpecError`` before anything runs otherwise), and is checked against the live spend (every
model call's cost as it is recorded, plus what earlier executions spent): once reached, no new
job of a paid provider starts (``FREE_PROVIDERS``, the local agents and replays, still run)
and running episodes stop before their next model call (the call in flight finishes); a
stopped execution goes back to the queue, unscored, with its spend counted. ``stop`` (a
``threading.Event``) stops a run the same way; ``handle_sigint=True`` (the command line) makes the first Ctrl-C
set it. ``progress`` hears of every job that starts and ends (``progress.py``). ``check=True``
(the command line) runs ``check_ready`` first, so a missing key is one error, not a failed
job per episode.

``executor: ray`` (``ray_executor.py``) runs each job as a Ray task on a cluster instead of a
thread or a worker process; everything above holds, and the provider limits and the spend cap
hold across the cluster.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, Callable

from ..atomic import write_atomic
from ..errors import LlmEvalError
from ..runlock import hold_run_dir
from ..runstore import FATAL, STORE_FILE, TRANSCRIPTS_DIR, JobRow, RunStore, RunStoreError
from ..transcripts.io import TRANSCRIPT_SUFFIXES, job_of, transcript_name
from .job import JobOutcome, execute_job
from .progress import Progress
from .spec import LOCAL_AGENTS, Job, SpecError, Sweep, executor_fields, job_id, provider_of
from .spend import STOPPED_BY_USER, Meter, SpendMeter, StopReason, spend_cap_reached
from .workers import (
    WORKER_HINT,
    EpisodeProcesses,
    can_start_workers,
    default_processes,
    longest_first,
)

if TYPE_CHECKING:
    from ..pricing import PriceBook

__all__ = ["run_sweep", "run_sweep_async", "resume", "check_ready", "unpriced_models",
           "RunReport", "TRANSCRIPTS_DIR", "ATTEMPTS_DIR", "SPEC_FILE"]

SPEC_FILE = "spec.json"
ATTEMPTS_DIR = "attempts"
FREE_PROVIDERS = ("local", "replay")   # no spend: a spend cap does not hold them back


def _finished_outcome(path: Path, job: str, book: PriceBook | None = None) -> JobOutcome | None:
    """The outcome recorded in a job's transcript if its episode finished (a score, then
    ``end`` done) but the process died before the store heard of it; else None. The
    transcript is read as a stream, keeping only the calls' usage and cost."""
    from ..transcripts import TranscriptError, TranscriptStream
    from .job import usage_of

    if not path.is_file():
        return None
    first: Any = None   # events, each of transcripts.events.Event
    last: Any = None
    score: Any = None
    calls: list[dict[str, Any]] = []
    try:
        for event in TranscriptStream(path, expand=False):
            if first is None:
                first = event
            last = event
            if event.type == "score":
                score = event
            elif event.type == "model_call":
                calls.append({"usage": event.usage, "attempts": event.attempts,
                              "cost": event.cost})
    except (OSError, TranscriptError):
        return None
    if first is None or first.type != "header" or first.job_id != job or \
            last.type != "end" or last.status != "done" or score is None:
        return None
    usage, cost = (usage_of(calls, first.settings.get("model"), book) if calls
                   else (None, None))
    return JobOutcome("done", score=score.score, raw_reward=score.raw_reward, usage=usage,
                      cost_usd=cost, ended=score.result.get("ended") or None)


def _keep_earlier(path: Path, executions: int) -> None:
    """Move the transcript of an earlier execution aside before the job runs again, and
    create the new one empty: never over an existing file (``O_EXCL``), so no transcript is
    ever truncated."""
    for suffix in TRANSCRIPT_SUFFIXES:   # earlier versions wrote plain .jsonl
        earlier = path.with_name(job_of(path) + suffix)
        if earlier.exists():
            attempts = path.parent / ATTEMPTS_DIR
            attempts.mkdir(exist_ok=True)
            earlier.replace(attempts / f"{job_of(path)}.{executions}{suffix}")
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    except FileExistsError:
        raise RunStoreError(f"{path}: another process wrote this transcript while the job "
                            f"started; is another program writing to the run "
                            f"directory?") from None


@dataclass
class RunReport:
    """What a run did: the store, the jobs executed this time, and every job's row."""

    run_id: str
    run_dir: Path
    store_path: Path
    transcripts_dir: Path
    executed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    held: list[str] = field(default_factory=list)   # fatal jobs left alone (no retry_fatal)
    rows: list[JobRow] = field(default_factory=list)
    stopped_by_spend_cap: bool = False
    stopped_by_user: bool = False
    interrupted: list[str] = field(default_factory=list)   # executions stopped and requeued
    recovered: list[str] = field(default_factory=list)     # finished before a kill, recorded
    adopted: list[str] = field(default_factory=list)       # done by another run of the dir
    processes: int = 0   # worker processes the local jobs ran in (0: threads)
    lost: list[str] = field(default_factory=list)   # executions lost with their Ray worker

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for row in self.rows:
            out[row.status] = out.get(row.status, 0) + 1
        return out


def run_sweep(spec: Sweep, run_dir: str | Path, **options: Any) -> RunReport:
    """Run (or finish) ``spec`` in ``run_dir`` (module docstring; ``options`` as for
    ``run_sweep_async``)."""
    return asyncio.run(run_sweep_async(spec, run_dir, **options))


def resume(run_dir: str | Path, *, spend_cap: float | None = None,
           prices: str | None = None, executor: str | None = None,
           ray_address: str | None = None, **kwargs: Any) -> list[RunReport]:
    """Finish every run recorded in ``run_dir`` that has a job not done (its ``fatal`` jobs run
    again only with ``retry_fatal=True``, passed on to ``run_sweep``), oldest first, each
    with the spec it was last run with (a job done by one of them is adopted by the others),
    or with ``spend_cap`` as its cap, ``prices`` as its price file and ``executor`` (with
    ``ray_address``) as how it runs when given; the reports of the runs finished this time,
    an empty list when all were done."""
    run_dir = Path(run_dir)
    path = run_dir / STORE_FILE
    if not path.is_file():
        raise RunStoreError(f"{run_dir}: not a run directory (no {STORE_FILE})")
    with hold_run_dir(run_dir):   # one lock for all the runs it finishes
        with RunStore(path) as store:
            runs = store.runs()
            unfinished = [run for run in runs
                          if sum(n for status, n in store.counts(run["id"]).items()
                                 if status != "done")]
        if not runs:
            raise RunStoreError(f"{path}: no run recorded")
        reports = []
        for run in unfinished:
            data = run["spec"] if spend_cap is None else \
                {**run["spec"], "spend_cap_usd": spend_cap}
            if prices is not None:
                data = {**data, "prices": prices}
            data = {**data, **executor_fields(executor, ray_address)}
            spec = Sweep.from_data(data, f"{path} (run {run['id']})")
            reports.append(run_sweep(spec, run_dir, **kwargs))
            if reports[-1].stopped_by_user or reports[-1].stopped_by_spend_cap:
                break
    return reports


def unpriced_models(spec: Sweep) -> list[str]:
    """The spec's provider models its prices (LiteLLM's map, under the spec's price file)
    cannot price: a spend cap could not see what they spend."""
    return spec.price_book().unpriced(m for m in spec.models
                                      if provider_of(m) not in FREE_PROVIDERS)


def check_ready(spec: Sweep) -> None:
    """Fail before any job starts on what would fail every job of a model: an unknown
    provider, a missing SDK or key (``SpecError`` naming the model and the variable)."""
    from llm_eval.adapters import create_adapter

    for model in spec.models:
        if provider_of(model) in FREE_PROVIDERS:
            continue
        try:
            create_adapter(model, **dict(spec.adapter_options.get(model, {})))
        except ImportError as exc:
            raise SpecError(f"model {model}: its SDK is not installed ({exc.name or exc}); "
                            f"see llm-eval providers") from None
        except LlmEvalError as exc:
            raise SpecError(f"model {model}: {exc}") from None


async def run_sweep_async(spec: Sweep, run_dir: str | Path, *,
                          execute: Callable[..., JobOutcome] = execute_job,
                          stop: threading.Event | None = None, handle_sigint: bool = False,
                          progress: Progress | None = None, check: bool = False,
                          processes: int | None = None, retry_fatal: bool = False) -> RunReport:
    run_dir = Path(run_dir)
    if check:
        check_ready(spec)
    if spec.spend_cap_usd is not None and (unpriced := unpriced_models(spec)):
        it, spends = ("it", "it spends") if len(unpriced) == 1 else ("them", "they spend")
        example = f"{{models: {{{unpriced[0]}: {{input: 0.4, output: 1.6}}}}}}"
        raise SpecError(f"spend_cap_usd: unpriced: {', '.join(unpriced)}; the cap cannot see "
                        f"what {spends}: {spec.price_book().map_source} has no price for "
                        f"{it}; give {it} a price (--prices FILE, or prices: in the spec, "
                        f"e.g. {example} in dollars per million tokens) or run without a "
                        f"spend cap")
    joined = False
    if spec.executor == "ray":   # a missing Ray or a wrong address: one error, up front
        from .ray_executor import connect

        joined = connect(spec.ray_address)
    try:
        with hold_run_dir(run_dir):
            return await _run_locked(spec, run_dir, execute=execute, stop=stop,
                                     handle_sigint=handle_sigint, progress=progress,
                                     processes=processes, retry_fatal=retry_fatal)
    finally:
        if joined:
            from .ray_executor import disconnect

            disconnect()


async def _run_locked(spec: Sweep, run_dir: Path, *, execute: Callable[..., JobOutcome],
                      stop: threading.Event | None, handle_sigint: bool,
                      progress: Progress | None, processes: int | None,
                      retry_fatal: bool = False) -> RunReport:
    """``run_sweep_async`` once the run directory's lock is held."""
    transcripts = run_dir / TRANSCRIPTS_DIR
    transcripts.mkdir(parents=True, exist_ok=True)
    jobs = {job.id: job for job in spec.expand()}
    run_id = job_id({"jobs": sorted(jobs)})
    report = RunReport(run_id, run_dir, run_dir / STORE_FILE, transcripts)
    write_atomic(run_dir / SPEC_FILE, json.dumps(spec.canonical(), indent=1, sort_keys=True))
    stop = stop if stop is not None else threading.Event()
    progress = progress if progress is not None else Progress()
    with RunStore(report.store_path) as store, _sigint_stops(stop, handle_sigint, report):
        store.add_run(run_id, spec.name, spec.canonical())
        store.add_jobs(run_id, jobs.values())
        for row in store.jobs(run_id, "running"):   # a killed run left these
            finished = _finished_outcome(run_dir / (row.transcript or ""), row.id,
                                         spec.price_book())
            if finished is not None:   # killed between its episode's end and the store's
                store.finish(run_id, row.id, score=finished.score,
                             raw_reward=finished.raw_reward, usage=finished.usage,
                             cost_usd=finished.cost_usd, ended=finished.ended)
                report.recovered.append(row.id)
        store.requeue_unfinished(run_id, retry_fatal=retry_fatal)
        report.adopted = store.adopt_done(run_id)
        report.skipped = [r.id for r in store.jobs(run_id, "done")]
        report.held = [r.id for r in store.jobs(run_id, FATAL)]
        queued = longest_first(store.jobs(run_id, "queued"))
        meter: Meter = SpendMeter(store.total_cost(run_id), spec.spend_cap_usd)
        limits: dict[str, asyncio.Semaphore] = {}
        progress.begin(total=len(jobs), done=len(report.skipped), spent=meter.total(),
                       fatal=len(report.held))

        def stop_reason(paid: bool = True) -> StopReason | None:
            if stop.is_set():
                return STOPPED_BY_USER
            cap = spec.spend_cap_usd
            # the local agents and replays spend nothing; a meter is reached only under a cap
            if paid and cap is not None and meter.reached():
                report.stopped_by_spend_cap = True
                return spend_cap_reached(cap)
            return None

        def in_process(job: Job) -> bool:
            return pool is not None and execute is execute_job and job.model in LOCAL_AGENTS

        async def one(row: JobRow) -> None:
            job = jobs.get(row.id) or Job(row.id, row.settings)
            provider = job.provider
            if provider not in limits:
                limits[provider] = asyncio.Semaphore(spec.limit_for(provider))
            paid = provider not in FREE_PROVIDERS
            async with limits[provider]:
                if stop_reason(paid):
                    return
                relative = f"{TRANSCRIPTS_DIR}/{transcript_name(job.id)}"
                try:
                    store.start(run_id, job.id, relative)   # refuses a job already done
                except RunStoreError:   # moved by another writer: leave it and its files
                    report.skipped.append(job.id)
                    return
                _keep_earlier(run_dir / relative, row.executions)
                report.executed.append(job.id)
                progress.started(job)
                live = meter.job(job.id)
                try:
                    if cluster is not None:
                        outcome = await on_cluster(job, relative, row.executions, paid)
                    elif pool is not None and in_process(job):
                        outcome = await asyncio.wrap_future(
                            pool.submit(job, spec, run_dir / relative, run_id))
                    else:
                        outcome = await loop.run_in_executor(threads, functools.partial(
                            execute, job, spec, run_dir / relative, run_id=run_id,
                            stop=functools.partial(stop_reason, paid), on_call=live))
                except BrokenProcessPool as exc:
                    outcome = JobOutcome("failed", error=f"its worker process died ({exc}); "
                                         f"{WORKER_HINT}")
                except Exception as exc:   # execute_job does not raise; a replacement might
                    outcome = JobOutcome("failed", error=f"{type(exc).__name__}: {exc}")
                meter.settle(job.id, outcome.cost_usd)
                if outcome.status == "interrupted" and outcome.stopped_by == "spend_cap":
                    report.stopped_by_spend_cap = True   # said by a Ray worker's control
                if outcome.status == "done":
                    store.finish(run_id, job.id, score=outcome.score,
                                 raw_reward=outcome.raw_reward, usage=outcome.usage,
                                 cost_usd=outcome.cost_usd, ended=outcome.ended)
                elif outcome.status == "interrupted":
                    store.stopped(run_id, job.id, outcome.error or "stopped",
                                  usage=outcome.usage, cost_usd=outcome.cost_usd)
                    report.interrupted.append(job.id)
                else:
                    store.fail(run_id, job.id, outcome.status, outcome.error or "",
                               usage=outcome.usage, cost_usd=outcome.cost_usd)
                progress.finished(job, outcome, spent=meter.total())

        queued_jobs = [jobs.get(r.id) or Job(r.id, r.settings) for r in queued]
        cluster = None
        if spec.executor == "ray":
            from .ray_executor import MAX_LOST_EXECUTIONS, LostExecution, RayEpisodes

            cluster = RayEpisodes(spec, stop, spent=meter.total(), execute=execute,
                                  paid=any(provider_of(m) not in FREE_PROVIDERS
                                           for m in spec.models))
            meter = cluster.meter

            async def on_cluster(job: Job, relative: str, executions: int,
                                 paid: bool) -> JobOutcome:
                """Run ``job`` on the cluster; an execution lost with its worker goes back
                to the queue and runs again, its transcript kept under attempts/."""
                lost = 0
                while True:
                    outcome = await cluster.run(job, run_dir / relative, run_id, paid)
                    if not isinstance(outcome, LostExecution):
                        return outcome
                    finished = _finished_outcome(run_dir / relative, job.id, spec.price_book())
                    if finished is not None:   # lost after its episode ended: not run again
                        report.recovered.append(job.id)
                        return finished
                    lost += 1
                    report.lost.append(job.id)
                    if lost == MAX_LOST_EXECUTIONS:
                        return JobOutcome("infra_error", cost_usd=outcome.cost_usd,
                                          error=f"its Ray worker was lost {lost} times in a "
                                                f"row; last: {outcome.error}")
                    reason = stop_reason(paid)
                    if reason:   # stopped meanwhile: back in the queue, as if interrupted
                        return JobOutcome("interrupted", cost_usd=outcome.cost_usd,
                                          error=reason.text, stopped_by=reason.cause)
                    meter.settle(job.id, outcome.cost_usd)
                    store.stopped(run_id, job.id, outcome.error or "",
                                  cost_usd=outcome.cost_usd)
                    store.start(run_id, job.id, relative)
                    executions += 1
                    _keep_earlier(run_dir / relative, executions)
        size = _pool_size(processes, spec, queued_jobs, execute) if cluster is None else 0
        pool = EpisodeProcesses(size, stop) if size else None
        report.processes = size
        # one worker thread per episode the provider limits allow at once (the loop's
        # default pool would cap them at min(32, cpus + 4))
        threaded = {job.provider for job in queued_jobs if not in_process(job)}
        loop = asyncio.get_running_loop()
        threads = ThreadPoolExecutor(max_workers=max(1, sum(map(spec.limit_for, threaded))),
                                     thread_name_prefix="episode")
        aborted = True
        try:
            await asyncio.gather(*(one(row) for row in queued))
            aborted = False
        finally:
            progress.end()
            if pool is not None:
                pool.close(abort=aborted)
            if cluster is not None:
                cluster.close(abort=aborted)
            threads.shutdown(wait=True)
        report.stopped_by_user = stop.is_set()
        report.rows = store.jobs(run_id)
    return report


def _pool_size(processes: int | None, spec: Sweep, jobs: list[Job],
               execute: Callable[..., JobOutcome]) -> int:
    """How many worker processes the local jobs get: ``processes`` when given, else one
    per core up to the local limit and the number of jobs; 0 (threads) when that is one,
    when ``execute`` is not ``execute_job``, or when workers cannot start (``__main__`` is
    not a file they could import, e.g. a script read from standard input)."""
    local = sum(job.model in LOCAL_AGENTS for job in jobs)
    if execute is not execute_job or not local or processes == 0 or not can_start_workers():
        return 0
    if processes is not None:
        return processes
    size = min(default_processes(), spec.limit_for("local"), local)
    return size if size > 1 else 0


class _sigint_stops:
    """While the run goes, the first Ctrl-C sets ``stop`` (no new job starts, running episodes
    end before their next model call and go back to the queue); a second one interrupts at
    once (Python's default). Only in the main thread, and only when asked."""

    def __init__(self, stop: threading.Event, enabled: bool, report: RunReport) -> None:
        self.stop, self.report = stop, report
        self.enabled = enabled and threading.current_thread() is threading.main_thread()
        self.previous: Callable[[int, FrameType | None], Any] | int | None = None

    def __enter__(self) -> None:
        if self.enabled:
            self.previous = signal.signal(signal.SIGINT, self._first)

    def _first(self, signum: int, frame: FrameType | None) -> None:
        self.stop.set()
        signal.signal(signal.SIGINT, signal.default_int_handler)
        print("\nstopping: running episodes end before their next model call "
              "(Ctrl-C again to abort at once)", file=sys.stderr, flush=True)

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            signal.signal(signal.SIGINT, self.previous)
