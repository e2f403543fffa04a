"""Proof that a change-detection program runs as its original until its trigger holds.

A world's modified program (``programs/changes/``) is written as the original plus a *latch*:

    (= changed false)
    (on SpecialConditionTriggered (= changed true))

and the change guarded by ``changed`` (``(if changed then NEW else OLD)``, ``(& changed X)``,
``(& (! changed) X)``, ...). The host evaluates the trigger before every tick; until it has
held, ``changed`` is false. ``prove_latched`` checks that the modified program, with
``changed`` replaced by false and the latch taken out, *is* the original program, node for
node, using only rewrites that keep what every evaluation does (its value, the nodes it
evaluates and so the random draws, the errors aside: a run of the modified program is always
played, so its errors are seen). Then the two programs show the same frames at every step
before the trigger's first, for any actions: validation (``tasks/cd.py``) need not play the
original there. Anything the rewrites do not cover leaves the programs unproven, and
validation plays both, as it always did.

The rewrites (``c`` the constant the latch reads as, ``T(X)`` the Bool ``&``/``|`` make of
``X``: ``X`` called if it is a function, then its truthiness; docs/spec/autumn.md 4.5, 5.2):

- ``(! c)`` is the other constant; ``(& false X)`` is false and ``(| true X)`` true (``X`` is
  not evaluated); ``(& true X)``, ``(| false X)``, ``(& X true)`` and ``(| X false)`` are
  ``T(X)``; ``(if c then A else B)`` is the branch ``c`` selects;
- ``T(X)`` is ``X`` as an operand of ``&``/``|`` (which take ``T`` of it anyway); as the
  condition of an ``if`` or the body of a lambda passed straight to ``filter``, ``any``,
  ``removeObj`` or ``updateObj`` as its predicate (each takes only its truthiness) when ``X``
  can never be a function; anywhere else when ``X`` is always a Bool;
- a constant left in a value's place is the literal ``true``/``false`` (a Bool global read
  and a Bool literal give the same value).

What the proof also requires: the latch name is bound nowhere else (no other assignment, no
parameter or field of that name in the program or the stdlib, which would shadow it under
dynamic scoping) and is not in the original; ``SpecialConditionTriggered`` is read only by
the latch; the trigger only reads state (numbers, comparisons, logic, fields, and variables
the program defines as values, not functions), so evaluating it changes nothing. The
interpreter's tables beyond the program text (the hash order of the globals, which the
``changed`` global shifts) are compared on the loaded programs by ``cd.LockStep``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from . import syntax as S
from .interpreter import _parsed  # the interpreter's cache of parsed texts

__all__ = ["LatchProof", "prove_latched", "TRIGGER_NAME"]

TRIGGER_NAME = "SpecialConditionTriggered"
# the builtins that use only the truthiness of their predicate's value, and its argument index
_PREDICATE_ARG = {"filter": (0, 2), "any": (0, 2), "removeObj": (1, 2), "updateObj": (2, 3)}
_BOOL_OPS = frozenset(("==", "!=", "<", "<=", ">", ">="))


@dataclass(frozen=True, slots=True)
class LatchProof:
    """``proven``: the modified program is the original while ``latch`` reads false;
    ``reason``: why not, when it is not."""

    proven: bool
    latch: str | None = None
    reason: str = ""


class _Const(S.Node):
    """The latch (or what it folded into), a Bool known at every evaluation."""

    __slots__ = ("value",)

    def __init__(self, value: bool) -> None:
        super().__init__(0, 0)
        self.value = value


class _Truthy(S.Node):
    """``T(inner)``: what ``(& true inner)`` gives."""

    __slots__ = ("inner",)

    def __init__(self, inner: S.Node) -> None:
        super().__init__(0, 0)
        self.inner = inner


class _Opaque(S.Node):
    """A use of the latch no rewrite covers: never equal to anything."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(0, 0)


def prove_latched(original: str, modified: str, trigger: str, *, stdlib: str = "") -> LatchProof:
    """Whether ``modified`` (with host trigger ``trigger``) runs as ``original`` until the
    trigger first holds (see the module docstring); never raises on a program it cannot read
    (that program is simply not proven)."""
    try:
        orig = list(_parsed(original, "<original>"))
        mod = list(_parsed(modified, "<modified>"))
        trig = S.parse_expression_text(trigger, "<trigger>") if trigger.strip() else None
        std = _parsed(stdlib, "<stdlib>") if stdlib else ()
    except Exception as exc:   # an unreadable program is not proven; loading it reports why
        return LatchProof(False, reason=f"a program does not parse: {exc}")
    if trig is None:
        return LatchProof(False, reason="no trigger")
    latch, reason = _find_latch(mod)
    if latch is None:
        return LatchProof(False, reason=reason)
    why = (_latch_bound_elsewhere(latch, mod, std) or _trigger_read_elsewhere(mod)
           or _impure_trigger(trig, mod, latch))
    if latch in _names(orig):
        why = f"the original program uses the latch name {latch!r}"
    if why:
        return LatchProof(False, latch, why)
    folder = _Folder(latch, mod, std)
    residual = [folder.statement(s) for s in mod if not _is_latch_statement(s, latch)]
    if len(residual) != len(orig):
        return LatchProof(False, latch, f"{len(residual)} statements without the latch, the "
                                        f"original has {len(orig)}")
    for a, b in zip(residual, orig):
        if not _same(a, b):
            return LatchProof(False, latch, f"the statement at line {b.line} of the original "
                                            "differs from the modified program's with the "
                                            "latch false")
    return LatchProof(True, latch)


# -- the latch --------------------------------------------------------------------------------
def _find_latch(mod: list[S.Node]) -> tuple[str | None, str]:
    sets = [s.body.name for s in mod if type(s) is S.OnDecl and type(s.cond) is S.Var
            and s.cond.name == TRIGGER_NAME and type(s.body) is S.Assign
            and type(s.body.value) is S.BoolLit and s.body.value.value is True]
    if len(sets) != 1:
        return None, f"{len(sets)} on-clauses (on {TRIGGER_NAME} (= NAME true)), not one"
    name = sets[0]
    inits = [s for s in mod if _is_init(s, name)]
    if len(inits) != 1:
        return None, f"{len(inits)} top-level (= {name} false), not one"
    return name, ""


def _is_init(stmt: S.Node, name: str) -> bool:
    return (type(stmt) is S.ExprStmt and type(stmt.expr) is S.Assign and stmt.expr.name == name
            and type(stmt.expr.value) is S.BoolLit and stmt.expr.value.value is False)


def _is_latch_statement(stmt: S.Node, name: str) -> bool:
    if _is_init(stmt, name):
        return True
    return (type(stmt) is S.OnDecl and type(stmt.cond) is S.Var
            and stmt.cond.name == TRIGGER_NAME and type(stmt.body) is S.Assign
            and stmt.body.name == name)


def _binders(nodes) -> dict[str, int]:
    """How often each name is bound in ``nodes``: assignments, parameters, object fields."""
    out: dict[str, int] = {}
    for node in S.walk(nodes):
        t = type(node)
        names: list[str] = []
        if t is S.Assign:
            names = [node.name]
        elif t is S.Lambda:
            names = list(node.params)
        elif t is S.ObjectDecl:
            names = [f for f, _ in node.fields]
        for n in names:
            out[n] = out.get(n, 0) + 1
    return out


def _names(nodes) -> set[str]:
    """Every name ``nodes`` read or bind."""
    out = set(_binders(nodes))
    out.update(n.name for n in S.walk(nodes) if type(n) is S.Var)
    return out


@functools.lru_cache(maxsize=8)
def _std_binders(std: tuple) -> frozenset[str]:
    """The names the stdlib binds (walked once per stdlib)."""
    return frozenset(_binders(std))


def _latch_bound_elsewhere(latch: str, mod: list[S.Node], std: tuple) -> str:
    if _binders(mod).get(latch, 0) != 2 or latch in _std_binders(std):
        return f"the latch {latch!r} is bound somewhere besides its two statements"
    return ""


def _trigger_read_elsewhere(mod: list[S.Node]) -> str:
    """Why the host's trigger global may reach the program other than through the latch."""
    reads = sum(1 for n in S.walk(mod) if type(n) is S.Var and n.name == TRIGGER_NAME)
    if reads != 1:
        return f"{TRIGGER_NAME} is read outside the latch"
    return f"{TRIGGER_NAME} is bound by the program" if TRIGGER_NAME in _binders(mod) else ""


def _impure_trigger(trig: S.Node, mod: list[S.Node], latch: str) -> str:
    """Why evaluating the trigger might change something or call code ("" if it cannot)."""
    for node in S.walk((trig,)):
        t = type(node)
        if t is S.Var:
            if node.name != latch and not _plain_value(node.name, mod):
                return f"the trigger reads {node.name!r}, which may hold a function"
        elif t not in (S.Num, S.Str, S.BoolLit, S.Bin, S.Logic, S.Unary, S.If, S.Field):
            return f"the trigger has a {t.__name__}, which may have effects"
    return ""


def _plain_value(name: str, mod: list[S.Node]) -> bool:
    """Whether the global ``name`` is defined once at top level, as a number, string or Bool
    (or ``initnext`` of one): an assignment keeps a global's type or makes it a list (the
    interpreter's type check raises otherwise), so it never holds a function."""
    defs = [s.expr.value for s in mod if type(s) is S.ExprStmt and type(s.expr) is S.Assign
            and s.expr.name == name]
    if len(defs) != 1:
        return False
    v = defs[0].init if type(defs[0]) is S.InitNext else defs[0]
    return type(v) in (S.Num, S.Str, S.BoolLit, S.Logic, S.Unary) or (
        type(v) is S.Bin)


# -- folding ----------------------------------------------------------------------------------
class _Folder:
    """The modified program's statements with the latch read as false, simplified by the
    rewrites of the module docstring."""

    def __init__(self, latch: str, mod: list[S.Node], std: tuple) -> None:
        self.latch = latch
        bound = _binders(mod)
        std_bound = _std_binders(std)
        self.stable: dict[str, S.Lambda] = {}
        for s in mod:
            if type(s) is S.ExprStmt and type(s.expr) is S.Assign \
                    and type(s.expr.value) is S.Lambda and bound.get(s.expr.name) == 1 \
                    and s.expr.name not in std_bound:
                self.stable[s.expr.name] = s.expr.value
        self.rebound = {n for n in _PREDICATE_ARG if n in bound or n in std_bound}

    def statement(self, s: S.Node) -> S.Node:
        t = type(s)
        if t is S.ExprStmt:
            return S.ExprStmt(self.value(s.expr), s.line, s.column)
        if t is S.OnDecl:
            return S.OnDecl(self.value(s.cond), self.value(s.body), s.line, s.column)
        if t is S.ObjectDecl:
            return S.ObjectDecl(s.name, s.fields, self.value(s.cell), s.line, s.column)
        return s

    def value(self, node: S.Node) -> S.Node:
        """``node`` folded, in a place that uses its value as it is."""
        return self._settle(self.fold(node))

    def _settle(self, node: S.Node) -> S.Node:
        if type(node) is _Const:
            return S.BoolLit(node.value, 0, 0)
        if type(node) is _Truthy:
            inner = node.inner
            return inner if _bool_valued(inner) else node
        return node

    def _truthiness(self, node: S.Node, *, calls: bool) -> S.Node:
        """``node`` folded, in a place that uses only its truthiness (``calls``: calling it
        first if it is a function, as ``&``/``|`` do)."""
        if type(node) is _Truthy and (calls or self._never_function(node.inner, set())):
            return node.inner
        return self._settle(node) if type(node) is not _Const else node

    def fold(self, node: S.Node) -> S.Node:
        t = type(node)
        if t is S.Var:
            return _Const(False) if node.name == self.latch else node
        if t is S.Unary:
            operand = self.fold(node.operand)
            if node.op == "!" and type(operand) is _Const:
                return _Const(not operand.value)
            return S.Unary(node.op, self._settle(operand), node.line, node.column)
        if t is S.Logic:
            return self._logic(node)
        if t is S.If:
            cond = self.fold(node.cond)
            if type(cond) is _Const:
                return self.fold(node.then if cond.value else node.other)
            cond = self._truthiness(cond, calls=False)
            return S.If(cond, self.value(node.then), self.value(node.other), node.line,
                        node.column)
        if t is S.Bin:
            left, right = self.value(node.left), self.value(node.right)
            if node.op == "*":
                # (* (if changed then K else 1) X): X, a Number whenever the product is
                # one (every Number is within 32 bits, so the product wraps to X itself)
                if _one(left) and type(node.left) is not S.Num:
                    return right
                if _one(right) and type(node.right) is not S.Num:
                    return left
            return S.Bin(node.op, node.spelling, left, right, node.line, node.column)
        if t is S.Call:
            return self._call(node)
        if t is S.Field:
            return S.Field(self.value(node.obj), node.field, node.line, node.column)
        if t is S.Lambda:
            return S.Lambda(node.params, self.value(node.body), node.line, node.column)
        if t is S.Let:
            return S.Let([self.value(e) for e in node.body], node.line, node.column)
        if t is S.ListLit:
            return S.ListLit([self.value(e) for e in node.items], node.line, node.column)
        if t is S.Assign:
            return S.Assign(node.name, self.value(node.value), node.line, node.column)
        if t is S.FieldAssign:
            return S.FieldAssign(self.value(node.obj), node.field, self.value(node.value),
                                 node.line, node.column)
        if t is S.InitNext:
            return S.InitNext(self.value(node.init), self.value(node.next), node.line,
                              node.column)
        return node     # literals, types, annotations

    def _logic(self, node: S.Logic) -> S.Node:
        left = self.fold(node.left)
        is_or = node.is_or
        if type(left) is _Const:
            if left.value == is_or:        # (| true X), (& false X): X is not evaluated
                return _Const(is_or)
            right = self.fold(node.right)  # (& true X), (| false X)
            return right if type(right) is _Const else _Truthy(self._operand(right))
        right = self.fold(node.right)
        if type(right) is _Const and right.value != is_or:   # (& X true), (| X false)
            return _Truthy(self._operand(left))
        return S.Logic(is_or, node.spelling, self._operand(left), self._operand(right),
                       node.line, node.column)

    def _operand(self, node: S.Node) -> S.Node:
        return self._truthiness(node, calls=True) if type(node) is not _Const else \
            _Opaque()   # (& X false) evaluates X and then ignores it: not rewritten

    def _call(self, node: S.Call) -> S.Node:
        fn = node.fn
        if type(fn) is S.Var and fn.name == "prev":
            # the name is passed unevaluated (docs/spec/autumn.md 4.6): the latch must not be
            args = [_Opaque() if type(a) is S.Var and a.name == self.latch else self.value(a)
                    for a in node.args]
            return S.Call(fn, args, node.line, node.column)
        callee = _Opaque() if type(fn) is S.Var and fn.name == self.latch else self.value(fn)
        pred = _PREDICATE_ARG.get(fn.name) if type(fn) is S.Var \
            and fn.name not in self.rebound else None
        out = []
        for i, a in enumerate(node.args):
            if pred is not None and (i, len(node.args)) == pred and type(a) is S.Lambda:
                # a predicate: only the truthiness of its body's value is used
                body = self._truthiness(self.fold(a.body), calls=False)
                out.append(S.Lambda(a.params, body, a.line, a.column))
            else:
                out.append(self.value(a))
        return S.Call(callee, out, node.line, node.column)

    def _never_function(self, node: S.Node, visiting: set[str]) -> bool:
        """Whether ``node``'s value can never be a function value."""
        t = type(node)
        if t in (S.Num, S.Str, S.BoolLit, S.Bin, S.Logic, S.Unary, S.ListLit):
            return True
        if t is S.If:
            return self._never_function(node.then, visiting) and \
                self._never_function(node.other, visiting)
        if t is S.Call and type(node.fn) is S.Var and node.fn.name in self.stable \
                and node.fn.name not in visiting:
            fn = self.stable[node.fn.name]
            return self._never_function(fn.body, visiting | {node.fn.name})
        return False


def _one(node: S.Node) -> bool:
    return type(node) is S.Num and node.value == 1


def _bool_valued(node: S.Node) -> bool:
    t = type(node)
    if t is S.If:
        return _bool_valued(node.then) and _bool_valued(node.other)
    return (t is S.Logic or t is S.BoolLit or (t is S.Bin and node.op in _BOOL_OPS)
            or (t is S.Unary and node.op == "!"))


# -- structural equality ----------------------------------------------------------------------
def _same(a, b) -> bool:
    """Equal trees, positions aside (a marker equals nothing)."""
    if isinstance(a, S.Node) or isinstance(b, S.Node):
        if type(a) is not type(b) or type(a) in (_Const, _Truthy, _Opaque):
            return False
        return all(_same(getattr(a, slot), getattr(b, slot))
                   for slot in _slots(type(a)))
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) \
            and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _slots(cls) -> tuple[str, ...]:
    """The slots that make up a node (its own and its bases' but Node's positions)."""
    out: list[str] = []
    for klass in cls.__mro__:
        if klass is S.Node or klass is object:
            continue
        out += [s for s in getattr(klass, "__slots__", ())]
    return tuple(out)
