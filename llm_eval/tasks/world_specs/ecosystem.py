from llm_eval.tasks.specs import WorldTaskSpec, _rep

SPEC = WorldTaskSpec(
    "ecosystem",
    # the ranger walks a loop and plants seven bushes next to itself
    plan_witness=("right", "right", "right", "click 13 9", "up", "click 13 8", "up",
                  "click 13 7", "up", "click 13 6", "left", "left", "click 10 5", "left",
                  "left", "click 8 5", "down", "click 7 7"),
    plan_mask=((13, 9), (13, 8), (13, 7), (13, 6), (10, 5), (8, 5), (7, 7), (8, 7)),
    cd_trigger="> eaten 1",
    cd_change="foxes starve as soon as they would turn red (after 8 ticks without food instead of 12)",
    cd_witness=_rep("noop", 16),
    # a bone appeared this tick for a fox that was less than 11 ticks hungry in the last
    # frame (the original starves a fox only at 12), and no fox stands on it
    cd_condition=("& changed (any (--> b (& (== (.. b age) 3) (& (any (--> f (& (== (.. f tag) "
                  "(.. b tag)) (< (.. f hunger) 11))) (prev foxes)) (! (any (--> f (== (.. f "
                  "origin) (.. b origin))) foxes))))) bones)"),
    mfp_deliberate=("right", "click 11 9", "noop", "up", "click 10 7", "noop", "left",
                    "noop", "click 9 7", "down", "noop"),
)
