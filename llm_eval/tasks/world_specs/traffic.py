from llm_eval.tasks.specs import WorldTaskSpec

SPEC = WorldTaskSpec(
    "traffic",
    # both lights green (click the red north-south lamp), wait for the third crash, then both
    # lights red: three red crash marks, the fourth mark cell still grass, four red lamps
    plan_witness=("click 6 6", *("noop",) * 21, "click 9 6", "click 6 6"),
    plan_mask=((12, 0), (13, 0), (14, 0), (15, 0), (6, 6), (9, 9), (6, 9), (9, 6)),
    cd_trigger="> switches 3",
    cd_change="northbound (yellow) cars no longer stop at a red light",
    cd_witness=("up", "left", "up", "left", "noop"),
    # a northbound car stood at its stop cell (8,9) with the junction cell ahead free, and
    # its light is red on this tick: the original would have kept it waiting, it drove on
    cd_condition=("& changed (any (--> c (& (== (.. c lane) 3) (& (== (.. c origin) (Position 8 "
                  "9)) (& (! vGreen) (& (! (any (--> k (== (.. k origin) (Position 8 8))) (prev "
                  "cars))) (! (any (--> w (== (.. w origin) (Position 8 8))) (prev wrecks)))))))) "
                  "(prev cars))"),
    mfp_deliberate=("click 6 6", "noop", "noop", "up", "noop", "left", "noop", "click 9 6",
                    "noop", "down"),
)
