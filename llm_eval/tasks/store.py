"""The shipped task files: ``llm_eval/tasks/data/<world>-<family>.json``, one per task, and a
suite's own versions of some tasks in ``llm_eval/tasks/data/<suite>/<world>-<family>.json``.

Which file a task of a suite is: the one in the suite's folder if it has one, else the base
file (``task_relpath``). Suite v1 has no folder: its tasks are the base files, frozen. Suite
v2 (``DEFAULT_SUITE``) rebuilt the v1 tasks that are not fair under redrawn dice
(docs/suite-v2.md) into ``data/v2/``, under the same ids, and shares every other file with v1.
Loading without a suite loads the default suite's version.

``load_task("gravity", "planning")`` reads and validates one file; ``all_tasks()`` loads every
shipped task in (world, family) order. A file that is missing, is not JSON, does not validate,
or whose ``id``/``world``/``family`` disagree with its name raises ``TaskFileError`` naming the
file (and the field at fault). The files are package data, found via ``importlib.resources``,
so a non-editable install finds them too.
"""

from __future__ import annotations

import json
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from ..atomic import write_atomic
from .models import FAMILIES, TaskFileError, parse_task

__all__ = ["DATA_PACKAGE", "DEFAULT_SUITE", "task_id", "task_path", "task_relpath", "load_task", "load_task_file", "load_task_dir",
           "load_tasks", "all_tasks", "shipped_task_ids", "dump_task", "write_task"]

DATA_PACKAGE = "llm_eval.tasks"
DATA_DIR = "data"
# the suite loaded when none is named: ``run`` without --suite, the demo, ``tasks validate``
DEFAULT_SUITE = "v2"


def task_id(world: str, family: str) -> str:
    """The id (and file stem) of a task: ``<world>-<family>``."""
    return f"{world}-{family}"


def _data_dir() -> Traversable:
    return resources.files(DATA_PACKAGE).joinpath(DATA_DIR)


def _suite_dir(suite: str | None) -> Traversable | None:
    """The folder of the suite's own task versions (None when it has none, as v1)."""
    name = DEFAULT_SUITE if suite is None else suite
    if not name or "/" in name or "\\" in name or name.startswith("."):
        raise TaskFileError(f"suite {name!r}: not a suite name")
    folder = _data_dir().joinpath(name)
    return folder if folder.is_dir() else None


def _entry(world: str, family: str, suite: str | None) -> tuple[Traversable, str]:
    """The task file of ``world`` x ``family`` in ``suite`` and its path relative to the
    ``llm_eval`` package."""
    name = f"{task_id(world, family)}.json"
    folder = _suite_dir(suite)
    if folder is not None and folder.joinpath(name).is_file():
        return folder.joinpath(name), f"tasks/{DATA_DIR}/{folder.name}/{name}"
    return _data_dir().joinpath(name), f"tasks/{DATA_DIR}/{name}"


def task_relpath(world: str, family: str, suite: str | None = None) -> str:
    """The task file of ``world`` x ``family`` in ``suite`` (default ``DEFAULT_SUITE``),
    relative to the ``llm_eval`` package (posix), as a suite manifest records it."""
    return _entry(world, family, suite)[1]


def task_path(world: str, family: str, suite: str | None = None) -> str:
    """Where the shipped task file of ``world`` x ``family`` lives (for messages)."""
    return str(_entry(world, family, suite)[0])


def _check_family(family: str) -> None:
    if family not in FAMILIES:
        raise TaskFileError(f"unknown task family {family!r}: expected one of "
                            f"{', '.join(FAMILIES)}")


def _parse_text(text: str, source: str, *, expect_id: str | None = None):
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TaskFileError(f"{source}: line {exc.lineno} column {exc.colno}: "
                            f"not valid JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise TaskFileError(f"{source}: a task file must hold a JSON object")
    task = parse_task(data, source=source)
    if expect_id is not None and task.id != expect_id:
        raise TaskFileError(f"{source}: id: {task.id!r} does not match the file name "
                            f"(expected {expect_id!r})")
    if task.id != task_id(task.world, task.family):
        raise TaskFileError(f"{source}: id: {task.id!r} must be "
                            f"{task_id(task.world, task.family)!r} (<world>-<family>)")
    return task


def load_task_file(path: str | Path):
    """Read and validate a task file at any path (the id must match the file name). The task
    remembers the file's directory: an imported task's ``program`` is relative to it."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TaskFileError(f"{path}: cannot read the task file: "
                            f"{exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise TaskFileError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    task = _parse_text(text, str(path), expect_id=path.stem)
    return task.located(str(path.parent.resolve()))


def load_task_dir(directory: str | Path) -> list:
    """Every task file (``*.json``) of ``directory``, ordered by world then family; a
    directory that does not exist or holds no task file raises ``TaskFileError``."""
    directory = Path(directory)
    if not directory.is_dir():
        raise TaskFileError(f"{directory}: no such task directory")
    files = sorted(p for p in directory.glob("*.json") if p.is_file())
    if not files:
        raise TaskFileError(f"{directory}: holds no task file (*.json)")
    order = {f: i for i, f in enumerate(FAMILIES)}
    tasks = [load_task_file(p) for p in files]
    return sorted(tasks, key=lambda t: (t.world, order[t.family]))


def load_tasks(path: str | Path) -> list:
    """The tasks of ``path``: a task file, or a directory of them."""
    path = Path(path)
    return [load_task_file(path)] if path.is_file() else load_task_dir(path)


def load_task(world: str, family: str, suite: str | None = None):
    """The shipped task of ``world`` x ``family`` in ``suite`` (default ``DEFAULT_SUITE``:
    module docstring), validated."""
    _check_family(family)
    entry, _ = _entry(world, family, suite)
    source = str(entry)
    if not entry.is_file():
        known = sorted(shipped_task_ids(suite))
        raise TaskFileError(f"{source}: no shipped task {task_id(world, family)!r} "
                            f"({len(known)} tasks are shipped)")
    return _parse_text(entry.read_text(encoding="utf-8"), source,
                       expect_id=task_id(world, family))


def shipped_task_ids(suite: str | None = None) -> list[str]:
    """The ids of every shipped task of ``suite`` (default ``DEFAULT_SUITE``), sorted: the
    base files' and the suite folder's (a suite's own version replaces the base file)."""
    ids: set[str] = set()
    for folder in (_data_dir(), _suite_dir(suite)):
        if folder is not None and folder.is_dir():
            ids.update(e.name[:-5] for e in folder.iterdir()
                       if e.name.endswith(".json") and e.is_file())
    return sorted(ids)


def all_tasks(worlds: list[str] | None = None, suite: str | None = None) -> list:
    """Every shipped task of ``suite`` (default ``DEFAULT_SUITE``; optionally only those of
    ``worlds``), ordered by world then family."""
    order = {f: i for i, f in enumerate(FAMILIES)}
    tasks = []
    for tid in shipped_task_ids(suite):
        world, _, family = tid.rpartition("-")
        if worlds is not None and world not in worlds:
            continue
        tasks.append(load_task(world, family, suite))
    return sorted(tasks, key=lambda t: (t.world, order[t.family]))


def _pretty(value, indent: int) -> str:
    # Lists of scalars (grid rows, mask rows) stay on one line so a frame reads as a grid.
    pad, inner = " " * indent, " " * (indent + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{inner}{json.dumps(k)}: {_pretty(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list):
        if all(not isinstance(v, (dict, list)) for v in value):
            return json.dumps(value)
        items = [inner + _pretty(v, indent + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(value)


def dump_task(task) -> str:
    """The pretty JSON of a task, as shipped (ends with a newline). Unset optional fields
    (None) are left out, so adding an optional field changes no existing file or digest."""
    return _pretty(task.model_dump(mode="json", exclude_none=True), 0) + "\n"


def write_task(task, directory: str | Path) -> Path:
    """Write ``task`` to ``directory/<id>.json``; returns the path."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{task.id}.json"
    write_atomic(path, dump_task(task))
    return path
