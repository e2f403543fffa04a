"""Anthropic Messages (``anthropic/<model>``), with extended thinking.

Knobs: ``max_tokens`` (required by the API: ``max_output_tokens``, default 4096, plus the
thinking budget when thinking is on, since thinking counts against it), ``thinking`` (enabled
with ``budget_tokens``), ``output_config.effort``. Not sent: ``temperature`` and ``seed``
(anthropic 2.x ``messages.create`` accepts neither), effort ``minimal``.

Prompt caching (option ``cache``, ``adapters.caching``): with ``auto`` (the default) the system
prompt carries a ``cache_control`` marker (caching the tools with it) and so does the last text
or tool-result block of the latest user turn; ``off`` sends none.

Tools: without ``strict`` and without numeric bounds (``schemas.ANTHROPIC``): strict tool use
compiles every tool of a request into one grammar with a size ceiling, is not offered on every
model and refuses ``minimum``/``maximum``; the range is in each parameter's description and
our own check of the action refuses a value outside it.

Thinking blocks (with their signatures) come back in ``Response.replay_items`` and are sent
back first in the assistant turn, as the API requires while a tool loop goes on. With thinking
on the API allows only ``tool_choice`` auto (said in ``knobs_dropped["tool_choice"]``), so an
answer without a call can happen; the parser reports it to the model as an invalid action.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic

from .base import Adapter, Stopwatch, image_placeholder
from .caching import marked_part
from .classify import json_reply, reading_reply, scrub
from .schemas import ANTHROPIC
from .sdk_clients import LoopClient, api_key, classify_sdk_error, http_client, untransformed
from .thinking import NOT_FORCED_WITH_THINKING, check_budget, max_tokens_with
from .types import (
    ImagePart,
    JsonObject,
    Request,
    Response,
    StopReason,
    TextPart,
    ToolCall,
    ToolCallPart,
    ToolResultPart,
    Usage,
)

__all__ = ["AnthropicAdapter"]

DEFAULT_MAX_TOKENS = 4096
_EFFORTS = ("low", "medium", "high", "xhigh", "max")
EPHEMERAL = {"type": "ephemeral"}


class AnthropicAdapter(Adapter):
    provider = "anthropic"

    def __init__(self, model: str, **options: Any) -> None:
        super().__init__(model, **options)
        key = api_key(options, "ANTHROPIC_API_KEY", self.provider)
        self._client = LoopClient(lambda: anthropic.AsyncAnthropic(
            api_key=key, base_url=options.get("base_url"), max_retries=0,
            timeout=options.get("timeout", 600.0), http_client=http_client(anthropic, options)))

    def build(self, request: Request, *,
              for_record: bool = False) -> tuple[JsonObject, JsonObject, JsonObject]:
        cfg = request.config
        system: list[str] = []
        messages: list[dict[str, Any]] = []
        caching = self.options.get("cache", "auto") == "auto"
        moving = marked_part(request) if caching else None
        for m, message in enumerate(request.messages):
            if message.role == "system":
                system.extend(p.text for p in message.parts if isinstance(p, TextPart))
                continue
            blocks: list[dict[str, Any]] = []
            if message.role == "assistant" and message.replay_provider == self.provider:
                blocks.extend(message.replay_items)
            by_part: dict[int, dict[str, Any]] = {}
            for i, p in enumerate(message.parts):   # tool results first, as the API requires
                if isinstance(p, ToolResultPart):
                    by_part[i] = {"type": "tool_result", "tool_use_id": p.call_id,
                                  "content": p.text, **({"is_error": True} if p.is_error else {})}
                    blocks.append(by_part[i])
            for i, p in enumerate(message.parts):
                if isinstance(p, TextPart):
                    by_part[i] = {"type": "text", "text": p.text}
                elif isinstance(p, ImagePart):
                    data = image_placeholder(p) if for_record else p.data
                    by_part[i] = {"type": "image", "source": {
                        "type": "base64", "media_type": p.media_type, "data": data}}
                elif isinstance(p, ToolCallPart):
                    by_part[i] = {"type": "tool_use", "id": p.id, "name": p.name,
                                  "input": p.arguments}
                else:
                    continue
                blocks.append(by_part[i])
            if moving is not None and moving[0] == m:
                by_part[moving[1]]["cache_control"] = dict(EPHEMERAL)
            messages.append({"role": message.role, "content": blocks})

        sent: dict[str, Any] = {}
        dropped: dict[str, str] = {}
        max_tokens = cfg.max_output_tokens or DEFAULT_MAX_TOKENS
        budget = cfg.thinking_budget or 0   # None: no thinking
        thinking = budget > 0
        if thinking:   # the rules of thinking: adapters.thinking
            check_budget(budget, self.provider)
            max_tokens = max_tokens_with(max_tokens, budget)
        kwargs: dict[str, Any] = {"model": self.model, "max_tokens": max_tokens,
                                  "messages": messages}
        sent["max_tokens"] = max_tokens
        if system and caching:   # the stable prefix: the tools and the system prompt
            kwargs["system"] = [{"type": "text", "text": "\n\n".join(system),
                                 "cache_control": dict(EPHEMERAL)}]
        elif system:
            kwargs["system"] = "\n\n".join(system)
        if thinking:
            kwargs["thinking"] = {"type": "enabled", "budget_tokens": cfg.thinking_budget}
            sent["thinking.budget_tokens"] = cfg.thinking_budget
        elif cfg.thinking_budget is not None:
            dropped["thinking_budget"] = "a budget of 0 means thinking off"
        if request.tools and cfg.tool_mode == "tools":
            kwargs["tools"] = [{"name": t.name, "description": t.description,
                                "input_schema": ANTHROPIC.parameters(t.parameters)}
                               for t in request.tools]
            kwargs["tool_choice"] = {"type": "auto" if thinking else "any",
                                     "disable_parallel_tool_use": True}
            if thinking:
                dropped["tool_choice"] = NOT_FORCED_WITH_THINKING
        if cfg.reasoning_effort is not None:
            if cfg.reasoning_effort in _EFFORTS:
                kwargs["output_config"] = {"effort": cfg.reasoning_effort}
                sent["output_config.effort"] = cfg.reasoning_effort
            else:
                dropped["reasoning_effort"] = f"Anthropic has no effort {cfg.reasoning_effort!r}"
        if cfg.temperature is not None:
            dropped["temperature"] = "anthropic messages.create takes no temperature"
        if cfg.seed is not None:
            dropped["seed"] = "the Messages API takes no seed"
        return kwargs, sent, dropped

    async def complete(self, request: Request) -> Response:
        kwargs, sent, dropped = self.build(request)
        record, _, _ = self.build(request, for_record=True)
        watch = Stopwatch()
        try:
            result = await self._client.get().messages.create(**untransformed(kwargs))
        except Exception as exc:
            verdict = classify_sdk_error(exc, anthropic, self.provider)
            if verdict is None:
                raise
            raise verdict from exc
        latency = watch.elapsed()
        raw = json_reply(result, self.provider, "a Messages API message",
                         {"content": list, "usage": dict})
        with reading_reply(self.provider):
            return self.normalise(result, raw, record, sent, dropped, latency)

    def normalise(self, result: Any, raw: JsonObject, record: JsonObject, sent: JsonObject,
                  dropped: JsonObject, latency: float) -> Response:
        """Our ``Response`` from the SDK's reply (``raw``: the same as JSON data)."""
        text: list[str] = []
        thinking_text: list[str] = []
        replay: list[dict[str, Any]] = []
        calls: list[ToolCall] = []
        for block in result.content or ():
            match block.type:
                case "text":
                    text.append(block.text)
                case "thinking":
                    thinking_text.append(block.thinking)
                    replay.append({"type": "thinking", "thinking": block.thinking,
                                   "signature": block.signature})
                case "redacted_thinking":
                    replay.append({"type": "redacted_thinking", "data": block.data})
                case "tool_use":
                    args = block.input if isinstance(block.input, dict) else None
                    calls.append(ToolCall(id=block.id, name=block.name, arguments=args,
                                          raw_arguments=json.dumps(block.input)))
                case _:
                    pass
        u = result.usage
        cache_read = u.cache_read_input_tokens or 0
        cache_write = u.cache_creation_input_tokens or 0
        details = getattr(u, "output_tokens_details", None)
        reasoning = getattr(details, "thinking_tokens", 0) or 0
        usage = Usage(input_tokens=u.input_tokens + cache_read + cache_write,
                      output_tokens=u.output_tokens, reasoning_tokens=reasoning,
                      cache_read_tokens=cache_read, cache_write_tokens=cache_write)
        return Response(
            provider=self.provider, model_requested=self.model, model=result.model or self.model,
            text="".join(text), tool_calls=tuple(calls), thinking_text="\n".join(thinking_text),
            replay_items=tuple(replay), stop_reason=_stop(result.stop_reason, bool(calls)),
            raw_stop_reason=result.stop_reason, usage=usage,
            raw_usage=raw["usage"], thinking=bool(replay or reasoning),
            knobs_sent=sent, knobs_dropped=dropped, raw_request=scrub(record),
            raw_response=scrub(raw), latency_s=latency)

    async def aclose(self) -> None:
        await self._client.aclose()


def _stop(reason: str | None, has_calls: bool) -> StopReason:
    match reason:
        case "tool_use":
            return "tool_call"
        case "end_turn" | "stop_sequence":
            return "tool_call" if has_calls else "end_turn"
        case "max_tokens" | "model_context_window_exceeded":
            return "max_tokens"
        case "refusal":
            return "refusal"
        case _:
            return "other"
