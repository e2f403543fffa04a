"""The Autumn interpreter: reference-compatible, deterministic, pure and synchronous.

Read (``reader``) -> parse (``syntax``) -> compile to closures (``compiler``) -> run
(``runtime``, ``builtins``, the Autumn-language stdlib in ``stdlib.sexp``). The host API is
``Interpreter`` (docs/spec/autumn.md 14); ``check_program`` reports every problem of a program.
"""

from .check import check_program
from .frame import Frame
from .interpreter import STDLIB, Coverage, Interpreter

__all__ = ["Interpreter", "Frame", "Coverage", "STDLIB", "check_program"]
