"""The strict action grammar shared by all phases."""

from __future__ import annotations

import pytest

from llm_eval.actions import Action
from llm_eval.errors import ActionSyntaxError
from llm_eval.worldtest import ActionForm, Command, Param, parse_command, world_forms

FORMS = (*world_forms(7), ActionForm("reset"), ActionForm("watch", (Param("T", 0, 4),)))


@pytest.mark.parametrize(("text", "expected"), [
    ("click 3 4", Action.click(3, 4)),
    ("  click   0 6 ", Action.click(0, 6)),
    ("left", Action("left")),
    ("noop", Action("noop")),
    ("reset", Command("reset")),
    ("watch 4", Command("watch", 4)),
    ("watch 0", Command("watch", 0)),
])
def test_valid_actions(text, expected):
    assert parse_command(text, FORMS) == expected


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty action"),
    ("   ", "empty action"),
    ("jump", "unknown action 'jump'"),
    ("Left", "unknown action 'Left'"),
    ("click 7 0", "click X must satisfy 0 <= X <= 6, got 7"),
    ("click 0 -1", "click Y must satisfy 0 <= Y <= 6, got -1"),
    ("click 1", "click takes 2 integer argument(s)"),
    ("click a b", "click X must be an integer, got 'a'"),
    ("left 1", "left takes no arguments, got 1"),
    ("watch 5", "watch T must satisfy 0 <= T <= 4, got 5"),
    ("watch 1.5", "watch T must be an integer"),
    ("choose 1", "choose is not an action of this phase"),
    ("go-to-test", "go-to-test is not an action of this phase"),
])
def test_invalid_actions_say_why_and_list_the_valid_forms(text, message):
    with pytest.raises(ActionSyntaxError) as caught:
        parse_command(text, FORMS)
    assert message in caught.value.message
    if "must" not in message and "takes" not in message:   # the agent is told what is valid
        assert caught.value.message.endswith(
            "valid actions now: click X Y (0 <= X <= 6, 0 <= Y <= 6); left; right; up; down; "
            "noop; reset; watch T (0 <= T <= 4)")


def test_unavailable_keywords_give_the_reason():
    with pytest.raises(ActionSyntaxError) as caught:
        parse_command("declare", FORMS, {"declare": "wait for the third step"})
    assert "declare is not available now: wait for the third step" in caught.value.message


@pytest.mark.parametrize("value", [None, 3, ["left"], b"left"])
def test_non_text_is_invalid(value):
    with pytest.raises(ActionSyntaxError, match="an action must be text"):
        parse_command(value, FORMS)


def test_forms_describe_themselves():
    click = world_forms(7)[0]
    assert click.text() == "click X Y (0 <= X <= 6, 0 <= Y <= 6)"
    assert click.to_dict()["params"][1] == {"name": "Y", "low": 0, "high": 6}
    assert [f.kind for f in world_forms(3)] == ["click", "left", "right", "up", "down", "noop"]
