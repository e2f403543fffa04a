from llm_eval.tasks.specs import WorldTaskSpec, _rep

SPEC = WorldTaskSpec(
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
                    "noop", "down"),
)
