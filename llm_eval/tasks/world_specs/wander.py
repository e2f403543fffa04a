"""Task spec of wander (5x5, stochastic): one particle that random-walks in a box of walls
the player builds."""

from llm_eval.tasks.specs import WorldTaskSpec

SPEC = WorldTaskSpec(
    "wander",
    # a wall across column 2 and the particle sealed into the corner (0,0) behind it: walk
    # the particle to the left side first (it starts on the wall's line), build the wall
    # while it wanders there, then pin it in the corner and close the corner; greedy wall
    # building shuts it out on the wrong side
    plan_witness=("left", "left", "click 2 0", "click 2 1", "click 2 2", "click 2 3",
                  "click 2 4", "up", "up", "left", "click 1 0", "click 0 1"),
    plan_mask=((2, 0), (2, 1), (2, 2), (2, 3), (2, 4), (1, 0), (0, 1), (0, 0)),
    cd_trigger="> built 3",
    cd_change="walls no longer stop the particle: it can step onto a wall cell",
    cd_witness=("click 0 0", "click 1 0", "click 2 0", "click 3 0", "click 4 0", "up", "up",
                "up"),
    # the particle stands on a wall cell (the original rule never lets it step there)
    cd_condition="& changed (walled (.. dot origin))",
    mfp_deliberate=("click 2 1", "left", "click 0 2", "up", "noop", "right", "click 2 1",
                    "down", "noop", "click 3 3", "noop"),
)
