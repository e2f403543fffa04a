"""Fuse an expression tree into one Python function (the compiler's fast tier).

The closure compiler (``compiler.py``) turns every node into its own closure, so an
expression such as ``(if (& (>= ax 0) (< ax 16)) then (.. (at gen i) alive) else 0)`` costs a
dozen Python calls per evaluation. Profiles of cellular automata and movement-heavy worlds
show that those calls are most of a tick. This module generates, for a whole tree of
operators, conditionals, field reads, variable reads and calls, one Python function with the
operations inlined (lets too, whose assignments walk the scope chain from the code's own
scope without building the let's scope unless something needs it), and leaves every other
node (lambdas, lists, assignments outside lets, cells) to the closure compiler as a *leaf*
that the generated code calls.

Safety: the generated code is built here from fixed templates and never contains program
text. Every name, field and string of the program reaches the function as a constant in its
globals table (``c0``, ``c1``, ...); only integers we format ourselves and our own temporary
names appear in the source. The source is compiled with ``compile()`` and the function is
made with ``types.FunctionType``: nothing is ``eval``-ed or ``exec``-ed. Code objects are
cached per generated source, so reloading a program (every reset) only binds new globals.

Semantics are those of the closures, step for step: the same evaluation order, the same type
checks with the same error messages and positions, the same dynamic-scope lookups, the same
call accounting for the time budget. ``tests/autumn/test_fuse.py`` runs programs with and
without fusion and requires identical frames.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Callable

from ..errors import AutumnError
from . import syntax as S
from .codecache import compile_function
from .fuse_calls import CallEmitter, Inlined, Let, call0
from .fuse_shape import FUSIBLE, ROOTS, inlinable, is_bool_valued, let_assign, size
from .values import (
    FUNCTION_TYPES,
    INT_MAX,
    INT_MIN,
    AList,
    Builtin,
    Obj,
    Pos,
    Scope,
    appended,
    field_value,
    infer_tag,
    int_divide,
    runtime_error,
    type_str,
    wrap32,
)
from .values import Lambda as LambdaV

if TYPE_CHECKING:
    from .compiler import Compiler

__all__ = ["fuse", "FUSIBLE"]

_ARITH = {"+": "+", "-": "-", "*": "*"}
_CMP = {"<": "<", "<=": "<=", ">": ">", ">=": ">="}
_CODE_CACHE: dict[str, types.CodeType] = {}

def fuse(comp: "Compiler", node: S.Node) -> Callable | None:
    """One generated function for ``node``'s fusible tree, or None if fusing gains nothing."""
    if not isinstance(node, ROOTS):
        return None
    key = (node, comp.fuse_token())
    cached = _FUSED.get(key)
    if cached is not None:
        if cached is _NOT_FUSED:
            return None
        code, fname, recipes = cached
        glob = _base_globals(comp.rt)
        for name, recipe in recipes:
            glob[name] = _build(recipe, comp, glob, name)
        return types.FunctionType(code, glob, fname)
    if len(_FUSED) > _FUSED_MAX:
        _FUSED.clear()
    if _deeper_than(node, _MAX_FUSED_DEPTH) or not 2 <= size(node, comp) <= _MAX_FUSED_SIZE:
        _FUSED[key] = _NOT_FUSED
        return None
    gen = _Generator(comp)
    # named after the source position, so profiles tell the generated functions apart
    fname = f"autumn_{int(node.line or 0)}_{int(node.column or 0)}"
    try:
        result = gen.expr(node)
        gen.line(f"return {result}")
        head = [f"def {fname}(env):", "    g = GR[0]", "    d = env.vars"]
        source = "\n".join(head + gen.lines) + "\n"
        code = _CODE_CACHE.get(source)
        if code is None:   # compiled, or read back from an earlier process (codecache.py)
            code = compile_function(source, "<autumn-fused>")
            _CODE_CACHE[source] = code
    except (SyntaxError, RecursionError):
        # Nesting deeper than Python's own compiler takes (100 indented blocks, as 100 nested
        # ifs make): the closures run the same tree, as they run any tree not fused
        _FUSED[key] = _NOT_FUSED
        return None
    _FUSED[key] = (code, fname, tuple(gen.recipes))
    return types.FunctionType(code, gen.globals, fname)


# Python's compiler refuses more than 100 nested blocks; a tree nested deeper than this is run
# by the closures (deciding it walks at most this many levels, so a chain of 1,000 nested ifs
# costs 1,000 short walks, not 1,000 generations of ever-shorter chains)
_MAX_FUSED_DEPTH = 64
# and Python's compiler takes ~10 KB a node of generated code: a tree of 30,000 nodes (one let of
# 20,000 assignments) peaked at 355 MB; the closures run such a tree in constant extra memory
_MAX_FUSED_SIZE = 2_000


def _deeper_than(root: S.Node, limit: int) -> bool:
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        for slot in getattr(type(node), "__slots__", ()):
            child = getattr(node, slot, None)
            if isinstance(child, S.Node):
                stack.append((child, depth + 1))
            elif isinstance(child, list):
                stack.extend((c, depth + 1) for c in child if isinstance(c, S.Node))
    return False


# (node, compiler token) -> (code, function name, recipes of its globals): a reload of the
# same program (every reset) rebuilds only the globals, never the code
_FUSED: dict = {}
_FUSED_MAX = 50_000
_NOT_FUSED = object()


class _LazyVar:
    """A generated function's fallback lookup of a variable (the scope walk it takes when the
    fast paths miss), compiled on its first call, which then puts the compiled closure in its
    place among the function's globals. Most of these are never called (the name is always
    found in the global table or an inlined scope), and compiling them all was most of a
    program's reload (every reset of a new world): one closure per variable read. Compiling
    a variable can neither fail nor change the runtime (``Compiler.c_Var``), and a name that
    became local since the load is walked either way, so when it is compiled makes no
    difference to what it returns."""

    __slots__ = ("comp", "node", "glob", "name")

    def __init__(self, comp: "Compiler", node: S.Var, glob: dict, name: str) -> None:
        self.comp, self.node, self.glob, self.name = comp, node, glob, name

    def __call__(self, env):
        compiled = self.comp.compile_closure(self.node)
        self.glob[self.name] = compiled
        return compiled(env)


def _build(recipe: tuple, comp: "Compiler", glob: dict, name: str):
    """The value of the global ``name`` of a generated function whose globals are ``glob``,
    for this load, from its recipe."""
    kind = recipe[0]
    if kind == "value":
        return recipe[1]
    if kind == "var":
        return _LazyVar(comp, recipe[1], glob, name)
    if kind == "closure":
        return comp.compile_closure(recipe[1])
    if kind == "flag":
        return comp.rt.fast_flags.setdefault(recipe[1], [True])
    if kind == "builtin":
        return comp.rt.G.vars.get(recipe[1])
    return recipe[1](comp.rt, *recipe[2])


class _Generator(CallEmitter):
    """Emits statements; each ``expr`` returns the name of the local holding its value."""

    def __init__(self, comp: "Compiler") -> None:
        self.comp = comp
        rt = comp.rt
        self.lines: list[str] = []
        self.indent = 1
        self.temps = 0
        self.consts: dict[tuple, str] = {}
        self.frames: list[Inlined | Let] = []
        self.recipes: list[tuple[str, tuple]] = []   # how to rebuild each o/c global
        # temporaries known to hold ints at this point of the code (checked or computed), so
        # their type checks are not repeated; blocks restore what held before them
        self.known_int: set[str] = set()
        self.facts: list[set[str]] = []
        self.globals: dict = _base_globals(rt)


    # -- emission helpers ---------------------------------------------------------------------
    def line(self, text: str) -> None:
        self.lines.append("    " * self.indent + text)

    def open_block(self) -> None:
        """Start an indented block: what it learns about types holds only inside it."""
        self.indent += 1
        self.facts.append(set(self.known_int))

    def close_block(self) -> None:
        self.indent -= 1
        self.known_int = self.facts.pop()

    def temp(self) -> str:
        self.temps += 1
        return f"t{self.temps}"

    def const(self, value) -> str:
        """A global of the generated function holding ``value`` (program text stays data)."""
        key = (type(value).__name__, value if isinstance(value, (str, int)) else id(value))
        name = self.consts.get(key)
        if name is None:
            name = f"c{len(self.consts)}"
            self.consts[key] = name
            self.globals[name] = value
            self.recipes.append((name, ("value", value)))
        return name

    def obj(self, value) -> str:
        """A global for a value that is the same for every load (nodes, node-made helpers)."""
        return self._global(value, ("value", value))

    def closure(self, node: S.Node) -> str:
        """A global holding ``node`` compiled for this load."""
        return self._global(self.comp.compile_closure(node), ("closure", node))

    def fallback(self, node: S.Var) -> str:
        """A global holding the variable's lookup for the path that is taken only when the
        fast ones miss, compiled when first called (``_LazyVar``)."""
        name = f"o{len(self.globals)}"
        self.globals[name] = _LazyVar(self.comp, node, self.globals, name)
        self.recipes.append((name, ("var", node)))
        return name

    def flag(self, name: str) -> str:
        """The load's 'still only a global' flag of ``name``."""
        return self._global(self.comp.rt.fast_flags.setdefault(name, [True]), ("flag", name))

    def builtin(self, name: str) -> str:
        """The builtin bound to ``name`` when the code was compiled (compared by identity)."""
        return self._global(self.comp.rt.G.vars.get(name), ("builtin", name))

    def rt_value(self, factory, *args) -> str:
        """A helper made for this load's runtime: ``factory(rt, *args)``."""
        return self._global(factory(self.comp.rt, *args), ("rt", factory, args))

    def _global(self, value, recipe: tuple) -> str:
        name = f"o{len(self.globals)}"
        self.globals[name] = value
        self.recipes.append((name, recipe))
        return name

    def leaf(self, node: S.Node) -> str:
        f = self.closure(node)
        t = self.temp()
        self.line(f"{t} = {f}({self.env()})")
        self.after_call()
        return t

    # -- nodes ---------------------------------------------------------------------------------
    def expr(self, node: S.Node) -> str:
        if not inlinable(node, self.comp):
            return self.leaf(node)
        t = type(node)
        if t is S.Num:
            v = node.value
            assert type(v) is int
            return f"({int(v)})"
        if t is S.BoolLit:
            return "True" if node.value else "False"
        if t is S.Str:
            return self.const(node.text)
        emit = _EMITTERS.get(t)
        if emit is not None:
            return emit(self, node)
        return self.leaf(node)

    def let(self, node: S.Let) -> str:
        """``(let e1 ... en)``: a new scope; assignments in it walk the chain (4.8). Its table
        is made at once, its Scope only when something needs the chain (``env``)."""
        scope, table = self.temp(), self.temp()
        self.line(f"{table} = {{}}")
        self.line(f"{scope} = None")
        self.frames.append(Let(scope, table))
        try:
            v = "None"
            for e in node.body:
                if let_assign(e):
                    v = self.temp_of(self.expr(e.value))
                    self.let_assign(e, table, v)
                else:
                    v = self.expr(e)
            return v
        finally:
            self.frames.pop()

    def let_assign(self, e: S.Assign, table: str, v: str) -> None:
        """``(= name v)`` in the innermost let, whose table is ``table``. When no scope of
        this code between the let and ``env`` holds ``name`` (the let's table and enclosing
        lets' tables, checked; inlined bodies' scopes hold only their parameters unless made,
        then checked), the walk starts at ``env`` (``assign_in_let``) and nothing is made;
        else every scope is made and the walk is ``assign``'s, as the chain has it."""
        name = self.const(e.name)
        line = "None" if e.line is None else int(e.line)
        col = "None" if e.column is None else int(e.column)
        enclosing = self.frames[:-1]
        if any(fr.__class__ is Inlined and e.name in fr.params for fr in enclosing):
            self.assign_through_chain(name, v, line, col)
            return
        held = [f"{name} in {table}"]
        for fr in reversed(enclosing):
            held.append(f"{name} in {fr.table}" if fr.__class__ is Let else
                        f"({fr.scope} is not None and {name} in {fr.scope}.vars)")
        self.line(f"if {' or '.join(held)}:")
        self.open_block()
        self.assign_through_chain(name, v, line, col)
        self.close_block()
        self.line("else:")
        self.open_block()
        self.line("try:")
        self.line(f"    LET_ASSIGN(env, {name}, {v}, {table})")
        self.line("except AutumnError as e:")
        self.line(f"    raise e.locate({line}, {col})")
        self.line("d = env.vars")   # the walk may have copied a borrowed scope's table
        self.close_block()

    def assign_through_chain(self, name: str, v: str, line, col) -> None:
        scope = self.env()
        self.line("try:")
        self.line(f"    ASSIGN({scope}, {name}, {v})")
        self.line("except AutumnError as e:")
        self.line(f"    raise e.locate({line}, {col})")
        self.after_call()

    def var(self, node: S.Var) -> str:
        comp = self.comp
        name = self.const(node.name)
        walk = self.fallback(node)
        t = self.temp()
        if node.name in comp.local_names:
            # the scope chain, innermost first: inlined bodies' parameters (known here),
            # let tables, the function's own scope, then the rest of the chain
            tables = []
            for fr in reversed(self.frames):
                if fr.__class__ is Inlined:
                    if node.name in fr.params:
                        return fr.params[node.name]
                else:
                    tables.append(fr.table)
            # the parent of the function's scope is checked inline too (free names of
            # small lambdas, such as predicates passed to any or filter, live there)
            value = (f"(pv[{name}] if (pv := env.parent) is not None and {name} in "
                     f"(pv := pv.vars) else {walk}(env))")
            for table in reversed([*tables, "d"]):
                value = f"({table}[{name}] if {name} in {table} else {value})"
            self.line(f"{t} = {value}")
        else:
            flag = self.flag(node.name)
            self.line(f"{t} = g[{name}] if {flag}[0] and {name} in g else "
                      f"{walk}({self.real_env()})")
        return t

    def temp_of(self, v: str) -> str:
        """``v`` in a temporary (literals cannot be reassigned, tested with ``is`` or
        subscripted without a compiler warning)."""
        if v.startswith("t"):
            return v
        t = self.temp()
        self.line(f"{t} = {v}")
        return t

    def raiser(self, fn) -> str:
        return self.obj(fn)

    def bin(self, node: S.Bin) -> str:
        op = node.op
        a = self.temp_of(self.expr(node.left))
        if type(node.left) is S.Num:
            self.known_int.add(a)
        b = self.expr(node.right)
        t = self.temp()
        if op in ("==", "!="):
            b = self.temp_of(b)
            neg = "not " if op == "!=" else ""
            self.line(f"if {a}.__class__ is int and {b}.__class__ is int: {t} = {a} {op} {b}")
            # positions, compared field by field when both hold plain numbers (5.3)
            self.line(f"elif {a}.__class__ is Pos and {b}.__class__ is Pos and "
                      f"{a}.x.__class__ is int and {a}.y.__class__ is int and "
                      f"{b}.x.__class__ is int and {b}.y.__class__ is int: "
                      f"{t} = {neg}({a}.x == {b}.x and {a}.y == {b}.y)")
            self.line(f"else: {t} = {neg}EQ({a}, {b})")
            return t
        spelling = node.spelling

        def numbers(x, y, _node=node, _spelling=spelling):
            bad = x if x.__class__ is not int else y
            raise runtime_error(f"'{_spelling}' needs two Numbers, got a {type_str(bad)}",
                                _node)
        err = self.raiser(numbers)
        const_right = type(node.right) is S.Num
        if not const_right:
            b = self.temp_of(b)
        unknown = [v for v in (a, b) if v not in self.known_int
                   and not (v is b and const_right)]
        if unknown:
            test = " or ".join(f"{v}.__class__ is not int" for v in unknown)
            self.line(f"if {test}: {err}({a}, {b})")
            self.known_int.update(unknown)
        if op in _ARITH:
            self.line(f"{t} = {a} {_ARITH[op]} {b}")
            self.line(f"if not {INT_MIN} <= {t} <= {INT_MAX}: {t} = wrap32({t})")
            self.known_int.add(t)
        elif op in _CMP:
            self.line(f"{t} = {a} {_CMP[op]} {b}")
        else:
            self.line(f"{t} = {self.raiser(_divmod(node))}({a}, {b})")
        return t

    def truth(self, node: S.Node) -> str:
        """The node as a Python bool, per the form that uses it (If or Logic)."""
        v = self.expr(node)
        if is_bool_valued(node):
            return v
        v = self.temp_of(v)
        return f"(not ({v} is False or ({v}.__class__ is AList and not {v})))"

    def logic_operand(self, node: S.Node, parent: S.Logic) -> str:
        v = self.expr(node)
        if is_bool_valued(node):
            return v
        v = self.temp_of(v)
        caller = self.rt_value(call0, parent)
        self.line(f"if isinstance({v}, FUNCS):")
        self.open_block()
        self.line(f"{v} = {caller}({v}, {self.env()})")
        self.after_call()
        self.close_block()
        return f"(not ({v} is False or ({v}.__class__ is AList and not {v})))"

    def logic(self, node: S.Logic) -> str:
        t = self.temp()
        lv = self.logic_operand(node.left, node)
        self.line(f"if {lv}:")
        self.open_block()
        if node.is_or:
            self.line(f"{t} = True")
        else:
            rv = self.logic_operand(node.right, node)
            self.line(f"{t} = {rv}")
        self.close_block()
        self.line("else:")
        self.open_block()
        if node.is_or:
            rv = self.logic_operand(node.right, node)
            self.line(f"{t} = {rv}")
        else:
            self.line(f"{t} = False")
        self.close_block()
        return t

    def if_(self, node: S.If) -> str:
        t = self.temp()
        c = self.truth(node.cond)
        self.line(f"if {c}:")
        self.open_block()
        v = self.expr(node.then)
        self.line(f"{t} = {v}")
        self.close_block()
        self.line("else:")
        self.open_block()
        v = self.expr(node.other)
        self.line(f"{t} = {v}")
        self.close_block()
        return t

    def unary(self, node: S.Unary) -> str:
        v = self.temp_of(self.expr(node.operand))
        t = self.temp()
        op = node.op

        def bad(x, _node=node, _op=op):
            if _op == "!":
                raise runtime_error(f"'!' needs a Bool, got a {type_str(x)}", _node)
            raise runtime_error(f"unary '{_op}' needs a Number, got a {type_str(x)}", _node)
        err = self.raiser(bad)
        if op == "!":
            self.line(f"if {v}.__class__ is not bool: {err}({v})")
            self.line(f"{t} = not {v}")
        else:
            if v not in self.known_int:
                self.line(f"if {v}.__class__ is not int: {err}({v})")
                self.known_int.add(v)
            self.line(f"{t} = wrap32(-{v})" if op == "-" else f"{t} = {v}")
            self.known_int.add(t)
        return t

    def field(self, node: S.Field) -> str:
        field = node.field
        inner = node.obj
        t = self.temp()
        fv = "FV"
        if field in ("x", "y") and type(inner) is S.Field and inner.field == "origin":
            o = self.temp_of(self.expr(inner.obj))
            p = self.temp()
            self.line(f"{p} = {o}.fields.get('origin') if {o}.__class__ is Obj else None")
            self.line(f"if {p}.__class__ is Pos: {t} = {p}.{field}")
            inner_node = self.obj(inner)
            this_node = self.obj(node)
            self.line(f"else: {t} = {fv}({fv}({o}, 'origin', {inner_node}), "
                      f"{self.const(field)}, {this_node})")
            return t
        o = self.temp_of(self.expr(inner))
        name = self.const(field)
        this_node = self.obj(node)
        self.line(f"if {o}.__class__ is Obj and {name} in {o}.fields: {t} = {o}.fields[{name}]")
        self.line(f"else: {t} = {fv}({o}, {name}, {this_node})")
        return t


def _base_globals(rt) -> dict:
    """The globals every generated function of one load shares (a copy for each function:
    it adds its own). Built once per load unless a builtin they name was rebound since."""
    bound = (rt.prev_builtin, rt.G.vars.get("at"), rt.G.vars.get("updateObj"),
             rt.types.get("Position"))
    cached = rt.fuse_base
    if cached is not None and all(a is b for a, b in zip(cached[0], bound)):
        return dict(cached[1])
    base = _new_base_globals(rt)
    rt.fuse_base = (bound, base)
    return dict(base)


def _new_base_globals(rt) -> dict:
    return {
        "__builtins__": {"len": len, "isinstance": isinstance}, "GR": rt.globals_ref,
        "rt": rt, "int": int, "bool": bool, "Obj": Obj, "Pos": Pos, "AList": AList,
        "LambdaV": LambdaV, "Builtin": Builtin, "Scope": Scope, "AutumnError": AutumnError,
        "EQ": rt.eq, "CALL": rt.call, "wrap32": wrap32, "FV": field_value,
        "PREV": rt.prev_builtin, "PREV_BY_NAME": rt.prev_by_name,
        "OVER_BUDGET": rt.over_budget, "FUNCS": FUNCTION_TYPES,
        "AT": rt.G.vars.get("at"), "UPDATE_OBJ": rt.G.vars.get("updateObj"),
        "POSITION": rt.types.get("Position"), "TYPES": rt.types, "ASSIGN": rt.assign,
        "LET_ASSIGN": rt.assign_in_let,
        "COUNT_WORK": rt.count_work, "APPENDED": appended, "INFER_TAG": infer_tag,
    }


_EMITTERS = {S.Var: _Generator.var, S.Bin: _Generator.bin, S.Logic: _Generator.logic,
             S.If: _Generator.if_, S.Unary: _Generator.unary, S.Field: _Generator.field,
             S.Call: _Generator.call, S.Let: _Generator.let}


def _divmod(node: S.Bin):
    is_div = node.op == "/"

    def divmod_(a, b):
        return int_divide(a, b, node, is_div)
    return divmod_
