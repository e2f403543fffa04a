"""OpenAI Chat Completions through the real SDK, its HTTP intercepted (respx over httpx2)."""

from __future__ import annotations

import asyncio
import json

import pytest
from adapter_sample import FORMS, SECRET, request
from provider_bodies import chat_body, openai_error

from llm_eval.adapters import (
    Fatal,
    GenerationConfig,
    Message,
    RateLimited,
    ToolResultPart,
    create_adapter,
    read_tool_reply,
)

URL = "https://api.openai.com/v1/chat/completions"


@pytest.fixture
def adapter(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    return create_adapter("openai-chat/gpt-4.1-mini")


def test_request_shape_knobs_and_usage(adapter, httpx2_mock):
    route = httpx2_mock.post(URL).respond(json=chat_body(
        calls=[("call_1", "click", {"x": 0, "y": 6})]))
    cfg = GenerationConfig(max_output_tokens=300, temperature=0.0, seed=11,
                           reasoning_effort="low", thinking_budget=2048)
    response = asyncio.run(adapter.complete(request(cfg)))
    body = json.loads(route.calls.last.request.content)
    assert body["messages"][0] == {"role": "system", "content": "You explore a grid world."}
    assert body["messages"][1]["content"][1]["type"] == "image_url"
    assert body["tools"][0]["function"]["strict"] is True
    assert body["tool_choice"] == "required" and body["parallel_tool_calls"] is False
    assert (body["max_completion_tokens"], body["temperature"], body["seed"],
            body["reasoning_effort"]) == (300, 0.0, 11, "low")
    assert response.knobs_sent == {"max_completion_tokens": 300, "temperature": 0.0,
                                   "seed": 11, "reasoning_effort": "low"}
    assert list(response.knobs_dropped) == ["thinking_budget"]
    assert response.usage.input_tokens == 900 and response.usage.cache_read_tokens == 512
    assert response.thinking is False and response.stop_reason == "tool_call"
    assert read_tool_reply(response, FORMS).action == "click 0 6"


def test_tool_results_go_back_as_tool_messages(adapter, httpx2_mock):
    route = httpx2_mock.post(URL).respond(json=chat_body(calls=[("call_2", "left", {})]))
    first = asyncio.run(adapter.complete(request()))
    history = (Message.user("start"), Message.from_response(first),
               Message.user(ToolResultPart(call_id="call_2", text="moved")))
    asyncio.run(adapter.complete(request(history=history)))
    roles = [m["role"] for m in json.loads(route.calls.last.request.content)["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "user"]


@pytest.mark.parametrize("arguments,message", [
    ('{"x": 3', "not a JSON object"),
    ('{"x": 3, "y": 9}', "outside 0..6"),
    ('{"x": 3}', "expected arguments"),
])
def test_bad_arguments_become_invalid_actions(adapter, httpx2_mock, arguments, message):
    httpx2_mock.post(URL).respond(json=chat_body(calls=[("c", "click", arguments)]))
    reply = read_tool_reply(asyncio.run(adapter.complete(request())), FORMS)
    assert message in reply.message and reply.call_ids == ("c",)


def test_rate_limit_retry_after_ms(adapter, httpx2_mock):
    httpx2_mock.post(URL).respond(429, json=openai_error("Rate limit", "requests"),
                                  headers={"retry-after-ms": "1500"})
    with pytest.raises(RateLimited) as caught:
        asyncio.run(adapter.complete(request()))
    assert caught.value.retry_after == 1.5


def test_malformed_json_is_transient_and_404_fatal(adapter, httpx2_mock):
    from llm_eval.adapters import Transient

    httpx2_mock.post(URL).respond(200, content=b"{not json",
                                  headers={"content-type": "application/json"})
    with pytest.raises(Transient):
        asyncio.run(adapter.complete(request()))
    httpx2_mock.routes.clear()
    httpx2_mock.post(URL).respond(404, json=openai_error("The model does not exist",
                                                         "invalid_request_error"))
    with pytest.raises(Fatal) as caught:
        asyncio.run(adapter.complete(request()))
    assert caught.value.reason == "model_not_found"   # a 404 naming the model
