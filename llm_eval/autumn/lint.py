"""What ``autumn check`` refuses although the reference runs it, and what it only warns of.

The interpreter reads a program exactly as the reference does, so that frames match (docs/spec/autumn.md
15.1): ``3.5`` is 3 (Q14), and ``if`` takes its then-branch for anything but ``false`` and the
empty list, so ``(if 0 ...)``, ``(if "no" ...)`` and ``(if left ...)`` always do (Q12, 5.2).
A program written that way almost never means it, and nothing at run time says so; the checker
does, with the line and column:

- a number literal that is not a whole decimal integer (``3.5``, ``1e5``, ``0x10``, ``2x``):
  ``AutumnCheckError``, since the program runs something other than what it says;
- an ``if`` whose condition is known before the program runs not to be a Bool (a number, a
  string, a list literal, a lambda, arithmetic, or a built-in function named without calling
  it): ``AutumnCheckError``;
- a colour name outside the palette of docs/spec/autumn.md 16: ``AutumnCheckWarning``, since Autumn
  accepts any string as a colour (16) and only the benchmark's indexing misses it.

``on`` conditions need no rule here: a non-Bool one is an error at run time already (3.5),
which the checker's trial tick reports.
"""

from __future__ import annotations

import difflib

from ..errors import AutumnCheckError, AutumnCheckWarning, AutumnError
from ..quoting import quote
from . import syntax as S
from .builtins import NATIVE_ORDER
from .colours import MASK_NAME, PALETTE_NAMES
from .reader import SList, first_tokens

__all__ = ["lint"]

_ARITHMETIC = frozenset("+ - * / %".split())
_PALETTE = frozenset(PALETTE_NAMES)


def lint(items: list, statements: list, stdlib: list, path: str | None) -> list[AutumnError]:
    """The problems above: ``items`` is what the reader read, ``statements`` the parsed
    program, ``stdlib`` the parsed standard library (whose functions ``if`` may name)."""
    problems: list[AutumnError] = list(_inexact_numbers(items, path))
    functions = _function_names(stdlib) - S.rebound_names(statements)
    for node in S.walk(statements):
        if isinstance(node, S.If):
            problem = _constant_condition(node.cond, functions, path)
            if problem is not None:
                problems.append(problem)
        for colour in _colour_literals(node):
            problem = _unknown_colour(colour, path)
            if problem is not None:
                problems.append(problem)
    return problems


def _inexact_numbers(items: list, path: str | None):
    """Number atoms the first-token rule reads as something shorter than they are."""
    stack = list(items)
    while stack:
        sx = stack.pop()
        if isinstance(sx, SList):
            stack.extend(sx.items)
            continue
        if sx.is_string or not sx.text or not (sx.text[0].isdigit() or sx.text[0] == "-"):
            continue
        tokens = first_tokens(sx.text, 2)
        sign = ""
        if tokens and tokens[0].kind == "op" and tokens[0].text == "-":
            if len(tokens) < 2 or tokens[1].kind != "num":
                continue
            sign, tokens = "-", tokens[1:]
        if not tokens or tokens[0].kind != "num":
            continue
        number = tokens[0]
        if sign + number.text == sx.text and "." not in number.text:
            continue
        if number.value is None or number.value > 2147483647:
            continue   # too large: the parser's own error says so
        read_as = f"{sign}{number.value}"
        yield AutumnCheckError(
            f"the number {quote(sx.text)} is read as {read_as}: Autumn numbers are 32-bit "
            f"integers and only the leading digits count (docs/spec/autumn.md 2.2); write {read_as} if "
            "that is what you mean", line=sx.line, column=sx.column, path=path)


def _function_names(stdlib: list) -> set[str]:
    names = {n for n in NATIVE_ORDER if n != "GRID_SIZE"}
    for stmt in stdlib:
        if (isinstance(stmt, S.ExprStmt) and isinstance(stmt.expr, S.Assign)
                and isinstance(stmt.expr.value, S.Lambda)):
            names.add(stmt.expr.name)
    return names


def _constant_condition(cond: S.Node, functions: set[str], path: str | None):
    t = type(cond)
    always = "true"
    if t is S.Num or (t is S.Bin and cond.op in _ARITHMETIC) or (
            t is S.Unary and cond.op in "+-"):
        what = "a Number"
    elif t is S.Str:
        what = "a String"
    elif t is S.ListLit:
        what = "a list literal"
        always = "true" if cond.items else "false (the list is empty)"
    elif t is S.Lambda:
        what = "a function"
    elif t is S.Var and cond.name in functions:
        return AutumnCheckError(
            f"this if's condition is the function '{cond.name}' itself, which is always true, "
            f"so the then-branch is always taken (docs/spec/autumn.md 5.2): call it with "
            f"(({cond.name})) or pass its arguments", line=cond.line, column=cond.column,
            path=path)
    else:
        return None
    branch = "then" if always == "true" else "else"
    return AutumnCheckError(
        f"this if's condition is {what}, not a Bool: Autumn takes it as always {always}, so "
        f"the {branch}-branch is always taken (docs/spec/autumn.md 5.2); write a comparison such as "
        "(== x 0)", line=cond.line, column=cond.column, path=path)


def _colour_literals(node: S.Node):
    """String literals that a node uses as a colour: a Cell's third argument, a
    RenderedElem's second, the value given to ``background``; through ``if`` branches."""
    if isinstance(node, S.Call) and isinstance(node.fn, S.Var):
        if node.fn.name == "Cell" and len(node.args) == 3:
            roots = [node.args[2]]
        elif node.fn.name == "RenderedElem" and len(node.args) == 2:
            roots = [node.args[1]]
        else:
            return
    elif isinstance(node, S.Assign) and node.name == "background":
        roots = [node.value]
    else:
        return
    while roots:
        expr = roots.pop()
        if isinstance(expr, S.Str):
            yield expr
        elif isinstance(expr, S.If):
            roots.extend((expr.then, expr.other))


def _unknown_colour(colour: S.Str, path: str | None):
    name = colour.text.lower()
    if name in _PALETTE:
        return None
    if name == MASK_NAME:
        detail = "it is the mask of hidden cells (index 0), so a drawn cell reads as hidden"
    else:
        near = difflib.get_close_matches(name, PALETTE_NAMES, n=1)
        detail = ("Autumn draws it, but the benchmark has no index for it"
                  + (f"; did you mean '{near[0]}'?" if near else ""))
    return AutumnCheckWarning(f"colour {quote(colour.text)} is not in the palette of "
                              f"docs/spec/autumn.md 16: {detail}", line=colour.line,
                              column=colour.column, path=path)
