"""Validation reports kept between runs: a shipped task whose inputs have not changed since its
report was computed is not validated again.

A report is a pure function of its task, the programs the task runs, the checks' code and the
effort (``validate.py``: every random choice is seeded), so it can be kept like a compiled file.
Validating the whole shipped suite takes minutes of CPU; an author who edits one world's program
or task files waits only for that world's tasks, and a ``tasks validate`` interrupted part way
keeps the reports it had printed.

- **Key**: the SHA-256 of the task's file as JSON, the texts of the world's program and
  metadata and (a change-detection task) of its modified program, the effort's fields, the
  Python version, and a digest of every Python source file and ``.sexp`` file of the installed
  ``llm_eval`` package (the checks, the interpreter, the oracle, the Autumn standard library).
  Any change to any of them gives another key: an entry is never stale, it is only unused.
- **Where**: ``$LLM_EVAL_REPORT_CACHE`` if set (``off``: no cache), else
  ``$XDG_CACHE_HOME/llm_eval/reports`` or ``~/.cache/llm_eval/reports``; one JSON file an entry.
- **Visible**: ``tasks validate`` says how many reports it reused and where from, and
  ``--no-cache`` validates every task again (and keeps the new reports). An entry that cannot
  be read back, or holds another task's report, is an error naming the file, never a report
  taken on trust or a silent revalidation.
"""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..atomic import write_atomic
from ..cachedirs import cache_folder
from ..errors import LlmEvalError
from ..worlds import world_spec
from .validate import Check, Effort, TaskReport

__all__ = ["ENV", "ReportCacheError", "cache_dir", "task_key", "load", "store",
           "report_from_dict", "validate_kept", "kept_or_validated"]

ENV = "LLM_EVAL_REPORT_CACHE"
_FORMAT = 1


class ReportCacheError(LlmEvalError):
    """A cache entry that cannot be used (damaged, or another task's)."""


def cache_dir() -> Path | None:
    """The cache folder (None when ``LLM_EVAL_REPORT_CACHE=off``)."""
    return cache_folder(ENV, "reports")


@functools.cache
def code_digest() -> str:
    """A digest of the installed package's Python and Autumn sources (names and contents)."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256(f"{sys.version_info[0]}.{sys.version_info[1]}".encode())
    for path in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".sexp")
                       and "__pycache__" not in p.parts):
        h.update(str(path.relative_to(root)).encode("utf-8") + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


def task_key(task, effort: Effort) -> str:
    """The key of ``task``'s report under ``effort`` (module docstring)."""
    from .trajectory import changed_program_text

    spec = world_spec(task.world)
    parts = [f"format {_FORMAT}", code_digest(),
             json.dumps(task.model_dump(mode="json"), sort_keys=True),
             spec.program_text(), Path(spec.metadata_path).read_text(encoding="utf-8"),
             json.dumps(asdict(effort), sort_keys=True)]
    if task.family == "cd":
        parts.append(changed_program_text(task.hidden.program))
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8") + b"\0")
    return h.hexdigest()


def _path(folder: Path, key: str) -> Path:
    return folder / f"{key}.json"


def report_from_dict(data: dict[str, Any]) -> TaskReport:
    """The ``TaskReport`` whose ``to_dict()`` is ``data``."""
    checks = tuple(Check(c["name"], c["passed"], c["figures"], c["detail"], c["skipped"])
                   for c in data["checks"])
    return TaskReport(data["task"], data["world"], data["family"], checks)


def load(folder: Path, task, key: str) -> TaskReport | None:
    """The kept report of ``task`` under ``key``, or None when there is none."""
    path = _path(folder, key)
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None    # none kept (a folder that cannot exist is said when a report is kept)
    except OSError as exc:
        raise ReportCacheError(f"{path}: cannot be read ({type(exc).__name__}: {exc}); "
                               "run with --no-cache, or LLM_EVAL_REPORT_CACHE=off") from None
    try:
        entry = json.loads(text)
        report = report_from_dict(entry["report"])
    except (ValueError, KeyError, TypeError) as exc:
        raise ReportCacheError(f"{path}: not a validation report ({type(exc).__name__}: "
                               f"{exc}); delete the file, or run with --no-cache") from None
    if entry.get("key") != key or report.task != task.id:
        raise ReportCacheError(f"{path}: holds the report of {report.task!r} (key "
                               f"{str(entry.get('key'))[:12]}), not of {task.id!r}; delete the "
                               "file, or run with --no-cache")
    return report


def store(folder: Path, key: str, report: TaskReport) -> Path:
    """Keep ``report`` under ``key`` (written atomically: a reader never sees half of it)."""
    folder.mkdir(parents=True, exist_ok=True)
    entry = {"format": _FORMAT, "key": key, "report": report.to_dict()}
    # the figures keep their order: a reused report prints as it did when it was made
    return write_atomic(_path(folder, key), json.dumps(entry) + "\n")


def validate_kept(tasks, effort: Effort, processes: int, *, folder: Path | None,
                  refresh: bool = False):
    """``validate_in_processes`` through the cache in ``folder`` (None: no cache): yields
    ``(report, reused, not_kept)`` in the order of ``tasks``: the kept report where its key has
    one (unless ``refresh``), else a new one, kept as soon as it is made (``not_kept``: why it
    could not be written, or None). Every kept entry is read before any validation starts, so a
    damaged one stops the command at once (``ReportCacheError``)."""
    from .validate import validate_in_processes

    tasks = list(tasks)
    if folder is None:
        for report in validate_in_processes(tasks, effort, processes):
            yield report, False, None
        return
    keys = [task_key(t, effort) for t in tasks]
    kept = [None if refresh else load(folder, t, k) for t, k in zip(tasks, keys)]
    fresh = validate_in_processes([t for t, r in zip(tasks, kept) if r is None], effort,
                                  processes)
    for key, found in zip(keys, kept):
        if found is not None:
            yield found, True, None
            continue
        report = next(fresh)
        yield report, False, _keep(folder, key, report)


def kept_or_validated(task, effort: Effort, folder: Path | None, *, refresh: bool = False):
    """``(report, reused, not_kept)`` of one task, as ``validate_kept`` gives them, validated
    here (``validate_task``) when no report is kept for it."""
    from . import validate

    if folder is None:
        return validate.validate_task(task, effort), False, None
    key = task_key(task, effort)
    found = None if refresh else load(folder, task, key)
    if found is not None:
        return found, True, None
    report = validate.validate_task(task, effort)
    return report, False, _keep(folder, key, report)


def _keep(folder: Path, key: str, report: TaskReport) -> str | None:
    """``store``; why it could not (a folder that cannot be made or written), or None."""
    try:
        store(folder, key, report)
    except OSError as exc:
        return f"{type(exc).__name__}: {exc}"
    return None
