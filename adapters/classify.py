"""Shared pieces of error classification and secret scrubbing for the provider adapters.

Every adapter maps its SDK's exceptions to an HTTP status (or a connection failure), and what
the provider's error body says (its ``error.type``, its code: OpenAI's ``error.code``,
Anthropic's ``error.details.error_code``, and its message), and lets ``classify_status`` decide,
in this order (docs/provider-errors.md has the table, one tested row per documented error):

- a quota or billing refusal (OpenAI's ``insufficient_quota``, Anthropic's spend-limit codes and
  "credit balance is too low", any 402) is fatal at once, reason ``quota``, whatever its status:
  OpenAI sends it as a 429, which retrying would only repeat;
- a request over the model's context (each provider's documented wording or code, 413) is fatal,
  reason ``context_overflow`` (the episode ends where it stands, scored), even as a 5xx: the
  llama.cpp server answers 500 ``exceed_context_size_error``;
- 429 and 529 are rate limits, waited out by ``retry_after_from`` (the headers), 408/409 and
  5xx are transient;
- everything else in 4xx is fatal with a one-word reason: ``auth`` (401), ``permission`` (403),
  ``model_not_found`` (404, or the ``model_not_found`` code), ``not_found``, ``bad_request``.

The reasons only the user can fix (``ACCOUNT_REASONS``: quota, auth, permission, a model or
route not found) say what to fix in their message (``FIXES``); the sweep ends such a job
``fatal``, which ``--resume`` does not pay to try again unless asked.

A reply that came back (200) but is not the provider's shape (an HTML page from a proxy, JSON
of another API, a field of the wrong type) is ``malformed``: transient, so the core retries it
a few times, then an infrastructure error that says "provider returned a malformed response".
Each adapter reads its reply through ``json_reply`` (the top-level shape) and
``reading_reply`` (anything its normalisation cannot read), in one place.
"""

from __future__ import annotations

import contextlib
import email.utils
import functools
import os
import re
import time
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from .types import Fatal, ProviderError, RateLimited, Transient

__all__ = ["classify_status", "retry_after_from", "scrub", "known_secrets", "SECRET_ENV_VARS",
           "malformed", "json_reply", "reading_reply", "MALFORMED", "error_fields",
           "ACCOUNT_REASONS", "FIXES"]

MALFORMED = "provider returned a malformed response"

# Provider key variables whose values must never reach a file.
SECRET_ENV_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN",
                   "GEMINI_API_KEY", "GOOGLE_API_KEY", "MISTRAL_API_KEY", "GROQ_API_KEY",
                   "TOGETHER_API_KEY", "OPENROUTER_API_KEY", "DEEPSEEK_API_KEY",
                   "XAI_API_KEY", "AZURE_API_KEY", "COHERE_API_KEY", "LITELLM_API_KEY")

_SECRET_KEYS = re.compile(r"(^|[-_])(api[-_]?key|authorization|auth[-_]?token|x-api-key|"
                          r"secret|password|access[-_]?token|bearer|cookie|key)$", re.I)
_KEY_PATTERN = re.compile(r"\b(sk-(?:ant-)?[A-Za-z0-9_\-]{8,}|Bearer\s+[A-Za-z0-9._\-]{8,})")
# credentials inside a URL: user:password@host, and ?key=... style query parameters
_URL_USERINFO = re.compile(r"(?<=://)[^/\s:@]+:[^/\s@]+@")
_URL_KEY_PARAM = re.compile(r"(?i)([?&](?:api[-_]?key|key|token|access[-_]?token|auth|"
                            r"signature|sig)=)[^&#\s\"']+")

# Each provider's documented words for a request over the model's context (lower case); the
# sources are in docs/provider-errors.md.
_CONTEXT_WORDS = ("context length", "context_length", "context window", "too many tokens",
                  "maximum context", "prompt is too long", "context_length_exceeded",
                  # Anthropic: "input length and `max_tokens` exceed context limit: A + B > C"
                  "exceed context limit",
                  # llama.cpp's server: "the request exceeds the available context size" (type
                  # exceed_context_size_error), older builds "Context size has been exceeded."
                  "exceeds the available context size", "exceed_context_size",
                  "context size has been exceeded",
                  # Gemini (and its OpenAI-compatible endpoint): "The input token count (N)
                  # exceeds the maximum number of tokens allowed (M)."
                  "exceeds the maximum number of tokens")
_CONTEXT_PATTERN = re.compile(r"input token count.{0,40}exceeds")
_CONTEXT_CODES = ("context_length_exceeded", "exceed_context_size_error",
                  "request_too_large")

# Quota and billing: the account has no credit or reached a spend limit (docs/provider-errors.md)
_QUOTA_CODES = ("insufficient_quota", "billing_error", "billing_hard_limit_reached",
                "enforced_spend_limit_reached", "contract_spend_limit_reached",
                "linked_organization_spend_limit_reached",
                "linked_organization_billing_unavailable")
_QUOTA_WORDS = ("exceeded your current quota", "credit balance is too low",
                "reached your specified api usage limits", "insufficient_quota",
                "billing hard limit", "spend_limit_reached")

ACCOUNT_REASONS = ("quota", "auth", "permission", "model_not_found", "not_found")
# What the user must do before such a job can succeed (said in the error and the job's status)
FIXES = {
    "quota": "the account has no credit or reached its spend limit: add credit or raise the "
             "limit on the provider's billing page",
    "auth": "the provider refused the API key: set a valid key (e.g. OPENAI_API_KEY, "
            "ANTHROPIC_API_KEY, or api_key / api_key_env in adapter_options)",
    "permission": "the key may not use this model or endpoint: use a key (project, "
                  "organisation) that may, or another model",
    "model_not_found": "the provider does not know this model: check the model name "
                       "(the provider's model list; llm-eval providers)",
    "not_found": "the provider has no such endpoint or model: check the model name and the "
                 "base_url",
}


def retry_after_from(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date),
    else from the rate-limit reset headers: Anthropic's ``anthropic-ratelimit-*-reset`` (RFC 3339
    times) and OpenAI's ``x-ratelimit-reset-*`` (durations such as ``6m0s``, ``20ms``), the
    latest reset among the limits whose ``remaining`` is 0 (all of them when none says). The
    core caps the wait (``CallPolicy.max_retry_after``)."""
    if not headers:
        return None
    lower = {k.lower(): v for k, v in headers.items()}
    if (ms := lower.get("retry-after-ms")) is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = lower.get("retry-after")
    if value is None:
        return _reset_wait(lower)
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_tz(value)
        if parsed is None:
            return _reset_wait(lower)
        return max(0.0, email.utils.mktime_tz(parsed) - time.time())


_RESET = re.compile(r"^(?:anthropic-ratelimit-(?P<a>[a-z-]+)-reset|"
                    r"x-ratelimit-reset-(?P<o>[a-z_-]+))$")
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def _reset_wait(lower: Mapping[str, str]) -> float | None:
    """The wait the rate-limit reset headers give (``retry_after_from``), or None."""
    waits: list[tuple[bool, float]] = []
    for name, value in lower.items():
        match = _RESET.match(name)
        if match is None:
            continue
        if match["a"] is not None:
            remaining = lower.get(f"anthropic-ratelimit-{match['a']}-remaining")
            seconds = _seconds_until(value)
        else:
            remaining = lower.get(f"x-ratelimit-remaining-{match['o']}")
            seconds = _duration(value)
        if seconds is not None:
            waits.append((remaining is not None and remaining.strip() == "0", seconds))
    exhausted = [s for spent, s in waits if spent]
    chosen = exhausted or [s for _, s in waits]
    return max(chosen) if chosen else None


def _seconds_until(stamp: str) -> float | None:
    try:
        when = datetime.fromisoformat(stamp.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def _duration(text: str) -> float | None:
    text = text.strip()
    parts = _DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    return sum(float(n) * _UNIT_S[u] for n, u in parts)


def error_fields(body: Any) -> tuple[str | None, str | None, str | None]:
    """``(type, code, message)`` of a provider's error body: ``{"error": {...}}`` (OpenAI,
    Anthropic, Gemini's and llama.cpp's OpenAI-compatible servers) or the inner object itself
    (the openai SDK keeps only that); the code is OpenAI's ``error.code`` or Anthropic's
    ``error.details.error_code``. Anything else gives Nones."""
    if not isinstance(body, Mapping):
        return None, None, body if isinstance(body, str) else None
    inner = body.get("error")
    if not isinstance(inner, Mapping):
        inner = body
    details = inner.get("details")
    code = inner.get("code")
    if not isinstance(code, str) and isinstance(details, Mapping):
        code = details.get("error_code")
    kind, message = inner.get("type"), inner.get("message")
    return (kind if isinstance(kind, str) else None, code if isinstance(code, str) else None,
            message if isinstance(message, str) else None)


def classify_status(status: int | None, message: str, *, provider: str,
                    headers: Mapping[str, str] | None = None,
                    error_class: str | None = None, error_type: str | None = None,
                    error_code: str | None = None) -> ProviderError:
    """The verdict for an HTTP error status (None: the connection failed or timed out), read
    with the provider's error type and code when known (module docstring)."""
    kw: dict[str, Any] = {"provider": provider, "status": status, "error_class": error_class}
    message = scrub(message)
    if status is None:
        return Transient(message, **kw)
    low = message.lower()
    labels = {error_type, error_code}
    if status == 402 or labels & set(_QUOTA_CODES) or any(w in low for w in _QUOTA_WORDS):
        return _fatal("quota", message, kw)
    if status not in (401, 403, 429, 529) and (
            status == 413 or labels & set(_CONTEXT_CODES)
            or any(word in low for word in _CONTEXT_WORDS) or _CONTEXT_PATTERN.search(low)):
        return _fatal("context_overflow", message, kw)
    if status in (429, 529) or (status >= 500 and (error_type == "overloaded_error"
                                                   or "overloaded_error" in low)):
        # Anthropic's overload, also when LiteLLM passes it on as a 500
        return RateLimited(message, retry_after=retry_after_from(headers), **kw)
    if status in (408, 409) or status >= 500:
        return Transient(message, **kw)
    if status == 401:
        reason = "auth"
    elif status == 403:
        reason = "permission"
    elif error_code == "model_not_found" or (status == 404 and "model" in low):
        reason = "model_not_found"
    elif status == 404:
        reason = "not_found"
    elif status in (400, 422):
        reason = "bad_request"
    else:
        reason = f"http_{status}"
    return _fatal(reason, message, kw)


def _fatal(reason: str, message: str, kw: dict[str, Any]) -> Fatal:
    fix = FIXES.get(reason)
    return Fatal(f"{reason}: {message}" + (f" ({fix})" if fix else ""), reason=reason, **kw)


def malformed(provider: str, what: str, *, error_class: str = "MalformedResponse") -> Transient:
    """The verdict for a reply that is not the provider's shape (module docstring)."""
    text = " ".join(scrub(what).split())
    return Transient(f"{MALFORMED}: {text[:300]}", provider=provider, error_class=error_class)


def json_reply(result: Any, provider: str, kind: str,
               required: Mapping[str, type]) -> dict[str, Any]:
    """The SDK's parsed reply as JSON data, if it is a JSON object whose ``required`` fields
    have the right types; else ``malformed``, naming ``kind`` (what was expected) and what came.
    The SDKs build reply objects without validating them, and hand back the text of a body that
    is not JSON, so this is where a wrong shape is caught."""
    if not isinstance(result, BaseModel):
        got = "text" if isinstance(result, str) else f"JSON {type(result).__name__}"
        raise malformed(provider, f"expected {kind} (a JSON object), got {got}: "
                                  f"{_excerpt(result)}")
    raw = result.model_dump(mode="json", warnings=False)
    received = sorted({*result.model_fields_set, *(result.model_extra or {})})
    for name, wanted in required.items():
        value = raw.get(name)
        if not isinstance(value, wanted):
            got = f"{type(value).__name__} {_excerpt(value, 60)}" if name in received else \
                f"no {name!r}"
            raise malformed(provider, f"expected {kind} with {name!r} a {wanted.__name__}, got "
                                      f"{got} (fields: {', '.join(received[:12]) or 'none'})")
    return raw


@contextlib.contextmanager
def reading_reply(provider: str) -> Iterator[None]:
    """Around an adapter's normalisation of a reply: a field it cannot read (a wrong type in a
    reply of the right overall shape) is ``malformed``; verdicts raised inside pass through."""
    try:
        yield
    except ProviderError:
        raise
    except (AttributeError, TypeError, ValueError, KeyError, IndexError) as exc:
        raise malformed(provider, f"{type(exc).__name__}: {exc}") from exc


def _excerpt(value: Any, limit: int = 120) -> str:
    text = value if isinstance(value, str) else repr(value)
    text = " ".join(text.split())
    return repr(text[:limit] + ("..." if len(text) > limit else ""))


def known_secrets(extra: Iterable[str] = ()) -> tuple[str, ...]:
    """The provider keys present in the environment (and ``extra``), for scrubbing."""
    values = [os.environ.get(name, "") for name in SECRET_ENV_VARS]
    values.extend(extra)
    return tuple(v for v in values if v and len(v) >= 6)


def scrub(value: Any, secrets: Iterable[str] = ()) -> Any:
    """A copy of ``value`` (dicts, lists, strings) with keys, auth headers and key-looking
    strings replaced by ``"[redacted]"``."""
    found = known_secrets(secrets)
    return _scrub(value, found)


def _scrub(value: Any, secrets: tuple[str, ...]) -> Any:
    # the hot path of every transcript write: plain types are checked before the ABCs, and a
    # string is searched for a key shape only if it holds a literal every key shape starts with
    kind = type(value)
    if kind is str:
        return _scrub_text(value, secrets)
    if kind is dict or (kind is not list and isinstance(value, Mapping)):
        out = {}
        for k, v in value.items():
            if isinstance(k, str) and _secret_key(k) and v not in (None, ""):
                out[k] = "[redacted]"
            else:
                out[k] = _scrub(v, secrets)
        return out
    if kind is list or isinstance(value, (list, tuple)):
        return [_scrub(v, secrets) for v in value]
    if isinstance(value, str):
        return _scrub_text(value, secrets)
    return value


def _scrub_text(value: str, secrets: tuple[str, ...]) -> str:
    for secret in secrets:
        if secret in value:
            value = value.replace(secret, "[redacted]")
    if "sk-" in value or "Bearer" in value:   # _KEY_PATTERN cannot match otherwise
        value = _KEY_PATTERN.sub("[redacted]", value)
    if "://" in value:
        value = _URL_USERINFO.sub("[redacted]@", value)
    if "=" in value:
        value = _URL_KEY_PARAM.sub(r"\1[redacted]", value)
    return value


@functools.lru_cache(maxsize=4096)
def _secret_key(name: str) -> bool:
    return _SECRET_KEYS.search(name) is not None
