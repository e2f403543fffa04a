from llm_eval.tasks.specs import WorldTaskSpec, _rep

SPEC = WorldTaskSpec(
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
                    "noop"),
)
