"""The request checker (``sdk_request_types.check``) catches what it is there to catch: a key
the SDK's type does not declare, at any depth, a wrong type, a missing required key, a wrong
literal; and lets through only the extra keys a route names. Each case plants one fault in a
body that passes."""

from __future__ import annotations

import copy

import pytest
from sdk_request_types import Violation, check

MESSAGES = {
    "model": "claude-sonnet-4-5", "max_tokens": 64,
    "system": [{"type": "text", "text": "s", "cache_control": {"type": "ephemeral"}}],
    "messages": [
        {"role": "user", "content": [{"type": "text", "text": "Frame 0."}]},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "t", "signature": "sig"},
            {"type": "tool_use", "id": "toolu_1", "name": "left", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "Frame 1."}]}],
    "tools": [{"name": "left", "description": "d", "input_schema": {
        "type": "object", "properties": {}, "required": [], "additionalProperties": False}}],
    "tool_choice": {"type": "auto", "disable_parallel_tool_use": True},
    "thinking": {"type": "enabled", "budget_tokens": 1024},
}
CHAT = {
    "model": "gpt-5",
    "messages": [
        {"role": "system", "content": "s"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "left", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "Frame 1."}],
    "tools": [{"type": "function", "function": {"name": "left", "parameters": {},
                                                "strict": True}}],
    "tool_choice": "required",
}
RESPONSES = {
    "model": "gpt-5", "store": False, "instructions": "s",
    "input": [
        {"role": "user", "content": [{"type": "input_text", "text": "Frame 0."}]},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"},
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "left",
         "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_1", "output": "Frame 1."}],
    "tools": [{"type": "function", "name": "left", "parameters": {}, "strict": True}],
    "reasoning": {"effort": "high", "summary": "auto"},
}
BODIES = {"messages": MESSAGES, "chat": CHAT, "responses": RESPONSES}


@pytest.mark.parametrize("api", BODIES)
def test_the_planted_bodies_pass_unplanted(api):
    check(api, BODIES[api])


def _set(body: dict, path: tuple, key: str, value) -> dict:
    body = copy.deepcopy(body)
    node = body
    for step in path:
        node = node[step]
    node[key] = value
    return body


PLANTED = [
    # (api, where, key, value, what the error names)
    ("messages", (), "bogus", 1, "bogus: not a field"),
    ("messages", ("messages", 0), "name", "x", "messages[0].name: not a field"),
    ("messages", ("messages", 1, "content", 0), "extra", "x",
     "messages[1].content[0].extra: not a field of ThinkingBlockParam"),
    ("messages", ("messages", 2, "content", 0), "call_id", "x",
     "messages[2].content[0].call_id: not a field of ToolResultBlockParam"),
    ("messages", ("tools", 0), "parameters", {}, "tools[0].parameters: not a field of ToolParam"),
    ("messages", ("tool_choice",), "parallel", False, "tool_choice.parallel: not a field"),
    ("messages", ("system", 0, "cache_control"), "scope", "x",
     "system[0].cache_control.scope: not a field"),
    ("chat", ("messages", 1, "tool_calls", 0), "extra_content", {},
     "messages[1].tool_calls[0].extra_content: not a field"),
    ("chat", ("messages", 1, "tool_calls", 0, "function"), "id", "x",
     "messages[1].tool_calls[0].function.id: not a field"),
    ("chat", ("tools", 0), "strict", True, "tools[0].strict: not a field of "),
    ("responses", ("input", 2), "phase", "commentary", "input[2].phase: not a field"),
    ("responses", ("input", 3), "tool_use_id", "x", "input[3].tool_use_id: not a field"),
    ("responses", ("reasoning",), "budget_tokens", 10, "reasoning.budget_tokens: not a field"),
]


@pytest.mark.parametrize("api,where,key,value,said", PLANTED,
                         ids=[f"{p[0]}:{'.'.join(map(str, p[1]))}.{p[2]}" for p in PLANTED])
def test_a_planted_extra_key_is_caught_where_it_is(api, where, key, value, said):
    with pytest.raises(Violation) as caught:
        check(api, _set(BODIES[api], where, key, value))
    assert said in str(caught.value)


@pytest.mark.parametrize("api,where,key,value,said", [
    ("messages", (), "max_tokens", "64", "max_tokens: expected an integer"),
    ("messages", ("messages", 0), "role", "robot", "messages[0]"),
    ("messages", ("messages", 1, "content", 1), "input", [], "expected an object"),
    ("chat", ("messages", 2), "tool_call_id", None, "messages[2]"),
    ("responses", (), "store", "no", "store: expected a boolean"),
    ("responses", ("input", 1), "type", "thinking", "input[1]"),
])
def test_a_wrong_value_is_caught(api, where, key, value, said):
    with pytest.raises(Violation) as caught:
        check(api, _set(BODIES[api], where, key, value))
    assert said in str(caught.value)


def test_a_missing_required_key_is_caught():
    body = copy.deepcopy(MESSAGES)
    del body["messages"][1]["content"][1]["id"]
    with pytest.raises(Violation, match=r"missing required key 'id'"):
        check("messages", body)


def test_an_allowed_extra_key_passes_only_where_it_is_named():
    body = _set(CHAT, ("messages", 1, "tool_calls", 0), "extra_content",
                {"google": {"thought_signature": "sig"}})
    check("chat", body, extra=frozenset({"messages[].tool_calls[].extra_content"}))
    with pytest.raises(Violation):
        check("chat", _set(body, ("messages", 0), "extra_content", {}),
              extra=frozenset({"messages[].tool_calls[].extra_content"}))
