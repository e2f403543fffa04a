"""The prompt-cache benchmark (benchmarks/prompt_cache.py) on short episodes: its figures are
printed, its JSON agrees with its table, caching saves on both routes, and the estimate it
checks against a real run on loopback is within 5%. The 200-step figures are the benchmark's
business (about two minutes), not this test's. Slow tier: it takes about 35 s, and the default
tier already checks the estimate against a real run (tests/sweep/test_estimate.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_prompt_cache_benchmark_prints_what_caching_saves_and_checks_the_estimate():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])}
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "prompt_cache.py"),
                           "--only", "episode", "--only", "fake", "--only", "check",
                           "--steps", "30", "--json"],
                          capture_output=True, text=True, cwd=REPO, env=env, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    figures = json.loads(out[out.index("\n{") + 1:])
    rows = figures["episode"]
    assert {(r["model"], r["reply_tokens"]) for r in rows} == {
        (m, n) for m in ("anthropic/claude-sonnet-4-5", "openai/gpt-4.1") for n in (40, 300)}
    for r in rows:
        assert 0.5 < r["cached_share"] < 1 and 0 < r["usd"] < r["uncached_usd"]
        saved = re.search(rf"^  {re.escape(r['model'])} +{r['reply_tokens']} +{r['calls']} +"
                          rf"{r['input_tokens']:,} .* ([0-9.]+)x$", out, re.MULTILINE)
        assert saved and float(saved.group(1)) == round(r["uncached_usd"] / r["usd"], 1)
    fake = figures["fake"]
    assert fake["on"]["calls"] == fake["off"]["calls"] > 30
    assert fake["ratio"] > 1.5 and f"{fake['ratio']:.2f}x" in out
    check = figures["check"]
    assert check["same_calls"] and check["jobs"] == 3
    assert max(check["input_tokens"], check["output_tokens"], check["usd"]) <= 0.05
