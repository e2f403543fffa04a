"""Live provider tier: a short real episode per provider, run only when its API key is set.

Never part of an offline run: each test skips unless its key variable is present. Models can
be chosen with LLM_EVAL_LIVE_OPENAI_MODEL / LLM_EVAL_LIVE_ANTHROPIC_MODEL /
LLM_EVAL_LIVE_LITELLM_MODEL. Run: ``OPENAI_API_KEY=... python -m pytest tests/live -v``.
"""

from __future__ import annotations

import json
import os

import pytest

from llm_eval.adapters import GenerationConfig
from llm_eval.agents import make_agent
from llm_eval.tasks import load_task
from llm_eval.worldtest import run_episode

pytestmark = pytest.mark.live

LIVE = [
    ("openai", "OPENAI_API_KEY", "LLM_EVAL_LIVE_OPENAI_MODEL", "gpt-4.1-mini"),
    ("openai-chat", "OPENAI_API_KEY", "LLM_EVAL_LIVE_OPENAI_MODEL", "gpt-4.1-mini"),
    ("anthropic", "ANTHROPIC_API_KEY", "LLM_EVAL_LIVE_ANTHROPIC_MODEL", "claude-haiku-4-5"),
    ("litellm", "GEMINI_API_KEY", "LLM_EVAL_LIVE_LITELLM_MODEL", "gemini/gemini-2.5-flash"),
]


@pytest.mark.parametrize("provider,key,model_var,default", LIVE, ids=[p for p, *_ in LIVE])
def test_a_short_live_episode(provider, key, model_var, default, tmp_path):
    secret = os.environ.get(key)
    if not secret:
        pytest.skip(f"{key} is not set: the live tier calls the real provider")
    model = f"{provider}/{os.environ.get(model_var, default)}"
    task = load_task("warehouse", "planning")
    agent = make_agent(model, task, config=GenerationConfig(max_output_tokens=512))
    try:
        result = run_episode(task, agent, interaction_steps=3)
    finally:
        agent.close()
    assert result.score in (0.0, 1.0)
    assert agent.calls and all(c["usage"]["input_tokens"] > 0 for c in agent.calls)
    written = tmp_path / "episode.json"
    written.write_text(json.dumps({"result": result.to_dict(), "calls": agent.calls},
                                  default=str))
    assert secret not in written.read_text()
