"""Property tests: nothing but our typed errors ever comes out of the reader or evaluator."""

from hypothesis import HealthCheck, given, settings, strategies as st

from llm_eval.autumn import Interpreter
from llm_eval.errors import AutumnError, AutumnInternalError

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
ALPHABET = st.sampled_from(list("()()()  \n;\"\\abcxyz019-+*/%=<>!&|.:") +
                           ["program", "object", "on", "Cell", "list", "let", "if", "then",
                            "else", "-->", "initnext", "prev", "Position", "true", "..",
                            "GRID_SIZE", "map", "head", "uniformChoice", "updateObj"])


def _only_typed_errors(fn):
    try:
        fn()
    except AutumnInternalError:
        raise
    except AutumnError:
        pass


@SETTINGS
@given(st.lists(ALPHABET, max_size=60).map(" ".join))
def test_random_text_gives_only_typed_errors(text):
    def run():
        it = Interpreter(tick_budget_s=1.0)
        it.run_script(text, seed=1)
        it.step()
        it.render_all()
    _only_typed_errors(run)


# -- random well-formed programs --------------------------------------------------------------

NAMES = ["t", "pts", "hero"]
atoms = st.one_of(st.integers(-3, 20).map(str), st.sampled_from(
    ['"red"', '"blue"', "true", "false", "t", "(prev t)", "hero", "pts", "(list)",
     "(Position 1 2)", "click", "GRID_SIZE", "(.. hero origin)", "(head pts)"]))


def _expr(children):
    un = st.tuples(st.sampled_from(["-", "!"]), children).map(lambda p: f"({p[0]} {p[1]})")
    bi = st.tuples(st.sampled_from(["+", "-", "*", "/", "%", "==", "<", "&", "|"]),
                   children, children).map(lambda p: f"({p[0]} {p[1]} {p[2]})")
    iff = st.tuples(children, children, children).map(
        lambda p: f"(if {p[0]} then {p[1]} else {p[2]})")
    call1 = st.tuples(st.sampled_from(
        ["moveLeft", "moveDown", "isFree", "length", "head", "tail", "adjPositions",
         "uniformChoice", "renderValue", "nextSolid", "nextLiquid", "isWithinBounds", "abs",
         "rotate", "rotateNoCollision", "sqrt", "isList", "allObjs", "clicked"]),
        children).map(lambda p: f"({p[0]} {p[1]})")
    call2 = st.tuples(st.sampled_from(
        ["addObj", "removeObj", "map", "filter", "range", "at", "move", "intersects",
         "moveNoCollision", "updateObj", "isFreeExcept", "closest", "unitVector", "sqdist"]),
        children, children).map(lambda p: f"({p[0]} {p[1]} {p[2]})")
    lam = children.map(lambda b: f"(--> x {b})")
    let = st.tuples(st.sampled_from(NAMES + ["tmp"]), children, children).map(
        lambda p: f"(let (= {p[0]} {p[1]}) {p[2]})")
    return st.one_of(un, bi, iff, call1, call2, lam, let)


exprs = st.recursive(atoms, _expr, max_leaves=8)


@st.composite
def programs(draw):
    typed = st.sampled_from([("hero", "(moveLeft hero)"), ("hero", "(rotate hero)"),
                             ("hero", "(rotateNoCollision hero)"),
                             ("hero", '(updateObj hero "hp" (- (.. hero hp) 1))'),
                             ("pts", "(addObj pts (Pt click))"), ("t", "(+ t 2)"),
                             ("hero", "(moveRightNoCollision hero)")])
    handlers = draw(st.lists(st.tuples(
        st.sampled_from(["left", "right", "clicked", "true", "(== t 3)", "(clicked hero)"]),
        st.one_of(typed, typed, typed, st.tuples(st.sampled_from(NAMES), exprs))).map(
            lambda p: (p[0], p[1][0], p[1][1])), max_size=3))
    # half the time a well-typed next-expression, so many programs run all their steps
    nxt = draw(st.one_of(st.sampled_from([
        "(updateObj (prev pts) nextSolid)", "(updateObj (prev pts) nextLiquid)",
        "(updateObj (prev pts) (--> p (moveNoCollision p 1 0)))",
        "(addObj (prev pts) (Pt (Position (% t GRID_SIZE) 0)))",
        "(filter (--> p (isWithinBounds p)) (updateObj (prev pts) moveDown))",
        "(updateObj (prev pts) (--> p (updateObj p \"origin\" (uniformChoice (adjPositions (.. p origin))))))",
        "(if (intersects hero (prev pts)) then (list) else (prev pts))"]),
        st.just("(prev pts)"), exprs))
    return "\n".join([
        "(program",
        f"  (= GRID_SIZE {draw(st.integers(3, 10))})",
        '  (object Hero (: hp Number) (list (Cell 0 0 "white") (Cell 1 0 (if (> hp 0) then "red" else "gray"))))',
        '  (object Pt (Cell 0 0 (uniformChoice (list "blue" "green"))))',
        "  (= t (initnext 0 (+ (prev t) 1)))",
        "  (= hero (initnext (Hero 3 (Position 1 1)) (prev hero)))",
        f"  (= pts (initnext (list (Pt (Position 2 2))) {nxt}))",
        *[f"  (on {c} (= {n} {e}))" for c, n, e in handlers],
        ")"])


ACTIONS = st.lists(st.sampled_from(["left", "right", "up", "down", "noop", "click 1 1",
                                    "click 2 2"]), min_size=1, max_size=8)


def _play(text, actions, native=True):
    it = Interpreter(tick_budget_s=1.0, native_stdlib=native)
    frames = []
    try:
        it.run_script(text, seed=7)
        frames.append(it.render_all())
        for a in actions:
            if a.startswith("click"):
                it.click(*map(int, a.split()[1:]))
            elif a != "noop":
                getattr(it, a)()
            it.step()
            frames.append(it.render_all())
    except AutumnInternalError:
        raise
    except AutumnError as e:
        frames.append(type(e).__name__)
    return frames


@SETTINGS
@given(programs(), ACTIONS)
def test_random_programs_give_only_typed_errors_and_are_deterministic(text, actions):
    assert _play(text, actions) == _play(text, actions)


@SETTINGS
@given(programs(), ACTIONS)
def test_native_stdlib_agrees_with_autumn_stdlib_on_random_programs(text, actions):
    assert _play(text, actions, native=True) == _play(text, actions, native=False)
