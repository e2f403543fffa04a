"""Tool schemas in the subset each route's provider accepts (``adapters.schemas``), checked on
the body each route puts on the wire and against the SDKs' own strict-schema conversions.

- Anthropic (directly and through LiteLLM): no ``strict`` and no numeric bounds; the
  anthropic SDK's ``transform_schema`` (what strict tool use would need) leaves each schema as
  it is, and the range is in the description. Issue 29: with ``strict`` and ``minimum`` /
  ``maximum`` every Anthropic call was refused ("For 'integer' type, properties maximum,
  minimum are not supported").
- OpenAI's own API: strict, bounds kept (fine-tuned models: no bounds); a fixed point of the
  openai SDK's strict conversion.
- Any server at a base URL: no ``strict``, no bounds, no ``additionalProperties``, no empty
  ``required``.
- Wherever a bound is left out, a value outside the range is an invalid action fed back to
  the model as the error result of its call.
"""

from __future__ import annotations

import asyncio
import copy
import json

import pytest
import respx
from adapter_sample import FORMS, SECRET, request
from fake_provider import FakeProvider
from provider_bodies import chat_body, messages_body, responses_body

from llm_eval.adapters import (
    GenerationConfig,
    InvalidAction,
    Message,
    Request,
    ToolResultPart,
    action_tools,
    create_adapter,
    next_turn_parts,
    read_tool_reply,
)
from llm_eval.adapters.schemas import NUMERIC_BOUNDS

ANTHROPIC = "https://api.anthropic.com/v1/messages"


def _keys(schema) -> set[str]:
    """Every key used anywhere in a JSON schema."""
    if isinstance(schema, dict):
        return set(schema) | set().union(*(_keys(v) for v in schema.values()))
    if isinstance(schema, list):
        return set().union(*(_keys(v) for v in schema)) if schema else set()
    return set()


def _anthropic_fixed_point(schema: dict) -> None:
    """The anthropic SDK's own conversion for strict tool use changes nothing: no keyword it
    would move into the description (numeric bounds among them)."""
    from anthropic.lib._parse._transform import transform_schema

    assert transform_schema(copy.deepcopy(schema)) == schema


def _openai_fixed_point(schema: dict) -> None:
    from openai.lib._pydantic import _ensure_strict_json_schema

    assert _ensure_strict_json_schema(copy.deepcopy(schema), path=(), root={}) == schema


def test_anthropic_tools_are_not_strict_and_carry_no_bounds(monkeypatch, httpx2_mock):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    route = httpx2_mock.post(ANTHROPIC).respond(json=messages_body(
        calls=[("toolu_1", "left", {})]))
    asyncio.run(create_adapter("anthropic/claude-sonnet-4-5").complete(request()))
    tools = json.loads(route.calls.last.request.content)["tools"]
    assert [t["name"] for t in tools] == ["click", "left", "noop", "reset", "go_to_test"]
    for tool in tools:
        assert "strict" not in tool
        assert not _keys(tool["input_schema"]) & set(NUMERIC_BOUNDS)
        _anthropic_fixed_point(tool["input_schema"])
    x = tools[0]["input_schema"]["properties"]["x"]
    assert x == {"type": "integer", "description": "x (0 to 6)"}
    assert tools[0]["input_schema"]["additionalProperties"] is False


def test_litellm_to_anthropic_sends_no_bounds(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    adapter = create_adapter("litellm/anthropic/claude-sonnet-4-5", timeout=5)
    with respx.mock() as mock:
        route = mock.post(ANTHROPIC).respond(json=messages_body(calls=[("toolu_1", "left", {})]))
        asyncio.run(adapter.complete(request()))
    tools = json.loads(route.calls.last.request.content)["tools"]
    for tool in tools:
        assert "strict" not in tool
        assert not _keys(tool["input_schema"]) & set(NUMERIC_BOUNDS)
    assert tools[0]["input_schema"]["properties"]["y"]["description"] == "y (0 to 6)"


@pytest.mark.parametrize("model,url", [
    ("openai/gpt-5", "https://api.openai.com/v1/responses"),
    ("openai-chat/gpt-4.1-mini", "https://api.openai.com/v1/chat/completions"),
])
def test_openai_own_api_gets_strict_tools_with_their_bounds(monkeypatch, httpx2_mock, model,
                                                             url):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    body = responses_body(calls=[("c", "left", {})]) if "responses" in url else \
        chat_body(calls=[("c", "left", {})])
    route = httpx2_mock.post(url).respond(json=body)
    asyncio.run(create_adapter(model).complete(request()))
    for tool in json.loads(route.calls.last.request.content)["tools"]:
        spec = tool.get("function", tool)
        assert spec["strict"] is True
        _openai_fixed_point(spec["parameters"])
    click = json.loads(route.calls.last.request.content)["tools"][0]
    x = click.get("function", click)["parameters"]["properties"]["x"]
    assert (x["minimum"], x["maximum"]) == (0, 6)


def test_a_fine_tuned_openai_model_gets_strict_tools_without_bounds(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    kwargs, _, _ = create_adapter("openai-chat/ft:gpt-4.1-mini:org::abc").build(request())
    spec = kwargs["tools"][0]["function"]
    assert spec["strict"] is True and not _keys(spec["parameters"]) & set(NUMERIC_BOUNDS)
    _openai_fixed_point(spec["parameters"])


ROUTES = {"openai-chat": ("openai-chat/local-model", "/v1/chat/completions"),
          "litellm": ("litellm/openai/local-model", "/v1/chat/completions"),
          "openai": ("openai/local-model", "/v1/responses")}


@pytest.mark.parametrize("route", ROUTES)
def test_a_server_at_a_base_url_gets_the_portable_schema(route):
    model, path = ROUTES[route]
    with FakeProvider() as fake:
        fake.reply(responses_body(calls=[("c", "left", {})]) if path.endswith("responses")
                   else chat_body(calls=[("c", "left", {})]))
        adapter = create_adapter(model, base_url=fake.base_url + "/v1", api_key="not-needed",
                                 timeout=10)

        async def run():
            try:
                return await adapter.complete(request())
            finally:
                await adapter.aclose()

        asyncio.run(run())
        tools = fake.seen[0].body["tools"]
    for tool in tools:
        spec = tool.get("function", tool)
        assert not spec.get("strict")
        assert not _keys(spec["parameters"]) & {*NUMERIC_BOUNDS, "additionalProperties"}
    specs = {t.get("function", t)["name"]: t.get("function", t) for t in tools}
    assert specs["click"]["parameters"] == {
        "type": "object", "required": ["x", "y"],
        "properties": {"x": {"type": "integer", "description": "x (0 to 6)"},
                       "y": {"type": "integer", "description": "y (0 to 6)"}}}
    # a tool without parameters: an object with no properties, and no empty "required"
    assert specs["left"]["parameters"] == {"type": "object", "properties": {}}


def test_the_request_keeps_the_full_schema_whatever_the_route(monkeypatch):
    """What the adapters strip is the wire's, not the request's: its hash, which recordings
    are keyed by, is the same on every route."""
    before = request().canonical_hash()
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    req = request()
    create_adapter("anthropic/claude-sonnet-4-5").build(req)
    assert req.canonical_hash() == before
    assert req.tools[0].parameters["properties"]["x"]["maximum"] == 6


def test_one_sided_ranges_are_described():
    forms = [{"kind": "wait", "params": [{"name": "T", "low": 1, "high": None}]},
             {"kind": "back", "params": [{"name": "N", "low": None, "high": 9}]}]
    wait, back = action_tools(forms)
    assert wait.parameters["properties"]["t"]["description"] == "t (at least 1)"
    assert back.parameters["properties"]["n"]["description"] == "n (at most 9)"


def test_a_value_outside_the_range_is_an_invalid_action_fed_back(monkeypatch, httpx2_mock):
    """Anthropic is sent no bounds, so a model may click outside the grid: our own check
    makes it an invalid action, answered as the error result of that very call."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    httpx2_mock.post(ANTHROPIC).respond(json=messages_body(
        calls=[("toolu_7", "click", {"x": 3, "y": 9})]))
    response = asyncio.run(create_adapter("anthropic/claude-sonnet-4-5").complete(request()))
    reply = read_tool_reply(response, FORMS)
    assert isinstance(reply, InvalidAction) and reply.call_ids == ("toolu_7",)
    assert "y=9 is outside 0..6" in reply.message
    (result, frame) = next_turn_parts(reply, "Frame 1.")
    assert result == ToolResultPart(call_id="toolu_7", is_error=True,
                                    text=f"invalid action: {reply.message}")
    assert frame.text == "Frame 1."
    # and the next request carries that answer to the call
    route = httpx2_mock.post(ANTHROPIC).respond(json=messages_body(calls=[("toolu_8", "noop",
                                                                           {})]))
    history = (Message.user("Frame 0."), Message.from_response(response),
               Message.user(result, frame))
    nxt = Request(messages=(Message.system("s"), *history), tools=action_tools(FORMS),
                  config=GenerationConfig(max_output_tokens=64))
    asyncio.run(create_adapter("anthropic/claude-sonnet-4-5").complete(nxt))
    last = json.loads(route.calls.last.request.content)["messages"][-1]["content"]
    assert last[0]["type"] == "tool_result" and last[0]["tool_use_id"] == "toolu_7"
    assert last[0]["is_error"] is True
