"""Output items sent back as the provider returned them (issue 29).

- Responses with ``store: false``: after a reasoning item, the message and function call go
  back with their ``msg_...``/``fc_...`` ids and the message with its ``phase`` (the API pairs
  a reasoning item with its following item by id); reasoning the call cannot resolve (no
  encrypted content, or nothing after it) is not sent.
- Chat routes: a tool call's fields of the provider's own (Gemini's
  ``extra_content.google.thought_signature``, LiteLLM's ``provider_specific_fields``) go back
  with the call; a call with an empty id gets a stable id of ours, used for the call and its
  tool result alike.

Each sent body's input is also checked with the openai SDK's own input item types.
"""

from __future__ import annotations

import asyncio
import json

import httpx
import pydantic
import pytest
import respx
from adapter_sample import SECRET, request
from fake_provider import FakeProvider
from provider_bodies import chat_body, responses_body

from llm_eval.adapters import (
    GenerationConfig,
    Message,
    ToolResultPart,
    create_adapter,
    read_tool_reply,
)
from llm_eval.adapters.chat_format import stable_call_id

RESPONSES = "https://api.openai.com/v1/responses"
SIGNATURE = "CiQBjz1rX0thoughtSignatureOfTheCall=="


def _input_items_valid(items: list) -> None:
    """Every input item fits the openai SDK's ``ResponseInputItemParam`` (a TypedDict union;
    extra keys forbidden through a wrapping model)."""
    from openai.types.responses.response_input_item_param import ResponseInputItemParam

    class Body(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(extra="forbid")
        items: list[ResponseInputItemParam]

    Body.model_validate({"items": items})


def _reasoning_reply(*, encrypted: bool = True, phase: str | None = "commentary") -> dict:
    body = responses_body(calls=[("call_1", "left", {})], text="Going left.",
                          reasoning="the wall is right")
    for item in body["output"]:
        if item["type"] == "reasoning" and not encrypted:
            del item["encrypted_content"]
        if item["type"] == "message" and phase:
            item["phase"] = phase
    return body


def _two_turns(httpx2_mock, monkeypatch, first: dict) -> tuple[list, object]:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    adapter = create_adapter("openai/gpt-5")
    route = httpx2_mock.post(RESPONSES)
    route.side_effect = [httpx.Response(200, json=first),
                         httpx.Response(200, json=responses_body(calls=[("call_2", "noop",
                                                                          {})]))]
    cfg = GenerationConfig(reasoning_effort="low")
    r1 = asyncio.run(adapter.complete(request(cfg)))
    history = (Message.user("Frame 0"), Message.from_response(r1),
               Message.user(ToolResultPart(call_id="call_1", text="frame 1")))
    asyncio.run(adapter.complete(request(cfg, history=history)))
    return json.loads(route.calls.last.request.content)["input"], r1


def test_responses_items_after_reasoning_go_back_with_their_ids_and_phase(httpx2_mock,
                                                                           monkeypatch):
    items, first = _two_turns(httpx2_mock, monkeypatch, _reasoning_reply())
    assert [i.get("type", i.get("role")) for i in items] == [
        "user", "reasoning", "message", "function_call", "function_call_output", "user"]
    reasoning, message, call = items[1:4]
    assert reasoning["id"] == "rs_01" and reasoning["encrypted_content"]
    assert message["id"] == "msg_01" and message["phase"] == "commentary"
    assert message["role"] == "assistant" and message["content"][0]["text"] == "Going left."
    assert call["id"] == "fc_00" and call["call_id"] == "call_1"
    assert items[4]["call_id"] == "call_1"
    _input_items_valid(items)
    assert first.thinking is True


def test_responses_reasoning_without_encrypted_content_is_not_sent(httpx2_mock, monkeypatch):
    """A stateless call cannot resolve a reasoning item by id alone: it is left out, and the
    items after it go back without the ids it was paired with (the phase is kept)."""
    items, _ = _two_turns(httpx2_mock, monkeypatch, _reasoning_reply(encrypted=False))
    assert [i.get("type", i.get("role")) for i in items] == [
        "user", "assistant", "function_call", "function_call_output", "user"]
    assert items[1] == {"role": "assistant", "content": "Going left.", "phase": "commentary"}
    assert "id" not in items[2] and items[2]["call_id"] == "call_1"
    _input_items_valid(items)


def test_responses_reasoning_with_nothing_after_it_is_not_sent(httpx2_mock, monkeypatch):
    """A reply cut off while reasoning: no reasoning item goes back without the item the API
    expects after it; the agent's stand-in text does."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    adapter = create_adapter("openai/gpt-5")
    route = httpx2_mock.post(RESPONSES)
    route.side_effect = [
        httpx.Response(200, json=responses_body(reasoning="hmm", status="incomplete",
                                                 incomplete="max_output_tokens")),
        httpx.Response(200, json=responses_body(calls=[("call_2", "noop", {})]))]
    cfg = GenerationConfig(reasoning_effort="low")
    r1 = asyncio.run(adapter.complete(request(cfg)))
    from llm_eval.agents.llm import _assistant_message

    history = (Message.user("Frame 0"), _assistant_message(r1), Message.user("invalid action"))
    asyncio.run(adapter.complete(request(cfg, history=history)))
    items = json.loads(route.calls.last.request.content)["input"]
    assert [i.get("type", i.get("role")) for i in items] == ["user", "assistant", "user", "user"]
    assert items[1] == {"role": "assistant", "content": "(empty reply)"}
    _input_items_valid(items)


def _gemini_call(call_id: str = "") -> dict:
    """A chat completion as Gemini's OpenAI-compatible endpoint returns a function call: the
    thought signature in the call's ``extra_content``, the id possibly empty."""
    body = chat_body(calls=[(call_id, "left", {})], model="gemini-2.5-flash")
    body["choices"][0]["message"]["tool_calls"][0]["extra_content"] = {
        "google": {"thought_signature": SIGNATURE}}
    return body


CHAT_ROUTES = {"openai-chat": "openai-chat/gemini-2.5-flash",
               "litellm": "litellm/openai/gemini-2.5-flash"}


@pytest.mark.parametrize("route", CHAT_ROUTES)
def test_thought_signature_and_a_stable_id_go_back_with_the_call(route):
    with FakeProvider() as fake:
        fake.reply(_gemini_call(""))
        fake.reply(chat_body(calls=[("", "noop", {})]))
        adapter = create_adapter(CHAT_ROUTES[route], base_url=fake.base_url + "/v1",
                                 api_key="not-needed", timeout=10)
        cfg = GenerationConfig(max_output_tokens=64)

        async def run():
            try:
                first = await adapter.complete(request(cfg))
                chosen = read_tool_reply(first, [{"kind": "left"}, {"kind": "noop"}])
                history = (Message.user("Frame 0"), Message.from_response(first),
                           Message.user(ToolResultPart(call_id=chosen.call_id,
                                                       text="frame 1")))
                return first, await adapter.complete(request(cfg, history=history))
            finally:
                await adapter.aclose()

        first, _ = asyncio.run(run())
        bodies = [s.body for s in fake.seen]
    (call,) = first.tool_calls
    assert call.id.startswith("call_") and call.id == stable_call_id(first.raw_request, 0)
    messages = bodies[1]["messages"]
    assistant = next(m for m in messages if m["role"] == "assistant")
    (sent,) = assistant["tool_calls"]
    assert sent["id"] == call.id
    assert sent["extra_content"] == {"google": {"thought_signature": SIGNATURE}}
    tool = next(m for m in messages if m["role"] == "tool")
    assert tool["tool_call_id"] == call.id


def test_stable_ids_depend_on_the_request_and_the_index_only():
    a = {"model": "m", "messages": [{"role": "user", "content": "Frame 0"}]}
    b = {"model": "m", "messages": [{"role": "user", "content": "Frame 1"}]}
    assert stable_call_id(a, 0) == stable_call_id(json.loads(json.dumps(a)), 0)
    assert len({stable_call_id(a, 0), stable_call_id(a, 1), stable_call_id(b, 0)}) == 3


def test_a_call_with_only_standard_fields_adds_no_replay_item(monkeypatch, httpx2_mock):
    """Nothing extra is kept for an ordinary call: the response is as it was before."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    httpx2_mock.post("https://api.openai.com/v1/chat/completions").respond(
        json=chat_body(calls=[("call_9", "left", {})]))
    response = asyncio.run(create_adapter("openai-chat/gpt-4.1-mini").complete(request()))
    assert response.replay_items == () and response.tool_calls[0].id == "call_9"


def test_litellm_gemini_keeps_the_signature_on_the_wire(monkeypatch):
    """LiteLLM's own Gemini route: the reply's ``thoughtSignature`` comes back on the next
    request's ``functionCall`` part, as Gemini requires in multi-turn function calling."""
    monkeypatch.setenv("GEMINI_API_KEY", "gemini-test-key-0123456789")
    adapter = create_adapter("litellm/gemini/gemini-2.5-flash", timeout=5)
    usage = {"promptTokenCount": 5, "candidatesTokenCount": 3, "totalTokenCount": 8}
    reply = {"candidates": [{"index": 0, "finishReason": "STOP", "content": {
        "role": "model", "parts": [{"functionCall": {"name": "left", "args": {}},
                                    "thoughtSignature": SIGNATURE}]}}],
             "usageMetadata": usage, "modelVersion": "gemini-2.5-flash"}
    with respx.mock() as mock:
        route = mock.post(url__regex=r"https://generativelanguage\.googleapis\.com/.*")
        route.respond(json=reply)
        first = asyncio.run(adapter.complete(request()))
        history = (Message.user("Frame 0"), Message.from_response(first),
                   Message.user(ToolResultPart(call_id=first.tool_calls[0].id, text="f1")))
        asyncio.run(adapter.complete(request(history=history)))
        body = json.loads(route.calls.last.request.content)
    (model,) = [c["parts"] for c in body["contents"] if c["role"] == "model"]
    # the call with its signature, and no empty text part (Gemini refuses one)
    assert model == [{"function_call": {"name": "left", "args": {}},
                      "thoughtSignature": SIGNATURE}]
