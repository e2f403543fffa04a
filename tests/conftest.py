"""Offline by construction, for every test: provider keys scrubbed from the environment,
model-call retry waits zeroed, litellm kept off the network. Tests marked ``live`` (the
live-provider tier, which skips without keys) keep the environment and real waits."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("DISABLE_AIOHTTP_TRANSPORT", "True")


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


# The default tier's longest files (over 10 s each with --durations=0), run first: pytest-xdist
# hands whole files to the two workers in collection order (--dist loadfile), and one of these
# near the end kept one worker busy while the other had finished.
LONGEST_FIRST = (
    "tests/serve/test_load.py", "tests/test_readme_examples.py",
    "tests/worlds/test_benchmarks.py", "tests/sweep/test_estimate.py",
    "tests/sweep/test_ray.py", "tests/serve/test_browser.py",
    "tests/agents/test_llm_episode.py", "tests/sweep/test_processes.py",
    "tests/agents/test_oracle_agent.py", "tests/adapters/test_malformed.py",
    "tests/report/test_report_page.py", "tests/tasks/test_task_validate.py",
    "tests/autumn/test_fuse.py", "tests/sweep/test_kill_resume.py",
    "tests/report/test_export_inspect.py", "tests/worlds/test_all_worlds.py",
    "tests/benchmarks/test_scheduler_benchmark.py", "tests/benchmarks/test_import_graph.py",
)


def pytest_collection_modifyitems(config, items):
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.partition("::")[0], len(rank)))


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
