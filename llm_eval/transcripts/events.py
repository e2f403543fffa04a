"""Transcript events: the typed, versioned record of one episode, one JSON line each.

Every event carries ``type`` (the discriminator) and ``schema_version``. An episode's
transcript is: ``header`` (every setting, versions, program hash, seed), then per phase
``phase_start``, ``observation`` / ``model_call`` / ``action`` for every step (and a
``tool_call`` after the model call that made it, for an agent with tools), ``phase_end``;
then ``score`` (or ``infrastructure_error``) and ``end``. Observations are the agent-facing
observation dict exactly as the agent got it; model calls keep the request and the raw request
and response (scrubbed of secrets, images replaced by ``<image sha256=...>`` with the bytes
stored once in ``images/<sha256>.png`` beside the transcript).

Schema 2 stores a model call's request, and the provider's raw request, as a patch on the
previous call's when it re-sends it (``request_patch``, ``raw_request_patch``; see
``callstore.py``) and caps long strings (``truncated``); schema 1 stored every request whole.
Both are read; a reader that expands (``io.TranscriptStream``) gives every call whole.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Annotated, Any, Final, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from ..runstore import EndStatus

__all__ = ["SCHEMA_VERSION", "READ_VERSIONS", "Event", "Header", "PhaseStart",
           "ObservationEvent", "ModelCall", "ToolCallEvent", "ActionEvent", "PhaseEnd", "Score",
           "InfrastructureErrorEvent", "ContextExhaustedEvent", "End", "parse_event", "now"]

SCHEMA_VERSION: Final = 2
READ_VERSIONS = (1, 2)   # the schema versions this program reads


def now() -> str:
    """The UTC time stamp of events (ISO 8601, milliseconds)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal[1, 2] = SCHEMA_VERSION
    time: str = Field(default_factory=now)


class Header(_Event):
    """Who plays what: the job's settings and every version that can change a result."""

    type: Literal["header"] = "header"
    job_id: str
    run_id: str | None = None
    settings: dict[str, Any]
    task_id: str
    world: str
    family: str
    seed: int
    # the rules the episode ran under (docs/spec/worldtest.md 3.4); transcripts from before it: worldtest
    protocol: str = "worldtest"
    # the suite the job ran as part of ({"name", "digest"}: llm_eval/suites); None: no suite
    suite: dict[str, str] | None = None
    program_sha256: str | None = None
    # llm_eval, python, transcript_schema; "sdks": {openai, anthropic, litellm: version or None
    # when not installed} (llm_eval/sdk_versions.py; absent in transcripts from before it);
    # "prompt": variant and digest; "prices": what priced the calls (sweep/job.py _versions)
    versions: dict[str, Any] = Field(default_factory=dict)
    # a model's prompt caching ({"setting", "route", "prefix"}: sweep/job.py cache_record);
    # None: a local agent, or a transcript from before caching
    cache: dict[str, str] | None = None


class PhaseStart(_Event):
    type: Literal["phase_start"] = "phase_start"
    phase: str


class ObservationEvent(_Event):
    """The observation exactly as the agent got it (``Observation.to_dict``)."""

    type: Literal["observation"] = "observation"
    index: int
    phase: str
    observation: dict[str, Any]


class ModelCall(_Event):
    """One model call: the request as sent, the raw response, usage, cost, latency, attempts.

    ``request`` is the request whole, or None when ``request_patch`` gives it as a patch on
    the previous call's; ``response.raw_request`` likewise, or ``raw_request_patch``.
    ``truncated`` lists the strings cut to the cap (path, original length and sha256)."""

    type: Literal["model_call"] = "model_call"
    index: int
    phase: str
    step: int
    request_hash: str
    request: dict[str, Any] | None = None
    request_patch: dict[str, Any] | None = None
    response: dict[str, Any]
    raw_request_patch: dict[str, Any] | None = None
    truncated: list[dict[str, Any]] = Field(default_factory=list)
    usage: dict[str, Any]
    cost: dict[str, Any] | None = None
    latency_s: float | None = None
    attempts: list[dict[str, Any]]
    action: str | None = None
    invalid_reply: str | None = None
    images: list[str] = Field(default_factory=list)   # sha256 of each image sent


class ToolCallEvent(_Event):
    """One agent-tool call (``llm_eval.agent_tools``), after the model call that made it
    (``call_index``): the tool and its arguments, ``status`` (ok, error: the tool ran and
    said what was wrong, refused: over a cap), the result the model got and a small
    ``detail`` (the autumn tool's verdict). ``seconds``, the time it took, is not compared by
    replay, which returns the recorded result without running the tool."""

    type: Literal["tool_call"] = "tool_call"
    index: int
    call_index: int
    phase: str
    step: int
    tool: str
    arguments: dict[str, Any]
    status: Literal["ok", "error", "refused"]
    result: str
    detail: dict[str, Any] = Field(default_factory=dict)
    seconds: float = 0.0


class ActionEvent(_Event):
    type: Literal["action"] = "action"
    index: int
    phase: str
    action: str
    valid: bool
    message: str | None = None
    reward: float = 0.0


class PhaseEnd(_Event):
    type: Literal["phase_end"] = "phase_end"
    phase: str
    steps: int
    invalid_actions: int
    counts: dict[str, int] = Field(default_factory=dict)
    ended: str
    reward: float = 0.0


class Score(_Event):
    type: Literal["score"] = "score"
    score: float
    raw_reward: float
    family: str
    result: dict[str, Any] = Field(default_factory=dict)   # EpisodeResult without steps


class InfrastructureErrorEvent(_Event):
    """Model calls ran out of retries (or the provider refused): the episode is not scored."""

    type: Literal["infrastructure_error"] = "infrastructure_error"
    error_class: str
    message: str
    provider: str | None = None
    attempts: list[dict[str, Any]] = Field(default_factory=list)


class ContextExhaustedEvent(_Event):
    """The provider answered a model call with its context-length error: the episode ended
    there and was scored as it stood (``end`` is ``done``). ``request_hash`` is the refused
    request's (a replay answers that request with the same refusal); ``index``, ``phase`` and
    ``step`` place it like a ``model_call``."""

    type: Literal["context_exhausted"] = "context_exhausted"
    index: int
    phase: str
    step: int
    request_hash: str
    message: str
    provider: str | None = None
    attempts: list[dict[str, Any]] = Field(default_factory=list)


class End(_Event):
    type: Literal["end"] = "end"
    status: EndStatus
    error: str | None = None


Event = Annotated[Union[Header, PhaseStart, ObservationEvent, ModelCall, ToolCallEvent,
                        ActionEvent, PhaseEnd, Score, InfrastructureErrorEvent,
                        ContextExhaustedEvent, End],
                  Field(discriminator="type")]

_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


def parse_event(data: dict[str, Any]) -> Any:
    """A JSON object to its event, one of ``Event`` (pydantic ``ValidationError`` if it is not
    one). Typed Any: its readers pick an event's fields by its ``type``."""
    return _ADAPTER.validate_python(data)
