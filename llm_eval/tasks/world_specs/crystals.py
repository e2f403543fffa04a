from llm_eval.tasks.specs import WorldTaskSpec

SPEC = WorldTaskSpec(
    "crystals",
    # an orange crystal at (2,4), a green one at (5,5) and a purple one at (4,1), and the red
    # seed at (1,1) broken: plant, switch the seed colour and click again to merge colours
    plan_witness=("click 2 4", "right", "click 2 4", "click 5 5", "right", "click 5 5",
                  "click 4 1", "left", "left", "click 4 1", "click 1 1"),
    plan_mask=((2, 4), (5, 5), (4, 1), (1, 1)),
    cd_trigger="> mixes 0",
    cd_change="blue and yellow merge into cyan instead of green",
    cd_witness=("click 2 4", "right", "click 2 4", "click 5 5", "right", "click 5 5"),
    # a cyan crystal exists (only the changed colour rule makes cyan)
    cd_condition='& changed (any (--> g (== (.. g hue) "cyan")) gems)',
    mfp_deliberate=("click 4 4", "right", "click 4 4", "noop", "down", "noop", "up",
                    "click 1 1", "right", "click 6 2", "noop"),
)
