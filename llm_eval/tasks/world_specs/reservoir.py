from llm_eval.tasks.specs import WorldTaskSpec

SPEC = WorldTaskSpec(
    "reservoir",
    # the bucket under the right basin's hole first (no visible progress for 11 moves),
    # then pull the plug and catch all eight drops
    plan_witness=(*("right",) * 11, "click 12 7", *("noop",) * 25),
    # judged on the eight pips, the pulled plug and the bucket (not on the basin, whose
    # draining alone would reward pulling the plug before the bucket is there)
    plan_mask=(*((x, 0) for x in range(8, 16)), (12, 7), (12, 14)),
    cd_trigger="> caught 1",
    cd_change="the bucket no longer catches water (drops come to rest on it and run off)",
    cd_witness=(*("right",) * 11, "click 12 7", *("noop",) * 20),
    # a drop ended the tick right above the bucket, where the original rule catches it
    cd_condition="& changed (any (--> w (caughtBy w bucket)) drops)",
    mfp_deliberate=("click 4 5", "noop", "noop", "right", "right", "noop", "up", "noop",
                    "click 7 11", "noop", "down", "noop", "right", "noop"),
)
