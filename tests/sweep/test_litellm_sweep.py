"""A concurrent sweep through the litellm route, as a user runs it (``llm-eval run`` in its own
process, against the fake provider on loopback): the results are right and nothing reaches
standard error. LiteLLM used to print dozens of "cannot reuse already awaited coroutine"
tracebacks there (its logging worker raced across the episodes' event loops), and a pydantic
warning for each reply of the wrong shape."""

from __future__ import annotations

import json
import subprocess
import sys

from fake_provider import FakeProvider
from provider_bodies import chat_body

MODEL = "litellm/openai/local-model"


def test_a_concurrent_litellm_sweep_writes_nothing_to_stderr(tmp_path):
    spec = {"models": [MODEL], "worlds": ["warehouse", "easel", "hunters"],
            "families": ["mfp", "planning"], "default_concurrency": 6,
            "budgets": {"interaction_steps": 2}, "horizon": 2, "max_consecutive_invalid": 2,
            "calls": {"max_attempts": 4, "timeout": 60}}
    with FakeProvider() as fake:
        # replies of the wrong shape among them: retried, and no warning printed
        fake.reply({**chat_body(calls=[("call_x", "noop", {})]), "choices": "noop"})
        fake.fault("html")
        for i in range(400):
            fake.reply(chat_body(calls=[(f"call_{i}", "noop", {})], model="local-model"))
        spec["adapter_options"] = {MODEL: {"base_url": fake.base_url + "/v1",
                                           "api_key": "not-needed"}}
        (tmp_path / "spec.yaml").write_text(json.dumps(spec))
        done = subprocess.run([sys.executable, "-m", "llm_eval", "run", "spec.yaml", "-o", "run",
                               "--no-progress"], cwd=tmp_path, capture_output=True, text=True,
                              timeout=600)
        served = len(fake.seen)
    assert done.returncode == 0, done.stderr
    assert "6 jobs (6 done)" in done.stdout
    assert served > 12
    assert done.stderr == ""
