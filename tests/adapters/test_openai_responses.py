"""OpenAI Responses API through the real SDK, its HTTP intercepted (respx over httpx2)."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from adapter_sample import FORMS, SECRET, request
from provider_bodies import openai_error, responses_body

from llm_eval.adapters import (
    Fatal,
    GenerationConfig,
    Message,
    RateLimited,
    ToolResultPart,
    Transient,
    create_adapter,
    read_tool_reply,
)

URL = "https://api.openai.com/v1/responses"


@pytest.fixture
def adapter(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    return create_adapter("openai/gpt-5")


def sent(route) -> dict:
    return json.loads(route.calls.last.request.content)


def test_tool_call_with_reasoning_normalised(adapter, httpx2_mock):
    route = httpx2_mock.post(URL).respond(json=responses_body(
        calls=[("call_1", "click", {"x": 3, "y": 4})], reasoning="the ball moves right"))
    cfg = GenerationConfig(max_output_tokens=2048, reasoning_effort="high", seed=7,
                           thinking_budget=4000, temperature=1.0)
    response = asyncio.run(adapter.complete(request(cfg)))

    body = sent(route)
    assert route.calls.last.request.headers["authorization"] == f"Bearer {SECRET}"
    assert body["model"] == "gpt-5" and body["store"] is False
    assert body["tool_choice"] == "required" and body["parallel_tool_calls"] is False
    assert body["reasoning"]["effort"] == "high"
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["max_output_tokens"] == 2048 and "seed" not in body
    assert body["instructions"] == "You explore a grid world."
    tool = body["tools"][0]
    assert tool["type"] == "function" and tool["strict"] is True and tool["name"] == "click"
    assert tool["parameters"]["additionalProperties"] is False
    assert [t["name"] for t in body["tools"]] == ["click", "left", "noop", "reset", "go_to_test"]
    image = body["input"][0]["content"][1]
    assert image["type"] == "input_image" and image["image_url"].startswith("data:image/png;base64,")

    assert response.model == "gpt-5-2025-08-07" and response.model_requested == "gpt-5"
    assert response.stop_reason == "tool_call"
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [
        ("call_1", "click", {"x": 3, "y": 4})]
    assert response.thinking is True and response.thinking_text == "the ball moves right"
    assert response.replay_items[0]["encrypted_content"] == "gAAAAABencryptedReasoning=="
    assert response.usage.input_tokens == 1200 and response.usage.cache_read_tokens == 1024
    assert response.usage.output_tokens == 310 and response.usage.reasoning_tokens == 256
    assert response.raw_usage["output_tokens_details"]["reasoning_tokens"] == 256
    assert response.knobs_sent == {"max_output_tokens": 2048, "temperature": 1.0,
                                   "reasoning.effort": "high"}
    assert set(response.knobs_dropped) == {"seed", "thinking_budget"}
    # the recorded request keeps the image by hash, not its bytes
    recorded = json.dumps(response.raw_request)
    assert "sha256=" in recorded and "base64," not in recorded
    assert read_tool_reply(response, FORMS).action == "click 3 4"


def test_reasoning_items_sent_back_on_the_next_turn(adapter, httpx2_mock):
    first = responses_body(calls=[("call_1", "left", {})], reasoning="try left")
    second = responses_body(calls=[("call_2", "noop", {})])
    route = httpx2_mock.post(URL)
    route.side_effect = [httpx.Response(200, json=first),
                         httpx.Response(200, json=second)]
    cfg = GenerationConfig(reasoning_effort="low")
    r1 = asyncio.run(adapter.complete(request(cfg)))
    history = (Message.user("Frame 0"), Message.from_response(r1),
               Message.user(ToolResultPart(call_id="call_1", text="ok, frame 1 follows")))
    asyncio.run(adapter.complete(request(cfg, history=history)))
    items = sent(route)["input"]
    kinds = [i.get("type", i.get("role")) for i in items]
    assert kinds == ["user", "reasoning", "function_call", "function_call_output", "user"]
    assert items[1]["encrypted_content"] == "gAAAAABencryptedReasoning=="
    assert items[2]["call_id"] == "call_1" and items[3]["call_id"] == "call_1"


def test_text_only_and_incomplete(adapter, httpx2_mock):
    httpx2_mock.post(URL).respond(json=responses_body(text="ACTION: noop", status="incomplete",
                                                      incomplete="max_output_tokens"))
    response = asyncio.run(adapter.complete(request(GenerationConfig(tool_mode="text"))))
    assert response.text == "ACTION: noop" and response.stop_reason == "max_tokens"
    assert "tools" not in sent(httpx2_mock.routes[0])


def test_parallel_calls_first_taken_rest_answered_with_error(adapter, httpx2_mock):
    httpx2_mock.post(URL).respond(json=responses_body(
        calls=[("c1", "left", {}), ("c2", "click", {"x": 1, "y": 1})]))
    response = asyncio.run(adapter.complete(request()))
    chosen = read_tool_reply(response, FORMS)
    assert chosen.action == "left" and chosen.call_id == "c1"
    assert [i for i, _ in chosen.ignored_calls] == ["c2"]


@pytest.mark.parametrize("status,headers,error,verdict", [
    (429, {"retry-after": "7"}, openai_error("Rate limit reached", "requests",
                                             "rate_limit_exceeded"), RateLimited),
    (500, {}, openai_error("The server had an error", "server_error"), Transient),
    (503, {}, openai_error("Slow down", "server_error"), Transient),
    (401, {}, openai_error("Incorrect API key provided: sk-test-***", "invalid_request_error",
                           "invalid_api_key"), Fatal),
    (400, {}, openai_error("This model's maximum context length is 400000 tokens",
                           "invalid_request_error", "context_length_exceeded"), Fatal),
])
def test_errors_classified(adapter, httpx2_mock, status, headers, error, verdict):
    httpx2_mock.post(URL).respond(status, json=error, headers=headers)
    with pytest.raises(verdict) as caught:
        asyncio.run(adapter.complete(request()))
    assert caught.value.status == status
    if status == 429:
        assert caught.value.retry_after == 7.0
    if status == 401:
        assert caught.value.reason == "auth"
    if status == 400:
        assert caught.value.reason == "context_overflow"
    assert SECRET not in str(caught.value)


def test_missing_key_is_fatal_before_any_call():
    with pytest.raises(Fatal, match="OPENAI_API_KEY"):
        create_adapter("openai/gpt-5")
