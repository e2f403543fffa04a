"""Positions of plain numbers are compared without recursion (``Runtime.eq``, the native
``in``). Both must decide exactly what the field-by-field definition (docs/spec/autumn.md 5.3) decides,
on values built to tell them apart: coordinates that are Bools (``1`` equals ``true`` in
Autumn, by value), strings, nested lists, objects and numbers mixed in one list."""

from __future__ import annotations

import random

import pytest

from llm_eval.autumn import Interpreter
from llm_eval.autumn.values import AList, Obj, Pos

PROGRAM = """(program (= GRID_SIZE 4)
  (object Dot (: n Number) (Cell 0 0 "red"))
  (= d1 (Dot 1 (Position 1 1))) (= d2 (Dot 2 (Position 1 1))))"""


@pytest.fixture(scope="module")
def rt():
    it = Interpreter()
    it.run_script(PROGRAM, seed=3)
    return it._rt


def _coordinate(rng: random.Random):
    return rng.choice([0, 1, 2, -1, True, False, "1", 2147483647])


def _value(rng: random.Random, rt, depth: int = 0):
    kind = rng.randrange(6 if depth < 2 else 4)
    if kind <= 1:
        return Pos(_coordinate(rng), _coordinate(rng))
    if kind == 2:
        return _coordinate(rng)
    if kind == 3:
        return rt.G.vars[rng.choice(["d1", "d2"])]
    return AList([_value(rng, rt, depth + 1) for _ in range(rng.randrange(3))])


def _eq_by_fields(rt, a, b) -> bool:
    """The definition the fast path shortens: positions compared field by field with eq."""
    if a.__class__ is Pos and b.__class__ is Pos:
        return rt.eq(a.x, b.x) and rt.eq(a.y, b.y)
    return rt.eq(a, b)


def test_positions_compare_as_field_by_field(rt):
    rng = random.Random(7)
    seen = set()
    for _ in range(3000):
        a, b = _value(rng, rt), _value(rng, rt)
        got = rt.eq(a, b)
        assert got == _eq_by_fields(rt, a, b), (a, b)
        if a.__class__ is Pos and b.__class__ is Pos:
            seen.add((got, a.x.__class__ is int and b.x.__class__ is int))
    assert rt.eq(Pos(1, 0), Pos(True, 0)) and not rt.eq(Pos(1, 0), Pos("1", 0))
    assert seen == {(True, True), (True, False), (False, True), (False, False)}


def test_native_in_decides_as_eq_on_each_element(rt):
    native_in = rt.G.vars["in"]
    assert native_in.name == "in" and native_in.fn.__name__ == "n_in"   # the native is installed
    rng = random.Random(11)
    hits = 0
    for _ in range(1500):
        e = Pos(_coordinate(rng), _coordinate(rng)) if rng.random() < 0.8 else _value(rng, rt)
        xs = AList([_value(rng, rt) for _ in range(rng.randrange(6))])
        got = native_in.fn(rt.G, [e, xs])
        assert got == any(_eq_by_fields(rt, x, e) for x in xs), (e, list(xs))
        hits += got
    assert 20 < hits < 1400       # both answers were exercised


def test_native_in_over_a_list_searched_again_decides_as_eq(rt):
    """A long list of plain Positions searched more than once is answered from a set of its
    coordinates: the answers must be the scan's, for lists that mix in Bool or String
    coordinates, objects or lists (no set then) and for the plain ones (a set)."""
    native_in = rt.G.vars["in"].fn
    rng = random.Random(13)
    hits = 0
    for _ in range(120):
        plain = rng.random() < 0.6
        xs = AList([Pos(rng.randrange(5), rng.randrange(5)) if plain or rng.random() < 0.9
                    else _value(rng, rt) for _ in range(rng.randrange(10, 30))])
        for _ in range(8):     # the same list again and again: its set is built and used
            e = Pos(_coordinate(rng), _coordinate(rng)) if rng.random() < 0.3 \
                else Pos(rng.randrange(6), rng.randrange(6))
            got = native_in(rt.G, [e, xs])
            assert got == any(_eq_by_fields(rt, x, e) for x in xs), (e, list(xs))
            hits += got
    assert 100 < hits < 860


def test_native_in_sees_a_position_changed_in_place_after_its_list_was_indexed():
    it = Interpreter()
    it.run_script("(program (= GRID_SIZE 4) (= spots (map (--> i (Position i 0)) (range 0 20))))",
                  seed=1)
    for _ in range(3):
        assert it.evaluate_to_string("in (Position 30 0) spots") == "(false: Bool)"
    it.evaluate("= (.. (head spots) x) 30")     # a field assignment: no index is used after it
    assert it.evaluate_to_string("in (Position 30 0) spots") == "(true: Bool)"


def _tag_by_definition(xs, v) -> str:
    """addObj's tag as 12.1 and 5.4 give it: the copies' own tag, unless v sets one."""
    from llm_eval.autumn.values import infer_tag, list_tag, type_str
    tag = infer_tag(list(xs))
    if v.__class__ is AList:
        if v:
            tag = list_tag(type_str(v[-1]))
    else:
        tag = list_tag(type_str(v))
    return tag


def test_add_obj_tags_and_copies_as_defined(rt):
    """addObj works its tag out only when it is used; the answer must not change, on lists
    whose own tag differs from what v sets (mixed, empty, objects of two classes)."""
    add_obj = rt.G.vars["addObj"].fn
    rng = random.Random(5)
    tags = set()
    for _ in range(600):
        xs = AList([_value(rng, rt) for _ in range(rng.randrange(4))])
        v = rng.choice([AList(), AList([Pos(1, 1)]), AList([rt.G.vars["d1"], 3]),
                        rt.G.vars["d2"], Pos(0, 2)])
        got = add_obj(rt.G, [xs, v])
        assert got.tag == _tag_by_definition(xs, v), (list(xs), v)
        assert len(got) == len(xs) + (len(v) if v.__class__ is AList else 1)
        for old, new in zip(xs, got):      # copies: equal values, new objects
            assert rt.eq(old, new)
            assert (new is not old) == (old.__class__ in (Obj, Pos, AList))
        tags.add(got.tag)
    assert len(tags) >= 4


# An inlined parameter given a checked number skips its own checks (fuse_calls.inline_body)
# until a call could reassign it (a type change is refused by the assignment itself, 6.3): a
# callee assigns it through the dynamic scope, and the reads after the call must see the new
# value, as the closures do.
REASSIGNED_NUMBER = """(program (= GRID_SIZE 4) (= xs (list 10 20 30)) (= n 0)
  (= spoil (--> z (= i z)))
  (= pick (--> i (+ (at xs i) (let (= ignored (spoil 2)) (at xs i)))))
  (= place (--> (i j) (Position i (let (= ignored (spoil 0)) (+ i j)))))
  (on left (= n (pick (+ n 1))))
  (on right (= n (.. (place (+ n 1) 3) y))))"""


def test_a_known_number_reassigned_by_a_callee_is_read_again():
    from tracing import trace
    actions = ["left", "right", "left"]
    fused = trace(REASSIGNED_NUMBER, actions, 3, fusion=True)
    assert fused == trace(REASSIGNED_NUMBER, actions, 3, fusion=False)
    it = Interpreter()
    it.run_script(REASSIGNED_NUMBER, seed=3)
    it.left()
    it.step()
    assert it.evaluate_to_string("n") == "(50: N)"     # (at xs 1) + (at xs 2) after spoil
    it.right()
    it.step()
    assert it.evaluate_to_string("n") == "(3: N)"      # (+ 0 3) after spoil set i to 0
