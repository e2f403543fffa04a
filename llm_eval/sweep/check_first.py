"""``llm-eval run --check-first``: ``llm-eval providers check`` for every model of a sweep,
with the sweep's settings, before its first job.

Each provider model (not the local agents, people or replays) is checked with what its jobs
will send (``llm_eval.probe``): the action tools of the phases of its first job of each
family (their task's grid and forms), in the sweep's tool mode; every thinking budget and
reasoning effort pair of the budgets; an image if a rendering has ``png``; the cache when
``cache: auto`` on a route that caches; the sweep's temperature, sampling seed, adapter
options (``base_url``), call settings (attempts, timeout) and prices. A model that refuses
something, or cannot be reached, stops the run before any job starts.
"""

from __future__ import annotations

import itertools
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..probe import CheckReport, CheckSettings
    from .spec import Sweep

__all__ = ["check_settings", "check_sweep", "check_before_run"]


def check_settings(spec: Sweep) -> list[CheckSettings]:
    """What each provider model of ``spec`` will be sent (module docstring)."""
    from ..agents.llm import parse_rendering
    from ..probe import CheckSettings
    from .job import job_task
    from .scheduler import FREE_PROVIDERS
    from .spec import Job, plays_without_model, provider_of

    models = [m for m in spec.models
              if not plays_without_model(m) and provider_of(m) not in FREE_PROVIDERS]
    if not models:
        return []
    first: dict[tuple[str, str], Job] = {}
    for job in spec.expand():
        first.setdefault((job.model, job.settings["family"]), job)
    b = spec.budgets
    knobs = tuple(dict.fromkeys(
        pair for pair in itertools.product(b.thinking_budget, b.reasoning_effort)
        if pair != (None, None)))
    image = any("png" in parse_rendering(r) for r in spec.renderings)
    return [CheckSettings(
        model=model, adapter_options=dict(spec.adapter_options.get(model, {})), image=image,
        tool_mode=spec.tool_mode, knobs=knobs, temperature=spec.temperature,
        seed=spec.model_seed, cache=spec.cache, protocol=spec.protocol,
        tasks=tuple(job_task(job) for (m, _), job in first.items() if m == model))
        for model in models]


def check_sweep(spec: Sweep) -> list[CheckReport]:
    """The check of every provider model of ``spec``, one after another, each call under the
    sweep's call settings and priced by its prices."""
    from ..calls import CallPolicy
    from ..probe import check_model_sync

    policy = CallPolicy(max_attempts=spec.calls.max_attempts, timeout=spec.calls.timeout,
                        concurrency=None)
    return [check_model_sync(s, policy=policy, prices=spec.price_book())
            for s in check_settings(spec)]


def check_before_run(spec: Sweep) -> int:
    """Check ``spec``'s models and print the reports: 0 when every model would get through,
    1 when one would not (nothing of the run has started). A missing key or SDK is a
    ``SpecError``, as for the run itself."""
    from ..probe import CheckSetupError, format_report
    from .scheduler import check_ready
    from .spec import SpecError

    check_ready(spec)
    try:
        reports = check_sweep(spec)
    except CheckSetupError as exc:
        raise SpecError(str(exc)) from None
    for report in reports:
        print(format_report(report), flush=True)
    failed = [r.model for r in reports if not r.ok]
    if failed:
        print(f"llm-eval: error: --check-first: {', '.join(failed)} would fail (see the "
              f"check above); no job was run", file=sys.stderr)
        return 1
    return 0
