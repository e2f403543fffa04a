"""Prompts a provider can cache: whole episodes of the LLM agent through the real adapters.

- OpenAI route (its cache reads only a byte-identical prefix): under history ``full`` every
  request begins with the previous one, except where a phase's tools change; under ``auto``
  the same between cuts, and every request stays under half the window by the adapters'
  token estimate; under ``k`` the window slides and says so. One ``prompt_cache_key`` per
  episode, none with ``cache: off``.
- Anthropic route against a loopback fake that bills cache reads and writes by prefix as the
  API documents: two markers per request, and the priced input of a 200-step full-history
  episode at least 5x lower with caching on than off.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "adapters"))

from cache_billing import AnthropicCache, anthropic_responder, chat_responder  # noqa: E402
from fake_provider import FakeProvider  # noqa: E402

from llm_eval.adapters.tokens import estimate_request  # noqa: E402
from llm_eval.agents.llm import AUTO_SHARE, LLMAgent  # noqa: E402
from llm_eval.calls import CallPolicy  # noqa: E402
from llm_eval.tasks.store import load_task  # noqa: E402
from llm_eval.worldtest import run_episode  # noqa: E402

URL = "https://api.openai.com/v1/chat/completions"
KEY = "fake-test-credential-CACHEKEY0123"


def openai_episode(httpx2_mock, monkeypatch, *, history, rendering="compact", steps=40,
                   cache="auto", window=None):
    """One planning episode on sparks through ``openai-chat`` (the mock answers as the
    stand-in would); the request bodies as sent and the requests as built."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    bodies: list[dict] = []

    def answer(request):
        body = json.loads(request.content)
        bodies.append(body)
        return httpx.Response(200, json=chat_responder("/v1/chat/completions", body)[1])

    httpx2_mock.post(URL).mock(side_effect=answer)
    agent = LLMAgent("openai-chat/gpt-4.1", rendering=rendering, history=history,
                     adapter_options={"cache": cache}, context_window=window,
                     policy=CallPolicy(max_attempts=1, timeout=30.0))
    requests = []
    agent.on_call = lambda record, request: requests.append(request)
    try:
        run_episode(load_task("sparks", "planning"), agent, interaction_steps=steps)
    finally:
        agent.close()
    return agent, bodies, requests


def text_of(message: dict) -> str:
    """A message's text before its images ("" for images alone: a turn whose text went back
    as the tool result)."""
    content = message["content"]
    if isinstance(content, str):
        return content
    return "\n\n".join(p["text"] for p in content if p["type"] == "text")


def breaks(bodies: list[dict]) -> list[int]:
    """The calls whose messages do not begin with the previous call's, byte for byte (the
    previous call's images aside: they are not sent again, after the text they follow)."""
    found = []
    for i in range(1, len(bodies)):
        before, now = bodies[i - 1]["messages"], bodies[i]["messages"]
        same = (json.dumps(now[:len(before) - 1]) == json.dumps(before[:-1])
                and text_of(now[len(before) - 1]).startswith(text_of(before[-1])))
        if not same:
            found.append(i)
    return found


def tool_changes(bodies: list[dict]) -> list[int]:
    return [i for i in range(1, len(bodies)) if bodies[i]["tools"] != bodies[i - 1]["tools"]]


@pytest.mark.parametrize("rendering", ["compact", "compact+png"])
def test_full_history_repeats_every_request_as_the_next_ones_prefix(httpx2_mock, monkeypatch,
                                                                     rendering):
    agent, bodies, _ = openai_episode(httpx2_mock, monkeypatch, history="full",
                                      rendering=rendering)
    assert len(bodies) > 40
    assert breaks(bodies) == []
    # the tools change where the planning phase starts, nowhere else
    assert len(tool_changes(bodies)) == 1
    if rendering == "compact":   # a text rendering: the whole previous list, byte for byte
        for before, now in zip(bodies, bodies[1:]):
            assert now["messages"][:len(before["messages"])] == before["messages"]
    keys = {body["prompt_cache_key"] for body in bodies}
    assert keys == {agent._episode_key} and keys.pop().startswith("llm-eval-")
    assert agent.prefix_stability == "whole"


def test_cache_off_sends_no_prompt_cache_key(httpx2_mock, monkeypatch):
    _, bodies, _ = openai_episode(httpx2_mock, monkeypatch, history="full", steps=3,
                                  cache="off")
    assert bodies and all("prompt_cache_key" not in body for body in bodies)


def test_history_k_slides_and_says_so(httpx2_mock, monkeypatch):
    agent, bodies, _ = openai_episode(httpx2_mock, monkeypatch, history=3)
    assert agent.prefix_stability == "system and tools"
    slid = breaks(bodies)
    assert len(slid) > len(bodies) // 2          # the kept window moves every turn
    assert all(b["messages"][0] == bodies[0]["messages"][0] for b in bodies)   # the system


def test_history_auto_keeps_every_request_in_its_share_and_the_prefix_between_cuts(
        httpx2_mock, monkeypatch):
    window = 12_000
    agent, bodies, requests = openai_episode(httpx2_mock, monkeypatch, history="auto",
                                             steps=120, window=window)
    assert len(requests) > 120
    sizes = [estimate_request(r) for r in requests]
    assert max(sizes) <= window * AUTO_SHARE
    full = sum(len(json.dumps(b["messages"])) for b in bodies[-1:])
    assert full < 4 * window      # the last request holds a fraction of the 120 turns
    cuts = breaks(bodies)
    assert 2 <= len(cuts) < len(bodies) // 10   # a few cuts, not a sliding window
    # a cut drops turns: the request after it is smaller than the one before it
    assert all(sizes[i] < sizes[i - 1] for i in cuts if i not in tool_changes(bodies))
    assert agent.prefix_stability == "between cuts"


@pytest.mark.parametrize("window", [1500, 4096])
def test_history_auto_always_sends_the_current_turn_however_small_the_window(
        httpx2_mock, monkeypatch, window):
    """A window whose half the first turn alone outgrows: the request still holds the current
    turn (the provider, not llm-eval, says when it does not fit), never the system prompt
    alone."""
    _, bodies, requests = openai_episode(httpx2_mock, monkeypatch, history="auto",
                                         rendering="json", steps=8, window=window)
    assert len(requests) > 8
    for request in requests:
        assert [m.role for m in request.messages][-1] == "user"
        assert len(request.messages) >= 2
    assert all(b["messages"][-1]["role"] in ("user", "tool") for b in bodies)


def test_history_auto_needs_a_window_for_a_model_the_map_does_not_know():
    with pytest.raises(ValueError, match="--context-window N"):
        LLMAgent("openai-chat/smollm2-135m", history="auto",
                 adapter_options={"base_url": "http://127.0.0.1:9/v1", "api_key": "none"})


def anthropic_episode(cache: str, steps: int):
    billing = AnthropicCache()
    with FakeProvider(responder=anthropic_responder(billing), keep_bodies=False) as fake:
        agent = LLMAgent("anthropic/claude-sonnet-4-5", history="full",
                         adapter_options={"base_url": fake.base_url, "api_key": KEY,
                                          "cache": cache, "timeout": 30.0},
                         policy=CallPolicy(max_attempts=1, timeout=60.0))
        try:
            run_episode(load_task("sparks", "planning"), agent, interaction_steps=steps)
        finally:
            agent.close()
    return agent, billing


def input_usd(agent) -> float:
    """The priced input of the episode's calls: its cost less its output's."""
    return sum(c["cost"]["parts"]["input"] + c["cost"]["parts"]["cache_read"]
               + c["cost"]["parts"]["cache_write"] for c in agent.calls)


@pytest.mark.slow
def test_caching_cuts_a_200_step_episodes_input_cost_at_least_5x():
    on, billing = anthropic_episode("auto", 200)
    off, unbilled = anthropic_episode("off", 200)
    assert len(on.calls) == len(off.calls) > 200
    assert set(billing.markers) == {2} and set(unbilled.markers) == {0}
    read = sum(c["usage"]["cache_read_tokens"] for c in on.calls)
    total = sum(c["usage"]["input_tokens"] for c in on.calls)
    assert read / total > 0.9
    assert sum(c["usage"]["input_tokens"] for c in off.calls) == total
    ratio = input_usd(off) / input_usd(on)
    assert ratio >= 5, ratio


def test_caching_cuts_a_short_episodes_input_cost():
    """The default tier's version of the test above: 30 steps."""
    on, billing = anthropic_episode("auto", 30)
    off, _ = anthropic_episode("off", 30)
    assert set(billing.markers) == {2}
    assert input_usd(off) / input_usd(on) >= 2.5
