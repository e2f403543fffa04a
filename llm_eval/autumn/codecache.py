"""The fused tier's generated code, kept on disk between processes.

Loading a program generates one Python function per fusible operator tree (``fuse.py``) and
compiles it with Python's ``compile()``. A process keeps what it compiled in memory, so a reset
costs milliseconds; but every new process (each command, each worker of a sweep or of
validation, each test worker) compiled every world it loaded again: 0.2 to 0.4 s of CPU a
world, half of it ``compile()``. This cache keeps each compiled function's code object on disk,
as Python keeps a module's bytecode in ``__pycache__``, so a later process only generates the
source and reads the code back.

- **Key**: the SHA-256 of the generated source text and of the Python version's bytecode magic
  number. Code depends on nothing else, so an entry can never be stale: a change to the
  generator or to a program gives another source and another key.
- **Where**: ``$LLM_EVAL_CODE_CACHE`` if set (``off`` turns the cache off), else
  ``$XDG_CACHE_HOME/llm_eval/code`` or ``~/.cache/llm_eval/code``; one small file an entry in
  256 subfolders.
- **Safety**: an entry is written to a temporary file and renamed into place, so a reader
  never sees half of one, and processes may share the folder. An entry that cannot be read
  back as a code object (a damaged file) is compiled again and rewritten. A folder that cannot
  be written (read-only, full) only costs the compile: the cache stops trying for this process.
  Nothing a program computes depends on the cache: the code read back is the code
  ``compile()`` returns for that source.
"""

from __future__ import annotations

import hashlib
import importlib.util
import marshal
import os
import tempfile
import types
from pathlib import Path

from ..cachedirs import cache_folder

__all__ = ["ENV", "compile_function", "cache_dir"]

ENV = "LLM_EVAL_CODE_CACHE"
_MAGIC = importlib.util.MAGIC_NUMBER
_broken_dirs: set[Path] = set()    # folders this process failed to write: not tried again


def cache_dir() -> Path | None:
    """The cache folder (None when ``LLM_EVAL_CODE_CACHE=off``)."""
    return cache_folder(ENV, "code")


def compile_function(source: str, filename: str) -> types.CodeType:
    """The code object of the one function ``source`` defines (``compile()``'s, or the same
    read back from the cache). Raises what ``compile()`` raises for bad source."""
    folder = cache_dir()
    if folder is None:
        return _compile(source, filename)
    digest = hashlib.sha256(_MAGIC + source.encode("utf-8")).hexdigest()
    path = folder / digest[:2] / digest[2:]
    code = _read(path)
    if code is not None and code.co_filename == filename:
        return code
    code = _compile(source, filename)
    if folder not in _broken_dirs:
        try:
            _write(path, marshal.dumps(code))
        except OSError:
            _broken_dirs.add(folder)
    return code


def _compile(source: str, filename: str) -> types.CodeType:
    module = compile(source, filename, "exec")
    return next(c for c in module.co_consts if isinstance(c, types.CodeType))


def _read(path: Path) -> types.CodeType | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        code = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return None
    return code if isinstance(code, types.CodeType) else None


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
