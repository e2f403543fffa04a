"""Error answers written from the providers' documented shapes and messages
(``fixtures/errors/*.json``: provider, status, headers, body, expected_reason), each answered
to every route that talks to that provider, through its real SDK or LiteLLM: the verdict is
the one expected (``expected_reason``: a ``Fatal`` reason, or ``rate_limited`` /
``transient`` for a verdict that is retried), and through the retry layer a fatal error costs
exactly one call while a retried one is retried. An error that refuses a forced
``tool_choice`` (``tool_choice_fallback``) is, on a route with the fallback (LiteLLM), answered
by sending the call again with ``auto``, as ``chat_format.ToolChoiceFallback`` says.

LiteLLM passes some statuses on as others (Anthropic's 529 arrives as a 500
``InternalServerError``), so the status is compared on the SDK routes only."""

from __future__ import annotations

import pytest
from adapter_sample import FORMS
from scenarios import first_reply
from wire_bodies import ROUTES, Answer, error, errors, send

from llm_eval.adapters import Fatal, GenerationConfig, Message, Request, action_tools
from llm_eval.calls import CallPolicy, FatalProviderError

RETRIED = ("rate_limited", "transient")
REQUEST = Request(messages=(Message.system("s"), Message.user("Frame 0.")),
                  tools=action_tools(FORMS), config=GenerationConfig(max_output_tokens=512))
_API = {"openai": ("responses", "chat"), "anthropic": ("messages",)}
CASES = [(name, route) for name in errors() for route in ROUTES
         if ROUTES[route].api in _API[error(name)["provider"]]]


def _answer(name: str) -> Answer:
    fixture = error(name)
    return Answer(fixture["status"], fixture["body"], fixture["headers"])


@pytest.mark.parametrize("name,route", CASES, ids=[f"{n}-{r}" for n, r in CASES])
def test_each_error_is_read_as_the_provider_means_it(name, route):
    expected = error(name)["expected_reason"]
    if _falls_back(name, route):
        ok = first_reply(ROUTES[route].api, True, False)
        sent, (response,) = send(ROUTES[route], [REQUEST], [_answer(name), ok])
        assert not isinstance(response, Exception), repr(response)
        assert [_forced(b["tool_choice"]) for b in sent] == [True, False]
        assert "tool_choice" in response.knobs_dropped
        return
    _, (verdict,) = send(ROUTES[route], [REQUEST], [_answer(name)])
    assert isinstance(verdict, Exception), f"{name} was answered, not refused"
    if expected in RETRIED:
        assert getattr(verdict, "kind", None) == expected, repr(verdict)
    else:
        assert isinstance(verdict, Fatal), repr(verdict)
        assert verdict.reason == expected, str(verdict)
    if not ROUTES[route].via_litellm:
        assert verdict.status == error(name)["status"]


def _forced(choice) -> bool:
    """Whether a wire ``tool_choice`` (Chat's string, Anthropic's object) forces a tool."""
    kind = choice.get("type") if isinstance(choice, dict) else choice
    return kind in ("required", "any", "tool", "function")


def _falls_back(name: str, route: str) -> bool:
    return bool(error(name).get("tool_choice_fallback")) and ROUTES[route].via_litellm


@pytest.mark.parametrize("name,route", CASES, ids=[f"{n}-{r}" for n, r in CASES])
def test_a_fatal_error_costs_one_call_and_a_retried_one_is_retried(name, route, no_waits):
    expected = error(name)["expected_reason"]
    if _falls_back(name, route):
        pytest.skip("answered by the tool_choice fallback (the test above)")
    ok = first_reply(ROUTES[route].api, True, False)
    sent, (result,) = send(ROUTES[route], [REQUEST], [_answer(name), ok],
                           policy=CallPolicy(max_attempts=3, timeout=30.0))
    if expected in RETRIED:
        assert len(sent) == 2 and not isinstance(result, Exception), repr(result)
        assert [a.outcome for a in result.attempts] == [expected, "ok"]
        if "retry-after" in error(name)["headers"]:
            assert float(error(name)["headers"]["retry-after"]) in no_waits
    else:
        assert isinstance(result, FatalProviderError), repr(result)
        assert result.reason == expected and len(sent) == 1
