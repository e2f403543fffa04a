"""Suite manifests: a named, versioned list of shipped tasks with the sha256 of every file each
one reads.

A manifest is ``llm_eval/suites/<name>.json`` (package data, so a non-editable install ships
it)::

    {"schema_version": 1, "name": "v1", "description": "...", "digest": "<sha256>",
     "tasks": [{"id": "warehouse-cd", "world": "warehouse", "family": "cd",
                "files": [{"role": "task", "path": "tasks/data/warehouse-cd.json",
                           "sha256": "..."},
                          {"role": "program", "path": "worlds/programs/warehouse.sexp", ...},
                          {"role": "modified program",
                           "path": "worlds/programs/changes/warehouse.sexp", ...}]}, ...]}

  A suite's own version of a task is recorded at its path (``tasks/data/v2/rain-mfp.json``
  in suite v2; ``tasks.store``), so the manifest says which file each of its tasks is.

- ``path`` is relative to the ``llm_eval`` package (posix separators); ``sha256`` is the digest
  of the file's bytes. Roles: ``task`` (the task file), ``program`` (the world's program) and,
  for change detection, ``modified program``.
- ``digest`` (the suite's digest) is the sha256 of the canonical JSON (sorted keys, no spaces)
  of ``{"name": ..., "tasks": [...]}``: it changes exactly when a task is added, removed or
  one of its files changes, not when the description does. A manifest whose stored digest
  differs from its content was edited by hand and is refused.
- ``verify(task_id)`` re-hashes a task's files; a file that no longer matches is a
  ``SuiteMismatchError`` naming the suite, the task, the file and both digests.

``freeze(name, tasks)`` builds a manifest from shipped tasks (``llm-eval suites freeze``);
imported tasks (a ``program`` of their own) cannot be part of a suite.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path, PurePosixPath
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..atomic import write_atomic
from ..errors import TaskFileError
from ..tasks.models import FAMILIES
from ..vocabulary import Family

__all__ = ["Suite", "SuiteTask", "SuiteFile", "SuiteError", "SuiteMismatchError",
           "SUITES_PACKAGE", "SUITE_SCHEMA_VERSION", "load_suite", "suite_names",
           "suite_path", "freeze", "write_suite", "file_sha256", "task_files"]

SUITES_PACKAGE = "llm_eval.suites"
SUITE_SCHEMA_VERSION: Final = 1
_ROLES = ("task", "program", "modified program")


class SuiteError(TaskFileError):
    """A suite that cannot be read, is unknown, or whose content was edited by hand."""


class SuiteMismatchError(SuiteError):
    """A task file or program that no longer matches the suite's manifest."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


FileRole = Literal["task", "program", "modified program"]


class SuiteFile(_Model):
    role: FileRole
    path: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")

    @property
    def label(self) -> str:
        """The role in words: task file, program, modified program."""
        return "task file" if self.role == "task" else self.role


class SuiteTask(_Model):
    id: str
    world: str
    family: Family
    files: tuple[SuiteFile, ...] = Field(min_length=1)


class Suite(_Model):
    """One manifest (module docstring)."""

    schema_version: Literal[1] = SUITE_SCHEMA_VERSION
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$")
    description: str = ""
    digest: str = ""
    tasks: tuple[SuiteTask, ...] = Field(min_length=1)

    def computed_digest(self) -> str:
        """The suite's digest from its content (module docstring)."""
        body = {"name": self.name, "tasks": [t.model_dump(mode="json") for t in self.tasks]}
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        return hashlib.sha256(text.encode()).hexdigest()

    @property
    def short_digest(self) -> str:
        return self.digest[:12]

    @property
    def worlds(self) -> list[str]:
        """The suite's worlds, in manifest order, each once."""
        return list(dict.fromkeys(t.world for t in self.tasks))

    def task(self, task_id: str) -> SuiteTask:
        for entry in self.tasks:
            if entry.id == task_id:
                return entry
        close = difflib.get_close_matches(task_id, [t.id for t in self.tasks], n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise SuiteError(f"suite {self.name}: has no task {task_id!r}{hint}")

    def has(self, world: str, family: str) -> bool:
        return any(t.world == world and t.family == family for t in self.tasks)

    def mismatches(self, task_id: str) -> list[tuple[SuiteFile, str | None]]:
        """The files of ``task_id`` whose bytes no longer have the recorded digest, each with
        its digest now (None: the file cannot be read). The task file hashed is the one the
        suite's task loads now (``tasks.store.task_relpath``): a suite folder's version that
        appeared since the freeze is a mismatch, not silently played."""
        from ..tasks.store import task_relpath

        entry = self.task(task_id)
        out = []
        for recorded in entry.files:
            path = recorded.path
            if recorded.role == "task":
                path = task_relpath(entry.world, entry.family, self.name)
            now = _sha256_or_none(path)
            if now != recorded.sha256:
                out.append((recorded, now))
        return out

    def verify(self, task_id: str) -> None:
        """Raise ``SuiteMismatchError`` if a file of ``task_id`` changed (module docstring)."""
        bad = self.mismatches(task_id)
        if not bad:
            return
        recorded, now = bad[0]
        state = "cannot be read" if now is None else \
            f"has sha256 {now[:12]}, the manifest records {recorded.sha256[:12]}"
        more = f" (and {len(bad) - 1} more file(s))" if len(bad) > 1 else ""
        raise SuiteMismatchError(
            f"suite {self.name}: task {task_id}: its {recorded.label} "
            f"llm_eval/{recorded.path} no longer matches the manifest: it {state}{more}; "
            f"restore the file, or, if the change is meant, re-freeze the suite "
            f"(llm-eval suites freeze {self.name}), which gives it a new digest")

    def to_json(self) -> str:
        """The manifest's text: one line per file, so a re-frozen manifest diffs readably."""
        data = self.model_dump(mode="json")
        lines = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in data.items() if k != "tasks"]
        lines.append(f'  "tasks": {_tasks_text(data["tasks"])}')
        return "{\n" + ",\n".join(lines) + "\n}\n"


def _tasks_text(tasks: list[dict]) -> str:
    parts = []
    for t in tasks:
        files = ",\n".join("      " + json.dumps(f) for f in t["files"])
        parts.append(f'    {{"id": {json.dumps(t["id"])}, "world": {json.dumps(t["world"])}, '
                     f'"family": {json.dumps(t["family"])}, "files": [\n{files}\n    ]}}')
    return "[\n" + ",\n".join(parts) + "\n  ]"


def _package_root() -> Traversable:
    return resources.files("llm_eval")


def _entry(relative: str) -> Traversable:
    entry = _package_root()
    for part in PurePosixPath(relative).parts:
        entry = entry / part
    return entry


def file_sha256(relative: str) -> str:
    """The sha256 of the bytes of ``llm_eval/<relative>``."""
    return hashlib.sha256(_entry(relative).read_bytes()).hexdigest()


def _sha256_or_none(relative: str) -> str | None:
    try:
        return file_sha256(relative)
    except OSError:
        return None


def _suites_dir() -> Traversable:
    return resources.files(SUITES_PACKAGE)


def suite_path(name: str) -> str:
    """Where the manifest of suite ``name`` lives (for messages and ``freeze``)."""
    return str(_suites_dir() / f"{name}.json")


def suite_names() -> list[str]:
    """The names of the shipped suites, sorted."""
    return sorted(e.name[:-5] for e in _suites_dir().iterdir()
                  if e.name.endswith(".json") and e.is_file())


def _parse(text: str, source: str) -> Suite:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SuiteError(f"{source}: line {exc.lineno} column {exc.colno}: not valid JSON: "
                         f"{exc.msg}") from None
    try:
        suite = Suite.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(manifest)"
        raise SuiteError(f"{source}: {where}: {first['msg']}") from None
    if suite.digest != suite.computed_digest():
        raise SuiteError(f"{source}: digest: {suite.digest[:12] or '(none)'} does not match the "
                         f"manifest's content ({suite.computed_digest()[:12]}): it was edited "
                         f"by hand; regenerate it with llm-eval suites freeze {suite.name}")
    return suite


def load_suite(name_or_path: str | Path) -> Suite:
    """The suite called ``name`` (a shipped manifest), or the manifest file at a path (a name
    with ``/`` or ending ``.json``). An unknown name gets a "did you mean"."""
    text_name = str(name_or_path)
    if text_name.endswith(".json") or "/" in text_name or "\\" in text_name:
        path = Path(text_name)
        try:
            return _parse(path.read_text(encoding="utf-8"), str(path))
        except (OSError, UnicodeDecodeError) as exc:
            raise SuiteError(f"{path}: cannot read the suite manifest: "
                             f"{getattr(exc, 'strerror', None) or exc}") from None
    entry = _suites_dir() / f"{text_name}.json"
    if not entry.is_file():
        known = suite_names()
        close = difflib.get_close_matches(text_name, known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise SuiteError(f"unknown suite {text_name!r}{hint} (shipped suites: "
                         f"{', '.join(known) or 'none'})")
    suite = _parse(entry.read_text(encoding="utf-8"), suite_path(text_name))
    if suite.name != text_name:
        raise SuiteError(f"{suite_path(text_name)}: name: {suite.name!r} does not match the "
                         f"file name (expected {text_name!r})")
    return suite


def task_files(task, suite: str | None = None) -> list[tuple[FileRole, str]]:
    """``(role, path relative to llm_eval)`` of every file a shipped task of ``suite`` reads
    (its task file: the suite's own version if it has one, ``tasks.store.task_relpath``)."""
    from ..tasks.store import task_relpath

    if task.program is not None:
        raise SuiteError(f"task {task.id!r} names its own program ({task.program}): only "
                         "shipped tasks of bundled worlds can be part of a suite")
    files: list[tuple[FileRole, str]] = [("task", task_relpath(task.world, task.family, suite)),
             ("program", f"worlds/programs/{task.world}.sexp")]
    if task.family == "cd":
        relative = PurePosixPath(task.hidden.program)
        if relative.is_absolute() or ".." in relative.parts:
            raise SuiteError(f"task {task.id!r}: hidden.program {task.hidden.program!r} must be "
                             "relative to the bundled programs directory")
        files.append(("modified program", f"worlds/programs/{relative.as_posix()}"))
    return files


def freeze(name: str, tasks, description: str = "") -> Suite:
    """A manifest of ``tasks`` (shipped tasks of suite ``name``, loaded with
    ``tasks.store.all_tasks(suite=name)``) as their files are now."""
    order = {f: i for i, f in enumerate(FAMILIES)}
    entries = []
    for task in sorted(tasks, key=lambda t: (t.world, order[t.family])):
        files = []
        for role, path in task_files(task, name):
            digest = _sha256_or_none(path)
            if digest is None:
                raise SuiteError(f"task {task.id!r}: cannot read its {role} llm_eval/{path}")
            files.append(SuiteFile(role=role, path=path, sha256=digest))
        entries.append(SuiteTask(id=task.id, world=task.world, family=task.family,
                                 files=tuple(files)))
    if not entries:
        raise SuiteError(f"suite {name}: no task to freeze")
    suite = Suite(name=name, description=description, tasks=tuple(entries))
    return suite.model_copy(update={"digest": suite.computed_digest()})


def write_suite(suite: Suite, path: str | Path | None = None) -> Path:
    """Write ``suite``'s manifest to ``path`` (default: the shipped manifest of its name)."""
    target = Path(path) if path is not None else Path(suite_path(suite.name))
    write_atomic(target, suite.to_json())
    return target
