"""Public names of a package loaded on first use (PEP 562), so that importing a package, or
one light module in it (a command's parser), does not import every module it re-exports.

In a package's ``__init__.py``::

    __getattr__, __dir__ = lazy_exports(__name__, {"Sweep": ".spec", "run_sweep": ".scheduler"})

``from package import Sweep`` and ``package.Sweep`` work as before; the module is imported
the first time one of its names is asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, names: dict[str, str]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: each of ``names`` comes from its
    module (relative to the package) when first read, then stays a module global."""
    namespace = importlib.import_module(package).__dict__

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *names})

    return __getattr__, __dir__
