from llm_eval.tasks.specs import WorldTaskSpec, _rep

SPEC = WorldTaskSpec(
    "platformer",
    plan_witness=(*_rep("right", 5), "up", "right", "right", "right", "right", "noop",
                  "right", "right"),
    cd_trigger="> score 0",
    cd_change="gravity pulls the player down two cells per tick (one when only one is free)",
    cd_witness=("up", "noop", "noop", "noop", "noop", "right", "up", *_rep("noop", 5)),
    # the player fell two rows in one tick
    cd_condition="& changed (== (.. (.. hero origin) y) (+ (.. (.. (prev hero) origin) y) 2))",
    mfp_deliberate=("up", "noop", "right", "right", "right", "noop", "right", "up",
                    "noop", "noop", "right"),
)
