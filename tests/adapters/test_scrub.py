"""No key or auth header survives ``scrub``, which guards everything adapters record."""

from __future__ import annotations

from adapter_sample import SECRET

from adapters.classify import classify_status, retry_after_from, scrub


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
