"""Shared pieces of error classification and secret scrubbing for the provider adapters.

Every adapter maps its SDK's exceptions to an HTTP status (or a connection failure) and lets
``classify_status`` decide: 429 and 529 are rate limits (with Retry-After), 408/409 and 5xx are
transient, everything else in 4xx is fatal with a one-word reason.

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
from typing import Any

from pydantic import BaseModel

from .types import Fatal, ProviderError, RateLimited, Transient

__all__ = ["classify_status", "retry_after_from", "scrub", "known_secrets", "SECRET_ENV_VARS",
           "malformed", "json_reply", "reading_reply", "MALFORMED"]

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

_CONTEXT_WORDS = ("context length", "context_length", "context window", "too many tokens",
                  "maximum context", "prompt is too long", "context_length_exceeded")


def retry_after_from(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
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
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_tz(value)
        if parsed is None:
            return None
        return max(0.0, email.utils.mktime_tz(parsed) - time.time())


def classify_status(status: int | None, message: str, *, provider: str,
                    headers: Mapping[str, str] | None = None,
                    error_class: str | None = None) -> ProviderError:
    """The verdict for an HTTP error status (None: the connection failed or timed out)."""
    kw: dict[str, Any] = {"provider": provider, "status": status, "error_class": error_class}
    message = scrub(message)
    if status is None:
        return Transient(message, **kw)
    if status in (429, 529):
        return RateLimited(message, retry_after=retry_after_from(headers), **kw)
    if status in (408, 409) or status >= 500:
        return Transient(message, **kw)
    low = message.lower()
    if any(word in low for word in _CONTEXT_WORDS) or status == 413:
        reason = "context_overflow"
    elif status == 401:
        reason = "auth"
    elif status == 403:
        reason = "permission"
    elif status == 404:
        reason = "not_found"
    elif status in (400, 422):
        reason = "bad_request"
    else:
        reason = f"http_{status}"
    return Fatal(f"{reason}: {message}", reason=reason, **kw)


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
