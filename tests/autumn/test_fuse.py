"""The fused tier (fuse.py) must be indistinguishable from the closure compiler.

Every benchmark, conformance and edge program, and random well-formed programs, run with and
without fusion give the same frames, and fail (if they fail) with the same error message at
the same step. Targeted programs pin the cases fusion has to get right: callees that assign
or read their caller's parameters (dynamic scoping), a lambda rebound after its call sites
were compiled, a rebound builtin, errors with their positions.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from test_properties import ACTIONS, LIMITS, SEEDS, SETTINGS, programs
from tracing import random_actions, trace

from llm_eval.autumn import Interpreter, fuse

# generated code must compile cleanly: a SyntaxWarning would be printed to users
pytestmark = pytest.mark.filterwarnings("error::SyntaxWarning")

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
BENCHMARKS = sorted((ROOT / "benchmarks" / "programs").glob("*.sexp"))
CASES = yaml.safe_load((HERE / "conformance" / "cases.yaml").read_text())

EDGES = {
    # a callee assigns its caller's parameter through the dynamic scope chain; the caller's
    # body is inlined at its call site, so it must see the new value
    "callee_assigns_caller_param": """(program
  (= GRID_SIZE 8)
  (object Dot (Cell 0 0 "red"))
  (= bump (--> z (= n (+ n z))))
  (= twice (--> n (+ (bump 1) (* n 2))))
  (= x (initnext 0 (% (twice (prev x)) 7)))
  (= dot (initnext (Dot (Position 0 0)) (Dot (Position x 1)))))""",
    # a callee reads a name bound only as its caller's parameter
    "callee_reads_caller_param": """(program
  (= GRID_SIZE 8)
  (object Dot (Cell 0 0 "blue"))
  (= peek (--> u (+ u k)))
  (= outer (--> k (if (> k 3) then (peek 1) else (peek 2))))
  (= x (initnext 1 (% (outer (prev x)) 8)))
  (= dot (initnext (Dot (Position 0 0)) (Dot (Position x x)))))""",
    # the inlined lambda is replaced by another one at run time
    "lambda_rebound": """(program
  (= GRID_SIZE 8)
  (object Dot (Cell 0 0 "green"))
  (= step1 (--> v (+ v 1)))
  (= walk (--> v (% (step1 v) 8)))
  (= x (initnext 0 (walk (prev x))))
  (= dot (initnext (Dot (Position 0 0)) (Dot (Position x 2))))
  (on left (= step1 (--> v (- v 1))))
  (on right (= step1 (--> v (+ v 2)))))""",
    # a builtin the fused code specialises is rebound by the program
    "at_rebound": """(program
  (= GRID_SIZE 8)
  (object Dot (Cell 0 0 "yellow"))
  (= xs (list 1 2 3 4))
  (= pick (--> i (at xs (% i 4))))
  (= x (initnext 0 (pick (+ (prev x) 1))))
  (= dot (initnext (Dot (Position 0 0)) (Dot (Position x 3))))
  (on up (= at (--> (l i) 0))))""",
    # type errors inside fused and inlined code keep the closure compiler's positions
    "type_error_inlined": """(program
  (= GRID_SIZE 8)
  (= f (--> a (+ a 1)))
  (= g (--> b (f b)))
  (= x (initnext 0 (+ (prev x) 1)))
  (on left (= x (g "no"))))""",
    "logic_calls_function": """(program
  (= GRID_SIZE 8)
  (object Dot (Cell 0 0 "white"))
  (= x (initnext 0 (if (& left (> (prev x) -1)) then (+ (prev x) 1) else (prev x))))
  (= dot (initnext (Dot (Position 0 0)) (Dot (Position (% x 8) 4)))))""",
    # assignments in a let walk the chain: a global is overwritten, a parameter updated
    "let_clobbers_global_and_param": """(program
  (= GRID_SIZE 8)
  (object Dot (Cell 0 0 "red"))
  (= tmp 0)
  (= calc (--> v (let (= tmp (+ v 1)) (= v (* v 3)) (= w (* tmp 2)) (+ (+ w tmp) v))))
  (= x (initnext 0 (% (calc (prev x)) 8)))
  (= dot (initnext (Dot (Position 0 0)) (Dot (Position x (% tmp 8)))))
  (on left (= x (let (= x 5) (+ x 1)))))""",
    # lambda literals passed to list builtins run inline: free names, short-circuits,
    # calls with side effects from inside the loop, the result tags
    "list_builtins_inline": """(program
  (= GRID_SIZE 8)
  (object Dot (: n Number) (Cell 0 0 (if (> n 2) then "red" else "blue")))
  (= seen 0)
  (= mark (--> v (let (= seen (+ seen 1)) (> v 2))))
  (= dots (initnext (map (--> i (Dot i (Position i 0))) (range 0 6))
     (let (= lim (% (+ seen 1) 5))
          (updateObj (removeObj (prev dots) (--> o (& (> (.. o n) lim) (mark (.. o n)))))
                     (--> o (updateObj o "origin" (Position (.. (.. o origin) x) (% (+ (.. (.. o origin) y) 1) 8))))))))
  (= flags (initnext (list) (filter (--> o (any (--> q (== (.. q n) (.. o n))) (prev dots))) dots)))
  (on clicked (= dots (addObj dots (Dot (length flags) click)))))""",
    # a callee assigns its caller's parameter between two uses: the second use must see
    # the new value
    "param_reassigned_by_callee": """(program
  (= GRID_SIZE 8)
  (= setv (--> z (= v 5)))
  (= f (--> v (+ (+ v 1) (if (setv 0) then v else v))))
  (= x (initnext 0 (prev x)))
  (on left (= x (f (prev x)))))""",
    # list builtins whose lambda returns a constant
    "constant_lambda_bodies": """(program
  (= GRID_SIZE 4)
  (object Dot (Cell 0 0 "red"))
  (= xs (initnext (list 1 2 3) (filter (--> x 1) (map (--> y 0) (prev xs)))))
  (= dot (initnext (Dot (Position 0 0)) (if (any (--> z "s") xs) then (Dot (Position 1 1)) else (Dot (Position 2 2))))))""",
    "cell_reads_names": """(program
  (= GRID_SIZE 8)
  (= shade "red")
  (object Tile (: k Number) (Cell (% k 3) (/ k 3) (if (> k 4) then shade else "blue")))
  (= tiles (initnext (map (--> i (Tile i (Position 1 1))) (range 0 8))
                     (updateObj (prev tiles) (--> t (updateObj t "k" (% (+ (.. t k) 1) 8))))))
  (on clicked (= shade "green")))""",
    # `at` of a literal: the generated code must not subscript a literal (a SyntaxWarning),
    # and both paths raise the same located error
    # a let's assignments when its scope is made lazily: a name bound nowhere (the let's
    # own), the same name again, an inlined lambda's parameter, a global, an enclosing let's
    # name; callees that read the let's names through the caller's scopes (a lambda called
    # through a local, a builtin that calls back), and a builtin that reads no scope
    "let_assignments_every_way": """(program
  (= GRID_SIZE 8)
  (object Dot (Cell 0 0 "red"))
  (= k 100)
  (= xs (list 1 2 3))
  (= readK (--> q (+ q kk)))
  (= inner (--> (a b)
     (let (= fresh (+ a b))
          (= fresh (+ fresh 1))
          (= a (* a 2))
          (= k (+ k 1))
          (= kk (% fresh 5))
          (= f readK)
          (+ (+ fresh a) (+ (f 1) (foldl (--> (acc v) (+ acc kk)) 0 xs))))))
  (= outer (--> c (let (= shared 1)
                       (+ (let (= shared (+ shared c))
                               (= n (length xs))
                               (+ n (inner c 2)))
                          shared))))
  (= x (initnext 0 (% (outer (prev x)) 8)))
  (= dot (initnext (Dot (Position 0 0)) (Dot (Position x (% k 8)))))
  (on left (= k (let (= k (+ k 3)) (= k (* k 2)) k))))""",
    # a let in a cell's colour assigns the object's field: the walk finds it in the render
    # chain (the let's table never gets it)
    "let_assigns_a_field_in_a_cell": """(program
  (= GRID_SIZE 8)
  (object Tile (: n Number) (Cell 0 0 (let (= n (+ n 1)) (if (> n 2) then "red" else "blue"))))
  (= tiles (initnext (map (--> i (Tile i (Position i 1))) (range 0 5))
                     (updateObj (prev tiles) (--> t (updateObj t "n" (% (+ (.. t n) 1) 5)))))))""",
    "let_assignment_changes_type": """(program
  (= GRID_SIZE 4)
  (= grow (--> a (let (= y a) (= y "s") y)))
  (= x (initnext 0 (prev x)))
  (on left (= x (grow 1))))""",
    "let_assignment_against_annotation": """(program
  (= GRID_SIZE 4)
  (: q Number)
  (= put (--> a (let (= q a) 1)))
  (= x (initnext 0 (prev x)))
  (on left (= x (put "s"))))""",
    "at_of_a_literal": """(program
  (= GRID_SIZE 3)
  (object K1 (Cell 0 0 "red"))
  (= xs (initnext (list 4 5) (prev xs)))
  (= v (initnext 5 (+ (prev v) (at (list 1 2) 0))))
  (= w (initnext 0 (if (> v 7) then (at 0 0) else (at xs 1)))))""",
}


def _programs():
    for path in BENCHMARKS:
        yield path.stem, path.read_text()
    for case in CASES:
        yield case["id"], case["program"]
    yield from EDGES.items()


def _trace(text: str, fusion: bool, actions: list[str], seed: int):
    return trace(text, actions, seed, fusion=fusion, **LIMITS)


@pytest.mark.parametrize("name,text", list(_programs()), ids=[n for n, _ in _programs()])
def test_fused_and_closure_code_agree(name, text):
    actions = random_actions(random.Random(name), 40)
    fused = _trace(text, True, actions, seed=5)
    plain = _trace(text, False, actions, seed=5)
    assert fused == plain


def test_edge_programs_really_run():
    """The edge programs exercise what they claim (they step, and the error one fails)."""
    frames, failure = _trace(EDGES["callee_assigns_caller_param"], True, ["noop"] * 5, 3)
    assert failure is None and len(set(frames)) > 1
    _, failure = _trace(EDGES["type_error_inlined"], True, ["left"], 3)
    assert failure is not None and failure[1].startswith("3:15: ") and "'+' needs two Numbers" in failure[1]
    for fusion in (True, False):
        it = Interpreter(fusion=fusion)
        it.run_script(EDGES["param_reassigned_by_callee"], seed=3)
        it.left()
        it.step()
        assert it.evaluate_to_string("x") == "(6: N)"     # (0 + 1) + 5
    frames, failure = _trace(EDGES["at_of_a_literal"], True, ["noop"] * 8, 3)
    assert len(frames) == 4 and failure[1] == "6:37: at expects a list, got a Number"
    it = Interpreter()
    it.run_script(EDGES["lambda_rebound"], seed=3)
    xs = []
    for key in ("noop", "left", "left", "right"):
        if key != "noop":
            getattr(it, key)()
        it.step()
        xs.append(it.evaluate_to_string("x"))
    assert xs == ["(1: N)", "(0: N)", "(-1: N)", "(1: N)"]


@settings(max_examples=120, **SETTINGS)
@given(programs(), ACTIONS, SEEDS)
def test_fusion_agrees_on_random_programs(program, actions, seed):
    assert _trace(program, True, actions, seed) == _trace(program, False, actions, seed), \
        f"program:\n{program}\nactions: {actions}\nseed: {seed}"


def test_generated_code_never_contains_program_text():
    """Names and strings of the program reach generated code only as constants."""
    marker_name = "zzSecretName"
    marker_text = "__import__('os').system('true')"
    program = f"""(program
  (= GRID_SIZE 4)
  (= {marker_name} (--> q (if (> q 1) then "{marker_text}" else "red")))
  (object Dot (Cell 0 0 ({marker_name} 0)))
  (= dot (Dot (Position 1 1))))"""
    before = set(fuse._CODE_CACHE)
    it = Interpreter()
    it.run_script(program, seed=1)
    it.step()
    new = set(fuse._CODE_CACHE) - before
    assert any("Scope(" in s or "g.get(" in s for s in fuse._CODE_CACHE)
    for source in set(fuse._CODE_CACHE) | new:
        assert marker_name not in source and "__import__" not in source



LAZY_LOOKUP = """(program
  (= GRID_SIZE 4)
  (= k 1)
  (= bump (--> q (+ q k)))
  (= x (initnext 0 (bump (prev x))))
  (object Dot (Cell 0 0 "red"))
  (= dot (Dot (Position 1 1))))"""


@pytest.fixture
def variables_compiled(monkeypatch) -> list[tuple[str, str]]:
    """(variable, the function that asked for its compiled lookup) for each one compiled."""
    import sys

    from llm_eval.autumn.compiler import Compiler

    compiled: list[tuple[str, str]] = []
    real = Compiler.c_Var

    def c_var(self, node):
        # the caller of compile_closure: the generator, a reload's rebuild, or a lazy lookup
        compiled.append((node.name, sys._getframe(2).f_code.co_name))
        return real(self, node)
    monkeypatch.setattr(Compiler, "c_Var", c_var)
    return compiled


def test_a_reload_compiles_no_variable_lookup_until_one_is_taken(variables_compiled):
    """A generated function's fallback lookups (the scope walk taken when a name is not found
    on the fast path) are compiled when first called: neither the program's first load nor a
    reload (every new world of a bundled program) compiles any of them, and stepping, where
    every name is found on the fast path, none either."""
    Interpreter().run_script(LAZY_LOOKUP, seed=1)     # the program's code is generated once
    first = list(variables_compiled)
    variables_compiled.clear()
    it = Interpreter()
    it.run_script(LAZY_LOOKUP, seed=1)
    for _ in range(3):
        it.step()
    assert it.evaluate_to_string("x") == "(3: N)"
    fallbacks = first + variables_compiled
    assert not [c for c in fallbacks if c[1] in ("closure", "_build", "__call__")]


@pytest.mark.parametrize("reload", [False, True], ids=["first load", "reload"])
def test_a_lookup_first_taken_after_its_name_became_local_agrees_with_the_closures(
        reload, variables_compiled):
    """An evaluated expression that binds ``k`` makes it a possibly local name: the fused code
    stops reading it from the global table and takes its fallback lookup, compiled only now;
    the values are the closure compiler's, step by step."""
    if reload:
        Interpreter().run_script(LAZY_LOOKUP, seed=1)
    seen = {}
    for fusion in (True, False):
        it = Interpreter(fusion=fusion)
        it.run_script(LAZY_LOOKUP, seed=1)
        it.step()
        values = [it.evaluate_to_string("x"),
                  it.evaluate_to_string("let (= k 10) (bump 0)")]
        for _ in range(3):
            it.step()
            values.append(it.evaluate_to_string("x"))
        seen[fusion] = values
        if fusion:
            # the lazy lookup was taken at each step, and compiled at the first only
            assert variables_compiled.count(("k", "__call__")) == 1
    assert seen[True] == seen[False]
    assert seen[True] == ["(1: N)", "(10: N)", "(11: N)", "(21: N)", "(31: N)"]


# -- lets whose scope is made only when needed, builtins that read no scope -------------------
def _reads_env(env, args):
    return env.vars.get("k")


def _captures_env(env, args):
    return (lambda: env)()


def _uses_locals(env, args):
    return locals()["env"]


def _ignores_env(env, args):
    return len(args)


@pytest.mark.parametrize("fn,reads", [
    (_reads_env, True), (_captures_env, True), (_uses_locals, True), (_ignores_env, False),
    (len, True),                                 # no Python code to look into: assumed to
    (lambda: None, True),                        # take no scope argument at all
], ids=["reads", "captures", "locals", "ignores", "C function", "no parameter"])
def test_a_builtin_reads_its_scope_unless_its_code_never_names_it(fn, reads):
    from llm_eval.autumn.values import reads_scope
    assert reads_scope(fn) is reads


def test_the_builtins_that_call_functions_or_assign_read_their_callers_scope():
    """What the fused code relies on: the builtins that call a function (whose scope is the
    caller's, dynamic scoping) or assign names through the chain (the natives of the
    standard library's helpers) are called with the caller's scopes made; the others not."""
    from llm_eval.autumn.values import Builtin
    it = Interpreter()
    it.run_script('(program (= GRID_SIZE 4))', seed=1)
    builtins = {n: v for n, v in it._rt.G.vars.items() if v.__class__ is Builtin}
    for name in ("map", "filter", "foldl", "any", "updateObj", "removeObj",
                 "nextLiquid", "moveNoCollision", "closestPos", "isFree", "defined"):
        assert not builtins[name].scopeless, name
    for name in ("in", "length", "head", "at", "range", "uniformChoice", "moveLeft"):
        assert builtins[name].scopeless, name


LAZY_LET = """(program
  (= GRID_SIZE 4)
  (= xs (list 1 2 3))
  (= total 0)
  (on true (= total (let (= n (length xs)) (= m (+ n total)) (% m 100)))))"""


def test_a_let_makes_no_scope_when_nothing_looks_into_it(monkeypatch):
    """A let whose assignments bind new names and whose calls read no scope runs on its table
    alone: no Scope is made for it, tick after tick; the values are the closure compiler's."""
    made = []

    class CountedScope(fuse.Scope):
        __slots__ = ()

        def __init__(self, *args):
            made.append(args)
            super().__init__(*args)
    monkeypatch.setattr(fuse, "Scope", CountedScope)
    values = {}
    for fusion in (True, False):
        it = Interpreter(fusion=fusion)
        it.run_script(LAZY_LET, seed=1)
        made.clear()
        for _ in range(4):
            it.step()
        values[fusion] = it.evaluate_to_string("total")
        if fusion:
            assert made == []
    assert values[True] == values[False] == "(12: N)"     # 3 a tick
