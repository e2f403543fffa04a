"""What the Chat Completions routes (``openai-chat``, ``litellm``) send, byte for byte, to an
OpenAI-compatible server on loopback: a text-only user turn is one string, the list of parts
only carries an image; a tool-only assistant turn has ``content: ""``; and a server that
refuses ``tool_choice: "required"`` gets ``"auto"``, recorded in the response."""

from __future__ import annotations

import asyncio
import base64

import pytest
from adapter_sample import FORMS, PNG
from fake_provider import FakeProvider
from provider_bodies import chat_body

from llm_eval.adapters import (
    GenerationConfig,
    ImagePart,
    Message,
    Request,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    action_tools,
    create_adapter,
)

ROUTES = {"openai-chat": "openai-chat/local-model", "litellm": "litellm/openai/local-model"}
CONFIG = GenerationConfig(max_output_tokens=64, temperature=0.0)
IMAGE_URL = "data:image/png;base64," + base64.b64encode(PNG).decode()

# a user turn of two text parts, the second with characters a template could escape
TEXT_TURN = Message(role="user", parts=(TextPart(text="Grid:\n. # .\nYou are at (1,2)."),
                                        TextPart(text="Say <it> & 'go'.")))
HISTORY = (
    Message.user("Frame 0. What do you do?"),
    Message(role="assistant", parts=(ToolCallPart(id="call_1", name="left", arguments={}),)),
    Message(role="user", parts=(ToolResultPart(call_id="call_1", text="moved left"),
                                TextPart(text="Frame 1."))),
)


def _adapter(route: str, fake: FakeProvider):
    return create_adapter(ROUTES[route], base_url=fake.base_url + "/v1", api_key="not-needed",
                          timeout=10)


def _send(route: str, request: Request, *steps: tuple) -> tuple[list, list]:
    """Send ``request`` through ``route`` to a fake server scripted with ``steps`` (the call
    repeated once per remaining reply); the bodies the server got and the responses."""
    with FakeProvider() as fake:
        replies = 0
        for kind, *args in steps:
            getattr(fake, kind)(*args)
            replies += kind == "reply"
        adapter = _adapter(route, fake)

        async def run():
            try:
                return [await adapter.complete(request) for _ in range(replies)]
            finally:
                await adapter.aclose()

        responses = asyncio.run(run())
        return [seen.body for seen in fake.seen], responses


@pytest.mark.parametrize("route", ROUTES)
def test_text_only_turns_are_strings(route):
    request = Request(messages=(Message.system("You explore."), *HISTORY, TEXT_TURN),
                      tools=action_tools(FORMS), config=CONFIG)
    (body,), (response,) = _send(route, request, ("reply", chat_body(text="hm")))
    assert body["messages"] == [
        {"role": "system", "content": "You explore."},
        {"role": "user", "content": "Frame 0. What do you do?"},
        {"role": "assistant", "content": "",
         "tool_calls": [{"id": "call_1", "type": "function",
                         "function": {"name": "left", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "moved left"},
        {"role": "user", "content": "Frame 1."},
        {"role": "user", "content": "Grid:\n. # .\nYou are at (1,2).\n\nSay <it> & 'go'."},
    ]
    assert body["tool_choice"] == "required"
    # the raw request recorded is what was sent
    assert response.raw_request["messages"] == body["messages"]
    assert "tool_choice" not in response.knobs_dropped


@pytest.mark.parametrize("route", ROUTES)
def test_an_image_keeps_the_list_of_parts(route):
    turn = Message.user("Frame 0.", ImagePart.from_bytes(PNG), "Your move.")
    request = Request(messages=(Message.system("You explore."), turn), config=CONFIG)
    (body,), (response,) = _send(route, request, ("reply", chat_body(text="ACTION: noop")))
    assert body["messages"][1] == {"role": "user", "content": [
        {"type": "text", "text": "Frame 0."},
        {"type": "image_url", "image_url": {"url": IMAGE_URL}},
        {"type": "text", "text": "Your move."}]}
    recorded = response.raw_request["messages"][1]["content"][1]["image_url"]["url"]
    assert recorded == f"<image sha256={ImagePart.from_bytes(PNG).sha256()}>"
    assert "tools" not in body and "tool_choice" not in body


REFUSALS = {
    # vLLM-like: a 400 that names the parameter
    "400 naming tool_choice": ("error", 400, {"error": {
        "message": "Only 'auto' and named tools are supported", "type": "BadRequestError",
        "param": "tool_choice", "code": 400}}),
    # llama-cpp-python's chatml-function-calling handler: a bare assertion, so a 500 that
    # says nothing
    "500 with no message": ("error", 500, {"error": {
        "message": "", "type": "internal_server_error", "param": None, "code": None}}),
}


@pytest.mark.parametrize("refusal", REFUSALS)
@pytest.mark.parametrize("route", ROUTES)
def test_a_server_that_refuses_required_gets_auto(route, refusal):
    request = Request(messages=(Message.system("s"), Message.user("Frame 0.")),
                      tools=action_tools(FORMS), config=CONFIG)
    bodies, responses = _send(route, request, REFUSALS[refusal],
                              ("reply", chat_body(calls=[("c1", "left", {})])),
                              ("reply", chat_body(calls=[("c2", "noop", {})])))
    # refused once, then auto: for this call and every later one to the same server and model
    assert [b["tool_choice"] for b in bodies] == ["required", "auto", "auto"]
    assert bodies[0]["messages"] == bodies[1]["messages"]
    for response in responses:
        assert response.raw_request["tool_choice"] == "auto"
        why = response.knobs_dropped["tool_choice"]
        assert why.startswith('the server refused tool_choice "required" (HTTP ')
        assert 'sent "auto"' in why
    assert responses[0].tool_calls[0].name == "left"


@pytest.mark.parametrize("route", ROUTES)
def test_other_errors_are_not_a_refusal(route):
    """A 400 about something else is the verdict it was; required is sent again next time."""
    from llm_eval.adapters import Fatal

    request = Request(messages=(Message.user("Frame 0."),), tools=action_tools(FORMS),
                      config=CONFIG)
    with FakeProvider() as fake:
        fake.error(400, {"error": {"message": "max_tokens is too large", "type": "x",
                                   "param": "max_tokens", "code": None}})
        fake.reply(chat_body(calls=[("c1", "left", {})]))
        adapter = _adapter(route, fake)

        async def run():
            try:
                with pytest.raises(Fatal):
                    await adapter.complete(request)
                return await adapter.complete(request)
            finally:
                await adapter.aclose()

        response = asyncio.run(run())
        assert [s.body["tool_choice"] for s in fake.seen] == ["required", "required"]
        assert "tool_choice" not in response.knobs_dropped


def test_a_provider_500_without_a_base_url_is_not_a_refusal(httpx2_mock, monkeypatch):
    """Only a server at a base URL can be taken to refuse ``required`` by a silent 5xx."""
    from llm_eval.adapters import Transient

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789")
    adapter = create_adapter("openai-chat/gpt-4.1-mini")
    route = httpx2_mock.post("https://api.openai.com/v1/chat/completions").respond(
        500, json={"error": {"message": "", "type": "server_error"}})
    request = Request(messages=(Message.user("Frame 0."),), tools=action_tools(FORMS))
    with pytest.raises(Transient):
        asyncio.run(adapter.complete(request))
    assert route.call_count == 1
