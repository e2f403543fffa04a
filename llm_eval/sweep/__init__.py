"""Sweeps: a spec of what to run, its jobs with deterministic ids, and the scheduler.

- ``spec``: ``Sweep`` (pydantic; ``from_yaml`` errors name the file and field), ``Job``,
  ``expand()``;
- ``job``: ``execute_job``, one episode with its transcript (sync, for a worker thread);
- ``scheduler``: ``run_sweep`` / ``resume``: asyncio across episodes, per-provider limits, the
  run store, skip what is done;
- ``command``: ``llm-eval run``.
"""

from .job import JobOutcome, execute_job
from .scheduler import RunReport, resume, run_sweep, run_sweep_async
from .spec import Budgets, Job, SpecError, Sweep, job_id

__all__ = ["Sweep", "Budgets", "Job", "SpecError", "job_id", "JobOutcome", "execute_job",
           "RunReport", "run_sweep", "run_sweep_async", "resume"]
