"""OpenAI Chat Completions (``openai-chat/<model>``); with ``base_url`` any OpenAI-compatible
server.

Knobs: ``max_completion_tokens``, ``temperature``, ``seed``, ``reasoning_effort``. Not sent:
``thinking_budget`` (OpenAI takes an effort, not a token budget). Messages, tool calls sent
back with the provider's own fields, and the ``tool_choice`` fallback for servers that refuse
``"required"``: ``chat_format``. Tools: strict, bounds kept, on OpenAI's own API; the portable
subset at a base URL (``schemas``). ``parallel_tool_calls: false``, except to OpenAI's o-series
reasoning models (o1, o3, o3-mini, o3-pro, o4-mini), which refuse the parameter on Chat
Completions ("Unsupported parameter: 'parallel_tool_calls' is not supported with this model"):
left out and said in ``knobs_dropped``; an extra call is answered with an error result.
"""

from __future__ import annotations

import re
from typing import Any

import openai

from .base import Adapter, Stopwatch
from .caching import prompt_cache_key
from .chat_format import (
    ToolChoiceFallback,
    chat_messages,
    chat_stop_reason,
    chat_tools,
    read_tool_calls,
    server_message,
)
from .classify import json_reply, malformed, reading_reply, scrub
from .schemas import openai_subset
from .sdk_clients import LoopClient, api_key, classify_sdk_error, http_client, untransformed
from .types import JsonObject, ProviderError, Request, Response, Usage

__all__ = ["OpenAIChatAdapter"]

# o1, o3, o3-mini, o3-pro, o4-mini and their snapshots (also fine-tuned or behind a proxy prefix)
_O_SERIES = re.compile(r"^(?:ft:)?o\d")
NO_PARALLEL_KNOB = ("OpenAI's o-series models refuse parallel_tool_calls on Chat Completions: "
                    "left out, an extra call is answered with an error result")


class OpenAIChatAdapter(Adapter):
    provider = "openai-chat"

    def __init__(self, model: str, **options: Any) -> None:
        super().__init__(model, **options)
        key = api_key(options, "OPENAI_API_KEY", self.provider)
        self._client = LoopClient(lambda: openai.AsyncOpenAI(
            api_key=key, base_url=options.get("base_url"), max_retries=0,
            timeout=options.get("timeout", 600.0), http_client=http_client(openai, options)))
        self._tool_choice = ToolChoiceFallback(self.provider, options.get("base_url"), model)
        self.schema_subset = openai_subset(model, options.get("base_url"))

    def build(self, request: Request, *,
              for_record: bool = False) -> tuple[JsonObject, JsonObject, JsonObject]:
        cfg = request.config
        kwargs: dict[str, Any] = {"model": self.model,
                                  "messages": chat_messages(request, for_record=for_record,
                                                            replay_provider=self.provider)}
        sent: dict[str, Any] = {}
        dropped: dict[str, str] = {}
        if request.tools and cfg.tool_mode == "tools":
            kwargs["tools"] = chat_tools(request, self.schema_subset)
            self._tool_choice.apply(kwargs, dropped)
            if _O_SERIES.match(self.model.rpartition("/")[2]):
                dropped["parallel_tool_calls"] = NO_PARALLEL_KNOB
            else:
                kwargs["parallel_tool_calls"] = False
        if key := prompt_cache_key(request, self.options):
            kwargs["prompt_cache_key"] = key
        if cfg.max_output_tokens is not None:
            kwargs["max_completion_tokens"] = sent["max_completion_tokens"] = \
                cfg.max_output_tokens
        if cfg.temperature is not None:
            kwargs["temperature"] = sent["temperature"] = cfg.temperature
        if cfg.seed is not None:
            kwargs["seed"] = sent["seed"] = cfg.seed
        if cfg.reasoning_effort is not None:
            kwargs["reasoning_effort"] = sent["reasoning_effort"] = cfg.reasoning_effort
        if cfg.thinking_budget is not None:
            dropped["thinking_budget"] = "OpenAI takes a reasoning effort, not a token budget"
        return kwargs, sent, dropped

    async def complete(self, request: Request) -> Response:
        kwargs, sent, dropped = self.build(request)
        record, _, _ = self.build(request, for_record=True)
        watch = Stopwatch()
        try:
            result = await self._send(kwargs)
        except ProviderError as verdict:
            said = server_message(getattr(verdict.__cause__, "body", None))
            refusal = self._tool_choice.refusal(kwargs, verdict.status, said)
            if refusal is None:
                raise
            self._tool_choice.fall_back(refusal, dropped, kwargs, record)
            watch = Stopwatch()
            result = await self._send(kwargs)
            self._tool_choice.remember(dropped)
        latency = watch.elapsed()
        raw = json_reply(result, self.provider, "a chat completion", {"choices": list})
        with reading_reply(self.provider):
            return self.normalise(result, raw, record, sent, dropped, latency)

    async def _send(self, kwargs: dict[str, Any]) -> Any:
        try:
            return await self._client.get().chat.completions.create(**untransformed(kwargs))
        except Exception as exc:
            verdict = classify_sdk_error(exc, openai, self.provider)
            if verdict is None:
                raise
            raise verdict from exc

    def normalise(self, result: Any, raw: JsonObject, record: JsonObject, sent: JsonObject,
                  dropped: JsonObject, latency: float) -> Response:
        """Our ``Response`` from the SDK's reply (``raw``: the same as JSON data)."""
        first = raw["choices"][0] if raw["choices"] else None
        if not isinstance(first, dict) or not isinstance(first.get("message"), dict):
            raise malformed(self.provider, f"expected a chat completion whose first choice "
                                           f"holds a message, got choices {raw['choices']!r}")
        choice = result.choices[0]
        message = choice.message
        calls, replay = read_tool_calls(first["message"].get("tool_calls"), record)
        u = result.usage
        reasoning = getattr(getattr(u, "completion_tokens_details", None),
                            "reasoning_tokens", 0) or 0
        prompt_details = getattr(u, "prompt_tokens_details", None)
        cached = getattr(prompt_details, "cached_tokens", 0) or 0
        written = getattr(prompt_details, "cache_write_tokens", 0) or 0
        usage = Usage(input_tokens=u.prompt_tokens if u else 0,
                      output_tokens=u.completion_tokens if u else 0, reasoning_tokens=reasoning,
                      cache_read_tokens=cached, cache_write_tokens=written)
        stop = chat_stop_reason(choice.finish_reason, bool(calls))
        if message.refusal:
            stop = "refusal"
        return Response(
            provider=self.provider, model_requested=self.model, model=result.model or self.model,
            text=message.content or message.refusal or "", tool_calls=calls,
            replay_items=replay, stop_reason=stop,
            raw_stop_reason=choice.finish_reason, usage=usage,
            raw_usage=raw.get("usage") or {}, thinking=(reasoning > 0) if u is not None else None,
            knobs_sent=sent, knobs_dropped=dropped, raw_request=scrub(record),
            raw_response=scrub(raw), latency_s=latency)

    async def aclose(self) -> None:
        await self._client.aclose()
