"""``llm-eval tasks generate WORLD``: build a world's three tasks (MFP, CD, planning) from its
hand-written spec (``specs``), deterministically, and write them as task files.
"""

from __future__ import annotations

from pathlib import Path

from .cd import build_cd
from .mfp import build_mfp
from .models import FAMILIES
from .planning import build_planning
from .specs import task_spec
from .store import write_task

__all__ = ["generate_world", "generate_task", "write_world_tasks", "default_data_dir"]

_BUILDERS = {"mfp": build_mfp, "cd": build_cd, "planning": build_planning}


def generate_task(world: str, family: str):
    """One task of ``world`` (``family`` in mfp, cd, planning)."""
    if family not in _BUILDERS:
        raise ValueError(f"unknown family {family!r}: expected one of {', '.join(FAMILIES)}")
    return _BUILDERS[family](task_spec(world))


def generate_world(world: str) -> list:
    """The three tasks of ``world``, in family order."""
    spec = task_spec(world)
    return [_BUILDERS[f](spec) for f in FAMILIES]


def default_data_dir() -> Path:
    """Where the shipped task files live in the source tree."""
    return Path(__file__).resolve().parent / "data"


def write_world_tasks(world: str, out: str | Path | None = None) -> list[Path]:
    """Generate ``world``'s tasks and write them to ``out`` (default: the shipped data)."""
    directory = Path(out) if out is not None else default_data_dir()
    return [write_task(task, directory) for task in generate_world(world)]
