"""A fake model that plays whole episodes on loopback (``FakeProvider.responder``), billing
usage as the provider would.

- ``standin_action(tools, turn)``: the action ``adapters.standin`` would take on that turn,
  read from the request's tools on the wire (the same forms in the same order), so a run
  against the fake and ``--estimate`` play the same episodes.
- ``AnthropicCache``: Anthropic's prompt cache as its documentation describes it, on the wire
  request: blocks in the order tools, system, messages; a block with ``cache_control`` is a
  breakpoint; at each one the longest prefix already cached is looked for at it and up to 20
  blocks before it, then the prefix up to it is cached. Its token count is its own (a fifth
  of each block's JSON), not llm-eval's estimate.
- ``chat_prompt_tokens(body)``: a Chat Completions request's prompt tokens counted on the
  wire by ``adapters.tokens.estimate_text`` over what a provider tokenizes (each message's
  text and tool calls, the tool schemas).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from typing import Any

from llm_eval.adapters.standin import KEEP_GOING
from llm_eval.adapters.tokens import MESSAGE_OVERHEAD, estimate_text

REPLY_TOKENS = 40
REPLY_TEXT = " step" * REPLY_TOKENS


_RANGE = re.compile(r"\((-?\d+) to (-?\d+)\)")


def _bounds(p: dict) -> tuple[int, int]:
    """A parameter's range: its bounds, or, on a route that sends none (``adapters.schemas``),
    the range its description states."""
    if "minimum" in p:
        return p["minimum"], p.get("maximum", p["minimum"])
    found = _RANGE.search(p.get("description", ""))
    return (int(found.group(1)), int(found.group(2))) if found else (0, 0)


def _forms(tools: list[dict]) -> list[tuple[str, list[tuple[str, int, int]]]]:
    forms = []
    for tool in tools:
        spec = tool.get("function", tool)
        schema = spec.get("parameters") or spec.get("input_schema") or {}
        params = [(name, *_bounds(p)) for name, p in schema.get("properties", {}).items()]
        forms.append((spec["name"], params))
    return forms


def standin_action(tools: list[dict], turn: int) -> tuple[str, dict[str, int]]:
    """(tool name, arguments) the stand-in model takes on ``turn`` (module docstring)."""
    forms = _forms(tools)
    going = [f for f in forms if f[0] in KEEP_GOING] or forms
    name, params = going[turn % len(going)]
    return name, {p: low + (turn * (3 + 2 * i)) % (high - low + 1)
                  for i, (p, low, high) in enumerate(params)}


def output_tokens(name: str, args: dict) -> int:
    return estimate_text(REPLY_TEXT) + estimate_text(f"{name} {json.dumps(args)}")


class AnthropicCache:
    """One episode's prompt cache as Anthropic bills it (module docstring); ``markers`` keeps
    how many breakpoints each request carried."""

    def __init__(self) -> None:
        self.cached: set[bytes] = set()
        self.markers: list[int] = []
        self.lock = threading.Lock()

    def usage(self, body: dict) -> dict[str, int]:
        blocks: list[dict] = [{"tools": body.get("tools", [])}]
        system = body.get("system")
        if isinstance(system, str):
            blocks.append({"type": "text", "text": system})
        elif system:
            blocks.extend(system)
        for message in body["messages"]:
            content = message["content"]
            blocks.extend([{"type": "text", "text": content}] if isinstance(content, str)
                          else content)
        digests, ends, total = [], [], 0
        running = hashlib.sha256()
        for block in blocks:
            text = json.dumps({k: v for k, v in block.items() if k != "cache_control"},
                              sort_keys=True)
            running.update(text.encode())
            digests.append(running.copy().digest())
            total += max(1, len(text) // 5)
            ends.append(total)
        marks = [i for i, b in enumerate(blocks) if "cache_control" in b]
        with self.lock:
            self.markers.append(len(marks))
            read = 0
            for mark in marks:
                for j in range(mark, max(-1, mark - 21), -1):
                    if digests[j] in self.cached:
                        read = max(read, ends[j])
                        break
            written = 0
            for mark in marks:
                if ends[mark] >= 1024 and digests[mark] not in self.cached:
                    self.cached.add(digests[mark])
                    written = max(written, ends[mark] - read)
        return {"input_tokens": total - read - written, "cache_read_input_tokens": read,
                "cache_creation_input_tokens": written}


def anthropic_responder(cache: AnthropicCache):
    """A ``FakeProvider.responder`` for ``/v1/messages``: the stand-in's action, billed by
    ``cache``."""
    def respond(path: str, body: Any) -> tuple[int, Any]:
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        name, args = standin_action(body.get("tools", []), turn)
        usage = {**cache.usage(body), "output_tokens": output_tokens(name, args)}
        return 200, {"id": f"msg_{turn}", "type": "message", "role": "assistant",
                     "model": body["model"], "stop_reason": "tool_use", "stop_sequence": None,
                     "content": [{"type": "text", "text": REPLY_TEXT},
                                 {"type": "tool_use", "id": f"toolu_{turn}", "name": name,
                                  "input": args}],
                     "usage": usage}
    return respond


def chat_prompt_tokens(body: dict) -> int:
    """A chat request's prompt tokens on the wire (module docstring)."""
    total = estimate_text(json.dumps(body.get("tools", []), sort_keys=True))
    for message in body["messages"]:
        content = message.get("content") or ""
        if isinstance(content, list):
            content = "\n\n".join(p.get("text", "") for p in content)
        total += MESSAGE_OVERHEAD + estimate_text(content)
        for call in message.get("tool_calls", ()):
            total += estimate_text(f"{call['function']['name']} "
                                   f"{call['function']['arguments']}")
    return total


def chat_responder(path: str, body: Any) -> tuple[int, Any]:
    """A ``FakeProvider.responder`` for ``/v1/chat/completions``: the stand-in's action, the
    prompt counted on the wire."""
    turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
    name, args = standin_action(body.get("tools", []), turn)
    prompt, completion = chat_prompt_tokens(body), output_tokens(name, args)
    return 200, {
        "id": f"chatcmpl-{turn}", "object": "chat.completion", "created": 1764720000,
        "model": body["model"],
        "choices": [{"index": 0, "logprobs": None, "finish_reason": "tool_calls",
                     "message": {"role": "assistant", "content": REPLY_TEXT,
                                 "tool_calls": [{"id": f"call_{turn}", "type": "function",
                                                 "function": {"name": name,
                                                              "arguments": json.dumps(args)}}]}}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                  "total_tokens": prompt + completion}}
