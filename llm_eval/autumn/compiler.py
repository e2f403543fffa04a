"""Compile Autumn syntax trees into Python closures, once per loaded program.

Each expression becomes a function ``f(env) -> value`` where ``env`` is the current ``Scope``.
Evaluation semantics follow docs/spec/autumn.md 4 (forms), 5 (values), 6 (dynamic scoping) and 7.2
(cells). Nothing here uses ``eval``/``exec``: the tree is walked once and turned into nested
closures, which is what makes ticks cheap.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Callable

from ..errors import AutumnError, AutumnLimitError, AutumnRuntimeError
from . import syntax as S
from .fuse import fuse
from .values import (
    FUNCTION_TYPES,
    INT_MAX,
    INT_MIN,
    AList,
    Builtin,
    CellV,
    Obj,
    Pos,
    RElem,
    Scope,
    Thaw,
    field_value,
    infer_tag,
    int_divide,
    runtime_error,
    type_str,
    wrap32,
)
from .values import Lambda as LambdaV

if TYPE_CHECKING:
    from .runtime import Runtime

__all__ = ["Compiler", "TYPE_NAMES", "reads_only"]

Closure = Callable[[Scope], object]
TYPE_NAMES = frozenset(("Position", "Cell", "RenderedElem", "Bool", "String", "Number", "Int"))


class Compiler:
    """Turns nodes into closures bound to one ``Runtime``."""

    def __init__(self, rt: "Runtime", type_names: frozenset[str],
                 local_names: set[str], *, fusion: bool = True) -> None:
        self.rt = rt
        self.fusion = fusion      # generate one function per operator tree (fuse.py)
        # name -> the lambda of its top-level definition, for inlining at call sites; the
        # generated code checks at run time that the name still holds that lambda
        self.lambda_defs: dict[str, S.Lambda] = {}
        self._token: frozenset | None = None
        self.type_names = type_names | TYPE_NAMES  # names that may denote a type at run time
        # Names that some scope other than the global table may bind (parameters, let
        # locals, fields, names copied into cell snapshots). Every other name can only ever
        # be a global, so its lookup goes straight to the global table.
        self.local_names = local_names
        # names cell snapshots copy but that are read from the global table, since their
        # global value is fixed (interpreter._cell_constants); an evaluated expression that
        # assigns one makes it local
        self.cell_constants: frozenset[str] = frozenset()

    def fuse_token(self) -> frozenset:
        """What generated code depends on besides its node (names that may be local, type
        names, top-level lambdas): equal tokens may share generated code."""
        if self._token is None:
            self._token = frozenset((*(("local", n) for n in self.local_names),
                                     *(("type", n) for n in self.type_names),
                                     *self.lambda_defs.items()))
        return self._token

    def names_changed(self) -> None:
        """``local_names`` grew (an evaluated expression may bind more names)."""
        self._token = None

    def compile(self, node: S.Node) -> Closure:
        if self.fusion:
            fused = fuse(self, node)
            if fused is not None:
                return fused
        return self.compile_closure(node)

    def compile_closure(self, node: S.Node) -> Closure:
        """The node as its own closure (its children may still be fused)."""
        method = getattr(self, "c_" + type(node).__name__, None)
        if method is None:
            raise runtime_error(f"'{type(node).__name__}' cannot be evaluated here", node)
        return method(node)

    # -- literals and names ------------------------------------------------------------------
    def c_Num(self, node: S.Num) -> Closure:
        v = node.value
        return lambda env: v

    def c_Str(self, node: S.Str) -> Closure:
        v = node.text
        return lambda env: v

    def c_BoolLit(self, node: S.BoolLit) -> Closure:
        v = node.value
        return lambda env: v

    def c_Var(self, node: S.Var) -> Closure:
        name = node.name
        rt = self.rt
        line, col = node.line, node.column

        def undefined():
            return AutumnRuntimeError(f"undefined variable '{name}'", line=line, column=col)

        if name in self.type_names:
            types = rt.types

            def var_or_type(env):
                t = types.get(name)
                if t is not None:
                    return t
                s = env
                while s is not None:
                    d = s.vars
                    if name in d:
                        return d[name]
                    s = s.parent
                raise undefined()
            return var_or_type

        def var(env):
            s = env
            while s is not None:
                d = s.vars
                if name in d:
                    return d[name]
                s = s.parent
            raise undefined()

        if name in self.local_names:
            return var
        globals_ref = rt.globals_ref   # [dict]; emptied while a cell is tried in isolation
        fast = rt.fast_flags.setdefault(name, [True])  # cleared if the name becomes local

        def global_var(env):
            if fast[0]:
                try:
                    return globals_ref[0][name]
                except KeyError:
                    pass
            return var(env)
        return global_var

    def c_Annot(self, node: S.Annot) -> Closure:
        rt = self.rt
        name, tnode = node.name, node.type

        def annotate(env):
            rt.annotate(name, tnode)
            return True
        return annotate

    # -- control -------------------------------------------------------------------------------
    def c_Let(self, node: S.Let) -> Closure:
        body = [self.compile(e) for e in node.body]
        if len(body) == 1:
            only = body[0]
            return lambda env: only(Scope({}, env))
        if len(body) == 2:
            a, b = body

            def let2(env):
                s = Scope({}, env)
                a(s)
                return b(s)
            return let2

        def let(env):
            s = Scope({}, env)
            v = None
            for f in body:
                v = f(s)
            return v
        return let

    def c_If(self, node: S.If) -> Closure:
        c, a, b = self.compile(node.cond), self.compile(node.then), self.compile(node.other)
        if _is_bool_valued(node.cond):
            return lambda env: a(env) if c(env) else b(env)

        def if_(env):
            v = c(env)
            if v is False or (v.__class__ is AList and not v):
                return b(env)
            return a(env)
        return if_

    def c_Logic(self, node: S.Logic) -> Closure:
        left, right = self.compile(node.left), self.compile(node.right)
        call = self.rt.call
        line, col = node.line, node.column

        def operand(f, n: S.Node) -> Closure:
            """The operand as a Bool: bare functions are called with no arguments (4.5)."""
            if _is_bool_valued(n):
                return f

            def value(env):
                v = f(env)
                if isinstance(v, FUNCTION_TYPES):
                    try:
                        v = call(v, [], env)
                    except AutumnError as e:
                        e.locate(line, col)
                        raise
                return not (v is False or (v.__class__ is AList and not v))
            return value

        lb, rb = operand(left, node.left), operand(right, node.right)
        if node.is_or:
            return lambda env: True if lb(env) else rb(env)
        return lambda env: rb(env) if lb(env) else False

    # -- operators -----------------------------------------------------------------------------
    def c_Bin(self, node: S.Bin) -> Closure:
        op = node.op
        if op in ("==", "!="):
            left, right = self.compile(node.left), self.compile(node.right)
            eq = self.rt.eq
            if op == "==":
                return lambda env: eq(left(env), right(env))
            return lambda env: not eq(left(env), right(env))

        def numbers(a, b):
            bad = a if a.__class__ is not int else b
            raise runtime_error(f"'{node.spelling}' needs two Numbers, got a {type_str(bad)}", node)

        if op in ("/", "%"):
            left, right = self.compile(node.left), self.compile(node.right)
            is_div = op == "/"

            def divmod_(env):
                a = left(env)
                b = right(env)
                if a.__class__ is not int or b.__class__ is not int:
                    numbers(a, b)
                return int_divide(a, b, node, is_div)
            return divmod_
        fn = _INT_OPS[op]
        wraps = op in ("+", "-", "*")
        if isinstance(node.right, S.Num):
            # (op x 3): the constant operand needs no closure and no type check
            left, k = self.compile(node.left), node.right.value
            ln = node.left
            if isinstance(ln, S.Var) and ln.name in self.local_names \
                    and ln.name not in self.type_names:
                # (op param 3): look the name up in the innermost scope first, inline
                name = ln.name
                if wraps:
                    def arith_vk(env):
                        d = env.vars
                        a = d[name] if name in d else left(env)
                        if a.__class__ is not int:
                            numbers(a, k)
                        r = fn(a, k)
                        return r if INT_MIN <= r <= INT_MAX else wrap32(r)
                    return arith_vk

                def cmp_vk(env):
                    d = env.vars
                    a = d[name] if name in d else left(env)
                    if a.__class__ is not int:
                        numbers(a, k)
                    return fn(a, k)
                return cmp_vk
            if wraps:
                def arith_k(env):
                    a = left(env)
                    if a.__class__ is not int:
                        numbers(a, k)
                    r = fn(a, k)
                    return r if INT_MIN <= r <= INT_MAX else wrap32(r)
                return arith_k

            def cmp_k(env):
                a = left(env)
                if a.__class__ is not int:
                    numbers(a, k)
                return fn(a, k)
            return cmp_k
        left, right = self.compile(node.left), self.compile(node.right)
        if wraps:
            def arith(env):
                a = left(env)
                b = right(env)
                if a.__class__ is not int or b.__class__ is not int:
                    numbers(a, b)
                r = fn(a, b)
                return r if INT_MIN <= r <= INT_MAX else wrap32(r)
            return arith

        def cmp(env):
            a = left(env)
            b = right(env)
            if a.__class__ is not int or b.__class__ is not int:
                numbers(a, b)
            return fn(a, b)
        return cmp

    def c_Unary(self, node: S.Unary) -> Closure:
        operand = self.compile(node.operand)
        op = node.op
        if op == "!":
            def not_(env):
                v = operand(env)
                if v.__class__ is not bool:
                    raise runtime_error(f"'!' needs a Bool, got a {type_str(v)}", node)
                return not v
            return not_

        def sign(env):
            v = operand(env)
            if v.__class__ is not int:
                raise runtime_error(f"unary '{op}' needs a Number, got a {type_str(v)}", node)
            return wrap32(-v) if op == "-" else v
        return sign

    # -- definitions ---------------------------------------------------------------------------
    def c_InitNext(self, node: S.InitNext) -> Closure:
        raise runtime_error("(initnext INIT NEXT) is only meaningful as (= NAME (initnext ...)) at the "
                   "top level", node)

    def c_Assign(self, node: S.Assign) -> Closure:
        name = node.name
        rt = self.rt
        if isinstance(node.value, S.InitNext):
            init, nxt = node.value.init, node.value.next

            def register(env):
                rt.register_state(name, init, nxt, node)
                return True
            return register
        value = self.compile(node.value)
        assign = rt.assign
        line, col = node.line, node.column

        def set_(env):
            v = value(env)
            try:
                assign(env, name, v)
            except AutumnError as e:
                e.locate(line, col)
                raise
            return v
        return set_

    def c_FieldAssign(self, node: S.FieldAssign) -> Closure:
        obj, value = self.compile(node.obj), self.compile(node.value)
        field = node.field
        rt = self.rt

        def set_field(env):
            o = obj(env)
            v = value(env)
            if rt.frozen is not None and id(o) in rt.frozen:
                raise Thaw       # a value a saved state holds (state.py)
            if o.__class__ is Obj:
                if field not in o.fields:
                    raise runtime_error(f"object {o.cls.name} has no field '{field}'", node)
                o.fields[field] = v
            elif o.__class__ is Pos and field in ("x", "y"):
                setattr(o, field, v)
            elif o.__class__ is RElem and field in ("position", "color"):
                setattr(o, field, v)
            else:
                raise runtime_error(f"cannot set field '{field}' of a {type_str(o)}", node)
            return v
        return set_field

    def c_Field(self, node: S.Field) -> Closure:
        field = node.field
        inner = node.obj
        if field in ("x", "y") and isinstance(inner, S.Field) and inner.field == "origin":
            # (.. (.. o origin) x): the commonest form in Autumn programs, fused
            base = self.compile(inner.obj)
            want_x = field == "x"

            def origin_coord(env):
                o = base(env)
                if o.__class__ is Obj:
                    p = o.fields.get("origin")
                    if p.__class__ is Pos:
                        return p.x if want_x else p.y
                return field_value(field_value(o, "origin", inner), field, node)
            return origin_coord
        obj = self.compile(inner)

        def get(env):
            o = obj(env)
            if o.__class__ is Obj:
                fields = o.fields
                if field in fields:
                    return fields[field]
            return field_value(o, field, node)
        return get

    def c_Lambda(self, node: S.Lambda) -> Closure:
        params = tuple(node.params)
        body = self.compile(node.body)
        return lambda env: LambdaV(params, body, node)

    def c_ListLit(self, node: S.ListLit) -> Closure:
        items = [self.compile(e) for e in node.items]
        if not items:
            return lambda env: AList()

        def list_(env):
            vals = [f(env) for f in items]
            return AList(vals, infer_tag(vals))
        return list_

    # -- calls ---------------------------------------------------------------------------------
    def c_Call(self, node: S.Call) -> Closure:
        fn = node.fn
        if isinstance(fn, S.Var) and fn.name == "Cell":
            return self.cell_form(node)
        rt = self.rt
        call = rt.call
        callee = self.compile(fn)
        args = [self.compile(a) for a in node.args]
        line, col = node.line, node.column
        if len(args) == 1 and isinstance(node.args[0], S.Var):
            # (prev name) passes the name unevaluated when the callee is prev (docs/spec/autumn.md 8.3)
            name = node.args[0].name
            a0 = args[0]

            invoke = rt.invoke_lambda

            def call1_or_prev(env):
                f = callee(env)
                try:
                    if f is rt.prev_builtin:
                        return rt.prev_by_name(name)
                    x = a0(env)
                    c = f.__class__
                    if c is LambdaV:
                        params = f.params
                        if len(params) == 1:
                            return invoke(f, {params[0]: x}, env)
                    elif c is Builtin:
                        return f.fn(env, [x])
                    return call(f, [x], env)
                except AutumnError as e:
                    e.locate(line, col)
                    raise
            return call1_or_prev
        # Inline paths: a callee that can only be a global is one dict lookup, and a
        # lambda of the right arity runs its body directly (the generic path is rt.call).
        if isinstance(fn, S.Var) and fn.name not in self.local_names \
                and fn.name not in self.type_names:
            fname = fn.name
            fast = rt.fast_flags.setdefault(fname, [True])
        else:
            fname, fast = None, [False]
        globals_ref = rt.globals_ref
        over_budget = rt.over_budget
        if len(args) == 1:
            a0 = args[0]

            def call1(env):
                f = globals_ref[0].get(fname) if fast[0] else None
                if f is None:
                    f = callee(env)
                try:
                    x = a0(env)
                    c = f.__class__
                    if c is LambdaV:
                        params = f.params
                        if len(params) == 1:
                            rt.work_left -= 1
                            if rt.work_left < 0:
                                over_budget()
                            return f.body(Scope({params[0]: x}, env))
                    elif c is Builtin:
                        return f.fn(env, [x])
                    return call(f, [x], env)
                except AutumnError as e:
                    e.locate(line, col)
                    raise
            return call1
        if len(args) == 2:
            a0, a1 = args

            def call2(env):
                f = globals_ref[0].get(fname) if fast[0] else None
                if f is None:
                    f = callee(env)
                try:
                    x = a0(env)
                    y = a1(env)
                    c = f.__class__
                    if c is LambdaV:
                        params = f.params
                        if len(params) == 2:
                            rt.work_left -= 1
                            if rt.work_left < 0:
                                over_budget()
                            return f.body(Scope({params[0]: x, params[1]: y}, env))
                    elif c is Builtin:
                        return f.fn(env, [x, y])
                    return call(f, [x, y], env)
                except AutumnError as e:
                    e.locate(line, col)
                    raise
            return call2
        if len(args) == 3:
            a0, a1, a2 = args

            def call3(env):
                f = globals_ref[0].get(fname) if fast[0] else None
                if f is None:
                    f = callee(env)
                try:
                    x = a0(env)
                    y = a1(env)
                    z = a2(env)
                    c = f.__class__
                    if c is LambdaV:
                        params = f.params
                        if len(params) == 3:
                            rt.work_left -= 1
                            if rt.work_left < 0:
                                over_budget()
                            return f.body(Scope({params[0]: x, params[1]: y, params[2]: z},
                                                env))
                    elif c is Builtin:
                        return f.fn(env, [x, y, z])
                    return call(f, [x, y, z], env)
                except AutumnError as e:
                    e.locate(line, col)
                    raise
            return call3

        def calln(env):
            f = callee(env)
            try:
                return call(f, [a(env) for a in args], env)
            except AutumnError as e:
                e.locate(line, col)
                raise
        return calln

    def cell_form(self, node: S.Call) -> Closure:
        """``(Cell X Y C)``: snapshot the names it mentions, try each part, freeze numbers."""
        if len(node.args) != 3:
            raise AutumnRuntimeError(f"(Cell X Y COLOR) takes exactly 3 arguments, got "
                                     f"{len(node.args)}", line=node.line, column=node.column)
        nx, ny, nc = node.args
        names = S.collect_names(node.args)
        reads = names if "e" not in names and all(map(reads_only, node.args)) else None
        cx, cy, cc = self.compile(nx), self.compile(ny), self.compile(nc)
        rt = self.rt
        const_c = nc.text if isinstance(nc, S.Str) else None
        var_c = nc.name if isinstance(nc, S.Var) else None
        missing = _MISSING

        globals_ref = rt.globals_ref
        isolated: dict = {}
        # a part whose evaluation begins by looking up a name the snapshot lacks fails at once
        # in isolation (undefined: the trial's globals are empty, only the snapshot is seen),
        # so it is known missing without raising
        lx, ly, lc = (frozenset(_leading_names(n, self.type_names)[0]) for n in (nx, ny, nc))

        def trial(f, env):
            # Tried in the snapshot alone: globals it did not copy must be invisible.
            saved = globals_ref[0]
            globals_ref[0] = isolated
            try:
                return f(env)
            except AutumnLimitError:
                raise
            except AutumnRuntimeError:
                return missing
            finally:
                globals_ref[0] = saved

        def cell(env):
            snap = rt.cell_snapshot(env, names)
            trial_env = Scope(snap, None)
            vx = trial(cx, trial_env) if snap.keys() >= lx else missing
            vy = trial(cy, trial_env) if snap.keys() >= ly else missing
            if snap.keys() >= lc:
                trial(cc, trial_env)   # tried like the others (its draws count); value unused
            fx = vx if vx.__class__ is int else None
            fy = vy if vy.__class__ is int else None
            fc = None
            if const_c is not None:
                fc = const_c
            elif var_c is not None and var_c in snap:
                fc = snap[var_c]          # a name found in the snapshot cannot change
            return CellV(S.Num(fx) if fx is not None else nx,
                         S.Num(fy) if fy is not None else ny, nc,
                         fx, fy, fc, cx, cy, cc, snap, reads)
        return cell


_INT_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "<": operator.lt,
            "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_BOOL_OPS = frozenset(("==", "!=", "<", "<=", ">", ">="))


def _is_bool_valued(node: S.Node) -> bool:
    """Whether a node always evaluates to a Bool (so truthiness needs no check)."""
    t = type(node)
    return (t is S.Logic or t is S.BoolLit or (t is S.Bin and node.op in _BOOL_OPS)
            or (t is S.Unary and node.op == "!"))


def _leading_names(node: S.Node, type_names) -> tuple[tuple[str, ...], bool]:
    """(the names looked up first when ``node`` is evaluated, in order, before anything else
    is done: the leftmost operands of conditions and operators, and an operator's right
    operand after a left one that is only a look-up or a constant; whether evaluating the
    node is only that). A type name ends them: its look-up may find the type."""
    t = type(node)
    if t is S.Var:
        return ((), False) if node.name in type_names else ((node.name,), True)
    if t is S.Num or t is S.Str or t is S.BoolLit:
        return (), True
    if t is S.Bin:
        names, only = _leading_names(node.left, type_names)
        if only:   # both operands are evaluated before the operator looks at either
            names += _leading_names(node.right, type_names)[0]
        return names, False
    if t is S.If:
        return _leading_names(node.cond, type_names)[0], False
    if t is S.Logic:
        return _leading_names(node.left, type_names)[0], False
    if t is S.Unary:
        return _leading_names(node.operand, type_names)[0], False
    return (), False


def reads_only(node: S.Node) -> bool:
    """Whether evaluating ``node`` can only read names: no calls (so no function a Logic
    operand might call either), no assignments, no lets, no lambdas."""
    t = type(node)
    if t is S.Num or t is S.Str or t is S.BoolLit or t is S.Var:
        return True
    if t is S.Bin:
        return reads_only(node.left) and reads_only(node.right)
    if t is S.Logic:
        return (_is_bool_valued(node.left) and _is_bool_valued(node.right)
                and reads_only(node.left) and reads_only(node.right))
    if t is S.Unary:
        return reads_only(node.operand)
    if t is S.If:
        return reads_only(node.cond) and reads_only(node.then) and reads_only(node.other)
    if t is S.Field:
        return reads_only(node.obj)
    return False


class _Missing:
    __slots__ = ()


_MISSING = _Missing()
