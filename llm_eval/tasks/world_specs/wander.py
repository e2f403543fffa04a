"""Task spec of wander (5x5, stochastic): one particle that random-walks in a box of walls
the player builds."""

from llm_eval.tasks.specs import WorldTaskSpec

SPEC = WorldTaskSpec(
    "wander",
    # the particle pinned at (0,0) in a 1x3 pocket closed by four walls: walk it in first,
    # then wall it in (walls built first shut it out), then pin it against the top edge
    plan_witness=("left", "left", "up", "up", "click 1 0", "click 1 1", "click 1 2",
                  "click 0 3", "up"),
    plan_mask=((0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (0, 3)),
    cd_trigger="> built 3",
    cd_change="walls no longer stop the particle: it can step onto a wall cell",
    cd_witness=("click 0 0", "click 1 0", "click 2 0", "click 3 0", "click 4 0", "up", "up",
                "up"),
    # the particle stands on a wall cell (the original rule never lets it step there)
    cd_condition="& changed (walled (.. dot origin))",
    mfp_deliberate=("click 2 1", "left", "click 0 2", "up", "noop", "right", "click 2 1",
                    "down", "noop", "click 3 3", "noop"),
)
