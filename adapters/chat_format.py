"""The Chat Completions shapes, shared by ``openai-chat`` and ``litellm`` (which speaks them
for every provider): our messages and tools out, the choice's message back in.

Sent in the form every OpenAI-compatible server reads the same way: a user message whose parts
are all text is one string (the parts joined by a blank line, as the system message is), and
the list of content parts is used only when an image is in it (servers such as
llama-cpp-python render a list through the chat template as its Python repr); an assistant
turn that only calls tools has ``content: ""`` (OpenAI's API allows null, some servers'
schemas refuse it).

Tools go out in the subset of JSON Schema the route's provider takes (``schemas``).

``tool_choice: "required"`` is what the adapters ask for, except where the provider refuses
forcing a tool while thinking is on (a Claude model with thinking: ``"auto"``, said in
``knobs_dropped["tool_choice"]``); a server that refuses it (a 4xx naming ``tool_choice``, or
a 5xx that says nothing, as llama-cpp-python's ``chatml-function-calling`` handler fails on
anything but ``auto``) gets ``"auto"`` instead: ``ToolChoiceFallback`` remembers the refusal
for that server and model, for the rest of the process, and every response sent so records it
in ``knobs_dropped["tool_choice"]``.

Tool calls go back as they came: a call that carried fields of the provider's own besides
``id``, ``type`` and ``function`` (Gemini's ``extra_content.google.thought_signature``,
LiteLLM's ``provider_specific_fields``) keeps them in ``Response.replay_items`` as
``{"type": "tool_call", "id": ..., "fields": {...}, "function_fields": {...}}``, and they are
sent again with the call. A call with an empty id gets ours (``stable_call_id``: a digest of
the request as recorded and the call's index, so the same request gives the same id, and a
replay, which answers with the recorded response, the recorded one), used for the call and
for its tool result alike.
"""

from __future__ import annotations

import hashlib
import json
import threading
from typing import Any, ClassVar

from .base import image_placeholder
from .schemas import SchemaSubset
from .types import ImagePart, Request, StopReason, TextPart, ToolCall, ToolCallPart, ToolResultPart

__all__ = ["chat_messages", "chat_tools", "mark_for_cache", "parse_tool_call", "chat_stop_reason",
           "user_content", "ToolChoiceFallback", "TEXT_JOIN", "read_tool_calls",
           "stable_call_id", "TOOL_CALL_ITEM"]

TOOL_CALL_ITEM = "tool_call"   # a replay item: a tool call's own fields, sent back with it
_CALL_KEYS = {"id", "type", "function", "index"}   # index: a streaming field LiteLLM keeps
_FUNCTION_KEYS = {"name", "arguments"}

TEXT_JOIN = "\n\n"   # between the text parts of one message sent as a string


def chat_messages(request: Request, *, for_record: bool = False,
                  replay_provider: str | None = None,
                  null_content: bool = False) -> list[dict[str, Any]]:
    """The request's messages in Chat Completions shapes (module docstring); ``null_content``:
    a tool-only assistant turn has ``content: null``, for LiteLLM routes to Gemini, where
    LiteLLM would turn ``""`` into an empty text part, which Gemini refuses."""
    out: list[dict[str, Any]] = []
    for message in request.messages:
        if message.role == "system":
            out.append({"role": "system",
                        "content": TEXT_JOIN.join(p.text for p in message.parts
                                                  if isinstance(p, TextPart))})
            continue
        if message.role == "assistant":
            entry: dict[str, Any] = {"role": "assistant"}
            text = "".join(p.text for p in message.parts if isinstance(p, TextPart))
            # "" with tool calls only: never null (module docstring), unless asked for
            entry["content"] = None if null_content and not text else text
            own = bool(replay_provider) and message.replay_provider == replay_provider
            extras = ({b["id"]: b for b in message.replay_items
                       if b.get("type") == TOOL_CALL_ITEM} if own else {})
            calls = [_call_entry(p, extras.get(p.id))
                     for p in message.parts if isinstance(p, ToolCallPart)]
            if calls:
                entry["tool_calls"] = calls
            if own:
                # LiteLLM carries Anthropic-style thinking blocks on the assistant message.
                blocks = [b for b in message.replay_items if "thinking" in b.get("type", "")]
                if blocks:
                    entry["thinking_blocks"] = blocks
            out.append(entry)
            continue
        for p in message.parts:
            if isinstance(p, ToolResultPart):
                out.append({"role": "tool", "tool_call_id": p.call_id, "content": p.text})
        content = user_content([p for p in message.parts
                                if isinstance(p, (TextPart, ImagePart))], for_record=for_record)
        if content:
            out.append({"role": "user", "content": content})
    return out


def _call_entry(part: ToolCallPart, extra: dict[str, Any] | None) -> dict[str, Any]:
    """One tool call of an assistant message, with the provider's own fields it came with."""
    function = {"name": part.name, "arguments": json.dumps(part.arguments)}
    entry: dict[str, Any] = {"id": part.id, "type": "function", "function": function}
    if extra:
        function.update(extra.get("function_fields", {}))
        entry.update(extra.get("fields", {}))
    return entry


def mark_for_cache(messages: list[dict[str, Any]]) -> None:
    """Put Anthropic's ``cache_control`` marker (``adapters.caching``) on the system message and
    on the latest turn, as LiteLLM passes them to Anthropic models: a marked content is a list
    of parts, the marker on its last text part (images after it); a turn that went back as a
    tool result alone (no user message after it) is marked on the tool message, which LiteLLM
    puts on its ``tool_result`` block."""
    system = next((m for m in messages if m["role"] == "system"), None)
    latest = next((m for m in reversed(messages) if m["role"] in ("user", "tool")), None)
    if latest is not None and latest["role"] == "tool":
        latest["cache_control"] = {"type": "ephemeral"}
        latest = None
    for message in (system, latest):
        if message is None:
            continue
        content = message["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        texts = [i for i, part in enumerate(content) if part.get("type") == "text"]
        if texts:
            content = [dict(part) for part in content]
            content[texts[-1]]["cache_control"] = {"type": "ephemeral"}
            message["content"] = content


def user_content(parts: list[TextPart | ImagePart], *,
                 for_record: bool = False) -> str | list[dict[str, Any]]:
    """A user message's content: one string when every part is text, else the list of content
    parts in order (images as data URLs, or as their hash ``for_record``)."""
    texts = [p.text for p in parts if isinstance(p, TextPart)]
    if len(texts) == len(parts):
        return TEXT_JOIN.join(texts)
    content: list[dict[str, Any]] = []
    for p in parts:
        if isinstance(p, TextPart):
            content.append({"type": "text", "text": p.text})
        else:
            url = image_placeholder(p) if for_record else f"data:{p.media_type};base64,{p.data}"
            content.append({"type": "image_url", "image_url": {"url": url}})
    return content


def chat_tools(request: Request, subset: SchemaSubset) -> list[dict[str, Any]]:
    """The request's tools as Chat Completions functions, in ``subset`` (``schemas``)."""
    tools = []
    for t in request.tools:
        function: dict[str, Any] = {"name": t.name, "description": t.description,
                    "parameters": subset.parameters(t.parameters)}
        if subset.strict:
            function["strict"] = True
        tools.append({"type": "function", "function": function})
    return tools


def parse_tool_call(call_id: str, name: str, arguments: str | None) -> ToolCall:
    raw = arguments or ""
    try:
        parsed = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError:
        parsed = None
    return ToolCall(id=call_id, name=name, arguments=parsed if isinstance(parsed, dict) else None,
                    raw_arguments=raw)


def stable_call_id(record: dict[str, Any], index: int) -> str:
    """Our id for the ``index``-th tool call of the reply to ``record`` (the request as
    recorded), for a provider that gave none (module docstring)."""
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=str)
    return f"call_{hashlib.sha256(text.encode('utf-8')).hexdigest()[:16]}_{index}"


def read_tool_calls(calls: list[Any] | None, record: dict[str, Any]
                    ) -> tuple[tuple[ToolCall, ...], tuple[dict[str, Any], ...]]:
    """A chat reply's tool calls (JSON data, ``message.tool_calls``) and the replay items of
    those that carried fields of the provider's own (module docstring). A call of a type
    other than ``function`` is not ours and is left out."""
    out: list[ToolCall] = []
    items: list[dict[str, Any]] = []
    for index, call in enumerate(calls or ()):
        if call.get("type", "function") != "function":
            continue
        function = call["function"]
        call_id = call.get("id") or stable_call_id(record, index)
        out.append(parse_tool_call(call_id, function["name"], function.get("arguments")))
        fields = {k: v for k, v in call.items() if k not in _CALL_KEYS and v is not None}
        function_fields = {k: v for k, v in function.items()
                           if k not in _FUNCTION_KEYS and v is not None}
        if fields or function_fields:
            item: dict[str, Any] = {"type": TOOL_CALL_ITEM, "id": call_id}
            if fields:
                item["fields"] = fields
            if function_fields:
                item["function_fields"] = function_fields
            items.append(item)
    return tuple(out), tuple(items)


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


class ToolChoiceFallback:
    """Which ``tool_choice`` one server and model get: ``"required"``, or ``"auto"`` once the
    server refused ``"required"`` (module docstring). Refusals are remembered for the process,
    so a sweep pays for one refused call per server and model, not one per episode."""

    _refused: ClassVar[dict[tuple[str, str, str], str]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, provider: str, base_url: str | None, model: str) -> None:
        self._key = (provider, base_url or "", model)
        self._local = bool(base_url)

    def apply(self, kwargs: dict[str, Any], dropped: dict[str, str], *,
              not_forced: str | None = None) -> None:
        """Set ``kwargs["tool_choice"]`` for a request that sends tools; ``not_forced`` says
        why this request may not force a tool (thinking on, for a provider that refuses
        both together), and then ``"auto"`` is sent."""
        with self._lock:
            why = self._refused.get(self._key) if not_forced is None else not_forced
        kwargs["tool_choice"] = "required" if why is None else "auto"
        if why is not None:
            dropped["tool_choice"] = why

    def refusal(self, kwargs: dict[str, Any], status: int | None,
                said: str | None) -> str | None:
        """How the server refused ``"required"``, if this error answer (``status``, and the
        server's own message ``said``: None without an error body) to ``kwargs`` is such a
        refusal; else None. A 4xx must name ``tool_choice``; a 500 whose error body has an
        empty message (a failed assertion) counts only for a server at a base URL (a
        provider's own API says what failed; a 502-504 or a 500 without a body is a gateway's
        or an overloaded server's, and is retried as transient)."""
        if kwargs.get("tool_choice") != "required" or status is None or said is None:
            return None
        said = " ".join(said.split())
        if 400 <= status < 500 and "tool_choice" in said.lower():
            return f"HTTP {status}: {said[:200]}"
        if status == 500 and not said and self._local:
            return f"HTTP {status} with an empty error message"
        return None

    def fall_back(self, refusal: str, dropped: dict[str, str],
                  *requests: dict[str, Any]) -> None:
        """Send ``"auto"`` in ``requests`` (the call and its record) and say why."""
        for kwargs in requests:
            kwargs["tool_choice"] = "auto"
        dropped["tool_choice"] = (f'the server refused tool_choice "required" ({refusal}); '
                                  f'sent "auto", so a reply may hold no tool call')

    def remember(self, dropped: dict[str, str]) -> None:
        """After ``"auto"`` was answered: the same for every later call to this server."""
        with self._lock:
            self._refused[self._key] = dropped["tool_choice"]


def server_message(body: Any) -> str | None:
    """What an error body says (``{"error": {"message": ...}}``, ``{"message": ...}``,
    ``{"detail": ...}`` or text); "" when it says nothing, None when there is no body."""
    if body is None:
        return None
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            said = inner.get("message") or inner.get("detail") or ""
            said = said if isinstance(said, str) else json.dumps(said)
            param = inner.get("param")
            return f"{said} (param {param})" if isinstance(param, str) and param else said
        if inner:
            return inner if isinstance(inner, str) else json.dumps(inner)
        detail = body.get("detail")
        return "" if not detail else detail if isinstance(detail, str) else json.dumps(detail)
    return body.strip() if isinstance(body, str) else ""
