"""Action forms as strict tools, tool calls and the text format back to action texts; every
unusable reply an InvalidAction, never an exception."""

from __future__ import annotations

import pytest
from adapter_sample import FORMS

from llm_eval.adapters import (
    InvalidAction,
    Response,
    TextPart,
    ToolCall,
    ToolResultPart,
    action_tools,
    next_turn_parts,
    read_reply,
    read_text_reply,
    read_tool_reply,
    text_format_instructions,
)
from llm_eval.worldtest.commands import ActionForm, Param, parse_command, world_forms


def reply(*calls: tuple[str, dict | None], text: str = "") -> Response:
    return Response(provider="p", model_requested="m", model="m", text=text,
                    tool_calls=tuple(ToolCall(id=f"c{i}", name=n, arguments=a,
                                              raw_arguments="" if a is not None else "{oops")
                                     for i, (n, a) in enumerate(calls)))


def test_tools_from_phase_forms_are_strict_schemas():
    forms = [*world_forms(7), ActionForm("watch", (Param("T", 0, 9),), help="show frame T"),
             ActionForm("go-to-test")]
    tools = {t.name: t for t in action_tools(forms)}
    assert list(tools) == ["click", "left", "right", "up", "down", "noop", "watch", "go_to_test"]
    click = tools["click"].parameters
    assert click["required"] == ["x", "y"] and click["additionalProperties"] is False
    assert click["properties"]["x"]["minimum"] == 0 and click["properties"]["x"]["maximum"] == 6
    assert tools["go_to_test"].parameters == {"type": "object", "properties": {},
                                              "required": [], "additionalProperties": False}
    assert tools["watch"].description == "show frame T"


@pytest.mark.parametrize("name,args,action", [
    ("click", {"x": 3, "y": 4}, "click 3 4"),
    ("go_to_test", {}, "go-to-test"),
    ("left", {}, "left"),
])
def test_tool_calls_become_action_texts(name, args, action):
    chosen = read_tool_reply(reply((name, args)), FORMS)
    assert chosen.action == action and chosen.call_id == "c0" and chosen.ignored_calls == ()


def test_action_texts_parse_in_the_phase_grammar():
    forms = [*world_forms(7), ActionForm("go-to-test")]
    chosen = read_tool_reply(reply(("click", {"x": 6, "y": 0})), forms)
    assert str(parse_command(chosen.action, forms)) == "click 6 0"


@pytest.mark.parametrize("calls,message", [
    ((), "no action"),
    ((("jump", {}),), "unknown tool 'jump'"),
    ((("click", None),), "not a JSON object"),
    ((("click", {"x": 1}),), "expected arguments"),
    ((("click", {"x": 1, "y": 2, "z": 3}),), "expected arguments"),
    ((("click", {"x": "1", "y": 2}),), "must be an integer"),
    ((("click", {"x": True, "y": 2}),), "must be an integer"),
    ((("click", {"x": 1, "y": 7}),), "outside 0..6"),
    ((("left", {"x": 1}),), "expected arguments"),
])
def test_unusable_tool_replies(calls, message):
    result = read_tool_reply(reply(*calls), FORMS)
    assert isinstance(result, InvalidAction) and message in result.message
    assert result.call_ids == tuple(f"c{i}" for i in range(len(calls)))


def test_parallel_calls_first_or_reject():
    r = reply(("left", {}), ("noop", {}), ("reset", {}))
    chosen = read_tool_reply(r, FORMS)
    assert chosen.action == "left"
    assert [i for i, _ in chosen.ignored_calls] == ["c1", "c2"]
    assert "one action per turn" in chosen.ignored_calls[0][1]
    rejected = read_tool_reply(r, FORMS, extra_calls="reject")
    assert isinstance(rejected, InvalidAction) and rejected.call_ids == ("c0", "c1", "c2")


@pytest.mark.parametrize("text,action", [
    ("I will click the ball.\nACTION: click 3 4", "click 3 4"),
    ("ACTION: go-to-test\n\n", "go-to-test"),
    ("ACTION:   left  ", "left"),
])
def test_text_format(text, action):
    assert read_text_reply(text, FORMS).action == action
    assert read_reply(reply(text=text), FORMS, "text").action == action


@pytest.mark.parametrize("text,message", [
    ("", "no action line"),
    ("ACTION: left\nthen I will see", "no action line"),
    ("action: left", "no action line"),
    ("ACTION:", "empty action"),
    ("ACTION: click 3", "takes 2 argument"),
    ("ACTION: click three 4", "must be integers"),
    ("ACTION: click 3 99", "outside"),
    ("ACTION: fly", "unknown action 'fly'"),
])
def test_unusable_text_replies(text, message):
    result = read_text_reply(text, FORMS)
    assert isinstance(result, InvalidAction) and message in result.message


def test_text_instructions_name_the_forms():
    text = text_format_instructions(FORMS)
    assert "ACTION: click X Y" in text and "go-to-test" in text


def test_next_turn_answers_every_call():
    chosen = read_tool_reply(reply(("left", {}), ("noop", {})), FORMS)
    parts = next_turn_parts(chosen, "frame 1")
    assert parts[0] == ToolResultPart(call_id="c0", text="frame 1")
    assert parts[1].call_id == "c1" and parts[1].is_error
    invalid = read_tool_reply(reply(("jump", {})), FORMS)
    parts = next_turn_parts(invalid, "frame 1")
    assert parts[0].is_error and parts[0].text.startswith("invalid action: unknown tool")
    assert parts[1] == TextPart(text="frame 1")
    text_invalid = read_text_reply("hmm", FORMS)
    (only,) = next_turn_parts(text_invalid, "frame 1")
    assert only.text.startswith("invalid action: no action line") and "frame 1" in only.text
    assert next_turn_parts(read_text_reply("ACTION: left", FORMS), "f") == (TextPart(text="f"),)
