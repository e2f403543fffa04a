"""A 200 reply that is not the provider's shape (an HTML page, JSON of another API, a field of
the wrong type) is a provider fault on every route: transient, retried by the core, then an
infrastructure error that says "provider returned a malformed response", never an
AttributeError or a pydantic ValidationError from inside an adapter."""

from __future__ import annotations

import asyncio

import pytest
from adapter_sample import FORMS, request
from fake_provider import FakeProvider
from provider_bodies import chat_body, messages_body, responses_body

from llm_eval.adapters import Transient, create_adapter, read_tool_reply
from llm_eval.adapters.classify import MALFORMED
from llm_eval.calls import CallPolicy, InfrastructureError, call

ATTEMPTS = 3
POLICY = CallPolicy(max_attempts=ATTEMPTS, timeout=20.0)

CHAT = chat_body(calls=[("call_1", "left", {})])
RESPONSES = responses_body(calls=[("call_1", "left", {})])
MESSAGES = messages_body(calls=[("toolu_1", "left", {})])

# route: (model, base-url suffix, a good body, {case: a body of the wrong shape})
ROUTES = {
    "openai": ("openai/gpt-5", "/v1", RESPONSES, {
        "a chat completion": CHAT,
        "output a string": {**RESPONSES, "output": "left"},
        "an output item a string": {**RESPONSES, "output": ["left"]},
        "a JSON list": [RESPONSES],
        "an empty object": {},
    }),
    "openai-chat": ("openai-chat/gpt-4.1-mini", "/v1", CHAT, {
        "a Responses API body": RESPONSES,
        "choices a string": {**CHAT, "choices": "left"},
        "a choice a string": {**CHAT, "choices": ["left"]},
        "usage a string": {**CHAT, "usage": "lots"},
        "a JSON string": "left",
    }),
    "anthropic": ("anthropic/claude-sonnet-4-5", "", MESSAGES, {
        "a chat completion": CHAT,
        "content a string": {**MESSAGES, "content": "left"},
        "a block a string": {**MESSAGES, "content": ["left"]},
        "no usage": {k: v for k, v in MESSAGES.items() if k != "usage"},
    }),
    "litellm": ("litellm/openai/local-model", "/v1", CHAT, {
        "a Messages API body": MESSAGES,
        "choices a string": {**CHAT, "choices": "left"},
        "a choice a string": {**CHAT, "choices": ["left"]},
        "usage a string": {**CHAT, "usage": "lots"},
        "a JSON list": [CHAT],
    }),
}
CASES = [(route, "an HTML page") for route in ROUTES] + [
    (route, case) for route, (*_, bad) in ROUTES.items() for case in bad]


def _adapter(route: str, fake: FakeProvider):
    model, suffix, *_ = ROUTES[route]
    return create_adapter(model, base_url=fake.base_url + suffix, api_key="not-needed",
                          timeout=5.0)


def _script(fake: FakeProvider, route: str, case: str) -> None:
    if case == "an HTML page":
        fake.fault("html")
    else:
        fake.reply(ROUTES[route][3][case])


@pytest.mark.parametrize("route, case", CASES)
def test_a_malformed_reply_is_retried_then_an_infrastructure_error(route, case, capfd):
    with FakeProvider() as fake:
        for _ in range(ATTEMPTS):
            _script(fake, route, case)
        adapter = _adapter(route, fake)
        with pytest.raises(InfrastructureError) as caught:
            asyncio.run(call(adapter, request(), policy=POLICY))
        assert len(fake.seen) == ATTEMPTS
    error = caught.value
    assert isinstance(error.last, Transient)
    assert [a.outcome for a in error.attempts] == ["transient"] * ATTEMPTS
    message = str(error)
    assert f"gave up after {ATTEMPTS} attempts; last: transient: {MALFORMED}: " in message
    assert "\n" not in message and len(message) < 500
    assert "Traceback" not in message
    if case == "an HTML page":
        assert "<!DOCTYPE html>" in message
    # nothing but the error: no traceback or pydantic warning on the terminal
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize("route", list(ROUTES))
def test_a_malformed_reply_then_a_good_one_is_answered(route):
    with FakeProvider() as fake:
        fake.fault("html")
        _script(fake, route, next(iter(ROUTES[route][3])))
        fake.reply(ROUTES[route][2])
        result = asyncio.run(call(_adapter(route, fake), request(), policy=POLICY))
    assert [a.outcome for a in result.attempts] == ["transient", "transient", "ok"]
    assert all(a.message.startswith(MALFORMED) for a in result.attempts[:2])
    assert read_tool_reply(result.response, FORMS).action == "left"
