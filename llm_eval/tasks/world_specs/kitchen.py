from llm_eval.tasks.specs import WorldTaskSpec

SPEC = WorldTaskSpec(
    "kitchen",
    # seed 1: three dishes served brown (done), none raw or burnt, with one refill
    plan_witness=("down", "right", "down", "click 15 13", "left", "up", "down", "right", "up",
                  "left", "noop", "up"),
    plan_mask=((0, 0), (1, 0), (2, 0), (15, 0)),
    cd_trigger="> served 0",
    cd_change="a click on the fuel can or gauge refills only 1 unit of fuel instead of 4",
    # serve one dish brown, then refill
    cd_witness=("down", "right", "down", "noop", "left", "up", "noop", "click 15 13", "noop"),
    # a refill this tick left the fuel below what a refill of 4 would have (the tick's burn
    # comes after the refill)
    cd_condition=("& changed (& (> refill 0) (!= fuel (- (min 10 (+ (prev fuel) 4)) burn)))"),
    mfp_deliberate=("down", "right", "down", "noop", "noop", "left", "up", "click 15 13",
                    "noop", "down", "right", "up", "click 15 11", "down", "noop", "noop",
                    "click 15 9", "noop", "noop"),
)
