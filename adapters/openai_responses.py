"""OpenAI Responses API (``openai/<model>``).

Knobs: ``max_output_tokens``, ``temperature``, ``reasoning.effort``. Not sent: ``seed`` (the
Responses API has none) and ``thinking_budget`` (OpenAI takes an effort, not a token budget).
Tools: strict, bounds kept, on OpenAI's own API; the portable subset, ``strict: false``, at a
base URL (``schemas``). ``tool_choice: "required"`` with reasoning too (OpenAI's reasoning
models take it).

Calls are stateless (``store=False``), so what a reply said goes back as items. Every output
item of a reply (reasoning, message, function call) is kept as returned in
``Response.replay_items``; on the next turns:

- with its reasoning (the encrypted reasoning items are requested with a reasoning effort),
  the reply's items go back as returned: each reasoning item with its encrypted content, each
  message and function call after it with its ``msg_...``/``fc_...`` id and a message with its
  ``phase``, since the API pairs a reasoning item with the item that followed it by that id
  and refuses a reasoning item "provided without its required following item";
- without (no reasoning, or reasoning items without encrypted content, which a stateless call
  cannot resolve), messages and function calls go back without their ids (a message keeps its
  ``phase``), and a reasoning item followed by nothing is not sent at all.
"""

from __future__ import annotations

import json
from typing import Any

import openai

from .base import Adapter, Stopwatch, image_placeholder
from .caching import prompt_cache_key
from .chat_format import parse_tool_call, stable_call_id
from .classify import json_reply, reading_reply, scrub
from .schemas import openai_subset
from .sdk_clients import LoopClient, api_key, classify_sdk_error, http_client, untransformed
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

__all__ = ["OpenAIResponsesAdapter"]


class OpenAIResponsesAdapter(Adapter):
    provider = "openai"

    def __init__(self, model: str, **options: Any) -> None:
        super().__init__(model, **options)
        key = api_key(options, "OPENAI_API_KEY", self.provider)
        self._client = LoopClient(lambda: openai.AsyncOpenAI(
            api_key=key, base_url=options.get("base_url"), max_retries=0,
            timeout=options.get("timeout", 600.0), http_client=http_client(openai, options)))
        self.schema_subset = openai_subset(model, options.get("base_url"))

    def build(self, request: Request, *,
              for_record: bool = False) -> tuple[JsonObject, JsonObject, JsonObject]:
        """The ``responses.create`` keyword arguments, the knobs sent and the knobs dropped."""
        cfg = request.config
        instructions: list[str] = []
        items: list[dict[str, Any]] = []
        for message in request.messages:
            if message.role == "system":
                instructions.extend(p.text for p in message.parts if isinstance(p, TextPart))
                continue
            if message.role == "assistant":
                returned = (returned_items(message.replay_items)
                            if message.replay_provider == self.provider else None)
                if returned is not None:
                    items.extend(returned)
                    continue
                text = "".join(p.text for p in message.parts if isinstance(p, TextPart))
                if text:
                    items.append({"role": "assistant", "content": text})
                for p in message.parts:
                    if isinstance(p, ToolCallPart):
                        items.append({"type": "function_call", "call_id": p.id, "name": p.name,
                                      "arguments": json.dumps(p.arguments)})
                continue
            content: list[dict[str, Any]] = []
            for p in message.parts:
                if isinstance(p, ToolResultPart):
                    items.append({"type": "function_call_output", "call_id": p.call_id,
                                  "output": p.text})
                elif isinstance(p, TextPart):
                    content.append({"type": "input_text", "text": p.text})
                elif isinstance(p, ImagePart):
                    url = (image_placeholder(p) if for_record
                           else f"data:{p.media_type};base64,{p.data}")
                    content.append({"type": "input_image", "image_url": url, "detail": "auto"})
            if content:
                items.append({"role": "user", "content": content})

        kwargs: dict[str, Any] = {"model": self.model, "input": items, "store": False}
        if instructions:
            kwargs["instructions"] = "\n\n".join(instructions)
        if request.tools and cfg.tool_mode == "tools":
            subset = self.schema_subset
            kwargs["tools"] = [{"type": "function", "name": t.name, "description": t.description,
                                "parameters": subset.parameters(t.parameters),
                                "strict": subset.strict}
                               for t in request.tools]
            kwargs["tool_choice"] = "required"
            kwargs["parallel_tool_calls"] = False
        sent: dict[str, Any] = {}
        dropped: dict[str, str] = {}
        if key := prompt_cache_key(request, self.options):
            kwargs["prompt_cache_key"] = key
        if cfg.max_output_tokens is not None:
            kwargs["max_output_tokens"] = sent["max_output_tokens"] = cfg.max_output_tokens
        if cfg.temperature is not None:
            kwargs["temperature"] = sent["temperature"] = cfg.temperature
        if cfg.reasoning_effort is not None:
            kwargs["reasoning"] = {"effort": cfg.reasoning_effort, "summary": "auto"}
            kwargs["include"] = ["reasoning.encrypted_content"]
            sent["reasoning.effort"] = cfg.reasoning_effort
        if cfg.seed is not None:
            dropped["seed"] = "the Responses API takes no seed"
        if cfg.thinking_budget is not None:
            dropped["thinking_budget"] = "OpenAI takes a reasoning effort, not a token budget"
        return kwargs, sent, dropped

    async def complete(self, request: Request) -> Response:
        kwargs, sent, dropped = self.build(request)
        record, _, _ = self.build(request, for_record=True)
        watch = Stopwatch()
        try:
            result = await self._client.get().responses.create(**untransformed(kwargs))
        except Exception as exc:
            verdict = classify_sdk_error(exc, openai, self.provider)
            if verdict is None:
                raise
            raise verdict from exc
        latency = watch.elapsed()
        raw = json_reply(result, self.provider, "a Responses API response", {"output": list})
        with reading_reply(self.provider):
            return self.normalise(result, raw, record, sent, dropped, latency)

    def normalise(self, result: Any, raw: JsonObject, record: JsonObject, sent: JsonObject,
                  dropped: JsonObject, latency: float) -> Response:
        """Our ``Response`` from the SDK's reply (``raw``: the same as JSON data)."""
        text: list[str] = []
        thinking: list[str] = []
        calls: list[ToolCall] = []
        replay: list[dict[str, Any]] = []
        refusal = False
        for index, item in enumerate(result.output or ()):
            match item.type:
                case "reasoning":
                    replay.append(item.model_dump(mode="json", exclude_none=True))
                    thinking.extend(s.text for s in (item.summary or ()))
                case "message":
                    replay.append(item.model_dump(mode="json", exclude_none=True))
                    for c in item.content or ():
                        if c.type == "output_text":
                            text.append(c.text)
                        elif c.type == "refusal":
                            refusal = True
                            text.append(c.refusal)
                case "function_call":
                    returned = item.model_dump(mode="json", exclude_none=True)
                    returned["call_id"] = item.call_id or stable_call_id(record, index)
                    replay.append(returned)
                    calls.append(parse_tool_call(returned["call_id"], item.name,
                                                 item.arguments))
                case _:
                    pass
        raw_usage = raw.get("usage") or {}
        u = result.usage
        reasoning = cached = written = 0
        if u is not None:
            reasoning = getattr(u.output_tokens_details, "reasoning_tokens", 0) or 0
            cached = getattr(u.input_tokens_details, "cached_tokens", 0) or 0
            written = getattr(u.input_tokens_details, "cache_write_tokens", 0) or 0
        usage = Usage(input_tokens=u.input_tokens if u else 0,
                      output_tokens=u.output_tokens if u else 0, reasoning_tokens=reasoning,
                      cache_read_tokens=cached, cache_write_tokens=written)
        incomplete = getattr(result.incomplete_details, "reason", None)
        stop: StopReason
        match (result.status, incomplete):
            case (_, "max_output_tokens"):
                stop = "max_tokens"
            case (_, "content_filter"):
                stop = "refusal"
            case ("completed", _) if refusal:
                stop = "refusal"
            case ("completed", _):
                stop = "tool_call" if calls else "end_turn"
            case _:
                stop = "other"
        return Response(
            provider=self.provider, model_requested=self.model, model=result.model or self.model,
            text="".join(text), tool_calls=tuple(calls), thinking_text="\n".join(thinking),
            replay_items=tuple(replay), stop_reason=stop,
            raw_stop_reason=incomplete or result.status, usage=usage, raw_usage=raw_usage,
            thinking=bool(reasoning or any(i["type"] == "reasoning" for i in replay)),
            knobs_sent=sent, knobs_dropped=dropped,
            raw_request=scrub(record), raw_response=scrub(raw), latency_s=latency)

    async def aclose(self) -> None:
        await self._client.aclose()


_SAID = ("message", "function_call")


def returned_items(replay: tuple[dict[str, Any], ...]) -> list[dict[str, Any]] | None:
    """One reply's output items as they go back on a later turn (module docstring); None when
    it said nothing (no message, no function call): then the assistant turn is built from its
    parts, without reasoning."""
    said = [i for i in replay if i.get("type") in _SAID]
    if not said:
        return None
    last_said = max(n for n, i in enumerate(replay) if i.get("type") in _SAID)
    reasoning = {n for n, i in enumerate(replay) if i.get("type") == "reasoning"
                 and i.get("encrypted_content") and n < last_said}
    if reasoning:
        return [i for n, i in enumerate(replay) if n in reasoning or i.get("type") in _SAID]
    return [_without_id(i) for i in said]


def _without_id(item: dict[str, Any]) -> dict[str, Any]:
    """A message or function call as an input item without the id of the output it was."""
    if item["type"] == "function_call":
        return {"type": "function_call", "call_id": item["call_id"], "name": item["name"],
                "arguments": item["arguments"]}
    text = "".join(c.get("text") or c.get("refusal") or "" for c in item.get("content", ()))
    out: dict[str, Any] = {"role": "assistant", "content": text}
    if item.get("phase"):
        out["phase"] = item["phase"]
    return out
