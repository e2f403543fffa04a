"""No key or auth header survives ``scrub``, which guards everything adapters record."""

from __future__ import annotations

from adapter_sample import SECRET

from llm_eval.adapters.classify import classify_status, retry_after_from, scrub


def test_scrub_keys_headers_and_key_looking_strings(monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "AIzaPlainLookingKey123")
    data = {"headers": {"Authorization": f"Bearer {SECRET}", "x-api-key": SECRET,
                        "content-type": "application/json"},
            "api_key": SECRET, "messages": [f"my key is {SECRET}", "AIzaPlainLookingKey123"],
            "max_tokens": 5}
    clean = scrub(data)
    text = repr(clean)
    assert SECRET not in text and "AIzaPlainLookingKey123" not in text
    assert clean["headers"]["content-type"] == "application/json"
    assert clean["max_tokens"] == 5


def test_scrub_reaches_into_tuples_mappings_and_long_text():
    from types import MappingProxyType

    text = "x" * 5000 + f" header was Bearer {SECRET[:20]} and sk-{SECRET[-12:]} " + "y" * 5000
    clean = scrub({"a": (text, [MappingProxyType({"Cookie": "c=1", "ok": text})]), "n": None,
                   "plain": "no secrets here", "skew": "ask-me-anything"})
    assert SECRET[:20] not in repr(clean) and SECRET[-12:] not in repr(clean)
    assert clean["a"][0].count("[redacted]") == 2 and clean["a"][0].startswith("x" * 5000)
    assert clean["a"][1][0] == {"Cookie": "[redacted]", "ok": clean["a"][0]}
    assert isinstance(clean["a"], list) and clean["n"] is None
    assert clean["plain"] == "no secrets here" and clean["skew"] == "ask-me-anything"


def test_credentials_inside_urls_are_scrubbed():
    clean = scrub({"base_url": "https://user:pa55word@llm.example/v1?key=AIzaQueryKey1&x=1",
                   "note": "see https://llm.example/v1/models?api_key=abc123def&page=2#top",
                   "plain": "https://llm.example/v1?page=2 and a=b"})
    assert clean["base_url"] == "https://[redacted]@llm.example/v1?key=[redacted]&x=1"
    assert clean["note"] == "see https://llm.example/v1/models?api_key=[redacted]&page=2#top"
    assert clean["plain"] == "https://llm.example/v1?page=2 and a=b"


def test_sdk_clients_share_one_tls_context_unless_a_client_is_given():
    import openai

    from llm_eval.adapters.sdk_clients import http_client

    first, second = http_client(openai, {}), http_client(openai, {})
    assert first is not second
    assert first._transport._pool._ssl_context is second._transport._pool._ssl_context
    assert first.follow_redirects   # still the SDK's defaults
    given = openai.DefaultAsyncHttpxClient()
    assert http_client(openai, {"http_client": given}) is given


def test_retry_after_forms():
    assert retry_after_from({"Retry-After": "12"}) == 12.0
    assert retry_after_from({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after_from({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    assert retry_after_from({"retry-after": "soon"}) is None
    assert retry_after_from(None) is None


def test_classify_status_messages_are_scrubbed():
    error = classify_status(401, f"bad key {SECRET}", provider="openai")
    assert error.reason == "auth" and SECRET not in str(error)
    assert classify_status(408, "slow", provider="p").kind == "transient"
    assert classify_status(413, "too large", provider="p").reason == "context_overflow"
