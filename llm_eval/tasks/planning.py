"""Planning tasks: the goal is the frame the world's witness reaches, judged on the cells that
matter; the horizon leaves slack over the witness; random play must (almost) never reach it.

``random_success(task, rollouts)`` is shared with validation: the uniform random agent plays
``rollouts`` seeded episodes of ``horizon`` steps from the initial state (no reset), and an
episode succeeds the first step every masked cell equals the goal.
"""

from __future__ import annotations

import random

from .models import PlanningHidden, PlanningPublic, PlanningTask, TaskFileError
from .specs import WorldTaskSpec
from .trajectory import make, masked_cells, play, random_actions, same_at

__all__ = ["build_planning", "plan_mask", "horizon_for", "random_success", "first_success",
           "RANDOM_ROLLOUTS", "RANDOM_LIMIT"]

RANDOM_ROLLOUTS = 200
RANDOM_LIMIT = 0.05          # docs/spec/worldtest.md 5: random success in under 5% of rollouts
ROLLOUT_SEED = 1000          # rollout i uses random.Random(ROLLOUT_SEED + i)


def horizon_for(witness_length: int) -> int:
    """Twice the witness, and at least 6 steps of slack."""
    return max(2 * witness_length, witness_length + 6)


def plan_mask(initial: list[list[str]], final: list[list[str]], idle: list[list[str]],
              cells: tuple[tuple[int, int], ...]) -> list[list[bool]]:
    """The cells that matter: the given ``cells``, or else those where the witness's final
    frame differs from the initial frame and from the frame reached by as many noops (so that
    cells the world changes by itself do not count)."""
    n = len(final)
    if cells:
        chosen = set(cells)
    else:
        chosen = {(x, y) for y in range(n) for x in range(n)
                  if final[y][x] != initial[y][x] and final[y][x] != idle[y][x]}
    return [[(x, y) in chosen for x in range(n)] for y in range(n)]


def first_success(grids: list[list[list[str]]], goal, mask) -> int | None:
    """The first step (1-based) whose frame matches the goal on the mask, or None."""
    cells = masked_cells(mask)
    for t, grid in enumerate(grids[1:], 1):
        if same_at(grid, goal, cells):
            return t
    return None


def build_planning(spec: WorldTaskSpec) -> PlanningTask:
    """The planning task of a world from its spec (deterministic)."""
    witness = list(spec.plan_witness)
    grids = play(make(spec.world, spec.seed), witness)
    idle = play(make(spec.world, spec.seed), ["noop"] * len(witness))[-1]
    mask = plan_mask(grids[0], grids[-1], idle, spec.plan_mask)
    public = PlanningPublic(goal=grids[-1], mask=mask, horizon=horizon_for(len(witness)))
    return PlanningTask(id=f"{spec.world}-planning", world=spec.world, seed=spec.seed,
                        public=public, hidden=PlanningHidden(witness=witness))


def random_success(task: PlanningTask, rollouts: int = RANDOM_ROLLOUTS) -> int:
    """How many of ``rollouts`` seeded uniform-random episodes reach the goal in time."""
    goal, mask, horizon = task.public.goal, task.public.mask, task.public.horizon
    if horizon is None:   # an imported task: the protocol bounds its test, not the task
        raise TaskFileError(f"task {task.id!r} has no horizon of its own")
    cells = masked_cells(mask)
    world = make(task.world, task.fixed_seed)
    start = world.snapshot()
    wins = 0
    for i in range(rollouts):
        world.restore(start)
        rng = random.Random(ROLLOUT_SEED + i)
        for action in random_actions(rng, world.size, horizon):
            frame, *_ = world.step(action)
            if same_at(frame.grid, goal, cells):
                wins += 1
                break
    return wins
