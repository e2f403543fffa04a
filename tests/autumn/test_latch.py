"""The latch proof (autumn/latch.py): a modified program is proven to run as its original
until the trigger holds only when, with the latch read as false, it is the original node for
node; every rule has an input built to break it."""

from __future__ import annotations

import pytest

from llm_eval.autumn.interpreter import STDLIB
from llm_eval.autumn.latch import prove_latched

ORIGINAL = """(program
  (= GRID_SIZE 8)
  (object Dot (: hot Bool) (Cell 0 0 "red"))
  (= near (--> (d p) (== (.. d origin) p)))
  (= clock (initnext 0 (+ (prev clock) 1)))
  (= dots (initnext (list (Dot false (Position 1 1)) (Dot true (Position 3 3))) (prev dots)))
  (= kept (initnext 0 (prev kept)))
  (on left (= dots (map (--> d (moveLeft d)) dots)))
  (on right (= kept (length (filter (--> d (near d (Position 3 3))) dots))))
  (on up (= dots (if (& (> clock 2) (< kept 9)) then (map (--> d (moveUp d)) dots) else dots)))
  (on down (= kept (+ kept 1))))"""

LATCH = """
  (= changed false)
  (on SpecialConditionTriggered (= changed true))"""


def _modified(*edits: tuple[str, str], latch: str = LATCH) -> str:
    text = ORIGINAL
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    return text[:-1] + latch + ")"


def _prove(modified: str, trigger: str = "> clock 5", original: str = ORIGINAL):
    return prove_latched(original, modified, trigger, stdlib=STDLIB)


GUARDED = [
    # (if changed then NEW else OLD)
    ("(+ kept 1)", "(+ kept (if changed then 2 else 1))"),
    # (& changed X) as an if's condition
    ("(if (& (> clock 2) (< kept 9)) then",
     "(if (& changed (> clock 9)) then (map (--> d (moveDown d)) dots) "
     "else (if (& (> clock 2) (< kept 9)) then"),
    # (& (! changed) X) as a filter's predicate, X a call of a lambda that returns a Bool
    ("(filter (--> d (near d (Position 3 3))) dots)",
     "(filter (--> d (& (! changed) (near d (Position 3 3)))) dots)"),
    # (| changed X) as an operand of &
    ("(< kept 9)", "(| changed (< kept 9))"),
    # (! changed) as a value: true
    ("(+ kept 1)", "(+ kept (if (! changed) then 1 else 2))"),
    # a factor of 1 a latched if folds into
    ("(+ kept 1)", "(+ kept (* (if changed then 3 else 1) 1))"),
]


@pytest.mark.parametrize("edit", GUARDED,
                         ids=["if", "and-if", "filter", "or-operand", "not", "times-one"])
def test_a_guarded_change_is_proven(edit):
    if edit[0] == "(if (& (> clock 2) (< kept 9)) then":
        text = _modified(edit, ("else dots)))", "else dots))))"))
    else:
        text = _modified(edit)
    proof = _prove(text)
    assert proof.proven, proof.reason
    assert proof.latch == "changed"


def test_the_original_itself_with_a_latch_is_proven():
    assert _prove(_modified()).proven


@pytest.mark.parametrize("edits,trigger,why", [
    # an unguarded change
    ([("(+ kept 1)", "(+ kept 2)")], "> clock 5", "differs"),
    # the latch set somewhere else too
    ([("(on down", "(on clicked (= changed true))\n  (on down")], "> clock 5", "bound"),
    # a parameter named like the latch would shadow it (dynamic scoping)
    ([("(--> d (moveLeft d))", "(--> changed (moveLeft changed))")], "> clock 5", "bound"),
    # the trigger's name read by the program
    ([("(+ kept 1)", "(+ kept (if SpecialConditionTriggered then 2 else 1))")],
     "> clock 5", "SpecialConditionTriggered is read"),
    # the program setting the trigger's name would set the latch without the trigger
    ([("(on down", "(on clicked (= SpecialConditionTriggered true))\n  (on down")],
     "> clock 5", "SpecialConditionTriggered is bound"),
    # a trigger that draws (or calls anything)
    ([], "> (uniformChoice (list 1 2)) 1", "effects"),
    # a trigger that reads a name holding a function
    ([], "near", "may hold a function"),
    # (& (! changed) X) where X's value is used as it is and X is not a Bool: T(X) is not X
    ([("(+ kept 1)", "(+ kept (& (! changed) 1))")], "> clock 5", "differs"),
    # (& X changed): X is evaluated, then ignored: not rewritten
    ([("(< kept 9)", "(& (< kept 9) changed)")], "> clock 5", "differs"),
    # a literal factor of 1 is not the original's bare operand
    ([("(+ kept 1)", "(+ kept (* 1 1))")], "> clock 5", "differs"),
    # prev of the latch passes its name
    ([("(+ kept 1)", "(+ kept (if (prev changed) then 2 else 1))")], "> clock 5", "differs"),
])
def test_what_the_rewrites_do_not_cover_is_not_proven(edits, trigger, why):
    proof = _prove(_modified(*edits), trigger)
    assert not proof.proven
    assert why in proof.reason


def test_a_predicate_that_may_be_a_function_keeps_its_t():
    """``(& (! changed) (.. d hot))`` calls the field's value if it is a function; the
    original's ``(.. d hot)`` as filter's predicate would not: T(X) is not X there. A call of
    a lambda whose body is a comparison can never be a function: T(X) is X."""
    field = ORIGINAL.replace("(near d (Position 3 3))", "(.. d hot)")
    guarded = _modified(("(near d (Position 3 3))", "(& (! changed) (.. d hot))"))
    proof = _prove(guarded, original=field)
    assert not proof.proven and "differs" in proof.reason
    called = _modified(("(near d (Position 3 3))", "(& (! changed) (near d (Position 3 3)))"))
    assert _prove(called).proven
    # a call of a lambda whose body is a field may give a function too
    picking = field.replace("(= clock", "(= pick (--> d (.. d hot)))\n  (= clock", 1)
    picked = picking.replace("(.. d hot)) dots", "(pick d)) dots")
    guarded = _modified(latch=LATCH).replace(ORIGINAL[:-1], picked[:-1]) \
        .replace("(pick d)) dots", "(& (! changed) (pick d))) dots")
    assert "(& (! changed) (pick d))" in guarded
    proof = _prove(guarded, original=picked)
    assert not proof.proven and "differs" in proof.reason


def test_a_rebound_filter_is_no_predicate():
    edit = ("(filter (--> d (near d (Position 3 3))) dots)",
            "(filter (--> d (& (! changed) (near d (Position 3 3)))) dots)")
    rebound = "(= filter (--> (f xs) xs))"
    original = ORIGINAL[:-1] + rebound + ")"
    modified = _modified(edit, latch=LATCH + rebound)
    assert _prove(_modified(edit)).proven
    proof = _prove(modified, original=original)
    assert not proof.proven and "differs" in proof.reason


def test_the_latch_must_be_one_init_and_one_on_clause():
    assert "not one" in _prove(_modified(latch="\n  (= changed false)")).reason
    assert "not one" in _prove(_modified(
        latch="\n  (on SpecialConditionTriggered (= changed true))")).reason
    assert "not one" in _prove(_modified(latch=LATCH + LATCH)).reason


def test_an_extra_statement_or_the_latch_name_in_the_original_is_not_proven():
    extra = _modified(latch=LATCH + "\n  (= spare 1)")
    assert "statements" in _prove(extra).reason
    original = ORIGINAL.replace("(= kept", "(= changed (initnext 0 0))\n  (= kept", 1)
    assert "latch name" in _prove(_modified(), original=original).reason


def test_a_program_that_does_not_parse_is_not_proven():
    proof = _prove(_modified()[:-1])
    assert not proof.proven and "parse" in proof.reason
