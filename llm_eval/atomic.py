"""Writing files atomically: a reader sees the old file or the new one, never half of one.

``write_atomic(path, data)`` and ``atomic_open(path)`` write to a temporary file in the same
directory (``.<name>.<random>.tmp``), flush it to disk and rename it over ``path``
(``os.replace``, atomic on POSIX), so a crash, a kill or a full disk leaves the old file (or
none) and at worst a stray temporary file, never a torn one. A new file gets the usual
permissions (0666 less the umask), an existing one keeps its own; ``private=True`` makes the
file owner-only (0600) from its first byte (secrets: the temporary file is never readable by
others, not even before the rename). A target that exists and is
not a regular file (``/dev/stdout``, a FIFO) is written in place: it cannot be replaced.

Every file llm_eval writes whole goes through here: reports, plots, specs copied into a run
directory, task files, recordings, ``--calls`` files, rendered frames. Streamed files (a
running job's transcript) are appended to instead, and never truncated.
"""

from __future__ import annotations

import os
import secrets
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator

__all__ = ["write_atomic", "atomic_open"]


def write_atomic(path: str | os.PathLike, data: str | bytes, *, encoding: str = "utf-8",
                 private: bool = False) -> Path:
    """Write ``data`` (text in ``encoding``, or bytes) to ``path`` atomically; returns it.
    ``private``: owner-only (0600) throughout (module docstring)."""
    with atomic_open(path, "wb", private=private) as out:
        out.write(data.encode(encoding) if isinstance(data, str) else data)
    return Path(path)


@contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", *,
                encoding: str | None = "utf-8", private: bool = False) -> Iterator[IO]:
    """A file to write ``path`` through (``mode`` ``"w"`` or ``"wb"``): what is written
    replaces ``path`` when the block ends, and nothing does if it raises."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open writes a whole file: mode 'w' or 'wb', not {mode!r}")
    target = Path(path)
    if mode == "wb":   # bytes: no encoding
        encoding = None
    try:
        existing = target.stat()
    except FileNotFoundError:
        existing = None
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        with open(target, mode, encoding=encoding) as out:   # a device or FIFO: write through it
            yield out
        return
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                     | getattr(os, "O_CLOEXEC", 0), 0o600 if private else 0o666)
    except OSError as exc:   # name the file asked for, not the temporary one
        raise type(exc)(exc.errno, exc.strerror, str(target)) from None
    try:
        with open(fd, mode, encoding=encoding) as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        if private:
            os.chmod(temporary, 0o600)
        elif existing is not None:
            os.chmod(temporary, stat.S_IMODE(existing.st_mode))
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise
