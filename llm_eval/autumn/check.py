"""``check_program``: read and check a program, reporting every problem with its position."""

from __future__ import annotations

import functools

from ..errors import AutumnCheckWarning, AutumnError
from ..quoting import quote
from . import syntax as S
from .builtins import NATIVE_ORDER
from .interpreter import STDLIB, Interpreter, guard
from .lint import lint
from .reader import read

__all__ = ["check_program"]

_HOST_NAMES = {"click", "cacheRendered", "SpecialConditionTriggered", "e"}


def check_program(text: str, *, path: str | None = None, seed: int = 1) -> list[AutumnError]:
    """Every problem found, by position: syntax errors (all statements), names defined
    nowhere, text the reference runs but not as it reads (``lint``: ``AutumnCheckError``, and
    ``AutumnCheckWarning`` for colours outside the palette), then a trial load and one tick.
    An empty list, or one of warnings only, means the program loads and runs a tick."""
    problems: list[AutumnError] = []
    try:
        with guard(path):   # as when running: nesting too deep for Python is a limit error
            statements = S.parse_statements(text, path, collect=problems)
            if not problems:
                problems.extend(lint(read(text, path), statements, _stdlib(), path))
    except AutumnError as e:
        return [e]
    problems.extend(_undefined_names(statements, path))
    problems.sort(key=lambda e: (e.line or 0, e.column or 0))
    warnings = [p for p in problems if isinstance(p, AutumnCheckWarning)]
    if len(warnings) < len(problems):
        return problems
    it = Interpreter()
    try:
        it.run_script(text, seed=seed, path=path)
    except AutumnError as e:
        return [e]
    try:
        it.step()
        it.render_frame()
    except AutumnError as e:
        e.message = f"in the first tick: {e.message}"
        return [e]
    return warnings


@functools.lru_cache(maxsize=1)
def _stdlib() -> tuple:
    return tuple(S.parse_statements(STDLIB, "<stdlib>"))


def _stdlib_names() -> set[str]:
    names = set()
    for stmt in _stdlib():
        if isinstance(stmt, S.ExprStmt) and isinstance(stmt.expr, S.Assign):
            names.add(stmt.expr.name)
    return names


def _undefined_names(statements, path) -> list[AutumnError]:
    """Names that no definition, parameter or assignment anywhere could ever bind."""
    known = set(NATIVE_ORDER) | _stdlib_names() | _HOST_NAMES
    known |= {"Position", "Cell", "RenderedElem", "Bool", "String", "Number", "Int"}
    uses: list[S.Var] = []
    for stmt in statements:
        if isinstance(stmt, S.ObjectDecl):
            known.add(stmt.name)
            known.update(n for n, _ in stmt.fields)
            known.update({"origin", "elems"})
            roots = [stmt.cell]
        elif isinstance(stmt, S.OnDecl):
            roots = [stmt.cond, stmt.body]
        else:
            roots = [stmt.expr]
        stack = list(roots)
        while stack:
            node = stack.pop()
            if isinstance(node, S.Var):
                uses.append(node)
            elif isinstance(node, (S.Assign, S.Annot)):
                known.add(node.name)
            elif isinstance(node, S.Lambda):
                known.update(node.params)
            for slot in getattr(type(node), "__slots__", ()):
                child = getattr(node, slot, None)
                if isinstance(child, S.Node):
                    stack.append(child)
                elif isinstance(child, list):
                    stack.extend(c for c in child if isinstance(c, S.Node))
    seen = set()
    out = []
    for var in uses:
        if var.name not in known and var.name not in seen:
            seen.add(var.name)
            out.append(AutumnError(f"undefined name {quote(var.name)}: nothing in the program "
                                   "defines it", line=var.line, column=var.column, path=path))
    return out
