"""Offline by construction, for every test: provider keys scrubbed from the environment,
model-call retry waits zeroed, litellm kept off the network. Tests marked ``live`` (the
live-provider tier, which skips without keys) keep the environment and real waits."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("DISABLE_AIOHTTP_TRANSPORT", "True")
# no test reuses a validation report kept by an earlier run (or by another test): a test that
# plants a fault in a check must see it run; tests/tasks/test_report_cache.py sets its own
os.environ["LLM_EVAL_REPORT_CACHE"] = "off"


def pytest_configure(config):
    # the collector as llm_eval's own processes run it (llm_eval/gcpolicy.py): with Python's
    # defaults a test worker's large heap made a quarter of the suite's CPU garbage collection
    from llm_eval.gcpolicy import tune

    tune()
    config.addinivalue_line("markers", "live: calls a real provider; skipped without its key")
    config.addinivalue_line("markers", "slow: the slow tier (tests/tiers.py), left out of the "
                                       "default run; run it with -m slow")
    config.addinivalue_line("markers", "exhaustive: slow tests beyond CI's share of a "
                                       "repeated check (tests/tiers.py); -m slow includes them")


@pytest.fixture(autouse=True)
def no_provider_keys(request, monkeypatch):
    """No real key can be used by accident; tests that need a key set a fake one."""
    if request.node.get_closest_marker("live"):
        return
    from llm_eval.adapters.classify import SECRET_ENV_VARS

    for name in SECRET_ENV_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def no_waits(request, monkeypatch):
    """Retry waits take no time; the waits asked for are kept in the returned list."""
    waits: list[float] = []
    if request.node.get_closest_marker("live"):
        return waits

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr("llm_eval.calls.sleep", sleep)
    return waits
