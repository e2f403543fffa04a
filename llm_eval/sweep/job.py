"""Running one job: build its agent, play its episode, write its transcript.

``execute_job(job, spec, transcript_path, run_id=...)`` is synchronous (the scheduler runs it
in a worker thread). It writes the header, streams the episode's events and model calls, then
the score or the failure, and ``end``; it returns a ``JobOutcome`` for the run store. A model
call whose retries run out makes the job ``infra_error`` (never scored); a provider refusal
only the user can fix (no credit or a spend limit, a refused key, no permission, an unknown
model: ``adapters.classify.ACCOUNT_REASONS``) makes it ``fatal``, with what to fix in its
error, and a resume leaves it unless asked (``--retry-fatal``); any other refusal, a missing
key or any other exception makes it ``failed``. None is raised. A provider that
answers with its context-length error ends the episode where it stands: the job is ``done``
and scored, ``ended`` "context" (``JobOutcome.ended``, the store's ``ended``), and the refused
call is a ``context_exhausted`` event of the transcript (a replay refuses it the same way).

Hooks for the scheduler and replay: ``stop()`` is asked before every observation reaches the
agent (so before every model call); a reason it returns ends the episode there, unscored, as
``interrupted`` (the store puts the job back in the queue: a spend cap, Ctrl-C), its cause
in ``JobOutcome.stopped_by`` when the reason is a ``spend.StopReason``. ``on_call``
sees every model call's record as it is written (live spend, progress). ``adapter`` replaces
the model's adapter (replay answers the model's requests from a recording), ``tools`` the
agent tools' runs (replay answers them from the recording's ``tool_call`` events). ``player`` is an
agent to play instead of the one the job names: a person's (``agents.human``), whose actions
come from the browser (``llm-eval serve``) or, in a replay, from the recording.

Optional settings a job may carry besides the sweep's: ``horizon`` (the planning test's
horizon, shortened), ``max_consecutive_invalid`` (the phases' invalid-action limit) and
``model_seed`` (the generation seed sent to the provider). A job of a suite (``suite``) checks
that its task's files still match the suite's manifest before it plays (else it fails naming
the task and the file) and names the suite and its digest in the transcript header.
"""

from __future__ import annotations

import hashlib
import logging
import platform
import threading
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .. import __version__
from ..runstore import EndStatus, Failure
from ..sdk_versions import sdk_versions
from ..transcripts import SCHEMA_VERSION, EpisodeRecorder, Header, TranscriptWriter
from .spec import Job, Sweep, plays_without_model
from .spend import OnCall, StopCause, StopReason

if TYPE_CHECKING:
    from llm_eval.adapters.base import Adapter
    from llm_eval.adapters.types import Request

    from ..agents.base import Agent
    from ..pricing import PriceBook
    from ..tasks.models import CDTask, MFPTask, PlanningTask
    from ..worldtest.autumnbench.settings import AutumnBenchSettings

    AnyTask = MFPTask | CDTask | PlanningTask

__all__ = ["JobOutcome", "JobInterrupted", "Stop", "execute_job", "build_agent", "usage_of",
           "job_task", "adapter_options", "cache_record", "play_and_record"]


class JobInterrupted(Exception):
    """Raised inside an episode when the scheduler's ``stop()`` gives a reason: a
    ``StopReason`` (its cause kept as ``cause``) or plain words (``cause`` None)."""

    def __init__(self, reason: str | StopReason) -> None:
        text = reason.text if isinstance(reason, StopReason) else reason
        super().__init__(text)
        self.reason = text
        self.cause: StopCause | None = reason.cause if isinstance(reason, StopReason) else None


# asked before every observation: a reason stops the episode (plain words: a cause not said)
Stop = Callable[[], StopReason | str | None]


@dataclass(frozen=True, slots=True)
class JobOutcome:
    status: EndStatus
    score: float | None = None
    raw_reward: float | None = None
    usage: dict[str, Any] | None = None
    cost_usd: float | None = None
    error: str | None = None
    ended: str | None = None        # "context": scored, but cut short by the model's context
    stopped_by: StopCause | None = None   # interrupted: who stopped it (None: not said)


def job_task(job: Job) -> AnyTask:
    """The task ``job`` plays: the shipped task, or the task file its settings name
    (``task_file``, whose content must still have the recorded digest); a task of a suite
    must still match the suite's manifest (``SuiteMismatchError``); a task that takes its
    seed from the run gets the job's; the planning horizon shortened when the job's settings
    carry ``horizon``."""
    from ..errors import TaskFileError
    from ..tasks.models import CDTask, MFPTask, PlanningTask
    from ..tasks.store import dump_task, load_task, load_task_file
    from ..worldtest.seeding import seeded
    from .spec import _digest

    s = job.settings
    if "task_file" in s:
        task = load_task_file(s["task_file"])
        if _digest(dump_task(task)) != s["task_digest"]:
            raise TaskFileError(f"{s['task_file']}: the task file changed since job {job.id} "
                                "was made (its digest differs)")
    else:
        if "suite" in s:
            from ..suites import load_suite

            load_suite(s["suite"]).verify(s["task"])
        task = load_task(s["world"], s["family"], s.get("suite"))
    found, _ = seeded(task, s["seed"], s.get("protocol", "worldtest"))
    if not isinstance(found, (MFPTask, CDTask, PlanningTask)):   # seeded is typed object
        raise TypeError(f"job {job.id}: seeded gave {type(found).__name__}, not a task")
    task = found
    horizon = job.settings.get("horizon")
    if horizon is not None:
        public = task.public.model_copy(update={"horizon": horizon})
        task = task.model_copy(update={"public": public})
    return task


def build_agent(job: Job, spec: Sweep, task: AnyTask, *, adapter: Adapter | None = None,
                record_calls: bool = True, tools: Any = None) -> Agent:
    """The agent of ``job``: random (seeded), oracle, or an LLM agent with the job's settings
    (``adapter``: use this adapter instead of the model's own, e.g. a replay; ``record_calls``
    False: keep only each call's usage and cost; ``tools``: where the agent tools' results
    come from instead of running them, e.g. a replay's ``RecordedTools``)."""
    from ..agents import make_agent

    s = job.settings
    if plays_without_model(job.model):   # a person cannot be built here: make_agent says so
        return make_agent(job.model, task, seed=job.agent_seed)
    from llm_eval.adapters import GenerationConfig

    from ..calls import CallPolicy

    config = GenerationConfig(max_output_tokens=s["max_output_tokens"],
                              temperature=s["temperature"],
                              reasoning_effort=s["reasoning_effort"],
                              thinking_budget=s["thinking_budget"], tool_mode=s["tool_mode"],
                              seed=s.get("model_seed"))
    # each worker thread has its own event loop: the scheduler enforces provider limits
    policy = CallPolicy(max_attempts=spec.calls.max_attempts, timeout=spec.calls.timeout,
                        concurrency=None)
    return make_agent(job.model, task, rendering=s["rendering"], prompt_variant=s["prompt"],
                      history=s["history"], config=config, policy=policy,
                      adapter_options=adapter_options(job.model, spec),
                      adapter=adapter, prices=spec.price_book(),
                      context_window=s.get("context_window"), cache_key=f"llm-eval-{job.id}",
                      record_calls=record_calls, **_tool_options(s, task, tools))


def _tool_options(settings: dict[str, Any], task: AnyTask, runner: Any) -> dict[str, Any]:
    """The LLM agent's agent-tool arguments from a job's settings (none without tools); the
    autumn tool runs hypotheses with the world's seed (``task.seed``)."""
    if "agent_tools" not in settings:
        return {}
    from ..agent_tools import ToolCaps

    return {"agent_tools": settings["agent_tools"],
            "tool_caps": ToolCaps(per_episode=settings["tool_calls_per_episode"],
                                  per_turn=settings["tool_calls_per_turn"]),
            "tool_seed": task.seed, "tool_runner": runner}


def adapter_options(model: str, spec: Sweep) -> dict[str, Any]:
    """The options ``model``'s adapter is made with: the spec's for it, and ``cache``."""
    return {"cache": spec.cache, **spec.adapter_options.get(model, {})}


def cache_record(model: str, spec: Sweep, history: Any) -> dict[str, str]:
    """The header's ``cache``: the setting, how the route caches, how far a request repeats
    the previous one (``adapters.caching``, ``LLMAgent.prefix_stability``)."""
    from llm_eval.adapters.caching import cache_kind

    from ..agents.llm import prefix_stability

    options = adapter_options(model, spec)
    return {"setting": options["cache"], "route": cache_kind(model, options),
            "prefix": prefix_stability(history)}


_TOKENS = ("input_tokens", "output_tokens", "reasoning_tokens", "cache_read_tokens",
           "cache_write_tokens")


def usage_of(calls: list[dict[str, Any]], model: str | None = None,
             book: PriceBook | None = None) -> tuple[dict[str, Any], float | None]:
    """Token totals (cache reads and writes among the input), call and retry counts of an LLM
    agent's calls, and their cost; given the ``model`` they were priced as (and the price
    ``book``), also ``uncached_usd``: what they would have cost with no prompt cache, every
    input token at the input price."""
    from ..pricing import price

    usage: dict[str, Any] = {"calls": len(calls),
                             "retries": sum(len(c["attempts"]) - 1 for c in calls),
                             **{key: 0 for key in _TOKENS}}
    for record in calls:
        for key in _TOKENS:
            usage[key] += record["usage"].get(key) or 0
    costs = [c["cost"]["usd"] for c in calls if c.get("cost")]
    priced = bool(calls) and len(costs) == len(calls)
    if priced and model is not None:
        uncached = [price({**c["usage"], "cache_read_tokens": 0, "cache_write_tokens": 0},
                          model, book) for c in calls]
        known = [u for u in uncached if u is not None]
        if len(known) == len(uncached):
            usage["uncached_usd"] = round(sum(u.usd for u in known), 8)
    return usage, (round(sum(costs), 8) if priced else None)


def _versions(job: Job, spec: Sweep) -> dict[str, Any]:
    versions: dict[str, Any] = {"llm_eval": __version__, "transcript_schema": SCHEMA_VERSION,
                                "python": platform.python_version(), "sdks": sdk_versions()}
    if "prompt_digest" in job.settings:
        versions["prompt"] = {"variant": job.settings["prompt"],
                              "digest": job.settings["prompt_digest"]}
    if not plays_without_model(job.model):   # what priced its calls: LiteLLM's map, a user's file
        versions["prices"] = spec.price_book().describe(job.model)
    return versions


def _suite_of(job: Job) -> dict[str, str] | None:
    """The header's ``suite``: the job's suite and its digest, or None."""
    name = job.settings.get("suite")
    if name is None:
        return None
    from ..suites import load_suite

    return {"name": name, "digest": load_suite(name).digest}


def execute_job(job: Job, spec: Sweep, transcript_path: str | Path, *,
                run_id: str | None = None, stop: Stop | None = None,
                on_call: OnCall | None = None,
                adapter: Adapter | None = None, player: Any = None,
                tools: Any = None) -> JobOutcome:
    """Play ``job`` and write its transcript (module docstring)."""
    from ..calls import FatalProviderError, InfrastructureError
    from ..worldtest.episode import run_episode
    from ..worldtest.phase import DEFAULT_MAX_CONSECUTIVE_INVALID
    from ..worldtest.programs import original_world

    agent: Any = None
    with TranscriptWriter(transcript_path) as writer:
        recorder = EpisodeRecorder(writer)

        def observer(kind: str, data: dict[str, Any]) -> None:
            if kind == "observation" and stop is not None:
                reason = stop()
                if reason:
                    raise JobInterrupted(reason)
            recorder.observer(kind, data)

        def record_call(record: dict[str, Any], request: Request) -> None:
            recorder.on_call(record, request)
            if on_call is not None:
                on_call(record)

        try:
            task = job_task(job)
            program = original_world(task).program
            seed = task.seed
            assert seed is not None, "original_world refuses a task without its seed"
            protocol = job.settings.get("protocol", "worldtest")
            suite = _suite_of(job)
            writer.write(Header(
                job_id=job.id, run_id=run_id, settings=job.settings, task_id=task.id,
                world=task.world, family=task.family, seed=seed, protocol=protocol,
                program_sha256=hashlib.sha256(program.encode()).hexdigest(),
                versions=_versions(job, spec), suite=suite,
                cache=(None if plays_without_model(job.model)
                       else cache_record(job.model, spec, job.settings["history"]))))
            agent = player if player is not None else \
                build_agent(job, spec, task, adapter=adapter, tools=tools)
            if hasattr(agent, "on_call"):
                agent.on_call = record_call
            autumnbench = job_autumnbench_settings(job, agent)
            if hasattr(agent, "on_tool_call"):
                agent.on_tool_call = recorder.on_tool_call
            result = run_episode(
                task, agent, interaction_steps=job.settings["interaction_steps"],
                max_consecutive_invalid=job.settings.get("max_consecutive_invalid",
                                                         DEFAULT_MAX_CONSECUTIVE_INVALID),
                observer=observer, protocol=protocol,
                ticks_per_action=job.settings.get("ticks_per_action"), autumnbench=autumnbench)
        except JobInterrupted as exc:
            recorder.end("interrupted", exc.reason)
            return _outcome(agent, "interrupted", error=exc.reason, stopped_by=exc.cause)
        except InfrastructureError as exc:
            recorder.infrastructure_error(exc)
            recorder.end("infra_error", str(exc))
            return _outcome(agent, "infra_error", error=str(exc))
        except FatalProviderError as exc:
            recorder.infrastructure_error(exc)
            status: Failure = "fatal" if exc.account else "failed"
            error = f"provider refused ({exc.reason}): {exc}"
            if exc.account:
                error += ("; not retried by --resume: fix it, then llm-eval run --resume "
                          "RUN_DIR --retry-fatal")
            recorder.end(status, error)
            return _outcome(agent, status, error=error)
        except Exception as exc:   # an agent's or program's error: the job fails, not the run
            message = f"{type(exc).__name__}: {exc}"
            recorder.end("failed", message + "\n" + traceback.format_exc(limit=5))
            return _outcome(agent, "failed", error=message)
        finally:
            close = getattr(agent, "close", None)
            if callable(close):
                close()
        refusal = getattr(agent, "refusal", None)
        if result.ended == "context" and refusal is not None:
            recorder.context_exhausted(refusal)
        recorder.score(result)
        recorder.end("done")
        return _outcome(agent, "done", score=result.score, raw_reward=result.raw_reward,
                        ended=result.ended or None)


def job_autumnbench_settings(job: Job, agent: Any) -> AutumnBenchSettings | None:
    """The published harness's settings of an autumnbench job (None otherwise); with its own
    texts, a model's system prompt and per-turn instructions become the harness's."""
    from ..worldtest.autumnbench.settings import settings_of
    from ..worldtest.protocols import WORLDTEST
    from ..worldtest.protocols import protocol as protocol_profile

    profile = protocol_profile(job.settings.get("protocol", WORLDTEST.name))
    if not profile.takes_autumnbench_settings:
        return None
    autumnbench = settings_of(job.settings, model_plays=not plays_without_model(job.model))
    if autumnbench.texts is not None and hasattr(agent, "prompts"):
        from ..worldtest.autumnbench.view import harness_prompts

        agent.prompts = harness_prompts(agent.prompts, autumnbench.texts)
    return autumnbench


def _outcome(agent: Any, status: EndStatus, **fields: Any) -> JobOutcome:
    from llm_eval.adapters.classify import scrub

    calls = getattr(agent, "calls", None)
    usage, cost = (usage_of(calls, getattr(agent, "model", None),
                            getattr(agent, "prices", None)) if calls is not None
                   else (None, None))
    if fields.get("error"):
        fields["error"] = scrub(fields["error"])
    return JobOutcome(status=status, usage=usage, cost_usd=cost, **fields)


def play_and_record(job: Job, spec: Sweep, transcript_path: Path, *, run_id: str, player: Any,
                    store: Any, store_lock: threading.Lock) -> JobOutcome:
    """Play ``job`` with ``player`` (an agent fed from outside: a person's page, an MCP client)
    and record its end in ``store`` (a ``RunStore``) under ``store_lock``: done, interrupted or
    failed. A store that fails to record the end still ends the episode, failed and named, so
    whoever waits on it (a page, a client) is never left waiting."""
    try:
        outcome = execute_job(job, spec, transcript_path, run_id=run_id, player=player)
    except Exception as exc:   # execute_job does not raise; be sure the store hears
        outcome = JobOutcome("failed", error=f"{type(exc).__name__}: {exc}")
    try:
        with store_lock:
            if outcome.status == "done":
                store.finish(run_id, job.id, score=outcome.score,
                             raw_reward=outcome.raw_reward, ended=outcome.ended)
            elif outcome.status == "interrupted":
                store.stopped(run_id, job.id, outcome.error or "stopped")
            else:
                store.fail(run_id, job.id, "failed", outcome.error or "failed")
    except Exception as exc:
        logging.getLogger(__name__).exception("episode %s: the run store could not record its "
                                              "end", job.id)
        outcome = JobOutcome("failed", error=f"the run store could not record the episode's "
                                             f"end: {type(exc).__name__}: {exc}")
    return outcome
