"""The core's retry loop over a scripted adapter: waits, caps, fatal errors, exhaustion,
timeouts, concurrency and the attempt record."""

from __future__ import annotations

import asyncio

import pytest

from llm_eval.adapters import Adapter, Fatal, Message, RateLimited, Request, Response, Transient
from llm_eval.calls import CallPolicy, FatalProviderError, InfrastructureError, call, call_sync

REQUEST = Request(messages=(Message.user("hello"),))


class Scripted(Adapter):
    """Raises or answers from a script, one item per call."""

    provider = "scripted"

    def __init__(self, script, delay: float = 0.0) -> None:
        super().__init__("m")
        self.script = list(script)
        self.delay = delay
        self.in_flight = 0
        self.peak = 0

    async def complete(self, request: Request) -> Response:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            if self.delay:
                await asyncio.sleep(self.delay)
            item = self.script.pop(0)
            if isinstance(item, Exception):
                raise item
            if item == "hang":
                await asyncio.sleep(10)
            return Response(provider=self.provider, model_requested="m", model="m", text=item)
        finally:
            self.in_flight -= 1


def test_retries_rate_limits_and_transients_then_answers(no_waits):
    adapter = Scripted([RateLimited("429", retry_after=7, status=429),
                        Transient("503", status=503), "ok"])
    result = call_sync(adapter, REQUEST)
    assert result.response.text == "ok" and result.retries == 2
    outcomes = [(a.outcome, a.status, a.retry_after) for a in result.attempts]
    assert outcomes == [("rate_limited", 429, 7), ("transient", 503, None), ("ok", None, None)]
    assert no_waits[0] == 7 and 0 <= no_waits[1] <= 2.0  # backoff after attempt 2
    assert result.attempts[0].wait_s == 7 and result.attempts[2].wait_s is None


def test_retry_after_is_capped(no_waits):
    adapter = Scripted([RateLimited("429", retry_after=3600), "ok"])
    call_sync(adapter, REQUEST, policy=CallPolicy(max_retry_after=30))
    assert no_waits == [30]


def test_transient_backoff_grows_with_jitter_up_to_the_max(no_waits):
    adapter = Scripted([Transient("x")] * 5 + ["ok"])
    call_sync(adapter, REQUEST, policy=CallPolicy(backoff_initial=1, backoff_max=4))
    assert len(no_waits) == 5 and all(0 <= w <= 4 for w in no_waits)


def test_fatal_is_not_retried_and_names_provider_and_reason():
    adapter = Scripted([Fatal("auth: bad key", reason="auth", status=401), "ok"])
    with pytest.raises(FatalProviderError) as caught:
        call_sync(adapter, REQUEST)
    error = caught.value
    assert error.provider == "scripted" and error.reason == "auth" and error.status == 401
    assert len(error.attempts) == 1 and "scripted" in str(error)


def test_exhausted_retries_are_an_infrastructure_error():
    adapter = Scripted([Transient("500", status=500)] * 3)
    with pytest.raises(InfrastructureError) as caught:
        call_sync(adapter, REQUEST, policy=CallPolicy(max_attempts=3))
    assert [a.status for a in caught.value.attempts] == [500, 500, 500]
    assert "gave up after 3 attempts" in str(caught.value)


def test_per_call_timeout_is_transient():
    adapter = Scripted(["hang", "ok"])
    result = call_sync(adapter, REQUEST, policy=CallPolicy(timeout=0.05))
    assert result.attempts[0].outcome == "transient"
    assert result.attempts[0].error_class == "CallTimeout"
    assert result.response.text == "ok"


def test_per_provider_concurrency_limit():
    adapter = Scripted(["ok"] * 10, delay=0.01)

    async def many():
        policy = CallPolicy(concurrency=3)
        return await asyncio.gather(*(call(adapter, REQUEST, policy=policy) for _ in range(10)))

    results = asyncio.run(many())
    assert len(results) == 10 and adapter.peak == 3


def test_bugs_are_not_retried():
    adapter = Scripted([KeyError("bug"), "ok"])
    with pytest.raises(KeyError):
        call_sync(adapter, REQUEST)
    assert adapter.script == ["ok"]


def test_result_is_priced_by_the_model_asked_for():
    """By its LiteLLM name from LiteLLM's map (``llm_eval.pricing``), whatever the route;
    ``priced_as`` names the model a replay stands for."""
    from llm_eval.adapters import Usage
    from llm_eval.pricing import price

    usage = Usage(input_tokens=1_000_000, output_tokens=100_000)

    class Priced(Scripted):
        async def complete(self, request):
            return Response(provider="p", model_requested="gpt-5", model="gpt-5-2025-08-07",
                            usage=usage)

    result = call_sync(Priced([]), REQUEST, priced_as="openai/gpt-5")
    assert result.cost.model == "gpt-5" and result.cost.usd == price(usage, "openai/gpt-5").usd
    assert call_sync(Priced([]), REQUEST).cost is None   # scripted/...: no such model
    assert call_sync(Scripted(["ok"]), REQUEST).cost is None
