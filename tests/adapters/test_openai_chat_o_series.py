"""OpenAI's o-series reasoning models (o1, o3, o3-mini, o3-pro, o4-mini) refuse
``parallel_tool_calls`` on Chat Completions: every call carrying it is answered 400
"Unsupported parameter: 'parallel_tool_calls' is not supported with this model." (code
``unsupported_parameter``). The openai-chat route must leave the knob out for them, and say so,
while every other model keeps ``parallel_tool_calls: false``."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from adapter_sample import SECRET, request
from provider_bodies import chat_body

from llm_eval.adapters import create_adapter

URL = "https://api.openai.com/v1/chat/completions"
REFUSAL = {"error": {"message": "Unsupported parameter: 'parallel_tool_calls' is not supported "
                                "with this model.",
                     "type": "invalid_request_error", "param": "parallel_tool_calls",
                     "code": "unsupported_parameter"}}


def _answer(o_series: bool):
    """OpenAI's API as documented for the model: the refusal to an o-series model sent the
    knob, else a tool call."""
    def handler(req: httpx.Request) -> httpx.Response:
        body = json.loads(req.content)
        if o_series and "parallel_tool_calls" in body:
            return httpx.Response(400, json=REFUSAL)
        return httpx.Response(200, json=chat_body(calls=[("call_1", "click", {"x": 0, "y": 6})]))
    return handler


@pytest.mark.parametrize("model", ["o1", "o3", "o3-mini", "o3-pro", "o4-mini",
                                   "o4-mini-2025-04-16"])
def test_an_o_series_model_is_sent_no_parallel_tool_calls(model, monkeypatch, httpx2_mock):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    route = httpx2_mock.post(URL).mock(side_effect=_answer(o_series=True))
    response = asyncio.run(create_adapter(f"openai-chat/{model}").complete(request()))
    body = json.loads(route.calls.last.request.content)
    assert "parallel_tool_calls" not in body and body["tool_choice"] == "required"
    assert "o-series" in response.knobs_dropped["parallel_tool_calls"]
    assert [c.name for c in response.tool_calls] == ["click"]


@pytest.mark.parametrize("model", ["gpt-4.1-mini", "gpt-5", "olmo-2-7b", "gpt-4o"])
def test_other_models_keep_parallel_tool_calls_off(model, monkeypatch, httpx2_mock):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    route = httpx2_mock.post(URL).mock(side_effect=_answer(o_series=False))
    response = asyncio.run(create_adapter(f"openai-chat/{model}").complete(request()))
    assert json.loads(route.calls.last.request.content)["parallel_tool_calls"] is False
    assert "parallel_tool_calls" not in response.knobs_dropped
