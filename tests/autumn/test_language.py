"""Builtins, stdlib functions and spec edges beyond the conformance cases, as data tables.

Each row names the docs/spec/autumn.md section it checks. Values are the reference printed forms (5.5).
"""

import pytest

from llm_eval.autumn import Interpreter, check_program
from llm_eval.errors import (
    AutumnError,
    AutumnInternalError,
    AutumnLimitError,
    AutumnRuntimeError,
    AutumnSeedError,
    AutumnSyntaxError,
)

BASE = """(program
  (= GRID_SIZE 6)
  (object Mk (: c String) (Cell 0 0 c))
  (object Duo (list (Cell 0 0 "red") (Cell 1 0 "blue")))
  (object Wall (Cell 0 0 "gray"))
  (= wall (Wall (Position 3 0)))
  (= nums (list 3 1 2))
  (= a (Mk "red" (Position 1 1)))
  (= b (Mk "blue" (Position 2 1)))
  (= far (Mk "green" (Position 5 5))))"""

N = lambda v: f"({v}: N)"  # noqa: E731
T, F = "(true: Bool)", "(false: Bool)"
P = lambda x, y: f"Position{{x: {N(x)},y: {N(y)}}}"  # noqa: E731

ROWS = [
    # 12.1 lists
    ("map (--> v (* v 2)) nums", f"([{N(6)}, {N(2)}, {N(4)}] :List<Unknown>)"),
    ("filter (--> v (> v 1)) nums", f"([{N(3)}, {N(2)}] :List<Number>)"),
    ("filter (--> v false) nums", "([] :List<Unknown>)"),
    ("foldl (--> (acc v) (- acc v)) 10 nums", N(4)),
    ("any (--> v (== v 2)) nums", T),
    ("any (list false (list))", F),
    ("concat (list (list 1) (list 2 3))", f"([{N(1)}, {N(2)}, {N(3)}] :List<Unknown>)"),
    ("length nums", N(3)),
    ("head nums", N(3)),
    ("tail nums", N(2)),                      # tail is the LAST element (C36, Q10)
    ("at nums 1", N(1)),
    ("range 2 5", f"([{N(2)}, {N(3)}, {N(4)}] :List<Number>)"),
    ("range 5 2", "([] :List<Unknown>)"),
    ("isList nums", T),
    ("arrayEqual (list 1 2) (list 1 3)", f"([{T}, {F}] :List<Bool>)"),
    ("sqrt 17", N(4)),
    ("print 5", N(5)),
    ("defined \"nums\"", T),
    ("defined \"nope\"", F),
    ("length (addObj (list a) b)", N(2)),
    ("removeObj (list 1 2 3) (--> v (== v 2))", f"([{N(1)}, {N(3)}] :List<Number>)"),
    ("length (removeObj (list a b) a)", N(1)),
    ("length (removeObj (list a b) (moveDown a))", N(2)),     # copies have new identities
    ("length (removeObj (addObj (list a b) (list)) a)", N(2)),  # addObj copies (5.7)
    ("updateObj (list 1 2 3) (--> v (* v 10)) (--> v (> v 1))",
     f"([{N(1)}, {N(20)}, {N(30)}] :List<Number>)"),
    (".. (updateObj a \"c\" \"white\") c", '("white": S)'),
    (".. a c", '("red": S)'),
    # 12.2 grid
    ("adjPositions (Position 0 0)", f"([{P(1, 0)}, {P(0, 1)}] :List<class Position "
                                    "{x: Number, y: Number, }>)"),
    ("at (allPositions 3) 1", P(0, 1)),       # x-major
    ("length (allPositions 2 3)", N(6)),
    ("isWithinBounds far", T),
    ("isWithinBounds (move far (Position 1 0))", F),
    ("isFreePos (Position 3 0)", F),           # the wall is in the occupancy set
    ("isFreePos (Position 4 0)", T),
    # 13 stdlib
    ("abs -4", N(4)), ("sign -9", N(-1)), ("sign 0", N(0)), ("max 2 7", N(7)), ("min 2 7", N(2)),
    ("deltaPos (Position 1 1) (Position 4 3)", P(3, 2)),
    ("displacement (Position 1 1) (Position 4 3)", P(3, 2)),
    ("sqdist (Position 0 0) (Position 3 4)", N(25)),
    ("movePos (Position 1 1) (Position 2 3)", P(3, 4)),
    ("moveLeftPos (Position 1 1)", P(0, 1)),
    (".. (.. (moveRight a) origin) x", N(2)),
    ("rect (Position 0 0) (Position 2 2)",     # row-major
     f"([{P(0, 0)}, {P(1, 0)}, {P(0, 1)}, {P(1, 1)}] :List<Unknown>)"),
    ("unitVector (Mk \"x\" (Position 0 0)) (Mk \"x\" (Position 3 2))", P(1, 0)),
    ("unitVectorSinglePos (Position -3 2)", P(-1, 1)),
    (".. (closest a (list b (Mk \"w\" (Position 0 1)))) c", '("w": S)'),  # ties go later
    ("closestPos a (list (Position 0 1) (Position 2 1))", P(2, 1)),
    ("adjacentPoss (Position 0 0) (Position 0 0) 1", T),   # distance 0 counts
    ("adjacentTwoObjs a b 1", T),
    ("adjacentPossDiag (Position 0 0) (Position 1 1)", T),
    ("adj a (list far) 1", F),
    ("intersects a a", T),
    ("intersects a b", F),
    ("in 2 nums", T),
    ("sum nums", N(6)),
    ("isFree far", F),
    ("isFree (move far (Position -1 0))", T),
    ("isFree a", F),                                  # its own cells are occupied
    ("isFreeExcept (moveRight a) a", F),              # b is at (2, 1)
    ("isFreeExcept (moveUp a) a", T),
    ("isFreePosExceptObj (Position 1 1) a", T),
    ("isFreeRangeExceptObj 0 3 wall", T),             # row 0 only, the wall excluded
    ("isFreeRangeExceptObj 0 4 a", F),
    (".. (.. (moveNoCollision a 1 0) origin) x", N(1)),   # blocked by b
    (".. (.. (moveNoCollision a 0 -1) origin) y", N(0)),
    (".. (.. (moveLeftNoCollision (Mk \"q\" (Position 0 4))) origin) x", N(0)),  # bounds
    (".. (.. (nextSolid (Mk \"q\" (Position 4 4))) origin) y", N(5)),
    ("length (renderValue (list a (Duo (Position 0 3))))", N(3)),
    ("vcat (list (list 1) (list 2))", f"([{N(1)}, {N(2)}] :List<Unknown>)"),
    # 4.4 arithmetic and 5.3 equality
    ("+ 2147483647 1", N(-2147483648)), ("/ -7 2", N(-3)), ("% 7 -2", N(1)),
    ("== 1 true", T), ("== true 1", F), ("== (list) (list)", T),
    ("== (map (--> v v) (list 1)) (list 1)", F),
    ("== (Mk \"red\" (Position 1 1)) a", T),
    ("| false true", T), ("|| false true", F), ("&& true true", T),
]


@pytest.fixture(params=[True, False], ids=["native", "autumn-stdlib"])
def world(request):
    it = Interpreter(native_stdlib=request.param)
    it.run_script(BASE, seed=3)
    return it


@pytest.mark.parametrize("expr,expected", ROWS, ids=[r[0] for r in ROWS])
def test_printed_value(world, expr, expected):
    assert world.evaluate_to_string(expr) == expected


ERRORS = [
    "head (list)", "tail (list)", "at nums 5", "uniformChoice (list)", "/ 1 0", "% 1 0",
    "/ -2147483648 -1", "sqrt -1", "+ 1 true", "! 1", "nope", "(nums)", "a 1",
    "randomPositions (list 1) 2", "allPositions -1", "arrayEqual (list 1) (list)",
    ".. a nofield", "updateObj a \"nofield\" 1", "Position 1", "Mk \"red\"", "prev nums",
    "(+ 1 2)", "(if true then 1)", "+ 1 2 3", "defined 3",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_error_is_typed(world, expr):
    with pytest.raises(AutumnError) as info:
        world.evaluate_to_string(expr)
    assert not isinstance(info.value, AutumnInternalError)


@pytest.mark.parametrize("text,line,column", [
    ("(program (= x 1)", 1, 1),
    ("(program (= x 1)))", 1, 18),
    ('(program\n  (= s "abc))', 2, 8),
    ('(program (= s "a\\qb"))', 1, 17),
    ("(program\n  (= x -y))", 2, 8),
    ("(program (= x 2147483648))", 1, 15),
    ("(program (= on 1))", 1, 13),
    ("(program\n  (object O (: f Mystery) (Cell 0 0 \"red\")))", 2, 18),
    ("", 1, 1),
    ("atom", 1, 1),
])
def test_bad_programs_name_line_and_column(text, line, column):
    with pytest.raises(AutumnError) as info:
        Interpreter().run_script(text, seed=1, path="p.sexp")
    err = info.value
    assert not isinstance(err, AutumnInternalError)
    assert (err.line, err.column) == (line, column), str(err)
    assert str(err).startswith(f"p.sexp:{line}:{column}: ")


def test_reader_first_token_rule():
    it = Interpreter()
    it.run_script("(program (= my-var 4) (= n 2.9) (= z 007) (= c 3;x) (= e 1e5))", seed=1)
    assert it.evaluate_to_string("my") == N(4)      # my-var is the name `my`
    assert it.evaluate_to_string("n") == N(2)
    assert it.evaluate_to_string("z") == N(7)
    assert it.evaluate_to_string("c") == N(3)       # `3;x` is one atom, number 3
    assert it.evaluate_to_string("e") == N(1)
    it.run_script  # noqa: B018
    s = Interpreter()
    s.run_script('(program (= s "a\\"b"))', seed=1)
    assert s.evaluate_to_string("s") == '("a": S)'


def test_seed_zero_is_refused_unless_asked():
    with pytest.raises(AutumnSeedError, match="seed 0"):
        Interpreter().run_script("(program (= x 1))", seed=0)
    with pytest.raises(AutumnSeedError):
        Interpreter().run_script("(program (= x 1))", seed=2 ** 32)
    Interpreter().run_script("(program (= x 1))", seed=0, allow_degenerate_seed=True)


WALKER = """(program
  (= GRID_SIZE 8)
  (object Bug (Cell 0 0 "red"))
  (= bugs (initnext (map (--> i (Bug (Position i i))) (range 0 5))
    (updateObj (prev bugs) (--> b (updateObj b "origin" (uniformChoice (adjPositions (.. b origin)))))))))"""


def _frames(seed, steps=20):
    it = Interpreter()
    it.run_script(WALKER, seed=seed)
    out = [it.render_frame()]
    for _ in range(steps):
        it.step()
        out.append(it.render_frame())
    return out


def test_determinism_and_seed_modulo():
    assert _frames(42) == _frames(42)
    assert _frames(42) == _frames(42 + 2 ** 32)    # the seed is taken mod 2**32 (11.1)
    assert _frames(42) != _frames(43)


def test_runaway_programs_raise_limit_errors():
    rec = "(program (= f (--> n (f n))) (= x (initnext 0 (f 1))))"
    it = Interpreter()
    it.run_script(rec, seed=1)
    with pytest.raises(AutumnLimitError):
        it.step()
    with pytest.raises(AutumnLimitError):
        Interpreter().run_script("(program (= xs (range 0 2000000000)))", seed=1)
    boom = ("(program (= f (--> n (if (== n 0) then 0 else (+ (f (- n 1)) (f (- n 1))))))"
            " (= x (initnext 0 (f 40))))")
    it = Interpreter(work_budget=100_000)
    it.run_script(boom, seed=1)
    with pytest.raises(AutumnLimitError, match="more than 100,000 units of work in one tick"):
        it.step()


def test_failed_step_breaks_the_world():
    it = Interpreter()
    it.run_script("(program (= flag (initnext false (prev flag))) (on left (= flag 1)))", seed=1)
    it.left()
    with pytest.raises(AutumnRuntimeError, match="flag"):
        it.step()
    with pytest.raises(AutumnRuntimeError, match="reset"):
        it.step()


def test_annotations_checked_on_plain_assignment_only():
    it = Interpreter()
    it.run_script("(program (: n Number) (= n (initnext true (prev n))) (on left (= n 3)))",
                  seed=1)   # the initnext value is not checked (3.4)...
    it.left()
    with pytest.raises(AutumnRuntimeError):
        it.step()           # ...but n is a Bool, and 3 is not (5.6)
    it2 = Interpreter()
    it2.run_script("(program (: s String) (on left (= s 3)))", seed=1)
    it2.left()
    with pytest.raises(AutumnRuntimeError, match="annotated"):
        it2.step()


def test_coverage_counts_fired_clauses():
    it = Interpreter()
    it.run_script("(program (= t (initnext 0 (+ (prev t) 1))) (on left (= t 0)) "
                  "(on right (= t 5)) (on (> t 100) (= t 0)))", seed=1)
    it.left()
    it.step()
    it.step()
    assert it.get_on_clause_count() == 3
    assert it.get_covered_on_clause_count() == 1
    assert [c[3] for c in it.coverage().clauses] == [True, False, False]


def test_check_program_reports_every_problem():
    text = "(program\n  (= a (+ 1 2 3))\n  (= b 1)\n  (= c (if true then 1))\n  (= d missing))"
    problems = check_program(text, path="p.sexp")
    assert [(p.line, type(p)) for p in problems][:2] == [(2, AutumnSyntaxError),
                                                         (4, AutumnSyntaxError)]
    assert any("missing" in p.message for p in problems)
    assert check_program("(program (= GRID_SIZE 4))") == []
