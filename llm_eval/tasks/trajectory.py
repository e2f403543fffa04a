"""Playing worlds for task generation and validation: replaying action lists, the random
agent's action stream, and patches (rectangles) of grids.

The programs are the bundled worlds (``world_spec``) and their change-detection copies
(``programs/changes/<world>.sexp``), read through ``importlib.resources``.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from importlib import resources

from ..worlds import ActionSpace, World, world_spec
from .models import Rect, TaskFileError

__all__ = ["Grid", "make", "make_changed", "reusing_worlds", "changed_program_text", "play",
           "random_actions", "patch", "same_on", "same_at", "masked_cells", "CHANGES_DIR"]

Grid = list[list[str]]
CHANGES_DIR = "changes"


# Inside ``reusing_worlds`` (one task's validation), a world ``make`` or ``make_changed`` made
# and nobody holds any more is given again, reset to its loaded state, instead of loading its
# program again (a CD task's checks loaded 17 times, mostly the same programs and seeds; 8
# now). At most ``_SPARE_PER_PROGRAM`` are kept for each. Nobody holds it when the only
# references are this table's: CPython counts them exactly, so a caller that keeps the world
# keeps it out of reuse. (A snapshot names the world's interpreter, not the world, but the
# code restores a snapshot only into the world it came from, which its holder keeps.)
_SPARE: dict[tuple, list[World]] | None = None
_SPARE_PER_PROGRAM = 4


@contextmanager
def reusing_worlds() -> Iterator[None]:
    """Within the block, ``make`` and ``make_changed`` reuse the worlds they made that nobody
    holds any more (see ``_SPARE``); they are let go at its end."""
    global _SPARE
    outer = _SPARE
    if outer is None:
        _SPARE = {}
    try:
        yield
    finally:
        _SPARE = outer


def _reused(key: tuple, seed: int, build: Callable[[], World]) -> World:
    worlds = None if _SPARE is None else _SPARE.setdefault(key, [])
    for w in worlds or ():
        # the list's reference, the loop's and getrefcount's own argument: nobody else's
        if sys.getrefcount(w) == 3 and not w.closed:
            w.reset(seed=seed)
            return w
    w = build()
    w.reset()
    if worlds is not None and len(worlds) < _SPARE_PER_PROGRAM:
        worlds.append(w)
    return w


def make(world: str, seed: int, *, trigger: str = "") -> World:
    """A reset ``World`` of a bundled program with ``seed``."""
    return _reused(("world", world, seed, trigger), seed,
                   lambda: world_spec(world).make(seed=seed, trigger=trigger))


def changed_program_text(program: str) -> str:
    """The text of a change-detection program, ``program`` being relative to
    ``llm_eval/worlds/programs/`` (e.g. ``changes/gravity.sexp``)."""
    entry = resources.files("llm_eval.worlds").joinpath("programs")
    for part in program.split("/"):
        entry = entry.joinpath(part)
    if ".." in program.split("/") or not entry.is_file():
        raise TaskFileError(f"hidden.program: no program file {program!r} under "
                            "llm_eval/worlds/programs/")
    return entry.read_text(encoding="utf-8")


def make_changed(world: str, program: str, seed: int, trigger: str) -> World:
    """A reset ``World`` running the modified program with the trigger condition."""
    spec = world_spec(world)
    return _reused(("changed", world, program, seed, trigger), seed,
                   lambda: World(changed_program_text(program), name=f"{world} (changed)",
                                 path=f"programs/{program}", seed=seed, trigger=trigger,
                                 expected_size=spec.size))


def play(world: World, actions: Iterable[str]) -> list[Grid]:
    """Grids of the current frame and of the frame after each action (the world steps on)."""
    grids = [world.frame.to_rows()]
    for action in actions:
        frame, *_ = world.step(action)
        grids.append(frame.to_rows())
    return grids


def random_actions(rng: random.Random, size: int, n: int) -> list[str]:
    """``n`` actions of the uniform random agent: a kind uniformly among click, left, right,
    up, down and noop; a click on a uniform cell (the distribution of ``ActionSpace.sample``)."""
    space = ActionSpace(size)
    return [str(space.sample(rng)) for _ in range(n)]


def patch(grid: Grid, rect: Rect, dx: int = 0, dy: int = 0,
          fill: str | None = None) -> Grid | None:
    """The rectangle's cells of ``grid`` (shifted by dx, dy); cells off the grid take
    ``fill``, or the patch is None when ``fill`` is None."""
    rows = []
    n = len(grid)
    for y in range(rect.y + dy, rect.y + dy + rect.height):
        row = []
        for x in range(rect.x + dx, rect.x + dx + rect.width):
            if 0 <= y < n and 0 <= x < len(grid[y]):
                row.append(grid[y][x])
            elif fill is None:
                return None
            else:
                row.append(fill)
        rows.append(row)
    return rows


def patch_inside(grid: Grid, rect: Rect) -> Grid:
    """The rectangle's cells of ``grid``, which holds all of them (``ValueError`` if not)."""
    rows = patch(grid, rect)
    if rows is None:
        raise ValueError(f"the rectangle {rect} is not inside the {len(grid)}-row grid")
    return rows


def same_on(grid: Sequence[Sequence[str]], goal: Sequence[Sequence[str]],
            mask: Sequence[Sequence[bool]]) -> bool:
    """Whether ``grid`` equals ``goal`` on every masked cell."""
    return same_at(grid, goal, masked_cells(mask))


def masked_cells(mask: Sequence[Sequence[bool]]) -> tuple[tuple[int, int], ...]:
    """The (x, y) of every masked cell, row by row."""
    return tuple((x, y) for y, row in enumerate(mask) for x, m in enumerate(row) if m)


def same_at(grid: Sequence[Sequence[str]], goal: Sequence[Sequence[str]],
            cells: Sequence[tuple[int, int]]) -> bool:
    """``same_on`` with the mask's cells (``masked_cells``) found once: a rollout tests every
    frame, and a mask is mostly unmasked cells."""
    for x, y in cells:
        if grid[y][x] != goal[y][x]:
            return False
    return True
