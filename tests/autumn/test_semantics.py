"""Edges of the Autumn language that docs/spec/autumn.md describes and section 17 does not already pin.

Each test (or table row) names the spec sentence it checks. Expected values are worked out by
hand from the spec; hash orders (9.1) and random draws (11.1) come from the transcriptions in
``autumn_script``, which are independent of the interpreter.
"""

from __future__ import annotations

import json
import time

import pytest
from autumn_script import (
    NATIVE_ORDER,
    NL,
    STDLIB_ORDER,
    UNK,
    B,
    Ev,
    Frame,
    L,
    N,
    P,
    S,
    SpecHashTable,
    Step,
    grid_rows,
    run_ops,
    spec_states,
)

from llm_eval.autumn import Interpreter, check_program
from llm_eval.errors import (
    AutumnError,
    AutumnInternalError,
    AutumnLimitError,
    AutumnRuntimeError,
    AutumnSeedError,
    AutumnSyntaxError,
)

ST42 = spec_states(42, 64)


def load(program: str, *, seed: int = 42, native: bool = True, **kw) -> Interpreter:
    it = Interpreter(native_stdlib=native, **kw)
    it.run_script(program, seed=seed)
    return it


def load_error(program: str, cls=AutumnError, **kw) -> AutumnError:
    with pytest.raises(cls) as info:
        load(program, **kw)
    assert not isinstance(info.value, AutumnInternalError), info.value
    return info.value


def prog(*statements: str, grid: int = 5) -> str:
    return "(program\n  (= GRID_SIZE %d)\n  " % grid + "\n  ".join(statements) + ")"


MK = '(object Mk (: c String) (Cell 0 0 c))'

# =========================================================================== reader (2.1, 2.6)

READER_ROWS = [
    # (id, program text, expression, expected printed form, spec sentence)
    ("comment-to-eol", "(program (= GRID_SIZE 3) ; (= GRID_SIZE 5)\n (= k 1))", "GRID_SIZE", N(3),
     "2.1: ; starts a comment where a token would start; it runs to the end of the line"),
    ("semicolon-in-number-atom", "(program (= k 3;x))", "k", N(3),
     "2.1: a ; inside an atom is part of the atom: 3;x is the single atom 3;x (first token 3)"),
    ("semicolon-does-not-eat-paren", "(program (= k 4;)\n (= j 5))", "list k j", NL([4, 5]),
     "2.1: ; does not end a symbol, so 4; is one atom and the ) after it still closes the list"),
    ("semicolon-in-name-atom", "(program (= x;y 4))", "x", N(4),
     "2.1/2.2: x;y is one atom whose first token is the identifier x"),
    ("quote-in-name-atom", '(program (= a"b 6))', "a", N(6),
     '2.1: " does not end a symbol: a"b is a single atom (first token a)'),
    ("escaped-quote-truncates", r'(program (= s "a\"b"))', "s", S("a"),
     '2.2: an escaped quote truncates the literal: "a\\"b" reads as "a"'),
    ("string-with-parens", '(program (= s "(x)"))', "s", S("(x)"),
     '2.1: a string atom runs to the next unescaped "; parentheses inside do not open lists'),
    ("string-with-semicolon", '(program (= s "a;b"))', "s", S("a;b"),
     "2.1: inside a string ; is not a comment"),
    ("allowed-escape", r'(program (= s "x\ty"))', 'defined "s"', B(True),
     r"2.1: \t is an allowed escape (the program reads)"),
    ("trailing-items-ignored", "(program (= k 1))\n(program (= k 2))\nstray", "k", N(1),
     "2.1: only the first top-level item is used; anything after it is ignored"),
    ("whitespace-kinds", "(program\t(= k\r\n7)\f(= j\v8))", "list k j", NL([7, 8]),
     "2.1: space, tab, CR, LF, FF, VT separate tokens"),
]


@pytest.mark.parametrize("row_id,text,expr,expected,spec", READER_ROWS, ids=[r[0] for r in READER_ROWS])
def test_reader_row(row_id, text, expr, expected, spec):
    assert load(text).evaluate_to_string(expr) == expected


READER_ERRORS = [
    # (id, text, expected line or None when the spec pins no position, spec sentence)
    ("unknown-escape", '(program\n  (= s "a\\qb"))', 2, "2.1/2.6: an unknown escape is malformed"),
    ("raw-newline-in-string", '(program\n  (= s "ab\ncd"))', 2, "2.1/2.6: a raw newline inside a string is malformed"),
    ("unterminated-string", '(program\n  (= s "abc))', 2, "2.1/2.6: a missing closing quote is malformed"),
    ("stray-close-paren", "(program\n  (= k 1)\n  ))", 3, "2.1: a ) with no open list is malformed"),
    ("unclosed-list", "(program\n  (= k 1)\n", None, "2.1: unclosed lists at end of text are malformed"),
    ("empty-text", "", None, "2.6: an empty text raises an error"),
    ("only-comments", "; nothing here\n; at all\n", None, "2.6: a text holding only comments raises an error"),
    ("only-whitespace", "   \n\t \n", None, "2.6: an empty text raises an error"),
    ("atom-first", "program (= k 1)", None, "2.6: a text whose first item is an atom: Program must be a list of statements"),
]


@pytest.mark.parametrize("row_id,text,line,spec", READER_ERRORS, ids=[r[0] for r in READER_ERRORS])
def test_reader_error_has_position(row_id, text, line, spec):
    """2.6: a compatible implementation must raise a clear parse error instead of crashing."""
    err = load_error(text, AutumnSyntaxError)
    assert isinstance(err.line, int) and isinstance(err.column, int), err
    if line is not None:
        assert err.line == line, err


# =========================================================================== first-token rule (2.2)

FIRST_TOKEN_ROWS = [
    ("name-cut-at-minus", "(= my-var 5)", "my", N(5), "2.2: my-var is the name my"),
    ("name-cut-at-question", "(= x? 3)", "x", N(3), "2.2: x? is the name x"),
    ("leading-zeros", "(= k 007)", "k", N(7), "2.2: 007 is the integer 7"),
    ("decimal-truncates", "(= k 3.99)", "k", N(3), "2.2: a decimal is converted with stoi, which truncates at the ."),
    ("exponent-ignored", "(= k 1e5)", "k", N(1), "2.2: 1e5 is the number 1; the rest is ignored"),
    ("hex-ignored", "(= k 0x10)", "k", N(0), "2.2: 0x10 is the number 0"),
    ("negative-literal", "(= k -3)", "k", N(-3), "2.2: -3 is a unary minus applied to 3"),
    ("int-max-literal", "(= k 2147483647)", "k", N(2147483647), "2.2: integer literals must fit in a signed 32-bit int"),
    ("double-amp-is-and", "(= k (&& true false))", "k", B(False), "2.2/4.5: && is AND"),
    ("list-of-one-atom-is-a-variable", "(= f (--> () 5)) (= k (f)) (= j ((f)))", "list (== k f) (== j 5)",
     L([B(True), B(True)], "List<Bool>"), "2.3: (name) is the variable name, not a call; ((f)) calls"),
]


@pytest.mark.parametrize("row_id,stmts,expr,expected,spec", FIRST_TOKEN_ROWS, ids=[r[0] for r in FIRST_TOKEN_ROWS])
def test_first_token_row(row_id, stmts, expr, expected, spec):
    assert load(prog(stmts)).evaluate_to_string(expr) == expected


PARSE_ERRORS = [
    ("minus-name", "(= x 1) (= k -x)", "2.2: -x (minus directly followed by a name) crashes the reference: an error"),
    ("literal-too-big", "(= k 2147483648)", "2.2: 2147483648 and above is an error"),
    ("int-min-literal", "(= k -2147483648)", "2.2: -2147483648 cannot be written as a literal"),
    ("if-five-elements", "(= k (if true then 1 else))", "4: (if ...) with fewer than 6 elements is an error"),
    ("if-four-elements", "(= k (if true 1 2))", "4/15.2: (if c a b) is an error"),
    ("plus-three-operands", "(= k (+ 1 2 3))", "4/15.2: (+ 1 2 3) is an error"),
    ("and-one-operand", "(= k (& true))", "4: (& a) is a parse error"),
    ("not-two-operands", "(= k (! true false))", "4: (! a b) is a parse error"),
    ("minus-three-operands", "(= k (- 1 2 3))", "4: binary ops take n = 3, unary n = 2"),
    ("bare-nil", "(= k nil)", "2.2: nil is not a valid expression by itself"),
    ("bare-then", "(= k then)", "2.2: then is not a valid expression by itself"),
    ("call-of-call", "(= f (--> x (--> y y))) (= k ((f 1) 2))", "2.3/4: ((f 1) 2) is a parse error"),
    ("empty-let", "(= k (let))", "4.8: an empty (let) is an error"),
    ("list-headed-statement", "(= f (--> x x)) ((f) 1)", "2.5: a list-headed statement is an error (Invalid statement)"),
    ("bare-atom-statement", "foo", "2.5: a bare atom statement raises an error"),
    ("on-without-body", "(on true)", "3.5: a missing BODY is an error"),
    ("union-field-type", "(object O (: f Union) (Cell 0 0 \"red\"))", "3.3: Union as a type name is a parse error"),
    ("object-without-cells", "(object O (: f Int))", "3.3: at least one non-field item is required"),
]


@pytest.mark.parametrize("row_id,stmts,spec", PARSE_ERRORS, ids=[r[0] for r in PARSE_ERRORS])
def test_malformed_program_is_a_typed_error(row_id, stmts, spec):
    # The spec pins only that an error occurs (18.4); parse errors must carry a position.
    err = load_error(prog(stmts), (AutumnSyntaxError, AutumnRuntimeError))
    assert err.line is not None, err


KEYWORDS = "program object on let if then else true false fn initnext and or nil".split()


@pytest.mark.parametrize("kw", KEYWORDS)
def test_keyword_cannot_be_a_variable(kw):
    """2.2: these identifiers are reserved; none may be used as a variable name."""
    load_error(prog(f"(= {kw} 1)"), AutumnSyntaxError)


@pytest.mark.parametrize("kw", ["on", "let", "if", "fn", "nil"])
def test_keyword_cannot_be_a_parameter_or_field(kw):
    """2.2: none of them may be used as a variable, parameter or field name; a field named on
    is a parse error."""
    load_error(prog(f"(= f (--> ({kw}) 1))"), AutumnSyntaxError)
    load_error(prog(f'(object O (: {kw} Int) (Cell 0 0 "red"))'), AutumnSyntaxError)


# =========================================================================== arithmetic (4.4)

ARITH_ROWS = [
    ("- -2147483647 2", N(2147483647), "4.4: - wraps at 32 bits"),
    ("+ -2147483647 -2", N(2147483647), "4.4: + wraps at 32 bits"),
    ("* 2147483647 2", N(-2), "4.4: * wraps at 32 bits"),
    ("* 46341 46341", N(-2147479015), "4.4: * wraps at 32 bits"),
    ("- (- -2147483647 1)", N(-2147483648), "4.4: unary - negation wraps"),
    ("+ 5", N(5), "4.4: unary + is the identity"),
    ("/ 7 2", N(3), "4.4: C division truncates toward zero"),
    ("/ -7 -2", N(3), "4.4: C division"),
    ("/ 7 -2", N(-3), "4.4: C division truncates toward zero"),
    ("/ -1 2", N(0), "4.4: C division truncates toward zero"),
    ("% 7 2", N(1), "4.4: C remainder"),
    ("% -7 -2", N(-1), "4.4: the remainder has the sign of the dividend"),
    ("% 0 3", N(0), "4.4: C remainder"),
    ("< 1 2", B(True), "4.4: < <= > >= give Bool"),
    ("<= 2 2", B(True), "4.4"),
    ("> -1 0", B(False), "4.4"),
    (">= -1 -1", B(True), "4.4"),
]


@pytest.mark.parametrize("expr,expected,spec", ARITH_ROWS, ids=[r[0] for r in ARITH_ROWS])
def test_arithmetic(expr, expected, spec):
    assert load(prog()).evaluate_to_string(expr) == expected


ARITH_ERRORS = [
    ("/ 1 0", "4.4: / by 0 crashes the reference: raise an error"),
    ("% 1 0", "4.4: % by 0 crashes the reference: raise an error"),
    ("/ (- -2147483647 1) -1", "4.4: so does -2147483648 / -1"),
    ('+ 1 "a"', "4.4: a non-Number operand to an arithmetic operator is an error"),
    ("+ 1 true", "4.4: both operands must be Numbers"),
    ('< "a" "b"', "4.4: strings cannot be compared with <"),
    ('- "a"', "4.4: unary minus needs a Number"),
    ('+ "a"', "4.4: unary + is for Numbers only"),
    ("! 0", "4.4: ! needs a Bool"),
    ("! left", "4.4: (! left) is an error because left is a function"),
]


@pytest.mark.parametrize("expr,spec", ARITH_ERRORS, ids=[r[0] for r in ARITH_ERRORS])
def test_arithmetic_error(expr, spec):
    it = load(prog())
    with pytest.raises(AutumnRuntimeError) as info:
        it.evaluate(expr)
    assert not isinstance(info.value, AutumnInternalError)


def test_division_by_zero_in_a_tick_is_an_error_and_breaks_the_world():
    """4.4: a compatible implementation must raise an error (not crash); 8.2: if an error is
    raised during the tick, the host should treat the episode as broken."""
    it = load(prog("(= k (initnext 1 (prev k)))", "(on left (= k (/ k 0)))"))
    it.step()
    it.left()
    with pytest.raises(AutumnRuntimeError):
        it.step()
    with pytest.raises(AutumnError):
        it.step()


# =========================================================================== equality (5.3)

EQUALITY_ROWS = [
    ("== 1 true", True, "5.3: Number == Bool is n == (b ? 1 : 0)"),
    ("== 0 false", True, "5.3: Number == Bool"),
    ("== 2 true", False, "5.3: Number == Bool"),
    ("== true 1", False, "5.3: Bool == Number is always false (asymmetric)"),
    ("== false 0", False, "5.3: Bool == Number is always false"),
    ("!= true 1", True, "5.3: != is the negation of =="),
    ("== true true", True, "5.3: Bool == Bool"),
    ('== "a" "a"', True, "5.3: String == String: equal texts"),
    ('== "a" "b"', False, "5.3"),
    ('== "1" 1', False, "5.3: anything else is false"),
    ("== (list) false", False, "5.3: anything else is false"),
    ("== 1 (list 1)", False, "5.3"),
    ("== (list 1 2) (list 1 2)", True, "5.3: List == List compares printed forms"),
    ("== (range 0 2) (list 0 1)", True, "5.4: range and a literal of Numbers both tag List<Number>"),
    ("== (concat (list (list 1))) (list 1)", False, "5.4: concat's tag stays List<Unknown>; a literal of Numbers is List<Number>"),
    ("== (map (--> v v) (list)) (list)", True, "5.4: the empty list is always List<Unknown>"),
    ('== (list 1 "a") (list 1 "a")', True, "5.4: mixed literals both get the tag Unknown"),
    ('== (filter (--> v true) (list 1 "a")) (list 1 "a")', False, "5.4: filter's tag is the LAST element's (String), the literal's Unknown"),
    ("== (list (list 1) (list 2)) (list (list 1) (list 2))", True, "5.4: nested lists give Unknown on both sides"),
    ("== (list 1 2) (list 2 1)", False, "5.3: printed forms differ"),
    ("== (Position 1 2) (Position 1 2)", True, "5.3: instances compare field-wise"),
    ("== (Position 1 2) (Position 2 1)", False, "5.3"),
    ('== (RenderedElem (Position 0 0) "red") (RenderedElem (Position 0 0) "red")', True, "5.3: field-wise"),
    ('== (RenderedElem (Position 0 0) "red") (RenderedElem (Position 0 0) "blue")', False, "5.3"),
    ('== (Position 0 0) (RenderedElem (Position 0 0) "red")', False, "5.3: both must have the same set of field names"),
    ('== (Mk "red" (Position 0 0)) (Mk "red" (Position 0 0))', True, "5.3: objects field-wise; identity ignored"),
    ('== (Mk "red" (Position 0 0)) (Mk "red" (Position 1 0))', False, "5.3: origin is compared"),
    ("== (A (Position 0 0)) (A2 (Position 0 0))", True, "5.3: the class is ignored; elems compare by printed forms"),
    ("== (A (Position 0 0)) (Bz (Position 0 0))", False, "5.3: elems are compared (the cells' colours differ)"),
    ("== (P1 (Position 0 0)) (P2 (Position 0 0))", True, "5.5/7.2: a folded number is a literal, so (+ 0 1) folds to the same cell as 1"),
    ("== (P1 (Position 0 0)) (P3 (Position 0 0))", False, "7.2: a String never folds: the colour stays the deferred (var paint)"),
    ("== map map", True, "5.3: the same global name twice gives true"),
    ("== abs abs", True, "5.3: the same function object"),
    ("== (--> x x) (--> x x)", False, "5.3: two evaluations of the same lambda text give false"),
    ("== f f", True, "5.3: the same function object"),
]


@pytest.mark.parametrize("expr,expected,spec", EQUALITY_ROWS, ids=[r[0] for r in EQUALITY_ROWS])
def test_equality(expr, expected, spec):
    it = load(prog(MK, "(= f (--> x x))", '(= paint "red")', '(object A (Cell 0 0 "red"))',
                   '(object Bz (Cell 0 0 "blue"))', '(object A2 (Cell 0 0 "red"))',
                   '(object P1 (Cell 1 0 "red"))', '(object P2 (Cell (+ 0 1) 0 "red"))',
                   '(object P3 (Cell 1 0 paint))'))
    assert it.evaluate_to_string(expr) == B(expected)


# =========================================================================== truthiness (5.2, 4.5)

TRUTH_ROWS = [
    ("if (list 0) then 1 else 2", N(1), "5.2: non-empty lists are truthy"),
    ("if false then 1 else 2", N(2), "5.2: false is falsy"),
    ("if (Position 0 0) then 1 else 2", N(1), "5.2: instances are truthy"),
    ("if map then 1 else 2", N(1), "5.2: function values are truthy"),
    ("| 0 false", B(True), "4.5/5.2: 0 is truthy"),
    ("& (list) true", B(False), "4.5/5.2: the empty list is falsy"),
    ("& true (list)", B(False), "4.5 step 4: the result is Bool(truthy(b))"),
    ("| false (list 1)", B(True), "4.5 step 4"),
    ("& true 5", B(True), "4.5 step 4: Bool(truthy(b))"),
    ("| left false", B(False), "4.5 step 1: if a is a function value, call it with no arguments"),
    ("& true left", B(False), "4.5 step 4: b is called too if it is a function"),
    ("& false (/ 1 0)", B(False), "4.5 step 3: for AND, b is not evaluated if a is falsy"),
    ("| true (/ 1 0)", B(True), "4.5 step 2: for OR, b is not evaluated if a is truthy"),
    ("or false true", B(True), "4.5: or is OR"),
    ("and true true", B(True), "4.5: and is AND"),
]


@pytest.mark.parametrize("expr,expected,spec", TRUTH_ROWS, ids=[r[0] for r in TRUTH_ROWS])
def test_truthiness(expr, expected, spec):
    assert load(prog()).evaluate_to_string(expr) == expected


ON_CONDITION = prog("(= k (initnext 0 (prev k)))", "(= yes (--> () true))", "(= five (--> () 5))",
                    "(on yes (= k (+ k 1)))", "(on (> k 100) (= k 0))")


def test_on_condition_function_returning_bool_is_called():
    """3.5: if CONDITION is a function value, it is called with zero arguments."""
    it = load(ON_CONDITION)
    it.step()
    it.step()
    assert it.evaluate_to_string("k") == N(2)


@pytest.mark.parametrize("cond", ["five", "1", "(list)", "(Position 0 0)"])
def test_on_condition_of_another_kind_is_an_error(cond):
    """3.5: any other value is an error; a called function returning a non-Bool crashes the
    reference, so a compatible implementation raises an error."""
    it = load(prog("(= five (--> () 5))", f"(on {cond} (= ignored 1))"))
    with pytest.raises(AutumnRuntimeError) as info:
        it.step()
    assert not isinstance(info.value, AutumnInternalError)


# =========================================================================== scoping (6) and let (4.8)

SCOPE_PROGRAM = prog(
    "(= k 1)",
    "(= getk (--> () k))",
    "(= withk (--> k ((getk))))",
    "(= mk (--> n (--> x (+ x n))))",
    "(= add5 (mk 5))",
    "(= counter 0)",
    "(= bump (--> () (let (= counter (+ counter 1)) counter)))",
    "(= inner (--> () (let (= tmp 9) tmp)))",
    "(= outer (--> tmp (let (= r ((inner))) tmp)))",
    "(= p 1)",
    "(= setp (--> p (let (= p 5) p)))",
    "(= two (--> (a b) a))",
    "(= sx (--> x (let (= x \"s\") x)))",
)

SCOPE_ROWS = [
    ("withk 7", N(7), "6.2: a function's free names resolve in its caller (the caller's parameter k)"),
    ("(getk)", N(1), "6.2: called from the global scope, k is the global"),
    ("add5 1", AutumnRuntimeError, "6.2: a lambda returned from another function cannot see the creator's parameters"),
    ("let (= n 100) (add5 1)", N(101), "6.2: ... unless the caller happens to have that name"),
    ("let (= a ((bump))) (= b ((bump))) (list a b counter)", NL([1, 2, 2]), "4.8/6.3: (= name v) modifies the nearest existing name: the global"),
    ("let (= fresh 1) fresh", N(1), "4.8: a name that exists nowhere is created in the let's scope"),
    ("let (= fresh 1) (defined \"fresh\")", B(False), "4.8: ... and is local (not a global)"),
    ("outer 1", N(9), "4.8/6.3: inside a function (let (= tmp ...)) overwrites the caller's tmp"),
    ("let (= ignored (outer 1)) (defined \"tmp\")", B(False), "6.3: the walk stopped at the caller's parameter"),
    ("let (= r (setp 3)) (list r p)", NL([5, 1]), "6.4: lambda parameters are created in the call scope; they never modify outer variables"),
    ("let (= q1 1) (= q2 2)", N(2), "4.8: the value of (= name v) is v; let returns the last value"),
    ("two 1", AutumnRuntimeError, "4.6: fewer arguments than parameters crash the reference: an error"),
    ("two 1 2 3", N(1), "4.6: extra arguments are ignored"),
    ("k 2", AutumnRuntimeError, "4.6: calling a non-function is an error"),
    ("sx 1", AutumnRuntimeError, "5.6: a local variable (a parameter) cannot receive a value of another type"),
    ("nope", AutumnRuntimeError, "4.3: an undefined name is an error"),
]


@pytest.mark.parametrize("expr,expected,spec", SCOPE_ROWS, ids=[r[0] for r in SCOPE_ROWS])
def test_scoping(expr, expected, spec):
    run_ops(SCOPE_PROGRAM, [Ev(expr, expected)])


def test_let_in_a_handler_marks_the_state_variable_updated():
    """6.3/8.2: replacing a global from a let inside a function called by a handler sets its
    updated flag, so its NEXT is skipped that tick."""
    it = load(prog("(= n (initnext 0 (+ (prev n) 1)))",
                   "(= reset (--> () (let (= n 50) n)))",
                   "(on left (= ignored ((reset))))"))
    it.step()
    it.left()
    it.step()
    assert it.evaluate_to_string("n") == N(50)
    it.step()
    assert it.evaluate_to_string("n") == N(51)


# =========================================================================== types (5.6) and annotations (3.4)

TYPE_LOAD_ERRORS = [
    ('(= k 1) (= k "a")', "5.6: reassigning an existing variable with a value of another type is an error"),
    ("(= k (list 1)) (= k 2)", "5.6: a list variable cannot receive a non-list"),
    (f'{MK} (= o (Mk "r" (Position 0 0))) (= o (Position 1 1))', "5.6: a variable holding an object cannot receive a Position"),
    (f'{MK} (object Mk2 (: c String) (Cell 0 0 c)) (= o (Mk "r" (Position 0 0))) (= o (Mk2 "r" (Position 0 0)))',
     "5.6: the type must print identically: another class is another type"),
    ('(object T (: n Int) (Cell 0 0 "red")) (= t (T "x" (Position 0 0)))', "5.6: a field's value must have the field's type"),
    ('(object T (: n Int) (Cell 0 0 "red")) (= t (T true (Position 0 0)))', "5.6: Bool is not Number"),
    ('(object T (: n Int) (Cell 0 0 "red")) (= t (T (Position 0 0)))', "7.1: missing arguments crash the reference: an error"),
    ('(= p (Position "a" 1))', "4.6: each argument must have the field's type"),
    ("(= p (Position 1))", "4.6: the field count must match exactly"),
    ("(= p (Position 1 2 3))", "4.6: the field count must match exactly"),
    ("(= r (RenderedElem (Position 0 0) 5))", "7.5: RenderedElem color is a String"),
    ('(= r (RenderedElem 1 "red"))', "7.5: RenderedElem position is a Position"),
    ('(object Lf (: items (List Int)) (Cell 0 0 "red")) (= x (Lf (list "a") (Position 0 0)))', "5.6: List<String> is not List<Number>"),
    ('(object Lf (: items (List Int)) (Cell 0 0 "red")) (= x (Lf (list 1 "a") (Position 0 0)))', "5.6: a mixed-type list (tag Unknown) does not fit a list field"),
    ('(object Lf (: items (List Int)) (Cell 0 0 "red")) (= x (Lf 5 (Position 0 0)))', "5.6: a Number is not a list"),
    ('(object In (Cell 0 0 "red")) (object Out (: inner In) (Cell 0 0 "blue")) (= x (Out 5 (Position 0 0)))', "3.3/5.6: an object-typed field"),
    ('(: k Number) (= k "a")', "3.4: the annotation is checked on a plain ="),
    (f'{MK} (: m Mk) (= m 5)', "3.4: an object-type annotation"),
    ('(object O (: f Foo) (Cell 0 0 "red"))', "3.3: unknown field types should be rejected at load with a clear error"),
    ('(object O (: f Later) (Cell 0 0 "red")) (object Later (Cell 0 0 "blue"))', "3.3: only an object declared EARLIER is a type"),
    ('(object O (: f (List Foo)) (Cell 0 0 "red"))', "3.3: (List T) with an unknown T"),
]


@pytest.mark.parametrize("stmts,spec", TYPE_LOAD_ERRORS, ids=[f"{i:02d}" for i in range(len(TYPE_LOAD_ERRORS))])
def test_type_error_at_load(stmts, spec):
    err = load_error(prog(stmts), AutumnError)
    assert not isinstance(err, AutumnSeedError)


TYPE_LOAD_OK = [
    ("(= k 1) (= k (list))", "k", L([], UNK), "5.6: any variable can receive a list"),
    ("(= k (list 1)) (= k (list \"a\"))", "k", L([S("a")], "List<String>"), "5.6: lists are exempt"),
    ('(object T (: n Int) (Cell 0 0 "red")) (= t (T 1 (Position 0 0) 99))', ".. t n", N(1), "7.1: extra arguments are ignored; Int is Number"),
    ('(object Lf (: items (List Int)) (Cell 0 0 "red")) (= x (Lf (list 1 2) (Position 0 0)))', "length (.. x items)", N(2), "5.6: List<Number> fits (List Int)"),
    ('(object Lf (: items (List Int)) (Cell 0 0 "red")) (= x (Lf (list) (Position 0 0)))', "length (.. x items)", N(0), "5.6: an empty list fits any list field"),
    ('(object Lf (: items (List Int)) (Cell 0 0 "red")) (= x (Lf (map (--> v v) (list "a")) (Position 0 0)))', "length (.. x items)", N(1), "5.6: a map result (List<Unknown>) fits any list field"),
    ('(object In (Cell 0 0 "red")) (object Out (: inner In) (Cell 0 0 "blue")) (= x (Out (In (Position 1 1)) (Position 0 0)))', ".. (.. x inner) origin", P(1, 1), "3.3: an object declared earlier is a field type"),
    ("(: k Number) (= k 3)", "k", N(3), "3.4"),
    ("(: k Int) (= k 3)", "k", N(3), "5.6: Int and Number are the same type"),
    ('(: ks (List Number)) (= ks (list "a"))', "length ks", N(1), "3.4: (: v (List T)) is never checked"),
    ('(: o Later) (= o 5) (object Later (Cell 0 0 "red"))', "o", N(5), "3.4: an object declared later resolves to no type; the annotation is ignored"),
    ('(: n Number) (= n (initnext "a" "b"))', "n", S("a"), "3.4: annotations are not checked for initnext initial values"),
    (f'{MK} (: m Mk) (= m (Mk "red" (Position 0 0)))', ".. m c", S("red"), "3.4: matching object annotation"),
]


@pytest.mark.parametrize("stmts,expr,expected,spec", TYPE_LOAD_OK, ids=[f"{i:02d}" for i in range(len(TYPE_LOAD_OK))])
def test_type_ok_at_load(stmts, expr, expected, spec):
    assert load(prog(stmts)).evaluate_to_string(expr) == expected


def test_annotation_checked_on_plain_assignment_not_on_next():
    """3.4: annotations are not checked for values produced by NEXT; they are checked when v
    is assigned with a plain = in an event handler."""
    it = load(prog('(: n Number)', '(= n (initnext "a" "b"))', '(on left (= n "c"))'))
    it.step()
    assert it.evaluate_to_string("n") == S("b")
    it.left()
    with pytest.raises(AutumnRuntimeError):
        it.step()


def test_annotation_checked_in_a_let_inside_a_function():
    """3.4: the annotation is checked ... in a let, or in a function."""
    it = load(prog("(: tmpv Number)", '(= f (--> () (let (= tmpv "s") tmpv)))'))
    with pytest.raises(AutumnRuntimeError):
        it.evaluate("(f)")


def test_type_consistency_in_a_handler_on_an_object():
    """5.6: a variable holding a Ball object cannot receive a Position."""
    it = load(prog(MK, '(= m (initnext (Mk "red" (Position 0 0)) (prev m)))',
                   "(on left (= m (Position 1 1)))"))
    it.left()
    with pytest.raises(AutumnRuntimeError):
        it.step()


def test_prev_in_init_is_an_error():
    """3.2: INIT must not use prev, which raises 'Prev environment not initialized'."""
    load_error(prog("(= n (initnext 0 (prev n)))", "(= m (initnext (prev n) 0))"), AutumnRuntimeError)


# =========================================================================== cells: field-vs-global clash (7.2)

def test_field_named_like_a_global_used_as_coordinate():
    """7.2: a field whose name equals a global's name: the global's construction-time value
    wins and the field is ignored (here as a coordinate, cf. C14 for a colour)."""
    program = prog("(= k 2)", '(object O (: k Int) (Cell k 0 "red"))',
                   "(= o (initnext (O 0 (Position 0 0)) (prev o)))",
                   '(on left (= o (updateObj o "k" 3)))', grid=4)
    run_ops(program, [
        Frame(["..r.", "....", "....", "...."], {"r": "red"}),
        Step(("L",)),
        Frame(["..r.", "....", "....", "...."], {"r": "red"}),
        Ev(".. o k", N(3)),
    ])


# =========================================================================== identity (5.7, 8.3)

IDENTITY = prog(
    '(object Coin (Cell 0 0 "gold"))',
    "(= coin (initnext (Coin (Position 0 0)) (prev coin)))",
    "(on right (= coin (moveRight coin)))",
    "(on up (let (= z (removeObj (moveRight coin))) true))",
    "(on down (let (= coin (removeObj coin)) true))", grid=3)


def test_identity_survives_assignment_and_copies_do_not_share_it():
    """5.7 #3: assigning a new value to an existing variable gives it the variable's identity,
    so after (= coin (moveRight coin)) one-argument removeObj of coin still deletes the global;
    5.7 #1: a moved copy has a new identity, so removing it deletes nothing."""
    legend = {"o": "gold"}
    run_ops(IDENTITY, [
        Step(("R",)), Frame([".o.", "...", "..."], legend),
        Step(("U",)), Frame([".o.", "...", "..."], legend), Ev('defined "coin"', B(True)),
        Step(("D",)), Frame(["...", "...", "..."], legend), Ev('defined "coin"', B(False)),
        Step(()), Frame(["...", "...", "..."], legend),
    ])


def test_recreating_a_deleted_state_variable_fails_that_tick():
    """8.2: if a handler re-creates a state variable that had been deleted, its NEXT runs in the
    same tick and (prev v) fails because the snapshot lacks v: an error in that tick."""
    it = load(IDENTITY.replace("(on right (= coin (moveRight coin)))",
                               "(on right (= coin (Coin (Position 1 1))))"))
    it.down()
    it.step()
    assert it.evaluate_to_string('defined "coin"') == B(False)
    it.right()
    with pytest.raises(AutumnRuntimeError):
        it.step()


PREV_EXPR = prog(
    MK,
    '(= p1 (initnext (Mk "red" (Position 0 0)) (prev p1)))',
    '(= ghost (initnext (Mk "blue" (Position 0 1)) (prev ghost)))',
    "(= viaParam (--> p1 (prev p1)))",
    "(on left (let (= p1 (moveRight p1)) "
    "(= ghost (updateObj ghost \"origin\" (Position (.. (.. (prev (print p1)) origin) x) 1)))))",
    grid=4)


def test_prev_of_an_expression_uses_identity():
    """8.3: (prev EXPR) evaluates EXPR, then returns the snapshot value of the global whose value
    has the same identity. (print p1) is p1's new value, which carries p1's identity (5.7 #3),
    so ghost follows p1's position at the start of the tick."""
    legend = {"r": "red", "b": "blue"}
    run_ops(PREV_EXPR, [
        Ev("prev p1", AutumnRuntimeError),
        Step(("L",)), Frame([".r..", "b...", "....", "...."], legend),
        Step(("L",)), Frame(["..r.", ".b..", "....", "...."], legend),
        Ev(".. (.. (viaParam 5) origin) x", N(1)),
        Ev("prev (Position 0 0)", AutumnRuntimeError),
    ])
    # 8.3: lambda parameters are not visible to prev: (viaParam 5) read the GLOBAL p1's
    # snapshot (x = 1 at the start of tick 2), not the parameter 5.


# =========================================================================== off-grid cells (10)

OFFGRID = prog(
    '(object Wide (list (Cell -1 0 "red") (Cell 3 0 "red") (Cell 0 -1 "red") (Cell 1 1 "blue")))',
    "(= w (initnext (Wide (Position 0 0)) (prev w)))",
    "(= hits (initnext 0 (prev hits)))",
    "(on (clicked w) (= hits (+ hits 1)))", grid=3)


def test_off_grid_cells_are_in_json_and_occupancy_but_not_in_the_grid():
    """10.1: off-grid cells are included in the JSON and added to the occupancy set; 10.3 the
    text grid drops them; a Number variable yields no cells and is omitted; 8.4 off-grid clicks
    are accepted and (clicked obj) tests the rendered cells."""
    it = load(OFFGRID)
    assert it.render_all() == (
        '{"w": [{"position": {"x": -1, "y": 0}, "color": "red"}, '
        '{"position": {"x": 3, "y": 0}, "color": "red"}, '
        '{"position": {"x": 0, "y": -1}, "color": "red"}, '
        '{"position": {"x": 1, "y": 1}, "color": "blue"}], "GRID_SIZE": 3}')
    assert grid_rows(it, {"b": "blue"}) == ["...", ".b.", "..."]
    assert it.evaluate_to_string("isFreePos (Position -1 0)") == B(False)
    assert it.evaluate_to_string("isFreePos (Position 0 -1)") == B(False)
    assert it.evaluate_to_string("isFreePos (Position 0 0)") == B(True)
    assert it.evaluate_to_string("isWithinBounds w") == B(False)
    for (x, y), hits in [((-1, 0), 1), ((3, 0), 2), ((0, 0), 2), ((1, 1), 3)]:
        it.click(x, y)
        it.step()
        it.render_all()
        assert it.evaluate_to_string("hits") == N(hits)


# =========================================================================== render order (10.1)

RENDER_ORDER = prog(
    '(object Sq (: c String) (Cell 0 0 c))',
    '(object Two (list (Cell 0 0 "red") (Cell 0 0 "cyan")))',
    '(= early (Sq "white" (Position 0 0)))',
    '(= zz (initnext (Sq "red" (Position 0 0)) (prev zz)))',
    '(= aa (initnext (Sq "green" (Position 0 0)) (prev aa)))',
    '(= mm (initnext (Sq "blue" (Position 0 0)) (prev mm)))',
    '(= bb (initnext (Sq "yellow" (Position 0 0)) (prev bb)))',
    '(= qq (initnext (Sq "pink" (Position 0 0)) (prev qq)))',
    '(= pair (initnext (list (Sq "red" (Position 1 0)) (Sq "blue" (Position 1 0))) (prev pair)))',
    '(= two (initnext (Two (Position 0 1)) (prev two)))',
    '(= late (Sq "orange" (Position 1 1)))',
    '(= num 5)', grid=2)


def test_render_order_state_variables_in_source_order_then_other_globals():
    """10.1: state variables first in SOURCE order (not hash order), then every other name in
    definition order; a variable with no cells is omitted; 10.3 later writes win, also within
    a variable (list order, then cell order)."""
    it = load(RENDER_ORDER)
    keys = list(json.loads(it.render_all()))
    assert keys == ["zz", "aa", "mm", "bb", "qq", "pair", "two", "early", "late", "GRID_SIZE"]
    legend = {"w": "white", "b": "blue", "c": "cyan", "o": "orange"}
    assert grid_rows(it, legend) == ["wb", "co"]


def test_render_of_nothing_and_grid_size_read_dynamically():
    """10.1: with nothing to draw the output is {"GRID_SIZE": N}; 3.6 GRID_SIZE is read
    dynamically, also by the JSON output, and a handler can change it at run time."""
    it = load(prog("(on left (= GRID_SIZE 3))", grid=2))
    assert it.render_all() == '{"GRID_SIZE": 2}'
    it.left()
    it.step()
    assert it.render_all() == '{"GRID_SIZE": 3}'
    assert it.render_frame().size == 3


# =========================================================================== hash order (9)

def test_spec_hash_emulation_reproduces_the_worked_example():
    """9.1 worked example: inserting t, u, src, dst, marks yields marks, src, u, dst, t."""
    t = SpecHashTable()
    for k in "t u src dst marks".split():
        t.insert(k)
    assert t.order == ["marks", "src", "u", "dst", "t"]


STATE_NAMES = ("kiwi lime fig pear plum date yam oak elm ash fir yew bay box gum tea").split()


@pytest.mark.parametrize("count", [5, 7, 16])
@pytest.mark.parametrize("native", [True, False], ids=["native", "autumn"])
def test_init_and_next_draw_in_state_variable_hash_order(count, native):
    """9.2: INIT and NEXT are evaluated in state-variable (hash) order; 11.2 draws happen in
    that order. 16 names exercise the growth from 13 to 29 buckets (9.1)."""
    names = STATE_NAMES[:count]
    stmts = [f"(= {n} (initnext (uniformChoice (range 0 100000)) (uniformChoice (range 0 100000))))"
             for n in names]
    it = load(prog(*stmts), native=native)
    table = SpecHashTable()
    for n in names:
        table.insert(n)
    order = table.order
    assert order != list(names)      # the test is only meaningful if hash order differs
    got = [it.evaluate(n) for n in names]
    assert got == [ST42[order.index(n)] % 100000 for n in names]
    it.step()
    got = [it.evaluate(n) for n in names]
    assert got == [ST42[count + order.index(n)] % 100000 for n in names]


def _global_table(program_defs: list[str], state_vars: list[str]) -> SpecHashTable:
    """9.3: the global table's insertion history up to the end of run_script, replayed on the
    9.1 emulation."""
    table = SpecHashTable()
    for name in NATIVE_ORDER + STDLIB_ORDER + ["SpecialConditionTriggered"] + program_defs:
        table.insert(name)
    sv = SpecHashTable()
    for name in state_vars:
        sv.insert(name)
    for name in sv.order:
        table.insert(name)
    table.insert("cacheRendered")
    return table


def _global_order(program_defs: list[str], state_vars: list[str]) -> list[str]:
    return _global_table(program_defs, state_vars).order


OBJ_NAMES = ["pear", "plum", "fig", "kiwi", "lime", "date"]
OBJ_STATE = ["apple", "mango", "cherry"]


@pytest.mark.parametrize("native", [True, False], ids=["native", "autumn"])
def test_all_objs_follows_the_global_table_hash_order(native):
    """9.3: allObjs returns the objects held by globals in global-table order, whose insertion
    history is: the 34 natives, the stdlib names, SpecialConditionTriggered, the program's
    non-initnext definitions, the state variables in state-variable order, cacheRendered."""
    stmts = [MK, "(= xs (list 1 2))"]
    stmts += [f'(= {n} (Mk "{n}" (Position 0 0)))' for n in OBJ_NAMES]
    stmts += [f'(= {n} (initnext (Mk "{n}" (Position 1 1)) (prev {n})))' for n in OBJ_STATE]
    it = load(prog(*stmts), native=native)
    order = _global_order(["GRID_SIZE", "xs"] + OBJ_NAMES, OBJ_STATE)
    expected = [n for n in order if n in OBJ_NAMES or n in OBJ_STATE]
    got = it.evaluate_to_string("map (--> o (.. o c)) ((allObjs))")
    assert got == L([S(n) for n in expected], UNK)


CHURN_CONSTS = ["coin", "pear", "plum", "fig", "kiwi", "lime"]


@pytest.mark.parametrize("native", [True, False], ids=["native", "autumn"])
def test_all_objs_order_after_deletion_recreation_and_run_time_globals(native):
    """9.1 erase / insert and 9.3 item 7: one-argument removeObj erases a key, a handler's
    assignment re-creates it (a new insertion), `click` is inserted the first time clicked sees a
    pending click, and a new global created by an assignment is inserted after it."""
    stmts = [MK] + [f'(= {n} (Mk "{n}" (Position 0 0)))' for n in CHURN_CONSTS]
    stmts += ['(= hero (initnext (Mk "hero" (Position 1 1)) (prev hero)))',
              "(on left (let (= coin (removeObj coin)) true))",
              '(on right (= coin (Mk "coin" (Position 2 2))))',
              '(on clicked (= made (Mk "made" click)))']
    it = load(prog(*stmts), native=native)
    for action in ["left", "right"]:
        getattr(it, action)()
        it.step()
        it.render_all()
    it.click(3, 3)
    it.step()
    table = _global_table(["GRID_SIZE"] + CHURN_CONSTS, ["hero"])
    table.erase("coin")
    table.insert("coin")
    table.insert("click")
    table.insert("made")
    expected = [n for n in table.order if n in CHURN_CONSTS + ["hero", "made"]]
    assert it.evaluate_to_string("map (--> o (.. o c)) ((allObjs))") == L([S(n) for n in expected], UNK)


def test_one_argument_remove_obj_deletes_the_first_global_in_hash_order():
    """9.3/12.1: with several globals sharing an identity (5.7 #4: creating a variable does not
    change the value's identity), one-argument removeObj deletes the first in hash order."""
    names = ["x1", "x2", "x3"]
    stmts = [MK, '(= x1 (Mk "red" (Position 0 0)))', "(= x2 x1)", "(= x3 x2)"]
    it = load(prog(*stmts))
    order = _global_order(["GRID_SIZE"] + names, [])
    first = next(n for n in order if n in names)
    it.evaluate("removeObj x1")
    got = {n: it.evaluate(f'defined "{n}"') for n in names}
    assert got == {n: n != first for n in names}


def _sv_order(names: list[str]) -> list[str]:
    table = SpecHashTable()
    for n in names:
        table.insert(n)
    return table.order


@pytest.mark.parametrize("reader_first", [True, False])
@pytest.mark.parametrize("reader,source", [("reader", "source"), ("src", "dst"), ("kiwi", "lime")])
def test_init_reading_another_state_variable_follows_hash_order(reader, source, reader_first):
    """8.1 step 6: an INIT that reads another state variable works only if that variable's
    INIT came earlier in state-variable order; otherwise load fails (Undefined variable).
    (With two names, 9.1 always puts the one inserted second first.)"""
    decl = [f"(= {reader} (initnext {source} (prev {reader})))",
            f"(= {source} (initnext 4 (prev {source})))"]
    names = [reader, source]
    if not reader_first:
        decl.reverse()
        names.reverse()
    order = _sv_order(names)
    text = prog(*decl)
    if order.index(source) < order.index(reader):
        assert load(text).evaluate_to_string(reader) == N(4)
    else:
        load_error(text, AutumnRuntimeError)


# =========================================================================== trigger (8.2 step 3)

def test_trigger_sees_the_previous_tick_and_feeds_the_program():
    """8.2 step 3: the trigger is evaluated before any handler, so it sees the state left by
    the previous tick (it lags one tick); SpecialConditionTriggered is set to its truthiness
    and handlers of the same tick see it (3.6)."""
    it = Interpreter()
    it.run_script(prog("(= n (initnext 0 (+ (prev n) 1)))",
                       "(= seen (initnext 0 (prev seen)))",
                       "(on SpecialConditionTriggered (= seen (+ seen 1)))"),
                  seed=42, trigger="== n 2")
    assert it.get_trigger_state() is False
    states, seen = [], []
    for _ in range(4):
        it.step()
        states.append(it.get_trigger_state())
        seen.append(it.evaluate("seen"))
    assert states == [False, False, True, False]
    assert seen == [0, 0, 1, 1]


def test_trigger_after_a_handler_write():
    """8.2 step 3: a flag set by a handler in tick t is seen by the trigger in tick t+1."""
    it = Interpreter()
    it.run_script(prog("(= flag (initnext false (prev flag)))", "(on left (= flag true))"),
                  seed=42, trigger="flag")
    it.left()
    it.step()
    assert it.get_trigger_state() is False
    it.step()
    assert it.get_trigger_state() is True


def test_an_assignment_in_the_trigger_sets_the_updated_flag():
    """8.2: the updated flag is set by any assignment to the global during the tick, including
    assignments made from the trigger; so n's NEXT is skipped and n keeps the trigger's value."""
    it = Interpreter()
    it.run_script(prog("(= n (initnext 0 (+ (prev n) 1)))"), seed=42, trigger="let (= n 50) true")
    it.step()
    assert it.get_trigger_state() is True
    assert it.evaluate_to_string("n") == N(50)


def test_malformed_trigger_is_a_syntax_error():
    """14.2: the trigger is parsed at load in the evaluate syntax; "(+ 1 2)" fully
    parenthesised is a parse error."""
    with pytest.raises(AutumnSyntaxError):
        Interpreter().run_script(prog(), seed=42, trigger="(+ 1 2)")
    with pytest.raises(AutumnSyntaxError):
        Interpreter().run_script(prog(), seed=42, trigger="== n (")


def test_no_trigger_means_false():
    """3.6: SpecialConditionTriggered defaults to false."""
    it = load(prog("(= n (initnext 0 (+ (prev n) 1)))"))
    it.step()
    assert it.get_trigger_state() is False
    assert it.evaluate_to_string("SpecialConditionTriggered") == B(False)


# =========================================================================== seeds and determinism (11)

WALK = prog(
    '(object Bug (Cell 0 0 (uniformChoice (list "red" "green" "blue"))))',
    "(= bug (initnext (Bug (Position 2 2)) "
    "(updateObj (prev bug) \"origin\" (uniformChoice (adjPositions (.. (prev bug) origin))))))",
    "(= dots (initnext (list) (prev dots)))",
    '(on clicked (= dots (addObj dots (Bug click))))', grid=5)

ACTIONS = ["noop", "left", "click 1 1", "noop", "up", "click 3 4", "noop", "right", "noop",
           "down", "click 0 0", "noop", "noop", "left", "noop"]


def _frames(program: str, seed: int, actions=ACTIONS, native: bool = True, **kw) -> list[str]:
    it = Interpreter(native_stdlib=native)
    it.run_script(program, seed=seed, **kw)
    out = [it.render_all()]
    for a in actions:
        if a.startswith("click"):
            _, x, y = a.split()
            it.click(int(x), int(y))
        elif a != "noop":
            getattr(it, a)()
        it.step()
        out.append(it.render_all())
    return out


@pytest.mark.parametrize("seed", [0, 2 ** 32, 3 * 2 ** 32])
def test_degenerate_seed_is_refused(seed):
    """11.1: seed 0 (and any seed = 0 mod 2^32) leaves s = 0 forever; the interpreter refuses it
    with a clear error (issue: it silently removes randomness)."""
    with pytest.raises(AutumnSeedError):
        Interpreter().run_script(WALK, seed=seed)


def test_degenerate_seed_accepted_on_request_draws_zero():
    """11.1: with seed 0 every draw returns 0: the first element of every choice (C29)."""
    it = Interpreter()
    it.run_script(prog(), seed=0, allow_degenerate_seed=True)
    assert [it.evaluate("uniformChoice (range 0 1000)") for _ in range(3)] == [0, 0, 0]


def test_seed_is_taken_mod_2_32():
    """8.1 step 2/11.1: the RNG is seeded with seed mod 2^32."""
    assert _frames(WALK, 42) == _frames(WALK, 42 + 2 ** 32)
    it = Interpreter()
    it.run_script(prog(), seed=42 + 2 ** 32)
    assert it.evaluate("uniformChoice (range 0 1000000)") == ST42[0] % 1000000


def test_set_random_seed_reseeds_immediately():
    """14.1: set_random_seed re-seeds the RNG immediately (state = seed mod 2^32)."""
    it = load(prog())
    it.evaluate("uniformChoice (range 0 10)")
    it.set_random_seed(7)
    assert it.evaluate("uniformChoice (range 0 1000000)") == spec_states(7, 1)[0] % 1000000


@pytest.mark.parametrize("native", [True, False], ids=["native", "autumn"])
def test_determinism_same_seed_same_actions_same_frames(native):
    """Issue 2 / 11: program + seed + action sequence fix every frame."""
    a = _frames(WALK, 1234, native=native)
    b = _frames(WALK, 1234, native=native)
    assert a == b
    assert len(set(a)) > 3  # the world really changes (random walk, random colours, clicks)


# =========================================================================== rule coverage (14.1)

def test_rule_coverage_counts():
    """14.1: get_on_clause_count is the number of on clauses; get_covered_on_clause_count the
    number whose condition has been true at least once (8.2 step 4 marks it covered)."""
    it = load(prog("(= n (initnext 0 (prev n)))",
                   "(on left (= n 1))", "(on right (= n 2))", "(on (== n 5) (= n 6))",
                   "(on clicked (= n 0))"))
    assert it.get_on_clause_count() == 4
    assert it.get_covered_on_clause_count() == 0
    counts = []
    for action in ["left", "left", None, "right", "left"]:
        if action:
            getattr(it, action)()
        it.step()
        counts.append(it.get_covered_on_clause_count())
    assert counts == [1, 1, 1, 2, 2]
    cov = it.coverage()
    assert (cov.total, cov.covered) == (4, 2)


# =========================================================================== runaway programs

def _timed(fn, limit_s: float):
    t0 = time.monotonic()
    fn()
    assert time.monotonic() - t0 < limit_s


def test_unbounded_recursion_is_a_limit_error():
    text = prog("(= f (--> x (f x)))", "(= k (f 1))")
    _timed(lambda: load_error(text, AutumnLimitError), 10)


def test_unbounded_recursion_in_a_tick_is_a_limit_error():
    it = load(prog("(= f (--> x (+ 1 (f x))))", "(= k (initnext 0 (prev k)))", "(on left (= k (f 1)))"))
    it.left()

    def go():
        with pytest.raises(AutumnLimitError):
            it.step()
    _timed(go, 10)
    with pytest.raises(AutumnError):
        it.step()


@pytest.mark.parametrize("expr", ["(range 0 2000000000)", "(allPositions 100000)",
                                  "(uniformChoice (list 1) 2000000000)",
                                  "(randomPositions 5 2000000000)"])
def test_huge_list_is_a_limit_error(expr):
    _timed(lambda: load_error(prog(f"(= k {expr})"), AutumnLimitError), 10)


def test_list_growing_every_tick_hits_the_limit():
    it = load(prog("(= xs (initnext (list 1) (concat (list (prev xs) (prev xs)))))"), max_list=1000)

    def go():
        with pytest.raises(AutumnLimitError):
            for _ in range(40):
                it.step()
    _timed(go, 10)
    with pytest.raises(AutumnError):
        it.step()


FIB = "(= fib (--> n (if (< n 2) then n else (+ (fib (- n 1)) (fib (- n 2))))))"


def test_exponential_tick_hits_the_work_budget():
    it = load(prog(FIB, "(= v (initnext 0 (prev v)))", "(on left (= v (fib 40)))"),
              work_budget=200_000)
    it.step()
    it.left()

    def go():
        with pytest.raises(AutumnLimitError, match="more than 200,000 units of work in one tick"):
            it.step()
    _timed(go, 5)
    # 8.2: a failed step leaves the world broken: the next step raises too
    with pytest.raises(AutumnError):
        it.step()


def test_exponential_load_hits_the_work_budget():
    error = load_error(prog(FIB, "(= v (initnext (fib 40) (prev v)))"), AutumnLimitError,
                       work_budget=200_000)
    assert "more than 200,000 units of work in one load" in str(error)


# =========================================================================== check_program

BAD_PROGRAM = """(program
  (= GRID_SIZE 5)
  (= a (+ 1 2 3))
  (= b 1)
  (= c (if b 1 2))
  (object O (: on Int) (Cell 0 0 "red"))
  (= d (! true false))
)"""


def test_check_program_reports_every_syntax_error_with_its_line():
    problems = check_program(BAD_PROGRAM)
    assert [p.line for p in problems] == [3, 5, 6, 7]
    for p in problems:
        assert isinstance(p, AutumnSyntaxError) and p.column is not None


def test_check_program_accepts_a_good_program():
    good = prog(MK, '(= m (initnext (Mk "red" (Position 0 0)) (moveRightNoCollision (prev m))))',
                "(on left (= m (moveLeft m)))")
    assert check_program(good) == []


def test_check_program_unreadable_text():
    problems = check_program("(program (= k 1)")
    assert len(problems) == 1 and isinstance(problems[0], AutumnSyntaxError)
    assert problems[0].line is not None


# =========================================================================== objects, fields, forms

MISC = prog(MK, '(= g (Mk "green" (Position 3 1)))', "(= f (--> x x 99))",
            '(object Two (Cell 0 0 "red") (Cell 1 0 "blue"))',
            '(object After (Cell 0 0 c) (: c String))',
            '(object Order (: a Int) (Cell 0 0 "red") (: b Bool))')

MISC_ROWS = [
    ('.. (.. g "origin") x', N(3), "4.10: field names are matched after removing surrounding quotes"),
    (".. g nope", AutumnRuntimeError, "4.10: an unknown field is an error"),
    ("f 4", N(4), "4.7: BODY is a single expression; extra elements are ignored"),
    ("map (--> e (.. e position)) ((.. (Two (Position 0 0)) render))", L([P(1, 0)], UNK),
     "3.3: if there are several cell expressions, the last one wins"),
    ('map (--> e (.. e color)) ((.. (After "red" (Position 0 0)) render))', L([S("red")], UNK),
     "3.3: field declarations may appear after the cell expression"),
    (".. (Order 1 true (Position 0 0)) b", B(True), "3.3: the field order is the order of the field items"),
    ("head (.. g elems)", "Cell{x: ((NUMBER 0): Expr),y: ((NUMBER 0): Expr),color: ((var c): Expr)}",
     "5.5 Cell printed form; 7.2: literal coordinates fold to numbers, a field stays a deferred (var c)"),
    ('RenderedElem (Position 1 2) "red"', 'RenderedElem{position: Position{x: (1: N),y: (2: N)},color: ("red": S)}',
     "5.5 RenderedElem printed form"),
    ("map (--> e (.. e color)) ((.. g render))", L([S("green")], UNK), "4.10: render yields a bound zero-argument function"),
    ("length (.. g elems)", N(1), "3.3: elems, the list of Cell values produced by the cell expression"),
    ('= (.. g nope) 1', AutumnRuntimeError, "4.9/4.10: setting an unknown field is an error"),
    ("= k 7", N(7), "4.9: the result of (= target value) is value"),
    ('prev "k"', AutumnRuntimeError, "8.3: before the first tick no snapshot exists"),
]


@pytest.mark.parametrize("expr,expected,spec", MISC_ROWS, ids=[r[0] for r in MISC_ROWS])
def test_misc_forms(expr, expected, spec):
    run_ops(MISC, [Ev(expr, expected)])


def test_evaluate_side_effects_persist():
    """14.1: evaluate_to_string evaluates in the global scope now; side effects (assignments,
    random draws) persist."""
    it = load(prog("(= k 5)"))
    assert it.evaluate_to_string("= k 7") == N(7)
    assert it.evaluate_to_string("k") == N(7)
    first = it.evaluate("uniformChoice (range 0 1000000)")
    second = it.evaluate("uniformChoice (range 0 1000000)")
    assert (first, second) == (ST42[0] % 1000000, ST42[1] % 1000000)


def test_elements_after_an_on_body_are_ignored():
    """3.5: elements after BODY are ignored."""
    it = load(prog("(= k (initnext 0 (prev k)))", "(on true (= k 1) (= k 2))"))
    it.step()
    assert it.evaluate_to_string("k") == N(1)


CELL_ERRORS = [
    ('(object O (Cell 0 0)) (= o (O (Position 0 0)))', "7.2: (Cell X Y C) must have exactly three arguments"),
    ('(object O (Cell 0 0 5)) (= o (initnext (O (Position 0 0)) (prev o)))', "7.2: color must be a String, otherwise a Field type mismatch error (at render)"),
    ('(object O (Cell "a" 0 "red")) (= o (initnext (O (Position 0 0)) (prev o)))', "7.2: X and Y must be Numbers"),
    ('(= background 5)', "3.6: assigning a non-string to background is a type error"),
]


@pytest.mark.parametrize("stmts,spec", CELL_ERRORS, ids=[f"{i}" for i in range(len(CELL_ERRORS))])
def test_cell_and_special_global_errors(stmts, spec):
    load_error(prog(stmts), (AutumnSyntaxError, AutumnRuntimeError))


def test_cell_reading_a_global_not_yet_defined_is_live():
    """7.2: a cell referring to a global that does not exist yet when the object is built (a
    state variable, whose INIT runs after all statements) is a live lookup at render time."""
    program = prog('(object Lamp (Cell 0 0 (if lit then "yellow" else "gray")))',
                   "(= lamp (Lamp (Position 0 0)))",
                   "(= lit (initnext false (prev lit)))",
                   "(on left (= lit true))", grid=2)
    legend = {"y": "yellow", "a": "gray"}
    run_ops(program, [Frame(["a.", ".."], legend), Step(("L",)), Frame(["y.", ".."], legend)])


def test_run_script_twice_is_refused():
    """8.1/14.1: call run_script once per interpreter; make a new Interpreter to reset."""
    it = load(prog())
    with pytest.raises(AutumnError):
        it.run_script(prog(), seed=42)


# =========================================================================== dynamic scope at render time

DYN_RENDER = prog(
    '(object Probe (list (Cell 0 0 (if (isList prev_obj) then "red" else "green")) (Cell 1 0 "red")))',
    '(object Wall (Cell 0 0 "gray"))',
    "(= base (Probe (Position 0 0)))",
    "(= far (Wall (Position 5 5)))",
    "(= prev_obj (initnext 0 (prev prev_obj)))",
    '(= a (initnext (updateObj base "origin" (Position 0 1)) (moveNoCollision (prev a) 1 0)))',
    '(= b (initnext (updateObj base "origin" (Position 0 3)) (moveCanCollision (prev b) 1 0 far)))',
    grid=6)


@pytest.mark.parametrize("native", [True, False], ids=["native", "autumn"])
def test_stdlib_parameters_are_visible_to_cells_rendered_inside_them(native):
    """6.2: parameter names of the calling chain shadow globals for everything called below,
    including the render-time evaluation of cell expressions; 7.2: a name absent when the
    object is built (prev_obj is a state variable, created after the constant base) is looked
    up live through the render-time chain.

    At a host render prev_obj is the global 0, so the first cell is green. Inside
    moveCanCollision, isFreeExcept's parameter prev_obj is (list obj obj2): the cells render red,
    so the moved first cell equals the old second cell (position and colour, 13.2) and is
    filtered out: b moves. Inside moveNoCollision prev_obj is obj (not a list): green on red
    blocks a itself."""
    legend = {"g": "green", "r": "red", "a": "gray"}
    run_ops(DYN_RENDER, [
        Frame(["gr....", "gr....", "......", "gr....", "......", ".....a"], legend),
        Step(()),
        Frame(["gr....", "gr....", "......", ".gr...", "......", ".....a"], legend),
        Step(()),
        Frame(["gr....", "gr....", "......", "..gr..", "......", ".....a"], legend),
    ], native=native)
