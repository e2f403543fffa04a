"""The Chat Completions shapes, shared by ``openai-chat`` and ``litellm`` (which speaks them
for every provider): our messages and tools out, the choice's message back in."""

from __future__ import annotations

import json
from typing import Any

from .base import image_placeholder
from .types import (ImagePart, Request, StopReason, TextPart, ToolCall, ToolCallPart,
                    ToolResultPart)

__all__ = ["chat_messages", "chat_tools", "parse_tool_call", "chat_stop_reason"]


def chat_messages(request: Request, *, for_record: bool = False,
                  replay_provider: str | None = None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in request.messages:
        if message.role == "system":
            out.append({"role": "system",
                        "content": "\n\n".join(p.text for p in message.parts
                                               if isinstance(p, TextPart))})
            continue
        if message.role == "assistant":
            entry: dict[str, Any] = {"role": "assistant"}
            text = "".join(p.text for p in message.parts if isinstance(p, TextPart))
            entry["content"] = text or None
            calls = [{"id": p.id, "type": "function",
                      "function": {"name": p.name, "arguments": json.dumps(p.arguments)}}
                     for p in message.parts if isinstance(p, ToolCallPart)]
            if calls:
                entry["tool_calls"] = calls
            if replay_provider and message.replay_provider == replay_provider:
                # LiteLLM carries Anthropic-style thinking blocks on the assistant message.
                blocks = [b for b in message.replay_items if "thinking" in b.get("type", "")]
                if blocks:
                    entry["thinking_blocks"] = blocks
            out.append(entry)
            continue
        content: list[dict[str, Any]] = []
        for p in message.parts:
            if isinstance(p, ToolResultPart):
                out.append({"role": "tool", "tool_call_id": p.call_id, "content": p.text})
            elif isinstance(p, TextPart):
                content.append({"type": "text", "text": p.text})
            elif isinstance(p, ImagePart):
                url = image_placeholder(p) if for_record else f"data:{p.media_type};base64,{p.data}"
                content.append({"type": "image_url", "image_url": {"url": url}})
        if content:
            out.append({"role": "user", "content": content})
    return out


def chat_tools(request: Request) -> list[dict[str, Any]]:
    return [{"type": "function",
             "function": {"name": t.name, "description": t.description,
                          "parameters": t.parameters, "strict": True}}
            for t in request.tools]


def parse_tool_call(call_id: str, name: str, arguments: str | None) -> ToolCall:
    raw = arguments or ""
    try:
        parsed = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError:
        parsed = None
    return ToolCall(id=call_id, name=name, arguments=parsed if isinstance(parsed, dict) else None,
                    raw_arguments=raw)


def chat_stop_reason(finish_reason: str | None, has_calls: bool) -> StopReason:
    match finish_reason:
        case "tool_calls" | "function_call":
            return "tool_call"
        case "stop":
            return "tool_call" if has_calls else "end_turn"
        case "length":
            return "max_tokens"
        case "content_filter":
            return "refusal"
        case _:
            return "tool_call" if has_calls else "other"
