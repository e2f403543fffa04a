"""Property tests (hypothesis) of the Autumn reader and evaluator.

(a) random text never makes the reader/loader fail with anything but our typed errors;
(b) random WELL-FORMED programs, built from the grammar of docs/spec/autumn.md 2-4 and 12-13 (objects with
    fields and cells, state variables with initnext, on-clauses with arrows and clicks,
    expressions from the operators, builtins and stdlib calls with random arguments of random
    kinds), loaded and stepped through random actions, never raise AutumnInternalError or any
    non-Autumn exception (ill-typed programs may fail with our typed errors);
(c) the native stdlib and the pure-Autumn stdlib behave identically on them (same render_all
    texts step by step, or the same error type at the same step; docs/spec/autumn.md 13 (a)-(c));
(d) determinism: the same program, seed and actions give the same frames twice.
"""

from __future__ import annotations

import string
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tiers import slow

from llm_eval.autumn import Interpreter
from llm_eval.errors import AutumnError, AutumnInternalError

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                      HealthCheck.data_too_large])
LIMITS = dict(max_list=5000, work_budget=2_000_000)


def two_tiers(prop, strategies: tuple, default: int, thorough: int):
    """One property as two tests: ``default`` examples in the default tier, and ``thorough``
    (the full count) in the slow tier (tests/tiers.py)."""
    def test(examples: int):
        return settings(max_examples=examples, **SETTINGS)(given(*strategies)(prop))
    return test(default), slow(test(thorough))


def _typed_failure(exc: BaseException) -> str | None:
    """None if ``exc`` is an acceptable (typed, non-internal) Autumn error, else a description."""
    if isinstance(exc, AutumnError) and not isinstance(exc, AutumnInternalError):
        return None
    return f"{type(exc).__name__}: {exc}"


# =========================================================================== (a) random text

LISPY = st.sampled_from(
    ["(", ")", "(", ")", " ", " ", "\n", ";", '"', "\\", "program", "object", "on", "=", "+",
     "-", "->", "-->", "..", ":", "initnext", "prev", "if", "then", "else", "let", "list",
     "Cell", "Position", "GRID_SIZE", "x", "y", "k", "1", "0", "-1", "2147483648", "2.5",
     '"red"', "true", "false", "nil", "&", "|", "!", "==", "left", "clicked", "map", "fn",
     "moveRight", "isFree", "(program", "(= k 1)", "(on left (= k 2))", "(object O (Cell 0 0 \"red\"))"])
PRINTABLE = st.text(alphabet=st.sampled_from(string.printable), max_size=300)
TOKEN_SOUP = st.lists(LISPY, max_size=60).map("".join)
PROGRAM_SOUP = st.lists(LISPY, max_size=40).map(lambda ts: "(program (= GRID_SIZE 4) " + "".join(ts))


def _load_and_poke(text: str) -> None:
    it = Interpreter(**LIMITS)
    try:
        it.run_script(text, seed=1)
        it.render_all()
        for _ in range(2):
            it.left()
            it.click(1, 1)
            it.step()
            it.render_all()
    except Exception as e:  # noqa: BLE001 - the property is about which exceptions escape
        failure = _typed_failure(e)
        assert failure is None, f"{failure}\nprogram: {text!r}"


test_random_text_raises_only_typed_errors, test_random_text_raises_only_typed_errors_thoroughly = \
    two_tiers(_load_and_poke, (st.one_of(PRINTABLE, TOKEN_SOUP, PROGRAM_SOUP),), 150, 800)


# =========================================================================== program generator

COLOURS = ["red", "blue", "green", "gray", "gold", "white"]
FIELD_POOL = [("n", "Int"), ("flag", "Bool"), ("col", "String"), ("k", "Number"),
              ("obj", "Int"), ("dir", "Bool"),   # named like stdlib parameters / locals (13.3)
              ("v0", "Int"), ("c0", "Int")]      # named like program globals (7.2, C14)
# State variables are sometimes named like the stdlib helpers' intermediate values, which the
# helpers overwrite (13.3): the native fast paths must reproduce that (13 (c)).
STATE_NAMES = {
    "num": ["sign_x", "xmin", "ymax"], "bool": ["wbound", "fr"],
    "pos": ["delta", "dir", "closestHole"], "obj": ["obj", "movedObj"],
    "objs": ["prev_elems", "curr_elems", "filtered_elems", "ret"],
    "poss": ["holes", "nextRowPos", "allCheckedPos", "filtered_pos", "rectPos"],
}
KINDS = ["num", "bool", "str", "pos", "obj", "objs", "nums", "poss"]


@dataclass
class Cls:
    name: str
    fields: list[tuple[str, str]]


class Gen:
    """Draws Autumn expression texts of a requested kind; sometimes (on purpose) of another."""

    def __init__(self, draw, grid: int, classes: list[Cls], state: dict[str, tuple[str, str | None]]):
        self.draw = draw
        self.grid = grid
        self.classes = classes
        self.state = state          # name -> (kind, class name for obj/objs)
        self.in_next = False        # prev is allowed only after the first tick (NEXT, handlers)
        self.locals: list[tuple[str, str, str | None]] = []   # lambda parameters in scope
        # how often an argument is of a random kind: about half the programs are well-typed
        self.bad = draw(st.sampled_from([0.0, 0.0, 0.01, 0.04]))

    # -- helpers ------------------------------------------------------------------------------
    def one(self, options):
        return self.draw(st.sampled_from(options))

    def chance(self, p: float) -> bool:
        return self.draw(st.floats(0, 1)) < p

    def small(self, lo=-2, hi=None) -> str:
        return str(self.draw(st.integers(lo, self.grid if hi is None else hi)))

    def names_of(self, kind, cls=None) -> list[str]:
        out = [n for n, (k, c) in self.state.items() if k == kind and (cls is None or c == cls)]
        out += [n for n, k, c in self.locals if k == kind and (cls is None or c == cls)]
        return out

    def var_or_prev(self, kind, cls=None) -> str | None:
        names = self.names_of(kind, cls)
        if not names:
            return None
        name = self.one(names)
        if self.in_next and name in self.state and self.chance(0.5):
            return f"(prev {name})"
        return name

    def cls(self, name=None) -> Cls:
        if name is not None:
            return next(c for c in self.classes if c.name == name)
        return self.one(self.classes)

    # -- the expression grammar ---------------------------------------------------------------
    def expr(self, kind: str, depth: int, cls: str | None = None) -> str:
        if self.bad and self.chance(self.bad):     # an argument of a random kind (ill-typed)
            kind = self.one(KINDS)
            cls = None
        if depth <= 0 or self.chance(0.25):
            v = self.var_or_prev(kind, cls) if self.chance(0.5) else None
            return v if v is not None else self.leaf(kind, cls)
        return getattr(self, "e_" + kind)(depth - 1, cls)

    def leaf(self, kind, cls=None) -> str:
        if kind == "num":
            return self.one([self.small(), self.small(), "GRID_SIZE", "-1", "0"])
        if kind == "bool":
            return self.one(["true", "false", "((left))", "((clicked))"])
        if kind == "str":
            return f'"{self.one(COLOURS)}"'
        if kind == "pos":
            return f"(Position {self.small()} {self.small()})"
        if kind == "obj":
            return self.construct(self.cls(cls), 0)
        if kind == "objs":
            return self.one(["(list)", f"(list {self.construct(self.cls(cls), 0)})"])
        if kind == "nums":
            return "(list " + " ".join(self.small() for _ in range(self.draw(st.integers(0, 3)))) + ")"
        if kind == "poss":
            return f"(adjPositions {self.leaf('pos')})"
        raise AssertionError(kind)

    def construct(self, c: Cls, depth: int) -> str:
        args = []
        for _, t in c.fields:
            k = {"Int": "num", "Number": "num", "Bool": "bool", "String": "str"}[t]
            args.append(self.expr(k, depth) if depth > 0 else self.leaf(k))
        pos = self.expr("pos", depth) if depth > 0 else self.leaf("pos")
        return f"({c.name} {' '.join(args + [pos])})"

    def lam(self, param_kind: str, body_kind: str, depth: int, cls=None, param="e") -> str:
        self.locals.append((param, param_kind, cls))
        try:
            body = self.expr(body_kind, depth, cls if body_kind in ("obj", "objs") else None)
        finally:
            self.locals.pop()
        return f"(--> {param} {body})"

    def e_num(self, d, _cls=None) -> str:
        x = lambda: self.expr("num", d)  # noqa: E731
        o = lambda: self.expr("obj", d)  # noqa: E731
        p = lambda: self.expr("pos", d)  # noqa: E731
        form = self.one(["bin", "bin", "len", "abs", "sign", "max", "min", "sqdist", "ox", "if",
                         "choice", "sum", "head", "tail", "at", "sqrt", "foldl", "let", "neg",
                         "globals"])
        if form == "bin":
            return f"({self.one(['+', '-', '*', '/', '%'])} {x()} {x()})"
        if form == "len":
            return f"(length {self.expr(self.one(['nums', 'objs', 'poss']), d)})"
        if form in ("abs", "sign", "sqrt"):
            return f"({form} {x()})"
        if form in ("max", "min"):
            return f"({form} {x()} {x()})"
        if form == "sqdist":
            return f"(sqdist {p()} {p()})"
        if form == "ox":
            return f"(.. (.. {o()} origin) {self.one(['x', 'y'])})"
        if form == "if":
            return f"(if {self.expr('bool', d)} then {x()} else {x()})"
        if form == "choice":
            return f"(uniformChoice {self.expr('nums', d)})"
        if form == "sum":
            return f"(sum {self.expr('nums', d)})"
        if form in ("head", "tail"):
            return f"({form} {self.expr('nums', d)})"
        if form == "at":
            return f"(at {self.expr('nums', d)} {x()})"
        if form == "foldl":
            return f"(foldl (--> (acc v) (+ acc v)) {x()} {self.expr('nums', d)})"
        if form == "let":
            return f"(let (= tmp {x()}) (+ tmp 1))"
        if form == "globals":
            return self.one(["(length ((renderAll)))", "(length ((allObjs)))", "(length cacheRendered)",
                             "(length (adjacentObjsDiag " + self.expr("obj", d) + "))"])
        return f"(- {x()})"

    def e_bool(self, d, _cls=None) -> str:
        x = lambda: self.expr("num", d)  # noqa: E731
        o = lambda: self.expr("obj", d)  # noqa: E731
        b = lambda: self.expr("bool", d)  # noqa: E731
        form = self.one(["cmp", "cmp", "eq", "not", "logic", "isFree", "bounds", "inter", "freepos",
                         "any", "in", "adj", "isList", "defined", "clicked", "freeExcept",
                         "adjObjs", "arrow", "freePosExcept", "freeRange", "adjList"])
        if form == "cmp":
            return f"({self.one(['<', '<=', '>', '>='])} {x()} {x()})"
        if form == "eq":
            k = self.one(KINDS)
            return f"({self.one(['==', '!='])} {self.expr(k, d)} {self.expr(self.one([k, k, 'num']), d)})"
        if form == "not":
            return f"(! {b()})"
        if form == "logic":
            return f"({self.one(['&', '|', 'and', 'or', '&&', '||'])} {b()} {b()})"
        if form == "isFree":
            return f"(isFree {self.expr(self.one(['obj', 'objs']), d)})"
        if form == "bounds":
            return f"(isWithinBounds {self.expr(self.one(['obj', 'objs']), d)})"
        if form == "inter":
            return f"(intersects {self.expr(self.one(['obj', 'objs']), d)} {self.expr(self.one(['obj', 'objs']), d)})"
        if form == "freepos":
            return f"(isFreePos {self.expr('pos', d)})"
        if form == "any":
            return f"(any {self.lam('num', 'bool', d, param='v')} {self.expr('nums', d)})"
        if form == "in":
            return f"(in {x()} {self.expr('nums', d)})"
        if form == "adj":
            return f"(adjacentTwoObjs {o()} {o()} {self.small(0, 3)})"
        if form == "isList":
            return f"(isList {self.expr(self.one(KINDS), d)})"
        if form == "defined":
            return f'(defined "{self.one(list(self.state) + ["nope", "click"])}")'
        if form == "clicked":
            return f"(clicked {self.expr(self.one(['obj', 'objs']), d)})"
        if form == "freeExcept":
            return f"(isFreeExcept {o()} {o()})"
        if form == "adjObjs":
            return f"(== (length (adjacentObjs {o()} 1)) {x()})"
        if form == "freePosExcept":
            return f"(isFreePosExceptObj {self.expr('pos', d)} {self.expr(self.one(['obj', 'objs']), d)})"
        if form == "freeRange":
            return f"(isFreeRangeExceptObj {x()} {x()} {o()})"
        if form == "adjList":
            return f"(adj {o()} {self.expr('objs', d)} {self.small(0, 2)})"
        return f"(({self.one(['left', 'right', 'up', 'down', 'clicked'])}))"

    def e_str(self, d, _cls=None) -> str:
        form = self.one(["lit", "if", "choice", "field"])
        if form == "lit":
            return f'"{self.one(COLOURS)}"'
        if form == "if":
            return f"(if {self.expr('bool', d)} then {self.expr('str', d)} else {self.expr('str', d)})"
        if form == "choice":
            return "(uniformChoice (list " + " ".join(f'"{c}"' for c in self.draw(
                st.lists(st.sampled_from(COLOURS), min_size=1, max_size=3))) + "))"
        withcol = [c for c in self.classes if ("col", "String") in c.fields]
        if withcol:
            return f"(.. {self.expr('obj', d, self.one(withcol).name)} col)"
        return f'"{self.one(COLOURS)}"'

    def e_pos(self, d, _cls=None) -> str:
        x = lambda: self.expr("num", d)  # noqa: E731
        o = lambda: self.expr("obj", d)  # noqa: E731
        p = lambda: self.expr("pos", d)  # noqa: E731
        form = self.one(["new", "new", "origin", "movePos", "dirPos", "delta", "unit", "unitPos",
                         "closestPos", "choice", "single", "click"])
        if form == "new":
            return f"(Position {x()} {x()})"
        if form == "origin":
            return f"(.. {o()} origin)"
        if form == "movePos":
            return f"(movePos {p()} {p()})"
        if form == "dirPos":
            return f"({self.one(['moveRightPos', 'moveLeftPos', 'moveUpPos', 'moveDownPos'])} {p()})"
        if form == "delta":
            return f"({self.one(['deltaPos', 'displacement'])} {p()} {p()})"
        if form == "unit":
            return f"(unitVector {o()} {o()})"
        if form == "unitPos":
            return f"(unitVectorObjPos {o()} {p()})"
        if form == "closestPos":
            return f"(closestPos {o()} {self.expr('poss', d)})"
        if form == "choice":
            return f"(uniformChoice {self.expr('poss', d)})"
        if form == "single":
            return f"(unitVectorSinglePos {p()})"
        return "click" if self.chance(0.3) else f"(Position {x()} {x()})"

    def e_obj(self, d, cls=None) -> str:
        c = self.cls(cls)
        o = lambda: self.expr("obj", d, c.name)  # noqa: E731
        form = self.one(["new", "new", "move", "move", "moveDir", "noColl", "canColl", "dirNoColl",
                         "liquid", "solid", "rotate", "rotateNoColl", "update", "updateOrigin",
                         "closest", "if", "head", "updateFn"])
        if form == "new":
            return self.construct(c, d)
        if form == "move":
            return f"(move {o()} {self.expr('pos', d)})"
        if form == "moveDir":
            return f"({self.one(['moveRight', 'moveLeft', 'moveUp', 'moveDown'])} {o()})"
        if form == "noColl":
            return f"(moveNoCollision {o()} {self.small(-1, 1)} {self.small(-1, 1)})"
        if form == "canColl":
            return f"(moveCanCollision {o()} {self.small(-1, 1)} {self.small(-1, 1)} {self.expr('obj', d)})"
        if form == "dirNoColl":
            return f"({self.one(['moveLeftNoCollision', 'moveRightNoCollision', 'moveUpNoCollision', 'moveDownNoCollision'])} {o()})"
        if form in ("liquid", "solid"):
            return f"({'nextLiquid' if form == 'liquid' else 'nextSolid'} {o()})"
        if form == "rotate":
            return f"(rotate {o()})"
        if form == "rotateNoColl":
            return f"(rotateNoCollision {o()})"
        if form == "update" and c.fields:
            f, t = self.one(c.fields)
            k = {"Int": "num", "Number": "num", "Bool": "bool", "String": "str"}[t]
            return f'(updateObj {o()} "{f}" {self.expr(k, d)})'
        if form in ("update", "updateOrigin"):
            return f'(updateObj {o()} "origin" {self.expr("pos", d)})'
        if form == "closest":
            return f"(closest {o()} {self.expr('objs', d, c.name)})"
        if form == "if":
            return f"(if {self.expr('bool', d)} then {o()} else {o()})"
        if form == "head":
            return f"({self.one(['head', 'tail'])} (list {o()} {o()}))"
        return f"(updateObj {o()} {self.lam('obj', 'obj', d, c.name)})"

    def e_objs(self, d, cls=None) -> str:
        c = self.cls(cls)
        L = lambda: self.expr("objs", d, c.name)  # noqa: E731
        o = lambda: self.expr("obj", d, c.name)  # noqa: E731
        form = self.one(["list", "add", "addList", "remove", "removePred", "filter", "map",
                         "updateMap", "updatePred", "fromPoss", "concat", "objClicked",
                         "adjObjs", "removeList", "fromNums", "diag"])
        if form == "list":
            return "(list " + " ".join(o() for _ in range(self.draw(st.integers(0, 3)))) + ")"
        if form == "add":
            return f"(addObj {L()} {o()})"
        if form == "addList":
            return f"(addObj {L()} {L()})"
        if form == "remove":
            return f"(removeObj {L()} {o()})"
        if form == "removeList":
            return f"(removeObj {L()} {L()})"
        if form == "removePred":
            return f"(removeObj {L()} {self.lam('obj', 'bool', d, c.name)})"
        if form == "filter":
            return f"(filter {self.lam('obj', 'bool', d, c.name)} {L()})"
        if form == "map":
            return f"(map {self.lam('obj', 'obj', d, c.name)} {L()})"
        if form == "updateMap":
            return f"(updateObj {L()} {self.one(['moveDown', 'moveUp', 'nextLiquid', 'nextSolid', 'moveRightNoCollision', 'rotate'])})"
        if form == "updatePred":
            return f"(updateObj {L()} {self.lam('obj', 'obj', d, c.name)} {self.lam('obj', 'bool', d, c.name)})"
        if form == "fromPoss":
            self.locals.append(("p", "pos", None))
            try:
                body = self.construct(c, d)
            finally:
                self.locals.pop()
            return f"(map (--> p {body}) {self.expr('poss', d)})"
        if form == "concat":
            return f"(concat (list {L()} {L()}))"
        if form == "fromNums":
            # built inside a function whose parameter has a field's name: frozen cells (C15)
            param = next((f for f, t in c.fields if t in ("Int", "Number")), "q")
            self.locals.append((param, "num", None))
            try:
                body = self.construct(c, d)
            finally:
                self.locals.pop()
            return f"(map (--> {param} {body}) {self.expr('nums', d)})"
        if form == "diag":
            return f"(adjacentObjsDiag {self.expr('obj', d)})"
        if form == "objClicked":
            return f"(objClicked {L()})"
        return f"(adjacentObjs {self.expr('obj', d)} {self.small(0, 2)})"

    def e_nums(self, d, _cls=None) -> str:
        x = lambda: self.expr("num", d)  # noqa: E731
        form = self.one(["list", "range", "map", "filter", "choice", "xs"])
        if form == "list":
            return "(list " + " ".join(x() for _ in range(self.draw(st.integers(0, 3)))) + ")"
        if form == "range":
            return f"(range {x()} {x()})"
        if form == "map":
            return f"(map {self.lam('num', 'num', d, param='v')} {self.expr('nums', d)})"
        if form == "filter":
            return f"(filter {self.lam('num', 'bool', d, param='v')} {self.expr('nums', d)})"
        if form == "choice":
            return f"(uniformChoice {self.expr('nums', d)} {self.small(1, 3)})"
        return f"(map (--> o (.. (.. o origin) x)) {self.expr('objs', d)})"

    def e_poss(self, d, _cls=None) -> str:
        p = lambda: self.expr("pos", d)  # noqa: E731
        form = self.one(["adj", "all", "rect", "random", "origins", "list"])
        if form == "adj":
            return f"(adjPositions {p()})"
        if form == "all":
            return f"(allPositions {self.small(0, 4)})"
        if form == "rect":
            return f"(rect {p()} {p()})"
        if form == "random":
            return f"(randomPositions GRID_SIZE {self.small(0, 3)})"
        if form == "origins":
            return f"(map (--> o (.. o origin)) {self.expr('objs', d)})"
        return "(list " + " ".join(p() for _ in range(self.draw(st.integers(0, 3)))) + ")"


def _cell_expr(draw, fields: list[tuple[str, str]]) -> str:
    names = {f for f, _ in fields}

    def coord():
        opts = [str(draw(st.integers(-1, 2)))]
        opts += [f for f, t in fields if t in ("Int", "Number")]
        return draw(st.sampled_from(opts))

    def colour():
        opts = [f'"{draw(st.sampled_from(COLOURS))}"', '(uniformChoice (list "red" "green"))']
        if "col" in names:
            opts.append("col")
        bools = [f for f, t in fields if t == "Bool"]
        if bools:
            opts.append(f'(if {draw(st.sampled_from(bools))} then "blue" else "pink")')
        return draw(st.sampled_from(opts))

    form = draw(st.sampled_from(["one", "list", "map"]))
    if form == "one":
        return f"(Cell {coord()} {coord()} {colour()})"
    if form == "list":
        cells = [f"(Cell {coord()} {coord()} {colour()})" for _ in range(draw(st.integers(1, 3)))]
        return "(list " + " ".join(cells) + ")"
    return f"(map (--> i (Cell i 0 {colour()})) (range 0 {draw(st.integers(1, 3))}))"


@st.composite
def programs(draw) -> str:
    grid = draw(st.integers(3, 7))
    classes = []
    decls = []
    for i in range(draw(st.integers(1, 3))):
        fields = draw(st.lists(st.sampled_from(FIELD_POOL), max_size=2, unique_by=lambda f: f[0]))
        name = f"K{i}"
        classes.append(Cls(name, fields))
        items = [f"(: {f} {t})" for f, t in fields]
        items.insert(draw(st.integers(0, len(items))), _cell_expr(draw, fields))
        decls.append(f"(object {name} {' '.join(items)})")
    state: dict[str, tuple[str, str | None]] = {}
    n_state = draw(st.integers(1, 4))
    for i in range(n_state):
        kinds = ["obj", "objs"] if i == 0 else ["obj", "obj", "objs", "objs", "num", "bool", "pos", "poss"]
        kind = draw(st.sampled_from(kinds))
        cls = draw(st.sampled_from(classes)).name if kind in ("obj", "objs") else None
        name = f"v{i}"
        if draw(st.integers(0, 3)) == 0:
            name = draw(st.sampled_from(STATE_NAMES[kind]))
        state.setdefault(name, (kind, cls))
    gen = Gen(draw, grid, classes, state)
    body = [f"(= GRID_SIZE {grid})"] + decls
    # constants (evaluated at load, before the state variables exist)
    saved = dict(state)
    gen.state = {}
    for i in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["obj", "objs", "num"]))
        body.append(f"(= c{i} {gen.expr(kind, 2)})")
    gen.state = saved
    for name, (kind, cls) in state.items():
        # INITs run in hash order (9.2): reading another state variable may fail to load, so
        # initialisers use constants only (the failure itself is pinned in test_semantics)
        gen.state = {}
        init = gen.expr(kind, 2, cls)
        gen.state = saved
        gen.in_next = True
        nxt = f"(prev {name})" if draw(st.integers(0, 3)) == 0 else gen.expr(kind, 3, cls)
        gen.in_next = False
        body.append(f"(= {name} (initnext {init} {nxt}))")
    gen.in_next = True
    for _ in range(draw(st.integers(0, 3))):
        cond = draw(st.sampled_from(["left", "right", "up", "down", "clicked", "true", "EXPR", "CLICKOBJ"]))
        if cond == "EXPR":
            cond = gen.expr("bool", 2)
        elif cond == "CLICKOBJ":
            cond = f"(clicked {gen.expr('obj', 1)})"
        targets = draw(st.lists(st.sampled_from(sorted(state)), min_size=1, max_size=2, unique=True))
        assigns = []
        for t in targets:
            kind, cls = state[t]
            how = draw(st.sampled_from(["assign"] * 6 + ["field", "remove", "grid"]))
            if how == "field" and kind == "obj" and gen.cls(cls).fields:
                f, ft = draw(st.sampled_from(gen.cls(cls).fields))
                k = {"Int": "num", "Number": "num", "Bool": "bool", "String": "str"}[ft]
                assigns.append(f"(= (.. {t} {f}) {gen.expr(k, 1)})")       # 4.9 in place
            elif how == "remove" and kind in ("obj", "objs"):
                assigns.append(f"(= {t} (removeObj {t}))")                  # 12.1 one argument
            elif how == "grid":
                assigns.append(f"(= GRID_SIZE {draw(st.integers(3, 7))})")  # 3.6 read dynamically
            else:
                assigns.append(f"(= {t} {gen.expr(kind, 2, cls)})")
        stmt = assigns[0] if len(assigns) == 1 else "(let " + " ".join(assigns) + ")"
        body.append(f"(on {cond} {stmt})")
    return "(program\n  " + "\n  ".join(body) + ")"


ACTION = st.one_of(st.sampled_from(["left", "right", "up", "down", "noop"]),
                   st.tuples(st.integers(-1, 7), st.integers(-1, 7)).map(lambda p: f"click {p[0]} {p[1]}"))
ACTIONS = st.lists(ACTION, min_size=6, max_size=10)
SEEDS = st.integers(1, 2 ** 32 - 1)


def trace(program: str, actions: list[str], seed: int, native: bool = True):
    """(frames, failure): the render_all texts, then the error (type, at which frame) if any.
    A non-typed or internal error is returned as ('BAD', description)."""
    it = Interpreter(native_stdlib=native, **LIMITS)
    frames: list[str] = []
    try:
        it.run_script(program, seed=seed)
        frames.append(it.render_all())
        for a in actions:
            if a.startswith("click"):
                _, x, y = a.split()
                it.click(int(x), int(y))
            elif a != "noop":
                getattr(it, a)()
            it.step()
            frames.append(it.render_all())
    except Exception as e:  # noqa: BLE001 - the property is about which exceptions escape
        bad = _typed_failure(e)
        if bad is not None:
            return frames, ("BAD", bad)
        return frames, (type(e).__name__, len(frames))
    return frames, None


def _only_typed_errors(program, actions, seed):
    for native in (True, False):
        _, failure = trace(program, actions, seed, native)
        assert failure is None or failure[0] != "BAD", f"{failure[1]}\nprogram:\n{program}\nactions: {actions}"


def _stdlibs_agree(program, actions, seed):
    native = trace(program, actions, seed, True)
    autumn = trace(program, actions, seed, False)
    assert native == autumn, f"program:\n{program}\nactions: {actions}\nseed: {seed}"


def _deterministic(program, actions, seed):
    assert trace(program, actions, seed) == trace(program, actions, seed)


def _readable(program):
    """The generator's output is well-formed: it always gets past the reader (any failure is a
    load-time evaluation error, never a syntax error). Keeps the generator honest."""
    from llm_eval.errors import AutumnSyntaxError
    try:
        Interpreter(**LIMITS).run_script(program, seed=3)
    except AutumnSyntaxError as e:  # pragma: no cover - a generator bug
        raise AssertionError(f"{e}\n{program}") from e
    except AutumnError:
        pass


test_well_formed_programs_raise_only_typed_errors, \
    test_well_formed_programs_raise_only_typed_errors_thoroughly = \
    two_tiers(_only_typed_errors, (programs(), ACTIONS, SEEDS), 25, 120)
test_native_and_autumn_stdlib_agree, test_native_and_autumn_stdlib_agree_thoroughly = \
    two_tiers(_stdlibs_agree, (programs(), ACTIONS, SEEDS), 25, 150)
test_same_program_seed_and_actions_give_the_same_frames, \
    test_same_program_seed_and_actions_give_the_same_frames_thoroughly = \
    two_tiers(_deterministic, (programs(), ACTIONS, SEEDS), 12, 60)
test_generated_programs_are_readable, test_generated_programs_are_readable_thoroughly = \
    two_tiers(_readable, (programs(),), 10, 30)
