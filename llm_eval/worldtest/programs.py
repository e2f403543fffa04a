"""The worlds a task's phases run: the original program, and the CD task's modified program.

- The interaction phase and the planning and MFP phases run the world's *original* bundled
  program with the task's seed (``original_world``).
- The change-detection test runs ``hidden.program``, a path relative to the bundled programs
  directory (``llm_eval/worlds/programs/``, e.g. ``changes/warehouse.sexp``), with
  ``hidden.trigger`` as the trigger condition and the task's seed (``modified_world``).
  ``programs_root`` overrides the directory (tests write their own modified programs).

A path that is absolute, climbs out with ``..``, or names no readable file raises
``TaskProgramError`` naming the task and the path.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path, PurePosixPath

from ..tasks.models import CDTask
from ..worlds import World, make_world
from ..worlds.registry import PROGRAMS_DIR, PROGRAMS_PACKAGE
from .errors import TaskProgramError

__all__ = ["original_world", "modified_world", "modified_program_text", "programs_root",
           "ProgramsRoot"]

ProgramsRoot = Path | Traversable


def programs_root() -> Traversable:
    """The bundled programs directory (package data)."""
    return resources.files(PROGRAMS_PACKAGE) / PROGRAMS_DIR


def original_world(task) -> World:
    """A new, not yet reset World of the task's bundled world with the task's seed."""
    return make_world(task.world, seed=task.seed)


def modified_program_text(task: CDTask, root: ProgramsRoot | None = None) -> tuple[str, str]:
    """``(program text, display path)`` of a CD task's modified program."""
    relative = task.hidden.program
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
    return World(text, name=f"{task.world} (modified)", path=display, seed=task.seed,
                 trigger=task.hidden.trigger)
