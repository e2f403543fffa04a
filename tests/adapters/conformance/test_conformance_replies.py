"""Replies in the providers' documented shapes (``fixtures/replies/*.json``, written here from
the API references), read by each route's own normalisation through its real SDK or LiteLLM,
and checked field by field: text, tool calls (parallel ones too, ids never empty), stop
reason, usage with cached and reasoning tokens, thinking text, and the blocks or items kept
to send back (encrypted reasoning, thinking and redacted thinking with their signatures)."""

from __future__ import annotations

import pytest
from adapter_sample import FORMS
from wire_bodies import ROUTES, replies, reply, send

from llm_eval.adapters import GenerationConfig, Message, Request, action_tools

CASES = [(route, name) for route in ROUTES for name in replies(ROUTES[route].api)]
REQUEST = Request(messages=(Message.system("s"), Message.user("Frame 0.")),
                  tools=action_tools(FORMS), config=GenerationConfig(max_output_tokens=512))


def _read(route: str, name: str):
    _, (response,) = send(ROUTES[route], [REQUEST], [reply(name)["body"]])
    if isinstance(response, BaseException):
        raise response
    return response


@pytest.mark.parametrize("route,name", CASES, ids=[f"{r}-{n}" for r, n in CASES])
def test_each_reply_is_read_as_the_provider_means_it(route, name):
    fixture = reply(name)
    want = fixture["expected"]
    response = _read(route, name)
    assert response.text == want["text"]
    calls = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in response.tool_calls]
    for call, wanted in zip(calls, want["tool_calls"], strict=True):
        if wanted["id"] == "<non-empty>":   # the provider gave none: one of our own
            assert call["id"].strip(), f"{name}: a tool call with an empty id"
            wanted = dict(wanted, id=call["id"])
        assert call == wanted
    assert response.stop_reason == want["stop_reason"]
    assert response.usage.model_dump() == want["usage"]
    assert response.thinking is want["thinking"]
    assert response.thinking_text == want["thinking_text"]
    _kept_to_send_back(fixture, response.replay_items)


def _kept_to_send_back(fixture: dict, replay: tuple) -> None:
    """The reply's reasoning items or thinking blocks, as the provider returned them, are
    among the items kept to send back, in order."""
    body = fixture["body"]
    if fixture["api"] == "responses":
        wanted = [i for i in body["output"] if i["type"] == "reasoning"]
        kept = [i for i in replay if i.get("type") == "reasoning"]
        assert [(i["id"], i.get("encrypted_content")) for i in kept] == \
            [(i["id"], i.get("encrypted_content")) for i in wanted]
    elif fixture["api"] == "messages":
        wanted = [b for b in body["content"] if b["type"] in ("thinking", "redacted_thinking")]
        kept = [{k: v for k, v in b.items() if k in ("type", "thinking", "signature", "data")}
                for b in replay if b.get("type") in ("thinking", "redacted_thinking")]
        assert kept == wanted
    assert [i.get("type") for i in replay if i.get("type") in
            ("reasoning", "thinking", "redacted_thinking")] == fixture["expected"]["replay_types"]


def test_an_empty_id_becomes_the_same_id_each_time_it_is_read():
    """Stable: a transcript replayed reads the same ids."""
    first = _read("openai-chat", "chat_gemini_empty_id").tool_calls[0].id
    again = _read("openai-chat", "chat_gemini_empty_id").tool_calls[0].id
    assert first and first == again
