"""Record one episode into a transcript as it runs.

``EpisodeRecorder(writer)`` is the bridge from the episode runner's ``observer`` hook and the
LLM agent's ``on_call`` hook to transcript events: ``observer`` for phase changes,
observations and actions, ``on_call`` for model calls (as the agent stored them: see
``callstore``; images written once by hash). The caller writes the header first and
``score`` / ``failure`` and ``end`` last.
"""

from __future__ import annotations

import base64
from typing import Any, Protocol

from llm_eval.adapters.classify import scrub
from llm_eval.adapters.types import Request

from ..runstore import EndStatus
from .events import (
    ActionEvent,
    ContextExhaustedEvent,
    End,
    InfrastructureErrorEvent,
    ModelCall,
    ObservationEvent,
    PhaseEnd,
    PhaseStart,
    Score,
    ToolCallEvent,
)
from .io import TranscriptWriter

__all__ = ["EpisodeRecorder", "ScoredEpisode"]


class ScoredEpisode(Protocol):
    """What ``score`` records of an episode's result (``worldtest.episode.EpisodeResult``)."""

    @property
    def score(self) -> float: ...

    @property
    def raw_reward(self) -> float: ...

    @property
    def family(self) -> str: ...

    def to_dict(self, *, steps: bool = True) -> dict[str, Any]: ...


class EpisodeRecorder:
    """Turns episode and model-call callbacks into transcript events (module docstring)."""

    def __init__(self, writer: TranscriptWriter) -> None:
        self.writer = writer
        self.model_calls = 0

    # -- the episode runner's observer -----------------------------------------------------------
    def observer(self, kind: str, data: dict[str, Any]) -> None:
        match kind:
            case "phase_start":
                self.writer.write(PhaseStart(phase=data["phase"]))
            case "observation":
                self.writer.write(ObservationEvent(
                    index=data["index"], phase=data["phase"],
                    observation=scrub(data["observation"].to_dict())))
            case "action":
                r = data["record"]
                self.writer.write(ActionEvent(index=r.index, phase=r.phase, action=r.action,
                                              valid=r.valid, message=r.message,
                                              reward=r.reward))
            case "phase_end":
                stats = data["stats"]
                self.writer.write(PhaseEnd(phase=stats.phase, steps=stats.steps,
                                           invalid_actions=stats.invalid_actions,
                                           counts=dict(stats.counts), ended=stats.ended,
                                           reward=data["reward"]))

    # -- the LLM agent's on_call -----------------------------------------------------------------
    def on_call(self, record: dict[str, Any], request: Request) -> None:
        """Write one model call; the images of ``request`` go to ``images/`` by hash."""
        hashes = []
        for message in request.messages:
            for part in message.parts:
                if part.type == "image":
                    suffix = "." + part.media_type.split("/")[-1]
                    hashes.append(self.writer.image(base64.b64decode(part.data), suffix))
        fields: dict[str, Any] = {
            k: record.get(k) for k in ("index", "phase", "step", "request_hash", "request",
                                       "request_patch", "response", "raw_request_patch",
                                       "usage", "cost", "latency_s", "attempts", "action",
                                       "invalid_reply")}
        self.writer.write(ModelCall(**fields, truncated=record.get("truncated") or [],
                                    images=hashes))
        self.model_calls += 1

    def on_tool_call(self, record: dict[str, Any]) -> None:
        """Write one agent-tool call (``AgentToolbox`` record), scrubbed."""
        self.writer.write(ToolCallEvent(**scrub(record)))

    # -- the outcome -----------------------------------------------------------------------------
    def score(self, result: ScoredEpisode) -> None:
        self.writer.write(Score(score=result.score, raw_reward=result.raw_reward,
                                family=result.family, result=result.to_dict(steps=False)))

    def infrastructure_error(self, exc: BaseException) -> None:
        attempts = [a.to_dict() for a in getattr(exc, "attempts", ())]
        self.writer.write(InfrastructureErrorEvent(
            error_class=type(exc).__name__, message=scrub(str(exc)),
            provider=getattr(exc, "provider", None), attempts=scrub(attempts)))

    def context_exhausted(self, refusal: dict[str, Any]) -> None:
        """The call the provider refused for its length (the LLM agent's ``refusal``)."""
        self.writer.write(ContextExhaustedEvent(**refusal))

    def end(self, status: EndStatus, error: str | None = None) -> None:
        self.writer.write(End(status=status, error=scrub(error) if error else None))
