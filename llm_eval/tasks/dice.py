"""Redrawn dice: what a learner that knows a world's program, but not its random draws still
to come, can predict (docs/suite-v2.md).

A program's random numbers come from one generator in the interpreter's state (docs/spec/autumn.md 11);
``redraw(world, stream)`` replaces that generator's state with one drawn from a seeded Python
generator, leaving every other part of the state as it is. The futures played from a saved
state under many such redraws are the distribution a perfect model of the program predicts.

Every stream is seeded from the task's id and a purpose (``stream_seed``), so a figure is the
same on every machine, at any load, in any process.

The bounds (``lower_bound``, ``upper_bound``) are one-sided Wilson score bounds: a check passes
only when its condition holds for the bound, not just for the sampled frequency, so that a
task near a threshold fails (conservatively) instead of passing on a lucky sample.
"""

from __future__ import annotations

import math
import random
import zlib
from collections import Counter

from ..worlds import World
from .models import MFPTask
from .trajectory import Grid, make, patch_inside

__all__ = ["RNG_MODULUS", "stream_seed", "draw_states", "redraw", "lower_bound",
           "upper_bound", "mfp_patches", "mfp_distribution", "MfpDistribution",
           "blind_plan_succeeds"]

RNG_MODULUS = 2147483647     # the interpreter's generator: x' = 48271 x mod (2**31 - 1)


def stream_seed(task_id: str, purpose: str) -> int:
    """The seed of the Python generator that draws ``purpose``'s generator states for a task."""
    return zlib.crc32(f"{task_id}/{purpose}".encode())


def draw_states(seed: int, n: int) -> list[int]:
    """``n`` states of the interpreter's generator, uniform over its non-degenerate states
    (1 .. 2**31 - 2; 0 would make every later draw 0)."""
    rng = random.Random(seed)
    return [rng.randrange(1, RNG_MODULUS) for _ in range(n)]


def redraw(world: World, state: int) -> None:
    """Give ``world``'s program generator the state ``state`` (its draws from now on change;
    nothing else does)."""
    world.interpreter.set_random_seed(state)


def _wilson(k: int, n: int, z: float) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def lower_bound(k: int, n: int, z: float) -> float:
    """One-sided Wilson lower bound of a frequency from ``k`` successes in ``n`` draws."""
    return _wilson(k, n, z)[0]


def upper_bound(k: int, n: int, z: float) -> float:
    """One-sided Wilson upper bound of a frequency from ``k`` successes in ``n`` draws."""
    return _wilson(k, n, z)[1]


class MfpDistribution:
    """How often each option of an MFP task is the final masked patch over ``draws`` redrawn
    futures from the last shown frame: ``counts[i]`` for option i, ``other`` for patches equal
    to no option."""

    __slots__ = ("counts", "other", "draws", "answer")

    def __init__(self, counts: list[int], other: int, draws: int, answer: int) -> None:
        self.counts, self.other, self.draws, self.answer = counts, other, draws, answer

    @property
    def truth(self) -> int:
        return self.counts[self.answer]

    @property
    def best_distractor(self) -> int:
        return max(c for i, c in enumerate(self.counts) if i != self.answer)

    def most_frequent(self) -> int:
        """The option produced most often (the lowest index among ties)."""
        return max(range(len(self.counts)), key=lambda i: (self.counts[i], -i))


def mfp_patches(task: MFPTask, states: list[int], world: World | None = None) -> list[Grid]:
    """The final masked patch of each redrawn future: the recorded actions are played with the
    task's seed up to the last shown frame, then the generator is redrawn with each of
    ``states`` and the masked steps' actions are played. ``world``: the task's world, just
    reset (default: the bundled world of ``task.world``)."""
    p = task.public
    world = make(task.world, task.fixed_seed) if world is None else world
    shown = p.masked_from - 1               # actions that lead to the last shown frame
    for action in p.actions[:shown]:
        world.step(action)
    start = world.snapshot()
    out = []
    for state in states:
        world.restore(start)
        redraw(world, state)
        for action in p.actions[shown:]:
            world.step(action)
        out.append(patch_inside(world.frame.to_rows(), p.mask))
    return out


def mfp_distribution(task: MFPTask, states: list[int], answer: int) -> MfpDistribution:
    """``mfp_patches`` counted per option (``answer``: the option called the truth)."""
    options = [tuple(map(tuple, o)) for o in task.public.options]
    index = {o: i for i, o in enumerate(options)}
    counts = Counter(index.get(tuple(map(tuple, g)), -1) for g in mfp_patches(task, states))
    return MfpDistribution([counts.get(i, 0) for i in range(len(options))], counts.get(-1, 0),
                           len(states), answer)


PLAN_LIMITS_EXPANDED = 2_000   # states one search of the blind planner may expand ...
PLAN_EPISODE_EXPANDED = 12_000  # ... and all its searches in one redraw (then it has failed)


def blind_plan_succeeds(task, state: int) -> tuple[bool, int, int]:
    """Whether a planner that knows the program and the state it stands in, but not the
    draws to come, reaches ``task``'s goal within the horizon in the world whose generator is
    redrawn to ``state`` after loading; with the step it got there (the horizon when it did
    not) and the searches it made.

    The planner is the oracle's search (``agents.search.search_plan``) run on a copy of the
    real state whose generator is redrawn with the planner's own seeded draws (one sampled
    future); it plays the plan while each real frame is as close to the goal as the sample
    predicted (goal distance, ``agents.search.goal_distance``), and searches again (a new
    sample, the horizon left) at the first frame that is further away: draws that do not
    matter to the goal do not cost a search. When a search finds no plan it waits one step
    (``noop``) for the draws to change the world. Its work is counted, never timed: a search
    expands at most ``PLAN_LIMITS_EXPANDED`` states, a redraw's searches together at most
    ``PLAN_EPISODE_EXPANDED`` (past that, the redraw counts as not reached)."""
    from ..agents.search import SearchLimits, goal_distance, search_plan
    from .trajectory import masked_cells, same_at

    p = task.public
    world = make(task.world, task.seed)
    redraw(world, state)
    dice = random.Random(stream_seed(task.id, f"planner/{state}"))
    limits = SearchLimits(max_expanded=PLAN_LIMITS_EXPANDED)
    goal = tuple(tuple(row) for row in p.goal)
    cells = masked_cells(p.mask)
    plan: list[tuple[str, int | None]] = []
    searches = expanded = 0
    for step in range(1, p.horizon + 1):
        if not plan:
            if expanded >= PLAN_EPISODE_EXPANDED:
                break
            real = world.snapshot()
            redraw(world, dice.randrange(1, RNG_MODULUS))
            sampled = world.snapshot()
            result = search_plan(world, p.goal, p.mask, p.horizon - step + 1, limits)
            found = result.plan
            searches += 1
            expanded += result.expanded
            if found:
                world.restore(sampled)
                plan = [(a, goal_distance(world.step(a)[0], goal, cells)) for a in found]
            world.restore(real)
            plan = plan or [("noop", None)]
        action, expected = plan.pop(0)
        frame = world.step(action)[0]
        if same_at(frame.grid, p.goal, cells):
            return True, step, searches
        if expected is None or goal_distance(frame, goal, cells) > expected:
            plan = []
    return False, p.horizon, searches
