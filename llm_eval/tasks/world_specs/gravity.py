from llm_eval.tasks.specs import WorldTaskSpec, _rep

SPEC = WorldTaskSpec(
    "gravity",
    # blue, red and yellow blocks at chosen columns of the floor row, crane loaded blue
    # (a magenta fusion tally alone gives a search no gradient to follow)
    plan_witness=("up", "left", "left", "down", *_rep("right", 5), "down",
                  *_rep("left", 3), "down", *_rep("noop", 9)),
    cd_trigger="> drops 3",
    cd_change="the loaded colour cycles backwards (red, yellow, blue) on up and on drops",
    cd_witness=("down", "right", "down", "right", "down", "right", "down", "up", "noop",
                "down", *_rep("noop", 5)),
    # the crane's loaded colour moved on (up or a drop) while the cycle runs backwards
    cd_condition="& changed (!= (.. crane load) (.. (prev crane) load))",
    mfp_deliberate=("down", "left", "down", "up", "up", "down", "noop", "right", "right",
                    "down", "noop", "noop"),
)
