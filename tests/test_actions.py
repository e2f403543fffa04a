"""The strict text form of world actions: parsing, canonical text, and applying to an interpreter."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llm_eval.actions import (
    ACTION_KINDS,
    Action,
    apply_action,
    iter_action_lines,
    parse_action,
    parse_action_lines,
)
from llm_eval.errors import ActionSyntaxError, LlmEvalError

INT32 = st.integers(min_value=-(2**31), max_value=2**31 - 1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("left", Action("left")),
        ("right", Action("right")),
        ("up", Action("up")),
        ("down", Action("down")),
        ("noop", Action("noop")),
        ("click 3 4", Action("click", 3, 4)),
        ("click -1 20", Action("click", -1, 20)),
        ("click 007 0", Action("click", 7, 0)),
        ("  click\t2   5  ", Action("click", 2, 5)),
        ("left\n", Action("left")),
    ],
)
def test_parse_valid_actions(text: str, expected: Action) -> None:
    assert parse_action(text) == expected


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty action"),
        ("   ", "empty action"),
        ("jump", "unknown action 'jump'"),
        ("LEFT", "unknown action 'LEFT'"),
        ("Left", "unknown action"),
        ("left 1", "left takes no arguments"),
        ("noop now", "noop takes no arguments"),
        ("click", "two integers"),
        ("click 1", "two integers"),
        ("click 1 2 3", "two integers"),
        ("click a 2", "X must be an integer"),
        ("click 1 2.5", "Y must be an integer"),
        ("click +1 2", "X must be an integer"),
        ("click 0x10 2", "X must be an integer"),
        ("click 2147483648 0", "outside the 32-bit"),
        ("click 0 -2147483649", "outside the 32-bit"),
        ("left\nright", "left takes no arguments"),
    ],
)
def test_parse_rejects_bad_text(text: str, fragment: str) -> None:
    with pytest.raises(ActionSyntaxError) as info:
        parse_action(text)
    assert fragment in str(info.value)
    assert info.value.line is None
    assert isinstance(info.value, LlmEvalError)


def test_click_coordinates_at_int32_limits() -> None:
    assert parse_action("click -2147483648 2147483647") == Action("click", -(2**31), 2**31 - 1)


def test_str_is_canonical_text() -> None:
    assert str(Action("click", -2, 9)) == "click -2 9"
    assert str(Action.click(1, 2)) == "click 1 2"
    assert [str(Action(kind)) for kind in ACTION_KINDS if kind != "click"] == [
        "left", "right", "up", "down", "noop"]


def test_action_is_frozen_and_validated() -> None:
    action = Action("left")
    with pytest.raises(AttributeError):
        action.kind = "right"  # type: ignore[misc]
    with pytest.raises(ValueError):
        Action("jump")
    with pytest.raises(ValueError):
        Action("click", 1, None)
    with pytest.raises(ValueError):
        Action("left", 1, 2)
    assert len({Action("left"), Action("left"), Action.click(1, 2)}) == 2


def test_parse_lines_skips_blank_lines_and_comments() -> None:
    text = "# a plan\n\nleft\n   \nclick 1 2   # paint it\n#noop\nnoop#trailing\n  up  \n"
    assert parse_action_lines(text) == [
        Action("left"), Action("click", 1, 2), Action("noop"), Action("up")]


def test_parse_lines_of_nothing_is_empty() -> None:
    assert parse_action_lines("") == []
    assert parse_action_lines("# only a comment\n\n") == []


def test_parse_lines_error_names_source_and_line() -> None:
    with pytest.raises(ActionSyntaxError) as info:
        parse_action_lines("left\n# ok\n\nclick 1\nright\n", source="plan.txt")
    error = info.value
    assert error.line == 4
    assert error.text == "click 1"
    assert str(error).startswith("plan.txt:4: ")


def test_parse_lines_default_source() -> None:
    with pytest.raises(ActionSyntaxError) as info:
        parse_action_lines("hop")
    assert str(info.value).startswith("<actions>:1: ")


def test_iter_action_lines_numbers_lines_and_is_lazy() -> None:
    lines = iter(["left\n", "\n", "down\n", "bogus\n"])
    actions = iter_action_lines(lines, "<stdin>")
    assert next(actions) == (1, Action("left"))
    assert next(actions) == (3, Action("down"))
    with pytest.raises(ActionSyntaxError) as info:
        next(actions)
    assert info.value.line == 4


class RecordingInterpreter:
    """Stands in for the interpreter: records which input methods were called."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def click(self, x: int, y: int) -> None:
        self.calls.append(("click", x, y))

    def left(self) -> None:
        self.calls.append(("left",))

    def right(self) -> None:
        self.calls.append(("right",))

    def up(self) -> None:
        self.calls.append(("up",))

    def down(self) -> None:
        self.calls.append(("down",))

    def step(self) -> None:  # apply_action must never step
        raise AssertionError("apply_action stepped the interpreter")


@pytest.mark.parametrize(
    ("action", "calls"),
    [
        (Action("click", -3, 40), [("click", -3, 40)]),
        (Action("left"), [("left",)]),
        (Action("right"), [("right",)]),
        (Action("up"), [("up",)]),
        (Action("down"), [("down",)]),
        (Action("noop"), []),
    ],
)
def test_apply_action_sets_input_only(action: Action, calls: list[tuple]) -> None:
    interpreter = RecordingInterpreter()
    apply_action(interpreter, action)
    assert interpreter.calls == calls


actions_strategy = st.one_of(
    st.sampled_from([Action(kind) for kind in ACTION_KINDS if kind != "click"]),
    st.builds(Action.click, INT32, INT32),
)


@given(actions_strategy)
def test_canonical_text_round_trips(action: Action) -> None:
    assert parse_action(str(action)) == action


@given(st.lists(actions_strategy, max_size=20))
def test_action_file_round_trips(actions: list[Action]) -> None:
    text = "".join(f"{action}  # step {i}\n\n" for i, action in enumerate(actions))
    assert parse_action_lines(text) == actions


@given(st.text(max_size=40))
def test_random_text_parses_or_raises_action_syntax_error(text: str) -> None:
    try:
        action = parse_action(text)
    except ActionSyntaxError:
        return
    assert action.kind in ACTION_KINDS
    assert parse_action(str(action)) == action


def test_parsed_texts_are_kept_and_bad_ones_refused_each_time(monkeypatch) -> None:
    """Rollouts parse the same texts at every step: a text parsed before gives the same
    (immutable) action; a bad text is never kept, and the store stays bounded."""
    import llm_eval.actions as actions_module

    monkeypatch.setattr(actions_module, "_PARSED", {})
    monkeypatch.setattr(actions_module, "_PARSED_MAX", 8)
    assert parse_action("click 3 4") is parse_action("click 3 4") == Action.click(3, 4)
    for _ in range(2):
        with pytest.raises(ActionSyntaxError):
            parse_action("click 3")
    for x in range(20):
        assert parse_action(f"click {x} 1") == Action.click(x, 1)
        assert len(actions_module._PARSED) <= 8
    assert "click 3" not in actions_module._PARSED
