"""Offline by construction: provider keys scrubbed from the environment, retry waits zeroed;
the fake provider of tests/adapters is importable."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from adapters.classify import SECRET_ENV_VARS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "adapters"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("DISABLE_AIOHTTP_TRANSPORT", "True")


@pytest.fixture(autouse=True)
def no_provider_keys(monkeypatch):
    for name in SECRET_ENV_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def no_waits(monkeypatch):
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr("llm_eval.calls.sleep", sleep)
    return waits
