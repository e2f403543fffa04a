"""The worlds a task's phases run: the original program, and the CD task's modified program.

- The interaction phase and the planning and MFP phases run the world's *original* program
  with the task's seed (``original_world``): the bundled world, or for an imported task the
  file ``task.program`` names, relative to the task file.
- The change-detection test runs ``hidden.program``, a path relative to the bundled programs
  directory (``llm_eval/worlds/programs/``, e.g. ``changes/warehouse.sexp``) or, for an
  imported task, to the task file, with ``hidden.trigger`` as the trigger condition and the
  task's seed (``modified_world``). ``programs_root`` overrides the directory (tests write
  their own modified programs).
- A task that takes its seed from the run (an imported one) is given it first
  (``worldtest.seeding.seeded``).

A path that is absolute, climbs out with ``..``, or names no readable file raises
``TaskProgramError`` naming the task and the path.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path, PurePosixPath

from ..seeds import is_degenerate_seed
from ..tasks.models import CDTask
from ..worlds import World, make_world
from ..worlds.registry import PROGRAMS_DIR, PROGRAMS_PACKAGE
from .errors import TaskProgramError

__all__ = ["original_world", "modified_world", "modified_program_text", "programs_root",
           "original_program_text", "task_seed", "ProgramsRoot"]

ProgramsRoot = Path | Traversable


def programs_root() -> Traversable:
    """The bundled programs directory (package data)."""
    return resources.files(PROGRAMS_PACKAGE) / PROGRAMS_DIR


def _task_file(task, relative: str, field: str) -> tuple[str, str]:
    """``(text, display path)`` of a file an imported task names relative to its file."""
    if task.root is None:
        raise TaskProgramError(f"task {task.id!r}: {field} {relative!r} is relative to the task "
                               "file, but the task was not loaded from a file")
    path = Path(task.root) / relative
    try:
        return path.read_text(encoding="utf-8"), str(path)
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise TaskProgramError(f"task {task.id!r}: cannot read {field} {path}: "
                               f"{reason}") from None


def original_program_text(task) -> tuple[str, str]:
    """``(program text, display path)`` of the task's original program."""
    if task.program is not None:
        return _task_file(task, task.program, "program")
    world = make_world(task.world)
    return world.program, world.path


def task_seed(task) -> int:
    """The seed ``task`` is played with (``TaskProgramError`` if it takes it from the run)."""
    if task.seed is None:
        raise TaskProgramError(f"task {task.id!r} takes its seed from the run; resolve it with "
                               "seeded(task, seed) first")
    return task.seed


def original_world(task) -> World:
    """A new, not yet reset World of the task's original program with the task's seed."""
    seed = task_seed(task)
    degenerate = is_degenerate_seed(seed)
    if task.program is None:
        return make_world(task.world, seed=seed, allow_degenerate_seed=degenerate)
    text, display = original_program_text(task)
    return World(text, name=task.world, path=display, seed=seed,
                 allow_degenerate_seed=degenerate)


def modified_program_text(task: CDTask, root: ProgramsRoot | None = None) -> tuple[str, str]:
    """``(program text, display path)`` of a CD task's modified program."""
    relative = task.hidden.program
    if task.program is not None and root is None:   # an imported task: beside its file
        return _task_file(task, relative, "hidden.program")
    parts = PurePosixPath(relative).parts
    if (not relative or relative.startswith(("/", "\\")) or ".." in parts
            or PurePosixPath(relative).is_absolute()):
        raise TaskProgramError(f"task {task.id!r}: hidden.program {relative!r} must be a path "
                               "relative to the bundled programs directory, without '..'")
    base = programs_root() if root is None else root
    entry = base
    for part in parts:
        entry = entry / part
    display = f"{PROGRAMS_PACKAGE.replace('.', '/')}/{PROGRAMS_DIR}/{relative}"
    try:
        text = entry.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise TaskProgramError(f"task {task.id!r}: cannot read hidden.program {display}: "
                               f"{reason}") from None
    return text, display


def modified_world(task: CDTask, root: ProgramsRoot | None = None) -> World:
    """A new, not yet reset World running the CD task's modified program with its trigger."""
    text, display = modified_program_text(task, root)
    seed = task_seed(task)
    return World(text, name=f"{task.world} (modified)", path=display, seed=seed,
                 trigger=task.hidden.trigger, allow_degenerate_seed=is_degenerate_seed(seed))
