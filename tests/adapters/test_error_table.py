"""Every provider error we classify, read as the provider means it: one data table (``ROWS``),
one test per row, and docs/provider-errors.md checked against the same table.

Each row is an error answer written from the provider's documented shape and wording (our own
fixtures; the sources are in docs/provider-errors.md). The exception is made by the real code
on the other side, not by us:

- ``openai`` and ``anthropic`` rows: the SDK's own ``_make_status_error_from_response`` turns an
  ``httpx2.Response`` carrying the body and headers into the exception the SDK raises (for
  Anthropic, the class its ``error_code`` table picks, e.g. ``EnforcedSpendLimitReachedError``),
  which ``classify_sdk_error`` reads as the adapters do;
- ``litellm`` rows: the whole LiteLLM route (``litellm.acompletion`` and its exception mapping,
  e.g. ``ContextWindowExceededError``), its HTTP answered by respx.

Bodies are checked against the SDKs' error types (``anthropic.types.ErrorResponse``,
``openai.types.shared.ErrorObject``), so a fixture that drifts from the documented shape fails.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace

import anthropic
import anthropic.types
import httpx2
import openai
import openai.types.shared
import pytest
import respx
from adapter_sample import SECRET, request

from llm_eval.adapters import Fatal, ProviderError, RateLimited, Transient, create_adapter
from llm_eval.adapters.classify import ACCOUNT_REASONS, FIXES
from llm_eval.adapters.sdk_clients import classify_sdk_error

DOC = Path(__file__).resolve().parents[2] / "docs" / "provider-errors.md"
KINDS = {"fatal": Fatal, "rate_limited": RateLimited, "transient": Transient}


@dataclass(frozen=True)
class Row:
    id: str
    route: str          # how the exception is made: openai, anthropic, litellm (module docstring)
    status: int
    body: dict
    verdict: str        # fatal, rate_limited, transient
    reason: str | None = None          # a fatal verdict's reason
    wait: float | None = None          # a rate limit's wait (seconds), None: backoff
    headers: dict = field(default_factory=dict)
    reported: int | None = None        # the status the verdict carries, if not ``status``


def openai_error(message: str, type_: str | None, code: str | None,
                 param: str | None = None, **extra) -> dict:
    inner = {"message": message, "type": type_, "param": param, "code": code, **extra}
    openai.types.shared.ErrorObject.model_validate(inner)   # the SDK's error object
    return {"error": inner}


def claude_error(type_: str, message: str, error_code: str | None = None, *,
                 checked: bool = True) -> dict:
    """An Anthropic error body, checked against the SDK's ``ErrorResponse`` (``checked``
    False: a type the SDK's union does not list, as the 413 answered by Cloudflare)."""
    error: dict = {"type": type_, "message": message}
    if error_code is not None:
        error["details"] = {"error_code": error_code}
    body = {"type": "error", "error": error, "request_id": "req_011CSHoEeqs5C35K2UUqR7Fy"}
    if checked:
        anthropic.types.ErrorResponse.model_validate(body)
    return body


# The clock classify reads while these tests run (``_frozen_clock``): reset headers are
# absolute times, so a wait measured against a moving clock would depend on the machine's load.
NOW = datetime(2026, 3, 2, 12, 0, 0, tzinfo=timezone.utc)


def _in(seconds: int) -> str:
    when = NOW + timedelta(seconds=seconds)
    return when.isoformat().replace("+00:00", "Z")


@pytest.fixture(autouse=True)
def _frozen_clock(monkeypatch):
    monkeypatch.setattr("llm_eval.adapters.classify.time", SimpleNamespace(time=NOW.timestamp))


QUOTA_TEXT = ("You exceeded your current quota, please check your plan and billing details. "
              "For more information on this error, read the docs: "
              "https://platform.openai.com/docs/guides/error-codes/api-errors.")
CREDIT_TEXT = ("Your credit balance is too low to access the Anthropic API. Please go to Plans "
               "& Billing to upgrade or purchase credits.")
CLAUDE_LIMIT_TEXT = ("input length and `max_tokens` exceed context limit: 199759 + 8192 > "
                     "200000, decrease input length or `max_tokens` and try again")
LLAMA_TEXT = ("the request exceeds the available context size. try increasing the context "
              "size or enable context shift")

ROWS = [
    # --- OpenAI (Responses and Chat Completions share the error shape) -----------------------
    Row("openai-insufficient-quota", "openai", 429,
        openai_error(QUOTA_TEXT, "insufficient_quota", "insufficient_quota"), "fatal", "quota"),
    Row("openai-billing-hard-limit", "openai", 400,
        openai_error("Billing hard limit has been reached", "invalid_request_error",
                     "billing_hard_limit_reached"), "fatal", "quota"),
    Row("openai-rate-limit-reset-headers", "openai", 429,
        openai_error("Rate limit reached for gpt-4.1-mini in organization org-abc on requests "
                     "per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.",
                     "requests", "rate_limit_exceeded"), "rate_limited", wait=20.0,
        headers={"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "20s",
                 "x-ratelimit-remaining-tokens": "9000", "x-ratelimit-reset-tokens": "6m0s"}),
    Row("openai-rate-limit-retry-after-ms", "openai", 429,
        openai_error("Rate limit reached for gpt-5 on tokens per min (TPM).", "tokens",
                     "rate_limit_exceeded"), "rate_limited", wait=1.5,
        headers={"retry-after-ms": "1500", "retry-after": "2"}),
    Row("openai-context-length-chat", "openai", 400,
        openai_error("This model's maximum context length is 128000 tokens. However, your "
                     "messages resulted in 130412 tokens. Please reduce the length of the "
                     "messages.", "invalid_request_error", "context_length_exceeded",
                     "messages"), "fatal", "context_overflow"),
    Row("openai-context-window-responses", "openai", 400,
        openai_error("Your input exceeds the context window of this model. Please adjust "
                     "your input and try again.", "invalid_request_error",
                     "context_length_exceeded", "input"), "fatal", "context_overflow"),
    Row("openai-invalid-api-key", "openai", 401,
        openai_error("Incorrect API key provided: sk-proj-****abcd. You can find your API key "
                     "at https://platform.openai.com/account/api-keys.",
                     "invalid_request_error", "invalid_api_key"), "fatal", "auth"),
    Row("openai-unsupported-region", "openai", 403,
        openai_error("Country, region, or territory not supported", "request_forbidden",
                     "unsupported_country_region_territory"), "fatal", "permission"),
    Row("openai-model-not-found", "openai", 404,
        openai_error("The model `gpt-9-turbo` does not exist or you do not have access to it.",
                     "invalid_request_error", "model_not_found"), "fatal", "model_not_found"),
    Row("openai-bad-request", "openai", 400,
        openai_error("Invalid value for 'tool_choice': 'tool_choice' is only allowed when "
                     "'tools' are specified.", "invalid_request_error", None, "tool_choice"),
        "fatal", "bad_request"),
    Row("openai-server-error", "openai", 500,
        openai_error("The server had an error while processing your request. Sorry about "
                     "that!", "server_error", None), "transient"),
    Row("openai-overloaded-503", "openai", 503,
        openai_error("The engine is currently overloaded, please try again later.",
                     "server_error", None), "transient"),
    # --- OpenAI-compatible servers, through the openai SDK (openai-chat with base_url) --------
    Row("gemini-input-token-count", "openai", 400,
        {"error": {"code": 400, "message": "The input token count (1200293) exceeds the "
                   "maximum number of tokens allowed (1048576).", "status": "INVALID_ARGUMENT"}},
        "fatal", "context_overflow"),
    Row("llamacpp-exceed-context-400", "openai", 400,
        {"error": {"code": 400, "message": "request (4390 tokens) exceeds the available "
                   "context size (4096 tokens), try increasing it",
                   "type": "exceed_context_size_error", "n_prompt_tokens": 4390,
                   "n_ctx": 4096}}, "fatal", "context_overflow"),
    Row("llamacpp-exceed-context-500", "openai", 500,
        {"error": {"code": 500, "message": LLAMA_TEXT, "type": "exceed_context_size_error",
                   "n_prompt_tokens": 1407, "n_ctx": 256}}, "fatal", "context_overflow"),
    Row("llamacpp-context-size-exceeded-500", "openai", 500,
        {"error": {"code": 500, "message": "Context size has been exceeded.",
                   "type": "server_error"}}, "fatal", "context_overflow"),
    Row("vllm-maximum-context-length", "openai", 400,
        openai_error("This model's maximum context length is 131072 tokens. However, you "
                     "requested 128000 output tokens and your prompt contains at least 3073 "
                     "input tokens, for a total of at least 131073 tokens.",
                     "BadRequestError", None, "input_tokens"), "fatal", "context_overflow"),
    # --- Anthropic Messages --------------------------------------------------------------------
    Row("anthropic-input-and-max-tokens-exceed-context-limit", "anthropic", 400,
        claude_error("invalid_request_error", CLAUDE_LIMIT_TEXT), "fatal", "context_overflow"),
    Row("anthropic-prompt-is-too-long", "anthropic", 400,
        claude_error("invalid_request_error", "prompt is too long: 208310 tokens > 200000 "
                     "maximum"), "fatal", "context_overflow"),
    Row("anthropic-request-too-large", "anthropic", 413,
        claude_error("request_too_large", "Request exceeds the maximum allowed number of "
                     "bytes.", checked=False), "fatal", "context_overflow"),
    Row("anthropic-credit-balance-too-low", "anthropic", 400,
        claude_error("invalid_request_error", CREDIT_TEXT), "fatal", "quota"),
    Row("anthropic-specified-usage-limits", "anthropic", 400,
        claude_error("invalid_request_error", "You have reached your specified API usage "
                     "limits. You will regain access on 2026-04-01 at 00:00 UTC."),
        "fatal", "quota"),
    Row("anthropic-enforced-spend-limit", "anthropic", 429,
        claude_error("rate_limit_error", "Your organization has reached its monthly spend "
                     "limit.", "enforced_spend_limit_reached"), "fatal", "quota"),
    Row("anthropic-contract-spend-limit", "anthropic", 429,
        claude_error("rate_limit_error", "Your organization has reached the spend limit of "
                     "its contract.", "contract_spend_limit_reached"), "fatal", "quota"),
    Row("anthropic-billing-error-402", "anthropic", 402,
        claude_error("billing_error", "Your account has a billing problem."), "fatal",
        "quota"),
    Row("anthropic-overloaded-529", "anthropic", 529,
        claude_error("overloaded_error", "Overloaded"), "rate_limited", wait=None),
    Row("anthropic-overloaded-529-retry-after", "anthropic", 529,
        claude_error("overloaded_error", "Overloaded"), "rate_limited", wait=7.0,
        headers={"retry-after": "7"}),
    Row("anthropic-rate-limit-retry-after", "anthropic", 429,
        claude_error("rate_limit_error", "Your account has hit a rate limit."),
        "rate_limited", wait=12.0, headers={"retry-after": "12"}),
    Row("anthropic-rate-limit-reset-headers", "anthropic", 429,
        claude_error("rate_limit_error", "Your account has hit a rate limit."),
        "rate_limited", wait=30.0,
        headers={"anthropic-ratelimit-requests-remaining": "0",
                 "anthropic-ratelimit-requests-reset": "+30",
                 "anthropic-ratelimit-tokens-remaining": "15000",
                 "anthropic-ratelimit-tokens-reset": "+5"}),
    Row("anthropic-ramp-limit", "anthropic", 429,
        claude_error("rate_limit_error", "Usage is growing faster than your ramp limit.",
                     "ramp_limit_exceeded"), "rate_limited", wait=5.0,
        headers={"retry-after": "5"}),
    Row("anthropic-authentication-error", "anthropic", 401,
        claude_error("authentication_error", "invalid x-api-key"), "fatal", "auth"),
    Row("anthropic-permission-error", "anthropic", 403,
        claude_error("permission_error", "Your API key does not have permission to use the "
                     "specified resource."), "fatal", "permission"),
    Row("anthropic-model-not-found", "anthropic", 404,
        claude_error("not_found_error", "model: claude-nonexistent-9"), "fatal",
        "model_not_found"),
    Row("anthropic-api-error-500", "anthropic", 500,
        claude_error("api_error", "Internal server error"), "transient"),
    # --- LiteLLM (its own route and exception mapping over the same answers) -----------------
    Row("litellm-insufficient-quota", "litellm", 429,
        openai_error(QUOTA_TEXT, "insufficient_quota", "insufficient_quota"), "fatal", "quota"),
    Row("litellm-credit-balance-too-low", "litellm-anthropic", 400,
        claude_error("invalid_request_error", CREDIT_TEXT), "fatal", "quota"),
    Row("litellm-context-window-exceeded", "litellm-anthropic", 400,
        claude_error("invalid_request_error", CLAUDE_LIMIT_TEXT), "fatal", "context_overflow"),
    Row("litellm-context-length-exceeded", "litellm", 400,
        openai_error("This model's maximum context length is 8192 tokens. However, your "
                     "messages resulted in 8301 tokens.", "invalid_request_error",
                     "context_length_exceeded", "messages"), "fatal", "context_overflow"),
    Row("litellm-rate-limit", "litellm", 429,
        openai_error("Rate limit reached for gpt-4.1-mini on requests per min (RPM).",
                     "requests", "rate_limit_exceeded"), "rate_limited", wait=4.0,
        headers={"retry-after": "4"}),
    Row("litellm-overloaded-529", "litellm-anthropic", 529,
        claude_error("overloaded_error", "Overloaded"), "rate_limited", wait=None,
        reported=500),   # LiteLLM raises its InternalServerError (500) for a 529
    Row("litellm-authentication", "litellm", 401,
        openai_error("Incorrect API key provided.", "invalid_request_error",
                     "invalid_api_key"), "fatal", "auth"),
    Row("litellm-model-not-found", "litellm", 404,
        openai_error("The model `gpt-9-turbo` does not exist or you do not have access to it.",
                     "invalid_request_error", "model_not_found"), "fatal", "model_not_found"),
]

URLS = {"openai": "https://api.openai.com/v1/responses",
        "anthropic": "https://api.anthropic.com/v1/messages",
        "litellm": "https://api.openai.com/v1/chat/completions",
        "litellm-anthropic": "https://api.anthropic.com/v1/messages"}


def _headers(row: Row) -> dict[str, str]:
    # "+N": a reset time N seconds from now (RFC 3339), as Anthropic sends it
    return {k: _in(int(v[1:])) if v.startswith("+") else v for k, v in row.headers.items()}


def _sdk_verdict(row: Row) -> ProviderError:
    response = httpx2.Response(row.status, headers={"content-type": "application/json",
                                                    **_headers(row)},
                               content=json.dumps(row.body).encode(),
                               request=httpx2.Request("POST", URLS[row.route]))
    response.read()
    sdk = openai if row.route == "openai" else anthropic
    client = (openai.AsyncOpenAI(api_key=SECRET) if sdk is openai
              else anthropic.AsyncAnthropic(api_key=SECRET))
    exc = client._make_status_error_from_response(response)   # what the SDK raises
    assert isinstance(exc, sdk.APIStatusError) and exc.status_code == row.status
    verdict = classify_sdk_error(exc, sdk, row.route)
    assert verdict is not None
    return verdict


def _litellm_verdict(row: Row, monkeypatch) -> ProviderError:
    if row.route == "litellm":
        adapter = create_adapter("litellm/openai/gpt-4.1-mini", api_key=SECRET, timeout=5)
    else:
        monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
        adapter = create_adapter("litellm/anthropic/claude-sonnet-4-5", timeout=5)
    with respx.mock(assert_all_mocked=True) as mock:
        mock.post(URLS[row.route]).respond(row.status, json=row.body, headers=_headers(row))
        with pytest.raises(ProviderError) as caught:
            asyncio.run(adapter.complete(request()))
    return caught.value


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_each_documented_error_gets_its_verdict(row, monkeypatch):
    verdict = (_litellm_verdict(row, monkeypatch) if row.route.startswith("litellm")
               else _sdk_verdict(row))
    assert isinstance(verdict, KINDS[row.verdict]), (type(verdict).__name__, verdict)
    assert verdict.status == (row.reported or row.status)
    if row.verdict == "fatal":
        assert verdict.reason == row.reason, verdict
        if row.reason in ACCOUNT_REASONS:   # the message says what to fix
            assert FIXES[row.reason] in verdict.message
    if row.verdict == "rate_limited":
        if row.wait is None:
            assert verdict.retry_after is None
        else:   # reset times are read against the frozen clock (_frozen_clock)
            assert verdict.retry_after == pytest.approx(row.wait)
    assert SECRET not in verdict.message


def _doc_rows() -> dict[str, tuple[str, str]]:
    """The table of docs/provider-errors.md: row id -> (verdict, reason)."""
    rows = {}
    for line in DOC.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 6 and (m := re.fullmatch(r"`([a-z0-9-]+)`", cells[0])):
            verdict, _, reason = cells[4].strip("`").partition(" ")
            rows[m[1]] = (verdict, reason.strip("()` ") or "")
    return rows


def test_the_documented_table_is_the_tested_table():
    documented = _doc_rows()
    tested = {r.id: (r.verdict, r.reason or "") for r in ROWS}
    assert documented == tested


def test_a_fatal_quota_error_is_never_retried_as_a_rate_limit():
    """The failure of issue 29: OpenAI's 429 insufficient_quota was retried six times."""
    row = next(r for r in ROWS if r.id == "openai-insufficient-quota")
    verdict = _sdk_verdict(row)
    assert not isinstance(verdict, RateLimited) and verdict.reason == "quota"
    assert "add credit" in verdict.message
