"""No forced tool choice with thinking on, on any route that refuses both together.

Anthropic refuses ``tool_choice`` ``any`` while thinking is on ("Thinking may not be enabled
when tool_choice forces tool use"). The direct route sent ``auto``; LiteLLM to a Claude model
sent ``any`` (``required`` mapped) whether thinking came from ``thinking`` or from a
``reasoning_effort``, which LiteLLM turns into thinking (issue 29). OpenAI's reasoning models
take ``required``. And when a server does refuse ``required``, LiteLLM's error, which has no
response body, still lets the fallback to ``auto`` see the refusal in its message.
"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
import respx
from adapter_sample import SECRET, request
from provider_bodies import anthropic_error, chat_body, messages_body, responses_body

from llm_eval.adapters import GenerationConfig, create_adapter
from llm_eval.adapters.chat_format import ToolChoiceFallback

ANTHROPIC = "https://api.anthropic.com/v1/messages"
REFUSED = "Thinking may not be enabled when tool_choice forces tool use."


@pytest.fixture(autouse=True)
def no_remembered_refusals(monkeypatch):
    """Refusals of ``required`` are remembered for the process: other tests' stay theirs."""
    monkeypatch.setattr(ToolChoiceFallback, "_refused", {})


def _litellm_body(cfg: GenerationConfig, monkeypatch) -> tuple[dict, object]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    adapter = create_adapter("litellm/anthropic/claude-sonnet-4-5", timeout=5)
    with respx.mock() as mock:
        route = mock.post(ANTHROPIC).respond(json=messages_body(
            calls=[("toolu_1", "left", {})], thinking="left it is"))
        response = asyncio.run(adapter.complete(request(cfg)))
    return json.loads(route.calls.last.request.content), response


@pytest.mark.parametrize("cfg", [GenerationConfig(thinking_budget=2048),
                                 GenerationConfig(reasoning_effort="low")],
                         ids=["thinking_budget", "reasoning_effort"])
def test_litellm_to_claude_with_thinking_does_not_force_a_tool(cfg, monkeypatch):
    body, response = _litellm_body(cfg, monkeypatch)
    assert body["thinking"]["type"] == "enabled"    # thinking is on, either way
    assert body["tool_choice"]["type"] == "auto"
    assert response.raw_request["tool_choice"] == "auto"
    assert response.knobs_dropped["tool_choice"].startswith("thinking is on")


def test_litellm_to_claude_without_thinking_forces_a_tool(monkeypatch):
    body, response = _litellm_body(GenerationConfig(max_output_tokens=256), monkeypatch)
    assert "thinking" not in body
    assert body["tool_choice"] == {"type": "any", "disable_parallel_tool_use": True}
    assert "tool_choice" not in response.knobs_dropped


def test_anthropic_with_thinking_does_not_force_a_tool(monkeypatch, httpx2_mock):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    route = httpx2_mock.post(ANTHROPIC).respond(json=messages_body(
        calls=[("toolu_1", "left", {})], thinking="hm"))
    response = asyncio.run(create_adapter("anthropic/claude-sonnet-4-5").complete(
        request(GenerationConfig(thinking_budget=1024))))
    assert json.loads(route.calls.last.request.content)["tool_choice"]["type"] == "auto"
    assert response.knobs_dropped["tool_choice"].startswith("thinking is on")


@pytest.mark.parametrize("model,url", [
    ("openai/gpt-5", "https://api.openai.com/v1/responses"),
    ("openai-chat/o4-mini", "https://api.openai.com/v1/chat/completions"),
])
def test_openai_reasoning_models_keep_required(monkeypatch, httpx2_mock, model, url):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    body = responses_body(calls=[("c", "left", {})]) if "responses" in url else \
        chat_body(calls=[("c", "left", {})])
    route = httpx2_mock.post(url).respond(json=body)
    response = asyncio.run(create_adapter(model).complete(
        request(GenerationConfig(reasoning_effort="high"))))
    assert json.loads(route.calls.last.request.content)["tool_choice"] == "required"
    assert "tool_choice" not in response.knobs_dropped


def test_litellm_refusal_without_a_body_still_falls_back_to_auto(monkeypatch):
    """LiteLLM's ``BadRequestError`` has no body: the refusal is read from its message, so a
    server that refuses a forced tool gets ``auto`` instead of ending the episode."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    adapter = create_adapter("litellm/anthropic/claude-opus-4-1", timeout=5)
    with respx.mock() as mock:
        route = mock.post(ANTHROPIC)
        route.side_effect = [
            httpx.Response(400, json=anthropic_error("invalid_request_error", REFUSED)),
            httpx.Response(200, json=messages_body(calls=[("toolu_1", "left", {})]))]
        response = asyncio.run(adapter.complete(request()))
    sent = [json.loads(call.request.content)["tool_choice"]["type"] for call in route.calls]
    assert sent == ["any", "auto"]
    assert response.tool_calls[0].name == "left"
    assert "tool_choice" in response.knobs_dropped and "HTTP 400" in \
        response.knobs_dropped["tool_choice"]
