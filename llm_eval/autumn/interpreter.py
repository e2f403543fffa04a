"""The host API of the Autumn interpreter (docs/spec/autumn.md 8.1, 8.2, 14), reference-compatible.

``Interpreter`` offers the reference module's method names, so harness code written for the
reference runs unchanged, plus ``render_frame`` (the host render as a ``Frame``) and rule
coverage. Make a new Interpreter for every reset, as the reference requires.
"""

from __future__ import annotations

import functools
import sys
from importlib import resources

from ..errors import (
    AutumnError,
    AutumnInternalError,
    AutumnLimitError,
    AutumnRuntimeError,
    AutumnSeedError,
)
from ..seeds import DEGENERATE_SEED_REASON, is_degenerate_seed
from . import state as _state
from . import syntax as S
from .builtins import install_builtins
from .compiler import Compiler, reads_only
from .frame import Frame
from .hashorder import HashOrder
from .native_stdlib import install_native_stdlib
from .printing import print_value
from .runtime import DEFAULT_WORK_BUDGET, ClickLog, Handler, Limits, Runtime
from .values import (
    CELL_T,
    FUNCTION_TYPES,
    POSITION_T,
    ObjClass,
    Thaw,
    TypeRef,
    list_tag,
    truthy,
)

__all__ = ["Interpreter", "STDLIB", "Coverage"]

STDLIB: str = resources.files(__package__).joinpath("stdlib.sexp").read_text(encoding="utf-8")
_RECURSION_LIMIT = 20000
_MAX_EXPRESSIONS = 256       # compiled host expressions kept per interpreter (evaluate)
# operations recorded while the state shares a saved one; at this many it takes copies (a
# world's step is an input, a tick and a render: about 20 steps)
_MAX_SHARED_OPS = 64
# Autumn recursion nests Python frames; a deep-but-finite program must not hit Python's
# default limit of 1000. Runaway recursion still ends, as an AutumnLimitError.
if sys.getrecursionlimit() < _RECURSION_LIMIT:
    sys.setrecursionlimit(_RECURSION_LIMIT)


@functools.lru_cache(maxsize=64)
def _parsed(text: str, path: str | None) -> tuple:
    """Parsing is pure: cache it, since every reset loads the same program and stdlib."""
    return tuple(S.parse_statements(text, path))


# Each walk of the program below is made once per program text (a large program is walked
# once, not once per question asked of it).
@functools.lru_cache(maxsize=64)
def _maybe_local(statements: tuple) -> frozenset[str]:
    return frozenset(S.maybe_local_names(statements))


@functools.lru_cache(maxsize=64)
def _rebound_names(program: tuple) -> frozenset[str]:
    return frozenset(S.rebound_names(program, local=_maybe_local(program)))


# a program, stdlib, trigger or evaluated text that names it may read the host render's list
_CACHE = "cacheRendered"
# Globals the host changes while the program runs (never by a definition of the program's)
_HOST_SET = frozenset(("click", "cacheRendered", "SpecialConditionTriggered", "GRID_SIZE"))


@functools.lru_cache(maxsize=64)
def _binding_locals(statements: tuple) -> frozenset[str]:
    return frozenset(S.maybe_local_names(statements, cells=False))


@functools.lru_cache(maxsize=64)
def _cell_names(statements: tuple) -> frozenset[str]:
    return frozenset(S.cell_names(statements))


@functools.lru_cache(maxsize=64)
def _redefinable(std: tuple, program: tuple) -> frozenset[str]:
    return frozenset(S.redefinable_names(std + program))


def _cell_constants(std: tuple, program: tuple) -> frozenset[str]:
    """Names a Cell form mentions that nothing but a cell's snapshot can bind and whose
    global value cannot change once made (builtins, stdlib functions, the program's plain
    top-level definitions): a snapshot holds that same value, so a lookup that reads the
    global table finds what walking the scopes would."""
    cells = _cell_names(std) | _cell_names(program)
    return frozenset(cells - _binding_locals(std) - _binding_locals(program)
                     - _redefinable(std, program) - _HOST_SET)


def _local_names(std: tuple, program: tuple) -> frozenset[str]:
    # a union over statements, each walked on its own: so the stdlib's part is walked once;
    # names only cells bind are local unless their global value is fixed (_cell_constants)
    return (_maybe_local(std) | _maybe_local(program)) - _cell_constants(std, program)


@functools.lru_cache(maxsize=64)
def _rebound(program: tuple) -> frozenset[str]:
    """Names the program rebinds; GRID_SIZE is read from the global table at run time, so
    only a local binding of it (a parameter, a field) changes what the stdlib sees."""
    rebound = _rebound_names(program) - {"GRID_SIZE"}
    rebound |= {"GRID_SIZE"} & _maybe_local(program)
    return frozenset(rebound)


@functools.lru_cache(maxsize=64)
def _mentioned(program: tuple) -> frozenset[str]:
    """Every name the program mentions or binds anywhere."""
    names = set(_rebound_names(program))
    for stmt in program:
        roots = ([stmt.cell] if isinstance(stmt, S.ObjectDecl)
                 else [stmt.cond, stmt.body] if isinstance(stmt, S.OnDecl) else [stmt.expr])
        names |= S.collect_names(roots)
    return frozenset(names)


@functools.lru_cache(maxsize=64)
def _renders_read_scopes(program: tuple) -> bool:
    """Whether rendering one of the program's objects might look a name up in the scopes of
    whoever renders it. It cannot when every object's cells are Cell forms (alone or in a
    list literal) whose parts only read fields of that object (a cell finds those in its
    snapshot or the fields, before the caller's scopes), and no other code makes cells or
    touches ``elems``."""
    decl_cells: set[int] = set()
    for stmt in program:
        if not isinstance(stmt, S.ObjectDecl):
            continue
        fields = {name for name, _ in stmt.fields}
        cell = stmt.cell
        forms = cell.items if isinstance(cell, S.ListLit) else [cell]
        for form in forms:
            if not (isinstance(form, S.Call) and isinstance(form.fn, S.Var)
                    and form.fn.name == "Cell" and len(form.args) == 3):
                return True
            if not all(map(reads_only, form.args)) or not S.collect_names(form.args) <= fields:
                return True
            decl_cells.add(id(form))
    for node in S.walk(program):
        if ((isinstance(node, S.Var) and node.name == "elems")
                or (isinstance(node, S.Field) and node.field == "elems")
                or (isinstance(node, S.Str) and node.text == "elems")):
            return True
        if (isinstance(node, S.Call) and isinstance(node.fn, S.Var) and node.fn.name == "Cell"
                and id(node) not in decl_cells):
            return True
    return False


@functools.lru_cache(maxsize=256)    # per parsed program (parsing is cached per text)
def _changes_objects_in_place(program: tuple) -> bool:
    """Whether the program can change an object without copying it: a field assignment, or
    rotate (which turns the cells that all copies share). Otherwise objects keep their
    rendered cells (Runtime.render_obj)."""
    for node in S.walk(program):
        if isinstance(node, S.FieldAssign) or (
                isinstance(node, S.Var) and node.name in ("rotate", "rotateNoCollision")):
            return True
    return False


@functools.lru_cache(maxsize=64)    # per parsed stdlib and program, and trigger text
def _clicks_guarded_in(std: tuple, program: tuple, trigger: str) -> bool:
    """``_clicks_guarded`` of a load: the stdlib, the program and the trigger (walking them
    was 44% of loading wildfire before it was kept)."""
    extra = (S.ExprStmt(S.parse_expression_text(trigger, TRIGGER_PATH), 0, 0),) if trigger \
        else ()
    return _clicks_guarded(std + program + extra)


def _clicks_guarded(statements: tuple) -> bool:
    """Whether a click that makes no ``clicked`` query hold cannot change a tick but for the
    global ``click`` it sets (``Interpreter.end_click_probe``): every mention of ``click`` is
    in the body of an on-clause whose condition is one query ``(clicked X)`` (a body that
    runs only when a click makes the query hold), and outside any lambda there but one given
    straight to a list builtin that applies it and lets it go (``_APPLIERS``, not rebound): a
    lambda kept in a global could read ``click`` in a later tick."""
    appliers = _APPLIERS - S.rebound_names(statements)
    # (node, guarded): guarded, the node runs only under a query that holds, outside lambdas
    # or in one such applied lambda
    stack: list[tuple[S.Node, bool]] = [(n, False) for n in statements]
    while stack:
        node, guarded = stack.pop()
        kind = type(node)
        if kind is S.Var and node.name == "click" and not guarded:
            return False
        if kind is S.OnDecl and _one_query(node.cond):
            stack.append((node.cond, False))
            stack.append((node.body, True))
            continue
        if guarded and kind is S.Call and type(node.fn) is S.Var and node.fn.name in appliers:
            stack.append((node.fn, True))
            for arg in node.args:
                if type(arg) is S.Lambda:    # applied here and let go: its body stays guarded
                    stack.append((arg.body, True))     # (a lambda made in it does not)
                else:
                    stack.append((arg, True))
            continue
        if kind is S.Lambda:
            guarded = False       # a lambda made here may be kept and called later
        for slot in getattr(kind, "__slots__", ()):
            child = getattr(node, slot, None)
            if isinstance(child, S.Node):
                stack.append((child, guarded))
            elif isinstance(child, (list, tuple)):
                stack.extend((c, guarded) for c in child if isinstance(c, S.Node))
    return True


# builtins that call a function argument on a list's elements and keep none of it
_APPLIERS = frozenset(("map", "filter", "foldl", "any", "all", "removeObj"))


def _one_query(cond: S.Node) -> bool:
    return type(cond) is S.Call and type(cond.fn) is S.Var and cond.fn.name == "clicked" \
        and len(cond.args) == 1


TRIGGER_PATH = "<trigger>"   # where errors of the trigger expression are located


def _blamed_on_trigger(evaluate, node: S.Node):
    """The compiled trigger, whose errors at its own positions name ``TRIGGER_PATH`` instead
    of the program (an error inside a program function it calls keeps the program's line)."""
    own = {(n.line, n.column) for n in S.walk((node,))}

    def trigger(env):
        try:
            return evaluate(env)
        except AutumnError as e:
            _in_trigger(e, own)
            raise
    return trigger


def _in_trigger(error: AutumnError, own: set) -> AutumnError:
    if error.path is None and (error.line is None or (error.line, error.column) in own):
        error.path = TRIGGER_PATH
    return error


class guard:
    """Turn anything unexpected into our typed errors, and stamp errors with the path.

    Every entry point that reads or runs a program goes through this (``check_program``
    too), so Python's recursion limit and memory errors never surface as tracebacks. A class
    rather than a generator-based context manager: it is entered twice a step."""

    __slots__ = ("path",)

    def __init__(self, path: str | None) -> None:
        self.path = path

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, e, tb) -> bool:
        if kind is None:
            return False
        path = self.path
        if isinstance(e, AutumnError):
            if e.path is None:
                e.path = path
            return False
        if isinstance(e, RecursionError):
            raise AutumnLimitError("the program nests too deeply (unbounded recursion, or "
                                   "expressions nested thousands deep)", path=path) from None
        if isinstance(e, MemoryError):
            raise AutumnLimitError("the program ran out of memory", path=path) from None
        if isinstance(e, Exception):  # a bug of ours, never the program's: say so plainly
            raise AutumnInternalError(f"internal interpreter error: {type(e).__name__}: {e}",
                                      path=path) from e
        return False


class Coverage:
    """Which on-clauses have fired (rule coverage)."""

    __slots__ = ("total", "covered", "clauses")

    def __init__(self, handlers: list[Handler]) -> None:
        self.total = len(handlers)
        self.clauses = [(i, h.line, h.column, h.covered) for i, h in enumerate(handlers)]
        self.covered = sum(1 for h in handlers if h.covered)

    def __repr__(self) -> str:
        return f"Coverage({self.covered}/{self.total})"


class Interpreter:
    """One loaded Autumn program. Deterministic for a program, seed and input sequence."""

    def __init__(self, *, work_budget: int = DEFAULT_WORK_BUDGET, max_list: int = 1_000_000,
                 native_stdlib: bool = True, fusion: bool = True) -> None:
        self._limits = Limits(max_list=max_list, max_work=work_budget)
        self._native_stdlib = native_stdlib
        self._fusion = fusion
        self._rt: Runtime | None = None
        self._path: str | None = None
        self._broken: AutumnError | None = None
        self._seed: int | None = None
        self.steps = 0
        self._probe_steps = -2     # the steps when begin_click_probe was called
        self._last_frame: tuple[list, Frame] | None = None   # (its cells, the frame)
        self._expressions: dict[str, object] = {}   # evaluate's text -> its compiled code
        # after restore: the saved state whose values the running state shares, and the
        # operations since (to replay on a private copy when one would change a shared value)
        self._shared: _state.SavedState | None = None
        self._since: list[tuple] = []

    # -- loading -----------------------------------------------------------------------------
    def run_script(self, script: str, stdlib: str | None = None, triggeringCondition: str = "",
                   randomSeed: int = 42, *, path: str | None = None,
                   allow_degenerate_seed: bool = False, trigger: str | None = None,
                   seed: int | None = None) -> str:
        """Load and start a program (docs/spec/autumn.md 8.1). ``trigger``/``seed`` are aliases."""
        if self._rt is not None:
            raise AutumnRuntimeError("run_script was already called on this Interpreter; make "
                                     "a new Interpreter to reset", path=path)
        trigger = triggeringCondition if trigger is None else trigger
        seed = randomSeed if seed is None else seed
        self._check_seed(seed, allow_degenerate_seed)
        self._path = path
        rt = Runtime(self._limits, path)
        with guard(path):
            program = _parsed(script, path)
            std = _parsed(STDLIB if not stdlib else stdlib, "<stdlib>")
            objects = frozenset(s.name for s in program if isinstance(s, S.ObjectDecl))
            trigger_node = (S.parse_expression_text(trigger, TRIGGER_PATH) if trigger
                            else None)
            local = set(_local_names(std, program))
            constants = _cell_constants(std, program)
            if trigger_node is not None:
                trigger_stmt = (S.ExprStmt(trigger_node, 0, 0),)
                trigger_local = S.maybe_local_names(trigger_stmt)
                local |= trigger_local
                local |= constants & S.rebound_names(trigger_stmt, local=trigger_local)
                constants = constants - local
            rt.compiler = Compiler(rt, objects, local, fusion=self._fusion)
            rt.compiler.cell_constants = constants
            rt.compiler.lambda_defs = _lambda_defs(std, program)
            rt.occupancy_names = _occupancy_names(std)
            rt.occupancy_read = _reaches(rt.occupancy_names, program) or (
                trigger_node is not None
                and _reaches(rt.occupancy_names, (S.ExprStmt(trigger_node, 0, 0),)))
            rt.redefinable = _redefinable(std, program) | _HOST_SET | (
                frozenset() if trigger_node is None
                else frozenset(S.rebound_names((S.ExprStmt(trigger_node, 0, 0),))))
            rt.clicks_guarded = _clicks_guarded_in(std, program, trigger)
            rt.render_cache = not (_changes_objects_in_place(program) or (
                trigger_node is not None and _changes_objects_in_place(
                    (S.ExprStmt(trigger_node, 0, 0),))))
            rt.unread_cache = not any(_CACHE in text for text in (script, stdlib or STDLIB,
                                                                   trigger or ""))
            rt.rng_state = seed % 2 ** 32
            self._seed = seed
            rt.start_budget("load")
            install_builtins(rt)
            for stmt in std:
                self._statement(rt, stmt)
            if self._native_stdlib and not stdlib:
                # GRID_SIZE is read from the global table at run time, so only a local
                # binding of it (a parameter, a field) changes what the stdlib sees.
                install_native_stdlib(rt, _rebound(program), _mentioned(program),
                                      _renders_read_scopes(program))
            rt.define_global("SpecialConditionTriggered", False)
            if trigger_node is not None:
                try:
                    rt.trigger = _blamed_on_trigger(rt.compiler.compile(trigger_node),
                                                    trigger_node)
                except AutumnError as e:
                    _in_trigger(e, {(n.line, n.column) for n in S.walk((trigger_node,))})
                    raise
            grid_size = rt.G.vars.get("GRID_SIZE")
            for stmt in program:
                self._statement(rt, stmt)
                if rt.G.vars.get("GRID_SIZE") is not grid_size:
                    # checked as soon as it is set, before anything is sized by it
                    grid_size = rt.G.vars.get("GRID_SIZE")
                    try:
                        rt.check_grid_size(grid_size)
                    except AutumnError as e:
                        e.locate(stmt.line, stmt.column)
                        raise
            for name in list(rt.state_order.order):
                node = rt.state_init[name]
                init = rt.compiler.compile(node)
                try:
                    value = init(rt.G)
                except AutumnError as e:
                    e.locate(node.line, node.column)
                    raise
                rt.define_global(name, value)   # a definition: no type check (8.1 step 6)
                if name == "GRID_SIZE":
                    try:
                        rt.check_grid_size(value)
                    except AutumnError as e:
                        e.locate(node.line, node.column)
                        raise
            rt.updated.clear()
            rt.host_render_cells()
        self._rt = rt
        return "Script executed successfully."

    def _statement(self, rt: Runtime, stmt: S.Node) -> None:
        if isinstance(stmt, S.ObjectDecl):
            rt.types[stmt.name] = TypeRef(stmt.name, _object_class(rt, stmt))
        elif isinstance(stmt, S.OnDecl):
            rt.handlers.append(Handler(rt.compiler.compile(stmt.cond),
                                       rt.compiler.compile(stmt.body), stmt.line, stmt.column))
        else:
            rt.compiler.compile(stmt.expr)(rt.G)

    @staticmethod
    def _check_seed(seed, allow_degenerate: bool) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise AutumnSeedError(f"the random seed must be an integer, got {seed!r}")
        if seed < 0:
            raise AutumnSeedError(f"the random seed must not be negative, got {seed}")
        if is_degenerate_seed(seed) and not allow_degenerate:
            raise AutumnSeedError(f"seed {seed} is refused: {DEGENERATE_SEED_REASON}; use any "
                                  "other seed")

    def _loaded(self) -> Runtime:
        if self._rt is None:
            raise AutumnRuntimeError("no program is loaded: call run_script first")
        return self._rt

    # -- operations on a state shared with a saved one (see state.py) ---------------------------
    def _op(self, fn, *args):
        """``fn(self, *args)``, an operation that may change the state. While the state shares
        a saved state's values, the operation is recorded; if it would change a shared value
        (``Thaw``), the running state gets a private copy of the saved state, the operations
        since the restore are replayed on it, and the operation runs again: the result is the
        one a copying restore gives."""
        if self._shared is None:
            return fn(self, *args)
        try:
            result = fn(self, *args)
        except Thaw:
            self._thaw()
            return fn(self, *args)
        except BaseException:
            self._own()        # whatever the failed operation left is the state now
            raise
        if self._shared is not None:
            self._since.append((fn, args))
            if len(self._since) >= _MAX_SHARED_OPS:
                self._own()    # bounds a replay's length (and the record's)
        return result

    def _thaw(self) -> None:
        saved, since = self._shared, self._since
        self._shared, self._since = None, []
        _state.restore(self, saved)
        for fn, args in since:
            fn(self, *args)

    def _own(self) -> None:
        if self._shared is not None:
            self._shared, self._since = None, []
            _state.own(self)

    # -- inputs and the tick -------------------------------------------------------------------
    def click(self, x: int, y: int) -> None:
        self._op(Interpreter._click, int(x), int(y))

    def _click(self, x: int, y: int) -> None:
        self._loaded().click = (x, y)

    def left(self) -> None:
        self._op(Interpreter._arrow, "left")

    def right(self) -> None:
        self._op(Interpreter._arrow, "right")

    def up(self) -> None:
        self._op(Interpreter._arrow, "up")

    def down(self) -> None:
        self._op(Interpreter._arrow, "down")

    def _arrow(self, which: str) -> None:
        self._loaded().arrows[which] = True

    def step(self) -> str:
        """One tick (docs/spec/autumn.md 8.2). After an error the world is broken and must be reset."""
        return self._op(Interpreter._step)

    def _step(self) -> str:
        rt = self._loaded()
        if self._broken is not None:
            raise AutumnRuntimeError(f"this world stopped at an earlier error and must be "
                                     f"reset: {self._broken}", path=self._path)
        try:
            with guard(self._path):
                self._tick(rt)
        except AutumnError as e:
            self._broken = e
            raise
        self.steps += 1
        return "Step executed."

    @staticmethod
    def _tick(rt: Runtime) -> None:
        G = rt.G
        d = G.vars
        rt.start_budget("tick")
        rt.snapshot = dict(d)
        updated = rt.updated
        updated.clear()
        if rt.trigger is not None:
            d["SpecialConditionTriggered"] = truthy(rt.trigger(G))
        for h in rt.handlers:
            try:
                c = h.cond(G)
                if c.__class__ is not bool:
                    if isinstance(c, FUNCTION_TYPES):
                        c = rt.call(c, [], G)
                        if c.__class__ is not bool:
                            raise AutumnRuntimeError("an on-clause condition called as a "
                                                     "function must return a Bool")
                    else:
                        raise AutumnRuntimeError("an on-clause condition must be a Bool or a "
                                                 "function returning a Bool")
                if c:
                    h.covered = True
                    h.body(G)
            except AutumnError as e:
                e.locate(h.line, h.column)
                raise
        nexts = rt.state_next
        for name in rt.state_order.order:
            if name in updated or name not in d:
                continue
            try:
                rt.set_global(name, nexts[name](G))
            except AutumnError as e:
                node = rt.state_next_nodes[name]
                e.locate(node.line, node.column)
                raise
        rt.tick_left = rt.work_left
        rt.click = None
        arrows = rt.arrows
        arrows["left"] = arrows["right"] = arrows["up"] = arrows["down"] = False

    # -- rendering -------------------------------------------------------------------------------
    def render_all(self) -> str:
        """The reference's JSON text of the host render (docs/spec/autumn.md 10.1)."""
        return self._op(Interpreter._render_all)

    def _render_all(self) -> str:
        rt = self._loaded()
        with guard(self._path):
            n = self._grid_size(rt)
            rt.start_budget("render")
            out = rt.host_render()
        parts = []
        for name, cells in out:
            body = ", ".join(f'{{"position": {{"x": {x}, "y": {y}}}, "color": "{c}"}}'
                             for x, y, c in cells)
            parts.append(f'"{name}": [{body}]')
        parts.append(f'"GRID_SIZE": {n}')
        return "{" + ", ".join(parts) + "}"

    def render_frame(self) -> Frame:
        """The same host render as ``render_all``, returned as the benchmark's text grid."""
        return self._op(Interpreter._render_frame)

    def _render_frame(self) -> Frame:
        rt = self._loaded()
        with guard(self._path):
            n = self._grid_size(rt)
            rt.start_budget("render")
            cells, _ = rt.host_render_cells()
            background = self.get_background()
        last = self._last_frame
        if last is not None and last[0] == cells and last[1].background == background \
                and len(last[1].grid) == n:
            return last[1]      # the same cells as the last frame's (a quarter of the steps)
        frame = Frame.from_cells(n, background, cells)
        self._last_frame = (cells, frame)
        return frame

    @staticmethod
    def _grid_size(rt: Runtime) -> int:
        return rt.check_grid_size(rt.G.vars.get("GRID_SIZE"))

    # -- host queries -------------------------------------------------------------------------
    def get_background(self) -> str:
        v = self._loaded().G.vars.get("background")
        if v.__class__ is not str:
            raise AutumnRuntimeError("background must be a String")
        return v

    def get_frame_rate(self) -> int:
        v = self._loaded().G.vars.get("FRAME_RATE")
        if v.__class__ is not int:
            raise AutumnRuntimeError("FRAME_RATE must be a Number")
        return v

    def evaluate(self, expr: str):
        """Evaluate host-syntax text (14.2) in the global scope now; side effects persist."""
        return self._op(Interpreter._evaluate, expr)

    def _evaluate(self, expr: str):
        rt = self._loaded()
        if _CACHE in expr:
            rt.unread_cache = False      # for good: the text may define code that reads it
        if not rt.unread_cache:
            rt.build_caches()            # left unbuilt before, or in a restored state
        compiled = self._expressions.get(expr)
        if compiled is not None:
            # the same text again (a change condition, every frame): its names and any
            # in-place changes were accounted for when it was first compiled
            with guard("<expression>"):
                rt.start_budget("evaluation")
                return compiled(rt.G)
        with guard("<expression>"):
            node = S.parse_expression_text(expr, "<expression>")
            stmt = (S.ExprStmt(node, 0, 0),)
            new_local = S.maybe_local_names(stmt)
            if rt.compiler.cell_constants:
                # a name only cells bind was read from the global table because that value
                # could not change: an expression that assigns it makes the cells' copies differ
                new_local |= rt.compiler.cell_constants & S.rebound_names(stmt,
                                                                          local=new_local)
            for name in new_local - rt.compiler.local_names:
                # Code compiled earlier assumed this name is only ever a global; this
                # expression may bind it locally, so those lookups walk the scopes from now.
                rt.compiler.local_names.add(name)
                rt.compiler.names_changed()
                rt.fast_flags.setdefault(name, [True])[0] = False
            if "click" in expr:
                rt.clicks_guarded = False   # for good: it may define code that reads it
            if _changes_objects_in_place((S.ExprStmt(node, 0, 0),)):
                rt.render_cache = False     # kept renders could go stale from now on
            if any(type(n) is S.Assign for n in S.walk(stmt)):
                rt.forget_fixed()           # the host render looks at every global again
            if not rt.occupancy_names.isdisjoint(_names(stmt)):
                rt.read_occupancy()
            rt.start_budget("evaluation")
            compiled = rt.compiler.compile(node)
            if len(self._expressions) >= _MAX_EXPRESSIONS:
                self._expressions.clear()
            self._expressions[expr] = compiled
            return compiled(rt.G)

    def evaluate_to_string(self, expr: str) -> str:
        return print_value(self.evaluate(expr))

    def get_trigger_state(self) -> bool:
        return bool(self._loaded().G.vars.get("SpecialConditionTriggered"))

    def hash_orders(self) -> tuple[HashOrder, HashOrder]:
        """The reference's hash-table orders (docs/spec/autumn.md 9) of the state variables
        (the order INIT and NEXT are evaluated in) and of the globals (the order ``allObjs``,
        ``removeObj`` of one object and ``prev`` of a value walk them), for comparing two
        programs; callers must not change them (``HashOrder.copy`` first)."""
        rt = self._loaded()
        return rt.state_order, rt.global_order

    def set_random_seed(self, seed: int, *, allow_degenerate_seed: bool = False) -> None:
        self._check_seed(seed, allow_degenerate_seed)
        self._op(Interpreter._set_seed, seed)

    def _set_seed(self, seed: int) -> None:
        self._loaded().rng_state = seed % 2 ** 32
        self._seed = seed

    def get_random_seed(self) -> int | None:
        return self._seed

    def get_on_clause_count(self) -> int:
        return len(self._loaded().handlers)

    def get_covered_on_clause_count(self) -> int:
        return sum(1 for h in self._loaded().handlers if h.covered)

    def coverage(self) -> Coverage:
        return Coverage(self._loaded().handlers)

    def fired(self) -> tuple[bool, ...]:
        """Whether each on-clause has fired, in source order (``coverage().clauses``)."""
        return tuple([h.covered for h in self._loaded().handlers])

    # -- saving and restoring states (searches, repeated rollouts) ----------------------------
    def snapshot(self):
        """The whole state of the running program, to ``restore`` later (any number of times)."""
        return _state.save(self, self._shared)

    def restore(self, saved) -> None:
        """Go back to a state saved from this interpreter by ``snapshot``. The running state
        shares the saved values until an operation would change one in place (see
        ``_op``); a program that assigns fields or rotates cells, which would do so at once,
        gets copies straight away."""
        share = self._loaded().render_cache
        _state.restore(self, saved, share=share)
        self._shared, self._since = (saved, []) if share else (None, [])

    def state_key(self) -> tuple:
        """A hashable fingerprint of the state: equal keys give equal futures."""
        return _state.state_key(self, self._shared)

    # -- clicks nothing catches (the oracle's search) -------------------------------------------
    def begin_click_probe(self) -> None:
        """Log the ``clicked`` queries of the next tick, made with no click pending (see
        ``end_click_probe``)."""
        rt = self._loaded()
        rt.click_log = ClickLog() if rt.clicks_guarded and rt.click is None else None
        self._probe_steps = self.steps

    def end_click_probe(self) -> frozenset[tuple[int, int]] | None:
        """After one tick with no click since ``begin_click_probe``: the cells where a click
        would make one of its ``clicked`` queries hold. A click on any other cell ticks as
        that tick did (the same frame and state key; only the global ``click`` is set), so
        the state it gives is known without the tick. None when no click can be known so: a
        bare ``clicked`` query, code that reads ``click`` outside an on-clause guarded by one
        query (``clicks_guarded``), a query whose render fails, work past the budget, or not
        exactly one tick since the probe began."""
        rt = self._loaded()
        log, rt.click_log = rt.click_log, None
        if log is None or not log.open or self.steps != self._probe_steps + 1 \
                or not rt.clicks_guarded or rt.tick_left < log.work:
            return None
        return frozenset(log.cells)

    def restore_environment(self, *args) -> None:
        raise AutumnRuntimeError("restore_environment is not supported (it crashes the "
                                 "reference); make a new Interpreter instead")

    @property
    def grid_size(self) -> int:
        return self._grid_size(self._loaded())

    @property
    def work_done(self) -> int:
        """Units of work (lambda calls, list elements built or visited by builtins) counted
        since the last load, tick, render or evaluation began; each may do at most
        ``work_budget``."""
        return self._loaded().work_done


@functools.lru_cache(maxsize=8)
def _occupancy_names(std: tuple) -> frozenset[str]:
    """The names whose call may read the occupancy set (``Runtime.occupied``): isFreePos, and
    every stdlib definition that names one of them (the natives that replace such
    definitions read the set as they do)."""
    mentions: dict[str, set[str]] = {}
    for stmt in std:
        expr = getattr(stmt, "expr", None)
        if isinstance(expr, S.Assign):
            mentions.setdefault(expr.name, set()).update(_names((expr.value,)))
    names = {"isFreePos"}
    grown = True
    while grown:
        grown = False
        for name, named in mentions.items():
            if name not in names and not named.isdisjoint(names):
                names.add(name)
                grown = True
    return frozenset(names)


@functools.lru_cache(maxsize=64)
def _reaches(names: frozenset[str], statements: tuple) -> bool:
    """Whether the statements mention one of ``names`` (a call, or the function passed on)."""
    return not names.isdisjoint(_names(statements))


def _names(statements) -> set[str]:
    """Every variable the statements name."""
    return {n.name for n in S.walk(statements) if type(n) is S.Var}


def _lambda_defs(std: tuple, program: tuple) -> dict[str, S.Lambda]:
    """Each name defined at the top level as a lambda, with the last such definition."""
    defs: dict[str, S.Lambda] = {}
    for stmt in (*std, *program):
        expr = getattr(stmt, "expr", None)
        if isinstance(expr, S.Assign) and isinstance(expr.value, S.Lambda):
            defs[expr.name] = expr.value
    return defs


def _object_class(rt: Runtime, decl: S.ObjectDecl) -> ObjClass:
    names = [n for n, _ in decl.fields]
    types = []
    parts = []
    for name, tnode in decl.fields:
        t = rt.resolve_type(tnode, strict=True)
        types.append(t)
        parts.append(f"{name}: {t}, ")
    type_string = (f"class {decl.name} {{" + "".join(parts)
                   + f"origin: {POSITION_T}, elems: {list_tag(CELL_T)}, }}")
    cell = rt.compiler.compile(decl.cell)
    return ObjClass(decl.name, names, types, cell, type_string, decl.line, decl.column)
