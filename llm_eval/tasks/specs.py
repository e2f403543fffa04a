"""Hand-written per-world data the generator starts from (taken from each world's notes and
re-verified by validation): the seeds, the planning witness and the cells that matter, the
change-detection trigger, observational condition, change and witness, and the deliberate
actions mixed into the MFP trajectory.

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


_BUILT_IN: dict[str, WorldTaskSpec] = {s.world: s for s in (
    WorldTaskSpec(
        "automaton",
        plan_witness=(*_rep("noop", 3), "up", "click 3 1", "click 20 1", "click 12 1"),
        plan_mask=((3, 1), (4, 1), (5, 1), (12, 1), (20, 1), (24, 0)),
        cd_trigger="> gen 10",
        cd_change="the edges stop wrapping: cells outside the row count as dead",
        cd_witness=_rep("noop", 20),
        # a generation was computed and row 1 is not the wrapped rule applied to the row below
        # it (the generation it came from)
        cd_condition=("& changed (& (> gen (prev gen)) (any (--> bs (!= bits (map (--> i (at (at "
                      "ruleTables rule) (+ (* 4 (at bs (% (+ i 24) 25))) (+ (* 2 (at bs i)) (at "
                      "bs (% (+ i 1) 25)))))) (range 0 25)))) (list (map (--> i (if (in i (.. "
                      "(head (filter (--> r (== (.. (.. r origin) y) 2)) rows)) live)) then 1 "
                      "else 0)) (range 0 25)))))"),
        mfp_deliberate=("click 2 0", "noop", "noop", "right", "noop", "click 5 1", "noop",
                        "down", "noop", "left", "up", "noop", "up")),
    WorldTaskSpec(
        "easel",
        plan_witness=("click 1 9", "click 4 4", "click 2 9", "click 4 4"),
        cd_trigger="> strokes 3",
        cd_change="red and blue mix to pink instead of purple",
        cd_witness=("click 4 4", "click 4 5", "click 4 6", "click 4 7", "click 2 9",
                    "click 4 4", "noop"),
        # a pink cell (red and blue mixed) is on the canvas
        cd_condition='any (--> d (== (.. d tint) "pink")) dabs',
        mfp_deliberate=("click 3 3", "click 1 9", "click 3 3", "up", "click 6 5", "click 2 9",
                        "click 6 5", "down", "click 5 2", "right", "click 5 2")),
    WorldTaskSpec(
        "garden",
        plan_witness=("click 9 11", *_rep("right", 7)),
        plan_mask=((9, 10), (8, 1), (9, 1), (10, 1)),
        cd_trigger="> planted 1",
        cd_change="plants grow a cell every 2 ticks instead of every 3",
        cd_witness=("click 1 11", "click 3 11", *_rep("noop", 10)),
        # a watered plant with no rain in its column (a drop hides what it covers), now or in
        # the last frame, grew on a tick that is not a multiple of 3 (clock % 3 != 0: only the
        # 2-tick rule grows it), or did not grow, below its full height, on one that is (the
        # 3-tick rule would have); planted or picked this tick, it grew from height 1
        cd_condition=("& changed (any (--> pl (& (> (.. pl water) 0) (& (! (any (--> dr (== "
                      "(colOf dr) (colOf pl))) (concat (list rain (prev rain))))) (if (== (% "
                      "(prev clock) 3) 0) then (& (!= (% (prev clock) 2) 0) (< (.. pl tall) 5)) "
                      "else (& (== (% (prev clock) 2) 0) (if (== (length (plantIn (prev plants) "
                      "(colOf pl))) 0) then (== (.. pl tall) 2) else (any (--> k (| (> (.. pl "
                      "tall) (.. k tall)) (& (== (.. k tall) 5) (== (.. pl tall) 2)))) (plantIn "
                      "(prev plants) (colOf pl))))))))) plants)"),
        mfp_deliberate=("click 2 11", "right", "right", "down", "noop", "noop", "down",
                        "click 8 11", "noop", "noop", "noop")),
    WorldTaskSpec(
        "gravity",
        # blue, red and yellow blocks at chosen columns of the floor row, crane loaded blue
        # (a magenta fusion tally alone gives a search no gradient to follow)
        plan_witness=("up", "left", "left", "down", *_rep("right", 5), "down",
                      *_rep("left", 3), "down", *_rep("noop", 9)),
        cd_trigger="> drops 3",
        cd_change="the loaded colour cycles backwards (red, yellow, blue) on up and on drops",
        cd_witness=("down", "right", "down", "right", "down", "right", "down", "up", "noop",
                    "down", *_rep("noop", 5)),
        # the crane's loaded colour moved on (up or a drop) while the cycle runs backwards
        cd_condition="& changed (!= (.. crane load) (.. (prev crane) load))",
        mfp_deliberate=("down", "left", "down", "up", "up", "down", "noop", "right", "right",
                        "down", "noop", "noop")),
    WorldTaskSpec(
        "hunters",
        plan_witness=("click 7 0", "click 12 13", "right", "right"),
        plan_mask=((7, 0), (12, 13), (4, 2)),
        cd_trigger="> clock 20",
        cd_change="wolves move every tick instead of every third tick",
        cd_witness=_rep("noop", 30),
        # a wolf moved on a tick when wolves rest (clock % 3 != 0)
        cd_condition=("& changed (& (!= (% (prev clock) 3) 0) (any (--> i (!= (.. (at wolves i) "
                      "origin) (.. (at (prev wolves) i) origin))) (range 0 (length wolves))))"),
        mfp_deliberate=("down", "down", "down", "right", "down", "down", "noop", "left",
                        "noop", "down")),
    WorldTaskSpec(
        "icepond",
        plan_witness=(*_rep("right", 5), "down", "up", *_rep("noop", 8)),
        cd_trigger="> poured 2",
        cd_change="water freezes as soon as winter starts (no 3-tick delay)",
        cd_witness=("down", "noop", "down", "noop", "down", "up", *_rep("noop", 5)),
        # in the first 3 ticks of winter, a drop turned to ice that was resting water with open
        # air above in the last frame (so the season froze it, not a click)
        cd_condition=("& changed (& (prev winter) (& (< (prev chill) 3) (any (--> i (& (.. (at "
                      "drops i) icy) (& (! (.. (at (prev drops) i) icy)) (& (| (in (at2 (.. (at "
                      "(prev drops) i) origin) 0 1) stoneSpots) (in (at2 (.. (at (prev drops) i) "
                      "origin) 0 1) (map (--> d (.. d origin)) (prev drops)))) (! (| (in (at2 (.. "
                      "(at (prev drops) i) origin) 0 -1) stoneSpots) (| (in (at2 (.. (at (prev "
                      "drops) i) origin) 0 -1) (map (--> d (.. d origin)) (prev drops))) (| (== "
                      "(at2 (.. (at (prev drops) i) origin) 0 -1) (.. (prev tap) origin)) (== "
                      "(at2 (.. (at (prev drops) i) origin) 0 -1) (Position 11 0)))))))))) (range "
                      "0 (length (prev drops))))))"),
        mfp_deliberate=("down", "right", "right", "down", "noop", "up", "noop", "noop",
                        "noop", "noop", "click 3 10", "up", "noop")),
    WorldTaskSpec(
        "invaders",
        plan_witness=("right", "up", *_rep("noop", 3), "up", *_rep("noop", 3), "left", "up",
                      *_rep("noop", 3), "up", *_rep("noop", 6)),
        plan_mask=tuple((x, y) for y in range(2, 6) for x in range(13)),
        cd_trigger="> score 1",
        cd_change="bombs fall two cells per tick",
        cd_witness=("right", "up", *_rep("noop", 3), "up", *_rep("noop", 3), "left", "up",
                    *_rep("noop", 3), "up", *_rep("noop", 12)),
        # bombs fell this tick, one of them with at least two rows left to fall
        cd_condition="& changed (any (--> b (< (.. (.. b origin) y) 12)) (prev bombs))",
        mfp_deliberate=("up", "noop", "left", "up", "down", "noop", "right", "right", "up",
                        "noop")),
    WorldTaskSpec(
        "magnets",
        plan_witness=("down", "right", "right", "right", "right", "noop", "noop", "up", "up",
                      "noop", "up", "noop"),
        cd_trigger="> flips 0",
        cd_change="iron is repelled by the magnet instead of attracted",
        cd_witness=("left", "left", "click 3 5", "left", "noop", "noop"),
        # an iron puck slid (it is not where it stood, or was pushed to by the magnet, before
        # the pucks moved): iron only slides away from the magnet now
        cd_condition=("& changed (any (--> i (& (== (.. (at pucks i) pole) 0) (!= (.. (at pucks "
                      "i) origin) (if (== (.. (at (prev pucks) i) origin) (.. magnet origin)) "
                      "then (Position (+ (.. (.. magnet origin) x) (- (.. (.. magnet origin) x) "
                      "(.. (.. (prev magnet) origin) x))) (+ (.. (.. magnet origin) y) (- (.. (.. "
                      "magnet origin) y) (.. (.. (prev magnet) origin) y)))) else (.. (at (prev "
                      "pucks) i) origin))))) (range 0 (length pucks)))"),
        mfp_deliberate=("left", "left", "click 3 5", "up", "noop", "right", "down", "down",
                        "noop", "right")),
    WorldTaskSpec(
        "outbreak",
        plan_witness=("click 0 3", "click 0 5", "down"),
        plan_mask=((0, 3), (0, 5), (10, 2)),
        cd_trigger="> cases 10",
        cd_change="the sick recover after 3 ticks instead of 6",
        cd_witness=_rep("noop", 60),
        # someone recovered (grey) after 3 to 5 ticks of sickness
        cd_condition=("& changed (any (--> pp (& (>= (.. pp timer) 2) (< (.. pp timer) 5))) (prev "
                      "sick))"),
        mfp_deliberate=("left", "noop", "noop", "down", "noop", "noop", "up", "noop")),
    WorldTaskSpec(
        "platformer",
        plan_witness=(*_rep("right", 5), "up", "right", "right", "right", "right", "noop",
                      "right", "right"),
        cd_trigger="> score 0",
        cd_change="gravity pulls the player down two cells per tick (one when only one is free)",
        cd_witness=("up", "noop", "noop", "noop", "noop", "right", "up", *_rep("noop", 5)),
        # the player fell two rows in one tick
        cd_condition="& changed (== (.. (.. hero origin) y) (+ (.. (.. (prev hero) origin) y) 2))",
        mfp_deliberate=("up", "noop", "right", "right", "right", "noop", "right", "up",
                        "noop", "noop", "right")),
    WorldTaskSpec(
        "sparks",
        plan_witness=("click 5 5", "click 5 5", "click 6 5", "click 6 5", "click 5 6",
                      "click 5 6"),
        plan_mask=((5, 5), (6, 5), (5, 6)),
        cd_trigger="> clock 30",
        cd_change="the torch emits a spark every 2 ticks instead of every 6",
        cd_witness=_rep("noop", 40),
        # time passed (the sparks aged) on an even tick that is not a multiple of 6, and the
        # torch's new spark shows alone at its mouth (12,11): no other spark, crystal or jar
        cd_condition=("& changed (& (== (% (prev clock) 2) 0) (& (!= (% (prev clock) 6) 0) (& (> "
                      "(length sparks) 0) (any (--> s (& (== (.. s age) 0) (& (== (.. s origin) "
                      "(Position 12 11)) (& (== (length (filter (--> o (== (.. o origin) "
                      "(Position 12 11))) sparks)) 1) (& (!= (.. jar origin) (Position 12 11)) (& "
                      "(! (any (--> c (== (.. c origin) (Position 12 11))) crystals)) (!= (map "
                      "(--> i (.. (at sparks i) age)) (range 0 (- (length sparks) 1))) (map (--> "
                      "o (.. o age)) (prev sparks))))))))) (list (at sparks (- (length sparks) "
                      "1)))))))"),
        mfp_deliberate=("click 8 8", "noop", "noop", "right", "click 4 4", "noop", "noop",
                        "down")),
    WorldTaskSpec(
        "warehouse",
        plan_witness=("down", "right", "right", "noop", "noop", "up", "right", "right",
                      "right", "down", "down", "left", "left", "down", "left", "left", "up",
                      "left", "down"),
        cd_trigger="> pushes 1",
        cd_change="crates stop as soon as they are pushed onto the ice (no sliding)",
        cd_witness=("down", "right", "right", "noop", "noop", "up"),
        # a crate that had momentum on ice in the last frame, with the cell ahead of it free
        # (no wall, crate or pusher), stopped there
        cd_condition=("& changed (any (--> c (& (in (.. c origin) iceSpots) (& (== (.. c vx) 0) "
                      "(& (== (.. c vy) 0) (any (--> k (& (== (.. k origin) (.. c origin)) (& (| "
                      "(!= (.. k vx) 0) (!= (.. k vy) 0)) (& (! (blocked (prev crates) (shiftPos "
                      "(.. k origin) (.. k vx) (.. k vy)))) (!= (shiftPos (.. k origin) (.. k vx) "
                      "(.. k vy)) (.. (prev pusher) origin)))))) (prev crates)))))) crates)"),
        mfp_deliberate=("down", "right", "right", "noop", "noop", "up", "right", "right",
                        "down")),
)}


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
    """The specs above and those of ``world_specs/``, merged on first use (not at import, so a
    world's spec module can be imported on its own: it imports this module for
    ``WorldTaskSpec``)."""
    if not _ALL:
        with _MERGING:
            if not _ALL:
                merged = {**_BUILT_IN, **_world_specs()}
                _ALL.update(merged)   # whole at once: a thread never sees half of it
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
