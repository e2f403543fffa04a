"""Episodes on every core: the local agents' jobs in worker processes.

Local agents' episodes (random, oracle, simulator) make no model call; all their time is CPU (the world's ticks, the
oracle's simulation and search, the transcript), so in threads they share one GIL.
``EpisodeProcesses(n, stop)`` is a pool of ``n`` worker processes that run such jobs with
``execute_job``: each writes its job's transcript, as a thread would, and hands the
``JobOutcome`` back to the scheduler, which records it: the parent stays the only writer of
the run store. Model-bound jobs stay in threads, waiting on their providers concurrently.

The processes start from a fork server that has imported the episode code once
('forkserver'; 'spawn' where there is none): forking the scheduler itself, which has threads
running, is unsafe. A worker ignores Ctrl-C (the scheduler handles it): the scheduler's
``stop`` event is mirrored into one the workers read before each observation, so a running
episode ends ``interrupted`` exactly as in a thread. A worker exits as soon as the scheduler
ends, however it ends (it watches the scheduler's pid), so a run killed outright leaves no
episode running on its own; the fork server then exits too.

Results do not depend on where a job runs: an episode's only randomness is its seeds.
"""

from __future__ import annotations

import os
import select
import signal
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing.synchronize import Event as ProcessEvent
from pathlib import Path

from ..gcpolicy import tune as tune_collector
from ..parallel import can_start_workers, default_processes, map_in_order, worker_context
from ..runstore import JobRow
from .job import JobOutcome, execute_job
from .spec import Job, Sweep
from .spend import STOPPED_BY_USER, StopReason

__all__ = ["EpisodeProcesses", "default_processes", "can_start_workers", "longest_first",
           "map_in_order", "worker_context", "STOPPED_BY_USER", "WORKER_HINT"]

WORKER_HINT = ("a script that runs a sweep must guard its entry point with if __name__ == "
               "'__main__': (worker processes import it), or pass processes=0")
_stop_event: ProcessEvent | None = None   # in a worker: the scheduler's stop, mirrored


def longest_first(rows: list[JobRow]) -> list[JobRow]:
    """Queued jobs (store rows) in the order to start them: the oracle's planning episodes
    first, the rest as queued. A planning search is by far the longest local episode (about
    9 s for warehouse on this machine, most of a demo sweep's CPU, against well under a
    second for the others), and a long job started last leaves every other core idle at the
    end; started first, the short ones fill in around it."""
    def heavy(row: JobRow) -> bool:
        settings = row.settings
        return bool(settings.get("model") == "oracle" and settings.get("family") == "planning")

    return sorted(rows, key=lambda row: not heavy(row))   # stable: queue order otherwise


def _end_with(scheduler_pid: int) -> None:
    """In a worker: exit at once when the scheduler ends, however it ends. A worker's parent
    is the fork server, which outlives a killed scheduler as long as its workers do, so the
    worker watches the scheduler itself (a pidfd where there is one, else polling)."""
    try:
        pidfd = os.pidfd_open(scheduler_pid)
    except (AttributeError, OSError):
        pidfd = None

    def watch() -> None:
        if pidfd is not None:
            select.select([pidfd], [], [])
        else:
            while True:
                time.sleep(0.2)
                try:
                    os.kill(scheduler_pid, 0)
                except ProcessLookupError:
                    break
                except PermissionError:
                    pass
        os._exit(1)   # no cleanup: the episode ends here, as a killed thread's would

    threading.Thread(target=watch, name="scheduler-watch", daemon=True).start()


def _start_worker(stop_event: ProcessEvent, scheduler_pid: int) -> None:
    global _stop_event
    tune_collector()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _end_with(scheduler_pid)
    _stop_event = stop_event


def _stop() -> StopReason | None:
    return STOPPED_BY_USER if _stop_event is not None and _stop_event.is_set() else None


def run_job(job: Job, spec: Sweep, transcript: str, run_id: str) -> JobOutcome:
    """In a worker: play ``job`` into ``transcript`` (``execute_job`` with the mirrored stop)."""
    return execute_job(job, spec, Path(transcript), run_id=run_id, stop=_stop)


class EpisodeProcesses:
    """A pool of ``size`` worker processes for local jobs (module docstring); ``stop`` is
    the scheduler's stop event."""

    def __init__(self, size: int, stop: threading.Event) -> None:
        context = worker_context()
        self._stop = stop
        self._mirrored = context.Event()
        self._closed = threading.Event()
        self._pool = ProcessPoolExecutor(max_workers=size, mp_context=context,
                                         initializer=_start_worker,
                                         initargs=(self._mirrored, os.getpid()))
        self._mirror = threading.Thread(target=self._mirror_stop, name="stop-mirror",
                                        daemon=True)
        self._mirror.start()

    def _mirror_stop(self) -> None:
        while not self._closed.is_set():
            if self._stop.wait(0.05):
                self._mirrored.set()
                return

    def submit(self, job: Job, spec: Sweep, transcript: Path, run_id: str) -> Future[JobOutcome]:
        return self._pool.submit(run_job, job, spec, str(transcript), run_id)

    def close(self, *, abort: bool = False) -> None:
        """Wait for the running episodes (they end soon once ``stop`` is set); ``abort``
        (a second Ctrl-C, an error) ends them at once instead."""
        self._closed.set()
        if abort:
            # the executor has no public way to end its workers (Python 3.14 adds one)
            for process in list(getattr(self._pool, "_processes", {}).values()):
                process.terminate()
        self._pool.shutdown(wait=not abort, cancel_futures=True)
        self._mirror.join()
