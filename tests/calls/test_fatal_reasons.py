"""The core's side of provider refusals: a refusal only the user can fix is raised at once as a
``FatalProviderError`` marked ``account`` (the sweep ends such a job ``fatal``), a context
overflow is fatal but not ``account`` (the episode ends on context), and a rate limit's wait
read from the reset headers is capped like any Retry-After."""

from __future__ import annotations

import pytest

from llm_eval.adapters import Adapter, Message, Request, Response
from llm_eval.adapters.classify import ACCOUNT_REASONS, classify_status
from llm_eval.calls import CallPolicy, FatalProviderError, call_sync

REQUEST = Request(messages=(Message.user("hello"),))


class Answers(Adapter):
    """Raises each scripted verdict in turn, then answers."""

    provider = "scripted"

    def __init__(self, *verdicts) -> None:
        super().__init__("m")
        self.verdicts = list(verdicts)
        self.calls = 0

    async def complete(self, request: Request) -> Response:
        self.calls += 1
        if self.verdicts:
            raise self.verdicts.pop(0)
        return Response(provider=self.provider, model_requested="m", model="m", text="ok")


@pytest.mark.parametrize("status,message,reason", [
    (429, "You exceeded your current quota, please check your plan and billing details.",
     "quota"),
    (400, "Your credit balance is too low to access the Anthropic API.", "quota"),
    (401, "invalid x-api-key", "auth"),
    (404, "The model `gpt-9` does not exist or you do not have access to it.",
     "model_not_found"),
])
def test_a_refusal_only_the_user_can_fix_is_raised_at_once_and_says_what_to_fix(
        status, message, reason):
    adapter = Answers(classify_status(status, message, provider="scripted"))
    with pytest.raises(FatalProviderError) as caught:
        call_sync(adapter, REQUEST)
    error = caught.value
    assert adapter.calls == 1 and len(error.attempts) == 1
    assert error.reason == reason and error.account and reason in ACCOUNT_REASONS
    assert any(word in str(error) for word in ("add credit", "set a valid key",
                                               "check the model name"))


def test_a_context_overflow_is_fatal_but_not_the_accounts():
    verdict = classify_status(400, "input length and `max_tokens` exceed context limit: "
                                   "199759 + 8192 > 200000", provider="scripted")
    with pytest.raises(FatalProviderError) as caught:
        call_sync(Answers(verdict), REQUEST)
    assert caught.value.reason == "context_overflow" and not caught.value.account


def test_a_wait_from_the_reset_headers_is_capped(no_waits):
    headers = {"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "1h2m3s"}
    verdict = classify_status(429, "Rate limit reached", provider="scripted", headers=headers)
    assert verdict.retry_after == 3723.0
    result = call_sync(Answers(verdict), REQUEST, policy=CallPolicy(max_retry_after=45))
    assert result.response.text == "ok" and no_waits == [45]
    assert result.attempts[0].retry_after == 3723.0 and result.attempts[0].wait_s == 45
