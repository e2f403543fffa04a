"""Every native builtin (docs/spec/autumn.md 12) and every stdlib function (docs/spec/autumn.md 13), table-driven.

A row is an expression (in the host syntax of 14.2: no outer parentheses) evaluated against a
small fixture program, and the printed form (5.5) the spec says it must give, or the error it
must raise. Longer rows are *scripts*: evaluations, steps with inputs, host renders and frame
checks, run in order on one interpreter. Every expected value was worked out by hand from the
spec text; the comment on each row names the sentence it checks. The only computed
expectations are random draws, which come from ``autumn_script.spec_states``: a transcription
of the generator of 11.1 (not the interpreter's code).

The stdlib rows run twice, with the native fast paths and with the pure-Autumn stdlib
(``Interpreter(native_stdlib=False)``): 13 says both must agree on results, render counts and
the names they assign.
"""

from __future__ import annotations

from typing import Any

import pytest
from autumn_script import (
    ANY,
    BOOL,
    NL,
    NUM,
    PL,
    POSL,
    SL,
    STR,
    UNK,
    B,
    Ev,
    Frame,
    L,
    N,
    P,
    Render,
    S,
    Step,
    run_ops,
    spec_states,
)

from llm_eval.errors import AutumnRuntimeError

ST42 = spec_states(42, 20)

# --------------------------------------------------------------------------- fixture programs

# Grid of STD after load (occupancy of the implicit render at the end of run_script, 8.1):
#   y0  rb.g..    gs (0,0) red + (1,0) blue, wall (3,0) gray
#   y1  .r....    a (1,1) red
#   y2  r.....    c2 (0,2) red
#   y3  rb....    bar (0,3) red + (1,3) blue
#   y4  ....b.    b (4,4) blue
#   y5  ..bb.g    mono (2,5) blue + (3,5) blue, g (5,5) green
STD = """(program
  (= GRID_SIZE 6)
  (object Mk (: c String) (Cell 0 0 c))
  (object Bar (list (Cell 0 0 "red") (Cell 1 0 "blue")))
  (object Mono (list (Cell 0 0 "blue") (Cell 1 0 "blue")))
  (object Vert (list (Cell 0 0 "red") (Cell 0 1 "blue")))
  (object Far (Cell -1 0 "pink"))
  (= wall (Mk "gray" (Position 3 0)))
  (= a (initnext (Mk "red" (Position 1 1)) (prev a)))
  (= b (initnext (Mk "blue" (Position 4 4)) (prev b)))
  (= bar (initnext (Bar (Position 0 3)) (prev bar)))
  (= mono (initnext (Mono (Position 2 5)) (prev mono)))
  (= c2 (initnext (Mk "red" (Position 0 2)) (prev c2)))
  (= xs (list 1 2 3))
  (= gs (list (Mk "red" (Position 0 0)) (Mk "blue" (Position 1 0))))
  (= g (Mk "green" (Position 5 5)))
  (= trace 0))"""

# An object with a random colour: every render of it makes one draw (7.2, C45). Seed 42: the
# construction at INIT makes draw 1, the render ending run_script draw 2.
SPARK = """(program
  (= GRID_SIZE 6)
  (object Spark (Cell 0 0 (uniformChoice (list "red" "green"))))
  (object Mk (: c String) (Cell 0 0 c))
  (= s (initnext (Spark (Position 2 2)) (prev s)))
  (= w (initnext (Mk "gray" (Position 4 2)) (prev w))))"""

# Globals named like the stdlib helpers' intermediate values (13.3), with types the helpers
# assign, so that clobbering them is silent and observable.
CLOB = """(program
  (= GRID_SIZE 6)
  (object Mk (: c String) (Cell 0 0 c))
  (= a (initnext (Mk "red" (Position 1 1)) (prev a)))
  (= delta (Position 9 9))
  (= sign_x 7) (= sign_y 7)
  (= xmin 99) (= xmax 99) (= ymin 99) (= ymax 99) (= rectPos (list))
  (= prev_elems (list)) (= curr_elems (list)) (= filtered_elems (list))
  (= allCheckedPos (list)) (= filtered_pos (list))
  (= wbound false) (= fr false)
  (= nextRowPos (list)) (= holes (list))
  (= closestHole (Position 9 9)) (= dir (Position 9 9)))"""

EMPTY = "(program (= GRID_SIZE 6))"

PROGRAMS = {"STD": STD, "SPARK": SPARK, "CLOB": CLOB, "EMPTY": EMPTY}

# --------------------------------------------------------------------------- builtin rows (12)

# (expression, expected, spec sentence); evaluated on STD unless the id says otherwise.
BUILTIN_ROWS: list[tuple[str, str, Any, str]] = [
    # map
    ("map-1", "map (--> x (* x 2)) xs", NL([2, 4, 6], UNK), "12.1 map: new list [f(x) for x in L], in order; tag List<Unknown>"),
    ("map-2", "map (--> x x) (list)", NL([], UNK), "12.1 map: tag List<Unknown>; 5.4 the empty list is always List<Unknown>"),
    ("map-3", "map 1 xs", AutumnRuntimeError, "12: wrong argument types are errors"),
    # concat
    ("concat-1", "concat (list (list 1 2) (list) (list 3))", NL([1, 2, 3], UNK), "12.1 concat: one-level flatten of a list of lists; tag List<Unknown>"),
    ("concat-2", "concat (list (list (list 1)) (list 2))", L([NL([1]), N(2)], UNK), "12.1 concat: ONE-level flatten"),
    ("concat-3", "concat (list)", NL([], UNK), "12.1 concat of no lists"),
    ("concat-4", "concat (list 1 2)", AutumnRuntimeError, "12.1 concat: each element must be a list"),
    # filter
    ("filter-1", "filter (--> x (> x 1)) xs", NL([2, 3]), "12.1 filter: elements with f(x) truthy, in order; tag from the last kept element"),
    ("filter-2", "filter (--> x false) xs", NL([], UNK), "12.1 filter keeping nothing: 5.4 empty list is List<Unknown>"),
    ("filter-3", 'filter (--> x x) (list 0 false (list) "")', L([N(0), S("")], STR), "5.2 truthiness (0 and \"\" truthy, false and the empty list falsy); tag of the LAST kept element"),
    ("filter-4", 'filter (--> x true) (list "a" 1)', L([S("a"), N(1)], NUM), "5.4 appending: the tag becomes List<type of the last element appended>"),
    # foldl
    ("foldl-1", "foldl (--> (acc x) (- acc x)) 10 xs", N(4), "12.1 foldl: acc = init; for x in L: acc = f(acc, x)"),
    ("foldl-2", "foldl (--> (acc x) (+ (* acc 10) x)) 0 xs", N(123), "12.1 foldl: left to right"),
    ("foldl-3", "foldl (--> (acc x) (+ acc x)) 7 (list)", N(7), "12.1 foldl: returns init for an empty list"),
    # length
    ("length-1", "length xs", N(3), "12.1 length: number of elements"),
    ("length-2", "length (list)", N(0), "12.1 length"),
    ("length-3", "length 5", AutumnRuntimeError, "12: wrong argument types are errors"),
    # head / at / tail
    ("head-1", "head xs", N(1), "12.1 head: first element"),
    ("head-2", "head (list)", AutumnRuntimeError, "12.1 head: error on empty"),
    ("at-1", "at xs 0", N(1), "12.1 at: element i (0-based)"),
    ("at-2", "at xs 2", N(3), "12.1 at: element i (0-based)"),
    ("at-3", "at xs 3", AutumnRuntimeError, "12.1 at: error if out of range"),
    ("at-4", "at xs -1", AutumnRuntimeError, "12.1 at: error if out of range"),
    ("at-5", "at (list) 0", AutumnRuntimeError, "12.1 at: error if empty"),
    ("tail-1", "tail xs", N(3), "12.1 tail: LAST element, not the rest of the list"),
    ("tail-2", "tail (list 7)", N(7), "12.1 tail: last element"),
    ("tail-3", "tail (list)", AutumnRuntimeError, "12.1 tail: error on empty"),
    # defined
    ("defined-1", 'defined "xs"', B(True), "12.4 defined: true iff the global table currently has name"),
    ("defined-2", 'defined "nope"', B(False), "12.4 defined"),
    ("defined-3", 'defined "map"', B(True), "8.1: the native builtins are globals"),
    ("defined-4", "defined xs", AutumnRuntimeError, "12.4 defined: the argument must be a String"),
    ("defined-5", 'defined "c"', B(False), "12.4 defined looks at the global table only: a field name is not a global"),
    # arrayEqual
    ("arrayEqual-1", "arrayEqual (list 1 2) (list 1 3)", L([B(True), B(False)], BOOL), "12.1 arrayEqual: list of Bools, element-wise ==; 5.4 tag by appending"),
    ("arrayEqual-2", "arrayEqual (list 1 true) (list true 1)", L([B(True), B(False)], BOOL), "12.1 arrayEqual uses ==, which is asymmetric for Number/Bool (5.3)"),
    ("arrayEqual-3", "arrayEqual (list) (list)", NL([], UNK), "12.1 arrayEqual of empty lists; 5.4 empty list tag"),
    ("arrayEqual-4", "arrayEqual (list 1) (list 1 2)", AutumnRuntimeError, "12.1 arrayEqual: error if the lengths differ"),
    # sqrt
    ("sqrt-1", "sqrt 16", N(4), "12.4 sqrt: floor(sqrt n)"),
    ("sqrt-2", "sqrt 15", N(3), "12.4 sqrt: floor(sqrt n)"),
    ("sqrt-3", "sqrt 0", N(0), "12.4 sqrt: n >= 0"),
    ("sqrt-4", "sqrt 2147483647", N(46340), "12.4 sqrt: floor(sqrt n) of the largest Number"),
    ("sqrt-5", "sqrt -1", AutumnRuntimeError, "12.4 sqrt: negative is an error"),
    # prev (more in the scripts and in test_semantics)
    ("prev-1", "prev a", AutumnRuntimeError, "8.3: before the first tick no snapshot exists, so prev is an error"),
    # any
    ("any-1", "any (list)", B(False), "12.1 any: true iff some x is truthy"),
    ("any-2", "any (list false (list))", B(False), "12.1 any (1-arg) with 5.2 truthiness"),
    ("any-3", "any (list false 0)", B(True), "12.1 any; 5.2: 0 is truthy"),
    ("any-4", "any (--> x (> x 2)) xs", B(True), "12.1 any: true iff some f(x) is truthy"),
    ("any-5", "any (--> x (> x 5)) xs", B(False), "12.1 any"),
    ("any-6", "any (--> x (> (/ 6 x) 1)) (list 1 0)", B(True), "12.1 any: stops at the first (the division by 0 is never evaluated)"),
    ("any-7", "any 1 xs", AutumnRuntimeError, "12.1 any: the first argument of the 2-argument form must be a function"),
    # isList
    ("isList-1", "isList (list)", B(True), "12.1 isList"),
    ("isList-2", "isList xs", B(True), "12.1 isList"),
    ("isList-3", "isList 0", B(False), "12.1 isList"),
    ("isList-4", "isList (Position 0 0)", B(False), "12.1 isList"),
    ("isList-5", 'isList "ab"', B(False), "12.1 isList"),
    # uniformChoice (EMPTY: no draw before the first evaluation; draws are in the scripts below)
    ("uniformChoice-1", "uniformChoice (list)", AutumnRuntimeError, "11.2: uniformChoice of an empty list is an error"),
    ("uniformChoice-2", "uniformChoice (list 1 2) 0", AutumnRuntimeError, "11.2: (uniformChoice L n) needs n >= 1, else error"),
    ("uniformChoice-3", "uniformChoice (list 9)", N(9), "11.2: returns L[draw]"),
    # adjPositions (tag not pinned by the spec)
    ("adjPositions-1", "adjPositions (Position 2 3)", PL([(1, 3), (3, 3), (2, 2), (2, 4)], ANY), "12.2 adjPositions: (x-1,y), (x+1,y), (x,y-1), (x,y+1)"),
    ("adjPositions-2", "adjPositions (Position 0 0)", PL([(1, 0), (0, 1)], ANY), "12.2 adjPositions: keeping only those with 0 <= coord < GRID_SIZE"),
    ("adjPositions-3", "adjPositions (Position 5 5)", PL([(4, 5), (5, 4)], ANY), "12.2 adjPositions: upper bound is GRID_SIZE (6 here)"),
    ("adjPositions-4", "length (adjPositions (Position 7 2))", N(0), "12.2 adjPositions: in-bounds only (x = 7 is off a 6-grid)"),
    # addObj
    ("addObj-1", 'length (addObj gs (Mk "x" (Position 2 2)))', N(3), "12.1 addObj: if v is an instance, append it"),
    ("addObj-2", "length (addObj gs gs)", N(4), "12.1 addObj: if v is a list, append its elements"),
    ("addObj-3", 'let (= ignored (addObj gs (Mk "x" (Position 2 2)))) (length gs)', N(2), "12.1 addObj: L is unchanged"),
    ("addObj-4", "length (removeObj (addObj gs (list)) (head gs))", N(2), "12.1 addObj: copy every element of L (new identities, 5.7)"),
    ("addObj-5", "length (removeObj (addObj (list) g) g)", N(0), "12.1 addObj: v itself is appended (not copied)"),
    ("addObj-6", "length (removeObj (addObj (list) gs) (head gs))", N(1), "12.1 addObj: a list's elements are appended, not copied"),
    ("addObj-7", "== (addObj (list) g) (list g)", B(True), "5.4: the element added by addObj sets the tag List<class Mk ...>, as a literal of Mk objects"),
    ("addObj-8", "== (addObj (list) g) (map (--> v v) (list g))", B(False), "5.4: addObj's tag is not List<Unknown> (map's)"),
    ("addObj-9", "addObj gs 4", AutumnRuntimeError, "12.1 addObj: anything else (than an instance or list) is an error"),
    ("addObj-10", 'addObj (list 1) (list "a")', L([N(1), S("a")], STR), "5.4: the elements appended by addObj set the tag of the last one appended"),
    ("addObj-11", "addObj (list 1 2) (list)", NL([1, 2]), "5.4: addObj's copy of L: tag inferred from the elements"),
    # isFreePos
    ("isFreePos-1", "isFreePos (Position 3 0)", B(False), "12.2 isFreePos: (3,0) holds the wall in the occupancy set"),
    ("isFreePos-2", "isFreePos (Position 2 0)", B(True), "12.2 isFreePos: true iff not in the occupancy set"),
    ("isFreePos-3", "isFreePos (Position 9 9)", B(True), "12.2 isFreePos: off-grid and empty"),
    ("isFreePos-4", "isFreePos 3", AutumnRuntimeError, "12.2 isFreePos: p must be a Position"),
    # range
    ("range-1", "range 0 3", NL([0, 1, 2]), "12.1 range: [a, a+1, ..., b-1]; 5.4 tag by appending"),
    ("range-2", "range -2 1", NL([-2, -1, 0]), "12.1 range"),
    ("range-3", "range 3 3", NL([], UNK), "12.1 range: empty if a >= b"),
    ("range-4", "range 5 2", NL([], UNK), "12.1 range: empty if a >= b"),
    # print
    ("print-1", "print 5", N(5), "12.4 print: (print v) returns v"),
    ("print-2", "print xs", NL([1, 2, 3]), "12.4 print returns v"),
    # removeObj (the one-argument form is in the scripts)
    ("removeObj-1", "removeObj xs (--> x (== x 2))", NL([1, 3]), "12.1 removeObj L f: without the elements where f(x) is truthy; 5.4 removeObj's result: tag inferred from the elements"),
    ("removeObj-2", "removeObj xs (--> x true)", NL([], UNK), "12.1 removeObj L f; 5.4 empty list"),
    ("removeObj-8", 'removeObj (list 1 "a") (--> x false)', L([N(1), S("a")], "Unknown"), "5.4: removeObj's result has the inferred tag: mixed elements give the bare tag Unknown"),
    ("removeObj-3", "length (removeObj gs (head gs))", N(1), "12.1 removeObj L obj: without the elements whose identity equals obj's"),
    ("removeObj-4", 'length (removeObj gs (Mk "red" (Position 0 0)))', N(2), "12.1 removeObj L obj is by identity, not equality: an equal fresh object removes nothing"),
    ("removeObj-5", "length (removeObj gs gs)", N(0), "12.1 removeObj L L2: without the elements whose identity equals any element of L2"),
    ("removeObj-6", "map (--> o (.. o c)) (removeObj gs (list (tail gs)))", SL(["red"]), "12.1 removeObj L L2"),
    ("removeObj-7", "length (removeObj gs (updateObj (head gs) \"c\" \"red\"))", N(2), "5.7 #1: updateObj's copy has a new identity, so removing it removes nothing"),
    # updateObj
    ("updateObj-1", "updateObj xs (--> x (* x 10))", NL([10, 20, 30], UNK), "12.1 (updateObj L f): same as (map f L), tag List<Unknown>"),
    ("updateObj-2", "updateObj xs (--> x (* x 10)) (--> x (> x 1))", NL([1, 20, 30]), "12.1 (updateObj L f pred): f(x) if pred(x), else x; tag from the last element"),
    ("updateObj-15", 'updateObj (list 1 "a") (--> x x) (--> x false)', L([N(1), S("a")], STR), "12.1 (updateObj L f pred): tag from the last element"),
    ("updateObj-3", 'let (= trace 0) (= ignored (updateObj (list 5) (--> x (let (= trace (+ (* trace 10) 2)) x)) (--> x (let (= trace (+ (* trace 10) 1)) true)))) trace', N(12), "12.1 (updateObj L f pred): pred is evaluated first"),
    ("updateObj-4", 'let (= trace 0) (= ignored (updateObj (list 5) (--> x (let (= trace 9) x)) (--> x false))) trace', N(0), "12.1 (updateObj L f pred): f is not applied where pred is falsy"),
    ("updateObj-5", '.. (updateObj g "c" "pink") c', S("pink"), "12.1 (updateObj obj \"field\" v): a copy with field set to v"),
    ("updateObj-6", 'let (= ignored (updateObj g "c" "pink")) (.. g c)', S("green"), "12.1 (updateObj obj \"field\" v) copies: obj is unchanged"),
    ("updateObj-7", '.. (updateObj g "origin" (Position 4 1)) origin', P(4, 1), "12.1: \"origin\" is allowed"),
    ("updateObj-8", '.. (updateObj g "c" 5) c', N(5), "12.1: no type check is applied to v here"),
    ("updateObj-9", 'updateObj g "nope" 1', AutumnRuntimeError, "12.1: the field must exist"),
    ("updateObj-10", 'length (removeObj (list g) (updateObj g "c" "pink"))', N(1), "12.1/5.7: updateObj obj \"field\" v is a copy with a new identity"),
    ("updateObj-11", "length (removeObj (list g) (updateObj g (--> o o)))", N(0), "12.1 (updateObj obj f): f(obj), no copy (identity kept)"),
    ("updateObj-12", '.. (updateObj g (--> o (updateObj o "c" "tan"))) c', S("tan"), "12.1 (updateObj obj f) is f(obj)"),
    ("updateObj-13", "updateObj xs 1 2", AutumnRuntimeError, "12.1: 3 arguments on a list with a non-function second argument is an error"),
    ("updateObj-14", "updateObj g 5 1", AutumnRuntimeError, "12.1: a non-string second argument with an object is an error"),
    # randomPositions (errors; draws in the scripts)
    ("randomPositions-1", "randomPositions (list 1) 2", AutumnRuntimeError, "11.2: a list as first argument crashes the reference: raise an error (15.3)"),
    ("randomPositions-2", "randomPositions 6 0", L([], UNK), "11.2: k = 0 positions"),
    # allPositions
    ("allPositions-1", "allPositions 2", PL([(0, 0), (0, 1), (1, 0), (1, 1)], POSL), "12.2 allPositions: x-major: for x, for y; 5.4 tag by appending"),
    ("allPositions-2", "allPositions 3 2", PL([(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)], POSL), "12.2 (allPositions w h): x in 0..w-1 outer, y in 0..h-1 inner"),
    ("allPositions-3", "allPositions 0", L([], UNK), "12.2 allPositions of size 0"),
    ("allPositions-4", "allPositions -1", AutumnRuntimeError, "12.2 allPositions: negative arguments are an error"),
    ("allPositions-5", "allPositions 2 -1", AutumnRuntimeError, "12.2 allPositions: negative arguments are an error"),
    # clicked without a pending click (with one: the scripts)
    ("clicked-1", "(clicked)", B(False), "12.3 clicked: true iff a click is pending"),
    ("clicked-2", "clicked g", B(False), "8.4: without a pending click (clicked obj) returns false"),
    ("clicked-3", 'defined "click"', B(False), "3.6 click: undefined before any click has been observed"),
    ("clicked-4", "click", AutumnRuntimeError, "3.6: reading click before any click has been observed is an error"),
    ("clicked-5", "clicked g g", AutumnRuntimeError, "12.3: more than one argument is an error"),
    # left right up down
    ("left-1", "(left)", B(False), "12.3 left: true iff that arrow is pending"),
    ("right-1", "right 1 2", B(False), "12.3: any arguments are ignored"),
    ("up-1", "(up)", B(False), "12.3 up"),
    ("down-1", 'down "x"', B(False), "12.3 down: any arguments are ignored"),
    ("left-2", "if (left) then 1 else 2", N(1), "12.3/5.2: inside if, (left) is the function value, which is truthy"),
    ("left-3", "if ((left)) then 1 else 2", N(2), "12.3: ((left)) obtains the Bool"),
    # isWithinBounds
    ("isWithinBounds-1", "isWithinBounds a", B(True), "12.2 isWithinBounds: every rendered cell has 0 <= x,y < GRID_SIZE"),
    ("isWithinBounds-2", "isWithinBounds (Bar (Position 5 0))", B(False), "12.2 isWithinBounds: the cell (6,0) is out"),
    ("isWithinBounds-3", "isWithinBounds (Far (Position 0 0))", B(False), "12.2 isWithinBounds: negative x is out"),
    ("isWithinBounds-4", "isWithinBounds (Far (Position 1 5))", B(True), "12.2 isWithinBounds: (0,5) is in on a 6-grid"),
    ("isWithinBounds-5", "isWithinBounds (list a b mono)", B(True), "12.2 isWithinBounds renders v (object or list)"),
    ("isWithinBounds-6", "isWithinBounds (list a (Bar (Position 5 0)))", B(False), "12.2 isWithinBounds of a list: every cell"),
    ("isWithinBounds-7", "isWithinBounds (list)", B(True), "12.2: vacuously true when nothing renders"),
    # allObjs (global-table order itself: C48 and test_semantics)
    ("allObjs-1", "length ((allObjs))", N(9), "12.2 allObjs: every object instance held by a global, directly or in lists (wall a b bar mono c2 g + 2 in gs)"),
    ("allObjs-2", "sum (map (--> o (.. (.. o origin) x)) ((allObjs)))", N(16), "12.2 allObjs: x of wall 3 + a 1 + b 4 + bar 0 + mono 2 + c2 0 + g 5 + gs 0 1"),
    # rotate
    ("rotate-1", "map (--> e (.. e position)) ((.. (rotate bar) render))", PL([(0, 3), (0, 4)]), "7.4 rotate: x' = -y, y' = x: (1,0) -> (0,1), a clockwise turn on screen"),
    ("rotate-2", "let (= ignored (rotate bar)) (map (--> e (.. e position)) ((.. bar render)))", PL([(0, 3), (0, 4)]), "7.4: rotate also rewrites the shared cells in place (C17)"),
    ("rotate-3", "let (= r1 (rotate bar)) (= r2 (rotate bar)) (map (--> e (.. e position)) ((.. bar render)))", PL([(0, 3), (-1, 3)]), "7.4: two turns: (1,0) -> (0,1) -> (-1,0)"),
    ("rotate-4", "let (= r1 (rotate bar)) (= r2 (rotate bar)) (= r3 (rotate bar)) (= r4 (rotate bar)) (map (--> e (.. e position)) ((.. bar render)))", PL([(0, 3), (1, 3)]), "7.4: four clockwise turns are the identity"),
    ("rotate-5", "length (removeObj (list bar) (rotate bar))", N(1), "7.4 rotate returns a copy (5.7 #1 new identity)"),
    ("rotate-6", "map (--> e (.. e color)) ((.. (rotate bar) render))", SL(["red", "blue"]), "7.4 rotate keeps the colours"),
    # renderAll
    ("renderAll-1", "length ((renderAll))", N(11), "12.2 renderAll: all rendered cells of every global (wall a b c2 g: 1 each; bar mono gs: 2 each)"),
]

for _row in BUILTIN_ROWS:
    assert len(_row) == 4, _row


def _prog_for(row_id: str) -> str:
    return EMPTY if row_id.startswith(("uniformChoice", "randomPositions")) else STD


@pytest.mark.parametrize("row_id,expr,expected,spec", BUILTIN_ROWS, ids=[r[0] for r in BUILTIN_ROWS])
def test_builtin_row(row_id, expr, expected, spec):
    run_ops(_prog_for(row_id), [Ev(expr, expected)])


def test_every_native_builtin_has_a_row():
    natives = ("map concat filter foldl length head at tail renderAll defined arrayEqual sqrt prev "
               "any isList uniformChoice adjPositions addObj isFreePos range print removeObj "
               "updateObj randomPositions allPositions clicked left right up down isWithinBounds "
               "allObjs rotate").split()
    covered = {r[0].rsplit("-", 1)[0] for r in BUILTIN_ROWS} | {s[0].rsplit("-", 1)[0] for s in BUILTIN_SCRIPTS}
    assert set(natives) <= covered, set(natives) - covered


# --------------------------------------------------------------------------- builtin scripts

CLICKS = """(program
  (= GRID_SIZE 6)
  (object Mk (: c String) (Cell 0 0 c))
  (= g (initnext (Mk "green" (Position 2 2)) (prev g)))
  (= h (initnext (Mk "blue" (Position 4 4)) (prev h)))
  (= hits (initnext 0 (prev hits)))
  (= listHits (initnext 0 (prev listHits)))
  (= plain (initnext 0 (prev plain)))
  (on (clicked g) (= hits (+ hits 1)))
  (on (clicked (list g h)) (= listHits (+ listHits 1)))
  (on clicked (= plain (+ plain 1))))"""

CLICK_OBJ_ONLY = """(program
  (= GRID_SIZE 6)
  (object Mk (: c String) (Cell 0 0 c))
  (= g (initnext (Mk "green" (Position 2 2)) (prev g)))
  (= hits (initnext 0 (prev hits)))
  (on (clicked g) (= hits (+ hits 1))))"""

ARROWS = """(program
  (= GRID_SIZE 4)
  (= l (initnext 0 (prev l)))
  (= r (initnext 0 (prev r)))
  (= u (initnext 0 (prev u)))
  (= d (initnext 0 (prev d)))
  (on left (= l (+ l 1)))
  (on (right 7 8) (= r (+ r 1)))
  (on up (= u (+ u 1)))
  (on (& down true) (= d (+ d 1))))"""

REMOVE_GLOBAL = """(program
  (= GRID_SIZE 3)
  (object Coin (Cell 0 0 "gold"))
  (= coin (initnext (Coin (Position 0 0)) (prev coin)))
  (= spare (Coin (Position 2 2)))
  (= n (initnext 0 (+ (prev n) 1))))"""

RENDERALL = """(program
  (= GRID_SIZE 4)
  (object Mk (: c String) (Cell 0 0 c))
  (= k (Mk "white" (Position 0 0)))
  (= s (initnext (Mk "red" (Position 1 0)) (prev s))))"""

PREVS = """(program
  (= GRID_SIZE 4)
  (= n (initnext 0 (+ (prev n) 1))))"""

BUILTIN_SCRIPTS: list[tuple[str, str, list, str]] = [
    ("uniformChoice-draws", EMPTY, [
        Ev("uniformChoice (range 0 1000)", N(ST42[0] % 1000)),
        Ev("uniformChoice (range 0 1000) 3", NL([ST42[1] % 1000, ST42[2] % 1000, ST42[3] % 1000])),
        Ev("uniformChoice (range 0 1000)", N(ST42[4] % 1000)),
    ], "11.2: (uniformChoice L) is 1 draw with m = len(L); (uniformChoice L n) is n draws in order; 5.4 tag by appending"),
    ("uniformChoice-single", EMPTY, [
        Ev("uniformChoice (list 5)", N(5)),
        Ev("uniformChoice (range 0 1000)", N(ST42[1] % 1000)),
    ], "11.1: a draw with m = 1 still advances the state (only m = 0 does not)"),
    ("uniformChoice-empty-no-draw", EMPTY, [
        Ev("uniformChoice (list)", AutumnRuntimeError),
        Ev("uniformChoice (range 0 1000)", N(ST42[0] % 1000)),
    ], "11.2: an empty list is an error and makes no draw"),
    ("uniformChoice-strings", EMPTY, [
        Ev('uniformChoice (list "a" "b" "c") 2', SL(["abc"[ST42[0] % 3], "abc"[ST42[1] % 3]], STR)),
    ], "11.2: (uniformChoice L n) returns a list, with replacement"),
    ("randomPositions-draws", EMPTY, [
        Ev("randomPositions 6 2", PL([(ST42[0] % 6, ST42[1] % 6), (ST42[2] % 6, ST42[3] % 6)], POSL)),
        Ev("uniformChoice (range 0 1000)", N(ST42[4] % 1000)),
    ], "11.2: for each of the k positions first x = draw(N), then y = draw(N): 2k draws"),
    ("randomPositions-zero", EMPTY, [
        Ev("randomPositions 0 2", PL([(0, 0), (0, 0)], POSL)),
        Ev("uniformChoice (range 0 1000)", N(ST42[0] % 1000)),
    ], "11.2: none (no draws) when N = 0, which yields (0,0)s"),
    ("clicked-script", CLICKS, [
        Step(("C 2 2",)),
        Ev("hits", N(1)), Ev("listHits", N(1)), Ev("plain", N(1)), Ev("click", P(2, 2)),
        Step(("C 4 4",)),
        Ev("hits", N(1)), Ev("listHits", N(2)), Ev("plain", N(2)), Ev("click", P(4, 4)),
        Step(("C 0 0",)),
        Ev("hits", N(1)), Ev("listHits", N(2)), Ev("plain", N(3)),
        Step(()),
        Ev("plain", N(3)), Ev("click", P(0, 0)), Ev("(clicked)", B(False)),
    ], "12.3 clicked / (clicked v): true iff a click is pending [and one of v's rendered cells is at the click]; "
       "v may be a list; 3.6/8.4 click persists after the tick; 8.4 inputs last one tick"),
    ("clicked-defines-click", CLICK_OBJ_ONLY, [
        Step(("C 5 1",)),
        Ev("hits", N(0)), Ev("click", P(5, 1)),
        Step(("C 2 2",)),
        Ev("hits", N(1)), Ev("click", P(2, 2)),
    ], "12.3: either form (re)defines click first when a click is pending, even when (clicked v) is false"),
    ("clicked-last-wins", CLICK_OBJ_ONLY, [
        Step(("C 0 0", "C 2 2")),
        Ev("hits", N(1)), Ev("click", P(2, 2)),
    ], "8.4: a later click before the same step overwrites the coordinates"),
    ("clicked-offgrid", CLICK_OBJ_ONLY, [
        Step(("C -3 9",)),
        Ev("click", P(-3, 9)),
    ], "8.4: off-grid coordinates are accepted"),
    ("left-arrows", ARROWS, [
        Step(("L",)), Ev("list l r u d", NL([1, 0, 0, 0])),
        Step(("R",)), Ev("list l r u d", NL([1, 1, 0, 0])),
        Step(("U",)), Ev("list l r u d", NL([1, 1, 1, 0])),
        Step(("D",)), Ev("list l r u d", NL([1, 1, 1, 1])),
        Step(("L", "D")), Ev("list l r u d", NL([2, 1, 1, 2])),
        Step(()), Ev("list l r u d", NL([2, 1, 1, 2])),
    ], "12.3 left right up down: true iff that arrow is pending; any arguments are ignored; 8.4 one tick only"),
    ("removeObj-global", REMOVE_GLOBAL, [
        Frame(["o..", "...", "..o"], {"o": "gold"}),
        Ev('defined "coin"', B(True)),
        Ev("length (list (removeObj coin))", N(1)),
        Ev('defined "coin"', B(False)),
        Ev('defined "spare"', B(True)),
        Frame(["...", "...", "..o"], {"o": "gold"}),
        Step(()), Ev("n", N(1)),
        Frame(["...", "...", "..o"], {"o": "gold"}),
    ], "12.1 (removeObj v): deletes from the global table the first global whose value has v's identity, then returns v; "
       "it is no longer rendered"),
    ("removeObj-global-returns-v", REMOVE_GLOBAL, [
        Ev("== (removeObj spare) (Coin (Position 2 2))", B(True)),
        Ev('defined "spare"', B(False)),
        Ev('defined "coin"', B(True)),
    ], "12.1 (removeObj v): returns v itself; only the global with v's identity goes"),
    ("removeObj-global-copy", REMOVE_GLOBAL, [
        Ev("length (list (removeObj (updateObj coin \"origin\" (Position 1 1))))", N(1)),
        Ev('defined "coin"', B(True)),
    ], "5.7: a copy has a new identity, so one-argument removeObj of a copy deletes nothing"),
    ("renderAll-order", RENDERALL, [
        Ev("map (--> e (.. e color)) ((renderAll))", SL(["white", "red"])),
        Ev("map (--> e (.. e position)) ((renderAll))", PL([(0, 0), (1, 0)])),
    ], "12.2 renderAll: in the global table's definition history order, with no state-variable-first rule "
       "(k is defined before the state variable s)"),
    ("renderAll-cache-no-occupancy", RENDERALL, [
        Ev("map (--> e (.. e color)) cacheRendered", SL(["red", "white"])),
        Ev("isFreePos (Position 2 2)", B(True)),
        Ev('= s (updateObj s "origin" (Position 2 2))', ANY),
        Ev("length ((renderAll))", N(2)),
        Ev("map (--> e (.. e color)) cacheRendered", SL(["white", "red"])),
        Ev("isFreePos (Position 2 2)", B(True)),
        Render(),
        Ev("isFreePos (Position 2 2)", B(False)),
        Ev("map (--> e (.. e color)) cacheRendered", SL(["red", "white"])),
    ], "12.2 renderAll sets cacheRendered and does NOT touch occupancy; 10.1 the host render does both "
       "(host order: state variables first)"),
    ("prev-script", PREVS, [
        Step(()), Step(()),
        Ev("n", N(2)), Ev("prev n", N(1)), Ev('prev "n"', N(1)),
        Ev("prev nope", AutumnRuntimeError),
    ], "8.3: (prev name) is the snapshot's value; (prev \"name\") the string form; a missing global is an error"),
]

# 12.1 says "Inside (updateObj L (--> e (removeObj e))) it removes nothing from the list, since
# list elements are not globals, and returns e unchanged." In the first row below the elements
# *are* the values of the globals coin and spare (reading a variable keeps the identity, 5.7 #2),
# so the one-argument form deletes those globals; the second row is the spec's own case.
BUILTIN_SCRIPTS.append(("removeObj-list-element-deletes", REMOVE_GLOBAL, [
    Ev("length (updateObj (list coin spare) (--> e (removeObj e)))", N(2)),
    Ev('defined "coin"', B(False)),
    Ev('defined "spare"', B(False)),
], "12.1/5.7 #2: list elements read from globals keep the globals' identities"))
BUILTIN_SCRIPTS.append(("removeObj-list-element-fresh", REMOVE_GLOBAL, [
    Ev("length (updateObj (list (Coin (Position 1 1))) (--> e (removeObj e)))", N(1)),
    Ev('defined "coin"', B(True)),
    Ev('defined "spare"', B(True)),
], "12.1: inside updateObj on a list of fresh objects, (removeObj e) removes nothing and returns e"))


@pytest.mark.parametrize("script_id,program,ops,spec", BUILTIN_SCRIPTS, ids=[s[0] for s in BUILTIN_SCRIPTS])
def test_builtin_script(script_id, program, ops, spec):
    run_ops(program, ops)


# --------------------------------------------------------------------------- stdlib rows (13)

STDLIB_ROWS: list[tuple[str, str, str, Any, str]] = [
    # (id, program, expression, expected, spec sentence)
    # move family
    ("move-1", "STD", ".. (move a (Position 2 -1)) origin", P(3, 0), "13.2 move (obj dir): copy of obj with origin + dir"),
    ("move-2", "STD", ".. (move a (Position -5 0)) origin", P(-4, 1), "13.2: none of these checks bounds"),
    ("move-3", "STD", ".. (move a (Position 0 0)) c", S("red"), "13.2 move: a copy keeps the fields"),
    ("move-4", "STD", "length (removeObj (list a) (move a (Position 0 0)))", N(1), "5.7 #1: copying happens in move (new identity)"),
    ("moveRight-1", "STD", ".. (moveRight a) origin", P(2, 1), "13.2 moveRight: move by (1,0)"),
    ("moveLeft-1", "STD", ".. (moveLeft a) origin", P(0, 1), "13.2 moveLeft: move by (-1,0)"),
    ("moveUp-1", "STD", ".. (moveUp a) origin", P(1, 0), "13.2 moveUp: move by (0,-1)"),
    ("moveDown-1", "STD", ".. (moveDown a) origin", P(1, 2), "13.2 moveDown: move by (0,1)"),
    ("moveUp-2", "STD", ".. (moveUp (moveUp a)) origin", P(1, -1), "13.2: plain move* has no bounds check"),
    ("moveLeft-2", "STD", ".. (moveLeft a) c", S("red"), "13.2 move*: a copy of obj"),
    # NoCollision family
    ("moveNoCollision-1", "STD", ".. (moveNoCollision a 1 0) origin", P(2, 1), "13.2 moveNoCollision: m if isFreeExcept(m, obj)"),
    ("moveNoCollision-2", "STD", ".. (moveNoCollision a 0 2) origin", P(1, 1), "13.2 moveNoCollision: else obj ((1,3) is bar's)"),
    ("moveNoCollision-3", "STD", ".. (moveNoCollision a -3 0) origin", P(-2, 1), "13.2 moveNoCollision: no bounds check (C19)"),
    ("moveNoCollision-4", "STD", ".. (moveNoCollision bar 1 0) origin", P(0, 3), "13.2 isFreeExcept compares colour: the red/blue bar blocks itself"),
    ("moveNoCollision-5", "STD", ".. (moveNoCollision mono 1 0) origin", P(3, 5), "13.2 isFreeExcept: a one-colour bar's own cells are excluded"),
    ("moveNoCollision-6", "STD", "length (removeObj (list a) (moveNoCollision a 0 2))", N(0), "13.2 moveNoCollision: 'else obj' returns obj itself"),
    ("moveCanCollision-1", "STD", ".. (moveCanCollision a -1 2 bar) origin", P(0, 3), "13.2 moveCanCollision: isFreeExcept(m, (list obj obj2)): bar's red cell (0,3) equals m's"),
    ("moveCanCollision-2", "STD", ".. (moveNoCollision a -1 2) origin", P(1, 1), "13.2 moveNoCollision: without obj2 the same move is blocked"),
    ("moveCanCollision-3", "STD", ".. (moveCanCollision a 0 2 bar) origin", P(1, 1), "13.2: the exception compares colours: bar's (1,3) is blue, m is red"),
    ("moveLeftNoCollision-1", "STD", ".. (moveLeftNoCollision a) origin", P(0, 1), "13.2 moveLeftNoCollision: in bounds and free"),
    ("moveLeftNoCollision-2", "STD", ".. (moveLeftNoCollision bar) origin", P(0, 3), "13.2 moveLeftNoCollision: out of bounds -> obj"),
    ("moveLeftNoCollision-3", "STD", ".. (moveLeftNoCollision (Mk \"x\" (Position 2 1))) origin", P(2, 1), "13.2 moveLeftNoCollision: (1,1) is a's -> obj"),
    ("moveRightNoCollision-1", "STD", ".. (moveRightNoCollision a) origin", P(2, 1), "13.2 moveRightNoCollision: moved copy if both hold"),
    ("moveRightNoCollision-2", "STD", ".. (moveRightNoCollision (Mk \"x\" (Position 5 0))) origin", P(5, 0), "13.2 moveRightNoCollision: the bounds test fails -> obj"),
    ("moveRightNoCollision-3", "STD", ".. (moveRightNoCollision (Mk \"x\" (Position 3 4))) origin", P(3, 4), "13.2 moveRightNoCollision: (4,4) is b's -> obj"),
    ("moveRightNoCollision-4", "STD", ".. (moveRightNoCollision bar) origin", P(0, 3), "13.2/C22: a two-colour bar blocks itself"),
    ("moveUpNoCollision-1", "STD", ".. (moveUpNoCollision a) origin", P(1, 1), "13.2 moveUpNoCollision: (1,0) holds the blue Mk of gs -> obj"),
    ("moveUpNoCollision-4", "STD", ".. (moveUpNoCollision b) origin", P(4, 3), "13.2 moveUpNoCollision: in bounds and free -> moved"),
    ("moveUpNoCollision-2", "STD", ".. (moveUpNoCollision wall) origin", P(3, 0), "13.2 moveUpNoCollision: out of bounds -> obj"),
    ("moveUpNoCollision-3", "STD", ".. (moveUpNoCollision (Mk \"x\" (Position 1 2))) origin", P(1, 2), "13.2 moveUpNoCollision: (1,1) is a's -> obj"),
    ("moveDownNoCollision-1", "STD", ".. (moveDownNoCollision a) origin", P(1, 2), "13.2 moveDownNoCollision"),
    ("moveDownNoCollision-2", "STD", ".. (moveDownNoCollision mono) origin", P(2, 5), "13.2 moveDownNoCollision: out of bounds -> obj"),
    ("moveDownNoCollision-3", "STD", ".. (moveDownNoCollision c2) origin", P(0, 2), "13.2 moveDownNoCollision: (0,3) is bar's red cell, not c2's -> obj"),
    ("nextSolid-1", "STD", ".. (nextSolid a) origin", P(1, 2), "13.2 nextSolid: identical to moveDownNoCollision"),
    ("nextSolid-2", "STD", ".. (nextSolid mono) origin", P(2, 5), "13.2 nextSolid: identical to moveDownNoCollision"),
    ("nextSolid-3", "STD", ".. (nextSolid c2) origin", P(0, 2), "13.2 nextSolid: identical to moveDownNoCollision"),
    # rotateNoCollision
    ("rotateNoCollision-1", "STD", "map (--> e (.. e position)) (renderValue (rotateNoCollision bar))", PL([(0, 3), (0, 2)]),
     "13.2 rotateNoCollision: 3 clockwise quarter-turns if the first rotation is in bounds ((1,0) -> (0,-1)); "
     "the collision test always passes, so blue lands on c2's cell (0,2)"),
    ("rotateNoCollision-2", "STD", "map (--> e (.. e position)) (renderValue (rotateNoCollision (Vert (Position 0 0))))", PL([(0, 0), (-1, 0)]),
     "13.2 rotateNoCollision: 1 turn when the first rotation leaves the grid ((0,1) -> (-1,0)), and obj is returned"),
    ("rotateNoCollision-3", "STD", "let (= r (rotateNoCollision bar)) (map (--> e (.. e position)) (renderValue bar))", PL([(0, 3), (0, 2)]),
     "7.4: the rotations mutate the cells obj shares"),
    # movePos family
    ("movePos-1", "STD", "movePos (Position 1 2) (Position 3 -1)", P(4, 1), "13.2 movePos: Position(pos.x+dir.x, pos.y+dir.y)"),
    ("moveRightPos-1", "STD", "moveRightPos (Position 0 0)", P(1, 0), "13.2 moveRightPos: unit vector (1,0)"),
    ("moveLeftPos-1", "STD", "moveLeftPos (Position 0 0)", P(-1, 0), "13.2 moveLeftPos: (-1,0)"),
    ("moveUpPos-1", "STD", "moveUpPos (Position 0 0)", P(0, -1), "13.2 moveUpPos: (0,-1)"),
    ("moveDownPos-1", "STD", "moveDownPos (Position 0 0)", P(0, 1), "13.2 moveDownPos: (0,1)"),
    # abs sign max min
    ("abs-1", "STD", "abs -5", N(5), "13.2 abs"),
    ("abs-2", "STD", "abs 0", N(0), "13.2 abs"),
    ("abs-3", "STD", "abs 7", N(7), "13.2 abs"),
    ("abs-4", "STD", "abs (- -2147483647 1)", N(-2147483648), "13.2 abs with 4.4: negation wraps at 32 bits"),
    ("sign-1", "STD", "sign -7", N(-1), "13.2 sign: -1/0/1"),
    ("sign-2", "STD", "sign 0", N(0), "13.2 sign"),
    ("sign-3", "STD", "sign 9", N(1), "13.2 sign"),
    ("max-1", "STD", "max 3 5", N(5), "13.2 max: b when a < b"),
    ("max-2", "STD", "max 5 3", N(5), "13.2 max: otherwise a"),
    ("max-3", "STD", "max -4 -4", N(-4), "13.2 max"),
    ("min-1", "STD", "min 3 5", N(3), "13.2 min: a when a < b"),
    ("min-2", "STD", "min 5 3", N(3), "13.2 min: otherwise b"),
    ("min-3", "STD", 'min "a" 1', AutumnRuntimeError, "4.4: a non-Number operand to an ordering operator is an error"),
    # deltaPos / displacement / deltaElem / deltaObj / sqdist
    ("deltaPos-1", "STD", "deltaPos (Position 1 2) (Position 4 0)", P(3, -2), "13.2 deltaPos: Position(pos2.x-pos1.x, pos2.y-pos1.y)"),
    ("displacement-1", "STD", "displacement (Position 1 2) (Position 4 0)", P(3, -2), "13.2 displacement: alias of deltaPos"),
    ("displacement-2", "STD", "== displacement deltaPos", B(True), "13.2 alias; 5.3 functions compare by identity"),
    ("deltaElem-1", "STD", 'deltaElem (RenderedElem (Position 1 1) "red") (RenderedElem (Position 0 3) "blue")', P(-1, 2), "13.2 deltaElem: deltaPos of the two RenderedElems' positions"),
    ("deltaObj-1", "STD", "deltaObj a b", P(3, 3), "13.2 deltaObj: deltaPos of the two origins"),
    ("sqdist-1", "STD", "sqdist (Position 0 0) (Position 3 4)", N(25), "13.2 sqdist: dx^2+dy^2"),
    ("sqdist-2", "STD", "sqdist (Position 4 4) (Position 1 2)", N(13), "13.2 sqdist"),
    # rect
    ("rect-1", "STD", "rect (Position 1 2) (Position 3 4)", PL([(1, 2), (2, 2), (1, 3), (2, 3)]), "13.2 rect: y outer, x inner (row-major); tag List<Unknown>"),
    ("rect-2", "STD", "rect (Position 2 2) (Position 2 5)", PL([]), "13.2 rect: pos1.x <= x < pos2.x is empty"),
    # unitVector family
    ("unitVector-1", "STD", "unitVector a b", P(1, 0), "13.2 unitVector: (sx, 0) if both are non-zero (horizontal preference)"),
    ("unitVector-2", "STD", "unitVector b a", P(-1, 0), "13.2 unitVector: horizontal preference"),
    ("unitVector-3", "STD", 'unitVector a (Mk "x" (Position 1 5))', P(0, 1), "13.2 unitVector: else (sx, sy)"),
    ("unitVector-4", "STD", "unitVector a a", P(0, 0), "13.2 unitVector: (0,0) on the same spot"),
    ("unitVectorObjPos-1", "STD", "unitVectorObjPos a (Position 0 5)", P(-1, 0), "13.2 unitVectorObjPos: same, pos as the target"),
    ("unitVectorObjPos-2", "STD", "unitVectorObjPos a (Position 1 0)", P(0, -1), "13.2 unitVectorObjPos"),
    ("unitVectorSinglePos-1", "STD", "unitVectorSinglePos (Position -3 7)", P(-1, 1), "13.2 unitVectorSinglePos: no diagonal suppression"),
    ("unitVectorSinglePos-2", "STD", "unitVectorSinglePos (Position 0 -2)", P(0, -1), "13.2 unitVectorSinglePos"),
    # closest / closestPos
    ("closest-1", "STD", ".. (closest a (list)) c", S("red"), "13.2 closest: obj if the list is empty"),
    ("closest-2", "STD", '.. (closest a (list (Mk "x1" (Position 1 3)) (Mk "x2" (Position 3 1)))) c', S("x2"), "13.2 closest: ties go to the later element"),
    ("closest-3", "STD", '.. (closest a (list (Mk "near" (Position 1 2)) (Mk "far" (Position 5 5)))) c', S("near"), "13.2 closest: strictly smaller keeps the accumulator"),
    ("closest-4", "STD", '.. (closest a (list (Mk "far" (Position 5 5)) (Mk "near" (Position 1 2)))) c', S("near"), "13.2 closest"),
    ("closest-5", "STD", '.. (closest a (list (Mk "p" (Position 0 1)) (Mk "q" (Position 4 4)) (Mk "r" (Position 2 1)))) c', S("r"), "13.2 closest: a later tie replaces an earlier best"),
    ("closestPos-1", "STD", "closestPos a (list)", P(1, 1), "13.2 closestPos: obj.origin if empty"),
    ("closestPos-2", "STD", "closestPos a (list (Position 0 1) (Position 2 1))", P(2, 1), "13.2 closestPos: ties to the later element"),
    ("closestPos-3", "STD", "closestPos a (list (Position 1 2) (Position 5 5))", P(1, 2), "13.2 closestPos"),
    # adjacency
    ("adjacentElem-1", "STD", 'adjacentElem (RenderedElem (Position 1 1) "red") (RenderedElem (Position 1 2) "red")', B(True), "13.2 adjacentElem: Manhattan distance exactly 1"),
    ("adjacentElem-2", "STD", 'adjacentElem (RenderedElem (Position 1 1) "red") (RenderedElem (Position 2 2) "red")', B(False), "13.2 adjacentElem: distance 2"),
    ("adjacentElem-3", "STD", 'adjacentElem (RenderedElem (Position 1 1) "red") (RenderedElem (Position 1 1) "blue")', B(False), "13.2 adjacentElem: exactly 1, so distance 0 is not adjacent"),
    ("adjacentPoss-1", "STD", "adjacentPoss (Position 1 1) (Position 1 1) 1", B(True), "13.2 adjacentPoss: includes distance 0"),
    ("adjacentPoss-2", "STD", "adjacentPoss (Position 1 1) (Position 2 2) 2", B(True), "13.2 adjacentPoss: Manhattan <= unitSize"),
    ("adjacentPoss-3", "STD", "adjacentPoss (Position 1 1) (Position 2 2) 1", B(False), "13.2 adjacentPoss"),
    ("adjacentTwoObjs-1", "STD", 'adjacentTwoObjs a (Mk "x" (Position 2 1)) 1', B(True), "13.2 adjacentTwoObjs: adjacentPoss of the origins"),
    ("adjacentTwoObjs-2", "STD", "adjacentTwoObjs a a 1", B(True), "13.2: distance 0 included"),
    ("adjacentTwoObjs-3", "STD", "adjacentTwoObjs a b 5", B(False), "13.2 adjacentTwoObjs: distance 6"),
    ("adjacentTwoObjs-4", "STD", "adjacentTwoObjs a b 6", B(True), "13.2 adjacentTwoObjs"),
    ("adjacentPossDiag-1", "STD", "adjacentPossDiag (Position 1 1) (Position 2 2)", B(True), "13.2 adjacentPossDiag: |dx| <= 1 and |dy| <= 1"),
    ("adjacentPossDiag-2", "STD", "adjacentPossDiag (Position 1 1) (Position 1 1)", B(True), "13.2 adjacentPossDiag: including equal positions"),
    ("adjacentPossDiag-3", "STD", "adjacentPossDiag (Position 1 1) (Position 3 1)", B(False), "13.2 adjacentPossDiag"),
    ("adjacentTwoObjsDiag-1", "STD", 'adjacentTwoObjsDiag a (Mk "x" (Position 2 0))', B(True), "13.2 adjacentTwoObjsDiag: on origins"),
    ("adjacentTwoObjsDiag-2", "STD", "adjacentTwoObjsDiag a b", B(False), "13.2 adjacentTwoObjsDiag"),
    ("adjacentObjs-1", "STD", "length (adjacentObjs a 1)", N(2), "13.2 adjacentObjs: a itself (distance 0, obj1 is a global) and the blue Mk of gs at (1,0)"),
    ("adjacentObjs-2", "STD", "length (filter (--> o (== o a)) (adjacentObjs a 1))", N(1), "13.2 adjacentObjs: includes obj1 itself when obj1 is a global"),
    ("adjacentObjs-3", "STD", "length (adjacentObjs a 2)", N(4), "13.2 adjacentObjs: a, c2 and both gs objects (distance <= 2)"),
    ("adjacentObjs-4", "STD", "length (adjacentObjs (list a b) 1)", N(3), "13.2 adjacentObjs: if obj1 is a list, adjacent to any element (a, gs's (1,0), b)"),
    ("adjacentObjs-5", "STD", 'length (adjacentObjs (Mk "x" (Position 5 0)) 1)', N(0), "13.2 adjacentObjs: the objects of ((allObjs)); a non-global obj1 is not among them"),
    ("adjacentObjs-6", "STD", 'map (--> o (.. o c)) (adjacentObjs (Mk "x" (Position 5 0)) 2)', SL(["gray"]), "13.2 adjacentObjs: the wall at distance 2"),
    ("adjacentObjsDiag-1", "STD", "length (adjacentObjsDiag a)", N(4), "13.2 adjacentObjsDiag: a itself, c2 (0,2), gs's (0,0) and (1,0)"),
    ("adjacentObjsDiag-2", "STD", "length (adjacentObjsDiag (list wall b))", N(3), "13.2 adjacentObjsDiag: list form: wall, b and g (5,5) diagonal to b"),
    ("adj-1", "STD", "adj a (list b wall) 3", B(True), "13.2 adj: any element of objs is adjacentTwoObjs to obj (wall at 3)"),
    ("adj-2", "STD", "adj a (list b) 3", B(False), "13.2 adj"),
    ("adj-3", "STD", "adj a (list) 1", B(False), "13.2 adj: no elements"),
    # objClicked (with a click: the scripts)
    ("objClicked-1", "STD", "objClicked (list a b)", L([], UNK), "13.2 objClicked: (clicked obj) is false without a pending click"),
    # renderValue
    ("renderValue-1", "STD", "map (--> e (.. e color)) (renderValue bar)", SL(["red", "blue"]), "13.2 renderValue: an object gives ((.. obj render)), in elems order"),
    ("renderValue-2", "STD", "map (--> e (.. e position)) (renderValue (list a (list b)))", PL([(1, 1), (4, 4)]), "13.2 renderValue: a list gives the concatenation over its elements"),
    ("renderValue-3", "STD", "renderValue (list)", L([], UNK), "13.2 renderValue of an empty list"),
    # sum
    ("sum-1", "STD", "sum xs", N(6), "13.2 sum: fold of + starting at 0"),
    ("sum-2", "STD", "sum (list)", N(0), "13.2 sum"),
    # intersects family
    ("intersectsElems-1", "STD", "intersectsElems (list) (list)", B(False), "13.2 intersectsElems: false if either is empty"),
    ("intersectsElems-2", "STD", 'intersectsElems (list (RenderedElem (Position 1 1) "red")) (list (RenderedElem (Position 0 0) "red") (RenderedElem (Position 1 1) "blue"))', B(True), "13.2 intersectsElems: equal positions (colour ignored)"),
    ("intersectsElems-3", "STD", 'intersectsElems (list (RenderedElem (Position 1 1) "red")) (list (RenderedElem (Position 0 0) "red"))', B(False), "13.2 intersectsElems"),
    ("intersectsPosElems-1", "STD", "intersectsPosElems (Position 1 1) (renderValue a)", B(True), "13.2 intersectsPosElems: some elem's position equals pos"),
    ("intersectsPosElems-2", "STD", "intersectsPosElems (Position 2 2) (renderValue a)", B(False), "13.2 intersectsPosElems"),
    ("intersectsPosPoss-1", "STD", "intersectsPosPoss (Position 1 2) (list (Position 0 0) (Position 1 2))", B(True), "13.2 intersectsPosPoss: some element equals pos"),
    ("intersectsPosPoss-2", "STD", "intersectsPosPoss (Position 1 2) (list (Position 2 1))", B(False), "13.2 intersectsPosPoss"),
    ("intersects-1", "STD", "intersects a b", B(False), "13.2 intersects"),
    ("intersects-2", "STD", 'intersects bar (Mk "x" (Position 1 3))', B(True), "13.2 intersects: positions only, colour ignored"),
    ("intersects-3", "STD", 'intersects (list a b) (Mk "q" (Position 4 4))', B(True), "13.2 intersects: either side may be a list"),
    ("intersects-4", "STD", "intersects a (list)", B(False), "13.2 intersectsElems: false if either is empty"),
    # isFree / in / isFreeExcept / isFreePosExceptObj / isFreeRangeExceptObj
    ("isFree-1", "STD", 'isFree (Mk "x" (Position 2 2))', B(True), "13.2 isFree: no rendered cell at an occupied position"),
    ("isFree-2", "STD", "isFree a", B(False), "13.2 isFree: an object's own current cells count as occupied"),
    ("isFree-3", "STD", 'isFree (list (Mk "x" (Position 2 2)) (Mk "y" (Position 4 4)))', B(False), "13.2 isFree: object or list"),
    ("isFree-4", "STD", "isFree (list)", B(True), "13.2 isFree: nothing rendered"),
    ("isFree-5", "STD", "isFree (Far (Position 0 0))", B(True), "10.1: the off-grid cell (-1,0) is free unless rendered"),
    ("in-1", "STD", "in 2 xs", B(True), "13.2 in: some element == e"),
    ("in-2", "STD", "in 5 xs", B(False), "13.2 in"),
    ("in-3", "STD", "in (Position 1 1) (list (Position 1 1))", B(True), "13.2 in with 5.3 field-wise equality"),
    ("in-4", "STD", "in 1 (list true)", B(False), "13.2 in is (== element e): Bool == Number is always false (5.3)"),
    ("in-5", "STD", "in true (list 1)", B(True), "13.2 in is (== element e): Number == Bool compares n with 1 (5.3)"),
    ("isFreeExcept-1", "STD", "isFreeExcept (moveRight mono) mono", B(True), "13.2 isFreeExcept: cells equal to prev_obj's are dropped"),
    ("isFreeExcept-2", "STD", "isFreeExcept (moveRight bar) bar", B(False), "13.2 isFreeExcept: equal means position AND colour (red on blue's cell blocks)"),
    ("isFreeExcept-3", "STD", "isFreeExcept a a", B(True), "13.2 isFreeExcept: all cells filtered"),
    ("isFreeExcept-4", "STD", 'isFreeExcept (Mk "green" (Position 1 1)) a', B(False), "13.2 isFreeExcept is colour-sensitive"),
    ("isFreeExcept-5", "STD", 'isFreeExcept (Mk "red" (Position 2 2)) a', B(True), "13.2 isFreeExcept: free cells"),
    ("isFreePosExceptObj-1", "STD", "isFreePosExceptObj (Position 1 1) a", B(True), "13.2 isFreePosExceptObj: pos is one of obj's rendered positions"),
    ("isFreePosExceptObj-2", "STD", "isFreePosExceptObj (Position 1 1) b", B(False), "13.2 isFreePosExceptObj: occupied by another"),
    ("isFreePosExceptObj-3", "STD", "isFreePosExceptObj (Position 2 2) b", B(True), "13.2 isFreePosExceptObj: isFreePos(pos)"),
    ("isFreeRangeExceptObj-1", "STD", "isFreeRangeExceptObj 4 6 a", B(True), "13.2 isFreeRangeExceptObj: (x,0) for x in [start,end) all free"),
    ("isFreeRangeExceptObj-2", "STD", "isFreeRangeExceptObj 2 4 a", B(False), "13.2 isFreeRangeExceptObj: (3,0) is the wall"),
    ("isFreeRangeExceptObj-3", "STD", "isFreeRangeExceptObj 2 4 wall", B(True), "13.2 isFreeRangeExceptObj: skipping those that are cells of obj"),
    ("isFreeRangeExceptObj-4", "STD", "isFreeRangeExceptObj 0 2 c2", B(False), "13.2 isFreeRangeExceptObj: always row 0 ((0,0),(1,0) hold gs; c2's own row 2 would pass)"),
    ("isFreeRangeExceptObj-5", "STD", "isFreeRangeExceptObj 3 3 b", B(True), "13.2 isFreeRangeExceptObj: empty range"),
    # nextLiquid
    ("nextLiquid-1", "STD", ".. (nextLiquid a) origin", P(1, 2), "13.2 nextLiquid (1): not on the last row and isFree(moveDown obj): fall"),
    ("nextLiquid-2", "STD", ".. (nextLiquid mono) origin", P(2, 5), "13.2 nextLiquid (2): R is empty on the last row -> obj"),
    ("nextLiquid-3", "STD", ".. (nextLiquid c2) origin", P(1, 2), "13.2 nextLiquid (2): one step sideways toward the nearest hole (2,3)"),
    ("nextLiquid-4", "STD", "length (removeObj (list a) (nextLiquid a))", N(1), "13.2 nextLiquid returns a (moved) copy when it falls"),
    ("nextLiquid-5", "STD", "length (removeObj (list mono) (nextLiquid mono))", N(0), "13.2 nextLiquid returns obj itself when it stays"),
    ("nextLiquidClosestHole-1", "STD", ".. (nextLiquidClosestHole c2 (list (Position 2 3) (Position 4 3))) origin", P(1, 2),
     "13.2 nextLiquidClosestHole: the first half of step (2): closestPos, then a step toward (2,3)"),
    ("nextLiquidMoveClosestHole-1", "STD", ".. (nextLiquidMoveClosestHole a (Position 3 3)) origin", P(2, 1),
     "13.2 nextLiquidMoveClosestHole: dir = unitVectorObjPos(obj, h up one) = (1,0) (horizontal preference), m = move(obj, dir)"),
    ("nextLiquidMoveClosestHole-2", "STD", ".. (nextLiquidMoveClosestHole a (Position 1 1)) origin", P(1, 1),
     "13.2 nextLiquidMoveClosestHole: obj unless isFreePos(h up one): (1,0) is occupied"),
    # vcat
    ("vcat-1", "STD", "vcat (list (list 1) (list 2 3))", NL([1, 2, 3], UNK), "13.2 vcat: the same function as concat"),
    ("vcat-2", "STD", "== vcat concat", B(True), "13.2 vcat: the same function VALUE as the native concat"),
    # 13.3: the names they assign (CLOB has globals of those names and types)
    ("sqdist-assigns", "CLOB", "let (= i (sqdist (Position 1 1) (Position 4 5))) delta", P(3, 4), "13.3: sqdist assigns delta"),
    ("adjacentElem-assigns", "CLOB", 'let (= i (adjacentElem (RenderedElem (Position 0 0) "red") (RenderedElem (Position 2 3) "red"))) delta', P(2, 3), "13.3: adjacentElem assigns delta"),
    ("adjacentPoss-assigns", "CLOB", "let (= i (adjacentPoss (Position 0 0) (Position 1 2) 5)) delta", P(1, 2), "13.3: adjacentPoss assigns delta"),
    ("adjacentPossDiag-assigns", "CLOB", "let (= i (adjacentPossDiag (Position 2 2) (Position 1 1))) delta", P(-1, -1), "13.3: adjacentPossDiag assigns delta"),
    ("unitVector-assigns", "CLOB", 'let (= i (unitVector a (Mk "x" (Position 3 0)))) (list delta (Position sign_x sign_y))', PL([(2, -1), (1, -1)], POSL), "13.3: unitVector assigns delta sign_x sign_y"),
    ("unitVectorObjPos-assigns", "CLOB", "let (= i (unitVectorObjPos a (Position 0 4))) (list delta (Position sign_x sign_y))", PL([(-1, 3), (-1, 1)], POSL), "13.3: unitVectorObjPos assigns delta sign_x sign_y"),
    ("unitVectorSinglePos-assigns", "CLOB", "let (= i (unitVectorSinglePos (Position 0 -5))) (list delta (Position sign_x sign_y))", PL([(9, 9), (0, -1)], POSL), "13.2: unitVectorSinglePos assigns sign_x sign_y (not delta)"),
    ("rect-assigns", "CLOB", "let (= i (rect (Position 1 2) (Position 3 4))) (list xmin xmax ymin ymax (length rectPos))", NL([1, 3, 2, 4, 4]), "13.3: rect assigns xmin xmax ymin ymax rectPos"),
    ("isFreeExcept-assigns", "CLOB", 'let (= i (isFreeExcept (Mk "green" (Position 2 2)) a)) (list (.. (head prev_elems) color) (.. (head curr_elems) color) (.. (head filtered_elems) color))', SL(["red", "green", "green"], STR), "13.2: isFreeExcept assigns prev_elems, curr_elems, filtered_elems"),
    ("moveRightNoCollision-assigns", "CLOB", "let (= i (moveRightNoCollision a)) (list wbound fr)", L([B(True), B(True)], BOOL), "13.2: moveRightNoCollision assigns wbound, fr"),
    ("moveRightNoCollision-unconditional", "CLOB", 'let (= i (moveRightNoCollision (Mk "x" (Position 5 0)))) (list wbound fr (length curr_elems))', L([B(False), B(True), N(1)], "Unknown"),
     "13.2: moveRightNoCollision computes the bounds test and the isFreeExcept test both, unconditionally"),
    ("moveLeftNoCollision-short-circuit", "CLOB", 'let (= i (moveLeftNoCollision (Mk "x" (Position 0 0)))) (length curr_elems)', N(0),
     "13.2: moveLeftNoCollision tests isFreeExcept only if isWithinBounds holds"),
    ("moveLeftNoCollision-in-bounds", "CLOB", 'let (= i (moveLeftNoCollision (Mk "x" (Position 3 3)))) (length curr_elems)', N(1),
     "13.2: in bounds, moveLeftNoCollision does call isFreeExcept"),
    ("isFreeRangeExceptObj-assigns", "CLOB", "let (= i (isFreeRangeExceptObj 0 3 a)) (list (length allCheckedPos) (length prev_elems) (length filtered_pos))", NL([3, 1, 3]), "13.2: isFreeRangeExceptObj assigns allCheckedPos, prev_elems, filtered_pos"),
    ("isFreeRangeExceptObj-assigns-2", "CLOB", "let (= i (isFreeRangeExceptObj 0 3 a)) (head prev_elems)", P(1, 1), "13.2: prev_elems holds obj's rendered positions"),
    ("nextLiquid-assigns", "CLOB", 'let (= m (nextLiquid (Mk "x" (Position 1 0)))) (list (length nextRowPos) (length holes) (.. m origin) closestHole dir delta)',
     L([N(6), N(5), P(2, 0), P(2, 1), P(1, 0), P(1, 0)], "Unknown"),
     "13.2 nextLiquid assigns nextRowPos holes closestHole dir (and unitVectorObjPos delta); the closest holes (0,1),(2,1) tie -> larger x"),
    ("clobber-type-error", "CLOB", "let (= xmin \"s\") 1", AutumnRuntimeError, "5.6: reassigning a Number global with a String is an error"),
]


CLOB_NUM_DELTA = CLOB.replace("(= delta (Position 9 9))", "(= delta 5)")


def _stdlib_program(key: str) -> str:
    return PROGRAMS[key]


@pytest.mark.parametrize("native", [True, False], ids=["native", "autumn"])
@pytest.mark.parametrize("row_id,prog,expr,expected,spec", STDLIB_ROWS, ids=[r[0] for r in STDLIB_ROWS])
def test_stdlib_row(row_id, prog, expr, expected, spec, native):
    run_ops(_stdlib_program(prog), [Ev(expr, expected)], native=native)


@pytest.mark.parametrize("native", [True, False], ids=["native", "autumn"])
@pytest.mark.parametrize("expr", ["sqdist (Position 0 0) (Position 1 1)",
                                  "adjacentPoss (Position 0 0) (Position 1 1) 1",
                                  "unitVector a a"])
def test_stdlib_clobbering_a_global_of_another_type_is_an_error(expr, native):
    """13.3: if the new value has a different non-list type from the global, the result is a
    type error (5.6). CLOB_NUM_DELTA has a Number named delta."""
    run_ops(CLOB_NUM_DELTA, [Ev(expr, AutumnRuntimeError)], native=native)


def test_every_stdlib_function_has_a_row():
    names = ("move moveRight moveLeft moveUp moveDown moveNoCollision moveCanCollision "
             "rotateNoCollision movePos moveRightPos moveLeftPos moveUpPos moveDownPos abs sign "
             "vcat deltaPos rect displacement deltaElem deltaObj adjacentElem adjacentPoss "
             "adjacentTwoObjs adjacentPossDiag adjacentTwoObjsDiag adjacentObjs adjacentObjsDiag "
             "adj objClicked sqdist unitVector unitVectorObjPos unitVectorSinglePos max min "
             "closest closestPos renderValue sum intersectsElems intersectsPosElems "
             "intersectsPosPoss intersects isFree in isFreeExcept isFreePosExceptObj "
             "isFreeRangeExceptObj moveLeftNoCollision moveRightNoCollision moveUpNoCollision "
             "moveDownNoCollision nextSolid nextLiquid nextLiquidClosestHole "
             "nextLiquidMoveClosestHole").split()
    covered = {r[0].split("-")[0] for r in STDLIB_ROWS} | {s[0].split("-")[0] for s in STDLIB_SCRIPTS}
    assert set(names) <= covered, set(names) - covered


# --------------------------------------------------------------------------- render counts (13 (b))

# After loading SPARK, draws 1 and 2 have been made (construction, run_script's render). Each row:
# the number of further draws the expression makes, i.e. how many times it renders the spark
# (plus one per Spark it constructs). Derived from the stdlib definitions of 13.2.
RENDER_COUNTS: list[tuple[str, str, int, str]] = [
    ("isFree", "isFree s", 1, "13.2 isFree renders obj"),
    ("isFree-list", "isFree (list s s)", 2, "13.2 renderValue of a list renders each element"),
    ("renderValue", "renderValue s", 1, "13.2 renderValue"),
    ("intersects", "intersects s w", 1, "13.2 intersects renders both"),
    ("intersects-empty", "intersects (list) s", 1, "13.2 intersects renders both before intersectsElems tests emptiness"),
    ("isWithinBounds", "isWithinBounds s", 1, "7.3 isWithinBounds renders"),
    ("rotate", "rotate s", 0, "7.3 rotate evaluates nothing"),
    ("move", "move s (Position 1 0)", 0, "13 move copies, no render"),
    ("moveNoCollision", "moveNoCollision s 1 0", 2, "13.2 moveNoCollision: isFreeExcept(m, obj) renders m and obj"),
    ("moveCanCollision", "moveCanCollision s 1 0 w", 2, "13.2 moveCanCollision: isFreeExcept(m, (list obj obj2))"),
    ("isFreeExcept-same", "isFreeExcept s s", 2, "13.2 isFreeExcept: render both"),
    ("isFreeExcept-other", "isFreeExcept s w", 1, "13.2 isFreeExcept: render both (w draws nothing)"),
    ("moveLeftNoCollision", "moveLeftNoCollision s", 3, "13.2: isWithinBounds(moveLeft obj) then isFreeExcept"),
    ("moveLeftNoCollision-edge", "moveLeftNoCollision (Spark (Position 0 0))", 2, "13.2: only then isFreeExcept (1 construction + 1 bounds render)"),
    ("moveRightNoCollision", "moveRightNoCollision s", 3, "13.2 moveRightNoCollision: both tests"),
    ("moveRightNoCollision-edge", "moveRightNoCollision (Spark (Position 5 0))", 4, "13.2 moveRightNoCollision: both tests, unconditionally (1 construction + 3)"),
    ("moveUpNoCollision", "moveUpNoCollision s", 3, "13.2 moveUpNoCollision"),
    ("moveUpNoCollision-edge", "moveUpNoCollision (Spark (Position 0 0))", 2, "13.2 moveUpNoCollision: short-circuit"),
    ("moveDownNoCollision", "moveDownNoCollision s", 3, "13.2 moveDownNoCollision"),
    ("moveDownNoCollision-edge", "moveDownNoCollision (Spark (Position 0 5))", 2, "13.2 moveDownNoCollision: short-circuit"),
    ("nextSolid", "nextSolid s", 3, "13.2 nextSolid = moveDownNoCollision"),
    ("rotateNoCollision", "rotateNoCollision s", 3, "13.2 rotateNoCollision: bounds test and isFreeExcept test render (rotate itself does not)"),
    ("isFreePosExceptObj-free", "isFreePosExceptObj (Position 0 0) s", 0, "13.2 isFreePosExceptObj: isFreePos(pos) or ... (| short-circuits)"),
    ("isFreePosExceptObj-occupied", "isFreePosExceptObj (Position 4 2) s", 1, "13.2 isFreePosExceptObj: renders obj when pos is occupied"),
    ("isFreeRangeExceptObj", "isFreeRangeExceptObj 0 3 s", 1, "13.2 isFreeRangeExceptObj renders obj"),
    ("adjacentObjs", "adjacentObjs s 1", 0, "13.2 adjacentObjs: origins only"),
    ("closest", "closest s (list w)", 0, "13.2 closest: origins only"),
    ("unitVector", "unitVector s w", 0, "13.2 unitVector: origins only"),
    ("adj", "adj s (list w) 1", 0, "13.2 adj: origins only"),
    ("objClicked", "objClicked (list s s)", 0, "8.4: (clicked obj) without a pending click does not render"),
    ("nextLiquid-fall", "nextLiquid s", 1, "13.2 nextLiquid (1): isFree(moveDown obj) renders once, then falls"),
    ("nextLiquid-side", "nextLiquid (Spark (Position 4 1))", 3,
     "13.2 nextLiquid (2): 1 construction, isFree(moveDown) blocked by w, then isWithinBounds(m) after the two isFreePos tests"),
]


@pytest.mark.parametrize("native", [True, False], ids=["native", "autumn"])
@pytest.mark.parametrize("row_id,expr,draws,spec", RENDER_COUNTS, ids=[r[0] for r in RENDER_COUNTS])
def test_stdlib_render_count(row_id, expr, draws, spec, native):
    # Draw k (1-based) is ST42[k-1]; 2 draws happened at load; the probe is draw 3 + draws.
    run_ops(SPARK, [Ev(expr, ANY), Ev("uniformChoice (range 0 1000000)", N(ST42[2 + draws] % 1000000))],
               native=native)


# --------------------------------------------------------------------------- stdlib scripts

LIQUID = """(program
  (= GRID_SIZE 7)
  (object Drop (Cell 0 0 "blue"))
  (object Rock (Cell 0 0 "gray"))
  (= rocks (map (--> x (Rock (Position x 3))) (list 0 2 3 4 5 6)))
  (= d (initnext (Drop (Position 4 2)) (nextLiquid (prev d)))))"""

LIQUID_BLOCKED_SIDE = """(program
  (= GRID_SIZE 7)
  (object Drop (Cell 0 0 "blue"))
  (object Rock (Cell 0 0 "gray"))
  (= rocks (addObj (map (--> x (Rock (Position x 3))) (list 0 2 3 4 5 6)) (Rock (Position 3 2))))
  (= d (initnext (Drop (Position 4 2)) (nextLiquid (prev d)))))"""

LIQUID_COVERED_HOLE = """(program
  (= GRID_SIZE 7)
  (object Drop (Cell 0 0 "blue"))
  (object Rock (Cell 0 0 "gray"))
  (= rocks (addObj (map (--> x (Rock (Position x 3))) (list 0 2 3 4 5 6)) (Rock (Position 1 2))))
  (= d (initnext (Drop (Position 4 2)) (nextLiquid (prev d)))))"""

OBJCLICKED = """(program
  (= GRID_SIZE 6)
  (object Mk (: c String) (Cell 0 0 c))
  (= a (initnext (Mk "red" (Position 1 1)) (prev a)))
  (= b (initnext (Mk "blue" (Position 4 4)) (prev b)))
  (= picked (initnext (list) (prev picked)))
  (on clicked (= picked (objClicked (list a b a)))))"""

TWO_DROPS = """(program
  (= GRID_SIZE 5)
  (object Drop (Cell 0 0 "blue"))
  (object Rock (Cell 0 0 "gray"))
  (= floor (map (--> x (Rock (Position x 2))) (list 0 1 3 4)))
  (= drops (initnext (list (Drop (Position 1 1)) (Drop (Position 3 1))) (updateObj (prev drops) nextLiquid))))"""

STDLIB_SCRIPTS: list[tuple[str, str, list, str]] = [
    ("nextLiquid-walk", LIQUID, [
        Step(()), Ev(".. d origin", P(3, 2)),
        Step(()), Ev(".. d origin", P(2, 2)),
        Step(()), Ev(".. d origin", P(1, 2)),
        Step(()), Ev(".. d origin", P(1, 3)),
        Step(()), Ev(".. d origin", P(1, 4)),
        Step(()), Ev(".. d origin", P(1, 5)),
        Step(()), Ev(".. d origin", P(1, 6)),
        Step(()), Ev(".. d origin", P(1, 6)),
    ], "13.2 nextLiquid: steps sideways toward the only hole (1,3), one cell per tick, then falls; at the last row it stays"),
    ("nextLiquid-blocked-side", LIQUID_BLOCKED_SIDE, [
        Step(()), Ev(".. d origin", P(4, 2)),
    ], "13.2 nextLiquid: return m only if isFreePos(m.origin): (3,2) holds a rock"),
    ("nextLiquid-covered-hole", LIQUID_COVERED_HOLE, [
        Step(()), Ev(".. d origin", P(4, 2)),
    ], "13.2 nextLiquid: a hole p needs isFreePos(p moved up one); (1,2) holds a rock, so no holes -> obj"),
    ("nextLiquid-same-hole", TWO_DROPS, [
        Step(()), Ev("map (--> o (.. o origin)) drops", PL([(2, 1), (2, 1)])),
        Step(()), Ev("map (--> o (.. o origin)) drops", PL([(2, 2), (2, 2)])),
    ], "10.2: objects that moved earlier in the same tick are seen at their old positions: two drops can move into the same hole in one tick"),
    ("objClicked-script", OBJCLICKED, [
        Step(("C 1 1",)), Ev("map (--> o (.. o c)) picked", SL(["red", "red"])),
        Step(("C 4 4",)), Ev("map (--> o (.. o c)) picked", SL(["blue"])),
        Step(("C 0 0",)), Ev("picked", L([], UNK)),
    ], "13.2 objClicked: the elements of objs for which (clicked obj) holds, in order"),
]


@pytest.mark.parametrize("native", [True, False], ids=["native", "autumn"])
@pytest.mark.parametrize("script_id,program,ops,spec", STDLIB_SCRIPTS, ids=[s[0] for s in STDLIB_SCRIPTS])
def test_stdlib_script(script_id, program, ops, spec, native):
    run_ops(program, ops, native=native)


def test_foldl_with_a_two_parameter_lambda_runs_as_the_generic_call_does():
    """foldl runs a two-parameter lambda's body directly: the value, the work charged (one
    unit per element and one per call) and the scope the body sees (its caller's, for dynamic
    scoping: `base` is found there) must be those of ``Runtime.call`` element by element."""
    from llm_eval.autumn import Interpreter
    from llm_eval.autumn.values import AList, Scope

    it = Interpreter()
    it.run_script("(program (= GRID_SIZE 4) (= step (--> (acc x) (+ (* acc 3) (- x base)))))",
                  seed=1)
    rt = it._rt
    foldl, step = rt.G.vars["foldl"].fn, rt.G.vars["step"]
    xs = AList(list(range(1, 40)))
    env = Scope({"base": 5}, rt.G)
    rt.start_budget("evaluation")
    before = rt.work_left
    fast = foldl(env, [step, 2, xs])
    fast_work = before - rt.work_left
    before = rt.work_left
    rt.count_work(len(xs))
    generic = 2
    for x in xs:
        generic = rt.call(step, [generic, x], env)
    assert (fast, fast_work) == (generic, before - rt.work_left) and fast_work == 2 * len(xs)
