"""Each adapter route, and the request bodies it actually puts on the wire.

A body is taken from the HTTP request the route sends (respx: over httpx2 for the openai and
anthropic SDKs, over httpx for LiteLLM, whose aiohttp transport is off), so what is checked is
what the provider would receive, after the SDK or LiteLLM has done its part. Replies come from
``fixtures/replies/*.json`` (``reply``), written from the providers' documented shapes.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest_httpx2  # noqa: F401 - registers respx's httpcore2 mocker (the SDKs' transport)
import respx

from llm_eval.adapters import GenerationConfig, Request, create_adapter

__all__ = ["Route", "ROUTES", "Answer", "reply", "replies", "error", "errors", "send", "KEY"]

FIXTURES = Path(__file__).resolve().parent / "fixtures"
# not a real key: a stand-in the SDKs accept
KEY = "-".join(("sk", "conformance", "0123456789abcdef"))


@dataclass(frozen=True)
class Route:
    """``spec``: the model name; ``api``: the provider API on the wire (``responses``,
    ``chat`` or ``messages``: the SDK request type its body is checked against); ``url``: where
    it posts; ``via_litellm``: its HTTP goes through httpx (LiteLLM) rather than httpx2;
    ``thinking``: the knobs that turn reasoning or thinking on."""

    name: str
    spec: str
    api: str
    url: str
    via_litellm: bool
    thinking: GenerationConfig


_OPENAI = "https://api.openai.com/v1"
_ANTHROPIC = "https://api.anthropic.com/v1/messages"
ROUTES = {r.name: r for r in (
    Route("openai", "openai/gpt-5", "responses", f"{_OPENAI}/responses", False,
          GenerationConfig(max_output_tokens=1024, reasoning_effort="high")),
    Route("openai-chat", "openai-chat/gpt-5", "chat", f"{_OPENAI}/chat/completions", False,
          GenerationConfig(max_output_tokens=1024, reasoning_effort="high")),
    Route("anthropic", "anthropic/claude-sonnet-4-5", "messages", _ANTHROPIC, False,
          GenerationConfig(max_output_tokens=1024, thinking_budget=2048)),
    Route("litellm-openai", "litellm/openai/gpt-5", "chat", f"{_OPENAI}/chat/completions", True,
          GenerationConfig(max_output_tokens=1024, reasoning_effort="high")),
    Route("litellm-anthropic", "litellm/anthropic/claude-sonnet-4-5", "messages", _ANTHROPIC,
          True, GenerationConfig(max_output_tokens=1024, thinking_budget=2048)),
)}


@dataclass(frozen=True)
class Answer:
    """An HTTP answer other than a 200 with a JSON body."""

    status: int
    body: Any
    headers: dict[str, str]


def error(name: str) -> dict[str, Any]:
    """An error fixture: ``provider``, ``status``, ``headers``, ``body``, ``expected_reason``."""
    return json.loads((FIXTURES / "errors" / f"{name}.json").read_text())


def errors() -> list[str]:
    return sorted(p.stem for p in (FIXTURES / "errors").glob("*.json"))


def reply(name: str) -> dict[str, Any]:
    """A reply fixture: ``about``, ``api``, ``body`` and the ``expected`` normalisation."""
    return json.loads((FIXTURES / "replies" / f"{name}.json").read_text())


def replies(api: str) -> list[str]:
    """The names of the reply fixtures in ``api``'s shape."""
    return sorted(p.stem for p in (FIXTURES / "replies").glob("*.json")
                  if reply(p.stem)["api"] == api)


def send(route: Route, requests: list[Request], bodies: list[dict[str, Any] | Answer], *,
         policy: Any = None, **options: Any
         ) -> tuple[list[dict[str, Any]], list[Any]]:
    """Send ``requests`` in turn through ``route``'s adapter, the HTTP calls answered in turn
    by ``bodies`` (a JSON body answered 200, or an ``Answer``); the JSON bodies sent, and for
    each request the response or the error raised. With ``policy`` each request goes through
    ``llm_eval.calls.call`` (retries) and its result is the ``CallResult``."""
    adapter = create_adapter(route.spec, api_key=KEY, timeout=10, **options)
    answers = iter(bodies)

    def answer(_request: Any) -> httpx.Response:
        given = next(answers)
        if isinstance(given, Answer):
            return httpx.Response(given.status, json=given.body, headers=given.headers)
        return httpx.Response(200, json=given)

    out: list[Any] = []
    using = "httpcore" if route.via_litellm else "httpcore2"
    with respx.mock(using=using, assert_all_mocked=True, assert_all_called=False) as mock:
        posted = mock.post(route.url).mock(side_effect=answer)

        async def one(request: Request) -> Any:
            if policy is None:
                return await adapter.complete(request)
            from llm_eval.calls import call

            return await call(adapter, request, policy=policy)

        async def run() -> None:
            try:
                for request in requests:
                    try:
                        out.append(await one(request))
                    except Exception as exc:   # noqa: BLE001 - the caller judges the verdict
                        out.append(exc)
            finally:
                await adapter.aclose()

        asyncio.run(run())
        sent = [json.loads(call.request.content) for call in posted.calls]
    return sent, out
