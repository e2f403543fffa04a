"""The error tree is drawn once, in ``llm_eval/errors.py``'s docstring, and the drawing is the
real tree: every exception class defined in the package, under its base, with its module. A
class added, moved or re-based anywhere without redrawing fails here."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import llm_eval
from llm_eval import errors

# a child process's entry point: importing it runs the child (it reads its own argv)
NOT_IMPORTABLE = {"llm_eval.agent_tools.sandbox_child"}


def package_exceptions() -> set[type[BaseException]]:
    found: set[type[BaseException]] = set()
    for info in pkgutil.walk_packages(llm_eval.__path__, "llm_eval."):
        if info.name in NOT_IMPORTABLE:
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (inspect.isclass(value) and issubclass(value, BaseException)
                    and value.__module__.startswith("llm_eval")):
                found.add(value)
    return found


def _label(cls: type) -> str:
    return f"{cls.__name__} ({cls.__module__.removeprefix('llm_eval.')})"


def draw(classes: set[type[BaseException]]) -> list[str]:
    """One line per class, indented two spaces per level under its first base in the set;
    a class whose bases are all outside the package hangs from them (``Exception``,
    ``ValueError``, ...), named at the top level."""
    lines: list[str] = []

    def children(parent: type | None) -> list[type]:
        kids = [c for c in classes
                if (next((b for b in c.__bases__ if b in classes), None) is parent)]
        return sorted(kids, key=lambda c: (c.__module__, c.__name__))

    def walk(cls: type, depth: int) -> None:
        extra = [b.__name__ for b in cls.__bases__[1:]]
        also = f", also {', '.join(extra)}" if extra else ""
        lines.append("  " * depth + _label(cls) + also)
        for kid in children(cls):
            walk(kid, depth + 1)

    roots = children(None)
    for base in sorted({c.__bases__[0].__qualname__ for c in roots},
                       key=lambda n: (n != "Exception", n)):
        lines.append(base)
        for root in (r for r in roots if r.__bases__[0].__qualname__ == base):
            walk(root, 1)
    return lines


def drawn() -> list[str]:
    text = errors.__doc__ or ""
    block = re.search(r"```\n(.*?)```", text, re.S)
    assert block, "llm_eval/errors.py's docstring has no drawing of the tree"
    return [line.rstrip() for line in block.group(1).splitlines()]


def test_the_drawing_is_the_real_tree():
    assert drawn() == draw(package_exceptions()), "\n".join(draw(package_exceptions()))


def test_a_class_the_drawing_does_not_show_fails():
    class OffTheTree(errors.LlmEvalError):   # planted: defined outside the drawing
        pass

    OffTheTree.__module__ = "llm_eval.planted"
    assert drawn() != draw(package_exceptions() | {OffTheTree})
    moved = package_exceptions()
    assert drawn() != draw({c for c in moved if c is not errors.TaskFileError})
