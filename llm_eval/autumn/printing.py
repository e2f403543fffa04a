"""Printed forms of values, as the reference's ``evaluate_to_string`` shows them (docs/spec/autumn.md 5.5)."""

from __future__ import annotations

from .syntax import print_node
from .values import AList, BoundRender, Builtin, CellThunk, CellV, Lambda, Obj, Pos, RElem

__all__ = ["print_value"]


def print_value(v) -> str:
    c = v.__class__
    if c is bool:
        return f"({'true' if v else 'false'}: Bool)"
    if c is int:
        return f"({v}: N)"
    if c is str:
        return f'("{v}": S)'
    if c is AList:
        return "([" + ", ".join(print_value(x) for x in v) + "] :" + v.tag + ")"
    if c is Pos:
        return f"Position{{x: {print_value(v.x)},y: {print_value(v.y)}}}"
    if c is RElem:
        return (f"RenderedElem{{position: {print_value(v.position)},"
                f"color: {print_value(v.color)}}}")
    if c is CellV:
        return (f"Cell{{x: ({print_node(v.nx)}: Expr),y: ({print_node(v.ny)}: Expr),"
                f"color: ({print_node(v.nc)}: Expr)}}")
    if c is Obj:
        inner = ",".join(f"{k}: {print_value(x)}" for k, x in v.fields.items())
        return f"{v.cls.name}{{{inner}}}\tMethods: render"
    if c is Builtin:
        return f"<native fn: {v.name}>"
    if c in (Lambda, BoundRender, CellThunk):
        return "<native fn: lambda>"
    return f"<{type(v).__name__}>"
