"""Every request each route sends, checked against the provider SDK's own request type with
extra keys forbidden (``sdk_request_types``): each tool mode, reasoning or thinking on and off,
cache markers on and off, a PNG, and a second turn carrying the first reply back (issue 29,
item 3). LiteLLM's routes are checked on the body LiteLLM itself puts on the wire, against the
type of the provider it talks to."""

from __future__ import annotations

import json

import pytest
from scenarios import conversation, matrix
from sdk_request_types import check, pydantic_check
from wire_bodies import ROUTES

CASES = matrix()


def _id(case: tuple) -> str:
    route, mode, thinking, cache = case
    return f"{route}-{mode}-{'thinking' if thinking else 'plain'}-cache_{cache}"


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_each_request_fits_the_providers_request_type(case):
    route, mode, thinking, cache = case
    talk = conversation(*case)
    api = ROUTES[route].api
    for turn, body in enumerate(talk.bodies):
        check(api, body)
        pydantic_check(api, body)
        _covers(api, body, mode, thinking, cache, second=turn == 1)


def _covers(api: str, body: dict, mode: str, thinking: bool, cache: str, *,
            second: bool) -> None:
    """The body holds what its case is about, so a pass means that was checked."""
    text = json.dumps(body)
    assert ("tools" in body) == (mode == "tools")
    assert "image" in text, "the PNG was sent"
    if api == "responses":
        assert ("reasoning" in body) == thinking
        if second:
            kinds = [i.get("type", "message") for i in body["input"]]
            assert ("function_call_output" in kinds) == (mode == "tools")
            assert ("reasoning" in kinds) == thinking
    elif api == "chat":
        assert ("reasoning_effort" in body) == thinking
        if second and mode == "tools":
            assert any(m["role"] == "tool" for m in body["messages"])
    else:
        assert ("thinking" in body) == thinking
        assert ("cache_control" in text) == (cache == "auto")
        if second:
            blocks = [b["type"] for m in body["messages"] if isinstance(m["content"], list)
                      for b in m["content"]]
            assert ("tool_result" in blocks) == (mode == "tools")
            assert ("thinking" in blocks) == thinking


BUDGETS = [
    # (max_output_tokens, thinking_budget, reasoning_effort)
    (512, 1024, None), (4096, 4096, None), (None, 2048, None), (1024, None, "high"),
    (4096, None, "low"), (2048, 512, None),
]


@pytest.mark.parametrize("route", [r for r in ROUTES if ROUTES[r].api == "messages"])
@pytest.mark.parametrize("knobs", BUDGETS, ids=[f"max{m}-budget{b}-effort{e}"
                                                for m, b, e in BUDGETS])
def test_a_thinking_budget_stays_below_max_tokens(route, knobs):
    """Anthropic: "`max_tokens` must be greater than `thinking.budget_tokens`" (thinking counts
    against ``max_tokens``), and a budget is at least 1,024. A budget the API cannot take may
    instead be refused before any call, by an error that names ``thinking_budget``."""
    from scenarios import first_reply
    from turn_rules import thinking_within_max_tokens
    from wire_bodies import send

    from llm_eval.adapters import GenerationConfig, Message, Request

    most, budget, effort = knobs
    config = GenerationConfig(max_output_tokens=most, thinking_budget=budget,
                              reasoning_effort=effort)
    request = Request(messages=(Message.user("Frame 0."),), config=config)
    bodies, (result,) = send(ROUTES[route], [request], [first_reply("messages", False, True)])
    if not bodies and isinstance(result, Exception):
        assert "thinking_budget" in str(result), repr(result)
        return
    assert not thinking_within_max_tokens("messages", bodies, []), bodies[0]
