"""The request matrix every route is checked on: each tool mode, reasoning or thinking on and
off, caching markers on and off, a PNG in the user turn, and a second turn that carries the
first reply back (its tool calls answered with tool results, its reasoning items or thinking
blocks replayed).

``conversation(route, mode, thinking, cache)`` plays the two turns through the route's adapter
(``wire_bodies.send``) and keeps the bodies sent and the first reply, once per process.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass
from typing import Any

from adapter_sample import FORMS, PNG
from wire_bodies import ROUTES, reply, send

from llm_eval.adapters import (
    GenerationConfig,
    ImagePart,
    Message,
    Request,
    Response,
    action_tools,
    next_turn_parts,
    read_reply,
)

__all__ = ["MODES", "Conversation", "conversation", "first_reply", "matrix"]

MODES = ("tools", "text", "tags")
_REPLIES = {
    # (api, tool mode is "tools", thinking on) -> the first reply's fixture
    ("responses", True, True): "responses_reasoning_message_call",
    ("responses", True, False): "responses_parallel_calls",
    ("responses", False, True): "responses_text",
    ("responses", False, False): "responses_text",
    ("chat", True, True): "chat_tool_call",
    ("chat", True, False): "chat_parallel_tool_calls",
    ("chat", False, True): "chat_text",
    ("chat", False, False): "chat_text",
    ("messages", True, True): "messages_thinking_tool_use",
    ("messages", True, False): "messages_parallel_tool_use",
    ("messages", False, True): "messages_thinking_text",
    ("messages", False, False): "messages_thinking_text",
}
_REASONING = {"reasoning", "thinking", "redacted_thinking"}


def first_reply(api: str, tools: bool, thinking: bool) -> dict[str, Any]:
    """The first reply's body; without thinking, the reasoning items or thinking blocks a
    provider returns only with it on are taken out."""
    body = copy.deepcopy(reply(_REPLIES[(api, tools, thinking)])["body"])
    if not thinking:
        if api == "responses":
            body["output"] = [i for i in body["output"] if i["type"] not in _REASONING]
        elif api == "messages":
            body["content"] = [b for b in body["content"] if b["type"] not in _REASONING]
    return body


@dataclass(frozen=True)
class Conversation:
    bodies: list[dict[str, Any]]       # the two requests as sent
    first: Response                    # the first reply, normalised
    requests: list[Request]


def matrix() -> list[tuple[str, str, bool, str]]:
    return [(route, mode, thinking, cache) for route in ROUTES for mode in MODES
            for thinking in (False, True) for cache in ("auto", "off")]


def _config(route: str, mode: str, thinking: bool) -> GenerationConfig:
    base = ROUTES[route].thinking if thinking else GenerationConfig(max_output_tokens=1024)
    return base.model_copy(update={"tool_mode": mode})


@functools.cache
def conversation(route: str, mode: str, thinking: bool, cache: str) -> Conversation:
    config = _config(route, mode, thinking)
    tools = action_tools(FORMS)
    system = Message.system("You explore a grid world. Find out how it works.")
    turn0 = Message.user("Frame 0:\n. . #\n. @ .", ImagePart.from_bytes(PNG))
    first = Request(messages=(system, turn0), tools=tools, config=config,
                    metadata={"cache_key": "episode-0123"})
    api = ROUTES[route].api
    answers = [first_reply(api, mode == "tools", thinking)]
    bodies, responses = send(ROUTES[route], [first], answers, cache=cache)
    response = responses[0]
    if isinstance(response, BaseException):
        raise response
    chosen = read_reply(response, FORMS, mode)
    # as the LLM agent sends a past turn: its text without the image
    past = Message.user("Frame 0:\n. . #\n. @ .")
    turn1 = Message.user(*next_turn_parts(chosen, "Frame 1:\n. . #\n@ . ."),
                         ImagePart.from_bytes(PNG))
    second = Request(messages=(system, past, Message.from_response(response), turn1),
                     tools=tools, config=config, metadata={"cache_key": "episode-0123"})
    more, responses = send(ROUTES[route], [second], [answers[0]], cache=cache)
    if isinstance(responses[0], BaseException):
        raise responses[0]
    return Conversation(bodies + more, response, [first, second])
