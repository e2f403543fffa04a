"""The closed types every adapter speaks: Request in, Response out, errors classified.

Nothing past an adapter sees a provider's raw shapes except ``Response.raw_request`` and
``Response.raw_response``, which keep them verbatim (scrubbed of secrets) for the transcript.

Token counts are normalised so that every provider means the same thing:

- ``input_tokens`` is every prompt token processed, cached or not; ``cache_read_tokens`` and
  ``cache_write_tokens`` are parts of it;
- ``output_tokens`` is every generated token; ``reasoning_tokens`` is the part spent thinking.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

from llm_eval.errors import LlmEvalError

__all__ = [
    "JsonObject",
    "TextPart",
    "ImagePart",
    "ToolCallPart",
    "ToolResultPart",
    "Part",
    "Message",
    "Tool",
    "GenerationConfig",
    "Request",
    "ToolCall",
    "Usage",
    "Response",
    "StopReason",
    "ProviderError",
    "RateLimited",
    "Transient",
    "Fatal",
]

JsonObject = dict[str, Any]   # a JSON object: a request's body or a reply as an SDK has them

SCHEMA_VERSION = 1


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TextPart(_Frozen):
    type: Literal["text"] = "text"
    text: str


class ImagePart(_Frozen):
    """An image, base64-encoded (PNG from the renderers)."""

    type: Literal["image"] = "image"
    data: str
    media_type: str = "image/png"

    @classmethod
    def from_bytes(cls, data: bytes, media_type: str = "image/png") -> ImagePart:
        return cls(data=base64.b64encode(data).decode("ascii"), media_type=media_type)

    def sha256(self) -> str:
        return hashlib.sha256(base64.b64decode(self.data)).hexdigest()


class ToolCallPart(_Frozen):
    """A tool call the assistant made (in an assistant message sent back)."""

    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: dict[str, Any]


class ToolResultPart(_Frozen):
    """The answer to one tool call (in the next user message)."""

    type: Literal["tool_result"] = "tool_result"
    call_id: str
    text: str
    is_error: bool = False


Part = Annotated[Union[TextPart, ImagePart, ToolCallPart, ToolResultPart],
                 Field(discriminator="type")]


class Message(_Frozen):
    """One turn. ``replay_items`` are provider blocks that must be sent back verbatim on later
    turns (Anthropic thinking blocks with signatures, OpenAI reasoning items); they are used
    only by the provider named in ``replay_provider``."""

    role: Literal["system", "user", "assistant"]
    parts: tuple[Part, ...]
    replay_provider: str | None = None
    replay_items: tuple[dict[str, Any], ...] = ()

    @classmethod
    def system(cls, text: str) -> Message:
        return cls(role="system", parts=(TextPart(text=text),))

    @classmethod
    def user(cls, *parts: Part | str) -> Message:
        return cls(role="user", parts=tuple(TextPart(text=p) if isinstance(p, str) else p
                                            for p in parts))

    @classmethod
    def from_response(cls, response: Response) -> Message:
        """The assistant turn to put in the history: text, tool calls and replay blocks."""
        parts: list[Part] = []
        if response.text:
            parts.append(TextPart(text=response.text))
        parts.extend(ToolCallPart(id=c.id, name=c.name, arguments=c.arguments or {})
                     for c in response.tool_calls)
        return cls(role="assistant", parts=tuple(parts), replay_provider=response.provider,
                   replay_items=response.replay_items)


class Tool(_Frozen):
    """A function the model may call; ``parameters`` is a strict JSON schema."""

    name: str
    description: str = ""
    parameters: dict[str, Any]


class GenerationConfig(_Frozen):
    """The compute knobs. ``None`` means "not set": the knob is not sent at all.

    ``tool_mode``: ``"tools"`` (the model must call exactly one tool), ``"tags"`` (no tools;
    the action in an ``<action>`` tag, the last one winning) or ``"text"`` (no tools
    are sent; the reply ends with the strict ``ACTION: ...`` line)."""

    max_output_tokens: int | None = None
    temperature: float | None = None
    seed: int | None = None
    reasoning_effort: Literal["minimal", "low", "medium", "high", "xhigh", "max"] | None = None
    thinking_budget: int | None = None
    tool_mode: Literal["tools", "text", "tags"] = "tools"


class Request(_Frozen):
    """One model call. ``metadata`` is volatile (ids, timestamps) and not part of the hash."""

    messages: tuple[Message, ...]
    tools: tuple[Tool, ...] = ()
    config: GenerationConfig = GenerationConfig()
    metadata: dict[str, Any] = Field(default_factory=dict)

    def canonical(self) -> dict[str, Any]:
        """The request without volatile fields, as JSON-ready data (for hashing and replay)."""
        return self.model_dump(mode="json", exclude={"metadata"})

    def canonical_hash(self) -> str:
        import json

        text = json.dumps(self.canonical(), sort_keys=True, separators=(",", ":"),
                          ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ToolCall(_Frozen):
    """A tool call as the model made it. ``arguments`` is None when the model's argument text
    was not a JSON object; ``raw_arguments`` keeps the text."""

    id: str
    name: str
    arguments: dict[str, Any] | None
    raw_arguments: str = ""


class Usage(_Frozen):
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


StopReason = Literal["tool_call", "end_turn", "max_tokens", "refusal", "other"]


class Response(_Frozen):
    """What came back, normalised, with what was sent.

    ``knobs_sent`` holds each generation knob as actually sent to the provider (after mapping,
    e.g. ``{"max_tokens": 5120, "thinking.budget_tokens": 4096}``); ``knobs_dropped`` names each
    requested knob that was not sent and why, so a sweep can tell when a knob had no effect.
    ``thinking`` is whether the reply shows reasoning was on (reasoning tokens or thinking
    blocks), None if the provider does not say."""

    version: int = SCHEMA_VERSION
    provider: str
    model_requested: str
    model: str
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    thinking_text: str = ""
    replay_items: tuple[dict[str, Any], ...] = ()
    stop_reason: StopReason = "other"
    raw_stop_reason: str | None = None
    usage: Usage = Usage()
    raw_usage: dict[str, Any] = Field(default_factory=dict)
    thinking: bool | None = None
    knobs_sent: dict[str, Any] = Field(default_factory=dict)
    knobs_dropped: dict[str, str] = Field(default_factory=dict)
    raw_request: dict[str, Any] = Field(default_factory=dict)
    raw_response: dict[str, Any] = Field(default_factory=dict)
    latency_s: float = 0.0


# --- error classification -------------------------------------------------------------------


class ProviderError(LlmEvalError):
    """An adapter's verdict on a failed call; the core decides what to do with it."""

    kind = "error"

    def __init__(self, message: str, *, provider: str = "", status: int | None = None,
                 error_class: str | None = None) -> None:
        self.message = message
        self.provider = provider
        self.status = status
        self.error_class = error_class
        super().__init__(f"{provider}: {message}" if provider else message)


class RateLimited(ProviderError):
    """Rate limited or overloaded (429, Anthropic 529): retry after ``retry_after`` seconds."""

    kind = "rate_limited"

    def __init__(self, message: str, *, retry_after: float | None = None, **kw: Any) -> None:
        self.retry_after = retry_after
        super().__init__(message, **kw)


class Transient(ProviderError):
    """Worth retrying with backoff: 5xx, timeouts, dropped connections, unreadable bodies."""

    kind = "transient"


class Fatal(ProviderError):
    """Not worth retrying (auth, bad request, context overflow, replay mismatch);
    ``reason`` says which in a word."""

    kind = "fatal"

    def __init__(self, message: str, *, reason: str = "fatal", **kw: Any) -> None:
        self.reason = reason
        super().__init__(message, **kw)
