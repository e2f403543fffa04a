"""The state of one loaded Autumn program and the operations every form relies on.

``Runtime`` owns the global table (with the reference's hash order and definition history),
state variables, handlers, the random generator, pending inputs and the occupancy set of the
last host render. It implements calls, assignment (with the type-consistency and identity rules
of docs/spec/autumn.md 5.6/5.7), equality, rendering of objects (7.2) and the tick (8.2).
"""

from __future__ import annotations

from ..errors import AutumnLimitError, AutumnRuntimeError
from . import syntax as S
from .compiler import Compiler
from .hashorder import HashOrder
from .values import (
    CELL_T,
    FUNCTION_TYPES,
    IDENTITY_TYPES,
    POSITION_T,
    RELEM_T,
    SCOPE_BORROWED,
    SCOPE_OBJECT,
    UNKNOWN_LIST,
    AList,
    BoundRender,
    Builtin,
    CellThunk,
    CellV,
    Lambda,
    MovableCells,
    Obj,
    Pos,
    RElem,
    Scope,
    Thaw,
    TypeRef,
    UnbuiltCache,
    list_tag,
    relems,
    type_str,
)

__all__ = ["Runtime", "Limits", "DEFAULT_WORK_BUDGET", "MAX_GRID_SIZE"]

_MISSING = object()


# Units of work a tick may do (and, separately, a load, a host render or a host evaluation):
# one per lambda call and one per list element a builtin builds or visits. Counted, never
# timed, so a runaway stops at the same point on every machine and at any load (about 5 s of
# exponential recursion on the development machine). The bundled worlds, their CD variants
# and the benchmark programs use at most 3,276 in a tick under random play, about 1,500 times
# less (python benchmarks/tick_budget.py).
DEFAULT_WORK_BUDGET = 5_000_000
# The largest GRID_SIZE accepted; worlds are 3x3 to 25x25 in practice (docs/spec/worldtest.md).
MAX_GRID_SIZE = 256


class Limits:
    """Bounds that turn a runaway program into an ``AutumnLimitError`` instead of a hang."""

    __slots__ = ("max_list", "max_work")

    def __init__(self, max_list: int = 1_000_000,
                 max_work: int = DEFAULT_WORK_BUDGET) -> None:
        self.max_list = max_list
        self.max_work = max_work


class Handler:
    __slots__ = ("cond", "body", "covered", "line", "column")

    def __init__(self, cond, body, line, column) -> None:
        self.cond = cond
        self.body = body
        self.covered = False
        self.line = line
        self.column = column


def _cache_list(cells: list) -> AList:
    """``cacheRendered``'s value after a host render of ``cells`` (10.1)."""
    cache = AList(relems(cells))
    cache.tag = list_tag(RELEM_T) if cache else UNKNOWN_LIST
    return cache


class Runtime:
    def __init__(self, limits: Limits | None = None, path: str | None = None) -> None:
        self.limits = limits or Limits()
        self.path = path
        self.G = Scope({}, None)
        self.globals_ref = [self.G.vars]   # read by compiled global lookups
        self.fast_flags: dict[str, list[bool]] = {}
        self.types: dict[str, TypeRef] = {n: TypeRef(n) for n in
                                          ("Position", "Cell", "RenderedElem", "Bool",
                                           "String", "Number", "Int")}
        self.global_order = HashOrder()
        self.history: list[str] = []          # definition history (renderAll order)
        self.first_defined: dict[str, None] = {}  # unique names, in order of first definition
        self.state_names: list[str] = []      # declaration (source) order
        self.state_order = HashOrder()        # evaluation order of INIT and NEXT
        self.state_init: dict[str, S.Node] = {}
        self.state_next: dict[str, object] = {}
        self.state_next_nodes: dict[str, S.Node] = {}
        self.annotations: dict[str, str | None] = {}
        self.handlers: list[Handler] = []
        self.snapshot: dict | None = None
        self.updated: set[str] = set()
        self.rng_state = 0
        self.seed = 0
        self.click: tuple[int, int] | None = None
        self.arrows = {"left": False, "right": False, "up": False, "down": False}
        # the (x, y) of the last host render's cells (``rendered_cells``), for isFreePos and
        # the natives that test cells; kept only while ``occupancy_read`` (the load decides:
        # whether the program can reach one of them), else None
        self.occupied: set[tuple[int, int]] | None = set()
        self.rendered_cells: list = []
        self.occupancy_read = True
        self.occupancy_names: frozenset[str] = frozenset()   # interpreter._occupancy_names
        self.trigger = None
        # the work budget counts down from limits.max_work (see start_budget)
        self.work_left = self.limits.max_work
        self.work_what = "tick"
        self._render_order: list[str] | None = None
        # the names bound for good to a function (render_order leaves them out; state keys too)
        self.fixed: frozenset[str] = frozenset()
        self.compiler: Compiler | None = None
        self.prev_builtin: Builtin | None = None
        # objects keep their rendered cells (render_obj) unless the program can change an
        # object in place: field assignment or rotate (the interpreter clears this)
        self.render_cache = True
        # per global name, the list it held at an earlier host render and, once rendered
        # from the cells kept on its objects, those cells (``host_render_cells``)
        self.list_cells: dict[str, tuple] = {}
        # clicks that no `clicked` query would catch (Interpreter.begin_click_probe): whether
        # the program's code can tell such a click from none (set at load), the queries of the
        # step being probed, and the work left at the end of the last tick
        self.clicks_guarded = False
        self.click_log: ClickLog | None = None
        self.tick_left = 0
        # the names whose global binding may change once made (None: any name), set at load
        # (render_order)
        self.redefinable: frozenset[str] | None = None
        # the host render leaves cacheRendered unbuilt (UnbuiltCache) while nothing can read
        # it: the program's text never names it (the interpreter sets this at load) and no
        # evaluated expression has (which clears it for good)
        self.unread_cache = False
        # a cell's deferred parts by what they can read (_memo_key): the same parts of every
        # copy of an object (and of every object made by the same Cell form) are evaluated
        # once per combination of field values; None turns it off (tests compare both)
        self.render_memo: dict[tuple, tuple] | None = {}
        # the ids of the values (and of their field and snapshot tables) that the running
        # state shares with a saved state after a restore (state.py), or None: changing one
        # in place raises Thaw instead
        self.frozen: frozenset[int] | None = None
        # global_order, history and first_defined are a saved state's too (copy before a change)
        self.tables_shared = False
        # the generated functions' shared globals, and the builtins they were built with (fuse.py)
        self.fuse_base: tuple | None = None

    # -- errors and limits -----------------------------------------------------------------
    def error(self, message: str) -> AutumnRuntimeError:
        return AutumnRuntimeError(message)

    def start_budget(self, what: str = "tick") -> None:
        """A fresh work budget for one tick (or load, render, evaluation: ``what``)."""
        self.work_left = self.limits.max_work
        self.work_what = what

    @property
    def work_done(self) -> int:
        """Units of work counted since the budget was last started."""
        return self.limits.max_work - self.work_left

    def over_budget(self) -> None:
        """Raise once ``work_left`` is negative: callers count down, then call this."""
        raise AutumnLimitError(f"the program did more than {self.limits.max_work:,} units of "
                               f"work in one {self.work_what} (a unit is a function call or "
                               "a list element a builtin builds or visits): a runaway loop "
                               "or recursion?")

    def count_work(self, n: int) -> None:
        """Charge ``n`` units of work (a batch of calls, a list built or walked)."""
        left = self.work_left - n
        self.work_left = left
        if left < 0:
            self.over_budget()

    def check_list(self, n: int) -> None:
        """Refuse a list over ``max_list`` elements; charge its elements as work."""
        if n > self.limits.max_list:
            raise AutumnLimitError(f"a list would have {n} elements, more than the limit of "
                                   f"{self.limits.max_list}")
        left = self.work_left - n
        self.work_left = left
        if left < 0:
            self.over_budget()

    def check_grid_size(self, n) -> int:
        """GRID_SIZE as a Number from 1 to ``MAX_GRID_SIZE`` (before anything is sized by it)."""
        if n.__class__ is not int:
            raise AutumnRuntimeError(f"GRID_SIZE must be a Number, got {n!r}")
        if n < 1:
            raise AutumnRuntimeError(f"GRID_SIZE must be at least 1, got {n}")
        if n > MAX_GRID_SIZE:
            raise AutumnLimitError(f"GRID_SIZE {n} is larger than the limit of "
                                   f"{MAX_GRID_SIZE}")
        return n

    # -- random numbers (docs/spec/autumn.md 11) --------------------------------------------------------
    def draw(self, m: int) -> int:
        if m == 0:
            return 0
        self.rng_state = ((48271 * self.rng_state) & 0xFFFFFFFF) % 2147483647
        return self.rng_state % m

    # -- globals ----------------------------------------------------------------------------
    def own_tables(self) -> None:
        """Copies of the global table's order and definition history, which a saved state
        shares until a definition changes them (state.py)."""
        self.global_order = self.global_order.copy()
        self.history = list(self.history)
        self.first_defined = dict(self.first_defined)
        self.tables_shared = False

    def define_global(self, name: str, value) -> None:
        """Create (or re-create) a global: hash-table insert and definition history."""
        d = self.G.vars
        if name not in d:
            if self.tables_shared:
                self.own_tables()
            self.global_order.insert(name)
            if name != "click" or name not in self.first_defined:
                # `click` is re-defined on every observed click; it never renders anything,
                # so repeating it in the history is unobservable and only costs memory.
                self.history.append(name)
            if name not in self.first_defined:
                self.first_defined[name] = None
                self._render_order = None
            self.updated.discard(name)
        d[name] = value

    def delete_global(self, name: str) -> None:
        self.G.vars.pop(name, None)
        if self.tables_shared:
            self.own_tables()
        self.global_order.erase(name)

    def render_order(self) -> list[str]:
        """The names the host render looks at, in its order (docs/spec/autumn.md 10.1): the
        state variables, then the other globals as first defined, less those bound for good
        to a function, which never render anything (most of the table: the stdlib and the
        builtins): a name outside ``redefinable`` holding a lambda or a builtin once the
        program is loaded (the first host render ends the load) holds it ever after."""
        order = self._render_order
        if order is None:
            states = set(self.state_names)
            redefinable, d = self.redefinable, self.G.vars
            order = list(self.state_names)
            fixed = []
            for n in self.first_defined:
                if n in states:
                    continue
                if redefinable is None or n in redefinable \
                        or d.get(n).__class__ not in (Builtin, Lambda):
                    order.append(n)
                else:
                    fixed.append(n)
            self._render_order = order
            self.fixed = frozenset(fixed)
        return order

    def read_occupancy(self) -> None:
        """Keep the occupancy set from now on (an evaluated expression may read it): the
        last render's, built at once if the state has none (also after a restore of a state
        saved while it was not kept)."""
        self.occupancy_read = True
        if self.occupied is None:
            self.occupied = {(x, y) for x, y, _ in self.rendered_cells}

    def forget_fixed(self) -> None:
        """An evaluated expression may rebind any name from now on: every global is looked
        at by the host render again."""
        self.redefinable = None
        self._render_order = None

    # -- assignment (docs/spec/autumn.md 6.3, 5.6, 5.7) ---------------------------------------------------
    def check_type(self, name: str, old, new) -> None:
        if new.__class__ is AList:
            return
        oc, nc = old.__class__, new.__class__
        if oc is nc:
            if oc is not Obj or old.cls.type_str == new.cls.type_str:
                return
        elif oc in FUNCTION_TYPES and nc in FUNCTION_TYPES:
            return
        raise AutumnRuntimeError(f"Cannot assign value of type '{_short(new)}' to variable of "
                                 f"type '{_short(old)}' for variable '{name}'.")

    def check_annotation(self, name: str, value) -> None:
        want = self.annotations.get(name)
        if want is not None and type_str(value) != want:
            raise AutumnRuntimeError(f"'{name}' is annotated as {_short_t(want)} but is "
                                     f"assigned a {_short(value)}")

    def assign(self, env: Scope, name: str, value) -> None:
        """``(= name value)`` run in ``env`` (docs/spec/autumn.md 6.3): the nearest scope of
        the chain that holds ``name`` gets the value; if none does, ``env`` does."""
        if self._assign_along(env, name, value):
            return
        if env is self.G:
            self.define_global(name, value)
        else:
            if self.frozen is not None and id(env.vars) in self.frozen:
                raise Thaw        # a saved object's fields or cell's snapshot, as a scope
            env.vars[name] = value

    def assign_in_let(self, env: Scope, name: str, value, table: dict) -> None:
        """``assign`` of a let's ``(= name value)`` by the fused code, when neither the let's
        table nor anything between it and ``env`` (the code's own scope) holds ``name``, as
        the code checked: the walk goes on from ``env``, and ``name`` becomes the let's own
        (``table``, made by this run of the let, so never part of a saved state) if no scope
        holds it. The let's scope need not exist for this (the code makes it lazily)."""
        if not self._assign_along(env, name, value):
            table[name] = value

    def _assign_along(self, env: Scope, name: str, value) -> bool:
        """The annotation check, then the walk up from ``env``: the nearest scope holding
        ``name`` gets ``value`` (True), or none holds it (False, nothing assigned)."""
        if name in self.annotations:
            self.check_annotation(name, value)
        s = env
        while s is not None:
            d = s.vars
            if name in d:
                break
            s = s.parent
        else:
            return False
        old = d[name]
        G = self.G
        if old is not value:
            self.check_type(name, old, value)
            frozen = self.frozen
            if value.__class__ in IDENTITY_TYPES and old.__class__ in IDENTITY_TYPES \
                    and value.ident != old.ident:
                if frozen is not None and id(value) in frozen:
                    raise Thaw
                value.ident = old.ident
            if s.kind == SCOPE_BORROWED:
                s.vars = d = dict(d)
                s.kind = SCOPE_OBJECT
            elif frozen is not None and s is not G and id(d) in frozen:
                raise Thaw    # a saved cell's snapshot table (a render chain's link)
            d[name] = value
        if s is G:
            self.updated.add(name)
        return True

    def set_global(self, name: str, value) -> None:
        """Assignment of a NEXT value to an existing global (no annotation check)."""
        d = self.G.vars
        old = d[name]
        if old is not value:
            self.check_type(name, old, value)
            if value.__class__ in IDENTITY_TYPES and old.__class__ in IDENTITY_TYPES \
                    and value.ident != old.ident:
                if self.frozen is not None and id(value) in self.frozen:
                    raise Thaw
                value.ident = old.ident
            d[name] = value
        self.updated.add(name)

    def annotate(self, name: str, tnode) -> None:
        self.annotations[name] = self.resolve_type(tnode, strict=False, for_annotation=True)

    def resolve_type(self, tnode, *, strict: bool, for_annotation: bool = False) -> str | None:
        """The type string of a type expression, or None when it is unknown."""
        if isinstance(tnode, S.TList):
            inner = self.resolve_type(tnode.inner, strict=strict)
            if for_annotation:
                return None          # (: v (List T)) is never checked
            return list_tag(inner) if inner is not None else None
        name = tnode.name
        simple = {"Bool": "Bool", "String": "String", "Number": "Number", "Int": "Number",
                  "Position": POSITION_T, "Cell": CELL_T, "RenderedElem": RELEM_T}
        if name in simple:
            return simple[name]
        t = self.types.get(name)
        if t is not None and t.cls is not None:
            return t.cls.type_str
        if strict:
            raise AutumnRuntimeError(f"unknown field type '{name}': expected Bool, String, "
                                     "Number, Int, Position, Cell, RenderedElem, (List T) or "
                                     "an object declared earlier",
                                     line=tnode.line, column=tnode.column)
        return None

    # -- state variables -------------------------------------------------------------------
    def register_state(self, name: str, init: S.Node, nxt: S.Node, node: S.Node) -> None:
        if name not in self.state_order:
            self.state_names.append(name)
            self.state_order.insert(name)
            self._render_order = None
        self.state_init[name] = init
        self.state_next_nodes[name] = nxt
        self.state_next[name] = self.compiler.compile(nxt)

    # -- calls --------------------------------------------------------------------------------
    def invoke_lambda(self, f: Lambda, bindings: dict, env: Scope):
        """Run a lambda's body in a new call scope whose parent is the caller's scope (6.2).

        Depth is bounded by Python's recursion limit (turned into AutumnLimitError by the
        host); the work budget bounds the number of calls, since a program can branch
        without looping."""
        self.work_left -= 1
        if self.work_left < 0:
            self.over_budget()
        return f.body(Scope(bindings, env))

    def call(self, f, args: list, env: Scope):
        c = f.__class__
        if c is Lambda:
            params = f.params
            if len(args) < len(params):
                raise AutumnRuntimeError(f"a function of {len(params)} parameter(s) "
                                         f"({' '.join(params)}) was called with {len(args)} "
                                         "argument(s)")
            if len(params) == 1:
                return self.invoke_lambda(f, {params[0]: args[0]}, env)
            return self.invoke_lambda(f, dict(zip(params, args)), env)
        if c is Builtin:
            return f.fn(env, args)
        if c is TypeRef:
            return self.construct(f, args, env)
        if c is BoundRender:
            return self.rendered_list(f.obj, env)
        if c is CellThunk:
            return self.cell_part(f.cell, f.which, env)
        raise AutumnRuntimeError(f"can only call functions and classes, not a {_short(f)}")

    def call1(self, f, x, env: Scope):
        """``call(f, [x], env)`` with the common case of a one-parameter lambda inlined."""
        if f.__class__ is Lambda and len(f.params) == 1:
            self.work_left -= 1
            if self.work_left < 0:
                self.over_budget()
            return f.body(Scope({f.params[0]: x}, env))
        return self.call(f, [x], env)

    def construct(self, t: TypeRef, args: list, env: Scope):
        cls = t.cls
        if cls is None:
            if t.name == "Position":
                if len(args) != 2:
                    raise AutumnRuntimeError(f"(Position x y) takes 2 arguments, got "
                                             f"{len(args)}")
                x, y = args
                if x.__class__ is not int or y.__class__ is not int:
                    raise AutumnRuntimeError("(Position x y) needs two Numbers, got "
                                             f"{_short(x)} and {_short(y)}")
                return Pos(x, y)
            if t.name == "RenderedElem":
                if len(args) != 2:
                    raise AutumnRuntimeError("(RenderedElem position color) takes 2 arguments")
                p, c = args
                if p.__class__ is not Pos or c.__class__ is not str:
                    raise AutumnRuntimeError("(RenderedElem position color) needs a Position "
                                             "and a String")
                return RElem(p, c)
            raise AutumnRuntimeError(f"the type {t.name} cannot be called")
        k = len(cls.field_names)
        if len(args) < k + 1:
            want = " ".join(cls.field_names + ["origin"])
            raise AutumnRuntimeError(f"({cls.name} {want}) needs {k + 1} argument(s), got "
                                     f"{len(args)}")
        fields = dict(zip(cls.field_names, args))
        origin = args[k]
        fields["origin"] = origin
        scope = Scope(dict(fields), env, SCOPE_OBJECT)
        elems = cls.cell(Scope({}, scope))
        if elems.__class__ is not AList:
            elems = AList([elems], list_tag(type_str(elems)))
        for name, want, value in zip(cls.field_names, cls.field_types, args):
            if want is not None:
                got = type_str(value)
                if got != want and got != UNKNOWN_LIST and want != UNKNOWN_LIST:
                    raise AutumnRuntimeError(f"field '{name}' of {cls.name} is "
                                             f"{_short_t(want)}, got a {_short_t(got)}")
        if origin.__class__ is not Pos:
            raise AutumnRuntimeError(f"the origin of {cls.name} must be a Position, got a "
                                     f"{_short(origin)}")
        fields["elems"] = elems
        return Obj(cls, fields)

    # -- cells and rendering (docs/spec/autumn.md 7.2, 10) ---------------------------------------------------
    def cell_snapshot(self, env: Scope, names) -> dict:
        chain = []
        s = env
        while s is not None:
            chain.append(s)
            s = s.parent
        skip = None
        for s in reversed(chain):
            if s.kind != 0:
                skip = s
                break
        snap: dict = {}
        for s in reversed(chain):
            if s is skip:
                continue
            d = s.vars
            for n in names:
                if n in d:
                    snap[n] = d[n]
        return snap

    def render_obj(self, o: Obj, env: Scope, out: list) -> None:
        """Append (x, y, colour) for each cell of ``o`` (in elems order) to ``out``.

        An object whose every cell is frozen or only reads the object's own fields renders the
        same every time (objects are never changed in place unless the program assigns fields
        or rotates cells, ``render_cache``), so its cells are kept on it after the first render."""
        rendered = o.rendered
        if rendered is None or not self.render_cache:
            self._render_obj(o, env, out)
            o.rendered = _RENDERED_ONCE   # kept from the second render on: most are rendered once
            return
        if rendered.__class__ is MovableCells or rendered.__class__ is tuple:
            out.extend(rendered)
            return
        start = len(out)
        self._render_obj(o, env, out)
        fields = o.fields
        movable = True
        for c in fields["elems"]:
            if c.fx is not None and c.fy is not None and c.fc is not None:
                continue
            reads = c.reads
            if reads is None or not reads <= fields.keys():
                return
            if "origin" in reads:
                movable = False
        o.rendered = MovableCells(out[start:]) if movable else tuple(out[start:])

    def _render_obj(self, o: Obj, env: Scope, out: list) -> None:
        fields = o.fields
        origin = fields["origin"]
        if origin.__class__ is not Pos:
            raise AutumnRuntimeError(f"the origin of a {o.cls.name} is not a Position")
        ox, oy = origin.x, origin.y
        objscope = None
        memo = self.render_memo
        for c in fields["elems"]:
            if c.__class__ is not CellV:
                raise AutumnRuntimeError(f"the cells of a {o.cls.name} must be Cell values, "
                                         f"got a {_short(c)}")
            x, y, col = c.fx, c.fy, c.fc
            if col is None and c.vc is not None and (x is not None or c.vx is not None) \
                    and (y is not None or c.vy is not None):
                # every deferred part is a bare name: look each up along the render chain
                # (snapshot, the cell as `e`, the object's fields, then the caller's scopes)
                snap = c.snap
                if x is None:
                    x = _chain_lookup(c.vx, snap, c, fields, env)
                if y is None:
                    y = _chain_lookup(c.vy, snap, c, fields, env)
                col = _chain_lookup(c.vc, snap, c, fields, env)
                if x.__class__ is not int or y.__class__ is not int:
                    raise AutumnRuntimeError(f"a cell of a {o.cls.name} has a non-Number "
                                             "coordinate")
            elif x is None or y is None or col is None:
                reads = c.reads
                key = None
                if reads is not None and reads <= fields.keys() and reads.isdisjoint(c.snap):
                    # parts that only read names the snapshot lacks and the fields have: the
                    # chain (snapshot, `e`, fields, ...) would find each in the fields, so
                    # the parts are a function of those fields' values (see _memo_key)
                    if memo is not None:
                        key = _memo_key(c, fields, reads)
                    if key is not None:
                        hit = memo.get(key)
                        if hit is not None:
                            out.append((ox + hit[0], oy + hit[1], hit[2]))
                            continue
                    if objscope is None:
                        objscope = Scope(fields, env, SCOPE_BORROWED)
                    chain = objscope
                else:
                    if objscope is None:
                        objscope = Scope(fields, env, SCOPE_BORROWED)
                    chain = Scope(c.snap, Scope({"e": c}, objscope))
                if x is None:
                    x = c.cx(chain)
                if y is None:
                    y = c.cy(chain)
                if col is None:
                    col = c.cc(chain)
                if objscope.kind != SCOPE_BORROWED:
                    objscope = None   # an assignment copied the fields: start afresh
                if x.__class__ is not int or y.__class__ is not int:
                    raise AutumnRuntimeError(f"a cell of a {o.cls.name} has a non-Number "
                                             "coordinate")
                if key is not None and col.__class__ is str:
                    if len(memo) >= _RENDER_MEMO_MAX:
                        memo.clear()
                    memo[key] = (x, y, col)
            if col.__class__ is not str:
                raise AutumnRuntimeError(f"field type mismatch: the colour of a cell of a "
                                         f"{o.cls.name} must be a String, got a {_short(col)}")
            out.append((ox + x, oy + y, col))

    def render_value(self, v, env: Scope, out: list) -> None:
        c = v.__class__
        if c is Obj:
            self.render_obj(v, env, out)
        elif c is AList:
            self.work_left -= len(v)
            if self.work_left < 0:
                self.over_budget()
            kept = self.render_cache
            for item in v:
                if item.__class__ is Obj:
                    # render_obj's first case, without the call: cells kept on the object
                    r = item.rendered
                    if kept and (r.__class__ is MovableCells or r.__class__ is tuple):
                        out.extend(r)
                    else:
                        self.render_obj(item, env, out)
                elif item.__class__ is AList:
                    self.render_value(item, env, out)
        elif c is UnbuiltCache:   # the work of the list it stands for (whose cells render nothing)
            self.work_left -= len(v.cells)
            if self.work_left < 0:
                self.over_budget()

    def log_click_query(self, args: list, env: Scope) -> None:
        """A ``clicked`` query made while no click is pending, in a probed step: where a click
        would make it hold (its argument's cells, rendered as the query would with a click
        pending) and the work that render counts; after a bare query, or one whose render
        fails, any click can change the step."""
        log = self.click_log
        if not args:
            log.open = False
            return
        left = self.work_left
        out: list = []
        try:
            self.probe_cells(args[0], env, out)
        except Exception:   # the step with a click would fail here: the probe must not
            log.open = False
        finally:
            log.work += left - self.work_left
            self.work_left = left
        log.cells.update([(x, y) for x, y, _ in out])

    def probe_cells(self, v, env: Scope, out: list) -> None:
        """``render_value`` (the same cells, the same work) without keeping anything on the
        objects: a probed step must leave them as the step alone would."""
        c = v.__class__
        if c is Obj:
            r = v.rendered
            if self.render_cache and (r.__class__ is MovableCells or r.__class__ is tuple):
                out.extend(r)
            else:
                self._render_obj(v, env, out)
        elif c is AList:
            self.work_left -= len(v)
            if self.work_left < 0:
                self.over_budget()
            for item in v:
                if item.__class__ is Obj or item.__class__ is AList:
                    self.probe_cells(item, env, out)
        elif c is UnbuiltCache:
            self.work_left -= len(v.cells)
            if self.work_left < 0:
                self.over_budget()

    def rendered_list(self, v, env: Scope) -> AList:
        cells: list = []
        self.render_value(v, env, cells)
        items = [RElem(Pos(x, y), col) for x, y, col in cells]
        return AList(items, list_tag(RELEM_T) if items else UNKNOWN_LIST)

    def cell_part(self, cell: CellV, which: str, env: Scope):
        fixed = {"x": cell.fx, "y": cell.fy, "color": cell.fc}[which]
        if fixed is not None:
            return fixed
        f = {"x": cell.cx, "y": cell.cy, "color": cell.cc}[which]
        return f(Scope(cell.snap, Scope({"e": cell}, env)))

    def host_render(self) -> list[tuple[str, list]]:
        """The host's render_all (10.1): cells per variable; rebuilds the occupancy set (while
        ``occupancy_read``)."""
        cells, starts = self.host_render_cells()
        ends = [start for _, start in starts[1:]] + [len(cells)]
        return [(name, cells[start:end]) for (name, start), end in zip(starts, ends)]

    def host_render_cells(self) -> tuple[list, list[tuple[str, int]]]:
        """``host_render`` as one list of every (x, y, colour) in render order, and where each
        variable's cells start in it (variables that render no cell left out): a frame
        needs only the one list."""
        starts = []
        G = self.G
        d = G.vars
        all_cells: list = []
        lists = self.list_cells if self.render_cache else None
        for name in self.render_order():
            v = d.get(name, _MISSING)
            c = v.__class__
            if c is not Obj and c is not AList and c is not UnbuiltCache:
                continue
            start = len(all_cells)
            if c is AList and lists is not None:
                # a list is never changed in place, nor is a kept render: the same list
                # whose objects all rendered from kept cells renders those cells again
                known = lists.get(name)
                if known is not None and known[0] is v:
                    cells = known[1]
                    if cells is not None:
                        self.work_left -= len(v)
                        if self.work_left < 0:
                            self.over_budget()
                        all_cells.extend(cells)
                    else:
                        self.render_value(v, G, all_cells)
                        if _all_kept(v):
                            lists[name] = (v, tuple(all_cells[start:]))
                else:    # the cells are kept from the second render of the same list on
                    self.render_value(v, G, all_cells)
                    lists[name] = (v, None)
            else:
                self.render_value(v, G, all_cells)
            if len(all_cells) > start:
                starts.append((name, start))
        self.rendered_cells = all_cells
        self.occupied = {(x, y) for x, y, _ in all_cells} if self.occupancy_read else None
        cache = UnbuiltCache(all_cells) if self.unread_cache else _cache_list(all_cells)
        if "cacheRendered" in d:
            d["cacheRendered"] = cache
        else:
            self.define_global("cacheRendered", cache)
        return all_cells, starts

    def build_caches(self) -> None:
        """Replace an ``UnbuiltCache`` in ``cacheRendered`` by the list the host render would
        have made, in the global table and in ``prev``'s snapshot (one list where both hold
        the same render)."""
        built: dict[int, AList] = {}
        for table in (self.G.vars, self.snapshot):
            v = None if table is None else table.get("cacheRendered")
            if v.__class__ is UnbuiltCache:
                new = built.get(id(v))
                if new is None:
                    new = built[id(v)] = _cache_list(v.cells)
                table["cacheRendered"] = new

    # -- prev (docs/spec/autumn.md 8.3) --------------------------------------------------------------------
    def prev_by_name(self, name: str):
        snap = self.snapshot
        if snap is None:
            raise AutumnRuntimeError("Prev environment not initialized: prev cannot be used "
                                     "before the first step (for instance in an INIT)")
        if name not in snap:
            raise AutumnRuntimeError(f"prev: there was no global variable '{name}' at the "
                                     "start of this tick")
        return snap[name]

    def prev_of_value(self, v):
        if v.__class__ is str:
            return self.prev_by_name(v)
        snap = self.snapshot
        if snap is None:
            raise AutumnRuntimeError("Prev environment not initialized: prev cannot be used "
                                     "before the first step")
        if v.__class__ in IDENTITY_TYPES:
            ident = v.ident
            for name in self.global_order.order:
                old = snap.get(name, _MISSING)
                if old.__class__ in IDENTITY_TYPES and old.ident == ident:
                    return old
            for old in snap.values():
                if old.__class__ in IDENTITY_TYPES and old.ident == ident:
                    return old
        raise AutumnRuntimeError(f"prev: no global variable held this {_short(v)} at the start "
                                 "of the tick")

    # -- equality (docs/spec/autumn.md 5.3) ------------------------------------------------------------------
    def eq(self, a, b) -> bool:
        ca = a.__class__
        if ca is int:
            cb = b.__class__
            if cb is int:
                return a == b
            if cb is bool:
                return a == (1 if b else 0)
            return False
        if ca is bool or ca is str:
            return b.__class__ is ca and a == b
        if ca is AList:
            if b.__class__ is not AList:
                return False
            self.count_work(len(a))
            return print_eq(a, b)
        if ca is Pos:
            if b.__class__ is Pos:
                ax, ay, bx, by = a.x, a.y, b.x, b.y
                if (ax.__class__ is int and bx.__class__ is int and ay.__class__ is int
                        and by.__class__ is int):
                    return ax == bx and ay == by     # what the two recursive calls decide
                return self.eq(ax, bx) and self.eq(ay, by)
            return False
        if ca is RElem:
            if b.__class__ is RElem:
                return self.eq(a.position, b.position) and self.eq(a.color, b.color)
            return False
        if ca is Obj:
            if b.__class__ is not Obj:
                return False
            fa, fb = a.fields, b.fields
            if fa.keys() != fb.keys():
                return False
            for k, v in fa.items():
                if not self.eq(v, fb[k]):
                    return False
            return True
        if ca is CellV:
            return (b.__class__ is CellV and a.nx is b.nx and a.ny is b.ny
                    and a.nc is b.nc)
        return a is b


_RENDERED_ONCE = object()
_RENDER_MEMO_MAX = 20_000


def _memo_key(cell, fields: dict, reads: frozenset) -> tuple | None:
    """What a cell's parts depend on when they only read fields (``CellV.reads``): the
    compiled parts themselves (a rotation installs new ones), the frozen parts, and each read
    field's value with its class (``True == 1`` in Python, not in Autumn). None when a value
    is not a Number, Bool or String: a list or an object could hold anything."""
    key = [cell.cx, cell.cy, cell.cc, cell.fx, cell.fy, cell.fc]
    for name in reads:
        v = fields[name]
        k = v.__class__
        if k is not int and k is not bool and k is not str:
            return None
        key.append(k)
        key.append(v)
    return tuple(key)


class ClickLog:
    """The ``clicked`` queries of a probed step (``Runtime.log_click_query``): the cells a
    click must hit to make one hold, the work their renders count, and ``open``: False once
    some click, wherever it is, could change the step."""

    __slots__ = ("cells", "work", "open")

    def __init__(self) -> None:
        self.cells: set[tuple[int, int]] = set()
        self.work = 0
        self.open = True


def _all_kept(items: AList) -> bool:
    """Whether every item of a list is an object whose cells are kept on it."""
    for item in items:
        if item.__class__ is not Obj:
            return False
        r = item.rendered
        if r.__class__ is not MovableCells and r.__class__ is not tuple:
            return False
    return True


def _chain_lookup(name: str, snap: dict, cell, fields: dict, env: Scope):
    if name in snap:
        return snap[name]
    if name == "e":
        return cell
    if name in fields:
        return fields[name]
    s = env
    while s is not None:
        d = s.vars
        if name in d:
            return d[name]
        s = s.parent
    raise AutumnRuntimeError(f"undefined variable '{name}'")


def print_eq(a, b) -> bool:
    """True iff two values have the same printed form (5.5), computed without printing."""
    ca = a.__class__
    if ca is not b.__class__:
        return False
    if ca is AList:
        if a.tag != b.tag or len(a) != len(b):
            return False
        for x, y in zip(a, b):
            if x is not y and not print_eq(x, y):
                return False
        return True
    if ca is int or ca is bool or ca is str:
        return a == b
    if ca is Pos:
        return a.x == b.x and a.y == b.y
    if ca is RElem:
        return print_eq(a.position, b.position) and print_eq(a.color, b.color)
    if ca is Obj:
        if a.cls.name != b.cls.name:
            return False
        fa, fb = a.fields, b.fields
        if list(fa.keys()) != list(fb.keys()):
            return False
        for k, v in fa.items():
            w = fb[k]
            if v is not w and not print_eq(v, w):
                return False
        return True
    if ca is CellV:
        return (S.node_key(a.nx) == S.node_key(b.nx) and S.node_key(a.ny) == S.node_key(b.ny)
                and S.node_key(a.nc) == S.node_key(b.nc))
    return a is b


def _short(v) -> str:
    return _short_t(type_str(v))


def _short_t(t: str) -> str:
    if t.startswith("class "):
        return t[6:].split(" ", 1)[0]
    return t
