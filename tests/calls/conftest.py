"""Offline by construction: provider keys scrubbed from the environment, retry waits zeroed,
litellm kept off the network."""

from __future__ import annotations

import os

import pytest

from adapters.classify import SECRET_ENV_VARS

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("DISABLE_AIOHTTP_TRANSPORT", "True")

@pytest.fixture(autouse=True)
def no_provider_keys(monkeypatch):
    """No real key can be used by accident; tests that need one set SECRET."""
    for name in SECRET_ENV_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def no_waits(monkeypatch):
    """Retry waits take no time; the waits asked for are kept in the list."""
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr("llm_eval.calls.sleep", sleep)
    return waits
