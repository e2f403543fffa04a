from llm_eval.tasks.specs import WorldTaskSpec, _rep

SPEC = WorldTaskSpec(
    "dig",
    # seed 1: walk to column 10, dig a shaft down to the hidden gem at (10,6), dig sideways to
    # the one revealed at (11,6), then climb back to the start cell; judged on the two pips
    # and the digger's start cell (white there again), so the way out looks like no progress
    plan_witness=(*_rep("right", 3), *_rep("down", 8), *_rep("right", 2), "left",
                  *_rep("up", 4), *_rep("left", 3)),
    plan_mask=((0, 0), (1, 0), (7, 2)),
    cd_trigger="> gems 2",
    cd_change="digging into sand also digs away the sand cell behind it (two cells at once)",
    # three gems: (10,6), (11,6), (12,5); then a dig down from (12,5) takes (12,6) and (12,7)
    cd_witness=(*_rep("right", 3), *_rep("down", 8), *_rep("right", 2), "up", "up", "right",
                "right", "noop", "down"),
    # one press removed two sand cells (the original digs at most one per tick)
    cd_condition="& changed (< (length sand) (- (length (prev sand)) 1))",
    # seed 7: a shaft down column 7 reveals and takes the gem at (7,7); a rock at (8,5) is
    # revealed, cracked and broken on the way
    mfp_deliberate=(*_rep("down", 6), "right", "right", "click 8 5", "click 8 5", "right",
                    "left", *_rep("down", 4)),
)
