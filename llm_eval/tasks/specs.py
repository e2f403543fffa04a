"""The form of the hand-written per-world data the generator starts from (``WorldTaskSpec``;
one module per world in ``world_specs/``, taken from each world's notes and re-verified by
validation): the seeds, the planning witness and the cells that matter, the change-detection
trigger, observational condition, change and witness, and the deliberate actions mixed into
the MFP trajectory; and what each suite changes in them (``SUITE_CHANGES``).

The CD condition (docs/spec/worldtest.md 3.2) is an Autumn expression in the host syntax over the
*modified* program's state after a tick; the scored T is the first frame of a run in which it
holds. Each one is written to hold exactly when the changed rule has just made the frame differ
from the original program's (played in lock-step with the same actions and seed): it reads the
latched ``changed`` only together with what the tick visibly did, using ``prev`` (the state
before the tick) to tell what the original rule would have done from there. Validation checks
that it holds at the first lock-step difference under the witness and never before the first
difference in random play.

Nothing here is shown to agents; generation copies it into the hidden half of the task files.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import Any

__all__ = ["WorldTaskSpec",
           "TASK_SPECS",  # noqa: F822 (made by the module's __getattr__, on first use)
           "SUITE_CHANGES", "task_spec", "suite_changes"]


def _rep(action: str, n: int) -> tuple[str, ...]:
    return (action,) * n


@dataclass(frozen=True, slots=True)
class WorldTaskSpec:
    """``plan_mask``: the cells (x, y) the planning goal is judged on; empty means the cells
    the witness changed (they differ from the initial frame and from the frame after as many
    noops). ``cd_witness`` must make ``cd_trigger`` hold and then show the change;
    ``cd_condition`` (module docstring) must first hold at the frame where it shows."""

    world: str
    plan_witness: tuple[str, ...]
    cd_trigger: str
    cd_change: str
    cd_witness: tuple[str, ...]
    cd_condition: str
    plan_mask: tuple[tuple[int, int], ...] = ()
    mfp_deliberate: tuple[str, ...] = ()
    seed: int = 1
    mfp_seed: int = 7


def _world_specs() -> dict[str, WorldTaskSpec]:
    """The specs of ``world_specs/<world>.py`` (one module per world, each with ``SPEC``)."""
    import importlib
    import pkgutil

    from . import world_specs

    found = {}
    for module in sorted(m.name for m in pkgutil.iter_modules(world_specs.__path__)):
        spec = importlib.import_module(f"{world_specs.__name__}.{module}").SPEC
        if spec.world != module:
            raise ValueError(f"llm_eval/tasks/world_specs/{module}.py: SPEC is for world "
                             f"{spec.world!r}; the module must be named after its world")
        found[spec.world] = spec
    return found


_ALL: dict[str, WorldTaskSpec] = {}
_MERGING = threading.Lock()


def _all_specs() -> dict[str, WorldTaskSpec]:
    """Every world's spec (``world_specs/``), gathered on first use (not at import, so a
    world's spec module can be imported on its own: it imports this module for
    ``WorldTaskSpec``)."""
    if not _ALL:
        with _MERGING:
            if not _ALL:
                _ALL.update(_world_specs())   # whole at once: a thread never sees half of it
    return _ALL


def __getattr__(name: str):
    if name == "TASK_SPECS":   # every world's spec, by world name
        return _all_specs()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# What a later suite changes in a world's spec, per task (suite -> world -> family -> fields),
# so that a task of suite v1 that is not fair under redrawn dice (docs/suite-v2.md) is rebuilt
# (another MFP trajectory and so another masked region, another CD witness, another planning
# goal) while v1's tasks, generated from the specs above, stay as shipped. Each value was
# chosen by validating the rebuilt task (``llm-eval tasks validate``), not by its answer.
SUITE_CHANGES: dict[str, dict[str, dict[str, dict[str, Any]]]] = {
    "v1": {},
    "v2": {
        # beehive-cd: flowers off the doorway's row and column (a laden bee flying home from
        # them takes another path for several frames, where v1's, next to the doorway, met
        # the original's path a frame later), seed 2, the change from the seventh sip
        "beehive": {"mfp": {"mfp_seed": 15},
                    "cd": {"seed": 2, "cd_trigger": "> sipped 6",
                           "cd_witness": ("click 4 1", "click 4 3", "click 6 4", "click 7 5",
                                          *_rep("noop", 30))},
                    # beehive-planning: a flower planted at (12,12) and the beekeeper at (11,8);
                    # v1's full hive waits on the bees' random flights (the blind planner missed
                    # its first redraw; eight combs were still unresolved after a minute of CPU)
                    "planning": {"plan_witness": ("click 12 12", *_rep("right", 3)),
                                 "plan_mask": ((12, 12), (11, 8))}},
        "crystals": {"mfp": {"mfp_seed": 9}},
        # two noops first: the first difference comes on a tick whose next frame the
        # original program (growing every 3 ticks) does not catch up with
        # ecosystem-planning: the first three bushes of v1's loop and the ranger beside them
        # at (12,7); v1's seven bushes and 18 steps among randomly moving animals were
        # reached in 1 of the first 2 redraws
        "ecosystem": {"planning": {"plan_witness": (*_rep("right", 3), "click 13 9", "up",
                                                    "click 13 8", "up", "click 13 7"),
                                   "plan_mask": ((13, 9), (13, 8), (13, 7), (12, 7))}},
        "garden": {"cd": {"cd_witness": ("noop", "noop", "click 1 11", "click 3 11",
                                         *_rep("noop", 10))}},
        "hunters": {"mfp": {"mfp_seed": 10}},
        # invaders-planning: six enemies destroyed (the score pips, exactly six), the ship,
        # ready, at x=1 and a shot just fired above it (with five and no shot, random play
        # reached it in 9 of 200 rollouts). v1's goal was the formation area (rows 2-5), where
        # the bombs random enemies drop fall: a planner without the dice missed its first redraw
        "invaders": {"planning": {"plan_witness": (
                        "right", "up", *_rep("noop", 3), "up", *_rep("noop", 3), "left", "up",
                        *_rep("noop", 3), "up", *_rep("noop", 6), "up", "noop", "up", "noop",
                        "up", "noop", "up", *_rep("left", 5), "noop", "noop", "up", "noop", "up", "noop", "up"),
                     "plan_mask": (*((x, 0) for x in range(7)), (1, 9), (1, 10),
                                   (1, 11), (0, 12), (1, 12), (2, 12))}},
        # kitchen-planning: the first dish orange with four cells of heat (its bar's fourth
        # cell) and a second, pink with two, on the middle burner under the hand: four ticks,
        # which the fuel's random burn cannot stop (4 units, at most 1 a tick). v1's three
        # dishes served brown were reached in 2 of the first 3 redraws (the stove may run dry
        # first: the third ran out its 24 steps); two dishes missed the same redraw
        "kitchen": {"mfp": {"mfp_seed": 8},
                    "planning": {"plan_witness": ("down", "right", "down", "noop"),
                                 "plan_mask": ((4, 8), (5, 5), (8, 8), (9, 7), (8, 11))}},
        # moles-planning: a whack by click (the tally's first cell) and the mallet at (9,1),
        # the same witness: v1's six whacks and four empty tally cells were reached in 11 of
        # 12 redraws (moles pop up at random; with two or four whacks one redraw was still
        # unresolved after 50 s of CPU)
        "moles": {"planning": {"plan_mask": ((0, 0), (9, 1))}},
        "rain": {"mfp": {"mfp_seed": 8}},
        # shatter-planning: the thrower at x=3 and its stone three cells up, short of the
        # glass (v1's hole through both rows needs hard stones, whose hardness is drawn at the
        # throw: a planner without the dice missed its first redraw after 34 steps); the mask
        # is the cells the witness changes
        # sandbox-planning: a little dry-sand pyramid on the floor, three grains side by side
        # under x=6..8 and one on the middle one, built where no random slide can touch it
        # (a grain slides only where the cell beside it and the one below that are free); the
        # mask is the pyramid, the free cells around it and the dropper. v1's goal was water
        # poured on the heap, whose grains run off to a random side: a planner without the
        # dice missed its ninth redraw (54 steps, 9 searches)
        "sandbox": {"planning": {"plan_witness": ("down", "left", "down", *_rep("right", 4), "up",
                                                  *_rep("left", 4)),
                                 "plan_mask": ((3, 0), (2, 9), (3, 9), (4, 9), (5, 9),
                                               (3, 8), (4, 8))}},
        # seeds-planning: four seeds sown (one pip left in the bag) and the hopper at the east
        # edge; where the seeds land is not judged: the wind that carries them is redrawn
        # every six ticks, and no seed falls in under eight. v1's sprout at x=9, carried
        # there by the wind of seed 1, was missed in the first redraw
        "seeds": {"planning": {"plan_witness": ("down", "right", "down", "right", "down",
                                                "right", "down", *_rep("right", 5)),
                               "plan_mask": ((0, 0), (1, 0), (2, 0), (3, 0), (4, 0),
                                             (15, 1))}},
        "shatter": {"planning": {"plan_witness": (*_rep("left", 4), "up", *_rep("noop", 3)),
                                 "plan_mask": ()}},
        # the pebble that lies there from the start, and the slinger on its cell (the second
        # pebble of v1's goal turns up at random: a planner without the dice reached v1's goal
        # in 1 of its first 2 redraws)
        "slingshot": {"planning": {"plan_witness": _rep("left", 4) + ("up",),
                                   "plan_mask": ((0, 0), (3, 12))}},
        # eat the first food (placed at loading) and take the head to (6,13) (v1's three foods
        # appear at random: its first redraw missed them)
        "snake": {"planning": {"plan_witness": (*_rep("noop", 3), "down", *_rep("noop", 6),
                                                "left", "up", "noop"),
                               "plan_mask": ((0, 0), (6, 13))}},
        "sparks": {"mfp": {"mfp_seed": 24}},
        "wander": {"mfp": {"mfp_seed": 8}},
        # wildfire-planning: two trees of the NW grove's belts cut and replanted as saplings
        # in the first four ticks (before the first lightning, at tick 6: stumps and saplings
        # never burn) and the tanker at (12,9). v1's four wet trees on the east belt can burn
        # first when lightning strikes near them: the planner without the dice missed its
        # eighth redraw
        "wildfire": {"planning": {"plan_witness": ("click 3 6", "click 3 6", "click 6 3",
                                                   "click 6 3", "up", "right", "right"),
                                  "plan_mask": ((3, 6), (6, 3), (12, 9))}},
    },
}


def suite_changes(suite: str, world: str) -> dict[str, dict[str, Any]]:
    """``SUITE_CHANGES`` of ``suite`` for ``world`` (family -> changed fields); an unknown
    suite is a ``KeyError`` naming the known ones."""
    try:
        return SUITE_CHANGES[suite].get(world, {})
    except KeyError:
        raise KeyError(f"no task specs for suite {suite!r}; known: "
                       f"{', '.join(SUITE_CHANGES)}") from None


def task_spec(world: str, family: str | None = None, suite: str = "v1") -> WorldTaskSpec:
    """The hand-written task data of a bundled world (``KeyError`` names the world); with a
    ``family``, as ``suite`` builds that family's task (``SUITE_CHANGES``)."""
    specs = _all_specs()
    try:
        spec = specs[world]
    except KeyError:
        raise KeyError(f"no task spec for world {world!r}; known: "
                       f"{', '.join(sorted(specs))}") from None
    changes = suite_changes(suite, world).get(family, {}) if family is not None else {}
    return replace(spec, **changes) if changes else spec
