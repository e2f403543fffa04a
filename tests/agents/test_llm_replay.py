"""The committed SmolLM2-135M transcripts (``transcripts/smollm2-*``, recorded by
``tests/live_local/test_smollm2.py`` with ``LLM_EVAL_RECORD=1``) replay offline, with no model
and no key: the replay adapter answers every request from the recording by its canonical hash,
so the same settings give the same actions, validity and score as the live episode. A change to
the prompts, the renderings or the agent's requests makes this fail loudly (replay mismatch):
re-record then."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adapters import GenerationConfig, create_adapter
from llm_eval.agents.llm import LLMAgent
from llm_eval.tasks.store import load_task
from llm_eval.worldtest import run_episode

TRANSCRIPTS = Path(__file__).resolve().parents[2] / "transcripts"
EPISODES = sorted(TRANSCRIPTS.glob("smollm2-*.episode.json"))


def _task(settings: dict):
    task = load_task(settings["world"], settings["family"])
    if "horizon" in settings:
        public = task.public.model_copy(update={"horizon": settings["horizon"]})
        task = task.model_copy(update={"public": public})
    return task


def test_the_recorded_episodes_are_committed():
    routes = {json.loads(p.read_text())["route"] for p in EPISODES}
    assert {"openai-chat", "litellm"} <= routes


@pytest.mark.parametrize("path", EPISODES, ids=lambda p: p.name.removesuffix(".episode.json"))
def test_a_recorded_smollm2_episode_replays_exactly(path):
    episode = json.loads(path.read_text(encoding="utf-8"))
    settings = episode["settings"]
    recording = TRANSCRIPTS / episode["recording"]
    adapter = create_adapter(f"replay/{recording}")
    agent = LLMAgent(episode["model"], adapter=adapter, rendering=settings["rendering"],
                     prompt_variant=settings["prompt_variant"], history=settings["history"],
                     config=GenerationConfig(**settings["config"]))
    try:
        result = run_episode(_task(settings), agent,
                             interaction_steps=settings["interaction_steps"],
                             max_consecutive_invalid=settings["max_consecutive_invalid"])
    finally:
        agent.close()
    assert [r.action for r in result.records] == episode["actions"]
    assert [r.valid for r in result.records] == episode["valid"]
    assert result.score == episode["score"] and result.raw_reward == episode["raw_reward"]
    assert len(agent.calls) == episode["calls"]
    assert all(c["response"]["model"] == "smollm2-135m" for c in agent.calls)
