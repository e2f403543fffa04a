from llm_eval.tasks.specs import WorldTaskSpec, _rep

SPEC = WorldTaskSpec(
    "outbreak",
    plan_witness=("click 0 3", "click 0 5", "down"),
    plan_mask=((0, 3), (0, 5), (10, 2)),
    cd_trigger="> cases 10",
    cd_change="the sick recover after 3 ticks instead of 6",
    cd_witness=_rep("noop", 60),
    # someone recovered (grey) after 3 to 5 ticks of sickness
    cd_condition=("& changed (any (--> pp (& (>= (.. pp timer) 2) (< (.. pp timer) 5))) (prev "
                  "sick))"),
    mfp_deliberate=("left", "noop", "noop", "down", "noop", "noop", "up", "noop"),
)
