"""``llm-eval tasks generate WORLD [--suite NAME]``: build a world's three tasks (MFP, CD,
planning) from its hand-written spec (``specs``) as a suite builds them, deterministically,
and write them as task files.

A task that the suite changes (``specs.SUITE_CHANGES``) is written to the suite's own folder
(``data/<suite>/``), every other one to the base folder (``data/``), where it is the same
file as in every suite (``store``), so regenerating a world never touches another suite's
files.
"""

from __future__ import annotations

from pathlib import Path

from .cd import build_cd
from .mfp import build_mfp
from .models import FAMILIES
from .planning import build_planning
from .specs import suite_changes, task_spec
from .store import DEFAULT_SUITE, write_task

__all__ = ["generate_world", "generate_task", "write_world_tasks", "default_data_dir"]

_BUILDERS = {"mfp": build_mfp, "cd": build_cd, "planning": build_planning}


def generate_task(world: str, family: str, suite: str = DEFAULT_SUITE):
    """One task of ``world`` (``family`` in mfp, cd, planning) as ``suite`` builds it."""
    if family not in _BUILDERS:
        raise ValueError(f"unknown family {family!r}: expected one of {', '.join(FAMILIES)}")
    return _BUILDERS[family](task_spec(world, family, suite))


def generate_world(world: str, suite: str = DEFAULT_SUITE) -> list:
    """The three tasks of ``world`` as ``suite`` builds them, in family order."""
    task_spec(world)   # an unknown world: KeyError naming it, before any building
    return [generate_task(world, f, suite) for f in FAMILIES]


def default_data_dir(suite: str | None = None) -> Path:
    """Where the shipped task files live in the source tree (``suite``: its own folder)."""
    base = Path(__file__).resolve().parent / "data"
    return base / suite if suite else base


def write_world_tasks(world: str, out: str | Path | None = None,
                      suite: str = DEFAULT_SUITE) -> list[Path]:
    """Generate ``world``'s tasks as ``suite`` builds them and write them to ``out`` (default:
    the shipped data: the suite's folder for the tasks it changes, the base folder for the
    others)."""
    changed = suite_changes(suite, world)
    paths = []
    for task in generate_world(world, suite):
        if out is not None:
            directory = Path(out)
        else:
            directory = default_data_dir(suite if task.family in changed else None)
        paths.append(write_task(task, directory))
    return paths
