from llm_eval.tasks.specs import WorldTaskSpec, _rep

SPEC = WorldTaskSpec(
    "conveyor",
    # turn the junction (7,2) down, drop a cyan box and then a magenta one: both ride down
    # column 7; once the cyan box has passed (7,8), turn that junction left so the magenta box
    # goes along row 8 and down column 1. Judged on the two junctions and the two pips (cyan
    # under the cyan bin, magenta under the magenta bin). Clicking (7,8) early (it looks like
    # progress) sends the cyan box to the wrong bin.
    plan_witness=("click 7 2", "up", "down", "right", "down") + _rep("noop", 10)
                 + ("click 7 8",) + _rep("noop", 12),
    plan_mask=((7, 2), (7, 8), (7, 15), (1, 15)),
    cd_trigger="> inB 0",
    cd_change="a click turns a belt a quarter anticlockwise instead of clockwise",
    # a cyan box routed down the junction is delivered at tick 20; at tick 21 a click turns
    # the free belt (10,2)
    cd_witness=("click 7 2", "up", "down") + _rep("noop", 17) + ("click 10 2", "noop"),
    # a belt with no box on it now points a quarter anticlockwise from where it pointed in
    # the last frame (the original only ever turns a belt clockwise)
    cd_condition=("& changed (any (--> i (& (== (.. (at belts i) dir) (% (+ (.. (at (prev belts) i) "
                  "dir) 3) 4)) (! (any (--> b (== (.. b origin) (.. (at belts i) origin))) boxes)))) "
                  "(range 0 (length belts)))"),
    mfp_deliberate=("down", "noop", "click 7 2", "up", "down", "noop", "click 1 2", "right",
                    "noop", "down"),
)
