"""A Python file outside any package (a benchmark script, another test module, a tool) loaded as
a module, for tests that call its functions."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]


def load_script(path: Path, name: str, *, modules: dict | None = None) -> ModuleType:
    """The file at ``path`` executed as a module named ``name``, put in ``modules`` first if
    given (a script defining dataclasses needs to be in ``sys.modules`` while it runs: pass a
    ``monkeypatch``-ed table so it leaves again), else in no table."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    if modules is not None:
        modules[name] = module
    spec.loader.exec_module(module)
    return module
