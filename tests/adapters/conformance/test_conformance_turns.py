"""The multi-turn rules (``turn_rules``) on request sequences recorded from a few turns of a
real episode: the LLM agent, each route's adapter and SDK, and a loopback provider scripted to
answer in the provider's documented shape (``episodes``). Every request of each sequence also
fits the provider SDK's request type. Then each rule is shown to catch a planted violation."""

from __future__ import annotations

import copy
import functools
import json

import pytest
from episodes import Replier, play
from sdk_request_types import check
from turn_rules import RULES

from llm_eval.adapters import GenerationConfig

PLAIN = GenerationConfig(max_output_tokens=512)
REASONING = GenerationConfig(max_output_tokens=512, reasoning_effort="high")
THINKING = GenerationConfig(max_output_tokens=512, thinking_budget=1024)
EPISODES = {
    # name: (model, api on the wire, base URL suffix, config, Replier options)
    "openai-reasoning": ("openai/gpt-5", "responses", "/v1", REASONING, {"thinking": True}),
    "openai-chat": ("openai-chat/gpt-5", "chat", "/v1", REASONING, {}),
    "anthropic-thinking": ("anthropic/claude-sonnet-4-5", "messages", "", THINKING,
                           {"thinking": True}),
    "anthropic": ("anthropic/claude-sonnet-4-5", "messages", "", PLAIN, {}),
    "litellm-anthropic-thinking": ("litellm/anthropic/claude-sonnet-4-5", "messages", "",
                                   THINKING, {"thinking": True}),
    "litellm-openai": ("litellm/openai/gpt-5", "chat", "/v1", REASONING, {}),
    # Gemini's OpenAI-compatible endpoint: empty call ids, a thought signature on each call
    "gemini-openai-chat": ("openai-chat/gemini-2.5-flash", "chat", "/v1", PLAIN,
                           {"gemini": True}),
}
# Gemini's endpoint takes its own field on a tool call; nothing else may be added
GEMINI_EXTRA = frozenset({"messages[].tool_calls[].extra_content"})
TURNS = 3


@functools.cache
def recorded(name: str):
    spec, api, suffix, config, options = EPISODES[name]
    recording = play(spec, Replier(api, **options), suffix=suffix, turns=TURNS, config=config)
    assert len(recording.bodies) == len(recording.replies) == TURNS, recording.actions
    return api, recording


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("name", EPISODES)
def test_the_multi_turn_rules_hold(name, rule):
    api, recording = recorded(name)
    problems = RULES[rule](api, recording.bodies, recording.replies)
    assert not problems, f"{name}: {rule}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("name", EPISODES)
def test_every_recorded_request_fits_the_providers_type(name):
    api, recording = recorded(name)
    for body in recording.bodies:
        check(api, body, extra=GEMINI_EXTRA if name.startswith("gemini") else frozenset())


def test_the_recordings_hold_what_the_rules_are_about():
    """Parallel calls, thinking blocks and reasoning items were sent back, so a pass is one."""
    api, rec = recorded("anthropic-thinking")
    assistant = [m for m in rec.bodies[2]["messages"] if m["role"] == "assistant"]
    assert [b["type"] for b in assistant[0]["content"]] == ["thinking", "redacted_thinking",
                                                            "tool_use"]
    assert [b["type"] for b in assistant[1]["content"]] == ["thinking", "tool_use", "tool_use"]
    assert '"type": "image"' in json.dumps(rec.bodies[-1]), "the frame went as a PNG too"
    api, rec = recorded("openai-reasoning")
    assert sum(i.get("type") == "reasoning" for i in rec.bodies[2]["input"]) == 2
    assert sum(i.get("type") == "function_call_output" for i in rec.bodies[2]["input"]) == 3


# --- each rule catches a planted violation ---------------------------------------------------

def _planted(name: str, plant) -> tuple[str, list, list]:
    api, rec = recorded(name)
    bodies, replies = copy.deepcopy(rec.bodies), copy.deepcopy(rec.replies)
    plant(bodies, replies)
    return api, bodies, replies


def _assistant(body: dict, which: int = -1) -> dict:
    return [m for m in body["messages"] if m["role"] == "assistant"][which]


def _drop_tool_result(bodies, replies):
    last = bodies[-1]["messages"][-1]
    last["content"] = [b for b in last["content"] if b["type"] != "tool_result"]


def _thinking_edited(bodies, replies):
    _assistant(bodies[-1])["content"][0]["thinking"] += " (edited)"


def _thinking_after_call(bodies, replies):
    turn = _assistant(bodies[-1])
    turn["content"] = turn["content"][1:] + turn["content"][:1]


def _forced_with_thinking(bodies, replies):
    bodies[0]["tool_choice"] = {"type": "any"}


def _empty_result_id(bodies, replies):
    tool = next(m for m in bodies[-1]["messages"] if m["role"] == "tool")
    tool["tool_call_id"] = ""


def _fc_without_id(bodies, replies):
    item = next(i for i in bodies[-1]["input"] if i.get("type") == "function_call")
    item.pop("id", None)


def _message_without_phase(bodies, replies):
    item = next(i for i in bodies[-1]["input"]
                if i.get("type") == "message" or i.get("role") == "assistant")
    item.pop("phase", None)


def _budget_over_max_tokens(bodies, replies):
    bodies[0]["max_tokens"] = bodies[0]["thinking"]["budget_tokens"]


def _signature_dropped(bodies, replies):
    _assistant(bodies[-1])["tool_calls"][0].pop("extra_content", None)


def _result_not_right_after(bodies, replies):
    messages = bodies[-1]["messages"]
    at = next(i for i, m in enumerate(messages) if m["role"] == "tool")
    messages.insert(at, {"role": "user", "content": "between"})


PLANTS = [
    ("anthropic-thinking", "calls_answered", _drop_tool_result),
    ("anthropic-thinking", "thinking_replayed", _thinking_edited),
    ("anthropic-thinking", "thinking_replayed", _thinking_after_call),
    ("anthropic-thinking", "no_forced_tool_with_thinking", _forced_with_thinking),
    ("anthropic-thinking", "thinking_within_max_tokens", _budget_over_max_tokens),
    ("openai-chat", "no_empty_ids", _empty_result_id),
    ("openai-chat", "calls_answered", _result_not_right_after),
    ("openai-reasoning", "reasoning_paired", _fc_without_id),
    ("openai-reasoning", "reasoning_paired", _message_without_phase),
    ("gemini-openai-chat", "provider_fields_kept", _signature_dropped),
]


@pytest.mark.parametrize("name,rule,plant", PLANTS,
                         ids=[f"{r}-{p.__name__.strip('_')}" for _, r, p in PLANTS])
def test_each_rule_catches_a_planted_violation(name, rule, plant):
    api, bodies, replies = _planted(name, plant)
    assert RULES[rule](api, bodies, replies)
