"""Sweeps: a spec of what to run, its jobs with deterministic ids, and the scheduler.

- ``spec``: ``Sweep`` (pydantic; ``from_yaml`` errors name the file and field), ``Job``,
  ``expand()``;
- ``job``: ``execute_job``, one episode with its transcript (sync, for a worker thread);
- ``scheduler``: ``run_sweep`` / ``resume``: asyncio across episodes, per-provider limits, the
  run store, skip what is done;
(``llm-eval run`` is ``llm_eval.cli.run``.)
"""

from ..lazy import lazy_exports

_EXPORTS = {
    "JobOutcome": ".job", "execute_job": ".job", "RunReport": ".scheduler",
    "resume": ".scheduler", "run_sweep": ".scheduler", "run_sweep_async": ".scheduler",
    "Budgets": ".spec", "Job": ".spec", "SpecError": ".spec", "Sweep": ".spec",
    "job_id": ".spec",
}

__all__ = ["Sweep", "Budgets", "Job", "SpecError", "job_id", "JobOutcome", "execute_job",
           "RunReport", "run_sweep", "run_sweep_async", "resume"]

# each name is imported from its module when first used (``llm_eval.lazy``)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
