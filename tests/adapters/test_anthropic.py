"""Anthropic Messages through the real SDK, its HTTP intercepted (respx over httpx2)."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from adapter_sample import FORMS, SECRET, request
from provider_bodies import SIGNATURE, anthropic_error, messages_body

from llm_eval.adapters import (
    Fatal,
    GenerationConfig,
    Message,
    RateLimited,
    ToolCallPart,
    ToolResultPart,
    Transient,
    create_adapter,
    read_reply,
)

URL = "https://api.anthropic.com/v1/messages"


@pytest.fixture
def adapter(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    return create_adapter("anthropic/claude-sonnet-4-5")


def sent(route) -> dict:
    return json.loads(route.calls.last.request.content)


def test_thinking_knobs_and_usage(adapter, httpx2_mock):
    route = httpx2_mock.post(URL).respond(json=messages_body(
        calls=[("toolu_1", "go_to_test", {})], thinking="I have seen enough", redacted=True))
    cfg = GenerationConfig(max_output_tokens=1000, thinking_budget=4096, temperature=0.2,
                           seed=3, reasoning_effort="medium")
    response = asyncio.run(adapter.complete(request(cfg)))
    body = sent(route)
    headers = route.calls.last.request.headers
    assert SECRET in (headers.get("x-api-key", "") + headers.get("authorization", ""))
    assert body["max_tokens"] == 5096
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 4096}
    assert body["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}
    assert body["output_config"] == {"effort": "medium"}
    assert "temperature" not in body and "seed" not in body
    assert body["system"] == [{"type": "text", "text": "You explore a grid world.",
                               "cache_control": {"type": "ephemeral"}}]
    text, image = body["messages"][0]["content"]
    assert image["source"]["type"] == "base64" and "cache_control" not in image
    assert text["cache_control"] == {"type": "ephemeral"}   # the moving breakpoint
    assert body["tools"][0]["input_schema"]["required"] == ["x", "y"]
    assert response.knobs_sent == {"max_tokens": 5096, "thinking.budget_tokens": 4096,
                                   "output_config.effort": "medium"}
    # with thinking on, the API refuses a forced tool choice: "auto" went, and says so
    assert set(response.knobs_dropped) == {"temperature", "seed", "tool_choice"}
    assert response.knobs_dropped["tool_choice"].startswith("thinking is on")
    assert response.thinking is True and response.thinking_text == "I have seen enough"
    assert response.replay_items[0] == {"type": "thinking", "thinking": "I have seen enough",
                                        "signature": SIGNATURE}
    assert response.replay_items[1]["type"] == "redacted_thinking"
    u = response.usage
    assert (u.input_tokens, u.cache_read_tokens, u.cache_write_tokens) == (3050, 2000, 1000)
    assert (u.output_tokens, u.reasoning_tokens) == (400, 300)
    assert response.model == "claude-sonnet-4-5-20250929"
    assert read_reply(response, FORMS, "tools").action == "go-to-test"


def test_thinking_blocks_sent_back_first_with_signatures(adapter, httpx2_mock):
    route = httpx2_mock.post(URL)
    route.side_effect = [
        httpx.Response(200, json=messages_body(calls=[("toolu_1", "left", {})], thinking="go")),
        httpx.Response(200, json=messages_body(calls=[("toolu_2", "noop", {})])),
    ]
    cfg = GenerationConfig(thinking_budget=2048)
    first = asyncio.run(adapter.complete(request(cfg)))
    history = (Message.user("start"), Message.from_response(first),
               Message.user(ToolResultPart(call_id="toolu_1", text="frame 1")))
    asyncio.run(adapter.complete(request(cfg, history=history)))
    messages = sent(route)["messages"]
    assistant = messages[1]["content"]
    assert [b["type"] for b in assistant] == ["thinking", "tool_use"]
    assert assistant[0]["signature"] == SIGNATURE
    assert messages[2]["content"][0] == {"type": "tool_result", "tool_use_id": "toolu_1",
                                         "content": "frame 1"}


def test_without_thinking_a_tool_is_required(adapter, httpx2_mock):
    route = httpx2_mock.post(URL).respond(json=messages_body(
        text="ACTION: left", usage={"input_tokens": 10, "output_tokens": 5}))
    response = asyncio.run(adapter.complete(request()))
    assert sent(route)["tool_choice"] == {"type": "any", "disable_parallel_tool_use": True}
    assert response.thinking is False
    assert response.stop_reason == "end_turn"
    assert read_reply(response, FORMS, "tools").message.startswith("no action")
    assert read_reply(response, FORMS, "text").action == "left"


@pytest.mark.parametrize("status,type_,verdict", [
    (529, "overloaded_error", RateLimited),
    (429, "rate_limit_error", RateLimited),
    (500, "api_error", Transient),
    (401, "authentication_error", Fatal),
    (400, "invalid_request_error", Fatal),
])
def test_errors_classified(adapter, httpx2_mock, status, type_, verdict):
    httpx2_mock.post(URL).respond(status, json=anthropic_error(type_, "prompt is too long"
                                                               if status == 400 else "nope"),
                                  headers={"retry-after": "3"} if status == 429 else {})
    with pytest.raises(verdict) as caught:
        asyncio.run(adapter.complete(request()))
    if status == 429:
        assert caught.value.retry_after == 3.0
    if status == 400:
        assert caught.value.reason == "context_overflow"


def test_dropped_connection_is_transient(adapter, httpx2_mock):
    httpx2_mock.post(URL).mock(side_effect=httpx.RemoteProtocolError("peer closed"))
    with pytest.raises(Transient):
        asyncio.run(adapter.complete(request()))


def test_cache_markers_on_the_stable_prefix_and_the_latest_turn_only(monkeypatch, httpx2_mock):
    """Two markers whatever the length of the history (the API allows four): the system prompt
    and the latest turn's last non-image block, here a tool result's text after it; with
    ``cache: off`` none at all and the system prompt as a plain string."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    route = httpx2_mock.post(URL).respond(json=messages_body(calls=[("toolu_9", "noop", {})]))
    history = tuple(m for i in range(5) for m in (
        Message.user(ToolResultPart(call_id=f"toolu_{i}", text="ok"), f"frame {i}"),
        Message(role="assistant", parts=(ToolCallPart(id=f"toolu_{i + 1}", name="noop",
                                                      arguments={}),))))
    for cache, markers in (("auto", 2), ("off", 0)):
        adapter = create_adapter("anthropic/claude-sonnet-4-5", cache=cache)
        asyncio.run(adapter.complete(request(history=history)))
        body = sent(route)
        found = [(m, b["type"]) for m, message in enumerate(body["messages"])
                 for b in message["content"] if "cache_control" in b]
        system_marked = isinstance(body["system"], list)
        assert len(found) + system_marked == markers
        if cache == "auto":
            assert found == [(len(body["messages"]) - 1, "text")]
        else:
            assert body["system"] == "You explore a grid world."


def test_a_thinking_budget_below_the_minimum_is_refused_before_any_call(adapter, httpx2_mock):
    """Anthropic takes a budget of 1,024 tokens at least: a smaller one is a clear error
    naming the setting, not a refused call."""
    # no route is mocked: a call would fail otherwise than with this error
    with pytest.raises(Fatal, match="thinking_budget 512 is below Anthropic's minimum") as e:
        asyncio.run(adapter.complete(request(GenerationConfig(thinking_budget=512))))
    assert e.value.reason == "bad_request"
