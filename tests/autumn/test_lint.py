"""``autumn check``'s rules for text the reference runs but not as it reads (llm_eval.autumn.lint):
what each refuses or warns of, what it leaves alone, and that the interpreter itself keeps the
reference's reading (docs/spec/autumn.md 15.1 Q12, Q14) so no frame changes."""

from __future__ import annotations

import pytest

from llm_eval.autumn import Interpreter, check_program
from llm_eval.autumn.colours import MASK_NAME, PALETTE_NAMES
from llm_eval.errors import AutumnCheckError, AutumnCheckWarning
from llm_eval.render.palette import MASK_COLOUR, PALETTE


def _program(value: str, extra: str = "") -> str:
    return f"(program (= GRID_SIZE 4) {extra} (= v (initnext {value} (prev v))))"


def _kinds(text: str) -> list[str]:
    return [type(p).__name__ for p in check_program(text)]


@pytest.mark.parametrize("cond", ['"no"', "0", "-3", "(+ 1 2)", "(- 1)", "(list 1)", "(list)",
                                  "(--> x x)", "left", "clicked", "moveLeft"])
def test_an_if_condition_known_not_to_be_a_bool_is_refused(cond):
    text = _program(f"(if {cond} then 1 else 2)")
    problems = check_program(text)
    assert [type(p) for p in problems] == [AutumnCheckError]
    assert (problems[0].line, problems[0].column) == (1, text.index(cond) + 1)


@pytest.mark.parametrize("cond", ["true", "(== 1 1)", "((left))", "(& left true)", "flag",
                                  "(isList (list))"])
def test_conditions_that_may_be_bools_are_left_alone(cond):
    assert check_program(_program(f"(if {cond} then 1 else 2)", "(= flag true)")) == []


def test_a_program_that_binds_a_builtin_name_may_test_it():
    text = _program("(f true)", "(= f (--> left (if left then 1 else 2)))")
    assert check_program(text) == []


@pytest.mark.parametrize("literal, read_as", [("3.5", "3"), ("2.9", "2"), ("1e5", "1"),
                                               ("0x10", "0"), ("7up", "7"), ("-2.5", "-2")])
def test_a_number_that_reads_as_a_shorter_one_is_refused(literal, read_as):
    problems = check_program(_program(literal))
    assert [type(p) for p in problems] == [AutumnCheckError]
    assert f"is read as {read_as}:" in problems[0].message


@pytest.mark.parametrize("literal", ["7", "-7", "007", "2147483647"])
def test_whole_decimal_numbers_are_left_alone(literal):
    assert check_program(_program(literal)) == []


def test_colours_outside_the_palette_are_warnings_wherever_a_colour_is_given():
    text = ('(program (= GRID_SIZE 4) (= background "navy")'
            ' (object A (: on_ Bool) (Cell 0 0 (if on_ then "Red" else "bleu")))'
            ' (= a (initnext (A true (Position 0 0)) (prev a)))'
            ' (= r (RenderedElem (Position 0 0) "gren")))')
    problems = check_program(text)
    assert all(type(p) is AutumnCheckWarning for p in problems)
    assert [p.message.split("'")[1] for p in problems] == ["navy", "bleu", "gren"]
    assert "did you mean 'blue'" in problems[1].message   # "Red" is red: names are lower-cased


def test_the_colour_table_is_the_renderers_palette():
    assert PALETTE_NAMES == tuple(name for name, _ in PALETTE)
    assert MASK_NAME == MASK_COLOUR


def test_the_interpreter_keeps_the_references_reading():
    """The rules are the checker's: frames stay the reference's (C33, C35)."""
    it = Interpreter()
    it.run_script(_program('(if 0 then (if "no" then 5 else 6) else 7)',
                           "(= GRID_SIZE 3.5)"), seed=1)
    assert it.evaluate_to_string("v") == "(5: N)"
    assert it.evaluate_to_string("GRID_SIZE") == "(3: N)"
