"""No import cycles among the modules of ``llm_eval``: a module never imports, at module level
or inside a function, a module that imports it back, directly or through others.

The module graph is the layering contract's (tests/test_layers.py: ``modules`` and ``imports``,
deferred imports included); an import under ``if TYPE_CHECKING:`` never runs, so it is left
out (annotations may name each other both ways). Importing ``P.m`` also runs ``P``'s
``__init__``: that implicit step is not an edge, or every facade that imports its own modules
would be a cycle. A cycle is a strongly connected component of more than one module. The
cycles not yet broken are listed in ``KNOWN_CYCLES``: a new one fails, and so does one that
is gone, so that the list shrinks with the code.
"""

from __future__ import annotations

import ast
from pathlib import Path

from test_layers import ROOTS, imports, modules

#: Cycles still to break, each the set of its modules: none (the last two, scheduler <->
#: ray_executor and the worldtest protocols' knot, were broken after this test was written).
KNOWN_CYCLES: frozenset[frozenset[str]] = frozenset()

#: Packages whose cycles were broken (issue "One house with checked walls"): none may return.
CYCLE_FREE = ("llm_eval.agents", "llm_eval.autumn", "llm_eval.cli", "llm_eval.sweep",
              "llm_eval.worldtest")


def _type_checking_lines(path: Path) -> set[int]:
    """The lines of the statements under ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``)."""
    lines: set[int] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.If) and (
                (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
                or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING")):
            for statement in node.body:
                lines.update(range(statement.lineno, (statement.end_lineno or 0) + 1))
    return lines


def module_graph(roots=ROOTS) -> dict[str, set[str]]:
    """Each module of the package and the modules of the package it imports (not under
    ``TYPE_CHECKING``)."""
    everything = list(modules(roots))
    known = {module for module, _ in everything}
    graph: dict[str, set[str]] = {module: set() for module in known}
    for module, path in everything:
        skipped = _type_checking_lines(path)
        graph[module] = {target for line, target in imports(module, path, known)
                         if line not in skipped and target in known and target != module}
    return graph


def cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, with
    an explicit stack: no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.add(frozenset(component))
    return found


def _describe(found) -> list[str]:
    return sorted(", ".join(sorted(component)) for component in found)


def test_no_import_cycle_but_the_known_ones():
    found = cycles(module_graph())
    assert _describe(found - KNOWN_CYCLES) == [], "new import cycles"
    assert _describe(KNOWN_CYCLES - found) == [], "gone: remove them from KNOWN_CYCLES"


def test_the_broken_cycles_stay_broken():
    in_cycles = {module for component in cycles(module_graph()) for module in component}
    assert sorted(m for m in in_cycles if m.startswith(CYCLE_FREE)) == []


def test_a_planted_cycle_is_found_deferred_or_not(tmp_path):
    """A two-module cycle closed inside a function, a three-module one through relative,
    absolute and star imports, and a back edge under ``TYPE_CHECKING``, which makes none."""
    pkg = tmp_path / "llm_eval"
    (pkg / "low").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "low" / "__init__.py").write_text("from .a import f\n")
    (pkg / "low" / "a.py").write_text("from llm_eval.low import b\ndef f():\n    pass\n")
    (pkg / "low" / "b.py").write_text("def g():\n    from .a import f\n    return f\n")
    (pkg / "x.py").write_text("from . import y\n")
    (pkg / "y.py").write_text("import llm_eval.z\n")
    (pkg / "z.py").write_text("from .x import *\n")
    (pkg / "typed.py").write_text("from typing import TYPE_CHECKING\nfrom . import hinted\n"
                                  "if TYPE_CHECKING:\n    from .x import y\n")
    (pkg / "hinted.py").write_text("import typing\nif typing.TYPE_CHECKING:\n"
                                   "    from .typed import T\n")
    found = cycles(module_graph({"llm_eval": pkg}))
    assert found == {frozenset({"llm_eval.low.a", "llm_eval.low.b"}),
                     frozenset({"llm_eval.x", "llm_eval.y", "llm_eval.z"})}
    (pkg / "low" / "b.py").write_text("def g():\n    return 1\n")
    assert cycles(module_graph({"llm_eval": pkg})) == {
        frozenset({"llm_eval.x", "llm_eval.y", "llm_eval.z"})}
