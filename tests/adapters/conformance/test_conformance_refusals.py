"""Episodes on the Anthropic routes against a provider that refuses what the real API refuses
(``episodes.Refusing``: a body outside the SDK's request type, a strict tool schema outside
the strict subset, a forced tool with thinking on, answered with the documented error
fixtures): every call is answered, none refused. Issue 29 found that every Anthropic episode
ended on its first call (strict tools with integer bounds) and that LiteLLM with thinking on
forced a tool."""

from __future__ import annotations

import pytest
from episodes import Refusing, Replier, play

from llm_eval.adapters import GenerationConfig

THINKING = GenerationConfig(max_output_tokens=512, thinking_budget=1024)
PLAIN = GenerationConfig(max_output_tokens=512)
ROUTES = {
    "anthropic-thinking": ("anthropic/claude-sonnet-4-5", THINKING, True),
    "anthropic": ("anthropic/claude-sonnet-4-5", PLAIN, False),
    "litellm-anthropic-thinking": ("litellm/anthropic/claude-sonnet-4-5", THINKING, True),
}


@pytest.mark.parametrize("name", ROUTES)
def test_no_call_is_refused(name):
    spec, config, thinking = ROUTES[name]
    provider = Refusing(Replier("messages", thinking=thinking))
    try:
        recording = play(spec, provider, suffix="", turns=3, config=config)
    except Exception as exc:   # noqa: BLE001 - the refusal is the finding
        pytest.fail(f"{name}: the episode ended on a refusal: {provider.refused or exc}")
    assert provider.refused == []
    assert len(recording.actions) == 3


def test_the_provider_refuses_what_the_api_refuses():
    """So a pass above means the requests were acceptable: each refusal is shown once."""
    provider = Refusing(Replier("messages"))
    base = {"model": "claude-sonnet-4-5", "max_tokens": 64,
            "messages": [{"role": "user", "content": "Frame 0."}]}
    bounded = {"name": "watch", "strict": True, "input_schema": {
        "type": "object", "properties": {"t": {"type": "integer", "minimum": 0}},
        "required": ["t"], "additionalProperties": False}}
    cases = [
        dict(base, bogus=1),
        dict(base, tools=[bounded]),
        dict(base, tools=[dict(bounded, input_schema={"type": "object", "properties": {},
                                                 "additionalProperties": False})],
             thinking={"type": "enabled", "budget_tokens": 1024},
             tool_choice={"type": "any"}),
        dict(base, thinking={"type": "enabled", "budget_tokens": 1024}),
    ]
    statuses = [provider("/v1/messages", body)[0] for body in cases]
    assert statuses == [400, 400, 400, 400]
    assert "bogus" in provider.refused[0]
    assert "maximum, minimum are not supported" in provider.refused[1]
    assert provider.refused[2].startswith("Thinking may not be enabled")
    assert provider.refused[3].startswith("`max_tokens` must be greater than")
