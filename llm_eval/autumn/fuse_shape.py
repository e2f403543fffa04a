"""What the fused tier (``fuse.py``) can take: which nodes it inlines, how big a tree
is, and the limits of inlining lambda bodies."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import syntax as S

if TYPE_CHECKING:
    from .compiler import Compiler

__all__ = ["FUSIBLE", "ROOTS", "is_bool_valued", "size", "let_assign", "inlinable", "count"]

FUSIBLE = (S.Bin, S.Logic, S.If, S.Unary, S.Field, S.Call, S.Var, S.Num, S.Str, S.BoolLit)
ROOTS = (S.Bin, S.Logic, S.If, S.Unary, S.Field, S.Call, S.Let)
_BOOL_OPS = frozenset(("==", "!=", "<", "<=", ">", ">="))


def is_bool_valued(node: S.Node) -> bool:
    t = type(node)
    return (t is S.Logic or t is S.BoolLit or (t is S.Bin and node.op in _BOOL_OPS)
            or (t is S.Unary and node.op == "!"))


def size(node: S.Node, comp: "Compiler") -> int:
    """How many nodes the fused function would inline (0 when the root is not fusible)."""
    if not inlinable(node, comp):
        return 0
    t = type(node)
    if t is S.Bin or t is S.Logic:
        return 1 + size(node.left, comp) + size(node.right, comp)
    if t is S.If:
        return 1 + size(node.cond, comp) + size(node.then, comp) + size(node.other, comp)
    if t is S.Unary:
        return 1 + size(node.operand, comp)
    if t is S.Field:
        return 1 + size(node.obj, comp)
    if t is S.Call:
        return 1 + sum(size(a, comp) for a in node.args)
    if t is S.Let:
        return 1 + sum(1 + size(e.value, comp) if let_assign(e) else size(e, comp)
                       for e in node.body)
    return 1


def let_assign(node: S.Node) -> bool:
    """An ``(= name value)`` directly in a let body, which the fused code assigns itself."""
    return type(node) is S.Assign and type(node.value) is not S.InitNext


def inlinable(node: S.Node, comp: "Compiler") -> bool:
    t = type(node)
    if t is S.Call:
        fn = node.fn
        if type(fn) is not S.Var or not 1 <= len(node.args) <= 3:
            return False
        if fn.name == "Position":
            return len(node.args) == 2
        return (fn.name != "Cell" and fn.name not in comp.local_names
                and fn.name not in comp.type_names)
    if t is S.Let:
        return len(node.body) >= 1
    if t is S.Var:
        return node.name not in comp.type_names
    return isinstance(node, FUSIBLE)


def count(node: S.Node) -> int:
    """Every node of an expression tree (to tell whether all of it can be inlined)."""
    t = type(node)
    if t is S.Bin or t is S.Logic:
        return 1 + count(node.left) + count(node.right)
    if t is S.If:
        return 1 + count(node.cond) + count(node.then) + count(node.other)
    if t is S.Unary:
        return 1 + count(node.operand)
    if t is S.Field:
        return 1 + count(node.obj)
    if t is S.Call:
        return 1 + sum(count(a) for a in node.args)
    if t is S.Let:
        return 1 + sum(1 + count(e.value) if let_assign(e) else count(e) for e in node.body)
    return 1
