"""LiteLLM through its real code, its HTTP intercepted with respx (litellm uses httpx; the
aiohttp transport is off in conftest)."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
import respx
from adapter_sample import FORMS, SECRET, request
from provider_bodies import anthropic_error, messages_body

from llm_eval.adapters import (
    Fatal,
    GenerationConfig,
    Message,
    RateLimited,
    Request,
    ToolCallPart,
    ToolResultPart,
    action_tools,
    create_adapter,
    read_tool_reply,
)

ANTHROPIC = "https://api.anthropic.com/v1/messages"


@pytest.fixture
def adapter(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    return create_adapter("litellm/anthropic/claude-sonnet-4-5", timeout=5)


def test_anthropic_via_litellm(adapter):
    cfg = GenerationConfig(max_output_tokens=3000, temperature=0.3, seed=4,
                           thinking_budget=2048)
    with respx.mock(assert_all_mocked=True) as mock:
        route = mock.post(ANTHROPIC).respond(json=messages_body(
            calls=[("toolu_1", "click", {"x": 2, "y": 5})], thinking="the ball falls"))
        response = asyncio.run(adapter.complete(request(cfg)))
    body = json.loads(route.calls.last.request.content)
    assert body["model"] == "claude-sonnet-4-5"
    # LiteLLM passes our cache markers on: the system prompt and the latest turn's text
    assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
    marked = [b["type"] for b in body["messages"][-1]["content"] if "cache_control" in b]
    assert marked == ["text"]
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert "seed" not in body
    # thinking counts against max_tokens, which must exceed the budget: the reply's 3000 on top
    assert body["max_tokens"] == 5048
    assert response.knobs_sent == {"max_tokens": 5048, "temperature": 0.3,
                                   "thinking": {"type": "enabled", "budget_tokens": 2048}}
    assert "seed" in response.knobs_dropped
    assert read_tool_reply(response, FORMS).action == "click 2 5"
    assert response.thinking is True
    assert response.replay_items and response.replay_items[0]["signature"]
    assert response.usage.cache_read_tokens == 2000
    assert SECRET not in json.dumps(response.model_dump(mode="json"))


def test_thinking_blocks_go_back_through_litellm(adapter):
    with respx.mock() as mock:
        route = mock.post(ANTHROPIC)
        route.side_effect = [
            httpx.Response(200, json=messages_body(
                calls=[("toolu_1", "left", {})], thinking="try left")),
            httpx.Response(200, json=messages_body(calls=[("toolu_2", "noop", {})]))
        ]
        cfg = GenerationConfig(thinking_budget=1024)
        first = asyncio.run(adapter.complete(request(cfg)))
        history = (Message.user("start"), Message.from_response(first),
                   Message.user(ToolResultPart(call_id="toolu_1", text="frame 1")))
        asyncio.run(adapter.complete(request(cfg, history=history)))
    assistant = json.loads(route.calls.last.request.content)["messages"][1]["content"]
    assert assistant[0]["type"] == "thinking" and assistant[0]["signature"]


def test_a_turn_sent_as_a_tool_result_alone_carries_the_moving_cache_marker(adapter):
    """In tools mode most turns go back as a tool result with no user message after it: the
    marker moves onto that ``tool_result`` block, and no earlier turn keeps one."""
    with respx.mock() as mock:
        route = mock.post(ANTHROPIC).respond(json=messages_body(calls=[("toolu_2", "noop", {})]))
        called = Message(role="assistant",
                         parts=(ToolCallPart(id="toolu_1", name="left", arguments={}),))
        messages = (Message.system("You explore a grid world."), Message.user("Frame 0."),
                    called,
                    Message.user(ToolResultPart(call_id="toolu_1", text="Frame 1.")))
        asyncio.run(adapter.complete(Request(messages=messages, tools=action_tools(FORMS),
                                             config=GenerationConfig(max_output_tokens=64))))
    body = json.loads(route.calls.last.request.content)
    assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
    latest = body["messages"][-1]["content"]
    assert [b["type"] for b in latest] == ["tool_result"]
    assert latest[0]["cache_control"] == {"type": "ephemeral"}
    earlier = [b for m in body["messages"][:-1] if isinstance(m["content"], list)
               for b in m["content"] if "cache_control" in b]
    assert earlier == []


def test_openai_compatible_server_by_base_url():
    adapter = create_adapter("litellm/openai/qwen2.5-0.5b", base_url="http://127.0.0.1:9/v1")
    assert adapter.routed_provider == "openai"
    kwargs, sent, dropped = adapter.build(request(GenerationConfig(seed=1, temperature=0)))
    assert sent == {"seed": 1, "temperature": 0} and kwargs["tool_choice"] == "required"


@pytest.mark.parametrize("status,verdict", [(429, RateLimited), (401, Fatal)])
def test_errors_classified(adapter, status, verdict):
    with respx.mock() as mock:
        mock.post(ANTHROPIC).respond(status, json=anthropic_error(
            "rate_limit_error" if status == 429 else "authentication_error", "no"),
            headers={"retry-after": "4"})
        with pytest.raises(verdict) as caught:
            asyncio.run(adapter.complete(request()))
    assert caught.value.status == status
    if status == 429:
        assert caught.value.retry_after == 4.0
    assert SECRET not in str(caught.value)



def test_claude_thinking_from_an_effort_gets_max_tokens_above_its_budget(adapter):
    """LiteLLM turns a reasoning effort into a thinking budget; ``max_tokens`` must exceed it
    (Anthropic), so the reply's own tokens go on top, as on the anthropic route."""
    with respx.mock() as mock:
        route = mock.post(ANTHROPIC).respond(json=messages_body(
            calls=[("toolu_1", "left", {})], thinking="hm"))
        response = asyncio.run(adapter.complete(request(GenerationConfig(
            max_output_tokens=1024, reasoning_effort="high"))))
    body = json.loads(route.calls.last.request.content)
    budget = body["thinking"]["budget_tokens"]
    assert budget >= 1024 and body["max_tokens"] == 1024 + budget
    assert response.knobs_sent["max_tokens"] == 1024 + budget


def test_a_thinking_budget_below_anthropics_minimum_is_refused_before_any_call(adapter):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(ANTHROPIC).respond(json=messages_body(calls=[("t", "left", {})]))
        with pytest.raises(Fatal, match="thinking_budget 512 is below"):
            asyncio.run(adapter.complete(request(GenerationConfig(thinking_budget=512))))
    assert route.call_count == 0
