"""Test tiers. The default tier (``python -m pytest``, the README's command) runs in under
10 minutes on two cores; the slow tier (``python -m pytest -m slow``, run by CI after it) holds
what would make it longer: the full validation of every shipped task, the property tests at
their full example counts, each per-world check for the worlds beyond the core twelve, and
the two Ray worker-kill tests (a CPU hog each; tests/sweep/test_ray.py).

A per-world or per-task test runs in the default tier on the core worlds (the first twelve,
which cover every family of mechanic the rest build on) and in the slow tier on all the others,
so between the two tiers every world is checked and nothing is checked twice.

CI (``.ci/run``) runs the default tier and ``-m "slow and not exhaustive"``: the slow tier but
for the ``exhaustive`` part of one check repeated over the whole of suite v1 (its recorded
validation reports, 129 tasks and 20 CPU-minutes: tests/tasks/test_validation_reports_unchanged.py),
of which CI takes one task per world, the family turning with the world (``ci_share``): every
world, every family and every check, in a third of the time. ``python -m pytest -m slow`` runs
all of it.
"""

from __future__ import annotations

import pytest

__all__ = ["CORE_WORLDS", "per_world", "per_task", "tier", "slow", "exhaustive", "ci_share"]

slow = pytest.mark.slow
exhaustive = pytest.mark.exhaustive

FAMILIES = ("mfp", "cd", "planning")

CORE_WORLDS = frozenset({"automaton", "easel", "garden", "gravity", "hunters", "icepond",
                         "invaders", "magnets", "outbreak", "platformer", "sparks",
                         "warehouse"})


def tier(world: str) -> tuple:
    """The marks of a parameter about ``world``: none for a core world, else ``slow``."""
    return () if world in CORE_WORLDS else (slow,)


def per_world(items, name=lambda item: item) -> list:
    """``items`` (world names, or objects whose world ``name`` gives) as parameters: the core
    worlds' in the default tier, the others' marked ``slow``."""
    return [pytest.param(item, id=name(item), marks=tier(name(item))) for item in items]


def per_task(tasks) -> list:
    """Tasks as parameters, tiered by their world like ``per_world``, named by task id."""
    return [pytest.param(t, id=t.id, marks=tier(t.world)) for t in tasks]


def ci_share(task_ids) -> set[str]:
    """Of tasks named ``world-family``, the one per world CI checks: the worlds in name order,
    the k-th taking family k mod 3 (or its world's first family present after it)."""
    by_world: dict[str, set[str]] = {}
    for task_id in task_ids:
        world, _, family = task_id.rpartition("-")
        by_world.setdefault(world, set()).add(family)
    share = set()
    for k, world in enumerate(sorted(by_world)):
        turn = FAMILIES[k % 3:] + FAMILIES[:k % 3]
        share.add(f"{world}-{next(f for f in turn if f in by_world[world])}")
    return share
