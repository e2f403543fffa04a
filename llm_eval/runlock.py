"""One writer per run directory: a lock held for a run's whole life.

``hold_run_dir(run_dir)`` takes an exclusive ``flock`` on ``RUN_DIR/run.lock`` and writes
who holds it into the file (pid, host, start time, command) for as long as the block runs. The
operating system drops the lock when the process ends, however it ends (SIGKILL included), so
a lock is never stale. A second writer (another ``llm-eval run``, ``--resume`` or ``demo`` on
the same directory) is refused at once with ``RunDirBusy`` naming the holder; the command line
makes it exit 2, like other usage errors.

Within one process the lock is re-entrant for the thread that holds it (``resume`` holds it
while each of its runs takes it again), and refused to any other thread. Readers (``report``,
``replay``, ``compare``) take no lock: they open the run store read-only.

The lock file is left in place when released (emptied): removing it would let a writer that
opened the old file lock it while another locks a new one.
"""

from __future__ import annotations

import json
import os
import shlex
import socket
import sys
import threading
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from .runstore import RunStoreError

__all__ = ["hold_run_dir", "RunDirBusy", "LOCK_FILE", "lock_holder"]

LOCK_FILE = "run.lock"

_held: dict[Path, list] = {}   # lock path -> [fd, owning thread id, depth]
_guard = threading.Lock()


class RunDirBusy(RunStoreError):
    """Another process (or another thread of this one) is writing to the run directory."""


def _describe(holder: dict[str, Any] | None) -> str:
    if not holder:
        return "a process that has not said who it is yet"
    parts = [f"pid {holder.get('pid', '?')} on {holder.get('host', '?')}"]
    if holder.get("started_at"):
        parts.append(f"since {holder['started_at']}")
    if holder.get("command"):
        parts.append(f"running: {holder['command']}")
    return ", ".join(parts)


def lock_holder(run_dir: str | Path) -> dict[str, Any] | None:
    """Who holds (or last held) ``run_dir``'s lock, as written in the lock file; None when
    the file is missing, empty or being written."""
    try:
        text = (Path(run_dir) / LOCK_FILE).read_text(encoding="utf-8")
        return json.loads(text) if text.strip() else None
    except (OSError, ValueError):
        return None


@contextmanager
def hold_run_dir(run_dir: str | Path) -> Iterator[Path]:
    """Hold the writer's lock of ``run_dir`` (created if missing) while the block runs (module
    docstring); ``RunDirBusy`` if another writer holds it."""
    import fcntl

    run_dir = Path(run_dir)
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RunStoreError(f"{run_dir}: cannot make the run directory: "
                            f"{exc.strerror or exc}") from None
    path = (run_dir / LOCK_FILE).resolve()
    me = threading.get_ident()
    with _guard:
        entry = _held.get(path)
        if entry is not None:
            if entry[1] != me:
                raise RunDirBusy(f"{run_dir}: another thread of this process (pid "
                                 f"{os.getpid()}) is writing to this run directory")
            entry[2] += 1
        else:
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
            except OSError as exc:   # e.g. a read-only directory: nothing can be run there
                raise RunStoreError(f"{run_dir}: cannot write to the run directory "
                                    f"({exc.strerror or exc}); a run needs to write its "
                                    f"store and transcripts there") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                raise RunDirBusy(f"{run_dir}: another llm-eval is writing to this run "
                                 f"directory ({_describe(_holder_when_written(run_dir))}); "
                                 f"wait for it to end, or stop it and finish its jobs with "
                                 f"llm-eval run --resume {run_dir}") from None
            holder = {"pid": os.getpid(), "host": socket.gethostname(),
                      "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                      "command": shlex.join([Path(sys.argv[0]).name, *sys.argv[1:]])
                      if sys.argv and sys.argv[0] else "python"}
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(holder) + "\n").encode("utf-8"), 0)
            entry = _held[path] = [fd, me, 1]
    try:
        yield path
    finally:
        with _guard:
            entry[2] -= 1
            if entry[2] == 0:
                del _held[path]
                try:
                    os.ftruncate(entry[0], 0)
                finally:
                    os.close(entry[0])   # closing drops the lock


def _holder_when_written(run_dir: Path) -> dict[str, Any] | None:
    """The holder as written; a writer that has just taken the lock may not have written it
    yet, so look again a few times."""
    for _ in range(10):
        holder = lock_holder(run_dir)
        if holder:
            return holder
        time.sleep(0.02)
    return None
