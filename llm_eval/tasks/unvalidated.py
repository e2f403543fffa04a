"""Tasks imported without validation (``tasks import ... --validate later``).

Validating a large import can take a while, so an import may skip it. The task files are then
written as usual, and the directory gets a file ``UNVALIDATED`` listing the ids of its tasks not
validated yet, one a line (not ``*.json``, so no task loader reads it as a task). ``llm-eval
tasks validate --tasks DIR`` validates them and takes each validated id off the list (the file
goes when the list is empty). ``run`` and ``episode`` on such a task print a warning naming the
command that validates it; they do not refuse: an imported task that *fails* validation runs
too (validation findings are reported, never fatal), so a task not yet validated, which may
well pass, is not held to a stricter rule than one known to fail.
"""

from __future__ import annotations

from pathlib import Path

from ..atomic import write_atomic

__all__ = ["MARKER", "mark", "unmark", "pending", "warnings_for_paths", "warning_for_task"]

MARKER = "UNVALIDATED"
_HEADER = ("# task ids imported with --validate later and not validated yet; "
           "llm-eval tasks validate --tasks DIR validates them\n")


def pending(directory: str | Path) -> list[str]:
    """The ids listed as not validated in ``directory`` (empty when it has no list)."""
    path = Path(directory) / MARKER
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [line.strip() for line in text.splitlines()
            if line.strip() and not line.startswith("#")]


def mark(directory: str | Path, task_ids: list[str]) -> None:
    """Add ``task_ids`` to ``directory``'s list of tasks not validated yet."""
    ids = sorted(set(pending(directory)) | set(task_ids))
    _write(Path(directory), ids)


def unmark(directory: str | Path, task_ids: list[str]) -> None:
    """Take ``task_ids`` off the list (validated); the file goes when none is left."""
    ids = [i for i in pending(directory) if i not in set(task_ids)]
    _write(Path(directory), ids)


def _write(directory: Path, ids: list[str]) -> None:
    path = directory / MARKER
    if ids:
        write_atomic(path, _HEADER + "".join(f"{i}\n" for i in ids))
    elif path.exists():
        path.unlink()


def _message(directory: str, ids: list[str]) -> str:
    return (f"{directory}: {len(ids)} task(s) imported with --validate later and not "
            f"validated ({', '.join(ids)}); their scores may mean nothing until "
            f"'llm-eval tasks validate --tasks {directory}' has checked them")


def warnings_for_paths(paths) -> list[str]:
    """One warning line per task directory (or a task file's directory) in ``paths`` that
    lists tasks not validated (for ``run --tasks``)."""
    out = []
    for path in paths:
        path = Path(path)
        directory = path if path.is_dir() else path.parent
        ids = pending(directory)
        if path.is_file():
            ids = [i for i in ids if i == path.stem]
        if ids:
            out.append(_message(str(path if path.is_dir() else directory), ids))
    return out


def warning_for_task(task) -> str | None:
    """The warning for one loaded task (for ``episode``), or None when it is not listed."""
    root = getattr(task, "root", None)
    if root is None or task.id not in pending(root):
        return None
    return _message(root, [task.id])
