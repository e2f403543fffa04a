"""``llm-eval run ... --estimate``: what a sweep will cost, before it runs, offline.

Every model job of the sweep is played for real (its task, its world's ticks, its prompts,
renderings and history, the agent's requests exactly as they would be sent) against the
stand-in model (``adapters.standin``): it answers at once with ``reply_tokens`` tokens of text
and an action that keeps the phase going, so each episode runs to the end of every budget (the
most calls a model can make). Each call's usage is the estimated tokens of its request
(``adapters.tokens``), with the cache reads and writes the route's prompt cache would bill
(``adapters.caching``, under the sweep's ``cache`` setting), priced as the real model by the
same price book the run uses. Nothing is written and no provider is called. The local agents
(random, oracle, simulator) make no calls and are counted apart.

Per arm (``analysis.stats.arm_labels``) it prints the jobs, model calls, input tokens (and the
share read from cache), output tokens, and the cost with the cache and without it (every input
token at the input price, as ``cache: off`` on an Anthropic route). Jobs run in worker processes
(``processes``, default one per core); the figures do not depend on how many. The stand-in
does not sample, so the seeds and repeats of one task are one episode, played once.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Any

from .spec import Job, Sweep, plays_without_model

__all__ = ["JobEstimate", "ArmEstimate", "estimate_sweep", "format_estimate"]


@dataclass(frozen=True, slots=True)
class JobEstimate:
    job_id: str
    settings: dict[str, Any]
    calls: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    usd: float | None               # None: the model is unpriced
    uncached_usd: float | None
    ended: str | None = None        # "context": the stand-in's requests outgrew the window


@dataclass(slots=True)
class ArmEstimate:
    arm: str
    jobs: list[JobEstimate] = field(default_factory=list)

    def total(self, name: str) -> Any:
        values = [getattr(j, name) for j in self.jobs]
        if any(v is None for v in values):
            return None
        return sum(values)

    @property
    def cached_share(self) -> float:
        tokens = self.total("input_tokens")
        return self.total("cache_read_tokens") / tokens if tokens else 0.0


def estimate_job(job: Job, spec: Sweep, reply_tokens: int) -> JobEstimate:
    """Play ``job`` against the stand-in model and sum its calls' usage and cost."""
    from llm_eval.adapters.standin import StandInAdapter

    from ..agents.llm import LLMAgent
    from ..worldtest.episode import run_episode
    from ..worldtest.phase import DEFAULT_MAX_CONSECUTIVE_INVALID
    from .job import adapter_options, build_agent, job_autumnbench_settings, job_task, usage_of

    task = job_task(job)
    window = job.settings.get("context_window") or spec.context_window or \
        spec.price_book().context_window(job.model)
    adapter = StandInAdapter(job.model, adapter_options(job.model, spec),
                             reply_tokens=reply_tokens, context_window=window)
    agent = build_agent(job, spec, task, adapter=adapter, record_calls=False)
    if not isinstance(agent, LLMAgent):   # a model's job: make_agent types it as any Agent
        raise TypeError(f"job {job.id}: {job.model} is not played by a model")
    try:
        result = run_episode(
            task, agent, interaction_steps=job.settings["interaction_steps"],
            max_consecutive_invalid=job.settings.get("max_consecutive_invalid",
                                                     DEFAULT_MAX_CONSECUTIVE_INVALID),
            protocol=job.settings.get("protocol", "worldtest"),
            ticks_per_action=job.settings.get("ticks_per_action"),
            autumnbench=job_autumnbench_settings(job, agent))   # image mode's images count too
    finally:
        agent.close()
    usage, usd = usage_of(agent.calls, job.model, spec.price_book())
    return JobEstimate(job.id, job.settings, usage["calls"], usage["input_tokens"],
                       usage["output_tokens"], usage["cache_read_tokens"],
                       usage["cache_write_tokens"], usd, usage.get("uncached_usd"),
                       result.ended or None)


def estimate_sweep(spec: Sweep, *, reply_tokens: int, processes: int | None = None,
                   ) -> tuple[list[ArmEstimate], int]:
    """Every model job of ``spec`` estimated (module docstring), grouped by arm in the order
    the arms first appear; and the number of local agents' jobs (no calls)."""
    from ..analysis.stats import arm_labels
    from ..parallel import default_processes, map_in_order

    jobs = spec.expand()
    model_jobs = [j for j in jobs if not plays_without_model(j.model)]
    # the stand-in plays the same episode for every seed and repeat of a task: one of each
    played: dict[str, Job] = {}
    keys = []
    for job in model_jobs:
        keys.append(_episode_key(job))
        played.setdefault(keys[-1], job)
    work = functools.partial(estimate_job, spec=spec, reply_tokens=reply_tokens)
    count = default_processes() if processes is None else processes
    by_key = dict(zip(played, map_in_order(work, list(played.values()), count)))
    estimates = [dataclasses.replace(by_key[key], job_id=job.id, settings=job.settings)
                 for job, key in zip(model_jobs, keys)]
    arms: dict[str, ArmEstimate] = {}
    for estimate, label in zip(estimates, arm_labels([e.settings for e in estimates])):
        arms.setdefault(label, ArmEstimate(label)).jobs.append(estimate)
    return list(arms.values()), len(jobs) - len(model_jobs)


def _episode_key(job: Job) -> str:
    """What decides a job's episode against the stand-in model: its settings but the seed and
    repeat (the stand-in does not sample) and the task it plays (which some tasks seed from
    the job's seed)."""
    from ..tasks.store import dump_task
    from .job import job_task
    from .spec import _digest, job_id

    settings = {k: v for k, v in job.settings.items() if k not in ("seed", "repeat")}
    return job_id({**settings, "task_played": _digest(dump_task(job_task(job)))})


def _money(usd: float | None) -> str:
    from ..pricing import describe_cost

    return describe_cost(usd, 2)


def format_estimate(arms: list[ArmEstimate], local_jobs: int, reply_tokens: int) -> str:
    """The estimate as a table, one row per arm and a total."""
    header = ("arm", "jobs", "calls", "input tokens", "from cache", "output tokens",
              "cost", "without cache")
    rows = [header]
    for arm in arms:
        rows.append((arm.arm, str(len(arm.jobs)), f"{arm.total('calls'):,}",
                     f"{arm.total('input_tokens'):,}", f"{arm.cached_share:.0%}",
                     f"{arm.total('output_tokens'):,}", _money(arm.total("usd")),
                     _money(arm.total("uncached_usd"))))
    if len(arms) > 1:
        every = ArmEstimate("total", [j for arm in arms for j in arm.jobs])
        rows.append(("total", str(len(every.jobs)), f"{every.total('calls'):,}",
                     f"{every.total('input_tokens'):,}", f"{every.cached_share:.0%}",
                     f"{every.total('output_tokens'):,}", _money(every.total("usd")),
                     _money(every.total("uncached_usd"))))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                       for i, (c, w) in enumerate(zip(row, widths))).rstrip()
             for row in rows]
    context = sum(1 for arm in arms for j in arm.jobs if j.ended == "context")
    notes = [f"estimate: every episode runs to the end of each budget, the model replying "
             f"{reply_tokens} tokens and an action per call (--estimate-reply-tokens N); "
             f"tokens by llm-eval's estimate, cache as each route bills it; nothing was run "
             f"against a provider"]
    if local_jobs:
        notes.append(f"{local_jobs} jobs of local agents (random, oracle, simulator) make no "
                     f"model calls and cost nothing")
    if context:
        notes.append(f"{context} episodes outgrew their model's context window")
    if any(arm.total("usd") is None for arm in arms):
        notes.append("unpriced: a model neither LiteLLM's map nor --prices prices")
    return "\n".join(lines + notes)
